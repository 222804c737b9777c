//! Several DFT factors per prime, and the arcsine after EvalMod, at `N = 2^12`.

use super::bootstrapper::{factors, repacks};
use super::*;
use crate::ckks::{CkksContext, CkksParameters};
use crate::params::SecurityLevel;
use crate::rlwe::{SecretDistribution, SecretKey};
use num_complex::Complex64;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `(mean, min)` precision in bits over the slots.
fn precision(got: &[Complex64], want: &[Complex64]) -> (f64, f64) {
    let errs: Vec<f64> = got.iter().zip(want).map(|(g, w)| (g - w).norm()).collect();
    let mean = errs.iter().sum::<f64>() / errs.len() as f64;
    let max = errs.iter().copied().fold(0.0, f64::max);
    (-mean.log2(), -max.log2())
}

/// A toy context for `chain` (`NotChecked`).
fn context(log_n: u32, chain: &[u32], secret: SecretDistribution) -> Arc<CkksContext> {
    CkksParameters::new(log_n)
        .log_q(chain)
        .log_p(&[61, 61, 61, 61])
        .log_scale(40)
        .secret(secret)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap()
}

/// Keys, a bootstrapper and one bootstrap of `a + bi` (`a`, `b` uniform in `[-1, 1)`)
/// from level 1 at the default scale; asserts the output level and scale, returns the
/// precision.
fn bootstrap_once(
    ctx: &Arc<CkksContext>,
    config: &BootstrapConfig,
    seed: u64,
) -> (Bootstrapper, (f64, f64)) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk: SecretKey = ctx.generate_secret_key_with(&mut rng);
    let keys = generate_keys_with(ctx, config, &sk, &mut rng, |_, _| {}).unwrap();
    let boot = Bootstrapper::new(ctx.clone(), config.clone(), keys).unwrap();
    let slots = config.slots;
    let z: Vec<Complex64> = (0..slots)
        .map(|_| Complex64::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
        .collect();
    let pt = ctx.encode_at(&z, slots, 1, ctx.default_scale()).unwrap();
    let ct = ctx.encrypt_symmetric_with(&pt, &sk, &mut rng).unwrap();
    let out = boot.bootstrap(&ct).unwrap();
    assert_eq!(out.level(), boot.output_level());
    assert_eq!(
        out.scale(),
        ct.scale(),
        "the output scale is the input's, exactly"
    );
    let got = ctx.decrypt_decode(&out, &sk).unwrap();
    (boot, precision(&got, &z))
}

/// Three CoeffsToSlots factors on two primes (two on the top one) and three SlotsToCoeffs
/// factors on two primes (two on the upper one, Set III's shape): the chain has one
/// prime per pair, the keys are used at their prime's level, and the bootstrap keeps
/// `>= 15` bits at the input's scale exactly. CoeffsToSlots's inputs are dominated by the
/// overflow `I` (`R K'` times the message), so two factors sharing a prime cost it
/// precision: at the default ratio `2^8` this dense-secret bootstrap keeps about 9 bits;
/// the message ratio `2^2` with the arcsine (Set II's circuit) keeps about 18.
#[test]
fn several_dft_factors_per_prime_bootstrap() {
    let secret = SecretDistribution::Ternary;
    let slots = 1 << 11;
    let mut config = BootstrapConfig::new(1 << 12, secret, slots, -40.0).unwrap();
    config.log_message_ratio = 2;
    config.eval_mod = EvalMod::choose(config.k, 2, 32.0)
        .unwrap()
        .with_arcsine(7)
        .unwrap();
    config.set_factors_per_prime(&[1, 2], &[1, 2]);
    assert_eq!((config.cts_levels, config.stc_levels), (3, 3));
    assert_eq!((config.cts_primes(), config.stc_primes()), (2, 2));
    let chain = config
        .chain_per_prime(&[50, 40], &[42, 60], 55, &[58, 61])
        .unwrap();
    let depth = config.eval_mod.depth();
    assert_eq!(chain.len(), 2 + 2 + depth + 2);
    assert_eq!(config.depth(), 4 + depth);
    assert_eq!(&chain[2..4], &[42, 60]);
    assert_eq!(&chain[chain.len() - 2..], &[58, 61]);
    assert!(config
        .chain_per_prime(&[50, 40], &[42], 55, &[58, 61])
        .is_err());
    let ctx = context(12, &chain, secret);

    // Key levels: CoeffsToSlots factors 0 and 1 at the top, 2 one below; SlotsToCoeffs
    // factors 0 and 1 at the top of the stage, 2 one below; conjugation at EvalMod's
    // first level (L - 2).
    let top = ctx.max_level();
    let eval_mod_level = top - 2;
    let stc_top = eval_mod_level - depth;
    let (cts_f, stc_f) = factors(&ctx, &config, repacks(&ctx, slots)).unwrap();
    let n = ctx.n();
    let mut want: BTreeMap<usize, usize> = BTreeMap::new();
    for (f, levels) in [
        (&cts_f, [top, top, top - 1]),
        (&stc_f, [stc_top, stc_top, stc_top - 1]),
    ] {
        assert_eq!(f.len(), 3);
        for ((_, plan), level) in f.iter().zip(levels) {
            for r in plan.rotations() {
                let g = crate::ring::automorphism::galois_element_for_rotation(r, n);
                let e = want.entry(g).or_insert(level);
                *e = (*e).max(level);
            }
        }
    }
    want.insert(2 * n - 1, eval_mod_level);
    let (levels, relin) = key_levels(&ctx, &config).unwrap();
    assert_eq!(levels, want.into_iter().collect::<Vec<_>>());
    assert_eq!(relin, eval_mod_level);

    let (boot, (mean, min)) = bootstrap_once(&ctx, &config, 0x5E7);
    assert_eq!(boot.output_level(), 1);
    println!("N = 2^12, 2^11 slots, DFTs [1, 2] / [1, 2]: {mean:.1} bits mean, {min:.1} min");
    assert!(mean >= 15.0 && min >= 10.0, "{mean} / {min}");
}

/// Factors per prime that do not sum to `ρ`, or a prime with none, are refused.
#[test]
fn inconsistent_factors_per_prime_are_errors() {
    let secret = SecretDistribution::HammingWeight(64);
    let mut config = BootstrapConfig::new(1 << 10, secret, 8, -40.0).unwrap();
    config.set_factors_per_prime(&[1, 1], &[2]);
    let ctx = context(10, &config.chain(&[60, 40], 42, 55, 58), secret);
    assert!(config.check(&ctx).is_ok());
    config.stc_factors_per_prime = vec![1, 2];
    assert!(matches!(
        config.check(&ctx),
        Err(crate::Error::InvalidParameters(_))
    ));
    config.stc_factors_per_prime = vec![0, 2];
    assert!(matches!(
        config.check(&ctx),
        Err(crate::Error::InvalidParameters(_))
    ));
}

/// With a message ratio of `2^2` the sine's non-linearity dominates the error; the
/// degree-7 arcsine (3 more levels) removes most of it.
#[test]
fn arcsine_gains_precision_at_a_small_message_ratio() {
    let secret = SecretDistribution::HammingWeight(64);
    let slots = 1 << 11;
    let mut plain = BootstrapConfig::new(1 << 12, secret, slots, -40.0).unwrap();
    plain.log_message_ratio = 2;
    plain.eval_mod = EvalMod::choose(plain.k, 2, 32.0).unwrap();
    (plain.cts_levels, plain.stc_levels) = (2, 2);
    let mut arcsine = plain.clone();
    arcsine.eval_mod = arcsine.eval_mod.with_arcsine(7).unwrap();
    assert_eq!(arcsine.eval_mod.arcsine_degree(), 7);
    assert_eq!(arcsine.eval_mod.depth(), plain.eval_mod.depth() + 3);
    assert_eq!(arcsine.depth(), plain.depth() + 3);
    // In the clear: the arcsine's output is u = x - round(x) to far better than the sine.
    let (u, k) = (0.05, 3.0);
    let e_plain = (plain.eval_mod.evaluate_plain(k + u) - u).abs();
    let e_arcsine = (arcsine.eval_mod.evaluate_plain(k + u) - u).abs();
    assert!(e_arcsine < e_plain / 100.0, "{e_arcsine} vs {e_plain}");

    let mut bits = Vec::new();
    for config in [&plain, &arcsine] {
        let ctx = context(12, &config.chain(&[60, 40], 42, 55, 58), secret);
        let (_, (mean, min)) = bootstrap_once(&ctx, config, 0xA5C);
        println!(
            "N = 2^12, R = 2^2, arcsine degree {}: {mean:.1} bits mean, {min:.1} min",
            config.eval_mod.arcsine_degree()
        );
        bits.push(mean);
    }
    assert!(bits[1] >= bits[0] + 3.0, "{bits:?}");
}

/// A secret, a slot count, the DFTs' factors per prime and their primes' bit sizes.
type Case = (
    SecretDistribution,
    usize,
    &'static [usize],
    &'static [usize],
    &'static [u32],
    &'static [u32],
);

/// The last prime of a stage carrying several factors: Set IV's SlotsToCoeffs shape
/// (`56 + 28`, two factors on the 56-bit prime) at full packing, and with repacked halves
/// (8 slots) two CoeffsToSlots factors on its top prime and both SlotsToCoeffs factors on
/// one 60-bit prime (Set V's shape).
#[test]
fn last_primes_with_several_factors_bootstrap() {
    let cases: [Case; 2] = [
        (
            SecretDistribution::Ternary,
            1 << 11,
            &[1, 1],
            &[2, 1],
            &[58, 58],
            &[56, 28],
        ),
        (
            SecretDistribution::HammingWeight(64),
            8,
            &[2, 1],
            &[2],
            &[60, 58],
            &[60],
        ),
    ];
    for (secret, slots, cts, stc, cts_bits, stc_bits) in cases {
        let mut config = BootstrapConfig::new(1 << 12, secret, slots, -40.0).unwrap();
        config.set_factors_per_prime(cts, stc);
        let chain = config
            .chain_per_prime(&[50, 40], stc_bits, 55, cts_bits)
            .unwrap();
        let ctx = context(12, &chain, secret);
        let (boot, (mean, min)) = bootstrap_once(&ctx, &config, 0x5E8);
        assert_eq!(boot.output_level(), 1);
        println!("{slots} slots, DFTs {cts:?} / {stc:?}: {mean:.1} bits mean, {min:.1} min");
        assert!(mean >= 15.0 && min >= 12.0, "{mean} / {min}");
    }
}
