//! `hekate bench fhew`: FHEW NAND gate bootstrapping per preset and blind-rotation method
//! (seed 002 Tables 3 and 4): NAND time, blind-rotation key size, key-generation time,
//! measured `σ_acc^2`, the decryption-failure probability it implies, and the ratio to
//! GINX from the same run. Where the blind rotation's products run over `f64`
//! ([`RotationArithmetic::Fourier`]), the NAND is also timed with the NTT products, gate
//! for gate in turn with it, and their ratio is printed (`ref NAND ms`, `vs ref`); with
//! the approximate gadget decomposition or 32-bit keys the reference is the exact `f64`
//! products.

use super::{fmt_mib, fmt_ms, header, init_threads, measure, time_once, Table};
use crate::progress::{self, Bar};
use crate::{say, Outcome};
use clap::{Args, ValueEnum};
use hekate::fhew::params::{FhewParams, Method, MethodConfig};
use hekate::fhew::{
    test_vector, BootstrapKey, FhewContext, FhewEvaluator, FhewSecretKey, GadgetDecomposition,
    Gate, LweCiphertext, RotationArithmetic, StepOrder,
};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::ring::Poly;
use std::error::Error;
use std::sync::Arc;

/// Options of `hekate bench fhew`.
#[derive(Debug, Args)]
pub struct FhewArgs {
    /// Presets, comma-separated (MEDIUM, STD128, STD128_AP, STD192, STD256, STD128Q,
    /// STD192Q, STD256Q, OPENFHE_STD128, OPENFHE_STD128_LMKCDEY, OPENFHE_MEDIUM,
    /// OPENFHE_STD192, TOY).
    #[arg(long, default_value = "OPENFHE_STD128,STD128", value_delimiter = ',')]
    presets: Vec<String>,
    /// Methods, comma-separated: AP, GINX, LMKCDEY-base, LMKCDEY-aux, LMKCDEY-even (seed
    /// 002's Alg. 3, 4, 5; `Alg3`, `Alg4`, `Alg5` are accepted too), each optionally with
    /// `+ALTMULT` (e.g. `LMKCDEY-even+ALTMULT`). Methods that do not apply to a preset's q
    /// are skipped.
    #[arg(
        long,
        default_value = "GINX,AP,LMKCDEY-base,LMKCDEY-aux,LMKCDEY-even,GINX+ALTMULT,\
                         LMKCDEY-aux+ALTMULT,LMKCDEY-even+ALTMULT",
        value_delimiter = ','
    )]
    methods: Vec<String>,
    /// Blind rotations whose error is measured for σ_acc^2 (the paper uses 500).
    #[arg(long, default_value_t = 500)]
    trials: usize,
    /// Timed NAND gates per method (median reported).
    #[arg(long, default_value_t = 15)]
    gates: usize,
    /// Worker threads: key generation, and the σ_acc^2 trials (one evaluator per thread,
    /// sharing the key). NAND times are single-threaded either way.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// A short run: TOY and OPENFHE_STD128 with GINX and LMKCDEY-aux, 20 trials, 5 gates.
    #[arg(long)]
    quick: bool,
    /// Skip AP where its blind-rotation keys would take more than this many GiB in
    /// memory (they grow as `n d_r (B_r - 1)` RGSW ciphertexts: 12-16 GiB at n = 1024,
    /// N = 2048).
    #[arg(long, default_value_t = 6.0)]
    max_key_gib: f64,
    /// The blind rotation's products: `auto` (the library's default: over `f64` with the
    /// approximate gadget decomposition where the products are exact, else NTT), `ntt`
    /// (the NTT only: no converted copy of the keys, for the largest AP keys), `fourier`
    /// (`f64`, every gadget digit: seed 002's and OpenFHE's products, the ones Table 3's
    /// σ_acc² is for; an error where not exact), `approx` (`f64`, the lowest digit of the
    /// RGSW and automorphism products rounded away: faster and less noisy), `compact`
    /// (`f64` with 32-bit fixed-point keys: inexact) or `compact-approx` (both). The NAND
    /// is also timed with a reference: the NTT for `fourier`, the exact `f64` products
    /// otherwise.
    #[arg(long, value_enum, default_value_t = Products::Auto)]
    products: Products,
    /// The step order of Alg. 3, 4 and 5: `dlog` (sorted by discrete log, the library's
    /// default) or `index` (seed 002's order, whose noise Table 3 gives).
    #[arg(long, value_enum, default_value_t = Order::Dlog)]
    step_order: Order,
}

/// `--step-order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Order {
    /// `StepOrder::Dlog`.
    Dlog,
    /// `StepOrder::Index`.
    Index,
}

/// `--products`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Products {
    /// `FhewEvaluator::new`'s choice.
    Auto,
    /// NTT products only.
    Ntt,
    /// `f64` products, every gadget digit.
    Fourier,
    /// `f64` products, approximate gadget decomposition.
    Approx,
    /// `f64` products with 32-bit keys (`RotationArithmetic::FourierCompact`).
    Compact,
    /// `f64` products with 32-bit keys and the approximate gadget decomposition.
    CompactApprox,
}

impl Products {
    /// An evaluator with these products ([`FhewEvaluator::products_by_name`], the value's
    /// command-line name).
    pub(super) fn evaluator(
        self,
        ctx: &Arc<FhewContext>,
        key: &Arc<BootstrapKey>,
    ) -> hekate::Result<FhewEvaluator> {
        let name = self
            .to_possible_value()
            .expect("every value has a name")
            .get_name()
            .to_string();
        let (r, d) = FhewEvaluator::products_by_name(&name, ctx, key)?;
        // Benchmarks measure the papers' noisy configurations too (their failure rate is
        // in the tables): no failure bound.
        FhewEvaluator::with_failure_bound(ctx.clone(), key.clone(), r, d, 1.0)
    }
}

/// How `ev`'s products run, for tables: `Fourier`, `Fourier approx`, `FourierCompact`,
/// `Ntt`, ...
pub(super) fn products_label(ev: &FhewEvaluator) -> String {
    match ev.decomposition() {
        GadgetDecomposition::Exact => format!("{:?}", ev.arithmetic()),
        GadgetDecomposition::Approximate => format!("{:?} approx", ev.arithmetic()),
    }
}

/// Runs the benchmark.
pub fn run(mut args: FhewArgs) -> Result<Outcome, Box<dyn Error>> {
    init_threads(args.threads)?;
    if args.quick {
        args.presets = vec!["TOY".into(), "OPENFHE_STD128".into()];
        args.methods = vec!["GINX".into(), "LMKCDEY-aux".into(), "LMKCDEY-even".into()];
        args.trials = args.trials.min(20);
        args.gates = args.gates.min(5);
    }
    let methods: Vec<MethodConfig> = args
        .methods
        .iter()
        .map(|s| MethodConfig::by_name(s))
        .collect::<Result<_, _>>()?;
    say!("{}", header("fhew", args.threads));
    say!();
    let presets: Vec<&FhewParams> = args
        .presets
        .iter()
        .map(|name| FhewParams::by_name_or_test(name))
        .collect::<Result<_, _>>()?;
    // One tick per (preset, method) cell.
    let cells = presets
        .iter()
        .map(|p| {
            methods
                .iter()
                .filter(|m| m.method.applies(p.q, p.big_n))
                .count()
        })
        .sum::<usize>();
    let bar = Bar::new(cells as u64, "cells");
    for p in presets {
        run_preset(p, &methods, &args, &bar)?;
    }
    Ok(Outcome::Success)
}

/// GiB of AP blind-rotation keys in memory (both halves of every RLWE' in NTT form); 0 for
/// the other methods, whose keys are small.
fn ap_key_gib(p: &FhewParams, cfg: MethodConfig) -> f64 {
    if cfg.method != Method::Ap {
        return 0.0;
    }
    let d_g = p.log_big_q.div_ceil(p.log_bg) as f64;
    let primes =
        (p.n * p.d_r() * (p.b_r as usize - 1)) as f64 * if cfg.alt_mult { 1.0 } else { 2.0 };
    primes * 2.0 * d_g * p.big_n as f64 * 8.0 / (1u64 << 30) as f64
}

fn run_preset(
    p: &FhewParams,
    methods: &[MethodConfig],
    args: &FhewArgs,
    bar: &Bar,
) -> Result<(), Box<dyn Error>> {
    // Benchmarks run the papers' sets whatever their security, and say it.
    let ctx = FhewContext::with_security(p, SecurityLevel::NotChecked)?;
    let mut rng = ChaCha20Rng::seed_from_u64(2024);
    let sk = ctx.generate_secret_key_with(&mut rng)?;
    say!(
        "### {} (n = {}, q = {}, N = {}, log Q = {}, B_g = 2^{}; {})",
        p.name,
        p.n,
        p.q,
        p.big_n,
        p.log_big_q,
        p.log_bg,
        p.source
    );
    say!();
    say!(
        "Security: {} (the source claims: {})",
        p.security(),
        p.claimed_security
    );
    say!();
    let mut table = Table::new(
        [
            "method",
            "NAND ms",
            "products",
            "ref NAND ms",
            "vs ref",
            "vs GINX",
            "keygen s",
            "brk+ak RLWE'",
            "brk+ak MiB",
            "paper MB",
            "LWE ksk MiB (in memory)",
            "σ_acc^2",
            "paper σ_acc^2",
            "meas / paper",
            "P_fail (gate)",
            "NAND(1,0)",
        ],
        1,
    )
    .titled(p.name);
    let mut ginx_ms = None;
    let mut rows = Vec::new();
    for &cfg in methods {
        if !cfg.method.applies(p.q, p.big_n) {
            continue;
        }
        bar.message(format!("{} {}", p.name, cfg.label()));
        let gib = ap_key_gib(p, cfg);
        if gib > args.max_key_gib {
            say!(
                "{}: skipped, its keys would take {gib:.1} GiB in memory (--max-key-gib {})",
                cfg.label(),
                args.max_key_gib
            );
            say!();
            bar.inc(1);
            continue;
        }
        let keys = Bar::new(0, "keys");
        let (key, t_key) =
            time_once(|| ctx.generate_bootstrap_key_with_progress(&sk, cfg, &mut rng, &keys));
        drop(keys);
        progress::note(format!(
            "{} {}: keys in {:.2} s",
            p.name,
            cfg.label(),
            t_key.as_secs_f64()
        ));
        let mut key = key?;
        if args.step_order == Order::Index {
            key.brk = key.brk.with_step_order(StepOrder::Index);
        }
        let key = Arc::new(key);
        let mut ev = args.products.evaluator(&ctx, &key)?;
        let a = ctx.encrypt_bit_with(true, &sk, &mut rng)?;
        let b = ctx.encrypt_bit_with(false, &sk, &mut rng)?;
        // One correctness check per row; a wrong result is reported in the table (a
        // configuration whose noise is too large for its set), not hidden by an abort.
        let out = ev.gate(Gate::Nand, &a, &b)?;
        let nand_ok = ctx.decrypt_bit(&out, &sk)?;
        // The reference the NAND is timed against, gate for gate: the NTT for the exact
        // `f64` products, those for the others over `f64`.
        let reference = match (ev.arithmetic(), ev.decomposition()) {
            (RotationArithmetic::Ntt, _) => None,
            (RotationArithmetic::Fourier, GadgetDecomposition::Exact) => {
                Some(RotationArithmetic::Ntt)
            }
            _ => Some(RotationArithmetic::Fourier),
        };
        let (nand, ref_nand) = if let Some(r) = reference {
            let mut other = FhewEvaluator::with_failure_bound(
                ctx.clone(),
                key.clone(),
                r,
                GadgetDecomposition::Exact,
                1.0,
            )?;
            let (x, y) = interleaved(args.gates, &mut ev, &mut other, &a, &b)?;
            (x, Some(y))
        } else {
            let st = measure(args.gates, || ev.gate(Gate::Nand, &a, &b));
            (st.median.as_secs_f64() * 1e3, None)
        };
        // σ_acc^2 over `trials` blind rotations of random messages, shared out among
        // `--threads` workers (`FhewEvaluator::worker`: one converted key for all).
        let f = test_vector(&ctx, |u| (u as i64 % 7 - 3) * 1000);
        let cts = (0..args.trials)
            .map(|_| {
                let m = rng.next_u64() % p.q;
                sk.lwe.encrypt(m, p.q, ctx.noise(), &mut rng)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let var = squared_error(&ev, &cts, &f, &sk, args.threads)?;
        if cfg == MethodConfig::new(Method::Ginx) {
            ginx_ms = Some(nand);
        }
        let ksk_bytes = key.ksk.memory_bytes();
        let arith = products_label(&ev);
        rows.push((
            cfg,
            (nand, arith, ref_nand),
            t_key.as_secs_f64(),
            key,
            ksk_bytes,
            var,
            nand_ok,
        ));
        bar.inc(1);
    }
    for (cfg, (nand, arith, ref_nand), tk, key, ksk_bytes, var, nand_ok) in rows {
        let paper = p.paper_sigma_acc2(cfg);
        table.push(vec![
            cfg.label(),
            fmt_ms(nand),
            arith,
            ref_nand.map_or("-".into(), fmt_ms),
            ref_nand.map_or("-".into(), |t| format!("{:.2}", nand / t)),
            ginx_ms.map_or("-".into(), |g| format!("{:.2}", nand / g)),
            format!("{tk:.2}"),
            key.brk.rlwe_prime_count().to_string(),
            fmt_mib(key.brk.compressed_bytes()),
            p.paper_key_mb(cfg)
                .map_or("-".into(), |v| format!("{v:.0}")),
            fmt_mib(ksk_bytes),
            format!("{var:.3e}"),
            paper.map_or("-".into(), |v| format!("{v:.3e}")),
            paper.map_or("-".into(), |v| format!("{:.2}", var / v)),
            format!("{:.1e}", p.failure_probability(var)),
            if nand_ok { "ok" } else { "WRONG" }.into(),
        ]);
    }
    table.print();
    say!();
    Ok(())
}

/// The mean squared blind-rotation error (`σ_acc^2`) over `cts`, on `threads` workers of
/// `ev` (NaN for no ciphertexts).
fn squared_error(
    ev: &FhewEvaluator,
    cts: &[LweCiphertext],
    f: &Poly,
    sk: &FhewSecretKey,
    threads: usize,
) -> Result<f64, Box<dyn Error>> {
    if cts.is_empty() {
        return Ok(f64::NAN);
    }
    let per = cts.len().div_ceil(threads.max(1));
    let sums: Vec<hekate::Result<(f64, usize)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = cts
            .chunks(per)
            .map(|chunk| {
                let mut w = ev.worker();
                scope.spawn(move || {
                    let (mut sum, mut count) = (0f64, 0usize);
                    for ct in chunk {
                        let err = w.blind_rotation_error(ct, f, sk)?;
                        sum += err.iter().map(|&e| (e as f64) * (e as f64)).sum::<f64>();
                        count += err.len();
                    }
                    Ok((sum, count))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a σ_acc^2 worker panicked"))
            .collect()
    });
    let (mut sum, mut count) = (0f64, 0usize);
    for r in sums {
        let (s, c) = r?;
        sum += s;
        count += c;
    }
    Ok(sum / count as f64)
}

/// Median NAND milliseconds of `first` and `second`, timed one gate each in turn (after
/// one warm-up gate each), so that both see the same machine load.
fn interleaved(
    gates: usize,
    first: &mut FhewEvaluator,
    second: &mut FhewEvaluator,
    a: &LweCiphertext,
    b: &LweCiphertext,
) -> Result<(f64, f64), Box<dyn Error>> {
    let mut t = [Vec::new(), Vec::new()];
    for g in 0..=gates.max(1) {
        for (ev, t) in [&mut *first, &mut *second].into_iter().zip(t.iter_mut()) {
            let s = std::time::Instant::now();
            ev.gate(Gate::Nand, a, b)?;
            if g > 0 {
                t.push(s.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Ok((median(&mut t[0]), median(&mut t[1])))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--methods` takes the LMKCDEY names and, for compatibility, seed 002's `Alg3/4/5`.
    #[test]
    fn methods_parse_by_new_and_old_names() {
        let aux = MethodConfig::new(Method::LmkcdeyAux);
        assert_eq!(MethodConfig::by_name("LMKCDEY-aux").unwrap(), aux);
        assert_eq!(MethodConfig::by_name("Alg4").unwrap(), aux);
        assert_eq!(
            MethodConfig::by_name("Alg5+ALTMULT").unwrap(),
            MethodConfig::new(Method::LmkcdeyAllEven).with_alt_mult(true)
        );
        assert_eq!(
            MethodConfig::by_name("lmkcdey-base").unwrap().method,
            Method::LmkcdeyBase
        );
        assert!(MethodConfig::by_name("Alg6").is_err());
        // `--quick` runs TOY, which the library's preset list leaves out.
        assert_eq!(FhewParams::by_name_or_test("toy").unwrap().name, "TOY");
        assert!(FhewParams::by_name("STD128").is_ok() && FhewParams::by_name("STD129").is_err());
        assert!(MethodConfig::by_name("GINX+FAST").is_err());
        // Every default and label parses back to itself.
        for m in Method::ALL {
            let cfg = MethodConfig::new(m).with_alt_mult(true);
            assert_eq!(MethodConfig::by_name(&cfg.label()).unwrap(), cfg);
        }
    }
}
