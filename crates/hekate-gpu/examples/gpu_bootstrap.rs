//! CKKS bootstrapping on a GPU: a CPU `Bootstrapper`'s circuit run on the device
//! (`DeviceBootstrapper`), its result compared word for word with the CPU's and decrypted.
//!
//! ```sh
//! cargo run --release -p hekate-gpu --example gpu_bootstrap              # toy preset
//! HEKATE_GPU=cuda cargo run --release -p hekate-gpu --example gpu_bootstrap dense
//! ```

use hekate::ckks::bootstrap::{generate_keys, preset, Bootstrapper};
use hekate_gpu::ckks::{DeviceBootstrapper, DeviceCiphertext};
use hekate_gpu::{DeviceRingContext, Gpu, Select};
use num_complex::Complex64;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let name = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "quick-dense".into());
    let gpu = Gpu::open(Select::Auto)?;
    println!("device: {}", gpu.info());
    let (ctx, config) = preset(&name)?.build()?;
    let sk = ctx.generate_secret_key();
    println!(
        "{name}: N = {}, {} slots; generating keys...",
        ctx.ring().n(),
        config.slots
    );
    let boot = Bootstrapper::new(
        ctx.clone(),
        config.clone(),
        generate_keys(&ctx, &config, &sk)?,
    )?;
    let dboot = DeviceBootstrapper::new(&DeviceRingContext::new(&gpu, ctx.ring())?, &boot)?;

    let z: Vec<Complex64> = (0..config.slots)
        .map(|i| Complex64::new((i as f64 * 0.01).sin() * 0.5, 0.0))
        .collect();
    // A ciphertext at level 1: out of levels for anything but bootstrapping.
    let ct = ctx.encrypt_symmetric(
        &ctx.encode_at(&z, config.slots, 1, ctx.default_scale())?,
        &sk,
    )?;
    let d = DeviceCiphertext::upload(dboot.evaluator(), &ct)?;

    let t = Instant::now();
    let on_gpu = dboot.bootstrap(&d)?.download(dboot.evaluator())?;
    let gpu_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let on_cpu = boot.bootstrap(&ct)?;
    let cpu_s = t.elapsed().as_secs_f64();
    assert_eq!(
        on_gpu.parts(),
        on_cpu.parts(),
        "the device gives the CPU's words"
    );

    let out = ctx.decrypt_decode(&on_gpu, &sk)?;
    let err = out
        .iter()
        .zip(&z)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    println!(
        "bootstrapped from level 1 to the output level {}: largest error 2^{:.1}; device \
         {:.3} s (first run, compiling included), CPU {:.3} s",
        on_gpu.level(),
        err.log2(),
        gpu_s,
        cpu_s
    );
    println!("bit-exact with the CPU, and decrypts correctly");
    Ok(())
}
