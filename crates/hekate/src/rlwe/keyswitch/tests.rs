//! Key switching decrypts to `c · s'` plus small noise, at every level.

use super::*;
use crate::math::PrimeGenerator;
use crate::ring::{Form, RingContext};
use crate::rlwe::keys::SecretDistribution;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

/// Max |centered coefficient| of `u0 + u1 s - c s'` over Q_l.
pub(crate) fn switch_error(
    ctx: &RingContext,
    ks: &HybridKeySwitcher,
    key: &HybridKey,
    sk: &SecretKey,
    s_from: &Poly,
    ql: usize,
    rng: &mut ChaCha20Rng,
) -> f64 {
    let e = switch_residual(ctx, ks, key, sk, s_from, ql, rng);
    e.iter().fold(0.0f64, |m, &x| m.max(x.abs()))
}

/// The centered coefficients of `u0 + u1 s - c s'` over Q_l for a uniform `c`: the
/// key-switching noise.
fn switch_residual(
    ctx: &RingContext,
    ks: &HybridKeySwitcher,
    key: &HybridKey,
    sk: &SecretKey,
    s_from: &Poly,
    ql: usize,
    rng: &mut ChaCha20Rng,
) -> Vec<f64> {
    let n = ctx.n();
    let c = random_ntt(ctx, ql, rng);
    let [mut u0, u1] = ks.switch(&c, key);
    let mut t = u1.clone();
    t.mul_assign(&sk.ntt_at(ql, 0), ctx);
    u0.add_assign(&t, ctx);
    let mut cs = c.clone();
    cs.mul_assign(&s_from.restricted(ql, 0), ctx);
    u0.sub_assign(&cs, ctx);
    u0.intt(ctx);
    let mut digits = vec![0u64; ql * n];
    let mut out = vec![0.0; n];
    ctx.crt().centered_f64(u0.data(), &mut digits, n, &mut out);
    out
}

/// A 5-prime chain (55 + 4 x 45 bits) and three 58-bit special primes at `N = 2^10`.
pub(super) fn five_prime_ring() -> Arc<RingContext> {
    let n = 1 << 10;
    let mut g = PrimeGenerator::new(n).unwrap();
    let q: Vec<u64> = [55u32, 45, 45, 45, 45]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    let p: Vec<u64> = [58u32, 58, 58]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    RingContext::new(n, &q, &p).unwrap()
}

#[test]
fn hybrid_switch_is_correct_at_every_level_and_dnum() {
    let ctx = five_prime_ring();
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 42);
    for dnum in [2usize, 3, 5] {
        let ks = HybridKeySwitcher::new(ctx.clone(), dnum);
        let key = ks.generate_key(other.ntt(), &sk, &mut rng);
        for ql in 1..=5 {
            let err = switch_error(&ctx, &ks, &key, &sk, other.ntt(), ql, &mut rng);
            // e_ks = sum_j d_j e_j / P + rounding: |d_j| < Q_j/2 <= 2^(α·45+10)/2,
            // |e_j| <= 6σ·N-ish in the worst case; in practice ~ sqrt(N)·σ·Q_j/P. A loose
            // bound of 2^20 still catches every algebraic mistake (those give ~Q/2).
            assert!(
                err < (1u64 << 20) as f64,
                "dnum {dnum} level {ql}: error {err}"
            );
        }
    }
}

/// Measured variance of `u0 + u1 s - c s'` for a uniform `c`, against the analysis:
/// `Var = N σ^2 Σ_j E[d_j^2] / P^2 + (1 + 2N/3)/12` with `E[d_j^2] = Q_j^2 / 12`.
/// P is chosen *smaller* than the digits so that the first (digit) term dominates and
/// is what the test checks; the CKKS-level tests cover the rounding-dominated regime.
#[test]
fn hybrid_noise_variance_matches_the_analysis() {
    let n = 1 << 12;
    let mut g = PrimeGenerator::new(n).unwrap();
    let q: Vec<u64> = [50u32, 45, 45, 45]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    let p: Vec<u64> = vec![g.next_prime(40).unwrap()];
    let ctx = RingContext::new(n, &q, &p).unwrap();
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 7);
    let ks = HybridKeySwitcher::new(ctx.clone(), 4); // one prime per digit
    let key = ks.generate_key(other.ntt(), &sk, &mut rng);
    let e = switch_residual(&ctx, &ks, &key, &sk, other.ntt(), 4, &mut rng);
    let measured = e.iter().map(|x| x * x).sum::<f64>() / n as f64;
    let (sigma, nf) = (crate::rlwe::keys::NOISE_SIGMA, n as f64);
    let log_p = (p[0] as f64).log2();
    let digit_term: f64 = q
        .iter()
        .map(|&qj| nf * sigma * sigma * 2f64.powf(2.0 * ((qj as f64).log2() - log_p)) / 12.0)
        .sum();
    let predicted = digit_term + (1.0 + 2.0 * nf / 3.0) / 12.0;
    let ratio = measured / predicted;
    eprintln!("key-switch noise variance: measured {measured:.4e}, predicted {predicted:.4e}, ratio {ratio:.3}");
    // N = 4096 samples of a (near-Gaussian) sum: the estimator's relative deviation is
    // about sqrt(2/N) = 2.2%; allow 10%.
    assert!((0.9..1.1).contains(&ratio), "ratio {ratio}");
}

/// A ring with mixed prime sizes (a 55-bit first prime, 40-bit chain, 58-bit specials).
pub(crate) fn mixed_ring(n: usize) -> Arc<RingContext> {
    let mut g = PrimeGenerator::new(n).unwrap();
    let q: Vec<u64> = [55u32, 40, 40, 40, 40, 40]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    let p: Vec<u64> = [58u32, 58]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    RingContext::new(n, &q, &p).unwrap()
}

/// A generator seeded with `seed` and two ternary secrets of `ctx` drawn from it: the one
/// a key switches to (`sk`) and the one it switches from (`other`).
pub(crate) fn rng_and_secrets(ctx: &RingContext, seed: u64) -> (ChaCha20Rng, SecretKey, SecretKey) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = SecretKey::generate(ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let other = SecretKey::generate(ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    (rng, sk, other)
}

/// A uniformly random NTT-form polynomial over `Q_l` (`ql` chain limbs).
pub(crate) fn random_ntt(ctx: &RingContext, ql: usize, rng: &mut ChaCha20Rng) -> Poly {
    random_ntt_over(ctx, ql, 0, rng)
}

/// A uniformly random NTT-form polynomial over `ql` chain limbs and the first `p_limbs`
/// special ones.
pub(crate) fn random_ntt_over(
    ctx: &RingContext,
    ql: usize,
    p_limbs: usize,
    rng: &mut ChaCha20Rng,
) -> Poly {
    let mut c = ctx.zero(ql, p_limbs, Form::Ntt);
    for (i, limb) in c.limbs_mut().enumerate() {
        let q = ctx.modulus(i, ql).value();
        limb.iter_mut().for_each(|x| *x = rng.next_u64() % q);
    }
    c
}

/// KLSS computes the hybrid engine's `<b, u>` exactly (same key, same centered digits), so
/// its outputs are the same words, for every r̃, bound, level and dnum: the strongest
/// check there is (any overflow of B' or wrong recombination changes words).
#[test]
fn klss_and_linear_equal_hybrid_word_for_word() {
    let ctx = mixed_ring(1 << 10);
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 3);
    for dnum in [6usize, 3, 2] {
        let hybrid = HybridKeySwitcher::new(ctx.clone(), dnum);
        let key = hybrid.generate_key(other.ntt(), &sk, &mut rng);
        for (r_tilde, bound) in [
            (1, KlssBound::WorstCase),
            (1, KlssBound::Heuristic),
            (2, KlssBound::WorstCase),
            (3, KlssBound::WorstCase),
            (8, KlssBound::WorstCase),
        ] {
            let config = KlssConfig::klss(r_tilde).with_bound(bound);
            let klss = KlssKeySwitcher::new(ctx.clone(), dnum, config).unwrap();
            let ek = klss.expand(&key, KeyStorage::ExpandedOnly).unwrap();
            for ql in [6usize, 4, 1] {
                let c = random_ntt(&ctx, ql, &mut rng);
                let want = hybrid.switch(&c, &key);
                let got = klss.switch(&c, &ek);
                assert!(
                    want == got,
                    "dnum {dnum} r̃ {r_tilde} {bound:?} r' {} level {ql}: outputs differ",
                    klss.r_prime()
                );
            }
        }
    }
}

/// Each key digit keeps the fewest leading `B'` primes above its own bound: the digits
/// holding the 58-bit special primes need more than the chain digits, the key is
/// `2 d Σ r'_i N` words, and the switch still equals the hybrid one word for word.
#[test]
fn klss_key_digits_take_their_own_r_prime() {
    let ctx = mixed_ring(1 << 10);
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 6);
    let dnum = 6;
    let hybrid = HybridKeySwitcher::new(ctx.clone(), dnum);
    let key = hybrid.generate_key(other.ntt(), &sk, &mut rng);
    let mut seen_mixed = false;
    for r_tilde in [1usize, 2, 3] {
        let config = KlssConfig::klss(r_tilde);
        let klss = KlssKeySwitcher::new(ctx.clone(), dnum, config).unwrap();
        let bounds = super::klss::log_bounds(&ctx, dnum, &config);
        let b: Vec<f64> = klss.b_primes().iter().map(|&p| (p as f64).log2()).collect();
        let rps = klss.r_primes();
        assert_eq!(rps.len(), klss.d_tilde());
        assert_eq!(rps.iter().max(), Some(&klss.r_prime()));
        for (&r, &bound) in rps.iter().zip(&bounds) {
            let log = |c: usize| b[..c].iter().sum::<f64>();
            assert!(
                log(r) > bound && log(r - 1) <= bound,
                "r' {r} for 2^{bound:.1}"
            );
        }
        seen_mixed |= rps.iter().min() != rps.iter().max();
        let ek = klss.expand(&key, KeyStorage::ExpandedOnly).unwrap();
        let words = 2 * dnum * rps.iter().sum::<usize>() * ctx.n();
        assert_eq!(ek.expanded_bytes(), 8 * words);
        for ql in [6usize, 3] {
            let c = random_ntt(&ctx, ql, &mut rng);
            assert!(
                hybrid.switch(&c, &key) == klss.switch(&c, &ek),
                "r̃ {r_tilde} {rps:?}"
            );
        }
        assert!(klss.contract(&ek) == key, "r̃ {r_tilde}: contraction");
    }
    assert!(
        seen_mixed,
        "no configuration with key digits of different r'"
    );
}

/// Sums of products in B' (double hoisting), across the recombination threshold, with a
/// permutation of the accumulator: equal to the hybrid engine's.
#[test]
fn klss_accumulation_and_permutation_equal_hybrid() {
    let ctx = mixed_ring(1 << 10);
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 4);
    let hybrid = HybridKeySwitcher::new(ctx.clone(), 3);
    let keys: Vec<HybridKey> = (0..5)
        .map(|_| hybrid.generate_key(other.ntt(), &sk, &mut rng))
        .collect();
    let mut config = KlssConfig::klss(3);
    config.accumulation = 2;
    let klss = KlssKeySwitcher::new(ctx.clone(), 3, config).unwrap();
    let ek: Vec<KlssKey> = keys
        .iter()
        .map(|k| klss.expand(k, KeyStorage::ExpandedWithOrdinary).unwrap())
        .collect();
    let ql = 5;
    let c = random_ntt(&ctx, ql, &mut rng);
    let (dh, dk) = (hybrid.decompose(&c), klss.decompose(&c));
    let mut ah = hybrid.zero_accumulator(ql);
    let mut ak = klss.zero_accumulator(ql);
    for (h, k) in keys.iter().zip(&ek) {
        hybrid.multiply_add(&dh, h, &mut ah);
        klss.multiply_add(&dk, k, &mut ak);
    }
    let g = 5usize;
    let (ph, pk) = (hybrid.permute(&ah, g), klss.permute(&ak, g));
    assert!(hybrid.mod_down(ph) == klss.mod_down(pk));
    assert!(hybrid.mod_down(ah) == klss.mod_down(ak));
}

/// Eq. (5) and the explicit-r' check: a too-small r' is refused with an error.
#[test]
fn klss_r_prime_is_checked_against_the_bound() {
    let ctx = mixed_ring(1 << 10);
    let ok = KlssKeySwitcher::new(ctx.clone(), 6, KlssConfig::linear()).unwrap();
    let (need, have) = ok.bound_bits();
    assert!(have > need);
    // 55-bit and 58-bit digits: 1 + log2(N) + ... > 122 bits: r' = 3 under the worst case.
    assert_eq!(ok.r_prime(), 3);
    let err = KlssKeySwitcher::new(ctx.clone(), 6, KlssConfig::linear().with_r_prime(2));
    assert!(matches!(err, Err(crate::Error::InvalidParameters(_))));
    let heur = KlssConfig::linear()
        .with_bound(KlssBound::Heuristic)
        .with_r_prime(2);
    assert_eq!(KlssKeySwitcher::new(ctx, 6, heur).unwrap().r_prime(), 2);
}

/// A mixed engine runs KLSS at its levels and hybrid at the others, on keys it keeps in
/// both forms: at every level its switch, hoisted sum and permutation equal the hybrid
/// engine's words, and its decompositions are of the engine the level names.
#[test]
fn mixed_engine_equals_hybrid_at_every_level() {
    let ctx = mixed_ring(1 << 10);
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 5);
    let hybrid = HybridKeySwitcher::new(ctx.clone(), 3);
    let levels = LevelSet::from_limbs([2, 5, 6]).unwrap();
    let method = KeySwitchMethod::Mixed {
        klss: KlssConfig::klss(2),
        levels,
    };
    let mixed = KeySwitchEngine::new(ctx.clone(), 3, method, None).unwrap();
    assert_eq!(mixed.method(), method);
    let keys: Vec<HybridKey> = (0..3)
        .map(|_| hybrid.generate_key(other.ntt(), &sk, &mut rng))
        .collect();
    // Expanded storage is asked for, but a mixed engine keeps both forms regardless.
    let mk: Vec<SwitchingKey> = keys
        .iter()
        .map(|k| mixed.adopt(k.clone(), KeyStorage::ExpandedOnly).unwrap())
        .collect();
    for (k, m) in keys.iter().zip(&mk) {
        assert!(mixed.owns(m));
        assert_eq!(mixed.ordinary_key(m).as_ref(), k);
    }
    for ql in 1..=6 {
        let c = random_ntt(&ctx, ql, &mut rng);
        assert!(
            hybrid.switch(&c, &keys[0]) == mixed.switch(&c, &mk[0]),
            "level {ql}"
        );
        let d = mixed.decompose(&c);
        assert_eq!(
            matches!(d, EngineDecomposition::Klss(_)),
            levels.contains(ql),
            "level {ql}: decomposition of the wrong engine"
        );
        let dh = hybrid.decompose(&c);
        let (mut ah, mut am) = (hybrid.zero_accumulator(ql), mixed.zero_accumulator(ql));
        for (h, m) in keys.iter().zip(&mk) {
            hybrid.multiply_add(&dh, h, &mut ah);
            mixed.multiply_add(&d, m, &mut am);
        }
        let (ph, pm) = (hybrid.permute(&ah, 5), mixed.permute(&am, 5));
        assert!(
            hybrid.mod_down(ph) == mixed.mod_down(pm),
            "level {ql}: permuted"
        );
        assert!(hybrid.mod_down(ah) == mixed.mod_down(am), "level {ql}: sum");
    }
    let too_high = KeySwitchMethod::Mixed {
        klss: KlssConfig::klss(2),
        levels: LevelSet::from_limbs([7]).unwrap(),
    };
    assert!(KeySwitchEngine::new(ctx, 3, too_high, None).is_err());
}

/// `Auto`'s plan: at every level the planned engine is predicted at least as fast as both
/// hybrid and the plan's KLSS configuration, and the plan is `Mixed` only when the two
/// trade places. With one-prime digits (dnum = L + 1) and NTTs made very expensive, KLSS
/// (which trades NTTs for inner products) must run at the top level.
#[test]
fn auto_plans_per_level() {
    use super::cost::{CostModel, UnitCosts};
    let ctx = mixed_ring(1 << 10);
    let top = ctx.q_len();
    let costs = UnitCosts::calibrate(1 << 10);
    let dear_ntt = UnitCosts {
        ntt_narrow: 1.0,
        ntt_wide: 1.0,
        ..costs
    };
    for dnum in [1usize, 2, 6] {
        for c in [&costs, &dear_ntt] {
            let model = CostModel::new(&ctx, dnum, c);
            let plan = model.plan().unwrap();
            for ql in 1..=top {
                let mine = model.predict(&plan, ql).unwrap().seconds;
                let hyb = model.predict(&KeySwitchMethod::Hybrid, ql).unwrap().seconds;
                assert!(
                    mine <= hyb,
                    "dnum {dnum} level {ql}: plan slower than hybrid"
                );
                if let KeySwitchMethod::Klss(k) | KeySwitchMethod::Mixed { klss: k, .. } = plan {
                    let k = model
                        .predict(&KeySwitchMethod::Klss(k), ql)
                        .unwrap()
                        .seconds;
                    assert!(
                        mine <= k,
                        "dnum {dnum} level {ql}: plan slower than its KLSS"
                    );
                }
            }
            if let KeySwitchMethod::Mixed { levels, .. } = plan {
                assert!(!levels.is_empty() && levels.len() < top);
            }
        }
    }
    let plan = CostModel::new(&ctx, top, &dear_ntt).plan().unwrap();
    match plan {
        KeySwitchMethod::Klss(_) => {}
        KeySwitchMethod::Mixed { levels, .. } => assert!(levels.contains(top), "{plan:?}"),
        _ => panic!("hybrid planned at dnum = L + 1 with dear NTTs"),
    }
}

/// Every engine's key switch gives the same words on every instruction set: this test
/// binary re-runs [`isa_child`] under each `HEKATE_SIMD` cap (the SIMD choice is fixed
/// once per process) and compares the digests of their outputs. The rings mix primes
/// below `2^50` (the AVX2 `f64` and IFMA paths) with wider ones (the integer lanes).
#[test]
fn key_switching_is_the_same_on_every_isa() {
    use crate::math::kernels::Isa;
    let exe = std::env::current_exe().unwrap();
    let mut digests = Vec::new();
    for cap in Isa::ALL {
        let out = std::process::Command::new(&exe)
            .args([
                "--exact",
                "rlwe::keyswitch::tests::isa_child",
                "--ignored",
                "--nocapture",
            ])
            .env("HEKATE_SIMD", cap.name())
            .env("HEKATE_KS_DIGEST", "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let digest = text
            .lines()
            .find_map(|l| l.strip_prefix("key-switch digest: "))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("cap {cap}: no digest\n{text}"))
            .to_string();
        let isa = Isa::cpu().min(cap);
        assert!(text.contains(isa.name()), "cap {cap} ran {text}");
        digests.push((isa, digest));
    }
    let (isa0, d0) = &digests[0];
    assert_eq!(*isa0, Isa::Scalar);
    for (isa, d) in &digests[1..] {
        assert_eq!(d, d0, "{isa} differs from the scalar path");
    }
}

/// Run by [`key_switching_is_the_same_on_every_isa`] in a child process: prints a digest
/// of hybrid, KLSS and linear switches at every level of two rings.
#[test]
#[ignore = "run by key_switching_is_the_same_on_every_isa with HEKATE_SIMD set"]
fn isa_child() {
    if std::env::var("HEKATE_KS_DIGEST").is_err() {
        return;
    }
    let n = 1 << 10;
    let mut words = Vec::new();
    let narrow = {
        let mut g = PrimeGenerator::new(n).unwrap();
        let q: Vec<u64> = [45u32, 40, 40, 40]
            .iter()
            .map(|&b| g.next_prime(b).unwrap())
            .collect();
        let p: Vec<u64> = [48u32, 48]
            .iter()
            .map(|&b| g.next_prime(b).unwrap())
            .collect();
        RingContext::new(n, &q, &p).unwrap()
    };
    for ctx in [mixed_ring(n), narrow] {
        let (mut rng, sk, other) = rng_and_secrets(&ctx, 11);
        let hybrid = HybridKeySwitcher::new(ctx.clone(), 2);
        let key = hybrid.generate_key(other.ntt(), &sk, &mut rng);
        let engines: Vec<(KlssKeySwitcher, KlssKey)> = [KlssConfig::klss(2), KlssConfig::linear()]
            .into_iter()
            .map(|config| {
                let klss = KlssKeySwitcher::new(ctx.clone(), 2, config).unwrap();
                let ek = klss.expand(&key, KeyStorage::ExpandedOnly).unwrap();
                (klss, ek)
            })
            .collect();
        for ql in 1..=ctx.q_len() {
            let c = random_ntt(&ctx, ql, &mut rng);
            let mut outs = vec![hybrid.switch(&c, &key)];
            outs.extend(engines.iter().map(|(e, k)| e.switch(&c, k)));
            for [u0, u1] in outs {
                words.extend_from_slice(u0.data());
                words.extend_from_slice(u1.data());
            }
        }
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    println!(
        "key-switch digest: {:016x} ({} words, {})",
        crate::ring::fnv1a64(&bytes),
        words.len(),
        crate::math::kernels::Isa::detect()
    );
}

/// A coefficient-form input gives the NTT-form switch in coefficient form, word for word,
/// on every engine (the KLSS and linear ones skip their input and output transforms).
#[test]
fn coefficient_form_switch_equals_the_ntt_form_one() {
    let ctx = mixed_ring(1 << 10);
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 5);
    let dnum = 3;
    let hybrid = HybridKeySwitcher::new(ctx.clone(), dnum);
    let key = hybrid.generate_key(other.ntt(), &sk, &mut rng);
    let linear = KlssKeySwitcher::new(ctx.clone(), dnum, KlssConfig::linear()).unwrap();
    let klss = KlssKeySwitcher::new(ctx.clone(), dnum, KlssConfig::klss(2)).unwrap();
    let (ek_lin, ek_klss) = (
        linear.expand(&key, KeyStorage::ExpandedOnly).unwrap(),
        klss.expand(&key, KeyStorage::ExpandedOnly).unwrap(),
    );
    for ql in [6usize, 3, 1] {
        let c = random_ntt(&ctx, ql, &mut rng);
        let mut c_coeff = c.clone();
        c_coeff.intt(&ctx);
        let want = hybrid.switch(&c, &key).map(|mut u| {
            u.intt(&ctx);
            u
        });
        assert!(want.iter().all(|u| u.form() == Form::Coeff));
        assert!(hybrid.switch(&c_coeff, &key) == want, "hybrid, {ql} limbs");
        assert!(
            linear.switch(&c_coeff, &ek_lin) == want,
            "linear, {ql} limbs"
        );
        assert!(klss.switch(&c_coeff, &ek_klss) == want, "KLSS, {ql} limbs");
    }
}

/// The cost model splits inner-product terms and conversion pairs by prime width, and the
/// split adds up to the module table's totals. On `mixed_ring` (q = 55, 40 x 5; P = 58 x 2)
/// at dnum 3 (digits {55, 40}, {40, 40}, {40, 40}): the hybrid switch's terms are wide on
/// q_0 and P (2 d (1 + 2) of 2 d (6 + 2)); ModUp pairs are wide from the digit holding q_0
/// (2 x 6) and into q_0 and P from the other two (2 x 3 each), narrow otherwise (2 x 3
/// each), and the ModDown's pairs are all wide (from P); KLSS's B' terms take the width
/// of B'.
#[test]
fn cost_model_splits_products_by_prime_width() {
    use super::cost::{CostModel, UnitCosts};
    let ctx = mixed_ring(1 << 10);
    let costs = UnitCosts::calibrate(1 << 10);
    let model = CostModel::new(&ctx, 3, &costs);
    let (l1, k) = (ctx.q_len() as f64, ctx.p_len() as f64);
    let h = model.counts(&KeySwitchMethod::Hybrid, ctx.q_len()).unwrap();
    let d = 3.0;
    assert_eq!(h.hadamards(), 2.0 * d * (l1 + k));
    assert_eq!(h.hadamard_wide, 2.0 * d * (1.0 + k));
    // Σ s_j (l + 1 + k - s_j) + 2 k (l + 1) with s_j = 2.
    assert_eq!(h.conversions(), 3.0 * 2.0 * (l1 + k - 2.0) + 2.0 * k * l1);
    assert_eq!(h.conversion, 2.0 * (2.0 * 3.0));
    assert_eq!(
        h.conversion_wide,
        2.0 * 6.0 + 2.0 * (2.0 * 3.0) + 2.0 * k * l1
    );
    for (bits, wide) in [(61, true), (50, false)] {
        let cfg = KlssConfig {
            b_prime_bits: bits,
            ..KlssConfig::klss(2)
        };
        let c = model
            .counts(&KeySwitchMethod::Klss(cfg), ctx.q_len())
            .unwrap();
        let (b_terms, other) = if wide {
            (c.hadamard_wide, c.hadamard)
        } else {
            (c.hadamard, c.hadamard_wide)
        };
        assert!(b_terms > 0.0 && other == 0.0, "{bits}-bit B': {c:?}");
    }
}

/// `KeySwitchMethod::parse` reads every spelling the CLI and the Python bindings accept,
/// and refuses the rest with a message listing them.
#[test]
fn key_switch_method_names() {
    use super::{KeySwitchMethod, KlssBound};
    let cases = [
        ("hybrid", KeySwitchMethod::Hybrid),
        ("linear", KeySwitchMethod::Linear(KlssBound::WorstCase)),
        (
            "linear-heuristic",
            KeySwitchMethod::Linear(KlssBound::Heuristic),
        ),
        ("auto", KeySwitchMethod::Auto),
        ("klss:3", KeySwitchMethod::Klss(KlssConfig::klss(3))),
    ];
    for (s, m) in cases {
        assert_eq!(KeySwitchMethod::parse(s).unwrap(), m, "{s}");
    }
    for bad in ["klss:0", "klss:", "klss", "fast", ""] {
        let e = KeySwitchMethod::parse(bad).unwrap_err().to_string();
        assert!(e.contains("use hybrid, klss:R"), "{bad}: {e}");
    }
}

/// Digits by bits (Set I's shape in miniature: a 55-bit prime, 30-bit ones, 45-bit ones,
/// under two 58-bit special primes): the greedy grouping gives digits of 2, 3 and 2
/// primes where the uniform rule with as many digits would give 3, 3 and 1; the switch is
/// correct with full and narrow keys at every level, narrow keys hold exactly the digits
/// in use there, and the noise variance matches `N σ² Σ_j Q_j² / (12 P²)` plus rounding
/// over the actual digits. With `P` above every digit by the margin rounding dominates,
/// so the variance is checked with the same digits on the ring with one special prime,
/// where the digit term (digits of unequal size) dominates.
#[test]
fn hybrid_digits_by_bits_switch_correctly_with_the_analysed_noise() {
    let n = 1 << 12;
    let mut g = PrimeGenerator::new(n).unwrap();
    let q: Vec<u64> = [55u32, 30, 30, 30, 30, 45, 45]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    let p: Vec<u64> = [58u32, 58]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    let ctx = RingContext::new(n, &q, &p).unwrap();
    let log_q: Vec<f64> = q.iter().map(|&x| (x as f64).log2()).collect();
    let log_p: f64 = p.iter().map(|&x| (x as f64).log2()).sum();
    let digits = DigitPartition::by_bits(&log_q, log_p);
    let sizes: Vec<usize> = (0..digits.dnum())
        .map(|j| digits.range(j, 7).len())
        .collect();
    assert_eq!(sizes, [2, 3, 2]);
    assert!(digits.max_digit_bits(&log_q) + digit_margin_bits(3) <= log_p);
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 31);
    let ks = HybridKeySwitcher::with_digits(ctx.clone(), digits.clone());
    assert_eq!((ks.dnum(), ks.alpha()), (3, 3));
    for w in 1..=7 {
        let key = ks.generate_key_at(other.ntt(), &sk, w, &mut rng).unwrap();
        let want = [1, 1, 2, 2, 2, 3, 3][w - 1];
        assert_eq!(
            (key.digits.len(), ks.key_digits(w)),
            (want, want),
            "width {w}"
        );
        assert!(ks.owns(&key) && key.check_shape(&ctx, &digits).is_ok());
        for ql in 1..=w {
            let err = switch_error(&ctx, &ks, &key, &sk, other.ntt(), ql, &mut rng);
            assert!(err < (1u64 << 20) as f64, "width {w} limbs {ql}: {err}");
        }
    }
    // Not a key of the uniform engine with as many digits (its width-3 key has 1 digit).
    let uniform = HybridKeySwitcher::new(ctx.clone(), 3);
    let key = ks.generate_key_at(other.ntt(), &sk, 3, &mut rng).unwrap();
    assert!(!uniform.owns(&key));
    // Noise variance over the whole chain against the analysis, digit by digit.
    let ctx = RingContext::new(n, &q, &p[..1]).unwrap();
    let log_p = (p[0] as f64).log2();
    let (mut rng, sk, other) = rng_and_secrets(&ctx, 32);
    let ks = HybridKeySwitcher::with_digits(ctx.clone(), digits.clone());
    let key = ks.generate_key(other.ntt(), &sk, &mut rng);
    let ql = 7;
    let measured = (0..4)
        .flat_map(|_| switch_residual(&ctx, &ks, &key, &sk, other.ntt(), ql, &mut rng))
        .map(|x| x * x)
        .sum::<f64>()
        / (4 * n) as f64;
    let (sigma, nf) = (crate::rlwe::keys::NOISE_SIGMA, n as f64);
    let digit_term: f64 = (0..digits.dnum())
        .map(|j| {
            let bits: f64 = log_q[digits.range(j, ql)].iter().sum();
            nf * sigma * sigma * 2f64.powf(2.0 * (bits - log_p)) / 12.0
        })
        .sum();
    let rounding = (1.0 + 2.0 * nf / 3.0) / 12.0;
    assert!(digit_term > 20.0 * rounding);
    let predicted = digit_term + rounding;
    let ratio = measured / predicted;
    eprintln!("by-bits key-switch noise: measured {measured:.4e}, predicted {predicted:.4e}");
    assert!((0.93..1.07).contains(&ratio), "ratio {ratio}");
}
