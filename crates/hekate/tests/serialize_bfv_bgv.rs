//! Serialization of the BFV/BGV objects: the contract for every type and both schemes,
//! save / load / decrypt through rebuilt parameters, seed compression, and hostile inputs
//! (other `t`, a CKKS context, bad correction factors, unreduced coefficients, tags,
//! truncations, trailing bytes, the allocation limit).

use hekate::ckks::{CkksContext, CkksParameters};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::rlwe::evaluation_keys::{GaloisKeys, RelinearizationKey};
use hekate::rlwe::integer::{
    Ciphertext, Evaluator, IntegerContext, IntegerParameters, ModSwitching, MulVariant, Plaintext,
    Scheme,
};
use hekate::rlwe::keyswitch::{KeyStorage, KeySwitchMethod, KlssConfig};
use hekate::rlwe::{PublicKey, SecretDistribution, SecretKey};
use hekate::serialize::testing::{check_contract, check_contract_standalone_with};
use hekate::serialize::{
    integer_context_from_bytes, integer_context_from_bytes_with, integer_context_to_bytes,
    peek_header, Deserialize, ReadPolicy, Serialize, HEADER_LEN, MAX_NOISE_LOG2,
};
use hekate::{Error, Result};
use std::sync::Arc;

const T: u64 = 65537;
/// Another batching prime (`3 · 2^18 + 1`) for the "other plaintext modulus" checks.
const OTHER_T: u64 = 786433;

fn params(scheme: Scheme, t: u64) -> IntegerParameters {
    IntegerParameters::new(scheme, 10)
        .plaintext_modulus(t)
        .log_q(&[50, 40, 40])
        .log_p(&[55, 55])
        .dnum(2)
        .security(SecurityLevel::NotChecked)
}

fn policy() -> ReadPolicy {
    ReadPolicy::default().min_security(SecurityLevel::NotChecked)
}

/// The context of `scheme` with `t`, and one with the same ring but another `t`.
fn contexts(scheme: Scheme, t: u64) -> (Arc<IntegerContext>, Arc<IntegerContext>) {
    let ctx = params(scheme, t).build().unwrap();
    let other = params(scheme, OTHER_T)
        .q_primes(&ctx.q_primes())
        .p_primes(&ctx.p_primes())
        .build()
        .unwrap();
    assert_eq!(ctx.ring().fingerprint(), other.ring().fingerprint());
    assert_ne!(ctx.fingerprint(), other.fingerprint());
    (ctx, other)
}

/// A CKKS context over the same ring as `ctx`.
fn ckks_twin(ctx: &IntegerContext) -> Arc<CkksContext> {
    CkksParameters::new(10)
        .q_primes(&ctx.q_primes())
        .p_primes(&ctx.p_primes())
        .dnum(2)
        .log_scale(30)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap()
}

fn ctx_eq(a: &IntegerContext, b: &IntegerContext) -> bool {
    let (ra, rb) = (a.rlwe(), b.rlwe());
    a.scheme() == b.scheme()
        && a.n() == b.n()
        && a.q_primes() == b.q_primes()
        && a.p_primes() == b.p_primes()
        && a.t() == b.t()
        && ra.dnum() == rb.dnum()
        && ra.secret_distribution() == rb.secret_distribution()
        && a.security() == b.security()
        && ra.key_switch_method() == rb.key_switch_method()
        && ra.key_storage() == rb.key_storage()
        && a.mod_switching() == b.mod_switching()
        && a.mul_variant() == b.mul_variant()
        && a.plaintext_modulus().supports_batching() == b.plaintext_modulus().supports_batching()
        && a.fingerprint() == b.fingerprint()
}

fn deserialize_err<X>(r: Result<X>) -> String {
    match r {
        Err(Error::Deserialize(m)) => m,
        Err(e) => panic!("wrong error variant: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

struct Keys {
    sk: SecretKey,
    pk: PublicKey,
    rlk: RelinearizationKey,
    gks: GaloisKeys,
    rng: ChaCha20Rng,
}

fn keys(ctx: &IntegerContext, seed: u64) -> Keys {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let pk = ctx.generate_public_key_with(&sk, &mut rng);
    let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
    let gks = ctx.generate_galois_keys_with(&sk, &[1, -3], true, &mut rng);
    Keys {
        sk,
        pk,
        rlk,
        gks,
        rng,
    }
}

fn values(ctx: &IntegerContext, rng: &mut ChaCha20Rng) -> Vec<u64> {
    (0..ctx.n()).map(|_| rng.next_u64() % ctx.t()).collect()
}

#[test]
fn parameters_contract() {
    for scheme in [Scheme::Bfv, Scheme::Bgv] {
        let sets = [
            params(scheme, T),
            // No batching (t = 2), Hamming secret, manual switching, HPS products.
            params(scheme, 2)
                .secret(SecretDistribution::HammingWeight(64))
                .mod_switching(ModSwitching::Manual)
                .mul_variant(MulVariant::Hps),
            // A composite t, a Gaussian secret, a KLSS engine with compact storage.
            params(scheme, 65535)
                .secret(SecretDistribution::Gaussian)
                .key_switching(KeySwitchMethod::Klss(KlssConfig::klss(2)))
                .key_storage(KeyStorage::ExpandedWithOrdinary),
        ];
        for p in sets {
            let ctx = p.build().unwrap();
            check_contract_standalone_with(&*ctx, &policy(), ctx_eq);
            let back = integer_context_from_bytes_with(&integer_context_to_bytes(&ctx), &policy())
                .unwrap();
            assert!(ctx_eq(&ctx, &back));
            assert_eq!(
                back.plaintext_modulus().supports_batching(),
                ctx.t() == T,
                "batching is derived from t and N"
            );
        }
    }
}

#[test]
fn parameters_round_trip_with_security_check() {
    // 128-bit secure parameters: reading runs the security check again and passes.
    let ctx = IntegerParameters::new(Scheme::Bgv, 14)
        .log_q(&[50, 40, 40])
        .log_p(&[55, 55])
        .dnum(2)
        .build()
        .unwrap();
    let bytes = integer_context_to_bytes(&ctx);
    let back = integer_context_from_bytes(&bytes).unwrap();
    assert!(ctx_eq(&ctx, &back));
    assert_eq!(back.security(), SecurityLevel::Bits128);
    // The header carries the context's fingerprint (ring and t), as every object does.
    let h = peek_header(&bytes).unwrap();
    assert_eq!(h.tag, IntegerContext::TAG);
    assert_eq!(h.fingerprint, ctx.fingerprint());
    assert_ne!(h.fingerprint, ctx.ring().fingerprint());
    assert_eq!(ctx.to_bytes(&()).unwrap(), bytes);
    assert!(ctx_eq(
        &IntegerContext::from_bytes(&bytes, &()).unwrap(),
        &ctx
    ));
    // Test parameters below 128 bits are refused unless the reader opts out.
    let (toy, _) = contexts(Scheme::Bfv, T);
    let m = deserialize_err(integer_context_from_bytes(&integer_context_to_bytes(&toy)));
    assert!(m.contains("below the reader's minimum"), "{m}");
}

#[test]
fn hostile_parameters_are_rejected() {
    let (ctx, _) = contexts(Scheme::Bfv, T);
    let bytes = integer_context_to_bytes(&ctx);
    let read = |b: &[u8]| integer_context_from_bytes_with(b, &policy());
    // Body: scheme u8 | N u32 | L+1 u16 | k u16 | 5 primes | t u64 | ...
    let t_at = HEADER_LEN + 1 + 4 + 2 + 2 + 8 * 5;
    let patched = |at: usize, v: &[u8]| {
        let mut b = bytes.clone();
        b[at..at + v.len()].copy_from_slice(v);
        b
    };
    let m = deserialize_err(read(&patched(HEADER_LEN, &[2])));
    assert!(m.contains("unknown scheme 2"), "{m}");
    // t = q_0 shares a factor with q_0 (checked before the fingerprint).
    let q0 = ctx.q_primes()[0];
    let m = deserialize_err(read(&patched(t_at, &q0.to_le_bytes())));
    assert!(m.contains("shares a factor"), "{m}");
    for bad in [0u64, 1, 1 << 61] {
        let m = deserialize_err(read(&patched(t_at, &bad.to_le_bytes())));
        assert!(m.contains("outside [2, 2^61)"), "{m}");
    }
    // Another valid t: the fingerprint no longer matches.
    let m = deserialize_err(read(&patched(t_at, &OTHER_T.to_le_bytes())));
    assert!(m.contains("corrupt BFV parameters"), "{m}");
    // The scheme byte is not in the fingerprint, but BGV parameters read back as BGV.
    let bgv = read(&patched(HEADER_LEN, &[1])).unwrap();
    assert_eq!(bgv.scheme(), Scheme::Bgv);
    // Unknown modulus-switching and product codes (the last two bytes).
    let len = bytes.len();
    let m = deserialize_err(read(&patched(len - 2, &[2])));
    assert!(m.contains("unknown modulus switching"), "{m}");
    let m = deserialize_err(read(&patched(len - 1, &[2])));
    assert!(m.contains("unknown multiplication variant"), "{m}");
    // The allocation limit covers the context's tables.
    let tight = policy().max_alloc_bytes(64 << 10);
    let m = deserialize_err(integer_context_from_bytes_with(&bytes, &tight));
    assert!(m.contains("limit"), "{m}");
    // CKKS parameters are not BFV/BGV parameters.
    let ckks = hekate::serialize::ckks_context_to_bytes(&ckks_twin(&ctx));
    let m = deserialize_err(read(&ckks));
    assert!(m.contains("wrong object type"), "{m}");
}

#[test]
fn plaintext_contract_and_validation() {
    for scheme in [Scheme::Bfv, Scheme::Bgv] {
        let (ctx, other) = contexts(scheme, T);
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let pt = ctx.encode(&values(&ctx, &mut rng)).unwrap();
        check_contract(&pt, &ctx, &other, |a, b| a == b);
        let sparse = ctx.encode_coefficients(&[1, 0, T - 1]).unwrap();
        check_contract(&sparse, &ctx, &other, |a, b| a == b);
        // 17-bit coefficients: N * 17 / 8 bytes.
        let bytes = pt.to_bytes(&ctx).unwrap();
        assert_eq!(bytes.len(), HEADER_LEN + 4 + ctx.n() * 17 / 8);
        // A coefficient >= t (the first 17 bits all set: 2^17 - 1).
        let mut bad = bytes.clone();
        bad[HEADER_LEN + 4] = 0xFF;
        bad[HEADER_LEN + 5] = 0xFF;
        bad[HEADER_LEN + 6] |= 1;
        let m = deserialize_err(Plaintext::from_bytes(&bad, &ctx));
        assert!(m.contains("not below t = 65537"), "{m}");
        // A plaintext of another t is not writable here.
        assert!(pt.to_bytes(&other).is_err());
        // Wrong degree.
        let mut bad = bytes.clone();
        bad[HEADER_LEN + 1] ^= 1;
        let m = deserialize_err(Plaintext::from_bytes(&bad, &ctx));
        assert!(m.contains("degree"), "{m}");
        // Wrong tag: a plaintext is not a ciphertext.
        let m = deserialize_err(Ciphertext::from_bytes(&bytes, &ctx));
        assert!(m.contains("wrong object type"), "{m}");
        // Allocation limit.
        let tight = ReadPolicy::default().max_alloc_bytes(1024);
        let m = deserialize_err(Plaintext::from_bytes_with(&bytes, &ctx, &tight));
        assert!(m.contains("limit"), "{m}");
    }
}

/// Ciphertexts of every shape: fresh (public key; secret key, seeded), degree 2, a
/// relinearized product (BGV: modulus-switched, so another factor), rotated.
fn ciphertexts(ctx: &Arc<IntegerContext>, k: &mut Keys) -> Vec<(Ciphertext, Vec<u64>)> {
    let eval = Evaluator::new(ctx.clone(), Some(k.rlk.clone()), k.gks.clone());
    let x = values(ctx, &mut k.rng);
    let y = values(ctx, &mut k.rng);
    let tm = hekate::math::Modulus::new(ctx.t());
    let xy: Vec<u64> = x.iter().zip(&y).map(|(&a, &b)| tm.mul(a, b)).collect();
    let fresh_pk = ctx
        .encrypt_with(&ctx.encode(&x).unwrap(), &k.pk, &mut k.rng)
        .unwrap();
    let fresh_sk = ctx
        .encrypt_symmetric_with(&ctx.encode(&y).unwrap(), &k.sk, &mut k.rng)
        .unwrap();
    assert!(fresh_pk.seed().is_none() && fresh_sk.seed().is_some());
    let deg2 = eval.mul_no_relin(&fresh_pk, &fresh_sk).unwrap();
    assert_eq!(deg2.degree(), 2);
    let product = eval.mul(&fresh_pk, &fresh_sk).unwrap();
    // BFV products are in coefficient form (and read back so), BGV's in NTT form.
    let want_form = if ctx.scheme() == Scheme::Bfv {
        hekate::ring::Form::Coeff
    } else {
        hekate::ring::Form::Ntt
    };
    assert_eq!(product.form(), want_form);
    let half = ctx.n() / 2;
    let rotated_want: Vec<u64> = (0..ctx.n())
        .map(|i| {
            let (r, j) = (i / half, i % half);
            xy[r * half + (j + 1) % half]
        })
        .collect();
    let rotated = eval.rotate_rows(&product, 1).unwrap();
    vec![
        (fresh_pk, x),
        (fresh_sk, y),
        (deg2, xy.clone()),
        (product, xy),
        (rotated, rotated_want),
    ]
}

#[test]
fn ciphertext_contract_and_decryption() {
    for scheme in [Scheme::Bfv, Scheme::Bgv] {
        let (ctx, other) = contexts(scheme, T);
        let mut k = keys(&ctx, 11);
        let cts = ciphertexts(&ctx, &mut k);
        if scheme == Scheme::Bgv {
            let product = &cts[3].0;
            assert!(product.level() < ctx.max_level() && product.correction_factor() != 1);
        }
        let ckks = ckks_twin(&ctx);
        for (ct, want) in &cts {
            check_contract(ct, &ctx, &other, |a, b| a == b);
            let bytes = ct.to_bytes(&ctx).unwrap();
            let back = Ciphertext::from_bytes(&bytes, &ctx).unwrap();
            assert_eq!(back, *ct);
            assert_eq!(back.estimated_noise_log2(), ct.estimated_noise_log2());
            assert_eq!(back.correction_factor(), ct.correction_factor());
            assert_eq!(&ctx.decrypt_decode(&back, &k.sk).unwrap(), want);
            // Not under a CKKS context of the same ring.
            assert!(hekate::ckks::Ciphertext::from_bytes(&bytes, &ckks).is_err());
            // Not writable under another t.
            assert!(ct.to_bytes(&other).is_err());
        }
    }
}

#[test]
fn seeded_ciphertext_stays_compressed() {
    let (ctx, _) = contexts(Scheme::Bgv, T);
    let mut k = keys(&ctx, 12);
    let pt = ctx.encode(&values(&ctx, &mut k.rng)).unwrap();
    let seeded = ctx.encrypt_symmetric_with(&pt, &k.sk, &mut k.rng).unwrap();
    let full = ctx.encrypt_with(&pt, &k.pk, &mut k.rng).unwrap();
    let (s, f) = (
        seeded.to_bytes(&ctx).unwrap().len(),
        full.to_bytes(&ctx).unwrap().len(),
    );
    // c_0 plus a 32-byte seed against c_0 and c_1.
    assert!(2 * s < f + 100, "seeded {s} bytes, full {f}");
    let back = Ciphertext::from_bytes(&seeded.to_bytes(&ctx).unwrap(), &ctx).unwrap();
    assert_eq!(back.seed(), seeded.seed());
    assert_eq!(back.to_bytes(&ctx).unwrap().len(), s);
}

#[test]
fn hostile_ciphertexts_are_rejected() {
    // Body: degree u8 | storage u8 | factor u64 | noise f64 | parts.
    let (factor_at, noise_at) = (HEADER_LEN + 2, HEADER_LEN + 10);
    for (t, not_units) in [
        (T, vec![0, T, T + 1, u64::MAX]),
        (65535, vec![0, 3, 5, 257]),
    ] {
        let ctx = params(Scheme::Bgv, t).build().unwrap();
        let mut k = keys(&ctx, 13);
        let pt = ctx.encode_coefficients(&[1, 2, 3]).unwrap();
        let ct = ctx.encrypt_with(&pt, &k.pk, &mut k.rng).unwrap();
        let bytes = ct.to_bytes(&ctx).unwrap();
        let patched = |at: usize, v: u64| {
            let mut b = bytes.clone();
            b[at..at + 8].copy_from_slice(&v.to_le_bytes());
            b
        };
        for f in not_units {
            let m = deserialize_err(Ciphertext::from_bytes(&patched(factor_at, f), &ctx));
            assert!(m.contains("is not a unit mod t"), "factor {f}: {m}");
        }
        // Another unit is a valid factor: the message reads back multiplied by it^-1.
        let two = Ciphertext::from_bytes(&patched(factor_at, 2), &ctx).unwrap();
        assert_eq!(two.correction_factor(), 2);
        let m = ctx.decrypt(&two, &k.sk).unwrap();
        let tm = hekate::math::Modulus::new(t);
        assert_eq!(tm.mul(m.coefficients()[1], 2), 2);
        for bad in [f64::NAN, f64::INFINITY, -1.0, MAX_NOISE_LOG2 + 1.0] {
            let m = deserialize_err(Ciphertext::from_bytes(
                &patched(noise_at, bad.to_bits()),
                &ctx,
            ));
            assert!(m.contains("noise estimate"), "noise {bad}: {m}");
        }
        // Degree, storage: a seeded degree-2 ciphertext, unknown storage, degree 3.
        for (at, v, what) in [
            (HEADER_LEN, 3u8, "degree 3"),
            (HEADER_LEN + 1, 2, "unknown ciphertext storage"),
        ] {
            let mut b = bytes.clone();
            b[at] = v;
            let m = deserialize_err(Ciphertext::from_bytes(&b, &ctx));
            assert!(m.contains(what), "{m}");
        }
        let mut b = bytes.clone();
        b[HEADER_LEN] = 2;
        b[HEADER_LEN + 1] = 1;
        let m = deserialize_err(Ciphertext::from_bytes(&b, &ctx));
        assert!(m.contains("seed-compressed ciphertext has degree 1"), "{m}");
        // Truncated, trailing.
        assert!(Ciphertext::from_bytes(&bytes[..bytes.len() - 1], &ctx).is_err());
        let mut b = bytes.clone();
        b.push(0);
        let m = deserialize_err(Ciphertext::from_bytes(&b, &ctx));
        assert!(m.contains("trailing"), "{m}");
        // Allocation limit: the parts do not fit.
        let tight = ReadPolicy::default().max_alloc_bytes(4096);
        let m = deserialize_err(Ciphertext::from_bytes_with(&bytes, &ctx, &tight));
        assert!(m.contains("limit"), "{m}");
    }
    // A noise estimate past the cap is refused by the writer too.
    let (ctx, _) = contexts(Scheme::Bgv, T);
    let mut k = keys(&ctx, 14);
    let ct = ctx
        .encrypt_with(&ctx.encode(&[1]).unwrap(), &k.pk, &mut k.rng)
        .unwrap();
    let big =
        Ciphertext::from_parts(&ctx, ct.parts().to_vec(), 1, None, MAX_NOISE_LOG2 * 2.0).unwrap();
    assert!(big.to_bytes(&ctx).is_err());
}

/// The serialization contract of an evaluation key written through the
/// [`IntegerContext`] methods: round trip, determinism, every (sampled) truncation,
/// header flips, trailing bytes, and a context with another `t`.
fn check_key<K: PartialEq + std::fmt::Debug>(
    key: &K,
    write: impl Fn(&IntegerContext, &K) -> Result<Vec<u8>>,
    read: impl Fn(&IntegerContext, &[u8]) -> Result<K>,
    ctx: &IntegerContext,
    other: &IntegerContext,
) -> Vec<u8> {
    let bytes = write(ctx, key).unwrap();
    assert_eq!(write(ctx, key).unwrap(), bytes, "deterministic");
    let back = read(ctx, &bytes).unwrap();
    assert_eq!(&back, key);
    assert_eq!(write(ctx, &back).unwrap(), bytes);
    let step = (bytes.len() / 97).max(1);
    for cut in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
        assert!(read(ctx, &bytes[..cut]).is_err(), "truncation to {cut}");
    }
    for pos in 0..HEADER_LEN {
        let mut b = bytes.clone();
        b[pos] ^= 0x01;
        assert!(read(ctx, &b).is_err(), "header flip at {pos}");
    }
    let mut b = bytes.clone();
    b.extend_from_slice(&[0xAB; 3]);
    assert!(read(ctx, &b).is_err(), "trailing bytes");
    let m = deserialize_err(read(other, &bytes));
    assert!(m.contains("parameter mismatch"), "{m}");
    // (Keys do not depend on t: `other`, of the same ring, may write them, under its
    // own fingerprint.)
    bytes
}

#[test]
fn evaluation_keys_round_trip_and_work() {
    for (scheme, method) in [
        (Scheme::Bfv, KeySwitchMethod::Hybrid),
        (Scheme::Bgv, KeySwitchMethod::Hybrid),
        (Scheme::Bgv, KeySwitchMethod::Klss(KlssConfig::klss(2))),
    ] {
        let ctx = params(scheme, T).key_switching(method).build().unwrap();
        let other = params(scheme, OTHER_T)
            .key_switching(method)
            .q_primes(&ctx.q_primes())
            .p_primes(&ctx.p_primes())
            .build()
            .unwrap();
        let mut k = keys(&ctx, 21);
        let rlk_bytes = check_key(
            &k.rlk,
            |c, key| c.relinearization_key_to_bytes(key),
            |c, b| c.relinearization_key_from_bytes_with(b, &policy()),
            &ctx,
            &other,
        );
        let gk_bytes = check_key(
            &k.gks,
            |c, key| c.galois_keys_to_bytes(key),
            |c, b| c.galois_keys_from_bytes_with(b, &policy()),
            &ctx,
            &other,
        );
        check_key(
            &GaloisKeys::new(),
            |c, key| c.galois_keys_to_bytes(key),
            |c, b| c.galois_keys_from_bytes_with(b, &policy()),
            &ctx,
            &other,
        );
        // A context of another ring refuses to write them.
        let far = params(scheme, T).log_q(&[50, 40, 39]).build().unwrap();
        assert!(far.relinearization_key_to_bytes(&k.rlk).is_err());
        assert!(far.galois_keys_to_bytes(&k.gks).is_err());
        // The relinearization key is not the Galois keys, nor a CKKS key.
        let m = deserialize_err(ctx.galois_keys_from_bytes(&rlk_bytes));
        assert!(m.contains("wrong object type"), "{m}");
        if method == KeySwitchMethod::Hybrid {
            let ckks = ckks_twin(&ctx);
            assert!(RelinearizationKey::from_bytes(&rlk_bytes, &ckks).is_err());
            // Same body as the CKKS key, another header: a CKKS encoding of the key is
            // refused here, by tag.
            let ck = k.rlk.to_bytes(&ckks).unwrap();
            assert_eq!(ck[HEADER_LEN..], rlk_bytes[HEADER_LEN..]);
            let m = deserialize_err(ctx.relinearization_key_from_bytes(&ck));
            assert!(m.contains("wrong object type"), "{m}");
        }
        // Allocation limit.
        let tight = policy().max_alloc_bytes(8192);
        let m = deserialize_err(ctx.galois_keys_from_bytes_with(&gk_bytes, &tight));
        assert!(m.contains("limit"), "{m}");
        // Keys read back relinearize and rotate correctly.
        let rlk = ctx.relinearization_key_from_bytes(&rlk_bytes).unwrap();
        let gks = ctx.galois_keys_from_bytes(&gk_bytes).unwrap();
        let eval = Evaluator::new(ctx.clone(), Some(rlk), gks);
        let x = values(&ctx, &mut k.rng);
        let ct = ctx
            .encrypt_with(&ctx.encode(&x).unwrap(), &k.pk, &mut k.rng)
            .unwrap();
        let sq = eval.rotate_columns(&eval.square(&ct).unwrap()).unwrap();
        let tm = hekate::math::Modulus::new(T);
        let half = ctx.n() / 2;
        let want: Vec<u64> = (0..ctx.n())
            .map(|i| tm.mul(x[(i + half) % ctx.n()], x[(i + half) % ctx.n()]))
            .collect();
        assert_eq!(ctx.decrypt_decode(&sq, &k.sk).unwrap(), want);
    }
}

/// Secret and public keys are ring-level objects: written and read under `ctx.ring()`.
#[test]
fn secret_and_public_keys_under_the_ring() {
    for scheme in [Scheme::Bfv, Scheme::Bgv] {
        let (ctx, _) = contexts(scheme, T);
        let mut k = keys(&ctx, 31);
        let ring = ctx.ring();
        let sk = SecretKey::from_bytes(&k.sk.to_bytes(ring).unwrap(), ring).unwrap();
        let pk = PublicKey::from_bytes(&k.pk.to_bytes(ring).unwrap(), ring).unwrap();
        assert_eq!(pk, k.pk);
        let x = values(&ctx, &mut k.rng);
        let ct = ctx
            .encrypt_with(&ctx.encode(&x).unwrap(), &pk, &mut k.rng)
            .unwrap();
        assert_eq!(ctx.decrypt_decode(&ct, &sk).unwrap(), x);
        let ct = ctx
            .encrypt_symmetric_with(&ctx.encode(&x).unwrap(), &sk, &mut k.rng)
            .unwrap();
        assert_eq!(ctx.decrypt_decode(&ct, &k.sk).unwrap(), x);
    }
}
