//! CKKS plaintexts and ciphertexts.

use super::scale::Scale;
use crate::math::sample::Seed;
use crate::ring::Poly;

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
    /// Assembles a plaintext from parts (for deserialization and advanced use);
    /// `ring_id` is the [`RingContext::fingerprint`](crate::ring::RingContext::fingerprint)
    /// of its parameters.
    pub fn from_parts(ring_id: u64, poly: Poly, scale: Scale, slots: usize) -> Self {
        Plaintext {
            ring_id,
            poly,
            scale,
            slots,
        }
    }
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
    /// Assembles a ciphertext from parts (for deserialization and advanced use);
    /// `ring_id` is the [`RingContext::fingerprint`](crate::ring::RingContext::fingerprint)
    /// of its parameters.
    pub fn from_parts(
        ring_id: u64,
        parts: Vec<Poly>,
        scale: Scale,
        slots: usize,
        seed: Option<Seed>,
    ) -> Self {
        Ciphertext {
            ring_id,
            parts,
            scale,
            slots,
            seed,
        }
    }
    /// Size in bytes of the residues in memory.
    pub fn size_bytes(&self) -> usize {
        self.parts.iter().map(|p| p.data().len() * 8).sum()
    }
}
