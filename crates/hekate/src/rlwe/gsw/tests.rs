use super::*;
use crate::math::negacyclic_oracle as negacyclic;
use crate::math::PrimeGenerator;
use crate::rlwe::SecretDistribution;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

const N: usize = 64;

fn ring() -> Arc<RingContext> {
    let q = PrimeGenerator::new(N).unwrap().next_prime(27).unwrap();
    RingContext::new(N, &[q], &[]).unwrap()
}

fn add_mod(a: &mut [u64], b: &[u64], q: u64) {
    a.iter_mut().zip(b).for_each(|(x, &y)| *x = (*x + y) % q);
}

fn coeff(ctx: &RingContext, p: &Poly) -> Vec<u64> {
    let mut p = p.clone();
    p.intt(ctx);
    p.data().to_vec()
}

fn centered(x: u64, q: u64) -> i64 {
    if x > q / 2 {
        x as i64 - q as i64
    } else {
        x as i64
    }
}

#[test]
fn decomposition_is_exact_and_small() {
    let q = ring().modulus(0, 1).value();
    for lb in [1, 3, 7, 9, 13, 27] {
        let g = Gadget::new(q, lb).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(lb as u64);
        let a: Vec<u64> = (0..N)
            .map(|i| match i {
                0 => 0,
                1 => q - 1,
                2 => q / 2,
                3 => q / 2 + 1,
                _ => rng.next_u64() % q,
            })
            .collect();
        let mut out = vec![0u64; g.digits() * N];
        g.decompose(&a, &mut out);
        // The SIMD path (when this CPU has one) writes the portable path's words.
        let mut portable = vec![0u64; g.digits() * N];
        super::decompose_portable(&g, &a, &mut portable);
        assert_eq!(
            out, portable,
            "base 2^{lb}: SIMD and portable digits differ"
        );
        // The AVX2 path too, on any CPU that has it (also where AVX-512 is the default).
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut avx2 = vec![0u64; g.digits() * N];
            // SAFETY: AVX2 is present (checked just above).
            unsafe { super::decompose_avx2(&g, &a, &mut avx2) };
            assert_eq!(
                avx2, portable,
                "base 2^{lb}: AVX2 and portable digits differ"
            );
        }
        for j in 0..N {
            let mut sum = 0i128;
            for i in 0..g.digits() {
                let t = centered(out[i * N + j], q);
                if i + 1 < g.digits() {
                    assert!(t >= -(g.base() as i64) / 2 && t < g.base() as i64 / 2);
                }
                sum += t as i128 * (1i128 << (lb as usize * i));
            }
            assert_eq!(
                sum.rem_euclid(q as i128) as u64,
                a[j],
                "base 2^{lb}, coeff {j}"
            );
        }
    }
    assert!(Gadget::new(q, 0).is_err());
    assert!(Gadget::new(q, 28).is_err());
}

/// The NTT-domain external product equals the schoolbook formula
/// `Σ_i t_i · key_i` on the exact digits, coefficient by coefficient.
#[test]
fn external_product_matches_schoolbook() {
    let ctx = ring();
    let q = ctx.modulus(0, 1).value();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let z = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let noise = DiscreteGaussian::new(3.19, 6.0).unwrap();
    let g = Gadget::new(q, 7).unwrap();
    let key = Rgsw::encrypt_monomial(&ctx, &z, 5, g, &noise, &mut rng).unwrap();
    let rand_poly = |rng: &mut ChaCha20Rng| {
        let v: Vec<u64> = (0..N).map(|_| rng.next_u64() % q).collect();
        Poly::from_raw(N, 1, 0, Form::Coeff, v)
    };
    let acc = RlweCiphertext {
        a: rand_poly(&mut rng),
        b: rand_poly(&mut rng),
    };
    let mut scratch = GswScratch::new(&ctx);
    let mut out = RlweCiphertext::zero(&ctx, Form::Ntt);
    key.external_product_into(&acc, &ctx, &mut scratch, &mut out);
    let d = g.digits();
    let mut da = vec![0; d * N];
    let mut db = vec![0; d * N];
    g.decompose(acc.a.data(), &mut da);
    g.decompose(acc.b.data(), &mut db);
    let (mut ea, mut eb) = (vec![0u64; N], vec![0u64; N]);
    for i in 0..d {
        let ta = &da[i * N..(i + 1) * N];
        let tb = &db[i * N..(i + 1) * N];
        add_mod(&mut ea, &negacyclic(ta, &coeff(&ctx, &key.zm.a[i]), q), q);
        add_mod(&mut ea, &negacyclic(tb, &coeff(&ctx, &key.m.a[i]), q), q);
        add_mod(&mut eb, &negacyclic(ta, &coeff(&ctx, &key.zm.b[i]), q), q);
        add_mod(&mut eb, &negacyclic(tb, &coeff(&ctx, &key.m.b[i]), q), q);
    }
    assert_eq!(coeff(&ctx, &out.a), ea);
    assert_eq!(coeff(&ctx, &out.b), eb);
}

/// Decrypts to `m_1 · m_2` with small noise: RGSW of monomials and constants, EvalAuto,
/// ALTMULT.
#[test]
fn products_decrypt() {
    let ctx = ring();
    let q = ctx.modulus(0, 1).value();
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let z = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let noise = DiscreteGaussian::new(3.19, 6.0).unwrap();
    let g = Gadget::new(q, 9).unwrap();
    let delta = q as i64 / 64;
    let msg: Vec<i64> = (0..N as i64).map(|i| (i * 7 % 13 - 6) * delta).collect();
    let m = ctx.from_signed(&msg, 1, 0);
    let mut scratch = GswScratch::new(&ctx);
    let check = |ct: &RlweCiphertext, expect: &dyn Fn(usize) -> i64, bound: i64| {
        let ph = ct.phase(&ctx, &z);
        for (j, &c) in ph.data().iter().enumerate() {
            let e = centered(c, q) - expect(j);
            assert!(e.abs() < bound, "coefficient {j}: error {e}");
        }
    };
    // RLWE ⊗ RGSW(X^k): m · X^k.
    for k in [0i64, 3, 63, 64, 100] {
        let mut ct = RlweCiphertext::encrypt(&ctx, &z, &m, &noise, &mut rng);
        let key = Rgsw::encrypt_monomial(&ctx, &z, k, g, &noise, &mut rng).unwrap();
        key.external_product(&mut ct, &ctx, &mut scratch);
        let rot = |j: usize| {
            let src = (j as i64 - k).rem_euclid(2 * N as i64);
            let (s, sign) = if src < N as i64 {
                (src, 1)
            } else {
                (src - N as i64, -1)
            };
            sign * msg[s as usize]
        };
        check(&ct, &rot, delta / 4);
    }
    // RLWE ⊗ RGSW(0) and RGSW(1).
    for c in [0i64, 1] {
        let mut ct = RlweCiphertext::encrypt(&ctx, &z, &m, &noise, &mut rng);
        let key = Rgsw::encrypt_constant(&ctx, &z, c, g, &noise, &mut rng).unwrap();
        key.external_product(&mut ct, &ctx, &mut scratch);
        check(&ct, &|j| c * msg[j], delta / 4);
    }
    // EvalAuto_t: m(X^t).
    for t in [3usize, 5, 2 * N - 1] {
        let mut ct = RlweCiphertext::encrypt(&ctx, &z, &m, &noise, &mut rng);
        ct.a.ntt(&ctx);
        ct.b.ntt(&ctx);
        let ak = AutoKey::generate(&ctx, &z, t, g, &noise, &mut rng).unwrap();
        ak.eval_auto(&mut ct, &ctx, &mut scratch);
        ct.a.intt(&ctx);
        ct.b.intt(&ctx);
        let mut mt = ctx.zero(1, 0, Form::Coeff);
        m.automorphism(t, &ctx, &mut mt);
        let mt: Vec<i64> = mt.data().iter().map(|&x| centered(x, q)).collect();
        check(&ct, &|j| mt[j], delta / 4);
    }
    assert!(AutoKey::generate(&ctx, &z, 4, g, &noise, &mut rng).is_err());
    // ALTMULT with RLWE'(X^k) and RLWE'(z^2).
    let zn = z.ntt_at(1, 0);
    let mut z2 = (*zn).clone();
    z2.mul_assign(&zn, &ctx);
    let z2key = RlwePrime::encrypt(&ctx, &z, &z2, g, &noise, &mut rng).unwrap();
    let mk = RlwePrime::encrypt(&ctx, &z, &monomial_ntt(&ctx, 1), g, &noise, &mut rng).unwrap();
    let ct = RlweCiphertext::encrypt(&ctx, &z, &m, &noise, &mut rng);
    let mut out = RlweCiphertext::zero(&ctx, Form::Ntt);
    alt_mult_into(&ct, &mk, &z2key, &ctx, &mut scratch, &mut out);
    let rot1 = |j: usize| if j == 0 { -msg[N - 1] } else { msg[j - 1] };
    check(&out, &rot1, delta / 4);
}

/// Mismatched gadget and ring moduli are an error, not a panic.
#[test]
fn gadget_ring_mismatch_is_an_error() {
    let ctx = ring();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let z = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let noise = DiscreteGaussian::new(3.19, 6.0).unwrap();
    let g = Gadget::new(12289, 4).unwrap();
    assert!(matches!(
        Rgsw::encrypt_constant(&ctx, &z, 1, g, &noise, &mut rng),
        Err(Error::ParameterMismatch(_))
    ));
}
