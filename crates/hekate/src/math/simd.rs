//! SIMD lane arithmetic shared by the NTT backends and the element-wise kernels: the one
//! implementation of the emulated 64x64-bit lane product and of the Shoup products
//! (AVX-512 64-bit lanes and 52-bit IFMA lanes here, AVX2 64-bit lanes in [`avx2`]).
//!
//! Everything here is `#[inline(always)]` and has no `#[target_feature]` of its own: the
//! callers' entry points carry the features (AVX-512F/DQ, plus IFMA for the 52-bit
//! helpers), and these bodies inline into them.

use core::arch::x86_64::*;

/// Swaps the 32-bit halves of every 64-bit lane.
///
/// This (rather than a shift) is how the high halves are moved where `vpmuludq` reads
/// them: a shuffle runs on the port the multiplier does not use, and it keeps LLVM from
/// recognising a 64x64 high product, which it would scalarise (there is no vector
/// instruction for it).
#[inline(always)]
pub(crate) unsafe fn swap32(a: __m512i) -> __m512i {
    _mm512_shuffle_epi32::<0b10_11_00_01>(a)
}

/// The four 32x32-bit partial products of the lanes `a * b`: `(lo*lo, lo*hi, hi*lo,
/// hi*hi)`, given `a` and `b` with their halves swapped ([`swap32`]) as well, so that a
/// constant operand swaps once.
#[inline(always)]
pub(crate) unsafe fn partial_products(
    a: __m512i,
    a_sw: __m512i,
    b: __m512i,
    b_sw: __m512i,
) -> [__m512i; 4] {
    [
        _mm512_mul_epu32(a, b),
        _mm512_mul_epu32(a, b_sw),
        _mm512_mul_epu32(a_sw, b),
        _mm512_mul_epu32(a_sw, b_sw),
    ]
}

/// High 64 bits of the 128-bit lane products `a * b`, given the swapped halves too.
#[inline(always)]
pub(crate) unsafe fn mulhi_u64_sw(a: __m512i, a_sw: __m512i, b: __m512i, b_sw: __m512i) -> __m512i {
    let lo_mask = _mm512_set1_epi64(0xffff_ffff);
    let [ll, lh, hl, hh] = partial_products(a, a_sw, b, b_sw);
    // lh + (ll >> 32) < 2^64: (2^32 - 1)^2 + 2^32 - 1 < 2^64.
    let mid = _mm512_add_epi64(lh, _mm512_srli_epi64::<32>(ll));
    let mid2 = _mm512_add_epi64(hl, _mm512_and_si512(mid, lo_mask));
    _mm512_add_epi64(
        _mm512_add_epi64(hh, _mm512_srli_epi64::<32>(mid)),
        _mm512_srli_epi64::<32>(mid2),
    )
}

/// High 64 bits of the 128-bit lane products `a * b` (four `vpmuludq`).
#[inline(always)]
pub(crate) unsafe fn mulhi_u64(a: __m512i, b: __m512i) -> __m512i {
    mulhi_u64_sw(a, swap32(a), b, swap32(b))
}

/// The full 128-bit lane products `a * b` as `(low, high)` words (four `vpmuludq`; the low
/// word is assembled from the partial products rather than recomputed with `vpmullq`).
#[inline(always)]
pub(crate) unsafe fn mul_u64_wide(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    let lo_mask = _mm512_set1_epi64(0xffff_ffff);
    let [ll, lh, hl, hh] = partial_products(a, swap32(a), b, swap32(b));
    // a b = (ll & m) + 2^32 mid2 + 2^64 (hh + mid >> 32), with mid = lh + ll >> 32 and
    // mid2 = hl + (mid & m), neither of which overflows (see `mulhi_u64_sw`).
    let mid = _mm512_add_epi64(lh, _mm512_srli_epi64::<32>(ll));
    let mid2 = _mm512_add_epi64(hl, _mm512_and_si512(mid, lo_mask));
    let hi = _mm512_add_epi64(
        _mm512_add_epi64(hh, _mm512_srli_epi64::<32>(mid)),
        _mm512_srli_epi64::<32>(mid2),
    );
    // Even 32-bit elements (low halves) from ll, odd ones from mid2's low half.
    let lo = _mm512_mask_blend_epi32(0x5555, _mm512_slli_epi64::<32>(mid2), ll);
    (lo, hi)
}

/// Shoup product with 64-bit companions: `y * w mod q` in `[0, 2q)` for any lane `y`,
/// `w < q` and `ws = floor(w 2^64 / q)`. Exactly [`Modulus::mul_shoup_lazy`]
/// (`quo = floor(y ws / 2^64)`, `r = y w - quo q`).
///
/// [`Modulus::mul_shoup_lazy`]: super::modulus::Modulus::mul_shoup_lazy
#[inline(always)]
pub(crate) unsafe fn shoup_mul_wide(y: __m512i, w: __m512i, ws: __m512i, q: __m512i) -> __m512i {
    let quo = mulhi_u64(y, ws);
    _mm512_sub_epi64(_mm512_mullo_epi64(y, w), _mm512_mullo_epi64(quo, q))
}

/// Shoup product with a quotient from three of the four partial products: `y * w mod q`
/// in `[0, 4q)` for any lane `y`, `w < q < 2^62` and `ws = floor(w 2^64 / q)`.
///
/// `quo' = y_1 s_1 + floor(y_1 s_0 / 2^32) + floor(y_0 s_1 / 2^32)` (`y = y_1 2^32 + y_0`,
/// `ws = s_1 2^32 + s_0`) leaves out `y_0 s_0 / 2^64` and the two low halves, each below
/// one, so `quo - 2 <= quo' <= quo` for the exact `quo = floor(y ws / 2^64)`; the exact
/// product's `r = y w - quo q` is in `[0, 2q)` ([`shoup_mul_wide`]), hence
/// `r' = y w - quo' q` is in `[0, 4q)`, computed modulo `2^64` with no loss. One
/// `vpmuludq` and four other operations fewer than [`shoup_mul_wide`].
#[inline(always)]
pub(crate) unsafe fn shoup_mul_wide_loose(
    y: __m512i,
    w: __m512i,
    ws: __m512i,
    q: __m512i,
) -> __m512i {
    let (y_sw, ws_sw) = (swap32(y), swap32(ws));
    let lh = _mm512_mul_epu32(y, ws_sw);
    let hl = _mm512_mul_epu32(y_sw, ws);
    let hh = _mm512_mul_epu32(y_sw, ws_sw);
    let quo = _mm512_add_epi64(
        hh,
        _mm512_add_epi64(_mm512_srli_epi64::<32>(lh), _mm512_srli_epi64::<32>(hl)),
    );
    _mm512_sub_epi64(_mm512_mullo_epi64(y, w), _mm512_mullo_epi64(quo, q))
}

/// Shoup product on 52-bit IFMA lanes: `y * w mod q` in `[0, 2q)` for lanes `y < 2^52`,
/// `w < q < 2^51` and `ws = floor(w 2^52 / q)`; `neg_q = 2^52 - q`, `mask52 = 2^52 - 1`.
///
/// `quo = floor(y ws / 2^52)` satisfies `y w / q - 2 < quo <= y w / q` (proof in
/// `ntt/ifma.rs`), so `r = y w - quo q` lies in `[0, 2q)`; being below `2^52` it is
/// computed modulo `2^52` with no loss.
#[inline(always)]
pub(crate) unsafe fn shoup_mul_ifma(
    y: __m512i,
    w: __m512i,
    ws: __m512i,
    neg_q: __m512i,
    mask52: __m512i,
) -> __m512i {
    let zero = _mm512_setzero_si512();
    let quo = _mm512_madd52hi_epu64(zero, y, ws);
    let lo = _mm512_madd52lo_epu64(zero, y, w);
    // lo52(y w) + lo52(-quo q) is r or r + 2^52; the mask keeps r.
    let r = _mm512_madd52lo_epu64(lo, quo, neg_q);
    _mm512_and_si512(r, mask52)
}

/// `x - c` where `x >= c`, else `x`: one unsigned min (when `x < c` the wrapped difference
/// `2^64 + x - c` exceeds `x`). Exact for all lanes.
#[inline(always)]
pub(crate) unsafe fn csub(x: __m512i, c: __m512i) -> __m512i {
    _mm512_min_epu64(x, _mm512_sub_epi64(x, c))
}

/// Centered representatives of the residues `x` (in `[0, q)`): `x - q` where `x > q/2`.
#[inline(always)]
pub(crate) unsafe fn centered(x: __m512i, half_q: __m512i, q: __m512i) -> __m512i {
    let over = _mm512_cmpgt_epu64_mask(x, half_q);
    _mm512_mask_sub_epi64(x, over, x, q)
}

/// One signed gadget digit of every lane ([`super::signed_digit`]): returns
/// `s = x mod B` in `[-B/2, B/2)` and leaves `(x - s) / B` in `x`, for `B = 2^lb`,
/// `mask = B - 1` and `half = B/2` in every lane.
#[inline(always)]
pub(crate) unsafe fn signed_digit(
    x: &mut __m512i,
    mask: __m512i,
    half: __m512i,
    lb: __m512i,
) -> __m512i {
    // With t = x + B/2: s = (t mod B) - B/2 and (x - s) / B = floor(t / B), four
    // operations where `r - 2 (r & B/2)` with `r = x mod B` took six.
    let t = _mm512_add_epi64(*x, half);
    *x = _mm512_srav_epi64(t, lb);
    _mm512_sub_epi64(_mm512_and_si512(t, mask), half)
}

/// AVX2 lane arithmetic (four 64-bit lanes), shared by the AVX2 NTT and the AVX2
/// element-wise kernels. Same conventions as the AVX-512 helpers above: `#[inline(always)]`
/// bodies that inline into callers carrying `#[target_feature(enable = "avx2,fma")]`.
///
/// AVX2 has no 64-bit lane product, no unsigned 64-bit compare or min: the products are
/// built from `vpmuludq` (32x32 -> 64) and `vpmulld` (32x32 -> low 32) partial
/// products, and the conditional subtractions select on the sign bit of the difference.
pub(crate) mod avx2 {
    use core::arch::x86_64::*;

    /// Swaps the 32-bit halves of every 64-bit lane (see [`super::swap32`]).
    #[inline(always)]
    pub(crate) unsafe fn swap32(a: __m256i) -> __m256i {
        _mm256_shuffle_epi32::<0b10_11_00_01>(a)
    }

    /// `x` in every lane.
    #[inline(always)]
    pub(crate) unsafe fn splat(x: u64) -> __m256i {
        _mm256_set1_epi64x(x as i64)
    }

    /// High 64 bits of the 128-bit lane products `a * b`, given the swapped halves too
    /// (four `vpmuludq`; same carries as [`super::mulhi_u64_sw`]).
    #[inline(always)]
    pub(crate) unsafe fn mulhi_sw(a: __m256i, a_sw: __m256i, b: __m256i, b_sw: __m256i) -> __m256i {
        let lo_mask = _mm256_set1_epi64x(0xffff_ffff);
        let ll = _mm256_mul_epu32(a, b);
        let lh = _mm256_mul_epu32(a, b_sw);
        let hl = _mm256_mul_epu32(a_sw, b);
        let hh = _mm256_mul_epu32(a_sw, b_sw);
        // lh + (ll >> 32) < 2^64: (2^32 - 1)^2 + 2^32 - 1 < 2^64.
        let mid = _mm256_add_epi64(lh, _mm256_srli_epi64::<32>(ll));
        let mid2 = _mm256_add_epi64(hl, _mm256_and_si256(mid, lo_mask));
        _mm256_add_epi64(
            _mm256_add_epi64(hh, _mm256_srli_epi64::<32>(mid)),
            _mm256_srli_epi64::<32>(mid2),
        )
    }

    /// The cross terms `(a_lo b_hi, a_hi b_lo) mod 2^32` of the lanes (one `vpmulld`), from
    /// `b` with its halves swapped. [`cross_to_lo`] turns them (or a 32-bit lane-wise
    /// difference of two such) into the products' contribution to the low words.
    #[inline(always)]
    pub(crate) unsafe fn cross(a: __m256i, b_sw: __m256i) -> __m256i {
        _mm256_mullo_epi32(a, b_sw)
    }

    /// `(c_lo + c_hi) 2^32 mod 2^64` for every lane `c = c_hi 2^32 + c_lo` of cross terms.
    #[inline(always)]
    pub(crate) unsafe fn cross_to_lo(c: __m256i) -> __m256i {
        let hi_mask = _mm256_set1_epi64x(0xffff_ffff_0000_0000u64 as i64);
        _mm256_add_epi64(_mm256_slli_epi64::<32>(c), _mm256_and_si256(c, hi_mask))
    }

    /// Low 64 bits of the lane products `a * b`, given `b` with its halves swapped (one
    /// `vpmuludq` and one `vpmulld`).
    #[inline(always)]
    pub(crate) unsafe fn mullo(a: __m256i, b: __m256i, b_sw: __m256i) -> __m256i {
        _mm256_add_epi64(_mm256_mul_epu32(a, b), cross_to_lo(cross(a, b_sw)))
    }

    /// The full 128-bit lane products `a * b` as `(low, high)` words.
    #[inline(always)]
    pub(crate) unsafe fn mul_wide(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
        let (a_sw, b_sw) = (swap32(a), swap32(b));
        (mullo(a, b, b_sw), mulhi_sw(a, a_sw, b, b_sw))
    }

    /// Shoup product with 64-bit companions: `y * w mod q` in `[0, 2q)` for any lane `y`,
    /// `w < q < 2^63` and `ws = floor(w 2^64 / q)`, given `w`, `ws` and `q` with their
    /// halves swapped too. Exactly [`Modulus::mul_shoup_lazy`] (`quo = floor(y ws / 2^64)`,
    /// `r = y w - quo q`, computed modulo `2^64`, exact as `r < 2q`).
    ///
    /// [`Modulus::mul_shoup_lazy`]: crate::math::modulus::Modulus::mul_shoup_lazy
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn shoup_mul(
        y: __m256i,
        w: __m256i,
        w_sw: __m256i,
        ws: __m256i,
        ws_sw: __m256i,
        q: __m256i,
        q_sw: __m256i,
    ) -> __m256i {
        let quo = mulhi_sw(y, swap32(y), ws, ws_sw);
        shoup_remainder(y, w, w_sw, quo, q, q_sw)
    }

    /// `y w - quo q mod 2^64`, a Shoup product's remainder from its quotient: the low
    /// products, then both cross terms at once (the 32-bit lane-wise difference is exact
    /// modulo 2^32).
    #[inline(always)]
    unsafe fn shoup_remainder(
        y: __m256i,
        w: __m256i,
        w_sw: __m256i,
        quo: __m256i,
        q: __m256i,
        q_sw: __m256i,
    ) -> __m256i {
        let ll = _mm256_sub_epi64(_mm256_mul_epu32(y, w), _mm256_mul_epu32(quo, q));
        let c = _mm256_sub_epi32(cross(y, w_sw), cross(quo, q_sw));
        _mm256_add_epi64(ll, cross_to_lo(c))
    }

    /// [`shoup_mul`] with the quotient from three of the four partial products (see
    /// [`super::shoup_mul_wide_loose`]): `y * w mod q` in `[0, 4q)` for any lane `y`,
    /// `w < q < 2^62`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn shoup_mul_loose(
        y: __m256i,
        w: __m256i,
        w_sw: __m256i,
        ws: __m256i,
        ws_sw: __m256i,
        q: __m256i,
        q_sw: __m256i,
    ) -> __m256i {
        let y_sw = swap32(y);
        let lh = _mm256_mul_epu32(y, ws_sw);
        let hl = _mm256_mul_epu32(y_sw, ws);
        let hh = _mm256_mul_epu32(y_sw, ws_sw);
        let quo = _mm256_add_epi64(
            hh,
            _mm256_add_epi64(_mm256_srli_epi64::<32>(lh), _mm256_srli_epi64::<32>(hl)),
        );
        shoup_remainder(y, w, w_sw, quo, q, q_sw)
    }

    /// Bit pattern of `2^52` (`f64`): `2^52 + x` has the bits `TWO52_BITS + x` for integers
    /// `0 <= x < 2^52`.
    pub(crate) const TWO52_BITS: u64 = 0x4330_0000_0000_0000;

    /// `u64` lanes below `2^52` as `f64` (exact).
    #[inline(always)]
    pub(crate) unsafe fn f64_from_words(x: __m256i) -> __m256d {
        let biased = _mm256_castsi256_pd(_mm256_or_si256(x, splat(TWO52_BITS)));
        _mm256_sub_pd(biased, _mm256_set1_pd(f64::from_bits(TWO52_BITS)))
    }

    /// Integer `f64` lanes in `[0, 2^52)` as `u64` words (exact).
    #[inline(always)]
    pub(crate) unsafe fn f64_to_words(v: __m256d) -> __m256i {
        let biased = _mm256_add_pd(v, _mm256_set1_pd(f64::from_bits(TWO52_BITS)));
        _mm256_sub_epi64(_mm256_castpd_si256(biased), splat(TWO52_BITS))
    }

    /// Round to nearest (ties to even).
    #[inline(always)]
    pub(crate) unsafe fn round_f64(x: __m256d) -> __m256d {
        _mm256_round_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(x)
    }

    /// Exact modular product of integer `f64` lanes (FLINT `fft_small`'s): `y w - k q`
    /// with `k = round(fl(y w) ninv)`, `ninv = fl(1/q)`, `q < 2^50`. For `|y w / q| <= B`
    /// the estimate of `y w / q` is within `3 B 2^-53`, so the result is at most
    /// `(1/2 + 3 B 2^-53) q` in magnitude; it is exact (the FMA `h - k q` and the addition
    /// of the product's rounding error `l` produce integers below `2^53`) as long as
    /// `|y w| < 2^103` (proof in `ntt/avx2_f64.rs`).
    #[inline(always)]
    pub(crate) unsafe fn mulmod_f64(y: __m256d, w: __m256d, q: __m256d, ninv: __m256d) -> __m256d {
        let h = _mm256_mul_pd(y, w);
        let l = _mm256_fmsub_pd(y, w, h);
        let k = round_f64(_mm256_mul_pd(h, ninv));
        _mm256_add_pd(_mm256_fnmadd_pd(k, q, h), l)
    }

    /// `v + q` where `v < 0` (a negative zero counts as zero).
    #[inline(always)]
    pub(crate) unsafe fn add_q_if_neg(v: __m256d, q: __m256d) -> __m256d {
        let neg = _mm256_cmp_pd::<_CMP_LT_OQ>(v, _mm256_setzero_pd());
        _mm256_add_pd(v, _mm256_and_pd(neg, q))
    }

    /// `x - c` where `x >= c`, else `x`, for lanes with `c <= 2^63` and `x < c + 2^63` (for
    /// instance `x < 2c`, or `x` and `c` both below `2^63`): the difference then lies in
    /// `[-c, 2^63)`, so its sign bit says whether `x < c` (one `vblendvpd` on it).
    #[inline(always)]
    pub(crate) unsafe fn csub(x: __m256i, c: __m256i) -> __m256i {
        let d = _mm256_sub_epi64(x, c);
        _mm256_castpd_si256(_mm256_blendv_pd(
            _mm256_castsi256_pd(d),
            _mm256_castsi256_pd(x),
            _mm256_castsi256_pd(d),
        ))
    }
}
