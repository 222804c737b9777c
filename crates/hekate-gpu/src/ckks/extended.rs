//! Seed 003 Alg. 6 on the device: a BSGS linear transform with its baby rotations and
//! products kept over `Q_l ∪ P`, Horner giant steps, the mirror of
//! `hekate::rlwe::Evaluator::bsgs_extended` step for step (the same lifts, products,
//! half ModDowns, decompositions and final ModDown pair, so the same words), on the hybrid
//! engine through hekate's backend seam. The KLSS / linear engines keep no accumulator
//! over `Q_l ∪ P`: there [`DeviceEvaluator::encode_extended`] returns `None` and the
//! transforms run single-hoisted.

use super::circuits::DevicePlaintext;
use super::{DeviceCiphertext, DeviceEvaluator, DeviceKey, Engine};
use crate::error::{Error, Result};
use crate::poly::DevicePoly;
use hekate::ckks::Scale;
use hekate::ring::Form;
use hekate::rlwe::backend::Backend;
use hekate::rlwe::ExtendedBlock;
use num_complex::Complex64;

/// A hybrid key's digits (the only engine Alg. 6 runs on here).
fn hybrid(key: &DeviceKey) -> Result<&Vec<[DevicePoly; 2]>> {
    match key {
        DeviceKey::Hybrid(h) => Ok(h),
        _ => Err(Error::InvalidInput("a key of another engine".into())),
    }
}

impl DeviceEvaluator {
    /// `values` encoded over `Q_l ∪ P` and uploaded, as
    /// [`hekate::ckks::CkksContext::encode_extended_at`]; `None` unless this evaluator runs
    /// the hybrid engine at `level`.
    pub fn encode_extended(
        &self,
        values: &[Complex64],
        slots: usize,
        level: usize,
        scale: &Scale,
    ) -> Result<Option<DevicePlaintext>> {
        if !matches!(self.engine, Engine::Hybrid) {
            return Ok(None);
        }
        match self.ctx.encode_extended_at(values, slots, level, scale)? {
            Some(pt) => Ok(Some(DevicePlaintext::upload(self, &pt)?)),
            None => Ok(None),
        }
    }

    /// The BSGS sum of seed 003 Alg. 6 over `Q_l ∪ P`, its giant steps nested (Horner) or
    /// summed, as [`hekate::ckks::Evaluator::bsgs_extended`]: giant steps `(terms_t, s_t)`
    /// outermost first, each term `(baby index, diagonal from encode_extended)`.
    pub fn bsgs_extended(
        &self,
        ct: &DeviceCiphertext,
        babies: &[i64],
        blocks: &[ExtendedBlock<'_, DevicePlaintext, i64>],
        nested: bool,
    ) -> Result<DeviceCiphertext> {
        let ring = self.ctx.ring();
        let (ql, k) = (ct.level() + 1, ring.p_len());
        if ct.degree() != 1 {
            return Err(Error::InvalidInput(
                "a BSGS sum needs a degree-1 ciphertext".into(),
            ));
        }
        if !matches!(self.engine, Engine::Hybrid) || k == 0 || !self.ctx.keyswitcher().hybrid_at(ql)
        {
            return Err(Error::InvalidInput(
                "Alg. 6 over Q_l ∪ P needs the hybrid key-switching engine at this level".into(),
            ));
        }
        let Some(&(first, _)) = blocks.iter().find(|(t, _)| !t.is_empty()) else {
            return Err(Error::InvalidInput(
                "a BSGS sum needs at least one product".into(),
            ));
        };
        let scale = first[0].1.scale().clone();
        for &(terms, _) in blocks {
            for &(j, pt) in terms {
                let p = pt.poly();
                if j >= babies.len()
                    || p.q_limbs() != ql
                    || p.p_limbs() != k
                    || pt.slots() != ct.slots
                    || *pt.scale() != scale
                {
                    return Err(Error::InvalidInput(format!(
                        "a BSGS term must name one of the {} baby steps and a diagonal over \
                         Q_l ∪ P at the ciphertext's level ({}), slots and one scale",
                        babies.len(),
                        ct.level()
                    )));
                }
            }
        }
        let key = |s: i64| -> Result<Option<(usize, &DeviceKey)>> {
            match self.rotation_key(ct, s)? {
                None => Ok(None),
                Some((g, key)) if key.covers(ql) => Ok(Some((g, key))),
                Some(_) => Err(Error::InvalidInput(
                    "the Galois key does not cover this level".into(),
                )),
            }
        };
        let baby_keys = babies.iter().map(|&s| key(s)).collect::<Result<Vec<_>>>()?;
        let giant_keys = blocks
            .iter()
            .map(|&(_, s)| key(s))
            .collect::<Result<Vec<_>>>()?;
        let dctx = &*self.dctx;

        // (P c_0, P c_1) and (φ_g(P c_0 + u_0), φ_g(u_1)) over Q_l ∪ P.
        let p_mod_q = ring.p_residues(ql);
        let lift = |c: &DevicePoly| -> Result<DevicePoly> {
            let mut x = DevicePoly::zero(&self.dctx, ql, k, Form::Ntt)?;
            x.copy_limbs_from(c, 0, 0, ql)?;
            x.mul_scalar_assign(&p_mod_q)?;
            Ok(x)
        };
        let digits = baby_keys
            .iter()
            .any(Option::is_some)
            .then(|| self.ks().decompose_on(dctx, &ct.parts[1], ql));
        // P c_0, shared by every baby rotation.
        let c0 = lift(&ct.parts[0])?;
        let mut rotated = Vec::with_capacity(babies.len());
        for key in &baby_keys {
            rotated.push(match (key, &digits) {
                (Some((g, key)), Some(digits)) => {
                    let mut acc = [0, 1].map(|_| dctx.alloc(ql, k, Form::Ntt));
                    self.ks()
                        .multiply_on(dctx, digits, hybrid(key)?, &mut acc, false);
                    let [mut u0, u1] = acc;
                    u0.add_assign(&c0)?;
                    let mut out = [
                        DevicePoly::uninit(&self.dctx, ql, k, Form::Ntt)?,
                        DevicePoly::uninit(&self.dctx, ql, k, Form::Ntt)?,
                    ];
                    u0.automorphism(*g, &mut out[0])?;
                    u1.automorphism(*g, &mut out[1])?;
                    out
                }
                _ => [c0.clone(), lift(&ct.parts[1])?],
            });
        }

        // Innermost first (nested: the value so far joins the partial sum before its
        // rotation; summed: each rotated partial sum joins the total), then one ModDown pair.
        let mut x: Option<[DevicePoly; 2]> = None;
        for (&(terms, _), key) in blocks.iter().zip(giant_keys).rev() {
            let mut s = match x.take_if(|_| nested) {
                Some(prev) => prev,
                None => [
                    DevicePoly::zero(&self.dctx, ql, k, Form::Ntt)?,
                    DevicePoly::zero(&self.dctx, ql, k, Form::Ntt)?,
                ],
            };
            for &(j, pt) in terms {
                DevicePoly::mul_add_parts(&mut s, &[&rotated[j][0], &rotated[j][1]], pt.poly())?;
            }
            let term = match key {
                None => s,
                Some((g, key)) => {
                    let [mut s0, s1] = s;
                    let c1 = dctx.mod_down(s1);
                    let digits = self.ks().decompose_on(dctx, &c1, ql);
                    let mut acc = [0, 1].map(|_| dctx.alloc(ql, k, Form::Ntt));
                    self.ks()
                        .multiply_on(dctx, &digits, hybrid(key)?, &mut acc, false);
                    let [u0, u1] = acc;
                    s0.add_assign(&u0)?;
                    let mut out = [
                        DevicePoly::uninit(&self.dctx, ql, k, Form::Ntt)?,
                        DevicePoly::uninit(&self.dctx, ql, k, Form::Ntt)?,
                    ];
                    s0.automorphism(g, &mut out[0])?;
                    u1.automorphism(g, &mut out[1])?;
                    out
                }
            };
            x = Some(match x.take() {
                Some(mut total) => {
                    DevicePoly::add_assign_parts(&mut total, &[&term[0], &term[1]], false)?;
                    total
                }
                None => term,
            });
        }
        let x = x.expect("at least one giant step");
        let parts = self.ks().mod_down_on(dctx, x);
        Ok(DeviceCiphertext {
            parts: parts.into(),
            scale: ct.scale.mul(&scale),
            slots: ct.slots,
        })
    }
}
