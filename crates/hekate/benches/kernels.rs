//! Kernel benchmark at N = 2^16: the scalar kernels against the dispatched (SIMD) ones for
//! the Hadamard product and the key-switching inner product, and the base conversion
//! (`BaseConverter::convert`) on every instruction set this CPU runs, plus the unblocked strided
//! conversion hekate had before (as a baseline), for 50- and 61-bit primes.
//!
//! All variants of one row are timed interleaved (one call of each per round, many
//! rounds) and the median is reported, so that noise from other processes hits every
//! variant alike. Run with `cargo bench -p hekate --bench kernels`; `KERNEL_BENCH_ROUNDS`
//! sets the round count.

mod common;
use common::random_residues;
use std::hint::black_box;
use std::time::Instant;

use hekate::math::kernels::{self, scalar, Isa};
use hekate::math::rns::{BaseConverter, RnsBasis};
use hekate::math::{Modulus, PrimeGenerator};

const N: usize = 1 << 16;

/// Times the closures interleaved; returns the median seconds per call of each.
fn time(rounds: usize, runs: &mut [Box<dyn FnMut() + '_>]) -> Vec<f64> {
    for r in runs.iter_mut() {
        for _ in 0..3 {
            r();
        }
    }
    let mut samples = vec![Vec::with_capacity(rounds); runs.len()];
    for _ in 0..rounds {
        for (r, s) in runs.iter_mut().zip(samples.iter_mut()) {
            let t = Instant::now();
            r();
            s.push(t.elapsed().as_secs_f64());
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(|a, b| a.partial_cmp(b).unwrap());
            s[s.len() / 2]
        })
        .collect()
}

/// The conversion as hekate had it before blocking: strided, one output limb at a time
/// over all `n` coefficients (constants recomputed here from the public API).
struct UnblockedConvert {
    from: Vec<Modulus>,
    to: Vec<Modulus>,
    q_hat_inv: Vec<(u64, u64)>,
    q_hat_mod_p: Vec<u64>,
    neg_vq: Vec<u64>,
    inv_q: Vec<f64>,
}

impl UnblockedConvert {
    fn new(from: &RnsBasis, to: &RnsBasis) -> Self {
        let l = from.len();
        let fm = from.moduli();
        let mut q_hat_inv = Vec::new();
        for (i, qi) in fm.iter().enumerate() {
            let h = (0..l)
                .filter(|&k| k != i)
                .fold(1, |a, k| qi.mul(a, qi.reduce(fm[k].value())));
            let w = qi.inv(h).unwrap();
            q_hat_inv.push((w, qi.shoup(w)));
        }
        let (mut q_hat_mod_p, mut neg_vq) = (Vec::new(), Vec::new());
        for p in to.moduli() {
            for i in 0..l {
                q_hat_mod_p.push(
                    (0..l)
                        .filter(|&k| k != i)
                        .fold(1, |a, k| p.mul(a, p.reduce(fm[k].value()))),
                );
            }
            let qm = from.product_mod(p);
            for v in 0..=l as u64 {
                neg_vq.push(p.neg(p.mul(v, qm)));
            }
        }
        UnblockedConvert {
            from: fm.to_vec(),
            to: to.moduli().to_vec(),
            q_hat_inv,
            q_hat_mod_p,
            neg_vq,
            inv_q: fm.iter().map(|q| 1.0 / q.value() as f64).collect(),
        }
    }

    fn convert(&self, input: &[u64], output: &mut [u64], n: usize, scratch: &mut [u64]) {
        let l = self.from.len();
        let (y, v) = scratch[..(l + 1) * n].split_at_mut(l * n);
        for i in 0..l {
            let (q, (w, ws)) = (&self.from[i], self.q_hat_inv[i]);
            for k in 0..n {
                y[i * n + k] = q.mul_shoup(input[i * n + k], w, ws);
            }
        }
        v.fill(0f64.to_bits());
        for i in 0..l {
            for k in 0..n {
                v[k] = (f64::from_bits(v[k]) + y[i * n + k] as f64 * self.inv_q[i]).to_bits();
            }
        }
        for a in v.iter_mut() {
            *a = f64::from_bits(*a).round() as u64;
        }
        for j in 0..output.len() / n {
            let p = &self.to[j];
            let row = &self.q_hat_mod_p[j * l..(j + 1) * l];
            for k in 0..n {
                let mut acc = self.neg_vq[j * (l + 1) + v[k] as usize] as u128;
                for i in 0..l {
                    acc += y[i * n + k] as u128 * row[i] as u128;
                }
                output[j * n + k] = p.reduce_u128(acc);
            }
        }
    }
}

fn main() {
    let rounds: usize = std::env::var("KERNEL_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(41);
    println!("N = {N}, detected instruction set: {:?}", Isa::detect());
    println!("rounds per row: {rounds} (median of interleaved calls)\n");

    println!("## Element-wise kernels (one limb of 2^16 words)\n");
    println!(
        "| kernel | prime bits | scalar µs | SIMD ({}) µs | speedup |",
        Isa::detect()
    );
    println!("|---|---|---|---|---|");
    for bits in [36u32, 50, 61] {
        let q = PrimeGenerator::new(N).unwrap().next_prime(bits).unwrap();
        let m = Modulus::new(q);
        let a0 = random_residues(N, q, 1);
        let b = random_residues(N, q, 2);
        let c = random_residues(N, q, 3);
        let w = c[0];
        let ws = m.shoup(w);
        type Pair<'a> = [Box<dyn FnMut() + 'a>; 2];
        let mut bufs: [Vec<u64>; 10] = std::array::from_fn(|_| a0.clone());
        let [a1, a2, a3, a4, a5, a6, a7, a8, a9, a10] = &mut bufs;
        let (b, c, m) = (&b, &c, &m);
        let mut rows: Vec<(&str, Pair)> = vec![
            (
                "add_assign",
                [
                    Box::new(move || scalar::add_assign(black_box(a1), b, m)),
                    Box::new(move || kernels::add_assign(black_box(a2), b, m)),
                ],
            ),
            (
                "mul_assign",
                [
                    Box::new(move || scalar::mul_assign(black_box(a3), b, m)),
                    Box::new(move || kernels::mul_assign(black_box(a4), b, m)),
                ],
            ),
            (
                "mul_add_assign",
                [
                    Box::new(move || scalar::mul_add_assign(black_box(a5), b, c, m)),
                    Box::new(move || kernels::mul_add_assign(black_box(a6), b, c, m)),
                ],
            ),
            (
                "mul_scalar_assign",
                [
                    Box::new(move || scalar::mul_scalar_assign(black_box(a7), w, m)),
                    Box::new(move || kernels::mul_scalar_assign(black_box(a8), w, m)),
                ],
            ),
            (
                "sub_mul_scalar_assign",
                [
                    Box::new(move || scalar::sub_mul_scalar_assign(black_box(a9), b, w, ws, m)),
                    Box::new(move || kernels::sub_mul_scalar_assign(black_box(a10), b, w, ws, m)),
                ],
            ),
        ];
        for (name, runs) in rows.iter_mut() {
            let t = time(rounds, runs);
            row(name, bits, &t);
        }
        for beta in [3usize, 12] {
            let ops: Vec<Vec<u64>> = (0..2 * beta)
                .map(|j| random_residues(N, q, 10 + j as u64))
                .collect();
            let a: Vec<&[u64]> = ops[..beta].iter().map(|v| &v[..]).collect();
            let bb: Vec<&[u64]> = ops[beta..].iter().map(|v| &v[..]).collect();
            let (mut acc1, mut acc2) = (a0.clone(), a0.clone());
            let t = time(
                rounds,
                &mut [
                    Box::new(|| scalar::inner_product_add_assign(black_box(&mut acc1), &a, &bb, m)),
                    Box::new(|| {
                        kernels::inner_product_add_assign(black_box(&mut acc2), &a, &bb, m)
                    }),
                ],
            );
            row(&format!("inner_product β={beta}"), bits, &t);
        }
    }

    println!("\n## Base conversion `convert` (exact), N = 2^16\n");
    println!(
        "| shape | primes | unblocked scalar µs | blocked scalar µs | AVX2 µs | AVX-512 µs \
         | AVX-512+IFMA µs | speedup vs unblocked | speedup vs blocked scalar |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    // (label, from sizes, to sizes)
    let shapes: Vec<(&str, &str, Vec<u32>, Vec<u32>)> = vec![
        ("ModUp α=6 → 22", "50-bit", vec![50; 6], vec![50; 22]),
        ("ModUp α=6 → 22", "61-bit", vec![61; 6], vec![61; 22]),
        ("ModDown 6 → 16", "50-bit", vec![50; 6], vec![50; 16]),
        ("ModDown 6 → 16", "61-bit", vec![61; 6], vec![61; 16]),
        ("ModUp α=6 → 22", "50 → 6×61 + 16×50", vec![50; 6], {
            let mut v = vec![61; 6];
            v.extend([50; 16]);
            v
        }),
        ("ModDown 6 → 16", "6×61 → 60 + 15×50", vec![61; 6], {
            let mut v = vec![60];
            v.extend([50; 15]);
            v
        }),
    ];
    for (label, primes, fb, tb) in shapes {
        let mut g = PrimeGenerator::new(N).unwrap();
        let from: Vec<u64> = fb.iter().map(|&b| g.next_prime(b).unwrap()).collect();
        let to: Vec<u64> = tb.iter().map(|&b| g.next_prime(b).unwrap()).collect();
        let (c, b) = (RnsBasis::new(&from).unwrap(), RnsBasis::new(&to).unwrap());
        let conv = BaseConverter::new(&c, &b);
        let old = UnblockedConvert::new(&c, &b);
        let input: Vec<u64> = from
            .iter()
            .enumerate()
            .flat_map(|(i, &q)| random_residues(N, q, 100 + i as u64))
            .collect();
        let l = from.len();
        let mut outs = vec![vec![0u64; to.len() * N]; 5];
        let mut scr = vec![vec![0u64; (l + 1) * N]; 5];
        let [(o0, s0), (o1, s1), (o2, s2), (o3, s3), (o4, s4)] = {
            let mut it = outs.iter_mut().zip(scr.iter_mut());
            [(); 5].map(|_| it.next().unwrap())
        };
        let inp = &input;
        let conv = &conv;
        // The SIMD instruction sets this CPU runs (the others print n/a).
        let simd: Vec<Isa> = Isa::ALL[1..]
            .iter()
            .copied()
            .filter(|i| i.available())
            .collect();
        let mut runs: Vec<Box<dyn FnMut() + '_>> = vec![
            Box::new(|| old.convert(inp, black_box(o0), N, s0)),
            Box::new(|| conv.convert_using(Isa::Scalar, true, inp, black_box(o1), N, s1)),
        ];
        for ((isa, o), s) in simd.iter().copied().zip([o2, o3, o4]).zip([s2, s3, s4]) {
            runs.push(Box::new(move || {
                conv.convert_using(isa, true, inp, black_box(o), N, s)
            }));
        }
        let t = time(rounds.div_ceil(2), &mut runs);
        drop(runs);
        assert!(
            outs[..2 + simd.len()].iter().all(|o| *o == outs[0]),
            "all paths agree"
        );
        let cell = |isa: Isa| match simd.iter().position(|&i| i == isa) {
            Some(p) => format!("{:.0}", t[2 + p] * 1e6),
            None => "n/a".into(),
        };
        let best = t[1..].iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "| {label} | {primes} | {:.0} | {:.0} | {} | {} | {} | {:.1}× | {:.1}× |",
            t[0] * 1e6,
            t[1] * 1e6,
            cell(Isa::Avx2),
            cell(Isa::Avx512),
            cell(Isa::Avx512Ifma),
            t[0] / best,
            t[1] / best
        );
    }
}

fn row(name: &str, bits: u32, t: &[f64]) {
    println!(
        "| {name} | {bits} | {:.1} | {:.1} | {:.2}× |",
        t[0] * 1e6,
        t[1] * 1e6,
        t[0] / t[1]
    );
}
