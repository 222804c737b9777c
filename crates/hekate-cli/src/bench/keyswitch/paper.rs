//! The papers' figures: seed 000 Tables 3-4 (KLSS against hybrid) and seed 001 Table
//! VIII (linear against hybrid; CKKS, BGV and BFV rows), shown beside the measured ones.

use super::args::T8Scheme;

/// One `(ℓ̃, r)` cell of seed 000 Tables 3-4 (seconds, one thread, Lattigo on a Xeon
/// Platinum 8268).
pub(super) struct PaperKlss {
    pub(super) log_n: u32,
    pub(super) l_tilde: usize,
    pub(super) r: usize,
    /// "Prev": the hybrid key switch.
    pub(super) prev: f64,
    /// "Ours" for the paper's r̃ sweep ([`paper_sweep`]).
    pub(super) ours: [f64; 6],
    /// The paper's speedup column (best of `ours` against `prev`).
    pub(super) speedup: f64,
}

const fn pk(log_n: u32, l_tilde: usize, r: usize, prev: f64, ours: [f64; 6], s: f64) -> PaperKlss {
    PaperKlss {
        log_n,
        l_tilde,
        r,
        prev,
        ours,
        speedup: s,
    }
}

/// Seed 000 Tables 3 (`N = 2^15`) and 4 (`N = 2^16`).
#[allow(clippy::approx_constant)] // 0.318 s is a measured time, not 1/π
pub(super) const PAPER_KLSS: &[PaperKlss] = &[
    pk(
        15,
        16,
        1,
        0.143,
        [0.116, 0.101, 0.084, 0.086, 0.087, 0.092],
        1.7,
    ),
    pk(
        15,
        16,
        2,
        0.096,
        [0.074, 0.078, 0.062, 0.075, 0.076, 0.076],
        1.5,
    ),
    pk(
        15,
        16,
        3,
        0.077,
        [0.083, 0.070, 0.066, 0.077, 0.067, 0.076],
        1.2,
    ),
    pk(
        15,
        20,
        1,
        0.216,
        [0.162, 0.139, 0.112, 0.118, 0.115, 0.129],
        1.9,
    ),
    pk(
        15,
        20,
        2,
        0.145,
        [0.102, 0.103, 0.085, 0.092, 0.107, 0.093],
        1.7,
    ),
    pk(
        15,
        20,
        3,
        0.113,
        [0.109, 0.088, 0.087, 0.089, 0.088, 0.089],
        1.3,
    ),
    pk(
        15,
        24,
        1,
        0.317,
        [0.214, 0.183, 0.140, 0.152, 0.142, 0.151],
        2.3,
    ),
    pk(
        15,
        24,
        2,
        0.204,
        [0.128, 0.128, 0.110, 0.118, 0.124, 0.125],
        1.9,
    ),
    pk(
        15,
        24,
        3,
        0.151,
        [0.137, 0.106, 0.112, 0.114, 0.101, 0.115],
        1.5,
    ),
    pk(
        16,
        32,
        1,
        1.181,
        [0.744, 0.605, 0.455, 0.476, 0.451, 0.499],
        2.6,
    ),
    pk(
        16,
        32,
        2,
        0.854,
        [0.414, 0.427, 0.352, 0.399, 0.408, 0.388],
        2.4,
    ),
    pk(
        16,
        32,
        3,
        0.655,
        [0.466, 0.341, 0.335, 0.364, 0.350, 0.372],
        2.0,
    ),
    pk(
        16,
        32,
        4,
        0.486,
        [0.403, 0.357, 0.343, 0.319, 0.318, 0.301],
        1.6,
    ),
    pk(
        16,
        40,
        1,
        1.841,
        [1.098, 0.905, 0.682, 0.711, 0.604, 0.690],
        3.0,
    ),
    pk(
        16,
        40,
        2,
        1.378,
        [0.621, 0.623, 0.508, 0.531, 0.574, 0.532],
        2.7,
    ),
    pk(
        16,
        40,
        3,
        1.038,
        [0.659, 0.521, 0.506, 0.519, 0.479, 0.507],
        2.2,
    ),
    pk(
        16,
        40,
        4,
        0.929,
        [0.581, 0.554, 0.514, 0.456, 0.481, 0.438],
        2.1,
    ),
    pk(
        16,
        48,
        1,
        2.688,
        [1.532, 1.234, 0.876, 0.938, 0.818, 0.880],
        3.3,
    ),
    pk(
        16,
        48,
        2,
        1.980,
        [0.823, 0.791, 0.655, 0.702, 0.727, 0.670],
        3.0,
    ),
    pk(
        16,
        48,
        3,
        1.438,
        [0.834, 0.629, 0.630, 0.657, 0.585, 0.617],
        2.5,
    ),
    pk(
        16,
        48,
        4,
        1.191,
        [0.738, 0.670, 0.650, 0.589, 0.592, 0.550],
        2.2,
    ),
];

/// The paper's r̃ sweep for `r`.
pub(super) fn paper_sweep(r: usize) -> [usize; 6] {
    if r == 1 {
        [1, 2, 3, 4, 5, 6]
    } else {
        [2, 3, 4, 5, 6, 7]
    }
}

/// The paper's `r'` (Eq. (5), 60-bit `B'` primes) for `r` and `r̃`, as printed in Tables
/// 3-4 (it depends on neither `N` nor `ℓ̃` there).
pub(super) fn paper_r_prime(r: usize, r_tilde: usize) -> Option<usize> {
    let row: [usize; 6] = match r {
        1 => [2, 3, 3, 4, 4, 5],
        2 => [3, 4, 4, 5, 6, 6],
        3 => [4, 4, 5, 6, 6, 7],
        4 => [4, 5, 6, 6, 7, 7],
        _ => return None,
    };
    let at = paper_sweep(r).iter().position(|&t| t == r_tilde)?;
    Some(row[at])
}

pub(super) fn paper_klss(log_n: u32, l_tilde: usize, r: usize) -> Option<&'static PaperKlss> {
    PAPER_KLSS
        .iter()
        .find(|p| (p.log_n, p.l_tilde, p.r) == (log_n, l_tilde, r))
}

/// One row of seed 001 Table VIII (ms, one NVIDIA A100).
pub(super) struct PaperLinear {
    pub(super) scheme: T8Scheme,
    pub(super) log_n: u32,
    /// The paper's `l` (BFV's counts one more than its primes).
    pub(super) l: usize,
    pub(super) baseline_ms: f64,
    pub(super) linear_ms: f64,
    pub(super) speedup: f64,
}

const fn pl(
    scheme: T8Scheme,
    log_n: u32,
    l: usize,
    baseline_ms: f64,
    linear_ms: f64,
    speedup: f64,
) -> PaperLinear {
    PaperLinear {
        scheme,
        log_n,
        l,
        baseline_ms,
        linear_ms,
        speedup,
    }
}

use T8Scheme::{Bfv, Bgv, Ckks};

/// Seed 001 Table VIII ("Baseline" is hybrid with α = 1, "Ours" linear; one NVIDIA A100).
pub(super) const PAPER_LINEAR: &[PaperLinear] = &[
    pl(Ckks, 14, 8, 2.84, 1.99, 1.4),
    pl(Ckks, 14, 16, 6.68, 3.45, 1.9),
    pl(Ckks, 14, 24, 10.00, 5.32, 1.9),
    pl(Ckks, 14, 32, 15.45, 7.82, 2.0),
    pl(Ckks, 15, 8, 3.95, 2.95, 1.3),
    pl(Ckks, 15, 16, 8.61, 5.80, 1.5),
    pl(Ckks, 15, 24, 16.57, 10.26, 1.6),
    pl(Ckks, 15, 32, 26.65, 16.13, 1.7),
    pl(Ckks, 16, 8, 5.06, 4.80, 1.1),
    pl(Ckks, 16, 16, 14.34, 11.75, 1.2),
    pl(Ckks, 16, 24, 28.53, 21.15, 1.3),
    pl(Ckks, 16, 32, 47.94, 32.89, 1.5),
    pl(Bgv, 14, 8, 2.98, 2.14, 1.4),
    pl(Bgv, 14, 16, 6.91, 3.60, 1.9),
    pl(Bgv, 14, 24, 9.18, 5.48, 1.7),
    pl(Bgv, 14, 32, 13.19, 8.07, 1.6),
    pl(Bgv, 15, 8, 4.31, 3.12, 1.4),
    pl(Bgv, 15, 16, 9.25, 6.01, 1.5),
    pl(Bgv, 15, 24, 17.34, 10.44, 1.7),
    pl(Bgv, 15, 32, 27.41, 16.43, 1.7),
    pl(Bgv, 16, 8, 5.68, 4.99, 1.1),
    pl(Bgv, 16, 16, 15.26, 11.99, 1.3),
    pl(Bgv, 16, 24, 30.04, 21.36, 1.4),
    pl(Bgv, 16, 32, 49.62, 33.12, 1.5),
    pl(Bfv, 14, 8, 2.33, 1.45, 1.6),
    pl(Bfv, 15, 15, 7.65, 4.36, 1.8),
    pl(Bfv, 16, 34, 54.62, 32.96, 1.7),
];

/// The paper's row for `(scheme, N = 2^log_n, l)`, if it has one.
pub(super) fn paper_linear(scheme: T8Scheme, log_n: u32, l: usize) -> Option<&'static PaperLinear> {
    PAPER_LINEAR
        .iter()
        .find(|p| (p.scheme, p.log_n, p.l) == (scheme, log_n, l))
}
