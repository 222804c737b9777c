//! Level-aware switching keys: a key generated for `w` chain limbs has the digits in use
//! there over `Q_{w-1} ∪ P`, switches correctly at every level it covers, and is refused
//! (by shape) when its digits or limbs are inconsistent.

use super::tests::{five_prime_ring as ring, mixed_ring, rng_and_secrets, switch_error};
use super::*;
use crate::Error;

#[test]
fn narrow_hybrid_keys_switch_correctly_at_every_level_they_cover() {
    let ctx = ring();
    let (n, l1, k) = (ctx.n(), ctx.q_len(), ctx.p_len());
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 11);
    for dnum in [2usize, 3, 4, 5] {
        let ks = HybridKeySwitcher::new(ctx.clone(), dnum);
        let alpha = l1.div_ceil(dnum);
        for w in 1..=l1 {
            let key = ks.generate_key_at(other.ntt(), &sk, w, &mut rng).unwrap();
            // ceil(w / α) digits (all dnum for the full key: with dnum = 4, α = 2 the
            // fourth digit is empty), each a pair over Q_{w-1} ∪ P.
            let digits = if w == l1 { dnum } else { w.div_ceil(alpha) };
            assert_eq!(
                (key.q_limbs(), key.digits.len()),
                (w, digits),
                "dnum {dnum} w {w}"
            );
            assert_eq!(ks.key_digits(w), digits);
            assert!(key
                .digits
                .iter()
                .flatten()
                .all(|p| p.q_limbs() == w && p.p_limbs() == k));
            // Seed 003 §3.1: ceil(ℓ/α) (ℓ + k) limb pairs of N words.
            assert_eq!(key.size_bytes(), digits * 2 * (w + k) * n * 8);
            assert!(ks.owns(&key));
            // Correct at every level it covers: inputs narrower than the key and exactly
            // as wide (an algebraic mistake gives errors ~Q/2).
            for ql in 1..=w {
                let err = switch_error(&ctx, &ks, &key, &sk, other.ntt(), ql, &mut rng);
                assert!(
                    err < (1u64 << 20) as f64,
                    "dnum {dnum} key width {w} input limbs {ql}: error {err}"
                );
            }
        }
        for w in [0, l1 + 1] {
            assert!(matches!(
                ks.generate_key_at(other.ntt(), &sk, w, &mut rng),
                Err(Error::LevelMismatch(_))
            ));
        }
    }
}

#[test]
fn keys_with_inconsistent_digits_or_limbs_are_not_owned() {
    let ctx = ring();
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 12);
    let ks = HybridKeySwitcher::new(ctx.clone(), 5); // α = 1
    let key = ks.generate_key_at(other.ntt(), &sk, 3, &mut rng).unwrap();
    assert!(ks.owns(&key) && key.check_shape(&ctx, ks.digits()).is_ok());
    // Under dnum = 2 (α = 3) a width-3 key has one digit, not three.
    let m = key
        .check_shape(&ctx, &DigitPartition::uniform(5, 2))
        .unwrap_err();
    assert!(m.contains("it has 3 digits") && m.contains("has 1"), "{m}");
    let mut fewer = key.clone();
    fewer.digits.pop();
    assert!(!ks.owns(&fewer));
    let mut ragged = key.clone();
    ragged.digits[1][0] = ragged.digits[1][0].restricted(2, ctx.p_len());
    let m = ragged.check_shape(&ctx, ks.digits()).unwrap_err();
    assert!(m.contains("digit 1 has 2 chain"), "{m}");
    let mut no_p = key.clone();
    no_p.digits[0][1] = no_p.digits[0][1].restricted(3, 0);
    assert!(!ks.owns(&no_p));
    let mut empty = key.clone();
    empty.digits.clear();
    assert!(!ks.owns(&empty));
    assert_eq!(SwitchingKey::Hybrid(empty).max_level(), None);
}

/// The engine-level entry point: hybrid keys are narrow; KLSS and mixed engines make the
/// full key whatever width is asked for (and KLSS expansion refuses a narrow key).
#[test]
fn engines_generate_keys_at_a_width() {
    let ctx = mixed_ring(1 << 10);
    let l1 = ctx.q_len();
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 13);
    let hybrid = KeySwitchEngine::new(ctx.clone(), 3, KeySwitchMethod::Hybrid, None).unwrap();
    let storage = KeyStorage::ExpandedOnly;
    let key = hybrid
        .generate_key_at_with_storage(other.ntt(), &sk, 2, storage, &mut rng)
        .unwrap();
    assert_eq!((key.q_limbs(), key.max_level()), (2, Some(1)));
    assert!(hybrid.owns(&key) && key.covers(1) && key.covers(2) && !key.covers(3));
    let c = tests::random_ntt(&ctx, 2, &mut rng);
    let [u0, _] = hybrid.switch(&c, &key);
    assert_eq!(u0.q_limbs(), 2);
    let SwitchingKey::Hybrid(narrow) = &key else {
        panic!("hybrid")
    };
    let mixed = KeySwitchMethod::Mixed {
        klss: KlssConfig::klss(2),
        levels: LevelSet::from_limbs([2]).unwrap(),
    };
    for method in [KeySwitchMethod::Klss(KlssConfig::klss(2)), mixed] {
        let e = KeySwitchEngine::new(ctx.clone(), 3, method, None).unwrap();
        let full = e
            .generate_key_at_with_storage(other.ntt(), &sk, 2, storage, &mut rng)
            .unwrap();
        assert_eq!(full.q_limbs(), l1, "{}", method.name());
        assert!(e.owns(&full) && !e.owns(&key));
        assert!(matches!(
            e.adopt(narrow.clone(), storage),
            Err(Error::ParameterMismatch(_))
        ));
        assert!(e
            .generate_key_at_with_storage(other.ntt(), &sk, l1 + 1, storage, &mut rng)
            .is_err());
    }
}
