//! Named FHEW parameter sets ([`FhewParams`]), also reachable as `hekate::fhew::params::*`.
//!
//! *The paper's Table 3 sets* (`MEDIUM` .. `STD256Q`): `n, q, N, log Q, B_g` are the
//! table's. The paper leaves the rest to its reference \[4\]; the values come from PALISADE
//! v1.11 `binfhecontext.cpp` (the \[4\] implementation the paper measured): `σ = 3.19`,
//! ternary secrets, `B_r = 23` (`q = 512`) or `32` (`q = 1024`), so `d_r = 2` as the table
//! states. PALISADE switched LWE keys modulo `Q` in base 25; hekate switches modulo
//! `Q_ks = 2^14` in base `2^7` (OpenFHE's later choice for the same dimensions), which
//! changes only the key-switching noise (accounted for in
//! [`FhewParams::failure_probability`]), never `σ_acc^2`.
//!
//! *OpenFHE 1.6.1 sets* (`OPENFHE_STD128`, `OPENFHE_STD128_LMKCDEY`, `OPENFHE_MEDIUM`,
//! `OPENFHE_STD192`): the rows of OpenFHE 1.6.1 `binfhecontext.cpp`, including the
//! per-index gadget bases of its `gadgetBaseMap` (`{{128, 303}, {512, 251}}` for STD128:
//! the first 303 blind-rotation keys in base 2^7, the rest in base 2^9).
//!
//! [`PRESETS`] lists the single-key sets (not all of them 128-bit:
//! [`FhewParams::security`] says which are, and
//! [`FhewContext::new`](crate::fhew::FhewContext::new) refuses the others unless the
//! caller opts out).

use crate::fhew::{FhewParams, LweSecretDistribution};

pub(crate) const PALISADE: &str =
    "seed 002 Table 3; B_r, σ, secrets from PALISADE v1.11 binfhecontext.cpp \
                        ([4]); Q_ks = 2^14, B_ks = 2^7 from OpenFHE";
const OPENFHE: &str = "OpenFHE 1.6.1 binfhecontext.cpp";

#[allow(clippy::too_many_arguments)]
const fn table3(
    name: &'static str,
    claimed_security: &'static str,
    n: usize,
    q: u64,
    big_n: usize,
    log_big_q: u32,
    log_bg: u32,
    b_r: u64,
) -> FhewParams {
    FhewParams {
        name,
        source: PALISADE,
        claimed_security,
        n,
        q,
        big_n,
        log_big_q,
        log_bg,
        bg_schedule: &[],
        b_r,
        log_q_ks: 14,
        log_b_ks: 7,
        sigma: 3.19,
        lwe_secret: LweSecretDistribution::Ternary,
    }
}

/// Table 3 `MEDIUM`.
pub const MEDIUM: FhewParams = table3(
    "MEDIUM",
    "108 classical / 100 quantum",
    256,
    512,
    1024,
    27,
    9,
    23,
);
/// Table 3 `STD128`.
pub const STD128: FhewParams = table3("STD128", "128 classical", 512, 512, 1024, 27, 7, 23);
/// Table 3 `STD128_AP`.
pub const STD128_AP: FhewParams = table3("STD128_AP", "128 classical", 512, 512, 1024, 27, 9, 23);
/// Table 3 `STD192`.
pub const STD192: FhewParams = table3("STD192", "192 classical", 512, 512, 2048, 37, 13, 23);
/// Table 3 `STD256`.
pub const STD256: FhewParams = table3("STD256", "256 classical", 1024, 1024, 2048, 29, 10, 32);
/// Table 3 `STD128Q`.
pub const STD128Q: FhewParams = table3("STD128Q", "128 quantum", 512, 512, 2048, 50, 25, 23);
/// Table 3 `STD192Q`.
pub const STD192Q: FhewParams = table3("STD192Q", "192 quantum", 1024, 1024, 2048, 35, 12, 32);
/// Table 3 `STD256Q`.
pub const STD256Q: FhewParams = table3("STD256Q", "256 quantum", 1024, 1024, 2048, 27, 7, 32);

/// OpenFHE 1.6.1 `STD128`: `{27, 2048, 554, 2048, 32768, 256, 128, 64, 10, TERNARY, 3.19,
/// {{128, 303}, {512, 251}}}`.
pub const OPENFHE_STD128: FhewParams = FhewParams {
    name: "OPENFHE_STD128",
    source: OPENFHE,
    claimed_security: "128 classical (OpenFHE's estimate)",
    n: 554,
    q: 2048,
    big_n: 1024,
    log_big_q: 27,
    log_bg: 7,
    bg_schedule: &[(7, 303), (9, 251)],
    b_r: 64,
    log_q_ks: 15,
    log_b_ks: 8,
    sigma: 3.19,
    lwe_secret: LweSecretDistribution::Ternary,
};

/// OpenFHE 1.6.1 `STD128_LMKCDEY`: `{27, 2048, 554, 2048, 32768, 256, 512, 64, 40,
/// TERNARY, 3.19, {{512, 552}, {16384, 2}}}`.
pub const OPENFHE_STD128_LMKCDEY: FhewParams = FhewParams {
    name: "OPENFHE_STD128_LMKCDEY",
    bg_schedule: &[(9, 552), (14, 2)],
    log_bg: 9,
    ..OPENFHE_STD128
};

/// OpenFHE 1.6.1 `MEDIUM`: `{28, 2048, 422, 1024, 16384, 128, 1024, 32, 10, TERNARY, 3.19,
/// {{1024, 422}}}`.
pub const OPENFHE_MEDIUM: FhewParams = FhewParams {
    name: "OPENFHE_MEDIUM",
    source: OPENFHE,
    claimed_security: "108 classical (OpenFHE's estimate)",
    n: 422,
    q: 1024,
    big_n: 1024,
    log_big_q: 28,
    log_bg: 10,
    bg_schedule: &[],
    b_r: 32,
    log_q_ks: 14,
    log_b_ks: 7,
    sigma: 3.19,
    lwe_secret: LweSecretDistribution::Ternary,
};

/// OpenFHE 1.6.1 `STD192`: `{28, 4096, 820, 4096, 32768, 256, 128, 64, 10, TERNARY, 3.19,
/// {{128, 658}, {1024, 162}}}`.
pub const OPENFHE_STD192: FhewParams = FhewParams {
    name: "OPENFHE_STD192",
    source: OPENFHE,
    claimed_security: "192 classical (OpenFHE's estimate)",
    n: 820,
    q: 4096,
    big_n: 2048,
    log_big_q: 28,
    log_bg: 7,
    bg_schedule: &[(7, 658), (10, 162)],
    b_r: 64,
    log_q_ks: 15,
    log_b_ks: 8,
    sigma: 3.19,
    lwe_secret: LweSecretDistribution::Ternary,
};

/// A small set for tests and the demo (not secure): `n = 32`, `q = 256`, `N = 256`.
pub const TOY: FhewParams = FhewParams {
    name: "TOY",
    source: "hekate test set (insecure)",
    claimed_security: "none (toy)",
    n: 32,
    q: 256,
    big_n: 256,
    log_big_q: 27,
    log_bg: 7,
    bg_schedule: &[],
    b_r: 16,
    log_q_ks: 14,
    log_b_ks: 7,
    sigma: 3.19,
    lwe_secret: LweSecretDistribution::Ternary,
};

/// Insecure test set for threshold FHEW with up to 16 parties ([`crate::fhew::threshold`]):
/// `n = 32`, `q = 2N = 512` (Alg. 3, 4), `N = 256`, a 50-bit `Q` with `B_g = 2^7`
/// (`d_g = 8`) to absorb the `RGSW ⊗ RGSW` products of the joint keys, and
/// `Q_ks = 2^16`, `B_ks = 2^8` so that the key-switching noise of `k` summed key shares
/// stays small.
pub const TOY_THRESHOLD: FhewParams = FhewParams {
    name: "TOY_THRESHOLD",
    source: "hekate threshold test set (insecure)",
    claimed_security: "none (toy)",
    n: 32,
    q: 512,
    big_n: 256,
    log_big_q: 50,
    log_bg: 7,
    bg_schedule: &[],
    b_r: 16,
    log_q_ks: 16,
    log_b_ks: 8,
    sigma: 3.19,
    lwe_secret: LweSecretDistribution::Ternary,
};

/// Threshold FHEW with up to 16 parties ([`crate::fhew::threshold`]; Alg. 3 or 4, `q = 2N`):
/// `N = 2048` and a 54-bit `Q` (the HomomorphicEncryption.org 128-bit bound for
/// `N = 2048`, ternary secrets; the joint key `z_*` is wider than ternary, so at least as
/// hard), `B_g = 2^6` (`d_g = 9`); `n = 700`, `Q_ks = 2^18` (each party's key-switching
/// share is LWE with `n = 700`, `log Q_ks = 18`, `σ = 3.19`: the ratio `n / log q ≈ 39` of
/// the 128-bit ternary table, which allows 27 bits at `n = 1024`), `B_ks = 2^3`,
/// `q = 4096 = 2N`. The 18-bit key-switching modulus is what makes `k = 16` work: the
/// key-switching noise `N d_ks k σ^2 (q/Q_ks)^2` would dominate at `Q_ks = 2^16`.
pub const STD128_THRESHOLD: FhewParams = FhewParams {
    name: "STD128_THRESHOLD",
    source: "hekate (seed 002 §6 analysis)",
    claimed_security: "128 classical (estimate from the HomomorphicEncryption.org table)",
    n: 700,
    q: 4096,
    big_n: 2048,
    log_big_q: 54,
    log_bg: 6,
    bg_schedule: &[],
    b_r: 32,
    log_q_ks: 18,
    log_b_ks: 3,
    sigma: 3.19,
    lwe_secret: LweSecretDistribution::Ternary,
};

/// Every named single-key preset (the threshold sets [`TOY_THRESHOLD`] and
/// [`STD128_THRESHOLD`] are reached through [`crate::fhew::threshold`]; the insecure [`TOY`] is
/// not listed). Not every preset is 128-bit: [`FhewParams::security`] says which are, and
/// [`FhewContext::new`](crate::fhew::FhewContext::new) refuses the others unless the caller opts
/// out.
pub const PRESETS: [&FhewParams; 12] = [
    &MEDIUM,
    &STD128,
    &STD128_AP,
    &STD192,
    &STD256,
    &STD128Q,
    &STD192Q,
    &STD256Q,
    &OPENFHE_STD128,
    &OPENFHE_STD128_LMKCDEY,
    &OPENFHE_MEDIUM,
    &OPENFHE_STD192,
];

/// Every named set, the insecure and threshold ones included: parameters read from bytes
/// that equal one of them in every numeric field get its name and descriptions.
pub(crate) const NAMED: [&FhewParams; 15] = [
    &MEDIUM,
    &STD128,
    &STD128_AP,
    &STD192,
    &STD256,
    &STD128Q,
    &STD192Q,
    &STD256Q,
    &OPENFHE_STD128,
    &OPENFHE_STD128_LMKCDEY,
    &OPENFHE_MEDIUM,
    &OPENFHE_STD192,
    &TOY,
    &TOY_THRESHOLD,
    &STD128_THRESHOLD,
];
