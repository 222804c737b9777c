//! The bootstrapping circuit: ScaleDown, ModRaise, SubSum, CoeffsToSlots, EvalMod,
//! SlotsToCoeffs (see the [module documentation](super) for the design).

use super::config::{factor_layout, BootstrapConfig};
use super::dft::{dft_factors, DftKind};
use super::encapsulation::{self, EncapsulationKeys};
use super::keys::BootstrapKeys;
use super::scales::{eval_mod_target, raise_gain, raised_scale};
use crate::circuits::lintrans::{BsgsPlan, Diagonals, LinearTransform};
use crate::ckks::{Ciphertext, CkksContext, Evaluator, Scale};
use crate::ring::automorphism::{galois_element_for_conjugation, galois_element_for_rotation};
use crate::rlwe::RlweParameters;
use crate::{Error, Result};
use num_complex::Complex64;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The DFT factors of a configuration with their BSGS plans: `(CoeffsToSlots,
/// SlotsToCoeffs)`, each in application order. CoeffsToSlots carries `1 / 2`, of the
/// real/imaginary split (`1/K'` and `N/2n` are in the scale `S_0`).
type Factors = Vec<(Diagonals<Complex64>, BsgsPlan)>;

/// Whether the real and imaginary halves are packed into one ciphertext of `2n` slots
/// (sparse packing, `2n <= N/2`: one EvalMod instead of two; Lattigo's repacking).
pub(super) fn repacks(ctx: &CkksContext, slots: usize) -> bool {
    2 * slots <= ctx.n() / 2
}

/// `f` on the `2n` slots of a ciphertext whose slots repeat with period `n` (`[u, u]`):
/// the diagonal `k` becomes `[f_k, tw · f_k]` at the same index, so the result is
/// `[F u, tw · F u]` (exact for periodic inputs only).
fn periodic(f: &Diagonals<Complex64>, tw: Complex64) -> Result<Diagonals<Complex64>> {
    let n = f.slots();
    let mut out = Diagonals::new(2 * n)?;
    for k in f.indices().collect::<Vec<_>>() {
        let d = f.get(k as i64).expect("listed index");
        let v: Vec<Complex64> = d.iter().copied().chain(d.iter().map(|&x| x * tw)).collect();
        out.insert(k as i64, v)?;
    }
    Ok(out)
}

/// `diag(F, F)` on `2n` slots (exact for any input).
fn block_diagonal(f: &Diagonals<Complex64>) -> Result<Diagonals<Complex64>> {
    let n = f.slots();
    let mut map: BTreeMap<usize, Vec<Complex64>> = BTreeMap::new();
    for k in f.indices().collect::<Vec<_>>() {
        let d = f.get(k as i64).expect("listed index");
        for i in 0..2 * n {
            let (block, r) = (i / n * n, i % n);
            let col = block + (r + k) % n;
            let idx = (col + 2 * n - i) % (2 * n);
            map.entry(idx)
                .or_insert_with(|| vec![Complex64::new(0.0, 0.0); 2 * n])[i] = d[r];
        }
    }
    let mut out = Diagonals::new(2 * n)?;
    for (k, v) in map {
        out.insert(k as i64, v)?;
    }
    Ok(out)
}

/// `[p, q] -> [p + i q, p + i q]` on `2n` slots: the recombination of the packed halves.
fn recombine(n: usize) -> Result<Diagonals<Complex64>> {
    let (one, i) = (Complex64::new(1.0, 0.0), Complex64::new(0.0, 1.0));
    let mut c = Diagonals::new(2 * n)?;
    c.insert(0, [vec![one; n], vec![i; n]].concat())?;
    c.insert(n as i64, [vec![i; n], vec![one; n]].concat())?;
    Ok(c)
}

/// Both DFTs' factors of `config` with their BSGS plans ([`Factors`]; the baby steps of
/// [`factor_plans`], within the key budget of `ctx`'s chain), for ciphertexts whose halves
/// are repacked or not.
pub(super) fn factors(
    ctx: &CkksContext,
    config: &BootstrapConfig,
    repack: bool,
) -> Result<(Factors, Factors)> {
    let n = config.slots;
    let (cts, stc) = (
        dft_factors(
            n,
            DftKind::CoeffsToSlots,
            config.cts_levels,
            Complex64::new(0.5, 0.0),
        )?,
        dft_factors(
            n,
            DftKind::SlotsToCoeffs,
            config.stc_levels,
            Complex64::new(1.0, 0.0),
        )?,
    );
    let (cts, stc) = if repack {
        // CoeffsToSlots on [u, u] ends with [a, -i a]: its conjugate sum is
        // [2 Re a, 2 Im a], both halves in one ciphertext. SlotsToCoeffs starts by
        // recombining them and stays periodic.
        let minus_i = Complex64::new(0.0, -1.0);
        let one = Complex64::new(1.0, 0.0);
        let last = cts.len() - 1;
        let cts = cts
            .iter()
            .enumerate()
            .map(|(j, f)| periodic(f, if j == last { minus_i } else { one }))
            .collect::<Result<Vec<_>>>()?;
        let stc = stc
            .iter()
            .enumerate()
            .map(|(j, f)| {
                if j == 0 {
                    block_diagonal(f)?.compose(&recombine(n)?)
                } else {
                    periodic(f, one)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        (cts, stc)
    } else {
        (cts, stc)
    };
    // Every factor but the very last carries its outer rotation into the next one (the
    // slot-wise steps between the two DFTs commute with rotations): one key fewer each.
    let cts_count = cts.len();
    let all: Vec<Diagonals<Complex64>> = cts.into_iter().chain(stc).collect();
    let plans = BsgsPlan::chain_with(
        all.iter().map(|d| d.indices().collect::<Vec<_>>()),
        all.first().map_or(1, Diagonals::slots),
        config.giant_steps,
        config.bsgs_ties,
        &super::search::budget::baby_steps(ctx, config)?,
    )?;
    let mut offset = 0;
    let mut planned = Vec::with_capacity(all.len());
    for (d, p) in all.into_iter().zip(plans) {
        let d = d.after_rotation(offset);
        offset = p.outer_rotation() as i64;
        planned.push((d, p));
    }
    let stc = planned.split_off(cts_count);
    Ok((planned, stc))
}

/// The BSGS plans of both DFTs, `(CoeffsToSlots, SlotsToCoeffs)`: those of [`factors`]
/// (the same plans, checked by the tests), from the factors' diagonal index sets alone, so
/// that listing the keys a bootstrap needs computes no matrix.
pub(super) fn factor_plans(
    ctx: &CkksContext,
    config: &BootstrapConfig,
) -> Result<(Vec<BsgsPlan>, Vec<BsgsPlan>)> {
    let baby_steps = super::search::budget::baby_steps(ctx, config)?;
    plans_with(ctx, config, &baby_steps)
}

/// [`factor_plans`] with factor `t`'s baby-step modulus fixed to `baby_steps[t]` where
/// that is `Some`.
pub(super) fn plans_with(
    ctx: &CkksContext,
    config: &BootstrapConfig,
    baby_steps: &[Option<usize>],
) -> Result<(Vec<BsgsPlan>, Vec<BsgsPlan>)> {
    super::search::dft_plans_with(
        ctx.n(),
        config.slots,
        config.cts_levels,
        config.stc_levels,
        (config.giant_steps, config.bsgs_ties),
        baby_steps,
    )
}

/// `N / 2n`: the SubSum (trace) factor, 1 for full packing.
pub(super) fn trace_factor(ctx: &CkksContext, slots: usize) -> usize {
    ctx.n() / (2 * slots)
}

/// The SubSum rotations `n · 2^i` (over `N/2` slots), `i < log2(N / 2n)`.
fn sub_sum_steps(ctx: &CkksContext, slots: usize) -> Vec<i64> {
    let g = trace_factor(ctx, slots);
    (0..g.trailing_zeros())
        .map(|i| (slots << i) as i64)
        .collect()
}

/// A key one bootstrap uses: the highest level it is used at and what for.
pub(super) struct KeyUse {
    pub(super) level: usize,
    pub(super) what: String,
}

/// The Galois elements one bootstrap uses, each with the highest level it is used at
/// (a CoeffsToSlots factor at the level of its prime, `L - p` for the `p`-th prime below
/// the top, SubSum at `L`, conjugation at EvalMod's first level, SlotsToCoeffs factors at
/// their primes' levels below EvalMod) and what it is first used for.
pub(super) fn labelled_elements(
    ctx: &CkksContext,
    config: &BootstrapConfig,
) -> Result<BTreeMap<usize, KeyUse>> {
    config.check(ctx)?;
    let (cts, stc) = factor_plans(ctx, config)?;
    elements_of_plans(ctx, config, &cts, &stc)
}

/// [`labelled_elements`] for the DFT factors' plans `cts`, `stc` (those of
/// [`factor_plans`], or a candidate's).
pub(super) fn elements_of_plans(
    ctx: &CkksContext,
    config: &BootstrapConfig,
    cts: &[BsgsPlan],
    stc: &[BsgsPlan],
) -> Result<BTreeMap<usize, KeyUse>> {
    let n = ctx.n();
    let top = ctx.max_level();
    let eval_mod_level = top - config.cts_primes();
    let stc_level = eval_mod_level - config.eval_mod.depth();
    let mut map: BTreeMap<usize, KeyUse> = BTreeMap::new();
    let mut add = |g: usize, level: usize, what: &dyn Fn() -> String| {
        map.entry(g)
            .and_modify(|u| u.level = u.level.max(level))
            .or_insert_with(|| KeyUse {
                level,
                what: what(),
            });
    };
    for (stage, f, first, grouping) in [
        ("CoeffsToSlots", cts, top, config.cts_grouping()),
        ("SlotsToCoeffs", stc, stc_level, config.stc_grouping()),
    ] {
        for (p, (off, _, _)) in f.iter().zip(factor_layout(&grouping)) {
            for r in p.rotations() {
                add(galois_element_for_rotation(r, n), first - off, &|| {
                    format!("{stage}: rotation by {r}")
                });
            }
        }
    }
    for s in sub_sum_steps(ctx, config.slots) {
        add(galois_element_for_rotation(s, n), top, &|| {
            format!("SubSum: rotation by {s} of N/2 slots")
        });
    }
    add(galois_element_for_conjugation(n), eval_mod_level, &|| {
        "CoeffsToSlots: conjugation".into()
    });
    Ok(map)
}

/// The level of the relinearization key one bootstrap needs: EvalMod's first level,
/// `L` less the primes of CoeffsToSlots (its products are all at or below it).
pub(super) fn relinearization_level(ctx: &CkksContext, config: &BootstrapConfig) -> usize {
    ctx.max_level() - config.cts_primes()
}

/// `x^(1/k)` rounded to an integer scale (at least 1).
fn root_scale(x: &Scale, k: usize) -> Result<Scale> {
    Scale::from_f64((x.log2() / k as f64).exp2().round().max(1.0)).ok_or_else(|| {
        Error::InvalidParameters(format!(
            "a DFT factor's scale 2^{:.1}^(1/{k}) is not representable",
            x.log2()
        ))
    })
}

/// The last SlotsToCoeffs factor, encoded per output scale.
pub(super) struct LastFactor {
    pub(super) diagonals: Diagonals<Complex64>,
    pub(super) plan: BsgsPlan,
    /// `(output scale, transform)`: built on first use of each output scale.
    pub(super) encoded: super::pipeline::LastFactors<Evaluator>,
}

/// CKKS bootstrapping (seed 003 §5): refreshes a ciphertext of `n` slots to
/// [`Bootstrapper::output_level`], at its own scale. Built from public evaluation keys
/// only ([`generate_keys`](super::generate_keys)); the DFT matrices are encoded once here.
pub struct Bootstrapper {
    pub(super) ctx: Arc<CkksContext>,
    pub(super) eval: Evaluator,
    pub(super) config: BootstrapConfig,
    /// Whether the halves are repacked into one ciphertext of `2n` slots.
    pub(super) repack: bool,
    /// CoeffsToSlots factors, in application order (levels `L`, `L - 1`, ...), each with
    /// whether a rescale follows it (the last factor on its prime).
    pub(super) cts: Vec<(LinearTransform<Evaluator>, bool)>,
    /// SlotsToCoeffs factors but the last, in application order, each with whether a
    /// rescale follows it.
    pub(super) stc: Vec<(LinearTransform<Evaluator>, bool)>,
    pub(super) stc_last: LastFactor,
    /// The exact scale of EvalMod's output, and the scale it was planned near.
    pub(super) eval_mod_scale: Scale,
    pub(super) eval_mod_target: f64,
    /// The exact scale of the last SlotsToCoeffs factor's input.
    pub(super) stc_last_input: Scale,
    /// With encapsulation: the ephemeral ring's parameters and the two keys.
    pub(super) encapsulation: Option<(Arc<RlweParameters>, EncapsulationKeys)>,
}

impl std::fmt::Debug for Bootstrapper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bootstrapper")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Bootstrapper {
    /// A bootstrapper for `ctx` with `config`, evaluating with `keys` (from
    /// [`generate_keys`](super::generate_keys); a missing key is reported here, by rotation, not at the first
    /// bootstrap).
    pub fn new(
        ctx: Arc<CkksContext>,
        config: BootstrapConfig,
        keys: impl Into<BootstrapKeys>,
    ) -> Result<Self> {
        config.check(&ctx)?;
        let BootstrapKeys {
            evaluation: keys,
            encapsulation,
        } = keys.into();
        let encapsulation = match (config.ephemeral_weight, encapsulation) {
            (None, _) => None,
            (Some(h), Some(k)) => {
                let eph = encapsulation::ephemeral_parameters(&ctx, h)?;
                encapsulation::check(&ctx, &eph, &k, h)?;
                Some((eph, k))
            }
            (Some(h), None) => {
                return Err(Error::MissingKey(format!(
                    "the configuration encapsulates ModRaise under an ephemeral secret of \
                     weight {h} and the keys have no encapsulation keys: generate them with \
                     bootstrap::generate_keys"
                )))
            }
        };
        let level_of = |max: Option<usize>| max.map_or("none".to_string(), |l| l.to_string());
        match keys.relinearization_key() {
            None => {
                return Err(Error::MissingKey(
                    "bootstrapping needs a relinearization key: use bootstrap::generate_keys"
                        .into(),
                ))
            }
            Some(k) if k.max_level() < Some(relinearization_level(&ctx, &config)) => {
                return Err(Error::LevelMismatch(format!(
                    "bootstrapping multiplies at level {} (EvalMod) and the relinearization \
                     key covers levels <= {}: generate the keys with bootstrap::generate_keys",
                    relinearization_level(&ctx, &config),
                    level_of(k.max_level())
                )))
            }
            Some(_) => {}
        }
        for (g, KeyUse { level, what }) in labelled_elements(&ctx, &config)? {
            match keys.galois_key(g) {
                None => {
                    return Err(Error::MissingKey(format!(
                        "bootstrapping needs the Galois key of element {g} ({what}): generate \
                         the keys with bootstrap::generate_keys (bootstrap::galois_elements \
                         lists them)"
                    )))
                }
                Some(k) if k.max_level() < Some(level) => {
                    return Err(Error::LevelMismatch(format!(
                        "bootstrapping uses the Galois key of element {g} ({what}) at level \
                         {level} and it covers levels <= {}: generate the keys with \
                         bootstrap::generate_keys",
                        level_of(k.max_level())
                    )))
                }
                Some(_) => {}
            }
        }
        let eval = Evaluator::with_key_set(ctx.clone(), keys);
        let repack = repacks(&ctx, config.slots);
        let (cts_f, stc_f) = factors(&ctx, &config, repack)?;
        let top = ctx.max_level();
        // CoeffsToSlots, one factor per prime: scale-preserving factors, except the last,
        // which lands on q of EvalMod's first level (a scale near the primes keeps the
        // power basis's scales there). With several factors on a prime, the stage's whole
        // budget `D = q_EvalMod Π q / S_0` (the product of its diagonals' scales) is spread
        // evenly over its factors, the last one landing exactly: its inputs are dominated
        // by the overflow `I`, `R K'` times the message, so every factor needs a scale as
        // large as possible (splitting each prime alone would leave `q^(1/k)`).
        let s0 = raised_scale(&ctx, &config);
        let cts_grouping = config.cts_grouping();
        let cts_primes = cts_grouping.len();
        let eval_mod_level = top - cts_primes;
        let layout = factor_layout(&cts_grouping);
        let shared = cts_grouping.iter().any(|&k| k > 1);
        let mut budget = ctx.constant_scale(eval_mod_level).div(&s0);
        for &(off, first, _) in &layout {
            if first {
                budget = budget.mul(&ctx.constant_scale(top - off));
            }
        }
        let even = root_scale(&budget, layout.len())?;
        let mut cts = Vec::with_capacity(cts_f.len());
        let mut spent = Scale::from_integer(1);
        let count = cts_f.len();
        for (j, ((d, p), &(off, _, last))) in cts_f.into_iter().zip(&layout).enumerate() {
            let level = top - off;
            let scale = if j + 1 == count {
                Some(budget.div(&spent))
            } else if shared {
                spent = spent.mul(&even);
                Some(even.clone())
            } else {
                spent = spent.mul(&ctx.constant_scale(level));
                None
            };
            cts.push((LinearTransform::new(&eval, &d, p, level, scale)?, last));
        }
        // EvalMod's output: near the prime of its last level, or lower where SlotsToCoeffs's
        // diagonals need the room (see `scales::eval_mod_target`).
        let stc_level = eval_mod_level - config.eval_mod.depth();
        let eval_mod_target = eval_mod_target(&ctx, &config);
        let eval_mod_scale =
            config
                .eval_mod
                .output_scale(&eval, eval_mod_level, eval_mod_target)?;
        // SlotsToCoeffs sheds the factor from EvalMod's scale / R down to the output scale
        // evenly over its factors (a factor on a prime `q` carrying `k` of them at about
        // `q^(1/k)` times the shed share); the last one lands on the output scale exactly.
        let ratio = Scale::from_bits(config.log_message_ratio);
        let mut scale = eval_mod_scale.div(&ratio);
        let count = stc_f.len();
        let shrink = (ctx.default_scale().to_f64() / scale.to_f64()).powf(1.0 / count as f64);
        let stc_grouping = config.stc_grouping();
        let stc_primes = stc_grouping.len();
        let mut stc = Vec::new();
        let mut last = None;
        for (j, ((d, p), (off, _, rescaled))) in stc_f
            .into_iter()
            .zip(factor_layout(&stc_grouping))
            .enumerate()
        {
            if j + 1 == count {
                last = Some((d, p));
            } else {
                let level = stc_level - off;
                let k = stc_grouping[stc_primes - 1 - off];
                let q = ctx.constant_scale(level);
                let share = q.to_f64().powf(1.0 / k as f64) * shrink;
                let dm = Scale::from_f64(share.round()).ok_or_else(|| {
                    Error::InvalidParameters(
                        "SlotsToCoeffs: the scale to shed does not fit the primes".into(),
                    )
                })?;
                scale = scale.mul(&dm);
                if rescaled {
                    scale = scale.div(&q);
                }
                stc.push((
                    LinearTransform::new(&eval, &d, p, level, Some(dm))?,
                    rescaled,
                ));
            }
        }
        let (diagonals, plan) = last.expect("at least one SlotsToCoeffs factor");
        let b = Bootstrapper {
            ctx,
            eval,
            repack,
            config,
            cts,
            stc,
            stc_last: LastFactor {
                diagonals,
                plan,
                encoded: Mutex::new(Vec::new()),
            },
            eval_mod_scale,
            eval_mod_target,
            stc_last_input: scale,
            encapsulation,
        };
        let default = b.ctx.default_scale().clone();
        b.last_factor(&default)?;
        // A level-0 input keeps its scale `Δ_0 = q_0 / R` through the bootstrap, so its
        // last factor too is encoded now rather than in its first bootstrap (0.2 s of
        // Set V's 2 s). Where that scale cannot be encoded, the error is left to such a
        // bootstrap, which reports it; inputs at the default scale are unaffected.
        let zero = b.level_zero_scale();
        if zero != default {
            let _ = b.last_factor(&zero);
        }
        // The scratch memory of the first bootstrap, mapped now rather than page by page
        // during it (polynomials over the whole of Q and P).
        let ring = b.ctx.ring();
        ring.pool()
            .reserve(ring.n() * (b.ctx.max_level() + 1 + ring.p_len()));
        Ok(b)
    }

    /// `Δ_0 = q_0 / R`: the scale ScaleDown brings its input to at level 0, and the one a
    /// level-0 input must already have ([`Bootstrapper::scale_down`]).
    pub fn level_zero_scale(&self) -> Scale {
        self.ctx
            .constant_scale(0)
            .div(&Scale::from_bits(self.config.log_message_ratio))
    }

    /// The scale ModRaise's output is read at, `S_0` (see [`Bootstrapper::mod_raise`]).
    pub fn mod_raise_scale(&self) -> Scale {
        raised_scale(&self.ctx, &self.config)
    }

    /// ModRaise's integer gain `c`: its output decrypts to `c t` (see
    /// [`Bootstrapper::mod_raise`]).
    pub fn mod_raise_gain(&self) -> u64 {
        raise_gain(&self.ctx, &self.config)
    }

    /// The configuration.
    pub fn config(&self) -> &BootstrapConfig {
        &self.config
    }

    /// The evaluator it runs on (its keys can serve the application too).
    pub fn evaluator(&self) -> &Evaluator {
        &self.eval
    }

    /// Memory of the encoded DFT diagonals, in bytes (every factor, and the last
    /// SlotsToCoeffs factor once per output scale it was used at).
    pub fn diagonal_bytes(&self) -> usize {
        let size = |lt: &LinearTransform<Evaluator>| -> usize {
            lt.plaintexts().map(|pt| pt.size_bytes()).sum()
        };
        let last: usize = (self.stc_last.encoded.lock().expect("poisoned").iter())
            .map(|(_, lt)| size(lt))
            .sum();
        self.cts.iter().map(|(lt, _)| size(lt)).sum::<usize>()
            + self.stc.iter().map(|(lt, _)| size(lt)).sum::<usize>()
            + last
    }

    /// An input of `slots` slots fits this bootstrapper.
    pub(super) fn check_slots(&self, slots: usize) -> Result<()> {
        if slots != self.config.slots {
            return Err(Error::ParameterMismatch(format!(
                "the ciphertext has {slots} slots and the bootstrapper was built for {}",
                self.config.slots
            )));
        }
        Ok(())
    }

    /// The level of a bootstrapped ciphertext: `L - depth`.
    pub fn output_level(&self) -> usize {
        self.ctx.max_level() - self.config.depth()
    }

    /// The last SlotsToCoeffs factor for an output at exactly `scale`.
    fn last_factor(&self, scale: &Scale) -> Result<Arc<LinearTransform<Evaluator>>> {
        self.last_factor_on(&self.eval, &self.stc_last.encoded, scale)
    }

    /// The scale SlotsToCoeffs reads EvalMod's output at: `T_r Δ_0 / q_0 = T_r / R`.
    pub(super) fn stc_input_scale(&self) -> Scale {
        self.eval_mod_scale
            .div(&Scale::from_bits(self.config.log_message_ratio))
    }

    /// ScaleDown: `ct` at level 0 and scale `Δ_0 = q_0 / R` exactly (from a level `>= 1`,
    /// by one product with the constant 1 at the scale that lands there and a rescale).
    /// A level-0 input must already be at `Δ_0`.
    pub fn scale_down(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.scale_down_on(&self.eval, ct)
    }

    /// Sparse-secret encapsulation, step 1 (identity without encapsulation): the level-0
    /// ciphertext under the main secret `s` to one under the ephemeral sparse secret `s̃`,
    /// by a key switch in the ephemeral ring `q_0 p`
    /// ([`encapsulation`](super::encapsulation)).
    pub fn encapsulate(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        let Some((eph, keys)) = &self.encapsulation else {
            return Ok(ct.clone());
        };
        self.ctx.check_ciphertext(ct)?;
        if ct.level() != 0 || ct.degree() != 1 {
            return Err(Error::LevelMismatch(format!(
                "encapsulation takes a degree-1 ciphertext at level 0 (this one: level {}, \
                 degree {}): use Bootstrapper::scale_down first",
                ct.level(),
                ct.degree()
            )));
        }
        encapsulation::to_sparse(&self.ctx, eph, keys, ct)
    }

    /// Sparse-secret encapsulation, step 3 (identity without encapsulation): ModRaise's
    /// output, under the ephemeral secret `s̃`, back under the main secret `s` by a key
    /// switch at the top level.
    pub fn decapsulate(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        let Some((_, keys)) = &self.encapsulation else {
            return Ok(ct.clone());
        };
        self.ctx.check_ciphertext(ct)?;
        if ct.degree() != 1 {
            return Err(Error::ParameterMismatch(format!(
                "decapsulation takes a degree-1 ciphertext (this one has degree {})",
                ct.degree()
            )));
        }
        encapsulation::to_dense(&self.eval, keys, ct)
    }

    /// ModRaise: the level-0 ciphertext `(c_0, c_1)` lifted to the top level, each
    /// coefficient centred in `(-q_0/2, q_0/2]`, multiplied by the gain `c`
    /// ([`Bootstrapper::mod_raise_gain`]) and reduced modulo every prime of `Q_L`.
    /// It decrypts to `c t`, `t = m + q_0 I` with `I` small (`|I| <= K` except with the
    /// failure probability). The result has `N/2` slots (the polynomial is no longer in the
    /// subring of sparse packing) and scale `S_0` (see the module documentation).
    pub fn mod_raise(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        if ct.level() != 0 || ct.degree() != 1 {
            return Err(Error::LevelMismatch(format!(
                "ModRaise takes a degree-1 ciphertext at level 0 (this one: level {}, degree \
                 {}): use Bootstrapper::scale_down first",
                ct.level(),
                ct.degree()
            )));
        }
        let ring = self.ctx.ring();
        let q0 = ring.modulus(0, 1).value();
        let ql = self.ctx.max_level() + 1;
        // c q_0 / 2 <= q_EvalMod / (2 K') < 2^62 where c > 1: the products fit an i64.
        let gain = self.mod_raise_gain() as i64;
        let mut parts = Vec::with_capacity(2);
        let mut centred = vec![0i64; ring.n()];
        for part in ct.parts() {
            let mut p = part.clone();
            p.intt(ring);
            // q_0 < 2^62: the centred residues fit an i64.
            for (o, &c) in centred.iter_mut().zip(p.limb(0)) {
                *o = gain
                    * if c > q0 / 2 {
                        c as i64 - q0 as i64
                    } else {
                        c as i64
                    };
            }
            ring.recycle(p);
            let mut out = ring.from_signed(&centred, ql, 0);
            out.ntt(ring);
            parts.push(out);
        }
        Ciphertext::from_parts(
            &self.ctx,
            parts,
            raised_scale(&self.ctx, &self.config),
            self.ctx.max_slots(),
            None,
        )
    }

    /// SubSum (sparse packing, `n < N/2`): the trace onto the subring of `n` slots,
    /// `Σ_j σ_(5^(n j))` by `log2(N / 2n)` rotations by `n 2^i`; it keeps the
    /// coefficients at multiples of `N / 2n` (times `N / 2n`, absorbed by the scale) and
    /// zeroes the others. Returns a ciphertext of `n` slots, read as `2n` (periodic) slots
    /// when the halves are repacked (`2n <= N/2`). The identity for full packing.
    pub fn sub_sum(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.sub_sum_on(&self.eval, ct)
    }

    /// The rotations of SubSum, in order.
    pub(super) fn sub_sum_rotations(&self) -> Vec<i64> {
        sub_sum_steps(&self.ctx, self.config.slots)
    }

    /// CoeffsToSlots: the inverse special FFT (without its bit reversal) by `ρ_CtS` BSGS
    /// factors (rescaled after the last factor on each prime), then the split into real and
    /// imaginary parts by conjugation, at EvalMod's first level. Full packing: two ciphertexts whose slot `k` holds `t_(rev(k)) / (q_0
    /// K')` and `t_(n + rev(k)) / (q_0 K')`. Sparse packing (`2n <= N/2`): one ciphertext of
    /// `2n` slots holding both halves, one after the other. Those slots come rotated by
    /// `-o`, `o =` [`Bootstrapper::coeffs_to_slots_rotation`] (slot `k` holds what is said
    /// above of slot `k - o`): SlotsToCoeffs takes them so, and no key for `o` is needed.
    pub fn coeffs_to_slots(&self, ct: &Ciphertext) -> Result<Vec<Ciphertext>> {
        self.coeffs_to_slots_on(&self.eval, &self.cts, ct)
    }

    /// The rotation `o` CoeffsToSlots leaves undone (its last factor's carried outer
    /// rotation, see [`BsgsPlan::carrying_outer_rotation`]): its outputs are `rot_{-o}` of
    /// the values [`Bootstrapper::coeffs_to_slots`] describes, in their slot count (`n`,
    /// or `2n` when repacked).
    pub fn coeffs_to_slots_rotation(&self) -> usize {
        self.cts
            .last()
            .map_or(0, |(lt, _)| lt.plan().outer_rotation())
    }

    /// EvalMod on one CoeffsToSlots output: slot-wise `(1/2π) sin(2π x)`, read at
    /// `Δ_0`'s ratio so that the slots hold the message's coefficients `m / Δ_0`.
    pub fn eval_mod(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.eval_mod_on(&self.eval, ct)
    }

    /// SlotsToCoeffs: recombines the real and imaginary halves (`re + i im`, or the two
    /// halves of one repacked ciphertext) and applies the special FFT (without its bit
    /// reversal) by `ρ_StC` factors (rescaled after the last factor on each prime), the
    /// last one landing exactly on `scale`. `parts` are EvalMod's outputs, in the order
    /// [`Bootstrapper::coeffs_to_slots`] returned them and rotated as it left them
    /// ([`Bootstrapper::coeffs_to_slots_rotation`]).
    pub fn slots_to_coeffs(&self, parts: &[Ciphertext], scale: &Scale) -> Result<Ciphertext> {
        let last = self.last_factor(scale)?;
        self.slots_to_coeffs_on(&self.eval, &self.stc, &last, parts, scale)
    }

    /// Iterative bootstrapping (Bae, Cheon, Cho, Kim, Kim, "META-BTS", CCS 2022): after
    /// `b = bootstrap(ct)`, the error `ct - b` (at `ct`'s level and scale) is read at
    /// `2^g` times its size (a free reinterpretation of the scale), bootstrapped, read back
    /// and added: each round adds about `g` bits of precision, up to the noise floor. One
    /// round per entry of `log_gains`, whose `g` must stay below the precision reached so
    /// far (the magnified error must keep magnitude at most 1: about one bit under the
    /// bits of the previous round, e.g. `[14]` after a 15-bit bootstrap, `[14, 28]` for
    /// three rounds). `ct` must be at level 1 or above (it is reused as the reference).
    /// The output is at [`Bootstrapper::output_level`] and `ct`'s scale exactly.
    pub fn bootstrap_iterative(&self, ct: &Ciphertext, log_gains: &[u32]) -> Result<Ciphertext> {
        let mut out = self.bootstrap(ct)?;
        if log_gains.is_empty() {
            return Ok(out);
        }
        if ct.level() == 0 || ct.level() > out.level() {
            return Err(Error::LevelMismatch(format!(
                "iterative bootstrapping takes an input between level 1 and the output level \
                 {} (this one is at level {})",
                out.level(),
                ct.level()
            )));
        }
        let scale = ct.scale().clone();
        for &g in log_gains {
            if g == 0 || g > 60 {
                return Err(Error::InvalidParameters(format!(
                    "a META-BTS gain of 2^{g}: use 1..=60 bits, below the precision reached"
                )));
            }
            let gain = Scale::from_bits(g);
            let mut err = self.eval.drop_level(&out, out.level() - ct.level())?;
            self.eval.neg_assign(&mut err)?;
            self.eval.add_assign(&mut err, ct)?;
            err.set_scale(scale.div(&gain));
            let mut fixed = self.bootstrap(&err)?;
            fixed.set_scale(scale.clone());
            self.eval.add_assign(&mut out, &fixed)?;
        }
        Ok(out)
    }

    /// Bootstraps `ct` (a ciphertext of `n` slots whose values have magnitude at most
    /// about 1): the same message at [`Bootstrapper::output_level`] and at `ct`'s scale
    /// exactly.
    pub fn bootstrap(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        self.check_slots(ct.slots())?;
        let low = self.scale_down(ct)?;
        let raised = self.mod_raise(&self.encapsulate(&low)?)?;
        let raised = self.decapsulate(&raised)?;
        let summed = self.sub_sum(&raised)?;
        let parts = self
            .coeffs_to_slots(&summed)?
            .iter()
            .map(|c| self.eval_mod(c))
            .collect::<Result<Vec<_>>>()?;
        self.slots_to_coeffs(&parts, ct.scale())
    }
}
