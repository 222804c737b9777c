//! CKKS bootstrapping on the device (seed 003): [`DeviceBootstrapper`] runs a CPU
//! [`Bootstrapper`]'s circuit — ScaleDown, SubSum, CoeffsToSlots, EvalMod, SlotsToCoeffs —
//! on a [`DeviceEvaluator`] through hekate's generic pipeline
//! ([`Bootstrapper::bootstrap_with`]), with its DFT factors encoded once for the device
//! ([`Bootstrapper::transforms_for`]). Every step gives the CPU bootstrapper's words.
//!
//! ModRaise runs on the device too (`hk_mod_raise_kernel`: the centred lift of `q_0`'s
//! residues to every chain prime). Sparse-secret encapsulation is refused (its key switches
//! run on the CPU only).

use super::{DeviceCiphertext, DeviceEvaluator};
use crate::context::DeviceRingContext;
use crate::error::Result;
use crate::poly::DevicePoly;
use crate::runtime::Arg;
use hekate::ckks::bootstrap::{BootstrapEvaluator, BootstrapTransforms, Bootstrapper};
use hekate::ring::Form;
use std::sync::Arc;

impl BootstrapEvaluator for DeviceEvaluator {
    fn conjugate(&self, ct: &DeviceCiphertext) -> hekate::Result<DeviceCiphertext> {
        DeviceEvaluator::conjugate(self, ct).map_err(super::circuits::to_hekate)
    }
    fn mul_by_i_assign(&self, ct: &mut DeviceCiphertext) -> hekate::Result<()> {
        ct.parts
            .iter_mut()
            .try_for_each(|p| p.mul_monomial_half_assign())
            .map_err(super::circuits::to_hekate)
    }
    fn neg_assign(&self, ct: &mut DeviceCiphertext) -> hekate::Result<()> {
        ct.parts
            .iter_mut()
            .try_for_each(|p| p.neg_assign())
            .map_err(super::circuits::to_hekate)
    }
    fn set_slots(&self, ct: &mut DeviceCiphertext, slots: usize) {
        ct.slots = slots;
    }
    fn mod_raise(
        &self,
        boot: &Bootstrapper,
        ct: &DeviceCiphertext,
    ) -> hekate::Result<DeviceCiphertext> {
        self.mod_raise_on_device(boot, ct)
            .map_err(super::circuits::to_hekate)
    }
}

impl DeviceEvaluator {
    /// ModRaise on the device, as [`Bootstrapper::mod_raise`]: each part of the level-0
    /// ciphertext to coefficient form, centred modulo `q_0` and reduced modulo every chain
    /// prime (`hk_mod_raise_kernel`), back to NTT form, times the gain
    /// [`Bootstrapper::mod_raise_gain`], at scale [`Bootstrapper::mod_raise_scale`] and
    /// `N/2` slots.
    fn mod_raise_on_device(
        &self,
        boot: &Bootstrapper,
        ct: &DeviceCiphertext,
    ) -> Result<DeviceCiphertext> {
        if ct.level() != 0 || ct.degree() != 1 {
            return Err(hekate::Error::LevelMismatch(format!(
                "ModRaise takes a degree-1 ciphertext at level 0 (this one: level {}, degree \
                 {}): use Bootstrapper::scale_down first",
                ct.level(),
                ct.degree()
            ))
            .into());
        }
        let ql = self.ctx.max_level() + 1;
        let parts = ct
            .parts
            .iter()
            .map(|part| {
                let mut c = part.clone();
                c.intt()?;
                let mut out = DevicePoly::uninit(&self.dctx, ql, 0, Form::Coeff)?;
                out.run_elementwise(
                    "hk_mod_raise_kernel",
                    &[Arg::Buf(out.buffer()), Arg::Buf(c.buffer())],
                    &[],
                )?;
                out.ntt()?;
                Ok(out)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut out = DeviceCiphertext {
            parts,
            scale: boot.mod_raise_scale(),
            slots: self.ctx.max_slots(),
        };
        let gain = boot.mod_raise_gain();
        if gain > 1 {
            self.mul_integer_assign(&mut out, gain as i64)?;
        }
        Ok(out)
    }
}

/// A CPU [`Bootstrapper`] run on the device: its keys and DFT factors uploaded once.
pub struct DeviceBootstrapper<'a> {
    boot: &'a Bootstrapper,
    dev: DeviceEvaluator,
    transforms: BootstrapTransforms<DeviceEvaluator>,
}

impl<'a> DeviceBootstrapper<'a> {
    /// Uploads `boot`'s evaluation keys and encodes its DFT factors on the device of
    /// `dctx` (which must mirror `boot`'s ring).
    pub fn new(dctx: &Arc<DeviceRingContext>, boot: &'a Bootstrapper) -> Result<Self> {
        let dev = DeviceEvaluator::new(dctx, boot.evaluator())?;
        let transforms = boot.transforms_for(&dev)?;
        Ok(DeviceBootstrapper {
            boot,
            dev,
            transforms,
        })
    }

    /// The device evaluator (the bootstrapper's keys), for the operations around
    /// bootstrapping and for [`DeviceCiphertext::upload`].
    pub fn evaluator(&self) -> &DeviceEvaluator {
        &self.dev
    }

    /// Bootstraps `ct`, as [`Bootstrapper::bootstrap`]: the same message at
    /// [`Bootstrapper::output_level`] and at `ct`'s scale, the CPU's words.
    pub fn bootstrap(&self, ct: &DeviceCiphertext) -> Result<DeviceCiphertext> {
        Ok(self.boot.bootstrap_with(&self.dev, &self.transforms, ct)?)
    }
}
