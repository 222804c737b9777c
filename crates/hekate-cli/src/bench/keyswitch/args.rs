//! The options of `hekate bench keyswitch` and the run configuration they resolve to.

use clap::{Args, ValueEnum};
use std::error::Error;

/// Options of `hekate bench keyswitch`. The full run (t3, t4 and t8) takes tens of minutes
/// on one thread and holds up to ~7 GB at `N = 2^16`, `ℓ̃ = 48` (the hybrid key and one
/// expanded KLSS key); progress goes to stderr, the tables to stdout.
#[derive(Debug, Args)]
pub struct KeyswitchArgs {
    /// Paper tables to reproduce, comma separated: t3 (seed 000 Table 3, N = 2^15), t4
    /// (seed 000 Table 4, N = 2^16), t8 (seed 001 Table VIII, CKKS rows) or all
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "TABLE,...",
        default_value = "all"
    )]
    table: Vec<PaperTable>,
    /// KLSS r̃ values to time in t3 / t4, comma separated, instead of the paper's sweep
    /// (1..6 for r = 1, 2..7 for r >= 2); values above ℓ̃ are skipped
    #[arg(long = "r-tilde", value_delimiter = ',', value_name = "R,...")]
    r_tilde: Option<Vec<usize>>,
    /// Bit size of the KLSS B' primes in t3 / t4 (30..=61). Primes below 2^50 take the
    /// IFMA NTT path (about 2.5x cheaper per NTT here) at the price of a larger r'. The
    /// cost model's own pick (among 61- and 50-bit B' primes) is timed as an extra row
    /// when the sweep does not hold it
    #[arg(long = "b-prime-bits", value_name = "BITS", default_value_t = DEFAULT_B_PRIME_BITS)]
    b_prime_bits: u32,
    /// Only these ℓ̃ (total primes of PQ) in t3 / t4, comma separated
    #[arg(long = "l-tilde", value_delimiter = ',', value_name = "L,...")]
    l_tilde: Option<Vec<usize>>,
    /// Only these r (primes per ciphertext digit = special primes) in t3 / t4
    #[arg(long, value_delimiter = ',', value_name = "R,...")]
    r: Option<Vec<usize>>,
    /// Only these chain lengths l in t8, comma separated
    #[arg(long, value_delimiter = ',', value_name = "L,...")]
    levels: Option<Vec<usize>>,
    /// Schemes of the t8 rows, comma separated: ckks (the paper's Q = 55 + (l-1) × 40
    /// bits), bgv (l × 40 bits, NTT-form input and output) and bfv (l - 1 primes of 40
    /// bits at l = 8, 15, 34 for N = 2^14, 2^15, 2^16; coefficient-form input and output,
    /// seed 001 Alg. 5)
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "SCHEME,...",
        default_value = "ckks"
    )]
    schemes: Vec<T8Scheme>,
    /// Only these log2 N in t8, comma separated
    #[arg(long = "log-n", value_delimiter = ',', value_name = "LOG_N,...")]
    log_n: Option<Vec<u32>>,
    /// Timed repetitions per setting, after one untimed warm-up (the median is shown);
    /// default 3, and 15 with --quick (its switches take milliseconds)
    #[arg(long)]
    reps: Option<usize>,
    /// Threads of the global rayon pool the library parallelises on (the papers: 1)
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// A fast smoke run at N = 2^12 with small chains (seconds): t3 ℓ̃ = 8, r = 1, 2; t4
    /// ℓ̃ = 12, r = 1, 4; t8 l = 4, 8. Paper columns are then for shape only. The methods
    /// of a cell are timed interleaved (all keys built first, one switch per method per
    /// round), which the full sizes cannot afford in memory.
    #[arg(long)]
    quick: bool,
}

/// The library's default size of the `B'` primes ([`KlssConfig::klss`]).
pub(super) const DEFAULT_B_PRIME_BITS: u32 = 61;

/// A paper table `--table` can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum PaperTable {
    /// Seed 000 Table 3 (N = 2^15).
    T3,
    /// Seed 000 Table 4 (N = 2^16).
    T4,
    /// Seed 001 Table VIII, CKKS rows.
    T8,
    /// All three.
    All,
}

/// A scheme whose seed 001 Table VIII rows `--table t8` reproduces (Table VI's shapes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum T8Scheme {
    /// CKKS: `Q = 55 + (l - 1) × 40` bits, NTT form.
    Ckks,
    /// BGV: `Q = l × 40` bits, NTT form.
    Bgv,
    /// BFV: `Q = (l - 1) × 40` bits (the paper's `l` counts one more), coefficient form.
    Bfv,
}

/// The resolved run configuration.
#[derive(Debug, Clone)]
pub(super) struct Config {
    pub(super) tables: Vec<PaperTable>,
    pub(super) quick: bool,
    pub(super) reps: usize,
    pub(super) threads: usize,
    pub(super) r_tilde: Option<Vec<usize>>,
    pub(super) b_prime_bits: u32,
    pub(super) l_tilde: Option<Vec<usize>>,
    pub(super) r: Option<Vec<usize>>,
    pub(super) levels: Option<Vec<usize>>,
    pub(super) log_n: Option<Vec<u32>>,
    pub(super) schemes: Vec<T8Scheme>,
}

impl KeyswitchArgs {
    pub(super) fn resolve(self) -> Result<Config, Box<dyn Error>> {
        let mut tables: Vec<PaperTable> = if self.table.contains(&PaperTable::All) {
            vec![PaperTable::T3, PaperTable::T4, PaperTable::T8]
        } else {
            self.table
        };
        tables.sort_unstable();
        tables.dedup();
        let reps = self.reps.unwrap_or(if self.quick { 15 } else { 3 });
        if reps == 0 {
            return Err("--reps must be at least 1".into());
        }
        let positive = |name: &str, v: &Option<Vec<usize>>| match v {
            Some(v) if v.is_empty() || v.contains(&0) => {
                Err(format!("{name}: every value must be a positive number"))
            }
            _ => Ok(()),
        };
        positive("--r-tilde", &self.r_tilde)?;
        positive("--l-tilde", &self.l_tilde)?;
        positive("--r", &self.r)?;
        positive("--levels", &self.levels)?;
        if let Some(ls) = &self.log_n {
            if let Some(l) = ls.iter().find(|l| !(10..=17).contains(*l)) {
                return Err(format!("--log-n {l} is outside [10, 17]").into());
            }
        }
        let mut schemes = self.schemes;
        schemes.sort_unstable();
        schemes.dedup();
        if schemes.is_empty() {
            return Err("--schemes needs at least one of ckks, bgv, bfv".into());
        }
        if !(30..=61).contains(&self.b_prime_bits) {
            return Err(format!("--b-prime-bits {} is outside [30, 61]", self.b_prime_bits).into());
        }
        Ok(Config {
            tables,
            quick: self.quick,
            reps,
            threads: self.threads,
            r_tilde: self.r_tilde,
            b_prime_bits: self.b_prime_bits,
            l_tilde: self.l_tilde,
            r: self.r,
            levels: self.levels,
            log_n: self.log_n,
            schemes,
        })
    }
}
