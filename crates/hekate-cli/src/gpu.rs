//! `hekate gpu info`: which GPU runtimes this machine has, the device hekate would use, and
//! a parity self-check of the kernels against the CPU on it.

use crate::{stdout, Outcome};
use clap::{Subcommand, ValueEnum};
use hekate::math::PrimeGenerator;

use hekate::ring::{Form, RingContext};
use hekate::rlwe::keys::expand_uniform;
use hekate_gpu::{nvrtc, DevicePoly, DeviceRingContext, Gpu, Select};
use std::error::Error;
use std::sync::Arc;

/// `hekate gpu` actions.
#[derive(Debug, Subcommand)]
pub enum GpuAction {
    /// The runtimes found (NVIDIA driver, NVRTC, OpenCL), the device selected, the kernel
    /// cache, and a bit-exactness self-check of the kernels against the CPU. Exits 1 when
    /// there is no device, 2 when the self-check fails.
    Info {
        /// Which runtime to open (auto: HEKATE_GPU, else CUDA, else OpenCL).
        #[arg(long, value_enum, default_value_t = Runtime::Auto)]
        runtime: Runtime,
    },
}

/// A runtime choice on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Runtime {
    /// HEKATE_GPU, else CUDA, else OpenCL.
    Auto,
    /// NVIDIA CUDA (driver + NVRTC).
    Cuda,
    /// OpenCL (any vendor; POCL on CPUs).
    Opencl,
}

impl Runtime {
    /// The library's selection.
    pub fn select(self) -> Select {
        match self {
            Runtime::Auto => Select::Auto,
            Runtime::Cuda => Select::Cuda,
            Runtime::Opencl => Select::OpenCl,
        }
    }
}

/// Runs a `hekate gpu` action.
pub fn run(action: GpuAction) -> Result<Outcome, Box<dyn Error>> {
    match action {
        GpuAction::Info { runtime } => info(runtime.select()),
    }
}

fn info(select: Select) -> Result<Outcome, Box<dyn Error>> {
    let mut out = String::new();
    let nv = match nvrtc::version() {
        Some((a, b)) => format!("NVRTC {a}.{b}"),
        None => "not found (CUDA toolkit, or pip install nvidia-cuda-nvrtc-cu12 + LD_LIBRARY_PATH)"
            .into(),
    };
    out += &format!("NVRTC (CUDA kernel compiler): {nv}\n");
    out += &format!(
        "HEKATE_GPU: {}\n",
        std::env::var("HEKATE_GPU").unwrap_or_else(|_| "(unset: auto)".into())
    );
    let gpu = Gpu::open(select)?;
    let info = gpu.info();
    out += &format!("device: {info}\n");
    if info.emulated {
        out += "emulated: yes, a CPU OpenCL device (POCL): kernels run and are checked, timings say nothing about a GPU\n";
    }
    out += &format!(
        "kernel cache: {}\n",
        gpu.cache_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|| "off".into())
    );
    stdout(&out);
    let (ok, detail) = self_check(&gpu)?;
    stdout(&format!("self-check: {detail}\n"));
    Ok(if ok {
        Outcome::Success
    } else {
        Outcome::CheckFailed(detail)
    })
}

/// Forward and inverse NTT, products and an automorphism at N = 2^12 over three chain
/// limbs and a special prime, against the CPU, word for word.
pub fn self_check(gpu: &Arc<Gpu>) -> Result<(bool, String), Box<dyn Error>> {
    let n = 1 << 12;
    let mut gen = PrimeGenerator::new(n)?;
    let q = vec![
        gen.next_prime(60)?,
        gen.next_prime(50)?,
        gen.next_prime(40)?,
    ];
    let p = vec![gen.next_prime(61)?];
    let ring = RingContext::new(n, &q, &p)?;
    let dctx = DeviceRingContext::new(gpu, &ring)?;
    let start = std::time::Instant::now();
    // Uniform residues over every limb (the library's seed expansion), read as coefficients.
    let uniform = |stream| {
        let mut p = expand_uniform(&ring, &[7; 32], stream, ring.q_len(), ring.p_len());
        p.set_form(Form::Coeff);
        p
    };
    let (a, b) = (uniform(1), uniform(2));
    let mut mismatches = Vec::new();
    let (mut ca, mut cb) = (a.clone(), b.clone());
    ca.ntt(&ring);
    cb.ntt(&ring);
    let mut da = DevicePoly::upload(&dctx, &a)?;
    let mut db = DevicePoly::upload(&dctx, &b)?;
    da.ntt()?;
    db.ntt()?;
    if da.download()?.data() != ca.data() {
        mismatches.push("forward NTT");
    }
    ca.mul_assign(&cb, &ring);
    da.mul_assign(&db)?;
    if da.download()?.data() != ca.data() {
        mismatches.push("product");
    }
    let k = hekate::ring::automorphism::galois_element_for_rotation(3, n);
    let mut crot = ring.zero(3, 1, Form::Ntt);
    ca.automorphism(k, &ring, &mut crot);
    let mut drot = DevicePoly::zero(&dctx, 3, 1, Form::Ntt)?;
    da.automorphism(k, &mut drot)?;
    crot.intt(&ring);
    drot.intt()?;
    if drot.download()?.data() != crot.data() {
        mismatches.push("automorphism + inverse NTT");
    }
    let ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(if mismatches.is_empty() {
        (
            true,
            format!("NTT, product, automorphism at N = 2^12 (3 + 1 limbs): bit-exact with the CPU ({ms:.0} ms incl. compiling)"),
        )
    } else {
        (
            false,
            format!("MISMATCH with the CPU in: {}", mismatches.join(", ")),
        )
    })
}
