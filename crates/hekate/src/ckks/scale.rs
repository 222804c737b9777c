//! Exact scale tracking.
//!
//! A CKKS plaintext or ciphertext encodes `m ≈ Δ · z`; the scale `Δ` changes with every
//! multiplication (`Δ_a Δ_b`) and rescaling (`Δ / q_l`). Scales are kept as exact rationals,
//! so two scales are equal only if they are equal, and a ratio is an integer only if it is.
//! The user-facing value is [`Scale::to_f64`].

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use std::fmt;

/// An exact positive rational scale factor.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Scale(BigRational);

impl Scale {
    /// The scale `2^bits`.
    pub fn from_bits(bits: u32) -> Scale {
        Scale(BigRational::from_integer(BigInt::one() << bits))
    }

    /// The scale equal to the finite positive `f64` `x` (every `f64` is an exact dyadic
    /// rational). Returns `None` for zero, negative, infinite or NaN input.
    pub fn from_f64(x: f64) -> Option<Scale> {
        if !(x.is_finite() && x > 0.0) {
            return None;
        }
        BigRational::from_float(x).map(Scale)
    }

    /// The scale equal to the integer `x > 0`.
    pub fn from_integer(x: u64) -> Scale {
        assert!(x > 0);
        Scale(BigRational::from_integer(BigInt::from(x)))
    }

    /// The nearest `f64`.
    pub fn to_f64(&self) -> f64 {
        let (n, d) = (self.0.numer(), self.0.denom());
        // Shift both to at most 1000 bits so the conversion cannot overflow.
        let shift = (n.bits().max(d.bits()) as i64 - 1000).max(0);
        let nf = (n >> shift).to_f64().unwrap_or(f64::INFINITY);
        let df = (d >> shift).to_f64().unwrap_or(f64::INFINITY);
        nf / df
    }

    /// `log2` of the scale.
    pub fn log2(&self) -> f64 {
        fn log2_int(x: &BigInt) -> f64 {
            let s = x.bits().saturating_sub(60);
            (x >> s).to_f64().expect("below 2^60").log2() + s as f64
        }
        log2_int(self.0.numer()) - log2_int(self.0.denom())
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
        Scale(&self.0 / BigRational::from_integer(BigInt::from(q)))
    }

    /// `self * k` for a positive integer `k`.
    pub fn mul_integer(&self, k: u64) -> Scale {
        Scale(&self.0 * BigRational::from_integer(BigInt::from(k)))
    }

    /// The exact value, as a reduced rational (for serialization).
    pub(crate) fn as_ratio(&self) -> &BigRational {
        &self.0
    }

    /// The scale equal to the rational `r`, if it is positive (for deserialization).
    pub(crate) fn from_ratio(r: BigRational) -> Option<Scale> {
        (r > BigRational::zero()).then_some(Scale(r))
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
        if r.is_integer() && !r.is_zero() {
            r.to_integer().to_u64()
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
