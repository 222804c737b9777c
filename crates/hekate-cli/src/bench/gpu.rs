//! `hekate bench gpu`: per operation, the device time, the host-device transfer time of its
//! operand, and the CPU time of the same operation in the same run, each row checked
//! bit-exact against the CPU before it is timed. On an emulated device (POCL on the CPU) the
//! table says "correctness only" instead of a speed-up.
//!
//! Device times: CUDA events around the operation; on OpenCL the host clock around the
//! operation and a queue finish.

use super::{fmt_ms, header, init_threads, measure, Stats, Table};
use crate::gpu::Runtime;
use crate::{say, Outcome};
use clap::Args;
use hekate::math::PrimeGenerator;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::ring::{Form, Poly, RingContext};
use hekate_gpu::{DevicePoly, DeviceRingContext, Gpu};
use std::error::Error;

/// Options of `hekate bench gpu`.
#[derive(Debug, Args)]
pub struct GpuArgs {
    /// log2 of the ring degree N
    #[arg(long, default_value_t = 16)]
    logn: u32,
    /// Chain lengths (limbs of 50 bits, the first 60), comma separated
    #[arg(long, value_delimiter = ',', default_value = "16,32")]
    limbs: Vec<usize>,
    /// Timed repetitions per operation after one warm-up (the median is shown)
    #[arg(long, default_value_t = 10)]
    reps: usize,
    /// Which runtime to open (auto: HEKATE_GPU, else CUDA, else OpenCL)
    #[arg(long, value_enum, default_value_t = Runtime::Auto)]
    runtime: Runtime,
    /// A fast smoke run: N = 2^12, 4 limbs, 3 repetitions
    #[arg(long)]
    quick: bool,
}

/// Device-time statistics of `reps` runs of `f` after one warm-up.
fn device_measure(
    gpu: &Gpu,
    reps: usize,
    mut f: impl FnMut() -> hekate_gpu::Result<()>,
) -> Result<f64, Box<dyn Error>> {
    f()?;
    gpu.synchronize()?;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let ((), ms) = gpu.timed(&mut f)?;
        times.push(std::time::Duration::from_secs_f64(ms / 1e3));
    }
    Ok(Stats::of(times).ms())
}

fn random_poly(ring: &RingContext, limbs: usize, form: Form, seed: u64) -> Poly {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut data = Vec::with_capacity(limbs * ring.n());
    for i in 0..limbs {
        let q = ring.modulus(i, limbs).value();
        data.extend((0..ring.n()).map(|_| rng.next_u64() % q));
    }
    Poly::from_raw(ring.n(), limbs, 0, form, data)
}

/// Runs the benchmark.
pub fn run(args: GpuArgs) -> Result<Outcome, Box<dyn Error>> {
    let (logn, limbs, reps) = if args.quick {
        (12, vec![4], 3)
    } else {
        (args.logn, args.limbs.clone(), args.reps)
    };
    if !(1..=17).contains(&logn) || limbs.iter().any(|&l| l == 0 || l > 64) {
        return Err("--logn must be in 1..=17 and --limbs in 1..=64".into());
    }
    init_threads(1)?;
    let gpu = Gpu::open(args.runtime.select())?;
    let info = gpu.info().clone();
    say!("{}\n", header("gpu", 1));
    say!("device: {info}");
    if info.emulated {
        say!("emulated device (POCL on the CPU): correctness only, the device times say nothing about a GPU");
    }
    let n = 1usize << logn;
    let max_l = *limbs.iter().max().expect("limbs given");
    let mut gen = PrimeGenerator::new(n)?;
    let mut q = vec![gen.next_prime(60)?];
    q.extend(gen.primes(50, max_l - 1)?);
    let ring = RingContext::new(n, &q, &[])?;
    let dctx = DeviceRingContext::new(&gpu, &ring)?;
    let mut table = Table::new(
        [
            "op",
            "limbs",
            "device ms",
            "CPU ms",
            "CPU / device",
            "h2d ms",
            "d2h ms",
            "bit-exact",
        ],
        2,
    )
    .titled(format!("GPU kernels, N = 2^{logn}, one CPU thread"));
    let mut all_exact = true;
    for &l in &limbs {
        let a = random_poly(&ring, l, Form::Coeff, 1);
        let b = random_poly(&ring, l, Form::Ntt, 2);
        let db = DevicePoly::upload(&dctx, &b)?;
        let (h2d, d2h) = {
            let mut d = DevicePoly::upload(&dctx, &a)?;
            let h2d = measure(reps, || DevicePoly::upload(&dctx, &a).map(drop)).ms();
            let d2h = measure(reps, || d.download().map(drop)).ms();
            d.ntt()?;
            (h2d, d2h)
        };
        let k = hekate::ring::automorphism::galois_element_for_rotation(1, n);
        type CpuOp<'a> = Box<dyn Fn(&mut Poly) + 'a>;
        type DevOp<'a> = Box<dyn Fn(&mut DevicePoly) -> hekate_gpu::Result<()> + 'a>;
        let ops: Vec<(&str, Form, CpuOp, DevOp)> = vec![
            (
                "ntt forward",
                Form::Coeff,
                Box::new(|p: &mut Poly| p.ntt(&ring)),
                Box::new(|d: &mut DevicePoly| d.ntt()),
            ),
            (
                "ntt inverse",
                Form::Ntt,
                Box::new(|p: &mut Poly| p.intt(&ring)),
                Box::new(|d: &mut DevicePoly| d.intt()),
            ),
            (
                "product (NTT form)",
                Form::Ntt,
                Box::new(|p: &mut Poly| p.mul_assign(&b, &ring)),
                Box::new(|d: &mut DevicePoly| d.mul_assign(&db)),
            ),
            (
                "automorphism (NTT form)",
                Form::Ntt,
                Box::new(|p: &mut Poly| {
                    let mut out = ring.zero(p.q_limbs(), 0, Form::Ntt);
                    p.automorphism(k, &ring, &mut out);
                    *p = out;
                }),
                Box::new(|d: &mut DevicePoly| {
                    let mut out = DevicePoly::zero(&dctx, d.q_limbs(), 0, Form::Ntt)?;
                    d.automorphism(k, &mut out)?;
                    *d = out;
                    Ok(())
                }),
            ),
        ];
        for (name, form, cpu_op, dev_op) in &ops {
            let mut input = a.clone();
            input.set_form(*form);
            // Bit-exactness first.
            let mut cpu = input.clone();
            cpu_op(&mut cpu);
            let mut dev = DevicePoly::upload(&dctx, &input)?;
            dev_op(&mut dev)?;
            let exact = dev.download()?.data() == cpu.data();
            all_exact &= exact;
            // Timed: the transforms change the form, so each repetition restores it.
            let cpu_ms = measure(reps, || {
                let mut x = input.clone();
                x.set_form(*form);
                cpu_op(&mut x);
                x
            })
            .ms()
                - measure(reps, || input.clone()).ms();
            let mut dev = DevicePoly::upload(&dctx, &input)?;
            let dev_ms = device_measure(&gpu, reps, || {
                dev.set_form(*form);
                dev_op(&mut dev)
            })?;
            let ratio = if info.emulated {
                "correctness only".to_string()
            } else {
                format!("{:.1}x", cpu_ms / dev_ms)
            };
            table.push(vec![
                name.to_string(),
                l.to_string(),
                fmt_ms(dev_ms),
                fmt_ms(cpu_ms.max(0.0)),
                ratio,
                fmt_ms(h2d),
                fmt_ms(d2h),
                if exact { "yes" } else { "NO" }.into(),
            ]);
        }
    }
    table.print();
    Ok(if all_exact {
        Outcome::Success
    } else {
        Outcome::CheckFailed("a device result differs from the CPU's".into())
    })
}
