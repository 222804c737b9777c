//! Named bootstrapping parameter sets: the chain, the ring and the circuit of a bootstrap,
//! ready to build ([`BootstrapPreset::build`]), found by name ([`preset`]) or listed
//! ([`PRESETS`]).
//!
//! - `set-i` ... `set-v`: seed 003 (Bossuat et al., EUROCRYPT 2021) Table 5 and Table 6
//!   exactly: chain bit sizes per stage, `P`, `Δ`, `h`, `K`, `d`, `r`, `d_arcsin`, `ρ_CtS`,
//!   `ρ_StC` and `Q_0/Δ`, at the slot counts of Table 7's first row (`2^15`; Set V
//!   `2^14`). Where the tables disagree with themselves:
//!   - Set II carries the message ratio `Q_0/Δ = 4` and the arcsine of degree 7 (the
//!     extracted Table 6 prints them on Set III): Table 5's 11 EvalMod levels for Set II
//!     are `6 + 2 + 3`, Set III's 8 have no room for an arcsine, Set II's precision (31.5
//!     bits) is the arcsine's, and Lattigo's `N16QP1547H192H32` (the same chain) has
//!     `LogMessageRatio: 2`, `Mod1InvDegree: 7`. Set II's residual modulus is 285 bits
//!     (Table 5's `60 + 5 · 45`; Table 7 prints 240).
//!   - Set III's "fractional" primes: the residual `55 + 7.5 · 60` is `55 + 7 · 60 + 30`
//!     and SlotsToCoeffs's `1.5 · 60` is a 30-bit prime carrying one factor below a
//!     60-bit prime carrying two (at about `2^30` each; Lattigo's `[[30], [30, 30]]`, whose
//!     comment gives the same residual `55 + 7 · 60 + 30 = 505` bits, Table 7's
//!     `log Q_(L-k)`). These bit sizes give Table 5's `log QP = 1553` (1552 nominal) with
//!     23 primes: `L = 22`, where Table 5 prints 21.
//!   - Set IV's SlotsToCoeffs `56 + 28`: the 56-bit prime carries two factors, the 28-bit
//!     one above it one. Set V's single 60-bit SlotsToCoeffs prime carries both of its
//!     `ρ_StC = 2` factors.
//!   - Table 6's `K` is the half-width of the interpolation range `(-K, K)` (§5.3: "the
//!     range of the approximation `(-K, K)`"), which is hekate's `K' = K + 1`: the
//!     paper's `K = 25` is hekate's `K = 24` (nodes at the integers `|I| <= 24`, the
//!     interval `[-25, 25]`), exactly what Lattigo v2 (the code behind Table 7) ran with
//!     `SinRange: 25`, and Set IV's `K = 325` is hekate's 324. Table 7's `log κ` is
//!     Eq. (1) at the paper's `K`, the probability that `|Ĩ|` leaves `(-K, K)`; the
//!     interpolant is accurate only near the integers inside it, so hekate reports Eq. (1)
//!     at its own `K` ([`BootstrapPreset::failure_log2`]): `2^-13.25` for Sets I-III
//!     (Table 7: `2^-15.58`), `2^-14.25` for Set V (`2^-16.58`), `2^-14.72` for Set IV
//!     (`2^-14.90`). Read as hekate's `K = 25` (the interval `[-26, 26]`), Set II lost
//!     0.9 bits to the outer clusters' nodes: 31.09 bits per part against Table 7's 31.5,
//!     32.47 with the paper's interval (BENCHMARKS.md, "Table 6's K").
//!   - Set V's bit sizes (`33 + 50 + 25`, `60`, `8 · 50`, `2 · 49`, `P = 2 · 50`) sum to
//!     766, where Table 5 prints `log QP = 768` (Lattigo's `N15QP768H192H32` has `P = 2 ·
//!     51`), and its residual to 108 bits, where Table 7 prints 110; the preset keeps
//!     Table 5's primes.
//!
//!   All five exceed seed 003's own 128-bit table (Table 3: 1533 bits for `h = 192` at
//!   `N = 2^16`, 767 at `2^15`; 1782 for `h = N/2`) or hekate's (1747 for uniform ternary
//!   at `2^16`), and hekate checks only uniform ternary secrets: they are
//!   [`SecurityLevel::NotChecked`] reproduction sets.
//! - `h192-encapsulated`: the shape of Lattigo's `N16QP1546H192H32` (Set I's chain with
//!   sparse-secret encapsulation: `h̃ = 32`, Han and Ki's interpolant with `d = 30`,
//!   `r = 3` on Lattigo's interval `[-16, 16]`, hekate's `K = 15`).
//!
//! EvalMod's interpolant (seed 003 §5.4): Han and Ki's ([`EvalMod::han_ki`]) for the
//! sparse-key sets I, II, III, V and `h192-encapsulated` at Table 6's `d` and `r`, the
//! standard Chebyshev interpolant for the dense Set IV (`K = 325`: Han and Ki's needs
//! `d >= 2K`) and for `dense` and `dense-encapsulated` (as the Lattigo peer runs them).
//! - `quick-dense`, `quick-sparse`, `quick-encapsulated` (`N = 2^12` toy chains for
//!   smoke runs), `dense` and `dense-encapsulated` (`N = 2^16`, uniform ternary, 128-bit):
//!   hekate's own sets, `K` from a target failure probability and the shallowest EvalMod
//!   ([`BootstrapConfig::new`]).
//!
//! **Key budgets.** The sets compared with Lattigo 6.2 at `N = 2^16` and `2^15` (Sets
//! I-V, `dense-encapsulated`, `lattigo-dense0`) carry a
//! [`BootstrapConfig::key_memory_cap`], a fraction of the evaluation keys Lattigo generates
//! for the same circuit (its harness's `hekate-<preset>`, `evk_bytes`; issue 18's memory
//! target is at most 0.5x): 0.48x (measured 2026-11-29), 0.495x for Sets I, III and IV
//! (2026-12-07: the larger budget buys Set III's CoeffsToSlots and Set IV's DFTs more baby
//! steps, 1.5% and 3-4% of a bootstrap, and Set I's CoeffsToSlots a 31-diagonal factor's,
//! 10-12% of that stage; it changes nothing on Sets II and V, and on `dense-encapsulated`
//! it buys keys no measurement showed saving time, BENCHMARKS.md).
//! Their DFT factors spend it on more baby steps, fewer giant steps
//! ([`search::budget`](super::search::budget)), and the keys generated stay within it (the
//! search prices them with the sizes key generation produces). The others keep the plans
//! of `BsgsTies::FewerKeys`.
//!
//! `hekate bench bootstrap --presets NAME,...` runs any of them (`--key-cap none|MiB`
//! overrides the budget).
//!
//! ```
//! use hekate::ckks::bootstrap::presets;
//!
//! let p = presets::preset("set-iii")?;
//! let config = p.config()?;
//! // Table 5: 55 + 7.5·60 | StC 1.5·60 (a 30-bit prime, then a 60-bit one carrying two
//! // factors) | EvalMod 8·55 | CtS 4·53.
//! assert_eq!(p.chain()?, [55, 60, 60, 60, 60, 60, 60, 60, 30, 30, 60,
//!                         55, 55, 55, 55, 55, 55, 55, 55, 53, 53, 53, 53]);
//! assert_eq!((config.stc_levels, config.stc_primes(), config.depth()), (3, 2, 14));
//! # Ok::<(), hekate::Error>(())
//! ```

use super::config::{choose_eval_mod, secret_weight, BootstrapConfig};
use super::encapsulation::check_weight;
use super::evalmod::EvalMod;
use super::failure::{k_for_failure, log2_failure_probability, SecretWeight};
use crate::circuits::lintrans::{BsgsTies, GiantSteps};
use crate::ckks::{CkksContext, CkksParameters};
use crate::params::SecurityLevel;
use crate::rlwe::keyswitch::{DigitPartition, KeySwitchMethod};
use crate::rlwe::SecretDistribution;
use crate::{Error, Result};
use std::sync::Arc;

/// How a preset sets `K`, the ModRaise overflow bound (Eq. (1)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PresetK {
    /// hekate's `K`: EvalMod's interpolant covers the integers `|I| <= K`, on the interval
    /// `[-(K + 1), K + 1]` (a range half-width as seed 003 and Lattigo give it is this `K`
    /// plus one).
    Fixed(u64),
    /// The smallest `K` whose failure probability per bootstrap is at most `2^log2 κ`
    /// under the secret ModRaise runs under ([`k_for_failure`]).
    Failure(f64),
}

/// How a preset sets EvalMod's polynomial.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresetEvalMod {
    /// Degree `d` and double angles `r` as published, the standard Chebyshev interpolant
    /// ([`EvalMod::new`]).
    Fixed {
        /// `d`, the Chebyshev interpolant's degree.
        degree: usize,
        /// `r`, the double angles.
        double_angles: u32,
    },
    /// Degree `d` and double angles `r` as published, Han and Ki's interpolant at the
    /// preset's message ratio ([`EvalMod::han_ki`]; seed 003 §5.4 uses it for small `K`,
    /// the sparse-key sets).
    HanKi {
        /// `d`, the interpolant's degree (at least `2K`).
        degree: usize,
        /// `r`, the double angles.
        double_angles: u32,
    },
    /// The shallowest EvalMod within `2^-t` of the sine, `t =`
    /// [`eval_mod_log2_error`](super::eval_mod_log2_error)`(log2 R, n)` where reachable ([`choose_eval_mod`]): standard
    /// Chebyshev or Han and Ki's, whichever is shallower.
    Shallowest,
}

/// Whether a preset is built with the 128-bit security check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresetSecurity {
    /// Built with [`SecurityLevel::Bits128`] (the chain fits hekate's table).
    Bits128,
    /// Built with [`SecurityLevel::NotChecked`], for the reason given.
    NotChecked(&'static str),
}

/// A named bootstrapping parameter set: the ring and chain (bit sizes per stage, the
/// primes that carry several DFT factors), the secret, and the circuit (`R`, `K`, EvalMod,
/// arcsine, `ρ_CtS`, `ρ_StC`). [`BootstrapPreset::build`] makes its context and
/// configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BootstrapPreset {
    /// The name [`preset`] finds it by (lower case, e.g. `set-iii`).
    pub name: &'static str,
    /// What it is, in a line.
    pub description: &'static str,
    /// `log2 N`.
    pub log_n: u32,
    /// `n`, the slot count of the ciphertexts it bootstraps.
    pub slots: usize,
    /// The main secret's distribution (`h`).
    pub secret: SecretDistribution,
    /// `h̃`: sparse-secret encapsulation with an ephemeral secret of this weight.
    pub ephemeral_weight: Option<usize>,
    /// Bit sizes from `q_0`: `q_0` and the levels left after a bootstrap.
    pub residual: &'static [u32],
    /// SlotsToCoeffs's primes' bit sizes, from its lowest prime up.
    pub stc_bits: &'static [u32],
    /// The SlotsToCoeffs factors each of its primes carries, same order (they sum to
    /// `ρ_StC`).
    pub stc_factors: &'static [usize],
    /// The bit size of EvalMod's primes (one per level of its depth).
    pub eval_mod_bits: u32,
    /// CoeffsToSlots's primes' bit sizes, from its lowest prime up.
    pub cts_bits: &'static [u32],
    /// The CoeffsToSlots factors each of its primes carries (they sum to `ρ_CtS`).
    pub cts_factors: &'static [usize],
    /// The special primes `P`.
    pub log_p: &'static [u32],
    /// `log2 Δ`, the default scale.
    pub log_scale: u32,
    /// `log2 R`, `R = Q_0 / Δ_0` (Table 6's `Q_0/Δ`).
    pub log_message_ratio: u32,
    /// `K`.
    pub k: PresetK,
    /// EvalMod's `d` and `r`.
    pub eval_mod: PresetEvalMod,
    /// `d_arcsin`: the arcsine after EvalMod, 0 for none.
    pub arcsine_degree: usize,
    /// Whether it passes the 128-bit check, or why it is not checked.
    pub security: PresetSecurity,
    /// The configuration's [`BootstrapConfig::key_memory_cap`]: the bytes of keys its
    /// DFTs may spend on baby steps (`None`: the plans of `BsgsTies::FewerKeys` alone).
    pub key_memory_cap: Option<usize>,
}

/// The seed 003 sets' security note.
const PAPER_H192: &str = "seed 003 reproduction set: its log QP exceeds the paper's own \
    128-bit bound for h = 192 (Table 3: 1533 bits at N = 2^16, 767 at 2^15), and hekate's \
    table covers uniform ternary secrets only";

/// Seed 003 Table 5 / 6, Set I: `Δ = 2^40`, `K = 25` (the range `(-25, 25)`: hekate's
/// `K = 24`, see the module documentation), `d = 63`, `r = 2`, Han and Ki's
/// interpolant (§5.4: "the approximation method of Han and Ki when K is small (for sparse
/// keys) and the standard Chebyshev approximation ... for dense keys").
pub const SET_I: BootstrapPreset = BootstrapPreset {
    name: "set-i",
    description: "seed 003 Set I: N = 2^16, h = 192, log QP 1546, 2^15 slots",
    log_n: 16,
    slots: 1 << 15,
    secret: SecretDistribution::HammingWeight(192),
    ephemeral_weight: None,
    residual: &[60, 40, 40, 40, 40, 40, 40, 40, 40, 40],
    stc_bits: &[39, 39, 39],
    stc_factors: &[1, 1, 1],
    eval_mod_bits: 60,
    cts_bits: &[56, 56, 56, 56],
    cts_factors: &[1, 1, 1, 1],
    log_p: &[61; 5],
    log_scale: 40,
    log_message_ratio: 8,
    k: PresetK::Fixed(24),
    eval_mod: PresetEvalMod::HanKi {
        degree: 63,
        double_angles: 2,
    },
    arcsine_degree: 0,
    security: PresetSecurity::NotChecked(PAPER_H192),
    // 0.495x Lattigo 6.2's evaluation keys for the same circuit (7,707,164,909 bytes, its
    // harness's `hekate-set-i`, measured 2026-12-07).
    key_memory_cap: Some(3_638 << 20),
};

/// Set II: `Δ = 2^45`, message ratio 4 with the arcsine of degree 7 (see the module
/// documentation).
pub const SET_II: BootstrapPreset = BootstrapPreset {
    name: "set-ii",
    description: "seed 003 Set II: N = 2^16, h = 192, log QP 1547, ratio 4 + arcsine 7",
    residual: &[60, 45, 45, 45, 45, 45],
    stc_bits: &[42, 42, 42],
    cts_bits: &[58, 58, 58, 58],
    log_p: &[61; 4],
    log_scale: 45,
    log_message_ratio: 2,
    arcsine_degree: 7,
    // 0.48x Lattigo 6.2's evaluation keys for the same circuit (8,632,025,405 bytes, its
    // harness's `hekate-set-ii`, measured 2026-11-29).
    key_memory_cap: Some(3_951 << 20),
    ..SET_I
};

/// Set III: `Δ = 2^30`, SlotsToCoeffs `1.5 · 60` (see the module documentation).
pub const SET_III: BootstrapPreset = BootstrapPreset {
    name: "set-iii",
    description: "seed 003 Set III: N = 2^16, h = 192, log QP 1553, StC 30 + 60 (two factors)",
    residual: &[55, 60, 60, 60, 60, 60, 60, 60, 30],
    stc_bits: &[30, 60],
    stc_factors: &[1, 2],
    eval_mod_bits: 55,
    cts_bits: &[53, 53, 53, 53],
    log_scale: 30,
    // 0.495x Lattigo 6.2's evaluation keys for the same circuit (7,193,354,829 bytes, its
    // harness's `hekate-set-iii`, measured 2026-11-29).
    key_memory_cap: Some(3_395 << 20),
    ..SET_I
};

/// Set IV: the dense-key set, `h = N/2` (`HammingWeight(32768)`), `K = 325` (hekate's
/// 324), `d = 255`,
/// `r = 4` with the standard Chebyshev interpolant (§5.4; Han and Ki's needs `d >= 2K`),
/// SlotsToCoeffs `56 + 28`.
pub const SET_IV: BootstrapPreset = BootstrapPreset {
    name: "set-iv",
    description: "seed 003 Set IV: N = 2^16, h = 32768, log QP 1792, K = 325",
    secret: SecretDistribution::HammingWeight(32768),
    residual: &[50, 40, 40, 40, 40, 40, 40, 40, 40, 40],
    stc_bits: &[56, 28],
    stc_factors: &[2, 1],
    eval_mod_bits: 60,
    cts_bits: &[53, 53, 53, 53],
    log_p: &[61; 6],
    log_scale: 45,
    k: PresetK::Fixed(324),
    eval_mod: PresetEvalMod::Fixed {
        degree: 255,
        double_angles: 4,
    },
    security: PresetSecurity::NotChecked(
        "seed 003 reproduction set: log QP 1792 exceeds the 128-bit bounds for h = N/2 \
         (1782, seed 003 Table 3) and for uniform ternary (1747, hekate's table), and hekate \
         checks uniform ternary secrets only",
    ),
    // 0.495x Lattigo 6.2's evaluation keys for the same circuit (8,734,785,069 bytes, its
    // harness's `hekate-set-iv`, measured 2026-12-07).
    key_memory_cap: Some(4_123 << 20),
    ..SET_I
};

/// Set V: `N = 2^15`, `2^14` slots, `Δ = 2^25`, both SlotsToCoeffs factors on one 60-bit
/// prime.
pub const SET_V: BootstrapPreset = BootstrapPreset {
    name: "set-v",
    description: "seed 003 Set V: N = 2^15, h = 192, log QP 768, 2^14 slots",
    log_n: 15,
    slots: 1 << 14,
    residual: &[33, 50, 25],
    stc_bits: &[60],
    stc_factors: &[2],
    eval_mod_bits: 50,
    cts_bits: &[49, 49],
    cts_factors: &[1, 1],
    log_p: &[50, 50],
    log_scale: 25,
    security: PresetSecurity::NotChecked(
        "seed 003 reproduction set: Table 5's log QP 768 exceeds the paper's 128-bit bound \
         for h = 192 at N = 2^15 (Table 3: 767; Table 5's bit sizes sum to 766), and \
         hekate's table covers uniform ternary secrets only",
    ),
    // 0.48x Lattigo 6.2's evaluation keys for the same circuit (3,171,010,885 bytes, its
    // harness's `hekate-set-v`, measured 2026-11-29).
    key_memory_cap: Some(1_451 << 20),
    ..SET_I
};

/// The shape of Lattigo's `N16QP1546H192H32`: Set I's chain and `h = 192` main secret,
/// ModRaise under an ephemeral `h̃ = 32` secret, Han and Ki's interpolant (Lattigo's
/// `CosDiscrete`) of degree `d = 30` with `r = 3` (8 levels). Lattigo's `K = 16` is the
/// interval `[-16, 16]`, whose node clusters are the integers `|I| <= 15`: hekate's
/// `K = 15` (`K' = K + 1 = 16`, the same interval). Han and Ki's interpolant needs `d >= 2K`
/// (a node per integer), so `K = 16` does not fit degree 30; the failure probability is
/// `2^-86.4` per bootstrap at `2^15` slots (`2^-138.7` would need `K = 16`).
pub const H192_ENCAPSULATED: BootstrapPreset = BootstrapPreset {
    name: "h192-encapsulated",
    description: "Lattigo's N16QP1546H192H32 shape: Set I's chain, h = 192, h~ = 32, K = 15",
    ephemeral_weight: Some(32),
    k: PresetK::Fixed(15),
    eval_mod: PresetEvalMod::HanKi {
        degree: 30,
        double_angles: 3,
    },
    security: PresetSecurity::NotChecked(
        "main secret h = 192: log QP 1546 exceeds seed 003 Table 3's 128-bit bound for \
         h = 192 (1533), and hekate's table covers uniform ternary secrets only",
    ),
    key_memory_cap: None,
    ..SET_I
};

/// Lattigo 6.2's default dense set `N16QP1767H32768H32` exactly (its literal defaults):
/// [`DENSE_ENCAPSULATED`]'s chain with SlotsToCoeffs on 39-bit primes and EvalMod on
/// 60-bit primes as Lattigo's `CosDiscrete` — Han and Ki's interpolant of degree 30 with
/// 3 double angles on Lattigo's interval `[-16, 16]` (`K = 15` here: hekate interpolates on `[-(K+1), K+1]`;
/// failure `2^-86.4` per bootstrap by Eq. (1), where Lattigo's documentation states
/// `2^-138.7` for `|I| <= 16`). 128-bit (log QP 1706). The peer harness runs Lattigo's
/// own `dense0` against it.
pub const LATTIGO_DENSE0: BootstrapPreset = BootstrapPreset {
    name: "lattigo-dense0",
    description: "Lattigo's N16QP1767H32768H32 exactly: h~ = 32, Han-Ki (30, 3), StC 3 x 39",
    stc_bits: &[39, 39, 39],
    eval_mod_bits: 60,
    k: PresetK::Fixed(15),
    eval_mod: PresetEvalMod::HanKi {
        degree: 30,
        double_angles: 3,
    },
    ..DENSE_ENCAPSULATED
};

/// The toy chains' security note.
const TOY: &str = "toy chain for tests and smoke runs: N = 2^12 is far below any 128-bit set";

/// `N = 2^12`, full packing, uniform ternary, `K` for `2^-40`, toy chain.
pub const QUICK_DENSE: BootstrapPreset = BootstrapPreset {
    name: "quick-dense",
    description: "N = 2^12, 2^11 slots, uniform ternary, toy chain",
    log_n: 12,
    slots: 1 << 11,
    secret: SecretDistribution::Ternary,
    ephemeral_weight: None,
    residual: &[60, 40],
    stc_bits: &[42, 42],
    stc_factors: &[1, 1],
    eval_mod_bits: 55,
    cts_bits: &[58, 58],
    cts_factors: &[1, 1],
    log_p: &[61; 4],
    log_scale: 40,
    log_message_ratio: 8,
    k: PresetK::Failure(-40.0),
    eval_mod: PresetEvalMod::Shallowest,
    arcsine_degree: 0,
    security: PresetSecurity::NotChecked(TOY),
    key_memory_cap: None,
};

/// [`QUICK_DENSE`] with 16 slots and an `h = 64` secret.
pub const QUICK_SPARSE: BootstrapPreset = BootstrapPreset {
    name: "quick-sparse",
    description: "N = 2^12, 16 slots, h = 64, toy chain",
    slots: 1 << 4,
    secret: SecretDistribution::HammingWeight(64),
    ..QUICK_DENSE
};

/// [`QUICK_DENSE`] with sparse-secret encapsulation (`h̃ = 32`).
pub const QUICK_ENCAPSULATED: BootstrapPreset = BootstrapPreset {
    name: "quick-encapsulated",
    description: "N = 2^12, 2^11 slots, uniform ternary, h~ = 32, toy chain",
    ephemeral_weight: Some(32),
    ..QUICK_DENSE
};

/// `N = 2^16`, `2^15` slots, uniform ternary, no encapsulation, `K` for `2^-64`; 128-bit.
pub const DENSE: BootstrapPreset = BootstrapPreset {
    name: "dense",
    description: "N = 2^16, 2^15 slots, uniform ternary, K for 2^-64, 128-bit",
    log_n: 16,
    slots: 1 << 15,
    secret: SecretDistribution::Ternary,
    ephemeral_weight: None,
    residual: &[60, 40, 40, 40, 40, 40],
    stc_bits: &[42, 42, 42],
    stc_factors: &[1, 1, 1],
    // EvalMod's rounding noise (rescales and key switches under the dense key, amplified
    // by the polynomial and the double angles) is the largest error of both dense sets:
    // 61-bit primes halve it against 60-bit ones (BENCHMARKS.md, "EvalMod's noise": +1
    // bit on both, the same limb count).
    eval_mod_bits: 61,
    cts_bits: &[56, 56, 56, 56],
    cts_factors: &[1, 1, 1, 1],
    log_p: &[61; 5],
    log_scale: 40,
    log_message_ratio: 8,
    k: PresetK::Failure(-64.0),
    // Pinned to the circuit measured against Lattigo (BENCHMARKS.md): the slot-aware
    // EvalMod target would pick (255, 5) at the same depth, slower for no precision (the
    // bootstrap is limited at 15 bits by EvalMod's noise with K = 621, not its error).
    eval_mod: PresetEvalMod::Fixed {
        degree: 63,
        double_angles: 7,
    },
    arcsine_degree: 0,
    security: PresetSecurity::Bits128,
    key_memory_cap: None,
};

/// The shape of Lattigo's `N16QP1767H32768H32` (its first default set): a dense main
/// secret (uniform ternary here), an ephemeral `h̃ = 32` secret for ModRaise, `K` for
/// `2^-128` (16, as Lattigo's), 13 levels of 40 bits left, CoeffsToSlots in 4 levels of
/// 56 bits, SlotsToCoeffs in 3, EvalMod on 61-bit primes (Lattigo's are 60 bits); 128-bit
/// secure (log QP 1723).
pub const DENSE_ENCAPSULATED: BootstrapPreset = BootstrapPreset {
    name: "dense-encapsulated",
    description: "N = 2^16, 2^15 slots, uniform ternary, h~ = 32, Lattigo's dense0 shape",
    ephemeral_weight: Some(32),
    k: PresetK::Failure(-128.0),
    residual: &[60, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40],
    // The circuit measured against Lattigo (its harness mirrors it).
    eval_mod: PresetEvalMod::Fixed {
        degree: 63,
        double_angles: 2,
    },
    // 0.48x Lattigo 6.2's evaluation keys for the same circuit (10,697,752,013 bytes for
    // its harness's `hekate-dense-encapsulated` and `hekate-lattigo-dense0` alike, which
    // inherits this cap; measured 2026-11-29).
    key_memory_cap: Some(4_897 << 20),
    ..DENSE
};

/// Every preset, hekate's own first.
pub const PRESETS: [BootstrapPreset; 12] = [
    QUICK_DENSE,
    QUICK_SPARSE,
    QUICK_ENCAPSULATED,
    DENSE,
    DENSE_ENCAPSULATED,
    SET_I,
    SET_II,
    SET_III,
    SET_IV,
    SET_V,
    H192_ENCAPSULATED,
    LATTIGO_DENSE0,
];

/// The preset named `name` (case-insensitive).
pub fn preset(name: &str) -> Result<BootstrapPreset> {
    PRESETS
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .copied()
        .ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
            Error::InvalidParameters(format!(
                "unknown bootstrapping preset {name:?}: use one of {}",
                names.join(", ")
            ))
        })
}

impl BootstrapPreset {
    /// `N`.
    pub fn ring_degree(&self) -> usize {
        1 << self.log_n
    }

    /// The bootstrapping configuration (no ring is built): `K` and EvalMod as the preset
    /// sets them, the arcsine, the DFT factors per prime, Horner giant steps.
    pub fn config(&self) -> Result<BootstrapConfig> {
        let n = self.ring_degree();
        if !self.slots.is_power_of_two() || 2 * self.slots > n {
            return Err(Error::InvalidParameters(format!(
                "preset {}: slot count {} must be a power of two in [1, N/2 = {}]",
                self.name,
                self.slots,
                n / 2
            )));
        }
        let weight = match self.ephemeral_weight {
            Some(h) => {
                check_weight(h, n)?;
                SecretWeight::Fixed(h)
            }
            None => secret_weight(self.secret, n)?,
        };
        let k = match self.k {
            PresetK::Fixed(k) => k,
            PresetK::Failure(log2_kappa) => k_for_failure(weight, self.slots, log2_kappa)?,
        };
        let eval_mod = match self.eval_mod {
            PresetEvalMod::Fixed {
                degree,
                double_angles,
            } => EvalMod::new(k, double_angles, degree)?,
            PresetEvalMod::HanKi {
                degree,
                double_angles,
            } => EvalMod::han_ki(k, double_angles, degree, self.log_message_ratio)?,
            PresetEvalMod::Shallowest => choose_eval_mod(k, self.log_message_ratio, self.slots)?,
        }
        .with_arcsine(self.arcsine_degree)?;
        let mut config = BootstrapConfig {
            slots: self.slots,
            log_message_ratio: self.log_message_ratio,
            k,
            eval_mod,
            cts_levels: 0,
            stc_levels: 0,
            cts_factors_per_prime: Vec::new(),
            stc_factors_per_prime: Vec::new(),
            ephemeral_weight: self.ephemeral_weight,
            giant_steps: GiantSteps::Horner,
            bsgs_ties: BsgsTies::FewerKeys,
            key_memory_cap: self.key_memory_cap,
        };
        config.set_factors_per_prime(self.cts_factors, self.stc_factors);
        Ok(config)
    }

    /// The chain's bit sizes, from `q_0`: the residual primes, SlotsToCoeffs's, EvalMod's
    /// (as many as its depth) and CoeffsToSlots's.
    pub fn chain(&self) -> Result<Vec<u32>> {
        self.chain_for(&self.config()?)
    }

    /// The chain's bit sizes for `config` (the preset's, perhaps with other giant steps).
    pub fn chain_for(&self, config: &BootstrapConfig) -> Result<Vec<u32>> {
        config.chain_per_prime(
            self.residual,
            self.stc_bits,
            self.eval_mod_bits,
            self.cts_bits,
        )
    }

    /// The sum of the nominal bit sizes of `Q` and `P` (the built context's
    /// `log_qp()` is within a bit of it).
    pub fn nominal_log_qp(&self) -> Result<u32> {
        Ok(self.chain()?.iter().chain(self.log_p).sum())
    }

    /// `log2` of the failure probability of one bootstrap (Eq. (1)) under the secret
    /// ModRaise runs under (the ephemeral one with encapsulation), without building the
    /// ring.
    pub fn failure_log2(&self) -> Result<f64> {
        let config = self.config()?;
        let weight = match self.ephemeral_weight {
            Some(h) => SecretWeight::Fixed(h),
            None => secret_weight(self.secret, self.ring_degree())?,
        };
        Ok(log2_failure_probability(weight, config.k, self.slots))
    }

    /// The security level it is built with.
    pub fn security_level(&self) -> SecurityLevel {
        match self.security {
            PresetSecurity::Bits128 => SecurityLevel::Bits128,
            PresetSecurity::NotChecked(_) => SecurityLevel::NotChecked,
        }
    }

    /// The context for `config` (from [`Self::config`], perhaps with other giant steps),
    /// with the hybrid key switching the presets are published with.
    /// At `N = 2^16` this allocates the ring's tables (hundreds of MiB).
    pub fn context(&self, config: &BootstrapConfig) -> Result<Arc<CkksContext>> {
        self.context_with(config, KeySwitchMethod::Hybrid)
    }

    /// [`Self::context`] with another key-switching engine: the same chain and `P`, every
    /// key switch of the bootstrap (the DFTs' rotations, EvalMod's relinearizations, the
    /// encapsulation's switches) through `method`'s engine.
    ///
    /// The hybrid engine groups its digits by bits under `P`
    /// ([`DigitPartition::by_bits`](crate::rlwe::keyswitch::DigitPartition::by_bits)): on
    /// Set I's chain digits of 7, 7, 5, 5 and 1 primes (the 40-bit residual primes share
    /// digits), so most levels use one digit fewer than seed 003's rule gives them, under
    /// the same noise bound. The other engines use seed 003's (and Lattigo's) uniform
    /// digits, `dnum = ⌈(L + 1) / |P|⌉` of `|P|` primes each. At Set V that is 7 digits of
    /// two primes against `P`'s two 50-bit primes, a digit up to a fraction of a bit above
    /// `P` (within the builder's [`DIGIT_EXCESS_BITS`](crate::rlwe::params::DIGIT_EXCESS_BITS));
    /// the builder's own choice, the smallest `dnum` whose digits `P` strictly covers,
    /// would be 14, twice the transforms per key switch and twice the key memory.
    pub fn context_with(
        &self,
        config: &BootstrapConfig,
        method: KeySwitchMethod,
    ) -> Result<Arc<CkksContext>> {
        let chain = self.chain_for(config)?;
        let params = CkksParameters::new(self.log_n);
        let params = if method == KeySwitchMethod::Hybrid && self.digits_by_bits_help(&chain) {
            params.digits_by_bits()
        } else {
            params.dnum(self.uniform_dnum(&chain))
        };
        params
            .log_q(&chain)
            .log_p(self.log_p)
            .log_scale(self.log_scale)
            .secret(self.secret)
            .security(self.security_level())
            .key_switching(method)
            .build()
    }

    /// Whether digits by bits under `P` use no more digits than the uniform ones
    /// (`⌈(L + 1) / |P|⌉` digits of `|P|` primes) at every level of `chain` (bit sizes
    /// from `q_0`, a `b`-bit prime counted as `b` bits, a hair above the generated
    /// primes: the choice is one of speed, the builder's grouping of the actual primes
    /// keeps the noise bound either way). They do on chains whose small primes can share
    /// digits (Sets I, III and IV); they do not where the uniform digits lean on
    /// [`DIGIT_EXCESS_BITS`](crate::rlwe::params::DIGIT_EXCESS_BITS) (Set V's two 50-bit
    /// primes per digit against `P`'s two) or on 45-bit primes that pack worse (Set II).
    pub fn digits_by_bits_help(&self, chain: &[u32]) -> bool {
        let bits = |b: &[u32]| -> Vec<f64> { b.iter().map(|&x| f64::from(x)).collect() };
        let log_p: f64 = bits(self.log_p).iter().sum();
        let uniform = DigitPartition::uniform(chain.len(), self.uniform_dnum(chain));
        DigitPartition::by_bits(&bits(chain), log_p).never_more_digits_than(&uniform)
    }

    /// Seed 003's (and Lattigo's) `dnum = ⌈(L + 1) / |P|⌉` for `chain`: digits of `|P|`
    /// primes each.
    fn uniform_dnum(&self, chain: &[u32]) -> usize {
        chain.len().div_ceil(self.log_p.len().max(1))
    }

    /// The context and the bootstrapping configuration; generate the keys with
    /// [`generate_keys`](super::generate_keys) and bootstrap with
    /// [`Bootstrapper`](super::Bootstrapper).
    pub fn build(&self) -> Result<(Arc<CkksContext>, BootstrapConfig)> {
        self.build_with(KeySwitchMethod::Hybrid)
    }

    /// [`Self::build`] on another key-switching engine ([`Self::context_with`]).
    pub fn build_with(
        &self,
        method: KeySwitchMethod,
    ) -> Result<(Arc<CkksContext>, BootstrapConfig)> {
        let config = self.config()?;
        let ctx = self.context_with(&config, method)?;
        config.check(&ctx)?;
        Ok((ctx, config))
    }
}
