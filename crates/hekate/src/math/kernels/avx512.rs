//! AVX-512 kernels: the element-wise loops and the fast base conversion, generic over the
//! lane arithmetic ([`Arith`]: [`Wide`] 64-bit lanes, or [`Ifma`] 52-bit lanes for
//! `q < 2^50`), instantiated by `#[target_feature]` entry points (modules [`wide`] and
//! [`ifma`]). Every function returns exactly the scalar results (reduced residues).
//!
//! Lengths that are not a multiple of 8 are handled by one masked chunk at the end.
//!
//! # 64-bit lanes ([`Wide`]), `q` odd, `b = bits(q) <= 61`
//!
//! *Product of two variable operands* (Barrett). The 128-bit lane product `x = a b`
//! (`a, b < q`, or `x = c + a b`, in all cases `x < 2^(2b)`) comes from four `vpmuludq`
//! ([`mul_u64_wide`]). With `s = b - 1` and `mu = floor(2^(64+s) / q)`, which lies in
//! `(2^63, 2^64)` because `2^(b-1) < q < 2^b`,
//!
//! ```text
//! t   = floor(x / 2^s)               < 2^(2b - s) = 2^(b+1)
//! quo = floor(t mu / 2^64)           (emulated high product)
//! r   = x - quo q                    (low words only)
//! ```
//!
//! `quo <= x / q` (both factors are rounded down), and
//! `t mu / 2^64 > (x / 2^s - 1)(2^(64+s) / q - 1) / 2^64 > x/q - x / 2^(64+s) - 2^s / q`
//! where `x / 2^(64+s) < 2^(2b) / 2^(63+b) <= 1/4` and `2^s / q < 1`: so
//! `quo >= floor(x/q) - 2` and `r` lies in `[0, 3q)` (below `2^63`, so its low word is
//! exact); two conditional subtractions finish.
//!
//! *Sums of products* (inner product, base conversion) never reduce a product alone. With
//! `a = a1 2^32 + a0` (and `b` alike; `a1, b1 < 2^29` for 61-bit operands) the partial
//! products go to four accumulators of weights `1, 2^32, 2^32, 2^64`:
//!
//! ```text
//! A0 += a0 b0 mod 2^32         (< 2^32 each)
//! A1 += a0 b0 div 2^32 + a0 b1 (< 2^32 + (2^32 - 1)(2^29 - 1) < 2^61 each)
//! A1' += a1 b0                 (< 2^61 each)
//! A2 += a1 b1                  (< 2^58 each)
//! ```
//!
//! `A1` and `A1'` start below `2^32` and are *folded* every [`Wide::FOLD`] = 7 terms
//! (`A2 += A1 >> 32; A1 &= 2^32 - 1`, and alike for `A1'`): `2^32 + 7 * 2^61 < 2^64`. `A0`
//! never overflows (63 terms). The represented value `x = A0 + 2^32 (A1 + A1') + 2^64 A2`
//! is the exact sum, below `2^128` for an initial value below `2^61` plus at most 63
//! products below `2^122` ([`Wide::TERMS`]). The reduction splits `x = hi 2^64 + lo`
//! (carrying between the accumulators) and returns `[hi (2^64 mod q)]_q + [lo]_q` with two
//! Shoup products (by `2^64 mod q` and by 1), each in `[0, 2q)`, then corrects `[0, 4q)`.
//!
//! # 52-bit lanes ([`Ifma`]), `q` odd, `q < 2^50`, `b = bits(q) <= 50`
//!
//! `vpmadd52luq / vpmadd52huq` give the low and high 52 bits of the 104-bit product of
//! two operands below `2^52` and *add* them to a 64-bit lane.
//!
//! *Product of two variable operands* (Barrett). `x = xh 2^52 + xl` with
//! `xl = lo52(a b)` (+ `c` for `c + a b`, so `xl < 2^53`) and `xh = hi52(a b)`;
//! `x < 2^(2b)`. With `s = b - 1` and `mu = floor(2^(52+s) / q) < 2^52`:
//!
//! ```text
//! t   = floor(x / 2^s) = xh 2^(52-s) + floor(xl / 2^s)   < 2^(b+1) <= 2^51
//! quo = floor(t mu / 2^52)                                (vpmadd52huq)
//! r   = x - quo q = xl + lo52(quo (2^52 - q))  mod 2^52   (vpmadd52luq, then a mask)
//! ```
//!
//! As above `quo <= x/q` and `t mu / 2^52 > x/q - x / 2^(52+s) - 2^s / q > x/q - 1/2 - 1`
//! (`x / 2^(52+s) < 2^(2b) / 2^(51+b) <= 1/2` for `b <= 50`), so `r` is in `[0, 3q)`,
//! below `2^52`, hence exact modulo `2^52`.
//!
//! *Sums of products* accumulate for free: `L += lo52(a b)`, `H += hi52(a b)` (one
//! `vpmadd52` each), with every operand below `2^50` (base conversion splits larger
//! operands, see [`convert`]). A product is below `2^100`, so each `hi52` is at most
//! `2^48 - 1` and each `lo52` at most `2^52 - 1`. Starting from `L = init < 2^50`, after
//! [`Ifma::TERMS`] = 15 terms `L < 2^56`, the carry `L >> 52` is at most 15 and
//! `H + carry <= 15 (2^48 - 1) + 15 < 2^52`. The reduction returns
//! `[(H + carry) (2^52 mod q)]_q + [L mod 2^52]_q` with two 52-bit Shoup products (valid
//! for inputs below `2^52`), each in `[0, 2q)`, then corrects `[0, 4q)`.
//!
//! # Shoup products by a constant
//!
//! [`Wide`] uses the caller's 64-bit companion exactly as the scalar code; [`Ifma`]
//! computes the 52-bit companion once per call. Inputs of `sub_mul_scalar_assign`
//! (`a + q - b < 2q`) satisfy both paths' input bounds.

use core::arch::x86_64::*;

use super::{Blocks8, LaneConsts};
use crate::math::simd::{
    csub, mul_u64_wide, mulhi_u64_sw, partial_products, shoup_mul_ifma, shoup_mul_wide, swap32,
};

#[inline(always)]
unsafe fn bcast(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}

#[inline(always)]
unsafe fn ld(p: *const u64, m: __mmask8) -> __m512i {
    _mm512_maskz_loadu_epi64(m, p as *const i64)
}

#[inline(always)]
unsafe fn st(p: *mut u64, m: __mmask8, v: __m512i) {
    _mm512_mask_storeu_epi64(p as *mut i64, m, v)
}

/// Runs `body` with `k = 0, 8, 16, ...` covering `len` lanes and `m` the lane mask: all
/// ones, except in the last chunk when `len` is not a multiple of 8.
///
/// A macro rather than a function taking a closure: closures do not inherit the
/// `#[target_feature]`s of the entry point, and an outlined closure would pass every
/// vector through memory.
macro_rules! chunks {
    ($len:expr, |$k:ident, $m:ident| $body:block) => {{
        let len: usize = $len;
        let mut $k = 0usize;
        while $k + 8 <= len {
            let $m: __mmask8 = 0xff;
            $body
            $k += 8;
        }
        if $k < len {
            let $m: __mmask8 = ((1u32 << (len - $k)) - 1) as u8;
            $body
        }
    }};
}

/// Lane arithmetic modulo one `q` (see the module documentation for the bounds).
pub(crate) trait Arith: Copy {
    /// Lazy sum of products.
    type Acc: Copy;
    /// Products that may be summed (after an initial value below `2^61`, resp. `2^50`)
    /// before [`Arith::acc_reduce`].
    const TERMS: usize;
    /// Products between two [`Arith::acc_fold`]s.
    const FOLD: usize;
    /// The broadcast constants.
    ///
    /// # Safety
    /// The CPU must support the arithmetic's features.
    unsafe fn new(c: &LaneConsts) -> Self;
    /// `q` in every lane.
    fn q(self) -> __m512i;
    /// `a b mod q`, reduced, for reduced `a, b`.
    unsafe fn mul(self, a: __m512i, b: __m512i) -> __m512i;
    /// `c + a b mod q`, reduced, for reduced `a, b, c`.
    unsafe fn mul_add(self, c: __m512i, a: __m512i, b: __m512i) -> __m512i;
    /// The Shoup companion this arithmetic uses for `w`, given the 64-bit one.
    fn companion(c: &LaneConsts, w: u64, w_shoup64: u64) -> u64;
    /// `x w mod q`, reduced, for `x < 2q`, `w < q` and `ws` from [`Arith::companion`].
    unsafe fn mul_shoup(self, x: __m512i, w: __m512i, ws: __m512i) -> __m512i;
    /// An accumulator holding `init`.
    unsafe fn acc_new(self, init: __m512i) -> Self::Acc;
    /// `acc += a b`.
    unsafe fn acc_mul(self, acc: &mut Self::Acc, a: __m512i, b: __m512i);
    /// Restores the headroom for [`Arith::FOLD`] more products.
    unsafe fn acc_fold(self, acc: &mut Self::Acc);
    /// The accumulated value modulo `q`, reduced.
    unsafe fn acc_reduce(self, acc: Self::Acc) -> __m512i;
    /// [`Arith::acc_reduce`] of a value below `2^(63 + b)` (`b` the bits of `q`): at most
    /// [`few_terms`](crate::math::kernels::few_terms) products of reduced operands after a
    /// reduced initial value.
    #[inline(always)]
    unsafe fn acc_reduce_few(self, acc: Self::Acc) -> __m512i {
        self.acc_reduce(acc)
    }
}

/// 64-bit lanes (AVX-512F/DQ), odd `q` of at most 61 bits.
#[derive(Clone, Copy)]
pub(crate) struct Wide {
    q: __m512i,
    q_sw: __m512i,
    /// `q^-1 mod 2^64` (Montgomery).
    q_inv: __m512i,
    two_q: __m512i,
    mu: __m512i,
    mu_sw: __m512i,
    /// `s = b - 1` and `64 - s`.
    sh_lo: __m512i,
    sh_hi: __m512i,
    r64: __m512i,
    r64_shoup: __m512i,
    one_shoup: __m512i,
    one_shoup_sw: __m512i,
    m32: __m512i,
}

impl Wide {
    /// `x mod q` in `[0, 2q)` for any word `x`: the Shoup product by 1,
    /// `x - floor(x floor(2^64 / q) / 2^64) q`.
    #[inline(always)]
    unsafe fn reduce_word_lazy(self, x: __m512i) -> __m512i {
        let quo = mulhi_u64_sw(x, swap32(x), self.one_shoup, self.one_shoup_sw);
        _mm512_sub_epi64(x, _mm512_mullo_epi64(quo, self.q))
    }

    /// `x mod q` in `[0, q)` for `x = hi 2^64 + lo < 2^(63 + b)` (`b` the bits of `q`, so
    /// `2^(b-1) <= q`): with `t = floor(x / 2^(b-1)) < 2^64` and `mu = floor(2^(63+b) / q)`,
    /// `t mu / 2^64 > (x / 2^(b-1) - 1)(2^(63+b) / q - 1) / 2^64 > x/q - 2` and at most
    /// `x/q`, so `quo = floor(t mu / 2^64)` is `floor(x/q)` less at most 2 and `x - quo q`
    /// lies in `[0, 3q)`: two conditional subtractions. Products of reduced operands
    /// (`x < 2^(2b)`) and sums of up to [`few_terms`](crate::math::kernels::few_terms) of
    /// them take it.
    #[inline(always)]
    unsafe fn barrett(self, lo: __m512i, hi: __m512i) -> __m512i {
        let t = _mm512_or_si512(
            _mm512_sllv_epi64(hi, self.sh_hi),
            _mm512_srlv_epi64(lo, self.sh_lo),
        );
        let quo = mulhi_u64_sw(t, swap32(t), self.mu, self.mu_sw);
        let r = _mm512_sub_epi64(lo, _mm512_mullo_epi64(quo, self.q));
        csub(csub(r, self.q), self.q)
    }

    /// [`Arith::acc_mul`] with the halves of `a` and `b` swapped already (`b` constant).
    #[inline(always)]
    unsafe fn acc_mul_sw(
        self,
        acc: &mut [__m512i; 4],
        a: __m512i,
        a_sw: __m512i,
        b: __m512i,
        b_sw: __m512i,
    ) {
        let [ll, lh, hl, hh] = partial_products(a, a_sw, b, b_sw);
        acc[0] = _mm512_add_epi64(acc[0], _mm512_and_si512(ll, self.m32));
        acc[1] = _mm512_add_epi64(acc[1], _mm512_add_epi64(_mm512_srli_epi64::<32>(ll), lh));
        acc[2] = _mm512_add_epi64(acc[2], hl);
        acc[3] = _mm512_add_epi64(acc[3], hh);
    }

    /// The accumulated value `x = hi 2^64 + lo` as its two words.
    #[inline(always)]
    unsafe fn acc_words(self, acc: [__m512i; 4]) -> (__m512i, __m512i) {
        let [a0, a1, a2, a3] = acc;
        let m32 = self.m32;
        // x = (a0 & m) + 2^32 (s1 & m) + 2^64 hi, with s1 = (a0 >> 32) + (a1 & m) + (a2 & m)
        // (below 2^35) and hi = a3 + (a1 >> 32) + (a2 >> 32) + (s1 >> 32) (below 2^64 as
        // x < 2^128).
        let s1 = _mm512_add_epi64(
            _mm512_srli_epi64::<32>(a0),
            _mm512_add_epi64(_mm512_and_si512(a1, m32), _mm512_and_si512(a2, m32)),
        );
        let lo = _mm512_mask_blend_epi32(0x5555, _mm512_slli_epi64::<32>(s1), a0);
        let hi = _mm512_add_epi64(
            _mm512_add_epi64(a3, _mm512_srli_epi64::<32>(s1)),
            _mm512_add_epi64(_mm512_srli_epi64::<32>(a1), _mm512_srli_epi64::<32>(a2)),
        );
        (lo, hi)
    }

    /// `x 2^-64 mod q`, reduced, for an accumulated `x < q 2^64` (Montgomery's REDC):
    /// `m = x q^-1 mod 2^64` makes `x - m q` a multiple of `2^64` (`m q` and `x` share
    /// their low word), and `(x - m q) / 2^64 = hi - floor(m q / 2^64)` lies in `(-q, q)`.
    /// One `vpmullq` and four `vpmuludq`, where [`Arith::acc_reduce`] takes two Shoup
    /// products.
    #[inline(always)]
    unsafe fn acc_redc(self, acc: [__m512i; 4]) -> __m512i {
        let (lo, hi) = self.acc_words(acc);
        let m = _mm512_mullo_epi64(lo, self.q_inv);
        let mq = mulhi_u64_sw(m, swap32(m), self.q, self.q_sw);
        let t = _mm512_sub_epi64(hi, mq);
        _mm512_mask_add_epi64(t, _mm512_cmplt_epu64_mask(hi, mq), t, self.q)
    }
}

impl Arith for Wide {
    type Acc = [__m512i; 4];
    const TERMS: usize = 63;
    const FOLD: usize = 7;

    #[inline(always)]
    unsafe fn new(c: &LaneConsts) -> Self {
        debug_assert!(c.q % 2 == 1 && c.bits >= 2 && c.bits <= 61);
        let mu = bcast(c.mu64);
        let one_shoup = bcast(c.one64_shoup);
        let q = bcast(c.q);
        Wide {
            q,
            q_sw: swap32(q),
            q_inv: bcast(c.q_inv64),
            two_q: bcast(2 * c.q),
            mu,
            mu_sw: swap32(mu),
            sh_lo: bcast(c.bits as u64 - 1),
            sh_hi: bcast(65 - c.bits as u64),
            r64: bcast(c.r64),
            r64_shoup: bcast(c.r64_shoup),
            one_shoup,
            one_shoup_sw: swap32(one_shoup),
            m32: bcast(0xffff_ffff),
        }
    }

    #[inline(always)]
    fn q(self) -> __m512i {
        self.q
    }

    #[inline(always)]
    unsafe fn mul(self, a: __m512i, b: __m512i) -> __m512i {
        let (lo, hi) = mul_u64_wide(a, b);
        self.barrett(lo, hi)
    }

    #[inline(always)]
    unsafe fn mul_add(self, c: __m512i, a: __m512i, b: __m512i) -> __m512i {
        let (lo, hi) = mul_u64_wide(a, b);
        let lo = _mm512_add_epi64(lo, c);
        let carry = _mm512_cmplt_epu64_mask(lo, c);
        let hi = _mm512_mask_sub_epi64(hi, carry, hi, _mm512_set1_epi64(-1));
        self.barrett(lo, hi)
    }

    #[inline(always)]
    fn companion(_: &LaneConsts, _: u64, w_shoup64: u64) -> u64 {
        w_shoup64
    }

    #[inline(always)]
    unsafe fn mul_shoup(self, x: __m512i, w: __m512i, ws: __m512i) -> __m512i {
        csub(shoup_mul_wide(x, w, ws, self.q), self.q)
    }

    #[inline(always)]
    unsafe fn acc_new(self, init: __m512i) -> [__m512i; 4] {
        let zero = _mm512_setzero_si512();
        [
            _mm512_and_si512(init, self.m32),
            _mm512_srli_epi64::<32>(init),
            zero,
            zero,
        ]
    }

    #[inline(always)]
    unsafe fn acc_mul(self, acc: &mut [__m512i; 4], a: __m512i, b: __m512i) {
        self.acc_mul_sw(acc, a, swap32(a), b, swap32(b))
    }

    #[inline(always)]
    unsafe fn acc_fold(self, acc: &mut [__m512i; 4]) {
        let carry = _mm512_add_epi64(
            _mm512_srli_epi64::<32>(acc[1]),
            _mm512_srli_epi64::<32>(acc[2]),
        );
        acc[3] = _mm512_add_epi64(acc[3], carry);
        acc[1] = _mm512_and_si512(acc[1], self.m32);
        acc[2] = _mm512_and_si512(acc[2], self.m32);
    }

    #[inline(always)]
    unsafe fn acc_reduce(self, acc: [__m512i; 4]) -> __m512i {
        let (lo, hi) = self.acc_words(acc);
        // [hi 2^64]_q and [lo]_q, each in [0, 2q) (Shoup, valid for any word).
        let rh = shoup_mul_wide(hi, self.r64, self.r64_shoup, self.q);
        let rl = self.reduce_word_lazy(lo);
        csub(csub(_mm512_add_epi64(rh, rl), self.two_q), self.q)
    }

    /// One Barrett reduction of the accumulated words (five multiplications where
    /// [`Arith::acc_reduce`] takes eleven).
    #[inline(always)]
    unsafe fn acc_reduce_few(self, acc: [__m512i; 4]) -> __m512i {
        let (lo, hi) = self.acc_words(acc);
        self.barrett(lo, hi)
    }
}

/// 52-bit IFMA lanes (AVX-512F/DQ/IFMA), odd `q < 2^50`.
#[derive(Clone, Copy)]
pub(crate) struct Ifma {
    q: __m512i,
    two_q: __m512i,
    /// `2^52 - q`: `lo52(quo (2^52 - q)) = -quo q mod 2^52`.
    neg_q: __m512i,
    m52: __m512i,
    mu: __m512i,
    /// `s = b - 1` and `52 - s`.
    sh_lo: __m512i,
    sh_hi: __m512i,
    r52: __m512i,
    r52_shoup: __m512i,
    one_shoup: __m512i,
}

impl Ifma {
    /// `x mod q` in `[0, q)` for `x = xh 2^52 + xl < 2^(2b)`, `xl < 2^53`.
    #[inline(always)]
    unsafe fn barrett(self, xl: __m512i, xh: __m512i) -> __m512i {
        let t = _mm512_add_epi64(
            _mm512_sllv_epi64(xh, self.sh_hi),
            _mm512_srlv_epi64(xl, self.sh_lo),
        );
        let quo = _mm512_madd52hi_epu64(_mm512_setzero_si512(), t, self.mu);
        let r = _mm512_and_si512(_mm512_madd52lo_epu64(xl, quo, self.neg_q), self.m52);
        csub(csub(r, self.q), self.q)
    }
}

impl Arith for Ifma {
    type Acc = [__m512i; 2];
    const TERMS: usize = 15;
    const FOLD: usize = 15;

    #[inline(always)]
    unsafe fn new(c: &LaneConsts) -> Self {
        debug_assert!(c.q % 2 == 1 && c.q < super::IFMA_MAX_Q && c.bits >= 2);
        Ifma {
            q: bcast(c.q),
            two_q: bcast(2 * c.q),
            neg_q: bcast((1u64 << 52) - c.q),
            m52: bcast((1u64 << 52) - 1),
            mu: bcast(c.mu52),
            sh_lo: bcast(c.bits as u64 - 1),
            sh_hi: bcast(53 - c.bits as u64),
            r52: bcast(c.r52),
            r52_shoup: bcast(c.r52_shoup),
            one_shoup: bcast(c.one52_shoup),
        }
    }

    #[inline(always)]
    fn q(self) -> __m512i {
        self.q
    }

    #[inline(always)]
    unsafe fn mul(self, a: __m512i, b: __m512i) -> __m512i {
        let zero = _mm512_setzero_si512();
        let xl = _mm512_madd52lo_epu64(zero, a, b);
        let xh = _mm512_madd52hi_epu64(zero, a, b);
        self.barrett(xl, xh)
    }

    #[inline(always)]
    unsafe fn mul_add(self, c: __m512i, a: __m512i, b: __m512i) -> __m512i {
        let xl = _mm512_madd52lo_epu64(c, a, b);
        let xh = _mm512_madd52hi_epu64(_mm512_setzero_si512(), a, b);
        self.barrett(xl, xh)
    }

    #[inline(always)]
    fn companion(c: &LaneConsts, w: u64, _: u64) -> u64 {
        super::shoup(w, c.q, 52)
    }

    #[inline(always)]
    unsafe fn mul_shoup(self, x: __m512i, w: __m512i, ws: __m512i) -> __m512i {
        csub(shoup_mul_ifma(x, w, ws, self.neg_q, self.m52), self.q)
    }

    #[inline(always)]
    unsafe fn acc_new(self, init: __m512i) -> [__m512i; 2] {
        [init, _mm512_setzero_si512()]
    }

    #[inline(always)]
    unsafe fn acc_mul(self, acc: &mut [__m512i; 2], a: __m512i, b: __m512i) {
        acc[0] = _mm512_madd52lo_epu64(acc[0], a, b);
        acc[1] = _mm512_madd52hi_epu64(acc[1], a, b);
    }

    #[inline(always)]
    unsafe fn acc_fold(self, _: &mut [__m512i; 2]) {}

    #[inline(always)]
    unsafe fn acc_reduce(self, acc: [__m512i; 2]) -> __m512i {
        let hi = _mm512_add_epi64(acc[1], _mm512_srli_epi64::<52>(acc[0]));
        let lo = _mm512_and_si512(acc[0], self.m52);
        let rh = shoup_mul_ifma(hi, self.r52, self.r52_shoup, self.neg_q, self.m52);
        let quo = _mm512_madd52hi_epu64(_mm512_setzero_si512(), lo, self.one_shoup);
        let rl = _mm512_and_si512(_mm512_madd52lo_epu64(lo, quo, self.neg_q), self.m52);
        csub(csub(_mm512_add_epi64(rh, rl), self.two_q), self.q)
    }
}

/// See [`crate::math::kernels::permute_blocks8`].
///
/// # Safety
/// AVX-512F; the tables hold (`kernels::Blocks8`), `input` and `out` of `8 src.len()` words.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn permute_blocks8(input: &[u64], out: &mut [u64], t: Blocks8) {
    let Blocks8 { src, lane, lanes } = t;
    let (pi, po) = (input.as_ptr(), out.as_mut_ptr());
    for (t, (&s, &l)) in src.iter().zip(lane).enumerate() {
        let v = _mm512_loadu_si512(pi.add(8 * s as usize) as *const _);
        let idx = _mm512_loadu_si512(lanes.get_unchecked(l as usize).as_ptr() as *const _);
        _mm512_storeu_si512(po.add(8 * t) as *mut _, _mm512_permutexvar_epi64(idx, v));
    }
}

/// See [`crate::math::kernels::permute_add_blocks8`].
///
/// # Safety
/// As [`permute_blocks8`]; `a` and `b` reduced modulo `q < 2^63`.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn permute_add_blocks8([a, b]: [&[u64]; 2], out: &mut [u64], q: u64, t: Blocks8) {
    let Blocks8 { src, lane, lanes } = t;
    let (pa, pb, po) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr());
    let qv = bcast(q);
    for (t, (&s, &l)) in src.iter().zip(lane).enumerate() {
        let at = 8 * s as usize;
        let x = _mm512_loadu_si512(pa.add(at) as *const _);
        let y = _mm512_loadu_si512(pb.add(at) as *const _);
        let v = csub(_mm512_add_epi64(x, y), qv);
        let idx = _mm512_loadu_si512(lanes.get_unchecked(l as usize).as_ptr() as *const _);
        _mm512_storeu_si512(po.add(8 * t) as *mut _, _mm512_permutexvar_epi64(idx, v));
    }
}

// ---------------------------------------------------------------------------------------
// Element-wise kernels (bodies; the entry points below instantiate them).
// ---------------------------------------------------------------------------------------

#[inline(always)]
unsafe fn add_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
    let q = bcast(c.q);
    let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
    chunks!(a.len(), |k, m| {
        let s = _mm512_add_epi64(ld(pa.add(k), m), ld(pb.add(k), m));
        st(pa.add(k), m, csub(s, q));
    });
}

/// `x - y mod q` for reduced lanes: `min(x - y, x - y + q)` (one of the two wraps).
#[inline(always)]
unsafe fn sub_mod(x: __m512i, y: __m512i, q: __m512i) -> __m512i {
    let d = _mm512_sub_epi64(x, y);
    _mm512_min_epu64(d, _mm512_add_epi64(d, q))
}

#[inline(always)]
unsafe fn sub_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
    let q = bcast(c.q);
    let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
    chunks!(a.len(), |k, m| {
        st(pa.add(k), m, sub_mod(ld(pa.add(k), m), ld(pb.add(k), m), q));
    });
}

#[inline(always)]
unsafe fn rsub_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
    let q = bcast(c.q);
    let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
    chunks!(a.len(), |k, m| {
        st(pa.add(k), m, sub_mod(ld(pb.add(k), m), ld(pa.add(k), m), q));
    });
}

#[inline(always)]
unsafe fn neg_assign(c: &LaneConsts, a: &mut [u64]) {
    let q = bcast(c.q);
    let pa = a.as_mut_ptr();
    chunks!(a.len(), |k, m| {
        // q - 0 = q becomes 0.
        st(pa.add(k), m, csub(_mm512_sub_epi64(q, ld(pa.add(k), m)), q));
    });
}

#[inline(always)]
unsafe fn mul_assign<A: Arith>(ar: A, a: &mut [u64], b: &[u64]) {
    let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
    chunks!(a.len(), |k, m| {
        st(pa.add(k), m, ar.mul(ld(pa.add(k), m), ld(pb.add(k), m)));
    });
}

#[inline(always)]
unsafe fn mul<A: Arith>(ar: A, a: &[u64], b: &[u64], out: &mut [u64]) {
    let (pa, pb, po) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr());
    chunks!(out.len(), |k, m| {
        st(po.add(k), m, ar.mul(ld(pa.add(k), m), ld(pb.add(k), m)));
    });
}

#[inline(always)]
unsafe fn mul_add_assign<A: Arith>(ar: A, acc: &mut [u64], a: &[u64], b: &[u64]) {
    let (pc, pa, pb) = (acc.as_mut_ptr(), a.as_ptr(), b.as_ptr());
    chunks!(acc.len(), |k, m| {
        let r = ar.mul_add(ld(pc.add(k), m), ld(pa.add(k), m), ld(pb.add(k), m));
        st(pc.add(k), m, r);
    });
}

/// `acc = [acc +] sum_j a_j b_j`: with `ACC = false` the output is overwritten (and never
/// read), which saves zeroing a fresh accumulator.
///
/// Four chunks of 8 lanes are summed side by side: one chunk's sum is a chain of dependent
/// multiply-adds (4 cycles each for IFMA), so a single chain leaves the multiplier idle
/// three cycles in four. Every lane computes exactly what the one-chunk loop computes.
#[inline(always)]
unsafe fn inner_product_impl<A: Arith, const ACC: bool>(
    ar: A,
    few: usize,
    acc: &mut [u64],
    a: &[&[u64]],
    b: &[&[u64]],
) {
    const U: usize = 4;
    let len = acc.len();
    let whole = len / (8 * U) * (8 * U);
    let pc = acc.as_mut_ptr();
    let mut k = 0;
    while k < whole {
        inner_product_chunks::<A, ACC, U>(ar, few, pc, a, b, k, [0xff; U]);
        k += 8 * U;
    }
    chunks!(len - whole, |kk, m| {
        inner_product_chunks::<A, ACC, 1>(ar, few, pc, a, b, whole + kk, [m]);
    });
}

/// `U` consecutive chunks of [`inner_product_impl`] starting at lane `k0`, with masks `m`;
/// a lazy sum of at most `few` ([`few_terms`](crate::math::kernels::few_terms)) products
/// ends in [`Arith::acc_reduce_few`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn inner_product_chunks<A: Arith, const ACC: bool, const U: usize>(
    ar: A,
    few: usize,
    pc: *mut u64,
    a: &[&[u64]],
    b: &[&[u64]],
    k0: usize,
    m: [__mmask8; U],
) {
    let beta = a.len();
    let mut r = [_mm512_setzero_si512(); U];
    if ACC {
        for u in 0..U {
            r[u] = ld(pc.add(k0 + 8 * u), m[u]);
        }
    }
    let mut j = 0;
    while j < beta {
        // One lazy sum of at most A::TERMS products, folded every A::FOLD.
        let end = (j + A::TERMS).min(beta);
        let short = end - j <= few;
        let mut s = [ar.acc_new(r[0]); U];
        for u in 1..U {
            s[u] = ar.acc_new(r[u]);
        }
        let mut since_fold = 0;
        while j < end {
            let (pa, pb) = (a.get_unchecked(j).as_ptr(), b.get_unchecked(j).as_ptr());
            for u in 0..U {
                let x = ld(pa.add(k0 + 8 * u), m[u]);
                let y = ld(pb.add(k0 + 8 * u), m[u]);
                ar.acc_mul(&mut s[u], x, y);
            }
            j += 1;
            since_fold += 1;
            if since_fold == A::FOLD && j < end {
                for s in s.iter_mut() {
                    ar.acc_fold(s);
                }
                since_fold = 0;
            }
        }
        for u in 0..U {
            r[u] = if short {
                ar.acc_reduce_few(s[u])
            } else {
                ar.acc_reduce(s[u])
            };
        }
    }
    for u in 0..U {
        st(pc.add(k0 + 8 * u), m[u], r[u]);
    }
}

#[inline(always)]
unsafe fn mul_scalar_assign<A: Arith>(ar: A, c: &LaneConsts, a: &mut [u64], w: u64, ws: u64) {
    let ws = bcast(A::companion(c, w, ws));
    let w = bcast(w);
    let pa = a.as_mut_ptr();
    chunks!(a.len(), |k, m| {
        st(pa.add(k), m, ar.mul_shoup(ld(pa.add(k), m), w, ws));
    });
}

#[inline(always)]
unsafe fn mul_scalar_add_assign<A: Arith>(
    ar: A,
    c: &LaneConsts,
    acc: &mut [u64],
    b: &[u64],
    w: u64,
    ws: u64,
) {
    let ws = bcast(A::companion(c, w, ws));
    let w = bcast(w);
    let q = bcast(c.q);
    let (pa, pb) = (acc.as_mut_ptr(), b.as_ptr());
    chunks!(acc.len(), |k, m| {
        let s = _mm512_add_epi64(ld(pa.add(k), m), ar.mul_shoup(ld(pb.add(k), m), w, ws));
        st(pa.add(k), m, csub(s, q));
    });
}

#[inline(always)]
unsafe fn sub_mul_scalar_assign<A: Arith>(
    ar: A,
    c: &LaneConsts,
    a: &mut [u64],
    b: &[u64],
    w: u64,
    ws: u64,
) {
    let ws = bcast(A::companion(c, w, ws));
    let w = bcast(w);
    let q = ar.q();
    let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
    chunks!(a.len(), |k, m| {
        let x = _mm512_sub_epi64(_mm512_add_epi64(ld(pa.add(k), m), q), ld(pb.add(k), m));
        st(pa.add(k), m, ar.mul_shoup(x, w, ws));
    });
}

/// [`crate::math::kernels::lift_centered`] with 64-bit lanes for every arithmetic (the
/// words lifted are up to 63 bits, beyond the 52-bit lanes): `x mod q` by one conditional
/// subtraction when every word is below `2q` (`near`: `q_l <= 2q`), else by
/// [`Wide::reduce_word_lazy`] and one; then `q_l mod q` comes off where `x > q_l / 2`.
#[inline(always)]
unsafe fn lift_centered(
    c: &LaneConsts,
    out: &mut [u64],
    x: &[u64],
    half: u64,
    ql_mod: u64,
    near: bool,
) {
    if near {
        lift_centered_loop::<true>(c, out, x, half, ql_mod)
    } else {
        lift_centered_loop::<false>(c, out, x, half, ql_mod)
    }
}

/// [`lift_centered`]'s loop, one per case (no per-chunk test of `NEAR`).
#[inline(always)]
unsafe fn lift_centered_loop<const NEAR: bool>(
    c: &LaneConsts,
    out: &mut [u64],
    x: &[u64],
    half: u64,
    ql_mod: u64,
) {
    let ar = Wide::new(c);
    let q = ar.q;
    let (half, ql_mod) = (bcast(half), bcast(ql_mod));
    let (po, px) = (out.as_mut_ptr(), x.as_ptr());
    chunks!(out.len(), |k, m| {
        let v = ld(px.add(k), m);
        let r = csub(if NEAR { v } else { ar.reduce_word_lazy(v) }, q);
        let sub = _mm512_maskz_mov_epi64(_mm512_cmpgt_epu64_mask(v, half), ql_mod);
        st(po.add(k), m, sub_mod(r, sub, q));
    });
}

/// `#[target_feature]` entry points of one lane arithmetic. Slice lengths are the
/// callers' (checked) business: `b`, `out` and every inner-product operand have `a`'s
/// (resp. `acc`'s) length.
macro_rules! entry_points {
    ($(#[$doc:meta])* $name:ident, $arith:ty, $features:literal) => {
        $(#[$doc])*
        pub(crate) mod $name {
            use super::*;

            /// See [`crate::math::kernels::add_assign`].
            ///
            /// # Safety
            /// The CPU supports the features; `b.len() == a.len()`; `c` is for an odd
            /// modulus the arithmetic accepts.
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn add_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
                super::add_assign(c, a, b)
            }

            /// See [`crate::math::kernels::sub_assign`].
            ///
            /// # Safety
            /// As [`add_assign`].
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn sub_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
                super::sub_assign(c, a, b)
            }

            /// See [`crate::math::kernels::rsub_assign`].
            ///
            /// # Safety
            /// As [`add_assign`].
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn rsub_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
                super::rsub_assign(c, a, b)
            }

            /// See [`crate::math::kernels::neg_assign`].
            ///
            /// # Safety
            /// As [`add_assign`].
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn neg_assign(c: &LaneConsts, a: &mut [u64]) {
                super::neg_assign(c, a)
            }

            /// See [`crate::math::kernels::mul_assign`].
            ///
            /// # Safety
            /// As [`add_assign`].
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn mul_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
                super::mul_assign(<$arith>::new(c), a, b)
            }

            /// See [`crate::math::kernels::mul`].
            ///
            /// # Safety
            /// As [`add_assign`].
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn mul(c: &LaneConsts, a: &[u64], b: &[u64], out: &mut [u64]) {
                super::mul(<$arith>::new(c), a, b, out)
            }

            /// See [`crate::math::kernels::mul_add_assign`].
            ///
            /// # Safety
            /// As [`add_assign`].
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn mul_add_assign(
                c: &LaneConsts,
                acc: &mut [u64],
                a: &[u64],
                b: &[u64],
            ) {
                super::mul_add_assign(<$arith>::new(c), acc, a, b)
            }

            /// See [`crate::math::kernels::inner_product_add_assign`] (any number of
            /// terms here).
            ///
            /// # Safety
            /// As [`add_assign`].
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn inner_product_add_assign(
                c: &LaneConsts,
                acc: &mut [u64],
                a: &[&[u64]],
                b: &[&[u64]],
            ) {
                super::inner_product_impl::<_, true>(<$arith>::new(c), crate::math::kernels::few_terms(c.bits), acc, a, b)
            }

            /// See [`crate::math::kernels::inner_product`] (any number of terms here).
            ///
            /// # Safety
            /// As [`add_assign`].
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn inner_product(
                c: &LaneConsts,
                out: &mut [u64],
                a: &[&[u64]],
                b: &[&[u64]],
            ) {
                super::inner_product_impl::<_, false>(<$arith>::new(c), crate::math::kernels::few_terms(c.bits), out, a, b)
            }

            /// See [`crate::math::kernels::mul_scalar_assign`]; `ws` is the 64-bit
            /// companion of `w`.
            ///
            /// # Safety
            /// As [`add_assign`]; `w < q`.
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn mul_scalar_assign(c: &LaneConsts, a: &mut [u64], w: u64, ws: u64) {
                super::mul_scalar_assign(<$arith>::new(c), c, a, w, ws)
            }

            /// See [`crate::math::kernels::mul_scalar_add_assign`]; `ws` is the 64-bit
            /// companion of `w`.
            ///
            /// # Safety
            /// As [`add_assign`]; `w < q`.
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn mul_scalar_add_assign(
                c: &LaneConsts,
                acc: &mut [u64],
                b: &[u64],
                w: u64,
                ws: u64,
            ) {
                super::mul_scalar_add_assign(<$arith>::new(c), c, acc, b, w, ws)
            }

            /// See [`crate::math::kernels::sub_mul_scalar_assign`].
            ///
            /// # Safety
            /// As [`add_assign`]; `w < q`.
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn sub_mul_scalar_assign(
                c: &LaneConsts,
                a: &mut [u64],
                b: &[u64],
                w: u64,
                ws: u64,
            ) {
                super::sub_mul_scalar_assign(<$arith>::new(c), c, a, b, w, ws)
            }

            /// See [`crate::math::kernels::lift_centered`] (64-bit lanes in both
            /// arithmetics).
            ///
            /// # Safety
            /// As [`add_assign`]; `x.len() == out.len()`, `ql_mod < q`; every
            /// `x[k] < 2q` when `near`.
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn lift_centered(
                c: &LaneConsts,
                out: &mut [u64],
                x: &[u64],
                half: u64,
                ql_mod: u64,
                near: bool,
            ) {
                super::lift_centered(c, out, x, half, ql_mod, near)
            }
        }
    };
}

entry_points!(
    /// Entry points with 64-bit lanes (AVX-512F/DQ).
    wide,
    Wide,
    "avx512f,avx512dq"
);
entry_points!(
    /// Entry points with 52-bit IFMA lanes (AVX-512F/DQ/IFMA, `q < 2^50`).
    ifma,
    Ifma,
    "avx512f,avx512dq,avx512ifma"
);

// ---------------------------------------------------------------------------------------
// Fast base conversion (`avx512/convert.rs`).
// ---------------------------------------------------------------------------------------

mod convert;
pub(crate) use convert::{convert_ifma, convert_wide, ConvTables};
