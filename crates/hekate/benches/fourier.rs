//! Complex FFT benchmark for the FHEW products (`math/fourier`): a forward and an inverse
//! transform of `N/2 = 512` and `1024` points (FHEW rings `N = 1024` and `2048`) with
//!
//! * hekate's [`ComplexFft`] on each instruction set this CPU runs (bit-reversed order),
//! * `tfhe-fft` 0.10's unordered plan (the one hekate used before; a dev-dependency only,
//!   its licence grants patents for non-commercial use only),
//! * `rustfft` 6 (MIT/Apache-2.0; ordered output, its own AVX/FMA code where available).
//!
//! All variants of one size are timed interleaved in the same loop (one batch of each per
//! round, many rounds) and the median per forward+inverse pair is reported with its ratio
//! to tfhe-fft. Run with `cargo bench -p hekate --bench fourier`; `FFT_BENCH_ROUNDS` sets
//! the round count.

use std::hint::black_box;
use std::time::Instant;

use dyn_stack::{PodBuffer, PodStack};
use hekate::math::fourier::ComplexFft;
use hekate::math::kernels::Isa;
use num_complex::Complex64 as C64;
use tfhe_fft::ordered::FftAlgo;
use tfhe_fft::unordered::{Method, Plan};

/// A closure running one forward+inverse pair on its argument.
type Pair<'a> = Box<dyn FnMut(&mut [C64]) + 'a>;

/// One timed variant: a name and its [`Pair`].
struct Variant<'a> {
    name: String,
    run: Pair<'a>,
    samples: Vec<f64>,
}

fn main() {
    let rounds: usize = std::env::var("FFT_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2001);
    println!(
        "hekate SIMD in use: {} (CPU best: {})",
        Isa::detect(),
        Isa::cpu()
    );
    println!("rounds per size: {rounds} (median of interleaved batches)\n");
    println!("| points | variant | fwd+inv µs | / tfhe-fft |");
    println!("|---|---|---|---|");
    for m in [512usize, 1024] {
        // 16 pairs per sample: the values grow by m per pair, 2^160 at most.
        let batch = 16;
        let mut s = 0x5eedu64;
        let input: Vec<C64> = (0..m)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = |k: u32| ((s >> k) & 0xffff) as f64 / 65536.0 - 0.5;
                C64::new(u(16), u(40))
            })
            .collect();
        let ours = ComplexFft::new(m);
        let tfhe = Plan::new(
            m,
            Method::UserProvided {
                base_algo: FftAlgo::Dif8,
                base_n: m.min(512),
            },
        );
        let mut tfhe_mem = PodBuffer::new(tfhe.fft_scratch());
        let mut planner = rustfft::FftPlanner::<f64>::new();
        let (rf, ri) = (planner.plan_fft_forward(m), planner.plan_fft_inverse(m));
        let mut rs = vec![
            C64::new(0.0, 0.0);
            rf.get_inplace_scratch_len()
                .max(ri.get_inplace_scratch_len())
        ];

        let mut variants: Vec<Variant> = vec![Variant {
            name: "tfhe-fft 0.10 unordered".into(),
            run: Box::new(|b| {
                tfhe.fwd(b, PodStack::new(&mut tfhe_mem));
                tfhe.inv(b, PodStack::new(&mut tfhe_mem));
            }),
            samples: vec![],
        }];
        variants.push(Variant {
            name: "rustfft 6".into(),
            run: Box::new(|b| {
                rf.process_with_scratch(b, &mut rs);
                ri.process_with_scratch(b, &mut rs);
            }),
            samples: vec![],
        });
        for isa in Isa::ALL.into_iter().filter(|i| i.available()).rev() {
            let f = &ours;
            variants.push(Variant {
                name: format!("hekate {isa}"),
                run: Box::new(move |b| {
                    f.forward_with(isa, b);
                    f.inverse_with(isa, b);
                }),
                samples: vec![],
            });
        }
        let mut buf = input.clone();
        for v in variants.iter_mut() {
            for _ in 0..200 {
                buf.copy_from_slice(&input);
                (v.run)(&mut buf);
            }
        }
        for _ in 0..rounds {
            for v in variants.iter_mut() {
                buf.copy_from_slice(&input);
                let start = Instant::now();
                for _ in 0..batch {
                    (v.run)(black_box(&mut buf));
                }
                v.samples.push(start.elapsed().as_secs_f64() / batch as f64);
            }
        }
        let med: Vec<f64> = variants
            .iter_mut()
            .map(|v| {
                v.samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
                v.samples[v.samples.len() / 2] * 1e6
            })
            .collect();
        for (v, t) in variants.iter().zip(&med) {
            println!("| {m} | {} | {t:.3} | {:.2} |", v.name, t / med[0]);
        }
    }
}
