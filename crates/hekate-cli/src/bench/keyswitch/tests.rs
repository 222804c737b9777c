use super::args::{Config, KeyswitchArgs, PaperTable, T8Scheme, DEFAULT_B_PRIME_BITS};
use super::execute;
use super::grid::{grid, label, run_cell, seed000_spec};
use super::paper::{paper_r_prime, PAPER_KLSS, PAPER_LINEAR};
use hekate::rlwe::keyswitch::cost::UnitCosts;
use hekate::rlwe::keyswitch::{KeySwitchMethod, KlssBound};

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
        schemes: vec![T8Scheme::Ckks],
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
    let c = run_cell(&spec, &costs, 1, false, false).unwrap();
    // Hybrid, the 50-bit sweep, and the model's (61-bit) pick as an extra row unless it
    // is hybrid.
    let extra = c.auto != KeySwitchMethod::Hybrid;
    assert_eq!(c.timed.len(), 2 + usize::from(extra));
    assert!(c.timed.iter().all(|t| t.identical));
    assert_eq!(label(&c.timed[1].method), "klss(r̃=3, 50-bit B')");
    assert_eq!(c.timed.last().unwrap().auto_extra, extra);
}

#[test]
fn t8_scheme_rows_follow_table_vi_and_match_hybrid() {
    let mut cfg = quick(&[PaperTable::T8], None);
    cfg.quick = false;
    cfg.levels = None;
    cfg.schemes = vec![T8Scheme::Ckks, T8Scheme::Bgv, T8Scheme::Bfv];
    let t8 = grid(&cfg, PaperTable::T8);
    assert_eq!(t8.len(), 12 + 12 + 3);
    let bfv: Vec<_> = t8.iter().filter(|s| s.scheme == T8Scheme::Bfv).collect();
    // BFV's l counts one more than its primes: 7, 14 and 33 primes of 40 bits.
    let shapes: Vec<_> = bfv
        .iter()
        .map(|s| (s.log_n, s.paper_l, s.q_bits.len(), s.dnum))
        .collect();
    assert_eq!(
        shapes,
        vec![(14, 8, 7, 7), (15, 15, 14, 14), (16, 34, 33, 33)]
    );
    assert!(t8.iter().filter(|s| s.scheme == T8Scheme::Bgv).all(|s| s
        .q_bits
        .iter()
        .all(|&b| b == 40)
        && s.q_bits.len() == s.paper_l));
    // A quick run: BFV switches in coefficient form, every engine equal to hybrid, and the
    // BFV-against-BGV comparison printed.
    let mut cfg = quick(&[PaperTable::T8], None);
    cfg.levels = Some(vec![8]);
    cfg.schemes = vec![T8Scheme::Bgv, T8Scheme::Bfv];
    let report = execute(&cfg, false).unwrap();
    assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
    let cells = &report.cells[0].1;
    assert_eq!(cells.len(), 2);
    assert!(cells.iter().all(|c| c.timed.iter().all(|t| t.identical)));
    assert!(report.text.contains("BFV against BGV at the same N and l"));
}
