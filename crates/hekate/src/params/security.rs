//! The HomomorphicEncryption.org security table: the largest `log2(QP)` per ring degree.
//!
//! Entries are the classical-security bounds for 128, 192 and 256 bits from the
//! Homomorphic Encryption Security Standard (Albrecht et al., 2018, table for ring degrees
//! `N = 2^10 .. 2^15`), extended to `N = 2^16, 2^17` with the figures OpenFHE ships
//! (`lattice/stdlatticeparms.h`, `HEStd_ternary`, `HEStd_*_classic`).
//!
//! The bounds are for a **uniform ternary secret** (coefficients uniform in `{-1, 0, 1}`)
//! with error of standard deviation about 3.2. They also cover Gaussian ("error
//! distribution") secrets, whose standard bounds are equal or larger. They are *not* a
//! guarantee for sparse secrets (fixed small Hamming weight), which the standard does not
//! cover; OpenFHE applies the same table to those.
//!
//! `QP` is the full modulus a key lives under: the ciphertext modulus `Q` times the special
//! modulus `P` used by key switching.
//!
//! # Where the figures come from
//!
//! `N = 2^10 .. 2^15` are the standard's own figures and agree across the standard,
//! SEAL and OpenFHE. For `N = 2^16` older OpenFHE releases (`stdlatticeparms.cpp`) listed
//! 1772 / 1228 / 956, and later releases revised them down to 1747 / 1199 / 929 and added
//! `N = 2^17` at 3523 / 2411 / 1866. This table
//! uses the later, smaller, confirmed figures for both, i.e. the conservative choice.

use std::fmt;

use crate::{Error, Result};

/// The security level parameters are checked against.
///
/// [`SecurityLevel::NotChecked`] is an explicit opt-out for experiments and benchmarks
/// (tiny rings, oversized moduli); it is never the default. The default is
/// [`SecurityLevel::Bits128`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SecurityLevel {
    /// 128-bit classical security (the default).
    #[default]
    Bits128,
    /// 192-bit classical security.
    Bits192,
    /// 256-bit classical security.
    Bits256,
    /// No check at all: an explicit opt-out for experiments and benchmarks. Parameters
    /// built with it may be trivially breakable.
    NotChecked,
}

impl SecurityLevel {
    /// The security in bits, or `None` for [`SecurityLevel::NotChecked`].
    pub fn bits(self) -> Option<u32> {
        match self {
            SecurityLevel::Bits128 => Some(128),
            SecurityLevel::Bits192 => Some(192),
            SecurityLevel::Bits256 => Some(256),
            SecurityLevel::NotChecked => None,
        }
    }

    /// Whether this level is at least as strong as `min` ([`SecurityLevel::NotChecked`] is
    /// the weakest: it meets only itself).
    pub fn at_least(self, min: SecurityLevel) -> bool {
        self.bits().unwrap_or(0) >= min.bits().unwrap_or(0)
    }

    fn column(self) -> Option<usize> {
        match self {
            SecurityLevel::Bits128 => Some(0),
            SecurityLevel::Bits192 => Some(1),
            SecurityLevel::Bits256 => Some(2),
            SecurityLevel::NotChecked => None,
        }
    }
}

impl fmt::Display for SecurityLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.bits() {
            Some(b) => write!(f, "{b}-bit classical"),
            None => f.write_str("not checked"),
        }
    }
}

/// `(N, [max log2(QP) for 128, 192, 256 bits])`, uniform ternary secret, classical.
const TABLE: [(usize, [u32; 3]); 8] = [
    (1 << 10, [27, 19, 14]),
    (1 << 11, [54, 37, 29]),
    (1 << 12, [109, 75, 58]),
    (1 << 13, [218, 152, 118]),
    (1 << 14, [438, 305, 237]),
    (1 << 15, [881, 611, 476]),
    // OpenFHE's extension; older OpenFHE releases had 1772 / 1228 / 956 here.
    (1 << 16, [1747, 1199, 929]),
    (1 << 17, [3523, 2411, 1866]),
];

/// The largest `log2(QP)` allowed for ring degree `n` at `level`, from the table.
///
/// `None` if `n` is not one of the table's ring degrees (`2^10 .. 2^17`) or `level` is
/// [`SecurityLevel::NotChecked`]. [`check`] also accepts ring degrees beyond `2^17`.
pub fn max_log_qp(n: usize, level: SecurityLevel) -> Option<u32> {
    let col = level.column()?;
    TABLE
        .iter()
        .find(|&&(tn, _)| tn == n)
        .map(|&(_, bounds)| bounds[col])
}

/// The smallest ring degree of the table that allows `log2(QP) = log_qp` at `level`.
///
/// `None` if even `N = 2^17` does not, or `level` is [`SecurityLevel::NotChecked`].
pub fn min_ring_degree(log_qp: f64, level: SecurityLevel) -> Option<usize> {
    let col = level.column()?;
    TABLE
        .iter()
        .find(|&&(_, bounds)| log_qp <= bounds[col] as f64)
        .map(|&(n, _)| n)
}

/// Checks that ring degree `n` with a full modulus of `log2(QP) = log_qp` bits meets
/// `level`.
///
/// * [`SecurityLevel::NotChecked`] always passes.
/// * `n` must be a power of two (else `Error::InvalidParameters`).
/// * `n < 2^10` is below the table: `Error::Insecure`.
/// * `n > 2^17` is checked against the `2^17` bound, which is conservative (for a fixed
///   modulus, security grows with `n`).
/// * Otherwise `log_qp` must not exceed [`max_log_qp`]; if it does, `Error::Insecure` names
///   `N`, `log2(QP)`, the bound and the ways out.
pub fn check(n: usize, log_qp: f64, level: SecurityLevel) -> Result<()> {
    let Some(col) = level.column() else {
        return Ok(());
    };
    if !n.is_power_of_two() {
        return Err(Error::InvalidParameters(format!(
            "ring degree N = {n} is not a power of two"
        )));
    }
    if !log_qp.is_finite() || log_qp < 0.0 {
        return Err(Error::InvalidParameters(format!(
            "log2(QP) = {log_qp} is not a valid modulus size"
        )));
    }
    let (smallest, _) = TABLE[0];
    let (largest, largest_bounds) = TABLE[TABLE.len() - 1];
    if n < smallest {
        return Err(Error::Insecure(format!(
            "ring degree N = {n} is below the smallest ring degree of the \
             HomomorphicEncryption.org table (N = {smallest}) and cannot reach {level} \
             security; use N >= {smallest}, or SecurityLevel::NotChecked to opt out for \
             experiments"
        )));
    }
    let bound = if n >= largest {
        largest_bounds[col]
    } else {
        max_log_qp(n, level).expect("every power of two in the table's range is listed")
    };
    if log_qp <= bound as f64 {
        return Ok(());
    }
    let larger = match min_ring_degree(log_qp, level) {
        Some(m) => format!(
            "a larger ring degree (N = {m} allows up to {} bits)",
            max_log_qp(m, level).expect("table entry")
        ),
        None => format!("a larger ring degree (no N up to {largest} allows that many bits)"),
    };
    Err(Error::Insecure(format!(
        "N = {n} with log2(QP) = {log_qp:.1} bits exceeds the {level} bound of {bound} bits \
         (HomomorphicEncryption.org table, uniform ternary secret); use fewer or smaller \
         primes in Q and P (log2(QP) <= {bound}), {larger}, or SecurityLevel::NotChecked \
         to opt out for experiments and benchmarks"
    )))
}

/// An estimate of the security of an (R)LWE instance from the HomomorphicEncryption.org
/// table ([`estimate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableEstimate {
    /// The strongest level of the table the instance meets (`None`: below 128 bits).
    pub level: Option<SecurityLevel>,
    /// Whether the dimension lies outside the table (`n < 2^10` or not a power of two), so
    /// that the bound was interpolated or extrapolated rather than read off (see
    /// [`estimate`]).
    pub extrapolated: bool,
}

impl TableEstimate {
    /// The estimate in bits (`0` below 128).
    pub fn bits(&self) -> u32 {
        self.level.and_then(SecurityLevel::bits).unwrap_or(0)
    }
}

/// The largest `log2 q` the table allows for (R)LWE dimension `n` at `level`, for any
/// `n >= 1` (see [`estimate`] for the method); `None` for [`SecurityLevel::NotChecked`].
pub fn interpolated_max_log_q(n: usize, level: SecurityLevel) -> Option<f64> {
    let col = level.column()?;
    let (n0, b0) = TABLE[0];
    let (nl, bl) = TABLE[TABLE.len() - 1];
    if n <= n0 {
        return Some(n as f64 * b0[col] as f64 / n0 as f64);
    }
    if n >= nl {
        return Some(bl[col] as f64);
    }
    let w = TABLE
        .windows(2)
        .find(|w| n <= w[1].0)
        .expect("n inside the table");
    let (lo, hi) = (w[0], w[1]);
    let t = (n - lo.0) as f64 / (hi.0 - lo.0) as f64;
    Some(lo.1[col] as f64 + t * (hi.1[col] as f64 - lo.1[col] as f64))
}

/// Estimates the security of LWE or RLWE with dimension `n`, modulus `2^log_q`, a ternary
/// (or wider) secret and error of standard deviation about 3.2, from the
/// HomomorphicEncryption.org table (the *table method*).
///
/// The table's figures are lattice-estimator results for LWE of dimension `n` (the ring
/// structure plays no part in them), so they apply to plain LWE as well:
///
/// * for a dimension of the table (`2^10 .. 2^17`), its bound is read off;
/// * between two entries, the bound is interpolated linearly (the table is nearly linear
///   in `n`: `n / log2 q` stays within 37.2-37.9 at 128 bits);
/// * below `2^10`, outside the standard, the bound is extrapolated in proportion,
///   `log2 q <= n · b(2^10) / 2^10`. This is **optimistic**: the ratio `n / log2 q`
///   needed for a level grows as `n` shrinks, so a set this method places at 128 bits may
///   be a few bits weaker. [`TableEstimate::extrapolated`] flags it; a real
///   lattice-estimator run (as OpenFHE publishes for its FHEW sets) is the better source
///   there.
///
/// The estimate is the strongest of the 128-, 192- and 256-bit levels whose bound
/// `log_q` meets.
pub fn estimate(n: usize, log_q: f64) -> TableEstimate {
    let extrapolated = n < TABLE[0].0 || !n.is_power_of_two();
    let level = [
        SecurityLevel::Bits256,
        SecurityLevel::Bits192,
        SecurityLevel::Bits128,
    ]
    .into_iter()
    .find(|&l| interpolated_max_log_q(n, l).is_some_and(|b| log_q <= b + 1e-9));
    TableEstimate {
        level,
        extrapolated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SecurityLevel::*;

    const EXPECTED: [(usize, u32, u32, u32); 8] = [
        (1024, 27, 19, 14),
        (2048, 54, 37, 29),
        (4096, 109, 75, 58),
        (8192, 218, 152, 118),
        (16384, 438, 305, 237),
        (32768, 881, 611, 476),
        (65536, 1747, 1199, 929),
        (131072, 3523, 2411, 1866),
    ];

    #[test]
    fn every_entry() {
        for (n, b128, b192, b256) in EXPECTED {
            assert_eq!(max_log_qp(n, Bits128), Some(b128), "N = {n}");
            assert_eq!(max_log_qp(n, Bits192), Some(b192), "N = {n}");
            assert_eq!(max_log_qp(n, Bits256), Some(b256), "N = {n}");
            assert_eq!(max_log_qp(n, NotChecked), None);
            for (level, b) in [(Bits128, b128), (Bits192, b192), (Bits256, b256)] {
                assert!(check(n, b as f64, level).is_ok(), "N = {n}, {level}");
                assert!(check(n, b as f64 - 0.5, level).is_ok());
                assert!(
                    matches!(check(n, b as f64 + 0.01, level), Err(Error::Insecure(_))),
                    "N = {n}, {level}"
                );
                assert_eq!(min_ring_degree(b as f64, level), Some(n));
            }
        }
        assert_eq!(max_log_qp(512, Bits128), None);
        assert_eq!(max_log_qp(1 << 18, Bits128), None);
        assert_eq!(max_log_qp(3000, Bits128), None);
    }

    #[test]
    fn monotone() {
        for w in TABLE.windows(2) {
            for c in 0..3 {
                assert!(w[0].1[c] < w[1].1[c]);
            }
        }
        for (_, b) in TABLE {
            assert!(b[0] > b[1] && b[1] > b[2]);
        }
    }

    #[test]
    fn error_message_is_helpful() {
        let Err(Error::Insecure(msg)) = check(8192, 250.0, Bits128) else {
            panic!("expected Insecure")
        };
        for needle in [
            "N = 8192",
            "250.0",
            "218",
            "fewer or smaller",
            "N = 16384",
            "NotChecked",
        ] {
            assert!(msg.contains(needle), "{needle:?} missing from {msg:?}");
        }
        let Err(Error::Insecure(msg)) = check(1 << 17, 5000.0, Bits128) else {
            panic!("expected Insecure")
        };
        assert!(msg.contains("no N up to 131072"), "{msg}");
    }

    #[test]
    fn table_method_estimates() {
        // On the table: read off.
        let e = estimate(1024, 27.0);
        assert_eq!(e.level, Some(Bits128));
        assert!(!e.extrapolated);
        assert_eq!(estimate(1024, 27.5).level, None);
        assert_eq!(estimate(2048, 29.0).level, Some(Bits256));
        assert_eq!(estimate(2048, 37.0).level, Some(Bits192));
        // Between entries: linear.
        assert!((interpolated_max_log_q(1536, Bits128).unwrap() - 40.5).abs() < 1e-9);
        assert!(estimate(1536, 40.0).extrapolated);
        // Below the table: in proportion (flagged).
        let e = estimate(512, 13.5);
        assert_eq!((e.level, e.extrapolated), (Some(Bits128), true));
        assert_eq!(estimate(512, 14.0).level, None);
        assert_eq!(estimate(512, 14.0).bits(), 0);
        assert_eq!(interpolated_max_log_q(512, NotChecked), None);
    }

    #[test]
    fn edges() {
        assert_eq!(SecurityLevel::default(), Bits128);
        // Opt-out passes anything, even nonsense.
        assert!(check(16, 10_000.0, NotChecked).is_ok());
        assert!(matches!(check(512, 10.0, Bits128), Err(Error::Insecure(_))));
        assert!(matches!(
            check(3000, 10.0, Bits128),
            Err(Error::InvalidParameters(_))
        ));
        assert!(matches!(
            check(4096, f64::NAN, Bits128),
            Err(Error::InvalidParameters(_))
        ));
        // Beyond the table: the 2^17 bound applies.
        assert!(check(1 << 18, 3523.0, Bits128).is_ok());
        assert!(matches!(
            check(1 << 18, 3524.0, Bits128),
            Err(Error::Insecure(_))
        ));
        assert_eq!(min_ring_degree(3524.0, Bits128), None);
        assert_eq!(min_ring_degree(100.0, NotChecked), None);
        assert_eq!(min_ring_degree(219.0, Bits128), Some(16384));
        assert_eq!(Bits192.to_string(), "192-bit classical");
        assert_eq!(NotChecked.bits(), None);
    }
}
