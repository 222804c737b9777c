//! The shape of a bootstrapping circuit: slot count, message ratio, EvalMod, DFT depths.

use super::encapsulation::check_weight;
use super::evalmod::EvalMod;
use super::failure::{k_for_failure, log2_failure_probability, SecretWeight};
use crate::circuits::lintrans::{BsgsTies, GiantSteps};
use crate::ckks::CkksContext;
use crate::rlwe::SecretDistribution;
use crate::{Error, Result};

/// The circuit parameters of [`Bootstrapper`](super::Bootstrapper) (seed 003 Table 6): what
/// it bootstraps (`n` slots), the message ratio `R = q_0 / Δ_0`, the EvalMod interval `K`
/// and polynomial, and the levels of the two DFTs.
#[derive(Clone, Debug)]
pub struct BootstrapConfig {
    /// `n`: the slot count of the ciphertexts it bootstraps (a power of two `<= N/2`).
    pub slots: usize,
    /// `log2 R`, `R = q_0 / Δ_0`: the input is scaled down to `Δ_0 = q_0 / R` at level 0,
    /// so `|m / q_0| <= 1/R` for messages of magnitude at most 1 (Table 6: 8).
    pub log_message_ratio: u32,
    /// `K`: the bound on the ModRaise overflow `|I|` (Eq. (1); see [`Self::failure_log2`]).
    pub k: u64,
    /// EvalMod (polynomial degree `d` and double angles `r`).
    pub eval_mod: EvalMod,
    /// `ρ_CtS`: the DFT factors of CoeffsToSlots, in `[1, log2 n]` (at least 1); one level
    /// each unless [`Self::cts_factors_per_prime`] puts several on one prime.
    pub cts_levels: usize,
    /// `ρ_StC`: the DFT factors of SlotsToCoeffs, in `[1, log2 n]` (at least 1); one level
    /// each unless [`Self::stc_factors_per_prime`] puts several on one prime.
    pub stc_levels: usize,
    /// How many CoeffsToSlots factors each of its primes carries, from the stage's lowest
    /// prime up (Lattigo's `CoeffsToSlotsFactorizationDepthAndLogScales` lists, by length;
    /// seed 003 Table 5's "fractional" prime counts). Empty: one factor per prime. Else the
    /// entries (each `>= 1`) sum to `ρ_CtS`. The factors on one prime are applied one after
    /// another without a rescale in between. In SlotsToCoeffs their diagonals' scales split
    /// the prime (each about `q^(1/k)` for `k` factors, times its share of the scale the
    /// stage sheds). CoeffsToSlots's inputs are dominated by the overflow `I` (`R K'`
    /// times the message), so there the product of all its diagonals' scales is spread
    /// evenly over its factors instead (a prime alone would leave each `q^(1/k)`); expect
    /// a few bits less precision than one factor per prime all the same. Set it with
    /// [`BootstrapConfig::set_factors_per_prime`].
    pub cts_factors_per_prime: Vec<usize>,
    /// The same for SlotsToCoeffs (Set III's `1.5 · 60`: `[1, 2]`, Lattigo's
    /// `[[30], [30, 30]]`: one factor on a 30-bit prime, then two on a 60-bit prime).
    pub stc_factors_per_prime: Vec<usize>,
    /// Sparse-secret encapsulation ([`encapsulation`](super::encapsulation)): `Some(h̃)`
    /// runs ModRaise under an ephemeral secret of Hamming weight `h̃`, so that `K` (and the
    /// failure probability) depend on `h̃` instead of the main secret. `None`: ModRaise
    /// under the main secret.
    pub ephemeral_weight: Option<usize>,
    /// How the DFT factors' giant steps are evaluated ([`GiantSteps`]): `Horner` (the
    /// default) needs one giant-step rotation key per factor instead of one per giant
    /// step, for the same number of key switches and a few more half ModDowns.
    pub giant_steps: GiantSteps,
    /// How each DFT factor's `n1` is chosen among those with the fewest key switches
    /// ([`BsgsTies`]): `FewerKeys` (the default) halves the baby-step keys of most
    /// factors (at `N = 2^16`, `2^15` slots: 29 rotation keys instead of 35, about
    /// 1.5 GiB less) for a few per cent more time (giant steps in place of baby steps);
    /// `FewerGiantSteps` is the faster choice.
    pub bsgs_ties: BsgsTies,
    /// A cap on the bytes of one bootstrap's keys (what
    /// [`BootstrapKeys::size_bytes`](super::BootstrapKeys::size_bytes) reports for them:
    /// Galois keys at their levels, the relinearization key, the encapsulation keys). With
    /// `Some(cap)` and the hybrid engine, DFT factors take more baby steps than
    /// [`Self::bsgs_ties`] chose, for fewer giant steps (under seed 003 Alg. 6 a baby
    /// rotation costs an inner product and a permutation; a giant step a whole
    /// decomposition), the step with the largest predicted time saved per key byte first,
    /// while the keys stay within the cap (the search of
    /// [`search::budget`](super::search::budget)). `None` (the default): the plans of
    /// `bsgs_ties` alone. The keys are a function of the configuration and the context's
    /// chain only, so the Galois elements are known before key generation as ever.
    pub key_memory_cap: Option<usize>,
}

/// The message precision in bits, `P`, that EvalMod's approximation error should not
/// limit ([`eval_mod_log2_error`]).
pub const EVAL_MOD_PRECISION_BITS: f64 = 25.0;

/// The `log2` of the EvalMod error target (the `2^-t` [`EvalMod::choose`] is asked for)
/// for `n = slots` slots and message ratio `R = 2^log_message_ratio`:
///
/// `t = log2 R + ½ log2(2n) + P`, `P =` [`EVAL_MOD_PRECISION_BITS`].
///
/// EvalMod's error `e` on `m / q_0` is an error `R e` on the message at the scale of
/// CoeffsToSlots' output (`m / Δ_0`, `Δ_0 = q_0 / R`), and SlotsToCoeffs, the `n`-point
/// special FFT, sums `2n` such coefficient errors into each slot: about `sqrt(2n) R e`
/// for independent errors. So `e <= 2^-t` keeps EvalMod's share of the message error near
/// `2^-P`. (The former fixed target `log2 R + 22` is `P = 16` at `n = 2^11` and `P = 14`
/// at `n = 2^15`.)
pub fn eval_mod_log2_error(log_message_ratio: u32, slots: usize) -> f64 {
    f64::from(log_message_ratio)
        + 0.5 * ((2 * slots.max(1)) as f64).log2()
        + EVAL_MOD_PRECISION_BITS
}

/// The shallowest EvalMod ([`EvalMod::choose`]) for `|I| <= k` within `2^-t`,
/// `t =` [`eval_mod_log2_error`]`(log_message_ratio, slots)`; where none reaches it (a large
/// `K`: the `f64` evaluation and the double angles' error growth bound the accuracy near
/// `2^-39` at `K = 621`), the most demanding target reached in steps of one bit, down to
/// the former `log2 R + 22`.
pub fn choose_eval_mod(k: u64, log_message_ratio: u32, slots: usize) -> Result<EvalMod> {
    let floor = f64::from(log_message_ratio) + 22.0;
    let mut t = eval_mod_log2_error(log_message_ratio, slots);
    loop {
        match EvalMod::choose(k, log_message_ratio, t) {
            Ok(e) => return Ok(e),
            Err(_) if t > floor => t = (t - 1.0).max(floor),
            Err(e) => return Err(e),
        }
    }
}

/// The secret-weight model of a secret distribution in degree `ring_degree`, for Eq. (1).
pub(crate) fn secret_weight(
    secret: SecretDistribution,
    ring_degree: usize,
) -> Result<SecretWeight> {
    match secret {
        SecretDistribution::Ternary => Ok(SecretWeight::UniformTernary { ring_degree }),
        SecretDistribution::HammingWeight(h) => Ok(SecretWeight::Fixed(h)),
        SecretDistribution::Gaussian => Err(Error::InvalidParameters(
            "bootstrapping needs a ternary secret (uniform or of fixed Hamming weight); \
             the context's secret is Gaussian"
                .into(),
        )),
    }
}

impl BootstrapConfig {
    /// A configuration for `slots` slots in degree `ring_degree` under `secret`: `K` from
    /// the secret's distribution for a failure probability of at most `2^log2_kappa` per
    /// bootstrap (Eq. (1)), message ratio `2^8`, the shallowest EvalMod within
    /// `2^-t` of the sine near the integers ([`choose_eval_mod`]: `t =`
    /// [`eval_mod_log2_error`]`(8, n)` where reachable), and `ρ_CtS = ρ_StC = min(3, log2 n)`
    /// (at least 1). Build the chain from [`BootstrapConfig::chain`].
    pub fn new(
        ring_degree: usize,
        secret: SecretDistribution,
        slots: usize,
        log2_kappa: f64,
    ) -> Result<Self> {
        if !slots.is_power_of_two() || 2 * slots > ring_degree {
            return Err(Error::InvalidParameters(format!(
                "slot count {slots} must be a power of two in [1, N/2 = {}]",
                ring_degree / 2
            )));
        }
        let k = k_for_failure(secret_weight(secret, ring_degree)?, slots, log2_kappa)?;
        let log_message_ratio = 8;
        let eval_mod = choose_eval_mod(k, log_message_ratio, slots)?;
        let rho = (slots.trailing_zeros() as usize).clamp(1, 3);
        Ok(BootstrapConfig {
            slots,
            log_message_ratio,
            k,
            eval_mod,
            cts_levels: rho,
            stc_levels: rho,
            cts_factors_per_prime: Vec::new(),
            stc_factors_per_prime: Vec::new(),
            ephemeral_weight: None,
            giant_steps: GiantSteps::Horner,
            bsgs_ties: BsgsTies::FewerKeys,
            key_memory_cap: None,
        })
    }

    /// [`BootstrapConfig::new`] with sparse-secret encapsulation: ModRaise under an
    /// ephemeral secret of Hamming weight `h̃ = ephemeral_weight` (Lattigo: 32), whatever the
    /// main secret's distribution, so `K` comes from `h̃` (about 16 at `2^-138` for 32),
    /// and EvalMod is shallower.
    pub fn with_encapsulation(
        ring_degree: usize,
        slots: usize,
        ephemeral_weight: usize,
        log2_kappa: f64,
    ) -> Result<Self> {
        check_weight(ephemeral_weight, ring_degree)?;
        let secret = SecretDistribution::HammingWeight(ephemeral_weight);
        let mut config = Self::new(ring_degree, secret, slots, log2_kappa)?;
        config.ephemeral_weight = Some(ephemeral_weight);
        Ok(config)
    }

    /// The secret ModRaise runs under: the ephemeral one with encapsulation, else the
    /// context's.
    fn mod_raise_secret(&self, ctx: &CkksContext) -> Result<SecretWeight> {
        match self.ephemeral_weight {
            Some(h) => Ok(SecretWeight::Fixed(h)),
            None => secret_weight(ctx.secret_distribution(), ctx.n()),
        }
    }

    /// Sets both DFTs' factors per prime (from each stage's lowest prime up; see
    /// [`Self::cts_factors_per_prime`]) and `ρ_CtS`, `ρ_StC` to their sums. `&[1, 1, 1]`
    /// is three factors on three primes (the default shape); `&[1, 2]` is three factors on
    /// two primes, two on the upper one.
    pub fn set_factors_per_prime(&mut self, cts: &[usize], stc: &[usize]) {
        self.cts_levels = cts.iter().sum();
        self.stc_levels = stc.iter().sum();
        self.cts_factors_per_prime = cts.to_vec();
        self.stc_factors_per_prime = stc.to_vec();
    }

    /// The CoeffsToSlots factors per prime, from its lowest prime up (ones by default).
    pub fn cts_grouping(&self) -> Vec<usize> {
        grouping(&self.cts_factors_per_prime, self.cts_levels)
    }

    /// The SlotsToCoeffs factors per prime, from its lowest prime up (ones by default).
    pub fn stc_grouping(&self) -> Vec<usize> {
        grouping(&self.stc_factors_per_prime, self.stc_levels)
    }

    /// The primes (levels) CoeffsToSlots consumes: `ρ_CtS` with one factor per prime.
    pub fn cts_primes(&self) -> usize {
        self.cts_grouping().len()
    }

    /// The primes (levels) SlotsToCoeffs consumes: `ρ_StC` with one factor per prime.
    pub fn stc_primes(&self) -> usize {
        self.stc_grouping().len()
    }

    /// The bit sizes of a chain that bootstraps with this configuration: `residual` (from
    /// `q_0`: the levels left after a bootstrap, plus `q_0`), then one prime of `stc_bits`
    /// per SlotsToCoeffs prime, EvalMod's primes of `eval_mod_bits` and one prime of
    /// `cts_bits` per CoeffsToSlots prime (for `CkksParameters::log_q`). See
    /// [`Self::chain_per_prime`] for primes of different sizes within a stage.
    pub fn chain(
        &self,
        residual: &[u32],
        stc_bits: u32,
        eval_mod_bits: u32,
        cts_bits: u32,
    ) -> Vec<u32> {
        let mut bits = residual.to_vec();
        bits.extend(std::iter::repeat_n(stc_bits, self.stc_primes()));
        bits.extend(std::iter::repeat_n(eval_mod_bits, self.eval_mod.depth()));
        bits.extend(std::iter::repeat_n(cts_bits, self.cts_primes()));
        bits
    }

    /// [`Self::chain`] with each DFT prime's bit size given, from the stage's lowest prime
    /// up (Set IV's SlotsToCoeffs `56 + 28`: `&[56, 28]`). Refused unless `stc_bits` and
    /// `cts_bits` have one entry per prime of their stage ([`Self::stc_primes`],
    /// [`Self::cts_primes`]).
    pub fn chain_per_prime(
        &self,
        residual: &[u32],
        stc_bits: &[u32],
        eval_mod_bits: u32,
        cts_bits: &[u32],
    ) -> Result<Vec<u32>> {
        for (name, bits, primes) in [
            ("SlotsToCoeffs", stc_bits, self.stc_primes()),
            ("CoeffsToSlots", cts_bits, self.cts_primes()),
        ] {
            if bits.len() != primes {
                return Err(Error::InvalidParameters(format!(
                    "{name} runs on {primes} prime(s) and {} bit size(s) were given: give one \
                     per prime, from the stage's lowest prime up",
                    bits.len()
                )));
            }
        }
        let mut bits = residual.to_vec();
        bits.extend_from_slice(stc_bits);
        bits.extend(std::iter::repeat_n(eval_mod_bits, self.eval_mod.depth()));
        bits.extend_from_slice(cts_bits);
        Ok(bits)
    }

    /// The levels one bootstrap consumes: the primes of CoeffsToSlots, EvalMod's depth and
    /// the primes of SlotsToCoeffs (`ρ_CtS + depth(EvalMod) + ρ_StC` with one factor per
    /// prime).
    pub fn depth(&self) -> usize {
        self.cts_primes() + self.eval_mod.depth() + self.stc_primes()
    }

    /// `log2` of the failure probability of one bootstrap under `ctx`'s secret, or the
    /// ephemeral one with encapsulation (Eq. (1)):
    /// the probability that some `|I_j| > K` over the `2n` coefficients.
    pub fn failure_log2(&self, ctx: &CkksContext) -> Result<f64> {
        Ok(log2_failure_probability(
            self.mod_raise_secret(ctx)?,
            self.k,
            self.slots,
        ))
    }

    /// Checks the configuration against `ctx`: slot count, DFT levels, a chain deep enough
    /// and `q_0` large enough for the message ratio.
    pub(crate) fn check(&self, ctx: &CkksContext) -> Result<()> {
        ctx.encoder().check_slots(self.slots)?;
        if let Some(h) = self.ephemeral_weight {
            check_weight(h, ctx.n())?;
        }
        self.mod_raise_secret(ctx)?;
        let log_n = (self.slots.trailing_zeros() as usize).max(1);
        for (name, rho, per_prime) in [
            (
                "CoeffsToSlots",
                self.cts_levels,
                &self.cts_factors_per_prime,
            ),
            (
                "SlotsToCoeffs",
                self.stc_levels,
                &self.stc_factors_per_prime,
            ),
        ] {
            if rho == 0 || rho > log_n {
                return Err(Error::InvalidParameters(format!(
                    "{name} levels {rho} must be in [1, log2 n = {log_n}]"
                )));
            }
            if !per_prime.is_empty()
                && (per_prime.contains(&0) || per_prime.iter().sum::<usize>() != rho)
            {
                return Err(Error::InvalidParameters(format!(
                    "{name} factors per prime {per_prime:?} must be at least 1 each and sum to \
                     its {rho} factors: use BootstrapConfig::set_factors_per_prime"
                )));
            }
        }
        if self.depth() > ctx.max_level() {
            return Err(Error::OutOfLevels(format!(
                "bootstrapping consumes {} levels (CoeffsToSlots {}, EvalMod {}, \
                 SlotsToCoeffs {}) and the chain has {} above level 0: add primes or lower \
                 the depths",
                self.depth(),
                self.cts_primes(),
                self.eval_mod.depth(),
                self.stc_primes(),
                ctx.max_level()
            )));
        }
        let log_q0 = (ctx.q_primes()[0] as f64).log2();
        if log_q0 - f64::from(self.log_message_ratio) < 20.0 {
            return Err(Error::InvalidParameters(format!(
                "q_0 has {log_q0:.1} bits: with a message ratio of 2^{} the scale at level 0 \
                 would be below 2^20; use a larger first prime or a smaller ratio",
                self.log_message_ratio
            )));
        }
        if self.eval_mod.k_prime() < self.k as f64 + 1.0 {
            return Err(Error::InvalidParameters(format!(
                "the EvalMod polynomial covers |I| <= {} and K is {}: build it with \
                 EvalMod::choose(K, ..)",
                self.eval_mod.k_prime() - 1.0,
                self.k
            )));
        }
        Ok(())
    }
}

/// `per_prime` (from a stage's lowest prime up), or one factor per prime for `rho` factors
/// when empty.
fn grouping(per_prime: &[usize], rho: usize) -> Vec<usize> {
    if per_prime.is_empty() {
        vec![1; rho]
    } else {
        per_prime.to_vec()
    }
}

/// Where each factor of a DFT stage runs, in application order (the stage's top prime
/// first): `(p, first, last)` with `p` the prime's offset below the stage's top prime and
/// whether the factor is the first / last on its prime (the last one is rescaled).
pub(crate) fn factor_layout(grouping: &[usize]) -> Vec<(usize, bool, bool)> {
    let mut out = Vec::new();
    for (p, &k) in grouping.iter().rev().enumerate() {
        for i in 0..k {
            out.push((p, i == 0, i + 1 == k));
        }
    }
    out
}
