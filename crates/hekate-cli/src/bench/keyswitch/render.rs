//! The markdown report: one table per paper table with its notes, and the cost model's
//! summary over the run.

use super::args::{Config, PaperTable, T8Scheme};
use super::grid::{canon, label, CellResult, Timed};
use super::paper::{
    paper_klss, paper_linear, paper_r_prime, paper_sweep, PAPER_KLSS, PAPER_LINEAR,
};
use crate::bench::{fmt_mib, fmt_ms, header, Table};
use hekate::rlwe::keyswitch::cost::{self, UnitCosts};
use hekate::rlwe::keyswitch::{KeySwitchMethod, KlssBound};
use std::collections::BTreeMap;

/// Signed prediction error in percent: `predicted / measured - 1`.
fn pred_err(t: &Timed) -> f64 {
    (t.predicted_s / t.stats.median.as_secs_f64() - 1.0) * 100.0
}

fn x2(v: f64) -> String {
    format!("{v:.2}")
}

/// The candidates of [`CostModel::best`] for a cell, canonical.
fn candidates(cell: &CellResult) -> Vec<KeySwitchMethod> {
    // They depend on ℓ̃ alone, so the ring need not be kept.
    cost::candidates(cell.spec.q_bits.len() + cell.spec.p_bits.len())
}

/// The table of one paper table, with its header and notes.
pub(super) fn render(
    table: PaperTable,
    cells: &[CellResult],
    cfg: &Config,
    costs: &BTreeMap<u32, UnitCosts>,
) -> String {
    let mut out = String::new();
    let title = match table {
        PaperTable::T3 => "keyswitch: seed 000 Table 3 (KLSS vs hybrid; paper: N = 2^15)",
        PaperTable::T4 => "keyswitch: seed 000 Table 4 (KLSS vs hybrid; paper: N = 2^16)",
        _ => "keyswitch: seed 001 Table VIII (linear vs hybrid)",
    };
    out.push_str(&header(title, cfg.threads));
    out.push_str("\n\n");
    if cfg.quick {
        out.push_str(
            "**--quick**: N = 2^12 with small chains; the paper columns are the nearest \
             rows' figures at the paper's own (larger) parameters, for shape only.\n\n",
        );
    }
    match table {
        PaperTable::T3 | PaperTable::T4 => render_klss(&mut out, table, cells, cfg),
        _ => render_linear(&mut out, cells, cfg),
    }
    let mut ns: Vec<u32> = cells.iter().map(|c| c.spec.log_n).collect();
    ns.dedup();
    for log_n in ns {
        if let Some(c) = costs.get(&log_n) {
            out.push_str(&format!(
                "- unit costs calibrated at N = 2^{log_n}: NTT {:.1} µs (prime < 2^50) / {:.1} µs \
                 (wider), inner-product term {:.1} / {:.1} µs, conversion limb pair {:.1} / \
                 {:.1} µs (prime < 2^50 / wider).\n",
                c.ntt_narrow * 1e6,
                c.ntt_wide * 1e6,
                c.hadamard * 1e6,
                c.hadamard_wide * 1e6,
                c.conversion * 1e6,
                c.conversion_wide * 1e6
            ));
        }
    }
    out
}

/// Seed 000 Tables 3-4: the r̃ sweep, then a summary per `(ℓ̃, r)`.
fn render_klss(out: &mut String, table: PaperTable, cells: &[CellResult], cfg: &Config) {
    let paper_n = if table == PaperTable::T3 { 15 } else { 16 };
    let paper_for = |c: &CellResult| {
        let lt = c.spec.q_bits.len() + c.spec.p_bits.len();
        let r = c.spec.p_bits.len();
        paper_klss(paper_n, lt, r).or_else(|| {
            // --quick: the paper's smallest ℓ̃ of this table with the same r.
            cfg.quick
                .then(|| PAPER_KLSS.iter().find(|p| p.log_n == paper_n && p.r == r))
                .flatten()
        })
    };
    let mut t = Table::new(
        [
            "log N",
            "ℓ̃",
            "(ℓ, r)",
            "d",
            "method",
            "r̃",
            "d̃",
            "r'",
            "paper r'",
            "key MiB",
            "key / hybrid",
            "expand s",
            "time ms",
            "speedup",
            "pred ms",
            "pred err",
            "paper s",
            "paper speedup",
        ],
        5,
    )
    .titled(format!("{table:?} timings"));
    for c in cells {
        let (l, r) = (c.q_limbs, c.spec.p_bits.len());
        let lt = l + r;
        let paper = paper_for(c);
        let h = c.hybrid();
        for row in &c.timed {
            let mut name = label(&row.method);
            if row.auto_extra {
                name.push_str(" [model's pick]");
            }
            let (rt, dt, rp) = match row.klss {
                Some((a, b, c)) => (a.to_string(), b.to_string(), fmt_r_prime(c)),
                None => ("-".into(), "-".into(), "-".into()),
            };
            let paper_rp = row
                .klss
                .and_then(|(rt, _, _)| paper_r_prime(r, rt))
                .map_or("-".into(), |v| v.to_string());
            let (paper_s, paper_speedup) = match (paper, row.klss) {
                (Some(p), None) => (format!("{:.3}", p.prev), "1.00".into()),
                (Some(p), Some((rt, _, _))) => match paper_sweep(r).iter().position(|&x| x == rt) {
                    Some(i) => (format!("{:.3}", p.ours[i]), x2(p.prev / p.ours[i])),
                    None => ("-".into(), "-".into()),
                },
                (None, _) => ("-".into(), "-".into()),
            };
            t.push(vec![
                c.spec.log_n.to_string(),
                lt.to_string(),
                format!("({l}, {r})"),
                c.spec.dnum.to_string(),
                name,
                rt,
                dt,
                rp,
                paper_rp,
                fmt_mib(row.key_bytes),
                x2(row.key_bytes as f64 / h.key_bytes as f64),
                row.expand_s.map_or("-".into(), |s| format!("{s:.2}")),
                fmt_ms(row.stats.ms()),
                x2(c.speedup(row)),
                fmt_ms(row.predicted_s * 1e3),
                format!("{:+.0}%", pred_err(row)),
                paper_s,
                paper_speedup,
            ]);
        }
    }
    out.push_str(&t.emit());
    out.push('\n');

    // Summary per (ℓ̃, r).
    let mut s = Table::new(
        [
            "log N",
            "ℓ̃",
            "(ℓ, r)",
            "hybrid ms",
            "best KLSS",
            "best ms",
            "speedup",
            "paper best",
            "paper speedup",
            "model's pick",
            "pick ms",
            "pick = fastest",
        ],
        3,
    )
    .titled(format!("{table:?} model"));
    for c in cells {
        let (l, r) = (c.q_limbs, c.spec.p_bits.len());
        let paper = paper_for(c);
        let best = c
            .timed
            .iter()
            .filter(|t| t.klss.is_some() && !t.auto_extra)
            .min_by_key(|t| t.stats.median);
        let (best_name, best_ms, best_speedup) = match best {
            Some(b) => {
                let (rt, _, rp) = b.klss.expect("KLSS row");
                (
                    format!("r̃={rt}, r'={}", fmt_r_prime(rp)),
                    fmt_ms(b.stats.ms()),
                    x2(c.speedup(b)),
                )
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        let (paper_best, paper_speedup) = match paper {
            Some(p) => {
                let (i, _) =
                    p.ours
                        .iter()
                        .enumerate()
                        .fold((0, f64::MAX), |a, (i, &v)| if v < a.1 { (i, v) } else { a });
                let rt = paper_sweep(r)[i];
                (
                    format!("r̃={rt}, r'={}", paper_r_prime(r, rt).unwrap_or(0)),
                    format!("{:.1}", p.speedup),
                )
            }
            None => ("-".into(), "-".into()),
        };
        let cands = candidates(c);
        let fastest = c.fastest_eligible(&cands);
        let pick = c.auto_row();
        s.push(vec![
            c.spec.log_n.to_string(),
            (l + r).to_string(),
            format!("({l}, {r})"),
            fmt_ms(c.hybrid().stats.ms()),
            best_name,
            best_ms,
            best_speedup,
            paper_best,
            paper_speedup,
            label(&c.auto),
            pick.map_or("-".into(), |p| fmt_ms(p.stats.ms())),
            hit_cell(pick, fastest),
        ]);
    }
    out.push_str(&s.emit());
    out.push('\n');
    out.push_str("Notes:\n");
    out.push_str(
        "- Parameters (seed 000 Table 2): ℓ̃ primes in PQ, r special primes of 60 bits and a \
         chain of ℓ = ℓ̃ - r primes of 36 bits; one key switch of a uniformly random \
         polynomial at the top level (all ℓ chain primes), d = ⌈ℓ/r⌉ digits of r primes. \
         hybrid is the paper's \"Prev\"; klss(r̃) expands the SAME hybrid key (Expanded \
         storage) and its output is checked equal to hybrid's word for word.\n",
    );
    out.push_str(
        "- r': primes of B' (61-bit, the library default, unless --b-prime-bits says \
         otherwise) derived from the worst-case bound B' > 2 N Σ_j B_j B̃_i (Eq. (5)) per \
         key digit i; `a-b` means the digits take a to b of them. paper r' is the paper's \
         (60-bit primes). Ours can be one higher: hekate's key digits are taken over PQ in \
         the order p_0.., q_0.. so the first digit holds the 60-bit special prime(s) with \
         r̃ - 1 chain primes, which needs the most; the paper's r' fits digits of r̃ 36-bit \
         chain primes.\n",
    );
    out.push_str(
        "- key MiB: the key in memory (hybrid: 2 d (ℓ + r) N words; KLSS: the expanded key, \
         2 d Σ r'_i N words); key / hybrid is their ratio. expand s: expanding the hybrid key, \
         once (not part of the switch).\n",
    );
    out.push_str(&format!(
        "- time ms: median of {} key switches after one warm-up{}; speedup = hybrid time / \
         this time (same run). paper s / paper speedup: the paper's seconds (Lattigo, Xeon \
         Platinum 8268, one thread) and its Prev / Ours for that r̃.\n",
        cfg.reps,
        if cfg.quick {
            " (the methods of a cell interleaved: one switch of each per round)"
        } else {
            ""
        }
    ));
    out.push_str(
        "- pred ms: CostModel::predict with the unit costs calibrated once per N at start-up \
         (single-thread costs); pred err = predicted / measured - 1.\n",
    );
    out.push_str(
        "- Summary: best KLSS is the fastest r̃ of the sweep; paper best / paper speedup the \
         paper's. model's pick is CostModel::best (the candidate predicted fastest at this level: \
         hybrid or KLSS r̃ = 1..8, worst-case bound, 61- or 50-bit B' primes; Auto runs \
         CostModel::plan, one KLSS r̃ for all levels); it is timed as an extra row when it is \
         outside the sweep. pick = fastest: whether it is the measured-fastest of the timed methods it \
         could pick (else its time over the fastest's).\n",
    );
}

/// `yes`, or the pick's time over the fastest's.
fn hit_cell(pick: Option<&Timed>, fastest: Option<&Timed>) -> String {
    match (pick, fastest) {
        (Some(p), Some(f)) if canon(&p.method) == canon(&f.method) => "yes".into(),
        (Some(p), Some(f)) => format!(
            "no ({:.2}x the time of {})",
            p.stats.median.as_secs_f64() / f.stats.median.as_secs_f64(),
            label(&f.method)
        ),
        _ => "-".into(),
    }
}

/// Seed 001 Table VIII's CKKS rows.
fn render_linear(out: &mut String, cells: &[CellResult], cfg: &Config) {
    let mut t = Table::new(
        [
            "scheme",
            "log N",
            "l",
            "d",
            "method",
            "r'",
            "key MiB",
            "key / hybrid",
            "expand s",
            "time ms",
            "speedup",
            "(I)NTT",
            "pred ms",
            "pred err",
            "paper ms (GPU)",
            "paper speedup",
            "model's pick",
        ],
        5,
    )
    .titled("T8 timings");
    for c in cells {
        let (l, scheme) = (c.spec.paper_l, c.spec.scheme);
        let paper = paper_linear(scheme, c.spec.log_n, l).or_else(|| {
            cfg.quick
                .then(|| {
                    PAPER_LINEAR
                        .iter()
                        .find(|p| p.scheme == scheme && p.log_n == 14 && p.l == 8)
                })
                .flatten()
        });
        let h = c.hybrid();
        let cands = candidates(c);
        let hit = hit_cell(c.auto_row(), c.fastest_eligible(&cands));
        for (i, row) in c.timed.iter().enumerate() {
            let mut name = label(&row.method);
            if row.auto_extra {
                name.push_str(" [model's pick]");
            }
            let (paper_ms, paper_speedup) = match (paper, row.method) {
                (Some(p), KeySwitchMethod::Hybrid) => {
                    (format!("{:.2}", p.baseline_ms), "1.00".into())
                }
                (Some(p), KeySwitchMethod::Linear(KlssBound::WorstCase)) => {
                    (format!("{:.2}", p.linear_ms), format!("{:.1}", p.speedup))
                }
                _ => ("-".into(), "-".into()),
            };
            t.push(vec![
                format!("{scheme:?}").to_uppercase(),
                c.spec.log_n.to_string(),
                l.to_string(),
                c.spec.dnum.to_string(),
                name,
                row.klss.map_or("-".into(), |(_, _, rp)| fmt_r_prime(rp)),
                fmt_mib(row.key_bytes),
                x2(row.key_bytes as f64 / h.key_bytes as f64),
                row.expand_s.map_or("-".into(), |s| format!("{s:.2}")),
                fmt_ms(row.stats.ms()),
                x2(c.speedup(row)),
                row.transforms.to_string(),
                fmt_ms(row.predicted_s * 1e3),
                format!("{:+.0}%", pred_err(row)),
                paper_ms,
                paper_speedup,
                if i == 0 {
                    format!("{}: {hit}", label(&c.auto))
                } else {
                    String::new()
                },
            ]);
        }
    }
    out.push_str(&t.emit());
    out.push('\n');
    out.push_str(&scheme_comparison(cells));
    out.push_str("Notes:\n");
    out.push_str(
        "- Parameters (seed 001 Table VI): P = one 55-bit prime, α = 1 (d = one digit per \
         chain prime); Q = one 55-bit + (l - 1) 40-bit primes (CKKS), l 40-bit primes (BGV), \
         l - 1 40-bit primes (BFV: the paper's l counts one more); one key switch of a \
         uniformly random polynomial with all chain primes. hybrid is the paper's \
         \"Baseline\". CKKS and BGV switch in NTT form (this representation of BGV needs no \
         t-correction: the rows differ from CKKS's by q_0's size only); BFV's input and \
         output stay in coefficient form (seed 001 Alg. 5: its c_2 leaves the scale-and-round \
         there). (I)NTT: forward plus inverse transforms of one switch \
         (hekate::math::transform_count): the linear engine saves 3 l of them in coefficient \
         form (seed 001 Table II: 6l + 4 against 8l + 4), the hybrid engine none (it needs \
         both forms of its input). The cost model predicts NTT-form switches.\n",
    );
    out.push_str(
        "- linear (worst-case B'): KLSS with r̃ = 1 (seed 001's linear key switching), B' = \
         r' 61-bit primes sized by the worst-case bound (exact for every input). linear \
         (heuristic B'): B' sized by Hoeffding's bound for uniformly distributed digits at \
         failure probability 2^-64 per coefficient, which gives r' = 2 = the paper's two \
         moduli [m_0, m_1]; it is NOT safe for inputs chosen by an adversary who knows the \
         key. Both expand the same hybrid key and are checked equal to hybrid's output.\n",
    );
    out.push_str(
        "- key / hybrid: expanded key over hybrid key in memory = r' (the paper: \"about twice \
         its original size\", i.e. its r' = 2).\n",
    );
    out.push_str(&format!(
        "- time ms: median of {} key switches after one warm-up{}, on this CPU; speedup = \
         hybrid time / this time. paper ms (GPU): the paper's Baseline and Ours times on one \
         NVIDIA A100, and its speedup vs Baseline: only the ratios are comparable.\n",
        cfg.reps,
        if cfg.quick {
            " (the methods of a cell interleaved: one switch of each per round)"
        } else {
            ""
        }
    ));
    out.push_str(
        "- pred ms / pred err: CostModel::predict (calibrated once per N) and predicted / \
         measured - 1. model's pick: CostModel::best (hybrid or KLSS r̃ = 1..8, 61- or 50-bit \
         B', worst-case bound; timed as an extra row when it is not hybrid or linear), and whether it is the \
         measured-fastest of the timed methods it could pick (the heuristic linear is not a \
         candidate).\n",
    );
}

/// Seed 001's BFV claim, measured: the linear engine's speedup over hybrid for BFV
/// (coefficient form) against BGV's (NTT form) at the same `N` and paper `l`, with the
/// transform counts behind it. Empty when the run has no such pair.
fn scheme_comparison(cells: &[CellResult]) -> String {
    let linear = |c: &CellResult| {
        c.timed
            .iter()
            .find(|t| t.method == KeySwitchMethod::Linear(KlssBound::WorstCase))
            .map(|t| (c.speedup(t), t.transforms, c.hybrid().transforms))
    };
    let mut t = Table::new(
        [
            "log N",
            "l",
            "BGV linear speedup",
            "BFV linear speedup",
            "BFV ≥ BGV",
            "BGV (I)NTT hybrid / linear",
            "BFV (I)NTT hybrid / linear",
        ],
        2,
    )
    .titled("scheme comparison");
    for bfv in cells.iter().filter(|c| c.spec.scheme == T8Scheme::Bfv) {
        let Some(bgv) = cells.iter().find(|c| {
            c.spec.scheme == T8Scheme::Bgv
                && (c.spec.log_n, c.spec.paper_l) == (bfv.spec.log_n, bfv.spec.paper_l)
        }) else {
            continue;
        };
        let (Some((sg, lg, hg)), Some((sf, lf, hf))) = (linear(bgv), linear(bfv)) else {
            continue;
        };
        t.push(vec![
            bfv.spec.log_n.to_string(),
            bfv.spec.paper_l.to_string(),
            x2(sg),
            x2(sf),
            if sf >= sg { "yes" } else { "no" }.into(),
            format!("{hg} / {lg}"),
            format!("{hf} / {lf}"),
        ]);
    }
    if t.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "BFV against BGV at the same N and l (linear with the worst-case B'; seed 001: BFV's \
         coefficient-form switch saves the linear engine its input and output transforms):\n\n",
    );
    out.push_str(&t.emit());
    out.push('\n');
    out
}

/// Prediction error and the model's hit rate over the whole run.
pub(super) fn render_summary(all: &[(PaperTable, Vec<CellResult>)], total_s: f64) -> String {
    let mut t = Table::new(
        [
            "table",
            "cells",
            "timed settings",
            "mean abs pred err",
            "max abs pred err",
            "pick = fastest",
            "mean pick / fastest",
        ],
        1,
    )
    .titled("summary");
    let (mut hits, mut cells_all) = (0usize, 0usize);
    for (table, cells) in all {
        let rows: Vec<&Timed> = cells.iter().flat_map(|c| c.timed.iter()).collect();
        let errs: Vec<f64> = rows.iter().map(|r| pred_err(r).abs()).collect();
        let mean = errs.iter().sum::<f64>() / errs.len().max(1) as f64;
        let max = errs.iter().copied().fold(0.0, f64::max);
        let mut h = 0;
        let mut loss = Vec::new();
        for c in cells {
            let cands = candidates(c);
            if let (Some(p), Some(f)) = (c.auto_row(), c.fastest_eligible(&cands)) {
                if canon(&p.method) == canon(&f.method) {
                    h += 1;
                }
                loss.push(p.stats.median.as_secs_f64() / f.stats.median.as_secs_f64());
            }
        }
        hits += h;
        cells_all += cells.len();
        t.push(vec![
            format!("{table:?}").to_lowercase(),
            cells.len().to_string(),
            rows.len().to_string(),
            format!("{mean:.0}%"),
            format!("{max:.0}%"),
            format!("{h}/{}", cells.len()),
            format!("{:.3}", loss.iter().sum::<f64>() / loss.len().max(1) as f64),
        ]);
    }
    let mut out = String::from("## Cost model summary\n\n");
    out.push_str(&t.emit());
    out.push('\n');
    out.push_str(&format!(
        "CostModel::best picked the measured-fastest method in {hits} of {cells_all} cells. \
         abs pred err is |predicted / measured - 1| over every timed setting; mean pick / \
         fastest is the measured time of the model's pick over the fastest timed method it \
         could have picked (1.000 = always right). Total run time {total_s:.1} s.\n"
    ));
    out
}

/// `r'` for a table: one number, or `min-max` where the key digits differ (the digits
/// holding the special primes can need one more `B'` prime than the others).
fn fmt_r_prime((min, max): (usize, usize)) -> String {
    if min == max {
        max.to_string()
    } else {
        format!("{min}-{max}")
    }
}
