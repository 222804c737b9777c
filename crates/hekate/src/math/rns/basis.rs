//! [`RnsBasis`]: a basis of distinct word primes.

use crate::math::modulus::Modulus;
use crate::{Error, Result};

/// An RNS basis: distinct primes below `2^62`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RnsBasis {
    pub(super) moduli: Vec<Modulus>,
}

impl RnsBasis {
    /// A basis from distinct primes (validated: distinct, in `[2, 2^62)`).
    pub fn new(primes: &[u64]) -> Result<Self> {
        for (i, &p) in primes.iter().enumerate() {
            if !(2..1u64 << 62).contains(&p) {
                return Err(Error::InvalidParameters(format!(
                    "RNS modulus {p} is outside [2, 2^62)"
                )));
            }
            if primes[..i].contains(&p) {
                return Err(Error::InvalidParameters(format!(
                    "RNS modulus {p} appears twice; RNS primes must be distinct"
                )));
            }
        }
        Ok(RnsBasis {
            moduli: primes.iter().map(|&p| Modulus::new(p)).collect(),
        })
    }

    /// A basis from already-built moduli (distinctness is the caller's invariant).
    pub fn from_moduli(moduli: Vec<Modulus>) -> Self {
        debug_assert!(moduli
            .iter()
            .enumerate()
            .all(|(i, m)| !moduli[..i].contains(m)));
        RnsBasis { moduli }
    }

    /// The moduli, in order.
    pub fn moduli(&self) -> &[Modulus] {
        &self.moduli
    }

    /// Number of primes.
    pub fn len(&self) -> usize {
        self.moduli.len()
    }

    /// Whether the basis has no primes.
    pub fn is_empty(&self) -> bool {
        self.moduli.is_empty()
    }

    /// `log2 Q`.
    pub fn log_product(&self) -> f64 {
        self.moduli.iter().map(|m| (m.value() as f64).log2()).sum()
    }

    /// `Q mod m` for another modulus `m`.
    pub fn product_mod(&self, m: &Modulus) -> u64 {
        self.moduli
            .iter()
            .fold(1 % m.value(), |acc, q| m.mul(acc, m.reduce(q.value())))
    }

    /// The sub-basis of the primes at `range`.
    pub fn slice(&self, range: std::ops::Range<usize>) -> RnsBasis {
        RnsBasis {
            moduli: self.moduli[range].to_vec(),
        }
    }
}
