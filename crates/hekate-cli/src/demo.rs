//! `hekate demo`: a short walk-through of CKKS that doubles as a smoke test.
//!
//! It builds 128-bit secure parameters, generates keys, encrypts two vectors, evaluates
//! `p(x, y) = x·y + 0.5·x² − y + 1` and the difference `p[i+1] − p[i−1]` (two rotations),
//! decrypts, and compares against the same computation in `f64`. The exit code is non-zero
//! if the precision falls below [`MIN_PRECISION_BITS`].

use crate::bench::time_once;
use crate::progress::Bar;
use crate::rng::{precision_bits, SplitMix64};
use crate::Outcome;
use hekate::ckks::{Ciphertext, CkksContext, CkksParameters, Evaluator};
use hekate::params::security;
use hekate::params::SecurityLevel;
use num_complex::Complex64;
use std::error::Error;
use std::time::{Duration, Instant};

/// The demo fails (exit code 2) below this many bits of precision.
pub const MIN_PRECISION_BITS: f64 = 15.0;

/// log2 of the ring degree.
const LOG_N: u32 = 14;
/// The chain: a 60-bit base prime and three 45-bit rescaling primes (three levels).
const LOG_Q: [u32; 4] = [60, 45, 45, 45];
/// log2 of the encoding scale.
const LOG_SCALE: u32 = 45;
/// Slots shown in the expected-vs-obtained table.
const SHOWN: usize = 4;

/// Milliseconds, for the timings column.
fn ms(d: Duration) -> String {
    format!("{:>9.2} ms", d.as_secs_f64() * 1e3)
}

/// Level and log2(scale) of a ciphertext, e.g. `level 2, scale 2^45.0`.
fn state(ct: &Ciphertext) -> String {
    format!("level {}, scale 2^{:.2}", ct.level(), ct.scale().log2())
}

/// Prints one evaluation step with its time and the resulting level and scale.
fn step(what: &str, t: Duration, ct: &Ciphertext) {
    println!("  {} {what:<50} -> {}", ms(t), state(ct));
}

/// Runs the demo.
pub fn run() -> Result<Outcome, Box<dyn Error>> {
    let total = Instant::now();
    println!("hekate demo: CKKS, approximate arithmetic on encrypted vectors of reals");
    println!();

    // 1. Parameters.
    println!("1. Parameters");
    let (ctx, t) = time_once(|| {
        CkksParameters::new(LOG_N)
            .log_q(&LOG_Q)
            .log_scale(LOG_SCALE)
            .build() // default: 128-bit security check, dnum = 3, 50-bit special primes
    });
    let ctx = ctx?;
    print_parameters(&ctx);
    println!(
        "  {} to build (primes, NTT tables, FFT, key switcher)",
        ms(t)
    );
    println!();

    // 2. Keys.
    println!("2. Keys");
    let (sk, t) = time_once(|| ctx.generate_secret_key());
    println!("  {} secret key (dense ternary)", ms(t));
    let (pk, t) = time_once(|| ctx.generate_public_key(&sk));
    println!("  {} public key", ms(t));
    let (rlk, t) = time_once(|| ctx.generate_relinearization_key(&sk));
    let rlk_mib = rlk.0.size_bytes() as f64 / (1 << 20) as f64;
    println!("  {} relinearization key ({rlk_mib:.1} MiB)", ms(t));
    let bar = Bar::new(0, "keys");
    let (gks, t) = time_once(|| {
        ctx.generate_galois_keys_with_progress(
            &sk,
            &[1, -1],
            false,
            &mut hekate::math::sample::os_rng(),
            &bar,
        )
    });
    drop(bar);
    let gk_mib = gks.size_bytes() as f64 / (1 << 20) as f64;
    println!(
        "  {} Galois keys for rotations by +1 and -1 ({gk_mib:.1} MiB)",
        ms(t)
    );
    let eval = Evaluator::new(ctx.clone(), Some(rlk), gks);
    println!();

    // 3. Inputs.
    let slots = ctx.max_slots();
    println!("3. Encode and encrypt x, y: {slots} real slots each, uniform in [-1, 1), fixed seed");
    let mut rng = SplitMix64::new(2024);
    let x = rng.reals(slots);
    let y = rng.reals(slots);
    let (pts, t) = time_once(|| -> Result<_, hekate::Error> {
        Ok((ctx.encode_real(&x)?, ctx.encode_real(&y)?))
    });
    let (pt_x, pt_y) = pts?;
    println!("  {} encode x and y", ms(t));
    let (cts, t) = time_once(|| -> Result<_, hekate::Error> {
        Ok((ctx.encrypt(&pt_x, &pk)?, ctx.encrypt(&pt_y, &pk)?))
    });
    let (cx, cy) = cts?;
    println!(
        "  {} encrypt x and y with the public key -> {}, {:.2} MiB each",
        ms(t),
        state(&cx),
        cx.size_bytes() as f64 / (1 << 20) as f64
    );
    println!();

    // 4. Evaluation.
    println!("4. Evaluate p(x, y) = x·y + 0.5·x² − y + 1, then d[i] = p[i+1] − p[i−1]");
    let eval_start = Instant::now();
    let (xy, t) = time_once(|| eval.mul(&cx, &cy).and_then(|c| eval.rescale(&c)));
    let xy = xy?;
    step("x·y: multiply, relinearize, rescale", t, &xy);
    let (xx, t) = time_once(|| eval.square(&cx).and_then(|c| eval.rescale(&c)));
    let xx = xx?;
    step("x²: square, relinearize, rescale", t, &xx);
    let (hxx, t) = time_once(|| {
        eval.mul_const(&xx, Complex64::new(0.5, 0.0))
            .and_then(|c| eval.rescale(&c))
    });
    let hxx = hxx?;
    step("0.5·x²: multiply by a constant, rescale", t, &hxx);
    // hekate tracks scales exactly, so terms are added only when their scales agree. x·y and
    // 0.5·x² carry Δ²/q_3 (the constant was encoded at the scale of the prime it is rescaled
    // by); y carries Δ. Multiplying y by an encoded 1 at scale Δ and rescaling gives it Δ²/q_3.
    let (y_al, t) = time_once(|| -> Result<_, hekate::Error> {
        let one = ctx.encode_at(
            &vec![Complex64::new(1.0, 0.0); slots],
            slots,
            ctx.max_level(),
            ctx.default_scale(),
        )?;
        eval.rescale(&eval.mul_plain(&cy, &one)?)
    });
    let y_al = y_al?;
    step("y·1: align y's scale to Δ²/q_3 (plain mult)", t, &y_al);
    let (p, t) = time_once(|| {
        eval.add(&xy, &hxx)
            .and_then(|c| eval.sub(&c, &y_al))
            .and_then(|c| eval.add_const(&c, Complex64::new(1.0, 0.0)))
    });
    let p = p?;
    step("p = x·y + 0.5·x² − y + 1: add, sub, add const", t, &p);
    let (rots, t) = time_once(|| eval.rotate_hoisted(&p, &[1, -1]));
    let rots = rots?;
    step(
        "rotate p by +1 and −1 (hoisted: one decomposition)",
        t,
        &rots[0],
    );
    let (d, t) = time_once(|| eval.sub(&rots[0], &rots[1]));
    let d = d?;
    step("d = rot(p, 1) − rot(p, −1)", t, &d);
    println!("  {} evaluation in all", ms(eval_start.elapsed()));
    println!();

    // 5. Decryption and check.
    println!("5. Decrypt, decode and compare with the same computation in f64");
    let (outs, t) = time_once(|| -> Result<_, hekate::Error> {
        Ok((ctx.decrypt_decode(&p, &sk)?, ctx.decrypt_decode(&d, &sk)?))
    });
    let (got_p, got_d) = outs?;
    println!("  {} decrypt and decode p and d", ms(t));
    let want_p: Vec<Complex64> = x
        .iter()
        .zip(&y)
        .map(|(&a, &b)| Complex64::new(a * b + 0.5 * a * a - b + 1.0, 0.0))
        .collect();
    let want_d: Vec<Complex64> = (0..slots)
        .map(|i| want_p[(i + 1) % slots] - want_p[(i + slots - 1) % slots])
        .collect();
    println!();
    println!(
        "  {:>4} {:>9} {:>9} | {:>13} {:>13} | {:>13} {:>13}",
        "slot", "x", "y", "p expected", "p obtained", "d expected", "d obtained"
    );
    for i in 0..SHOWN.min(slots) {
        println!(
            "  {i:>4} {:>9.5} {:>9.5} | {:>13.9} {:>13.9} | {:>13.9} {:>13.9}",
            x[i], y[i], want_p[i].re, got_p[i].re, want_d[i].re, got_d[i].re
        );
    }
    println!();
    let prec_p = precision_bits(&got_p, &want_p);
    let prec_d = precision_bits(&got_d, &want_d);
    println!("  precision over all {slots} slots (−log2 max |error|): p {prec_p:.1} bits, d {prec_d:.1} bits");
    println!("  total time {:.2} s", total.elapsed().as_secs_f64());
    let worst = prec_p.min(prec_d);
    if worst < MIN_PRECISION_BITS {
        return Ok(Outcome::CheckFailed(format!(
            "precision {worst:.1} bits is below the {MIN_PRECISION_BITS} bits expected"
        )));
    }
    println!("  OK (at least {MIN_PRECISION_BITS} bits)");
    println!();
    crate::demo_fhew::run()
}

/// Prints the parameter set.
fn print_parameters(ctx: &CkksContext) {
    let n = ctx.n();
    let bound = security::max_log_qp(n, SecurityLevel::Bits128)
        .map(|b| format!(" (128-bit bound for this N: {b})"))
        .unwrap_or_default();
    let bits = |ps: &[u64]| {
        ps.iter()
            .map(|&p| format!("{:.1}", (p as f64).log2()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("  N = 2^{LOG_N} = {n}, {} slots", ctx.max_slots());
    println!(
        "  chain q_0..q_{}: {} levels, primes of [{}] bits",
        ctx.max_level(),
        ctx.max_level(),
        bits(&ctx.q_primes())
    );
    println!(
        "  key switching: hybrid, dnum = {}, special primes of [{}] bits",
        ctx.dnum(),
        bits(&ctx.p_primes())
    );
    println!("  log2(QP) = {:.1}{bound}", ctx.log_qp());
    println!(
        "  security: {:?} (checked when built); scale Δ = 2^{:.0}",
        ctx.security(),
        ctx.default_scale().log2()
    );
}
