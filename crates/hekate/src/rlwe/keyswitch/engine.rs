//! One engine type for the schemes: the hybrid, the KLSS / linear, or a per-level mix of the
//! two, chosen per parameter set ([`KeySwitchMethod`]), behind the same [`KeySwitcher`]
//! interface.

use super::cost::{CostModel, UnitCosts};
use super::{
    DigitPartition, HybridDecomposition, HybridKey, HybridKeySwitcher, KeyStorage, KeySwitcher,
    KlssAccumulator, KlssBound, KlssConfig, KlssDecomposition, KlssKey, KlssKeySwitcher, LevelSet,
    MixedKeySwitcher,
};
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::keys::SecretKey;
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

/// Which key-switching method a parameter set uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeySwitchMethod {
    /// Hybrid (GHS / Han-Ki): ModUp of every digit to `PQ`.
    #[default]
    Hybrid,
    /// KLSS (seed 000) with the given key decomposition.
    Klss(KlssConfig),
    /// Linear key switching (seed 001): KLSS with `r̃ = 1`, `B'` sized by the bound.
    Linear(KlssBound),
    /// Hybrid at every level except those in `levels` (chain-limb counts), where KLSS with
    /// `klss` runs (see [`MixedKeySwitcher`]): what `Auto` resolves to when the fastest
    /// engine changes with the level. Keys are kept in both forms.
    Mixed {
        /// The KLSS configuration.
        klss: KlssConfig,
        /// The chain-limb counts at which KLSS runs.
        levels: LevelSet,
    },
    /// Per level, hybrid or KLSS (`r̃` in 1..=8), whichever the calibrated cost model
    /// predicts fastest ([`CostModel::plan`]): resolves to `Hybrid`, `Klss` or `Mixed`.
    Auto,
}

impl KeySwitchMethod {
    /// A method by its command-line spelling, the one the CLI and the Python bindings
    /// accept: `hybrid`, `klss:R` (KLSS with `R = r̃ >= 1` primes per key digit), `linear`,
    /// `linear-heuristic` or `auto`.
    pub fn parse(s: &str) -> Result<KeySwitchMethod> {
        match s {
            "hybrid" => Ok(KeySwitchMethod::Hybrid),
            "linear" => Ok(KeySwitchMethod::Linear(KlssBound::WorstCase)),
            "linear-heuristic" => Ok(KeySwitchMethod::Linear(KlssBound::Heuristic)),
            "auto" => Ok(KeySwitchMethod::Auto),
            _ => match s.strip_prefix("klss:").map(str::parse::<usize>) {
                Some(Ok(r)) if r >= 1 => Ok(KeySwitchMethod::Klss(KlssConfig::klss(r))),
                _ => Err(Error::InvalidParameters(format!(
                    "unknown key-switching method {s:?}: use hybrid, klss:R (R >= 1), linear, \
                     linear-heuristic or auto"
                ))),
            },
        }
    }

    /// A short name for tables and errors. A resolved context reports linear key
    /// switching as the KLSS engine with `r̃ = 1` it runs on; that engine is named
    /// `linear` here whichever way it was asked for (`linear` or `klss:1`, the same
    /// configuration).
    pub fn name(&self) -> String {
        match self {
            KeySwitchMethod::Hybrid => "hybrid".into(),
            KeySwitchMethod::Klss(c) if c.r_tilde == 1 => match c.bound {
                KlssBound::WorstCase => "linear".into(),
                KlssBound::Heuristic => "linear(heuristic)".into(),
            },
            KeySwitchMethod::Klss(c) => format!("klss(r̃={})", c.r_tilde),
            KeySwitchMethod::Linear(KlssBound::WorstCase) => "linear".into(),
            KeySwitchMethod::Linear(KlssBound::Heuristic) => "linear(heuristic)".into(),
            KeySwitchMethod::Mixed { klss, levels } => format!(
                "hybrid+klss(r̃={}) at {} level{}",
                klss.r_tilde,
                levels.len(),
                if levels.len() == 1 { "" } else { "s" }
            ),
            KeySwitchMethod::Auto => "auto".into(),
        }
    }
}

/// A key-switching engine of either kind.
#[derive(Debug)]
pub enum KeySwitchEngine {
    /// The hybrid engine.
    Hybrid(HybridKeySwitcher),
    /// The KLSS / linear engine.
    Klss(KlssKeySwitcher),
    /// Hybrid or KLSS depending on the level.
    Mixed(MixedKeySwitcher),
}

/// A switching key of either engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SwitchingKey {
    /// A hybrid key.
    Hybrid(HybridKey),
    /// An expanded KLSS key.
    Klss(KlssKey),
}

/// A decomposition of either engine.
#[derive(Debug)]
pub enum EngineDecomposition {
    /// Hybrid digits over `Q_l ∪ P`.
    Hybrid(HybridDecomposition),
    /// KLSS digits over `B'`.
    Klss(KlssDecomposition),
}

/// An accumulator of either engine.
#[derive(Debug)]
pub enum EngineAccumulator {
    /// Over `Q_l ∪ P`, NTT form.
    Hybrid([Poly; 2]),
    /// Over `B'` (and `Q̃`).
    Klss(KlssAccumulator),
}

impl SwitchingKey {
    /// The fingerprint of the ring the key belongs to.
    pub fn ring_id(&self) -> u64 {
        match self {
            SwitchingKey::Hybrid(k) => k.ring_id,
            SwitchingKey::Klss(k) => k.ring_id,
        }
    }

    /// Size in memory, bytes.
    pub fn size_bytes(&self) -> usize {
        match self {
            SwitchingKey::Hybrid(k) => k.size_bytes(),
            SwitchingKey::Klss(k) => k.size_bytes(),
        }
    }

    /// The key's width: the chain limbs `l + 1` it covers, so that it serves inputs at
    /// levels `<= l` (see [`SwitchingKey::max_level`]). `L + 1` for a full key (every KLSS
    /// key is one); less for a hybrid key generated for lower levels
    /// ([`KeySwitchEngine::generate_key_at_with_storage`]).
    pub fn q_limbs(&self) -> usize {
        match self {
            SwitchingKey::Hybrid(k) => k.q_limbs(),
            SwitchingKey::Klss(k) => k.q_limbs,
        }
    }

    /// The highest level the key serves, `q_limbs - 1` (`None` for a malformed key without
    /// digits, which serves none).
    pub fn max_level(&self) -> Option<usize> {
        self.q_limbs().checked_sub(1)
    }

    /// Whether the key serves inputs of `q_limbs` chain limbs (level `q_limbs - 1`).
    pub fn covers(&self, q_limbs: usize) -> bool {
        q_limbs <= self.q_limbs()
    }

    /// The ordinary (hybrid) key, when the key is or keeps one.
    pub fn ordinary(&self) -> Option<&HybridKey> {
        match self {
            SwitchingKey::Hybrid(k) => Some(k),
            SwitchingKey::Klss(k) => k.compact.as_ref(),
        }
    }
}

impl KeySwitchEngine {
    /// The engine of `method` for `ctx` and `dnum` uniform digits (`Auto` is resolved
    /// with `costs`, or a start-up measurement when `None`).
    pub fn new(
        ctx: Arc<RingContext>,
        dnum: usize,
        method: KeySwitchMethod,
        costs: Option<&UnitCosts>,
    ) -> Result<Self> {
        let digits = DigitPartition::uniform(ctx.q_len(), dnum);
        Self::with_digits(ctx, digits, method, costs)
    }

    /// [`Self::new`] with the gadget's `digits`: digits by bits
    /// ([`DigitPartition::by_bits`]) run on the hybrid engine only, and are refused for
    /// the others.
    pub fn with_digits(
        ctx: Arc<RingContext>,
        digits: DigitPartition,
        method: KeySwitchMethod,
        costs: Option<&UnitCosts>,
    ) -> Result<Self> {
        if digits.is_by_bits() && method != KeySwitchMethod::Hybrid {
            return Err(Error::InvalidParameters(format!(
                "digits by bits are implemented for the hybrid engine only, not {}",
                method.name()
            )));
        }
        let dnum = digits.dnum();
        Ok(match method {
            KeySwitchMethod::Hybrid => {
                KeySwitchEngine::Hybrid(HybridKeySwitcher::with_digits(ctx, digits))
            }
            KeySwitchMethod::Klss(config) => {
                KeySwitchEngine::Klss(KlssKeySwitcher::new(ctx, dnum, config)?)
            }
            KeySwitchMethod::Linear(bound) => KeySwitchEngine::Klss(KlssKeySwitcher::new(
                ctx,
                dnum,
                KlssConfig::linear().with_bound(bound),
            )?),
            KeySwitchMethod::Mixed { klss, levels } => {
                if let Some(l) = levels.iter().find(|&l| l > ctx.q_len()) {
                    return Err(Error::InvalidParameters(format!(
                        "a mixed engine's KLSS levels name {l} chain limbs; the chain has {}",
                        ctx.q_len()
                    )));
                }
                KeySwitchEngine::Mixed(MixedKeySwitcher {
                    hybrid: HybridKeySwitcher::new(ctx.clone(), dnum),
                    klss: KlssKeySwitcher::new(ctx, dnum, klss)?,
                    levels,
                })
            }
            KeySwitchMethod::Auto => {
                let owned;
                let costs = match costs {
                    Some(c) => c,
                    None => {
                        owned = UnitCosts::for_process(ctx.n());
                        &owned
                    }
                };
                let plan = CostModel::new(&ctx, dnum, costs).plan()?;
                return Self::new(ctx, dnum, plan, Some(costs));
            }
        })
    }

    /// Whether a key switch of a polynomial with `q_limbs` chain limbs runs the hybrid
    /// engine, whose accumulators are polynomials over `Q_l ∪ P` that plaintexts can
    /// multiply before the ModDown (seed 003 Alg. 6's inner loop): the hybrid engine, or the
    /// per-level mix at its hybrid levels.
    pub fn hybrid_at(&self, q_limbs: usize) -> bool {
        match self {
            KeySwitchEngine::Hybrid(_) => true,
            KeySwitchEngine::Klss(_) => false,
            KeySwitchEngine::Mixed(e) => !e.klss_at(q_limbs),
        }
    }

    /// The method this engine runs (never `Auto`).
    pub fn method(&self) -> KeySwitchMethod {
        match self {
            KeySwitchEngine::Hybrid(_) => KeySwitchMethod::Hybrid,
            KeySwitchEngine::Klss(k) => KeySwitchMethod::Klss(*k.config()),
            KeySwitchEngine::Mixed(m) => KeySwitchMethod::Mixed {
                klss: *m.klss.config(),
                levels: m.levels,
            },
        }
    }

    /// Whether `key` is a key of this engine's shape (a hybrid key of any width with the
    /// digits that width needs, [`HybridKey::check_shape`]; a KLSS key expanded by an
    /// engine of this shape). Whether it covers an input's level is a separate check
    /// ([`SwitchingKey::covers`]).
    pub fn owns(&self, key: &SwitchingKey) -> bool {
        match (self, key) {
            (KeySwitchEngine::Hybrid(e), SwitchingKey::Hybrid(k)) => e.owns(k),
            (KeySwitchEngine::Klss(e), SwitchingKey::Klss(k)) => e.owns(k),
            (KeySwitchEngine::Mixed(e), SwitchingKey::Klss(k)) => {
                e.klss.owns(k) && k.compact.is_some()
            }
            _ => false,
        }
    }

    /// The ordinary (hybrid) form of a key of this engine: what serialization writes.
    pub fn ordinary_key<'k>(&self, key: &'k SwitchingKey) -> std::borrow::Cow<'k, HybridKey> {
        match (self, key) {
            (_, SwitchingKey::Hybrid(k)) => std::borrow::Cow::Borrowed(k),
            (KeySwitchEngine::Klss(e), SwitchingKey::Klss(k)) => {
                std::borrow::Cow::Owned(e.contract(k))
            }
            (KeySwitchEngine::Hybrid(_) | KeySwitchEngine::Mixed(_), SwitchingKey::Klss(k)) => {
                match &k.compact {
                    Some(c) => std::borrow::Cow::Borrowed(c),
                    None => panic!("{MISMATCH}"),
                }
            }
        }
    }

    /// The memory [`KeySwitchEngine::adopt`] builds beyond the ordinary key it is given:
    /// the expanded KLSS key, `2 d Σ r'_i N` words (zero for hybrid). Readers charge it to
    /// their allocation limit before expanding.
    pub fn adopted_key_bytes(&self) -> u64 {
        let klss = |e: &KlssKeySwitcher| {
            let n = e.ring_degree() as u64;
            2 * e.dnum() as u64 * e.r_primes().iter().sum::<usize>() as u64 * n * 8
        };
        match self {
            KeySwitchEngine::Hybrid(_) => 0,
            KeySwitchEngine::Klss(e) => klss(e),
            KeySwitchEngine::Mixed(e) => klss(&e.klss),
        }
    }

    /// Brings an ordinary key to this engine's form (expands it for KLSS; a mixed engine
    /// keeps both forms whatever `storage` says).
    pub fn adopt(&self, key: HybridKey, storage: KeyStorage) -> Result<SwitchingKey> {
        Ok(match self {
            KeySwitchEngine::Hybrid(_) => SwitchingKey::Hybrid(key),
            KeySwitchEngine::Klss(e) => SwitchingKey::Klss(e.expand(&key, storage)?),
            KeySwitchEngine::Mixed(e) => {
                SwitchingKey::Klss(e.klss.expand(&key, KeyStorage::ExpandedWithOrdinary)?)
            }
        })
    }

    /// Generates a full key (all `L + 1` chain limbs) from `s_from` to `sk`, kept as
    /// `storage` says (KLSS only).
    pub fn generate_key_with_storage<R: RngCore + CryptoRng>(
        &self,
        s_from: &Poly,
        sk: &SecretKey,
        storage: KeyStorage,
        rng: &mut R,
    ) -> SwitchingKey {
        match self {
            KeySwitchEngine::Hybrid(e) => SwitchingKey::Hybrid(e.generate_key(s_from, sk, rng)),
            KeySwitchEngine::Klss(e) => {
                SwitchingKey::Klss(e.generate_key_with_storage(s_from, sk, storage, rng))
            }
            KeySwitchEngine::Mixed(e) => SwitchingKey::Klss(e.klss.generate_key_with_storage(
                s_from,
                sk,
                KeyStorage::ExpandedWithOrdinary,
                rng,
            )),
        }
    }

    /// Generates a key from `s_from` to `sk` for inputs of at most `q_limbs` chain limbs
    /// (levels `< q_limbs`), kept as `storage` says (KLSS only). The hybrid engine makes a
    /// narrow key ([`HybridKeySwitcher::generate_key_at`]: `ceil(q_limbs / α)` digits over
    /// `Q_{q_limbs-1} ∪ P`); the KLSS / linear and mixed engines have no level-aware keys
    /// and make the full key whatever `q_limbs` is (it serves every level, the requested
    /// ones included). Errors unless `1 <= q_limbs <= L + 1`.
    pub fn generate_key_at_with_storage<R: RngCore + CryptoRng>(
        &self,
        s_from: &Poly,
        sk: &SecretKey,
        q_limbs: usize,
        storage: KeyStorage,
        rng: &mut R,
    ) -> Result<SwitchingKey> {
        match self {
            KeySwitchEngine::Hybrid(e) => Ok(SwitchingKey::Hybrid(
                e.generate_key_at(s_from, sk, q_limbs, rng)?,
            )),
            KeySwitchEngine::Klss(e) => {
                e.hybrid().check_width(q_limbs)?;
                Ok(self.generate_key_with_storage(s_from, sk, storage, rng))
            }
            KeySwitchEngine::Mixed(e) => {
                e.hybrid.check_width(q_limbs)?;
                Ok(self.generate_key_with_storage(s_from, sk, storage, rng))
            }
        }
    }
}

const MISMATCH: &str = "key, decomposition or accumulator of another engine (checked by callers)";

/// The ordinary form a mixed engine's key keeps.
fn ordinary(k: &KlssKey) -> &HybridKey {
    k.compact.as_ref().expect(MISMATCH)
}

impl KeySwitcher for KeySwitchEngine {
    type Key = SwitchingKey;
    type Decomposition = EngineDecomposition;
    type Accumulator = EngineAccumulator;

    fn generate_key<R: RngCore + CryptoRng>(
        &self,
        s_from: &Poly,
        sk: &SecretKey,
        rng: &mut R,
    ) -> SwitchingKey {
        self.generate_key_with_storage(s_from, sk, KeyStorage::ExpandedOnly, rng)
    }

    fn decompose(&self, c: &Poly) -> EngineDecomposition {
        match self {
            KeySwitchEngine::Hybrid(e) => EngineDecomposition::Hybrid(e.decompose(c)),
            KeySwitchEngine::Klss(e) => EngineDecomposition::Klss(e.decompose(c)),
            KeySwitchEngine::Mixed(e) if e.klss_at(c.q_limbs()) => {
                EngineDecomposition::Klss(e.klss.decompose(c))
            }
            KeySwitchEngine::Mixed(e) => EngineDecomposition::Hybrid(e.hybrid.decompose(c)),
        }
    }

    fn zero_accumulator(&self, q_limbs: usize) -> EngineAccumulator {
        match self {
            KeySwitchEngine::Hybrid(e) => EngineAccumulator::Hybrid(e.zero_accumulator(q_limbs)),
            KeySwitchEngine::Klss(e) => EngineAccumulator::Klss(e.zero_accumulator(q_limbs)),
            KeySwitchEngine::Mixed(e) if e.klss_at(q_limbs) => {
                EngineAccumulator::Klss(e.klss.zero_accumulator(q_limbs))
            }
            KeySwitchEngine::Mixed(e) => {
                EngineAccumulator::Hybrid(e.hybrid.zero_accumulator(q_limbs))
            }
        }
    }

    fn multiply(
        &self,
        d: &EngineDecomposition,
        key: &SwitchingKey,
        q_limbs: usize,
    ) -> EngineAccumulator {
        match (self, d, key) {
            (
                KeySwitchEngine::Hybrid(e),
                EngineDecomposition::Hybrid(d),
                SwitchingKey::Hybrid(k),
            ) => EngineAccumulator::Hybrid(e.multiply(d, k, q_limbs)),
            (KeySwitchEngine::Klss(e), EngineDecomposition::Klss(d), SwitchingKey::Klss(k)) => {
                EngineAccumulator::Klss(e.multiply(d, k, q_limbs))
            }
            (KeySwitchEngine::Mixed(e), EngineDecomposition::Hybrid(d), SwitchingKey::Klss(k)) => {
                EngineAccumulator::Hybrid(e.hybrid.multiply(d, ordinary(k), q_limbs))
            }
            (KeySwitchEngine::Mixed(e), EngineDecomposition::Klss(d), SwitchingKey::Klss(k)) => {
                EngineAccumulator::Klss(e.klss.multiply(d, k, q_limbs))
            }
            _ => panic!("{MISMATCH}"),
        }
    }

    fn multiply_add(
        &self,
        d: &EngineDecomposition,
        key: &SwitchingKey,
        acc: &mut EngineAccumulator,
    ) {
        match (self, d, key, acc) {
            (
                KeySwitchEngine::Hybrid(e),
                EngineDecomposition::Hybrid(d),
                SwitchingKey::Hybrid(k),
                EngineAccumulator::Hybrid(a),
            ) => e.multiply_add(d, k, a),
            (
                KeySwitchEngine::Klss(e),
                EngineDecomposition::Klss(d),
                SwitchingKey::Klss(k),
                EngineAccumulator::Klss(a),
            ) => e.multiply_add(d, k, a),
            (
                KeySwitchEngine::Mixed(e),
                EngineDecomposition::Hybrid(d),
                SwitchingKey::Klss(k),
                EngineAccumulator::Hybrid(a),
            ) => e.hybrid.multiply_add(d, ordinary(k), a),
            (
                KeySwitchEngine::Mixed(e),
                EngineDecomposition::Klss(d),
                SwitchingKey::Klss(k),
                EngineAccumulator::Klss(a),
            ) => e.klss.multiply_add(d, k, a),
            _ => panic!("{MISMATCH}"),
        }
    }

    fn mod_down_to(&self, acc: EngineAccumulator, form: Form) -> [Poly; 2] {
        match (self, acc) {
            (KeySwitchEngine::Hybrid(e), EngineAccumulator::Hybrid(a)) => e.mod_down_to(a, form),
            (KeySwitchEngine::Klss(e), EngineAccumulator::Klss(a)) => e.mod_down_to(a, form),
            (KeySwitchEngine::Mixed(e), EngineAccumulator::Hybrid(a)) => {
                e.hybrid.mod_down_to(a, form)
            }
            (KeySwitchEngine::Mixed(e), EngineAccumulator::Klss(a)) => e.klss.mod_down_to(a, form),
            _ => panic!("{MISMATCH}"),
        }
    }

    fn mod_down_rescale(
        &self,
        acc: EngineAccumulator,
        k: i64,
        add: [Poly; 2],
        ctx: &RingContext,
    ) -> [Poly; 2] {
        match (self, acc) {
            (KeySwitchEngine::Hybrid(e), EngineAccumulator::Hybrid(a)) => {
                e.mod_down_rescale(a, k, add, ctx)
            }
            (KeySwitchEngine::Klss(e), EngineAccumulator::Klss(a)) => {
                e.mod_down_rescale(a, k, add, ctx)
            }
            (KeySwitchEngine::Mixed(e), EngineAccumulator::Hybrid(a)) => {
                e.hybrid.mod_down_rescale(a, k, add, ctx)
            }
            (KeySwitchEngine::Mixed(e), EngineAccumulator::Klss(a)) => {
                e.klss.mod_down_rescale(a, k, add, ctx)
            }
            _ => panic!("{MISMATCH}"),
        }
    }

    fn mod_down_second(&self, acc: &mut EngineAccumulator) -> Poly {
        match (self, acc) {
            (KeySwitchEngine::Hybrid(e), EngineAccumulator::Hybrid(a)) => e.mod_down_second(a),
            (KeySwitchEngine::Klss(e), EngineAccumulator::Klss(a)) => e.mod_down_second(a),
            (KeySwitchEngine::Mixed(e), EngineAccumulator::Hybrid(a)) => {
                e.hybrid.mod_down_second(a)
            }
            (KeySwitchEngine::Mixed(e), EngineAccumulator::Klss(a)) => e.klss.mod_down_second(a),
            _ => panic!("{MISMATCH}"),
        }
    }

    fn recycle(&self, d: EngineDecomposition) {
        match (self, d) {
            (KeySwitchEngine::Hybrid(e), EngineDecomposition::Hybrid(d)) => e.recycle(d),
            (KeySwitchEngine::Klss(e), EngineDecomposition::Klss(d)) => e.recycle(d),
            (KeySwitchEngine::Mixed(e), EngineDecomposition::Hybrid(d)) => e.hybrid.recycle(d),
            (KeySwitchEngine::Mixed(e), EngineDecomposition::Klss(d)) => e.klss.recycle(d),
            _ => panic!("{MISMATCH}"),
        }
    }

    fn permute(&self, acc: &EngineAccumulator, k: usize) -> EngineAccumulator {
        match (self, acc) {
            (KeySwitchEngine::Hybrid(e), EngineAccumulator::Hybrid(a)) => {
                EngineAccumulator::Hybrid(e.permute(a, k))
            }
            (KeySwitchEngine::Klss(e), EngineAccumulator::Klss(a)) => {
                EngineAccumulator::Klss(e.permute(a, k))
            }
            (KeySwitchEngine::Mixed(e), EngineAccumulator::Hybrid(a)) => {
                EngineAccumulator::Hybrid(e.hybrid.permute(a, k))
            }
            (KeySwitchEngine::Mixed(e), EngineAccumulator::Klss(a)) => {
                EngineAccumulator::Klss(e.klss.permute(a, k))
            }
            _ => panic!("{MISMATCH}"),
        }
    }
}
