//! Where bootstrapping puts its scales beyond what exactness fixes: ModRaise's integer gain
//! (CoeffsToSlots' side) and EvalMod's output target (SlotsToCoeffs' side). Both trade one
//! error against another; the measurements behind them are in BENCHMARKS.md ("ModRaise's
//! gain and EvalMod's output target").

use super::config::BootstrapConfig;
use super::failure::SecretWeight;
use crate::ckks::{CkksContext, Scale};

/// `q_0 K' (N / 2n)`: [`raised_scale`] without the gain.
fn unscaled_raised_scale(ctx: &CkksContext, config: &BootstrapConfig) -> Scale {
    let g = super::bootstrapper::trace_factor(ctx, config.slots) as u64;
    let k_prime = config.eval_mod.k_prime();
    ctx.constant_scale(0)
        .mul(&Scale::from_f64(k_prime).expect("K' is a positive integer"))
        .mul_integer(g)
}

/// The scale ModRaise's output is read at: `S_0 = c q_0 K' (N / 2n)`, `c` the gain
/// ([`raise_gain`]), so that after SubSum and CoeffsToSlots a slot holds `t / (q_0 K')`.
pub(super) fn raised_scale(ctx: &CkksContext, config: &BootstrapConfig) -> Scale {
    unscaled_raised_scale(ctx, config).mul_integer(raise_gain(ctx, config))
}

/// ModRaise's integer gain `c = max(1, ⌊q_EvalMod / (q_0 K' (N/2n))⌋)` (Lattigo's
/// "ScaleUp"), `q_EvalMod` the prime of EvalMod's first level. CoeffsToSlots must take
/// the raised `t / (q_0 K')` from the scale `q_0 K' (N/2n)` to about `q_EvalMod`; a
/// diagonal cannot usefully be encoded above its prime, so where `q_EvalMod` exceeds
/// `q_0 K' (N/2n)` (a small `q_0`: seed 003's Set V has `q_0 = 2^33` below 50-bit EvalMod
/// primes) the excess is taken here, as an exact integer product before any key switch,
/// rather than by CoeffsToSlots' last factor after its rotations: their key-switching
/// noise is then `c` times smaller against the message (Set V: `c = 5041` at `K = 25`, 11.2 -> 14.9
/// bits). 1 when several CoeffsToSlots factors share a prime
/// ([`BootstrapConfig::set_factors_per_prime`]): their diagonals need that excess
/// themselves (see [`Bootstrapper::new`](super::Bootstrapper::new)).
pub(super) fn raise_gain(ctx: &CkksContext, config: &BootstrapConfig) -> u64 {
    if config.cts_grouping().iter().any(|&k| k > 1) {
        return 1;
    }
    let eval_mod_level = ctx.max_level() - config.cts_primes();
    let excess =
        ctx.constant_scale(eval_mod_level).to_f64() / unscaled_raised_scale(ctx, config).to_f64();
    excess.floor().max(1.0) as u64
}

/// `log2` of the fitted factor of [`eval_mod_target`]'s `E_1` (EvalMod's output noise
/// over one rescale's rounding): fitted on seed 003's Sets III and V, whose measured best
/// EvalMod outputs (`2^49`-`2^50` and `2^45`-`2^47`) it reproduces within a bit.
const EVAL_MOD_NOISE_LOG_FACTOR: f64 = 3.5;

/// EvalMod's output target `T` (SlotsToCoeffs reads it at `S = T / R`), for an output at
/// the context's default scale `Δ`. SlotsToCoeffs takes `S` down to `Δ` over its `ρ`
/// factors and the primes `Π q_StC` it rescales by, so its diagonals get
/// `D = (Δ Π q_StC / S)^(1/ρ)` each, and two errors (relative to the message, in the
/// slots) pull against each other:
///
/// - EvalMod's output noise, summed over `2n` coefficients by SlotsToCoeffs:
///   `E_1 = 2^f ν sqrt(2n) / S`, `ν = sqrt(N (h + 1) / 12)` a rescale's rounding in the
///   slots (`h` the secret's weight), `f =` [`EVAL_MOD_NOISE_LOG_FACTOR`];
/// - the diagonals' rounding, `sqrt(N / 12)` in the slots each, over `ρ` factors:
///   `E_2 = sqrt(ρ N / 12) / D`.
///
/// `E_1^2 + E_2^2` is least at `log2 S* = (a + b) / (1 + 1/ρ)`, `a = log2 E_1 S`, `b =
/// log2(Δ Π q_StC) / ρ - log2 sqrt(ρ N / 12)`. The target is `min(q_EvalMod, R S*)`,
/// `q_EvalMod` the prime of EvalMod's last level (the former choice, and the most its
/// scales allow). Where SlotsToCoeffs has small primes for its factors the diagonals
/// win: Set III's (`30 + 60` bits for 3 factors, `Δ = 2^30`) 2^24 -> 2^26, 18.4 -> 19.4
/// bits.
pub(super) fn eval_mod_target(ctx: &CkksContext, config: &BootstrapConfig) -> f64 {
    let stc_level = ctx.max_level() - config.cts_primes() - config.eval_mod.depth();
    let q_em = ctx.constant_scale(stc_level + 1).to_f64();
    let n = ctx.n() as f64;
    let h = match super::config::secret_weight(ctx.secret_distribution(), ctx.n()) {
        Ok(SecretWeight::Fixed(h)) => h as f64,
        Ok(SecretWeight::UniformTernary { ring_degree }) => 2.0 * ring_degree as f64 / 3.0,
        Err(_) => return q_em,
    };
    let rho = config.stc_levels as f64;
    let stc_bits: f64 = (0..config.stc_primes())
        .map(|i| ctx.constant_scale(stc_level - i).log2())
        .sum();
    let a = EVAL_MOD_NOISE_LOG_FACTOR
        + 0.5 * (n * (h + 1.0) / 12.0).log2()
        + 0.5 * (2.0 * config.slots as f64).log2();
    let b = (ctx.default_scale().log2() + stc_bits) / rho - 0.5 * (rho * n / 12.0).log2();
    let best = (a + b) / (1.0 + 1.0 / rho) + f64::from(config.log_message_ratio);
    q_em.min(best.exp2())
}

#[cfg(test)]
mod tests {
    use super::super::presets::preset;
    use super::*;

    /// EvalMod's output target moves below its prime only where SlotsToCoeffs's primes are
    /// short for its factors (Sets III and V, measured better at full size: BENCHMARKS.md),
    /// and stays on it for the sets whose diagonals already have room (Lattigo's dense
    /// set, hekate's `dense`); ModRaise's gain is above 1 for Set V's 33-bit `q_0` alone.
    #[test]
    fn the_targets_move_only_where_slots_to_coeffs_is_short() {
        for (name, lowered, gain) in [
            ("set-iii", Some(48.9), 1),
            ("set-v", Some(45.9), 5243),
            ("lattigo-dense0", None, 1),
            ("dense", None, 1),
            ("set-i", Some(58.1), 1),
        ] {
            let (ctx, config) = preset(name).unwrap().build().unwrap();
            let stc_level = ctx.max_level() - config.cts_primes() - config.eval_mod.depth();
            let q_em = ctx.constant_scale(stc_level + 1).log2();
            let t = eval_mod_target(&ctx, &config).log2();
            match lowered {
                Some(want) => assert!((t - want).abs() < 0.1, "{name}: 2^{t:.2}"),
                None => assert_eq!(t, q_em, "{name}"),
            }
            assert_eq!(raise_gain(&ctx, &config), gain, "{name}");
        }
    }
}
