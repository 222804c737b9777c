//! Secret and public keys, and the secret-key distributions.

use crate::math::kernels;
use crate::math::sample::{self, DiscreteGaussian, Seed};
use crate::ring::{for_each_limb, for_each_limb_many, signed_limb, Form, Poly, RingContext};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use zeroize::{Zeroize, Zeroizing};

/// Standard deviation of fresh encryption noise (HomomorphicEncryption.org standard).
pub const NOISE_SIGMA: f64 = 3.2;
/// Noise samples are cut at `NOISE_TAIL * NOISE_SIGMA`.
pub const NOISE_TAIL: f64 = 6.0;

/// How secret-key coefficients are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SecretDistribution {
    /// Uniform over `{-1, 0, 1}` (dense; the default, and what seed 003 bootstraps).
    Ternary,
    /// Exactly `h` coefficients in `{-1, 1}`, the rest zero (sparse). The
    /// HomomorphicEncryption.org table does not cover sparse secrets, so CKKS parameters
    /// with this distribution require `SecurityLevel::NotChecked`.
    HammingWeight(usize),
    /// Discrete Gaussian with `σ = 3.2` cut at `6σ`.
    Gaussian,
}

impl SecretDistribution {
    /// The variance of one coefficient at ring degree `n`: `2/3` (ternary), `h/n`
    /// (Hamming weight `h`), `σ^2` (Gaussian). Noise estimates use it.
    pub fn variance(&self, n: usize) -> f64 {
        match *self {
            SecretDistribution::Ternary => 2.0 / 3.0,
            SecretDistribution::HammingWeight(h) => h as f64 / n as f64,
            SecretDistribution::Gaussian => NOISE_SIGMA * NOISE_SIGMA,
        }
    }

    /// Draws `n` coefficients.
    pub fn sample<R: RngCore + CryptoRng>(&self, n: usize, rng: &mut R) -> Result<Vec<i64>> {
        match *self {
            SecretDistribution::Ternary => Ok(sample::ternary(rng, n)),
            SecretDistribution::HammingWeight(h) => {
                if h == 0 || h > n {
                    return Err(Error::InvalidParameters(format!(
                        "Hamming weight h = {h} must be in [1, N = {n}]"
                    )));
                }
                sample::ternary_hamming(rng, n, h)
            }
            SecretDistribution::Gaussian => {
                let g = DiscreteGaussian::new(NOISE_SIGMA, NOISE_TAIL)?;
                let mut v = vec![0i64; n];
                g.fill(rng, &mut v);
                Ok(v)
            }
        }
    }
}

/// A secret key `s`: its small coefficients and its NTT form over the whole of `Q ∪ P`.
///
/// Zeroized on drop; `Debug` prints no key material.
pub struct SecretKey {
    ring_id: u64,
    coeffs: Vec<i64>,
    ntt: Poly,
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(<redacted>)")
    }
}

impl Drop for SecretKey {
    fn drop(&mut self) {
        self.coeffs.zeroize();
        self.ntt.zeroize();
    }
}

impl SecretKey {
    /// A fresh secret key drawn from `dist`.
    pub fn generate<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        dist: SecretDistribution,
        rng: &mut R,
    ) -> Result<Self> {
        let coeffs = dist.sample(ctx.n(), rng)?;
        Ok(Self::from_coeffs(ctx, coeffs))
    }

    /// The key with the given small coefficients.
    pub fn from_coeffs(ctx: &RingContext, coeffs: Vec<i64>) -> Self {
        let mut ntt = ctx.from_signed(&coeffs, ctx.q_len(), ctx.p_len());
        ntt.ntt(ctx);
        SecretKey {
            ring_id: ctx.fingerprint(),
            coeffs,
            ntt,
        }
    }

    /// The [fingerprint](RingContext::fingerprint) of the ring the key belongs to.
    pub fn ring_id(&self) -> u64 {
        self.ring_id
    }

    /// The coefficients of `s`.
    pub fn coeffs(&self) -> &[i64] {
        &self.coeffs
    }

    /// `s` in NTT form over all of `Q ∪ P`.
    pub fn ntt(&self) -> &Poly {
        &self.ntt
    }

    /// `s` in NTT form over the first `q_limbs` chain primes (and `p_limbs` special primes),
    /// as a copy that is zeroized when dropped.
    pub fn ntt_at(&self, q_limbs: usize, p_limbs: usize) -> Zeroizing<Poly> {
        Zeroizing::new(self.ntt.restricted(q_limbs, p_limbs))
    }
}

/// An RLWE encryption of zero `(b, a) = (-a s + e, a)` over all of `Q ∪ P`, whose uniform
/// `a` is expanded from a 32-byte seed.
///
/// Public-key encryption works over `Q_l ∪ P'` (`P'` the shortest prefix of `P` reaching
/// `2^40`, usually `p_0` alone: [`RingContext::encryption_p_len`]) and divides by `P'` at
/// the end (ModDown), so the large noise `u e + e_0 + e_1 s` shrinks by `P'` and a fresh
/// ciphertext carries only the rounding noise `r_0 + r_1 s` (variance `(1 + 2N/3)/12` per
/// coefficient instead of `σ^2 (1 + 4N/3)`: about 4 bits of precision). The key is an
/// RLWE sample over `QP`, so its residues modulo the divisor `Q P'` are one too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKey {
    /// The [fingerprint](RingContext::fingerprint) of the ring the key belongs to.
    pub ring_id: u64,
    /// `b = -a s + e` (NTT form).
    pub b: Poly,
    /// `a` (NTT form), expanded from `seed`.
    pub a: Poly,
    /// The seed `a` is expanded from.
    pub seed: Seed,
}

impl PublicKey {
    /// A fresh public key for `sk` (noise and the seed of `a` drawn from `rng`).
    pub fn generate<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        sk: &SecretKey,
        rng: &mut R,
    ) -> Self {
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let [b, a] = encrypt_zero_sk(ctx, sk, ctx.q_len(), ctx.p_len(), &seed, 0, rng);
        PublicKey {
            ring_id: ctx.fingerprint(),
            b,
            a,
            seed,
        }
    }
}

/// The uniform polynomial `a` expanded from `seed` (stream `stream`) in NTT form.
///
/// The seed's output is read as NTT-form values directly: a uniform polynomial is uniform
/// in either form, and skipping the transform makes expansion cheap.
pub fn expand_uniform(
    ctx: &RingContext,
    seed: &Seed,
    stream: u64,
    q_limbs: usize,
    p_limbs: usize,
) -> Poly {
    let mut a = ctx.zero(q_limbs, p_limbs, Form::Ntt);
    let moduli = ctx.moduli_of(q_limbs, p_limbs);
    sample::expand_seed(seed, stream, &moduli, ctx.n(), a.data_mut());
    a
}

/// Fresh Gaussian noise `e` (σ = 3.2) in NTT form.
pub fn sample_noise<R: RngCore + CryptoRng>(
    ctx: &RingContext,
    q_limbs: usize,
    p_limbs: usize,
    rng: &mut R,
) -> Poly {
    let g = DiscreteGaussian::new(NOISE_SIGMA, NOISE_TAIL).expect("valid constants");
    sample_noise_with(ctx, q_limbs, p_limbs, &g, rng)
}

/// Fresh noise `e` from `noise` (any σ, e.g. FHEW's 3.19) in NTT form.
pub fn sample_noise_with<R: RngCore + CryptoRng>(
    ctx: &RingContext,
    q_limbs: usize,
    p_limbs: usize,
    noise: &DiscreteGaussian,
    rng: &mut R,
) -> Poly {
    let mut e = vec![0i64; ctx.n()];
    noise.fill(rng, &mut e);
    let mut p = ctx.from_signed(&e, q_limbs, p_limbs);
    e.zeroize();
    p.ntt(ctx);
    p
}

/// `(b, a) = (-a s + e, a)` with `a` expanded from `(seed, stream)`: a secret-key
/// encryption of zero over `q_limbs` chain and `p_limbs` special primes (NTT form).
pub fn encrypt_zero_sk<R: RngCore + CryptoRng>(
    ctx: &RingContext,
    sk: &SecretKey,
    q_limbs: usize,
    p_limbs: usize,
    seed: &Seed,
    stream: u64,
    rng: &mut R,
) -> [Poly; 2] {
    let g = DiscreteGaussian::new(NOISE_SIGMA, NOISE_TAIL).expect("valid constants");
    encrypt_zero_sk_with(ctx, sk, q_limbs, p_limbs, seed, stream, &g, rng)
}

/// [`encrypt_zero_sk`] with noise from `noise` (any σ: FHEW's RLWE', RGSW and
/// automorphism keys use 3.19).
#[allow(clippy::too_many_arguments)]
pub fn encrypt_zero_sk_with<R: RngCore + CryptoRng>(
    ctx: &RingContext,
    sk: &SecretKey,
    q_limbs: usize,
    p_limbs: usize,
    seed: &Seed,
    stream: u64,
    noise: &DiscreteGaussian,
    rng: &mut R,
) -> [Poly; 2] {
    let a = expand_uniform(ctx, seed, stream, q_limbs, p_limbs);
    let mut b = sample_noise_with(ctx, q_limbs, p_limbs, noise, rng);
    // b = e - a·s limb by limb against the secret's own limbs: no product `a·s` (which
    // would give `s` away) is ever stored, and neither `a` nor `s` is copied (a key
    // switching key is dnum such samples over all of Q ∪ P: the two copies were most of
    // key generation's memory traffic and page faults). The residues are those of
    // `e - a·s` whichever way they are computed: -(-e + a·s) mod q.
    let (n, s) = (ctx.n(), &sk.ntt);
    let s_q = s.q_limbs();
    debug_assert!(q_limbs <= s_q && p_limbs <= s.p_limbs());
    for_each_limb(b.data_mut(), n, |t, bt| {
        let st = if t < q_limbs {
            s.limb(t)
        } else {
            s.limb(s_q + t - q_limbs)
        };
        let m = ctx.modulus(t, q_limbs);
        kernels::neg_assign(bt, m);
        kernels::mul_add_assign(bt, a.limb(t), st, m);
        kernels::neg_assign(bt, m);
    });
    [b, a]
}

/// A module (MLWE) encryption of zero under the rank-`r` secret `s = (s_1 .. s_r)`:
/// `(b, a_1 .. a_r)` with `b = -<a, s> + e`, each `a_t` expanded from `(seed, stream + t)`,
/// over `q_limbs` chain and `p_limbs` special primes in NTT form (seed 004 §2; rank 1 is
/// [`encrypt_zero_sk`] with stream `stream`, word for word).
pub fn encrypt_zero_module_sk<R: RngCore + CryptoRng>(
    ctx: &RingContext,
    s: &[&SecretKey],
    q_limbs: usize,
    p_limbs: usize,
    seed: &Seed,
    stream: u64,
    rng: &mut R,
) -> Vec<Poly> {
    let g = DiscreteGaussian::new(NOISE_SIGMA, NOISE_TAIL).expect("valid constants");
    let a: Vec<Poly> = (0..s.len())
        .map(|t| expand_uniform(ctx, seed, stream + t as u64, q_limbs, p_limbs))
        .collect();
    let mut b = sample_noise_with(ctx, q_limbs, p_limbs, &g, rng);
    for (a_t, s_t) in a.iter().zip(s) {
        // `a_t·s_t` gives `s_t` away: wiped, never pooled.
        let mut as_ = a_t.clone();
        as_.mul_assign(&s_t.ntt_at(q_limbs, p_limbs), ctx);
        b.sub_assign(&as_, ctx);
        as_.discard_secret();
    }
    let mut out = Vec::with_capacity(1 + a.len());
    out.push(b);
    out.extend(a);
    out
}

/// A public-key encryption of zero at `q_limbs` chain primes: `(u b + e0, u a + e1)` with
/// ternary `u` over `Q_l ∪ P'`, then divided by `P'` with rounding, `P'` the encryption
/// prefix of the special primes ([`RingContext::encryption_p_len`]; NTT form over `Q_l`;
/// see [`PublicKey`]).
pub fn encrypt_zero_pk<R: RngCore + CryptoRng>(
    ctx: &RingContext,
    pk: &PublicKey,
    q_limbs: usize,
    rng: &mut R,
) -> [Poly; 2] {
    let [c0, c1]: [Poly; 2] = encrypt_zero_module_pk(ctx, &[vec![&pk.b, &pk.a]], q_limbs, rng)
        .try_into()
        .expect("a width-2 public key gives two parts");
    [c0, c1]
}

/// A module (MLWE) public-key encryption of zero (seed 004 §2): for a fresh ternary
/// `u ∈ R^r` and Gaussian `e_t`, `parts[t] = Σ_k u_k · rows[k][t] + e_t` over `Q_l`, where
/// `rows` is the public key's `r` rows of `w` polynomials each (`w = 1 + r`; RLWE's is the
/// one row `(b, a)`). Computed over `Q_l ∪ P'` (the shortest prefix of `P` reaching 2^40,
/// usually `p_0` alone) and divided by `P'`, which removes `<u, e_pk> + e` as all of `P`
/// would (`RingContext::encryption_p_len`); the noise goes in during that ModDown, in
/// coefficient form. Randomness is drawn in the order `u_1 .. u_r`, `e_0 .. e_{w-1}`, so
/// rank 1 is [`encrypt_zero_pk`] (it is that call), word for word.
pub fn encrypt_zero_module_pk<R: RngCore + CryptoRng>(
    ctx: &RingContext,
    rows: &[Vec<&Poly>],
    q_limbs: usize,
    rng: &mut R,
) -> Vec<Poly> {
    let k = ctx.encryption_p_len();
    let width = rows.first().map_or(0, |r| r.len());
    debug_assert!(rows.iter().all(|r| r.len() == width));
    let n = ctx.n();
    // The ephemeral `u` decrypts the ciphertext: its coefficients and every limb of its
    // transform are wiped (`Zeroizing`), never pooled.
    let u: Vec<Zeroizing<Vec<i64>>> = rows
        .iter()
        .map(|_| Zeroizing::new(sample::ternary(rng, n)))
        .collect();
    let g = DiscreteGaussian::new(NOISE_SIGMA, NOISE_TAIL).expect("valid constants");
    let mut e: Vec<Vec<i64>> = (0..width)
        .map(|_| {
            let mut x = vec![0i64; n];
            g.fill(rng, &mut x);
            x
        })
        .collect();
    // parts[t] = sum_k u_k rows[k][t] over Q_l ∪ P', one limb at a time: the limb of each
    // u_k is lifted, transformed and multiplied while it is in cache, and the key's limbs
    // are read in place (chain limb i, special limb j at the key's q_limbs + j).
    let mut parts: Vec<Poly> = (0..width)
        .map(|_| ctx.scratch_poly(q_limbs, k, Form::Ntt)) // every word is written below
        .collect();
    {
        let mut bufs: Vec<&mut [u64]> = parts.iter_mut().map(|p| p.data_mut()).collect();
        for_each_limb_many(&mut bufs, n, |i, outs| {
            let m = ctx.modulus(i, q_limbs);
            let mut ui = Zeroizing::new(vec![0u64; n]);
            for (kk, (uk, row)) in u.iter().zip(rows).enumerate() {
                signed_limb(uk, 1, m, &mut ui);
                ctx.ntt_plan(i, q_limbs).forward(&mut ui);
                for (o, key) in outs.iter_mut().zip(row) {
                    let key = key.limb_over(i, q_limbs);
                    if kk == 0 {
                        kernels::mul(&ui, key, o, m);
                    } else {
                        kernels::mul_add_assign(o, &ui, key, m);
                    }
                }
            }
        });
    }
    drop(u);
    let out = parts
        .into_iter()
        .enumerate()
        .map(|(t, mut acc)| {
            if k == 0 {
                // No special primes: e in NTT form, added.
                let mut ep = ctx.from_signed(&e[t], q_limbs, 0);
                ep.ntt(ctx);
                acc.add_assign(&ep, ctx);
                ep.zeroize();
                acc
            } else {
                acc.mod_down_by_p_adding(Some(&e[t]), ctx)
            }
        })
        .collect();
    e.iter_mut().for_each(|x| x.zeroize());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::PrimeGenerator;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// A rank-1 module encryption of zero is the RLWE one, word for word.
    #[test]
    fn rank_one_module_encryption_is_rlwe() {
        let n = 1 << 8;
        let mut g = PrimeGenerator::new(n).unwrap();
        let q: Vec<u64> = (0..2).map(|_| g.next_prime(50).unwrap()).collect();
        let ctx = RingContext::new(n, &q, &[g.next_prime(55).unwrap()]).unwrap();
        let sk = SecretKey::generate(
            &ctx,
            SecretDistribution::Ternary,
            &mut ChaCha20Rng::seed_from_u64(1),
        )
        .unwrap();
        let seed = [9u8; 32];
        let rlwe = encrypt_zero_sk(
            &ctx,
            &sk,
            2,
            1,
            &seed,
            4,
            &mut ChaCha20Rng::seed_from_u64(2),
        );
        let module = encrypt_zero_module_sk(
            &ctx,
            &[&sk],
            2,
            1,
            &seed,
            4,
            &mut ChaCha20Rng::seed_from_u64(2),
        );
        assert_eq!(module, rlwe.to_vec());
    }

    /// Public-key encryption of zero through the module path gives the words of the RLWE
    /// algorithm it replaced (written out here: `u` first, then `e_0`, `e_1`; products over
    /// `Q ∪ P'`, ModDown adding the noise), with and without special primes.
    #[test]
    fn public_key_encryption_is_the_rlwe_algorithm_word_for_word() {
        let n = 1 << 8;
        let mut g = PrimeGenerator::new(n).unwrap();
        let q: Vec<u64> = (0..3).map(|_| g.next_prime(50).unwrap()).collect();
        let p = [g.next_prime(55).unwrap(), g.next_prime(55).unwrap()];
        for special in [&p[..], &[][..]] {
            let ctx = RingContext::new(n, &q, special).unwrap();
            let mut rng = ChaCha20Rng::seed_from_u64(3);
            let sk = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
            let pk = PublicKey::generate(&ctx, &sk, &mut rng);
            for ql in [3, 2] {
                let got =
                    encrypt_zero_pk(&ctx, &pk, ql, &mut ChaCha20Rng::seed_from_u64(ql as u64));
                let mut rng = ChaCha20Rng::seed_from_u64(ql as u64);
                let k = ctx.encryption_p_len();
                let mut u = ctx.from_signed(&sample::ternary(&mut rng, n), ql, k);
                u.ntt(&ctx);
                let gauss = DiscreteGaussian::new(NOISE_SIGMA, NOISE_TAIL).unwrap();
                let mut e = [vec![0i64; n], vec![0i64; n]];
                e.iter_mut().for_each(|x| gauss.fill(&mut rng, x));
                let want = [(&pk.b, &e[0]), (&pk.a, &e[1])].map(|(key, e)| {
                    let mut c = key.restricted(ql, k);
                    c.mul_assign(&u, &ctx);
                    if k == 0 {
                        let mut ep = ctx.from_signed(e, ql, 0);
                        ep.ntt(&ctx);
                        ep.add_assign(&c, &ctx);
                        ep
                    } else {
                        c.mod_down_by_p_adding(Some(e), &ctx)
                    }
                });
                assert_eq!(got, want, "{} special primes, {ql} limbs", special.len());
            }
        }
    }

    /// `a·s` (which gives `s` away: divide by the public `a`) is wiped and never reaches the
    /// shared pool, where any later `take` would hand it out.
    #[test]
    fn secret_temporaries_never_reach_the_pool() {
        let n = 1 << 12;
        let mut g = PrimeGenerator::new(n).unwrap();
        let q: Vec<u64> = (0..3).map(|_| g.next_prime(50).unwrap()).collect();
        let p = [g.next_prime(55).unwrap()];
        let ctx = RingContext::new(n, &q, &p).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let sk = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
        let seed = [3u8; 32];
        // 4 limbs of 2^12 words: large enough to be pooled.
        let [b, a] = encrypt_zero_sk(&ctx, &sk, 3, 1, &seed, 0, &mut rng);
        // The first words of a·s in limb 0, computed outside the pool (a pooled temporary
        // here would take the very buffer we look for).
        let m = *ctx.modulus(0, 3);
        let mut s0: Vec<u64> = sk.coeffs().iter().map(|&c| m.reduce_i64(c)).collect();
        ctx.ntt_plan(0, 3).forward(&mut s0);
        let first: Vec<u64> = (0..64).map(|j| m.mul(a.limb(0)[j], s0[j])).collect();
        assert!(!ctx
            .pool()
            .any_buffer(|buf| buf.len() >= 64 && buf[..64] == first[..]));
        drop((b, a));
    }
}
