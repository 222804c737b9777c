//! CKKS bootstrapping with dense secret keys (seed 003: Bossuat, Mouchet,
//! Troncoso-Pastoriza, Hubaux, EUROCRYPT 2021).
//!
//! Bootstrapping refreshes a ciphertext that has run out of levels: it returns the same
//! message at [`Bootstrapper::output_level`], high in the chain, at the input's scale
//! exactly. The circuit (§5.1, "ModRaise first"):
//!
//! 1. **ScaleDown** ([`Bootstrapper::scale_down`]): the input to level 0 at the scale
//!    `Δ_0 = q_0 / R` exactly, `R = 2^log_message_ratio` the *message ratio*, so that the
//!    message's coefficients `m` satisfy `|m| <= q_0 / R` for slot values of magnitude
//!    at most about 1.
//! 2. **ModRaise** ([`Bootstrapper::mod_raise`]): `(c_0, c_1) mod q_0` lifted to `Q_L`,
//!    times an integer gain `c` where `q_0` is small against EvalMod's primes
//!    ([`Bootstrapper::mod_raise_gain`], so that the key switches that follow add their
//!    noise to a larger message; `c = 1` otherwise). It decrypts to `c t`,
//!    `t = m + q_0 I(X)`, with `I` the small integer polynomial of the
//!    wrap-arounds of `c_0 + c_1 s`: each coefficient a sum of about `h + 1` uniforms on
//!    `(-1/2, 1/2)` (`h` the secret's Hamming weight), bounded by `K` except with the
//!    failure probability of Eq. (1) ([`failure`], [`BootstrapConfig::failure_log2`]).
//!
//!    With **sparse-secret encapsulation** ([`encapsulation`],
//!    [`BootstrapConfig::with_encapsulation`]), ModRaise runs under an ephemeral secret of
//!    small weight `h̃` ([`Bootstrapper::encapsulate`] before it, a key switch in the ring
//!    `q_0 p`; [`Bootstrapper::decapsulate`] after it, at the top level), so `K` follows
//!    `h̃` (16 at `2^-138` for `h̃ = 32`) while the main secret stays dense.
//! 3. **SubSum** ([`Bootstrapper::sub_sum`], sparse packing `n < N/2` only): the trace
//!    onto the subring of `n` slots, which zeroes the coefficients of `I` outside it.
//! 4. **CoeffsToSlots** ([`Bootstrapper::coeffs_to_slots`]): the inverse special FFT as
//!    `ρ_CtS` BSGS linear transforms ([`dft`]: merged radix-2 stages, one level each, or
//!    several on one prime without a rescale between them:
//!    [`BootstrapConfig::set_factors_per_prime`], seed 003 Table 5's fractional primes),
//!    then conjugation splits real and imaginary parts: two ciphertexts whose slots hold
//!    the `2n` coefficients `t_k / (q_0 K')`. The constants (`1/2` of the split, `1/K'`
//!    of EvalMod's change of variable, `N/2n` of SubSum) are folded into the scale and
//!    the matrices, never spent as levels.
//! 5. **EvalMod** ([`evalmod`], [`Bootstrapper::eval_mod`]): `x -> (1/2π) sin(2π x)`
//!    slot-wise, a Chebyshev interpolant of a scaled cosine and `r` double angles
//!    (Alg. 7); since `x = I + m/q_0`, the result is `m / q_0` up to
//!    `(2π)^2 (m/q_0)^3 / 6`, which an optional arcsine ([`EvalMod::with_arcsine`])
//!    removes for small message ratios.
//! 6. **SlotsToCoeffs** ([`Bootstrapper::slots_to_coeffs`]): `re + i·im`, then the
//!    special FFT as `ρ_StC` factors: the slots hold the message again. The last factor's
//!    diagonals are encoded at the scale that lands the output on the input's scale
//!    exactly (one encoding per distinct input scale, cached).
//!
//! **Repacking** (sparse packing with `2n <= N/2`, as Lattigo does): SubSum's output is
//! read as `2n` slots holding `[u, u]`; CoeffsToSlots's last factor makes `[a, -i a]`,
//! whose conjugate sum `[2 Re a, 2 Im a]` carries both halves in one ciphertext, so
//! EvalMod runs once instead of twice; SlotsToCoeffs's first factor recombines them.
//!
//! Both DFTs drop the FFT's bit reversal: EvalMod acts slot-wise, so the coefficients can
//! sit in bit-reversed order between them.
//!
//! **Scales** are exact rationals throughout (seed 003 §3.3, Alg. 2): ModRaise's output is
//! *read* at `S_0 = c q_0 K' (N/2n)` (a reinterpretation, free), CoeffsToSlots preserves
//! it and its last factor lands on the prime of EvalMod's first level, EvalMod's scales
//! are planned backwards from the output, and SlotsToCoeffs lands on the input's scale.
//!
//! **Keys**: [`galois_elements`] lists the Galois elements one bootstrap uses (both
//! DFTs' BSGS rotations, SubSum's rotations, conjugation) before any key exists, and
//! [`generate_keys`] generates exactly those plus the relinearization key (and the two
//! encapsulation keys when configured), as [`BootstrapKeys`].
//! [`Bootstrapper::new`] takes public keys only.
//!
//! **Presets** ([`presets`]): seed 003's Sets I-V as published, the shape of Lattigo's
//! `N16QP1546H192H32`, and hekate's own sets, each building its context and configuration
//! ([`BootstrapPreset::build`]).
//!
//! ```
//! use hekate::ckks::bootstrap::{self, BootstrapConfig, Bootstrapper};
//! use hekate::prelude::*;
//!
//! // 8 slots in N = 2^10 under a sparse secret, failure probability at most 2^-40.
//! let secret = SecretDistribution::HammingWeight(32);
//! let mut config = BootstrapConfig::new(1 << 10, secret, 8, -40.0)?;
//! (config.cts_levels, config.stc_levels) = (2, 2);
//! // A toy chain (not secure): q_0 and one residual prime, then the bootstrapping levels.
//! let ctx = CkksParameters::new(10).log_q(&config.chain(&[60, 40], 42, 55, 58))
//!     .log_p(&[61, 61, 61]).log_scale(40).secret(secret)
//!     .security(SecurityLevel::NotChecked)
//!     .build()?;
//! let sk = ctx.generate_secret_key();
//! let keys = bootstrap::generate_keys(&ctx, &config, &sk)?;
//! let boot = Bootstrapper::new(ctx.clone(), config, keys)?;
//!
//! let z: Vec<Complex64> = (0..8).map(|i| Complex64::new(0.1 * i as f64 - 0.4, 0.05)).collect();
//! let pt = ctx.encode_at(&z, 8, 1, ctx.default_scale())?;
//! let ct = ctx.encrypt_symmetric(&pt, &sk)?; // at level 1: nothing left to multiply
//! let fresh = boot.bootstrap(&ct)?;
//! assert_eq!((fresh.level(), fresh.scale()), (boot.output_level(), ct.scale()));
//! let got = ctx.decrypt_decode(&fresh, &sk)?;
//! for (g, w) in got.iter().zip(&z) {
//!     assert!((g - w).norm() < 1e-3);
//! }
//! # Ok::<(), hekate::Error>(())
//! ```

mod bootstrapper;
mod config;
pub mod cosine;
pub mod dft;
pub mod encapsulation;
pub mod evalmod;
pub mod failure;
mod keys;
mod pipeline;
pub mod presets;
mod scales;
pub mod search;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_encapsulation;
#[cfg(test)]
mod tests_multi;
#[cfg(test)]
mod tests_presets;

pub use bootstrapper::Bootstrapper;
pub use config::{choose_eval_mod, eval_mod_log2_error, BootstrapConfig, EVAL_MOD_PRECISION_BITS};
pub use encapsulation::EncapsulationKeys;
pub use evalmod::{EvalMod, Interpolant};
pub use keys::{galois_elements, generate_keys, generate_keys_with, key_levels, BootstrapKeys};
pub use pipeline::{BootstrapEvaluator, BootstrapTransforms};
pub use presets::{preset, BootstrapPreset, PRESETS};
