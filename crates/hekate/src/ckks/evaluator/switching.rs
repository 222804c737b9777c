//! The CKKS operations that key-switch: multiplication with relinearization, rotations,
//! conjugation, hoisted rotations and rotation sums. Each checks the CKKS rules (ring,
//! degree, slots, scales), maps slot rotations to Galois elements, and leaves key lookup,
//! key switching, automorphisms and hoisting to the RLWE evaluator core
//! ([`crate::rlwe::Evaluator`]).

use super::Evaluator;
use crate::ckks::{Ciphertext, Plaintext};
use crate::ring::automorphism::{galois_element_for_conjugation, galois_element_for_rotation};
use crate::ring::{Form, Poly};
use crate::rlwe::evaluation_keys::{GaloisKey, RelinearizationKey};
use crate::rlwe::ExtendedBlock;
use crate::{Error, Result};

const NO_RELIN_KEY: &str = "no relinearization key: build the Evaluator with \
                            CkksContext::generate_relinearization_key";

impl Evaluator {
    /// The degree-2 product `(a_0 b_0, a_0 b_1 + a_1 b_0, a_1 b_1)` (no relinearization).
    pub fn mul_no_relin(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.check_pair(a, b)?;
        if a.degree() != 1 || b.degree() != 1 {
            return Err(Error::ParameterMismatch(
                "multiplication needs degree-1 operands: relinearize first".into(),
            ));
        }
        let level = a.level().min(b.level());
        let ring = self.ring();
        let ql = level + 1;
        let [mut d0, mut d1, mut d2] = [0, 1, 2].map(|_| ring.scratch_poly(ql, 0, Form::Ntt));
        // The operands read at the lower level in place (no copies down).
        Poly::tensor_into(
            [&a.parts[0], &a.parts[1]],
            [&b.parts[0], &b.parts[1]],
            [&mut d0, &mut d1, &mut d2],
            ring,
        );
        Ok(Ciphertext {
            ring_id: a.ring_id,
            parts: vec![d0, d1, d2],
            scale: a.scale.mul(&b.scale),
            slots: a.slots,
            seed: None,
        })
    }

    /// The relinearization key, or the error saying how to get one.
    fn relin_key(&self) -> Result<&RelinearizationKey> {
        self.core
            .relinearization_key()?
            .ok_or_else(|| Error::MissingKey(NO_RELIN_KEY.into()))
    }

    /// Relinearizes a degree-2 ciphertext back to degree 1.
    pub fn relinearize(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.copied(ct, |o| self.relinearize_assign(o))
    }

    /// [`Evaluator::relinearize`] in place.
    pub fn relinearize_assign(&self, ct: &mut Ciphertext) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        if ct.degree() == 1 {
            return Ok(());
        }
        if ct.degree() != 2 {
            return Err(Error::ParameterMismatch(format!(
                "cannot relinearize a degree-{} ciphertext",
                ct.degree()
            )));
        }
        let rlk = self.relin_key()?;
        self.core.relinearize_with(&mut ct.parts, rlk)?;
        ct.seed = None;
        Ok(())
    }

    /// `a * b`, relinearized (scales multiply; rescale afterwards).
    pub fn mul(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        if self.keys().relinearization_key().is_none() {
            return Err(Error::MissingKey(NO_RELIN_KEY.into()));
        }
        let mut out = self.mul_no_relin(a, b)?;
        self.relinearize_assign(&mut out)?;
        Ok(out)
    }

    /// `(k a b + addend) / q_l`: multiplies, relinearizes, multiplies by the integer `k`,
    /// adds `addend` and rescales in one call, with the words of [`Evaluator::mul`],
    /// [`Evaluator::mul_integer_assign`], [`Evaluator::add_assign`] and
    /// [`Evaluator::rescale_assign`] in sequence; the relinearization's ModDown is fused
    /// into the rescale (with the hybrid engine, `l + 1` forward NTTs fewer per part: a
    /// product at `l + 1` limbs costs about a fifth fewer transforms). The output scale is
    /// `a`'s times `b`'s divided by `q_l`, at the level below the operands' lower one.
    /// `addend` (e.g. `-T_{a-b}` of a Chebyshev recurrence) is meant to be at the product's
    /// scale and at least its level; any other addend is added as [`Evaluator::add_assign`]
    /// would, the steps then running one after the other (same result, no saving).
    pub fn mul_relin_rescale(
        &self,
        a: &Ciphertext,
        b: &Ciphertext,
        k: i64,
        addend: Option<&Ciphertext>,
    ) -> Result<Ciphertext> {
        self.relin_key()?;
        let d = self.mul_no_relin(a, b)?;
        self.relinearize_rescale(d, k, addend)
    }

    /// `(Σ_j a_j b_j + addend) / q_l` with **one** relinearization: the degree-2 products
    /// `(d_0, d_1, d_2)` of every pair are summed first (lazy relinearization: a sum of
    /// `m` products costs one key switch instead of `m`), then relinearized, `addend`
    /// added and the sum rescaled, fused as in [`Evaluator::mul_relin_rescale`]. The words
    /// are those of [`Evaluator::mul_no_relin`] per pair, [`Evaluator::add_assign`] of the
    /// products in order, [`Evaluator::relinearize_assign`], [`Evaluator::add_assign`] of
    /// `addend` and [`Evaluator::rescale_assign`]. Every product must land at one level
    /// (each at its operands' lower one) and one scale (as `addend`'s, for the fusion):
    /// the giant steps of a polynomial's evaluation, `Σ_j q_j · B_{g_j} + r`
    /// ([`crate::circuits::polyeval`]). With one pair it is
    /// [`Evaluator::mul_relin_rescale`] with `k = 1`.
    pub fn mul_sum_relin_rescale(
        &self,
        pairs: &[(&Ciphertext, &Ciphertext)],
        addend: Option<&Ciphertext>,
    ) -> Result<Ciphertext> {
        let ((a, b), rest) = pairs.split_first().ok_or_else(|| {
            Error::InvalidParameters("a sum of products needs at least one pair".into())
        })?;
        self.relin_key()?;
        let mut d = self.mul_no_relin(a, b)?;
        for (a, b) in rest {
            let e = self.mul_no_relin(a, b)?;
            if e.level() != d.level() || e.scale != d.scale {
                return Err(Error::ParameterMismatch(format!(
                    "the products of a sum must share one level and scale: level {} at \
                     2^{:.2} against level {} at 2^{:.2}",
                    e.level(),
                    e.scale.log2(),
                    d.level(),
                    d.scale.log2()
                )));
            }
            self.add_assign(&mut d, &e)?;
            e.parts.into_iter().for_each(|p| self.ring().recycle(p));
        }
        self.relinearize_rescale(d, 1, addend)
    }

    /// The end of [`Evaluator::mul_relin_rescale`] for a degree-2 `d`: `(k relin(d) +
    /// addend) / q_l`, the relinearization's ModDown fused into the rescale when `addend`
    /// is at `d`'s scale and at least its level.
    fn relinearize_rescale(
        &self,
        mut d: Ciphertext,
        k: i64,
        addend: Option<&Ciphertext>,
    ) -> Result<Ciphertext> {
        let rlk = self.relin_key()?;
        if d.level() == 0 {
            return Err(Error::OutOfLevels(
                "cannot rescale the product of ciphertexts at level 0: the computation needs \
                 more levels (a longer modulus chain) or fewer multiplications"
                    .into(),
            ));
        }
        let fused =
            addend.is_none_or(|w| w.degree() == 1 && w.scale == d.scale && w.level() >= d.level());
        if !fused {
            self.relinearize_assign(&mut d)?;
            if k != 1 {
                self.mul_integer_assign(&mut d, k)?;
            }
            if let Some(w) = addend {
                self.add_assign(&mut d, w)?;
            }
            self.rescale_assign(&mut d)?;
            return Ok(d);
        }
        // The addend is read at the product's level in place (no copy of its limbs).
        let q_last = self.ring().q().moduli()[d.level()].value();
        self.core
            .relinearize_rescale_with(&mut d.parts, k, addend.map(|w| &w.parts[..]), rlk)?;
        d.scale = d.scale.div_integer(q_last);
        Ok(d)
    }

    /// `a *= b`, relinearized (in place; the same words as [`Evaluator::mul`]).
    pub fn mul_assign(&self, a: &mut Ciphertext, b: &Ciphertext) -> Result<()> {
        let out = self.mul(a, b)?;
        let old = std::mem::replace(a, out);
        old.parts.into_iter().for_each(|p| self.ring().recycle(p));
        Ok(())
    }

    /// `a^2`, relinearized.
    pub fn square(&self, a: &Ciphertext) -> Result<Ciphertext> {
        self.mul(a, a)
    }

    /// `a = a^2`, relinearized (in place).
    pub fn square_assign(&self, a: &mut Ciphertext) -> Result<()> {
        let out = self.square(a)?;
        let old = std::mem::replace(a, out);
        old.parts.into_iter().for_each(|p| self.ring().recycle(p));
        Ok(())
    }

    fn check_degree_one(ct: &Ciphertext) -> Result<()> {
        if ct.degree() != 1 {
            return Err(Error::ParameterMismatch(
                "rotation and conjugation need a degree-1 ciphertext: relinearize first".into(),
            ));
        }
        Ok(())
    }

    /// The checked Galois key for `g`, or the error naming what it was for.
    fn galois_key(&self, g: usize, what: &str) -> Result<&GaloisKey> {
        self.core.galois_key(g)?.ok_or_else(|| {
            Error::MissingKey(format!(
                "no Galois key for {what} (Galois element {g}): include it in \
                 CkksContext::generate_galois_keys"
            ))
        })
    }

    /// Applies `X -> X^g` (a Galois automorphism) with its key.
    pub fn automorphism(&self, ct: &Ciphertext, g: usize) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        Self::check_degree_one(ct)?;
        let key = self.galois_key(g, "this automorphism")?;
        let parts = self.core.automorphism_with(&ct.parts, key)?;
        Ok(Self::with_parts(ct, parts))
    }

    /// The Galois element (and its key) that rotates `ct`'s slots by `steps`, or `None`
    /// when the rotation is the identity (`steps` a multiple of the slot count).
    ///
    /// With `n` slots, rotations by `r`, `r mod n` and `r mod n - n` act identically on the
    /// slots but are different Galois elements when `n < N/2`; whichever has a key is used
    /// (the first whose key covers `ct`'s level, else the first, refused later for its
    /// level).
    fn rotation_key(&self, ct: &Ciphertext, steps: i64) -> Result<Option<&GaloisKey>> {
        let n = ct.slots as i64;
        let r = steps.rem_euclid(n);
        if r == 0 {
            return Ok(None);
        }
        let big_n = self.ctx.n();
        let mut narrow = None;
        for cand in [steps, r, r - n] {
            let g = galois_element_for_rotation(cand, big_n);
            if let Some(k) = self.core.galois_key(g)? {
                if k.key().covers(ct.level() + 1) {
                    return Ok(Some(k));
                }
                narrow.get_or_insert(k);
            }
        }
        if narrow.is_some() {
            return Ok(narrow);
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
            Some(key) => {
                let parts = self.core.automorphism_with(&ct.parts, key)?;
                Ok(Self::with_parts(ct, parts))
            }
        }
    }

    /// [`Evaluator::rotate`] in place.
    pub fn rotate_assign(&self, ct: &mut Ciphertext, steps: i64) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        Self::check_degree_one(ct)?;
        if let Some(key) = self.rotation_key(ct, steps)? {
            let parts = self.core.automorphism_with(&ct.parts, key)?;
            self.replace_parts(ct, parts);
        }
        Ok(())
    }

    /// Complex conjugation of every slot.
    pub fn conjugate(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        Self::check_degree_one(ct)?;
        let g = galois_element_for_conjugation(self.ctx.n());
        let key = self.galois_key(g, "conjugation")?;
        let parts = self.core.automorphism_with(&ct.parts, key)?;
        Ok(Self::with_parts(ct, parts))
    }

    /// [`Evaluator::conjugate`] in place.
    pub fn conjugate_assign(&self, ct: &mut Ciphertext) -> Result<()> {
        let out = self.conjugate(ct)?;
        self.replace_parts(ct, out.parts);
        Ok(())
    }

    /// Replaces `ct`'s parts by `parts` (a key-switched result), recycling the old ones.
    fn replace_parts(&self, ct: &mut Ciphertext, parts: Vec<Poly>) {
        let old = std::mem::replace(&mut ct.parts, parts);
        old.into_iter().for_each(|p| self.ring().recycle(p));
        ct.seed = None;
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
        let d = self.core.decompose(&ct.parts)?;
        let out = keys
            .into_iter()
            .map(|key| match key {
                None => Ok(ct.clone()),
                Some(key) => {
                    let parts = self.core.automorphism_hoisted(&ct.parts, &d, key)?;
                    Ok(Self::with_parts(ct, parts))
                }
            })
            .collect();
        self.core.recycle(d);
        out
    }

    /// The terms of a rotation sum (`what` names it in errors), checked to share a level, a
    /// scale and a slot count, each with the Galois element of its rotation (1 for none):
    /// the first ciphertext and the parts for the RLWE core.
    fn rotation_terms<'a>(
        &self,
        terms: &[(&'a Ciphertext, i64)],
        what: &str,
    ) -> Result<(&'a Ciphertext, RotationParts<'a>)> {
        let Some(&(first, _)) = terms.first() else {
            return Err(Error::ParameterMismatch(format!(
                "a {what} needs at least one term"
            )));
        };
        let mut parts = Vec::with_capacity(terms.len());
        for &(ct, steps) in terms {
            self.check_pair(first, ct)?;
            Self::check_degree_one(ct)?;
            if ct.scale != first.scale || ct.level() != first.level() {
                return Err(Error::ScaleMismatch(format!(
                    "the terms of a {what} must share a level and a scale"
                )));
            }
            let g = self
                .rotation_key(ct, steps)?
                .map_or(1, |k| k.galois_element());
            parts.push((ct.parts.as_slice(), g));
        }
        Ok((first, parts))
    }

    /// `Σ_j rotate(ct_j, steps_j)` with one ModDown for all the rotations (double hoisting:
    /// the giant steps of a BSGS linear transform). The terms must share a level, a scale
    /// and a slot count. The result equals the sum of separate rotations up to the
    /// rounding of one ModDown instead of several.
    pub fn rotate_sum(&self, terms: &[(&Ciphertext, i64)]) -> Result<Ciphertext> {
        let (first, parts) = self.rotation_terms(terms, "rotation sum")?;
        let out = self.core.automorphism_sum(&parts)?;
        Ok(Self::with_parts(first, out))
    }

    /// `rot_{s_0}(ct_0 + rot_{s_1}(ct_1 + ... + rot_{s_m}(ct_m)))` for the terms
    /// `(ct_k, s_k)` (one level, scale and slot count): `ct_k` is rotated by
    /// `s_0 + ... + s_k` in all, with keys only for the distinct `s_k` (Horner giant steps
    /// of a BSGS linear transform). Each non-zero step is one key switch; all but the
    /// last bring down only their `u_1` half, the `u_0` halves being summed before one
    /// ModDown ([`rlwe::Evaluator::automorphism_horner`](crate::rlwe::Evaluator::automorphism_horner)).
    /// The result equals the nested separate rotations up to ModDown rounding.
    pub fn rotate_horner(&self, terms: &[(&Ciphertext, i64)]) -> Result<Ciphertext> {
        let (first, parts) = self.rotation_terms(terms, "Horner rotation sum")?;
        let out = self.core.automorphism_horner(&parts)?;
        Ok(Self::with_parts(first, out))
    }

    /// With `nested`, `rot_{s_0}(S_0 + rot_{s_1}(S_1 + ... + rot_{s_m}(S_m)))` (Horner
    /// giant steps), else `Σ_t rot_{s_t}(S_t)`, for the giant steps `(terms_t, s_t)`
    /// (outermost first), `S_t = Σ_{(j, pt) ∈ terms_t} pt ⊙ rot_{b_j}(ct)` with the baby
    /// steps `b = babies`: a BSGS linear transform by seed 003 Alg. 6, the
    /// baby rotations and the products kept over `Q_l ∪ P` and brought down once
    /// ([`rlwe::Evaluator::bsgs_extended`](crate::rlwe::Evaluator::bsgs_extended)). The
    /// diagonals come from [`CkksContext::encode_extended_at`](crate::ckks::CkksContext::encode_extended_at)
    /// at `ct`'s level, all at one scale; the result is at `ct`'s level and scale
    /// `Δ_ct · Δ_pt`, not rescaled. It equals the single-hoisted evaluation
    /// (rotate_hoisted, mul_plain_sum, then rotate_horner or rotate_sum) up to ModDown
    /// rounding.
    pub fn bsgs_extended(
        &self,
        ct: &Ciphertext,
        babies: &[i64],
        blocks: &[ExtendedBlock<'_, Plaintext, i64>],
        nested: bool,
    ) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        Self::check_degree_one(ct)?;
        let Some(&(first, _)) = blocks.iter().find(|(t, _)| !t.is_empty()) else {
            return Err(Error::ParameterMismatch(
                "a BSGS sum needs at least one product".into(),
            ));
        };
        let scale = first[0].1.scale.clone();
        let mut polys = Vec::with_capacity(blocks.len());
        for &(terms, _) in blocks {
            let mut t = Vec::with_capacity(terms.len());
            for &(j, pt) in terms {
                self.ctx.check_plaintext(pt)?;
                if pt.slots != ct.slots || pt.level() != ct.level() || pt.scale != scale {
                    return Err(Error::ParameterMismatch(format!(
                        "the diagonals of a BSGS sum must share the ciphertext's slots \
                         ({}) and level ({}) and one scale",
                        ct.slots,
                        ct.level()
                    )));
                }
                t.push((j, &pt.poly));
            }
            polys.push(t);
        }
        let element = |s: i64| -> Result<usize> {
            Ok(self.rotation_key(ct, s)?.map_or(1, |k| k.galois_element()))
        };
        let babies = babies
            .iter()
            .map(|&s| element(s))
            .collect::<Result<Vec<_>>>()?;
        let mut core_blocks = Vec::with_capacity(blocks.len());
        for (t, &(_, s)) in polys.iter().zip(blocks) {
            core_blocks.push((&t[..], element(s)?));
        }
        let parts = self
            .core
            .bsgs_extended(&ct.parts, &babies, &core_blocks, nested)?;
        let mut out = Self::with_parts(ct, parts);
        out.scale = ct.scale.mul(&scale);
        Ok(out)
    }
}

/// The parts of each term of a rotation sum with its Galois element, for the RLWE core.
type RotationParts<'a> = Vec<(&'a [Poly], usize)>;
