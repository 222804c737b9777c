//! Key generation entry points, encoding shortcuts, encryption and decryption.

use super::ciphertext::Ciphertext;
use super::context::IntegerContext;
use super::noise::{log2_std, rounding_variance};
use super::plaintext::Plaintext;
use crate::math::sample;
use crate::progress::Progress;
use crate::ring::automorphism::{galois_element_for_conjugation, galois_element_for_rotation};
use crate::ring::{Form, Poly};
use crate::rlwe::evaluation_keys::{GaloisKeys, RelinearizationKey};
use crate::rlwe::keys::{encrypt_zero_pk, encrypt_zero_sk, NOISE_SIGMA};
use crate::rlwe::{PublicKey, SecretKey};
use crate::Result;
use rand_chacha::rand_core::{CryptoRng, RngCore};

impl IntegerContext {
    /// A fresh secret key (OS-seeded CSPRNG).
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

    /// The Galois elements of row rotations by `steps` (`5^k`) and, if `swap_rows`, of
    /// the row swap (`2N - 1`).
    pub fn galois_elements(&self, steps: &[i64], swap_rows: bool) -> Vec<usize> {
        let n = self.n();
        let mut g: Vec<usize> = steps
            .iter()
            .map(|&k| galois_element_for_rotation(k, n))
            .collect();
        if swap_rows {
            g.push(galois_element_for_conjugation(n));
        }
        g
    }

    /// Galois keys for rotating the rows by each of `steps` and, if `swap_rows`, for
    /// swapping the two rows.
    pub fn generate_galois_keys(
        &self,
        sk: &SecretKey,
        steps: &[i64],
        swap_rows: bool,
    ) -> GaloisKeys {
        self.generate_galois_keys_with(sk, steps, swap_rows, &mut sample::os_rng())
    }

    /// [`IntegerContext::generate_galois_keys`] with a caller-supplied CSPRNG.
    pub fn generate_galois_keys_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        steps: &[i64],
        swap_rows: bool,
        rng: &mut R,
    ) -> GaloisKeys {
        self.rlwe()
            .generate_galois_keys_with(sk, &self.galois_elements(steps, swap_rows), rng)
    }

    /// [`IntegerContext::generate_galois_keys_with`], reporting one unit of `progress` per
    /// key ([`crate::progress`]); the same keys for the same `rng`.
    pub fn generate_galois_keys_with_progress<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        steps: &[i64],
        swap_rows: bool,
        rng: &mut R,
        progress: &dyn Progress,
    ) -> GaloisKeys {
        self.rlwe()
            .generate_galois_keys_at_with_progress(
                sk,
                &self.galois_elements(steps, swap_rows),
                self.max_level(),
                rng,
                progress,
            )
            .expect("the top level is a level")
    }

    /// Batch encoding of up to `N` slot values in `[0, t)` (row 0 then row 1; see
    /// [`PlaintextModulus::encode_slots`](super::PlaintextModulus::encode_slots)).
    pub fn encode(&self, values: &[u64]) -> Result<Plaintext> {
        self.plaintext_modulus().encode_slots(values)
    }

    /// Batch encoding of signed values (reduced mod `t`).
    pub fn encode_signed(&self, values: &[i64]) -> Result<Plaintext> {
        self.plaintext_modulus().encode_slots_signed(values)
    }

    /// The `N` slot values of `pt`, in `[0, t)`.
    pub fn decode(&self, pt: &Plaintext) -> Result<Vec<u64>> {
        self.plaintext_modulus().decode_slots(pt)
    }

    /// The `N` slot values of `pt`, centered in `(-t/2, t/2]`.
    pub fn decode_signed(&self, pt: &Plaintext) -> Result<Vec<i64>> {
        self.plaintext_modulus().decode_slots_signed(pt)
    }

    /// Coefficient encoding (any `t`): `m = Σ values[i] X^i`.
    pub fn encode_coefficients(&self, values: &[u64]) -> Result<Plaintext> {
        self.plaintext_modulus().encode_coefficients(values)
    }

    /// The `N` coefficients of `pt`, in `[0, t)`.
    pub fn decode_coefficients(&self, pt: &Plaintext) -> Result<Vec<u64>> {
        self.plaintext_modulus().decode_coefficients(pt)
    }

    /// `m` lifted into `Q_ℓ` (`q_limbs = ℓ + 1`) in `form`, times `[t^-1 w]_{q_i}` when
    /// `scaled` is `Some(w)` (additions: the message at factor `w`), or as the centered `m`
    /// itself when `None` (products).
    pub(crate) fn lift(
        &self,
        pt: &Plaintext,
        q_limbs: usize,
        scaled: Option<u64>,
        form: Form,
    ) -> Poly {
        let ring = self.ring();
        let mut p = ring.from_signed(&pt.centered(), q_limbs, 0);
        if let Some(w) = scaled {
            let w = self.plaintext_modulus().modulus().center(w);
            let c: Vec<u64> = ring.q().moduli()[..q_limbs]
                .iter()
                .zip(self.t_inv_mod_q())
                .map(|(q, &ti)| q.mul(ti, q.reduce_i64(w)))
                .collect();
            p.mul_scalar_assign(&c, ring);
        }
        if form == Form::Ntt {
            p.ntt(ring);
        }
        p
    }

    pub(crate) fn check_plaintext(&self, pt: &Plaintext) -> Result<()> {
        self.plaintext_modulus().check_plaintext(pt)
    }

    fn check_secret(&self, sk: &SecretKey) -> Result<()> {
        self.check_ring_id(sk.ring_id(), "secret key")
    }

    pub(crate) fn check_ciphertext(&self, ct: &Ciphertext) -> Result<()> {
        self.check_id(ct.id, "ciphertext")
    }

    /// Public-key encryption of `pt` at the top level.
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
        let ql = self.max_level() + 1;
        let [mut c0, c1] = encrypt_zero_pk(self.ring(), pk, ql, rng);
        c0.add_assign(&self.lift(pt, ql, Some(1), Form::Ntt), self.ring());
        Ok(Ciphertext {
            id: self.fingerprint(),
            parts: vec![c0, c1],
            factor: 1,
            seed: None,
            noise: log2_std(rounding_variance(self)),
        })
    }

    /// Secret-key encryption of `pt` at the top level: `c_1` is expanded from a fresh
    /// seed, so the serialized ciphertext is about half the size.
    pub fn encrypt_symmetric(&self, pt: &Plaintext, sk: &SecretKey) -> Result<Ciphertext> {
        self.encrypt_symmetric_with(pt, sk, &mut sample::os_rng())
    }

    /// Secret-key encryption with a caller-supplied CSPRNG (the seed of `c_1` too).
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
        let ql = self.max_level() + 1;
        let [mut c0, c1] = encrypt_zero_sk(self.ring(), sk, ql, 0, &seed, 0, rng);
        c0.add_assign(&self.lift(pt, ql, Some(1), Form::Ntt), self.ring());
        Ok(Ciphertext {
            id: self.fingerprint(),
            parts: vec![c0, c1],
            factor: 1,
            seed: Some(seed),
            noise: (self.t() as f64 * NOISE_SIGMA).log2(),
        })
    }

    /// `y = [t (c_0 + c_1 s + ...)]_{Q_ℓ}` in coefficient form (`α m + t e` while the
    /// noise budget lasts).
    pub(crate) fn decryption_values(&self, ct: &Ciphertext, sk: &SecretKey) -> Result<Poly> {
        self.check_ciphertext(ct)?;
        self.check_secret(sk)?;
        let ring = self.ring();
        let ql = ct.level() + 1;
        let s = sk.ntt_at(ql, 0);
        let coeff = ct.form() == Form::Coeff;
        let ntt = |p: &Poly| {
            let mut c = p.clone();
            if coeff {
                c.ntt(ring);
            }
            c
        };
        // Horner: ((c_d s + c_{d-1}) s + ...) + c_0, with c_0 added in coefficient form
        // when the parts are (BFV's products).
        let d = ct.parts.len() - 1;
        let mut acc = ntt(&ct.parts[d]);
        for part in ct.parts[1..d].iter().rev() {
            acc.mul_assign(&s, ring);
            if coeff {
                acc.add_assign(&ntt(part), ring);
            } else {
                acc.add_assign(part, ring);
            }
        }
        acc.mul_assign(&s, ring);
        if coeff {
            acc.intt(ring);
            acc.add_assign(&ct.parts[0], ring);
        } else {
            acc.add_assign(&ct.parts[0], ring);
            acc.intt(ring);
        }
        acc.mul_scalar_assign(&self.t_mod_q()[..ql], ring);
        debug_assert_eq!(acc.form(), Form::Coeff);
        Ok(acc)
    }

    /// Decryption: `m = α^-1 [y]_t` with `y` converted exactly from `Q_ℓ` to `t`.
    pub fn decrypt(&self, ct: &Ciphertext, sk: &SecretKey) -> Result<Plaintext> {
        let y = self.decryption_values(ct, sk)?;
        let n = self.n();
        let conv = self.to_t(ct.level());
        let mut out = vec![0u64; n];
        let mut scratch = vec![0u64; (ct.level() + 2) * n];
        conv.convert(y.data(), &mut out, n, &mut scratch);
        self.ring().recycle(y);
        let tm = self.plaintext_modulus().modulus();
        let inv = tm.inv(ct.factor).expect("factor is a unit");
        for c in &mut out {
            *c = tm.mul(*c, inv);
        }
        Ok(Plaintext {
            coeffs: out,
            t: self.t(),
        })
    }

    /// Decrypts and decodes the slots (batching `t` only).
    pub fn decrypt_decode(&self, ct: &Ciphertext, sk: &SecretKey) -> Result<Vec<u64>> {
        self.decode(&self.decrypt(ct, sk)?)
    }
}
