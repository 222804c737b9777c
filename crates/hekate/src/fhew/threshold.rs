//! Threshold FHEW (seed 002 §1.3 and §6): `k` parties (`2 <= k <= 16`) each hold ternary
//! shares `s_j` (LWE, dimension `n`) and `z_j` (RLWE, degree `N`) of the joint secrets
//! `s_* = Σ_j s_j` and `z_* = Σ_j z_j`, which are never formed. They generate a joint
//! public key and a bootstrapping key for the automorphism-based blind rotation (Alg. 3,
//! 4, 5; AP too), and decrypt jointly; any party can evaluate gates with the ordinary
//! [`FhewEvaluator`](super::FhewEvaluator).
//!
//! # Protocol
//!
//! 1. **Common random string** ([`CommonRandomString`]): a public 32-byte seed, expanded
//!    into `a_crs ∈ R_Q` (stream 0) and, through a seed drawn from stream 1, into the
//!    masks `α` of the LWE key-switching key.
//! 2. **Public key** (§6.1.1): party `j` publishes `b_j = -a_crs z_j + e_j`
//!    ([`SecretShare::public_key_share`]); `pk = (a_crs, Σ_j b_j)`
//!    ([`ThresholdPublicKey::combine`]), an RLWE encryption of zero under `z_*` with error
//!    `e_pk = Σ e_j` of variance `k σ^2`.
//! 3. **Evaluation-key shares** ([`SecretShare::eval_key_share`]), all encrypted under
//!    `pk` with smudging noise `χ_smenc` of standard deviation `σ_smenc`
//!    ([`ThresholdParams::sigma_smenc`]):
//!    * `brk_(j,i) = RGSW_(z_*)(X^(e_i(s_j)))` for every monomial key of the method
//!      (`Y^(s_(j,i))` for Alg. 3, also `Y^(s_(j,i) + s_(j,i+1))` for Alg. 4,
//!      `X^(-Σ_i s_(j,i))` for Alg. 5), whose exponents are linear in the secret;
//!    * `ak_(j,t) = RLWE'_(z_*)(z_j(X^t))` for every automorphism key `t` (§6.1.2);
//!    * the party's share of the LWE key-switching key `z_* → s_*`: rows
//!      `β = v B_ks^l z_(j,i) - <α, s_j> + e` over the common masks `α`.
//! 4. **Combination** ([`KeyCombiner`], [`combine_bootstrap_key`]): `brk_i = Π_j brk_(j,i)` by
//!    `RGSW ⊗ RGSW` products ([`rgsw_product`]; the exponents add up to those of `s_*`),
//!    `ak_t = Σ_j ak_(j,t)`, and the `β` parts of the key-switching shares are summed. The
//!    result is an ordinary [`BootstrapKey`].
//! 5. **Threshold decryption** ([`SecretShare::partial_decrypt`], [`combine_bit`]): party
//!    `j` returns `p_j = <α, s_j> + e_j` with flooding noise of standard deviation
//!    `σ_flood` ([`ThresholdParams::sigma_flood`]); `β + Σ_j p_j = m + e + Σ_j e_j`.
//!
//! Every message the parties exchange ([`PublicKeyShare`], [`ThresholdPublicKey`],
//! [`EvalKeyShare`], [`PartialDecryption`]) serializes with [`crate::serialize`] against the
//! [`ThresholdContext`] (tags 39-42), and the combined key as an ordinary `BootstrapKey`.
//!
//! Public-key encryption `RLWE_pk(m) = (v a + e_0, v b + e_1 + m)` with ternary `v`
//! decrypts under `z_*` to `m + v e_pk + e_0 z_* + e_1`, and `RLWE_pk(z_* m)` is
//! `RLWE_pk(0) + (m, 0)`, so a party encrypts `RGSW_(z_*)(m)` without knowing `z_*`.
//!
//! # Error analysis (seed 002 §6.2)
//!
//! With `σ_⊙^2(σ_key^2) = N σ_key^2 Σ_i E[t_i^2] ≈ d_g N (B_g^2/12) σ_key^2` the error of
//! one `R ⊙ RLWE'` product with a key of error variance `σ_key^2`:
//!
//! * fresh `pk` encryption: `σ_fresh^2 = (2kN/3) σ^2 + (2kN/3) σ_smenc^2 + σ_smenc^2`
//!   ([`ThresholdParams::sigma_fresh2`]);
//! * `brk`: the `k - 1` products each add `2 σ_⊙^2(σ_fresh^2)` and the first share's
//!   error passes through (its monomials only rotate it):
//!   `σ_brk^2 = σ_fresh^2 + 2(k - 1) σ_⊙^2(σ_fresh^2)`, about `(k - 1)/k` of the paper's
//!   `2k d_g N (B_g^2/12) σ_fresh^2`, which counts `k` products
//!   ([`ThresholdParams::sigma_brk2`], [`ThresholdParams::sigma_brk2_paper`]);
//! * `ak`: `σ_ak^2 = k σ_fresh^2`;
//! * blind rotation: `σ_acc^2 = σ_⊙^2(3n σ_brk^2 + n σ_ak^2)` for Alg. 3 and
//!   `σ_⊙^2((2n + 2) σ_brk^2 + n σ_ak^2)` for Alg. 4 and 5
//!   ([`ThresholdParams::sigma_acc2`]).
//!
//! After blind rotation the gate noise of [`FhewParams::gate_noise_variance_parties`]
//! applies (the rounding and key-switching terms grow with `k`: `E[s_*^2] = 2k/3`, each
//! key-switching row carries `k` errors), and threshold decryption adds `k σ_flood^2`.
//! [`ThresholdParams::gate_failure_probability`] and
//! [`ThresholdParams::decryption_failure_probability`] evaluate them.
//!
//! # Parameters
//!
//! The `RGSW ⊗ RGSW` products multiply the gadget amplification `d_g N B_g^2/12` twice
//! into `σ_acc^2` (`σ_acc^2 ≈ 6kn (d_g N B_g^2/12)^2 σ_fresh^2`), so threshold keys need a
//! wider `Q` than single-key FHEW; the other terms of the gate noise grow linearly in `k`:
//! the rounding `Q_ks → q` (`n E[s_*^2]/12 = nk/18`) and key switching
//! (`N d_ks k σ^2 (q/Q_ks)^2`). Both presets take `σ_smenc = 2^6 σ ≈ 204`: it makes the
//! encryption error `e_0 z_* + e_1` of every key share 64 times wider than the
//! public key's own contribution `v e_pk`, so the combined keys' error is dominated by
//! fresh smudging noise rather than by any one party's `e_j` (§6.1.2), and the budget
//! still leaves `σ_acc (q/Q) <= 4.1` for `k = 16`.
//!
//! Failure probabilities from the formulas above (a two-input gate: decision margin
//! `q/8`, two bootstrapped inputs; threshold decryption: one bootstrapped ciphertext plus
//! `k σ_flood^2`), as printed by the `failure_probabilities` test:
//!
//! | k | TOY gate | TOY decryption | STD128 gate (Alg. 3) | STD128 decryption |
//! |---|----------|----------------|-------------|-------------------|
//! | 2 | 2^-350 | 2^-341 | 2^-681 | below 2^-1000 |
//! | 3 | 2^-236 | 2^-229 | 2^-452 | 2^-852 |
//! | 4 | 2^-178 | 2^-173 | 2^-338 | 2^-636 |
//! | 5 | 2^-144 | 2^-139 | 2^-269 | 2^-507 |
//! | 6 | 2^-120 | 2^-117 | 2^-224 | 2^-420 |
//! | 7 | 2^-104 | 2^-101 | 2^-191 | 2^-358 |
//! | 8 | 2^-91 | 2^-88 | 2^-166 | 2^-312 |
//! | 10 | 2^-73 | 2^-71 | 2^-132 | 2^-247 |
//! | 12 | 2^-62 | 2^-60 | 2^-109 | 2^-204 |
//! | 16 | 2^-47 | 2^-46 | 2^-81 | 2^-150 |
//!
//! * [`THRESHOLD_TOY`] (insecure, for tests): `N = 256`, `q = 2N = 512` (Alg. 3, 4),
//!   `n = 32`, 50-bit `Q`, `B_g = 2^7`, `Q_ks = 2^16`, `B_ks = 2^8`, `σ_flood = 1.5`:
//!   negligible failure (below `2^-45`) for every `k` in `2 ..= 16`.
//! * [`THRESHOLD_STD128`] (about 128-bit): `N = 2048`, 54-bit `Q`, `B_g = 2^6`, Alg. 3
//!   or 4 with `q = 2N = 4096`, `n = 700`, `Q_ks = 2^18`, `B_ks = 2^3`, `σ_flood = 2`:
//!   gate failure below `2^-80` and decryption failure below `2^-150` for every `k` in
//!   `2 ..= 16`. The wide key-switching modulus is what allows `k = 16`: with
//!   `Q_ks = 2^16` the key-switching term `N d_ks k σ^2 (q/Q_ks)^2` dominates and the
//!   gate failure reaches `2^-15` at `k = 16` (the set before this one, `n = 600`,
//!   `q = 2048`). Its cost is memory: the key-switching table holds
//!   `N d_ks (B_ks - 1) n` 32-bit words (241 MB).
//!
//! Noise flooding in decryption: the flooding noise (`k σ_flood^2` in all) is about as
//! wide as the ciphertext's own error, not wider by a super-polynomial factor, which no
//! decision margin of `q/8` with `q <= 2N` leaves room for; it masks the parties'
//! `<α, s_j>` only up to that ratio.
//!
//! Threshold keys are not seed-compressed: the `a` parts of public-key encryptions and of
//! products are not expanded from a seed (their [`RlwePrime::seed`] is `None`), so
//! [`crate::serialize`] writes their blind-rotation and automorphism keys in the explicit
//! mask form (about twice the bytes of a seeded key); their LWE key-switching key is
//! seed-expanded and written compressed.
//!
//! # Example
//!
//! ```no_run
//! use hekate::fhew::threshold::{self, CommonRandomString, SecretShare, ThresholdContext};
//! use hekate::fhew::{FhewEvaluator, Gate, Method, MethodConfig};
//! use std::sync::Arc;
//! # fn main() -> hekate::Result<()> {
//! let mut rng = hekate::math::sample::os_rng();
//! let ctx = ThresholdContext::new(&threshold::THRESHOLD_TOY, 3)?;
//! let crs = CommonRandomString::new(hekate::math::sample::fresh_seed());
//! let shares: Vec<SecretShare> =
//!     (0..3).map(|j| SecretShare::generate(&ctx, j, &mut rng)).collect::<Result<_, _>>()?;
//! let pk_shares: Vec<_> = shares
//!     .iter()
//!     .map(|s| s.public_key_share(&ctx, &crs, &mut rng))
//!     .collect::<Result<_, _>>()?;
//! let pk = threshold::ThresholdPublicKey::combine(&ctx, &crs, &pk_shares)?;
//! let config = MethodConfig::new(Method::Alg3);
//! let ek: Vec<_> = shares
//!     .iter()
//!     .map(|s| s.eval_key_share(&ctx, &crs, &pk, config, &mut rng))
//!     .collect::<Result<_, _>>()?;
//! let key = Arc::new(threshold::combine_bootstrap_key(&ctx, &ek)?);
//! let (a, b) = (pk.encrypt_bit(&ctx, &key, true, &mut rng)?, pk.encrypt_bit(&ctx, &key, true, &mut rng)?);
//! let mut ev = FhewEvaluator::new(ctx.fhew().clone(), key)?;
//! let c = ev.gate(Gate::Nand, &a, &b)?;
//! let partials: Vec<_> =
//!     shares.iter().map(|s| s.partial_decrypt(&ctx, &c, &mut rng)).collect::<Result<_, _>>()?;
//! assert!(!threshold::combine_bit(&ctx, &c, &partials)?);
//! # Ok(()) }
//! ```

use super::blindrotate::{monomial_exponents, BlindRotationKey, BrkElement};
use super::gates::{decode_phase, extract_and_switch, BootstrapKey, FhewContext, FhewSecretKey};
use super::lwe::{KsMasks, LweCiphertext, LweKeySwitchKey, LweSecretDistribution, LweSecretKey};
use super::params::{self, FhewParams, Method, MethodConfig};
use crate::math::sample::{self, DiscreteGaussian, Seed};
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::gsw::{
    monomial_ntt, AutoKey, Gadget, GswScratch, Rgsw, RlweCiphertext, RlwePrime,
};
use crate::rlwe::keys::{encrypt_zero_sk_with, expand_uniform, sample_noise_with};
use crate::rlwe::SecretKey;
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

/// Fewest parties.
pub const MIN_PARTIES: usize = 2;
/// Most parties (the presets' error analysis covers `k <= 16`).
pub const MAX_PARTIES: usize = 16;

/// A threshold FHEW parameter set: the FHEW set of the joint keys and the two noise
/// widths of the protocol.
#[derive(Clone, Debug, PartialEq)]
pub struct ThresholdParams {
    /// Name.
    pub name: &'static str,
    /// The FHEW parameters (ternary LWE secrets; every error but the two below has
    /// standard deviation `σ = fhew.sigma`).
    pub fhew: FhewParams,
    /// `σ_smenc`: standard deviation of the errors `e_0`, `e_1` of the public-key
    /// encryptions of key shares (`χ_smenc`, seed 002 §6.1.2).
    pub sigma_smenc: f64,
    /// `σ_flood`: standard deviation of the flooding noise each party adds to its partial
    /// decryption.
    pub sigma_flood: f64,
}

/// Insecure test set: [`params::TOY_THRESHOLD`] (`n = 32`, `q = 2N = 512`, `N = 256`,
/// 50-bit `Q`, `B_g = 2^7`, `Q_ks = 2^16`, `B_ks = 2^8`), `σ_smenc = 2^6 σ`,
/// `σ_flood = 1.5`.
///
/// `σ_smenc = 2^6 σ ≈ 204` makes the encryption errors `e_0 z_* + e_1` of the key shares
/// 64 times wider than the public key's own error `v e_pk` (variance ratio `2^12`), and
/// still leaves `σ_acc (q/Q) < 0.7` for `k = 16`. `σ_flood = 1.5` makes the flooding
/// noise `k σ_flood^2` about as wide as the noise of a bootstrapped ciphertext.
pub const THRESHOLD_TOY: ThresholdParams = ThresholdParams {
    name: "THRESHOLD_TOY",
    fhew: params::TOY_THRESHOLD,
    sigma_smenc: 3.19 * 64.0,
    sigma_flood: 1.5,
};

/// [`params::STD128_THRESHOLD`] (`n = 700`, `q = 4096`, `N = 2048`, 54-bit `Q`,
/// `B_g = 2^6`, `Q_ks = 2^18`, `B_ks = 2^3`; Alg. 3 or 4) with `σ_smenc = 2^6 σ` and
/// `σ_flood = 2`: gate failure below `2^-80` for every `k <= 16` (the table in the module
/// documentation gives every `k`).
pub const THRESHOLD_STD128: ThresholdParams = ThresholdParams {
    name: "THRESHOLD_STD128",
    fhew: params::STD128_THRESHOLD,
    sigma_smenc: 3.19 * 64.0,
    sigma_flood: 2.0,
};

/// `N Σ_i E[t_i^2]` for the signed digits of `gadget` on uniform inputs: `(B_g^2 + 2)/12`
/// for each full digit and `(Q / B_g^(d_g - 1))^2 / 12` for the top one, so that
/// `σ_⊙^2(σ_key^2) = digit_gain · σ_key^2`.
pub fn digit_gain(gadget: &Gadget, big_n: usize) -> f64 {
    let b = gadget.base() as f64;
    let d = gadget.digits();
    let top = gadget.q() as f64 / b.powi(d as i32 - 1);
    big_n as f64 * ((d - 1) as f64 * (b * b + 2.0) / 12.0 + top * top / 12.0)
}

impl ThresholdParams {
    fn gain(&self) -> Result<f64> {
        let g = Gadget::new(self.fhew.big_q()?, self.fhew.log_bg)?;
        Ok(digit_gain(&g, self.fhew.big_n))
    }

    /// `σ_fresh^2 = (2kN/3) σ^2 + (2kN/3) σ_smenc^2 + σ_smenc^2`: the error variance of a
    /// public-key encryption with smudging noise under the joint key of `k` parties.
    pub fn sigma_fresh2(&self, k: usize) -> f64 {
        let kn = 2.0 * k as f64 * self.fhew.big_n as f64 / 3.0;
        let (s2, sm2) = (self.fhew.sigma.powi(2), self.sigma_smenc.powi(2));
        kn * s2 + kn * sm2 + sm2
    }

    /// `σ_brk^2 = σ_fresh^2 + 2(k - 1) σ_⊙^2(σ_fresh^2)`: error variance of a combined
    /// blind-rotation key (`k - 1` `RGSW ⊗ RGSW` products).
    pub fn sigma_brk2(&self, k: usize) -> Result<f64> {
        let f = self.sigma_fresh2(k);
        Ok(f + 2.0 * (k as f64 - 1.0) * self.gain()? * f)
    }

    /// The paper's `σ_brk^2 = 2k d_g N (B_g^2/12) σ_fresh^2` (an upper bound of
    /// [`ThresholdParams::sigma_brk2`]).
    pub fn sigma_brk2_paper(&self, k: usize) -> Result<f64> {
        let g = Gadget::new(self.fhew.big_q()?, self.fhew.log_bg)?;
        let b2 = (g.base() as f64).powi(2);
        Ok(
            2.0 * k as f64 * g.digits() as f64 * self.fhew.big_n as f64 * b2 / 12.0
                * self.sigma_fresh2(k),
        )
    }

    /// `σ_ak^2 = k σ_fresh^2`: error variance of a combined automorphism key.
    pub fn sigma_ak2(&self, k: usize) -> f64 {
        k as f64 * self.sigma_fresh2(k)
    }

    /// `σ_acc^2` after blind rotation with the combined keys: `σ_⊙^2(3n σ_brk^2 + n σ_ak^2)`
    /// for Alg. 3, `σ_⊙^2((2n + 2) σ_brk^2 + n σ_ak^2)` for Alg. 4 and 5, and
    /// `σ_⊙^2(2 d_r (1 - 1/B_r) n σ_brk^2)` for AP.
    pub fn sigma_acc2(&self, k: usize, method: Method) -> Result<f64> {
        let n = self.fhew.n as f64;
        let (brk, ak) = (self.sigma_brk2(k)?, self.sigma_ak2(k));
        let inner = match method {
            Method::Alg3 => 3.0 * n * brk + n * ak,
            Method::Alg4 | Method::Alg5 => (2.0 * n + 2.0) * brk + n * ak,
            Method::Ap => {
                let br = self.fhew.b_r as f64;
                2.0 * self.fhew.d_r() as f64 * (1.0 - 1.0 / br) * n * brk
            }
            Method::Ginx => {
                return Err(Error::InvalidParameters(
                    "GINX has no threshold key generation (its keys are not linear in s)".into(),
                ))
            }
        };
        Ok(self.gain()? * inner)
    }

    /// Probability that a two-input gate with the joint keys of `k` parties decrypts
    /// wrongly ([`FhewParams::failure_probability_parties`] with
    /// [`ThresholdParams::sigma_acc2`]).
    pub fn gate_failure_probability(&self, k: usize, method: Method) -> Result<f64> {
        Ok(self
            .fhew
            .failure_probability_parties(self.sigma_acc2(k, method)?, k))
    }

    /// Variance (units of `q`) of the phase that threshold decryption rounds: a
    /// bootstrapped ciphertext (half of the gate decision variance) plus `k σ_flood^2`.
    pub fn decryption_noise_variance(&self, k: usize, method: Method) -> Result<f64> {
        let gate = self
            .fhew
            .gate_noise_variance_parties(self.sigma_acc2(k, method)?, k);
        Ok(gate / 2.0 + k as f64 * self.sigma_flood.powi(2))
    }

    /// Probability that threshold decryption of a bootstrapped bit is wrong (margin `q/8`).
    pub fn decryption_failure_probability(&self, k: usize, method: Method) -> Result<f64> {
        let s = self.decryption_noise_variance(k, method)?.sqrt();
        Ok(params::erfc(
            self.fhew.q as f64 / 8.0 / (s * std::f64::consts::SQRT_2),
        ))
    }
}

/// The parameters of one threshold instance with `k` parties: the FHEW context of the
/// joint keys and the samplers of `χ_smenc` and the flooding noise.
#[derive(Debug)]
pub struct ThresholdContext {
    params: ThresholdParams,
    k: usize,
    fhew: Arc<FhewContext>,
    smenc: DiscreteGaussian,
    flood: DiscreteGaussian,
}

impl ThresholdContext {
    /// Validates `params` and `k` (`2 <= k <= 16`; ternary LWE secrets).
    pub fn new(params: &ThresholdParams, k: usize) -> Result<Self> {
        if !(MIN_PARTIES..=MAX_PARTIES).contains(&k) {
            return Err(Error::InvalidParameters(format!(
                "threshold FHEW supports k in [{MIN_PARTIES}, {MAX_PARTIES}] parties, got {k}"
            )));
        }
        if params.fhew.lwe_secret != LweSecretDistribution::Ternary {
            return Err(Error::InvalidParameters(
                "threshold FHEW shares are ternary: the LWE secret distribution must be Ternary"
                    .into(),
            ));
        }
        Ok(ThresholdContext {
            params: params.clone(),
            k,
            fhew: FhewContext::new(&params.fhew)?,
            smenc: DiscreteGaussian::new(params.sigma_smenc, 6.0)?,
            flood: DiscreteGaussian::new(params.sigma_flood, 6.0)?,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &ThresholdParams {
        &self.params
    }

    /// The number of parties `k`.
    pub fn parties(&self) -> usize {
        self.k
    }

    /// The FHEW context of the joint keys (for [`FhewEvaluator`](super::FhewEvaluator)).
    pub fn fhew(&self) -> &Arc<FhewContext> {
        &self.fhew
    }

    pub(crate) fn ring(&self) -> &RingContext {
        &self.fhew.ring
    }

    /// Checks that `parties` lists each of `0 .. k` exactly once.
    fn check_parties(&self, what: &str, parties: impl Iterator<Item = usize>) -> Result<()> {
        let mut seen = vec![false; self.k];
        let mut count = 0;
        for p in parties {
            if p >= self.k || std::mem::replace(&mut seen[p], true) {
                return Err(Error::InvalidParameters(format!(
                    "{what}: party index {p} is out of range or repeated (k = {})",
                    self.k
                )));
            }
            count += 1;
        }
        if count != self.k {
            return Err(Error::InvalidParameters(format!(
                "{what}: got {count} shares, need one from each of the k = {} parties",
                self.k
            )));
        }
        Ok(())
    }
}

/// The common random string: a public 32-byte seed known to every party.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommonRandomString {
    /// The seed.
    pub seed: Seed,
}

impl CommonRandomString {
    /// The string with the given seed.
    pub fn new(seed: Seed) -> Self {
        CommonRandomString { seed }
    }

    /// `a_crs ∈ R_Q` (NTT form): stream 0 of the seed ([`expand_uniform`]).
    pub fn a_crs(&self, ctx: &ThresholdContext) -> Poly {
        expand_uniform(ctx.ring(), &self.seed, 0, 1, 0)
    }

    /// The seed of the masks `α` of the LWE key-switching key: the first 32 bytes of
    /// stream 1 of the seed (ChaCha20, as [`sample::expand_seed`]).
    pub fn ksk_seed(&self) -> Seed {
        let mut rng = ChaCha20Rng::from_seed(self.seed);
        rng.set_stream(1);
        let mut s = [0u8; 32];
        rng.fill_bytes(&mut s);
        s
    }
}

/// Party `j`'s secret shares: ternary `s_j` (dimension `n`) and ternary `z_j` (degree `N`).
#[derive(Debug)]
pub struct SecretShare {
    party: usize,
    key: FhewSecretKey,
}

/// Party `j`'s public-key share `b_j = -a_crs z_j + e_j` (NTT form).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKeyShare {
    /// `j`.
    pub party: usize,
    /// `b_j`.
    pub b: Poly,
}

/// Party `j`'s evaluation-key share (§6.1.2, §6.1.3), all under the joint public key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalKeyShare {
    /// `j`.
    pub party: usize,
    /// The blind-rotation configuration.
    pub config: MethodConfig,
    /// `brk_(j,i) = RGSW_(z_*)(X^(e_i(s_j)))` in the layout of [`BlindRotationKey::keys`].
    pub brk: Vec<Rgsw>,
    /// `ak_(j,t) = RLWE'_(z_*)(z_j(X^t))`.
    pub auto: Vec<AutoKey>,
    /// The key-switching share `z_j → s_j` over the common masks.
    pub ksk: KeySwitchShare,
}

/// Party `j`'s share of the LWE key-switching key `z_* → s_*`: the `β` parts
/// `v B_ks^l z_(j,i) - <α, s_j> + e` of an [`LweKeySwitchKey`] whose masks `α` are expanded
/// from [`CommonRandomString::ksk_seed`] (not stored: every party has them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySwitchShare {
    /// `log2 Q_ks`.
    pub log_q_ks: u32,
    /// `log2 B_ks`.
    pub log_base: u32,
    /// The seed of the masks.
    pub seed: Seed,
    /// `β` parts, one per row (row layout of [`LweKeySwitchKey`]).
    pub b: Vec<u32>,
}

/// Party `j`'s partial decryption `<α, s_j> + e_j mod q` of one ciphertext.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialDecryption {
    /// `j`.
    pub party: usize,
    /// The modulus `q`.
    pub q: u64,
    /// `<α, s_j> + e_j mod q`.
    pub value: u64,
}

impl SecretShare {
    /// Fresh ternary shares for party `party` (`0 <= party < k`).
    pub fn generate<R: RngCore + CryptoRng>(
        ctx: &ThresholdContext,
        party: usize,
        rng: &mut R,
    ) -> Result<Self> {
        if party >= ctx.k {
            return Err(Error::InvalidParameters(format!(
                "party index {party} must be below k = {}",
                ctx.k
            )));
        }
        Ok(SecretShare {
            party,
            key: FhewSecretKey::generate(&ctx.fhew, rng)?,
        })
    }

    /// The party index `j`.
    pub fn party(&self) -> usize {
        self.party
    }

    /// Checks that the share was made for `ctx`'s parameters.
    fn check(&self, ctx: &ThresholdContext) -> Result<()> {
        let p = &ctx.params.fhew;
        if self.key.lwe.dim() != p.n || self.key.rlwe.ring_id() != ctx.ring().fingerprint() {
            return Err(Error::ParameterMismatch(format!(
                "the secret share of party {} was made for other FHEW parameters",
                self.party
            )));
        }
        if self.party >= ctx.k {
            return Err(Error::InvalidParameters(format!(
                "party index {} must be below k = {}",
                self.party, ctx.k
            )));
        }
        Ok(())
    }

    /// `b_j = -a_crs z_j + e_j` with `e_j` of standard deviation `σ` (§6.1.1).
    pub fn public_key_share<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        crs: &CommonRandomString,
        rng: &mut R,
    ) -> Result<PublicKeyShare> {
        self.check(ctx)?;
        let [b, _a] = encrypt_zero_sk_with(
            ctx.ring(),
            &self.key.rlwe,
            1,
            0,
            &crs.seed,
            0,
            &ctx.fhew.noise,
            rng,
        );
        Ok(PublicKeyShare {
            party: self.party,
            b,
        })
    }

    /// The party's evaluation-key share for `config` (AP, Alg. 3, 4 or 5 with RGSW keys),
    /// encrypted under `pk` with smudging noise `σ_smenc`.
    pub fn eval_key_share<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        crs: &CommonRandomString,
        pk: &ThresholdPublicKey,
        config: MethodConfig,
        rng: &mut R,
    ) -> Result<EvalKeyShare> {
        self.check(ctx)?;
        let p = &ctx.params.fhew;
        let ring = ctx.ring();
        let big_n = ring.n();
        if !config.method.applies(p.q, big_n) {
            return Err(Error::InvalidParameters(format!(
                "{} does not apply to q = {}, N = {big_n}",
                config.method.name(),
                p.q
            )));
        }
        if config.alt_mult {
            return Err(Error::InvalidParameters(
                "threshold keys are RGSW: ALTMULT's RLWE' keys cannot be multiplied".into(),
            ));
        }
        let exps = monomial_exponents(p, config.method, big_n, self.key.lwe.coeffs()).ok_or_else(
            || {
                Error::InvalidParameters(
                    "GINX has no threshold key generation (its keys are not linear in s)".into(),
                )
            },
        )?;
        let big_q = ctx.fhew.big_q;
        let mut brk = Vec::with_capacity(exps.len());
        for (e, log_bg) in exps {
            let g = Gadget::new(big_q, log_bg)?;
            brk.push(pk.encrypt_rgsw(ctx, &monomial_ntt(ring, e), g, rng));
        }
        let ag = Gadget::new(big_q, p.log_bg)?;
        let z = self.key.rlwe.ntt_at(1, 0);
        let mut auto = Vec::new();
        for t in BlindRotationKey::auto_exponents(config, p.q, big_n) {
            let mut zt = ring.zero(1, 0, Form::Ntt);
            z.automorphism(t, ring, &mut zt);
            auto.push(AutoKey {
                t,
                key: pk.encrypt_rlwe_prime(ctx, &zt, ag, rng),
            });
        }
        let full = LweKeySwitchKey::generate_with_seed(
            self.key.rlwe.coeffs(),
            &self.key.lwe,
            p.log_q_ks,
            p.log_b_ks,
            crs.ksk_seed(),
            &ctx.fhew.noise,
            rng,
        )?;
        let ksk = KeySwitchShare {
            log_q_ks: full.log_q_ks,
            log_base: full.log_base,
            seed: full.seed,
            b: full.b,
        };
        Ok(EvalKeyShare {
            party: self.party,
            config,
            brk,
            auto,
            ksk,
        })
    }

    /// `p_j = <α, s_j> + e_j mod q` with flooding noise `e_j` of standard deviation
    /// `σ_flood`.
    pub fn partial_decrypt<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        ct: &LweCiphertext,
        rng: &mut R,
    ) -> Result<PartialDecryption> {
        self.check(ctx)?;
        check_ct(ctx, ct)?;
        let mask = LweCiphertext {
            a: ct.a.clone(),
            b: 0,
            q: ct.q,
        };
        let dot = self.key.lwe.phase(&mask)?;
        let e = ctx.flood.sample(rng);
        Ok(PartialDecryption {
            party: self.party,
            q: ct.q,
            value: (dot + e).rem_euclid(ct.q as i64) as u64,
        })
    }
}

fn check_ct(ctx: &ThresholdContext, ct: &LweCiphertext) -> Result<()> {
    let p = &ctx.params.fhew;
    if ct.q != p.q || ct.dim() != p.n {
        return Err(Error::ParameterMismatch(format!(
            "ciphertext (n, q) = ({}, {}) does not match the parameters ({}, {})",
            ct.dim(),
            ct.q,
            p.n,
            p.q
        )));
    }
    Ok(())
}

/// The joint public key `pk = (a_crs, Σ_j b_j)` of `k` parties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThresholdPublicKey {
    /// `a_crs` (NTT form).
    pub a: Poly,
    /// `Σ_j b_j` (NTT form).
    pub b: Poly,
}

impl ThresholdPublicKey {
    /// Sums the shares of all `k` parties (one each).
    pub fn combine(
        ctx: &ThresholdContext,
        crs: &CommonRandomString,
        shares: &[PublicKeyShare],
    ) -> Result<Self> {
        ctx.check_parties("public key", shares.iter().map(|s| s.party))?;
        let ring = ctx.ring();
        let mut b = ring.zero(1, 0, Form::Ntt);
        for s in shares {
            if s.b.n() != ring.n() || s.b.data().len() != ring.n() || s.b.form() != Form::Ntt {
                return Err(Error::ParameterMismatch(format!(
                    "public-key share of party {} is not an NTT-form polynomial of degree {}",
                    s.party,
                    ring.n()
                )));
            }
            b.add_assign(&s.b, ring);
        }
        Ok(ThresholdPublicKey {
            a: crs.a_crs(ctx),
            b,
        })
    }

    /// `RLWE_pk(0) = (v a + e_0, v b + e_1)` in NTT form, with ternary `v` and `e_0`, `e_1`
    /// from `noise`.
    pub fn encrypt_zero<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> RlweCiphertext {
        let ring = ctx.ring();
        let mut v = ring.from_signed(&sample::ternary(rng, ring.n()), 1, 0);
        v.ntt(ring);
        let mut a = sample_noise_with(ring, 1, 0, noise, rng);
        let mut b = sample_noise_with(ring, 1, 0, noise, rng);
        a.mul_add_assign(&v, &self.a, ring);
        b.mul_add_assign(&v, &self.b, ring);
        RlweCiphertext { a, b }
    }

    /// `RLWE'_(z_*)(m)` for `m` in NTT form: rows `RLWE_pk(0) + (0, g_i m)` with smudging
    /// noise `σ_smenc`.
    pub fn encrypt_rlwe_prime<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        m_ntt: &Poly,
        gadget: Gadget,
        rng: &mut R,
    ) -> RlwePrime {
        self.gadget_rows(ctx, m_ntt, gadget, false, rng)
    }

    /// `RGSW_(z_*)(m) = (RLWE'(z_* m), RLWE'(m))` for `m` in NTT form; the rows of
    /// `RLWE'(z_* m)` are `RLWE_pk(0) + (g_i m, 0)`.
    pub fn encrypt_rgsw<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        m_ntt: &Poly,
        gadget: Gadget,
        rng: &mut R,
    ) -> Rgsw {
        Rgsw {
            zm: self.gadget_rows(ctx, m_ntt, gadget, true, rng),
            m: self.gadget_rows(ctx, m_ntt, gadget, false, rng),
        }
    }

    /// Rows `RLWE_pk(0) + g_i m` added to `a` (`times_z`: encrypts `g_i z_* m`) or `b`.
    fn gadget_rows<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        m_ntt: &Poly,
        gadget: Gadget,
        times_z: bool,
        rng: &mut R,
    ) -> RlwePrime {
        let q = *ctx.ring().modulus(0, 1);
        let d = gadget.digits();
        let (mut a, mut b) = (Vec::with_capacity(d), Vec::with_capacity(d));
        for i in 0..d {
            let mut ct = self.encrypt_zero(ctx, &ctx.smenc, rng);
            let g = gadget.power(i);
            let target = if times_z { &mut ct.a } else { &mut ct.b };
            for (x, &mj) in target.data_mut().iter_mut().zip(m_ntt.data()) {
                *x = q.add(*x, q.mul(mj, g));
            }
            a.push(ct.a);
            b.push(ct.b);
        }
        RlwePrime {
            gadget,
            seed: None,
            a,
            b,
        }
    }

    /// A public-key encryption of the bit `m` (as `m · q/4`, like
    /// [`FhewSecretKey::encrypt_bit`]): `RLWE_pk(m Q/4)` with noise `σ`, its constant
    /// coefficient extracted as `LWE_(Q, z_*)`, switched to `Q_ks`, key-switched to `s_*`
    /// with `key.ksk` and switched to `q`. Its noise is that of a bootstrapped ciphertext.
    pub fn encrypt_bit<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        key: &BootstrapKey,
        m: bool,
        rng: &mut R,
    ) -> Result<LweCiphertext> {
        let p = &ctx.params.fhew;
        if key.ksk.n_in != p.big_n || key.ksk.n_out != p.n {
            return Err(Error::ParameterMismatch(
                "the key-switching key was made for other parameters".into(),
            ));
        }
        let ring = ctx.ring();
        let mut ct = self.encrypt_zero(ctx, &ctx.fhew.noise, rng);
        ct.a.intt(ring);
        ct.b.intt(ring);
        let big_q = ctx.fhew.big_q;
        let b0 = (ct.b.data()[0] + m as u64 * (big_q / 4)) % big_q;
        let mut ks_in = vec![0u32; p.big_n];
        let mut ks_out = vec![0u32; p.n];
        Ok(extract_and_switch(
            &ctx.fhew,
            &key.ksk,
            ct.a.data(),
            b0,
            &mut ks_in,
            &mut ks_out,
        ))
    }
}

/// `RGSW(m_1) ⊠ RGSW(m_2) = RGSW(m_1 m_2)`: every row `RLWE(g_i z m_1)`, `RLWE(g_i m_1)` of
/// `lhs` times `rhs` by the external product ([`Rgsw::external_product_into`]).
///
/// For a monomial `m_2` the rows' errors are rotated and each gains the external product's
/// `2 σ_⊙^2(σ_rhs^2)` (seed 002 §6.1.3: "the error is additive").
pub fn rgsw_product(lhs: &Rgsw, rhs: &Rgsw, ctx: &RingContext, scratch: &mut GswScratch) -> Rgsw {
    let mul = |p: &RlwePrime, scratch: &mut GswScratch| {
        let (mut a, mut b) = (Vec::with_capacity(p.a.len()), Vec::with_capacity(p.a.len()));
        let mut row = RlweCiphertext::zero(ctx, Form::Coeff);
        let mut out = RlweCiphertext::zero(ctx, Form::Ntt);
        for (ai, bi) in p.a.iter().zip(&p.b) {
            row.a = ai.clone();
            row.b = bi.clone();
            row.a.intt(ctx);
            row.b.intt(ctx);
            rhs.external_product_into(&row, ctx, scratch, &mut out);
            a.push(out.a.clone());
            b.push(out.b.clone());
        }
        RlwePrime {
            gadget: p.gadget,
            seed: None,
            a,
            b,
        }
    };
    Rgsw {
        zm: mul(&lhs.zm, scratch),
        m: mul(&lhs.m, scratch),
    }
}

/// Combines the evaluation-key shares of all `k` parties into an ordinary
/// [`BootstrapKey`] ([`KeyCombiner`], in the order given).
pub fn combine_bootstrap_key(
    ctx: &ThresholdContext,
    shares: &[EvalKeyShare],
) -> Result<BootstrapKey> {
    ctx.check_parties("evaluation key", shares.iter().map(|s| s.party))?;
    let mut c = KeyCombiner::new(ctx);
    for s in shares {
        c.add(s)?;
    }
    c.finish()
}

/// The computing party's combination of evaluation-key shares as they arrive (holding
/// one running key, not all `k` shares): `brk_i ← brk_i ⊠ brk_(j,i)` ([`rgsw_product`]),
/// `ak_t ← ak_t + ak_(j,t)`, and the sum of the key-switching `β` parts.
#[derive(Debug)]
pub struct KeyCombiner<'a> {
    ctx: &'a ThresholdContext,
    seen: Vec<bool>,
    config: Option<MethodConfig>,
    brk: Vec<Rgsw>,
    auto: Vec<AutoKey>,
    ksk: Option<KeySwitchShare>,
    scratch: GswScratch,
}

impl<'a> KeyCombiner<'a> {
    /// An empty combination.
    pub fn new(ctx: &'a ThresholdContext) -> Self {
        KeyCombiner {
            ctx,
            seen: vec![false; ctx.k],
            config: None,
            brk: Vec::new(),
            auto: Vec::new(),
            ksk: None,
            scratch: GswScratch::new(ctx.ring()),
        }
    }

    /// Checks `share` against the parameters and the shares added so far.
    fn check(&self, share: &EvalKeyShare) -> Result<()> {
        let ctx = self.ctx;
        let p = &ctx.params.fhew;
        let ring = ctx.ring();
        let j = share.party;
        if j >= ctx.k || self.seen[j] {
            return Err(Error::InvalidParameters(format!(
                "evaluation key: party index {j} is out of range or repeated (k = {})",
                ctx.k
            )));
        }
        let mismatch = |what: &str| {
            Err(Error::ParameterMismatch(format!(
                "evaluation-key share of party {j}: {what}"
            )))
        };
        if let Some(c) = self.config {
            if c != share.config {
                return mismatch("another blind-rotation configuration");
            }
        }
        let cfg = share.config;
        let want = monomial_exponents(p, cfg.method, ring.n(), &vec![0; p.n]);
        let Some(want) = want.filter(|_| cfg.method.applies(p.q, ring.n()) && !cfg.alt_mult) else {
            return mismatch("no threshold keys exist for this configuration");
        };
        let prime_ok = |x: &RlwePrime, log_bg: u32| {
            x.gadget.q() == ctx.fhew.big_q
                && x.gadget.log_base() == log_bg
                && x.a.len() == x.gadget.digits()
                && x.b.len() == x.a.len()
                && x.a.iter().chain(&x.b).all(|y| y.data().len() == ring.n())
        };
        if share.brk.len() != want.len()
            || !share
                .brk
                .iter()
                .zip(&want)
                .all(|(r, &(_, lb))| prime_ok(&r.zm, lb) && prime_ok(&r.m, lb))
        {
            return mismatch("blind-rotation keys of the wrong number or shape");
        }
        let ts = BlindRotationKey::auto_exponents(cfg, p.q, ring.n());
        if share.auto.len() != ts.len()
            || !share
                .auto
                .iter()
                .zip(&ts)
                .all(|(a, &t)| a.t == t && prime_ok(&a.key, p.log_bg))
        {
            return mismatch("automorphism keys of the wrong number or shape");
        }
        let k = &share.ksk;
        let rows = p.big_n * p.log_q_ks.div_ceil(p.log_b_ks) as usize * ((1 << p.log_b_ks) - 1);
        if (k.log_q_ks, k.log_base) != (p.log_q_ks, p.log_b_ks) || k.b.len() != rows {
            return mismatch("key-switching share of the wrong shape");
        }
        if let Some(first) = &self.ksk {
            if first.seed != k.seed {
                return mismatch("key-switching masks of another common random string");
            }
        }
        Ok(())
    }

    /// Adds party `share.party`'s share.
    pub fn add(&mut self, share: &EvalKeyShare) -> Result<()> {
        self.check(share)?;
        self.seen[share.party] = true;
        let ring = self.ctx.ring();
        let Some(sum) = self.ksk.as_mut() else {
            self.config = Some(share.config);
            self.brk = share.brk.clone();
            self.auto = share.auto.clone();
            self.ksk = Some(share.ksk.clone());
            return Ok(());
        };
        let mask = ((1u64 << sum.log_q_ks) - 1) as u32;
        for (x, &y) in sum.b.iter_mut().zip(&share.ksk.b) {
            *x = x.wrapping_add(y) & mask;
        }
        for (acc, r) in self.brk.iter_mut().zip(&share.brk) {
            *acc = rgsw_product(acc, r, ring, &mut self.scratch);
        }
        for (acc, k) in self.auto.iter_mut().zip(&share.auto) {
            for (x, y) in acc.key.a.iter_mut().zip(&k.key.a) {
                x.add_assign(y, ring);
            }
            for (x, y) in acc.key.b.iter_mut().zip(&k.key.b) {
                x.add_assign(y, ring);
            }
        }
        Ok(())
    }

    /// The bootstrapping key, once every party's share has been added.
    pub fn finish(self) -> Result<BootstrapKey> {
        let missing: Vec<usize> = (0..self.ctx.k).filter(|&j| !self.seen[j]).collect();
        let (Some(config), Some(ks), true) = (self.config, self.ksk, missing.is_empty()) else {
            return Err(Error::InvalidParameters(format!(
                "evaluation key: the shares of parties {missing:?} are missing (k = {})",
                self.ctx.k
            )));
        };
        let p = &self.ctx.params.fhew;
        let keys = self.brk.into_iter().map(BrkElement::Rgsw).collect();
        let brk = BlindRotationKey::try_from_parts(p, p.big_n, config, keys, None, self.auto)?;
        let digits = p.log_q_ks.div_ceil(p.log_b_ks) as usize;
        let a = KsMasks::expand(&ks.seed, 0, ks.log_q_ks, ks.b.len() * p.n);
        let ksk = LweKeySwitchKey {
            log_q_ks: ks.log_q_ks,
            log_base: ks.log_base,
            digits,
            n_in: p.big_n,
            n_out: p.n,
            seed: ks.seed,
            a,
            b: ks.b,
        };
        Ok(BootstrapKey { brk, ksk })
    }
}

/// The phase `β + Σ_j p_j` (centered in `[-q/2, q/2)`) from the partial decryptions of
/// all `k` parties.
pub fn combine_phase(
    ctx: &ThresholdContext,
    ct: &LweCiphertext,
    partials: &[PartialDecryption],
) -> Result<i64> {
    check_ct(ctx, ct)?;
    ctx.check_parties("decryption", partials.iter().map(|p| p.party))?;
    if let Some(p) = partials.iter().find(|p| p.q != ct.q || p.value >= ct.q) {
        return Err(Error::ParameterMismatch(format!(
            "partial decryption of party {} is modulo {}, the ciphertext modulo {}",
            p.party, p.q, ct.q
        )));
    }
    let q = ct.q;
    let sum = partials.iter().fold(ct.b, |acc, p| (acc + p.value) % q);
    Ok(if sum >= q.div_ceil(2) {
        sum as i64 - q as i64
    } else {
        sum as i64
    })
}

/// Threshold decryption of a bit (encoded as `m · q/4`).
pub fn combine_bit(
    ctx: &ThresholdContext,
    ct: &LweCiphertext,
    partials: &[PartialDecryption],
) -> Result<bool> {
    Ok(combine_int(ctx, ct, 2, partials)? == 1)
}

/// Threshold decryption of `m ∈ Z_t` (encoded as `m · q/(2t)`).
pub fn combine_int(
    ctx: &ThresholdContext,
    ct: &LweCiphertext,
    t: u64,
    partials: &[PartialDecryption],
) -> Result<u64> {
    decode_phase(combine_phase(ctx, ct, partials)?, ct.q, t)
}

/// **Insecure**: forms the joint secrets `s_* = Σ_j s_j` and `z_* = Σ_j z_j`, which the
/// protocol never does. For tests and noise measurements only (as an oracle).
pub fn insecure_joint_secret(
    ctx: &ThresholdContext,
    shares: &[SecretShare],
) -> Result<FhewSecretKey> {
    ctx.check_parties("joint secret", shares.iter().map(|s| s.party))?;
    let p = &ctx.params.fhew;
    let mut s = vec![0i64; p.n];
    let mut z = vec![0i64; p.big_n];
    for sh in shares {
        s.iter_mut()
            .zip(sh.key.lwe.coeffs())
            .for_each(|(x, &y)| *x += y);
        z.iter_mut()
            .zip(sh.key.rlwe.coeffs())
            .for_each(|(x, &y)| *x += y);
    }
    Ok(FhewSecretKey {
        lwe: LweSecretKey::from_coeffs(s),
        rlwe: SecretKey::from_coeffs(ctx.ring(), z),
    })
}
