//! Linear transforms on the slots, from plaintext diagonals, by baby-step giant-step.
//!
//! **Diagonals.** A linear map `M` on `n` slots is given by its non-zero generalized
//! diagonals `diag_k[i] = M[i][(i + k) mod n]` ([`Diagonals`]); then
//! `M z = Σ_k diag_k ⊙ rot_k(z)`, with `rot_k(z)_i = z_{(i + k) mod n}` the slot rotation.
//! Evaluated like that ([`evaluate_naive`]), it costs one key switch per diagonal.
//!
//! **Baby-step giant-step** (Halevi-Shoup; seed 003 Alg. 5). Writing every diagonal index
//! as `k = i + j` with the *baby step* `j = k mod n1` and the *giant step*
//! `i = k - j` (a multiple of `n1`),
//!
//! ```text
//! M z = Σ_i rot_i( Σ_j rot_{-i}(diag_{i+j}) ⊙ rot_j(z) )
//! ```
//!
//! so only the distinct baby rotations of `z` and the distinct giant rotations of the
//! partial sums are key switches: about `n1 + n2` instead of the number of diagonals, with
//! `n1 · n2 >=` the span of the diagonal indices. The plaintexts are stored pre-rotated
//! (`rot_{-i}(diag_{i+j})`, encoded once by [`LinearTransform::new`]). The baby rotations
//! are **hoisted** (seed 003 Alg. 4: one decomposition of `z`'s `c_1` serves all of them)
//! and the giant rotations are, by default, **double-hoisted**: their key switches are
//! summed before a single ModDown ([`CircuitEvaluator::rotate_sum`]).
//!
//! **Giant-step forms** ([`GiantSteps`]). Double hoisting rotates every partial sum
//! `p_i = Σ_j rot_{-i}(diag_{i+j}) ⊙ rot_j(z)` by its own giant step `i`: one key per
//! distinct giant step. The **Horner** form nests the rotations instead: with the giant
//! steps `i_0 < i_1 < ... < i_m` and the gaps `g_t = i_t - i_{t-1}`,
//!
//! ```text
//! M z = rot_{i_0}( p_{i_0} + rot_{g_1}( p_{i_1} + rot_{g_2}( ... + rot_{g_m}(p_{i_m}) ) ) )
//! ```
//!
//! (`p_{i_t}` is rotated by `i_0 + g_1 + ... + g_t = i_t` in all, so the partial sums are
//! the same), which needs keys only for the distinct gaps and `i_0` (if non-zero): **one**
//! giant-step key (`n1`) when the giant steps are consecutive multiples of `n1`, as in the
//! factors of a DFT. It takes as many key switches as double hoisting (one per non-zero
//! giant step); each of them decomposes the output of the one inside it, so it must bring
//! that output's `c_1` down before the next, but the `u_0` halves stay summed before one
//! ModDown ([`CircuitEvaluator::rotate_horner`], [`BsgsPlan::mod_downs`]). OpenFHE adopted this form
//! (PR #1209, #1225) to halve its bootstrapping keys.
//!
//! **Carrying the outer rotation** ([`BsgsPlan::carrying_outer_rotation`]). In a chain of
//! transforms `M_1 M_0 z`, the outermost giant rotation `rot_{i_0}` of `M_0` need not be
//! done: the transform can return `y = rot_{-i_0}(M_0 z)` and the next one evaluate
//! `M_1 ∘ rot_{i_0}` instead of `M_1`, whose diagonals are `M_1`'s with their indices moved
//! by `i_0` ([`Diagonals::after_rotation`]). A carried plan orders its giant steps
//! cyclically, starting after the largest gap between them, so that a band of diagonals
//! around `0` (indices `-c n1 .. c n1` modulo `n`) is one Horner chain of equal gaps `n1`:
//! the jump across the band's gap would otherwise be a key of its own. Seed 003's
//! factored DFTs are such bands, and slot-wise steps between them (EvalMod, conjugation)
//! commute with rotations, so a bootstrap carries each factor's `i_0` into the next and
//! only the last factor rotates.
//!
//! **Choosing `n1`** ([`BsgsPlan::new`], [`BsgsPlan::choose`]): by default the power of two
//! that minimizes the number of key switches (non-zero baby steps plus non-zero giant
//! steps) for the actual set of diagonals, ties going to fewer giant steps (a giant step
//! decomposes its own input, while the baby steps share one decomposition) or, with
//! [`BsgsTies::FewerKeys`], to fewer rotation keys: a band of `2^k` diagonals has as many
//! key switches at `n1 = 2^(k/2)` as at `2^(k/2 + 1)`, and the smaller `n1` needs half the
//! baby-step keys. Any `n1` can be forced.
//!
//! **Keys.** [`BsgsPlan::rotations`] lists the rotation steps the evaluation uses in the
//! plan's giant-step form (and [`BsgsPlan::galois_elements`] their Galois elements), known
//! before any key exists: generate exactly those keys.
//!
//! **Levels and scales.** The diagonals are encoded at one level `l` and one scale
//! `Δ_M` chosen at [`LinearTransform::new`]; the default `Δ_M = q_l`, the prime the next
//! rescale divides by, so that `rescale(evaluate(z))` has exactly `z`'s scale (a
//! scale-preserving transform). The input is brought down to level `l` (it must not be
//! below it); the output is at level `l` and scale `Δ_z · Δ_M`, **not rescaled**, so
//! several transforms (or a transform and other products) can be summed before one rescale.

use super::CircuitEvaluator;
use crate::{Error, Result};
use num_traits::Zero;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::{Add, Mul};

/// The non-zero diagonals of a linear map `M` on `n` slots: `diag_k[i] = M[i][(i + k) mod n]`
/// for the diagonal indices `k` in `[0, n)` (negative indices are taken modulo `n`).
#[derive(Clone, Debug, PartialEq)]
pub struct Diagonals<V> {
    slots: usize,
    map: BTreeMap<usize, Vec<V>>,
}

impl<V: Copy> Diagonals<V> {
    /// No diagonals yet, for a map on `slots` slots (a power of two).
    pub fn new(slots: usize) -> Result<Self> {
        if !slots.is_power_of_two() {
            return Err(Error::InvalidParameters(format!(
                "a linear transform acts on a power-of-two number of slots, not {slots}"
            )));
        }
        Ok(Diagonals {
            slots,
            map: BTreeMap::new(),
        })
    }

    /// Adds diagonal `k` (taken modulo `n`), of exactly `n` values. Refused if that diagonal
    /// is already present (add the two vectors first).
    pub fn insert(&mut self, k: i64, diagonal: Vec<V>) -> Result<()> {
        if diagonal.len() != self.slots {
            return Err(Error::InvalidParameters(format!(
                "diagonal {k} has {} values; a map on {} slots needs exactly {} per diagonal",
                diagonal.len(),
                self.slots,
                self.slots
            )));
        }
        let k = k.rem_euclid(self.slots as i64) as usize;
        if self.map.insert(k, diagonal).is_some() {
            return Err(Error::InvalidParameters(format!(
                "diagonal {k} (mod {}) given twice: add the two vectors and insert once",
                self.slots
            )));
        }
        Ok(())
    }

    /// The slot count `n`.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The diagonal indices, in `[0, n)`, increasing.
    pub fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.map.keys().copied()
    }

    /// Diagonal `k` (modulo `n`), if present.
    pub fn get(&self, k: i64) -> Option<&[V]> {
        self.map
            .get(&(k.rem_euclid(self.slots as i64) as usize))
            .map(Vec::as_slice)
    }

    /// Number of diagonals.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// The diagonals of `M ∘ rot_o` (rotate the input by `o`, then apply `M`): since
    /// `M rot_o(z) = Σ_k diag_k ⊙ rot_{k + o}(z)`, diagonal `k` moves to index `k + o`
    /// (modulo `n`) with the same values.
    pub fn after_rotation(&self, o: i64) -> Self {
        let n = self.slots as i64;
        let map = self
            .map
            .iter()
            .map(|(&k, d)| (((k as i64 + o).rem_euclid(n)) as usize, d.clone()))
            .collect();
        Diagonals {
            slots: self.slots,
            map,
        }
    }

    /// Whether there are no diagonals.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The baby-step giant-step plan for these diagonals: `n1` baby steps if given, else
    /// the choice of [`BsgsPlan::new`].
    pub fn bsgs(&self, baby_steps: Option<usize>) -> Result<BsgsPlan> {
        BsgsPlan::new(self.indices(), self.slots, baby_steps)
    }
}

impl<V: Copy + PartialEq + Zero + Add<Output = V> + Mul<Output = V>> Diagonals<V> {
    /// The diagonals of a dense `n × n` matrix (`matrix[i][j] = M[i][j]`, `n` a power of
    /// two); all-zero diagonals are left out.
    pub fn from_dense(matrix: &[Vec<V>]) -> Result<Self> {
        let n = matrix.len();
        let mut out = Diagonals::new(n)?;
        if let Some(i) = matrix.iter().position(|row| row.len() != n) {
            return Err(Error::InvalidParameters(format!(
                "row {i} has {} entries; the matrix must be square ({n} × {n})",
                matrix[i].len()
            )));
        }
        for k in 0..n {
            let d: Vec<V> = (0..n).map(|i| matrix[i][(i + k) % n]).collect();
            if d.iter().any(|v| !v.is_zero()) {
                out.map.insert(k, d);
            }
        }
        Ok(out)
    }

    /// `M z` in the clear (the reference the encrypted evaluation approximates).
    pub fn apply(&self, z: &[V]) -> Result<Vec<V>> {
        let n = self.slots;
        if z.len() != n {
            return Err(Error::InvalidMessage(format!(
                "the vector has {} values; this map acts on {n}",
                z.len()
            )));
        }
        let mut out = vec![V::zero(); n];
        for (&k, d) in &self.map {
            for i in 0..n {
                out[i] = out[i] + d[i] * z[(i + k) % n];
            }
        }
        Ok(out)
    }

    /// The diagonals of the product `self · first` (apply `first`, then `self`):
    ///
    /// ```text
    /// (A B)_k[i] = Σ_{a + b ≡ k (mod n)} A_a[i] · B_b[(i + a) mod n]
    /// ```
    ///
    /// at `O(|A| · |B| · n)` operations for `|A|` and `|B|` diagonals. Diagonals of the
    /// product that come out exactly zero everywhere are left out. Both maps must act on
    /// the same number of slots.
    pub fn compose(&self, first: &Diagonals<V>) -> Result<Diagonals<V>> {
        let n = self.slots;
        if first.slots != n {
            return Err(Error::ParameterMismatch(format!(
                "cannot compose a map on {n} slots with a map on {} slots: both must act on \
                 the same slot count",
                first.slots
            )));
        }
        let mut map: BTreeMap<usize, Vec<V>> = BTreeMap::new();
        for (&a, da) in &self.map {
            for (&b, db) in &first.map {
                let acc = map.entry((a + b) % n).or_insert_with(|| vec![V::zero(); n]);
                for (i, out) in acc.iter_mut().enumerate() {
                    *out = *out + da[i] * db[(i + a) % n];
                }
            }
        }
        map.retain(|_, d| d.iter().any(|v| !v.is_zero()));
        Ok(Diagonals { slots: n, map })
    }
}

/// How the giant-step rotations of a BSGS evaluation are done (see the
/// [module documentation](self)).
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
    slots: usize,
    n1: usize,
    /// Giant step `i` -> its baby steps `j` (diagonal `i + j`), both increasing.
    blocks: BTreeMap<usize, Vec<usize>>,
    form: GiantSteps,
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
    /// [module documentation](self)): each chosen by [`BsgsPlan::choose`] in `form` with
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
        let mut plans: Vec<BsgsPlan> = Vec::new();
        for set in index_sets {
            if let Some(prev) = plans.last_mut() {
                *prev = prev.clone().carrying_outer_rotation();
            }
            let offset = plans.last().map_or(0, |p| p.outer_rotation() as i64);
            // Planned before the move, so that its baby steps (and keys) stay those of the
            // transform itself.
            plans.push(Self::choose(set, slots, form, ties)?.after_rotation(offset));
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

    /// The plan of the same split for [`Diagonals::after_rotation`]`(o)` (the diagonals
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
    /// [module documentation](self)). The caller carries `i_0` into what follows (e.g.
    /// the next transform's [`Diagonals::after_rotation`]) and needs no key for it.
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
    fn order(&self) -> Vec<usize> {
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
    /// [`CircuitEvaluator::rotate_horner`] takes `r` pairs instead).
    pub fn mod_downs(&self) -> (usize, usize) {
        let babies = self.baby_steps().iter().filter(|&&j| j != 0).count();
        let giants = self.giant_rotations().len();
        let halves = match self.form {
            GiantSteps::Distinct => 0,
            GiantSteps::Horner => giants.saturating_sub(1),
        };
        (babies + giants.min(1), halves)
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

/// A linear transform ready to evaluate: its plan and its pre-rotated diagonals, encoded
/// at one level and scale (see the [module documentation](self)).
pub struct LinearTransform<E: CircuitEvaluator> {
    plan: BsgsPlan,
    level: usize,
    scale: E::Scale,
    /// Per giant step `i`: `(j, encode(rot_{-i}(diag_{i+j})))` for its baby steps `j`.
    blocks: Vec<GiantStep<E::Plaintext>>,
}

/// One giant step `i` and its encoded, pre-rotated diagonals `(j, rot_{-i}(diag_{i+j}))`.
type GiantStep<P> = (usize, Vec<(usize, P)>);

impl<E: CircuitEvaluator> std::fmt::Debug for LinearTransform<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinearTransform")
            .field("plan", &self.plan)
            .field("level", &self.level)
            .field("scale", &self.scale)
            .finish_non_exhaustive()
    }
}

impl<E: CircuitEvaluator> LinearTransform<E> {
    /// Encodes `diagonals` for evaluation with `plan` (from [`Diagonals::bsgs`]), at `level`
    /// and at `scale` `Δ_M` (default: [`rescale_factor`](CircuitEvaluator::rescale_factor)`(level)`,
    /// so that rescaling the output restores the input's scale exactly).
    pub fn new(
        eval: &E,
        diagonals: &Diagonals<E::Value>,
        plan: BsgsPlan,
        level: usize,
        scale: Option<E::Scale>,
    ) -> Result<Self> {
        let n = diagonals.slots();
        if plan.slots != n
            || !plan.blocks.iter().all(|(i, js)| {
                js.iter()
                    .all(|j| diagonals.map.contains_key(&((i + j) % n)))
            })
            || plan.blocks.values().map(Vec::len).sum::<usize>() != diagonals.len()
        {
            return Err(Error::ParameterMismatch(
                "the BSGS plan was made for other diagonals: build it with Diagonals::bsgs".into(),
            ));
        }
        let scale = scale.unwrap_or_else(|| eval.rescale_factor(level));
        let mut blocks = Vec::with_capacity(plan.blocks.len());
        for (&i, js) in &plan.blocks {
            let mut row = Vec::with_capacity(js.len());
            for &j in js {
                let d = &diagonals.map[&((i + j) % n)];
                // rot_{-i}(d)[t] = d[(t - i) mod n]
                let rotated: Vec<E::Value> = (0..n).map(|t| d[(t + n - i) % n]).collect();
                row.push((j, eval.encode(&rotated, n, level, &scale)?));
            }
            blocks.push((i, row));
        }
        Ok(LinearTransform {
            plan,
            level,
            scale,
            blocks,
        })
    }

    /// The plan (baby and giant steps, rotations needed).
    pub fn plan(&self) -> &BsgsPlan {
        &self.plan
    }

    /// The level `l` the diagonals are encoded at (and the output's level).
    pub fn level(&self) -> usize {
        self.level
    }

    /// The encoded (pre-rotated) diagonals, one plaintext per diagonal.
    pub fn plaintexts(&self) -> impl Iterator<Item = &E::Plaintext> + '_ {
        self.blocks
            .iter()
            .flat_map(|(_, row)| row.iter().map(|(_, pt)| pt))
    }

    /// The diagonals' scale `Δ_M` (the output's scale is `Δ_z · Δ_M`).
    pub fn scale(&self) -> &E::Scale {
        &self.scale
    }

    /// `M z` for the ciphertext `ct` of `z`, by hoisted baby steps and giant steps in the
    /// plan's [`GiantSteps`] form; at level `l` and scale `Δ_z · Δ_M`, not rescaled. `ct` must have the
    /// transform's slot count and a level `>= l` (it is brought down to `l` first).
    pub fn evaluate(&self, eval: &E, ct: &E::Ciphertext) -> Result<E::Ciphertext> {
        let n = self.plan.slots;
        if eval.slots(ct) != n {
            return Err(Error::ParameterMismatch(format!(
                "the ciphertext has {} slots and the transform acts on {n}",
                eval.slots(ct)
            )));
        }
        let level = eval.level(ct);
        if level < self.level {
            return Err(Error::LevelMismatch(format!(
                "the ciphertext is at level {level}, below the transform's level {}: encode \
                 the transform at level {level} or lower",
                self.level
            )));
        }
        let low;
        let ct = if level > self.level {
            low = eval.at_level(ct, self.level)?;
            &low
        } else {
            ct
        };
        let babies = self.plan.baby_steps();
        let rotated;
        let by_step: BTreeMap<usize, &E::Ciphertext> = if babies == [0] {
            BTreeMap::from([(0, ct)]) // no baby rotation: nothing to decompose
        } else {
            let steps: Vec<i64> = babies.iter().map(|&j| j as i64).collect();
            rotated = eval.rotate_hoisted(ct, &steps)?;
            babies.iter().copied().zip(rotated.iter()).collect()
        };
        let mut partial = Vec::with_capacity(self.blocks.len());
        for (i, row) in &self.blocks {
            let mut terms = row.iter();
            let (j, pt) = terms.next().expect("every giant step has a baby step");
            let mut acc = eval.mul_plain(by_step[j], pt)?;
            for (j, pt) in terms {
                eval.mul_plain_add_assign(&mut acc, by_step[j], pt)?;
            }
            partial.push((*i, acc));
        }
        // In evaluation order; every rotation relative to the carried outer rotation `o`.
        let by_giant: BTreeMap<usize, E::Ciphertext> = partial.into_iter().collect();
        let order = self.plan.order();
        let o = self.plan.outer_rotation();
        let n = n as i64;
        match self.plan.form {
            GiantSteps::Distinct => {
                let terms: Vec<(&E::Ciphertext, i64)> = order
                    .iter()
                    .map(|i| (&by_giant[i], (*i as i64 - o as i64).rem_euclid(n)))
                    .collect();
                eval.rotate_sum(&terms)
            }
            GiantSteps::Horner => {
                // p_{i_0} by i_0 - o, then every p_{i_t} by the gap g_t = i_t - i_{t-1}.
                let mut prev = o as i64;
                let terms: Vec<(&E::Ciphertext, i64)> = order
                    .iter()
                    .map(|&i| {
                        let gap = (i as i64 - prev).rem_euclid(n);
                        prev = i as i64;
                        (&by_giant[&i], gap)
                    })
                    .collect();
                eval.rotate_horner(&terms)
            }
        }
    }
}

/// `M z = Σ_k diag_k ⊙ rot_k(z)` with one plain rotation per diagonal, each diagonal
/// encoded at `ct`'s level and at `scale` (the reference [`LinearTransform::evaluate`] is
/// checked against; needs a key for every non-zero diagonal index). Output at `ct`'s
/// level and scale `Δ_z · scale`, not rescaled.
pub fn evaluate_naive<E: CircuitEvaluator>(
    eval: &E,
    diagonals: &Diagonals<E::Value>,
    ct: &E::Ciphertext,
    scale: &E::Scale,
) -> Result<E::Ciphertext> {
    let n = diagonals.slots();
    if eval.slots(ct) != n {
        return Err(Error::ParameterMismatch(format!(
            "the ciphertext has {} slots and the transform acts on {n}",
            eval.slots(ct)
        )));
    }
    let level = eval.level(ct);
    let mut acc: Option<E::Ciphertext> = None;
    for (&k, d) in &diagonals.map {
        let pt = eval.encode(d, n, level, scale)?;
        let r = eval.rotate(ct, k as i64)?;
        match acc.as_mut() {
            None => acc = Some(eval.mul_plain(&r, &pt)?),
            Some(a) => eval.mul_plain_add_assign(a, &r, &pt)?,
        }
    }
    acc.ok_or_else(|| {
        Error::InvalidParameters("a linear transform needs at least one diagonal".into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64 as C64;

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
    fn diagonals_after_rotation_apply_to_the_rotated_input() {
        use rand_core::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(0x0ff5e7);
        let n = 16;
        let m = Diagonals::from_dense(&random_dense(&mut rng, n)).unwrap();
        let z = random_dense(&mut rng, n).remove(0);
        for o in [0i64, 1, 7, -5] {
            let rotated: Vec<C64> = (0..n)
                .map(|i| z[(i as i64 + o).rem_euclid(n as i64) as usize])
                .collect();
            let want = m.apply(&rotated).unwrap();
            let got = m.after_rotation(o).apply(&z).unwrap();
            assert!(max_diff(&got, &want) < 1e-12, "o = {o}");
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

    fn random_dense(rng: &mut rand_chacha::ChaCha20Rng, n: usize) -> Vec<Vec<C64>> {
        use rand_core::RngCore;
        let mut unit = || (rng.next_u64() >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0;
        (0..n)
            .map(|_| (0..n).map(|_| C64::new(unit(), unit())).collect())
            .collect()
    }

    fn dense_product(a: &[Vec<C64>], b: &[Vec<C64>]) -> Vec<Vec<C64>> {
        let n = a.len();
        (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| (0..n).map(|t| a[i][t] * b[t][j]).sum())
                    .collect()
            })
            .collect()
    }

    fn max_diff(x: &[C64], y: &[C64]) -> f64 {
        x.iter()
            .zip(y)
            .map(|(p, q)| (p - q).norm())
            .fold(0.0, f64::max)
    }

    #[test]
    fn compose_matches_dense_products_and_applying_twice() {
        use rand_core::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(0x5eed_c0de);
        for n in [1usize, 2, 8, 16] {
            // Dense maps, and sparse ones (a few diagonals) to exercise missing indices.
            let a = random_dense(&mut rng, n);
            let b = random_dense(&mut rng, n);
            let sparse = |ks: &[i64], rows: &[Vec<C64>]| {
                let mut d = Diagonals::new(n).unwrap();
                for (&k, row) in ks.iter().zip(rows) {
                    if d.get(k).is_none() {
                        d.insert(k, row.clone()).unwrap();
                    }
                }
                d
            };
            let sparse_a = sparse(&[0, 3], &a);
            let sparse_b = sparse(&[1, -1], &b);
            let da = Diagonals::from_dense(&a).unwrap();
            let db = Diagonals::from_dense(&b).unwrap();
            let ab = da.compose(&db).unwrap();
            let want = Diagonals::from_dense(&dense_product(&a, &b)).unwrap();
            assert_eq!(
                ab.indices().collect::<Vec<_>>(),
                want.indices().collect::<Vec<_>>()
            );
            for k in want.indices() {
                let k = k as i64;
                assert!(max_diff(ab.get(k).unwrap(), want.get(k).unwrap()) < 1e-12 * n as f64);
            }
            let z = random_dense(&mut rng, n).remove(0);
            for (x, y) in [(&da, &db), (&sparse_a, &sparse_b), (&sparse_b, &da)] {
                let twice = x.apply(&y.apply(&z).unwrap()).unwrap();
                let once = x.compose(y).unwrap().apply(&z).unwrap();
                assert!(max_diff(&twice, &once) < 1e-12 * n as f64, "n = {n}");
            }
        }
    }

    #[test]
    fn compose_drops_zero_diagonals_and_checks_slot_counts() {
        // The shift by +1 then by -1 (the n - 1 diagonal): the identity, one diagonal.
        let one = C64::new(1.0, 0.0);
        let mut left = Diagonals::new(8).unwrap();
        left.insert(1, vec![one; 8]).unwrap();
        let mut right = Diagonals::new(8).unwrap();
        right.insert(-1, vec![one; 8]).unwrap();
        let id = left.compose(&right).unwrap();
        assert_eq!(id.indices().collect::<Vec<_>>(), vec![0]);
        assert_eq!(id.get(0).unwrap(), &[one; 8][..]);
        // (shift + shift^-1) with a sign that cancels the identity term exactly: only ±2 stay.
        let mut p = Diagonals::new(8).unwrap();
        p.insert(1, vec![one; 8]).unwrap();
        p.insert(-1, vec![one; 8]).unwrap();
        let mut m = Diagonals::new(8).unwrap();
        m.insert(1, vec![one; 8]).unwrap();
        m.insert(-1, vec![-one; 8]).unwrap();
        assert_eq!(
            p.compose(&m).unwrap().indices().collect::<Vec<_>>(),
            vec![2, 6]
        );
        assert!(matches!(
            left.compose(&Diagonals::new(4).unwrap()),
            Err(Error::ParameterMismatch(_))
        ));
    }

    #[test]
    fn dense_diagonals_apply_as_the_matrix() {
        use num_complex::Complex64 as C;
        let m: Vec<Vec<C>> = (0..4)
            .map(|i| {
                (0..4)
                    .map(|j| C::new((3 * i + j) as f64, (i as f64) - 1.0))
                    .collect()
            })
            .collect();
        let d = Diagonals::from_dense(&m).unwrap();
        let z: Vec<C> = (0..4).map(|i| C::new(1.0 + i as f64, -0.5)).collect();
        let want: Vec<C> = m
            .iter()
            .map(|row| row.iter().zip(&z).map(|(a, b)| a * b).sum())
            .collect();
        assert_eq!(d.apply(&z).unwrap(), want);
        assert!(Diagonals::<C>::new(6).is_err());
        let mut d = Diagonals::new(4).unwrap();
        d.insert(-1, vec![C::new(1.0, 0.0); 4]).unwrap();
        assert!(d.insert(3, vec![C::new(1.0, 0.0); 4]).is_err());
        assert!(d.insert(1, vec![C::new(1.0, 0.0); 3]).is_err());
    }
}
