//! BFV and BGV parameters from `(t, depth, security)`: the chain sized by the noise model
//! of [`crate::rlwe::integer::noise`], the smallest ring degree whose `log2(QP)` passes
//! the security table, and the fewest key-switching digits that fit under it.
//!
//! * **BGV**: the noise after a modulus switch sits at the rounding floor
//!   `σ_f = t sqrt((1 + N V_s)/12)`; a product of two such ciphertexts has
//!   `σ_p = sqrt(2N) (σ_f^2 + t^2/12)` (a square, plus relinearization); each switching prime is
//!   `log2(σ_p / σ_f) + 3` bits, so one switch brings a product back to the floor (two
//!   primes per level when that exceeds 60 bits, for large `t`); `q_0` holds
//!   `t/2 + z · 2 σ_f` with [`MARGIN_BITS`] to spare.
//! * **BFV**: the noise grows by `sqrt(2N (t^2/12)(1 + N V_s))` per product; `Q` (60-bit
//!   primes) holds `t/2 + z σ_D` after `depth` products with [`MARGIN_BITS`] to spare.
//!
//! Key switching is hybrid with `P` covering the largest digit; `dnum` is the smallest
//! that passes the security check.
//!
//! ```
//! use hekate::params::integer::for_depth;
//! use hekate::params::SecurityLevel;
//! use hekate::rlwe::integer::Scheme;
//! let p = for_depth(Scheme::Bgv, 65537, 10, SecurityLevel::Bits128)?;
//! assert_eq!(p.log_n, 14);
//! # Ok::<(), hekate::Error>(())
//! ```

use crate::params::security::{max_log_qp, SecurityLevel};
use crate::rlwe::integer::noise::tail_factor;
use crate::rlwe::integer::{IntegerParameters, Scheme};
use crate::rlwe::keys::NOISE_SIGMA;
use crate::{Error, Result};

/// Bits of slack above the estimated noise in the last modulus (room for additions and
/// plaintext products between the multiplications).
pub const MARGIN_BITS: f64 = 6.0;

/// Bits by which a BGV switching prime exceeds `σ_p / σ_f` (see the module documentation).
pub const SWITCH_MARGIN_BITS: f64 = 3.0;

/// A chain chosen by [`for_depth`].
#[derive(Clone, Debug, PartialEq)]
pub struct IntegerChain {
    /// The scheme.
    pub scheme: Scheme,
    /// The plaintext modulus.
    pub t: u64,
    /// The multiplicative depth the chain is sized for.
    pub depth: usize,
    /// `log2 N`.
    pub log_n: u32,
    /// Bit sizes of the chain primes.
    pub log_q: Vec<u32>,
    /// Bit sizes of the special primes.
    pub log_p: Vec<u32>,
    /// Key-switching digits.
    pub dnum: usize,
    /// The security level it passes.
    pub security: SecurityLevel,
}

impl IntegerChain {
    /// `Σ log q_i + Σ log p_j`.
    pub fn log_qp(&self) -> u32 {
        self.log_q.iter().chain(&self.log_p).sum()
    }

    /// The parameter builder (hybrid key switching; change what you like before
    /// `.build()`).
    pub fn parameters(&self) -> IntegerParameters {
        IntegerParameters::new(self.scheme, self.log_n)
            .plaintext_modulus(self.t)
            .log_q(&self.log_q)
            .log_p(&self.log_p)
            .dnum(self.dnum)
            .security(self.security)
    }
}

/// The chain primes' bit sizes for `scheme` at `N = 2^log_n` (ternary secret).
pub fn chain_bits(scheme: Scheme, t: u64, depth: usize, log_n: u32) -> Vec<u32> {
    let n = (1u64 << log_n) as f64;
    let tf = t as f64;
    let vs = 2.0 / 3.0;
    let vm = tf * tf / 12.0;
    let floor = tf * tf * (1.0 + n * vs) / 12.0;
    let z = tail_factor(1 << log_n);
    let ks = tf * tf * (n * NOISE_SIGMA * NOISE_SIGMA / 12.0 * 8.0 + (1.0 + n * vs) / 12.0);
    let need = |var: f64| ((tf / 2.0 + z * var.sqrt()).log2() + 1.0 + MARGIN_BITS).ceil();
    let split = |bits: f64| -> Vec<u32> {
        let k = (bits / 60.0).ceil().max(1.0) as u32;
        let each = (bits / k as f64).ceil().clamp(20.0, 60.0) as u32;
        vec![each; k as usize]
    };
    match scheme {
        Scheme::Bgv => {
            // A square (the worst case: 2N, not N) of a switched ciphertext, brought to an
            // eighth of the floor by the switch, so the noise does not creep up level by
            // level (a switch leaves `sqrt(σ_f^2 + (σ_p/q)^2)`, and the next square doubles
            // any excess in log scale).
            let product = 2.0 * n * (floor + vm) * (floor + vm) + ks;
            let switch = (0.5 * (product / floor).log2() + SWITCH_MARGIN_BITS).ceil();
            let mut q = split(need(4.0 * floor));
            for _ in 0..depth {
                q.extend(split(switch));
            }
            q
        }
        Scheme::Bfv => {
            let mut v = floor;
            for _ in 0..depth {
                v = 2.0 * n * (vm + tf * tf * n * vs / 12.0) * v + floor + ks;
            }
            let bits = need(v);
            vec![60; (bits / 60.0).ceil() as usize]
        }
    }
}

/// The smallest ring degree (from `2^11`) and fewest digits that carry `depth` products of
/// `scheme` mod `t` at `security`; errors if even `N = 2^16` cannot (or for
/// [`SecurityLevel::NotChecked`], which has no table to size against: pick `log_n`).
pub fn for_depth(
    scheme: Scheme,
    t: u64,
    depth: usize,
    security: SecurityLevel,
) -> Result<IntegerChain> {
    for log_n in 11..=16 {
        let Some(bound) = max_log_qp(1 << log_n, security) else {
            return Err(Error::InvalidParameters(
                "for_depth sizes N by the security table: choose a security level".into(),
            ));
        };
        if let Some(chain) = chain_at(scheme, t, depth, log_n, security, bound) {
            return Ok(chain);
        }
    }
    Err(Error::InvalidParameters(format!(
        "{} with t = {t} at depth {depth} needs more than N = 2^16 at {security:?}: lower \
         the depth or t",
        scheme.name()
    )))
}

/// The chain at `N = 2^log_n` with the fewest digits whose `log2(QP)` is at most `bound`.
fn chain_at(
    scheme: Scheme,
    t: u64,
    depth: usize,
    log_n: u32,
    security: SecurityLevel,
    bound: u32,
) -> Option<IntegerChain> {
    let q = chain_bits(scheme, t, depth, log_n);
    let log_q: u32 = q.iter().sum();
    for dnum in 1..=q.len() {
        let alpha = q.len().div_ceil(dnum);
        let mut sorted = q.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let digit: u32 = sorted[..alpha].iter().sum();
        let k = digit.div_ceil(60);
        let each = (digit.div_ceil(k) + 1).clamp(20, 61);
        let p = vec![each; k as usize];
        if log_q + p.iter().sum::<u32>() <= bound {
            return Some(IntegerChain {
                scheme,
                t,
                depth,
                log_n,
                log_q: q,
                log_p: p,
                dnum,
                security,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 128-bit sets the issue names: BGV at N = 2^14, depth 10, t = 65537 (OpenFHE
    /// refuses it; Lattigo ships one), and BFV at depth 10 within N = 2^15.
    #[test]
    fn depth_ten_sets() {
        let bgv = for_depth(Scheme::Bgv, 65537, 10, SecurityLevel::Bits128).unwrap();
        assert_eq!(bgv.log_n, 14, "{bgv:?}");
        assert_eq!(bgv.log_q.len(), 11);
        assert!(bgv.log_qp() <= 438);
        let bfv = for_depth(Scheme::Bfv, 65537, 10, SecurityLevel::Bits128).unwrap();
        assert!(bfv.log_n <= 15 && bfv.log_qp() <= 881, "{bfv:?}");
        assert!(for_depth(Scheme::Bfv, 65537, 10, SecurityLevel::NotChecked).is_err());
        assert!(for_depth(Scheme::Bgv, (1 << 60) + 33, 60, SecurityLevel::Bits128).is_err());
    }
}
