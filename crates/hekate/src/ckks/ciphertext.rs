//! CKKS plaintexts and ciphertexts.

use super::params::CkksContext;
use super::scale::Scale;
use crate::math::sample::Seed;
use crate::ring::{Form, Poly};
use crate::{Error, Result};

/// An encoded message: `m ≈ Δ · σ^-1(z)` in NTT form over `Q_l`, with its scale `Δ`
/// and slot count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plaintext {
    /// Fingerprint of the ring it was made under.
    pub(crate) ring_id: u64,
    pub(crate) poly: Poly,
    pub(crate) scale: Scale,
    pub(crate) slots: usize,
}

impl Plaintext {
    /// Size in bytes of the residues in memory.
    pub fn size_bytes(&self) -> usize {
        self.poly.data().len() * 8
    }
    /// The level `l` (the polynomial has `l + 1` chain limbs).
    pub fn level(&self) -> usize {
        self.poly.q_limbs() - 1
    }
    /// The scale `Δ`.
    pub fn scale(&self) -> &Scale {
        &self.scale
    }
    /// The number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }
    /// The polynomial (NTT form).
    pub fn poly(&self) -> &Poly {
        &self.poly
    }
    /// Assembles a plaintext from parts (for deserialization and advanced use), checked
    /// against `ctx`: a polynomial of `ctx`'s ring in NTT form over `Q_l` (`1 <= l + 1 <=
    /// L + 1` chain limbs, no special limbs, every residue reduced) and a power-of-two slot
    /// count up to `N/2`.
    pub fn from_parts(ctx: &CkksContext, poly: Poly, scale: Scale, slots: usize) -> Result<Self> {
        let pt = Plaintext {
            ring_id: ctx.ring().fingerprint(),
            poly,
            scale,
            slots,
        };
        pt.check_shape(ctx)?;
        Ok(pt)
    }

    /// Checks that the plaintext is one of `ctx` with a usable shape (see
    /// [`Plaintext::from_parts`]).
    pub(crate) fn check_shape(&self, ctx: &CkksContext) -> Result<()> {
        check_ring(self.ring_id, ctx, "plaintext")?;
        check_message_poly(&self.poly, None, ctx, "plaintext")?;
        check_slots(self.slots, ctx)
    }
}

fn check_ring(ring_id: u64, ctx: &CkksContext, what: &str) -> Result<()> {
    if ring_id != ctx.ring().fingerprint() {
        return Err(Error::ParameterMismatch(format!(
            "the {what} belongs to another context (ring fingerprint {ring_id:#018x}, this \
             context's is {:#018x})",
            ctx.ring().fingerprint()
        )));
    }
    Ok(())
}

/// A message polynomial: NTT form over `Q_l` (no special limbs), `q_limbs` chain limbs
/// when given, reduced residues.
fn check_message_poly(
    p: &Poly,
    q_limbs: Option<usize>,
    ctx: &CkksContext,
    what: &str,
) -> Result<()> {
    let ring = ctx.ring();
    ring.check_poly(p, what)?;
    let bad = |m: String| Err(Error::ParameterMismatch(format!("{what}: {m}")));
    if p.form() != Form::Ntt {
        return bad("must be in NTT form".into());
    }
    if p.p_limbs() != 0 || p.q_limbs() == 0 {
        return bad(format!(
            "{} chain and {} special limbs; a message has 1 to {} chain limbs and no \
             special ones",
            p.q_limbs(),
            p.p_limbs(),
            ring.q_len()
        ));
    }
    if let Some(l) = q_limbs.filter(|&l| l != p.q_limbs()) {
        return bad(format!(
            "{} chain limbs where the first part has {l}",
            p.q_limbs()
        ));
    }
    Ok(())
}

fn check_slots(slots: usize, ctx: &CkksContext) -> Result<()> {
    if !slots.is_power_of_two() || slots > ctx.n() / 2 {
        return Err(Error::ParameterMismatch(format!(
            "slot count {slots} is not a power of two in [1, N/2 = {}]",
            ctx.n() / 2
        )));
    }
    Ok(())
}

/// A CKKS ciphertext `(c_0, c_1[, c_2])` in NTT form over `Q_l`, decrypting to
/// `c_0 + c_1 s [+ c_2 s^2] ≈ Δ · σ^-1(z)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ciphertext {
    /// Fingerprint of the ring it was made under.
    pub(crate) ring_id: u64,
    pub(crate) parts: Vec<Poly>,
    pub(crate) scale: Scale,
    pub(crate) slots: usize,
    /// For a fresh secret-key encryption, the seed `c_1` is expanded from (serialization
    /// then stores the seed instead of `c_1`). Cleared by every operation.
    pub(crate) seed: Option<Seed>,
}

impl Ciphertext {
    /// The level `l` (each part has `l + 1` chain limbs).
    pub fn level(&self) -> usize {
        self.parts[0].q_limbs() - 1
    }
    /// The scale `Δ`.
    pub fn scale(&self) -> &Scale {
        &self.scale
    }
    /// The number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }
    /// Reinterprets the ciphertext at another scale without touching its parts: a
    /// ciphertext of `z` at scale `Δ` is, word for word, one of `z · Δ / scale` at `scale`.
    /// Exact and free; it folds a constant factor into the scale instead of spending a
    /// level on a constant multiplication; and any scale suits a ciphertext of zero. The
    /// noise is reinterpreted with the message.
    pub fn set_scale(&mut self, scale: Scale) {
        self.scale = scale;
    }
    /// Degree (number of parts minus one): 1 normally, 2 after an unrelinearized product.
    pub fn degree(&self) -> usize {
        self.parts.len() - 1
    }
    /// The parts `c_0, c_1, ...` (NTT form).
    pub fn parts(&self) -> &[Poly] {
        &self.parts
    }
    /// The seed `c_1` was expanded from, for a fresh secret-key encryption.
    pub fn seed(&self) -> Option<&Seed> {
        self.seed.as_ref()
    }
    /// Assembles a ciphertext from parts (for deserialization and advanced use), checked
    /// against `ctx`: two or three parts of `ctx`'s ring, each in NTT form over the same
    /// `Q_l` (no special limbs, every residue reduced), a power-of-two slot count up to
    /// `N/2`, and a `seed` only with two parts (the seed `c_1` was expanded from).
    pub fn from_parts(
        ctx: &CkksContext,
        parts: Vec<Poly>,
        scale: Scale,
        slots: usize,
        seed: Option<Seed>,
    ) -> Result<Self> {
        let ct = Ciphertext {
            ring_id: ctx.ring().fingerprint(),
            parts,
            scale,
            slots,
            seed,
        };
        ct.check_shape(ctx)?;
        Ok(ct)
    }

    /// Checks that the ciphertext is one of `ctx` with a usable shape (see
    /// [`Ciphertext::from_parts`]).
    pub(crate) fn check_shape(&self, ctx: &CkksContext) -> Result<()> {
        check_ring(self.ring_id, ctx, "ciphertext")?;
        if !(2..=3).contains(&self.parts.len()) {
            return Err(Error::ParameterMismatch(format!(
                "a ciphertext has 2 or 3 parts (degree 1 or 2), not {}",
                self.parts.len()
            )));
        }
        if self.seed.is_some() && self.parts.len() != 2 {
            return Err(Error::ParameterMismatch(
                "a seed-compressed ciphertext has exactly two parts".into(),
            ));
        }
        let l = self.parts[0].q_limbs();
        for (i, p) in self.parts.iter().enumerate() {
            check_message_poly(p, Some(l), ctx, &format!("ciphertext part {i}"))?;
        }
        check_slots(self.slots, ctx)
    }

    /// Size in bytes of the residues in memory.
    pub fn size_bytes(&self) -> usize {
        self.parts.iter().map(|p| p.data().len() * 8).sum()
    }
}
