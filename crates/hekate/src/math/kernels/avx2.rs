//! AVX2 kernels (four 64-bit lanes, AVX2 and FMA): the element-wise loops, returning
//! exactly the scalar results (reduced residues), for odd `q` of at most 61 bits.
//!
//! The arithmetic is [`avx512`](super::avx512)'s 64-bit-lane arithmetic (`Wide`) at half
//! the width, with the same constants ([`LaneConsts`]) and the same proofs (see the
//! documentation of `avx512.rs`):
//!
//! * products of two variable operands: the 128-bit product from `vpmuludq` and `vpmulld`
//!   partial products (`math/simd.rs`, module `avx2`), then the Barrett reduction with
//!   `mu = floor(2^(63+b) / q)`, which leaves `[0, 3q)`, and two conditional subtractions;
//! * sums of products: the four partial-product accumulators of weights
//!   `1, 2^32, 2^32, 2^64`, folded every [`FOLD`] terms, reduced every [`TERMS`] terms by
//!   two Shoup products (by `2^64 mod q` and by 1);
//! * products by a constant: Shoup with the caller's 64-bit companion, as the scalar code.
//!
//! For `q < 2^50` the products of reduced operands (`mul`, `mul_assign`, `mul_add_assign`,
//! `mul_scalar_assign`, `sub_mul_scalar_assign` on `a - b` in `(-q, q)`, and the inner
//! products) run in exact `f64` arithmetic instead ([`Exact52`], the NTT's
//! technique), which is faster on AVX2.
//!
//! AVX2 has no unsigned 64-bit compare or min. The conditional subtractions select on the
//! sign of the difference ([`csub`]: valid for `c <= 2^63` and `x < c + 2^63`, true of
//! every use here since all values stay below `4q < 2^63`); the one unsigned compare (the
//! carry of `c + a b`) flips the sign bits first.
//!
//! Lengths that are not a multiple of 4 end with one masked chunk (`vpmaskmovq`).
//!
//! The base conversion ([`convert`]) is `avx512/convert.rs`'s with 64-bit lanes: the
//! `y_i` Shoup products, the `f64` sum for `v` in the scalar order (the `u64 -> f64`
//! conversion, which AVX2 lacks, done exactly through the bit patterns of the 32-bit
//! halves), and the lazy output sums; output primes below `2^50` sum in exact `f64`
//! arithmetic when every input prime is below `2^50` too.

use core::arch::x86_64::*;

use super::{few_terms, Blocks8, LaneConsts};
use crate::math::simd::avx2::{
    add_q_if_neg, csub, f64_from_words, f64_to_words, mul_wide, mulhi_sw, mullo, mulmod_f64,
    round_f64, shoup_mul, splat, swap32,
};

/// Products summed before a reduction (the initial value below `2^61` plus 63 products
/// below `2^122` stay below `2^128`).
pub(crate) const TERMS: usize = 63;
/// Products between two folds of the middle accumulators (`2^32 + 7 * 2^61 < 2^64`).
pub(crate) const FOLD: usize = 7;
// The base conversion reduces after whole runs of FOLD products.
const _: () = assert!(TERMS.is_multiple_of(FOLD));

/// Which lanes of a chunk are live: all (`None`), or those of the mask.
#[derive(Clone, Copy)]
struct Mask(Option<__m256i>);

impl Mask {
    const ALL: Mask = Mask(None);

    /// The first `live < 4` lanes.
    #[inline(always)]
    unsafe fn first(live: usize) -> Mask {
        let idx = _mm256_setr_epi64x(0, 1, 2, 3);
        Mask(Some(_mm256_cmpgt_epi64(splat(live as u64), idx)))
    }
}

#[inline(always)]
unsafe fn ld(p: *const u64, m: Mask) -> __m256i {
    match m.0 {
        None => _mm256_loadu_si256(p as *const __m256i),
        Some(mask) => _mm256_maskload_epi64(p as *const i64, mask),
    }
}

#[inline(always)]
unsafe fn st(p: *mut u64, m: Mask, v: __m256i) {
    match m.0 {
        None => _mm256_storeu_si256(p as *mut __m256i, v),
        Some(mask) => _mm256_maskstore_epi64(p as *mut i64, mask, v),
    }
}

/// Runs `body` with `k = 0, 4, 8, ...` covering `len` lanes and `m` the live lanes: all,
/// except in the last chunk when `len` is not a multiple of 4 (a macro, as in
/// `avx512.rs`, so that the body inlines into the `#[target_feature]` entry point and the
/// full chunks' masks fold away).
macro_rules! chunks {
    ($len:expr, |$k:ident, $m:ident| $body:block) => {{
        let len: usize = $len;
        let mut $k = 0usize;
        while $k + 4 <= len {
            let $m = Mask::ALL;
            $body
            $k += 4;
        }
        if $k < len {
            let $m = Mask::first(len - $k);
            $body
        }
    }};
}

/// The broadcast constants of one modulus (odd, at most 61 bits).
#[derive(Clone, Copy)]
pub(crate) struct Avx2 {
    q: __m256i,
    q_sw: __m256i,
    /// `q^-1 mod 2^64` and with halves swapped (Montgomery).
    q_inv: __m256i,
    q_inv_sw: __m256i,
    two_q: __m256i,
    mu: __m256i,
    mu_sw: __m256i,
    /// `s = b - 1` and `64 - s`.
    sh_lo: __m256i,
    sh_hi: __m256i,
    r64: __m256i,
    r64_sw: __m256i,
    r64_shoup: __m256i,
    r64_shoup_sw: __m256i,
    one_shoup: __m256i,
    one_shoup_sw: __m256i,
    m32: __m256i,
}

impl Avx2 {
    /// The constants of `c`.
    ///
    /// # Safety
    /// Needs AVX2.
    #[inline(always)]
    pub(crate) unsafe fn new(c: &LaneConsts) -> Self {
        debug_assert!(c.q % 2 == 1 && c.bits >= 2 && c.bits <= 61);
        let (q, mu, r64) = (splat(c.q), splat(c.mu64), splat(c.r64));
        let (r64_shoup, one_shoup) = (splat(c.r64_shoup), splat(c.one64_shoup));
        let q_inv = splat(c.q_inv64);
        Avx2 {
            q,
            q_sw: swap32(q),
            q_inv,
            q_inv_sw: swap32(q_inv),
            two_q: splat(2 * c.q),
            mu,
            mu_sw: swap32(mu),
            sh_lo: splat(c.bits as u64 - 1),
            sh_hi: splat(65 - c.bits as u64),
            r64,
            r64_sw: swap32(r64),
            r64_shoup,
            r64_shoup_sw: swap32(r64_shoup),
            one_shoup,
            one_shoup_sw: swap32(one_shoup),
            m32: splat(0xffff_ffff),
        }
    }

    /// `x mod q` in `[0, 2q)` for any word `x`: the Shoup product by 1,
    /// `x - floor(x floor(2^64 / q) / 2^64) q`.
    #[inline(always)]
    unsafe fn reduce_word_lazy(self, x: __m256i) -> __m256i {
        let quo = mulhi_sw(x, swap32(x), self.one_shoup, self.one_shoup_sw);
        _mm256_sub_epi64(x, mullo(quo, self.q, self.q_sw))
    }

    /// `x mod q` in `[0, q)` for `x = hi 2^64 + lo < 2^(63 + b)` (Barrett, see the module
    /// documentation; the bound as `avx512::Wide::barrett`'s: the remainder is below
    /// `3q`).
    #[inline(always)]
    unsafe fn barrett(self, lo: __m256i, hi: __m256i) -> __m256i {
        let t = _mm256_or_si256(
            _mm256_sllv_epi64(hi, self.sh_hi),
            _mm256_srlv_epi64(lo, self.sh_lo),
        );
        let quo = mulhi_sw(t, swap32(t), self.mu, self.mu_sw);
        let r = _mm256_sub_epi64(lo, mullo(quo, self.q, self.q_sw));
        // r < 3q < 2^63.
        csub(csub(r, self.q), self.q)
    }

    /// `a b mod q`, reduced, for reduced `a, b`.
    #[inline(always)]
    pub(crate) unsafe fn mul(self, a: __m256i, b: __m256i) -> __m256i {
        let (lo, hi) = mul_wide(a, b);
        self.barrett(lo, hi)
    }

    /// `c + a b mod q`, reduced, for reduced `a, b, c`.
    #[inline(always)]
    pub(crate) unsafe fn mul_add(self, c: __m256i, a: __m256i, b: __m256i) -> __m256i {
        let (lo, hi) = mul_wide(a, b);
        let lo = _mm256_add_epi64(lo, c);
        // Carry iff lo < c (unsigned): compare with the sign bits flipped.
        let sign = splat(1 << 63);
        let carry = _mm256_cmpgt_epi64(_mm256_xor_si256(c, sign), _mm256_xor_si256(lo, sign));
        self.barrett(lo, _mm256_sub_epi64(hi, carry))
    }

    /// `x w mod q`, reduced, for `x < 2q`, `w < q` and its 64-bit companion `ws` (with
    /// both also swapped).
    #[inline(always)]
    pub(crate) unsafe fn mul_shoup(self, x: __m256i, w: [__m256i; 4]) -> __m256i {
        csub(
            shoup_mul(x, w[0], w[1], w[2], w[3], self.q, self.q_sw),
            self.q,
        )
    }

    /// An accumulator holding `init < 2^61`.
    #[inline(always)]
    pub(crate) unsafe fn acc_new(self, init: __m256i) -> [__m256i; 4] {
        let zero = _mm256_setzero_si256();
        [
            _mm256_and_si256(init, self.m32),
            _mm256_srli_epi64::<32>(init),
            zero,
            zero,
        ]
    }

    /// `acc += a b` for `a, b < 2^61`, given their halves swapped too.
    #[inline(always)]
    pub(crate) unsafe fn acc_mul_sw(
        self,
        acc: &mut [__m256i; 4],
        a: __m256i,
        a_sw: __m256i,
        b: __m256i,
        b_sw: __m256i,
    ) {
        let ll = _mm256_mul_epu32(a, b);
        let lh = _mm256_mul_epu32(a, b_sw);
        let hl = _mm256_mul_epu32(a_sw, b);
        let hh = _mm256_mul_epu32(a_sw, b_sw);
        acc[0] = _mm256_add_epi64(acc[0], _mm256_and_si256(ll, self.m32));
        acc[1] = _mm256_add_epi64(acc[1], _mm256_add_epi64(_mm256_srli_epi64::<32>(ll), lh));
        acc[2] = _mm256_add_epi64(acc[2], hl);
        acc[3] = _mm256_add_epi64(acc[3], hh);
    }

    /// `acc += a b` for `a, b < 2^61`.
    #[inline(always)]
    pub(crate) unsafe fn acc_mul(self, acc: &mut [__m256i; 4], a: __m256i, b: __m256i) {
        self.acc_mul_sw(acc, a, swap32(a), b, swap32(b))
    }

    /// Restores the headroom for [`FOLD`] more products.
    #[inline(always)]
    pub(crate) unsafe fn acc_fold(self, acc: &mut [__m256i; 4]) {
        let carry = _mm256_add_epi64(
            _mm256_srli_epi64::<32>(acc[1]),
            _mm256_srli_epi64::<32>(acc[2]),
        );
        acc[3] = _mm256_add_epi64(acc[3], carry);
        acc[1] = _mm256_and_si256(acc[1], self.m32);
        acc[2] = _mm256_and_si256(acc[2], self.m32);
    }

    /// The accumulated value (below `2^128`) modulo `q`, reduced.
    #[inline(always)]
    pub(crate) unsafe fn acc_reduce(self, acc: [__m256i; 4]) -> __m256i {
        let (lo, hi) = self.acc_words(acc);
        // [hi 2^64]_q and [lo]_q, each in [0, 2q) (Shoup, valid for any word).
        let rh = shoup_mul(
            hi,
            self.r64,
            self.r64_sw,
            self.r64_shoup,
            self.r64_shoup_sw,
            self.q,
            self.q_sw,
        );
        let rl = self.reduce_word_lazy(lo);
        csub(csub(_mm256_add_epi64(rh, rl), self.two_q), self.q)
    }

    /// The accumulated value `x = hi 2^64 + lo` as its two words.
    #[inline(always)]
    unsafe fn acc_words(self, acc: [__m256i; 4]) -> (__m256i, __m256i) {
        let [a0, a1, a2, a3] = acc;
        let m32 = self.m32;
        // x = (a0 & m) + 2^32 (s1 & m) + 2^64 hi, as in `avx512::Wide::acc_words`.
        let s1 = _mm256_add_epi64(
            _mm256_srli_epi64::<32>(a0),
            _mm256_add_epi64(_mm256_and_si256(a1, m32), _mm256_and_si256(a2, m32)),
        );
        // Even 32-bit elements (low halves) from a0, odd ones from s1's low half.
        let lo = _mm256_blend_epi32::<0b1010_1010>(a0, _mm256_slli_epi64::<32>(s1));
        let hi = _mm256_add_epi64(
            _mm256_add_epi64(a3, _mm256_srli_epi64::<32>(s1)),
            _mm256_add_epi64(_mm256_srli_epi64::<32>(a1), _mm256_srli_epi64::<32>(a2)),
        );
        (lo, hi)
    }

    /// [`Avx2::acc_reduce`] of a value below `2^(63 + b)`: one Barrett reduction.
    #[inline(always)]
    pub(crate) unsafe fn acc_reduce_few(self, acc: [__m256i; 4]) -> __m256i {
        let (lo, hi) = self.acc_words(acc);
        self.barrett(lo, hi)
    }

    /// `x 2^-64 mod q`, reduced, for an accumulated `x < q 2^64` (Montgomery's REDC, as
    /// `avx512::Wide::acc_redc`; `hi` and the high word of `m q` are below `q < 2^61`, so
    /// the signed comparison orders them).
    #[inline(always)]
    pub(crate) unsafe fn acc_redc(self, acc: [__m256i; 4]) -> __m256i {
        let (lo, hi) = self.acc_words(acc);
        let m = mullo(lo, self.q_inv, self.q_inv_sw);
        let mq = mulhi_sw(m, swap32(m), self.q, self.q_sw);
        let t = _mm256_sub_epi64(hi, mq);
        _mm256_add_epi64(t, _mm256_and_si256(_mm256_cmpgt_epi64(mq, hi), self.q))
    }
}

/// Moduli below this run the products of [`Exact52`] (`f64` lanes).
const F64_MAX_Q: u64 = 1 << 50;

/// Products of reduced operands in exact `f64` arithmetic for `q < 2^50` (FLINT
/// `fft_small`'s, `math/simd.rs` `mulmod_f64`): for `a, b < q`, `|a b / q| < 2^50`, so
/// `mulmod_f64` returns `a b - k q` exactly with magnitude at most `(1/2 + 3/8) q < q`,
/// and adding `q` to the negative results gives the canonical residue. The `u64 <-> f64`
/// conversions are exact below `2^52`. Six floating-point operations per product where
/// the integer lanes need eleven multiplications.
#[derive(Clone, Copy)]
struct Exact52 {
    q: __m256d,
    ninv: __m256d,
}

impl Exact52 {
    #[inline(always)]
    unsafe fn new(q: u64) -> Self {
        debug_assert!(q < F64_MAX_Q);
        Exact52 {
            q: _mm256_set1_pd(q as f64),
            ninv: _mm256_set1_pd(1.0 / q as f64),
        }
    }

    /// `x - round(x / q) q`, at most `q/2 + 2` in magnitude, for integer lanes
    /// `|x| < 2^53`.
    #[inline(always)]
    unsafe fn reduce(self, x: __m256d) -> __m256d {
        let k = round_f64(_mm256_mul_pd(x, self.ninv));
        _mm256_fnmadd_pd(k, self.q, x)
    }

    /// `a b mod q` in `(-q, q)`, as `f64`.
    #[inline(always)]
    unsafe fn mul_centered(self, a: __m256i, b: __m256i) -> __m256d {
        mulmod_f64(f64_from_words(a), f64_from_words(b), self.q, self.ninv)
    }

    /// `a b mod q`, reduced, for reduced `a, b`.
    #[inline(always)]
    unsafe fn mul(self, a: __m256i, b: __m256i) -> __m256i {
        f64_to_words(add_q_if_neg(self.mul_centered(a, b), self.q))
    }

    /// `c + a b mod q`, reduced, for reduced `a, b, c`: the sum lies in `(-q, 2q)`.
    #[inline(always)]
    unsafe fn mul_add(self, c: __m256i, a: __m256i, b: __m256i) -> __m256i {
        let s = _mm256_add_pd(self.mul_centered(a, b), f64_from_words(c));
        let s = add_q_if_neg(s, self.q);
        let over = _mm256_cmp_pd::<_CMP_GE_OQ>(s, self.q);
        f64_to_words(_mm256_sub_pd(s, _mm256_and_pd(over, self.q)))
    }
}

/// `x - y mod q` for reduced lanes: `x - y`, plus `q` where it is negative.
#[inline(always)]
unsafe fn sub_mod(x: __m256i, y: __m256i, q: __m256i) -> __m256i {
    let d = _mm256_sub_epi64(x, y);
    _mm256_castpd_si256(_mm256_blendv_pd(
        _mm256_castsi256_pd(d),
        _mm256_castsi256_pd(_mm256_add_epi64(d, q)),
        _mm256_castsi256_pd(d),
    ))
}

/// `[w, w_sw, ws, ws_sw]` broadcast, for [`Avx2::mul_shoup`].
#[inline(always)]
unsafe fn shoup_consts(w: u64, ws: u64) -> [__m256i; 4] {
    let (w, ws) = (splat(w), splat(ws));
    [w, swap32(w), ws, swap32(ws)]
}

/// Products summed in `f64` between two reductions by [`inner_product_f64_impl`]: from a
/// value below `q` in magnitude, 8 terms below `7q/8` keep the sum below `8q < 2^53`.
const F64_TERMS: usize = 8;

/// [`inner_product_impl`] for `q < 2^50` in exact `f64` arithmetic: each product reduced
/// to `(-7q/8, 7q/8)` by `mulmod_f64` (`|a b / q| < 2^50`), the residues summed exactly,
/// the sum brought back below `q/2 + 2` in magnitude every [`F64_TERMS`] terms by
/// `x - round(x / q) q` (exact, an integer below `2^53`), and made canonical at the end.
#[inline(always)]
unsafe fn inner_product_f64_impl<const ACC: bool>(
    ar: Exact52,
    acc: &mut [u64],
    a: &[&[u64]],
    b: &[&[u64]],
) {
    const U: usize = 2;
    let len = acc.len();
    let whole = len / (4 * U) * (4 * U);
    let pc = acc.as_mut_ptr();
    let mut k = 0;
    while k < whole {
        inner_product_f64_chunks::<ACC, U>(ar, pc, a, b, k, [Mask::ALL; U]);
        k += 4 * U;
    }
    chunks!(len - whole, |kk, m| {
        inner_product_f64_chunks::<ACC, 1>(ar, pc, a, b, whole + kk, [m]);
    });
}

/// `U` consecutive chunks of [`inner_product_f64_impl`] starting at lane `k0`.
#[inline(always)]
unsafe fn inner_product_f64_chunks<const ACC: bool, const U: usize>(
    ar: Exact52,
    pc: *mut u64,
    a: &[&[u64]],
    b: &[&[u64]],
    k0: usize,
    m: [Mask; U],
) {
    let mut s = [_mm256_setzero_pd(); U];
    if ACC {
        for u in 0..U {
            s[u] = f64_from_words(ld(pc.add(k0 + 4 * u), m[u]));
        }
    }
    for j in 0..a.len() {
        let (pa, pb) = (a.get_unchecked(j).as_ptr(), b.get_unchecked(j).as_ptr());
        for u in 0..U {
            let x = f64_from_words(ld(pa.add(k0 + 4 * u), m[u]));
            let y = f64_from_words(ld(pb.add(k0 + 4 * u), m[u]));
            s[u] = _mm256_add_pd(s[u], mulmod_f64(x, y, ar.q, ar.ninv));
        }
        if (j + 1) % F64_TERMS == 0 {
            for s in s.iter_mut() {
                *s = ar.reduce(*s);
            }
        }
    }
    for u in 0..U {
        let r = add_q_if_neg(ar.reduce(s[u]), ar.q);
        st(pc.add(k0 + 4 * u), m[u], f64_to_words(r));
    }
}

/// `acc = [acc +] sum_j a_j b_j` (see `avx512::inner_product_impl`), two chunks of 4
/// lanes side by side for two independent dependency chains.
#[inline(always)]
unsafe fn inner_product_impl<const ACC: bool>(
    ar: Avx2,
    few: usize,
    acc: &mut [u64],
    a: &[&[u64]],
    b: &[&[u64]],
) {
    const U: usize = 2;
    let len = acc.len();
    let whole = len / (4 * U) * (4 * U);
    let pc = acc.as_mut_ptr();
    let mut k = 0;
    while k < whole {
        inner_product_chunks::<ACC, U>(ar, few, pc, a, b, k, [Mask::ALL; U]);
        k += 4 * U;
    }
    chunks!(len - whole, |kk, m| {
        inner_product_chunks::<ACC, 1>(ar, few, pc, a, b, whole + kk, [m]);
    });
}

/// `U` consecutive chunks of [`inner_product_impl`] starting at lane `k0`; a lazy sum of
/// at most `few` ([`few_terms`](crate::math::kernels::few_terms)) products ends in one
/// Barrett reduction ([`Avx2::acc_reduce_few`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn inner_product_chunks<const ACC: bool, const U: usize>(
    ar: Avx2,
    few: usize,
    pc: *mut u64,
    a: &[&[u64]],
    b: &[&[u64]],
    k0: usize,
    m: [Mask; U],
) {
    let beta = a.len();
    let mut r = [_mm256_setzero_si256(); U];
    if ACC {
        for u in 0..U {
            r[u] = ld(pc.add(k0 + 4 * u), m[u]);
        }
    }
    let mut j = 0;
    while j < beta {
        // One lazy sum of at most TERMS products, folded every FOLD.
        let end = (j + TERMS).min(beta);
        let short = end - j <= few;
        let mut s = [ar.acc_new(r[0]); U];
        for u in 1..U {
            s[u] = ar.acc_new(r[u]);
        }
        let mut since_fold = 0;
        while j < end {
            let (pa, pb) = (a.get_unchecked(j).as_ptr(), b.get_unchecked(j).as_ptr());
            for u in 0..U {
                let x = ld(pa.add(k0 + 4 * u), m[u]);
                let y = ld(pb.add(k0 + 4 * u), m[u]);
                ar.acc_mul(&mut s[u], x, y);
            }
            j += 1;
            since_fold += 1;
            if since_fold == FOLD && j < end {
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
        st(pc.add(k0 + 4 * u), m[u], r[u]);
    }
}

// ---------------------------------------------------------------------------------------
// Entry points. Slice lengths are the callers' (checked) business: `b`, `out` and every
// inner-product operand have `a`'s (resp. `acc`'s) length.
// ---------------------------------------------------------------------------------------

/// See [`crate::math::kernels::add_assign`].
///
/// # Safety
/// The CPU supports AVX2 and FMA; `b.len() == a.len()`; `c` is for an odd modulus of at
/// most 61 bits.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn add_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
    let q = splat(c.q);
    let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
    chunks!(a.len(), |k, m| {
        let s = _mm256_add_epi64(ld(pa.add(k), m), ld(pb.add(k), m));
        st(pa.add(k), m, csub(s, q));
    });
}

/// See [`crate::math::kernels::sub_assign`].
///
/// # Safety
/// As [`add_assign`].
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn sub_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
    let q = splat(c.q);
    let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
    chunks!(a.len(), |k, m| {
        st(pa.add(k), m, sub_mod(ld(pa.add(k), m), ld(pb.add(k), m), q));
    });
}

/// See [`crate::math::kernels::rsub_assign`].
///
/// # Safety
/// As [`add_assign`].
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn rsub_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
    let q = splat(c.q);
    let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
    chunks!(a.len(), |k, m| {
        st(pa.add(k), m, sub_mod(ld(pb.add(k), m), ld(pa.add(k), m), q));
    });
}

/// See [`crate::math::kernels::neg_assign`].
///
/// # Safety
/// As [`add_assign`].
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn neg_assign(c: &LaneConsts, a: &mut [u64]) {
    let q = splat(c.q);
    let pa = a.as_mut_ptr();
    chunks!(a.len(), |k, m| {
        // q - 0 = q becomes 0.
        st(pa.add(k), m, csub(_mm256_sub_epi64(q, ld(pa.add(k), m)), q));
    });
}

/// See [`crate::math::kernels::mul_assign`].
///
/// # Safety
/// As [`add_assign`].
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn mul_assign(c: &LaneConsts, a: &mut [u64], b: &[u64]) {
    let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
    if c.q < F64_MAX_Q {
        let ar = Exact52::new(c.q);
        chunks!(a.len(), |k, m| {
            st(pa.add(k), m, ar.mul(ld(pa.add(k), m), ld(pb.add(k), m)));
        });
    } else {
        let ar = Avx2::new(c);
        chunks!(a.len(), |k, m| {
            st(pa.add(k), m, ar.mul(ld(pa.add(k), m), ld(pb.add(k), m)));
        });
    }
}

/// See [`crate::math::kernels::mul`].
///
/// # Safety
/// As [`add_assign`].
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn mul(c: &LaneConsts, a: &[u64], b: &[u64], out: &mut [u64]) {
    let (pa, pb, po) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr());
    if c.q < F64_MAX_Q {
        let ar = Exact52::new(c.q);
        chunks!(out.len(), |k, m| {
            st(po.add(k), m, ar.mul(ld(pa.add(k), m), ld(pb.add(k), m)));
        });
    } else {
        let ar = Avx2::new(c);
        chunks!(out.len(), |k, m| {
            st(po.add(k), m, ar.mul(ld(pa.add(k), m), ld(pb.add(k), m)));
        });
    }
}

/// See [`crate::math::kernels::mul_add_assign`].
///
/// # Safety
/// As [`add_assign`].
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn mul_add_assign(c: &LaneConsts, acc: &mut [u64], a: &[u64], b: &[u64]) {
    let (pc, pa, pb) = (acc.as_mut_ptr(), a.as_ptr(), b.as_ptr());
    if c.q < F64_MAX_Q {
        let ar = Exact52::new(c.q);
        chunks!(acc.len(), |k, m| {
            let r = ar.mul_add(ld(pc.add(k), m), ld(pa.add(k), m), ld(pb.add(k), m));
            st(pc.add(k), m, r);
        });
    } else {
        let ar = Avx2::new(c);
        chunks!(acc.len(), |k, m| {
            let r = ar.mul_add(ld(pc.add(k), m), ld(pa.add(k), m), ld(pb.add(k), m));
            st(pc.add(k), m, r);
        });
    }
}

/// The AVX2 form of one lane permutation of [`permute_blocks8`]: per output half `h`
/// (lanes `4h..4h + 4`), the 32-bit indices of `vpermd` into either input half and the
/// mask choosing the input's upper half.
#[inline(always)]
unsafe fn block_lanes(lanes: &[u64; 8]) -> [[__m256i; 2]; 2] {
    let mut out = [[_mm256_setzero_si256(); 2]; 2];
    for (h, o) in out.iter_mut().enumerate() {
        let (mut idx, mut upper) = ([0i32; 8], [0i64; 4]);
        for s in 0..4 {
            let p = lanes[4 * h + s] as i32;
            idx[2 * s] = 2 * (p % 4);
            idx[2 * s + 1] = 2 * (p % 4) + 1;
            upper[s] = if p >= 4 { -1 } else { 0 };
        }
        o[0] = _mm256_loadu_si256(idx.as_ptr() as *const __m256i);
        o[1] = _mm256_loadu_si256(upper.as_ptr() as *const __m256i);
    }
    out
}

/// Output half `h` of a permuted block `(lo, hi)` ([`block_lanes`]).
#[inline(always)]
unsafe fn permute_half(lo: __m256i, hi: __m256i, t: [__m256i; 2]) -> __m256i {
    let from_lo = _mm256_permutevar8x32_epi32(lo, t[0]);
    let from_hi = _mm256_permutevar8x32_epi32(hi, t[0]);
    _mm256_blendv_epi8(from_lo, from_hi, t[1])
}

/// See [`crate::math::kernels::permute_blocks8`] (a block is two vectors here: each
/// output half gathers its lanes from both input halves, two `vpermd` and a blend).
///
/// # Safety
/// AVX2; the tables hold (`kernels::Blocks8`), `input` and `out` of `8 src.len()` words.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn permute_blocks8(input: &[u64], out: &mut [u64], t: Blocks8) {
    let Blocks8 { src, lane, lanes } = t;
    let tables: Vec<[[__m256i; 2]; 2]> = lanes.iter().map(|l| block_lanes(l)).collect();
    let (pi, po) = (input.as_ptr(), out.as_mut_ptr());
    for (t, (&s, &l)) in src.iter().zip(lane).enumerate() {
        let p = pi.add(8 * s as usize) as *const __m256i;
        let (lo, hi) = (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)));
        let tb = tables.get_unchecked(l as usize);
        let o = po.add(8 * t) as *mut __m256i;
        _mm256_storeu_si256(o, permute_half(lo, hi, tb[0]));
        _mm256_storeu_si256(o.add(1), permute_half(lo, hi, tb[1]));
    }
}

/// See [`crate::math::kernels::permute_add_blocks8`].
///
/// # Safety
/// As [`permute_blocks8`]; `a` and `b` reduced modulo `q < 2^63`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn permute_add_blocks8([a, b]: [&[u64]; 2], out: &mut [u64], q: u64, t: Blocks8) {
    let Blocks8 { src, lane, lanes } = t;
    let tables: Vec<[[__m256i; 2]; 2]> = lanes.iter().map(|l| block_lanes(l)).collect();
    let (pa, pb, po) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr());
    let qv = splat(q);
    for (t, (&s, &l)) in src.iter().zip(lane).enumerate() {
        let at = 8 * s as usize;
        let (x, y) = (pa.add(at) as *const __m256i, pb.add(at) as *const __m256i);
        let lo = csub(
            _mm256_add_epi64(_mm256_loadu_si256(x), _mm256_loadu_si256(y)),
            qv,
        );
        let hi = csub(
            _mm256_add_epi64(_mm256_loadu_si256(x.add(1)), _mm256_loadu_si256(y.add(1))),
            qv,
        );
        let tb = tables.get_unchecked(l as usize);
        let o = po.add(8 * t) as *mut __m256i;
        _mm256_storeu_si256(o, permute_half(lo, hi, tb[0]));
        _mm256_storeu_si256(o.add(1), permute_half(lo, hi, tb[1]));
    }
}

/// See [`crate::math::kernels::inner_product_add_assign`] (any number of terms here).
///
/// # Safety
/// As [`add_assign`].
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn inner_product_add_assign(
    c: &LaneConsts,
    acc: &mut [u64],
    a: &[&[u64]],
    b: &[&[u64]],
) {
    if c.q < F64_MAX_Q {
        inner_product_f64_impl::<true>(Exact52::new(c.q), acc, a, b)
    } else {
        inner_product_impl::<true>(Avx2::new(c), few_terms(c.bits), acc, a, b)
    }
}

/// See [`crate::math::kernels::inner_product`] (any number of terms here).
///
/// # Safety
/// As [`add_assign`].
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn inner_product(c: &LaneConsts, out: &mut [u64], a: &[&[u64]], b: &[&[u64]]) {
    if c.q < F64_MAX_Q {
        inner_product_f64_impl::<false>(Exact52::new(c.q), out, a, b)
    } else {
        inner_product_impl::<false>(Avx2::new(c), few_terms(c.bits), out, a, b)
    }
}

/// See [`crate::math::kernels::mul_scalar_assign`]; `ws` is the 64-bit companion of `w`.
///
/// # Safety
/// As [`add_assign`]; `w < q`.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn mul_scalar_assign(c: &LaneConsts, a: &mut [u64], w: u64, ws: u64) {
    if c.q < F64_MAX_Q {
        // As `mul` with a broadcast operand (w < q).
        let (ar, wv) = (Exact52::new(c.q), splat(w));
        let pa = a.as_mut_ptr();
        chunks!(a.len(), |k, m| {
            st(pa.add(k), m, ar.mul(ld(pa.add(k), m), wv));
        });
        return;
    }
    let ar = Avx2::new(c);
    let w = shoup_consts(w, ws);
    let pa = a.as_mut_ptr();
    chunks!(a.len(), |k, m| {
        st(pa.add(k), m, ar.mul_shoup(ld(pa.add(k), m), w));
    });
}

/// See [`crate::math::kernels::mul_scalar_add_assign`]; `ws` is the 64-bit companion of
/// `w`.
///
/// # Safety
/// As [`add_assign`]; `w < q`.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn mul_scalar_add_assign(
    c: &LaneConsts,
    acc: &mut [u64],
    b: &[u64],
    w: u64,
    ws: u64,
) {
    let (pa, pb) = (acc.as_mut_ptr(), b.as_ptr());
    let q = splat(c.q);
    if c.q < F64_MAX_Q {
        // As `mul_scalar_assign`'s product, then the modular addition.
        let (ar, wv) = (Exact52::new(c.q), splat(w));
        chunks!(acc.len(), |k, m| {
            let s = _mm256_add_epi64(ld(pa.add(k), m), ar.mul(ld(pb.add(k), m), wv));
            st(pa.add(k), m, csub(s, q));
        });
        return;
    }
    let ar = Avx2::new(c);
    let w = shoup_consts(w, ws);
    chunks!(acc.len(), |k, m| {
        let s = _mm256_add_epi64(ld(pa.add(k), m), ar.mul_shoup(ld(pb.add(k), m), w));
        st(pa.add(k), m, csub(s, q));
    });
}

/// See [`crate::math::kernels::sub_mul_scalar_assign`].
///
/// # Safety
/// As [`add_assign`]; `w < q`.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn sub_mul_scalar_assign(
    c: &LaneConsts,
    a: &mut [u64],
    b: &[u64],
    w: u64,
    ws: u64,
) {
    let (pa, pb) = (a.as_mut_ptr(), b.as_ptr());
    if c.q < F64_MAX_Q {
        // (a - b) w with a - b in (-q, q): |(a - b) w / q| < q, as `Exact52::mul`.
        let (ar, wv) = (Exact52::new(c.q), _mm256_set1_pd(w as f64));
        chunks!(a.len(), |k, m| {
            let x = _mm256_sub_pd(
                f64_from_words(ld(pa.add(k), m)),
                f64_from_words(ld(pb.add(k), m)),
            );
            let r = add_q_if_neg(mulmod_f64(x, wv, ar.q, ar.ninv), ar.q);
            st(pa.add(k), m, f64_to_words(r));
        });
        return;
    }
    let ar = Avx2::new(c);
    let w = shoup_consts(w, ws);
    let q = splat(c.q);
    chunks!(a.len(), |k, m| {
        let x = _mm256_sub_epi64(_mm256_add_epi64(ld(pa.add(k), m), q), ld(pb.add(k), m));
        st(pa.add(k), m, ar.mul_shoup(x, w));
    });
}

// ---------------------------------------------------------------------------------------
// Fast base conversion (`avx2/convert.rs`).
// ---------------------------------------------------------------------------------------

mod convert;
pub(crate) use convert::convert;

/// See [`crate::math::kernels::lift_centered`]: `x mod q` by one conditional subtraction
/// when every word is below `2q` (`near`), else by [`Avx2::reduce_word_lazy`] and one;
/// then `q_l mod q` off where `x > q_l / 2` (a signed comparison: the lifted words are
/// below `2^63`).
///
/// # Safety
/// As [`add_assign`]; `x.len() == out.len()`, `ql_mod < q`, every `x[k] < 2^63`, and
/// every `x[k] < 2q` when `near`.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn lift_centered(
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
    let ar = Avx2::new(c);
    let (half, ql_mod) = (splat(half), splat(ql_mod));
    let (po, px) = (out.as_mut_ptr(), x.as_ptr());
    chunks!(out.len(), |k, m| {
        let v = ld(px.add(k), m);
        let r = csub(if NEAR { v } else { ar.reduce_word_lazy(v) }, ar.q);
        let sub = _mm256_and_si256(_mm256_cmpgt_epi64(v, half), ql_mod);
        st(po.add(k), m, sub_mod(r, sub, ar.q));
    });
}
