//! Key switching decrypts to `c · s'` plus small noise, at every level.

use super::*;
use crate::math::PrimeGenerator;
use crate::ring::{Form, RingContext};
use crate::rlwe::keys::SecretDistribution;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Max |centered coefficient| of `u0 + u1 s - c s'` over Q_l.
fn switch_error(
    ctx: &RingContext,
    ks: &HybridKeySwitcher,
    key: &HybridKey,
    sk: &SecretKey,
    s_from: &Poly,
    ql: usize,
    rng: &mut ChaCha20Rng,
) -> f64 {
    let n = ctx.n();
    let mut c = ctx.zero(ql, 0, Form::Ntt);
    for (i, limb) in c.limbs_mut().enumerate() {
        let q = ctx.modulus(i, ql).value();
        limb.iter_mut().for_each(|x| *x = rng.next_u64() % q);
    }
    let [mut u0, u1] = ks.switch(&c, key);
    let mut t = u1.clone();
    t.mul_assign(&sk.ntt_at(ql, 0), ctx);
    u0.add_assign(&t, ctx);
    let mut cs = c.clone();
    cs.mul_assign(&s_from.restricted(ql, 0), ctx);
    u0.sub_assign(&cs, ctx);
    u0.intt(ctx);
    let mut digits = vec![0u64; ql * n];
    let mut out = vec![0.0; n];
    ctx.crt().centered_f64(u0.data(), &mut digits, n, &mut out);
    out.iter().fold(0.0f64, |m, &x| m.max(x.abs()))
}

#[test]
fn hybrid_switch_is_correct_at_every_level_and_dnum() {
    let n = 1 << 10;
    let mut g = PrimeGenerator::new(n).unwrap();
    let q: Vec<u64> = [55u32, 45, 45, 45, 45]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    let p: Vec<u64> = [58u32, 58, 58]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    let ctx = RingContext::new(n, &q, &p).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(42);
    let sk = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let other = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    for dnum in [2usize, 3, 5] {
        let ks = HybridKeySwitcher::new(ctx.clone(), dnum);
        let key = ks.generate_key(other.ntt(), &sk, &mut rng);
        for ql in 1..=5 {
            let err = switch_error(&ctx, &ks, &key, &sk, other.ntt(), ql, &mut rng);
            // e_ks = sum_j d_j e_j / P + rounding: |d_j| < Q_j/2 <= 2^(α·45+10)/2,
            // |e_j| <= 6σ·N-ish in the worst case; in practice ~ sqrt(N)·σ·Q_j/P. A loose
            // bound of 2^20 still catches every algebraic mistake (those give ~Q/2).
            assert!(
                err < (1u64 << 20) as f64,
                "dnum {dnum} level {ql}: error {err}"
            );
        }
    }
}

/// Measured variance of `u0 + u1 s - c s'` for a uniform `c`, against the analysis:
/// `Var = N σ^2 Σ_j E[d_j^2] / P^2 + (1 + 2N/3)/12` with `E[d_j^2] = Q_j^2 / 12`.
/// P is chosen *smaller* than the digits so that the first (digit) term dominates and
/// is what the test checks; the CKKS-level tests cover the rounding-dominated regime.
#[test]
fn hybrid_noise_variance_matches_the_analysis() {
    let n = 1 << 12;
    let mut g = PrimeGenerator::new(n).unwrap();
    let q: Vec<u64> = [50u32, 45, 45, 45]
        .iter()
        .map(|&b| g.next_prime(b).unwrap())
        .collect();
    let p: Vec<u64> = vec![g.next_prime(40).unwrap()];
    let ctx = RingContext::new(n, &q, &p).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let sk = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let other = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
    let ks = HybridKeySwitcher::new(ctx.clone(), 4); // one prime per digit
    let key = ks.generate_key(other.ntt(), &sk, &mut rng);
    let ql = 4;
    let mut c = ctx.zero(ql, 0, Form::Ntt);
    for (i, limb) in c.limbs_mut().enumerate() {
        let qi = ctx.modulus(i, ql).value();
        limb.iter_mut().for_each(|x| *x = rng.next_u64() % qi);
    }
    let [mut u0, u1] = ks.switch(&c, &key);
    let mut t = u1.clone();
    t.mul_assign(&sk.ntt_at(ql, 0), &ctx);
    u0.add_assign(&t, &ctx);
    let mut cs = c.clone();
    cs.mul_assign(&other.ntt().restricted(ql, 0), &ctx);
    u0.sub_assign(&cs, &ctx);
    u0.intt(&ctx);
    let mut digits = vec![0u64; ql * n];
    let mut e = vec![0.0; n];
    ctx.crt().centered_f64(u0.data(), &mut digits, n, &mut e);
    let measured = e.iter().map(|x| x * x).sum::<f64>() / n as f64;
    let (sigma, nf) = (crate::rlwe::keys::NOISE_SIGMA, n as f64);
    let log_p = (p[0] as f64).log2();
    let digit_term: f64 = q
        .iter()
        .map(|&qj| nf * sigma * sigma * 2f64.powf(2.0 * ((qj as f64).log2() - log_p)) / 12.0)
        .sum();
    let predicted = digit_term + (1.0 + 2.0 * nf / 3.0) / 12.0;
    let ratio = measured / predicted;
    eprintln!("key-switch noise variance: measured {measured:.4e}, predicted {predicted:.4e}, ratio {ratio:.3}");
    // N = 4096 samples of a (near-Gaussian) sum: the estimator's relative deviation is
    // about sqrt(2/N) = 2.2%; allow 10%.
    assert!((0.9..1.1).contains(&ratio), "ratio {ratio}");
}
