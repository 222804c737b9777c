//! FHEW gate bootstrapping (seed 002): Boolean gates, a 3-input majority and a look-up
//! table on small integers, with the automorphism-based blind rotation (LMKCDEY), and a
//! bootstrapping key sent through bytes.
//!
//! ```text
//! cargo run --release -p hekate --example fhew
//! ```

use hekate::params::fhew::OPENFHE_STD128_LMKCDEY;
use hekate::prelude::*;
use std::time::Instant;

fn main() -> hekate::Result<()> {
    // OpenFHE 1.6.1's STD128_LMKCDEY set (n = 554, q = 2048, N = 1024), 128-bit secure
    // (checked by `FhewContext::new`). q = 2N, so the LMKCDEY variant with auxiliary keys
    // (seed 002 Alg. 4) applies: one blind-rotation product per LWE coefficient.
    let ctx = FhewContext::new(&OPENFHE_STD128_LMKCDEY)?;
    let sk = ctx.generate_secret_key()?;
    let method = Method::lmkcdey(ctx.params());
    let t = Instant::now();
    let key = ctx.generate_bootstrap_key(&sk, MethodConfig::new(method))?;
    println!(
        "bootstrapping key ({}): {:.2} s",
        method.name(),
        t.elapsed().as_secs_f64()
    );

    // The key is public: the client sends it to the server as seed-compressed bytes.
    let bytes = key.to_bytes(&ctx)?;
    println!(
        "bootstrapping key: {:.1} MiB on the wire",
        bytes.len() as f64 / (1 << 20) as f64
    );
    let key = BootstrapKey::from_bytes(&bytes, &ctx)?;
    let mut ev = FhewEvaluator::new(ctx.clone(), key)?;

    for (x, y) in [(false, false), (false, true), (true, false), (true, true)] {
        let (cx, cy) = (ctx.encrypt_bit(x, &sk)?, ctx.encrypt_bit(y, &sk)?);
        let t = Instant::now();
        let nand = ev.gate(Gate::Nand, &cx, &cy)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let xor = ev.gate(Gate::Xor, &cx, &cy)?;
        let (nand, xor) = (ctx.decrypt_bit(&nand, &sk)?, ctx.decrypt_bit(&xor, &sk)?);
        println!("NAND({x:5}, {y:5}) = {nand:5} ({ms:.1} ms), XOR = {xor:5}");
        assert_eq!(nand, !(x && y));
        assert_eq!(xor, x ^ y);
    }

    let [a, b, c] = [true, false, true].map(|bit| ctx.encrypt_bit(bit, &sk));
    let maj = ev.majority(&a?, &b?, &c?)?;
    println!("MAJ(1, 0, 1) = {}", ctx.decrypt_bit(&maj, &sk)?);

    // Any function Z_t -> Z_t on an encrypted small integer: here m -> m^2 mod 4.
    let t = 4;
    for m in 0..t {
        let ct = ctx.encrypt_int(m, t, &sk)?;
        let out = ev.lut(&ct, t, |v| v * v % t)?;
        let got = ctx.decrypt_int(&out, t, &sk)?;
        println!("LUT m^2 mod 4 at {m}: {got}");
        assert_eq!(got, m * m % t);
    }
    Ok(())
}
