//! `hekate bench keyswitch`: hybrid against KLSS (seed 000) and linear (seed 001) key
//! switching, on the papers' own parameter grids, timed in the same run.
//!
//! - **t3 / t4** (seed 000 Tables 3 and 4): `N = 2^15`, `ℓ̃ = 16, 20, 24`, `r = 1..3` and
//!   `N = 2^16`, `ℓ̃ = 32, 40, 48`, `r = 1..4`. `ℓ̃` counts all primes of `PQ`: `r` special
//!   primes of 60 bits and a chain of `ℓ = ℓ̃ - r` primes of 36 bits (Table 2), the input at
//!   the top with `d = ⌈ℓ / r⌉` digits of `r` primes. KLSS sweeps the paper's `r̃` (1..6
//!   for `r = 1`, 2..7 otherwise) with `r'` derived by the library's bound.
//! - **t8** (seed 001 Table VIII, CKKS rows): `N = 2^14..2^16`, `l = 8, 16, 24, 32` chain
//!   primes (one of 55 bits, the rest 40), one 55-bit special prime, `α = 1` (`d = l`):
//!   hybrid against linear key switching with the worst-case and the heuristic bound.
//!
//! Per cell there is one ordinary (hybrid) key; each KLSS / linear setting expands it
//! ([`KlssKeySwitcher::expand`]), is timed, checked word for word against the hybrid
//! output, and dropped before the next one, so at most one expanded key is alive. Every
//! timed setting is also predicted by the calibrated [`CostModel`], and the model's own
//! pick ([`CostModel::best`]: the candidate predicted fastest at that level; `Auto` runs
//! [`CostModel::plan`], which keeps one KLSS configuration across levels) is timed too when
//! it is not in the sweep.

mod args;
mod grid;
mod paper;
mod render;
#[cfg(test)]
mod tests;

pub use args::{KeyswitchArgs, PaperTable};

use super::{fmt_mib, init_threads, peak_rss_bytes, reset_peak_rss, time_once};
use crate::progress::Bar;
use crate::Outcome;
use args::Config;
use grid::{grid, label, run_cell, CellResult, CellSpec};
use hekate::rlwe::keyswitch::cost::UnitCosts;
use render::{render, render_summary};
use std::collections::BTreeMap;
use std::error::Error;
use std::time::Instant;

// ---------------------------------------------------------------------------------------
// Memory.
// ---------------------------------------------------------------------------------------

/// Resident memory now (`VmRSS`), in bytes.
fn current_rss() -> Option<usize> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The note line about peak memory after a table (`reset`: whether the peak was reset at
/// the table's start, `at_start`: resident memory then).
fn memory_note(reset: bool, at_start: Option<usize>) -> String {
    match peak_rss_bytes() {
        Some(b) => {
            let scope = if reset {
                "during"
            } else {
                "of the process up to"
            };
            let detail = match (reset, at_start) {
                (true, Some(s)) => format!(
                    ", reset at the table's start when {} MiB were resident: memory freed \
                     earlier but kept by the allocator or the library's buffer pool counts",
                    fmt_mib(s)
                ),
                _ => String::new(),
            };
            format!(
                "- peak resident memory {scope} this table: {} MiB (VmHWM{detail}).",
                fmt_mib(b)
            )
        }
        None => "- peak resident memory: unavailable (no /proc/self/status).".into(),
    }
}

// ---------------------------------------------------------------------------------------
// The run.
// ---------------------------------------------------------------------------------------

/// Runs `hekate bench keyswitch`.
pub fn run(args: KeyswitchArgs) -> Result<Outcome, Box<dyn Error>> {
    let cfg = args.resolve()?;
    init_threads(cfg.threads)?;
    let report = execute(&cfg, true)?;
    // In markdown the report holds the tables; in the other formats they went out as
    // they were rendered, and the prose goes to stderr.
    crate::bench::say(report.text.trim_end_matches('\n'));
    if report.mismatches.is_empty() {
        Ok(Outcome::Success)
    } else {
        Ok(Outcome::CheckFailed(format!(
            "KLSS / linear outputs differ from hybrid's in: {}",
            report.mismatches.join(", ")
        )))
    }
}

/// What [`execute`] produced.
struct Report {
    /// The markdown output.
    text: String,
    /// Cells and methods whose output differed from hybrid's.
    mismatches: Vec<String>,
    /// All cells, table by table (for the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    cells: Vec<(PaperTable, Vec<CellResult>)>,
}

/// Calibrates, runs every selected table and renders the report.
fn execute(cfg: &Config, progress: bool) -> Result<Report, Box<dyn Error>> {
    let grids: Vec<(PaperTable, Vec<CellSpec>)> = cfg
        .tables
        .iter()
        .map(|&t| (t, grid(cfg, t)))
        .filter(|(t, g)| {
            if g.is_empty() && progress {
                eprintln!("hekate bench keyswitch: {t:?}: no cell matches the filters, skipped");
            }
            !g.is_empty()
        })
        .collect();
    if grids.is_empty() {
        return Err("no cell matches --table / --l-tilde / --r / --levels / --log-n".into());
    }
    let total_cells: usize = grids.iter().map(|(_, g)| g.len()).sum();

    // Unit costs, once per ring degree, before anything else allocates.
    let mut costs: BTreeMap<u32, UnitCosts> = BTreeMap::new();
    for (_, g) in &grids {
        for s in g {
            if let std::collections::btree_map::Entry::Vacant(slot) = costs.entry(s.log_n) {
                let (c, t) = time_once(|| UnitCosts::calibrate(1 << s.log_n));
                if progress {
                    crate::progress::note(format!(
                        "calibrated unit costs at N = 2^{} in {:.2} s: NTT {:.1} µs (< 50-bit) / \
                         {:.1} µs (wide), inner-product term {:.1} / {:.1} µs, conversion pair \
                         {:.1} / {:.1} µs",
                        s.log_n,
                        t.as_secs_f64(),
                        c.ntt_narrow * 1e6,
                        c.ntt_wide * 1e6,
                        c.hadamard * 1e6,
                        c.hadamard_wide * 1e6,
                        c.conversion * 1e6,
                        c.conversion_wide * 1e6
                    ));
                }
                slot.insert(c);
            }
        }
    }

    let start = Instant::now();
    let mut text = String::new();
    let mut mismatches = Vec::new();
    let mut all = Vec::new();
    let mut done = 0;
    let bar = if progress {
        Bar::new(total_cells as u64, "cells")
    } else {
        Bar::hidden()
    };
    for (table, specs) in grids {
        let reset = reset_peak_rss();
        let at_start = current_rss();
        let mut cells = Vec::with_capacity(specs.len());
        for spec in &specs {
            done += 1;
            if progress {
                crate::progress::line_start(format!(
                    "[{done}/{total_cells}] {table:?} N = 2^{}, {} + {} primes, d = {}:",
                    spec.log_n,
                    spec.q_bits.len(),
                    spec.p_bits.len(),
                    spec.dnum
                ));
            }
            let t = Instant::now();
            let cell = run_cell(spec, &costs[&spec.log_n], cfg.reps, cfg.quick, progress)?;
            if progress {
                crate::progress::line_end(format!(
                    " (keygen {:.1} s, cell {:.1} s)",
                    cell.keygen_s,
                    t.elapsed().as_secs_f64()
                ));
            }
            bar.inc(1);
            for row in cell.timed.iter().filter(|r| !r.identical) {
                mismatches.push(format!(
                    "N = 2^{} {}+{} primes {}",
                    spec.log_n,
                    spec.q_bits.len(),
                    spec.p_bits.len(),
                    label(&row.method)
                ));
            }
            cells.push(cell);
        }
        text.push_str(&render(table, &cells, cfg, &costs));
        text.push_str(&memory_note(reset, at_start));
        text.push_str("\n\n");
        all.push((table, cells));
    }
    text.push_str(&render_summary(&all, start.elapsed().as_secs_f64()));
    Ok(Report {
        text,
        mismatches,
        cells: all,
    })
}
