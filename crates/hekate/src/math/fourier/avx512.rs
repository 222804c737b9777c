//! AVX-512F/DQ versions of the portable kernels of [`super`] (`portable`): eight points
//! per pair of registers, real and imaginary parts in separate registers inside a kernel.

use crate::math::simd::{centered, signed_digit};
use core::arch::x86_64::*;
use num_complex::Complex64 as C64;

/// Round to nearest, no exceptions (`roundscale` immediate).
const NEAREST: i32 = 0x08;

#[inline(always)]
unsafe fn interleave(r: __m512d, i: __m512d) -> (__m512d, __m512d) {
    let lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
    let hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    (
        _mm512_permutex2var_pd(r, lo, i),
        _mm512_permutex2var_pd(r, hi, i),
    )
}

#[inline(always)]
unsafe fn deinterleave(lo: __m512d, hi: __m512d) -> (__m512d, __m512d) {
    let even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    let odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    (
        _mm512_permutex2var_pd(lo, even, hi),
        _mm512_permutex2var_pd(lo, odd, hi),
    )
}

/// Eight complex numbers (interleaved) at `p` as (re, im).
#[inline(always)]
unsafe fn load_c(p: *const C64) -> (__m512d, __m512d) {
    let p = p as *const f64;
    deinterleave(_mm512_loadu_pd(p), _mm512_loadu_pd(p.add(8)))
}

#[inline(always)]
unsafe fn store_c(p: *mut C64, r: __m512d, i: __m512d) {
    let p = p as *mut f64;
    let (lo, hi) = interleave(r, i);
    _mm512_storeu_pd(p, lo);
    _mm512_storeu_pd(p.add(8), hi);
}

/// `o += round(v) mod q` for eight lanes, `o` in `[0, q)`.
#[inline(always)]
unsafe fn add_rounded<const ADD: bool>(
    v: __m512d,
    qf: __m512d,
    qinv: __m512d,
    qi: __m512i,
    o: *mut u64,
) {
    let r = _mm512_roundscale_pd::<NEAREST>(v);
    let k = _mm512_roundscale_pd::<NEAREST>(_mm512_mul_pd(r, qinv));
    // r - k q is in [-q/2, q/2]: one conditional add of q makes it a residue.
    let r = _mm512_cvtpd_epi64(_mm512_fnmadd_pd(k, qf, r));
    let s = if ADD {
        _mm512_add_epi64(r, _mm512_loadu_si512(o as *const _))
    } else {
        r
    };
    let neg = _mm512_cmplt_epi64_mask(s, _mm512_setzero_si512());
    let s = _mm512_mask_add_epi64(s, neg, s, qi);
    let s = if ADD {
        let ge = _mm512_cmpge_epi64_mask(s, qi);
        _mm512_mask_sub_epi64(s, ge, s, qi)
    } else {
        s
    };
    _mm512_storeu_si512(o as *mut _, s);
}

#[target_feature(enable = "avx512f,avx512dq")]
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
        _mm512_set1_epi64((q / 2) as i64),
        _mm512_set1_epi64(q as i64),
    );
    let lb = _mm512_set1_epi64(log_base as i64);
    let mask = _mm512_set1_epi64((1i64 << log_base) - 1);
    let half = _mm512_set1_epi64(1i64 << (log_base - 1));
    let digit = |x: &mut __m512i| _mm512_cvtepi64_pd(signed_digit(x, mask, half, lb));
    let load = |p: *const u64| centered(_mm512_loadu_si512(p as *const _), half_q, qv);
    let (pa, po) = (a.as_ptr(), out.as_mut_ptr());
    for j in (0..m).step_by(8) {
        let (mut x, mut y) = (load(pa.add(j)), load(pa.add(m + j)));
        let (wr, wi) = load_c(twist.as_ptr().add(j));
        for _ in 0..skip {
            signed_digit(&mut x, mask, half, lb);
            signed_digit(&mut y, mask, half, lb);
        }
        for i in skip..d {
            let (u, v) = if i + 1 < d {
                (digit(&mut x), digit(&mut y))
            } else {
                (_mm512_cvtepi64_pd(x), _mm512_cvtepi64_pd(y))
            };
            let r = _mm512_fmsub_pd(u, wr, _mm512_mul_pd(v, wi));
            let im = _mm512_fmadd_pd(u, wi, _mm512_mul_pd(v, wr));
            store_c(po.add((i - skip) * m + j), r, im);
        }
    }
}

#[target_feature(enable = "avx512f,avx512dq")]
pub(super) unsafe fn untwist<const ADD: bool>(
    buf: &[C64],
    untwist: &[C64],
    q: u64,
    out: &mut [u64],
) {
    let m = buf.len();
    let qf = _mm512_set1_pd(q as f64);
    let qinv = _mm512_set1_pd(1.0 / q as f64);
    let qi = _mm512_set1_epi64(q as i64);
    let (lo, hi) = (out.as_mut_ptr(), out.as_mut_ptr().add(m));
    for j in (0..m).step_by(8) {
        let (vr, vi) = load_c(buf.as_ptr().add(j));
        let (wr, wi) = load_c(untwist.as_ptr().add(j));
        let r = _mm512_fmsub_pd(vr, wr, _mm512_mul_pd(vi, wi));
        let i = _mm512_fmadd_pd(vr, wi, _mm512_mul_pd(vi, wr));
        add_rounded::<ADD>(r, qf, qinv, qi, lo.add(j));
        add_rounded::<ADD>(i, qf, qinv, qi, hi.add(j));
    }
}

/// Eight points (two registers) per step, four sums per output (see the module
/// documentation), combined once at the end.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn mul_acc2(
    out_a: &mut [C64],
    out_b: &mut [C64],
    x: &[C64],
    ya: &[C64],
    yb: &[C64],
    accumulate: bool,
) {
    let (pa, pb) = (ya.as_ptr() as *const f64, yb.as_ptr() as *const f64);
    let key = |a: bool, i: usize| _mm512_loadu_pd(if a { pa } else { pb }.add(i));
    mul_acc2_with(out_a, out_b, x, key, None, accumulate);
}

/// [`mul_acc2`] over 32-bit keys: eight parts converted per load, `x` scaled instead.
#[target_feature(enable = "avx512f")]
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
        let p = if a { pa } else { pb }.add(i) as *const __m256i;
        _mm512_cvtepi32_pd(_mm256_loadu_si256(p))
    };
    mul_acc2_with(out_a, out_b, x, key, Some(scale), accumulate);
}

/// The kernel of both: `key(a, i)` loads the eight parts from part `i` of `ya`
/// (`a`) or `yb`; `scale` multiplies `x`.
#[inline(always)]
unsafe fn mul_acc2_with(
    out_a: &mut [C64],
    out_b: &mut [C64],
    x: &[C64],
    key: impl Fn(bool, usize) -> __m512d,
    scale: Option<f64>,
    accumulate: bool,
) {
    let m = out_a.len();
    let rows = x.len() / m;
    let ld = |p: *const C64, k: usize| _mm512_loadu_pd((p as *const f64).add(8 * k));
    let sc = _mm512_set1_pd(scale.unwrap_or(1.0));
    let swap = |v: __m512d| _mm512_permute_pd::<0b0101_0101>(v);
    // p: Re = even - odd lanes; p': Im = even + odd lanes; interleaved result.
    let finish = |p: __m512d, ps: __m512d| {
        let re = _mm512_sub_pd(p, swap(p));
        let im = _mm512_add_pd(ps, swap(ps));
        _mm512_mask_blend_pd(0b1010_1010, re, im)
    };
    for j in (0..m).step_by(8) {
        let z = _mm512_setzero_pd();
        let mut acc = [z; 8];
        if accumulate {
            // Start from (o, 0): Re = o_re - o_im and Im = 0 + 0 would be wrong, so
            // seed p with (o_re, 0) and p' with (0, o_im).
            for (h, out) in [(0, &*out_a), (4, &*out_b)] {
                for k in 0..2 {
                    let o = ld(out.as_ptr().add(j), k);
                    acc[h + 2 * k] = _mm512_maskz_mov_pd(0b0101_0101, o);
                    acc[h + 2 * k + 1] = _mm512_maskz_mov_pd(0b1010_1010, o);
                }
            }
        }
        for r in 0..rows {
            let o = r * m + j;
            for k in 0..2 {
                let v = ld(x.as_ptr().add(o), k);
                let v = if scale.is_some() {
                    _mm512_mul_pd(v, sc)
                } else {
                    v
                };
                let vs = swap(v);
                let (a, b) = (key(true, 2 * o + 8 * k), key(false, 2 * o + 8 * k));
                acc[2 * k] = _mm512_fmadd_pd(v, a, acc[2 * k]);
                acc[2 * k + 1] = _mm512_fmadd_pd(vs, a, acc[2 * k + 1]);
                acc[4 + 2 * k] = _mm512_fmadd_pd(v, b, acc[4 + 2 * k]);
                acc[5 + 2 * k] = _mm512_fmadd_pd(vs, b, acc[5 + 2 * k]);
            }
        }
        for k in 0..2 {
            let pa = (out_a.as_mut_ptr().add(j) as *mut f64).add(8 * k);
            _mm512_storeu_pd(pa, finish(acc[2 * k], acc[2 * k + 1]));
            let pb = (out_b.as_mut_ptr().add(j) as *mut f64).add(8 * k);
            _mm512_storeu_pd(pb, finish(acc[4 + 2 * k], acc[5 + 2 * k]));
        }
    }
}
