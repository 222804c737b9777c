//! AVX2 and FMA versions of the portable kernels of [`super`] (`portable`), for CPUs
//! without AVX-512: four points per step, the same operations as [`super::avx512`] lane
//! for lane (so `mul_acc2` returns the same words as the AVX-512 code).
//!
//! AVX2 lacks three instructions the AVX-512 kernels use, each replaced exactly:
//!
//! * the 64-bit arithmetic shift: `x >> b` is `((x >>> b) ^ m) - m` with `m = 2^(63 - b)`
//!   (as in `rlwe::gsw`'s AVX2 decomposition);
//! * the conversions between `i64` and `f64`: for `|x| < 2^51`, the bits of the double
//!   `1.5 · 2^52 + x` are those of `1.5 · 2^52` plus `x`, so one integer addition and one
//!   floating-point subtraction convert either way (every value converted here is a
//!   digit, a centered residue mod `q < 2^52`, or a residue in `(-q, q)`);
//! * the masked moves: blends and `and` with compare masks.

use core::arch::x86_64::*;
use num_complex::Complex64 as C64;

/// `1.5 · 2^52`: its bits plus `x` are the double `1.5 · 2^52 + x` for `|x| < 2^51`.
const MAGIC: f64 = 6755399441055744.0;

/// `x` (`|x| < 2^51`) as doubles.
#[inline(always)]
unsafe fn i64_to_f64(x: __m256i) -> __m256d {
    let m = _mm256_set1_pd(MAGIC);
    _mm256_sub_pd(
        _mm256_castsi256_pd(_mm256_add_epi64(x, _mm256_castpd_si256(m))),
        m,
    )
}

/// The integers `x` (`|x| < 2^51`, integral doubles) as `i64`.
#[inline(always)]
unsafe fn f64_to_i64(x: __m256d) -> __m256i {
    let m = _mm256_set1_pd(MAGIC);
    _mm256_sub_epi64(
        _mm256_castpd_si256(_mm256_add_pd(x, m)),
        _mm256_castpd_si256(m),
    )
}

/// Points `j, j + 2, j + 1, j + 3` of the interleaved `p` as (re, im): the order that one
/// unpack of two registers gives, and that [`store_c`] undoes.
#[inline(always)]
unsafe fn load_c(p: *const C64) -> (__m256d, __m256d) {
    let p = p as *const f64;
    let (lo, hi) = (_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4)));
    (_mm256_unpacklo_pd(lo, hi), _mm256_unpackhi_pd(lo, hi))
}

/// Stores (re, im) of the points in [`load_c`]'s order, interleaved in the natural order.
#[inline(always)]
unsafe fn store_c(p: *mut C64, r: __m256d, i: __m256d) {
    let p = p as *mut f64;
    _mm256_storeu_pd(p, _mm256_unpacklo_pd(r, i));
    _mm256_storeu_pd(p.add(4), _mm256_unpackhi_pd(r, i));
}

/// Lanes `0, 2, 1, 3` of `x`: [`load_c`]'s order from the natural one, and back.
#[inline(always)]
unsafe fn cross(x: __m256i) -> __m256i {
    _mm256_permute4x64_epi64::<0b11_01_10_00>(x)
}

#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn twist_digits(
    a: &[u64],
    q: u64,
    log_base: u32,
    d: usize,
    skip: usize,
    twist: &[C64],
    out: &mut [C64],
) {
    let m = twist.len();
    let (half_q, qv) = (
        _mm256_set1_epi64x((q / 2) as i64),
        _mm256_set1_epi64x(q as i64),
    );
    let mask = _mm256_set1_epi64x((1i64 << log_base) - 1);
    let half = _mm256_set1_epi64x(1i64 << (log_base - 1));
    let sign_fix = _mm256_set1_epi64x(1i64 << (63 - log_base));
    let shift = _mm_cvtsi32_si128(log_base as i32);
    // s = x mod B in [-B/2, B/2) and x <- (x - s) / B, with t = x + B/2: s = (t mod B)
    // - B/2 and (x - s) / B = t >> log B (arithmetic), as `math::simd::signed_digit`.
    let signed_digit = |x: &mut __m256i| {
        let t = _mm256_add_epi64(*x, half);
        *x = _mm256_sub_epi64(
            _mm256_xor_si256(_mm256_srl_epi64(t, shift), sign_fix),
            sign_fix,
        );
        _mm256_sub_epi64(_mm256_and_si256(t, mask), half)
    };
    // Centered, in `load_c`'s order: x - q where x > q/2.
    let load = |p: *const u64| {
        let x = cross(_mm256_loadu_si256(p as *const __m256i));
        _mm256_sub_epi64(x, _mm256_and_si256(_mm256_cmpgt_epi64(x, half_q), qv))
    };
    let (pa, po) = (a.as_ptr(), out.as_mut_ptr());
    for j in (0..m).step_by(4) {
        let (mut x, mut y) = (load(pa.add(j)), load(pa.add(m + j)));
        let (wr, wi) = load_c(twist.as_ptr().add(j));
        for _ in 0..skip {
            signed_digit(&mut x);
            signed_digit(&mut y);
        }
        for i in skip..d {
            let (u, v) = if i + 1 < d {
                (signed_digit(&mut x), signed_digit(&mut y))
            } else {
                (x, y)
            };
            let (u, v) = (i64_to_f64(u), i64_to_f64(v));
            let r = _mm256_fmsub_pd(u, wr, _mm256_mul_pd(v, wi));
            let im = _mm256_fmadd_pd(u, wi, _mm256_mul_pd(v, wr));
            store_c(po.add((i - skip) * m + j), r, im);
        }
    }
}

/// `o (+)= round(v) mod q` for four lanes (`v` in the natural order), `o` in `[0, q)`.
#[inline(always)]
unsafe fn add_rounded<const ADD: bool>(
    v: __m256d,
    qf: __m256d,
    qinv: __m256d,
    qi: __m256i,
    o: *mut u64,
) {
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    let r = _mm256_round_pd::<NEAREST>(v);
    let k = _mm256_round_pd::<NEAREST>(_mm256_mul_pd(r, qinv));
    // r - k q is in [-q/2, q/2]: one conditional add of q makes it a residue.
    let r = f64_to_i64(_mm256_fnmadd_pd(k, qf, r));
    let s = if ADD {
        _mm256_add_epi64(r, _mm256_loadu_si256(o as *const __m256i))
    } else {
        r
    };
    let zero = _mm256_setzero_si256();
    let s = _mm256_add_epi64(s, _mm256_and_si256(_mm256_cmpgt_epi64(zero, s), qi));
    let s = if ADD {
        // s >= q, i.e. not q > s.
        let lt = _mm256_cmpgt_epi64(qi, s);
        _mm256_sub_epi64(s, _mm256_andnot_si256(lt, qi))
    } else {
        s
    };
    _mm256_storeu_si256(o as *mut __m256i, s);
}

#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn untwist<const ADD: bool>(
    buf: &[C64],
    untwist: &[C64],
    q: u64,
    out: &mut [u64],
) {
    let m = buf.len();
    let qf = _mm256_set1_pd(q as f64);
    let qinv = _mm256_set1_pd(1.0 / q as f64);
    let qi = _mm256_set1_epi64x(q as i64);
    let natural = |v: __m256d| _mm256_permute4x64_pd::<0b11_01_10_00>(v);
    let (lo, hi) = (out.as_mut_ptr(), out.as_mut_ptr().add(m));
    for j in (0..m).step_by(4) {
        let (vr, vi) = load_c(buf.as_ptr().add(j));
        let (wr, wi) = load_c(untwist.as_ptr().add(j));
        let r = _mm256_fmsub_pd(vr, wr, _mm256_mul_pd(vi, wi));
        let i = _mm256_fmadd_pd(vr, wi, _mm256_mul_pd(vi, wr));
        add_rounded::<ADD>(natural(r), qf, qinv, qi, lo.add(j));
        add_rounded::<ADD>(natural(i), qf, qinv, qi, hi.add(j));
    }
}

/// Four points (two registers) per step, four sums per output, as
/// `avx512::mul_acc2` (see the documentation of [`super`]).
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn mul_acc2(
    out_a: &mut [C64],
    out_b: &mut [C64],
    x: &[C64],
    ya: &[C64],
    yb: &[C64],
    accumulate: bool,
) {
    let (pa, pb) = (ya.as_ptr() as *const f64, yb.as_ptr() as *const f64);
    let key = |a: bool, i: usize| _mm256_loadu_pd(if a { pa } else { pb }.add(i));
    mul_acc2_with(out_a, out_b, x, key, None, accumulate);
}

/// [`mul_acc2`] over 32-bit keys: four parts converted per load, `x` scaled instead.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn mul_acc2_compact(
    out_a: &mut [C64],
    out_b: &mut [C64],
    x: &[C64],
    ya: &[i32],
    yb: &[i32],
    scale: f64,
    accumulate: bool,
) {
    let (pa, pb) = (ya.as_ptr(), yb.as_ptr());
    let key = |a: bool, i: usize| {
        let p = if a { pa } else { pb }.add(i) as *const __m128i;
        _mm256_cvtepi32_pd(_mm_loadu_si128(p))
    };
    mul_acc2_with(out_a, out_b, x, key, Some(scale), accumulate);
}

/// The kernel of both: `key(a, i)` loads the four parts from part `i` of `ya` (`a`) or
/// `yb`; `scale` multiplies `x`.
#[inline(always)]
unsafe fn mul_acc2_with(
    out_a: &mut [C64],
    out_b: &mut [C64],
    x: &[C64],
    key: impl Fn(bool, usize) -> __m256d,
    scale: Option<f64>,
    accumulate: bool,
) {
    let m = out_a.len();
    let rows = x.len() / m;
    let ld = |p: *const C64, k: usize| _mm256_loadu_pd((p as *const f64).add(4 * k));
    let sc = _mm256_set1_pd(scale.unwrap_or(1.0));
    let swap = |v: __m256d| _mm256_permute_pd::<0b0101>(v);
    // p: Re = even - odd lanes; p': Im = even + odd lanes; interleaved result.
    let finish = |p: __m256d, ps: __m256d| {
        let re = _mm256_sub_pd(p, swap(p));
        let im = _mm256_add_pd(ps, swap(ps));
        _mm256_blend_pd::<0b1010>(re, im)
    };
    let z = _mm256_setzero_pd();
    for j in (0..m).step_by(4) {
        let mut acc = [z; 8];
        if accumulate {
            // p starts at (o_re, 0) and p' at (0, o_im).
            for (h, out) in [(0, &*out_a), (4, &*out_b)] {
                for k in 0..2 {
                    let o = ld(out.as_ptr().add(j), k);
                    acc[h + 2 * k] = _mm256_blend_pd::<0b0101>(z, o);
                    acc[h + 2 * k + 1] = _mm256_blend_pd::<0b1010>(z, o);
                }
            }
        }
        for r in 0..rows {
            let o = r * m + j;
            for k in 0..2 {
                let v = ld(x.as_ptr().add(o), k);
                let v = if scale.is_some() {
                    _mm256_mul_pd(v, sc)
                } else {
                    v
                };
                let vs = swap(v);
                let (a, b) = (key(true, 2 * o + 4 * k), key(false, 2 * o + 4 * k));
                acc[2 * k] = _mm256_fmadd_pd(v, a, acc[2 * k]);
                acc[2 * k + 1] = _mm256_fmadd_pd(vs, a, acc[2 * k + 1]);
                acc[4 + 2 * k] = _mm256_fmadd_pd(v, b, acc[4 + 2 * k]);
                acc[5 + 2 * k] = _mm256_fmadd_pd(vs, b, acc[5 + 2 * k]);
            }
        }
        for k in 0..2 {
            let pa = (out_a.as_mut_ptr().add(j) as *mut f64).add(4 * k);
            _mm256_storeu_pd(pa, finish(acc[2 * k], acc[2 * k + 1]));
            let pb = (out_b.as_mut_ptr().add(j) as *mut f64).add(4 * k);
            _mm256_storeu_pd(pb, finish(acc[4 + 2 * k], acc[5 + 2 * k]));
        }
    }
}
