//! CKKS parameters: the builder, its validation, and the context of precomputations.

use super::encoder::Encoder;
use super::scale::Scale;
use crate::math::PrimeGenerator;
use crate::params::security::{self, SecurityLevel};
use crate::ring::RingContext;
use crate::rlwe::keys::NOISE_SIGMA;
use crate::rlwe::keyswitch::{KeyStorage, KeySwitchEngine, KeySwitchMethod};
use crate::rlwe::SecretDistribution;
use crate::{Error, Result};
use std::sync::Arc;

/// Size of the special primes when [`CkksParameters::log_p`] is not given (as many as
/// exceed the largest key-switching digit by `log2(σ sqrt(1.5 dnum)) + 1` bits, so that
/// key-switching noise stays at the level of rounding noise): 50 bits, so
/// that every limb of `P` takes the AVX-512 IFMA paths (NTT, base conversion, products —
/// primes below 2^50), which on CPUs with IFMA makes key switching about 1.3x faster than
/// with fewer 61-bit primes, at the price of one or two more primes. `log(QP)` stays about
/// the same (no security cost).
pub const DEFAULT_SPECIAL_PRIME_BITS: u32 = 50;

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
    log_n: u32,
    log_q: Vec<u32>,
    log_p: Option<Vec<u32>>,
    q: Option<Vec<u64>>,
    p: Option<Vec<u64>>,
    dnum: Option<usize>,
    secret: SecretDistribution,
    scale: f64,
    security: SecurityLevel,
    key_switching: KeySwitchMethod,
    key_storage: KeyStorage,
}

impl CkksParameters {
    /// Parameters for ring degree `N = 2^log_n`, with defaults: a dense ternary secret,
    /// 128-bit security, `dnum = 3` (fewer if the chain is short; with fixed special
    /// primes, the smallest `dnum` whose digits they cover) and, unless given,
    /// [`DEFAULT_SPECIAL_PRIME_BITS`]-bit special primes covering the largest digit.
    pub fn new(log_n: u32) -> Self {
        CkksParameters {
            log_n,
            log_q: Vec::new(),
            log_p: None,
            q: None,
            p: None,
            dnum: None,
            secret: SecretDistribution::Ternary,
            scale: 0.0,
            security: SecurityLevel::Bits128,
            key_switching: KeySwitchMethod::Hybrid,
            key_storage: KeyStorage::Expanded,
        }
    }

    /// The key-switching method (default [`KeySwitchMethod::Hybrid`]): KLSS (seed 000),
    /// linear (seed 001), a per-level mix of hybrid and KLSS (`Mixed`), or `Auto` (the
    /// calibrated cost model's pick for every level, [`CostModel::plan`](crate::rlwe::keyswitch::cost::CostModel::plan)).
    /// Every key-switching operation (relinearization, rotations, conjugation, hoisting)
    /// runs on it; all methods give the same results word for word.
    pub fn key_switching(mut self, method: KeySwitchMethod) -> Self {
        self.key_switching = method;
        self
    }

    /// How KLSS keys are kept in memory (default [`KeyStorage::Expanded`]; `Compact` also
    /// keeps the ordinary key). Serialized keys are always in the ordinary, seed-compressed
    /// form and are expanded on load.
    pub fn key_storage(mut self, storage: KeyStorage) -> Self {
        self.key_storage = storage;
        self
    }

    /// Bit sizes of the chain primes `q_0, ..., q_L` (each in `[20, 61]`).
    pub fn log_q(mut self, bits: &[u32]) -> Self {
        self.log_q = bits.to_vec();
        self
    }

    /// Bit sizes of the special primes `P` (each in `[20, 61]`). If not set, enough
    /// [`DEFAULT_SPECIAL_PRIME_BITS`]-bit primes to exceed the largest key-switching digit
    /// by the noise margin are used. An explicit `P` smaller than the largest digit is
    /// refused; one only just above it works but key switching then adds up to
    /// `N σ² dnum (Q_j/P)² / 12` of noise variance, more than rounding unless `P` exceeds
    /// the digit by `log2(σ sqrt(1.5 dnum))` bits.
    pub fn log_p(mut self, bits: &[u32]) -> Self {
        self.log_p = Some(bits.to_vec());
        self
    }

    /// Explicit chain primes (instead of [`CkksParameters::log_q`]), e.g. to reproduce a
    /// saved context. They are validated like generated ones.
    pub fn q_primes(mut self, primes: &[u64]) -> Self {
        self.q = Some(primes.to_vec());
        self
    }

    /// Explicit special primes (instead of [`CkksParameters::log_p`]).
    pub fn p_primes(mut self, primes: &[u64]) -> Self {
        self.p = Some(primes.to_vec());
        self
    }

    /// Number of key-switching digits `dnum` (β in seed 003), `1 <= dnum <= L + 1`.
    pub fn dnum(mut self, dnum: usize) -> Self {
        self.dnum = Some(dnum);
        self
    }

    /// The secret-key distribution.
    pub fn secret(mut self, secret: SecretDistribution) -> Self {
        self.secret = secret;
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
        self.security = level;
        self
    }

    /// Validates the parameters, generates the primes and builds every precomputed table.
    pub fn build(self) -> Result<Arc<CkksContext>> {
        CkksContext::new(self)
    }
}

/// A validated CKKS parameter set with its precomputations: the ring, the encoder's
/// FFTs and the key-switching engine. Shared (`Arc`) by keys, ciphertexts and evaluators.
#[derive(Debug)]
pub struct CkksContext {
    ring: Arc<RingContext>,
    dnum: usize,
    secret: SecretDistribution,
    default_scale: Scale,
    security: SecurityLevel,
    keyswitcher: KeySwitchEngine,
    key_storage: KeyStorage,
    encoder: Encoder,
}

fn check_bits(what: &str, bits: &[u32]) -> Result<()> {
    if let Some(b) = bits.iter().find(|&&b| !(20..=61).contains(&b)) {
        return Err(Error::InvalidParameters(format!(
            "{what} prime size {b} bits is outside [20, 61]"
        )));
    }
    Ok(())
}

impl CkksContext {
    fn new(p: CkksParameters) -> Result<Arc<Self>> {
        if !(1..=17).contains(&p.log_n) {
            return Err(Error::InvalidParameters(format!(
                "log N = {} is outside [1, 17]",
                p.log_n
            )));
        }
        let n = 1usize << p.log_n;
        let mut gen = PrimeGenerator::new(n)?;
        // The chain.
        let q = match &p.q {
            Some(q) => {
                gen.exclude(q);
                q.clone()
            }
            None => {
                if p.log_q.is_empty() {
                    return Err(Error::InvalidParameters(
                        "no modulus chain: set log_q (e.g. &[50, 40, 40]) or q_primes".into(),
                    ));
                }
                check_bits("chain", &p.log_q)?;
                if let Some(pp) = &p.p {
                    gen.exclude(pp);
                }
                p.log_q
                    .iter()
                    .map(|&b| gen.next_prime(b))
                    .collect::<Result<Vec<_>>>()?
            }
        };
        let l1 = q.len();
        let log_q: Vec<f64> = q.iter().map(|&x| (x as f64).log2()).collect();
        let max_digit_for = |dnum: usize| -> f64 {
            let alpha = l1.div_ceil(dnum);
            (0..dnum)
                .map(|j| {
                    log_q[(j * alpha).min(l1)..((j + 1) * alpha).min(l1)]
                        .iter()
                        .sum::<f64>()
                })
                .fold(0.0, f64::max)
        };
        // The size of P, if the user fixed it.
        let given_log_p: Option<f64> = match (&p.p, &p.log_p) {
            (Some(pp), _) => Some(pp.iter().map(|&x| (x as f64).log2()).sum()),
            (None, Some(bits)) => Some(bits.iter().map(|&b| b as f64 - 0.5).sum()),
            (None, None) => None,
        };
        // Default dnum: 3, or with a fixed P the smallest dnum whose digits P covers.
        let dnum = match (p.dnum, given_log_p) {
            (Some(d), _) => d,
            (None, None) => 3.min(l1),
            (None, Some(lp)) => (1..=l1).find(|&d| max_digit_for(d) <= lp).unwrap_or(l1),
        };
        if dnum == 0 || dnum > l1 {
            return Err(Error::InvalidParameters(format!(
                "dnum = {dnum} must be in [1, L + 1 = {l1}]"
            )));
        }
        let max_digit = max_digit_for(dnum);
        // Special primes.
        let pp = match (&p.p, &p.log_p) {
            (Some(pp), _) => pp.clone(),
            (None, Some(bits)) => {
                check_bits("special", bits)?;
                bits.iter()
                    .map(|&b| gen.next_prime(b))
                    .collect::<Result<Vec<_>>>()?
            }
            (None, None) => {
                // Enough DEFAULT_SPECIAL_PRIME_BITS-bit primes to exceed the largest digit
                // by the margin that keeps key-switching noise at the rounding level:
                // N σ² dnum Q_j² / (12 P²) <= (1 + 2N/3) / 12 holds once
                // P >= Q_j σ sqrt(1.5 dnum) (about 3 bits for dnum = 3); one bit more for
                // slack.
                let margin = (NOISE_SIGMA * (1.5 * dnum as f64).sqrt()).log2() + 1.0;
                let target = max_digit + margin;
                let mut pp = Vec::new();
                let mut log_p = 0.0;
                while log_p < target || pp.is_empty() {
                    let p = gen.next_prime(DEFAULT_SPECIAL_PRIME_BITS)?;
                    log_p += (p as f64).log2();
                    pp.push(p);
                }
                pp
            }
        };
        let log_p: f64 = pp.iter().map(|&x| (x as f64).log2()).sum();
        if pp.is_empty() {
            return Err(Error::InvalidParameters(
                "hybrid key switching needs at least one special prime (log_p)".into(),
            ));
        }
        if log_p < max_digit {
            return Err(Error::InvalidParameters(format!(
                "the special modulus P ({log_p:.1} bits) is smaller than the largest \
                 key-switching digit ({max_digit:.1} bits), so key switching would add noise \
                 larger than the message: add special primes, or raise dnum"
            )));
        }
        let log_qp = log_q.iter().sum::<f64>() + log_p;
        security::check(n, log_qp, p.security)?;
        let scale = if p.scale == 0.0 {
            // Default: the size of the second prime (the usual rescaling prime), else 2^40.
            Scale::from_bits(q.get(1).map(|&x| 64 - x.leading_zeros() - 1).unwrap_or(40))
        } else {
            Scale::from_f64(p.scale).ok_or_else(|| {
                Error::InvalidParameters(format!("scale {} must be positive and finite", p.scale))
            })?
        };
        if let SecretDistribution::HammingWeight(h) = p.secret {
            if h == 0 || h > n {
                return Err(Error::InvalidParameters(format!(
                    "Hamming weight h = {h} must be in [1, N = {n}]"
                )));
            }
            // The table is for uniform ternary and Gaussian secrets; sparse secrets are
            // open to hybrid attacks it does not account for.
            if p.security != SecurityLevel::NotChecked {
                return Err(Error::Insecure(format!(
                    "the HomomorphicEncryption.org table covers uniform ternary and Gaussian \
                     secrets only; a secret of Hamming weight {h} needs its own estimate (e.g. \
                     with the lattice estimator): use SecretDistribution::Ternary, or opt in \
                     with SecurityLevel::NotChecked"
                )));
            }
        }
        let ring = RingContext::new(n, &q, &pp)?;
        let keyswitcher = KeySwitchEngine::new(ring.clone(), dnum, p.key_switching, None)?;
        Ok(Arc::new(CkksContext {
            encoder: Encoder::new(ring.clone()),
            ring,
            dnum,
            secret: p.secret,
            default_scale: scale,
            security: p.security,
            keyswitcher,
            key_storage: p.key_storage,
        }))
    }

    /// The ring (chain, special primes, NTT plans).
    pub fn ring(&self) -> &Arc<RingContext> {
        &self.ring
    }

    /// Ring degree `N`.
    pub fn n(&self) -> usize {
        self.ring.n()
    }

    /// The largest number of slots, `N / 2`.
    pub fn max_slots(&self) -> usize {
        self.ring.n() / 2
    }

    /// The top level `L` (a fresh ciphertext has `L + 1` limbs).
    pub fn max_level(&self) -> usize {
        self.ring.q_len() - 1
    }

    /// The chain primes `q_0 .. q_L`.
    pub fn q_primes(&self) -> Vec<u64> {
        self.ring.q().moduli().iter().map(|m| m.value()).collect()
    }

    /// The special primes.
    pub fn p_primes(&self) -> Vec<u64> {
        self.ring.p().moduli().iter().map(|m| m.value()).collect()
    }

    /// `log2(QP)`.
    pub fn log_qp(&self) -> f64 {
        self.ring.q().log_product() + self.ring.p().log_product()
    }

    /// Number of key-switching digits.
    pub fn dnum(&self) -> usize {
        self.dnum
    }

    /// The secret-key distribution.
    pub fn secret_distribution(&self) -> SecretDistribution {
        self.secret
    }

    /// The default encoding scale.
    pub fn default_scale(&self) -> &Scale {
        &self.default_scale
    }

    /// The security level the parameters were checked against.
    pub fn security(&self) -> SecurityLevel {
        self.security
    }

    /// The key-switching engine.
    pub fn keyswitcher(&self) -> &KeySwitchEngine {
        &self.keyswitcher
    }

    /// The key-switching method in use (`Auto` resolved).
    pub fn key_switch_method(&self) -> KeySwitchMethod {
        self.keyswitcher.method()
    }

    /// How KLSS keys are kept in memory.
    pub fn key_storage(&self) -> KeyStorage {
        self.key_storage
    }

    /// The encoder.
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default special primes exceed every digit by the noise margin, whatever the
    /// chain and dnum (the N = 2^17 regression: 6 x 50-bit primes against a 300-bit digit
    /// made key switching 16x noisier than rounding).
    #[test]
    fn default_special_modulus_keeps_the_noise_margin() {
        for (log_n, chain, dnum) in [
            (13u32, vec![60u32, 40, 40, 40, 40, 40, 40], 3usize),
            (14, vec![60, 40, 40, 40, 40, 40, 40, 40, 40, 40], 2),
            (17, [vec![60], vec![40; 20]].concat(), 3),
            (15, vec![59, 41, 50, 50], 1),
            (16, [vec![60], vec![50; 15]].concat(), 16),
        ] {
            let ctx = CkksParameters::new(log_n)
                .log_q(&chain)
                .dnum(dnum)
                .security(SecurityLevel::NotChecked)
                .build()
                .unwrap();
            let q: Vec<f64> = ctx.q_primes().iter().map(|&x| (x as f64).log2()).collect();
            let alpha = q.len().div_ceil(dnum);
            let max_digit = q
                .chunks(alpha)
                .map(|c| c.iter().sum::<f64>())
                .fold(0.0, f64::max);
            let log_p: f64 = ctx.p_primes().iter().map(|&x| (x as f64).log2()).sum();
            let margin = (NOISE_SIGMA * (1.5 * dnum as f64).sqrt()).log2();
            assert!(
                log_p >= max_digit + margin,
                "N = 2^{log_n}, dnum {dnum}: log P {log_p:.2} < digit {max_digit:.2} + {margin:.2}"
            );
        }
    }
}
