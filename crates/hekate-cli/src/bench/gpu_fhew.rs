//! `hekate bench gpu --fhew PRESET`: FHEW gates on the device in batches
//! ([`hekate_gpu::fhew::DeviceFhewEvaluator`]) against the CPU's gates in the same run, the
//! device's outputs checked word for word against the CPU's NTT products first.

use super::{fmt_ms, measure, Table};
use crate::say;
use hekate::fhew::{
    FhewContext, FhewEvaluator, FhewParams, Gate, LweCiphertext, Method, MethodConfig,
    RotationArithmetic,
};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate_gpu::fhew::DeviceFhewEvaluator;
use hekate_gpu::Gpu;
use std::error::Error;
use std::sync::Arc;

/// One table for `preset` with `method` (AP, GINX or LMKCDEY): per batch size, and per kind
/// of launch (fused where it fits, and per step), the device time of a
/// batch of NAND gates and per gate, beside the CPU's time per gate (one thread) with the
/// same NTT products and with its default products. Returns whether every device gate
/// equalled the CPU's.
pub fn rows(
    gpu: &Arc<Gpu>,
    preset: &str,
    method: &str,
    batches: &[usize],
    reps: usize,
    emulated: bool,
) -> Result<bool, Box<dyn Error>> {
    let params = FhewParams::by_name_or_test(preset)?;
    let method = Method::by_name(method)?;
    let ctx = FhewContext::with_security(params, SecurityLevel::NotChecked)?;
    let mut rng = ChaCha20Rng::seed_from_u64(17);
    let sk = ctx.generate_secret_key_with(&mut rng)?;
    say!(
        "FHEW keys for {} ({}, n = {}, N = {})...",
        params.name,
        method.name(),
        params.n,
        params.big_n
    );
    let key =
        Arc::new(ctx.generate_bootstrap_key_with(&sk, MethodConfig::new(method), &mut rng)?);
    let mut cpu_ntt =
        FhewEvaluator::with_arithmetic(ctx.clone(), key.clone(), RotationArithmetic::Ntt)?;
    let mut cpu_best = FhewEvaluator::new(ctx.clone(), key.clone())?;
    let max_batch = batches.iter().copied().max().unwrap_or(1);
    let mut dev = DeviceFhewEvaluator::new(gpu, ctx.clone(), key)?;
    let bits: Vec<(bool, bool)> = (0..max_batch).map(|i| (i % 2 == 1, i % 4 >= 2)).collect();
    let cts: Vec<(LweCiphertext, LweCiphertext)> = bits
        .iter()
        .map(|&(x, y)| {
            Ok((
                ctx.encrypt_bit_with(x, &sk, &mut rng)?,
                ctx.encrypt_bit_with(y, &sk, &mut rng)?,
            ))
        })
        .collect::<hekate::Result<_>>()?;
    let gates: Vec<_> = cts.iter().map(|(a, b)| (Gate::Nand, a, b)).collect();
    // Bit-exact and correct first (the largest batch).
    let got = dev.gates(&gates)?;
    let mut exact = true;
    for ((a, b), (g, &(x, y))) in cts.iter().zip(got.iter().zip(&bits)) {
        exact &= *g == cpu_ntt.gate(Gate::Nand, a, b)?;
        exact &= ctx.decrypt_bit(g, &sk)? == Gate::Nand.eval(x, y);
    }
    let (a0, b0) = &cts[0];
    let cpu_ntt_ms = measure(reps, || cpu_ntt.gate(Gate::Nand, a0, b0)).ms();
    let cpu_best_ms = measure(reps, || cpu_best.gate(Gate::Nand, a0, b0)).ms();
    let mut table = Table::new(
        [
            "preset",
            "method",
            "batch",
            "kernels",
            "device ms / batch",
            "device ms / gate",
            "CPU ms / gate (NTT)",
            "CPU ms / gate (default)",
            "CPU default / device",
            "launches",
            "bit-exact",
        ],
        2,
    )
    .titled(format!(
        "FHEW NAND gates on the device in batches, {} with {}",
        params.name,
        method.name()
    ));
    let kernels: &[bool] = if dev.key().fused() {
        &[true, false]
    } else {
        &[false]
    };
    for &b in batches {
        for &fused in kernels {
            dev = dev.with_batch(b);
            dev.set_fused(fused)?;
            let batch = &gates[..b];
            exact &= dev.gates(batch)? == got[..b];
            let t = super::gpu::device_measure(gpu, reps, || dev.gates(batch).map(drop))?;
            let before = gpu.launches();
            dev.gates(batch)?;
            let launches = gpu.launches() - before;
            let per_gate = t.device_ms / b as f64;
            table.push(vec![
                params.name.to_string(),
                method.name().to_string(),
                b.to_string(),
                if fused { "fused" } else { "per step" }.into(),
                fmt_ms(t.device_ms),
                fmt_ms(per_gate),
                fmt_ms(cpu_ntt_ms),
                fmt_ms(cpu_best_ms),
                if emulated {
                    "correctness only".into()
                } else {
                    format!("{:.1}x", cpu_best_ms / per_gate)
                },
                launches.to_string(),
                if exact { "yes" } else { "NO" }.into(),
            ]);
        }
    }
    table.print();
    say!(
        "device ms: the whole call (gate inputs and the extraction / key switching on the \
         host, the blind rotations of the batch on the device). CPU default: \
         FhewEvaluator::new's products ({:?}, {:?} decomposition), the CPU's fastest.",
        cpu_best.arithmetic(),
        cpu_best.decomposition()
    );
    Ok(exact)
}
