//! Seed 004 Table 1, counted: the transforms of an MLWE-CKKS product (tensor and
//! relinearization, no rescale) are exactly `MlweContext::relin_cost`'s, for ModHE and
//! DPad-HE at the top level and below; the paper's ModHE formula exceeds them by the two
//! deviations stated in `hekate::mlwe` (`cost.rs`): `l + 1` per decomposed input and
//! `l + 1` per ModDown column.
//!
//! One test in its own file: the transform counter is process-wide, and each integration
//! test file is its own process.

use hekate::math::transform_count;
use hekate::mlwe::{Evaluator, MlweParameters, RelinMethod};
use hekate::params::SecurityLevel;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

#[test]
fn relinearization_transforms_match_the_model() {
    let r = 3usize;
    let ctx = MlweParameters::new(9, r)
        .log_q(&[60, 40, 40, 40, 40])
        .log_p(&[60])
        .log_scale(40)
        .dpad(r + 1, &[60, 55, 55], None)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let z: Vec<f64> = (0..ctx.max_slots())
        .map(|i| (i as f64 / 300.0).sin())
        .collect();
    let ct = ctx
        .encrypt_symmetric_with(&ctx.encode_real(&z).unwrap(), &sk, &mut rng)
        .unwrap();
    for method in [RelinMethod::ModHe, RelinMethod::DPad] {
        let rlk = ctx
            .generate_relinearization_key_with(&sk, method, &mut rng)
            .unwrap();
        let eval = Evaluator::new(ctx.clone(), Some(rlk));
        for level in [4usize, 2] {
            let x = eval.drop_level(&ct, 4 - level).unwrap();
            let before = transform_count();
            let _ = eval.mul(&x, &x).unwrap();
            let used = (transform_count() - before).total();
            assert_eq!(
                used,
                ctx.relin_cost(method, level).transforms,
                "{method:?} at level {level}"
            );
            if method == RelinMethod::ModHe {
                let paper = ctx.paper_relin_cost(method, level);
                let (r, l1) = (r as u64, level as u64 + 1);
                assert_eq!(paper.transforms - used, (r * (r + 1) / 2 + r + 1) * l1);
            }
        }
    }
}
