//! KLSS key switching: the switching key decomposed a second time (seed 000 §3-4), and
//! its `r̃ = 1` corner, linear key switching (seed 001 §III).
//!
//! # Notation (seed 000 Table 1)
//!
//! - `Q = q_0 .. q_L` (the chain) and `P = p_0 .. p_{k-1}` (special primes); `Q̃ = PQ`
//!   has `ℓ̃ = k + L + 1` primes, taken in the order `p_0 .. p_{k-1}, q_0 .. q_L` so that
//!   the primes in use at a level are a prefix.
//! - The ciphertext gadget `h`: `d` digits `D_j` of `r` consecutive chain primes (`r = α`
//!   of the hybrid engine, `d = dnum`); the switching key `U` is the hybrid key, a gadget
//!   encryption over `Q̃` (see [`super::hybrid`]).
//! - The key gadget `h̃`: `d̃` digits `D̃_i` of `r̃` consecutive primes of `Q̃`, with the CRT
//!   idempotents `g̃_i` (`1 mod D̃_i`, `0 mod D̃_{i'}`).
//! - The auxiliary base `B'`: `r'` word primes (not in `Q̃`), large enough that every inner
//!   product below is exact as an integer (Eq. (5), see [`KlssBound`]). Key digit `i`
//!   uses only the first `r'_i <= r'` of them: the fewest above its own bound, which
//!   grows with `D̃_i` (the digits holding wide special primes need the most).
//!
//! # Key (expanded once)
//!
//! `v_{h,j,i} = [u_{h,j}]_{D̃_i}` (centered), in NTT form over the first `r'_i` primes of
//! `B'`: `2 d d̃` polynomials. Memory: `2 d Σ_i r'_i N` words against the hybrid key's
//! `2 d ℓ̃ N`, so about `r' / r̃` times as large. [`KlssKey`] can also keep the ordinary
//! (seed-compressed) hybrid key beside it, so that it serializes at the hybrid size and
//! is expanded again on load ([`KeyStorage`]).
//!
//! The expanded key is stored *tile-major* ([`KEY_TILE`](super::KEY_TILE) coefficients per tile): tile by
//! tile, the `d` terms of every inner-product output follow one another. A switch walks
//! the key once, front to back, while the digits' tiles it multiplies with stay in the
//! cache for all `2 Σ_i r'_i` outputs. Stored limb by limb, every output re-read its `d`
//! digit limbs from memory: twice the key's traffic, and the inner products of the
//! linear engine (61-bit `B'`, `d = 32`, `N = 2^16`) ran at 3.5-4 GB/s instead of 6-7.
//!
//! # Switch of `c` (NTT form over `Q_l`)
//!
//! 1. *Decompose*: inverse NTT (`l + 1` NTTs); `b_j = [c]_{D_j}` (centered) lifted exactly
//!    to `B'` and transformed (`d r'` NTTs). For `r = 1` and `q_j` below every `B'` prime
//!    the lift is a copy (plus the centering).
//! 2. *Inner products* over `B'`: `c̃_{h,i} = Σ_j b_j v_{h,j,i}` over the first `r'_i`
//!    primes (`2 d Σ_i r'_i` Hadamard products): exact integer polynomials because those
//!    primes exceed twice their bound.
//! 3. *Recombine*: inverse NTT over `B'` (`2 Σ_i r'_i` NTTs), then `c̃_h mod p =
//!    [c̃_{h,i}]_p` for every prime `p` of `D̃_i` (an exact centered base conversion from
//!    the first `r'_i` primes of `B'` to `D̃_i`): since
//!    `U = Σ_i g̃_i V_i`, `⟨b, u_h⟩ = Σ_i g̃_i c̃_{h,i}`, which is `c̃_{h,i}` modulo `D̃_i`.
//! 4. *ModDown* by `P` as in the hybrid engine (coefficient form), then the forward NTT
//!    over `Q_l` (`2 (l + 1)` NTTs).
//!
//! The result is the hybrid engine's `⟨b, u_h⟩` exactly, so the noise is the same
//! (seed 000: no extra noise growth; `tests.rs` measures both).
//!
//! # Accumulation (double hoisting)
//!
//! [`KeySwitcher::multiply_add`] sums products in `B'` (NTT form), which stays exact for up
//! to [`KlssConfig::accumulation`] products (`B'` is sized for that many: `log2` of it extra
//! bits); past that the accumulator is recombined into `Q̃` (coefficient form) and
//! restarted, so any number of products may be summed.
//!
//! # Linear key switching (seed 001)
//!
//! Seed 001's Alg. 2-3 lift each limb `[c]_{q_i}` into `[m_0, m_1]`, multiply with
//! `[pk_j]_{q_i}` lifted the same way, recombine with the two-prime CRT and ModDown by the
//! single special prime: exactly the steps above with `r = α = 1`, `r̃ = 1` and `B' =
//! [m_0, m_1]`. So one engine serves both; [`KlssConfig::linear`] is that corner (any `α`:
//! `r = α`, `r̃ = 1`, `r'` from the bound), and its fast paths are the copy lift (`r = 1`)
//! and the recombination into one prime per key digit.
//!
//! What seed 001 leaves open, and what was chosen:
//! - *The size of `[m_0, m_1]`.* The paper requires the sums below `m_0 m_1` and takes two
//!   64-bit moduli, but its own parameters (55-bit `q_0` and `p`, `ℓ = 32`, `N = 2^16`)
//!   bound the sums by `2 d N B B̃ ≈ 2^130` in the worst case, above any two word primes.
//!   hekate sizes `B'` by a stated bound, per key digit: [`KlssBound::WorstCase`] (Eq. (5):
//!   there `r'_i = 3` for the two digits of 55-bit primes and 2 for the 40-bit ones, a
//!   key 2.06 times the hybrid one), or [`KlssBound::Heuristic`], Hoeffding's tail bound
//!   for inputs whose digits are uniform (every honestly computed ciphertext), at failure
//!   probability `2^-64` per coefficient, which gives `r' = 2` for every digit there. The
//!   heuristic bound is *not* safe for adversarially chosen inputs (an attacker who knows
//!   the public key can force an overflow); it is opt-in.
//! - *`α > 1`.* The paper sketches it only; here the ciphertext digits have `α` primes and
//!   `r'` grows with `α` through the bound.
//! - *Where `P` goes in the key decomposition.* Each special prime is a key digit of its own
//!   (`r̃ = 1` over all of `Q̃`).

use super::hybrid::{HybridKey, HybridKeySwitcher};
use super::{KeySwitcher, KEY_TILE};
use crate::math::kernels;
use crate::math::rns::{BaseConverter, RnsBasis};
use crate::math::sample::Seed;
use crate::math::PrimeGenerator;
use crate::ring::{for_each_limb, Form, Poly, RingContext};
use crate::rlwe::keys::expand_uniform;
use crate::rlwe::keys::SecretKey;
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::ops::Range;
use std::sync::Arc;

/// How the auxiliary base `B'` is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KlssBound {
    /// Seed 000 Eq. (5): `B' > 2 d N B B̃` (times the accumulation count): exact for every
    /// input.
    WorstCase,
    /// Hoeffding's bound for inputs with uniform digits, failure probability `2^-64` per
    /// coefficient: `|Σ| < sqrt(ln(2^65) / 2 · Σ (2 B_j B̃)^2)`. Not safe against inputs
    /// chosen by an adversary who knows the switching key (see the module documentation).
    Heuristic,
}

/// The KLSS engine's parameters (beyond the hybrid key's `dnum`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KlssConfig {
    /// `r̃`: primes of `Q̃ = PQ` per key digit (`>= 1`).
    pub r_tilde: usize,
    /// `r'`: primes in `B'`; `None` derives the smallest that meets [`bound`](Self::bound).
    pub r_prime: Option<usize>,
    /// How `B'` is sized.
    pub bound: KlssBound,
    /// Bit size of the `B'` primes (`ν`, 30 to 61).
    pub b_prime_bits: u32,
    /// Products that [`KeySwitcher::multiply_add`] may sum in `B'` before recombining.
    pub accumulation: usize,
}

impl KlssConfig {
    /// KLSS with `r̃` primes per key digit, `r'` derived by Eq. (5), 61-bit `B'` primes.
    pub fn klss(r_tilde: usize) -> Self {
        KlssConfig {
            r_tilde,
            r_prime: None,
            bound: KlssBound::WorstCase,
            b_prime_bits: 61,
            accumulation: 1,
        }
    }

    /// Linear key switching (seed 001): `r̃ = 1`, `r'` derived.
    pub fn linear() -> Self {
        Self::klss(1)
    }

    /// With a given bound.
    pub fn with_bound(mut self, bound: KlssBound) -> Self {
        self.bound = bound;
        self
    }

    /// With `r'` given instead of derived (checked against the bound).
    pub fn with_r_prime(mut self, r_prime: usize) -> Self {
        self.r_prime = Some(r_prime);
        self
    }
}

/// What a [`KlssKey`] keeps in memory. Serialized keys are the ordinary (hybrid,
/// seed-compressed) form either way, and are expanded again on load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyStorage {
    /// Only the expanded key (the least memory); serialization contracts it back to the
    /// ordinary form.
    ExpandedOnly,
    /// The expanded key and the ordinary hybrid key it came from (more memory): a mixed
    /// engine switches with the ordinary key at its hybrid levels, and serialization writes
    /// it as it is.
    #[doc(alias = "Compact")]
    ExpandedWithOrdinary,
}

/// An expanded KLSS switching key: `v_{h,j,i}` in NTT form over `B'`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KlssKey {
    /// The [fingerprint](RingContext::fingerprint) of the ring the key belongs to.
    pub ring_id: u64,
    /// The [`KlssKeySwitcher::id`] of the engine that expanded it.
    pub engine_id: u64,
    /// `d`: ciphertext digits.
    pub dnum: usize,
    /// `d̃`: key digits.
    pub d_tilde: usize,
    /// `r'_i`: the `B'` limbs of key digit `i`'s polynomials (the first `r'_i` primes of
    /// `B'`, enough for that digit's bound; see [`KlssKeySwitcher::r_primes`]).
    pub r_primes: Vec<usize>,
    /// Ring degree.
    pub n: usize,
    /// Coefficients per tile: `min(N, 512)` (one 4 KiB page of each term).
    pub tile: usize,
    /// Tile-major: coefficients `[b T, (b + 1) T)` of limb `t` of `v_{h,j,i}` (`T` =
    /// `tile`) at `((b 2 Σr' + o) d + j) T`, where `o = h Σr' + Σ_(i' < i) r'_i' + t` is
    /// the output limb.
    pub data: Vec<u64>,
    /// The seed of the ordinary key's `a` parts (to serialize it seed-compressed).
    pub seed: Seed,
    /// The ordinary key, kept under [`KeyStorage::ExpandedWithOrdinary`].
    pub compact: Option<HybridKey>,
}

impl KlssKey {
    /// Bytes of the expanded key in memory.
    pub fn expanded_bytes(&self) -> usize {
        self.data.len() * 8
    }

    /// Bytes in memory, the ordinary key included when kept.
    pub fn size_bytes(&self) -> usize {
        self.expanded_bytes() + self.compact.as_ref().map_or(0, HybridKey::size_bytes)
    }

    /// The `d` terms (`d T` words, term `j` at `j T`) of output limb `o` in tile `b`.
    #[inline]
    fn tile_terms(&self, b: usize, o: usize) -> &[u64] {
        let outputs = 2 * self.r_primes.iter().sum::<usize>();
        let len = self.dnum * self.tile;
        let at = (b * outputs + o) * len;
        &self.data[at..at + len]
    }

    /// `v_{h,j,i}` gathered from the tiles: `r'_i` limbs of `N` words.
    fn v(&self, h: usize, i: usize, j: usize) -> Vec<u64> {
        let (n, tile) = (self.n, self.tile);
        let o0 = key_block(&self.r_primes, h, i);
        let mut out = vec![0u64; self.r_primes[i] * n];
        for (t, limb) in out.chunks_mut(n).enumerate() {
            for (b, dst) in limb.chunks_mut(tile).enumerate() {
                dst.copy_from_slice(&self.tile_terms(b, o0 + t)[j * tile..(j + 1) * tile]);
            }
        }
        out
    }
}

/// The `PQ` primes of key digit `i` (`r̃` primes per digit) among the first `used`:
/// `[i r̃, min((i + 1) r̃, used))`.
pub(super) fn key_digit_primes(i: usize, r_tilde: usize, used: usize) -> Range<usize> {
    i * r_tilde..((i + 1) * r_tilde).min(used)
}

/// The first limb of block `(h, i)` (in units of `d` limbs for a key, of one limb for an
/// accumulator) when the blocks `(0, 0), (0, 1), .., (1, 0), ..` of `r'_i` limbs each
/// follow one another, for the key digits `r_primes` covers.
fn key_block(r_primes: &[usize], h: usize, i: usize) -> usize {
    h * r_primes.iter().sum::<usize>() + r_primes[..i].iter().sum::<usize>()
}

/// The digits `b_j` lifted to `B'`, NTT form: digit `j` limb `t` at `(j r' + t) N`.
#[derive(Debug)]
pub struct KlssDecomposition {
    q_limbs: usize,
    digits: usize,
    data: Vec<u64>,
}

/// Inner products being summed: in `B'` (NTT form) and, after a recombination, in `Q̃`.
#[derive(Debug)]
pub struct KlssAccumulator {
    q_limbs: usize,
    /// Products summed into `sums` since the last recombination.
    count: usize,
    /// `c̃_{h,i}` at `key_block(r'[..d̃_l], h, i) N` (`r'_i` limbs), for the `d̃_l` key
    /// digits in use.
    sums: Vec<u64>,
    /// Recombined part: over `Q_l ∪ P`, coefficient form.
    recombined: Option<[Poly; 2]>,
}

/// The KLSS / linear key-switching engine for one ring, `dnum` and [`KlssConfig`].
#[derive(Debug)]
pub struct KlssKeySwitcher {
    ctx: Arc<RingContext>,
    hybrid: HybridKeySwitcher,
    config: KlssConfig,
    /// The ring over `B'` (its NTT plans and moduli).
    aux: Arc<RingContext>,
    r_prime: usize,
    /// `r'_i` per key digit: the first `r'_i` primes of `B'` exceed digit `i`'s bound.
    r_primes: Vec<usize>,
    d_tilde: usize,
    /// `lift[j][s - 1]`: the first `s` primes of digit `j` to `B'`.
    lift: Vec<Vec<BaseConverter>>,
    /// `recombine[i]`: the first `r'_i` primes of `B'` to the primes of key digit `i`.
    recombine: Vec<BaseConverter>,
    /// Whether digit lifts are copies (`r = 1`, every `q` below every `B'` prime).
    copy_lift: bool,
    /// `log2` of the bound `B'` must exceed, and of `B'`.
    log_bound: f64,
    id: u64,
}

impl KlssKeySwitcher {
    /// The engine for `ctx` with `dnum` ciphertext digits and `config`; picks the `B'`
    /// primes (distinct from `Q̃`) and checks `r'` against the bound.
    pub fn new(ctx: Arc<RingContext>, dnum: usize, config: KlssConfig) -> Result<Self> {
        let hybrid = HybridKeySwitcher::new(ctx.clone(), dnum);
        let (l1, k, n) = (ctx.q_len(), ctx.p_len(), ctx.n());
        let lt = l1 + k;
        if config.r_tilde == 0 || config.r_tilde > lt {
            return Err(Error::InvalidParameters(format!(
                "KLSS r̃ = {} must be in [1, ℓ̃ = {lt}]",
                config.r_tilde
            )));
        }
        if !(30..=61).contains(&config.b_prime_bits) {
            return Err(Error::InvalidParameters(format!(
                "KLSS B' prime size {} bits is outside [30, 61]",
                config.b_prime_bits
            )));
        }
        if config.accumulation == 0 {
            return Err(Error::InvalidParameters(
                "KLSS accumulation must be at least 1 product".into(),
            ));
        }
        let pq = pq_order(&ctx);
        let d_tilde = lt.div_ceil(config.r_tilde);
        let digit_bounds = log_bounds(&ctx, dnum, &config);
        let log_bound = digit_bounds.iter().copied().fold(f64::MIN, f64::max);
        let mut gen = PrimeGenerator::new(n)?;
        gen.exclude(&pq.iter().map(|m| m.value()).collect::<Vec<_>>());
        let mut b_primes = Vec::new();
        let mut log_b = 0.0;
        let enough = |log_b: f64, count: usize| match config.r_prime {
            Some(r) => count >= r,
            None => log_b > log_bound,
        };
        while !enough(log_b, b_primes.len()) {
            if b_primes.len() >= 64 {
                return Err(Error::InvalidParameters(
                    "KLSS: B' would need more than 64 primes".into(),
                ));
            }
            let p = gen.next_prime(config.b_prime_bits)?;
            log_b += (p as f64).log2();
            b_primes.push(p);
        }
        if log_b <= log_bound {
            return Err(Error::InvalidParameters(format!(
                "KLSS r' = {} primes of {} bits give log2 B' = {log_b:.1}, not above the \
                 {:?} bound 2^{log_bound:.1}: raise r', or let it be derived",
                b_primes.len(),
                config.b_prime_bits,
                config.bound
            )));
        }
        let r_prime = b_primes.len();
        // Each key digit takes the fewest leading B' primes above its own bound (all r'
        // when r' is given).
        let r_primes: Vec<usize> = match config.r_prime {
            Some(_) => vec![r_prime; d_tilde],
            None => digit_bounds
                .iter()
                .map(|&bound| {
                    let mut log = 0.0;
                    1 + b_primes
                        .iter()
                        .position(|&p| {
                            log += (p as f64).log2();
                            log > bound
                        })
                        .expect("B' exceeds every digit's bound")
                })
                .collect(),
        };
        let aux = RingContext::new(n, &b_primes, &[])?;
        let b_basis = aux.q().clone();
        let alpha = hybrid.alpha();
        let q = ctx.q().moduli();
        let lift = (0..dnum)
            .map(|j| {
                let start = j * alpha;
                let end = ((j + 1) * alpha).min(l1);
                (1..=end.saturating_sub(start))
                    .map(|s| {
                        BaseConverter::new(
                            &RnsBasis::from_moduli(q[start..start + s].to_vec()),
                            &b_basis,
                        )
                    })
                    .collect()
            })
            .collect();
        let recombine = (0..d_tilde)
            .map(|i| {
                let range = key_digit_primes(i, config.r_tilde, lt);
                let to = RnsBasis::from_moduli(pq[range].to_vec());
                BaseConverter::new(&b_prefix(&aux, r_primes[i]), &to)
            })
            .collect();
        let b_min = b_primes.iter().copied().min().expect("r' >= 1");
        let copy_lift = alpha == 1 && q.iter().all(|m| m.value() < b_min);
        let words: Vec<u64> = [
            ctx.fingerprint(),
            dnum as u64,
            config.r_tilde as u64,
            r_prime as u64,
        ]
        .into_iter()
        .chain(b_primes.iter().copied())
        .chain(r_primes.iter().map(|&r| r as u64))
        .collect();
        let id = crate::ring::fnv1a64(
            &words
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<_>>(),
        );
        Ok(KlssKeySwitcher {
            ctx,
            hybrid,
            config,
            aux,
            r_prime,
            r_primes,
            d_tilde,
            lift,
            recombine,
            copy_lift,
            log_bound,
            id,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &KlssConfig {
        &self.config
    }

    /// `d` (= `dnum`): ciphertext digits.
    pub fn dnum(&self) -> usize {
        self.hybrid.dnum()
    }

    /// `N`, the ring degree.
    pub fn ring_degree(&self) -> usize {
        self.ctx.n()
    }

    /// `r` (= `α`): primes per ciphertext digit.
    pub fn r(&self) -> usize {
        self.hybrid.alpha()
    }

    /// `r̃`: primes per key digit.
    pub fn r_tilde(&self) -> usize {
        self.config.r_tilde
    }

    /// `d̃`: key digits.
    pub fn d_tilde(&self) -> usize {
        self.d_tilde
    }

    /// `r'`: primes of `B'`.
    pub fn r_prime(&self) -> usize {
        self.r_prime
    }

    /// `r'_i` for each key digit `i`: the key digit's polynomials are kept over the first
    /// `r'_i` primes of `B'`, the fewest whose product exceeds that digit's own bound
    /// (a digit holding a special prime can need more than the others). The key takes
    /// `2 d Σ r'_i N` words, and a switch as many products.
    pub fn r_primes(&self) -> &[usize] {
        &self.r_primes
    }

    /// The `B'` primes.
    pub fn b_primes(&self) -> Vec<u64> {
        self.aux.q().moduli().iter().map(|m| m.value()).collect()
    }

    /// `log2` of the bound `B'` exceeds, and `log2 B'`.
    pub fn bound_bits(&self) -> (f64, f64) {
        (self.log_bound, self.aux.q().log_product())
    }

    /// An identifier of the engine's shape (ring, `d`, `r̃`, `B'`): keys carry it.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The hybrid engine that generates the ordinary keys.
    pub fn hybrid(&self) -> &HybridKeySwitcher {
        &self.hybrid
    }

    /// Key digits in use at `q_limbs` chain limbs, and the primes of `Q̃` in use.
    fn active(&self, q_limbs: usize) -> (usize, usize) {
        let used = self.ctx.p_len() + q_limbs;
        (used.div_ceil(self.config.r_tilde), used)
    }

    /// For each limb of an accumulator over the first `dl` key digits: `(h, i, t)`, the
    /// output part, the key digit and the `B'` prime.
    fn sum_limbs(&self, dl: usize) -> Vec<(usize, usize, usize)> {
        (0..2)
            .flat_map(|h| {
                self.r_primes[..dl]
                    .iter()
                    .enumerate()
                    .flat_map(move |(i, &r)| (0..r).map(move |t| (h, i, t)))
            })
            .collect()
    }

    /// Expands an ordinary (hybrid) key: `v_{h,j,i} = [u_{h,j}]_{D̃_i}` over `B'`, NTT form.
    pub fn expand(&self, key: &HybridKey, storage: KeyStorage) -> Result<KlssKey> {
        let ctx = &*self.ctx;
        if key.ring_id != ctx.fingerprint() {
            return Err(Error::ParameterMismatch(
                "switching key belongs to another ring".into(),
            ));
        }
        let d = self.dnum();
        if key.digits.len() != d || key.digits.iter().any(|[b, _]| b.q_limbs() != ctx.q_len()) {
            return Err(Error::ParameterMismatch(format!(
                "KLSS expansion needs a full-level hybrid key with {d} digits"
            )));
        }
        let (n, rp, dt, rt) = (ctx.n(), self.r_prime, self.d_tilde, self.config.r_tilde);
        let (l1, k) = (ctx.q_len(), ctx.p_len());
        let lt = l1 + k;
        let pq = pq_order(ctx);
        let rps = &self.r_primes;
        let to_b: Vec<BaseConverter> = pq
            .chunks(rt)
            .zip(rps)
            .map(|(c, &r)| {
                BaseConverter::new(&RnsBasis::from_moduli(c.to_vec()), &b_prefix(&self.aux, r))
            })
            .collect();
        let total: usize = rps.iter().sum();
        let tile = n.min(KEY_TILE);
        let mut data = vec![0u64; 2 * d * total * n];
        for j in 0..d {
            for h in 0..2 {
                // u_{h,j} in coefficient form, limbs in PQ order.
                let mut u = key.digits[j][h].clone();
                u.intt(ctx);
                let mut coeff = vec![0u64; lt * n];
                for t in 0..lt {
                    let src = poly_limb(t, l1, k);
                    coeff[t * n..(t + 1) * n].copy_from_slice(u.limb(src));
                }
                // v_{h,j,i} for every i, limb by limb (output limbs h Σr' .. (h + 1) Σr').
                let mut v = vec![0u64; total * n];
                let mut chunks: Vec<(usize, &mut [u64])> = Vec::with_capacity(dt);
                let mut rest = v.as_mut_slice();
                for (i, &r) in rps.iter().enumerate() {
                    let (chunk, tail) = rest.split_at_mut(r * n);
                    chunks.push((i, chunk));
                    rest = tail;
                }
                let work = |(i, out): &mut (usize, &mut [u64])| {
                    let i = *i;
                    let range = key_digit_primes(i, rt, lt);
                    let mut scratch = vec![0u64; (range.len() + 1) * n];
                    to_b[i].convert(&coeff[range.start * n..range.end * n], out, n, &mut scratch);
                    for (t, limb) in out.chunks_mut(n).enumerate() {
                        self.aux.ntt_plan(t, rp).forward(limb);
                    }
                };
                #[cfg(feature = "parallel")]
                {
                    use rayon::prelude::*;
                    chunks.par_iter_mut().for_each(work);
                }
                #[cfg(not(feature = "parallel"))]
                chunks.iter_mut().for_each(work);
                // Scatter into the tiles (see KlssKey::data), tile by tile.
                let scatter = |(b, block): (usize, &mut [u64])| {
                    for (t, limb) in v.chunks(n).enumerate() {
                        let at = ((h * total + t) * d + j) * tile;
                        block[at..at + tile].copy_from_slice(&limb[b * tile..(b + 1) * tile]);
                    }
                };
                let block = 2 * total * d * tile;
                #[cfg(feature = "parallel")]
                {
                    use rayon::prelude::*;
                    data.par_chunks_mut(block).enumerate().for_each(scatter);
                }
                #[cfg(not(feature = "parallel"))]
                data.chunks_mut(block).enumerate().for_each(scatter);
            }
        }
        Ok(KlssKey {
            ring_id: ctx.fingerprint(),
            engine_id: self.id,
            dnum: d,
            d_tilde: dt,
            r_primes: rps.clone(),
            n,
            tile,
            data,
            seed: key.seed,
            compact: (storage == KeyStorage::ExpandedWithOrdinary).then(|| key.clone()),
        })
    }

    /// The ordinary key an expanded key came from (the kept one, or recovered exactly:
    /// `[u_{0,j}]_{D̃_i}` recombined from `v_{0,j,i}` as in a key switch, and `a_j` from the
    /// seed). This is what serialization writes.
    pub fn contract(&self, key: &KlssKey) -> HybridKey {
        if let Some(k) = &key.compact {
            return k.clone();
        }
        let ctx = &*self.ctx;
        let (n, rp, rt) = (ctx.n(), self.r_prime, self.config.r_tilde);
        let (l1, k) = (ctx.q_len(), ctx.p_len());
        let lt = l1 + k;
        let mut scratch = vec![0u64; (rp + 1) * n];
        let digits = (0..key.dnum)
            .map(|j| {
                let mut b = ctx.zero(l1, k, Form::Coeff);
                for i in 0..self.d_tilde {
                    let range = key_digit_primes(i, rt, lt);
                    let mut v = key.v(0, i, j);
                    for (t, limb) in v.chunks_mut(n).enumerate() {
                        self.aux.ntt_plan(t, rp).inverse(limb);
                    }
                    let mut conv = vec![0u64; range.len() * n];
                    self.recombine[i].convert(&v, &mut conv, n, &mut scratch);
                    for (s, t) in range.enumerate() {
                        let limb = poly_limb(t, l1, k);
                        b.limb_mut(limb).copy_from_slice(&conv[s * n..(s + 1) * n]);
                    }
                }
                b.ntt(ctx);
                [b, expand_uniform(ctx, &key.seed, j as u64, l1, k)]
            })
            .collect();
        HybridKey {
            ring_id: key.ring_id,
            digits,
            seed: key.seed,
        }
    }

    /// Generates an ordinary key and expands it.
    pub fn generate_key_with_storage<R: RngCore + CryptoRng>(
        &self,
        s_from: &Poly,
        sk: &SecretKey,
        storage: KeyStorage,
        rng: &mut R,
    ) -> KlssKey {
        let key = self.hybrid.generate_key(s_from, sk, rng);
        self.expand(&key, storage)
            .expect("a key of this engine's own ring and shape")
    }

    /// Whether `key` was expanded by an engine of this shape.
    pub fn owns(&self, key: &KlssKey) -> bool {
        key.engine_id == self.id && key.ring_id == self.ctx.fingerprint()
    }

    /// Recombines the `B'` sums into `Q̃` (coefficient form) and clears them.
    fn recombine_into(&self, acc: &mut KlssAccumulator) {
        let ctx = &*self.ctx;
        let (n, rp, rt) = (ctx.n(), self.r_prime, self.config.r_tilde);
        let (ql, k) = (acc.q_limbs, ctx.p_len());
        let (dl, used) = self.active(ql);
        let fresh = acc.recombined.is_none();
        let mut out = acc
            .recombined
            .take()
            .unwrap_or_else(|| [0, 1].map(|_| ctx.scratch_poly(ql, k, Form::Coeff)));
        // Inverse NTT of every sum, in place.
        let aux = &*self.aux;
        let (rps, limb_of) = (&self.r_primes[..dl], self.sum_limbs(dl));
        for_each_limb(&mut acc.sums, n, |idx, limb| {
            aux.ntt_plan(limb_of[idx].2, rp).inverse(limb)
        });
        let pool = ctx.pool();
        for (h, poly) in out.iter_mut().enumerate() {
            // Target limbs of key digit i, in PQ order: [i r̃, min((i+1) r̃, used)).
            let data = poly.data_mut();
            let mut conv = pool.take(rt * n);
            let mut scratch = pool.take((rp + 1) * n);
            for (i, &r) in rps.iter().enumerate() {
                let range = key_digit_primes(i, rt, used);
                let m = range.len();
                let at = key_block(rps, h, i) * n;
                let src = &acc.sums[at..at + r * n];
                self.recombine[i].convert(src, &mut conv[..m * n], n, &mut scratch[..(r + 1) * n]);
                for (s, t) in range.enumerate() {
                    let limb = poly_limb(t, ql, k);
                    let dst = &mut data[limb * n..(limb + 1) * n];
                    let c = &conv[s * n..(s + 1) * n];
                    if fresh {
                        dst.copy_from_slice(c);
                    } else {
                        kernels::add_assign(dst, c, ctx.modulus(limb, ql));
                    }
                }
            }
            pool.recycle(conv);
            pool.recycle(scratch);
        }
        acc.recombined = Some(out);
        acc.count = 0;
    }
}

/// `log2` of the bound the `B'` primes of each key digit `i` have to exceed (twice the
/// largest inner-product sum with that digit, whose coefficients are below `B̃_i =
/// D̃_i / 2`): Eq. (5) per digit, or its heuristic counterpart ([`KlssBound`]).
pub(super) fn log_bounds(ctx: &RingContext, dnum: usize, config: &KlssConfig) -> Vec<f64> {
    let pq = pq_order(ctx);
    let l1 = ctx.q_len();
    let alpha = l1.div_ceil(dnum);
    let q = ctx.q().moduli();
    let lg =
        |ms: &[crate::math::Modulus]| -> f64 { ms.iter().map(|m| (m.value() as f64).log2()).sum() };
    // log2 B_j = log2(D_j / 2), log2 B̃_i = log2(D̃_i / 2).
    let log_bj: Vec<f64> = (0..dnum)
        .map(|j| lg(&q[j * alpha..((j + 1) * alpha).min(l1)]) - 1.0)
        .collect();
    let log_n = ctx.n() as f64;
    let acc = config.accumulation as f64;
    let bound = |log_bt: f64| match config.bound {
        KlssBound::WorstCase => {
            // B' > 2 · acc · N · Σ_j B_j · B̃_i  (Eq. (5), with the sum over the digits
            // instead of d · max B_j); Σ_j 2^(b_j) computed as 2^min · Σ 2^(b_j - min).
            let min_b = log_bj.iter().copied().fold(f64::MAX, f64::min);
            let s: f64 = log_bj.iter().map(|&b| 2f64.powf(b - min_b)).sum();
            1.0 + acc.log2() + log_n.log2() + min_b + s.log2() + log_bt
        }
        KlssBound::Heuristic => {
            // |Σ| < t with P <= 2 exp(-2 t² / Σ range²) = 2^-64, range = 2 B_j B̃_i for
            // each of the acc · N terms per digit; B' > 2 t.
            let max_b = log_bj.iter().copied().fold(f64::MIN, f64::max);
            let s: f64 = log_bj.iter().map(|&b| 2f64.powf(2.0 * (b - max_b))).sum();
            let log_sum_range2 =
                2.0 + acc.log2() + log_n.log2() + 2.0 * (max_b + log_bt) + s.log2();
            let log_t = 0.5 * (log_sum_range2 + (65.0 * std::f64::consts::LN_2 / 2.0).log2());
            1.0 + log_t
        }
    };
    pq.chunks(config.r_tilde)
        .map(|c| bound(lg(c) - 1.0))
        .collect()
}

/// The first `r` primes of `B'` (the ring `aux`): the base of a key digit with `r'_i = r`.
fn b_prefix(aux: &RingContext, r: usize) -> RnsBasis {
    RnsBasis::from_moduli(aux.q().moduli()[..r].to_vec())
}

/// The limb of a `Q_l ∪ P` polynomial (chain limbs first) holding prime `t` of the PQ
/// order (special primes first), with `q_limbs` chain and `k` special limbs.
#[inline]
fn poly_limb(t: usize, q_limbs: usize, k: usize) -> usize {
    if t < k {
        q_limbs + t
    } else {
        t - k
    }
}

/// The primes of `Q̃` in PQ order: `p_0 .. p_{k-1}, q_0 .. q_L`.
fn pq_order(ctx: &RingContext) -> Vec<crate::math::Modulus> {
    ctx.p()
        .moduli()
        .iter()
        .chain(ctx.q().moduli())
        .copied()
        .collect()
}

impl KeySwitcher for KlssKeySwitcher {
    type Key = KlssKey;
    type Decomposition = KlssDecomposition;
    type Accumulator = KlssAccumulator;

    fn generate_key<R: RngCore + CryptoRng>(
        &self,
        s_from: &Poly,
        sk: &SecretKey,
        rng: &mut R,
    ) -> KlssKey {
        self.generate_key_with_storage(s_from, sk, KeyStorage::ExpandedOnly, rng)
    }

    fn decompose(&self, c: &Poly) -> KlssDecomposition {
        let ctx = &*self.ctx;
        let (ql, n, rp) = (c.q_limbs(), ctx.n(), self.r_prime);
        debug_assert!(c.form() == Form::Ntt && c.p_limbs() == 0);
        let alpha = self.hybrid.alpha();
        let digits = ql.div_ceil(alpha);
        let pool = ctx.pool();
        let coeff = super::inverse_ntt_copy(ctx, c);
        let mut data = pool.take(digits * rp * n);
        let aux = &*self.aux;
        let coeff_ref = &coeff;
        let lift = |j: usize, out: &mut [u64]| {
            let start = j * alpha;
            let end = ((j + 1) * alpha).min(ql);
            if self.copy_lift {
                // r = 1: b_j = [c]_{q_j} centered; below every B' prime, so its residue
                // mod b is x (x < q/2) or x - q + b.
                let q = ctx.modulus(start, ql).value();
                let half = q >> 1;
                let x = &coeff_ref[start * n..end * n];
                for (t, limb) in out.chunks_mut(n).enumerate() {
                    let b = aux.modulus(t, rp).value();
                    for (o, &v) in limb.iter_mut().zip(x) {
                        // (v > half) as a mask, from shifts and subtractions only: this
                        // vectorizes on the baseline x86-64 target (no 64-bit compares
                        // there), where the plain `if` stayed scalar (15% of a switch).
                        let above = 0u64.wrapping_sub(half.wrapping_sub(v) >> 63);
                        *o = v + ((b - q) & above);
                    }
                }
            } else {
                let conv = &self.lift[j][end - start - 1];
                let mut scratch = pool.take((end - start + 1) * n);
                conv.convert(&coeff_ref[start * n..end * n], out, n, &mut scratch);
                pool.recycle(scratch);
            }
            for (t, limb) in out.chunks_mut(n).enumerate() {
                aux.ntt_plan(t, rp).forward(limb);
            }
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            data.par_chunks_mut(rp * n)
                .enumerate()
                .for_each(|(j, out)| lift(j, out));
        }
        #[cfg(not(feature = "parallel"))]
        data.chunks_mut(rp * n)
            .enumerate()
            .for_each(|(j, out)| lift(j, out));
        pool.recycle(coeff);
        KlssDecomposition {
            q_limbs: ql,
            digits,
            data,
        }
    }

    fn zero_accumulator(&self, q_limbs: usize) -> KlssAccumulator {
        let (dl, _) = self.active(q_limbs);
        let limbs: usize = self.r_primes[..dl].iter().sum();
        let mut sums = self.ctx.pool().take(2 * limbs * self.ctx.n());
        sums.fill(0);
        KlssAccumulator {
            q_limbs,
            count: 0,
            sums,
            recombined: None,
        }
    }

    fn multiply_add(&self, d: &KlssDecomposition, key: &KlssKey, acc: &mut KlssAccumulator) {
        debug_assert!(self.owns(key) && d.q_limbs == acc.q_limbs);
        if acc.count == self.config.accumulation {
            self.recombine_into(acc); // count = 0: the products below overwrite the sums
        }
        let (n, rp) = (self.ctx.n(), self.r_prime);
        let (dl, _) = self.active(acc.q_limbs);
        let aux = &*self.aux;
        let digits = d.digits;
        let first = acc.count == 0;
        let tile = key.tile;
        let total: usize = self.r_primes.iter().sum();
        // Accumulator limb -> (key output limb, B' prime).
        let limb_of: Vec<(usize, usize)> = self
            .sum_limbs(dl)
            .into_iter()
            .map(|(h, i, t)| (key_block(&self.r_primes, h, i) + t, t))
            .collect();
        // Tile by tile, every output of a group of accumulator limbs: the key is read
        // front to back once, the digits' tiles from the cache (see `KlssKey::data`).
        let group = |first_limb: usize, sums: &mut [u64]| {
            let mut a: Vec<&[u64]> = Vec::with_capacity(digits);
            let mut b: Vec<&[u64]> = Vec::with_capacity(digits);
            for tb in 0..n / tile {
                let lo = tb * tile;
                for (g, out) in sums.chunks_mut(n).enumerate() {
                    let (o, t) = limb_of[first_limb + g];
                    a.clear();
                    a.extend((0..digits).map(|j| &d.data[(j * rp + t) * n + lo..][..tile]));
                    b.clear();
                    b.extend(key.tile_terms(tb, o).chunks(tile).take(digits));
                    let out = &mut out[lo..lo + tile];
                    if first {
                        kernels::inner_product(out, &a, &b, aux.modulus(t, rp));
                    } else {
                        kernels::inner_product_add_assign(out, &a, &b, aux.modulus(t, rp));
                    }
                }
            }
        };
        debug_assert_eq!(key.data.len(), 2 * total * key.dnum * n);
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            let per = limb_of.len().div_ceil(rayon::current_num_threads()).max(1);
            acc.sums
                .par_chunks_mut(per * n)
                .enumerate()
                .for_each(|(c, sums)| group(c * per, sums));
        }
        #[cfg(not(feature = "parallel"))]
        group(0, &mut acc.sums);
        acc.count += 1;
    }

    fn mod_down(&self, mut acc: KlssAccumulator) -> [Poly; 2] {
        let ctx = &*self.ctx;
        if acc.count > 0 || acc.recombined.is_none() {
            self.recombine_into(&mut acc);
        }
        ctx.pool().recycle(std::mem::take(&mut acc.sums));
        let recombined = acc.recombined.take().expect("recombined above");
        super::map_pair(recombined, |a| {
            let mut u = a.mod_down_by_p(ctx);
            u.ntt(ctx);
            u
        })
    }

    fn recycle(&self, d: KlssDecomposition) {
        self.ctx.pool().recycle(d.data);
    }

    fn permute(&self, acc: &KlssAccumulator, k: usize) -> KlssAccumulator {
        let ctx = &*self.ctx;
        let n = ctx.n();
        let perm = self.aux.ntt_permutation(k);
        let mut sums = ctx.pool().take(acc.sums.len());
        for (src, dst) in acc.sums.chunks(n).zip(sums.chunks_mut(n)) {
            perm.apply(src, dst);
        }
        let recombined = acc.recombined.as_ref().map(|r| {
            [0, 1].map(|h| {
                let mut out = ctx.scratch_poly(acc.q_limbs, ctx.p_len(), Form::Coeff);
                r[h].automorphism(k, ctx, &mut out);
                out
            })
        });
        KlssAccumulator {
            q_limbs: acc.q_limbs,
            count: acc.count,
            sums,
            recombined,
        }
    }
}
