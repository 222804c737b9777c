//! The key-switching interface and its engines.
//!
//! Every engine splits a key switch `c -> (u0, u1)` into the same three steps:
//!
//! 1. [`KeySwitcher::decompose`]: gadget-decompose `c` (NTT form over `Q_l`) and lift the
//!    digits to the engine's working basis (ModUp for the hybrid engine);
//! 2. [`KeySwitcher::multiply_add`]: inner product of the digits with a switching key,
//!    accumulated (several products may be summed before the last step: double hoisting);
//! 3. [`KeySwitcher::mod_down`]: bring the accumulated pair back to `Q_l` (ModDown by `P`).
//!
//! [`KeySwitcher::switch`] composes them. A decomposition can be reused with many keys
//! (hoisting), and in NTT form an automorphism of the digits is a permutation of their
//! slots, which [`KeySwitcher::permute`] applies.

// The `Auto` engine choice's cost model: public (and hidden from the docs) only for the
// CLI's key-switching benchmark, which prints its predictions beside the measurements.
#[doc(hidden)]
pub mod cost;
mod digits;
mod engine;
mod hybrid;
mod klss;
mod mixed;
mod module;

pub use digits::{digit_margin_bits, DigitPartition};
pub use engine::{
    EngineAccumulator, EngineDecomposition, KeySwitchEngine, KeySwitchMethod, SwitchingKey,
};
pub use hybrid::{HybridDecomposition, HybridKey, HybridKeySwitcher};
pub use klss::{
    KeyStorage, KlssAccumulator, KlssBound, KlssConfig, KlssDecomposition, KlssKey, KlssKeySwitcher,
};
pub use mixed::{LevelSet, MixedKeySwitcher};
pub use module::ModuleKey;

use crate::math::memory::AlignedWords;
use crate::ring::{for_each_limb, Form, Poly, RingContext};
use crate::rlwe::keys::SecretKey;
use rand_chacha::rand_core::{CryptoRng, RngCore};

/// A key-switching engine (see the module documentation for the three steps).
pub trait KeySwitcher: Send + Sync {
    /// The switching key: a gadget encryption of `s'` under `s`.
    type Key;
    /// A decomposed (and lifted) input polynomial.
    type Decomposition;
    /// The inner-product accumulator, before ModDown.
    type Accumulator;

    /// A switching key from `s_from` (NTT form over all of `Q ∪ P`) to `sk`.
    fn generate_key<R: RngCore + CryptoRng>(
        &self,
        s_from: &Poly,
        sk: &SecretKey,
        rng: &mut R,
    ) -> Self::Key;

    /// Step 1: decomposition of `c` over `Q_l`, in either form. An engine working in
    /// coefficient form (KLSS and linear key switching) skips its first `l + 1` inverse
    /// transforms on a coefficient-form input (seed 001 Alg. 5: BFV's `c' <- c_2`); the
    /// hybrid engine needs both forms and pays `l + 1` transforms either way.
    fn decompose(&self, c: &Poly) -> Self::Decomposition;

    /// A zero accumulator for inputs with `q_limbs` chain limbs.
    fn zero_accumulator(&self, q_limbs: usize) -> Self::Accumulator;

    /// Step 2 into a fresh accumulator: `<decomposition, key>` (may skip zeroing).
    fn multiply(
        &self,
        d: &Self::Decomposition,
        key: &Self::Key,
        q_limbs: usize,
    ) -> Self::Accumulator {
        let mut acc = self.zero_accumulator(q_limbs);
        self.multiply_add(d, key, &mut acc);
        acc
    }

    /// Step 2: `acc += <decomposition, key>`.
    fn multiply_add(&self, d: &Self::Decomposition, key: &Self::Key, acc: &mut Self::Accumulator);

    /// Step 3: `(u0, u1)` over `Q_l` in NTT form.
    fn mod_down(&self, acc: Self::Accumulator) -> [Poly; 2] {
        self.mod_down_to(acc, Form::Ntt)
    }

    /// Step 3 into `form`: `(u0, u1)` over `Q_l`. KLSS and linear key switching recombine
    /// in coefficient form, so a coefficient-form exit saves their last `2 (l + 1)`
    /// forward transforms (seed 001 Table II: `6ℓ + 4` against `8ℓ + 4`); the hybrid
    /// engine costs the same either way.
    fn mod_down_to(&self, acc: Self::Accumulator, form: Form) -> [Poly; 2];

    /// Step 3 fused with a rescale (NTT form): `rescale(k u_h + add_h)` for both halves
    /// `u_h` of [`KeySwitcher::mod_down`], an integer `k` and `add` over `Q_l` (`ctx`: the
    /// engine's ring); the results are over `Q_{l-1}`. The words are those of ModDown,
    /// the product by `k`, the addition and [`Poly::divide_round_by_last_q`] in sequence,
    /// which is what this default does; the hybrid engine fuses its ModDown into the
    /// rescale ([`Poly::mod_down_rescale`]: `l + 1` forward NTTs fewer per half), KLSS and
    /// linear key switching rescale their coefficient-form exit
    /// ([`Poly::add_coeff_product_rescale`]: `l + 1` forward NTTs and one inverse fewer).
    /// CKKS's multiply, relinearize and rescale in one step.
    fn mod_down_rescale(
        &self,
        acc: Self::Accumulator,
        k: i64,
        add: [Poly; 2],
        ctx: &RingContext,
    ) -> [Poly; 2] {
        let u = self.mod_down(acc);
        let mut out = add;
        for (o, mut u) in out.iter_mut().zip(u) {
            if k != 1 {
                u.mul_scalar_assign(&ctx.integer_residues(k, u.q_limbs()), ctx);
            }
            o.add_assign(&u, ctx);
            o.divide_round_by_last_q(ctx);
            ctx.recycle(u);
        }
        out
    }

    /// Step 3 for the second half only: `u1` over `Q_l` in NTT form, that half of `acc`
    /// cleared and the first left as it was, so that more products can be added to `acc`
    /// and `u0` brought down later with them (Horner giant steps: a rotation's `u1` is
    /// decomposed by the next rotation, its `u0` only summed).
    fn mod_down_second(&self, acc: &mut Self::Accumulator) -> Poly;

    /// Gives a decomposition's memory back for reuse (dropping it is also fine).
    fn recycle(&self, d: Self::Decomposition) {
        drop(d);
    }

    /// Applies the automorphism `X -> X^k` to an accumulator (NTT form: a permutation).
    fn permute(&self, acc: &Self::Accumulator, k: usize) -> Self::Accumulator;

    /// The whole key switch of `c`, in `c`'s form.
    fn switch(&self, c: &Poly, key: &Self::Key) -> [Poly; 2] {
        let d = self.decompose(c);
        let acc = self.multiply(&d, key, c.q_limbs());
        self.recycle(d);
        self.mod_down_to(acc, c.form())
    }
}

/// Coefficients per tile of the inner products (one 4 KiB page of each term), or `N` if
/// smaller: the engines walk their inner products tile by tile, so that an input tile read
/// from memory serves every output that needs it while it is in the cache. Measured at
/// `N = 2^16` (32 terms of 61-bit primes, 136 outputs, one thread): 128, 256, 1024 and
/// 2048 coefficients were 10-40% slower than 512, and whole limbs 1.2-1.7x slower.
pub(crate) const KEY_TILE: usize = 512;

/// Coefficients per tile of the hybrid engine's inner product (`Σ_j d_j ⊙ k_j[h]`, `β`
/// digits, both halves `h`; [`Backend::inner_product`](crate::rlwe::Backend::inner_product)
/// on the CPU), or `N` if smaller. Its shape is not [`KEY_TILE`]'s: few terms and two
/// outputs, where each key limb is read once and streams from memory. Per tile the kernel
/// walks `3β` streams (the digits, then each half's key); with 4 KiB tiles it changes
/// streams (and pages) every 512 words and reaches less than half the memory bandwidth,
/// with 32 KiB tiles the digits' tiles (`β · 32 KiB`, in L2) serve both halves and the key
/// streams run long. Measured on Zen 4 (one thread, BENCHMARKS.md "Longer tiles in the key
/// switch's inner products"): streamed like a key switch, 60-bit `β = 4` over 24 limbs of
/// `N = 2^16` 0.90 -> 0.73 ns per product, 50-bit `β = 7` over 16 limbs of `2^15` 1.05 ->
/// 0.83 (IFMA); whole bootstraps Set V -5%, Set III -3%; 2,048 to 8,192 coefficients alike,
/// 16,384 slower.
pub(crate) const DIGIT_TILE: usize = 4096;

/// The coefficient form of `c` (NTT form over `Q_l`) in a pooled buffer: the first step of
/// every engine's decomposition.
fn inverse_ntt_copy(ctx: &RingContext, c: &Poly) -> AlignedWords {
    let (ql, n) = (c.q_limbs(), ctx.n());
    let mut coeff = ctx.pool().take(ql * n);
    for_each_limb(&mut coeff, n, |i, limb| {
        limb.copy_from_slice(c.limb(i));
        ctx.ntt_plan(i, ql).inverse(limb)
    });
    coeff
}

/// `f` on both halves of a pair (in parallel with the `parallel` feature): the last step
/// of every engine's ModDown.
fn map_pair(pair: [Poly; 2], f: impl Fn(Poly) -> Poly + Sync) -> [Poly; 2] {
    let [a0, a1] = pair;
    #[cfg(feature = "parallel")]
    {
        let (u0, u1) = rayon::join(|| f(a0), || f(a1));
        [u0, u1]
    }
    #[cfg(not(feature = "parallel"))]
    {
        [f(a0), f(a1)]
    }
}

/// `f(a_h, b_h)` for both halves `h` of two pairs (in parallel with the `parallel`
/// feature): the fused ModDown-and-rescale of both halves with their addends.
fn map_pairs(a: [Poly; 2], b: [Poly; 2], f: impl Fn(Poly, Poly) -> Poly + Sync) -> [Poly; 2] {
    let ([a0, a1], [b0, b1]) = (a, b);
    #[cfg(feature = "parallel")]
    {
        let (u0, u1) = rayon::join(|| f(a0, b0), || f(a1, b1));
        [u0, u1]
    }
    #[cfg(not(feature = "parallel"))]
    {
        [f(a0, b0), f(a1, b1)]
    }
}

#[cfg(test)]
mod level_tests;
#[cfg(test)]
pub(crate) mod tests;
