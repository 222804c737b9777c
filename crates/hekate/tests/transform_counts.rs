//! Seed 001 Table II, counted: a key switch entered and left in coefficient form (BFV's
//! `c_2`) saves the linear (and KLSS) engines `3 (l + 1)` transforms: the `l + 1` inverse
//! transforms of the input and the `2 (l + 1)` forward ones of the output. The hybrid
//! engine needs both forms of its input and costs the same either way.
//!
//! This file holds one test: the transform counter is process-wide, and each integration
//! test file is its own process.

use hekate::math::{transform_count, PrimeGenerator};
use hekate::ring::{Form, RingContext};
use hekate::rlwe::keyswitch::{KeyStorage, KlssConfig, KlssKeySwitcher};
use hekate::rlwe::{HybridKeySwitcher, KeySwitcher, SecretDistribution, SecretKey};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Transforms used by `f`.
fn count(f: impl FnOnce()) -> u64 {
    let before = transform_count();
    f();
    (transform_count() - before).total()
}

#[test]
fn coefficient_form_saves_the_linear_engine_three_transforms_per_limb() {
    let n = 1 << 10;
    let mut g = PrimeGenerator::new(n).unwrap();
    let q: Vec<u64> = (0..8).map(|_| g.next_prime(40).unwrap()).collect();
    let p = vec![g.next_prime(55).unwrap()];
    let ctx = RingContext::new(n, &q, &p).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let sk = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let other = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    // Seed 001's setting: one special prime, one prime per digit (α = 1, dnum = ℓ).
    let hybrid = HybridKeySwitcher::new(ctx.clone(), q.len());
    let key = hybrid.generate_key(other.ntt(), &sk, &mut rng);
    let linear = KlssKeySwitcher::new(ctx.clone(), q.len(), KlssConfig::linear()).unwrap();
    let ek = linear.expand(&key, KeyStorage::ExpandedOnly).unwrap();
    for ql in [8usize, 5, 2] {
        let mut c = ctx.zero(ql, 0, Form::Ntt);
        for (i, limb) in c.limbs_mut().enumerate() {
            let m = ctx.modulus(i, ql).value();
            limb.iter_mut().for_each(|x| *x = rng.next_u64() % m);
        }
        let mut c_coeff = c.clone();
        c_coeff.intt(&ctx);
        let l = ql as u64;
        let hybrid_ntt = count(|| drop(hybrid.switch(&c, &key)));
        let hybrid_coeff = count(|| drop(hybrid.switch(&c_coeff, &key)));
        let linear_ntt = count(|| drop(linear.switch(&c, &ek)));
        let linear_coeff = count(|| drop(linear.switch(&c_coeff, &ek)));
        assert_eq!(hybrid_ntt, hybrid_coeff, "hybrid, {ql} limbs");
        assert_eq!(linear_ntt - linear_coeff, 3 * l, "linear, {ql} limbs");
        // The coefficient-form count: ℓ r' forward transforms of the digits (ℓ = ql
        // digits of one prime) and 2 (ℓ + 1) r' inverse ones of the inner products (one
        // key digit per prime of Q_l ∪ P). With r' = 2 that is 6ℓ + 4, seed 001 Table II's
        // BFV figure; the NTT-form count is 9ℓ + 4 here (the paper counts 8ℓ + 4 for BGV
        // and CKKS).
        let r_prime = linear.r_prime() as u64;
        assert_eq!(
            r_prime, 2,
            "40-bit primes and a 55-bit P take two B' primes"
        );
        assert_eq!(
            linear_coeff,
            l * r_prime + 2 * (l + 1) * r_prime,
            "{ql} limbs"
        );
    }
}
