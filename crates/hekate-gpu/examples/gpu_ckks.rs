//! CKKS on a GPU: the same multiplication and rotation on the CPU and on the device, the
//! results compared word for word and decrypted.
//!
//! ```sh
//! cargo run --release -p hekate-gpu --example gpu_ckks        # any device (POCL too)
//! HEKATE_GPU=cuda cargo run --release -p hekate-gpu --example gpu_ckks
//! ```

use hekate::ckks::{CkksParameters, Evaluator};
use hekate::params::SecurityLevel;
use hekate::rlwe::keyswitch::KeySwitchMethod;
use hekate_gpu::ckks::{DeviceCiphertext, DeviceEvaluator};
use hekate_gpu::{DeviceRingContext, Gpu, Select};
use num_complex::Complex64;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::open(Select::Auto)?;
    println!("device: {}", gpu.info());
    // A small chain for a quick run; real sets (N = 2^16) work the same way.
    let ctx = CkksParameters::new(12)
        .log_q(&[55, 40, 40])
        .log_p(&[60, 60])
        .dnum(2)
        .log_scale(40)
        .security(SecurityLevel::NotChecked) // toy size
        .key_switching(KeySwitchMethod::Hybrid)
        .build()?;
    let sk = ctx.generate_secret_key();
    let pk = ctx.generate_public_key(&sk);
    let rlk = ctx.generate_relinearization_key(&sk);
    let gks = ctx.generate_galois_keys(&sk, &[1], false);
    let cpu = Evaluator::new(ctx.clone(), Some(rlk), gks);

    // The device mirrors the ring and holds the evaluator's keys.
    let dctx = DeviceRingContext::new(&gpu, ctx.ring())?;
    let dev = DeviceEvaluator::new(&dctx, &cpu)?;

    let x: Vec<Complex64> = (0..8)
        .map(|i| Complex64::new(i as f64 / 8.0, 0.0))
        .collect();
    let ct = ctx.encrypt(&ctx.encode(&x)?, &pk)?;
    let d = DeviceCiphertext::upload(&dev, &ct)?;

    // x^2, rescaled, rotated by one slot: on the device, then on the CPU.
    let on_gpu = dev
        .rotate(&dev.rescale(&dev.mul(&d, &d)?)?, 1)?
        .download(&dev)?;
    let on_cpu = cpu.rotate(&cpu.rescale(&cpu.mul(&ct, &ct)?)?, 1)?;
    assert_eq!(
        on_gpu.parts(),
        on_cpu.parts(),
        "the device gives the CPU's words"
    );

    let out = ctx.decrypt_decode(&on_gpu, &sk)?;
    for i in 0..4 {
        let want = x[(i + 1) % 8].re * x[(i + 1) % 8].re;
        println!("slot {i}: {:.6} (expected {want:.6})", out[i].re);
        assert!((out[i].re - want).abs() < 1e-6);
    }
    println!("bit-exact with the CPU, and decrypts correctly");
    Ok(())
}
