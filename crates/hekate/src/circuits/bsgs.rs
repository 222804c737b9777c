//! Baby-step giant-step plans (seed 003 Alg. 5) for the linear transforms of
//! [`lintrans`](super::lintrans): how the diagonal indices split into baby and giant
//! steps, how the giant steps are rotated ([`GiantSteps`]), how `n1` is chosen
//! ([`BsgsPlan::choose`], [`BsgsTies`]), and, for a chain of transforms, which outer
//! rotation each carries into the next ([`BsgsPlan::chain`]). The plans know the key
//! switches, decompositions, ModDowns and rotation keys an evaluation takes before any key
//! exists. The method is described in the [`lintrans` documentation](super::lintrans).

use crate::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};

/// How the giant-step rotations of a BSGS evaluation are done (see the
/// [`lintrans` documentation](super::lintrans)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GiantSteps {
    /// Each partial sum rotated by its own giant step `i`, the key switches summed before
    /// one ModDown (double hoisting, seed 003 Alg. 6): a key per distinct non-zero `i`.
    #[default]
    Distinct,
    /// Nested rotations by the gaps between consecutive giant steps (and by the smallest
    /// giant step `i_0`, if non-zero): a key per distinct gap, and one ModDown per
    /// rotation.
    Horner,
}

/// How [`BsgsPlan::choose`] breaks ties between values of `n1` with the fewest key
/// switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BsgsTies {
    /// Fewer giant steps (faster: the baby steps share one decomposition, each giant
    /// step decomposes its own input).
    #[default]
    FewerGiantSteps,
    /// Fewer rotation keys (less key memory), counted in the plan's [`GiantSteps`] form
    /// with the outer rotation carried ([`BsgsPlan::carrying_outer_rotation`]).
    FewerKeys,
}

/// How a set of diagonals is split into baby and giant steps (seed 003 Alg. 5): diagonal
/// `k = i + j` with baby step `j = k mod n1` and giant step `i = k - j`; and how the giant
/// steps are rotated ([`GiantSteps`], by default [`GiantSteps::Distinct`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BsgsPlan {
    pub(super) slots: usize,
    n1: usize,
    /// Giant step `i` -> its baby steps `j` (diagonal `i + j`), both increasing.
    pub(super) blocks: BTreeMap<usize, Vec<usize>>,
    pub(super) form: GiantSteps,
    /// Whether the outer rotation `rot_{i_0}` is left to the caller
    /// ([`BsgsPlan::carrying_outer_rotation`]).
    carry: bool,
}

impl BsgsPlan {
    /// The plan for diagonal `indices` (in `[0, slots)`) with `baby_steps = n1` if given
    /// (`1 <= n1 <= slots`), else the power of two with the fewest key switches
    /// ([`BsgsPlan::key_switches`]), ties to fewer giant steps.
    pub fn new(
        indices: impl IntoIterator<Item = usize>,
        slots: usize,
        baby_steps: Option<usize>,
    ) -> Result<Self> {
        let idx = Self::checked(indices, slots)?;
        match baby_steps {
            Some(n1) => {
                if n1 == 0 || n1 > slots {
                    return Err(Error::InvalidParameters(format!(
                        "the baby-step count n1 = {n1} must be in [1, {slots}]"
                    )));
                }
                Ok(Self::with_n1(&idx, slots, n1))
            }
            None => Ok(Self::fewest_key_switches(
                &idx,
                slots,
                BsgsTies::FewerGiantSteps,
                GiantSteps::Distinct,
            )),
        }
    }

    /// The plan for diagonal `indices` (in `[0, slots)`) in giant-step `form` with the
    /// power-of-two `n1` of fewest key switches ([`BsgsPlan::key_switches`]), ties broken
    /// by `ties`.
    pub fn choose(
        indices: impl IntoIterator<Item = usize>,
        slots: usize,
        form: GiantSteps,
        ties: BsgsTies,
    ) -> Result<Self> {
        let idx = Self::checked(indices, slots)?;
        Ok(Self::fewest_key_switches(&idx, slots, ties, form).with_giant_steps(form))
    }

    /// The plans of a chain of transforms `M_{m-1} ... M_1 M_0` on `slots` slots, from
    /// their diagonal index sets in application order (see the
    /// [`lintrans` documentation](super::lintrans)): each chosen by [`BsgsPlan::choose`] in `form` with
    /// `ties`, every one but the last carrying its outer rotation into the next. Transform
    /// `t > 0` must be evaluated on its diagonals moved by the previous plan's carried
    /// rotation, `diagonals_t.after_rotation(plans[t - 1].outer_rotation())`; its plan is
    /// already moved. The last plan rotates, so the chain's output is the product's.
    pub fn chain<I: IntoIterator<Item = usize>>(
        index_sets: impl IntoIterator<Item = I>,
        slots: usize,
        form: GiantSteps,
        ties: BsgsTies,
    ) -> Result<Vec<Self>> {
        Self::chain_with(index_sets, slots, form, ties, &[])
    }

    /// [`BsgsPlan::chain`] with transform `t`'s baby-step modulus `n1` fixed to
    /// `baby_steps[t]` where that is `Some` (`1 <= n1 <= slots`; a missing or `None` entry
    /// is chosen as `chain` does): how a key budget buys fewer giant steps
    /// ([`BootstrapConfig::key_memory_cap`](crate::ckks::bootstrap::BootstrapConfig::key_memory_cap)).
    pub fn chain_with<I: IntoIterator<Item = usize>>(
        index_sets: impl IntoIterator<Item = I>,
        slots: usize,
        form: GiantSteps,
        ties: BsgsTies,
        baby_steps: &[Option<usize>],
    ) -> Result<Vec<Self>> {
        let mut plans: Vec<BsgsPlan> = Vec::new();
        for (t, set) in index_sets.into_iter().enumerate() {
            if let Some(prev) = plans.last_mut() {
                *prev = prev.clone().carrying_outer_rotation();
            }
            let offset = plans.last().map_or(0, |p| p.outer_rotation() as i64);
            // Planned before the move, so that its baby steps (and keys) stay those of the
            // transform itself.
            let plan = match baby_steps.get(t).copied().flatten() {
                Some(n1) => Self::new(set, slots, Some(n1))?.with_giant_steps(form),
                None => Self::choose(set, slots, form, ties)?,
            };
            plans.push(plan.after_rotation(offset));
        }
        Ok(plans)
    }

    /// The diagonal indices as a set: at least one, each below `slots`.
    fn checked(indices: impl IntoIterator<Item = usize>, slots: usize) -> Result<BTreeSet<usize>> {
        let idx: BTreeSet<usize> = indices.into_iter().collect();
        if idx.is_empty() {
            return Err(Error::InvalidParameters(
                "a linear transform needs at least one diagonal".into(),
            ));
        }
        if let Some(&k) = idx.iter().find(|&&k| k >= slots) {
            return Err(Error::InvalidParameters(format!(
                "diagonal index {k} is not below the slot count {slots}"
            )));
        }
        Ok(idx)
    }

    fn fewest_key_switches(
        idx: &BTreeSet<usize>,
        slots: usize,
        ties: BsgsTies,
        form: GiantSteps,
    ) -> Self {
        let key = |p: &BsgsPlan| {
            let tie = match ties {
                BsgsTies::FewerGiantSteps => p.giant_steps().len(),
                BsgsTies::FewerKeys => p
                    .clone()
                    .with_giant_steps(form)
                    .carrying_outer_rotation()
                    .rotations()
                    .len(),
            };
            (p.key_switches(), tie)
        };
        let mut best: Option<(BsgsPlan, (usize, usize))> = None;
        let mut n1 = 1;
        while n1 <= slots {
            let cand = Self::with_n1(idx, slots, n1);
            let k = key(&cand);
            if best.as_ref().is_none_or(|(_, b)| k < *b) {
                best = Some((cand, k));
            }
            n1 *= 2;
        }
        best.expect("at least n1 = 1 was tried").0
    }

    fn with_n1(idx: &BTreeSet<usize>, slots: usize, n1: usize) -> Self {
        let mut blocks: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &k in idx {
            let j = k % n1;
            blocks.entry(k - j).or_default().push(j);
        }
        BsgsPlan {
            slots,
            n1,
            blocks,
            form: GiantSteps::Distinct,
            carry: false,
        }
    }

    /// The plan of the same split for [`Diagonals::after_rotation`](super::lintrans::Diagonals::after_rotation)`(o)` (the diagonals
    /// of `M ∘ rot_o`, indices moved by `o`): the same baby steps, every giant step moved
    /// by `o` (modulo `n`). The giant steps are then `≡ o (mod n1)` rather than multiples
    /// of `n1`, with the same gaps, so a chain of transforms carrying rotations keeps each
    /// one's baby steps (and keys).
    pub fn after_rotation(mut self, o: i64) -> Self {
        let n = self.slots as i64;
        self.blocks = std::mem::take(&mut self.blocks)
            .into_iter()
            .map(|(i, js)| (((i as i64 + o).rem_euclid(n)) as usize, js))
            .collect();
        self
    }

    /// The same plan, returning `rot_{-i_0}(M z)` instead of `M z`: the first giant step
    /// `i_0` ([`BsgsPlan::outer_rotation`]) is not rotated by, and the giant steps are
    /// ordered cyclically from the one after the largest gap (see the
    /// [`lintrans` documentation](super::lintrans)). The caller carries `i_0` into what follows (e.g.
    /// the next transform's [`Diagonals::after_rotation`](super::lintrans::Diagonals::after_rotation)) and needs no key for it.
    pub fn carrying_outer_rotation(mut self) -> Self {
        self.carry = true;
        self
    }

    /// `i_0` when the plan carries its outer rotation (the output is
    /// `rot_{-i_0}(M z)`), else `0`.
    pub fn outer_rotation(&self) -> usize {
        if self.carry {
            self.order()[0]
        } else {
            0
        }
    }

    /// The giant steps in evaluation order: increasing, or, carrying the outer rotation,
    /// cyclically from the one after the largest gap between consecutive steps (modulo
    /// `n`; ties to the latest gap, so a set without a wrap-around gap keeps its order).
    pub(super) fn order(&self) -> Vec<usize> {
        let giants = self.giant_steps();
        if !self.carry || giants.len() < 2 {
            return giants;
        }
        let m = giants.len();
        let gap = |t: usize| (giants[(t + 1) % m] + self.slots - giants[t]) % self.slots;
        let widest = (0..m).rev().max_by_key(|&t| gap(t)).expect("m >= 2");
        let start = (widest + 1) % m;
        giants[start..]
            .iter()
            .chain(&giants[..start])
            .copied()
            .collect()
    }

    /// The same split into baby and giant steps, with the giant steps rotated in `form`.
    pub fn with_giant_steps(mut self, form: GiantSteps) -> Self {
        self.form = form;
        self
    }

    /// How the giant steps are rotated.
    pub fn giant_step_form(&self) -> GiantSteps {
        self.form
    }

    /// The slot count `n`.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The baby-step modulus `n1`.
    pub fn n1(&self) -> usize {
        self.n1
    }

    /// The distinct baby steps `j` used (increasing; `0` included if used).
    pub fn baby_steps(&self) -> Vec<usize> {
        let s: BTreeSet<usize> = self.blocks.values().flatten().copied().collect();
        s.into_iter().collect()
    }

    /// The distinct giant steps `i` used (multiples of `n1`, or `≡ o (mod n1)` after
    /// [`BsgsPlan::after_rotation`]`(o)`; increasing); their count is `n2`.
    pub fn giant_steps(&self) -> Vec<usize> {
        self.blocks.keys().copied().collect()
    }

    /// The rotations the giant-step part performs, in order: [`GiantSteps::Distinct`],
    /// the non-zero `i - o` (modulo `n`) for the giant steps `i` and the carried outer
    /// rotation `o` (`0` if none); [`GiantSteps::Horner`], from the innermost out, the
    /// gaps `g_m, ..., g_1` (modulo `n`) and then `i_0` if non-zero and not carried.
    fn giant_rotations(&self) -> Vec<usize> {
        let order = self.order();
        let n = self.slots;
        match self.form {
            GiantSteps::Distinct => {
                let o = self.outer_rotation();
                order
                    .into_iter()
                    .map(|i| (i + n - o) % n)
                    .filter(|&r| r != 0)
                    .collect()
            }
            GiantSteps::Horner => {
                let mut r: Vec<usize> = order
                    .windows(2)
                    .rev()
                    .map(|w| (w[1] + n - w[0]) % n)
                    .collect();
                if !self.carry {
                    r.extend(order.first().copied().filter(|&i0| i0 != 0));
                }
                r
            }
        }
    }

    /// The number of key switches one evaluation performs: the non-zero baby steps plus
    /// the giant rotations — the non-zero giant steps, in either [`GiantSteps`] form
    /// (Horner rotates by the gaps and by `i_0 != 0` instead: as many rotations); one
    /// fewer when a non-zero outer rotation is carried.
    pub fn key_switches(&self) -> usize {
        let babies = self.baby_steps().into_iter().filter(|&x| x != 0).count();
        babies + self.giant_rotations().len()
    }

    /// The decompositions (key-switch step 1) one evaluation performs: one shared by the
    /// hoisted baby steps (none if every baby step is `0`), plus one per giant rotation
    /// (either form).
    pub fn decompositions(&self) -> usize {
        let babies = self.baby_steps().iter().any(|&j| j != 0) as usize;
        babies + self.giant_rotations().len()
    }

    /// The ModDowns (key-switch step 3) one evaluation performs, as
    /// `(pairs, halves)`: pairs `(u_0, u_1)` and lone `u_1` halves. One pair per non-zero
    /// baby step; for the `r` non-zero giant steps, [`GiantSteps::Distinct`]: one pair for
    /// all of them; [`GiantSteps::Horner`] (with the CKKS evaluator's
    /// [`rotate_horner`](crate::ckks::Evaluator::rotate_horner)): one pair and `r - 1`
    /// halves, the `u_1` each rotation's successor decomposes (the default
    /// [`CircuitEvaluator::rotate_horner`](super::CircuitEvaluator::rotate_horner) takes `r` pairs instead).
    pub fn mod_downs(&self) -> (usize, usize) {
        let babies = self.baby_steps().iter().filter(|&&j| j != 0).count();
        let giants = self.giant_rotations().len();
        let halves = match self.form {
            GiantSteps::Distinct => 0,
            GiantSteps::Horner => giants.saturating_sub(1),
        };
        (babies + giants.min(1), halves)
    }

    /// Whether an evaluator whose key-switch accumulators are polynomials over `Q_l ∪ P`
    /// (the hybrid engine, [`CircuitEvaluator::encode_extended`](super::CircuitEvaluator::encode_extended))
    /// runs this plan by seed 003 Alg. 6, the baby rotations and their products kept over
    /// `Q_l ∪ P`, in either [`GiantSteps`] form: when it has a non-zero baby step (without
    /// one there is no baby ModDown to save).
    pub fn extended_inner_loop(&self) -> bool {
        self.baby_steps().iter().any(|&j| j != 0)
    }

    /// [`BsgsPlan::mod_downs`] when the plan runs by Alg. 6 over `Q_l ∪ P`
    /// ([`BsgsPlan::extended_inner_loop`]): one pair at the end, and a `u_1` half per
    /// non-zero giant rotation (each decomposes its input, brought down by `P`), in either
    /// form; no ModDown per baby step.
    pub fn extended_mod_downs(&self) -> (usize, usize) {
        (1, self.giant_rotations().len())
    }

    /// The rotation steps (left, in `[1, n)`) the evaluation needs keys for in the plan's
    /// [`GiantSteps`] form, increasing (for
    /// [`CkksContext::generate_galois_keys`](crate::ckks::CkksContext::generate_galois_keys)):
    /// the non-zero baby steps, and [`GiantSteps::Distinct`]: the non-zero giant steps;
    /// [`GiantSteps::Horner`]: the distinct gaps between consecutive giant steps and the
    /// smallest giant step if non-zero.
    pub fn rotations(&self) -> Vec<i64> {
        let s: BTreeSet<i64> = self
            .baby_steps()
            .into_iter()
            .filter(|&j| j != 0)
            .chain(self.giant_rotations())
            .map(|x| x as i64)
            .collect();
        s.into_iter().collect()
    }

    /// The Galois elements of [`BsgsPlan::rotations`] in a ring of degree `ring_degree`
    /// (`5^k mod 2N`), increasing.
    pub fn galois_elements(&self, ring_degree: usize) -> Vec<usize> {
        let s: BTreeSet<usize> = self
            .rotations()
            .into_iter()
            .map(|k| crate::ring::automorphism::galois_element_for_rotation(k, ring_degree))
            .collect();
        s.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_covers_every_diagonal_once() {
        let idx = [0usize, 1, 2, 3, 5, 8, 13, 21, 34, 55];
        for n1 in [1, 2, 3, 4, 7, 8, 64] {
            let p = BsgsPlan::new(idx, 64, Some(n1)).unwrap();
            let mut got: Vec<usize> = p
                .blocks
                .iter()
                .flat_map(|(i, js)| js.iter().map(move |j| i + j))
                .collect();
            got.sort_unstable();
            assert_eq!(got, idx);
            assert!(p.giant_steps().iter().all(|i| i % n1 == 0));
            assert!(p.baby_steps().iter().all(|&j| j < n1));
        }
    }

    #[test]
    fn automatic_n1_minimizes_key_switches() {
        // A dense 64x64 map: 64 diagonals; n1 = 8 gives 7 + 7 = 14 key switches, the minimum.
        let p = BsgsPlan::new(0..64, 64, None).unwrap();
        assert_eq!((p.n1(), p.key_switches()), (8, 14));
        for n1 in [1, 2, 4, 8, 16, 32, 64] {
            assert!(BsgsPlan::new(0..64, 64, Some(n1)).unwrap().key_switches() >= 14);
        }
        // Three diagonals {0, 1, 2}: a single giant step (n1 = 4) with two baby rotations.
        let p = BsgsPlan::new([0, 1, 2], 1024, None).unwrap();
        assert_eq!((p.rotations(), p.key_switches()), (vec![1, 2], 2));
        // A band around 0 (indices -2..=2 mod n): rotations {1, 2, n-2, n-1} at n1 = 1 or
        // fewer with a larger n1; the plan never needs more than the naive 4.
        let p = BsgsPlan::new([0, 1, 2, 1022, 1023], 1024, None).unwrap();
        assert!(p.key_switches() <= 4);
    }

    #[test]
    fn horner_keys_are_the_baby_steps_the_gaps_and_a_nonzero_first_giant_step() {
        let horner = |idx: &[usize], n: usize, n1: usize| {
            let p = BsgsPlan::new(idx.iter().copied(), n, Some(n1)).unwrap();
            assert_eq!(p.giant_step_form(), GiantSteps::Distinct);
            let h = p.clone().with_giant_steps(GiantSteps::Horner);
            // Same split, same key switches and decompositions; one ModDown per giant
            // rotation instead of one for all.
            assert_eq!((h.n1(), h.giant_steps()), (p.n1(), p.giant_steps()));
            assert_eq!(h.key_switches(), p.key_switches());
            assert_eq!(h.decompositions(), p.decompositions());
            let giants = p.giant_steps().iter().filter(|&&i| i != 0).count();
            let (pairs, halves) = p.mod_downs();
            assert_eq!(halves, 0);
            assert_eq!(h.mod_downs(), (pairs, giants.saturating_sub(1)));
            (p.rotations(), h.rotations(), h.galois_elements(2 * n).len())
        };
        // A dense 64-slot map at n1 = 8: giant steps 0, 8, ..., 56, all gaps 8.
        let (d, h, g) = horner(&(0..64).collect::<Vec<_>>(), 64, 8);
        assert_eq!(d, (1..8).chain((8..64).step_by(8)).collect::<Vec<i64>>());
        assert_eq!(h, (1..=8).collect::<Vec<i64>>());
        assert_eq!(g, 8);
        // Sparse, non-contiguous, i_0 = 0: giant steps 0 (3), 16 (17, 18), 40, 96 (100);
        // gaps 16, 24, 56.
        let (d, h, _) = horner(&[3, 17, 18, 40, 100], 128, 8);
        assert_eq!(d, vec![1, 2, 3, 4, 16, 40, 96]);
        assert_eq!(h, vec![1, 2, 3, 4, 16, 24, 56]);
        // i_0 = 8 != 0: giant steps 8, 32, 64, 120 (127 = -1); gaps 24, 32, 56 and i_0.
        let (d, h, _) = horner(&[9, 10, 33, 64, 127], 128, 8);
        assert_eq!(d, vec![1, 2, 7, 8, 32, 64, 120]);
        assert_eq!(h, vec![1, 2, 7, 8, 24, 32, 56]);
        // A single giant step i_0 != 0: Horner rotates by i_0 only, as double hoisting.
        let (d, h, _) = horner(&[33, 34], 128, 32);
        assert_eq!((d.clone(), h), (vec![1, 2, 32], d));
        // Only baby step 0: no baby decomposition.
        let p = BsgsPlan::new([0, 16, 32], 64, Some(16)).unwrap();
        let h = p.clone().with_giant_steps(GiantSteps::Horner);
        assert_eq!((p.decompositions(), p.mod_downs()), (2, (1, 0)));
        assert_eq!(
            (h.decompositions(), h.mod_downs(), h.rotations()),
            (2, (1, 1), vec![16])
        );
    }

    /// A band of diagonals `-(w - 1) s ..= (w - 1) s` in steps of `s` (modulo `n`).
    fn band(n: usize, w: usize, s: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..w).flat_map(|t| [t * s % n, (n - t * s) % n]).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    #[test]
    fn a_carried_band_is_one_chain_of_equal_gaps() {
        // Band -7..=7 on 64 slots, n1 = 4: giant steps 0, 4, 56, 60. Applied, Horner
        // rotates by 4, then the jump 52 across the band's gap, then 4: keys 1, 2, 3, 4,
        // 52. Carried, it starts at 56: gaps 4, 4, 4 and the output is rot_{-56}(M z).
        let p = BsgsPlan::new(band(64, 8, 1), 64, Some(4))
            .unwrap()
            .with_giant_steps(GiantSteps::Horner);
        assert_eq!(p.giant_steps(), vec![0, 4, 56, 60]);
        assert_eq!((p.rotations(), p.key_switches()), (vec![1, 2, 3, 4, 52], 6));
        assert_eq!(p.outer_rotation(), 0);
        let c = p.clone().carrying_outer_rotation();
        assert_eq!(c.outer_rotation(), 56);
        assert_eq!((c.rotations(), c.key_switches()), (vec![1, 2, 3, 4], 6));
        assert_eq!(c.decompositions(), 1 + 3);
        assert_eq!(c.mod_downs(), (3 + 1, 2));
        // Distinct form, carried: every giant step relative to 56.
        let d = p
            .with_giant_steps(GiantSteps::Distinct)
            .carrying_outer_rotation();
        assert_eq!(d.rotations(), vec![1, 2, 3, 4, 8, 12]);
        // Without a wrap-around gap the order stays increasing and the start is i_0.
        let c = BsgsPlan::new([9, 10, 33], 128, Some(8))
            .unwrap()
            .with_giant_steps(GiantSteps::Horner)
            .carrying_outer_rotation();
        assert_eq!((c.outer_rotation(), c.rotations()), (8, vec![1, 2, 24]));
    }

    #[test]
    fn moved_plans_keep_their_baby_steps_and_cover_the_moved_diagonals() {
        let idx = band(256, 8, 4);
        let p = BsgsPlan::new(idx.iter().copied(), 256, Some(16)).unwrap();
        for o in [0i64, 5, 16, -3, 200] {
            let q = p.clone().after_rotation(o);
            assert_eq!(q.baby_steps(), p.baby_steps());
            assert_eq!(q.giant_steps().len(), p.giant_steps().len());
            let mut got: Vec<usize> = q
                .blocks
                .iter()
                .flat_map(|(i, js)| js.iter().map(move |j| (i + j) % 256))
                .collect();
            got.sort_unstable();
            let mut want: Vec<usize> = idx
                .iter()
                .map(|&k| (k as i64 + o).rem_euclid(256) as usize)
                .collect();
            want.sort_unstable();
            assert_eq!(got, want, "o = {o}");
        }
    }

    #[test]
    fn ties_to_fewer_keys_take_the_smaller_n1_of_a_band() {
        // 31 diagonals (-15..=15) on 1024 slots: n1 = 4 and n1 = 8 both take 10 key
        // switches (3 + 7 and 7 + 3); fewer giant steps picks 8 (8 keys carried), fewer
        // keys picks 4 (4 keys carried).
        let idx = band(1024, 16, 1);
        let fast = BsgsPlan::choose(
            idx.iter().copied(),
            1024,
            GiantSteps::Horner,
            BsgsTies::FewerGiantSteps,
        )
        .unwrap();
        let lean = BsgsPlan::choose(
            idx.iter().copied(),
            1024,
            GiantSteps::Horner,
            BsgsTies::FewerKeys,
        )
        .unwrap();
        assert_eq!((fast.n1(), fast.key_switches()), (8, 10));
        assert_eq!((lean.n1(), lean.key_switches()), (4, 10));
        assert_eq!(lean.giant_step_form(), GiantSteps::Horner);
        let keys = |p: &BsgsPlan| p.clone().carrying_outer_rotation().rotations().len();
        assert_eq!((keys(&fast), keys(&lean)), (8, 4));
        assert_eq!(
            fast,
            BsgsPlan::new(idx, 1024, None)
                .unwrap()
                .with_giant_steps(GiantSteps::Horner)
        );
    }
}
