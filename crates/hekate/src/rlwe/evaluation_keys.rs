//! Evaluation keys and their generation, for every RLWE scheme: the relinearization key,
//! pre-permuted Galois (rotation / conjugation) keys looked up by Galois element, and the
//! set of them an evaluator holds.
//!
//! Key generation is on [`RlweParameters`]; schemes forward to it (e.g.
//! [`CkksContext::generate_galois_keys`](crate::ckks::CkksContext::generate_galois_keys)
//! turns slot rotations into Galois elements and calls
//! [`RlweParameters::generate_galois_keys_with`]).
//!
//! **Level-aware keys.** A key used only at levels `<= l` can be generated for them
//! (the `_at_with` functions, e.g. [`RlweParameters::generate_galois_key_at_with`]): with
//! the hybrid engine it has `ceil((l + 1) / α)` digits over `Q_l ∪ P` instead of `dnum`
//! over `Q ∪ P` (seed 003 §3.1: `⌈ℓ/α⌉ (ℓ + k)` limb pairs at `ℓ = l + 1` limbs), and
//! evaluators refuse it, with [`Error::LevelMismatch`](crate::Error::LevelMismatch), for a
//! ciphertext above level `l`. The KLSS / linear and mixed engines have no narrow keys:
//! they generate the full key, which serves every level.

use super::keys::{PublicKey, SecretKey};
use super::keyswitch::SwitchingKey;
use super::params::RlweParameters;
use crate::math::sample;
use crate::progress::{NoProgress, Progress};
use crate::ring::automorphism::galois_inverse;
use crate::Result;
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::collections::HashMap;
use zeroize::Zeroizing;

/// The relinearization key: a switching key from `s^2` to `s`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelinearizationKey(pub SwitchingKey);

impl RelinearizationKey {
    /// The highest level the key serves: `L` for a full key, `l` for one generated for
    /// levels `<= l` ([`RlweParameters::generate_relinearization_key_at_with`]); `None` for
    /// a malformed key without digits.
    pub fn max_level(&self) -> Option<usize> {
        self.0.max_level()
    }
}

/// A Galois key for the element `g` (`X -> X^g`), pre-permuted for hoisting (seed 003
/// Alg. 4): a switching key from `s` to `s(X^(g^-1))`, so that the automorphism is applied
/// once to the key-switched pair instead of to every digit.
///
/// Made only by key generation and deserialization, so the element it carries is the one
/// its key was generated for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GaloisKey {
    pub(crate) galois_element: usize,
    pub(crate) key: SwitchingKey,
}

impl GaloisKey {
    /// The Galois element `g`.
    pub fn galois_element(&self) -> usize {
        self.galois_element
    }

    /// The switching key from `s` to `s(X^(g^-1))`.
    pub fn key(&self) -> &SwitchingKey {
        &self.key
    }

    /// The highest level the key serves: `L` for a full key, `l` for one generated for
    /// levels `<= l` ([`RlweParameters::generate_galois_key_at_with`]). Every key made by
    /// generation or deserialization has at least one limb, so this is `Some`.
    pub fn max_level(&self) -> Option<usize> {
        self.key.max_level()
    }

    /// Size in memory, bytes.
    pub fn size_bytes(&self) -> usize {
        self.key.size_bytes()
    }
}

/// A set of Galois keys, looked up by Galois element. Each key is stored under its own
/// element ([`GaloisKeys::insert`]), so a lookup never returns a key for another element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GaloisKeys {
    pub(crate) keys: HashMap<usize, GaloisKey>,
}

impl GaloisKeys {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The key for the Galois element `g`, if present.
    pub fn get(&self, g: usize) -> Option<&GaloisKey> {
        let key = self.keys.get(&g);
        debug_assert!(key.is_none_or(|k| k.galois_element == g));
        key
    }

    /// Whether the set has a key for `g`.
    pub fn contains(&self, g: usize) -> bool {
        self.keys.contains_key(&g)
    }

    /// Adds `key` under its own Galois element; returns the key it replaces, if any.
    pub fn insert(&mut self, key: GaloisKey) -> Option<GaloisKey> {
        self.keys.insert(key.galois_element, key)
    }

    /// Removes and returns the key for `g`.
    pub fn remove(&mut self, g: usize) -> Option<GaloisKey> {
        self.keys.remove(&g)
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The Galois elements present, in increasing order.
    pub fn elements(&self) -> Vec<usize> {
        let mut e: Vec<usize> = self.keys.keys().copied().collect();
        e.sort_unstable();
        e
    }

    /// The keys, in increasing order of Galois element.
    pub fn iter(&self) -> impl Iterator<Item = &GaloisKey> + '_ {
        self.elements().into_iter().map(|g| &self.keys[&g])
    }

    /// Total size of the keys in memory, in bytes.
    pub fn size_bytes(&self) -> usize {
        self.keys.values().map(|k| k.key.size_bytes()).sum()
    }
}

impl FromIterator<GaloisKey> for GaloisKeys {
    fn from_iter<I: IntoIterator<Item = GaloisKey>>(iter: I) -> Self {
        let mut keys = GaloisKeys::new();
        iter.into_iter().for_each(|k| {
            keys.insert(k);
        });
        keys
    }
}

/// The evaluation keys an evaluator holds: an optional relinearization key and a set of
/// Galois keys (Lattigo's `EvaluationKeySet`). Evaluators keep it behind an `Arc`, so
/// cloning an evaluator does not copy keys (gigabytes at bootstrapping sizes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EvaluationKeySet {
    relin: Option<RelinearizationKey>,
    galois: GaloisKeys,
}

impl EvaluationKeySet {
    /// A key set from its parts.
    pub fn new(relin: Option<RelinearizationKey>, galois: GaloisKeys) -> Self {
        EvaluationKeySet { relin, galois }
    }

    /// The relinearization key, if present.
    pub fn relinearization_key(&self) -> Option<&RelinearizationKey> {
        self.relin.as_ref()
    }

    /// The Galois keys.
    pub fn galois_keys(&self) -> &GaloisKeys {
        &self.galois
    }

    /// The Galois key for element `g`, if present.
    pub fn galois_key(&self, g: usize) -> Option<&GaloisKey> {
        self.galois.get(g)
    }

    /// Total size of the keys in memory, in bytes.
    pub fn size_bytes(&self) -> usize {
        self.relin.as_ref().map_or(0, |k| k.0.size_bytes()) + self.galois.size_bytes()
    }
}

/// Key generation (secret, public, relinearization and Galois keys).
impl RlweParameters {
    /// A fresh secret key (from the parameters' secret distribution, OS-seeded CSPRNG).
    pub fn generate_secret_key(&self) -> SecretKey {
        self.generate_secret_key_with(&mut sample::os_rng())
    }

    /// A secret key from a caller-supplied CSPRNG (for reproducible tests).
    pub fn generate_secret_key_with<R: RngCore + CryptoRng>(&self, rng: &mut R) -> SecretKey {
        SecretKey::generate(self.ring(), self.secret_distribution(), rng)
            .expect("distribution validated with the parameters")
    }

    /// The public key of `sk`, noise and seed from `rng`.
    pub fn generate_public_key_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        rng: &mut R,
    ) -> PublicKey {
        PublicKey::generate(self.ring(), sk, rng)
    }

    /// The relinearization key of `sk` (a switching key from `s^2` to `s`), noise from
    /// `rng`.
    pub fn generate_relinearization_key_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        rng: &mut R,
    ) -> RelinearizationKey {
        self.generate_relinearization_key_at_with(sk, self.max_level(), rng)
            .expect("the top level is a level")
    }

    /// The relinearization key of `sk` for ciphertexts at levels `<= max_level` only (see
    /// the [module documentation](self): smaller with the hybrid engine, the full key
    /// with the others), noise from `rng`. Errors if `max_level > L`.
    pub fn generate_relinearization_key_at_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        max_level: usize,
        rng: &mut R,
    ) -> Result<RelinearizationKey> {
        self.check_level(max_level)?;
        let mut s2 = Zeroizing::new(sk.ntt().clone());
        s2.mul_assign(sk.ntt(), self.ring());
        Ok(RelinearizationKey(
            self.keyswitcher().generate_key_at_with_storage(
                &s2,
                sk,
                max_level + 1,
                self.key_storage(),
                rng,
            )?,
        ))
    }

    /// The pre-permuted Galois key for element `g` (odd, taken mod 2N): a switching key
    /// from `s` to `s(X^(g^-1))`.
    pub fn generate_galois_key_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        g: usize,
        rng: &mut R,
    ) -> GaloisKey {
        self.generate_galois_key_at_with(sk, g, self.max_level(), rng)
            .expect("the top level is a level")
    }

    /// [`RlweParameters::generate_galois_key_with`] for ciphertexts at levels
    /// `<= max_level` only (see the [module documentation](self): smaller with the hybrid
    /// engine, the full key with the others). Errors if `max_level > L`.
    pub fn generate_galois_key_at_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        g: usize,
        max_level: usize,
        rng: &mut R,
    ) -> Result<GaloisKey> {
        self.check_level(max_level)?;
        let ring = self.ring();
        let n = ring.n();
        let g = g % (2 * n);
        // Target secret s(X^(g^-1)); source secret s.
        let g_inv = galois_inverse(g, n);
        let mut permuted = Zeroizing::new(vec![0i64; n]);
        for (i, &c) in sk.coeffs().iter().enumerate() {
            let e = i * g_inv % (2 * n);
            if e < n {
                permuted[e] = c;
            } else {
                permuted[e - n] = -c;
            }
        }
        let target = SecretKey::from_coeffs(ring, std::mem::take(&mut *permuted));
        Ok(GaloisKey {
            galois_element: g,
            key: self.keyswitcher().generate_key_at_with_storage(
                sk.ntt(),
                &target,
                max_level + 1,
                self.key_storage(),
                rng,
            )?,
        })
    }

    /// Galois keys for each element of `elements` (duplicates generate one key), in
    /// increasing order of element, noise from `rng`.
    pub fn generate_galois_keys_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        elements: &[usize],
        rng: &mut R,
    ) -> GaloisKeys {
        self.generate_galois_keys_at_with(sk, elements, self.max_level(), rng)
            .expect("the top level is a level")
    }

    /// [`RlweParameters::generate_galois_keys_with`] for ciphertexts at levels
    /// `<= max_level` only ([`RlweParameters::generate_galois_key_at_with`] for each
    /// element). Errors if `max_level > L`.
    pub fn generate_galois_keys_at_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        elements: &[usize],
        max_level: usize,
        rng: &mut R,
    ) -> Result<GaloisKeys> {
        self.generate_galois_keys_at_with_progress(sk, elements, max_level, rng, &NoProgress)
    }

    /// [`RlweParameters::generate_galois_keys_at_with`], reporting one unit of `progress`
    /// per key (per distinct element); the same keys for the same `rng`.
    pub fn generate_galois_keys_at_with_progress<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        elements: &[usize],
        max_level: usize,
        rng: &mut R,
        progress: &dyn Progress,
    ) -> Result<GaloisKeys> {
        let two_n = 2 * self.n();
        let mut elements: Vec<usize> = elements.iter().map(|&g| g % two_n).collect();
        elements.sort_unstable();
        elements.dedup();
        progress.start(elements.len() as u64);
        let keys = elements
            .into_iter()
            .map(|g| {
                let key = self.generate_galois_key_at_with(sk, g, max_level, rng);
                progress.inc(1);
                key
            })
            .collect::<Result<GaloisKeys>>()?;
        progress.finish();
        Ok(keys)
    }
}
