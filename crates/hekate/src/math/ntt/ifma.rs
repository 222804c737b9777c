//! The 52-bit IFMA lane multiplication and its entry points (primes `q < 2^50`).
//!
//! # Why `q < 2^50`
//!
//! `vpmadd52{lo,hi}uq` multiply the low 52 bits of their operands. With Shoup companions
//! `w' = floor(w * 2^52 / q) < 2^52` (as `w < q`) and an input `y < 2^52`,
//!
//! ```text
//! quo = floor(y * w' / 2^52)           (vpmadd52huq)
//! r   = y * w - quo * q                (two vpmadd52luq, mod 2^52)
//! ```
//!
//! satisfies `0 <= r < 2q`: writing `w' = w 2^52 / q - e` with `0 <= e < 1`,
//! `y w' / 2^52 = y w / q - y e / 2^52 > y w / q - 1` because `y < 2^52`, so
//! `quo > y w / q - 2`, i.e. `r < 2q`; and `quo <= y w / q` gives `r >= 0`. As `r < 2q`
//! is below `2^52`, computing it modulo `2^52` loses nothing.
//!
//! The lazy butterflies feed multiplications with values below `4q` (the forward's
//! `x - wy + 2q`, the inverse's `x - y + 2q` and `x + y`), so `y < 2^52` holds for every
//! input exactly when `4q <= 2^52`, i.e. `q <= 2^50`; a prime `q` is never `2^50`, so the
//! condition is `q < 2^50`, checked by [`NttBackend::supports`](super::NttBackend). Nothing
//! weaker works: with `2^50 < q`, inputs near `4q` exceed `2^52`, their top bits are
//! silently dropped by IFMA and the transform is wrong (the failure tfhe-ntt 0.7.1 shows
//! for primes between `1.33 * 2^50` and `2^51`). All other lane values (sums below `4q`)
//! are handled in 64-bit arithmetic.

use super::avx512::{InvLast, LaneMul};
use crate::math::simd::shoup_mul_ifma;
use core::arch::x86_64::*;

/// The largest modulus (exclusive) the IFMA backend accepts: `4q <= 2^52`.
pub(super) use super::IFMA_MAX_Q;

/// 52-bit IFMA lanes (see the module doc for the bound).
#[derive(Clone, Copy)]
pub(super) struct Ifma {
    q: __m512i,
    two_q: __m512i,
    /// `2^52 - q`: `lo52(quo * (2^52 - q)) = -quo q mod 2^52`.
    neg_q: __m512i,
    mask52: __m512i,
}

impl Ifma {
    /// Lane constants for `q < 2^50`.
    ///
    /// # Safety
    /// Needs AVX-512F.
    #[inline(always)]
    unsafe fn new(q: u64) -> Self {
        debug_assert!(q < IFMA_MAX_Q);
        Ifma {
            q: _mm512_set1_epi64(q as i64),
            two_q: _mm512_set1_epi64((2 * q) as i64),
            neg_q: _mm512_set1_epi64(((1u64 << 52) - q) as i64),
            mask52: _mm512_set1_epi64(((1u64 << 52) - 1) as i64),
        }
    }
}

impl LaneMul for Ifma {
    #[inline(always)]
    fn q(self) -> __m512i {
        self.q
    }
    #[inline(always)]
    fn two_q(self) -> __m512i {
        self.two_q
    }
    #[inline(always)]
    unsafe fn mul(self, y: __m512i, w: __m512i, ws: __m512i) -> __m512i {
        shoup_mul_ifma(y, w, ws, self.neg_q, self.mask52)
    }
}

/// Forward transform, lazy output.
///
/// # Safety
/// The CPU must support AVX-512F/DQ/IFMA; `n >= 16`; `q < 2^50`; `ws` are 52-bit Shoup
/// companions.
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
pub(super) unsafe fn forward_lazy(a: &mut [u64], q: u64, w: &[u64], ws: &[u64]) {
    super::avx512::forward::<Ifma, false>(Ifma::new(q), a, w, ws)
}

/// Forward transform, reduced output.
///
/// # Safety
/// As [`forward_lazy`].
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
pub(super) unsafe fn forward_reduced(a: &mut [u64], q: u64, w: &[u64], ws: &[u64]) {
    super::avx512::forward::<Ifma, true>(Ifma::new(q), a, w, ws)
}

/// Inverse transform, lazy output.
///
/// # Safety
/// As [`forward_lazy`]; `last` holds 52-bit companions.
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
pub(super) unsafe fn inverse_lazy(a: &mut [u64], q: u64, w: &[u64], ws: &[u64], last: &InvLast) {
    super::avx512::inverse::<Ifma, false>(Ifma::new(q), a, w, ws, last)
}

/// Inverse transform, reduced output.
///
/// # Safety
/// As [`inverse_lazy`].
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
pub(super) unsafe fn inverse_reduced(a: &mut [u64], q: u64, w: &[u64], ws: &[u64], last: &InvLast) {
    super::avx512::inverse::<Ifma, true>(Ifma::new(q), a, w, ws, last)
}
