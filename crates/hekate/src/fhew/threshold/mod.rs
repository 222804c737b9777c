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
//!    result is an ordinary [`BootstrapKey`](super::BootstrapKey).
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
//! # What is and is not secure
//!
//! * **k-out-of-k.** Every one of the `k` parties must take part in every decryption: one
//!   absent party blocks it (there is no `t`-out-of-`k` secret sharing here).
//! * **Key generation** of [`THRESHOLD_STD128`] is 128-bit
//!   ([`crate::fhew::FhewParams::security`]): the public key and the evaluation-key shares
//!   are RLWE / LWE samples at that level, with smudging noise `σ_smenc` on the shares.
//! * **Decryption is not simulation-secure.** The flooding noise (`k σ_flood^2` in all) is
//!   about as wide as the ciphertext's own error, not wider by the factor `2^λ` that
//!   statistical hiding needs, which no decision margin of `q/8` with `q <= 2N` leaves
//!   room for; it masks the parties' `<α, s_j>` only up to that ratio. Whoever collects the
//!   partial decryptions learns `e + Σ e_j` up to that masking, and the leakage adds up
//!   over many decryptions. [`ThresholdParams::decryption_simulation_secure`] says so in
//!   code. Use threshold decryption only where the combiner is trusted not to collect
//!   partial decryptions across many ciphertexts, or where that leakage is acceptable.
//!
//! Threshold keys are not seed-compressed: the `a` parts of public-key encryptions and of
//! products are not expanded from a seed (their [`RlwePrime::seed`](crate::rlwe::gsw::RlwePrime::seed) is `None`), so
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
//! let ctx = ThresholdContext::with_security(&threshold::THRESHOLD_TOY, 3, hekate::params::SecurityLevel::NotChecked,
//! )?;
//! let crs = CommonRandomString::new(hekate::math::sample::fresh_seed());
//! let shares: Vec<SecretShare> =
//!     (0..3).map(|j| SecretShare::generate(&ctx, j, &mut rng)).collect::<Result<_, _>>()?;
//! let pk_shares: Vec<_> = shares
//!     .iter()
//!     .map(|s| s.public_key_share(&ctx, &crs, &mut rng))
//!     .collect::<Result<_, _>>()?;
//! let pk = threshold::ThresholdPublicKey::combine(&ctx, &crs, &pk_shares)?;
//! let config = MethodConfig::new(Method::LmkcdeyBase);
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

mod combine;
mod party;
pub(crate) mod serialize;

pub use combine::{
    combine_bit, combine_bootstrap_key, combine_int, combine_phase, insecure_joint_secret,
    rgsw_product, KeyCombiner,
};
pub use party::{
    EvalKeyShare, KeySwitchShare, PartialDecryption, PublicKeyShare, SecretShare,
    ThresholdPublicKey,
};

use super::gates::FhewContext;
use super::lwe::LweSecretDistribution;
use super::params::{self, FhewParams, Method};
use crate::math::sample::{DiscreteGaussian, Seed};
use crate::params::SecurityLevel;
use crate::ring::{Poly, RingContext};
use crate::rlwe::gsw::Gadget;
use crate::rlwe::keys::expand_uniform;
use crate::{Error, Result};
use rand_chacha::rand_core::{RngCore, SeedableRng};
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

/// **Key generation 128-bit; decryption not simulation-secure** (see
/// [`ThresholdParams::decryption_simulation_secure`]: its flooding is about as wide as the
/// error). k-out-of-k: every one of the `k`
/// parties must take part in every decryption.
///
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
    /// `log2(σ_flood,total / σ_ct)`: how many bits wider the flooding noise of `k`
    /// parties (`k σ_flood^2`) is than the error of the bootstrapped ciphertext it hides
    /// (half the gate decision variance, [`crate::fhew::FhewParams::gate_noise_variance_parties`]).
    pub fn flooding_bits(&self, k: usize, method: Method) -> Result<f64> {
        let ct = self
            .fhew
            .gate_noise_variance_parties(self.sigma_acc2(k, method)?, k)
            / 2.0;
        Ok(0.5 * (k as f64 * self.sigma_flood.powi(2) / ct).log2())
    }

    /// Whether threshold decryption hides the parties' partial decryptions in the
    /// simulation sense for statistical security `λ` bits: flooding noise at least `2^λ`
    /// times wider than the error it hides ([`ThresholdParams::flooding_bits`] `>= λ`),
    /// *and* still decryptable (failure probability below `2^-λ`). No set hekate ships
    /// meets both for any useful `λ` (see the module documentation, "What is and is not
    /// secure"); key generation is unaffected.
    pub fn decryption_simulation_secure(
        &self,
        k: usize,
        method: Method,
        lambda: u32,
    ) -> Result<bool> {
        Ok(self.flooding_bits(k, method)? >= lambda as f64
            && self.decryption_failure_probability(k, method)? <= (-(lambda as f64)).exp2())
    }

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
            Method::LmkcdeyBase => 3.0 * n * brk + n * ak,
            Method::LmkcdeyAux | Method::LmkcdeyAllEven => (2.0 * n + 2.0) * brk + n * ak,
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
    /// Validates `params` and `k` (`2 <= k <= 16`; ternary LWE secrets) and checks that
    /// the keys are 128-bit secure ([`FhewContext::new`]; this says nothing of the
    /// decryption protocol, see [`ThresholdParams::decryption_simulation_secure`]).
    pub fn new(params: &ThresholdParams, k: usize) -> Result<Self> {
        Self::with_security(params, k, SecurityLevel::Bits128)
    }

    /// [`ThresholdContext::new`] checked against `min` ([`SecurityLevel::NotChecked`]
    /// for the insecure test set [`THRESHOLD_TOY`]).
    pub fn with_security(params: &ThresholdParams, k: usize, min: SecurityLevel) -> Result<Self> {
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
            fhew: FhewContext::with_security(&params.fhew, min)?,
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
    /// stream 1 of the seed (ChaCha20, as [`expand_seed`](crate::math::sample::expand_seed)).
    pub fn ksk_seed(&self) -> Seed {
        let mut rng = ChaCha20Rng::from_seed(self.seed);
        rng.set_stream(1);
        let mut s = [0u8; 32];
        rng.fill_bytes(&mut s);
        s
    }
}
