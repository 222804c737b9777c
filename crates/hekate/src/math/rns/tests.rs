use super::{BaseConverter, BasisExtender, CrtReconstructor, RnsBasis};
use crate::math::kernels::Isa;
use crate::math::primes::PrimeGenerator;
use num_bigint::{BigInt, BigUint, RandBigInt};
use num_traits::{One, ToPrimitive, Zero};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn product(b: &RnsBasis) -> BigUint {
    b.moduli()
        .iter()
        .fold(BigUint::one(), |acc, m| acc * m.value())
}

fn residues(xs: &[BigInt], b: &RnsBasis) -> Vec<u64> {
    let mut out = Vec::new();
    for m in b.moduli() {
        let q = BigInt::from(m.value());
        for x in xs {
            let r = ((x % &q) + &q) % &q;
            out.push(r.to_u64().unwrap());
        }
    }
    out
}

fn bases(bits_c: &[u32], bits_b: &[u32]) -> (RnsBasis, RnsBasis) {
    let mut g = PrimeGenerator::new(1 << 10).unwrap();
    let c: Vec<u64> = bits_c.iter().map(|&b| g.next_prime(b).unwrap()).collect();
    let b: Vec<u64> = bits_b.iter().map(|&b| g.next_prime(b).unwrap()).collect();
    (RnsBasis::new(&c).unwrap(), RnsBasis::new(&b).unwrap())
}

/// Random centered integers in [-Q/2, Q/2), plus the edge cases 0, +-1, and
/// +-(Q/2 - Q/2^40): as close to +-Q/2 as the floating-point correction guarantees.
fn random_centered(q: &BigUint, n: usize, rng: &mut ChaCha8Rng) -> Vec<BigInt> {
    let half = BigInt::from(q.clone() / 2u32);
    let margin = BigInt::from(q.clone() >> 40);
    let mut xs: Vec<BigInt> = (0..n - 5)
        .map(|_| BigInt::from(rng.gen_biguint_below(q)) - &half)
        .collect();
    xs.extend([
        BigInt::zero(),
        BigInt::one(),
        -BigInt::one(),
        &half - &margin,
        -&half + &margin,
    ]);
    xs
}

#[test]
fn exact_base_conversion_matches_bigint() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let n = 64;
    for (bc, bb) in [
        (vec![60u32, 50, 50], vec![61u32, 61]),
        (vec![36; 12], vec![50; 5]),
        (vec![61; 17], vec![61; 3]),
        (vec![30], vec![60, 40]),
    ] {
        let (c, b) = bases(&bc, &bb);
        let q = product(&c);
        let xs = random_centered(&q, n, &mut rng);
        let conv = BaseConverter::new(&c, &b);
        let mut out = vec![0u64; b.len() * n];
        let mut scratch = vec![0u64; (c.len() + 1) * n];
        conv.convert(&residues(&xs, &c), &mut out, n, &mut scratch);
        assert_eq!(out, residues(&xs, &b), "C {bc:?} -> B {bb:?}");
        // The approximate variant is off by a multiple u*Q with 0 <= u < l.
        conv.convert_approx(&residues(&xs, &c), &mut out, n, &mut scratch);
        for (j, m) in b.moduli().iter().enumerate() {
            for (k, x) in xs.iter().enumerate() {
                let qm = BigInt::from(m.value());
                let qb = BigInt::from(q.clone());
                let x_pos = ((x % &qb) + &qb) % &qb;
                let found = (0..c.len()).any(|u| {
                    let want = ((&x_pos + &qb * u) % &qm + &qm) % &qm;
                    want.to_u64().unwrap() == out[j * n + k]
                });
                assert!(found, "approximate conversion is x + uQ, 0 <= u < l");
            }
        }
    }
}

/// The conversion as first written (unblocked, strided, u128 accumulation): the
/// reference every faster path must match bit for bit.
fn reference_convert(
    conv: &BaseConverter,
    exact: bool,
    input: &[u64],
    output: &mut [u64],
    n: usize,
) {
    let l = conv.from.len();
    let out_limbs = output.len() / n;
    let mut y = vec![0u64; l * n];
    let mut v = vec![0u64; n];
    for i in 0..l {
        let (q, w, ws) = (&conv.from[i], conv.q_hat_inv[i], conv.q_hat_inv_shoup[i]);
        for k in 0..n {
            y[i * n + k] = q.mul_shoup(input[i * n + k], w, ws);
        }
    }
    if exact {
        for (k, vk) in v.iter_mut().enumerate() {
            let mut a = 0f64;
            for i in 0..l {
                a += y[i * n + k] as f64 * conv.inv_q[i];
            }
            *vk = a.round() as u64;
        }
    }
    for j in 0..out_limbs {
        let p = &conv.to[j];
        for k in 0..n {
            let mut r = if exact {
                conv.neg_vq_mod_p[j * (l + 1) + v[k] as usize]
            } else {
                0
            };
            for i in 0..l {
                r = p.add(r, p.mul(y[i * n + k], conv.q_hat_mod_p[j * l + i]));
            }
            output[j * n + k] = r;
        }
    }
}

/// Random bases of mixed 50/60/61-bit primes (and a few small ones), random reduced
/// inputs: every conversion path agrees with [`reference_convert`].
/// Every prime below 2^50 (the AVX2 f64 sums), with more terms than one f64 sum holds,
/// next to outputs above 2^50 (the integer sums), on every instruction set.
#[test]
fn convert_with_primes_below_2_to_50_matches_reference() {
    use rand_chacha::rand_core::RngCore;
    let mut rng = ChaCha8Rng::seed_from_u64(50);
    let mut g = PrimeGenerator::new(1 << 10).unwrap();
    for (from_bits, to_bits) in [
        (vec![49u32; 9], vec![50u32, 50, 36, 61, 50, 60, 50]),
        (vec![36, 50, 50], vec![50, 50]),
        (vec![50; 20], vec![49, 61, 50]),
    ] {
        let from: Vec<u64> = from_bits
            .iter()
            .map(|&b| g.next_prime(b).unwrap())
            .collect();
        let to: Vec<u64> = to_bits.iter().map(|&b| g.next_prime(b).unwrap()).collect();
        let (c, b) = (RnsBasis::new(&from).unwrap(), RnsBasis::new(&to).unwrap());
        let conv = BaseConverter::new(&c, &b);
        for n in [1usize, 13, 1024] {
            let input: Vec<u64> = from
                .iter()
                .flat_map(|&q| {
                    let mut v: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
                    v[n - 1] = q - 1;
                    v
                })
                .collect();
            for exact in [true, false] {
                let mut want = vec![0u64; to.len() * n];
                reference_convert(&conv, exact, &input, &mut want, n);
                let mut scratch = vec![0u64; (from.len() + 1) * n];
                for isa in Isa::ALL {
                    let mut got = vec![0u64; to.len() * n];
                    conv.convert_using(isa, exact, &input, &mut got, n, &mut scratch);
                    assert_eq!(got, want, "{from_bits:?} -> {to_bits:?}, n = {n}, {isa:?}");
                }
            }
        }
    }
}

/// The portable path's Montgomery sums ([`BaseConverter`]'s `MontTables`) and the bases
/// they do not take: even targets (BFV's `t = 2`, a power of two), and inputs whose primes
/// sum past `2^64` (Barrett instead), each against [`reference_convert`] on every
/// instruction set.
#[test]
fn convert_with_even_targets_and_wide_sums_matches_reference() {
    use rand_chacha::rand_core::RngCore;
    let mut rng = ChaCha8Rng::seed_from_u64(64);
    let mut g = PrimeGenerator::new(1 << 10).unwrap();
    let p61: Vec<u64> = (0..9).map(|_| g.next_prime(61).unwrap()).collect();
    let p50: Vec<u64> = (0..4).map(|_| g.next_prime(50).unwrap()).collect();
    for (from, to) in [
        (p50.clone(), vec![2u64, p61[0]]),
        (p50.clone(), vec![1 << 16, 65537]),
        (p61[..8].to_vec(), vec![p61[8], p50[0]]), // Σ q_i > 2^64: Barrett
        (p61[..7].to_vec(), vec![p61[8], p50[0]]), // just below: Montgomery
    ] {
        let (c, b) = (RnsBasis::new(&from).unwrap(), RnsBasis::new(&to).unwrap());
        let conv = BaseConverter::new(&c, &b);
        let n = 64;
        let input: Vec<u64> = from
            .iter()
            .flat_map(|&q| {
                let mut v: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
                v[0] = q - 1;
                v[1] = 0;
                v
            })
            .collect();
        for exact in [true, false] {
            let mut want = vec![0u64; to.len() * n];
            reference_convert(&conv, exact, &input, &mut want, n);
            let mut scratch = vec![0u64; (from.len() + 1) * n];
            for isa in Isa::ALL {
                let mut got = vec![0u64; to.len() * n];
                conv.convert_using(isa, exact, &input, &mut got, n, &mut scratch);
                assert_eq!(got, want, "{from:?} -> {to:?}, {isa:?}");
            }
        }
    }
}

#[test]
fn convert_matches_reference_on_many_shapes() {
    use rand_chacha::rand_core::RngCore;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut g = PrimeGenerator::new(1 << 12).unwrap();
    let sizes = [50u32, 50, 50, 60, 61, 49, 36, 51];
    // Primes below 2^50 only: the SIMD paths' exact `f64` sums (reduced every few terms).
    let small = [50u32, 49, 36, 45, 50, 50, 40, 48];
    // (from, to, n, only primes below 2^50); 70 input limbs exceed one lazy sum of 61-bit
    // products, and 7 to 20 small ones cross the `f64` sums' reductions.
    let mut shapes = vec![
        (1usize, 1usize, 16usize, false),
        (3, 60, 64, false),
        (20, 7, 4096, false),
        (70, 3, 24, false),
        (6, 22, 100, false),
        (5, 9, 1, false),
        (20, 7, 4096, true),
        (9, 30, 64, true),
        (7, 5, 100, true),
        (8, 3, 36, true),
        (70, 3, 24, true),
    ];
    for _ in 0..14 {
        let from = 1 + (rng.next_u32() % 20) as usize;
        let to = 1 + (rng.next_u32() % 60) as usize;
        let n = 16usize << (rng.next_u32() % 9);
        shapes.push((from, to, n, false));
    }
    for (from, to, n, only_small) in shapes {
        let mut pick = |count: usize| -> Vec<u64> {
            let sizes = if only_small { small } else { sizes };
            (0..count)
                .map(|_| g.next_prime(sizes[(rng.next_u32() % 8) as usize]).unwrap())
                .collect()
        };
        let c = RnsBasis::new(&pick(from)).unwrap();
        let b = RnsBasis::new(&pick(to)).unwrap();
        let conv = BaseConverter::new(&c, &b);
        let input: Vec<u64> = c
            .moduli()
            .iter()
            .flat_map(|m| {
                let q = m.value();
                let mut v: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
                v[0] = 0;
                v[n - 1] = q - 1;
                v
            })
            .collect();
        let outs = 1 + (rng.next_u32() as usize % to);
        for exact in [true, false] {
            let mut want = vec![0u64; outs * n];
            reference_convert(&conv, exact, &input, &mut want, n);
            let mut scratch = vec![0u64; (from + 1) * n];
            for isa in Isa::ALL {
                let mut got = vec![0u64; outs * n];
                conv.convert_using(isa, exact, &input, &mut got, n, &mut scratch);
                assert_eq!(
                    got, want,
                    "{from} -> {outs}/{to} limbs, n = {n}, exact {exact}, {isa:?}"
                );
            }
            let mut got = vec![0u64; outs * n];
            if exact {
                conv.convert(&input, &mut got, n, &mut scratch);
            } else {
                conv.convert_approx(&input, &mut got, n, &mut scratch);
            }
            assert_eq!(
                got, want,
                "{from} -> {outs}/{to} limbs, n = {n}, exact {exact}"
            );
        }
    }
}

/// The Montgomery-reduced sums of the 64-bit SIMD lanes at their bound
/// ([`MONT_TERMS`](crate::math::kernels::MONT_TERMS) products, `v` included): the largest
/// 61-bit primes, inputs making every `y_i = q_i - 1` (the largest sum) and random ones,
/// on every instruction set against [`reference_convert`]; one more input limb (the
/// Barrett path) agrees too.
#[test]
fn montgomery_sums_at_their_bound_match_reference() {
    use crate::math::kernels::MONT_TERMS;
    use rand_chacha::rand_core::RngCore;
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let n = 64;
    for (from, exact) in [
        (MONT_TERMS - 1, true),
        (MONT_TERMS, false),
        (MONT_TERMS, true),
        (MONT_TERMS + 1, false),
    ] {
        let mut g = PrimeGenerator::new(1 << 10).unwrap();
        let c: Vec<u64> = (0..from).map(|_| g.next_prime(61).unwrap()).collect();
        let b: Vec<u64> = (0..5).map(|_| g.next_prime(61).unwrap()).collect();
        let (c, b) = (RnsBasis::new(&c).unwrap(), RnsBasis::new(&b).unwrap());
        let conv = BaseConverter::new(&c, &b);
        let input: Vec<u64> = c
            .moduli()
            .iter()
            .zip(&conv.q_hat_inv)
            .flat_map(|(q, &w)| {
                // y = x (Q/q_i)^-1 = q - 1 for x = -(Q/q_i) mod q_i.
                let worst = q.neg(q.inv(w).unwrap());
                let random: Vec<u64> = (0..n / 2).map(|_| rng.next_u64() % q.value()).collect();
                std::iter::repeat_n(worst, n / 2).chain(random)
            })
            .collect();
        let mut want = vec![0u64; b.len() * n];
        reference_convert(&conv, exact, &input, &mut want, n);
        let mut scratch = vec![0u64; (from + 1) * n];
        for isa in Isa::ALL {
            let mut got = vec![0u64; b.len() * n];
            conv.convert_using(isa, exact, &input, &mut got, n, &mut scratch);
            assert_eq!(got, want, "{from} limbs, exact {exact}, {isa:?}");
        }
    }
}

#[test]
fn mod_up_then_mod_down_is_rounded_division() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let n = 64;
    let (c, b) = bases(&[60, 50, 50, 50, 50], &[61, 61]);
    let ext = BasisExtender::new(&c, &b);
    let (qc, pb) = (product(&c), product(&b));
    let qp = &qc * &pb;
    // x over C ∪ B, centered mod QP.
    let xs = random_centered(&qp, n, &mut rng);
    let mut x_c = residues(&xs, &c);
    let x_b = residues(&xs, &b);
    let mut scratch = vec![0u64; (b.len() + c.len() + 1) * n];
    ext.mod_down(&mut x_c, &x_b, n, &mut scratch);
    let p = BigInt::from(pb.clone());
    let want: Vec<BigInt> = xs
        .iter()
        .map(|x| {
            // round(x / P) with the centered remainder, as the algebra says.
            let r = ((x % &p) + &p) % &p;
            let r = if r > &p / 2 { r - &p } else { r };
            (x - r) / &p
        })
        .collect();
    assert_eq!(x_c, residues(&want, &c));
    // ModDown onto a prefix of C.
    let mut x_c2 = residues(&xs, &c)[..2 * n].to_vec();
    ext.mod_down(&mut x_c2, &x_b, n, &mut scratch);
    assert_eq!(x_c2, residues(&want, &c)[..2 * n].to_vec());
    // ModUp of a centered value over C.
    let small = random_centered(&qc, n, &mut rng);
    let mut up = vec![0u64; b.len() * n];
    ext.mod_up(&residues(&small, &c), &mut up, n, &mut scratch);
    assert_eq!(up, residues(&small, &b));
}

#[test]
fn crt_reconstruction_matches_bigint() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let n = 64;
    let (c, _) = bases(
        &[
            60, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50,
        ],
        &[],
    );
    let crt = CrtReconstructor::new(&c);
    for limbs in [1usize, 2, 3, 8, 22] {
        let sub = c.slice(0..limbs);
        let q = product(&sub);
        let mut xs = random_centered(&q, n - 6, &mut rng);
        // Small values, as CKKS decoding sees them.
        xs.extend([3i64, -3, 1 << 40, -(1 << 40), 123_456_789_012, -7].map(BigInt::from));
        let res = residues(&xs, &sub);
        let mut digits = vec![0u64; res.len()];
        let mut out = vec![0.0; n];
        crt.centered_f64(&res, &mut digits, n, &mut out);
        for (x, &o) in xs.iter().zip(&out) {
            let want = x.to_f64().unwrap();
            if want.is_infinite() {
                assert_eq!(o, want, "values beyond f64 range saturate");
                continue;
            }
            let tol = want.abs() * 1e-14;
            assert!((o - want).abs() <= tol, "limbs {limbs}: {o} vs {want}");
        }
    }
}

/// `log2 |v|` of the centered values for chains far beyond `f64` (30 primes of 60 bits:
/// `Q ~ 2^1800`), against big integers: values near `±Q/2`, around `2^1024`, small ones
/// and zero; `centered_f64` agrees where the values fit.
#[test]
fn crt_log2_magnitudes_match_bigint_beyond_f64() {
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    let n = 64;
    let (c, _) = bases(&[60; 30], &[]);
    let crt = CrtReconstructor::new(&c);
    for limbs in [2usize, 3, 17, 30] {
        let sub = c.slice(0..limbs);
        let q = BigInt::from(product(&sub));
        let mut xs = random_centered(&product(&sub), n - 10, &mut rng);
        let half: BigInt = &q / BigInt::from(2);
        xs.extend([
            half.clone(),
            -half.clone(),
            &half - 1,
            BigInt::from(1) << 1023usize,
            -(BigInt::from(1) << 1030usize),
            BigInt::from(3),
            BigInt::from(-1),
            BigInt::from(1u64 << 62),
            BigInt::from(0),
            (BigInt::from(1) << 1500usize) + 12345,
        ]);
        let xs: Vec<BigInt> = xs.into_iter().map(|x| x % &q).collect();
        let res = residues(&xs, &sub);
        let mut digits = vec![0u64; res.len()];
        let (mut logs, mut vals) = (vec![0.0; n], vec![0.0; n]);
        crt.centered_log2_abs(&res, &mut digits, n, &mut logs);
        crt.centered_f64(&res, &mut digits, n, &mut vals);
        for ((x, &l), &v) in xs.iter().zip(&logs).zip(&vals) {
            // The centered representative of x mod Q.
            let x = if x * 2 > q {
                x - &q
            } else if x * 2 < -&q {
                x + &q
            } else {
                x.clone()
            };
            if x.is_zero() {
                assert_eq!(l, f64::NEG_INFINITY);
                continue;
            }
            let bits = x.bits();
            // log2|x| from its top 64 bits.
            let top = (x.magnitude() >> bits.saturating_sub(64) as usize)
                .to_f64()
                .unwrap();
            let want = top.log2() + bits.saturating_sub(64) as f64;
            assert!((l - want).abs() < 1e-9, "limbs {limbs}: {l} vs {want}");
            let f = x.to_f64().unwrap();
            if f.is_finite() {
                assert!(
                    (v - f).abs() <= f.abs() * 1e-13,
                    "limbs {limbs}: {v} vs {f}"
                );
            } else {
                assert!(v.is_infinite() && v.signum() == f.signum());
            }
        }
    }
}

#[cfg(feature = "parallel")]
#[test]
fn parallel_split_over_output_limbs_gives_the_same_words() {
    let n = 1 << 13;
    let mut g = PrimeGenerator::new(n).unwrap();
    let from: Vec<u64> = (0..11)
        .map(|i| g.next_prime(if i == 0 { 60 } else { 50 }).unwrap())
        .collect();
    let to: Vec<u64> = (0..31)
        .map(|i| g.next_prime(if i < 10 { 61 } else { 50 }).unwrap())
        .collect();
    let (c, b) = (RnsBasis::new(&from).unwrap(), RnsBasis::new(&to).unwrap());
    let conv = BaseConverter::new(&c, &b);
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let input: Vec<u64> = c
        .moduli()
        .iter()
        .flat_map(|m| {
            (0..n)
                .map(|_| rand::Rng::gen_range(&mut rng, 0..m.value()))
                .collect::<Vec<_>>()
        })
        .collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut out = vec![0u64; b.len() * n];
        let mut scratch = vec![0u64; (c.len() + 1) * n];
        pool.install(|| conv.convert(&input, &mut out, n, &mut scratch));
        out
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
    assert_eq!(one, run(8));
}

/// The one-prime exact conversion (a hybrid digit of one prime) is the centered lift: on
/// its fast path (every target above `q / 2`) exactly, at the edges `x = (q - 1) / 2`
/// and `(q + 1) / 2` too; on the generic one (a target below it) away from them.
#[test]
fn single_prime_conversion_is_the_centered_lift() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let n = 1 << 10;
    for (from_bits, to_bits) in [
        (60u32, vec![60u32, 61, 60]),
        (50, vec![50, 61, 50]),
        (55, vec![60, 40]), // 40 < 55 - 1: the generic path
    ] {
        let (c, b) = bases(&[from_bits], &to_bits);
        let q = c.moduli()[0].value();
        let mut xs: Vec<BigInt> = (0..n - 4)
            .map(|_| BigInt::from(rng.gen_biguint_below(&BigUint::from(q))))
            .collect();
        // The edges: exact on the fast path; the generic one has its floating-point blind
        // spot within about 2^-53 q of q / 2 (see `BaseConverter::convert`).
        let fast = b.moduli().iter().all(|p| q < 2 * p.value());
        assert_eq!(fast, from_bits != 55, "the cases cover both paths");
        let edges = if fast {
            [0, q / 2, q / 2 + 1, q - 1]
        } else {
            [0, 1, 2, q - 1]
        };
        xs.extend(edges.map(BigInt::from));
        let half = BigInt::from(q / 2);
        let centered: Vec<BigInt> = xs
            .iter()
            .map(|x| {
                if x > &half {
                    x - BigInt::from(q)
                } else {
                    x.clone()
                }
            })
            .collect();
        let input = residues(&xs, &c);
        let conv = BaseConverter::new(&c, &b);
        let mut out = vec![0u64; b.len() * n];
        let mut scratch = vec![0u64; 2 * n];
        conv.convert(&input, &mut out, n, &mut scratch);
        assert_eq!(
            out,
            residues(&centered, &b),
            "from {from_bits} bits to {to_bits:?}"
        );
        // A range of targets (the hybrid ModUp writes three).
        let mut part = vec![0u64; n];
        conv.convert_range(&input, &mut part, 1, n, &mut scratch);
        assert_eq!(part, out[n..2 * n]);
    }
}
