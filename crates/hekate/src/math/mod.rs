//! Word arithmetic, primes, NTT, complex FFTs (CKKS slots; negacyclic products over `f64`),
//! RNS bases and samplers.
//!
//! Nothing here knows about polynomials or schemes: it is the arithmetic the `ring` layer
//! is made of.

pub(crate) mod fft;
// The negacyclic f64 FFT of the FHEW products: hidden from the docs (the FHEW API reaches
// it through `fhew::FourierKeys`); to become `pub(crate)` once its rewrite has landed.
#[doc(hidden)]
pub mod fourier;
// The element-wise SIMD kernels: public (and hidden from the docs) only for the crate's
// kernel benchmark and the CLI; the stable entry point is the re-exported [`Isa`].
#[doc(hidden)]
pub mod kernels;
pub(crate) mod memory;
pub(crate) mod modulus;
pub(crate) mod ntt;
pub(crate) mod primes;
// RNS base conversion: public (and hidden from the docs) only for the crate's kernel
// benchmark; the rings use it through `RingContext`.
#[doc(hidden)]
pub mod rns;
pub mod sample;
#[cfg(target_arch = "x86_64")]
pub(crate) mod simd;

pub use kernels::Isa;
pub use modulus::Modulus;
pub use ntt::{transform_count, NttBackend, NttPlan, NttTwiddles, TransformCount};
pub use primes::{is_prime, PrimeGenerator};

/// One signed digit in base `2^log_base` (the gadget decomposition's step): returns
/// `s = x mod 2^log_base` in `[-2^log_base / 2, 2^log_base / 2)` and leaves
/// `(x - s) / 2^log_base` in `x`.
#[inline(always)]
pub(crate) fn signed_digit(x: &mut i64, log_base: u32) -> i64 {
    let r = *x & ((1i64 << log_base) - 1);
    let s = r - ((r & (1i64 << (log_base - 1))) << 1);
    *x = (*x - s) >> log_base;
    s
}

/// The schoolbook product in `Z_q[X]/(X^N + 1)` of residues `a`, `b` (in `[0, q)`), in
/// `i128`: the exact oracle of the NTT, FFT and gadget-product tests.
#[cfg(test)]
pub(crate) fn negacyclic_oracle(a: &[u64], b: &[u64], q: u64) -> Vec<u64> {
    let n = a.len();
    let mut c = vec![0i128; n];
    for i in 0..n {
        for j in 0..n {
            let p = a[i] as i128 * b[j] as i128;
            if i + j < n {
                c[i + j] += p;
            } else {
                c[i + j - n] -= p;
            }
        }
    }
    c.iter().map(|&x| x.rem_euclid(q as i128) as u64).collect()
}
