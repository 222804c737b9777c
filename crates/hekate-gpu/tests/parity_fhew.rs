//! FHEW on the device (`hekate_gpu::fhew`) against the CPU's NTT products, word for word:
//! batched blind rotations of AP and GINX (one gadget, and a gadget schedule that changes
//! base part-way through the keys as OpenFHE's sets do), fused in one launch per batch and
//! in launches per step, every gate through
//! `DeviceFhewEvaluator` in batches that do not divide the gate count, decrypting to the
//! truth table; the three LMKCDEY methods (every automorphism key set, both step orders,
//! a gadget schedule), fused and per row, at N = 256 and 2048, and their gates; ALTMULT
//! keys refused.

mod common;

use hekate::fhew::{
    params, test_vector, AutoKeySet, BootstrapKey, FhewContext, FhewEvaluator, FhewParams,
    FhewSecretKey, Gate, LweCiphertext, Method, MethodConfig, RotationArithmetic, StepOrder,
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

/// TOY with `q = 2N` (LMKCDEY-base and -aux).
const TOY_2N: FhewParams = FhewParams {
    name: "TOY_2N",
    q: 512,
    ..params::TOY
};

/// TOY_2N with TOY_SCHEDULE's gadget schedule.
const TOY_2N_SCHEDULE: FhewParams = FhewParams {
    name: "TOY_2N_SCHEDULE",
    bg_schedule: &[(7, 20), (9, 12)],
    ..TOY_2N
};

fn setup(
    p: &FhewParams,
    method: Method,
    seed: u64,
) -> (Arc<FhewContext>, FhewSecretKey, BootstrapKey, ChaCha20Rng) {
    setup_with(p, MethodConfig::new(method), seed)
}

fn setup_with(
    p: &FhewParams,
    cfg: MethodConfig,
    seed: u64,
) -> (Arc<FhewContext>, FhewSecretKey, BootstrapKey, ChaCha20Rng) {
    let ctx = FhewContext::with_security(p, SecurityLevel::NotChecked).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let key = ctx.generate_bootstrap_key_with(&sk, cfg, &mut rng).unwrap();
    (ctx, sk, key, rng)
}

/// The CPU's blind rotations of `cts` (NTT products).
fn cpu_rotations(
    ctx: &FhewContext,
    key: &BootstrapKey,
    f: &hekate::ring::Poly,
    cts: &[LweCiphertext],
) -> Vec<RlweCiphertext> {
    let ring = ctx.ring();
    let mut scratch = GswScratch::new(ring);
    cts.iter()
        .map(|ct| {
            let mut acc = RlweCiphertext::zero(ring, hekate::ring::Form::Coeff);
            key.brk
                .blind_rotate(f, ct, ring, &mut scratch, &mut acc)
                .unwrap();
            acc
        })
        .collect()
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
        let want = cpu_rotations(&ctx, &key, &f, &cts);
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

/// TOY at N = 2048, where the fused rotation does not fit (per row only).
const TOY_2048: FhewParams = FhewParams {
    name: "TOY_2048",
    big_n: 2048,
    ..params::TOY
};

/// LMKCDEY's rotations, fused and per row: every method, automorphism key set and step
/// order, a gadget schedule, and N = 2048 (per row only); ciphertexts with zero and
/// all-even masks (Alg. 3's and 4's extra products at the end), in one batch.
#[test]
fn automorphism_rotations_match_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    let aux = MethodConfig::new(Method::LmkcdeyAux);
    let even = MethodConfig::new(Method::LmkcdeyAllEven);
    for (p, cfg, order) in [
        (params::TOY, even, StepOrder::Dlog),
        (
            TOY_2N,
            MethodConfig::new(Method::LmkcdeyBase),
            StepOrder::Dlog,
        ),
        (TOY_2N, aux, StepOrder::Dlog),
        (TOY_2N, aux, StepOrder::Index),
        (TOY_2N_SCHEDULE, aux, StepOrder::Dlog),
        (TOY_SCHEDULE, even, StepOrder::Index),
        (
            TOY_2N,
            aux.with_auto_keys(AutoKeySet::PowersOfFive),
            StepOrder::Dlog,
        ),
        (
            TOY_2N,
            aux.with_auto_keys(AutoKeySet::Generators),
            StepOrder::Dlog,
        ),
        (
            params::TOY,
            even.with_auto_keys(AutoKeySet::Generators),
            StepOrder::Index,
        ),
        (
            TOY_2048,
            even.with_auto_keys(AutoKeySet::PowersOfFive),
            StepOrder::Dlog,
        ),
    ] {
        let (ctx, sk, mut key, mut rng) = setup_with(&p, cfg, 11);
        key.brk = key.brk.with_step_order(order);
        let dctx = DeviceRingContext::new(&gpu, ctx.ring()).unwrap();
        let mut dkey = DeviceBlindRotationKey::upload(&dctx, &key.brk).unwrap();
        assert_eq!(dkey.fused(), p.big_n <= 1024);
        let f = test_vector(&ctx, |u| (u as i64 - 100) * 1000);
        let mut cts: Vec<LweCiphertext> = (0..6)
            .map(|_| {
                let m = rng.next_u64() % p.q;
                sk.lwe.encrypt(m, p.q, ctx.noise(), &mut rng).unwrap()
            })
            .collect();
        cts[1].a[0] = 0;
        cts[1].a[3] = 0;
        cts[2].a.iter_mut().for_each(|a| *a &= !1); // every α_i even
        cts[4].a.iter_mut().step_by(2).for_each(|a| *a = 0);
        let want = cpu_rotations(&ctx, &key, &f, &cts);
        let kinds: &[bool] = if dkey.fused() {
            &[true, false]
        } else {
            &[false]
        };
        for &fused in kinds {
            dkey.set_fused(fused).unwrap();
            let got = dkey.blind_rotate_batch(&f, &cts).unwrap();
            let what = format!("{} {} {order:?} fused {fused}", p.name, cfg.label());
            for (i, (dev, acc)) in got.iter().zip(&want).enumerate() {
                assert_eq!(dev.a.data(), acc.a.data(), "{what}: a of #{i}");
                assert_eq!(dev.b.data(), acc.b.data(), "{what}: b of #{i}");
            }
        }
        // A ciphertext of other (n, q) is refused, naming both.
        let mut wrong = cts[0].clone();
        wrong.a.pop();
        let err = dkey.blind_rotate_batch(&f, &[wrong]).expect_err("refused");
        assert!(err.to_string().contains("(n, q)"), "{err}");
    }
}

#[test]
fn gates_match_the_cpu_and_decrypt() {
    let Some(gpu) = common::gpu() else { return };
    for (p, method) in [
        (params::TOY, Method::Ginx),
        (params::TOY, Method::Ap),
        (params::TOY, Method::LmkcdeyAllEven),
        (TOY_2N, Method::LmkcdeyAux),
    ] {
        let (ctx, sk, key, mut rng) = setup(&p, method, 21);
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
fn altmult_is_refused() {
    let Some(gpu) = common::gpu() else { return };
    let ctx = FhewContext::with_security(&params::TOY, SecurityLevel::NotChecked).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let dctx = DeviceRingContext::new(&gpu, ctx.ring()).unwrap();
    for cfg in [
        MethodConfig::new(Method::LmkcdeyAllEven).with_alt_mult(true),
        MethodConfig::new(Method::Ginx).with_alt_mult(true),
    ] {
        let key = ctx.generate_bootstrap_key_with(&sk, cfg, &mut rng).unwrap();
        let err = DeviceBlindRotationKey::upload(&dctx, &key.brk)
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains("ALTMULT"), "{err}");
    }
}
