//! Hybrid key switching (GHS with Han-Ki's RNS digit decomposition; seed 003 Alg. 3).
//!
//! Parameters: the chain `Q = q_0 .. q_L`, special primes `P = p_0 .. p_{k-1}`, and
//! `dnum` (`β` in seed 003) digits of `α = ceil((L+1) / dnum)` consecutive primes each:
//! digit `j` is `Q_j = prod_{i in [jα, (j+1)α)} q_i`.
//!
//! **Key.** For `j < dnum`, with `a_j` uniform (expanded from a seed) and `e_j` Gaussian,
//!
//! ```text
//! swk_j = ( -a_j s + e_j + P · g_j · s' ,  a_j )  over Q ∪ P,   g_j = (Q/Q_j) [(Q/Q_j)^-1]_{Q_j}
//! ```
//!
//! Modulo `q_i` the gadget factor `P g_j` is `[P]_{q_i}` when `q_i` is in digit `j`, zero
//! otherwise, and zero modulo every `p`. At level `l` (`l + 1` chain limbs) the key is used
//! restricted to `Q_l ∪ P` and the digits restricted to the primes below `l` (the last
//! digit may be partial, and digits beyond `l` vanish); `g_j` restricted that way is still
//! the CRT idempotent of `Q_l`, so nothing is regenerated per level.
//!
//! **Switch** of `c` (NTT form over `Q_l`):
//!
//! 1. *ModUp*: `d_j = [c]_{Q_j}` lifted exactly to `Q_l ∪ P` (the digit's own limbs are
//!    the input's NTT limbs; the others are a fast base conversion followed by an NTT).
//! 2. *Inner product*: `(acc0, acc1) = sum_j d_j · swk_j` over `Q_l ∪ P`, with the sum over
//!    digits kept in 128 bits and reduced once.
//! 3. *ModDown*: `u_t = round(acc_t / P)` over `Q_l`.
//!
//! Then `u0 + u1 s = c s' + e_ks` with `e_ks = (sum_j d_j e_j) / P + rounding`, small when
//! `P` is at least as large as every digit `Q_j`.

use super::{KeySwitcher, KEY_TILE};
use crate::math::kernels;
use crate::math::rns::{BaseConverter, RnsBasis};
use crate::math::sample::Seed;
use crate::ring::{for_each_limb, Form, Poly, RingContext};
use crate::rlwe::keys::{encrypt_zero_sk, SecretKey};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

/// A hybrid switching key: `dnum` RLWE pairs over all of `Q ∪ P`, NTT form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HybridKey {
    /// The [fingerprint](RingContext::fingerprint) of the ring the key belongs to.
    pub ring_id: u64,
    /// `(b_j, a_j)` for each digit `j`.
    pub digits: Vec<[Poly; 2]>,
    /// The seed every `a_j` is expanded from (stream `j`).
    pub seed: Seed,
}

impl HybridKey {
    /// Size in bytes of the key as stored in memory (both halves of every digit).
    pub fn size_bytes(&self) -> usize {
        self.digits
            .iter()
            .map(|[b, a]| (b.data().len() + a.data().len()) * 8)
            .sum()
    }
}

/// The hybrid key-switching engine for one ring and one `dnum`.
#[derive(Debug)]
pub struct HybridKeySwitcher {
    ctx: Arc<RingContext>,
    dnum: usize,
    alpha: usize,
    /// `converters[j][s - 1]`: from the first `s` primes of digit `j` to `[P, Q \ digit]`.
    converters: Vec<Vec<BaseConverter>>,
}

impl HybridKeySwitcher {
    /// The engine for `ctx` with `dnum` digits (`1 <= dnum <= L + 1`, and `P` non-empty:
    /// both validated by the scheme parameters).
    pub fn new(ctx: Arc<RingContext>, dnum: usize) -> Self {
        let l1 = ctx.q_len();
        assert!(dnum >= 1 && dnum <= l1 && ctx.p_len() > 0);
        let alpha = l1.div_ceil(dnum);
        let q = ctx.q().moduli();
        let converters = (0..dnum)
            .map(|j| {
                let start = j * alpha;
                let end = ((j + 1) * alpha).min(l1);
                (1..=end.saturating_sub(start))
                    .map(|s| {
                        let from = RnsBasis::from_moduli(q[start..start + s].to_vec());
                        let to: Vec<_> = ctx
                            .p()
                            .moduli()
                            .iter()
                            .chain(q[..start].iter())
                            .chain(q[end..].iter())
                            .copied()
                            .collect();
                        BaseConverter::new(&from, &RnsBasis::from_moduli(to))
                    })
                    .collect()
            })
            .collect();
        HybridKeySwitcher {
            ctx,
            dnum,
            alpha,
            converters,
        }
    }

    /// The number of digits `dnum` (β).
    pub fn dnum(&self) -> usize {
        self.dnum
    }

    /// Primes per digit, `α`.
    pub fn alpha(&self) -> usize {
        self.alpha
    }

    /// Digits in use at `q_limbs` chain limbs.
    pub fn digits_at(&self, q_limbs: usize) -> usize {
        q_limbs.div_ceil(self.alpha)
    }

    /// Limb index in the full key (`Q` then `P`) of limb `t` of a `Q_l ∪ P` polynomial.
    #[inline]
    fn key_limb(&self, t: usize, q_limbs: usize) -> usize {
        if t < q_limbs {
            t
        } else {
            self.ctx.q_len() + (t - q_limbs)
        }
    }

    /// `acc [+]= <d, key>` over `Q_l ∪ P` (`ACC = false` overwrites `acc`).
    ///
    /// Limb by limb, and within a limb tile by tile ([`KEY_TILE`] coefficients): both
    /// halves of a tile in a row, so the digits' tile is read from memory once for the
    /// two of them (half by half over whole limbs, the digits were streamed twice).
    fn inner_product<const ACC: bool>(
        &self,
        d: &HybridDecomposition,
        key: &HybridKey,
        acc: &mut [Poly; 2],
    ) {
        let ctx = &*self.ctx;
        let ql = acc[0].q_limbs();
        let n = ctx.n();
        let tile = n.min(KEY_TILE);
        let beta = d.digits.len();
        debug_assert!(beta <= key.digits.len() && beta < 64);
        let [acc0, acc1] = acc;
        crate::ring::for_each_limb_pair(acc0.data_mut(), acc1.data_mut(), n, |t, l0, l1| {
            let kt = self.key_limb(t, ql);
            let q = ctx.modulus(t, ql);
            let mut a: Vec<&[u64]> = Vec::with_capacity(beta);
            let mut b: Vec<&[u64]> = Vec::with_capacity(beta);
            for lo in (0..n).step_by(tile) {
                let r = lo..lo + tile;
                a.clear();
                a.extend(d.digits.iter().map(|p| &p.limb(t)[r.clone()]));
                for (half, out) in [(0, &mut *l0), (1, &mut *l1)] {
                    b.clear();
                    b.extend(
                        key.digits[..beta]
                            .iter()
                            .map(|k| &k[half].limb(kt)[r.clone()]),
                    );
                    if ACC {
                        kernels::inner_product_add_assign(&mut out[r.clone()], &a, &b, q);
                    } else {
                        kernels::inner_product(&mut out[r.clone()], &a, &b, q);
                    }
                }
            }
        });
    }
}

/// The digits of a hybrid decomposition: `d_j` over `Q_l ∪ P`, NTT form.
#[derive(Clone, Debug)]
pub struct HybridDecomposition {
    /// One polynomial per digit.
    pub digits: Vec<Poly>,
}

impl KeySwitcher for HybridKeySwitcher {
    type Key = HybridKey;
    type Decomposition = HybridDecomposition;
    type Accumulator = [Poly; 2];

    fn generate_key<R: RngCore + CryptoRng>(
        &self,
        s_from: &Poly,
        sk: &SecretKey,
        rng: &mut R,
    ) -> HybridKey {
        let ctx = &*self.ctx;
        let (l1, k) = (ctx.q_len(), ctx.p_len());
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let n = ctx.n();
        let digits = (0..self.dnum)
            .map(|j| {
                let [mut b, a] = encrypt_zero_sk(ctx, sk, l1, k, &seed, j as u64, rng);
                for i in j * self.alpha..((j + 1) * self.alpha).min(l1) {
                    let qi = ctx.modulus(i, l1);
                    let p_mod = ctx.p().product_mod(qi);
                    let ps = qi.shoup(p_mod);
                    let src = &s_from.data()[i * n..(i + 1) * n];
                    for (x, &s) in b.limb_mut(i).iter_mut().zip(src) {
                        *x = qi.add(*x, qi.mul_shoup(s, p_mod, ps));
                    }
                }
                [b, a]
            })
            .collect();
        HybridKey {
            ring_id: ctx.fingerprint(),
            digits,
            seed,
        }
    }

    fn decompose(&self, c: &Poly) -> HybridDecomposition {
        let ctx = &*self.ctx;
        let (ql, k, n) = (c.q_limbs(), ctx.p_len(), ctx.n());
        debug_assert!(c.form() == Form::Ntt && c.p_limbs() == 0);
        let pool = ctx.pool();
        let coeff = super::inverse_ntt_copy(ctx, c);
        let beta = self.digits_at(ql);
        let coeff_ref = &coeff;
        let build = |j: usize| {
            let start = j * self.alpha;
            let end = ((j + 1) * self.alpha).min(ql);
            let size = end - start;
            let conv = &self.converters[j][size - 1];
            // Targets: P, then chain primes below the digit, then those above it (up to
            // l): three target ranges converted straight into their places in `d`.
            let mut scratch = pool.take((size + 1) * n);
            let input = &coeff_ref[start * n..end * n];
            let mut d = ctx.scratch_poly(ql, k, Form::Ntt);
            {
                let data = d.data_mut();
                let (below, rest) = data.split_at_mut(start * n);
                let (_, above_and_p) = rest.split_at_mut(size * n);
                let (above, p_limbs) = above_and_p.split_at_mut((ql - end) * n);
                conv.convert_range(input, p_limbs, 0, n, &mut scratch);
                conv.convert_range(input, below, k, n, &mut scratch);
                conv.convert_range(input, above, k + start, n, &mut scratch);
            }
            pool.recycle(scratch);
            // The digit's own limbs are the input's NTT limbs; the others are transformed.
            for_each_limb(d.data_mut(), n, |t, limb| {
                if (start..end).contains(&t) {
                    limb.copy_from_slice(c.limb(t));
                } else {
                    ctx.ntt_plan(t, ql).forward(limb);
                }
            });
            d
        };
        #[cfg(feature = "parallel")]
        let digits = {
            use rayon::prelude::*;
            (0..beta).into_par_iter().map(build).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let digits = (0..beta).map(build).collect();
        pool.recycle(coeff);
        HybridDecomposition { digits }
    }

    fn zero_accumulator(&self, q_limbs: usize) -> [Poly; 2] {
        let k = self.ctx.p_len();
        [0, 1].map(|_| {
            let mut p = self.ctx.scratch_poly(q_limbs, k, Form::Ntt);
            p.data_mut().fill(0);
            p
        })
    }

    fn recycle(&self, d: HybridDecomposition) {
        d.digits.into_iter().for_each(|p| self.ctx.recycle(p));
    }

    fn multiply(&self, d: &HybridDecomposition, key: &HybridKey, q_limbs: usize) -> [Poly; 2] {
        let k = self.ctx.p_len();
        let mut acc = [0, 1].map(|_| self.ctx.scratch_poly(q_limbs, k, Form::Ntt));
        self.inner_product::<false>(d, key, &mut acc);
        acc
    }

    fn multiply_add(&self, d: &HybridDecomposition, key: &HybridKey, acc: &mut [Poly; 2]) {
        self.inner_product::<true>(d, key, acc);
    }

    fn mod_down(&self, acc: [Poly; 2]) -> [Poly; 2] {
        let ctx = &*self.ctx;
        super::map_pair(acc, |a| a.mod_down_by_p(ctx))
    }

    fn permute(&self, acc: &[Poly; 2], k: usize) -> [Poly; 2] {
        let ctx = &*self.ctx;
        let mut out = self.zero_accumulator(acc[0].q_limbs());
        acc[0].automorphism(k, ctx, &mut out[0]);
        acc[1].automorphism(k, ctx, &mut out[1]);
        out
    }
}
