//! Shared fixtures for the scheme-level tests: small CKKS contexts with fixed seeds, and
//! the noise model the precision bounds are derived from.
#![allow(dead_code)]

use hekate::ckks::{CkksContext, CkksParameters, Evaluator};
use hekate::params::SecurityLevel;
use hekate::rlwe::keyswitch::KeySwitchMethod;
use hekate::rlwe::{PublicKey, SecretKey};
use num_complex::Complex64;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

/// σ of fresh noise.
pub const SIGMA: f64 = 3.2;

/// A test context: N = 2^log_n, chain 55 + 3 x 40 bits, two 60-bit special primes, dnum 2.
/// (Correctness tests run at sizes below the 128-bit bound; security is opted out.)
pub struct Fixture {
    pub ctx: Arc<CkksContext>,
    pub sk: SecretKey,
    pub pk: PublicKey,
    pub eval: Evaluator,
    pub rng: ChaCha20Rng,
}

pub fn fixture(log_n: u32, seed: u64, rotations: &[i64]) -> Fixture {
    fixture_with(log_n, seed, rotations, KeySwitchMethod::Hybrid)
}

/// [`fixture`] with another key-switching method (same primes, same seeds: the keys are
/// the same ordinary keys, expanded for KLSS).
pub fn fixture_with(log_n: u32, seed: u64, rotations: &[i64], method: KeySwitchMethod) -> Fixture {
    let ctx = CkksParameters::new(log_n)
        .log_q(&[55, 40, 40, 40])
        .log_p(&[60, 60])
        .dnum(2)
        .log_scale(40)
        .security(SecurityLevel::NotChecked)
        .key_switching(method)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let pk = ctx.generate_public_key_with(&sk, &mut rng);
    let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
    let gks = ctx.generate_galois_keys_with(&sk, rotations, true, &mut rng);
    let eval = Evaluator::new(ctx.clone(), Some(rlk), gks);
    Fixture {
        ctx,
        sk,
        pk,
        eval,
        rng,
    }
}

/// `n` pseudo-random complex values in the unit disk (fixed seed).
pub fn random_values(n: usize, seed: u64) -> Vec<Complex64> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    (0..n)
        .map(|_| loop {
            let z = Complex64::new(next(), next());
            if z.norm() <= 1.0 {
                break z;
            }
        })
        .collect()
}

/// Mean |error|^2 and max |error| between two slot vectors.
pub fn error_stats(got: &[Complex64], want: &[Complex64]) -> (f64, f64) {
    assert_eq!(got.len(), want.len());
    let mut ms = 0.0;
    let mut max = 0.0f64;
    for (g, w) in got.iter().zip(want) {
        let e = (g - w).norm();
        ms += e * e;
        max = max.max(e);
    }
    (ms / got.len() as f64, max)
}

/// Precision in bits: -log2(max error).
pub fn bits(max_err: f64) -> f64 {
    -max_err.log2()
}

/// The noise model (variances of one coefficient of the noise polynomial, and of one slot).
///
/// * A noise polynomial with i.i.d. coefficients of variance `v` decodes, at scale `Δ`
///   with `n` slots, to slot errors with `E|err|^2 = 2n v / Δ^2` (the decoder evaluates the
///   `2n` coefficients at stride `N/2n` at unit-modulus points).
/// * Fresh public-key encryption over `Q_l ∪ P` followed by ModDown: the noise
///   `u e_pk + e_0 + e_1 s` (variance `σ^2 (1 + 4N/3)`, ternary `u` and `s` of variance 2/3)
///   is divided by `P`, leaving ModDown's rounding `r_0 + r_1 s`, `v = (1 + 2N/3)/12`, plus
///   `1/12` from rounding the encoding.
/// * Secret-key encryption: `v = σ^2 + 1/12`.
/// * Key switching (hybrid): `v = N σ^2 Σ_j E[d_j^2] / P^2 + (1 + 2N/3)/12`, with
///   `E[d_j^2] = Q_j^2/12` for a uniform input; the second term is ModDown's rounding of both
///   parts (`r_0 + r_1 s`).
/// * Rescaling: `v = (1 + 2N/3)/12` at the new scale.
pub struct Noise {
    pub n: f64,
}

impl Noise {
    pub fn fresh_pk(&self) -> f64 {
        self.rounding() + 1.0 / 12.0
    }
    pub fn fresh_sk(&self) -> f64 {
        SIGMA * SIGMA + 1.0 / 12.0
    }
    pub fn rounding(&self) -> f64 {
        (1.0 + 2.0 * self.n / 3.0) / 12.0
    }
    /// Key switching with digits `q_digits` (log2 of each Q_j) and special modulus `log_p`.
    pub fn key_switch(&self, log_q_digits: &[f64], log_p: f64) -> f64 {
        let s: f64 = log_q_digits
            .iter()
            .map(|&l| 2f64.powf(2.0 * (l - log_p)) / 12.0)
            .sum();
        self.n * SIGMA * SIGMA * s + self.rounding()
    }
    /// Key-switching variance for a fixture (4 chain primes, dnum 2: digits {q0, q1},
    /// {q2, q3}).
    pub fn key_switch_of(&self, ctx: &CkksContext) -> f64 {
        let lq: Vec<f64> = ctx.q_primes().iter().map(|&q| (q as f64).log2()).collect();
        let log_p: f64 = ctx.p_primes().iter().map(|&p| (p as f64).log2()).sum();
        self.key_switch(&[lq[0] + lq[1], lq[2] + lq[3]], log_p)
    }

    /// Slot mean-square error of a coefficient variance `v` at scale `delta` with `slots`.
    pub fn slot_ms(&self, v: f64, slots: usize, delta: f64) -> f64 {
        2.0 * slots as f64 * v / (delta * delta)
    }
}
