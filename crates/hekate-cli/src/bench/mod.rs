//! Benchmarks: shared timing helpers, the table printer and the machine header.
//!
//! Each area (`ckks`, `keyswitch`, `fhew`, `bootstrap`, `bootstrap-peer`, ...) is a subcommand of `hekate bench`
//! with its own module; they all time with [`measure`] (one untimed warm-up, then the
//! median and minimum of the timed repetitions, as the peer harnesses in
//! `shared/peers/` do) and print their [`Table`]s under [`header`].
//!
//! # Output formats (`hekate bench --format`)
//!
//! Every table goes through [`Table::print`] (or [`Table::emit`]) and every line of prose
//! through [`say`], so the format is implemented here once ([`Format`]):
//!
//! * `markdown` (default): the report as before, tables and prose on stdout;
//! * `json`: one JSON array of row records on stdout at the end of the run;
//! * `jsonl`: one row record per line on stdout, written when the row is complete
//!   ([`Table::push`]), so an interrupted run keeps the rows it finished;
//! * `csv`: per table, a header line and one line per row on stdout (tables separated
//!   by an empty line).
//!
//! In the machine formats the prose (header line, notes) goes to stderr instead (not
//! with `--quiet`). A row record ([`Table::record`]) is
//!
//! ```text
//! {"bench": "ckks", "table": 0, "title": null, "row": 0, "commit": "5adcc4c",
//!  "isa": "Avx512Ifma", "cpu": "...", "threads": 1, "build": "release",
//!  "timestamp": "2026-05-01T12:00:00Z",
//!  "cells": {"L": 4, "mul+relin": 1.25, "128b": "yes", ...},
//!  "units": {"mul+relin": "ms", ...}}
//! ```
//!
//! `cells` maps each column header to its cell: a number where the cell is one, `null`
//! for an empty or `-` cell, else the text. `units` gives the unit of the columns that
//! have one (named in the header, e.g. `NAND ms`, `keys MiB (model)`, or set by the
//! bench). `commit` is `$HEKATE_COMMIT` if set, else `git rev-parse --short HEAD` of the
//! working directory (`-dirty` with uncommitted changes), else `null`; `isa` is the
//! instruction set the library's kernels picked (`Isa::detect`, after `HEKATE_SIMD`);
//! `threads` the size of the thread pool (`--threads`); `timestamp` when the record was
//! written (UTC).

pub mod bootstrap;
pub mod bootstrap_peer;
pub mod ckks;
pub mod fhew;
pub mod fhew_peer;
pub mod gpu;
pub mod gpu_fhew;
pub mod integer;
pub mod keyswitch;
pub mod mlwe;

use crate::Outcome;
use clap::{Subcommand, ValueEnum};
use serde_json::{json, Map, Value};
use std::error::Error;
use std::fmt::Display;
use std::hint::black_box;
use std::sync::{Mutex, OnceLock};
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
    /// GPU kernels (NTT, products, automorphisms) on the device `hekate gpu info` shows:
    /// device time, transfer time and the CPU's time of the same operation, each row
    /// checked bit-exact first. On POCL (a CPU OpenCL device) it reports correctness only.
    Gpu(gpu::GpuArgs),
}

impl BenchArea {
    /// The area's name on the command line (`ckks`, `fhew-peer`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            BenchArea::Ckks(_) => "ckks",
            BenchArea::Bfv(_) => "bfv",
            BenchArea::Bgv(_) => "bgv",
            BenchArea::Keyswitch(_) => "keyswitch",
            BenchArea::Fhew(_) => "fhew",
            BenchArea::FhewPeer(_) => "fhew-peer",
            BenchArea::Bootstrap(_) => "bootstrap",
            BenchArea::BootstrapPeer(_) => "bootstrap-peer",
            BenchArea::Mlwe(_) => "mlwe",
            BenchArea::Gpu(_) => "gpu",
        }
    }
}

/// Runs one benchmark area, its tables written in `format`. In `json` the array of
/// records is printed at the end, also when the area stopped with an error (the rows it
/// finished).
pub fn run(area: BenchArea, format: Format) -> Result<Outcome, Box<dyn Error>> {
    {
        let mut out = output();
        out.format = format;
        out.bench = area.name();
    }
    let result = run_area(area);
    if format == Format::Json {
        let records = std::mem::take(&mut output().records);
        let text = serde_json::to_string_pretty(&Value::Array(records))?;
        crate::progress::suspend(|| crate::stdout(&(text + "\n")));
    }
    result
}

/// Runs one benchmark area.
fn run_area(area: BenchArea) -> Result<Outcome, Box<dyn Error>> {
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
        BenchArea::Gpu(args) => gpu::run(args),
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

/// The format of `hekate bench`'s tables (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Markdown tables and prose on stdout.
    #[default]
    Markdown,
    /// One JSON array of row records on stdout, at the end.
    Json,
    /// One row record per line on stdout, as each row completes.
    Jsonl,
    /// CSV per table on stdout.
    Csv,
}

/// The run's output state: its format, area, the records `json` prints at the end, and
/// the number of tables made so far (their ids).
struct Output {
    /// `--format`.
    format: Format,
    /// The area's name (`ckks`, ...).
    bench: &'static str,
    /// The records `json` prints at the end.
    records: Vec<Value>,
    /// Tables made so far.
    tables: usize,
    /// Tables written as CSV so far (an empty line separates them).
    csv_tables: usize,
}

/// The one output state of the process (a run is one area).
static OUTPUT: Mutex<Output> = Mutex::new(Output {
    format: Format::Markdown,
    bench: "",
    records: Vec::new(),
    tables: 0,
    csv_tables: 0,
});

/// The output state, locked (a poisoned lock is still usable: it holds plain data).
fn output() -> std::sync::MutexGuard<'static, Output> {
    OUTPUT.lock().unwrap_or_else(|e| e.into_inner())
}

/// The format of this run's tables (markdown unless `hekate bench --format` said else).
pub fn format() -> Format {
    output().format
}

/// Prints one line of a benchmark's report (`text` and a newline): to stdout in
/// markdown, to stderr in the machine formats (nothing there with `--quiet`).
pub fn say(text: impl Display) {
    if format() == Format::Markdown {
        crate::progress::suspend(|| crate::stdout(&format!("{text}\n")));
    } else {
        crate::progress::note(text);
    }
}

/// [`say`] with `format!` arguments; `say!()` prints an empty line.
#[macro_export]
macro_rules! say {
    () => {
        $crate::bench::say("")
    };
    ($($arg:tt)*) => {
        $crate::bench::say(format_args!($($arg)*))
    };
}

/// The unit a column header names: its first word that is a unit (`NAND ms`,
/// `keys MiB (model)`, `NTT (µs)`, `prec (bits)`), if any.
fn unit_of(header: &str) -> Option<String> {
    const UNITS: [&str; 13] = [
        "ns", "µs", "us", "ms", "s", "KiB", "MiB", "GiB", "MB", "GB", "bits", "bit", "%",
    ];
    header
        .split(|c: char| c.is_whitespace() || "()[],".contains(c))
        .find(|w| UNITS.contains(w))
        .map(str::to_string)
}

/// A cell as JSON: a number where it is one, `null` where empty or `-`, else the text.
fn cell_value(cell: &str) -> Value {
    let t = cell.trim();
    if t.is_empty() || t == "-" {
        return Value::Null;
    }
    if let Ok(i) = t.parse::<i64>() {
        return Value::from(i);
    }
    match t.parse::<f64>() {
        // `inf`, `NaN` and the like stay text (JSON has no such numbers).
        Ok(f) if f.is_finite() && t.chars().any(|c| c.is_ascii_digit()) => Value::from(f),
        _ => Value::String(cell.to_string()),
    }
}

/// What every record carries about the machine and build (computed once).
struct Machine {
    /// `$HEKATE_COMMIT`, else the short git commit of the working directory.
    commit: Option<String>,
    /// The instruction set the kernels run.
    isa: String,
    /// The CPU model and logical CPU count.
    cpu: String,
}

/// The machine and build facts of every record.
fn machine() -> &'static Machine {
    static MACHINE: OnceLock<Machine> = OnceLock::new();
    MACHINE.get_or_init(|| Machine {
        commit: std::env::var("HEKATE_COMMIT")
            .ok()
            .filter(|c| !c.is_empty())
            .or_else(git_commit),
        isa: format!("{:?}", hekate::math::kernels::Isa::detect()),
        cpu: cpu_info().0,
    })
}

/// Writes one line to stdout (a jsonl record), flushed so that it survives an
/// interrupted run.
fn print_line(line: &str) {
    crate::progress::suspend(|| crate::stdout(&format!("{line}\n")));
}

/// `field` quoted for CSV where needed (RFC 4180).
fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// A table: a header row, then rows of cells. As markdown, columns are padded to line up
/// in a terminal; the first `left` columns are left-aligned, the rest (numbers)
/// right-aligned. [`Table::print`] writes it in the run's [`Format`].
#[derive(Debug, Clone)]
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    left: usize,
    /// The table's number in the run (the `table` of its records).
    id: usize,
    /// An optional title (the `title` of its records).
    title: Option<String>,
    /// Each column's unit (from its header, or [`Table::unit`]).
    units: Vec<Option<String>>,
}

impl Table {
    /// An empty table with these column headers, the first `left` of them left-aligned.
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>, left: usize) -> Table {
        let headers: Vec<String> = headers.into_iter().map(Into::into).collect();
        let units = headers.iter().map(|h| unit_of(h)).collect();
        let id = {
            let mut out = output();
            out.tables += 1;
            out.tables - 1
        };
        Table {
            headers,
            rows: Vec::new(),
            left,
            id,
            title: None,
            units,
        }
    }

    /// The same table with a title (its records' `title`).
    pub fn titled(mut self, title: impl Into<String>) -> Table {
        self.title = Some(title.into());
        self
    }

    /// The same table with `unit` as the unit of the columns headed `columns` (for
    /// headers that do not name theirs).
    pub fn unit(mut self, columns: &[&str], unit: &str) -> Table {
        for (h, u) in self.headers.iter().zip(&mut self.units) {
            if columns.contains(&h.as_str()) {
                *u = Some(unit.to_string());
            }
        }
        self
    }

    /// Appends a row (padded with empty cells or truncated to the header's width). In
    /// `jsonl`, writes its record at once.
    pub fn push(&mut self, mut row: Vec<String>) {
        row.resize(self.headers.len(), String::new());
        self.rows.push(row);
        if format() == Format::Jsonl {
            print_line(&self.record(self.rows.len() - 1).to_string());
        }
    }

    /// The JSON record of row `i` (see the [module documentation](self)).
    pub fn record(&self, i: usize) -> Value {
        let m = machine();
        let mut cells = Map::new();
        let mut units = Map::new();
        for ((h, c), u) in self.headers.iter().zip(&self.rows[i]).zip(&self.units) {
            cells.insert(h.clone(), cell_value(c));
            if let Some(u) = u {
                units.insert(h.clone(), Value::from(u.as_str()));
            }
        }
        json!({
            "bench": output().bench,
            "table": self.id,
            "title": self.title,
            "row": i,
            "commit": m.commit,
            "isa": m.isa,
            "cpu": m.cpu,
            "threads": rayon::current_num_threads(),
            "build": if cfg!(debug_assertions) { "debug assertions" } else { "release" },
            "timestamp": utc_iso(),
            "cells": cells,
            "units": units,
        })
    }

    /// The table as CSV: the record fields `bench`, `table`, `title`, `commit`, `isa`,
    /// `threads`, `timestamp`, then one column per header; a line per row.
    pub fn to_csv(&self) -> String {
        let m = machine();
        let bench = output().bench;
        let mut head: Vec<String> = ["bench", "table", "title", "commit", "isa", "threads"]
            .into_iter()
            .chain(["timestamp"])
            .map(String::from)
            .collect();
        head.extend(self.headers.iter().map(|h| csv_field(h)));
        let mut out = head.join(",") + "\n";
        let fixed = [
            bench.to_string(),
            self.id.to_string(),
            csv_field(self.title.as_deref().unwrap_or("")),
            csv_field(m.commit.as_deref().unwrap_or("")),
            m.isa.clone(),
            rayon::current_num_threads().to_string(),
            utc_iso(),
        ];
        for r in &self.rows {
            let cells = fixed.iter().cloned().chain(r.iter().map(|c| csv_field(c)));
            out.push_str(&cells.collect::<Vec<_>>().join(","));
            out.push('\n');
        }
        out
    }

    /// Writes the table in the run's format: markdown and CSV to stdout now, `json` into
    /// the array printed at the end, `jsonl` nothing more (each row went out when pushed).
    pub fn print(&self) {
        let text = self.emit();
        if !text.is_empty() {
            crate::progress::suspend(|| crate::stdout(&text));
        }
    }

    /// [`Table::print`] for reports assembled as text: in markdown returns the table (for
    /// the caller to print where it belongs) and prints nothing; in the other formats
    /// writes it as [`Table::print`] does and returns nothing.
    pub fn emit(&self) -> String {
        match format() {
            Format::Markdown => self.to_markdown(),
            Format::Json => {
                let records: Vec<Value> = (0..self.rows.len()).map(|i| self.record(i)).collect();
                output().records.extend(records);
                String::new()
            }
            Format::Jsonl => String::new(),
            Format::Csv => {
                let first = {
                    let mut out = output();
                    out.csv_tables += 1;
                    out.csv_tables == 1
                };
                let csv = self.to_csv();
                let csv = if first { csv } else { format!("\n{csv}") };
                crate::progress::suspend(|| crate::stdout(&csv));
                String::new()
            }
        }
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
    let (y, m, d, rem) = civil_now();
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The date and time (UTC) as ISO 8601, `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_iso() -> String {
    let (y, m, d, rem) = civil_now();
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The civil date (UTC) of now, and the seconds since midnight.
fn civil_now() -> (i64, i64, i64, u64) {
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
    (y, m, d, rem)
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
        let iso = utc_iso();
        assert!(
            iso.len() == 20 && iso.ends_with('Z') && &iso[10..11] == "T",
            "{iso}"
        );
    }

    #[test]
    fn cells_units_and_csv() {
        assert_eq!(cell_value("12"), json!(12));
        assert_eq!(cell_value(" 1.5 "), json!(1.5));
        assert_eq!(cell_value("2.0e-12"), json!(2.0e-12));
        assert_eq!(cell_value("-"), Value::Null);
        assert_eq!(cell_value(""), Value::Null);
        for text in ["yes", "2^12", "inf", "NaN", "19.4 (x)", "-3 +"] {
            assert_eq!(cell_value(text), json!(text), "{text}");
        }
        assert_eq!(unit_of("NAND ms").as_deref(), Some("ms"));
        assert_eq!(unit_of("keys MiB (model)").as_deref(), Some("MiB"));
        assert_eq!(unit_of("NTT (µs)").as_deref(), Some("µs"));
        assert_eq!(unit_of("prec (bits)").as_deref(), Some("bits"));
        assert_eq!(unit_of("dnum"), None);
        assert_eq!(unit_of("log QP"), None);
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("plain"), "plain");

        let mut t = Table::new(["method", "NAND ms", "keys"], 1)
            .titled("t")
            .unit(&["keys"], "count");
        t.push(vec!["GINX, ALTMULT".into(), "1.25".into(), "-".into()]);
        let r = t.record(0);
        assert_eq!(r["cells"]["NAND ms"], json!(1.25));
        assert_eq!(r["cells"]["keys"], Value::Null);
        assert_eq!(r["units"]["NAND ms"], json!("ms"));
        assert_eq!(r["units"]["keys"], json!("count"));
        assert_eq!(r["title"], json!("t"));
        assert!(r["threads"].as_u64().unwrap() >= 1);
        assert!(r["timestamp"].as_str().unwrap().ends_with('Z'));
        let csv = t.to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].ends_with(",method,NAND ms,keys"), "{}", lines[0]);
        assert!(
            lines[1].ends_with(",\"GINX, ALTMULT\",1.25,-"),
            "{}",
            lines[1]
        );
        // Markdown is the default: emit hands the table back.
        assert_eq!(t.emit(), t.to_markdown());
    }
}
