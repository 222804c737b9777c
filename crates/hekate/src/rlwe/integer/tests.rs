//! End-to-end tests of the integer core: every operation decrypts to the plaintext result
//! mod `t`, across engines, `t` and depth (small rings; the full sizes are `#[ignore]`d
//! tests in `tests/bfv_bgv.rs`).

use super::*;
use crate::params::security::SecurityLevel;
use crate::rlwe::keyswitch::{KeySwitchMethod, KlssBound, KlssConfig};
use crate::rlwe::{PublicKey, SecretKey};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

pub(super) struct Fixture {
    pub ctx: Arc<IntegerContext>,
    pub sk: SecretKey,
    pub pk: PublicKey,
    pub eval: Evaluator,
    pub rng: ChaCha20Rng,
}

pub(super) fn fixture(params: IntegerParameters, steps: &[i64], seed: u64) -> Fixture {
    let ctx = params.security(SecurityLevel::NotChecked).build().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let pk = ctx.generate_public_key_with(&sk, &mut rng);
    let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
    let gk = ctx.generate_galois_keys_with(&sk, steps, true, &mut rng);
    let eval = Evaluator::new(ctx.clone(), Some(rlk), gk);
    Fixture {
        ctx,
        sk,
        pk,
        eval,
        rng,
    }
}

fn engines() -> Vec<KeySwitchMethod> {
    vec![
        KeySwitchMethod::Hybrid,
        KeySwitchMethod::Klss(KlssConfig::klss(2)),
        KeySwitchMethod::Linear(KlssBound::WorstCase),
    ]
}

fn random_values(rng: &mut ChaCha20Rng, n: usize, t: u64) -> Vec<u64> {
    (0..n).map(|_| rng.gen_range(0..t)).collect()
}

fn pow_mod(x: u64, e: u64, t: u64) -> u64 {
    let m = crate::math::modulus::Modulus::new(t);
    m.pow(x % t, e)
}

/// BGV at N = 2^11, t = 65537: `x^(2^d)` for d = 1..4 with automatic modulus switching,
/// on every slot, three seeds, three engines; the measured budget stays above 1 bit and
/// the estimate is never optimistic by more than 1 bit.
#[test]
fn bgv_squaring_chain_every_engine() {
    let t = 65537;
    for method in engines() {
        for seed in 0..3 {
            let params = IntegerParameters::new(Scheme::Bgv, 11)
                .plaintext_modulus(t)
                .log_q(&[55, 45, 45, 45, 45])
                .log_p(&[56])
                .key_switching(method);
            let mut f = fixture(params, &[], seed);
            let x = random_values(&mut f.rng, f.ctx.n(), t);
            let mut ct = f
                .ctx
                .encrypt_with(&f.ctx.encode(&x).unwrap(), &f.pk, &mut f.rng)
                .unwrap();
            for d in 1..=4u32 {
                ct = f.eval.square(&ct).unwrap();
                assert_eq!(ct.level(), 4 - d as usize, "one switch per product");
                let got = f.ctx.decrypt_decode(&ct, &f.sk).unwrap();
                let want: Vec<u64> = x.iter().map(|&v| pow_mod(v, 1 << d, t)).collect();
                assert_eq!(got, want, "{} seed {seed} depth {d}", method.name());
                let measured = f.ctx.noise_budget(&ct, &f.sk).unwrap();
                let estimated = f.ctx.estimated_noise_budget(&ct);
                assert!(measured > 1.0, "budget {measured} at depth {d}");
                assert!(
                    estimated <= measured + 1.0,
                    "estimate {estimated:.1} optimistic vs measured {measured:.1} at depth {d}"
                );
            }
        }
    }
}

/// A product tree of 8 fresh ciphertexts (depth 3), coefficient-encoded, t = 2.
#[test]
fn bgv_product_tree_t2_coefficients() {
    let params = IntegerParameters::new(Scheme::Bgv, 11)
        .plaintext_modulus(2)
        .log_q(&[50, 30, 30, 30])
        .log_p(&[55]);
    let mut f = fixture(params, &[], 7);
    let n = f.ctx.n();
    // Constant polynomials 0/1: the product is the AND of the constants; plus a
    // non-constant one to check the negacyclic product mod 2.
    let mut cts = Vec::new();
    let mut want = vec![0u64; n];
    want[0] = 1;
    for i in 0..8 {
        let mut m = vec![0u64; n];
        m[0] = 1;
        if i == 0 {
            m[3] = 1; // (1 + X^3)
        }
        let pt = f.ctx.encode_coefficients(&m).unwrap();
        cts.push(
            f.ctx
                .encrypt_symmetric_with(&pt, &f.sk, &mut f.rng)
                .unwrap(),
        );
    }
    want[3] = 1;
    while cts.len() > 1 {
        cts = cts
            .chunks(2)
            .map(|p| f.eval.mul(&p[0], &p[1]).unwrap())
            .collect();
    }
    let got = f
        .ctx
        .decode_coefficients(&f.ctx.decrypt(&cts[0], &f.sk).unwrap())
        .unwrap();
    assert_eq!(got, want);
}

/// Additions across levels and correction factors, plaintext operations and scalars.
#[test]
fn bgv_mixed_levels_factors_and_plaintexts() {
    let t = 65537;
    let params = IntegerParameters::new(Scheme::Bgv, 11)
        .plaintext_modulus(t)
        .log_q(&[55, 45, 45])
        .log_p(&[56])
        .mod_switching(ModSwitching::Manual);
    let mut f = fixture(params, &[], 3);
    let n = f.ctx.n();
    let (x, y, z) = (
        random_values(&mut f.rng, n, t),
        random_values(&mut f.rng, n, t),
        random_values(&mut f.rng, n, t),
    );
    let ex = |v: &[u64]| f.ctx.encode(v).unwrap();
    let cx = f.ctx.encrypt(&ex(&x), &f.pk).unwrap();
    let cy = f.ctx.encrypt(&ex(&y), &f.pk).unwrap();
    let xy = f.eval.mod_switch(&f.eval.mul(&cx, &cy).unwrap()).unwrap();
    assert_ne!(xy.correction_factor(), 1);
    // x y + y (level 1 and 2; different factors) - z (plain) + 3 x (scalar) ; then x·z.
    let mut acc = f.eval.add(&xy, &cy).unwrap();
    acc = f.eval.sub_plain(&acc, &ex(&z)).unwrap();
    acc = f
        .eval
        .add(&acc, &f.eval.mul_scalar(&cx, 3).unwrap())
        .unwrap();
    acc = f.eval.sub(&acc, &f.eval.neg(&cx).unwrap()).unwrap();
    acc = f.eval.add_plain(&acc, &ex(&x)).unwrap();
    let got = f.ctx.decrypt_decode(&acc, &f.sk).unwrap();
    for i in 0..n {
        let want = (x[i] * y[i] % t + y[i] + 2 * t - z[i] + 5 * x[i]) % t;
        assert_eq!(got[i], want, "slot {i}");
    }
    let xz = f.eval.mul_plain(&xy, &ex(&z)).unwrap();
    let got = f.ctx.decrypt_decode(&xz, &f.sk).unwrap();
    for i in 0..n {
        assert_eq!(got[i], x[i] * y[i] % t * z[i] % t);
    }
    // Dropping a level keeps the message.
    let dropped = f.eval.drop_level(&cx, 2).unwrap();
    assert_eq!(f.ctx.decrypt_decode(&dropped, &f.sk).unwrap(), x);
    assert!(f.eval.mod_switch(&dropped).is_err());
}

/// Row rotations, the row swap and hoisted rotations, identical across engines.
#[test]
fn rotations_and_hoisting_identical_across_engines() {
    let t = 65537;
    let steps = [1i64, -3, 5];
    let mut outputs: Vec<Vec<Ciphertext>> = Vec::new();
    for method in engines() {
        let params = IntegerParameters::new(Scheme::Bgv, 11)
            .plaintext_modulus(t)
            .log_q(&[55, 45, 45])
            .log_p(&[56])
            .key_switching(method);
        let mut f = fixture(params, &steps, 11);
        let n = f.ctx.n();
        let half = n / 2;
        let x = random_values(&mut f.rng, n, t);
        let pt = f.ctx.encode(&x).unwrap();
        let ct = f
            .ctx
            .encrypt_symmetric_with(&pt, &f.sk, &mut f.rng)
            .unwrap();
        let hoisted = f.eval.rotate_rows_hoisted(&ct, &steps).unwrap();
        let mut outs = Vec::new();
        for (&k, h) in steps.iter().zip(&hoisted) {
            let r = f.eval.rotate_rows(&ct, k).unwrap();
            assert_eq!(&r, h, "hoisted = plain, {}", method.name());
            let got = f.ctx.decrypt_decode(&r, &f.sk).unwrap();
            for row in 0..2 {
                for j in 0..half {
                    let src = (j as i64 + k).rem_euclid(half as i64) as usize;
                    assert_eq!(got[row * half + j], x[row * half + src]);
                }
            }
            outs.push(r);
        }
        let sw = f.eval.rotate_columns(&ct).unwrap();
        let got = f.ctx.decrypt_decode(&sw, &f.sk).unwrap();
        assert_eq!(&got[..half], &x[half..]);
        assert_eq!(&got[half..], &x[..half]);
        outs.push(sw);
        let sq = f
            .eval
            .relinearize(&f.eval.mul_no_relin(&ct, &ct).unwrap())
            .unwrap();
        outs.push(sq);
        assert!(f.eval.rotate_rows(&ct, 2).is_err(), "no key for 2");
        outputs.push(outs);
    }
    for o in &outputs[1..] {
        assert_eq!(o, &outputs[0], "engines give the same words");
    }
}

/// Batching primes of 30 and 50 bits and t = 65537 at BGV depth 1 and 2, and wrong inputs.
#[test]
fn bgv_larger_plaintext_moduli() {
    for (t, logq) in [
        (1_073_479_681u64, vec![61, 61, 61, 61, 61]), // 30-bit, ≡ 1 mod 2^12
        (1_125_899_906_826_241, vec![61; 8]),         // 50-bit, ≡ 1 mod 2^12
    ] {
        assert!(crate::math::primes::is_prime(t) && (t - 1) % 4096 == 0);
        let params = IntegerParameters::new(Scheme::Bgv, 11)
            .plaintext_modulus(t)
            .log_q(&logq)
            .log_p(&[61, 61]);
        let mut f = fixture(params, &[], 5);
        let n = f.ctx.n();
        let x = random_values(&mut f.rng, n, t);
        let ct = f.ctx.encrypt(&f.ctx.encode(&x).unwrap(), &f.pk).unwrap();
        let sq = f.eval.square(&ct).unwrap();
        let q4 = f.eval.square(&sq).unwrap();
        let got = f.ctx.decrypt_decode(&q4, &f.sk).unwrap();
        let want: Vec<u64> = x.iter().map(|&v| pow_mod(v, 4, t)).collect();
        assert_eq!(got, want, "t = {t}");
        assert!(f.ctx.noise_budget(&q4, &f.sk).unwrap() > 1.0);
    }
}

#[test]
fn refusals() {
    let p = |t: u64| {
        IntegerParameters::new(Scheme::Bgv, 10)
            .plaintext_modulus(t)
            .log_q(&[40, 40])
            .log_p(&[50])
            .security(SecurityLevel::NotChecked)
    };
    assert!(p(0).build().is_err());
    assert!(p(1 << 61).build().is_err());
    let ctx = p(65537).build().unwrap();
    let q0 = ctx.q_primes()[0];
    let e = p(q0 * 3).build().unwrap_err().to_string();
    assert!(e.contains("shares a factor"), "{e}");
    let other = p(12289).build().unwrap();
    let mut f = fixture(p(65537), &[], 1);
    let ct = f
        .ctx
        .encrypt_symmetric(&f.ctx.encode(&[1, 2]).unwrap(), &f.sk)
        .unwrap();
    let pt_other = other.encode(&[1]).unwrap();
    assert!(f.eval.add_plain(&ct, &pt_other).is_err());
    let sk2 = other.generate_secret_key_with(&mut f.rng);
    assert!(other.decrypt(&ct, &sk2).is_err(), "ciphertext of another t");
    let no_keys = Evaluator::new(f.ctx.clone(), None, Default::default());
    assert!(matches!(
        no_keys.mul(&ct, &ct),
        Err(crate::Error::MissingKey(_))
    ));
    assert!(matches!(
        no_keys.rotate_rows(&ct, 1),
        Err(crate::Error::MissingKey(_))
    ));
}

/// BFV at N = 2^11: `x^(2^d)` for d = 1..4 at the top level, both product variants, three
/// engines, three seeds; t = 65537 (slots) and t = 2 (coefficients).
#[test]
fn bfv_squaring_chain_every_engine_and_variant() {
    let t = 65537;
    for method in engines() {
        for variant in [MulVariant::Exact, MulVariant::Hps] {
            for seed in 0..3 {
                let params = IntegerParameters::new(Scheme::Bfv, 11)
                    .plaintext_modulus(t)
                    .log_q(&[60, 60, 60])
                    .log_p(&[61, 61])
                    .key_switching(method)
                    .mul_variant(variant);
                let mut f = fixture(params, &[], 20 + seed);
                let x = random_values(&mut f.rng, f.ctx.n(), t);
                let mut ct = f
                    .ctx
                    .encrypt_with(&f.ctx.encode(&x).unwrap(), &f.pk, &mut f.rng)
                    .unwrap();
                for d in 1..=4u32 {
                    ct = f.eval.square(&ct).unwrap();
                    assert_eq!(ct.level(), 2, "BFV keeps its level");
                    let got = f.ctx.decrypt_decode(&ct, &f.sk).unwrap();
                    let want: Vec<u64> = x.iter().map(|&v| pow_mod(v, 1 << d, t)).collect();
                    assert_eq!(got, want, "{} {variant:?} seed {seed} d {d}", method.name());
                    let measured = f.ctx.noise_budget(&ct, &f.sk).unwrap();
                    let estimated = f.ctx.estimated_noise_budget(&ct);
                    assert!(measured > 1.0 && estimated <= measured + 1.0,
                        "measured {measured:.1} estimated {estimated:.1} at d {d}, {} {variant:?} seed {seed}", method.name());
                }
            }
        }
    }
}

/// BFV products of different ciphertexts (a product tree of 4) for t = 2 (coefficients),
/// a 30-bit and a 50-bit batching prime; mod switching a BFV ciphertext keeps it correct.
#[test]
fn bfv_product_trees_and_large_t() {
    for (t, logq) in [
        (2u64, vec![60, 60]),
        (1_073_479_681, vec![60, 60, 60, 60]),
        (1_125_899_906_826_241, vec![60; 6]),
    ] {
        let params = IntegerParameters::new(Scheme::Bfv, 11)
            .plaintext_modulus(t)
            .log_q(&logq)
            .log_p(&[61, 61, 61]);
        let mut f = fixture(params, &[], 9);
        let n = f.ctx.n();
        let batch = f.ctx.plaintext_modulus().supports_batching();
        let vals: Vec<Vec<u64>> = (0..4).map(|_| random_values(&mut f.rng, n, t)).collect();
        let cts: Vec<Ciphertext> = vals
            .iter()
            .map(|v| {
                let pt = if batch {
                    f.ctx.encode(v).unwrap()
                } else {
                    let mut c = vec![0u64; n];
                    c[0] = v[0];
                    f.ctx.encode_coefficients(&c).unwrap()
                };
                f.ctx
                    .encrypt_symmetric_with(&pt, &f.sk, &mut f.rng)
                    .unwrap()
            })
            .collect();
        let p01 = f.eval.mul(&cts[0], &cts[1]).unwrap();
        let p23 = f.eval.mul(&cts[2], &cts[3]).unwrap();
        let all = f.eval.mul(&p01, &p23).unwrap();
        let pt = f.ctx.decrypt(&all, &f.sk).unwrap();
        let tm = crate::math::modulus::Modulus::new(t);
        if batch {
            let got = f.ctx.decode(&pt).unwrap();
            for i in 0..n {
                let w = vals.iter().fold(1, |a, v| tm.mul(a, v[i]));
                assert_eq!(got[i], w, "t = {t} slot {i}");
            }
        } else {
            let got = f.ctx.decode_coefficients(&pt).unwrap();
            assert_eq!(got[0], vals.iter().fold(1, |a, v| tm.mul(a, v[0])));
            assert!(got[1..].iter().all(|&c| c == 0));
        }
        if f.ctx.max_level() > 0 {
            let sw = f.eval.mod_switch(&all).unwrap();
            assert_eq!(
                f.ctx.decrypt(&sw, &f.sk).unwrap(),
                pt,
                "t = {t} after a switch"
            );
        }
    }
}

/// BFV products are in coefficient form (BGV's in NTT form), and every operation takes
/// either form and mixes them: sums of a product and a fresh ciphertext, plaintext ops,
/// rotations (plain and hoisted: the same words), the row swap, a product of a product
/// with a fresh ciphertext, a modulus switch; all decrypt to the plaintext results on the
/// three engines, whose outputs are the same words.
#[test]
fn bfv_coefficient_form_mixes_with_ntt_form() {
    let t = 65537;
    let steps = [1i64, -2];
    let mut outputs: Vec<Vec<Ciphertext>> = Vec::new();
    for method in engines() {
        let params = IntegerParameters::new(Scheme::Bfv, 11)
            .plaintext_modulus(t)
            .log_q(&[60, 60, 60])
            .log_p(&[61, 61])
            .key_switching(method);
        let mut f = fixture(params, &steps, 13);
        let (n, half) = (f.ctx.n(), f.ctx.n() / 2);
        let tm = crate::math::modulus::Modulus::new(t);
        let x = random_values(&mut f.rng, n, t);
        let y = random_values(&mut f.rng, n, t);
        let (px, py) = (f.ctx.encode(&x).unwrap(), f.ctx.encode(&y).unwrap());
        let cx = f.ctx.encrypt_with(&px, &f.pk, &mut f.rng).unwrap();
        let cy = f
            .ctx
            .encrypt_symmetric_with(&py, &f.sk, &mut f.rng)
            .unwrap();
        assert_eq!(cx.form(), crate::ring::Form::Ntt);
        let xy = f.eval.mul(&cx, &cy).unwrap();
        assert_eq!(xy.form(), crate::ring::Form::Coeff, "BFV products");
        let prod: Vec<u64> = (0..n).map(|i| tm.mul(x[i], y[i])).collect();
        let check = |ct: &Ciphertext, want: &[u64], what: &str| {
            assert_eq!(
                f.ctx.decrypt_decode(ct, &f.sk).unwrap(),
                want,
                "{what}, {}",
                method.name()
            );
        };
        check(&xy, &prod, "x y");
        let sum = f.eval.add(&xy, &cx).unwrap();
        let want: Vec<u64> = (0..n).map(|i| tm.add(prod[i], x[i])).collect();
        check(&sum, &want, "x y + x");
        let diff = f.eval.sub(&cx, &xy).unwrap();
        let want: Vec<u64> = (0..n).map(|i| tm.sub(x[i], prod[i])).collect();
        check(&diff, &want, "x - x y");
        let plus = f.eval.add_plain(&xy, &px).unwrap();
        assert_eq!(plus.form(), crate::ring::Form::Coeff);
        check(
            &plus,
            &(0..n).map(|i| tm.add(prod[i], x[i])).collect::<Vec<_>>(),
            "+ pt",
        );
        let times = f.eval.mul_plain(&xy, &py).unwrap();
        check(
            &times,
            &(0..n).map(|i| tm.mul(prod[i], y[i])).collect::<Vec<_>>(),
            "· pt",
        );
        let cube = f.eval.mul(&xy, &cx).unwrap();
        check(
            &cube,
            &(0..n).map(|i| tm.mul(prod[i], x[i])).collect::<Vec<_>>(),
            "x^2 y",
        );
        let hoisted = f.eval.rotate_rows_hoisted(&xy, &steps).unwrap();
        let mut outs = vec![xy.clone(), cube];
        for (&k, h) in steps.iter().zip(&hoisted) {
            let r = f.eval.rotate_rows(&xy, k).unwrap();
            assert_eq!(r.form(), crate::ring::Form::Coeff);
            assert_eq!(&r, h, "hoisted = plain (coefficient form)");
            let want: Vec<u64> = (0..n)
                .map(|i| {
                    let (row, j) = (i / half, i % half);
                    prod[row * half + (j as i64 + k).rem_euclid(half as i64) as usize]
                })
                .collect();
            check(&r, &want, "rotate");
            outs.push(r);
        }
        let sw = f.eval.rotate_columns(&xy).unwrap();
        let want: Vec<u64> = (0..n).map(|i| prod[(i + half) % n]).collect();
        check(&sw, &want, "swap");
        outs.push(sw);
        let down = f.eval.mod_switch(&xy).unwrap();
        check(&down, &prod, "mod switch");
        assert!(f.ctx.noise_budget(&xy, &f.sk).unwrap() > 1.0);
        outputs.push(outs);
    }
    for o in &outputs[1..] {
        assert_eq!(o, &outputs[0], "engines give the same words");
    }
}

/// Leveled BFV products: a squaring chain of depth 7 over eight 40-bit primes, leveled
/// and plain from the same fresh ciphertext, on every engine. Both decrypt to `x^(2^d)`
/// at every depth, the leveled one stays at the top level, drops primes once the noise
/// allows (none for fresh operands) and loses at most a bit of measured budget; a product
/// of a deep ciphertext with a fresh one (unequal noise) is right too.
#[test]
fn bfv_leveled_products_drop_primes_and_stay_exact() {
    let t = 65537;
    for method in engines() {
        let params = IntegerParameters::new(Scheme::Bfv, 11)
            .plaintext_modulus(t)
            .log_q(&[40; 8])
            .log_p(&[61, 61])
            .key_switching(method);
        let mut f = fixture(params, &[], 31);
        let leveled = f.eval.clone().with_leveled_products(true);
        assert!(leveled.leveled_products() && !f.eval.leveled_products());
        let x = random_values(&mut f.rng, f.ctx.n(), t);
        let fresh = f
            .ctx
            .encrypt_with(&f.ctx.encode(&x).unwrap(), &f.pk, &mut f.rng)
            .unwrap();
        assert_eq!(leveled.leveled_primes(&fresh, &fresh), 0, "fresh: nothing");
        let (mut plain, mut lev) = (fresh.clone(), fresh.clone());
        let mut dropped = Vec::new();
        for d in 1..=7u32 {
            dropped.push(leveled.leveled_primes(&lev, &lev));
            plain = f.eval.square(&plain).unwrap();
            lev = leveled.square(&lev).unwrap();
            assert_eq!(lev.level(), 7, "back to the top level");
            let want: Vec<u64> = x.iter().map(|&v| pow_mod(v, 1 << d, t)).collect();
            for (ct, what) in [(&plain, "plain"), (&lev, "leveled")] {
                assert_eq!(
                    f.ctx.decrypt_decode(ct, &f.sk).unwrap(),
                    want,
                    "{what} d {d} {}",
                    method.name()
                );
            }
            let (bp, bl) = (
                f.ctx.noise_budget(&plain, &f.sk).unwrap(),
                f.ctx.noise_budget(&lev, &f.sk).unwrap(),
            );
            let el = f.ctx.estimated_noise_budget(&lev);
            assert!(
                bl > 1.0 && bl >= bp - 1.0,
                "d {d}: leveled {bl:.1} plain {bp:.1}"
            );
            assert!(
                el <= bl + 1.0,
                "d {d}: estimate {el:.1} over measured {bl:.1}"
            );
        }
        assert!(
            dropped.iter().any(|&k| k > 0) && dropped[0] == 0,
            "primes dropped per depth: {dropped:?}"
        );
        eprintln!("{}: primes dropped per depth {dropped:?}", method.name());
        let mixed = leveled.mul(&lev, &fresh).unwrap();
        let want: Vec<u64> = x.iter().map(|&v| pow_mod(v, (1 << 7) + 1, t)).collect();
        assert_eq!(f.ctx.decrypt_decode(&mixed, &f.sk).unwrap(), want, "x^129");
    }
}

/// The noise rules stay in the log domain: a ciphertext whose tracked `σ` is `2^1500`
/// (beyond `f64`, as deep BFV chains at N = 2^16 reach) adds, multiplies by a plaintext and
/// reports a budget of exactly 0, never NaN or infinity; a fresh one's budget is unchanged
/// by the log-domain sum (`t/2 + z σ` as before).
#[test]
fn noise_rules_do_not_overflow_on_huge_sigma() {
    let params = IntegerParameters::new(Scheme::Bfv, 10)
        .plaintext_modulus(65537)
        .log_q(&[60, 60])
        .log_p(&[61]);
    let mut f = fixture(params, &[], 5);
    let x = random_values(&mut f.rng, f.ctx.n(), 65537);
    let pt = f.ctx.encode(&x).unwrap();
    let fresh = f.ctx.encrypt(&pt, &f.pk).unwrap();
    let fresh_budget = f.ctx.estimated_noise_budget(&fresh);
    let want = f.ctx.log_q_at(fresh.level())
        - 1.0
        - (65537.0 / 2.0 + super::noise::tail_factor(f.ctx.n()) * fresh.noise.exp2()).log2();
    assert!(
        (fresh_budget - want).abs() < 1e-9,
        "{fresh_budget} vs {want}"
    );
    let mut huge = fresh.clone();
    huge.noise = 1500.0;
    assert_eq!(f.ctx.estimated_noise_budget(&huge), 0.0);
    let sum = f.eval.add(&huge, &huge).unwrap();
    assert!((sum.noise - 1500.5).abs() < 1e-9, "{}", sum.noise);
    let prod = f.eval.mul_plain(&huge, &pt).unwrap();
    assert!(
        prod.noise.is_finite() && prod.noise > 1500.0,
        "{}",
        prod.noise
    );
}
