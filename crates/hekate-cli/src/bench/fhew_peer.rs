//! `hekate bench fhew-peer`: hekate's NAND against a peer library's, in alternation.
//!
//! On a shared machine the speed of both libraries drifts by tens of percent within
//! seconds, so timing one library after the other, minutes apart, gives ratios that move
//! with the host more than with the code. Here both run in one sitting: the peer is a
//! child process that keeps its keys and times NAND gates on request
//! (`scripts/peers/openfhe_binfhe_serve.py` speaks the protocol for OpenFHE), and each
//! round times a few gates of every peer configuration and of every hekate configuration
//! back to back, in alternating order. The ratio of each round (hekate's median over the
//! fastest peer configuration's median of that round) compares the two under the same
//! load; the summary gives their spread and how many rounds are at or below `--target`.
//!
//! Key generation is compared too, once per configuration (not alternated): hekate's
//! `BootstrapKey::generate` against the peer's own timing of its bootstrapping keys.
//!
//! The protocol, one line each way: the peer prints `ready LABEL...` once its keys are
//! made; to `nand K` it answers `times MS...` (median milliseconds of K NANDs per
//! configuration, in the order of `ready`); to `keygen`, `times S...` (seconds its
//! bootstrapping keys took per configuration); `quit` ends it; `error TEXT` reports a
//! failure.

use super::fhew::{products_label, Products};
use super::{fmt_ms, header, time_once, try_measure, Table};
use crate::progress::Bar;
use crate::{say, Outcome};
use clap::Args;
use hekate::fhew::params::{FhewParams, MethodConfig};
use hekate::fhew::{FhewContext, Gate};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use std::error::Error;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;

/// Options of `hekate bench fhew-peer`.
#[derive(Debug, Args)]
pub struct FhewPeerArgs {
    /// The peer's command, run with `sh -c` (it must speak the protocol of
    /// `scripts/peers/openfhe_binfhe_serve.py`; the README shows the OpenFHE one).
    #[arg(long)]
    peer: String,
    /// hekate's preset (OpenFHE's parameters: OPENFHE_STD128_LMKCDEY, OPENFHE_STD128, ...).
    #[arg(long, default_value = "OPENFHE_STD128_LMKCDEY")]
    preset: String,
    /// hekate's blind-rotation methods, comma-separated (as in `bench fhew`).
    #[arg(long, default_value = "LMKCDEY-aux", value_delimiter = ',')]
    methods: Vec<String>,
    /// hekate's products, comma-separated (`auto`, `ntt`, `fourier`, `approx`, `compact`,
    /// `compact-approx`, as in `bench fhew`); every method runs with each.
    #[arg(long, value_enum, default_value = "auto", value_delimiter = ',')]
    products: Vec<Products>,
    /// Rounds.
    #[arg(long, default_value_t = 20)]
    rounds: usize,
    /// Timed NAND gates per configuration and round (after one untimed gate; the median
    /// is the round's time).
    #[arg(long, default_value_t = 3)]
    gates: usize,
    /// The ratio whose rounds at or below it are counted in the summary.
    #[arg(long, default_value_t = 0.3)]
    target: f64,
}

/// The peer process and its two pipes.
struct Peer {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Peer {
    /// Starts `command` and waits for its `ready` line; returns it with the labels.
    fn start(command: &str) -> Result<(Peer, Vec<String>), Box<dyn Error>> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the peer ({command}): {e}"))?;
        let input = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped"));
        let mut peer = Peer {
            child,
            input,
            output,
        };
        let labels = peer.expect("ready")?;
        if labels.is_empty() {
            return Err("the peer is ready with no configurations".into());
        }
        Ok((peer, labels))
    }

    /// The words after `word` on the peer's next line; an error for anything else.
    fn expect(&mut self, word: &str) -> Result<Vec<String>, Box<dyn Error>> {
        let mut line = String::new();
        if self.output.read_line(&mut line)? == 0 {
            return Err(format!("the peer stopped before answering `{word}`").into());
        }
        let mut words = line.split_whitespace().map(String::from);
        match words.next().as_deref() {
            Some(w) if w == word => Ok(words.collect()),
            _ => Err(format!("the peer answered `{}` (expected `{word}`)", line.trim()).into()),
        }
    }

    /// The peer's median NAND milliseconds per configuration over `gates` gates.
    fn nand(&mut self, gates: usize, configs: usize) -> Result<Vec<f64>, Box<dyn Error>> {
        self.times(&format!("nand {gates}"), configs)
    }

    /// The `times` the peer answers to `request`, one per configuration.
    fn times(&mut self, request: &str, configs: usize) -> Result<Vec<f64>, Box<dyn Error>> {
        writeln!(self.input, "{request}")?;
        self.input.flush()?;
        let times = self
            .expect("times")?
            .iter()
            .map(|w| w.parse::<f64>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("the peer's times do not parse: {e}"))?;
        if times.len() != configs {
            return Err(format!(
                "the peer gave {} times for {configs} configurations",
                times.len()
            )
            .into());
        }
        Ok(times)
    }

    /// Asks the peer to stop and waits for it.
    fn stop(mut self) -> Result<(), Box<dyn Error>> {
        writeln!(self.input, "quit")?;
        drop(self.input);
        self.child.wait()?;
        Ok(())
    }
}

/// `(min, first quartile, median, third quartile, max)` of `v` (nearest rank; not empty).
fn quartiles(v: &[f64]) -> [f64; 5] {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let at = |f: f64| s[((s.len() - 1) as f64 * f).round() as usize];
    [s[0], at(0.25), at(0.5), at(0.75), s[s.len() - 1]]
}

/// Runs the benchmark.
pub fn run(args: FhewPeerArgs) -> Result<Outcome, Box<dyn Error>> {
    if args.rounds == 0 || args.gates == 0 {
        return Err("--rounds and --gates must be at least 1".into());
    }
    let p = FhewParams::by_name(&args.preset)?;
    let methods: Vec<MethodConfig> = args
        .methods
        .iter()
        .map(|s| MethodConfig::by_name(s))
        .collect::<Result<_, _>>()?;
    say!("{}", header("fhew-peer", 1));
    say!();
    say!("Security of {}: {}", p.name, p.security());
    say!();
    // Benchmarks may compare with OpenFHE's weaker sets too; the line above says which.
    let ctx = FhewContext::with_security(p, SecurityLevel::NotChecked)?;
    let mut rng = ChaCha20Rng::seed_from_u64(2024);
    let sk = ctx.generate_secret_key_with(&mut rng)?;
    let a = ctx.encrypt_bit_with(true, &sk, &mut rng)?;
    let b = ctx.encrypt_bit_with(false, &sk, &mut rng)?;
    // hekate's configurations: every method with every arithmetic, checked once.
    let mut ours = Vec::new();
    let mut keygens = Vec::new();
    for &cfg in &methods {
        if !cfg.method.applies(p.q, p.big_n) {
            return Err(format!("{} does not apply to {}", cfg.label(), p.name).into());
        }
        let bar = Bar::new(0, "keys");
        let (key, keygen) =
            time_once(|| ctx.generate_bootstrap_key_with_progress(&sk, cfg, &mut rng, &bar));
        drop(bar);
        let key = Arc::new(key?);
        keygens.push((cfg.label(), keygen.as_secs_f64()));
        for &products in &args.products {
            let mut ev = products.evaluator(&ctx, &key)?;
            if !ctx.decrypt_bit(&ev.gate(Gate::Nand, &a, &b)?, &sk)? {
                return Err(format!("{}: NAND(1, 0) decrypted wrong", cfg.label()).into());
            }
            let label = format!("hekate {} {}", cfg.label(), products_label(&ev));
            ours.push((label, ev));
        }
    }
    let (mut peer, labels) = Peer::start(&args.peer)?;
    let peer_keygen = peer.times("keygen", labels.len())?;
    say!(
        "hekate at {} (n = {}, N = {}, log Q = {}); the peer's configurations: {}. {} rounds of \
         {} timed NANDs per configuration, milliseconds (median per round).",
        p.name,
        p.n,
        p.big_n,
        p.log_big_q,
        labels.join(", "),
        args.rounds,
        args.gates
    );
    say!();
    let mut columns = vec!["round".to_string()];
    columns.extend(labels.iter().cloned());
    columns.extend(ours.iter().map(|(l, _)| l.clone()));
    columns.extend(ours.iter().map(|(l, _)| format!("{l} / fastest peer")));
    let mut table = Table::new(columns, 1).titled("rounds");
    let mut ratios = vec![Vec::new(); ours.len()];
    let bar = Bar::new(args.rounds as u64, "rounds");
    for round in 1..=args.rounds {
        // Alternate who goes first, so that neither always follows the other.
        let peer_first = round % 2 == 1;
        let mut theirs = Vec::new();
        if peer_first {
            theirs = peer.nand(args.gates, labels.len())?;
        }
        let mut mine = Vec::with_capacity(ours.len());
        for (_, ev) in ours.iter_mut() {
            let (st, _) = try_measure(args.gates, || ev.gate(Gate::Nand, &a, &b))?;
            mine.push(st.ms());
        }
        if !peer_first {
            theirs = peer.nand(args.gates, labels.len())?;
        }
        let fastest = theirs.iter().copied().fold(f64::INFINITY, f64::min);
        let mut row = vec![round.to_string()];
        row.extend(theirs.iter().map(|&t| fmt_ms(t)));
        row.extend(mine.iter().map(|&t| fmt_ms(t)));
        for (r, &t) in ratios.iter_mut().zip(&mine) {
            r.push(t / fastest);
            row.push(format!("{:.3}", t / fastest));
        }
        table.push(row);
        bar.inc(1);
    }
    drop(bar);
    peer.stop()?;
    table.print();
    say!();
    let mut summary = Table::new(
        [
            "hekate configuration",
            "ratio to the fastest peer: median",
            "min",
            "quartiles",
            "max",
            "rounds at or below the target",
        ],
        1,
    )
    .titled("summary");
    for ((label, _), r) in ours.iter().zip(&ratios) {
        let [min, q1, med, q3, max] = quartiles(r);
        let below = r.iter().filter(|&&x| x <= args.target).count();
        summary.push(vec![
            label.clone(),
            format!("{med:.3}"),
            format!("{min:.3}"),
            format!("{q1:.3}-{q3:.3}"),
            format!("{max:.3}"),
            format!("{below} of {} (target {})", r.len(), args.target),
        ]);
    }
    summary.print();
    say!();
    let mut columns = vec!["hekate method".to_string(), "keygen s".to_string()];
    columns.extend(labels.iter().map(|l| format!("{l} keygen s")));
    columns.extend(labels.iter().map(|l| format!("hekate / {l}")));
    let mut keygen_table = Table::new(columns, 1).titled("key generation");
    for (label, s) in &keygens {
        let mut row = vec![label.clone(), format!("{s:.2}")];
        row.extend(peer_keygen.iter().map(|p| format!("{p:.2}")));
        row.extend(peer_keygen.iter().map(|p| format!("{:.2}", s / p)));
        keygen_table.push(row);
    }
    keygen_table.print();
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_by_nearest_rank() {
        assert_eq!(quartiles(&[3.0]), [3.0; 5]);
        assert_eq!(
            quartiles(&[5.0, 1.0, 4.0, 2.0, 3.0]),
            [1.0, 2.0, 3.0, 4.0, 5.0]
        );
    }

    /// A peer that is not there, or that answers out of protocol, is a clear error.
    #[test]
    fn broken_peers_are_reported() {
        let err = |cmd: &str| Peer::start(cmd).err().expect("an error").to_string();
        assert!(err("exit 0").contains("stopped before answering `ready`"));
        assert!(err("echo hello").contains("answered `hello`"));
        assert!(err("echo ready").contains("no configurations"));
        let mock = "echo ready X Y; read l; echo times 2 3.5; read l; echo times 1.5";
        let (mut peer, labels) = Peer::start(mock).unwrap();
        assert_eq!(labels, ["X", "Y"]);
        assert_eq!(peer.times("keygen", 2).unwrap(), [2.0, 3.5]);
        let e = peer.nand(3, 2).unwrap_err().to_string();
        assert!(e.contains("gave 1 times for 2"), "{e}");
    }
}
