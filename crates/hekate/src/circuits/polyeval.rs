//! Polynomial evaluation by baby-step giant-step, scale-exact and depth-optimal
//! (seed 003 §3, Alg. 1-2).
//!
//! **Bases.** A [`Polynomial`] `p = Σ_i c_i B_i` is given in the power basis (`B_i = x^i`)
//! or in the Chebyshev basis on an interval `[a, b]` (`B_i = T_i(t)`,
//! `t = (x - (a+b)/2) / ((b-a)/2)`, `T_{i+j} = 2 T_i T_j - T_{|i-j|}`).
//! [`Polynomial::interpolate`] gives the Chebyshev interpolant of a function at the
//! `d + 1` Chebyshev nodes.
//!
//! **Change of variable.** `t = (x - c)/h` costs no level when `h = 1` (an interval of
//! width 2: `c/h` is subtracted as a constant) and one level otherwise (`x` is multiplied by
//! `1/h` encoded at `q_l` and rescaled, so `t` keeps `x`'s scale exactly). Reinterpreting
//! the scale instead (`x` at `Δ` is `x/h` at `Δ·h`) would be free but makes the powers'
//! scales drift as `Δ·h^(2^k)`, and with them the targets of the giant-step branches
//! (`S·q/Δ_g`) collapse; so it is not done. To save that level, fold `1/h` into the step
//! that produces `x` (as bootstrapping folds it into its DFT matrices) and evaluate on an
//! interval of width 2.
//!
//! **Power basis** ([`PowerBasis`]). `B_i` is computed from `B_{2^(k-1)}` and
//! `B_{i - 2^(k-1)}`, `k = ⌈log2 i⌉`, so it sits exactly `⌈log2 i⌉` levels below `x`. In the
//! Chebyshev basis `T_{|i-j|}` is subtracted *before* the rescale, after multiplying it by
//! the constant 1 encoded at `Δ_i Δ_j / Δ_{|i-j|}`: the subtraction is between equal scales,
//! and no level is spent on it. Powers are computed on demand and kept, so several
//! polynomials evaluated on one basis share them ([`evaluate_many`]).
//!
//! **Splitting** (Alg. 1). A node `p` of degree `d` with `l_p` levels available is either a
//! *leaf* `Σ_{i<K} c_i B_i` (the baby steps: the basis up to `K = 2^l`, one constant
//! product per term, then one rescale: it needs `⌈log2 d⌉ + 1` levels), or it is split as
//! `p = q · B_g + r` with `g` the largest power of two `<= d` (the giant steps), `q` given
//! `l_p - 1` levels and `r` given `l_p`. A leaf that does not fit its levels is split
//! further on the powers of two below `K` (seed 003 §3.3: this is what makes the depth
//! optimal; it costs a few extra products on the leading branch). By induction every `p`
//! with `d < 2^(l_p)` fits, so **a polynomial of degree `d` consumes exactly
//! `m = ⌈log2(d + 1)⌉` levels below `B_1`, for every `d`** (a constant consumes none):
//! `m` levels in all for the power basis and for Chebyshev on an interval of width 2, and
//! `m + 1` for other intervals ([`Polynomial::depth`]).
//!
//! **Lazy relinearization.** The splits down a node's `r` branch form a *chain*
//! `p = Σ_j q_j · B_{g_j} + leaf`, every term wanted at the same level and scale; its
//! products are summed as degree-2 ciphertexts and relinearized and rescaled once
//! ([`CircuitEvaluator::mul_sum_relin_rescale`]), its constant `q_j` and the leaf's terms
//! ride in the same rescale. So the giant steps cost one key switch per chain, not one per
//! product (degree 63 on `K = 8`: 9 giant-step products, 4 key switches), as Lattigo's
//! evaluator defers the relinearization of its giant steps. `K` is chosen for the fewest
//! key switches, then the fewest products ([`cost`]); the products stay within a few of
//! seed 003's `2^(m-l) + 2^l + m - l - 3 + ⌈(d+1)/2^l⌉`.
//!
//! **Scales** (Alg. 2). The output level is `l_x - depth` (with `l_x` the input's level) and
//! the output scale is the *target* `S` passed in, **exactly** (equal as rationals). The
//! targets propagate down the tree: a node wanted at level `l` and scale `S` asks `r` for
//! `(l, S)` and `q` for `(l + 1, S · q_{l+1} / Δ_g)`, so `q · B_g` rescales to exactly
//! `S` and is added to `r` at equal scales; a leaf multiplies each `B_i` (brought down to
//! level `l + 1`) by `c_i` encoded at `S · q_{l+1} / Δ_i` and adds `c_0` at `S · q_{l+1}`,
//! then rescales to `(l, S)`. Every addition in the evaluation is between equal scales; the
//! only approximations are the roundings of the encoded constants (each at a scale near
//! `q_{l+1}`, i.e. a relative error near `2^-log2(q)`) and the usual noise. Pick `S` near
//! the input scale (and primes near the scale, as usual in CKKS): a much smaller `S` makes
//! the constants' scales, hence their precision, smaller.

use super::{CircuitEvaluator, ExactScale};
use crate::{Error, Result};
use num_complex::Complex64;
use std::collections::{BTreeMap, BTreeSet};

/// The basis a [`Polynomial`]'s coefficients are in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Basis {
    /// The power (monomial) basis `1, x, x^2, ...`.
    Monomial,
    /// The Chebyshev basis `T_i(t)` on `[a, b]`, `t = (x - (a+b)/2) / ((b-a)/2)`.
    Chebyshev {
        /// The interval's lower end `a`.
        a: f64,
        /// The interval's upper end `b > a`.
        b: f64,
    },
}

impl Basis {
    /// The affine map `x -> t = (x - c) / h` as `(c, h)` (`(0, 1)` for the power basis).
    fn center_half_width(&self) -> (f64, f64) {
        match *self {
            Basis::Monomial => (0.0, 1.0),
            Basis::Chebyshev { a, b } => ((a + b) / 2.0, (b - a) / 2.0),
        }
    }
}

/// A polynomial `p = Σ_{i=0}^{d} c_i B_i` with complex coefficients in a [`Basis`].
#[derive(Clone, Debug, PartialEq)]
pub struct Polynomial {
    basis: Basis,
    coeffs: Vec<Complex64>,
}

impl Polynomial {
    /// `Σ c_i x^i` (`coeffs[i] = c_i`; at least one, all finite).
    pub fn monomial(coeffs: Vec<Complex64>) -> Result<Self> {
        Self::checked(Basis::Monomial, coeffs)
    }

    /// `Σ c_i T_i(t)` on `[a, b]` (`a < b` finite; `coeffs[i] = c_i`, at least one, finite).
    pub fn chebyshev(coeffs: Vec<Complex64>, a: f64, b: f64) -> Result<Self> {
        if !(a.is_finite() && b.is_finite() && a < b) {
            return Err(Error::InvalidParameters(format!(
                "the interval [{a}, {b}] must be finite with a < b"
            )));
        }
        Self::checked(Basis::Chebyshev { a, b }, coeffs)
    }

    fn checked(basis: Basis, coeffs: Vec<Complex64>) -> Result<Self> {
        if coeffs.is_empty() {
            return Err(Error::InvalidParameters(
                "a polynomial needs at least one coefficient".into(),
            ));
        }
        if let Some(i) = coeffs
            .iter()
            .position(|c| !(c.re.is_finite() && c.im.is_finite()))
        {
            return Err(Error::InvalidParameters(format!(
                "coefficient {i} is not finite ({})",
                coeffs[i]
            )));
        }
        Ok(Polynomial { basis, coeffs })
    }

    /// The degree-`d` Chebyshev interpolant of `f` on `[a, b]`: the polynomial equal to `f`
    /// at the `d + 1` Chebyshev nodes `x_k = c + h cos(π (k + 1/2) / (d + 1))`, with
    /// coefficients `c_j = (2 - [j = 0]) / (d + 1) · Σ_k f(x_k) cos(π j (k + 1/2) / (d + 1))`
    /// (a DCT-II of the samples). Its error on `[a, b]` is within a factor
    /// `2 + (2/π) ln(d + 1)` of the best degree-`d` approximation.
    pub fn interpolate(f: impl Fn(f64) -> f64, a: f64, b: f64, degree: usize) -> Result<Self> {
        if !(a.is_finite() && b.is_finite() && a < b) {
            return Err(Error::InvalidParameters(format!(
                "the interval [{a}, {b}] must be finite with a < b"
            )));
        }
        let (c, h) = ((a + b) / 2.0, (b - a) / 2.0);
        let n = degree + 1;
        let angle =
            |j: usize, k: usize| std::f64::consts::PI * j as f64 * (k as f64 + 0.5) / n as f64;
        let samples: Vec<f64> = (0..n).map(|k| f(c + h * angle(1, k).cos())).collect();
        if let Some(k) = samples.iter().position(|y| !y.is_finite()) {
            return Err(Error::InvalidParameters(format!(
                "f is not finite at the node x = {}",
                c + h * angle(1, k).cos()
            )));
        }
        let coeffs = (0..n)
            .map(|j| {
                let s: f64 = samples
                    .iter()
                    .enumerate()
                    .map(|(k, y)| y * angle(j, k).cos())
                    .sum();
                let w = if j == 0 { 1.0 } else { 2.0 };
                Complex64::new(w * s / n as f64, 0.0)
            })
            .collect();
        Self::chebyshev(coeffs, a, b)
    }

    /// The basis.
    pub fn basis(&self) -> Basis {
        self.basis
    }

    /// The coefficients `c_0, ..., c_d`.
    pub fn coefficients(&self) -> &[Complex64] {
        &self.coeffs
    }

    /// The degree `d`: the index of the last non-zero coefficient (0 for a constant).
    pub fn degree(&self) -> usize {
        degree(&self.coeffs)
    }

    /// The levels an evaluation consumes: `m = ⌈log2(d + 1)⌉`, plus one for the change of
    /// variable of a Chebyshev basis on an interval whose width is not 2 (see the
    /// [module documentation](self)).
    pub fn depth(&self) -> usize {
        self.basis_depth() + usize::from(self.basis.center_half_width().1 != 1.0)
    }

    /// The levels consumed below `B_1`, `m = ⌈log2(d + 1)⌉`.
    fn basis_depth(&self) -> usize {
        ceil_log2(self.degree() + 1)
    }

    /// `p(x)` in the clear (Horner; Clenshaw for the Chebyshev basis), the reference the
    /// encrypted evaluation approximates.
    pub fn evaluate(&self, x: Complex64) -> Complex64 {
        let (c, h) = self.basis.center_half_width();
        match self.basis {
            Basis::Monomial => self
                .coeffs
                .iter()
                .rev()
                .fold(Complex64::new(0.0, 0.0), |acc, &ci| acc * x + ci),
            Basis::Chebyshev { .. } => {
                let t = (x - c) / h;
                let (mut b1, mut b2) = (Complex64::new(0.0, 0.0), Complex64::new(0.0, 0.0));
                for &ci in self.coeffs[1..].iter().rev() {
                    let b0 = ci + 2.0 * t * b1 - b2;
                    b2 = b1;
                    b1 = b0;
                }
                self.coeffs[0] + t * b1 - b2
            }
        }
    }
}

fn is_zero(c: &Complex64) -> bool {
    c.re == 0.0 && c.im == 0.0
}

fn degree(coeffs: &[Complex64]) -> usize {
    coeffs.iter().rposition(|c| !is_zero(c)).unwrap_or(0)
}

/// `⌈log2 x⌉` for `x >= 1`.
fn ceil_log2(x: usize) -> usize {
    debug_assert!(x >= 1);
    (usize::BITS - (x - 1).leading_zeros()) as usize
}

/// How `B_i` is computed (`i >= 2`): from `B_a · B_b` with `a = 2^(k-1)`, `b = i - a`.
fn factors(i: usize) -> (usize, usize) {
    let a = 1 << (ceil_log2(i) - 1);
    (a, i - a)
}

/// The levels a leaf with non-zero terms up to index `d` consumes.
fn leaf_depth(d: usize) -> usize {
    if d == 0 {
        0
    } else {
        ceil_log2(d) + 1
    }
}

/// `p = q · B_g + r` with `deg r < g <= deg p < 2g`.
fn split(coeffs: &[Complex64], g: usize, basis: Basis) -> (Vec<Complex64>, Vec<Complex64>) {
    let d = coeffs.len() - 1;
    debug_assert!(g <= d && d < 2 * g);
    let mut r = coeffs[..g].to_vec();
    let q = match basis {
        Basis::Monomial => coeffs[g..].to_vec(),
        Basis::Chebyshev { .. } => {
            // T_g T_j = (T_{g+j} + T_{g-j}) / 2 for j <= g: q_0 = c_g, q_j = 2 c_{g+j}, and
            // the T_{g-j} parts are taken back from r.
            let mut q = vec![coeffs[g]];
            for i in g + 1..=d {
                q.push(2.0 * coeffs[i]);
                r[2 * g - i] -= coeffs[i];
            }
            q
        }
    };
    (q, r)
}

/// The evaluation tree of one polynomial.
#[derive(Debug)]
enum Node {
    /// `Σ c_i B_i` over the basis (baby steps), then one rescale.
    Leaf(Vec<Complex64>),
    /// `q · B_g + r`.
    Split {
        g: usize,
        q: Box<Node>,
        r: Box<Node>,
    },
}

impl Node {
    /// The tree for `coeffs` with `levels` levels available and baby basis `B_{<k}`
    /// (`deg < 2^levels` is required, and then always met).
    fn plan(coeffs: &[Complex64], levels: usize, k: usize, basis: Basis) -> Node {
        let d = degree(coeffs);
        debug_assert!(d < 1 << levels, "degree {d} does not fit {levels} levels");
        if d < k.max(2) && leaf_depth(d) <= levels {
            return Node::Leaf(coeffs[..=d].to_vec());
        }
        let g = 1 << (ceil_log2(d + 1) - 1);
        let (q, r) = split(&coeffs[..=d], g, basis);
        Node::Split {
            g,
            q: Box::new(Node::plan(&q, levels - 1, k, basis)),
            r: Box::new(Node::plan(&r, levels, k, basis)),
        }
    }

    fn constant(&self) -> Option<Complex64> {
        match self {
            Node::Leaf(c) if c.len() == 1 => Some(c[0]),
            _ => None,
        }
    }

    /// The relinearizations of this tree's giant steps: one per chain (a split node and
    /// the splits down its `r` branch, see [`PowerBasis`]'s evaluation) holding a
    /// non-constant `q`, plus those of the `q`s themselves.
    fn relinearizations(&self) -> usize {
        let (mut node, mut own, mut inner) = (self, false, 0);
        while let Node::Split { q, r, .. } = node {
            if q.constant().is_none() {
                own = true;
                inner += q.relinearizations();
            }
            node = r;
        }
        inner + usize::from(own)
    }

    /// The basis indices `>= 1` this tree reads, and its giant-step products.
    fn needs(&self, powers: &mut BTreeSet<usize>) -> usize {
        match self {
            Node::Leaf(c) => {
                powers.extend((1..c.len()).filter(|&i| !is_zero(&c[i])));
                0
            }
            Node::Split { g, q, r } => {
                powers.insert(*g);
                let own = usize::from(q.constant().is_none());
                own + q.needs(powers) + r.needs(powers)
            }
        }
    }
}

/// The closure of `wanted` under the power-basis recurrence, minus what `have` holds: the
/// indices whose computation is one ciphertext product each.
fn missing_powers(
    wanted: &BTreeSet<usize>,
    have: &BTreeSet<usize>,
    basis: Basis,
) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<usize> = wanted.iter().copied().collect();
    while let Some(i) = stack.pop() {
        if i <= 1 || have.contains(&i) || !out.insert(i) {
            continue;
        }
        let (a, b) = factors(i);
        stack.extend([a, b]);
        if matches!(basis, Basis::Chebyshev { .. }) && a != b {
            stack.push(a - b);
        }
    }
    out
}

/// What evaluating a set of polynomials on one power basis costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvaluationCost {
    /// The baby-step basis size `K = 2^l` chosen.
    pub baby_steps: usize,
    /// Ciphertext-ciphertext products (tensor products): power basis plus giant steps.
    pub products: usize,
    /// Relinearizations (key switches, each with a rescale): one per power of the basis,
    /// and one per chain of giant steps, whose products are summed before a single
    /// relinearization ([`CircuitEvaluator::mul_sum_relin_rescale`]). `K` is chosen for
    /// the fewest of these, then the fewest products.
    pub relinearizations: usize,
    /// The levels consumed below `B_1` by the deepest polynomial, `⌈log2(d + 1)⌉` (see
    /// [`Polynomial::depth`] for the total).
    pub depth: usize,
}

/// Chooses the baby-step size for `polys` on a basis already holding `have`, and plans them.
fn plan_all(polys: &[&Polynomial], have: &BTreeSet<usize>) -> (Vec<Node>, EvaluationCost) {
    let depth = polys.iter().map(|p| p.basis_depth()).max().unwrap_or(0);
    let mut best: Option<(Vec<Node>, EvaluationCost)> = None;
    for l in 1..=depth.max(1) {
        let k = 1 << l;
        let nodes: Vec<Node> = polys
            .iter()
            .map(|p| Node::plan(&p.coeffs, p.basis_depth(), k, p.basis))
            .collect();
        let mut wanted = BTreeSet::new();
        let giant: usize = nodes.iter().map(|n| n.needs(&mut wanted)).sum();
        let basis = polys.first().map_or(Basis::Monomial, |p| p.basis);
        let powers = missing_powers(&wanted, have, basis).len();
        let cost = EvaluationCost {
            baby_steps: k,
            products: giant + powers,
            relinearizations: powers + nodes.iter().map(Node::relinearizations).sum::<usize>(),
            depth,
        };
        let key = |c: &EvaluationCost| (c.relinearizations, c.products);
        if best.as_ref().is_none_or(|(_, b)| key(&cost) < key(b)) {
            best = Some((nodes, cost));
        }
    }
    best.expect("at least one baby-step size was tried")
}

/// The cost of evaluating `p` from a fresh power basis (see [`EvaluationCost`]).
pub fn cost(p: &Polynomial) -> EvaluationCost {
    plan_all(&[p], &BTreeSet::new()).1
}

/// The powers `B_1, B_2, ...` of one ciphertext in one basis, computed on demand and kept
/// (see the [module documentation](self)). `B_i` sits at level `l_x - ⌈log2 i⌉`.
pub struct PowerBasis<E: CircuitEvaluator> {
    basis: Basis,
    top_level: usize,
    powers: BTreeMap<usize, E::Ciphertext>,
}

impl<E: CircuitEvaluator> std::fmt::Debug for PowerBasis<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PowerBasis")
            .field("basis", &self.basis)
            .field("top_level", &self.top_level)
            .field("powers", &self.powers.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<E: CircuitEvaluator<Value = Complex64>> PowerBasis<E> {
    /// The basis of `ct` (a ciphertext of `x`): `B_1 = x` for the power basis, and
    /// `B_1 = t = (x - c)/h` at `x`'s scale for the Chebyshev basis on `[c - h, c + h]`
    /// (one level consumed unless `h = 1`).
    pub fn new(eval: &E, ct: &E::Ciphertext, basis: Basis) -> Result<Self> {
        let mut t = ct.clone();
        let (c, h) = basis.center_half_width();
        if h != 1.0 {
            let level = eval.level(&t);
            if level == 0 {
                return Err(Error::OutOfLevels(format!(
                    "the change of variable to [{}, {}] needs a level and the input is at \
                     level 0",
                    c - h,
                    c + h
                )));
            }
            let q = eval.rescale_factor(level);
            eval.mul_const_scaled_assign(&mut t, Complex64::new(1.0 / h, 0.0), &q)?;
            eval.rescale_assign(&mut t)?;
        }
        if c != 0.0 {
            eval.add_const_assign(&mut t, Complex64::new(-c / h, 0.0))?;
        }
        let top_level = eval.level(&t);
        Ok(PowerBasis {
            basis,
            top_level,
            powers: BTreeMap::from([(1, t)]),
        })
    }

    /// The basis.
    pub fn basis(&self) -> Basis {
        self.basis
    }

    /// The level of `B_1` (the input's, or one below after a change of variable).
    pub fn level(&self) -> usize {
        self.top_level
    }

    /// `B_i`, if computed.
    pub fn get(&self, i: usize) -> Option<&E::Ciphertext> {
        self.powers.get(&i)
    }

    /// Computes `B_i` (and what it is built from) if not there yet.
    pub fn generate(&mut self, eval: &E, i: usize) -> Result<()> {
        if i == 0 {
            return Err(Error::InvalidParameters(
                "B_0 = 1 is a constant, not a ciphertext of the basis".into(),
            ));
        }
        if self.powers.contains_key(&i) {
            return Ok(());
        }
        if ceil_log2(i) > self.top_level {
            return Err(Error::OutOfLevels(format!(
                "B_{i} needs {} levels and the input is at level {}",
                ceil_log2(i),
                self.top_level
            )));
        }
        let (a, b) = factors(i);
        self.generate(eval, a)?;
        self.generate(eval, b)?;
        let chebyshev = matches!(self.basis, Basis::Chebyshev { .. });
        if chebyshev && a != b {
            self.generate(eval, a - b)?;
        }
        let (ta, tb) = (&self.powers[&a], &self.powers[&b]);
        let p = if chebyshev {
            // T_{a+b} = 2 T_a T_b - T_{a-b}, the subtraction at the product's level and
            // scale, before the rescale.
            let level = eval.level(ta).min(eval.level(tb));
            let prod = eval.scale(ta).times(eval.scale(tb));
            let minus = Complex64::new(-1.0, 0.0);
            let w = if a == b {
                eval.constant_like(ta, level, &prod, Some(minus))?
            } else {
                let d = &self.powers[&(a - b)];
                let x = prod.over(eval.scale(d));
                eval.mul_const_scaled_at(d, level, minus, &x)?
            };
            eval.mul_relin_rescale(ta, tb, 2, Some(&w))?
        } else {
            eval.mul_relin_rescale(ta, tb, 1, None)?
        };
        debug_assert_eq!(eval.level(&p), self.top_level - ceil_log2(i));
        self.powers.insert(i, p);
        Ok(())
    }

    /// A noiseless ciphertext of `c` (`None`: 0) at `level` and `scale`.
    fn constant(
        &self,
        eval: &E,
        level: usize,
        scale: &E::Scale,
        c: Option<Complex64>,
    ) -> Result<E::Ciphertext> {
        eval.constant_like(&self.powers[&1], level, scale, c)
    }

    /// Evaluates `node` to exactly `(level, scale)`.
    ///
    /// A split node opens a *chain* `p = Σ_j q_j · B_{g_j} + r` (following the `r`
    /// branches down to a leaf): every term is wanted at `(level + 1, up = S · q_{l+1})`,
    /// so the whole chain is summed there and rescaled once. The products `q_j · B_{g_j}`
    /// are summed unrelinearized and relinearized once
    /// ([`CircuitEvaluator::mul_sum_relin_rescale`]: one key switch per chain instead of
    /// one per product, as Lattigo's lazy giant steps); the `q_j` that are constants and
    /// the leaf's terms are one linear combination at `up`, the addend of that rescale.
    fn run(&self, eval: &E, node: &Node, level: usize, scale: &E::Scale) -> Result<E::Ciphertext> {
        if let Some(c0) = node.constant() {
            // Noiseless, at (level, scale) directly (`level` may be the top one).
            return self.constant(eval, level, scale, Some(c0).filter(|c| !is_zero(c)));
        }
        let up = scale.times(&eval.rescale_factor(level + 1));
        let mut products = Vec::new();
        let mut constants = Vec::new();
        let mut node = node;
        while let Node::Split { g, q, r } = node {
            let bg = &self.powers[g];
            let sq = up.over(eval.scale(bg));
            match q.constant() {
                Some(c) => constants.push((bg, c, sq)),
                None => products.push((self.run(eval, q, level + 1, &sq)?, bg)),
            }
            node = r;
        }
        let Node::Leaf(c) = node else {
            unreachable!("a chain ends at a leaf")
        };
        let terms: Vec<_> = (1..c.len())
            .filter(|&i| !is_zero(&c[i]))
            .map(|i| {
                let bi = &self.powers[&i];
                (bi, c[i], up.over(eval.scale(bi)))
            })
            .chain(constants.into_iter().filter(|(_, c, _)| !is_zero(c)))
            .collect();
        let c0 = c.first().copied().filter(|c0| !is_zero(c0));
        if terms.is_empty() && products.is_empty() {
            return self.constant(eval, level, scale, c0);
        }
        // The addend at (level + 1, up): the linear terms plus the constant term.
        let addend = if terms.is_empty() {
            c0.map(|c0| self.constant(eval, level + 1, &up, Some(c0)))
                .transpose()?
        } else {
            let mut acc = eval.linear_combination(&terms, level + 1)?;
            if let Some(c0) = c0 {
                eval.add_const_assign(&mut acc, c0)?;
            }
            Some(acc)
        };
        let out = if products.is_empty() {
            let mut acc = addend.expect("a chain without products has an addend");
            eval.rescale_assign(&mut acc)?;
            acc
        } else {
            let pairs: Vec<_> = products.iter().map(|(cq, bg)| (cq, *bg)).collect();
            eval.mul_sum_relin_rescale(&pairs, addend.as_ref())?
        };
        debug_assert!(eval.scale(&out) == scale && eval.level(&out) == level);
        Ok(out)
    }
}

/// Evaluates each of `polys` (all in this basis's [`Basis`]) on the ciphertext `basis` was
/// made from, sharing the power basis; output `k` is `⌈log2(d_k + 1)⌉` levels below `B_1`
/// ([`PowerBasis::level`]), i.e. at `l_x - polys[k].depth()` for the input's level `l_x`, and
/// at scale exactly `target`. The baby-step size is chosen for the whole set
/// ([`EvaluationCost`]); powers already in `basis` count as free.
pub fn evaluate_many<E: CircuitEvaluator<Value = Complex64>>(
    eval: &E,
    basis: &mut PowerBasis<E>,
    polys: &[&Polynomial],
    target: &E::Scale,
) -> Result<Vec<E::Ciphertext>> {
    for p in polys {
        if p.basis != basis.basis {
            return Err(Error::ParameterMismatch(format!(
                "the polynomial is in the basis {:?} and the power basis in {:?}: build the \
                 PowerBasis with the polynomial's basis",
                p.basis, basis.basis
            )));
        }
        if p.basis_depth() > basis.top_level {
            return Err(Error::OutOfLevels(format!(
                "a degree-{} polynomial consumes {} levels below B_1, which is at level {}: \
                 use a longer chain or a lower degree",
                p.degree(),
                p.basis_depth(),
                basis.top_level
            )));
        }
    }
    let have: BTreeSet<usize> = basis.powers.keys().copied().collect();
    let (nodes, _) = plan_all(polys, &have);
    let mut wanted = BTreeSet::new();
    nodes.iter().for_each(|n| {
        n.needs(&mut wanted);
    });
    for &i in &wanted {
        basis.generate(eval, i)?;
    }
    polys
        .iter()
        .zip(&nodes)
        .map(|(p, node)| basis.run(eval, node, basis.top_level - p.basis_depth(), target))
        .collect()
}

/// `p(x)` for the ciphertext `ct` of `x`, at level `l_x - p.depth()` and scale exactly
/// `target` (e.g. `ct`'s own scale, for a scale-preserving evaluation).
pub fn evaluate<E: CircuitEvaluator<Value = Complex64>>(
    eval: &E,
    ct: &E::Ciphertext,
    p: &Polynomial,
    target: &E::Scale,
) -> Result<E::Ciphertext> {
    let mut basis = PowerBasis::new(eval, ct, p.basis)?;
    let mut out = evaluate_many(eval, &mut basis, &[p], target)?;
    Ok(out.pop().expect("one polynomial in, one out"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(x: f64) -> Complex64 {
        Complex64::new(x, 0.0)
    }

    /// The tree's depth (levels below the input its output sits at).
    fn depth_of(node: &Node) -> usize {
        match node {
            Node::Leaf(c) => leaf_depth(degree(c)),
            Node::Split { g, q, r } => {
                let below = ceil_log2(*g).max(q.constant().map_or(depth_of(q), |_| 0));
                (below + 1).max(depth_of(r))
            }
        }
    }

    #[test]
    fn every_degree_has_depth_ceil_log2_d_plus_1() {
        for d in 0..=600usize {
            let coeffs: Vec<Complex64> = (0..=d).map(|i| c(1.0 + i as f64)).collect();
            for basis in [Basis::Monomial, Basis::Chebyshev { a: -1.0, b: 1.0 }] {
                let p = Polynomial::checked(basis, coeffs.clone()).unwrap();
                let m = p.basis_depth();
                assert_eq!(
                    m,
                    if d == 0 {
                        0
                    } else {
                        (d as f64 + 1.0).log2().ceil() as usize
                    }
                );
                for l in 1..=m.max(1) {
                    let node = Node::plan(&p.coeffs, m, 1 << l, basis);
                    assert!(depth_of(&node) <= m, "d = {d}, l = {l}");
                }
            }
        }
    }

    #[test]
    fn splitting_is_exact() {
        // p = q T_g + r in the Chebyshev basis, checked at points through Clenshaw.
        let coeffs: Vec<Complex64> = (0..=13)
            .map(|i| Complex64::new(0.3 * i as f64 - 1.0, 0.1))
            .collect();
        let basis = Basis::Chebyshev { a: -1.0, b: 1.0 };
        let (q, r) = split(&coeffs, 8, basis);
        let p = Polynomial::checked(basis, coeffs).unwrap();
        let (q, r) = (
            Polynomial::checked(basis, q).unwrap(),
            Polynomial::checked(basis, r).unwrap(),
        );
        let t8 =
            Polynomial::checked(basis, (0..=8).map(|i| c(f64::from(i == 8))).collect()).unwrap();
        for x in [-0.9, -0.3, 0.1, 0.77] {
            let x = c(x);
            let want = p.evaluate(x);
            let got = q.evaluate(x) * t8.evaluate(x) + r.evaluate(x);
            assert!((want - got).norm() < 1e-9, "{want} vs {got}");
        }
    }

    #[test]
    fn interpolation_matches_the_function_at_the_nodes_and_converges() {
        let f = |x: f64| (0.7 * x).sin() + x * x / 10.0;
        let p = Polynomial::interpolate(f, -3.0, 5.0, 12).unwrap();
        for k in 0..13 {
            let x = 1.0 + 4.0 * (std::f64::consts::PI * (k as f64 + 0.5) / 13.0).cos();
            assert!((p.evaluate(c(x)).re - f(x)).abs() < 1e-12);
        }
        let p = Polynomial::interpolate(f, -3.0, 5.0, 30).unwrap();
        let err = (0..=200)
            .map(|i| -3.0 + 8.0 * i as f64 / 200.0)
            .map(|x| (p.evaluate(c(x)).re - f(x)).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-13, "{err}");
        assert!(Polynomial::interpolate(f, 1.0, 1.0, 3).is_err());
        let nan_above_half = |x: f64| if x > 0.5 { f64::NAN } else { x };
        assert!(Polynomial::interpolate(nan_above_half, -1.0, 1.0, 4).is_err());
    }

    #[test]
    fn products_stay_near_the_papers_count() {
        // Seed 003 §3.1: 2^(m-l) + 2^l + m - l - 3 + ⌈(d+1)/2^l⌉ with l = ⌊m/2⌋, plus at
        // most ⌈log2 m⌉ + 1 extra products on the leading branch (§3.3).
        for d in [7usize, 15, 31, 63, 100, 127, 255] {
            let coeffs: Vec<Complex64> = (0..=d).map(|i| c(1.0 / (1.0 + i as f64))).collect();
            let p = Polynomial::chebyshev(coeffs, -1.0, 1.0).unwrap();
            let m = p.basis_depth();
            let l = m / 2;
            let paper = (1 << (m - l)) + (1 << l) + m - l - 3 + (d + 1).div_ceil(1 << l);
            let got = cost(&p);
            assert_eq!(got.depth, m);
            assert!(
                got.products <= paper + ceil_log2(m) + 1,
                "d = {d}: {got:?} vs {paper}"
            );
        }
    }
}
