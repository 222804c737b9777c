//! The expanded KLSS key ([`KlssKey`], tile-major over `B'`), its expansion from an
//! ordinary hybrid key and its contraction back.

use super::config::{b_prefix, key_digit_primes, poly_limb, pq_order};
use super::{KeyStorage, KlssKeySwitcher};
use crate::math::rns::{BaseConverter, RnsBasis};
use crate::math::sample::Seed;
use crate::ring::{Form, Poly};
use crate::rlwe::keys::expand_uniform;
use crate::rlwe::keys::SecretKey;
use crate::rlwe::keyswitch::hybrid::HybridKey;
use crate::rlwe::keyswitch::{KeySwitcher, KEY_TILE};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};

/// An expanded KLSS switching key: `v_{h,j,i}` in NTT form over `B'`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KlssKey {
    /// The [fingerprint](crate::ring::RingContext::fingerprint) of the ring the key belongs to.
    pub ring_id: u64,
    /// The [`KlssKeySwitcher::id`] of the engine that expanded it.
    pub engine_id: u64,
    /// The chain limbs the key covers: always all `L + 1` (KLSS keys are expanded from
    /// full-width ordinary keys only; see [`SwitchingKey::q_limbs`](crate::rlwe::keyswitch::SwitchingKey::q_limbs)).
    pub q_limbs: usize,
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
    pub(super) fn tile_terms(&self, b: usize, o: usize) -> &[u64] {
        let outputs = 2 * self.r_primes.iter().sum::<usize>();
        let len = self.dnum * self.tile;
        let at = (b * outputs + o) * len;
        &self.data[at..at + len]
    }

    /// `v_{h,j,i}` gathered from the tiles: `r'_i` limbs of `N` words (NTT form over the
    /// first `r'_i` primes of `B'`). A device uploads the key term by term.
    pub fn term(&self, h: usize, i: usize, j: usize) -> Vec<u64> {
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

/// The first limb of block `(h, i)` (in units of `d` limbs for a key, of one limb for an
/// accumulator) when the blocks `(0, 0), (0, 1), .., (1, 0), ..` of `r'_i` limbs each
/// follow one another, for the key digits `r_primes` covers.
pub(super) fn key_block(r_primes: &[usize], h: usize, i: usize) -> usize {
    h * r_primes.iter().sum::<usize>() + r_primes[..i].iter().sum::<usize>()
}

impl KlssKeySwitcher {
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
                "KLSS expansion needs a full-width hybrid key ({d} digits over all {} chain \
                 limbs): keys generated for lower levels only serve the hybrid engine",
                ctx.q_len()
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
            q_limbs: l1,
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
                    let mut v = key.term(0, i, j);
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
}
