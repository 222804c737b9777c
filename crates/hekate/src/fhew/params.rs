//! FHEW parameter sets and the blind-rotation method selection.
//!
//! Symbols (seed 002, Table 3 and §2): `n` LWE dimension, `q` LWE modulus (a power of two
//! dividing `2N`), `N` ring degree, `Q` the NTT-friendly prime of the accumulator (the
//! largest prime below `2^log Q` that is `1 mod 2N`, as OpenFHE and PALISADE pick it),
//! `B_g` gadget base of blind-rotation and automorphism keys, `B_r` the AP base,
//! `Q_ks`/`B_ks` modulus and base of LWE key switching, `σ` the error standard deviation.
//!
//! The named sets live in [`crate::params::fhew`] and are re-exported here.

use super::lwe::LweSecretDistribution;
use crate::math::PrimeGenerator;
use crate::ring::fnv1a64;
use crate::{Error, Result};

/// Which blind rotation (seed 002 §2.2 and §3).
///
/// The three automorphism-based variants are seed 002's Algorithms 3, 4 and 5: the method
/// OpenFHE calls `LMKCDEY` (after the paper's authors). For `q = 2N` (OpenFHE's
/// `STD128_LMKCDEY`) use [`Method::LmkcdeyAux`], for `q < 2N` [`Method::LmkcdeyAllEven`];
/// [`Method::lmkcdey`] picks the one that applies. Serialized keys store the method as a
/// code that does not depend on these names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// AP (Alg. 1), base `B_r`.
    Ap,
    /// GINX (Alg. 2): `U = {1}` for binary secrets, `{1, -1}` for ternary,
    /// `{±1, ±2, .., ±2^(k-1)}` for wider ones.
    Ginx,
    /// LMKCDEY, the base algorithm (seed 002 Alg. 3): automorphisms `ψ_{α_i}`, each even
    /// `α_i` fixed by an extra product with `RGSW(Y^{s_i})` (needs `q = 2N`).
    #[doc(alias = "Alg3")]
    LmkcdeyBase,
    /// LMKCDEY with auxiliary keys (seed 002 Alg. 4, the computationally efficient
    /// variant): `RGSW(Y^{s_i + s_{i+1}})` keys absorb the even `α_i`, so every step is one
    /// product (needs `q = 2N`).
    #[doc(alias = "Alg4")]
    LmkcdeyAux,
    /// LMKCDEY for `q < 2N` (seed 002 Alg. 5, the all-even case): one extra key
    /// `RGSW(X^{-Σ s_i})` replaces the `n` extra products.
    #[doc(alias = "Alg5")]
    LmkcdeyAllEven,
}

impl Method {
    /// Every method.
    pub const ALL: [Method; 5] = [
        Method::Ap,
        Method::Ginx,
        Method::LmkcdeyBase,
        Method::LmkcdeyAux,
        Method::LmkcdeyAllEven,
    ];

    /// A short name: `AP`, `GINX`, `LMKCDEY-base`, `LMKCDEY-aux`, `LMKCDEY-even`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Ap => "AP",
            Method::Ginx => "GINX",
            Method::LmkcdeyBase => "LMKCDEY-base",
            Method::LmkcdeyAux => "LMKCDEY-aux",
            Method::LmkcdeyAllEven => "LMKCDEY-even",
        }
    }

    /// The seed 002 algorithm name of the method (`Alg3`, `Alg4`, `Alg5` for the LMKCDEY
    /// variants; `AP`, `GINX` otherwise): the names hekate used before, still accepted by
    /// [`Method::by_name`].
    pub fn paper_name(self) -> &'static str {
        match self {
            Method::Ap => "AP",
            Method::Ginx => "GINX",
            Method::LmkcdeyBase => "Alg3",
            Method::LmkcdeyAux => "Alg4",
            Method::LmkcdeyAllEven => "Alg5",
        }
    }

    /// The method called `name` (case-insensitive): its [`Method::name`] or its
    /// [`Method::paper_name`] (`Alg3`, `Alg4`, `Alg5`, accepted for compatibility).
    pub fn by_name(name: &str) -> Result<Method> {
        Method::ALL
            .into_iter()
            .find(|m| {
                m.name().eq_ignore_ascii_case(name) || m.paper_name().eq_ignore_ascii_case(name)
            })
            .ok_or_else(|| {
                Error::InvalidParameters(format!(
                    "no blind-rotation method named {name}; known: {} (or Alg3, Alg4, Alg5)",
                    Method::ALL.map(Method::name).join(", ")
                ))
            })
    }

    /// The LMKCDEY variant that applies to `params` and costs one product per step:
    /// [`Method::LmkcdeyAux`] for `q = 2N`, [`Method::LmkcdeyAllEven`] for `q < 2N`.
    pub fn lmkcdey(params: &FhewParams) -> Method {
        if params.q == 2 * params.big_n as u64 {
            Method::LmkcdeyAux
        } else {
            Method::LmkcdeyAllEven
        }
    }

    /// Whether the method rotates through automorphisms (the LMKCDEY variants: their keys
    /// include [`crate::fhew::BlindRotationKey::auto`]).
    pub fn is_automorphism_based(self) -> bool {
        matches!(
            self,
            Method::LmkcdeyBase | Method::LmkcdeyAux | Method::LmkcdeyAllEven
        )
    }

    /// Whether the method applies to LWE modulus `q` and ring degree `N`.
    pub fn applies(self, q: u64, big_n: usize) -> bool {
        match self {
            Method::Ap | Method::Ginx => true,
            Method::LmkcdeyBase | Method::LmkcdeyAux => q == 2 * big_n as u64,
            Method::LmkcdeyAllEven => q < 2 * big_n as u64,
        }
    }
}

/// The automorphism keys an automorphism-based method carries (seed 002 §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AutoKeySet {
    /// Every exponent the method uses (`q/2 - 1` keys for `q = 2N`, `q - 1` for Alg. 5).
    Full,
    /// `ak_{5^(2^j)}` for `2^j < N/2`, and `ak_{-1}`: about `log q` keys, at most that many
    /// key switches per automorphism.
    PowersOfFive,
    /// `ak_5` and `ak_{-1}` only: two keys, up to `N/2` key switches per automorphism.
    Generators,
}

/// A blind-rotation configuration: method, RGSW or RLWE' keys (ALTMULT, Alg. 6), and the
/// automorphism key set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MethodConfig {
    /// The method.
    pub method: Method,
    /// RLWE' keys with ALTMULT (Alg. 6) instead of RGSW keys.
    pub alt_mult: bool,
    /// Automorphism keys (automorphism-based methods only).
    pub auto_keys: AutoKeySet,
}

impl MethodConfig {
    /// `method` with RGSW keys and the full automorphism key set.
    pub fn new(method: Method) -> Self {
        MethodConfig {
            method,
            alt_mult: false,
            auto_keys: AutoKeySet::Full,
        }
    }

    /// The same with ALTMULT.
    pub fn with_alt_mult(mut self, on: bool) -> Self {
        self.alt_mult = on;
        self
    }

    /// The same with another automorphism key set.
    pub fn with_auto_keys(mut self, set: AutoKeySet) -> Self {
        self.auto_keys = set;
        self
    }

    /// A configuration by name, the spelling of the CLI and the Python bindings: a
    /// [`Method::by_name`] name, optionally followed by `+ALTMULT` (e.g. `Alg4`,
    /// `GINX+ALTMULT`), with the full automorphism key set.
    pub fn by_name(s: &str) -> Result<MethodConfig> {
        let (name, alt) = match s.split_once('+') {
            Some((n, "ALTMULT")) => (n, true),
            None => (s, false),
            _ => {
                return Err(Error::InvalidParameters(format!(
                    "unknown blind-rotation method modifier in {s:?}: the only one is +ALTMULT"
                )))
            }
        };
        Ok(MethodConfig::new(Method::by_name(name)?).with_alt_mult(alt))
    }

    /// e.g. `LMKCDEY-even+ALTMULT`.
    pub fn label(&self) -> String {
        let mut s = self.method.name().to_string();
        if self.alt_mult {
            s.push_str("+ALTMULT");
        }
        match self.auto_keys {
            AutoKeySet::Full => {}
            AutoKeySet::PowersOfFive => s.push_str("+logq-ak"),
            AutoKeySet::Generators => s.push_str("+{5,-1}"),
        }
        s
    }
}

/// An FHEW parameter set.
#[derive(Clone, Debug, PartialEq)]
pub struct FhewParams {
    /// Name.
    pub name: &'static str,
    /// Where the values come from.
    pub source: &'static str,
    /// The security its source claims, in the source's words (classical bits unless the
    /// name ends in `Q`). Descriptive only: [`FhewParams::security`] is what hekate checks.
    pub claimed_security: &'static str,
    /// `n`.
    pub n: usize,
    /// `q`.
    pub q: u64,
    /// `N`.
    pub big_n: usize,
    /// `log2 Q` (bit size of the prime `Q`).
    pub log_big_q: u32,
    /// `log2 B_g` for automorphism keys (and blind-rotation keys without a schedule).
    pub log_bg: u32,
    /// Per-index `log2 B_g` of the blind-rotation keys: `(log B_g, count)` runs summing to
    /// `n` (OpenFHE's `gadgetBaseMap`); empty means `log_bg` for all.
    pub bg_schedule: &'static [(u32, usize)],
    /// `B_r` (AP).
    pub b_r: u64,
    /// `log2 Q_ks`.
    pub log_q_ks: u32,
    /// `log2 B_ks`.
    pub log_b_ks: u32,
    /// `σ` of every error.
    pub sigma: f64,
    /// The LWE secret distribution.
    pub lwe_secret: LweSecretDistribution,
}

pub(crate) use crate::params::fhew::NAMED;
pub use crate::params::fhew::{
    MEDIUM, OPENFHE_MEDIUM, OPENFHE_STD128, OPENFHE_STD128_LMKCDEY, OPENFHE_STD192, PRESETS,
    STD128, STD128Q, STD128_AP, STD128_THRESHOLD, STD192, STD192Q, STD256, STD256Q, TOY,
    TOY_THRESHOLD,
};

impl FhewParams {
    /// The preset called `name` (case-insensitive), one of [`PRESETS`]. The insecure test
    /// set is no preset: [`FhewParams::by_name_or_test`] also finds it.
    pub fn by_name(name: &str) -> Result<&'static FhewParams> {
        PRESETS
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
            .copied()
            .ok_or_else(|| {
                Error::InvalidParameters(format!(
                    "no FHEW preset named {name}; known: {}",
                    PRESETS.map(|p| p.name).join(", ")
                ))
            })
    }

    /// [`FhewParams::by_name`], or the insecure test set [`TOY`] by its name: what the
    /// CLI's benchmarks and the Python bindings accept (a context still refuses `TOY`
    /// unless the caller opts out of the security check).
    pub fn by_name_or_test(name: &str) -> Result<&'static FhewParams> {
        if name.eq_ignore_ascii_case(TOY.name) {
            return Ok(&TOY);
        }
        Self::by_name(name).map_err(|e| match e {
            Error::InvalidParameters(m) => {
                Error::InvalidParameters(format!("{m}, or TOY (insecure, tests)"))
            }
            e => e,
        })
    }

    /// A 64-bit fingerprint of every numeric field (the descriptive strings do not
    /// count): keys and serialized objects carry it, and are refused under other
    /// parameters. The same as [`crate::serialize::fhew_fingerprint`].
    pub fn fingerprint(&self) -> u64 {
        fingerprint_with(self, self.bg_schedule)
    }

    /// The security of the set, estimated from its numbers ([`super::security`]): the
    /// weaker of the ring side (`N`, `Q`) and the LWE side (`n`, `Q_ks`).
    pub fn security(&self) -> super::security::FhewSecurity {
        super::security::estimate(self)
    }

    /// Checks the shape: `N` a power of two, `q` a power of two dividing `2N`, the digit
    /// counts in range.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidParameters(m));
        if !self.big_n.is_power_of_two() || !(16..=1 << 15).contains(&self.big_n) {
            return bad(format!(
                "N = {} must be a power of two in [16, 2^15]",
                self.big_n
            ));
        }
        if !self.q.is_power_of_two() || self.q < 8 || self.q > 2 * self.big_n as u64 {
            return bad(format!(
                "q = {} must be a power of two in [8, 2N = {}]",
                self.q,
                2 * self.big_n
            ));
        }
        if self.n == 0 || self.b_r < 2 {
            return bad("n >= 1 and B_r >= 2 are required".into());
        }
        if !(2..=super::lwe::MAX_LOG_Q_KS).contains(&self.log_q_ks)
            || !(1..=self.log_q_ks.min(16)).contains(&self.log_b_ks)
        {
            return bad(format!(
                "Q_ks = 2^{} must lie in [2^2, 2^{}] and B_ks = 2^{} in [2, min(Q_ks, 2^16)]",
                self.log_q_ks,
                super::lwe::MAX_LOG_Q_KS,
                self.log_b_ks
            ));
        }
        if !self.bg_schedule.is_empty()
            && self.bg_schedule.iter().map(|r| r.1).sum::<usize>() != self.n
        {
            return bad("the B_g schedule must cover exactly n keys".into());
        }
        Ok(())
    }

    /// `Q`: the largest prime of `log Q` bits that is `1 mod 2N`.
    pub fn big_q(&self) -> Result<u64> {
        PrimeGenerator::new(self.big_n)?.next_prime(self.log_big_q)
    }

    /// `log2 B_g` of blind-rotation key `i`.
    pub fn log_bg_of(&self, i: usize) -> u32 {
        let mut k = i;
        for &(lb, count) in self.bg_schedule {
            if k < count {
                return lb;
            }
            k -= count;
        }
        self.log_bg
    }

    /// `d_r = ceil(log_{B_r} q)`.
    pub fn d_r(&self) -> usize {
        let mut d = 0;
        let mut p = 1u64;
        while p < self.q {
            p = p.saturating_mul(self.b_r);
            d += 1;
        }
        d
    }

    /// Variance of the decision noise of a two-input gate (in units of `q`), given the
    /// blind-rotation variance `σ_acc^2` (in units of `Q`): two bootstrapped inputs each
    /// carrying
    ///
    /// ```text
    /// σ_acc^2 (q/Q)^2                          blind rotation
    /// + (N E[z^2] + 1)/12 (q/Q_ks)^2            rounding Q -> Q_ks
    /// + N d_ks σ^2 (q/Q_ks)^2                  key switching (one row per digit)
    /// + (n E[s^2] + 1)/12                      rounding Q_ks -> q
    /// ```
    ///
    /// with `E[z^2] = E[s^2] = 2/3` for ternary secrets.
    pub fn gate_noise_variance(&self, sigma_acc2: f64) -> f64 {
        self.gate_noise_variance_parties(sigma_acc2, 1)
    }

    /// [`FhewParams::gate_noise_variance`] for keys shared by `k` parties (seed 002 §6.2,
    /// [`crate::fhew::threshold`]): the joint secrets `s_* = Σ s_j`, `z_* = Σ z_j` have
    /// `k` times the coefficient variance of one share (`E[z_*^2] = 2k/3` for ternary
    /// shares), and every key-switching row carries the sum of `k` errors (`k σ^2`).
    /// `k = 1` is the single-key case.
    pub fn gate_noise_variance_parties(&self, sigma_acc2: f64, k: usize) -> f64 {
        let kf = k as f64;
        let (q, big_q) = (
            self.q as f64,
            self.big_q().unwrap_or(1 << self.log_big_q) as f64,
        );
        let qks = (1u64 << self.log_q_ks) as f64;
        let es2 = match self.lwe_secret {
            LweSecretDistribution::Binary => 0.5,
            LweSecretDistribution::Ternary => 2.0 / 3.0,
            LweSecretDistribution::Gaussian { sigma } => sigma * sigma,
            LweSecretDistribution::Uniform { bound } => {
                let b = bound as f64;
                b * (b + 1.0) / 3.0
            }
        };
        let n_big = self.big_n as f64;
        let d_ks = self.log_q_ks.div_ceil(self.log_b_ks) as f64;
        let one = sigma_acc2 * (q / big_q).powi(2)
            + (n_big * kf * 2.0 / 3.0 + 1.0) / 12.0 * (q / qks).powi(2)
            + n_big * d_ks * kf * self.sigma * self.sigma * (q / qks).powi(2)
            + (self.n as f64 * kf * es2 + 1.0) / 12.0;
        2.0 * one
    }

    /// Probability that a two-input gate decrypts wrongly: `erfc(q/8 / (σ √2))` for the
    /// decision noise of [`FhewParams::gate_noise_variance`] (the gates' margin is `q/8`).
    pub fn failure_probability(&self, sigma_acc2: f64) -> f64 {
        self.failure_probability_parties(sigma_acc2, 1)
    }

    /// [`FhewParams::failure_probability`] for keys shared by `k` parties
    /// ([`FhewParams::gate_noise_variance_parties`]).
    pub fn failure_probability_parties(&self, sigma_acc2: f64, k: usize) -> f64 {
        let s = self.gate_noise_variance_parties(sigma_acc2, k).sqrt();
        erfc(self.q as f64 / 8.0 / (s * std::f64::consts::SQRT_2))
    }

    /// The paper's measured `σ_acc^2` for this set and configuration (seed 002 Table 3:
    /// 500 blind rotations in PALISADE v1.11.5, ternary secrets), where the table has a
    /// figure: AP (`d_r = 2`), GINX, Alg. 5 and Alg. 5 + ALTMULT (Alg. 6) on the eight
    /// Table 3 sets, with the full automorphism key set. `None` for every other pair.
    pub fn paper_sigma_acc2(&self, cfg: MethodConfig) -> Option<f64> {
        // Columns: AP, GINX, Alg. 5, Alg. 5 + Alg. 6.
        const TABLE3: [(&str, [f64; 4]); 8] = [
            ("MEDIUM", [5.78e11, 1.45e12, 4.67e11, 2.56e14]),
            ("STD128", [9.27e10, 1.78e11, 6.09e10, 2.07e13]),
            ("STD128_AP", [1.31e12, 2.66e12, 1.17e12, 4.35e14]),
            ("STD192", [5.00e14, 1.01e15, 3.58e14, 1.59e17]),
            ("STD256", [1.49e13, 3.37e13, 1.25e13, 9.52e15]),
            ("STD128Q", [6.99e21, 1.78e22, 5.75e21, 2.85e24]),
            ("STD192Q", [2.74e14, 5.04e14, 2.14e14, 9.30e16]),
            ("STD256Q", [3.59e11, 9.02e11, 2.77e11, 3.21e14]),
        ];
        let column = match (cfg.method, cfg.alt_mult, cfg.auto_keys) {
            (Method::Ap, false, _) => 0,
            (Method::Ginx, false, _) => 1,
            (Method::LmkcdeyAllEven, false, AutoKeySet::Full) => 2,
            (Method::LmkcdeyAllEven, true, AutoKeySet::Full) => 3,
            _ => return None,
        };
        TABLE3
            .iter()
            .find(|(name, _)| *name == self.name)
            .map(|(_, row)| row[column])
    }

    /// The paper's blind-rotation key size in MB for this set and configuration (seed 002
    /// Table 4: AP, GINX and Alg. 5 with RGSW keys, on five of the Table 3 sets), where the
    /// table has a figure; hekate's seed-compressed keys are to be at or below it.
    pub fn paper_key_mb(&self, cfg: MethodConfig) -> Option<f64> {
        // Columns: AP, GINX, Alg. 5.
        const TABLE4: [(&str, [f64; 3]); 5] = [
            ("MEDIUM", [528.0, 24.0, 24.0]),
            ("STD128", [1408.0, 64.0, 48.0]),
            ("STD128_AP", [1056.0, 48.0, 36.0]),
            ("STD192", [4224.0, 192.0, 144.0]),
            ("STD256", [11904.0, 384.0, 288.0]),
        ];
        let column = match (cfg.method, cfg.alt_mult, cfg.auto_keys) {
            (Method::Ap, false, _) => 0,
            (Method::Ginx, false, _) => 1,
            (Method::LmkcdeyAllEven, false, AutoKeySet::Full) => 2,
            _ => return None,
        };
        TABLE4
            .iter()
            .find(|(name, _)| *name == self.name)
            .map(|(_, row)| row[column])
    }
}

/// The first word hashed into [`FhewParams::fingerprint`]: `b"FHEW"`, zero-padded.
const FHEW_DOMAIN: u64 = u64::from_le_bytes(*b"FHEW\0\0\0\0");

// Codes of the LWE secret distributions (fingerprint and serialized parameters).
pub(crate) const LWE_BINARY: u8 = 0;
pub(crate) const LWE_TERNARY: u8 = 1;
pub(crate) const LWE_GAUSSIAN: u8 = 2;
pub(crate) const LWE_UNIFORM: u8 = 3;

/// The code and parameter word of an LWE secret distribution.
pub(crate) fn lwe_secret_code(d: LweSecretDistribution) -> (u8, u64) {
    match d {
        LweSecretDistribution::Binary => (LWE_BINARY, 0),
        LweSecretDistribution::Ternary => (LWE_TERNARY, 0),
        LweSecretDistribution::Gaussian { sigma } => (LWE_GAUSSIAN, sigma.to_bits()),
        LweSecretDistribution::Uniform { bound } => (LWE_UNIFORM, bound as u64),
    }
}

pub(crate) fn fingerprint_with(p: &FhewParams, schedule: &[(u32, usize)]) -> u64 {
    let (code, param) = lwe_secret_code(p.lwe_secret);
    let mut words = vec![
        FHEW_DOMAIN,
        p.n as u64,
        p.q,
        p.big_n as u64,
        u64::from(p.log_big_q),
        u64::from(p.log_bg),
        p.b_r,
        u64::from(p.log_q_ks),
        u64::from(p.log_b_ks),
        p.sigma.to_bits(),
        u64::from(code),
        param,
        schedule.len() as u64,
    ];
    for &(lb, count) in schedule {
        words.push(u64::from(lb));
        words.push(count as u64);
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    fnv1a64(&bytes)
}

/// The complementary error function (Numerical Recipes `erfcc`, relative error < 1.2e-7),
/// in log space for tiny values.
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Method configurations and presets by name, as the CLI and the Python bindings
    /// spell them.
    #[test]
    fn names() {
        let alt = MethodConfig::by_name("GINX+ALTMULT").unwrap();
        assert_eq!((alt.method, alt.alt_mult), (Method::Ginx, true));
        assert_eq!(
            MethodConfig::by_name("Alg4").unwrap().label(),
            "LMKCDEY-aux"
        );
        assert!(MethodConfig::by_name("GINX+FAST").is_err());
        assert!(MethodConfig::by_name("nope").is_err());
        assert!(FhewParams::by_name("toy").is_err());
        assert_eq!(FhewParams::by_name_or_test("toy").unwrap().name, "TOY");
        assert_eq!(
            FhewParams::by_name_or_test("std128").unwrap().name,
            "STD128"
        );
        assert!(FhewParams::by_name_or_test("STD129").is_err());
    }

    #[test]
    fn paper_variances_cover_table_3_only() {
        let ginx = MethodConfig::new(Method::Ginx);
        assert_eq!(STD128.paper_sigma_acc2(ginx), Some(1.78e11));
        let alt5 = MethodConfig::new(Method::LmkcdeyAllEven).with_alt_mult(true);
        assert_eq!(STD256Q.paper_sigma_acc2(alt5), Some(3.21e14));
        for p in PRESETS
            .iter()
            .filter(|p| p.source == crate::params::fhew::PALISADE)
        {
            for m in [Method::Ap, Method::Ginx, Method::LmkcdeyAllEven] {
                assert!(
                    p.paper_sigma_acc2(MethodConfig::new(m)).is_some(),
                    "{}",
                    p.name
                );
            }
        }
        assert_eq!(OPENFHE_STD128.paper_sigma_acc2(ginx), None);
        assert_eq!(
            STD128.paper_sigma_acc2(MethodConfig::new(Method::LmkcdeyAux)),
            None
        );
        let reduced =
            MethodConfig::new(Method::LmkcdeyAllEven).with_auto_keys(AutoKeySet::Generators);
        assert_eq!(STD128.paper_sigma_acc2(reduced), None);
        assert_eq!(
            STD192.paper_key_mb(MethodConfig::new(Method::LmkcdeyAllEven)),
            Some(144.0)
        );
        assert_eq!(STD128Q.paper_key_mb(ginx), None);
    }

    #[test]
    fn method_names_old_and_new() {
        for m in Method::ALL {
            assert_eq!(Method::by_name(m.name()).unwrap(), m);
            assert_eq!(Method::by_name(m.paper_name()).unwrap(), m);
            assert_eq!(Method::by_name(&m.name().to_lowercase()).unwrap(), m);
        }
        assert_eq!(Method::by_name("Alg4").unwrap(), Method::LmkcdeyAux);
        assert_eq!(
            Method::by_name("lmkcdey-even").unwrap(),
            Method::LmkcdeyAllEven
        );
        let e = Method::by_name("Alg6").unwrap_err().to_string();
        assert!(e.contains("LMKCDEY-aux"), "{e}");
        assert_eq!(Method::lmkcdey(&OPENFHE_STD128_LMKCDEY), Method::LmkcdeyAux);
        assert_eq!(Method::lmkcdey(&STD128), Method::LmkcdeyAllEven);
        for p in PRESETS {
            assert!(Method::lmkcdey(p).applies(p.q, p.big_n), "{}", p.name);
        }
    }

    #[test]
    fn presets_are_valid() {
        for p in PRESETS {
            p.validate().unwrap();
            let q = p.big_q().unwrap();
            assert_eq!(64 - q.leading_zeros(), p.log_big_q);
            assert_eq!(q % (2 * p.big_n as u64), 1);
        }
        assert_eq!(STD128.d_r(), 2);
        assert_eq!(STD256.d_r(), 2);
        assert_eq!(OPENFHE_STD128.log_bg_of(302), 7);
        assert_eq!(OPENFHE_STD128.log_bg_of(303), 9);
        assert!(FhewParams::by_name("nope").is_err());
        assert_eq!(FhewParams::by_name("std128").unwrap().n, 512);
        assert!((erfc(1.0) - 0.157_299_207).abs() < 1e-6);
    }
}
