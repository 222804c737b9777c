//! [`DiscreteGaussian`]: the truncated discrete Gaussian sampler (cumulative table,
//! convolution of two table samples for the constant-time smudging noise, or rejection).

use rand_core::{CryptoRng, RngCore};

use super::uniform_below;
use crate::{Error, Result};

/// The default noise standard deviation, `σ = 3.2` (HomomorphicEncryption.org standard).
pub const DEFAULT_SIGMA: f64 = 3.2;

/// The default tail cut, in standard deviations: samples lie in `[-6σ, 6σ]`.
pub const DEFAULT_TAIL_CUT: f64 = 6.0;

/// Largest bound `floor(tail_cut * σ)` served by the cumulative-table method.
const CDT_MAX_BOUND: i64 = 256;

/// The smoothing parameter `η_ε(Z)` in standard-deviation units for `ε = 2^-128`
/// (`sqrt(ln(2 + 2/ε) / π) / sqrt(2π)`, about 2.13), rounded up: a discrete Gaussian of
/// at least `k η` is statistically close to continuous over `kZ`.
const ETA_SIGMA: f64 = 2.2;

#[derive(Clone, Debug)]
pub(super) enum GaussianMethod {
    /// `table[k] = round(2^63 * P(|x| <= k))` for `k < bound`.
    Cdt(Vec<u64>),
    /// `x_1 + k x_2` with `x_1, x_2` from one CDT of `σ_0 = σ / sqrt(1 + k^2)` (the
    /// convolution lemma: close to `D_σ` when `σ_0 >= k η_ε(Z)`), constant time.
    Convolution {
        /// The CDT of `σ_0`.
        base: Vec<u64>,
        /// `k`.
        k: i64,
    },
    /// Uniform proposal on `[-bound, bound]`, accepted with probability `exp(-x^2/2σ^2)`.
    Rejection,
}

/// A discrete Gaussian sampler over the integers, truncated at a tail cut.
///
/// Samples `x` with probability proportional to `exp(-x^2 / (2σ^2))` for
/// `|x| <= B = floor(tail_cut * σ)`, and never outside `[-B, B]`. Here `σ` is the standard
/// deviation parameter (for `σ >= 1` the variance of the samples is `σ^2` up to a negligible
/// error) and `tail_cut` is measured in units of `σ` (the default `6.0` gives
/// `B = 19` for `σ = 3.2`).
///
/// Two algorithms, chosen by the constructor:
///
/// * `B <= 256` (e.g. `σ = 3.2` or `σ = 32` with a 6σ cut): a cumulative distribution table
///   (CDT) of `B` entries with 63-bit probabilities. One 64-bit word per sample: the top bit
///   is the sign, the low 63 bits `u` pick the magnitude `|x| = #{k : table[k] <= u}`, found
///   by a branch-free scan of the whole table (no secret-dependent branches or memory
///   accesses). The table is exact to the `2^-63` granularity and the double precision used
///   to compute it (relative error about `2^-52` per probability).
/// * larger `B` up to about `σ = 1000` (threshold FHEW's smudging noise, `σ ≈ 204`): the
///   sum `x_1 + k x_2` of two samples of one CDT of `σ_0 = σ / sqrt(1 + k^2)`, with the
///   fewest `k` that fits the table, which is statistically close to `D_σ` while
///   `σ_0 >= k η_ε(Z)` (the convolution lemma; `η ≈ 2.2` for `ε = 2^-128`). Constant time;
///   its samples lie in `[-B_0 (1 + k), B_0 (1 + k)]` ([`DiscreteGaussian::bound`]), up to
///   `1.4 B` for `k = 5`.
/// * larger still (e.g. `σ = 2^20`): rejection sampling from the uniform
///   distribution on `[-B, B]`, accepting `x` with probability `exp(-x^2 / (2σ^2))`
///   evaluated in double precision against a uniform 53-bit fraction. The expected number of
///   trials is `(2B + 1) / (σ sqrt(2π)) ≈ 4.8` for a 6σ cut, independent of `σ`; the
///   output distribution is exact up to the `2^-52` relative precision of the acceptance
///   probabilities. This path is not constant-time (the trial count varies), which is the
///   usual trade-off for large-σ noise.
#[derive(Clone, Debug)]
pub struct DiscreteGaussian {
    pub(super) sigma: f64,
    pub(super) tail_cut: f64,
    pub(super) bound: i64,
    pub(super) method: GaussianMethod,
}

impl Default for DiscreteGaussian {
    /// `σ = 3.2`, tail cut `6σ`.
    fn default() -> Self {
        Self::new(DEFAULT_SIGMA, DEFAULT_TAIL_CUT).expect("default Gaussian parameters are valid")
    }
}

impl DiscreteGaussian {
    /// A sampler with standard deviation `sigma` and samples bounded by
    /// `floor(tail_cut * sigma)` in absolute value (`tail_cut` in units of `sigma`).
    ///
    /// Requires `sigma > 0` finite, `1 <= tail_cut <= 64`, and a bound
    /// `1 <= floor(tail_cut * sigma) <= 2^50`; otherwise `Error::InvalidParameters`.
    pub fn new(sigma: f64, tail_cut: f64) -> Result<Self> {
        if !(sigma.is_finite() && sigma > 0.0) {
            return Err(Error::InvalidParameters(format!(
                "Gaussian standard deviation must be positive and finite, got {sigma}"
            )));
        }
        if !(1.0..=64.0).contains(&tail_cut) {
            return Err(Error::InvalidParameters(format!(
                "Gaussian tail cut is measured in standard deviations and must lie in [1, 64], \
                 got {tail_cut} (use 6.0 for the usual 6σ cut)"
            )));
        }
        let b = (tail_cut * sigma).floor();
        if !(1.0..=(1u64 << 50) as f64).contains(&b) {
            return Err(Error::InvalidParameters(format!(
                "Gaussian bound floor(tail_cut * sigma) = {b} must lie in [1, 2^50] \
                 (sigma = {sigma}, tail_cut = {tail_cut})"
            )));
        }
        let mut bound = b as i64;
        let method = if bound <= CDT_MAX_BOUND {
            GaussianMethod::Cdt(Self::cdt_table(sigma, bound))
        } else {
            // The fewest k whose base σ_0 fits a CDT; constant time if σ_0 >= k η.
            let s0_max = CDT_MAX_BOUND as f64 / tail_cut;
            let k = ((sigma / s0_max).powi(2) - 1.0).sqrt().ceil().max(1.0);
            let s0 = sigma / (1.0 + k * k).sqrt();
            if s0 >= k * ETA_SIGMA {
                let b0 = (tail_cut * s0).floor() as i64;
                bound = b0 * (1 + k as i64);
                GaussianMethod::Convolution {
                    base: Self::cdt_table(s0, b0),
                    k: k as i64,
                }
            } else {
                GaussianMethod::Rejection
            }
        };
        Ok(DiscreteGaussian {
            sigma,
            tail_cut,
            bound,
            method,
        })
    }

    fn cdt_table(sigma: f64, bound: i64) -> Vec<u64> {
        let two_s2 = 2.0 * sigma * sigma;
        // Mass of each magnitude: |x| = 0 once, |x| = k >= 1 twice (both signs).
        let mass: Vec<f64> = (0..=bound)
            .map(|k| {
                let w = (-((k * k) as f64) / two_s2).exp();
                if k == 0 {
                    w
                } else {
                    2.0 * w
                }
            })
            .collect();
        let total: f64 = mass.iter().sum();
        let scale = (1u64 << 63) as f64;
        let mut acc = 0.0;
        mass[..bound as usize]
            .iter()
            .map(|&m| {
                acc += m;
                let v = (acc / total * scale).round();
                if v >= scale {
                    1u64 << 63
                } else {
                    v as u64
                }
            })
            .collect()
    }

    /// The standard deviation `σ`.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The tail cut, in units of `σ`.
    pub fn tail_cut(&self) -> f64 {
        self.tail_cut
    }

    /// Every sample lies in `[-bound, bound]`: `B = floor(tail_cut * σ)`, or
    /// `B_0 (1 + k)` for the convolution method.
    pub fn bound(&self) -> i64 {
        self.bound
    }

    /// One sample from the cumulative table `table`, without secret-dependent branches
    /// or memory accesses.
    #[inline]
    fn sample_cdt<R: RngCore + ?Sized>(table: &[u64], rng: &mut R) -> i64 {
        let r = rng.next_u64();
        let u = r & ((1u64 << 63) - 1);
        let mut mag: i64 = 0;
        for &t in table {
            mag += (t <= u) as i64;
        }
        // Branch-free sign: negate when the top bit is set (0 stays 0).
        let neg = (r >> 63) as i64; // 0 or 1
        (mag ^ -neg) + neg
    }

    /// Whether sampling takes the same time whatever the sample (the CDT and convolution
    /// methods; the rejection method for very large `σ` is not).
    pub fn is_constant_time(&self) -> bool {
        !matches!(self.method, GaussianMethod::Rejection)
    }

    /// One sample.
    pub fn sample<R: RngCore + CryptoRng + ?Sized>(&self, rng: &mut R) -> i64 {
        match &self.method {
            GaussianMethod::Cdt(table) => Self::sample_cdt(table, rng),
            GaussianMethod::Convolution { base, k } => {
                let x1 = Self::sample_cdt(base, rng);
                let x2 = Self::sample_cdt(base, rng);
                x1 + k * x2
            }
            GaussianMethod::Rejection => {
                let b = self.bound;
                let two_s2 = 2.0 * self.sigma * self.sigma;
                let span = 2 * b as u64 + 1;
                loop {
                    let x = uniform_below(rng, span) as i64 - b;
                    let p = (-((x as f64) * (x as f64)) / two_s2).exp();
                    let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                    if u < p {
                        return x;
                    }
                }
            }
        }
    }

    /// Fills `out` with independent samples.
    pub fn fill<R: RngCore + CryptoRng + ?Sized>(&self, rng: &mut R, out: &mut [i64]) {
        for x in out.iter_mut() {
            *x = self.sample(rng);
        }
    }
}
