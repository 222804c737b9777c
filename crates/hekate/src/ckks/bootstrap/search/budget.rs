//! Baby steps bought with a key budget ([`BootstrapConfig::key_memory_cap`]): seed 003
//! §4's `n1, n2` "chosen by cost" under a cap on key memory.
//!
//! Under seed 003 Alg. 6 (the hybrid engine's linear transforms) a baby rotation of a DFT
//! factor costs an inner product with its key and a permutation over `Q_l ∪ P`, while a
//! giant step costs a whole decomposition (an inverse NTT of the input, ModUp's base
//! conversions and forward NTTs of every digit) and a half ModDown. Doubling a factor's
//! `n1` halves its giant steps for twice the baby steps, each with its rotation key, as
//! wide as the factor's level (about 140 MiB at the top of Set III's chain, 48 MiB at its
//! SlotsToCoeffs levels). [`BsgsPlan::choose`] counts key switches and breaks ties by
//! keys ([`BsgsTies`](crate::circuits::lintrans::BsgsTies)), which leaves that trade unmade.
//!
//! **The search.** From the plans of [`BootstrapConfig::bsgs_ties`], repeatedly: for every
//! factor and every power of two `n1' > n1` (up to the slots the plans act on), the plans
//! of the whole chain with that factor at `n1'` (every factor carries its outer rotation
//! into the next, so the neighbours' keys can move too: the chain is re-planned with
//! [`BsgsPlan::chain_with`]); their predicted time (each factor's
//! operations at its level, the model's `Chain::transform`, priced by [`REFERENCE_COSTS`]) and the
//! bytes of all the bootstrap's keys (each Galois key at the highest level it is used at,
//! the relinearization key, the encapsulation keys: the model's `Chain::bootstrap_key_bytes`, the
//! sizes [`generate_keys`](crate::ckks::bootstrap::generate_keys) produces on the hybrid
//! engine). Among the candidates that are faster and within the cap, the one with the
//! most time saved per added byte is taken; the search stops when none is left. Each step
//! saves predicted time, so it ends.
//!
//! **Two orders** (a knapsack: choosing moves under a byte cap). The ratio order can spend
//! the cap on cheap moves and leave no room for the one that saves most: on Set I at
//! 0.495x Lattigo's keys it buys small factors' baby steps and then no 31-diagonal factor
//! fits its four more keys of ~140 MiB. So the search also runs from the plans after the
//! single move that saves the most predicted time (continuing in the ratio order), and
//! keeps that plan where it is predicted at least 1% faster
//! (`SECOND_ORDER_MARGIN`). Measured (BENCHMARKS.md, 2026-12-07): Set I's
//! CoeffsToSlots 10-12% faster at 3,633 MiB of keys against 3,101 (predicted 3.0%).
//! Without the margin `dense-encapsulated` and `lattigo-dense0` would move to 28 keys /
//! 4,784 MiB (predicted 0.16% faster; measured CoeffsToSlots 0-15% faster, SlotsToCoeffs
//! 2-25% slower, totals both ways); Sets II-V get the same plans in both orders.
//!
//! **Determinism.** The plans, hence the Galois elements and the key inventory, depend on
//! the configuration and the context's chain alone: the unit costs are fixed constants
//! (measured once, see [`REFERENCE_COSTS`]), never this machine's, so that
//! [`galois_elements`](crate::ckks::bootstrap::galois_elements) gives the same list in the
//! process that generates the keys and in the one that bootstraps.
//!
//! Other engines (KLSS, linear, a mixed engine with a KLSS level) keep the plans of
//! `bsgs_ties`: their linear transforms are single-hoisted, where a baby step costs a
//! ModDown pair as well and the model above does not hold.

use super::model::{dft_sets, scale_costs, Chain};
use crate::circuits::lintrans::BsgsPlan;
use crate::ckks::bootstrap::bootstrapper::{elements_of_plans, plans_with, relinearization_level};
use crate::ckks::bootstrap::config::{factor_layout, BootstrapConfig};
use crate::ckks::CkksContext;
use crate::math::rns::RnsBasis;
use crate::math::Modulus;
use crate::rlwe::keyswitch::cost::UnitCosts;
use crate::Result;

/// The unit costs the search prices operations with: `hekate`'s kernels at `N = 2^16` on
/// an AMD EPYC Zen 4 with AVX-512 IFMA (`UnitCosts::calibrate(1 << 16)`, best of two runs,
/// rounded), scaled to other degrees by [`scale_costs`]. Only their ratios matter here
/// (a wide NTT is about five inner-product terms and ten conversion pairs).
pub const REFERENCE_COSTS: UnitCosts = UnitCosts {
    n: 1 << 16,
    ntt_narrow: 125e-6,
    ntt_wide: 248e-6,
    hadamard: 45e-6,
    hadamard_wide: 50e-6,
    conversion: 9e-6,
    conversion_wide: 25e-6,
};

/// How much faster (a fraction of the predicted seconds) the plans of the second order
/// must be predicted to replace the ratio order's (see the [module documentation](self)):
/// the model's predictions of a whole DFT chain are good to a few percent, and a smaller
/// predicted gain did not show in measurements.
const SECOND_ORDER_MARGIN: f64 = 0.01;

/// A candidate's predicted seconds of the DFT factors, its key bytes and each factor's
/// `n1`.
type Priced = (f64, usize, Vec<usize>);

/// The baby-step modulus of every DFT factor (CoeffsToSlots then SlotsToCoeffs, in
/// application order) that the key budget of `config` changes, `None` where the plan of
/// [`BootstrapConfig::bsgs_ties`] stays (see the [module documentation](self)). Empty
/// without a cap, or off the hybrid engine.
///
/// # Errors
/// What planning the factors returns for an invalid configuration.
pub(in crate::ckks::bootstrap) fn baby_steps(
    ctx: &CkksContext,
    config: &BootstrapConfig,
) -> Result<Vec<Option<usize>>> {
    Ok(searched(ctx, config, true)?
        .map(|(n1s, _)| n1s)
        .unwrap_or_default())
}

/// [`baby_steps`] with the DFTs' predicted seconds (`None` where it is empty), in both
/// orders of the [module documentation](self) or (`both_orders` false) the ratio order
/// alone.
fn searched(
    ctx: &CkksContext,
    config: &BootstrapConfig,
    both_orders: bool,
) -> Result<Option<(Vec<Option<usize>>, f64)>> {
    let Some(cap) = config.key_memory_cap else {
        return Ok(None);
    };
    let ring = ctx.ring();
    let engine = ctx.keyswitcher();
    if ring.p_len() == 0 || !(1..=ctx.max_level() + 1).all(|l| engine.hybrid_at(l)) {
        return Ok(None);
    }
    let bits = |b: &RnsBasis| -> Vec<u32> { b.moduli().iter().map(Modulus::bits).collect() };
    let chain = Chain {
        q: bits(ring.q()),
        p: bits(ring.p()),
        digits: ctx.digits().clone(),
    };
    let n = ctx.n();
    let (cts_sets, stc_sets, width) =
        dft_sets(n, config.slots, config.cts_levels, config.stc_levels);
    let diagonals: Vec<usize> = cts_sets.iter().chain(&stc_sets).map(|s| s.len()).collect();
    let top = ctx.max_level();
    let stc_top = top - config.cts_primes() - config.eval_mod.depth();
    let levels: Vec<usize> = factor_layout(&config.cts_grouping())
        .into_iter()
        .map(|(off, _, _)| top - off)
        .chain(
            factor_layout(&config.stc_grouping())
                .into_iter()
                .map(|(off, _, _)| stc_top - off),
        )
        .collect();
    let prices = FactorPrices {
        chain: &chain,
        levels,
        diagonals,
        width,
        relin_level: relinearization_level(ctx, config),
        encapsulation: config.ephemeral_weight.is_some(),
        ring_degree: n,
    };
    let plan = |n1s: &[Option<usize>]| {
        let (cts, stc) = plans_with(ctx, config, n1s)?;
        let levels = elements_of_plans(ctx, config, &cts, &stc)?
            .into_values()
            .map(|u| u.level)
            .collect();
        Ok(([cts, stc].concat(), levels))
    };
    prices.search_orders(cap, &plan, both_orders).map(Some)
}

/// What the search prices the DFT factors of one chain with: each factor's level and
/// diagonal count (application order), the slots the plans act on, and the keys besides
/// the Galois keys.
pub(super) struct FactorPrices<'a> {
    pub(super) chain: &'a Chain,
    pub(super) levels: Vec<usize>,
    pub(super) diagonals: Vec<usize>,
    pub(super) width: usize,
    pub(super) relin_level: usize,
    pub(super) encapsulation: bool,
    pub(super) ring_degree: usize,
}

impl FactorPrices<'_> {
    /// The search of the [module documentation](self) within `cap` bytes, `plan` giving
    /// the factors' plans for some fixed baby steps and the levels of the Galois keys they
    /// (and the rest of the bootstrap) need.
    pub(super) fn search(
        &self,
        cap: usize,
        plan: impl Fn(&[Option<usize>]) -> Result<(Vec<BsgsPlan>, Vec<usize>)>,
    ) -> Result<Vec<Option<usize>>> {
        Ok(self.search_orders(cap, &plan, true)?.0)
    }

    /// [`FactorPrices::search`] with its predicted seconds, in the ratio order alone when
    /// `both_orders` is false (the tests compare the two).
    fn search_orders(
        &self,
        cap: usize,
        plan: &impl Fn(&[Option<usize>]) -> Result<(Vec<BsgsPlan>, Vec<usize>)>,
        both_orders: bool,
    ) -> Result<(Vec<Option<usize>>, f64)> {
        let costs = scale_costs(&REFERENCE_COSTS, self.ring_degree);
        let evaluate = |n1s: &[Option<usize>]| -> Result<Priced> {
            let (plans, galois) = plan(n1s)?;
            let seconds = plans
                .iter()
                .zip(&self.levels)
                .zip(&self.diagonals)
                .map(|((p, &l), &d)| self.chain.transform(p, l, d).seconds(&costs))
                .sum();
            let bytes = self.chain.bootstrap_key_bytes(
                galois,
                self.relin_level,
                self.encapsulation,
                self.ring_degree,
            );
            Ok((seconds, bytes, plans.iter().map(BsgsPlan::n1).collect()))
        };
        // The moves from `chosen` (priced `at`): every factor at every larger power of two,
        // faster and within the cap.
        let moves =
            |chosen: &[Option<usize>], at: &Priced| -> Result<Vec<(Vec<Option<usize>>, Priced)>> {
                let mut out = Vec::new();
                for (f, &n1) in at.2.iter().enumerate() {
                    let mut m = 2 * n1;
                    while m <= self.width {
                        let mut cand = chosen.to_vec();
                        cand[f] = Some(m);
                        let e = evaluate(&cand)?;
                        if e.0 < at.0 && e.1 <= cap {
                            out.push((cand, e));
                        }
                        m *= 2;
                    }
                }
                Ok(out)
            };
        // Greedy by time saved per added byte from `chosen` until no move is left.
        let greedy = |mut chosen: Vec<Option<usize>>,
                      mut at: Priced|
         -> Result<(Vec<Option<usize>>, Priced)> {
            loop {
                let per_byte = |e: &Priced| (at.0 - e.0) / e.1.saturating_sub(at.1).max(1) as f64;
                // The first of the largest savings per byte (`min_by` keeps the first).
                let best = moves(&chosen, &at)?
                    .into_iter()
                    .min_by(|(_, a), (_, b)| per_byte(b).total_cmp(&per_byte(a)));
                match best {
                    Some((c, e)) => (chosen, at) = (c, e),
                    None => return Ok((chosen, at)),
                }
            }
        };
        let base = vec![None; self.diagonals.len()];
        let at = evaluate(&base)?;
        let by_ratio = greedy(base.clone(), at.clone())?;
        if !both_orders {
            return Ok((by_ratio.0, by_ratio.1 .0));
        }
        // The ratio order can spend the cap on cheap moves and leave no room for one that
        // saves more (a knapsack): also try the single move that saves the most first, and
        // keep it where it is predicted at least `SECOND_ORDER_MARGIN` faster.
        let biggest = moves(&base, &at)?
            .into_iter()
            .min_by(|(_, a), (_, b)| a.0.total_cmp(&b.0));
        let mut pick = by_ratio;
        if let Some((c, e)) = biggest {
            let other = greedy(c, e)?;
            if other.1 .0 < pick.1 .0 * (1.0 - SECOND_ORDER_MARGIN) {
                pick = other;
            }
        }
        Ok((pick.0, pick.1 .0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ckks::bootstrap::bootstrapper::{factor_plans, factors, repacks};
    use crate::ckks::bootstrap::presets::{QUICK_DENSE, QUICK_SPARSE, SET_I};
    use crate::ckks::bootstrap::{generate_keys_with, Bootstrapper};
    use crate::rlwe::keyswitch::{KeySwitchMethod, KlssConfig};
    use num_complex::Complex64;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    /// The keys' bytes, the plans' decompositions and the DFTs' predicted seconds of
    /// `config` on `ctx`, as the search prices them.
    fn priced(ctx: &CkksContext, config: &BootstrapConfig) -> (usize, usize) {
        let (cts, stc) = factor_plans(ctx, config).unwrap();
        let decompositions = cts.iter().chain(&stc).map(BsgsPlan::decompositions).sum();
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let sk = ctx.generate_secret_key_with(&mut rng);
        let keys = generate_keys_with(ctx, config, &sk, &mut rng, |_, _| {}).unwrap();
        (keys.size_bytes(), decompositions)
    }

    #[test]
    fn a_cap_buys_fewer_giant_steps_within_it() {
        for preset in [QUICK_DENSE, QUICK_SPARSE] {
            let (ctx, mut config) = preset.build().unwrap();
            config.key_memory_cap = None;
            assert!(baby_steps(&ctx, &config).unwrap().is_empty());
            let (base_bytes, base_decs) = priced(&ctx, &config);
            // A cap below what the plans already take changes nothing.
            config.key_memory_cap = Some(base_bytes / 2);
            assert!(baby_steps(&ctx, &config)
                .unwrap()
                .iter()
                .all(Option::is_none));
            let mut last = base_decs;
            for extra in [1.25, 1.5, 2.0, 4.0] {
                let cap = (base_bytes as f64 * extra) as usize;
                config.key_memory_cap = Some(cap);
                let chosen = baby_steps(&ctx, &config).unwrap();
                let (bytes, decs) = priced(&ctx, &config);
                // The generated keys (the real inventory, not the model's) fit the cap, and
                // a larger cap never costs more decompositions.
                assert!(bytes <= cap, "{}: {bytes} > {cap}", preset.name);
                assert!(decs <= last, "{}: {decs} > {last} at x{extra}", preset.name);
                last = decs;
                // The bootstrapper's factors follow the same plans (and so the same keys).
                let (f_cts, f_stc) = factors(&ctx, &config, repacks(&ctx, config.slots)).unwrap();
                let from_factors: Vec<BsgsPlan> =
                    f_cts.into_iter().chain(f_stc).map(|(_, p)| p).collect();
                let (cts, stc) = factor_plans(&ctx, &config).unwrap();
                assert_eq!(from_factors, [cts, stc].concat());
                if extra >= 2.0 {
                    assert!(
                        chosen.iter().any(Option::is_some),
                        "{}: x{extra}",
                        preset.name
                    );
                }
            }
            assert!(last < base_decs, "{}: {last} >= {base_decs}", preset.name);
        }
    }

    #[test]
    fn the_second_order_never_predicts_slower_and_buys_set_i_its_wide_factor() {
        for preset in [QUICK_DENSE, QUICK_SPARSE] {
            let (ctx, mut config) = preset.build().unwrap();
            config.key_memory_cap = None;
            let (base_bytes, _) = priced(&ctx, &config);
            for extra in [1.1, 1.25, 1.5, 2.0, 3.0, 4.0] {
                config.key_memory_cap = Some((base_bytes as f64 * extra) as usize);
                let (_, both) = searched(&ctx, &config, true).unwrap().unwrap();
                let (_, ratio) = searched(&ctx, &config, false).unwrap().unwrap();
                assert!(both <= ratio, "{} x{extra}: {both} > {ratio}", preset.name);
            }
        }
        // Set I at 0.495x Lattigo's keys (its preset's cap) with seed 003's uniform digits
        // (five of five primes): the ratio order buys the small factors' baby steps first
        // and then cannot afford a 31-diagonal factor's. (With the preset's digits by bits
        // the keys are smaller and both orders reach the same plan.)
        let config = SET_I.config().unwrap();
        let ctx = crate::ckks::CkksParameters::new(SET_I.log_n)
            .dnum(5)
            .log_q(&SET_I.chain().unwrap())
            .log_p(SET_I.log_p)
            .log_scale(SET_I.log_scale)
            .secret(SET_I.secret)
            .security(SET_I.security_level())
            .build()
            .unwrap();
        let (n1s, both) = searched(&ctx, &config, true).unwrap().unwrap();
        let (ratio_n1s, ratio) = searched(&ctx, &config, false).unwrap().unwrap();
        assert!(both < ratio * 0.99, "{both} vs {ratio}");
        assert_ne!(n1s, ratio_n1s);
    }

    #[test]
    fn the_search_is_deterministic_and_keeps_other_engines_plans() {
        let (ctx, mut config) = QUICK_DENSE.build().unwrap();
        config.key_memory_cap = Some(usize::MAX);
        let a = baby_steps(&ctx, &config).unwrap();
        assert_eq!(a, baby_steps(&ctx, &config).unwrap());
        assert!(a.iter().any(Option::is_some));
        let klss = QUICK_DENSE
            .context_with(&config, KeySwitchMethod::Klss(KlssConfig::klss(2)))
            .unwrap();
        assert!(baby_steps(&klss, &config).unwrap().is_empty());
    }

    #[test]
    fn a_capped_bootstrap_keeps_its_precision() {
        let (ctx, mut config) = QUICK_DENSE.build().unwrap();
        let mut run = |cap: Option<usize>| {
            config.key_memory_cap = cap;
            let mut rng = ChaCha20Rng::seed_from_u64(11);
            let sk = ctx.generate_secret_key_with(&mut rng);
            let keys = generate_keys_with(&ctx, &config, &sk, &mut rng, |_, _| {}).unwrap();
            let boot = Bootstrapper::new(ctx.clone(), config.clone(), keys).unwrap();
            let z: Vec<Complex64> = (0..config.slots)
                .map(|_| Complex64::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
                .collect();
            let pt = ctx
                .encode_at(&z, config.slots, 1, ctx.default_scale())
                .unwrap();
            let ct = ctx.encrypt_symmetric_with(&pt, &sk, &mut rng).unwrap();
            let out = boot.bootstrap(&ct).unwrap();
            assert_eq!(out.scale(), ct.scale());
            let got = ctx.decrypt_decode(&out, &sk).unwrap();
            let mean =
                got.iter().zip(&z).map(|(g, w)| (g - w).norm()).sum::<f64>() / z.len() as f64;
            -mean.log2()
        };
        let plain = run(None);
        let capped = run(Some(usize::MAX));
        assert!(
            plain >= 15.0 && (plain - capped).abs() < 0.5,
            "{plain} vs {capped}"
        );
    }
}
