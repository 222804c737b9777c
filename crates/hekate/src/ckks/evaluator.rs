//! Homomorphic evaluation: arithmetic, rescaling, rotations and conjugation.
//!
//! **Levels and scales.** Operands at different levels are brought to the lower level by
//! dropping limbs (exact: it does not change the message). Additions need equal scales;
//! when one scale is an integer multiple `k` of the other, the smaller operand is multiplied
//! by `k` (exact, no level used). Any other mismatch is refused with
//! [`Error::ScaleMismatch`] saying how to fix it. Products multiply scales exactly;
//! [`Evaluator::rescale`] divides by the last prime of the level.
//!
//! **Key switching** (relinearization, rotations, conjugation) goes through the context's
//! [`KeySwitcher`]. Rotation keys are pre-permuted (seed 003 Alg. 4): rotating by Galois
//! element `g` key-switches `c_1` to the secret `s(X^(g^-1))` and applies `X -> X^g` to the
//! two resulting polynomials, so hoisted rotations decompose `c_1` once and pay only an
//! inner product, a ModDown and a permutation per rotation.

use super::ciphertext::{Ciphertext, Plaintext};
use super::keys::{GaloisKey, GaloisKeys, RelinearizationKey};
use super::params::CkksContext;
use super::scale::Scale;
use crate::ring::automorphism::{galois_element_for_conjugation, galois_element_for_rotation};
use crate::ring::{Form, Poly};
use crate::rlwe::keyswitch::{KeySwitcher, SwitchingKey};
use crate::{Error, Result};
use num_complex::Complex64;
use std::borrow::Cow;
use std::sync::Arc;

/// Evaluates operations on ciphertexts of one context, with the evaluation keys it holds.
#[derive(Debug, Clone)]
pub struct Evaluator {
    ctx: Arc<CkksContext>,
    relin: Option<RelinearizationKey>,
    galois: GaloisKeys,
}

impl Evaluator {
    /// An evaluator with an optional relinearization key and a set of Galois keys.
    pub fn new(
        ctx: Arc<CkksContext>,
        relin: Option<RelinearizationKey>,
        galois: GaloisKeys,
    ) -> Self {
        Evaluator { ctx, relin, galois }
    }

    /// The context.
    pub fn context(&self) -> &Arc<CkksContext> {
        &self.ctx
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

    /// `ct` at `level` (or unchanged if already there).
    fn at_level<'a>(&self, ct: &'a Ciphertext, level: usize) -> Cow<'a, Ciphertext> {
        if ct.level() == level {
            Cow::Borrowed(ct)
        } else {
            Cow::Owned(Ciphertext {
                ring_id: ct.ring_id,
                parts: ct.parts.iter().map(|p| p.truncated(level + 1)).collect(),
                scale: ct.scale.clone(),
                slots: ct.slots,
                seed: None,
            })
        }
    }

    /// Brings `b` to the scale of `a` where that is exact; returns the multiplier used.
    fn scale_factor(a: &Scale, b: &Scale) -> Result<(u64, u64)> {
        if a == b {
            return Ok((1, 1));
        }
        if let Some(k) = a.integer_ratio(b) {
            return Ok((1, k));
        }
        if let Some(k) = b.integer_ratio(a) {
            return Ok((k, 1));
        }
        let ratio = (a.log2() - b.log2()).exp2();
        Err(Error::ScaleMismatch(format!(
            "scales {a} and {b} (ratio {ratio:.9}) differ by a non-integer factor: operands \
             rescaled by different primes carry slightly different scales; rescale the operand \
             with the larger scale, or reorder the computation (e.g. Horner's rule) so that \
             both operands went through the same rescalings"
        )))
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
        let (ka, kb) = Self::scale_factor(&a.scale, &b.scale)?;
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

    /// `a + b`.
    pub fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.add_sub(a, b, false)
    }

    /// `a - b`.
    pub fn sub(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.add_sub(a, b, true)
    }

    /// `-a`.
    pub fn neg(&self, a: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(a)?;
        let mut out = a.clone();
        out.seed = None;
        out.parts.iter_mut().for_each(|p| p.neg_assign(self.ring()));
        Ok(out)
    }

    /// Aligns a plaintext to a ciphertext's level (dropping limbs of whichever is higher).
    fn plain_at<'a>(
        &self,
        ct: &'a Ciphertext,
        pt: &'a Plaintext,
    ) -> Result<(Cow<'a, Ciphertext>, Cow<'a, Poly>)> {
        self.ctx.check_ciphertext(ct)?;
        self.ctx.check_plaintext(pt)?;
        if ct.slots != pt.slots {
            return Err(Error::ParameterMismatch(format!(
                "ciphertext has {} slots and plaintext {}; encode with the same slot count",
                ct.slots, pt.slots
            )));
        }
        let level = ct.level().min(pt.level());
        let p = if pt.level() == level {
            Cow::Borrowed(&pt.poly)
        } else {
            Cow::Owned(pt.poly.truncated(level + 1))
        };
        Ok((self.at_level(ct, level), p))
    }

    fn add_sub_plain(&self, ct: &Ciphertext, pt: &Plaintext, sub: bool) -> Result<Ciphertext> {
        let (c, p) = self.plain_at(ct, pt)?;
        let (kc, kp) = Self::scale_factor(&c.scale, &pt.scale)?;
        let mut out = c.into_owned();
        out.seed = None;
        self.mul_integer_parts(&mut out.parts, kc);
        let mut p = p.into_owned();
        if kp != 1 {
            self.mul_integer_parts(std::slice::from_mut(&mut p), kp);
        }
        if sub {
            out.parts[0].sub_assign(&p, self.ring());
        } else {
            out.parts[0].add_assign(&p, self.ring());
        }
        out.scale = out.scale.mul_integer(kc);
        Ok(out)
    }

    /// `ct + pt`.
    pub fn add_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        self.add_sub_plain(ct, pt, false)
    }

    /// `ct - pt`.
    pub fn sub_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        self.add_sub_plain(ct, pt, true)
    }

    /// `ct * pt` (scales multiply; rescale afterwards).
    pub fn mul_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        let (c, p) = self.plain_at(ct, pt)?;
        let mut out = c.into_owned();
        out.seed = None;
        for part in out.parts.iter_mut() {
            part.mul_assign(&p, self.ring());
        }
        out.scale = out.scale.mul(&pt.scale);
        Ok(out)
    }

    /// The residues of `round(x)` over the first `q_limbs` chain primes, or an error if
    /// `|round(x)|` does not fit in `(-Q_l/2, Q_l/2)`.
    fn constant_residues(&self, x: f64, q_limbs: usize) -> Result<Vec<u64>> {
        let r = x.round();
        let log_q = self.ring().q().slice(0..q_limbs).log_product();
        if !r.is_finite() || (r != 0.0 && r.abs().log2() >= log_q - 1.0) {
            return Err(Error::InvalidMessage(format!(
                "constant scaled to {x:e} does not fit modulo Q = 2^{log_q:.1}; use a smaller \
                 constant or a lower scale"
            )));
        }
        Ok((0..q_limbs)
            .map(|i| self.ring().modulus(i, q_limbs).reduce_f64(r))
            .collect())
    }

    /// `ct + c` for a complex constant `c` (encoded at the ciphertext's scale).
    pub fn add_const(&self, ct: &Ciphertext, c: Complex64) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        let mut out = ct.clone();
        out.seed = None;
        let ql = ct.level() + 1;
        let delta = ct.scale.to_f64();
        let ring = self.ring();
        let re = self.constant_residues(c.re * delta, ql)?;
        out.parts[0].add_scalar_assign(&re, ring);
        if c.im != 0.0 {
            let im = self.constant_residues(c.im * delta, ql)?;
            // i·b is the constant polynomial b·X^(N/2).
            let mut t = ring.zero(ql, 0, Form::Ntt);
            t.add_scalar_assign(&im, ring);
            t.mul_monomial_half_assign(ring);
            out.parts[0].add_assign(&t, ring);
        }
        Ok(out)
    }

    /// `ct * c` for a complex constant `c`, encoded at scale `q_l` (the last prime of the
    /// ciphertext's level), so that [`Evaluator::rescale`] afterwards restores the scale
    /// exactly.
    pub fn mul_const(&self, ct: &Ciphertext, c: Complex64) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        let ql = ct.level() + 1;
        let cs = self.ctx.constant_scale(ct.level());
        let delta = cs.to_f64();
        let ring = self.ring();
        let re = self.constant_residues(c.re * delta, ql)?;
        let im = self.constant_residues(c.im * delta, ql)?;
        let mut out = ct.clone();
        out.seed = None;
        for part in out.parts.iter_mut() {
            let mut t = part.clone();
            part.mul_scalar_assign(&re, ring);
            if c.im != 0.0 {
                t.mul_monomial_half_assign(ring);
                t.mul_scalar_assign(&im, ring);
                part.add_assign(&t, ring);
            }
        }
        out.scale = out.scale.mul(&cs);
        Ok(out)
    }

    /// `ct * k` for an integer `k` (exact; the scale is unchanged).
    pub fn mul_integer(&self, ct: &Ciphertext, k: i64) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        let mut out = ct.clone();
        out.seed = None;
        let ring = self.ring();
        for part in out.parts.iter_mut() {
            let ql = part.q_limbs();
            let s: Vec<u64> = (0..ql).map(|i| ring.modulus(i, ql).reduce_i64(k)).collect();
            part.mul_scalar_assign(&s, ring);
        }
        Ok(out)
    }

    /// `ct * i` (exact: multiplication by the monomial `X^(N/2)`).
    pub fn mul_by_i(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        let mut out = ct.clone();
        out.seed = None;
        out.parts
            .iter_mut()
            .for_each(|p| p.mul_monomial_half_assign(self.ring()));
        Ok(out)
    }

    /// `ct * X^k` (exact; a negacyclic shift of the plaintext coefficients).
    pub fn mul_monomial(&self, ct: &Ciphertext, k: usize) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        let mut out = ct.clone();
        out.seed = None;
        for p in out.parts.iter_mut() {
            p.intt(self.ring());
            p.mul_monomial_assign(k, self.ring());
            p.ntt(self.ring());
        }
        Ok(out)
    }

    /// The degree-2 product `(a_0 b_0, a_0 b_1 + a_1 b_0, a_1 b_1)` (no relinearization).
    pub fn mul_no_relin(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.check_pair(a, b)?;
        if a.degree() != 1 || b.degree() != 1 {
            return Err(Error::ParameterMismatch(
                "multiplication needs degree-1 operands: relinearize first".into(),
            ));
        }
        let level = a.level().min(b.level());
        let (a, b) = (self.at_level(a, level), self.at_level(b, level));
        let ring = self.ring();
        let ql = level + 1;
        let [mut d0, mut d1, mut d2] = [0, 1, 2].map(|_| ring.scratch_poly(ql, 0, Form::Ntt));
        Poly::mul_into(&a.parts[0], &b.parts[0], &mut d0, ring);
        Poly::mul_into(&a.parts[0], &b.parts[1], &mut d1, ring);
        d1.mul_add_assign(&a.parts[1], &b.parts[0], ring);
        Poly::mul_into(&a.parts[1], &b.parts[1], &mut d2, ring);
        Ok(Ciphertext {
            ring_id: a.ring_id,
            parts: vec![d0, d1, d2],
            scale: a.scale.mul(&b.scale),
            slots: a.slots,
            seed: None,
        })
    }

    /// Relinearizes a degree-2 ciphertext back to degree 1.
    pub fn relinearize(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.relinearize_owned(ct.clone())
    }

    fn relinearize_owned(&self, mut ct: Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(&ct)?;
        if ct.degree() == 1 {
            return Ok(ct);
        }
        if ct.degree() != 2 {
            return Err(Error::ParameterMismatch(format!(
                "cannot relinearize a degree-{} ciphertext",
                ct.degree()
            )));
        }
        let rlk = self.relin.as_ref().ok_or_else(|| {
            Error::MissingKey(
                "no relinearization key: build the Evaluator with \
                 CkksContext::generate_relinearization_key"
                    .into(),
            )
        })?;
        self.check_key(&rlk.0)?;
        let ring = self.ring();
        let c2 = ct.parts.pop().expect("degree 2");
        let [u0, u1] = self.ctx.keyswitcher().switch(&c2, &rlk.0);
        ring.recycle(c2);
        ct.parts[0].add_assign(&u0, ring);
        ct.parts[1].add_assign(&u1, ring);
        ring.recycle(u0);
        ring.recycle(u1);
        ct.seed = None;
        Ok(ct)
    }

    /// `a * b`, relinearized (scales multiply; rescale afterwards).
    pub fn mul(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        if self.relin.is_none() {
            return Err(Error::MissingKey(
                "no relinearization key: build the Evaluator with \
                 CkksContext::generate_relinearization_key"
                    .into(),
            ));
        }
        self.relinearize_owned(self.mul_no_relin(a, b)?)
    }

    /// `a^2`, relinearized.
    pub fn square(&self, a: &Ciphertext) -> Result<Ciphertext> {
        self.mul(a, a)
    }

    /// Divides by the last prime `q_l` of the level (rounding), dropping one level; the
    /// scale is divided by `q_l` exactly.
    pub fn rescale(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        if ct.level() == 0 {
            return Err(Error::OutOfLevels(
                "cannot rescale a ciphertext at level 0: the computation needs more levels \
                 (a longer modulus chain) or fewer multiplications"
                    .into(),
            ));
        }
        let q_last = self.ring().q().moduli()[ct.level()].value();
        let mut out = ct.clone();
        out.seed = None;
        out.parts
            .iter_mut()
            .for_each(|p| p.divide_round_by_last_q(self.ring()));
        out.scale = ct.scale.div_integer(q_last);
        Ok(out)
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
        let mut out = ct.clone();
        out.seed = None;
        out.parts
            .iter_mut()
            .for_each(|p| p.mul_scalar_assign(&c, self.ring()));
        out.scale = ct.scale.mul(&x);
        self.rescale(&out)
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

    fn check_key(&self, key: &SwitchingKey) -> Result<()> {
        self.ctx.check_ring_id(key.ring_id(), "evaluation key")?;
        if !self.ctx.keyswitcher().owns(key) {
            return Err(Error::ParameterMismatch(format!(
                "evaluation key does not belong to these parameters' key-switching engine \
                 ({}, dnum {}): generate it with this context",
                self.ctx.key_switch_method().name(),
                self.ctx.dnum()
            )));
        }
        Ok(())
    }

    fn galois_key(&self, g: usize, what: &str) -> Result<&GaloisKey> {
        let key = self.galois.get(g).ok_or_else(|| {
            Error::MissingKey(format!(
                "no Galois key for {what} (Galois element {g}): include it in \
                 CkksContext::generate_galois_keys"
            ))
        })?;
        self.check_key(&key.key)?;
        Ok(key)
    }

    /// Applies the automorphism `g` to `(c0 + u0, u1)`.
    fn finish_automorphism(&self, ct: &Ciphertext, g: usize, u: [Poly; 2]) -> Ciphertext {
        let ring = self.ring();
        let [u0, u1] = u;
        let ql = u0.q_limbs();
        let [mut out0, mut out1] = [0, 1].map(|_| ring.scratch_poly(ql, 0, Form::Ntt));
        u0.add_then_automorphism(&ct.parts[0], g, ring, &mut out0);
        u1.automorphism(g, ring, &mut out1);
        ring.recycle(u0);
        ring.recycle(u1);
        Ciphertext {
            ring_id: ct.ring_id,
            parts: vec![out0, out1],
            scale: ct.scale.clone(),
            slots: ct.slots,
            seed: None,
        }
    }

    fn check_degree_one(ct: &Ciphertext) -> Result<()> {
        if ct.degree() != 1 {
            return Err(Error::ParameterMismatch(
                "rotation and conjugation need a degree-1 ciphertext: relinearize first".into(),
            ));
        }
        Ok(())
    }

    /// Applies `X -> X^g` (a Galois automorphism) with its key.
    pub fn automorphism(&self, ct: &Ciphertext, g: usize) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        Self::check_degree_one(ct)?;
        let key = self.galois_key(g, "this automorphism")?;
        let u = self.ctx.keyswitcher().switch(&ct.parts[1], &key.key);
        Ok(self.finish_automorphism(ct, g, u))
    }

    /// The Galois element (and its key) that rotates `ct`'s slots by `steps`, or `None`
    /// when the rotation is the identity (`steps` a multiple of the slot count).
    ///
    /// With `n` slots, rotations by `r`, `r mod n` and `r mod n - n` act identically on the
    /// slots but are different Galois elements when `n < N/2`; whichever has a key is used.
    fn rotation_key(&self, ct: &Ciphertext, steps: i64) -> Result<Option<(usize, &GaloisKey)>> {
        let n = ct.slots as i64;
        let r = steps.rem_euclid(n);
        if r == 0 {
            return Ok(None);
        }
        let big_n = self.ctx.n();
        for cand in [steps, r, r - n] {
            let g = galois_element_for_rotation(cand, big_n);
            if let Some(k) = self.galois.get(g) {
                self.check_key(&k.key)?;
                return Ok(Some((g, k)));
            }
        }
        let g = galois_element_for_rotation(steps, big_n);
        Err(Error::MissingKey(format!(
            "no Galois key for rotation by {steps} (Galois element {g}): include the step \
             in CkksContext::generate_galois_keys"
        )))
    }

    /// Rotates the slots left by `steps` (right for negative `steps`).
    pub fn rotate(&self, ct: &Ciphertext, steps: i64) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        Self::check_degree_one(ct)?;
        match self.rotation_key(ct, steps)? {
            None => Ok(ct.clone()),
            Some((g, key)) => {
                let u = self.ctx.keyswitcher().switch(&ct.parts[1], &key.key);
                Ok(self.finish_automorphism(ct, g, u))
            }
        }
    }

    /// Complex conjugation of every slot.
    pub fn conjugate(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        Self::check_degree_one(ct)?;
        let g = galois_element_for_conjugation(self.ctx.n());
        let key = self.galois_key(g, "conjugation")?;
        let u = self.ctx.keyswitcher().switch(&ct.parts[1], &key.key);
        Ok(self.finish_automorphism(ct, g, u))
    }

    /// Rotations by each of `steps` with one shared decomposition of `c_1` (hoisting,
    /// seed 003 Alg. 4). Returns the rotated ciphertexts in the order of `steps`.
    pub fn rotate_hoisted(&self, ct: &Ciphertext, steps: &[i64]) -> Result<Vec<Ciphertext>> {
        self.ctx.check_ciphertext(ct)?;
        Self::check_degree_one(ct)?;
        let keys = steps
            .iter()
            .map(|&s| self.rotation_key(ct, s))
            .collect::<Result<Vec<_>>>()?;
        let ks = self.ctx.keyswitcher();
        let d = ks.decompose(&ct.parts[1]);
        let out = keys
            .into_iter()
            .map(|key| match key {
                None => ct.clone(),
                Some((g, key)) => {
                    let acc = ks.multiply(&d, &key.key, ct.level() + 1);
                    self.finish_automorphism(ct, g, ks.mod_down(acc))
                }
            })
            .collect();
        ks.recycle(d);
        Ok(out)
    }
}
