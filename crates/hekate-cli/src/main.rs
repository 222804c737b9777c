//! The `hekate` command-line tool: a guided CKKS demo and benchmarks.
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
//! hekate params bootstrap --log-n 12 --precision 16 --security none --verify
//!                                  # bootstrapping parameters (seed 003 Alg. 8), checked
//! ```

mod bench;
mod demo;
mod demo_fhew;
mod params;
mod rng;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "hekate",
    version,
    about = "hekate: lattice homomorphic encryption (CKKS, FHEW) — demo and benchmarks"
)]
struct Cli {
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
    /// Benchmarks, by area. Prints a markdown table.
    Bench {
        /// The area to benchmark.
        #[command(subcommand)]
        area: bench::BenchArea,
    },
    /// Parameter selection, by area. Prints a markdown table, Rust code and JSON.
    Params {
        /// The area to choose parameters for.
        #[command(subcommand)]
        area: params::ParamsArea,
    },
}

/// How a command ended when it did not fail with an error.
pub enum Outcome {
    /// Everything worked.
    Success,
    /// The command ran but its check failed (e.g. the demo's precision is too low).
    CheckFailed(String),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo => demo::run(),
        Command::Bench { area } => bench::run(area),
        Command::Params { area } => params::run(area),
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

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
                area: bench::BenchArea::Ckks(_)
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
                area: bench::BenchArea::Keyswitch(_)
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
                area: bench::BenchArea::Bootstrap(_)
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
