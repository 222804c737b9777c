//! `hekate bench bfv` and `hekate bench bgv`: the operations of each scheme on chains sized
//! by `hekate::params::integer::for_depth` (128-bit, `t`, depth), or on a fixed `--log-n`:
//! encode, encrypt, tensor, relinearize, mult + relin, modulus switch (BGV), rotate, hoisted
//! rotations, decrypt + decode, a squaring chain `x^(2^D)` checked slot by slot, the noise
//! budget (measured and estimated) fresh, after one product and at depth `D`, and key sizes.
//! `--json FILE` appends one JSON line per parameter set (for `scripts/peers/bfv_bgv.py`).

use super::{fmt_mib, fmt_ms, header, init_threads, time_once, try_measure, Table};
use crate::progress::{self, Bar};
use crate::rng::SplitMix64;
use crate::{say, Outcome};
use clap::Args;
use hekate::params::integer::for_depth;
use hekate::params::SecurityLevel;
use hekate::rlwe::integer::{Evaluator, MulVariant, Scheme};
use hekate::rlwe::keyswitch::KeySwitchMethod;
use std::error::Error;
use std::io::Write;

/// Rotations per hoisted call.
const HOISTED: usize = 8;

/// Options of `hekate bench bfv` / `bench bgv`.
#[derive(Debug, Args)]
pub struct IntegerArgs {
    /// Plaintext modulus t (a batching prime ≡ 1 mod 2N for the slot operations)
    #[arg(long, default_value_t = 65537)]
    t: u64,
    /// Multiplicative depth the chain is sized for (and the length of the x^(2^D) chain)
    #[arg(long, default_value_t = 10)]
    depth: usize,
    /// Ring degrees to force (log2, comma separated); the chain is the one `for_depth`
    /// picks at 128 bits, grown to that N [default: the smallest N that is 128-bit secure]
    #[arg(long, value_delimiter = ',', value_name = "LOG_N,...")]
    log_n: Option<Vec<u32>>,
    /// Timed repetitions per operation after one warm-up (the median is shown)
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Key-switching methods, comma separated: hybrid, klss:R̃, linear, linear-heuristic,
    /// auto
    #[arg(long, value_delimiter = ',', value_name = "M,...", value_parser = KeySwitchMethod::parse)]
    key_switching: Option<Vec<KeySwitchMethod>>,
    /// BFV product variants, comma separated: exact, hps
    #[arg(long, value_delimiter = ',', value_name = "V,...", value_parser = parse_variant)]
    variant: Option<Vec<MulVariant>>,
    /// Threads of the global rayon pool
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Append one JSON line per parameter set to this file
    #[arg(long, value_name = "FILE")]
    json: Option<String>,
    /// A fast smoke run: depth 3, N from for_depth, 2 reps
    #[arg(long)]
    quick: bool,
}

fn parse_variant(s: &str) -> Result<MulVariant, String> {
    match s {
        "exact" => Ok(MulVariant::Exact),
        "hps" => Ok(MulVariant::Hps),
        _ => Err(format!(
            "unknown BFV product variant {s:?}: use exact or hps"
        )),
    }
}

/// Runs `hekate bench bfv` (`scheme = Bfv`) or `bench bgv`.
pub fn run(scheme: Scheme, args: IntegerArgs) -> Result<Outcome, Box<dyn Error>> {
    init_threads(args.threads)?;
    let depth = if args.quick { 3 } else { args.depth };
    let reps = if args.quick { 2 } else { args.reps };
    let base = for_depth(scheme, args.t, depth, SecurityLevel::Bits128)?;
    let log_ns = args.log_n.clone().unwrap_or_else(|| vec![base.log_n]);
    let methods = args
        .key_switching
        .clone()
        .unwrap_or_else(|| vec![KeySwitchMethod::Hybrid]);
    let variants = match scheme {
        Scheme::Bfv => args
            .variant
            .clone()
            .unwrap_or_else(|| vec![MulVariant::Exact]),
        Scheme::Bgv => vec![MulVariant::Exact],
    };
    let area = scheme.name().to_lowercase();
    let mut table = Table::new(
        [
            "scheme",
            "log N",
            "t",
            "D",
            "Q (bits)",
            "log QP",
            "engine",
            "mul",
            "encode",
            "encrypt",
            "tensor",
            "relin",
            "mult+relin",
            "mod switch",
            "rotate",
            "hoisted ×8",
            "decrypt",
            "x^(2^D) / D",
            "leveled / D",
            "correct",
            "budget fresh",
            "after 1",
            "at D",
            "relin key",
            "Galois key",
        ],
        8,
    )
    .unit(
        &[
            "encode",
            "encrypt",
            "tensor",
            "relin",
            "mult+relin",
            "mod switch",
            "rotate",
            "hoisted ×8",
            "decrypt",
            "x^(2^D) / D",
            "leveled / D",
        ],
        "ms",
    )
    .unit(&["relin key", "Galois key"], "MiB");
    let mut failed = Vec::new();
    let bar = Bar::new(
        (log_ns.len() * methods.len() * variants.len()) as u64,
        "cells",
    );
    for &log_n in &log_ns {
        let chain = if log_n == base.log_n {
            base.clone()
        } else {
            // The same depth at another N: resized chain, security re-checked.
            let mut c = base.clone();
            c.log_n = log_n;
            c.log_q = hekate::params::integer::chain_bits(scheme, args.t, depth, log_n);
            c
        };
        for &method in &methods {
            for &variant in &variants {
                progress::note(format!(
                    "{area}: N = 2^{log_n}, Q = {:?}, P = {:?}, dnum {}, {} {:?}",
                    chain.log_q,
                    chain.log_p,
                    chain.dnum,
                    method.name(),
                    variant
                ));
                let ctx = chain
                    .parameters()
                    .key_switching(method)
                    .mul_variant(variant)
                    .build()?;
                let row = bench_one(&ctx, depth, reps)?;
                if !row.correct {
                    failed.push(format!("N = 2^{log_n} {}", method.name()));
                }
                let q_desc = describe(&chain.log_q);
                let cells = vec![
                    scheme.name().to_string(),
                    log_n.to_string(),
                    args.t.to_string(),
                    depth.to_string(),
                    q_desc.clone(),
                    format!("{:.0}", ctx.log_qp()),
                    format!("{}(dnum {})", method.name(), chain.dnum),
                    format!("{variant:?}").to_lowercase(),
                    opt_ms(row.times[0]),
                    opt_ms(row.times[1]),
                    opt_ms(row.times[2]),
                    opt_ms(row.times[3]),
                    opt_ms(row.times[4]),
                    opt_ms(row.times[5]),
                    opt_ms(row.times[6]),
                    opt_ms(row.times[7]),
                    opt_ms(row.times[8]),
                    opt_ms(row.times[9]),
                    opt_ms(row.times[10]),
                    row.correct.to_string(),
                    row.budgets[0].clone(),
                    row.budgets[1].clone(),
                    row.budgets[2].clone(),
                    fmt_mib(row.relin_bytes),
                    fmt_mib(row.galois_bytes),
                ];
                if let Some(path) = &args.json {
                    let names = [
                        "encode",
                        "encrypt",
                        "tensor",
                        "relin",
                        "mult_relin",
                        "mod_switch",
                        "rotate",
                        "hoisted8",
                        "decrypt",
                        "chain_per_level",
                        "leveled_chain_per_level",
                    ];
                    let times: Vec<String> = names
                        .iter()
                        .zip(row.times.iter())
                        .map(|(n, t)| {
                            format!(
                                "\"{n}\": {}",
                                t.map_or("null".into(), |v| format!("{v:.4}"))
                            )
                        })
                        .collect();
                    let line = format!(
                        "{{\"lib\": \"hekate\", \"scheme\": \"{}\", \"logN\": {log_n}, \"t\": {}, \
                         \"depth\": {depth}, \"Q\": \"{q_desc}\", \"logQP\": {:.1}, \"engine\": \
                         \"{}\", \"variant\": \"{variant:?}\", \"correct\": {}, {}}}\n",
                        scheme.name(),
                        args.t,
                        ctx.log_qp(),
                        method.name(),
                        row.correct,
                        times.join(", ")
                    );
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)?
                        .write_all(line.as_bytes())?;
                }
                table.push(cells);
                bar.inc(1);
            }
        }
    }
    drop(bar);
    say!("{}\n", header(&area, args.threads));
    table.print();
    say!(
        "\nms, median of {reps} after a warm-up, one parameter set per row; budgets are \
         measured / estimated bits (estimates never more than 1 bit above the measure); \
         BGV products switch moduli automatically, so its mult+relin includes the switch; \
         leveled / D: BFV's chain with leveled products (Evaluator::with_leveled_products)."
    );
    if failed.is_empty() {
        Ok(Outcome::Success)
    } else {
        Ok(Outcome::CheckFailed(format!(
            "x^(2^D) decrypted wrong for {}",
            failed.join(", ")
        )))
    }
}

fn opt_ms(t: Option<f64>) -> String {
    t.map_or("—".into(), fmt_ms)
}

/// `k×b` runs of equal prime sizes, e.g. `1×33 + 10×29`.
fn describe(bits: &[u32]) -> String {
    let mut runs: Vec<(usize, u32)> = Vec::new();
    for &b in bits {
        match runs.last_mut() {
            Some((k, last)) if *last == b => *k += 1,
            _ => runs.push((1, b)),
        }
    }
    runs.iter()
        .map(|(k, b)| format!("{k}×{b}"))
        .collect::<Vec<_>>()
        .join(" + ")
}

struct Row {
    /// encode, encrypt, tensor, relin, mult+relin, mod switch, rotate, hoisted, decrypt,
    /// chain per level, leveled chain per level (BFV) (ms).
    times: Vec<Option<f64>>,
    correct: bool,
    budgets: [String; 3],
    relin_bytes: usize,
    galois_bytes: usize,
}

fn bench_one(
    ctx: &std::sync::Arc<hekate::rlwe::integer::IntegerContext>,
    depth: usize,
    reps: usize,
) -> Result<Row, Box<dyn Error>> {
    use hekate::rand_chacha::ChaCha20Rng;
    use hekate::rand_core::SeedableRng;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let pk = ctx.generate_public_key_with(&sk, &mut rng);
    let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
    let steps: Vec<i64> = (1..=HOISTED as i64).collect();
    let keys = Bar::new(0, "keys");
    let gk = ctx.generate_galois_keys_with_progress(&sk, &steps, false, &mut rng, &keys);
    drop(keys);
    let (relin_bytes, galois_bytes) = (rlk.0.size_bytes(), gk.size_bytes() / HOISTED);
    let eval = Evaluator::new(ctx.clone(), Some(rlk), gk);
    let t = ctx.t();
    let n = ctx.n();
    let mut g = SplitMix64::new(7);
    let x: Vec<u64> = (0..n).map(|_| g.next_u64() % t).collect();
    let y: Vec<u64> = (0..n).map(|_| g.next_u64() % t).collect();
    let (encode, px) = try_measure(reps, || ctx.encode(&x))?;
    let py = ctx.encode(&y)?;
    let (encrypt, cx) = try_measure(reps, || ctx.encrypt(&px, &pk))?;
    let cy = ctx.encrypt(&py, &pk)?;
    let (tensor, c3) = try_measure(reps, || eval.mul_no_relin(&cx, &cy))?;
    let (relin, _) = try_measure(reps, || eval.relinearize(&c3))?;
    let (mult, prod) = try_measure(reps, || eval.mul(&cx, &cy))?;
    let switch = if ctx.scheme() == Scheme::Bgv && ctx.max_level() > 0 {
        let r = eval.relinearize(&c3)?;
        Some(try_measure(reps, || eval.mod_switch(&r))?.0.ms())
    } else {
        None
    };
    let (rotate, _) = try_measure(reps, || eval.rotate_rows(&cx, 1))?;
    let (hoisted, _) = try_measure(reps, || eval.rotate_rows_hoisted(&cx, &steps))?;
    let (decrypt, _) = try_measure(reps, || ctx.decrypt_decode(&cx, &sk))?;
    let tm = hekate::math::Modulus::new(t);
    let want_prod: Vec<u64> = x.iter().zip(&y).map(|(a, b)| tm.mul(*a, *b)).collect();
    let mut correct = ctx.decrypt_decode(&prod, &sk)? == want_prod;
    let budget = |ct: &hekate::rlwe::integer::Ciphertext| -> Result<String, Box<dyn Error>> {
        Ok(format!(
            "{:.0} / {:.0}",
            ctx.noise_budget(ct, &sk)?,
            ctx.estimated_noise_budget(ct)
        ))
    };
    let fresh = budget(&cx)?;
    let after = budget(&prod)?;
    let (chain, dt) = time_once(|| -> Result<_, hekate::Error> {
        let mut c = cx.clone();
        for _ in 0..depth {
            c = eval.square(&c)?;
        }
        Ok(c)
    });
    let chain = chain?;
    let want: Vec<u64> = x.iter().map(|&v| tm.pow(v, 1u64 << depth)).collect();
    correct &= ctx.decrypt_decode(&chain, &sk)? == want;
    let at_d = budget(&chain)?;
    // BFV: the same chain with leveled products (primes dropped before each tensor as
    // the noise allows, OpenFHE's HPSPOVERQLEVELED idea).
    let leveled = if ctx.scheme() == Scheme::Bfv {
        let lev = eval.clone().with_leveled_products(true);
        let (chain, dt) = time_once(|| -> Result<_, hekate::Error> {
            let mut c = cx.clone();
            for _ in 0..depth {
                c = lev.square(&c)?;
            }
            Ok(c)
        });
        correct &= ctx.decrypt_decode(&chain?, &sk)? == want;
        Some(dt.as_secs_f64() * 1e3 / depth.max(1) as f64)
    } else {
        None
    };
    Ok(Row {
        times: vec![
            Some(encode.ms()),
            Some(encrypt.ms()),
            Some(tensor.ms()),
            Some(relin.ms()),
            Some(mult.ms()),
            switch,
            Some(rotate.ms()),
            Some(hoisted.ms()),
            Some(decrypt.ms()),
            Some(dt.as_secs_f64() * 1e3 / depth.max(1) as f64),
            leveled,
        ],
        correct,
        budgets: [fresh, after, at_d],
        relin_bytes,
        galois_bytes,
    })
}
