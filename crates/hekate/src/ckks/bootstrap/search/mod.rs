//! Bootstrapping parameter search: seed 003's Algorithm 8 ("Heuristic Parameter
//! Selection"), automated (`hekate params bootstrap`).
//!
//! From the ring degree `N`, the slot count `n`, the secret (and an optional ephemeral
//! weight `h̃` for sparse-secret encapsulation), the scale `Δ`, the target precision `δ`,
//! the failure probability `κ`, a security target, the levels wanted after a bootstrap and
//! a key-memory cap, [`search`] enumerates bootstrapping circuits and chains and ranks them
//! by predicted time. The steps, with Alg. 8's line numbers:
//!
//! * **line 1**: the largest `log QP` ([`Security::max_log_qp`]): hekate's 128-bit table
//!   for uniform ternary secrets and for fixed weights `h >= N/2` (conservative, research
//!   notes §1.5), the paper's Table 3 fits (Curtis-Player) for sparse weights;
//! * **line 3**: `K` from `κ` by Eq. (1) ([`k_for_failure`], under the ephemeral secret
//!   with encapsulation);
//! * **lines 2, 4**: for the smallest message ratio `R = Q_0/Δ_0` in `2^4 ..= 2^12` whose
//!   sine error (below) is within `2^-(δ + 1)` and the next two (a larger `R` only
//!   tightens EvalMod's target), the shallowest EvalMod ([`EvalMod::choose`]) whose error
//!   near the integers keeps its term within `2^-(δ + 3)` (else `2^-(δ + 1)`; the
//!   error is checked in `f64`, which caps what can be certified near `2^-45`). **No arcsine** (`d_arcsin = 0`
//!   always): targets that need one (seed 003's Set II, 31.5 bits) are refused;
//! * **line 5**: `ρ_CtS, ρ_StC` in [`SearchInputs::cts_levels`] and
//!   [`SearchInputs::stc_levels`] (default `2..=5`, at most `log2 n`): the BSGS plans of
//!   the DFT factors ([`dft_plans`], the same diagonals as [`super::dft`] builds, without
//!   computing a matrix) give key switches, decompositions, ModDowns and rotation keys,
//!   each key as wide as the level it is used at (exactly the inventory of
//!   [`key_levels`](super::key_levels)); with a key-memory cap
//!   ([`SearchInputs::max_key_bytes`]) each candidate chain spends what the cap leaves on
//!   more baby steps ([`budget`]), and the pick's configuration carries the cap
//!   (`BootstrapConfig::key_memory_cap`), so the bootstrapper built from it makes the same
//!   choice;
//! * **line 6**: the prime sizes of each stage, the smallest keeping each term of the
//!   precision model within `2^-(δ + 3)` (else `+ 2`, else `+ 1`; else, under a security
//!   bound, every stage at its cap of 61 bits, left to line 12's filling), CtS and EvalMod
//!   at most 61 bits;
//! * **line 7**: `dnum` (all of `1 ..= L + 1`) and `P`: `P` covers the largest digit by
//!   the noise margin of [`crate::rlwe::params`] (`log2(σ sqrt(1.5 dnum)) + 1` bits), in
//!   as few equal primes of at most 61 bits as possible; the fastest `dnum` under the
//!   bound is kept;
//! * **line 12**: the residual primes (`q_0` and one prime of `log Δ` bits per level left);
//!   under a security bound, the bits left under it raise the EvalMod primes and `q_0` up
//!   to 60 bits and the CoeffsToSlots primes up to 61, one bit at a time in turn (line 6's
//!   "maximum possible bit-size": without lines 8-11, which shrink them by running
//!   bootstraps, larger primes are precision margin), so `log QP` lands near the bound;
//! * lines 8-11 (run the bootstrapping and shrink) are `hekate params bootstrap --verify`:
//!   it runs the pick once and prints measured against predicted figures; it does not
//!   iterate. Line 13 (relax `ρ`, `α`, `h`, `N`) is left to the caller: every `ρ` and
//!   `dnum` is already searched, and the error says which input to change.
//!
//! Against seed 003's Table 5 (the tests): Sets I and IV come out within one level per
//! stage and 30 bits of `log QP`; Sets III and V likewise once `ρ` is held to Table 6's
//! (unconstrained, the time model prefers deeper DFTs); Set II only without its arcsine,
//! at a lower precision.
//!
//! # The precision model (a model, not a measurement)
//!
//! The error of one slot is modelled as a sum of independent terms, each an RMS absolute
//! error, for inputs `a + bi`, `a, b` uniform in `(-1, 1)` (Table 7's, RMS `σ_z = sqrt(2/3)`).
//! With `ν = sqrt(N (1 + h) / 12)` the rounding noise of one rescale (`h` the main secret's
//! weight, `2N/3` for uniform ternary), `s = sqrt(2n)` (SlotsToCoeffs sums `2n`
//! coefficients per slot), `K' = K + 1`, `r` double angles, `d` EvalMod's degree and `e`
//! its largest error near the integers ([`EvalMod::max_error`]):
//!
//! | term | formula |
//! | --- | --- |
//! | ScaleDown to `Δ_0 = q_0 / R` | `ε_0 = ν R / q_0` |
//! | CoeffsToSlots rescales and key switches, in the slots | `ε_ks = ν R s sqrt(ρ_CtS + 1) (2n / N) / (c q_0)`, `c q_0 = max(q_0, q_em / (K' N/2n))` (ModRaise's gain) |
//! | CoeffsToSlots diagonals (`D_c` of them, at `q_cts`) | `ε_cts = R s K' sqrt(D_c) / q_cts` |
//! | EvalMod's approximation | `ε_poly = R s e / sqrt(2)` |
//! | the sine against `x mod 1` | `ε_sin = (2π)^2/6 · sqrt(15) σ_z^3 / (R^2 s^2)` |
//! | EvalMod's rescales (`q_em`) | `ε_em = ν R s (K' + 2^r) sqrt(d + 1) / q_em` |
//! | SlotsToCoeffs diagonals (`D_s`, at `q_stc` less the shed scale) | `ε_stc = σ_z sqrt(D_s) 2^(shed / ρ_StC) / q_stc`, `shed = log q_em - log R - log Δ` |
//! | the output rescale | `ε_out = ν / Δ` |
//!
//! and the predicted precision is `-log2(0.886 sqrt(Σ ε²))` (the mean modulus of a complex
//! Gaussian: the "mean" precision of `hekate bench bootstrap`). The forms follow where
//! each noise enters and what scales it; the factor of `ε_em` (`(K' + 2^r) sqrt(d + 1)`:
//! the input's noise through `K'`, the polynomial's own rounding through the double
//! angles, over its `d + 1` terms) was fitted to bootstraps at `N = 2^12` (uniform ternary
//! with full packing, `h = 64` with sparse packing, encapsulation; with EvalMod primes
//! narrowed on purpose), where the model is within 1 to 2 bits of the measured mean (test
//! `the_precision_model_tracks_measurements`); at `N = 2^16` it gives 22.9 bits for the
//! chain of `hekate bench bootstrap`'s `dense-encapsulated` preset (measured: 23.0) and
//! 17.7 for `dense` (measured: 15.2; the model is optimistic at `K = 621`, `r = 7`).
//!
//! # The time model (a model, not a measurement)
//!
//! Predicted seconds are operation counts times [`UnitCosts`] (measured by the caller, or
//! [`UnitCosts::for_process`]; costs measured at another degree are scaled by
//! [`scale_costs`]): hybrid key switching split into its decomposition, inner product and
//! ModDown (the counts of [`CostModel`](crate::rlwe::keyswitch::cost::CostModel), wide or
//! narrow NTTs by prime size) for each DFT factor's [`BsgsPlan::decompositions`],
//! [`BsgsPlan::key_switches`] and [`BsgsPlan::mod_downs`] (or, for the factors with baby
//! rotations, [`BsgsPlan::extended_mod_downs`]: seed 003 Alg. 6 over `Q_l ∪ P`, its
//! plaintext products over `l + 1 + k` limbs), plus one plaintext product per
//! diagonal and one rescale per level; EvalMod's relinearizations ([`polyeval::cost`]) and double
//! angles, each a relinearization, a tensor and a rescale, and a constant product per
//! coefficient; SubSum's rotations, conjugation and decapsulation. Additions, permutations,
//! level drops, allocation and encoding are not counted. At `N = 2^16` it predicts the
//! stages of `hekate bench bootstrap`'s `dense-encapsulated` preset within 25% (0.13 /
//! 2.6 / 3.9 / 1.5 s, measured 0.16 / 3.4 / 4.5 / 1.9 s; its key inventory exactly: 40
//! Galois keys, 6,714 MiB); at `N = 2^12`, where per-operation overheads weigh more, it
//! predicts the DFTs within a factor 2 and EvalMod about 4 times too fast (`--verify`
//! prints both per stage). It ranks candidates; it does not promise a time.

use super::config::{secret_weight, BootstrapConfig};
use super::evalmod::{EvalMod, Interpolant};
use super::failure::{k_for_failure, log2_failure_probability, SecretWeight};
use crate::circuits::lintrans::{BsgsPlan, BsgsTies, GiantSteps};
use crate::circuits::polyeval;
use crate::ckks::CkksParameters;
use crate::params::security::{self, SecurityLevel};
use crate::ring::automorphism::{galois_element_for_conjugation, galois_element_for_rotation};
use crate::rlwe::keyswitch::cost::{OpCounts, UnitCosts};
use crate::rlwe::keyswitch::{digit_margin_bits, DigitPartition};
use crate::rlwe::SecretDistribution;
use crate::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::f64::consts::PI;
use std::ops::RangeInclusive;

pub mod budget;
mod model;
mod output;
#[cfg(test)]
mod tests;

pub(super) use model::dft_plans_with;
pub use model::{dft_plans, scale_costs};
use model::{log_s, log_sine_error, Chain, Circuit, Shape, Sizes};

/// The precision margin of each error term, in bits (see the [module docs](self)).
const TERM_MARGIN: f64 = 3.0;
/// The largest prime of `q_0` and EvalMod (seed 003's sets and Lattigo's use 60).
const MAX_EVAL_BITS: u32 = 60;
/// The largest prime hekate's chains take.
const MAX_PRIME_BITS: u32 = 61;
/// The smallest prime the search allocates.
const MIN_PRIME_BITS: u32 = 20;
/// RMS modulus of the model's inputs `a + bi`, `a, b` uniform in `(-1, 1)`.
const SIGMA_Z: f64 = 0.816_496_580_927_726; // sqrt(2/3)
/// The largest message ratio `log2 R` searched.
const MAX_LOG_RATIO: u32 = 12;
/// How many message ratios are searched, from the smallest the sine allows.
const RATIOS: u32 = 3;
/// How many candidates [`search`] returns at most.
const KEEP: usize = 10;

/// The security target of a search (Alg. 8 line 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Security {
    /// 128-bit classical: hekate's table ([`security::max_log_qp`]) for uniform ternary
    /// secrets and fixed weights `h >= N/2`; seed 003's Table 3 (Curtis-Player fits, `λ >=
    /// 128`) for sparse weights `64 <= h < N/2` (the fit of the largest tabulated weight `<=
    /// h`: 64, 96, 128 or 192). The preset of any fixed-weight secret is built with
    /// `SecurityLevel::NotChecked` (hekate's builder refuses fixed weights otherwise): the
    /// bound was checked here, not by the builder.
    Bits128,
    /// An explicit bound on `log QP` (no security claim: e.g. a paper's own chain size).
    MaxLogQp(f64),
    /// No bound: `SecurityLevel::NotChecked`.
    NotChecked,
}

impl Security {
    /// The largest `log2 QP` allowed for degree `ring_degree` and `secret`, `None` for no
    /// bound.
    ///
    /// # Errors
    /// [`Error::InvalidParameters`] when no 128-bit estimate exists (degree outside the
    /// table, a weight below 64).
    pub fn max_log_qp(self, ring_degree: usize, secret: SecretDistribution) -> Result<Option<f64>> {
        match self {
            Security::NotChecked => Ok(None),
            Security::MaxLogQp(b) => Ok(Some(b)),
            Security::Bits128 => {
                let table = || {
                    security::max_log_qp(ring_degree, SecurityLevel::Bits128)
                        .map(f64::from)
                        .ok_or_else(|| {
                            Error::InvalidParameters(format!(
                                "no 128-bit security estimate for N = {ring_degree}: use N \
                                 in 2^10 ..= 2^17 or --security none"
                            ))
                        })
                };
                match secret {
                    SecretDistribution::HammingWeight(h) if 2 * h < ring_degree => {
                        // Table 3: (h, slope, intercept), max log QP = slope N + intercept.
                        const FITS: [(usize, f64, f64); 4] = [
                            (64, 0.015121, -8.25),
                            (96, 0.018896, -3.67),
                            (128, 0.021370, -3.60),
                            (192, 0.023448, -3.61),
                        ];
                        let (_, a, b) = FITS.iter().rev().find(|f| f.0 <= h).ok_or_else(|| {
                            Error::InvalidParameters(format!(
                                "no 128-bit estimate for a secret of weight {h} (Table 3 \
                                 starts at 64): use a heavier secret or --security none"
                            ))
                        })?;
                        Ok(Some(a * ring_degree as f64 + b))
                    }
                    _ => table().map(Some),
                }
            }
        }
    }

    fn level(self, secret: SecretDistribution) -> SecurityLevel {
        match (self, secret) {
            (Security::Bits128, SecretDistribution::Ternary) => SecurityLevel::Bits128,
            _ => SecurityLevel::NotChecked,
        }
    }
}

/// What [`search`] looks for (Alg. 8's inputs).
#[derive(Clone, Debug)]
pub struct SearchInputs {
    /// `log2 N`.
    pub log_n: u32,
    /// `n`, the slot count (a power of two `<= N/2`).
    pub slots: usize,
    /// The main secret (`Ternary` or `HammingWeight(h)`).
    pub secret: SecretDistribution,
    /// `h̃`: sparse-secret encapsulation with an ephemeral secret of this weight.
    pub ephemeral_weight: Option<usize>,
    /// `log2 Δ`: the scale of the messages, and the size of each residual prime.
    pub log_scale: u32,
    /// `δ`: the target mean precision of a bootstrap's output, in bits.
    pub precision: f64,
    /// `log2 κ`: the largest failure probability of one bootstrap.
    pub log2_failure: f64,
    /// The security target.
    pub security: Security,
    /// The levels wanted after a bootstrap (residual primes above `q_0`).
    pub levels_left: usize,
    /// The key-memory cap, in bytes (`None`: no cap).
    pub max_key_bytes: Option<usize>,
    /// How the DFTs rotate their giant steps.
    pub giant_steps: GiantSteps,
    /// How the DFTs' `n1` is chosen among the fewest key switches.
    pub bsgs_ties: BsgsTies,
    /// The `ρ_CtS` searched (Alg. 8 line 5; default `2..=5`, clipped to `[1, log2 n]`).
    pub cts_levels: RangeInclusive<usize>,
    /// The `ρ_StC` searched (default `2..=5`, clipped to `[1, log2 n]`).
    pub stc_levels: RangeInclusive<usize>,
}

impl SearchInputs {
    /// Inputs with the defaults: 128-bit security, `Δ = 2^40`, `δ = 20` bits, `κ = 2^-64`,
    /// no encapsulation, 4 levels left, no key cap, Horner giant steps with ties to fewer
    /// keys.
    pub fn new(log_n: u32, slots: usize, secret: SecretDistribution) -> Self {
        SearchInputs {
            log_n,
            slots,
            secret,
            ephemeral_weight: None,
            log_scale: 40,
            precision: 20.0,
            log2_failure: -64.0,
            security: Security::Bits128,
            levels_left: 4,
            max_key_bytes: None,
            giant_steps: GiantSteps::Horner,
            bsgs_ties: BsgsTies::FewerKeys,
            cts_levels: 2..=5,
            stc_levels: 2..=5,
        }
    }

    fn ring_degree(&self) -> usize {
        1usize << self.log_n
    }

    fn check(&self) -> Result<()> {
        let n = self.ring_degree();
        if !(10..=17).contains(&self.log_n) {
            return Err(Error::InvalidParameters(format!(
                "log N = {} is outside the bootstrappable range 10 ..= 17",
                self.log_n
            )));
        }
        if !self.slots.is_power_of_two() || 2 * self.slots > n {
            return Err(Error::InvalidParameters(format!(
                "slot count {} must be a power of two in [1, N/2 = {}]",
                self.slots,
                n / 2
            )));
        }
        if !(20..=MAX_EVAL_BITS).contains(&self.log_scale) {
            return Err(Error::InvalidParameters(format!(
                "log Δ = {} must be in [20, 60]",
                self.log_scale
            )));
        }
        if !(self.precision.is_finite() && self.precision > 0.0) {
            return Err(Error::InvalidParameters(format!(
                "the target precision {} must be a positive number of bits",
                self.precision
            )));
        }
        Ok(())
    }
}

/// One bootstrapping configuration and chain with its predictions (Alg. 8's output:
/// `(N, n, h, Q_L, P, κ, α, d_sin, r, d_arcsin = 0, ρ_CtS, ρ_StC)`).
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// `log2 R`, `R = Q_0 / Δ_0`.
    pub log_message_ratio: u32,
    /// `K` (Eq. (1)).
    pub k: u64,
    /// `log2` of the failure probability with this `K`.
    pub failure_log2: f64,
    /// EvalMod's double angles `r`.
    pub double_angles: u32,
    /// EvalMod's Chebyshev degree `d_sin`.
    pub degree: usize,
    /// EvalMod's interpolant of the scaled cosine (standard Chebyshev or Han-Ki).
    pub interpolant: Interpolant,
    /// EvalMod's levels.
    pub eval_mod_depth: usize,
    /// `ρ_CtS`.
    pub cts_levels: usize,
    /// `ρ_StC`.
    pub stc_levels: usize,
    /// `q_0` and the residual primes (one per level left), in bits.
    pub residual: Vec<u32>,
    /// Bits of each SlotsToCoeffs prime.
    pub stc_bits: u32,
    /// Bits of each EvalMod prime.
    pub eval_mod_bits: u32,
    /// Bits of each CoeffsToSlots prime.
    pub cts_bits: u32,
    /// Bits of each special prime.
    pub log_p: Vec<u32>,
    /// `dnum` (`β`): key-switching digits at the top level (`α = ceil((L + 1) / dnum)`).
    pub dnum: usize,
    /// `log2 QP` (prime sizes as bit counts: the primes are slightly smaller).
    pub log_qp: f64,
    /// The bound it was checked against, if any.
    pub max_log_qp: Option<f64>,
    /// Predicted seconds of one bootstrap, single thread (model).
    pub predicted_seconds: f64,
    /// Its parts: ScaleDown to SubSum, CoeffsToSlots, EvalMod, SlotsToCoeffs (model).
    pub predicted_stage_seconds: [f64; 4],
    /// Predicted mean precision in bits (model).
    pub predicted_precision: f64,
    /// Key memory: relinearization, rotation and conjugation keys sized to their level,
    /// and encapsulation keys (bytes; exact for the hybrid engine).
    pub key_bytes: usize,
    /// Galois keys.
    pub galois_keys: usize,
    /// Key switches of one bootstrap (DFTs, SubSum, conjugation, EvalMod's products).
    pub key_switches: usize,
}

impl Candidate {
    /// The chain's bit sizes from `q_0` (for [`CkksParameters::log_q`]).
    pub fn chain(&self) -> Vec<u32> {
        let mut bits = self.residual.clone();
        bits.extend(std::iter::repeat_n(self.stc_bits, self.stc_levels));
        bits.extend(std::iter::repeat_n(self.eval_mod_bits, self.eval_mod_depth));
        bits.extend(std::iter::repeat_n(self.cts_bits, self.cts_levels));
        bits
    }

    /// The levels left after a bootstrap.
    pub fn levels_left(&self) -> usize {
        self.residual.len() - 1
    }

    /// `log2 Q_{L-k}`: the modulus left after a bootstrap (bit counts).
    pub fn log_q_left(&self) -> u32 {
        self.residual.iter().sum()
    }

    /// The bootstrapping configuration (for [`Bootstrapper::new`](super::Bootstrapper::new)).
    pub fn config(&self, inputs: &SearchInputs) -> Result<BootstrapConfig> {
        let n = inputs.ring_degree();
        let mut config = match inputs.ephemeral_weight {
            Some(h) => {
                BootstrapConfig::with_encapsulation(n, inputs.slots, h, inputs.log2_failure)?
            }
            None => BootstrapConfig::new(n, inputs.secret, inputs.slots, inputs.log2_failure)?,
        };
        config.log_message_ratio = self.log_message_ratio;
        config.k = self.k;
        config.eval_mod =
            EvalMod::with_interpolant(self.k, self.double_angles, self.degree, self.interpolant)?;
        (config.cts_levels, config.stc_levels) = (self.cts_levels, self.stc_levels);
        config.giant_steps = inputs.giant_steps;
        config.bsgs_ties = inputs.bsgs_ties;
        config.key_memory_cap = inputs.max_key_bytes;
        Ok(config)
    }

    /// The CKKS parameters (build them with [`CkksParameters::build`]).
    pub fn parameters(&self, inputs: &SearchInputs) -> CkksParameters {
        CkksParameters::new(inputs.log_n)
            .log_q(&self.chain())
            .log_p(&self.log_p)
            .dnum(self.dnum)
            .log_scale(inputs.log_scale)
            .secret(inputs.secret)
            .security(inputs.security.level(inputs.secret))
    }
}

/// Why no candidate survived, the most telling reason first.
#[derive(Default)]
struct Refusals {
    eval_mod: Option<String>,
    prime: Option<String>,
    security: Option<f64>,
    precision: Option<f64>,
    memory: Option<usize>,
}

/// Alg. 8 line 12: the bits left under `bound` raise `q_0` and the EvalMod primes up to
/// 60 bits and the CoeffsToSlots primes up to 61, one bit at a time in turn (SlotsToCoeffs
/// follows EvalMod's scale), keeping `dnum`.
fn fill(circuit: &Circuit, mut s: Sizes, dnum: usize, bound: f64) -> (Sizes, Chain) {
    let build = |s: &Sizes| Chain::with_special_primes(circuit.chain_bits(s), dnum);
    let mut chain = build(&s);
    loop {
        let mut grown = false;
        for stage in 0..3 {
            let mut t = s;
            match stage {
                0 if t.eval_mod < MAX_EVAL_BITS => {
                    t.eval_mod += 1;
                    t.stc = t
                        .stc
                        .max(circuit.stc_bits(t.eval_mod, s.margin))
                        .min(MAX_PRIME_BITS);
                }
                1 if t.q0 < MAX_EVAL_BITS => t.q0 += 1,
                2 if t.cts < MAX_PRIME_BITS => t.cts += 1,
                _ => continue,
            }
            let c = build(&t);
            if c.log_qp() <= bound {
                (s, chain, grown) = (t, c, true);
            }
        }
        if !grown {
            return (s, chain);
        }
    }
}

/// Alg. 8 (see the [module documentation](self)): the candidates meeting `inputs`, fastest
/// first by the time model with `costs` (scaled to `N` by [`scale_costs`] if measured at
/// another degree), at most ten, one per circuit shape (EvalMod, `ρ_CtS`, `ρ_StC`) with its
/// fastest message ratio and `dnum`.
///
/// # Errors
/// [`Error::InvalidParameters`] for inputs out of range (slots above `N/2`, a Gaussian
/// secret, ...) and, naming what to change, when nothing meets the precision target, the
/// security bound or the key-memory cap.
pub fn search(inputs: &SearchInputs, costs: &UnitCosts) -> Result<Vec<Candidate>> {
    inputs.check()?;
    let n = inputs.ring_degree();
    let costs = scale_costs(costs, n);
    let bound = inputs.security.max_log_qp(n, inputs.secret)?;
    // Line 3: K from κ, under the secret ModRaise runs under.
    let weight = match inputs.ephemeral_weight {
        Some(h) => {
            super::encapsulation::check_weight(h, n)?;
            SecretWeight::Fixed(h)
        }
        None => secret_weight(inputs.secret, n)?,
    };
    let k = k_for_failure(weight, inputs.slots, inputs.log2_failure)?;
    let failure_log2 = log2_failure_probability(weight, k, inputs.slots);
    let h_main = match inputs.secret {
        SecretDistribution::HammingWeight(h) => h as f64,
        _ => 2.0 * n as f64 / 3.0,
    };
    let log_nu = 0.5 * (n as f64 * (1.0 + h_main) / 12.0).log2();
    // The output rescale alone: ε_out = ν / Δ.
    let ceiling = -(0.886f64.log2() + log_nu - f64::from(inputs.log_scale));
    if ceiling < inputs.precision {
        return Err(Error::InvalidParameters(format!(
            "precision {} bits is out of reach at Δ = 2^{}: the output's rescale noise alone \
             (about 2^{log_nu:.1} for this secret and N) limits it to {ceiling:.1} bits; \
             raise --scale or lower --precision",
            inputs.precision, inputs.log_scale
        )));
    }
    let max_rho = (inputs.slots.trailing_zeros() as usize).max(1);
    let clip = |r: &RangeInclusive<usize>| -> Vec<usize> {
        let v: Vec<usize> = r.clone().filter(|&x| x >= 1 && x <= max_rho).collect();
        if v.is_empty() {
            vec![(*r.start()).clamp(1, max_rho)]
        } else {
            v
        }
    };
    let mut shapes = BTreeMap::new();
    for rc in clip(&inputs.cts_levels) {
        for rs in clip(&inputs.stc_levels) {
            shapes.insert((rc, rs), Shape::new(inputs, rc, rs)?);
        }
    }
    let mut why = Refusals::default();
    let mut found: Vec<Candidate> = Vec::new();
    let mut previous: Option<EvalMod> = None;
    let t = inputs.precision + TERM_MARGIN;
    // Lines 2 and 4: the smallest ratio whose sine error is within 2^-(δ + 1), and the next
    // two (a larger ratio only tightens EvalMod's target, by one bit per doubling), each
    // with the shallowest EvalMod.
    let smallest = (4..=MAX_LOG_RATIO)
        .find(|&r| -log_sine_error(r, inputs.slots) >= inputs.precision + TERM_MARGIN - 2.0);
    let ratios = smallest.map_or(0..=0, |r| r..=(r + RATIOS - 1).min(MAX_LOG_RATIO));
    for log_ratio in ratios.filter(|_| smallest.is_some()) {
        let want = t + f64::from(log_ratio) + log_s(inputs.slots) - 0.5;
        // The previous ratio's EvalMod, if it still qualifies (it was the shallowest at a
        // looser target), else the shallowest for this one.
        let reuse = previous
            .take()
            .filter(|e: &EvalMod| e.max_error((-f64::from(log_ratio)).exp2()) <= (-want).exp2());
        // Within 2^-(δ + 3), else 2^-(δ + 1) (the precision check below has the last word).
        let choose = || {
            // Standard Chebyshev only: the precision model takes the error over every
            // |I| <= K, and Han and Ki's interpolant is accurate near the likely small |I|
            // but not at the largest (the model would misjudge it).
            EvalMod::choose_chebyshev(k, log_ratio, want)
                .or_else(|_| EvalMod::choose_chebyshev(k, log_ratio, want - (TERM_MARGIN - 1.0)))
        };
        let eval_mod = match reuse.map_or_else(choose, Ok) {
            Ok(e) => e,
            Err(e) => {
                why.eval_mod
                    .get_or_insert(format!("R = 2^{log_ratio}: {e}"));
                continue;
            }
        };
        previous = Some(eval_mod.clone());
        let poly_relinearizations = polyeval::cost(eval_mod.polynomial()).relinearizations;
        for ((rc, rs), shape) in &shapes {
            let circuit = Circuit {
                inputs,
                shape,
                eval_mod: &eval_mod,
                poly_relinearizations,
                log_ratio,
                k,
                log_nu,
            };
            // Line 6: each term within 2^-(δ + 3), or + 2, or + 1 where that is too wide;
            // last, the sizes for + 3 capped at 61 bits, left to line 12's filling.
            let mut sizes = None;
            for margin in [TERM_MARGIN, TERM_MARGIN - 1.0, TERM_MARGIN - 2.0] {
                let s = circuit.sizes(margin);
                let widest = s.q0.max(s.cts).max(s.eval_mod).max(s.stc);
                if widest > MAX_PRIME_BITS {
                    why.prime.get_or_insert(format!(
                        "R = 2^{log_ratio}, ρ = ({rc}, {rs}): a {widest}-bit prime would be needed"
                    ));
                } else if circuit.precision(&s) < inputs.precision {
                    let p = circuit.precision(&s);
                    why.precision = Some(why.precision.map_or(p, |b: f64| b.max(p)));
                } else {
                    sizes = Some(s);
                    break;
                }
            }
            let sizes = sizes.or_else(|| {
                bound?;
                let s = circuit.sizes(TERM_MARGIN);
                let cap = |b: u32| b.min(MAX_PRIME_BITS);
                Some(Sizes {
                    q0: cap(s.q0),
                    stc: cap(s.stc),
                    eval_mod: cap(s.eval_mod),
                    cts: cap(s.cts),
                    ..s
                })
            });
            let Some(sizes) = sizes else { continue };
            let levels = circuit.chain_bits(&sizes).len();
            let mut best: Option<Candidate> = None;
            for dnum in 1..=levels {
                let (sizes, chain) = match bound {
                    Some(b) => {
                        let chain = Chain::with_special_primes(circuit.chain_bits(&sizes), dnum);
                        if chain.log_qp() > b {
                            let over = chain.log_qp() - b;
                            why.security = Some(why.security.map_or(over, |w: f64| w.min(over)));
                            continue;
                        }
                        fill(&circuit, sizes, dnum, b)
                    }
                    None => (
                        sizes,
                        Chain::with_special_primes(circuit.chain_bits(&sizes), dnum),
                    ),
                };
                let precision = circuit.precision(&sizes);
                if precision < inputs.precision {
                    why.precision =
                        Some(why.precision.map_or(precision, |p: f64| p.max(precision)));
                    continue;
                }
                // A key cap buys baby steps (search::budget), as the bootstrapper built
                // from the candidate's configuration will.
                let budgeted = match inputs.max_key_bytes {
                    Some(cap) => circuit.budgeted(&chain, cap)?,
                    None => None,
                };
                let circuit = match &budgeted {
                    Some(shape) => Circuit { shape, ..circuit },
                    None => circuit,
                };
                let (counts, key_switches, key_bytes, galois_keys) = circuit.costs(&chain);
                let stage_seconds = counts.map(|c| c.seconds(&costs));
                if inputs.max_key_bytes.is_some_and(|cap| key_bytes > cap) {
                    why.memory = Some(why.memory.map_or(key_bytes, |m: usize| m.min(key_bytes)));
                    continue;
                }
                let cand = Candidate {
                    log_message_ratio: log_ratio,
                    k,
                    failure_log2,
                    double_angles: eval_mod.double_angles(),
                    degree: eval_mod.polynomial().degree(),
                    interpolant: eval_mod.interpolant(),
                    eval_mod_depth: eval_mod.depth(),
                    cts_levels: *rc,
                    stc_levels: *rs,
                    residual: chain.q[..=inputs.levels_left].to_vec(),
                    stc_bits: sizes.stc,
                    eval_mod_bits: sizes.eval_mod,
                    cts_bits: sizes.cts,
                    log_qp: chain.log_qp(),
                    log_p: chain.p.clone(),
                    dnum,
                    max_log_qp: bound,
                    predicted_seconds: stage_seconds.iter().sum(),
                    predicted_stage_seconds: stage_seconds,
                    predicted_precision: precision,
                    key_bytes,
                    galois_keys,
                    key_switches,
                };
                if best
                    .as_ref()
                    .is_none_or(|b| cand.predicted_seconds < b.predicted_seconds)
                {
                    best = Some(cand);
                }
            }
            found.extend(best);
        }
    }
    if found.is_empty() {
        return Err(refusal(inputs, bound, why));
    }
    found.sort_by(|a, b| a.predicted_seconds.total_cmp(&b.predicted_seconds));
    // One candidate per circuit shape: the fastest message ratio.
    let mut shapes_seen = BTreeSet::new();
    found.retain(|c| shapes_seen.insert((c.cts_levels, c.stc_levels, c.double_angles, c.degree)));
    found.truncate(KEEP);
    Ok(found)
}

fn refusal(inputs: &SearchInputs, bound: Option<f64>, why: Refusals) -> Error {
    let msg = if let Some(m) = why.memory {
        format!(
            "no candidate fits the key-memory cap of {:.2} GiB: the smallest needs {:.2} GiB; \
             raise --max-key-gib, or lower the slot count or the levels",
            inputs.max_key_bytes.unwrap_or(0) as f64 / f64::from(1u32 << 30),
            m as f64 / f64::from(1u32 << 30)
        )
    } else if let Some(over) = why.security {
        format!(
            "every candidate exceeds the security bound log QP <= {:.0} (by {over:.0} bits at \
             least): lower --levels-left, --scale or --precision, use a larger N, or \
             --security none",
            bound.unwrap_or(0.0)
        )
    } else if let Some(p) = why.precision {
        format!(
            "precision {} bits is out of reach (the model's best is {p:.1} bits): lower \
             --precision or raise --scale",
            inputs.precision
        )
    } else if let Some(m) = why.prime.or(why.eval_mod) {
        format!(
            "precision {} bits is out of reach: {m}; lower --precision",
            inputs.precision
        )
    } else {
        format!(
            "precision {} bits is out of reach: the sine's own error (2π)²x³/6 is too large at \
             every message ratio up to 2^12 for {} slots (an arcsine is not modelled); lower \
             --precision",
            inputs.precision, inputs.slots
        )
    };
    Error::InvalidParameters(msg)
}
