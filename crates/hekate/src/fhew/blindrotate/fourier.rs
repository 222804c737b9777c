//! The blind rotation's gadget products over `f64` ([`crate::math::fourier`]): the keys of
//! a [`BlindRotationKey`] converted once into negacyclic Fourier transforms, and the
//! products of seed 002 (`RLWE ⊗ RGSW`, `R ⊙ RLWE'`, `EvalAuto`, ALTMULT) on them.
//!
//! The products are the same integers as in the NTT path: every key coefficient and gadget
//! digit enters as its centered representative mod `Q`, the FFT computes the integer sums
//! (exactly while [`FourierKeys::supports`] holds, see the bound in
//! [`crate::math::fourier`]), and they are reduced mod `Q` at the end. A test checks each
//! product word for word against the NTT path.
//!
//! Cost per product of a `d_g`-digit key on a coefficient-form input: `d_g` forward
//! transforms and two inverse ones, as in the NTT path; a transform is a complex FFT of
//! `N/2` points instead of an NTT of `N`. `EvalAuto` applies the automorphism to the
//! coefficients (a signed permutation) and key-switches, so an automorphism after a
//! product costs two inverse transforms more than in the NTT path, where the permutation
//! acts on the NTT form.
//!
//! Memory: the converted keys take as many bytes as the NTT-form keys (`N/2` complex
//! doubles against `N` words per polynomial), and are kept beside them; with
//! [`FourierKeys::compact`] the blind-rotation keys take half that (and the products are
//! no longer exact).

use super::{BlindRotationKey, BrkElement, Products};
use crate::math::fourier::{
    mul_acc2, mul_acc2_compact, CompactTransforms, FftScratch, NegacyclicFft, MAX_PRODUCT_BITS,
};
use crate::ring::{Form, RingContext};
use crate::rlwe::gsw::{Gadget, Rgsw, RlweCiphertext, RlwePrime, MAX_GADGET_DIGITS};
use crate::{Error, Result};
use num_complex::Complex64 as C64;

const ZERO: C64 = C64::new(0.0, 0.0);

/// Gadget rows in Fourier form: an `RLWE'` (`d_g` rows) or an RGSW (`2 d_g` rows: those of
/// `RLWE'(z m)`, then those of `RLWE'(m)`), each row the transforms of its `a` and `b`.
#[derive(Clone, Debug)]
struct FourierRows {
    gadget: Gadget,
    parts: RowParts,
}

/// The transforms of [`FourierRows`]: `rows` transforms of `N/2` points for `a`, as many
/// for `b`.
#[derive(Clone, Debug)]
enum RowParts {
    /// In `f64`: the products are exact.
    Exact { a: Vec<C64>, b: Vec<C64> },
    /// In 32-bit fixed point ([`CompactTransforms`]): half the bytes, products off by a
    /// small error (see [`FourierKeys::compact`]).
    Compact {
        a: CompactTransforms,
        b: CompactTransforms,
    },
}

impl FourierRows {
    fn from_primes(primes: &[&RlwePrime], ctx: &RingContext, fft: &NegacyclicFft) -> Self {
        let n = ctx.n();
        let q = ctx.modulus(0, 1).value();
        let rows: usize = primes.iter().map(|p| p.a.len()).sum();
        let (mut a, mut b) = (vec![ZERO; rows * n / 2], vec![ZERO; rows * n / 2]);
        let mut s = fft.scratch();
        let parts = primes.iter().flat_map(|p| p.a.iter().zip(&p.b));
        for ((pa, pb), (oa, ob)) in
            parts.zip(a.chunks_exact_mut(n / 2).zip(b.chunks_exact_mut(n / 2)))
        {
            for (p, o) in [(pa, oa), (pb, ob)] {
                let mut c = p.clone();
                c.intt(ctx);
                fft.forward_mod(c.data(), q, o, &mut s);
            }
        }
        FourierRows {
            gadget: primes[0].gadget,
            parts: RowParts::Exact { a, b },
        }
    }

    /// These rows in 32-bit fixed point (one scale for `a` and `b`).
    fn compact(self) -> Self {
        let parts = match self.parts {
            RowParts::Exact { a, b } => {
                let [a, b]: [CompactTransforms; 2] = CompactTransforms::quantize(&[&a, &b])
                    .try_into()
                    .expect("two sets in, two out");
                RowParts::Compact { a, b }
            }
            compact => compact,
        };
        FourierRows { parts, ..self }
    }

    /// Points of all the transforms of `a`.
    fn points(&self) -> usize {
        match &self.parts {
            RowParts::Exact { a, .. } => a.len(),
            RowParts::Compact { a, .. } => a.len(),
        }
    }

    fn rows(&self, n: usize) -> usize {
        2 * self.points() / n
    }

    fn memory_bytes(&self) -> usize {
        let per_point = match self.parts {
            RowParts::Exact { .. } => 16,
            RowParts::Compact { .. } => 8,
        };
        2 * per_point * self.points()
    }

    /// `(out_a, out_b) (+)= Σ_r x_r (a_r, b_r)` over the rows `x` covers.
    fn mul_acc(&self, out_a: &mut [C64], out_b: &mut [C64], x: &[C64], accumulate: bool) {
        match &self.parts {
            RowParts::Exact { a, b } => mul_acc2(out_a, out_b, x, a, b, accumulate),
            RowParts::Compact { a, b } => mul_acc2_compact(out_a, out_b, x, a, b, accumulate),
        }
    }
}

/// A [`BlindRotationKey`]'s keys in Fourier form (built by [`FourierKeys::new`]).
#[derive(Clone, Debug)]
pub struct FourierKeys {
    fft: NegacyclicFft,
    /// `Q`.
    q: u64,
    keys: Vec<FourierRows>,
    z2: Option<FourierRows>,
    auto: Vec<FourierRows>,
}

/// Reusable buffers of the Fourier products (one per evaluator).
#[derive(Debug)]
pub struct FourierScratch {
    fft: FftScratch,
    /// The transforms of gadget digits.
    digits_f: Vec<C64>,
    /// Two output transforms, and two more for ALTMULT.
    out: [Vec<C64>; 4],
    /// A coefficient-form temporary.
    u: Vec<u64>,
    /// The blind rotation's second accumulator.
    pub(super) tmp: RlweCiphertext,
}

impl FourierKeys {
    /// Whether the Fourier products of `key` are exact (the worst-case product bound of
    /// [`crate::math::fourier`] at most [`MAX_PRODUCT_BITS`] bits, for the largest gadget
    /// base and digit count of any key), and the ring degree is a power of two of at least
    /// 16.
    pub fn supports(key: &BlindRotationKey, ctx: &RingContext) -> bool {
        Self::product_bits(key, ctx).is_some_and(|b| b <= MAX_PRODUCT_BITS)
    }

    /// The worst-case product size in bits (`None` if the degree has no transform).
    pub fn product_bits(key: &BlindRotationKey, ctx: &RingContext) -> Option<u32> {
        let n = ctx.n();
        if !n.is_power_of_two() || n < 16 {
            return None;
        }
        let q = ctx.modulus(0, 1).value();
        let gadgets = key
            .keys
            .iter()
            .map(|k| match k {
                BrkElement::Rgsw(r) => (r.gadget(), 2),
                BrkElement::Prime(p) => (p.gadget, 1),
            })
            .chain(key.z2.iter().map(|p| (p.gadget, 1)))
            .chain(key.auto.iter().map(|k| (k.key.gadget, 1)));
        gadgets
            .map(|(g, parts)| {
                NegacyclicFft::product_bits(n, parts * g.digits(), g.base() / 2, q / 2)
            })
            .max()
    }

    /// Converts the keys of `key` (ring `ctx`).
    pub fn new(key: &BlindRotationKey, ctx: &RingContext) -> Result<Self> {
        if !Self::supports(key, ctx) {
            return Err(Error::InvalidParameters(format!(
                "the Fourier products would not be exact here: worst case 2^{} against at \
                 most 2^{MAX_PRODUCT_BITS} (Q = {}, N = {}); use the NTT products",
                Self::product_bits(key, ctx).unwrap_or(u32::MAX),
                ctx.modulus(0, 1).value(),
                ctx.n()
            )));
        }
        let fft = NegacyclicFft::new(ctx.n())?;
        let rgsw = |r: &Rgsw| FourierRows::from_primes(&[&r.zm, &r.m], ctx, &fft);
        let keys = key
            .keys
            .iter()
            .map(|k| match k {
                BrkElement::Rgsw(r) => rgsw(r),
                BrkElement::Prime(p) => FourierRows::from_primes(&[p], ctx, &fft),
            })
            .collect();
        let z2 = key
            .z2
            .as_ref()
            .map(|p| FourierRows::from_primes(&[p], ctx, &fft));
        let auto = key
            .auto
            .iter()
            .map(|k| FourierRows::from_primes(&[&k.key], ctx, &fft))
            .collect();
        Ok(FourierKeys {
            fft,
            q: ctx.modulus(0, 1).value(),
            keys,
            z2,
            auto,
        })
    }

    /// These keys with the blind-rotation keys (and ALTMULT's `RLWE'(z^2)`) in 32-bit fixed
    /// point ([`CompactTransforms`]): they are what a blind rotation streams from memory
    /// (an RGSW key per step), and this halves it. The automorphism keys stay in `f64`
    /// (few are used per rotation, and they stay in cache).
    ///
    /// The products are then not exact. Quantizing a row's transforms with 31 bits for
    /// its largest part leaves its polynomial off by `δ ≈ 0.4 Q 2^-31` per coefficient in
    /// root mean square ([`CompactTransforms`]), which the product sees as extra key
    /// noise `δ_b + δ_a z`: variance about `δ² (1 + ‖z‖²)` against the key's `σ²`. At
    /// OpenFHE's STD128 sets (`Q ≈ 2^27`, `N = 1024`, ternary `z`: `δ ≈ 0.025`,
    /// `δ² ‖z‖² ≈ 0.42` against `σ² = 10.2`) that is about 4% more `σ_acc²` (2-4%
    /// measured); `hekate bench fhew --products compact` measures it.
    pub fn compact(self) -> Self {
        FourierKeys {
            keys: self.keys.into_iter().map(FourierRows::compact).collect(),
            z2: self.z2.map(FourierRows::compact),
            ..self
        }
    }

    /// Whether the blind-rotation keys are in 32-bit fixed point ([`FourierKeys::compact`]).
    pub fn is_compact(&self) -> bool {
        self.keys
            .first()
            .is_some_and(|k| matches!(k.parts, RowParts::Compact { .. }))
    }

    /// Bytes of the converted keys.
    pub fn memory_bytes(&self) -> usize {
        let rows = self.keys.iter().chain(&self.z2).chain(&self.auto);
        rows.map(FourierRows::memory_bytes).sum()
    }

    /// Buffers for these keys.
    pub fn scratch(&self, ctx: &RingContext) -> FourierScratch {
        let n = ctx.n();
        FourierScratch {
            fft: self.fft.scratch(),
            digits_f: vec![ZERO; MAX_GADGET_DIGITS * n],
            out: std::array::from_fn(|_| vec![ZERO; n / 2]),
            u: vec![0; n],
            tmp: RlweCiphertext::zero(ctx, Form::Coeff),
        }
    }

    /// The transforms of the gadget digits of `parts` (concatenated) into
    /// `s.digits_f[..rows N/2]`; returns `rows`.
    fn digit_transforms(&self, g: Gadget, parts: &[&[u64]], s: &mut FourierScratch) -> usize {
        let m = self.fft.len();
        let d = g.digits();
        for (p, o) in parts.iter().zip(s.digits_f.chunks_exact_mut(d * m)) {
            self.fft
                .forward_digits(p, g.q(), g.log_base(), d, o, &mut s.fft);
        }
        parts.len() * d
    }

    /// `(s.out[0], s.out[1])` = the transforms of `(acc.a, acc.b) ⊗ keys[k]` (RGSW) or
    /// of ALTMULT with `keys[k]` (RLWE'), for `acc` in coefficient form.
    fn product(&self, k: usize, acc: &RlweCiphertext, s: &mut FourierScratch) {
        let key = &self.keys[k];
        let n = self.fft.n();
        let g = key.gadget;
        if key.rows(n) == 2 * g.digits() {
            let rows = self.digit_transforms(g, &[acc.a.data(), acc.b.data()], s);
            let [oa, ob, ..] = &mut s.out;
            key.mul_acc(oa, ob, &s.digits_f[..rows * n / 2], false);
            return;
        }
        // ALTMULT (Alg. 6): (a', b') = a ⊙ RLWE'(m); res = a' ⊙ RLWE'(z^2) + (b', 0)
        // + b ⊙ RLWE'(m).
        let z2 = self.z2.as_ref().expect("ALTMULT keys carry RLWE'(z^2)");
        let rows = self.digit_transforms(g, &[acc.a.data()], s);
        {
            let [_, _, ta, tb] = &mut s.out;
            key.mul_acc(ta, tb, &s.digits_f[..rows * n / 2], false);
        }
        self.fft
            .inverse_mod(&mut s.out[2], g.q(), &mut s.u, &mut s.fft);
        let u = std::mem::take(&mut s.u);
        let rows = self.digit_transforms(z2.gadget, &[&u], s);
        s.u = u;
        let [oa, ob, _, tb] = &mut s.out;
        z2.mul_acc(oa, ob, &s.digits_f[..rows * n / 2], false);
        oa.iter_mut().zip(tb.iter()).for_each(|(x, y)| *x += y);
        let rows = self.digit_transforms(g, &[acc.b.data()], s);
        let [oa, ob, ..] = &mut s.out;
        key.mul_acc(oa, ob, &s.digits_f[..rows * n / 2], true);
    }

    /// `(s.out[0], s.out[1]) ← EvalAuto_t` of themselves with `auto[i]` (`ak_t`), in the
    /// Fourier domain: the automorphism permutes the points, and only `ψ_t(a)` returns
    /// to coefficients for its digits.
    fn eval_auto(&self, i: usize, t: usize, s: &mut FourierScratch) {
        let key = &self.auto[i];
        let n = self.fft.n();
        let q = key.gadget.q();
        {
            let [oa, ob, ta, tb] = &mut s.out;
            self.fft.automorphism(t, [oa, ob], [ta, tb]);
        }
        self.fft.inverse_mod(&mut s.out[2], q, &mut s.u, &mut s.fft);
        let u = std::mem::take(&mut s.u);
        let rows = self.digit_transforms(key.gadget, &[&u], s);
        s.u = u;
        // ψ(b) becomes the output's b (a buffer swap, no copy).
        s.out.swap(1, 3);
        let [oa, ob, ..] = &mut s.out;
        oa.fill(ZERO);
        key.mul_acc(oa, ob, &s.digits_f[..rows * n / 2], true);
    }

    /// `out` = the polynomials of `(s.out[0], s.out[1])`.
    fn finish(&self, out: &mut RlweCiphertext, s: &mut FourierScratch) {
        let q = self.q;
        let [oa, ob, ..] = &mut s.out;
        self.fft.inverse_mod(oa, q, out.a.data_mut(), &mut s.fft);
        self.fft.inverse_mod(ob, q, out.b.data_mut(), &mut s.fft);
        out.a.set_form(Form::Coeff);
        out.b.set_form(Form::Coeff);
    }
}

/// [`Products`] over the Fourier keys.
pub(super) struct FourierProducts<'a> {
    pub(super) brk: &'a BlindRotationKey,
    pub(super) keys: &'a FourierKeys,
    pub(super) scratch: &'a mut FourierScratch,
}

impl Products for FourierProducts<'_> {
    fn product(&mut self, k: usize, acc: &RlweCiphertext, out: &mut RlweCiphertext) {
        self.keys.product(k, acc, self.scratch);
        self.keys.finish(out, self.scratch);
    }

    fn product_auto(&mut self, k: usize, t: usize, acc: &RlweCiphertext, out: &mut RlweCiphertext) {
        let (keys, s) = (self.keys, &mut *self.scratch);
        keys.product(k, acc, s);
        self.brk.auto_chain(t, |i, ti| keys.eval_auto(i, ti, s));
        keys.finish(out, s);
    }
}
