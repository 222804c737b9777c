//! The security of an FHEW parameter set, estimated from its numbers alone.
//!
//! An FHEW set rests on two problems, and is as strong as the weaker one:
//!
//! * **the ring side**, RLWE of degree `N` modulo the prime `Q` (`log Q` bits) with a
//!   ternary secret `z`: the blind-rotation keys, automorphism keys and the extracted
//!   LWE samples of dimension `N`. It is checked against the HomomorphicEncryption.org
//!   table ([`crate::params::security`]), whose rows start at `N = 2^10`, as every FHEW
//!   set's ring does;
//! * **the LWE side**, LWE of dimension `n` modulo `Q_ks` with the set's secret and error
//!   `σ`: the key-switching key, whose rows are LWE samples under `s` modulo `Q_ks`
//!   (the largest modulus `s` is ever used with).
//!
//! # How the LWE side is estimated
//!
//! * `n >= 2^10`: the HomomorphicEncryption.org table (read off or interpolated,
//!   [`crate::params::security::estimate`]).
//! * `n < 2^10`, below the table: **dominance** over a published lattice-estimator result
//!   for the same error (`σ ≈ 3.2`) and a ternary secret ([`PUBLISHED_LWE`], the LWE
//!   triples of OpenFHE 1.6.1's FHEW sets, which OpenFHE sized with the lattice
//!   estimator): `(n, Q_ks)` meets the level of a published point `(n_0, Q_0)` if
//!   `n >= n_0` and `n / log2 Q_ks >= n_0 / log2 Q_0`. Security grows with the dimension at
//!   a fixed modulus and with the ratio `n / log q`, and the ratio a level needs *falls* as
//!   `n` grows (37.9 at `2^10` down to 37.2 at `2^15` for 128 bits, in the table), so the
//!   dominating point is at least as hard.
//! * Otherwise the level is **not established** here and the set counts as below 128
//!   bits. (Proportional extrapolation of the table below `2^10` is optimistic, and this
//!   machine has no lattice estimator to run: rather than label such a set 128-bit, hekate
//!   refuses it by default; [`SecurityLevel::NotChecked`] opts out.)
//!
//! Both sources assume an error of standard deviation at least [`TABLE_SIGMA`] and a
//! secret at least as wide as a ternary one. A set whose `σ` is narrower, or whose secret is
//! narrower (binary, a Gaussian of standard deviation below ternary's `√(2/3)`, a uniform
//! secret over `{0}`), is outside both and is reported as not established on both sides:
//! a narrower error or secret makes every attack cheaper, and nothing here measures by how
//! much. A secret wider than ternary (Gaussian, a sum of threshold shares) is at least as
//! hard.

use super::lwe::LweSecretDistribution;
use super::params::FhewParams;
use crate::params::security::{self, SecurityLevel};
use std::fmt;

/// The error width the HomomorphicEncryption.org table and [`PUBLISHED_LWE`] assume:
/// `σ = 8/√(2π) ≈ 3.19` (the standard's value, also OpenFHE's). A set with a smaller `σ`
/// gets no level from either.
pub const TABLE_SIGMA: f64 = 3.19;

/// The standard deviation of a uniform ternary coefficient, `√(2/3)`: the narrowest
/// secret the estimates cover.
const TERNARY_STD: f64 = 0.816_496_580_927_726;

/// A published lattice-estimator result for FHEW's LWE side: `(n, log2 Q_ks, level,
/// source)`, ternary secret, `σ = 3.19`.
pub const PUBLISHED_LWE: [(usize, u32, SecurityLevel, &str); 2] = [
    (
        554,
        15,
        SecurityLevel::Bits128,
        "OpenFHE 1.6.1 STD128 (n = 554, Q_ks = 2^15), lattice estimator",
    ),
    (
        820,
        15,
        SecurityLevel::Bits192,
        "OpenFHE 1.6.1 STD192 (n = 820, Q_ks = 2^15), lattice estimator",
    ),
];

/// The estimate of one side of an FHEW set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideEstimate {
    /// The strongest level established (`None`: below 128 bits, or not established).
    pub level: Option<SecurityLevel>,
    /// How it was established.
    pub method: &'static str,
}

/// The security of an FHEW parameter set ([`FhewParams::security`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FhewSecurity {
    /// RLWE of degree `N` modulo `Q`.
    pub ring: SideEstimate,
    /// LWE of dimension `n` modulo `Q_ks`.
    pub lwe: SideEstimate,
}

impl FhewSecurity {
    /// The level of the set: the weaker side's (`None`: below 128 bits or not
    /// established).
    pub fn level(&self) -> Option<SecurityLevel> {
        match (self.ring.level, self.lwe.level) {
            (Some(a), Some(b)) => Some(if bits(a) <= bits(b) { a } else { b }),
            _ => None,
        }
    }

    /// Whether the set meets `min` ([`SecurityLevel::NotChecked`] is always met).
    pub fn meets(&self, min: SecurityLevel) -> bool {
        match min.bits() {
            None => true,
            Some(b) => self.level().is_some_and(|l| bits(l) >= b),
        }
    }
}

fn bits(l: SecurityLevel) -> u32 {
    l.bits().unwrap_or(0)
}

impl fmt::Display for FhewSecurity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |s: &SideEstimate| match s.level {
            Some(l) => format!("{l} ({})", s.method),
            None => format!("below 128 bits or not established ({})", s.method),
        };
        match self.level() {
            Some(l) => write!(f, "{l}")?,
            None => f.write_str("below 128 bits or not established")?,
        }
        write!(
            f,
            "; ring side: {}; LWE side: {}",
            side(&self.ring),
            side(&self.lwe)
        )
    }
}

/// The estimate of `p` (see the module documentation).
pub fn estimate(p: &FhewParams) -> FhewSecurity {
    // A NaN σ is not `>=` anything: refused too.
    if p.sigma.partial_cmp(&TABLE_SIGMA).is_none_or(|o| o.is_lt()) {
        let side = SideEstimate {
            level: None,
            method: "error σ below the 3.19 the estimates assume",
        };
        return FhewSecurity {
            ring: side,
            lwe: side,
        };
    }
    let ring = {
        let e = security::estimate(p.big_n, p.log_big_q as f64);
        SideEstimate {
            level: e.level.filter(|_| !e.extrapolated),
            method: if e.extrapolated {
                "N outside the HomomorphicEncryption.org table"
            } else {
                "HomomorphicEncryption.org table"
            },
        }
    };
    let lwe = lwe_side(p.n, p.log_q_ks, p.lwe_secret);
    FhewSecurity { ring, lwe }
}

fn lwe_side(n: usize, log_q_ks: u32, secret: LweSecretDistribution) -> SideEstimate {
    let narrower_than_ternary = match secret {
        LweSecretDistribution::Binary => true,
        LweSecretDistribution::Ternary => false,
        LweSecretDistribution::Gaussian { sigma } => {
            sigma.partial_cmp(&TERNARY_STD).is_none_or(|o| o.is_lt())
        }
        LweSecretDistribution::Uniform { bound } => bound < 1,
    };
    if narrower_than_ternary {
        return SideEstimate {
            level: None,
            method: "secrets narrower than ternary (binary, a Gaussian below σ = 0.82, {0}) \
                     are not covered by the table or the published estimates",
        };
    }
    let e = security::estimate(n, log_q_ks as f64);
    if n >= 1 << 10 {
        return SideEstimate {
            level: e.level,
            method: "HomomorphicEncryption.org table",
        };
    }
    let ratio = n as f64 / log_q_ks as f64;
    let best = PUBLISHED_LWE
        .iter()
        .filter(|&&(n0, lq0, _, _)| n >= n0 && ratio >= n0 as f64 / lq0 as f64)
        .max_by_key(|&&(_, _, l, _)| bits(l));
    match best {
        Some(&(_, _, level, source)) => SideEstimate {
            level: Some(level),
            method: source,
        },
        None => SideEstimate {
            level: None,
            method: "n below the table and dominated by no published lattice-estimator result",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fhew::params::*;
    use SecurityLevel::*;

    #[test]
    fn presets_get_the_levels_their_numbers_support() {
        let level = |p: &FhewParams| estimate(p).level();
        assert_eq!(level(&OPENFHE_STD128), Some(Bits128));
        assert_eq!(level(&OPENFHE_STD128_LMKCDEY), Some(Bits128));
        assert_eq!(level(&OPENFHE_STD192), Some(Bits192));
        // The threshold set dominates OpenFHE's STD128 triple (700 >= 554, 38.9 >= 36.9).
        assert_eq!(level(&STD128_THRESHOLD), Some(Bits128));
        // n = 1024, Q_ks = 2^14: the table's 256-bit row; the rings decide.
        assert_eq!(level(&STD256), Some(Bits256));
        assert_eq!(level(&STD256Q), Some(Bits256));
        assert_eq!(level(&STD192Q), Some(Bits192));
        // n = 512, Q_ks = 2^14: below the table, dominated by nothing published.
        for p in [&STD128, &STD128_AP, &STD192, &STD128Q] {
            assert_eq!(level(p), None, "{}", p.name);
            assert!(estimate(p).ring.level.is_some(), "{}", p.name);
        }
        for p in [&MEDIUM, &OPENFHE_MEDIUM, &TOY, &TOY_THRESHOLD] {
            assert_eq!(level(p), None, "{}", p.name);
        }
        assert!(estimate(&OPENFHE_STD128).meets(Bits128));
        assert!(!estimate(&OPENFHE_STD128).meets(Bits192));
        assert!(estimate(&TOY).meets(NotChecked));
        let shown = estimate(&OPENFHE_STD128).to_string();
        assert!(shown.starts_with("128-bit classical; ring side"), "{shown}");
    }

    #[test]
    fn each_side_bounds_the_set() {
        // A wide Q on an otherwise good set fails on the ring side alone.
        let wide_q = FhewParams {
            log_big_q: 28,
            ..OPENFHE_STD128
        };
        let e = estimate(&wide_q);
        assert_eq!((e.ring.level, e.lwe.level), (None, Some(Bits128)));
        assert_eq!(e.level(), None);
        // A wider Q_ks fails on the LWE side alone.
        let wide_qks = FhewParams {
            log_q_ks: 16,
            ..OPENFHE_STD128
        };
        assert_eq!(estimate(&wide_qks).lwe.level, None);
        let binary = FhewParams {
            lwe_secret: LweSecretDistribution::Binary,
            ..OPENFHE_STD128
        };
        assert_eq!(estimate(&binary).level(), None);
    }

    #[test]
    fn narrow_errors_and_secrets_get_no_level() {
        // σ below the estimates' 3.19 (the smallest the sampler takes, and a NaN):
        // neither side is established, however large n and N are.
        for sigma in [0.17, 3.0, 3.18, f64::NAN] {
            let p = FhewParams {
                sigma,
                ..OPENFHE_STD128
            };
            let e = estimate(&p);
            assert_eq!((e.ring.level, e.lwe.level), (None, None), "σ = {sigma}");
            assert!(!e.meets(Bits128));
        }
        // Secrets narrower than ternary fail on the LWE side; wider ones pass.
        for (secret, ok) in [
            (LweSecretDistribution::Gaussian { sigma: 0.3 }, false),
            (LweSecretDistribution::Gaussian { sigma: 0.8 }, false),
            (LweSecretDistribution::Gaussian { sigma: 3.19 }, true),
            (LweSecretDistribution::Uniform { bound: 0 }, false),
            (LweSecretDistribution::Uniform { bound: 1 }, true),
            (LweSecretDistribution::Uniform { bound: 5 }, true),
        ] {
            let p = FhewParams {
                lwe_secret: secret,
                ..OPENFHE_STD128
            };
            assert_eq!(estimate(&p).meets(Bits128), ok, "{secret:?}");
        }
    }
}
