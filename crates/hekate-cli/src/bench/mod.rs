//! Benchmarks: shared timing helpers, the markdown table printer and the machine header.
//!
//! Each area (`ckks`, `keyswitch`, `fhew`, `bootstrap`, `bootstrap-peer`, ...) is a subcommand of `hekate bench`
//! with its own module; they all time with [`measure`] (one untimed warm-up, then the
//! median and minimum of the timed repetitions, as the peer harnesses in
//! `shared/peers/` do) and print one [`Table`] under [`header`].

pub mod bootstrap;
pub mod bootstrap_peer;
pub mod ckks;
pub mod fhew;
pub mod fhew_peer;
pub mod integer;
pub mod keyswitch;
pub mod mlwe;

use crate::Outcome;
use clap::Subcommand;
use std::error::Error;
use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The benchmark areas of `hekate bench`.
#[derive(Debug, Subcommand)]
pub enum BenchArea {
    /// CKKS primitive operations (encode, encrypt, add, mult+relin, rescale, rotations, ...)
    /// over a grid of chain lengths and key-switching digit counts. The default grid at
    /// N = 2^16 takes tens of minutes and up to ~7 GB of memory; try --quick first.
    Ckks(ckks::CkksArgs),
    /// BFV operations (encode, encrypt, tensor, relin, mult+relin, rotate, hoisted, decrypt,
    /// the x^(2^D) chain, noise budgets, key sizes) on the 128-bit chain for (t, depth).
    Bfv(integer::IntegerArgs),
    /// BGV operations, as `bench bfv` plus the modulus switch.
    Bgv(integer::IntegerArgs),
    /// Key switching: hybrid against KLSS (seed 000 Tables 3-4) and linear (seed 001 Table
    /// VIII, CKKS rows) on the papers' grids, with the cost model's predictions and picks.
    /// The full run takes tens of minutes and up to ~7 GB at N = 2^16; try --quick first.
    Keyswitch(keyswitch::KeyswitchArgs),
    /// FHEW NAND gate bootstrapping per preset and blind-rotation method: NAND time, key
    /// sizes, key generation, measured σ_acc^2, failure probability (try --quick first).
    Fhew(fhew::FhewArgs),
    /// hekate's NAND against a peer library's (OpenFHE through
    /// scripts/peers/openfhe_binfhe_serve.py), alternating round by round in one sitting:
    /// per-round ratios, their median and spread.
    FhewPeer(fhew_peer::FhewPeerArgs),
    /// CKKS bootstrapping per preset: chain and circuit shape, key generation, setup, the
    /// time of each stage and of a whole bootstrap, precision and peak memory. The default
    /// (N = 2^16, full packing) takes minutes and several GB; try --quick first.
    Bootstrap(bootstrap::BootstrapArgs),
    /// hekate's CKKS bootstrapping against Lattigo's configured identically
    /// (scripts/peers/lattigo, `boot -set hekate-<preset>`), round by round: per-round
    /// times, precision and ratios, their median and the per-stage ratios.
    BootstrapPeer(bootstrap_peer::BootstrapPeerArgs),
    /// MLWE-CKKS (seed 004): HMult + Rescale of RNS-CKKS, ModHE and DPad-HE interleaved
    /// on the paper's sets (Tables 4, 6, 7), with ratios, key sizes, precision and
    /// operation counts beside the paper's. The default run takes minutes and up to
    /// --max-key-gib of keys; try --quick first.
    Mlwe(mlwe::MlweArgs),
}

/// Runs one benchmark area.
pub fn run(area: BenchArea) -> Result<Outcome, Box<dyn Error>> {
    match area {
        BenchArea::Ckks(args) => ckks::run(args),
        BenchArea::Bfv(args) => integer::run(hekate::rlwe::integer::Scheme::Bfv, args),
        BenchArea::Bgv(args) => integer::run(hekate::rlwe::integer::Scheme::Bgv, args),
        BenchArea::Keyswitch(args) => keyswitch::run(args),
        BenchArea::Fhew(args) => fhew::run(args),
        BenchArea::FhewPeer(args) => fhew_peer::run(args),
        BenchArea::Bootstrap(args) => bootstrap::run(args),
        BenchArea::BootstrapPeer(args) => bootstrap_peer::run(args),
        BenchArea::Mlwe(args) => mlwe::run(args),
    }
}

/// Sizes rayon's global pool, which the library's `parallel` feature runs on. Must be called
/// before anything uses rayon.
pub fn init_threads(threads: usize) -> Result<(), Box<dyn Error>> {
    if threads == 0 {
        return Err("--threads must be at least 1".into());
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| format!("cannot size the thread pool to {threads}: {e}"))?;
    Ok(())
}

/// Median and minimum of a set of timed repetitions.
#[derive(Clone, Copy, Debug)]
pub struct Stats {
    /// The median (the mean of the two middle ones for an even count).
    pub median: Duration,
    /// The fastest repetition.
    pub min: Duration,
}

impl Stats {
    /// Stats of a non-empty list of durations.
    pub fn of(mut times: Vec<Duration>) -> Stats {
        assert!(!times.is_empty(), "no repetitions");
        times.sort_unstable();
        let n = times.len();
        let median = if n % 2 == 1 {
            times[n / 2]
        } else {
            (times[n / 2 - 1] + times[n / 2]) / 2
        };
        Stats {
            median,
            min: times[0],
        }
    }

    /// Both figures divided by `k` (per-item cost of a batch of `k`).
    pub fn per(self, k: u32) -> Stats {
        Stats {
            median: self.median / k,
            min: self.min / k,
        }
    }

    /// The median in milliseconds.
    pub fn ms(&self) -> f64 {
        self.median.as_secs_f64() * 1e3
    }

    /// The median in microseconds.
    pub fn us(&self) -> f64 {
        self.median.as_secs_f64() * 1e6
    }
}

/// Times `f`: one untimed warm-up call, then `reps` timed calls. The results are passed
/// through [`black_box`] and dropped outside the timed region.
pub fn measure<R>(reps: usize, mut f: impl FnMut() -> R) -> Stats {
    drop(black_box(f()));
    timed_reps(reps, f)
}

/// Times `f`, which returns a `Result`: the untimed warm-up call surfaces any error, then
/// `reps` timed calls follow as in [`measure`]. Returns the warm-up call's result too, for
/// later steps to use.
pub fn try_measure<R, E>(
    reps: usize,
    mut f: impl FnMut() -> Result<R, E>,
) -> Result<(Stats, R), E> {
    let first = f()?;
    Ok((timed_reps(reps, || f().ok()), first))
}

/// `reps` (at least one) timed calls of `f`, without warm-up.
fn timed_reps<R>(reps: usize, mut f: impl FnMut() -> R) -> Stats {
    let times = (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            let r = black_box(f());
            let t = start.elapsed();
            drop(r);
            t
        })
        .collect();
    Stats::of(times)
}

/// Runs `f` once and returns its result with the time it took.
pub fn time_once<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}

/// Formats milliseconds with about three significant digits.
pub fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 10.0 {
        format!("{ms:.1}")
    } else if ms >= 1.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.3}")
    }
}

/// Bytes as MiB with about three significant digits.
pub fn fmt_mib(bytes: usize) -> String {
    fmt_ms(bytes as f64 / (1u64 << 20) as f64)
}

/// A markdown table: a header row, then rows of cells. Columns are padded to line up in a
/// terminal; the first `left` columns are left-aligned, the rest (numbers) right-aligned.
#[derive(Debug, Clone)]
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    left: usize,
}

impl Table {
    /// An empty table with these column headers, the first `left` of them left-aligned.
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>, left: usize) -> Table {
        Table {
            headers: headers.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
            left,
        }
    }

    /// Appends a row (padded with empty cells or truncated to the header's width).
    pub fn push(&mut self, mut row: Vec<String>) {
        row.resize(self.headers.len(), String::new());
        self.rows.push(row);
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as markdown text, one line per row, ending with a newline.
    pub fn to_markdown(&self) -> String {
        let width = |i: usize| {
            self.rows
                .iter()
                .map(|r| r[i].chars().count())
                .chain([self.headers[i].chars().count(), 3])
                .max()
                .unwrap_or(3)
        };
        let widths: Vec<usize> = (0..self.headers.len()).map(width).collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if i < self.left {
                        format!("{c:<w$}", w = widths[i])
                    } else {
                        format!("{c:>w$}", w = widths[i])
                    }
                })
                .collect();
            format!("| {} |\n", padded.join(" | "))
        };
        let mut out = line(&self.headers);
        let rule: Vec<String> = widths
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                if i < self.left {
                    format!(":{}", "-".repeat(w - 1))
                } else {
                    format!("{}:", "-".repeat(w - 1))
                }
            })
            .collect();
        out.push_str(&format!("| {} |\n", rule.join(" | ")));
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
}

/// Peak resident memory of this process (`VmHWM` of `/proc/self/status`), in bytes,
/// where Linux reports it.
pub fn peak_rss_bytes() -> Option<usize> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resets the peak resident memory to the current one (Linux `clear_refs` value 5).
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The CPU model name from `/proc/cpuinfo`, and whether it advertises AVX-512 IFMA.
pub fn cpu_info() -> (String, Option<bool>) {
    match std::fs::read_to_string("/proc/cpuinfo") {
        Ok(s) => {
            let model = s
                .lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_else(|| "unknown CPU".into());
            let ifma = s
                .lines()
                .find(|l| l.starts_with("flags"))
                .map(|l| l.split_whitespace().any(|f| f == "avx512ifma"));
            let cores = s.lines().filter(|l| l.starts_with("processor")).count();
            (format!("{model} ({cores} logical CPUs)"), ifma)
        }
        Err(_) => (std::env::consts::ARCH.to_string(), None),
    }
}

/// The short git commit of the working directory (`-dirty` if tracked files have
/// uncommitted changes), if `git` is there and it is a checkout.
pub fn git_commit() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    if s.is_empty() {
        return None;
    }
    // Uncommitted changes to tracked files: the binary may not be that commit.
    let dirty = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty());
    Some(if dirty { format!("{s}-dirty") } else { s })
}

/// Today's date and time (UTC) as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The header line printed above every benchmark table: machine, threads, commit, date.
pub fn header(area: &str, threads: usize) -> String {
    let (cpu, ifma) = cpu_info();
    let ifma = match ifma {
        Some(true) => "avx512ifma: yes",
        Some(false) => "avx512ifma: no",
        None => "avx512ifma: unknown",
    };
    let commit = git_commit().unwrap_or_else(|| "unknown".into());
    let build = if cfg!(debug_assertions) {
        "debug assertions ON (numbers not representative)"
    } else {
        "release"
    };
    // The instruction set the kernels and NTTs run (after the HEKATE_SIMD cap).
    let simd = hekate::math::kernels::Isa::detect();
    format!(
        "hekate bench {area} — {cpu}, {ifma}, SIMD: {simd:?}, threads: {threads}, commit \
         {commit}, {}, {build}",
        utc_now()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_min() {
        let ms = |x| Duration::from_millis(x);
        let s = Stats::of(vec![ms(5), ms(1), ms(3)]);
        assert_eq!((s.median, s.min), (ms(3), ms(1)));
        let s = Stats::of(vec![ms(4), ms(1), ms(3), ms(2)]);
        assert_eq!(s.median, Duration::from_micros(2500));
    }

    #[test]
    fn table_lines_up() {
        let mut t = Table::new(["a", "value"], 1);
        t.push(vec!["x".into(), "1.5".into()]);
        let md = t.to_markdown();
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines.iter().all(|l| l.len() == lines[0].len()));
        assert_eq!(lines[1], "| :-- | ----: |");
    }

    #[test]
    fn date_is_plausible() {
        let d = utc_now();
        assert!(d.starts_with("20") && d.ends_with("UTC"), "{d}");
    }
}
