//! The AVX-512 fast base conversion (see [`BaseConverter`](crate::math::rns::BaseConverter)):
//! the `y_i` Shoup products, the `f64` sum for `v` in the scalar order, and the output
//! sums with lazy reduction, on [`Wide`]'s 64-bit lanes or, for output primes below
//! `2^50`, on [`Ifma`]'s 52-bit lanes with larger operands split at [`SPLIT`] bits.

use super::*;
use crate::math::kernels::{IFMA_MAX_Q, MONT_TERMS};

/// Operands at or above `2^50` are split at this bit for the IFMA sums of products.
const SPLIT: u32 = 50;

/// The tables of one [`BaseConverter`](crate::math::rns::BaseConverter), `l` input and
/// `to.len()` output primes.
pub(crate) struct ConvTables<'a> {
    /// Input moduli.
    pub from: &'a [LaneConsts],
    /// `[(Q/q_i)^-1]_{q_i}` with 64-bit and 52-bit (`q_i < 2^50`, else 0) companions.
    pub q_hat_inv: &'a [u64],
    pub q_hat_inv_shoup: &'a [u64],
    pub q_hat_inv_shoup52: &'a [u64],
    /// `1 / q_i`.
    pub inv_q: &'a [f64],
    /// Output moduli.
    pub to: &'a [LaneConsts],
    /// `[Q/q_i]_{p_j}` at `j * l + i`, the same with its 32-bit halves swapped, and
    /// `[(Q/q_i) 2^50]_{p_j}` (the constant of the high part of a split operand).
    pub c: &'a [u64],
    pub c_sw: &'a [u64],
    /// `c` and `c_sw` each in four lanes, at `2 (j l + i)` and `2 (j l + i) + 1` (AVX2).
    pub c_x4: &'a [[u64; 4]],
    /// `c` as `f64` in four lanes, at `j l + i` (AVX2, output primes below `2^50`).
    pub c_f64x4: &'a [[f64; 4]],
    pub c_split: &'a [u64],
    /// `[-Q]_{p_j}`, and with halves swapped.
    pub neg_q: &'a [u64],
    pub neg_q_sw: &'a [u64],
    /// `c` and `neg_q` in Montgomery form (times `2^64` modulo `p_j`), each with halves
    /// swapped too: the 64-bit lanes' sums of at most [`MONT_TERMS`] products.
    pub c_mont: &'a [u64],
    pub c_mont_sw: &'a [u64],
    /// `c_mont` and `c_mont_sw` in four lanes, laid out as `c_x4` (AVX2).
    pub c_mont_x4: &'a [[u64; 4]],
    pub neg_q_mont: &'a [u64],
    pub neg_q_mont_sw: &'a [u64],
}

/// `v = round(s)` for lanes `s >= 0` exactly as `f64::round` (half away from zero):
/// `trunc(s) + (s - trunc(s) >= 1/2)`, the difference being exact.
#[inline(always)]
unsafe fn round_pos(s: __m512d) -> __m512i {
    let t = _mm512_roundscale_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(s);
    let half = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(_mm512_sub_pd(s, t), _mm512_set1_pd(0.5));
    let v = _mm512_cvttpd_epu64(t);
    _mm512_mask_add_epi64(v, half, v, _mm512_set1_epi64(1))
}

/// The conversion (see [`BaseConverter`](crate::math::rns::BaseConverter)): blocks of
/// `bl` coefficients; per block the `y` rows (stride `len`) and `v` live in `scratch`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn convert<const IFMA: bool, const EXACT: bool>(
    t: &ConvTables,
    input: &[u64],
    output: &mut [u64],
    n: usize,
    out_limbs: usize,
    bl: usize,
    scratch: &mut [u64],
) {
    let l = t.from.len();
    let mut k0 = 0;
    while k0 < n {
        let len = bl.min(n - k0);
        let (y, rest) = scratch.split_at_mut(l * len);
        let (py, pv) = (y.as_mut_ptr(), rest.as_mut_ptr());
        // y_i = [x_i (Q/q_i)^-1]_{q_i}, and v = round(sum_i y_i / q_i) summed in the
        // scalar order (mul then add, no fma) for bit-identical rounding.
        chunks!(len, |kk, m| {
            let mut s = _mm512_setzero_pd();
            for i in 0..l {
                let fi = t.from.get_unchecked(i);
                let x = ld(input.as_ptr().add(i * n + k0 + kk), m);
                let w = bcast(*t.q_hat_inv.get_unchecked(i));
                let yi = if IFMA && fi.q < IFMA_MAX_Q {
                    let ws = bcast(*t.q_hat_inv_shoup52.get_unchecked(i));
                    let r = shoup_mul_ifma(
                        x,
                        w,
                        ws,
                        bcast((1u64 << 52) - fi.q),
                        bcast((1u64 << 52) - 1),
                    );
                    csub(r, bcast(fi.q))
                } else {
                    let ws = bcast(*t.q_hat_inv_shoup.get_unchecked(i));
                    csub(shoup_mul_wide(x, w, ws, bcast(fi.q)), bcast(fi.q))
                };
                st(py.add(i * len + kk), m, yi);
                if EXACT {
                    let f = _mm512_cvtepu64_pd(yi);
                    s = _mm512_add_pd(
                        s,
                        _mm512_mul_pd(f, _mm512_set1_pd(*t.inv_q.get_unchecked(i))),
                    );
                }
            }
            if EXACT {
                st(pv.add(kk), m, round_pos(s));
            }
        });
        // out_j = [sum_i y_i [Q/q_i]_{p_j} + v [-Q]_{p_j}]_{p_j}, two output limbs of the
        // same lane kind at a time (shared loads of y, two independent dependency chains);
        // 64-bit lanes end in one Montgomery reduction where the terms allow.
        let mont = l + EXACT as usize <= MONT_TERMS;
        let mut j = 0;
        while j < out_limbs {
            let ifma_at = |j: usize| IFMA && t.to.get_unchecked(j).q < IFMA_MAX_Q;
            let out = output.as_mut_ptr().add(j * n + k0);
            let pair = j + 1 < out_limbs && ifma_at(j) == ifma_at(j + 1);
            let (t0, t1) = (
                t.to.get_unchecked(j),
                t.to.get_unchecked((j + 1).min(out_limbs - 1)),
            );
            match (ifma_at(j), pair) {
                (true, true) => convert_out_ifma::<EXACT, 2>(
                    t,
                    [Ifma::new(t0), Ifma::new(t1)],
                    j,
                    py,
                    pv,
                    len,
                    out,
                    n,
                ),
                (true, false) => {
                    convert_out_ifma::<EXACT, 1>(t, [Ifma::new(t0)], j, py, pv, len, out, n)
                }
                (false, true) if mont => convert_out_wide::<EXACT, 2, true>(
                    t,
                    [Wide::new(t0), Wide::new(t1)],
                    j,
                    py,
                    pv,
                    len,
                    out,
                    n,
                ),
                (false, true) => convert_out_wide::<EXACT, 2, false>(
                    t,
                    [Wide::new(t0), Wide::new(t1)],
                    j,
                    py,
                    pv,
                    len,
                    out,
                    n,
                ),
                (false, false) if mont => {
                    convert_out_wide::<EXACT, 1, true>(t, [Wide::new(t0)], j, py, pv, len, out, n)
                }
                (false, false) => {
                    convert_out_wide::<EXACT, 1, false>(t, [Wide::new(t0)], j, py, pv, len, out, n)
                }
            }
            j += 1 + pair as usize;
        }
        k0 += len;
    }
}

/// `J` output limbs `j0..j0 + J` of a block with 64-bit lanes (the `y_i` and constants
/// are below `2^61`, `v` below `2^7`: [`Wide`]'s accumulator bounds hold). `out` points
/// at limb `j0` of the block, limbs `n` words apart.
///
/// `MONT` (at most [`MONT_TERMS`] terms, `v` included): the constants' Montgomery forms
/// `[c 2^64]_{p_j}`, so the sum `x < 8 · 2^61 p_j = p_j 2^64` needs no fold and
/// [`Wide::acc_redc`]'s `x 2^-64 mod p_j` is the same residue as the Barrett path's
/// (one `vpmullq` and four `vpmuludq` per output, against two Shoup products).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn convert_out_wide<const EXACT: bool, const J: usize, const MONT: bool>(
    t: &ConvTables,
    ar: [Wide; J],
    j0: usize,
    py: *const u64,
    pv: *const u64,
    len: usize,
    out: *mut u64,
    n: usize,
) {
    let l = t.from.len();
    let zero = _mm512_setzero_si512();
    let (c, c_sw, nq, nq_sw) = if MONT {
        debug_assert!(l + EXACT as usize <= MONT_TERMS);
        (t.c_mont, t.c_mont_sw, t.neg_q_mont, t.neg_q_mont_sw)
    } else {
        (t.c, t.c_sw, t.neg_q, t.neg_q_sw)
    };
    chunks!(len, |kk, m| {
        let mut s = [[zero; 4]; J];
        let mut terms = 0;
        if EXACT {
            let v = ld(pv.add(kk), m);
            let v_sw = swap32(v);
            for u in 0..J {
                let nq = bcast(*nq.get_unchecked(j0 + u));
                let nq_sw = bcast(*nq_sw.get_unchecked(j0 + u));
                ar[u].acc_mul_sw(&mut s[u], v, v_sw, nq, nq_sw);
            }
            terms = 1;
        }
        for i in 0..l {
            // (MONT: at most MONT_TERMS terms, neither a reduction nor a fold.)
            if !MONT && terms == Wide::TERMS {
                for u in 0..J {
                    let r = ar[u].acc_reduce(s[u]);
                    s[u] = ar[u].acc_new(r);
                }
                terms = 0;
            } else if !MONT && terms > 0 && terms % Wide::FOLD == 0 {
                for u in 0..J {
                    ar[u].acc_fold(&mut s[u]);
                }
            }
            let y = ld(py.add(i * len + kk), m);
            let y_sw = swap32(y);
            for u in 0..J {
                let at = (j0 + u) * l + i;
                let (c, c_sw) = (bcast(*c.get_unchecked(at)), bcast(*c_sw.get_unchecked(at)));
                ar[u].acc_mul_sw(&mut s[u], y, y_sw, c, c_sw);
            }
            terms += 1;
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

/// `J` output limbs of a block with 52-bit lanes (`p_j < 2^50`; arguments as
/// [`convert_out_wide`]). Operands `y_i` of primes at or above `2^50` are split as
/// `(y_i mod 2^50) + 2^50 (y_i >> 50)`, two terms with constants `[Q/q_i]_{p_j}` and
/// `[(Q/q_i) 2^50]_{p_j}`: every operand is then below `2^50`, as [`Ifma`]'s accumulator
/// bounds require.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn convert_out_ifma<const EXACT: bool, const J: usize>(
    t: &ConvTables,
    ar: [Ifma; J],
    j0: usize,
    py: *const u64,
    pv: *const u64,
    len: usize,
    out: *mut u64,
    n: usize,
) {
    let l = t.from.len();
    let zero = _mm512_setzero_si512();
    let m50 = bcast((1u64 << SPLIT) - 1);
    chunks!(len, |kk, m| {
        let mut s = [[zero; 2]; J];
        let mut terms = 0;
        if EXACT {
            let v = ld(pv.add(kk), m);
            for u in 0..J {
                ar[u].acc_mul(&mut s[u], v, bcast(*t.neg_q.get_unchecked(j0 + u)));
            }
            terms = 1;
        }
        for i in 0..l {
            let split = t.from.get_unchecked(i).q >= IFMA_MAX_Q;
            let need = 1 + split as usize;
            if terms + need > Ifma::TERMS {
                for u in 0..J {
                    let r = ar[u].acc_reduce(s[u]);
                    s[u] = ar[u].acc_new(r);
                }
                terms = 0;
            }
            let y = ld(py.add(i * len + kk), m);
            if split {
                let (y_lo, y_hi) = (_mm512_and_si512(y, m50), _mm512_srli_epi64::<50>(y));
                for u in 0..J {
                    let at = (j0 + u) * l + i;
                    ar[u].acc_mul(&mut s[u], y_lo, bcast(*t.c.get_unchecked(at)));
                    ar[u].acc_mul(&mut s[u], y_hi, bcast(*t.c_split.get_unchecked(at)));
                }
            } else {
                for u in 0..J {
                    let at = (j0 + u) * l + i;
                    ar[u].acc_mul(&mut s[u], y, bcast(*t.c.get_unchecked(at)));
                }
            }
            terms += need;
        }
        for u in 0..J {
            st(out.add(u * n + kk), m, ar[u].acc_reduce(s[u]));
        }
    });
}

/// Base conversion with 64-bit lanes only.
///
/// # Safety
/// AVX-512F/DQ; every modulus odd and at most 61 bits; `input` holds `l * n` words,
/// `output` `out_limbs * n` (`out_limbs <= to.len()`), `scratch` `(l + 1) * min(bl, n)`;
/// `bl` a multiple of 8.
#[target_feature(enable = "avx512f,avx512dq")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn convert_wide(
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
        convert::<false, true>(t, input, output, n, out_limbs, bl, scratch)
    } else {
        convert::<false, false>(t, input, output, n, out_limbs, bl, scratch)
    }
}

/// Base conversion with 52-bit IFMA lanes for the primes below `2^50` and 64-bit lanes
/// for the others.
///
/// # Safety
/// As [`convert_wide`], and the CPU supports AVX-512 IFMA.
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn convert_ifma(
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
        convert::<true, true>(t, input, output, n, out_limbs, bl, scratch)
    } else {
        convert::<true, false>(t, input, output, n, out_limbs, bl, scratch)
    }
}
