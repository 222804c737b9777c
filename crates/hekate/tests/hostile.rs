//! Hostile and mismatched inputs found by trying main at 5b88c1a (issue 16, item 9, and the
//! review's P0/P1 findings): each used to panic, allocate gigabytes or give a silent wrong
//! answer, and is now an error.

mod common;

use common::fixture_with;
use hekate::ckks::{CkksParameters, RelinearizationKey};
use hekate::fhew::params::{self, FhewParams, Method, MethodConfig};
use hekate::fhew::threshold::THRESHOLD_STD128;
use hekate::fhew::{test_vector, FhewContext, FhewEvaluator, Gate, LweCiphertext, LweKeySwitchKey};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::rlwe::keyswitch::{KeySwitchMethod, KlssConfig};
use hekate::rlwe::{HybridKey, PublicKey};
use hekate::serialize::{fhew_fingerprint, Deserialize, ReadPolicy, Serialize, Writer};
use hekate::Error;
use std::sync::Arc;

fn toy(p: &FhewParams) -> Arc<FhewContext> {
    FhewContext::with_security(p, SecurityLevel::NotChecked).unwrap()
}

#[test]
fn weak_fhew_sets_are_refused_by_default() {
    for p in [
        &params::MEDIUM,
        &params::OPENFHE_MEDIUM,
        &params::TOY,
        &params::STD128,
    ] {
        match FhewContext::new(p) {
            Err(Error::Insecure(m)) => {
                assert!(m.contains(p.name) && m.contains("NotChecked"), "{m}")
            }
            other => panic!("{}: {:?}", p.name, other.map(|_| ())),
        }
        assert!(FhewContext::with_security(p, SecurityLevel::NotChecked).is_ok());
    }
    for p in [
        &params::OPENFHE_STD128,
        &params::OPENFHE_STD128_LMKCDEY,
        &params::OPENFHE_STD192,
    ] {
        assert!(FhewContext::new(p).is_ok(), "{}", p.name);
    }
    assert!(FhewContext::with_security(&params::OPENFHE_STD128, SecurityLevel::Bits192).is_err());
    // The insecure test set is no preset.
    assert!(FhewParams::by_name("toy").is_err());
    assert!(params::PRESETS.iter().all(|p| p.name != "TOY"));
}

#[test]
fn narrow_errors_and_secrets_are_refused_by_default() {
    // The review found σ ignored by the estimate: a 128-bit set with σ = 0.17 (the
    // narrowest the sampler takes) or a secret narrower than ternary passed, from code and
    // from bytes alike.
    let narrow = [
        FhewParams {
            sigma: 0.17,
            ..params::OPENFHE_STD128
        },
        FhewParams {
            lwe_secret: hekate::fhew::LweSecretDistribution::Gaussian { sigma: 0.3 },
            ..params::OPENFHE_STD128
        },
    ];
    for p in &narrow {
        assert!(
            matches!(FhewContext::new(p), Err(Error::Insecure(_))),
            "{p:?}"
        );
        let ctx = toy(p);
        let bytes = hekate::serialize::fhew_context_to_bytes(&ctx);
        assert!(
            hekate::serialize::fhew_context_from_bytes(&bytes).is_err(),
            "{p:?}"
        );
        assert!(hekate::serialize::fhew_context_from_bytes_with(
            &bytes,
            &ReadPolicy::default().min_security(SecurityLevel::NotChecked)
        )
        .is_ok());
    }
}

#[test]
fn threshold_decryption_is_labelled_not_simulation_secure() {
    for k in [2, 4, 16] {
        let bits = THRESHOLD_STD128
            .flooding_bits(k, Method::LmkcdeyAux)
            .unwrap();
        assert!(
            bits < 2.0,
            "k = {k}: flooding {bits:.2} bits wider than the error"
        );
        assert!(!THRESHOLD_STD128
            .decryption_simulation_secure(k, Method::LmkcdeyAux, 40)
            .unwrap());
    }
    // Key generation is 128-bit.
    assert!(THRESHOLD_STD128
        .fhew
        .security()
        .meets(SecurityLevel::Bits128));
}

/// About 47 bytes of FHEW parameters (n = 2^16, N = 2^15, Q_ks = 2^2, B_ks = 2) and a
/// 16 KiB key-switching key used to make the reader expand 2^32 mask words (8 GiB).
#[test]
fn a_small_key_switching_key_cannot_force_a_huge_allocation() {
    let p = FhewParams {
        name: "hostile",
        n: 1 << 16,
        big_n: 1 << 15,
        q: 1 << 16,
        log_q_ks: 2,
        log_b_ks: 1,
        bg_schedule: &[],
        ..params::TOY
    };
    let ctx = toy(&p);
    let rows = p.big_n * 2;
    let mut w = Writer::new();
    w.write_header(LweKeySwitchKey::TAG, fhew_fingerprint(&p));
    w.write_u8(2);
    w.write_u8(1);
    w.write_u32(p.big_n as u32);
    w.write_u32(p.n as u32);
    w.write_bytes(&[7u8; 32]);
    w.write_bits(&vec![1u64; rows], 2);
    let bytes = w.into_bytes();
    assert!(bytes.len() < 17 << 10, "{} bytes", bytes.len());
    for policy in [
        ReadPolicy::default(),
        ReadPolicy::default().max_alloc_bytes(1 << 20),
    ] {
        match LweKeySwitchKey::from_bytes_with(&bytes, &ctx, &policy) {
            Err(Error::Deserialize(m)) => assert!(m.contains("over the reader's limit"), "{m}"),
            other => panic!("accepted: {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn bootstrapping_keys_of_other_parameters_are_refused() {
    let mut rng = ChaCha20Rng::seed_from_u64(16);
    let a = toy(&params::TOY);
    // Same n and N, another Q.
    let b = toy(&FhewParams {
        log_big_q: 28,
        ..params::TOY
    });
    let sk = a.generate_secret_key_with(&mut rng).unwrap();
    let key = Arc::new(
        a.generate_bootstrap_key_with(&sk, MethodConfig::new(Method::Ginx), &mut rng)
            .unwrap(),
    );
    match FhewEvaluator::new(b.clone(), key.clone()) {
        Err(Error::ParameterMismatch(m)) => assert!(m.contains("other FHEW parameters"), "{m}"),
        other => panic!("accepted: {:?}", other.map(|_| ())),
    }
    assert!(key.to_bytes(&b).is_err());
    let mut ev = FhewEvaluator::new(a.clone(), key).unwrap();
    // A test polynomial of another ring degree.
    let other_ring = toy(&FhewParams {
        big_n: 512,
        ..params::TOY
    });
    let f = test_vector(&other_ring, |_| 1);
    let ct = a.encrypt_bit_with(true, &sk, &mut rng).unwrap();
    match ev.bootstrap(&ct, &f, 0) {
        Err(Error::ParameterMismatch(m)) => assert!(m.contains("test polynomial"), "{m}"),
        other => panic!("accepted: {:?}", other.map(|_| ())),
    }
    // A hand-built ciphertext out of range.
    let bad = LweCiphertext {
        a: vec![0; params::TOY.n],
        b: u64::MAX - 3,
        q: params::TOY.q,
    };
    assert!(a.decrypt_bit(&bad, &sk).is_err());
    assert!(ev.gate(Gate::Nand, &bad, &ct).is_err());
    assert!(bad.to_bytes(&a).is_err());
    assert!(LweCiphertext::new(vec![0; 4], 300, 256).is_err());
    assert!(LweCiphertext::new(vec![0; 4], 3, 1 << 40).is_err());
    assert!(LweCiphertext::new(vec![1; 4], 3, 256).is_ok());
}

#[test]
fn objects_written_under_another_context_are_errors() {
    let klss = fixture_with(10, 3, &[], KeySwitchMethod::Klss(KlssConfig::klss(2)));
    let hybrid = fixture_with(10, 3, &[], KeySwitchMethod::Hybrid);
    // A KLSS key kept expanded only, written under a hybrid context of the same ring:
    // this used to panic.
    let rlk: RelinearizationKey = klss.ctx.generate_relinearization_key(&klss.sk);
    assert!(matches!(
        rlk.to_bytes(&hybrid.ctx),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(rlk.to_bytes(&klss.ctx).is_ok());
    // A ciphertext written under another context: used to give bytes that context read
    // back as a valid ciphertext.
    let other = CkksParameters::new(10)
        .log_q(&[55, 40, 40, 41])
        .log_p(&[60, 60])
        .dnum(2)
        .log_scale(40)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let pt = klss.ctx.encode_real(&[0.5, 0.25]).unwrap();
    let ct = klss.ctx.encrypt(&pt, &klss.pk).unwrap();
    assert!(matches!(
        ct.to_bytes(&other),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(pt.to_bytes(&other).is_err());
    assert!(ct.to_bytes(&klss.ctx).is_ok());
}

/// A public key with fewer limbs than the context's used to pass the reader and panic at
/// the first encryption.
#[test]
fn public_keys_must_have_their_full_shape() {
    let f = fixture_with(10, 4, &[], KeySwitchMethod::Hybrid);
    let ring = f.ctx.ring();
    let good = f.pk.to_bytes(ring).unwrap();
    assert!(PublicKey::from_bytes(&good, ring).is_ok());
    let seed = &good[16..48];
    for (q, p) in [(ring.q_len(), 0), (ring.q_len() - 1, ring.p_len()), (1, 0)] {
        let mut w = Writer::new();
        w.write_header(PublicKey::TAG, ring.fingerprint());
        w.write_bytes(seed);
        let b = f.pk.b.restricted(q, p);
        b.write_body(&mut w, ring);
        match PublicKey::from_bytes(&w.into_bytes(), ring) {
            Err(Error::Deserialize(m)) => assert!(m.contains("a public key has all"), "{m}"),
            other => panic!("({q}, {p}) accepted: {:?}", other.map(|_| ())),
        }
    }
}

/// ALTMULT keys at OpenFHE's STD128 get about 37% of the gates wrong (their own
/// prediction, and measured so): an evaluator refuses them unless the caller opts in.
#[test]
fn configurations_that_fail_too_often_are_refused() {
    use hekate::fhew::{GadgetDecomposition, RotationArithmetic};
    let ctx = FhewContext::new(&params::OPENFHE_STD128).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(37);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let cfg = MethodConfig::new(Method::Ginx).with_alt_mult(true);
    let key = Arc::new(ctx.generate_bootstrap_key_with(&sk, cfg, &mut rng).unwrap());
    match FhewEvaluator::new(ctx.clone(), key.clone()) {
        Err(Error::InvalidParameters(m)) => {
            assert!(
                m.contains("predicted to get a gate wrong") && m.contains("with_failure_bound"),
                "{m}"
            )
        }
        other => panic!("accepted: {:?}", other.map(|_| ())),
    }
    let (r, d) = FhewEvaluator::default_products(&ctx, &key);
    assert_eq!(
        (r, d),
        (
            RotationArithmetic::Fourier,
            GadgetDecomposition::Approximate
        )
    );
    assert!(
        FhewEvaluator::with_failure_bound(ctx, key, r, GadgetDecomposition::Exact, 1.0).is_ok()
    );
}

/// Found by `tests/fuzz.rs`: a ring-level hybrid key whose digits have fewer limbs than
/// `Q ∪ P` passed the reader, and relinearizing with it panicked (slice out of range in
/// key switching). Every digit must have all of `P` and one chain width (at least one limb
/// per digit); a narrower key of the context's shape is a level-aware key, refused with
/// an error (not a panic) above its level.
#[test]
fn hybrid_keys_must_have_their_full_shape() {
    use hekate::ckks::{Evaluator, GaloisKeys};
    use hekate::rlwe::keyswitch::SwitchingKey;
    let f = fixture_with(10, 5, &[], KeySwitchMethod::Hybrid);
    let ring = f.ctx.ring();
    let rlk = f.eval.keys().relinearization_key().unwrap();
    let SwitchingKey::Hybrid(hk) = &rlk.0 else {
        panic!("hybrid")
    };
    let good = hk.to_bytes(ring).unwrap();
    let back = HybridKey::from_bytes(&good, ring).unwrap();
    let ev = Evaluator::new(
        f.ctx.clone(),
        Some(RelinearizationKey(SwitchingKey::Hybrid(back))),
        GaloisKeys::new(),
    );
    let pt = f.ctx.encode_real(&[0.5]).unwrap();
    let ct = f.ctx.encrypt(&pt, &f.pk).unwrap();
    assert!(ev.mul(&ct, &ct).is_ok());
    // The full key's digits cut to the top level minus one: a shape the ring-level reader
    // accepts (dnum digits <= width), the evaluator refuses (a narrow key of this width
    // has other digit counts, or does not cover the ciphertext's level), never a panic.
    let mut w = Writer::new();
    w.write_header(HybridKey::TAG, ring.fingerprint());
    w.write_bytes(&hk.seed);
    w.write_u16(hk.digits.len() as u16);
    for [b, _] in &hk.digits {
        b.restricted(ring.q_len() - 1, ring.p_len())
            .write_body(&mut w, ring);
    }
    let cut = HybridKey::from_bytes(&w.into_bytes(), ring).unwrap();
    let ev = Evaluator::new(
        f.ctx.clone(),
        Some(RelinearizationKey(SwitchingKey::Hybrid(cut))),
        GaloisKeys::new(),
    );
    assert!(ev.mul(&ct, &ct).is_err());
    for (q, p) in [(ring.q_len() - 1, 0), (ring.q_len(), 0), (1, ring.p_len())] {
        let mut w = Writer::new();
        w.write_header(HybridKey::TAG, ring.fingerprint());
        w.write_bytes(&hk.seed);
        w.write_u16(hk.digits.len() as u16);
        for [b, _] in &hk.digits {
            b.restricted(q, p).write_body(&mut w, ring);
        }
        match HybridKey::from_bytes(&w.into_bytes(), ring) {
            Err(Error::Deserialize(m)) => assert!(m.contains("a switching key has all"), "{m}"),
            other => panic!("({q}, {p}) accepted: {:?}", other.map(|_| ())),
        }
    }
}
