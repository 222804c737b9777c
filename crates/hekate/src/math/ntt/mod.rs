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
//! * Both 64-bit-lane backends run the *reduced* transforms of `q < 2^61` (every prime of
//!   the bootstrapping chains above `2^50`) with a loose Shoup product: the quotient from
//!   three of the four partial products, short of the exact one by at most 2, so products
//!   land in `[0, 4q)` and every butterfly bound doubles (`8q < 2^64`). One `vpmuludq` and
//!   four other operations fewer per butterfly, the same reduced words (the lazy
//!   transforms, whose words the scalar path fixes, keep the exact product); measured in
//!   BENCHMARKS.md, "Loose Shoup quotient".
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
use super::memory::AlignedWords;
use super::modulus::Modulus;
use super::primes::{is_prime, primitive_root_of_unity};
use crate::{Error, Result};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx2_f64;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod counter;
#[cfg(target_arch = "x86_64")]
mod ifma;
mod scalar;

pub use counter::{transform_count, TransformCount};

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

/// Moduli below this value run the reduced transforms of the 64-bit-lane backends with the
/// loose Shoup product (`[0, 4q)`, forward values below `8q`, which must fit 64 bits).
#[cfg(target_arch = "x86_64")]
const LOOSE_MAX_Q: u64 = 1 << 61;

/// Moduli below this value run the AVX2 backend in `f64` arithmetic (`avx2_f64.rs`).
#[cfg(target_arch = "x86_64")]
use avx2_f64::F64_MAX_Q;
#[cfg(not(target_arch = "x86_64"))]
const F64_MAX_Q: u64 = 1 << 50;

/// Twiddles with 52-bit Shoup companions for the IFMA backend.
#[derive(Clone, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct IfmaTables {
    fwd_shoup: AlignedWords,
    inv_shoup: AlignedWords,
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
    /// (Every table 64-byte aligned, as the transforms read them a vector at a time.)
    fwd: AlignedWords,
    fwd_shoup: AlignedWords,
    /// ψ^-brv(k) for k in 0..n, and Shoup companions (inverse, Gentleman-Sande order).
    inv: AlignedWords,
    inv_shoup: AlignedWords,
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

/// The tables of an [`NttPlan`] in the order its butterflies read them (see
/// [`NttPlan::twiddles`]): what the GPU backend uploads to run the same transform.
#[derive(Clone, Copy, Debug)]
pub struct NttTwiddles<'a> {
    /// `ψ^brv(k)`, `k < N` (forward, Cooley-Tukey: group `g` of a stage with `m` groups
    /// reads index `m + g`).
    pub fwd: &'a [u64],
    /// Shoup companions `floor(w 2^64 / q)` of `fwd`.
    pub fwd_shoup: &'a [u64],
    /// `ψ^-brv(k)` (inverse, Gentleman-Sande: group `g` of a stage with `h` groups reads
    /// index `h + g`).
    pub inv: &'a [u64],
    /// Shoup companions of `inv`.
    pub inv_shoup: &'a [u64],
    /// `N^-1 mod q`.
    pub n_inv: u64,
    /// Its Shoup companion.
    pub n_inv_shoup: u64,
    /// `ψ^-brv(1) · N^-1`, the inverse's last twiddle with `N^-1` folded in.
    pub inv_last: u64,
    /// Its Shoup companion.
    pub inv_last_shoup: u64,
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
        let mut fwd = AlignedWords::zeroed(n);
        let mut inv = AlignedWords::zeroed(n);
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

    /// The twiddle tables with their 64-bit Shoup companions (those of the scalar and
    /// `Avx512` backends).
    pub fn twiddles(&self) -> NttTwiddles<'_> {
        NttTwiddles {
            fwd: &self.fwd,
            fwd_shoup: &self.fwd_shoup,
            inv: &self.inv,
            inv_shoup: &self.inv_shoup,
            n_inv: self.n_inv,
            n_inv_shoup: self.n_inv_shoup,
            inv_last: self.inv_last,
            inv_last_shoup: self.inv_last_shoup,
        }
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
        counter::count_forward();
        if !self.simd_forward::<true>(a) {
            self.forward_scalar::<true>(a);
        }
    }

    /// In-place forward transform, `[0, 2q)` to `[0, 2q)`.
    pub fn forward_lazy(&self, a: &mut [u64]) {
        assert_eq!(a.len(), self.n, "NTT input length");
        counter::count_forward();
        if !self.simd_forward::<false>(a) {
            self.forward_scalar::<false>(a);
        }
    }

    /// In-place inverse transform, `[0, q)` to `[0, q)`, bit-reversed to natural order.
    pub fn inverse(&self, a: &mut [u64]) {
        assert_eq!(a.len(), self.n, "NTT input length");
        counter::count_inverse();
        if !self.simd_inverse::<true>(a) {
            self.inverse_scalar::<true>(a);
        }
    }

    /// In-place inverse transform, `[0, 2q)` to `[0, 2q)`.
    pub fn inverse_lazy(&self, a: &mut [u64]) {
        assert_eq!(a.len(), self.n, "NTT input length");
        counter::count_inverse();
        if !self.simd_inverse::<false>(a) {
            self.inverse_scalar::<false>(a);
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
                // tables have n entries, and the f64 ones exist only for q < 2^50.
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
}

#[cfg(test)]
mod tests;
