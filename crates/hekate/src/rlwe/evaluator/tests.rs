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

/// Seed 003 Alg. 6 over `Q_l ∪ P` (giant steps nested or summed) against the expected
/// messages and against the single-hoisted evaluation, with its counts: one decomposition
/// for the baby steps and one per giant rotation, a half ModDown per giant rotation, one
/// ModDown pair.
#[test]
fn bsgs_extended_is_alg_6_within_mod_down_rounding() {
    let mut s = setup(KeySwitchMethod::Hybrid);
    let ring = s.eval.parameters().ring().clone();
    let (n, k, two_n) = (ring.n(), ring.p_len(), 2 * ring.n());
    let (m, ct) = encrypt(&mut s);
    let babies = [1usize, 5, 25];
    // Small diagonals (coefficients in {-1, 0, 1}), over Q_l ∪ P and over Q_l.
    let mut diagonal = |p_limbs| {
        let c: Vec<i64> = (0..n).map(|_| (s.rng.next_u32() % 3) as i64 - 1).collect();
        let mut pt = ring.from_signed(&c, 3, p_limbs);
        pt.ntt(&ring);
        pt
    };
    let pts: Vec<Poly> = (0..7).map(|_| diagonal(k)).collect();
    let narrow: Vec<Poly> = pts.iter().map(|p| p.restricted(3, 0)).collect();
    let layout: [(&[usize], usize); 3] = [(&[0, 1], 2047), (&[2, 0, 1], 5), (&[1, 2], 1)];
    let mut next = 0;
    let terms: Vec<Vec<(usize, usize)>> = layout
        .iter()
        .map(|(js, _)| {
            js.iter()
                .map(|&j| {
                    next += 1;
                    (j, next - 1)
                })
                .collect()
        })
        .collect();
    for (nested, gs) in [true, false]
        .into_iter()
        .flat_map(|n| [(n, [2047usize, 5, 1]), (n, [1, 25, 5])])
    {
        let wide: Vec<Vec<(usize, &Poly)>> = terms
            .iter()
            .map(|t| t.iter().map(|&(j, i)| (j, &pts[i])).collect())
            .collect();
        let blocks: Vec<ExtendedBlock<'_>> =
            wide.iter().zip(gs).map(|(t, g)| (&t[..], g)).collect();
        let before = s.eval.key_switch_counts();
        let out = s.eval.bsgs_extended(&ct, &babies, &blocks, nested).unwrap();
        let after = s.eval.key_switch_counts();
        // S_t = Σ pt ⊙ φ_{h_j}(m); the result nests φ_{g_t}(S_t + ...) or sums φ_{g_t}(S_t).
        let mut expected: Option<Poly> = None;
        for (t, g) in terms.iter().zip(gs).rev() {
            let inner = expected
                .take()
                .unwrap_or_else(|| ring.zero(3, 0, Form::Ntt));
            let mut acc = if nested {
                inner.clone()
            } else {
                ring.zero(3, 0, Form::Ntt)
            };
            for &(j, i) in t {
                let mut r = permuted(&s, &m, babies[j]);
                r.mul_assign(&narrow[i], &ring);
                acc.add_assign(&r, &ring);
            }
            let mut term = if g == 1 { acc } else { permuted(&s, &acc, g) };
            if !nested {
                term.add_assign(&inner, &ring);
            }
            expected = Some(term);
        }
        let expected = expected.unwrap();
        let bits = error_bits(&s, &out, &expected);
        assert!(bits < 18.0, "Alg. 6 error 2^{bits:.1}");
        // Single hoisting: baby rotations brought down, products over Q_l, then nested or
        // summed giant steps.
        let rotated = s.eval.automorphisms_hoisted(&ct, &babies).unwrap();
        let partial: Vec<Vec<Poly>> = terms
            .iter()
            .map(|t| {
                let mut acc = vec![ring.zero(3, 0, Form::Ntt), ring.zero(3, 0, Form::Ntt)];
                for &(j, i) in t {
                    for h in 0..2 {
                        acc[h].mul_add_assign(&rotated[j][h], &narrow[i], &ring);
                    }
                }
                acc
            })
            .collect();
        let args: Vec<(&[Poly], usize)> =
            partial.iter().zip(gs).map(|(p, g)| (&p[..], g)).collect();
        let single = if nested {
            s.eval.automorphism_horner(&args).unwrap()
        } else {
            s.eval.automorphism_sum(&args).unwrap()
        };
        let bits = error_bits(&s, &single, &expected);
        assert!(bits < 18.0, "single-hoisted error 2^{bits:.1}");
        let r = gs.iter().filter(|&&g| g % two_n != 1).count() as u64;
        assert_eq!(
            (
                after.decompositions - before.decompositions,
                after.half_mod_downs - before.half_mod_downs,
                after.mod_downs - before.mod_downs
            ),
            (1 + r, r, 1)
        );
    }
    // Diagonals over Q_l only, a missing key, no giant step: errors.
    let narrow_terms = [(0usize, &narrow[0])];
    assert!(matches!(
        s.eval
            .bsgs_extended(&ct, &babies, &[(&narrow_terms, 5)], true),
        Err(Error::LevelMismatch(_))
    ));
    let wide_terms = [(0usize, &pts[0])];
    assert!(matches!(
        s.eval
            .bsgs_extended(&ct, &babies, &[(&wide_terms, 9)], false),
        Err(Error::MissingKey(_))
    ));
    assert!(s.eval.bsgs_extended(&ct, &babies, &[], true).is_err());
    assert!(s
        .eval
        .bsgs_extended(&ct, &[1], &[(&[(3, &pts[0])], 5)], true)
        .is_err());
    // The KLSS engine keeps no accumulator over Q_l ∪ P.
    let mut klss = setup(KeySwitchMethod::Klss(KlssConfig::klss(2)));
    let (_, ct) = encrypt(&mut klss);
    assert!(matches!(
        klss.eval
            .bsgs_extended(&ct, &babies, &[(&wide_terms, 5)], true),
        Err(Error::ParameterMismatch(_))
    ));
}
