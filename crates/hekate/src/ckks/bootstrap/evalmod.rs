//! EvalMod: the homomorphic reduction modulo `q_0` (seed 003 §5.4, Alg. 7).
//!
//! After ModRaise and CoeffsToSlots, a slot holds `y = x / K'` with
//! `x = t / q_0 = I + m / q_0`: the raised coefficient `t = m + q_0 I` over `q_0`, where
//! `I` is a small integer (`|I| <= K` except with the failure probability of
//! [`failure`](super::failure)) and `|m / q_0| <= 1 / R` for the message ratio
//! `R = q_0 / Δ_0`. EvalMod returns `(1/2π) sin(2π x) ≈ m / q_0` (the error of the sine,
//! `(2π)^2 (m/q_0)^3 / 6`, is below the message's precision for `R >= 2^8`).
//!
//! **The scaled cosine with double angles** (Alg. 7). With `r` double angles,
//! `g_0(x) = a_0 cos(2π (x - 1/4) / 2^r)` with `a_i = (1/2π)^(1/2^(r-i))`, interpolated
//! in the Chebyshev basis on `y ∈ [-1, 1]` (`x = K' y`, the change of variable folded into
//! CoeffsToSlots' matrices, so the polynomial costs exactly `⌈log2(d + 1)⌉` levels), then
//! `r` times `g_(i+1) = 2 g_i^2 - a_(i+1)`: since `a_i^2 = a_(i+1)`,
//! `2 a_i^2 cos^2 θ - a_(i+1) = a_(i+1) cos 2θ`, and `g_r = (1/2π) cos(2π (x - 1/4))
//! = (1/2π) sin(2π x)`. Each double angle costs one product and one level; the
//! interpolation interval shrinks by `2^r`, so the degree does too.
//!
//! **Interpolants** ([`Interpolant`]). [`EvalMod::new`] interpolates `g_0` at the
//! Chebyshev nodes of the whole interval (a near-minimax approximation on `[-K', K']`);
//! [`EvalMod::han_ki`] uses Han and Ki's interpolant ([`cosine`](super::cosine): the nodes
//! clustered at the integers `i ± 1/R`, seed 003 §5.4, Lattigo's `CosDiscrete`), far more
//! accurate near the small integers, where ModRaise's overflow `I` mostly lies, and less
//! near `±K` when the degree leaves few nodes to spare. Measured at `R = 2^8`
//! ([`EvalMod::max_error_within`]): `K = 15`, `d = 30`, `r = 3` (one node per integer),
//! `|I| <= 7`: `2^-47.6` against the standard's `2^-29.9`, all `|I| <= 15`: `2^-24.6`
//! against `2^-29.7`; `K = 25`, `d = 63`, `r = 2`: `|I| <= 12`: `2^-38.2` against
//! `2^-25.2`, all: `2^-29.2` against `2^-25.2`.
//!
//! **Arcsine** (optional, seed 003 §5.4 after Lee et al.; Lattigo's `Mod1InvDegree`): the
//! sine's own error `(2π)^2 u^3 / 6` for `u = m / q_0` matters when the message ratio `R`
//! is small (Set II: `R = 4`). [`EvalMod::with_arcsine`] composes the result with the
//! degree-`d_arcsin` Taylor polynomial of `y -> (1/2π) arcsin(2π y)` (power basis, odd
//! terms), so the output approximates `u` itself; it costs `⌈log2(d_arcsin + 1)⌉` more
//! levels (3 for degree 7: Set II's EvalMod is `6 + 2 + 3 = 11` levels).
//!
//! **Scales.** Every scale is exact (a rational); the double angles square it and divide
//! by the level's prime, `T_(i+1) = T_i^2 / q`. The polynomial's target `T_0` is chosen
//! backwards (`T_i ≈ sqrt(T_(i+1) q)`, rounded to any exact value) so that the output
//! lands near a requested scale; the output's exact scale is then known
//! ([`EvalMod::output_scale`]) and the next stage (SlotsToCoeffs) absorbs the difference
//! exactly.

use super::cosine::HanKiCosine;
use crate::circuits::polyeval::{self, Polynomial};
use crate::circuits::{CircuitEvaluator, ExactScale};
use crate::ckks::Scale;
use crate::{Error, Result};
use num_complex::Complex64;
use std::f64::consts::PI;

/// The largest degree [`EvalMod::choose`] considers.
const MAX_DEGREE: usize = 255;

/// How EvalMod's polynomial `p(y) ≈ g_0(K' y)` interpolates the scaled cosine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolant {
    /// At the `d + 1` Chebyshev nodes of `[-K', K']` ([`EvalMod::new`]).
    Chebyshev,
    /// Han and Ki's nodes clustered at the integers `i ± 1/R`, `R = 2^log_message_ratio`
    /// ([`EvalMod::han_ki`], [`HanKiCosine`]); needs `d >= 2K`.
    HanKi {
        /// `log2 R`: the clusters' half-width is `1/R`.
        log_message_ratio: u32,
    },
}

/// The EvalMod polynomial and its scale plan.
#[derive(Clone, Debug)]
pub struct EvalMod {
    /// `K' = K + 1`: the interpolation interval is `x ∈ [-K', K']`.
    k_prime: f64,
    /// How `poly` interpolates `g_0`.
    interpolant: Interpolant,
    /// `r`, the number of double angles.
    double_angles: u32,
    /// `p(y) ≈ g_0(K' y)` on `[-1, 1]`, Chebyshev basis.
    poly: Polynomial,
    /// The arcsine's Taylor polynomial, power basis, if composed.
    arcsine: Option<Polynomial>,
}

/// The Taylor polynomial of degree `degree` of `y -> (1/2π) arcsin(2π y)`:
/// `Σ_k c_(2k+1) y^(2k+1)` with `c_1 = 1` and `c_(i+2) = c_i (2π)^2 i^2 / ((i + 1)(i + 2))`.
fn arcsine_taylor(degree: usize) -> Result<Polynomial> {
    let mut coeffs = vec![Complex64::new(0.0, 0.0); degree + 1];
    let mut c = 1.0;
    for i in (1..=degree).step_by(2) {
        coeffs[i] = Complex64::new(c, 0.0);
        let f = i as f64;
        c *= (2.0 * PI).powi(2) * f * f / ((f + 1.0) * (f + 2.0));
    }
    Polynomial::monomial(coeffs)
}

/// `a_i = (1/2π)^(1/2^(r - i))`.
fn a(i: u32, r: u32) -> f64 {
    (1.0 / (2.0 * PI)).powf(1.0 / f64::from(1u32 << (r - i)))
}

impl EvalMod {
    /// EvalMod for `|I| <= k` with `double_angles` double angles and a Chebyshev
    /// interpolant of degree `degree`.
    pub fn new(k: u64, double_angles: u32, degree: usize) -> Result<Self> {
        Self::with_interpolant(k, double_angles, degree, Interpolant::Chebyshev)
    }

    /// EvalMod for `|I| <= k` with `double_angles` double angles (`r`) and Han and Ki's
    /// interpolant of degree `degree` (`d >= 2K`) for the message ratio
    /// `R = 2^log_message_ratio` (see [`cosine`](super::cosine)).
    pub fn han_ki(
        k: u64,
        double_angles: u32,
        degree: usize,
        log_message_ratio: u32,
    ) -> Result<Self> {
        Self::with_interpolant(
            k,
            double_angles,
            degree,
            Interpolant::HanKi { log_message_ratio },
        )
    }

    /// EvalMod for `|I| <= k` with `double_angles` double angles and the interpolant
    /// `interpolant` of degree `degree`.
    pub fn with_interpolant(
        k: u64,
        double_angles: u32,
        degree: usize,
        interpolant: Interpolant,
    ) -> Result<Self> {
        if double_angles > 16 {
            return Err(Error::InvalidParameters(format!(
                "{double_angles} double angles: at most 16 are supported"
            )));
        }
        if degree == 0 || degree > 1023 {
            return Err(Error::InvalidParameters(format!(
                "EvalMod degree {degree} must be in [1, 1023]"
            )));
        }
        let k_prime = k as f64 + 1.0;
        let r = double_angles;
        let poly = match interpolant {
            Interpolant::Chebyshev => {
                let g0 = move |y: f64| {
                    a(0, r) * (2.0 * PI * (k_prime * y - 0.25) / f64::from(1u32 << r)).cos()
                };
                Polynomial::interpolate(g0, -1.0, 1.0, degree)?
            }
            Interpolant::HanKi { log_message_ratio } => {
                let h = HanKiCosine::new(k, r, degree, log_message_ratio)?;
                let coeffs = h
                    .coefficients()
                    .iter()
                    .map(|&c| Complex64::new(a(0, r) * c, 0.0))
                    .collect();
                Polynomial::chebyshev(coeffs, -1.0, 1.0)?
            }
        };
        Ok(EvalMod {
            k_prime,
            interpolant,
            double_angles,
            poly,
            arcsine: None,
        })
    }

    /// This EvalMod composed with the arcsine's Taylor polynomial of odd degree `degree`
    /// (`d_arcsin`, seed 003 Table 6: 7 for Set II; `0` removes it), which undoes the sine's
    /// non-linearity: the output approximates `u = x - round(x)` instead of `(1/2π) sin(2π
    /// x)`. Worth its levels for small message ratios (`R = 2^2`).
    pub fn with_arcsine(mut self, degree: usize) -> Result<Self> {
        if degree == 0 {
            self.arcsine = None;
            return Ok(self);
        }
        if degree.is_multiple_of(2) || degree > 63 {
            return Err(Error::InvalidParameters(format!(
                "arcsine degree {degree}: use an odd degree in [1, 63] (0 for none)"
            )));
        }
        self.arcsine = Some(arcsine_taylor(degree)?);
        Ok(self)
    }

    /// `d_arcsin`: the arcsine polynomial's degree, 0 without one.
    pub fn arcsine_degree(&self) -> usize {
        self.arcsine.as_ref().map_or(0, Polynomial::degree)
    }

    /// The levels of the arcsine, 0 without one.
    fn arcsine_depth(&self) -> usize {
        self.arcsine.as_ref().map_or(0, Polynomial::depth)
    }

    /// The shallowest EvalMod for `|I| <= k` whose approximation of `(1/2π) sin(2π x)`
    /// on `x = k + u`, integers `|k| <= K` and `|u| <= 2^-log_message_ratio`, is within
    /// `2^-log2_error` (measured on a grid in `f64`): over both [`Interpolant`]s (Han and
    /// Ki's where `d >= 2K`), `r` in `0..=12` and degrees `2^m - 1` (the largest degree of
    /// each depth), the smallest depth `m + r`, then the smallest degree, then the
    /// standard Chebyshev interpolant (accurate on the whole interval, with smaller
    /// coefficients).
    pub fn choose(k: u64, log_message_ratio: u32, log2_error: f64) -> Result<Self> {
        Self::choose_among(k, log_message_ratio, log2_error, true)
    }

    /// [`EvalMod::choose`] over the standard Chebyshev interpolant only (whose error is
    /// even over the interval, as a worst-case precision model assumes).
    pub fn choose_chebyshev(k: u64, log_message_ratio: u32, log2_error: f64) -> Result<Self> {
        Self::choose_among(k, log_message_ratio, log2_error, false)
    }

    fn choose_among(k: u64, log_message_ratio: u32, log2_error: f64, han_ki: bool) -> Result<Self> {
        let width = (-f64::from(log_message_ratio)).exp2();
        let all = [
            Interpolant::Chebyshev,
            Interpolant::HanKi { log_message_ratio },
        ];
        let kinds = &all[..if han_ki { 2 } else { 1 }];
        // (depth, degree, kind index, EvalMod)
        let mut best: Option<(usize, usize, usize, EvalMod)> = None;
        for (kind, &interpolant) in kinds.iter().enumerate() {
            for r in 0..=12u32 {
                for m in 1..=8usize {
                    let d = (1usize << m) - 1;
                    if d > MAX_DEGREE {
                        break;
                    }
                    let depth = m + r as usize;
                    if best.as_ref().is_some_and(|b| (depth, d) >= (b.0, b.1)) {
                        break;
                    }
                    if matches!(interpolant, Interpolant::HanKi { .. }) && (d as u64) < 2 * k {
                        continue;
                    }
                    let e = EvalMod::with_interpolant(k, r, d, interpolant)?;
                    if e.max_error(width) <= (-log2_error).exp2() {
                        best = Some((depth, d, kind, e));
                        break;
                    }
                }
            }
        }
        best.map(|(_, _, _, e)| e).ok_or_else(|| {
            Error::InvalidParameters(format!(
                "no EvalMod of degree <= {MAX_DEGREE} with at most 12 double angles reaches \
                 2^-{log2_error} for K = {k}: lower the precision target or K"
            ))
        })
    }

    /// The interpolation half-width `K' = K + 1` (CoeffsToSlots scales by `1/K'`).
    pub fn k_prime(&self) -> f64 {
        self.k_prime
    }

    /// How the polynomial interpolates the scaled cosine.
    pub fn interpolant(&self) -> Interpolant {
        self.interpolant
    }

    /// The largest `|c_j|` of the polynomial's Chebyshev coefficients: the encrypted
    /// evaluation multiplies the noise of the Chebyshev basis by up to about this much.
    pub fn max_coefficient(&self) -> f64 {
        self.poly
            .coefficients()
            .iter()
            .fold(0.0f64, |m, c| m.max(c.norm()))
    }

    /// The number of double angles `r`.
    pub fn double_angles(&self) -> u32 {
        self.double_angles
    }

    /// The Chebyshev interpolant `p(y) ≈ g_0(K' y)`.
    pub fn polynomial(&self) -> &Polynomial {
        &self.poly
    }

    /// The levels EvalMod consumes: `⌈log2(d + 1)⌉ + r`, plus `⌈log2(d_arcsin + 1)⌉` with
    /// the arcsine.
    pub fn depth(&self) -> usize {
        self.poly.depth() + self.double_angles as usize + self.arcsine_depth()
    }

    /// EvalMod in the clear, at `x` (the reference the encrypted evaluation approximates).
    pub fn evaluate_plain(&self, x: f64) -> f64 {
        let mut g = self.poly.evaluate(Complex64::new(x / self.k_prime, 0.0)).re;
        for i in 1..=self.double_angles {
            g = 2.0 * g * g - a(i, self.double_angles);
        }
        match &self.arcsine {
            Some(p) => p.evaluate(Complex64::new(g, 0.0)).re,
            None => g,
        }
    }

    /// What [`EvalMod::evaluate_plain`] approximates at `x`: `(1/2π) sin(2π x)`, or
    /// `x - round(x)` with the arcsine.
    pub fn reference(&self, x: f64) -> f64 {
        if self.arcsine.is_some() {
            x - x.round()
        } else {
            (2.0 * PI * x).sin() / (2.0 * PI)
        }
    }

    /// The largest `|evaluate_plain(x) - reference(x)|` over `x = k + u`, `|u| <= width`
    /// on a grid of 17 points, for the integers `|k| <= K` (at most 1025 of them, evenly
    /// spaced and including `±K`, for large `K`); see [`EvalMod::reference`].
    pub fn max_error(&self, width: f64) -> f64 {
        self.max_error_within(width, (self.k_prime - 1.0) as u64)
    }

    /// [`EvalMod::max_error`] over the integers `|k| <= k_max` only (at most `K`): Han and
    /// Ki's interpolant is most accurate at the small `|I|` ModRaise makes likely.
    pub fn max_error_within(&self, width: f64, k_max: u64) -> f64 {
        let k = k_max.min((self.k_prime - 1.0) as u64) as i64;
        let stride = (2 * k / 1024).max(1);
        let mut worst = 0.0f64;
        let integers = (-k..=k).step_by(stride as usize).chain([k]);
        for i in integers {
            for j in -8..=8 {
                let x = i as f64 + width * f64::from(j) / 8.0;
                let want = self.reference(x);
                worst = worst.max((self.evaluate_plain(x) - want).abs());
            }
        }
        worst
    }

    /// The scale the polynomial's output is planned at, for an output near `target` after
    /// the double angles: `T_i = sqrt(T_(i+1) q_λ)` backwards from `T_r = target`, where
    /// `λ` runs over the levels the double angles rescale at. `level` is the input's level.
    fn polynomial_target<E: CircuitEvaluator<Scale = Scale>>(
        &self,
        eval: &E,
        level: usize,
        target: f64,
    ) -> Result<Scale> {
        let out_level = self.sine_level(level)?;
        // With the arcsine, the sine lands near the prime its power basis rescales by.
        let mut t = match self.arcsine {
            Some(_) => eval.rescale_factor(out_level).to_f64(),
            None => target,
        };
        // Double angle i (1-based) rescales at level out_level + (r - i) + 1.
        for i in (1..=self.double_angles).rev() {
            let lambda = out_level + (self.double_angles - i) as usize + 1;
            t = (t * eval.rescale_factor(lambda).to_f64()).sqrt();
        }
        Scale::from_f64(t.round()).ok_or_else(|| {
            Error::InvalidParameters(format!("EvalMod target scale {t} is not representable"))
        })
    }

    /// The level the double angles end at (EvalMod's output level without the arcsine,
    /// the arcsine's input level with it), for an input at `level`.
    fn sine_level(&self, level: usize) -> Result<usize> {
        level
            .checked_sub(self.depth())
            .map(|l| l + self.arcsine_depth())
            .ok_or_else(|| self.out_of_levels(level))
    }

    /// The arcsine's exact output scale, for an output near `target`.
    fn arcsine_target(target: f64) -> Result<Scale> {
        Scale::from_f64(target.round()).ok_or_else(|| {
            Error::InvalidParameters(format!(
                "EvalMod target scale {target} is not representable"
            ))
        })
    }

    fn out_of_levels(&self, level: usize) -> Error {
        Error::OutOfLevels(format!(
            "EvalMod needs {} levels (degree {}, {} double angles, arcsine degree {}) and the \
             input is at level {level}: use a longer chain",
            self.depth(),
            self.poly.degree(),
            self.double_angles,
            self.arcsine_degree()
        ))
    }

    /// The exact scale [`EvalMod::evaluate`] returns for an input at `level` and an output
    /// planned near `target`.
    pub fn output_scale<E: CircuitEvaluator<Scale = Scale>>(
        &self,
        eval: &E,
        level: usize,
        target: f64,
    ) -> Result<Scale> {
        if self.arcsine.is_some() {
            self.sine_level(level)?;
            return Self::arcsine_target(target);
        }
        let mut t = self.polynomial_target(eval, level, target)?;
        let out_level = self.sine_level(level)?;
        for i in 1..=self.double_angles {
            let lambda = out_level + (self.double_angles - i) as usize + 1;
            t = t.mul(&t).div(&eval.rescale_factor(lambda));
        }
        Ok(t)
    }

    /// `(1/2π) sin(2π K' y)` slot-wise for the ciphertext `ct` of `y ∈ [-1, 1]` (then the
    /// arcsine, if composed), at level `level(ct) - depth()` and scale
    /// [`EvalMod::output_scale`]`(level, target)`. Written against
    /// [`CircuitEvaluator`]: the CPU evaluator and a device's run the same steps.
    pub fn evaluate<E: CircuitEvaluator<Scale = Scale, Value = Complex64>>(
        &self,
        eval: &E,
        ct: &E::Ciphertext,
        target: f64,
    ) -> Result<E::Ciphertext> {
        let level = eval.level(ct);
        if level < self.depth() {
            return Err(self.out_of_levels(level));
        }
        let t0 = self.polynomial_target(eval, level, target)?;
        let mut g = polyeval::evaluate(eval, ct, &self.poly, &t0)?;
        for i in 1..=self.double_angles {
            // cos(2x) = 2 cos(x)^2 - 1 (scaled): the constant added at the product's scale,
            // before the rescale.
            let prod = eval.scale(&g).times(eval.scale(&g));
            let c = Complex64::new(-a(i, self.double_angles), 0.0);
            let w = eval.constant_like(&g, eval.level(&g), &prod, Some(c))?;
            g = eval.mul_relin_rescale(&g, &g, 2, Some(&w))?;
        }
        match &self.arcsine {
            Some(p) => polyeval::evaluate(eval, &g, p, &Self::arcsine_target(target)?),
            None => Ok(g),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_angles_reach_the_scaled_sine() {
        for (k, r, d) in [(12u64, 2u32, 63usize), (100, 6, 31), (25, 3, 63)] {
            let e = EvalMod::new(k, r, d).unwrap();
            let err = e.max_error(1.0 / 256.0);
            assert!(err < 1e-7, "K = {k}, r = {r}, d = {d}: {err}");
        }
        // Too low a degree does not approximate.
        assert!(EvalMod::new(100, 0, 15).unwrap().max_error(0.0) > 1e-2);
    }

    /// `log2` of the error over `|I| <= k_max` for (K, r, d) at `R = 2^8`, both interpolants.
    fn errors(k: u64, r: u32, d: usize, k_max: u64) -> (f64, f64) {
        let w = 1.0 / 256.0;
        let s = EvalMod::new(k, r, d).unwrap();
        let h = EvalMod::han_ki(k, r, d, 8).unwrap();
        assert_eq!(
            h.interpolant(),
            Interpolant::HanKi {
                log_message_ratio: 8
            }
        );
        assert_eq!(h.depth(), s.depth());
        // Moderate coefficients: the encrypted evaluation amplifies noise by about these.
        assert!(h.max_coefficient() < 1.0, "{}", h.max_coefficient());
        (
            s.max_error_within(w, k_max).log2(),
            h.max_error_within(w, k_max).log2(),
        )
    }

    #[test]
    fn han_ki_is_more_accurate_near_the_likely_integers() {
        // Lattigo's N16QP1546H192H32 (its K = 16 is hekate's K = 15): one node per integer.
        // Measured: |I| <= 7: standard 2^-29.9, Han-Ki 2^-47.6; all |I| <= 15: 2^-29.7 and
        // 2^-24.6 (Han-Ki's error grows towards ±K, where I is least likely).
        let (s, h) = errors(15, 3, 30, 7);
        assert!(h <= s - 10.0, "|I| <= 7: standard 2^{s}, Han-Ki 2^{h}");
        let (s, h) = errors(15, 3, 30, 15);
        assert!(
            h < -24.0 && s < -29.0,
            "|I| <= 15: standard 2^{s}, Han-Ki 2^{h}"
        );
        // K = 25 (one integer beyond seed 003 Sets I-III), d = 63, r = 2: 13 nodes to spare go to the outer
        // integers. Measured: |I| <= 12: 2^-25.2 and 2^-38.2; all: 2^-25.2 and 2^-29.2.
        let (s, h) = errors(25, 2, 63, 12);
        assert!(h <= s - 10.0, "|I| <= 12: standard 2^{s}, Han-Ki 2^{h}");
        let (s, h) = errors(25, 2, 63, 25);
        assert!(h <= s - 3.0, "|I| <= 25: standard 2^{s}, Han-Ki 2^{h}");
        // Too few nodes for the interval: rejected.
        assert!(EvalMod::han_ki(16, 3, 30, 8).is_err());
    }

    #[test]
    fn choose_finds_the_shallowest() {
        let e = EvalMod::choose(16, 8, 30.0).unwrap();
        assert!(e.max_error(1.0 / 256.0) <= 2f64.powi(-30));
        // No shallower configuration qualifies.
        for r in 0..=12u32 {
            for m in 1..=8usize {
                if m + r as usize >= e.depth() {
                    continue;
                }
                let other = EvalMod::new(16, r, (1 << m) - 1).unwrap();
                assert!(
                    other.max_error(1.0 / 256.0) > 2f64.powi(-30),
                    "r = {r}, m = {m}"
                );
                if (1usize << m) > 32 {
                    let other = EvalMod::han_ki(16, r, (1 << m) - 1, 8).unwrap();
                    assert!(
                        other.max_error(1.0 / 256.0) > 2f64.powi(-30),
                        "Han-Ki, r = {r}, m = {m}"
                    );
                }
            }
        }
        assert!(EvalMod::choose(1 << 20, 8, 60.0).is_err());
        // Han and Ki's interpolant wins where it is shallower: K = 8, R = 2^8, 2^-40.
        let e = EvalMod::choose(8, 8, 40.0).unwrap();
        let cheb = (0..=12u32)
            .flat_map(|r| (1..=8usize).map(move |m| (r, m)))
            .filter(|&(r, m)| {
                EvalMod::new(8, r, (1 << m) - 1)
                    .unwrap()
                    .max_error(1.0 / 256.0)
                    <= 2f64.powi(-40)
            })
            .map(|(r, m)| r as usize + m)
            .min()
            .unwrap();
        println!(
            "K = 8, 2^-40: {:?} depth {} (standard: {cheb})",
            e.interpolant(),
            e.depth()
        );
        assert!(e.depth() <= cheb);
    }
}
