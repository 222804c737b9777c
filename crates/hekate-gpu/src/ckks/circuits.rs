//! hekate's circuits on the device: [`CircuitEvaluator`] for [`DeviceEvaluator`], so that
//! the linear transforms of `hekate::circuits::lintrans` (baby-step giant-step with hoisted
//! baby steps and double-hoisted or Horner giant steps, seed 003 Alg. 4-6; Alg. 6's inner
//! loop over `Q_l ∪ P` in `extended.rs`) and the
//! polynomial evaluation of `hekate::circuits::polyeval` (seed 003 Alg. 1-2) run on the
//! device unchanged — bootstrapping's CoeffToSlot / SlotToCoeff and EvalMod are built from
//! them — with every result equal to the CPU evaluator's words.
//!
//! The operations the circuits need beyond [`DeviceEvaluator`]'s own mirror the CPU
//! evaluator's rules one for one: [`DevicePlaintext`] products and accumulations, constants
//! (`round(c · Δ)` per limb by [`hekate::ckks::constant_residues`], `i` as the monomial
//! `X^(N/2)`), integer products, scale alignment by integer factors, level drops, and the
//! rotation sums of the RLWE core (`automorphism_sum`: one ModDown for all the key switches;
//! `automorphism_horner`: the `u_0` halves kept in `QP` and one half ModDown per nesting),
//! written again over the device's key-switching steps on every engine: the hybrid engine's
//! `decompose_on` / `multiply_on` / `mod_down_on` through hekate's backend seam, and the
//! KLSS / linear engine's accumulator over `B'` (recombined every
//! `KlssConfig::accumulation` products, as the CPU engine does).
//!
//! Errors reach the circuits as [`hekate::Error`]: the CPU library's own unchanged, a
//! device's refusal of an input as `ParameterMismatch`, and a driver failure as
//! `ParameterMismatch` naming the GPU runtime's message.

use super::{DeviceCiphertext, DeviceEvaluator, DeviceKey, Engine};
use crate::error::{Error, Result};
use crate::klss::DeviceKlssAccumulator;
use crate::poly::DevicePoly;
use crate::runtime::Arg;
use hekate::circuits::lintrans::GiantSteps;
use hekate::circuits::CircuitEvaluator;
use hekate::ckks::{constant_residues, Plaintext, Scale};
use hekate::ring::automorphism::galois_inverse;
use hekate::ring::Form;
use hekate::rlwe::backend::Backend;
use hekate::rlwe::ExtendedBlock;
use num_complex::Complex64;

/// A rotation-sum term's Galois element and key (`None`: no rotation).
type TermKey<'a> = Option<(usize, &'a DeviceKey)>;

/// A CKKS plaintext on the device: its polynomial in NTT form, with the scale and slot
/// count on the host (the mirror of [`Plaintext`]).
pub struct DevicePlaintext {
    poly: DevicePoly,
    scale: Scale,
    slots: usize,
}

impl DevicePlaintext {
    /// Uploads `pt` (encoded by `ev`'s context).
    pub fn upload(ev: &DeviceEvaluator, pt: &Plaintext) -> Result<Self> {
        if pt.poly().n() != ev.ctx.ring().n() || pt.poly().form() != Form::Ntt {
            return Err(Error::InvalidInput(
                "a plaintext of another context (or not in NTT form)".into(),
            ));
        }
        Ok(DevicePlaintext {
            poly: DevicePoly::upload(&ev.dctx, pt.poly())?,
            scale: pt.scale().clone(),
            slots: pt.slots(),
        })
    }

    /// The level `l` (chain limbs minus one).
    pub fn level(&self) -> usize {
        self.poly.q_limbs() - 1
    }

    /// The polynomial (over `Q_l`, or `Q_l ∪ P` from
    /// [`DeviceEvaluator::encode_extended`]).
    pub(crate) fn poly(&self) -> &DevicePoly {
        &self.poly
    }

    /// The scale.
    pub fn scale(&self) -> &Scale {
        &self.scale
    }

    /// The number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }
}

/// Terms per launch of the fused sums (`hk_lincomb_kernel`, `hk_mul_plain_sum_kernel`).
const FUSED_TERMS: usize = 4;

/// The term in slot `j` of a fused launch over terms `r`: `r.start + j`, or `r.start` for
/// an unused slot.
fn fused_slot(r: &std::ops::Range<usize>, j: usize) -> usize {
    if r.start + j < r.end {
        r.start + j
    } else {
        r.start
    }
}

/// `p`'s first `limbs` chain limbs: `p` itself when that is all of it, else a copy.
fn limbs_of(p: &DevicePoly, limbs: usize) -> Result<std::borrow::Cow<'_, DevicePoly>> {
    if p.q_limbs() == limbs && p.p_limbs() == 0 {
        return Ok(std::borrow::Cow::Borrowed(p));
    }
    let mut o = DevicePoly::uninit(p.context(), limbs, 0, p.form())?;
    o.copy_limbs_from(p, 0, 0, limbs)?;
    Ok(std::borrow::Cow::Owned(o))
}

impl DeviceEvaluator {
    /// The integer residues of `k` per chain limb of `p`, as the CPU reduces them.
    fn integer_residues(&self, k: u64, ql: usize) -> Vec<u64> {
        let ring = self.ctx.ring();
        (0..ql).map(|i| ring.modulus(i, ql).reduce(k)).collect()
    }

    /// Multiplies every part by the integer `k` (nothing for `k = 1`).
    fn mul_integer_parts(&self, parts: &mut [DevicePoly], k: u64) -> Result<()> {
        let Some(first) = parts.first().filter(|_| k != 1) else {
            return Ok(());
        };
        let table = first.scalar_table(&self.integer_residues(k, first.q_limbs()))?;
        DevicePoly::mul_scalar_table_parts(parts, &table)
    }

    /// Drops `ct`'s limbs above `level` (exact).
    fn truncate(ct: &mut DeviceCiphertext, level: usize) {
        for p in &mut ct.parts {
            if p.q_limbs() > level + 1 {
                p.truncate_to(level + 1);
            }
        }
    }

    fn add_sub_assign(
        &self,
        a: &mut DeviceCiphertext,
        b: &DeviceCiphertext,
        sub: bool,
    ) -> Result<()> {
        Self::check_pair(a, b)?;
        let (ka, kb) = Scale::alignment_factors(&a.scale, &b.scale)?;
        let level = a.level().min(b.level());
        Self::truncate(a, level);
        self.mul_integer_parts(&mut a.parts, ka)?;
        // b's limbs are read in place unless they must be scaled (or a lacks the part).
        let mut ys = b
            .parts
            .iter()
            .map(|y| limbs_of(y, level + 1))
            .collect::<Result<Vec<_>>>()?;
        if kb != 1 {
            let mut owned: Vec<DevicePoly> = ys.into_iter().map(|y| y.into_owned()).collect();
            self.mul_integer_parts(&mut owned, kb)?;
            ys = owned.into_iter().map(std::borrow::Cow::Owned).collect();
        }
        let common = a.parts.len().min(ys.len());
        let refs: Vec<&DevicePoly> = ys[..common].iter().map(|y| &**y).collect();
        DevicePoly::add_assign_parts(&mut a.parts[..common], &refs, sub)?;
        for y in ys.into_iter().skip(common) {
            let mut y = y.into_owned();
            if sub {
                y.neg_assign()?;
            }
            a.parts.push(y);
        }
        a.scale = a.scale.mul_integer(ka);
        Ok(())
    }

    /// `a += b` at the lower level of the two, scales aligned by an integer factor, as
    /// [`hekate::ckks::Evaluator::add_assign`].
    pub fn add_assign(&self, a: &mut DeviceCiphertext, b: &DeviceCiphertext) -> Result<()> {
        self.add_sub_assign(a, b, false)
    }

    /// `a -= b`, as [`hekate::ckks::Evaluator::sub_assign`].
    pub fn sub_assign(&self, a: &mut DeviceCiphertext, b: &DeviceCiphertext) -> Result<()> {
        self.add_sub_assign(a, b, true)
    }

    /// The common level of a ciphertext and a plaintext (checking their slot counts).
    fn plain_level(ct: &DeviceCiphertext, pt: &DevicePlaintext) -> Result<usize> {
        if pt.poly.p_limbs() > 0 {
            return Err(Error::InvalidInput(
                "this plaintext is over Q_l ∪ P (encode_extended): only bsgs_extended reads it"
                    .into(),
            ));
        }
        if ct.slots != pt.slots {
            return Err(Error::InvalidInput(format!(
                "ciphertext has {} slots and plaintext {}",
                ct.slots, pt.slots
            )));
        }
        Ok(ct.level().min(pt.level()))
    }

    /// `ct ⊙ pt` at their common level (scales multiply), as
    /// [`hekate::ckks::Evaluator::mul_plain`].
    pub fn mul_plain(
        &self,
        ct: &DeviceCiphertext,
        pt: &DevicePlaintext,
    ) -> Result<DeviceCiphertext> {
        let level = Self::plain_level(ct, pt)?;
        let p = limbs_of(&pt.poly, level + 1)?;
        let mut parts = self.parts_at(ct, level)?;
        for part in &mut parts {
            part.mul_assign(&p)?;
        }
        Ok(DeviceCiphertext {
            parts,
            scale: ct.scale.mul(&pt.scale),
            slots: ct.slots,
        })
    }

    /// `acc += ct ⊙ pt` (one pass per part), as
    /// [`hekate::ckks::Evaluator::mul_plain_add_assign`]: `acc` must carry the product's
    /// scale; the result is at the lowest of the three levels.
    pub fn mul_plain_add_assign(
        &self,
        acc: &mut DeviceCiphertext,
        ct: &DeviceCiphertext,
        pt: &DevicePlaintext,
    ) -> Result<()> {
        let level = Self::plain_level(ct, pt)?;
        Self::check_pair(acc, ct)?;
        let scale = ct.scale.mul(&pt.scale);
        if acc.scale != scale {
            return Err(Error::Hekate(hekate::Error::ScaleMismatch(format!(
                "accumulator at scale {} but the product is at {scale}",
                acc.scale
            ))));
        }
        let level = level.min(acc.level());
        Self::truncate(acc, level);
        let p = limbs_of(&pt.poly, level + 1)?;
        let parts = ct
            .parts
            .iter()
            .map(|part| limbs_of(part, level + 1))
            .collect::<Result<Vec<_>>>()?;
        let common = acc.parts.len().min(parts.len());
        let refs: Vec<&DevicePoly> = parts[..common].iter().map(|x| &**x).collect();
        DevicePoly::mul_add_parts(&mut acc.parts[..common], &refs, &p)?;
        for part in parts.into_iter().skip(common) {
            let mut t = part.into_owned();
            t.mul_assign(&p)?;
            acc.parts.push(t);
        }
        Ok(())
    }

    /// `ct *= c` for a complex constant encoded at `scale` (`round(c · scale)` per limb; the
    /// scale multiplies exactly; no level used), as
    /// [`hekate::ckks::Evaluator::mul_const_scaled_assign`].
    pub fn mul_const_scaled_assign(
        &self,
        ct: &mut DeviceCiphertext,
        c: Complex64,
        scale: &Scale,
    ) -> Result<()> {
        let ql = ct.level() + 1;
        let delta = scale.to_f64();
        let ring = self.ctx.ring();
        let re = constant_residues(ring, c.re * delta, ql)?;
        let Some(first) = ct.parts.first() else {
            return Ok(());
        };
        let re = first.scalar_table(&re)?;
        let im = if c.im != 0.0 {
            Some(first.scalar_table(&constant_residues(ring, c.im * delta, ql)?)?)
        } else {
            None
        };
        match &im {
            None => DevicePoly::mul_scalar_table_parts(&mut ct.parts, &re)?,
            Some(im) => {
                for part in &mut ct.parts {
                    let mut t = part.clone();
                    t.mul_monomial_half_assign()?;
                    t.mul_scalar_table_assign(im)?;
                    part.mul_scalar_table_assign(&re)?;
                    part.add_assign(&t)?;
                }
            }
        }
        ct.scale = ct.scale.mul(scale);
        Ok(())
    }

    /// `acc += c · ct`, the constant encoded at `scale`, as
    /// [`hekate::ckks::Evaluator::mul_const_scaled_add_assign`]: for a real `c`, `acc` at or
    /// below `ct`'s level with as many parts and `acc`'s scale `ct`'s times `scale`, one pass
    /// per part reading `ct`'s limbs in place (one launch, one constant table); otherwise
    /// `ct` at `acc`'s level times `c`, then [`DeviceEvaluator::add_assign`]. The same words
    /// either way.
    pub fn mul_const_scaled_add_assign(
        &self,
        acc: &mut DeviceCiphertext,
        ct: &DeviceCiphertext,
        c: Complex64,
        scale: &Scale,
    ) -> Result<()> {
        Self::check_pair(acc, ct)?;
        let fused = c.im == 0.0
            && acc.level() <= ct.level()
            && acc.parts.len() == ct.parts.len()
            && acc.scale == ct.scale.mul(scale);
        if !fused {
            let mut t = self.drop_level(ct, ct.level().saturating_sub(acc.level()))?;
            self.mul_const_scaled_assign(&mut t, c, scale)?;
            return self.add_assign(acc, &t);
        }
        let re = constant_residues(self.ctx.ring(), c.re * scale.to_f64(), acc.level() + 1)?;
        let table = acc.parts[0].scalar_table(&re)?;
        let parts: Vec<&DevicePoly> = ct.parts.iter().collect();
        DevicePoly::mul_scalar_add_table_parts(&mut acc.parts, &parts, &table)
    }

    /// `Σ_j ct_j ⊙ pt_j`, as [`CircuitEvaluator::mul_plain_sum`]: with every product at one
    /// scale and the terms' parts alike, up to four terms of both parts per launch
    /// (`hk_mul_plain_sum_kernel`, every operand's lower limbs read in place); otherwise
    /// term by term. The CPU's words either way.
    pub fn mul_plain_sum(
        &self,
        terms: &[(&DeviceCiphertext, &DevicePlaintext)],
    ) -> Result<DeviceCiphertext> {
        let Some(&(first, first_pt)) = terms.first() else {
            return Err(Error::InvalidInput(
                "a sum of plaintext products needs at least one term".into(),
            ));
        };
        let scale = first.scale.mul(&first_pt.scale);
        let fused = terms.iter().all(|(ct, pt)| {
            ct.slots == first.slots
                && pt.slots == first.slots
                && pt.poly.p_limbs() == 0
                && ct.parts.len() == first.parts.len()
                && ct.scale.mul(&pt.scale) == scale
        });
        if !fused {
            return hekate::circuits::mul_plain_sum_termwise(self, terms).map_err(Error::Hekate);
        }
        let level = terms
            .iter()
            .map(|(ct, pt)| ct.level().min(pt.level()))
            .min()
            .expect("at least one term");
        let cts: Vec<&DeviceCiphertext> = terms.iter().map(|t| t.0).collect();
        let parts = self.fused_sum("hk_mul_plain_sum_kernel", &cts, level + 1, |r| {
            (0..FUSED_TERMS)
                .map(|j| Arg::Buf(terms[fused_slot(&r, j)].1.poly.buffer()))
                .collect()
        })?;
        Ok(DeviceCiphertext {
            parts,
            scale,
            slots: first.slots,
        })
    }

    /// `Σ_j c_j · ct_j` at `level`, as [`CircuitEvaluator::linear_combination`]: with real
    /// constants, every product at one scale and every term at `level` or above, up to
    /// four terms of both parts per launch (`hk_lincomb_kernel`, the tables of all terms in
    /// one upload); otherwise term by term. The CPU's words either way.
    pub fn linear_combination(
        &self,
        terms: &[(&DeviceCiphertext, Complex64, Scale)],
        level: usize,
    ) -> Result<DeviceCiphertext> {
        let Some(&(first, _, ref s0)) = terms.first() else {
            return Err(Error::InvalidInput(
                "a linear combination needs at least one term".into(),
            ));
        };
        let scale = first.scale.mul(s0);
        let fused = terms.iter().all(|(ct, c, s)| {
            c.im == 0.0
                && ct.level() >= level
                && ct.slots == first.slots
                && ct.parts.len() == first.parts.len()
                && ct.scale.mul(s) == scale
        });
        if !fused {
            return hekate::circuits::linear_combination_termwise(self, terms, level)
                .map_err(Error::Hekate);
        }
        let ql = level + 1;
        let ring = self.ctx.ring();
        let mut table = Vec::with_capacity(2 * ql * terms.len());
        for (_, c, s) in terms {
            let re = constant_residues(ring, c.re * s.to_f64(), ql)?;
            for (i, &w) in re.iter().enumerate() {
                table.extend_from_slice(&[w, ring.modulus(i, ql).shoup(w)]);
            }
        }
        let tabs = self.dctx.constants(table)?;
        let cts: Vec<&DeviceCiphertext> = terms.iter().map(|t| t.0).collect();
        let parts = self.fused_sum("hk_lincomb_kernel", &cts, ql, |r| {
            vec![Arg::Buf(&tabs), Arg::U32(r.start as u32)]
        })?;
        Ok(DeviceCiphertext {
            parts,
            scale,
            slots: first.slots,
        })
    }

    /// The parts of a fused sum over `cts` at `ql` limbs (`hk_lincomb_kernel`,
    /// `hk_mul_plain_sum_kernel`): [`FUSED_TERMS`] terms of both parts per launch, unused
    /// slots repeating the launch's first term (never read). `shared(r)` are the arguments
    /// of the launch for terms `r` that both parts share; the term count and whether to add
    /// to the previous launches' sum follow them.
    fn fused_sum<'s>(
        &self,
        kernel: &str,
        cts: &[&DeviceCiphertext],
        ql: usize,
        shared: impl Fn(std::ops::Range<usize>) -> Vec<Arg<'s>>,
    ) -> Result<Vec<DevicePoly>> {
        let count = cts[0].parts.len();
        let out = (0..count)
            .map(|_| DevicePoly::uninit(&self.dctx, ql, 0, Form::Ntt))
            .collect::<Result<Vec<_>>>()?;
        for start in (0..cts.len()).step_by(FUSED_TERMS) {
            let r = start..(start + FUSED_TERMS).min(cts.len());
            let x = |i: usize, j: usize| cts[fused_slot(&r, j)].parts[i].buffer();
            let mut args = shared(r.clone());
            args.extend([Arg::U32(r.len() as u32), Arg::U32((start > 0) as u32)]);
            DevicePoly::run_parts(
                &out[0],
                kernel,
                count,
                |i| vec![out[i].buffer(), x(i, 0), x(i, 1), x(i, 2), x(i, 3)],
                &args,
            )?;
        }
        Ok(out)
    }

    /// `ct += c`, the constant encoded at `ct`'s scale, as
    /// [`hekate::ckks::Evaluator::add_const_assign`].
    pub fn add_const_assign(&self, ct: &mut DeviceCiphertext, c: Complex64) -> Result<()> {
        let ql = ct.level() + 1;
        let delta = ct.scale.to_f64();
        let ring = self.ctx.ring();
        let re = constant_residues(ring, c.re * delta, ql)?;
        let im = if c.im != 0.0 {
            Some(constant_residues(ring, c.im * delta, ql)?)
        } else {
            None
        };
        ct.parts[0].add_scalar_assign(&re)?;
        if let Some(im) = im {
            let mut t = DevicePoly::zero(&self.dctx, ql, 0, Form::Ntt)?;
            t.add_scalar_assign(&im)?;
            t.mul_monomial_half_assign()?;
            ct.parts[0].add_assign(&t)?;
        }
        Ok(())
    }

    /// `ct *= k` for an integer `k` (exact; the scale is unchanged), as
    /// [`hekate::ckks::Evaluator::mul_integer_assign`].
    pub fn mul_integer_assign(&self, ct: &mut DeviceCiphertext, k: i64) -> Result<()> {
        let ring = self.ctx.ring().clone();
        for part in &mut ct.parts {
            part.mul_scalar_assign(&ring.integer_residues(k, part.q_limbs()))?;
        }
        Ok(())
    }

    /// A copy of `ct` `levels` levels lower (exact: drops limbs), as
    /// [`hekate::ckks::Evaluator::drop_level`].
    pub fn drop_level(&self, ct: &DeviceCiphertext, levels: usize) -> Result<DeviceCiphertext> {
        let level = ct.level().checked_sub(levels).ok_or_else(|| {
            Error::Hekate(hekate::Error::OutOfLevels(format!(
                "a ciphertext at level {} cannot drop {levels} levels",
                ct.level()
            )))
        })?;
        Ok(DeviceCiphertext {
            parts: self.parts_at(ct, level)?,
            scale: ct.scale.clone(),
            slots: ct.slots,
        })
    }

    /// The terms of a rotation sum with their Galois element and key (`None` for no
    /// rotation), checked as the CPU checks them: degree 1, one level, scale and slot count,
    /// keys covering the level.
    fn rotation_terms<'a>(
        &'a self,
        terms: &[(&DeviceCiphertext, i64)],
        what: &str,
    ) -> Result<Vec<TermKey<'a>>> {
        let Some(&(first, _)) = terms.first() else {
            return Err(Error::Hekate(hekate::Error::ParameterMismatch(format!(
                "a {what} needs at least one term"
            ))));
        };
        let ql = first.level() + 1;
        terms
            .iter()
            .map(|&(ct, steps)| {
                Self::check_pair(first, ct)?;
                if ct.degree() != 1 {
                    return Err(Error::InvalidInput(format!(
                        "the terms of a {what} must have degree 1"
                    )));
                }
                if ct.scale != first.scale || ct.level() != first.level() {
                    return Err(Error::Hekate(hekate::Error::ScaleMismatch(format!(
                        "the terms of a {what} must share a level and a scale"
                    ))));
                }
                let Some((g, key)) = self.rotation_key(ct, steps)? else {
                    return Ok(None);
                };
                let fits = match (key, &self.engine) {
                    (DeviceKey::Hybrid(k), Engine::Hybrid) => {
                        k.len() >= self.ks().digits_at(ql) && key.covers(ql)
                    }
                    (DeviceKey::Klss(_), Engine::Klss(_)) => true,
                    _ => return Err(Error::InvalidInput("a key of another engine".into())),
                };
                if !fits {
                    return Err(Error::InvalidInput(
                        "the Galois key does not cover this level".into(),
                    ));
                }
                Ok(Some((g, key)))
            })
            .collect()
    }

    /// `acc + <digits of c, key>` (or a new accumulator), on the context's engine.
    fn key_switch_into(&self, c: &DevicePoly, key: &DeviceKey, acc: Option<Acc>) -> Result<Acc> {
        let dctx = &*self.dctx;
        let ql = c.q_limbs();
        match (key, &self.engine, acc) {
            (DeviceKey::Hybrid(key), Engine::Hybrid, acc) => {
                let digits = self.ks().decompose_on(dctx, c, ql);
                Ok(Acc::Hybrid(match acc {
                    None => {
                        let pl = self.ctx.ring().p_len();
                        let mut a = [0, 1].map(|_| dctx.alloc(ql, pl, Form::Ntt));
                        self.ks().multiply_on(dctx, &digits, key, &mut a, false);
                        a
                    }
                    Some(Acc::Hybrid(mut a)) => {
                        self.ks().multiply_on(dctx, &digits, key, &mut a, true);
                        a
                    }
                    Some(Acc::Klss(_)) => unreachable!("one engine per evaluator"),
                }))
            }
            (DeviceKey::Klss(key), Engine::Klss(dk), acc) => {
                let digits = dk.decompose(self.klss(), c)?;
                let mut a = match acc {
                    None => dk.zero_accumulator(self.klss(), ql)?,
                    Some(Acc::Klss(a)) => a,
                    Some(Acc::Hybrid(_)) => unreachable!("one engine per evaluator"),
                };
                dk.multiply_add(self.klss(), &digits, key, &mut a)?;
                Ok(Acc::Klss(a))
            }
            _ => Err(Error::InvalidInput("a key of another engine".into())),
        }
    }

    /// The accumulator under `X -> X^k`.
    fn permute(&self, acc: Acc, k: usize) -> Result<Acc> {
        if k == 1 {
            return Ok(acc);
        }
        match (acc, &self.engine) {
            (Acc::Hybrid(a), _) => {
                let (ql, pl) = (a[0].q_limbs(), a[0].p_limbs());
                let mut o = [
                    DevicePoly::uninit(&self.dctx, ql, pl, Form::Ntt)?,
                    DevicePoly::uninit(&self.dctx, ql, pl, Form::Ntt)?,
                ];
                DevicePoly::permute_parts(&[&a[0], &a[1]], k, &mut o)?;
                Ok(Acc::Hybrid(o))
            }
            (Acc::Klss(a), Engine::Klss(dk)) => Ok(Acc::Klss(dk.permute(&a, k)?)),
            (Acc::Klss(_), Engine::Hybrid) => unreachable!("one engine per evaluator"),
        }
    }

    /// ModDown of both halves of the accumulator (NTT form).
    fn mod_down_acc(&self, acc: Acc) -> Result<[DevicePoly; 2]> {
        match (acc, &self.engine) {
            (Acc::Hybrid(a), _) => Ok(self.ks().mod_down_on(&*self.dctx, a)),
            (Acc::Klss(a), Engine::Klss(dk)) => dk.mod_down(self.klss(), a, Form::Ntt),
            (Acc::Klss(_), Engine::Hybrid) => unreachable!("one engine per evaluator"),
        }
    }

    /// ModDown of the second half only (NTT form), the first kept in `QP`.
    fn mod_down_second(&self, acc: &mut Acc) -> Result<DevicePoly> {
        match (acc, &self.engine) {
            (Acc::Hybrid(a), _) => {
                let (ql, pl) = (a[1].q_limbs(), a[1].p_limbs());
                let zero = DevicePoly::zero(&self.dctx, ql, pl, Form::Ntt)?;
                Ok(self.dctx.mod_down(std::mem::replace(&mut a[1], zero)))
            }
            (Acc::Klss(a), Engine::Klss(dk)) => dk.mod_down_second(self.klss(), a),
            (Acc::Klss(_), Engine::Hybrid) => unreachable!("one engine per evaluator"),
        }
    }

    /// `out[i] += φ_g(ModDown(acc)[i])`, the end of a rotation sum.
    fn add_mod_down(&self, acc: Acc, g: usize, out: &mut [DevicePoly; 2]) -> Result<()> {
        let [u0, u1] = self.mod_down_acc(acc)?;
        let ql = out[0].q_limbs();
        let mut t = [
            DevicePoly::uninit(&self.dctx, ql, 0, Form::Ntt)?,
            DevicePoly::uninit(&self.dctx, ql, 0, Form::Ntt)?,
        ];
        DevicePoly::permute_parts(&[&u0, &u1], g, &mut t)?;
        DevicePoly::add_assign_parts(out, &[&t[0], &t[1]], false)
    }

    /// A pair of zero polynomials over `Q_l`.
    fn zero_pair(&self, ql: usize) -> Result<[DevicePoly; 2]> {
        Ok([
            DevicePoly::zero(&self.dctx, ql, 0, Form::Ntt)?,
            DevicePoly::zero(&self.dctx, ql, 0, Form::Ntt)?,
        ])
    }

    /// `Σ_j rotate(ct_j, steps_j)` with one ModDown for all the key switches (double
    /// hoisting), as [`hekate::ckks::Evaluator::rotate_sum`].
    pub fn rotate_sum(&self, terms: &[(&DeviceCiphertext, i64)]) -> Result<DeviceCiphertext> {
        let keys = self.rotation_terms(terms, "rotation sum")?;
        let first = terms[0].0;
        let (ql, n) = (first.level() + 1, self.ctx.ring().n());
        let mut out = self.zero_pair(ql)?;
        let mut t = DevicePoly::uninit(&self.dctx, ql, 0, Form::Ntt)?;
        let (mut acc, mut last_g) = (None, 1);
        for (&(ct, _), key) in terms.iter().zip(keys) {
            let Some((g, key)) = key else {
                DevicePoly::add_assign_parts(&mut out, &[&ct.parts[0], &ct.parts[1]], false)?;
                continue;
            };
            ct.parts[0].automorphism(g, &mut t)?;
            out[0].add_assign(&t)?;
            let prev = match acc.take() {
                None => None,
                Some(prev) => Some(self.permute(prev, galois_inverse(g, n) * last_g % (2 * n))?),
            };
            acc = Some(self.key_switch_into(&ct.parts[1], key, prev)?);
            last_g = g;
        }
        if let Some(acc) = acc {
            self.add_mod_down(acc, last_g, &mut out)?;
        }
        Ok(DeviceCiphertext {
            parts: out.into(),
            scale: first.scale.clone(),
            slots: first.slots,
        })
    }

    /// The nested sum `rot_{s_0}(ct_0 + rot_{s_1}(ct_1 + ...))` with the `u_0` halves kept
    /// in `QP` and one ModDown of both halves at the end, as
    /// [`hekate::ckks::Evaluator::rotate_horner`].
    pub fn rotate_horner(&self, terms: &[(&DeviceCiphertext, i64)]) -> Result<DeviceCiphertext> {
        let keys = self.rotation_terms(terms, "Horner rotation sum")?;
        let first = terms[0].0;
        let ql = first.level() + 1;
        let mut c = self.zero_pair(ql)?;
        let mut t = DevicePoly::uninit(&self.dctx, ql, 0, Form::Ntt)?;
        let mut acc: Option<Acc> = None;
        let (mut last, mut pending) = (1, false);
        for (&(ct, _), key) in terms.iter().zip(keys).rev() {
            DevicePoly::add_assign_parts(&mut c, &[&ct.parts[0], &ct.parts[1]], false)?;
            let Some((g, key)) = key else { continue };
            if pending {
                // c_1 in full over Q_l: the pending u_1 comes down for the decomposition.
                let a = acc.as_mut().expect("pending in an accumulator");
                let u1 = self.mod_down_second(a)?;
                u1.automorphism(last, &mut t)?;
                c[1].add_assign(&t)?;
            }
            let prev = match acc.take() {
                None => None,
                Some(prev) => Some(self.permute(prev, last)?),
            };
            acc = Some(self.key_switch_into(&c[1], key, prev)?);
            c[0].automorphism(g, &mut t)?;
            std::mem::swap(&mut c[0], &mut t);
            c[1].set_zero()?;
            (last, pending) = (g, true);
        }
        if let Some(acc) = acc {
            self.add_mod_down(acc, last, &mut c)?;
        }
        Ok(DeviceCiphertext {
            parts: c.into(),
            scale: first.scale.clone(),
            slots: first.slots,
        })
    }
}

/// A key-switching accumulator of the evaluator's engine.
enum Acc {
    /// Hybrid: both halves over `Q_l ∪ P`, NTT form.
    Hybrid([DevicePoly; 2]),
    /// KLSS / linear: sums over `B'` and the recombined part.
    Klss(DeviceKlssAccumulator),
}

/// A device error as the circuits' [`hekate::Error`] (see the module documentation).
pub(super) fn to_hekate(e: Error) -> hekate::Error {
    match e {
        Error::Hekate(e) => e,
        Error::InvalidInput(m) => hekate::Error::ParameterMismatch(format!("on the device: {m}")),
        e => hekate::Error::ParameterMismatch(format!("the GPU backend failed: {e}")),
    }
}

impl CircuitEvaluator for DeviceEvaluator {
    type Ciphertext = DeviceCiphertext;
    type Plaintext = DevicePlaintext;
    type Scale = Scale;
    type Value = Complex64;

    fn slots(&self, ct: &DeviceCiphertext) -> usize {
        ct.slots
    }
    fn level(&self, ct: &DeviceCiphertext) -> usize {
        ct.level()
    }
    fn scale<'a>(&self, ct: &'a DeviceCiphertext) -> &'a Scale {
        &ct.scale
    }
    fn set_scale(&self, ct: &mut DeviceCiphertext, scale: Scale) {
        ct.scale = scale;
    }
    fn rescale_factor(&self, level: usize) -> Scale {
        self.ctx.constant_scale(level)
    }
    fn encode(
        &self,
        values: &[Complex64],
        slots: usize,
        level: usize,
        scale: &Scale,
    ) -> hekate::Result<DevicePlaintext> {
        let pt = self.ctx.encode_at(values, slots, level, scale)?;
        DevicePlaintext::upload(self, &pt).map_err(to_hekate)
    }
    fn encode_extended(
        &self,
        values: &[Complex64],
        slots: usize,
        level: usize,
        scale: &Scale,
    ) -> hekate::Result<Option<DevicePlaintext>> {
        DeviceEvaluator::encode_extended(self, values, slots, level, scale).map_err(to_hekate)
    }
    fn bsgs_extended(
        &self,
        ct: &DeviceCiphertext,
        babies: &[i64],
        blocks: &[ExtendedBlock<'_, DevicePlaintext, i64>],
        form: GiantSteps,
    ) -> hekate::Result<DeviceCiphertext> {
        let nested = form == GiantSteps::Horner;
        DeviceEvaluator::bsgs_extended(self, ct, babies, blocks, nested).map_err(to_hekate)
    }
    fn add_assign(&self, a: &mut DeviceCiphertext, b: &DeviceCiphertext) -> hekate::Result<()> {
        DeviceEvaluator::add_assign(self, a, b).map_err(to_hekate)
    }
    fn sub_assign(&self, a: &mut DeviceCiphertext, b: &DeviceCiphertext) -> hekate::Result<()> {
        DeviceEvaluator::sub_assign(self, a, b).map_err(to_hekate)
    }
    fn mul_plain(
        &self,
        ct: &DeviceCiphertext,
        pt: &DevicePlaintext,
    ) -> hekate::Result<DeviceCiphertext> {
        DeviceEvaluator::mul_plain(self, ct, pt).map_err(to_hekate)
    }
    fn mul_plain_add_assign(
        &self,
        acc: &mut DeviceCiphertext,
        ct: &DeviceCiphertext,
        pt: &DevicePlaintext,
    ) -> hekate::Result<()> {
        DeviceEvaluator::mul_plain_add_assign(self, acc, ct, pt).map_err(to_hekate)
    }
    fn mul_relin(
        &self,
        a: &DeviceCiphertext,
        b: &DeviceCiphertext,
    ) -> hekate::Result<DeviceCiphertext> {
        self.mul(a, b).map_err(to_hekate)
    }
    fn mul_no_relin(
        &self,
        a: &DeviceCiphertext,
        b: &DeviceCiphertext,
    ) -> hekate::Result<DeviceCiphertext> {
        DeviceEvaluator::mul_no_relin(self, a, b).map_err(to_hekate)
    }
    fn relinearize_assign(&self, ct: &mut DeviceCiphertext) -> hekate::Result<()> {
        *ct = self.relinearize(ct).map_err(to_hekate)?;
        Ok(())
    }
    fn mul_const_scaled_assign(
        &self,
        ct: &mut DeviceCiphertext,
        c: Complex64,
        scale: &Scale,
    ) -> hekate::Result<()> {
        DeviceEvaluator::mul_const_scaled_assign(self, ct, c, scale).map_err(to_hekate)
    }
    fn mul_const_scaled_add_assign(
        &self,
        acc: &mut DeviceCiphertext,
        ct: &DeviceCiphertext,
        c: Complex64,
        scale: &Scale,
    ) -> hekate::Result<()> {
        DeviceEvaluator::mul_const_scaled_add_assign(self, acc, ct, c, scale).map_err(to_hekate)
    }
    fn mul_plain_sum(
        &self,
        terms: &[(&DeviceCiphertext, &DevicePlaintext)],
    ) -> hekate::Result<DeviceCiphertext> {
        DeviceEvaluator::mul_plain_sum(self, terms).map_err(to_hekate)
    }
    fn linear_combination(
        &self,
        terms: &[(&DeviceCiphertext, Complex64, Scale)],
        level: usize,
    ) -> hekate::Result<DeviceCiphertext> {
        DeviceEvaluator::linear_combination(self, terms, level).map_err(to_hekate)
    }
    fn add_const_assign(&self, ct: &mut DeviceCiphertext, c: Complex64) -> hekate::Result<()> {
        DeviceEvaluator::add_const_assign(self, ct, c).map_err(to_hekate)
    }
    fn mul_integer_assign(&self, ct: &mut DeviceCiphertext, k: i64) -> hekate::Result<()> {
        DeviceEvaluator::mul_integer_assign(self, ct, k).map_err(to_hekate)
    }
    fn rescale_assign(&self, ct: &mut DeviceCiphertext) -> hekate::Result<()> {
        DeviceEvaluator::rescale_assign(self, ct).map_err(to_hekate)
    }
    fn at_level(&self, ct: &DeviceCiphertext, level: usize) -> hekate::Result<DeviceCiphertext> {
        let drop = ct.level().checked_sub(level).ok_or_else(|| {
            hekate::Error::OutOfLevels(format!(
                "a ciphertext at level {} cannot be raised to level {level}",
                ct.level()
            ))
        })?;
        self.drop_level(ct, drop).map_err(to_hekate)
    }
    fn rotate(&self, ct: &DeviceCiphertext, steps: i64) -> hekate::Result<DeviceCiphertext> {
        DeviceEvaluator::rotate(self, ct, steps).map_err(to_hekate)
    }
    fn rotate_hoisted(
        &self,
        ct: &DeviceCiphertext,
        steps: &[i64],
    ) -> hekate::Result<Vec<DeviceCiphertext>> {
        DeviceEvaluator::rotate_hoisted(self, ct, steps).map_err(to_hekate)
    }
    fn rotate_sum(&self, terms: &[(&DeviceCiphertext, i64)]) -> hekate::Result<DeviceCiphertext> {
        DeviceEvaluator::rotate_sum(self, terms).map_err(to_hekate)
    }
    fn rotate_horner(
        &self,
        terms: &[(&DeviceCiphertext, i64)],
    ) -> hekate::Result<DeviceCiphertext> {
        DeviceEvaluator::rotate_horner(self, terms).map_err(to_hekate)
    }
}
