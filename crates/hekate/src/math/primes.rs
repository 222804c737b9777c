//! NTT-friendly primes: distinct primes `q = 1 mod 2N` near a requested bit size.
//!
//! A negacyclic NTT of size `N` modulo `q` needs a primitive `2N`-th root of unity, which
//! exists exactly when `q = 1 mod 2N`. [`PrimeGenerator`] walks the candidates
//! `2^bits - k * 2N + 1` downward from `2^bits`, so consecutive calls give
//! distinct primes as close to the requested size as possible.

use super::modulus::{Modulus, MAX_MODULUS_BITS};
use crate::{Error, Result};

/// Deterministic Miller-Rabin for 64-bit integers.
pub fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    for p in [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let m = PrimalityModulus(n);
    let (mut d, mut s) = (n - 1, 0);
    while d % 2 == 0 {
        d /= 2;
        s += 1;
    }
    // These bases are a proof of primality for every n < 2^64.
    'witness: for a in [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        let mut x = m.pow(a, d);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = m.mul(x, x);
            if x == n - 1 {
                continue 'witness;
            }
        }
        return false;
    }
    true
}

/// Modular arithmetic for primality testing of any 64-bit `n` (slow, u128 remainder).
struct PrimalityModulus(u64);

impl PrimalityModulus {
    fn mul(&self, a: u64, b: u64) -> u64 {
        ((a as u128 * b as u128) % self.0 as u128) as u64
    }
    fn pow(&self, mut b: u64, mut e: u64) -> u64 {
        let mut r = 1;
        b %= self.0;
        while e > 0 {
            if e & 1 == 1 {
                r = self.mul(r, b);
            }
            b = self.mul(b, b);
            e >>= 1;
        }
        r
    }
}

/// Generates distinct NTT-friendly primes `q = 1 mod 2N` of a given bit size.
///
/// Primes already handed out (or registered with [`PrimeGenerator::exclude`]) are never
/// returned again, so one generator can build a whole modulus chain `Q ∪ P`.
#[derive(Debug, Clone)]
pub struct PrimeGenerator {
    two_n: u64,
    used: Vec<u64>,
}

impl PrimeGenerator {
    /// A generator for ring degree `n` (a power of two).
    pub fn new(n: usize) -> Result<Self> {
        if !n.is_power_of_two() || n < 2 {
            return Err(Error::InvalidParameters(format!(
                "ring degree N = {n} must be a power of two >= 2"
            )));
        }
        Ok(PrimeGenerator {
            two_n: 2 * n as u64,
            used: Vec::new(),
        })
    }

    /// Marks primes as taken (they will not be returned).
    pub fn exclude(&mut self, primes: &[u64]) {
        self.used.extend_from_slice(primes);
    }

    /// The next unused prime `q = 1 mod 2N` with exactly `bits` bits, the largest such.
    ///
    /// Candidates are `2^bits - k*2N + 1` for k = 1, 2, ... while they keep `bits`
    /// bits. `bits` must lie in `[20, 61]` and leave room for `2N`.
    pub fn next_prime(&mut self, bits: u32) -> Result<u64> {
        if !(20..=MAX_MODULUS_BITS).contains(&bits) {
            return Err(Error::PrimeGeneration(format!(
                "prime size {bits} bits is outside the supported range [20, {MAX_MODULUS_BITS}]"
            )));
        }
        if self.two_n >= 1u64 << (bits - 1) {
            return Err(Error::PrimeGeneration(format!(
                "no {bits}-bit prime can be 1 mod 2N = {}: use larger primes or a smaller N",
                self.two_n
            )));
        }
        let top = 1u64 << bits;
        let low = 1u64 << (bits - 1);
        let mut cand = top - self.two_n + 1;
        while cand > low {
            if is_prime(cand) && !self.used.contains(&cand) {
                self.used.push(cand);
                return Ok(cand);
            }
            cand -= self.two_n;
        }
        Err(Error::PrimeGeneration(format!(
            "ran out of {bits}-bit primes that are 1 mod {}",
            self.two_n
        )))
    }

    /// `count` distinct primes of `bits` bits each.
    pub fn primes(&mut self, bits: u32, count: usize) -> Result<Vec<u64>> {
        (0..count).map(|_| self.next_prime(bits)).collect()
    }
}

/// A primitive `order`-th root of unity modulo the prime `q` (`order` a power of two
/// dividing `q - 1`): the smallest one, so the choice is deterministic.
pub fn primitive_root_of_unity(q: u64, order: u64) -> Option<u64> {
    if !order.is_power_of_two() || !(q - 1).is_multiple_of(order) {
        return None;
    }
    let m = Modulus::new(q);
    let cofactor = (q - 1) / order;
    // g^cofactor has order dividing `order`; it is primitive iff its (order/2)-th power is -1.
    let mut best: Option<u64> = None;
    for g in 2..q.min(1 << 20) {
        let w = m.pow(g, cofactor);
        if order == 1 || m.pow(w, order / 2) == q - 1 {
            // The smallest primitive root among all w^odd powers.
            let mut x = w;
            let w2 = m.mul(w, w);
            let mut min = w;
            for _ in 0..order / 2 {
                min = min.min(x);
                x = m.mul(x, w2);
            }
            best = Some(min);
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn miller_rabin_agrees_with_trial_division() {
        let trial = |n: u64| {
            n >= 2
                && (2..)
                    .take_while(|d| d * d <= n)
                    .all(|d| !n.is_multiple_of(d))
        };
        for n in 0..20_000u64 {
            assert_eq!(is_prime(n), trial(n), "{n}");
        }
        assert!(is_prime((1u64 << 61) - 1));
        assert!(is_prime(18446744073709551557)); // largest 64-bit prime
        assert!(!is_prime(3215031751)); // strong pseudoprime to bases 2, 3, 5, 7
    }

    #[test]
    fn generates_distinct_ntt_friendly_primes_of_each_size() {
        for log_n in [10u32, 13, 17] {
            let n = 1usize << log_n;
            let mut g = PrimeGenerator::new(n).unwrap();
            for bits in [20u32, 30, 36, 50, 60, 61] {
                if (2 * n as u64) >= 1 << (bits - 1) {
                    assert!(g.next_prime(bits).is_err());
                    continue;
                }
                if (2 * n as u64) >= 1 << (bits - 4) {
                    continue; // too few candidates for three primes
                }
                let ps = g.primes(bits, 3).unwrap();
                for &p in &ps {
                    assert!(is_prime(p));
                    assert_eq!(p % (2 * n as u64), 1);
                    assert_eq!(64 - p.leading_zeros(), bits);
                }
                assert!(ps[0] != ps[1] && ps[1] != ps[2] && ps[0] != ps[2]);
            }
        }
        assert!(PrimeGenerator::new(1 << 12)
            .unwrap()
            .next_prime(62)
            .is_err());
        assert!(PrimeGenerator::new(1000).is_err());
    }

    #[test]
    fn root_of_unity_is_primitive() {
        let q = PrimeGenerator::new(1 << 12)
            .unwrap()
            .next_prime(50)
            .unwrap();
        let m = Modulus::new(q);
        let psi = primitive_root_of_unity(q, 1 << 13).unwrap();
        assert_eq!(m.pow(psi, 1 << 13), 1);
        assert_eq!(m.pow(psi, 1 << 12), q - 1);
    }
}
