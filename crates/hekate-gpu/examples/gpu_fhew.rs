//! FHEW gates on a GPU: a batch of NAND gates whose blind rotations run side by side on the
//! device, each output compared word for word with the CPU's gate and decrypted.
//!
//! ```sh
//! cargo run --release -p hekate-gpu --example gpu_fhew                  # TOY (insecure, fast)
//! cargo run --release -p hekate-gpu --example gpu_fhew OPENFHE_STD128   # 128-bit, GINX
//! cargo run --release -p hekate-gpu --example gpu_fhew OPENFHE_STD128_LMKCDEY LMKCDEY-aux
//! ```

use hekate::fhew::{
    FhewContext, FhewEvaluator, FhewParams, Gate, Method, MethodConfig, RotationArithmetic,
};
use hekate::params::SecurityLevel;
use hekate_gpu::fhew::DeviceFhewEvaluator;
use hekate_gpu::{Gpu, Select};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let preset = std::env::args().nth(1).unwrap_or_else(|| "TOY".into());
    // GINX is OpenFHE's default method; the device also runs AP and the LMKCDEY variants.
    let method = Method::by_name(&std::env::args().nth(2).unwrap_or_else(|| "GINX".into()))?;
    let gpu = Gpu::open(Select::Auto)?;
    println!("device: {}", gpu.info());
    let params = FhewParams::by_name_or_test(&preset)?;
    // TOY is insecure (a demonstration size); the 128-bit presets pass the check.
    let ctx = FhewContext::with_security(params, SecurityLevel::NotChecked)?;
    println!("{}: {}", params.name, params.security());
    let sk = ctx.generate_secret_key()?;
    println!(
        "generating {} keys (n = {}, N = {})...",
        method.name(),
        params.n,
        params.big_n
    );
    let key = Arc::new(ctx.generate_bootstrap_key(&sk, MethodConfig::new(method))?);
    let mut dev = DeviceFhewEvaluator::new(&gpu, ctx.clone(), key.clone())?.with_batch(64);
    println!(
        "device keys: {:.1} MiB",
        dev.key().memory_bytes() as f64 / (1 << 20) as f64
    );

    // 100 NAND gates over all four input pairs, in two device batches.
    let pairs: Vec<(bool, bool)> = (0..100).map(|i| (i % 2 == 1, i % 4 >= 2)).collect();
    let cts = pairs
        .iter()
        .map(|&(x, y)| Ok((ctx.encrypt_bit(x, &sk)?, ctx.encrypt_bit(y, &sk)?)))
        .collect::<hekate::Result<Vec<_>>>()?;
    let gates: Vec<_> = cts.iter().map(|(a, b)| (Gate::Nand, a, b)).collect();
    let start = std::time::Instant::now();
    let out = dev.gates(&gates)?;
    println!(
        "{} gates on the device in {:.1?}",
        out.len(),
        start.elapsed()
    );

    // The same gates on the CPU with the same (NTT) products: equal word for word.
    let mut cpu = FhewEvaluator::with_arithmetic(ctx.clone(), key, RotationArithmetic::Ntt)?;
    for (i, ((a, b), &(x, y))) in cts.iter().zip(&pairs).enumerate().take(8) {
        assert_eq!(out[i], cpu.gate(Gate::Nand, a, b)?, "device gate {i}");
        assert_eq!(ctx.decrypt_bit(&out[i], &sk)?, !(x && y));
    }
    for (g, &(x, y)) in out.iter().zip(&pairs) {
        assert_eq!(ctx.decrypt_bit(g, &sk)?, !(x && y));
    }
    println!(
        "all {} gates decrypt to NAND; the first 8 equal the CPU's word for word",
        out.len()
    );
    Ok(())
}
