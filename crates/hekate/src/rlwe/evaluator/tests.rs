//! The evaluator core on raw RLWE ciphertexts: automorphisms in either form, single
//! hoisting word for word, double hoisting within the rounding of one ModDown.

use super::*;
use crate::params::SecurityLevel;
use crate::rlwe::evaluation_keys::GaloisKeys;
use crate::rlwe::keys::{encrypt_zero_sk, SecretKey};
use crate::rlwe::keyswitch::{KeySwitchMethod, KlssConfig};
use crate::rlwe::params::ChainBuilder;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

struct Setup {
    eval: Evaluator,
    sk: SecretKey,
    rng: ChaCha20Rng,
}

const ELEMENTS: [usize; 3] = [5, 25, 2047];

fn setup(method: KeySwitchMethod) -> Setup {
    let params = ChainBuilder::new(10)
        .log_q(&[45, 36, 36])
        .dnum(2)
        .key_switching(method)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let sk = params.generate_secret_key_with(&mut rng);
    let galois: GaloisKeys = params.generate_galois_keys_with(&sk, &ELEMENTS, &mut rng);
    let keys = EvaluationKeySet::new(None, galois);
    let eval = Evaluator::new(Arc::new(params), Arc::new(keys));
    Setup { eval, sk, rng }
}

/// A message `m` (coefficients below 2^20) and an encryption `(c_0, c_1)` of it.
fn encrypt(s: &mut Setup) -> (Poly, Vec<Poly>) {
    let ring = s.eval.parameters().ring().clone();
    let n = ring.n();
    let coeffs: Vec<i64> = (0..n)
        .map(|_| (s.rng.next_u32() >> 12) as i64 - (1 << 19))
        .collect();
    let mut m = ring.from_signed(&coeffs, 3, 0);
    m.ntt(&ring);
    let mut seed = [0u8; 32];
    s.rng.fill_bytes(&mut seed);
    let [mut c0, c1] = encrypt_zero_sk(&ring, &s.sk, 3, 0, &seed, 0, &mut s.rng);
    c0.add_assign(&m, &ring);
    (m, vec![c0, c1])
}

/// The largest centered coefficient of `c_0 + c_1 s - expected` modulo `q_0`.
fn error_bits(s: &Setup, parts: &[Poly], expected: &Poly) -> f64 {
    let ring = s.eval.parameters().ring();
    let sk = s.sk.ntt_at(3, 0);
    let mut d = parts[1].clone();
    d.mul_assign(&sk, ring);
    d.add_assign(&parts[0], ring);
    d.sub_assign(expected, ring);
    d.intt(ring);
    let q0 = ring.modulus(0, 3).value();
    let max = d.limb(0).iter().map(|&x| x.min(q0 - x)).max().unwrap_or(0);
    (max.max(1) as f64).log2()
}

fn permuted(s: &Setup, m: &Poly, g: usize) -> Poly {
    let ring = s.eval.parameters().ring();
    let mut out = ring.zero(3, 0, Form::Ntt);
    m.automorphism(g, ring, &mut out);
    out
}

#[test]
fn automorphisms_are_correct_in_both_forms_and_hoisting_changes_no_word() {
    for method in [
        KeySwitchMethod::Hybrid,
        KeySwitchMethod::Klss(KlssConfig::klss(2)),
    ] {
        let mut s = setup(method);
        let (m, ct) = encrypt(&mut s);
        let ring = s.eval.parameters().ring().clone();
        let hoisted = s.eval.automorphisms_hoisted(&ct, &ELEMENTS).unwrap();
        for (&g, h) in ELEMENTS.iter().zip(&hoisted) {
            let direct = s.eval.automorphism(&ct, g).unwrap();
            assert!(
                direct == *h,
                "hoisted and direct automorphisms differ (g = {g})"
            );
            assert!(error_bits(&s, &direct, &permuted(&s, &m, g)) < 16.0);
            // The same ciphertext in coefficient form gives the same result in that form.
            let mut coeff = ct.clone();
            coeff.iter_mut().for_each(|p| p.intt(&ring));
            let mut out = s.eval.automorphism(&coeff, g).unwrap();
            assert!(out.iter().all(|p| p.form() == Form::Coeff));
            out.iter_mut().for_each(|p| p.ntt(&ring));
            assert!(out == direct);
        }
        // A bare key switch takes either form and answers in it.
        let key = s.eval.galois_key(5).unwrap().unwrap().key();
        let ntt = s.eval.key_switch(&ct[1], key).unwrap();
        let mut c1 = ct[1].clone();
        c1.intt(&ring);
        let mut coeff = s.eval.key_switch(&c1, key).unwrap();
        coeff.iter_mut().for_each(|p| p.ntt(&ring));
        assert!(coeff == ntt);
        // One term: exactly the automorphism.
        let one = s.eval.automorphism_sum(&[(&ct, 25)]).unwrap();
        assert!(one == hoisted[1]);
    }
}

#[test]
fn automorphism_sum_shares_one_mod_down() {
    for method in [
        KeySwitchMethod::Hybrid,
        KeySwitchMethod::Klss(KlssConfig::klss(2)),
    ] {
        let mut s = setup(method);
        let ring = s.eval.parameters().ring().clone();
        let terms: Vec<(Poly, Vec<Poly>, usize)> = [5usize, 25, 1, 2047, 5]
            .into_iter()
            .map(|g| {
                let (m, ct) = encrypt(&mut s);
                (m, ct, g)
            })
            .collect();
        let args: Vec<(&[Poly], usize)> = terms.iter().map(|(_, c, g)| (&c[..], *g)).collect();
        let sum = s.eval.automorphism_sum(&args).unwrap();
        let mut expected = ring.zero(3, 0, Form::Ntt);
        for (m, _, g) in &terms {
            expected.add_assign(&permuted(&s, m, *g), &ring);
        }
        let bits = error_bits(&s, &sum, &expected);
        assert!(bits < 16.0, "double-hoisted sum error 2^{bits:.1}");
    }
}

#[test]
fn automorphism_horner_nests_with_half_mod_downs() {
    for method in [
        KeySwitchMethod::Hybrid,
        KeySwitchMethod::Klss(KlssConfig::klss(2)),
    ] {
        let mut s = setup(method);
        let ring = s.eval.parameters().ring().clone();
        let two_n = 2 * ring.n();
        for gs in [[25usize, 5, 1, 2047, 5], [1, 5, 5, 25, 1]] {
            let terms: Vec<(Poly, Vec<Poly>)> = gs.iter().map(|_| encrypt(&mut s)).collect();
            let args: Vec<(&[Poly], usize)> = terms
                .iter()
                .zip(gs)
                .map(|((_, c), g)| (&c[..], g))
                .collect();
            let before = s.eval.key_switch_counts();
            let out = s.eval.automorphism_horner(&args).unwrap();
            let after = s.eval.key_switch_counts();
            // Term k undergoes φ_{g_0 g_1 ... g_k}.
            let mut expected = ring.zero(3, 0, Form::Ntt);
            let mut total = 1;
            for ((m, _), g) in terms.iter().zip(gs) {
                total = total * g % two_n;
                expected.add_assign(&permuted(&s, m, total), &ring);
            }
            let bits = error_bits(&s, &out, &expected);
            assert!(bits < 16.0, "Horner sum error 2^{bits:.1}");
            // The same nesting by separate automorphisms and additions.
            let mut nested: Option<Vec<Poly>> = None;
            for ((_, ct), g) in terms.iter().zip(gs).rev() {
                let mut h = ct.clone();
                if let Some(inner) = nested {
                    h[0].add_assign(&inner[0], &ring);
                    h[1].add_assign(&inner[1], &ring);
                }
                nested = Some(if g == 1 {
                    h
                } else {
                    s.eval.automorphism(&h, g).unwrap()
                });
            }
            let bits = error_bits(&s, &nested.unwrap(), &expected);
            assert!(bits < 16.0, "nested automorphisms error 2^{bits:.1}");
            let r = gs.iter().filter(|&&g| g != 1).count() as u64;
            assert_eq!(
                (
                    after.decompositions - before.decompositions,
                    after.half_mod_downs - before.half_mod_downs,
                    after.mod_downs - before.mod_downs
                ),
                (r, r - 1, 1)
            );
        }
        let (_, ct) = encrypt(&mut s);
        assert!(matches!(
            s.eval.automorphism_horner(&[(&ct, 9)]),
            Err(Error::MissingKey(_))
        ));
        assert!(s.eval.automorphism_horner(&[]).is_err());
    }
}

#[test]
fn shapes_and_keys_are_checked() {
    let mut s = setup(KeySwitchMethod::Hybrid);
    let (_, ct) = encrypt(&mut s);
    let e = s.eval.automorphism(&ct, 9).unwrap_err();
    assert!(matches!(e, Error::MissingKey(ref m) if m.contains("Galois element 9")));
    let e = s.eval.automorphism(&ct[..1], 5).unwrap_err();
    assert!(matches!(e, Error::ParameterMismatch(ref m) if m.contains("2 parts")));
    let mut three = ct.clone();
    three.push(ct[1].clone());
    let e = s.eval.relinearize(&mut three).unwrap_err();
    assert!(matches!(e, Error::MissingKey(_)));
    let mixed = vec![ct[0].clone(), ct[1].truncated(2)];
    assert!(s.eval.automorphism(&mixed, 5).is_err());
}
