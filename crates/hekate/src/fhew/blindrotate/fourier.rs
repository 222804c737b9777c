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
//! **Approximate gadget decomposition** ([`GadgetDecomposition::Approximate`]). The lowest
//! signed digit of `x` is `x - B_g round(x / B_g)` (ties up), and the other `d_g - 1` are
//! the digits of `round(x / B_g)`, so leaving the lowest digit's row out of a product
//! computes it on `B_g round(x / B_g)` instead of `x`: `d_g - 1` transforms and rows
//! instead of `d_g`. The product is off by `ε · (z m)` for the `a` half and `ε · m` for
//! the `b` half, where `ε = x - B_g round(x / B_g)` is uniform in `[-B_g/2, B_g/2)`:
//! variance `(B_g^2 / 12)(‖z‖^2 + 1)` per RGSW product with a monomial `m` (seed 002's
//! Alg. 3-5 and GINX), `(B_g^2 / 12) ‖z‖^2` per key switch. The row left out would have
//! added `N (B_g^2 / 12) σ^2` (its share of `σ_⊙^2 = d_g N (B_g^2 / 12) σ^2`, §4.2). With
//! ternary `z` (`‖z‖^2 ≈ 2N/3`) and `σ = 3.19`, the rounding adds `N σ^2 / ‖z‖^2 ≈ 15`
//! times less than the row removes: the blind rotation gets *less* noisy and about a
//! third cheaper where `d_g = 3`. Leaving out a second digit would add `B_g^2` times more
//! than the first, far more than it removes, so exactly one digit is dropped, and only
//! from the RGSW and automorphism keys: in ALTMULT (Alg. 6) the rounding error of `a`
//! would be multiplied by `z^2`.
//!
//! Memory: the converted keys take as many bytes as the NTT-form keys (`N/2` complex
//! doubles against `N` words per polynomial), and are kept beside them; with
//! [`FourierKeys::compact`] the blind-rotation keys take half that (and the products are
//! no longer exact); with [`GadgetDecomposition::Approximate`] the RGSW and automorphism
//! keys keep `d_g - 1` of their `d_g` rows.

use super::{BlindRotationKey, BrkElement, Products};
use crate::math::fourier::{
    mul_acc2, mul_acc2_compact, CompactTransforms, FftScratch, NegacyclicFft, MAX_PRODUCT_BITS,
};
use crate::ring::{Form, RingContext};
use crate::rlwe::gsw::{Gadget, RlweCiphertext, RlwePrime, MAX_GADGET_DIGITS};
use crate::{Error, Result};
use num_complex::Complex64 as C64;

const ZERO: C64 = C64::new(0.0, 0.0);

/// How the blind rotation's Fourier products decompose into gadget digits (see the module
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GadgetDecomposition {
    /// Every digit: the products of seed 002 and OpenFHE, word for word those of the NTT.
    Exact,
    /// The lowest digit of the RGSW and automorphism products rounded away: a third fewer
    /// transforms and key bytes per step at `d_g = 3`, and less noise (the module
    /// documentation has the variances).
    Approximate,
}

/// Gadget rows in Fourier form: an `RLWE'` (`d_g - skip` rows) or an RGSW (`2 (d_g -
/// skip)` rows: those of `RLWE'(z m)`, then those of `RLWE'(m)`), each row the transforms
/// of its `a` and `b`; the rows of the lowest `skip` digits are left out.
#[derive(Clone, Debug)]
struct FourierRows {
    gadget: Gadget,
    /// Lowest digits left out (0, or 1 with [`GadgetDecomposition::Approximate`]).
    skip: usize,
    /// An RGSW (else an `RLWE'`).
    rgsw: bool,
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
    /// The rows of one `RLWE'` or of an RGSW's two (`[zm, m]`), without those of the
    /// lowest `skip` digits.
    fn from_primes(
        primes: &[&RlwePrime],
        skip: usize,
        ctx: &RingContext,
        fft: &NegacyclicFft,
    ) -> Self {
        let n = ctx.n();
        let q = ctx.modulus(0, 1).value();
        let rows: usize = primes.iter().map(|p| p.a.len() - skip).sum();
        let (mut a, mut b) = (vec![ZERO; rows * n / 2], vec![ZERO; rows * n / 2]);
        let mut s = fft.scratch();
        let parts = primes
            .iter()
            .flat_map(|p| p.a[skip..].iter().zip(&p.b[skip..]));
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
            skip,
            rgsw: primes.len() == 2,
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
    decomposition: GadgetDecomposition,
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

    /// Converts the keys of `key` (ring `ctx`), for the exact products.
    pub fn new(key: &BlindRotationKey, ctx: &RingContext) -> Result<Self> {
        Self::with_decomposition(key, ctx, GadgetDecomposition::Exact)
    }

    /// Converts the keys of `key` (ring `ctx`) for the products of `decomposition`: with
    /// [`GadgetDecomposition::Approximate`], the rows of the lowest digit of the RGSW and
    /// automorphism keys are left out (they are not needed), where their gadget has at
    /// least two digits.
    pub fn with_decomposition(
        key: &BlindRotationKey,
        ctx: &RingContext,
        decomposition: GadgetDecomposition,
    ) -> Result<Self> {
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
        let skip = |g: Gadget| match decomposition {
            GadgetDecomposition::Approximate if g.digits() > 1 => 1,
            _ => 0,
        };
        let rows = |ps: &[&RlwePrime], skip| FourierRows::from_primes(ps, skip, ctx, &fft);
        let keys = key
            .keys
            .iter()
            .map(|k| match k {
                BrkElement::Rgsw(r) => rows(&[&r.zm, &r.m], skip(r.gadget())),
                BrkElement::Prime(p) => rows(&[p], 0),
            })
            .collect();
        let z2 = key.z2.as_ref().map(|p| rows(&[p], 0));
        let auto = key
            .auto
            .iter()
            .map(|k| rows(&[&k.key], skip(k.key.gadget)))
            .collect();
        Ok(FourierKeys {
            fft,
            q: ctx.modulus(0, 1).value(),
            keys,
            z2,
            auto,
            decomposition,
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

    /// The decomposition these keys were converted for.
    pub fn decomposition(&self) -> GadgetDecomposition {
        self.decomposition
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

    /// The transforms of the gadget digits of `parts` (concatenated) that `key`'s rows
    /// take (all but its lowest `skip`) into `s.digits_f[..rows N/2]`; returns `rows`.
    fn digit_transforms(
        &self,
        key: &FourierRows,
        parts: &[&[u64]],
        s: &mut FourierScratch,
    ) -> usize {
        let (m, g) = (self.fft.len(), key.gadget);
        let (d, skip) = (g.digits(), key.skip);
        for (p, o) in parts
            .iter()
            .zip(s.digits_f.chunks_exact_mut((d - skip) * m))
        {
            self.fft
                .forward_digits(p, g.q(), g.log_base(), d, skip, o, &mut s.fft);
        }
        parts.len() * (d - skip)
    }

    /// `(s.out[0], s.out[1])` = the transforms of `(acc.a, acc.b) ⊗ keys[k]` (RGSW) or
    /// of ALTMULT with `keys[k]` (RLWE'), for `acc` in coefficient form.
    fn product(&self, k: usize, acc: &RlweCiphertext, s: &mut FourierScratch) {
        let key = &self.keys[k];
        let n = self.fft.n();
        let g = key.gadget;
        if key.rgsw {
            let rows = self.digit_transforms(key, &[acc.a.data(), acc.b.data()], s);
            let [oa, ob, ..] = &mut s.out;
            key.mul_acc(oa, ob, &s.digits_f[..rows * n / 2], false);
            return;
        }
        // ALTMULT (Alg. 6): (a', b') = a ⊙ RLWE'(m); res = a' ⊙ RLWE'(z^2) + (b', 0)
        // + b ⊙ RLWE'(m).
        let z2 = self.z2.as_ref().expect("ALTMULT keys carry RLWE'(z^2)");
        let rows = self.digit_transforms(key, &[acc.a.data()], s);
        {
            let [_, _, ta, tb] = &mut s.out;
            key.mul_acc(ta, tb, &s.digits_f[..rows * n / 2], false);
        }
        self.fft
            .inverse_mod(&mut s.out[2], g.q(), &mut s.u, &mut s.fft);
        let u = std::mem::take(&mut s.u);
        let rows = self.digit_transforms(z2, &[&u], s);
        s.u = u;
        let [oa, ob, _, tb] = &mut s.out;
        z2.mul_acc(oa, ob, &s.digits_f[..rows * n / 2], false);
        oa.iter_mut().zip(tb.iter()).for_each(|(x, y)| *x += y);
        let rows = self.digit_transforms(key, &[acc.b.data()], s);
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
        let rows = self.digit_transforms(key, &[&u], s);
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
    fn product(
        &mut self,
        k: usize,
        autos: &[usize],
        acc: &RlweCiphertext,
        out: &mut RlweCiphertext,
    ) {
        let (keys, s) = (self.keys, &mut *self.scratch);
        keys.product(k, acc, s);
        for &i in autos {
            keys.eval_auto(i, self.brk.auto[i].t, s);
        }
        keys.finish(out, s);
    }
}
