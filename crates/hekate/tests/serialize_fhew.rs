//! Serialization of the FHEW objects: the contract for every type and every blind-rotation
//! configuration, sizes against `compressed_bytes()`, deserialized keys that bootstrap
//! exactly like the originals, and hostile inputs (every truncation, bit flips, wrong
//! tags, fingerprints and trailing bytes).
//!
//! The exhaustive loops run on tiny (insecure) parameters; round trips with gates on
//! `TOY`. The size table for the OpenFHE `STD128` set is `#[ignore]`d:
//!
//! ```text
//! cargo test -p hekate --test serialize_fhew -- --ignored --nocapture
//! ```

use hekate::fhew::params::{self, AutoKeySet, FhewParams, Method, MethodConfig};
use hekate::fhew::{
    BlindRotationKey, BootstrapKey, BrkElement, FhewContext, FhewEvaluator, FhewSecretKey, Gate,
    LweCiphertext, LweKeySwitchKey, LweSecretDistribution, LweSecretKey,
};
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::serialize::testing::{check_contract, check_contract_standalone};
use hekate::serialize::{
    fhew_context_from_bytes, fhew_context_from_bytes_with, fhew_context_to_bytes, fhew_fingerprint,
    fhew_params_from_bytes, peek_header, Deserialize, Serialize, HEADER_LEN,
};
use hekate::Error;
use std::sync::Arc;

/// Tiny parameters (`q < 2N`, Alg. 5), with a two-run `B_g` schedule: fast enough to try
/// every truncation and every byte flip.
const TINY: FhewParams = FhewParams {
    name: "TINY",
    source: "test",
    claimed_security: "none",
    n: 8,
    q: 32,
    big_n: 32,
    log_big_q: 27,
    log_bg: 7,
    bg_schedule: &[(7, 5), (9, 3)],
    b_r: 4,
    log_q_ks: 8,
    log_b_ks: 4,
    sigma: 3.19,
    lwe_secret: LweSecretDistribution::Ternary,
};

/// `TINY` with `q = 2N` (Alg. 3, 4).
const TINY_2N: FhewParams = FhewParams {
    name: "TINY_2N",
    q: 64,
    ..TINY
};

/// `TOY` with `q = 2N` (Alg. 3, 4).
const TOY_2N: FhewParams = FhewParams {
    name: "TOY_2N",
    q: 512,
    ..params::TOY
};

/// Every configuration: each method with RGSW and RLWE' (ALTMULT) keys, and the reduced
/// automorphism key sets, with the parameters `(q < 2N, q = 2N)` it applies to.
fn configs(p: &FhewParams, p2n: &FhewParams) -> Vec<(FhewParams, MethodConfig)> {
    let mut v = Vec::new();
    for alt in [false, true] {
        for m in [Method::Ap, Method::Ginx, Method::LmkcdeyAllEven] {
            v.push((p.clone(), MethodConfig::new(m).with_alt_mult(alt)));
        }
        for m in [Method::LmkcdeyBase, Method::LmkcdeyAux] {
            v.push((p2n.clone(), MethodConfig::new(m).with_alt_mult(alt)));
        }
    }
    for set in [AutoKeySet::PowersOfFive, AutoKeySet::Generators] {
        for alt in [false, true] {
            let c = |m| MethodConfig::new(m).with_auto_keys(set).with_alt_mult(alt);
            v.push((p.clone(), c(Method::LmkcdeyAllEven)));
            v.push((p2n.clone(), c(Method::LmkcdeyBase)));
            v.push((p2n.clone(), c(Method::LmkcdeyAux)));
        }
    }
    v
}

struct Setup {
    ctx: Arc<FhewContext>,
    sk: FhewSecretKey,
    key: BootstrapKey,
    rng: ChaCha20Rng,
}

fn setup(p: &FhewParams, cfg: MethodConfig, seed: u64) -> Setup {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let ctx = FhewContext::with_security(p, hekate::params::SecurityLevel::NotChecked).unwrap();
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let key = ctx.generate_bootstrap_key_with(&sk, cfg, &mut rng).unwrap();
    Setup { ctx, sk, key, rng }
}

/// A context with other parameters (another `σ`: same shapes, another fingerprint).
fn other(p: &FhewParams) -> Arc<FhewContext> {
    FhewContext::with_security(
        &FhewParams {
            sigma: 3.2,
            ..p.clone()
        },
        hekate::params::SecurityLevel::NotChecked,
    )
    .unwrap()
}

fn deserialize_err(r: hekate::Result<impl Sized>) -> String {
    match r {
        Err(Error::Deserialize(m)) => m,
        Err(e) => panic!("wrong error variant: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

fn lwe_sk_eq(a: &LweSecretKey, b: &LweSecretKey) -> bool {
    a.coeffs() == b.coeffs()
}

fn fhew_sk_eq(a: &FhewSecretKey, b: &FhewSecretKey) -> bool {
    lwe_sk_eq(&a.lwe, &b.lwe)
        && a.rlwe.coeffs() == b.rlwe.coeffs()
        && a.rlwe.ring_id() == b.rlwe.ring_id()
        && a.rlwe.ntt() == b.rlwe.ntt()
}

/// Bytes after the header and `compressed_bytes()`: 3 configuration bytes, GINX's `U`,
/// two counts.
fn brk_overhead(cfg: MethodConfig) -> usize {
    12 + usize::from(cfg.method == Method::Ginx)
}

/// Numeric equality (names are not serialized for non-presets).
fn params_eq(a: &FhewParams, b: &FhewParams) -> bool {
    FhewParams {
        name: "",
        source: "",
        claimed_security: "",
        ..a.clone()
    } == FhewParams {
        name: "",
        source: "",
        claimed_security: "",
        ..b.clone()
    }
}

// ---------------------------------------------------------------------------------------
// Parameters

#[test]
fn parameters_round_trip_for_every_preset() {
    for p in params::PRESETS {
        let bytes = p.to_bytes(&()).unwrap();
        let h = peek_header(&bytes).unwrap();
        assert_eq!(h.tag, FhewParams::TAG);
        assert_eq!(h.fingerprint, fhew_fingerprint(p));
        let back = fhew_params_from_bytes(&bytes).unwrap();
        assert_eq!(&back, p, "{}: presets keep their names", p.name);
    }
    check_contract_standalone(&params::OPENFHE_STD128, |a, b| a == b);
    // Custom parameters: a schedule no preset has, a Gaussian and a uniform secret.
    check_contract_standalone(&TINY, params_eq);
    for d in [
        LweSecretDistribution::Binary,
        LweSecretDistribution::Gaussian { sigma: 3.19 },
        LweSecretDistribution::Uniform { bound: 3 },
    ] {
        let p = FhewParams {
            lwe_secret: d,
            ..TINY
        };
        let back = fhew_params_from_bytes(&p.to_bytes(&()).unwrap()).unwrap();
        assert!(params_eq(&back, &p));
        assert_eq!(back.name, "custom");
    }
    // The context rebuilt from bytes is the same.
    let ctx = FhewContext::with_security(&params::TOY, hekate::params::SecurityLevel::NotChecked)
        .unwrap();
    let toy_bytes = fhew_context_to_bytes(&ctx);
    // The toy set is insecure: its bytes alone cannot make a context.
    assert!(matches!(
        fhew_context_from_bytes(&toy_bytes),
        Err(hekate::Error::Deserialize(m)) if m.contains("do not meet 128-bit")
    ));
    let ctx2 = fhew_context_from_bytes_with(
        &toy_bytes,
        &hekate::serialize::ReadPolicy::default()
            .min_security(hekate::params::SecurityLevel::NotChecked),
    )
    .unwrap();
    assert_eq!(ctx2.params(), ctx.params());
    assert_eq!(ctx2.big_q(), ctx.big_q());
    assert_eq!(ctx2.ring().fingerprint(), ctx.ring().fingerprint());
}

#[test]
fn parameter_fingerprint_depends_on_every_numeric_field() {
    let base = fhew_fingerprint(&TINY);
    let variants = [
        FhewParams { n: 9, ..TINY },
        FhewParams { q: 64, ..TINY },
        FhewParams { big_n: 64, ..TINY },
        FhewParams {
            log_big_q: 28,
            ..TINY
        },
        FhewParams { log_bg: 8, ..TINY },
        FhewParams {
            bg_schedule: &[(7, 4), (9, 4)],
            ..TINY
        },
        FhewParams {
            bg_schedule: &[],
            ..TINY
        },
        FhewParams { b_r: 5, ..TINY },
        FhewParams {
            log_q_ks: 9,
            ..TINY
        },
        FhewParams {
            log_b_ks: 3,
            ..TINY
        },
        FhewParams { sigma: 3.2, ..TINY },
        FhewParams {
            lwe_secret: LweSecretDistribution::Binary,
            ..TINY
        },
        FhewParams {
            lwe_secret: LweSecretDistribution::Uniform { bound: 1 },
            ..TINY
        },
    ];
    for (i, v) in variants.iter().enumerate() {
        assert_ne!(fhew_fingerprint(v), base, "variant {i}");
    }
    let renamed = FhewParams {
        name: "other",
        source: "x",
        claimed_security: "y",
        ..TINY
    };
    assert_eq!(fhew_fingerprint(&renamed), base);
    // FHEW and ring fingerprints of the same context differ.
    let ctx = FhewContext::with_security(&TINY, hekate::params::SecurityLevel::NotChecked).unwrap();
    assert_ne!(fhew_fingerprint(&TINY), ctx.ring().fingerprint());
}

#[test]
fn parameters_reject_invalid_fields() {
    let bytes = TINY.to_bytes(&()).unwrap();
    // Every truncation and every bit flip: an error or (for σ's low bits) other valid
    // parameters that re-encode to the flipped bytes, never a panic.
    for cut in 0..bytes.len() {
        deserialize_err(fhew_params_from_bytes(&bytes[..cut]));
    }
    for pos in 0..bytes.len() {
        for bit in 0..8 {
            let mut m = bytes.clone();
            m[pos] ^= 1 << bit;
            if let Ok(p) = fhew_params_from_bytes(&m) {
                assert_eq!(
                    p.to_bytes(&()).unwrap(),
                    m,
                    "flip of bit {bit} of byte {pos}"
                );
            }
        }
    }
    // Field by field (re-fingerprinted, so the field check is what fails).
    let h = HEADER_LEN;
    let refingerprint = |mut m: Vec<u8>| -> String {
        // The fingerprint is checked after the fields: a field error comes first.
        m[8..16].copy_from_slice(&[0; 8]);
        deserialize_err(fhew_params_from_bytes(&m))
    };
    let set = |pos: usize, val: &[u8]| {
        let mut m = bytes.clone();
        m[pos..pos + val.len()].copy_from_slice(val);
        m
    };
    let e = refingerprint(set(h, &0u32.to_le_bytes()));
    assert!(e.contains("LWE dimension n = 0"), "{e}");
    let e = refingerprint(set(h + 4, &48u32.to_le_bytes()));
    assert!(e.contains("LWE modulus q = 48"), "{e}");
    let e = refingerprint(set(h + 8, &48u32.to_le_bytes()));
    assert!(e.contains("ring degree N = 48"), "{e}");
    // Above the format's cap of 2^12 (MAX_FHEW_RING_DIM), and n above 2^12 (MAX_LWE_DIM).
    let e = refingerprint(set(h + 8, &(1u32 << 13).to_le_bytes()));
    assert!(
        e.contains("N = 8192 is not a power of two in [16, 4096]"),
        "{e}"
    );
    let e = refingerprint(set(h, &((1u32 << 12) + 1).to_le_bytes()));
    assert!(e.contains("n = 4097 is not in [1, 4096]"), "{e}");
    // Schedule covering 9 keys.
    let e = refingerprint(set(h + 17, &6u32.to_le_bytes()));
    assert!(e.contains("covers 9 keys"), "{e}");
    let e = refingerprint(set(h + 14, &[65, 0]));
    assert!(e.contains("schedule of 65 runs"), "{e}");
    // B_r = 1, Q_ks = 2^33, σ = NaN, unknown secret distribution.
    let after = h + 16 + 5 * 2;
    let e = refingerprint(set(after, &1u32.to_le_bytes()));
    assert!(e.contains("B_r = 1"), "{e}");
    let e = refingerprint(set(after + 4, &[33]));
    assert!(e.contains("log Q_ks in [7, 32]"), "{e}");
    // Below the format's floor of 7 bits (MIN_LOG_Q_KS).
    let e = refingerprint(set(after + 4, &[6]));
    assert!(e.contains("Q_ks = 2^6"), "{e}");
    let e = refingerprint(set(after + 6, &f64::NAN.to_bits().to_le_bytes()));
    assert!(e.contains("not positive and finite"), "{e}");
    let e = refingerprint(set(after + 14, &[9]));
    assert!(e.contains("unknown LWE secret distribution 9"), "{e}");
    // A gadget base that gives too many digits (log B_g = 0) is caught by the checks
    // after parsing (with a matching fingerprint).
    let bad = FhewParams { log_bg: 0, ..TINY };
    let e = deserialize_err(fhew_params_from_bytes(&bad.to_bytes(&()).unwrap()));
    assert!(e.contains("gadget base"), "{e}");
    // log Q below the prime generator's range.
    let bad = FhewParams {
        log_big_q: 10,
        ..TINY
    };
    let e = deserialize_err(fhew_params_from_bytes(&bad.to_bytes(&()).unwrap()));
    assert!(e.contains("not valid"), "{e}");
    // A wrong fingerprint.
    let mut m = bytes.clone();
    m[8] ^= 1;
    let e = deserialize_err(fhew_params_from_bytes(&m));
    assert!(e.contains("corrupt FHEW parameters"), "{e}");
    // Another object's tag.
    let ctx = FhewContext::with_security(&TINY, hekate::params::SecurityLevel::NotChecked).unwrap();
    let ct = LweCiphertext::trivial(TINY.n, 3, TINY.q);
    let e = deserialize_err(fhew_params_from_bytes(&ct.to_bytes(&ctx).unwrap()));
    assert!(e.contains("wrong object type"), "{e}");
}

// ---------------------------------------------------------------------------------------
// LWE ciphertexts and secrets

#[test]
fn lwe_ciphertext_and_secret_keys() {
    let s = setup(&TINY, MethodConfig::new(Method::LmkcdeyAllEven), 1);
    let mut rng = s.rng;
    let ctx = &s.ctx;
    let other = other(&TINY);
    for m in [false, true] {
        let ct = ctx.encrypt_bit_with(m, &s.sk, &mut rng).unwrap();
        check_contract(&ct, ctx, &other, |a, b| a == b);
        let bytes = ct.to_bytes(ctx).unwrap();
        // 5 bits per value for q = 32.
        assert_eq!(
            bytes.len(),
            HEADER_LEN + 12 + (5 * (TINY.n + 1)).div_ceil(8)
        );
        let back = LweCiphertext::from_bytes(&bytes, ctx).unwrap();
        assert_eq!(ctx.decrypt_bit(&back, &s.sk).unwrap(), m);
        every_bit_flip(&ct, ctx);
    }
    check_contract(&s.sk.lwe, ctx, &other, lwe_sk_eq);
    check_contract(&s.sk, ctx, &other, fhew_sk_eq);
    every_bit_flip(&s.sk.lwe, ctx);
    // Wider LWE secrets (i8 and i64 encodings).
    for c in [vec![5i64; TINY.n], vec![1 << 40; TINY.n]] {
        let k = LweSecretKey::from_coeffs(c);
        check_contract(&k, ctx, &other, lwe_sk_eq);
    }
    // Dimension and modulus are the context's.
    let ct = LweCiphertext::trivial(TINY.n, 1, TINY.q);
    let mut m = ct.to_bytes(ctx).unwrap();
    m[HEADER_LEN] = 7;
    let e = deserialize_err(LweCiphertext::from_bytes(&m, ctx));
    assert!(e.contains("dimension 7 differs"), "{e}");
    let mut m = ct.to_bytes(ctx).unwrap();
    m[HEADER_LEN + 4] = 64;
    let e = deserialize_err(LweCiphertext::from_bytes(&m, ctx));
    assert!(e.contains("modulus 64 differs"), "{e}");
    // A non-canonical secret encoding (i8 for a ternary key).
    let mut m = s.sk.lwe.to_bytes(ctx).unwrap()[..HEADER_LEN + 4].to_vec();
    m.push(1);
    m.extend(std::iter::repeat_n(1u8, TINY.n));
    let e = deserialize_err(LweSecretKey::from_bytes(&m, ctx));
    assert!(e.contains("non-canonical LWE secret key"), "{e}");
    // Objects are not interchangeable.
    let e = deserialize_err(LweSecretKey::from_bytes(&ct.to_bytes(ctx).unwrap(), ctx));
    assert!(e.contains("wrong object type"), "{e}");
    let e = deserialize_err(LweCiphertext::from_bytes(
        &ct.to_bytes(ctx).unwrap(),
        &other,
    ));
    assert!(e.contains("parameter mismatch"), "{e}");
}

/// Every single-bit flip: an error, or an object that re-encodes to the flipped bytes.
fn every_bit_flip<T: Deserialize<Context = FhewContext>>(obj: &T, ctx: &FhewContext) {
    let bytes = obj.to_bytes(ctx).unwrap();
    for pos in 0..bytes.len() {
        for bit in 0..8 {
            let mut m = bytes.clone();
            m[pos] ^= 1 << bit;
            match T::from_bytes(&m, ctx) {
                Ok(o) => assert_eq!(o.to_bytes(ctx).unwrap(), m, "flip {bit} at {pos} accepted"),
                Err(Error::Deserialize(_)) => {}
                Err(e) => panic!("flip {bit} at {pos}: wrong error variant {e}"),
            }
        }
    }
}

/// Every truncation is a `Deserialize` error.
fn every_truncation<T: Deserialize<Context = FhewContext>>(obj: &T, ctx: &FhewContext) {
    let bytes = obj.to_bytes(ctx).unwrap();
    for cut in 0..bytes.len() {
        deserialize_err(T::from_bytes(&bytes[..cut], ctx));
    }
}

// ---------------------------------------------------------------------------------------
// Keys

/// The contract, every truncation and the size of every key of every configuration, on
/// tiny parameters.
#[test]
fn keys_contract_every_configuration() {
    for (k, (p, cfg)) in configs(&TINY, &TINY_2N).into_iter().enumerate() {
        let s = setup(&p, cfg, 100 + k as u64);
        let (ctx, key) = (&s.ctx, &s.key);
        let other = other(&p);
        let label = cfg.label();
        check_contract(key, ctx, &other, |a, b| a == b);
        check_contract(&key.brk, ctx, &other, |a, b| a == b);
        every_truncation(key, ctx);
        let brk = key.brk.to_bytes(ctx).unwrap();
        assert_eq!(
            brk.len(),
            HEADER_LEN + key.brk.compressed_bytes() + brk_overhead(cfg),
            "{label}"
        );
        let all = key.to_bytes(ctx).unwrap();
        assert_eq!(
            all.len(),
            HEADER_LEN + key.compressed_bytes() + brk_overhead(cfg) + 10,
            "{label}"
        );
        // The bootstrap key body is the two bodies back to back.
        let ksk = key.ksk.to_bytes(ctx).unwrap();
        assert_eq!(
            all[HEADER_LEN..],
            [&brk[HEADER_LEN..], &ksk[HEADER_LEN..]].concat()
        );
        // Wrong tags, in both directions.
        let e = deserialize_err(BlindRotationKey::from_bytes(&all, ctx));
        assert!(e.contains("wrong object type"), "{e}");
        let e = deserialize_err(BootstrapKey::from_bytes(&brk, ctx));
        assert!(e.contains("wrong object type"), "{e}");
    }
    let s = setup(&TINY, MethodConfig::new(Method::LmkcdeyAllEven), 7);
    let other = other(&TINY);
    check_contract(&s.key.ksk, &s.ctx, &other, |a, b| a == b);
    every_truncation(&s.key.ksk, &s.ctx);
    assert_eq!(
        s.key.ksk.to_bytes(&s.ctx).unwrap().len(),
        HEADER_LEN + s.key.ksk.compressed_bytes() + 10
    );
}

/// Every byte of a whole bootstrapping key flipped (one bit each, rotating): an error or
/// an object that re-encodes to the flipped bytes; every bit of the fixed fields.
#[test]
fn keys_survive_every_byte_flip() {
    for (p, cfg) in [
        (TINY, MethodConfig::new(Method::LmkcdeyAllEven)),
        (TINY, MethodConfig::new(Method::Ginx).with_alt_mult(true)),
    ] {
        let s = setup(&p, cfg, 9);
        let (ctx, key) = (&s.ctx, &s.key);
        let bytes = key.to_bytes(ctx).unwrap();
        for pos in 0..bytes.len() {
            let bits: &[u8] = if pos < HEADER_LEN + 16 {
                &[1, 2, 4, 8, 16, 32, 64, 128]
            } else {
                &[1 << (pos % 8)]
            };
            for &bit in bits {
                let mut m = bytes.clone();
                m[pos] ^= bit;
                match BootstrapKey::from_bytes(&m, ctx) {
                    Ok(k) => {
                        assert_eq!(k.to_bytes(ctx).unwrap(), m, "flip {bit} at {pos} accepted")
                    }
                    Err(Error::Deserialize(_)) => {}
                    Err(e) => panic!("wrong error variant {e}"),
                }
            }
        }
    }
}

#[test]
fn keys_reject_inconsistent_fields() {
    let s = setup(&TINY, MethodConfig::new(Method::LmkcdeyAllEven), 11);
    let (ctx, key) = (&s.ctx, &s.key);
    let bytes = key.brk.to_bytes(ctx).unwrap();
    let h = HEADER_LEN;
    let set = |pos: usize, val: &[u8]| {
        let mut m = bytes.clone();
        m[pos..pos + val.len()].copy_from_slice(val);
        deserialize_err(BlindRotationKey::from_bytes(&m, ctx))
    };
    // Alg. 3 / 4 need q = 2N.
    let e = set(h, &[2]);
    assert!(e.contains("LMKCDEY-base does not apply"), "{e}");
    let e = set(h, &[9]);
    assert!(e.contains("unknown blind-rotation method 9"), "{e}");
    let e = set(h + 1, &[2]);
    assert!(e.contains("ALTMULT flag 2"), "{e}");
    let e = set(h + 2, &[3]);
    assert!(e.contains("unknown automorphism key set 3"), "{e}");
    let e = set(h + 3, &[2]);
    assert!(e.contains("mask form 2"), "{e}");
    // Explicit masks announced, seeded key bytes given: too short for the layout.
    let e = set(h + 3, &[1]);
    assert!(e.contains("blind-rotation key"), "{e}");
    // A key count other than the configuration's.
    let e = set(h + 4, &8u32.to_le_bytes());
    assert!(e.contains("8 keys; LMKCDEY-even has 9"), "{e}");
    // A residue of the first key not below Q (27 bits all ones > Q).
    let e = set(h + 8 + 32, &[0xff, 0xff, 0xff, 0x07 | bytes[h + 8 + 35]]);
    assert!(e.contains("not below Q"), "{e}");
    // The automorphism key count (just before the 31 automorphism keys of 4 digits).
    let ak = 32 + 4 * 27 * 32 / 8;
    let pos = bytes.len() - 31 * ak - 4;
    assert_eq!(bytes[pos..pos + 4], 31u32.to_le_bytes());
    let e = set(pos, &30u32.to_le_bytes());
    assert!(e.contains("30 automorphism keys"), "{e}");
    // Other parameters of the same shape: refused by fingerprint.
    let e = deserialize_err(BlindRotationKey::from_bytes(&bytes, &other(&TINY)));
    assert!(e.contains("parameter mismatch"), "{e}");
    // A GINX U code above 62.
    let g = setup(&TINY, MethodConfig::new(Method::Ginx), 12);
    let mut m = g.key.brk.to_bytes(&g.ctx).unwrap();
    assert_eq!(m[h + 4], 1, "ternary secrets: U = {{1, -1}}");
    assert_eq!(g.key.brk.ginx_u, [1, -1]);
    m[h + 4] = 63;
    let e = deserialize_err(BlindRotationKey::from_bytes(&m, &g.ctx));
    assert!(e.contains("GINX U code 63"), "{e}");
    // U = {1} (binary secrets) reads back with its own key count.
    let pb = FhewParams {
        lwe_secret: LweSecretDistribution::Binary,
        ..TINY
    };
    let b = setup(&pb, MethodConfig::new(Method::Ginx), 13);
    assert_eq!(b.key.brk.ginx_u, [1]);
    let back = BlindRotationKey::from_bytes(&b.key.brk.to_bytes(&b.ctx).unwrap(), &b.ctx).unwrap();
    assert_eq!(back, b.key.brk);
    // Wider secrets: U = {1, -1, 2, -2} (code 2).
    let pu = FhewParams {
        lwe_secret: LweSecretDistribution::Uniform { bound: 3 },
        ..TINY
    };
    let u = setup(&pu, MethodConfig::new(Method::Ginx).with_alt_mult(true), 14);
    assert_eq!(u.key.brk.ginx_u, [1, -1, 2, -2]);
    let bytes = u.key.brk.to_bytes(&u.ctx).unwrap();
    assert_eq!(bytes[h + 4], 2);
    let back = BlindRotationKey::from_bytes(&bytes, &u.ctx).unwrap();
    assert_eq!(back, u.key.brk);
    // Key switching: Q_ks, B_ks and the dimensions are the context's.
    let ksk = key.ksk.to_bytes(ctx).unwrap();
    let kset = |pos: usize, val: &[u8]| {
        let mut m = ksk.clone();
        m[pos..pos + val.len()].copy_from_slice(val);
        deserialize_err(LweKeySwitchKey::from_bytes(&m, ctx))
    };
    let e = kset(h, &[9]);
    assert!(e.contains("Q_ks = 2^9"), "{e}");
    let e = kset(h + 1, &[3]);
    assert!(e.contains("B_ks = 2^3"), "{e}");
    let e = kset(h + 2, &16u32.to_le_bytes());
    assert!(e.contains("dimension 16 differs"), "{e}");
    let e = kset(h + 6, &7u32.to_le_bytes());
    assert!(e.contains("dimension 7 differs"), "{e}");
}

/// Round trips of the bootstrapping keys of every configuration on `TOY`: equal keys
/// whose gates decrypt correctly and give exactly the original key's outputs.
#[test]
fn deserialized_keys_bootstrap_like_the_originals() {
    for (k, (p, cfg)) in configs(&params::TOY, &TOY_2N).into_iter().enumerate() {
        let mut s = setup(&p, cfg, 200 + k as u64);
        let ctx = &s.ctx;
        let label = cfg.label();
        let bytes = s.key.to_bytes(ctx).unwrap();
        assert_eq!(
            bytes.len(),
            HEADER_LEN + s.key.compressed_bytes() + brk_overhead(cfg) + 10,
            "{label}"
        );
        let back = BootstrapKey::from_bytes(&bytes, ctx).unwrap();
        assert!(back == s.key, "{label}: the key changed");
        if cfg.alt_mult {
            assert!(matches!(back.brk.keys[0], BrkElement::Prime(_)));
        }
        // Secret key and ciphertexts through bytes too.
        let sk = FhewSecretKey::from_bytes(&s.sk.to_bytes(ctx).unwrap(), ctx).unwrap();
        let mut ev = FhewEvaluator::new(ctx.clone(), Arc::new(s.key)).unwrap();
        let mut ev2 = FhewEvaluator::new(ctx.clone(), Arc::new(back)).unwrap();
        for (x, y) in [(false, true), (true, true)] {
            let a = ctx.encrypt_bit_with(x, &sk, &mut s.rng).unwrap();
            let b = ctx.encrypt_bit_with(y, &sk, &mut s.rng).unwrap();
            let b = LweCiphertext::from_bytes(&b.to_bytes(ctx).unwrap(), ctx).unwrap();
            let out = ev.gate(Gate::Nand, &a, &b).unwrap();
            let out2 = ev2.gate(Gate::Nand, &a, &b).unwrap();
            assert_eq!(out, out2, "{label}: outputs differ");
            assert_eq!(ctx.decrypt_bit(&out2, &sk).unwrap(), !(x & y), "{label}");
            assert_eq!(ctx.decrypt_bit(&out2, &s.sk).unwrap(), !(x & y), "{label}");
        }
    }
}

/// The encoded sizes of the bootstrapping keys of the OpenFHE `STD128` set (and Table 3's
/// `STD128` for Alg. 5, which needs `q < 2N`), against `compressed_bytes()`. AP's keys
/// (about 8 GB in memory) are not generated: their size is computed.
#[test]
#[ignore]
fn sizes_full_size() {
    let table3 = [
        MethodConfig::new(Method::LmkcdeyAllEven),
        MethodConfig::new(Method::LmkcdeyAllEven).with_alt_mult(true),
        MethodConfig::new(Method::LmkcdeyAllEven).with_auto_keys(AutoKeySet::PowersOfFive),
    ];
    let openfhe = [
        MethodConfig::new(Method::Ginx),
        MethodConfig::new(Method::Ginx).with_alt_mult(true),
        MethodConfig::new(Method::LmkcdeyBase),
        MethodConfig::new(Method::LmkcdeyAux),
        MethodConfig::new(Method::LmkcdeyAux).with_alt_mult(true),
        MethodConfig::new(Method::LmkcdeyAux).with_auto_keys(AutoKeySet::PowersOfFive),
        MethodConfig::new(Method::LmkcdeyAux).with_auto_keys(AutoKeySet::Generators),
    ];
    println!("| set | method | compressed_bytes | encoded | overhead | write ms | read ms |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (p, cfgs) in [
        (&params::OPENFHE_STD128, &openfhe[..]),
        (&params::STD128, &table3[..]),
    ] {
        for &cfg in cfgs {
            let s = setup(p, cfg, 1);
            let t = std::time::Instant::now();
            let bytes = s.key.to_bytes(&s.ctx).unwrap();
            let tw = t.elapsed();
            let t = std::time::Instant::now();
            let back = BootstrapKey::from_bytes(&bytes, &s.ctx).unwrap();
            let tr = t.elapsed();
            assert!(back == s.key);
            let c = s.key.compressed_bytes();
            assert_eq!(bytes.len(), HEADER_LEN + c + brk_overhead(cfg) + 10);
            println!(
                "| {} | {} | {c} | {} | {} | {:.0} | {:.0} |",
                p.name,
                cfg.label(),
                bytes.len(),
                bytes.len() - c,
                tw.as_secs_f64() * 1e3,
                tr.as_secs_f64() * 1e3
            );
        }
    }
    // AP on OPENFHE_STD128, computed: n d_r (B_r - 1) RGSW keys, each two RLWE' of
    // 32 + d_g ceil(N log Q / 8) bytes, plus the key-switching key.
    let p = &params::OPENFHE_STD128;
    let poly = (p.big_n * p.log_big_q as usize).div_ceil(8);
    let per_index = p.d_r() * (p.b_r as usize - 1);
    let brk: usize = p
        .bg_schedule
        .iter()
        .map(|&(lb, c)| {
            c * per_index * 2 * (32 + (p.log_big_q as usize).div_ceil(lb as usize) * poly)
        })
        .sum();
    let d_ks = p.log_q_ks.div_ceil(p.log_b_ks) as usize;
    let ksk = 32 + (p.big_n * d_ks * ((1 << p.log_b_ks) - 1) * p.log_q_ks as usize).div_ceil(8);
    println!(
        "| {} | AP (computed) | {} | {} | {} | - | - |",
        p.name,
        brk + ksk,
        HEADER_LEN + brk + ksk + 22,
        HEADER_LEN + 22
    );
}

/// Key switching modulo `Q_ks = 2^20` (32-bit tables): the key round-trips with its size
/// formula, every truncation is refused, and the read key switches like the original.
#[test]
fn wide_key_switching_keys_round_trip() {
    let p = FhewParams {
        name: "TOY_WIDE_KS",
        log_q_ks: 20,
        log_b_ks: 5,
        ..params::TOY
    };
    let mut s = setup(&p, MethodConfig::new(Method::LmkcdeyAllEven), 21);
    assert!(matches!(s.key.ksk.a, hekate::fhew::KsMasks::U32(_)));
    let bytes = s.key.ksk.to_bytes(&s.ctx).unwrap();
    assert_eq!(bytes.len(), HEADER_LEN + s.key.ksk.compressed_bytes() + 10);
    let back = LweKeySwitchKey::from_bytes(&bytes, &s.ctx).unwrap();
    assert_eq!(back, s.key.ksk);
    for cut in (0..bytes.len()).step_by(bytes.len() / 61 + 1) {
        assert!(LweKeySwitchKey::from_bytes(&bytes[..cut], &s.ctx).is_err());
    }
    let key = BootstrapKey::from_bytes(&s.key.to_bytes(&s.ctx).unwrap(), &s.ctx).unwrap();
    let mut ev = FhewEvaluator::new(s.ctx.clone(), Arc::new(key)).unwrap();
    for (x, y) in [(false, false), (true, false), (true, true)] {
        let cx = s.ctx.encrypt_bit_with(x, &s.sk, &mut s.rng).unwrap();
        let cy = s.ctx.encrypt_bit_with(y, &s.sk, &mut s.rng).unwrap();
        let out = ev.gate(Gate::Nand, &cx, &cy).unwrap();
        assert_eq!(s.ctx.decrypt_bit(&out, &s.sk).unwrap(), !(x && y));
    }
}
