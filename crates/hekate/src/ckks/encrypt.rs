//! CKKS encoding, encryption and decryption, and the context's key-generation entry
//! points (the keys and their generation are the RLWE core's:
//! [`crate::rlwe::evaluation_keys`]; CKKS only maps slot rotations to Galois elements).

use super::ciphertext::{Ciphertext, Plaintext};
use super::params::CkksContext;
use super::scale::Scale;
use crate::math::sample;
use crate::progress::Progress;
use crate::ring::automorphism::{galois_element_for_conjugation, galois_element_for_rotation};
use crate::ring::Poly;
use crate::rlwe::evaluation_keys::{GaloisKey, GaloisKeys, RelinearizationKey};
use crate::rlwe::keys::{encrypt_zero_pk, encrypt_zero_sk};
use crate::rlwe::{PublicKey, SecretKey};
use crate::Result;
use num_complex::Complex64;
use rand_chacha::rand_core::{CryptoRng, RngCore};

impl CkksContext {
    /// A fresh secret key (from the context's secret distribution, OS-seeded CSPRNG).
    pub fn generate_secret_key(&self) -> SecretKey {
        self.rlwe().generate_secret_key()
    }

    /// A secret key from a caller-supplied CSPRNG (for reproducible tests).
    pub fn generate_secret_key_with<R: RngCore + CryptoRng>(&self, rng: &mut R) -> SecretKey {
        self.rlwe().generate_secret_key_with(rng)
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
        self.rlwe().generate_public_key_with(sk, rng)
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
        self.rlwe().generate_relinearization_key_with(sk, rng)
    }

    /// The relinearization key of `sk` for ciphertexts at levels `<= max_level` only
    /// (smaller with the hybrid engine; see [`crate::rlwe::evaluation_keys`]). Errors if
    /// `max_level` exceeds the top level.
    pub fn generate_relinearization_key_at_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        max_level: usize,
        rng: &mut R,
    ) -> Result<RelinearizationKey> {
        self.rlwe()
            .generate_relinearization_key_at_with(sk, max_level, rng)
    }

    /// The Galois key for element `g` (odd, taken mod 2N) for ciphertexts at levels
    /// `<= max_level` only. Errors if `max_level` exceeds the top level.
    pub fn generate_galois_key_at_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        g: usize,
        max_level: usize,
        rng: &mut R,
    ) -> Result<GaloisKey> {
        self.rlwe()
            .generate_galois_key_at_with(sk, g, max_level, rng)
    }

    /// [`CkksContext::generate_galois_keys_with`] for ciphertexts at levels
    /// `<= max_level` only (e.g. the rotations of a transform evaluated low in the chain).
    /// Errors if `max_level` exceeds the top level.
    pub fn generate_galois_keys_at_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        steps: &[i64],
        conjugation: bool,
        max_level: usize,
        rng: &mut R,
    ) -> Result<GaloisKeys> {
        self.rlwe().generate_galois_keys_at_with(
            sk,
            &self.galois_elements(steps, conjugation),
            max_level,
            rng,
        )
    }

    /// The Galois elements of rotations by `steps` and of conjugation if `conjugation`.
    fn galois_elements(&self, steps: &[i64], conjugation: bool) -> Vec<usize> {
        let n = self.n();
        let mut elements: Vec<usize> = steps
            .iter()
            .map(|&r| galois_element_for_rotation(r, n))
            .collect();
        if conjugation {
            elements.push(galois_element_for_conjugation(n));
        }
        elements
    }

    /// The Galois key for element `g` (odd, taken mod 2N).
    pub fn generate_galois_key_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        g: usize,
        rng: &mut R,
    ) -> GaloisKey {
        self.rlwe().generate_galois_key_with(sk, g, rng)
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
        self.rlwe()
            .generate_galois_keys_with(sk, &self.galois_elements(steps, conjugation), rng)
    }

    /// [`CkksContext::generate_galois_keys_with`], reporting one unit of `progress` per
    /// key ([`crate::progress`]); the same keys for the same `rng`.
    pub fn generate_galois_keys_with_progress<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        steps: &[i64],
        conjugation: bool,
        rng: &mut R,
        progress: &dyn Progress,
    ) -> GaloisKeys {
        self.rlwe()
            .generate_galois_keys_at_with_progress(
                sk,
                &self.galois_elements(steps, conjugation),
                self.max_level(),
                rng,
                progress,
            )
            .expect("the top level is a level")
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

    /// [`CkksContext::encode_at`] over `Q_l ∪ P` (the chain's first `l + 1` primes and
    /// every special prime): a diagonal for
    /// [`Evaluator::bsgs_extended`](crate::ckks::Evaluator::bsgs_extended), seed 003 Alg. 6's
    /// products before the ModDown. `None` where key switches at `level` do not run the
    /// hybrid engine (whose accumulators those products need). The special limbs hold the
    /// same encoded integer polynomial as the chain limbs (its exact extension). Only
    /// `bsgs_extended` reads such a plaintext: the other plaintext operations refuse it.
    pub fn encode_extended_at(
        &self,
        values: &[Complex64],
        slots: usize,
        level: usize,
        scale: &Scale,
    ) -> Result<Option<Plaintext>> {
        self.check_level(level)?;
        if self.ring().p_len() == 0 || !self.rlwe().keyswitcher().hybrid_at(level + 1) {
            return Ok(None);
        }
        let k = self.ring().p_len();
        self.encode_over(values, slots, level, k, scale).map(Some)
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
        self.encode_over(values, slots, level, 0, scale)
    }

    /// The plaintext of `values` at `level` and `scale` over the chain's first `level + 1`
    /// primes and the first `p_limbs` special primes.
    fn encode_over(
        &self,
        values: &[Complex64],
        slots: usize,
        level: usize,
        p_limbs: usize,
        scale: &Scale,
    ) -> Result<Plaintext> {
        let poly = self
            .encoder()
            .encode_over(values, slots, level + 1, p_limbs, scale)?;
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
        self.rlwe().check_level(level)
    }

    /// Refuses an object made under other parameters (by its ring fingerprint).
    pub(crate) fn check_ring_id(&self, ring_id: u64, what: &str) -> Result<()> {
        self.rlwe().check_ring_id(ring_id, what)
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

    /// Checks that `ct` was made under this context (by its ring's fingerprint):
    /// [`crate::Error::ParameterMismatch`] otherwise.
    pub fn check_ciphertext(&self, ct: &Ciphertext) -> Result<()> {
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
