//! AVX2 NTT kernels: four 64-bit lanes, Shoup multiplication with `w' = floor(w 2^64 / q)`
//! exactly as the scalar code (so the lazy forward results are bit-identical to it), the
//! 64x64-bit products built from `vpmuludq` and `vpmulld` partial products
//! (`math/simd.rs`, module `avx2`). Any `q < 2^62`.
//!
//! The structure is `avx512.rs`'s, at half the vector width:
//!
//! * stages of distance `t >= 8` work on whole vectors with a broadcast twiddle, two at a
//!   time (radix-4 passes); with an odd number of them the first forward stage (the last
//!   inverse one) is a radix-2 pass;
//! * large transforms are split breadth-first into [`BLOCK`]-coefficient blocks, each then
//!   finished depth-first while it sits in L1;
//! * the three stages of distance `4, 2, 1` run in registers on 8 coefficients (two
//!   vectors) with in-register transposes, together with the final correction (forward)
//!   or the first stages (inverse).
//!
//! # Bounds
//!
//! As the other backends: Harvey's lazy butterflies keep forward values in `[0, 4q)` and
//! inverse values in `[0, 2q)`; the Shoup product returns `[0, 2q)` for any input. The
//! conditional subtractions ([`csub`]) need `x < 2c` and `c <= 2^63`: every one here
//! subtracts `2q < 2^63` from a value below `4q`, or `q` from a value below `2q`. The
//! reduced transforms for `q < 2^61` use the loose product instead (`[0, 4q)`, see
//! [`Shoup64`]), and every bound doubles: `4q < 2^63` is subtracted from values below
//! `8q`.

use super::avx512::InvLast;
use super::LOOSE_MAX_Q;
use crate::math::simd::avx2::{csub, shoup_mul, shoup_mul_loose, splat, swap32};
use core::arch::x86_64::*;

/// Coefficients per depth-first block: `2048 * 8` bytes of data plus the twiddles it reads
/// stay within a 32 KiB L1 (AMD Zen, most Intel client cores).
pub(super) const BLOCK: usize = 1 << 11;

/// The lane arithmetic of the butterflies, with the twiddle table it reads: [`Shoup64`]
/// (integer lanes, this file) or `avx2_f64::F64` (exact `f64` FMA arithmetic, `q < 2^50`).
/// Data always travel as `__m256i` (bit patterns, the casts are free); the arithmetic
/// decides what the bits mean between the first and the last stage.
pub(super) trait Arith: Copy {
    /// A twiddle vector and whatever the multiplication needs next to it.
    type Tw: Copy;
    /// Twiddle `k` in every lane.
    unsafe fn tw_bc(self, k: usize) -> Self::Tw;
    /// Twiddles `[w_k w_k w_{k+1} w_{k+1}]`.
    unsafe fn tw_pair(self, k: usize) -> Self::Tw;
    /// Twiddles `w_k .. w_{k+3}`.
    unsafe fn tw_four(self, k: usize) -> Self::Tw;
    /// Cooley-Tukey butterfly `x + w y, x - w y`.
    unsafe fn ct(self, x: __m256i, y: __m256i, t: Self::Tw) -> (__m256i, __m256i);
    /// Gentleman-Sande butterfly `x + y, (x - y) w`.
    unsafe fn gs(self, x: __m256i, y: __m256i, t: Self::Tw) -> (__m256i, __m256i);
    /// The inverse's last butterfly with `N^-1` folded in, results as `u64` words in
    /// `[0, 2q)` (`[0, q)` when `REDUCE`).
    unsafe fn gs_last<const REDUCE: bool>(self, x: __m256i, y: __m256i) -> (__m256i, __m256i);
    /// The forward's final correction of a value, as a `u64` word in `[0, 2q)` (`[0, q)`
    /// when `REDUCE`).
    unsafe fn fwd_out<const REDUCE: bool>(self, x: __m256i) -> __m256i;
    /// An input word (in `[0, 2q)`) as the arithmetic holds it, applied by the first stage
    /// of either transform to every coefficient.
    unsafe fn load_in(self, x: __m256i) -> __m256i;
}

/// Integer lanes: Shoup multiplication with 64-bit companions, exactly the scalar
/// arithmetic; with `LOOSE` (`q < 2^61`, the reduced transforms only), the quotient from
/// three partial products ([`shoup_mul_loose`], products in `[0, 4q)`): the butterflies'
/// bound `b` is then `4q` instead of `2q` (forward values below `8q`, inverse values below
/// `4q`) and the last stage corrects once more, so the reduced words are the same.
#[derive(Clone, Copy)]
pub(super) struct Shoup64<const LOOSE: bool> {
    q: __m256i,
    q_sw: __m256i,
    two_q: __m256i,
    /// The products' bound: `2q`, or `4q` when `LOOSE`.
    b: __m256i,
    w: *const u64,
    ws: *const u64,
    /// The last inverse stage's twiddles (`N^-1`, and `ψ^-brv(1) N^-1`).
    last: [Tw; 2],
}

/// A twiddle vector with its Shoup companion, both also with their 32-bit halves swapped.
#[derive(Clone, Copy)]
pub(super) struct Tw {
    w: __m256i,
    w_sw: __m256i,
    ws: __m256i,
    ws_sw: __m256i,
}

#[inline(always)]
unsafe fn tw(w: __m256i, ws: __m256i) -> Tw {
    Tw {
        w,
        w_sw: swap32(w),
        ws,
        ws_sw: swap32(ws),
    }
}

impl<const LOOSE: bool> Shoup64<LOOSE> {
    /// The constants for `q < 2^62` (`q < 2^61` when `LOOSE`) and the twiddle table `w`,
    /// `ws` (`last` for the inverse).
    ///
    /// # Safety
    /// Needs AVX2; the tables must outlive the value.
    #[inline(always)]
    unsafe fn new(q: u64, w: &[u64], ws: &[u64], last: Option<&InvLast>) -> Self {
        let qv = splat(q);
        let l = last.map_or([0; 4], |l| [l.n_inv, l.n_inv_s, l.w, l.ws]);
        debug_assert!(!LOOSE || q < LOOSE_MAX_Q);
        Shoup64 {
            q: qv,
            q_sw: swap32(qv),
            two_q: splat(2 * q),
            b: splat(if LOOSE { 4 * q } else { 2 * q }),
            w: w.as_ptr(),
            ws: ws.as_ptr(),
            last: [tw(splat(l[0]), splat(l[1])), tw(splat(l[2]), splat(l[3]))],
        }
    }

    /// `y * w mod q` in `[0, b)`, for any `y`.
    #[inline(always)]
    unsafe fn mul(self, y: __m256i, t: Tw) -> __m256i {
        if LOOSE {
            shoup_mul_loose(y, t.w, t.w_sw, t.ws, t.ws_sw, self.q, self.q_sw)
        } else {
            shoup_mul(y, t.w, t.w_sw, t.ws, t.ws_sw, self.q, self.q_sw)
        }
    }
}

impl<const LOOSE: bool> Arith for Shoup64<LOOSE> {
    type Tw = Tw;

    #[inline(always)]
    unsafe fn tw_bc(self, k: usize) -> Tw {
        tw(splat(*self.w.add(k)), splat(*self.ws.add(k)))
    }

    #[inline(always)]
    unsafe fn tw_pair(self, k: usize) -> Tw {
        tw(pair(self.w.add(k)), pair(self.ws.add(k)))
    }

    #[inline(always)]
    unsafe fn tw_four(self, k: usize) -> Tw {
        tw(ld(self.w.add(k)), ld(self.ws.add(k)))
    }

    /// `x, y` in `[0, 2b)` to `x + wy, x - wy` in `[0, 2b)` (`[0, 4q)` when exact).
    #[inline(always)]
    unsafe fn ct(self, x: __m256i, y: __m256i, t: Tw) -> (__m256i, __m256i) {
        let u = csub(x, self.b);
        let v = self.mul(y, t);
        (
            _mm256_add_epi64(u, v),
            _mm256_sub_epi64(_mm256_add_epi64(u, self.b), v),
        )
    }

    /// `x, y` in `[0, b)` to `x + y, (x - y) w` in `[0, b)` (`[0, 2q)` when exact).
    #[inline(always)]
    unsafe fn gs(self, x: __m256i, y: __m256i, t: Tw) -> (__m256i, __m256i) {
        let s = csub(_mm256_add_epi64(x, y), self.b);
        let d = _mm256_sub_epi64(_mm256_add_epi64(x, self.b), y);
        (s, self.mul(d, t))
    }

    /// `(x + y) / N, (x - y) w / N`; `x + y < 2b` is a valid product input.
    #[inline(always)]
    unsafe fn gs_last<const REDUCE: bool>(self, x: __m256i, y: __m256i) -> (__m256i, __m256i) {
        let mut s = self.mul(_mm256_add_epi64(x, y), self.last[0]);
        let mut d = self.mul(
            _mm256_sub_epi64(_mm256_add_epi64(x, self.b), y),
            self.last[1],
        );
        if LOOSE {
            (s, d) = (csub(s, self.two_q), csub(d, self.two_q));
        }
        if REDUCE {
            (csub(s, self.q), csub(d, self.q))
        } else {
            (s, d)
        }
    }

    /// `[0, 2b)` to `[0, 2q)`, then `[0, q)`.
    #[inline(always)]
    unsafe fn fwd_out<const REDUCE: bool>(self, x: __m256i) -> __m256i {
        let mut x = csub(x, self.b);
        if LOOSE {
            x = csub(x, self.two_q);
        }
        if REDUCE {
            csub(x, self.q)
        } else {
            x
        }
    }

    #[inline(always)]
    unsafe fn load_in(self, x: __m256i) -> __m256i {
        x
    }
}

#[inline(always)]
pub(super) unsafe fn ld(p: *const u64) -> __m256i {
    _mm256_loadu_si256(p as *const __m256i)
}

#[inline(always)]
pub(super) unsafe fn st(p: *mut u64, v: __m256i) {
    _mm256_storeu_si256(p as *mut __m256i, v)
}

/// `[p0 p0 p1 p1]` from `p[0..2]`.
#[inline(always)]
pub(super) unsafe fn pair(p: *const u64) -> __m256i {
    _mm256_permute4x64_epi64::<0b01_01_00_00>(_mm256_castsi128_si256(_mm_loadu_si128(
        p as *const __m128i,
    )))
}

// ---------------------------------------------------------------------------------------
// Forward (Cooley-Tukey, natural order in, bit-reversed order out).
// Twiddle index of group `g` at a stage with `m` groups is `m + g` (table `w[brv]`).
// ---------------------------------------------------------------------------------------

/// Loads a vector, through [`Arith::load_in`] at the transform's first stage.
#[inline(always)]
unsafe fn ld_in<M: Arith, const FIRST: bool>(m: M, p: *const u64) -> __m256i {
    if FIRST {
        m.load_in(ld(p))
    } else {
        ld(p)
    }
}

/// One radix-2 stage of distance `t >= 4` on `len` coefficients at `p`, whose first group
/// has global index `g0` among the `mg` groups of the stage (`FIRST`: the transform's
/// first stage).
#[inline(always)]
unsafe fn fwd_r2<M: Arith, const FIRST: bool>(
    m: M,
    p: *mut u64,
    len: usize,
    t: usize,
    mg: usize,
    g0: usize,
) {
    for i in 0..len / (2 * t) {
        let w1 = m.tw_bc(mg + g0 + i);
        let base = p.add(2 * i * t);
        let mut j = 0;
        while j < t {
            let x = ld_in::<M, FIRST>(m, base.add(j));
            let (x, y) = m.ct(x, ld_in::<M, FIRST>(m, base.add(t + j)), w1);
            st(base.add(j), x);
            st(base.add(t + j), y);
            j += 4;
        }
    }
}

/// Two stages (distances `t` and `t/2`, `t >= 16`) in one pass; arguments as [`fwd_r2`].
#[inline(always)]
unsafe fn fwd_r4<M: Arith, const FIRST: bool>(
    m: M,
    p: *mut u64,
    len: usize,
    t: usize,
    mg: usize,
    g0: usize,
) {
    let h = t / 2;
    for i in 0..len / (2 * t) {
        let k = mg + g0 + i;
        let w1 = m.tw_bc(k);
        let w2 = m.tw_bc(2 * k);
        let w3 = m.tw_bc(2 * k + 1);
        let base = p.add(2 * i * t);
        let mut j = 0;
        while j < h {
            let x0 = ld_in::<M, FIRST>(m, base.add(j));
            let x1 = ld_in::<M, FIRST>(m, base.add(h + j));
            let x2 = ld_in::<M, FIRST>(m, base.add(t + j));
            let x3 = ld_in::<M, FIRST>(m, base.add(t + h + j));
            let (x0, x2) = m.ct(x0, x2, w1);
            let (x1, x3) = m.ct(x1, x3, w1);
            let (x0, x1) = m.ct(x0, x1, w2);
            let (x2, x3) = m.ct(x2, x3, w3);
            st(base.add(j), x0);
            st(base.add(h + j), x1);
            st(base.add(t + j), x2);
            st(base.add(t + h + j), x3);
            j += 4;
        }
    }
}

/// Layouts of an 8-coefficient chunk `a = c0..c3`, `b = c4..c7` (the chunk's
/// coefficients, natural order):
/// * natural: `a | b` (distance-4 pairs);
/// * `x`: `x0 = c0 c1 c4 c5`, `x1 = c2 c3 c6 c7` (distance 2), `perm2x128` of `a, b`;
/// * `y`: `y0 = c0 c2 c4 c6`, `y1 = c1 c3 c5 c7` (distance 1), `unpack{lo,hi}` of `x`.
///
/// `unpack{lo,hi}` of `y` gives `x` back, and `perm2x128` of `x` gives `a, b` back.
#[inline(always)]
unsafe fn halves(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    (
        _mm256_permute2x128_si256::<0x20>(a, b),
        _mm256_permute2x128_si256::<0x31>(a, b),
    )
}

#[inline(always)]
unsafe fn unpack(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b))
}

/// The last three forward stages (`t = 4, 2, 1`) on `len` coefficients at `p`, whose
/// first 8-chunk has global index `c0`, plus the final correction
/// ([`Arith::fwd_out`]). Two independent chunks per iteration: one chunk is a chain of
/// three dependent butterflies; more chunks would not fit the sixteen registers.
#[inline(always)]
unsafe fn fwd_tail<M: Arith, const REDUCE: bool>(
    m: M,
    p: *mut u64,
    len: usize,
    n: usize,
    c0: usize,
) {
    if len >= 16 {
        fwd_tail_k::<M, REDUCE, 2>(m, p, len, n, c0)
    } else {
        fwd_tail_k::<M, REDUCE, 1>(m, p, len, n, c0)
    }
}

/// [`fwd_tail`], `K` chunks at a time.
#[inline(always)]
unsafe fn fwd_tail_k<M: Arith, const REDUCE: bool, const K: usize>(
    m: M,
    p: *mut u64,
    len: usize,
    n: usize,
    c0: usize,
) {
    let zero = _mm256_setzero_si256();
    let mut ch = 0;
    while ch < len / 8 {
        let (mut a, mut b) = ([zero; K], [zero; K]);
        // t = 4: a vs b.
        for k in 0..K {
            let pa = p.add(8 * (ch + k));
            (a[k], b[k]) = m.ct(ld(pa), ld(pa.add(4)), m.tw_bc(n / 8 + c0 + ch + k));
        }
        // t = 2 (x layout).
        for k in 0..K {
            let (x0, x1) = halves(a[k], b[k]);
            (a[k], b[k]) = m.ct(x0, x1, m.tw_pair(n / 4 + 2 * (c0 + ch + k)));
        }
        // t = 1 (y layout), the final correction, and back to natural order.
        for k in 0..K {
            let (y0, y1) = unpack(a[k], b[k]);
            let (y0, y1) = m.ct(y0, y1, m.tw_four(n / 2 + 4 * (c0 + ch + k)));
            let (y0, y1) = (m.fwd_out::<REDUCE>(y0), m.fwd_out::<REDUCE>(y1));
            let (x0, x1) = unpack(y0, y1);
            let (a0, b0) = halves(x0, x1);
            let pa = p.add(8 * (ch + k));
            st(pa, a0);
            st(pa.add(4), b0);
        }
        ch += K;
    }
}

/// Full forward transform, `n >= 16` (input and output as [`Arith`] says).
#[inline(always)]
pub(super) unsafe fn forward<M: Arith, const REDUCE: bool>(m: M, a: &mut [u64]) {
    let n = a.len();
    debug_assert!(n >= 16 && n.is_power_of_two());
    let p = a.as_mut_ptr();
    let mut t = n / 2;
    let mut mg = 1;
    // Whether the first stage (which converts the input, `Arith::load_in`) is still to run.
    let mut first = true;
    // Stages t = n/2 .. 8 are vector stages; pair them up, a radix-2 stage first if odd.
    if (n.trailing_zeros() - 3) % 2 == 1 {
        fwd_r2::<M, true>(m, p, n, t, mg, 0);
        first = false;
        t /= 2;
        mg *= 2;
    }
    // Breadth-first until the sub-transforms (groups of 2t) fit a block.
    while 2 * t > BLOCK && t >= 16 {
        if first {
            fwd_r4::<M, true>(m, p, n, t, mg, 0);
            first = false;
        } else {
            fwd_r4::<M, false>(m, p, n, t, mg, 0);
        }
        t /= 4;
        mg *= 4;
    }
    // Depth-first: finish each group of 2t coefficients (the first stage, if it is still
    // to run, is the first pass over the single group: mg = 1 then).
    let len = 2 * t;
    for g in 0..mg {
        let pb = p.add(g * len);
        let (mut tt, mut mm, mut gg) = (t, mg, g);
        while tt >= 16 {
            if first {
                debug_assert!(mg == 1 && tt == t);
                fwd_r4::<M, true>(m, pb, len, tt, mm, gg);
                first = false;
            } else {
                fwd_r4::<M, false>(m, pb, len, tt, mm, gg);
            }
            tt /= 4;
            mm *= 4;
            gg *= 4;
        }
        debug_assert_eq!(tt, 4);
        fwd_tail::<M, REDUCE>(m, pb, len, n, g * len / 8);
    }
}

// ---------------------------------------------------------------------------------------
// Inverse (Gentleman-Sande, bit-reversed order in, natural order out).
// At distance t there are h = n / 2t groups; group g uses twiddle index h + g.
// ---------------------------------------------------------------------------------------

/// The first three inverse stages (`t = 1, 2, 4`) on `len` coefficients at `p`, whose
/// first 8-chunk has global index `c0` (never the last stage: `n >= 16`); the first of
/// them converts the input ([`Arith::load_in`]).
#[inline(always)]
unsafe fn inv_head<M: Arith>(m: M, p: *mut u64, len: usize, n: usize, c0: usize) {
    if len >= 16 {
        inv_head_k::<M, 2>(m, p, len, n, c0)
    } else {
        inv_head_k::<M, 1>(m, p, len, n, c0)
    }
}

/// [`inv_head`], `K` chunks at a time.
#[inline(always)]
unsafe fn inv_head_k<M: Arith, const K: usize>(m: M, p: *mut u64, len: usize, n: usize, c0: usize) {
    let zero = _mm256_setzero_si256();
    let mut ch = 0;
    while ch < len / 8 {
        let (mut a, mut b) = ([zero; K], [zero; K]);
        // t = 1 (y layout).
        for k in 0..K {
            let pa = p.add(8 * (ch + k));
            let (x0, x1) = halves(m.load_in(ld(pa)), m.load_in(ld(pa.add(4))));
            let (y0, y1) = unpack(x0, x1);
            (a[k], b[k]) = m.gs(y0, y1, m.tw_four(n / 2 + 4 * (c0 + ch + k)));
        }
        // t = 2 (x layout).
        for k in 0..K {
            let (x0, x1) = unpack(a[k], b[k]);
            (a[k], b[k]) = m.gs(x0, x1, m.tw_pair(n / 4 + 2 * (c0 + ch + k)));
        }
        // t = 4 (natural order).
        for k in 0..K {
            let (a0, b0) = halves(a[k], b[k]);
            let (a0, b0) = m.gs(a0, b0, m.tw_bc(n / 8 + c0 + ch + k));
            let pa = p.add(8 * (ch + k));
            st(pa, a0);
            st(pa.add(4), b0);
        }
        ch += K;
    }
}

/// Inverse stages `t` and `2t` (`t >= 8`) in one pass over `len` coefficients at `p`,
/// which start at global offset `off`. `LAST` when `4t == n`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn inv_r4<M: Arith, const LAST: bool, const REDUCE: bool>(
    m: M,
    p: *mut u64,
    len: usize,
    off: usize,
    t: usize,
    n: usize,
) {
    let h = n / (2 * t);
    for i in 0..len / (4 * t) {
        let kk = off / (4 * t) + i;
        let w1 = m.tw_bc(h + 2 * kk);
        let w2 = m.tw_bc(h + 2 * kk + 1);
        let w3 = m.tw_bc(h / 2 + kk);
        let base = p.add(4 * i * t);
        let mut j = 0;
        while j < t {
            let x0 = ld(base.add(j));
            let x1 = ld(base.add(t + j));
            let x2 = ld(base.add(2 * t + j));
            let x3 = ld(base.add(3 * t + j));
            let (x0, x1) = m.gs(x0, x1, w1);
            let (x2, x3) = m.gs(x2, x3, w2);
            let ((x0, x2), (x1, x3)) = if LAST {
                (m.gs_last::<REDUCE>(x0, x2), m.gs_last::<REDUCE>(x1, x3))
            } else {
                (m.gs(x0, x2, w3), m.gs(x1, x3, w3))
            };
            st(base.add(j), x0);
            st(base.add(t + j), x1);
            st(base.add(2 * t + j), x2);
            st(base.add(3 * t + j), x3);
            j += 4;
        }
    }
}

/// The inverse's last stage alone (`t = n/2`), with `N^-1` folded in.
#[inline(always)]
unsafe fn inv_r2_last<M: Arith, const REDUCE: bool>(m: M, p: *mut u64, n: usize) {
    let t = n / 2;
    let mut j = 0;
    while j < t {
        let (x, y) = m.gs_last::<REDUCE>(ld(p.add(j)), ld(p.add(t + j)));
        st(p.add(j), x);
        st(p.add(t + j), y);
        j += 4;
    }
}

/// Full inverse transform with the `N^-1` factor, `n >= 16` (input and output as
/// [`Arith`] says).
#[inline(always)]
pub(super) unsafe fn inverse<M: Arith, const REDUCE: bool>(m: M, a: &mut [u64]) {
    let n = a.len();
    debug_assert!(n >= 16 && n.is_power_of_two());
    let p = a.as_mut_ptr();
    // Depth-first over blocks: head, then stage pairs (8, 16), (32, 64), ... that stay
    // inside the block.
    let len = n.min(BLOCK);
    let mut t_block = 8;
    for b in 0..n / len {
        let off = b * len;
        let pb = p.add(off);
        inv_head(m, pb, len, n, off / 8);
        let mut t = 8;
        while 4 * t <= len {
            if 4 * t == n {
                inv_r4::<M, true, REDUCE>(m, pb, len, off, t, n);
            } else {
                inv_r4::<M, false, REDUCE>(m, pb, len, off, t, n);
            }
            t *= 4;
        }
        t_block = t;
    }
    // Breadth-first for the remaining stage pairs, then a lone last stage if any.
    let mut t = t_block;
    while 4 * t <= n {
        if 4 * t == n {
            inv_r4::<M, true, REDUCE>(m, p, n, 0, t, n);
        } else {
            inv_r4::<M, false, REDUCE>(m, p, n, 0, t, n);
        }
        t *= 4;
    }
    if 2 * t == n {
        inv_r2_last::<M, REDUCE>(m, p, n);
    }
}

/// Forward transform with integer lanes, `[0, 2q)` to `[0, 2q)`.
///
/// # Safety
/// The CPU must support AVX2 and FMA; `a.len() >= 16` is a power of two; `q < 2^62`;
/// `w` and `ws` are the plan's forward twiddles and companions (`a.len()` entries each).
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn forward_lazy(a: &mut [u64], q: u64, w: &[u64], ws: &[u64]) {
    forward::<_, false>(Shoup64::<false>::new(q, w, ws, None), a)
}

/// Forward transform with integer lanes, `[0, 2q)` to `[0, q)`; for `q < 2^61` with the
/// loose products of [`Shoup64`] (the same words, fewer operations).
///
/// # Safety
/// As [`forward_lazy`].
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn forward_reduced(a: &mut [u64], q: u64, w: &[u64], ws: &[u64]) {
    if q < LOOSE_MAX_Q {
        forward::<_, true>(Shoup64::<true>::new(q, w, ws, None), a)
    } else {
        forward::<_, true>(Shoup64::<false>::new(q, w, ws, None), a)
    }
}

/// Inverse transform (with `N^-1`) with integer lanes, `[0, 2q)` to `[0, 2q)`.
///
/// # Safety
/// As [`forward_lazy`], with the inverse twiddles, and `last` the plan's.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn inverse_lazy(a: &mut [u64], q: u64, w: &[u64], ws: &[u64], last: &InvLast) {
    inverse::<_, false>(Shoup64::<false>::new(q, w, ws, Some(last)), a)
}

/// Inverse transform (with `N^-1`) with integer lanes, `[0, 2q)` to `[0, q)`; for
/// `q < 2^61` with the loose products of [`Shoup64`], as [`forward_reduced`].
///
/// # Safety
/// As [`inverse_lazy`].
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn inverse_reduced(a: &mut [u64], q: u64, w: &[u64], ws: &[u64], last: &InvLast) {
    if q < LOOSE_MAX_Q {
        inverse::<_, true>(Shoup64::<true>::new(q, w, ws, Some(last)), a)
    } else {
        inverse::<_, true>(Shoup64::<false>::new(q, w, ws, Some(last)), a)
    }
}
