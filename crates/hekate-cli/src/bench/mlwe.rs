//! `hekate bench mlwe`: seed 004's CPU experiments in one run (Tables 4, 6 and 7):
//! HMult + Rescale of RNS-CKKS (hekate's CKKS at `N = r·n` with the paper's `k = 1`,
//! `dnum = L + 1`), ModHE and DPad-HE on the same primitives, interleaved repetition by
//! repetition; their ratios beside the paper's; relinearization key sizes (in memory, and
//! at `log2(PQ)` bits per coefficient as the paper counts them) beside Tables 4 and 7;
//! precision; transforms per product counted against Table 1 / §3.3.1; peak memory.

use super::{fmt_mib, header, init_threads, peak_rss_bytes, reset_peak_rss, Table};
use crate::progress::Bar;
use crate::{say, Outcome};
use clap::Args;
use hekate::ckks::{CkksParameters, Evaluator as CkksEvaluator};
use hekate::math::transform_count;
use hekate::mlwe::{quadratic_terms, Evaluator, MlweContext, RelinMethod};
use hekate::params::mlwe::{by_name, paper_rlwe, MlwePreset, TABLE3, TABLE5};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::rlwe::SecretDistribution;
use num_complex::Complex64;
use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

/// Options of `hekate bench mlwe`.
#[derive(Debug, Args)]
pub struct MlweArgs {
    /// Parameter sets, comma separated: names (T3-r2 .. T3-r8, Set-II, Set-III, Set-V,
    /// Set-VI), `table4` (all of Table 3) or `table6` (Sets II, III, V, VI)
    #[arg(long, value_delimiter = ',', default_value = "table4,table6")]
    sets: Vec<String>,
    /// Timed repetitions per method after one warm-up, interleaved (the median is shown)
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Skip a method whose relinearization key would take more memory than this (GiB)
    #[arg(long, default_value_t = 10.0)]
    max_key_gib: f64,
    /// Threads of the global rayon pool
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Sets for the rotation (Fig. 4: 1..8 consecutive rotations, plain against
    /// rank-hoisted) and conversion (Table 9: MLWE <-> RLWE in RLWE key switches)
    /// tables; `--extras ""` skips them
    #[arg(long, value_delimiter = ',', default_value = "Set-III")]
    extras: Vec<String>,
    /// Sets for the repeated-squaring table (Fig. 3, RQ4: squarings through every level,
    /// one rank dropped whenever the modulus keeps the lower rank as secure as the set's
    /// top; ModHE, DPad-HE and RNS-CKKS); `--squaring ""` skips it
    #[arg(long, value_delimiter = ',', default_value = "Set-II,Set-III")]
    squaring: Vec<String>,
    /// A fast smoke run: T3-r2, T3-r3 and Set-III, 2 reps
    #[arg(long)]
    quick: bool,
    /// Secret of Hamming weight H per component for the main table's products (the RNS-CKKS
    /// baseline gets weight r·H); the paper never states its secret. Default: dense
    /// ternary
    #[arg(long, value_name = "H")]
    hamming_weight: Option<usize>,
    /// The main table's slot values are uniform in [-M, M) + [-M, M) i (the paper does not
    /// state its inputs either)
    #[arg(long, value_name = "M", default_value_t = 1.0)]
    magnitude: f64,
}

impl MlweArgs {
    /// The secret of each MLWE component (`--hamming-weight`).
    fn secret(&self) -> SecretDistribution {
        self.hamming_weight.map_or(
            SecretDistribution::Ternary,
            SecretDistribution::HammingWeight,
        )
    }

    /// The secret of the RNS-CKKS baseline of rank `r`: weight `r·H`, or dense ternary.
    fn rlwe_secret(&self, r: usize) -> SecretDistribution {
        match self.secret() {
            SecretDistribution::HammingWeight(h) => SecretDistribution::HammingWeight(r * h),
            other => other,
        }
    }
}

/// The precision ceiling of one product (mean of `-log2` of the slot error at the output
/// scale `2^log_scale`) set by the rescale's rounding alone: the rounding
/// `t_0 + Σ_i t_i s_i` (`t_i` uniform in `[-1/2, 1/2)`) has variance
/// `(1 + Σ_i ||s_i||^2) / 12` per coefficient, so a slot's error is complex Gaussian with
/// `E|z|^2 = n (1 + Σ ||s_i||^2) / 12`, whose mean `log2 |z|` is `log2 sqrt(E|z|^2) - 0.416`
/// (Rayleigh). `weight`: `Σ ||s_i||^2`. Fresh noise and key switching add to the error;
/// measured products whose other errors are small sit 0.1-0.4 bits above this model
/// (test below; `hekate bench mlwe` at full size), so it is a ceiling to within that.
fn rescale_ceiling_bits(log_scale: f64, n: usize, weight: f64) -> f64 {
    let rayleigh =
        0.5 - (std::f64::consts::LN_2 - 0.577_215_664_901_532_9) / (2.0 * std::f64::consts::LN_2);
    log_scale - 0.5 * (n as f64 * (1.0 + weight) / 12.0).log2() + rayleigh
}

fn expand(names: &[String]) -> Result<Vec<MlwePreset>, String> {
    let mut out = Vec::new();
    for n in names.iter().filter(|n| !n.is_empty()) {
        match n.to_ascii_lowercase().as_str() {
            "table4" | "table3" => out.extend(TABLE3),
            "table6" | "table5" => out.extend(TABLE5.iter().filter(|p| p.rank > 1)),
            _ => out.push(by_name(n).ok_or_else(|| {
                format!("unknown MLWE set {n:?}: use T3-r2 .. T3-r8, Set-II, Set-III, Set-V, Set-VI, table4 or table6")
            })?),
        }
    }
    out.retain(|p| p.rank > 1);
    Ok(out)
}

/// `-log2` of the mean absolute error over the slots (seed 004: "mean of -log2 of the
/// error", at 33.9 / 33.4 bits for N = 2^15 / 2^16).
fn precision(got: &[Complex64], want: &[Complex64]) -> f64 {
    let bits: f64 = got
        .iter()
        .zip(want)
        .map(|(g, w)| -((g - w).norm().max(1e-300)).log2())
        .sum();
    bits / got.len() as f64
}

fn values(n: usize, seed: u64) -> Vec<Complex64> {
    values_within(n, seed, 1.0)
}

/// `n` slot values uniform in `[-m, m) + [-m, m) i` (fixed seed).
fn values_within(n: usize, seed: u64, m: f64) -> Vec<Complex64> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut u = || m * ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0);
    (0..n).map(|_| Complex64::new(u(), u())).collect()
}

/// Key bytes at `log2(modulus)` bits per coefficient, as the paper counts them, in MB
/// (MiB): `polys` polynomials of `n` coefficients.
fn paper_mb(polys: usize, n: usize, log_mod: f64) -> f64 {
    polys as f64 * n as f64 * log_mod / 8.0 / (1u64 << 20) as f64
}

/// Replaces the progress line on stderr.
fn progress(msg: std::fmt::Arguments) {
    crate::progress::line_replace(format!("  {msg}"));
}

/// Ends the progress line.
fn progress_end() {
    crate::progress::line_end("");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `hekate bench mlwe`.
pub fn run(mut args: MlweArgs) -> Result<Outcome, Box<dyn Error>> {
    init_threads(args.threads)?;
    if args.quick {
        args.sets = vec!["T3-r2".into(), "T3-r3".into(), "Set-III".into()];
        args.squaring = vec!["Set-III".into()];
        args.reps = args.reps.min(2);
    }
    let sets = expand(&args.sets)?;
    let mut table = Table::new(
        [
            "set",
            "N",
            "n",
            "r",
            "r̂",
            "L",
            "K",
            "μ",
            "log QP",
            "log P̂Q",
            "margin (λ, λ̂)",
            "RLWE s",
            "ModHE s",
            "DPad s",
            "ModHE/DPad (paper)",
            "RLWE/DPad (paper)",
            "key MB RLWE",
            "key MB ModHE (paper)",
            "key MB DPad (paper)",
            "key MiB in memory M/D",
            "bits RLWE/M/D",
            "ceiling RLWE/MLWE",
            "NTT M counted (paper)",
            "NTT D counted (paper)",
            "Hadamard M (paper)",
            "Hadamard D (paper)",
            "peak RSS",
        ],
        2,
    );
    let mut failed = Vec::new();
    let bar = Bar::new(sets.len() as u64, "sets");
    for p in &sets {
        reset_peak_rss();
        let row = bench_set(p, &args)?;
        if row.iter().any(|c| c.contains("LOW")) {
            failed.push(p.name.to_string());
        }
        table.push(row);
        progress_end();
        bar.inc(1);
    }
    drop(bar);
    say!("{}\n", header("mlwe", args.threads));
    table.print();
    say!(
        "\nseconds of HMult + Rescale, median of {} interleaved repetitions after a warm-up; \
         ratios are speedups (slower / faster), the paper's from its Tables 4 and 6 (its CPU: \
         Xeon Silver 4410Y, SEAL-based code); key MB at log2(PQ) bits per coefficient as \
         the paper counts (in memory: 64-bit words); margin: bits below the 128-bit \
         HomomorphicEncryption.org bound interpolated at r·n and r̂·n (negative: above it); \
         bits: mean of -log2 of the slot error (seed 004's 33.9 / 33.4 at 2^15 / 2^16); \
         ceiling: the precision the rescale's rounding alone leaves a product (its \
         variance n (1 + Σ||s_i||^2) / 12 per slot, with the secret of --hamming-weight; \
         measured products with small other errors sit within 0.4 bits of it); NTT / \
         Hadamard: limb operations per product (tensor + relinearization), counted (NTT) or hekate's model (Hadamard), against \
         seed 004's Table 1 / §3.3.1 formulas; '—': skipped (key above --max-key-gib {}) or \
         not applicable.",
        args.reps,
        args.max_key_gib
    );
    let extras = expand(&args.extras)?;
    if !extras.is_empty() {
        let mut rot = Table::new(
            ["set", "rotations", "plain s", "hoisted s", "plain/hoisted"],
            1,
        )
        .titled("rotations");
        let mut conv = Table::new(
            [
                "set",
                "N",
                "r",
                "RLWE key switch s",
                "Embed s",
                "M→R s",
                "R→M s",
                "Embed / KS",
                "M→R / KS (paper)",
                "R→M / KS (paper)",
                "M→R bits (direct)",
            ],
            1,
        )
        .titled("conversions");
        let bar = Bar::new(extras.len() as u64, "sets");
        for p in &extras {
            reset_peak_rss();
            let (rows, c) = bench_extras(p, &args)?;
            rows.into_iter().for_each(|r| rot.push(r));
            if let Some(c) = c {
                conv.push(c);
            }
            progress_end();
            bar.inc(1);
        }
        drop(bar);
        say!();
        rot.print();
        say!(
            "\nk consecutive rotations by one slot: plain (k KeySwitch_d of r components) \
             against rank-hoisted (lift, k KeySwitch_μ at rank r̂ with the power-of-two key, \
             one rank-down); seconds, median of {} interleaved repetitions.",
            args.reps
        );
        if !conv.is_empty() {
            say!();
            conv.print();
            say!(
                "\nMLWE -> RLWE (Embed in NTT form, then log2 r rotations) and RLWE -> MLWE \
                 (Extract) against one RLWE key switch (a rotation at N = r·n) of the same \
                 run; the paper's Table 9 ratios in parentheses; bits: precision of a \
                 converted product against its direct MLWE decryption."
            );
        }
    }
    let squaring = expand(&args.squaring)?;
    if !squaring.is_empty() {
        let mut sq = Table::new(
            [
                "set",
                "ranks (level)",
                "RLWE s",
                "ModHE s",
                "DPad s",
                "DPad / ModHE",
                "DPad / RLWE",
                "ModHE no-reduce s",
            ],
            2,
        )
        .titled("squaring");
        let bar = Bar::new(squaring.len() as u64, "sets");
        for p in &squaring {
            reset_peak_rss();
            sq.push(bench_squaring(p)?);
            progress_end();
            bar.inc(1);
        }
        drop(bar);
        say!();
        sq.print();
        say!(
            "\nrepeated squaring x -> x^2 (mult, relin, rescale) from the top level to level 0, \
             cumulative seconds; the rank drops (by RankReduce on the product before its \
             rescale) at the first level where the lower rank's margin below the table's \
             128-bit bound, interpolated at rank·n, is at least the set's own at the top (the \
             paper: \"whenever the current modulus keeps the reduced rank secure\"); seed 004 \
             Fig. 3 at 2^15: DPad takes 76% (r = 2) and 49% (r = 4) of ModHE's time, \
             \"close to RNS-CKKS\". The scale is reset to Δ after each rescale (the exact \
             rational Δ^(2^k)/q.. would grow to millions of bits), so this table times and \
             does not measure precision."
        );
    }
    if failed.is_empty() {
        Ok(Outcome::Success)
    } else {
        Ok(Outcome::CheckFailed(format!(
            "precision below 20 bits for {}",
            failed.join(", ")
        )))
    }
}

struct Method {
    name: &'static str,
    eval: Evaluator,
}

fn bench_set(p: &MlwePreset, args: &MlweArgs) -> Result<Vec<String>, Box<dyn Error>> {
    let t0 = Instant::now();
    let name = p.name;
    progress(format_args!("{name}: building the context"));
    let ctx: Arc<MlweContext> = p.parameters().secret(args.secret()).build()?;
    let (r, n, l) = (p.rank, ctx.n(), ctx.max_level());
    let big_n = r * n;
    let dp = ctx.dpad().expect("the sets benchmarked have DPad-HE");
    let (rh, mu, d) = (dp.rank_hat(), dp.mu(), ctx.dnum());
    let kh = dp.ring().p_len();
    let k = ctx.ring().p_len();
    let gib = |b: usize| b as f64 / (1u64 << 30) as f64;
    let modhe_bytes = quadratic_terms(r) * d * (r + 1) * (l + 1 + k) * n * 8;
    let dpad_bytes = quadratic_terms(r) * mu * (rh + 1) * (l + 1 + kh) * n * 8
        + (rh - r) * d * (r + 1) * (l + 1 + k) * n * 8;
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let sk = ctx.generate_secret_key_with(&mut rng)?;
    let mut methods = Vec::new();
    for (method, bytes, label) in [
        (RelinMethod::ModHe, modhe_bytes, "ModHE"),
        (RelinMethod::DPad, dpad_bytes, "DPad"),
    ] {
        if gib(bytes) > args.max_key_gib {
            progress_end();
            crate::progress::note(format!(
                "  {name}: {label} skipped, its relinearization key needs {:.1} GiB \
                 (--max-key-gib {})",
                gib(bytes),
                args.max_key_gib
            ));
            continue;
        }
        progress(format_args!(
            "{name}: generating the {label} key ({:.2} GiB)",
            gib(bytes)
        ));
        let rlk = ctx.generate_relinearization_key_with(&sk, method, &mut rng)?;
        methods.push(Method {
            name: label,
            eval: Evaluator::new(ctx.clone(), Some(rlk)),
        });
    }
    let z1 = values_within(ctx.max_slots(), 1, args.magnitude);
    let z2 = values_within(ctx.max_slots(), 2, args.magnitude);
    let want: Vec<Complex64> = z1.iter().zip(&z2).map(|(a, b)| a * b).collect();
    let a = ctx.encrypt_symmetric_with(&ctx.encode(&z1)?, &sk, &mut rng)?;
    let b = ctx.encrypt_symmetric_with(&ctx.encode(&z2)?, &sk, &mut rng)?;
    // The RNS-CKKS baseline at N = r·n (power-of-two r), same Q and P, dnum = L + 1.
    let rlwe = if r.is_power_of_two() && big_n <= 1 << 17 {
        let rlwe_bytes = (l + 1) * 2 * (l + 1 + k) * big_n * 8;
        if gib(rlwe_bytes) > args.max_key_gib {
            None
        } else {
            progress(format_args!("{name}: the RNS-CKKS baseline at N = {big_n}"));
            let (c, csk, ev) = rlwe_baseline(&ctx, args.rlwe_secret(r), &mut rng)?;
            let slots = c.max_slots();
            let (w1, w2) = (
                values_within(slots, 3, args.magnitude),
                values_within(slots, 4, args.magnitude),
            );
            let wp: Vec<Complex64> = w1.iter().zip(&w2).map(|(a, b)| a * b).collect();
            let x = c.encrypt_symmetric_with(&c.encode(&w1)?, &csk, &mut rng)?;
            let y = c.encrypt_symmetric_with(&c.encode(&w2)?, &csk, &mut rng)?;
            Some((c, csk, ev, x, y, wp, rlwe_bytes))
        }
    } else {
        None
    };
    // Interleaved repetitions: RLWE, then each MLWE method, one product each per round.
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); 1 + methods.len()];
    let mut outs: Vec<Option<Vec<Complex64>>> = vec![None; 1 + methods.len()];
    for rep in 0..=args.reps {
        progress(format_args!("{name}: round {rep} of {}", args.reps));
        if let Some((c, csk, ev, x, y, wp, _)) = &rlwe {
            let t = Instant::now();
            let out = ev.rescale(&ev.mul(x, y)?)?;
            let dt = t.elapsed().as_secs_f64();
            if rep > 0 {
                times[0].push(dt);
            } else {
                let got = c.decrypt_decode(&out, csk)?;
                outs[0] = Some(vec![Complex64::new(precision(&got, wp), 0.0)]);
            }
        }
        for (i, m) in methods.iter().enumerate() {
            let t = Instant::now();
            let out = m.eval.rescale(&m.eval.mul(&a, &b)?)?;
            let dt = t.elapsed().as_secs_f64();
            if rep > 0 {
                times[1 + i].push(dt);
            } else {
                let got = ctx.decrypt_decode(&out, &sk)?;
                outs[1 + i] = Some(vec![Complex64::new(precision(&got, &want), 0.0)]);
            }
        }
    }
    // Transforms per product (tensor + relinearization), counted on one more product.
    let mut counted = Vec::new();
    for m in &methods {
        let before = transform_count();
        let _ = m.eval.mul(&a, &b)?;
        counted.push((transform_count() - before).total());
    }
    let secs = |i: usize| (!times[i].is_empty()).then(|| median(times[i].clone()));
    let t_rlwe = secs(0);
    let t_of = |label: &str| {
        methods
            .iter()
            .position(|m| m.name == label)
            .and_then(|i| secs(1 + i))
    };
    let (t_m, t_d) = (t_of("ModHE"), t_of("DPad"));
    let bits_of = |i: usize| outs[i].as_ref().map(|v| v[0].re);
    let bits_m = methods
        .iter()
        .position(|m| m.name == "ModHE")
        .and_then(|i| bits_of(1 + i));
    let bits_d = methods
        .iter()
        .position(|m| m.name == "DPad")
        .and_then(|i| bits_of(1 + i));
    let low = [bits_m, bits_d].iter().flatten().any(|&b| b < 20.0);
    let f2 = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.3}"));
    let f1 = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.1}"));
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => format!("{:.2}x", a / b),
        _ => "—".into(),
    };
    let paper = p.paper_seconds;
    let paper_rl = paper_rlwe(big_n.trailing_zeros());
    let log_q = ctx.log_q();
    let log_pq = log_q + ctx.log_p();
    let log_phq = log_q + ctx.log_p_hat().unwrap_or(0.0);
    let quad = quadratic_terms(r);
    let mb_m = paper_mb(quad * d * (r + 1), n, log_pq);
    let mb_d =
        paper_mb(quad * mu * (rh + 1), n, log_phq) + paper_mb((rh - r) * d * (r + 1), n, log_pq);
    let mb_rlwe = paper_mb((l + 1) * 2, big_n, log_pq);
    let (pm, pd) = match p.paper_key_mb {
        Some((m, d)) => (format!(" ({m})"), format!(" ({d})")),
        None => (String::new(), String::new()),
    };
    let (margin, margin_hat) = p.security_margin();
    let cost_m = ctx.relin_cost(RelinMethod::ModHe, l);
    let cost_d = ctx.relin_cost(RelinMethod::DPad, l);
    let paper_m = ctx.paper_relin_cost(RelinMethod::ModHe, l);
    let paper_d = ctx.paper_relin_cost(RelinMethod::DPad, l);
    let counted_of = |label: &str| {
        methods
            .iter()
            .position(|m| m.name == label)
            .map_or("—".to_string(), |i| counted[i].to_string())
    };
    let row = vec![
        name.to_string(),
        format!("2^{}", big_n.trailing_zeros()),
        format!("2^{}", n.trailing_zeros()),
        r.to_string(),
        rh.to_string(),
        l.to_string(),
        p.k_hat.to_string(),
        mu.to_string(),
        format!("{log_pq:.0}"),
        format!("{log_phq:.0}"),
        format!(
            "{margin:+.0}, {} (λ {}, {})",
            margin_hat.map_or("—".into(), |m| format!("{m:+.0}")),
            p.lambda.0,
            p.lambda.1.map_or("—".into(), |x| x.to_string())
        ),
        f2(t_rlwe),
        f2(t_m),
        f2(t_d),
        format!(
            "{}{}",
            ratio(t_m, t_d),
            paper.map_or(String::new(), |(m, d)| format!(" ({:.2}x)", m / d))
        ),
        format!(
            "{}{}",
            ratio(t_rlwe, t_d),
            match (paper_rl, paper) {
                (Some((rl, _)), Some((_, d))) => format!(" ({:.2}x)", rl / d),
                _ => String::new(),
            }
        ),
        if rlwe.is_some() {
            format!(
                "{mb_rlwe:.1}{}",
                paper_rl.map_or(String::new(), |(_, mb)| format!(" ({mb})"))
            )
        } else {
            "—".into()
        },
        format!("{mb_m:.1}{pm}"),
        format!("{mb_d:.1}{pd}"),
        format!("{} / {}", fmt_mib(modhe_bytes), fmt_mib(dpad_bytes)),
        format!(
            "{} / {} / {}{}",
            f1(bits_of(0)),
            f1(bits_m),
            f1(bits_d),
            if low { " LOW" } else { "" }
        ),
        {
            // Σ ||s_i||^2: r components of degree n (MLWE), one of degree r·n whose weight
            // is r·H (the baseline's); a product's scale after the rescale, Δ^2 / q_L.
            let w_mlwe = (r * n) as f64 * args.secret().variance(n);
            let w_rlwe = big_n as f64 * args.rlwe_secret(r).variance(big_n);
            let q_top = *ctx.q_primes().last().expect("a chain") as f64;
            let log_scale = 2.0 * ctx.default_scale().log2() - q_top.log2();
            format!(
                "{:.1} / {:.1}",
                rescale_ceiling_bits(log_scale, big_n, w_rlwe),
                rescale_ceiling_bits(log_scale, n, w_mlwe)
            )
        },
        format!("{} ({})", counted_of("ModHE"), paper_m.transforms),
        format!("{} ({})", counted_of("DPad"), paper_d.transforms),
        format!("{} ({})", cost_m.hadamards, paper_m.hadamards),
        format!("{} ({})", cost_d.hadamards, paper_d.hadamards),
        peak_rss_bytes().map_or("—".into(), fmt_mib),
    ];
    progress(format_args!(
        "{name}: done in {:.1} s",
        t0.elapsed().as_secs_f64()
    ));
    Ok(row)
}

/// One table row.
type Row = Vec<String>;

/// Fig. 4 and Table 9 for one set: rows of the rotation table, and the conversion row
/// (power-of-two ranks only).
fn bench_extras(
    p: &MlwePreset,
    args: &MlweArgs,
) -> Result<(Vec<Row>, Option<Row>), Box<dyn Error>> {
    let name = p.name;
    progress(format_args!("{name}: rotation and conversion keys"));
    let ctx: Arc<MlweContext> = p.parameters().build()?;
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let sk = ctx.generate_secret_key_with(&mut rng)?;
    let eval = Evaluator::new(ctx.clone(), None)
        .with_rotation_keys(ctx.generate_rotation_keys_with(&sk, &[1], &mut rng)?)
        .with_hoisted_rotation_keys(ctx.generate_hoisted_rotation_keys_with(
            &sk,
            &[1],
            &mut rng,
        )?);
    let z = values(ctx.max_slots(), 9);
    let ct = ctx.encrypt_symmetric_with(&ctx.encode(&z)?, &sk, &mut rng)?;
    let mut rows = Vec::new();
    for k in 1..=8usize {
        progress(format_args!("{name}: {k} consecutive rotations"));
        let (mut tp, mut th) = (Vec::new(), Vec::new());
        for rep in 0..=args.reps {
            let t = Instant::now();
            let mut c = ct.clone();
            for _ in 0..k {
                c = eval.rotate(&c, 1)?;
            }
            let a = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let h = eval.rotate_chain_hoisted(&ct, &vec![1; k])?;
            let b = t.elapsed().as_secs_f64();
            if rep == 0 {
                let want: Vec<Complex64> = (0..z.len()).map(|i| z[(i + k) % z.len()]).collect();
                for (what, x) in [("plain", &c), ("hoisted", &h)] {
                    let bits = precision(&ctx.decrypt_decode(x, &sk)?, &want);
                    if bits < 20.0 {
                        return Err(format!("{name}: {k} {what} rotations: {bits:.1} bits").into());
                    }
                }
            } else {
                tp.push(a);
                th.push(b);
            }
        }
        let (a, b) = (median(tp), median(th));
        rows.push(vec![
            name.to_string(),
            k.to_string(),
            format!("{a:.3}"),
            format!("{b:.3}"),
            format!("{:.2}x", a / b),
        ]);
    }
    drop(eval);
    let r = ctx.rank();
    if !r.is_power_of_two() {
        return Ok((rows, None));
    }
    progress(format_args!(
        "{name}: the RLWE bridge at N = {}",
        r * ctx.n()
    ));
    let bridge = hekate::mlwe::RlweBridge::new(ctx.clone())?;
    let c = bridge.ckks().clone();
    let rsk = bridge.rlwe_secret_key(&sk)?;
    let ceval = CkksEvaluator::new(
        c.clone(),
        None,
        bridge.generate_trace_keys_with(&rsk, &mut rng),
    );
    let relin = ctx.generate_relinearization_key_with(&sk, RelinMethod::DPad, &mut rng)?;
    let meval = Evaluator::new(ctx.clone(), Some(relin));
    let prod = meval.rescale(&meval.mul(&ct, &ct)?)?;
    let zz: Vec<Complex64> = z.iter().map(|x| x * x).collect();
    let direct = precision(&ctx.decrypt_decode(&prod, &sk)?, &zz);
    let step = bridge.trace_rotations()[0];
    let rl = bridge.mlwe_to_rlwe(&prod, &ceval)?;
    let via = precision(&c.decrypt_decode(&rl, &rsk)?, &zz);
    let (mut ks, mut emb, mut m2r, mut r2m) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for rep in 0..=args.reps {
        progress(format_args!(
            "{name}: conversions, round {rep} of {}",
            args.reps
        ));
        let e = bridge.embed(&prod)?;
        let t = Instant::now();
        let _ = ceval.rotate(&e, step)?;
        let a = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let _ = bridge.embed(&prod)?;
        let b = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let back = bridge.mlwe_to_rlwe(&prod, &ceval)?;
        let cc = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let _ = bridge.rlwe_to_mlwe(&back)?;
        let d = t.elapsed().as_secs_f64();
        if rep > 0 {
            ks.push(a);
            emb.push(b);
            m2r.push(cc);
            r2m.push(d);
        }
    }
    let (ks, emb, m2r, r2m) = (median(ks), median(emb), median(m2r), median(r2m));
    let paper = match (p.log_n + r.trailing_zeros(), r) {
        (15, 2) => Some((1.03, 0.06)),
        (15, 4) => Some((2.11, 0.06)),
        (16, 2) => Some((1.02, 0.03)),
        (16, 4) => Some((1.99, 0.02)),
        _ => None,
    };
    let pm = |x: Option<f64>| x.map_or(String::new(), |v| format!(" ({v:.2}x)"));
    let conv = vec![
        name.to_string(),
        format!("2^{}", (r * ctx.n()).trailing_zeros()),
        r.to_string(),
        format!("{ks:.3}"),
        format!("{emb:.4}"),
        format!("{m2r:.3}"),
        format!("{r2m:.4}"),
        format!("{:.3}x", emb / ks),
        format!("{:.2}x{}", m2r / ks, pm(paper.map(|p| p.0))),
        format!("{:.3}x{}", r2m / ks, pm(paper.map(|p| p.1))),
        format!("{via:.1} ({direct:.1})"),
    ];
    Ok((rows, Some(conv)))
}

/// The rank schedule of a set for Fig. 3: `(rank, first level it is used at)`, ranks
/// `r, r-1, ..` while some level keeps the lower rank's margin below the interpolated
/// 128-bit bound at least the set's own at the top.
fn squaring_schedule(ctx: &MlweContext) -> Vec<(usize, usize)> {
    use hekate::params::security::interpolated_max_log_q;
    let bound = |dim: usize| interpolated_max_log_q(dim, SecurityLevel::Bits128).unwrap_or(0.0);
    let (r, n, l) = (ctx.rank(), ctx.n(), ctx.max_level());
    let q: Vec<f64> = ctx.q_primes().iter().map(|&x| (x as f64).log2()).collect();
    let log_q = |lv: usize| q[..=lv].iter().sum::<f64>();
    let top = bound(r * n) - (log_q(l) + ctx.log_p());
    let mut out = vec![(r, l)];
    for rank in (1..r).rev() {
        match (0..=l)
            .rev()
            .find(|&lv| bound(rank * n) - (log_q(lv) + ctx.log_p()) >= top)
        {
            Some(lv) if lv >= 1 => out.push((rank, lv)),
            _ => break,
        }
    }
    out
}

/// Fig. 3 for one set: cumulative repeated squaring with rank reduction.
fn bench_squaring(p: &MlwePreset) -> Result<Row, Box<dyn Error>> {
    let name = p.name;
    let ctx: Arc<MlweContext> = p.parameters().build()?;
    let schedule = squaring_schedule(&ctx);
    let mut rng = ChaCha20Rng::seed_from_u64(6);
    let sk = ctx.generate_secret_key_with(&mut rng)?;
    let z: Vec<Complex64> = values(ctx.max_slots(), 11)
        .into_iter()
        .map(|v| Complex64::new(0.9 + 0.1 * v.re, 0.0))
        .collect();
    let ct = ctx.encrypt_symmetric_with(&ctx.encode(&z)?, &sk, &mut rng)?;
    let delta = ctx.default_scale().clone();
    let mut times = Vec::new();
    for (method, label, reduce) in [
        (RelinMethod::ModHe, "ModHE", true),
        (RelinMethod::DPad, "DPad", true),
        (RelinMethod::ModHe, "ModHE without reduction", false),
    ] {
        progress(format_args!("{name}: squaring keys for {label}"));
        let mut eval = Evaluator::new(
            ctx.clone(),
            Some(ctx.generate_relinearization_key_with(&sk, method, &mut rng)?),
        );
        if reduce {
            for w in schedule.windows(2) {
                let ((from, _), (to, lv)) = (w[0], w[1]);
                eval = eval
                    .with_rank_reduction_key(
                        ctx.generate_rank_reduction_key_with(&sk, from, to, lv, &mut rng)?,
                    )
                    .with_relinearization_key(ctx.generate_relinearization_key_at_with(
                        &sk,
                        method,
                        to,
                        lv - 1,
                        &mut rng,
                    )?);
            }
        }
        progress(format_args!("{name}: squaring with {label}"));
        let t = Instant::now();
        let mut c = ct.clone();
        while c.level() > 0 {
            let mut prod = eval.mul(&c, &c)?;
            if reduce {
                prod = eval.reduce_rank_if_secure(&prod)?;
            }
            c = eval.rescale(&prod)?;
            c.set_scale(delta.clone());
        }
        times.push(t.elapsed().as_secs_f64());
    }
    // RNS-CKKS at N = r·n (power-of-two ranks).
    let r = ctx.rank();
    let rlwe = if r.is_power_of_two() {
        progress(format_args!("{name}: squaring with RNS-CKKS"));
        let (c, csk, ev) = rlwe_baseline(&ctx, SecretDistribution::Ternary, &mut rng)?;
        let w: Vec<Complex64> = values(c.max_slots(), 12)
            .into_iter()
            .map(|v| Complex64::new(0.9 + 0.1 * v.re, 0.0))
            .collect();
        let mut x = c.encrypt_symmetric_with(&c.encode(&w)?, &csk, &mut rng)?;
        let t = Instant::now();
        while x.level() > 0 {
            x = ev.rescale(&ev.mul(&x, &x)?)?;
            x.set_scale(c.default_scale().clone());
        }
        Some(t.elapsed().as_secs_f64())
    } else {
        None
    };
    let sched = schedule
        .iter()
        .map(|(r, lv)| format!("{r} ({lv})"))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(vec![
        name.to_string(),
        sched,
        rlwe.map_or("—".into(), |t| format!("{t:.2}")),
        format!("{:.2}", times[0]),
        format!("{:.2}", times[1]),
        format!("{:.0}%", 100.0 * times[1] / times[0]),
        rlwe.map_or("—".into(), |t| format!("{:.0}%", 100.0 * times[1] / t)),
        format!("{:.2}", times[2]),
    ])
}

/// The RNS-CKKS baseline of a set: hekate's CKKS at `N = r·n` over the same `Q` and `P`
/// with the paper's `k = 1` (`dnum = L + 1`), scale 2^40, a secret key of `secret` and an
/// evaluator with a relinearization key.
fn rlwe_baseline(
    ctx: &MlweContext,
    secret: SecretDistribution,
    rng: &mut ChaCha20Rng,
) -> Result<
    (
        Arc<hekate::ckks::CkksContext>,
        hekate::rlwe::SecretKey,
        CkksEvaluator,
    ),
    Box<dyn Error>,
> {
    let c = CkksParameters::new((ctx.rank() * ctx.n()).trailing_zeros())
        .q_primes(&ctx.q_primes())
        .p_primes(&ctx.p_primes())
        .dnum(ctx.max_level() + 1)
        .log_scale(40)
        .secret(secret)
        .security(SecurityLevel::NotChecked)
        .build()?;
    let csk = c.generate_secret_key_with(rng);
    let ev = CkksEvaluator::new(
        c.clone(),
        Some(c.generate_relinearization_key_with(&csk, rng)),
        Default::default(),
    );
    Ok((c, csk, ev))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hekate::mlwe::MlweParameters;

    /// The ceiling is the measured precision of a product whose other errors are small:
    /// small inputs leave the rescale's rounding dominant (with a sparse secret, and with
    /// a dense one whose `Σ ||s_i||^2` term is larger still), and the mean `-log2` of the
    /// slot error then sits at the formula within 0.3 bits.
    #[test]
    fn rescale_ceiling_matches_measured_products() {
        for secret in [
            SecretDistribution::HammingWeight(16),
            SecretDistribution::Ternary,
        ] {
            let ctx = MlweParameters::new(11, 2)
                .log_q(&[60, 40])
                .log_p(&[60])
                .log_scale(40)
                .secret(secret)
                .security(SecurityLevel::NotChecked)
                .build()
                .unwrap();
            let mut rng = ChaCha20Rng::seed_from_u64(7);
            let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
            let rlk = ctx
                .generate_relinearization_key_with(&sk, RelinMethod::ModHe, &mut rng)
                .unwrap();
            let ev = Evaluator::new(ctx.clone(), Some(rlk));
            let slots = ctx.max_slots();
            let (z1, z2) = (values_within(slots, 1, 0.05), values_within(slots, 2, 0.05));
            let want: Vec<Complex64> = z1.iter().zip(&z2).map(|(a, b)| a * b).collect();
            let a = ctx
                .encrypt_symmetric_with(&ctx.encode(&z1).unwrap(), &sk, &mut rng)
                .unwrap();
            let b = ctx
                .encrypt_symmetric_with(&ctx.encode(&z2).unwrap(), &sk, &mut rng)
                .unwrap();
            let out = ev.rescale(&ev.mul(&a, &b).unwrap()).unwrap();
            let bits = precision(&ctx.decrypt_decode(&out, &sk).unwrap(), &want);
            let weight = 2.0 * 2048.0 * secret.variance(2048);
            let ceiling = rescale_ceiling_bits(out.scale().log2(), ctx.n(), weight);
            assert!(
                (bits - ceiling).abs() < 0.3,
                "{secret:?}: {bits:.2} bits measured, ceiling {ceiling:.2}"
            );
        }
    }
}
