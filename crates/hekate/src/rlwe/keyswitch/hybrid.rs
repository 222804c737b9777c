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

use super::KeySwitcher;
use crate::math::rns::{BaseConverter, RnsBasis};
use crate::math::sample::Seed;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::backend::Backend;
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

    /// Step 1 on any [`Backend`]: the digits of `c` (NTT form over `Q_l`), each lifted
    /// to `Q_l ∪ P` by [`Backend::mod_up`]. [`KeySwitcher::decompose`] is this with the
    /// CPU backend; a device passes its own.
    pub fn decompose_on<B: Backend>(
        &self,
        backend: &B,
        c: &B::Poly,
        q_limbs: usize,
    ) -> Vec<B::Poly> {
        let ql = q_limbs;
        let k = self.ctx.p_len();
        let mut coeff = backend.alloc(ql, 0, Form::Ntt);
        backend.copy(c, &mut coeff);
        backend.inverse_ntt(&mut coeff);
        let build = |j: usize| {
            let start = j * self.alpha;
            let end = ((j + 1) * self.alpha).min(ql);
            let conv = &self.converters[j][end - start - 1];
            let mut d = backend.alloc(ql, k, Form::Ntt);
            backend.mod_up(c, &coeff, start..end, conv, &mut d);
            d
        };
        let beta = self.digits_at(ql);
        #[cfg(feature = "parallel")]
        let digits = {
            use rayon::prelude::*;
            (0..beta).into_par_iter().map(build).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let digits = (0..beta).map(build).collect();
        backend.recycle(coeff);
        digits
    }

    /// Step 2 on any [`Backend`]: `acc (+)= <digits, key>` ([`Backend::inner_product`]),
    /// adding when `accumulate`.
    pub fn multiply_on<B: Backend>(
        &self,
        backend: &B,
        digits: &[B::Poly],
        key: &[[B::Poly; 2]],
        acc: &mut [B::Poly; 2],
        accumulate: bool,
    ) {
        debug_assert!(digits.len() <= key.len());
        backend.inner_product(digits, key, acc, accumulate);
    }

    /// Step 3 on any [`Backend`]: ModDown of both halves of the accumulator.
    pub fn mod_down_on<B: Backend>(&self, backend: &B, acc: [B::Poly; 2]) -> [B::Poly; 2] {
        let [a0, a1] = acc;
        #[cfg(feature = "parallel")]
        {
            let (u0, u1) = rayon::join(|| backend.mod_down(a0), || backend.mod_down(a1));
            [u0, u1]
        }
        #[cfg(not(feature = "parallel"))]
        {
            [backend.mod_down(a0), backend.mod_down(a1)]
        }
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
        debug_assert!(c.form() == Form::Ntt && c.p_limbs() == 0);
        HybridDecomposition {
            digits: self.decompose_on(&*self.ctx, c, c.q_limbs()),
        }
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
        self.multiply_on(&*self.ctx, &d.digits, &key.digits, &mut acc, false);
        acc
    }

    fn multiply_add(&self, d: &HybridDecomposition, key: &HybridKey, acc: &mut [Poly; 2]) {
        self.multiply_on(&*self.ctx, &d.digits, &key.digits, acc, true);
    }

    fn mod_down(&self, acc: [Poly; 2]) -> [Poly; 2] {
        self.mod_down_on(&*self.ctx, acc)
    }

    fn mod_down_second(&self, acc: &mut [Poly; 2]) -> Poly {
        let (ql, k) = (acc[1].q_limbs(), self.ctx.p_len());
        let mut zero = self.ctx.scratch_poly(ql, k, Form::Ntt);
        zero.data_mut().fill(0);
        let a1 = std::mem::replace(&mut acc[1], zero);
        crate::rlwe::backend::Backend::mod_down(&*self.ctx, a1)
    }

    fn permute(&self, acc: &[Poly; 2], k: usize) -> [Poly; 2] {
        let ctx = &*self.ctx;
        let mut out = self.zero_accumulator(acc[0].q_limbs());
        acc[0].automorphism(k, ctx, &mut out[0]);
        acc[1].automorphism(k, ctx, &mut out[1]);
        out
    }
}
