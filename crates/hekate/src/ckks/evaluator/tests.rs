//! Level-aware evaluation keys at the CKKS level: a key generated for levels `<= l`
//! rotates, conjugates or relinearizes correctly (decrypted) at every level up to `l`,
//! is refused with a clear error above, and has the size of its width.

use super::*;
use crate::ckks::CkksParameters;
use crate::params::SecurityLevel;
use crate::rlwe::keyswitch::{KeySwitchMethod, KlssConfig};
use crate::rlwe::{PublicKey, SecretKey};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// `L = 5` (55 + 5 x 40 bits), two 60-bit special primes, `dnum = 3` (`α = 2`).
fn context(method: KeySwitchMethod) -> Arc<CkksContext> {
    CkksParameters::new(11)
        .log_q(&[55, 40, 40, 40, 40, 40])
        .log_p(&[60, 60])
        .dnum(3)
        .log_scale(40)
        .security(SecurityLevel::NotChecked)
        .key_switching(method)
        .build()
        .unwrap()
}

/// The level the narrow keys are generated for.
const KEY_LEVEL: usize = 2;

fn values(n: usize) -> Vec<Complex64> {
    (0..n)
        .map(|i| Complex64::new((i as f64 * 0.37).sin(), (i as f64 * 0.11).cos() / 2.0))
        .collect()
}

fn max_err(got: &[Complex64], want: &[Complex64]) -> f64 {
    got.iter()
        .zip(want)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max)
}

struct Setup {
    ctx: Arc<CkksContext>,
    sk: SecretKey,
    pk: PublicKey,
    rng: ChaCha20Rng,
}

fn setup(method: KeySwitchMethod, seed: u64) -> Setup {
    let ctx = context(method);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let pk = ctx.generate_public_key_with(&sk, &mut rng);
    Setup { ctx, sk, pk, rng }
}

impl Setup {
    /// An encryption of `v` at `level` and `scale`.
    fn encrypt(&mut self, v: &[Complex64], level: usize, scale: &Scale) -> Ciphertext {
        let pt = self.ctx.encode_at(v, v.len(), level, scale).unwrap();
        self.ctx.encrypt_with(&pt, &self.pk, &mut self.rng).unwrap()
    }
}

/// The message of a level error, or a panic naming what was accepted.
fn level_error<T>(r: Result<T>) -> String {
    match r {
        Err(Error::LevelMismatch(m)) => m,
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a key above its level was accepted"),
    }
}

#[test]
fn narrow_galois_keys_rotate_at_their_levels_and_refuse_higher_ones() {
    let mut s = setup(KeySwitchMethod::Hybrid, 21);
    let ctx = s.ctx.clone();
    let (n, k, l1) = (ctx.n(), ctx.p_primes().len(), ctx.max_level() + 1);
    let gks = ctx
        .generate_galois_keys_at_with(&s.sk, &[1, 3], true, KEY_LEVEL, &mut s.rng)
        .unwrap();
    assert_eq!(gks.len(), 3);
    // ceil(ℓ/α) digits of 2 (ℓ + k) limbs at ℓ = 3 limbs, α = ceil(6 / 3) = 2.
    let alpha = l1.div_ceil(ctx.dnum());
    let w = KEY_LEVEL + 1;
    let narrow = w.div_ceil(alpha) * 2 * (w + k) * n * 8;
    for key in gks.iter() {
        assert_eq!(key.max_level(), Some(KEY_LEVEL));
        assert_eq!(key.key().q_limbs(), w);
        assert_eq!(key.size_bytes(), narrow);
    }
    assert_eq!(gks.size_bytes(), 3 * narrow);
    let full = ctx.generate_galois_key_with(&s.sk, 5, &mut s.rng);
    assert_eq!(full.max_level(), Some(ctx.max_level()));
    assert_eq!(full.size_bytes(), ctx.dnum() * 2 * (l1 + k) * n * 8);
    let ev = Evaluator::new(ctx.clone(), None, gks);
    let v = values(8);
    let scale = ctx.default_scale().clone();
    for level in 0..=ctx.max_level() {
        let ct = s.encrypt(&v, level, &scale);
        if level <= KEY_LEVEL {
            let rot = ev.rotate(&ct, 1).unwrap();
            let want: Vec<Complex64> = (0..8).map(|i| v[(i + 1) % 8]).collect();
            let e = max_err(&ctx.decrypt_decode(&rot, &s.sk).unwrap(), &want);
            assert!(e < 1e-6, "rotation at level {level}: error {e}");
            let conj = ev.conjugate(&ct).unwrap();
            let want: Vec<Complex64> = v.iter().map(|x| x.conj()).collect();
            let e = max_err(&ctx.decrypt_decode(&conj, &s.sk).unwrap(), &want);
            assert!(e < 1e-6, "conjugation at level {level}: error {e}");
            // Hoisted and double-hoisted rotations use the same keys.
            let hoisted = ev.rotate_hoisted(&ct, &[1, 3]).unwrap();
            let want: Vec<Complex64> = (0..8).map(|i| v[(i + 3) % 8]).collect();
            let e = max_err(&ctx.decrypt_decode(&hoisted[1], &s.sk).unwrap(), &want);
            assert!(e < 1e-6, "hoisted rotation at level {level}: error {e}");
            let sum = ev.rotate_sum(&[(&ct, 1), (&ct, 3)]).unwrap();
            let want: Vec<Complex64> = (0..8).map(|i| v[(i + 1) % 8] + v[(i + 3) % 8]).collect();
            let e = max_err(&ctx.decrypt_decode(&sum, &s.sk).unwrap(), &want);
            assert!(e < 1e-6, "rotation sum at level {level}: error {e}");
        } else {
            let g = crate::ring::automorphism::galois_element_for_rotation(1, n);
            let m = level_error(ev.rotate(&ct, 1));
            assert!(
                m.contains(&format!(
                    "the Galois key for element {g} covers levels <= {KEY_LEVEL}; the \
                     ciphertext is at level {level}"
                )),
                "{m}"
            );
            level_error(ev.conjugate(&ct));
            level_error(ev.rotate_hoisted(&ct, &[1, 3]));
            level_error(ev.rotate_sum(&[(&ct, 1), (&ct, 3)]));
        }
    }
    // No key above the top level.
    assert!(matches!(
        ctx.generate_galois_key_at_with(&s.sk, 5, l1, &mut s.rng),
        Err(Error::LevelMismatch(_))
    ));
}

#[test]
fn narrow_relinearization_keys_multiply_at_their_levels_and_refuse_higher_ones() {
    let mut s = setup(KeySwitchMethod::Hybrid, 22);
    let ctx = s.ctx.clone();
    let (n, k) = (ctx.n(), ctx.p_primes().len());
    let rlk = ctx
        .generate_relinearization_key_at_with(&s.sk, KEY_LEVEL, &mut s.rng)
        .unwrap();
    assert_eq!(rlk.max_level(), Some(KEY_LEVEL));
    let w = KEY_LEVEL + 1;
    let alpha = (ctx.max_level() + 1).div_ceil(ctx.dnum());
    assert_eq!(rlk.0.size_bytes(), w.div_ceil(alpha) * 2 * (w + k) * n * 8);
    let ev = Evaluator::new(ctx.clone(), Some(rlk), GaloisKeys::new());
    let v = values(8);
    let want: Vec<Complex64> = v.iter().map(|x| x * x).collect();
    // 2^20: the product's 2^40 fits in q_0 (55 bits), so level 0 decrypts too.
    let scale = Scale::from_bits(20);
    for level in 0..=ctx.max_level() {
        let ct = s.encrypt(&v, level, &scale);
        if level <= KEY_LEVEL {
            let sq = ev.mul(&ct, &ct).unwrap();
            let e = max_err(&ctx.decrypt_decode(&sq, &s.sk).unwrap(), &want);
            assert!(e < 1e-3, "product at level {level}: error {e}");
        } else {
            let m = level_error(ev.mul(&ct, &ct));
            assert!(
                m.contains(&format!(
                    "the relinearization key covers levels <= {KEY_LEVEL}; the ciphertext \
                     is at level {level}"
                )),
                "{m}"
            );
            let deg2 = ev.mul_no_relin(&ct, &ct).unwrap();
            level_error(ev.relinearize(&deg2));
        }
    }
}

/// KLSS has no narrow keys: the `_at_with` functions give the full key, which serves every
/// level.
#[test]
fn klss_contexts_generate_full_keys_at_any_level() {
    let mut s = setup(KeySwitchMethod::Klss(KlssConfig::klss(2)), 23);
    let ctx = s.ctx.clone();
    let rlk = ctx
        .generate_relinearization_key_at_with(&s.sk, 1, &mut s.rng)
        .unwrap();
    let gk = ctx
        .generate_galois_keys_at_with(&s.sk, &[1], false, 1, &mut s.rng)
        .unwrap();
    assert_eq!(rlk.max_level(), Some(ctx.max_level()));
    let ev = Evaluator::new(ctx.clone(), Some(rlk), gk);
    let v = values(8);
    let ct = s.encrypt(&v, ctx.max_level(), &ctx.default_scale().clone());
    let rot = ev.rotate(&ev.mul(&ct, &ct).unwrap(), 1).unwrap();
    let want: Vec<Complex64> = (0..8).map(|i| v[(i + 1) % 8] * v[(i + 1) % 8]).collect();
    let e = max_err(&ctx.decrypt_decode(&rot, &s.sk).unwrap(), &want);
    assert!(e < 1e-6, "error {e}");
}

/// The three key-switching engines, with seeds `seed..seed + 3`.
fn every_engine(seed: u64) -> [(KeySwitchMethod, u64); 3] {
    [
        (KeySwitchMethod::Hybrid, seed),
        (KeySwitchMethod::Klss(KlssConfig::klss(2)), seed + 1),
        (
            KeySwitchMethod::Linear(crate::rlwe::keyswitch::KlssBound::WorstCase),
            seed + 2,
        ),
    ]
}

/// A setup on `method` and an evaluator holding its relinearization key.
fn with_relinearization(
    method: KeySwitchMethod,
    seed: u64,
) -> (Setup, Arc<CkksContext>, Evaluator) {
    let mut s = setup(method, seed);
    let ctx = s.ctx.clone();
    let rlk = ctx.generate_relinearization_key_with(&s.sk, &mut s.rng);
    let ev = Evaluator::new(ctx.clone(), Some(rlk), GaloisKeys::new());
    (s, ctx, ev)
}

/// `mul_relin_rescale` gives the words of `mul`, `mul_integer_assign`, `add_assign` and
/// `rescale_assign` in sequence, on every engine (hybrid fused, KLSS and linear through the
/// default), for operands at two levels, several `k`, and addends at the product's scale
/// (fused), at a higher level (brought down) and at another scale (the steps one by one);
/// and it decrypts to `k a b + w`.
#[test]
fn fused_multiply_rescale_is_word_for_word_the_steps() {
    for (method, seed) in every_engine(41) {
        let (mut s, ctx, ev) = with_relinearization(method, seed);
        let (v, scale) = (values(8), ctx.default_scale().clone());
        let top = ctx.max_level();
        let a = s.encrypt(&v, top, &scale);
        let vb: Vec<Complex64> = v.iter().map(|x| x * 0.5).collect();
        let b = s.encrypt(&vb, top - 1, &scale);
        let prod_scale = scale.mul(&scale);
        let w_same = s.encrypt(&v, top, &prod_scale);
        let w_other = s.encrypt(&v, top - 1, &scale);
        for k in [1i64, 2, -3] {
            for w in [None, Some(&w_same), Some(&w_other)] {
                let mut want = ev.mul(&a, &b).unwrap();
                ev.mul_integer_assign(&mut want, k).unwrap();
                if let Some(w) = w {
                    ev.add_assign(&mut want, w).unwrap();
                }
                ev.rescale_assign(&mut want).unwrap();
                let got = ev.mul_relin_rescale(&a, &b, k, w).unwrap();
                assert_eq!(got.scale, want.scale, "{method:?}, k {k}");
                assert_eq!(got.level(), top - 2);
                assert!(
                    got.parts == want.parts,
                    "{method:?}, k {k}, addend {}",
                    w.is_some()
                );
            }
        }
        // Decryption: 2 a b - w at the product's scale.
        let mut minus_w = w_same.clone();
        ev.neg_assign(&mut minus_w).unwrap();
        let got = ev.mul_relin_rescale(&a, &a, 2, Some(&minus_w)).unwrap();
        let want: Vec<Complex64> = v.iter().map(|x| 2.0 * x * x - x).collect();
        let e = max_err(&ctx.decrypt_decode(&got, &s.sk).unwrap(), &want);
        assert!(e < 1e-6, "{method:?}: error {e}");
        // Level 0 is refused as by `rescale`.
        let z = s.encrypt(&v, 0, &Scale::from_bits(20));
        assert!(matches!(
            ev.mul_relin_rescale(&z, &z, 1, None),
            Err(Error::OutOfLevels(m)) if m.contains("needs more levels")
        ));
    }
}

/// `mul_sum_relin_rescale` (lazy relinearization) gives the words of `mul_no_relin` per
/// pair, `add_assign` of the degree-2 products, one `relinearize_assign`, `add_assign` of
/// the addend and `rescale_assign`, on every engine, with one key switch for the whole
/// sum; it decrypts to `Σ a_j b_j + w`; one pair is `mul_relin_rescale` with `k = 1`;
/// products at different levels or scales, and an empty sum, are refused.
#[test]
fn lazy_sum_of_products_is_word_for_word_the_steps_with_one_key_switch() {
    for (method, seed) in every_engine(51) {
        let (mut s, ctx, ev) = with_relinearization(method, seed);
        let (v, scale) = (values(8), ctx.default_scale().clone());
        let top = ctx.max_level();
        let vs: Vec<Vec<Complex64>> = (1..=3)
            .map(|j| v.iter().map(|x| x * (0.3 * j as f64) - 0.1).collect())
            .collect();
        // Operands at two levels: every product lands at top - 1.
        let a: Vec<_> = vs.iter().map(|x| s.encrypt(x, top, &scale)).collect();
        let b: Vec<_> = vs
            .iter()
            .rev()
            .map(|x| s.encrypt(x, top - 1, &scale))
            .collect();
        let pairs: Vec<_> = a.iter().zip(&b).collect();
        let w = s.encrypt(&v, top, &scale.mul(&scale));
        for addend in [None, Some(&w)] {
            let mut want = ev.mul_no_relin(pairs[0].0, pairs[0].1).unwrap();
            for (x, y) in &pairs[1..] {
                ev.add_assign(&mut want, &ev.mul_no_relin(x, y).unwrap())
                    .unwrap();
            }
            ev.relinearize_assign(&mut want).unwrap();
            if let Some(w) = addend {
                ev.add_assign(&mut want, w).unwrap();
            }
            ev.rescale_assign(&mut want).unwrap();
            let before = ev.rlwe().key_switch_counts().decompositions;
            let got = ev.mul_sum_relin_rescale(&pairs, addend).unwrap();
            assert_eq!(ev.rlwe().key_switch_counts().decompositions - before, 1);
            assert_eq!(got.scale, want.scale, "{method:?}");
            assert_eq!(got.level(), top - 2);
            assert!(
                got.parts == want.parts,
                "{method:?}, addend {}",
                addend.is_some()
            );
            let expect: Vec<Complex64> = (0..v.len())
                .map(|i| {
                    (0..3).map(|j| vs[j][i] * vs[2 - j][i]).sum::<Complex64>()
                        + if addend.is_some() {
                            v[i]
                        } else {
                            Complex64::new(0.0, 0.0)
                        }
                })
                .collect();
            let e = max_err(&ctx.decrypt_decode(&got, &s.sk).unwrap(), &expect);
            assert!(e < 1e-6, "{method:?}: error {e}");
        }
        let one = ev.mul_sum_relin_rescale(&pairs[..1], Some(&w)).unwrap();
        let fused = ev
            .mul_relin_rescale(pairs[0].0, pairs[0].1, 1, Some(&w))
            .unwrap();
        assert!(one.parts == fused.parts);
        let c = s.encrypt(&v, top - 2, &scale);
        assert!(matches!(
            ev.mul_sum_relin_rescale(&[pairs[0], (&c, &c)], None),
            Err(Error::ParameterMismatch(m)) if m.contains("one level and scale")
        ));
        assert!(matches!(
            ev.mul_sum_relin_rescale(&[], None),
            Err(Error::InvalidParameters(_))
        ));
    }
}

/// A diagonal over `Q_l ∪ P` is the `Q_l` encoding's exact extension, word for word, at
/// every level; off the hybrid engine there is none.
#[test]
fn extended_encoding_is_the_exact_extension() {
    let ctx = context(KeySwitchMethod::Hybrid);
    let z = values(ctx.max_slots());
    for level in 0..=ctx.max_level() {
        let scale = ctx.constant_scale(level);
        let wide = ctx
            .encode_extended_at(&z, ctx.max_slots(), level, &scale)
            .unwrap()
            .unwrap();
        let narrow = ctx.encode_at(&z, ctx.max_slots(), level, &scale).unwrap();
        assert_eq!(
            wide.poly,
            narrow.poly.extend_to_p(ctx.ring()),
            "level {level}"
        );
    }
    let klss = context(KeySwitchMethod::Klss(KlssConfig::klss(2)));
    let scale = klss.default_scale().clone();
    assert!(klss
        .encode_extended_at(&z, klss.max_slots(), 1, &scale)
        .unwrap()
        .is_none());
}

/// The CPU's `constant_like` (zero parts made directly) is the trait's steps word for
/// word: `like` dropped to the level, multiplied by zero, given the scale, the constant
/// added; at the top level, below it, with and without a constant; above `like`'s level
/// an error.
#[test]
fn constant_like_is_the_steps_word_for_word() {
    use crate::circuits::CircuitEvaluator;
    let mut s = setup(KeySwitchMethod::Hybrid, 61);
    let ctx = s.ctx.clone();
    let ev = Evaluator::new(ctx.clone(), None, GaloisKeys::default());
    let top = ctx.max_level();
    let like = s.encrypt(&values(8), top, ctx.default_scale());
    let scale = ctx.default_scale().mul(ctx.default_scale());
    for level in [top, top - 2, 1] {
        for c in [None, Some(Complex64::new(-0.75, 0.25))] {
            let mut want = ev.drop_level(&like, top - level).unwrap();
            ev.mul_integer_assign(&mut want, 0).unwrap();
            want.scale = scale.clone();
            if let Some(c) = c {
                ev.add_const_assign(&mut want, c).unwrap();
            }
            let got = ev.constant_like(&like, level, &scale, c).unwrap();
            assert!(got.parts == want.parts, "level {level}, {c:?}");
            assert_eq!(
                (&got.scale, got.slots, got.level()),
                (&want.scale, want.slots, level)
            );
            assert!(got.seed.is_none());
        }
    }
    let low = ev.drop_level(&like, 2).unwrap();
    assert!(matches!(
        ev.constant_like(&low, top, &scale, None),
        Err(Error::OutOfLevels(_))
    ));
}

/// `mul_const_scaled_at` is `drop_level` then `mul_const_scaled_assign` word for word: real
/// constants (the fused pass per limb) and complex ones, at every level from the input's
/// down; a level above the input's is an error.
#[test]
fn mul_const_scaled_at_is_the_steps_word_for_word() {
    let mut s = setup(KeySwitchMethod::Hybrid, 62);
    let ctx = s.ctx.clone();
    let ev = Evaluator::new(ctx.clone(), None, GaloisKeys::default());
    let top = ctx.max_level();
    let ct = s.encrypt(&values(8), top, ctx.default_scale());
    let scale = ctx.default_scale().clone();
    for level in [top, top - 1, 1, 0] {
        for c in [Complex64::new(-0.75, 0.0), Complex64::new(0.5, -0.25)] {
            let mut want = ev.drop_level(&ct, top - level).unwrap();
            ev.mul_const_scaled_assign(&mut want, c, &scale).unwrap();
            let got = ev.mul_const_scaled_at(&ct, level, c, &scale).unwrap();
            assert!(got.parts == want.parts, "level {level}, {c:?}");
            assert_eq!(
                (&got.scale, got.slots, got.level()),
                (&want.scale, want.slots, level)
            );
            assert!(got.seed.is_none());
        }
    }
    let low = ev.drop_level(&ct, 2).unwrap();
    assert!(matches!(
        ev.mul_const_scaled_at(&low, top, Complex64::new(1.0, 0.0), &scale),
        Err(Error::OutOfLevels(_))
    ));
}
