//! MLWE-CKKS parameters: the builder and the context of precomputations.

use crate::ckks::{Encoder, Scale};
use crate::math::primes::is_prime;
use crate::math::PrimeGenerator;
use crate::params::security::{self, SecurityLevel};
use crate::ring::RingContext;
use crate::rlwe::keys::NOISE_SIGMA;
use crate::rlwe::{HybridKeySwitcher, SecretDistribution};
use crate::{Error, Result};
use std::sync::Arc;

/// The largest module rank accepted (seed 004 evaluates `r <= 8`; ModHE's keys grow as
/// `r^3`).
pub const MAX_RANK: usize = 16;

/// An MLWE-CKKS parameter set (seed 004), before precomputation: the small ring degree
/// `n = 2^log_n`, the rank `r` (the LWE dimension is `N = r·n`), the chain `Q`, the
/// special modulus `P` and `d` digits of the ModHE key switch, and optionally DPad-HE's
/// second special modulus `P̂`, temporary rank `r̂` and `μ` digits.
///
/// ```
/// use hekate::mlwe::MlweParameters;
/// use hekate::params::SecurityLevel;
/// let ctx = MlweParameters::new(10, 2)        // n = 2^10, rank 2 (N = 2^11)
///     .log_q(&[50, 40, 40]).log_p(&[60]).log_scale(40)
///     .dpad(3, &[60, 55], None)               // r̂ = 3, P̂ of 115 bits, μ chosen
///     .security(SecurityLevel::NotChecked)    // toy size
///     .build()?;
/// assert_eq!((ctx.rank(), ctx.rank_hat(), ctx.n()), (2, Some(3), 1024));
/// # Ok::<(), hekate::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct MlweParameters {
    log_n: u32,
    rank: usize,
    log_q: Primes,
    log_p: Primes,
    dnum: Option<usize>,
    dpad: Option<(usize, Primes, Option<usize>)>,
    scale: f64,
    secret: SecretDistribution,
    security: SecurityLevel,
}

impl MlweParameters {
    /// Ring degree `n = 2^log_n` and module rank `r >= 1`, with defaults: one 60-bit special
    /// prime (seed 004's `k = 1`), the smallest `d` whose digits it covers, a dense ternary
    /// secret per component, 128-bit security at `N = r·n`, no DPad-HE.
    pub fn new(log_n: u32, rank: usize) -> Self {
        MlweParameters {
            log_n,
            rank,
            log_q: Primes::Bits(Vec::new()),
            log_p: Primes::Bits(vec![60]),
            dnum: None,
            dpad: None,
            scale: 0.0,
            secret: SecretDistribution::Ternary,
            security: SecurityLevel::Bits128,
        }
    }

    /// Bit sizes of the chain primes `q_0 .. q_L` (each in `[20, 61]`).
    pub fn log_q(mut self, bits: &[u32]) -> Self {
        self.log_q = Primes::Bits(bits.to_vec());
        self
    }

    /// Bit sizes of the special primes `P` of the ModHE key switch (`KeySwitch_d`).
    pub fn log_p(mut self, bits: &[u32]) -> Self {
        self.log_p = Primes::Bits(bits.to_vec());
        self
    }

    /// Explicit chain primes (instead of [`MlweParameters::log_q`]), e.g. to rebuild a
    /// saved context ([`crate::serialize::mlwe_context_from_bytes`]). Each must be a
    /// prime below `2^62` with `q = 1 mod 2N'` for the conversion ring `N'` (see
    /// [`MlweContext::q_primes`]), distinct from every other prime of the set.
    pub fn q_primes(mut self, primes: &[u64]) -> Self {
        self.log_q = Primes::Explicit(primes.to_vec());
        self
    }

    /// Explicit special primes `P` (instead of [`MlweParameters::log_p`]), checked as in
    /// [`MlweParameters::q_primes`].
    pub fn p_primes(mut self, primes: &[u64]) -> Self {
        self.log_p = Primes::Explicit(primes.to_vec());
        self
    }

    /// The number of digits `d` of `KeySwitch_d` (default: the smallest `d` whose digits
    /// `P` covers; `L + 1` with one 60-bit `P` and 40-bit primes, as in seed 004).
    pub fn dnum(mut self, d: usize) -> Self {
        self.dnum = Some(d);
        self
    }

    /// DPad-HE (seed 004 Alg. 1): the temporary rank `r̂` (`r < r̂ <= 2r`), the bit sizes
    /// of the second special modulus `P̂` (larger than `P`), and the digit count `μ` of
    /// `KeySwitch_μ` (`None`: the smallest `μ` whose digits `P̂` covers).
    pub fn dpad(mut self, rank_hat: usize, log_p_hat: &[u32], mu: Option<usize>) -> Self {
        self.dpad = Some((rank_hat, Primes::Bits(log_p_hat.to_vec()), mu));
        self
    }

    /// [`MlweParameters::dpad`] with explicit primes of `P̂` (checked as in
    /// [`MlweParameters::q_primes`]).
    pub fn dpad_primes(mut self, rank_hat: usize, p_hat: &[u64], mu: Option<usize>) -> Self {
        self.dpad = Some((rank_hat, Primes::Explicit(p_hat.to_vec()), mu));
        self
    }

    /// The default encoding scale `2^bits` (default: the size of `q_1`, else 2^40).
    pub fn log_scale(mut self, bits: u32) -> Self {
        self.scale = 2f64.powi(bits as i32);
        self
    }

    /// The default encoding scale, any positive finite value (default: the size of
    /// `q_1`, else 2^40; [`MlweParameters::log_scale`] for a power of two).
    pub fn scale(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }

    /// The distribution of each secret component `s_i` (default dense ternary).
    pub fn secret(mut self, secret: SecretDistribution) -> Self {
        self.secret = secret;
        self
    }

    /// The security level checked at `N = r·n` (and `r̂·n` with `P̂Q` for DPad-HE)
    /// against the HomomorphicEncryption.org table interpolated between its ring degrees
    /// (default 128 bits); [`SecurityLevel::NotChecked`] opts out.
    pub fn security(mut self, level: SecurityLevel) -> Self {
        self.security = level;
        self
    }

    /// Validates the parameters, generates the primes and builds the precomputations.
    pub fn build(self) -> Result<Arc<MlweContext>> {
        MlweContext::new(self)
    }
}

/// Primes given by their sizes (generated at build) or explicitly.
#[derive(Clone, Debug, PartialEq)]
enum Primes {
    Bits(Vec<u32>),
    Explicit(Vec<u64>),
}

impl Primes {
    /// The primes: generated from their sizes by `gen` (which has excluded every explicit
    /// prime of the set), or the explicit ones, each checked to be a prime below `2^62`
    /// and `1 mod 2N'` (`N' = n_conv`).
    fn resolve(&self, what: &str, gen: &mut PrimeGenerator, n_conv: usize) -> Result<Vec<u64>> {
        match self {
            Primes::Bits(bits) => {
                check_bits(what, bits)?;
                bits.iter().map(|&b| gen.next_prime(b)).collect()
            }
            Primes::Explicit(primes) => {
                if primes.is_empty() {
                    return Err(Error::InvalidParameters(format!("no {what} primes given")));
                }
                let m = 2 * n_conv as u64;
                if let Some(q) = primes
                    .iter()
                    .find(|&&q| !(2..1u64 << 62).contains(&q) || !is_prime(q) || q % m != 1)
                {
                    return Err(Error::InvalidParameters(format!(
                        "{what} prime {q} is not a prime below 2^62 with q = 1 mod 2N' = {m}                          (N' = {n_conv}, the ring of MLWE <-> RLWE conversion)"
                    )));
                }
                Ok(primes.clone())
            }
        }
    }

    fn explicit(&self) -> &[u64] {
        match self {
            Primes::Bits(_) => &[],
            Primes::Explicit(p) => p,
        }
    }
}

fn check_bits(what: &str, bits: &[u32]) -> Result<()> {
    if bits.is_empty() {
        return Err(Error::InvalidParameters(format!("no {what} primes given")));
    }
    if let Some(b) = bits.iter().find(|&&b| !(20..=61).contains(&b)) {
        return Err(Error::InvalidParameters(format!(
            "{what} prime size {b} bits is outside [20, 61]"
        )));
    }
    Ok(())
}

fn log2_sum(primes: &[u64]) -> f64 {
    primes.iter().map(|&x| (x as f64).log2()).sum()
}

/// Bits a digit may exceed the special modulus by: seed 004's sets pair a 60-bit `q_0`
/// with a 60-bit `P`, and a digit up to twice `P` adds key-switching noise of a few
/// `σ sqrt(d n)` (the digits over `P` times the key noise), far below any scale.
const DIGIT_SLACK_BITS: f64 = 1.0;

/// The smallest digit count whose largest digit (`ceil(L+1 / d)` consecutive primes) `P`
/// covers (up to [`DIGIT_SLACK_BITS`]); or the given one, checked.
fn digit_count(q: &[u64], log_p: f64, given: Option<usize>, what: &str) -> Result<usize> {
    let l1 = q.len();
    let max_digit = |d: usize| q.chunks(l1.div_ceil(d)).map(log2_sum).fold(0.0, f64::max);
    let d = match given {
        Some(d) if d == 0 || d > l1 => {
            return Err(Error::InvalidParameters(format!(
                "{what} = {d} must be in [1, L + 1 = {l1}]"
            )))
        }
        Some(d) => d,
        None => (1..=l1)
            .find(|&d| max_digit(d) <= log_p + DIGIT_SLACK_BITS)
            .unwrap_or(l1),
    };
    if max_digit(d) > log_p + DIGIT_SLACK_BITS {
        return Err(Error::InvalidParameters(format!(
            "with {what} = {d} the largest digit has {:.1} bits, more than the special \
             modulus ({log_p:.1} bits): key switching would add noise larger than the \
             message; raise {what} or the special modulus",
            max_digit(d)
        )));
    }
    Ok(d)
}

/// DPad-HE's second key-switching context (seed 004 Alg. 1): the ring over `Q ∪ P̂`
/// sharing `Q` with the main one, the temporary rank `r̂` and `KeySwitch_μ`.
#[derive(Debug)]
pub struct DpadContext {
    pub(crate) rank_hat: usize,
    pub(crate) ks: HybridKeySwitcher,
}

impl DpadContext {
    /// The temporary rank `r̂`.
    pub fn rank_hat(&self) -> usize {
        self.rank_hat
    }
    /// The ring over `Q ∪ P̂`.
    pub fn ring(&self) -> &Arc<RingContext> {
        self.ks.ring()
    }
    /// `μ`, the digits of `KeySwitch_μ`.
    pub fn mu(&self) -> usize {
        self.ks.dnum()
    }
    /// The engine of `KeySwitch_μ` over `Q ∪ P̂`.
    pub fn keyswitcher(&self) -> &HybridKeySwitcher {
        &self.ks
    }
}

/// A validated MLWE-CKKS parameter set with its precomputations: the ring over `Q ∪ P`
/// at degree `n`, the rank, `KeySwitch_d`, DPad-HE's context if enabled, the encoder
/// (`n/2` slots) and the default scale. Shared (`Arc`) by keys, ciphertexts and
/// evaluators.
#[derive(Debug)]
pub struct MlweContext {
    pub(crate) rank: usize,
    pub(crate) ks: HybridKeySwitcher,
    pub(crate) dpad: Option<DpadContext>,
    pub(crate) encoder: Encoder,
    pub(crate) default_scale: Scale,
    pub(crate) secret: SecretDistribution,
    pub(crate) security: SecurityLevel,
}

impl MlweContext {
    fn new(p: MlweParameters) -> Result<Arc<Self>> {
        if !(1..=16).contains(&p.log_n) {
            return Err(Error::InvalidParameters(format!(
                "log n = {} is outside [1, 16]",
                p.log_n
            )));
        }
        if !(1..=MAX_RANK).contains(&p.rank) {
            return Err(Error::InvalidParameters(format!(
                "module rank r = {} is outside [1, {MAX_RANK}]",
                p.rank
            )));
        }
        let n = 1usize << p.log_n;
        // Primes 1 mod 2N' for the RLWE ring N' = r'·n of MLWE <-> RLWE conversion (r'
        // the rank rounded up to a power of two, N' at most 2^17): the same Q serves both.
        let n_conv = (n * p.rank.next_power_of_two()).min(1 << 17).max(n);
        let mut gen = PrimeGenerator::new(n_conv)?;
        gen.exclude(p.log_q.explicit());
        gen.exclude(p.log_p.explicit());
        if let Some((_, p_hat, _)) = &p.dpad {
            gen.exclude(p_hat.explicit());
        }
        // P first: of two primes of one size it gets the larger, so that a digit of one
        // prime of P's size (seed 004's 60-bit q_0 and P) stays below P.
        let pp = p.log_p.resolve("special", &mut gen, n_conv)?;
        let q = p.log_q.resolve("chain", &mut gen, n_conv)?;
        let d = digit_count(&q, log2_sum(&pp), p.dnum, "dnum (d)")?;
        let (log_q, log_p) = (log2_sum(&q), log2_sum(&pp));
        check_security(p.rank * n, log_q + log_p, p.security, "r·n", "QP")?;
        let ring = RingContext::new(n, &q, &pp)?;
        let dpad = match &p.dpad {
            None => None,
            Some((rank_hat, log_p_hat, mu)) => {
                let rank_hat = *rank_hat;
                if rank_hat <= p.rank || rank_hat > 2 * p.rank {
                    return Err(Error::InvalidParameters(format!(
                        "DPad-HE's temporary rank r̂ = {rank_hat} must be in (r, 2r] = ({}, {}]",
                        p.rank,
                        2 * p.rank
                    )));
                }
                let p_hat = log_p_hat.resolve("DPad-HE special (P̂)", &mut gen, n_conv)?;
                if let Some(x) = p_hat.iter().find(|x| pp.contains(x)) {
                    return Err(Error::InvalidParameters(format!(
                        "DPad-HE special prime {x} is also a prime of P"
                    )));
                }
                let log_p_hat = log2_sum(&p_hat);
                if log_p_hat <= log_p {
                    return Err(Error::InvalidParameters(format!(
                        "DPad-HE needs P̂ ({log_p_hat:.1} bits) larger than P ({log_p:.1} bits)"
                    )));
                }
                let mu = digit_count(&q, log_p_hat, *mu, "μ")?;
                check_security(rank_hat * n, log_q + log_p_hat, p.security, "r̂·n", "QP̂")?;
                let ring_hat = RingContext::new(n, &q, &p_hat)?;
                Some(DpadContext {
                    rank_hat,
                    ks: HybridKeySwitcher::new(ring_hat, mu),
                })
            }
        };
        if let SecretDistribution::HammingWeight(h) = p.secret {
            if h == 0 || h > n {
                return Err(Error::InvalidParameters(format!(
                    "Hamming weight h = {h} must be in [1, n = {n}]"
                )));
            }
            if p.security != SecurityLevel::NotChecked {
                return Err(Error::Insecure(
                    "the HomomorphicEncryption.org table covers uniform ternary and Gaussian \
                     secrets only: use SecretDistribution::Ternary, or opt in with \
                     SecurityLevel::NotChecked"
                        .into(),
                ));
            }
        }
        let default_scale = if p.scale > 0.0 {
            Scale::from_f64(p.scale).ok_or_else(|| {
                Error::InvalidParameters(format!("scale {} must be positive and finite", p.scale))
            })?
        } else {
            Scale::from_bits(q.get(1).map_or(40, |&x| 63 - x.leading_zeros()))
        };
        Ok(Arc::new(MlweContext {
            rank: p.rank,
            ks: HybridKeySwitcher::new(ring.clone(), d),
            dpad,
            encoder: Encoder::new(ring),
            default_scale,
            secret: p.secret,
            security: p.security,
        }))
    }

    /// The ring over `Q ∪ P` at degree `n`.
    pub fn ring(&self) -> &Arc<RingContext> {
        self.ks.ring()
    }
    /// The small ring degree `n`.
    pub fn n(&self) -> usize {
        self.ring().n()
    }
    /// The module rank `r` of fresh ciphertexts.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// The LWE dimension `N = r·n`.
    pub fn lwe_dimension(&self) -> usize {
        self.rank * self.n()
    }
    /// DPad-HE's temporary rank `r̂`, if enabled.
    pub fn rank_hat(&self) -> Option<usize> {
        self.dpad.as_ref().map(|d| d.rank_hat)
    }
    /// DPad-HE's context, if enabled.
    pub fn dpad(&self) -> Option<&DpadContext> {
        self.dpad.as_ref()
    }
    /// The engine of `KeySwitch_d` over `Q ∪ P`.
    pub fn keyswitcher(&self) -> &HybridKeySwitcher {
        &self.ks
    }
    /// `d`, the digits of `KeySwitch_d`.
    pub fn dnum(&self) -> usize {
        self.ks.dnum()
    }
    /// The top level `L`.
    pub fn max_level(&self) -> usize {
        self.ring().q_len() - 1
    }
    /// The largest number of slots, `n/2`.
    pub fn max_slots(&self) -> usize {
        self.n() / 2
    }
    /// The default encoding scale.
    pub fn default_scale(&self) -> &Scale {
        &self.default_scale
    }
    /// The encoder (degree `n`).
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }
    /// The distribution of each secret component.
    pub fn secret_distribution(&self) -> SecretDistribution {
        self.secret
    }
    /// The security level the parameters were checked against.
    pub fn security(&self) -> SecurityLevel {
        self.security
    }
    /// The chain primes `q_0 .. q_L` (each `1 mod 2N'` for the RLWE ring `N' = r'·n` of
    /// MLWE <-> RLWE conversion, `r'` the rank rounded up to a power of two).
    pub fn q_primes(&self) -> Vec<u64> {
        self.ring().q().moduli().iter().map(|m| m.value()).collect()
    }
    /// The special primes `P`.
    pub fn p_primes(&self) -> Vec<u64> {
        self.ring().p().moduli().iter().map(|m| m.value()).collect()
    }
    /// `log2 Q` (all chain primes).
    pub fn log_q(&self) -> f64 {
        self.ring().q().log_product()
    }
    /// `log2 P`.
    pub fn log_p(&self) -> f64 {
        self.ring().p().log_product()
    }
    /// The highest level at which rank `rank` (`1..=r`) is secure at the context's
    /// security level: the largest `l` with `log2(Q_l P)` within the table's bound at
    /// `rank·n` (and, where `dpad`, `log2(Q_l P̂)` within it at `(rank + r̂ - r)·n`, for
    /// DPad-HE's keys at that rank). `None` if no level is, or `rank` is out of range.
    /// Rank `r` at the top level was checked when the context was built; lower ranks
    /// become secure as the modulus shrinks (seed 004 §2.4: rank reduction).
    pub fn max_level_for_rank(&self, rank: usize, dpad: bool) -> Option<usize> {
        if rank == 0 || rank > self.rank || (dpad && self.dpad.is_none()) {
            return None;
        }
        let q = self.ring().q();
        let fits = |l: usize| {
            let log_q = q.slice(0..l + 1).log_product();
            let main = security_fits(rank * self.n(), log_q + self.log_p(), self.security);
            let hat = match (&self.dpad, dpad) {
                (Some(d), true) => security_fits(
                    (rank + d.rank_hat - self.rank) * self.n(),
                    log_q + d.ring().p().log_product(),
                    self.security,
                ),
                _ => true,
            };
            main && hat
        };
        (0..=self.max_level()).rev().find(|&l| fits(l))
    }

    /// The rank schedule: for each rank from `r` down to 1, the highest level where it is
    /// secure ([`MlweContext::max_level_for_rank`], ModHE keys), skipping ranks secure at
    /// no level. A ciphertext at level `l` may be reduced to any rank listed with a level
    /// `>= l`.
    pub fn rank_schedule(&self) -> Vec<(usize, usize)> {
        (1..=self.rank)
            .rev()
            .filter_map(|r| self.max_level_for_rank(r, false).map(|l| (r, l)))
            .collect()
    }

    /// Refuses keys for `rank` at `level` that the schedule does not allow.
    pub(crate) fn check_rank_at(&self, rank: usize, level: usize, dpad: bool) -> Result<()> {
        if rank == 0 || rank > self.rank || level > self.max_level() {
            return Err(Error::InvalidParameters(format!(
                "rank {rank} at level {level}: ranks are 1 to r = {}, levels 0 to L = {}",
                self.rank,
                self.max_level()
            )));
        }
        match self.max_level_for_rank(rank, dpad) {
            Some(top) if top >= level => Ok(()),
            top => Err(Error::Insecure(format!(
                "rank {rank} is not {} secure at level {level} ({}): keys there would \
                 expose the secret; generate them at a lower level, or build the context \
                 with SecurityLevel::NotChecked",
                self.security,
                match top {
                    Some(t) => format!("it is up to level {t}"),
                    None => "at no level".into(),
                }
            ))),
        }
    }

    /// `log2 P̂` (DPad-HE), if enabled.
    pub fn log_p_hat(&self) -> Option<f64> {
        self.dpad.as_ref().map(|d| d.ring().p().log_product())
    }

    /// The special primes `P̂` of DPad-HE, if enabled.
    pub fn p_hat_primes(&self) -> Option<Vec<u64>> {
        self.dpad
            .as_ref()
            .map(|d| d.ring().p().moduli().iter().map(|m| m.value()).collect())
    }

    /// The fingerprint every serialized MLWE object made under these parameters carries
    /// ([`mlwe_fingerprint`]): of the ring (`n`, `Q`, `P`), the rank, `d`, and DPad-HE's
    /// `r̂`, `μ` and ring over `Q ∪ P̂`.
    pub fn fingerprint(&self) -> u64 {
        mlwe_fingerprint(
            self.ring().fingerprint(),
            self.rank,
            self.dnum(),
            self.dpad
                .as_ref()
                .map(|d| (d.rank_hat, d.mu(), d.ring().fingerprint())),
        )
    }
}

/// The fingerprint of MLWE-CKKS parameters: [`fnv1a64`](crate::ring::fnv1a64) of the
/// little-endian `u64` words
///
/// ```text
/// "MLWE" (bytes 4D 4C 57 45 00 00 00 00), ring fingerprint, r, d, r̂, μ, ring-hat fingerprint
/// ```
///
/// with the ring fingerprints ([`ring_fingerprint`](crate::ring::ring_fingerprint)) of
/// `(n, Q, P)` and `(n, Q, P̂)`; `r̂`, `μ` and the second fingerprint are 0 without DPad-HE.
pub fn mlwe_fingerprint(
    ring: u64,
    rank: usize,
    dnum: usize,
    dpad: Option<(usize, usize, u64)>,
) -> u64 {
    let (rank_hat, mu, ring_hat) = dpad.unwrap_or((0, 0, 0));
    let bytes: Vec<u8> = [
        u64::from_le_bytes(*b"MLWE\0\0\0\0"),
        ring,
        rank as u64,
        dnum as u64,
        rank_hat as u64,
        mu as u64,
        ring_hat,
    ]
    .into_iter()
    .flat_map(u64::to_le_bytes)
    .collect();
    crate::ring::fnv1a64(&bytes)
}

/// Whether `log2(modulus)` meets `level` at dimension `dim` (interpolated; below the
/// table's smallest dimension, never).
fn security_fits(dim: usize, log_qp: f64, level: SecurityLevel) -> bool {
    match security::interpolated_max_log_q(dim, level) {
        None => true,
        Some(bound) => dim >= 1024 && log_qp <= bound + 1e-9,
    }
}

/// Checks `log2(modulus)` against the table interpolated at dimension `dim` (not a power
/// of two in general: `r·n`).
fn check_security(
    dim: usize,
    log_qp: f64,
    level: SecurityLevel,
    dim_name: &str,
    m: &str,
) -> Result<()> {
    if security_fits(dim, log_qp, level) {
        return Ok(());
    }
    // Only the message is built here; the test itself is `security_fits`'s.
    let bound = security::interpolated_max_log_q(dim, level).expect("a level with a bound");
    Err(Error::Insecure(if dim < 1024 {
        format!(
            "{dim_name} = {dim} is below the smallest dimension of the HomomorphicEncryption.org \
             table (1024) and cannot reach {level}; use a larger n or rank, or \
             SecurityLevel::NotChecked for experiments"
        )
    } else {
        format!(
            "{dim_name} = {dim} with log2({m}) = {log_qp:.1} exceeds the {level} bound of \
             {bound:.1} bits (HomomorphicEncryption.org table interpolated at {dim}, σ = \
             {NOISE_SIGMA}); use fewer or smaller primes, a larger rank, or \
             SecurityLevel::NotChecked for experiments"
        )
    }))
}
