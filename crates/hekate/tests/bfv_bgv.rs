//! BFV and BGV at full size (`#[ignore]`: minutes and GBs; run with
//! `cargo test --release -p hekate --test bfv_bgv -- --ignored`). The CI-sized tests are in
//! `src/rlwe/integer/tests.rs`.

use hekate::params::integer::{chain_bits, for_depth};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::rlwe::integer::{Evaluator, IntegerParameters, MulVariant, Scheme};

/// `x^(2^depth)` on every slot of a context built from `params`, checked exactly.
fn squaring_chain(params: IntegerParameters, depth: usize, seed: u64) {
    let ctx = params.build().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let pk = ctx.generate_public_key_with(&sk, &mut rng);
    let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
    let eval = Evaluator::new(ctx.clone(), Some(rlk), Default::default());
    let t = ctx.t();
    let x: Vec<u64> = (0..ctx.n()).map(|_| rng.next_u64() % t).collect();
    let mut ct = ctx
        .encrypt_with(&ctx.encode(&x).unwrap(), &pk, &mut rng)
        .unwrap();
    for d in 1..=depth {
        ct = eval.square(&ct).unwrap();
        let m = hekate::math::Modulus::new(t);
        let want: Vec<u64> = x.iter().map(|&v| m.pow(v, 1u64 << d)).collect();
        assert_eq!(ctx.decrypt_decode(&ct, &sk).unwrap(), want, "depth {d}");
        let (measured, estimated) = (
            ctx.noise_budget(&ct, &sk).unwrap(),
            ctx.estimated_noise_budget(&ct),
        );
        assert!(
            estimated <= measured + 1.0,
            "d {d}: {estimated} vs {measured}"
        );
    }
}

/// The 128-bit depth-10 chains of `for_depth` at N = 2^14 and 2^15, BGV and BFV (both
/// variants), three seeds.
#[test]
#[ignore = "full size: N = 2^14 and 2^15, about a minute"]
fn depth_ten_at_128_bits() {
    for scheme in [Scheme::Bgv, Scheme::Bfv] {
        let chain = for_depth(scheme, 65537, 10, SecurityLevel::Bits128).unwrap();
        for log_n in [14, 15] {
            for seed in 0..3 {
                for variant in [MulVariant::Exact, MulVariant::Hps] {
                    let mut c = chain.clone();
                    c.log_n = log_n;
                    c.log_q = chain_bits(scheme, 65537, 10, log_n);
                    squaring_chain(c.parameters().mul_variant(variant), 10, seed);
                }
            }
        }
    }
}

/// OpenFHE issue 280's guard: BFV at N = 2^16 with 30 limbs of 60 bits decrypts correctly at
/// its full depth with every product variant (OpenFHE's floating-point HPS failed past
/// depth 31 to 67 there).
#[test]
#[ignore = "full size: N = 2^16, 30 limbs, several minutes and ~4 GB"]
fn bfv_depth_stress_n16_30_limbs() {
    let t = 786433; // OpenFHE #280's t: 3·2^18 + 1, a batching prime at N = 2^16
    for variant in [MulVariant::Exact, MulVariant::Hps] {
        let params = IntegerParameters::new(Scheme::Bfv, 16)
            .plaintext_modulus(t)
            .log_q(&[60; 30])
            .log_p(&[61, 61, 61])
            .dnum(10)
            .security(SecurityLevel::NotChecked)
            .mul_variant(variant);
        // Per product: log t + log N + ~1 bit; 1800 bits hold ~50 squarings.
        squaring_chain(params, 48, 1);
    }
}
