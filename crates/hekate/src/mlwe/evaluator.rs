//! MLWE-CKKS evaluation: additions, plaintext and constant operations, the tensor
//! product, relinearization (ModHE and DPad-HE) and rescaling.
//!
//! **Tensor** of `(b, a)` and `(b', a')` (rank `r`): `(b b', b a' + b' a, a ⊗ a')` with
//! `(a ⊗ a')_{jk} = a_j a'_k + a_k a'_j` for `j < k` and `a_j a'_j` on the diagonal, since
//! `(b + <a, s>)(b' + <a', s>) = b b' + <b a' + b' a, s> + sum_{j<=k} (a ⊗ a')_{jk} s_j s_k`:
//! `(r + 1)^2` products per limb when `j != k` terms are summed (seed 004 Table 1).
//!
//! **Relinearization** folds the quadratic parts back into rank `r`:
//!
//! * ModHE: `(b, a) + KeySwitch_d(c_quad, rlk)`, `rlk = KSGen(s⊗s, s, g)`: `C(r+1, 2)`
//!   decompositions of `d` digits, inner products into `1 + r` columns.
//! * DPad-HE (Alg. 1): `(ĉ_0, ĉ) = KeySwitch_μ(c_quad, crk)` into rank `r̂` under
//!   `s‖s'` with `μ < d` digits over `P̂Q`; then `(č_0, č) = KeySwitch_d(ĉ[r..r̂], rdk)`
//!   brings the `r̂ - r` extra components back under `s`; the result is
//!   `(b + ĉ_0 + č_0, a + ĉ[..r] + č)`. The expensive step has `μ` digits instead of `d`;
//!   only `r̂ - r` polynomials (not `C(r+1, 2)`) pay `d` digits.
//!
//! **Rescale** divides every part by the last prime, as in CKKS.

use super::ciphertext::Ciphertext;
use super::keys::{quadratic_terms, RankReductionKey, RelinMethod, RelinearizationKey};
use super::params::MlweContext;
use crate::ckks::{constant_residues, Plaintext};
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::{HybridKeySwitcher, ModuleKey};
use crate::{Error, Result};
use std::sync::Arc;

/// `head + KeySwitch_d(tail, key)`, component by component: the fold that ends seed 004's
/// `RankReduce` (`(b, a[..to]) + KeySwitch_d(a[to..], rdk)`), ModHE's relinearization
/// (the quadratic terms switched into `(b, a)`), DPad-HE's second stage and lowering a
/// rank-hoisted sequence back to `r`. `key` switches `tail.len()` (or more) components to
/// `head.len() - 1`.
pub(super) fn fold_to_rank(
    ks: &HybridKeySwitcher,
    ring: &RingContext,
    head: &[Poly],
    tail: &[&Poly],
    key: &ModuleKey,
) -> Result<Vec<Poly>> {
    let u = ks.switch_module(tail, key, Form::Ntt)?;
    let mut out = head.to_vec();
    for (o, u) in out.iter_mut().zip(&u) {
        o.add_assign(u, ring);
    }
    Ok(out)
}

/// Evaluates MLWE-CKKS operations with the keys it holds: relinearization keys (one per
/// rank in use) and rank-reduction keys.
#[derive(Debug)]
pub struct Evaluator {
    ctx: Arc<MlweContext>,
    relin: Vec<RelinearizationKey>,
    rank_keys: Vec<RankReductionKey>,
    pub(crate) rotations: super::rotate::RotationKeySet,
}

impl Evaluator {
    /// An evaluator for `ctx` holding `relin` (needed by [`Evaluator::mul`] and
    /// [`Evaluator::relinearize`] at the key's rank).
    pub fn new(ctx: Arc<MlweContext>, relin: Option<RelinearizationKey>) -> Self {
        Evaluator {
            ctx,
            relin: relin.into_iter().collect(),
            rank_keys: Vec::new(),
            rotations: Default::default(),
        }
    }

    /// Adds a relinearization key (for another rank, after rank reduction; a key for a
    /// rank already held replaces it).
    pub fn with_relinearization_key(mut self, key: RelinearizationKey) -> Self {
        self.relin.retain(|k| k.rank() != key.rank());
        self.relin.push(key);
        self
    }

    /// Adds a rank-reduction key (a key for the same ranks replaces it).
    pub fn with_rank_reduction_key(mut self, key: RankReductionKey) -> Self {
        self.rank_keys
            .retain(|k| (k.from, k.to) != (key.from, key.to));
        self.rank_keys.push(key);
        self
    }

    /// The context.
    pub fn context(&self) -> &Arc<MlweContext> {
        &self.ctx
    }

    /// The method of the relinearization key for rank `r`, if it has one.
    pub fn relin_method(&self) -> Option<RelinMethod> {
        self.relin_key(self.ctx.rank).map(|k| k.method())
    }

    pub(crate) fn relin_key(&self, rank: usize) -> Option<&RelinearizationKey> {
        self.relin.iter().find(|k| k.rank() == rank)
    }

    fn ring(&self) -> &RingContext {
        self.ctx.ring()
    }

    fn check_pair(&self, a: &Ciphertext, b: &Ciphertext) -> Result<()> {
        self.ctx.check_ciphertext(a)?;
        self.ctx.check_ciphertext(b)?;
        if a.level() != b.level() {
            return Err(Error::LevelMismatch(format!(
                "MLWE ciphertexts at levels {} and {}: bring them to one level first",
                a.level(),
                b.level()
            )));
        }
        if a.rank != b.rank || a.parts.len() != b.parts.len() {
            return Err(Error::ParameterMismatch(format!(
                "MLWE ciphertexts of rank {} ({} parts) and rank {} ({} parts)",
                a.rank,
                a.parts.len(),
                b.rank,
                b.parts.len()
            )));
        }
        if a.slots != b.slots {
            return Err(Error::ParameterMismatch(format!(
                "MLWE ciphertexts with {} and {} slots",
                a.slots, b.slots
            )));
        }
        Ok(())
    }

    fn check_scales(a: &crate::ckks::Scale, b: &crate::ckks::Scale) -> Result<()> {
        if a != b {
            return Err(Error::ScaleMismatch(format!(
                "scales {a} and {b} differ: only equal scales add (rescale or set_scale first)"
            )));
        }
        Ok(())
    }

    /// `a + b` (same level, rank, slots and scale).
    pub fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.check_pair(a, b)?;
        Self::check_scales(&a.scale, &b.scale)?;
        let mut out = a.unseeded();
        for (x, y) in out.parts.iter_mut().zip(&b.parts) {
            x.add_assign(y, self.ring());
        }
        Ok(out)
    }

    /// `a - b` (same level, rank, slots and scale).
    pub fn sub(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.check_pair(a, b)?;
        Self::check_scales(&a.scale, &b.scale)?;
        let mut out = a.unseeded();
        for (x, y) in out.parts.iter_mut().zip(&b.parts) {
            x.sub_assign(y, self.ring());
        }
        Ok(out)
    }

    /// `-a`.
    pub fn neg(&self, a: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(a)?;
        let mut out = a.unseeded();
        out.parts.iter_mut().for_each(|p| p.neg_assign(self.ring()));
        Ok(out)
    }

    fn plain_at(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Poly> {
        self.ctx.check_ciphertext(ct)?;
        self.ctx.check_plaintext(pt)?;
        let ql = ct.level() + 1;
        if pt.poly.q_limbs() < ql {
            return Err(Error::LevelMismatch(format!(
                "a plaintext at level {} for a ciphertext at level {}: encode it at the \
                 ciphertext's level or higher",
                pt.poly.q_limbs() - 1,
                ql - 1
            )));
        }
        Ok(pt.poly.truncated(ql))
    }

    /// `ct + pt` (equal scales; the plaintext at the ciphertext's level or above).
    pub fn add_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        let p = self.plain_at(ct, pt)?;
        Self::check_scales(&ct.scale, &pt.scale)?;
        let mut out = ct.unseeded();
        out.parts[0].add_assign(&p, self.ring());
        Ok(out)
    }

    /// `ct · pt` (scales multiply; rescale afterwards).
    pub fn mul_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        let p = self.plain_at(ct, pt)?;
        let mut out = ct.unseeded();
        out.parts
            .iter_mut()
            .for_each(|x| x.mul_assign(&p, self.ring()));
        out.scale = out.scale.mul(&pt.scale);
        Ok(out)
    }

    /// `ct + c` for a real constant `c` (encoded at the ciphertext's scale).
    pub fn add_const(&self, ct: &Ciphertext, c: f64) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        let ql = ct.level() + 1;
        let res = constant_residues(self.ring(), c * ct.scale.to_f64(), ql)?;
        let mut out = ct.unseeded();
        out.parts[0].add_scalar_assign(&res, self.ring());
        Ok(out)
    }

    /// `ct · c` for a real constant `c` encoded at scale `q_l` (the ciphertext's last
    /// prime), so that [`Evaluator::rescale`] afterwards restores the scale exactly.
    pub fn mul_const(&self, ct: &Ciphertext, c: f64) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        let ql = ct.level() + 1;
        let q_last = self.ring().q().moduli()[ct.level()].value();
        let res = constant_residues(self.ring(), c * q_last as f64, ql)?;
        let mut out = ct.unseeded();
        out.parts
            .iter_mut()
            .for_each(|p| p.mul_scalar_assign(&res, self.ring()));
        out.scale = out.scale.mul_integer(q_last);
        Ok(out)
    }

    /// The tensor product `a ⊗ b` (see the module documentation): a ciphertext with
    /// quadratic parts at the product of the scales. Both inputs must be linear (not
    /// already products).
    pub fn tensor(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.check_pair(a, b)?;
        if a.is_quadratic() {
            return Err(Error::ParameterMismatch(
                "the tensor product takes linear ciphertexts: relinearize first".into(),
            ));
        }
        let ring = self.ring();
        let r = a.rank;
        let (x, y) = (&a.parts, &b.parts);
        let mut parts = Vec::with_capacity(1 + r + quadratic_terms(r));
        let mut p0 = x[0].clone();
        p0.mul_assign(&y[0], ring);
        parts.push(p0);
        for j in 1..=r {
            let mut t = x[0].clone();
            t.mul_assign(&y[j], ring);
            t.mul_add_assign(&y[0], &x[j], ring);
            parts.push(t);
        }
        for j in 1..=r {
            for k in j..=r {
                let mut t = x[j].clone();
                t.mul_assign(&y[k], ring);
                if j != k {
                    t.mul_add_assign(&x[k], &y[j], ring);
                }
                parts.push(t);
            }
        }
        Ok(Ciphertext {
            ring_id: a.ring_id,
            rank: r,
            parts,
            scale: a.scale.mul(&b.scale),
            slots: a.slots,
            seed: None,
        })
    }

    /// Relinearization with the evaluator's key (ModHE or DPad-HE, whichever it holds):
    /// a rank-`r` ciphertext decrypting to the same message.
    pub fn relinearize(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        if !ct.is_quadratic() {
            return Ok(ct.clone());
        }
        let key = self.relin_key(ct.rank).ok_or_else(|| {
            Error::MissingKey(format!(
                "relinearizing a rank-{} ciphertext needs a relinearization key for rank {}: \
                 add one to the evaluator",
                ct.rank, ct.rank
            ))
        })?;
        let ring = self.ring();
        let r = ct.rank;
        let quad: Vec<&Poly> = ct.parts[1 + r..].iter().collect();
        let out = match key {
            RelinearizationKey::ModHe(rlk) => {
                fold_to_rank(&self.ctx.ks, ring, &ct.parts[..=r], &quad, rlk)?
            }
            RelinearizationKey::DPad { crk, rdk } => {
                let d = self.ctx.dpad.as_ref().ok_or_else(|| {
                    Error::ParameterMismatch("a DPad-HE key for a context without DPad-HE".into())
                })?;
                // Stage 1 to rank r̂ over P̂Q, stage 2 folds r̂ back to r.
                let hat = d.ks.switch_module(&quad, crk, Form::Ntt)?;
                let extra: Vec<&Poly> = hat[1 + r..].iter().collect();
                let back = fold_to_rank(&self.ctx.ks, ring, &hat[..=r], &extra, rdk)?;
                let mut out: Vec<Poly> = ct.parts[..=r].to_vec();
                for (o, b) in out.iter_mut().zip(&back) {
                    o.add_assign(b, ring);
                }
                out
            }
        };
        Ok(Ciphertext {
            ring_id: ct.ring_id,
            rank: r,
            parts: out,
            scale: ct.scale.clone(),
            slots: ct.slots,
            seed: None,
        })
    }

    /// `a · b`, relinearized (scales multiply; rescale afterwards).
    pub fn mul(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.relinearize(&self.tensor(a, b)?)
    }

    /// `RankReduce` (seed 004 §2.4): `(b, a[..to]) + KeySwitch_d(a[to..], rdk)`, a rank-`to`
    /// ciphertext of the same message under `s[..to]`, with the evaluator's key from the
    /// ciphertext's rank to `to`. Errors without that key, or above the key's level (the
    /// lower rank is secure only there).
    ///
    /// The key switch adds its noise (the digits' over `P`, and the ModDown rounding of
    /// about `sqrt(to·n/18)` per coefficient) at the ciphertext's scale: on a product
    /// before its rescale (scale `Δ^2`), the rescale divides it away and the precision is
    /// unchanged (tested within 0.5 bit); on a ciphertext at scale `Δ` it costs about as
    /// much as a fresh encryption's noise.
    pub fn rank_reduce(&self, ct: &Ciphertext, to: usize) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        if ct.is_quadratic() {
            return Err(Error::ParameterMismatch(
                "rank reduction takes a relinearized ciphertext".into(),
            ));
        }
        let key = self
            .rank_keys
            .iter()
            .find(|k| (k.from, k.to) == (ct.rank, to))
            .ok_or_else(|| {
                Error::MissingKey(format!(
                    "no rank-reduction key from rank {} to {to} in the evaluator",
                    ct.rank
                ))
            })?;
        let inputs: Vec<&Poly> = ct.parts[1 + to..].iter().collect();
        let parts = fold_to_rank(
            &self.ctx.ks,
            self.ring(),
            &ct.parts[..=to],
            &inputs,
            &key.key,
        )?;
        Ok(Ciphertext {
            ring_id: ct.ring_id,
            rank: to,
            parts,
            scale: ct.scale.clone(),
            slots: ct.slots,
            seed: None,
        })
    }

    /// Reduces the rank as far as the evaluator's keys and the security schedule allow at
    /// the ciphertext's level (seed 004 RQ4: "one rank is dropped whenever the current
    /// modulus keeps the reduced rank secure"): the lowest rank reachable through a held
    /// key whose level covers the ciphertext. Returns the ciphertext unchanged if none.
    pub fn reduce_rank_if_secure(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        let mut cur = ct.clone();
        while let Some(key) = self
            .rank_keys
            .iter()
            .filter(|k| k.from == cur.rank && k.max_level() >= cur.level())
            .min_by_key(|k| k.to)
        {
            cur = self.rank_reduce(&cur, key.to)?;
        }
        Ok(cur)
    }

    /// Divides by the last prime `q_l`: one level down, the scale divided by `q_l`.
    pub fn rescale(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        if ct.level() == 0 {
            return Err(Error::OutOfLevels(
                "cannot rescale an MLWE ciphertext at level 0: use a longer chain".into(),
            ));
        }
        let q_last = self.ring().q().moduli()[ct.level()].value();
        let mut out = ct.unseeded();
        out.parts
            .iter_mut()
            .for_each(|p| p.divide_round_by_last_q(self.ring()));
        out.scale = out.scale.div_integer(q_last);
        Ok(out)
    }

    /// Drops `levels` chain limbs without dividing (the scale is unchanged).
    pub fn drop_level(&self, ct: &Ciphertext, levels: usize) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        if levels > ct.level() {
            return Err(Error::OutOfLevels(format!(
                "cannot drop {levels} levels from level {}",
                ct.level()
            )));
        }
        let mut out = ct.unseeded();
        let ql = ct.level() + 1 - levels;
        out.parts.iter_mut().for_each(|p| p.truncate(ql));
        Ok(out)
    }
}
