//! MLWE-CKKS (seed 004) at rank 4: a 128-bit set (n = 2^12, N = r·n = 2^14), products
//! relinearized by DPad-HE, rank reduction once the modulus is small enough for rank 2,
//! rank-hoisted rotations, and the conversion of the result to an RLWE CKKS ciphertext
//! at N = 2^14 and back.
//!
//! Run: `cargo run --release -p hekate --example mlwe`

use hekate::mlwe::{Evaluator, MlweParameters, RelinMethod, RlweBridge};
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use num_complex::Complex64;
use std::time::Instant;

fn main() -> Result<(), hekate::Error> {
    // n = 2^12, rank 4: 128-bit secure at N = 2^14 (log QP = 60 + 5·40 + 60 = 320 <= 438),
    // DPad-HE with r̂ = 5 and P̂ of 115 bits (log P̂Q = 375 <= 527 interpolated at 5·2^12).
    let ctx = MlweParameters::new(12, 4)
        .log_q(&[60, 40, 40, 40, 40, 40])
        .log_p(&[60])
        .log_scale(40)
        .dpad(5, &[60, 55], None)
        .build()?;
    println!(
        "MLWE-CKKS: n = {}, rank {} (N = {}), L = {}, d = {}, r̂ = {:?}, μ = {}",
        ctx.n(),
        ctx.rank(),
        ctx.lwe_dimension(),
        ctx.max_level(),
        ctx.dnum(),
        ctx.rank_hat(),
        ctx.dpad().map_or(0, |d| d.mu())
    );
    println!(
        "rank schedule (rank, highest secure level): {:?}",
        ctx.rank_schedule()
    );
    let mut rng = ChaCha20Rng::seed_from_u64(2024);
    let sk = ctx.generate_secret_key_with(&mut rng)?;
    let pk = ctx.generate_public_key_with(&sk, &mut rng)?;
    let t = Instant::now();
    let relin = ctx.generate_relinearization_key_with(&sk, RelinMethod::DPad, &mut rng)?;
    println!(
        "DPad-HE relinearization key: {:.1} MiB in {:.2} s",
        relin.size_bytes() as f64 / (1 << 20) as f64,
        t.elapsed().as_secs_f64()
    );
    // Rank 2 is secure from the level the schedule gives; its keys live only there.
    let (r2, l2) = *ctx
        .rank_schedule()
        .iter()
        .find(|(r, _)| *r == 2)
        .expect("rank 2 is secure at some level");
    let eval = Evaluator::new(ctx.clone(), Some(relin))
        .with_rank_reduction_key(ctx.generate_rank_reduction_key_with(&sk, 4, r2, l2, &mut rng)?)
        .with_relinearization_key(ctx.generate_relinearization_key_at_with(
            &sk,
            RelinMethod::ModHe,
            r2,
            l2,
            &mut rng,
        )?)
        .with_hoisted_rotation_keys(ctx.generate_hoisted_rotation_keys_with(
            &sk,
            &[1],
            &mut rng,
        )?);

    let slots = ctx.max_slots();
    let x: Vec<f64> = (0..slots).map(|i| 0.75 + 0.25 * (i as f64).sin()).collect();
    // A plaintext saved and loaded (tag 0x0208, checked against this context on read).
    let bytes = ctx.plaintext_to_bytes(&ctx.encode_real(&x)?)?;
    let pt = ctx.plaintext_from_bytes(&bytes)?;
    println!("plaintext: {} bytes", bytes.len());
    let mut ct = ctx.encrypt(&pt, &pk)?;
    // x^16 by four squarings; drop to rank 2 as soon as that is secure (the last product
    // then runs at rank 2, with that rank's key).
    let mut want: Vec<f64> = x.clone();
    for _ in 0..4 {
        ct = eval.mul(&ct, &ct)?;
        ct = eval.reduce_rank_if_secure(&eval.rescale(&ct)?)?;
        want.iter_mut().for_each(|w| *w *= *w);
        println!("  squared: level {}, rank {}", ct.level(), ct.rank());
    }
    let got = ctx.decrypt_decode(&ct, &sk)?;
    let err = got
        .iter()
        .zip(&want)
        .map(|(g, w)| (g.re - w).abs())
        .fold(0.0, f64::max);
    println!("x^16: largest error {err:.2e} ({:.1} bits)", -err.log2());
    assert!(err < 1e-4, "x^16 is off by {err}");

    // Rank-hoisted rotations: three rotations by one slot at rank r̂, one rank-down.
    let fresh = ctx.encrypt(&ctx.encode_real(&x)?, &pk)?;
    let rot = eval.rotate_chain_hoisted(&fresh, &[1, 1, 1])?;
    let got = ctx.decrypt_decode(&rot, &sk)?;
    assert!((got[0].re - x[3]).abs() < 1e-5 && (got[slots - 1].re - x[2]).abs() < 1e-5);
    println!(
        "rotated by 3 (rank-hoisted): slot 0 holds x[3] = {:.4}",
        got[0].re
    );

    // MLWE -> RLWE (CKKS at N = 2^14, n/2 sparse slots) and back.
    let bridge = RlweBridge::new(ctx.clone())?;
    let rsk = bridge.rlwe_secret_key(&sk)?;
    let ckks = bridge.ckks().clone();
    let ceval = hekate::ckks::Evaluator::new(
        ckks.clone(),
        None,
        bridge.generate_trace_keys_with(&rsk, &mut rng),
    );
    let rl = bridge.mlwe_to_rlwe(&fresh, &ceval)?;
    let got: Vec<Complex64> = ckks.decrypt_decode(&rl, &rsk)?;
    assert!((got[5].re - x[5]).abs() < 1e-5);
    println!(
        "MLWE -> RLWE: N = {}, {} slots, scale 2^{:.1} (2^g·r·Δ); slot 5 = {:.5}",
        ckks.n(),
        rl.slots(),
        rl.scale().log2(),
        got[5].re
    );
    let back = bridge.rlwe_to_mlwe(&rl)?;
    let got = ctx.decrypt_decode(&back, &sk)?;
    assert!((got[5].re - x[5]).abs() < 1e-5);
    println!(
        "RLWE -> MLWE: rank {}, slot 5 = {:.5}",
        back.rank(),
        got[5].re
    );
    Ok(())
}
