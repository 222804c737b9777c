//! Rotations of MLWE-CKKS: plain and rank-hoisted (seed 004 §3.4, Alg. 2).
//!
//! **Plain**: `Rotate(γ) = (φ(b), 0) + KeySwitch_d(φ(a), rotk_γ)`, `φ = X -> X^{5^γ}` on
//! each component and `rotk_γ = KSGen(φ(s), s, g)`: `r` inputs of `d` digits.
//!
//! **Rank-hoisted** (DPad-HE): lift `(b, a)` to the temporary rank `r̂` as `(b, a‖0)`
//! (under `s‖s'`), rotate there with power-of-two keys `KSGen(φ_{±2^i}(s‖s'), s‖s', ĝ)`
//! over `P̂Q` (`μ` digits, one per term of the non-adjacent form of `γ`), as many rotations
//! as wanted (additions work at rank `r̂` too), then come back once with the rank-down key
//! `KeySwitch_d(â[r..r̂], rdk)` of DPad-HE's relinearization. Each rotation then costs `r̂`
//! decompositions of `μ` digits instead of `r` of `d`, and the `d`-digit switch of the
//! `r̂ - r` extra components is paid once per sequence.

use super::ciphertext::Ciphertext;
use super::keys::{RelinearizationKey, SecretKey};
use super::params::MlweContext;
use crate::math::sample;
use crate::ring::automorphism::galois_element_for_rotation;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::{ModuleKey, SecretKey as RingSecret};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use zeroize::Zeroizing;

/// A rotation key of rank `r`: `KSGen(φ_g(s), s, g)` for the Galois element `g`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RotationKey {
    /// The Galois element `g` (`X -> X^g`).
    pub galois: usize,
    /// The module key (`r` inputs, `1 + r` columns, `d` digits over `PQ`).
    pub key: ModuleKey,
}

/// Rank-hoisted rotation keys: power-of-two keys of rank `r̂` over `P̂Q` and the rank-down
/// key `KSGen(s', s, g)` over `PQ`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoistedRotationKeys {
    /// `(g, KSGen(φ_g(s‖s'), s‖s', ĝ))` for each `g = 5^{±2^i}` in use.
    pub keys: Vec<(usize, ModuleKey)>,
    /// `rdk = KSGen(s', s, g)`.
    pub rank_down: ModuleKey,
}

impl HoistedRotationKeys {
    /// Size in bytes in memory.
    pub fn size_bytes(&self) -> usize {
        self.keys.iter().map(|(_, k)| k.size_bytes()).sum::<usize>() + self.rank_down.size_bytes()
    }
}

/// The non-adjacent form of `γ`: signed powers of two `±2^i` summing to `γ`, no two
/// adjacent (at most `ceil((log2 |γ| + 1) / 2) + 1` terms).
pub fn naf(mut gamma: i64) -> Vec<i64> {
    let mut out = Vec::new();
    let mut bit = 1i64;
    while gamma != 0 {
        if gamma & 1 != 0 {
            let z = 2 - gamma.rem_euclid(4);
            out.push(z * bit);
            gamma -= z;
        }
        gamma /= 2;
        bit *= 2;
    }
    out
}

/// `φ_g` of each secret, NTT form over all of its ring's primes, wiped on drop.
fn rotated_secrets(parts: &[&RingSecret], g: usize, ring: &RingContext) -> Zeroizing<Vec<Poly>> {
    Zeroizing::new(
        parts
            .iter()
            .map(|s| {
                let src = s.ntt();
                let mut out = Poly::zero(src.n(), src.q_limbs(), src.p_limbs(), Form::Ntt);
                src.automorphism(g, ring, &mut out);
                out
            })
            .collect(),
    )
}

impl MlweContext {
    /// The Galois element of a rotation by `steps` slots (`5^steps mod 2n`).
    pub fn galois_element(&self, steps: i64) -> usize {
        galois_element_for_rotation(steps, self.n())
    }

    /// Plain rotation keys of rank `r` for each of `steps` (OS randomness).
    pub fn generate_rotation_keys(
        &self,
        sk: &SecretKey,
        steps: &[i64],
    ) -> Result<Vec<RotationKey>> {
        self.generate_rotation_keys_with(sk, steps, &mut sample::os_rng())
    }

    /// Plain rotation keys `KSGen(φ(s), s, g)` of rank `r` for each of `steps`, from `rng`.
    pub fn generate_rotation_keys_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        steps: &[i64],
        rng: &mut R,
    ) -> Result<Vec<RotationKey>> {
        self.check_secret(sk)?;
        let s = sk.prefix(self.rank);
        steps
            .iter()
            .map(|&st| {
                let galois = self.galois_element(st);
                let from = rotated_secrets(&s, galois, self.ring());
                let key = self
                    .ks
                    .generate_module_key(&from, &s, self.ring().q_len(), rng)?;
                Ok(RotationKey { galois, key })
            })
            .collect()
    }

    /// Rank-hoisted rotation keys for the non-adjacent forms of `steps` (OS randomness).
    pub fn generate_hoisted_rotation_keys(
        &self,
        sk: &SecretKey,
        steps: &[i64],
    ) -> Result<HoistedRotationKeys> {
        self.generate_hoisted_rotation_keys_with(sk, steps, &mut sample::os_rng())
    }

    /// Rank-hoisted rotation keys (seed 004 Alg. 2): a power-of-two key of rank `r̂` over
    /// `P̂Q` for each term `±2^i` of the non-adjacent forms of `steps` (reduced modulo the
    /// `n/2` slots), and the rank-down key. Needs DPad-HE.
    pub fn generate_hoisted_rotation_keys_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        steps: &[i64],
        rng: &mut R,
    ) -> Result<HoistedRotationKeys> {
        self.check_secret(sk)?;
        let d = self.dpad.as_ref().ok_or_else(|| {
            Error::InvalidParameters(
                "rank-hoisted rotations need a context built with MlweParameters::dpad".into(),
            )
        })?;
        let slots = self.max_slots() as i64;
        let mut terms: Vec<usize> = steps
            .iter()
            .flat_map(|&s| naf(s.rem_euclid(slots)))
            .map(|t| self.galois_element(t))
            .collect();
        terms.sort_unstable();
        terms.dedup();
        let hat: Vec<&RingSecret> = sk.parts_hat.iter().collect();
        let top = self.ring().q_len();
        let keys = terms
            .into_iter()
            .map(|g| {
                let from = rotated_secrets(&hat, g, d.ring());
                Ok((g, d.ks.generate_module_key(&from, &hat, top, rng)?))
            })
            .collect::<Result<Vec<_>>>()?;
        let s_extra = Zeroizing::new(
            sk.parts[self.rank..d.rank_hat]
                .iter()
                .map(|s| s.ntt().clone())
                .collect::<Vec<_>>(),
        );
        let rank_down = self
            .ks
            .generate_module_key(&s_extra, &sk.prefix(self.rank), top, rng)?;
        Ok(HoistedRotationKeys { keys, rank_down })
    }
}

/// `(φ_g(b), 0) + KeySwitch(φ_g(a), key)` on `ks`'s ring: the rotation core.
pub(crate) fn rotate_with(
    ks: &crate::rlwe::HybridKeySwitcher,
    ct: &Ciphertext,
    g: usize,
    key: &ModuleKey,
    ring: &RingContext,
) -> Result<Vec<Poly>> {
    let rot: Vec<Poly> = ct
        .parts
        .iter()
        .map(|p| {
            let mut out = ring.scratch_poly(p.q_limbs(), 0, Form::Ntt);
            p.automorphism(g, ring, &mut out);
            out
        })
        .collect();
    let inputs: Vec<&Poly> = rot[1..].iter().collect();
    let mut u = ks.switch_module(&inputs, key, Form::Ntt)?;
    u[0].add_assign(&rot[0], ring);
    rot.into_iter().for_each(|p| ring.recycle(p));
    Ok(u)
}

/// The evaluator's rotation keys ([`super::Evaluator`] holds one of these).
#[derive(Debug, Default)]
pub(crate) struct RotationKeySet {
    pub(crate) plain: Vec<RotationKey>,
    pub(crate) hoisted: Option<HoistedRotationKeys>,
}

impl super::Evaluator {
    /// Adds plain rotation keys.
    pub fn with_rotation_keys(mut self, keys: Vec<RotationKey>) -> Self {
        self.rotations.plain.extend(keys);
        self
    }

    /// Sets the rank-hoisted rotation keys.
    pub fn with_hoisted_rotation_keys(mut self, keys: HoistedRotationKeys) -> Self {
        self.rotations.hoisted = Some(keys);
        self
    }

    /// Rotates the slots left by `steps` (plain: `KeySwitch_d` of the `r` components).
    pub fn rotate(&self, ct: &Ciphertext, steps: i64) -> Result<Ciphertext> {
        let ctx = self.context();
        ctx.check_ciphertext(ct)?;
        if ct.is_quadratic() || ct.rank != ctx.rank() {
            return Err(Error::ParameterMismatch(format!(
                "plain rotation takes a relinearized rank-{} ciphertext",
                ctx.rank()
            )));
        }
        let st = steps.rem_euclid(ct.slots as i64);
        if st == 0 {
            return Ok(ct.clone());
        }
        let g = ctx.galois_element(st);
        let key = self
            .rotations
            .plain
            .iter()
            .find(|k| k.galois == g)
            .ok_or_else(|| {
                Error::MissingKey(format!(
                    "no rotation key for {st} steps (Galois element {g}): generate it with \
                     MlweContext::generate_rotation_keys"
                ))
            })?;
        let parts = rotate_with(&ctx.ks, ct, g, &key.key, ctx.ring())?;
        Ok(Ciphertext {
            parts,
            seed: None,
            ..ct.clone()
        })
    }

    /// Lifts a rank-`r` ciphertext to DPad-HE's temporary rank `r̂`: `(b, a‖0)` under
    /// `s‖s'` (free; the start of a rank-hoisted sequence).
    pub fn lift_rank(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        let ctx = self.context();
        ctx.check_ciphertext(ct)?;
        let rh = ctx.rank_hat().ok_or_else(|| {
            Error::InvalidParameters("lifting to r̂ needs a context with DPad-HE".into())
        })?;
        if ct.is_quadratic() || ct.rank != ctx.rank() {
            return Err(Error::ParameterMismatch(format!(
                "lift_rank takes a relinearized rank-{} ciphertext",
                ctx.rank()
            )));
        }
        let ql = ct.level() + 1;
        let mut out = ct.unseeded();
        out.parts
            .extend((ct.rank..rh).map(|_| ctx.ring().zero(ql, 0, Form::Ntt)));
        out.rank = rh;
        Ok(out)
    }

    /// Rotates a lifted (rank-`r̂`) ciphertext by `steps`, one power-of-two key switch
    /// `KeySwitch_μ` per term of its non-adjacent form. Zero components (a fresh lift)
    /// are not decomposed.
    pub fn rotate_lifted(&self, ct: &Ciphertext, steps: i64) -> Result<Ciphertext> {
        let ctx = self.context();
        ctx.check_ciphertext(ct)?;
        let d = ctx.dpad.as_ref().ok_or_else(|| {
            Error::InvalidParameters("rank-hoisted rotation needs DPad-HE".into())
        })?;
        if ct.rank != d.rank_hat {
            return Err(Error::ParameterMismatch(format!(
                "rotate_lifted takes a rank-r̂ = {} ciphertext (lift_rank first)",
                d.rank_hat
            )));
        }
        let keys = self.rotations.hoisted.as_ref().ok_or_else(|| {
            Error::MissingKey("no rank-hoisted rotation keys in the evaluator".into())
        })?;
        let mut cur = ct.unseeded();
        for t in naf(steps.rem_euclid(ct.slots as i64)) {
            let g = ctx.galois_element(t);
            let (_, key) = keys.keys.iter().find(|(kg, _)| *kg == g).ok_or_else(|| {
                Error::MissingKey(format!(
                    "no rank-hoisted key for the term {t} (Galois element {g}): include the \
                     step in generate_hoisted_rotation_keys"
                ))
            })?;
            // Trailing zero components (a fresh lift) need no decomposition.
            let live = 1 + cur.parts[1..]
                .iter()
                .rposition(|p| p.data().iter().any(|&x| x != 0))
                .map_or(0, |i| i + 1);
            let mut view = cur.clone();
            view.parts.truncate(live.max(2));
            let mut parts = rotate_with(&d.ks, &view, g, key, ctx.ring())?;
            parts.truncate(1 + d.rank_hat);
            cur.parts = parts;
        }
        Ok(cur)
    }

    /// Ends a rank-hoisted sequence: `(b, â[..r]) + KeySwitch_d(â[r..r̂], rdk)`, back to
    /// rank `r` under `s`.
    pub fn lower_rank(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        let ctx = self.context();
        ctx.check_ciphertext(ct)?;
        let r = ctx.rank();
        let rdk = match (&self.rotations.hoisted, self.relin_key(r)) {
            (Some(h), _) => &h.rank_down,
            (None, Some(RelinearizationKey::DPad { rdk, .. })) => rdk,
            _ => {
                return Err(Error::MissingKey(
                    "lowering from r̂ needs DPad-HE's rank-down key (hoisted rotation keys or \
                     a DPad-HE relinearization key)"
                        .into(),
                ))
            }
        };
        if ct.rank <= r {
            return Ok(ct.clone());
        }
        let inputs: Vec<&Poly> = ct.parts[1 + r..].iter().collect();
        let parts =
            super::evaluator::fold_to_rank(&ctx.ks, ctx.ring(), &ct.parts[..=r], &inputs, rdk)?;
        Ok(Ciphertext {
            parts,
            rank: r,
            seed: None,
            ..ct.clone()
        })
    }

    /// `steps.len()` consecutive rotations, rank-hoisted: lift, rotate by each step in
    /// turn at rank `r̂`, lower once. Equals (within noise) the plain rotations in turn.
    pub fn rotate_chain_hoisted(&self, ct: &Ciphertext, steps: &[i64]) -> Result<Ciphertext> {
        let mut cur = self.lift_rank(ct)?;
        for &s in steps {
            cur = self.rotate_lifted(&cur, s)?;
        }
        self.lower_rank(&cur)
    }
}
