//! The NTT against evaluation, the oracle product and the scalar path, on every backend
//! this CPU runs.

use super::*;
use crate::math::primes::PrimeGenerator;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn forward_matches_evaluation_at_odd_powers_in_bit_reversed_order() {
    let n = 16;
    let q = PrimeGenerator::new(n).unwrap().next_prime(30).unwrap();
    let plan = NttPlan::new(n, q).unwrap();
    let m = plan.modulus;
    let a: Vec<u64> = (0..n as u64).map(|i| (i * 7919 + 3) % q).collect();
    let mut f = a.clone();
    plan.forward(&mut f);
    for (i, &fi) in f.iter().enumerate() {
        let x = m.pow(plan.psi(), 2 * bit_reverse(i, plan.log_n()) as u64 + 1);
        let eval = a.iter().rev().fold(0, |acc, &c| m.add(m.mul(acc, x), c));
        assert_eq!(fi, eval, "slot {i}");
    }
}

#[test]
fn roundtrip_and_convolution_for_all_sizes() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for log_n in 1..=17u32 {
        let n = 1usize << log_n;
        for bits in [20u32, 36, 50, 60, 61] {
            if 2 * n as u64 >= 1 << (bits - 1) {
                continue;
            }
            let q = PrimeGenerator::new(n).unwrap().next_prime(bits).unwrap();
            let plan = NttPlan::new(n, q).unwrap();
            let a: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
            let mut f = a.clone();
            plan.forward(&mut f);
            assert!(f.iter().all(|&x| x < q));
            plan.inverse(&mut f);
            assert_eq!(f, a, "roundtrip n={n} bits={bits}");
            if n <= 64 {
                let b: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
                let (mut fa, mut fb) = (a.clone(), b.clone());
                plan.forward(&mut fa);
                plan.forward(&mut fb);
                let mut c: Vec<u64> = fa
                    .iter()
                    .zip(&fb)
                    .map(|(&x, &y)| plan.modulus.mul(x, y))
                    .collect();
                plan.inverse(&mut c);
                assert_eq!(
                    c,
                    crate::math::negacyclic_oracle(&a, &b, plan.modulus.value())
                );
            }
        }
    }
}

#[test]
fn lazy_variants_stay_in_range_and_agree() {
    let n = 1 << 12;
    let q = PrimeGenerator::new(n).unwrap().next_prime(61).unwrap();
    let plan = NttPlan::new(n, q).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    // Lazy inputs in [0, 2q).
    let a: Vec<u64> = (0..n).map(|_| rng.next_u64() % (2 * q)).collect();
    let mut lazy = a.clone();
    plan.forward_lazy(&mut lazy);
    assert!(lazy.iter().all(|&x| x < 2 * q));
    let mut reduced: Vec<u64> = a.iter().map(|&x| x % q).collect();
    plan.forward(&mut reduced);
    assert!(lazy.iter().zip(&reduced).all(|(&x, &y)| x % q == y));
    plan.inverse_lazy(&mut lazy);
    assert!(lazy.iter().all(|&x| x < 2 * q));
    assert!(lazy.iter().zip(&a).all(|(&x, &y)| x % q == y % q));
}

/// The SIMD backends this CPU runs for the plan's modulus (empty without AVX2, or
/// under `HEKATE_SIMD=scalar`).
fn simd_backends(plan: &NttPlan) -> Vec<NttBackend> {
    NttBackend::ALL
        .into_iter()
        .filter(|&b| b != NttBackend::Scalar && b.supports(plan.modulus()))
        .collect()
}

/// Checks every SIMD backend against the scalar path on random and extreme inputs.
fn check_backends_against_scalar(plan: &NttPlan, rng: &mut ChaCha8Rng) {
    let (n, q) = (plan.n(), plan.modulus().value());
    let mut scalar = plan.clone();
    scalar.set_backend(NttBackend::Scalar).unwrap();
    let random: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
    let random_lazy: Vec<u64> = (0..n).map(|_| rng.next_u64() % (2 * q)).collect();
    let inputs = [
        (random.clone(), random_lazy),
        // Extremes stress the lazy bounds.
        (vec![q - 1; n], vec![2 * q - 1; n]),
    ];
    for backend in simd_backends(plan) {
        let mut simd = plan.clone();
        simd.set_backend(backend).unwrap();
        assert_eq!(simd.backend(), backend);
        let ctx = format!("{backend:?} n={n} q={q}");
        for (reduced, lazy) in &inputs {
            // Reduced forward / inverse: bit-identical, and a roundtrip.
            let (mut s, mut v) = (reduced.clone(), reduced.clone());
            scalar.forward(&mut s);
            simd.forward(&mut v);
            assert_eq!(v, s, "forward {ctx}");
            simd.inverse(&mut v);
            assert_eq!(&v, reduced, "roundtrip {ctx}");
            let mut s2 = s.clone();
            scalar.inverse(&mut s2);
            assert_eq!(&s2, reduced, "scalar roundtrip {ctx}");
            // Inverse on arbitrary reduced evaluations.
            let (mut s, mut v) = (reduced.clone(), reduced.clone());
            scalar.inverse(&mut s);
            simd.inverse(&mut v);
            assert_eq!(v, s, "inverse {ctx}");
            // Lazy variants: in [0, 2q), congruent to the scalar results.
            let (mut s, mut v) = (lazy.clone(), lazy.clone());
            scalar.forward_lazy(&mut s);
            simd.forward_lazy(&mut v);
            assert!(v.iter().all(|&x| x < 2 * q), "forward_lazy range {ctx}");
            if backend == NttBackend::Avx512 || (backend == NttBackend::Avx2 && q >= F64_MAX_Q) {
                // Same Shoup arithmetic as the scalar path: bit-identical.
                assert_eq!(v, s, "forward_lazy {ctx}");
            } else {
                assert!(
                    v.iter().zip(&s).all(|(x, y)| x % q == y % q),
                    "fwd_lazy {ctx}"
                );
            }
            let (mut s, mut v) = (lazy.clone(), lazy.clone());
            scalar.inverse_lazy(&mut s);
            simd.inverse_lazy(&mut v);
            assert!(v.iter().all(|&x| x < 2 * q), "inverse_lazy range {ctx}");
            assert!(
                v.iter().zip(&s).all(|(x, y)| x % q == y % q),
                "inv_lazy {ctx}"
            );
            // Lazy roundtrip.
            simd.forward_lazy(&mut v);
            assert!(
                v.iter().zip(lazy).all(|(x, y)| x % q == y % q),
                "lazy rt {ctx}"
            );
        }
    }
}

/// The AVX2 integer arithmetic where the plan runs the `f64` one (`q < 2^50`): called
/// directly, against the scalar path.
#[cfg(target_arch = "x86_64")]
fn check_avx2_integer_lanes(plan: &NttPlan, rng: &mut ChaCha8Rng) {
    let (n, q) = (plan.n(), plan.modulus().value());
    if !NttBackend::Avx2.supports(plan.modulus()) || n < NttPlan::MIN_SIMD_N {
        return;
    }
    let mut scalar = plan.clone();
    scalar.set_backend(NttBackend::Scalar).unwrap();
    let last = plan.inv_last_64();
    let ctx = format!("integer AVX2 n={n} q={q}");
    for (reduced, lazy) in [
        (
            (0..n).map(|_| rng.next_u64() % q).collect::<Vec<_>>(),
            (0..n).map(|_| rng.next_u64() % (2 * q)).collect::<Vec<_>>(),
        ),
        (vec![q - 1; n], vec![2 * q - 1; n]),
    ] {
        let (mut s, mut v) = (reduced.clone(), reduced.clone());
        scalar.forward(&mut s);
        // SAFETY: AVX2 and FMA are present (`supports`), n >= 16, q < 2^62, the
        // tables are the plan's.
        unsafe { avx2::forward_reduced(&mut v, q, &plan.fwd, &plan.fwd_shoup) };
        assert_eq!(v, s, "forward {ctx}");
        let (mut s, mut v) = (reduced.clone(), reduced.clone());
        scalar.inverse(&mut s);
        // SAFETY: as above.
        unsafe { avx2::inverse_reduced(&mut v, q, &plan.inv, &plan.inv_shoup, &last) };
        assert_eq!(v, s, "inverse {ctx}");
        let (mut s, mut v) = (lazy.clone(), lazy.clone());
        scalar.forward_lazy(&mut s);
        // SAFETY: as above.
        unsafe { avx2::forward_lazy(&mut v, q, &plan.fwd, &plan.fwd_shoup) };
        assert_eq!(v, s, "forward_lazy {ctx}");
        let (mut s, mut v) = (lazy.clone(), lazy.clone());
        scalar.inverse_lazy(&mut s);
        // SAFETY: as above.
        unsafe { avx2::inverse_lazy(&mut v, q, &plan.inv, &plan.inv_shoup, &last) };
        assert!(v.iter().all(|&x| x < 2 * q), "inverse_lazy range {ctx}");
        assert!(
            v.iter().zip(&s).all(|(x, y)| x % q == y % q),
            "inv_lazy {ctx}"
        );
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn avx2_integer_lanes_match_scalar_below_2_to_50() {
    let mut rng = ChaCha8Rng::seed_from_u64(2050);
    for log_n in 4..=13u32 {
        let n = 1usize << log_n;
        for bits in [30u32, 36, 49, 50] {
            let q = PrimeGenerator::new(n).unwrap().next_prime(bits).unwrap();
            check_avx2_integer_lanes(&NttPlan::new(n, q).unwrap(), &mut rng);
        }
    }
}

#[test]
fn simd_backends_match_scalar_for_all_sizes_and_prime_sizes() {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    for log_n in 1..=17u32 {
        let n = 1usize << log_n;
        for bits in [20u32, 30, 36, 40, 45, 49, 50, 51, 55, 60, 61] {
            if 2 * n as u64 >= 1 << (bits - 1) {
                continue;
            }
            // The largest `bits`-bit prime = 1 mod 2N: for 50 bits, the IFMA edge.
            let q = PrimeGenerator::new(n).unwrap().next_prime(bits).unwrap();
            check_backends_against_scalar(&NttPlan::new(n, q).unwrap(), &mut rng);
        }
    }
}

/// The plan's largest primes (62 bits, beyond `PrimeGenerator`'s range): the lazy
/// values reach `4q`, close to `2^64`.
#[test]
fn simd_backends_with_62_bit_primes() {
    let mut rng = ChaCha8Rng::seed_from_u64(62);
    for log_n in [4u32, 5, 6, 9, 12, 13, 16] {
        let n = 1u64 << log_n;
        let mut q = (1u64 << 62) - 2 * n + 1;
        while !is_prime(q) {
            q -= 2 * n;
        }
        check_backends_against_scalar(&NttPlan::new(n as usize, q).unwrap(), &mut rng);
    }
}

#[test]
fn simd_backends_at_the_ifma_edge() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    // Several of the largest primes below 2^50, and the smallest above, at N = 2^16.
    let n = 1 << 16;
    let mut gen = PrimeGenerator::new(n).unwrap();
    for q in gen.primes(50, 3).unwrap() {
        assert!(q < IFMA_MAX_Q);
        let plan = NttPlan::new(n, q).unwrap();
        if Isa::detect() == Isa::Avx512Ifma {
            assert_eq!(plan.backend(), NttBackend::Avx512Ifma);
        }
        check_backends_against_scalar(&plan, &mut rng);
    }
    let mut q = IFMA_MAX_Q + 1;
    while !is_prime(q) {
        q += 2 * n as u64;
    }
    let plan = NttPlan::new(n, q).unwrap();
    assert!(!NttBackend::Avx512Ifma.supports(plan.modulus()));
    check_backends_against_scalar(&plan, &mut rng);
    // The prime tfhe-ntt 0.7.1 mis-transforms on IFMA CPUs, at every size it allows.
    let p = 1_671_981_167_411_201u64;
    for log_n in [4u32, 10, 16] {
        check_backends_against_scalar(&NttPlan::new(1 << log_n, p).unwrap(), &mut rng);
    }
}

#[test]
fn backend_selection() {
    for bits in [30u32, 49, 50, 51, 61] {
        let q = PrimeGenerator::new(1024).unwrap().next_prime(bits).unwrap();
        let mut plan = NttPlan::new(1024, q).unwrap();
        let expected = NttBackend::detect(plan.modulus());
        assert_eq!(plan.backend(), expected);
        let want = match Isa::detect() {
            Isa::Avx512Ifma if q < IFMA_MAX_Q => NttBackend::Avx512Ifma,
            Isa::Avx512Ifma | Isa::Avx512 => NttBackend::Avx512,
            Isa::Avx2 => NttBackend::Avx2,
            Isa::Scalar => NttBackend::Scalar,
        };
        assert_eq!(expected, want);
        for b in NttBackend::ALL {
            assert_eq!(
                plan.clone().set_backend(b).is_ok(),
                b.isa() <= Isa::detect() && (b != NttBackend::Avx512Ifma || q < IFMA_MAX_Q),
                "{b:?}"
            );
        }
        if q >= IFMA_MAX_Q {
            assert!(plan.set_backend(NttBackend::Avx512Ifma).is_err());
        }
        plan.set_backend(NttBackend::Scalar).unwrap();
        assert_eq!(plan.backend(), NttBackend::Scalar);
    }
}

#[test]
fn rejects_bad_sizes_moduli_and_roots() {
    assert!(NttPlan::new(3, 97).is_err());
    assert!(NttPlan::new(1 << 18, (1 << 40) + 1).is_err());
    assert!(NttPlan::new(16, 113).is_err()); // 113 != 1 mod 32
    assert!(NttPlan::new(16, 1 + 32 * 5).is_err()); // not prime
    let q = PrimeGenerator::new(16).unwrap().next_prime(30).unwrap();
    assert!(NttPlan::with_root(16, q, 1).is_err());
    // The 1671981167411201 prime at N = 2^16 (mis-transformed by tfhe-ntt on IFMA CPUs).
    let p = 1_671_981_167_411_201u64;
    let plan = NttPlan::new(1 << 16, p).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let a: Vec<u64> = (0..1 << 16).map(|_| rng.next_u64() % p).collect();
    let mut f = a.clone();
    plan.forward(&mut f);
    plan.inverse(&mut f);
    assert_eq!(f, a);
}

/// [`shoup_mul_wide_loose`](crate::math::simd::shoup_mul_wide_loose), the product of the
/// reduced AVX-512 transforms for `q < 2^61`: against 128-bit arithmetic, every lane
/// congruent to `y w` and below `4q`, on the extremes (`y = 2^64 - 1`, `w = q - 1`) and
/// random lanes of the largest 61-bit primes; and the quotient's shortfall does occur
/// (some results reach `[2q, 4q)`), so the transforms' doubled bounds are needed.
#[cfg(target_arch = "x86_64")]
#[test]
fn loose_shoup_product_is_congruent_and_below_4q() {
    use crate::math::modulus::Modulus;
    if !(std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq")) {
        eprintln!("skipped: no AVX-512F/DQ on this CPU");
        return;
    }
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn lanes(y: &[u64; 8], w: &[u64; 8], ws: &[u64; 8], q: u64) -> [u64; 8] {
        use core::arch::x86_64::*;
        let ld = |p: &[u64; 8]| _mm512_loadu_si512(p.as_ptr() as *const _);
        let r = crate::math::simd::shoup_mul_wide_loose(
            ld(y),
            ld(w),
            ld(ws),
            _mm512_set1_epi64(q as i64),
        );
        let mut out = [0u64; 8];
        _mm512_storeu_si512(out.as_mut_ptr() as *mut _, r);
        out
    }
    let mut rng = ChaCha8Rng::seed_from_u64(61);
    let mut above_2q = 0;
    for q in PrimeGenerator::new(1 << 16).unwrap().primes(61, 3).unwrap() {
        let m = Modulus::new(q);
        for round in 0..4000 {
            let (mut y, mut w) = ([0u64; 8], [0u64; 8]);
            for k in 0..8 {
                (y[k], w[k]) = match round {
                    0 => (u64::MAX, q - 1),
                    1 => (8 * q - 1, q - 1),
                    _ => (rng.next_u64(), rng.next_u64() % q),
                };
            }
            let ws = w.map(|w| m.shoup(w));
            // SAFETY: AVX-512F/DQ are present (checked above).
            let r = unsafe { lanes(&y, &w, &ws, q) };
            for k in 0..8 {
                let want = (y[k] as u128 * w[k] as u128 % q as u128) as u64;
                assert!(r[k] < 4 * q, "y={} w={} q={q}: {} >= 4q", y[k], w[k], r[k]);
                assert_eq!(r[k] % q, want, "y={} w={} q={q}", y[k], w[k]);
                above_2q += (r[k] >= 2 * q) as usize;
            }
        }
    }
    assert!(above_2q > 0, "the quotient's shortfall never showed");
}
