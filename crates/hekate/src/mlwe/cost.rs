//! Operation counts of MLWE-CKKS relinearization: hekate's, and seed 004's formulas
//! (Table 1 for ModHE, §3.3.1 for DPad-HE), in limb transforms ((I)NTTs of one `n`-point
//! limb) and limb Hadamard products.
//!
//! Notation (seed 004): `ℓ̃ = l + 1` chain limbs, `ℓ̃' = ℓ̃ + k` with `P`'s `k` primes,
//! `ℓ̃'' = ℓ̃ + K̂` with `P̂`'s primes; `d` and `μ` the digits in use at the level.
//!
//! hekate's key switch of `r1` inputs into `w` columns costs `r1 d ℓ̃' + w (ℓ̃ + k)`
//! transforms, which differs from Table 1 in two places, both in hekate's favour:
//!
//! * **Decomposition**: `d ℓ̃'` per input, not `ℓ̃ + d ℓ̃'`. Each digit's own limbs are the
//!   input's NTT-form limbs, so the `ℓ̃` inverse transforms that give the coefficient
//!   form are paid back by the `α` forward ones each digit skips.
//! * **ModDown**: `ℓ̃ + k` per column, not `ℓ̃ + ℓ̃'`: only `P`'s limbs go to
//!   coefficient form; the converted limbs are transformed forward once (`ℓ̃`).
//!
//! Hadamard products are those of the inner products, `r1 d w ℓ̃'` (Table 1's
//! `r(r+1)^2 d ℓ̃'/2` for ModHE), plus the tensor's `(r+1)^2 ℓ̃`.

use super::keys::{quadratic_terms, RelinMethod};
use super::params::MlweContext;

/// Limb transforms and limb Hadamard products of one operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCount {
    /// (I)NTTs of one limb.
    pub transforms: u64,
    /// Element-wise products of one limb.
    pub hadamards: u64,
}

impl std::ops::Add for OpCount {
    type Output = OpCount;
    fn add(self, o: OpCount) -> OpCount {
        OpCount {
            transforms: self.transforms + o.transforms,
            hadamards: self.hadamards + o.hadamards,
        }
    }
}

/// hekate's key switch: `inputs` polynomials over `ql` chain limbs decomposed into
/// `digits` digits over `ql + k`, inner products into `width` columns, ModDown of each.
fn switch(inputs: usize, digits: usize, width: usize, ql: usize, k: usize) -> OpCount {
    let lp = (ql + k) as u64;
    let (r1, d, w) = (inputs as u64, digits as u64, width as u64);
    OpCount {
        transforms: r1 * d * lp + w * (ql + k) as u64,
        hadamards: r1 * d * w * lp,
    }
}

impl MlweContext {
    /// The digits of `KeySwitch_d` in use at `level` (`ceil((l + 1) / α)`).
    pub fn digits_at(&self, level: usize) -> usize {
        self.ks.digits_at(level + 1)
    }

    /// hekate's relinearization at `level` and rank `r` by `method` (the tensor's products
    /// included, rescaling not): the figures [`crate::math::transform_count`] reads
    /// around [`Evaluator::mul`](super::Evaluator::mul), by construction.
    pub fn relin_cost(&self, method: RelinMethod, level: usize) -> OpCount {
        let (r, ql, k) = (self.rank, level + 1, self.ring().p_len());
        let tensor = OpCount {
            transforms: 0,
            hadamards: ((r + 1) * (r + 1) * ql) as u64,
        };
        let quad = quadratic_terms(r);
        tensor
            + match (method, &self.dpad) {
                (RelinMethod::DPad, Some(dp)) => {
                    let kh = dp.ring().p_len();
                    let mu = dp.ks.digits_at(ql);
                    switch(quad, mu, 1 + dp.rank_hat, ql, kh)
                        + switch(dp.rank_hat - r, self.digits_at(level), 1 + r, ql, k)
                }
                _ => switch(quad, self.digits_at(level), 1 + r, ql, k),
            }
    }

    /// Seed 004's count of the same relinearization: Table 1 for ModHE (tensor,
    /// decomposition, inner product, ModDown with `k = 1`); for DPad-HE the tensor, §3.3.1's
    /// stages 1 and 2, and the ModDown of Table 1 for each stage's columns (§3.3.1 lists
    /// no ModDown, which each stage needs).
    pub fn paper_relin_cost(&self, method: RelinMethod, level: usize) -> OpCount {
        let r = self.rank as u64;
        let l = (level + 1) as u64;
        let k = self.ring().p_len() as u64;
        let lp = l + k;
        let d = self.digits_at(level) as u64;
        let quad = r * (r + 1) / 2;
        let tensor_h = (r + 1) * (r + 1) * l;
        let mod_down = |cols: u64, lp: u64, k: u64| OpCount {
            transforms: cols * (l + lp),
            hadamards: if k == 1 { cols * l } else { cols * (k + 1) * l },
        };
        match (method, &self.dpad) {
            (RelinMethod::DPad, Some(dp)) => {
                let kh = dp.ring().p_len() as u64;
                let lpp = l + kh;
                let mu = dp.ks.digits_at(level + 1) as u64;
                let rh = dp.rank_hat as u64;
                OpCount {
                    transforms: quad * (l + mu * lpp) + (rh - r) * d * lp,
                    hadamards: tensor_h
                        + r * (r + 1) * (rh + 1) * mu * lpp / 2
                        + (r + 1) * (rh - r) * d * lp,
                } + mod_down(rh + 1, lpp, kh)
                    + mod_down(r + 1, lp, k)
            }
            _ => {
                OpCount {
                    transforms: quad * (l + d * lp),
                    hadamards: tensor_h + r * (r + 1) * (r + 1) * d * lp / 2,
                } + mod_down(r + 1, lp, k)
            }
        }
    }
}
