//! BFV and BGV: exact arithmetic mod t = 65537 on 2 × N/2 slots, at 128 bits with a chain
//! sized for depth 10 (`params::integer::for_depth`): a squaring chain x^(2^10), a product
//! with a plaintext, row rotations and the row swap, and the noise budget along the way.
//!
//!     cargo run --release -p hekate --example bfv_bgv

use hekate::params::integer::for_depth;
use hekate::params::SecurityLevel;
use hekate::rlwe::integer::{Evaluator, Scheme};

fn main() -> Result<(), hekate::Error> {
    let t = 65537;
    for scheme in [Scheme::Bgv, Scheme::Bfv] {
        let chain = for_depth(scheme, t, 10, SecurityLevel::Bits128)?;
        let ctx = chain.parameters().build()?;
        println!(
            "{}: N = 2^{}, Q = {:?} bits, P = {:?}, log QP = {:.0}",
            scheme.name(),
            chain.log_n,
            chain.log_q,
            chain.log_p,
            ctx.log_qp()
        );
        let sk = ctx.generate_secret_key();
        let pk = ctx.generate_public_key(&sk);
        let eval = Evaluator::new(
            ctx.clone(),
            Some(ctx.generate_relinearization_key(&sk)),
            ctx.generate_galois_keys(&sk, &[1], true),
        );
        let x: Vec<u64> = (0..ctx.n() as u64).map(|i| (i * 7 + 3) % t).collect();
        let mut ct = ctx.encrypt(&ctx.encode(&x)?, &pk)?;
        println!("  fresh: budget {:.0} bits", ctx.noise_budget(&ct, &sk)?);
        for d in 1..=10 {
            ct = eval.square(&ct)?;
            if d % 5 == 0 {
                println!(
                    "  x^(2^{d}) at level {}: budget {:.0} bits (estimated {:.0})",
                    ct.level(),
                    ctx.noise_budget(&ct, &sk)?,
                    ctx.estimated_noise_budget(&ct)
                );
            }
        }
        let m = hekate::math::Modulus::new(t);
        let want: Vec<u64> = x.iter().map(|&v| m.pow(v, 1 << 10)).collect();
        assert_eq!(
            ctx.decrypt_decode(&ct, &sk)?,
            want,
            "x^(2^10) on every slot"
        );
        // A fresh ciphertext times a plaintext, rotated by one, rows swapped.
        let fresh = ctx.encrypt(&ctx.encode(&x)?, &pk)?;
        let y =
            eval.rotate_columns(&eval.rotate_rows(&eval.mul_plain(&fresh, &ctx.encode(&x)?)?, 1)?)?;
        let got = ctx.decrypt_decode(&y, &sk)?;
        let half = ctx.n() / 2;
        assert_eq!(got[0], m.mul(x[half + 1], x[half + 1]));
        println!(
            "  x^(2^10), x·x rotated and swapped: all {} slots exact",
            ctx.n()
        );
    }
    Ok(())
}
