//! The AVX2 fast base conversion (see [`BaseConverter`](crate::math::rns::BaseConverter)
//! and `avx512::convert`), four 64-bit lanes at a time: the `y_i` Shoup products, the `f64`
//! sum for `v` in the scalar order, and the output sums, lazy on the integer lanes of
//! [`Avx2`], or in exact `f64` arithmetic ([`Exact52`]) for output primes below `2^50` when
//! every input prime is below `2^50` too.
//!
//! The output sums' inner loops hold nothing but the products: the terms run in runs of
//! [`FOLD`] (integer lanes) or [`F64_TERMS`] (`f64`) with the folds and reductions between
//! runs, and the constants `[Q/q_i]_{p_j}` are read already broadcast to four lanes
//! (`ConvTables::c_x4`, `c_f64x4`) as memory operands of the products, so the
//! accumulators stay in registers (`BENCHMARKS.md`, "AVX2 base conversion").

use super::*;
use crate::math::kernels::avx512::ConvTables;
use crate::math::kernels::MONT_TERMS;

/// The lanes `x` as `f64`, rounded to nearest exactly as `x as f64`: the halves convert
/// exactly (`2^84 + hi 2^32` and `2^52 + lo` by their bit patterns), the difference
/// `hi 2^32 - 2^52` is exact, and the one final addition rounds once.
#[inline(always)]
unsafe fn u64_to_f64(x: __m256i) -> __m256d {
    let hi = _mm256_or_si256(_mm256_srli_epi64::<32>(x), splat(0x4530_0000_0000_0000));
    let lo = _mm256_blend_epi32::<0b1010_1010>(x, splat(0x4330_0000_0000_0000));
    let magic = _mm256_set1_pd(f64::from_bits(0x4530_0000_0010_0000)); // 2^84 + 2^52
    _mm256_add_pd(
        _mm256_sub_pd(_mm256_castsi256_pd(hi), magic),
        _mm256_castsi256_pd(lo),
    )
}

/// `round(s)` for lanes `0 <= s < 2^51` exactly as `f64::round` (half away from zero):
/// `trunc(s) + (s - trunc(s) >= 1/2)`, the difference being exact; `trunc(s)` converts
/// through its bit pattern plus `2^52`.
#[inline(always)]
unsafe fn round_pos(s: __m256d) -> __m256i {
    let t = _mm256_round_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(s);
    let half = _mm256_cmp_pd::<_CMP_GE_OQ>(_mm256_sub_pd(s, t), _mm256_set1_pd(0.5));
    let two52 = _mm256_set1_pd(f64::from_bits(0x4330_0000_0000_0000));
    let v = _mm256_sub_epi64(
        _mm256_castpd_si256(_mm256_add_pd(t, two52)),
        splat(0x4330_0000_0000_0000),
    );
    // The mask is -1 where the fraction is at least one half.
    _mm256_sub_epi64(v, _mm256_castpd_si256(half))
}

/// The conversion (see [`BaseConverter`](crate::math::rns::BaseConverter) and
/// `avx512::convert`): blocks of `bl` coefficients; per block the `y` rows (stride `len`)
/// and `v` live in `scratch`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn convert_impl<const EXACT: bool>(
    t: &ConvTables,
    input: &[u64],
    output: &mut [u64],
    n: usize,
    out_limbs: usize,
    bl: usize,
    scratch: &mut [u64],
) {
    let l = t.from.len();
    let small_from = t.from.iter().all(|f| f.q < F64_MAX_Q);
    let mut k0 = 0;
    while k0 < n {
        let len = bl.min(n - k0);
        let (y, rest) = scratch.split_at_mut(l * len);
        let (py, pv) = (y.as_mut_ptr(), rest.as_mut_ptr());
        // y_i = [x_i (Q/q_i)^-1]_{q_i}, and v = round(sum_i y_i / q_i) summed in the
        // scalar order (mul then add, no fma) for bit-identical rounding.
        chunks!(len, |kk, m| {
            let mut s = _mm256_setzero_pd();
            for i in 0..l {
                let q = splat(t.from.get_unchecked(i).q);
                let x = ld(input.as_ptr().add(i * n + k0 + kk), m);
                let w = shoup_consts(
                    *t.q_hat_inv.get_unchecked(i),
                    *t.q_hat_inv_shoup.get_unchecked(i),
                );
                let yi = csub(shoup_mul(x, w[0], w[1], w[2], w[3], q, swap32(q)), q);
                st(py.add(i * len + kk), m, yi);
                if EXACT {
                    let inv = _mm256_set1_pd(*t.inv_q.get_unchecked(i));
                    s = _mm256_add_pd(s, _mm256_mul_pd(u64_to_f64(yi), inv));
                }
            }
            if EXACT {
                st(pv.add(kk), m, round_pos(s));
            }
        });
        // out_j = [sum_i y_i [Q/q_i]_{p_j} + v [-Q]_{p_j}]_{p_j}, two output limbs at a
        // time (shared loads of y, two independent dependency chains).
        // Output primes below 2^50 take the f64 sums when every y_i is below 2^50 too.
        let f64_at = |j: usize| small_from && t.to.get_unchecked(j).q < F64_MAX_Q;
        // The integer lanes end in one Montgomery reduction where the terms allow.
        let mont = l + EXACT as usize <= MONT_TERMS;
        let mut j = 0;
        while j < out_limbs {
            let out = output.as_mut_ptr().add(j * n + k0);
            let pair = j + 1 < out_limbs && f64_at(j) == f64_at(j + 1);
            let (q0, q1) = (t.to.get_unchecked(j), t.to.get_unchecked(j + pair as usize));
            match (f64_at(j), pair) {
                (true, true) => {
                    let ar = [Exact52::new(q0.q), Exact52::new(q1.q)];
                    convert_out_f64::<EXACT, 2>(t, ar, j, py, pv, len, out, n)
                }
                (true, false) => {
                    convert_out_f64::<EXACT, 1>(t, [Exact52::new(q0.q)], j, py, pv, len, out, n)
                }
                (false, true) if mont => {
                    let ar = [Avx2::new(q0), Avx2::new(q1)];
                    convert_out::<EXACT, 2, true>(t, ar, j, py, pv, len, out, n)
                }
                (false, true) => {
                    let ar = [Avx2::new(q0), Avx2::new(q1)];
                    convert_out::<EXACT, 2, false>(t, ar, j, py, pv, len, out, n)
                }
                (false, false) if mont => {
                    convert_out::<EXACT, 1, true>(t, [Avx2::new(q0)], j, py, pv, len, out, n)
                }
                (false, false) => {
                    convert_out::<EXACT, 1, false>(t, [Avx2::new(q0)], j, py, pv, len, out, n)
                }
            }
            j += 1 + pair as usize;
        }
        k0 += len;
    }
}

/// `J` output limbs `j0..j0 + J` of a block (the `y_i` and constants are below `2^61`, `v`
/// below `2^7`: the accumulator bounds hold). `out` points at limb `j0` of the block,
/// limbs `n` words apart. `MONT`: at most [`MONT_TERMS`] terms in one run, on the
/// constants' Montgomery forms, ending in [`Avx2::acc_redc`] (as `avx512`'s
/// `convert_out_wide`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn convert_out<const EXACT: bool, const J: usize, const MONT: bool>(
    t: &ConvTables,
    ar: [Avx2; J],
    j0: usize,
    py: *const u64,
    pv: *const u64,
    len: usize,
    out: *mut u64,
    n: usize,
) {
    let l = t.from.len();
    let zero = _mm256_setzero_si256();
    chunks!(len, |kk, m| {
        let mut s = [[zero; 4]; J];
        // The terms run in runs of FOLD products (the last one possibly shorter) with
        // nothing else in the loop (no counter tested per term, so the accumulators stay
        // in registers); between runs the middle accumulators are folded, and after every
        // TERMS / FOLD runs (TERMS products) the sum is reduced and restarted from its
        // residue (both exact, so the words do not depend on where they happen). The
        // `v [-Q]_{p_j}` term opens the first run.
        let mut run = if MONT { MONT_TERMS } else { FOLD };
        let (c_x4, nq, nq_sw) = if MONT {
            (t.c_mont_x4, t.neg_q_mont, t.neg_q_mont_sw)
        } else {
            (t.c_x4, t.neg_q, t.neg_q_sw)
        };
        if EXACT {
            let v = ld(pv.add(kk), m);
            let v_sw = swap32(v);
            for u in 0..J {
                let nq = splat(*nq.get_unchecked(j0 + u));
                let nq_sw = splat(*nq_sw.get_unchecked(j0 + u));
                ar[u].acc_mul_sw(&mut s[u], v, v_sw, nq, nq_sw);
            }
            run -= 1;
        }
        let mut i = 0;
        let mut runs = 0usize;
        loop {
            let end = (i + run).min(l);
            while i < end {
                let y = ld(py.add(i * len + kk), m);
                let y_sw = swap32(y);
                for u in 0..J {
                    let c = c_x4.as_ptr().add(2 * ((j0 + u) * l + i)) as *const __m256i;
                    let (c, c_sw) = (_mm256_loadu_si256(c), _mm256_loadu_si256(c.add(1)));
                    ar[u].acc_mul_sw(&mut s[u], y, y_sw, c, c_sw);
                }
                i += 1;
            }
            if i == l {
                break;
            }
            debug_assert!(!MONT, "MONT runs all terms at once");
            runs += 1;
            if runs.is_multiple_of(TERMS / FOLD) {
                for u in 0..J {
                    let r = ar[u].acc_reduce(s[u]);
                    s[u] = ar[u].acc_new(r);
                }
            } else {
                for u in 0..J {
                    ar[u].acc_fold(&mut s[u]);
                }
            }
            run = FOLD;
        }
        for u in 0..J {
            let r = if MONT {
                ar[u].acc_redc(s[u])
            } else {
                ar[u].acc_reduce(s[u])
            };
            st(out.add(u * n + kk), m, r);
        }
    });
}

/// [`convert_out`] in exact `f64` arithmetic, for output primes `p_j < 2^50` when every
/// input prime is below `2^50` too: `y_i < 2^50` and `[Q/q_i]_{p_j} < p_j` give
/// `|y_i c / p_j| < 2^50`, so each `mulmod_f64` term is exact and below `7 p_j / 8` in
/// magnitude (the `v [-Q]_{p_j}` term, `v < 2^7`, far below); the sum is reduced every
/// [`F64_TERMS`] terms as in the inner products and made canonical at the end.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn convert_out_f64<const EXACT: bool, const J: usize>(
    t: &ConvTables,
    ar: [Exact52; J],
    j0: usize,
    py: *const u64,
    pv: *const u64,
    len: usize,
    out: *mut u64,
    n: usize,
) {
    let l = t.from.len();
    chunks!(len, |kk, m| {
        let mut s = [_mm256_setzero_pd(); J];
        // Runs of at most F64_TERMS terms with nothing else in the loop, reduced between
        // runs (exact, so the words do not depend on where); `v [-Q]_{p_j}` opens the
        // first run.
        let mut run = F64_TERMS;
        if EXACT {
            let v = f64_from_words(ld(pv.add(kk), m));
            for u in 0..J {
                let nq = _mm256_set1_pd(*t.neg_q.get_unchecked(j0 + u) as f64);
                s[u] = mulmod_f64(v, nq, ar[u].q, ar[u].ninv);
            }
            run -= 1;
        }
        let mut i = 0;
        loop {
            let end = (i + run).min(l);
            while i < end {
                let y = f64_from_words(ld(py.add(i * len + kk), m));
                for u in 0..J {
                    let c = t.c_f64x4.as_ptr().add((j0 + u) * l + i) as *const f64;
                    let c = _mm256_loadu_pd(c);
                    s[u] = _mm256_add_pd(s[u], mulmod_f64(y, c, ar[u].q, ar[u].ninv));
                }
                i += 1;
            }
            if i == l {
                break;
            }
            for u in 0..J {
                s[u] = ar[u].reduce(s[u]);
            }
            run = F64_TERMS;
        }
        for u in 0..J {
            let r = add_q_if_neg(ar[u].reduce(s[u]), ar[u].q);
            st(out.add(u * n + kk), m, f64_to_words(r));
        }
    });
}

/// Base conversion with AVX2 64-bit lanes.
///
/// # Safety
/// AVX2 and FMA; every modulus odd and at most 61 bits; `input` holds `l * n` words,
/// `output` `out_limbs * n` (`out_limbs <= to.len()`), `scratch` `(l + 1) * min(bl, n)`.
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn convert(
    t: &ConvTables,
    exact: bool,
    input: &[u64],
    output: &mut [u64],
    n: usize,
    out_limbs: usize,
    bl: usize,
    scratch: &mut [u64],
) {
    if exact {
        convert_impl::<true>(t, input, output, n, out_limbs, bl, scratch)
    } else {
        convert_impl::<false>(t, input, output, n, out_limbs, bl, scratch)
    }
}
