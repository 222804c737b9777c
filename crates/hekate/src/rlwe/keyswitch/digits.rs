//! The hybrid gadget's digits: which consecutive chain primes each digit
//! `Q_j = prod_{i in D_j} q_i` groups (seed 003 §2.3, `β = dnum` digits).
//!
//! Two rules form them:
//!
//! - **Uniform** ([`DigitPartition::uniform`]): `α = ceil((L + 1) / dnum)` primes per digit,
//!   digit `j` holding `[jα, (j + 1)α)` (the last may be partial, and trailing digits are
//!   empty when `α (dnum - 1) >= L + 1`). This is seed 003's and Lattigo's decomposition.
//! - **By bits** ([`DigitPartition::by_bits`]): from `q_0` up, each digit takes consecutive
//!   primes while its product stays within `P`'s bits less the noise margin
//!   ([`digit_margin_bits`]). On a chain of mixed prime sizes (a bootstrapping chain's
//!   40-bit residual primes under its 60-bit EvalMod primes) the small primes share
//!   digits, so a level uses fewer digits than the uniform rule gives it for the same
//!   `P` and the same noise bound: ModUp's conversions and NTTs and the inner product
//!   scale with the digit count, and keys shrink with it.
//!
//! Either way a digit's key-switching noise is bounded the same way (`Q_j <= P / 2^margin`
//! for by-bits digits, the builder's check for uniform ones), and everything that walks the
//! digits ([`range`](DigitPartition::range), [`digits_at`](DigitPartition::digits_at),
//! [`key_digits`](DigitPartition::key_digits)) reads this one partition.

use crate::rlwe::keys::NOISE_SIGMA;
use std::ops::Range;

/// Bits by which `P` must exceed a digit `Q_j` so that hybrid key switching adds no more
/// noise than ModDown's rounding: `N σ² dnum Q_j² / (12 P²) <= (1 + 2N/3) / 12` holds once
/// `P >= Q_j σ sqrt(1.5 dnum)`; one bit more for slack.
pub fn digit_margin_bits(dnum: usize) -> f64 {
    (NOISE_SIGMA * (1.5 * dnum as f64).sqrt()).log2() + 1.0
}

/// The digits `D_0, ..., D_{dnum-1}` of the hybrid gadget: consecutive runs of chain
/// primes from `q_0` up (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigitPartition {
    /// `bounds[j]..bounds[j + 1]` are digit `j`'s primes; `bounds[0] = 0`,
    /// `bounds[dnum] = L + 1`, non-decreasing (trailing uniform digits may be empty).
    bounds: Vec<usize>,
    by_bits: bool,
}

impl DigitPartition {
    /// `dnum` digits of `α = ceil(l1 / dnum)` primes over a chain of `l1` primes.
    ///
    /// # Panics
    ///
    /// Unless `1 <= dnum <= l1` (the parameter builders check it first).
    pub fn uniform(l1: usize, dnum: usize) -> Self {
        assert!(dnum >= 1 && dnum <= l1, "dnum = {dnum} outside [1, {l1}]");
        let alpha = l1.div_ceil(dnum);
        DigitPartition {
            bounds: (0..=dnum).map(|j| (j * alpha).min(l1)).collect(),
            by_bits: false,
        }
    }

    /// Digits by bits for a chain of `log_q` bits (`log2 q_i`, from `q_0`) under a special
    /// modulus of `log_p` bits: greedy from `q_0`, each digit as many consecutive primes
    /// as keep it within `log_p - `[`digit_margin_bits`]`(dnum)` bits (a prime larger than
    /// that alone is a digit of its own). `dnum` is the count this gives, found as the
    /// least fixed point (a larger count only lowers the bound, so the search climbs
    /// from one digit).
    ///
    /// # Panics
    ///
    /// On an empty chain.
    pub fn by_bits(log_q: &[f64], log_p: f64) -> Self {
        assert!(!log_q.is_empty(), "an empty chain has no digits");
        let mut dnum = 1;
        loop {
            let bounds = greedy(log_q, log_p - digit_margin_bits(dnum));
            if bounds.len() - 1 <= dnum {
                return DigitPartition {
                    bounds,
                    by_bits: true,
                };
            }
            dnum = bounds.len() - 1;
        }
    }

    /// The number of digits `dnum` (`β`), counting trailing empty ones.
    pub fn dnum(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Whether the digits were formed by bits ([`Self::by_bits`]).
    pub fn is_by_bits(&self) -> bool {
        self.by_bits
    }

    /// The chain length `L + 1` the partition covers.
    pub fn chain_len(&self) -> usize {
        self.bounds[self.dnum()]
    }

    /// Digit `j`'s primes below `q_limbs`: `D_j ∩ [0, q_limbs)`.
    pub fn range(&self, j: usize, q_limbs: usize) -> Range<usize> {
        self.bounds[j]..self.bounds[j + 1].min(q_limbs)
    }

    /// The digits in use at `q_limbs` chain limbs: those with a prime below `q_limbs`
    /// (`ceil(q_limbs / α)` for uniform digits).
    pub fn digits_at(&self, q_limbs: usize) -> usize {
        self.bounds[..self.dnum()]
            .iter()
            .take_while(|&&b| b < q_limbs)
            .count()
    }

    /// The digits of a switching key of width `q_limbs` (for levels `< q_limbs`): all
    /// `dnum` for the full key (`q_limbs = L + 1`, trailing empty digits included),
    /// [`Self::digits_at`]`(q_limbs)` otherwise.
    pub fn key_digits(&self, q_limbs: usize) -> usize {
        if q_limbs >= self.chain_len() {
            self.dnum()
        } else {
            self.digits_at(q_limbs)
        }
    }

    /// The most primes any digit holds (`α` for uniform digits).
    pub fn max_primes(&self) -> usize {
        self.bounds
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }

    /// Whether this partition uses at most `other`'s digits at every level
    /// ([`Self::digits_at`] for every `q_limbs`; both over the same chain).
    pub fn never_more_digits_than(&self, other: &DigitPartition) -> bool {
        (1..=self.chain_len()).all(|w| self.digits_at(w) <= other.digits_at(w))
    }

    /// The largest digit's bits, `max_j log2 Q_j`, for a chain of `log_q` bits.
    pub fn max_digit_bits(&self, log_q: &[f64]) -> f64 {
        (0..self.dnum())
            .map(|j| log_q[self.range(j, log_q.len())].iter().sum::<f64>())
            .fold(0.0, f64::max)
    }
}

/// Digit bounds of the greedy grouping under `limit` bits per digit.
fn greedy(log_q: &[f64], limit: f64) -> Vec<usize> {
    let mut bounds = vec![0];
    let mut bits = 0.0;
    for (i, &b) in log_q.iter().enumerate() {
        if i > *bounds.last().expect("starts at 0") && bits + b > limit {
            bounds.push(i);
            bits = 0.0;
        }
        bits += b;
    }
    bounds.push(log_q.len());
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_digits_are_alpha_primes_with_empty_trailing_ones() {
        let d = DigitPartition::uniform(7, 3); // α = 3
        assert_eq!((d.dnum(), d.max_primes(), d.chain_len()), (3, 3, 7));
        assert_eq!(
            (0..3).map(|j| d.range(j, 7)).collect::<Vec<_>>(),
            [0..3, 3..6, 6..7]
        );
        assert_eq!(
            (1..=7).map(|w| d.digits_at(w)).collect::<Vec<_>>(),
            [1, 1, 1, 2, 2, 2, 3]
        );
        assert_eq!(d.range(1, 5), 3..5);
        // 4 primes, dnum = 3: α = 2, the third digit is empty.
        let e = DigitPartition::uniform(4, 3);
        assert_eq!(
            (e.range(2, 4), e.digits_at(4), e.key_digits(4)),
            (4..4, 2, 3)
        );
        assert_eq!(e.key_digits(3), 2);
        for l1 in 1..12 {
            for dnum in 1..=l1 {
                let u = DigitPartition::uniform(l1, dnum);
                let alpha = l1.div_ceil(dnum);
                for w in 1..=l1 {
                    assert_eq!(u.digits_at(w), w.div_ceil(alpha));
                }
            }
        }
    }

    #[test]
    fn digits_by_bits_pack_small_primes_within_the_margin() {
        // Seed 003 Set I's chain shape: 60, nine 40s, three 39s, 60s, 56s under P = 5 x 61.
        let log_q: Vec<f64> = [vec![60.0], vec![40.0; 9], vec![39.0; 3], vec![60.0; 8]]
            .concat()
            .into_iter()
            .chain([56.0; 4])
            .collect();
        let log_p = 5.0 * 61.0;
        let d = DigitPartition::by_bits(&log_q, log_p);
        let limit = log_p - digit_margin_bits(d.dnum());
        let sizes: Vec<usize> = (0..d.dnum()).map(|j| d.range(j, 25).len()).collect();
        assert_eq!(sizes, [7, 7, 5, 5, 1]);
        assert!(d.is_by_bits() && d.max_digit_bits(&log_q) <= limit);
        // Greedy: no digit could take its successor's first prime.
        for j in 0..d.dnum() - 1 {
            let r = d.range(j, 25);
            let next = log_q[r.end];
            assert!(log_q[r].iter().sum::<f64>() + next > limit);
        }
        // A prime above the limit is a digit of its own; the fixed point holds.
        let big = DigitPartition::by_bits(&[61.0, 61.0, 20.0], 60.0);
        assert_eq!(
            (0..big.dnum()).map(|j| big.range(j, 3)).collect::<Vec<_>>(),
            [0..1, 1..2, 2..3]
        );
        assert_eq!(DigitPartition::by_bits(&[30.0; 4], 200.0).dnum(), 1);
    }
}
