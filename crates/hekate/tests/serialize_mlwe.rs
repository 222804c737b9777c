//! Serialization of the MLWE-CKKS objects: the contract for every type, a save / load /
//! compute / decrypt cycle through rebuilt parameters (ModHE and DPad-HE products, rank
//! reduction, plain and rank-hoisted rotations), the reader's security policy, and
//! hostile inputs.

use hekate::mlwe::{
    Ciphertext, Evaluator, HoistedRotationKeys, MlweContext, MlweParameters, PublicKey,
    RankReductionKey, RelinMethod, RelinearizationKey, RotationKey, SecretKey,
};
use hekate::params::SecurityLevel;
use hekate::rlwe::SecretDistribution;
use hekate::serialize::testing::{check_contract, check_contract_standalone_with};
use hekate::serialize::{
    mlwe_context_from_bytes, mlwe_context_from_bytes_with, mlwe_context_to_bytes, peek_header,
    Deserialize, ReadPolicy, Serialize, Writer, HEADER_LEN,
};
use hekate::Error;
use num_complex::Complex64;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

/// `n = 2^8`, rank 2, `Q` of 60 + 40 + 40 bits, one 60-bit `P`, DPad-HE with `r̂ = 3`
/// and `P̂` of 60 + 55 bits, scale `2^40` (toy size: not checked).
fn params() -> MlweParameters {
    MlweParameters::new(8, 2)
        .log_q(&[60, 40, 40])
        .log_p(&[60])
        .log_scale(40)
        .dpad(3, &[60, 55], None)
        .security(SecurityLevel::NotChecked)
}

/// The test context and one with another chain (for the "other parameters" checks).
fn contexts() -> (Arc<MlweContext>, Arc<MlweContext>) {
    let other = MlweParameters::new(8, 2)
        .log_q(&[60, 40, 39])
        .log_p(&[60])
        .log_scale(40)
        .dpad(3, &[60, 55], None)
        .security(SecurityLevel::NotChecked);
    (params().build().unwrap(), other.build().unwrap())
}

fn test_policy() -> ReadPolicy {
    ReadPolicy::default().min_security(SecurityLevel::NotChecked)
}

fn ctx_eq(a: &MlweContext, b: &MlweContext) -> bool {
    a.n() == b.n()
        && a.rank() == b.rank()
        && a.q_primes() == b.q_primes()
        && a.p_primes() == b.p_primes()
        && a.dnum() == b.dnum()
        && a.rank_hat() == b.rank_hat()
        && a.p_hat_primes() == b.p_hat_primes()
        && a.dpad().map(|d| d.mu()) == b.dpad().map(|d| d.mu())
        && a.secret_distribution() == b.secret_distribution()
        && a.default_scale() == b.default_scale()
        && a.security() == b.security()
        && a.fingerprint() == b.fingerprint()
}

fn values(n: usize, seed: u64) -> Vec<Complex64> {
    (0..n)
        .map(|i| {
            let x = (i as u64 * 7 + seed) as f64;
            Complex64::new((x * 0.37).sin(), (x * 0.11).cos() / 2.0)
        })
        .collect()
}

fn max_err(got: &[Complex64], want: &[Complex64]) -> f64 {
    assert_eq!(got.len(), want.len());
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

/// Every key of a context, from a fixed seed.
struct Keys {
    sk: SecretKey,
    pk: PublicKey,
    modhe: RelinearizationKey,
    dpad: RelinearizationKey,
    /// ModHE at rank 1 for levels <= 1 (after rank reduction).
    modhe_rank1: RelinearizationKey,
    reduce: RankReductionKey,
    rotations: Vec<RotationKey>,
    hoisted: HoistedRotationKeys,
}

const STEPS: [i64; 2] = [1, -3];
const HOISTED_STEPS: [i64; 2] = [1, 5];

fn keys(ctx: &MlweContext, seed: u64) -> Keys {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    Keys {
        pk: ctx.generate_public_key_with(&sk, &mut rng).unwrap(),
        modhe: ctx
            .generate_relinearization_key_with(&sk, RelinMethod::ModHe, &mut rng)
            .unwrap(),
        dpad: ctx
            .generate_relinearization_key_with(&sk, RelinMethod::DPad, &mut rng)
            .unwrap(),
        modhe_rank1: ctx
            .generate_relinearization_key_at_with(&sk, RelinMethod::ModHe, 1, 1, &mut rng)
            .unwrap(),
        reduce: ctx
            .generate_rank_reduction_key_with(&sk, 2, 1, 1, &mut rng)
            .unwrap(),
        rotations: ctx
            .generate_rotation_keys_with(&sk, &STEPS, &mut rng)
            .unwrap(),
        hoisted: ctx
            .generate_hoisted_rotation_keys_with(&sk, &HOISTED_STEPS, &mut rng)
            .unwrap(),
        sk,
    }
}

/// Secret keys are equal when they decrypt a ciphertext to the same plaintext and
/// generate the same DPad-HE key from the same randomness (which uses every component
/// over both `Q ∪ P` and `Q ∪ P̂`).
fn sk_eq(ctx: &Arc<MlweContext>) -> impl Fn(&SecretKey, &SecretKey) -> bool + '_ {
    move |a, b| {
        let mut rng = ChaCha20Rng::seed_from_u64(99);
        let pt = ctx.encode(&values(ctx.max_slots(), 1)).unwrap();
        let ct = ctx.encrypt_symmetric_with(&pt, a, &mut rng).unwrap();
        let key = |s: &SecretKey| {
            ctx.generate_relinearization_key_with(
                s,
                RelinMethod::DPad,
                &mut ChaCha20Rng::seed_from_u64(7),
            )
            .unwrap()
        };
        a.components() == b.components()
            && ctx.decrypt(&ct, a).unwrap() == ctx.decrypt(&ct, b).unwrap()
            && key(a) == key(b)
    }
}

#[test]
fn parameters_contract() {
    let (ctx, _) = contexts();
    check_contract_standalone_with(&*ctx, &test_policy(), ctx_eq);
    assert_eq!(mlwe_context_to_bytes(&ctx), ctx.to_bytes(&()).unwrap());
    // No DPad-HE, a Gaussian secret and a scale that is not a power of two; rank 1 with
    // a Hamming-weight secret and an explicit d.
    let others = [
        MlweParameters::new(6, 3)
            .log_q(&[55, 40])
            .log_p(&[56])
            .scale(1.5 * 2f64.powi(35))
            .secret(SecretDistribution::Gaussian)
            .security(SecurityLevel::NotChecked),
        MlweParameters::new(8, 1)
            .log_q(&[50, 30])
            .log_p(&[50])
            .dnum(2)
            .secret(SecretDistribution::HammingWeight(32))
            .security(SecurityLevel::NotChecked),
        // Explicit μ = 1 (P̂ covering all of Q).
        MlweParameters::new(5, 2)
            .log_q(&[30, 25])
            .log_p(&[31])
            .dpad(4, &[60], Some(1))
            .security(SecurityLevel::NotChecked),
    ];
    for p in others {
        let c = p.build().unwrap();
        check_contract_standalone_with(&*c, &test_policy(), ctx_eq);
    }
}

/// The rebuilt context has the original's primes (explicit, not regenerated), `d`, `μ`
/// and fingerprint, and explicit primes are validated like generated ones.
#[test]
fn explicit_primes_rebuild_the_context() {
    let (ctx, _) = contexts();
    let back = mlwe_context_from_bytes_with(&mlwe_context_to_bytes(&ctx), &test_policy()).unwrap();
    assert!(ctx_eq(&ctx, &back));
    assert_eq!(back.ring().fingerprint(), ctx.ring().fingerprint());
    // A prime that is 1 mod 2n but not mod 2N' (the conversion ring, N' = 2n here).
    let n = ctx.n() as u64;
    let bad = (1u64 << 40..)
        .step_by(2 * n as usize)
        .map(|x| x + 1)
        .find(|&x| hekate::math::is_prime(x) && x % (4 * n) != 1)
        .unwrap();
    let e = MlweParameters::new(8, 2)
        .q_primes(&[bad])
        .p_primes(&ctx.p_primes())
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("1 mod 2N'"), "{e}");
    assert!(MlweParameters::new(8, 2)
        .q_primes(&ctx.q_primes())
        .p_primes(&[ctx.q_primes()[0]])
        .security(SecurityLevel::NotChecked)
        .build()
        .is_err());
}

#[test]
fn parameters_security_is_the_readers_policy() {
    // 128-bit parameters at r·n = 4096 (and r̂·n = 5120): the check runs again on read.
    let secure = MlweParameters::new(10, 4)
        .log_q(&[35, 25])
        .log_p(&[40])
        .dpad(5, &[45], None)
        .build()
        .unwrap();
    let bytes = mlwe_context_to_bytes(&secure);
    let back = mlwe_context_from_bytes(&bytes).unwrap();
    assert!(ctx_eq(&secure, &back));
    let m = deserialize_err(mlwe_context_from_bytes_with(
        &bytes,
        &ReadPolicy::default().min_security(SecurityLevel::Bits256),
    ));
    assert!(m.contains("below the reader's minimum"), "{m}");
    // Toy parameters are refused under the default policy, accepted on opt-in.
    let (ctx, _) = contexts();
    let toy = mlwe_context_to_bytes(&ctx);
    let m = deserialize_err(mlwe_context_from_bytes(&toy));
    assert!(m.contains("not checked"), "{m}");
    assert!(mlwe_context_from_bytes_with(&toy, &test_policy()).is_ok());
    // Bytes claiming 128 bits for the toy set: the builder's check refuses them.
    let mut claimed = toy.clone();
    let pos = security_offset(&ctx);
    assert_eq!(claimed[pos], 3, "the security byte of the toy set");
    claimed[pos] = 0;
    let m = deserialize_err(mlwe_context_from_bytes_with(&claimed, &test_policy()));
    assert!(m.contains("do not form a valid context"), "{m}");
}

/// The offset of the security-level byte of `ctx`'s parameter encoding (ternary secret).
fn security_offset(ctx: &MlweContext) -> usize {
    let primes = ctx.q_primes().len() + ctx.p_primes().len();
    let dpad = ctx.p_hat_primes().map_or(0, |p| 2 + 2 + 8 * p.len() + 2);
    HEADER_LEN + 8 + 8 * primes + 2 + 2 + 1 + dpad + 1
}

#[test]
fn ciphertexts_and_keys_contract() {
    let (ctx, other) = contexts();
    let k = keys(&ctx, 1);
    let ev = Evaluator::new(ctx.clone(), Some(k.dpad.clone()))
        .with_rank_reduction_key(k.reduce.clone())
        .with_hoisted_rotation_keys(k.hoisted.clone());
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let pt = ctx.encode(&values(ctx.max_slots(), 3)).unwrap();
    let fresh_pk = ctx.encrypt_with(&pt, &k.pk, &mut rng).unwrap();
    let fresh_sk = ctx.encrypt_symmetric_with(&pt, &k.sk, &mut rng).unwrap();
    let quadratic = ev.tensor(&fresh_pk, &fresh_sk).unwrap();
    let product = ev.rescale(&ev.mul(&fresh_pk, &fresh_sk).unwrap()).unwrap();
    let reduced = ev.rank_reduce(&product, 1).unwrap();
    let lifted = ev.lift_rank(&fresh_pk).unwrap();
    let level0 = ev.drop_level(&fresh_sk, 2).unwrap();
    for ct in [
        &fresh_pk, &fresh_sk, &quadratic, &product, &reduced, &lifted, &level0,
    ] {
        check_contract(ct, &*ctx, &*other, |a, b| a == b);
    }
    check_contract(&k.sk, &*ctx, &*other, sk_eq(&ctx));
    check_contract(&k.pk, &*ctx, &*other, |a, b| a == b);
    for rlk in [&k.modhe, &k.dpad, &k.modhe_rank1] {
        check_contract(rlk, &*ctx, &*other, |a, b| a == b);
    }
    check_contract(&k.reduce, &*ctx, &*other, |a, b| a == b);
    for rot in &k.rotations {
        check_contract(rot, &*ctx, &*other, |a, b| a == b);
    }
    check_contract(&k.hoisted, &*ctx, &*other, |a, b| a == b);
}

/// Keys and ciphertexts are written seed-compressed: the public key and every switching
/// key store one `b` per row (the uniform parts are re-expanded from the seed).
#[test]
fn keys_are_seed_compressed() {
    let (ctx, _) = contexts();
    let k = keys(&ctx, 3);
    let poly_bytes = |limbs: &[u64]| -> usize {
        9 + limbs
            .iter()
            .map(|&q| (ctx.n() * (64 - (q - 1).leading_zeros()) as usize).div_ceil(8))
            .sum::<usize>()
    };
    let all: Vec<u64> = ctx.q_primes().into_iter().chain(ctx.p_primes()).collect();
    let pk_bytes = k.pk.to_bytes(&ctx).unwrap();
    assert_eq!(
        pk_bytes.len(),
        HEADER_LEN + 32 + ctx.rank() * poly_bytes(&all)
    );
    let RelinearizationKey::ModHe(key) = &k.modhe else {
        panic!("ModHE key")
    };
    let rlk = k.modhe.to_bytes(&ctx).unwrap();
    let b_count = key.inputs() * key.rows[0].len();
    assert_eq!(
        rlk.len(),
        HEADER_LEN + 2 + 32 + 2 + b_count * poly_bytes(&all)
    );
}

/// A fresh secret-key encryption is written as `b` and the seed of its `a` parts (about
/// `1/(1 + r)` of the full size), reads back with its seed, and decrypts; every operation
/// clears the seed, so what it returns is written in full.
#[test]
fn symmetric_ciphertexts_are_seed_compressed() {
    let (ctx, _) = contexts();
    let k = keys(&ctx, 12);
    let ev =
        Evaluator::new(ctx.clone(), Some(k.dpad.clone())).with_rotation_keys(k.rotations.clone());
    let z = values(ctx.max_slots(), 13);
    let pt = ctx.encode(&z).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(14);
    let seeded = ctx.encrypt_symmetric_with(&pt, &k.sk, &mut rng).unwrap();
    let full = ctx.encrypt_with(&pt, &k.pk, &mut rng).unwrap();
    assert!(seeded.seed().is_some() && full.seed().is_none());
    let (sb, fb) = (seeded.to_bytes(&ctx).unwrap(), full.to_bytes(&ctx).unwrap());
    let part = (fb.len() - HEADER_LEN - 2 - 11 - 4) / 3;
    assert_eq!(sb.len(), fb.len() - 2 * part + 32);
    assert_eq!(sb[HEADER_LEN + 1], 2, "form: seed-compressed");
    let back = Ciphertext::from_bytes(&sb, &ctx).unwrap();
    assert_eq!(back, seeded);
    assert_eq!(back.seed(), seeded.seed());
    let e = max_err(&ctx.decrypt_decode(&back, &k.sk).unwrap(), &z);
    assert!(e < 1e-6, "error {e}");
    // Every operation clears the seed (and its result is written in full).
    let mut scaled = seeded.clone();
    scaled.set_scale(seeded.scale().clone());
    assert!(scaled.seed().is_some(), "set_scale keeps the parts");
    for out in [
        ev.add(&seeded, &seeded).unwrap(),
        ev.sub(&seeded, &full).unwrap(),
        ev.neg(&seeded).unwrap(),
        ev.add_const(&seeded, 0.5).unwrap(),
        ev.mul_const(&seeded, 0.5).unwrap(),
        ev.add_plain(&seeded, &pt).unwrap(),
        ev.mul_plain(&seeded, &pt).unwrap(),
        ev.tensor(&seeded, &seeded).unwrap(),
        ev.mul(&seeded, &seeded).unwrap(),
        ev.rescale(&seeded).unwrap(),
        ev.drop_level(&seeded, 1).unwrap(),
        ev.rotate(&seeded, 1).unwrap(),
        ev.lift_rank(&seeded).unwrap(),
    ] {
        assert!(out.seed().is_none());
        let b = out.to_bytes(&ctx).unwrap();
        assert_ne!(b[HEADER_LEN + 1], 2);
        assert_eq!(Ciphertext::from_bytes(&b, &ctx).unwrap(), out);
    }
}

#[test]
fn saved_objects_compute_and_decrypt_under_rebuilt_parameters() {
    let (ctx, _) = contexts();
    let k = keys(&ctx, 4);
    let slots = ctx.max_slots();
    let (z1, z2) = (values(slots, 5), values(slots, 6));
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let a = ctx
        .encrypt_with(&ctx.encode(&z1).unwrap(), &k.pk, &mut rng)
        .unwrap();
    let b = ctx
        .encrypt_symmetric_with(&ctx.encode(&z2).unwrap(), &k.sk, &mut rng)
        .unwrap();

    // Save everything, then load it under a context rebuilt from its bytes.
    let policy = test_policy();
    let ctx2 = mlwe_context_from_bytes_with(&mlwe_context_to_bytes(&ctx), &policy).unwrap();
    fn reload<T: Deserialize>(x: &T, from: &T::Context, to: &T::Context) -> T {
        T::from_bytes_with(&x.to_bytes(from).unwrap(), to, &test_policy()).unwrap()
    }
    let (c1, c2) = (&*ctx, &*ctx2);
    let sk2: SecretKey = reload(&k.sk, c1, c2);
    let pk2: PublicKey = reload(&k.pk, c1, c2);
    let (a2, b2): (Ciphertext, Ciphertext) = (reload(&a, c1, c2), reload(&b, c1, c2));
    assert_eq!((&a2, &b2), (&a, &b), "ciphertext words");
    let evaluator = |ctx: &Arc<MlweContext>, rlk: RelinearizationKey, k: &Keys| {
        Evaluator::new(ctx.clone(), Some(rlk))
            .with_relinearization_key(k.modhe_rank1.clone())
            .with_rank_reduction_key(k.reduce.clone())
            .with_rotation_keys(k.rotations.clone())
            .with_hoisted_rotation_keys(k.hoisted.clone())
    };
    let k2 = Keys {
        sk: reload(&k.sk, c1, c2),
        pk: pk2.clone(),
        modhe: reload(&k.modhe, c1, c2),
        dpad: reload(&k.dpad, c1, c2),
        modhe_rank1: reload(&k.modhe_rank1, c1, c2),
        reduce: reload(&k.reduce, c1, c2),
        rotations: k.rotations.iter().map(|r| reload(r, c1, c2)).collect(),
        hoisted: reload(&k.hoisted, c1, c2),
    };
    assert!(k2.modhe == k.modhe && k2.dpad == k.dpad && k2.hoisted == k.hoisted);

    let prod: Vec<Complex64> = z1.iter().zip(&z2).map(|(x, y)| x * y).collect();
    let rot = |z: &[Complex64], s: i64| -> Vec<Complex64> {
        (0..slots)
            .map(|i| z[(i as i64 + s).rem_euclid(slots as i64) as usize])
            .collect()
    };
    for method in [RelinMethod::ModHe, RelinMethod::DPad] {
        let pick = |k: &Keys| match method {
            RelinMethod::ModHe => k.modhe.clone(),
            RelinMethod::DPad => k.dpad.clone(),
        };
        let (ev1, ev2) = (
            evaluator(&ctx, pick(&k), &k),
            evaluator(&ctx2, pick(&k2), &k2),
        );
        // The same operations with the original and the reloaded keys give the same
        // words; the reloaded secret key decrypts them to the expected messages.
        let run = |ev: &Evaluator, a: &Ciphertext, b: &Ciphertext| {
            let p = ev.rescale(&ev.mul(a, b).unwrap()).unwrap();
            let r1 = ev.rank_reduce(&p, 1).unwrap();
            let sq = ev.rescale(&ev.mul(&r1, &r1).unwrap()).unwrap();
            let rotated: Vec<Ciphertext> =
                STEPS.iter().map(|&s| ev.rotate(a, s).unwrap()).collect();
            let hoisted = ev.rotate_chain_hoisted(b, &HOISTED_STEPS).unwrap();
            (p, r1, sq, rotated, hoisted)
        };
        let out1 = run(&ev1, &a, &b);
        let out2 = run(&ev2, &a2, &b2);
        assert!(out1 == out2, "{method:?}: results differ after reloading");
        let (p, r1, sq, rotated, hoisted) = out2;
        // Each result also survives its own save and load.
        let p: Ciphertext = reload(&p, c2, c1);
        let dec = |ct: &Ciphertext| ctx2.decrypt_decode(ct, &sk2).unwrap();
        let e = max_err(&dec(&p), &prod);
        assert!(e < 1e-5, "{method:?} product: error {e}");
        assert_eq!(r1.rank(), 1);
        let e = max_err(&dec(&r1), &prod);
        assert!(e < 1e-5, "{method:?} rank-reduced product: error {e}");
        let sq_want: Vec<Complex64> = prod.iter().map(|x| x * x).collect();
        let e = max_err(&dec(&sq), &sq_want);
        assert!(e < 1e-4, "{method:?} rank-1 square: error {e}");
        for (ct, &s) in rotated.iter().zip(&STEPS) {
            let e = max_err(&dec(ct), &rot(&z1, s));
            assert!(e < 1e-5, "rotation by {s}: error {e}");
        }
        let e = max_err(&dec(&hoisted), &rot(&z2, HOISTED_STEPS.iter().sum()));
        assert!(e < 1e-5, "hoisted rotations: error {e}");
    }
    // The reloaded public key encrypts under the original secret key.
    let c = ctx2
        .encrypt_with(&ctx2.encode(&z1).unwrap(), &pk2, &mut rng)
        .unwrap();
    let e = max_err(&ctx.decrypt_decode(&c, &k.sk).unwrap(), &z1);
    assert!(e < 1e-6, "reloaded public key: error {e}");
}

/// A small context (`n = 2^4`) whose ciphertexts are short enough to cut at every length.
#[test]
fn every_truncation_of_small_objects_is_refused() {
    let ctx = MlweParameters::new(4, 2)
        .log_q(&[30, 25])
        .log_p(&[31])
        .dpad(3, &[40], None)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let ct = ctx
        .encrypt_symmetric_with(&ctx.encode(&values(8, 1)).unwrap(), &sk, &mut rng)
        .unwrap();
    let params = mlwe_context_to_bytes(&ctx);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("ciphertext", ct.to_bytes(&ctx).unwrap()),
        ("secret key", sk.to_bytes(&ctx).unwrap()),
        ("parameters", params.clone()),
    ];
    for (what, bytes) in cases {
        for cut in 0..bytes.len() {
            let r = match what {
                "ciphertext" => Ciphertext::from_bytes(&bytes[..cut], &ctx).map(drop),
                "secret key" => SecretKey::from_bytes(&bytes[..cut], &ctx).map(drop),
                _ => mlwe_context_from_bytes_with(&bytes[..cut], &test_policy()).map(drop),
            };
            let m = deserialize_err(r);
            assert!(
                m.contains("truncated"),
                "{what} cut to {cut} of {}: {m}",
                bytes.len()
            );
        }
    }
    assert!(mlwe_context_from_bytes_with(&params, &test_policy()).is_ok());
}

#[test]
fn hostile_ciphertexts_and_keys_are_refused() {
    let (ctx, other) = contexts();
    let k = keys(&ctx, 10);
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    // A public-key encryption: every part stored.
    let ct = ctx
        .encrypt_with(&ctx.encode(&values(8, 2)).unwrap(), &k.pk, &mut rng)
        .unwrap();
    let bytes = ct.to_bytes(&ctx).unwrap();
    assert_eq!(peek_header(&bytes).unwrap().tag, Ciphertext::TAG);

    // Wrong tag, another context, trailing bytes.
    let m = deserialize_err(PublicKey::from_bytes(&bytes, &ctx));
    assert!(m.contains("wrong object type"), "{m}");
    let m = deserialize_err(Ciphertext::from_bytes(&bytes, &other));
    assert!(m.contains("parameter mismatch"), "{m}");
    let mut long = bytes.clone();
    long.push(0);
    let m = deserialize_err(Ciphertext::from_bytes(&long, &ctx));
    assert!(m.contains("trailing bytes"), "{m}");
    // The writer refuses objects of another context.
    assert!(matches!(
        ct.to_bytes(&other),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(k.dpad.to_bytes(&other).is_err());

    // Body layout: rank, quadratic flag, scale (2^40: 2 + 6 + 2 + 1 bytes), slots, parts.
    let body = HEADER_LEN;
    let part0 = body + 2 + 11 + 4;
    assert_eq!(
        &bytes[body + 2..body + 4],
        &[6, 0],
        "scale numerator length"
    );
    let patched = |pos: usize, value: &[u8]| {
        let mut m = bytes.clone();
        m[pos..pos + value.len()].copy_from_slice(value);
        Ciphertext::from_bytes(&m, &ctx)
    };
    for rank in [0u8, 4, 255] {
        let m = deserialize_err(patched(body, &[rank]));
        assert!(m.contains("rank"), "rank {rank}: {m}");
    }
    let m = deserialize_err(patched(body + 1, &[3]));
    assert!(m.contains("MLWE ciphertext form 3"), "{m}");
    // The quadratic form without the quadratic parts: truncated; the seeded form over
    // every part: trailing bytes (or a refused part).
    let m = deserialize_err(patched(body + 1, &[1]));
    assert!(m.contains("truncated"), "{m}");
    assert!(patched(body + 1, &[2]).is_err());
    // Levels: more chain limbs than the context has, special limbs, parts of different
    // levels.
    let m = deserialize_err(patched(part0 + 4, &[4, 0]));
    assert!(m.contains("context has only"), "{m}");
    let craft = |q0: usize, q1: usize| {
        let mut w = Writer::new();
        w.write_header(Ciphertext::TAG, ctx.fingerprint());
        w.write_bytes(&bytes[body..part0]);
        ct.parts()[0]
            .restricted(q0, 0)
            .write_body(&mut w, ctx.ring());
        for p in &ct.parts()[1..] {
            p.restricted(q1, 0).write_body(&mut w, ctx.ring());
        }
        Ciphertext::from_bytes(&w.into_bytes(), &ctx)
    };
    let m = deserialize_err(craft(3, 2));
    assert!(m.contains("part 1 has 2 chain limbs, part 0 has 3"), "{m}");
    assert_eq!(craft(2, 2).unwrap().level(), 1);
    // An unreduced residue: the first residue of part 0 set to all ones (>= q_0).
    let width = 64 - (ctx.q_primes()[0] - 1).leading_zeros() as usize;
    let mut m = bytes.clone();
    for bit in 0..width {
        m[part0 + 9 + bit / 8] |= 1 << (bit % 8);
    }
    let e = deserialize_err(Ciphertext::from_bytes(&m, &ctx));
    assert!(e.contains("not below its modulus"), "{e}");

    // Secret key: another component count, a non-canonical encoding.
    let sk_bytes = k.sk.to_bytes(&ctx).unwrap();
    let mut m = sk_bytes.clone();
    m[HEADER_LEN + 4] = 2;
    let e = deserialize_err(SecretKey::from_bytes(&m, &ctx));
    assert!(e.contains("components"), "{e}");
    let mut m = sk_bytes.clone();
    m[HEADER_LEN + 6] = 7;
    let e = deserialize_err(SecretKey::from_bytes(&m, &ctx));
    assert!(e.contains("encoding"), "{e}");

    // Relinearization keys: unknown method, rank out of range, a DPad-HE key under a
    // context without DPad-HE (same ring, rank and d).
    let rlk = k.dpad.to_bytes(&ctx).unwrap();
    let patch_key = |b: &[u8], pos: usize, v: u8| {
        let mut m = b.to_vec();
        m[pos] = v;
        RelinearizationKey::from_bytes(&m, &ctx)
    };
    let e = deserialize_err(patch_key(&rlk, HEADER_LEN, 2));
    assert!(e.contains("unknown MLWE relinearization method"), "{e}");
    for rank in [0u8, 3] {
        let e = deserialize_err(patch_key(&rlk, HEADER_LEN + 1, rank));
        assert!(e.contains("rank"), "{e}");
    }
    // A key width beyond the chain.
    let e = deserialize_err(patch_key(&rlk, HEADER_LEN + 2 + 32, 9));
    assert!(e.contains("width"), "{e}");
    let plain = MlweParameters::new(8, 2)
        .q_primes(&ctx.q_primes())
        .p_primes(&ctx.p_primes())
        .log_scale(40)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    assert_eq!(plain.ring().fingerprint(), ctx.ring().fingerprint());
    let mut m = rlk.clone();
    m[8..16].copy_from_slice(&plain.fingerprint().to_le_bytes());
    let e = deserialize_err(RelinearizationKey::from_bytes(&m, &plain));
    assert!(e.contains("needs DPad-HE"), "{e}");
    let mut m = k.hoisted.to_bytes(&ctx).unwrap();
    m[8..16].copy_from_slice(&plain.fingerprint().to_le_bytes());
    let e = deserialize_err(HoistedRotationKeys::from_bytes(&m, &plain));
    assert!(e.contains("needs DPad-HE"), "{e}");
    // A ciphertext of the same ring under the context without DPad-HE: another
    // fingerprint (rank, d or DPad-HE settings belong to the parameters).
    assert!(Ciphertext::from_bytes(&bytes, &plain).is_err());

    // Rank reduction: ranks out of order or beyond r.
    let rr = k.reduce.to_bytes(&ctx).unwrap();
    for (from, to) in [(1u8, 2u8), (2, 2), (3, 1), (2, 0)] {
        let mut m = rr.clone();
        m[HEADER_LEN] = from;
        m[HEADER_LEN + 1] = to;
        let e = deserialize_err(RankReductionKey::from_bytes(&m, &ctx));
        assert!(e.contains("rank-reduction key from rank"), "{e}");
    }

    // Rotation keys: an even or too large Galois element.
    let rot = k.rotations[0].to_bytes(&ctx).unwrap();
    for g in [4u32, 2 * ctx.n() as u32 + 1] {
        let mut m = rot.clone();
        m[HEADER_LEN..HEADER_LEN + 4].copy_from_slice(&g.to_le_bytes());
        let e = deserialize_err(RotationKey::from_bytes(&m, &ctx));
        assert!(e.contains("not an odd number"), "{e}");
    }

    // Hoisted keys out of order: the first element raised above the second.
    let mut hk = k.hoisted.to_bytes(&ctx).unwrap();
    assert!(k.hoisted.keys.len() >= 2);
    let top = (2 * ctx.n() - 1) as u32;
    hk[HEADER_LEN + 4..HEADER_LEN + 8].copy_from_slice(&top.to_le_bytes());
    let e = deserialize_err(HoistedRotationKeys::from_bytes(&hk, &ctx));
    assert!(e.contains("strictly increasing"), "{e}");
    // The writer refuses the same (keys in decreasing order).
    let mut rev = k.hoisted.clone();
    rev.keys.reverse();
    assert!(matches!(
        rev.to_bytes(&ctx),
        Err(Error::ParameterMismatch(_))
    ));

    // The allocation limit is charged before allocating.
    for (what, b, limit) in [
        ("ciphertext", bytes.clone(), 4 << 10),
        ("relinearization key", rlk.clone(), 64 << 10),
    ] {
        let p = ReadPolicy::default().max_alloc_bytes(limit);
        let r = if what == "ciphertext" {
            Ciphertext::from_bytes_with(&b, &ctx, &p).map(drop)
        } else {
            RelinearizationKey::from_bytes_with(&b, &ctx, &p).map(drop)
        };
        let e = deserialize_err(r);
        assert!(e.contains("over the reader's limit"), "{what}: {e}");
    }
    let e = deserialize_err(mlwe_context_from_bytes_with(
        &mlwe_context_to_bytes(&ctx),
        &test_policy().max_alloc_bytes(64 << 10),
    ));
    assert!(e.contains("over the reader's limit"), "{e}");
}

#[test]
fn hostile_parameters_are_refused() {
    let (ctx, _) = contexts();
    let bytes = mlwe_context_to_bytes(&ctx);
    let primes = ctx.q_primes().len() + ctx.p_primes().len();
    let rank_at = HEADER_LEN + 8 + 8 * primes;
    let read = |m: &[u8]| deserialize_err(mlwe_context_from_bytes_with(m, &test_policy()));
    let patched = |pos: usize, value: &[u8]| {
        let mut m = bytes.clone();
        m[pos..pos + value.len()].copy_from_slice(value);
        read(&m)
    };
    for (pos, value, needle) in [
        (rank_at, &[0u8, 0][..], "rank r = 0"),
        (rank_at, &[17, 0], "rank r = 17"),
        (rank_at + 2, &[0, 0], "dnum = 0"),
        (rank_at + 2, &[4, 0], "dnum = 4"),
        (rank_at + 4, &[2], "DPad-HE flag 2"),
        (rank_at + 5, &[2, 0], "r̂ = 2"),
        (rank_at + 5, &[5, 0], "r̂ = 5"),
        (rank_at + 7, &[0, 0], "0 DPad-HE special primes"),
        (
            rank_at + 9,
            &ctx.q_primes()[0].to_le_bytes(),
            "appears twice",
        ),
        (rank_at + 9, &12u64.to_le_bytes(), "not a prime"),
        (rank_at + 9 + 16, &[0, 0], "μ = 0"),
        (HEADER_LEN + 8, &[1, 0, 0, 0, 0, 0, 0, 0], "not a prime"),
    ] {
        let m = patched(pos, value);
        assert!(m.contains(needle), "{needle}: {m}");
    }
    // A consistent body with another fingerprint in the header.
    let mut m = bytes.clone();
    m[8] ^= 1;
    assert!(read(&m).contains("corrupt MLWE parameters"));
    // A valid-looking edit of d (3 -> 2): the fingerprint covers it.
    assert_eq!(ctx.dnum(), 3);
    let m = patched(rank_at + 2, &[2, 0]);
    assert!(m.contains("corrupt MLWE parameters"), "{m}");
}

/// Plaintexts (tag `0x0208`, through `MlwePlaintext` or the context's methods): the
/// contract at the top level and after dropping to level 0, the same bytes both ways, a
/// round trip that decodes to the message and encrypts, and the refusals: a plaintext of
/// another context, and bytes of another context.
#[test]
fn plaintexts_contract_and_round_trip() {
    use hekate::mlwe::MlwePlaintext;
    let (ctx, other) = contexts();
    let z = values(ctx.max_slots(), 0x0208);
    let top = ctx.encode(&z).unwrap();
    let low = ctx.encode_at(&z, 0, ctx.default_scale()).unwrap();
    for pt in [&top, &low] {
        check_contract(&MlwePlaintext(pt.clone()), &*ctx, &*other, |a, b| a == b);
        let bytes = ctx.plaintext_to_bytes(pt).unwrap();
        assert_eq!(bytes, MlwePlaintext(pt.clone()).to_bytes(&ctx).unwrap());
        let back = ctx.plaintext_from_bytes(&bytes).unwrap();
        assert_eq!(&back, pt);
        assert!(max_err(&ctx.decode(&back).unwrap(), &z) < 1e-9);
        let sk = ctx.generate_secret_key();
        let ct = ctx.encrypt_symmetric(&back, &sk).unwrap();
        assert!(max_err(&ctx.decrypt_decode(&ct, &sk).unwrap(), &z) < 1e-6);
    }
    // A plaintext of another context is not written under this one, and bytes of another
    // context are not read.
    let foreign = other.encode(&z).unwrap();
    assert!(ctx.plaintext_to_bytes(&foreign).is_err());
    assert!(MlwePlaintext(foreign.clone()).to_bytes(&ctx).is_err());
    let theirs = other.plaintext_to_bytes(&foreign).unwrap();
    assert!(ctx.plaintext_from_bytes(&theirs).is_err());
    let msg = deserialize_err(ctx.plaintext_from_bytes(&theirs[..HEADER_LEN + 3]));
    assert!(!msg.is_empty());
}
