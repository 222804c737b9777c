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
//! needs `q < 2^62`. Twiddles are stored in the order the butterflies read them
//! (`ψ^brv(k)` at index `k`: group `g` of a stage with `m` groups reads index `m + g`).
//!
//! # Backends
//!
//! [`NttBackend::detect`] picks, at plan creation, the fastest backend the CPU supports for
//! the modulus, within the instruction-set cap (`HEKATE_SIMD`, see [`Isa`]);
//! [`NttPlan::set_backend`] can force another (tests and benchmarks).
//!
//! * [`NttBackend::Scalar`]: portable radix-2 code, one pass per stage. Always available,
//!   and the path used for `N < 16`.
//! * [`NttBackend::Avx2`] (x86-64 with AVX2 and FMA, any `q < 2^62`): the structure below
//!   at half the width, the last three stages in registers on 8 coefficients (`avx2.rs`),
//!   over one of two lane arithmetics, chosen by measurement (BENCHMARKS.md, "AVX2"):
//!   for `q < 2^50`, exact double-precision FMA arithmetic with centered twiddles
//!   (`avx2_f64.rs`, FLINT `fft_small`'s technique; 1.6x faster than the integer lanes);
//!   from `2^50` on, four 64-bit lanes with Shoup multiplication exactly as the scalar
//!   code, the 64x64-bit products built from `vpmuludq` and `vpmulld` partial products.
//! * [`NttBackend::Avx512`] (x86-64 with AVX-512F/DQ, any `q < 2^62`): eight 64-bit lanes,
//!   Shoup multiplication with `w' = floor(w 2^64 / q)` exactly as the scalar code, the
//!   128-bit high product emulated with four `vpmuludq`.
//! * [`NttBackend::Avx512Ifma`] (AVX-512 IFMA, `q < 2^50`): 52-bit multiply-add lanes with
//!   companions `w' = floor(w 2^52 / q)`. The lazy values reach `4q`, and IFMA reads only
//!   52 bits, so the bound `4q <= 2^52` is what makes it exact (proof in `ifma.rs`).
//!
//! Both SIMD backends share one kernel (`avx512.rs`): stages of distance `t >= 16` are
//! merged two at a time (radix-4 passes with broadcast twiddles), large transforms are
//! split breadth-first into 4096-coefficient blocks that are finished depth-first in L1,
//! and the four stages of distance `8, 4, 2, 1` run in registers on 16 coefficients with
//! transposes, together with the final correction. The inverse folds `N^-1` into its last
//! stage.
//!
//! # Results across backends
//!
//! The reduced transforms ([`NttPlan::forward`], [`NttPlan::inverse`]) return the canonical
//! residues, so every backend gives bit-identical outputs. The lazy transforms return
//! values in `[0, 2q)` on every backend, congruent modulo `q` to each other; the
//! representative may differ by `q` between backends (the IFMA quotients differ from the
//! 64-bit ones, and the SIMD inverse folds `N^-1` into its last stage), except that the
//! `Avx512` lazy forward, and the `Avx2` one for `q >= 2^50`, are bit-identical to the
//! scalar one (below `2^50` the `Avx2` lazy transforms return canonical residues).

use super::kernels::Isa;
use super::modulus::Modulus;
use super::primes::{is_prime, primitive_root_of_unity};
use crate::{Error, Result};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx2_f64;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod ifma;

/// Which implementation of the butterflies a plan runs.
///
/// All variants exist on every target; the SIMD ones are only ever selected (by
/// [`NttBackend::detect`] or accepted by [`NttPlan::set_backend`]) where
/// [`NttBackend::supports`] says so, which follows [`Isa::detect`] (the CPU, lowered to
/// the `HEKATE_SIMD` cap, see [`Isa`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NttBackend {
    /// Portable scalar code.
    Scalar,
    /// AVX2 with four 64-bit lanes, any modulus below `2^62`.
    Avx2,
    /// AVX-512 with 64-bit lanes (AVX-512F and AVX-512DQ), any modulus below `2^62`.
    Avx512,
    /// AVX-512 IFMA with 52-bit lanes, moduli below `2^50` only.
    Avx512Ifma,
}

impl NttBackend {
    /// All backends, fastest last.
    pub const ALL: [NttBackend; 4] = [
        NttBackend::Scalar,
        NttBackend::Avx2,
        NttBackend::Avx512,
        NttBackend::Avx512Ifma,
    ];

    /// The fastest backend this CPU (within the instruction-set cap) supports for a
    /// modulus of the given size.
    pub fn detect(modulus: &Modulus) -> NttBackend {
        Self::ALL
            .into_iter()
            .rev()
            .find(|b| b.supports(modulus))
            .unwrap_or(NttBackend::Scalar)
    }

    /// The instruction set this backend needs.
    pub fn isa(self) -> Isa {
        match self {
            NttBackend::Scalar => Isa::Scalar,
            NttBackend::Avx2 => Isa::Avx2,
            NttBackend::Avx512 => Isa::Avx512,
            NttBackend::Avx512Ifma => Isa::Avx512Ifma,
        }
    }

    /// Whether this CPU (within the instruction-set cap) can run this backend for the
    /// modulus.
    pub fn supports(self, modulus: &Modulus) -> bool {
        self.isa().available() && (self != NttBackend::Avx512Ifma || modulus.value() < IFMA_MAX_Q)
    }
}

/// Moduli below this value can use the IFMA backend (`4q <= 2^52`).
const IFMA_MAX_Q: u64 = 1 << 50;

/// Moduli below this value run the AVX2 backend in `f64` arithmetic (`avx2_f64.rs`).
#[cfg(target_arch = "x86_64")]
use avx2_f64::F64_MAX_Q;
#[cfg(not(target_arch = "x86_64"))]
const F64_MAX_Q: u64 = 1 << 50;

/// Twiddles with 52-bit Shoup companions for the IFMA backend.
#[derive(Clone, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct IfmaTables {
    fwd_shoup: Vec<u64>,
    inv_shoup: Vec<u64>,
    n_inv_shoup: u64,
    inv_last_shoup: u64,
}

/// Centered twiddles as `f64` for the AVX2 double-precision arithmetic (`q < 2^50`).
#[derive(Clone, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct F64Tables {
    fwd: Vec<f64>,
    inv: Vec<f64>,
    /// `N^-1` and `inv_last`, centered.
    last: [f64; 2],
}

/// The centered representative of a reduced `w`, as `f64` (exact below `2^53`).
fn centered_f64(w: u64, q: u64) -> f64 {
    if w > q / 2 {
        -((q - w) as f64)
    } else {
        w as f64
    }
}

/// A negacyclic NTT of size `n` modulo a prime `q = 1 mod 2n`, with its precomputed
/// twiddles. Create once per `(n, q)` and share (it is immutable and `Sync`).
#[derive(Clone, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
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
    /// `inv[1] · N^-1`, the inverse's last twiddle with `N^-1` folded in, and companion.
    inv_last: u64,
    inv_last_shoup: u64,
    /// 52-bit companions, present when `q < 2^50`.
    ifma: Option<IfmaTables>,
    /// `f64` twiddles, present when `q < 2^50`.
    f64: Option<F64Tables>,
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

/// The 52-bit Shoup companion `floor(w * 2^52 / q)` of a reduced `w`.
fn shoup52(w: u64, q: u64) -> u64 {
    (((w as u128) << 52) / q as u128) as u64
}

impl NttPlan {
    /// The smallest valid size.
    pub const MIN_N: usize = 2;
    /// The largest supported size.
    pub const MAX_N: usize = 1 << 17;
    /// Sizes below this always run the scalar code (the SIMD kernels work on 16-coefficient
    /// chunks).
    pub const MIN_SIMD_N: usize = 16;

    /// A plan for size `n` modulo the prime `q`, with the smallest primitive `2n`-th root.
    pub fn new(n: usize, q: u64) -> Result<Self> {
        Self::check(n, q)?;
        let psi = primitive_root_of_unity(q, 2 * n as u64).ok_or_else(|| {
            Error::InvalidParameters(format!(
                "q = {q} has no primitive {}-th root of unity",
                2 * n
            ))
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
        let inv_last = m.mul(inv[1], n_inv);
        let ifma = (q < IFMA_MAX_Q).then(|| IfmaTables {
            fwd_shoup: fwd.iter().map(|&w| shoup52(w, q)).collect(),
            inv_shoup: inv.iter().map(|&w| shoup52(w, q)).collect(),
            n_inv_shoup: shoup52(n_inv, q),
            inv_last_shoup: shoup52(inv_last, q),
        });
        let f64 = (q < F64_MAX_Q).then(|| F64Tables {
            fwd: fwd.iter().map(|&w| centered_f64(w, q)).collect(),
            inv: inv.iter().map(|&w| centered_f64(w, q)).collect(),
            last: [centered_f64(n_inv, q), centered_f64(inv_last, q)],
        });
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
            inv_last,
            inv_last_shoup: m.shoup(inv_last),
            ifma,
            f64,
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
    /// modulus does not support it. (Sizes below [`Self::MIN_SIMD_N`] run the scalar code
    /// whatever the backend.)
    pub fn set_backend(&mut self, backend: NttBackend) -> Result<()> {
        if !backend.supports(&self.modulus) {
            return Err(Error::InvalidParameters(format!(
                "NTT backend {backend:?} is not supported for q = {} on this CPU",
                self.modulus.value()
            )));
        }
        self.backend = backend;
        Ok(())
    }

    /// In-place forward transform, `[0, q)` to `[0, q)`, natural to bit-reversed order.
    pub fn forward(&self, a: &mut [u64]) {
        assert_eq!(a.len(), self.n, "NTT input length");
        if self.simd_forward::<true>(a) {
            return;
        }
        self.forward_scalar(a);
        let m = self.modulus;
        for x in a.iter_mut() {
            *x = m.reduce_2q(*x);
        }
    }

    /// In-place forward transform, `[0, 2q)` to `[0, 2q)`.
    pub fn forward_lazy(&self, a: &mut [u64]) {
        assert_eq!(a.len(), self.n, "NTT input length");
        if !self.simd_forward::<false>(a) {
            self.forward_scalar(a);
        }
    }

    /// In-place inverse transform, `[0, q)` to `[0, q)`, bit-reversed to natural order.
    pub fn inverse(&self, a: &mut [u64]) {
        assert_eq!(a.len(), self.n, "NTT input length");
        if self.simd_inverse::<true>(a) {
            return;
        }
        self.inverse_scalar(a);
        let m = self.modulus;
        for x in a.iter_mut() {
            *x = m.reduce_2q(*x);
        }
    }

    /// In-place inverse transform, `[0, 2q)` to `[0, 2q)`.
    pub fn inverse_lazy(&self, a: &mut [u64]) {
        assert_eq!(a.len(), self.n, "NTT input length");
        if !self.simd_inverse::<false>(a) {
            self.inverse_scalar(a);
        }
    }

    /// Runs the SIMD forward transform if the backend has one for this size; returns
    /// whether it did.
    #[inline]
    fn simd_forward<const REDUCE: bool>(&self, a: &mut [u64]) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            if self.n < Self::MIN_SIMD_N {
                return false;
            }
            let q = self.modulus.value();
            match self.backend {
                NttBackend::Scalar => false,
                // SAFETY: `set_backend`/`detect` only choose `Avx2` when the CPU has AVX2
                // and FMA (`Isa::detect`); n >= 16 and q < 2^62 (plan invariants); the
                // tables have n entries.
                NttBackend::Avx2 => unsafe {
                    if let Some(t) = &self.f64 {
                        avx2_f64::forward_f64(a, q, &t.fwd);
                    } else if REDUCE {
                        avx2::forward_reduced(a, q, &self.fwd, &self.fwd_shoup);
                    } else {
                        avx2::forward_lazy(a, q, &self.fwd, &self.fwd_shoup);
                    }
                    true
                },
                // SAFETY: `set_backend`/`detect` only choose `Avx512` when the CPU has
                // AVX-512F/DQ; n >= 16 and q < 2^62 (plan invariants); the tables have n
                // entries.
                NttBackend::Avx512 => unsafe {
                    if REDUCE {
                        avx512::wide::forward_reduced(a, q, &self.fwd, &self.fwd_shoup);
                    } else {
                        avx512::wide::forward_lazy(a, q, &self.fwd, &self.fwd_shoup);
                    }
                    true
                },
                // SAFETY: `Avx512Ifma` is only chosen when the CPU has IFMA and q < 2^50,
                // in which case the 52-bit tables exist.
                NttBackend::Avx512Ifma => unsafe {
                    let t = self.ifma.as_ref().expect("q < 2^50 has IFMA tables");
                    if REDUCE {
                        ifma::forward_reduced(a, q, &self.fwd, &t.fwd_shoup);
                    } else {
                        ifma::forward_lazy(a, q, &self.fwd, &t.fwd_shoup);
                    }
                    true
                },
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = a;
            false
        }
    }

    /// The inverse's last-stage constants with 64-bit Shoup companions.
    #[cfg(target_arch = "x86_64")]
    fn inv_last_64(&self) -> avx512::InvLast {
        avx512::InvLast {
            n_inv: self.n_inv,
            n_inv_s: self.n_inv_shoup,
            w: self.inv_last,
            ws: self.inv_last_shoup,
        }
    }

    /// Runs the SIMD inverse transform if the backend has one for this size; returns
    /// whether it did.
    #[inline]
    fn simd_inverse<const REDUCE: bool>(&self, a: &mut [u64]) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            if self.n < Self::MIN_SIMD_N {
                return false;
            }
            let q = self.modulus.value();
            match self.backend {
                NttBackend::Scalar => false,
                // SAFETY: as in `simd_forward`.
                NttBackend::Avx2 => unsafe {
                    let last = self.inv_last_64();
                    if let Some(t) = &self.f64 {
                        avx2_f64::inverse_f64(a, q, &t.inv, t.last);
                    } else if REDUCE {
                        avx2::inverse_reduced(a, q, &self.inv, &self.inv_shoup, &last);
                    } else {
                        avx2::inverse_lazy(a, q, &self.inv, &self.inv_shoup, &last);
                    }
                    true
                },
                // SAFETY: as in `simd_forward`.
                NttBackend::Avx512 => unsafe {
                    let last = self.inv_last_64();
                    if REDUCE {
                        avx512::wide::inverse_reduced(a, q, &self.inv, &self.inv_shoup, &last);
                    } else {
                        avx512::wide::inverse_lazy(a, q, &self.inv, &self.inv_shoup, &last);
                    }
                    true
                },
                // SAFETY: as in `simd_forward`.
                NttBackend::Avx512Ifma => unsafe {
                    let t = self.ifma.as_ref().expect("q < 2^50 has IFMA tables");
                    let last = avx512::InvLast {
                        n_inv: self.n_inv,
                        n_inv_s: t.n_inv_shoup,
                        w: self.inv_last,
                        ws: t.inv_last_shoup,
                    };
                    if REDUCE {
                        ifma::inverse_reduced(a, q, &self.inv, &t.inv_shoup, &last);
                    } else {
                        ifma::inverse_lazy(a, q, &self.inv, &t.inv_shoup, &last);
                    }
                    true
                },
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = a;
            false
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
            *x = self
                .modulus
                .mul_shoup_lazy(*x, self.n_inv, self.n_inv_shoup);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::primes::PrimeGenerator;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

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
                    let mut c: Vec<u64> = fa
                        .iter()
                        .zip(&fb)
                        .map(|(&x, &y)| plan.modulus.mul(x, y))
                        .collect();
                    plan.inverse(&mut c);
                    assert_eq!(
                        c,
                        crate::math::negacyclic_oracle(&a, &b, plan.modulus.value())
                    );
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

    /// The SIMD backends this CPU runs for the plan's modulus (empty without AVX2, or
    /// under `HEKATE_SIMD=scalar`).
    fn simd_backends(plan: &NttPlan) -> Vec<NttBackend> {
        NttBackend::ALL
            .into_iter()
            .filter(|&b| b != NttBackend::Scalar && b.supports(plan.modulus()))
            .collect()
    }

    /// Checks every SIMD backend against the scalar path on random and extreme inputs.
    fn check_backends_against_scalar(plan: &NttPlan, rng: &mut ChaCha8Rng) {
        let (n, q) = (plan.n(), plan.modulus().value());
        let mut scalar = plan.clone();
        scalar.set_backend(NttBackend::Scalar).unwrap();
        let random: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
        let random_lazy: Vec<u64> = (0..n).map(|_| rng.next_u64() % (2 * q)).collect();
        let inputs = [
            (random.clone(), random_lazy),
            // Extremes stress the lazy bounds.
            (vec![q - 1; n], vec![2 * q - 1; n]),
        ];
        for backend in simd_backends(plan) {
            let mut simd = plan.clone();
            simd.set_backend(backend).unwrap();
            assert_eq!(simd.backend(), backend);
            let ctx = format!("{backend:?} n={n} q={q}");
            for (reduced, lazy) in &inputs {
                // Reduced forward / inverse: bit-identical, and a roundtrip.
                let (mut s, mut v) = (reduced.clone(), reduced.clone());
                scalar.forward(&mut s);
                simd.forward(&mut v);
                assert_eq!(v, s, "forward {ctx}");
                simd.inverse(&mut v);
                assert_eq!(&v, reduced, "roundtrip {ctx}");
                let mut s2 = s.clone();
                scalar.inverse(&mut s2);
                assert_eq!(&s2, reduced, "scalar roundtrip {ctx}");
                // Inverse on arbitrary reduced evaluations.
                let (mut s, mut v) = (reduced.clone(), reduced.clone());
                scalar.inverse(&mut s);
                simd.inverse(&mut v);
                assert_eq!(v, s, "inverse {ctx}");
                // Lazy variants: in [0, 2q), congruent to the scalar results.
                let (mut s, mut v) = (lazy.clone(), lazy.clone());
                scalar.forward_lazy(&mut s);
                simd.forward_lazy(&mut v);
                assert!(v.iter().all(|&x| x < 2 * q), "forward_lazy range {ctx}");
                if backend == NttBackend::Avx512 || (backend == NttBackend::Avx2 && q >= F64_MAX_Q)
                {
                    // Same Shoup arithmetic as the scalar path: bit-identical.
                    assert_eq!(v, s, "forward_lazy {ctx}");
                } else {
                    assert!(
                        v.iter().zip(&s).all(|(x, y)| x % q == y % q),
                        "fwd_lazy {ctx}"
                    );
                }
                let (mut s, mut v) = (lazy.clone(), lazy.clone());
                scalar.inverse_lazy(&mut s);
                simd.inverse_lazy(&mut v);
                assert!(v.iter().all(|&x| x < 2 * q), "inverse_lazy range {ctx}");
                assert!(
                    v.iter().zip(&s).all(|(x, y)| x % q == y % q),
                    "inv_lazy {ctx}"
                );
                // Lazy roundtrip.
                simd.forward_lazy(&mut v);
                assert!(
                    v.iter().zip(lazy).all(|(x, y)| x % q == y % q),
                    "lazy rt {ctx}"
                );
            }
        }
    }

    /// The AVX2 integer arithmetic where the plan runs the `f64` one (`q < 2^50`): called
    /// directly, against the scalar path.
    #[cfg(target_arch = "x86_64")]
    fn check_avx2_integer_lanes(plan: &NttPlan, rng: &mut ChaCha8Rng) {
        let (n, q) = (plan.n(), plan.modulus().value());
        if !NttBackend::Avx2.supports(plan.modulus()) || n < NttPlan::MIN_SIMD_N {
            return;
        }
        let mut scalar = plan.clone();
        scalar.set_backend(NttBackend::Scalar).unwrap();
        let last = plan.inv_last_64();
        let ctx = format!("integer AVX2 n={n} q={q}");
        for (reduced, lazy) in [
            (
                (0..n).map(|_| rng.next_u64() % q).collect::<Vec<_>>(),
                (0..n).map(|_| rng.next_u64() % (2 * q)).collect::<Vec<_>>(),
            ),
            (vec![q - 1; n], vec![2 * q - 1; n]),
        ] {
            let (mut s, mut v) = (reduced.clone(), reduced.clone());
            scalar.forward(&mut s);
            // SAFETY: AVX2 and FMA are present (`supports`), n >= 16, q < 2^62, the
            // tables are the plan's.
            unsafe { avx2::forward_reduced(&mut v, q, &plan.fwd, &plan.fwd_shoup) };
            assert_eq!(v, s, "forward {ctx}");
            let (mut s, mut v) = (reduced.clone(), reduced.clone());
            scalar.inverse(&mut s);
            // SAFETY: as above.
            unsafe { avx2::inverse_reduced(&mut v, q, &plan.inv, &plan.inv_shoup, &last) };
            assert_eq!(v, s, "inverse {ctx}");
            let (mut s, mut v) = (lazy.clone(), lazy.clone());
            scalar.forward_lazy(&mut s);
            // SAFETY: as above.
            unsafe { avx2::forward_lazy(&mut v, q, &plan.fwd, &plan.fwd_shoup) };
            assert_eq!(v, s, "forward_lazy {ctx}");
            let (mut s, mut v) = (lazy.clone(), lazy.clone());
            scalar.inverse_lazy(&mut s);
            // SAFETY: as above.
            unsafe { avx2::inverse_lazy(&mut v, q, &plan.inv, &plan.inv_shoup, &last) };
            assert!(v.iter().all(|&x| x < 2 * q), "inverse_lazy range {ctx}");
            assert!(
                v.iter().zip(&s).all(|(x, y)| x % q == y % q),
                "inv_lazy {ctx}"
            );
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx2_integer_lanes_match_scalar_below_2_to_50() {
        let mut rng = ChaCha8Rng::seed_from_u64(2050);
        for log_n in 4..=13u32 {
            let n = 1usize << log_n;
            for bits in [30u32, 36, 49, 50] {
                let q = PrimeGenerator::new(n).unwrap().next_prime(bits).unwrap();
                check_avx2_integer_lanes(&NttPlan::new(n, q).unwrap(), &mut rng);
            }
        }
    }

    #[test]
    fn simd_backends_match_scalar_for_all_sizes_and_prime_sizes() {
        let mut rng = ChaCha8Rng::seed_from_u64(2024);
        for log_n in 1..=17u32 {
            let n = 1usize << log_n;
            for bits in [20u32, 30, 36, 40, 45, 49, 50, 51, 55, 60, 61] {
                if 2 * n as u64 >= 1 << (bits - 1) {
                    continue;
                }
                // The largest `bits`-bit prime = 1 mod 2N: for 50 bits, the IFMA edge.
                let q = PrimeGenerator::new(n).unwrap().next_prime(bits).unwrap();
                check_backends_against_scalar(&NttPlan::new(n, q).unwrap(), &mut rng);
            }
        }
    }

    /// The plan's largest primes (62 bits, beyond `PrimeGenerator`'s range): the lazy
    /// values reach `4q`, close to `2^64`.
    #[test]
    fn simd_backends_with_62_bit_primes() {
        let mut rng = ChaCha8Rng::seed_from_u64(62);
        for log_n in [4u32, 5, 6, 9, 12, 13, 16] {
            let n = 1u64 << log_n;
            let mut q = (1u64 << 62) - 2 * n + 1;
            while !is_prime(q) {
                q -= 2 * n;
            }
            check_backends_against_scalar(&NttPlan::new(n as usize, q).unwrap(), &mut rng);
        }
    }

    #[test]
    fn simd_backends_at_the_ifma_edge() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        // Several of the largest primes below 2^50, and the smallest above, at N = 2^16.
        let n = 1 << 16;
        let mut gen = PrimeGenerator::new(n).unwrap();
        for q in gen.primes(50, 3).unwrap() {
            assert!(q < IFMA_MAX_Q);
            let plan = NttPlan::new(n, q).unwrap();
            if Isa::detect() == Isa::Avx512Ifma {
                assert_eq!(plan.backend(), NttBackend::Avx512Ifma);
            }
            check_backends_against_scalar(&plan, &mut rng);
        }
        let mut q = IFMA_MAX_Q + 1;
        while !is_prime(q) {
            q += 2 * n as u64;
        }
        let plan = NttPlan::new(n, q).unwrap();
        assert!(!NttBackend::Avx512Ifma.supports(plan.modulus()));
        check_backends_against_scalar(&plan, &mut rng);
        // The prime tfhe-ntt 0.7.1 mis-transforms on IFMA CPUs, at every size it allows.
        let p = 1_671_981_167_411_201u64;
        for log_n in [4u32, 10, 16] {
            check_backends_against_scalar(&NttPlan::new(1 << log_n, p).unwrap(), &mut rng);
        }
    }

    #[test]
    fn backend_selection() {
        for bits in [30u32, 49, 50, 51, 61] {
            let q = PrimeGenerator::new(1024).unwrap().next_prime(bits).unwrap();
            let mut plan = NttPlan::new(1024, q).unwrap();
            let expected = NttBackend::detect(plan.modulus());
            assert_eq!(plan.backend(), expected);
            let want = match Isa::detect() {
                Isa::Avx512Ifma if q < IFMA_MAX_Q => NttBackend::Avx512Ifma,
                Isa::Avx512Ifma | Isa::Avx512 => NttBackend::Avx512,
                Isa::Avx2 => NttBackend::Avx2,
                Isa::Scalar => NttBackend::Scalar,
            };
            assert_eq!(expected, want);
            for b in NttBackend::ALL {
                assert_eq!(
                    plan.clone().set_backend(b).is_ok(),
                    b.isa() <= Isa::detect() && (b != NttBackend::Avx512Ifma || q < IFMA_MAX_Q),
                    "{b:?}"
                );
            }
            if q >= IFMA_MAX_Q {
                assert!(plan.set_backend(NttBackend::Avx512Ifma).is_err());
            }
            plan.set_backend(NttBackend::Scalar).unwrap();
            assert_eq!(plan.backend(), NttBackend::Scalar);
        }
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
