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
//! **The inner loop over `Q_l ∪ P`** (seed 003 Alg. 6 proper). With at least one baby
//! rotation ([`BsgsPlan::extended_inner_loop`]), in either giant-step form, an evaluator whose
//! key-switch accumulators are polynomials over `Q_l ∪ P` (the hybrid engine: its
//! [`CircuitEvaluator::encode_extended`] returns the diagonals over `Q_l ∪ P`) keeps every
//! baby rotation there, `(φ_g(P c_0 + u_0), φ_g(u_1))`, multiplies and sums the partial
//! sums there, and brings down only each giant step's `c_1` before its decomposition and
//! the result once at the end (the Horner form's `u_0` halves and the distinct form's sum
//! stay over `Q_l ∪ P` throughout; [`CircuitEvaluator::bsgs_extended`];
//! [`BsgsPlan::extended_mod_downs`]): no ModDown per baby step, one rounding instead of
//! several, the products over `l + 1 + k` limbs and the diagonals `(l + 1 + k) / (l + 1)`
//! times larger. Other evaluators and engines (KLSS, linear) take the single-hoisted baby
//! steps above ([`LinearTransform::is_extended`] tells which ran).
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

pub use super::bsgs::{BsgsPlan, BsgsTies, GiantSteps};
use super::CircuitEvaluator;
use crate::rlwe::ExtendedBlock;
use crate::{Error, Result};
use num_traits::Zero;
use std::collections::BTreeMap;
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
    pub fn after_rotation(mut self, o: i64) -> Self {
        let n = self.slots as i64;
        self.map = std::mem::take(&mut self.map)
            .into_iter()
            .map(|(k, d)| (((k as i64 + o).rem_euclid(n)) as usize, d))
            .collect();
        self
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

/// A linear transform ready to evaluate: its plan and its pre-rotated diagonals, encoded
/// at one level and scale (see the [module documentation](self)).
pub struct LinearTransform<E: CircuitEvaluator> {
    plan: BsgsPlan,
    level: usize,
    scale: E::Scale,
    /// Per giant step `i`: `(j, encode(rot_{-i}(diag_{i+j})))` for its baby steps `j`.
    blocks: Vec<GiantStep<E::Plaintext>>,
    /// Whether the diagonals are over `Q_l ∪ P` and the evaluation runs by Alg. 6
    /// ([`CircuitEvaluator::bsgs_extended`]).
    extended: bool,
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
        // Over Q_l ∪ P if the plan has baby rotations to keep there and the evaluator can
        // (its answer for the first diagonal holds for all: one level).
        let mut extended = plan.extended_inner_loop();
        let mut first = true;
        for (&i, js) in &plan.blocks {
            let mut row = Vec::with_capacity(js.len());
            for &j in js {
                let d = &diagonals.map[&((i + j) % n)];
                // rot_{-i}(d)[t] = d[(t - i) mod n]
                let rotated: Vec<E::Value> = (0..n).map(|t| d[(t + n - i) % n]).collect();
                let wide = if extended {
                    eval.encode_extended(&rotated, n, level, &scale)?
                } else {
                    None
                };
                let pt = match wide {
                    Some(pt) => pt,
                    None if extended && !first => {
                        return Err(Error::ParameterMismatch(
                            "the evaluator encoded some diagonals of one level over Q_l ∪ P \
                             and not others"
                                .into(),
                        ))
                    }
                    None => {
                        extended = false;
                        eval.encode(&rotated, n, level, &scale)?
                    }
                };
                first = false;
                row.push((j, pt));
            }
            blocks.push((i, row));
        }
        Ok(LinearTransform {
            plan,
            level,
            scale,
            blocks,
            extended,
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
        if self.extended {
            return self.evaluate_extended(eval, ct, &babies);
        }
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
            let terms: Vec<_> = row.iter().map(|(j, pt)| (by_step[j], pt)).collect();
            partial.push((*i, eval.mul_plain_sum(&terms)?));
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

impl<E: CircuitEvaluator> LinearTransform<E> {
    /// Whether the diagonals are over `Q_l ∪ P` and [`LinearTransform::evaluate`] runs by
    /// seed 003 Alg. 6 ([`CircuitEvaluator::bsgs_extended`]; its ModDowns are
    /// [`BsgsPlan::extended_mod_downs`]), else single-hoisted baby steps ([`BsgsPlan::mod_downs`]).
    pub fn is_extended(&self) -> bool {
        self.extended
    }

    /// [`LinearTransform::evaluate`] by Alg. 6 over `Q_l ∪ P`, `ct` at the transform's
    /// level: the giant steps in evaluation order with their products, each rotated by its
    /// gap from the previous one (Horner) or by `i - o` (distinct).
    fn evaluate_extended(
        &self,
        eval: &E,
        ct: &E::Ciphertext,
        babies: &[usize],
    ) -> Result<E::Ciphertext> {
        let index: BTreeMap<usize, usize> =
            babies.iter().enumerate().map(|(t, &j)| (j, t)).collect();
        let rows: BTreeMap<usize, Vec<(usize, &E::Plaintext)>> = self
            .blocks
            .iter()
            .map(|(i, row)| (*i, row.iter().map(|(j, pt)| (index[j], pt)).collect()))
            .collect();
        let n = self.plan.slots as i64;
        let o = self.plan.outer_rotation() as i64;
        let form = self.plan.giant_step_form();
        // Horner: by the gap from the previous giant step; distinct: by i - o.
        let mut prev = o;
        let blocks: Vec<ExtendedBlock<'_, E::Plaintext, i64>> = self
            .plan
            .order()
            .into_iter()
            .map(|i| {
                let from = if form == GiantSteps::Horner { prev } else { o };
                prev = i as i64;
                (&rows[&i][..], (i as i64 - from).rem_euclid(n))
            })
            .collect();
        let steps: Vec<i64> = babies.iter().map(|&j| j as i64).collect();
        eval.bsgs_extended(ct, &steps, &blocks, form)
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
            let got = m.clone().after_rotation(o).apply(&z).unwrap();
            assert!(max_diff(&got, &want) < 1e-12, "o = {o}");
        }
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
