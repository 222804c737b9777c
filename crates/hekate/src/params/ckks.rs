//! Named CKKS parameter sets for the common shapes, one per ring degree `N = 2^12 .. 2^16`
//! (the shapes of Lattigo's `example_parameters.go`, named the same way: `PN{log N}QP{bits}`
//! with `bits` the sum of the prime sizes of `Q` and `P`).
//!
//! Each is 128-bit secure by the HomomorphicEncryption.org table ([`super::security`]: the
//! context builder checks it, and so does a test), with a dense ternary secret and
//! `σ = 3.2`. A preset is data; build a context with
//! [`CkksContext::from_preset`](crate::ckks::CkksContext::from_preset), or start a
//! [`CkksParameters`](crate::ckks::CkksParameters) builder from it with
//! [`CkksParameters::from_preset`](crate::ckks::CkksParameters::from_preset) to change
//! what the preset leaves open (key-switching engine, scale):
//!
//! ```
//! use hekate::prelude::*;
//! use hekate::params::ckks::PN13QP218;
//! let ctx = CkksContext::from_preset(&PN13QP218)?;
//! assert_eq!((ctx.n(), ctx.max_level()), (1 << 13, PN13QP218.depth()));
//! # Ok::<(), hekate::Error>(())
//! ```
//!
//! *Depth* is the number of multiplications with rescaling a fresh ciphertext goes
//! through before it reaches `q_0`: one per chain prime above `q_0`. *Precision* is that
//! of one multiplication, relinearization and rescale of two fresh public-key encryptions
//! of uniform values in `[-1, 1] + i[-1, 1]`, measured by the test
//! `precision_of_one_product` (`-log2` of the largest error over every slot, fixed
//! seed).

/// A named CKKS parameter set: the ring degree, the bit sizes of the chain and special
/// primes, the number of key-switching digits and the default scale. The primes
/// themselves are the largest NTT-friendly primes of those sizes (generated when the
/// context is built), so every `log2` below is an upper bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CkksPreset {
    /// The name (`PN{log N}QP{bits}`).
    pub name: &'static str,
    /// `log2 N`.
    pub log_n: u32,
    /// Bit sizes of the chain primes `q_0, ..., q_L`.
    pub log_q: &'static [u32],
    /// Bit sizes of the special primes `P`.
    pub log_p: &'static [u32],
    /// `log2` of the default scale `Δ`.
    pub log_scale: u32,
    /// Number of key-switching digits `dnum` (β in seed 003): the chain primes in groups
    /// of `ceil((L + 1) / dnum)`, each covered by `P`.
    pub dnum: usize,
}

impl CkksPreset {
    /// The multiplicative depth `L`: the number of rescales the chain allows.
    pub const fn depth(&self) -> usize {
        self.log_q.len() - 1
    }

    /// `Σ log q_i + Σ log p_j` by the prime sizes: an upper bound on `log2(QP)`, the
    /// figure the security table limits.
    pub fn log_qp(&self) -> u32 {
        self.log_q.iter().chain(self.log_p).sum()
    }

    /// The preset called `name` (case-insensitive).
    pub fn by_name(name: &str) -> crate::Result<&'static CkksPreset> {
        PRESETS
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
            .copied()
            .ok_or_else(|| {
                crate::Error::InvalidParameters(format!(
                    "no CKKS preset named {name}; known: {}",
                    PRESETS.map(|p| p.name).join(", ")
                ))
            })
    }
}

/// `N = 2^12`, `log2(QP) <= 107` (the table allows 109): `q_0` 37 bits, one 32-bit
/// prime, one 38-bit special prime, `Δ = 2^32`, `dnum = 2`. Depth 1; 19.4 bits of
/// precision after the product (measured).
pub const PN12QP109: CkksPreset = CkksPreset {
    name: "PN12QP109",
    log_n: 12,
    log_q: &[37, 32],
    log_p: &[38],
    log_scale: 32,
    dnum: 2,
};

/// `N = 2^13`, `log2(QP) <= 218` (the table's bound): `q_0` 33 bits, five 30-bit primes,
/// one 35-bit special prime, `Δ = 2^30`, `dnum = 6`. Depth 5; 16.2 bits of precision
/// after the first product (measured).
pub const PN13QP218: CkksPreset = CkksPreset {
    name: "PN13QP218",
    log_n: 13,
    log_q: &[33, 30, 30, 30, 30, 30],
    log_p: &[35],
    log_scale: 30,
    dnum: 6,
};

/// `N = 2^14`, `log2(QP) <= 437` (the table allows 438): `q_0` 45 bits, nine 34-bit
/// primes, two 43-bit special primes, `Δ = 2^34`, `dnum = 5`. Depth 9; 19.0 bits of
/// precision after the first product (measured).
pub const PN14QP438: CkksPreset = CkksPreset {
    name: "PN14QP438",
    log_n: 14,
    log_q: &[45, 34, 34, 34, 34, 34, 34, 34, 34, 34],
    log_p: &[43, 43],
    log_scale: 34,
    dnum: 5,
};

/// `N = 2^15`, `log2(QP) <= 880` (the table allows 881): `q_0` 50 bits, seventeen 40-bit
/// primes, three 50-bit special primes, `Δ = 2^40`, `dnum = 6`. Depth 17; 23.9 bits of
/// precision after the first product (measured).
pub const PN15QP880: CkksPreset = CkksPreset {
    name: "PN15QP880",
    log_n: 15,
    log_q: &[
        50, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40,
    ],
    log_p: &[50, 50, 50],
    log_scale: 40,
    dnum: 6,
};

/// `N = 2^16`, `log2(QP) <= 1740` (the table allows 1747; Lattigo's PN16QP1761 is above
/// this table's bound): `q_0` 55 bits, thirty-three 45-bit primes, four 50-bit special
/// primes, `Δ = 2^45`, `dnum = 9`. Depth 33; 27.8 bits of precision after the
/// first product (measured by an `--ignored` test: key generation takes seconds).
pub const PN16QP1747: CkksPreset = CkksPreset {
    name: "PN16QP1747",
    log_n: 16,
    log_q: &[
        55, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45,
        45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45,
    ],
    log_p: &[50, 50, 50, 50],
    log_scale: 45,
    dnum: 9,
};

/// Every CKKS preset, by ring degree.
pub const PRESETS: [&CkksPreset; 5] = [&PN12QP109, &PN13QP218, &PN14QP438, &PN15QP880, &PN16QP1747];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ckks::{CkksContext, Evaluator, GaloisKeys};
    use crate::params::security::{self, SecurityLevel};
    use num_complex::Complex64;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    /// Every preset builds under the default 128-bit check, its real `log2(QP)` is within
    /// the table's bound, and the built context has the preset's shape.
    #[test]
    fn presets_are_128_bit_and_have_their_shape() {
        for p in PRESETS {
            let bound = security::max_log_qp(1 << p.log_n, SecurityLevel::Bits128).unwrap();
            assert!(p.log_qp() <= bound, "{}: {} > {bound}", p.name, p.log_qp());
            let ctx = CkksContext::from_preset(p).unwrap();
            assert_eq!(ctx.security(), SecurityLevel::Bits128, "{}", p.name);
            assert!(ctx.log_qp() <= f64::from(bound), "{}", p.name);
            assert!(ctx.log_qp() > f64::from(p.log_qp()) - 1.0, "{}", p.name);
            assert_eq!(ctx.n(), 1 << p.log_n);
            assert_eq!(ctx.max_level(), p.depth(), "{}", p.name);
            assert_eq!(ctx.dnum(), p.dnum, "{}", p.name);
            assert_eq!(ctx.p_primes().len(), p.log_p.len(), "{}", p.name);
            assert_eq!(ctx.default_scale().to_f64(), 2f64.powi(p.log_scale as i32));
            assert!(
                p.name.starts_with(&format!("PN{}QP", p.log_n)),
                "{}",
                p.name
            );
            assert_eq!(CkksPreset::by_name(&p.name.to_lowercase()).unwrap(), p);
        }
        let e = CkksPreset::by_name("PN17").unwrap_err().to_string();
        assert!(e.contains("PN16QP1747"), "{e}");
    }

    /// `-log2` of the largest error of `x · y` (relinearized, rescaled) over every slot,
    /// for fresh public-key encryptions of uniform `x, y` in `[-1, 1] + i[-1, 1]`.
    fn product_precision(p: &CkksPreset, seed: u64) -> f64 {
        let ctx = CkksContext::from_preset(p).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let sk = ctx.generate_secret_key_with(&mut rng);
        let pk = ctx.generate_public_key_with(&sk, &mut rng);
        let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
        let ev = Evaluator::new(ctx.clone(), Some(rlk), GaloisKeys::new());
        let mut unit = || (rng.next_u64() as f64 / u64::MAX as f64) * 2.0 - 1.0;
        let n = ctx.max_slots();
        let x: Vec<Complex64> = (0..n).map(|_| Complex64::new(unit(), unit())).collect();
        let y: Vec<Complex64> = (0..n).map(|_| Complex64::new(unit(), unit())).collect();
        let cx = ctx
            .encrypt_with(&ctx.encode(&x).unwrap(), &pk, &mut rng)
            .unwrap();
        let cy = ctx
            .encrypt_with(&ctx.encode(&y).unwrap(), &pk, &mut rng)
            .unwrap();
        let prod = ev.rescale(&ev.mul(&cx, &cy).unwrap()).unwrap();
        let got = ctx.decrypt_decode(&prod, &sk).unwrap();
        let max_err = x
            .iter()
            .zip(&y)
            .zip(&got)
            .map(|((a, b), g)| (a * b - g).norm())
            .fold(0.0, f64::max);
        -max_err.log2()
    }

    /// The precision the presets' documentation states, measured here at a fixed seed
    /// (19.4, 16.2, 19.0 and 23.9 bits at `N = 2^12 .. 2^15`; 27.8 at `N = 2^16`), with half a bit of slack.
    #[test]
    fn precision_of_one_product() {
        for (p, stated) in [
            (&PN12QP109, 19.4),
            (&PN13QP218, 16.2),
            (&PN14QP438, 19.0),
            (&PN15QP880, 23.9),
        ] {
            check_precision(p, stated);
        }
    }

    /// [`precision_of_one_product`] at `N = 2^16` (a few seconds of key generation).
    #[test]
    #[ignore = "N = 2^16 key generation; run with --ignored"]
    fn precision_of_one_product_n16() {
        check_precision(&PN16QP1747, 27.8);
    }

    fn check_precision(p: &CkksPreset, stated: f64) {
        let bits = product_precision(p, 15);
        eprintln!("{}: {bits:.2} bits", p.name);
        assert!(
            bits >= stated - 0.5,
            "{}: {bits:.2} bits < {stated}",
            p.name
        );
        // The error is that of the scale, not far below it either (a product that lost
        // its scale would give a few bits; a missing noise term, more than the scale).
        assert!(bits < f64::from(p.log_scale), "{}: {bits:.2} bits", p.name);
    }
}
