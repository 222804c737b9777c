//! BFV/BGV ciphertexts: parts in NTT form over `Q_ℓ`, the correction factor `α` mod `t`,
//! and the key-free noise estimate.

use super::context::IntegerContext;
use crate::math::sample::Seed;
use crate::ring::{Form, Poly};
use crate::{Error, Result};

/// A ciphertext `(c_0, c_1[, c_2])` decrypting to `[t^-1]_{Q_ℓ} α m + e` (see the
/// [module documentation](super)).
#[derive(Clone, Debug, PartialEq)]
pub struct Ciphertext {
    pub(crate) id: u64,
    pub(crate) parts: Vec<Poly>,
    pub(crate) factor: u64,
    pub(crate) seed: Option<Seed>,
    /// The estimated `log2 ‖y‖∞` of `y = [t (c_0 + c_1 s + ...)]_{Q_ℓ} = α m + t e`
    /// ([`super::noise`]).
    pub(crate) noise: f64,
}

impl Ciphertext {
    /// The level `ℓ` (each part has `ℓ + 1` chain limbs).
    pub fn level(&self) -> usize {
        self.parts[0].q_limbs() - 1
    }

    /// Degree (number of parts minus one): 1 normally, 2 after an unrelinearized product.
    pub fn degree(&self) -> usize {
        self.parts.len() - 1
    }

    /// The parts' form: NTT for fresh ciphertexts and BGV, coefficient for BFV products
    /// and what follows them (seed 001 Table II: BFV's key switches then enter and leave
    /// the engines without transforms). Every operation takes either form.
    pub fn form(&self) -> Form {
        self.parts[0].form()
    }

    /// The parts `c_0, c_1, ...` (NTT form).
    pub fn parts(&self) -> &[Poly] {
        &self.parts
    }

    /// The correction factor `α ∈ Z_t^*` (1 for a fresh encryption; modulus switches and
    /// BFV products change it; decryption divides it out).
    pub fn correction_factor(&self) -> u64 {
        self.factor
    }

    /// The seed `c_1` was expanded from, for a fresh secret-key encryption.
    pub fn seed(&self) -> Option<&Seed> {
        self.seed.as_ref()
    }

    /// The key-free estimate of `log2 ‖y‖∞`, `y = α m + t e` the textbook BGV value of
    /// the decryption (decryption is correct while `‖y‖∞ < Q_ℓ / 2`).
    pub fn estimated_noise_log2(&self) -> f64 {
        self.noise
    }

    /// Size in bytes of the residues in memory.
    pub fn size_bytes(&self) -> usize {
        self.parts.iter().map(|p| p.data().len() * 8).sum()
    }

    /// Assembles a ciphertext from parts (for deserialization and advanced use), checked
    /// against `ctx`: two or three parts of `ctx`'s ring in one form over the same `Q_ℓ`
    /// (no special limbs, every residue reduced), a factor in `[1, t)` invertible mod
    /// `t`, and a `seed` only with two parts. The noise estimate is set to `noise_log2`.
    pub fn from_parts(
        ctx: &IntegerContext,
        parts: Vec<Poly>,
        factor: u64,
        seed: Option<Seed>,
        noise_log2: f64,
    ) -> Result<Self> {
        let ct = Ciphertext {
            id: ctx.fingerprint(),
            parts,
            factor,
            seed,
            noise: noise_log2,
        };
        ct.check_shape(ctx)?;
        Ok(ct)
    }

    /// Checks that the ciphertext is one of `ctx` with a usable shape.
    pub(crate) fn check_shape(&self, ctx: &IntegerContext) -> Result<()> {
        ctx.check_id(self.id, "ciphertext")?;
        let bad = |m: String| Err(Error::ParameterMismatch(m));
        if !(2..=3).contains(&self.parts.len()) {
            return bad(format!(
                "a ciphertext has 2 or 3 parts (degree 1 or 2), not {}",
                self.parts.len()
            ));
        }
        if self.seed.is_some() && (self.parts.len() != 2 || self.parts[0].form() != Form::Ntt) {
            return bad("a seed-compressed ciphertext has exactly two parts, in NTT form".into());
        }
        let tm = ctx.plaintext_modulus().modulus();
        if self.factor == 0 || self.factor >= tm.value() || tm.inv(self.factor).is_none() {
            return bad(format!(
                "correction factor {} is not a unit mod t = {}",
                self.factor,
                tm.value()
            ));
        }
        if !self.noise.is_finite() || self.noise < 0.0 {
            return bad(format!(
                "noise estimate {} is not a finite log2",
                self.noise
            ));
        }
        let ring = ctx.ring();
        let l = self.parts[0].q_limbs();
        for (i, p) in self.parts.iter().enumerate() {
            ring.check_poly(p, &format!("ciphertext part {i}"))?;
            if p.form() != self.parts[0].form() || p.p_limbs() != 0 || p.q_limbs() != l || l == 0 {
                return bad(format!(
                    "ciphertext part {i}: one form for every part, {} chain limbs and no \
                     special limbs expected",
                    l.max(1)
                ));
            }
        }
        Ok(())
    }
}
