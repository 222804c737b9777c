//! Homomorphic evaluation: arithmetic, rescaling, rotations and conjugation.
//!
//! **Levels and scales.** Operands at different levels are brought to the lower level by
//! dropping limbs (exact: it does not change the message). Additions need equal scales;
//! when one scale is an integer multiple `k` of the other, the smaller operand is multiplied
//! by `k` (exact, no level used). Any other mismatch is refused with
//! [`Error::ScaleMismatch`] saying how to fix it. Products multiply scales exactly;
//! [`Evaluator::rescale`] divides by the last prime of the level.
//!
//! **Key switching** (relinearization, rotations, conjugation, hoisting) is the RLWE
//! evaluator core's ([`crate::rlwe::Evaluator`], on the context's
//! [`KeySwitcher`](crate::rlwe::KeySwitcher)); this module adds the CKKS rules around it
//! (scales, slots, degrees, the rotation-to-Galois-element map). Rotation keys are pre-permuted (seed 003 Alg. 4): rotating by Galois
//! element `g` key-switches `c_1` to the secret `s(X^(g^-1))` and applies `X -> X^g` to the
//! two resulting polynomials, so hoisted rotations decompose `c_1` once and pay only an
//! inner product, a ModDown and a permutation per rotation.

use super::ciphertext::{Ciphertext, Plaintext};
use super::params::CkksContext;
use super::scale::Scale;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::evaluation_keys::{EvaluationKeySet, GaloisKeys, RelinearizationKey};
use crate::rlwe::Evaluator as RlweEvaluator;
use crate::{Error, Result};
use num_complex::Complex64;
use std::borrow::Cow;
use std::sync::Arc;

mod switching;
/// The residues of `round(x)` over the first `q_limbs` chain primes of `ring`, or an error
/// if `|round(x)|` does not fit in `(-Q_l/2, Q_l/2)` (the constants of CKKS and MLWE-CKKS,
/// and of the device evaluator, which must encode them word for word as the CPU does).
pub fn constant_residues(ring: &RingContext, x: f64, q_limbs: usize) -> Result<Vec<u64>> {
    let r = x.round();
    let log_q = ring.q().slice(0..q_limbs).log_product();
    if !r.is_finite() || (r != 0.0 && r.abs().log2() >= log_q - 1.0) {
        return Err(Error::InvalidMessage(format!(
            "constant scaled to {x:e} does not fit modulo Q = 2^{log_q:.1}; use a smaller \
             constant or a lower scale"
        )));
    }
    Ok((0..q_limbs)
        .map(|i| ring.modulus(i, q_limbs).reduce_f64(r))
        .collect())
}

#[cfg(test)]
mod tests;

/// Evaluates operations on ciphertexts of one context, with the evaluation keys it holds.
///
/// It embeds the RLWE [evaluator core](crate::rlwe::Evaluator), which owns the keys behind
/// an `Arc`: cloning an evaluator is cheap and shares the keys, and an evaluator is
/// `Send + Sync`, so threads can share one (or each take a clone).
///
/// Every operation comes allocating (`add`) and in place (`add_assign`); both give the
/// same words.
#[derive(Debug, Clone)]
pub struct Evaluator {
    ctx: Arc<CkksContext>,
    core: RlweEvaluator,
}

impl Evaluator {
    /// An evaluator with an optional relinearization key and a set of Galois keys.
    pub fn new(
        ctx: Arc<CkksContext>,
        relin: Option<RelinearizationKey>,
        galois: GaloisKeys,
    ) -> Self {
        Self::with_key_set(ctx, Arc::new(EvaluationKeySet::new(relin, galois)))
    }

    /// An evaluator over a shared key set (no copy of the keys).
    pub fn with_key_set(ctx: Arc<CkksContext>, keys: Arc<EvaluationKeySet>) -> Self {
        let core = RlweEvaluator::new(ctx.rlwe().clone(), keys);
        Evaluator { ctx, core }
    }

    /// The context.
    pub fn context(&self) -> &Arc<CkksContext> {
        &self.ctx
    }

    /// The RLWE evaluator core (levels, key lookup, automorphisms, hoisting) this
    /// evaluator embeds.
    pub fn rlwe(&self) -> &RlweEvaluator {
        &self.core
    }

    /// The evaluation keys.
    pub fn keys(&self) -> &Arc<EvaluationKeySet> {
        self.core.keys()
    }

    fn ring(&self) -> &crate::ring::RingContext {
        self.ctx.ring()
    }

    fn check_pair(&self, a: &Ciphertext, b: &Ciphertext) -> Result<()> {
        self.ctx.check_ciphertext(a)?;
        self.ctx.check_ciphertext(b)?;
        if a.slots != b.slots {
            return Err(Error::ParameterMismatch(format!(
                "operands have {} and {} slots; encode both with the same slot count",
                a.slots, b.slots
            )));
        }
        Ok(())
    }

    /// A ciphertext with `ct`'s metadata and other parts (a fresh result: no seed).
    fn with_parts(ct: &Ciphertext, parts: Vec<Poly>) -> Ciphertext {
        Ciphertext {
            ring_id: ct.ring_id,
            parts,
            scale: ct.scale.clone(),
            slots: ct.slots,
            seed: None,
        }
    }

    /// `ct` at `level` (or unchanged if already there).
    fn at_level<'a>(&self, ct: &'a Ciphertext, level: usize) -> Cow<'a, Ciphertext> {
        if ct.level() == level {
            Cow::Borrowed(ct)
        } else {
            let parts = RlweEvaluator::parts_at_level(&ct.parts, level).into_owned();
            Cow::Owned(Self::with_parts(ct, parts))
        }
    }

    /// A copy of `ct` at `level <= ct.level()`, copying only the limbs kept.
    fn owned_at(&self, ct: &Ciphertext, level: usize) -> Ciphertext {
        let mut out = self.at_level(ct, level.min(ct.level())).into_owned();
        out.seed = None;
        out
    }

    /// Drops `ct`'s limbs above `level` in place (exact).
    fn truncate_to(ct: &mut Ciphertext, level: usize) {
        if ct.level() != level {
            ct.parts.iter_mut().for_each(|p| p.truncate(level + 1));
            ct.seed = None;
        }
    }

    fn mul_integer_parts(&self, parts: &mut [Poly], k: u64) {
        if k == 1 {
            return;
        }
        for p in parts.iter_mut() {
            let ql = p.q_limbs();
            let scalars: Vec<u64> = (0..ql)
                .map(|i| self.ring().modulus(i, ql).reduce(k))
                .collect();
            p.mul_scalar_assign(&scalars, self.ring());
        }
    }

    fn add_sub(&self, a: &Ciphertext, b: &Ciphertext, sub: bool) -> Result<Ciphertext> {
        self.check_pair(a, b)?;
        let level = a.level().min(b.level());
        let (a, b) = (self.at_level(a, level), self.at_level(b, level));
        let (ka, kb) = Scale::alignment_factors(&a.scale, &b.scale)?;
        let mut ap: Cow<[Poly]> = Cow::Borrowed(&a.parts);
        if ka != 1 {
            self.mul_integer_parts(ap.to_mut(), ka);
        }
        let mut bp: Cow<[Poly]> = Cow::Borrowed(&b.parts);
        if kb != 1 {
            self.mul_integer_parts(bp.to_mut(), kb);
        }
        let ring = self.ring();
        let len = ap.len().max(bp.len());
        let mut out_parts = Vec::with_capacity(len);
        for i in 0..len {
            out_parts.push(match (ap.get(i), bp.get(i)) {
                (Some(x), Some(y)) => {
                    let mut o = ring.scratch_poly(x.q_limbs(), 0, x.form());
                    if sub {
                        Poly::sub_into(x, y, &mut o, ring);
                    } else {
                        Poly::add_into(x, y, &mut o, ring);
                    }
                    o
                }
                (Some(x), None) => x.clone(),
                (None, Some(y)) => {
                    let mut p = y.clone();
                    if sub {
                        p.neg_assign(ring);
                    }
                    p
                }
                (None, None) => unreachable!("i < max of the lengths"),
            });
        }
        Ok(Ciphertext {
            ring_id: a.ring_id,
            parts: out_parts,
            scale: a.scale.mul_integer(ka),
            slots: a.slots,
            seed: None,
        })
    }

    fn add_sub_assign(&self, a: &mut Ciphertext, b: &Ciphertext, sub: bool) -> Result<()> {
        self.check_pair(a, b)?;
        let (ka, kb) = Scale::alignment_factors(&a.scale, &b.scale)?;
        let level = a.level().min(b.level());
        Self::truncate_to(a, level);
        let b = self.at_level(b, level);
        let mut bp: Cow<[Poly]> = Cow::Borrowed(&b.parts);
        if kb != 1 {
            self.mul_integer_parts(bp.to_mut(), kb);
        }
        self.mul_integer_parts(&mut a.parts, ka);
        let ring = self.ring();
        for (i, y) in bp.iter().enumerate() {
            match a.parts.get_mut(i) {
                Some(x) if sub => x.sub_assign(y, ring),
                Some(x) => x.add_assign(y, ring),
                None => {
                    let mut p = y.clone();
                    if sub {
                        p.neg_assign(ring);
                    }
                    a.parts.push(p);
                }
            }
        }
        a.scale = a.scale.mul_integer(ka);
        a.seed = None;
        Ok(())
    }

    /// `a + b`.
    pub fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.add_sub(a, b, false)
    }

    /// `a += b` (in place; the same words as [`Evaluator::add`]).
    pub fn add_assign(&self, a: &mut Ciphertext, b: &Ciphertext) -> Result<()> {
        self.add_sub_assign(a, b, false)
    }

    /// `a - b`.
    pub fn sub(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.add_sub(a, b, true)
    }

    /// `a -= b` (in place).
    pub fn sub_assign(&self, a: &mut Ciphertext, b: &Ciphertext) -> Result<()> {
        self.add_sub_assign(a, b, true)
    }

    /// `-a`.
    pub fn neg(&self, a: &Ciphertext) -> Result<Ciphertext> {
        let mut out = a.clone();
        self.neg_assign(&mut out)?;
        Ok(out)
    }

    /// `a = -a` (in place).
    pub fn neg_assign(&self, a: &mut Ciphertext) -> Result<()> {
        self.ctx.check_ciphertext(a)?;
        a.seed = None;
        a.parts.iter_mut().for_each(|p| p.neg_assign(self.ring()));
        Ok(())
    }

    /// Checks a ciphertext and a plaintext against each other; returns their common level.
    fn check_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<usize> {
        self.ctx.check_ciphertext(ct)?;
        self.ctx.check_plaintext(pt)?;
        if pt.poly.p_limbs() > 0 {
            return Err(Error::ParameterMismatch(
                "this plaintext is over Q_l ∪ P (CkksContext::encode_extended_at): only \
                 Evaluator::bsgs_extended reads it"
                    .into(),
            ));
        }
        if ct.slots != pt.slots {
            return Err(Error::ParameterMismatch(format!(
                "ciphertext has {} slots and plaintext {}; encode with the same slot count",
                ct.slots, pt.slots
            )));
        }
        Ok(ct.level().min(pt.level()))
    }

    /// The plaintext's polynomial at `level`.
    fn plain_poly_at(pt: &Plaintext, level: usize) -> Cow<'_, Poly> {
        if pt.level() == level {
            Cow::Borrowed(&pt.poly)
        } else {
            Cow::Owned(pt.poly.truncated(level + 1))
        }
    }

    fn add_sub_plain_assign(&self, ct: &mut Ciphertext, pt: &Plaintext, sub: bool) -> Result<()> {
        let level = self.check_plain(ct, pt)?;
        let (kc, kp) = Scale::alignment_factors(&ct.scale, &pt.scale)?;
        Self::truncate_to(ct, level);
        ct.seed = None;
        self.mul_integer_parts(&mut ct.parts, kc);
        let mut p = Self::plain_poly_at(pt, level);
        if kp != 1 {
            self.mul_integer_parts(std::slice::from_mut(p.to_mut()), kp);
        }
        if sub {
            ct.parts[0].sub_assign(&p, self.ring());
        } else {
            ct.parts[0].add_assign(&p, self.ring());
        }
        ct.scale = ct.scale.mul_integer(kc);
        Ok(())
    }

    /// A copy of `ct` at its common level with `pt`, then `op` on it.
    fn with_plain(
        &self,
        ct: &Ciphertext,
        pt: &Plaintext,
        op: impl FnOnce(&mut Ciphertext) -> Result<()>,
    ) -> Result<Ciphertext> {
        let mut out = self.owned_at(ct, pt.level());
        op(&mut out)?;
        Ok(out)
    }

    /// `ct + pt`.
    pub fn add_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        self.with_plain(ct, pt, |c| self.add_plain_assign(c, pt))
    }

    /// `ct += pt` (in place).
    pub fn add_plain_assign(&self, ct: &mut Ciphertext, pt: &Plaintext) -> Result<()> {
        self.add_sub_plain_assign(ct, pt, false)
    }

    /// `ct - pt`.
    pub fn sub_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        self.with_plain(ct, pt, |c| self.sub_plain_assign(c, pt))
    }

    /// `ct -= pt` (in place).
    pub fn sub_plain_assign(&self, ct: &mut Ciphertext, pt: &Plaintext) -> Result<()> {
        self.add_sub_plain_assign(ct, pt, true)
    }

    /// `ct * pt` (scales multiply; rescale afterwards).
    pub fn mul_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        self.with_plain(ct, pt, |c| self.mul_plain_assign(c, pt))
    }

    /// `ct *= pt` (in place).
    pub fn mul_plain_assign(&self, ct: &mut Ciphertext, pt: &Plaintext) -> Result<()> {
        let level = self.check_plain(ct, pt)?;
        Self::truncate_to(ct, level);
        ct.seed = None;
        let p = Self::plain_poly_at(pt, level);
        for part in ct.parts.iter_mut() {
            part.mul_assign(&p, self.ring());
        }
        ct.scale = ct.scale.mul(&pt.scale);
        Ok(())
    }

    /// `acc += ct * pt` without a temporary (the words of [`Evaluator::mul_plain`] then
    /// [`Evaluator::add_assign`]): the inner loop of a plaintext-diagonal linear transform.
    /// `acc` must already carry the product's scale `Δ_ct · Δ_pt`; the result is at the
    /// lowest of the three levels.
    pub fn mul_plain_add_assign(
        &self,
        acc: &mut Ciphertext,
        ct: &Ciphertext,
        pt: &Plaintext,
    ) -> Result<()> {
        let level = self.check_plain(ct, pt)?;
        self.check_pair(acc, ct)?;
        let scale = ct.scale.mul(&pt.scale);
        if acc.scale != scale {
            return Err(Error::ScaleMismatch(format!(
                "accumulator at scale {} but the product is at {scale}: start the                  accumulator with mul_plain of the same scales",
                acc.scale
            )));
        }
        let level = level.min(acc.level());
        Self::truncate_to(acc, level);
        acc.seed = None;
        let ct = self.at_level(ct, level);
        let p = Self::plain_poly_at(pt, level);
        let ring = self.ring();
        for (i, part) in ct.parts.iter().enumerate() {
            match acc.parts.get_mut(i) {
                Some(a) => a.mul_add_assign(part, &p, ring),
                None => {
                    let mut t = part.clone();
                    t.mul_assign(&p, ring);
                    acc.parts.push(t);
                }
            }
        }
        Ok(())
    }

    fn constant_residues(&self, x: f64, q_limbs: usize) -> Result<Vec<u64>> {
        constant_residues(self.ring(), x, q_limbs)
    }

    /// A copy of `ct`, then `op` on it.
    fn copied(
        &self,
        ct: &Ciphertext,
        op: impl FnOnce(&mut Ciphertext) -> Result<()>,
    ) -> Result<Ciphertext> {
        let mut out = ct.clone();
        op(&mut out)?;
        Ok(out)
    }

    /// `ct + c` for a complex constant `c` (encoded at the ciphertext's scale).
    pub fn add_const(&self, ct: &Ciphertext, c: Complex64) -> Result<Ciphertext> {
        self.copied(ct, |o| self.add_const_assign(o, c))
    }

    /// `ct += c` (in place).
    pub fn add_const_assign(&self, ct: &mut Ciphertext, c: Complex64) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        let ql = ct.level() + 1;
        let delta = ct.scale.to_f64();
        let ring = self.ring();
        let re = self.constant_residues(c.re * delta, ql)?;
        let im = if c.im != 0.0 {
            Some(self.constant_residues(c.im * delta, ql)?)
        } else {
            None
        };
        ct.seed = None;
        ct.parts[0].add_scalar_assign(&re, ring);
        if let Some(im) = im {
            // i·b is the constant polynomial b·X^(N/2).
            let mut t = ring.zero(ql, 0, Form::Ntt);
            t.add_scalar_assign(&im, ring);
            t.mul_monomial_half_assign(ring);
            ct.parts[0].add_assign(&t, ring);
        }
        Ok(())
    }

    /// `ct * c` for a complex constant `c`, encoded at scale `q_l` (the last prime of the
    /// ciphertext's level), so that [`Evaluator::rescale`] afterwards restores the scale
    /// exactly.
    pub fn mul_const(&self, ct: &Ciphertext, c: Complex64) -> Result<Ciphertext> {
        self.copied(ct, |o| self.mul_const_assign(o, c))
    }

    /// `ct *= c` (in place).
    pub fn mul_const_assign(&self, ct: &mut Ciphertext, c: Complex64) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        let cs = self.ctx.constant_scale(ct.level());
        self.mul_const_scaled_assign(ct, c, &cs)
    }

    /// `ct * c` for a complex constant `c` encoded at the given `scale`: the ciphertext is
    /// multiplied by the Gaussian integer `round(c · scale)` and its scale by `scale`
    /// (exactly), so the result decrypts to `c · m` up to the rounding of the constant
    /// (`|round(c·scale) - c·scale| / scale <= 1 / (√2 · scale)`). No level is consumed.
    ///
    /// This is how a scale-exact circuit lands on a chosen scale: to reach `S` after the
    /// next [`Evaluator::rescale`] by `q_l`, encode the constant at `S · q_l / Δ` (seed 003
    /// Alg. 2, line 7). [`Evaluator::mul_const`] is the case `scale = q_l`.
    pub fn mul_const_scaled(
        &self,
        ct: &Ciphertext,
        c: Complex64,
        scale: &Scale,
    ) -> Result<Ciphertext> {
        self.copied(ct, |o| self.mul_const_scaled_assign(o, c, scale))
    }

    /// [`Evaluator::mul_const_scaled`] in place.
    pub fn mul_const_scaled_assign(
        &self,
        ct: &mut Ciphertext,
        c: Complex64,
        scale: &Scale,
    ) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        let ql = ct.level() + 1;
        let cs = scale.clone();
        let delta = cs.to_f64();
        let ring = self.ring();
        let re = self.constant_residues(c.re * delta, ql)?;
        let im = self.constant_residues(c.im * delta, ql)?;
        ct.seed = None;
        for part in ct.parts.iter_mut() {
            if c.im != 0.0 {
                let mut t = part.clone();
                t.mul_monomial_half_assign(ring);
                t.mul_scalar_assign(&im, ring);
                part.mul_scalar_assign(&re, ring);
                part.add_assign(&t, ring);
            } else {
                part.mul_scalar_assign(&re, ring);
            }
        }
        ct.scale = ct.scale.mul(&cs);
        Ok(())
    }

    /// [`Evaluator::mul_const_scaled`] of `ct` read at `level <= ct.level()`: the same words
    /// as [`Evaluator::drop_level`] then [`Evaluator::mul_const_scaled_assign`], in one pass
    /// per limb when `c` is real (no copy of the whole ciphertext; the first term of a
    /// polynomial's leaf).
    pub fn mul_const_scaled_at(
        &self,
        ct: &Ciphertext,
        level: usize,
        c: Complex64,
        scale: &Scale,
    ) -> Result<Ciphertext> {
        let drop = self.levels_down_to(ct, level)?;
        if c.im != 0.0 {
            let mut t = self.drop_level(ct, drop)?;
            self.mul_const_scaled_assign(&mut t, c, scale)?;
            return Ok(t);
        }
        let ring = self.ring();
        let re = self.constant_residues(c.re * scale.to_f64(), level + 1)?;
        let parts = ct
            .parts
            .iter()
            .map(|p| p.truncated_times(level + 1, &re, ring))
            .collect();
        Ok(Ciphertext {
            scale: ct.scale.mul(scale),
            ..Self::with_parts(ct, parts)
        })
    }

    /// `acc += c · ct` for a complex constant `c` encoded at `scale` (as
    /// [`Evaluator::mul_const_scaled`]), `ct` read at `acc`'s level: the same words as
    /// `mul_const_scaled` of `ct` brought to `acc`'s level, then [`Evaluator::add_assign`],
    /// in one pass over `acc` (no copy of `ct`) when `c` is real, `acc` is not above `ct`'s
    /// level, both have the same degree and `acc`'s scale is exactly `ct`'s times `scale`
    /// (a polynomial's leaf terms); otherwise by those three steps.
    pub fn mul_const_scaled_add_assign(
        &self,
        acc: &mut Ciphertext,
        ct: &Ciphertext,
        c: Complex64,
        scale: &Scale,
    ) -> Result<()> {
        self.check_pair(acc, ct)?;
        let fused = c.im == 0.0
            && acc.level() <= ct.level()
            && acc.parts.len() == ct.parts.len()
            && acc.scale == ct.scale.mul(scale);
        if !fused {
            let mut t = self.drop_level(ct, ct.level().saturating_sub(acc.level()))?;
            self.mul_const_scaled_assign(&mut t, c, scale)?;
            return self.add_assign(acc, &t);
        }
        let ring = self.ring();
        let re = self.constant_residues(c.re * scale.to_f64(), acc.level() + 1)?;
        for (a, b) in acc.parts.iter_mut().zip(&ct.parts) {
            a.mul_scalar_add_assign(b, &re, ring);
        }
        acc.seed = None;
        Ok(())
    }

    /// `ct * k` for an integer `k` (exact; the scale is unchanged).
    pub fn mul_integer(&self, ct: &Ciphertext, k: i64) -> Result<Ciphertext> {
        self.copied(ct, |o| self.mul_integer_assign(o, k))
    }

    /// `ct *= k` (in place).
    pub fn mul_integer_assign(&self, ct: &mut Ciphertext, k: i64) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        ct.seed = None;
        let ring = self.ring();
        for part in ct.parts.iter_mut() {
            let ql = part.q_limbs();
            let s = ring.integer_residues(k, ql);
            part.mul_scalar_assign(&s, ring);
        }
        Ok(())
    }

    /// `ct * i` (exact: multiplication by the monomial `X^(N/2)`).
    pub fn mul_by_i(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.copied(ct, |o| self.mul_by_i_assign(o))
    }

    /// `ct *= i` (in place).
    pub fn mul_by_i_assign(&self, ct: &mut Ciphertext) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        ct.seed = None;
        ct.parts
            .iter_mut()
            .for_each(|p| p.mul_monomial_half_assign(self.ring()));
        Ok(())
    }

    /// `ct * X^k` (exact; a negacyclic shift of the plaintext coefficients).
    pub fn mul_monomial(&self, ct: &Ciphertext, k: usize) -> Result<Ciphertext> {
        self.copied(ct, |o| self.mul_monomial_assign(o, k))
    }

    /// `ct *= X^k` (in place).
    pub fn mul_monomial_assign(&self, ct: &mut Ciphertext, k: usize) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        ct.seed = None;
        for p in ct.parts.iter_mut() {
            p.intt(self.ring());
            p.mul_monomial_assign(k, self.ring());
            p.ntt(self.ring());
        }
        Ok(())
    }

    /// Divides by the last prime `q_l` of the level (rounding), dropping one level; the
    /// scale is divided by `q_l` exactly.
    pub fn rescale(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.copied(ct, |o| self.rescale_assign(o))
    }

    /// [`Evaluator::rescale`] in place.
    pub fn rescale_assign(&self, ct: &mut Ciphertext) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        if ct.level() == 0 {
            return Err(Error::OutOfLevels(
                "cannot rescale a ciphertext at level 0: the computation needs more levels \
                 (a longer modulus chain) or fewer multiplications"
                    .into(),
            ));
        }
        let q_last = self.ring().q().moduli()[ct.level()].value();
        ct.seed = None;
        ct.parts
            .iter_mut()
            .for_each(|p| p.divide_round_by_last_q(self.ring()));
        ct.scale = ct.scale.div_integer(q_last);
        Ok(())
    }

    /// Brings `ct` to exactly the scale `target` at the next level down.
    ///
    /// Multiplies by the constant 1 encoded at scale `X = target · q_l / Δ` (that is, by
    /// the integer `round(X)`) and rescales by `q_l`: the new scale is `target` exactly, and,
    /// as with any encoding, rounding `X` perturbs the message by a relative
    /// `|round(X) - X| / X <= 1 / (2X)`. Use it to add ciphertexts whose scales drifted apart
    /// (e.g. `x·y` at `Δ^2/q` and `y` at `Δ`). Refused unless `X >= 2^20` (a smaller `X`
    /// would lose precision): then rescale first, or pick another target.
    pub fn rescale_to(&self, ct: &Ciphertext, target: &Scale) -> Result<Ciphertext> {
        self.copied(ct, |o| self.rescale_to_assign(o, target))
    }

    /// [`Evaluator::rescale_to`] in place.
    pub fn rescale_to_assign(&self, ct: &mut Ciphertext, target: &Scale) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        if ct.level() == 0 {
            return Err(Error::OutOfLevels(
                "rescale_to needs a level to consume; this ciphertext is at level 0".into(),
            ));
        }
        let q_last = self.ring().q().moduli()[ct.level()].value();
        let x = target.mul_integer(q_last).div(&ct.scale);
        let xf = x.to_f64();
        if xf.is_nan() || xf < (1u64 << 20) as f64 {
            return Err(Error::ScaleMismatch(format!(
                "cannot reach scale {target} from {} in one level: the multiplier would be \
                 {xf:.3e} < 2^20; rescale first or choose a larger target",
                ct.scale
            )));
        }
        let ql = ct.level() + 1;
        let c = self.constant_residues(xf, ql)?;
        ct.seed = None;
        ct.parts
            .iter_mut()
            .for_each(|p| p.mul_scalar_assign(&c, self.ring()));
        ct.scale = ct.scale.mul(&x);
        self.rescale_assign(ct)
    }

    /// Drops `levels` levels (exact: removes limbs without changing the message).
    pub fn drop_level(&self, ct: &Ciphertext, levels: usize) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        if levels > ct.level() {
            return Err(Error::OutOfLevels(format!(
                "cannot drop {levels} levels from a ciphertext at level {}",
                ct.level()
            )));
        }
        Ok(self.at_level(ct, ct.level() - levels).into_owned())
    }

    /// The levels from `ct`'s down to `level` (`ct` checked against the parameters); an
    /// [`Error::OutOfLevels`] if `level` is above `ct`'s.
    pub(crate) fn levels_down_to(&self, ct: &Ciphertext, level: usize) -> Result<usize> {
        self.ctx.check_ciphertext(ct)?;
        ct.level().checked_sub(level).ok_or_else(|| {
            Error::OutOfLevels(format!(
                "a ciphertext at level {} cannot be raised to level {level}",
                ct.level()
            ))
        })
    }

    /// A zero ciphertext shaped like `like` (its part count, form, slots and ring) at
    /// `level <= like.level()` and `scale`: what `like` dropped to `level` and multiplied
    /// by zero would be, without reading `like`'s limbs.
    pub(crate) fn zero_like(
        &self,
        like: &Ciphertext,
        level: usize,
        scale: Scale,
    ) -> Result<Ciphertext> {
        self.levels_down_to(like, level)?;
        let parts = like
            .parts
            .iter()
            .map(|p| self.ring().scratch_zero(level + 1, 0, p.form()))
            .collect();
        Ok(Ciphertext {
            scale,
            ..Self::with_parts(like, parts)
        })
    }

    /// [`Evaluator::drop_level`] in place.
    pub fn drop_level_assign(&self, ct: &mut Ciphertext, levels: usize) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        if levels > ct.level() {
            return Err(Error::OutOfLevels(format!(
                "cannot drop {levels} levels from a ciphertext at level {}",
                ct.level()
            )));
        }
        let level = ct.level() - levels;
        Self::truncate_to(ct, level);
        Ok(())
    }
}
