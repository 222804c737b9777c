//! Word arithmetic, primes, NTT, complex FFTs (CKKS slots; negacyclic products over `f64`),
//! RNS bases and samplers.
//!
//! Nothing here knows about polynomials or schemes: it is the arithmetic the `ring` layer
//! is made of.

pub mod fft;
pub mod fourier;
pub mod kernels;
pub mod modulus;
pub mod ntt;
pub mod primes;
pub mod rns;
pub mod sample;
#[cfg(target_arch = "x86_64")]
pub(crate) mod simd;

pub use modulus::Modulus;
pub use ntt::{NttBackend, NttPlan};
pub use primes::PrimeGenerator;
