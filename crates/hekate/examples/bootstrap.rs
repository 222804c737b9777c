//! CKKS bootstrapping: a computation deeper than the chain.
//!
//! Iterates the logistic map `x -> 2.8 x (1 - x)` (a degree-2 polynomial, two levels, per step) 30 times on 2048
//! slots, bootstrapping whenever the ciphertext runs out of levels, and compares with the
//! same iteration in `f64`. The ring is a toy (`N = 2^12`, not secure) so that the example
//! runs in seconds; at `N = 2^16` the same code takes minutes and gigabytes of keys (see
//! `hekate bench bootstrap`).
//!
//! ```text
//! cargo run --release -p hekate --example bootstrap
//! ```

use hekate::circuits::polyeval::{evaluate, Polynomial};
use hekate::ckks::bootstrap::{self, BootstrapConfig, Bootstrapper};
use hekate::prelude::*;
use std::io::Write;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (log_n, slots) = (12u32, 1usize << 11);
    let secret = SecretDistribution::Ternary; // dense (uniform ternary) secret
                                              // K for a failure probability of at most 2^-40 per bootstrap (seed 003 Eq. (1)).
    let config = BootstrapConfig::new(1 << log_n, secret, slots, -40.0)?;
    // q_0, then six levels for the application, then the bootstrapping levels.
    let ctx = CkksParameters::new(log_n)
        .log_q(&config.chain(&[60, 40, 40, 40, 40, 40, 40], 42, 55, 58))
        .log_p(&[61, 61, 61, 61])
        .log_scale(40)
        .secret(secret)
        .security(SecurityLevel::NotChecked) // toy size for the example
        .build()?;
    println!(
        "N = 2^{log_n}, {slots} slots, {} levels, K = {}, EvalMod degree {} with {} double \
         angles, failure probability 2^{:.1} per bootstrap",
        ctx.max_level(),
        config.k,
        config.eval_mod.polynomial().degree(),
        config.eval_mod.double_angles(),
        config.failure_log2(&ctx)?
    );

    let sk = ctx.generate_secret_key();
    let start = Instant::now();
    let keys = bootstrap::generate_keys_with(
        &ctx,
        &config,
        &sk,
        &mut rand_chacha::rand_core::OsRng,
        |done, total| {
            eprint!("\rkey generation {done}/{total}");
            std::io::stderr().flush().ok();
        },
    )?;
    eprintln!();
    println!("keys: {:.1} s", start.elapsed().as_secs_f64());
    let boot = Bootstrapper::new(ctx.clone(), config, keys)?;
    let eval = boot.evaluator();
    println!(
        "a bootstrap leaves the ciphertext at level {}",
        boot.output_level()
    );

    let x0: Vec<f64> = (0..slots)
        .map(|i| 0.1 + 0.8 * i as f64 / slots as f64)
        .collect();
    let values: Vec<Complex64> = x0.iter().map(|&x| Complex64::new(x, 0.0)).collect();
    // The application works in the levels below the bootstrapping circuit's.
    let pt = ctx.encode_at(&values, slots, boot.output_level(), ctx.default_scale())?;
    let mut ct = ctx.encrypt_symmetric(&pt, &sk)?;
    let mut plain = x0.clone();
    let (mut bootstraps, mut boot_time) = (0, 0.0);
    let c = |x: f64| Complex64::new(x, 0.0);
    let step_poly = Polynomial::monomial(vec![c(0.0), c(2.8), c(-2.8)])?; // depth 2
    for step in 1..=30 {
        // Bootstrapping needs level 1 or above: refresh before the step that would reach 0.
        if ct.level() < step_poly.depth() + 1 {
            let before = ctx.decrypt_decode(&ct, &sk)?;
            let t = Instant::now();
            ct = boot.bootstrap(&ct)?;
            boot_time += t.elapsed().as_secs_f64();
            bootstraps += 1;
            let after = ctx.decrypt_decode(&ct, &sk)?;
            let added = before
                .iter()
                .zip(&after)
                .map(|(b, a)| (b - a).norm())
                .fold(0.0, f64::max);
            if bootstraps <= 3 {
                println!(
                    "bootstrap {bootstraps}: adds an error of at most 2^{:.1}",
                    added.log2()
                );
            }
        }
        // 2.8 x (1 - x), scale-exact: the output has the input's scale.
        ct = evaluate(eval, &ct, &step_poly, ct.scale())?;
        plain.iter_mut().for_each(|x| *x = 2.8 * *x * (1.0 - *x));
        if step % 5 == 0 {
            let got = ctx.decrypt_decode(&ct, &sk)?;
            let err = got
                .iter()
                .zip(&plain)
                .map(|(g, w)| (g.re - w).abs())
                .fold(0.0, f64::max);
            println!(
                "step {step:2}: level {}, max error 2^{:.1}",
                ct.level(),
                err.log2()
            );
        }
    }
    println!(
        "{bootstraps} bootstraps, {:.2} s each",
        boot_time / f64::from(bootstraps.max(1))
    );
    Ok(())
}
