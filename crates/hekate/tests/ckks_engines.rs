//! Every key-switching operation on every engine (issue 3): KLSS, linear (worst-case and
//! heuristic bounds), KLSS with accumulation in `B'`, and `Auto`, against hybrid.
//!
//! With the same seeds the engines use the same ordinary keys, and KLSS / linear compute
//! the hybrid inner product exactly (seed 000 §4.3), so every output must be the *same
//! words* as hybrid's: the added noise is the hybrid noise, which
//! `rlwe::keyswitch::tests::hybrid_noise_variance_matches_the_analysis` and
//! `ckks.rs::key_switching_noise_matches_the_formula_after_rotation` check against the
//! formula. Decryption is checked too, against the expected values.

mod common;

use common::{fixture_with, random_values, Fixture};
use hekate::ckks::Ciphertext;
use hekate::rlwe::keyswitch::{KeySwitchMethod, KlssBound, KlssConfig, LevelSet};
use hekate::serialize::{Deserialize, Serialize};
use num_complex::Complex64;

fn methods() -> Vec<KeySwitchMethod> {
    let mut acc = KlssConfig::klss(3);
    acc.accumulation = 2;
    vec![
        KeySwitchMethod::Klss(KlssConfig::klss(2)),
        KeySwitchMethod::Klss(acc),
        KeySwitchMethod::Linear(KlssBound::WorstCase),
        KeySwitchMethod::Linear(KlssBound::Heuristic),
        // KLSS at the top level only: the operations on fresh ciphertexts run KLSS, those
        // one level down (the second product, the rotation of the product) hybrid.
        mixed_top(),
        KeySwitchMethod::Auto,
    ]
}

/// KLSS (r̃ = 2) at the top level of the 4-limb fixtures, hybrid below.
fn mixed_top() -> KeySwitchMethod {
    KeySwitchMethod::Mixed {
        klss: KlssConfig::klss(2),
        levels: LevelSet::from_limbs([4]).unwrap(),
    }
}

/// The key-switching operations of one fixture, on fixed inputs.
fn run_ops(f: &mut Fixture) -> Vec<Ciphertext> {
    let slots = f.ctx.max_slots();
    let (a, b) = (random_values(slots, 1), random_values(slots, 2));
    let enc = |f: &mut Fixture, v: &[Complex64]| {
        let pt = f.ctx.encode(v).unwrap();
        f.ctx.encrypt_with(&pt, &f.pk, &mut f.rng).unwrap()
    };
    let (ca, cb) = (enc(f, &a), enc(f, &b));
    let e = &f.eval;
    let prod = e.rescale(&e.mul(&ca, &cb).unwrap()).unwrap();
    let prod2 = e.mul(&prod, &prod).unwrap(); // one level down
    let mut out = vec![prod.clone(), prod2];
    out.push(e.rotate(&ca, 1).unwrap());
    out.push(e.rotate(&prod, -1).unwrap());
    out.push(e.conjugate(&cb).unwrap());
    out.extend(e.rotate_hoisted(&ca, &[1, 2, -1]).unwrap());
    out
}

#[test]
fn every_engine_gives_hybrids_words_and_decrypts() {
    let rotations = [1i64, 2, -1];
    let mut hybrid = fixture_with(12, 9, &rotations, KeySwitchMethod::Hybrid);
    let want = run_ops(&mut hybrid);
    let slots = hybrid.ctx.max_slots();
    let a = random_values(slots, 1);
    // Decryption of the hoisted rotation by 2, against the rotated input.
    let got = hybrid.ctx.decrypt_decode(&want[6], &hybrid.sk).unwrap();
    let err = (0..slots)
        .map(|i| (got[i] - a[(i + 2) % slots]).norm())
        .fold(0.0, f64::max);
    assert!(err < 1e-6, "rotation error {err}");
    for method in methods() {
        let mut f = fixture_with(12, 9, &rotations, method);
        let got = run_ops(&mut f);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                g.parts() == w.parts(),
                "{} (resolved {}): operation {i} differs from hybrid",
                method.name(),
                f.ctx.key_switch_method().name()
            );
        }
    }
}

#[test]
fn klss_contexts_and_keys_round_trip_through_bytes() {
    let f = fixture_with(11, 5, &[1], KeySwitchMethod::Linear(KlssBound::WorstCase));
    let bytes = f.ctx.to_bytes(&()).unwrap();
    let ctx = hekate::ckks::CkksContext::from_bytes_with(&bytes, &(), &test_policy()).unwrap();
    assert_eq!(ctx.key_switch_method(), f.ctx.key_switch_method());
    let rlk = f.ctx.generate_relinearization_key(&f.sk);
    let rb = rlk.to_bytes(&f.ctx).unwrap();
    // Written in the ordinary, seed-compressed form: about a quarter of the expanded key
    // (r' = 3 limbs per key limb, half of them seeds).
    assert!(
        rb.len() * 4 < rlk.0.size_bytes(),
        "{} vs {}",
        rb.len(),
        rlk.0.size_bytes()
    );
    let back = hekate::ckks::RelinearizationKey::from_bytes(&rb, &ctx).unwrap();
    assert_eq!(back, rlk, "contract + expand is exact");
}

#[test]
fn mixed_contexts_and_keys_round_trip_through_bytes() {
    let f = fixture_with(11, 6, &[1], mixed_top());
    assert_eq!(f.ctx.key_switch_method(), mixed_top());
    let bytes = f.ctx.to_bytes(&()).unwrap();
    let ctx = hekate::ckks::CkksContext::from_bytes_with(&bytes, &(), &test_policy()).unwrap();
    assert_eq!(ctx.key_switch_method(), mixed_top());
    let rlk = f.ctx.generate_relinearization_key(&f.sk);
    let back =
        hekate::ckks::RelinearizationKey::from_bytes(&rlk.to_bytes(&f.ctx).unwrap(), &ctx).unwrap();
    assert_eq!(back, rlk, "both forms rebuilt exactly");
    // Every truncation of the parameters is refused.
    for cut in 0..bytes.len() {
        assert!(
            hekate::ckks::CkksContext::from_bytes_with(&bytes[..cut], &(), &test_policy()).is_err()
        );
    }
    // The body ends with the level count, the levels (u16 each) and the key storage byte:
    // a level of 0 or above the chain, and a count of 0, are refused with a message.
    let n = bytes.len();
    assert_eq!(&bytes[n - 5..n - 1], &[1, 0, 4, 0]);
    for (at, val, what) in [
        (n - 3, 0u16, "level 0"),
        (n - 3, 5, "level 5"),
        (n - 5, 0, "at 0 levels"),
    ] {
        let mut bad = bytes.clone();
        bad[at..at + 2].copy_from_slice(&val.to_le_bytes());
        match hekate::ckks::CkksContext::from_bytes_with(&bad, &(), &test_policy()) {
            Err(hekate::Error::Deserialize(m)) => {
                assert!(m.contains("mixed engine"), "{what}: {m}")
            }
            other => panic!("{what}: {:?}", other.map(|_| ())),
        }
    }
}

/// The test contexts are below the 128-bit bound (small rings): reading them back is an
/// explicit opt-out.
fn test_policy() -> hekate::serialize::ReadPolicy {
    hekate::serialize::ReadPolicy::default().min_security(hekate::params::SecurityLevel::NotChecked)
}
