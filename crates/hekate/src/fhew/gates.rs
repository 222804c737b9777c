//! The FHEW pipeline: key generation, encryption of bits and small integers, gate
//! bootstrapping and look-up tables.
//!
//! Bootstrapping an LWE ciphertext `(α, β)` modulo `q` with test polynomial `f`:
//!
//! 1. blind rotation → `RLWE_z(f · Y^u)`, `u = β + <α, s>` ([`BlindRotationKey`]);
//! 2. extraction of the constant coefficient → `LWE_{Q,z}(f(u))` of dimension `N`
//!    (`ā_0 = a_0`, `ā_i = -a_(N-i)`);
//! 3. modulus switching `Q → Q_ks`, LWE key switching `z → s` (dimension `N → n`),
//!    modulus switching `Q_ks → q`.
//!
//! The test polynomial realizes a negacyclic function `G: Z_q → Z_Q`
//! (`G(u + q/2) = -G(u)`): the constant coefficient of `f · X^(k)` is `f_0` for `k = 0`
//! and `f_(2N-k)` (k > N) or `-f_(N-k)` (0 < k <= N), so `f_0 = G(0)` and
//! `f_j = G((2N - j)/(2N/q))`.
//!
//! Bits are encrypted as `m · q/4`. A two-input gate adds the inputs (XOR and XNOR add
//! twice the sum) and a gate constant so that "1" falls in `[0, q/2)` with margin `q/8`,
//! then bootstraps with `G = ±Q/8` and adds `Q/8`: the result encrypts the gate's output
//! at `q/4` again. Integers `m ∈ Z_t` are encrypted as `m · q/(2t)` (the top half of
//! `Z_q` is padding), and a table `F: Z_t → Z_t` is evaluated with
//! `G(u) = F(floor(u 2t/q)) · Q/(2t)` after shifting the phase by `q/(4t)`.

use super::blindrotate::{BlindRotationKey, FourierKeys, FourierScratch, GadgetDecomposition};
use super::lwe::{LweCiphertext, LweKeySwitchKey, LweSecretKey};
use super::params::{FhewParams, MethodConfig};
use crate::math::sample::{self, DiscreteGaussian};
use crate::params::SecurityLevel;
use crate::progress::{NoProgress, Progress};
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::gsw::{GswScratch, RlweCiphertext};
use crate::rlwe::{SecretDistribution, SecretKey};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

/// Parameters with their ring (`N`, the prime `Q`) and noise sampler: what keys,
/// ciphertexts and evaluators are made under, shared as an `Arc`.
///
/// The FHEW API follows the CKKS one ([`CkksContext`](crate::ckks::CkksContext)): the
/// context generates the keys (`generate_*`, OS-seeded; `generate_*_with` takes a CSPRNG),
/// encrypts and decrypts, and an evaluator ([`FhewEvaluator`]) runs the gates over the
/// context and the evaluation key.
#[derive(Debug)]
pub struct FhewContext {
    pub(crate) params: FhewParams,
    pub(crate) ring: Arc<RingContext>,
    pub(crate) big_q: u64,
    pub(crate) noise: DiscreteGaussian,
}

impl FhewContext {
    /// Validates `params`, checks that they are 128-bit secure ([`FhewParams::security`])
    /// and builds the ring. Weaker sets (the paper's `MEDIUM`, the insecure test sets) need
    /// [`FhewContext::with_security`] with [`SecurityLevel::NotChecked`].
    pub fn new(params: &FhewParams) -> Result<Arc<Self>> {
        Self::with_security(params, SecurityLevel::Bits128)
    }

    /// [`FhewContext::new`] checked against `min` instead of 128 bits;
    /// [`SecurityLevel::NotChecked`] is the explicit opt-out for experiments, tests and
    /// benchmarks of weak sets.
    pub fn with_security(params: &FhewParams, min: SecurityLevel) -> Result<Arc<Self>> {
        params.validate()?;
        let security = params.security();
        if !security.meets(min) {
            return Err(Error::Insecure(format!(
                "FHEW parameters {} do not meet {min}: {security}; use a 128-bit preset \
                 (OPENFHE_STD128, OPENFHE_STD128_LMKCDEY, OPENFHE_STD192, STD256), or \
                 FhewContext::with_security(params, SecurityLevel::NotChecked) to opt out \
                 for experiments and benchmarks",
                params.name
            )));
        }
        let big_q = params.big_q()?;
        Ok(Arc::new(FhewContext {
            params: params.clone(),
            ring: RingContext::new(params.big_n, &[big_q], &[])?,
            big_q,
            noise: DiscreteGaussian::new(params.sigma, 6.0)?,
        }))
    }

    /// The parameter set.
    pub fn params(&self) -> &FhewParams {
        &self.params
    }

    /// `R_Q`: the ring of degree `N` over the one prime `Q`.
    pub fn ring(&self) -> &Arc<RingContext> {
        &self.ring
    }

    /// `Q`: the prime of the accumulator ([`FhewParams::big_q`]).
    pub fn big_q(&self) -> u64 {
        self.big_q
    }

    /// The error distribution of every fresh LWE and RLWE sample (`σ`, cut at `6σ`).
    pub fn noise(&self) -> &DiscreteGaussian {
        &self.noise
    }

    /// Fresh secret keys `s` (LWE) and `z` (RLWE), OS-seeded CSPRNG.
    pub fn generate_secret_key(&self) -> Result<FhewSecretKey> {
        self.generate_secret_key_with(&mut sample::os_rng())
    }

    /// Fresh secret keys from a caller-supplied CSPRNG (for reproducible tests).
    pub fn generate_secret_key_with<R: RngCore + CryptoRng>(
        &self,
        rng: &mut R,
    ) -> Result<FhewSecretKey> {
        FhewSecretKey::generate(self, rng)
    }

    /// The evaluation key of `sk` for the blind rotation `config`: blind-rotation keys and
    /// the LWE key-switching key.
    pub fn generate_bootstrap_key(
        &self,
        sk: &FhewSecretKey,
        config: MethodConfig,
    ) -> Result<BootstrapKey> {
        self.generate_bootstrap_key_with(sk, config, &mut sample::os_rng())
    }

    /// [`FhewContext::generate_bootstrap_key`], noise and seeds from `rng`.
    pub fn generate_bootstrap_key_with<R: RngCore + CryptoRng>(
        &self,
        sk: &FhewSecretKey,
        config: MethodConfig,
        rng: &mut R,
    ) -> Result<BootstrapKey> {
        BootstrapKey::generate(self, sk, config, rng)
    }

    /// [`FhewContext::generate_bootstrap_key_with`], reporting through `progress`
    /// ([`crate::progress`]): one unit per blind-rotation key, automorphism key and
    /// `RLWE'(z^2)`, and one for the LWE key-switching key; the same key for the same
    /// `rng`.
    pub fn generate_bootstrap_key_with_progress<R: RngCore + CryptoRng>(
        &self,
        sk: &FhewSecretKey,
        config: MethodConfig,
        rng: &mut R,
        progress: &dyn Progress,
    ) -> Result<BootstrapKey> {
        BootstrapKey::generate_with_progress(self, sk, config, rng, progress)
    }

    /// Encrypts the bit `m` as `m · q/4` under `sk` (LWE is symmetric here).
    pub fn encrypt_bit(&self, m: bool, sk: &FhewSecretKey) -> Result<LweCiphertext> {
        self.encrypt_bit_with(m, sk, &mut sample::os_rng())
    }

    /// [`FhewContext::encrypt_bit`], mask and noise from `rng`.
    pub fn encrypt_bit_with<R: RngCore + CryptoRng>(
        &self,
        m: bool,
        sk: &FhewSecretKey,
        rng: &mut R,
    ) -> Result<LweCiphertext> {
        sk.encrypt_bit(self, m, rng)
    }

    /// Decrypts a bit (the phase rounded to a multiple of `q/4`: 1 is "true").
    pub fn decrypt_bit(&self, ct: &LweCiphertext, sk: &FhewSecretKey) -> Result<bool> {
        sk.decrypt_bit(ct)
    }

    /// Encrypts `m ∈ Z_t` as `m · q/(2t)` (`t` a power of two, `2t <= q`) under `sk`.
    pub fn encrypt_int(&self, m: u64, t: u64, sk: &FhewSecretKey) -> Result<LweCiphertext> {
        self.encrypt_int_with(m, t, sk, &mut sample::os_rng())
    }

    /// [`FhewContext::encrypt_int`], mask and noise from `rng`.
    pub fn encrypt_int_with<R: RngCore + CryptoRng>(
        &self,
        m: u64,
        t: u64,
        sk: &FhewSecretKey,
        rng: &mut R,
    ) -> Result<LweCiphertext> {
        sk.encrypt_int(self, m, t, rng)
    }

    /// Decrypts `m ∈ Z_t` (rounds the phase to a multiple of `q/(2t)`, modulo `t`).
    pub fn decrypt_int(&self, ct: &LweCiphertext, t: u64, sk: &FhewSecretKey) -> Result<u64> {
        sk.decrypt_int(ct, t)
    }
}

/// The secret keys: LWE `s` (dimension `n`) and RLWE `z` (ternary, degree `N`). Made by
/// [`FhewContext::generate_secret_key`].
#[derive(Debug)]
pub struct FhewSecretKey {
    /// `s`.
    pub lwe: LweSecretKey,
    /// `z`.
    pub rlwe: SecretKey,
}

impl FhewSecretKey {
    /// Fresh keys.
    pub(crate) fn generate<R: RngCore + CryptoRng>(ctx: &FhewContext, rng: &mut R) -> Result<Self> {
        Ok(FhewSecretKey {
            lwe: LweSecretKey::generate(ctx.params.n, ctx.params.lwe_secret, rng)?,
            rlwe: SecretKey::generate(&ctx.ring, SecretDistribution::Ternary, rng)?,
        })
    }

    /// Encrypts the bit `m` as `m · q/4`.
    pub(crate) fn encrypt_bit<R: RngCore + CryptoRng>(
        &self,
        ctx: &FhewContext,
        m: bool,
        rng: &mut R,
    ) -> Result<LweCiphertext> {
        let q = ctx.params.q;
        self.lwe.encrypt(m as u64 * q / 4, q, &ctx.noise, rng)
    }

    /// Decrypts a bit (the phase rounded to a multiple of `q/4`: 1 is "true").
    pub(crate) fn decrypt_bit(&self, ct: &LweCiphertext) -> Result<bool> {
        Ok(self.decrypt_int(ct, 2)? == 1)
    }

    /// Encrypts `m ∈ Z_t` as `m · q/(2t)` (`t` a power of two, `2t <= q`).
    pub(crate) fn encrypt_int<R: RngCore + CryptoRng>(
        &self,
        ctx: &FhewContext,
        m: u64,
        t: u64,
        rng: &mut R,
    ) -> Result<LweCiphertext> {
        let q = ctx.params.q;
        check_t(t, q)?;
        if m >= t {
            return Err(Error::InvalidMessage(format!(
                "message {m} is not in Z_{t}"
            )));
        }
        self.lwe.encrypt(m * q / (2 * t), q, &ctx.noise, rng)
    }

    /// Decrypts `m ∈ Z_t` (rounds the phase to a multiple of `q/(2t)`, modulo `t`).
    pub(crate) fn decrypt_int(&self, ct: &LweCiphertext, t: u64) -> Result<u64> {
        check_t(t, ct.q)?;
        decode_phase(self.lwe.phase(ct)?, ct.q, t)
    }
}

/// `m ∈ Z_t` from the phase `m · q/(2t) + e` (rounded to a multiple of `q/(2t)`, modulo `t`).
pub(crate) fn decode_phase(phase: i64, q: u64, t: u64) -> Result<u64> {
    check_t(t, q)?;
    let p = phase.rem_euclid(q as i64) as u64;
    let step = q / (2 * t);
    Ok(((p + step / 2) / step) % t)
}

fn check_t(t: u64, q: u64) -> Result<()> {
    if !t.is_power_of_two() || t < 2 || 2 * t > q {
        return Err(Error::InvalidParameters(format!(
            "plaintext modulus t = {t} must be a power of two in [2, q/2 = {}]",
            q / 2
        )));
    }
    Ok(())
}

/// The public evaluation key: blind-rotation keys and the LWE key-switching key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BootstrapKey {
    /// Blind-rotation keys (`brk`, `ak`).
    pub brk: BlindRotationKey,
    /// LWE key switching `z → s`.
    pub ksk: LweKeySwitchKey,
    /// [`FhewParams::fingerprint`] of the parameters the key was made under (every
    /// numeric field: another `Q` or `Q_ks` with the same `n` and `N` is another key).
    pub(crate) params_id: u64,
}

impl BootstrapKey {
    /// [`FhewParams::fingerprint`] of the parameters the key was made under.
    pub fn params_fingerprint(&self) -> u64 {
        self.params_id
    }

    /// Generates the keys for `config` ([`FhewContext::generate_bootstrap_key`]).
    pub(crate) fn generate<R: RngCore + CryptoRng>(
        ctx: &FhewContext,
        sk: &FhewSecretKey,
        config: MethodConfig,
        rng: &mut R,
    ) -> Result<Self> {
        Self::generate_with_progress(ctx, sk, config, rng, &NoProgress)
    }

    /// [`BootstrapKey::generate`], reporting through `progress`
    /// ([`FhewContext::generate_bootstrap_key_with_progress`]).
    pub(crate) fn generate_with_progress<R: RngCore + CryptoRng>(
        ctx: &FhewContext,
        sk: &FhewSecretKey,
        config: MethodConfig,
        rng: &mut R,
        progress: &dyn Progress,
    ) -> Result<Self> {
        let p = &ctx.params;
        if sk.lwe.dim() != p.n || sk.rlwe.ring_id() != ctx.ring.fingerprint() {
            return Err(Error::ParameterMismatch(
                "the secret key was made for other FHEW parameters".into(),
            ));
        }
        // The key-switching key is the one unit after the blind-rotation keys.
        let brk = BlindRotationKey::generate_reporting(
            &ctx.ring, p, config, &sk.lwe, &sk.rlwe, &ctx.noise, rng, progress, 1,
        )?;
        let ksk = LweKeySwitchKey::generate(
            sk.rlwe.coeffs(),
            &sk.lwe,
            p.log_q_ks,
            p.log_b_ks,
            &ctx.noise,
            rng,
        )?;
        progress.inc(1);
        progress.finish();
        Ok(BootstrapKey {
            brk,
            ksk,
            params_id: ctx.params.fingerprint(),
        })
    }

    /// Bytes of the seed-compressed key: [`BlindRotationKey::compressed_bytes`] plus
    /// [`LweKeySwitchKey::compressed_bytes`].
    pub fn compressed_bytes(&self) -> usize {
        self.brk.compressed_bytes() + self.ksk.compressed_bytes()
    }
}

/// A binary gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gate {
    /// `a ∧ b`.
    And,
    /// `a ∨ b`.
    Or,
    /// `¬(a ∧ b)`.
    Nand,
    /// `¬(a ∨ b)`.
    Nor,
    /// `a ⊕ b`.
    Xor,
    /// `¬(a ⊕ b)`.
    Xnor,
}

impl Gate {
    /// Every gate.
    pub const ALL: [Gate; 6] = [
        Gate::And,
        Gate::Or,
        Gate::Nand,
        Gate::Nor,
        Gate::Xor,
        Gate::Xnor,
    ];

    /// The plaintext truth table.
    pub fn eval(self, a: bool, b: bool) -> bool {
        match self {
            Gate::And => a & b,
            Gate::Or => a | b,
            Gate::Nand => !(a & b),
            Gate::Nor => !(a | b),
            Gate::Xor => a ^ b,
            Gate::Xnor => !(a ^ b),
        }
    }
}

/// The arithmetic of the blind rotation's gadget products.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RotationArithmetic {
    /// Over the NTT-form keys, modulo `Q` (any parameters).
    Ntt,
    /// Over `f64` negacyclic FFTs of the keys ([`FourierKeys`]), for parameters where the
    /// products are exact in a double ([`FourierKeys::supports`]: `Q` below about 2^32).
    /// Gives the same results as [`RotationArithmetic::Ntt`] with
    /// [`GadgetDecomposition::Exact`] and is faster; the converted keys take as much
    /// memory again as the key (a third less with [`GadgetDecomposition::Approximate`] at
    /// `d_g = 3`).
    Fourier,
    /// [`RotationArithmetic::Fourier`] with the blind-rotation keys in 32-bit fixed point
    /// ([`FourierKeys::compact`]): half the key bytes streamed per gate, at the price of
    /// inexact products that add noise (about 4% more `σ_acc²` at OpenFHE's STD128 sets;
    /// `hekate bench fhew --products compact` measures it). Opt-in; never chosen by
    /// [`FhewEvaluator::new`].
    FourierCompact,
}

/// Bootstraps gates and tables with one key; holds the scratch space (no allocation per
/// call beyond the output ciphertext).
#[derive(Debug)]
pub struct FhewEvaluator {
    ctx: Arc<FhewContext>,
    key: Arc<BootstrapKey>,
    scratch: GswScratch,
    /// The Fourier keys and their buffers, when the products run over `f64`.
    fourier: Option<(Arc<FourierKeys>, FourierScratch)>,
    acc: RlweCiphertext,
    sign: Poly,
    ks_in: Vec<u32>,
    ks_out: Vec<u32>,
}

impl FhewEvaluator {
    /// An evaluator for `key`, with the fastest products that add no noise: over `f64`
    /// with the approximate gadget decomposition where the Fourier products are exact
    /// ([`FourierKeys::supports`]; the decomposition lowers `σ_acc²`, see
    /// [`GadgetDecomposition`]), and the exact NTT products elsewhere. Seed 002's and
    /// OpenFHE's own products (every digit, the noise of seed 002 Table 3) are
    /// [`FhewEvaluator::with_arithmetic`].
    ///
    /// `key` is a [`BootstrapKey`], or an `Arc` of one to share it with other evaluators
    /// (as [`FhewEvaluator::worker`] does).
    pub fn new(ctx: Arc<FhewContext>, key: impl Into<Arc<BootstrapKey>>) -> Result<Self> {
        let key = key.into();
        let (r, d) = Self::default_products(&ctx, &key);
        Self::with_products(ctx, key, r, d)
    }

    /// The products [`FhewEvaluator::new`] picks for `key`: Fourier with the approximate
    /// decomposition where the Fourier products are exact, the NTT with every digit
    /// elsewhere.
    pub fn default_products(
        ctx: &FhewContext,
        key: &BootstrapKey,
    ) -> (RotationArithmetic, GadgetDecomposition) {
        if FourierKeys::supports(&key.brk, &ctx.ring) {
            (
                RotationArithmetic::Fourier,
                GadgetDecomposition::Approximate,
            )
        } else {
            (RotationArithmetic::Ntt, GadgetDecomposition::Exact)
        }
    }

    /// Products by name, the spelling of the CLI and the Python bindings: `auto`
    /// ([`FhewEvaluator::default_products`]), `ntt`, `fourier` (every digit), `approx`
    /// (Fourier, approximate decomposition), `compact` ([`RotationArithmetic::FourierCompact`])
    /// or `compact-approx`.
    pub fn products_by_name(
        name: &str,
        ctx: &FhewContext,
        key: &BootstrapKey,
    ) -> Result<(RotationArithmetic, GadgetDecomposition)> {
        use GadgetDecomposition::{Approximate, Exact};
        Ok(match name {
            "auto" => Self::default_products(ctx, key),
            "ntt" => (RotationArithmetic::Ntt, Exact),
            "fourier" => (RotationArithmetic::Fourier, Exact),
            "approx" => (RotationArithmetic::Fourier, Approximate),
            "compact" => (RotationArithmetic::FourierCompact, Exact),
            "compact-approx" => (RotationArithmetic::FourierCompact, Approximate),
            _ => {
                return Err(Error::InvalidParameters(format!(
                    "unknown FHEW products {name:?}: use auto, ntt, fourier, approx, compact \
                     or compact-approx"
                )))
            }
        })
    }

    /// An evaluator for `key` with the given product arithmetic and the exact gadget
    /// decomposition; an error if the Fourier products would not be exact for these
    /// parameters.
    pub fn with_arithmetic(
        ctx: Arc<FhewContext>,
        key: Arc<BootstrapKey>,
        arithmetic: RotationArithmetic,
    ) -> Result<Self> {
        Self::with_products(ctx, key, arithmetic, GadgetDecomposition::Exact)
    }

    /// An evaluator for `key` with the given product arithmetic and gadget decomposition.
    /// [`GadgetDecomposition::Approximate`] (a third fewer transforms and key bytes at
    /// `d_g = 3`, and less noise: see [`GadgetDecomposition`]) is implemented for the
    /// Fourier products only; with [`RotationArithmetic::Ntt`] it is an error.
    ///
    /// Refuses a configuration whose predicted gate failure probability
    /// ([`super::noise::predicted_gate_failure`]) exceeds
    /// [`MAX_GATE_FAILURE`](super::noise::MAX_GATE_FAILURE) (`2^-32`);
    /// [`FhewEvaluator::with_failure_bound`] sets another bound.
    pub fn with_products(
        ctx: Arc<FhewContext>,
        key: Arc<BootstrapKey>,
        arithmetic: RotationArithmetic,
        decomposition: GadgetDecomposition,
    ) -> Result<Self> {
        Self::with_failure_bound(
            ctx,
            key,
            arithmetic,
            decomposition,
            super::noise::MAX_GATE_FAILURE,
        )
    }

    /// [`FhewEvaluator::with_products`] accepting a predicted gate failure probability up
    /// to `max_failure` (`1.0` accepts anything: benchmarks of the paper's noisy
    /// configurations, experiments). Keys combined by threshold parties carry more noise
    /// than the single-key prediction; their bound is
    /// [`ThresholdParams::gate_failure_probability`](super::ThresholdParams::gate_failure_probability).
    pub fn with_failure_bound(
        ctx: Arc<FhewContext>,
        key: Arc<BootstrapKey>,
        arithmetic: RotationArithmetic,
        decomposition: GadgetDecomposition,
        max_failure: f64,
    ) -> Result<Self> {
        if key.params_id != ctx.params.fingerprint() {
            return Err(Error::ParameterMismatch(format!(
                "the bootstrapping key was made under other FHEW parameters (fingerprint \
                 {:#018x}; this context's {} has {:#018x}); use the key generated with this \
                 context's parameters",
                key.params_id,
                ctx.params.name,
                ctx.params.fingerprint()
            )));
        }
        let cfg = key.brk.config;
        if let Some(f) =
            super::noise::predicted_gate_failure(&ctx.params, ctx.big_q, cfg, decomposition)?
        {
            if f > max_failure {
                return Err(Error::InvalidParameters(format!(
                    "{} on {} is predicted to get a gate wrong with probability {f:.2e} \
                     (above the bound {max_failure:.2e}): its blind-rotation noise is too \
                     large for the decision margin q/8; use RGSW keys, the approximate \
                     decomposition or another preset, or FhewEvaluator::with_failure_bound \
                     to accept it",
                    cfg.label(),
                    ctx.params.name
                )));
            }
        }
        let q8 = (ctx.big_q / 8) as i64;
        let sign = test_vector(&ctx, |u| if u < ctx.params.q / 2 { q8 } else { -q8 });
        let convert = || FourierKeys::with_decomposition(&key.brk, &ctx.ring, decomposition);
        let fourier = match arithmetic {
            RotationArithmetic::Ntt if decomposition == GadgetDecomposition::Approximate => {
                return Err(Error::InvalidParameters(
                    "the approximate gadget decomposition is implemented for the Fourier \
                     products only (RotationArithmetic::Fourier or FourierCompact)"
                        .into(),
                ))
            }
            RotationArithmetic::Ntt => None,
            RotationArithmetic::Fourier => Some(Arc::new(convert()?)),
            RotationArithmetic::FourierCompact => Some(Arc::new(convert()?.compact())),
        };
        Ok(Self::with_parts(ctx, key, fourier, sign))
    }

    /// An evaluator over the parts of one: fresh buffers, shared keys.
    fn with_parts(
        ctx: Arc<FhewContext>,
        key: Arc<BootstrapKey>,
        fourier: Option<Arc<FourierKeys>>,
        sign: Poly,
    ) -> Self {
        let ring = &ctx.ring;
        FhewEvaluator {
            scratch: GswScratch::new(ring),
            fourier: fourier.map(|k| {
                let s = k.scratch(ring);
                (k, s)
            }),
            acc: RlweCiphertext::zero(ring, Form::Coeff),
            sign,
            ks_in: vec![0; ctx.params.big_n],
            ks_out: vec![0; ctx.params.n],
            ctx,
            key,
        }
    }

    /// Another evaluator with this one's context, key and arithmetic, sharing its Fourier
    /// keys (no second conversion, no second copy in memory) but with its own buffers: one
    /// per thread, to evaluate independent gates in parallel.
    pub fn worker(&self) -> FhewEvaluator {
        Self::with_parts(
            self.ctx.clone(),
            self.key.clone(),
            self.fourier.as_ref().map(|(k, _)| k.clone()),
            self.sign.clone(),
        )
    }

    /// The context.
    pub fn context(&self) -> &Arc<FhewContext> {
        &self.ctx
    }

    /// The key.
    pub fn key(&self) -> &Arc<BootstrapKey> {
        &self.key
    }

    /// The arithmetic of the blind rotation's products.
    pub fn arithmetic(&self) -> RotationArithmetic {
        match &self.fourier {
            Some((k, _)) if k.is_compact() => RotationArithmetic::FourierCompact,
            Some(_) => RotationArithmetic::Fourier,
            None => RotationArithmetic::Ntt,
        }
    }

    /// The gadget decomposition of the blind rotation's products.
    pub fn decomposition(&self) -> GadgetDecomposition {
        self.fourier
            .as_ref()
            .map_or(GadgetDecomposition::Exact, |(k, _)| k.decomposition())
    }

    /// Bytes the evaluator keeps beside the key (the Fourier keys; 0 with the NTT).
    pub fn extra_memory_bytes(&self) -> usize {
        self.fourier.as_ref().map_or(0, |(k, _)| k.memory_bytes())
    }

    /// `self.acc = RLWE(f · Y^(β + <α, s>))` with this evaluator's arithmetic.
    fn blind_rotate(&mut self, ct: &LweCiphertext, f: &Poly) -> Result<()> {
        let ring = &self.ctx.ring;
        let brk = &self.key.brk;
        match &mut self.fourier {
            Some((keys, s)) => brk.blind_rotate_fourier(f, ct, ring, keys, s, &mut self.acc),
            None => brk.blind_rotate(f, ct, ring, &mut self.scratch, &mut self.acc),
        }
    }

    /// `NOT`: `q/4 - ct` (no bootstrapping).
    pub fn not(&self, ct: &LweCiphertext) -> LweCiphertext {
        ct.not_bit()
    }

    /// A bootstrapped binary gate: [`FhewEvaluator::gate_input`], the blind rotation with
    /// [`FhewEvaluator::gate_test_vector`], then [`FhewEvaluator::finish_gate`].
    pub fn gate(
        &mut self,
        gate: Gate,
        a: &LweCiphertext,
        b: &LweCiphertext,
    ) -> Result<LweCiphertext> {
        let ct = self.gate_input(gate, a, b)?;
        self.bootstrap_sign(&ct)
    }

    /// The ciphertext (modulo `q`) whose blind rotation with
    /// [`FhewEvaluator::gate_test_vector`] evaluates `gate` on `a` and `b`: their sum (twice
    /// it for XOR and XNOR) plus the gate's offset. The first step of
    /// [`FhewEvaluator::gate`], public so that another device can run the blind rotations
    /// of many gates at once (`hekate_gpu::fhew`) and finish each with
    /// [`FhewEvaluator::finish_gate`].
    pub fn gate_input(
        &self,
        gate: Gate,
        a: &LweCiphertext,
        b: &LweCiphertext,
    ) -> Result<LweCiphertext> {
        let q = self.ctx.params.q;
        self.check(a)?;
        self.check(b)?;
        let mut ct = a.clone();
        ct.add_assign(b)?;
        let off = match gate {
            Gate::And => 5 * q / 8,
            Gate::Or => 7 * q / 8,
            Gate::Nand => q / 8,
            Gate::Nor => 3 * q / 8,
            Gate::Xor => {
                ct.mul_scalar_assign(2);
                3 * q / 4
            }
            Gate::Xnor => {
                ct.mul_scalar_assign(2);
                q / 4
            }
        };
        ct.add_constant(off);
        Ok(ct)
    }

    /// The test polynomial of the gates (coefficient form): `Q/8` on the first half of
    /// `Z_q`, `-Q/8` on the second.
    pub fn gate_test_vector(&self) -> &Poly {
        &self.sign
    }

    /// The last steps of a gate from its blind rotation `acc` (coefficient form, the
    /// accumulator of [`FhewEvaluator::gate_input`]'s ciphertext rotated with
    /// [`FhewEvaluator::gate_test_vector`]): add `Q/8`, extract the constant coefficient,
    /// switch keys and moduli back to `(n, q)`. [`FhewEvaluator::gate`] is
    /// `finish_gate(blind_rotate(gate_input(..)))`.
    pub fn finish_gate(&mut self, acc: &RlweCiphertext) -> Result<LweCiphertext> {
        let big_n = self.ctx.params.big_n;
        for p in [&acc.a, &acc.b] {
            if p.n() != big_n || p.num_limbs() != 1 || p.form() != Form::Coeff {
                return Err(Error::ParameterMismatch(format!(
                    "a blind-rotation accumulator of degree {}, {} limbs and {:?} form; this \
                     context's is of degree N = {big_n}, one limb, coefficient form",
                    p.n(),
                    p.num_limbs(),
                    p.form()
                )));
            }
        }
        let offset = self.ctx.big_q / 8;
        let (ks_in, ks_out) = (&mut self.ks_in, &mut self.ks_out);
        Ok(extract_offset(
            &self.ctx,
            &self.key.ksk,
            acc,
            offset,
            ks_in,
            ks_out,
        ))
    }

    /// Three-input majority, bootstrapped once.
    pub fn majority(
        &mut self,
        a: &LweCiphertext,
        b: &LweCiphertext,
        c: &LweCiphertext,
    ) -> Result<LweCiphertext> {
        self.check(a)?;
        let mut ct = a.clone();
        ct.add_assign(b)?;
        ct.add_assign(c)?;
        ct.add_constant(5 * self.ctx.params.q / 8);
        self.bootstrap_sign(&ct)
    }

    /// Refreshes a bit ciphertext (the identity gate).
    pub fn refresh(&mut self, a: &LweCiphertext) -> Result<LweCiphertext> {
        self.check(a)?;
        let mut ct = a.clone();
        ct.add_constant(7 * self.ctx.params.q / 8);
        self.bootstrap_sign(&ct)
    }

    fn check(&self, ct: &LweCiphertext) -> Result<()> {
        ct.validate()?;
        if ct.q != self.ctx.params.q || ct.dim() != self.ctx.params.n {
            return Err(Error::ParameterMismatch(format!(
                "ciphertext (n, q) = ({}, {}) does not match the parameters ({}, {})",
                ct.dim(),
                ct.q,
                self.ctx.params.n,
                self.ctx.params.q
            )));
        }
        Ok(())
    }

    fn bootstrap_sign(&mut self, ct: &LweCiphertext) -> Result<LweCiphertext> {
        let f = std::mem::replace(&mut self.sign, Poly::placeholder());
        let r = self.bootstrap(ct, &f, self.ctx.big_q / 8);
        self.sign = f;
        r
    }

    /// Evaluates `F: Z_t → Z_t` on `ct` encrypting `m ∈ Z_t` (see the module docs).
    pub fn lut(
        &mut self,
        ct: &LweCiphertext,
        t: u64,
        table: impl Fn(u64) -> u64,
    ) -> Result<LweCiphertext> {
        self.check(ct)?;
        let q = self.ctx.params.q;
        check_t(t, q)?;
        let delta = (self.ctx.big_q / (2 * t)) as i64;
        let f = test_vector(&self.ctx, |u| {
            let m = u * 2 * t / q;
            if m < t {
                (table(m) % t) as i64 * delta
            } else {
                -((table(m - t) % t) as i64 * delta)
            }
        });
        let mut c = ct.clone();
        c.add_constant(q / (4 * t));
        self.bootstrap(&c, &f, 0)
    }

    /// Bootstraps `ct` with the test polynomial `f` (coefficient form) and adds `offset`
    /// (modulo `Q`) to the extracted ciphertext before switching back to `q`.
    pub fn bootstrap(
        &mut self,
        ct: &LweCiphertext,
        f: &Poly,
        offset: u64,
    ) -> Result<LweCiphertext> {
        self.check(ct)?;
        let big_n = self.ctx.params.big_n;
        if f.n() != big_n || f.num_limbs() != 1 || f.form() != Form::Coeff {
            return Err(Error::ParameterMismatch(format!(
                "the test polynomial has degree {}, {} limbs and {:?} form; bootstrapping \
                 needs one from this context's ring (degree N = {big_n}, one limb, \
                 coefficient form): build it with fhew::test_vector",
                f.n(),
                f.num_limbs(),
                f.form()
            )));
        }
        self.blind_rotate(ct, f)?;
        let (acc, ks_in, ks_out) = (&self.acc, &mut self.ks_in, &mut self.ks_out);
        Ok(extract_offset(
            &self.ctx,
            &self.key.ksk,
            acc,
            offset,
            ks_in,
            ks_out,
        ))
    }

    /// The phase error of a blind rotation of `ct` with the test polynomial `f`: every
    /// coefficient of `phase(acc) - f · Y^u` (centered), for the noise measurements of
    /// seed 002 Table 3.
    pub fn blind_rotation_error(
        &mut self,
        ct: &LweCiphertext,
        f: &Poly,
        sk: &FhewSecretKey,
    ) -> Result<Vec<i64>> {
        let ring = self.ctx.ring.clone();
        self.blind_rotate(ct, f)?;
        let phase = self.acc.phase(&ring, &sk.rlwe);
        let u = (sk.lwe.phase(ct)?).rem_euclid(ct.q as i64) as usize;
        let mut expect = f.clone();
        expect.mul_monomial_assign(u * (2 * ring.n() / ct.q as usize), &ring);
        let q = ring.modulus(0, 1);
        Ok(phase
            .data()
            .iter()
            .zip(expect.data())
            .map(|(&x, &y)| q.center(q.sub(x, y)))
            .collect())
    }
}

/// [`extract_and_switch`] of the accumulator `acc` with `offset` added to its constant
/// coefficient (modulo `Q`).
fn extract_offset(
    ctx: &FhewContext,
    ksk: &LweKeySwitchKey,
    acc: &RlweCiphertext,
    offset: u64,
    ks_in: &mut [u32],
    ks_out: &mut [u32],
) -> LweCiphertext {
    let big_q = ctx.big_q;
    let b0 = (acc.b.data()[0] + offset % big_q) % big_q;
    extract_and_switch(ctx, ksk, acc.a.data(), b0, ks_in, ks_out)
}

/// The LWE ciphertext of the constant coefficient of `(a, b)` (coefficient form mod `Q`,
/// with `b0` the constant coefficient of `b`): extracted as `LWE_(Q, z)` of dimension `N`,
/// switched to `Q_ks`, key-switched to `s` with `ksk` and switched to `q` (the last steps
/// of every bootstrapping). `ks_in` (length `N`) and `ks_out` (length `n`) are scratch.
pub(crate) fn extract_and_switch(
    ctx: &FhewContext,
    ksk: &LweKeySwitchKey,
    a: &[u64],
    b0: u64,
    ks_in: &mut [u32],
    ks_out: &mut [u32],
) -> LweCiphertext {
    let p = &ctx.params;
    let big_q = ctx.big_q;
    let n = p.big_n;
    let qks = 1u64 << p.log_q_ks;
    let sw = |x: u64| super::lwe::round_div(x, qks, big_q) as u32;
    ks_in[0] = sw(a[0]);
    for i in 1..n {
        let v = a[n - i];
        ks_in[i] = sw(if v == 0 { 0 } else { big_q - v });
    }
    let b = ksk.switch(ks_in, sw(b0), ks_out);
    let to_q = |x: u32| super::lwe::round_div(x as u64, p.q, qks);
    LweCiphertext {
        a: ks_out.iter().map(|&x| to_q(x)).collect(),
        b: to_q(b),
        q: p.q,
    }
}

/// The test polynomial of the negacyclic `G: Z_q → Z_Q` given on `[0, q)` by `g(u)`
/// (see the module documentation).
pub fn test_vector(ctx: &FhewContext, g: impl Fn(u64) -> i64) -> Poly {
    let n = ctx.params.big_n;
    let y = (2 * n) as u64 / ctx.params.q;
    let mut c = vec![0i64; n];
    c[0] = g(0);
    for (j, x) in c.iter_mut().enumerate().skip(1) {
        *x = g((2 * n as u64 - j as u64) / y);
    }
    ctx.ring.from_signed(&c, 1, 0)
}
