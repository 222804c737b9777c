//! The portable NTT ([`NttBackend::Scalar`](super::NttBackend)): what every target without
//! a SIMD backend runs, and the reference the SIMD backends are tested against.
//!
//! Radix-2 Harvey butterflies with Shoup products (`Modulus::mul_shoup_lazy`): forward
//! values stay in `[0, 4q)`, inverse values in `[0, 2q)`, each product costs one high and
//! two low word multiplications. Two stages run per pass over the array (the same
//! butterflies in the same order, so the same words as one stage per pass, with half the
//! loads and stores: 10-20% faster on a Zen 3), the last two as well when the number of
//! stages is even (one pass fewer: forward 736 -> 659 µs, inverse 765 -> 708 µs at
//! N = 2^16 on a Zen 4). The loops run over `chunks_exact_mut` / `split_at_mut` and zipped
//! twiddle slices, so the inner loops have no bounds checks, and the corrections are
//! branch-free (`min(x, x - c)`). The last forward stage carries the final correction (to
//! `[0, 2q)`, or `[0, q)`), and the last inverse stage carries the factor `N^-1` (folded
//! into its twiddle) and the final correction, so neither transform makes an extra pass.

use super::NttPlan;
use crate::math::modulus::Modulus;

/// `x - c` where `x >= c`, else `x` (branch-free: the wrapped difference exceeds `x`).
#[inline(always)]
fn csub(x: u64, c: u64) -> u64 {
    x.min(x.wrapping_sub(c))
}

/// Two forward stages on `x0..x3` (in `[0, 4q)`; `[0, 2q)` at the first stage): the first
/// stage's butterflies `(x0, x2)`, `(x1, x3)` with twiddle `w1`, then the second's
/// `(x0, x1)` with `w2` and `(x2, x3)` with `w3` (each with its Shoup companion); the
/// outputs are in `[0, 4q)`.
#[inline(always)]
fn forward_pair(
    m: &Modulus,
    [x0, x1, x2, x3]: [u64; 4],
    (w1, ws1): (u64, u64),
    (w2, ws2): (u64, u64),
    (w3, ws3): (u64, u64),
) -> [u64; 4] {
    let two_q = 2 * m.value();
    let u0 = csub(x0, two_q);
    let v0 = m.mul_shoup_lazy(x2, w1, ws1);
    let u1 = csub(x1, two_q);
    let v1 = m.mul_shoup_lazy(x3, w1, ws1);
    let (y0, y2) = (u0 + v0, u0 + two_q - v0);
    let (y1, y3) = (u1 + v1, u1 + two_q - v1);
    let u0 = csub(y0, two_q);
    let v0 = m.mul_shoup_lazy(y1, w2, ws2);
    let u2 = csub(y2, two_q);
    let v2 = m.mul_shoup_lazy(y3, w3, ws3);
    [u0 + v0, u0 + two_q - v0, u2 + v2, u2 + two_q - v2]
}

/// The first of two inverse stages on `x0..x3` (in `[0, 2q)`): the butterflies `(x0, x1)`
/// with twiddle `wa` and `(x2, x3)` with `wb`; the outputs are in `[0, 2q)`.
#[inline(always)]
fn inverse_first(
    m: &Modulus,
    [x0, x1, x2, x3]: [u64; 4],
    (wa, wsa): (u64, u64),
    (wb, wsb): (u64, u64),
) -> [u64; 4] {
    let two_q = 2 * m.value();
    [
        csub(x0 + x1, two_q),
        m.mul_shoup_lazy(x0 + two_q - x1, wa, wsa),
        csub(x2 + x3, two_q),
        m.mul_shoup_lazy(x2 + two_q - x3, wb, wsb),
    ]
}

impl NttPlan {
    /// Scalar Cooley-Tukey forward transform, `[0, 2q)` to `[0, 2q)` (`[0, q)` when
    /// `REDUCE`).
    pub(super) fn forward_scalar<const REDUCE: bool>(&self, a: &mut [u64]) {
        let m = self.modulus;
        let q = m.value();
        let two_q = 2 * q;
        let n = self.n;
        let (w, ws) = (&self.fwd[..n], &self.fwd_shoup[..n]);
        // Twiddle i with its Shoup companion.
        let tw = |i: usize| (w[i], ws[i]);
        // Stages of distance t >= 2; group g of a stage with mg groups uses twiddle mg + g.
        let (mut t, mut mg) = (n / 2, 1);
        // Two stages per pass while both have t >= 2 (the same butterflies in the same
        // order, so the same words: half the loads and stores). Group g of the first stage
        // and groups 2g, 2g + 1 of the second combine x0..x3 at j, j + t/2, j + t, j + 3t/2.
        while t >= 4 {
            let h = t / 2;
            for (g, blk) in a.chunks_exact_mut(2 * t).enumerate() {
                let (w1, w2, w3) = (tw(mg + g), tw(2 * mg + 2 * g), tw(2 * mg + 2 * g + 1));
                let (lo, hi) = blk.split_at_mut(t);
                let (q0, q1) = lo.split_at_mut(h);
                let (q2, q3) = hi.split_at_mut(h);
                for (((x0, x1), x2), x3) in q0.iter_mut().zip(q1).zip(q2).zip(q3) {
                    let y = forward_pair(&m, [*x0, *x1, *x2, *x3], w1, w2, w3);
                    [*x0, *x1, *x2, *x3] = y;
                }
            }
            t /= 4;
            mg *= 4;
        }
        if t == 2 {
            // An even number of stages: the stage t = 2 and the last one (t = 1, with the
            // final corrections) in one pass over blocks of four (the same butterflies in
            // the same order).
            let (quads, _) = a.as_chunks_mut::<4>();
            for (g, [x0, x1, x2, x3]) in quads.iter_mut().enumerate() {
                let (w1, w2, w3) = (tw(mg + g), tw(2 * mg + 2 * g), tw(2 * mg + 2 * g + 1));
                let y = forward_pair(&m, [*x0, *x1, *x2, *x3], w1, w2, w3);
                let mut s = y.map(|y| csub(y, two_q));
                if REDUCE {
                    s = s.map(|x| csub(x, q));
                }
                [*x0, *x1, *x2, *x3] = s;
            }
            return;
        }
        // An odd number of stages: the last stage (t = 1) with the final corrections.
        debug_assert_eq!(t, 1);
        let (pairs, _) = a.as_chunks_mut::<2>();
        let tws = w[n / 2..].iter().zip(&ws[n / 2..]);
        for ([x, y], (&w, &ws)) in pairs.iter_mut().zip(tws) {
            let u = csub(*x, two_q);
            let v = m.mul_shoup_lazy(*y, w, ws);
            let (mut s, mut d) = (csub(u + v, two_q), csub(u + two_q - v, two_q));
            if REDUCE {
                (s, d) = (csub(s, q), csub(d, q));
            }
            (*x, *y) = (s, d);
        }
    }

    /// Scalar Gentleman-Sande inverse transform (with the `N^-1` factor), `[0, 2q)` to
    /// `[0, 2q)` (`[0, q)` when `REDUCE`).
    pub(super) fn inverse_scalar<const REDUCE: bool>(&self, a: &mut [u64]) {
        let m = self.modulus;
        let q = m.value();
        let two_q = 2 * q;
        let n = self.n;
        let (w, ws) = (&self.inv[..n], &self.inv_shoup[..n]);
        // Twiddle i with its Shoup companion.
        let tw = |i: usize| (w[i], ws[i]);
        // Stages of distance t < n/2; group g of a stage with h groups uses twiddle h + g.
        let (mut t, mut h) = (1, n / 2);
        // Two stages per pass while both are ordinary (h >= 4), as in the forward
        // transform: groups 2g, 2g + 1 of the first stage and group g of the second combine
        // x0..x3 at j, j + t, j + 2t, j + 3t.
        while h >= 4 {
            let h2 = h / 2;
            for (g, blk) in a.chunks_exact_mut(4 * t).enumerate() {
                let (wa, wb, (wc, wsc)) = (tw(h + 2 * g), tw(h + 2 * g + 1), tw(h2 + g));
                let (lo, hi) = blk.split_at_mut(2 * t);
                let (q0, q1) = lo.split_at_mut(t);
                let (q2, q3) = hi.split_at_mut(t);
                for (((x0, x1), x2), x3) in q0.iter_mut().zip(q1).zip(q2).zip(q3) {
                    let [y0, y1, y2, y3] = inverse_first(&m, [*x0, *x1, *x2, *x3], wa, wb);
                    *x0 = csub(y0 + y2, two_q);
                    *x2 = m.mul_shoup_lazy(y0 + two_q - y2, wc, wsc);
                    *x1 = csub(y1 + y3, two_q);
                    *x3 = m.mul_shoup_lazy(y1 + two_q - y3, wc, wsc);
                }
            }
            t *= 4;
            h /= 4;
        }
        if h == 2 {
            // An even number of stages: the stage h = 2 (t = n/4) and the last one in one
            // pass, x0..x3 at j, j + n/4, j + n/2, j + 3n/4 (the same butterflies in the
            // same order).
            let (wa, wb) = (tw(2), tw(3));
            let (lo, hi) = a.split_at_mut(2 * t);
            let (q0, q1) = lo.split_at_mut(t);
            let (q2, q3) = hi.split_at_mut(t);
            for (((x0, x1), x2), x3) in q0.iter_mut().zip(q1).zip(q2).zip(q3) {
                let [y0, y1, y2, y3] = inverse_first(&m, [*x0, *x1, *x2, *x3], wa, wb);
                let mut s = [
                    m.mul_shoup_lazy(y0 + y2, self.n_inv, self.n_inv_shoup),
                    m.mul_shoup_lazy(y1 + y3, self.n_inv, self.n_inv_shoup),
                    m.mul_shoup_lazy(y0 + two_q - y2, self.inv_last, self.inv_last_shoup),
                    m.mul_shoup_lazy(y1 + two_q - y3, self.inv_last, self.inv_last_shoup),
                ];
                if REDUCE {
                    s = s.map(|x| csub(x, q));
                }
                [*x0, *x1, *x2, *x3] = s;
            }
            return;
        }
        debug_assert_eq!(h, 1);
        // The last stage (t = n/2): (x + y) / N and (x - y) w / N, with `inv_last` =
        // w / N; x + y < 4q is a valid product input.
        let (lo, hi) = a.split_at_mut(n / 2);
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let (u, v) = (*x, *y);
            let mut s = m.mul_shoup_lazy(u + v, self.n_inv, self.n_inv_shoup);
            let mut d = m.mul_shoup_lazy(u + two_q - v, self.inv_last, self.inv_last_shoup);
            if REDUCE {
                (s, d) = (csub(s, q), csub(d, q));
            }
            (*x, *y) = (s, d);
        }
    }
}
