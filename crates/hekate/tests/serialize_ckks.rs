//! Serialization of the CKKS objects: the contract for every type, a save / load /
//! decrypt cycle through rebuilt parameters, seed compression, and hostile inputs.

use hekate::ckks::{Ciphertext, CkksContext, CkksParameters, Evaluator, GaloisKeys, Plaintext};
use hekate::params::SecurityLevel;
use hekate::ring::{ring_fingerprint, Form};
use hekate::rlwe::keyswitch::SwitchingKey;
use hekate::rlwe::{SecretDistribution, SecretKey};
use hekate::serialize::testing::{check_contract, check_contract_standalone_with};
use hekate::serialize::{
    ckks_context_from_bytes, ckks_context_from_bytes_with, ckks_context_to_bytes, peek_header,
    Deserialize, ReadPolicy, Serialize, Writer, HEADER_LEN,
};
use hekate::Error;
use num_complex::Complex64;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

fn params() -> CkksParameters {
    CkksParameters::new(10)
        .log_q(&[50, 40, 40])
        .log_p(&[55, 55])
        .dnum(2)
        .log_scale(30)
        .security(SecurityLevel::NotChecked)
}

/// The test context and one with another chain (for the "other parameters" checks).
fn contexts() -> (Arc<CkksContext>, Arc<CkksContext>) {
    let other = CkksParameters::new(10)
        .log_q(&[50, 40, 39])
        .log_p(&[55, 55])
        .dnum(2)
        .log_scale(30)
        .security(SecurityLevel::NotChecked);
    (params().build().unwrap(), other.build().unwrap())
}

fn ctx_eq(a: &CkksContext, b: &CkksContext) -> bool {
    a.n() == b.n()
        && a.q_primes() == b.q_primes()
        && a.p_primes() == b.p_primes()
        && a.dnum() == b.dnum()
        && a.digits() == b.digits()
        && a.secret_distribution() == b.secret_distribution()
        && a.default_scale() == b.default_scale()
        && a.security() == b.security()
        && a.ring().fingerprint() == b.ring().fingerprint()
}

fn values(n: usize) -> Vec<Complex64> {
    (0..n)
        .map(|i| Complex64::new((i as f64 * 0.37).sin(), (i as f64 * 0.11).cos() / 2.0))
        .collect()
}

fn max_err(got: &[Complex64], want: &[Complex64]) -> f64 {
    got.iter()
        .zip(want)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max)
}

fn deserialize_err(r: hekate::Result<impl Sized>) -> String {
    match r {
        Err(Error::Deserialize(m)) => m,
        Err(e) => panic!("wrong error variant: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

struct Keys {
    sk: SecretKey,
    eval: Evaluator,
    rng: ChaCha20Rng,
}

fn keys(ctx: &Arc<CkksContext>, seed: u64) -> Keys {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
    let gks = ctx.generate_galois_keys_with(&sk, &[1, -3], true, &mut rng);
    let eval = Evaluator::new(ctx.clone(), Some(rlk), gks);
    Keys { sk, eval, rng }
}

#[test]
fn parameters_contract() {
    let (ctx, _) = contexts();
    check_contract_standalone_with(&*ctx, &test_policy(), ctx_eq);
    // Other secret distributions and a scale that is not a power of two.
    for secret in [
        SecretDistribution::HammingWeight(64),
        SecretDistribution::Gaussian,
    ] {
        let c = params()
            .secret(secret)
            .scale(1.5 * 2f64.powi(30))
            .build()
            .unwrap();
        check_contract_standalone_with(&*c, &test_policy(), ctx_eq);
    }
    // A fractional scale (denominator > 1) and the default dnum.
    let c = CkksParameters::new(10)
        .log_q(&[50, 40, 40])
        .scale(0.75)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    check_contract_standalone_with(&*c, &test_policy(), ctx_eq);
}

#[test]
fn parameters_round_trip_with_security_check() {
    // 128-bit secure parameters: reading runs the security check again and passes.
    let ctx = CkksParameters::new(14)
        .log_q(&[50, 40, 40])
        .log_p(&[55, 55])
        .dnum(2)
        .log_scale(40)
        .build()
        .unwrap();
    let bytes = ckks_context_to_bytes(&ctx);
    let back = ckks_context_from_bytes_with(&bytes, &test_policy()).unwrap();
    assert!(ctx_eq(&ctx, &back));
    assert_eq!(back.security(), SecurityLevel::Bits128);
    // The header carries the ring fingerprint, as every object of these parameters does.
    let h = peek_header(&bytes).unwrap();
    assert_eq!(h.tag, CkksContext::TAG);
    assert_eq!(h.fingerprint, ctx.ring().fingerprint());
    // The trait and the free functions agree.
    assert_eq!(ctx.to_bytes(&()).unwrap(), bytes);
    assert!(ctx_eq(
        &CkksContext::from_bytes_with(&bytes, &(), &test_policy()).unwrap(),
        &ctx
    ));
}

#[test]
fn plaintext_contract() {
    let (ctx, other) = contexts();
    let pt = ctx.encode(&values(ctx.max_slots())).unwrap();
    check_contract(&pt, &ctx, &other, |a, b| a == b);
    // Sparse packing, a lower level, a non-default scale.
    let pt = ctx
        .encode_at(&values(8), 8, 1, &ctx.constant_scale(1))
        .unwrap();
    check_contract(&pt, &ctx, &other, |a, b| a == b);
    let back = Plaintext::from_bytes(&pt.to_bytes(&ctx).unwrap(), &ctx).unwrap();
    assert_eq!((back.level(), back.slots()), (1, 8));
    let got = ctx.decode(&back).unwrap();
    assert!(max_err(&got, &values(8)) < 1e-4);
}

#[test]
fn ciphertext_contract() {
    let (ctx, other) = contexts();
    let mut k = keys(&ctx, 1);
    let pk = ctx.generate_public_key_with(&k.sk, &mut k.rng);
    let pt = ctx.encode(&values(ctx.max_slots())).unwrap();
    let fresh_pk = ctx.encrypt_with(&pt, &pk, &mut k.rng).unwrap();
    let fresh_sk = ctx.encrypt_symmetric_with(&pt, &k.sk, &mut k.rng).unwrap();
    assert!(fresh_pk.seed().is_none() && fresh_sk.seed().is_some());
    let eval = &k.eval;
    let product = eval.mul_no_relin(&fresh_sk, &fresh_pk).unwrap();
    assert_eq!(product.degree(), 2);
    let rescaled = eval
        .rescale(&eval.mul(&fresh_sk, &fresh_pk).unwrap())
        .unwrap();
    let rotated = eval.rotate(&rescaled, 1).unwrap();
    for ct in [&fresh_pk, &fresh_sk, &product, &rescaled, &rotated] {
        check_contract(ct, &ctx, &other, |a, b| a == b);
    }
}

#[test]
fn evaluation_keys_contract() {
    let (ctx, other) = contexts();
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
    check_contract(&rlk, &ctx, &other, |a, b| a == b);
    let gks = ctx.generate_galois_keys_with(&sk, &[1, 2, -1], true, &mut rng);
    assert_eq!(gks.len(), 4);
    check_contract(&gks, &ctx, &other, |a, b| a == b);
    check_contract(&GaloisKeys::default(), &ctx, &other, |a, b| a == b);
    eprintln!(
        "relinearization key: {} bytes serialized, {} in memory; Galois keys (4): {} bytes \
         serialized, {} in memory",
        rlk.to_bytes(&ctx).unwrap().len(),
        rlk.0.size_bytes(),
        gks.to_bytes(&ctx).unwrap().len(),
        gks.size_bytes()
    );
}

/// Keys generated for lower levels (`L = 2`, `dnum = 2`, `α = 2`: one digit over
/// `Q_1 ∪ P` for levels <= 1) keep the contract, are smaller, work after a round trip at
/// their levels and only there; a KLSS context (same ring) refuses them; bytes whose
/// digits and limbs disagree are refused.
#[test]
fn narrow_evaluation_keys_round_trip() {
    let (ctx, other) = contexts();
    let mut rng = ChaCha20Rng::seed_from_u64(31);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let rlk = ctx
        .generate_relinearization_key_at_with(&sk, 1, &mut rng)
        .unwrap();
    let gks = ctx
        .generate_galois_keys_at_with(&sk, &[1], true, 1, &mut rng)
        .unwrap();
    let SwitchingKey::Hybrid(hk) = &rlk.0 else {
        panic!("a hybrid context's key")
    };
    assert_eq!((hk.q_limbs(), hk.digits.len()), (2, 1));
    check_contract(&rlk, &ctx, &other, |a, b| a == b);
    check_contract(&gks, &ctx, &other, |a, b| a == b);
    let full = ctx.generate_relinearization_key_with(&sk, &mut rng);
    let (narrow_len, full_len) = (
        rlk.to_bytes(&ctx).unwrap().len(),
        full.to_bytes(&ctx).unwrap().len(),
    );
    assert!(2 * narrow_len < full_len, "{narrow_len} vs {full_len}");
    // Read back, used at level 1, refused at level 2.
    let rlk2 =
        hekate::ckks::RelinearizationKey::from_bytes(&rlk.to_bytes(&ctx).unwrap(), &ctx).unwrap();
    let gks2 = GaloisKeys::from_bytes(&gks.to_bytes(&ctx).unwrap(), &ctx).unwrap();
    assert_eq!(rlk2.max_level(), Some(1));
    let eval = Evaluator::new(ctx.clone(), Some(rlk2), gks2);
    let v = values(8);
    for level in 0..=2 {
        let pt = ctx
            .encode_at(&v, 8, level, &hekate::ckks::Scale::from_bits(20))
            .unwrap();
        let ct = ctx.encrypt_symmetric_with(&pt, &sk, &mut rng).unwrap();
        let (sq, rot) = (eval.mul(&ct, &ct), eval.rotate(&ct, 1));
        if level <= 1 {
            let want: Vec<Complex64> = v.iter().map(|x| x * x).collect();
            assert!(max_err(&ctx.decrypt_decode(&sq.unwrap(), &sk).unwrap(), &want) < 1e-3);
            let want: Vec<Complex64> = (0..8).map(|i| v[(i + 1) % 8]).collect();
            assert!(max_err(&ctx.decrypt_decode(&rot.unwrap(), &sk).unwrap(), &want) < 1e-3);
        } else {
            assert!(matches!(sq, Err(Error::LevelMismatch(_))));
            assert!(matches!(rot, Err(Error::LevelMismatch(_))));
        }
    }
    // A KLSS context over the same ring expands full keys only.
    let klss = params()
        .key_switching(hekate::rlwe::keyswitch::KeySwitchMethod::Klss(
            hekate::rlwe::keyswitch::KlssConfig::klss(2),
        ))
        .build()
        .unwrap();
    assert_eq!(klss.ring().fingerprint(), ctx.ring().fingerprint());
    let r = hekate::ckks::RelinearizationKey::from_bytes(&rlk.to_bytes(&ctx).unwrap(), &klss);
    assert!(matches!(r, Err(Error::ParameterMismatch(_))), "{r:?}");
    // Digits and limbs that disagree: two digits of width 2 (one expected), digits of
    // widths 2 and 3, a digit without the special limbs, more digits than limbs.
    let b = &hk.digits[0][0];
    let SwitchingKey::Hybrid(fk) = &full.0 else {
        panic!("a hybrid context's key")
    };
    let ring = ctx.ring();
    let key_bytes = |digits: &[hekate::ring::Poly]| {
        let mut w = Writer::new();
        w.write_header(
            <hekate::ckks::RelinearizationKey as Serialize>::TAG,
            ring.fingerprint(),
        );
        w.write_bytes(&hk.seed);
        w.write_u16(digits.len() as u16);
        digits.iter().for_each(|p| p.write_body(&mut w, ring));
        deserialize_err(hekate::ckks::RelinearizationKey::from_bytes(
            &w.into_bytes(),
            &ctx,
        ))
    };
    let m = key_bytes(&[b.clone(), b.clone()]);
    assert!(m.contains("it has 2 digits; a key of width 2"), "{m}");
    let m = key_bytes(&[b.clone(), fk.digits[1][0].clone()]);
    assert!(m.contains("the same chain limbs in every digit"), "{m}");
    let m = key_bytes(&[b.restricted(2, 0)]);
    assert!(m.contains("has 2 chain and 0 special limbs"), "{m}");
    let m = key_bytes(&[b.restricted(1, 2), b.restricted(1, 2)]);
    assert!(m.contains("at least one per digit"), "{m}");
}

/// Hybrid digits by bits: the context (method byte 3) and its narrow keys round-trip and
/// work; a blob whose `dnum` is not the grouping's count, and the builder's misuses, are
/// refused with the reason.
#[test]
fn digits_by_bits_round_trip_and_misuse_is_refused() {
    let by_bits = || {
        CkksParameters::new(10)
            .log_q(&[55, 30, 30, 30, 30, 45, 45])
            .log_p(&[58, 58])
            .log_scale(30)
            .security(SecurityLevel::NotChecked)
            .digits_by_bits()
    };
    let ctx = by_bits().build().unwrap();
    assert!(ctx.digits().is_by_bits());
    let sizes: Vec<usize> = (0..ctx.dnum())
        .map(|j| ctx.digits().range(j, 7).len())
        .collect();
    assert_eq!(sizes, [2, 3, 2]);
    check_contract_standalone_with(&*ctx, &test_policy(), ctx_eq);
    let bytes = ckks_context_to_bytes(&ctx);
    let back = ckks_context_from_bytes_with(&bytes, &test_policy()).unwrap();
    assert!(back.digits().is_by_bits() && ctx_eq(&ctx, &back));
    // A relinearization key for levels <= 3 (4 limbs: digits [0, 2) and [2, 5)).
    let mut rng = ChaCha20Rng::seed_from_u64(33);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let rlk = ctx
        .generate_relinearization_key_at_with(&sk, 3, &mut rng)
        .unwrap();
    let SwitchingKey::Hybrid(hk) = &rlk.0 else {
        panic!("a hybrid context's key")
    };
    assert_eq!((hk.q_limbs(), hk.digits.len()), (4, 2));
    let rlk2 =
        hekate::ckks::RelinearizationKey::from_bytes(&rlk.to_bytes(&ctx).unwrap(), &back).unwrap();
    let eval = Evaluator::new(back.clone(), Some(rlk2), GaloisKeys::default());
    let v = values(8);
    let pt = ctx
        .encode_at(&v, 8, 3, &hekate::ckks::Scale::from_bits(30))
        .unwrap();
    let ct = ctx.encrypt_symmetric_with(&pt, &sk, &mut rng).unwrap();
    let sq = eval.mul_relin_rescale(&ct, &ct, 1, None).unwrap();
    let want: Vec<Complex64> = v.iter().map(|x| x * x).collect();
    assert!(max_err(&ctx.decrypt_decode(&sq, &sk).unwrap(), &want) < 1e-4);
    // The same ring with uniform digits (α = 3) does not take a key of width 3: two
    // digits by bits, one uniform. (Keys name their ring, not their digits: where both
    // rules give a width as many digits, as at width 4, the shape cannot tell them apart.)
    let rlk = ctx
        .generate_relinearization_key_at_with(&sk, 2, &mut rng)
        .unwrap();
    let uniform = CkksParameters::new(10)
        .q_primes(&ctx.q_primes())
        .p_primes(&ctx.p_primes())
        .dnum(3)
        .log_scale(30)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let r = hekate::ckks::RelinearizationKey::from_bytes(&rlk.to_bytes(&ctx).unwrap(), &uniform);
    assert!(r.is_err(), "{r:?}");
    // The method byte (second to last) says "by bits", the recorded dnum disagrees.
    let (q, p) = (ctx.q_primes(), ctx.p_primes());
    let mut blob = param_blob(1024, &q, &p, 2, &[0], 3, &SCALE_2_30);
    let at = blob.len() - 2;
    blob[at] = 3;
    expect_param_err(
        &blob,
        "dnum 2 is recorded, but its chain's digits by bits are 3",
    );
    // Builder misuse: with dnum, without P, on another engine.
    let m = by_bits().dnum(3).build().unwrap_err().to_string();
    assert!(m.contains("sets dnum itself"), "{m}");
    let m = CkksParameters::new(10)
        .log_q(&[55, 30, 30])
        .security(SecurityLevel::NotChecked)
        .digits_by_bits()
        .build()
        .unwrap_err()
        .to_string();
    assert!(m.contains("give log_p or p_primes"), "{m}");
    let m = by_bits()
        .key_switching(hekate::rlwe::keyswitch::KeySwitchMethod::Klss(
            hekate::rlwe::keyswitch::KlssConfig::klss(2),
        ))
        .build()
        .unwrap_err()
        .to_string();
    assert!(m.contains("hybrid engine only"), "{m}");
}

#[test]
fn galois_keys_encoding_is_sorted_and_deterministic() {
    let (ctx, _) = contexts();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let gks = ctx.generate_galois_keys_with(&sk, &[5, 1, -2, 3], true, &mut rng);
    let bytes = gks.to_bytes(&ctx).unwrap();
    // Rebuilding the map (another insertion order, another hash seed) changes nothing.
    let mut rebuilt = GaloisKeys::default();
    let mut elements: Vec<usize> = gks.elements();
    elements.sort_unstable_by(|a, b| b.cmp(a));
    for g in elements {
        rebuilt.insert(gks.get(g).unwrap().clone());
    }
    assert_eq!(rebuilt.to_bytes(&ctx).unwrap(), bytes);
    // The elements appear in increasing order.
    let count = u32::from_le_bytes(bytes[HEADER_LEN..HEADER_LEN + 4].try_into().unwrap());
    assert_eq!(count as usize, gks.len());
    let mut sorted: Vec<usize> = gks.elements();
    sorted.sort_unstable();
    let first = u32::from_le_bytes(bytes[HEADER_LEN + 4..HEADER_LEN + 8].try_into().unwrap());
    assert_eq!(first as usize, sorted[0]);
}

#[test]
fn saved_ciphertext_decrypts_under_rebuilt_parameters() {
    let (ctx, _) = contexts();
    let mut k = keys(&ctx, 4);
    let pk = ctx.generate_public_key_with(&k.sk, &mut k.rng);
    let v = values(ctx.max_slots());
    let pt = ctx.encode(&v).unwrap();
    let cts = [
        ctx.encrypt_with(&pt, &pk, &mut k.rng).unwrap(),
        ctx.encrypt_symmetric_with(&pt, &k.sk, &mut k.rng).unwrap(),
    ];
    // Save parameters, secret key and ciphertexts; load everything in a fresh context.
    let param_bytes = ckks_context_to_bytes(&ctx);
    let sk_bytes = k.sk.to_bytes(ctx.ring()).unwrap();
    let ct_bytes: Vec<Vec<u8>> = cts.iter().map(|c| c.to_bytes(&ctx).unwrap()).collect();

    let ctx2 = ckks_context_from_bytes_with(&param_bytes, &test_policy()).unwrap();
    assert!(!Arc::ptr_eq(&ctx, &ctx2) && ctx_eq(&ctx, &ctx2));
    let sk2 = SecretKey::from_bytes(&sk_bytes, ctx2.ring()).unwrap();
    for (bytes, ct) in ct_bytes.iter().zip(&cts) {
        let ct2 = Ciphertext::from_bytes(bytes, &ctx2).unwrap();
        assert_eq!(&ct2, ct);
        let got = ctx2.decrypt_decode(&ct2, &sk2).unwrap();
        let e = max_err(&got, &v);
        assert!(e < 1e-4, "error {e} after reload");
    }
    // An operation on the reloaded (seeded) ciphertext, saved and loaded again.
    let eval2 = Evaluator::new(ctx2.clone(), None, GaloisKeys::default());
    let ct2 = Ciphertext::from_bytes(&ct_bytes[1], &ctx2).unwrap();
    let sum = eval2.add(&ct2, &ct2).unwrap();
    assert!(sum.seed().is_none());
    let sum2 = Ciphertext::from_bytes(&sum.to_bytes(&ctx2).unwrap(), &ctx2).unwrap();
    assert_eq!(sum2, sum);
    let got = ctx2.decrypt_decode(&sum2, &sk2).unwrap();
    let want: Vec<Complex64> = v.iter().map(|x| 2.0 * x).collect();
    assert!(max_err(&got, &want) < 1e-4);
}

#[test]
fn seed_compressed_ciphertext_is_half_size() {
    let (ctx, _) = contexts();
    let mut k = keys(&ctx, 5);
    let pt = ctx.encode(&values(ctx.max_slots())).unwrap();
    let seeded = ctx.encrypt_symmetric_with(&pt, &k.sk, &mut k.rng).unwrap();
    let full = Ciphertext::from_parts(
        &ctx,
        seeded.parts().to_vec(),
        seeded.scale().clone(),
        seeded.slots(),
        None,
    )
    .unwrap();
    let (a, b) = (
        seeded.to_bytes(&ctx).unwrap().len(),
        full.to_bytes(&ctx).unwrap().len(),
    );
    let ratio = a as f64 / b as f64;
    eprintln!(
        "ciphertext N = 2^10, 3 limbs: seed-compressed {a} bytes, full {b} bytes \
         (ratio {ratio:.3}); in memory {} bytes",
        full.size_bytes()
    );
    assert!((0.49..0.52).contains(&ratio), "ratio {ratio}");
    // Both decode to the same parts; only the seeded one remembers its seed.
    let s = Ciphertext::from_bytes(&seeded.to_bytes(&ctx).unwrap(), &ctx).unwrap();
    let f = Ciphertext::from_bytes(&full.to_bytes(&ctx).unwrap(), &ctx).unwrap();
    assert_eq!(s.parts(), f.parts());
    assert!(s.seed().is_some() && f.seed().is_none());
}

// ---------------------------------------------------------------------------------------
// Hostile inputs

/// A parameter blob with a consistent header fingerprint: `scale` is the encoded scale.
fn param_blob(
    n: u32,
    q: &[u64],
    p: &[u64],
    dnum: u16,
    secret: &[u8],
    security: u8,
    scale: &[u8],
) -> Vec<u8> {
    let mut w = Writer::new();
    w.write_header(CkksContext::TAG, ring_fingerprint(n as usize, q, p));
    w.write_u32(n);
    w.write_u16(q.len() as u16);
    w.write_u16(p.len() as u16);
    for x in q.iter().chain(p) {
        w.write_u64(*x);
    }
    w.write_u16(dnum);
    w.write_bytes(secret);
    w.write_u8(security);
    w.write_bytes(scale);
    w.write_u8(0); // hybrid key switching
    w.write_u8(0); // expanded key storage
    w.into_bytes()
}

/// The scale 2^30: numerator `00 00 00 40`, denominator `01`.
const SCALE_2_30: [u8; 9] = [4, 0, 0, 0, 0, 0x40, 1, 0, 1];

fn expect_param_err(bytes: &[u8], needle: &str) {
    let m = deserialize_err(ckks_context_from_bytes_with(bytes, &test_policy()));
    assert!(
        m.contains(needle),
        "message {m:?} does not mention {needle:?}"
    );
    // The trait path says the same.
    let m2 = deserialize_err(CkksContext::from_bytes_with(bytes, &(), &test_policy()));
    assert_eq!(m, m2);
}

#[test]
fn hostile_parameters_are_rejected() {
    let (ctx, _) = contexts();
    let (q, p) = (ctx.q_primes(), ctx.p_primes());
    let good = param_blob(1024, &q, &p, 2, &[0], 3, &SCALE_2_30);
    assert_eq!(good, ckks_context_to_bytes(&ctx));
    assert!(ctx_eq(
        &ckks_context_from_bytes_with(&good, &test_policy()).unwrap(),
        &ctx
    ));

    // Huge or malformed N.
    for n in [1u32 << 18, u32::MAX, 0, 1, 1000] {
        expect_param_err(
            &param_blob(n, &q, &p, 2, &[0], 3, &SCALE_2_30),
            "is not a power of two in [2, 2^17]",
        );
    }
    // No primes, too many primes (without the bytes for them).
    expect_param_err(
        &param_blob(1024, &[], &p, 1, &[0], 3, &SCALE_2_30),
        "0 chain primes",
    );
    expect_param_err(
        &param_blob(1024, &q, &[], 2, &[0], 3, &SCALE_2_30),
        "0 special primes",
    );
    let mut many = param_blob(1024, &q, &p, 2, &[0], 3, &SCALE_2_30);
    many[HEADER_LEN + 4..HEADER_LEN + 6].copy_from_slice(&u16::MAX.to_le_bytes());
    expect_param_err(&many, "65535 chain primes");
    let mut short = param_blob(1024, &q, &p, 2, &[0], 3, &SCALE_2_30);
    short[HEADER_LEN + 4..HEADER_LEN + 6].copy_from_slice(&200u16.to_le_bytes());
    expect_param_err(&short, "truncated");
    // Duplicate primes, within Q and across Q and P.
    expect_param_err(
        &param_blob(1024, &[q[0], q[1], q[1]], &p, 2, &[0], 3, &SCALE_2_30),
        "appears twice",
    );
    expect_param_err(
        &param_blob(1024, &q, &[p[0], q[2]], 2, &[0], 3, &SCALE_2_30),
        "appears twice",
    );
    // Not a prime, too large, not 1 mod 2N.
    expect_param_err(
        &param_blob(
            1024,
            &[q[0], q[1], (1 << 40) + 1],
            &p,
            2,
            &[0],
            3,
            &SCALE_2_30,
        ),
        "= 1099511627777 is not a prime",
    );
    expect_param_err(
        &param_blob(1024, &[q[0], u64::MAX], &p, 2, &[0], 3, &SCALE_2_30),
        "is not a prime below 2^62",
    );
    expect_param_err(
        &param_blob(2048, &q, &p, 2, &[0], 3, &SCALE_2_30),
        "is not 1 mod 2N = 4096",
    );
    // dnum, secret distribution, security level.
    for dnum in [0, 4] {
        expect_param_err(
            &param_blob(1024, &q, &p, dnum, &[0], 3, &SCALE_2_30),
            "dnum",
        );
    }
    expect_param_err(
        &param_blob(1024, &q, &p, 2, &[7], 3, &SCALE_2_30),
        "unknown secret distribution 7",
    );
    expect_param_err(
        &param_blob(1024, &q, &p, 2, &[1, 0, 0, 0, 0], 3, &SCALE_2_30),
        "Hamming weight h = 0",
    );
    expect_param_err(
        &param_blob(1024, &q, &p, 2, &[1, 0x01, 0x04, 0, 0], 3, &SCALE_2_30),
        "Hamming weight h = 1025",
    );
    expect_param_err(
        &param_blob(1024, &q, &p, 2, &[0], 9, &SCALE_2_30),
        "unknown security level 9",
    );
    // The security check runs again: N = 2^10 is not 128-bit secure.
    expect_param_err(
        &param_blob(1024, &q, &p, 2, &[0], 0, &SCALE_2_30),
        "do not form a valid context",
    );
    // The builder's own checks run too: P must cover a digit (dnum 1: all of Q).
    let small_p = hekate::math::PrimeGenerator::new(1024)
        .unwrap()
        .next_prime(30)
        .unwrap();
    expect_param_err(
        &param_blob(1024, &q, &[small_p], 1, &[0], 3, &SCALE_2_30),
        "smaller than the largest key-switching digit",
    );
    // Scales: empty, leading zero, not reduced, not an f64, over the cap.
    for (scale, needle) in [
        (&[0u8, 0, 1, 0, 1][..], "length 0"),
        (&[2, 0, 1, 0, 1, 0, 1], "leading zero"),
        (&[1, 0, 6, 1, 0, 4], "not coprime"),
        (&[1, 0, 1, 1, 0, 3], "not exactly an f64"),
        (&[0x01, 0x10, 1], "length 4097"),
    ] {
        expect_param_err(&param_blob(1024, &q, &p, 2, &[0], 3, scale), needle);
    }
    // A header fingerprint that does not match the primes.
    let mut bad_fp = good.clone();
    bad_fp[8] ^= 1;
    expect_param_err(&bad_fp, "is not the fingerprint");
    // Trailing bytes, truncation, another object type.
    let mut trailing = good.clone();
    trailing.push(0);
    expect_param_err(&trailing, "trailing bytes");
    expect_param_err(&good[..good.len() - 1], "truncated");
    let pt = ctx.encode(&values(4)).unwrap();
    expect_param_err(&pt.to_bytes(&ctx).unwrap(), "wrong object type");
}

#[test]
fn hostile_ciphertexts_and_keys_are_rejected() {
    let (ctx, _) = contexts();
    let mut k = keys(&ctx, 6);
    let pt = ctx.encode(&values(4)).unwrap();
    let ct = ctx.encrypt_symmetric_with(&pt, &k.sk, &mut k.rng).unwrap();
    let full = Ciphertext::from_parts(
        &ctx,
        ct.parts().to_vec(),
        ct.scale().clone(),
        ct.slots(),
        None,
    )
    .unwrap();
    let bytes = full.to_bytes(&ctx).unwrap();
    let (deg, storage) = (HEADER_LEN, HEADER_LEN + 1);
    let with = |pos: usize, v: u8| {
        let mut b = bytes.clone();
        b[pos] = v;
        b
    };
    let read = |b: &[u8]| deserialize_err(Ciphertext::from_bytes(b, &ctx));
    assert!(read(&with(deg, 3)).contains("degree 3 is not 1 or 2"));
    assert!(read(&with(deg, 0)).contains("degree 0 is not 1 or 2"));
    assert!(read(&with(storage, 2)).contains("unknown ciphertext storage 2"));
    // A seeded ciphertext of degree 2 does not exist.
    let mut b = with(deg, 2);
    b[storage] = 1;
    assert!(read(&b).contains("seed-compressed ciphertext has degree 1"));
    // A part in coefficient form, parts at different levels: refused when assembled...
    let mut coeff = full.parts()[0].clone();
    coeff.intt(ctx.ring());
    assert_eq!(coeff.form(), Form::Coeff);
    let parts_err = |parts: Vec<hekate::ring::Poly>| match Ciphertext::from_parts(
        &ctx,
        parts,
        ct.scale().clone(),
        ct.slots(),
        None,
    ) {
        Err(Error::ParameterMismatch(m)) => m,
        other => panic!("accepted: {:?}", other.map(|_| ())),
    };
    assert!(parts_err(vec![coeff, full.parts()[1].clone()]).contains("NTT form"));
    let m = parts_err(vec![full.parts()[0].clone(), full.parts()[1].truncated(2)]);
    assert!(
        m.contains("2 chain limbs where the first part has 3"),
        "{m}"
    );
    assert!(parts_err(vec![full.parts()[0].clone()]).contains("2 or 3 parts"));
    // ... and when read: the form byte of part 0 (after degree, storage, the 9-byte scale,
    // the slot count, and the part's degree and limb counts).
    let form_at = HEADER_LEN + 2 + 9 + 4 + 8;
    assert_eq!(bytes[form_at], 1);
    assert!(read(&with(form_at, 0)).contains("NTT form"));
    // Slot counts: the scale 2^30 takes 9 bytes, then the slot count.
    let slots_at = HEADER_LEN + 2 + 9;
    assert_eq!(bytes[slots_at..slots_at + 4], 512u32.to_le_bytes());
    let mut b = bytes.clone();
    b[slots_at..slots_at + 4].copy_from_slice(&1024u32.to_le_bytes());
    assert!(read(&b).contains("slot count 1024 is not a power of two in [1, N/2 = 512]"));
    b[slots_at..slots_at + 4].copy_from_slice(&3u32.to_le_bytes());
    assert!(read(&b).contains("slot count 3"));
    // A plaintext is not a ciphertext.
    assert!(read(&pt.to_bytes(&ctx).unwrap()).contains("wrong object type"));

    // Galois keys: element order, parity, range, count.
    let gks = &ctx.generate_galois_keys_with(&k.sk, &[1], false, &mut k.rng);
    let key = gks.iter().next().unwrap();
    let g = key.galois_element();
    let galois = |elements: &[u32], count: u32| {
        let mut w = Writer::new();
        w.write_header(GaloisKeys::TAG, ctx.ring().fingerprint());
        w.write_u32(count);
        for &e in elements {
            w.write_u32(e);
            ctx.keyswitcher()
                .ordinary_key(key.key())
                .write_body(&mut w, ctx.ring());
        }
        deserialize_err(GaloisKeys::from_bytes(&w.into_bytes(), &ctx))
    };
    let g = g as u32;
    assert!(galois(&[g, g], 2).contains("strictly increasing"));
    assert!(galois(&[g + 2, g], 2).contains("strictly increasing"));
    assert!(galois(&[4], 1).contains("Galois element 4 is not an odd number below 2N = 2048"));
    assert!(galois(&[2049], 1).contains("Galois element 2049"));
    assert!(galois(&[], 1025).contains("exceeds the N = 1024"));
    assert!(galois(&[], u32::MAX).contains("exceeds"));
    assert!(galois(&[g], 2).contains("truncated"));

    // A switching key of another shape: one digit instead of dnum = 2.
    let SwitchingKey::Hybrid(mut one_digit) = key.key().clone() else {
        panic!("a hybrid context's key")
    };
    one_digit.digits.truncate(1);
    let rlk = hekate::ckks::RelinearizationKey(SwitchingKey::Hybrid(one_digit.clone()));
    // The writer refuses it (the context could not use it) ...
    assert!(matches!(
        rlk.to_bytes(&ctx),
        Err(Error::ParameterMismatch(_))
    ));
    // ... and the reader refuses such bytes.
    let mut w = Writer::new();
    w.write_header(
        <hekate::ckks::RelinearizationKey as Serialize>::TAG,
        ctx.ring().fingerprint(),
    );
    one_digit.write_body(&mut w, ctx.ring());
    let m = deserialize_err(hekate::ckks::RelinearizationKey::from_bytes(
        &w.into_bytes(),
        &ctx,
    ));
    assert!(
        m.contains("does not have the context's shape (dnum = 2): it has 1 digits"),
        "{m}"
    );
}

/// The test parameters are below the 128-bit bound (small rings) and say so in their
/// bytes (`NotChecked`): reading them back is an explicit opt-out.
fn test_policy() -> ReadPolicy {
    ReadPolicy::default().min_security(SecurityLevel::NotChecked)
}

#[test]
fn bytes_never_lower_the_security_check() {
    let (ctx, _) = contexts();
    let bytes = ckks_context_to_bytes(&ctx);
    // The blob records NotChecked: refused under the default policy and under 128 bits,
    // with a message that says how to opt out.
    for r in [
        ckks_context_from_bytes(&bytes).map(|_| ()),
        CkksContext::from_bytes(&bytes, &()).map(|_| ()),
        ckks_context_from_bytes_with(
            &bytes,
            &ReadPolicy::default().min_security(SecurityLevel::Bits128),
        )
        .map(|_| ()),
    ] {
        let m = deserialize_err(r);
        assert!(m.contains("not checked") && m.contains("NotChecked"), "{m}");
    }
    // A 128-bit blob is refused by a reader asking for 192 bits.
    let secure = CkksParameters::new(12)
        .log_q(&[35, 30])
        .log_p(&[40])
        .build()
        .unwrap();
    let b128 = ckks_context_to_bytes(&secure);
    assert!(ckks_context_from_bytes(&b128).is_ok());
    let m = deserialize_err(ckks_context_from_bytes_with(
        &b128,
        &ReadPolicy::default().min_security(SecurityLevel::Bits192),
    ));
    assert!(m.contains("below the reader's minimum"), "{m}");
    // The heuristic KLSS bound needs its own opt-in, even where security is opted out.
    let heuristic = CkksParameters::new(10)
        .log_q(&[50, 40, 40])
        .log_p(&[55, 55])
        .dnum(2)
        .security(SecurityLevel::NotChecked)
        .key_switching(hekate::rlwe::keyswitch::KeySwitchMethod::Linear(
            hekate::rlwe::keyswitch::KlssBound::Heuristic,
        ))
        .build()
        .unwrap();
    let hb = ckks_context_to_bytes(&heuristic);
    let m = deserialize_err(ckks_context_from_bytes_with(&hb, &test_policy()));
    assert!(m.contains("heuristic KLSS bound"), "{m}");
    let back =
        ckks_context_from_bytes_with(&hb, &test_policy().allow_heuristic_klss(true)).unwrap();
    assert!(ctx_eq(&back, &heuristic));
}

#[test]
fn reading_parameters_is_bounded_by_the_readers_limit() {
    let (ctx, _) = contexts();
    let bytes = ckks_context_to_bytes(&ctx);
    // The context's tables: (L + 1 + k) primes of N words, several tables each.
    let m = deserialize_err(ckks_context_from_bytes_with(
        &bytes,
        &test_policy().max_alloc_bytes(4096),
    ));
    assert!(m.contains("over the reader's limit"), "{m}");
    assert!(ckks_context_from_bytes_with(&bytes, &test_policy().max_alloc_bytes(64 << 20)).is_ok());
}
