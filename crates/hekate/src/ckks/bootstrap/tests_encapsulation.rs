//! Sparse-secret encapsulation end to end (eprint 2022/024): `K` and EvalMod from the
//! ephemeral weight, ModRaise's overflow law under it, the refusals, Lattigo's set, and
//! the encapsulation keys' serialization (`N = 2^11`-`2^12` toy chains, seconds each).

use super::tests::{bootstrap_once, decrypted_coefficients, random_values, setup, setup_with};
use super::*;
use crate::rlwe::SecretDistribution;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// Sparse-secret encapsulation: a dense main secret, ModRaise under an ephemeral weight-32
/// secret. `K` and EvalMod shrink to the ephemeral weight's, the output decrypts under the
/// main secret at full precision and exact scale, full and sparse packing.
#[test]
fn encapsulation_bootstraps_a_dense_secret_with_the_ephemeral_weights_k() {
    let dense = BootstrapConfig::new(1 << 12, SecretDistribution::Ternary, 1 << 11, -40.0).unwrap();
    for (slots, seed) in [(1 << 11, 131), (8, 133)] {
        let config = BootstrapConfig::with_encapsulation(1 << 12, slots, 32, -40.0).unwrap();
        assert_eq!(config.ephemeral_weight, Some(32));
        assert!(
            config.k < dense.k / 2,
            "K {} vs dense {}",
            config.k,
            dense.k
        );
        assert!(config.eval_mod.depth() < dense.eval_mod.depth());
        let s = setup_with(12, config, SecretDistribution::Ternary, seed);
        assert!(s.boot.config().failure_log2(&s.ctx).unwrap() <= -40.0);
        let (mean, min) = bootstrap_once(&s, slots, seed + 1);
        println!(
            "N = 2^12, {slots} slots, dense secret, h̃ = 32: {mean:.1} bits mean, {min:.1} min"
        );
        assert!(mean >= 15.0 && min >= 12.0, "{mean} / {min}");
    }
}

/// The overflow of ModRaise under encapsulation has the ephemeral secret's law (variance
/// `(h̃ + 1)/12`), not the dense main secret's (`(2N/3 + 1)/12`): checked on the
/// decryption, under the main secret, of the decapsulated ModRaise output.
#[test]
fn encapsulated_mod_raise_overflow_has_the_ephemeral_weights_variance() {
    let config = BootstrapConfig::with_encapsulation(1 << 11, 4, 32, -40.0).unwrap();
    let s = setup_with(11, config, SecretDistribution::Ternary, 141);
    let mut rng = ChaCha20Rng::seed_from_u64(142);
    let q0 = s.ctx.q_primes()[0] as f64;
    let scale = crate::ckks::Scale::from_f64(q0 / 256.0).unwrap();
    let (mut sum2, mut worst, mut total) = (0.0, 0.0f64, 0usize);
    for _ in 0..10 {
        let z = random_values(4, &mut rng);
        let ct = s.encrypt(&z, 4, 0, &scale, &mut rng);
        // The encapsulated ciphertext still decrypts to the message (no key needed to see
        // it changed: it is another ciphertext of the same plaintext under s̃).
        let low = s.boot.encapsulate(&ct).unwrap();
        assert_ne!(low.parts()[1], ct.parts()[1]);
        let raised = s
            .boot
            .decapsulate(&s.boot.mod_raise(&low).unwrap())
            .unwrap();
        let gain = s.boot.mod_raise_gain() as f64;
        for c in decrypted_coefficients(&s, &raised) {
            let i = (c / (gain * q0)).round();
            sum2 += i * i;
            worst = worst.max(i.abs());
            total += 1;
        }
    }
    let var = sum2 / total as f64;
    let model = 33.0 / 12.0;
    // 20480 samples: the variance estimate's relative deviation is about 1%.
    assert!(
        (var / model - 1.0).abs() < 0.05,
        "variance {var} vs {model}"
    );
    assert!(worst <= s.boot.config().k as f64, "|I| = {worst} > K");
    // Without the encapsulation keys, or with keys of another weight, no bootstrapper.
    let keys = s.boot.evaluator().keys().clone();
    let err = Bootstrapper::new(s.ctx.clone(), s.boot.config().clone(), keys).unwrap_err();
    assert!(
        matches!(&err, crate::Error::MissingKey(m) if m.contains("encapsulation")),
        "{err}"
    );
    let other = BootstrapConfig::with_encapsulation(1 << 11, 4, 64, -40.0).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(143);
    let keys64 = generate_keys_with(&s.ctx, &other, &s.sk, &mut rng, |_, _| {}).unwrap();
    let mut mixed = keys64.clone();
    mixed.evaluation = s.boot.evaluator().keys().clone();
    let err = Bootstrapper::new(s.ctx.clone(), s.boot.config().clone(), mixed).unwrap_err();
    assert!(matches!(err, crate::Error::ParameterMismatch(_)), "{err}");
    assert!(BootstrapConfig::with_encapsulation(1 << 11, 4, 0, -40.0).is_err());
}

/// Lattigo's encapsulated sets: `h̃ = 32` at `N = 2^16`, `2^15` slots gives `K = 16`
/// at about `2^-138` (eprint 2022/024; the notes' computed value).
#[test]
fn encapsulation_k_at_lattigos_set() {
    let c = BootstrapConfig::with_encapsulation(1 << 16, 1 << 15, 32, -128.0).unwrap();
    let p = super::failure::log2_failure_probability(
        super::failure::SecretWeight::Fixed(32),
        c.k,
        1 << 15,
    );
    println!(
        "K = {}, log2 κ = {p:.1}, EvalMod d = {}, r = {}",
        c.k,
        c.eval_mod.polynomial().degree(),
        c.eval_mod.double_angles()
    );
    assert!(c.k <= 17 && p <= -128.0, "K = {}, {p}", c.k);
}

/// Encapsulation keys serialize; a bootstrapper built from the read keys gives the same
/// output word for word; truncated bytes and another context are errors.
#[test]
fn serialized_encapsulation_keys_bootstrap_identically() {
    use crate::serialize::{Deserialize, Serialize};
    let config = BootstrapConfig::with_encapsulation(1 << 11, 4, 32, -40.0).unwrap();
    let s = setup_with(11, config, SecretDistribution::Ternary, 151);
    let mut rng = ChaCha20Rng::seed_from_u64(152);
    let keys = generate_keys_with(&s.ctx, s.boot.config(), &s.sk, &mut rng, |_, _| {}).unwrap();
    let enc = keys.encapsulation.clone().unwrap();
    let bytes = enc.to_bytes(&s.ctx).unwrap();
    let read = EncapsulationKeys::from_bytes(&bytes, &s.ctx).unwrap();
    assert_eq!(read, enc);
    let a = Bootstrapper::new(s.ctx.clone(), s.boot.config().clone(), keys.clone()).unwrap();
    let mut again = keys;
    again.encapsulation = Some(read);
    let b = Bootstrapper::new(s.ctx.clone(), s.boot.config().clone(), again).unwrap();
    let ct = s.encrypt(
        &random_values(4, &mut rng),
        4,
        1,
        s.ctx.default_scale(),
        &mut rng,
    );
    assert_eq!(a.bootstrap(&ct).unwrap(), b.bootstrap(&ct).unwrap());
    for cut in [bytes.len() - 1, bytes.len() / 2, 20] {
        assert!(EncapsulationKeys::from_bytes(&bytes[..cut], &s.ctx).is_err());
    }
    // Another context (another chain): refused by the header's fingerprint.
    let elsewhere = setup(11, 4, SecretDistribution::Ternary, 153);
    assert!(EncapsulationKeys::from_bytes(&bytes, &elsewhere.ctx).is_err());
}
