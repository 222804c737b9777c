//! The KLSS engine's configuration: how `B'` is sized ([`KlssBound`], the per-digit
//! bounds that give `r'_i`), what a key keeps ([`KeyStorage`]), and the prime layout of
//! `Q̃` and `B'` the key and the engine share.

use crate::math::rns::RnsBasis;
use crate::ring::RingContext;
use std::ops::Range;

/// How the auxiliary base `B'` is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KlssBound {
    /// Seed 000 Eq. (5): `B' > 2 d N B B̃` (times the accumulation count): exact for every
    /// input.
    WorstCase,
    /// Hoeffding's bound for inputs with uniform digits, failure probability `2^-64` per
    /// coefficient: `|Σ| < sqrt(ln(2^65) / 2 · Σ (2 B_j B̃)^2)`. Not safe against inputs
    /// chosen by an adversary who knows the switching key (see the module documentation).
    Heuristic,
}

/// The KLSS engine's parameters (beyond the hybrid key's `dnum`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KlssConfig {
    /// `r̃`: primes of `Q̃ = PQ` per key digit (`>= 1`).
    pub r_tilde: usize,
    /// `r'`: primes in `B'`; `None` derives the smallest that meets [`bound`](Self::bound).
    pub r_prime: Option<usize>,
    /// How `B'` is sized.
    pub bound: KlssBound,
    /// Bit size of the `B'` primes (`ν`, 30 to 61).
    pub b_prime_bits: u32,
    /// Products that [`KeySwitcher::multiply_add`] may sum in `B'` before recombining.
    ///
    /// [`KeySwitcher::multiply_add`]: crate::rlwe::keyswitch::KeySwitcher::multiply_add
    pub accumulation: usize,
}

impl KlssConfig {
    /// KLSS with `r̃` primes per key digit, `r'` derived by Eq. (5), 61-bit `B'` primes.
    pub fn klss(r_tilde: usize) -> Self {
        KlssConfig {
            r_tilde,
            r_prime: None,
            bound: KlssBound::WorstCase,
            b_prime_bits: 61,
            accumulation: 1,
        }
    }

    /// Linear key switching (seed 001): `r̃ = 1`, `r'` derived.
    pub fn linear() -> Self {
        Self::klss(1)
    }

    /// With a given bound.
    pub fn with_bound(mut self, bound: KlssBound) -> Self {
        self.bound = bound;
        self
    }

    /// With `r'` given instead of derived (checked against the bound).
    pub fn with_r_prime(mut self, r_prime: usize) -> Self {
        self.r_prime = Some(r_prime);
        self
    }
}

/// What a [`KlssKey`] keeps in memory. Serialized keys are the ordinary (hybrid,
/// seed-compressed) form either way, and are expanded again on load.
///
/// [`KlssKey`]: super::KlssKey
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyStorage {
    /// Only the expanded key (the least memory); serialization contracts it back to the
    /// ordinary form.
    ExpandedOnly,
    /// The expanded key and the ordinary hybrid key it came from (more memory): a mixed
    /// engine switches with the ordinary key at its hybrid levels, and serialization writes
    /// it as it is.
    #[doc(alias = "Compact")]
    ExpandedWithOrdinary,
}

/// The `PQ` primes of key digit `i` (`r̃` primes per digit) among the first `used`:
/// `[i r̃, min((i + 1) r̃, used))`.
pub(in crate::rlwe::keyswitch) fn key_digit_primes(
    i: usize,
    r_tilde: usize,
    used: usize,
) -> Range<usize> {
    i * r_tilde..((i + 1) * r_tilde).min(used)
}

/// `log2` of the bound the `B'` primes of each key digit `i` have to exceed (twice the
/// largest inner-product sum with that digit, whose coefficients are below `B̃_i =
/// D̃_i / 2`): Eq. (5) per digit, or its heuristic counterpart ([`KlssBound`]).
pub(in crate::rlwe::keyswitch) fn log_bounds(
    ctx: &RingContext,
    dnum: usize,
    config: &KlssConfig,
) -> Vec<f64> {
    let pq = pq_order(ctx);
    let l1 = ctx.q_len();
    let alpha = l1.div_ceil(dnum);
    let q = ctx.q().moduli();
    let lg =
        |ms: &[crate::math::Modulus]| -> f64 { ms.iter().map(|m| (m.value() as f64).log2()).sum() };
    // log2 B_j = log2(D_j / 2), log2 B̃_i = log2(D̃_i / 2).
    let log_bj: Vec<f64> = (0..dnum)
        .map(|j| lg(&q[j * alpha..((j + 1) * alpha).min(l1)]) - 1.0)
        .collect();
    let log_n = ctx.n() as f64;
    let acc = config.accumulation as f64;
    let bound = |log_bt: f64| match config.bound {
        KlssBound::WorstCase => {
            // B' > 2 · acc · N · Σ_j B_j · B̃_i  (Eq. (5), with the sum over the digits
            // instead of d · max B_j); Σ_j 2^(b_j) computed as 2^min · Σ 2^(b_j - min).
            let min_b = log_bj.iter().copied().fold(f64::MAX, f64::min);
            let s: f64 = log_bj.iter().map(|&b| 2f64.powf(b - min_b)).sum();
            1.0 + acc.log2() + log_n.log2() + min_b + s.log2() + log_bt
        }
        KlssBound::Heuristic => {
            // |Σ| < t with P <= 2 exp(-2 t² / Σ range²) = 2^-64, range = 2 B_j B̃_i for
            // each of the acc · N terms per digit; B' > 2 t.
            let max_b = log_bj.iter().copied().fold(f64::MIN, f64::max);
            let s: f64 = log_bj.iter().map(|&b| 2f64.powf(2.0 * (b - max_b))).sum();
            let log_sum_range2 =
                2.0 + acc.log2() + log_n.log2() + 2.0 * (max_b + log_bt) + s.log2();
            let log_t = 0.5 * (log_sum_range2 + (65.0 * std::f64::consts::LN_2 / 2.0).log2());
            1.0 + log_t
        }
    };
    pq.chunks(config.r_tilde)
        .map(|c| bound(lg(c) - 1.0))
        .collect()
}

/// The first `r` primes of `B'` (the ring `aux`): the base of a key digit with `r'_i = r`.
pub(super) fn b_prefix(aux: &RingContext, r: usize) -> RnsBasis {
    RnsBasis::from_moduli(aux.q().moduli()[..r].to_vec())
}

/// The limb of a `Q_l ∪ P` polynomial (chain limbs first) holding prime `t` of the PQ
/// order (special primes first), with `q_limbs` chain and `k` special limbs.
#[inline]
pub(super) fn poly_limb(t: usize, q_limbs: usize, k: usize) -> usize {
    if t < k {
        q_limbs + t
    } else {
        t - k
    }
}

/// The primes of `Q̃` in PQ order: `p_0 .. p_{k-1}, q_0 .. q_L`.
pub(super) fn pq_order(ctx: &RingContext) -> Vec<crate::math::Modulus> {
    ctx.p()
        .moduli()
        .iter()
        .chain(ctx.q().moduli())
        .copied()
        .collect()
}
