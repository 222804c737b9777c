//! Negacyclic number-theoretic transform over `Z_q[X]/(X^N + 1)`, N = 2^1 .. 2^17.
//!
//! This is the hottest kernel of hekate and the reference the GPU code is checked against.
//!
//! # Contract
//!
//! * [`NttPlan::forward`] maps coefficients in natural order to evaluations in
//!   **bit-reversed order**: `out[i] = a(ψ^(2·brv(i) + 1))`, with `ψ` the plan's primitive
//!   `2N`-th root of unity and `brv` the `log N`-bit reversal. Automorphisms in NTT form
//!   (`ring::automorphism`) rely on this order.
//! * [`NttPlan::inverse`] is its exact inverse (including the factor `N^-1`).
//! * Reduced variants take and return values in `[0, q)`. Lazy variants take values in
//!   `[0, 2q)` and return values in `[0, 2q)` (forward) or `[0, 2q)` (inverse), so chains of
//!   transforms and additions can skip the final corrections.
//!
//! # Algorithm
//!
//! Cooley-Tukey (forward) and Gentleman-Sande (inverse) butterflies with Harvey's lazy
//! reduction: twiddles are Shoup-precomputed, intermediate values live in `[0, 4q)`, which
//! needs `q < 2^62`. Twiddles are stored in the order the butterflies read them.
//!
//! # Backends
//!
//! The scalar path always exists (and the tests run it). Where the CPU supports it, an
//! AVX-512 path is chosen at plan creation: IFMA (52-bit multiply-add lanes) for primes
//! below 2^50, 64-bit lanes above. All backends produce bit-identical results.

use super::modulus::Modulus;
use super::primes::{is_prime, primitive_root_of_unity};
use crate::{Error, Result};

/// Which implementation of the butterflies a plan runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NttBackend {
    /// Portable scalar code.
    Scalar,
}

impl NttBackend {
    /// The fastest backend this CPU supports for a modulus of the given size.
    pub fn detect(_modulus: &Modulus) -> NttBackend {
        NttBackend::Scalar
    }
}

/// A negacyclic NTT of size `n` modulo a prime `q = 1 mod 2n`, with its precomputed
/// twiddles. Create once per `(n, q)` and share (it is immutable and `Sync`).
#[derive(Clone, Debug)]
pub struct NttPlan {
    n: usize,
    log_n: u32,
    modulus: Modulus,
    psi: u64,
    /// ψ^brv(k) for k in 0..n, and Shoup companions (forward, Cooley-Tukey order).
    fwd: Vec<u64>,
    fwd_shoup: Vec<u64>,
    /// ψ^-brv(k) for k in 0..n, and Shoup companions (inverse, Gentleman-Sande order).
    inv: Vec<u64>,
    inv_shoup: Vec<u64>,
    n_inv: u64,
    n_inv_shoup: u64,
    backend: NttBackend,
}

/// Bit reversal of the low `bits` bits of `x`.
#[inline]
pub fn bit_reverse(x: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        x.reverse_bits() >> (usize::BITS - bits)
    }
}

impl NttPlan {
    /// The smallest valid size.
    pub const MIN_N: usize = 2;
    /// The largest supported size.
    pub const MAX_N: usize = 1 << 17;

    /// A plan for size `n` modulo the prime `q`, with the smallest primitive `2n`-th root.
    pub fn new(n: usize, q: u64) -> Result<Self> {
        Self::check(n, q)?;
        let psi = primitive_root_of_unity(q, 2 * n as u64).ok_or_else(|| {
            Error::InvalidParameters(format!("q = {q} has no primitive {}-th root of unity", 2 * n))
        })?;
        Self::with_root(n, q, psi)
    }

    /// A plan with a caller-chosen primitive `2n`-th root of unity `psi`.
    pub fn with_root(n: usize, q: u64, psi: u64) -> Result<Self> {
        Self::check(n, q)?;
        let m = Modulus::new(q);
        if m.pow(psi, n as u64) != q - 1 {
            return Err(Error::InvalidParameters(format!(
                "{psi} is not a primitive {}-th root of unity modulo {q}",
                2 * n
            )));
        }
        let log_n = n.trailing_zeros();
        let psi_inv = m.inv(psi).expect("q is prime");
        let mut fwd = vec![0u64; n];
        let mut inv = vec![0u64; n];
        let (mut p, mut pi) = (1u64, 1u64);
        for k in 0..n {
            let r = bit_reverse(k, log_n);
            fwd[r] = p;
            inv[r] = pi;
            p = m.mul(p, psi);
            pi = m.mul(pi, psi_inv);
        }
        let fwd_shoup = fwd.iter().map(|&w| m.shoup(w)).collect();
        let inv_shoup = inv.iter().map(|&w| m.shoup(w)).collect();
        let n_inv = m.inv(n as u64).expect("q is odd");
        Ok(NttPlan {
            n,
            log_n,
            modulus: m,
            psi,
            fwd,
            fwd_shoup,
            inv,
            inv_shoup,
            n_inv,
            n_inv_shoup: m.shoup(n_inv),
            backend: NttBackend::detect(&m),
        })
    }

    fn check(n: usize, q: u64) -> Result<()> {
        if !n.is_power_of_two() || !(Self::MIN_N..=Self::MAX_N).contains(&n) {
            return Err(Error::InvalidParameters(format!(
                "NTT size {n} must be a power of two in [2, 2^17]"
            )));
        }
        if q >= 1 << 62 || !is_prime(q) || q % (2 * n as u64) != 1 {
            return Err(Error::InvalidParameters(format!(
                "NTT modulus {q} must be a prime below 2^62 with q = 1 mod 2N = {}",
                2 * n
            )));
        }
        Ok(())
    }

    /// The transform size `N`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// `log2 N`.
    pub fn log_n(&self) -> u32 {
        self.log_n
    }

    /// The modulus.
    pub fn modulus(&self) -> &Modulus {
        &self.modulus
    }

    /// The primitive `2N`-th root of unity `ψ` the plan uses.
    pub fn psi(&self) -> u64 {
        self.psi
    }

    /// The backend in use.
    pub fn backend(&self) -> NttBackend {
        self.backend
    }

    /// Forces a backend (for tests and benchmarks). Returns an error if the CPU or the
    /// modulus does not support it.
    pub fn set_backend(&mut self, backend: NttBackend) -> Result<()> {
        match backend {
            NttBackend::Scalar => {
                self.backend = backend;
                Ok(())
            }
        }
    }

    /// In-place forward transform, `[0, q)` to `[0, q)`, natural to bit-reversed order.
    pub fn forward(&self, a: &mut [u64]) {
        self.forward_lazy(a);
        let m = self.modulus;
        for x in a.iter_mut() {
            *x = m.reduce_2q(*x);
        }
    }

    /// In-place forward transform, `[0, 2q)` to `[0, 2q)`.
    pub fn forward_lazy(&self, a: &mut [u64]) {
        assert_eq!(a.len(), self.n, "NTT input length");
        match self.backend {
            NttBackend::Scalar => self.forward_scalar(a),
        }
    }

    /// In-place inverse transform, `[0, q)` to `[0, q)`, bit-reversed to natural order.
    pub fn inverse(&self, a: &mut [u64]) {
        self.inverse_lazy(a);
        let m = self.modulus;
        for x in a.iter_mut() {
            *x = m.reduce_2q(*x);
        }
    }

    /// In-place inverse transform, `[0, 2q)` to `[0, 2q)`.
    pub fn inverse_lazy(&self, a: &mut [u64]) {
        assert_eq!(a.len(), self.n, "NTT input length");
        match self.backend {
            NttBackend::Scalar => self.inverse_scalar(a),
        }
    }

    /// Scalar Cooley-Tukey forward pass, `[0, 2q)` to `[0, 2q)`.
    fn forward_scalar(&self, a: &mut [u64]) {
        let q = self.modulus.value();
        let two_q = 2 * q;
        let n = self.n;
        let mut t = n;
        let mut m = 1;
        while m < n {
            t >>= 1;
            for i in 0..m {
                let w = self.fwd[m + i];
                let ws = self.fwd_shoup[m + i];
                let (lo, hi) = a[2 * i * t..2 * i * t + 2 * t].split_at_mut(t);
                for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                    // x, y in [0, 4q) (in [0, 2q) at the first stage).
                    let mut u = *x;
                    if u >= two_q {
                        u -= two_q;
                    }
                    let v = self.modulus.mul_shoup_lazy(*y, w, ws);
                    *x = u + v;
                    *y = u + two_q - v;
                }
            }
            m <<= 1;
        }
        for x in a.iter_mut() {
            if *x >= two_q {
                *x -= two_q;
            }
        }
    }

    /// Scalar Gentleman-Sande inverse pass (with the `N^-1` factor), `[0, 2q)` to `[0, 2q)`.
    fn inverse_scalar(&self, a: &mut [u64]) {
        let q = self.modulus.value();
        let two_q = 2 * q;
        let n = self.n;
        let mut t = 1;
        let mut h = n >> 1;
        while h >= 1 {
            for i in 0..h {
                let w = self.inv[h + i];
                let ws = self.inv_shoup[h + i];
                let (lo, hi) = a[2 * i * t..2 * i * t + 2 * t].split_at_mut(t);
                for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                    // x, y in [0, 2q).
                    let (u, v) = (*x, *y);
                    let mut s = u + v;
                    if s >= two_q {
                        s -= two_q;
                    }
                    *x = s;
                    *y = self.modulus.mul_shoup_lazy(u + two_q - v, w, ws);
                }
            }
            t <<= 1;
            h >>= 1;
        }
        for x in a.iter_mut() {
            *x = self.modulus.mul_shoup_lazy(*x, self.n_inv, self.n_inv_shoup);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::primes::PrimeGenerator;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Schoolbook negacyclic product, the oracle.
    fn negacyclic_mul(a: &[u64], b: &[u64], m: &Modulus) -> Vec<u64> {
        let n = a.len();
        let mut c = vec![0u64; n];
        for i in 0..n {
            for j in 0..n {
                let p = m.mul(a[i], b[j]);
                if i + j < n {
                    c[i + j] = m.add(c[i + j], p);
                } else {
                    c[i + j - n] = m.sub(c[i + j - n], p);
                }
            }
        }
        c
    }

    #[test]
    fn forward_matches_evaluation_at_odd_powers_in_bit_reversed_order() {
        let n = 16;
        let q = PrimeGenerator::new(n).unwrap().next_prime(30).unwrap();
        let plan = NttPlan::new(n, q).unwrap();
        let m = plan.modulus;
        let a: Vec<u64> = (0..n as u64).map(|i| (i * 7919 + 3) % q).collect();
        let mut f = a.clone();
        plan.forward(&mut f);
        for (i, &fi) in f.iter().enumerate() {
            let x = m.pow(plan.psi(), 2 * bit_reverse(i, plan.log_n()) as u64 + 1);
            let eval = a.iter().rev().fold(0, |acc, &c| m.add(m.mul(acc, x), c));
            assert_eq!(fi, eval, "slot {i}");
        }
    }

    #[test]
    fn roundtrip_and_convolution_for_all_sizes() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for log_n in 1..=17u32 {
            let n = 1usize << log_n;
            for bits in [20u32, 36, 50, 60, 61] {
                if 2 * n as u64 >= 1 << (bits - 1) {
                    continue;
                }
                let q = PrimeGenerator::new(n).unwrap().next_prime(bits).unwrap();
                let plan = NttPlan::new(n, q).unwrap();
                let a: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
                let mut f = a.clone();
                plan.forward(&mut f);
                assert!(f.iter().all(|&x| x < q));
                plan.inverse(&mut f);
                assert_eq!(f, a, "roundtrip n={n} bits={bits}");
                if n <= 64 {
                    let b: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
                    let (mut fa, mut fb) = (a.clone(), b.clone());
                    plan.forward(&mut fa);
                    plan.forward(&mut fb);
                    let mut c: Vec<u64> =
                        fa.iter().zip(&fb).map(|(&x, &y)| plan.modulus.mul(x, y)).collect();
                    plan.inverse(&mut c);
                    assert_eq!(c, negacyclic_mul(&a, &b, &plan.modulus));
                }
            }
        }
    }

    #[test]
    fn lazy_variants_stay_in_range_and_agree() {
        let n = 1 << 12;
        let q = PrimeGenerator::new(n).unwrap().next_prime(61).unwrap();
        let plan = NttPlan::new(n, q).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        // Lazy inputs in [0, 2q).
        let a: Vec<u64> = (0..n).map(|_| rng.next_u64() % (2 * q)).collect();
        let mut lazy = a.clone();
        plan.forward_lazy(&mut lazy);
        assert!(lazy.iter().all(|&x| x < 2 * q));
        let mut reduced: Vec<u64> = a.iter().map(|&x| x % q).collect();
        plan.forward(&mut reduced);
        assert!(lazy.iter().zip(&reduced).all(|(&x, &y)| x % q == y));
        plan.inverse_lazy(&mut lazy);
        assert!(lazy.iter().all(|&x| x < 2 * q));
        assert!(lazy.iter().zip(&a).all(|(&x, &y)| x % q == y % q));
    }

    #[test]
    fn rejects_bad_sizes_moduli_and_roots() {
        assert!(NttPlan::new(3, 97).is_err());
        assert!(NttPlan::new(1 << 18, (1 << 40) + 1).is_err());
        assert!(NttPlan::new(16, 113).is_err()); // 113 != 1 mod 32
        assert!(NttPlan::new(16, 1 + 32 * 5).is_err()); // not prime
        let q = PrimeGenerator::new(16).unwrap().next_prime(30).unwrap();
        assert!(NttPlan::with_root(16, q, 1).is_err());
        // The 1671981167411201 prime at N = 2^16 (mis-transformed by tfhe-ntt on IFMA CPUs).
        let p = 1_671_981_167_411_201u64;
        let plan = NttPlan::new(1 << 16, p).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let a: Vec<u64> = (0..1 << 16).map(|_| rng.next_u64() % p).collect();
        let mut f = a.clone();
        plan.forward(&mut f);
        plan.inverse(&mut f);
        assert_eq!(f, a);
    }
}
