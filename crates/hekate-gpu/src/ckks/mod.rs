//! CKKS on the device: [`DeviceCiphertext`] and [`DeviceEvaluator`], the mirrors of
//! [`hekate::ckks::Ciphertext`] and [`hekate::ckks::Evaluator`] with the same operation
//! names, giving the CPU evaluator's words.
//!
//! The evaluator takes its keys from a CPU [`Evaluator`] (uploaded once: the
//! relinearization key and every Galois key), and runs the CKKS rules on the host (levels,
//! scales, slot counts, key lookup) and the arithmetic on the device: the tensor product,
//! key switching through hekate's backend seam with the hybrid engine's own control flow
//! (`decompose_on` / `multiply_on` / `mod_down_on`), automorphisms, rescaling.
//!
//! The circuits' operations (plaintext products, constants, rotation sums) and the
//! [`hekate::circuits::CircuitEvaluator`] implementation are in `circuits.rs`
//! ([`DevicePlaintext`]).
//!
//! Engines: hybrid (`KeySwitchMethod::Hybrid`), KLSS and linear key switching
//! (`KeySwitchMethod::Klss`, `KeySwitchMethod::Linear`: [`crate::klss`]). A per-level mix
//! (`Mixed`, and `Auto` when it picks one) is refused with [`Error::InvalidInput`].

mod bootstrap;
mod circuits;
mod extended;

pub use bootstrap::DeviceBootstrapper;
pub use circuits::DevicePlaintext;

use crate::context::DeviceRingContext;
use crate::error::{Error, Result};
use crate::klss::{DeviceKlss, DeviceKlssKey};
use crate::poly::DevicePoly;
use hekate::ckks::{Ciphertext, CkksContext, Evaluator, Scale};
use hekate::ring::automorphism::{galois_element_for_conjugation, galois_element_for_rotation};
use hekate::ring::Form;
use hekate::rlwe::backend::Backend;
use hekate::rlwe::keyswitch::{KeySwitchEngine, KlssKeySwitcher, SwitchingKey};
use hekate::rlwe::HybridKeySwitcher;
use std::collections::HashMap;
use std::sync::Arc;

/// A switching key on the device, of the context's engine.
enum DeviceKey {
    /// Hybrid: `(b_j, a_j)` per digit, each over the key's chain limbs and `P`.
    Hybrid(Vec<[DevicePoly; 2]>),
    /// KLSS or linear: the expanded key over `B'`.
    Klss(DeviceKlssKey),
}

impl DeviceKey {
    /// Whether the key serves inputs of `q_limbs` chain limbs (KLSS keys are always
    /// full-width).
    fn covers(&self, q_limbs: usize) -> bool {
        match self {
            DeviceKey::Hybrid(k) => k.first().is_none_or(|k| k[0].q_limbs() >= q_limbs),
            DeviceKey::Klss(_) => true,
        }
    }
}

/// The engine's device side.
enum Engine {
    Hybrid,
    Klss(DeviceKlss),
}

/// A CKKS ciphertext on the device: its parts in NTT form, with the scale and slot count
/// kept on the host. Cloning copies the parts on the device.
#[derive(Clone)]
pub struct DeviceCiphertext {
    parts: Vec<DevicePoly>,
    scale: Scale,
    slots: usize,
}

impl DeviceCiphertext {
    /// Uploads `ct`.
    pub fn upload(ev: &DeviceEvaluator, ct: &Ciphertext) -> Result<Self> {
        ev.ctx.check_ciphertext(ct)?;
        let parts = ct
            .parts()
            .iter()
            .map(|p| DevicePoly::upload(&ev.dctx, p))
            .collect::<Result<Vec<_>>>()?;
        Ok(DeviceCiphertext {
            parts,
            scale: ct.scale().clone(),
            slots: ct.slots(),
        })
    }

    /// Downloads it into a CPU ciphertext of `ev`'s context.
    pub fn download(&self, ev: &DeviceEvaluator) -> Result<Ciphertext> {
        let parts = self
            .parts
            .iter()
            .map(DevicePoly::download)
            .collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext::from_parts(
            &ev.ctx,
            parts,
            self.scale.clone(),
            self.slots,
            None,
        )?)
    }

    /// The level `l`.
    pub fn level(&self) -> usize {
        self.parts[0].q_limbs() - 1
    }

    /// The scale.
    pub fn scale(&self) -> &Scale {
        &self.scale
    }

    /// The number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The degree (parts minus one).
    pub fn degree(&self) -> usize {
        self.parts.len() - 1
    }
}

/// The CKKS evaluator on the device (see the module documentation).
pub struct DeviceEvaluator {
    ctx: Arc<CkksContext>,
    dctx: Arc<DeviceRingContext>,
    engine: Engine,
    relin: Option<DeviceKey>,
    galois: HashMap<usize, DeviceKey>,
}

impl DeviceEvaluator {
    /// Uploads the keys of the CPU evaluator `ev` to the device of `dctx` (which must
    /// mirror `ev`'s ring).
    pub fn new(dctx: &Arc<DeviceRingContext>, ev: &Evaluator) -> Result<Self> {
        let ctx = ev.context().clone();
        if dctx.ring().fingerprint() != ctx.ring().fingerprint() {
            return Err(Error::InvalidInput(
                "the device context mirrors another ring".into(),
            ));
        }
        let engine = match ctx.keyswitcher() {
            KeySwitchEngine::Hybrid(_) => Engine::Hybrid,
            KeySwitchEngine::Klss(ks) => Engine::Klss(DeviceKlss::new(dctx, ks)?),
            _ => {
                return Err(Error::InvalidInput(
                    "the device evaluator runs the hybrid, KLSS and linear engines, not a per-level mix: build the context with KeySwitchMethod::Hybrid, Klss or Linear".into(),
                ))
            }
        };
        let upload = |k: &SwitchingKey| -> Result<DeviceKey> {
            match (k, ctx.keyswitcher()) {
                (SwitchingKey::Hybrid(k), KeySwitchEngine::Hybrid(_)) => Ok(DeviceKey::Hybrid(
                    k.digits
                        .iter()
                        .map(|[b, a]| {
                            Ok([DevicePoly::upload(dctx, b)?, DevicePoly::upload(dctx, a)?])
                        })
                        .collect::<Result<_>>()?,
                )),
                (SwitchingKey::Klss(k), KeySwitchEngine::Klss(ks)) => {
                    Ok(DeviceKey::Klss(DeviceKlssKey::upload(dctx, ks, k)?))
                }
                _ => Err(Error::InvalidInput(
                    "a key of another engine than the context's".into(),
                )),
            }
        };
        let relin = ev
            .keys()
            .relinearization_key()
            .map(|k| upload(&k.0))
            .transpose()?;
        let mut galois = HashMap::new();
        for k in ev.keys().galois_keys().iter() {
            galois.insert(k.galois_element(), upload(k.key())?);
        }
        Ok(DeviceEvaluator {
            ctx,
            dctx: dctx.clone(),
            engine,
            relin,
            galois,
        })
    }

    /// The hybrid engine: the context's, or the one a KLSS engine generates keys with.
    fn ks(&self) -> &HybridKeySwitcher {
        match self.ctx.keyswitcher() {
            KeySwitchEngine::Hybrid(h) => h,
            KeySwitchEngine::Klss(k) => k.hybrid(),
            _ => unreachable!("checked when the evaluator was built"),
        }
    }

    /// The KLSS engine (for a context built with it).
    fn klss(&self) -> &KlssKeySwitcher {
        match self.ctx.keyswitcher() {
            KeySwitchEngine::Klss(k) => k,
            _ => unreachable!("only called with a KLSS engine"),
        }
    }

    /// The CKKS context.
    pub fn context(&self) -> &Arc<CkksContext> {
        &self.ctx
    }

    /// The device context.
    pub fn device_context(&self) -> &Arc<DeviceRingContext> {
        &self.dctx
    }

    fn check_pair(a: &DeviceCiphertext, b: &DeviceCiphertext) -> Result<()> {
        if a.slots != b.slots {
            return Err(Error::InvalidInput(format!(
                "operands have {} and {} slots",
                a.slots, b.slots
            )));
        }
        Ok(())
    }

    /// The parts of `ct` at `level`: its own when it is there, else a copy of the limbs
    /// kept (dropping levels is exact).
    fn parts_at_level<'a>(&self, ct: &'a DeviceCiphertext, level: usize) -> Result<Parts<'a>> {
        Ok(if ct.level() == level {
            Parts::Borrowed(&ct.parts)
        } else {
            Parts::Owned(self.parts_at(ct, level)?)
        })
    }

    /// The parts of `ct` at `level` (a copy of the limbs kept).
    fn parts_at(&self, ct: &DeviceCiphertext, level: usize) -> Result<Vec<DevicePoly>> {
        DevicePoly::copy_parts(&ct.parts.iter().collect::<Vec<_>>(), level + 1)
    }

    /// `a + b` (the lower level of the two; equal scales).
    pub fn add(&self, a: &DeviceCiphertext, b: &DeviceCiphertext) -> Result<DeviceCiphertext> {
        self.add_sub(a, b, false)
    }

    /// `a - b` (the lower level of the two; equal scales).
    pub fn sub(&self, a: &DeviceCiphertext, b: &DeviceCiphertext) -> Result<DeviceCiphertext> {
        self.add_sub(a, b, true)
    }

    fn add_sub(
        &self,
        a: &DeviceCiphertext,
        b: &DeviceCiphertext,
        sub: bool,
    ) -> Result<DeviceCiphertext> {
        Self::check_pair(a, b)?;
        if a.scale != b.scale || a.degree() != b.degree() {
            return Err(Error::InvalidInput(
                "addition needs equal scales and degrees (rescale or relinearize first)".into(),
            ));
        }
        let level = a.level().min(b.level());
        let (pa, pb) = (
            self.parts_at_level(a, level)?,
            self.parts_at_level(b, level)?,
        );
        let mut parts = (0..pa.len())
            .map(|_| DevicePoly::uninit(&self.dctx, level + 1, 0, Form::Ntt))
            .collect::<Result<Vec<_>>>()?;
        let (ra, rb): (Vec<_>, Vec<_>) = (pa.iter().collect(), pb.iter().collect());
        DevicePoly::add_parts(&mut parts, &ra, &rb, sub)?;
        Ok(DeviceCiphertext {
            parts,
            scale: a.scale.clone(),
            slots: a.slots,
        })
    }

    /// The degree-2 product (no relinearization), as [`Evaluator::mul_no_relin`].
    pub fn mul_no_relin(
        &self,
        a: &DeviceCiphertext,
        b: &DeviceCiphertext,
    ) -> Result<DeviceCiphertext> {
        Self::check_pair(a, b)?;
        if a.degree() != 1 || b.degree() != 1 {
            return Err(Error::InvalidInput(
                "multiplication needs degree-1 operands".into(),
            ));
        }
        let level = a.level().min(b.level());
        let (pa, pb) = (
            self.parts_at_level(a, level)?,
            self.parts_at_level(b, level)?,
        );
        let out = || DevicePoly::uninit(&self.dctx, level + 1, 0, Form::Ntt);
        let mut d = [out()?, out()?, out()?];
        DevicePoly::tensor_parts([&pa[0], &pa[1]], [&pb[0], &pb[1]], &mut d)?;
        Ok(DeviceCiphertext {
            parts: d.into(),
            scale: a.scale.mul(&b.scale),
            slots: a.slots,
        })
    }

    /// Key-switches `c` with `key` on the context's engine: the hybrid engine's three
    /// steps through the backend seam, or the KLSS / linear steps ([`crate::klss`]).
    fn switch(&self, c: &DevicePoly, key: &DeviceKey) -> Result<[DevicePoly; 2]> {
        let ql = c.q_limbs();
        if !key.covers(ql) {
            return Err(Error::InvalidInput(format!(
                "the switching key does not cover level {}",
                ql - 1
            )));
        }
        match (key, &self.engine) {
            (DeviceKey::Hybrid(key), Engine::Hybrid) => {
                if key.len() < self.ks().digits_at(ql) {
                    return Err(Error::InvalidInput(
                        "the switching key has too few digits".into(),
                    ));
                }
                let dctx: &DeviceRingContext = &self.dctx;
                let digits = self.ks().decompose_on(dctx, c, ql);
                let mut acc = [0, 1].map(|_| dctx.alloc(ql, self.ctx.ring().p_len(), Form::Ntt));
                self.ks().multiply_on(dctx, &digits, key, &mut acc, false);
                Ok(self.ks().mod_down_on(dctx, acc))
            }
            (DeviceKey::Klss(key), Engine::Klss(dk)) => dk.switch(self.klss(), c, key),
            _ => Err(Error::InvalidInput("a key of another engine".into())),
        }
    }

    /// Relinearizes a degree-2 ciphertext, as [`Evaluator::relinearize`].
    pub fn relinearize(&self, ct: &DeviceCiphertext) -> Result<DeviceCiphertext> {
        if ct.degree() != 2 {
            return Err(Error::InvalidInput(
                "relinearization needs a degree-2 ciphertext".into(),
            ));
        }
        let key = self
            .relin
            .as_ref()
            .ok_or_else(|| Error::InvalidInput("no relinearization key on the device".into()))?;
        // (c_0 + u_0, c_1 + u_1), summed into the switch's outputs.
        let mut u = self.switch(&ct.parts[2], key)?;
        DevicePoly::add_assign_parts(&mut u, &[&ct.parts[0], &ct.parts[1]], false)?;
        Ok(DeviceCiphertext {
            parts: u.into(),
            scale: ct.scale.clone(),
            slots: ct.slots,
        })
    }

    /// `a * b`, relinearized, as [`Evaluator::mul`].
    pub fn mul(&self, a: &DeviceCiphertext, b: &DeviceCiphertext) -> Result<DeviceCiphertext> {
        self.relinearize(&self.mul_no_relin(a, b)?)
    }

    /// Divides by the last prime of the level, as [`Evaluator::rescale`].
    pub fn rescale(&self, ct: &DeviceCiphertext) -> Result<DeviceCiphertext> {
        let mut out = DeviceCiphertext {
            parts: self.parts_at(ct, ct.level())?,
            scale: ct.scale.clone(),
            slots: ct.slots,
        };
        self.rescale_assign(&mut out)?;
        Ok(out)
    }

    /// [`DeviceEvaluator::rescale`] in place (no copy of the parts).
    pub fn rescale_assign(&self, ct: &mut DeviceCiphertext) -> Result<()> {
        if ct.level() == 0 {
            return Err(Error::InvalidInput(
                "cannot rescale a ciphertext at level 0".into(),
            ));
        }
        let q_last = self.ctx.ring().q().moduli()[ct.level()].value();
        // Two parts per launch.
        for pair in ct.parts.chunks_mut(2) {
            match pair {
                [a, b] => DevicePoly::divide_round_by_last_q_pair(a, b)?,
                [a] => a.divide_round_by_last_q()?,
                _ => unreachable!("chunks of one or two"),
            }
        }
        ct.scale = ct.scale.div_integer(q_last);
        Ok(())
    }

    /// The Galois element and device key of a rotation by `steps` (as the CPU evaluator
    /// looks them up), or `None` for the identity.
    fn rotation_key(
        &self,
        ct: &DeviceCiphertext,
        steps: i64,
    ) -> Result<Option<(usize, &DeviceKey)>> {
        let slots = ct.slots as i64;
        let r = steps.rem_euclid(slots);
        if r == 0 {
            return Ok(None);
        }
        let n = self.ctx.ring().n();
        let ql = ct.level() + 1;
        let mut narrow = None;
        for cand in [steps, r, r - slots] {
            let g = galois_element_for_rotation(cand, n);
            if let Some(k) = self.galois.get(&g) {
                if k.covers(ql) {
                    return Ok(Some((g, k)));
                }
                narrow.get_or_insert((g, k));
            }
        }
        narrow.map(Some).ok_or_else(|| {
            Error::InvalidInput(format!(
                "no Galois key for a rotation by {steps} on the device"
            ))
        })
    }

    /// `φ_g(c_0 + u_0), φ_g(u_1)`.
    fn finish_automorphism(
        &self,
        c0: &DevicePoly,
        g: usize,
        u: [DevicePoly; 2],
    ) -> Result<Vec<DevicePoly>> {
        let [mut u0, u1] = u;
        u0.add_assign(c0)?;
        let ql = u0.q_limbs();
        let mut out = vec![
            DevicePoly::uninit(&self.dctx, ql, 0, Form::Ntt)?,
            DevicePoly::uninit(&self.dctx, ql, 0, Form::Ntt)?,
        ];
        DevicePoly::permute_parts(&[&u0, &u1], g, &mut out)?;
        Ok(out)
    }

    fn automorphism_with(
        &self,
        ct: &DeviceCiphertext,
        g: usize,
        key: &DeviceKey,
    ) -> Result<DeviceCiphertext> {
        if ct.degree() != 1 {
            return Err(Error::InvalidInput(
                "automorphisms need a degree-1 ciphertext".into(),
            ));
        }
        let u = self.switch(&ct.parts[1], key)?;
        Ok(DeviceCiphertext {
            parts: self.finish_automorphism(&ct.parts[0], g, u)?,
            scale: ct.scale.clone(),
            slots: ct.slots,
        })
    }

    fn copy(&self, ct: &DeviceCiphertext) -> Result<DeviceCiphertext> {
        Ok(DeviceCiphertext {
            parts: self.parts_at(ct, ct.level())?,
            scale: ct.scale.clone(),
            slots: ct.slots,
        })
    }

    /// Rotates the slots left by `steps`, as [`Evaluator::rotate`].
    pub fn rotate(&self, ct: &DeviceCiphertext, steps: i64) -> Result<DeviceCiphertext> {
        match self.rotation_key(ct, steps)? {
            None => self.copy(ct),
            Some((g, key)) => self.automorphism_with(ct, g, key),
        }
    }

    /// Complex conjugation of every slot, as [`Evaluator::conjugate`].
    pub fn conjugate(&self, ct: &DeviceCiphertext) -> Result<DeviceCiphertext> {
        let g = galois_element_for_conjugation(self.ctx.ring().n());
        let key = self
            .galois
            .get(&g)
            .ok_or_else(|| Error::InvalidInput("no conjugation key on the device".into()))?;
        self.automorphism_with(ct, g, key)
    }

    /// Rotations by each of `steps` sharing one decomposition of `c_1` (hoisting), as
    /// [`Evaluator::rotate_hoisted`].
    pub fn rotate_hoisted(
        &self,
        ct: &DeviceCiphertext,
        steps: &[i64],
    ) -> Result<Vec<DeviceCiphertext>> {
        if ct.degree() != 1 {
            return Err(Error::InvalidInput(
                "rotations need a degree-1 ciphertext".into(),
            ));
        }
        let keys = steps
            .iter()
            .map(|&s| self.rotation_key(ct, s))
            .collect::<Result<Vec<_>>>()?;
        let ql = ct.level() + 1;
        let dctx: &DeviceRingContext = &self.dctx;
        // One decomposition of c_1, shared by every rotation.
        let digits = match &self.engine {
            Engine::Hybrid => self.ks().decompose_on(dctx, &ct.parts[1], ql),
            Engine::Klss(dk) => dk.decompose(self.klss(), &ct.parts[1])?,
        };
        keys.into_iter()
            .map(|key| match key {
                None => self.copy(ct),
                Some((g, key)) => {
                    if !key.covers(ql) {
                        return Err(Error::InvalidInput(
                            "the Galois key does not cover this level".into(),
                        ));
                    }
                    let u = match (key, &self.engine) {
                        (DeviceKey::Hybrid(key), Engine::Hybrid) => {
                            let mut acc =
                                [0, 1].map(|_| dctx.alloc(ql, self.ctx.ring().p_len(), Form::Ntt));
                            self.ks().multiply_on(dctx, &digits, key, &mut acc, false);
                            self.ks().mod_down_on(dctx, acc)
                        }
                        (DeviceKey::Klss(key), Engine::Klss(dk)) => {
                            let blocks = dk.multiply(self.klss(), &digits, key, ql)?;
                            dk.finish(self.klss(), blocks, ql, Form::Ntt)?
                        }
                        _ => return Err(Error::InvalidInput("a key of another engine".into())),
                    };
                    Ok(DeviceCiphertext {
                        parts: self.finish_automorphism(&ct.parts[0], g, u)?,
                        scale: ct.scale.clone(),
                        slots: ct.slots,
                    })
                }
            })
            .collect()
    }
}

/// A ciphertext's parts at some level: its own, or a truncated copy.
enum Parts<'a> {
    Borrowed(&'a [DevicePoly]),
    Owned(Vec<DevicePoly>),
}

impl std::ops::Deref for Parts<'_> {
    type Target = [DevicePoly];
    fn deref(&self) -> &[DevicePoly] {
        match self {
            Parts::Borrowed(p) => p,
            Parts::Owned(p) => p,
        }
    }
}

impl std::fmt::Debug for DeviceEvaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceEvaluator({:?}, relinearization key: {}, {} Galois keys)",
            self.dctx,
            self.relin.is_some(),
            self.galois.len()
        )
    }
}
