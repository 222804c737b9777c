//! The CUDA side of every kernel module compiles with NVRTC for the architectures hekate
//! targets (A100 `sm_80`, H100 `sm_90`), to PTX and to a CUBIN, with every kernel present,
//! no register spills, registers within budget, and no fused f64 multiply-add (the rule
//! that keeps floating-point steps bit-exact with the CPU). NVRTC needs no GPU: CI uses the
//! `nvidia-cuda-nvrtc-cu12` wheel. Without `libnvrtc` the test reports a skip (a failure
//! where `HEKATE_REQUIRE_NVRTC=1` or `CI=true`).

mod common;

use hekate_gpu::nvrtc;
use hekate_gpu::KernelModule;

/// Registers per thread any kernel may use: 64 keeps 1024-thread blocks resident (64K
/// registers per SM on sm_80 / sm_90).
const MAX_REGISTERS: u32 = 64;

fn nvrtc_or_skip() -> bool {
    if nvrtc::available() {
        return true;
    }
    if common::required("HEKATE_REQUIRE_NVRTC") {
        panic!("libnvrtc is required here (pip install nvidia-cuda-nvrtc-cu12; LD_LIBRARY_PATH)");
    }
    eprintln!("skipped: no libnvrtc");
    false
}

#[test]
fn every_module_compiles_to_ptx() {
    if !nvrtc_or_skip() {
        return;
    }
    for module in KernelModule::ALL {
        for arch in ["compute_80", "compute_90"] {
            let out = nvrtc::compile(module.name(), &module.source(), arch, false)
                .unwrap_or_else(|e| panic!("{} for {arch}: {e}", module.name()));
            let ptx = String::from_utf8(out.image).expect("PTX is text");
            for kernel in module.kernels() {
                assert!(
                    ptx.contains(&format!(".entry {kernel}(")),
                    "{kernel} missing from the {arch} PTX of {}",
                    module.name()
                );
            }
            assert!(
                !ptx.contains("fma.rn.f64"),
                "{}: fused f64 multiply-add",
                module.name()
            );
        }
    }
}

#[test]
fn every_module_compiles_to_cubin_without_spills() {
    if !nvrtc_or_skip() {
        return;
    }
    for module in KernelModule::ALL {
        for arch in ["sm_80", "sm_90"] {
            let out = nvrtc::compile(module.name(), &module.source(), arch, true)
                .unwrap_or_else(|e| panic!("{} for {arch}: {e}", module.name()));
            assert!(out.image.starts_with(b"\x7fELF"), "a CUBIN is an ELF image");
            let report = nvrtc::parse_resources(&out.log);
            for kernel in module.kernels() {
                let r = report
                    .iter()
                    .find(|r| r.name == *kernel)
                    .unwrap_or_else(|| {
                        panic!("no ptxas report for {kernel} ({arch}):\n{}", out.log)
                    });
                eprintln!(
                    "{arch} {kernel}: {} registers, {} B smem, spills {}/{}",
                    r.registers, r.shared_bytes, r.spill_stores, r.spill_loads
                );
                assert_eq!(
                    (r.spill_stores, r.spill_loads),
                    (0, 0),
                    "{kernel} spills on {arch}"
                );
                assert!(
                    r.registers <= MAX_REGISTERS,
                    "{kernel}: {} registers on {arch}",
                    r.registers
                );
            }
        }
    }
}

#[test]
fn compile_errors_carry_the_log() {
    if !nvrtc_or_skip() {
        return;
    }
    let err = nvrtc::compile(
        "broken",
        "extern \"C\" __global__ void k() { undefined_thing; }",
        "sm_80",
        false,
    )
    .unwrap_err();
    assert!(err.to_string().contains("undefined_thing"), "{err}");
}
