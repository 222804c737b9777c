use hekate::ckks::bootstrap::{generate_keys, preset, Bootstrapper};
use hekate_gpu::ckks::{DeviceBootstrapper, DeviceCiphertext};
use hekate_gpu::{DeviceRingContext, Gpu, Select};
use num_complex::Complex64;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let name = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "quick-dense".into());
    let gpu = Gpu::open(Select::Auto)?;
    let (ctx, config) = preset(&name)?.build()?;
    let sk = ctx.generate_secret_key();
    let boot = Bootstrapper::new(
        ctx.clone(),
        config.clone(),
        generate_keys(&ctx, &config, &sk)?,
    )?;
    let dboot = DeviceBootstrapper::new(&DeviceRingContext::new(&gpu, ctx.ring())?, &boot)?;
    let z: Vec<Complex64> = (0..config.slots)
        .map(|i| Complex64::new((i as f64 * 0.01).sin() * 0.5, 0.0))
        .collect();
    let ct = ctx.encrypt_symmetric(
        &ctx.encode_at(&z, config.slots, 1, ctx.default_scale())?,
        &sk,
    )?;
    let d = DeviceCiphertext::upload(dboot.evaluator(), &ct)?;
    let _ = dboot.bootstrap(&d)?;
    let l0 = gpu.launches();
    let _ = dboot.bootstrap(&d)?;
    let total = gpu.launches() - l0;
    println!("total launches {total}");
    Ok(())
}
