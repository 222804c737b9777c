//! Hybrid key switching (GHS with Han-Ki's RNS digit decomposition; seed 003 Alg. 3).
//!
//! Parameters: the chain `Q = q_0 .. q_L`, special primes `P = p_0 .. p_{k-1}`, and
//! `dnum` (`β` in seed 003) digits of consecutive primes, `Q_j = prod_{i in D_j} q_i`
//! ([`DigitPartition`]): `α = ceil((L+1) / dnum)` primes each (`D_j = [jα, (j+1)α)`,
//! seed 003's rule), or grouped by bits under `P`.
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
//! **Level-aware keys.** For the same reason a key meant only for levels `<= l` needs only
//! the digits in use there ([`DigitPartition::digits_at`]), each over `Q_l ∪ P` (`P`
//! unchanged): [`HybridKeySwitcher::generate_key_at`] makes it, about `((l + 1) / (L + 1))^2`
//! of the full key's size, and exactly as correct at those levels. A key's width (its
//! [`q_limbs`](HybridKey::q_limbs)) is the chain-limb count of its polynomials; the full
//! key has width `L + 1` and keeps all `dnum` digits (trailing uniform ones empty when
//! `α (dnum - 1) >= L + 1`), see [`HybridKeySwitcher::key_digits`].
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

use super::{DigitPartition, KeySwitcher};
use crate::math::rns::{BaseConverter, RnsBasis};
use crate::math::sample::Seed;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::backend::Backend;
use crate::rlwe::keys::{encrypt_zero_sk, SecretKey};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

/// A hybrid switching key: RLWE pairs over `Q_l ∪ P`, NTT form, one per digit in use at
/// `l + 1` chain limbs (`dnum` pairs over all of `Q ∪ P` for the full key).
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
    /// Size in bytes of the key as stored in memory (both halves of every digit):
    /// `digits · 2 (l + 1 + k) N · 8` for a key of width `l + 1`.
    pub fn size_bytes(&self) -> usize {
        self.digits
            .iter()
            .map(|[b, a]| (b.data().len() + a.data().len()) * 8)
            .sum()
    }

    /// The key's width: the chain limbs `l + 1` it covers (it serves inputs at levels
    /// `<= l`), read off its polynomials; 0 for a key without digits (which covers none).
    pub fn q_limbs(&self) -> usize {
        self.digits.first().map_or(0, |[b, _]| b.q_limbs())
    }

    /// `Ok` if the key has the shape of a key of `ctx` for the gadget's `digits`: a width
    /// `w` in `[1, L + 1]`, [`DigitPartition::key_digits`]`(w)` digits, and both halves of
    /// every digit over `Q_{w-1} ∪ P` (all `k` special limbs) in NTT form. Otherwise the
    /// reason, for an error message.
    pub fn check_shape(
        &self,
        ctx: &RingContext,
        digits: &DigitPartition,
    ) -> std::result::Result<(), String> {
        let (l1, k, w) = (ctx.q_len(), ctx.p_len(), self.q_limbs());
        if w == 0 || w > l1 {
            return Err(format!(
                "its width is {w} chain limbs; a switching key covers 1 to L + 1 = {l1}"
            ));
        }
        let want = digits.key_digits(w);
        if self.digits.len() != want {
            return Err(format!(
                "it has {} digits; a key of width {w} (levels <= {}) with dnum = {} has {want}",
                self.digits.len(),
                w - 1,
                digits.dnum()
            ));
        }
        for (j, pair) in self.digits.iter().enumerate() {
            for p in pair {
                if p.n() != ctx.n() || p.q_limbs() != w || p.p_limbs() != k || p.form() != Form::Ntt
                {
                    return Err(format!(
                        "digit {j} has {} chain and {} special limbs ({:?} form, N = {}); \
                         expected {w} and {k} in NTT form, N = {}",
                        p.q_limbs(),
                        p.p_limbs(),
                        p.form(),
                        p.n(),
                        ctx.n()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// `b += P g_j s'` over `Q_{q_limbs-1}`: `[P]_{q_i} s'` on the primes `digit` of digit `j`
/// (those below `q_limbs`, [`DigitPartition::range`]), zero elsewhere and modulo every
/// special prime. `s'` is in NTT form over at least `q_limbs` chain primes (its limb `i`
/// is read as modulo `q_i`).
pub(super) fn add_gadget_term(
    ctx: &RingContext,
    b: &mut Poly,
    s_from: &Poly,
    digit: std::ops::Range<usize>,
    q_limbs: usize,
) {
    let n = ctx.n();
    for i in digit {
        let qi = ctx.modulus(i, q_limbs);
        let p_mod = ctx.p().product_mod(qi);
        let ps = qi.shoup(p_mod);
        let src = &s_from.data()[i * n..(i + 1) * n];
        for (x, &s) in b.limb_mut(i).iter_mut().zip(src) {
            *x = qi.add(*x, qi.mul_shoup(s, p_mod, ps));
        }
    }
}

/// The hybrid key-switching engine for one ring and one `dnum`.
#[derive(Debug)]
pub struct HybridKeySwitcher {
    ctx: Arc<RingContext>,
    digits: DigitPartition,
    /// `converters[j][s - 1]`: from the first `s` primes of digit `j` to `[P, Q \ digit]`.
    converters: Vec<Vec<BaseConverter>>,
}

impl HybridKeySwitcher {
    /// The engine for `ctx` with `dnum` uniform digits (`1 <= dnum <= L + 1`, and `P`
    /// non-empty: both validated by the scheme parameters).
    pub fn new(ctx: Arc<RingContext>, dnum: usize) -> Self {
        let digits = DigitPartition::uniform(ctx.q_len(), dnum);
        Self::with_digits(ctx, digits)
    }

    /// The engine for `ctx` with the gadget's `digits` (over all of `ctx`'s chain; `P`
    /// non-empty).
    pub fn with_digits(ctx: Arc<RingContext>, digits: DigitPartition) -> Self {
        let l1 = ctx.q_len();
        assert!(digits.chain_len() == l1 && ctx.p_len() > 0);
        let q = ctx.q().moduli();
        let converters = (0..digits.dnum())
            .map(|j| {
                let std::ops::Range { start, end } = digits.range(j, l1);
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
            digits,
            converters,
        }
    }

    /// The ring (chain and special primes) the engine works over.
    pub fn ring(&self) -> &Arc<RingContext> {
        &self.ctx
    }

    /// The number of digits `dnum` (β).
    pub fn dnum(&self) -> usize {
        self.digits.dnum()
    }

    /// The gadget's digits.
    pub fn digits(&self) -> &DigitPartition {
        &self.digits
    }

    /// The most primes in a digit (`α` for uniform digits).
    pub fn alpha(&self) -> usize {
        self.digits.max_primes()
    }

    /// Digits in use at `q_limbs` chain limbs ([`DigitPartition::digits_at`]).
    pub fn digits_at(&self, q_limbs: usize) -> usize {
        self.digits.digits_at(q_limbs)
    }

    /// Digits of a key of width `q_limbs` (for levels `< q_limbs`): all `dnum` for the
    /// full key (`q_limbs = L + 1`), [`digits_at`](Self::digits_at)`(q_limbs)` otherwise.
    pub fn key_digits(&self, q_limbs: usize) -> usize {
        self.digits.key_digits(q_limbs)
    }

    /// Whether `key` is a key of this engine's ring and shape (any width; see
    /// [`HybridKey::check_shape`]).
    pub fn owns(&self, key: &HybridKey) -> bool {
        key.ring_id == self.ctx.fingerprint() && key.check_shape(&self.ctx, &self.digits).is_ok()
    }

    /// Refuses a key width outside `[1, L + 1]`.
    pub(super) fn check_width(&self, q_limbs: usize) -> Result<()> {
        let l1 = self.ctx.q_len();
        if q_limbs == 0 || q_limbs > l1 {
            return Err(Error::LevelMismatch(format!(
                "a switching key for {q_limbs} chain limbs: the chain has 1 to L + 1 = {l1} \
                 (levels 0 to {})",
                l1 - 1
            )));
        }
        Ok(())
    }

    /// A switching key from `s_from` (NTT form over all of `Q ∪ P`) to `sk` for inputs of
    /// at most `q_limbs` chain limbs (levels `< q_limbs`): [`key_digits`](Self::key_digits)
    /// digits over `Q_{q_limbs-1} ∪ P`. `q_limbs = L + 1` is the full key
    /// ([`KeySwitcher::generate_key`]). Errors unless `1 <= q_limbs <= L + 1`.
    pub fn generate_key_at<R: RngCore + CryptoRng>(
        &self,
        s_from: &Poly,
        sk: &SecretKey,
        q_limbs: usize,
        rng: &mut R,
    ) -> Result<HybridKey> {
        self.check_width(q_limbs)?;
        let ctx = &*self.ctx;
        let k = ctx.p_len();
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let digits = (0..self.key_digits(q_limbs))
            .map(|j| {
                let [mut b, a] = encrypt_zero_sk(ctx, sk, q_limbs, k, &seed, j as u64, rng);
                add_gadget_term(ctx, &mut b, s_from, self.digits.range(j, q_limbs), q_limbs);
                [b, a]
            })
            .collect();
        Ok(HybridKey {
            ring_id: ctx.fingerprint(),
            digits,
            seed,
        })
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
        let mut coeff = backend.alloc(q_limbs, 0, Form::Ntt);
        backend.copy(c, &mut coeff);
        backend.inverse_ntt(&mut coeff);
        let digits = self.decompose_both_on(backend, c, &coeff, q_limbs);
        backend.recycle(coeff);
        digits
    }

    /// Step 1 from both forms of `c` (over `Q_l`): `c` in NTT form (the digits' own
    /// limbs) and `coeff` in coefficient form (the base conversions). An input in either
    /// form costs `l + 1` transforms to make the other.
    pub fn decompose_both_on<B: Backend>(
        &self,
        backend: &B,
        c: &B::Poly,
        coeff: &B::Poly,
        q_limbs: usize,
    ) -> Vec<B::Poly> {
        let ql = q_limbs;
        let k = self.ctx.p_len();
        let build = |j: usize| {
            let digit = self.digits.range(j, ql);
            let conv = &self.converters[j][digit.len() - 1];
            let mut d = backend.alloc(ql, k, Form::Ntt);
            backend.mod_up(c, coeff, digit, conv, &mut d);
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
        digits
    }

    /// Step 2 on any [`Backend`]: `acc (+)= <digits, key>` ([`Backend::inner_product`]),
    /// adding when `accumulate`. The key may be wider than the digits (it is used
    /// restricted to their `Q_l ∪ P`), never narrower, and must have a pair per digit:
    /// callers check ([`HybridKey::check_shape`] and the key's width against the level);
    /// a key that does not cover the digits panics rather than give a wrong result.
    pub fn multiply_on<B: Backend>(
        &self,
        backend: &B,
        digits: &[B::Poly],
        key: &[[B::Poly; 2]],
        acc: &mut [B::Poly; 2],
        accumulate: bool,
    ) {
        assert!(
            digits.len() <= key.len(),
            "a switching key with {} digits for {} digits: check the key's level first",
            key.len(),
            digits.len()
        );
        backend.inner_product(digits, key, acc, accumulate);
    }

    /// Step 3 on any [`Backend`]: ModDown of both halves of the accumulator.
    pub fn mod_down_on<B: Backend>(&self, backend: &B, acc: [B::Poly; 2]) -> [B::Poly; 2] {
        backend.mod_down_pair(acc)
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
        self.generate_key_at(s_from, sk, self.ctx.q_len(), rng)
            .expect("the full width is in range")
    }

    fn decompose(&self, c: &Poly) -> HybridDecomposition {
        debug_assert!(c.p_limbs() == 0);
        let ctx = &*self.ctx;
        let digits = match c.form() {
            Form::Ntt => self.decompose_on(ctx, c, c.q_limbs()),
            Form::Coeff => {
                // The digits' own limbs are NTT-form limbs of c: l + 1 forward transforms
                // instead of the inverse ones of an NTT-form input.
                let mut ntt = ctx.scratch_poly(c.q_limbs(), 0, Form::Coeff);
                ntt.data_mut().copy_from_slice(c.data());
                ntt.ntt(ctx);
                let digits = self.decompose_both_on(ctx, &ntt, c, c.q_limbs());
                ctx.recycle(ntt);
                digits
            }
        };
        HybridDecomposition { digits }
    }

    fn zero_accumulator(&self, q_limbs: usize) -> [Poly; 2] {
        let k = self.ctx.p_len();
        [0, 1].map(|_| self.ctx.scratch_zero(q_limbs, k, Form::Ntt))
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

    fn mod_down_to(&self, acc: [Poly; 2], form: Form) -> [Poly; 2] {
        match form {
            Form::Ntt => self.mod_down_on(&*self.ctx, acc),
            // The accumulator's inverse transforms (l + 1 + k) replace the special limbs'
            // inverse and the chain limbs' forward ones (k + l + 1) of the NTT-form exit.
            Form::Coeff => super::map_pair(acc, |mut a| {
                a.intt(&self.ctx);
                a.mod_down_by_p(&self.ctx)
            }),
        }
    }

    fn mod_down_rescale(
        &self,
        acc: [Poly; 2],
        k: i64,
        add: [Poly; 2],
        _: &RingContext,
    ) -> [Poly; 2] {
        let ctx = &*self.ctx;
        super::map_pairs(acc, add, |a, d| {
            let out = a.mod_down_rescale(k, &d, ctx);
            ctx.recycle(d);
            out
        })
    }

    fn mod_down_second(&self, acc: &mut [Poly; 2]) -> Poly {
        let (ql, k) = (acc[1].q_limbs(), self.ctx.p_len());
        let zero = self.ctx.scratch_zero(ql, k, Form::Ntt);
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
