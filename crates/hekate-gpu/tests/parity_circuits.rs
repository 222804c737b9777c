//! hekate's circuits on the device (`CircuitEvaluator` for `DeviceEvaluator`) against the
//! CPU evaluator, word for word: every operation the circuits use (plaintext products and
//! accumulations, constants real and complex, constant products accumulated (fused and not),
//! integer products, additions aligning levels
//! and integer scale ratios, level drops, rotation sums and Horner sums), then whole BSGS
//! linear transforms (both giant-step forms) and a Chebyshev polynomial evaluation; the
//! downloaded results decrypt to the expected values.

mod common;

use hekate::circuits::bsgs::GiantSteps;
use hekate::circuits::lintrans::{Diagonals, LinearTransform};
use hekate::circuits::polyeval::{evaluate, Polynomial};
use hekate::circuits::CircuitEvaluator;
use hekate::ckks::{Ciphertext, CkksContext, CkksParameters, Evaluator, Scale};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::rlwe::keyswitch::{KeySwitchMethod, KlssBound, KlssConfig};
use hekate_gpu::ckks::{DeviceCiphertext, DeviceEvaluator, DevicePlaintext};
use hekate_gpu::DeviceRingContext;
use num_complex::Complex64;
use std::sync::Arc;

const LOG_N: u32 = 10;

struct Setup {
    ctx: Arc<CkksContext>,
    sk: hekate::rlwe::SecretKey,
    cpu: Evaluator,
    dev: DeviceEvaluator,
    ct: Ciphertext,
    dct: DeviceCiphertext,
}

fn values(n: usize, seed: u64) -> Vec<Complex64> {
    (0..n)
        .map(|i| {
            let t = (i as f64 + 1.0) * (seed as f64 + 0.37);
            Complex64::new((t * 0.731).sin() * 0.5, (t * 0.277).cos() * 0.25)
        })
        .collect()
}

/// A context with 8 chain limbs, hybrid switching with dnum 2, keys for `rotations`.
fn setup(rotations: &[i64]) -> Option<Setup> {
    setup_with(KeySwitchMethod::Hybrid, rotations)
}

/// As [`setup`], with the key-switching engine `method`.
fn setup_with(method: KeySwitchMethod, rotations: &[i64]) -> Option<Setup> {
    let gpu = common::gpu()?;
    let ctx = CkksParameters::new(LOG_N)
        .log_q(&[55, 40, 40, 40, 40, 40, 40, 40])
        .log_p(&[60, 60, 60, 60])
        .dnum(2)
        .log_scale(40)
        .security(SecurityLevel::NotChecked)
        .key_switching(method)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let pk = ctx.generate_public_key_with(&sk, &mut rng);
    let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
    let gks = ctx.generate_galois_keys_with(&sk, rotations, false, &mut rng);
    let cpu = Evaluator::new(ctx.clone(), Some(rlk), gks);
    let dctx = DeviceRingContext::new(&gpu, ctx.ring()).unwrap();
    let dev = DeviceEvaluator::new(&dctx, &cpu).unwrap();
    let ct = ctx
        .encrypt_with(
            &ctx.encode(&values(ctx.max_slots(), 1)).unwrap(),
            &pk,
            &mut rng,
        )
        .unwrap();
    let dct = DeviceCiphertext::upload(&dev, &ct).unwrap();
    Some(Setup {
        ctx,
        sk,
        cpu,
        dev,
        ct,
        dct,
    })
}

/// The device result equals the CPU's words, scale and slot count.
fn same(s: &Setup, dev: &DeviceCiphertext, cpu: &Ciphertext, what: &str) {
    let got = dev.download(&s.dev).unwrap();
    assert_eq!(got.scale(), cpu.scale(), "{what}: scale");
    assert_eq!(got.slots(), cpu.slots(), "{what}: slots");
    assert_eq!(got.parts().len(), cpu.parts().len(), "{what}: parts");
    for (i, (g, c)) in got.parts().iter().zip(cpu.parts()).enumerate() {
        assert_eq!(g.q_limbs(), c.q_limbs(), "{what}: limbs of part {i}");
        if let Some(k) = g.data().iter().zip(c.data()).position(|(a, b)| a != b) {
            panic!("{what}: part {i} differs first at word {k}");
        }
    }
}

/// `rotate_sum` and `rotate_horner` over terms with a zero step, a repeated step and a
/// negative one, device against CPU.
fn check_rotation_sums(s: &Setup, what: &str) {
    let (cpu, dev) = (&s.cpu, &s.dev);
    let rot1 = cpu.rotate(&s.ct, 1).unwrap();
    let drot1 = dev.rotate(&s.dct, 1).unwrap();
    let terms = [
        (&s.ct, 2i64),
        (&rot1, 0),
        (&s.ct, 5),
        (&rot1, -3),
        (&s.ct, 2),
    ];
    let dterms = [
        (&s.dct, 2i64),
        (&drot1, 0),
        (&s.dct, 5),
        (&drot1, -3),
        (&s.dct, 2),
    ];
    let sum = dev.rotate_sum(&dterms).unwrap();
    same(
        s,
        &sum,
        &cpu.rotate_sum(&terms).unwrap(),
        &format!("rotate_sum, {what}"),
    );
    let horner = dev.rotate_horner(&dterms[..4]).unwrap();
    let want = cpu.rotate_horner(&terms[..4]).unwrap();
    same(s, &horner, &want, &format!("rotate_horner, {what}"));
}

#[test]
fn every_circuit_operation_matches_the_cpu_word_for_word() {
    let Some(s) = setup(&[1, 2, 5, -3]) else {
        return;
    };
    let (cpu, dev) = (&s.cpu, &s.dev);
    let slots = s.ctx.max_slots();
    let top = s.ctx.max_level();
    let scale = s.ct.scale().clone();

    // Plaintext products and accumulation, the plaintext one level below.
    let pt = CircuitEvaluator::encode(cpu, &values(slots, 2), slots, top - 1, &scale).unwrap();
    let dpt = DevicePlaintext::upload(dev, &pt).unwrap();
    assert_eq!((dpt.level(), dpt.slots()), (top - 1, slots));
    let prod = cpu.mul_plain(&s.ct, &pt).unwrap();
    let dprod = dev.mul_plain(&s.dct, &dpt).unwrap();
    same(&s, &dprod, &prod, "mul_plain");
    let pt2 = CircuitEvaluator::encode(cpu, &values(slots, 3), slots, top, &scale).unwrap();
    let dpt2 = DevicePlaintext::upload(dev, &pt2).unwrap();
    let (mut acc, mut dacc) = (prod.clone(), dprod.clone());
    cpu.mul_plain_add_assign(&mut acc, &s.ct, &pt2).unwrap();
    dev.mul_plain_add_assign(&mut dacc, &s.dct, &dpt2).unwrap();
    same(&s, &dacc, &acc, "mul_plain_add_assign");

    // Constants: complex and real, at a chosen scale; added at the ciphertext's scale.
    let cs = Scale::from_f64(2f64.powi(30)).unwrap();
    for c in [Complex64::new(0.75, -1.25), Complex64::new(-3.5, 0.0)] {
        let (mut a, mut d) = (s.ct.clone(), s.dct.clone());
        cpu.mul_const_scaled_assign(&mut a, c, &cs).unwrap();
        dev.mul_const_scaled_assign(&mut d, c, &cs).unwrap();
        same(&s, &d, &a, &format!("mul_const_scaled {c}"));
        let (mut a, mut d) = (s.ct.clone(), s.dct.clone());
        cpu.add_const_assign(&mut a, c).unwrap();
        dev.add_const_assign(&mut d, c).unwrap();
        same(&s, &d, &a, &format!("add_const {c}"));
    }
    let (mut a, mut d) = (s.ct.clone(), s.dct.clone());
    cpu.mul_integer_assign(&mut a, -7).unwrap();
    dev.mul_integer_assign(&mut d, -7).unwrap();
    same(&s, &d, &a, "mul_integer -7");

    // Additions: levels aligned down, scales by an integer factor (3).
    let low = cpu.drop_level(&s.ct, 2).unwrap();
    let dlow = dev.drop_level(&s.dct, 2).unwrap();
    same(&s, &dlow, &low, "drop_level");
    let three = Scale::from_f64(3.0).unwrap();
    let (mut tripled, mut dtripled) = (low.clone(), dlow.clone());
    cpu.mul_const_scaled_assign(&mut tripled, Complex64::new(1.0, 0.0), &three)
        .unwrap();
    dev.mul_const_scaled_assign(&mut dtripled, Complex64::new(1.0, 0.0), &three)
        .unwrap();
    for sub in [false, true] {
        let (mut a, mut d) = (s.ct.clone(), s.dct.clone());
        if sub {
            cpu.sub_assign(&mut a, &tripled).unwrap();
            dev.sub_assign(&mut d, &dtripled).unwrap();
        } else {
            cpu.add_assign(&mut a, &tripled).unwrap();
            dev.add_assign(&mut d, &dtripled).unwrap();
        }
        same(
            &s,
            &d,
            &a,
            &format!("add/sub (sub = {sub}) across levels and scales"),
        );
    }

    // acc += c·ct: the fused pass (real c, acc at ct's level or below, scales matching) and
    // the general path (a complex c, an acc scale off by an integer factor), as the CPU.
    let c0 = Complex64::new(0.625, 0.0);
    let mut base = s.ct.clone();
    cpu.mul_const_scaled_assign(&mut base, c0, &cs).unwrap();
    let mut low_base = low.clone();
    cpu.mul_const_scaled_assign(&mut low_base, c0, &cs).unwrap();
    let mut off_base = base.clone();
    cpu.mul_const_scaled_assign(&mut off_base, Complex64::new(1.0, 0.0), &three)
        .unwrap();
    for (acc0, c, what) in [
        (&base, Complex64::new(-1.5, 0.0), "fused, same level"),
        (
            &low_base,
            Complex64::new(2.25, 0.0),
            "fused, acc two levels down",
        ),
        (&base, Complex64::new(0.5, 0.75), "complex c"),
        (&off_base, Complex64::new(-0.25, 0.0), "acc's scale times 3"),
    ] {
        let mut a = acc0.clone();
        let mut d = DeviceCiphertext::upload(dev, acc0).unwrap();
        CircuitEvaluator::mul_const_scaled_add_assign(cpu, &mut a, &s.ct, c, &cs).unwrap();
        CircuitEvaluator::mul_const_scaled_add_assign(dev, &mut d, &s.dct, c, &cs).unwrap();
        same(&s, &d, &a, &format!("mul_const_scaled_add_assign, {what}"));
    }

    // Rescaling and level drops through the trait.
    let (mut a, mut d) = (prod.clone(), dprod.clone());
    CircuitEvaluator::rescale_assign(cpu, &mut a).unwrap();
    CircuitEvaluator::rescale_assign(dev, &mut d).unwrap();
    same(&s, &d, &a, "rescale");
    let a = CircuitEvaluator::at_level(cpu, &s.ct, 3).unwrap();
    let d = CircuitEvaluator::at_level(dev, &s.dct, 3).unwrap();
    same(&s, &d, &a, "at_level");
    assert!(
        CircuitEvaluator::at_level(dev, &d, 5).is_err(),
        "levels only go down"
    );

    // Rotation sums: a zero step, a repeated step, a negative one.
    check_rotation_sums(&s, "hybrid");
    assert!(dev.rotate_sum(&[]).is_err());
    assert!(
        dev.rotate_sum(&[(&s.dct, 2), (&dlow, 1)]).is_err(),
        "levels differ"
    );
}

#[test]
fn linear_transforms_and_polynomials_match_the_cpu_word_for_word() {
    let slots = 1usize << (LOG_N - 1);
    // A banded matrix: diagonals 0, 1, 2, 7, 33 and slots - 1, random entries.
    let mut diagonals = Diagonals::new(slots).unwrap();
    for (j, k) in [0i64, 1, 2, 7, 33, -1].into_iter().enumerate() {
        diagonals.insert(k, values(slots, 10 + j as u64)).unwrap();
    }
    let plans = [GiantSteps::Distinct, GiantSteps::Horner]
        .map(|form| diagonals.bsgs(None).unwrap().with_giant_steps(form));
    let mut rotations: Vec<i64> = plans.iter().flat_map(|p| p.rotations()).collect();
    rotations.sort_unstable();
    rotations.dedup();
    let Some(s) = setup(&rotations) else { return };
    let level = s.ctx.max_level();
    let z = s.ctx.decrypt_decode(&s.ct, &s.sk).unwrap();
    for plan in plans {
        let form = plan.giant_step_form();
        let lt_cpu = LinearTransform::new(&s.cpu, &diagonals, plan.clone(), level, None).unwrap();
        let lt_dev = LinearTransform::new(&s.dev, &diagonals, plan, level, None).unwrap();
        // With baby rotations, seed 003 Alg. 6 over Q_l ∪ P on both sides, either form.
        assert!(lt_cpu.is_extended() && lt_dev.is_extended(), "{form:?}");
        // Only the BSGS sum reads a diagonal over Q_l ∪ P: both sides refuse it elsewhere.
        let (pc, pd) = (lt_cpu.plaintexts().next(), lt_dev.plaintexts().next());
        assert!(s.cpu.mul_plain(&s.ct, pc.unwrap()).is_err());
        assert!(s.dev.mul_plain(&s.dct, pd.unwrap()).is_err());
        let want = lt_cpu.evaluate(&s.cpu, &s.ct).unwrap();
        let got = lt_dev.evaluate(&s.dev, &s.dct).unwrap();
        same(&s, &got, &want, &format!("linear transform ({form:?})"));
        // And it is M z.
        let y = s.cpu.rescale(&got.download(&s.dev).unwrap()).unwrap();
        let m_z = diagonals.apply(&z).unwrap();
        let out = s.ctx.decrypt_decode(&y, &s.sk).unwrap();
        let err = out
            .iter()
            .zip(&m_z)
            .map(|(a, b)| (a - b).norm())
            .fold(0.0, f64::max);
        assert!(err < 1e-4, "{form:?}: |M z - dec| = {err}");
    }

    // A degree-15 Chebyshev interpolant of sin on [-1, 1]: products, constants, rescales.
    let p = Polynomial::interpolate(|x| (3.0 * x).sin(), -1.0, 1.0, 15).unwrap();
    let x: Vec<Complex64> = (0..slots)
        .map(|i| Complex64::new((i as f64 * 0.013).sin() * 0.9, 0.0))
        .collect();
    let ct = s
        .ctx
        .encrypt_symmetric(&s.ctx.encode(&x).unwrap(), &s.sk)
        .unwrap();
    let dct = DeviceCiphertext::upload(&s.dev, &ct).unwrap();
    let target = ct.scale().clone();
    let want = evaluate(&s.cpu, &ct, &p, &target).unwrap();
    let got = evaluate(&s.dev, &dct, &p, &target).unwrap();
    same(&s, &got, &want, "Chebyshev polynomial");
    let out = s
        .ctx
        .decrypt_decode(&got.download(&s.dev).unwrap(), &s.sk)
        .unwrap();
    let err = out
        .iter()
        .zip(&x)
        .map(|(o, x)| (o.re - (3.0 * x.re).sin()).abs())
        .fold(0.0, f64::max);
    assert!(err < 1e-3, "|p(x) - sin 3x| = {err}");
}

/// Rotation sums and both forms of BSGS transforms with KLSS (recombining after every
/// product, and after every second one) and linear key switching.
#[test]
fn rotation_sums_match_the_cpu_on_every_engine() {
    let slots = 1usize << (LOG_N - 1);
    let mut diagonals = Diagonals::new(slots).unwrap();
    for (j, k) in [0i64, 1, 2, 5, 9, -2].into_iter().enumerate() {
        diagonals.insert(k, values(slots, 20 + j as u64)).unwrap();
    }
    let plans = [GiantSteps::Distinct, GiantSteps::Horner]
        .map(|form| diagonals.bsgs(None).unwrap().with_giant_steps(form));
    let mut rotations: Vec<i64> = plans.iter().flat_map(|p| p.rotations()).collect();
    rotations.extend([1, 2, 5, -3]);
    rotations.sort_unstable();
    rotations.dedup();
    let methods = [
        KeySwitchMethod::Klss(KlssConfig::klss(2)),
        KeySwitchMethod::Klss(KlssConfig {
            accumulation: 2,
            ..KlssConfig::klss(2)
        }),
        KeySwitchMethod::Linear(KlssBound::WorstCase),
    ];
    for method in methods {
        let Some(s) = setup_with(method, &rotations) else {
            return;
        };
        let (cpu, dev) = (&s.cpu, &s.dev);
        let what = format!("{method:?}");
        check_rotation_sums(&s, &what);
        let level = s.ctx.max_level();
        for plan in &plans {
            let lt_cpu = LinearTransform::new(cpu, &diagonals, plan.clone(), level, None).unwrap();
            let lt_dev = LinearTransform::new(dev, &diagonals, plan.clone(), level, None).unwrap();
            // No accumulator over Q_l ∪ P on these engines: single-hoisted on both sides.
            assert!(!lt_cpu.is_extended() && !lt_dev.is_extended());
            same(
                &s,
                &lt_dev.evaluate(dev, &s.dct).unwrap(),
                &lt_cpu.evaluate(cpu, &s.ct).unwrap(),
                &format!("linear transform ({:?}), {what}", plan.giant_step_form()),
            );
        }
    }
}
