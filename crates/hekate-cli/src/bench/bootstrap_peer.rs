//! `hekate bench bootstrap-peer`: hekate's CKKS bootstrapping against Lattigo's, configured
//! identically, round by round.
//!
//! The peer is `scripts/peers/lattigo` (`boot -set hekate-<preset>`): it mirrors a preset of
//! `hekate bench bootstrap` in Lattigo v6 (same ring, slots, secret, chain, special primes,
//! scale, message ratio, EvalMod interval, degree and double angles, no ephemeral secret),
//! bootstraps the same kind of input (`a + bi`, `a`, `b` uniform in `(-1, 1)`, at level 1)
//! and prints one JSON line: its median time, its precision and the time of each stage.
//!
//! hekate's keys and bootstrapper are built once; each round then times `--reps` hekate
//! bootstraps and runs one peer process (which generates its own keys and times `--reps`
//! bootstraps), one after the other, so both run under the same load. The ratio of each
//! round is hekate's median over the peer's; the summary gives their median, and per stage
//! where both report stages.

use super::bootstrap::{
    config_of, prepare, preset, secret_label, time_bootstraps, DftPlans, Input, Prepared, Preset,
    Timing,
};
use super::{header, init_threads, Table};
use crate::progress::Bar;
use crate::{say, Outcome};
use clap::Args;
use hekate::ckks::bootstrap::BootstrapConfig;
use hekate::rlwe::keyswitch::KeySwitchMethod;
use std::error::Error;
use std::process::{Command, Stdio};

/// Options of `hekate bench bootstrap-peer`.
#[derive(Debug, Args)]
pub struct BootstrapPeerArgs {
    /// The preset of `hekate bench bootstrap` (quick-dense, quick-sparse, quick-encapsulated,
    /// dense, dense-encapsulated, lattigo-dense0, h192-encapsulated, or seed 003's set-i ...
    /// set-v); the peer runs its set `hekate-<preset>`. dense is N = 2^16: hekate then runs
    /// in a child process every round, so its keys (~9 GiB) are gone before the peer
    /// (~20 GiB) runs.
    #[arg(long, default_value = "quick-dense")]
    preset: String,
    /// Rounds.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Timed bootstraps per library and round (no warm-up on either side; the median is the
    /// round's time).
    #[arg(long, default_value_t = 1)]
    reps: usize,
    /// The peer's command, run with `sh -c` after appending `-set hekate-<preset> -reps R
    /// -warmup 0`; it must print one JSON line with `median_s` (see
    /// scripts/peers/lattigo/boot.go).
    #[arg(long, default_value = "/tmp/lattigo-peer boot")]
    peer: String,
    /// Threads: hekate's rayon pool and the peer's GOMAXPROCS.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Run hekate's side in a child process every round (`bench bootstrap`), so that only
    /// one library's keys are in memory at a time (always on for N >= 2^15).
    #[arg(long)]
    rebuild_keys: bool,
    /// Real inputs on both sides (a + 0i; the peer gets `-real`), each side's precision
    /// then the real part's error, as a real decode returns it (Lattigo's examples bootstrap
    /// real vectors); complex a + bi otherwise
    #[arg(long)]
    real: bool,
    /// The level both sides encrypt the input at (the peer gets `-level`): 1 leaves each
    /// ScaleDown a rescale; Lattigo 6.2 bootstraps seed 003's set V only from level 0
    #[arg(long, default_value_t = 1, value_name = "L")]
    input_level: usize,
}

/// What the peer reports for one round.
#[derive(Debug, Clone, PartialEq)]
struct PeerRecord {
    /// Median seconds of its bootstraps.
    median_s: f64,
    /// Precision in bits: `-log2` of the mean and of the largest absolute error.
    prec_mean: f64,
    prec_min: f64,
    /// Seconds per stage, in [`STAGES`] order, where it reports them.
    stages: Option<[f64; 4]>,
    /// Bit sizes of its chain and special primes, where it reports them.
    log_q: Option<Vec<u32>>,
    log_p: Option<Vec<u32>>,
}

/// The stages both libraries time: hekate's ScaleDown + ModRaise and SubSum against
/// Lattigo's ScaleDown and ModUp (which applies the trace), then CoeffsToSlots, EvalMod
/// (both halves) and SlotsToCoeffs.
const STAGES: [&str; 4] = [
    "ScaleDown+ModRaise+SubSum",
    "CoeffsToSlots",
    "EvalMod",
    "SlotsToCoeffs",
];

/// The raw text of the value of `key` in a flat JSON object `line` (the number, or the
/// array with its brackets). Enough for the peer's own output (Go's `json.Marshal`: no
/// spaces, unique keys); not a JSON parser.
fn json_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = &line[start..];
    let end = if rest.starts_with('[') {
        rest.find(']')? + 1
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    Some(&rest[..end])
}

fn json_number(line: &str, key: &str) -> Result<f64, String> {
    json_value(line, key)
        .ok_or_else(|| format!("the peer's JSON has no `{key}`"))?
        .parse()
        .map_err(|e| format!("the peer's `{key}` does not parse: {e}"))
}

fn json_bits(line: &str, key: &str) -> Option<Vec<u32>> {
    let v = json_value(line, key)?;
    v.strip_prefix('[')?
        .strip_suffix(']')?
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect()
}

/// Parses the peer's JSON line.
fn parse_record(line: &str) -> Result<PeerRecord, String> {
    let stage = |k: &str| json_number(line, k).ok();
    let stages = match (
        stage("scale_down"),
        stage("mod_up"),
        stage("coeffs_to_slots"),
        stage("eval_mod"),
        stage("slots_to_coeffs"),
    ) {
        (Some(a), Some(b), Some(c), Some(d), Some(e)) => Some([a + b, c, d, e]),
        _ => None,
    };
    Ok(PeerRecord {
        median_s: json_number(line, "median_s")?,
        prec_mean: json_number(line, "prec_bits_mean_err")?,
        prec_min: json_number(line, "prec_bits_max_err")?,
        stages,
        log_q: json_bits(line, "btp_logQ"),
        log_p: json_bits(line, "btp_logP"),
    })
}

/// Runs the peer once for `set` and parses the last JSON line it prints.
fn run_peer(
    command: &str,
    set: &str,
    reps: usize,
    threads: usize,
    input: Input,
) -> Result<PeerRecord, Box<dyn Error>> {
    let real = if input.real { " -real" } else { "" };
    let level = input.level;
    let full = format!("{command} -set {set} -reps {reps} -warmup 0 -level {level}{real}");
    let out = Command::new("sh")
        .arg("-c")
        .arg(&full)
        .env("GOMAXPROCS", threads.to_string())
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start the peer ({full}): {e}"))?;
    if !out.status.success() {
        return Err(format!("the peer ({full}) failed: {}", out.status).into());
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))
        .ok_or_else(|| format!("the peer ({full}) printed no JSON line"))?;
    Ok(parse_record(line.trim())?)
}

/// The median of a non-empty list.
fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// hekate's side of one round.
struct Round {
    total_s: f64,
    /// Seconds per stage, in [`STAGES`] order.
    stages: [f64; 4],
    prec_mean: f64,
    prec_min: f64,
}

impl Round {
    fn of(t: &Timing) -> Self {
        let s = t.stages.map(|s| s.median.as_secs_f64());
        Round {
            total_s: t.total.median.as_secs_f64(),
            stages: [s[0] + s[1], s[2], s[3], s[4]],
            prec_mean: t.precision.mean,
            prec_min: t.precision.min,
        }
    }
}

/// Runs `hekate bench bootstrap --presets <name>` in a child process (its memory is gone
/// when it exits) and reads its table row: the round, keygen s and setup s.
fn hekate_child(
    name: &str,
    reps: usize,
    threads: usize,
    input: Input,
) -> Result<(Round, f64, f64), Box<dyn Error>> {
    let exe = std::env::current_exe()?;
    let out = std::process::Command::new(exe)
        .args(["bench", "bootstrap", "--presets", name])
        .args(crate::progress::quiet().then_some("--quiet"))
        .args(input.real.then_some("--real"))
        .args([
            "--input-level",
            &input.level.to_string(),
            "--reps",
            &reps.to_string(),
            "--threads",
            &threads.to_string(),
        ])
        .stderr(std::process::Stdio::inherit())
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    parse_row(&text, name).ok_or_else(|| {
        format!(
            "hekate bench bootstrap --presets {name} (exit {:?}) printed no table row:\n{text}",
            out.status.code()
        )
        .into()
    })
}

/// The round, keygen s and setup s of the row of `name` in `bench bootstrap`'s table.
fn parse_row(text: &str, name: &str) -> Option<(Round, f64, f64)> {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let header = cells(text.lines().find(|l| l.starts_with("| preset"))?);
    let row = cells(
        text.lines()
            .find(|l| l.starts_with('|') && cells(l).first().map(String::as_str) == Some(name))?,
    );
    let get = |col: &str| -> Option<f64> {
        let i = header.iter().position(|h| h == col)?;
        row.get(i)?.parse().ok()
    };
    let ms = |col: &str| get(col).map(|x| x / 1e3);
    let round = Round {
        total_s: ms("total ms")?,
        stages: [
            ms("ScaleDown+ModRaise ms")? + ms("SubSum ms")?,
            ms("CtS ms")?,
            ms("EvalMod ms")?,
            ms("StC ms")?,
        ],
        prec_mean: get("prec mean")?,
        prec_min: get("prec min")?,
    };
    Some((round, get("keygen s")?, get("setup s")?))
}

/// What the report needs of hekate's side once its keys are gone.
struct Summary {
    preset: Preset,
    config: BootstrapConfig,
    chain: Vec<u32>,
    keygen: std::time::Duration,
    setup: std::time::Duration,
}

impl Summary {
    /// From a preset alone (hekate ran in a child process), with its reported times.
    fn of_preset(p: &Preset, keygen: f64, setup: f64) -> Result<Self, Box<dyn Error>> {
        let config = config_of(p, DftPlans::DEFAULT)?;
        let chain = p.chain_for(&config)?;
        Ok(Summary {
            preset: *p,
            config,
            chain,
            keygen: std::time::Duration::from_secs_f64(keygen),
            setup: std::time::Duration::from_secs_f64(setup),
        })
    }

    fn of(prep: &Prepared) -> Self {
        Summary {
            preset: prep.preset,
            config: prep.config.clone(),
            chain: prep.chain(),
            keygen: prep.keygen,
            setup: prep.setup,
        }
    }
}

/// The lines above the tables: both configurations, and whether the chains agree.
fn describe(prep: &Summary, set: &str, first: &PeerRecord) -> Vec<String> {
    let p = &prep.preset;
    let c = &prep.config;
    let chain = &prep.chain;
    let mut lines = vec![
        format!(
            "- hekate {}: N = 2^{}, {} slots, secret {}, log Q bits {chain:?}, log P bits {:?}, \
             scale 2^{}; K = {} (interpolation on [-{}, {}]), d = {}, r = {}, message ratio 2^{}",
            p.name,
            p.log_n,
            p.slots,
            secret_label(p.secret),
            p.log_p,
            p.log_scale,
            c.k,
            c.k + 1,
            c.k + 1,
            c.eval_mod.polynomial().degree(),
            c.eval_mod.double_angles(),
            c.log_message_ratio,
        ),
        format!(
            "- peer `{set}`: log Q bits {}, log P bits {}",
            first
                .log_q
                .as_ref()
                .map_or("(not reported)".into(), |q| format!("{q:?}")),
            first
                .log_p
                .as_ref()
                .map_or("(not reported)".into(), |q| format!("{q:?}")),
        ),
    ];
    let same =
        first.log_q.as_deref() == Some(&chain[..]) && first.log_p.as_deref() == Some(p.log_p);
    lines.push(format!(
        "- chains: {}",
        if same {
            "the same bit sizes"
        } else {
            "DIFFERENT (or not reported): the comparison is not like for like"
        }
    ));
    lines
}

/// Runs the benchmark.
pub fn run(args: BootstrapPeerArgs) -> Result<Outcome, Box<dyn Error>> {
    if args.rounds == 0 || args.reps == 0 {
        return Err("--rounds and --reps must be at least 1".into());
    }
    let p = preset(&args.preset)?;
    let set = format!("hekate-{}", p.name);
    init_threads(args.threads)?;
    crate::progress::note(format!(
        "hekate bench bootstrap-peer: {} against `{} -set {set}`, {} round(s) of {} rep(s), \
         {} thread(s)",
        p.name, args.peer, args.rounds, args.reps, args.threads
    ));
    // At N >= 2^15 (or asked), hekate runs in a child process per round: its keys leave
    // memory before the peer's arrive.
    let rebuild = args.rebuild_keys || p.log_n >= 15;
    let input = Input {
        real: args.real,
        level: args.input_level,
    };
    let kept = if rebuild {
        None
    } else {
        Some(prepare(
            &p,
            DftPlans::DEFAULT,
            KeySwitchMethod::Hybrid,
            input,
        )?)
    };
    let mut summary = kept.as_ref().map(Summary::of);

    let mut table = Table::new(
        [
            "round",
            "hekate total s",
            "Lattigo total s",
            "ratio",
            "hekate prec mean/min",
            "Lattigo prec mean/min",
        ],
        1,
    )
    .titled("rounds");
    let mut ratios = Vec::with_capacity(args.rounds);
    let mut stage_ratios = vec![Vec::new(); STAGES.len()];
    let mut stage_secs = vec![(Vec::new(), Vec::new()); STAGES.len()];
    let mut first = None;
    let bar = Bar::new(args.rounds as u64, "rounds");
    for round in 1..=args.rounds {
        let ours = match &kept {
            Some(prep) => Round::of(&time_bootstraps(prep, args.reps)?),
            None => {
                let (r, keygen, setup) = hekate_child(p.name, args.reps, args.threads, input)?;
                summary = Some(Summary::of_preset(&p, keygen, setup)?);
                r
            }
        };
        crate::progress::note(format!("  round {round}: peer {set}"));
        let theirs = run_peer(&args.peer, &set, args.reps, args.threads, input)?;
        let mine = ours.total_s;
        let ratio = mine / theirs.median_s;
        ratios.push(ratio);
        if let Some(ts) = theirs.stages {
            for (i, (&h, &l)) in ours.stages.iter().zip(&ts).enumerate() {
                stage_ratios[i].push(h / l);
                stage_secs[i].0.push(h);
                stage_secs[i].1.push(l);
            }
        }

        table.push(vec![
            round.to_string(),
            format!("{mine:.3}"),
            format!("{:.3}", theirs.median_s),
            format!("{ratio:.3}"),
            format!("{:.1}/{:.1}", ours.prec_mean, ours.prec_min),
            format!("{:.1}/{:.1}", theirs.prec_mean, theirs.prec_min),
        ]);
        first.get_or_insert(theirs);
        bar.inc(1);
    }
    drop(bar);
    let first = first.expect("at least one round");
    let prep = summary.expect("at least one round");

    say!("{}", header("bootstrap-peer", args.threads));
    say!();
    for line in describe(&prep, &set, &first) {
        say!("{line}");
    }
    say!(
        "- hekate keygen {:.2} s, setup {:.2} s ({}); the peer keys and sets up in every \
         round. Times: the median of {} bootstrap(s) per library and round, no warm-up; \
         ratio: hekate / Lattigo. prec: -log2 of the mean and of the largest absolute error \
         over the slots; inputs {}, encrypted at level {}.",
        prep.keygen.as_secs_f64(),
        prep.setup.as_secs_f64(),
        if rebuild {
            "in a child process every round, gone before the peer runs; the last round's"
        } else {
            "once"
        },
        args.reps,
        if args.real {
            "a + 0i on both sides, the error of the real part (a real decode)"
        } else {
            "a + bi on both sides, the error of the complex slot"
        },
        input.level
    );
    say!();
    table.print();
    say!();
    say!(
        "median ratio hekate / Lattigo over {} round(s): {:.3}",
        ratios.len(),
        median(&ratios)
    );
    if stage_ratios[0].len() == args.rounds {
        say!();
        let mut stages = Table::new(
            ["stage", "hekate s", "Lattigo s", "ratio (median per round)"],
            1,
        )
        .titled("stages");
        for (i, name) in STAGES.iter().enumerate() {
            stages.push(vec![
                name.to_string(),
                format!("{:.4}", median(&stage_secs[i].0)),
                format!("{:.4}", median(&stage_secs[i].1)),
                format!("{:.3}", median(&stage_ratios[i])),
            ]);
        }
        stages.print();
        say!();
        say!(
            "Stages: hekate's, timed after each rep (medians over reps, then over rounds); \
             Lattigo's, once per round after its timed bootstraps (medians over rounds)."
        );
    }
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_a_row_of_bench_bootstrap() {
        let text = "header\n| preset | keygen s | setup s | ScaleDown+ModRaise ms | SubSum ms | CtS ms | EvalMod ms | StC ms | total ms | prec mean | prec min |\n| :-- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |\n| dense | 17.7 | 4.41 | 30.2 | 1.97 | 3207 | 4931 | 903 | 10836 | 15.1 | 13.2 |\n";
        let (r, keygen, setup) = parse_row(text, "dense").unwrap();
        assert_eq!((keygen, setup), (17.7, 4.41));
        assert!((r.total_s - 10.836).abs() < 1e-9);
        assert!((r.stages[0] - 0.03217).abs() < 1e-9 && (r.stages[2] - 4.931).abs() < 1e-9);
        assert_eq!((r.prec_mean, r.prec_min), (15.1, 13.2));
        assert!(parse_row(text, "quick-dense").is_none());
        assert!(parse_row("no table", "dense").is_none());
    }

    use super::*;

    const LINE: &str = r#"{"K":18,"btp_logP":[61,61],"btp_logQ":[60,40,42],"median_s":0.25,"prec_bits_max_err":16.5,"prec_bits_mean_err":17.25,"set":"hekate-quick-sparse x","stages_s":{"coeffs_to_slots":0.07,"eval_mod":0.1,"mod_up":0.06,"scale_down":0.01,"slots_to_coeffs":0.02}}"#;

    #[test]
    fn parses_the_peer_line() {
        let r = parse_record(LINE).unwrap();
        assert_eq!(r.median_s, 0.25);
        assert_eq!((r.prec_mean, r.prec_min), (17.25, 16.5));
        let s = r.stages.unwrap();
        assert!((s[0] - 0.07).abs() < 1e-12 && s[1] == 0.07 && s[2] == 0.1 && s[3] == 0.02);
        assert_eq!(r.log_q.unwrap(), [60, 40, 42]);
        assert_eq!(r.log_p.unwrap(), [61, 61]);
    }

    #[test]
    fn missing_fields_are_reported() {
        let e = parse_record(r#"{"prec_bits_mean_err":1}"#).unwrap_err();
        assert!(e.contains("median_s"), "{e}");
        let r = parse_record(r#"{"median_s":2,"prec_bits_mean_err":1,"prec_bits_max_err":0.5}"#)
            .unwrap();
        assert!(r.stages.is_none() && r.log_q.is_none());
    }

    /// A peer that fails, or prints no JSON, is a clear error; one that prints a line is
    /// parsed, with the set and reps appended to its command.
    #[test]
    fn peer_processes() {
        let complex = |level| Input { real: false, level };
        let err = |cmd: &str| {
            run_peer(cmd, "s", 1, 1, complex(1))
                .unwrap_err()
                .to_string()
        };
        assert!(err("exit 3 ||").contains("failed"));
        assert!(err("echo hello; true").contains("no JSON line"));
        // `f -set x -reps 4 -warmup 0 -level L`: $4 is the reps, $6 the warm-up count, $8
        // the level.
        let cmd = r#"f() { echo "{\"median_s\":$GOMAXPROCS,\"prec_bits_mean_err\":$4,\"prec_bits_max_err\":$8}"; }; f"#;
        let r = run_peer(cmd, "x", 4, 2, complex(3)).unwrap();
        assert_eq!((r.median_s, r.prec_mean, r.prec_min), (2.0, 4.0, 3.0));
        // Real inputs append `-real` ($9).
        let cmd = r#"f() { [ "$9" = -real ] && echo "{\"median_s\":1,\"prec_bits_mean_err\":1,\"prec_bits_max_err\":0}"; }; f"#;
        assert!(run_peer(
            cmd,
            "x",
            1,
            1,
            Input {
                real: true,
                level: 1
            }
        )
        .is_ok());
        assert!(run_peer(cmd, "x", 1, 1, complex(1)).is_err());
    }

    #[test]
    fn median_of_even_and_odd() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
