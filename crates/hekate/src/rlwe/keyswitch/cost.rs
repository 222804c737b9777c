//! The cost model behind [`KeySwitchMethod::Auto`] ([`CostModel::plan`]: an engine per
//! level): operation counts per engine (seed 000
//! Table 1, seed 001 Tables II / IV, counted for hekate's implementation) weighted by unit
//! costs measured once per process and ring degree ([`UnitCosts::for_process`]).
//!
//! Counts at `l + 1` chain limbs, `k` special primes, `d_l` digits of sizes `s_j`,
//! for one key switch (unit = one operation on `N` words):
//!
//! | engine | NTTs | Hadamard (inner product) | base-conversion products |
//! | --- | --- | --- | --- |
//! | hybrid | `(l+1) + Σ_j (l+1+k-s_j) + 2k + 2(l+1)` | `2 d_l (l+1+k)` | `Σ_j s_j (l+1+k-s_j) + 2k(l+1)` |
//! | KLSS | `(l+1) + d_l r' + 2 d̃_l r' + 2(l+1)` | `2 d_l d̃_l r'` | `Σ_j s_j r'` (0 for copy lifts) `+ 2 r' (k+l+1) + 2k(l+1)` |
//!
//! An NTT costs [`UnitCosts::ntt_narrow`] for primes below `2^50` (the IFMA lanes, and
//! AVX2's exact `f64` arithmetic) and [`UnitCosts::ntt_wide`] above; so do inner-product
//! terms (by the prime of their output limb) and conversion pairs (wide when the input
//! basis or the output prime has a prime of `2^50` or more: the SIMD conversions take
//! their narrow arithmetic only when every prime involved is narrow). On AVX2 the wide
//! inner products and conversions cost about twice the narrow ones, so KLSS with 61-bit
//! `B'` primes is dearer there than its narrow NTT-free counts suggest. The inner product
//! streams the key from memory, so its unit cost is measured on buffers far larger than
//! the caches.

use super::klss::key_digit_primes;
use super::{KeySwitchMethod, KlssConfig, LevelSet};
use crate::math::kernels;
use crate::math::rns::{BaseConverter, RnsBasis};
use crate::math::{Modulus, NttPlan, PrimeGenerator};
use crate::ring::RingContext;
use crate::{Error, Result};
use std::hint::black_box;
use std::time::Instant;

/// The candidates `Auto` chooses among for `ℓ̃` primes in `PQ`: hybrid, and KLSS with
/// `r̃` = 1..=min(8, ℓ̃) (worst-case bound), each with 61-bit `B'` primes and with
/// [`NARROW_B_PRIME_BITS`]-bit ones (more of them, but NTTs at the cheaper narrow cost
/// where the CPU has IFMA).
pub fn candidates(l_tilde: usize) -> Vec<KeySwitchMethod> {
    let narrow = |rt| KlssConfig {
        b_prime_bits: NARROW_B_PRIME_BITS,
        ..KlssConfig::klss(rt)
    };
    let r_tildes = 1..=8.min(l_tilde);
    std::iter::once(KeySwitchMethod::Hybrid)
        .chain(
            r_tildes
                .clone()
                .map(|rt| KeySwitchMethod::Klss(KlssConfig::klss(rt))),
        )
        .chain(r_tildes.map(|rt| KeySwitchMethod::Klss(narrow(rt))))
        .collect()
}

/// The size of the narrow `B'` primes `Auto` also weighs: the largest below the IFMA NTT's
/// `2^50` bound.
pub const NARROW_B_PRIME_BITS: u32 = 50;

/// Measured unit costs, in seconds per operation on `N` words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitCosts {
    /// Ring degree the costs were measured at.
    pub n: usize,
    /// One forward NTT, prime below `2^50`.
    pub ntt_narrow: f64,
    /// One forward NTT, prime of 50 bits or more.
    pub ntt_wide: f64,
    /// One term of an inner product streamed from memory (`N` multiply-adds), prime
    /// below `2^50`.
    pub hadamard: f64,
    /// One inner-product term, prime of 50 bits or more.
    pub hadamard_wide: f64,
    /// One (input limb, output limb) pair of a fast base conversion, every prime below
    /// `2^50`.
    pub conversion: f64,
    /// One conversion pair with a prime of 50 bits or more among the inputs or the output.
    pub conversion_wide: f64,
}

impl UnitCosts {
    /// The unit costs at degree `n` for this process: measured once per degree
    /// ([`UnitCosts::calibrate`]) and reused, so that every context with the same
    /// parameters built by one process picks the same engine (and only the first pays the
    /// 0.5 s and 64 MiB of the measurement). Callers that want a choice independent of the
    /// machine's load pass their own (saved) costs to the engine instead.
    pub fn for_process(n: usize) -> UnitCosts {
        use std::collections::HashMap;
        use std::sync::{Mutex, OnceLock};
        static CACHE: OnceLock<Mutex<HashMap<usize, UnitCosts>>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
        *map.entry(n).or_insert_with(|| UnitCosts::calibrate(n))
    }

    /// Times each unit operation at degree `n`, on narrow and wide primes (about 0.5 s at
    /// `2^16`): the best of five passes for the transforms and conversions and of two
    /// for the inner products (a single pass let the host's noise flip the cost model's
    /// pick between candidates within 10% of each other).
    pub fn calibrate(n: usize) -> UnitCosts {
        let mut g = PrimeGenerator::new(n).expect("power-of-two degree");
        let narrow = g.next_prime(49).expect("prime");
        let wide = g.next_prime(61).expect("prime");
        // NTTs as a key switch runs them: one after another on distinct limbs (about 16 MiB
        // of them at N = 2^16), not again and again on one limb that stays in the L1/L2
        // cache, which measured about 20% low against the NTTs inside a key switch.
        let limbs = ((16usize << 20) / (8 * n)).clamp(4, 64);
        let time_ntt = |p: u64| {
            let plan = NttPlan::new(n, p).expect("NTT-friendly prime");
            let mut a: Vec<Vec<u64>> = (0..limbs)
                .map(|l| (0..n as u64).map(|i| (i * 7 + l as u64) % p).collect())
                .collect();
            best_of(5, || {
                for x in a.iter_mut() {
                    plan.forward(black_box(x));
                }
            }) / limbs as f64
        };
        let ntt_narrow = time_ntt(narrow);
        let ntt_wide = time_ntt(wide);
        // Inner products: 8 terms from a 64 MiB "key" walked once, as a key switch does.
        let time_hadamard = |p: u64| {
            let m = Modulus::new(p);
            let terms = 8;
            let key_words = (64usize << 20) / 8;
            let windows = (key_words / (terms * n)).max(1);
            let key: Vec<u64> = (0..windows * terms * n).map(|i| i as u64 % p).collect();
            let digits: Vec<u64> = (0..terms * n).map(|i| i as u64 * 3 % p).collect();
            let mut out = vec![0u64; n];
            let a: Vec<&[u64]> = digits.chunks(n).collect();
            best_of(2, || {
                for w in 0..windows {
                    let b: Vec<&[u64]> =
                        key[w * terms * n..(w + 1) * terms * n].chunks(n).collect();
                    kernels::inner_product(black_box(&mut out), &a, &b, &m);
                }
            }) / (windows * terms) as f64
        };
        let hadamard = time_hadamard(narrow);
        let hadamard_wide = time_hadamard(wide);
        // Conversion: 4 primes to 8.
        let mut time_conversion = |bits: u32| {
            let from: Vec<u64> = (0..4).map(|_| g.next_prime(bits).expect("prime")).collect();
            let to: Vec<u64> = (0..8).map(|_| g.next_prime(bits).expect("prime")).collect();
            let conv = BaseConverter::new(
                &RnsBasis::new(&from).expect("distinct"),
                &RnsBasis::new(&to).expect("distinct"),
            );
            let input: Vec<u64> = (0..4 * n).map(|i| i as u64 % from[0]).collect();
            let mut output = vec![0u64; 8 * n];
            let mut scratch = vec![0u64; 5 * n];
            best_of(5, || {
                conv.convert(black_box(&input), &mut output, n, &mut scratch)
            }) / 32.0
        };
        let conversion = time_conversion(49);
        let conversion_wide = time_conversion(61);
        UnitCosts {
            n,
            ntt_narrow,
            ntt_wide,
            hadamard,
            hadamard_wide,
            conversion,
            conversion_wide,
        }
    }
}

fn best_of(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

/// Adds `times` inner-product terms per output prime, by width (`true`: `2^50` or more).
pub(crate) fn hadamards(wide: impl IntoIterator<Item = bool>, times: f64, c: &mut OpCounts) {
    for w in wide {
        if w {
            c.hadamard_wide += times;
        } else {
            c.hadamard += times;
        }
    }
}

/// Adds `times` conversions from `from_len` primes (any of them wide: `from_wide`) to each
/// output prime, by width: `from_len` pairs per output, wide where the input basis or that
/// output has a prime of `2^50` or more.
pub(crate) fn conversions(
    from_len: usize,
    from_wide: bool,
    to_wide: impl IntoIterator<Item = bool>,
    times: f64,
    c: &mut OpCounts,
) {
    for w in to_wide {
        if from_wide || w {
            c.conversion_wide += times * from_len as f64;
        } else {
            c.conversion += times * from_len as f64;
        }
    }
}

/// Operation counts of one key switch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OpCounts {
    /// NTTs over primes below `2^50`.
    pub ntt_narrow: f64,
    /// NTTs over wider primes.
    pub ntt_wide: f64,
    /// Inner-product terms (unit Hadamard products) over primes below `2^50`.
    pub hadamard: f64,
    /// Inner-product terms over wider primes.
    pub hadamard_wide: f64,
    /// Base-conversion (input, output) limb pairs, every prime below `2^50`.
    pub conversion: f64,
    /// Base-conversion pairs with a wider prime among the inputs or the output.
    pub conversion_wide: f64,
}

impl OpCounts {
    /// Predicted seconds.
    pub fn seconds(&self, c: &UnitCosts) -> f64 {
        self.ntt_narrow * c.ntt_narrow
            + self.ntt_wide * c.ntt_wide
            + self.hadamard * c.hadamard
            + self.hadamard_wide * c.hadamard_wide
            + self.conversion * c.conversion
            + self.conversion_wide * c.conversion_wide
    }

    /// All inner-product terms.
    pub fn hadamards(&self) -> f64 {
        self.hadamard + self.hadamard_wide
    }

    /// All conversion pairs.
    pub fn conversions(&self) -> f64 {
        self.conversion + self.conversion_wide
    }

    /// All NTTs.
    pub fn ntts(&self) -> f64 {
        self.ntt_narrow + self.ntt_wide
    }
}

/// A method with its predicted time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// The method (never `Auto`).
    pub method: KeySwitchMethod,
    /// Its operation counts.
    pub counts: OpCounts,
    /// Predicted seconds per key switch.
    pub seconds: f64,
}

/// Predicts key-switch times for one ring and `dnum`.
#[derive(Debug)]
pub struct CostModel<'a> {
    ctx: &'a RingContext,
    dnum: usize,
    costs: &'a UnitCosts,
}

impl<'a> CostModel<'a> {
    /// The model for `ctx` with `dnum` digits and measured `costs`.
    pub fn new(ctx: &'a RingContext, dnum: usize, costs: &'a UnitCosts) -> Self {
        CostModel { ctx, dnum, costs }
    }

    fn wide(m: &Modulus) -> bool {
        m.value() >= 1 << 50
    }

    /// Counts for `method` at `q_limbs` chain limbs (`Auto` is refused).
    pub fn counts(&self, method: &KeySwitchMethod, q_limbs: usize) -> Result<OpCounts> {
        let ctx = self.ctx;
        let l1 = ctx.q_len();
        let ql = q_limbs.clamp(1, l1);
        let alpha = l1.div_ceil(self.dnum);
        let q = &ctx.q().moduli()[..ql];
        let p = ctx.p().moduli();
        let sizes: Vec<usize> = (0..ql.div_ceil(alpha))
            .map(|j| ((j + 1) * alpha).min(ql) - j * alpha)
            .collect();
        let count = |ms: &[Modulus], times: f64, c: &mut OpCounts| {
            for m in ms {
                if Self::wide(m) {
                    c.ntt_wide += times;
                } else {
                    c.ntt_narrow += times;
                }
            }
        };
        let digits_wide: Vec<bool> = sizes
            .iter()
            .enumerate()
            .map(|(j, &s)| q[j * alpha..j * alpha + s].iter().any(Self::wide))
            .collect();
        let mut c = OpCounts::default();
        count(q, 3.0, &mut c); // input INTT, output NTTs of both halves
                               // Both engines end in the same ModDown of both halves: P into Q_l.
        let p_wide = p.iter().any(Self::wide);
        conversions(p.len(), p_wide, q.iter().map(Self::wide), 2.0, &mut c);
        let dl = sizes.len() as f64;
        match method {
            KeySwitchMethod::Hybrid => {
                for (j, &s) in sizes.iter().enumerate() {
                    // Forward NTTs of every limb outside the digit.
                    let outside: Vec<Modulus> = q[..j * alpha]
                        .iter()
                        .chain(&q[j * alpha + s..])
                        .chain(p)
                        .copied()
                        .collect();
                    count(&outside, 1.0, &mut c);
                    let outside_wide = outside.iter().map(Self::wide);
                    conversions(s, digits_wide[j], outside_wide, 1.0, &mut c);
                }
                count(p, 2.0, &mut c);
                hadamards(q.iter().chain(p).map(Self::wide), 2.0 * dl, &mut c);
            }
            KeySwitchMethod::Klss(cfg) => {
                self.klss_counts(cfg, ql, &sizes, &digits_wide, &mut c)?
            }
            KeySwitchMethod::Linear(bound) => {
                let cfg = KlssConfig::linear().with_bound(*bound);
                self.klss_counts(&cfg, ql, &sizes, &digits_wide, &mut c)?
            }
            KeySwitchMethod::Mixed { klss, levels } => {
                let m = if levels.contains(ql) {
                    KeySwitchMethod::Klss(*klss)
                } else {
                    KeySwitchMethod::Hybrid
                };
                return self.counts(&m, ql);
            }
            KeySwitchMethod::Auto => {
                return Err(Error::InvalidParameters(
                    "the cost model counts concrete methods, not Auto".into(),
                ))
            }
        }
        Ok(c)
    }

    fn klss_counts(
        &self,
        cfg: &KlssConfig,
        ql: usize,
        sizes: &[usize],
        digits_wide: &[bool],
        c: &mut OpCounts,
    ) -> Result<()> {
        let ctx = self.ctx;
        let k = ctx.p_len();
        // r'_i per key digit (KlssKeySwitcher::r_primes): B' primes sit just below
        // 2^bits, so a digit whose bound is `need` bits takes floor(need / bits) + 1.
        let r_primes: Vec<usize> = match cfg.r_prime {
            Some(r) => vec![r; (ctx.q_len() + k).div_ceil(cfg.r_tilde)],
            None => super::klss::log_bounds(ctx, self.dnum, cfg)
                .iter()
                .map(|need| (need / (cfg.b_prime_bits as f64 - 0.01)).floor() as usize + 1)
                .collect(),
        };
        let rp = r_primes.iter().copied().max().unwrap_or(1);
        let used = k + ql;
        let dtl = used.div_ceil(cfg.r_tilde);
        // Σ r'_i over the key digits in use.
        let sum_rp: f64 = r_primes[..dtl].iter().map(|&r| r as f64).sum();
        let dl = sizes.len() as f64;
        let rpf = rp as f64;
        // A ν-bit prime is below 2^ν: the IFMA lanes take ν <= 50.
        let b_wide = cfg.b_prime_bits > 50;
        let b_ntts = dl * rpf + 2.0 * sum_rp;
        if b_wide {
            c.ntt_wide += b_ntts;
        } else {
            c.ntt_narrow += b_ntts;
        }
        hadamards([b_wide], 2.0 * dl * sum_rp, c);
        let q = &ctx.q().moduli()[..ql];
        let p = ctx.p().moduli();
        let copy_lift = sizes.iter().all(|&s| s == 1);
        if !copy_lift {
            // Each digit's primes into the rp B' primes.
            for (&s, &wide) in sizes.iter().zip(digits_wide) {
                conversions(s, wide, std::iter::repeat_n(b_wide, rp), 1.0, c);
            }
        }
        // Recombination, both halves: the r'_i B' primes of key digit i into its primes
        // of P ∪ Q (in that order).
        let pq: Vec<Modulus> = p.iter().chain(q).copied().collect();
        for (i, &r) in r_primes[..dtl].iter().enumerate() {
            let outputs = pq[key_digit_primes(i, cfg.r_tilde, used)].iter();
            conversions(r, b_wide, outputs.map(Self::wide), 2.0, c);
        }
        Ok(())
    }

    /// The candidates `Auto` chooses among here: [`candidates`] for this ring's `PQ`.
    pub fn candidates(&self) -> Vec<KeySwitchMethod> {
        candidates(self.ctx.q_len() + self.ctx.p_len())
    }

    /// The prediction for `method` at `q_limbs` chain limbs.
    pub fn predict(&self, method: &KeySwitchMethod, q_limbs: usize) -> Result<Prediction> {
        let counts = self.counts(method, q_limbs)?;
        Ok(Prediction {
            method: *method,
            counts,
            seconds: counts.seconds(self.costs),
        })
    }

    /// The candidate predicted fastest at `q_limbs` chain limbs.
    pub fn best(&self, q_limbs: usize) -> Result<Prediction> {
        let mut best: Option<Prediction> = None;
        for m in self.candidates() {
            let p = self.predict(&m, q_limbs)?;
            if best.is_none_or(|b| p.seconds < b.seconds) {
                best = Some(p);
            }
        }
        best.ok_or_else(|| Error::InvalidParameters("no key-switching candidate".into()))
    }

    /// What [`KeySwitchMethod::Auto`] resolves to: per level, the faster of hybrid and one
    /// KLSS configuration. The KLSS configuration is the candidate that is fastest at the
    /// most levels (ties go to the one fastest at the higher level); one configuration
    /// only, because a mixed engine keeps each key in hybrid and in that KLSS form. Gives
    /// `Hybrid` or `Klss` when one engine wins at every level, `Mixed` otherwise.
    pub fn plan(&self) -> Result<KeySwitchMethod> {
        let top = self.ctx.q_len();
        // (configuration, levels won, highest level won)
        let mut wins: Vec<(KlssConfig, usize, usize)> = Vec::new();
        for ql in 1..=top {
            if let KeySwitchMethod::Klss(c) = self.best(ql)?.method {
                match wins.iter_mut().find(|w| w.0 == c) {
                    Some(w) => {
                        w.1 += 1;
                        w.2 = ql;
                    }
                    None => wins.push((c, 1, ql)),
                }
            }
        }
        let Some(&(klss, ..)) = wins.iter().max_by_key(|w| (w.1, w.2)) else {
            return Ok(KeySwitchMethod::Hybrid);
        };
        let mut chosen = Vec::new();
        for ql in 1..=top {
            let h = self.predict(&KeySwitchMethod::Hybrid, ql)?.seconds;
            let k = self.predict(&KeySwitchMethod::Klss(klss), ql)?.seconds;
            if k < h {
                chosen.push(ql);
            }
        }
        Ok(if chosen.len() == top {
            KeySwitchMethod::Klss(klss)
        } else {
            KeySwitchMethod::Mixed {
                klss,
                levels: LevelSet::from_limbs(chosen)?,
            }
        })
    }
}
