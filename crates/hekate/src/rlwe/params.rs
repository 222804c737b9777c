//! Parameters every RLWE scheme shares: the modulus chain `q_0 .. q_L`, the special primes
//! `P` and the number of key-switching digits `dnum`, the secret distribution, the
//! security check, and the key-switching engine built on them.
//!
//! A scheme wraps an [`RlweParameters`] and adds its own rules (CKKS: the scale and the
//! encoder; BFV/BGV: the plaintext modulus). Build one with [`ChainBuilder`]:
//!
//! ```
//! use hekate::rlwe::params::ChainBuilder;
//! let params = ChainBuilder::new(13).log_q(&[50, 40, 40]).log_p(&[60]).build()?;
//! assert_eq!((params.max_level(), params.dnum()), (2, 3));
//! # Ok::<(), hekate::Error>(())
//! ```

use crate::math::PrimeGenerator;
use crate::params::security::{self, SecurityLevel};
use crate::ring::RingContext;
use crate::rlwe::keyswitch::{
    digit_margin_bits, DigitPartition, KeyStorage, KeySwitchEngine, KeySwitchMethod, SwitchingKey,
};
use crate::rlwe::SecretDistribution;
use crate::{Error, Result};
use std::sync::Arc;

/// Size of the special primes when [`ChainBuilder::log_p`] is not given: as many as
/// exceed the largest key-switching digit by `log2(σ sqrt(1.5 dnum)) + 1` bits, so that
/// key-switching noise stays at the level of rounding noise. 50 bits keeps every limb of
/// `P` below 2^50, the bound of the AVX-512 IFMA paths (NTT, base conversion, products);
/// `log(QP)` stays about the same as with fewer, larger primes (no security cost).
pub const DEFAULT_SPECIAL_PRIME_BITS: u32 = 50;

/// How far (bits) the largest key-switching digit `D` may exceed the special modulus `P`.
/// Hybrid key switching adds `(D / P)`-scaled noise of about `σ sqrt(dnum N)` to the
/// ModDown's rounding noise: a digit up to `2P` at most doubles it, which is what
/// digits of `|P|` primes of `P`'s size come to (seed 003's Set V: two 50-bit primes per
/// digit against two 50-bit special primes, a fraction of a bit apart either way; Lattigo
/// forms its digits so and checks nothing). Larger excesses are refused. The default `dnum`
/// with a fixed `P` is still the smallest whose digits `P` strictly covers.
pub const DIGIT_EXCESS_BITS: f64 = 1.0;

/// The builder of an [`RlweParameters`]: ring degree, chain and special primes (by size
/// or explicit), `dnum`, secret distribution, security level and key-switching method.
///
/// Defaults: a dense ternary secret, 128-bit security, hybrid key switching,
/// `dnum = 3` (fewer if the chain is short; with fixed special primes, the smallest `dnum`
/// whose digits they cover) and, unless given, [`DEFAULT_SPECIAL_PRIME_BITS`]-bit special
/// primes covering the largest digit by the noise margin.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainBuilder {
    log_n: u32,
    log_q: Vec<u32>,
    log_p: Option<Vec<u32>>,
    q: Option<Vec<u64>>,
    p: Option<Vec<u64>>,
    dnum: Option<usize>,
    digits_by_bits: bool,
    secret: SecretDistribution,
    security: SecurityLevel,
    key_switching: KeySwitchMethod,
    key_storage: KeyStorage,
}

impl ChainBuilder {
    /// Parameters for ring degree `N = 2^log_n`, with the defaults above.
    pub fn new(log_n: u32) -> Self {
        ChainBuilder {
            log_n,
            log_q: Vec::new(),
            log_p: None,
            q: None,
            p: None,
            dnum: None,
            digits_by_bits: false,
            secret: SecretDistribution::Ternary,
            security: SecurityLevel::Bits128,
            key_switching: KeySwitchMethod::Hybrid,
            key_storage: KeyStorage::ExpandedOnly,
        }
    }

    /// The key-switching method (default [`KeySwitchMethod::Hybrid`]).
    pub fn key_switching(mut self, method: KeySwitchMethod) -> Self {
        self.key_switching = method;
        self
    }

    /// How KLSS keys are kept in memory (default [`KeyStorage::ExpandedOnly`]).
    pub fn key_storage(mut self, storage: KeyStorage) -> Self {
        self.key_storage = storage;
        self
    }

    /// Bit sizes of the chain primes `q_0, ..., q_L` (each in `[20, 61]`).
    pub fn log_q(mut self, bits: &[u32]) -> Self {
        self.log_q = bits.to_vec();
        self
    }

    /// Bit sizes of the special primes `P` (each in `[20, 61]`); see
    /// [`CkksParameters::log_p`](crate::ckks::CkksParameters::log_p) for the noise margin.
    pub fn log_p(mut self, bits: &[u32]) -> Self {
        self.log_p = Some(bits.to_vec());
        self
    }

    /// Explicit chain primes (instead of [`ChainBuilder::log_q`]).
    pub fn q_primes(mut self, primes: &[u64]) -> Self {
        self.q = Some(primes.to_vec());
        self
    }

    /// Explicit special primes (instead of [`ChainBuilder::log_p`]).
    pub fn p_primes(mut self, primes: &[u64]) -> Self {
        self.p = Some(primes.to_vec());
        self
    }

    /// Number of key-switching digits `dnum` (β in seed 003), `1 <= dnum <= L + 1`.
    pub fn dnum(mut self, dnum: usize) -> Self {
        self.dnum = Some(dnum);
        self
    }

    /// Hybrid digits grouped by bits ([`DigitPartition::by_bits`]) instead of `α` primes
    /// each: needs the special primes given (`log_p` or `p_primes`), the hybrid engine and
    /// no `dnum` (the grouping sets it).
    pub fn digits_by_bits(mut self) -> Self {
        self.digits_by_bits = true;
        self
    }

    /// The secret-key distribution.
    pub fn secret(mut self, secret: SecretDistribution) -> Self {
        self.secret = secret;
        self
    }

    /// The security level checked against the HomomorphicEncryption.org table.
    pub fn security(mut self, level: SecurityLevel) -> Self {
        self.security = level;
        self
    }

    /// The ring degree exponent `log2 N`.
    pub fn log_n(&self) -> u32 {
        self.log_n
    }

    /// Validates the parameters, generates the primes, checks `log(QP)` against the
    /// security table and builds the ring and the key-switching engine.
    pub fn build(self) -> Result<RlweParameters> {
        RlweParameters::new(self)
    }
}

fn check_bits(what: &str, bits: &[u32]) -> Result<()> {
    if let Some(b) = bits.iter().find(|&&b| !(20..=61).contains(&b)) {
        return Err(Error::InvalidParameters(format!(
            "{what} prime size {b} bits is outside [20, 61]"
        )));
    }
    Ok(())
}

/// A validated RLWE parameter set: the ring over `Q ∪ P`, `dnum`, the secret
/// distribution, the security level it was checked against and the key-switching engine.
/// Schemes hold one (behind an `Arc`) and add their own rules.
#[derive(Debug)]
pub struct RlweParameters {
    ring: Arc<RingContext>,
    digits: DigitPartition,
    secret: SecretDistribution,
    security: SecurityLevel,
    keyswitcher: KeySwitchEngine,
    key_storage: KeyStorage,
}

impl RlweParameters {
    fn new(p: ChainBuilder) -> Result<Self> {
        if !(1..=17).contains(&p.log_n) {
            return Err(Error::InvalidParameters(format!(
                "log N = {} is outside [1, 17]",
                p.log_n
            )));
        }
        let n = 1usize << p.log_n;
        let mut gen = PrimeGenerator::new(n)?;
        let q = chain_primes(&p, &mut gen)?;
        let log_q: Vec<f64> = q.iter().map(|&x| (x as f64).log2()).collect();
        let (digits, pp) = if p.digits_by_bits {
            check_by_bits(&p)?;
            let pp = special_primes(&p, &mut gen, 0, 0.0)?;
            let log_p: f64 = pp.iter().map(|&x| (x as f64).log2()).sum();
            (DigitPartition::by_bits(&log_q, log_p), pp)
        } else {
            let dnum = uniform_dnum(&p, &log_q)?;
            let uniform = DigitPartition::uniform(q.len(), dnum);
            let pp = special_primes(&p, &mut gen, dnum, uniform.max_digit_bits(&log_q))?;
            (uniform, pp)
        };
        let max_digit = digits.max_digit_bits(&log_q);
        let log_p: f64 = pp.iter().map(|&x| (x as f64).log2()).sum();
        if pp.is_empty() {
            return Err(Error::InvalidParameters(
                "hybrid key switching needs at least one special prime (log_p)".into(),
            ));
        }
        if log_p + DIGIT_EXCESS_BITS < max_digit {
            return Err(Error::InvalidParameters(format!(
                "the special modulus P ({log_p:.2} bits) is smaller than the largest \
                 key-switching digit ({max_digit:.2} bits) by more than {DIGIT_EXCESS_BITS} \
                 bit, so key switching would add noise far above the rounding noise: add \
                 special primes, or raise dnum"
            )));
        }
        let log_qp = log_q.iter().sum::<f64>() + log_p;
        security::check(n, log_qp, p.security)?;
        check_secret(p.secret, n, p.security)?;
        let ring = RingContext::new(n, &q, &pp)?;
        let keyswitcher =
            KeySwitchEngine::with_digits(ring.clone(), digits.clone(), p.key_switching, None)?;
        Ok(RlweParameters {
            ring,
            digits,
            secret: p.secret,
            security: p.security,
            keyswitcher,
            key_storage: p.key_storage,
        })
    }

    /// The ring (chain, special primes, NTT plans).
    pub fn ring(&self) -> &Arc<RingContext> {
        &self.ring
    }

    /// Ring degree `N`.
    pub fn n(&self) -> usize {
        self.ring.n()
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

    /// Number of key-switching digits `dnum` (β in seed 003).
    pub fn dnum(&self) -> usize {
        self.digits.dnum()
    }

    /// The hybrid gadget's digits (uniform, or by bits with
    /// [`ChainBuilder::digits_by_bits`]).
    pub fn digits(&self) -> &DigitPartition {
        &self.digits
    }

    /// The secret-key distribution.
    pub fn secret_distribution(&self) -> SecretDistribution {
        self.secret
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

    /// Refuses a level above the top level `L`.
    pub fn check_level(&self, level: usize) -> Result<()> {
        if level > self.max_level() {
            return Err(Error::LevelMismatch(format!(
                "level {level} exceeds the top level L = {}",
                self.max_level()
            )));
        }
        Ok(())
    }

    /// Refuses an object made under other parameters (by its ring fingerprint); `what`
    /// names it in the error.
    pub fn check_ring_id(&self, ring_id: u64, what: &str) -> Result<()> {
        if ring_id != self.ring.fingerprint() {
            return Err(Error::ParameterMismatch(format!(
                "{what} does not belong to these parameters"
            )));
        }
        Ok(())
    }

    /// Refuses a switching key of another ring or of another key-switching engine shape.
    pub fn check_key(&self, key: &SwitchingKey) -> Result<()> {
        self.check_ring_id(key.ring_id(), "evaluation key")?;
        if !self.keyswitcher.owns(key) {
            return Err(Error::ParameterMismatch(format!(
                "evaluation key does not belong to these parameters' key-switching engine \
                 ({}, dnum {}): generate it with this context",
                self.key_switch_method().name(),
                self.dnum()
            )));
        }
        Ok(())
    }

    /// [`RlweParameters::check_key`], and that `key` covers inputs of `q_limbs` chain limbs
    /// (level `q_limbs - 1`): a key generated for levels `<= l` (e.g.
    /// [`RlweParameters::generate_galois_key_at_with`]) serves no input above `l`. `what`
    /// names the key in the error (e.g. "the Galois key for element 5").
    pub fn check_key_at(
        &self,
        key: &SwitchingKey,
        q_limbs: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        self.check_key(key)?;
        if !key.covers(q_limbs) {
            let covers = match key.max_level() {
                Some(l) => format!("covers levels <= {l}"),
                None => "covers no level".into(),
            };
            return Err(Error::LevelMismatch(format!(
                "{} {covers}; the ciphertext is at level {}: generate the key for this level \
                 or above, or lower the ciphertext's level first",
                what(),
                q_limbs.saturating_sub(1)
            )));
        }
        Ok(())
    }
}

/// The chain primes: given, or generated from their sizes.
fn chain_primes(p: &ChainBuilder, gen: &mut PrimeGenerator) -> Result<Vec<u64>> {
    Ok(match &p.q {
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
    })
}

/// Refuses digits by bits without given special primes, with a `dnum` or on an engine
/// other than the hybrid one.
fn check_by_bits(p: &ChainBuilder) -> Result<()> {
    let why = if p.dnum.is_some() {
        "sets dnum itself: give one or the other"
    } else if p.p.is_none() && p.log_p.is_none() {
        "groups the chain under the special modulus: give log_p or p_primes"
    } else if p.key_switching != KeySwitchMethod::Hybrid {
        "is implemented for the hybrid engine only"
    } else {
        return Ok(());
    };
    Err(Error::InvalidParameters(format!(
        "digits by bits {why} (key switching: {})",
        p.key_switching.name()
    )))
}

/// Uniform digits' `dnum` over a chain of `log_q` bits: given, or the default.
fn uniform_dnum(p: &ChainBuilder, log_q: &[f64]) -> Result<usize> {
    let l1 = log_q.len();
    let max_digit_for =
        |dnum: usize| -> f64 { DigitPartition::uniform(l1, dnum).max_digit_bits(log_q) };
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
    Ok(dnum)
}

/// The special primes: given, generated from their sizes, or the default.
fn special_primes(
    p: &ChainBuilder,
    gen: &mut PrimeGenerator,
    dnum: usize,
    max_digit: f64,
) -> Result<Vec<u64>> {
    Ok(match (&p.p, &p.log_p) {
        (Some(pp), _) => pp.clone(),
        (None, Some(bits)) => {
            check_bits("special", bits)?;
            bits.iter()
                .map(|&b| gen.next_prime(b))
                .collect::<Result<Vec<_>>>()?
        }
        (None, None) => {
            // Enough DEFAULT_SPECIAL_PRIME_BITS-bit primes to exceed the largest digit by
            // the margin that keeps key-switching noise at the rounding level.
            let target = max_digit + digit_margin_bits(dnum);
            let mut pp = Vec::new();
            let mut log_p = 0.0;
            while log_p < target || pp.is_empty() {
                let p = gen.next_prime(DEFAULT_SPECIAL_PRIME_BITS)?;
                log_p += (p as f64).log2();
                pp.push(p);
            }
            pp
        }
    })
}

/// Refuses a sparse secret unless security checking is off: the table is for uniform
/// ternary and Gaussian secrets; sparse secrets are open to hybrid attacks it does not
/// account for.
fn check_secret(secret: SecretDistribution, n: usize, level: SecurityLevel) -> Result<()> {
    if let SecretDistribution::HammingWeight(h) = secret {
        if h == 0 || h > n {
            return Err(Error::InvalidParameters(format!(
                "Hamming weight h = {h} must be in [1, N = {n}]"
            )));
        }
        if level != SecurityLevel::NotChecked {
            return Err(Error::Insecure(format!(
                "the HomomorphicEncryption.org table covers uniform ternary and Gaussian \
                 secrets only; a secret of Hamming weight {h} needs its own estimate (e.g. \
                 with the lattice estimator): use SecretDistribution::Ternary, or opt in \
                 with SecurityLevel::NotChecked"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An explicit `P` may fall short of the largest digit by at most
    /// [`DIGIT_EXCESS_BITS`]: Set V's digits of two 50-bit primes against two 50-bit
    /// special primes build (as seed 003's implementation forms them); a digit two bits
    /// above `P` is refused, naming both sizes.
    #[test]
    fn a_digit_may_exceed_p_by_at_most_one_bit() {
        let build = |q: &[u32], p: &[u32], dnum: Option<usize>| {
            let b = ChainBuilder::new(15)
                .log_q(q)
                .log_p(p)
                .security(SecurityLevel::NotChecked);
            match dnum {
                Some(d) => b.dnum(d),
                None => b,
            }
            .build()
        };
        let set_v = [33u32, 50, 25, 60, 50, 50, 50, 50, 50, 50, 50, 50, 49, 49];
        assert_eq!(build(&set_v, &[50, 50], Some(7)).unwrap().dnum(), 7);
        // Without an explicit dnum the builder still picks the strict cover.
        assert_eq!(build(&set_v, &[50, 50], None).unwrap().dnum(), 14);
        let err = build(&[50, 50, 50, 50], &[49, 49], Some(2)).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidParameters(m) if m.contains("smaller than the largest key-switching digit") && m.contains("bits)")),
            "{err}"
        );
    }

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
            let params = ChainBuilder::new(log_n)
                .log_q(&chain)
                .dnum(dnum)
                .security(SecurityLevel::NotChecked)
                .build()
                .unwrap();
            let q: Vec<f64> = params
                .q_primes()
                .iter()
                .map(|&x| (x as f64).log2())
                .collect();
            let alpha = q.len().div_ceil(dnum);
            let max_digit = q
                .chunks(alpha)
                .map(|c| c.iter().sum::<f64>())
                .fold(0.0, f64::max);
            let log_p: f64 = params.p_primes().iter().map(|&x| (x as f64).log2()).sum();
            let margin = digit_margin_bits(dnum) - 1.0;
            assert!(
                log_p >= max_digit + margin,
                "N = 2^{log_n}, dnum {dnum}: log P {log_p:.2} < digit {max_digit:.2} + {margin:.2}"
            );
        }
    }
}
