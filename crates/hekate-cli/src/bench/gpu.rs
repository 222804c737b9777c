//! `hekate bench gpu`: per operation, the device time, the host-device transfer time of its
//! operand, and the CPU time of the same operation in the same run, each row checked
//! bit-exact against the CPU before it is timed. On an emulated device (POCL on the CPU) the
//! table says "correctness only" instead of a speed-up.
//!
//! Device times: CUDA events around the operation; on OpenCL the host clock around the
//! operation and a queue finish. The CKKS rows also print the kernel launches each
//! operation issued and the prediction of the memory-traffic model
//! ([`hekate_gpu::model`]: bytes moved, and the time on an H100's 3.35 TB/s with a 3 µs gap
//! per launch), which a run on a real GPU checks.

use super::{fmt_ms, header, init_threads, measure, Stats, Table};
use crate::gpu::Runtime;
use crate::{say, Outcome};
use clap::Args;
use hekate::math::PrimeGenerator;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::ring::{Form, Poly, RingContext};
use hekate::rlwe::keys::expand_uniform;
use hekate_gpu::{DevicePoly, DeviceRingContext, Gpu};
use std::error::Error;
use std::sync::Arc;

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
    /// Key-switching digits of the CKKS rows
    #[arg(long, default_value_t = 3)]
    dnum: usize,
    /// Key-switching engines of the CKKS rows, comma separated: hybrid, klss:R, linear,
    /// linear-heuristic
    #[arg(long, value_delimiter = ',', default_value = "hybrid")]
    key_switching: Vec<String>,
    /// A fast smoke run: N = 2^12, 4 limbs, 3 repetitions
    #[arg(long)]
    quick: bool,
    /// After the timings, run one multiplication + relinearization per engine and chain as
    /// the profiled range (CUDA's cuProfilerStart / Stop), for
    /// `ncu --profile-from-start off --print-summary per-kernel hekate bench gpu --profile`
    #[arg(long)]
    profile: bool,
    /// Also bootstrap on the device with these bootstrapping presets (those of `hekate bench
    /// bootstrap --presets`: quick-dense, quick-sparse, dense, lattigo-dense0, set-i ...;
    /// not the encapsulated ones), comma separated: keys generated here, then the device's
    /// bootstrap against the CPU's, bit-exact first
    #[arg(long, value_delimiter = ',')]
    bootstrap: Vec<String>,
    /// Also run FHEW NAND gates on the device in batches with these FHEW presets
    /// (OPENFHE_STD128, STD128, TOY, ...; those of `hekate bench fhew`), comma separated:
    /// keys generated here, every gate checked against the CPU's first
    #[arg(long, value_delimiter = ',')]
    fhew: Vec<String>,
    /// Blind-rotation method of the FHEW rows: AP, GINX, or an LMKCDEY variant that applies
    /// to the preset (LMKCDEY-aux for q = 2N, LMKCDEY-even for q < 2N)
    #[arg(long, default_value = "GINX")]
    fhew_method: String,
    /// Gates per device batch in the FHEW rows, comma separated
    #[arg(long, value_delimiter = ',', default_value = "1,64,256")]
    fhew_batch: Vec<usize>,
}

/// Median times of `reps` runs of an operation on the device.
#[derive(Clone, Copy, Debug)]
pub(super) struct DeviceTiming {
    /// Between CUDA events around the operation (OpenCL: host clock and a queue finish).
    pub(super) device_ms: f64,
    /// The host's wall time to issue it (launches, allocations, table look-ups), without
    /// waiting for the device: near `device_ms`, the operation is bound by the host.
    pub(super) host_ms: f64,
}

/// Device and host-issue times of `reps` runs of `f` after one warm-up.
pub(super) fn device_measure(
    gpu: &Gpu,
    reps: usize,
    mut f: impl FnMut() -> hekate_gpu::Result<()>,
) -> Result<DeviceTiming, Box<dyn Error>> {
    f()?;
    gpu.synchronize()?;
    let mut device = Vec::with_capacity(reps);
    let mut host = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let (issue, ms) = gpu.timed(|| {
            let t = std::time::Instant::now();
            f()?;
            Ok(t.elapsed())
        })?;
        device.push(std::time::Duration::from_secs_f64(ms / 1e3));
        host.push(issue);
    }
    Ok(DeviceTiming {
        device_ms: Stats::of(device).ms(),
        host_ms: Stats::of(host).ms(),
    })
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
    if args.fhew_batch.iter().any(|&b| b == 0 || b > 4096) {
        return Err("--fhew-batch sizes must be in 1..=4096".into());
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
            "host ms",
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
        // Uniform residues (the library's seed expansion): `a` read as coefficients.
        let mut a = expand_uniform(&ring, &[7; 32], 1, l, 0);
        a.set_form(Form::Coeff);
        let b = expand_uniform(&ring, &[7; 32], 2, l, 0);
        let db = DevicePoly::upload(&dctx, &b)?;
        let (h2d, d2h) = {
            let mut d = DevicePoly::upload(&dctx, &a)?;
            // An upload only queues the copy: wait for it, so the column is the transfer.
            let h2d = measure(reps, || {
                DevicePoly::upload(&dctx, &a).and_then(|_| dctx.gpu().synchronize())
            })
            .ms();
            let d2h = measure(reps, || d.download().map(drop)).ms();
            d.ntt()?;
            (h2d, d2h)
        };
        let k = hekate::ring::automorphism::galois_element_for_rotation(1, n);
        let cpu_scratch = std::cell::RefCell::new(ring.zero(l, 0, Form::Ntt));
        let dev_scratch = std::cell::RefCell::new(DevicePoly::zero(&dctx, l, 0, Form::Ntt)?);
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
                // Into a scratch allocated once, then swapped: the row times the permutation.
                Box::new(|p: &mut Poly| {
                    let mut out = cpu_scratch.borrow_mut();
                    p.automorphism(k, &ring, &mut out);
                    std::mem::swap(p, &mut *out);
                }),
                Box::new(|d: &mut DevicePoly| {
                    let mut out = dev_scratch.borrow_mut();
                    d.automorphism(k, &mut out)?;
                    std::mem::swap(d, &mut *out);
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
            let t = device_measure(&gpu, reps, || {
                dev.set_form(*form);
                dev_op(&mut dev)
            })?;
            let ratio = if info.emulated {
                "correctness only".to_string()
            } else {
                format!("{:.1}x", cpu_ms / t.device_ms)
            };
            table.push(vec![
                name.to_string(),
                l.to_string(),
                fmt_ms(t.device_ms),
                fmt_ms(t.host_ms),
                fmt_ms(cpu_ms.max(0.0)),
                ratio,
                fmt_ms(h2d),
                fmt_ms(d2h),
                if exact { "yes" } else { "NO" }.into(),
            ]);
        }
    }
    table.print();
    let methods = args
        .key_switching
        .iter()
        .map(|m| hekate::rlwe::keyswitch::KeySwitchMethod::parse(m).map(|k| (m.clone(), k)))
        .collect::<Result<Vec<_>, _>>()?;
    for &l in &limbs {
        for (name, method) in &methods {
            say!();
            all_exact &= ckks_rows(
                &gpu,
                logn,
                l,
                args.dnum.min(l),
                reps,
                info.emulated,
                name,
                *method,
                args.profile,
            )?;
        }
    }
    for name in &args.bootstrap {
        say!();
        all_exact &= bootstrap_row(&gpu, name, reps.min(3), info.emulated)?;
    }
    for name in &args.fhew {
        say!();
        all_exact &= super::gpu_fhew::rows(
            &gpu,
            name,
            &args.fhew_method,
            &args.fhew_batch,
            reps.min(3),
            info.emulated,
        )?;
    }
    Ok(if all_exact {
        Outcome::Success
    } else {
        Outcome::CheckFailed("a device result differs from the CPU's".into())
    })
}

/// One bootstrap of `preset` on the device and on the CPU (one thread): keys generated
/// here, the device's result checked word for word first, then `reps` timed runs of each.
fn bootstrap_row(
    gpu: &Arc<Gpu>,
    preset: &str,
    reps: usize,
    emulated: bool,
) -> Result<bool, Box<dyn Error>> {
    use hekate::ckks::bootstrap::{generate_keys_with, Bootstrapper};
    use hekate_gpu::ckks::{DeviceBootstrapper, DeviceCiphertext};
    let (ctx, config) = hekate::ckks::bootstrap::preset(preset)?.build()?;
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let sk = ctx.generate_secret_key_with(&mut rng);
    say!(
        "bootstrapping keys for {preset} (N = {})...",
        ctx.ring().n()
    );
    let keys = generate_keys_with(&ctx, &config, &sk, &mut rng, |_, _| {})?;
    let boot = Bootstrapper::new(ctx.clone(), config.clone(), keys)?;
    let dctx = DeviceRingContext::new(gpu, ctx.ring())?;
    let dboot = DeviceBootstrapper::new(&dctx, &boot)?;
    let dev = dboot.evaluator();
    let slots = config.slots;
    let z: Vec<num_complex::Complex64> = (0..slots)
        .map(|i| num_complex::Complex64::new((i as f64 * 0.01).sin() * 0.5, 0.0))
        .collect();
    let ct = ctx.encrypt_symmetric_with(
        &ctx.encode_at(&z, slots, 1, ctx.default_scale())?,
        &sk,
        &mut rng,
    )?;
    let dct = DeviceCiphertext::upload(dev, &ct)?;
    let want = boot.bootstrap(&ct)?;
    let got = dboot.bootstrap(&dct)?.download(dev)?;
    let exact = got.parts() == want.parts();
    let out = ctx.decrypt_decode(&got, &sk)?;
    let bits = -out
        .iter()
        .zip(&z)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max)
        .log2();
    let t = device_measure(gpu, reps, || dboot.bootstrap(&dct).map(drop))?;
    let before = (gpu.launches(), gpu.allocations(), gpu.uploads());
    dboot.bootstrap(&dct)?;
    let launches = gpu.launches() - before.0;
    let allocations = gpu.allocations() - before.1;
    let uploads = gpu.uploads() - before.2;
    let cpu_ms = measure(reps, || boot.bootstrap(&ct)).ms();
    let mut table = Table::new(
        [
            "preset",
            "N",
            "slots",
            "device ms",
            "host ms",
            "CPU ms",
            "CPU / device",
            "launches",
            "allocations",
            "uploads",
            "min bits",
            "bit-exact",
        ],
        1,
    )
    .titled(format!("CKKS bootstrapping on the device, preset {preset}"));
    table.push(vec![
        preset.to_string(),
        format!("2^{}", ctx.ring().n().trailing_zeros()),
        slots.to_string(),
        fmt_ms(t.device_ms),
        fmt_ms(t.host_ms),
        fmt_ms(cpu_ms),
        if emulated {
            "correctness only".into()
        } else {
            format!("{:.1}x", cpu_ms / t.device_ms)
        },
        launches.to_string(),
        allocations.to_string(),
        uploads.to_string(),
        format!("{bits:.1}"),
        if exact { "yes" } else { "NO" }.into(),
    ]);
    table.print();
    Ok(exact)
}

/// The CKKS rows at one chain length: multiplication with relinearization, rescaling, a
/// rotation and four hoisted rotations, on the device and on the CPU (one thread), each
/// checked word for word first. Returns whether every row was bit-exact.
#[allow(clippy::too_many_arguments)]
fn ckks_rows(
    gpu: &Arc<Gpu>,
    logn: u32,
    limbs: usize,
    dnum: usize,
    reps: usize,
    emulated: bool,
    method_name: &str,
    method: hekate::rlwe::keyswitch::KeySwitchMethod,
    profile: bool,
) -> Result<bool, Box<dyn Error>> {
    use hekate::ckks::{CkksParameters, Evaluator};
    use hekate::params::SecurityLevel;
    use hekate_gpu::ckks::{DeviceCiphertext, DeviceEvaluator};
    let alpha = limbs.div_ceil(dnum);
    let mut log_q = vec![60u32];
    log_q.extend(std::iter::repeat_n(50, limbs - 1));
    let ctx = CkksParameters::new(logn)
        .log_q(&log_q)
        .log_p(&vec![60; alpha])
        .dnum(dnum)
        .log_scale(50)
        // A timing grid, not a deployment: the chain is sized by --limbs.
        .security(SecurityLevel::NotChecked)
        .key_switching(method)
        .build()?;
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let pk = ctx.generate_public_key_with(&sk, &mut rng);
    let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
    let steps = [1i64, 2, 3, 4];
    let hybrid = matches!(method, hekate::rlwe::keyswitch::KeySwitchMethod::Hybrid);
    let slots = ctx.max_slots();
    // The circuits' rows: a 16-diagonal transform needs 16 slots.
    let (diagonals, plan) = if slots >= 16 {
        let d = sixteen_diagonals(slots)?;
        let plan = d.bsgs(None)?;
        (Some(d), Some(plan))
    } else {
        (None, None)
    };
    let mut rotations = steps.to_vec();
    rotations.extend(plan.iter().flat_map(|p| p.rotations()));
    rotations.sort_unstable();
    rotations.dedup();
    let gks = ctx.generate_galois_keys_with(&sk, &rotations, false, &mut rng);
    let cpu = Evaluator::new(ctx.clone(), Some(rlk), gks);
    let dctx = DeviceRingContext::new(gpu, ctx.ring())?;
    let dev = DeviceEvaluator::new(&dctx, &cpu)?;
    let vals: Vec<num_complex::Complex64> = (0..slots)
        .map(|i| num_complex::Complex64::new((i as f64 * 0.01).sin(), 0.0))
        .collect();
    let ct = ctx.encrypt_with(&ctx.encode(&vals)?, &pk, &mut rng)?;
    let dct = DeviceCiphertext::upload(&dev, &ct)?;
    let prod = cpu.mul(&ct, &ct)?;
    let dprod = dev.mul(&dct, &dct)?;
    use hekate_gpu::model::{self, Shape, H100_BANDWIDTH, LAUNCH_GAP_US};
    // The traffic model follows the hybrid engine's kernels (KLSS / linear rows: "-").
    let shape = Shape {
        n: 1 << logn,
        chain: limbs,
        ql: limbs,
        k: alpha,
        dnum,
        tile: dctx.tile(),
    };
    let mut table = Table::new(
        [
            "op",
            "limbs",
            "dnum",
            "engine",
            "device ms",
            "host ms",
            "CPU ms",
            "CPU / device",
            "launches",
            "allocations",
            "uploads",
            "model GiB",
            "model ms (H100)",
            "bit-exact",
        ],
        4,
    )
    .titled(format!(
        "CKKS on the device, N = 2^{logn}, {method_name} key switching"
    ));
    let mut all = true;
    let mut row = |name: &str,
                   exact: bool,
                   t: DeviceTiming,
                   cpu_ms: f64,
                   (launches, allocations, uploads): (u64, u64, u64),
                   m: Option<model::Traffic>| {
        all &= exact;
        let ratio = if emulated {
            "correctness only".to_string()
        } else {
            format!("{:.1}x", cpu_ms / t.device_ms)
        };
        let (gib, mms) = match m {
            Some(m) => (
                format!("{:.2}", m.bytes / (1u64 << 30) as f64),
                fmt_ms(m.ms(H100_BANDWIDTH, LAUNCH_GAP_US)),
            ),
            None => ("-".into(), "-".into()),
        };
        table.push(vec![
            name.into(),
            limbs.to_string(),
            dnum.to_string(),
            method_name.to_string(),
            fmt_ms(t.device_ms),
            fmt_ms(t.host_ms),
            fmt_ms(cpu_ms),
            ratio,
            launches.to_string(),
            allocations.to_string(),
            uploads.to_string(),
            gib,
            mms,
            if exact { "yes" } else { "NO" }.into(),
        ]);
    };
    // Launches, driver allocations and uploads of one warm call.
    let launches =
        |f: &dyn Fn() -> hekate_gpu::Result<()>| -> Result<(u64, u64, u64), Box<dyn Error>> {
            let before = (gpu.launches(), gpu.allocations(), gpu.uploads());
            f()?;
            Ok((
                gpu.launches() - before.0,
                gpu.allocations() - before.1,
                gpu.uploads() - before.2,
            ))
        };
    let exact = |d: &DeviceCiphertext,
                 c: &hekate::ckks::Ciphertext|
     -> Result<bool, Box<dyn Error>> { Ok(d.download(&dev)?.parts() == c.parts()) };
    let e = exact(&dprod, &prod)?;
    let d_ms = device_measure(gpu, reps, || dev.mul(&dct, &dct).map(drop))?;
    let n_l = launches(&|| dev.mul(&dct, &dct).map(drop))?;
    row(
        "mul + relinearize",
        e,
        d_ms,
        measure(reps, || cpu.mul(&ct, &ct)).ms(),
        n_l,
        hybrid.then(|| model::mul_relin(&shape)),
    );
    let e = exact(&dev.rescale(&dprod)?, &cpu.rescale(&prod)?)?;
    let d_ms = device_measure(gpu, reps, || dev.rescale(&dprod).map(drop))?;
    let n_l = launches(&|| dev.rescale(&dprod).map(drop))?;
    row(
        "rescale",
        e,
        d_ms,
        measure(reps, || cpu.rescale(&prod)).ms(),
        n_l,
        Some(model::rescale(&shape)),
    );
    let e = exact(&dev.rotate(&dct, 1)?, &cpu.rotate(&ct, 1)?)?;
    let d_ms = device_measure(gpu, reps, || dev.rotate(&dct, 1).map(drop))?;
    let n_l = launches(&|| dev.rotate(&dct, 1).map(drop))?;
    row(
        "rotate",
        e,
        d_ms,
        measure(reps, || cpu.rotate(&ct, 1)).ms(),
        n_l,
        hybrid.then(|| model::rotate(&shape)),
    );
    let dh = dev.rotate_hoisted(&dct, &steps)?;
    let ch = cpu.rotate_hoisted(&ct, &steps)?;
    let mut e = true;
    for (d, c) in dh.iter().zip(&ch) {
        e &= exact(d, c)?;
    }
    let d_ms = device_measure(gpu, reps, || dev.rotate_hoisted(&dct, &steps).map(drop))?;
    let n_l = launches(&|| dev.rotate_hoisted(&dct, &steps).map(drop))?;
    row(
        "4 hoisted rotations",
        e,
        d_ms,
        measure(reps, || cpu.rotate_hoisted(&ct, &steps)).ms(),
        n_l,
        None,
    );
    if let (Some(d), Some(plan)) = (&diagonals, plan) {
        use hekate::circuits::lintrans::LinearTransform;
        use hekate::circuits::polyeval::{evaluate, Polynomial};
        let level = ctx.max_level();
        let lt_cpu = LinearTransform::new(&cpu, d, plan.clone(), level, None)?;
        let lt_dev = LinearTransform::new(&dev, d, plan, level, None)?;
        let e = exact(&lt_dev.evaluate(&dev, &dct)?, &lt_cpu.evaluate(&cpu, &ct)?)?;
        let t = device_measure(gpu, reps, || {
            lt_dev.evaluate(&dev, &dct).map(drop).map_err(Into::into)
        })?;
        let n_l = launches(&|| lt_dev.evaluate(&dev, &dct).map(drop).map_err(Into::into))?;
        row(
            "linear transform, 16 diagonals",
            e,
            t,
            measure(reps, || lt_cpu.evaluate(&cpu, &ct)).ms(),
            n_l,
            None,
        );
        // Depth 4 (degree 15 in the Chebyshev basis on [-1, 1]).
        if limbs >= 6 {
            let p = Polynomial::interpolate(|x| (3.0 * x).sin(), -1.0, 1.0, 15)?;
            let target = ct.scale().clone();
            let e = exact(
                &evaluate(&dev, &dct, &p, &target)?,
                &evaluate(&cpu, &ct, &p, &target)?,
            )?;
            let t = device_measure(gpu, reps, || {
                evaluate(&dev, &dct, &p, &target)
                    .map(drop)
                    .map_err(Into::into)
            })?;
            let n_l = launches(&|| {
                evaluate(&dev, &dct, &p, &target)
                    .map(drop)
                    .map_err(Into::into)
            })?;
            row(
                "polynomial, degree 15",
                e,
                t,
                measure(reps, || evaluate(&cpu, &ct, &p, &target)).ms(),
                n_l,
                None,
            );
        }
    }
    table.print();
    if profile {
        gpu.profiled(|| dev.mul(&dct, &dct).map(drop))?;
    }
    Ok(all)
}

/// Sixteen consecutive diagonals `0..16` of a slot-by-slot matrix (the shape of one radix-16
/// factor of bootstrapping's CoeffToSlot), with fixed entries of magnitude below 1/16.
fn sixteen_diagonals(
    slots: usize,
) -> Result<hekate::circuits::lintrans::Diagonals<num_complex::Complex64>, Box<dyn Error>> {
    let mut d = hekate::circuits::lintrans::Diagonals::new(slots)?;
    for k in 0..16i64 {
        let v = (0..slots)
            .map(|i| {
                let t = (i as f64 + 1.0) * (k as f64 + 0.5);
                num_complex::Complex64::new((t * 0.37).sin(), (t * 0.11).cos()) / 23.0
            })
            .collect();
        d.insert(k, v)?;
    }
    Ok(d)
}
