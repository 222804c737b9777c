//! The portable NTT ([`NttBackend::Scalar`](super::NttBackend)): what every target without
//! a SIMD backend runs, and the reference the SIMD backends are tested against.
//!
//! Radix-2 Harvey butterflies with Shoup products (`Modulus::mul_shoup_lazy`): forward
//! values stay in `[0, 4q)`, inverse values in `[0, 2q)`, each product costs one high and
//! two low word multiplications. The loops run over `chunks_exact_mut` / `split_at_mut`
//! and zipped twiddle slices, so the inner loops have no bounds checks, and the
//! corrections are branch-free (`min(x, x - c)`). The last forward stage carries the final
//! correction (to `[0, 2q)`, or `[0, q)`), and the last inverse stage carries the factor
//! `N^-1` (folded into its twiddle) and the final correction, so neither transform makes
//! an extra pass.

use super::NttPlan;

/// `x - c` where `x >= c`, else `x` (branch-free: the wrapped difference exceeds `x`).
#[inline(always)]
fn csub(x: u64, c: u64) -> u64 {
    x.min(x.wrapping_sub(c))
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
        // Stages of distance t >= 2; group g of a stage with mg groups uses twiddle mg + g.
        let (mut t, mut mg) = (n / 2, 1);
        while t > 1 {
            let tws = w[mg..2 * mg].iter().zip(&ws[mg..2 * mg]);
            for (blk, (&w, &ws)) in a.chunks_exact_mut(2 * t).zip(tws) {
                let (lo, hi) = blk.split_at_mut(t);
                for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                    // x, y in [0, 4q) (in [0, 2q) at the first stage).
                    let u = csub(*x, two_q);
                    let v = m.mul_shoup_lazy(*y, w, ws);
                    *x = u + v;
                    *y = u + two_q - v;
                }
            }
            t /= 2;
            mg *= 2;
        }
        // The last stage (t = 1) with the final corrections.
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
        // Stages of distance t < n/2; group g of a stage with h groups uses twiddle h + g.
        let (mut t, mut h) = (1, n / 2);
        while h > 1 {
            let tws = w[h..2 * h].iter().zip(&ws[h..2 * h]);
            for (blk, (&w, &ws)) in a.chunks_exact_mut(2 * t).zip(tws) {
                let (lo, hi) = blk.split_at_mut(t);
                for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                    // x, y in [0, 2q).
                    let (u, v) = (*x, *y);
                    *x = csub(u + v, two_q);
                    *y = m.mul_shoup_lazy(u + two_q - v, w, ws);
                }
            }
            t *= 2;
            h /= 2;
        }
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
