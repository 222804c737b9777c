//! `hekate params`: parameter tables and selection.
//!
//! * `hekate params list` ([`list`]): every CKKS and FHEW preset, with its security.
//! * `hekate params ckks` ([`ckks`]): one CKKS chain — primes, `log QP`, the
//!   HomomorphicEncryption.org verdict at 128/192/256 bits, slots, levels, engine, key and
//!   ciphertext sizes.
//! * `hekate params fhew` ([`fhew`]): one FHEW set and method — moduli, gadgets, security,
//!   predicted noise and failure, key sizes.
//! * `hekate params bootstrap` runs seed 003's Algorithm 8
//!   ([`hekate::ckks::bootstrap::search`]) and prints the chosen configuration and the
//!   runner-ups as a markdown table, the pick as Rust code and as JSON; `--verify` builds
//!   the pick, generates its keys and runs one bootstrap, printing measured against
//!   predicted precision, time and key memory. Predictions come from the search's models
//!   (operation counts times measured unit costs, a noise model), not from a run.
//!
//! `list`, `ckks` and `fhew` take `--format markdown|json`; `ckks` and `fhew` exit with
//! code 2 on parameters below `--security` unless `--allow-insecure`.

/// `hekate params ckks`.
pub mod ckks;
/// `hekate params fhew`.
pub mod fhew;
/// `hekate params list`.
pub mod list;

use crate::bench::bootstrap::{precision, time_stages, Measure};
use crate::bench::{fmt_mib, init_threads, time_once, Table};
use crate::progress::Bar;
use crate::rng::SplitMix64;
use crate::Outcome;
use clap::{Args, Subcommand, ValueEnum};
use hekate::ckks::bootstrap::search::{scale_costs, search, Candidate, SearchInputs, Security};
use hekate::ckks::bootstrap::{generate_keys_with, Bootstrapper};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::rlwe::keyswitch::cost::UnitCosts;
use hekate::rlwe::SecretDistribution;
use std::error::Error;
use std::ops::RangeInclusive;
use std::time::Duration;

/// The output format of `params list|ckks|fhew` and `inspect`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Markdown tables.
    #[default]
    Markdown,
    /// One JSON object.
    Json,
}

/// A `--security` level: 128, 192, 256 or none.
pub fn parse_level(s: &str) -> Result<SecurityLevel, String> {
    match s {
        "128" => Ok(SecurityLevel::Bits128),
        "192" => Ok(SecurityLevel::Bits192),
        "256" => Ok(SecurityLevel::Bits256),
        "none" => Ok(SecurityLevel::NotChecked),
        _ => Err(format!("{s:?}: use 128, 192, 256 or none")),
    }
}

/// The areas of `hekate params`.
#[derive(Debug, Subcommand)]
pub enum ParamsArea {
    /// Every CKKS preset and every FHEW preset, with its security.
    List(list::ListArgs),
    /// One CKKS chain: N, primes, log QP, the HomomorphicEncryption.org verdict at
    /// 128/192/256 bits, slots, max level, key-switching engine, estimated key and
    /// ciphertext MiB. Exits 2 below --security unless --allow-insecure.
    #[command(after_help = crate::EXIT_CODES)]
    Ckks(ckks::CkksArgs),
    /// One FHEW preset and blind-rotation method: n, N, Q, gadget bases and digits, the
    /// library's security estimate, predicted σ_acc² and gate failure, key MiB (of a key
    /// generated here). Exits 2 below --security unless --allow-insecure.
    #[command(after_help = crate::EXIT_CODES)]
    Fhew(fhew::FhewArgs),
    /// CKKS bootstrapping parameters (seed 003 Algorithm 8, automated): searches the
    /// message ratio, EvalMod, the DFT depths, the prime sizes, dnum and P for the fastest
    /// predicted bootstrap meeting the precision, failure, security and key-memory targets.
    Bootstrap(BootstrapArgs),
}

/// Options of `hekate params bootstrap`.
#[derive(Debug, Args)]
pub struct BootstrapArgs {
    /// log2 N, the ring degree
    #[arg(long, default_value_t = 16)]
    log_n: u32,
    /// n, the slot count of the bootstrapped ciphertexts [default: N/2]
    #[arg(long)]
    slots: Option<usize>,
    /// The main secret: ternary (uniform) or hw:H (fixed Hamming weight H)
    #[arg(long, default_value = "ternary", value_parser = parse_secret)]
    secret: SecretDistribution,
    /// Sparse-secret encapsulation: the ephemeral secret's Hamming weight h̃ (e.g. 32)
    #[arg(long, value_name = "H")]
    sse: Option<usize>,
    /// log2 Δ, the scale of the messages (and the size of each residual prime)
    #[arg(long, default_value_t = 40)]
    log_scale: u32,
    /// δ, the target mean precision of a bootstrap's output, in bits
    #[arg(long, default_value_t = 20.0)]
    precision: f64,
    /// log2 κ, the largest failure probability of one bootstrap
    #[arg(long, default_value_t = -64.0, allow_hyphen_values = true)]
    failure: f64,
    /// Security: 128 (hekate's table; Table 3's fits for sparse secrets) or none
    #[arg(long, default_value = "128", value_parser = parse_security)]
    security: Security,
    /// An explicit bound on log QP instead of --security (no security claim)
    #[arg(long, value_name = "BITS")]
    max_log_qp: Option<f64>,
    /// The levels wanted after a bootstrap
    #[arg(long, default_value_t = 4)]
    levels_left: usize,
    /// The key-memory cap, in GiB
    #[arg(long, value_name = "GIB")]
    max_key_gib: Option<f64>,
    /// The ρ_CtS searched: A-B or one value
    #[arg(long, default_value = "2-5", value_parser = parse_range)]
    cts_levels: RangeInclusive<usize>,
    /// The ρ_StC searched: A-B or one value
    #[arg(long, default_value = "2-5", value_parser = parse_range)]
    stc_levels: RangeInclusive<usize>,
    /// Measure the unit costs at 2^K instead of N and scale them to N (quicker, rougher)
    #[arg(long, value_name = "K")]
    calibrate_log_n: Option<u32>,
    /// Build the pick, generate its keys and run one bootstrap (single thread), printing
    /// measured against predicted figures (at N = 2^16: minutes and about 10 GiB)
    #[arg(long)]
    verify: bool,
}

fn parse_secret(s: &str) -> Result<SecretDistribution, String> {
    match s {
        "ternary" => Ok(SecretDistribution::Ternary),
        _ => s
            .strip_prefix("hw:")
            .and_then(|h| h.parse().ok())
            .filter(|&h| h > 0)
            .map(SecretDistribution::HammingWeight)
            .ok_or_else(|| format!("{s:?}: use ternary or hw:H (H a positive weight)")),
    }
}

fn parse_security(s: &str) -> Result<Security, String> {
    match s {
        "128" => Ok(Security::Bits128),
        "none" => Ok(Security::NotChecked),
        _ => Err(format!("{s:?}: use 128 or none")),
    }
}

fn parse_range(s: &str) -> Result<RangeInclusive<usize>, String> {
    let bad = || format!("{s:?}: use A-B or one value, e.g. 2-5 or 3");
    let num = |t: &str| t.trim().parse::<usize>().map_err(|_| bad());
    match s.split_once('-') {
        Some((a, b)) if num(a)? <= num(b)? => Ok(num(a)?..=num(b)?),
        Some(_) => Err(bad()),
        None => num(s).map(|v| v..=v),
    }
}

/// Runs one `hekate params` area.
pub fn run(area: ParamsArea) -> Result<Outcome, Box<dyn Error>> {
    match area {
        ParamsArea::List(args) => list::run(args),
        ParamsArea::Ckks(args) => ckks::run(args),
        ParamsArea::Fhew(args) => fhew::run(args),
        ParamsArea::Bootstrap(args) => bootstrap(args),
    }
}

impl BootstrapArgs {
    fn inputs(&self) -> Result<SearchInputs, Box<dyn Error>> {
        if !(10..=17).contains(&self.log_n) {
            return Err(format!("--log-n {} must be in 10 ..= 17", self.log_n).into());
        }
        let n = 1usize << self.log_n;
        let mut i = SearchInputs::new(self.log_n, self.slots.unwrap_or(n / 2), self.secret);
        i.ephemeral_weight = self.sse;
        i.log_scale = self.log_scale;
        i.precision = self.precision;
        i.log2_failure = self.failure;
        i.security = self.max_log_qp.map_or(self.security, Security::MaxLogQp);
        i.levels_left = self.levels_left;
        i.max_key_bytes = match self.max_key_gib {
            Some(g) if g.is_finite() && g > 0.0 => Some((g * f64::from(1u32 << 30)) as usize),
            Some(g) => return Err(format!("--max-key-gib {g} must be positive").into()),
            None => None,
        };
        (i.cts_levels, i.stc_levels) = (self.cts_levels.clone(), self.stc_levels.clone());
        Ok(i)
    }
}

fn secret_label(i: &SearchInputs) -> String {
    let main = match i.secret {
        SecretDistribution::HammingWeight(h) => format!("h = {h}"),
        _ => "uniform ternary".into(),
    };
    match i.ephemeral_weight {
        Some(h) => format!("{main}, encapsulated (h̃ = {h})"),
        None => main,
    }
}

/// The chain as `q_0 + ℓ·Δ / StC / EvalMod / CtS` bit counts.
fn chain_label(c: &Candidate) -> String {
    format!(
        "{} + {}·{} / {}·{} / {}·{} / {}·{}",
        c.residual[0],
        c.levels_left(),
        c.residual.get(1).copied().unwrap_or(0),
        c.stc_levels,
        c.stc_bits,
        c.eval_mod_depth,
        c.eval_mod_bits,
        c.cts_levels,
        c.cts_bits
    )
}

fn table(found: &[Candidate]) -> Table {
    let mut t = Table::new(
        [
            "#",
            "chain: q0 + left / StC / EvalMod / CtS",
            "P",
            "dnum",
            "log QP",
            "R",
            "K",
            "d",
            "r",
            "key switches",
            "Galois keys",
            "keys MiB (model)",
            "time s (model)",
            "bits (model)",
        ],
        3,
    );
    for (rank, c) in found.iter().enumerate() {
        t.push(vec![
            if rank == 0 {
                "pick".into()
            } else {
                rank.to_string()
            },
            chain_label(c),
            format!("{}·{}", c.log_p.len(), c.log_p[0]),
            c.dnum.to_string(),
            format!("{:.0}", c.log_qp),
            format!("2^{}", c.log_message_ratio),
            c.k.to_string(),
            c.degree.to_string(),
            c.double_angles.to_string(),
            c.key_switches.to_string(),
            c.galois_keys.to_string(),
            fmt_mib(c.key_bytes),
            format!("{:.2}", c.predicted_seconds),
            format!("{:.1}", c.predicted_precision),
        ]);
    }
    t
}

fn bootstrap(args: BootstrapArgs) -> Result<Outcome, Box<dyn Error>> {
    let inputs = args.inputs()?;
    if args.verify {
        // One thread, as the predictions are, for the calibration and the bootstrap.
        init_threads(1)?;
    }
    let n = 1usize << inputs.log_n;
    let costs = match args.calibrate_log_n {
        Some(k) if (10..=17).contains(&k) => scale_costs(&UnitCosts::for_process(1 << k), n),
        Some(k) => return Err(format!("--calibrate-log-n {k} must be in 10 ..= 17").into()),
        None => UnitCosts::for_process(n),
    };
    let (found, took) = time_once(|| search(&inputs, &costs));
    let found = found?;
    let pick = &found[0];
    println!(
        "# hekate params bootstrap: N = 2^{}, n = {}, {}, Δ = 2^{}, δ = {} bits, κ <= 2^{}, {} \
         levels left{}{}\n",
        inputs.log_n,
        inputs.slots,
        secret_label(&inputs),
        inputs.log_scale,
        inputs.precision,
        inputs.log2_failure,
        inputs.levels_left,
        pick.max_log_qp
            .map_or(", no security bound".into(), |b| format!(
                ", log QP <= {b:.0}"
            )),
        inputs
            .max_key_bytes
            .map_or(String::new(), |b| format!(", keys <= {} MiB", fmt_mib(b))),
    );
    println!(
        "Searched in {:.1} s. Time, precision and key memory are predictions of the models in \
         `hekate::ckks::bootstrap::search` (unit costs measured at N = 2^{}{}, one thread), \
         not measurements; K = {} gives a failure probability of 2^{:.1}.\n",
        took.as_secs_f64(),
        args.calibrate_log_n.unwrap_or(inputs.log_n),
        if args.calibrate_log_n.is_some() {
            " and scaled"
        } else {
            ""
        },
        pick.k,
        pick.failure_log2
    );
    print!("{}", table(&found).to_markdown());
    println!(
        "\n## The pick as Rust\n\n```rust\n{}```\n",
        pick.rust_code(&inputs)
    );
    println!(
        "## The pick as JSON\n\n```json\n{}\n```",
        pick.to_json(&inputs)
    );
    if args.verify {
        verify(&inputs, pick)?;
    }
    Ok(Outcome::Success)
}

/// Builds the pick, generates its keys and runs one bootstrap stage by stage (progress on
/// stderr), then prints measured against predicted figures.
fn verify(inputs: &SearchInputs, pick: &Candidate) -> Result<(), Box<dyn Error>> {
    let config = pick.config(inputs)?;
    let ctx = pick.parameters(inputs).build()?;
    let mut rng = ChaCha20Rng::seed_from_u64(0x5041_5241_4D53);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let bar = Bar::new(0, "keys");
    let (keys, keygen) = time_once(|| {
        generate_keys_with(&ctx, &config, &sk, &mut rng, |done, total| {
            bar.set(done, total)
        })
    });
    drop(bar);
    let keys = keys?;
    crate::progress::note(format!("  keys generated in {:.1} s", keygen.as_secs_f64()));
    let key_bytes = keys.size_bytes();
    let boot = Bootstrapper::new(ctx.clone(), config, keys)?;
    let z = SplitMix64::new(0x4845_4B41_5445).complexes(inputs.slots);
    let pt = ctx.encode_at(&z, inputs.slots, 1, ctx.default_scale())?;
    let ct = ctx.encrypt_symmetric_with(&pt, &sk, &mut rng)?;
    let bar = Bar::new(5, "bootstrap");
    let (times, out) = time_stages(&boot, &ct, |i| bar.set(i, 5))?;
    drop(bar);
    // ScaleDown to SubSum as one stage, as the model predicts it.
    let stage = [times[0] + times[1], times[2], times[3], times[4]];
    let total: Duration = stage.iter().sum();
    crate::progress::note(format!("  bootstrapped in {:.2} s", total.as_secs_f64()));
    let prec = precision(&ctx.decrypt_decode(&out, &sk)?, &z, Measure::Modulus);
    let mut t = Table::new(["", "predicted (model)", "measured"], 1);
    let names = [
        "ScaleDown to SubSum",
        "CoeffsToSlots",
        "EvalMod",
        "SlotsToCoeffs",
    ];
    for ((name, p), m) in names.iter().zip(pick.predicted_stage_seconds).zip(stage) {
        t.push(vec![
            format!("{name} s"),
            format!("{p:.3}"),
            format!("{:.3}", m.as_secs_f64()),
        ]);
    }
    t.push(vec![
        "bootstrap s (one thread)".into(),
        format!("{:.2}", pick.predicted_seconds),
        format!("{:.2}", total.as_secs_f64()),
    ]);
    t.push(vec![
        "precision, mean bits".into(),
        format!("{:.1}", pick.predicted_precision),
        format!("{:.1}", prec.mean),
    ]);
    t.push(vec![
        "precision, worst slot bits".into(),
        "-".into(),
        format!("{:.1}", prec.min),
    ]);
    t.push(vec![
        "key MiB".into(),
        fmt_mib(pick.key_bytes),
        fmt_mib(key_bytes),
    ]);
    t.push(vec![
        "log QP".into(),
        format!("{:.1}", pick.log_qp),
        format!("{:.1}", ctx.log_qp()),
    ]);
    println!("\n## --verify: one bootstrap at N = 2^{}\n", inputs.log_n);
    print!("{}", t.to_markdown());
    Ok(())
}
