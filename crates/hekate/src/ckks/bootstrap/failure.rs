//! The failure probability of ModRaise (seed 003 §5.2, Eq. (1) and Table 4).
//!
//! After ModRaise a ciphertext at level 0 decrypts, over the larger modulus, to
//! `m + q0·I(X)`; EvalSine removes `q0·I` only where the interpolation interval `(−K, K)`
//! covers every coefficient of `I`. The paper (Ĩ in its notation) models each coefficient
//! as a sum of `h + 1` independent uniforms on `(−½, ½)`, an Irwin-Hall variable `S`, `h`
//! the secret's Hamming weight, and counts the `2n` coefficients that reach the `n` slots.
//! Eq. (1):
//!
//! ```text
//! Pr[‖Ĩ‖∞ > K] = 1 − (Pr[|S| ≤ K])^(2n),
//! Pr[|S| ≤ K]  = (2/(h+1)!) Σ_{i=0}^{⌊K+(h+1)/2⌋} (−1)^i C(h+1,i) (K + (h+1)/2 − i)^(h+1) − 1.
//! ```
//!
//! Two evaluations of the per-coefficient tail `τ = Pr[|S| > K]`:
//!
//! * **exact** for `h ≤` [`EXACT_MAX_WEIGHT`]: with `m = h + 1` and `t = m − 2K > 0`, the
//!   symmetry of Irwin-Hall gives `τ = A / (m!·2^(m−1))` with the integer
//!   `A = Σ_{i=0}^{⌊(t−1)/2⌋} (−1)^i C(m,i) (t − 2i)^m`. `A` is computed with big integers
//!   (the alternating sum cancels far below `f64` range) and `log2 τ` is read from the bit
//!   lengths, so tails such as `2^−1100` stay exact. `τ = 0` when `2K ≥ m`.
//! * **Gaussian** above: the central limit `S ≈ N(0, σ²)`, `σ² = (h+1)/12`, so
//!   `τ = erfc(K/(σ√2))`, evaluated in log space (continued fraction) deep into the tail.
//!   Irwin-Hall's excess kurtosis `−6/(5m)` makes the true tail lighter by a relative
//!   `≈ 0.05·z²(z²−3)/m` at `z = K/σ` (first Edgeworth term): at `h = 2^13` and the
//!   `z ≈ 6` of Table 4 this is 0.8% (0.012 in `log2`), at `h = 512` about 13% (0.2).
//!
//! The union over the `2n` coefficients is `1 − (1 − τ)^(2n)`, computed as
//! `−expm1(2n·ln1p(−τ))`, or as `2n·τ` once `τ < 2^−900` (the next term is relatively
//! `2n·τ/2`, below `2^−800`).
//!
//! Reproduced values (tests below): Table 4 at `n = 2^15` (`K ≈ 1.81√h`, about `2^−15.5`),
//! Table 7's `log κ` (Set I–III `h = 192, K = 25`: `−15.58`; Set IV `h = 2^15, K = 325`:
//! `−14.90`), and the exact evaluations and the "K needed for dense keys" table of the
//! research notes (`notes/bootstrapping.md` §1.4).

use crate::Error;
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};
use std::f64::consts::{LN_2, PI};

/// The largest Hamming weight `h` evaluated exactly (big-integer Irwin-Hall); heavier
/// secrets use the Gaussian tail with `σ² = (h+1)/12`. One exact evaluation at Table 4's
/// targets costs 0.5 ms at `h = 2^9`, 50 ms at `2^11` and 0.2 s at `2^12` (optimised, terms
/// of `~5·10^4` bits); at `h = 2^12` the Gaussian is off by 0.026 in `log2`, at `2^13` by
/// 0.013, so heavier weights gain nothing from the exact sum.
pub const EXACT_MAX_WEIGHT: usize = 4096;

/// The secret key's Hamming weight model, which sets the variance of each coefficient of
/// `Ĩ` (seed 003 §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretWeight {
    /// A secret with exactly `h` nonzero coefficients in `{−1, 1}` (the paper's `h`;
    /// `SecretDistribution::HammingWeight(h)`): `Ĩ_j` is a sum of `h + 1` uniforms on
    /// `(−½, ½)` (Irwin-Hall), evaluated exactly for `h ≤` [`EXACT_MAX_WEIGHT`].
    Fixed(usize),
    /// A uniform ternary secret on `N = ring_degree` coefficients (each 0, 1 or −1 with
    /// probability ⅓; `SecretDistribution::Ternary`). Its weight is `h ≈ 2N/3`, so the
    /// model is the Gaussian with variance `(1 + 2N/3)/12`, as in the research notes
    /// (§1.4, "h ≈ 2N/3"); the fluctuation of `h` (standard deviation `√(2N)/3`, 121 at
    /// `N = 2^16`) moves `σ` by 0.14% and is ignored.
    UniformTernary {
        /// The ring degree `N`.
        ring_degree: usize,
    },
}

/// `log2` of the probability that one bootstrap fails: that some `|Ĩ_j| > K` among the
/// `2n` coefficients (`n = slots`), seed 003 Eq. (1).
///
/// Returns `−∞` when the probability is zero: no slots, or a fixed weight with
/// `2K ≥ h + 1` (then `|Ĩ_j| ≤ (h+1)/2 ≤ K` always), and `0` when failure is certain
/// (`K = 0`).
pub fn log2_failure_probability(weight: SecretWeight, k: u64, slots: usize) -> f64 {
    log2_union(log2_tail(weight, k), slots)
}

/// The smallest `K` with [`log2_failure_probability`]`(weight, K, slots) ≤ log2_kappa`
/// (the paper's `κ`, Alg. 8 step "K from κ").
///
/// # Errors
/// [`Error::InvalidParameters`] when `log2_kappa` is NaN, or when no finite `K` reaches
/// it (`−∞` with the Gaussian model, whose tail never vanishes).
pub fn k_for_failure(weight: SecretWeight, slots: usize, log2_kappa: f64) -> Result<u64, Error> {
    if log2_kappa.is_nan() {
        return Err(Error::InvalidParameters(
            "k_for_failure: log2_kappa is NaN; pass the target failure probability as log2, \
             e.g. -64.0"
                .into(),
        ));
    }
    let ok = |k: u64| log2_failure_probability(weight, k, slots) <= log2_kappa;
    if ok(0) {
        return Ok(0);
    }
    // A fixed weight always succeeds at K = ⌈(h+1)/2⌉; the Gaussian needs a finite target.
    let exact = matches!(weight, SecretWeight::Fixed(h) if h <= EXACT_MAX_WEIGHT);
    let cap = match weight {
        SecretWeight::Fixed(h) if exact => (h as u64 + 2) / 2,
        _ => u64::MAX / 2,
    };
    if !ok(cap) {
        return Err(Error::InvalidParameters(format!(
            "k_for_failure: no K reaches log2 failure probability {log2_kappa} for {weight:?}; \
             pass a finite target"
        )));
    }
    if !log2_kappa.is_finite() {
        return Ok(boundary(ok, cap, cap));
    }
    // Gallop from an estimate, then bisect. The Gaussian's estimate is ln erfc x ≈ −x²;
    // the exact model's is the Gaussian's answer, a few units off for the heavy weights
    // where each exact evaluation is slow.
    let var = variance(weight);
    let need = (1.0 + log2(slots as f64) - log2_kappa).max(0.0) * LN_2;
    let rough = ((2.0 * var * need).sqrt().round() as u64).clamp(1, u64::MAX / 2);
    let guess = if exact {
        let gaussian = |k| log2_union(log2_tail_gaussian(var, k), slots) <= log2_kappa;
        boundary(gaussian, rough, u64::MAX / 2)
    } else {
        rough
    };
    Ok(boundary(ok, guess.clamp(1, cap), cap))
}

/// The smallest `k` in `1..=cap` with `ok(k)`, for a monotone `ok` with `!ok(0)` and
/// `ok(cap)`: gallop from `guess` to a bracket, then bisect.
fn boundary(ok: impl Fn(u64) -> bool, guess: u64, cap: u64) -> u64 {
    let (mut lo, mut hi) = if ok(guess) {
        let (mut hi, mut step) = (guess, 1);
        loop {
            let lo = hi.saturating_sub(step);
            if lo == 0 || !ok(lo) {
                break (lo, hi);
            }
            hi = lo;
            step *= 2;
        }
    } else {
        let (mut lo, mut step) = (guess, 1);
        loop {
            let hi = lo.saturating_add(step).min(cap);
            if ok(hi) {
                break (lo, hi);
            }
            lo = hi;
            step *= 2;
        }
    };
    // Invariant: !ok(lo) (lo = 0 is known to fail), ok(hi).
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The variance `σ²` of one coefficient of `Ĩ`: `(h+1)/12`, with `h = 2N/3` for a uniform
/// ternary secret.
fn variance(weight: SecretWeight) -> f64 {
    match weight {
        SecretWeight::Fixed(h) => (h as f64 + 1.0) / 12.0,
        SecretWeight::UniformTernary { ring_degree } => {
            (1.0 + 2.0 * ring_degree as f64 / 3.0) / 12.0
        }
    }
}

/// `log2 τ`, `τ = Pr[|Ĩ_j| > K]` for one coefficient.
fn log2_tail(weight: SecretWeight, k: u64) -> f64 {
    match weight {
        SecretWeight::Fixed(h) if h <= EXACT_MAX_WEIGHT => log2_tail_exact(h, k),
        _ => log2_tail_gaussian(variance(weight), k),
    }
}

/// `log2 Pr[|S| > K]` for `S` a sum of `m = h + 1` uniforms on `(−½, ½)`, exactly:
/// `τ = A / (m!·2^(m−1))`, `A = Σ_{i=0}^{⌊(t−1)/2⌋} (−1)^i C(m,i)(t−2i)^m`, `t = m − 2K`.
fn log2_tail_exact(h: usize, k: u64) -> f64 {
    log2_tail_exact_at_half(h, 2 * k)
}

/// `log2 Pr[|S| > x]` for `x = two_x / 2` (integers and half-integers, where `t = m - 2x`
/// is an integer and the formula of [`log2_tail_exact`] holds as it is).
pub(crate) fn log2_tail_exact_at_half(h: usize, two_x: u64) -> f64 {
    let m = h as u128 + 1;
    if u128::from(two_x) >= m {
        return f64::NEG_INFINITY;
    }
    let m = m as u64;
    let t = m - two_x;
    let exp = u32::try_from(m).expect("h <= EXACT_MAX_WEIGHT");
    let (mut pos, mut neg) = (BigUint::zero(), BigUint::zero());
    let mut binom = BigUint::one(); // C(m, i)
    for i in 0..=(t - 1) / 2 {
        let term = &binom * BigUint::from(t - 2 * i).pow(exp);
        if i % 2 == 0 {
            pos += term;
        } else {
            neg += term;
        }
        binom = binom * BigUint::from(m - i) / BigUint::from(i + 1);
    }
    // A > 0: it is m!·2^(m−1)·τ and τ > 0 for 2x < m.
    let a = pos - neg;
    let factorial = (2..=m).fold(BigUint::one(), |f, j| f * BigUint::from(j));
    log2_big(&a) - log2_big(&factorial) - (m - 1) as f64
}

/// `log2 Pr[|Z| > K] = log2 erfc(K/(σ√2))` for `Z ~ N(0, σ²)`.
fn log2_tail_gaussian(var: f64, k: u64) -> f64 {
    ln_erfc(k as f64 / (2.0 * var).sqrt()) / LN_2
}

/// `log2(1 − (1 − τ)^(2n))` from `log2 τ`.
fn log2_union(log2_tau: f64, slots: usize) -> f64 {
    if slots == 0 || log2_tau == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    let count = 2.0 * slots as f64;
    if log2_tau < -900.0 {
        return log2(count) + log2_tau;
    }
    let tau = log2_tau.exp2();
    log2(-(count * (-tau).ln_1p()).exp_m1())
}

fn log2(x: f64) -> f64 {
    x.log2()
}

/// `log2 x` of a positive big integer, from its top 64 bits and its bit length.
fn log2_big(x: &BigUint) -> f64 {
    let bits = x.bits();
    let shift = bits.saturating_sub(64);
    let top = (x >> shift).to_f64().expect("64-bit value");
    top.log2() + shift as f64
}

/// `ln erfc(x)` for `x ≥ 0`, accurate to about 1e-13 relative for every `x` (no underflow:
/// `erfc(30) ≈ 10^−393` is out of `f64` range, its logarithm is not).
///
/// `x < 2`: `1 − erf(x)` with the Maclaurin series of `erf` (terms at most `e^(x²) < 60`
/// times the sum, so 1e-14 absolute; `erfc(2) ≈ 4.7·10^−3`). `x ≥ 2`: Laplace's continued
/// fraction `erfc x = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …))))` by the
/// modified Lentz method, which converges for every `x > 0` and quickly for large `x`.
pub(crate) fn ln_erfc(x: f64) -> f64 {
    debug_assert!(x >= 0.0);
    if x < 2.0 {
        let x2 = x * x;
        let (mut term, mut sum, mut n) = (x, x, 0.0);
        // erf x = 2/√π Σ (−1)^n x^(2n+1) / (n!(2n+1)); term = (−1)^n x^(2n+1)/n!.
        while n < 200.0 {
            n += 1.0;
            term *= -x2 / n;
            let add = term / (2.0 * n + 1.0);
            sum += add;
            if add.abs() <= 1e-17 * sum.abs() {
                break;
            }
        }
        return (-(2.0 / PI.sqrt()) * sum).ln_1p();
    }
    // f = x + a1/(x + a2/(x + …)), a_j = j/2.
    let tiny = 1e-300;
    let mut f = x;
    let (mut c, mut d) = (f, 0.0);
    for j in 1..10_000 {
        let a = j as f64 / 2.0;
        d = x + a * d;
        d = if d.abs() < tiny { 1.0 / tiny } else { 1.0 / d };
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    -x * x - 0.5 * PI.ln() - f.ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{RngCore, SeedableRng};

    const N15: usize = 1 << 15;
    const N14: usize = 1 << 14;

    fn close(got: f64, want: f64, tol: f64, what: &str) {
        assert!(
            (got - want).abs() <= tol,
            "{what}: got {got:.4}, want {want} ± {tol}"
        );
    }

    /// Table 4 (n = 2^15): log2 h = 6..15 with the paper's K, except h = 2^13, where the
    /// printed K = 163 gives 2^-15.09 (exactly, and 2^-15.07 Gaussian), not 2^-15.4. The
    /// row's K/√h = 1.81 also says 164 (163/√8192 = 1.801, 164/√8192 = 1.812), and K = 164
    /// gives 2^-15.44: the printed 163 is a misprint for 164.
    #[test]
    fn table_4() {
        let ks = [14, 20, 29, 41, 58, 82, 116, 164, 232, 328];
        let want = [
            -14.6, -14.6, -15.7, -15.6, -15.5, -15.4, -15.4, -15.4, -15.4, -15.4,
        ];
        for (j, (&k, &w)) in ks.iter().zip(&want).enumerate() {
            let h = 1usize << (6 + j);
            let got = log2_failure_probability(SecretWeight::Fixed(h), k, N15);
            close(got, w, 0.1, &format!("Table 4, h = {h}, K = {k}"));
        }
        let printed = log2_failure_probability(SecretWeight::Fixed(1 << 13), 163, N15);
        assert!(printed > -15.3, "h = 2^13, K = 163: {printed}");
    }

    /// Table 7's log κ: Sets I–III (h = 192, K = 25) and Set IV (h = 2^15, K = 325).
    #[test]
    fn table_7() {
        for (h, k, n, want) in [
            (192, 25, N15, -15.58),
            (192, 25, N14, -16.58),
            (32768, 325, N15, -14.90),
            (32768, 325, N14, -15.90),
        ] {
            let got = log2_failure_probability(SecretWeight::Fixed(h), k, n);
            close(
                got,
                want,
                0.05,
                &format!("Table 7, h = {h}, K = {k}, n = {n}"),
            );
        }
    }

    /// The notes' exact evaluations (§1.4), including the deep sparse-secret tails.
    #[test]
    fn notes_exact_values() {
        for (h, k, n, want) in [
            (64, 12, N15, -6.71),
            (64, 12, N14, -7.71),
            (32, 16, N15, -138.71),
            (32, 16, N14, -139.71),
            (192, 28, N15, -23.22),
            (64, 28, N15, -143.97),
        ] {
            let got = log2_failure_probability(SecretWeight::Fixed(h), k, n);
            close(
                got,
                want,
                0.01,
                &format!("notes, h = {h}, K = {k}, n = {n}"),
            );
        }
    }

    /// The notes' "K needed for dense keys" row for a uniform ternary secret, N = 2^16,
    /// and OpenFHE's K = 512 (openfhe#1331: 2^-39 at N = 2^16, 2^-12 at N = 2^17).
    #[test]
    fn uniform_ternary_dense_keys() {
        let w16 = SecretWeight::UniformTernary {
            ring_degree: 1 << 16,
        };
        for (kappa, want) in [(-15.0, 376), (-64.0, 621)] {
            let k = k_for_failure(w16, N15, kappa).unwrap();
            assert!(k.abs_diff(want) <= 2, "2^{kappa}: K = {k}, want {want}");
        }
        close(
            log2_failure_probability(w16, 512, N15),
            -39.4,
            0.05,
            "OpenFHE N = 2^16",
        );
        let w17 = SecretWeight::UniformTernary {
            ring_degree: 1 << 17,
        };
        close(
            log2_failure_probability(w17, 512, 1 << 16),
            -11.9,
            0.05,
            "OpenFHE N = 2^17",
        );
    }

    /// k_for_failure returns the boundary: K meets the target, K − 1 does not; and K grows
    /// as the target falls, for both models.
    #[test]
    fn k_for_failure_is_the_boundary_and_monotone() {
        let weights = [
            SecretWeight::Fixed(32),
            SecretWeight::Fixed(192),
            SecretWeight::Fixed(32768),
            SecretWeight::UniformTernary {
                ring_degree: 1 << 15,
            },
        ];
        for w in weights {
            let mut prev = 0;
            for kappa in [-1.0, -8.0, -15.0, -32.0, -64.0, -128.0, -200.0] {
                let k = k_for_failure(w, N15, kappa).unwrap();
                assert!(
                    log2_failure_probability(w, k, N15) <= kappa,
                    "{w:?} 2^{kappa}"
                );
                assert!(k > 0 && log2_failure_probability(w, k - 1, N15) > kappa);
                assert!(k >= prev, "{w:?}: K = {k} < {prev} at 2^{kappa}");
                prev = k;
            }
        }
        // Table 4's K for h = 192 at the paper's 2^-16 target lands next to Table 6's 25.
        let k = k_for_failure(SecretWeight::Fixed(192), N15, -15.5).unwrap();
        assert_eq!(k, 25);
    }

    #[test]
    fn edge_cases() {
        let w = SecretWeight::Fixed(32);
        // |S| ≤ 33/2 < 17: failure is impossible from K = 17, certain at K = 0.
        assert_eq!(log2_failure_probability(w, 17, N15), f64::NEG_INFINITY);
        assert!(log2_failure_probability(w, 16, N15).is_finite());
        assert_eq!(log2_failure_probability(w, 0, N15), 0.0);
        assert_eq!(log2_failure_probability(w, 5, 0), f64::NEG_INFINITY);
        assert_eq!(k_for_failure(w, N15, f64::NEG_INFINITY).unwrap(), 17);
        assert_eq!(k_for_failure(w, N15, 0.0).unwrap(), 0);
        assert_eq!(k_for_failure(w, 0, -100.0).unwrap(), 0);
        let dense = SecretWeight::UniformTernary {
            ring_degree: 1 << 16,
        };
        assert!(k_for_failure(dense, N15, f64::NEG_INFINITY).is_err());
        assert!(k_for_failure(dense, N15, f64::NAN).is_err());
        assert_eq!(log2_failure_probability(dense, 0, N15), 0.0);
        assert!(log2_failure_probability(dense, 1 << 20, N15) < -1e6);
        assert_eq!(
            log2_failure_probability(SecretWeight::Fixed(0), 1, 1),
            f64::NEG_INFINITY
        );
    }

    /// Exact and Gaussian tails agree at h = 512 near a 2^-20 failure (the Gaussian is
    /// heavier, by the Edgeworth estimate 0.05·z²(z²−3)/m), and converge as h grows.
    #[test]
    fn exact_and_gaussian_agree() {
        let h = 512;
        let k = k_for_failure(SecretWeight::Fixed(h), N15, -20.0).unwrap();
        let exact = log2_tail_exact(h, k);
        let gauss = log2_tail_gaussian(variance(SecretWeight::Fixed(h)), k);
        assert!(
            gauss > exact && gauss - exact < 0.3,
            "h = 512, K = {k}: {exact} vs {gauss}"
        );
        let (h, k) = (4096, 116); // Table 4's column, where the Gaussian takes over
        let exact = log2_tail_exact(h, k);
        let gauss = log2_tail_gaussian(variance(SecretWeight::Fixed(h)), k);
        assert!(
            gauss > exact && gauss - exact < 0.05,
            "h = 4096: {exact} vs {gauss}"
        );
    }

    /// ln erfc against reference values (mpmath, 30 digits) across the series / continued
    /// fraction switch and far below f64 range.
    #[test]
    fn ln_erfc_reference_values() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, -0.735_011_129_837_084_4),
            (1.0, -1.849_605_509_933_248_2),
            (1.999_999, -5.364_936_846_456_755),
            (2.0, -5.364_941_264_616_638),
            (3.0, -10.720_363_041_981_113),
            (10.0, -102.879_889_024_844_89),
            (30.0, -903.974_117_110_643_9),
            (100.0, -10_005.177_585_122_664),
        ] {
            let got = ln_erfc(x);
            assert!(
                (got - want).abs() <= 1e-11 * want.abs().max(1.0),
                "ln erfc({x}) = {got}, want {want}"
            );
        }
    }

    /// The Irwin-Hall model itself: sums of h + 1 = 33 seeded uniforms exceed K' = 4 as often
    /// as the exact tail says (about 1.6%), within a 5-sigma binomial band.
    #[test]
    fn irwin_hall_sampled() {
        let (h, k, trials) = (32usize, 4u64, 200_000u32);
        let tau = log2_tail_exact(h, k).exp2();
        assert!((0.005..0.05).contains(&tau), "tau = {tau}");
        let mut rng = ChaCha20Rng::seed_from_u64(0x1e_2021);
        let mut hits = 0u32;
        for _ in 0..trials {
            let s: f64 = (0..=h)
                .map(|_| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
                .sum();
            hits += u32::from(s.abs() > k as f64);
        }
        let mean = f64::from(trials) * tau;
        let sd = (mean * (1.0 - tau)).sqrt();
        assert!(
            (f64::from(hits) - mean).abs() <= 5.0 * sd,
            "{hits} exceedances of {trials}, expected {mean:.0} ± {sd:.0}"
        );
    }
}
