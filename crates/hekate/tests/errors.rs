//! Every misuse returns the right `hekate::Error` with a message that says what to do.

mod common;

use common::*;
use hekate::ckks::{CkksParameters, Evaluator, GaloisKeys, Scale};
use hekate::params::SecurityLevel;
use hekate::rlwe::SecretDistribution;
use hekate::Error;
use num_complex::Complex64;

fn params() -> CkksParameters {
    CkksParameters::new(12)
        .log_q(&[55, 40, 40])
        .log_p(&[60])
        .security(SecurityLevel::NotChecked)
}

fn msg(e: &Error) -> String {
    e.to_string()
}

#[test]
fn invalid_parameters() {
    let cases: Vec<(CkksParameters, &str)> = vec![
        (CkksParameters::new(0).log_q(&[40]), "log N"),
        (CkksParameters::new(18).log_q(&[40]), "log N"),
        (CkksParameters::new(12), "no modulus chain"),
        (params().log_q(&[62, 40]), "outside [20, 61]"),
        (params().log_q(&[19, 40]), "outside [20, 61]"),
        (params().log_p(&[70]), "outside [20, 61]"),
        (params().dnum(0), "dnum"),
        (params().dnum(4), "dnum"),
        (params().dnum(1), "special modulus P"),
        (params().scale(-1.0), "scale"),
        (params().scale(f64::NAN), "scale"),
        (
            params().secret(SecretDistribution::HammingWeight(0)),
            "Hamming weight",
        ),
        (
            params().secret(SecretDistribution::HammingWeight(5000)),
            "Hamming weight",
        ),
        (params().q_primes(&[12289, 12289]), "twice"),
        (params().q_primes(&[1 << 40]), "prime"),
    ];
    for (p, needle) in cases {
        let e = p.build().unwrap_err();
        assert!(
            matches!(e, Error::InvalidParameters(_) | Error::PrimeGeneration(_)),
            "{e:?}"
        );
        assert!(
            msg(&e).contains(needle),
            "'{}' should mention '{needle}'",
            msg(&e)
        );
    }
}

#[test]
fn insecure_parameters_are_refused_unless_opted_out() {
    let p = CkksParameters::new(12).log_q(&[55, 40, 40]).log_p(&[60]);
    let e = p.clone().build().unwrap_err();
    assert!(matches!(e, Error::Insecure(_)));
    assert!(
        msg(&e).contains("NotChecked") && msg(&e).contains("109"),
        "{}",
        msg(&e)
    );
    assert!(p.security(SecurityLevel::NotChecked).build().is_ok());
    // Sparse secrets are outside the table: only with the explicit opt-out.
    let sparse = CkksParameters::new(13)
        .log_q(&[50, 40, 40])
        .log_p(&[60])
        .secret(SecretDistribution::HammingWeight(64));
    let e = sparse.clone().build().unwrap_err();
    assert!(
        matches!(e, Error::Insecure(ref m) if m.contains("Hamming weight 64")),
        "{e:?}"
    );
    assert!(sparse.security(SecurityLevel::NotChecked).build().is_ok());
    // 192-bit is stricter than 128-bit.
    let p = CkksParameters::new(13).log_q(&[50, 40, 40]).log_p(&[60]);
    assert!(p.clone().build().is_ok());
    assert!(matches!(
        p.security(SecurityLevel::Bits192).build(),
        Err(Error::Insecure(_))
    ));
}

#[test]
fn encoding_errors() {
    let ctx = params().build().unwrap();
    let slots = ctx.max_slots();
    let scale = ctx.default_scale().clone();
    let nan = [Complex64::new(f64::NAN, 0.0)];
    assert!(matches!(ctx.encode(&nan), Err(Error::InvalidMessage(m)) if m.contains("not finite")));
    let too_many = vec![Complex64::new(0.0, 0.0); slots + 1];
    assert!(
        matches!(ctx.encode(&too_many), Err(Error::InvalidMessage(m)) if m.contains("do not fit"))
    );
    let huge = [Complex64::new(1e35, 0.0)];
    assert!(
        matches!(ctx.encode(&huge), Err(Error::InvalidMessage(m)) if m.contains("lower the scale"))
    );
    assert!(
        matches!(ctx.encode_at(&[], 3, 0, &scale), Err(Error::InvalidParameters(m)) if m.contains("power of two"))
    );
    assert!(matches!(
        ctx.encode_at(&[], slots * 2, 0, &scale),
        Err(Error::InvalidParameters(_))
    ));
    assert!(matches!(
        ctx.encode_at(&[], 4, 3, &scale),
        Err(Error::LevelMismatch(_))
    ));
    // Large values are fine at a level whose modulus holds them.
    assert!(ctx.encode(&[Complex64::new(1e9, -1e9)]).is_ok());
}

#[test]
fn evaluation_errors() {
    let mut f = fixture(12, 21, &[]);
    let v = random_values(8, 1);
    let pt = f.ctx.encode(&v).unwrap();
    let ct = f.ctx.encrypt_with(&pt, &f.pk, &mut f.rng).unwrap();
    let e = &f.eval;

    // Missing keys.
    let no_keys = Evaluator::new(f.ctx.clone(), None, GaloisKeys::default());
    assert!(
        matches!(no_keys.mul(&ct, &ct), Err(Error::MissingKey(m)) if m.contains("relinearization"))
    );
    assert!(matches!(e.rotate(&ct, 3), Err(Error::MissingKey(m)) if m.contains("rotation by 3")));
    assert!(
        matches!(no_keys.conjugate(&ct), Err(Error::MissingKey(m)) if m.contains("conjugation"))
    );
    assert!(matches!(
        e.rotate_hoisted(&ct, &[1, 2]),
        Err(Error::MissingKey(_))
    ));

    // Levels.
    let bottom = e.drop_level(&ct, f.ctx.max_level()).unwrap();
    assert!(matches!(e.rescale(&bottom), Err(Error::OutOfLevels(m)) if m.contains("level 0")));
    assert!(matches!(
        e.drop_level(&ct, f.ctx.max_level() + 1),
        Err(Error::OutOfLevels(_))
    ));

    // Scales: a rescaled product carries Δ^2/q, not an integer multiple of Δ.
    let prod = e.rescale(&e.mul(&ct, &ct).unwrap()).unwrap();
    let err = e.add(&prod, &ct).unwrap_err();
    assert!(
        matches!(err, Error::ScaleMismatch(ref m) if m.contains("rescale")),
        "{err:?}"
    );
    assert!(matches!(
        e.add_plain(&prod, &pt),
        Err(Error::ScaleMismatch(_))
    ));
    // An integer ratio is aligned exactly instead.
    let doubled_scale = f
        .ctx
        .encode_at(
            &v,
            f.ctx.max_slots(),
            f.ctx.max_level(),
            &f.ctx.default_scale().mul_integer(2),
        )
        .unwrap();
    assert!(e.add_plain(&ct, &doubled_scale).is_ok());

    // Slot counts.
    let sparse = f
        .ctx
        .encode_at(&v, 8, f.ctx.max_level(), &Scale::from_bits(40))
        .unwrap();
    let csparse = f.ctx.encrypt_with(&sparse, &f.pk, &mut f.rng).unwrap();
    assert!(
        matches!(e.add(&ct, &csparse), Err(Error::ParameterMismatch(m)) if m.contains("slots"))
    );
    assert!(matches!(
        e.mul_plain(&ct, &sparse),
        Err(Error::ParameterMismatch(_))
    ));

    // Degree.
    let raw = e.mul_no_relin(&ct, &ct).unwrap();
    assert!(
        matches!(e.mul_no_relin(&raw, &ct), Err(Error::ParameterMismatch(m)) if m.contains("relinearize"))
    );

    // Constants that do not fit.
    assert!(matches!(
        e.add_const(&ct, Complex64::new(1e300, 0.0)),
        Err(Error::InvalidMessage(_))
    ));
    assert!(matches!(
        e.mul_const(&ct, Complex64::new(f64::INFINITY, 0.0)),
        Err(Error::InvalidMessage(_))
    ));
}

#[test]
fn objects_from_other_parameters_are_refused() {
    let mut a = fixture(12, 22, &[]);
    let b = fixture(12, 23, &[]); // same shape, same primes: interchangeable
    let other = CkksParameters::new(12)
        .log_q(&[55, 45, 45, 45])
        .log_p(&[60, 60])
        .dnum(2)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let v = random_values(4, 2);
    let pt = a.ctx.encode(&v).unwrap();
    let ct = a.ctx.encrypt_with(&pt, &a.pk, &mut a.rng).unwrap();
    let other_pt = other.encode(&v).unwrap();
    let other_sk = other.generate_secret_key();
    let other_pk = other.generate_public_key(&other_sk);
    let other_ct = other.encrypt(&other_pt, &other_pk).unwrap();
    assert!(matches!(
        a.eval.add(&ct, &other_ct),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(matches!(
        a.eval.add_plain(&ct, &other_pt),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(matches!(
        a.ctx.decrypt(&other_ct, &a.sk),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(matches!(
        a.ctx.decode(&other_pt),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(matches!(
        a.ctx.encrypt(&other_pt, &a.pk),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(matches!(
        other.encrypt(&other_pt, &a.pk),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(matches!(
        other.decrypt(&other_ct, &a.sk),
        Err(Error::ParameterMismatch(_))
    ));
    // Same parameters: objects are interchangeable between contexts built alike.
    assert!(b.ctx.decrypt(&ct, &b.sk).is_ok());
}

#[test]
fn evaluation_keys_from_other_parameters_are_refused() {
    let mut a = fixture(12, 24, &[1]);
    let other = fixture(12, 25, &[1]);
    let other_ctx = hekate::ckks::CkksParameters::new(12)
        .log_q(&[55, 45, 45, 45])
        .log_p(&[60, 60])
        .dnum(2)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let osk = other_ctx.generate_secret_key();
    let mixed = Evaluator::new(
        a.ctx.clone(),
        Some(other_ctx.generate_relinearization_key(&osk)),
        other_ctx.generate_galois_keys(&osk, &[1], false),
    );
    let pt = a.ctx.encode(&random_values(4, 3)).unwrap();
    let ct = a.ctx.encrypt_with(&pt, &a.pk, &mut a.rng).unwrap();
    assert!(matches!(
        mixed.mul(&ct, &ct),
        Err(Error::ParameterMismatch(_))
    ));
    assert!(matches!(
        mixed.rotate(&ct, 1),
        Err(Error::ParameterMismatch(_))
    ));
    // Keys of the same parameters (another secret) are accepted: they just decrypt to noise.
    assert!(other.eval.rotate(&ct, 1).is_ok());
}
