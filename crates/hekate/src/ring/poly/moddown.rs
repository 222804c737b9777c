//! ModDown and rescaling: dividing a polynomial by the special primes `P` or by the last
//! chain prime `q_l` with rounding, each alone or fused with the products and sums around
//! it in a key switch.

use super::{for_each_limb, for_each_limb_pair, Form, Poly, RingContext};
use crate::math::kernels;

impl Poly {
    /// ModDown: divides a polynomial over `Q_l ∪ P` by `P` with rounding, leaving it over
    /// `Q_l` (either form; in NTT form `k` inverse and `l + 1` forward NTTs). A polynomial
    /// over `Q_l ∪ P'`, the encryption prefix of `P`
    /// ([`RingContext::encryption_p_len`]), is divided by `P'` instead.
    pub fn mod_down_by_p(self, ctx: &RingContext) -> Poly {
        self.mod_down_by_p_adding(None, ctx)
    }

    /// [`Poly::mod_down_by_p`] of `self + e`, for a small integer polynomial `e` (the
    /// noise of a public-key encryption), without transforming `e`: it is added to the
    /// special limbs after their inverse NTT, and subtracted from the converted limbs
    /// before their forward NTT (`(x + e - Conv(x_P + e_P)) P^-1` with
    /// `x - (Conv(..) - e)`), so `e` costs no NTT at all instead of one per limb. The words
    /// are those of `(self + NTT(e)).mod_down_by_p()`.
    pub fn mod_down_by_p_adding(mut self, e: Option<&[i64]>, ctx: &RingContext) -> Poly {
        let (ql, k, n) = (self.q_limbs, self.p_limbs, self.n);
        assert!(k > 0, "ModDown needs special limbs");
        let ext = ctx.extender_for(k);
        let pool = ctx.pool();
        // The P limbs are consumed: bring them to coefficient form in place.
        let form = self.form;
        if let Some(e) = e {
            assert_eq!(e.len(), n, "ModDown noise of another degree");
        }
        // `e` in limb `i` of the chain (`p = false`) or special primes, without branches on
        // its coefficients.
        let largest = e.map_or(0, |e| e.iter().fold(0u64, |m, &c| m.max(c.unsigned_abs())));
        let add_e = |limb: &mut [u64], m: &crate::math::Modulus, sub: bool| {
            let Some(e) = e else { return };
            let q = m.value();
            let small = largest < q;
            for (x, &c) in limb.iter_mut().zip(e) {
                let c = if sub { -c } else { c };
                let r = if small {
                    (c as u64).wrapping_add(q & ((c >> 63) as u64))
                } else {
                    m.reduce_i64_ct(c)
                };
                let s = *x + r;
                *x = s - (q & 0u64.wrapping_sub((s >= q) as u64));
            }
        };
        if form == Form::Ntt {
            for_each_limb(&mut self.data[ql * n..(ql + k) * n], n, |j, limb| {
                ctx.ntt_plan(ql + j, ql).inverse(limb);
                add_e(limb, ctx.modulus(ql + j, ql), false);
            });
        } else if e.is_some() {
            for_each_limb(&mut self.data[ql * n..(ql + k) * n], n, |j, limb| {
                add_e(limb, ctx.modulus(ql + j, ql), false)
            });
        }
        let mut conv = pool.take(ql * n);
        let mut scratch = pool.take((k + 1) * n);
        ext.b_to_c()
            .convert(&self.data[ql * n..(ql + k) * n], &mut conv, n, &mut scratch);
        self.truncate(ql);
        for_each_limb_pair(&mut self.data, &mut conv, n, |i, limb, t| {
            // x + e - Conv = x - (Conv - e).
            add_e(t, ctx.modulus(i, ql), true);
            if form == Form::Ntt {
                ctx.ntt_plan(i, ql).forward(t);
            }
            ext.mod_down_limb(i, limb, t);
        });
        pool.recycle(conv);
        pool.recycle(scratch);
        self
    }

    /// ModDown fused into a rescale: `rescale(k ModDown(self) + add)` for a key-switching
    /// accumulator `self` over `Q_l ∪ P` (`P` whole), an integer `k` and `add` over `Q_l`,
    /// both in NTT form; the result is over `Q_{l-1}`. The words are exactly those of
    /// [`Poly::mod_down_by_p`], a multiplication by `k`, an addition of `add` and
    /// [`Poly::divide_round_by_last_q`] in sequence (every step is exact modular arithmetic;
    /// only the order of the additions changes), with `l + 1` forward NTTs fewer: the
    /// ModDown's converted limbs are never transformed alone.
    ///
    /// With `x` the accumulator, `Conv = Conv_{P -> Q_l}(INTT(x_P))` and `c_i = k P^-1 mod
    /// q_i`, `k ModDown(x) + add = c x + add - c NTT(Conv)`: the sum
    /// [`Poly::add_coeff_product_rescale`] rescales with `Conv` in coefficient form.
    pub fn mod_down_rescale(mut self, k: i64, add: &Poly, ctx: &RingContext) -> Poly {
        let (n, ql, kp) = (self.n, self.q_limbs, self.p_limbs);
        assert!(
            self.form == Form::Ntt && add.form == Form::Ntt,
            "the fused ModDown and rescale works in NTT form"
        );
        assert!(kp == ctx.p_len(), "needs P whole");
        assert!(
            add.q_limbs == ql && add.p_limbs == 0,
            "the addend is over Q_l"
        );
        let ext = ctx.extender_for(kp);
        let pool = ctx.pool();
        for_each_limb(&mut self.data[ql * n..(ql + kp) * n], n, |j, limb| {
            ctx.ntt_plan(ql + j, ql).inverse(limb)
        });
        let mut conv = pool.take(ql * n);
        let mut scratch = pool.take((kp + 1) * n);
        ext.b_to_c().convert(
            &self.data[ql * n..(ql + kp) * n],
            &mut conv,
            n,
            &mut scratch,
        );
        pool.recycle(scratch);
        self.truncate(ql);
        // c x + add - c NTT(Conv), rescaled (c x + add formed limb by limb there).
        let (p_inv, _) = ext.p_inv();
        let (c, minus_c): (Vec<u64>, Vec<u64>) = ctx
            .integer_residues(k, ql)
            .into_iter()
            .enumerate()
            .map(|(i, ki)| {
                let m = ctx.modulus(i, ql);
                let ci = m.mul(ki, p_inv[i]);
                (ci, m.neg(ci))
            })
            .unzip();
        let conv = Poly::from_words(n, ql, 0, Form::Coeff, conv);
        let out = self.rescale_sum(Some((&c, add)), &conv, &minus_c, ctx);
        ctx.recycle(conv);
        out
    }

    /// `rescale(self + s NTT(u))` for `self` over `Q_l` in NTT form (whose buffer becomes
    /// the result, over `Q_{l-1}` in NTT form), `u` over `Q_l` in coefficient form and the
    /// constant `s` given by its residues (one per limb): the words of [`Poly::ntt`] of `u`,
    /// the product by `s`, the addition and [`Poly::divide_round_by_last_q`] in sequence,
    /// with `l + 1` forward NTTs and one inverse fewer. The steps compute `z_i = self_i +
    /// s_i NTT(u_i)`, `y = INTT(z_l)` and `(z_i - NTT(lift_i(y))) q_l^-1` (`lift`: the
    /// centered residue modulo `q_l` reduced modulo `q_i`); here `y = INTT(self_l) + s_l u_l`
    /// and `out_i = (self_i - NTT(lift_i(y) - s_i u_i)) q_l^-1`, one transform per limb.
    /// The fused multiply-rescale of every key-switching engine: KLSS and linear key
    /// switching exit in coefficient form (`u`, `s = k`), the hybrid engine's ModDown
    /// is one ([`Poly::mod_down_rescale`]).
    pub fn add_coeff_product_rescale(self, u: &Poly, s: &[u64], ctx: &RingContext) -> Poly {
        self.rescale_sum(None, u, s, ctx)
    }

    /// [`Poly::add_coeff_product_rescale`] of `c self + add` for `pre = Some((c, add))`
    /// (per-limb residues `c`, `add` over `Q_l` in NTT form): that sum is formed limb by
    /// limb in the same pass as the rescale (the hybrid ModDown's `k P^-1 x + add`).
    fn rescale_sum(
        mut self,
        pre: Option<(&[u64], &Poly)>,
        u: &Poly,
        s: &[u64],
        ctx: &RingContext,
    ) -> Poly {
        let (n, ql) = (self.n, self.q_limbs);
        assert!(
            self.form == Form::Ntt && u.form == Form::Coeff,
            "an NTT-form sum and a coefficient-form term"
        );
        assert!(
            self.p_limbs == 0 && u.p_limbs == 0 && u.q_limbs == ql && ql >= 2,
            "both over the same Q_l, with two chain limbs"
        );
        assert_eq!(s.len(), ql, "one residue of s per limb");
        if let Some((c, add)) = pre {
            assert!(
                c.len() == ql && add.form == Form::Ntt && add.q_limbs == ql && add.p_limbs == 0
            );
        }
        // Limb i of the NTT-form sum: c_i self_i + add_i, or self_i.
        let sum = |i: usize, limb: &mut [u64], qi: &crate::math::Modulus| {
            if let Some((c, add)) = pre {
                kernels::mul_scalar_assign(limb, c[i], qi);
                kernels::add_assign(limb, add.limb(i), qi);
            }
        };
        let pool = ctx.pool();
        // y = INTT(sum_l) + s_l u_l.
        let l = ql - 1;
        let ml = ctx.modulus(l, ql);
        let mut y = pool.take(n);
        y.copy_from_slice(self.limb(l));
        sum(l, &mut y, ml);
        ctx.ntt_plan(l, ql).inverse(&mut y);
        kernels::mul_scalar_add_assign(&mut y, u.limb(l), s[l], ml);
        self.truncate(l);
        let q_last = ml.value();
        let consts = ctx.rescale_constants(l);
        let mut t_all = pool.take(l * n);
        let y_ref = &y;
        for_each_limb_pair(&mut self.data, &mut t_all, n, |i, limb, t| {
            let qi = ctx.modulus(i, l);
            // t = NTT(lift_i(y) - s_i u_i), then limb = (sum_i - t) q_l^-1.
            kernels::lift_centered(t, y_ref, q_last, qi);
            kernels::mul_scalar_add_assign(t, u.limb(i), qi.neg(s[i]), qi);
            ctx.ntt_plan(i, l).forward(t);
            sum(i, limb, qi);
            let (w, ws) = consts[i];
            kernels::sub_mul_scalar_assign(limb, t, w, ws, qi);
        });
        pool.recycle(t_all);
        pool.recycle(y);
        self
    }

    /// Divides by the last chain prime `q_l` with rounding, dropping that limb:
    /// `x_i <- (x_i - [x]_{q_l}) * q_l^-1 mod q_i` with the centered `[x]_{q_l}`.
    /// Works in either form (one inverse NTT plus `l` forward NTTs in NTT form).
    pub fn divide_round_by_last_q(&mut self, ctx: &RingContext) {
        assert!(
            self.q_limbs >= 2 && self.p_limbs == 0,
            "needs two chain limbs"
        );
        let n = self.n;
        let l = self.q_limbs - 1;
        let ql = *ctx.modulus(l, l + 1);
        let pool = ctx.pool();
        let mut last = pool.take(n);
        last.copy_from_slice(self.limb(l));
        if self.form == Form::Ntt {
            ctx.ntt_plan(l, l + 1).inverse(&mut last);
        }
        let form = self.form;
        let consts = ctx.rescale_constants(l);
        self.data.truncate(l * n);
        self.q_limbs = l;
        let mut lifted = pool.take(l * n);
        let last_ref = &last;
        let q_last = ql.value();
        for_each_limb_pair(&mut self.data, &mut lifted, n, |i, limb, t| {
            let qi = ctx.modulus(i, l);
            // t = center(x) mod q_i for the last limb's x.
            kernels::lift_centered(t, last_ref, q_last, qi);
            if form == Form::Ntt {
                ctx.ntt_plan(i, l).forward(t);
            }
            let (w, ws) = consts[i];
            kernels::sub_mul_scalar_assign(limb, t, w, ws, qi);
        });
        pool.recycle(last);
        pool.recycle(lifted);
    }
}
