//! NTT benchmark: hekate's negacyclic NTT (detected backend, and the forced scalar path)
//! against tfhe-ntt 0.7.1, for N = 2^12 and 2^16 and 36-, 50- and 60-bit primes.
//!
//! All variants of one (N, prime) cell are timed interleaved in the same loop (one batch
//! of each per round, many rounds) and the median per-transform time is reported, so
//! that noise from other processes hits every variant alike. Run with
//! `cargo bench -p hekate --bench ntt`; set `NTT_BENCH_ROUNDS` to change the round count and
//! `NTT_BENCH_BITS` (e.g. `60` or `36,50`) to restrict the prime sizes.

mod common;
use common::random_residues;
use std::hint::black_box;
use std::time::Instant;

use hekate::math::{NttBackend, NttPlan, PrimeGenerator};

/// Median of the samples, in microseconds.
fn median_us(samples: &mut [f64]) -> f64 {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2] * 1e6
}

fn feature_line() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        let f = [
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
            ("avx512dq", std::arch::is_x86_feature_detected!("avx512dq")),
            (
                "avx512ifma",
                std::arch::is_x86_feature_detected!("avx512ifma"),
            ),
        ];
        f.iter()
            .map(|(name, on)| format!("{name}: {}", if *on { "yes" } else { "no" }))
            .collect::<Vec<_>>()
            .join(", ")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        format!("{} (no x86 SIMD backends)", std::env::consts::ARCH)
    }
}

/// One timed variant: a name and a closure running one transform on its own buffer.
struct Variant<'a> {
    run: Box<dyn FnMut() + 'a>,
    samples: Vec<f64>,
}

fn main() {
    let rounds: usize = std::env::var("NTT_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(301);
    // `NTT_BENCH_BITS=60` (comma-separated) restricts the prime sizes.
    let only_bits: Vec<u32> = std::env::var("NTT_BENCH_BITS")
        .map(|s| s.split(',').filter_map(|b| b.trim().parse().ok()).collect())
        .unwrap_or_default();
    println!("CPU features: {}", feature_line());
    println!("rounds per cell: {rounds} (median of interleaved batches)\n");
    println!(
        "| N | prime bits | backend | hekate fwd µs | hekate lazy fwd µs | hekate inv µs \
         | scalar fwd µs | tfhe-ntt fwd µs | tfhe-ntt inv µs | hekate fwd / tfhe-ntt fwd |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for log_n in [12u32, 16] {
        let n = 1usize << log_n;
        // Batch small transforms so one sample lasts tens of microseconds.
        let batch = (1usize << 16) / n;
        for bits in [36u32, 50, 60] {
            if !only_bits.is_empty() && !only_bits.contains(&bits) {
                continue;
            }
            let q = PrimeGenerator::new(n).unwrap().next_prime(bits).unwrap();
            let plan = NttPlan::new(n, q).unwrap();
            let mut scalar = plan.clone();
            scalar.set_backend(NttBackend::Scalar).unwrap();
            let tfhe = tfhe_ntt::prime64::Plan::try_new(n, q);
            let input = random_residues(n, q, 0x5eed ^ (n as u64) ^ q);

            let (mut b_fwd, mut b_lazy, mut b_inv) = (input.clone(), input.clone(), input.clone());
            let (mut b_scalar, mut b_tf, mut b_ti) = (input.clone(), input.clone(), input.clone());
            let mut variants: Vec<Variant> = vec![
                Variant {
                    run: Box::new(|| plan.forward(black_box(&mut b_fwd))),
                    samples: vec![],
                },
                Variant {
                    run: Box::new(|| plan.forward_lazy(black_box(&mut b_lazy))),
                    samples: vec![],
                },
                Variant {
                    run: Box::new(|| plan.inverse(black_box(&mut b_inv))),
                    samples: vec![],
                },
                Variant {
                    run: Box::new(|| scalar.forward(black_box(&mut b_scalar))),
                    samples: vec![],
                },
            ];
            if let Some(t) = &tfhe {
                variants.push(Variant {
                    run: Box::new(|| t.fwd(black_box(&mut b_tf))),
                    samples: vec![],
                });
                variants.push(Variant {
                    run: Box::new(|| t.inv(black_box(&mut b_ti))),
                    samples: vec![],
                });
            }
            // Warm up, then interleave.
            for v in variants.iter_mut() {
                for _ in 0..batch * 4 {
                    (v.run)();
                }
            }
            for _ in 0..rounds {
                for v in variants.iter_mut() {
                    let start = Instant::now();
                    for _ in 0..batch {
                        (v.run)();
                    }
                    v.samples.push(start.elapsed().as_secs_f64() / batch as f64);
                }
            }
            let med: Vec<f64> = variants
                .iter_mut()
                .map(|v| median_us(&mut v.samples))
                .collect();
            let (tf, ti, ratio) = if tfhe.is_some() {
                (
                    format!("{:.2}", med[4]),
                    format!("{:.2}", med[5]),
                    format!("{:.2}", med[0] / med[4]),
                )
            } else {
                ("n/a".into(), "n/a".into(), "n/a".into())
            };
            println!(
                "| 2^{log_n} | {bits} | {:?} | {:.2} | {:.2} | {:.2} | {:.2} | {tf} | {ti} | {ratio} |",
                plan.backend(),
                med[0],
                med[1],
                med[2],
                med[3],
            );
        }
    }
}
