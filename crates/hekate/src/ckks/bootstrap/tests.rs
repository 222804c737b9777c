//! End-to-end bootstrapping at small N (`NotChecked` toy chains, seconds each).

use super::*;
use crate::ckks::{CkksContext, CkksParameters};
use crate::params::SecurityLevel;
use crate::rlwe::{SecretDistribution, SecretKey};
use num_complex::Complex64;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

/// Precision statistics of `got` against `want`: `(mean, minimum)` over the slots of
/// `-log2 |got - want|` (the mean is `-log2` of the mean absolute error, as Lattigo's).
fn precision(got: &[Complex64], want: &[Complex64]) -> (f64, f64) {
    let errs: Vec<f64> = got.iter().zip(want).map(|(g, w)| (g - w).norm()).collect();
    let mean = errs.iter().sum::<f64>() / errs.len() as f64;
    let max = errs.iter().copied().fold(0.0, f64::max);
    (-mean.log2(), -max.log2())
}

/// A toy context (`N = 2^log_n`, `NotChecked`) for `config`: `q_0` of 60 bits, one
/// residual level of 40 bits, then the bootstrapping levels.
fn context(log_n: u32, config: &BootstrapConfig, secret: SecretDistribution) -> Arc<CkksContext> {
    CkksParameters::new(log_n)
        .log_q(&config.chain(&[60, 40], 42, 55, 58))
        .log_p(&[61, 61, 61, 61])
        .log_scale(40)
        .secret(secret)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap()
}

fn random_values(n: usize, rng: &mut ChaCha20Rng) -> Vec<Complex64> {
    (0..n)
        .map(|_| Complex64::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
        .collect()
}

struct Setup {
    ctx: Arc<CkksContext>,
    sk: SecretKey,
    boot: Bootstrapper,
}

fn setup(log_n: u32, slots: usize, secret: SecretDistribution, seed: u64) -> Setup {
    let mut config = BootstrapConfig::new(1 << log_n, secret, slots, -40.0).unwrap();
    let rho = (slots.trailing_zeros() as usize).clamp(1, 2);
    (config.cts_levels, config.stc_levels) = (rho, rho);
    let ctx = context(log_n, &config, secret);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let keys = generate_keys_with(&ctx, &config, &sk, &mut rng, |_, _| {}).unwrap();
    let boot = Bootstrapper::new(ctx.clone(), config, Arc::new(keys)).unwrap();
    Setup { ctx, sk, boot }
}

fn bootstrap_once(s: &Setup, slots: usize, seed: u64) -> (f64, f64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let z = random_values(slots, &mut rng);
    let pt = s
        .ctx
        .encode_at(&z, slots, 1, s.ctx.default_scale())
        .unwrap();
    let ct = s.ctx.encrypt_symmetric_with(&pt, &s.sk, &mut rng).unwrap();
    let out = s.boot.bootstrap(&ct).unwrap();
    assert_eq!(out.level(), s.boot.output_level());
    assert_eq!(
        out.scale(),
        ct.scale(),
        "the output scale is the input's, exactly"
    );
    assert_eq!(out.slots(), slots);
    let got = s.ctx.decrypt_decode(&out, &s.sk).unwrap();
    precision(&got, &z)
}

#[test]
fn bootstraps_full_packing_with_a_dense_secret() {
    let s = setup(12, 1 << 11, SecretDistribution::Ternary, 11);
    let (mean, min) = bootstrap_once(&s, 1 << 11, 12);
    println!("N = 2^12, 2^11 slots, uniform ternary: {mean:.1} bits mean, {min:.1} min");
    assert!(mean >= 15.0 && min >= 12.0, "{mean} / {min}");
}

#[test]
fn bootstraps_sparse_packing_with_a_sparse_secret() {
    let s = setup(12, 8, SecretDistribution::HammingWeight(64), 21);
    let (mean, min) = bootstrap_once(&s, 8, 22);
    println!("N = 2^12, 8 slots, h = 64: {mean:.1} bits mean, {min:.1} min");
    assert!(mean >= 15.0 && min >= 12.0, "{mean} / {min}");
}
