//! The cells of the grid: their parameters, one cell's run (keygen, every method timed
//! and checked against hybrid), and the grid of each paper table after the filters.

use super::args::{Config, PaperTable, T8Scheme, DEFAULT_B_PRIME_BITS};
use super::paper::paper_sweep;
use crate::bench::{fmt_ms, time_once, try_measure, Stats};
use hekate::math::{transform_count, PrimeGenerator};
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::ring::{Form, RingContext};
use hekate::rlwe::keyswitch::cost::{CostModel, UnitCosts};
use hekate::rlwe::keyswitch::{
    HybridKeySwitcher, KeyStorage, KeySwitchMethod, KeySwitcher, KlssBound, KlssConfig, KlssKey,
    KlssKeySwitcher,
};
use hekate::rlwe::{SecretDistribution, SecretKey};
use std::convert::Infallible;
use std::error::Error;

/// The parameters and methods of one cell.
#[derive(Debug, Clone)]
pub(super) struct CellSpec {
    pub(super) log_n: u32,
    /// Chain prime sizes, bits.
    pub(super) q_bits: Vec<u32>,
    /// Special prime sizes, bits.
    pub(super) p_bits: Vec<u32>,
    pub(super) dnum: usize,
    /// Methods to time, hybrid first.
    pub(super) methods: Vec<KeySwitchMethod>,
    pub(super) seed: u64,
    /// The scheme of a t8 row (CKKS for t3 / t4).
    pub(super) scheme: T8Scheme,
    /// The paper's `l` of a t8 row (BFV's counts one more than its primes).
    pub(super) paper_l: usize,
}

impl CellSpec {
    /// The form the switched polynomial enters and leaves in: coefficient form for BFV
    /// (its `c_2` leaves the scale-and-round there; seed 001 Alg. 5), NTT otherwise.
    pub(super) fn form(&self) -> Form {
        if self.scheme == T8Scheme::Bfv {
            Form::Coeff
        } else {
            Form::Ntt
        }
    }
}

/// One timed method of a cell.
#[derive(Debug, Clone)]
pub(super) struct Timed {
    pub(super) method: KeySwitchMethod,
    /// Not asked for: the cost model's pick, timed to score it.
    pub(super) auto_extra: bool,
    /// `(r̃, d̃, (min r'_i, max r'_i))` of a KLSS / linear engine.
    pub(super) klss: Option<(usize, usize, (usize, usize))>,
    /// In-memory key size (the expanded key for KLSS).
    pub(super) key_bytes: usize,
    /// Expansion of the hybrid key, seconds (KLSS only).
    pub(super) expand_s: Option<f64>,
    pub(super) stats: Stats,
    pub(super) predicted_s: f64,
    /// Output equal, word for word, to the hybrid engine's.
    pub(super) identical: bool,
    /// Forward and inverse NTTs of one switch ([`transform_count`]).
    pub(super) transforms: u64,
}

/// The results of one cell.
#[derive(Debug, Clone)]
pub(super) struct CellResult {
    pub(super) spec: CellSpec,
    pub(super) q_limbs: usize,
    pub(super) keygen_s: f64,
    /// Hybrid first.
    pub(super) timed: Vec<Timed>,
    /// [`CostModel::best`]'s pick.
    pub(super) auto: KeySwitchMethod,
}

/// `Linear(b)` is the KLSS engine with `r̃ = 1` and bound `b`: one name for comparisons.
pub(super) fn canon(m: &KeySwitchMethod) -> KeySwitchMethod {
    match *m {
        KeySwitchMethod::Linear(b) => KeySwitchMethod::Klss(KlssConfig::linear().with_bound(b)),
        other => other,
    }
}

/// A row label for a method.
pub(super) fn label(m: &KeySwitchMethod) -> String {
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
    pub(super) fn hybrid(&self) -> &Timed {
        &self.timed[0]
    }

    /// Speedup of `t` over hybrid (hybrid time / its time).
    pub(super) fn speedup(&self, t: &Timed) -> f64 {
        self.hybrid().stats.median.as_secs_f64() / t.stats.median.as_secs_f64()
    }

    /// The measured-fastest among the timed methods the cost model could have picked.
    pub(super) fn fastest_eligible(&self, candidates: &[KeySwitchMethod]) -> Option<&Timed> {
        self.timed
            .iter()
            .filter(|t| candidates.contains(&canon(&t.method)))
            .min_by_key(|t| t.stats.median)
    }

    /// The timed row of the model's pick.
    pub(super) fn auto_row(&self) -> Option<&Timed> {
        let a = canon(&self.auto);
        self.timed.iter().find(|t| canon(&t.method) == a)
    }
}

/// Prime sizes of one seed-000 cell: `ℓ = ℓ̃ - r` chain primes of 36 bits, `r` special
/// primes of 60 bits (Table 2).
pub(super) fn seed000_spec(
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
        scheme: T8Scheme::Ckks,
        paper_l: l,
    }
}

/// Prime sizes of one seed-001 cell (Table VI, `P = 55` bits, `α = 1`): CKKS
/// `Q = 55 + (l-1) × 40`, BGV `l × 40`, BFV `(l - 1) × 40`.
fn seed001_spec(log_n: u32, l: usize, scheme: T8Scheme) -> CellSpec {
    let q_bits = match scheme {
        T8Scheme::Ckks => std::iter::once(55)
            .chain(std::iter::repeat_n(40, l - 1))
            .collect(),
        T8Scheme::Bgv => vec![40; l],
        T8Scheme::Bfv => vec![40; l - 1],
    };
    let tag = match scheme {
        T8Scheme::Ckks => 0,
        T8Scheme::Bgv => 1,
        T8Scheme::Bfv => 2,
    };
    CellSpec {
        log_n,
        dnum: q_bits.len(),
        q_bits,
        p_bits: vec![55],
        methods: vec![
            KeySwitchMethod::Hybrid,
            KeySwitchMethod::Linear(KlssBound::WorstCase),
            KeySwitchMethod::Linear(KlssBound::Heuristic),
        ],
        seed: 0x6c69_0000 ^ (u64::from(log_n) << 16) ^ (l as u64) ^ (tag << 8),
        scheme,
        paper_l: l,
    }
}

/// The paper's `l` values of a scheme's t8 rows at `N = 2^log_n` (`quick`: `N = 2^12`).
fn t8_levels(scheme: T8Scheme, log_n: u32, quick: bool) -> Vec<usize> {
    match (scheme, quick) {
        (T8Scheme::Bfv, true) => vec![8],
        (_, true) => vec![4, 8],
        (T8Scheme::Bfv, false) => match log_n {
            14 => vec![8],
            15 => vec![15],
            _ => vec![34],
        },
        (_, false) => vec![8, 16, 24, 32],
    }
}

/// One method ready to time: hybrid (the cell's key), or a KLSS engine with its expanded
/// key and the expansion's time.
enum Prepared {
    Hybrid,
    Klss(Box<(KlssKeySwitcher, KlssKey, std::time::Duration)>),
}

/// Builds the ring and one hybrid key, times every method against one random input at the
/// top level, and drops everything. `interleave`: every method's key is built first and
/// the repetitions run in rounds, one switch per method each (fair on a noisy host; for
/// `--quick`, whose keys are small); otherwise one method at a time, its repetitions in a
/// row, with at most one expanded key alive.
pub(super) fn run_cell(
    spec: &CellSpec,
    costs: &UnitCosts,
    reps: usize,
    interleave: bool,
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
    if spec.form() == Form::Coeff {
        c.intt(&ctx);
    }
    // Transforms of one switch (outside the timing).
    let transforms = |f: &dyn Fn()| {
        let before = transform_count();
        f();
        (transform_count() - before).total()
    };

    let model = CostModel::new(&ctx, spec.dnum, costs);
    let auto = model.best(ql)?.method;
    let mut methods = spec.methods.clone();
    debug_assert!(methods.first() == Some(&KeySwitchMethod::Hybrid));
    let auto_extra = !methods.iter().any(|m| canon(m) == canon(&auto));
    if auto_extra {
        methods.push(auto);
    }

    // One method's engine and key: hybrid's key is shared; a KLSS engine expands it.
    let prepare = |m: &KeySwitchMethod| -> Result<Prepared, Box<dyn Error>> {
        match canon(m) {
            KeySwitchMethod::Hybrid => Ok(Prepared::Hybrid),
            KeySwitchMethod::Klss(cfg) => {
                let engine = KlssKeySwitcher::new(ctx.clone(), spec.dnum, cfg)?;
                let (ek, t_expand) = time_once(|| engine.expand(&key, KeyStorage::ExpandedOnly));
                Ok(Prepared::Klss(Box::new((engine, ek?, t_expand))))
            }
            other => Err(format!("cannot time {}", other.name()).into()),
        }
    };
    let switch = |p: &Prepared| match p {
        Prepared::Hybrid => hybrid.switch(&c, &key),
        Prepared::Klss(k) => k.0.switch(&c, &k.1),
    };
    let row = |idx: usize, p: &Prepared, stats: Stats| -> Result<Timed, Box<dyn Error>> {
        let m = methods[idx];
        let (klss, key_bytes, expand_s) = match p {
            Prepared::Hybrid => (None, key.size_bytes(), None),
            Prepared::Klss(k) => (
                Some((k.0.r_tilde(), k.0.d_tilde(), r_prime_range(k.0.r_primes()))),
                k.1.expanded_bytes(),
                Some(k.2.as_secs_f64()),
            ),
        };
        Ok(Timed {
            method: m,
            auto_extra: auto_extra && idx == methods.len() - 1,
            klss,
            key_bytes,
            expand_s,
            stats,
            predicted_s: model.predict(&m, ql)?.seconds,
            identical: true, // set against hybrid's output below
            transforms: transforms(&|| drop(switch(p))),
        })
    };
    let reference = switch(&Prepared::Hybrid);
    let mut timed = Vec::with_capacity(methods.len());
    let note = |row: &Timed| {
        if progress {
            crate::progress::line_add(format!(
                " {} {} ms;",
                label(&row.method),
                fmt_ms(row.stats.ms())
            ));
        }
    };
    if interleave {
        // Every key alive at once; rounds of one switch per method, so that the host's
        // drifts fall on all methods alike.
        let prepared = methods.iter().map(prepare).collect::<Result<Vec<_>, _>>()?;
        let mut same = Vec::with_capacity(prepared.len());
        for p in &prepared {
            same.push(switch(p) == reference); // also the warm-up
        }
        let mut times = vec![Vec::with_capacity(reps); prepared.len()];
        for _ in 0..reps.max(1) {
            for (t, p) in times.iter_mut().zip(&prepared) {
                let start = std::time::Instant::now();
                let out = std::hint::black_box(switch(p));
                t.push(start.elapsed());
                drop(out);
            }
        }
        for (idx, (p, t)) in prepared.iter().zip(times).enumerate() {
            let mut r = row(idx, p, Stats::of(t))?;
            r.identical = same[idx];
            note(&r);
            timed.push(r);
        }
    } else {
        for (idx, m) in methods.iter().enumerate() {
            let p = prepare(m)?;
            let (stats, out) = try_measure(reps, || Ok::<_, Infallible>(switch(&p)))?;
            let mut r = row(idx, &p, stats)?;
            r.identical = out == reference;
            drop(p); // never two expanded keys at once
            note(&r);
            timed.push(r);
        }
    }
    Ok(CellResult {
        spec: spec.clone(),
        q_limbs: ql,
        keygen_s: keygen.as_secs_f64(),
        timed,
        auto,
    })
}

/// The cells of one table after the filters.
pub(super) fn grid(cfg: &Config, table: PaperTable) -> Vec<CellSpec> {
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
            let log_ns: &[u32] = if cfg.quick { &[12] } else { &[14, 15, 16] };
            let mut out = Vec::new();
            for &log_n in log_ns {
                if cfg.log_n.as_ref().is_some_and(|f| !f.contains(&log_n)) {
                    continue;
                }
                for &scheme in &cfg.schemes {
                    for l in t8_levels(scheme, log_n, cfg.quick) {
                        if keep(&cfg.levels, l) {
                            out.push(seed001_spec(log_n, l, scheme));
                        }
                    }
                }
            }
            out
        }
        PaperTable::All => Vec::new(),
    }
}

/// The smallest and largest `r'_i` of an engine's key digits.
fn r_prime_range(r_primes: &[usize]) -> (usize, usize) {
    let min = r_primes.iter().copied().min().unwrap_or(0);
    let max = r_primes.iter().copied().max().unwrap_or(0);
    (min, max)
}
