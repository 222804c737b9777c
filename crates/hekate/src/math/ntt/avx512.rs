//! AVX-512 NTT kernels, generic over the lane multiplication ([`LaneMul`]).
//!
//! Three lane multiplications exist: [`Wide`] (this file, 64-bit lanes, Shoup with `2^64`,
//! the high product emulated with four `vpmuludq`), [`WideLoose`] (the same with the
//! quotient from three partial products, for `q < 2^61` and the reduced transforms only)
//! and `ifma::Ifma` (52-bit IFMA lanes); all are thin wrappers of the Shoup products in
//! `math/simd.rs`, which the element-wise kernels share.
//! The butterflies, stage merging and data movement are shared and written once here; the
//! entry points (`#[target_feature]` functions) instantiate them for one multiplication, so
//! everything below inlines into one function per (backend, direction, reduced/lazy).
//!
//! # Data flow (forward; the inverse mirrors it)
//!
//! * Stages with butterfly distance `t >= 16` work on whole vectors with a broadcast
//!   twiddle, two stages at a time (radix-4: four vectors in registers, two twiddle
//!   levels), so each pair of stages is one pass over memory. If the number of such stages
//!   is odd, the first stage (the last one for the inverse) is a radix-2 pass.
//! * The data is first split by breadth-first passes until the independent sub-transforms
//!   have at most [`BLOCK`] coefficients; each block is then finished depth-first while it
//!   sits in L1.
//! * The last four stages (`t = 8, 4, 2, 1`) run on 16 coefficients (two registers) at a
//!   time with in-register transposes, and end with the final lazy/full correction, so
//!   they cost a single pass.
//!
//! # Bounds
//!
//! Harvey's lazy butterflies keep forward values in `[0, 4q)` and inverse values in
//! `[0, 2q)`; every multiplication input is below `4q`. [`LaneMul::mul`] must return
//! `y * w mod q` in `[0, 2q)` for any `y < 4q`. Additions never overflow 64 bits because
//! `4q < 2^64`.
//!
//! A [`LaneMul::LOOSE`] multiplication returns `[0, 4q)` instead ([`WideLoose`]); every
//! bound above doubles (forward values in `[0, 8q)`, inverse values in `[0, 4q)`: the
//! butterflies add and subtract [`LaneMul::bound`], `4q`), which needs `8q < 2^64`, and the
//! last stage takes one more correction. The reduced outputs are the unique residues, so
//! these transforms give the words of the exact ones; the lazy transforms (whose words
//! the scalar path fixes) use exact multiplications only.

use super::LOOSE_MAX_Q;
use crate::math::simd::{csub, shoup_mul_wide, shoup_mul_wide_loose};
use core::arch::x86_64::*;

/// Coefficients per depth-first block: `4096 * 8` bytes of data plus the twiddles it
/// reads stay within a 48 KiB L1.
pub(super) const BLOCK: usize = 1 << 12;

/// A vector modular multiplication by a Shoup-precomputed constant.
pub(super) trait LaneMul: Copy {
    /// [`mul`](Self::mul) returns `[0, 4q)` rather than `[0, 2q)`.
    const LOOSE: bool = false;
    /// `q` in every lane.
    fn q(self) -> __m512i;
    /// `2q` in every lane.
    fn two_q(self) -> __m512i;
    /// `B`, the bound of [`mul`](Self::mul)'s results (`2q`, or `4q` when
    /// [`LOOSE`](Self::LOOSE)); forward values stay below `2B`, inverse values below `B`.
    #[inline(always)]
    fn bound(self) -> __m512i {
        self.two_q()
    }
    /// `y * w mod q` in `[0, B)` ([`bound`](Self::bound)), for lanes `y < 2B`, `w < q` and
    /// `ws` the Shoup companion of `w` for this multiplication's word size.
    ///
    /// # Safety
    /// The CPU must support the features of the backend's entry points.
    unsafe fn mul(self, y: __m512i, w: __m512i, ws: __m512i) -> __m512i;
}

/// 64-bit lanes: Shoup multiplication with `w' = floor(w * 2^64 / q)`, exactly the scalar
/// arithmetic (so the lazy forward results are bit-identical to the scalar path).
#[derive(Clone, Copy)]
pub(super) struct Wide {
    q: __m512i,
    two_q: __m512i,
}

impl Wide {
    /// The lane constants for modulus `q < 2^62`.
    ///
    /// # Safety
    /// Needs AVX-512F.
    #[inline(always)]
    pub(super) unsafe fn new(q: u64) -> Self {
        Wide {
            q: _mm512_set1_epi64(q as i64),
            two_q: _mm512_set1_epi64((2 * q) as i64),
        }
    }
}

impl LaneMul for Wide {
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
        // Shoup: quo = floor(y * w' / 2^64), r = y*w - quo*q in [0, 2q) for any y < 2^64.
        shoup_mul_wide(y, w, ws, self.q)
    }
}

/// 64-bit lanes with the quotient of [`shoup_mul_wide_loose`]: `y * w mod q` in
/// `[0, 4q)`, for `q < 2^61` (so that the forward butterflies' `8q` fits 64 bits). Only
/// the reduced transforms use it (see the module's bounds).
#[derive(Clone, Copy)]
pub(super) struct WideLoose {
    q: __m512i,
    two_q: __m512i,
    four_q: __m512i,
}

impl WideLoose {
    /// The lane constants for modulus `q < 2^61`.
    ///
    /// # Safety
    /// Needs AVX-512F.
    #[inline(always)]
    pub(super) unsafe fn new(q: u64) -> Self {
        debug_assert!(q < LOOSE_MAX_Q);
        WideLoose {
            q: _mm512_set1_epi64(q as i64),
            two_q: _mm512_set1_epi64((2 * q) as i64),
            four_q: _mm512_set1_epi64((4 * q) as i64),
        }
    }
}

impl LaneMul for WideLoose {
    const LOOSE: bool = true;
    #[inline(always)]
    fn q(self) -> __m512i {
        self.q
    }
    #[inline(always)]
    fn two_q(self) -> __m512i {
        self.two_q
    }
    #[inline(always)]
    fn bound(self) -> __m512i {
        self.four_q
    }
    #[inline(always)]
    unsafe fn mul(self, y: __m512i, w: __m512i, ws: __m512i) -> __m512i {
        shoup_mul_wide_loose(y, w, ws, self.q)
    }
}

/// Constants of the inverse's last stage, with `N^-1` folded in.
#[derive(Clone, Copy)]
pub(super) struct InvLast {
    /// `N^-1 mod q` and its Shoup companion.
    pub n_inv: u64,
    pub n_inv_s: u64,
    /// `ψ^-brv(1) · N^-1 mod q` (the last stage's only twiddle) and its companion.
    pub w: u64,
    pub ws: u64,
}

#[inline(always)]
unsafe fn ld(p: *const u64) -> __m512i {
    _mm512_loadu_si512(p as *const _)
}

#[inline(always)]
unsafe fn st(p: *mut u64, v: __m512i) {
    _mm512_storeu_si512(p as *mut _, v)
}

#[inline(always)]
unsafe fn bc(p: *const u64) -> __m512i {
    _mm512_set1_epi64(*p as i64)
}

/// Cooley-Tukey butterfly: `x, y` in `[0, 2B)` to `x + wy, x - wy` in `[0, 2B)`, for `B`
/// the multiplication's [`bound`](LaneMul::bound) (`2q`: the values stay in `[0, 4q)`).
#[inline(always)]
unsafe fn ct<M: LaneMul>(
    m: M,
    x: __m512i,
    y: __m512i,
    w: __m512i,
    ws: __m512i,
) -> (__m512i, __m512i) {
    let b = m.bound();
    let u = csub(x, b);
    let v = m.mul(y, w, ws);
    (
        _mm512_add_epi64(u, v),
        _mm512_sub_epi64(_mm512_add_epi64(u, b), v),
    )
}

/// Gentleman-Sande butterfly: `x, y` in `[0, B)` to `x + y, (x - y) w` in `[0, B)`, for `B`
/// the multiplication's [`bound`](LaneMul::bound).
#[inline(always)]
unsafe fn gs<M: LaneMul>(
    m: M,
    x: __m512i,
    y: __m512i,
    w: __m512i,
    ws: __m512i,
) -> (__m512i, __m512i) {
    let b = m.bound();
    let s = csub(_mm512_add_epi64(x, y), b);
    let d = _mm512_sub_epi64(_mm512_add_epi64(x, b), y);
    (s, m.mul(d, w, ws))
}

/// The inverse's last butterfly with `N^-1` folded in: `(x + y) / N, (x - y) w / N` in
/// `[0, 2q)` (or `[0, q)` when `REDUCE`). `x + y < 2B` is a valid multiplication input.
#[inline(always)]
unsafe fn gs_last<M: LaneMul, const REDUCE: bool>(
    m: M,
    x: __m512i,
    y: __m512i,
    c: &[__m512i; 4],
) -> (__m512i, __m512i) {
    let b = m.bound();
    let mut s = m.mul(_mm512_add_epi64(x, y), c[0], c[1]);
    let mut d = m.mul(_mm512_sub_epi64(_mm512_add_epi64(x, b), y), c[2], c[3]);
    if M::LOOSE {
        (s, d) = (csub(s, m.two_q()), csub(d, m.two_q()));
    }
    if REDUCE {
        (csub(s, m.q()), csub(d, m.q()))
    } else {
        (s, d)
    }
}

#[inline(always)]
unsafe fn last_consts(c: &InvLast) -> [__m512i; 4] {
    [
        _mm512_set1_epi64(c.n_inv as i64),
        _mm512_set1_epi64(c.n_inv_s as i64),
        _mm512_set1_epi64(c.w as i64),
        _mm512_set1_epi64(c.ws as i64),
    ]
}

// ---------------------------------------------------------------------------------------
// Forward (Cooley-Tukey, natural order in, bit-reversed order out).
// Twiddle index of group `g` at a stage with `m` groups is `m + g` (table `w[brv]`).
// ---------------------------------------------------------------------------------------

/// One radix-2 stage of distance `t` on `len` coefficients at `p`, whose first group has
/// global index `g0` among the `mg` groups of the stage.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fwd_r2<M: LaneMul>(
    m: M,
    p: *mut u64,
    len: usize,
    t: usize,
    mg: usize,
    g0: usize,
    w: *const u64,
    ws: *const u64,
) {
    for i in 0..len / (2 * t) {
        let k = mg + g0 + i;
        let (w1, w1s) = (bc(w.add(k)), bc(ws.add(k)));
        let base = p.add(2 * i * t);
        let mut j = 0;
        while j < t {
            let (x, y) = ct(m, ld(base.add(j)), ld(base.add(t + j)), w1, w1s);
            st(base.add(j), x);
            st(base.add(t + j), y);
            j += 8;
        }
    }
}

/// Two stages (distances `t` and `t/2`, `t >= 32`) in one pass; arguments as [`fwd_r2`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fwd_r4<M: LaneMul>(
    m: M,
    p: *mut u64,
    len: usize,
    t: usize,
    mg: usize,
    g0: usize,
    w: *const u64,
    ws: *const u64,
) {
    let h = t / 2;
    for i in 0..len / (2 * t) {
        let k = mg + g0 + i;
        let (w1, w1s) = (bc(w.add(k)), bc(ws.add(k)));
        let (w2, w2s) = (bc(w.add(2 * k)), bc(ws.add(2 * k)));
        let (w3, w3s) = (bc(w.add(2 * k + 1)), bc(ws.add(2 * k + 1)));
        let base = p.add(2 * i * t);
        let mut j = 0;
        while j < h {
            let x0 = ld(base.add(j));
            let x1 = ld(base.add(h + j));
            let x2 = ld(base.add(t + j));
            let x3 = ld(base.add(t + h + j));
            let (x0, x2) = ct(m, x0, x2, w1, w1s);
            let (x1, x3) = ct(m, x1, x3, w1, w1s);
            let (x0, x1) = ct(m, x0, x1, w2, w2s);
            let (x2, x3) = ct(m, x2, x3, w3, w3s);
            st(base.add(j), x0);
            st(base.add(h + j), x1);
            st(base.add(t + j), x2);
            st(base.add(t + h + j), x3);
            j += 8;
        }
    }
}

/// Index vectors for the in-register transposes of a 16-coefficient chunk `a | b`.
///
/// Layouts (lane contents, `a_i`/`b_i` the chunk's coefficients):
/// * `z`: `z0 = a0..a3 b0..b3`, `z1 = a4..a7 b4..b7` (distance-4 pairs);
/// * `x`: `x0 = a0 a1 a4 a5 b0 b1 b4 b5`, `x1 = a2 a3 a6 a7 b2 b3 b6 b7` (distance 2);
/// * `y`: `y0 = a0 a2 a4 a6 b0 b2 b4 b6`, `y1 = a1 a3 a5 a7 b1 b3 b5 b7` (distance 1).
struct Idx {
    zx0: __m512i,
    zx1: __m512i,
    ya: __m512i,
    yb: __m512i,
    ab_y0: __m512i,
    ab_y1: __m512i,
    w4: __m512i,
    w2: __m512i,
}

#[inline(always)]
unsafe fn idx() -> Idx {
    Idx {
        // z <-> x (an involution).
        zx0: _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13),
        zx1: _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15),
        // y -> a | b.
        ya: _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11),
        yb: _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15),
        // a | b -> y.
        ab_y0: _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14),
        ab_y1: _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15),
        // Twiddle expansion for the z and x layouts.
        w4: _mm512_setr_epi64(0, 0, 0, 0, 1, 1, 1, 1),
        w2: _mm512_setr_epi64(0, 0, 1, 1, 2, 2, 3, 3),
    }
}

/// Twiddles `[w0 x4, w1 x4]` from `w[0..2]`.
#[inline(always)]
unsafe fn tw4(i: &Idx, p: *const u64) -> __m512i {
    _mm512_permutexvar_epi64(
        i.w4,
        _mm512_castsi128_si512(_mm_loadu_si128(p as *const __m128i)),
    )
}

/// Twiddles `[w0 w0 w1 w1 w2 w2 w3 w3]` from `w[0..4]`.
#[inline(always)]
unsafe fn tw2(i: &Idx, p: *const u64) -> __m512i {
    _mm512_permutexvar_epi64(
        i.w2,
        _mm512_castsi256_si512(_mm256_loadu_si256(p as *const __m256i)),
    )
}

/// The last four forward stages (`t = 8, 4, 2, 1`) on `len` coefficients at `p`, whose
/// first 16-chunk has global index `c0`, plus the final correction to `[0, 2q)` (or
/// `[0, q)` when `REDUCE`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fwd_tail<M: LaneMul, const REDUCE: bool>(
    m: M,
    p: *mut u64,
    len: usize,
    n: usize,
    c0: usize,
    w: *const u64,
    ws: *const u64,
) {
    // Four independent chunks per iteration: one chunk is a chain of four dependent
    // butterflies, too long for the out-of-order window to overlap on its own.
    if len >= 64 {
        fwd_tail_k::<M, REDUCE, 4>(m, p, len, n, c0, w, ws)
    } else if len >= 32 {
        fwd_tail_k::<M, REDUCE, 2>(m, p, len, n, c0, w, ws)
    } else {
        fwd_tail_k::<M, REDUCE, 1>(m, p, len, n, c0, w, ws)
    }
}

/// [`fwd_tail`], `K` chunks at a time.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fwd_tail_k<M: LaneMul, const REDUCE: bool, const K: usize>(
    m: M,
    p: *mut u64,
    len: usize,
    n: usize,
    c0: usize,
    w: *const u64,
    ws: *const u64,
) {
    let ix = idx();
    let zero = _mm512_setzero_si512();
    let mut c = 0;
    while c < len / 16 {
        let (mut a, mut b) = ([zero; K], [zero; K]);
        for k in 0..K {
            let pa = p.add(16 * (c + k));
            a[k] = ld(pa);
            b[k] = ld(pa.add(8));
        }
        // t = 8: a vs b.
        for k in 0..K {
            let k8 = n / 16 + c0 + c + k;
            (a[k], b[k]) = ct(m, a[k], b[k], bc(w.add(k8)), bc(ws.add(k8)));
        }
        // t = 4 (z layout, kept in a / b).
        for k in 0..K {
            let z0 = _mm512_shuffle_i64x2::<0b01_00_01_00>(a[k], b[k]);
            let z1 = _mm512_shuffle_i64x2::<0b11_10_11_10>(a[k], b[k]);
            let k4 = n / 8 + 2 * (c0 + c + k);
            (a[k], b[k]) = ct(m, z0, z1, tw4(&ix, w.add(k4)), tw4(&ix, ws.add(k4)));
        }
        // t = 2 (x layout).
        for k in 0..K {
            let x0 = _mm512_permutex2var_epi64(a[k], ix.zx0, b[k]);
            let x1 = _mm512_permutex2var_epi64(a[k], ix.zx1, b[k]);
            let k2 = n / 4 + 4 * (c0 + c + k);
            (a[k], b[k]) = ct(m, x0, x1, tw2(&ix, w.add(k2)), tw2(&ix, ws.add(k2)));
        }
        // t = 1 (y layout), then [0, 2B) -> [0, 2q) -> [0, q) and back to natural order.
        for k in 0..K {
            let y0 = _mm512_unpacklo_epi64(a[k], b[k]);
            let y1 = _mm512_unpackhi_epi64(a[k], b[k]);
            let k1 = n / 2 + 8 * (c0 + c + k);
            let (y0, y1) = ct(m, y0, y1, ld(w.add(k1)), ld(ws.add(k1)));
            let mut y0 = csub(y0, m.bound());
            let mut y1 = csub(y1, m.bound());
            if M::LOOSE {
                // [0, 8q) -> [0, 4q) above, -> [0, 2q) here.
                y0 = csub(y0, m.two_q());
                y1 = csub(y1, m.two_q());
            }
            if REDUCE {
                y0 = csub(y0, m.q());
                y1 = csub(y1, m.q());
            }
            let pa = p.add(16 * (c + k));
            st(pa, _mm512_permutex2var_epi64(y0, ix.ya, y1));
            st(pa.add(8), _mm512_permutex2var_epi64(y0, ix.yb, y1));
        }
        c += K;
    }
}

/// Full forward transform, `n >= 16`. Input in `[0, 2q)`, output in `[0, 2q)` (`[0, q)`
/// when `REDUCE`).
#[inline(always)]
pub(super) unsafe fn forward<M: LaneMul, const REDUCE: bool>(
    m: M,
    a: &mut [u64],
    w: &[u64],
    ws: &[u64],
) {
    let n = a.len();
    debug_assert!(n >= 16 && n.is_power_of_two() && w.len() == n && ws.len() == n);
    let p = a.as_mut_ptr();
    let (w, ws) = (w.as_ptr(), ws.as_ptr());
    let mut t = n / 2;
    let mut mg = 1;
    // Stages t = n/2 .. 16 are vector stages; pair them up, a radix-2 stage first if odd.
    if (n.trailing_zeros() - 4) % 2 == 1 {
        fwd_r2(m, p, n, t, mg, 0, w, ws);
        t /= 2;
        mg *= 2;
    }
    // Breadth-first until the sub-transforms (groups of 2t) fit a block.
    while 2 * t > BLOCK && t >= 32 {
        fwd_r4(m, p, n, t, mg, 0, w, ws);
        t /= 4;
        mg *= 4;
    }
    // Depth-first: finish each group of 2t coefficients.
    let len = 2 * t;
    for g in 0..mg {
        let pb = p.add(g * len);
        let (mut tt, mut mm, mut gg) = (t, mg, g);
        while tt >= 32 {
            fwd_r4(m, pb, len, tt, mm, gg, w, ws);
            tt /= 4;
            mm *= 4;
            gg *= 4;
        }
        debug_assert_eq!(tt, 8);
        fwd_tail::<M, REDUCE>(m, pb, len, n, g * len / 16, w, ws);
    }
}

// ---------------------------------------------------------------------------------------
// Inverse (Gentleman-Sande, bit-reversed order in, natural order out).
// At distance t there are h = n / 2t groups; group g uses twiddle index h + g.
// ---------------------------------------------------------------------------------------

/// The first four inverse stages (`t = 1, 2, 4, 8`) on `len` coefficients at `p`, whose
/// first 16-chunk has global index `c0`. `LAST` when `n == 16` (then `t = 8` is the last
/// stage and takes the `N^-1` factor).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn inv_head<M: LaneMul, const LAST: bool, const REDUCE: bool>(
    m: M,
    p: *mut u64,
    len: usize,
    n: usize,
    c0: usize,
    w: *const u64,
    ws: *const u64,
    lc: &[__m512i; 4],
) {
    // Several chunks per iteration, as in `fwd_tail`.
    if len >= 64 {
        inv_head_k::<M, LAST, REDUCE, 4>(m, p, len, n, c0, w, ws, lc)
    } else if len >= 32 {
        inv_head_k::<M, LAST, REDUCE, 2>(m, p, len, n, c0, w, ws, lc)
    } else {
        inv_head_k::<M, LAST, REDUCE, 1>(m, p, len, n, c0, w, ws, lc)
    }
}

/// [`inv_head`], `K` chunks at a time.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn inv_head_k<M: LaneMul, const LAST: bool, const REDUCE: bool, const K: usize>(
    m: M,
    p: *mut u64,
    len: usize,
    n: usize,
    c0: usize,
    w: *const u64,
    ws: *const u64,
    lc: &[__m512i; 4],
) {
    let ix = idx();
    let zero = _mm512_setzero_si512();
    let mut c = 0;
    while c < len / 16 {
        let (mut a, mut b) = ([zero; K], [zero; K]);
        // t = 1 (y layout).
        for k in 0..K {
            let pa = p.add(16 * (c + k));
            let (a0, b0) = (ld(pa), ld(pa.add(8)));
            let y0 = _mm512_permutex2var_epi64(a0, ix.ab_y0, b0);
            let y1 = _mm512_permutex2var_epi64(a0, ix.ab_y1, b0);
            let k1 = n / 2 + 8 * (c0 + c + k);
            (a[k], b[k]) = gs(m, y0, y1, ld(w.add(k1)), ld(ws.add(k1)));
        }
        // t = 2 (x layout).
        for k in 0..K {
            let x0 = _mm512_unpacklo_epi64(a[k], b[k]);
            let x1 = _mm512_unpackhi_epi64(a[k], b[k]);
            let k2 = n / 4 + 4 * (c0 + c + k);
            (a[k], b[k]) = gs(m, x0, x1, tw2(&ix, w.add(k2)), tw2(&ix, ws.add(k2)));
        }
        // t = 4 (z layout).
        for k in 0..K {
            let z0 = _mm512_permutex2var_epi64(a[k], ix.zx0, b[k]);
            let z1 = _mm512_permutex2var_epi64(a[k], ix.zx1, b[k]);
            let k4 = n / 8 + 2 * (c0 + c + k);
            (a[k], b[k]) = gs(m, z0, z1, tw4(&ix, w.add(k4)), tw4(&ix, ws.add(k4)));
        }
        // t = 8 (natural order).
        for k in 0..K {
            let a0 = _mm512_shuffle_i64x2::<0b01_00_01_00>(a[k], b[k]);
            let b0 = _mm512_shuffle_i64x2::<0b11_10_11_10>(a[k], b[k]);
            let (a0, b0) = if LAST {
                gs_last::<M, REDUCE>(m, a0, b0, lc)
            } else {
                let k8 = n / 16 + c0 + c + k;
                gs(m, a0, b0, bc(w.add(k8)), bc(ws.add(k8)))
            };
            let pa = p.add(16 * (c + k));
            st(pa, a0);
            st(pa.add(8), b0);
        }
        c += K;
    }
}

/// Inverse stages `t` and `2t` (`t >= 16`) in one pass over `len` coefficients at `p`,
/// which start at global offset `off`. `LAST` when `4t == n`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn inv_r4<M: LaneMul, const LAST: bool, const REDUCE: bool>(
    m: M,
    p: *mut u64,
    len: usize,
    off: usize,
    t: usize,
    n: usize,
    w: *const u64,
    ws: *const u64,
    lc: &[__m512i; 4],
) {
    let h = n / (2 * t);
    for i in 0..len / (4 * t) {
        let kk = off / (4 * t) + i;
        let (w1, w1s) = (bc(w.add(h + 2 * kk)), bc(ws.add(h + 2 * kk)));
        let (w2, w2s) = (bc(w.add(h + 2 * kk + 1)), bc(ws.add(h + 2 * kk + 1)));
        let (w3, w3s) = (bc(w.add(h / 2 + kk)), bc(ws.add(h / 2 + kk)));
        let base = p.add(4 * i * t);
        let mut j = 0;
        while j < t {
            let x0 = ld(base.add(j));
            let x1 = ld(base.add(t + j));
            let x2 = ld(base.add(2 * t + j));
            let x3 = ld(base.add(3 * t + j));
            let (x0, x1) = gs(m, x0, x1, w1, w1s);
            let (x2, x3) = gs(m, x2, x3, w2, w2s);
            let ((x0, x2), (x1, x3)) = if LAST {
                (
                    gs_last::<M, REDUCE>(m, x0, x2, lc),
                    gs_last::<M, REDUCE>(m, x1, x3, lc),
                )
            } else {
                (gs(m, x0, x2, w3, w3s), gs(m, x1, x3, w3, w3s))
            };
            st(base.add(j), x0);
            st(base.add(t + j), x1);
            st(base.add(2 * t + j), x2);
            st(base.add(3 * t + j), x3);
            j += 8;
        }
    }
}

/// The inverse's last stage alone (`t = n/2`), with `N^-1` folded in.
#[inline(always)]
unsafe fn inv_r2_last<M: LaneMul, const REDUCE: bool>(
    m: M,
    p: *mut u64,
    n: usize,
    lc: &[__m512i; 4],
) {
    let t = n / 2;
    let mut j = 0;
    while j < t {
        let (x, y) = gs_last::<M, REDUCE>(m, ld(p.add(j)), ld(p.add(t + j)), lc);
        st(p.add(j), x);
        st(p.add(t + j), y);
        j += 8;
    }
}

/// Full inverse transform with the `N^-1` factor, `n >= 16`. Input in `[0, 2q)`, output in
/// `[0, 2q)` (`[0, q)` when `REDUCE`).
#[inline(always)]
pub(super) unsafe fn inverse<M: LaneMul, const REDUCE: bool>(
    m: M,
    a: &mut [u64],
    w: &[u64],
    ws: &[u64],
    last: &InvLast,
) {
    let n = a.len();
    debug_assert!(n >= 16 && n.is_power_of_two() && w.len() == n && ws.len() == n);
    let p = a.as_mut_ptr();
    let (w, ws) = (w.as_ptr(), ws.as_ptr());
    let lc = last_consts(last);
    if n == 16 {
        inv_head::<M, true, REDUCE>(m, p, n, n, 0, w, ws, &lc);
        return;
    }
    // Depth-first over blocks: head, then stage pairs (16, 32), (64, 128), ... that stay
    // inside the block.
    let len = n.min(BLOCK);
    let mut t_block = 16;
    for b in 0..n / len {
        let off = b * len;
        let pb = p.add(off);
        inv_head::<M, false, REDUCE>(m, pb, len, n, off / 16, w, ws, &lc);
        let mut t = 16;
        while 4 * t <= len {
            if 4 * t == n {
                inv_r4::<M, true, REDUCE>(m, pb, len, off, t, n, w, ws, &lc);
            } else {
                inv_r4::<M, false, REDUCE>(m, pb, len, off, t, n, w, ws, &lc);
            }
            t *= 4;
        }
        t_block = t;
    }
    // Breadth-first for the remaining stage pairs, then a lone last stage if any.
    let mut t = t_block;
    while 4 * t <= n {
        if 4 * t == n {
            inv_r4::<M, true, REDUCE>(m, p, n, 0, t, n, w, ws, &lc);
        } else {
            inv_r4::<M, false, REDUCE>(m, p, n, 0, t, n, w, ws, &lc);
        }
        t *= 4;
    }
    if 2 * t == n {
        inv_r2_last::<M, REDUCE>(m, p, n, &lc);
    }
}

/// Entry points for the 64-bit-lane backend.
pub(super) mod wide {
    use super::*;

    /// Forward transform (see [`super::forward`]).
    ///
    /// # Safety
    /// The CPU must support AVX-512F and AVX-512DQ; `n >= 16`; `q < 2^62`.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(in super::super) unsafe fn forward_lazy(a: &mut [u64], q: u64, w: &[u64], ws: &[u64]) {
        super::forward::<Wide, false>(Wide::new(q), a, w, ws)
    }

    /// Forward transform with reduced output; for `q < 2^61` with [`WideLoose`]
    /// multiplications (the same words, one `vpmuludq` and four other operations fewer
    /// per butterfly).
    ///
    /// # Safety
    /// As [`forward_lazy`].
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(in super::super) unsafe fn forward_reduced(a: &mut [u64], q: u64, w: &[u64], ws: &[u64]) {
        if q < LOOSE_MAX_Q {
            super::forward::<WideLoose, true>(WideLoose::new(q), a, w, ws)
        } else {
            super::forward::<Wide, true>(Wide::new(q), a, w, ws)
        }
    }

    /// Inverse transform (see [`super::inverse`]).
    ///
    /// # Safety
    /// As [`forward_lazy`].
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(in super::super) unsafe fn inverse_lazy(
        a: &mut [u64],
        q: u64,
        w: &[u64],
        ws: &[u64],
        last: &InvLast,
    ) {
        super::inverse::<Wide, false>(Wide::new(q), a, w, ws, last)
    }

    /// Inverse transform with reduced output; for `q < 2^61` with [`WideLoose`]
    /// multiplications, as [`forward_reduced`].
    ///
    /// # Safety
    /// As [`forward_lazy`].
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(in super::super) unsafe fn inverse_reduced(
        a: &mut [u64],
        q: u64,
        w: &[u64],
        ws: &[u64],
        last: &InvLast,
    ) {
        if q < LOOSE_MAX_Q {
            super::inverse::<WideLoose, true>(WideLoose::new(q), a, w, ws, last)
        } else {
            super::inverse::<Wide, true>(Wide::new(q), a, w, ws, last)
        }
    }
}
