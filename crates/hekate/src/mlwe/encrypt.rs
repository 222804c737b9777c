//! Encoding, encryption and decryption of MLWE-CKKS.
//!
//! Messages are encoded exactly as in CKKS at degree `n` (`n/2` slots; the same
//! [`Encoder`](crate::ckks::Encoder) and [`Plaintext`]). A rank-`r` encryption hides the
//! message under `r` secret components instead of one:
//!
//! * secret key: `(b, a) = (-<a, s> + e + m, a)`, `a ∈ R^r` uniform from a seed;
//! * public key: with `pk = (-A s + e, A)` (`r` rows) and a ternary `u ∈ R^r`,
//!   `(b, a) = u^T pk + (e_0 + m, e_1 .. e_r)`, computed over `Q_l ∪ P'` and divided by
//!   `P'` (`P'` the encryption prefix of `P`, as RLWE public-key encryption:
//!   [`crate::rlwe::PublicKey`]), so that the fresh noise is the division's rounding.

use super::ciphertext::Ciphertext;
use super::keys::{PublicKey, SecretKey};
use super::params::MlweContext;
use crate::ckks::{Plaintext, Scale};
use crate::math::sample::{self, Seed};
use crate::ring::Poly;
use crate::rlwe::keys::{encrypt_zero_module_pk, encrypt_zero_module_sk};
use crate::{Error, Result};
use num_complex::Complex64;
use rand_chacha::rand_core::{CryptoRng, RngCore};

impl MlweContext {
    /// Encodes up to `n/2` complex values at the default scale and the top level.
    pub fn encode(&self, values: &[Complex64]) -> Result<Plaintext> {
        self.encode_at(values, self.max_level(), self.default_scale())
    }

    /// Encodes real values at the default scale and the top level.
    pub fn encode_real(&self, values: &[f64]) -> Result<Plaintext> {
        let v: Vec<Complex64> = values.iter().map(|&x| Complex64::new(x, 0.0)).collect();
        self.encode(&v)
    }

    /// Encodes `values` at `level` and `scale` (`n/2` slots).
    pub fn encode_at(
        &self,
        values: &[Complex64],
        level: usize,
        scale: &Scale,
    ) -> Result<Plaintext> {
        if level > self.max_level() {
            return Err(Error::LevelMismatch(format!(
                "level {level} is above the top level L = {}",
                self.max_level()
            )));
        }
        let slots = self.max_slots();
        let poly = self.encoder.encode(values, slots, level + 1, scale)?;
        Ok(Plaintext {
            ring_id: self.ring().fingerprint(),
            poly,
            scale: scale.clone(),
            slots,
        })
    }

    /// Decodes a plaintext of this context.
    pub fn decode(&self, pt: &Plaintext) -> Result<Vec<Complex64>> {
        self.check_plaintext(pt)?;
        self.encoder.decode(&pt.poly, pt.slots, &pt.scale)
    }

    pub(crate) fn check_plaintext(&self, pt: &Plaintext) -> Result<()> {
        if pt.ring_id != self.ring().fingerprint() {
            return Err(Error::ParameterMismatch(format!(
                "the plaintext belongs to another context (ring {:#018x}, this context's is \
                 {:#018x}): encode it with this MLWE context",
                pt.ring_id,
                self.ring().fingerprint()
            )));
        }
        Ok(())
    }

    /// Secret-key encryption of `pt` at rank `r` (OS randomness).
    pub fn encrypt_symmetric(&self, pt: &Plaintext, sk: &SecretKey) -> Result<Ciphertext> {
        self.encrypt_symmetric_with(pt, sk, &mut sample::os_rng())
    }

    /// Secret-key encryption with a caller-supplied CSPRNG.
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
        let ql = pt.poly.q_limbs();
        let mut parts =
            encrypt_zero_module_sk(self.ring(), &sk.prefix(self.rank), ql, 0, &seed, 0, rng);
        parts[0].add_assign(&pt.poly, self.ring());
        Ok(self.wrap(parts, pt, Some(seed)))
    }

    /// Public-key encryption of `pt` at rank `r` (OS randomness).
    pub fn encrypt(&self, pt: &Plaintext, pk: &PublicKey) -> Result<Ciphertext> {
        self.encrypt_with(pt, pk, &mut sample::os_rng())
    }

    /// Public-key encryption with a caller-supplied CSPRNG (see the module documentation).
    pub fn encrypt_with<R: RngCore + CryptoRng>(
        &self,
        pt: &Plaintext,
        pk: &PublicKey,
        rng: &mut R,
    ) -> Result<Ciphertext> {
        self.check_plaintext(pt)?;
        let ring = self.ring();
        if pk.ring_id != ring.fingerprint()
            || pk.rows.len() != self.rank
            || pk.rows.iter().any(|r| r.len() != 1 + self.rank)
        {
            return Err(Error::ParameterMismatch(
                "the public key belongs to another context (ring or rank differ)".into(),
            ));
        }
        let ql = pt.poly.q_limbs();
        let rows: Vec<Vec<&Poly>> = pk.rows.iter().map(|r| r.iter().collect()).collect();
        let mut parts = encrypt_zero_module_pk(ring, &rows, ql, rng);
        parts[0].add_assign(&pt.poly, ring);
        Ok(self.wrap(parts, pt, None))
    }

    fn wrap(&self, parts: Vec<Poly>, pt: &Plaintext, seed: Option<Seed>) -> Ciphertext {
        Ciphertext {
            ring_id: self.ring().fingerprint(),
            rank: self.rank,
            parts,
            scale: pt.scale.clone(),
            slots: pt.slots,
            seed,
        }
    }

    /// Decryption: `b + <a, s> (+ sum_{j<=k} c_{jk} s_j s_k)` as a plaintext.
    pub fn decrypt(&self, ct: &Ciphertext, sk: &SecretKey) -> Result<Plaintext> {
        self.check_ciphertext(ct)?;
        self.check_secret(sk)?;
        let ring = self.ring();
        let (ql, r) = (ct.parts[0].q_limbs(), ct.rank);
        let s: Vec<_> = sk.parts[..r].iter().map(|s| s.ntt_at(ql, 0)).collect();
        let mut acc = ct.parts[0].clone();
        for (a, s) in ct.parts[1..=r].iter().zip(&s) {
            acc.mul_add_assign(a, s, ring);
        }
        if ct.is_quadratic() {
            let mut quad = ct.parts[1 + r..].iter();
            for j in 0..r {
                for k in j..r {
                    let mut t = quad.next().expect("checked part count").clone();
                    t.mul_assign(&s[j], ring);
                    acc.mul_add_assign(&t, &s[k], ring);
                    t.discard_secret();
                }
            }
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
}
