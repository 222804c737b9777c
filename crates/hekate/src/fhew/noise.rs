//! The predicted blind-rotation noise `σ_acc²` of a configuration (seed 002 Table 2), and
//! the gate failure bound evaluators are held to.
//!
//! Per blind-rotation step, with `σ_⊙² = N σ² Σ_i E[t_i²]` the noise of one gadget product
//! (digits of variance `(B_g² + 2)/12`, the top one `(Q / B_g^(d_g - 1))² / 12`):
//!
//! * an RGSW product with a monomial adds `2 σ_⊙²`; with RLWE' keys (ALTMULT, Alg. 6)
//!   `(‖z‖² + 2) σ_⊙²`, `‖z‖² ≈ 2N/3` for a ternary `z`;
//! * an automorphism (key switch) adds `σ_⊙²`;
//! * AP takes `d_r (1 - 1/B_r) n` products, GINX `2 n` products of two keys each
//!   (`4 σ_⊙²` per secret coefficient), Alg. 3 `1.5 n` products and `n` key switches,
//!   Alg. 4 and 5 `n + 1` products and `n` key switches.
//!
//! With the approximate gadget decomposition ([`GadgetDecomposition::Approximate`]) the
//! lowest digit leaves `σ_⊙²`, and its rounding error `ε` (variance `(B_g² + 2)/12`) adds
//! `E[ε²] (‖z‖² + 1)` per RGSW product with a monomial and `E[ε²] ‖z‖²` per key switch
//! (GINX: `2 E[ε²] (‖z‖² + 1)` where the key's bit is 1, a third of the coefficients);
//! ALTMULT's products keep every digit. Keys of a `B_g` schedule use their own base.
//!
//! The prediction counts every automorphism of the paper's order; the default step order
//! ([`StepOrder::Dlog`](super::StepOrder)) skips some, so it is an upper bound there. It
//! is checked against measurements in `fhew/blindrotate/tests.rs`. Reduced automorphism
//! key sets take a data-dependent number of key switches per step: no prediction.

use super::blindrotate::GadgetDecomposition;
use super::params::{AutoKeySet, FhewParams, Method, MethodConfig};
use crate::rlwe::gsw::Gadget;
use crate::Result;

/// The largest predicted gate failure probability an evaluator accepts by default:
/// `2^-32`. Every preset's configurations with RGSW keys and the full automorphism key set
/// are below it (the highest, Alg. 4 with every digit at `OPENFHE_STD128_LMKCDEY`, is
/// predicted at about `2^-39.7`, an upper bound); a configuration above it (for example
/// ALTMULT keys at OpenFHE's STD128, which get about 37% of the gates wrong) gives wrong
/// results too often to be used without saying so:
/// [`FhewEvaluator::with_failure_bound`](super::FhewEvaluator::with_failure_bound) opts in.
pub const MAX_GATE_FAILURE: f64 = 2.328_306_436_538_696_3e-10; // 2^-32

/// `E[t²] = (B² + 2) / 12` of a full signed digit in base `B`.
pub fn digit_variance(b: f64) -> f64 {
    (b * b + 2.0) / 12.0
}

/// `σ_⊙²` of a gadget product in base `2^log_bg` over the digits from `skip` up.
pub fn sigma_odot2(p: &FhewParams, big_q: u64, log_bg: u32, skip: usize) -> Result<f64> {
    let g = Gadget::new(big_q, log_bg)?;
    let b = g.base() as f64;
    let d = g.digits();
    let top = big_q as f64 / b.powi(d as i32 - 1);
    let e = (d - 1).saturating_sub(skip) as f64 * digit_variance(b) + top * top / 12.0;
    Ok(p.big_n as f64 * p.sigma * p.sigma * e)
}

/// The predicted `σ_acc²` (units of `Q`) of `cfg` on `p` with `decomposition`, `None`
/// for reduced automorphism key sets (see the module documentation).
pub fn predicted_sigma_acc2(
    p: &FhewParams,
    big_q: u64,
    cfg: MethodConfig,
    decomposition: GadgetDecomposition,
) -> Result<Option<f64>> {
    if cfg.method.is_automorphism_based() && cfg.auto_keys != AutoKeySet::Full {
        return Ok(None);
    }
    let skip = usize::from(decomposition == GadgetDecomposition::Approximate);
    let z2 = 2.0 * p.big_n as f64 / 3.0;
    // One RGSW (or ALTMULT) product with a monomial, for a key in base 2^log_bg.
    let product = |log_bg: u32| -> Result<f64> {
        let eps = skip as f64 * digit_variance((1u64 << log_bg) as f64);
        Ok(if cfg.alt_mult {
            (z2 + 2.0) * sigma_odot2(p, big_q, log_bg, 0)?
        } else {
            2.0 * sigma_odot2(p, big_q, log_bg, skip)? + eps * (z2 + 1.0)
        })
    };
    let eps = skip as f64 * digit_variance((1u64 << p.log_bg) as f64);
    let key_switch = sigma_odot2(p, big_q, p.log_bg, skip)? + eps * z2;
    let mut total = 0.0;
    for i in 0..p.n {
        let lb = p.log_bg_of(i);
        total += match cfg.method {
            Method::Ap => p.d_r() as f64 * (1.0 - 1.0 / p.b_r as f64) * product(lb)?,
            Method::Ginx if cfg.alt_mult => 4.0 * product(lb)?,
            Method::Ginx => {
                let eps_i = skip as f64 * digit_variance((1u64 << lb) as f64);
                2.0 * (4.0 * sigma_odot2(p, big_q, lb, skip)? + 2.0 / 3.0 * eps_i * (z2 + 1.0))
            }
            Method::LmkcdeyBase => 1.5 * product(lb)? + key_switch,
            Method::LmkcdeyAux | Method::LmkcdeyAllEven => product(lb)? + key_switch,
        };
    }
    if matches!(cfg.method, Method::LmkcdeyAux | Method::LmkcdeyAllEven) {
        total += product(p.log_bg)?;
    }
    Ok(Some(total))
}

/// The predicted probability that a two-input gate of `cfg` on `p` decrypts wrongly
/// ([`FhewParams::failure_probability`] of [`predicted_sigma_acc2`]); `None` where there
/// is no prediction.
pub fn predicted_gate_failure(
    p: &FhewParams,
    big_q: u64,
    cfg: MethodConfig,
    decomposition: GadgetDecomposition,
) -> Result<Option<f64>> {
    Ok(predicted_sigma_acc2(p, big_q, cfg, decomposition)?.map(|s| p.failure_probability(s)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fhew::params::*;

    #[test]
    fn altmult_at_openfhe_std128_fails_often_and_the_defaults_do_not() {
        let p = &OPENFHE_STD128;
        let q = p.big_q().unwrap();
        let alt = MethodConfig::new(Method::Ginx).with_alt_mult(true);
        let f = predicted_gate_failure(p, q, alt, GadgetDecomposition::Exact)
            .unwrap()
            .unwrap();
        assert!(f > 0.1, "ALTMULT at OPENFHE_STD128: {f}");
        for m in [Method::Ginx, Method::LmkcdeyAux] {
            for d in [GadgetDecomposition::Exact, GadgetDecomposition::Approximate] {
                let f = predicted_gate_failure(p, q, MethodConfig::new(m), d)
                    .unwrap()
                    .unwrap();
                assert!(f < MAX_GATE_FAILURE, "{m:?} {d:?}: {f}");
            }
        }
        assert!((MAX_GATE_FAILURE - (-32f64).exp2()).abs() < 1e-22);
        let reduced = MethodConfig::new(Method::LmkcdeyAux).with_auto_keys(AutoKeySet::Generators);
        assert_eq!(
            predicted_sigma_acc2(p, q, reduced, GadgetDecomposition::Exact).unwrap(),
            None
        );
    }
}
