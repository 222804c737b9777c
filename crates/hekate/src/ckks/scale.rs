//! Exact scale tracking.
//!
//! A CKKS plaintext or ciphertext encodes `m ≈ Δ · z`; the scale `Δ` changes with every
//! multiplication (`Δ_a Δ_b`) and rescaling (`Δ / q_l`). Scales are kept as exact rationals,
//! so two scales are equal only if they are equal, and a ratio is an integer only if it is.
//! The user-facing value is [`Scale::to_f64`].
//!
//! The rationals get long: a power `T_128` of a polynomial's basis carries `Δ^128` over
//! the primes it was rescaled by, thousands of bits each way, and every product reduces its
//! fraction by a gcd. They are `dashu-ratio`'s reduced rationals (MIT OR Apache-2.0, the
//! `dashu` family hekate already uses for Han and Ki's interpolant), whose Lehmer gcd made a
//! product of two 8000-bit fractions 70x faster than `num-rational`'s binary gcd (19 µs
//! against 1.4 ms, measured on the Zen 4): with `num-rational`, the scale arithmetic of a
//! degree-255 EvalMod took a third of an `N = 2^12` bootstrap (BENCHMARKS.md, "Exact
//! scales at dashu's speed").

use dashu_int::ops::{BitTest, UnsignedAbs};
use dashu_int::{IBig, UBig};
use dashu_ratio::RBig;
use num_bigint::{BigInt, Sign};
use num_rational::BigRational;
use std::fmt;

/// An exact positive rational scale factor.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Scale(RBig);

/// `x` as a `num-bigint` integer (serialization's representation).
fn to_num(x: &UBig) -> BigInt {
    BigInt::from_bytes_le(Sign::Plus, &x.to_le_bytes())
}

/// The nearest `f64` to the positive integer `x` (correctly rounded).
fn int_to_f64(x: &IBig) -> f64 {
    x.to_f64().value()
}

impl Scale {
    /// The scale `2^bits`.
    pub fn from_bits(bits: u32) -> Scale {
        Scale(RBig::from(UBig::ONE << bits as usize))
    }

    /// The scale equal to the finite positive `f64` `x` (every `f64` is an exact dyadic
    /// rational). Returns `None` for zero, negative, infinite or NaN input.
    pub fn from_f64(x: f64) -> Option<Scale> {
        if !(x.is_finite() && x > 0.0) {
            return None;
        }
        RBig::try_from(x).ok().map(Scale)
    }

    /// The scale equal to the integer `x > 0`.
    pub fn from_integer(x: u64) -> Scale {
        assert!(x > 0);
        Scale(RBig::from(x))
    }

    /// The nearest `f64`.
    pub fn to_f64(&self) -> f64 {
        let (n, d) = self.parts();
        // Shift both to at most 1000 bits so the conversion cannot overflow.
        let shift = (n.bit_len().max(d.bit_len()) as i64 - 1000).max(0) as usize;
        int_to_f64(&(n >> shift)) / int_to_f64(&(d >> shift))
    }

    /// `log2` of the scale.
    pub fn log2(&self) -> f64 {
        fn log2_int(x: &IBig) -> f64 {
            let s = x.bit_len().saturating_sub(60);
            int_to_f64(&(x >> s)).log2() + s as f64
        }
        let (n, d) = self.parts();
        log2_int(n) - log2_int(d)
    }

    /// The numerator and denominator, both positive, borrowed.
    fn parts(&self) -> (&IBig, &IBig) {
        (self.0.numerator(), self.0.denominator().as_ibig())
    }

    /// `self * other`.
    pub fn mul(&self, other: &Scale) -> Scale {
        Scale(&self.0 * &other.0)
    }

    /// `self / other`.
    pub fn div(&self, other: &Scale) -> Scale {
        Scale(&self.0 / &other.0)
    }

    /// `self / q` for a positive integer `q`.
    pub fn div_integer(&self, q: u64) -> Scale {
        Scale(&self.0 / RBig::from(q))
    }

    /// `self * k` for a positive integer `k`.
    pub fn mul_integer(&self, k: u64) -> Scale {
        Scale(&self.0 * RBig::from(k))
    }

    /// The exact value, as a reduced `num-rational` fraction (for serialization).
    pub(crate) fn as_ratio(&self) -> BigRational {
        BigRational::new_raw(
            to_num(&self.0.numerator().unsigned_abs()),
            to_num(self.0.denominator()),
        )
    }

    /// The scale equal to the rational `r`, if it is positive (for deserialization).
    pub(crate) fn from_ratio(r: BigRational) -> Option<Scale> {
        let (n, d) = (r.numer(), r.denom());
        if n.sign() == Sign::Minus || d.sign() == Sign::Minus || n.sign() == Sign::NoSign {
            return None;
        }
        let n = UBig::from_le_bytes(&n.to_bytes_le().1);
        let d = UBig::from_le_bytes(&d.to_bytes_le().1);
        (d != UBig::ZERO).then(|| Scale(RBig::from_parts(IBig::from(n), d)))
    }

    /// The integer factors `(k_a, k_b)` that bring `a` and `b` to the larger of the two
    /// (`a · k_a = b · k_b`, one of them 1): how additions align operands whose scales
    /// differ by an integer factor, exactly. An error when the ratio is not an integer
    /// (operands rescaled by different primes).
    pub fn alignment_factors(a: &Scale, b: &Scale) -> crate::Result<(u64, u64)> {
        if a == b {
            return Ok((1, 1));
        }
        if let Some(k) = a.integer_ratio(b) {
            return Ok((1, k));
        }
        if let Some(k) = b.integer_ratio(a) {
            return Ok((k, 1));
        }
        let ratio = (a.log2() - b.log2()).exp2();
        Err(crate::Error::ScaleMismatch(format!(
            "scales {a} and {b} (ratio {ratio:.9}) differ by a non-integer factor: operands \
             rescaled by different primes carry slightly different scales; rescale the operand \
             with the larger scale, or reorder the computation (e.g. Horner's rule) so that \
             both operands went through the same rescalings"
        )))
    }

    /// If `self / other` is a positive integer that fits a `u64`, that integer.
    pub fn integer_ratio(&self, other: &Scale) -> Option<u64> {
        let r = &self.0 / &other.0;
        if r.denominator() == &UBig::ONE {
            u64::try_from(r.numerator()).ok().filter(|&k| k != 0)
        } else {
            None
        }
    }
}

impl fmt::Debug for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "2^{:.4}", self.log2())
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "2^{:.4}", self.log2())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::ToPrimitive;
    use rand::{Rng, SeedableRng};

    /// The `num-rational` computation the scales used before `dashu-ratio` (same words).
    fn reference_to_f64(r: &BigRational) -> f64 {
        let (n, d) = (r.numer(), r.denom());
        let shift = (n.bits().max(d.bits()) as i64 - 1000).max(0);
        let nf = (n >> shift).to_f64().unwrap_or(f64::INFINITY);
        let df = (d >> shift).to_f64().unwrap_or(f64::INFINITY);
        nf / df
    }

    /// Long chains of products, quotients and integer factors (the shapes of a deep
    /// polynomial's scales, up to tens of thousands of bits) give the exact `num-rational`
    /// results, and the same `f64` and `log2` as the former implementation.
    #[test]
    fn agrees_with_num_rational() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(0x5CA1E);
        for chain in 0..40 {
            let mut s = Scale::from_f64(rng.gen_range(1.0..2.0) * 2f64.powi(rng.gen_range(20..60)))
                .unwrap();
            let mut r = s.as_ratio();
            for step in 0..200 {
                let q = rng.gen::<u64>() >> rng.gen_range(2..40) | 1;
                let (ns, nr) = match rng.gen_range(0..4) {
                    0 => (s.mul(&s), &r * &r),
                    1 => (s.div_integer(q), &r / BigRational::from_integer(q.into())),
                    2 => (s.mul_integer(q), &r * BigRational::from_integer(q.into())),
                    _ => {
                        let f = Scale::from_f64(rng.gen_range(0.5..2.0)).unwrap();
                        (s.div(&f), &r / f.as_ratio())
                    }
                };
                if nr.numer().bits() + nr.denom().bits() > 40_000 {
                    break;
                }
                (s, r) = (ns, nr);
                assert_eq!(s.as_ratio(), r, "chain {chain}, step {step}");
                assert_eq!(
                    s.to_f64(),
                    reference_to_f64(&r),
                    "chain {chain}, step {step}"
                );
                let log2 = |x: &BigInt| {
                    let sh = x.bits().saturating_sub(60);
                    (x >> sh).to_f64().unwrap().log2() + sh as f64
                };
                assert_eq!(s.log2(), log2(r.numer()) - log2(r.denom()));
            }
        }
    }

    #[test]
    fn exact_arithmetic() {
        let d = Scale::from_bits(40);
        assert_eq!(d.to_f64(), 2f64.powi(40));
        assert_eq!(Scale::from_f64(2f64.powi(40)).unwrap(), d);
        let q = 1_099_511_480_321u64;
        let after = d.mul(&d).div_integer(q);
        assert_ne!(after, d);
        assert_eq!(after.mul_integer(q), d.mul(&d));
        assert!((after.log2() - (80.0 - (q as f64).log2())).abs() < 1e-12);
        assert_eq!(d.mul_integer(3).integer_ratio(&d), Some(3));
        assert_eq!(d.integer_ratio(&d.mul_integer(3)), None);
        assert!(Scale::from_f64(0.0).is_none() && Scale::from_f64(f64::NAN).is_none());
    }
}
