//! FHEW gate bootstrapping (seed 002): Boolean gates, a 3-input majority and a look-up
//! table on small integers, with the automorphism-based blind rotation, and a bootstrapping
//! key sent through bytes.
//!
//! ```text
//! cargo run --release -p hekate --example fhew
//! ```

use hekate::fhew::params::{self, Method, MethodConfig};
use hekate::fhew::{BootstrapKey, FhewContext, FhewEvaluator, Gate};
use hekate::serialize::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Instant;

fn main() -> hekate::Result<()> {
    let mut rng = hekate::math::sample::os_rng();
    // OpenFHE 1.6.1's STD128 set (n = 554, q = 2048, N = 1024); q = 2N, so Alg. 4 applies.
    let ctx = FhewContext::new(&params::OPENFHE_STD128)?;
    let sk = ctx.generate_secret_key_with(&mut rng)?;
    let t = Instant::now();
    let key =
        ctx.generate_bootstrap_key_with(&sk, MethodConfig::new(Method::LmkcdeyAux), &mut rng)?;
    println!("bootstrapping key: {:.2} s", t.elapsed().as_secs_f64());

    // The key is public: the client sends it to the server as seed-compressed bytes.
    let bytes = key.to_bytes(&ctx)?;
    println!(
        "bootstrapping key: {:.1} MiB on the wire",
        bytes.len() as f64 / (1 << 20) as f64
    );
    let key = BootstrapKey::from_bytes(&bytes, &ctx)?;
    let mut ev = FhewEvaluator::new(ctx.clone(), Arc::new(key))?;

    for (x, y) in [(false, false), (false, true), (true, false), (true, true)] {
        let (cx, cy) = (
            ctx.encrypt_bit_with(x, &sk, &mut rng)?,
            ctx.encrypt_bit_with(y, &sk, &mut rng)?,
        );
        let t = Instant::now();
        let nand = ev.gate(Gate::Nand, &cx, &cy)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let xor = ev.gate(Gate::Xor, &cx, &cy)?;
        println!(
            "NAND({x:5}, {y:5}) = {:5} ({ms:.1} ms), XOR = {:5}",
            ctx.decrypt_bit(&nand, &sk)?,
            ctx.decrypt_bit(&xor, &sk)?
        );
        assert_eq!(ctx.decrypt_bit(&nand, &sk)?, !(x && y));
        assert_eq!(ctx.decrypt_bit(&xor, &sk)?, x ^ y);
    }

    let bits = [true, false, true].map(|b| ctx.encrypt_bit_with(b, &sk, &mut rng));
    let [a, b, c] = bits;
    let maj = ev.majority(&a?, &b?, &c?)?;
    println!("MAJ(1, 0, 1) = {}", ctx.decrypt_bit(&maj, &sk)?);

    // Any function Z_t -> Z_t on an encrypted small integer: here m -> m^2 mod 4.
    let t = 4;
    for m in 0..t {
        let ct = ctx.encrypt_int_with(m, t, &sk, &mut rng)?;
        let out = ev.lut(&ct, t, |v| v * v % t)?;
        println!("LUT m^2 mod 4 at {m}: {}", ctx.decrypt_int(&out, t, &sk)?);
    }
    Ok(())
}
