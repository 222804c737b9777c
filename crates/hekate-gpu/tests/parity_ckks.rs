//! CKKS on the device against the CPU evaluator, word for word: multiplication with
//! relinearization, rescaling, rotations (left, right, a step that wraps), conjugation,
//! hoisted rotations, additions, subtractions, at two levels and for dnum 1, 2 and 4; and
//! the downloaded results decrypt to the expected values.

mod common;

use hekate::ckks::{Ciphertext, CkksParameters, Evaluator};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::rlwe::keyswitch::{KeySwitchMethod, KlssBound, KlssConfig};
use hekate_gpu::ckks::{DeviceCiphertext, DeviceEvaluator};
use hekate_gpu::DeviceRingContext;
use num_complex::Complex64;

fn values(n: usize, seed: u64) -> Vec<Complex64> {
    (0..n)
        .map(|i| {
            let t = (i as f64 + 1.0) * (seed as f64 + 0.37);
            Complex64::new((t * 0.71).sin() * 0.9, (t * 1.13).cos() * 0.5)
        })
        .collect()
}

fn same(dev: &DeviceCiphertext, ev: &DeviceEvaluator, cpu: &Ciphertext, what: &str) -> Ciphertext {
    let got = dev.download(ev).unwrap();
    assert_eq!(got.parts(), cpu.parts(), "{what}: words differ");
    assert_eq!(got.scale(), cpu.scale(), "{what}: scale");
    got
}

#[test]
fn ckks_operations_match_the_cpu_word_for_word() {
    run_ops(KeySwitchMethod::Hybrid, &[1, 2, 4]);
}

#[test]
fn klss_on_the_device_matches_the_cpu_word_for_word() {
    run_ops(KeySwitchMethod::Klss(KlssConfig::klss(2)), &[2, 4]);
}

#[test]
fn linear_key_switching_on_the_device_matches_the_cpu_word_for_word() {
    run_ops(KeySwitchMethod::Linear(KlssBound::WorstCase), &[4]);
    run_ops(KeySwitchMethod::Linear(KlssBound::Heuristic), &[2]);
}

fn run_ops(method: KeySwitchMethod, dnums: &[usize]) {
    let Some(gpu) = common::gpu() else { return };
    for &dnum in dnums {
        let ctx = CkksParameters::new(11)
            .log_q(&[55, 40, 40, 40])
            .log_p(&[60, 60, 60])
            .dnum(dnum)
            .log_scale(40)
            .security(SecurityLevel::NotChecked)
            .key_switching(method)
            .build()
            .unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(5 + dnum as u64);
        let sk = ctx.generate_secret_key_with(&mut rng);
        let pk = ctx.generate_public_key_with(&sk, &mut rng);
        let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
        let gks = ctx.generate_galois_keys_with(&sk, &[1, 2, -1, 5], true, &mut rng);
        let cpu = Evaluator::new(ctx.clone(), Some(rlk), gks);
        let dctx = DeviceRingContext::new(&gpu, ctx.ring()).unwrap();
        let dev = DeviceEvaluator::new(&dctx, &cpu).unwrap();
        let slots = ctx.max_slots();
        let (a, b) = (values(slots, 1), values(slots, 2));
        let ca = ctx
            .encrypt_with(&ctx.encode(&a).unwrap(), &pk, &mut rng)
            .unwrap();
        let cb = ctx
            .encrypt_with(&ctx.encode(&b).unwrap(), &pk, &mut rng)
            .unwrap();
        let (da, db) = (
            DeviceCiphertext::upload(&dev, &ca).unwrap(),
            DeviceCiphertext::upload(&dev, &cb).unwrap(),
        );
        let tag = |s: &str| format!("{s}, dnum {dnum}, {method:?}");

        let prod = cpu.rescale(&cpu.mul(&ca, &cb).unwrap()).unwrap();
        let dprod = dev.rescale(&dev.mul(&da, &db).unwrap()).unwrap();
        let prod_dl = same(&dprod, &dev, &prod, &tag("mul + rescale"));
        // One level down: square, rotate, conjugate there too.
        let sq = cpu.mul(&prod, &prod).unwrap();
        same(
            &dev.mul(&dprod, &dprod).unwrap(),
            &dev,
            &sq,
            &tag("mul at level 2"),
        );
        for steps in [1i64, -1, 2, 5, slots as i64 + 1] {
            let want = cpu.rotate(&ca, steps).unwrap();
            same(
                &dev.rotate(&da, steps).unwrap(),
                &dev,
                &want,
                &tag(&format!("rotate {steps}")),
            );
        }
        same(
            &dev.rotate(&dprod, -1).unwrap(),
            &dev,
            &cpu.rotate(&prod, -1).unwrap(),
            &tag("rotate at level 2"),
        );
        same(
            &dev.conjugate(&db).unwrap(),
            &dev,
            &cpu.conjugate(&cb).unwrap(),
            &tag("conjugate"),
        );
        let hoisted = cpu.rotate_hoisted(&ca, &[1, 2, -1, 0]).unwrap();
        let dhoisted = dev.rotate_hoisted(&da, &[1, 2, -1, 0]).unwrap();
        for (d, c) in dhoisted.iter().zip(&hoisted) {
            same(d, &dev, c, &tag("hoisted rotation"));
        }
        same(
            &dev.add(&da, &db).unwrap(),
            &dev,
            &cpu.add(&ca, &cb).unwrap(),
            &tag("add"),
        );
        same(
            &dev.sub(&da, &db).unwrap(),
            &dev,
            &cpu.sub(&ca, &cb).unwrap(),
            &tag("sub"),
        );

        // The downloaded product decrypts to a * b.
        let out = ctx.decrypt_decode(&prod_dl, &sk).unwrap();
        let max_err = out
            .iter()
            .zip(a.iter().zip(&b))
            .map(|(o, (x, y))| (o - x * y).norm())
            .fold(0.0, f64::max);
        assert!(max_err < 1e-6, "product error {max_err:e}, dnum {dnum}");
    }
}

#[test]
fn refuses_what_it_cannot_run() {
    let Some(gpu) = common::gpu() else { return };
    let ctx = CkksParameters::new(10)
        .log_q(&[55, 40])
        .log_p(&[60])
        .log_scale(40)
        .security(SecurityLevel::NotChecked)
        .key_switching(KeySwitchMethod::Hybrid)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let pk = ctx.generate_public_key_with(&sk, &mut rng);
    // No keys at all: multiplication and rotation are refused with an error, not a panic.
    let cpu = Evaluator::new(ctx.clone(), None, Default::default());
    let dctx = DeviceRingContext::new(&gpu, ctx.ring()).unwrap();
    let dev = DeviceEvaluator::new(&dctx, &cpu).unwrap();
    let ct = ctx
        .encrypt_with(&ctx.encode(&values(4, 3)).unwrap(), &pk, &mut rng)
        .unwrap();
    let d = DeviceCiphertext::upload(&dev, &ct).unwrap();
    assert!(dev.mul(&d, &d).is_err());
    assert!(dev.rotate(&d, 1).is_err());
    let low = dev.rescale(&dev.mul_no_relin(&d, &d).unwrap());
    assert!(low.is_ok(), "a degree-2 rescale is fine");
    // Level 0 cannot be rescaled.
    let l0 = dev.rescale(&d).unwrap();
    assert!(dev.rescale(&l0).is_err());
    // A device context of another ring is refused.
    let other = CkksParameters::new(10)
        .log_q(&[50, 40])
        .log_p(&[60])
        .log_scale(40)
        .security(SecurityLevel::NotChecked)
        .key_switching(KeySwitchMethod::Hybrid)
        .build()
        .unwrap();
    let odctx = DeviceRingContext::new(&gpu, other.ring()).unwrap();
    assert!(DeviceEvaluator::new(&odctx, &cpu).is_err());
    // A context on another engine is refused.
    let klss = CkksParameters::new(10)
        .log_q(&[55, 40])
        .log_p(&[60])
        .log_scale(40)
        .security(SecurityLevel::NotChecked)
        .key_switching(KeySwitchMethod::Auto)
        .build()
        .unwrap();
    let kev = Evaluator::new(klss.clone(), None, Default::default());
    let kd = DeviceRingContext::new(&gpu, klss.ring()).unwrap();
    if !matches!(
        klss.keyswitcher(),
        hekate::rlwe::keyswitch::KeySwitchEngine::Hybrid(_)
    ) {
        assert!(DeviceEvaluator::new(&kd, &kev).is_err());
    }
}

/// The traffic model (`hekate_gpu::model`) follows the kernels as implemented: its launch
/// counts equal the launches the device evaluator issues.
#[test]
fn traffic_model_counts_the_launches_issued() {
    use hekate_gpu::model::{mul_relin, rescale, rotate, Shape};
    if common::gpu().is_none() {
        return;
    }
    // A device of its own, so that no other test's launches are counted.
    let gpu = hekate_gpu::Gpu::open(hekate_gpu::Select::Auto).unwrap();
    for (log_n, dnum) in [(11u32, 2usize), (12, 3), (13, 3)] {
        let ctx = CkksParameters::new(log_n)
            .log_q(&[55, 40, 40, 40, 40, 40])
            .log_p(&[60, 60, 60])
            .dnum(dnum)
            .log_scale(40)
            .security(SecurityLevel::NotChecked)
            .key_switching(KeySwitchMethod::Hybrid)
            .build()
            .unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let sk = ctx.generate_secret_key_with(&mut rng);
        let pk = ctx.generate_public_key_with(&sk, &mut rng);
        let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
        let gks = ctx.generate_galois_keys_with(&sk, &[1], false, &mut rng);
        let cpu = Evaluator::new(ctx.clone(), Some(rlk), gks);
        let dctx = DeviceRingContext::new(&gpu, ctx.ring()).unwrap();
        let dev = DeviceEvaluator::new(&dctx, &cpu).unwrap();
        let ct = ctx
            .encrypt_with(&ctx.encode(&values(8, 1)).unwrap(), &pk, &mut rng)
            .unwrap();
        let d = DeviceCiphertext::upload(&dev, &ct).unwrap();
        let shape = Shape {
            n: 1 << log_n,
            chain: 6,
            ql: 6,
            k: 3,
            dnum,
            tile: dctx.tile(),
        };
        let count = |f: &dyn Fn()| {
            let before = gpu.launches();
            f();
            (gpu.launches() - before) as u32
        };
        let stable = |f: &dyn Fn(), want: u32, what: &str| {
            assert_eq!(count(f), want, "{what}, N = 2^{log_n}, dnum {dnum}");
        };
        stable(
            &|| drop(dev.mul(&d, &d).unwrap()),
            mul_relin(&shape).launches,
            "mul_relin",
        );
        stable(
            &|| drop(dev.rotate(&d, 1).unwrap()),
            rotate(&shape).launches,
            "rotate",
        );
        stable(
            &|| drop(dev.rescale(&d).unwrap()),
            rescale(&shape).launches,
            "rescale",
        );
    }
}
