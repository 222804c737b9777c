//! A tiny deterministic generator for demo and benchmark inputs (not for keys: the library
//! draws key material and noise from the OS CSPRNG itself).

use num_complex::Complex64;

/// SplitMix64: fast, fixed-seed, good enough to make test messages.
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform real in `[-1, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// `n` uniform reals in `[-1, 1)`.
    pub fn reals(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.unit()).collect()
    }

    /// `n` complex numbers with real and imaginary parts uniform in `[-1, 1)`.
    pub fn complexes(&mut self, n: usize) -> Vec<Complex64> {
        (0..n)
            .map(|_| Complex64::new(self.unit(), self.unit()))
            .collect()
    }
}

/// Precision in bits, `-log2(max |got - want|)` over all slots (capped at 60 bits when the
/// results are exact to double precision).
pub fn precision_bits(got: &[Complex64], want: &[Complex64]) -> f64 {
    let max_err = got
        .iter()
        .zip(want)
        .map(|(g, w)| (g - w).norm())
        .fold(0.0f64, f64::max);
    if max_err == 0.0 {
        60.0
    } else {
        (-max_err.log2()).min(60.0)
    }
}
