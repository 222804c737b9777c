//! Exact big-integer oracle tests of the scale-invariant tensor.
//!
//! The oracle rounds half up, `round(y) = floor(y + 1/2)`, i.e. `floor((2 t x + Q) / 2Q)`.
//! The convention never matters: `t x / Q = m + 1/2` would mean `2 t x = (2m + 1) Q`, so
//! `Q | 2 t x`; with `Q` odd and `gcd(t, Q) = 1` that forces `Q | x` and `t x / Q` an
//! integer, a contradiction. `near_half_integers_round_exactly` checks both sides of the
//! half-integers at distance `2^-40`.

use super::*;
use crate::math::is_prime;
use num_bigint::BigInt;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// `floor(a / b)` for `b > 0`.
fn floor_div(a: &BigInt, b: &BigInt) -> BigInt {
    let (q, r) = (a / b, a % b);
    if r < BigInt::from(0) {
        q - 1
    } else {
        q
    }
}

/// `x mod m` in `[0, m)`.
fn modulo(x: &BigInt, m: &BigInt) -> BigInt {
    let r = x % m;
    if r < BigInt::from(0) {
        r + m
    } else {
        r
    }
}

struct Oracle {
    q: Vec<u64>,
    big_q: BigInt,
    /// `(Q/q_i) · [(Q/q_i)^-1]_{q_i}`.
    crt: Vec<BigInt>,
}

impl Oracle {
    fn new(q: &[u64]) -> Self {
        let big_q = q.iter().fold(BigInt::from(1), |a, &p| a * p);
        let crt = q
            .iter()
            .map(|&p| {
                let hat = &big_q / p;
                let m = Modulus::new(p);
                let h = (&hat % p).to_u64_digits().1.first().copied().unwrap_or(0);
                hat * m.inv(h).unwrap()
            })
            .collect();
        Oracle {
            q: q.to_vec(),
            big_q,
            crt,
        }
    }

    /// The centered integer coefficients of `p` (coefficient form).
    fn lift(&self, p: &Poly) -> Vec<BigInt> {
        let half = &self.big_q / 2u32;
        (0..p.n())
            .map(|k| {
                let x = self
                    .crt
                    .iter()
                    .enumerate()
                    .fold(BigInt::from(0), |a, (i, c)| a + c * p.limb(i)[k]);
                let x = modulo(&x, &self.big_q);
                if x > half {
                    x - &self.big_q
                } else {
                    x
                }
            })
            .collect()
    }

    /// The residues of the integer polynomial `x`.
    fn residues(&self, x: &[BigInt]) -> Vec<u64> {
        self.q
            .iter()
            .flat_map(|&p| {
                let p = BigInt::from(p);
                x.iter().map(move |c| {
                    let r = modulo(c, &p);
                    r.to_u64_digits().1.first().copied().unwrap_or(0)
                })
            })
            .collect()
    }

    /// `round(t/Q · Σ_{i+j=k} a_i b_j) mod Q` for `k = 0, 1, 2`, as residues.
    fn tensor(&self, ring: &RingContext, a: &[Poly], b: &[Poly], t: u64) -> Vec<Vec<u64>> {
        let all: Vec<usize> = (0..ring.n()).collect();
        self.tensor_at(ring, a, b, t, &all)
    }

    /// [`tensor`](Self::tensor) at the coefficients `at` only (residues limb-major over
    /// `at.len()` coefficients).
    fn tensor_at(
        &self,
        ring: &RingContext,
        a: &[Poly],
        b: &[Poly],
        t: u64,
        at: &[usize],
    ) -> Vec<Vec<u64>> {
        let lift = |p: &Poly| {
            let mut c = p.clone();
            c.intt(ring);
            self.lift(&c)
        };
        let (a, b): (Vec<_>, Vec<_>) = (a.iter().map(lift).collect(), b.iter().map(lift).collect());
        let n = ring.n();
        // Coefficient c of x y in Z[X]/(X^N + 1).
        let mul = |x: &[BigInt], y: &[BigInt], c: usize| {
            let mut z = BigInt::from(0);
            for (i, xi) in x.iter().enumerate() {
                if i <= c {
                    z += xi * &y[c - i];
                } else {
                    z -= xi * &y[c + n - i];
                }
            }
            z
        };
        let two_q = &self.big_q * 2u32;
        let round = |x: BigInt| floor_div(&(x * (2 * t) + &self.big_q), &two_q);
        let d: [Vec<BigInt>; 3] = [
            at.iter().map(|&c| round(mul(&a[0], &b[0], c))).collect(),
            at.iter()
                .map(|&c| round(mul(&a[0], &b[1], c) + mul(&a[1], &b[0], c)))
                .collect(),
            at.iter().map(|&c| round(mul(&a[1], &b[1], c))).collect(),
        ];
        d.iter().map(|x| self.residues(x)).collect()
    }
}

fn chain(n: usize, bits: u32, count: usize) -> Vec<u64> {
    let mut g = PrimeGenerator::new(n).unwrap();
    (0..count).map(|_| g.next_prime(bits).unwrap()).collect()
}

/// The largest prime `p ≤ top` with `p ≡ 3 mod 4` (never an NTT prime, so never in Q).
fn prime_3_mod_4(top: u64) -> u64 {
    let mut c = top - (top % 4) + 3;
    while c > top || !is_prime(c) {
        c -= 4;
    }
    c
}

/// The plaintext moduli of the brief: 2, 65537, 30- and 50-bit primes, and a 60-bit odd
/// composite (the product of two 30-bit primes).
fn plaintext_moduli() -> Vec<u64> {
    let p30 = prime_3_mod_4((1 << 30) - 1);
    let p30b = prime_3_mod_4(p30 - 4);
    let composite = p30 * p30b;
    assert!(composite >> 59 == 1 && !is_prime(composite));
    vec![2, 65537, p30, prime_3_mod_4((1 << 50) - 1), composite]
}

fn random_poly(ring: &RingContext, l: usize, rng: &mut ChaCha20Rng) -> Poly {
    let mut p = ring.zero(l, 0, Form::Ntt);
    for i in 0..l {
        let q = ring.modulus(i, l).value();
        p.limb_mut(i)
            .iter_mut()
            .for_each(|x| *x = rng.next_u64() % q);
    }
    p
}

fn coeff_words(ring: &RingContext, d: &[Poly]) -> Vec<Vec<u64>> {
    d.iter()
        .map(|p| {
            let mut c = p.clone();
            c.intt(ring);
            c.data().to_vec()
        })
        .collect()
}

/// Whether coefficient `c` of `got` is that of `want` plus -1, 0 or 1 (residues over `q`).
fn within_one(got: &[u64], want: &[u64], q: &[u64], n: usize, c: usize) -> bool {
    [-1i64, 0, 1].iter().any(|&delta| {
        q.iter().enumerate().all(|(i, &qi)| {
            let m = Modulus::new(qi);
            got[i * n + c] == m.add(want[i * n + c], m.reduce_i64(delta))
        })
    })
}

/// `Exact` equals the oracle word for word; `Hps` is within ±1 everywhere and equal in at
/// least 99.9% of the coefficients; `square(a) == tensor(a, a)` for both.
#[test]
fn tensor_matches_big_integer_oracle() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x7e50);
    let (mut total, mut hps_equal) = (0usize, 0usize);
    for (n, bits, count) in [
        (16, 40, 3),
        (64, 40, 3),
        (16, 60, 5),
        (64, 60, 5),
        (64, 50, 12),
        (16, 60, 30),
    ] {
        let q = chain(n, bits, count);
        let p = chain(n, 61, 2);
        let ring = RingContext::new(n, &q, &p).unwrap();
        let oracle = Oracle::new(&q);
        for t in plaintext_moduli() {
            let sit = ScaleInvariantTensor::new(&ring, count, t).unwrap();
            let r = sit.aux_primes();
            assert!(r
                .iter()
                .all(|x| !q.contains(x) && !p.contains(x) && *x < 1 << 50));
            let a = [
                random_poly(&ring, count, &mut rng),
                random_poly(&ring, count, &mut rng),
            ];
            let b = [
                random_poly(&ring, count, &mut rng),
                random_poly(&ring, count, &mut rng),
            ];
            let want = oracle.tensor(&ring, &a, &b, t);
            let exact = coeff_words(
                &ring,
                &sit.tensor(&ring, &a, &b, MulVariant::Exact, Form::Ntt),
            );
            assert_eq!(
                exact, want,
                "Exact, N = {n}, {count} x {bits} bits, t = {t}"
            );
            let hps = coeff_words(
                &ring,
                &sit.tensor(&ring, &a, &b, MulVariant::Hps, Form::Ntt),
            );
            for k in 0..3 {
                for c in 0..n {
                    total += 1;
                    hps_equal +=
                        (0..count).all(|i| hps[k][i * n + c] == want[k][i * n + c]) as usize;
                    assert!(
                        within_one(&hps[k], &want[k], &q, n, c),
                        "Hps off by more than 1"
                    );
                }
            }
            // Coefficient-form inputs and output (BFV's storage form): the same words.
            let to_coeff = |x: &[Poly]| -> Vec<Poly> {
                x.iter()
                    .map(|p| {
                        let mut c = p.clone();
                        c.intt(&ring);
                        c
                    })
                    .collect()
            };
            let (ac, bc) = (to_coeff(&a), to_coeff(&b));
            for v in [MulVariant::Exact, MulVariant::Hps] {
                let got: Vec<Vec<u64>> = sit
                    .tensor(&ring, &ac, &bc, v, Form::Coeff)
                    .iter()
                    .map(|p| p.data().to_vec())
                    .collect();
                let ntt = coeff_words(&ring, &sit.tensor(&ring, &a, &b, v, Form::Ntt));
                assert_eq!(got, ntt, "coefficient form, {v:?}");
                let sq: Vec<Vec<u64>> = sit
                    .square(&ring, &ac, v, Form::Coeff)
                    .iter()
                    .map(|p| p.data().to_vec())
                    .collect();
                assert_eq!(sq, coeff_words(&ring, &sit.square(&ring, &a, v, Form::Ntt)));
            }
            // square(a) == tensor(a, a), both variants.
            for v in [MulVariant::Exact, MulVariant::Hps] {
                let sq = sit.square(&ring, &a, v, Form::Ntt);
                let tt = sit.tensor(&ring, &a, &a, v, Form::Ntt);
                for (x, y) in sq.iter().zip(&tt) {
                    assert_eq!(x.data(), y.data(), "square != tensor(a, a), {v:?}");
                }
            }
        }
    }
    assert!(
        hps_equal * 1000 >= total * 999,
        "Hps equal in {hps_equal} of {total}"
    );
}

/// Coefficients `x_c` with `t x_c / Q` at distance about `2^-d` of a half-integer
/// `m + 1/2` (random `m` with `|2m + 1| < t`), above it for even `c` and below for odd:
/// `x_c = floor((2^(d+1) (2m + 1) + 4 sign) Q / (2^(d+2) t))`, checked to land at
/// distance in `(2^-(d+1), 2^-(d-1))` on the chosen side.
fn near_half(oracle: &Oracle, n: usize, t: u64, d: u32, rng: &mut ChaCha20Rng) -> Vec<BigInt> {
    let big_q = &oracle.big_q;
    (0..n)
        .map(|c| {
            let m = BigInt::from(rng.next_u64() % t) - t / 2;
            let m = if 2 * m.clone() + 1 >= BigInt::from(t) {
                m - 1
            } else {
                m
            };
            let sign: i64 = if c % 2 == 0 { 1 } else { -1 };
            let num = ((2 * &m + 1) * (BigInt::from(1u64) << (d + 1)) + 4 * sign) * big_q;
            let x = floor_div(&num, &(BigInt::from(t) << (d + 2)));
            // e = t x / Q - m - 1/2 = (2 t x - (2m + 1) Q) / 2Q.
            let e2q: BigInt = 2 * BigInt::from(t) * &x - (2 * &m + 1) * big_q;
            assert_eq!(e2q.sign() == num_bigint::Sign::Minus, sign < 0);
            let scaled = e2q.magnitude().clone() << (d + 1);
            assert!(scaled > big_q.magnitude() * 2u32 && scaled < big_q.magnitude() * 8u32);
            assert!(x.magnitude() * 2u32 < *big_q.magnitude());
            x
        })
        .collect()
}

/// `t x / Q` near half-integers on both sides (`x` placed in `a_0`, with `b_0 = 1`, so
/// `d_0 = round(t a_0 / Q)`; `a_1`, `b_1` random): at distance `2^-40`, `Exact` is still
/// exact and `Hps` within ±1 (it does differ there, in about half the coefficients); at
/// distance just beyond `Hps`'s bound `ε < L 2^-21` (`2^-18` for `L = 3` down to `2^-15`
/// for `L = 30`) both are exact.
#[test]
fn near_half_integers_round_exactly() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x4a1f);
    let n = 16;
    for (bits, count) in [(40, 3), (60, 5), (50, 12), (60, 30)] {
        let q = chain(n, bits, count);
        let ring = RingContext::new(n, &q, &[]).unwrap();
        let oracle = Oracle::new(&q);
        for t in plaintext_moduli() {
            let sit = ScaleInvariantTensor::new(&ring, count, t).unwrap();
            // Hps is exact beyond ε < L 2^-21: at distance > 2^-(d+1) with d as below.
            let d_hps = (21.0 - (count as f64).log2()).floor() as u32 - 2;
            for d in [40, d_hps] {
                let x = near_half(&oracle, n, t, d, &mut rng);
                let mut a0 = Poly::from_raw(n, count, 0, Form::Coeff, oracle.residues(&x));
                a0.ntt(&ring);
                let a = [a0, random_poly(&ring, count, &mut rng)];
                let mut one = ring.zero(count, 0, Form::Coeff);
                (0..count).for_each(|i| one.limb_mut(i)[0] = 1);
                one.ntt(&ring);
                let b = [one, random_poly(&ring, count, &mut rng)];
                let want = oracle.tensor(&ring, &a, &b, t);
                let exact = coeff_words(
                    &ring,
                    &sit.tensor(&ring, &a, &b, MulVariant::Exact, Form::Ntt),
                );
                assert_eq!(exact, want, "Exact, 2^-{d}, {count} x {bits}, t = {t}");
                let hps = coeff_words(
                    &ring,
                    &sit.tensor(&ring, &a, &b, MulVariant::Hps, Form::Ntt),
                );
                if d == d_hps {
                    assert_eq!(hps, want, "Hps, 2^-{d}, {count} x {bits}, t = {t}");
                } else {
                    for k in 0..3 {
                        for c in 0..n {
                            assert!(within_one(&hps[k], &want[k], &q, n, c), "Hps off by > 1");
                        }
                    }
                }
            }
        }
    }
}

/// The hardest inputs, inside the floating-point blind spot of the fast conversion:
/// coefficients of `a_0` at `±(Q-1)/2` (the input lift's edge) and `x_c = floor((2m + 1) Q
/// / 2t) + {0, 1}`, the integers closest to a half-integer `m + 1/2` of `t x / Q` on both
/// sides (distance below `t/Q`, e.g. `2^-119` for `t = 2` over `3 × 40` bits), with
/// `b_0 = 1`: `Exact` is still exact, `Hps` within ±1, square = tensor.
#[test]
fn closest_to_half_integers_round_exactly() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xc105e);
    let n = 16;
    for (bits, count) in [(40, 3), (60, 5), (50, 12), (60, 30)] {
        let q = chain(n, bits, count);
        let ring = RingContext::new(n, &q, &[]).unwrap();
        let oracle = Oracle::new(&q);
        let big_q = &oracle.big_q;
        let half = big_q / 2u32; // (Q - 1) / 2
        for t in plaintext_moduli() {
            let sit = ScaleInvariantTensor::new(&ring, count, t).unwrap();
            let x: Vec<BigInt> = (0..n)
                .map(|c| match c {
                    0 => half.clone(),
                    1 => -half.clone(),
                    2 => half.clone() - 1,
                    3 => 1 - half.clone(),
                    _ => {
                        let m = BigInt::from(rng.next_u64() % t) - t / 2;
                        let m = if 2 * m.clone() + 1 >= BigInt::from(t) {
                            m - 1
                        } else {
                            m
                        };
                        let x = floor_div(&((2 * m + 1) * big_q), &BigInt::from(2 * t as u128));
                        x + c % 2
                    }
                })
                .collect();
            assert!(x.iter().all(|c| c.magnitude() <= half.magnitude()));
            let mut a0 = Poly::from_raw(n, count, 0, Form::Coeff, oracle.residues(&x));
            a0.ntt(&ring);
            let a = [a0, random_poly(&ring, count, &mut rng)];
            let mut one = ring.zero(count, 0, Form::Coeff);
            (0..count).for_each(|i| one.limb_mut(i)[0] = 1);
            one.ntt(&ring);
            let b = [one, random_poly(&ring, count, &mut rng)];
            let want = oracle.tensor(&ring, &a, &b, t);
            let exact = coeff_words(
                &ring,
                &sit.tensor(&ring, &a, &b, MulVariant::Exact, Form::Ntt),
            );
            assert_eq!(exact, want, "Exact, {count} x {bits}, t = {t}");
            let hps = coeff_words(
                &ring,
                &sit.tensor(&ring, &a, &b, MulVariant::Hps, Form::Ntt),
            );
            for k in 0..3 {
                for c in 0..n {
                    assert!(within_one(&hps[k], &want[k], &q, n, c), "Hps off by > 1");
                }
            }
            for v in [MulVariant::Exact, MulVariant::Hps] {
                let (sq, tt) = (
                    sit.square(&ring, &a, v, Form::Ntt),
                    sit.tensor(&ring, &a, &a, v, Form::Ntt),
                );
                assert!(
                    sq.iter().zip(&tt).all(|(x, y)| x.data() == y.data()),
                    "{v:?}"
                );
            }
        }
    }
}

/// Bad plaintext moduli are errors, not panics.
#[test]
fn tensor_rejects_bad_plaintext_moduli() {
    let q = chain(16, 40, 3);
    let ring = RingContext::new(16, &q, &[]).unwrap();
    for t in [0, 1, 1 << 61, q[1], q[0] * 3] {
        assert!(ScaleInvariantTensor::new(&ring, 3, t).is_err(), "t = {t}");
    }
    assert!(ScaleInvariantTensor::new(&ring, 4, 65537).is_err());
    assert!(ScaleInvariantTensor::new(&ring, 0, 65537).is_err());
}

/// N = 2^11 over 12 × 50-bit primes (past the threshold of the parallel paths): `Exact`
/// equals the oracle at a spread of coefficients, `Hps` within ±1 of `Exact` everywhere.
#[test]
fn tensor_matches_oracle_on_the_parallel_paths() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x2048);
    let (n, count, t) = (1 << 11, 12, 65537);
    let q = chain(n, 50, count);
    let ring = RingContext::new(n, &q, &[]).unwrap();
    let oracle = Oracle::new(&q);
    let sit = ScaleInvariantTensor::new(&ring, count, t).unwrap();
    let a = [
        random_poly(&ring, count, &mut rng),
        random_poly(&ring, count, &mut rng),
    ];
    let b = [
        random_poly(&ring, count, &mut rng),
        random_poly(&ring, count, &mut rng),
    ];
    let exact = coeff_words(
        &ring,
        &sit.tensor(&ring, &a, &b, MulVariant::Exact, Form::Ntt),
    );
    let at: Vec<usize> = (0..n).step_by(97).chain([n - 1]).collect();
    let want = oracle.tensor_at(&ring, &a, &b, t, &at);
    for (k, w) in want.iter().enumerate() {
        for (j, &c) in at.iter().enumerate() {
            for i in 0..count {
                assert_eq!(
                    exact[k][i * n + c],
                    w[i * at.len() + j],
                    "Exact, d_{k}[{c}]"
                );
            }
        }
    }
    let hps = coeff_words(
        &ring,
        &sit.tensor(&ring, &a, &b, MulVariant::Hps, Form::Ntt),
    );
    for k in 0..3 {
        for c in 0..n {
            assert!(within_one(&hps[k], &exact[k], &q, n, c), "Hps off by > 1");
        }
    }
}

/// Full size (not run by default: N = 2^16): `Exact` against the oracle at a few
/// coefficients, `Hps` within ±1 of `Exact` everywhere and equal in 99.9%, square = tensor.
#[test]
#[ignore = "full size: N = 2^16, run by hand"]
fn tensor_full_size() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xf011);
    let (n, count) = (1 << 16, 24);
    let q = chain(n, 60, count);
    let ring = RingContext::new(n, &q, &chain(n, 61, 4)).unwrap();
    let oracle = Oracle::new(&q);
    for t in [65537, prime_3_mod_4((1 << 50) - 1)] {
        let sit = ScaleInvariantTensor::new(&ring, count, t).unwrap();
        let a = [
            random_poly(&ring, count, &mut rng),
            random_poly(&ring, count, &mut rng),
        ];
        let b = [
            random_poly(&ring, count, &mut rng),
            random_poly(&ring, count, &mut rng),
        ];
        let exact = coeff_words(
            &ring,
            &sit.tensor(&ring, &a, &b, MulVariant::Exact, Form::Ntt),
        );
        let at = [0, 1, n / 2, n - 1];
        let want = oracle.tensor_at(&ring, &a, &b, t, &at);
        for (k, w) in want.iter().enumerate() {
            for (j, &c) in at.iter().enumerate() {
                for i in 0..count {
                    assert_eq!(exact[k][i * n + c], w[i * at.len() + j], "Exact, t = {t}");
                }
            }
        }
        let hps = coeff_words(
            &ring,
            &sit.tensor(&ring, &a, &b, MulVariant::Hps, Form::Ntt),
        );
        let mut equal = 0;
        for k in 0..3 {
            for c in 0..n {
                equal += (0..count).all(|i| hps[k][i * n + c] == exact[k][i * n + c]) as usize;
                assert!(within_one(&hps[k], &exact[k], &q, n, c), "Hps off by > 1");
            }
        }
        assert!(
            equal * 1000 >= 3 * n * 999,
            "Hps equal in {equal} of {}",
            3 * n
        );
        for v in [MulVariant::Exact, MulVariant::Hps] {
            let (sq, tt) = (
                sit.square(&ring, &a, v, Form::Ntt),
                sit.tensor(&ring, &a, &a, v, Form::Ntt),
            );
            assert!(
                sq.iter().zip(&tt).all(|(x, y)| x.data() == y.data()),
                "{v:?}"
            );
        }
    }
}
