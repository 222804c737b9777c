//! CKKS bootstrapping on the device (seed 003): [`DeviceBootstrapper`] runs a CPU
//! [`Bootstrapper`]'s circuit — ScaleDown, SubSum, CoeffsToSlots, EvalMod, SlotsToCoeffs —
//! on a [`DeviceEvaluator`] through hekate's generic pipeline
//! ([`Bootstrapper::bootstrap_with`]), with its DFT factors encoded once for the device
//! ([`Bootstrapper::transforms_for`]). Every step gives the CPU bootstrapper's words.
//!
//! ModRaise (one centred lift of two polynomials) runs on the host: the level-0 ciphertext
//! is downloaded, raised by the CPU bootstrapper and uploaded (two small transfers per
//! bootstrap). Sparse-secret encapsulation is refused (its key switches run on the CPU
//! only).

use super::{DeviceCiphertext, DeviceEvaluator};
use crate::context::DeviceRingContext;
use crate::error::Result;
use hekate::ckks::bootstrap::{BootstrapEvaluator, BootstrapTransforms, Bootstrapper};
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
        let raise = || -> Result<DeviceCiphertext> {
            let raised = boot.mod_raise(&ct.download(self)?)?;
            DeviceCiphertext::upload(self, &raised)
        };
        raise().map_err(super::circuits::to_hekate)
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
