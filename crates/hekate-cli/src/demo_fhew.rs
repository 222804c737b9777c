//! The gates part of `hekate demo`: an encrypted 4-bit ripple-carry adder with FHEW gate
//! bootstrapping (seed 002, automorphism-based blind rotation LMKCDEY, Alg. 4) on a 128-bit
//! set.

use crate::bench::time_once;
use crate::progress::Bar;
use crate::Outcome;
use hekate::fhew::params::{self, Method, MethodConfig};
use hekate::fhew::{FhewContext, FhewEvaluator, Gate, LweCiphertext};
use std::error::Error;
use std::sync::Arc;

/// Adds two encrypted 4-bit numbers with XOR and 3-input majority gates.
pub fn run() -> Result<Outcome, Box<dyn Error>> {
    let p = &params::OPENFHE_STD128_LMKCDEY;
    println!("6. FHEW gates: an encrypted 4-bit adder");
    println!(
        "  {} (n = {}, q = {}, N = {}, log Q = {}), LMKCDEY blind rotation (Alg. 4)",
        p.name, p.n, p.q, p.big_n, p.log_big_q
    );
    println!("  security: {}", p.security());
    let mut rng = hekate::math::sample::os_rng();
    let ctx = FhewContext::new(p)?;
    let sk = ctx.generate_secret_key_with(&mut rng)?;
    let bar = Bar::new(0, "keys");
    let (key, t) = time_once(|| {
        ctx.generate_bootstrap_key_with_progress(
            &sk,
            MethodConfig::new(Method::LmkcdeyAux),
            &mut rng,
            &bar,
        )
    });
    drop(bar);
    let key = key?;
    println!(
        "  {:.2} s bootstrapping keys ({:.1} MiB seed-compressed blind-rotation keys)",
        t.as_secs_f64(),
        key.brk.compressed_bytes() as f64 / (1 << 20) as f64
    );
    let mut ev = FhewEvaluator::new(ctx.clone(), Arc::new(key))?;
    let (x, y) = (11u8, 6u8);
    let enc = |v: u8, rng: &mut _| -> Result<Vec<LweCiphertext>, hekate::Error> {
        (0..4)
            .map(|i| ctx.encrypt_bit_with((v >> i) & 1 == 1, &sk, rng))
            .collect()
    };
    let (cx, cy) = (enc(x, &mut rng)?, enc(y, &mut rng)?);
    let (sum, t) = time_once(|| -> Result<Vec<LweCiphertext>, hekate::Error> {
        let mut carry = ctx.encrypt_bit_with(false, &sk, &mut hekate::math::sample::os_rng())?;
        let mut out = Vec::new();
        for i in 0..4 {
            let h = ev.gate(Gate::Xor, &cx[i], &cy[i])?;
            out.push(ev.gate(Gate::Xor, &h, &carry)?);
            carry = ev.majority(&cx[i], &cy[i], &carry)?;
        }
        out.push(carry);
        Ok(out)
    });
    let sum = sum?;
    let mut got = 0u8;
    for (i, c) in sum.iter().enumerate() {
        got |= (ctx.decrypt_bit(c, &sk)? as u8) << i;
    }
    println!(
        "  {x} + {y} = {got} (12 bootstrapped gates in {:.0} ms, {:.1} ms per gate)",
        t.as_secs_f64() * 1e3,
        t.as_secs_f64() * 1e3 / 12.0
    );
    if got != x + y {
        return Ok(Outcome::CheckFailed(format!(
            "encrypted adder gave {got}, expected {}",
            x + y
        )));
    }
    Ok(Outcome::Success)
}
