//! MLWE keys: the vector secret, the public key matrix and the relinearization keys
//! (ModHE's and DPad-HE's).

use super::params::MlweContext;
use crate::math::sample::{self, Seed};
use crate::ring::Poly;
use crate::rlwe::keys::encrypt_zero_module_sk;
use crate::rlwe::{ModuleKey, SecretKey as RingSecret};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use zeroize::Zeroizing;

/// A vector secret `s = (s_1 .. s_r)` over `R_n` (each component drawn from the context's
/// distribution), with DPad-HE's extra components `s' = (s_{r+1} .. s_{r̂})` when the
/// context has DPad-HE. Each component is kept over `Q ∪ P` and, with DPad-HE, over
/// `Q ∪ P̂` too.
///
/// Zeroized on drop (its components are); `Debug` prints no key material.
pub struct SecretKey {
    pub(crate) ring_id: u64,
    /// `r̂` (or `r`) components over `Q ∪ P`.
    pub(crate) parts: Vec<RingSecret>,
    /// The same components over `Q ∪ P̂` (empty without DPad-HE).
    pub(crate) parts_hat: Vec<RingSecret>,
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("mlwe::SecretKey(<redacted>)")
    }
}

impl SecretKey {
    /// The rank of the secret including DPad-HE's extra components (`r̂`, or `r`).
    pub fn components(&self) -> usize {
        self.parts.len()
    }

    /// The first `rank` components over `Q ∪ P`.
    pub(crate) fn prefix(&self, rank: usize) -> Vec<&RingSecret> {
        self.parts[..rank].iter().collect()
    }
}

/// A public key of rank `r`: `r` rank-`r` encryptions of zero `(b_k, A_k)` over `Q ∪ P`
/// (the rows of `(-A s + e, A)`), NTT form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKey {
    /// The [fingerprint](crate::ring::RingContext::fingerprint) of the ring.
    pub ring_id: u64,
    /// `rows[k] = (b_k, a_{k,1} .. a_{k,r})`.
    pub rows: Vec<Vec<Poly>>,
    /// The seed the uniform `A` is expanded from.
    pub seed: Seed,
}

/// How a relinearization key relinearizes (seed 004 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelinMethod {
    /// ModHE: one `KeySwitch_d(s⊗s -> s)`, `C(r+1, 2)` inputs of `d` digits.
    ModHe,
    /// DPad-HE (Alg. 1): `KeySwitch_μ(s⊗s -> s‖s')` over `P̂Q` with `μ` digits, then
    /// `KeySwitch_d(s' -> s)` of the `r̂ - r` extra components.
    DPad,
}

/// A relinearization key for rank-`r` ciphertexts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RelinearizationKey {
    /// ModHE's `rlk = KSGen(s⊗s, s, g)` over `PQ`.
    ModHe(ModuleKey),
    /// DPad-HE's pair.
    DPad {
        /// `crk = KSGen(s⊗s, s‖s', ĝ)` over `P̂Q`: `C(r+1, 2)` inputs, `1 + r̂` columns,
        /// `μ` digits.
        crk: ModuleKey,
        /// `rdk = KSGen(s', s, g)` over `PQ`: `r̂ - r` inputs, `1 + r` columns, `d` digits.
        rdk: ModuleKey,
    },
}

impl RelinearizationKey {
    /// The method.
    pub fn method(&self) -> RelinMethod {
        match self {
            RelinearizationKey::ModHe(_) => RelinMethod::ModHe,
            RelinearizationKey::DPad { .. } => RelinMethod::DPad,
        }
    }

    /// The rank `r` of the ciphertexts it relinearizes.
    pub fn rank(&self) -> usize {
        match self {
            RelinearizationKey::ModHe(k) => k.width() - 1,
            RelinearizationKey::DPad { rdk, .. } => rdk.width() - 1,
        }
    }

    /// The chain limbs the key covers (it serves levels below this).
    pub fn q_limbs(&self) -> usize {
        match self {
            RelinearizationKey::ModHe(k) => k.q_limbs(),
            RelinearizationKey::DPad { crk, rdk } => crk.q_limbs().min(rdk.q_limbs()),
        }
    }

    /// Size in bytes in memory (seed 004 §3.3.2: ModHE `r(r+1)^2 d n / 2` words of
    /// `PQ`; DPad-HE `r(r+1)(r̂+1) μ n / 2` of `P̂Q` plus `(r̂-r)(r+1) d n` of `PQ`).
    pub fn size_bytes(&self) -> usize {
        match self {
            RelinearizationKey::ModHe(k) => k.size_bytes(),
            RelinearizationKey::DPad { crk, rdk } => crk.size_bytes() + rdk.size_bytes(),
        }
    }
}

/// A rank-reduction key `rdk = KSGen(s[to..from], s[..to], g)` (seed 004 §2.4,
/// `RankReduce`): it takes a rank-`from` ciphertext to rank `to` under the first `to`
/// components of the secret, at levels up to the one it was generated for (footnote 2:
/// keys only over `Q_{L'}`, where the lower rank is secure).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankReductionKey {
    /// The rank of the input ciphertexts.
    pub from: usize,
    /// The rank of the output.
    pub to: usize,
    /// `KSGen(s[to..from], s[..to], g)`: `from - to` inputs, `1 + to` columns.
    pub key: ModuleKey,
}

impl RankReductionKey {
    /// The highest level it serves.
    pub fn max_level(&self) -> usize {
        self.key.q_limbs() - 1
    }
    /// Size in bytes in memory.
    pub fn size_bytes(&self) -> usize {
        self.key.size_bytes()
    }
}

/// The number of quadratic terms `s_j s_k` (`j <= k`) of rank `r`: `C(r+1, 2)`.
pub fn quadratic_terms(r: usize) -> usize {
    r * (r + 1) / 2
}

/// `s ⊗ s`: the products `s_j s_k` for `j <= k` (row-major upper triangle), NTT form
/// over the ring of `parts`, wiped on drop.
fn tensor_square(
    parts: &[RingSecret],
    rank: usize,
    ctx: &crate::ring::RingContext,
) -> Zeroizing<Vec<Poly>> {
    let mut out = Vec::with_capacity(quadratic_terms(rank));
    for j in 0..rank {
        for k in j..rank {
            let mut p = parts[j].ntt().clone();
            p.mul_assign(parts[k].ntt(), ctx);
            out.push(p);
        }
    }
    Zeroizing::new(out)
}

impl MlweContext {
    /// A fresh secret key (OS randomness).
    pub fn generate_secret_key(&self) -> SecretKey {
        self.generate_secret_key_with(&mut sample::os_rng())
            .expect("the distribution was validated with the parameters")
    }

    /// A fresh secret key from `rng`: `r̂` components with DPad-HE, `r` otherwise.
    pub fn generate_secret_key_with<R: RngCore + CryptoRng>(
        &self,
        rng: &mut R,
    ) -> Result<SecretKey> {
        let count = self.rank_hat().unwrap_or(self.rank);
        let mut parts = Vec::with_capacity(count);
        let mut parts_hat = Vec::new();
        for _ in 0..count {
            let mut coeffs = self.secret.sample(self.n(), rng)?;
            if let Some(d) = &self.dpad {
                parts_hat.push(RingSecret::from_coeffs(d.ring(), coeffs.clone()));
            }
            parts.push(RingSecret::from_coeffs(
                self.ring(),
                std::mem::take(&mut coeffs),
            ));
        }
        Ok(SecretKey {
            ring_id: self.ring().fingerprint(),
            parts,
            parts_hat,
        })
    }

    pub(crate) fn check_secret(&self, sk: &SecretKey) -> Result<()> {
        if sk.ring_id != self.ring().fingerprint() || sk.parts.len() < self.rank {
            return Err(Error::ParameterMismatch(format!(
                "the secret key belongs to another context (ring {:#018x} with {} components; \
                 this context's ring is {:#018x}, rank {})",
                sk.ring_id,
                sk.parts.len(),
                self.ring().fingerprint(),
                self.rank
            )));
        }
        Ok(())
    }

    /// A public key for `sk` (OS randomness).
    pub fn generate_public_key(&self, sk: &SecretKey) -> Result<PublicKey> {
        self.generate_public_key_with(sk, &mut sample::os_rng())
    }

    /// A public key for `sk` from `rng`: `r` rows `(-<a_k, s> + e_k, a_k)` over `Q ∪ P`.
    pub fn generate_public_key_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        rng: &mut R,
    ) -> Result<PublicKey> {
        self.check_secret(sk)?;
        let ring = self.ring();
        let s = sk.prefix(self.rank);
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let rows = (0..self.rank)
            .map(|k| {
                let stream = (k * self.rank) as u64;
                encrypt_zero_module_sk(ring, &s, ring.q_len(), ring.p_len(), &seed, stream, rng)
            })
            .collect();
        Ok(PublicKey {
            ring_id: ring.fingerprint(),
            rows,
            seed,
        })
    }

    /// A relinearization key for `sk` (OS randomness).
    pub fn generate_relinearization_key(
        &self,
        sk: &SecretKey,
        method: RelinMethod,
    ) -> Result<RelinearizationKey> {
        self.generate_relinearization_key_with(sk, method, &mut sample::os_rng())
    }

    /// A relinearization key for `sk` by `method`, from `rng`, for rank `r` at every
    /// level. DPad-HE needs a context built with
    /// [`MlweParameters::dpad`](super::MlweParameters::dpad).
    pub fn generate_relinearization_key_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        method: RelinMethod,
        rng: &mut R,
    ) -> Result<RelinearizationKey> {
        self.generate_relinearization_key_at_with(sk, method, self.rank, self.max_level(), rng)
    }

    /// A relinearization key for rank-`rank` ciphertexts (under `s[..rank]`, after rank
    /// reduction) at levels up to `level`, its polynomials only over `Q_level`. DPad-HE
    /// at a reduced rank `r' < r` pads with the same extra components `s'`: the temporary
    /// rank is `r' + (r̂ - r)`. Errors where `rank` is not in `[1, r]`, `level > L`, or the
    /// key's (rank, modulus) pairs fail the security check
    /// ([`MlweContext::max_level_for_rank`]).
    pub fn generate_relinearization_key_at_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        method: RelinMethod,
        rank: usize,
        level: usize,
        rng: &mut R,
    ) -> Result<RelinearizationKey> {
        self.check_secret(sk)?;
        self.check_rank_at(rank, level, method == RelinMethod::DPad)?;
        let width = level + 1;
        match method {
            RelinMethod::ModHe => {
                let ss = tensor_square(&sk.parts, rank, self.ring());
                let key = self
                    .ks
                    .generate_module_key(&ss, &sk.prefix(rank), width, rng)?;
                Ok(RelinearizationKey::ModHe(key))
            }
            RelinMethod::DPad => {
                let d = self.dpad.as_ref().ok_or_else(|| {
                    Error::InvalidParameters(
                        "DPad-HE relinearization needs a context built with \
                         MlweParameters::dpad (a second special modulus P̂ and rank r̂)"
                            .into(),
                    )
                })?;
                if sk.parts_hat.len() != d.rank_hat {
                    return Err(Error::ParameterMismatch(
                        "the secret key has no DPad-HE components: generate it with this context"
                            .into(),
                    ));
                }
                let extra = self.rank..d.rank_hat;
                let ss = tensor_square(&sk.parts_hat, rank, d.ring());
                let to: Vec<&RingSecret> = sk.parts_hat[..rank]
                    .iter()
                    .chain(&sk.parts_hat[extra.clone()])
                    .collect();
                let crk = d.ks.generate_module_key(&ss, &to, width, rng)?;
                let s_extra = Zeroizing::new(
                    sk.parts[extra]
                        .iter()
                        .map(|s| s.ntt().clone())
                        .collect::<Vec<_>>(),
                );
                let rdk = self
                    .ks
                    .generate_module_key(&s_extra, &sk.prefix(rank), width, rng)?;
                Ok(RelinearizationKey::DPad { crk, rdk })
            }
        }
    }

    /// A rank-reduction key from rank `from` to `to` (`1 <= to < from <= r`) at levels up
    /// to `level` (OS randomness).
    pub fn generate_rank_reduction_key(
        &self,
        sk: &SecretKey,
        from: usize,
        to: usize,
        level: usize,
    ) -> Result<RankReductionKey> {
        self.generate_rank_reduction_key_with(sk, from, to, level, &mut sample::os_rng())
    }

    /// [`MlweContext::generate_rank_reduction_key`] from `rng`. Errors where the ranks or
    /// the level are out of range, or rank `to` is not secure at `level`
    /// ([`MlweContext::max_level_for_rank`]; the key is an encryption under `s[..to]`).
    pub fn generate_rank_reduction_key_with<R: RngCore + CryptoRng>(
        &self,
        sk: &SecretKey,
        from: usize,
        to: usize,
        level: usize,
        rng: &mut R,
    ) -> Result<RankReductionKey> {
        self.check_secret(sk)?;
        if !(1 <= to && to < from && from <= self.rank) {
            return Err(Error::InvalidParameters(format!(
                "rank reduction from {from} to {to}: need 1 <= to < from <= r = {}",
                self.rank
            )));
        }
        self.check_rank_at(to, level, false)?;
        let s_from = Zeroizing::new(
            sk.parts[to..from]
                .iter()
                .map(|s| s.ntt().clone())
                .collect::<Vec<_>>(),
        );
        let key = self
            .ks
            .generate_module_key(&s_from, &sk.prefix(to), level + 1, rng)?;
        Ok(RankReductionKey { from, to, key })
    }
}
