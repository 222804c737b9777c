//! MLWE-CKKS end-to-end tests at small `n` (fixed seeds).

use super::*;
use crate::params::SecurityLevel;
use num_complex::Complex64;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

/// `n = 2^log_n`, rank `r`, `Q` = 60 + 40·`l` bits, one 60-bit `P`, scale 2^40, DPad-HE
/// with `r̂ = r + 1` and `P̂` = 60 + 55·2 bits (the shape of seed 004's sets).
fn context(log_n: u32, r: usize, l: usize) -> Arc<MlweContext> {
    let log_q: Vec<u32> = std::iter::once(60)
        .chain(std::iter::repeat_n(40, l))
        .collect();
    MlweParameters::new(log_n, r)
        .log_q(&log_q)
        .log_p(&[60])
        .log_scale(40)
        .dpad(r + 1, &[60, 55, 55], None)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap()
}

fn values(n: usize, seed: u64) -> Vec<Complex64> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    use rand_chacha::rand_core::RngCore;
    let mut u = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
    (0..n).map(|_| Complex64::new(u(), u())).collect()
}

/// `-log2` of the mean absolute error.
fn precision(got: &[Complex64], want: &[Complex64]) -> f64 {
    let err: f64 = got
        .iter()
        .zip(want)
        .map(|(g, w)| (g - w).norm())
        .sum::<f64>()
        / got.len() as f64;
    -err.log2()
}

/// Secret- and public-key encryption decrypt to the message at ranks 1, 2 and 4, about
/// as precisely as RLWE CKKS (fresh precision above 25 bits at scale 2^40).
#[test]
fn encrypts_and_decrypts_at_every_rank() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for r in [1usize, 2, 4] {
        let ctx = context(9, r, 2);
        let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
        let pk = ctx.generate_public_key_with(&sk, &mut rng).unwrap();
        let z = values(ctx.max_slots(), r as u64);
        let pt = ctx.encode(&z).unwrap();
        for ct in [
            ctx.encrypt_symmetric_with(&pt, &sk, &mut rng).unwrap(),
            ctx.encrypt_with(&pt, &pk, &mut rng).unwrap(),
        ] {
            assert_eq!((ct.rank(), ct.parts().len()), (r, 1 + r));
            let got = ctx.decrypt_decode(&ct, &sk).unwrap();
            let p = precision(&got, &z);
            assert!(p > 25.0, "rank {r}: fresh precision {p:.1} bits");
        }
    }
}

/// Multiplication with ModHE and with DPad-HE relinearization, then rescaling, decrypts
/// to the product (31.5-31.8 bits measured at scale 2^40, n = 2^10; asserted above 29), at the top
/// level and one below; both give the same message within noise, and the unrelinearized
/// tensor decrypts too.
#[test]
fn multiplies_with_modhe_and_dpad() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for r in [2usize, 3] {
        let ctx = context(10, r, 3);
        let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
        let z1 = values(ctx.max_slots(), 10);
        let z2 = values(ctx.max_slots(), 11);
        let want: Vec<Complex64> = z1.iter().zip(&z2).map(|(a, b)| a * b).collect();
        let a = ctx
            .encrypt_symmetric_with(&ctx.encode(&z1).unwrap(), &sk, &mut rng)
            .unwrap();
        let b = ctx
            .encrypt_symmetric_with(&ctx.encode(&z2).unwrap(), &sk, &mut rng)
            .unwrap();
        let plain = Evaluator::new(ctx.clone(), None);
        let t = plain.tensor(&a, &b).unwrap();
        assert!(t.is_quadratic());
        let p = precision(
            &ctx.decrypt_decode(&plain.rescale(&t).unwrap(), &sk)
                .unwrap(),
            &want,
        );
        assert!(p > 20.0, "rank {r}: tensor precision {p:.1}");
        assert!(matches!(
            plain.relinearize(&t),
            Err(crate::Error::MissingKey(_))
        ));
        let mut outs = Vec::new();
        for method in [RelinMethod::ModHe, RelinMethod::DPad] {
            let rlk = ctx
                .generate_relinearization_key_with(&sk, method, &mut rng)
                .unwrap();
            let eval = Evaluator::new(ctx.clone(), Some(rlk));
            let prod = eval.rescale(&eval.mul(&a, &b).unwrap()).unwrap();
            assert_eq!(
                (prod.rank(), prod.parts().len(), prod.level()),
                (r, 1 + r, 2)
            );
            let got = ctx.decrypt_decode(&prod, &sk).unwrap();
            let p = precision(&got, &want);
            assert!(p > 29.0, "rank {r} {method:?}: precision {p:.1} bits");
            // Once more one level down: a square of the product.
            let sq = eval.rescale(&eval.mul(&prod, &prod).unwrap()).unwrap();
            let want_sq: Vec<Complex64> = want.iter().map(|w| w * w).collect();
            let p2 = precision(&ctx.decrypt_decode(&sq, &sk).unwrap(), &want_sq);
            assert!(
                p2 > 18.0,
                "rank {r} {method:?}: second product {p2:.1} bits"
            );
            outs.push(got);
        }
        let p = precision(&outs[0], &outs[1]);
        assert!(p > 20.0, "ModHE and DPad-HE differ by 2^-{p:.1}");
    }
}

/// Additions, plaintext and constant operations.
#[test]
fn linear_and_plaintext_operations() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let ctx = context(9, 2, 2);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let eval = Evaluator::new(ctx.clone(), None);
    let z1 = values(ctx.max_slots(), 20);
    let z2 = values(ctx.max_slots(), 21);
    let (p1, p2) = (ctx.encode(&z1).unwrap(), ctx.encode(&z2).unwrap());
    let a = ctx.encrypt_symmetric_with(&p1, &sk, &mut rng).unwrap();
    let b = ctx.encrypt_symmetric_with(&p2, &sk, &mut rng).unwrap();
    let check = |ct: &Ciphertext, want: Vec<Complex64>, what: &str| {
        let p = precision(&ctx.decrypt_decode(ct, &sk).unwrap(), &want);
        assert!(p > 20.0, "{what}: {p:.1} bits");
    };
    let zip = |f: fn(Complex64, Complex64) -> Complex64| -> Vec<Complex64> {
        z1.iter().zip(&z2).map(|(&x, &y)| f(x, y)).collect()
    };
    check(&eval.add(&a, &b).unwrap(), zip(|x, y| x + y), "add");
    check(&eval.sub(&a, &b).unwrap(), zip(|x, y| x - y), "sub");
    check(
        &eval.neg(&a).unwrap(),
        z1.iter().map(|x| -x).collect(),
        "neg",
    );
    check(
        &eval.add_plain(&a, &p2).unwrap(),
        zip(|x, y| x + y),
        "add_plain",
    );
    let mp = eval.rescale(&eval.mul_plain(&a, &p2).unwrap()).unwrap();
    check(&mp, zip(|x, y| x * y), "mul_plain");
    check(
        &eval.add_const(&a, 0.75).unwrap(),
        z1.iter().map(|x| x + 0.75).collect(),
        "add_const",
    );
    let mc = eval.rescale(&eval.mul_const(&a, -1.25).unwrap()).unwrap();
    assert_eq!(mc.scale(), a.scale());
    check(&mc, z1.iter().map(|x| x * -1.25).collect(), "mul_const");
    // Mismatches are errors.
    let low = eval.drop_level(&a, 1).unwrap();
    assert!(matches!(
        eval.add(&a, &low),
        Err(crate::Error::LevelMismatch(_))
    ));
    assert!(matches!(
        eval.add(&a, &mp),
        Err(crate::Error::LevelMismatch(_))
    ));
    let other = context(9, 2, 3);
    let pt_other = other.encode(&z1).unwrap();
    assert!(eval.add_plain(&a, &pt_other).is_err());
    assert!(other.decrypt(&a, &sk).is_err());
    assert!(eval.rescale(&eval.drop_level(&a, 2).unwrap()).is_err());
}

/// Parameters are validated: rank, `r̂` range, `P̂ > P`, digits covered, security at
/// `r·n` (a set secure only because of the rank passes; the same at rank 1 fails).
#[test]
fn validates_parameters() {
    let q = [60u32, 40, 40, 40, 40, 40, 40, 40];
    // 2^13 · 2 = 2^14: 438 bits allowed; Q P = 400 (2^13 alone allows 218).
    assert!(MlweParameters::new(13, 2)
        .log_q(&q)
        .log_p(&[60])
        .build()
        .is_ok());
    assert!(matches!(
        MlweParameters::new(13, 1).log_q(&q).log_p(&[60]).build(),
        Err(crate::Error::Insecure(_))
    ));
    let toy = |b: MlweParameters| b.security(SecurityLevel::NotChecked).build();
    assert!(toy(MlweParameters::new(8, 0).log_q(&[50])).is_err());
    assert!(toy(MlweParameters::new(8, 2).log_q(&[50]).dpad(2, &[61], None)).is_err());
    assert!(toy(MlweParameters::new(8, 2).log_q(&[50]).dpad(5, &[61], None)).is_err());
    assert!(toy(MlweParameters::new(8, 2)
        .log_q(&[50, 40])
        .log_p(&[60])
        .dpad(3, &[40], None))
    .is_err());
    assert!(toy(MlweParameters::new(8, 2).log_q(&[50, 40]).log_p(&[30])).is_err());
    let ctx = toy(MlweParameters::new(8, 2)
        .log_q(&[60, 40, 40, 40])
        .log_p(&[60])
        .dpad(3, &[60, 55], None))
    .unwrap();
    // One 60-bit P: one prime per digit. P̂ of 115 bits: two 40-bit primes per digit
    // (the 60-bit q_0 and a 40-bit one reach 100).
    assert_eq!((ctx.dnum(), ctx.dpad().unwrap().mu()), (4, 2));
}

/// The rank schedule follows the table interpolated at `rank·n` (n = 2^11, r = 4,
/// `Q` = 45 + 4·30 bits, `P` = 45 bits, 128-bit check): rank 4 at every level, rank 3 up
/// to level 2 (`Q_2 P` = 150 <= 163.5 at 6144), rank 2 at level 0 only (90 <= 109 at
/// 4096), rank 1 never. Rank reduction 4 -> 3 -> 2 keeps the message within 0.5 bit of
/// precision, and a product at the reduced rank (with that rank's key) decrypts; keys
/// where the lower rank is insecure are refused.
#[test]
fn rank_reduction_follows_the_security_schedule() {
    let ctx = MlweParameters::new(11, 4)
        .log_q(&[45, 30, 30, 30, 30])
        .log_p(&[45])
        .log_scale(30)
        .build()
        .unwrap();
    assert_eq!(ctx.rank_schedule(), vec![(4, 4), (3, 2), (2, 0)]);
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    assert!(matches!(
        ctx.generate_rank_reduction_key_with(&sk, 4, 3, 3, &mut rng),
        Err(crate::Error::Insecure(_))
    ));
    assert!(ctx
        .generate_relinearization_key_at_with(&sk, RelinMethod::ModHe, 2, 1, &mut rng)
        .is_err());
    let eval = Evaluator::new(ctx.clone(), None)
        .with_rank_reduction_key(
            ctx.generate_rank_reduction_key_with(&sk, 4, 3, 2, &mut rng)
                .unwrap(),
        )
        .with_rank_reduction_key(
            ctx.generate_rank_reduction_key_with(&sk, 3, 2, 0, &mut rng)
                .unwrap(),
        )
        .with_relinearization_key(
            ctx.generate_relinearization_key_at_with(&sk, RelinMethod::ModHe, 3, 2, &mut rng)
                .unwrap(),
        );
    let z = values(ctx.max_slots(), 30);
    let want: Vec<Complex64> = z.iter().map(|x| x * x).collect();
    let ct = ctx
        .encrypt_symmetric_with(&ctx.encode(&z).unwrap(), &sk, &mut rng)
        .unwrap();
    // Level 4: nothing is secure below rank 4 yet.
    assert_eq!(eval.reduce_rank_if_secure(&ct).unwrap().rank(), 4);
    // A rank-4 product at level 2 (its relinearization key only that wide), reduced to
    // rank 3 before the rescale, which divides the reduction's noise away.
    let eval = eval.with_relinearization_key(
        ctx.generate_relinearization_key_at_with(&sk, RelinMethod::ModHe, 4, 2, &mut rng)
            .unwrap(),
    );
    let low = eval.drop_level(&ct, 2).unwrap();
    let prod = eval.mul(&low, &low).unwrap();
    let plain = precision(
        &ctx.decrypt_decode(&eval.rescale(&prod).unwrap(), &sk)
            .unwrap(),
        &want,
    );
    let r3 = eval.reduce_rank_if_secure(&prod).unwrap();
    assert_eq!((r3.rank(), r3.parts().len(), r3.level()), (3, 4, 2));
    let r3 = eval.rescale(&r3).unwrap();
    let reduced = precision(&ctx.decrypt_decode(&r3, &sk).unwrap(), &want);
    assert!(
        reduced > plain - 0.5,
        "rank 4 -> 3: {plain:.2} -> {reduced:.2} bits"
    );
    // A product at rank 3 (level 1 -> 0), then rank 2 at level 0.
    let quad: Vec<Complex64> = want.iter().map(|x| x * x).collect();
    let sq = eval.rescale(&eval.mul(&r3, &r3).unwrap()).unwrap();
    let p = precision(&ctx.decrypt_decode(&sq, &sk).unwrap(), &quad);
    assert!(p > 10.0, "product at rank 3: {p:.1} bits");
    let r2 = eval.reduce_rank_if_secure(&sq).unwrap();
    assert_eq!(r2.rank(), 2);
    let p2 = precision(&ctx.decrypt_decode(&r2, &sk).unwrap(), &quad);
    assert!(
        p2 > p - 3.0,
        "rank 3 -> 2 at scale 2^30, level 0: {p:.2} -> {p2:.2} bits"
    );
    assert!(matches!(
        eval.rank_reduce(&r2, 1),
        Err(crate::Error::MissingKey(_))
    ));
}

mod conversion {
    use super::*;
    use crate::ckks::Evaluator as CkksEvaluator;
    use crate::ring::{Form, Poly};
    use crate::rlwe::keys::expand_uniform;

    /// `q_0` well below `P`: the trace's key switches then add only their rounding.
    fn bridge(log_n: u32, r: usize) -> RlweBridge {
        let ctx = MlweParameters::new(log_n, r)
            .log_q(&[50, 40, 40])
            .log_p(&[60])
            .log_scale(40)
            .security(SecurityLevel::NotChecked)
            .build()
            .unwrap();
        RlweBridge::new(ctx).unwrap()
    }

    /// `Embed` and `Extract`'s `π` in NTT form equal the coefficient-form definitions
    /// (`ι`, `π^{-1}`, `ε`, `π`) word for word, at r = 2, 4, 8.
    #[test]
    fn ntt_form_maps_equal_the_coefficient_definitions() {
        for r in [2usize, 4, 8] {
            let br = bridge(8, r);
            let (small, big) = (br.mlwe().ring().clone(), br.ckks().ring().clone());
            let ql = 3;
            let parts: Vec<Poly> = (0..=r)
                .map(|j| expand_uniform(&small, &[j as u8 + 1; 32], 0, ql, 0))
                .collect();
            let ct = br
                .mlwe()
                .ciphertext_from_parts(r, parts.clone(), br.mlwe().default_scale().clone(), 4)
                .unwrap();
            let emb = br.embed(&ct).unwrap();
            let coeff: Vec<Poly> = parts
                .iter()
                .map(|p| {
                    let mut c = p.clone();
                    c.intt(&small);
                    c
                })
                .collect();
            let (mut b, mut a) =
                super::super::convert::embed_coeff(&coeff[0], &coeff[1..], big.n());
            b.ntt(&big);
            a.ntt(&big);
            assert_eq!(emb.parts()[0], b, "ι at r = {r}");
            assert_eq!(emb.parts()[1], a, "π^-1 at r = {r}");
            // Extract of a uniform RLWE pair: ε(b') and π(a') by their definitions.
            let rb = expand_uniform(&big, &[40; 32], 0, ql, 0);
            let ra = expand_uniform(&big, &[41; 32], 0, ql, 0);
            let rct = crate::ckks::Ciphertext::from_parts(
                br.ckks(),
                vec![rb.clone(), ra.clone()],
                br.ckks().default_scale().clone(),
                br.mlwe().max_slots(),
                None,
            )
            .unwrap();
            let ext = br.rlwe_to_mlwe(&rct).unwrap();
            let (mut cb, mut ca) = (rb, ra);
            cb.intt(&big);
            ca.intt(&big);
            let n = small.n();
            let mut want_b = Poly::zero(n, ql, 0, Form::Coeff);
            let mut want_a: Vec<Poly> = (0..r).map(|_| Poly::zero(n, ql, 0, Form::Coeff)).collect();
            for i in 0..ql {
                for k in 0..n {
                    want_b.limb_mut(i)[k] = cb.limb(i)[r * k];
                    for (j, w) in want_a.iter_mut().enumerate() {
                        w.limb_mut(i)[k] = ca.limb(i)[r * k + j];
                    }
                }
            }
            want_b.ntt(&small);
            assert_eq!(ext.parts()[0], want_b, "ε at r = {r}");
            for (j, mut w) in want_a.into_iter().enumerate() {
                w.ntt(&small);
                assert_eq!(ext.parts()[1 + j], w, "π component {j} at r = {r}");
            }
        }
    }

    /// MLWE -> RLWE then RLWE decryption gives the MLWE slots within 1 bit of the direct
    /// MLWE decryption (at scale 2^g·r·Δ), for a product (tensor, relinearization,
    /// rescale), and RLWE -> MLWE -> RLWE round-trips, at r = 2, 4; at level 0 (no gain)
    /// the conversion still decrypts, with the trace's noise.
    #[test]
    fn conversions_round_trip() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        for r in [2usize, 4] {
            let br = bridge(9, r);
            let (m, c) = (br.mlwe().clone(), br.ckks().clone());
            let sk = m.generate_secret_key_with(&mut rng).unwrap();
            let rsk = br.rlwe_secret_key(&sk).unwrap();
            let eval =
                CkksEvaluator::new(c.clone(), None, br.generate_trace_keys_with(&rsk, &mut rng));
            let mev = Evaluator::new(
                m.clone(),
                Some(
                    m.generate_relinearization_key_with(&sk, RelinMethod::ModHe, &mut rng)
                        .unwrap(),
                ),
            );
            let z = values(m.max_slots(), 50 + r as u64);
            let zz: Vec<Complex64> = z.iter().map(|x| x * x).collect();
            let x = m
                .encrypt_symmetric_with(&m.encode(&z).unwrap(), &sk, &mut rng)
                .unwrap();
            let ct = mev.rescale(&mev.mul(&x, &x).unwrap()).unwrap();
            let direct = precision(&m.decrypt_decode(&ct, &sk).unwrap(), &zz);
            let rl = br.mlwe_to_rlwe(&ct, &eval).unwrap();
            assert_eq!((rl.slots(), rl.level()), (m.max_slots(), ct.level()));
            let g = br.trace_gain_bits(ct.level());
            assert_eq!(g, super::super::TRACE_GAIN_BITS, "room above level 0");
            assert_eq!(rl.scale(), &ct.scale().mul_integer((r as u64) << g));
            let via = precision(&c.decrypt_decode(&rl, &rsk).unwrap(), &zz);
            assert!(
                via > direct - 1.0,
                "r = {r}: M->R {via:.2} bits against {direct:.2}"
            );
            // At level 0 there is no room for the gain: scale r·Δ, the trace's noise kept.
            let low = mev.drop_level(&ct, ct.level()).unwrap();
            assert_eq!(br.trace_gain_bits(0), 0);
            let rl0 = br.mlwe_to_rlwe(&low, &eval).unwrap();
            assert_eq!(rl0.scale(), &ct.scale().mul_integer(r as u64));
            let p0 = precision(&c.decrypt_decode(&rl0, &rsk).unwrap(), &zz);
            assert!(p0 > direct - 2.0, "r = {r}: M->R at level 0 {p0:.2} bits");
            // A fresh ciphertext converts too (with the trace's noise).
            let fresh = br.mlwe_to_rlwe(&x, &eval).unwrap();
            let pf = precision(&c.decrypt_decode(&fresh, &rsk).unwrap(), &z);
            assert!(pf > 30.0, "r = {r}: fresh M->R {pf:.2} bits");
            // RLWE -> MLWE -> RLWE.
            let w = values(m.max_slots(), 60 + r as u64);
            let pt = c
                .encode_at(&w, m.max_slots(), c.max_level(), c.default_scale())
                .unwrap();
            let rct = c.encrypt_symmetric_with(&pt, &rsk, &mut rng).unwrap();
            let back = br.rlwe_to_mlwe(&rct).unwrap();
            let p1 = precision(&m.decrypt_decode(&back, &sk).unwrap(), &w);
            assert!(p1 > 25.0, "r = {r}: R->M {p1:.2} bits");
            let again = br.mlwe_to_rlwe(&back, &eval).unwrap();
            let p2 = precision(&c.decrypt_decode(&again, &rsk).unwrap(), &w);
            assert!(p2 > 25.0, "r = {r}: R->M->R {p2:.2} bits");
            // Full slots do not convert.
            let full = c
                .encrypt_symmetric_with(
                    &c.encode(&values(c.max_slots(), 1)).unwrap(),
                    &rsk,
                    &mut rng,
                )
                .unwrap();
            assert!(br.rlwe_to_mlwe(&full).is_err());
        }
        let odd = MlweParameters::new(8, 3)
            .log_q(&[50])
            .security(SecurityLevel::NotChecked)
            .build()
            .unwrap();
        assert!(RlweBridge::new(odd).is_err());
    }
}

/// The non-adjacent form sums to its input and has no two adjacent non-zero terms.
#[test]
fn naf_is_non_adjacent() {
    for g in -300i64..300 {
        let t = naf(g);
        assert_eq!(t.iter().sum::<i64>(), g);
        let mut bits: Vec<u32> = t
            .iter()
            .map(|x| x.unsigned_abs().trailing_zeros())
            .collect();
        bits.sort_unstable();
        assert!(bits.windows(2).all(|w| w[1] >= w[0] + 2), "{g}: {t:?}");
    }
    assert_eq!(naf(7), vec![-1, 8]);
}

/// Plain rotations and rank-hoisted chains (lift, NAF power-of-two keys at rank r̂, one
/// rank-down) rotate the slots, at r = 2 and 3; the hoisted chain of steps 1, 2, 3 equals
/// the plain chain within noise.
#[test]
fn rotations_plain_and_rank_hoisted() {
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    for r in [2usize, 3] {
        let ctx = context(9, r, 2);
        let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
        let steps = [1i64, 2, 3];
        let eval = Evaluator::new(ctx.clone(), None)
            .with_rotation_keys(
                ctx.generate_rotation_keys_with(&sk, &steps, &mut rng)
                    .unwrap(),
            )
            .with_hoisted_rotation_keys(
                ctx.generate_hoisted_rotation_keys_with(&sk, &steps, &mut rng)
                    .unwrap(),
            );
        let z = values(ctx.max_slots(), 70);
        let slots = z.len();
        let rot = |k: usize| -> Vec<Complex64> { (0..slots).map(|i| z[(i + k) % slots]).collect() };
        let ct = ctx
            .encrypt_symmetric_with(&ctx.encode(&z).unwrap(), &sk, &mut rng)
            .unwrap();
        let fresh = precision(&ctx.decrypt_decode(&ct, &sk).unwrap(), &z);
        let mut plain = ct.clone();
        let mut total = 0;
        for &s in &steps {
            let one = eval.rotate(&ct, s).unwrap();
            let p = precision(&ctx.decrypt_decode(&one, &sk).unwrap(), &rot(s as usize));
            // A key switch's noise (q_0 as large as P here) against a fresh encryption's.
            assert!(
                p > 28.0,
                "r {r}: rotate {s}: {p:.1} bits (fresh {fresh:.1})"
            );
            plain = eval.rotate(&plain, s).unwrap();
            total += s as usize;
        }
        let want = rot(total);
        let hoisted = eval.rotate_chain_hoisted(&ct, &steps).unwrap();
        assert_eq!((hoisted.rank(), hoisted.parts().len()), (r, 1 + r));
        let ph = precision(&ctx.decrypt_decode(&hoisted, &sk).unwrap(), &want);
        let pp = precision(&ctx.decrypt_decode(&plain, &sk).unwrap(), &want);
        assert!(
            ph > 27.0 && pp > 27.0,
            "r {r}: hoisted {ph:.1}, plain {pp:.1}"
        );
        // A lifted ciphertext decrypts under s‖s' too, and adds at rank r̂.
        let lifted = eval
            .rotate_lifted(&eval.lift_rank(&ct).unwrap(), 2)
            .unwrap();
        assert_eq!(lifted.rank(), r + 1);
        let sum = eval.add(&lifted, &lifted).unwrap();
        let two: Vec<Complex64> = rot(2).iter().map(|x| x * 2.0).collect();
        assert!(precision(&ctx.decrypt_decode(&sum, &sk).unwrap(), &two) > 27.0);
        assert!(matches!(
            eval.rotate(&ct, 5),
            Err(crate::Error::MissingKey(_))
        ));
    }
}

/// The relinearization error against seed 004's bounds, 1000 of 1000 trials each at
/// n = 2^10, r = 2 (`r̂ = 3`, `d = 4` one-prime digits, `μ = 2`): ModHE's
/// `‖e‖^can <= 4dσr(r+1)n/(√3P) max Q'_i + √(3n) + 8√2 rn/3` and DPad-HE's Lemma 3.2
/// `4μσr(r+1)n/(√3P̂) max Q''_i + 8dσ(r̂-r)n/(√3P) max Q'_i + 2√(3n) + 8√2(r̂+r)n/3`,
/// measured as the largest slot of the error `relin(c) - (c_0 + <c, s> + sum c_jk s_j s_k)`
/// over the canonical embedding. DPad-HE's error is also the smaller one on average
/// (`d > μ`: its `KeySwitch_μ` digits divide by the larger `P̂`).
#[test]
fn relinearization_noise_within_the_lemmas() {
    use crate::ring::Form;
    use crate::rlwe::keys::expand_uniform;
    let r = 2usize;
    let ctx = context(10, r, 3);
    let mut rng = ChaCha20Rng::seed_from_u64(21);
    let sk = ctx.generate_secret_key_with(&mut rng).unwrap();
    let ring = ctx.ring().clone();
    let n = ctx.n() as f64;
    let sigma = crate::rlwe::keys::NOISE_SIGMA;
    let log_p = ctx.log_p();
    let q: Vec<f64> = ctx.q_primes().iter().map(|&x| (x as f64).log2()).collect();
    let d = ctx.dnum() as f64;
    let dp = ctx.dpad().unwrap();
    let mu = dp.mu() as f64;
    let rh = dp.rank_hat() as f64;
    let alpha_hat = q.len().div_ceil(dp.mu());
    let max_digit_hat: f64 = q
        .chunks(alpha_hat)
        .map(|c| c.iter().sum::<f64>())
        .fold(0.0, f64::max);
    let max_digit = q.iter().cloned().fold(0.0, f64::max);
    let rf = r as f64;
    let modhe_bound = 4.0 * d * sigma * rf * (rf + 1.0) * n / 3f64.sqrt()
        * 2f64.powf(max_digit - log_p)
        + (3.0 * n).sqrt()
        + 8.0 * 2f64.sqrt() * rf * n / 3.0;
    let dpad_bound = 4.0 * mu * sigma * rf * (rf + 1.0) * n / 3f64.sqrt()
        * 2f64.powf(max_digit_hat - ctx.log_p_hat().unwrap())
        + 8.0 * d * sigma * (rh - rf) * n / 3f64.sqrt() * 2f64.powf(max_digit - log_p)
        + 2.0 * (3.0 * n).sqrt()
        + 8.0 * 2f64.sqrt() * (rh + rf) * n / 3.0;
    let ql = ctx.max_level() + 1;
    let mut worst = [0.0f64; 2];
    let mut mean = [0.0f64; 2];
    let trials = 1000;
    for (m, method) in [RelinMethod::ModHe, RelinMethod::DPad]
        .into_iter()
        .enumerate()
    {
        let eval = Evaluator::new(
            ctx.clone(),
            Some(
                ctx.generate_relinearization_key_with(&sk, method, &mut rng)
                    .unwrap(),
            ),
        );
        for t in 0..trials {
            // A quadratic ciphertext with uniform parts.
            let parts: Vec<_> = (0..1 + r + quadratic_terms(r))
                .map(|j| expand_uniform(&ring, &[(t % 251) as u8; 32], (t * 8 + j) as u64, ql, 0))
                .collect();
            let ct = ctx
                .ciphertext_from_parts(r, parts, ctx.default_scale().clone(), ctx.max_slots())
                .unwrap();
            let want = ctx.decrypt(&ct, &sk).unwrap();
            let got = ctx.decrypt(&eval.relinearize(&ct).unwrap(), &sk).unwrap();
            let mut e = got.poly().clone();
            e.sub_assign(want.poly(), &ring);
            assert_eq!(e.form(), Form::Ntt);
            let slots = ctx
                .encoder()
                .decode(&e, ctx.max_slots(), &crate::ckks::Scale::from_bits(0))
                .unwrap();
            let norm = slots.iter().map(|z| z.norm()).fold(0.0, f64::max);
            worst[m] = worst[m].max(norm);
            mean[m] += norm / trials as f64;
        }
    }
    eprintln!(
        "‖e‖^can over {trials} trials: ModHE worst {:.0} mean {:.0} (bound {modhe_bound:.0}), \
         DPad-HE worst {:.0} mean {:.0} (bound {dpad_bound:.0})",
        worst[0], mean[0], worst[1], mean[1]
    );
    assert!(
        worst[0] <= modhe_bound,
        "ModHE: {:.0} > bound {modhe_bound:.0}",
        worst[0]
    );
    assert!(
        worst[1] <= dpad_bound,
        "DPad-HE: {:.0} > bound {dpad_bound:.0}",
        worst[1]
    );
    assert!(
        mean[1] <= mean[0],
        "DPad-HE's mean error {:.0} above ModHE's {:.0}",
        mean[1],
        mean[0]
    );
    // The bounds are not vacuous: the worst trial is within a factor 50 of them.
    assert!(
        worst[0] > modhe_bound / 50.0 && worst[1] > dpad_bound / 50.0,
        "worst {worst:?} against bounds {modhe_bound:.0} / {dpad_bound:.0}"
    );
}
