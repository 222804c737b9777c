//! The bootstrapping circuit over any evaluator: [`BootstrapEvaluator`] is what
//! bootstrapping needs beyond the circuits' operations, and the steps of
//! [`Bootstrapper`] (ScaleDown, SubSum, CoeffsToSlots, EvalMod, SlotsToCoeffs) are written
//! once against it, with the DFT factors encoded for that evaluator
//! ([`BootstrapTransforms`]). The CPU evaluator runs them through
//! [`Bootstrapper::bootstrap`]; another evaluator (a GPU's) builds its transforms with
//! [`Bootstrapper::transforms_for`] and runs [`Bootstrapper::bootstrap_with`], giving the
//! same words when its operations do. ModRaise is the evaluator's own
//! ([`BootstrapEvaluator::mod_raise`]: a device may raise on the host). Sparse-secret
//! encapsulation runs on the CPU only.

use super::bootstrapper::{factors, Bootstrapper};
use crate::circuits::lintrans::LinearTransform;
use crate::circuits::CircuitEvaluator;
use crate::ckks::{Ciphertext, Evaluator, Scale};
use crate::{Error, Result};
use num_complex::Complex64;
use std::sync::{Arc, Mutex};

/// What bootstrapping needs from an evaluator beyond [`CircuitEvaluator`].
pub trait BootstrapEvaluator: CircuitEvaluator<Scale = Scale, Value = Complex64> {
    /// The slot-wise complex conjugate of `ct`.
    fn conjugate(&self, ct: &Self::Ciphertext) -> Result<Self::Ciphertext>;
    /// `ct *= i` (exact: the monomial `X^(N/2)`).
    fn mul_by_i_assign(&self, ct: &mut Self::Ciphertext) -> Result<()>;
    /// `ct = -ct`.
    fn neg_assign(&self, ct: &mut Self::Ciphertext) -> Result<()>;
    /// Reads `ct` as a ciphertext of `slots` slots (its parts unchanged).
    fn set_slots(&self, ct: &mut Self::Ciphertext, slots: usize);
    /// ModRaise of a level-0 ciphertext, as [`Bootstrapper::mod_raise`].
    fn mod_raise(&self, boot: &Bootstrapper, ct: &Self::Ciphertext) -> Result<Self::Ciphertext>;
}

impl BootstrapEvaluator for Evaluator {
    fn conjugate(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        Evaluator::conjugate(self, ct)
    }
    fn mul_by_i_assign(&self, ct: &mut Ciphertext) -> Result<()> {
        Evaluator::mul_by_i_assign(self, ct)
    }
    fn neg_assign(&self, ct: &mut Ciphertext) -> Result<()> {
        Evaluator::neg_assign(self, ct)
    }
    fn set_slots(&self, ct: &mut Ciphertext, slots: usize) {
        ct.slots = slots;
    }
    fn mod_raise(&self, boot: &Bootstrapper, ct: &Ciphertext) -> Result<Ciphertext> {
        boot.mod_raise(ct)
    }
}

/// The last SlotsToCoeffs factor encoded per output scale (on first use of each).
pub(super) type LastFactors<E> = Mutex<Vec<(Scale, Arc<LinearTransform<E>>)>>;

/// A bootstrapper's DFT factors encoded for one evaluator: CoeffsToSlots and
/// SlotsToCoeffs but its last factor (each with whether a rescale follows it), and the
/// last factor per output scale, encoded on first use.
pub struct BootstrapTransforms<E: CircuitEvaluator> {
    pub(super) cts: Vec<(LinearTransform<E>, bool)>,
    pub(super) stc: Vec<(LinearTransform<E>, bool)>,
    pub(super) last: LastFactors<E>,
}

impl Bootstrapper {
    /// This bootstrapper's DFT factors encoded for `eval`: the same diagonals, plans,
    /// levels and scales as its own (so the plaintexts are the same words), for
    /// [`Bootstrapper::bootstrap_with`].
    pub fn transforms_for<E: BootstrapEvaluator>(
        &self,
        eval: &E,
    ) -> Result<BootstrapTransforms<E>> {
        let (cts_f, stc_f) = factors(&self.ctx, &self.config, self.repack)?;
        let encode = |(d, _), (lt, r): &(LinearTransform<Evaluator>, bool)| -> Result<_> {
            let plan = lt.plan().clone();
            Ok((
                LinearTransform::new(eval, &d, plan, lt.level(), Some(lt.scale().clone()))?,
                *r,
            ))
        };
        let cts = cts_f
            .into_iter()
            .zip(&self.cts)
            .map(|(f, c)| encode(f, c))
            .collect::<Result<Vec<_>>>()?;
        let stc = stc_f
            .into_iter()
            .zip(&self.stc)
            .map(|(f, c)| encode(f, c))
            .collect::<Result<Vec<_>>>()?;
        Ok(BootstrapTransforms {
            cts,
            stc,
            last: Mutex::new(Vec::new()),
        })
    }

    /// The last SlotsToCoeffs factor encoded for `eval`, for an output at exactly `scale`.
    pub(super) fn last_factor_on<E: CircuitEvaluator<Scale = Scale, Value = Complex64>>(
        &self,
        eval: &E,
        last: &LastFactors<E>,
        scale: &Scale,
    ) -> Result<Arc<LinearTransform<E>>> {
        let mut cache = last.lock().expect("poisoned");
        if let Some((_, lt)) = cache.iter().find(|(s, _)| s == scale) {
            return Ok(lt.clone());
        }
        let level = self.output_level() + 1;
        let dm = scale
            .mul(&self.ctx.constant_scale(level))
            .div(&self.stc_last_input);
        let lt = Arc::new(LinearTransform::new(
            eval,
            &self.stc_last.diagonals,
            self.stc_last.plan.clone(),
            level,
            Some(dm),
        )?);
        cache.push((scale.clone(), lt.clone()));
        Ok(lt)
    }

    /// Bootstraps `ct` on `eval` with the transforms [`Bootstrapper::transforms_for`]
    /// encoded for it: [`Bootstrapper::bootstrap`]'s steps, the same words when `eval`'s
    /// operations give the CPU evaluator's. Encapsulated configurations are refused (the
    /// key switches to and from the ephemeral secret run on the CPU only).
    pub fn bootstrap_with<E: BootstrapEvaluator>(
        &self,
        eval: &E,
        transforms: &BootstrapTransforms<E>,
        ct: &E::Ciphertext,
    ) -> Result<E::Ciphertext> {
        if self.encapsulation.is_some() {
            return Err(Error::InvalidParameters(
                "this configuration encapsulates ModRaise under an ephemeral secret, which \
                 runs on the CPU evaluator only: use Bootstrapper::bootstrap"
                    .into(),
            ));
        }
        self.check_slots(eval.slots(ct))?;
        let low = self.scale_down_on(eval, ct)?;
        let raised = eval.mod_raise(self, &low)?;
        let summed = self.sub_sum_on(eval, &raised)?;
        let parts = self
            .coeffs_to_slots_on(eval, &transforms.cts, &summed)?
            .iter()
            .map(|c| self.eval_mod_on(eval, c))
            .collect::<Result<Vec<_>>>()?;
        let last = self.last_factor_on(eval, &transforms.last, eval.scale(ct))?;
        self.slots_to_coeffs_on(eval, &transforms.stc, &last, &parts, eval.scale(ct))
    }

    /// ScaleDown on `eval` (see [`Bootstrapper::scale_down`]).
    pub(super) fn scale_down_on<E: BootstrapEvaluator>(
        &self,
        eval: &E,
        ct: &E::Ciphertext,
    ) -> Result<E::Ciphertext> {
        let delta0 = self.level_zero_scale();
        let level = eval.level(ct);
        if level == 0 {
            if *eval.scale(ct) != delta0 {
                let (want, got) = (delta0.to_f64(), eval.scale(ct).to_f64());
                return Err(Error::ScaleMismatch(format!(
                    "a level-0 input must be at scale q_0 / R = 2^{:.2} exactly (it is at \
                     2^{:.2}, a relative difference of {:.1e}): bootstrap it from level 1 \
                     or above, or encode it at level 0 with the scale \
                     Bootstrapper::level_zero_scale() (CkksContext::constant_scale(0) / 2^{})",
                    delta0.log2(),
                    eval.scale(ct).log2(),
                    (got / want - 1.0).abs(),
                    self.config.log_message_ratio
                )));
            }
            return Ok(ct.clone());
        }
        let mut out = eval.at_level(ct, 1)?;
        let c = delta0.mul(&self.ctx.constant_scale(1)).div(eval.scale(ct));
        if c.log2() < 20.0 {
            return Err(Error::ScaleMismatch(format!(
                "the input's scale 2^{:.1} is too large for the message ratio 2^{}: \
                 bootstrap ciphertexts at a scale below q_0 q_1 / 2^(20 + log2 R)",
                eval.scale(ct).log2(),
                self.config.log_message_ratio
            )));
        }
        eval.mul_const_scaled_assign(&mut out, Complex64::new(1.0, 0.0), &c)?;
        eval.rescale_assign(&mut out)?;
        debug_assert_eq!(eval.scale(&out), &delta0);
        Ok(out)
    }

    /// SubSum on `eval` (see [`Bootstrapper::sub_sum`]).
    pub(super) fn sub_sum_on<E: BootstrapEvaluator>(
        &self,
        eval: &E,
        ct: &E::Ciphertext,
    ) -> Result<E::Ciphertext> {
        let mut acc = ct.clone();
        for s in self.sub_sum_rotations() {
            let r = eval.rotate(&acc, s)?;
            eval.add_assign(&mut acc, &r)?;
        }
        eval.set_slots(
            &mut acc,
            self.config.slots * if self.repack { 2 } else { 1 },
        );
        Ok(acc)
    }

    /// CoeffsToSlots on `eval` with its factors `cts` (see
    /// [`Bootstrapper::coeffs_to_slots`]).
    pub(super) fn coeffs_to_slots_on<E: BootstrapEvaluator>(
        &self,
        eval: &E,
        cts: &[(LinearTransform<E>, bool)],
        ct: &E::Ciphertext,
    ) -> Result<Vec<E::Ciphertext>> {
        let mut u = ct.clone();
        for (lt, rescaled) in cts {
            u = lt.evaluate(eval, &u)?;
            if *rescaled {
                eval.rescale_assign(&mut u)?;
            }
        }
        let conj = eval.conjugate(&u)?;
        let mut re = u.clone();
        eval.add_assign(&mut re, &conj)?;
        if self.repack {
            return Ok(vec![re]);
        }
        let mut im = u;
        eval.sub_assign(&mut im, &conj)?;
        // -i (u - conj(u)) = 2 Im(u)
        eval.mul_by_i_assign(&mut im)?;
        eval.neg_assign(&mut im)?;
        Ok(vec![re, im])
    }

    /// EvalMod on `eval` (see [`Bootstrapper::eval_mod`]).
    pub(super) fn eval_mod_on<E: BootstrapEvaluator>(
        &self,
        eval: &E,
        ct: &E::Ciphertext,
    ) -> Result<E::Ciphertext> {
        let mut out = self
            .config
            .eval_mod
            .evaluate(eval, ct, self.eval_mod_target)?;
        debug_assert_eq!(eval.scale(&out), &self.eval_mod_scale);
        eval.set_scale(&mut out, self.stc_input_scale());
        Ok(out)
    }

    /// SlotsToCoeffs on `eval` with its factors `stc` and last factor `last` (see
    /// [`Bootstrapper::slots_to_coeffs`]).
    pub(super) fn slots_to_coeffs_on<E: BootstrapEvaluator>(
        &self,
        eval: &E,
        stc: &[(LinearTransform<E>, bool)],
        last: &LinearTransform<E>,
        parts: &[E::Ciphertext],
        scale: &Scale,
    ) -> Result<E::Ciphertext> {
        let mut v = match (parts, self.repack) {
            ([re, im], false) => {
                let mut v = im.clone();
                eval.mul_by_i_assign(&mut v)?;
                eval.add_assign(&mut v, re)?;
                v
            }
            ([both], true) => both.clone(),
            _ => {
                return Err(Error::ParameterMismatch(format!(
                    "SlotsToCoeffs takes the {} ciphertext(s) CoeffsToSlots made, not {}",
                    if self.repack { 1 } else { 2 },
                    parts.len()
                )))
            }
        };
        for (lt, rescaled) in stc {
            v = lt.evaluate(eval, &v)?;
            if *rescaled {
                eval.rescale_assign(&mut v)?;
            }
        }
        v = last.evaluate(eval, &v)?;
        eval.rescale_assign(&mut v)?;
        debug_assert_eq!(eval.scale(&v), scale);
        eval.set_slots(&mut v, self.config.slots);
        Ok(v)
    }
}
