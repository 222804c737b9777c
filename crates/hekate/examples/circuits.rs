//! Circuits on CKKS: a matrix-vector product by baby-step giant-step, then a sigmoid by a
//! Chebyshev interpolant, the output landing on exactly the input's scale.
//!
//! ```text
//! cargo run --release -p hekate --example circuits
//! ```

use hekate::circuits::lintrans::{Diagonals, LinearTransform};
use hekate::circuits::polyeval::{self, Polynomial};
use hekate::prelude::*;
use std::time::Instant;

fn main() -> hekate::Result<()> {
    // N = 2^14, scale 2^40: one level for the matrix, one for the change of variable to
    // [-1, 1] and ⌈log2 32⌉ = 5 for a degree-31 polynomial. One prime per key-switching
    // digit keeps P to one 60-bit prime, so log2(QP) = 390 fits the 128-bit bound (438).
    let ctx = CkksParameters::new(14)
        .log_q(&[50, 40, 40, 40, 40, 40, 40, 40])
        .log_scale(40)
        .dnum(8)
        .build()?;
    let sk = ctx.generate_secret_key();
    let pk = ctx.generate_public_key(&sk);

    // A 64 x 64 matrix acting on 64 slots (sparse packing): a weighted moving average
    // plus a dense rank-one part, as its diagonals.
    let n = 64;
    let m: Vec<Vec<Complex64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let band = match (j + n - i) % n {
                        0 => 2.0,
                        1 | 63 => -1.0,
                        _ => 0.0,
                    };
                    Complex64::new(band + ((i * j) % 7) as f64 / 64.0, 0.0)
                })
                .collect()
        })
        .collect();
    let diagonals = Diagonals::from_dense(&m)?;
    let plan = diagonals.bsgs(None)?;
    println!(
        "{} diagonals: n1 = {}, {} giant steps, {} key switches (naive: {}); keys for rotations {:?}",
        diagonals.len(),
        plan.n1(),
        plan.giant_steps().len(),
        plan.key_switches(),
        diagonals.len() - 1,
        plan.rotations()
    );
    // Generate exactly the rotation keys the plan lists.
    let eval = CkksEvaluator::new(
        ctx.clone(),
        Some(ctx.generate_relinearization_key(&sk)),
        ctx.generate_galois_keys(&sk, &plan.rotations(), false),
    );
    let top = ctx.max_level();
    let lt = LinearTransform::new(&eval, &diagonals, plan, top, None)?;

    let z: Vec<Complex64> = (0..n)
        .map(|i| Complex64::new((i as f64 * 0.37).sin(), 0.0))
        .collect();
    let ct = ctx.encrypt(&ctx.encode_at(&z, n, top, ctx.default_scale())?, &pk)?;
    let t = Instant::now();
    let y = eval.rescale(&lt.evaluate(&eval, &ct)?)?;
    let t_lt = t.elapsed();
    let want_y = diagonals.apply(&z)?;
    let err = max_error(&ctx.decrypt_decode(&y, &sk)?, &want_y);
    println!(
        "M z: {t_lt:.2?}, level {} -> {}, scale preserved: {}, max error 2^{:.1}, baby steps \
         over Q_l ∪ P (seed 003 Alg. 6): {}",
        ct.level(),
        y.level(),
        y.scale() == ct.scale(),
        err.log2(),
        lt.is_extended()
    );

    // sigmoid(M z) with M z in [-8, 8]: the degree-31 Chebyshev interpolant.
    let bound = want_y.iter().map(|v| v.re.abs()).fold(0.0, f64::max);
    assert!(bound < 8.0);
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let p = Polynomial::interpolate(sigmoid, -8.0, 8.0, 31)?;
    let cost = polyeval::cost(&p);
    let t = Instant::now();
    let s = polyeval::evaluate(&eval, &y, &p, y.scale())?;
    let t_p = t.elapsed();
    let got = ctx.decrypt_decode(&s, &sk)?;
    let want_p: Vec<Complex64> = want_y.iter().map(|&v| p.evaluate(v)).collect();
    let want_f: Vec<Complex64> = want_y
        .iter()
        .map(|v| Complex64::new(sigmoid(v.re), 0.0))
        .collect();
    println!(
        "sigmoid, degree 31 on [-8, 8]: {t_p:.2?}, {} products and {} key switches (baby \
         steps {}), level {} -> {} (depth {}), output scale == input scale: {}",
        cost.products,
        cost.relinearizations,
        cost.baby_steps,
        y.level(),
        s.level(),
        p.depth(),
        s.scale() == y.scale()
    );
    println!(
        "  max error against the polynomial 2^{:.1}, against the sigmoid 2^{:.1}",
        max_error(&got, &want_p).log2(),
        max_error(&got, &want_f).log2()
    );
    Ok(())
}

fn max_error(got: &[Complex64], want: &[Complex64]) -> f64 {
    got.iter()
        .zip(want)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max)
}
