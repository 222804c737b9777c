//! The noise budget: measured with the secret key, and estimated without it.
//!
//! Decryption computes `y = [t (c_0 + c_1 s + ...)]_{Q_ℓ}`; while the noise budget lasts,
//! `y = α m + t e` over the integers (no wrap mod `Q_ℓ`) and decryption is exact. The
//! **measured budget** is `log2(Q_ℓ / 2) - log2 ‖y‖∞` bits (0 when negative): positive
//! exactly when no coefficient can have wrapped, and after one more product of budget `b`
//! the next one roughly halves it (SEAL's invariant noise budget, up to `log2 t`).
//!
//! The **estimate** tracks `σ`, the standard deviation of the coefficients of `t e`,
//! through every operation (the central-limit heuristic of Costache–Smart and of Lattigo's
//! and OpenFHE's parameter generators: coefficients of products of independent
//! polynomials add variances, `Var(a b) = N Var(a) Var(b)`), and bounds `‖y‖∞` by
//! `t/2 + z σ` with `z` the tail factor of the largest of `N` Gaussians
//! ([`tail_factor`]). The rules, with `V_s` the variance of a secret coefficient and
//! `V_m = t^2 / 12` that of a uniform message coefficient:
//!
//! | operation | `σ^2` of the result |
//! |---|---|
//! | secret-key encryption | `t^2 σ_e^2` |
//! | public-key encryption (`u` ternary, ModDown by `P`) | `t^2 (1 + N V_s) / 12` (rounding; `P` absorbs `u e`) |
//! | add / sub | `σ_a^2 + σ_b^2` |
//! | scalar `k` | `k^2 σ^2` (k centered mod t) |
//! | plaintext product | `N V_m σ^2` |
//! | BGV tensor | `N (σ_a^2 + V_m)(σ_b^2 + V_m)` (`2N` for a square) |
//! | BFV tensor | `4 N (V_m + t^2 N V_s / 12) (σ_a^2 + σ_b^2)` (`2N` for a square; the 4: measured, see `BFV_TENSOR_CALIBRATION`) + rounding `t^2 (1 + N V_s)/12` |
//! | key switch | `+ t^2 σ_ks^2` ([`key_switch_variance`]) |
//! | modulus switch by `q` | `σ^2 / q^2 + t^2 (1 + N V_s) / 12` |

use super::ciphertext::Ciphertext;
use super::context::IntegerContext;
use crate::rlwe::keys::NOISE_SIGMA;
use crate::rlwe::SecretKey;
use crate::Result;

/// `z`: `‖x‖∞ <= z σ` for `N` centered Gaussian coefficients of deviation `σ`, except
/// with probability about `2N e^{-z^2/2}` (`2^-40` or less at the sizes hekate builds).
pub fn tail_factor(n: usize) -> f64 {
    (2.0 * ((2 * n) as f64).ln() + 40.0 * 2f64.ln() * 2.0).sqrt()
}

/// The variance of a secret coefficient (`2/3` for uniform ternary).
pub(crate) fn secret_variance(ctx: &IntegerContext) -> f64 {
    ctx.rlwe().secret_distribution().variance(ctx.n())
}

/// `t^2 (1 + N V_s) / 12`: the variance added by rounding `c_0 + c_1 s` coefficientwise
/// (public-key encryption's ModDown, a modulus switch, BFV's scale-and-round), times `t^2`.
pub(crate) fn rounding_variance(ctx: &IntegerContext) -> f64 {
    let t = ctx.t() as f64;
    t * t * (1.0 + ctx.n() as f64 * secret_variance(ctx)) / 12.0
}

/// `V_m = t^2 / 12`.
pub(crate) fn message_variance(ctx: &IntegerContext) -> f64 {
    let t = ctx.t() as f64;
    t * t / 12.0
}

/// The variance a key switch at `level` adds to the coefficients of `e` (not yet times
/// `t^2`): the ModDown rounding `(1 + N V_s)/12` plus the digits' key noise
/// `dnum' N D^2 σ_e^2 / (12 P^2)` for `dnum'` digits of size at most `D` (uniform digits
/// times Gaussian key noise, divided by `P`).
pub(crate) fn key_switch_variance(ctx: &IntegerContext, level: usize) -> f64 {
    let n = ctx.n() as f64;
    let ring = ctx.ring();
    let log_p: f64 = ring.p().log_product();
    let digits = ctx.rlwe().dnum();
    let alpha = ring.q_len().div_ceil(digits);
    let q = ring.q().moduli();
    let mut inner = 0.0;
    for d in q[..=level].chunks(alpha) {
        let log_d: f64 = d.iter().map(|m| (m.value() as f64).log2()).sum();
        inner += n * 2f64.powf(2.0 * (log_d - log_p)) * NOISE_SIGMA * NOISE_SIGMA / 12.0;
    }
    (1.0 + n * secret_variance(ctx)) / 12.0 + inner
}

impl IntegerContext {
    /// The measured noise budget of `ct` in bits: `log2(Q_ℓ/2) - log2 ‖y‖∞`, 0 when the
    /// noise has overrun the modulus (decryption is then wrong).
    pub fn noise_budget(&self, ct: &Ciphertext, sk: &SecretKey) -> Result<f64> {
        let y = self.decryption_values(ct, sk)?;
        let ring = self.ring();
        let n = self.n();
        let mut digits = vec![0u64; y.data().len()];
        let mut out = vec![0f64; n];
        ring.crt().centered_f64(y.data(), &mut digits, n, &mut out);
        ring.recycle(y);
        let max = out.iter().fold(0f64, |m, &x| m.max(x.abs())).max(1.0);
        Ok((self.log_q_at(ct.level()) - 1.0 - max.log2()).max(0.0))
    }

    /// The estimated noise budget of `ct` (no key): `log2(Q_ℓ/2) - log2(t/2 + z σ)` with
    /// the tracked `σ` ([module documentation](self)).
    pub fn estimated_noise_budget(&self, ct: &Ciphertext) -> f64 {
        let bound = self.t() as f64 / 2.0 + tail_factor(self.n()) * ct.noise.exp2();
        (self.log_q_at(ct.level()) - 1.0 - bound.log2()).max(0.0)
    }
}

/// `log2 sqrt(v)`.
pub(crate) fn log2_std(v: f64) -> f64 {
    0.5 * v.log2()
}

/// `2^(2 x)`: the variance of a tracked `log2 σ`.
pub(crate) fn var(log2_sigma: f64) -> f64 {
    (2.0 * log2_sigma).exp2()
}

/// `log2(2^a + 2^b)` without leaving `f64`'s range: variances of deep BFV products
/// (`σ` above `2^511` on long chains) overflow as numbers but not as logarithms.
pub(crate) fn log2_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        return hi;
    }
    hi + (lo - hi).exp2().ln_1p() / std::f64::consts::LN_2
}
