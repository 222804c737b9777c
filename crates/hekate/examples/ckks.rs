//! CKKS from end to end: keys, encryption, a polynomial, rotations (one by one and hoisted),
//! a choice of key-switching engine, and a ciphertext sent through bytes.
//!
//! ```text
//! cargo run --release -p hekate --example ckks
//! ```

use hekate::prelude::*;

fn main() -> hekate::Result<()> {
    // N = 2^14, a 60-bit first prime and four 40-bit primes (scale 2^40), 128-bit secure
    // (checked against the HomomorphicEncryption.org table by `build`). Key switching with
    // KLSS (seed 000), r̃ = 2 primes per key digit; `KeySwitchMethod::Hybrid` is the default.
    let ctx = CkksParameters::new(14)
        .log_q(&[60, 40, 40, 40, 40])
        .log_scale(40)
        .dnum(2)
        .key_switching(KeySwitchMethod::Klss(KlssConfig::klss(2)))
        .build()?;
    let sk = ctx.generate_secret_key();
    let pk = ctx.generate_public_key(&sk);
    let eval = CkksEvaluator::new(
        ctx.clone(),
        Some(ctx.generate_relinearization_key(&sk)),
        ctx.generate_galois_keys(&sk, &[1, 2, 3], false),
    );

    // x_i = i / n in every slot; p(x) = x^2 / 2 + x + 1/4 by Horner's rule,
    // ((x / 2 + 1) x + 1/4): every rescale divides by a different prime, so the scales are
    // tracked exactly, and ciphertexts are only added to ones with the same history.
    let n = ctx.max_slots();
    let x: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
    let ct = ctx.encrypt(&ctx.encode_real(&x)?, &pk)?;
    // (In-place operations update their first operand without a copy.)
    let mut inner = eval.mul_const(&ct, Complex64::new(0.5, 0.0))?;
    eval.rescale_assign(&mut inner)?;
    eval.add_const_assign(&mut inner, Complex64::new(1.0, 0.0))?;
    let mut p = eval.mul(&inner, &ct)?;
    eval.rescale_assign(&mut p)?;
    eval.add_const_assign(&mut p, Complex64::new(0.25, 0.0))?;
    let got = ctx.decrypt_decode(&p, &sk)?;
    let err = x
        .iter()
        .zip(&got)
        .map(|(&v, g)| (g - Complex64::new(v * v / 2.0 + v + 0.25, 0.0)).norm())
        .fold(0.0, f64::max);
    println!(
        "p(x) at level {}: max error {err:.2e} ({:.1} bits)",
        p.level(),
        -err.log2()
    );

    // Rotations by 1, 2 and 3: one at a time, and hoisted (one decomposition for all).
    let single: Vec<Ciphertext> = [1, 2, 3]
        .iter()
        .map(|&s| eval.rotate(&ct, s))
        .collect::<hekate::Result<_>>()?;
    let hoisted = eval.rotate_hoisted(&ct, &[1, 2, 3])?;
    for (s, (a, b)) in single.iter().zip(&hoisted).enumerate() {
        let (a, b) = (ctx.decrypt_decode(a, &sk)?, ctx.decrypt_decode(b, &sk)?);
        println!(
            "rotate by {}: slot 0 = {:.6} (hoisted {:.6}), expected {:.6}",
            s + 1,
            a[0].re,
            b[0].re,
            x[s + 1]
        );
    }

    // Ciphertexts (and keys, plaintexts, parameters) travel as checked, versioned bytes.
    let bytes = p.to_bytes(&ctx)?;
    let back = Ciphertext::from_bytes(&bytes, &ctx)?;
    assert_eq!(back, p);
    println!("ciphertext: {} bytes, read back identical", bytes.len());
    Ok(())
}
