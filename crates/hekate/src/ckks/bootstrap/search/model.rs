//! The models behind the search: DFT plans, key-switch counts, key sizes, prime sizes
//! and precision (see the [parent documentation](super)).

use super::*;
use crate::rlwe::keyswitch::cost::{conversions, hadamards};

/// The diagonal indices of each DFT factor (application order), as [`super::dft`]
/// builds them: a factor grouping the butterfly stages of half-lengths `h` has the
/// diagonals of the sumset of `{0, h, n - h}` (mod `n`).
pub(super) fn factor_indices(n: usize, cts: bool, levels: usize) -> Vec<BTreeSet<usize>> {
    if n == 1 {
        return vec![BTreeSet::from([0])];
    }
    let log_n = n.trailing_zeros() as usize;
    let stages: Vec<usize> = if cts {
        (0..log_n).rev().collect()
    } else {
        (0..log_n).collect()
    };
    let (base, extra) = (log_n / levels, log_n % levels);
    let mut rest = stages.as_slice();
    (0..levels)
        .map(|i| {
            let larger = if cts { i < extra } else { i >= levels - extra };
            let (group, tail) = rest.split_at(base + usize::from(larger));
            rest = tail;
            let mut set = BTreeSet::from([0usize]);
            for &s in group {
                let h = 1usize << s;
                set = set
                    .iter()
                    .flat_map(|&a| [a, (a + h) % n, (a + n - h) % n])
                    .collect();
            }
            set
        })
        .collect()
}

/// The diagonal index sets of both DFTs' factors `(CoeffsToSlots, SlotsToCoeffs)` and
/// the slot count they act on: with repacking (`2n <= N/2`) `2n` slots, and
/// SlotsToCoeffs' first factor `diag(F, F)` after the recombination (diagonals `k` and
/// `k + n`), as the bootstrapper builds them.
pub(super) type FactorSets = (Vec<BTreeSet<usize>>, Vec<BTreeSet<usize>>, usize);

pub(super) fn dft_sets(
    ring_degree: usize,
    slots: usize,
    cts_levels: usize,
    stc_levels: usize,
) -> FactorSets {
    let repack = 4 * slots <= ring_degree;
    let width = if repack { 2 * slots } else { slots };
    let cts = factor_indices(slots, true, cts_levels);
    let stc = factor_indices(slots, false, stc_levels)
        .into_iter()
        .enumerate()
        .map(|(j, set)| {
            if repack && j == 0 {
                set.iter().flat_map(|&k| [k, k + slots]).collect()
            } else {
                set
            }
        })
        .collect();
    (cts, stc, width)
}

/// Alg. 8 line 5: the BSGS plans of both DFTs, `(CoeffsToSlots, SlotsToCoeffs)` in
/// application order,
/// as the bootstrapper builds them for `slots` slots in degree `ring_degree` (without
/// computing a matrix: the diagonals of a factor are the sumset of its butterfly stages'
/// `{0, h, n - h}`; with repacking, `2n <= N/2`, the plans act on `2n` slots and
/// SlotsToCoeffs' first factor has the diagonals `k` and `k + n`).
///
/// # Errors
/// [`Error::InvalidParameters`] for a slot count that is not a power of two, or levels
/// outside `[1, max(1, log2 n)]`.
pub fn dft_plans(
    ring_degree: usize,
    slots: usize,
    cts_levels: usize,
    stc_levels: usize,
    giant_steps: GiantSteps,
    bsgs_ties: BsgsTies,
) -> Result<(Vec<BsgsPlan>, Vec<BsgsPlan>)> {
    dft_plans_with(
        ring_degree,
        slots,
        cts_levels,
        stc_levels,
        (giant_steps, bsgs_ties),
        &[],
    )
}

/// [`dft_plans`] with factor `t`'s (CoeffsToSlots then SlotsToCoeffs, application order)
/// baby-step modulus fixed to `baby_steps[t]` where that is `Some`
/// ([`BsgsPlan::chain_with`]).
pub(in crate::ckks::bootstrap) fn dft_plans_with(
    ring_degree: usize,
    slots: usize,
    cts_levels: usize,
    stc_levels: usize,
    (giant_steps, bsgs_ties): (GiantSteps, BsgsTies),
    baby_steps: &[Option<usize>],
) -> Result<(Vec<BsgsPlan>, Vec<BsgsPlan>)> {
    if !slots.is_power_of_two() || 2 * slots > ring_degree {
        return Err(Error::InvalidParameters(format!(
            "slot count {slots} must be a power of two in [1, N/2 = {}]",
            ring_degree / 2
        )));
    }
    let max = (slots.trailing_zeros() as usize).max(1);
    for rho in [cts_levels, stc_levels] {
        if rho == 0 || rho > max {
            return Err(Error::InvalidParameters(format!(
                "DFT levels {rho} must be in [1, log2 n = {max}]"
            )));
        }
    }
    let (cts, stc, width) = dft_sets(ring_degree, slots, cts_levels, stc_levels);
    let cts_count = cts.len();
    let mut plans = BsgsPlan::chain_with(
        cts.into_iter().chain(stc),
        width,
        giant_steps,
        bsgs_ties,
        baby_steps,
    )?;
    let stc = plans.split_off(cts_count);
    Ok((plans, stc))
}

/// Unit costs measured at one degree, scaled to `ring_degree` (`N log N` for NTTs, `N`
/// for the rest): a model of how the costs grow, for costs calibrated at a smaller degree.
pub fn scale_costs(costs: &UnitCosts, ring_degree: usize) -> UnitCosts {
    if costs.n == ring_degree || costs.n == 0 {
        return UnitCosts {
            n: ring_degree,
            ..*costs
        };
    }
    let f = ring_degree as f64 / costs.n as f64;
    let g = f * (ring_degree as f64).log2() / (costs.n as f64).log2();
    UnitCosts {
        n: ring_degree,
        ntt_narrow: costs.ntt_narrow * g,
        ntt_wide: costs.ntt_wide * g,
        hadamard: costs.hadamard * f,
        hadamard_wide: costs.hadamard_wide * f,
        conversion: costs.conversion * f,
        conversion_wide: costs.conversion_wide * f,
    }
}

/// A chain and its special primes, with the parts of one hybrid key switch per level.
pub(super) struct Chain {
    pub(super) q: Vec<u32>,
    pub(super) p: Vec<u32>,
    /// The hybrid gadget's digits over `q`.
    pub(super) digits: DigitPartition,
}

/// Whether a prime of `bits` bits is wide (`2^50` or more: a `b`-bit prime is below
/// `2^b`), as [`CostModel`] sorts NTTs, inner-product terms and conversion pairs.
///
/// [`CostModel`]: crate::rlwe::keyswitch::cost::CostModel
fn wide(bits: &u32) -> bool {
    *bits > 50
}

/// Adds `times` NTTs over primes of `bits` to `c` (wide from `2^50` on, as [`CostModel`]
/// counts them).
///
/// [`CostModel`]: crate::rlwe::keyswitch::cost::CostModel
pub(super) fn ntts(bits: &[u32], times: f64, c: &mut OpCounts) {
    for b in bits {
        if wide(b) {
            c.ntt_wide += times;
        } else {
            c.ntt_narrow += times;
        }
    }
}

pub(super) fn add(a: OpCounts, b: OpCounts, times: f64) -> OpCounts {
    OpCounts {
        ntt_narrow: a.ntt_narrow + times * b.ntt_narrow,
        ntt_wide: a.ntt_wide + times * b.ntt_wide,
        hadamard: a.hadamard + times * b.hadamard,
        hadamard_wide: a.hadamard_wide + times * b.hadamard_wide,
        conversion: a.conversion + times * b.conversion,
        conversion_wide: a.conversion_wide + times * b.conversion_wide,
    }
}

/// The parts of one hybrid key switch: decomposition, inner product, ModDown of one half.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct KsParts {
    pub(super) decompose: OpCounts,
    pub(super) inner: OpCounts,
    pub(super) half_mod_down: OpCounts,
}

impl KsParts {
    /// A whole key switch: their sum with both halves' ModDown (`CostModel::counts` for
    /// the hybrid engine).
    pub(super) fn whole(&self) -> OpCounts {
        add(
            add(self.decompose, self.inner, 1.0),
            self.half_mod_down,
            2.0,
        )
    }
}

impl Chain {
    /// The hybrid key switch at `level` (`level + 1` limbs), split as in
    /// [`CostModel::counts`](crate::rlwe::keyswitch::cost::CostModel::counts).
    pub(super) fn key_switch(&self, level: usize) -> KsParts {
        let ql = level + 1;
        let (q, p) = (&self.q[..ql], &self.p[..]);
        let k = p.len();
        let mut parts = KsParts::default();
        ntts(q, 1.0, &mut parts.decompose);
        let digits = self.digits.digits_at(ql);
        for j in 0..digits {
            let digit = self.digits.range(j, ql);
            let s = digit.len();
            let outside: Vec<u32> = q[..digit.start]
                .iter()
                .chain(&q[digit.end..])
                .chain(p)
                .copied()
                .collect();
            ntts(&outside, 1.0, &mut parts.decompose);
            let digit_wide = q[digit].iter().any(wide);
            let outside_wide = outside.iter().map(wide);
            conversions(s, digit_wide, outside_wide, 1.0, &mut parts.decompose);
        }
        hadamards(
            q.iter().chain(p).map(wide),
            2.0 * digits as f64,
            &mut parts.inner,
        );
        ntts(p, 1.0, &mut parts.half_mod_down);
        ntts(q, 1.0, &mut parts.half_mod_down);
        let p_wide = p.iter().any(wide);
        conversions(k, p_wide, q.iter().map(wide), 1.0, &mut parts.half_mod_down);
        parts
    }

    /// A rescale at `level`: both halves back to coefficients and on to `level` limbs.
    pub(super) fn rescale(&self, level: usize) -> OpCounts {
        let mut c = OpCounts::default();
        ntts(&self.q[..=level], 2.0, &mut c);
        c
    }

    /// Bytes of a key for levels `<= level` (the hybrid formula of
    /// [`key_levels`](super::key_levels)).
    pub(super) fn key_bytes(&self, level: usize, ring_degree: usize) -> usize {
        let l1 = level + 1;
        self.digits.key_digits(l1) * 2 * (l1 + self.p.len()) * ring_degree * 8
    }

    /// Bytes of one bootstrap's keys: the Galois keys for levels `galois` (each as wide as
    /// its level), the relinearization key for `relin_level`, and with `encapsulation` the
    /// switching key `s̃ -> s` over `Q ∪ P` at the top and `s -> s̃` over `q_0 p` (one
    /// digit, two limbs).
    pub(super) fn bootstrap_key_bytes(
        &self,
        galois: impl IntoIterator<Item = usize>,
        relin_level: usize,
        encapsulation: bool,
        ring_degree: usize,
    ) -> usize {
        let n = ring_degree;
        let mut bytes: usize = galois.into_iter().map(|l| self.key_bytes(l, n)).sum();
        bytes += self.key_bytes(relin_level, n);
        if encapsulation {
            bytes += self.key_bytes(self.q.len() - 1, n) + 2 * 2 * n * 8;
        }
        bytes
    }

    /// The operations of one DFT factor evaluated by `plan` at `level` with `diagonals`
    /// plaintext products, and the rescale after it: the plan's decompositions, inner
    /// products and ModDowns at that level; seed 003 Alg. 6 over `Q_l ∪ P` where the plan
    /// has baby rotations (the hybrid engine's `LinearTransform`: no ModDown per baby
    /// step, products over `l + 1 + k` limbs). Permutations and additions are not counted.
    pub(super) fn transform(&self, plan: &BsgsPlan, level: usize, diagonals: usize) -> OpCounts {
        let ks = self.key_switch(level);
        let extended = plan.extended_inner_loop();
        let (pairs, halves) = if extended {
            plan.extended_mod_downs()
        } else {
            plan.mod_downs()
        };
        let mut c = add(
            OpCounts::default(),
            ks.decompose,
            plan.decompositions() as f64,
        );
        c = add(c, ks.inner, plan.key_switches() as f64);
        c = add(c, ks.half_mod_down, (2 * pairs + halves) as f64);
        let limbs = level + 1 + if extended { self.p.len() } else { 0 };
        c.hadamard += (diagonals * 2 * limbs) as f64;
        add(c, self.rescale(level), 1.0)
    }

    pub(super) fn log_qp(&self) -> f64 {
        self.q.iter().chain(&self.p).map(|&b| f64::from(b)).sum()
    }

    /// The largest digit's bits at `dnum` uniform digits.
    pub(super) fn max_digit(q: &[u32], dnum: usize) -> f64 {
        let bits: Vec<f64> = q.iter().map(|&b| f64::from(b)).collect();
        DigitPartition::uniform(q.len(), dnum).max_digit_bits(&bits)
    }

    /// Alg. 8 line 7: the chain `q` with the special primes covering its largest digit at
    /// `dnum` by the
    /// noise margin (`log2(σ sqrt(1.5 dnum)) + 1` bits), in as few primes of at most 61
    /// bits as possible, of equal size.
    pub(super) fn with_special_primes(q: Vec<u32>, dnum: usize) -> Chain {
        // A b-bit prime is below 2^b: count each as b - 0.5 bits, as the builder does.
        let need = Self::max_digit(&q, dnum) + digit_margin_bits(dnum);
        let mut k = (need / (f64::from(MAX_PRIME_BITS) - 0.5)).ceil().max(1.0) as u32;
        let bits = loop {
            let b = ((need / f64::from(k)) + 0.5).ceil() as u32;
            if b <= MAX_PRIME_BITS {
                break b.max(MIN_PRIME_BITS);
            }
            k += 1;
        };
        Chain {
            digits: DigitPartition::uniform(q.len(), dnum),
            q,
            p: vec![bits; k as usize],
        }
    }
}

/// The stage layout of a candidate: levels and the Galois keys with their levels.
pub(super) struct Shape {
    pub(super) cts: Vec<BsgsPlan>,
    pub(super) stc: Vec<BsgsPlan>,
    /// Diagonals of all CoeffsToSlots factors, and of all SlotsToCoeffs factors.
    pub(super) cts_diagonals: usize,
    pub(super) stc_diagonals: usize,
}

impl Shape {
    pub(super) fn new(
        inputs: &SearchInputs,
        cts_levels: usize,
        stc_levels: usize,
    ) -> Result<Shape> {
        Self::with_baby_steps(inputs, cts_levels, stc_levels, &[])
    }

    /// [`Shape::new`] with factor `t`'s `n1` fixed where `baby_steps[t]` is `Some`.
    pub(super) fn with_baby_steps(
        inputs: &SearchInputs,
        cts_levels: usize,
        stc_levels: usize,
        baby_steps: &[Option<usize>],
    ) -> Result<Shape> {
        let (cts_sets, stc_sets, _) =
            dft_sets(inputs.ring_degree(), inputs.slots, cts_levels, stc_levels);
        let (cts, stc) = dft_plans_with(
            inputs.ring_degree(),
            inputs.slots,
            cts_levels,
            stc_levels,
            (inputs.giant_steps, inputs.bsgs_ties),
            baby_steps,
        )?;
        Ok(Shape {
            cts,
            stc,
            cts_diagonals: cts_sets.iter().map(BTreeSet::len).sum(),
            stc_diagonals: stc_sets.iter().map(BTreeSet::len).sum(),
        })
    }
}

/// Everything [`evaluate`] needs besides the chain.
#[derive(Clone, Copy)]
pub(super) struct Circuit<'a> {
    pub(super) inputs: &'a SearchInputs,
    pub(super) shape: &'a Shape,
    pub(super) eval_mod: &'a EvalMod,
    /// Relinearizations of EvalMod's polynomial (each with a rescale:
    /// [`EvaluationCost::relinearizations`](crate::circuits::polyeval::EvaluationCost)).
    pub(super) poly_relinearizations: usize,
    pub(super) log_ratio: u32,
    pub(super) k: u64,
    /// `log2 ν`, `ν = sqrt(N (1 + h) / 12)`: the rounding noise of one rescale.
    pub(super) log_nu: f64,
}

impl Circuit<'_> {
    /// The shape with the baby steps a key budget of `cap` bytes buys on `chain`
    /// ([`budget`](super::budget): the same search the bootstrapper runs on the built
    /// context), or `None` where it buys none.
    pub(super) fn budgeted(&self, chain: &Chain, cap: usize) -> Result<Option<Shape>> {
        let n = self.ring_degree();
        let (rc, rs) = (self.shape.cts.len(), self.shape.stc.len());
        let (cts_sets, stc_sets, width) = dft_sets(n, self.inputs.slots, rc, rs);
        let top = chain.q.len() - 1;
        let eval_mod_level = top - rc;
        let stc_level = eval_mod_level - self.eval_mod.depth();
        let factors = super::budget::FactorPrices {
            chain,
            levels: (0..rc)
                .map(|j| top - j)
                .chain((0..rs).map(|j| stc_level - j))
                .collect(),
            diagonals: cts_sets
                .iter()
                .chain(&stc_sets)
                .map(BTreeSet::len)
                .collect(),
            width,
            relin_level: eval_mod_level,
            encapsulation: self.inputs.ephemeral_weight.is_some(),
            ring_degree: n,
        };
        let n1s = factors.search(cap, |n1s| {
            let shape = Shape::with_baby_steps(self.inputs, rc, rs, n1s)?;
            let levels = Circuit {
                shape: &shape,
                ..*self
            }
            .galois_levels(top)
            .into_values()
            .collect();
            Ok(([shape.cts, shape.stc].concat(), levels))
        })?;
        if n1s.iter().all(Option::is_none) {
            return Ok(None);
        }
        Shape::with_baby_steps(self.inputs, rc, rs, &n1s).map(Some)
    }

    pub(super) fn ring_degree(&self) -> usize {
        self.inputs.ring_degree()
    }

    /// The Galois elements with the highest level each is used at, from `top`:
    /// CoeffsToSlots factor `j` at `top - j`, SubSum at `top`, conjugation at EvalMod's
    /// first level, SlotsToCoeffs factor `j` below EvalMod (as
    /// [`key_levels`](super::key_levels) lists them).
    pub(super) fn galois_levels(&self, top: usize) -> BTreeMap<usize, usize> {
        let n = self.ring_degree();
        let (rc, depth) = (self.shape.cts.len(), self.eval_mod.depth());
        let eval_mod_level = top - rc;
        let stc_level = eval_mod_level - depth;
        let mut map = BTreeMap::new();
        let mut add = |g: usize, l: usize| {
            let e = map.entry(g).or_insert(l);
            *e = (*e).max(l);
        };
        for (plans, first) in [(&self.shape.cts, top), (&self.shape.stc, stc_level)] {
            for (j, p) in plans.iter().enumerate() {
                for r in p.rotations() {
                    add(galois_element_for_rotation(r, n), first - j);
                }
            }
        }
        let trace = n / (2 * self.inputs.slots);
        for i in 0..trace.trailing_zeros() {
            add(
                galois_element_for_rotation((self.inputs.slots << i) as i64, n),
                top,
            );
        }
        add(galois_element_for_conjugation(n), eval_mod_level);
        map
    }
}

/// Bits of each stage's primes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Sizes {
    pub(super) q0: u32,
    pub(super) stc: u32,
    pub(super) eval_mod: u32,
    pub(super) cts: u32,
    /// The margin (bits below `2^-δ`) each term was sized for.
    pub(super) margin: f64,
}

/// `log2 sqrt(2n)`.
pub(super) fn log_s(slots: usize) -> f64 {
    0.5 * (2.0 * slots as f64).log2()
}

/// `ε_sin` of the precision model, in `log2`.
pub(super) fn log_sine_error(log_ratio: u32, slots: usize) -> f64 {
    ((2.0 * PI).powi(2) / 6.0 * 15f64.sqrt() * SIGMA_Z.powi(3)).log2()
        - 2.0 * f64::from(log_ratio)
        - 2.0 * log_s(slots)
}

impl Circuit<'_> {
    pub(super) fn rc(&self) -> usize {
        self.shape.cts.len()
    }

    pub(super) fn rs(&self) -> usize {
        self.shape.stc.len()
    }

    /// `shed / ρ_StC`: the bits each SlotsToCoeffs factor sheds from EvalMod's scale / R
    /// down to `Δ`.
    pub(super) fn shed_per_factor(&self, eval_mod_bits: u32) -> f64 {
        (f64::from(eval_mod_bits) - f64::from(self.log_ratio) - f64::from(self.inputs.log_scale))
            / self.rs() as f64
    }

    /// The SlotsToCoeffs prime size for EvalMod primes of `eval_mod_bits` (line 6), its
    /// term within `2^-(δ + margin)`.
    pub(super) fn stc_bits(&self, eval_mod_bits: u32, margin: f64) -> u32 {
        let t = self.inputs.precision + margin;
        let need = t
            + 0.5 * (self.shape.stc_diagonals as f64).log2()
            + SIGMA_Z.log2()
            + self.shed_per_factor(eval_mod_bits);
        (need.ceil() as u32).max(MIN_PRIME_BITS)
    }

    /// `log2` of the EvalMod noise's factor over `R s ν / q_em`: `(K' + 2^r) sqrt(d + 1)`
    /// (the input's noise times `K'`, the polynomial's rounding amplified by the double
    /// angles, both summed over the `d + 1` terms; calibrated at `N = 2^12`).
    fn log_eval_mod_gain(&self) -> f64 {
        let k_prime = self.k as f64 + 1.0;
        let r = f64::from(self.eval_mod.double_angles()).exp2();
        (k_prime + r).log2() + 0.5 * (self.eval_mod.polynomial().degree() as f64 + 1.0).log2()
    }

    /// `log2` of CoeffsToSlots' rescale and key-switch noise over `R ν / q_0`:
    /// `s sqrt(ρ_CtS + 1) 2n / N` (added in the slots, which SlotsToCoeffs sums `2n` of).
    fn log_cts_noise_gain(&self) -> f64 {
        let n = self.inputs.slots as f64;
        log_s(self.inputs.slots)
            + 0.5 * (self.rc() as f64 + 1.0).log2()
            + (2.0 * n / self.ring_degree() as f64).log2()
    }

    /// The smallest prime of each stage keeping its terms within `2^-(δ + margin)` (Alg. 8
    /// line 6; see the [module documentation](self)).
    pub(super) fn sizes(&self, margin: f64) -> Sizes {
        let t = self.inputs.precision + margin;
        let r = f64::from(self.log_ratio);
        let ls = log_s(self.inputs.slots);
        let q0 = t + r + self.log_nu + self.log_cts_noise_gain().max(0.0);
        let q0 = (q0.ceil() as u32).max(self.log_ratio + 20);
        let k_prime = (self.k as f64 + 1.0).log2();
        let cts = (t + r + ls + k_prime + 0.5 * (self.shape.cts_diagonals as f64).log2()).ceil();
        let em = t + r + ls + self.log_nu + self.log_eval_mod_gain();
        let eval_mod = (em.ceil() as u32).max(self.log_ratio + 20);
        Sizes {
            q0,
            stc: self.stc_bits(eval_mod, margin),
            eval_mod,
            cts: (cts as u32).max(MIN_PRIME_BITS),
            margin,
        }
    }

    /// The terms of the precision model (`log2` of each RMS error; see the
    /// [module documentation](self)), in the order of the table there.
    pub(super) fn log_errors(&self, s: &Sizes) -> [f64; 8] {
        let r = f64::from(self.log_ratio);
        let ls = log_s(self.inputs.slots);
        let k_prime = (self.k as f64 + 1.0).log2();
        let poly = self
            .eval_mod
            .max_error((-r).exp2())
            .max(f64::MIN_POSITIVE)
            .log2();
        let q0 = f64::from(s.q0);
        // ModRaise's gain c raises q_0 to c q_0 ~ q_em / (K' N/2n) against the key
        // switches' noise where that is larger (Bootstrapper::mod_raise_gain).
        let trace = (self.ring_degree() as f64 / (2.0 * self.inputs.slots as f64)).log2();
        let raised = q0.max(f64::from(s.eval_mod) - k_prime - trace);
        [
            self.log_nu + r - q0,
            self.log_nu + r + self.log_cts_noise_gain() - raised,
            r + ls + k_prime + 0.5 * (self.shape.cts_diagonals as f64).log2() - f64::from(s.cts),
            r + ls + poly - 0.5,
            log_sine_error(self.log_ratio, self.inputs.slots),
            r + ls + self.log_nu + self.log_eval_mod_gain() - f64::from(s.eval_mod),
            SIGMA_Z.log2() + 0.5 * (self.shape.stc_diagonals as f64).log2() - f64::from(s.stc)
                + self.shed_per_factor(s.eval_mod),
            self.log_nu - f64::from(self.inputs.log_scale),
        ]
    }

    /// The predicted mean precision, in bits.
    pub(super) fn precision(&self, s: &Sizes) -> f64 {
        let total: f64 = self.log_errors(s).iter().map(|e| (2.0 * e).exp2()).sum();
        -(0.886 * total.sqrt()).log2()
    }

    pub(super) fn chain_bits(&self, s: &Sizes) -> Vec<u32> {
        let mut q = vec![s.q0];
        q.extend(std::iter::repeat_n(
            self.inputs.log_scale,
            self.inputs.levels_left,
        ));
        q.extend(std::iter::repeat_n(s.stc, self.rs()));
        q.extend(std::iter::repeat_n(s.eval_mod, self.eval_mod.depth()));
        q.extend(std::iter::repeat_n(s.cts, self.rc()));
        q
    }

    /// Predicted operation counts, key switches, key bytes and Galois keys of one bootstrap
    /// on `chain` (see the [module documentation](self)).
    pub(super) fn costs(&self, chain: &Chain) -> ([OpCounts; 4], usize, usize, usize) {
        let n = self.ring_degree();
        let top = chain.q.len() - 1;
        let eval_mod_level = top - self.rc();
        let depth = self.eval_mod.depth();
        let stc_level = eval_mod_level - depth;
        // ScaleDown to SubSum, CoeffsToSlots, EvalMod, SlotsToCoeffs.
        let mut c = [OpCounts::default(); 4];
        let mut switches = 0;
        ntts(&chain.q, 2.0, &mut c[0]); // ScaleDown and ModRaise
        let whole = |c: &mut OpCounts, level: usize, times: usize| {
            *c = add(*c, chain.key_switch(level).whole(), times as f64);
            times
        };
        let trace = n / (2 * self.inputs.slots);
        switches += whole(&mut c[0], top, trace.trailing_zeros() as usize);
        if self.inputs.ephemeral_weight.is_some() {
            switches += whole(&mut c[0], top, 1); // decapsulation
        }
        switches += whole(&mut c[1], eval_mod_level, 1); // conjugation
        let transform = |c: &mut OpCounts, plan: &BsgsPlan, level: usize, diagonals: usize| {
            *c = add(*c, chain.transform(plan, level, diagonals), 1.0);
            plan.key_switches()
        };
        let per_factor = |total: usize, count: usize| total.div_ceil(count.max(1));
        for (j, plan) in self.shape.cts.iter().enumerate() {
            let d = per_factor(self.shape.cts_diagonals, self.rc());
            switches += transform(&mut c[1], plan, top - j, d);
        }
        for (j, plan) in self.shape.stc.iter().enumerate() {
            let d = per_factor(self.shape.stc_diagonals, self.rs());
            switches += transform(&mut c[3], plan, stc_level - j, d);
        }
        // EvalMod: on one ciphertext with repacking or sparse packing, else on two.
        let copies = if 2 * self.inputs.slots == n { 2 } else { 1 };
        let r = self.eval_mod.double_angles() as usize;
        let poly_depth = depth - r;
        let product = |c: &mut OpCounts, level: usize, times: usize| {
            let one = add(chain.key_switch(level).whole(), chain.rescale(level), 1.0);
            *c = add(*c, one, times as f64);
            c.hadamard += (times * 4 * (level + 1)) as f64;
            times
        };
        let poly_level = eval_mod_level - poly_depth.div_ceil(2);
        switches += product(&mut c[2], poly_level, copies * self.poly_relinearizations);
        // One constant product and addition per coefficient, on both halves.
        let degree = self.eval_mod.polynomial().degree();
        c[2].hadamard += (copies * (degree + 1) * 4 * (poly_level + 1)) as f64;
        for i in 1..=r {
            switches += product(&mut c[2], stc_level + (r - i) + 1, copies);
        }
        // Keys, each as wide as the level it is used at.
        let galois = self.galois_levels(top);
        let key_bytes = chain.bootstrap_key_bytes(
            galois.values().copied(),
            eval_mod_level,
            self.inputs.ephemeral_weight.is_some(),
            n,
        );
        (c, switches, key_bytes, galois.len())
    }
}
