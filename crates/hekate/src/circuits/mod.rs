//! Circuits: algorithms built from a scheme's *evaluator operations* (rotations, additions,
//! products, rescaling), not from ring operations — Lattigo's `circuits/`.
//!
//! * [`lintrans`]: linear transforms `M·z` of the slot vector `z`, given by the non-zero
//!   diagonals of `M` as plaintexts, evaluated by baby-step giant-step (Halevi-Shoup BSGS,
//!   seed 003 Alg. 5) with hoisted baby steps (Alg. 4: one decomposition for all of them)
//!   and double-hoisted giant steps (one ModDown for all of them), and the naive
//!   `Σ_k diag_k ⊙ rot_k(z)` to check it against. The Galois elements a transform needs are
//!   listed before any key exists, so exactly those keys can be generated.
//! * [`bsgs`]: the baby-step giant-step plans of those transforms (re-exported from
//!   [`lintrans`]): the split into baby and giant steps, the choice of `n1`, and chains of
//!   transforms carrying their outer rotations.
//! * [`polyeval`]: polynomials in the power (monomial) or Chebyshev basis on an interval
//!   `[a, b]`, evaluated by baby-step giant-step (seed 003 Alg. 1) with the scale of every
//!   intermediate ciphertext chosen from the *target output scale* downwards (Alg. 2), so
//!   every addition is between equal scales and the output scale equals the target
//!   exactly; depth `⌈log2(d + 1)⌉` for every degree `d` (§3.3); Chebyshev interpolation
//!   of a function on `[a, b]`.
//!
//! Both are written against [`CircuitEvaluator`], the few operations they need from a
//! scheme's evaluator. CKKS implements it ([`crate::ckks::Evaluator`]); BFV and BGV will
//! implement it for their evaluators and reuse the same circuits (the polynomial evaluator
//! works over complex coefficients, so their modular variant will need its own coefficient
//! arithmetic; the linear transforms are generic over the slot type).
//!
//! ```
//! use hekate::circuits::lintrans::{Diagonals, LinearTransform};
//! use hekate::circuits::polyeval::{evaluate, Polynomial};
//! use hekate::prelude::*;
//!
//! let ctx = CkksParameters::new(12).log_q(&[55, 40, 40, 40, 40, 40, 40, 40]).log_p(&[60, 60])
//!     .log_scale(40)
//!     .security(SecurityLevel::NotChecked) // toy size for the example
//!     .build()?;
//! let sk = ctx.generate_secret_key();
//! // The transform: a 4x4 matrix on 4 slots (sparse packing), as its diagonals.
//! let m: Vec<Vec<Complex64>> = (0..4)
//!     .map(|i| (0..4).map(|j| Complex64::new((i * 4 + j) as f64 / 16.0, 0.0)).collect())
//!     .collect();
//! let diagonals = Diagonals::from_dense(&m)?;
//! let plan = diagonals.bsgs(None)?; // n1 chosen by key-switch count
//! let eval = CkksEvaluator::new(ctx.clone(), Some(ctx.generate_relinearization_key(&sk)),
//!     ctx.generate_galois_keys(&sk, &plan.rotations(), false));
//! let lt = LinearTransform::new(&eval, &diagonals, plan, ctx.max_level(), None)?;
//!
//! let z = [0.5, -0.25, 1.0, 0.75].map(|x| Complex64::new(x, 0.0));
//! let ct = ctx.encrypt_symmetric(&ctx.encode_at(&z, 4, ctx.max_level(), ctx.default_scale())?, &sk)?;
//! let y = eval.rescale(&lt.evaluate(&eval, &ct)?)?;       // M z, at the input's scale
//! assert_eq!(y.scale(), ct.scale());
//! // sigmoid(M z) on [-4, 4] by a degree-15 Chebyshev interpolant: ⌈log2 16⌉ = 4 levels,
//! // plus 1 for the change of variable to [-1, 1].
//! let p = Polynomial::interpolate(|x| 1.0 / (1.0 + (-x).exp()), -4.0, 4.0, 15)?;
//! let out = evaluate(&eval, &y, &p, y.scale())?;
//! assert_eq!((out.level(), out.scale()), (y.level() - 5, y.scale()));
//! let got = ctx.decrypt_decode(&out, &sk)?;
//! let want = diagonals.apply(&z)?;
//! for (g, w) in got.iter().zip(&want) {
//!     assert!((g.re - 1.0 / (1.0 + (-w.re).exp())).abs() < 1e-3);
//! }
//! # Ok::<(), hekate::Error>(())
//! ```

pub mod bsgs;
pub mod lintrans;
pub mod polyeval;

use crate::ckks;
use crate::rlwe::ExtendedBlock;
use crate::Result;
use bsgs::GiantSteps;
use num_complex::Complex64;
use std::fmt::Debug;

/// Exact scale arithmetic, as the circuits need it to plan the scale of every intermediate
/// ciphertext (CKKS: [`ckks::Scale`], an exact rational).
pub trait ExactScale: Clone + PartialEq + Debug + Send + Sync {
    /// `self · other`, exactly.
    fn times(&self, other: &Self) -> Self;
    /// `self / other`, exactly.
    fn over(&self, other: &Self) -> Self;
    /// The scale equal to the positive finite `x` (every `f64` is an exact rational), or
    /// `None`.
    fn from_positive_f64(x: f64) -> Option<Self>;
}

impl ExactScale for ckks::Scale {
    fn times(&self, other: &Self) -> Self {
        self.mul(other)
    }
    fn over(&self, other: &Self) -> Self {
        self.div(other)
    }
    fn from_positive_f64(x: f64) -> Option<Self> {
        ckks::Scale::from_f64(x)
    }
}

/// The evaluator operations the circuits are built from.
///
/// A scheme's evaluator implements it by forwarding to its own operations, which keep
/// their checks and errors (levels, scales, missing keys). Conventions:
///
/// * **Levels** count down: a ciphertext at level `l` has `l + 1` chain limbs; products
///   keep the level and [`rescale_assign`](CircuitEvaluator::rescale_assign) drops one,
///   dividing the scale by [`rescale_factor`](CircuitEvaluator::rescale_factor)`(l)`.
/// * **Scales** are exact ([`ExactScale`]): products multiply them, additions need equal
///   scales (or the evaluator's own exact alignment), constants are encoded at a scale the
///   caller chooses.
/// * **Rotations** act on the `n` slots of the ciphertext cyclically: `rotate(z, k)_i =
///   z_{(i + k) mod n}` (left for positive `k`).
pub trait CircuitEvaluator: Send + Sync {
    /// The ciphertext type.
    type Ciphertext: Clone + Send + Sync;
    /// The plaintext type (encoded slot vectors).
    type Plaintext: Send + Sync;
    /// The scale type.
    type Scale: ExactScale;
    /// One slot's value (CKKS: `Complex64`).
    type Value: Copy + Debug + PartialEq + Send + Sync;

    /// The number of slots `n` of `ct`.
    fn slots(&self, ct: &Self::Ciphertext) -> usize;
    /// The level `l` of `ct`.
    fn level(&self, ct: &Self::Ciphertext) -> usize;
    /// The scale of `ct`.
    fn scale<'a>(&self, ct: &'a Self::Ciphertext) -> &'a Self::Scale;
    /// Reinterprets `ct` at `scale` without changing its parts (the message is multiplied
    /// by `old / scale`; exact and free).
    fn set_scale(&self, ct: &mut Self::Ciphertext, scale: Self::Scale);
    /// What rescaling a ciphertext at `level` divides its scale by (CKKS: `q_level`).
    fn rescale_factor(&self, level: usize) -> Self::Scale;

    /// Encodes `values` into `slots` slots at `level` and `scale`.
    fn encode(
        &self,
        values: &[Self::Value],
        slots: usize,
        level: usize,
        scale: &Self::Scale,
    ) -> Result<Self::Plaintext>;

    /// `a += b`.
    fn add_assign(&self, a: &mut Self::Ciphertext, b: &Self::Ciphertext) -> Result<()>;
    /// `a -= b`.
    fn sub_assign(&self, a: &mut Self::Ciphertext, b: &Self::Ciphertext) -> Result<()>;
    /// `ct ⊙ pt` (scales multiply; no rescale).
    fn mul_plain(&self, ct: &Self::Ciphertext, pt: &Self::Plaintext) -> Result<Self::Ciphertext>;
    /// `acc += ct ⊙ pt` (the default multiplies, then adds).
    fn mul_plain_add_assign(
        &self,
        acc: &mut Self::Ciphertext,
        ct: &Self::Ciphertext,
        pt: &Self::Plaintext,
    ) -> Result<()> {
        let t = self.mul_plain(ct, pt)?;
        self.add_assign(acc, &t)
    }
    /// `a · b`, relinearized (scales multiply; no rescale).
    fn mul_relin(&self, a: &Self::Ciphertext, b: &Self::Ciphertext) -> Result<Self::Ciphertext>;
    /// `k a b + addend`, rescaled: [`CircuitEvaluator::mul_relin`],
    /// [`CircuitEvaluator::mul_integer_assign`] by `k` (skipped for 1),
    /// [`CircuitEvaluator::add_assign`] of `addend` (at the product's level and scale) and
    /// [`CircuitEvaluator::rescale_assign`], which this default runs; an evaluator may fuse
    /// the relinearization into the rescale (the CPU's does, with the hybrid engine: one
    /// ModDown's forward NTTs fewer), giving the same words. Every product of the polynomial
    /// evaluator goes through here.
    fn mul_relin_rescale(
        &self,
        a: &Self::Ciphertext,
        b: &Self::Ciphertext,
        k: i64,
        addend: Option<&Self::Ciphertext>,
    ) -> Result<Self::Ciphertext> {
        let mut p = self.mul_relin(a, b)?;
        if k != 1 {
            self.mul_integer_assign(&mut p, k)?;
        }
        if let Some(w) = addend {
            self.add_assign(&mut p, w)?;
        }
        self.rescale_assign(&mut p)?;
        Ok(p)
    }
    /// `a · b` without relinearization: a degree-2 ciphertext (scales multiply; no
    /// rescale). Only [`CircuitEvaluator::add_assign`] with another degree-2 product and
    /// [`CircuitEvaluator::relinearize_assign`] are meant to read it.
    fn mul_no_relin(&self, a: &Self::Ciphertext, b: &Self::Ciphertext) -> Result<Self::Ciphertext>;
    /// Relinearizes a degree-2 ciphertext in place (one key switch of `c_2`).
    fn relinearize_assign(&self, ct: &mut Self::Ciphertext) -> Result<()>;
    /// `Σ_j a_j b_j + addend`, rescaled, with one relinearization for the whole sum (lazy
    /// relinearization): [`CircuitEvaluator::mul_no_relin`] per pair,
    /// [`CircuitEvaluator::add_assign`] of the products in order,
    /// [`CircuitEvaluator::relinearize_assign`], [`CircuitEvaluator::add_assign`] of
    /// `addend` (at the products' level and scale) and
    /// [`CircuitEvaluator::rescale_assign`], which this default runs; an evaluator may fuse
    /// the relinearization into the rescale (the CPU's does), giving the same words. Every
    /// product must land at one level and scale. The polynomial evaluator sums a node's
    /// giant-step products `Σ_j q_j · B_{g_j}` here: `m` products, one key switch.
    fn mul_sum_relin_rescale(
        &self,
        pairs: &[(&Self::Ciphertext, &Self::Ciphertext)],
        addend: Option<&Self::Ciphertext>,
    ) -> Result<Self::Ciphertext> {
        let ((a, b), rest) = pairs.split_first().ok_or_else(|| {
            crate::Error::InvalidParameters("a sum of products needs at least one pair".into())
        })?;
        let mut d = self.mul_no_relin(a, b)?;
        for (a, b) in rest {
            self.add_assign(&mut d, &self.mul_no_relin(a, b)?)?;
        }
        self.relinearize_assign(&mut d)?;
        if let Some(w) = addend {
            self.add_assign(&mut d, w)?;
        }
        self.rescale_assign(&mut d)?;
        Ok(d)
    }
    /// `ct *= c`, the constant encoded at `scale` (the ciphertext's scale is multiplied by
    /// `scale` exactly; no level consumed).
    fn mul_const_scaled_assign(
        &self,
        ct: &mut Self::Ciphertext,
        c: Self::Value,
        scale: &Self::Scale,
    ) -> Result<()>;
    /// `c · ct` read at `level` (not above `ct`'s), the constant encoded at `scale`:
    /// [`CircuitEvaluator::at_level`] then [`CircuitEvaluator::mul_const_scaled_assign`],
    /// which this default runs; an evaluator may fuse them (the CPU's does: one pass per
    /// limb, no copy), giving the same words.
    fn mul_const_scaled_at(
        &self,
        ct: &Self::Ciphertext,
        level: usize,
        c: Self::Value,
        scale: &Self::Scale,
    ) -> Result<Self::Ciphertext> {
        let mut t = self.at_level(ct, level)?;
        self.mul_const_scaled_assign(&mut t, c, scale)?;
        Ok(t)
    }
    /// `acc += c · ct`, the constant encoded at `scale` and `ct` read at `acc`'s level (not
    /// above `ct`'s): [`CircuitEvaluator::at_level`], then
    /// [`CircuitEvaluator::mul_const_scaled_assign`] and [`CircuitEvaluator::add_assign`],
    /// which this default runs; an evaluator may fuse them (the CPU's does: one pass, no
    /// copy), giving the same words.
    fn mul_const_scaled_add_assign(
        &self,
        acc: &mut Self::Ciphertext,
        ct: &Self::Ciphertext,
        c: Self::Value,
        scale: &Self::Scale,
    ) -> Result<()> {
        let mut t = self.at_level(ct, self.level(acc))?;
        self.mul_const_scaled_assign(&mut t, c, scale)?;
        self.add_assign(acc, &t)
    }
    /// `Σ_j ct_j ⊙ pt_j` (every product at one scale; the result at the lowest level of
    /// the terms): a linear transform's sum over its baby steps. This default takes
    /// [`CircuitEvaluator::mul_plain`] of the first term, then
    /// [`CircuitEvaluator::mul_plain_add_assign`] per further term; an evaluator may fuse
    /// several terms per pass (the device does), giving the same words.
    fn mul_plain_sum(
        &self,
        terms: &[(&Self::Ciphertext, &Self::Plaintext)],
    ) -> Result<Self::Ciphertext> {
        mul_plain_sum_termwise(self, terms)
    }
    /// `values` encoded at `level` and `scale` for [`CircuitEvaluator::bsgs_extended`]:
    /// a diagonal over `Q_l ∪ P`, multiplied before the ModDown (seed 003 Alg. 6). `None`
    /// (this default) where the evaluator has no such path at `level`: the linear transform
    /// then encodes with [`CircuitEvaluator::encode`] and runs single-hoisted.
    fn encode_extended(
        &self,
        values: &[Self::Value],
        slots: usize,
        level: usize,
        scale: &Self::Scale,
    ) -> Result<Option<Self::Plaintext>> {
        let _ = (values, slots, level, scale);
        Ok(None)
    }
    /// For the giant steps `(terms_t, s_t)` (outermost first) and the partial sums
    /// `S_t = Σ_{(j, pt) ∈ terms_t} pt ⊙ rot_{b_j}(ct)` with the baby steps `b = babies`:
    /// [`GiantSteps::Horner`], `rot_{s_0}(S_0 + rot_{s_1}(S_1 + ... + rot_{s_m}(S_m)))`;
    /// [`GiantSteps::Distinct`], `Σ_t rot_{s_t}(S_t)`. Seed 003 Alg. 6, the baby rotations
    /// and products kept over `Q_l ∪ P`. The diagonals come from
    /// [`CircuitEvaluator::encode_extended`] at `ct`'s level and one scale; the result is
    /// at `ct`'s level and scale `Δ_ct · Δ_pt`. Called only by an evaluator whose
    /// `encode_extended` returned plaintexts; this default refuses.
    fn bsgs_extended(
        &self,
        ct: &Self::Ciphertext,
        babies: &[i64],
        blocks: &[ExtendedBlock<'_, Self::Plaintext, i64>],
        form: GiantSteps,
    ) -> Result<Self::Ciphertext> {
        let _ = (ct, babies, blocks, form);
        Err(crate::Error::ParameterMismatch(
            "this evaluator has no BSGS over Q_l ∪ P (encode_extended returns None)".into(),
        ))
    }
    /// `Σ_j c_j · ct_j` at `level` (not above any `ct_j`'s), the constant `c_j` encoded at
    /// `s_j` for each term `(ct_j, c_j, s_j)` so that every product has the same scale (a
    /// leaf of a polynomial's evaluation). This default takes
    /// [`CircuitEvaluator::mul_const_scaled_at`] of the first term at `level`, then
    /// [`CircuitEvaluator::mul_const_scaled_add_assign`] per further term; an evaluator may
    /// fuse several terms per pass (the device does), giving the same words.
    fn linear_combination(
        &self,
        terms: &[(&Self::Ciphertext, Self::Value, Self::Scale)],
        level: usize,
    ) -> Result<Self::Ciphertext> {
        linear_combination_termwise(self, terms, level)
    }
    /// `ct += c`, the constant encoded at `ct`'s scale.
    fn add_const_assign(&self, ct: &mut Self::Ciphertext, c: Self::Value) -> Result<()>;
    /// `ct *= k` for an integer `k` (exact; scale unchanged).
    fn mul_integer_assign(&self, ct: &mut Self::Ciphertext, k: i64) -> Result<()>;
    /// Rescales `ct` (one level down; see [`CircuitEvaluator::rescale_factor`]).
    fn rescale_assign(&self, ct: &mut Self::Ciphertext) -> Result<()>;
    /// A copy of `ct` at `level <= level(ct)` (exact: drops limbs).
    fn at_level(&self, ct: &Self::Ciphertext, level: usize) -> Result<Self::Ciphertext>;
    /// A noiseless ciphertext of the constant `c` (`None`: zero) at `level <= level(like)`
    /// and `scale`, shaped like `like`: both parts zero, then `c` added at `scale`. The
    /// zeros and constant addends of the polynomial evaluator.
    fn constant_like(
        &self,
        like: &Self::Ciphertext,
        level: usize,
        scale: &Self::Scale,
        c: Option<Self::Value>,
    ) -> Result<Self::Ciphertext> {
        let mut z = self.at_level(like, level)?;
        self.mul_integer_assign(&mut z, 0)?;
        self.set_scale(&mut z, scale.clone());
        if let Some(c) = c {
            self.add_const_assign(&mut z, c)?;
        }
        Ok(z)
    }

    /// `ct` rotated by `steps`.
    fn rotate(&self, ct: &Self::Ciphertext, steps: i64) -> Result<Self::Ciphertext>;
    /// `ct` rotated by each of `steps`, sharing one decomposition (hoisting, seed 003
    /// Alg. 4); the results in the order of `steps`.
    fn rotate_hoisted(&self, ct: &Self::Ciphertext, steps: &[i64])
        -> Result<Vec<Self::Ciphertext>>;
    /// `Σ_j rotate(ct_j, steps_j)` over terms of one level and scale, with one ModDown for
    /// all the key switches (double hoisting of the giant steps).
    fn rotate_sum(&self, terms: &[(&Self::Ciphertext, i64)]) -> Result<Self::Ciphertext>;
    /// The nested (Horner) rotation sum
    /// `rot_{s_0}(t_0 + rot_{s_1}(t_1 + ... + rot_{s_m}(t_m)))` of the terms `(t_k, s_k)`
    /// (one level and scale), so that `t_k` is rotated by `s_0 + ... + s_k` in all: the
    /// giant steps of a BSGS transform with one key per distinct step `s_k` instead of
    /// one per total. A step of `0` (mod the slot count) is no rotation. Every non-zero
    /// step is one key switch, each decomposing the result of the one inside it. The
    /// default rotates and adds; an evaluator may keep parts of the key switches summed
    /// before their ModDown.
    fn rotate_horner(&self, terms: &[(&Self::Ciphertext, i64)]) -> Result<Self::Ciphertext> {
        let mut acc: Option<Self::Ciphertext> = None;
        for &(t, s) in terms.iter().rev() {
            let mut h = t.clone();
            if let Some(inner) = acc.take() {
                self.add_assign(&mut h, &inner)?;
            }
            acc = Some(if s.rem_euclid(self.slots(&h) as i64) == 0 {
                h
            } else {
                self.rotate(&h, s)?
            });
        }
        acc.ok_or_else(|| {
            crate::Error::ParameterMismatch("a Horner rotation sum needs at least one term".into())
        })
    }
}

/// [`CircuitEvaluator::mul_plain_sum`] term by term (its default, and an evaluator's
/// fallback where its fused pass does not apply).
pub fn mul_plain_sum_termwise<E: CircuitEvaluator + ?Sized>(
    eval: &E,
    terms: &[(&E::Ciphertext, &E::Plaintext)],
) -> Result<E::Ciphertext> {
    let Some(((ct, pt), rest)) = terms.split_first() else {
        return Err(crate::Error::ParameterMismatch(
            "a sum of plaintext products needs at least one term".into(),
        ));
    };
    let mut acc = eval.mul_plain(ct, pt)?;
    for (ct, pt) in rest {
        eval.mul_plain_add_assign(&mut acc, ct, pt)?;
    }
    Ok(acc)
}

/// [`CircuitEvaluator::linear_combination`] term by term (its default, and an evaluator's
/// fallback where its fused pass does not apply): [`CircuitEvaluator::mul_const_scaled_at`]
/// of the first term at `level`, then [`CircuitEvaluator::mul_const_scaled_add_assign`] per
/// further term.
pub fn linear_combination_termwise<E: CircuitEvaluator + ?Sized>(
    eval: &E,
    terms: &[(&E::Ciphertext, E::Value, E::Scale)],
    level: usize,
) -> Result<E::Ciphertext> {
    let Some(((first, c0, s0), rest)) = terms.split_first() else {
        return Err(crate::Error::ParameterMismatch(
            "a linear combination needs at least one term".into(),
        ));
    };
    let mut acc = eval.mul_const_scaled_at(first, level, *c0, s0)?;
    for (ct, c, s) in rest {
        eval.mul_const_scaled_add_assign(&mut acc, ct, *c, s)?;
    }
    Ok(acc)
}

impl CircuitEvaluator for ckks::Evaluator {
    type Ciphertext = ckks::Ciphertext;
    type Plaintext = ckks::Plaintext;
    type Scale = ckks::Scale;
    type Value = Complex64;

    fn slots(&self, ct: &ckks::Ciphertext) -> usize {
        ct.slots()
    }
    fn level(&self, ct: &ckks::Ciphertext) -> usize {
        ct.level()
    }
    fn scale<'a>(&self, ct: &'a ckks::Ciphertext) -> &'a ckks::Scale {
        ct.scale()
    }
    fn set_scale(&self, ct: &mut ckks::Ciphertext, scale: ckks::Scale) {
        ct.set_scale(scale)
    }
    fn rescale_factor(&self, level: usize) -> ckks::Scale {
        self.context().constant_scale(level)
    }
    fn encode(
        &self,
        values: &[Complex64],
        slots: usize,
        level: usize,
        scale: &ckks::Scale,
    ) -> Result<ckks::Plaintext> {
        self.context().encode_at(values, slots, level, scale)
    }
    fn encode_extended(
        &self,
        values: &[Complex64],
        slots: usize,
        level: usize,
        scale: &ckks::Scale,
    ) -> Result<Option<ckks::Plaintext>> {
        self.context()
            .encode_extended_at(values, slots, level, scale)
    }
    fn bsgs_extended(
        &self,
        ct: &ckks::Ciphertext,
        babies: &[i64],
        blocks: &[ExtendedBlock<'_, ckks::Plaintext, i64>],
        form: GiantSteps,
    ) -> Result<ckks::Ciphertext> {
        let nested = form == GiantSteps::Horner;
        ckks::Evaluator::bsgs_extended(self, ct, babies, blocks, nested)
    }
    fn add_assign(&self, a: &mut ckks::Ciphertext, b: &ckks::Ciphertext) -> Result<()> {
        ckks::Evaluator::add_assign(self, a, b)
    }
    fn sub_assign(&self, a: &mut ckks::Ciphertext, b: &ckks::Ciphertext) -> Result<()> {
        ckks::Evaluator::sub_assign(self, a, b)
    }
    fn mul_plain(&self, ct: &ckks::Ciphertext, pt: &ckks::Plaintext) -> Result<ckks::Ciphertext> {
        ckks::Evaluator::mul_plain(self, ct, pt)
    }
    fn mul_plain_add_assign(
        &self,
        acc: &mut ckks::Ciphertext,
        ct: &ckks::Ciphertext,
        pt: &ckks::Plaintext,
    ) -> Result<()> {
        ckks::Evaluator::mul_plain_add_assign(self, acc, ct, pt)
    }
    fn mul_const_scaled_add_assign(
        &self,
        acc: &mut ckks::Ciphertext,
        ct: &ckks::Ciphertext,
        c: Complex64,
        scale: &ckks::Scale,
    ) -> Result<()> {
        ckks::Evaluator::mul_const_scaled_add_assign(self, acc, ct, c, scale)
    }
    fn mul_relin(&self, a: &ckks::Ciphertext, b: &ckks::Ciphertext) -> Result<ckks::Ciphertext> {
        self.mul(a, b)
    }
    fn mul_relin_rescale(
        &self,
        a: &ckks::Ciphertext,
        b: &ckks::Ciphertext,
        k: i64,
        addend: Option<&ckks::Ciphertext>,
    ) -> Result<ckks::Ciphertext> {
        ckks::Evaluator::mul_relin_rescale(self, a, b, k, addend)
    }
    fn mul_no_relin(&self, a: &ckks::Ciphertext, b: &ckks::Ciphertext) -> Result<ckks::Ciphertext> {
        ckks::Evaluator::mul_no_relin(self, a, b)
    }
    fn relinearize_assign(&self, ct: &mut ckks::Ciphertext) -> Result<()> {
        ckks::Evaluator::relinearize_assign(self, ct)
    }
    fn mul_sum_relin_rescale(
        &self,
        pairs: &[(&ckks::Ciphertext, &ckks::Ciphertext)],
        addend: Option<&ckks::Ciphertext>,
    ) -> Result<ckks::Ciphertext> {
        ckks::Evaluator::mul_sum_relin_rescale(self, pairs, addend)
    }
    fn mul_const_scaled_assign(
        &self,
        ct: &mut ckks::Ciphertext,
        c: Complex64,
        scale: &ckks::Scale,
    ) -> Result<()> {
        ckks::Evaluator::mul_const_scaled_assign(self, ct, c, scale)
    }
    fn mul_const_scaled_at(
        &self,
        ct: &ckks::Ciphertext,
        level: usize,
        c: Complex64,
        scale: &ckks::Scale,
    ) -> Result<ckks::Ciphertext> {
        ckks::Evaluator::mul_const_scaled_at(self, ct, level, c, scale)
    }
    fn add_const_assign(&self, ct: &mut ckks::Ciphertext, c: Complex64) -> Result<()> {
        ckks::Evaluator::add_const_assign(self, ct, c)
    }
    fn mul_integer_assign(&self, ct: &mut ckks::Ciphertext, k: i64) -> Result<()> {
        ckks::Evaluator::mul_integer_assign(self, ct, k)
    }
    fn rescale_assign(&self, ct: &mut ckks::Ciphertext) -> Result<()> {
        ckks::Evaluator::rescale_assign(self, ct)
    }
    /// The trait's words (zero parts, then `c` at `scale`) without copying `like` and
    /// multiplying the copy by zero.
    fn constant_like(
        &self,
        like: &ckks::Ciphertext,
        level: usize,
        scale: &ckks::Scale,
        c: Option<Complex64>,
    ) -> Result<ckks::Ciphertext> {
        let mut z = self.zero_like(like, level, scale.clone())?;
        if let Some(c) = c {
            ckks::Evaluator::add_const_assign(self, &mut z, c)?;
        }
        Ok(z)
    }
    fn at_level(&self, ct: &ckks::Ciphertext, level: usize) -> Result<ckks::Ciphertext> {
        let drop = self.levels_down_to(ct, level)?;
        self.drop_level(ct, drop)
    }
    fn rotate(&self, ct: &ckks::Ciphertext, steps: i64) -> Result<ckks::Ciphertext> {
        ckks::Evaluator::rotate(self, ct, steps)
    }
    fn rotate_hoisted(
        &self,
        ct: &ckks::Ciphertext,
        steps: &[i64],
    ) -> Result<Vec<ckks::Ciphertext>> {
        ckks::Evaluator::rotate_hoisted(self, ct, steps)
    }
    fn rotate_sum(&self, terms: &[(&ckks::Ciphertext, i64)]) -> Result<ckks::Ciphertext> {
        ckks::Evaluator::rotate_sum(self, terms)
    }
    fn rotate_horner(&self, terms: &[(&ckks::Ciphertext, i64)]) -> Result<ckks::Ciphertext> {
        ckks::Evaluator::rotate_horner(self, terms)
    }
}
