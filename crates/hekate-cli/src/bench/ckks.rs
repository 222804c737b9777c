//! `hekate bench ckks`: CKKS primitive operations over a grid of chain lengths and `dnum`.
//!
//! The parameter shape matches the peer harnesses in `shared/peers/` (OpenFHE, Lattigo), so
//! that the figures can be set side by side: `N = 2^log_n`, `L` chain limbs (one 60-bit
//! prime then `L - 1` 50-bit primes), scale `2^50`, dense ternary secret, hybrid key
//! switching with `dnum` digits and the default special primes (50-bit, covering the digit),
//! every operation at the top level with all `L` limbs active.

use super::{fmt_mib, fmt_ms, header, init_threads, measure, time_once, try_measure, Stats, Table};
use crate::progress::{self, Bar};
use crate::rng::{precision_bits, SplitMix64};
use crate::{say, Outcome};
use clap::Args;
use hekate::ckks::{CkksParameters, Evaluator};
use hekate::params::security;
use hekate::params::SecurityLevel;
use hekate::rlwe::keyswitch::KeySwitchMethod;
use num_complex::Complex64;
use std::error::Error;
use std::str::FromStr;
use std::time::Instant;

/// Rotations per [`Evaluator::rotate_hoisted`] call in the hoisted-rotation column.
const HOISTED: usize = 16;

/// Options of `hekate bench ckks`. The default grid at N = 2^16 takes tens of minutes on a
/// small machine (the L = 47, dnum = max cell alone holds two 2.3 GB keys and runs minutes);
/// progress goes to stderr, the table to stdout.
#[derive(Debug, Args)]
pub struct CkksArgs {
    /// log2 of the ring degree N [default: 16; 13 with --quick]
    #[arg(long, value_name = "LOG_N")]
    log_n: Option<u32>,
    /// Chain lengths L to measure (limbs of a fresh ciphertext), comma separated
    /// [default: 8,16,24,32,47; 4,8 with --quick]
    #[arg(long, value_delimiter = ',', value_name = "L,...")]
    limbs: Option<Vec<usize>>,
    /// Key-switching digit counts, comma separated numbers or `max` (= L, one prime per
    /// digit) [default: 1,3,max; 1,max with --quick]
    #[arg(long, value_delimiter = ',', value_name = "D,...")]
    dnum: Option<Vec<Dnum>>,
    /// Timed repetitions per operation, after one untimed warm-up (the median is shown)
    /// [default: 5; 3 with --quick]
    #[arg(long)]
    reps: Option<usize>,
    /// Threads of the global rayon pool the library parallelises on
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// A fast smoke run: N = 2^13, limbs 4,8, dnum 1,max, 3 reps (explicit options still win)
    #[arg(long)]
    quick: bool,
    /// Key-switching methods, comma separated: hybrid, klss:R̃ (KLSS with R̃ primes per key
    /// digit), linear, linear-heuristic, auto [default: hybrid]
    #[arg(long, value_delimiter = ',', value_name = "M,...", value_parser = KeySwitchMethod::parse)]
    key_switching: Option<Vec<KeySwitchMethod>>,
}

/// A `--dnum` entry: a number of digits, or `max` (one chain prime per digit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dnum {
    /// Exactly this many digits.
    Fixed(usize),
    /// `dnum = L`.
    Max,
}

impl FromStr for Dnum {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("max") {
            return Ok(Dnum::Max);
        }
        match s.parse::<usize>() {
            Ok(d) if d >= 1 => Ok(Dnum::Fixed(d)),
            _ => Err(format!("`{s}` is not a positive number or `max`")),
        }
    }
}

impl Dnum {
    /// The digit count for a chain of `limbs` primes.
    fn resolve(self, limbs: usize) -> usize {
        match self {
            Dnum::Fixed(d) => d,
            Dnum::Max => limbs,
        }
    }
}

/// The resolved run configuration.
struct Config {
    log_n: u32,
    limbs: Vec<usize>,
    dnums: Vec<Dnum>,
    reps: usize,
    threads: usize,
    methods: Vec<KeySwitchMethod>,
}

impl CkksArgs {
    fn resolve(self) -> Config {
        let q = self.quick;
        Config {
            log_n: self.log_n.unwrap_or(if q { 13 } else { 16 }),
            limbs: self.limbs.unwrap_or_else(|| {
                if q {
                    vec![4, 8]
                } else {
                    vec![8, 16, 24, 32, 47]
                }
            }),
            dnums: self.dnum.unwrap_or_else(|| {
                if q {
                    vec![Dnum::Fixed(1), Dnum::Max]
                } else {
                    vec![Dnum::Fixed(1), Dnum::Fixed(3), Dnum::Max]
                }
            }),
            reps: self.reps.unwrap_or(if q { 3 } else { 5 }),
            threads: self.threads,
            methods: self
                .key_switching
                .unwrap_or_else(|| vec![KeySwitchMethod::Hybrid]),
        }
    }
}

/// The figures of one (L, dnum) cell.
struct Cell {
    method: String,
    limbs: usize,
    dnum: usize,
    special: usize,
    log_qp: f64,
    secure128: bool,
    ntt: Stats,
    encode: Stats,
    encrypt: Stats,
    decrypt: Stats,
    add: Stats,
    mul_relin: Stats,
    rescale: Stats,
    mul_rescale: Stats,
    rotate: Stats,
    hoisted: Stats,
    keygen_rlk_ms: f64,
    keygen_gk_ms: f64,
    rlk_bytes: usize,
    gk_bytes: usize,
    ct_bytes: usize,
    precision: f64,
}

/// Runs `hekate bench ckks`.
pub fn run(args: CkksArgs) -> Result<Outcome, Box<dyn Error>> {
    let cfg = args.resolve();
    if !(10..=17).contains(&cfg.log_n) {
        return Err(format!("--log-n {} is outside [10, 17]", cfg.log_n).into());
    }
    if let Some(&l) = cfg.limbs.iter().find(|&&l| l < 2) {
        return Err(format!("--limbs: a chain needs at least 2 limbs to rescale (got {l})").into());
    }
    init_threads(cfg.threads)?;

    // The grid, skipping dnum > L and duplicates (e.g. `3,max` at L = 3).
    let mut grid: Vec<(usize, usize, KeySwitchMethod)> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    for &l in &cfg.limbs {
        for d in &cfg.dnums {
            let dnum = d.resolve(l);
            if dnum > l {
                skipped.push(format!("L = {l}, dnum = {dnum} (dnum > L)"));
            } else {
                for &m in &cfg.methods {
                    if !grid.contains(&(l, dnum, m)) {
                        grid.push((l, dnum, m));
                    }
                }
            }
        }
    }

    let n = 1usize << cfg.log_n;
    progress::note(format!(
        "hekate bench ckks: N = 2^{}, {} cells, {} reps after 1 warm-up, {} thread(s)",
        cfg.log_n,
        grid.len(),
        cfg.reps,
        cfg.threads
    ));
    let start = Instant::now();
    // Rows go into the table as their cells finish (`--format jsonl` writes them then).
    let mut table = table();
    let bar = Bar::new(grid.len() as u64, "cells");
    for (i, &(l, d, m)) in grid.iter().enumerate() {
        progress::line_start(format!(
            "  [{}/{}] L = {l:>2}, dnum = {d:>2}, {} ... ",
            i + 1,
            grid.len(),
            m.name()
        ));
        let t = Instant::now();
        // Everything of the cell (context, keys, ciphertexts) is dropped when it returns.
        let cell = run_cell(cfg.log_n, l, d, m, cfg.reps)?;
        progress::line_end(format!(
            "{:.1} s (mul+relin {} ms, rotate {} ms, precision {:.1} bits)",
            t.elapsed().as_secs_f64(),
            fmt_ms(cell.mul_relin.ms()),
            fmt_ms(cell.rotate.ms()),
            cell.precision
        ));
        table.push(row(&cell));
        bar.inc(1);
    }
    drop(bar);
    let total = start.elapsed().as_secs_f64();

    say!("{}", header("ckks", cfg.threads));
    say!();
    say!(
        "N = 2^{} ({n}), chain = one 60-bit prime + (L-1) 50-bit primes, scale 2^50, dense \
         ternary secret, key switching as in the first column (auto: the cost model's pick), special primes of 50 bits (the library default: \
         IFMA-friendly); every op at the top \
         level. Times are medians of {} reps after 1 warm-up, in ms unless noted.",
        cfg.log_n, cfg.reps
    );
    say!();
    table.print();
    say!();
    say!("Notes:");
    say!(
        "- #P: special primes of 50 bits, as many as cover the largest digit (Lattigo's \
         harness uses ceil(L/3) 61-bit ones at dnum = 3, OpenFHE picks its own ~60-bit ones). dnum = L ('max') is one chain prime \
         per digit; dnum = 1 is a single digit covering all of Q."
    );
    say!(
        "- 128b: whether log QP is within the HomomorphicEncryption.org 128-bit bound for \
         this N ({}). Cells are built with SecurityLevel::NotChecked so that speed can be \
         measured per limb count; a 'no' cell is NOT secure.",
        security::max_log_qp(n, SecurityLevel::Bits128)
            .map(|b| format!("log QP <= {b}"))
            .unwrap_or_else(|| "no table entry".into())
    );
    say!(
        "- NTT: one forward NTT of one limb, in microseconds. encrypt: public-key \
         encryption. mul+relin: tensor and relinearization, no rescale. mul+rescale: both \
         and the rescale in one call (Evaluator::mul_relin_rescale: the relinearization's \
         ModDown fused into the rescale, the same words as mul+relin then rescale). rotate: \
         by one slot, key switching included."
    );
    say!(
        "- hoisted: per-rotation time of {HOISTED} rotations from one decomposition \
         (Evaluator::rotate_hoisted). Only ONE Galois key (step 1) is generated and the \
         call is rotate_hoisted(&ct, &[1; {HOISTED}]): the cost is identical to {HOISTED} \
         distinct steps, and at dnum = max a Galois key is huge (about 2.3 GB at L = 47, N = \
         2^16)."
    );
    say!(
        "- keygen: one relinearization key / one Galois key, timed once (no reps). Sizes \
         are in memory (MiB), uncompressed; ct is a fresh ciphertext at the top level."
    );
    say!(
        "- prec: -log2 of the largest slot error of one mult+relin+rescale of two vectors \
         with real and imaginary parts uniform in [-1, 1)."
    );
    for s in &skipped {
        say!("- skipped: {s}");
    }
    say!("- total run time: {total:.1} s");
    Ok(Outcome::Success)
}

/// The results table, without rows ([`row`] makes them).
fn table() -> Table {
    Table::new(
        [
            "key switching",
            "L",
            "dnum",
            "#P",
            "log QP",
            "128b",
            "NTT (µs)",
            "encode",
            "encrypt",
            "decrypt+decode",
            "add",
            "mul+relin",
            "rescale",
            "mul+rescale",
            "rotate",
            "hoisted/rot",
            "keygen rlk",
            "keygen gk",
            "rlk MiB",
            "gk MiB",
            "ct MiB",
            "prec (bits)",
        ],
        1,
    )
    .unit(
        &[
            "encode",
            "encrypt",
            "decrypt+decode",
            "add",
            "mul+relin",
            "rescale",
            "mul+rescale",
            "rotate",
            "hoisted/rot",
            "keygen rlk",
            "keygen gk",
        ],
        "ms",
    )
}

/// The row of one cell.
fn row(c: &Cell) -> Vec<String> {
    vec![
        c.method.clone(),
        c.limbs.to_string(),
        c.dnum.to_string(),
        c.special.to_string(),
        format!("{:.0}", c.log_qp),
        if c.secure128 { "yes" } else { "no" }.into(),
        format!("{:.1}", c.ntt.us()),
        fmt_ms(c.encode.ms()),
        fmt_ms(c.encrypt.ms()),
        fmt_ms(c.decrypt.ms()),
        fmt_ms(c.add.ms()),
        fmt_ms(c.mul_relin.ms()),
        fmt_ms(c.rescale.ms()),
        fmt_ms(c.mul_rescale.ms()),
        fmt_ms(c.rotate.ms()),
        fmt_ms(c.hoisted.ms()),
        fmt_ms(c.keygen_rlk_ms),
        fmt_ms(c.keygen_gk_ms),
        fmt_mib(c.rlk_bytes),
        fmt_mib(c.gk_bytes),
        fmt_mib(c.ct_bytes),
        format!("{:.1}", c.precision),
    ]
}

/// Builds the parameters of one cell, times every operation and drops it all.
fn run_cell(
    log_n: u32,
    limbs: usize,
    dnum: usize,
    method: KeySwitchMethod,
    reps: usize,
) -> Result<Cell, Box<dyn Error>> {
    let mut log_q = vec![60u32];
    log_q.extend(std::iter::repeat_n(50, limbs - 1));
    // Special primes: the library default (DEFAULT_SPECIAL_PRIME_BITS-bit primes covering
    // the largest digit).
    let ctx = CkksParameters::new(log_n)
        .log_q(&log_q)
        .dnum(dnum)
        .log_scale(50)
        .security(SecurityLevel::NotChecked)
        .key_switching(method)
        .build()?;
    let n = ctx.n();
    let log_qp = ctx.log_qp();
    let secure128 = security::check(n, log_qp, SecurityLevel::Bits128).is_ok();
    let mut rng = SplitMix64::new(0x4845_4B41_5445 ^ ((limbs as u64) << 8) ^ dnum as u64);

    // One forward NTT of one limb (batches of 16 for a steadier figure).
    let ring = ctx.ring();
    let plan = ring.ntt_plan(0, ring.q_len());
    let q0 = ctx.q_primes()[0];
    let mut buf: Vec<u64> = (0..n).map(|_| rng.next_u64() % q0).collect();
    let ntt = measure(reps.max(11), || {
        for _ in 0..16 {
            plan.forward(&mut buf);
        }
    })
    .per(16);

    // Keys.
    let sk = ctx.generate_secret_key();
    let pk = ctx.generate_public_key(&sk);
    let (rlk, t_rlk) = time_once(|| ctx.generate_relinearization_key(&sk));
    let (gks, t_gk) = time_once(|| ctx.generate_galois_keys(&sk, &[1], false));
    let rlk_bytes = rlk.0.size_bytes();
    let gk_bytes = gks.size_bytes();
    let eval = Evaluator::new(ctx.clone(), Some(rlk), gks);

    // Messages.
    let slots = ctx.max_slots();
    let xv = rng.complexes(slots);
    let yv = rng.complexes(slots);
    let (encode, pt_x) = try_measure(reps, || ctx.encode(&xv))?;
    let pt_y = ctx.encode(&yv)?;
    let (encrypt, cx) = try_measure(reps, || ctx.encrypt(&pt_x, &pk))?;
    let cy = ctx.encrypt(&pt_y, &pk)?;
    let ct_bytes = cx.size_bytes();
    drop((pt_x, pt_y));
    let (decrypt, _) = try_measure(reps, || ctx.decrypt_decode(&cx, &sk))?;

    // Evaluation.
    let (add, _) = try_measure(reps, || eval.add(&cx, &cy))?;
    let (mul_relin, prod) = try_measure(reps, || eval.mul(&cx, &cy))?;
    let (rescale, prod) = try_measure(reps, || eval.rescale(&prod))?;
    let (mul_rescale, fused) = try_measure(reps, || eval.mul_relin_rescale(&cx, &cy, 1, None))?;
    if fused.parts() != prod.parts() {
        return Err("the fused multiply-rescale differs from mul then rescale".into());
    }
    drop(fused);
    let precision = {
        let got = ctx.decrypt_decode(&prod, &sk)?;
        let want: Vec<Complex64> = xv.iter().zip(&yv).map(|(a, b)| a * b).collect();
        precision_bits(&got, &want)
    };
    drop(prod);
    let (rotate, _) = try_measure(reps, || eval.rotate(&cx, 1))?;
    let steps = [1i64; HOISTED];
    let (hoisted, _) = try_measure(reps, || eval.rotate_hoisted(&cx, &steps))?;
    let hoisted = hoisted.per(HOISTED as u32);

    Ok(Cell {
        method: ctx.key_switch_method().name(),
        limbs,
        dnum,
        special: ctx.p_primes().len(),
        log_qp,
        secure128,
        ntt,
        encode,
        encrypt,
        decrypt,
        add,
        mul_relin,
        rescale,
        mul_rescale,
        rotate,
        hoisted,
        keygen_rlk_ms: t_rlk.as_secs_f64() * 1e3,
        keygen_gk_ms: t_gk.as_secs_f64() * 1e3,
        rlk_bytes,
        gk_bytes,
        ct_bytes,
        precision,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dnum_parses() {
        assert_eq!("max".parse::<Dnum>(), Ok(Dnum::Max));
        assert_eq!("3".parse::<Dnum>(), Ok(Dnum::Fixed(3)));
        assert!("0".parse::<Dnum>().is_err());
        assert!("x".parse::<Dnum>().is_err());
    }

    #[test]
    fn small_cell_runs() {
        let cell = run_cell(12, 3, 1, KeySwitchMethod::parse("klss:2").unwrap(), 1).unwrap();
        // One digit of 60 + 50 + 50 = 160 bits: four 50-bit special primes cover it.
        assert_eq!((cell.limbs, cell.dnum, cell.special), (3, 1, 4));
        assert!(cell.precision > 20.0, "precision {}", cell.precision);
        assert!(cell.rlk_bytes > 0 && cell.gk_bytes == cell.rlk_bytes);
        let mut t = table();
        t.push(row(&cell));
        assert_eq!(t.to_markdown().lines().count(), 3);
    }
}
