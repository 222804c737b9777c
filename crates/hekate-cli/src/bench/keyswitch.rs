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

use super::{fmt_mib, fmt_ms, header, init_threads, time_once, try_measure, Stats, Table};
use crate::Outcome;
use clap::{Args, ValueEnum};
use hekate::math::PrimeGenerator;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::ring::{Form, RingContext};
use hekate::rlwe::keyswitch::cost::{self, CostModel, UnitCosts};
use hekate::rlwe::keyswitch::{
    HybridKeySwitcher, KeyStorage, KeySwitchMethod, KeySwitcher, KlssBound, KlssConfig,
    KlssKeySwitcher,
};
use hekate::rlwe::{SecretDistribution, SecretKey};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::error::Error;
use std::time::Instant;

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
    /// Only these log2 N in t8, comma separated
    #[arg(long = "log-n", value_delimiter = ',', value_name = "LOG_N,...")]
    log_n: Option<Vec<u32>>,
    /// Timed repetitions per setting, after one untimed warm-up (the median is shown)
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Threads of the global rayon pool the library parallelises on (the papers: 1)
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// A fast smoke run at N = 2^12 with small chains (seconds): t3 ℓ̃ = 8, r = 1, 2; t4
    /// ℓ̃ = 12, r = 1, 4; t8 l = 4, 8. Paper columns are then for shape only.
    #[arg(long)]
    quick: bool,
}

/// The library's default size of the `B'` primes ([`KlssConfig::klss`]).
const DEFAULT_B_PRIME_BITS: u32 = 61;

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

/// The resolved run configuration.
#[derive(Debug, Clone)]
struct Config {
    tables: Vec<PaperTable>,
    quick: bool,
    reps: usize,
    threads: usize,
    r_tilde: Option<Vec<usize>>,
    b_prime_bits: u32,
    l_tilde: Option<Vec<usize>>,
    r: Option<Vec<usize>>,
    levels: Option<Vec<usize>>,
    log_n: Option<Vec<u32>>,
}

impl KeyswitchArgs {
    fn resolve(self) -> Result<Config, Box<dyn Error>> {
        let mut tables: Vec<PaperTable> = if self.table.contains(&PaperTable::All) {
            vec![PaperTable::T3, PaperTable::T4, PaperTable::T8]
        } else {
            self.table
        };
        tables.sort_unstable();
        tables.dedup();
        if self.reps == 0 {
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
        if !(30..=61).contains(&self.b_prime_bits) {
            return Err(format!("--b-prime-bits {} is outside [30, 61]", self.b_prime_bits).into());
        }
        Ok(Config {
            tables,
            quick: self.quick,
            reps: self.reps,
            threads: self.threads,
            r_tilde: self.r_tilde,
            b_prime_bits: self.b_prime_bits,
            l_tilde: self.l_tilde,
            r: self.r,
            levels: self.levels,
            log_n: self.log_n,
        })
    }
}

// ---------------------------------------------------------------------------------------
// The papers' figures.
// ---------------------------------------------------------------------------------------

/// One `(ℓ̃, r)` cell of seed 000 Tables 3-4 (seconds, one thread, Lattigo on a Xeon
/// Platinum 8268).
struct PaperKlss {
    log_n: u32,
    l_tilde: usize,
    r: usize,
    /// "Prev": the hybrid key switch.
    prev: f64,
    /// "Ours" for the paper's r̃ sweep ([`paper_sweep`]).
    ours: [f64; 6],
    /// The paper's speedup column (best of `ours` against `prev`).
    speedup: f64,
}

const fn pk(log_n: u32, l_tilde: usize, r: usize, prev: f64, ours: [f64; 6], s: f64) -> PaperKlss {
    PaperKlss {
        log_n,
        l_tilde,
        r,
        prev,
        ours,
        speedup: s,
    }
}

/// Seed 000 Tables 3 (`N = 2^15`) and 4 (`N = 2^16`).
#[allow(clippy::approx_constant)] // 0.318 s is a measured time, not 1/π
const PAPER_KLSS: &[PaperKlss] = &[
    pk(
        15,
        16,
        1,
        0.143,
        [0.116, 0.101, 0.084, 0.086, 0.087, 0.092],
        1.7,
    ),
    pk(
        15,
        16,
        2,
        0.096,
        [0.074, 0.078, 0.062, 0.075, 0.076, 0.076],
        1.5,
    ),
    pk(
        15,
        16,
        3,
        0.077,
        [0.083, 0.070, 0.066, 0.077, 0.067, 0.076],
        1.2,
    ),
    pk(
        15,
        20,
        1,
        0.216,
        [0.162, 0.139, 0.112, 0.118, 0.115, 0.129],
        1.9,
    ),
    pk(
        15,
        20,
        2,
        0.145,
        [0.102, 0.103, 0.085, 0.092, 0.107, 0.093],
        1.7,
    ),
    pk(
        15,
        20,
        3,
        0.113,
        [0.109, 0.088, 0.087, 0.089, 0.088, 0.089],
        1.3,
    ),
    pk(
        15,
        24,
        1,
        0.317,
        [0.214, 0.183, 0.140, 0.152, 0.142, 0.151],
        2.3,
    ),
    pk(
        15,
        24,
        2,
        0.204,
        [0.128, 0.128, 0.110, 0.118, 0.124, 0.125],
        1.9,
    ),
    pk(
        15,
        24,
        3,
        0.151,
        [0.137, 0.106, 0.112, 0.114, 0.101, 0.115],
        1.5,
    ),
    pk(
        16,
        32,
        1,
        1.181,
        [0.744, 0.605, 0.455, 0.476, 0.451, 0.499],
        2.6,
    ),
    pk(
        16,
        32,
        2,
        0.854,
        [0.414, 0.427, 0.352, 0.399, 0.408, 0.388],
        2.4,
    ),
    pk(
        16,
        32,
        3,
        0.655,
        [0.466, 0.341, 0.335, 0.364, 0.350, 0.372],
        2.0,
    ),
    pk(
        16,
        32,
        4,
        0.486,
        [0.403, 0.357, 0.343, 0.319, 0.318, 0.301],
        1.6,
    ),
    pk(
        16,
        40,
        1,
        1.841,
        [1.098, 0.905, 0.682, 0.711, 0.604, 0.690],
        3.0,
    ),
    pk(
        16,
        40,
        2,
        1.378,
        [0.621, 0.623, 0.508, 0.531, 0.574, 0.532],
        2.7,
    ),
    pk(
        16,
        40,
        3,
        1.038,
        [0.659, 0.521, 0.506, 0.519, 0.479, 0.507],
        2.2,
    ),
    pk(
        16,
        40,
        4,
        0.929,
        [0.581, 0.554, 0.514, 0.456, 0.481, 0.438],
        2.1,
    ),
    pk(
        16,
        48,
        1,
        2.688,
        [1.532, 1.234, 0.876, 0.938, 0.818, 0.880],
        3.3,
    ),
    pk(
        16,
        48,
        2,
        1.980,
        [0.823, 0.791, 0.655, 0.702, 0.727, 0.670],
        3.0,
    ),
    pk(
        16,
        48,
        3,
        1.438,
        [0.834, 0.629, 0.630, 0.657, 0.585, 0.617],
        2.5,
    ),
    pk(
        16,
        48,
        4,
        1.191,
        [0.738, 0.670, 0.650, 0.589, 0.592, 0.550],
        2.2,
    ),
];

/// The paper's r̃ sweep for `r`.
fn paper_sweep(r: usize) -> [usize; 6] {
    if r == 1 {
        [1, 2, 3, 4, 5, 6]
    } else {
        [2, 3, 4, 5, 6, 7]
    }
}

/// The paper's `r'` (Eq. (5), 60-bit `B'` primes) for `r` and `r̃`, as printed in Tables
/// 3-4 (it depends on neither `N` nor `ℓ̃` there).
fn paper_r_prime(r: usize, r_tilde: usize) -> Option<usize> {
    let row: [usize; 6] = match r {
        1 => [2, 3, 3, 4, 4, 5],
        2 => [3, 4, 4, 5, 6, 6],
        3 => [4, 4, 5, 6, 6, 7],
        4 => [4, 5, 6, 6, 7, 7],
        _ => return None,
    };
    let at = paper_sweep(r).iter().position(|&t| t == r_tilde)?;
    Some(row[at])
}

fn paper_klss(log_n: u32, l_tilde: usize, r: usize) -> Option<&'static PaperKlss> {
    PAPER_KLSS
        .iter()
        .find(|p| (p.log_n, p.l_tilde, p.r) == (log_n, l_tilde, r))
}

/// One CKKS row of seed 001 Table VIII (ms, one NVIDIA A100).
struct PaperLinear {
    log_n: u32,
    l: usize,
    baseline_ms: f64,
    linear_ms: f64,
    speedup: f64,
}

const fn pl(log_n: u32, l: usize, baseline_ms: f64, linear_ms: f64, speedup: f64) -> PaperLinear {
    PaperLinear {
        log_n,
        l,
        baseline_ms,
        linear_ms,
        speedup,
    }
}

/// Seed 001 Table VIII, CKKS rows ("Baseline" is hybrid with α = 1, "Ours" linear).
const PAPER_LINEAR: &[PaperLinear] = &[
    pl(14, 8, 2.84, 1.99, 1.4),
    pl(14, 16, 6.68, 3.45, 1.9),
    pl(14, 24, 10.00, 5.32, 1.9),
    pl(14, 32, 15.45, 7.82, 2.0),
    pl(15, 8, 3.95, 2.95, 1.3),
    pl(15, 16, 8.61, 5.80, 1.5),
    pl(15, 24, 16.57, 10.26, 1.6),
    pl(15, 32, 26.65, 16.13, 1.7),
    pl(16, 8, 5.06, 4.80, 1.1),
    pl(16, 16, 14.34, 11.75, 1.2),
    pl(16, 24, 28.53, 21.15, 1.3),
    pl(16, 32, 47.94, 32.89, 1.5),
];

fn paper_linear(log_n: u32, l: usize) -> Option<&'static PaperLinear> {
    PAPER_LINEAR.iter().find(|p| (p.log_n, p.l) == (log_n, l))
}

// ---------------------------------------------------------------------------------------
// Cells.
// ---------------------------------------------------------------------------------------

/// The parameters and methods of one cell.
#[derive(Debug, Clone)]
struct CellSpec {
    log_n: u32,
    /// Chain prime sizes, bits.
    q_bits: Vec<u32>,
    /// Special prime sizes, bits.
    p_bits: Vec<u32>,
    dnum: usize,
    /// Methods to time, hybrid first.
    methods: Vec<KeySwitchMethod>,
    seed: u64,
}

/// One timed method of a cell.
#[derive(Debug, Clone)]
struct Timed {
    method: KeySwitchMethod,
    /// Not asked for: the cost model's pick, timed to score it.
    auto_extra: bool,
    /// `(r̃, d̃, (min r'_i, max r'_i))` of a KLSS / linear engine.
    klss: Option<(usize, usize, (usize, usize))>,
    /// In-memory key size (the expanded key for KLSS).
    key_bytes: usize,
    /// Expansion of the hybrid key, seconds (KLSS only).
    expand_s: Option<f64>,
    stats: Stats,
    predicted_s: f64,
    /// Output equal, word for word, to the hybrid engine's.
    identical: bool,
}

/// The results of one cell.
#[derive(Debug, Clone)]
struct CellResult {
    spec: CellSpec,
    q_limbs: usize,
    keygen_s: f64,
    /// Hybrid first.
    timed: Vec<Timed>,
    /// [`CostModel::best`]'s pick.
    auto: KeySwitchMethod,
}

/// `Linear(b)` is the KLSS engine with `r̃ = 1` and bound `b`: one name for comparisons.
fn canon(m: &KeySwitchMethod) -> KeySwitchMethod {
    match *m {
        KeySwitchMethod::Linear(b) => KeySwitchMethod::Klss(KlssConfig::linear().with_bound(b)),
        other => other,
    }
}

/// A row label for a method.
fn label(m: &KeySwitchMethod) -> String {
    match m {
        KeySwitchMethod::Linear(KlssBound::Heuristic) => "linear (heuristic B')".into(),
        KeySwitchMethod::Linear(KlssBound::WorstCase) => "linear (worst-case B')".into(),
        KeySwitchMethod::Klss(c)
            if c.bound == KlssBound::Heuristic || c.b_prime_bits != DEFAULT_B_PRIME_BITS =>
        {
            let bound = if c.bound == KlssBound::Heuristic {
                ", heuristic"
            } else {
                ""
            };
            format!("klss(r̃={}, {}-bit{bound} B')", c.r_tilde, c.b_prime_bits)
        }
        other => other.name(),
    }
}

impl CellResult {
    fn hybrid(&self) -> &Timed {
        &self.timed[0]
    }

    /// Speedup of `t` over hybrid (hybrid time / its time).
    fn speedup(&self, t: &Timed) -> f64 {
        self.hybrid().stats.median.as_secs_f64() / t.stats.median.as_secs_f64()
    }

    /// The measured-fastest among the timed methods the cost model could have picked.
    fn fastest_eligible(&self, candidates: &[KeySwitchMethod]) -> Option<&Timed> {
        self.timed
            .iter()
            .filter(|t| candidates.contains(&canon(&t.method)))
            .min_by_key(|t| t.stats.median)
    }

    /// The timed row of the model's pick.
    fn auto_row(&self) -> Option<&Timed> {
        let a = canon(&self.auto);
        self.timed.iter().find(|t| canon(&t.method) == a)
    }
}

/// Prime sizes of one seed-000 cell: `ℓ = ℓ̃ - r` chain primes of 36 bits, `r` special
/// primes of 60 bits (Table 2).
fn seed000_spec(
    log_n: u32,
    l_tilde: usize,
    r: usize,
    sweep: &[usize],
    b_prime_bits: u32,
) -> CellSpec {
    let l = l_tilde - r;
    let methods = std::iter::once(KeySwitchMethod::Hybrid)
        .chain(sweep.iter().map(|&rt| {
            let mut cfg = KlssConfig::klss(rt);
            cfg.b_prime_bits = b_prime_bits;
            KeySwitchMethod::Klss(cfg)
        }))
        .collect();
    CellSpec {
        log_n,
        q_bits: vec![36; l],
        p_bits: vec![60; r],
        dnum: l.div_ceil(r),
        methods,
        seed: 0x6b73_0000 ^ (u64::from(log_n) << 16) ^ ((l_tilde as u64) << 8) ^ r as u64,
    }
}

/// Prime sizes of one seed-001 CKKS cell: `Q = 55 + (l-1) × 40`, `P = 55`, `α = 1`.
fn seed001_spec(log_n: u32, l: usize) -> CellSpec {
    let mut q_bits = vec![55];
    q_bits.extend(std::iter::repeat_n(40, l - 1));
    CellSpec {
        log_n,
        q_bits,
        p_bits: vec![55],
        dnum: l,
        methods: vec![
            KeySwitchMethod::Hybrid,
            KeySwitchMethod::Linear(KlssBound::WorstCase),
            KeySwitchMethod::Linear(KlssBound::Heuristic),
        ],
        seed: 0x6c69_0000 ^ (u64::from(log_n) << 16) ^ l as u64,
    }
}

/// Builds the ring and one hybrid key, times every method against one random input at the
/// top level, and drops everything. At most one expanded key is alive at a time.
fn run_cell(
    spec: &CellSpec,
    costs: &UnitCosts,
    reps: usize,
    progress: bool,
) -> Result<CellResult, Box<dyn Error>> {
    let n = 1usize << spec.log_n;
    let mut g = PrimeGenerator::new(n)?;
    let q = spec
        .q_bits
        .iter()
        .map(|&b| g.next_prime(b))
        .collect::<Result<Vec<u64>, _>>()?;
    let p = spec
        .p_bits
        .iter()
        .map(|&b| g.next_prime(b))
        .collect::<Result<Vec<u64>, _>>()?;
    let ctx = RingContext::new(n, &q, &p)?;
    let ql = ctx.q_len();
    let mut rng = ChaCha20Rng::seed_from_u64(spec.seed);
    let sk = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng)?;
    let from = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng)?;
    let hybrid = HybridKeySwitcher::new(ctx.clone(), spec.dnum);
    let (key, keygen) = time_once(|| hybrid.generate_key(from.ntt(), &sk, &mut rng));
    drop((sk, from));
    let mut c = ctx.zero(ql, 0, Form::Ntt);
    for (i, limb) in c.limbs_mut().enumerate() {
        let qi = ctx.modulus(i, ql).value();
        limb.iter_mut().for_each(|x| *x = rng.next_u64() % qi);
    }

    let model = CostModel::new(&ctx, spec.dnum, costs);
    let auto = model.best(ql)?.method;
    let mut methods = spec.methods.clone();
    debug_assert!(methods.first() == Some(&KeySwitchMethod::Hybrid));
    let auto_extra = !methods.iter().any(|m| canon(m) == canon(&auto));
    if auto_extra {
        methods.push(auto);
    }

    let mut timed = Vec::with_capacity(methods.len());
    let mut reference = None;
    for (idx, m) in methods.iter().enumerate() {
        let predicted_s = model.predict(m, ql)?.seconds;
        let row = match canon(m) {
            KeySwitchMethod::Hybrid => {
                let (stats, out) =
                    try_measure(reps, || Ok::<_, Infallible>(hybrid.switch(&c, &key)))?;
                reference = Some(out);
                Timed {
                    method: *m,
                    auto_extra: false,
                    klss: None,
                    key_bytes: key.size_bytes(),
                    expand_s: None,
                    stats,
                    predicted_s,
                    identical: true,
                }
            }
            KeySwitchMethod::Klss(cfg) => {
                let engine = KlssKeySwitcher::new(ctx.clone(), spec.dnum, cfg)?;
                let (ek, t_expand) = time_once(|| engine.expand(&key, KeyStorage::ExpandedOnly));
                let ek = ek?;
                let (stats, out) =
                    try_measure(reps, || Ok::<_, Infallible>(engine.switch(&c, &ek)))?;
                let key_bytes = ek.expanded_bytes();
                drop(ek); // never two expanded keys at once
                Timed {
                    method: *m,
                    auto_extra: auto_extra && idx == methods.len() - 1,
                    klss: Some((
                        engine.r_tilde(),
                        engine.d_tilde(),
                        r_prime_range(engine.r_primes()),
                    )),
                    key_bytes,
                    expand_s: Some(t_expand.as_secs_f64()),
                    stats,
                    predicted_s,
                    identical: reference.as_ref() == Some(&out),
                }
            }
            other => return Err(format!("cannot time {}", other.name()).into()),
        };
        if progress {
            eprint!(" {} {} ms;", label(&row.method), fmt_ms(row.stats.ms()));
        }
        timed.push(row);
    }
    Ok(CellResult {
        spec: spec.clone(),
        q_limbs: ql,
        keygen_s: keygen.as_secs_f64(),
        timed,
        auto,
    })
}

// ---------------------------------------------------------------------------------------
// Memory.
// ---------------------------------------------------------------------------------------

/// Peak resident memory of this process (`VmHWM` of `/proc/self/status`), in bytes.
fn peak_rss() -> Option<usize> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resets the peak resident memory to the current one (Linux `clear_refs` value 5).
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

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
    match peak_rss() {
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
    print!("{}", report.text);
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

/// The cells of one table after the filters.
fn grid(cfg: &Config, table: PaperTable) -> Vec<CellSpec> {
    let keep = |f: &Option<Vec<usize>>, v: usize| f.as_ref().is_none_or(|f| f.contains(&v));
    match table {
        PaperTable::T3 | PaperTable::T4 => {
            let (log_n, l_tildes, rs): (u32, &[usize], &[usize]) = match (table, cfg.quick) {
                (PaperTable::T3, false) => (15, &[16, 20, 24], &[1, 2, 3]),
                (PaperTable::T3, true) => (12, &[8], &[1, 2]),
                (_, false) => (16, &[32, 40, 48], &[1, 2, 3, 4]),
                (_, true) => (12, &[12], &[1, 4]),
            };
            let mut out = Vec::new();
            for &lt in l_tildes {
                for &r in rs {
                    if !keep(&cfg.l_tilde, lt) || !keep(&cfg.r, r) {
                        continue;
                    }
                    let sweep: Vec<usize> = match &cfg.r_tilde {
                        Some(v) => v.clone(),
                        None => paper_sweep(r).to_vec(),
                    };
                    let sweep: Vec<usize> = sweep.into_iter().filter(|&t| t <= lt).collect();
                    out.push(seed000_spec(log_n, lt, r, &sweep, cfg.b_prime_bits));
                }
            }
            out
        }
        PaperTable::T8 => {
            let (log_ns, ls): (&[u32], &[usize]) = if cfg.quick {
                (&[12], &[4, 8])
            } else {
                (&[14, 15, 16], &[8, 16, 24, 32])
            };
            let mut out = Vec::new();
            for &log_n in log_ns {
                if cfg.log_n.as_ref().is_some_and(|f| !f.contains(&log_n)) {
                    continue;
                }
                for &l in ls {
                    if keep(&cfg.levels, l) {
                        out.push(seed001_spec(log_n, l));
                    }
                }
            }
            out
        }
        PaperTable::All => Vec::new(),
    }
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
                    eprintln!(
                        "calibrated unit costs at N = 2^{} in {:.2} s: NTT {:.1} µs (< 50-bit) / \
                         {:.1} µs (wide), inner-product term {:.1} µs, conversion pair {:.1} µs",
                        s.log_n,
                        t.as_secs_f64(),
                        c.ntt_narrow * 1e6,
                        c.ntt_wide * 1e6,
                        c.hadamard * 1e6,
                        c.conversion * 1e6
                    );
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
    for (table, specs) in grids {
        let reset = reset_peak_rss();
        let at_start = current_rss();
        let mut cells = Vec::with_capacity(specs.len());
        for spec in &specs {
            done += 1;
            if progress {
                eprint!(
                    "[{done}/{total_cells}] {table:?} N = 2^{}, {} + {} primes, d = {}:",
                    spec.log_n,
                    spec.q_bits.len(),
                    spec.p_bits.len(),
                    spec.dnum
                );
            }
            let t = Instant::now();
            let cell = run_cell(spec, &costs[&spec.log_n], cfg.reps, progress)?;
            if progress {
                eprintln!(
                    " (keygen {:.1} s, cell {:.1} s)",
                    cell.keygen_s,
                    t.elapsed().as_secs_f64()
                );
            }
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

// ---------------------------------------------------------------------------------------
// Rendering.
// ---------------------------------------------------------------------------------------

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
fn render(
    table: PaperTable,
    cells: &[CellResult],
    cfg: &Config,
    costs: &BTreeMap<u32, UnitCosts>,
) -> String {
    let mut out = String::new();
    let title = match table {
        PaperTable::T3 => "keyswitch: seed 000 Table 3 (KLSS vs hybrid; paper: N = 2^15)",
        PaperTable::T4 => "keyswitch: seed 000 Table 4 (KLSS vs hybrid; paper: N = 2^16)",
        _ => "keyswitch: seed 001 Table VIII, CKKS rows (linear vs hybrid)",
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
                 (wider), inner-product term {:.1} µs, conversion limb pair {:.1} µs.\n",
                c.ntt_narrow * 1e6,
                c.ntt_wide * 1e6,
                c.hadamard * 1e6,
                c.conversion * 1e6
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
    );
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
    out.push_str(&t.to_markdown());
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
    );
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
    out.push_str(&s.to_markdown());
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
        "- time ms: median of {} key switches after one warm-up; speedup = hybrid time / \
         this time (same run). paper s / paper speedup: the paper's seconds (Lattigo, Xeon \
         Platinum 8268, one thread) and its Prev / Ours for that r̃.\n",
        cfg.reps
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
            "pred ms",
            "pred err",
            "paper ms (GPU)",
            "paper speedup",
            "model's pick",
        ],
        4,
    );
    for c in cells {
        let l = c.spec.q_bits.len();
        let paper = paper_linear(c.spec.log_n, l).or_else(|| {
            cfg.quick
                .then(|| PAPER_LINEAR.iter().find(|p| p.log_n == 14 && p.l == 8))
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
    out.push_str(&t.to_markdown());
    out.push('\n');
    out.push_str("Notes:\n");
    out.push_str(
        "- Parameters (seed 001 Table VI, CKKS): Q = one 55-bit + (l - 1) 40-bit primes, P = \
         one 55-bit prime, α = 1 (d = l digits of one prime); one key switch of a uniformly \
         random polynomial with all l chain primes. hybrid is the paper's \"Baseline\".\n",
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
        "- time ms: median of {} key switches after one warm-up, on this CPU; speedup = \
         hybrid time / this time. paper ms (GPU): the paper's Baseline and Ours times on one \
         NVIDIA A100, and its speedup vs Baseline: only the ratios are comparable.\n",
        cfg.reps
    ));
    out.push_str(
        "- pred ms / pred err: CostModel::predict (calibrated once per N) and predicted / \
         measured - 1. model's pick: CostModel::best (hybrid or KLSS r̃ = 1..8, 61- or 50-bit \
         B', worst-case bound; timed as an extra row when it is not hybrid or linear), and whether it is the \
         measured-fastest of the timed methods it could pick (the heuristic linear is not a \
         candidate).\n",
    );
}

/// Prediction error and the model's hit rate over the whole run.
fn render_summary(all: &[(PaperTable, Vec<CellResult>)], total_s: f64) -> String {
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
    );
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
    out.push_str(&t.to_markdown());
    out.push('\n');
    out.push_str(&format!(
        "CostModel::best picked the measured-fastest method in {hits} of {cells_all} cells. \
         abs pred err is |predicted / measured - 1| over every timed setting; mean pick / \
         fastest is the measured time of the model's pick over the fastest timed method it \
         could have picked (1.000 = always right). Total run time {total_s:.1} s.\n"
    ));
    out
}

/// The smallest and largest `r'_i` of an engine's key digits.
fn r_prime_range(r_primes: &[usize]) -> (usize, usize) {
    let min = r_primes.iter().copied().min().unwrap_or(0);
    let max = r_primes.iter().copied().max().unwrap_or(0);
    (min, max)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn quick(tables: &[PaperTable], r_tilde: Option<Vec<usize>>) -> Config {
        Config {
            tables: tables.to_vec(),
            quick: true,
            reps: 1,
            threads: 1,
            r_tilde,
            b_prime_bits: DEFAULT_B_PRIME_BITS,
            l_tilde: None,
            r: Some(vec![1]),
            levels: Some(vec![4]),
            log_n: None,
        }
    }

    #[test]
    fn paper_tables_are_consistent() {
        assert_eq!(PAPER_KLSS.len(), 9 + 12);
        for p in PAPER_KLSS {
            let best = p.ours.iter().copied().fold(f64::MAX, f64::min);
            // The printed speedup is Prev over the best Ours, rounded to one decimal.
            assert!(
                (p.prev / best - p.speedup).abs() < 0.06,
                "{} {} {}",
                p.log_n,
                p.l_tilde,
                p.r
            );
        }
        assert_eq!(paper_r_prime(1, 1), Some(2));
        assert_eq!(paper_r_prime(4, 7), Some(7));
        assert_eq!(paper_r_prime(2, 1), None);
        for p in PAPER_LINEAR {
            assert!((p.baseline_ms / p.linear_ms - p.speedup).abs() < 0.06);
        }
    }

    #[test]
    fn grids_follow_the_papers() {
        let mut cfg = quick(&[PaperTable::T3], None);
        cfg.quick = false;
        cfg.r = None;
        cfg.levels = None;
        let t3 = grid(&cfg, PaperTable::T3);
        assert_eq!(t3.len(), 9);
        // ℓ̃ = 16, r = 3: ℓ = 13 chain primes, d = 5, the r̃ sweep 2..7.
        let s = &t3[2];
        assert_eq!((s.q_bits.len(), s.p_bits.len(), s.dnum), (13, 3, 5));
        assert_eq!(s.methods.len(), 7);
        assert_eq!(grid(&cfg, PaperTable::T4).len(), 12);
        let t8 = grid(&cfg, PaperTable::T8);
        assert_eq!(t8.len(), 12);
        assert_eq!((t8[11].log_n, t8[11].dnum, t8[11].q_bits[0]), (16, 32, 55));
        cfg.l_tilde = Some(vec![48]);
        assert!(grid(&cfg, PaperTable::T3).is_empty());
        assert_eq!(grid(&cfg, PaperTable::T4).len(), 4);
    }

    #[test]
    fn bad_flags_are_refused() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            args: KeyswitchArgs,
        }
        let parse = |a: &[&str]| Cli::try_parse_from(std::iter::once("x").chain(a.iter().copied()));
        assert!(parse(&["--table", "t5"]).is_err());
        let cfg = parse(&["--table", "t8,t3,all"])
            .unwrap()
            .args
            .resolve()
            .unwrap();
        assert_eq!(
            cfg.tables,
            vec![PaperTable::T3, PaperTable::T4, PaperTable::T8]
        );
        assert!(parse(&["--r-tilde", "0"]).unwrap().args.resolve().is_err());
        assert!(parse(&["--reps", "0"]).unwrap().args.resolve().is_err());
        assert!(parse(&["--b-prime-bits", "62"])
            .unwrap()
            .args
            .resolve()
            .is_err());
        assert!(parse(&["--log-n", "20"]).unwrap().args.resolve().is_err());
        let cfg = parse(&["--table", "t3", "--l-tilde", "48"])
            .unwrap()
            .args
            .resolve()
            .unwrap();
        assert!(execute(&cfg, false).is_err());
    }

    #[test]
    fn quick_tiny_grid_runs_and_matches_hybrid() {
        let cfg = quick(&[PaperTable::T3, PaperTable::T8], Some(vec![1, 3]));
        let report = execute(&cfg, false).unwrap();
        assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
        assert_eq!(report.cells.len(), 2);
        // t3: ℓ̃ = 8, r = 1: hybrid + r̃ = 1, 3 (+ the model's pick when outside).
        let c = &report.cells[0].1[0];
        assert_eq!((c.q_limbs, c.spec.dnum), (7, 7));
        assert!(c.timed.len() >= 3 && c.timed.iter().all(|t| t.identical));
        // Linear with the heuristic bound has r' = 2 and a key twice the hybrid one.
        let l = &report.cells[1].1[0];
        let heur = l
            .timed
            .iter()
            .find(|t| t.method == KeySwitchMethod::Linear(KlssBound::Heuristic))
            .unwrap();
        assert_eq!(heur.klss.map(|k| k.2), Some((2, 2)));
        assert_eq!(heur.key_bytes, 2 * l.hybrid().key_bytes);
        assert!(report.text.contains("Table 3") && report.text.contains("Cost model summary"));
        assert!(report.text.contains("VmHWM") || report.text.contains("unavailable"));
        assert!(c.keygen_s >= 0.0);
    }

    #[test]
    fn narrow_b_prime_cell_matches_hybrid() {
        let spec = seed000_spec(12, 8, 1, &[3], 50);
        let costs = UnitCosts::calibrate(1 << 12);
        let c = run_cell(&spec, &costs, 1, false).unwrap();
        // Hybrid, the 50-bit sweep, and the model's (61-bit) pick as an extra row unless it
        // is hybrid.
        let extra = c.auto != KeySwitchMethod::Hybrid;
        assert_eq!(c.timed.len(), 2 + usize::from(extra));
        assert!(c.timed.iter().all(|t| t.identical));
        assert_eq!(label(&c.timed[1].method), "klss(r̃=3, 50-bit B')");
        assert_eq!(c.timed.last().unwrap().auto_extra, extra);
    }
}
