//! Han and Ki's interpolant of the scaled cosine (seed 003 §5.4; Han and Ki, "Better
//! Bootstrapping for Approximate Homomorphic Encryption", CT-RSA 2020, eprint 2019/688;
//! Lattigo's `CosDiscrete`).
//!
//! EvalMod only needs `g_0(x) = cos(2π (x - 1/4) / 2^r)` near the integers: after ModRaise
//! and CoeffsToSlots `x = I + u` with an integer `|I| <= K` and `|u| <= ε = 1/R` (`R` the
//! message ratio `q_0 / Δ_0`). Instead of interpolating on the whole interval at Chebyshev
//! nodes, Han and Ki place all `d + 1` nodes in the small intervals `[i - ε, i + ε]`, `m_i`
//! Chebyshev nodes in each (`i + ε cos(π (2l + 1) / (2 m_i))`, `l < m_i`), with `m_i`
//! chosen greedily from the interpolation error bound
//!
//! `|g_0(x) - p(x)| <= (2π / 2^r)^(d+1) / (d+1)! · ∏_j |x - x_j|`,
//!
//! which for `x ∈ [i - ε, i + ε]` is at most `B_i = (2π / 2^r)^(d+1) / (d+1)! · 2 (ε/2)^(m_i)
//! · ∏_(k ≠ i) (|i - k| + ε)^(m_k)`: starting from one node per integer, the next node (two,
//! at `±i`, keeping the nodes symmetric) goes to the integer with the largest `B_i`.
//!
//! The interpolant is then converted to the Chebyshev basis of `y = x / K'` on `[-1, 1]`
//! (hekate's convention: the interval is `[-K', K']` with `K' = K + 1`, so the outermost
//! integers `±K` lie one unit inside it; Lattigo's `K` is the interval's half-width, whose
//! integers reach `K - 1`: Lattigo's `K = 16` is hekate's `K = 15`). Clustered nodes make
//! this ill-conditioned (the Lagrange basis polynomials reach `ε^-(m_i - 1)` between the
//! clusters), so it runs in 256-bit binary floating point: `dashu-float` (MIT OR
//! Apache-2.0, pure Rust on stable, arbitrary precision with correctly rounded `cos_pi`, so
//! the samples of `g_0` need no separate `π`). At 64 bits the coefficients for `K = 25`,
//! `d = 63` come out `2^-19` off (about 45 bits lost to cancellation): `f64` would not do
//! and a double-double's 106 bits would leave a thin margin, shrinking as `d` grows; at
//! 256 bits they agree with a 384-bit run within `10^-15` of the largest (Lattigo works at
//! 256 bits too). The steps: the barycentric weights `w_j = 1 / ∏_(l ≠ j) (y_j - y_l)`,
//! the interpolant's values at the `d + 1` Chebyshev points `t_k = cos(π (k + 1/2) /
//! (d + 1))` by the first barycentric form `p(t) = ∏_j (t - y_j) · Σ_j w_j g_0(K' y_j) /
//! (t - y_j)`, then the discrete cosine transform, exact for degree `d`.

use crate::{Error, Result};
use dashu_float::round::mode::HalfEven;
use dashu_float::FBig;

/// Binary floating point of the working precision.
type F = FBig<HalfEven>;

/// The working precision in bits (Lattigo's `EncodingPrecision`).
pub const PRECISION_BITS: usize = 256;

/// Han and Ki's interpolant of `g_0(x) = cos(2π (x - 1/4) / 2^r)` with its nodes
/// clustered at the integers `|i| <= K` (see the module documentation).
#[derive(Clone, Debug)]
pub struct HanKiCosine {
    /// `K`: the integers the nodes cluster at are `|i| <= K`; the interval is `[-K', K']`.
    k: u64,
    /// `r`, the double angles the cosine is scaled by.
    double_angles: u32,
    /// `log2 R`: the clusters' half-width is `ε = 2^-log2 R`.
    log_message_ratio: u32,
    /// `m_0, ..., m_K`: the nodes at `i` (and as many at `-i`).
    nodes_per_integer: Vec<usize>,
    /// The nodes `x_j` (rounded to `f64`).
    nodes: Vec<f64>,
    /// `g_0(x_j)` (rounded to `f64`).
    values: Vec<f64>,
    /// The Chebyshev coefficients of the interpolant in `y = x / K'` (rounded to `f64`).
    coefficients: Vec<f64>,
}

/// `x` at the working precision `prec`.
fn big(x: i64, prec: usize) -> F {
    F::from(x).with_precision(prec).value()
}

/// `m_0, ..., m_K` by the greedy rule of the module documentation, `d + 1` nodes in all
/// (the factor `(2π / 2^r)^(d+1) / (d+1)!` is common to every `B_i`: `r` plays no part).
fn nodes_per_integer(k: usize, degree: usize, log_message_ratio: u32) -> Vec<usize> {
    let eps = (-f64::from(log_message_ratio)).exp2();
    let mut m = vec![1usize; k + 1];
    let mut total = 2 * k + 1;
    // log2 B_i without the factor (2π / 2^r)^n / n!, common to every i.
    let log_bound = |m: &[usize], i: usize| -> f64 {
        let mut b = 1.0 + m[i] as f64 * (eps / 2.0).log2();
        for kk in -(k as i64)..=(k as i64) {
            if kk != i as i64 {
                let dist = (i as i64 - kk).unsigned_abs() as f64;
                b += m[kk.unsigned_abs() as usize] as f64 * (dist + eps).log2();
            }
        }
        b
    };
    while total < degree + 1 {
        let worst = (0..=k)
            .map(|i| (i, log_bound(&m, i)))
            .fold((0, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a })
            .0;
        if worst != 0 && total + 2 <= degree + 1 {
            m[worst] += 1;
            total += 2;
        } else {
            // The integer 0 takes one node (and the last one, when two do not fit).
            m[0] += 1;
            total += 1;
        }
    }
    m
}

impl HanKiCosine {
    /// Han and Ki's interpolant of degree `degree` (`d`) for `|I| <= k` (`K`), `double_angles`
    /// double angles (`r`) and message ratio `R = 2^log_message_ratio` (the clusters'
    /// half-width `ε = 1/R`), at [`PRECISION_BITS`]. It needs a node per integer:
    /// `d >= 2K`.
    pub fn new(k: u64, double_angles: u32, degree: usize, log_message_ratio: u32) -> Result<Self> {
        Self::with_precision(k, double_angles, degree, log_message_ratio, PRECISION_BITS)
    }

    /// [`HanKiCosine::new`] at `precision` bits (at least 64).
    pub fn with_precision(
        k: u64,
        double_angles: u32,
        degree: usize,
        log_message_ratio: u32,
        precision: usize,
    ) -> Result<Self> {
        if k > 511 || degree > 1023 || (2 * k as usize) > degree {
            return Err(Error::InvalidParameters(format!(
                "Han-Ki interpolant of degree {degree} for K = {k}: it needs a node per integer \
                 |I| <= K, so d >= 2K, with d <= 1023; raise the degree or use the standard \
                 Chebyshev interpolant (EvalMod::new)"
            )));
        }
        if double_angles > 16 || !(1..=30).contains(&log_message_ratio) || precision < 64 {
            return Err(Error::InvalidParameters(format!(
                "Han-Ki interpolant: {double_angles} double angles (at most 16), log2 R = \
                 {log_message_ratio} (in [1, 30]) and {precision} bits (at least 64) are \
                 not supported"
            )));
        }
        let ku = k as usize;
        let p = precision;
        let m = nodes_per_integer(ku, degree, log_message_ratio);
        let n = degree + 1;
        let eps = F::from_parts((1).into(), -(log_message_ratio as isize))
            .with_precision(p)
            .value();
        let k_prime = big(k as i64 + 1, p);

        // The nodes x_j: m_|i| Chebyshev nodes of [i - ε, i + ε] for each |i| <= K.
        let mut x: Vec<F> = Vec::with_capacity(n);
        for i in -(k as i64)..=(k as i64) {
            let mi = m[i.unsigned_abs() as usize];
            for l in 0..mi {
                let angle = big(2 * l as i64 + 1, p) / big(2 * mi as i64, p);
                x.push(big(i, p) + &eps * angle.cos_pi());
            }
        }
        debug_assert_eq!(x.len(), n);
        // g_0(x_j) = cos(π (x_j - 1/4) / 2^(r-1)).
        let quarter = F::from_parts((1).into(), -2).with_precision(p).value();
        let half_period = F::from_parts((1).into(), double_angles as isize - 1)
            .with_precision(p)
            .value();
        let g: Vec<F> = x
            .iter()
            .map(|xj| ((xj - &quarter) / &half_period).cos_pi())
            .collect();
        let y: Vec<F> = x.iter().map(|xj| xj / &k_prime).collect();

        // Barycentric weights w_j = 1 / ∏_(l ≠ j) (y_j - y_l), times g_0(x_j).
        let one = big(1, p);
        let wg: Vec<F> = (0..n)
            .map(|j| {
                let mut prod = one.clone();
                for (l, yl) in y.iter().enumerate() {
                    if l != j {
                        prod *= &y[j] - yl;
                    }
                }
                &g[j] / prod
            })
            .collect();

        // cos(π s / (2n)) for s in 0..4n: the Chebyshev points and the DCT's cosines.
        let cosines: Vec<F> = (0..4 * n)
            .map(|s| (big(s as i64, p) / big(2 * n as i64, p)).cos_pi())
            .collect();
        // p(t_k) at t_k = cos(π (2k + 1) / (2n)).
        let samples: Vec<F> = (0..n)
            .map(|kk| {
                let t = &cosines[2 * kk + 1];
                if let Some(j) = y.iter().position(|yj| yj == t) {
                    return g[j].clone();
                }
                let mut ell = one.clone();
                let mut sum = big(0, p);
                for (yj, wgj) in y.iter().zip(&wg) {
                    let diff = t - yj;
                    sum += wgj / &diff;
                    ell *= diff;
                }
                ell * sum
            })
            .collect();
        // c_j = (2/n) Σ_k p(t_k) cos(π j (2k + 1) / (2n)), c_0 halved.
        let coefficients: Vec<f64> = (0..n)
            .map(|j| {
                let mut s = big(0, p);
                for (kk, v) in samples.iter().enumerate() {
                    s += v * &cosines[(j * (2 * kk + 1)) % (4 * n)];
                }
                let w = if j == 0 { 1 } else { 2 };
                (s * big(w, p) / big(n as i64, p)).to_f64().value()
            })
            .collect();
        Ok(HanKiCosine {
            k,
            double_angles,
            log_message_ratio,
            nodes_per_integer: m,
            nodes: x.iter().map(|v| v.to_f64().value()).collect(),
            values: g.iter().map(|v| v.to_f64().value()).collect(),
            coefficients,
        })
    }

    /// `K`.
    pub fn k(&self) -> u64 {
        self.k
    }

    /// `r`.
    pub fn double_angles(&self) -> u32 {
        self.double_angles
    }

    /// `log2 R`.
    pub fn log_message_ratio(&self) -> u32 {
        self.log_message_ratio
    }

    /// `m_0, ..., m_K`: how many nodes cluster at `i` (and at `-i`).
    pub fn nodes_per_integer(&self) -> &[usize] {
        &self.nodes_per_integer
    }

    /// The interpolation nodes `x_j` in `[-K', K']`, rounded to `f64`.
    pub fn nodes(&self) -> &[f64] {
        &self.nodes
    }

    /// `g_0(x_j)` at the nodes, computed at the working precision and rounded to `f64`.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The interpolant's Chebyshev coefficients `c_0, ..., c_d` in `y = x / K'` on
    /// `[-1, 1]`, rounded to `f64`.
    pub fn coefficients(&self) -> &[f64] {
        &self.coefficients
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuits::polyeval::Polynomial;
    use num_complex::Complex64;

    fn polynomial(h: &HanKiCosine) -> Polynomial {
        let c = h
            .coefficients()
            .iter()
            .map(|&c| Complex64::new(c, 0.0))
            .collect();
        Polynomial::chebyshev(c, -1.0, 1.0).unwrap()
    }

    #[test]
    fn greedy_nodes_cover_every_integer() {
        let m = nodes_per_integer(25, 63, 8);
        assert_eq!(m[0] + 2 * m[1..].iter().sum::<usize>(), 64);
        assert!(m.iter().all(|&mi| mi >= 1));
        // The outermost integers have the largest products of distances: the spare nodes
        // go there first.
        assert!(m[25] > 1 && m[1] == 1, "{m:?}");
        // One node per integer exactly when d = 2K.
        assert_eq!(nodes_per_integer(15, 30, 8), vec![1; 16]);
    }

    #[test]
    fn coefficients_interpolate_at_the_nodes() {
        for (k, r, d) in [(15u64, 3u32, 30usize), (25, 2, 63), (12, 2, 63)] {
            let h = HanKiCosine::new(k, r, d, 8).unwrap();
            let p = polynomial(&h);
            let kp = k as f64 + 1.0;
            let mut worst = 0.0f64;
            for (x, g) in h.nodes().iter().zip(h.values()) {
                let want = (2.0 * std::f64::consts::PI * (x - 0.25) / f64::from(1u32 << r)).cos();
                assert!((g - want).abs() < 1e-14, "g_0({x}) = {g}, f64 gives {want}");
                let got = p.evaluate(Complex64::new(x / kp, 0.0)).re;
                worst = worst.max((got - g).abs());
            }
            println!("K = {k}, r = {r}, d = {d}: f64 evaluation off by {worst:e} at the nodes");
            assert!(worst < 1e-13, "K = {k}, d = {d}: {worst:e}");
        }
    }

    #[test]
    fn precision_suffices() {
        // At 256 and 384 bits the f64 coefficients agree: the cancellation leaves more
        // than 53 bits.
        let a = HanKiCosine::with_precision(25, 2, 63, 8, 256).unwrap();
        let b = HanKiCosine::with_precision(25, 2, 63, 8, 384).unwrap();
        let scale = b.coefficients().iter().fold(0.0f64, |m, c| m.max(c.abs()));
        for (ca, cb) in a.coefficients().iter().zip(b.coefficients()) {
            assert!((ca - cb).abs() <= scale * 1e-15, "{ca} vs {cb}");
        }
        // 64 bits are not enough (measured: 2^-19 off), which is why the working precision
        // is extended (f64's 53 bits fare worse still).
        let c = HanKiCosine::with_precision(25, 2, 63, 8, 64).unwrap();
        let worst = c
            .coefficients()
            .iter()
            .zip(b.coefficients())
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        assert!(worst > scale * 1e-9, "64 bits: {worst:e}");
    }

    #[test]
    fn rejects_too_low_a_degree() {
        assert!(HanKiCosine::new(16, 3, 30, 8).is_err());
        assert!(HanKiCosine::new(15, 3, 30, 8).is_ok());
    }
}
