//! hekate's circuits on a GPU: a baby-step giant-step linear transform (the building block
//! of bootstrapping's CoeffToSlot and SlotToCoeff) and a Chebyshev polynomial (EvalMod's),
//! evaluated by the same generic code on the CPU evaluator and on the device evaluator, the
//! results compared word for word and decrypted.
//!
//! ```sh
//! cargo run --release -p hekate-gpu --example gpu_circuits        # any device (POCL too)
//! HEKATE_GPU=cuda cargo run --release -p hekate-gpu --example gpu_circuits
//! ```

use hekate::circuits::lintrans::{Diagonals, LinearTransform};
use hekate::circuits::polyeval::{evaluate, Polynomial};
use hekate::ckks::{CkksParameters, Evaluator};
use hekate::params::SecurityLevel;
use hekate::rlwe::keyswitch::KeySwitchMethod;
use hekate_gpu::ckks::{DeviceCiphertext, DeviceEvaluator};
use hekate_gpu::{DeviceRingContext, Gpu, Select};
use num_complex::Complex64;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::open(Select::Auto)?;
    println!("device: {}", gpu.info());
    let ctx = CkksParameters::new(12)
        .log_q(&[55, 40, 40, 40, 40, 40, 40])
        .log_p(&[60, 60, 60])
        .dnum(2)
        .log_scale(40)
        .security(SecurityLevel::NotChecked) // toy size
        .key_switching(KeySwitchMethod::Hybrid)
        .build()?;
    let slots = ctx.max_slots();

    // A matrix with five non-zero diagonals, and the rotations its BSGS plan needs.
    let mut m = Diagonals::new(slots)?;
    for (j, k) in [0i64, 1, 2, 3, -1].into_iter().enumerate() {
        let d = (0..slots)
            .map(|i| Complex64::new(((i + j) as f64 * 0.01).cos() / 5.0, 0.0))
            .collect();
        m.insert(k, d)?;
    }
    let plan = m.bsgs(None)?;
    let sk = ctx.generate_secret_key();
    let rlk = ctx.generate_relinearization_key(&sk);
    let gks = ctx.generate_galois_keys(&sk, &plan.rotations(), false);
    let cpu = Evaluator::new(ctx.clone(), Some(rlk), gks);
    let dev = DeviceEvaluator::new(&DeviceRingContext::new(&gpu, ctx.ring())?, &cpu)?;

    let x: Vec<Complex64> = (0..slots)
        .map(|i| Complex64::new((i as f64 * 0.003).sin(), 0.0))
        .collect();
    let ct = ctx.encrypt_symmetric(&ctx.encode(&x)?, &sk)?;
    let d = DeviceCiphertext::upload(&dev, &ct)?;

    // y = M x, then sin(2y) by a degree-15 Chebyshev interpolant: on the device and on the
    // CPU, through the same generic circuits.
    let level = ctx.max_level();
    let p = Polynomial::interpolate(|t| (2.0 * t).sin(), -1.0, 1.0, 15)?;
    let lt = LinearTransform::new(&dev, &m, plan.clone(), level, None)?;
    let y = dev.rescale(&lt.evaluate(&dev, &d)?)?;
    let on_gpu = evaluate(&dev, &y, &p, y.scale())?.download(&dev)?;
    let lt = LinearTransform::new(&cpu, &m, plan, level, None)?;
    let y = cpu.rescale(&lt.evaluate(&cpu, &ct)?)?;
    let on_cpu = evaluate(&cpu, &y, &p, y.scale())?;
    assert_eq!(
        on_gpu.parts(),
        on_cpu.parts(),
        "the device gives the CPU's words"
    );

    let out = ctx.decrypt_decode(&on_gpu, &sk)?;
    let want = m.apply(&x)?;
    let mut worst = 0f64;
    for (o, w) in out.iter().zip(&want) {
        worst = worst.max((o.re - (2.0 * w.re).sin()).abs());
    }
    println!("sin(2 M x) over {slots} slots: largest error {worst:.2e}");
    assert!(worst < 1e-3);
    println!("bit-exact with the CPU, and decrypts correctly");
    Ok(())
}
