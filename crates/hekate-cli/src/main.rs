//! The `hekate` command-line tool: a guided CKKS demo, benchmarks, parameter tables,
//! object inspection and shell completions.
//!
//! ```text
//! hekate demo                      # walk-through of CKKS and FHEW gates, a smoke test
//! hekate bench fhew --quick        # FHEW NAND per preset and blind-rotation method
//! hekate bench fhew-peer --peer CMD # NAND against OpenFHE's, alternating in one sitting
//! hekate bench ckks                # CKKS primitive operations, N = 2^16, markdown table
//! hekate bench ckks --quick        # the same at N = 2^13 with small chains (< 1 minute)
//! hekate bench keyswitch           # hybrid vs KLSS / linear on seed 000's and 001's grids
//! hekate bench keyswitch --quick   # the same at N = 2^12 with small chains (seconds)
//! hekate bench bootstrap           # CKKS bootstrapping, N = 2^16 full packing (minutes)
//! hekate bench bootstrap --quick   # the same at N = 2^12, dense and sparse (seconds)
//! hekate bench fhew --quick --format jsonl
//!                                  # any bench's tables as JSON lines (also json, csv)
//! hekate params bootstrap --log-n 12 --precision 16 --security none --verify
//!                                  # bootstrapping parameters (seed 003 Alg. 8), checked
//! hekate params list               # every CKKS and FHEW preset, with its security
//! hekate params ckks --log-n 16 --limbs 16 --dnum 3
//!                                  # a CKKS chain: primes, log QP, security, sizes
//! hekate params fhew --preset OPENFHE_STD128_LMKCDEY --method Alg4
//!                                  # an FHEW set: security, noise, failure, key size
//! hekate inspect ct.bin --params ctx.bin
//!                                  # what a serialized object is, and whether it parses
//! hekate gpu info                  # GPU runtimes, the device, a kernel self-check
//! hekate bench gpu --quick         # GPU kernels: device, transfer and CPU times
//! hekate completions bash          # the shell completion script
//! ```
//!
//! `--quiet` (any command) hides the progress bars and progress lines on stderr; bars are
//! drawn only when stderr is a terminal ([`progress`]). Exit codes: 0 success, 1 error
//! (bad arguments, unreadable or invalid input, a failed computation), 2 a check failed
//! (the demo's or a bench's check, or insecure parameters in `params ckks`/`params fhew`
//! without `--allow-insecure`).

mod bench;
mod demo;
mod demo_fhew;
/// `hekate gpu info`.
mod gpu;
/// `hekate inspect`.
mod inspect;
mod params;
/// Progress bars and lines on stderr, `--quiet`.
mod progress;
mod rng;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// The exit codes, as `--help` prints them.
pub const EXIT_CODES: &str = "Exit codes:
  0  success
  1  error: bad arguments (usage), an unreadable or invalid input, a failed computation
  2  a check failed: the demo's or a bench's check, or insecure parameters in
     `params ckks` / `params fhew` without --allow-insecure";

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "hekate",
    version,
    about = "hekate: lattice homomorphic encryption (CKKS, BFV/BGV, FHEW) — demo, \
             benchmarks, parameters, inspection",
    after_help = EXIT_CODES
)]
struct Cli {
    /// No progress bars or progress lines on stderr (errors still print). Bars are drawn
    /// only when stderr is a terminal.
    #[arg(long, short, global = true)]
    quiet: bool,
    /// What to run.
    #[command(subcommand)]
    command: Command,
}

/// Top-level subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Walk through CKKS (parameters, keys, encryption, a small polynomial with rotations,
    /// decryption and precision) and FHEW gates (an encrypted 4-bit adder on a 128-bit
    /// set). Exits non-zero if a result is wrong or the precision too low.
    Demo,
    /// Benchmarks, by area. Prints markdown tables, or JSON / JSON lines / CSV records
    /// with --format.
    #[command(after_help = EXIT_CODES)]
    Bench {
        /// The tables' format: markdown (with the prose, on stdout), json (one array of
        /// row records at the end), jsonl (a record per row as it completes), csv. In
        /// the last three the prose goes to stderr. Records carry the commit, SIMD ISA,
        /// threads, timestamp and units.
        #[arg(long, global = true, value_enum, default_value_t = bench::Format::Markdown)]
        format: bench::Format,
        /// The area to benchmark.
        #[command(subcommand)]
        area: bench::BenchArea,
    },
    /// Parameters: list the presets, describe a CKKS chain or an FHEW set (security,
    /// sizes, noise), or search CKKS bootstrapping parameters.
    #[command(after_help = EXIT_CODES)]
    Params {
        /// The area to choose parameters for.
        #[command(subcommand)]
        area: params::ParamsArea,
    },
    /// Describes a serialized hekate object: its header (no key needed), and with
    /// --params a validated parse under those parameters.
    #[command(after_help = EXIT_CODES)]
    Inspect(inspect::InspectArgs),
    /// The GPU backend: `hekate gpu info` shows the runtimes and device found and checks
    /// the kernels against the CPU on it.
    #[command(after_help = EXIT_CODES)]
    Gpu {
        /// What to do.
        #[command(subcommand)]
        action: gpu::GpuAction,
    },
    /// Prints the completion script of a shell, e.g.
    /// `hekate completions bash > ~/.local/share/bash-completion/completions/hekate`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// How a command ended when it did not fail with an error.
pub enum Outcome {
    /// Everything worked.
    Success,
    /// The command ran but its check failed (e.g. the demo's precision is too low).
    CheckFailed(String),
}

/// Parses the command line, runs the command and maps its outcome to the exit code.
fn main() -> ExitCode {
    // Usage errors exit with 1 like every other error (clap's own code would be 2, the
    // code of a failed check); help and version print and exit 0.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            let _ = e.print();
            return ExitCode::FAILURE;
        }
    };
    progress::set_quiet(cli.quiet);
    let result = match cli.command {
        Command::Demo => demo::run(),
        Command::Bench { format, area } => bench::run(area, format),
        Command::Params { area } => params::run(area),
        Command::Inspect(args) => inspect::run(args),
        Command::Gpu { action } => gpu::run(action),
        Command::Completions { shell } => {
            completions(shell);
            Ok(Outcome::Success)
        }
    };
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::CheckFailed(msg)) => {
            eprintln!("hekate: check failed: {msg}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("hekate: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes `text` to stdout. A closed pipe (`hekate params list | head`) is not an error:
/// the rest of the output is dropped.
pub fn stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Writes the completion script of `shell` to stdout.
fn completions(shell: clap_complete::Shell) {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "hekate", &mut script);
    stdout(&String::from_utf8_lossy(&script));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_bench_options() {
        let cli = Cli::try_parse_from([
            "hekate", "bench", "ckks", "--quick", "--dnum", "1,max", "--limbs", "4,8",
        ])
        .unwrap();
        assert!(matches!(
            cli.command,
            Command::Bench {
                area: bench::BenchArea::Ckks(_),
                ..
            }
        ));
        assert!(Cli::try_parse_from(["hekate", "bench", "ckks", "--dnum", "zero"]).is_err());
        let cli = Cli::try_parse_from([
            "hekate",
            "bench",
            "keyswitch",
            "--table",
            "t3,t8",
            "--r-tilde",
            "3,4",
            "--quick",
        ])
        .unwrap();
        assert!(matches!(
            cli.command,
            Command::Bench {
                area: bench::BenchArea::Keyswitch(_),
                ..
            }
        ));
        assert!(Cli::try_parse_from(["hekate", "bench", "keyswitch", "--table", "t9"]).is_err());
        let cli = Cli::try_parse_from([
            "hekate",
            "bench",
            "bootstrap",
            "--quick",
            "--reps",
            "1",
            "--successive",
            "2",
        ])
        .unwrap();
        assert!(matches!(
            cli.command,
            Command::Bench {
                area: bench::BenchArea::Bootstrap(_),
                ..
            }
        ));
        assert!(Cli::try_parse_from(["hekate", "bench", "bootstrap", "--reps", "x"]).is_err());
    }

    #[test]
    fn parses_params_options() {
        let cli = Cli::try_parse_from([
            "hekate",
            "params",
            "bootstrap",
            "--log-n",
            "12",
            "--secret",
            "hw:64",
            "--sse",
            "32",
            "--failure",
            "-40",
            "--security",
            "none",
            "--cts-levels",
            "2-3",
        ])
        .unwrap();
        assert!(matches!(
            cli.command,
            Command::Params {
                area: params::ParamsArea::Bootstrap(_)
            }
        ));
        for bad in [
            ["--secret", "hw:x"],
            ["--security", "80"],
            ["--cts-levels", "5-2"],
        ] {
            let args = ["hekate", "params", "bootstrap", bad[0], bad[1]];
            assert!(Cli::try_parse_from(args).is_err(), "{bad:?}");
        }
    }

    /// `hekate params bootstrap --log-n 12 ...` finishes in under 10 s; bad input is an
    /// error, not a panic.
    #[test]
    fn params_bootstrap_at_log_n_12() {
        let run = |extra: &[&str]| {
            let mut args = vec![
                "hekate",
                "params",
                "bootstrap",
                "--log-n",
                "12",
                "--precision",
                "16",
                "--failure",
                "-40",
                "--security",
                "none",
                "--levels-left",
                "1",
            ];
            args.extend_from_slice(extra);
            match Cli::try_parse_from(args).unwrap().command {
                Command::Params { area } => params::run(area),
                _ => unreachable!("a params command"),
            }
        };
        let start = std::time::Instant::now();
        assert!(matches!(run(&[]), Ok(Outcome::Success)));
        let took = start.elapsed().as_secs_f64();
        assert!(took < 10.0, "{took:.1} s");
        let err = run(&["--slots", "4096"]).err().unwrap().to_string();
        assert!(err.contains("N/2"), "{err}");
        let err = run(&["--max-key-gib", "0.001"]).err().unwrap().to_string();
        assert!(err.contains("key-memory cap"), "{err}");
    }

    #[test]
    fn demo_passes() {
        assert!(matches!(demo::run(), Ok(Outcome::Success)));
    }
}
