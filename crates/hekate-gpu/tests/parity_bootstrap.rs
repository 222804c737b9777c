//! CKKS bootstrapping on the device (`DeviceBootstrapper`) against the CPU bootstrapper,
//! word for word: the toy presets with sparse packing (SubSum, one repacked ciphertext)
//! and full packing (two halves), and a small `q_0` (ModRaise's integer gain), the output
//! decrypting to the input; encapsulated configurations refused.

mod common;

use hekate::ckks::bootstrap::{
    generate_keys_with, preset, BootstrapConfig, BootstrapEvaluator, Bootstrapper,
};
use hekate::ckks::{Ciphertext, CkksContext, CkksParameters};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::rlwe::SecretDistribution;
use hekate_gpu::ckks::{DeviceBootstrapper, DeviceCiphertext};
use hekate_gpu::DeviceRingContext;
use num_complex::Complex64;
use std::sync::Arc;

/// The first word where two ciphertexts differ, if any.
fn first_difference(a: &Ciphertext, b: &Ciphertext) -> Option<(usize, usize)> {
    assert_eq!(a.parts().len(), b.parts().len());
    a.parts()
        .iter()
        .zip(b.parts())
        .enumerate()
        .find_map(|(i, (x, y))| {
            assert_eq!(x.q_limbs(), y.q_limbs());
            x.data()
                .iter()
                .zip(y.data())
                .position(|(u, v)| u != v)
                .map(|k| (i, k))
        })
}

fn check(name: &str, seed: u64) {
    let (ctx, config) = preset(name).unwrap().build().unwrap();
    check_with(name, ctx, config, seed, false);
}

/// [`check`] on `ctx` and `config`, whose ModRaise gain is above 1 iff `gain`.
fn check_with(name: &str, ctx: Arc<CkksContext>, config: BootstrapConfig, seed: u64, gain: bool) {
    let Some(gpu) = common::gpu() else { return };
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let keys = generate_keys_with(&ctx, &config, &sk, &mut rng, |_, _| {}).unwrap();
    let boot = Bootstrapper::new(ctx.clone(), config.clone(), keys).unwrap();
    assert_eq!(boot.mod_raise_gain() > 1, gain, "{name}: ModRaise gain");
    let dctx = DeviceRingContext::new(&gpu, ctx.ring()).unwrap();
    let dboot = DeviceBootstrapper::new(&dctx, &boot).unwrap();
    let slots = config.slots;
    let z: Vec<Complex64> = (0..slots)
        .map(|i| Complex64::new((i as f64 * 0.7).sin() * 0.5, (i as f64 * 0.3).cos() * 0.25))
        .collect();
    let pt = ctx.encode_at(&z, slots, 1, ctx.default_scale()).unwrap();
    let ct = ctx.encrypt_symmetric_with(&pt, &sk, &mut rng).unwrap();
    let dev = dboot.evaluator();
    // ModRaise alone (on the device: q_0 of 60 bits reduced modulo smaller primes).
    let low = boot.scale_down(&ct).unwrap();
    let raised =
        BootstrapEvaluator::mod_raise(dev, &boot, &DeviceCiphertext::upload(dev, &low).unwrap())
            .unwrap()
            .download(dev)
            .unwrap();
    let want_raised = boot.mod_raise(&low).unwrap();
    assert_eq!(
        raised.scale(),
        want_raised.scale(),
        "{name}: ModRaise scale"
    );
    assert_eq!(
        raised.slots(),
        want_raised.slots(),
        "{name}: ModRaise slots"
    );
    if let Some((part, word)) = first_difference(&raised, &want_raised) {
        panic!("{name}: ModRaise part {part} differs from the CPU's first at word {word}");
    }
    let want = boot.bootstrap(&ct).unwrap();
    let got = dboot
        .bootstrap(&DeviceCiphertext::upload(dev, &ct).unwrap())
        .unwrap()
        .download(dev)
        .unwrap();
    assert_eq!(got.level(), boot.output_level(), "{name}: level");
    assert_eq!(got.scale(), ct.scale(), "{name}: scale");
    assert_eq!(got.slots(), slots, "{name}: slots");
    if let Some((part, word)) = first_difference(&got, &want) {
        panic!("{name}: part {part} differs from the CPU's first at word {word}");
    }
    let out = ctx.decrypt_decode(&got, &sk).unwrap();
    let err = out
        .iter()
        .zip(&z)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    assert!(err < 2f64.powi(-10), "{name}: |out - in| = {err}");
}

#[test]
fn sparse_packing_bootstraps_word_for_word() {
    check("quick-sparse", 7);
}

#[test]
fn full_packing_bootstraps_word_for_word() {
    check("quick-dense", 8);
}

/// `q_0 = 2^33` below 50-bit EvalMod primes (seed 003 Set V's shape at `N = 2^12`):
/// ModRaise multiplies by its gain on the device too.
#[test]
fn a_small_q0_raises_with_the_gain_word_for_word() {
    let secret = SecretDistribution::HammingWeight(64);
    let mut config = BootstrapConfig::new(1 << 12, secret, 1 << 11, -40.0).unwrap();
    (config.cts_levels, config.stc_levels) = (2, 2);
    let ctx = CkksParameters::new(12)
        .log_q(&config.chain(&[33, 50, 25], 60, 50, 49))
        .log_p(&[50, 50])
        .log_scale(25)
        .secret(secret)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    check_with("q_0 = 2^33", ctx, config, 9, true);
}
