//! The AVX2 NTT in exact double-precision arithmetic for `q < 2^50` (the technique of
//! FLINT's `fft_small`): the butterflies of `avx2.rs` ([`forward`], [`inverse`]) with the
//! lane arithmetic [`F64`]. Four `f64` lanes hold integers; a modular product is six
//! floating-point operations (two of them FMAs) where the integer lanes need ten
//! `vpmuludq`/`vpmulld` and their carries.
//!
//! # Arithmetic
//!
//! Values are integers of either sign held exactly in `f64` (all below `2^53` in
//! magnitude). Twiddles are stored *centered*, `|w| <= q/2`. With `u = 2^-53` and
//! `ninv = fl(1/q)`:
//!
//! ```text
//! reduce(x)    = x - k q,            k = round(x ninv)
//! mulmod(y, w) = (h - k q) + l,      h = fl(y w), l = y w - h (one FMA, exact),
//!                                    k = round(h ninv)
//! ```
//!
//! *Exactness.* `h - k q` and the final sum are integers below `2^53` in magnitude (see
//! the bounds below), so the FMA computing `h - k q` and the addition of `l` are exact:
//! `mulmod` returns exactly `y w - k q`, congruent to `y w`.
//!
//! *Bounds.* `fl(fl(y w) ninv)` is `y w / q` within a relative `3u`; for `|y| <= C q` and
//! `|w| <= q/2 < 2^49` its absolute error is at most `3u C 2^49 = 3C/16`, so
//! `|mulmod(y, w)| <= (1/2 + 3C/16) q`; likewise `|reduce(x)| <= q/2 + q 2^-40` for
//! `|x| < 2^52`.
//!
//! * Forward (Cooley-Tukey `x' = reduce(x) ± mulmod(y, w)`): inputs `[0, 2q)` give
//!   `C <= 2`, and outputs stay below `(1 + 3C/16) q`, so `C < 1.4` at every later stage;
//!   `|y w| < 2^101`, `|h - kq| < 2^47 + 2^51`.
//! * Inverse (Gentleman-Sande `x' = reduce(x + y)`, `y' = mulmod(x - y, w)`): inputs
//!   `[0, 2q)` give `|x - y| < 2q`, then every value stays below `0.875 q`, and the last
//!   stage's `mulmod(x ± y, N^-1 …)` below `0.83 q`.
//!
//! The outputs (`reduce` for the forward, the last stage for the inverse) are thus in
//! `(-q, q)`; adding `q` to the negative ones gives the canonical residue, which is both
//! the reduced and the lazy result. Conversions between `u64` words and `f64` go through
//! the bit patterns (`2^52 + x`), exact below `2^52`, fused into the first and the last
//! stage.

use super::avx2::{forward, inverse, pair, Arith};
use crate::math::simd::avx2::{add_q_if_neg, f64_from_words, f64_to_words, mulmod_f64, round_f64};
use core::arch::x86_64::*;

/// Moduli below this use the `f64` arithmetic.
pub(super) const F64_MAX_Q: u64 = 1 << 50;

/// The lane arithmetic: `q`, `fl(1/q)` and the centered twiddle table.
#[derive(Clone, Copy)]
pub(super) struct F64 {
    q: __m256d,
    ninv: __m256d,
    w: *const f64,
    /// The inverse's last twiddles (`N^-1` and `ψ^-brv(1) N^-1`, centered).
    last: [__m256d; 2],
}

#[inline(always)]
unsafe fn f(x: __m256i) -> __m256d {
    _mm256_castsi256_pd(x)
}

#[inline(always)]
unsafe fn i(x: __m256d) -> __m256i {
    _mm256_castpd_si256(x)
}

impl F64 {
    /// # Safety
    /// Needs AVX2; `w` must outlive the value.
    #[inline(always)]
    unsafe fn new(q: u64, w: &[f64], last: [f64; 2]) -> Self {
        F64 {
            q: _mm256_set1_pd(q as f64),
            ninv: _mm256_set1_pd(1.0 / q as f64),
            w: w.as_ptr(),
            last: [_mm256_set1_pd(last[0]), _mm256_set1_pd(last[1])],
        }
    }

    /// `x - round(x / q) q`.
    #[inline(always)]
    unsafe fn reduce(self, x: __m256d) -> __m256d {
        let k = round_f64(_mm256_mul_pd(x, self.ninv));
        _mm256_fnmadd_pd(k, self.q, x)
    }

    /// `y w - k q` for `k` within one of `y w / q` (exact; see the module documentation).
    #[inline(always)]
    unsafe fn mulmod(self, y: __m256d, w: __m256d) -> __m256d {
        mulmod_f64(y, w, self.q, self.ninv)
    }

    /// The canonical residue of `v`, `|v| < q`, as a `u64` word.
    #[inline(always)]
    unsafe fn to_word(self, v: __m256d) -> __m256i {
        f64_to_words(add_q_if_neg(v, self.q))
    }
}

impl Arith for F64 {
    type Tw = __m256d;

    #[inline(always)]
    unsafe fn tw_bc(self, k: usize) -> __m256d {
        _mm256_broadcast_sd(&*self.w.add(k))
    }

    #[inline(always)]
    unsafe fn tw_pair(self, k: usize) -> __m256d {
        f(pair(self.w.add(k) as *const u64))
    }

    #[inline(always)]
    unsafe fn tw_four(self, k: usize) -> __m256d {
        _mm256_loadu_pd(self.w.add(k))
    }

    #[inline(always)]
    unsafe fn ct(self, x: __m256i, y: __m256i, w: __m256d) -> (__m256i, __m256i) {
        let x = self.reduce(f(x));
        let r = self.mulmod(f(y), w);
        (i(_mm256_add_pd(x, r)), i(_mm256_sub_pd(x, r)))
    }

    #[inline(always)]
    unsafe fn gs(self, x: __m256i, y: __m256i, w: __m256d) -> (__m256i, __m256i) {
        let (x, y) = (f(x), f(y));
        (
            i(self.reduce(_mm256_add_pd(x, y))),
            i(self.mulmod(_mm256_sub_pd(x, y), w)),
        )
    }

    #[inline(always)]
    unsafe fn gs_last<const REDUCE: bool>(self, x: __m256i, y: __m256i) -> (__m256i, __m256i) {
        let (x, y) = (f(x), f(y));
        (
            self.to_word(self.mulmod(_mm256_add_pd(x, y), self.last[0])),
            self.to_word(self.mulmod(_mm256_sub_pd(x, y), self.last[1])),
        )
    }

    #[inline(always)]
    unsafe fn fwd_out<const REDUCE: bool>(self, x: __m256i) -> __m256i {
        self.to_word(self.reduce(f(x)))
    }

    #[inline(always)]
    unsafe fn load_in(self, x: __m256i) -> __m256i {
        i(f64_from_words(x))
    }
}

/// Forward transform, `[0, 2q)` to `[0, q)` (reduced and lazy alike).
///
/// # Safety
/// The CPU must support AVX2 and FMA; `a.len() >= 16` is a power of two; `q < 2^50`;
/// `w` holds the plan's forward twiddles, centered, as `f64` (`a.len()` entries).
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn forward_f64(a: &mut [u64], q: u64, w: &[f64]) {
    debug_assert!(q < F64_MAX_Q && w.len() == a.len());
    forward::<_, true>(F64::new(q, w, [0.0; 2]), a)
}

/// Inverse transform (with `N^-1`), `[0, 2q)` to `[0, q)` (reduced and lazy alike).
///
/// # Safety
/// As [`forward_f64`], with the inverse twiddles, and `last` the centered `N^-1` and
/// `ψ^-brv(1) N^-1`.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn inverse_f64(a: &mut [u64], q: u64, w: &[f64], last: [f64; 2]) {
    debug_assert!(q < F64_MAX_Q && w.len() == a.len());
    inverse::<_, true>(F64::new(q, w, last), a)
}
