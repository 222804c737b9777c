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
//! ([`tail_factor`]). Tensors multiply polynomials that depend on the same `s`, which
//! the heuristic misses: their rules carry the secret correlation factor `C`
//! (`bfv_tensor_log_variance`, `bgv_tensor_variance`). The rules, with `V_s` the variance of a secret coefficient
//! and `V_m = t^2 / 12` that of a uniform message coefficient:
//!
//! | operation | `σ^2` of the result |
//! |---|---|
//! | secret-key encryption | `t^2 σ_e^2` |
//! | public-key encryption (`u` ternary, ModDown by the encryption prefix `P'` of `P`) | `t^2 (1 + N V_s) / 12` (rounding; `P' >= 2^40` absorbs `u e`) |
//! | add / sub | `σ_a^2 + σ_b^2` |
//! | scalar `k` | `k^2 σ^2` (k centered mod t) |
//! | plaintext product | `N V_m σ^2` |
//! | BGV tensor | `N (C σ_a^2 σ_b^2 + V_m (σ_a^2 + σ_b^2) + V_m^2)` (`2N` for a square), `C` the secret correlation factor of the noises' degrees (`bgv_tensor_variance`) |
//! | BFV tensor | `N W (C_a (σ_a^2 + V_m) + C_b (σ_b^2 + V_m))` (`4 N W C_a (σ_a^2 + V_m)` for a square), `W = t^2 (1 + N V_s) / 12`, `C = 1.2 min(d + 1, ln(N/2) + 0.58)` the secret correlation factor of noise of degree `d` in `s` (`bfv_tensor_log_variance`), + rounding `t^2 (1 + N V_s + 2 N^2 V_s^2) / 12` |
//! | key switch | `+ t^2 σ_ks^2` (`key_switch_variance`) |
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

/// `d`, the degree in `s` of noise of variance `v = 2^log2_v`: fresh public-key noise and the
/// rounding floor `t (r_0 + r_1 s)` (variance `V_r`, [`rounding_variance`]) have degree 1
/// (secret-key noise, degree 0, is counted as 1), and a product adding the degrees
/// `d_a + d_b` multiplies variances to at least `N^{d-1} V_r^d` (BFV's tensor multiplies
/// by `N W` with `W = V_r`, see `bfv_tensor_log_variance`; BGV's by the other operand's
/// `N σ_b^2`), so `d = 1 + floor(log(v / V_r) / log(N V_r))`. Plaintext products (noise
/// not correlated with `s`) may be counted as products, which only makes the estimate
/// more pessimistic.
fn secret_degree(ctx: &IntegerContext, log2_v: f64) -> f64 {
    let floor = rounding_variance(ctx).log2();
    // (Capped: beyond it the factor is H^min(a, b) anyway, and v may be infinite.)
    1.0 + ((log2_v - floor) / ((ctx.n() as f64).log2() + floor))
        .floor()
        .clamp(0.0, MAX_DEGREE)
}

/// The largest degree [`secret_degree`] reports.
const MAX_DEGREE: f64 = 64.0;

/// `C = κ min(binom(a + b, a), H_{N/2}^{min(a, b)})`: the secret correlation factor of
/// the product of two noises of degrees `a` and `b` in `s` (BFV: `b = 1`, `C = κ min(a +
/// 1, H_{N/2})`, see `bfv_tensor_log_variance`; BGV: `bgv_tensor_variance`).
///
/// The product of `P_a s^a` and `P_b s^b` is the term `P_a P_b s^{a+b}`, whose variance is
/// `‖s^{a+b}‖^2 / (‖s^a‖^2 ‖s^b‖^2 / N)` times the figure for independent coefficients.
/// With `x_j = |s(ζ_j)|^2 / (N V_s)` the evaluations of the secret at the `N/2` conjugate
/// pairs of roots (about independent exponentials of mean 1 for a dense secret), that
/// ratio is `M_{a+b} / (M_a M_b)` for the moments `M_d = mean_j x_j^d`: `(a+b)! / (a! b!)`
/// in expectation, and at most `(max_j x_j)^{min(a, b)}` for any key (`M_b >= 1`), with
/// `max_j x_j` about `H_{N/2} ≈ ln(N/2) + 0.577` (the expected maximum of `N/2`
/// exponentials). For random ternary keys the ratio
/// follows `d + 1` and then levels off below `H_{N/2}` (median `2, 2.9, 3.8, 4.5, 5.1 ...
/// 6.4` at the tenth product for `N = 2^11`, `... 8.1` for `N = 2^13`, against
/// `H = 7.5, 8.9`; the measured growth of `noise_tests` agrees), so `C` stays within a
/// few tenths of a bit per product above it (times the margin `κ`,
/// [`FLUCTUATION_MARGIN`]).
fn secret_correlation(ctx: &IntegerContext, a: f64, b: f64) -> f64 {
    let h = (ctx.n() as f64 / 2.0).ln() + 0.5772;
    let (lo, hi) = (a.min(b), a.max(b));
    // binom(a + b, lo) = prod_{i=1}^{lo} (hi + i) / i
    let binomial: f64 = (1..=lo as u32)
        .map(|i| (hi + i as f64) / i as f64)
        .product();
    FLUCTUATION_MARGIN * binomial.min(h.powf(lo))
}

/// `κ`, the margin per product over the expected variance.
///
/// `bfv_tensor_log_variance` is the mean square of `y` averaged over the randomness of the
/// ciphertexts; one ciphertext's own mean square fluctuates around it, and more so with
/// depth: at each root `ζ` every product multiplies `y(ζ)` by an independent `w(ζ)`, so
/// `|y(ζ)|^2` carries a product of `d` independent exponential weights, and the few roots
/// where `|s(ζ)|` peaks dominate. Over 200 trials at depth 10 (`N = 2^13`) the largest
/// mean square lies 2.6 bits (in `σ`) above the expectation and the median 1.8 bits below
/// it; `κ = 1.2` (0.13 bits per product) keeps the largest within the `tail_factor`'s
/// slack (`z` against the measured `‖y‖∞ ≈ 1.3-2 σ`) and the median gap below 6 bits
/// (`noise_tests`).
const FLUCTUATION_MARGIN: f64 = 1.2;

/// `log2` of the variance of `t e` after BFV's scale-invariant tensor of operands with
/// variances `2^lva`, `2^lvb` (a square when `square`).
///
/// For each operand, over the integers `t (c̃_0 + c̃_1 s) = y + Q w` with `y = α m + t e`
/// and `w ≈ t c(s) / Q`, whose coefficients have variance `W = t^2 (1 + N V_s) / 12`
/// (`c̃_0`, `c̃_1` uniform mod `Q`). The rounded tensor `d = t c_a c_b / Q + r` then gives
/// `t d(s) = y_a w_b + y_b w_a + Q w_a w_b + y_a y_b / Q + t r(s)`, so the result's `y` is
///
/// ```text
/// y = y_a w_b + y_b w_a + y_a y_b / Q + t (r_0 + r_1 s + r_2 s^2)      (mod Q)
/// ```
///
/// with `r_k` the rounding errors (uniform in `[-1/2, 1/2]`; `Var(s^2) ≈ 2 N V_s^2`) and
/// `y_a y_b / Q` negligible. With independent coefficients `y_a w_b` would have variance
/// `N W (σ_a^2 + V_m)`; but `y_a` and `w_b` are polynomials in the same `s`, which
/// multiplies it by the secret correlation factor `C_{d_a}` ([`secret_correlation`]) of
/// `y_a`'s degree `d_a` in `s` ([`secret_degree`]):
///
/// ```text
/// σ^2 = N W (C_{d_a} (σ_a^2 + V_m) + C_{d_b} (σ_b^2 + V_m)) + t^2 (1 + N V_s + 2 N^2 V_s^2) / 12
/// ```
///
/// and `4 N W C_d (σ^2 + V_m)` for a square (`2 y_a w_a`).
pub(crate) fn bfv_tensor_log_variance(
    ctx: &IntegerContext,
    lva: f64,
    lvb: f64,
    square: bool,
) -> f64 {
    bfv_tensor_log_variance_of(ctx, (lva, lva), (lvb, lvb), square)
}

/// `bfv_tensor_log_variance` of operands `(log2 variance, log2 variance that sets the
/// degree in s)`: an operand rounded down by `Q_d` (leveled products) keeps the degree of
/// its noise before the division, which its magnitude no longer shows.
pub(crate) fn bfv_tensor_log_variance_of(
    ctx: &IntegerContext,
    (lva, da): (f64, f64),
    (lvb, db): (f64, f64),
    square: bool,
) -> f64 {
    let n = ctx.n() as f64;
    let t = ctx.t() as f64;
    let vs = secret_variance(ctx);
    let lvm = message_variance(ctx).log2();
    let lnw = (n * t * t * (1.0 + n * vs) / 12.0).log2();
    // log2(C_d (σ^2 + V_m)), in the log domain: deep chains overflow f64 variances.
    let term = |lv: f64, ld: f64| {
        secret_correlation(ctx, secret_degree(ctx, ld), 1.0).log2() + log2_add(lv, lvm)
    };
    let main = if square {
        2.0 + lnw + term(lva, da)
    } else {
        lnw + log2_add(term(lva, da), term(lvb, db))
    };
    let rounding = t * t * (1.0 + n * vs + 2.0 * n * n * vs * vs) / 12.0;
    log2_add(main, rounding.log2())
}

/// The variance of `t e` after BGV's tensor (times `t`) of operands with variances `va`,
/// `vb` (a square when `square`): `y = y_a y_b` with `y = m + t e`, so
///
/// ```text
/// σ^2 = N (C σ_a^2 σ_b^2 + V_m (σ_a^2 + σ_b^2) + V_m^2)
/// ```
///
/// (twice that for a square, whose coefficients are sums of `N/2` doubled products), with
/// `C` the secret correlation factor ([`secret_correlation`]) of the noises' degrees in `s`
/// ([`secret_degree`]; 2 for two rounding floors, more for products not switched down).
pub(crate) fn bgv_tensor_variance(ctx: &IntegerContext, va: f64, vb: f64, square: bool) -> f64 {
    let n = ctx.n() as f64 * if square { 2.0 } else { 1.0 };
    let vm = message_variance(ctx);
    let degree = |v: f64| secret_degree(ctx, v.log2());
    let c = secret_correlation(ctx, degree(va), degree(vb));
    n * (c * va * vb + vm * (va + vb) + vm * vm)
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
        // log2 of the magnitudes: over chains beyond 2^1024 (30 limbs of 60 bits) the noise
        // itself is beyond f64.
        ring.crt()
            .centered_log2_abs(y.data(), &mut digits, n, &mut out);
        ring.recycle(y);
        let max = out.iter().fold(0f64, |m, &x| m.max(x));
        Ok((self.log_q_at(ct.level()) - 1.0 - max).max(0.0))
    }

    /// The estimated noise budget of `ct` (no key): `log2(Q_ℓ/2) - log2(t/2 + z σ)` with
    /// the tracked `σ` ([module documentation](self)).
    pub fn estimated_noise_budget(&self, ct: &Ciphertext) -> f64 {
        // log2(t/2 + z σ), in the log domain (σ can exceed f64's range on deep BFV chains,
        // where the budget is then 0, not NaN or a wrapped value).
        let log_bound = log2_add(
            (self.t() as f64 / 2.0).log2(),
            tail_factor(self.n()).log2() + ct.noise,
        );
        (self.log_q_at(ct.level()) - 1.0 - log_bound).max(0.0)
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
