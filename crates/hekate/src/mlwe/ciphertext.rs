//! MLWE-CKKS ciphertexts.

use super::keys::quadratic_terms;
use super::params::MlweContext;
use crate::ckks::Scale;
use crate::math::sample::Seed;
use crate::ring::{Form, Poly};
use crate::{Error, Result};

/// A rank-`r` MLWE-CKKS ciphertext `(b, a_1 .. a_r)` in NTT form over `Q_l` at degree `n`,
/// decrypting to `b + <a, s> ≈ Δ · σ^-1(z)`; after an unrelinearized product, the
/// `C(r+1, 2)` quadratic parts `c_{jk}` (`j <= k`, row-major) follow, and it decrypts
/// to `b + <a, s> + sum_{j<=k} c_{jk} s_j s_k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ciphertext {
    pub(crate) ring_id: u64,
    pub(crate) rank: usize,
    pub(crate) parts: Vec<Poly>,
    pub(crate) scale: Scale,
    pub(crate) slots: usize,
    /// The seed `a_1 .. a_r` were expanded from, for a fresh secret-key encryption
    /// (cleared by every operation that changes the parts).
    pub(crate) seed: Option<Seed>,
}

impl Ciphertext {
    /// A copy to modify: the parts will change, so the seed no longer describes them.
    pub(crate) fn unseeded(&self) -> Ciphertext {
        Ciphertext {
            seed: None,
            ..self.clone()
        }
    }

    /// The seed of `a_1 .. a_r` (expanded as
    /// [`expand_uniform`](crate::rlwe::keys::expand_uniform)`(ring, seed, t, l + 1, 0)` for
    /// `a_{t+1}`) of a fresh secret-key encryption, which is then serialized
    /// seed-compressed (`b` and the seed: about `1/(1 + r)` of the size); `None` for every
    /// other ciphertext (every operation clears it).
    pub fn seed(&self) -> Option<&Seed> {
        self.seed.as_ref()
    }

    /// The level `l` (each part has `l + 1` chain limbs).
    pub fn level(&self) -> usize {
        self.parts[0].q_limbs() - 1
    }
    /// The module rank `r`.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// Whether the ciphertext carries quadratic parts (a product not yet relinearized).
    pub fn is_quadratic(&self) -> bool {
        self.parts.len() > 1 + self.rank
    }
    /// The scale `Δ`.
    pub fn scale(&self) -> &Scale {
        &self.scale
    }
    /// Reinterprets the ciphertext at another scale (exact and free; see
    /// [`crate::ckks::Ciphertext::set_scale`]).
    pub fn set_scale(&mut self, scale: Scale) {
        self.scale = scale;
    }
    /// The number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }
    /// The parts `b, a_1 .. a_r [, c_{11} .. c_{rr}]` (NTT form).
    pub fn parts(&self) -> &[Poly] {
        &self.parts
    }
    /// Size in bytes of the residues in memory.
    pub fn size_bytes(&self) -> usize {
        self.parts.iter().map(|p| p.data().len() * 8).sum()
    }
}

impl MlweContext {
    /// Checks that `ct` is a ciphertext of this context with a usable shape: this ring,
    /// a rank in `[1, r]`, `1 + rank` parts (or `1 + rank + C(rank+1, 2)` after a
    /// product) in NTT form over one `Q_l`, a power-of-two slot count up to `n/2`. (The
    /// residues themselves are checked once, by [`MlweContext::ciphertext_from_parts`].)
    pub(crate) fn check_ciphertext(&self, ct: &Ciphertext) -> Result<()> {
        let ring = self.ring();
        let bad = |m: String| Err(Error::ParameterMismatch(format!("MLWE ciphertext: {m}")));
        if ct.ring_id != ring.fingerprint() {
            return bad(format!(
                "it belongs to another context (ring {:#018x}, this context's is {:#018x})",
                ct.ring_id,
                ring.fingerprint()
            ));
        }
        let r = ct.rank;
        let top = self.rank_hat().unwrap_or(self.rank);
        if r == 0 || r > top {
            return bad(format!(
                "rank {r}; this context's ranks are 1 to {} (r̂ = {top} while rank-hoisted)",
                self.rank
            ));
        }
        let n_parts = ct.parts.len();
        if n_parts != 1 + r && n_parts != 1 + r + quadratic_terms(r) {
            return bad(format!(
                "{n_parts} parts; rank {r} has {} (or {} after a product)",
                1 + r,
                1 + r + quadratic_terms(r)
            ));
        }
        let ql = ct.parts[0].q_limbs();
        for (i, p) in ct.parts.iter().enumerate() {
            if p.n() != ring.n()
                || p.form() != Form::Ntt
                || p.p_limbs() != 0
                || p.q_limbs() != ql
                || ql > ring.q_len()
            {
                return bad(format!(
                    "part {i} has degree {}, {} chain and {} special limbs in {:?} form; \
                     expected degree {}, {ql} chain limbs, none special, NTT form",
                    p.n(),
                    p.q_limbs(),
                    p.p_limbs(),
                    p.form(),
                    ring.n()
                ));
            }
        }
        self.encoder().check_slots(ct.slots)
    }

    /// Assembles a ciphertext from parts (for deserialization and advanced use), checked
    /// as described on [`Ciphertext`].
    pub fn ciphertext_from_parts(
        &self,
        rank: usize,
        parts: Vec<Poly>,
        scale: Scale,
        slots: usize,
    ) -> Result<Ciphertext> {
        let ct = Ciphertext {
            ring_id: self.ring().fingerprint(),
            rank,
            parts,
            scale,
            slots,
            seed: None,
        };
        self.check_ciphertext(&ct)?;
        for p in &ct.parts {
            self.ring().check_poly(p, "MLWE ciphertext part")?;
        }
        Ok(ct)
    }
}
