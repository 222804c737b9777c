//! FHEW end to end: every gate, majority, NOT and look-up tables decrypt correctly.
//!
//! CI runs the insecure `TOY` set (and `TOY` with `q = 2N` for Alg. 3/4) with fixed seeds;
//! the full-size run (2,000 random inputs per gate, every preset, one test per preset) is
//! `#[ignore]`d:
//!
//! ```text
//! cargo test --release -p hekate --test fhew -- --ignored full_size
//! ```

use hekate::fhew::params::{self, AutoKeySet, FhewParams, Method, MethodConfig};
use hekate::fhew::{
    FhewContext, FhewEvaluator, FhewSecretKey, Gate, LweCiphertext, RotationArithmetic,
};
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::Error;
use std::sync::Arc;

const TOY_2N: FhewParams = FhewParams {
    name: "TOY_2N",
    q: 512,
    ..params::TOY
};

fn setup(
    p: &FhewParams,
    cfg: MethodConfig,
    seed: u64,
) -> (Arc<FhewContext>, FhewSecretKey, FhewEvaluator, ChaCha20Rng) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let ctx = FhewContext::with_security(p, hekate::params::SecurityLevel::NotChecked).unwrap();
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let key = ctx.generate_bootstrap_key_with(&sk, cfg, &mut rng).unwrap();
    let ev = FhewEvaluator::new(ctx.clone(), Arc::new(key)).unwrap();
    (ctx, sk, ev, rng)
}

/// Every gate on `trials` random input pairs (plus all four pairs), chained so that
/// bootstrapped outputs are inputs again; majority and NOT too.
fn check_gates(p: &FhewParams, cfg: MethodConfig, trials: usize, seed: u64) {
    let (ctx, sk, mut ev, mut rng) = setup(p, cfg, seed);
    let enc = |b: bool, rng: &mut ChaCha20Rng| ctx.encrypt_bit_with(b, &sk, rng).unwrap();
    let mut prev: Option<(LweCiphertext, bool)> = None;
    for t in 0..trials {
        let (x, y) = if t < 4 {
            (t & 1 == 1, t & 2 == 2)
        } else {
            (rng.next_u32() & 1 == 1, rng.next_u32() & 1 == 1)
        };
        let (cx, cy) = (enc(x, &mut rng), enc(y, &mut rng));
        // Feed the previous gate's output as the first input half of the time.
        let (cx, x) = match prev.take() {
            Some((c, v)) if t % 2 == 1 => (c, v),
            _ => (cx, x),
        };
        for g in Gate::ALL {
            let out = ev.gate(g, &cx, &cy).unwrap();
            let want = g.eval(x, y);
            assert_eq!(
                ctx.decrypt_bit(&out, &sk).unwrap(),
                want,
                "{} {g:?}({x}, {y})",
                cfg.label()
            );
            if g == Gate::Nand {
                prev = Some((out, want));
            }
        }
        let z = rng.next_u32() & 1 == 1;
        let cz = enc(z, &mut rng);
        let maj = ev.majority(&cx, &cy, &cz).unwrap();
        let want = (x as u8 + y as u8 + z as u8) >= 2;
        assert_eq!(
            ctx.decrypt_bit(&maj, &sk).unwrap(),
            want,
            "{} MAJ",
            cfg.label()
        );
        assert_eq!(ctx.decrypt_bit(&ev.not(&cx), &sk).unwrap(), !x);
    }
}

#[test]
fn gates_toy_every_method() {
    for m in [Method::Ap, Method::Ginx, Method::LmkcdeyAllEven] {
        check_gates(&params::TOY, MethodConfig::new(m), 12, 1);
    }
    check_gates(
        &params::TOY,
        MethodConfig::new(Method::LmkcdeyAllEven).with_alt_mult(true),
        8,
        2,
    );
    check_gates(
        &params::TOY,
        MethodConfig::new(Method::LmkcdeyAllEven).with_auto_keys(AutoKeySet::PowersOfFive),
        8,
        3,
    );
    for m in [Method::LmkcdeyBase, Method::LmkcdeyAux] {
        check_gates(&TOY_2N, MethodConfig::new(m), 8, 4);
    }
}

#[test]
fn lookup_tables() {
    let (ctx, sk, mut ev, mut rng) =
        setup(&params::TOY, MethodConfig::new(Method::LmkcdeyAllEven), 5);
    for t in [2u64, 4, 8] {
        for m in 0..t {
            let ct = ctx.encrypt_int_with(m, t, &sk, &mut rng).unwrap();
            let sq = ev.lut(&ct, t, |x| x * x % t).unwrap();
            assert_eq!(
                ctx.decrypt_int(&sq, t, &sk).unwrap(),
                m * m % t,
                "t={t} m={m}"
            );
            let inc = ev.lut(&ct, t, |x| (x + 1) % t).unwrap();
            assert_eq!(ctx.decrypt_int(&inc, t, &sk).unwrap(), (m + 1) % t);
        }
    }
    assert!(ctx.encrypt_int_with(4, 4, &sk, &mut rng).is_err());
    assert!(ctx.encrypt_int_with(1, 3, &sk, &mut rng).is_err());
}

/// Workers share the evaluator's keys (no second Fourier conversion) and evaluate gates on
/// their own threads, each output equal to the truth table.
#[test]
fn workers_evaluate_on_threads() {
    let (ctx, sk, ev, mut rng) = setup(&TOY_2N, MethodConfig::new(Method::LmkcdeyAux), 8);
    assert_eq!(ev.arithmetic(), RotationArithmetic::Fourier);
    let inputs: Vec<_> = (0..4)
        .map(|t| {
            let (x, y) = (t & 1 == 1, t & 2 == 2);
            let mut enc = |b| ctx.encrypt_bit_with(b, &sk, &mut rng).unwrap();
            (x, y, enc(x), enc(y))
        })
        .collect();
    let outputs: Vec<Vec<LweCiphertext>> = std::thread::scope(|scope| {
        let handles: Vec<_> = inputs
            .iter()
            .map(|(_, _, cx, cy)| {
                let mut w = ev.worker();
                assert!(Arc::ptr_eq(w.key(), ev.key()));
                assert_eq!(w.arithmetic(), ev.arithmetic());
                scope.spawn(move || Gate::ALL.map(|g| w.gate(g, cx, cy).unwrap()).to_vec())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for ((x, y, _, _), outs) in inputs.iter().zip(&outputs) {
        for (g, out) in Gate::ALL.iter().zip(outs) {
            assert_eq!(
                ctx.decrypt_bit(out, &sk).unwrap(),
                g.eval(*x, *y),
                "{g:?}({x}, {y})"
            );
        }
    }
}

#[test]
fn bad_input_is_an_error() {
    let (ctx, sk, mut ev, mut rng) = setup(&params::TOY, MethodConfig::new(Method::Ginx), 6);
    let a = ctx.encrypt_bit_with(true, &sk, &mut rng).unwrap();
    let other = LweCiphertext::trivial(7, 0, 256);
    assert!(matches!(
        ev.gate(Gate::And, &a, &other),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(matches!(
        ev.gate(Gate::And, &other, &a),
        Err(Error::ParameterMismatch(_))
    ));
    // Alg. 5 needs q < 2N, Alg. 3/4 need q = 2N.
    assert!(ctx
        .generate_bootstrap_key_with(&sk, MethodConfig::new(Method::LmkcdeyAux), &mut rng)
        .is_err());
    let ctx2 =
        FhewContext::with_security(&TOY_2N, hekate::params::SecurityLevel::NotChecked).unwrap();
    let sk2 = ctx2.generate_secret_key_with(&mut rng).unwrap();
    assert!(ctx2
        .generate_bootstrap_key_with(&sk2, MethodConfig::new(Method::LmkcdeyAllEven), &mut rng)
        .is_err());
    // A secret key of other parameters.
    let ctx3 = FhewContext::with_security(
        &FhewParams {
            big_n: 512,
            ..params::TOY
        },
        hekate::params::SecurityLevel::NotChecked,
    )
    .unwrap();
    assert!(ctx3
        .generate_bootstrap_key_with(&sk, MethodConfig::new(Method::Ap), &mut rng)
        .is_err());
    let bad = FhewParams {
        q: 300,
        ..params::TOY
    };
    assert!(FhewContext::with_security(&bad, hekate::params::SecurityLevel::NotChecked).is_err());
    assert!(format!("{sk:?}").contains("redacted"));
}

/// The fastest applicable automorphism method of a preset (Alg. 5 for `q < 2N`, else
/// Alg. 4).
fn fastest_automorphism_method(p: &FhewParams) -> MethodConfig {
    if Method::LmkcdeyAllEven.applies(p.q, p.big_n) {
        MethodConfig::new(Method::LmkcdeyAllEven)
    } else {
        MethodConfig::new(Method::LmkcdeyAux)
    }
}

/// One `#[ignore]`d test per preset: every gate on 2,000 random inputs with the preset's
/// fastest automorphism method (`cargo test --release -p hekate --test fhew -- --ignored
/// full_size_<preset>` runs one; `-- --ignored full_size` runs them all).
macro_rules! full_size {
    ($($name:ident: $preset:expr, $seed:expr;)*) => {$(
        #[test]
        #[ignore]
        fn $name() {
            let p = &$preset;
            check_gates(p, fastest_automorphism_method(p), 2000, $seed);
        }
    )*};
}

full_size! {
    full_size_medium: params::MEDIUM, 7;
    full_size_std128: params::STD128, 7;
    full_size_std128_ap: params::STD128_AP, 7;
    full_size_std192: params::STD192, 7;
    full_size_std256: params::STD256, 7;
    full_size_std128q: params::STD128Q, 7;
    full_size_std192q: params::STD192Q, 7;
    full_size_std256q: params::STD256Q, 7;
    full_size_openfhe_std128: params::OPENFHE_STD128, 7;
    full_size_openfhe_std128_lmkcdey: params::OPENFHE_STD128_LMKCDEY, 7;
    full_size_openfhe_medium: params::OPENFHE_MEDIUM, 7;
    full_size_openfhe_std192: params::OPENFHE_STD192, 7;
}

/// GINX on OpenFHE's STD128, the peers' method, on 2,000 random inputs.
#[test]
#[ignore]
fn full_size_openfhe_std128_ginx() {
    check_gates(
        &params::OPENFHE_STD128,
        MethodConfig::new(Method::Ginx),
        2000,
        8,
    );
}
