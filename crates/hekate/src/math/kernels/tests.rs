//! Every SIMD kernel against the scalar reference, on random and edge inputs.

use super::*;
use crate::math::primes::PrimeGenerator;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Primes of the sizes the SIMD reductions distinguish, plus odd edge moduli.
fn moduli() -> Vec<u64> {
    let mut g = PrimeGenerator::new(1 << 10).unwrap();
    let mut qs: Vec<u64> = [20u32, 36, 49, 50, 51, 60, 61]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    // The largest odd moduli below 2^50 and 2^61, and tiny ones.
    qs.extend([
        (1 << 50) - 1,
        (1 << 61) - 1,
        3,
        5,
        (1 << 49) + 1,
        (1 << 60) + 1,
    ]);
    qs
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const LENS: [usize; 14] = [0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1000, 1027];

/// Reduced random values with 0 and q - 1 sprinkled in (and runs of them).
fn values(len: usize, q: u64, rng: &mut ChaCha8Rng) -> Vec<u64> {
    (0..len)
        .map(|k| match rng.next_u32() % 8 {
            0 => 0,
            1 => q - 1,
            2 if k % 3 == 0 => q - 1,
            _ => rng.next_u64() % q,
        })
        .collect()
}

/// The SIMD arithmetics this CPU offers for `q` (AVX2 and the AVX-512 wide one for every
/// q they take, the IFMA one where it applies).
#[cfg(target_arch = "x86_64")]
fn simd_paths(q: u64) -> Vec<Lanes> {
    let mut v = Vec::new();
    if Isa::Avx2.lanes(q).is_some() {
        v.push(Lanes::Avx2);
    }
    if Isa::Avx512.lanes(q) == Some(Lanes::Wide) {
        v.push(Lanes::Wide);
    }
    if Isa::Avx512Ifma.lanes(q) == Some(Lanes::Ifma) {
        v.push(Lanes::Ifma);
    }
    v
}

#[cfg(not(target_arch = "x86_64"))]
#[allow(dead_code)]
fn simd_paths(_: u64) -> Vec<()> {
    Vec::new()
}

/// Runs the named entry point of `lanes`.
#[cfg(target_arch = "x86_64")]
macro_rules! simd {
    ($lanes:expr, $q:expr, $f:ident($($arg:expr),*)) => {{
        let c = LaneConsts::new($q);
        unsafe {
            match $lanes {
                Lanes::Avx2 => avx2::$f(&c, $($arg),*),
                Lanes::Wide => avx512::wide::$f(&c, $($arg),*),
                Lanes::Ifma => avx512::ifma::$f(&c, $($arg),*),
            }
        }
    }};
}

#[test]
fn isa_detection_is_stable() {
    assert_eq!(Isa::detect(), Isa::detect());
    assert_eq!(Isa::Scalar.lanes(12289), None);
    assert_eq!(
        Isa::detect().lanes(1 << 20),
        None,
        "even moduli stay scalar"
    );
    assert_eq!(Isa::detect().lanes((1 << 61) + 1), None);
    // The tests below cover every SIMD path this CPU runs.
    #[cfg(target_arch = "x86_64")]
    for q in moduli() {
        let paths = simd_paths(q);
        assert_eq!(paths.contains(&Lanes::Avx2), Isa::detect() >= Isa::Avx2);
        assert_eq!(paths.contains(&Lanes::Wide), Isa::detect() >= Isa::Avx512);
    }
}

#[test]
fn isa_names_parse_and_the_cap_is_fixed_once_read() {
    for isa in Isa::ALL {
        assert_eq!(Isa::parse(isa.name()).unwrap(), isa);
        assert_eq!(isa.name().to_uppercase().parse::<Isa>().unwrap(), isa);
        assert_eq!(isa.to_string(), isa.name());
    }
    assert!(Isa::parse("sse2").is_err());
    assert!(Isa::parse("").is_err());
    assert!(Isa::ALL.windows(2).all(|w| w[0] < w[1]));
    // `detect` fixes the cap: setting it afterwards is an error, and changes nothing.
    let isa = Isa::detect();
    assert!(isa <= Isa::cpu() && isa <= Isa::cap());
    assert!(Isa::set_cap(Isa::Scalar).is_err());
    assert_eq!(Isa::detect(), isa);
    assert!(Isa::Scalar.available() && isa.available());
}

/// `HEKATE_SIMD` caps both the kernels and the NTT: this test binary re-runs
/// [`cap_child`] under each cap.
#[test]
fn hekate_simd_caps_kernels_and_ntt() {
    let exe = std::env::current_exe().unwrap();
    for cap in Isa::ALL {
        let out = std::process::Command::new(&exe)
            .args(["--exact", "math::kernels::tests::cap_child", "--ignored"])
            .env("HEKATE_SIMD", cap.name())
            .env("HEKATE_EXPECT_ISA", Isa::cpu().min(cap).name())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "cap {cap}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Run by [`hekate_simd_caps_kernels_and_ntt`] in a child process.
#[test]
#[ignore = "run by hekate_simd_caps_kernels_and_ntt with HEKATE_SIMD set"]
fn cap_child() {
    use crate::math::{NttBackend, NttPlan};
    let Ok(want) = std::env::var("HEKATE_EXPECT_ISA") else {
        return;
    };
    let want = Isa::parse(&want).unwrap();
    assert_eq!(Isa::detect(), want);
    let q = PrimeGenerator::new(1 << 10)
        .unwrap()
        .next_prime(60)
        .unwrap();
    let plan = NttPlan::new(1 << 10, q).unwrap();
    assert!(plan.backend().isa() <= want);
    assert_eq!(plan.backend() == NttBackend::Scalar, want == Isa::Scalar);
    // The 60-bit prime is above the IFMA backend's 2^50: every other backend within the
    // cap serves it.
    for b in NttBackend::ALL {
        let fits = b != NttBackend::Avx512Ifma;
        assert_eq!(b.supports(plan.modulus()), b.isa() <= want && fits, "{b:?}");
    }
    match want {
        Isa::Scalar => assert_eq!(Isa::detect().lanes(q), None),
        Isa::Avx2 => assert_eq!(Isa::detect().lanes(q), Some(Lanes::Avx2)),
        _ => assert!(Isa::detect().lanes(q).is_some()),
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn elementwise_kernels_match_scalar() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    for q in moduli() {
        let m = Modulus::new(q);
        for len in LENS {
            let a = values(len, q, &mut rng);
            let b = values(len, q, &mut rng);
            let c = values(len, q, &mut rng);
            let w = rng.next_u64() % q;
            let ws = m.shoup(w);
            for lanes in simd_paths(q) {
                let ctx = format!("q = {q}, len = {len}, {lanes:?}");
                // Binary in-place kernels.
                type Bin = fn(&mut [u64], &[u64], &Modulus);
                let bins: [(&str, Bin); 4] = [
                    ("add", scalar::add_assign),
                    ("sub", scalar::sub_assign),
                    ("rsub", scalar::rsub_assign),
                    ("mul", scalar::mul_assign),
                ];
                for (name, f) in bins {
                    let mut want = a.clone();
                    f(&mut want, &b, &m);
                    let mut got = a.clone();
                    match name {
                        "add" => simd!(lanes, q, add_assign(&mut got, &b)),
                        "sub" => simd!(lanes, q, sub_assign(&mut got, &b)),
                        "rsub" => simd!(lanes, q, rsub_assign(&mut got, &b)),
                        _ => simd!(lanes, q, mul_assign(&mut got, &b)),
                    }
                    assert_eq!(got, want, "{name}: {ctx}");
                }
                let mut want = a.clone();
                scalar::neg_assign(&mut want, &m);
                let mut got = a.clone();
                simd!(lanes, q, neg_assign(&mut got));
                assert_eq!(got, want, "neg: {ctx}");

                let mut want = vec![0; len];
                scalar::mul(&a, &b, &mut want, &m);
                let mut got = vec![0; len];
                simd!(lanes, q, mul(&a, &b, &mut got));
                assert_eq!(got, want, "mul: {ctx}");

                let mut want = c.clone();
                scalar::mul_add_assign(&mut want, &a, &b, &m);
                let mut got = c.clone();
                simd!(lanes, q, mul_add_assign(&mut got, &a, &b));
                assert_eq!(got, want, "mul_add: {ctx}");

                for w in [w, 0, 1, q - 1] {
                    let ws = m.shoup(w);
                    let mut want = a.clone();
                    scalar::mul_scalar_assign(&mut want, w, &m);
                    let mut got = a.clone();
                    simd!(lanes, q, mul_scalar_assign(&mut got, w, ws));
                    assert_eq!(got, want, "mul_scalar w = {w}: {ctx}");

                    let mut want = a.clone();
                    scalar::sub_mul_scalar_assign(&mut want, &b, w, ws, &m);
                    let mut got = a.clone();
                    simd!(lanes, q, sub_mul_scalar_assign(&mut got, &b, w, ws));
                    assert_eq!(got, want, "sub_mul_scalar w = {w}: {ctx}");

                    let mut want = c.clone();
                    scalar::mul_scalar_add_assign(&mut want, &b, w, &m);
                    let mut got = c.clone();
                    simd!(lanes, q, mul_scalar_add_assign(&mut got, &b, w, ws));
                    assert_eq!(got, want, "mul_scalar_add w = {w}: {ctx}");
                }
                let _ = ws;
            }
            // The dispatching functions agree too.
            let mut want = a.clone();
            scalar::mul_add_assign(&mut want, &b, &c, &m);
            let mut got = a.clone();
            mul_add_assign(&mut got, &b, &c, &m);
            assert_eq!(got, want, "dispatched mul_add: q = {q}, len = {len}");
        }
    }
}

#[test]
fn dispatched_kernels_match_scalar() {
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    for q in moduli().into_iter().chain([12, 1 << 40]) {
        let m = Modulus::new(q);
        for len in [0usize, 5, 8, 33] {
            let a = values(len, q, &mut rng);
            let b = values(len, q, &mut rng);
            let w = rng.next_u64() % q;
            let (mut x, mut y) = (a.clone(), a.clone());
            add_assign(&mut x, &b, &m);
            scalar::add_assign(&mut y, &b, &m);
            sub_assign(&mut x, &b, &m);
            scalar::sub_assign(&mut y, &b, &m);
            rsub_assign(&mut x, &b, &m);
            scalar::rsub_assign(&mut y, &b, &m);
            neg_assign(&mut x, &m);
            scalar::neg_assign(&mut y, &m);
            mul_assign(&mut x, &b, &m);
            scalar::mul_assign(&mut y, &b, &m);
            mul_scalar_assign(&mut x, w, &m);
            scalar::mul_scalar_assign(&mut y, w, &m);
            sub_mul_scalar_assign(&mut x, &b, w, m.shoup(w), &m);
            scalar::sub_mul_scalar_assign(&mut y, &b, w, m.shoup(w), &m);
            mul_scalar_add_assign(&mut x, &b, w, &m);
            scalar::mul_scalar_add_assign(&mut y, &b, w, &m);
            let (mut o1, mut o2) = (vec![0; len], vec![0; len]);
            mul(&x, &b, &mut o1, &m);
            scalar::mul(&y, &b, &mut o2, &m);
            inner_product_add_assign(&mut x, &[&a, &b], &[&b, &o1], &m);
            scalar::inner_product_add_assign(&mut y, &[&a, &b], &[&b, &o2], &m);
            assert_eq!((x, o1), (y, o2), "q = {q}, len = {len}");
        }
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn inner_product_matches_scalar() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    for q in moduli() {
        let m = Modulus::new(q);
        for len in [1usize, 8, 13, 40, 64, 77] {
            let terms: Vec<(Vec<u64>, Vec<u64>)> = (0..63)
                .map(|_| (values(len, q, &mut rng), values(len, q, &mut rng)))
                .collect();
            // All-maximal operands: the largest sums the bounds allow.
            let top = vec![q - 1; len];
            for beta in (0..=63).filter(|b| *b <= 20 || b % 7 == 0 || *b == 63) {
                let a: Vec<&[u64]> = terms[..beta].iter().map(|t| &t.0[..]).collect();
                let b: Vec<&[u64]> = terms[..beta].iter().map(|t| &t.1[..]).collect();
                let tops: Vec<&[u64]> = vec![&top[..]; beta];
                let acc0 = values(len, q, &mut rng);
                for (a, b, init) in [(&a, &b, acc0.clone()), (&tops, &tops, top.clone())] {
                    let mut want = init.clone();
                    scalar::inner_product_add_assign(&mut want, a, b, &m);
                    for lanes in simd_paths(q) {
                        let mut got = init.clone();
                        simd!(lanes, q, inner_product_add_assign(&mut got, a, b));
                        assert_eq!(got, want, "q = {q}, len = {len}, beta = {beta}, {lanes:?}");
                    }
                    let mut got = init.clone();
                    inner_product_add_assign(&mut got, a, b, &m);
                    assert_eq!(got, want, "dispatched: q = {q}, len = {len}, beta = {beta}");
                    // The overwriting variant ignores (and never reads) the output's contents.
                    let mut fresh = vec![0u64; len];
                    scalar::inner_product(&mut fresh, a, b, &m);
                    let mut zero_init = vec![0u64; len];
                    scalar::inner_product_add_assign(&mut zero_init, a, b, &m);
                    assert_eq!(fresh, zero_init);
                    for lanes in simd_paths(q) {
                        let mut got = vec![u64::MAX; len];
                        simd!(lanes, q, inner_product(&mut got, a, b));
                        assert_eq!(got, fresh, "overwrite: q = {q}, len = {len}, beta = {beta}");
                    }
                    let mut got = vec![u64::MAX; len];
                    inner_product(&mut got, a, b, &m);
                    assert_eq!(got, fresh, "overwrite dispatched: q = {q}, beta = {beta}");
                }
            }
        }
    }
}

/// More terms than one lazy sum holds (the SIMD entry points accept any count): against
/// a sum of scalar inner products of at most 63 terms.
#[test]
#[cfg(target_arch = "x86_64")]
fn long_inner_products_reduce_in_chunks() {
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    for q in moduli() {
        let m = Modulus::new(q);
        let len = 19;
        let top = vec![q - 1; len];
        let ops: Vec<Vec<u64>> = (0..150).map(|_| values(len, q, &mut rng)).collect();
        for beta in [64usize, 100, 150] {
            for maximal in [false, true] {
                let a: Vec<&[u64]> = (0..beta)
                    .map(|j| if maximal { &top[..] } else { &ops[j][..] })
                    .collect();
                let b: Vec<&[u64]> = (0..beta)
                    .map(|j| {
                        if maximal {
                            &top[..]
                        } else {
                            &ops[(j * 7) % 150][..]
                        }
                    })
                    .collect();
                let mut want = top.clone();
                for (ca, cb) in a.chunks(63).zip(b.chunks(63)) {
                    scalar::inner_product_add_assign(&mut want, ca, cb, &m);
                }
                for lanes in simd_paths(q) {
                    let mut got = top.clone();
                    simd!(lanes, q, inner_product_add_assign(&mut got, &a, &b));
                    assert_eq!(got, want, "q = {q}, beta = {beta}, {lanes:?}");
                }
            }
        }
    }
}

/// The one-pass `add` / `sub` agree with the in-place scalar kernels, edges included.
#[test]
fn one_pass_add_and_sub_match_the_in_place_kernels() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    for q in moduli() {
        let m = Modulus::new(q);
        for len in [0usize, 1, 7, 64, 1027] {
            let mut a = values(len, q, &mut rng);
            let mut b = values(len, q, &mut rng);
            if len > 1 {
                (a[0], b[0], a[1], b[1]) = (q - 1, q - 1, 0, q - 1);
            }
            let mut out = vec![u64::MAX; len];
            add(&a, &b, &mut out, &m);
            let mut want = a.clone();
            scalar::add_assign(&mut want, &b, &m);
            assert_eq!(out, want, "add, q = {q}");
            sub(&a, &b, &mut out, &m);
            let mut want = a.clone();
            scalar::sub_assign(&mut want, &b, &m);
            assert_eq!(out, want, "sub, q = {q}");
        }
    }
}

/// `lift_centered`: the scalar code against the `i128` definition, and every SIMD path and
/// the dispatcher against the scalar code, for dropped moduli below, near and far above
/// `q` (words 0, `q_l / 2`, `q_l / 2 + 1`, `q_l - 1` among random ones).
#[test]
fn lift_centered_matches_its_definition_and_scalar() {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let mut g = PrimeGenerator::new(1 << 10).unwrap();
    let lasts: Vec<u64> = [20u32, 36, 40, 50, 51, 56, 60, 61]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .chain([(1 << 62) + 1, (1 << 63) - 25, u64::MAX - 58])
        .collect();
    for q in moduli() {
        let m = Modulus::new(q);
        for &q_last in &lasts {
            for len in [0usize, 1, 7, 8, 9, 33, 100] {
                let half = q_last >> 1;
                let x: Vec<u64> = (0..len)
                    .map(|k| match k % 6 {
                        0 => [0, half, half + 1, q_last - 1][(k / 6) % 4],
                        _ => rng.next_u64() % q_last,
                    })
                    .collect();
                let mut want = vec![0; len];
                scalar::lift_centered(&mut want, &x, q_last, &m);
                for (k, (&w, &xk)) in want.iter().zip(&x).enumerate() {
                    let c = xk as i128 - if xk > half { q_last as i128 } else { 0 };
                    let r = c.rem_euclid(q as i128) as u64;
                    assert_eq!(w, r, "scalar: q = {q}, q_l = {q_last}, k = {k}");
                }
                let mut got = vec![1; len];
                lift_centered(&mut got, &x, q_last, &m);
                assert_eq!(got, want, "dispatched: q = {q}, q_l = {q_last}");
                #[cfg(target_arch = "x86_64")]
                if q_last < 1 << 63 {
                    let ql_mod = m.reduce(q_last);
                    // The general reduction for every `q_l`, the one-subtraction one where
                    // its words are below `2q`.
                    for near in [false, true].into_iter().filter(|&n| !n || q_last <= 2 * q) {
                        for lanes in simd_paths(q) {
                            let mut got = vec![1; len];
                            simd!(lanes, q, lift_centered(&mut got, &x, half, ql_mod, near));
                            assert_eq!(
                                got, want,
                                "{lanes:?}: q = {q}, q_l = {q_last}, len {len}, near {near}"
                            );
                        }
                    }
                }
            }
        }
    }
}
