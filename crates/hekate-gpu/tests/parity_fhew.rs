//! FHEW on the device (`hekate_gpu::fhew`) against the CPU's NTT products, word for word:
//! batched blind rotations of AP and GINX (one gadget, and a gadget schedule that changes
//! base part-way through the keys as OpenFHE's sets do), fused in one launch per batch and
//! in launches per step, every gate through
//! `DeviceFhewEvaluator` in batches that do not divide the gate count, decrypting to the
//! truth table; LMKCDEY and ALTMULT keys refused.

mod common;

use hekate::fhew::{
    params, test_vector, BootstrapKey, FhewContext, FhewEvaluator, FhewParams, FhewSecretKey, Gate,
    LweCiphertext, Method, MethodConfig, RotationArithmetic,
};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::rlwe::gsw::{GswScratch, RlweCiphertext};
use hekate_gpu::fhew::{DeviceBlindRotationKey, DeviceFhewEvaluator};
use hekate_gpu::DeviceRingContext;
use std::sync::Arc;

/// TOY with OpenFHE's kind of gadget schedule: the first 20 of the 32 LWE indices' keys in
/// base 2^7 (4 digits of the 27-bit Q), the rest in base 2^9 (3 digits).
const TOY_SCHEDULE: FhewParams = FhewParams {
    name: "TOY_SCHEDULE",
    bg_schedule: &[(7, 20), (9, 12)],
    ..params::TOY
};

fn setup(
    p: &FhewParams,
    method: Method,
    seed: u64,
) -> (Arc<FhewContext>, FhewSecretKey, BootstrapKey, ChaCha20Rng) {
    let ctx = FhewContext::with_security(p, SecurityLevel::NotChecked).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let key = ctx
        .generate_bootstrap_key_with(&sk, MethodConfig::new(method), &mut rng)
        .unwrap();
    (ctx, sk, key, rng)
}

#[test]
fn batched_blind_rotations_match_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    for (p, method) in [
        (params::TOY, Method::Ginx),
        (params::TOY, Method::Ap),
        (TOY_SCHEDULE, Method::Ginx),
        (TOY_SCHEDULE, Method::Ap),
    ] {
        let (ctx, sk, key, mut rng) = setup(&p, method, 7);
        let ring = ctx.ring();
        let dctx = DeviceRingContext::new(&gpu, ring).unwrap();
        let fused = DeviceBlindRotationKey::upload(&dctx, &key.brk).unwrap();
        assert!(fused.fused(), "N = 256 runs fused by default");
        let steps = DeviceBlindRotationKey::upload(&dctx, &key.brk)
            .unwrap()
            .with_fused(false)
            .unwrap();
        let f = test_vector(&ctx, |u| (u as i64 - 100) * 1000);
        let mut cts: Vec<LweCiphertext> = (0..5)
            .map(|_| {
                let m = rng.next_u64() % p.q;
                sk.lwe.encrypt(m, p.q, ctx.noise(), &mut rng).unwrap()
            })
            .collect();
        // Zero coefficients: steps without a product for some elements of the batch.
        cts[1].a[0] = 0;
        cts[1].a[5] = 0;
        cts[3].a.iter_mut().step_by(3).for_each(|a| *a = 0);
        let mut scratch = GswScratch::new(ring);
        let want: Vec<RlweCiphertext> = cts
            .iter()
            .map(|ct| {
                let mut acc = RlweCiphertext::zero(ring, hekate::ring::Form::Coeff);
                key.brk
                    .blind_rotate(&f, ct, ring, &mut scratch, &mut acc)
                    .unwrap();
                acc
            })
            .collect();
        for dkey in [&fused, &steps] {
            let got = dkey.blind_rotate_batch(&f, &cts).unwrap();
            assert_eq!(got.len(), cts.len());
            let how = if dkey.fused() { "fused" } else { "per step" };
            for (i, (dev, acc)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    dev.a.data(),
                    acc.a.data(),
                    "{} {method:?} {how}: a of #{i}",
                    p.name
                );
                assert_eq!(
                    dev.b.data(),
                    acc.b.data(),
                    "{} {method:?} {how}: b of #{i}",
                    p.name
                );
            }
            assert!(dkey.blind_rotate_batch(&f, &[]).unwrap().is_empty());
        }
    }
}

#[test]
fn gates_match_the_cpu_and_decrypt() {
    let Some(gpu) = common::gpu() else { return };
    for method in [Method::Ginx, Method::Ap] {
        let (ctx, sk, key, mut rng) = setup(&params::TOY, method, 21);
        let key = Arc::new(key);
        let mut cpu =
            FhewEvaluator::with_arithmetic(ctx.clone(), key.clone(), RotationArithmetic::Ntt)
                .unwrap();
        let mut dev = DeviceFhewEvaluator::new(&gpu, ctx.clone(), key)
            .unwrap()
            .with_batch(4);
        let gates = [
            Gate::And,
            Gate::Or,
            Gate::Nand,
            Gate::Nor,
            Gate::Xor,
            Gate::Xnor,
        ];
        let mut inputs = Vec::new();
        for (i, &g) in gates.iter().cycle().take(9).enumerate() {
            let (x, y) = (i % 2 == 1, i % 4 >= 2);
            let a = ctx.encrypt_bit_with(x, &sk, &mut rng).unwrap();
            let b = ctx.encrypt_bit_with(y, &sk, &mut rng).unwrap();
            inputs.push((g, a, b, g.eval(x, y)));
        }
        let batch: Vec<_> = inputs.iter().map(|(g, a, b, _)| (*g, a, b)).collect();
        let out = dev.gates(&batch).unwrap();
        assert_eq!(out.len(), inputs.len());
        for ((g, a, b, want), got) in inputs.iter().zip(&out) {
            let expect = cpu.gate(*g, a, b).unwrap();
            assert_eq!(
                got, &expect,
                "{method:?} {g:?}: device gate differs from the CPU's"
            );
            assert_eq!(
                ctx.decrypt_bit(got, &sk).unwrap(),
                *want,
                "{method:?} {g:?}"
            );
        }
    }
}

#[test]
fn automorphism_methods_and_altmult_are_refused() {
    let Some(gpu) = common::gpu() else { return };
    let ctx = FhewContext::with_security(&params::TOY, SecurityLevel::NotChecked).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let dctx = DeviceRingContext::new(&gpu, ctx.ring()).unwrap();
    for cfg in [
        MethodConfig::new(Method::LmkcdeyAllEven),
        MethodConfig::new(Method::Ginx).with_alt_mult(true),
    ] {
        let key = ctx.generate_bootstrap_key_with(&sk, cfg, &mut rng).unwrap();
        let err = DeviceBlindRotationKey::upload(&dctx, &key.brk)
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains("AP and GINX"), "{err}");
    }
}
