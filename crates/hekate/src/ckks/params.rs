//! CKKS parameters: the builder and the context of precomputations.
//!
//! The chain, the special primes, `dnum`, the secret distribution and the security check
//! are the RLWE core's ([`ChainBuilder`], [`RlweParameters`]); CKKS adds the default
//! scale and the encoder.

use super::encoder::Encoder;
use super::scale::Scale;
use crate::params::ckks::CkksPreset;
use crate::params::security::SecurityLevel;
use crate::ring::RingContext;
use crate::rlwe::keyswitch::{KeyStorage, KeySwitchEngine, KeySwitchMethod};
use crate::rlwe::params::{ChainBuilder, RlweParameters};
use crate::rlwe::SecretDistribution;
use crate::{Error, Result};
use std::sync::Arc;

/// A CKKS parameter set, before precomputation. Build one with [`CkksParameters::new`]
/// and the setters, then [`CkksParameters::build`] it into a [`CkksContext`].
///
/// ```
/// use hekate::ckks::CkksParameters;
/// let ctx = CkksParameters::new(13)          // N = 2^13
///     .log_q(&[50, 40, 40])                  // q_0 .. q_2 (L = 2)
///     .log_p(&[60])                          // special primes for key switching
///     .log_scale(40)
///     .build()
///     .unwrap();
/// assert_eq!(ctx.max_level(), 2);
/// assert_eq!(ctx.dnum(), 3); // one prime per digit, so the 60-bit P covers each
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CkksParameters {
    chain: ChainBuilder,
    scale: f64,
}

impl CkksParameters {
    /// Parameters for ring degree `N = 2^log_n`, with defaults: a dense ternary secret,
    /// 128-bit security, `dnum = 3` (fewer if the chain is short; with fixed special
    /// primes, the smallest `dnum` whose digits they cover) and, unless given,
    /// [`DEFAULT_SPECIAL_PRIME_BITS`](crate::rlwe::params::DEFAULT_SPECIAL_PRIME_BITS)-bit special primes covering the largest digit.
    pub fn new(log_n: u32) -> Self {
        CkksParameters {
            chain: ChainBuilder::new(log_n),
            scale: 0.0,
        }
    }

    /// The key-switching method (default [`KeySwitchMethod::Hybrid`]): KLSS (seed 000),
    /// linear (seed 001), a per-level mix of hybrid and KLSS (`Mixed`), or `Auto` (the
    /// calibrated cost model's pick for every level, [`CostModel::plan`](crate::rlwe::keyswitch::cost::CostModel::plan)).
    /// Every key-switching operation (relinearization, rotations, conjugation, hoisting)
    /// runs on it; all methods give the same results word for word.
    pub fn key_switching(mut self, method: KeySwitchMethod) -> Self {
        self.chain = self.chain.key_switching(method);
        self
    }

    /// How KLSS keys are kept in memory (default [`KeyStorage::ExpandedOnly`];
    /// [`KeyStorage::ExpandedWithOrdinary`] also keeps the ordinary key). Serialized keys
    /// are always in the ordinary, seed-compressed form and are expanded on load.
    pub fn key_storage(mut self, storage: KeyStorage) -> Self {
        self.chain = self.chain.key_storage(storage);
        self
    }

    /// Bit sizes of the chain primes `q_0, ..., q_L` (each in `[20, 61]`).
    pub fn log_q(mut self, bits: &[u32]) -> Self {
        self.chain = self.chain.log_q(bits);
        self
    }

    /// Bit sizes of the special primes `P` (each in `[20, 61]`). If not set, enough
    /// [`DEFAULT_SPECIAL_PRIME_BITS`](crate::rlwe::params::DEFAULT_SPECIAL_PRIME_BITS)-bit primes to exceed the largest key-switching digit
    /// by the noise margin are used. An explicit `P` smaller than the largest digit by
    /// more than [`DIGIT_EXCESS_BITS`](crate::rlwe::params::DIGIT_EXCESS_BITS) (one bit)
    /// is refused; one near it works but key switching then adds up to
    /// `N σ² dnum (Q_j/P)² / 12` of noise variance, more than rounding unless `P` exceeds
    /// the digit by `log2(σ sqrt(1.5 dnum))` bits.
    pub fn log_p(mut self, bits: &[u32]) -> Self {
        self.chain = self.chain.log_p(bits);
        self
    }

    /// Explicit chain primes (instead of [`CkksParameters::log_q`]), e.g. to reproduce a
    /// saved context. They are validated like generated ones.
    pub fn q_primes(mut self, primes: &[u64]) -> Self {
        self.chain = self.chain.q_primes(primes);
        self
    }

    /// Explicit special primes (instead of [`CkksParameters::log_p`]).
    pub fn p_primes(mut self, primes: &[u64]) -> Self {
        self.chain = self.chain.p_primes(primes);
        self
    }

    /// Number of key-switching digits `dnum` (β in seed 003), `1 <= dnum <= L + 1`.
    pub fn dnum(mut self, dnum: usize) -> Self {
        self.chain = self.chain.dnum(dnum);
        self
    }

    /// Hybrid digits grouped by bits under `P` instead of `α = ceil((L + 1) / dnum)` primes
    /// each ([`DigitPartition::by_bits`](crate::rlwe::keyswitch::DigitPartition::by_bits)):
    /// on a chain of mixed prime sizes, fewer digits per level (faster key switching,
    /// smaller keys) under the same noise bound. Needs `log_p` (or `p_primes`), hybrid key
    /// switching and no `dnum`, which the grouping sets.
    pub fn digits_by_bits(mut self) -> Self {
        self.chain = self.chain.digits_by_bits();
        self
    }

    /// The secret-key distribution.
    pub fn secret(mut self, secret: SecretDistribution) -> Self {
        self.chain = self.chain.secret(secret);
        self
    }

    /// The default encoding scale `2^bits`.
    pub fn log_scale(mut self, bits: u32) -> Self {
        self.scale = 2f64.powi(bits as i32);
        self
    }

    /// The default encoding scale (any positive number).
    pub fn scale(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }

    /// The security level checked against the HomomorphicEncryption.org table (default
    /// 128 bits). [`SecurityLevel::NotChecked`] is an explicit opt-out for experiments.
    pub fn security(mut self, level: SecurityLevel) -> Self {
        self.chain = self.chain.security(level);
        self
    }

    /// Validates the parameters, generates the primes and builds every precomputed table.
    pub fn build(self) -> Result<Arc<CkksContext>> {
        CkksContext::new(self)
    }

    /// A builder holding a named parameter set ([`crate::params::ckks`]): its ring
    /// degree, chain and special prime sizes, `dnum` and scale, with the defaults for the
    /// rest (128-bit check, dense ternary secret, hybrid key switching), which the setters
    /// can still change.
    pub fn from_preset(preset: &CkksPreset) -> Self {
        CkksParameters::new(preset.log_n)
            .log_q(preset.log_q)
            .log_p(preset.log_p)
            .dnum(preset.dnum)
            .log_scale(preset.log_scale)
    }
}

/// A validated CKKS parameter set with its precomputations: the RLWE parameters (ring,
/// `dnum`, key-switching engine), the default scale and the encoder's FFTs. Shared (`Arc`)
/// by keys, ciphertexts and evaluators.
#[derive(Debug)]
pub struct CkksContext {
    rlwe: Arc<RlweParameters>,
    default_scale: Scale,
    encoder: Encoder,
}

impl CkksContext {
    fn new(p: CkksParameters) -> Result<Arc<Self>> {
        let explicit_scale = if p.scale == 0.0 {
            None
        } else {
            Some(Scale::from_f64(p.scale).ok_or_else(|| {
                Error::InvalidParameters(format!("scale {} must be positive and finite", p.scale))
            })?)
        };
        let rlwe = p.chain.build()?;
        // Default: the size of the second prime (the usual rescaling prime), else 2^40.
        let default_scale = explicit_scale.unwrap_or_else(|| {
            let q1 = rlwe.ring().q().moduli().get(1).map(|m| m.value());
            Scale::from_bits(q1.map(|x| 64 - x.leading_zeros() - 1).unwrap_or(40))
        });
        Ok(Arc::new(CkksContext {
            encoder: Encoder::new(rlwe.ring().clone()),
            rlwe: Arc::new(rlwe),
            default_scale,
        }))
    }

    /// The context of a named parameter set ([`crate::params::ckks`], e.g.
    /// [`PN15QP880`](crate::params::ckks::PN15QP880)), with the defaults of
    /// [`CkksParameters::from_preset`].
    pub fn from_preset(preset: &CkksPreset) -> Result<Arc<Self>> {
        CkksParameters::from_preset(preset).build()
    }

    /// The scheme-independent RLWE parameters this context wraps.
    pub fn rlwe(&self) -> &Arc<RlweParameters> {
        &self.rlwe
    }

    /// The ring (chain, special primes, NTT plans).
    pub fn ring(&self) -> &Arc<RingContext> {
        self.rlwe.ring()
    }

    /// Ring degree `N`.
    pub fn n(&self) -> usize {
        self.rlwe.n()
    }

    /// The largest number of slots, `N / 2`.
    pub fn max_slots(&self) -> usize {
        self.n() / 2
    }

    /// The top level `L` (a fresh ciphertext has `L + 1` limbs).
    pub fn max_level(&self) -> usize {
        self.rlwe.max_level()
    }

    /// The chain primes `q_0 .. q_L`.
    pub fn q_primes(&self) -> Vec<u64> {
        self.rlwe.q_primes()
    }

    /// The special primes.
    pub fn p_primes(&self) -> Vec<u64> {
        self.rlwe.p_primes()
    }

    /// `log2(QP)`.
    pub fn log_qp(&self) -> f64 {
        self.rlwe.log_qp()
    }

    /// Number of key-switching digits `dnum` (β in seed 003).
    pub fn dnum(&self) -> usize {
        self.rlwe.dnum()
    }

    /// The hybrid gadget's digits.
    pub fn digits(&self) -> &crate::rlwe::keyswitch::DigitPartition {
        self.rlwe.digits()
    }

    /// The secret-key distribution.
    pub fn secret_distribution(&self) -> SecretDistribution {
        self.rlwe.secret_distribution()
    }

    /// The default encoding scale.
    pub fn default_scale(&self) -> &Scale {
        &self.default_scale
    }

    /// The security level the parameters were checked against.
    pub fn security(&self) -> SecurityLevel {
        self.rlwe.security()
    }

    /// The key-switching engine.
    pub fn keyswitcher(&self) -> &KeySwitchEngine {
        self.rlwe.keyswitcher()
    }

    /// The key-switching method in use (`Auto` resolved).
    pub fn key_switch_method(&self) -> KeySwitchMethod {
        self.rlwe.key_switch_method()
    }

    /// How KLSS keys are kept in memory.
    pub fn key_storage(&self) -> KeyStorage {
        self.rlwe.key_storage()
    }

    /// The encoder.
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }
}
