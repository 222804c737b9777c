//! The serialization contract for every serializable type, sizes, and error messages.

use hekate::math::PrimeGenerator;
use hekate::ring::{Form, Poly, RingContext};
use hekate::rlwe::{
    HybridKey, HybridKeySwitcher, KeySwitcher, PublicKey, SecretDistribution, SecretKey,
};
use hekate::serialize::testing::check_contract;
use hekate::serialize::{peek_header, Deserialize, Serialize, HEADER_LEN};
use hekate::Error;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

const N: usize = 1 << 10;

/// Q = 55, 45, 45, 45 bits; P = 58, 58 bits. `shift` skips primes to get another ring.
fn ring(shift: usize) -> Arc<RingContext> {
    let mut g = PrimeGenerator::new(N).unwrap();
    for _ in 0..shift {
        g.next_prime(45).unwrap();
    }
    let q: Vec<u64> = [55u32, 45, 45, 45]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    let p: Vec<u64> = [58u32, 58]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    RingContext::new(N, &q, &p).unwrap()
}

fn rings() -> (Arc<RingContext>, Arc<RingContext>) {
    (ring(0), ring(1))
}

fn random_poly(ctx: &RingContext, ql: usize, pl: usize, form: Form, rng: &mut ChaCha20Rng) -> Poly {
    let mut p = ctx.zero(ql, pl, form);
    for (i, limb) in p.limbs_mut().enumerate() {
        let q = ctx.modulus(i, ql).value();
        limb.iter_mut().for_each(|x| *x = rng.next_u64() % q);
    }
    p
}

fn deserialize_err(r: hekate::Result<impl Sized>) -> String {
    match r {
        Err(Error::Deserialize(m)) => m,
        Err(e) => panic!("wrong error variant: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

fn sk_eq(a: &SecretKey, b: &SecretKey) -> bool {
    a.coeffs() == b.coeffs() && a.ntt() == b.ntt()
}

#[test]
fn poly_contract() {
    let (ctx, other) = rings();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for (ql, pl, form) in [
        (4, 2, Form::Ntt),
        (4, 0, Form::Coeff),
        (1, 0, Form::Ntt),
        (2, 2, Form::Coeff),
    ] {
        let p = random_poly(&ctx, ql, pl, form, &mut rng);
        check_contract(&p, &ctx, &other, |a, b| a == b);
    }
    // Extreme residues: all zero and all q - 1.
    check_contract(&ctx.zero(4, 2, Form::Ntt), &ctx, &other, |a, b| a == b);
    let mut top = ctx.zero(4, 2, Form::Coeff);
    for (i, limb) in top.limbs_mut().enumerate() {
        let q = ctx.modulus(i, 4).value();
        limb.fill(q - 1);
    }
    check_contract(&top, &ctx, &other, |a, b| a == b);
}

#[test]
fn poly_is_bit_packed() {
    let (ctx, _) = rings();
    let p = ctx.zero(4, 2, Form::Ntt);
    // widths 55 + 3*45 + 2*58 bits per coefficient.
    let expect = HEADER_LEN + 9 + N * (55 + 3 * 45 + 2 * 58) / 8;
    assert_eq!(p.to_bytes(&ctx).unwrap().len(), expect);
}

#[test]
fn poly_rejects_out_of_range_residue() {
    let (ctx, _) = rings();
    let mut p = ctx.zero(1, 0, Form::Ntt);
    let q = ctx.modulus(0, 1).value();
    p.data_mut()[5] = q - 1;
    let mut bytes = p.to_bytes(&ctx).unwrap();
    // Residue 5 sits at bits 5*55 .. 6*55 of the limb: set all of them to one (>= q).
    let base = (HEADER_LEN + 9) * 8 + 5 * 55;
    for b in base..base + 55 {
        bytes[b / 8] |= 1 << (b % 8);
    }
    let m = deserialize_err(Poly::from_bytes(&bytes, &ctx));
    assert!(
        m.contains("limb 0, index 5 is not below its modulus"),
        "{m}"
    );
}

#[test]
fn secret_key_contract_for_every_encoding() {
    let (ctx, other) = rings();
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let mut sizes = vec![];
    for dist in [
        SecretDistribution::Ternary,
        SecretDistribution::HammingWeight(64),
        SecretDistribution::Gaussian,
    ] {
        let sk = SecretKey::generate(&ctx, dist, &mut rng).unwrap();
        check_contract(&sk, &ctx, &other, sk_eq);
        sizes.push(sk.to_bytes(&ctx).unwrap().len());
    }
    assert_eq!(sizes[0], HEADER_LEN + 5 + N / 4);
    assert_eq!(sizes[1], HEADER_LEN + 5 + N / 4);
    // A Gaussian key has some |s_i| >= 2 (with overwhelming probability): i8 encoding.
    assert_eq!(sizes[2], HEADER_LEN + 5 + N);
    let mut big = vec![0i64; N];
    big[3] = 1 << 40;
    big[7] = -300;
    let sk = SecretKey::from_coeffs(&ctx, big);
    check_contract(&sk, &ctx, &other, sk_eq);
    assert_eq!(sk.to_bytes(&ctx).unwrap().len(), HEADER_LEN + 5 + 8 * N);
}

#[test]
fn secret_key_rejects_invalid_and_noncanonical_codes() {
    let (ctx, _) = rings();
    let sk = SecretKey::from_coeffs(&ctx, vec![0; N]);
    let mut bytes = sk.to_bytes(&ctx).unwrap();
    bytes[HEADER_LEN + 5 + 2] = 0b1100_0000; // coefficient 11 gets code 0b11
    let m = deserialize_err(SecretKey::from_bytes(&bytes, &ctx));
    assert!(m.contains("coefficient 11"), "{m}");
    // The same ternary key written with the i8 encoding is refused.
    let mut w = hekate::serialize::Writer::new();
    w.write_header(SecretKey::TAG, ctx.fingerprint());
    w.write_u32(N as u32);
    w.write_u8(1);
    w.write_bytes(&[0u8; N]);
    let m = deserialize_err(SecretKey::from_bytes(w.as_bytes(), &ctx));
    assert!(m.contains("non-canonical"), "{m}");
}

#[test]
fn public_key_contract_and_compression() {
    let (ctx, other) = rings();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let sk = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let pk = PublicKey::generate(&ctx, &sk, &mut rng);
    check_contract(&pk, &ctx, &other, |a, b| a == b);
    let compressed = pk.to_bytes(&ctx).unwrap().len();
    let uncompressed = pk.b.to_bytes(&ctx).unwrap().len() + pk.a.to_bytes(&ctx).unwrap().len();
    let ratio = compressed as f64 / uncompressed as f64;
    println!("public key N=2^10: {compressed} bytes seed-compressed, {uncompressed} uncompressed, ratio {ratio:.4}");
    assert!((0.49..=0.52).contains(&ratio), "ratio {ratio}");
}

#[test]
fn hybrid_key_contract_and_compression() {
    let (ctx, other) = rings();
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let sk = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let from = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    for dnum in [1usize, 2, 4] {
        let key: HybridKey =
            HybridKeySwitcher::new(ctx.clone(), dnum).generate_key(from.ntt(), &sk, &mut rng);
        check_contract(&key, &ctx, &other, |a, b| a == b);
        let compressed = key.to_bytes(&ctx).unwrap().len();
        let uncompressed: usize = key
            .digits
            .iter()
            .map(|[b, a]| b.to_bytes(&ctx).unwrap().len() + a.to_bytes(&ctx).unwrap().len())
            .sum();
        let ratio = compressed as f64 / uncompressed as f64;
        println!(
            "hybrid key N=2^10 dnum={dnum}: {compressed} bytes seed-compressed, {uncompressed} uncompressed \
             (bit-packed), {} in memory, ratio {ratio:.4}",
            key.size_bytes()
        );
        assert!((0.49..=0.52).contains(&ratio), "dnum {dnum}: ratio {ratio}");
    }
}

#[test]
fn header_errors_say_what_is_wrong() {
    let (ctx, other) = rings();
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let sk = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let pk = PublicKey::generate(&ctx, &sk, &mut rng);
    let bytes = pk.to_bytes(&ctx).unwrap();
    let h = peek_header(&bytes).unwrap();
    assert_eq!(
        (h.version, h.tag, h.fingerprint),
        (1, PublicKey::TAG, ctx.fingerprint())
    );

    let m = deserialize_err(PublicKey::from_bytes(&bytes[..10], &ctx));
    assert_eq!(m, "truncated: expected 16 bytes of header, 10 left");
    let m = deserialize_err(PublicKey::from_bytes(
        &bytes[..HEADER_LEN + 32 + 9 + 100],
        &ctx,
    ));
    assert!(
        m.starts_with("truncated: expected") && m.contains("bytes of polynomial data"),
        "{m}"
    );

    let mut bad = bytes.clone();
    bad[0] = b'X';
    assert!(deserialize_err(PublicKey::from_bytes(&bad, &ctx)).contains("not a hekate object"));
    let mut bad = bytes.clone();
    bad[4] = 2;
    let m = deserialize_err(PublicKey::from_bytes(&bad, &ctx));
    assert!(m.contains("unsupported format version 2"), "{m}");
    let mut bad = bytes.clone();
    bad[6] = 99;
    assert!(deserialize_err(PublicKey::from_bytes(&bad, &ctx)).contains("unknown object tag 99"));

    let m = deserialize_err(Poly::from_bytes(&bytes, &ctx));
    assert!(
        m.contains("expected a polynomial (tag 1), found a public key (tag 3)"),
        "{m}"
    );
    let m = deserialize_err(PublicKey::from_bytes(&bytes, &other));
    assert!(
        m.contains("parameter mismatch") && m.contains("fingerprint"),
        "{m}"
    );
    let mut long = bytes.clone();
    long.push(0);
    let m = deserialize_err(PublicKey::from_bytes(&long, &ctx));
    assert!(m.starts_with("trailing bytes: 1 bytes"), "{m}");
}

#[test]
fn fingerprint_depends_on_every_parameter() {
    let (a, b) = rings();
    assert_ne!(a.fingerprint(), b.fingerprint());
    assert_eq!(a.fingerprint(), ring(0).fingerprint());
    let q: Vec<u64> = a.q().moduli().iter().map(|m| m.value()).collect();
    let p: Vec<u64> = a.p().moduli().iter().map(|m| m.value()).collect();
    let f = hekate::serialize::ring_fingerprint;
    assert_eq!(f(N, &q, &p), a.fingerprint());
    // Moving a prime from Q to P, or changing N, changes the fingerprint.
    let mut q2 = q.clone();
    q2.push(p[0]);
    assert_ne!(f(N, &q2, &p[1..]), a.fingerprint());
    assert_ne!(f(2 * N, &q, &p), a.fingerprint());
    // FNV-1a test vectors.
    assert_eq!(hekate::serialize::fnv1a64(b""), 0xcbf29ce484222325);
    assert_eq!(hekate::serialize::fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
}

#[test]
fn hostile_lengths_are_refused_before_allocating() {
    let (ctx, _) = rings();
    let mut w = hekate::serialize::Writer::new();
    w.write_header(Poly::TAG, ctx.fingerprint());
    w.write_u32(1 << 30);
    w.write_u16(4);
    w.write_u16(0);
    w.write_u8(1);
    let m = deserialize_err(Poly::from_bytes(w.as_bytes(), &ctx));
    assert!(m.contains("power of two <= 2^17"), "{m}");
    let mut w = hekate::serialize::Writer::new();
    w.write_header(Poly::TAG, ctx.fingerprint());
    w.write_u32(N as u32);
    w.write_u16(60000);
    w.write_u16(0);
    w.write_u8(1);
    let m = deserialize_err(Poly::from_bytes(w.as_bytes(), &ctx));
    assert!(m.contains("cap of 256"), "{m}");
    let mut w = hekate::serialize::Writer::new();
    w.write_header(HybridKey::TAG, ctx.fingerprint());
    w.write_bytes(&[0; 32]);
    w.write_u16(u16::MAX);
    let m = deserialize_err(HybridKey::from_bytes(w.as_bytes(), &ctx));
    assert!(m.contains("digit count 65535"), "{m}");
}
