//! [`DeviceRingContext`]: a [`RingContext`]'s tables on the device.

use crate::convert::DeviceBaseConverter;
use crate::error::{Error, Result};
use crate::kernels::TILE_MAX;
use crate::runtime::{Buffer, Gpu};
use hekate::math::rns::BaseConverter;
use hekate::ring::RingContext;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// Words per modulus in the modulus table (`HK_MOD_STRIDE` of `kernels/modarith.h`).
pub(crate) const MOD_STRIDE: usize = 8;

/// The most constant tables [`DeviceRingContext::constants`] keeps (a few KiB each at
/// most); past it the cache starts over.
pub(crate) const CONSTANT_TABLES_MAX: usize = 4096;

/// The device mirror of [`RingContext`]: for each of its moduli (the chain `Q`, then the
/// special primes `P`) the Barrett and NTT constants, and the NTT twiddles with their Shoup
/// companions, uploaded once.
///
/// Layouts (read by the kernels):
/// * modulus table, `MOD_STRIDE` words per modulus: `q`, `floor(2^128/q)` low and high
///   words, `N^-1` and companion, `ψ^-brv(1) N^-1` and companion, 0;
/// * twiddles, four rows of `N` words per modulus `m` at `(4m + r) N`: the forward twiddles
///   `ψ^brv(k)`, their companions, the inverse twiddles `ψ^-brv(k)`, their companions.
pub struct DeviceRingContext {
    gpu: Arc<Gpu>,
    ring: Arc<RingContext>,
    pub(crate) mods: Buffer,
    pub(crate) twiddles: Buffer,
    pub(crate) tile: usize,
    permutations: Mutex<HashMap<usize, Arc<Buffer>>>,
    /// Converters by their primes (`from`, a 0, `to`): a converter is a pure function of
    /// its bases, so equal primes mean equal tables.
    converters: Mutex<HashMap<Vec<u64>, Arc<DeviceBaseConverter>>>,
    /// ModDown by all of `P`: `Conv_{P -> Q}` and the `(P^-1, companion)` pairs per chain
    /// prime.
    mod_down: OnceLock<Option<(Arc<DeviceBaseConverter>, Buffer)>>,
    /// `(q_l^-1, companion)` pairs per level `l` (rescaling).
    rescale: Mutex<HashMap<usize, Arc<Buffer>>>,
    /// Small read-only tables of per-limb constants by their words
    /// ([`DeviceRingContext::constants`]).
    constants: Mutex<HashMap<Vec<u64>, Arc<Buffer>>>,
    me: Weak<DeviceRingContext>,
}

impl DeviceRingContext {
    /// Uploads the tables of `ring` to `gpu`.
    pub fn new(gpu: &Arc<Gpu>, ring: &Arc<RingContext>) -> Result<Arc<Self>> {
        Self::with_tile(gpu, ring, TILE_MAX)
    }

    /// As [`new`](Self::new), with NTT tiles of at most `tile` words (a power of two, at
    /// least 2): smaller tiles move more stages into the column kernels, for tuning and for
    /// the tests of column passes that a 2048-word tile only needs above N = 2^18.
    pub fn with_tile(gpu: &Arc<Gpu>, ring: &Arc<RingContext>, tile: usize) -> Result<Arc<Self>> {
        if !tile.is_power_of_two() || !(2..=TILE_MAX).contains(&tile) {
            return Err(Error::InvalidInput(format!(
                "an NTT tile of {tile} words (a power of two from 2 to {TILE_MAX})"
            )));
        }
        let n = ring.n();
        let (ql, pl) = (ring.q_len(), ring.p_len());
        let mut mods = Vec::with_capacity((ql + pl) * MOD_STRIDE);
        let mut twiddles = Vec::with_capacity((ql + pl) * 4 * n);
        for m in 0..ql + pl {
            let plan = ring.ntt_plan(m, ql);
            let modulus = plan.modulus();
            let (mu_lo, mu_hi) = modulus.barrett();
            let t = plan.twiddles();
            mods.extend_from_slice(&[
                modulus.value(),
                mu_lo,
                mu_hi,
                t.n_inv,
                t.n_inv_shoup,
                t.inv_last,
                t.inv_last_shoup,
                0,
            ]);
            for row in [t.fwd, t.fwd_shoup, t.inv, t.inv_shoup] {
                twiddles.extend_from_slice(row);
            }
        }
        let tile = n.min(tile).min(2 * gpu.info().max_group as usize).max(2);
        let mods = gpu.upload(&mods)?;
        let twiddles = gpu.upload(&twiddles)?;
        Ok(Arc::new_cyclic(|me| DeviceRingContext {
            gpu: gpu.clone(),
            ring: ring.clone(),
            mods,
            twiddles,
            tile,
            permutations: Mutex::new(HashMap::new()),
            converters: Mutex::new(HashMap::new()),
            mod_down: OnceLock::new(),
            rescale: Mutex::new(HashMap::new()),
            constants: Mutex::new(HashMap::new()),
            me: me.clone(),
        }))
    }

    /// The device.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// The CPU context it mirrors.
    pub fn ring(&self) -> &Arc<RingContext> {
        &self.ring
    }

    /// The ring degree `N`.
    pub fn n(&self) -> usize {
        self.ring.n()
    }

    /// The NTT-form index table of `X -> X^k` (`k` odd, below `2N`), uploaded on first use
    /// ([`hekate::ring::automorphism::NttPermutation`], cached by the ring).
    pub(crate) fn permutation(&self, k: usize) -> Result<Arc<Buffer>> {
        let mut cache = self.permutations.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = cache.get(&k) {
            return Ok(b.clone());
        }
        let perm = self.ring.ntt_permutation(k);
        let index: Vec<u64> = perm.index().iter().map(|&i| i as u64).collect();
        let buf = Arc::new(self.gpu.upload(&index)?);
        cache.insert(k, buf.clone());
        Ok(buf)
    }

    /// The constants of dividing by `q_l` ([`RingContext::rescale_constants`]), uploaded on
    /// first use.
    pub(crate) fn rescale_table(&self, l: usize) -> Result<Arc<Buffer>> {
        let mut cache = self.rescale.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = cache.get(&l) {
            return Ok(b.clone());
        }
        let pairs: Vec<u64> = self
            .ring
            .rescale_constants(l)
            .iter()
            .flat_map(|&(w, ws)| [w, ws])
            .collect();
        let buf = Arc::new(self.gpu.upload(&pairs)?);
        cache.insert(l, buf.clone());
        Ok(buf)
    }

    /// The device copy of a small read-only table of constants (a constant product's
    /// per-limb residues and companions, a linear combination's coefficients), found by its
    /// words: uploaded the first time, then shared. A circuit run again (a bootstrap, a
    /// polynomial) uses the same constants, so its warm runs upload nothing: on CUDA an
    /// upload from pageable memory is a driver call that may wait for the stream. Kernels
    /// only read these buffers. At most 4,096 are kept (then the cache starts over).
    pub fn constants(&self, words: Vec<u64>) -> Result<Arc<Buffer>> {
        let mut cache = self.constants.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = cache.get(&words) {
            return Ok(b.clone());
        }
        let buf = Arc::new(self.gpu.upload(&words)?);
        if cache.len() >= CONSTANT_TABLES_MAX {
            cache.clear();
        }
        cache.insert(words, buf.clone());
        Ok(buf)
    }

    /// This context as an `Arc` (it is only ever built inside one).
    pub(crate) fn arc(&self) -> Arc<DeviceRingContext> {
        self.me
            .upgrade()
            .expect("a DeviceRingContext lives in an Arc")
    }

    /// The device copy of `conv` (uploaded on first use, then found by its primes).
    pub fn converter(&self, conv: &BaseConverter) -> Result<Arc<DeviceBaseConverter>> {
        let t = conv.tables();
        let key: Vec<u64> = t
            .from
            .iter()
            .map(|m| m.value())
            .chain([0])
            .chain(t.to.iter().map(|m| m.value()))
            .collect();
        let mut cache = self.converters.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cache.get(&key) {
            return Ok(c.clone());
        }
        let c = Arc::new(DeviceBaseConverter::new(&self.gpu, conv)?);
        cache.insert(key, c.clone());
        Ok(c)
    }

    /// `Conv_{P -> Q}` and the `(P^-1, companion)` pairs of ModDown by all of `P`, if the
    /// ring has special primes.
    pub(crate) fn mod_down_tables(&self) -> Result<Option<&(Arc<DeviceBaseConverter>, Buffer)>> {
        if let Some(t) = self.mod_down.get() {
            return Ok(t.as_ref());
        }
        let tables = match self.ring.extender() {
            None => None,
            Some(ext) => {
                let conv = self.converter(ext.b_to_c())?;
                let (w, ws) = ext.p_inv();
                let pairs: Vec<u64> = w.iter().zip(ws).flat_map(|(&a, &b)| [a, b]).collect();
                Some((conv, self.gpu.upload(&pairs)?))
            }
        };
        Ok(self.mod_down.get_or_init(|| tables).as_ref())
    }

    /// Words of an NTT tile in local memory (`min(N, 2048)`, less on devices with small
    /// work-groups).
    pub fn tile(&self) -> usize {
        self.tile
    }
}

impl std::fmt::Debug for DeviceRingContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceRingContext(N = {}, {} + {} moduli)",
            self.ring.n(),
            self.ring.q_len(),
            self.ring.p_len()
        )
    }
}
