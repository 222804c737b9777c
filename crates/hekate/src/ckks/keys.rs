//! CKKS key generation, encryption and decryption.

use super::ciphertext::{Ciphertext, Plaintext};
use super::params::CkksContext;
use super::scale::Scale;
use crate::math::sample;
use crate::ring::automorphism::{
    galois_element_for_conjugation, galois_element_for_rotation, galois_inverse,
};
use crate::ring::Poly;
use crate::rlwe::keys::{encrypt_zero_pk, encrypt_zero_sk};
use crate::rlwe::keyswitch::SwitchingKey;
use crate::rlwe::{PublicKey, SecretKey};
use crate::{Error, Result};
use num_complex::Complex64;
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::collections::HashMap;
use zeroize::Zeroizing;

/// The relinearization key: a switching key from `s^2` to `s`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelinearizationKey(pub SwitchingKey);

/// A rotation (or conjugation) key for the Galois element `g`, pre-permuted for hoisting
/// (seed 003 Alg. 4): a switching key from `s` to `s(X^(g^-1))`, so that the automorphism is
/// applied once to the key-switched pair instead of to every digit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GaloisKey {
    /// The Galois element `g` (`X -> X^g`).
    pub galois_element: usize,
    /// The switching key.
    pub key: SwitchingKey,
}

/// A set of Galois keys, by Galois element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GaloisKeys {
    /// The keys, by Galois element.
    pub keys: HashMap<usize, GaloisKey>,
}

impl GaloisKeys {
    /// The key for a Galois element, if present.
    pub fn get(&self, g: usize) -> Option<&GaloisKey> {
        self.keys.get(&g)
    }
    /// Total size of the keys in memory, in bytes.
    pub fn size_bytes(&self) -> usize {
        self.keys.values().map(|k| k.key.size_bytes()).sum()
    }
}

impl CkksContext {
    /// A fresh secret key (from the context's secret distribution, OS-seeded CSPRNG).
    pub fn generate_secret_key(&self) -> SecretKey {
        self.generate_secret_key_with(&mut sample::os_rng())
    }

    /// A secret key from a caller-supplied CSPRNG (for reproducible tests).
    pub fn generate_secret_key_with<R: RngCore + CryptoRng>(&self, rng: &mut R) -> SecretKey {
        SecretKey::generate(self.ring(), self.secret_distribution(), rng)
            .expect("distribution validated with the parameters")
    }

    /// The public key of `sk`.
    pub fn generate_public_key(&self, sk: &SecretKey) -> PublicKey {
        self.generate_public_key_with(sk, &mut sample::os_rng())
    }

    /// The public key of `sk`, noise and seed from `rng`.
    pub fn generate_public_key_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        rng: &mut R,
    ) -> PublicKey {
        PublicKey::generate(self.ring(), sk, rng)
    }

    /// The relinearization key of `sk`.
    pub fn generate_relinearization_key(&self, sk: &SecretKey) -> RelinearizationKey {
        self.generate_relinearization_key_with(sk, &mut sample::os_rng())
    }

    /// The relinearization key of `sk`, noise from `rng`.
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

    /// The Galois key for element `g` (odd, taken mod 2N).
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

    /// Galois keys for rotations by each step in `steps` (left rotations; negative steps
    /// rotate right), and for conjugation if `conjugation` is set.
    pub fn generate_galois_keys(
        &self,
        sk: &SecretKey,
        steps: &[i64],
        conjugation: bool,
    ) -> GaloisKeys {
        self.generate_galois_keys_with(sk, steps, conjugation, &mut sample::os_rng())
    }

    /// [`CkksContext::generate_galois_keys`] with a caller-supplied CSPRNG.
    pub fn generate_galois_keys_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        steps: &[i64],
        conjugation: bool,
        rng: &mut R,
    ) -> GaloisKeys {
        let n = self.n();
        let mut elements: Vec<usize> = steps
            .iter()
            .map(|&r| galois_element_for_rotation(r, n))
            .collect();
        if conjugation {
            elements.push(galois_element_for_conjugation(n));
        }
        elements.sort_unstable();
        elements.dedup();
        GaloisKeys {
            keys: elements
                .into_iter()
                .map(|g| (g, self.generate_galois_key_with(sk, g, rng)))
                .collect(),
        }
    }

    /// Encodes complex values into `N/2` slots at the top level and default scale.
    pub fn encode(&self, values: &[Complex64]) -> Result<Plaintext> {
        self.encode_at(
            values,
            self.max_slots(),
            self.max_level(),
            self.default_scale(),
        )
    }

    /// Encodes real values into `N/2` slots at the top level and default scale.
    pub fn encode_real(&self, values: &[f64]) -> Result<Plaintext> {
        let v: Vec<Complex64> = values.iter().map(|&x| Complex64::new(x, 0.0)).collect();
        self.encode(&v)
    }

    /// Encodes into `slots` slots (a power of two `<= N/2`: sparse packing when smaller) at
    /// `level` and `scale`.
    pub fn encode_at(
        &self,
        values: &[Complex64],
        slots: usize,
        level: usize,
        scale: &Scale,
    ) -> Result<Plaintext> {
        self.check_level(level)?;
        let poly = self.encoder().encode(values, slots, level + 1, scale)?;
        Ok(Plaintext {
            ring_id: self.ring().fingerprint(),
            poly,
            scale: scale.clone(),
            slots,
        })
    }

    /// Decodes a plaintext into its slots.
    pub fn decode(&self, pt: &Plaintext) -> Result<Vec<Complex64>> {
        self.check_plaintext(pt)?;
        self.encoder().decode(&pt.poly, pt.slots, &pt.scale)
    }

    pub(crate) fn check_level(&self, level: usize) -> Result<()> {
        if level > self.max_level() {
            return Err(Error::LevelMismatch(format!(
                "level {level} exceeds the top level L = {}",
                self.max_level()
            )));
        }
        Ok(())
    }

    /// Refuses an object made under other parameters (by its ring fingerprint).
    pub(crate) fn check_ring_id(&self, ring_id: u64, what: &str) -> Result<()> {
        if ring_id != self.ring().fingerprint() {
            return Err(Error::ParameterMismatch(format!(
                "{what} does not belong to these parameters"
            )));
        }
        Ok(())
    }

    pub(crate) fn check_plaintext(&self, pt: &Plaintext) -> Result<()> {
        self.check_ring_id(pt.ring_id, "plaintext")
    }

    /// Public-key encryption of `pt` (at its level).
    pub fn encrypt(&self, pt: &Plaintext, pk: &PublicKey) -> Result<Ciphertext> {
        self.encrypt_with(pt, pk, &mut sample::os_rng())
    }

    /// Public-key encryption with a caller-supplied CSPRNG.
    pub fn encrypt_with<R: RngCore + CryptoRng>(
        &self,
        pt: &Plaintext,
        pk: &PublicKey,
        rng: &mut R,
    ) -> Result<Ciphertext> {
        self.check_plaintext(pt)?;
        self.check_ring_id(pk.ring_id, "public key")?;
        let [mut c0, c1] = encrypt_zero_pk(self.ring(), pk, pt.poly.q_limbs(), rng);
        c0.add_assign(&pt.poly, self.ring());
        Ok(Ciphertext {
            ring_id: self.ring().fingerprint(),
            parts: vec![c0, c1],
            scale: pt.scale.clone(),
            slots: pt.slots,
            seed: None,
        })
    }

    /// Secret-key encryption of `pt`: `c_1` is expanded from a fresh seed, so the
    /// serialized ciphertext is about half the size.
    pub fn encrypt_symmetric(&self, pt: &Plaintext, sk: &SecretKey) -> Result<Ciphertext> {
        self.encrypt_symmetric_with(pt, sk, &mut sample::os_rng())
    }

    /// Secret-key encryption with a caller-supplied CSPRNG (the seed of `c_1` is drawn
    /// from it too).
    pub fn encrypt_symmetric_with<R: RngCore + CryptoRng>(
        &self,
        pt: &Plaintext,
        sk: &SecretKey,
        rng: &mut R,
    ) -> Result<Ciphertext> {
        self.check_plaintext(pt)?;
        self.check_secret(sk)?;
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let [mut c0, c1] = encrypt_zero_sk(self.ring(), sk, pt.poly.q_limbs(), 0, &seed, 0, rng);
        c0.add_assign(&pt.poly, self.ring());
        Ok(Ciphertext {
            ring_id: self.ring().fingerprint(),
            parts: vec![c0, c1],
            scale: pt.scale.clone(),
            slots: pt.slots,
            seed: Some(seed),
        })
    }

    fn check_secret(&self, sk: &SecretKey) -> Result<()> {
        self.check_ring_id(sk.ring_id(), "secret key")
    }

    pub(crate) fn check_ciphertext(&self, ct: &Ciphertext) -> Result<()> {
        self.check_ring_id(ct.ring_id, "ciphertext")
    }

    /// Decryption: `c_0 + c_1 s (+ c_2 s^2)` as a plaintext.
    pub fn decrypt(&self, ct: &Ciphertext, sk: &SecretKey) -> Result<Plaintext> {
        self.check_ciphertext(ct)?;
        self.check_secret(sk)?;
        let ring = self.ring();
        let ql = ct.parts[0].q_limbs();
        let s = sk.ntt_at(ql, 0);
        // Horner: ((c_d s + c_{d-1}) s + ...) + c_0.
        let mut acc: Poly = ct.parts[ct.parts.len() - 1].clone();
        for part in ct.parts[..ct.parts.len() - 1].iter().rev() {
            acc.mul_assign(&s, ring);
            acc.add_assign(part, ring);
        }
        Ok(Plaintext {
            ring_id: ct.ring_id,
            poly: acc,
            scale: ct.scale.clone(),
            slots: ct.slots,
        })
    }

    /// Decrypts and decodes.
    pub fn decrypt_decode(&self, ct: &Ciphertext, sk: &SecretKey) -> Result<Vec<Complex64>> {
        self.decode(&self.decrypt(ct, sk)?)
    }

    /// The scale a ciphertext at `level` gets from multiplying by a constant encoded with
    /// [`CkksContext::constant_scale`]: `q_level`, so that rescaling restores the scale
    /// exactly.
    pub fn constant_scale(&self, level: usize) -> Scale {
        Scale::from_integer(self.ring().q().moduli()[level].value())
    }
}
