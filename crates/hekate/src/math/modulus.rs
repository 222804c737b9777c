//! One word modulus `q < 2^62`: reduction, Barrett and Shoup multiplication, lazy helpers.
//!
//! Conventions used across hekate:
//!
//! * A *reduced* value lies in `[0, q)`; a *lazy* value in `[0, 2q)` or `[0, 4q)` as stated.
//!   `q < 2^62` makes `4q` fit in a word, which the Harvey NTT butterflies rely on.
//! * Shoup multiplication by a fixed operand `w` uses the precomputed
//!   `w' = floor(w * 2^64 / q)` ([`Modulus::shoup`]); it costs two multiplications and no
//!   division, and is the workhorse of the NTT and of base conversion.
//! * Barrett reduction of a 128-bit value uses `floor(2^128 / q)`, for products of two
//!   variable operands and for lazily accumulated sums of products.

use crate::math::kernels::LaneConsts;

/// A word modulus `q` with `2 <= q < 2^62`, with its Barrett constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Modulus {
    q: u64,
    /// floor(2^128 / q), low and high words.
    barrett_lo: u64,
    barrett_hi: u64,
    /// `floor(2^(b + 63) / q)` for `b` = [`Modulus::bits`] (`2^64 - 1` where that is
    /// `2^64`, `q` a power of two): [`Modulus::reduce_short`]'s constant.
    barrett_short: u64,
    bits: u32,
    /// The SIMD kernels' constants of `q`, computed once here rather than on every kernel
    /// call (up to eight 128-bit divisions: 0.13 µs a call measured on Zen 4, a quarter of
    /// a 512-word kernel's time, 0.3% of a whole limb's at `N = 2^16`).
    lanes: LaneConsts,
}

/// The largest modulus bit size hekate supports (lazy values up to `4q` must fit a word).
pub const MAX_MODULUS_BITS: u32 = 61;

impl Modulus {
    /// A modulus `q`, `2 <= q < 2^62`.
    ///
    /// # Panics
    /// Never for valid input; out-of-range `q` is a programming error in the callers (all
    /// user-facing constructors validate bit sizes first), checked by `assert!`.
    pub fn new(q: u64) -> Self {
        assert!(
            (2..(1u64 << 62)).contains(&q),
            "modulus {q} out of range [2, 2^62)"
        );
        // floor(2^128 / q) = floor((2^128 - 1) / q) unless q divides 2^128 (q a power of two).
        let mut b = u128::MAX / q as u128;
        if q.is_power_of_two() {
            b += 1;
        }
        let bits = 64 - q.leading_zeros();
        let short = ((1u128 << (bits + 63)) / q as u128).min(u64::MAX as u128) as u64;
        Modulus {
            q,
            barrett_lo: b as u64,
            barrett_hi: (b >> 64) as u64,
            barrett_short: short,
            bits,
            lanes: LaneConsts::new(q),
        }
    }

    /// The SIMD kernels' constants of `q` (see [`LaneConsts`]).
    #[inline(always)]
    pub(crate) fn lane_consts(&self) -> &LaneConsts {
        &self.lanes
    }

    /// The modulus value `q`.
    #[inline(always)]
    pub fn value(&self) -> u64 {
        self.q
    }

    /// Number of bits of `q`.
    #[inline(always)]
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// `x mod q` for any word `x`.
    #[inline(always)]
    pub fn reduce(&self, x: u64) -> u64 {
        // Barrett with the high word of the constant: floor(x / q) approximated by
        // est = floor(x * barrett_hi / 2^64), barrett_hi = floor(2^64 / q), which is short
        // by x / q - est < x / 2^64 + 1 < 2, so est >= floor(x / q) - 1 and r < 2q: one
        // branch-free subtraction (the wrapped difference exceeds r when r < q).
        let est = ((x as u128 * self.barrett_hi as u128) >> 64) as u64;
        let r = x.wrapping_sub(est.wrapping_mul(self.q));
        let r = r.min(r.wrapping_sub(self.q));
        debug_assert!(r < self.q);
        r
    }

    /// `x mod q` for a 128-bit `x` (Barrett).
    #[inline(always)]
    pub fn reduce_u128(&self, x: u128) -> u64 {
        let x0 = x as u64;
        let x1 = (x >> 64) as u64;
        let (m0, m1) = (self.barrett_lo, self.barrett_hi);
        // High 128 bits of x * m, dropping the lowest partial product's low word.
        let carry = ((x0 as u128 * m0 as u128) >> 64) as u64;
        let t = x0 as u128 * m1 as u128 + carry as u128;
        let (t_lo, t_hi) = (t as u64, (t >> 64) as u64);
        let u = x1 as u128 * m0 as u128 + t_lo as u128;
        let carry2 = (u >> 64) as u64;
        let est = x1.wrapping_mul(m1).wrapping_add(t_hi).wrapping_add(carry2);
        let mut r = x0.wrapping_sub(est.wrapping_mul(self.q));
        // The estimate is at most 2 below the true quotient.
        if r >= self.q {
            r -= self.q;
        }
        if r >= self.q {
            r -= self.q;
        }
        r
    }

    /// Whether [`Modulus::reduce_short`] takes sums of `terms` products of two reduced
    /// values (plus one reduced value): `terms (q - 1)^2 + q - 1 < 2^(b + 63)`, so up to
    /// `2^(63 - b)` terms (4 at 61 bits, 8192 at 50).
    #[inline(always)]
    pub fn short_sum_fits(&self, terms: usize) -> bool {
        let p = (self.q - 1) as u128 * (self.q - 1) as u128;
        (terms as u128)
            .checked_mul(p)
            .and_then(|x| x.checked_add((self.q - 1) as u128))
            .is_some_and(|x| x >> (self.bits + 63) == 0)
    }

    /// `x mod q` for `x < 2^(b + 63)` (`b` = [`Modulus::bits`]): every product of two
    /// reduced values, and sums of several ([`Modulus::short_sum_fits`]). Barrett on the
    /// top bits (HAC 14.42): with `x' = floor(x / 2^(b - 1)) < 2^64` and
    /// `μ = floor(2^(b + 63) / q) < 2^64`, the estimate `floor(x' μ / 2^64)` is at most 2
    /// below `floor(x / q)`. One widening multiplication where [`Modulus::reduce_u128`] takes
    /// three, and the same result.
    #[inline(always)]
    pub fn reduce_short(&self, x: u128) -> u64 {
        debug_assert!(x >> (self.bits + 63) == 0, "reduce_short input too large");
        let top = (x >> (self.bits - 1)) as u64;
        let est = ((top as u128 * self.barrett_short as u128) >> 64) as u64;
        let r = (x as u64).wrapping_sub(est.wrapping_mul(self.q));
        let r = r.min(r.wrapping_sub(self.q));
        r.min(r.wrapping_sub(self.q))
    }

    /// `x mod q` for a signed `x` in `[0, q)`, **without branches or loops on the value**
    /// (for secret and noise coefficients): the Barrett estimate is corrected with masks,
    /// and the sign is applied with a mask. Same result as [`Modulus::reduce_i64`].
    #[inline(always)]
    pub fn reduce_i64_ct(&self, x: i64) -> u64 {
        let q = self.q;
        let neg = 0u64.wrapping_sub((x as u64) >> 63);
        let a = x.unsigned_abs();
        let est = ((a as u128 * self.barrett_hi as u128) >> 64) as u64;
        // The estimate is at most 2 below the quotient: r < 3q.
        let mut r = a.wrapping_sub(est.wrapping_mul(q));
        r -= q & 0u64.wrapping_sub((r >= q) as u64);
        r -= q & 0u64.wrapping_sub((r >= q) as u64);
        // q - r, and 0 for r = 0.
        let t = q - r;
        let t = t & 0u64.wrapping_sub((t != q) as u64);
        (t & neg) | (r & !neg)
    }

    /// `x mod q` for a signed `x`, as a representative in `[0, q)`.
    #[inline(always)]
    pub fn reduce_i64(&self, x: i64) -> u64 {
        let r = self.reduce(x.unsigned_abs());
        if x < 0 && r != 0 {
            self.q - r
        } else {
            r
        }
    }

    /// `x mod q` for a signed 128-bit `x`.
    #[inline]
    pub fn reduce_i128(&self, x: i128) -> u64 {
        let r = self.reduce_u128(x.unsigned_abs());
        if x < 0 && r != 0 {
            self.q - r
        } else {
            r
        }
    }

    /// Centered representative of a reduced `x`: the integer in `(-q/2, q/2]` congruent to it.
    #[inline(always)]
    pub fn center(&self, x: u64) -> i64 {
        debug_assert!(x < self.q);
        // Branch-free (a mask): the residues are often secret-dependent and random.
        let upper = 0u64.wrapping_sub((x > self.q >> 1) as u64);
        (x as i64).wrapping_sub((self.q & upper) as i64)
    }

    /// `a + b mod q` for reduced inputs.
    #[inline(always)]
    pub fn add(&self, a: u64, b: u64) -> u64 {
        debug_assert!(a < self.q && b < self.q);
        let s = a + b;
        // Branch-free (a conditional move): the data are secret-dependent and random, so
        // a branch would mispredict half the time.
        s.min(s.wrapping_sub(self.q))
    }

    /// `a - b mod q` for reduced inputs.
    #[inline(always)]
    pub fn sub(&self, a: u64, b: u64) -> u64 {
        debug_assert!(a < self.q && b < self.q);
        let d = a.wrapping_sub(b);
        d.min(d.wrapping_add(self.q))
    }

    /// `-a mod q` for a reduced input.
    #[inline(always)]
    pub fn neg(&self, a: u64) -> u64 {
        debug_assert!(a < self.q);
        if a == 0 {
            0
        } else {
            self.q - a
        }
    }

    /// `a * b mod q` for inputs below `2^64` whose product is below `2^128`.
    #[inline(always)]
    pub fn mul(&self, a: u64, b: u64) -> u64 {
        self.reduce_short(a as u128 * b as u128)
    }

    /// The Barrett constant `floor(2^128 / q)` as (low, high) words, as the reductions use
    /// it (the GPU kernels mirror them with the same constant).
    #[inline]
    pub fn barrett(&self) -> (u64, u64) {
        (self.barrett_lo, self.barrett_hi)
    }

    /// The Shoup companion `floor(w * 2^64 / q)` of a reduced constant `w`.
    #[inline]
    pub fn shoup(&self, w: u64) -> u64 {
        debug_assert!(w < self.q);
        (((w as u128) << 64) / self.q as u128) as u64
    }

    /// `x * w mod q` in `[0, 2q)`, for any word `x` and reduced `w` with companion `w_shoup`.
    #[inline(always)]
    pub fn mul_shoup_lazy(&self, x: u64, w: u64, w_shoup: u64) -> u64 {
        let quo = ((x as u128 * w_shoup as u128) >> 64) as u64;
        x.wrapping_mul(w).wrapping_sub(quo.wrapping_mul(self.q))
    }

    /// `x * w mod q` in `[0, q)`, for any word `x` and reduced `w` with companion `w_shoup`.
    #[inline(always)]
    pub fn mul_shoup(&self, x: u64, w: u64, w_shoup: u64) -> u64 {
        let r = self.mul_shoup_lazy(x, w, w_shoup);
        r.min(r.wrapping_sub(self.q))
    }

    /// `base^exp mod q`.
    pub fn pow(&self, base: u64, mut exp: u64) -> u64 {
        let mut b = self.reduce(base);
        let mut r = 1 % self.q;
        while exp > 0 {
            if exp & 1 == 1 {
                r = self.mul(r, b);
            }
            b = self.mul(b, b);
            exp >>= 1;
        }
        r
    }

    /// The inverse of `a` modulo `q`, if `gcd(a, q) = 1`.
    pub fn inv(&self, a: u64) -> Option<u64> {
        let (mut t, mut new_t) = (0i128, 1i128);
        let (mut r, mut new_r) = (self.q as i128, self.reduce(a) as i128);
        while new_r != 0 {
            let quo = r / new_r;
            (t, new_t) = (new_t, t - quo * new_t);
            (r, new_r) = (new_r, r - quo * new_r);
        }
        if r != 1 {
            return None;
        }
        if t < 0 {
            t += self.q as i128;
        }
        Some(t as u64)
    }

    /// Reduces a value in `[0, 2q)` to `[0, q)`.
    #[inline(always)]
    pub fn reduce_2q(&self, x: u64) -> u64 {
        debug_assert!(x < 2 * self.q);
        if x >= self.q {
            x - self.q
        } else {
            x
        }
    }

    /// Reduces a value in `[0, 4q)` to `[0, q)`.
    #[inline(always)]
    pub fn reduce_4q(&self, x: u64) -> u64 {
        debug_assert!(x < 4 * self.q);
        let x = if x >= 2 * self.q { x - 2 * self.q } else { x };
        self.reduce_2q(x)
    }

    /// `x mod q` for a finite `f64` holding an integer (any magnitude), exactly.
    ///
    /// An `f64` with `|x| >= 2^53` is `m * 2^e` with a 53-bit integer `m`; the residue is
    /// `m * (2^e mod q)`, so no precision is lost whatever the size of `x`.
    pub fn reduce_f64(&self, x: f64) -> u64 {
        debug_assert!(x.is_finite() && x == x.trunc());
        let a = x.abs();
        let r = if a < 9.007_199_254_740_992e15 {
            self.reduce(a as u64)
        } else {
            let bits = a.to_bits();
            let exp = ((bits >> 52) & 0x7ff) as i64 - 1075;
            let mant = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
            debug_assert!(exp > 0);
            self.mul(self.reduce(mant), self.pow(2, exp as u64))
        };
        if x < 0.0 {
            self.neg(r)
        } else {
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const QS: [u64; 5] = [
        12289,
        (1 << 36) - (1 << 20) + 1,
        1_125_899_906_826_241,
        1_671_981_167_411_201,
        (1u64 << 61) - 1,
    ];

    /// `reduce` at the smallest moduli and the largest, on the top words.
    #[test]
    fn reduce_at_the_extreme_moduli() {
        for q in [2u64, 3, 4, 5, 7, (1 << 62) - 57, (1 << 62) - 1] {
            let m = Modulus::new(q);
            for x in (0..4096u64).chain((0..4096).map(|i| u64::MAX - i)) {
                assert_eq!(m.reduce(x), x % q, "q = {q}, x = {x}");
            }
        }
    }

    #[test]
    fn reductions_match_u128_remainder() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for &q in &QS {
            let m = Modulus::new(q);
            // The words where the Barrett estimate falls short: the top ones and those
            // just below multiples of q.
            for x in [0, 1, q - 1, q, q + 1, u64::MAX, u64::MAX - 1, u64::MAX - q] {
                assert_eq!(m.reduce(x), x % q, "q = {q}, x = {x}");
            }
            for k in [1u64, 2, 3, u64::MAX / q - 1, u64::MAX / q] {
                for x in [k * q - 1, k * q, k * q + 1] {
                    assert_eq!(m.reduce(x), x % q, "q = {q}, x = {x}");
                }
            }
            for _ in 0..20_000 {
                let x = rng.next_u64();
                let y = ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128;
                assert_eq!(m.reduce(x), x % q);
                assert_eq!(m.reduce_u128(y), (y % q as u128) as u64);
                let (a, b) = (x % q, rng.next_u64() % q);
                assert_eq!(m.mul(a, b), ((a as u128 * b as u128) % q as u128) as u64);
                let bs = m.shoup(b);
                let lazy = m.mul_shoup_lazy(x, b, bs);
                assert!(lazy < 2 * q);
                assert_eq!(lazy % q, ((x as u128 * b as u128) % q as u128) as u64);
                assert_eq!(m.mul_shoup(x, b, bs), lazy % q);
                let s = x as i64;
                assert_eq!(m.reduce_i64(s), (s as i128).rem_euclid(q as i128) as u64);
            }
        }
    }

    /// The branch-free `add`, `sub`, `mul_shoup` and `center` against their definitions,
    /// at the edges and on random residues, for odd primes and even moduli.
    #[test]
    fn branch_free_helpers_match_definitions() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut qs = QS.to_vec();
        qs.extend([2, 3, 4, 1 << 20, (1 << 62) - 57]);
        for &q in &qs {
            let m = Modulus::new(q);
            let mut xs = vec![0, 1, q / 2, (q / 2 + 1) % q, q - 1];
            xs.extend((0..200).map(|_| rng.next_u64() % q));
            for &x in &xs {
                let c = m.center(x);
                let want = if x > q / 2 {
                    x as i128 - q as i128
                } else {
                    x as i128
                };
                assert_eq!(c as i128, want, "center({x}) mod {q}");
                for &y in &xs[..7] {
                    assert_eq!(m.add(x, y) as u128, (x as u128 + y as u128) % q as u128);
                    assert_eq!(
                        m.sub(x, y) as u128,
                        (x as u128 + q as u128 - y as u128) % q as u128
                    );
                    let ys = m.shoup(y);
                    assert_eq!(
                        m.mul_shoup(x, y, ys) as u128,
                        x as u128 * y as u128 % q as u128
                    );
                }
            }
        }
    }

    /// `reduce_short` against `%` over its whole domain `[0, 2^(b + 63))`: random values of
    /// every magnitude, the largest sums `short_sum_fits` admits, the domain's edge, for odd
    /// primes and for powers of two (whose constant is clamped to `2^64 - 1`).
    #[test]
    fn reduce_short_matches_u128_remainder() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut qs = QS.to_vec();
        qs.extend([2, 4, 1 << 20, 1 << 50, 1 << 61, 3, (1 << 62) - 57]);
        for &q in &qs {
            let m = Modulus::new(q);
            let top = 1u128 << (m.bits() + 63);
            let check = |x: u128| assert_eq!(m.reduce_short(x), (x % q as u128) as u64, "q = {q}");
            for _ in 0..20_000 {
                let y = ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128;
                check(y % top);
                check((y >> (rng.next_u64() % 128) as u32) % top);
            }
            for x in [0, 1, q as u128 - 1, q as u128, top - 1, top - q as u128] {
                check(x);
            }
            let p = (q - 1) as u128 * (q - 1) as u128;
            let terms = (1..=1 << 14).rev().find(|&t| m.short_sum_fits(t));
            if let Some(t) = terms {
                check(t as u128 * p + (q - 1) as u128);
                assert!(!m.short_sum_fits(t + 1) || t == 1 << 14);
            }
            assert!(
                m.short_sum_fits(1),
                "a product plus a reduced value always fits"
            );
        }
    }

    #[test]
    fn inverse_and_pow() {
        for &q in &QS[..4] {
            let m = Modulus::new(q);
            for a in [1u64, 2, 3, 12345, q - 1] {
                let inv = m.inv(a).unwrap();
                assert_eq!(m.mul(a, inv), 1);
                assert_eq!(m.pow(a, q - 1), 1, "Fermat for prime {q}");
            }
        }
        assert_eq!(Modulus::new(12).inv(4), None);
    }

    #[test]
    fn reduce_f64_is_exact_for_large_values() {
        let m = Modulus::new(QS[3]);
        for x in [
            0.0,
            1.0,
            -1.0,
            2f64.powi(60) + 2f64.powi(10),
            -(2f64.powi(80)),
            3.0 * 2f64.powi(100),
        ] {
            let big = x as i128; // exact for |x| < 2^127
            assert_eq!(
                m.reduce_f64(x),
                big.rem_euclid(m.value() as i128) as u64,
                "x = {x}"
            );
        }
    }
}
