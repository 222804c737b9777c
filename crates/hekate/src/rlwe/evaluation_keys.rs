//! Evaluation keys and their generation, for every RLWE scheme: the relinearization key,
//! pre-permuted Galois (rotation / conjugation) keys looked up by Galois element, and the
//! set of them an evaluator holds.
//!
//! Key generation is on [`RlweParameters`]; schemes forward to it (e.g.
//! [`CkksContext::generate_galois_keys`](crate::ckks::CkksContext::generate_galois_keys)
//! turns slot rotations into Galois elements and calls
//! [`RlweParameters::generate_galois_keys_with`]).

use super::keys::{PublicKey, SecretKey};
use super::keyswitch::SwitchingKey;
use super::params::RlweParameters;
use crate::math::sample;
use crate::ring::automorphism::galois_inverse;
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::collections::HashMap;
use zeroize::Zeroizing;

/// The relinearization key: a switching key from `s^2` to `s`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelinearizationKey(pub SwitchingKey);

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
        let mut s2 = Zeroizing::new(sk.ntt().clone());
        s2.mul_assign(sk.ntt(), self.ring());
        RelinearizationKey(self.keyswitcher().generate_key_with_storage(
            &s2,
            sk,
            self.key_storage(),
            rng,
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
        GaloisKey {
            galois_element: g,
            key: self.keyswitcher().generate_key_with_storage(
                sk.ntt(),
                &target,
                self.key_storage(),
                rng,
            ),
        }
    }

    /// Galois keys for each element of `elements` (duplicates generate one key), in
    /// increasing order of element, noise from `rng`.
    pub fn generate_galois_keys_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        elements: &[usize],
        rng: &mut R,
    ) -> GaloisKeys {
        let two_n = 2 * self.n();
        let mut elements: Vec<usize> = elements.iter().map(|&g| g % two_n).collect();
        elements.sort_unstable();
        elements.dedup();
        elements
            .into_iter()
            .map(|g| self.generate_galois_key_with(sk, g, rng))
            .collect()
    }
}
