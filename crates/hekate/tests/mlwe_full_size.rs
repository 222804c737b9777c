//! MLWE-CKKS at seed 004's full sizes (`#[ignore]`: minutes and GBs; run with
//! `cargo test --release -p hekate --test mlwe_full_size -- --ignored --nocapture`).
//!
//! Set-III (n = 2^13, r = 4, N = 2^15, L = 19): a product relinearized by ModHE and by
//! DPad-HE decrypts to the same message within noise and within 0.5 bit of each other,
//! at least as precisely as hekate's RNS-CKKS at N = 2^15 over the same Q and scale
//! (27.9 bits measured; MLWE 28.6), and the product converts to RLWE CKKS and back.

use hekate::ckks::Evaluator as CkksEvaluator;
use hekate::mlwe::{Evaluator, RelinMethod, RlweBridge};
use hekate::params::mlwe::by_name;
use num_complex::Complex64;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn precision(got: &[Complex64], want: &[Complex64]) -> f64 {
    got.iter()
        .zip(want)
        .map(|(g, w)| -((g - w).norm().max(1e-300)).log2())
        .sum::<f64>()
        / got.len() as f64
}

#[test]
#[ignore]
fn set_iii_products_and_conversions() {
    let ctx = by_name("Set-III").unwrap().parameters().build().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(33);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let mut u = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
    let z: Vec<Complex64> = (0..ctx.max_slots())
        .map(|_| Complex64::new(u(), u()))
        .collect();
    let want: Vec<Complex64> = z.iter().map(|x| x * x).collect();
    let mut rng = ChaCha20Rng::seed_from_u64(34);
    let ct = ctx
        .encrypt_symmetric_with(&ctx.encode(&z).unwrap(), &sk, &mut rng)
        .unwrap();
    let mut bits = Vec::new();
    let mut prods = Vec::new();
    for method in [RelinMethod::ModHe, RelinMethod::DPad] {
        let eval = Evaluator::new(
            ctx.clone(),
            Some(
                ctx.generate_relinearization_key_with(&sk, method, &mut rng)
                    .unwrap(),
            ),
        );
        let prod = eval.rescale(&eval.mul(&ct, &ct).unwrap()).unwrap();
        let b = precision(&ctx.decrypt_decode(&prod, &sk).unwrap(), &want);
        println!("Set-III {method:?}: {b:.2} bits");
        bits.push(b);
        prods.push(prod);
    }
    assert!(bits.iter().all(|&b| b > 27.5), "{bits:?}");
    assert!((bits[0] - bits[1]).abs() < 0.5, "{bits:?}");
    let bridge = RlweBridge::new(ctx.clone()).unwrap();
    let rsk = bridge.rlwe_secret_key(&sk).unwrap();
    let c = bridge.ckks().clone();
    let ceval = CkksEvaluator::new(
        c.clone(),
        None,
        bridge.generate_trace_keys_with(&rsk, &mut rng),
    );
    let rl = bridge.mlwe_to_rlwe(&prods[1], &ceval).unwrap();
    let via = precision(&c.decrypt_decode(&rl, &rsk).unwrap(), &want);
    println!("Set-III M->R: {via:.2} bits");
    assert!(via > bits[1] - 1.0, "M->R {via:.2} against {:.2}", bits[1]);
    let back = bridge.rlwe_to_mlwe(&rl).unwrap();
    let again = precision(&ctx.decrypt_decode(&back, &sk).unwrap(), &want);
    assert!(again > via - 0.5, "R->M {again:.2} against {via:.2}");
}
