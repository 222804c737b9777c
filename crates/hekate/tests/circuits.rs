//! Circuits end to end: encrypt, transform or evaluate, decrypt, against the same
//! computation in f64 / complex arithmetic. Linear transforms by BSGS agree with the plain
//! matrix product and with the naive one-rotation-per-diagonal evaluation; polynomial
//! evaluation lands on exactly the target scale, `⌈log2(d+1)⌉` levels down.
//!
//! Precision bounds are stated per test; they come from the noise model of
//! `tests/common` (fresh noise and key switching at scale 2^40 give slot errors near 2^-30
//! here) with a margin of several bits, and were checked against the measured errors
//! (printed with `--nocapture`).

mod common;

use common::*;
use hekate::circuits::lintrans::{
    evaluate_naive, BsgsPlan, BsgsTies, Diagonals, GiantSteps, LinearTransform,
};
use hekate::circuits::polyeval::{self, Basis, Polynomial, PowerBasis};
use hekate::ckks::{Ciphertext, CkksContext, CkksParameters, Evaluator, Scale};
use hekate::params::SecurityLevel;
use hekate::rlwe::SecretKey;
use hekate::Error;
use num_complex::Complex64;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

struct Setup {
    ctx: Arc<CkksContext>,
    sk: SecretKey,
    eval: Evaluator,
    rng: ChaCha20Rng,
}

/// N = 2^log_n, a 60-bit q_0 and `levels` 40-bit primes (scale 2^40), P = 2 × 60 bits.
fn setup(log_n: u32, levels: usize, rotations: &[i64], seed: u64) -> Setup {
    let mut log_q = vec![60];
    log_q.extend(std::iter::repeat_n(40, levels));
    let ctx = CkksParameters::new(log_n)
        .log_q(&log_q)
        .log_p(&[60, 60])
        .log_scale(40)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
    let gks = ctx.generate_galois_keys_with(&sk, rotations, false, &mut rng);
    let eval = Evaluator::new(ctx.clone(), Some(rlk), gks);
    Setup { ctx, sk, eval, rng }
}

impl Setup {
    fn encrypt(&mut self, z: &[Complex64], slots: usize) -> Ciphertext {
        let pt = self
            .ctx
            .encode_at(z, slots, self.ctx.max_level(), self.ctx.default_scale())
            .unwrap();
        self.ctx
            .encrypt_symmetric_with(&pt, &self.sk, &mut self.rng)
            .unwrap()
    }
    fn decrypt(&self, ct: &Ciphertext) -> Vec<Complex64> {
        self.ctx.decrypt_decode(ct, &self.sk).unwrap()
    }
}

fn max_err(got: &[Complex64], want: &[Complex64]) -> f64 {
    error_stats(got, want).1
}

fn random_diagonals(slots: usize, indices: &[i64], seed: u64) -> Diagonals<Complex64> {
    let mut d = Diagonals::new(slots).unwrap();
    for (t, &k) in indices.iter().enumerate() {
        d.insert(k, random_values(slots, seed + t as u64)).unwrap();
    }
    d
}

#[test]
fn dense_16x16_matrix_by_bsgs_is_the_matrix_product() {
    let n = 16;
    let rows: Vec<Vec<Complex64>> = (0..n).map(|i| random_values(n, 100 + i as u64)).collect();
    let diagonals = Diagonals::from_dense(&rows).unwrap();
    let plan = diagonals.bsgs(None).unwrap();
    // 16 diagonals: n1 = 4 gives 3 baby + 3 giant rotations, the fewest key switches.
    assert_eq!((plan.n1(), plan.key_switches()), (4, 6));
    assert_eq!(plan.rotations(), vec![1, 2, 3, 4, 8, 12]);
    // Keys for exactly the plan's rotations.
    let mut s = setup(12, 2, &plan.rotations(), 1);
    let level = s.ctx.max_level();
    let lt = LinearTransform::new(&s.eval, &diagonals, plan.clone(), level, None).unwrap();
    let z = random_values(n, 7);
    let ct = s.encrypt(&z, n);
    let before = s.eval.rlwe().key_switch_counts();
    let out = lt.evaluate(&s.eval, &ct).unwrap();
    // Key-switch steps (seed 003 Alg. 6, the hybrid engine): one decomposition for the 3
    // hoisted baby steps, kept over Q_l ∪ P (no ModDown of their own); one decomposition
    // per giant step (3), each after a half ModDown of its input's c_1, and a single
    // ModDown pair for their sum.
    assert!(lt.is_extended());
    let after = s.eval.rlwe().key_switch_counts();
    assert_eq!(
        (
            after.decompositions - before.decompositions,
            after.half_mod_downs - before.half_mod_downs,
            after.mod_downs - before.mod_downs
        ),
        (1 + 3, 3, 1)
    );
    // One plain rotation per diagonal instead: 15 of each.
    let naive_keys: Vec<i64> = (1..16).collect();
    let t = setup(12, 2, &naive_keys, 1);
    let ct_t = t
        .ctx
        .encrypt_symmetric(
            &t.ctx
                .encode_at(&z, n, level, t.ctx.default_scale())
                .unwrap(),
            &t.sk,
        )
        .unwrap();
    let b = t.eval.rlwe().key_switch_counts();
    evaluate_naive(&t.eval, &diagonals, &ct_t, &t.ctx.constant_scale(level)).unwrap();
    let a = t.eval.rlwe().key_switch_counts();
    assert_eq!(
        (
            a.decompositions - b.decompositions,
            a.mod_downs - b.mod_downs
        ),
        (15, 15)
    );
    assert_eq!(out.level(), level);
    let out = s.eval.rescale(&out).unwrap();
    // The default diagonal scale q_l makes the transform scale-preserving, exactly.
    assert_eq!(out.scale(), ct.scale());
    let want = diagonals.apply(&z).unwrap();
    let direct: Vec<Complex64> = rows
        .iter()
        .map(|r| r.iter().zip(&z).map(|(a, b)| a * b).sum())
        .collect();
    assert!(max_err(&want, &direct) < 1e-12);
    let err = max_err(&s.decrypt(&out), &want);
    println!("16x16 BSGS: max error 2^{:.1}", err.log2());
    assert!(err < 2f64.powi(-20), "error 2^{:.1}", err.log2());
    // A key outside the plan is not needed; a plan needing a missing key says so.
    let other = diagonals.bsgs(Some(16)).unwrap();
    let lt16 = LinearTransform::new(&s.eval, &diagonals, other, level, None).unwrap();
    assert!(matches!(
        lt16.evaluate(&s.eval, &ct),
        Err(Error::MissingKey(_))
    ));
}

#[test]
fn bsgs_equals_naive_and_every_n1_agrees_at_full_slots() {
    let slots = 1 << 11; // N = 2^12, full packing
    let indices = [0i64, 1, 2, 3, 5, 8, 100, 1000, -1, -64];
    let diagonals = random_diagonals(slots, &indices, 300);
    let all: Vec<i64> = (1..slots as i64).collect();
    // Keys for every rotation, so any plan (and the naive evaluation) runs.
    let needed: std::collections::BTreeSet<i64> = [1usize, 2, 4, 8, 16, 32, 64]
        .iter()
        .flat_map(|&n1| diagonals.bsgs(Some(n1)).unwrap().rotations())
        .chain(diagonals.indices().filter(|&k| k != 0).map(|k| k as i64))
        .chain(diagonals.bsgs(None).unwrap().rotations())
        .collect();
    assert!(needed.iter().all(|k| all.contains(k)));
    let rotations: Vec<i64> = needed.into_iter().collect();
    let mut s = setup(12, 2, &rotations, 2);
    let z = random_values(slots, 9);
    let ct = s.encrypt(&z, slots);
    let want = diagonals.apply(&z).unwrap();
    let level = s.ctx.max_level() - 1; // diagonals one level below the input
    let scale = s.ctx.constant_scale(level);
    let naive = evaluate_naive(
        &s.eval,
        &diagonals,
        &s.eval.drop_level(&ct, 1).unwrap(),
        &scale,
    )
    .unwrap();
    let naive = s.decrypt(&s.eval.rescale(&naive).unwrap());
    let e_naive = max_err(&naive, &want);
    for n1 in [None, Some(1), Some(2), Some(8), Some(64)] {
        let plan = diagonals.bsgs(n1).unwrap();
        let lt = LinearTransform::new(&s.eval, &diagonals, plan.clone(), level, None).unwrap();
        let out = s.eval.rescale(&lt.evaluate(&s.eval, &ct).unwrap()).unwrap();
        assert_eq!((out.level(), out.scale()), (level - 1, ct.scale()));
        let got = s.decrypt(&out);
        let (e, d) = (max_err(&got, &want), max_err(&got, &naive));
        println!(
            "n1 = {:>2} ({} key switches): error 2^{:.1}, naive 2^{:.1}, |bsgs - naive| 2^{:.1}",
            plan.n1(),
            plan.key_switches(),
            e.log2(),
            e_naive.log2(),
            d.log2()
        );
        // 10 diagonals of unit-disk values: |Mz| <= 10; noise near 2^-30.
        assert!(e < 2f64.powi(-22) && e_naive < 2f64.powi(-22));
        assert!(d < 2f64.powi(-22));
    }
    // The automatic plan needs fewer key switches than one rotation per diagonal.
    let auto = diagonals.bsgs(None).unwrap();
    assert!(auto.key_switches() < indices.len() - 1, "{auto:?}");
    assert_eq!(
        auto.galois_elements(s.ctx.n()).len(),
        auto.rotations().len()
    );
}

/// Evaluates `diagonals` with `plan` on a fresh setup holding keys for exactly
/// `plan.rotations()` (same seed, so the same secret key for every plan); returns the
/// decrypted output and the (decompositions, (pair ModDowns, half ModDowns)) the
/// evaluation took.
fn evaluate_with_only_its_keys(
    log_n: u32,
    diagonals: &Diagonals<Complex64>,
    plan: &BsgsPlan,
    z: &[Complex64],
) -> (Vec<Complex64>, (u64, (u64, u64))) {
    let slots = diagonals.slots();
    let mut s = setup(log_n, 2, &plan.rotations(), 11);
    let mut held = s.eval.keys().galois_keys().elements();
    held.sort_unstable();
    assert_eq!(held, plan.galois_elements(s.ctx.n()));
    let level = s.ctx.max_level();
    let lt = LinearTransform::new(&s.eval, diagonals, plan.clone(), level, None).unwrap();
    let ct = s.encrypt(z, slots);
    let b = s.eval.rlwe().key_switch_counts();
    let out = lt.evaluate(&s.eval, &ct).unwrap();
    let a = s.eval.rlwe().key_switch_counts();
    let out = s.eval.rescale(&out).unwrap();
    assert_eq!(out.scale(), ct.scale());
    (
        s.decrypt(&out),
        (
            a.decompositions - b.decompositions,
            (
                a.mod_downs - b.mod_downs,
                a.half_mod_downs - b.half_mod_downs,
            ),
        ),
    )
}

#[test]
fn horner_giant_steps_agree_with_double_hoisting_using_only_their_keys() {
    // (log N, slots, diagonal indices, n1): a dense map (every diagonal; giant steps
    // 0, 32, ..., 992), a band (consecutive giant steps), sparse non-contiguous giant
    // steps with i_0 = 0, and with i_0 != 0 (negative indices wrap).
    let dense: Vec<i64> = (0..1024).collect();
    let band: Vec<i64> = (-40..40).collect();
    let cases: [(u32, usize, &[i64], Option<usize>); 4] = [
        (11, 1024, &dense, None),
        (12, 2048, &band, Some(16)),
        (12, 2048, &[0, 1, 2, 3, 5, 8, 100, 1000, -1, -64], Some(8)),
        (11, 1024, &[9, 10, 33, 64, 200, 201, -5, -300], Some(8)),
    ];
    for (t, &(log_n, slots, indices, n1)) in cases.iter().enumerate() {
        let diagonals = random_diagonals(slots, indices, 500 + 100 * t as u64);
        let z = random_values(slots, 40 + t as u64);
        let want = diagonals.apply(&z).unwrap();
        let size = want.iter().map(|w| w.norm()).fold(0.0, f64::max);
        let distinct = diagonals.bsgs(n1).unwrap();
        let horner = distinct.clone().with_giant_steps(GiantSteps::Horner);
        let giants = distinct.giant_steps();
        let i0 = giants[0];
        // Horner's keys: the non-zero baby steps, the gaps, and i_0 if non-zero.
        let mut keys: std::collections::BTreeSet<i64> = distinct
            .baby_steps()
            .into_iter()
            .filter(|&j| j != 0)
            .map(|j| j as i64)
            .collect();
        keys.extend(giants.windows(2).map(|w| (w[1] - w[0]) as i64));
        keys.extend(Some(i0 as i64).filter(|&i| i != 0));
        assert_eq!(horner.rotations(), keys.into_iter().collect::<Vec<_>>());
        assert!(horner.rotations().len() <= distinct.rotations().len());
        let (d_out, d_counts) = evaluate_with_only_its_keys(log_n, &diagonals, &distinct, &z);
        let (h_out, h_counts) = evaluate_with_only_its_keys(log_n, &diagonals, &horner, &z);
        let (e_d, e_h, diff) = (
            max_err(&d_out, &want),
            max_err(&h_out, &want),
            max_err(&h_out, &d_out),
        );
        println!(
            "case {t} (N = 2^{log_n}, {} diagonals, n1 = {}, i_0 = {i0}): keys {} -> {}, \
             counts {d_counts:?} -> {h_counts:?}, |Mz| {size:.1}, error 2^{:.1} / 2^{:.1}, \
             |horner - distinct| 2^{:.1}",
            diagonals.len(),
            distinct.n1(),
            distinct.rotations().len(),
            horner.rotations().len(),
            e_d.log2(),
            e_h.log2(),
            diff.log2()
        );
        // Fresh and key-switching noise near 2^-30 at scale 2^40, summed over up to 1024
        // diagonals of unit-disk values.
        let bound = 2f64.powi(-20) * size.max(1.0);
        assert!(e_d < bound && e_h < bound && diff < bound);
        // The counter. With baby rotations both forms run by Alg. 6 over Q_l ∪ P (the
        // hybrid engine): the same decompositions, one pair ModDown and a u_1 half per
        // giant rotation (single-hoisted baby steps would take a pair per baby rotation);
        // without baby rotations, double hoisting's one pair for the giant steps, and
        // Horner a half per giant rotation but the last.
        let nz_giants = giants.iter().filter(|&&i| i != 0).count() as u64;
        let as_counted = |p: &BsgsPlan| {
            let (pairs, halves) = if p.extended_inner_loop() {
                p.extended_mod_downs()
            } else {
                p.mod_downs()
            };
            (p.decompositions() as u64, (pairs as u64, halves as u64))
        };
        assert_eq!(d_counts, as_counted(&distinct));
        assert_eq!(h_counts, as_counted(&horner));
        if horner.extended_inner_loop() {
            assert_eq!(h_counts, (d_counts.0, (1, nz_giants)));
            assert_eq!(d_counts, h_counts);
        } else {
            assert_eq!(d_counts.1, ((nz_giants > 0) as u64, 0));
            assert_eq!(
                h_counts,
                (d_counts.0, (d_counts.1 .0, nz_giants.saturating_sub(1)))
            );
        }
    }
}

#[test]
fn a_chain_carrying_its_outer_rotations_is_the_product_with_fewer_keys() {
    // Two bands like the factors of a DFT (strides 16 and 1 on 1024 slots): the first
    // leaves its outer rotation o to the second, which evaluates M_1 ∘ rot_o; the second
    // (the last) rotates. Only the union of the two carried plans' keys is generated.
    let slots = 1024;
    let band = |w: i64, s: i64| -> Vec<i64> { (-(w - 1)..w).map(|t| t * s).collect() };
    let m0 = random_diagonals(slots, &band(8, 16), 900);
    let m1 = random_diagonals(slots, &band(8, 1), 901);
    let choose = |d: &Diagonals<Complex64>| {
        BsgsPlan::choose(d.indices(), slots, GiantSteps::Horner, BsgsTies::FewerKeys).unwrap()
    };
    let p0 = choose(&m0).carrying_outer_rotation();
    let o = p0.outer_rotation() as i64;
    assert_ne!(o, 0, "the band wraps around: its chain starts below 0");
    let p1 = choose(&m1).after_rotation(o);
    let m1_moved = m1.clone().after_rotation(o);
    let mut keys: Vec<i64> = p0.rotations();
    keys.extend(p1.rotations());
    keys.sort_unstable();
    keys.dedup();
    // Without carrying, each band needs a key for the jump across its gap as well.
    let (q0, q1) = (choose(&m0), choose(&m1));
    let mut plain: Vec<i64> = q0.rotations();
    plain.extend(q1.rotations());
    plain.sort_unstable();
    plain.dedup();
    assert!(keys.len() < plain.len(), "{keys:?} vs {plain:?}");
    let mut s = setup(11, 2, &keys, 13);
    let z = random_values(slots, 77);
    let want = m1.apply(&m0.apply(&z).unwrap()).unwrap();
    let size = want.iter().map(|w| w.norm()).fold(0.0, f64::max);
    let top = s.ctx.max_level();
    let lt0 = LinearTransform::new(&s.eval, &m0, p0, top, None).unwrap();
    let lt1 = LinearTransform::new(&s.eval, &m1_moved, p1, top - 1, None).unwrap();
    let ct = s.encrypt(&z, slots);
    let y = s
        .eval
        .rescale(&lt0.evaluate(&s.eval, &ct).unwrap())
        .unwrap();
    let out = s.eval.rescale(&lt1.evaluate(&s.eval, &y).unwrap()).unwrap();
    assert_eq!(out.scale(), ct.scale());
    let err = max_err(&s.decrypt(&out), &want);
    println!(
        "carried chain: o = {o}, keys {} (plain {}), |M1 M0 z| {size:.1}, error 2^{:.1}",
        keys.len(),
        plain.len(),
        err.log2()
    );
    assert!(err < 2f64.powi(-20) * size.max(1.0));
    // The first output alone is M_0 z rotated by -o: slot i + o holds (M_0 z)_i.
    let y = s.decrypt(&y);
    let m0z = m0.apply(&z).unwrap();
    let back: Vec<Complex64> = (0..slots)
        .map(|i| y[(i as i64 + o).rem_euclid(slots as i64) as usize])
        .collect();
    assert!(max_err(&back, &m0z) < 2f64.powi(-20) * size.max(1.0));
}

#[test]
fn horner_without_a_gap_key_and_distinct_without_a_giant_key_say_which_key() {
    // Giant steps 8, 32, 64: Horner needs 24, 32 and 8; double hoisting 8, 32 and 64.
    let slots = 1024;
    let diagonals = random_diagonals(slots, &[9, 10, 33, 64], 900);
    let distinct = diagonals.bsgs(Some(8)).unwrap();
    let horner = distinct.clone().with_giant_steps(GiantSteps::Horner);
    assert_eq!(distinct.rotations(), vec![1, 2, 8, 32, 64]);
    assert_eq!(horner.rotations(), vec![1, 2, 8, 24, 32]);
    for (keys, plan) in [(&horner, &distinct), (&distinct, &horner)] {
        let mut s = setup(11, 2, &keys.rotations(), 12);
        let level = s.ctx.max_level();
        let lt = LinearTransform::new(&s.eval, &diagonals, plan.clone(), level, None).unwrap();
        let ct = s.encrypt(&random_values(slots, 1), slots);
        assert!(matches!(
            lt.evaluate(&s.eval, &ct),
            Err(Error::MissingKey(m)) if m.contains("rotation by")
        ));
    }
}

#[test]
fn transform_errors_say_what_to_do() {
    let diagonals = random_diagonals(8, &[0, 1], 1);
    let mut s = setup(11, 2, &[1], 3);
    let plan = diagonals.bsgs(None).unwrap();
    let lt = LinearTransform::new(&s.eval, &diagonals, plan, 2, None).unwrap();
    let wrong_slots = s.encrypt(&random_values(16, 1), 16);
    assert!(matches!(
        lt.evaluate(&s.eval, &wrong_slots),
        Err(Error::ParameterMismatch(_))
    ));
    let fresh = s.encrypt(&random_values(8, 1), 8);
    let low = s.eval.drop_level(&fresh, 1).unwrap();
    assert!(matches!(
        lt.evaluate(&s.eval, &low),
        Err(Error::LevelMismatch(_))
    ));
    let other = random_diagonals(8, &[0, 2], 1).bsgs(None).unwrap();
    assert!(LinearTransform::new(&s.eval, &diagonals, other, 2, None).is_err());
    assert!(BsgsPlan::new([], 8, None).is_err());
    assert!(BsgsPlan::new([9], 8, None).is_err());
    assert!(BsgsPlan::new([1], 8, Some(0)).is_err());
}

#[test]
fn mul_plain_add_assign_equals_mul_plain_then_add_word_for_word() {
    let mut s = setup(11, 2, &[], 4);
    let (a, b) = (
        s.encrypt(&random_values(1024, 1), 1024),
        s.encrypt(&random_values(1024, 2), 1024),
    );
    let pt = s
        .ctx
        .encode_at(&random_values(1024, 3), 1024, 1, s.ctx.default_scale())
        .unwrap();
    let mut want = s.eval.mul_plain(&a, &pt).unwrap();
    s.eval
        .add_assign(&mut want, &s.eval.mul_plain(&b, &pt).unwrap())
        .unwrap();
    let mut got = s.eval.mul_plain(&a, &pt).unwrap();
    s.eval.mul_plain_add_assign(&mut got, &b, &pt).unwrap();
    assert!(got == want);
    // The accumulator must already carry the product's scale.
    let mut wrong = a.clone();
    assert!(matches!(
        s.eval.mul_plain_add_assign(&mut wrong, &b, &pt),
        Err(Error::ScaleMismatch(_))
    ));
}

/// Real inputs spread over `[a, b]` (plus a small imaginary part when `complex`).
fn inputs(slots: usize, a: f64, b: f64) -> Vec<Complex64> {
    (0..slots)
        .map(|i| Complex64::new(a + (b - a) * (i as f64 + 0.5) / slots as f64, 0.0))
        .collect()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Evaluates `p` on `x`, checks level and scale, and returns (error against `p` in the
/// clear, the decrypted values).
fn run_poly(
    s: &mut Setup,
    x: &[Complex64],
    p: &Polynomial,
    target: &Scale,
) -> (f64, Vec<Complex64>) {
    let ct = s.encrypt(x, x.len());
    let before = s.eval.rlwe().key_switch_counts().decompositions;
    let out = polyeval::evaluate(&s.eval, &ct, p, target).unwrap();
    // One key switch per power of the basis and per chain of giant steps.
    assert_eq!(
        s.eval.rlwe().key_switch_counts().decompositions - before,
        polyeval::cost(p).relinearizations as u64,
        "degree {}",
        p.degree()
    );
    assert_eq!(out.level(), ct.level() - p.depth(), "degree {}", p.degree());
    assert_eq!(
        out.scale(),
        target,
        "the output scale is the target, exactly"
    );
    let got = s.decrypt(&out);
    let want: Vec<Complex64> = x.iter().map(|&v| p.evaluate(v)).collect();
    (max_err(&got, &want), got)
}

#[test]
fn chebyshev_interpolants_of_degree_7_15_31_on_minus_one_one_and_minus_eight_eight() {
    let mut s = setup(12, 6, &[], 5);
    let slots = 2048;
    let scale = s.ctx.default_scale().clone();
    for (a, b, f, name) in [
        (
            -1.0,
            1.0,
            (|x: f64| (3.0 * x).sin() / 2.0) as fn(f64) -> f64,
            "sin(3x)/2",
        ),
        (-8.0, 8.0, sigmoid as fn(f64) -> f64, "sigmoid"),
    ] {
        let x = inputs(slots, a, b);
        for d in [7usize, 15, 31] {
            let p = Polynomial::interpolate(f, a, b, d).unwrap();
            let (err, got) = run_poly(&mut s, &x, &p, &scale);
            let approx = x
                .iter()
                .zip(&got)
                .map(|(v, g)| (g.re - f(v.re)).abs())
                .fold(0.0, f64::max);
            let c = polyeval::cost(&p);
            println!(
                "{name} on [{a}, {b}], d = {d}: depth {}, {} products, {} key switches; |enc - p| 2^{:.1}, |enc - f| 2^{:.1}",
                c.depth,
                c.products,
                c.relinearizations,
                err.log2(),
                approx.log2()
            );
            // Homomorphic error against the polynomial in the clear.
            assert!(err < 2f64.powi(-24), "{name} d = {d}: 2^{:.1}", err.log2());
        }
    }
    // The sigmoid interpolant of degree 31 on [-8, 8] is within 2^-15 of the sigmoid.
    let p = Polynomial::interpolate(sigmoid, -8.0, 8.0, 31).unwrap();
    let x = inputs(slots, -8.0, 8.0);
    let (_, got) = run_poly(&mut s, &x, &p, &scale);
    let approx = x
        .iter()
        .zip(&got)
        .map(|(v, g)| (g.re - sigmoid(v.re)).abs())
        .fold(0.0, f64::max);
    assert!(approx < 2f64.powi(-15), "2^{:.1}", approx.log2());
}

#[test]
fn depth_is_ceil_log2_d_plus_1_and_the_scale_is_the_target_for_every_degree_tried() {
    let mut s = setup(11, 7, &[], 6);
    let slots = 1024;
    // Complex inputs in the disk of radius 0.9 for the power basis; real inputs in [-1, 1]
    // for the Chebyshev basis (off the real segment T_i grows like 2.2^i).
    let disk: Vec<Complex64> = random_values(slots, 11).iter().map(|z| z * 0.9).collect();
    let segment = inputs(slots, -1.0, 1.0);
    // A target scale unlike the input's (an exact rational, not a power of two).
    let target = Scale::from_integer((1u64 << 40) - 12345);
    for d in [
        0usize, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 47, 63, 64, 65, 100, 127,
    ] {
        let coeffs: Vec<Complex64> = (0..=d)
            .map(|i| Complex64::new(1.0 / (1.0 + i as f64), 0.5 / (2.0 + i as f64)))
            .collect();
        for basis in [Basis::Monomial, Basis::Chebyshev { a: -1.0, b: 1.0 }] {
            let p = match basis {
                Basis::Monomial => Polynomial::monomial(coeffs.clone()).unwrap(),
                Basis::Chebyshev { a, b } => Polynomial::chebyshev(coeffs.clone(), a, b).unwrap(),
            };
            assert_eq!(
                p.depth(),
                if d == 0 {
                    0
                } else {
                    ((d + 1) as f64).log2().ceil() as usize
                }
            );
            let x = if basis == Basis::Monomial {
                &disk
            } else {
                &segment
            };
            let (err, _) = run_poly(&mut s, x, &p, &target);
            // |c_i| <= 1.2 and |B_i(x)| <= 1: |p(x)| <= 1.2 (d + 1).
            assert!(
                err < 2f64.powi(-20),
                "{basis:?} d = {d}: 2^{:.1}",
                err.log2()
            );
        }
    }
}

#[test]
fn several_polynomials_share_one_power_basis() {
    let mut s = setup(11, 6, &[], 7);
    let slots = 1024;
    let x = inputs(slots, -4.0, 4.0);
    let ct = s.encrypt(&x, slots);
    let basis = Basis::Chebyshev { a: -4.0, b: 4.0 };
    let p1 = Polynomial::interpolate(sigmoid, -4.0, 4.0, 15).unwrap();
    let p2 = Polynomial::interpolate(|v| v.tanh(), -4.0, 4.0, 31).unwrap();
    let p3 = Polynomial::interpolate(|v| (v / 4.0).powi(2), -4.0, 4.0, 2).unwrap();
    let mut pb = PowerBasis::new(&s.eval, &ct, basis).unwrap();
    let outs = polyeval::evaluate_many(&s.eval, &mut pb, &[&p1, &p2, &p3], ct.scale()).unwrap();
    for (p, out) in [&p1, &p2, &p3].iter().zip(&outs) {
        assert_eq!(
            (out.level(), out.scale()),
            (ct.level() - p.depth(), ct.scale())
        );
        let want: Vec<Complex64> = x.iter().map(|&v| p.evaluate(v)).collect();
        let err = max_err(&s.decrypt(out), &want);
        assert!(err < 2f64.powi(-24), "2^{:.1}", err.log2());
    }
    // The basis is kept: evaluating p1 again computes no new power.
    let before = (1..=32).filter(|&i| pb.get(i).is_some()).count();
    polyeval::evaluate_many(&s.eval, &mut pb, &[&p1], ct.scale()).unwrap();
    assert_eq!((1..=32).filter(|&i| pb.get(i).is_some()).count(), before);
    // A polynomial in another basis is refused.
    let mono = Polynomial::monomial(vec![Complex64::new(1.0, 0.0); 3]).unwrap();
    assert!(matches!(
        polyeval::evaluate_many(&s.eval, &mut pb, &[&mono], ct.scale()),
        Err(Error::ParameterMismatch(_))
    ));
}

#[test]
fn too_deep_a_polynomial_is_refused() {
    let mut s = setup(11, 3, &[], 8);
    let ct = s.encrypt(&inputs(8, -1.0, 1.0), 8);
    let p = Polynomial::interpolate(|v| v.exp(), -1.0, 1.0, 8).unwrap(); // depth 4 > 3
    assert!(matches!(
        polyeval::evaluate(&s.eval, &ct, &p, ct.scale()),
        Err(Error::OutOfLevels(_))
    ));
    let p = Polynomial::interpolate(|v| v.exp(), -1.0, 1.0, 7).unwrap(); // depth 3: fits
    assert_eq!(
        polyeval::evaluate(&s.eval, &ct, &p, ct.scale())
            .unwrap()
            .level(),
        0
    );
}
