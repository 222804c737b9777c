//! Products in `Z[X]/(X^N + 1)` over `f64`: the negacyclic Fourier transform (a complex
//! FFT of size `N/2`, [`ComplexFft`]) and the modular reduction of its rounded results.
//!
//! This is the transform of FHEW-style gadget products with a small modulus (seed 002's
//! blind rotation at `Q < 2^32`): there the exact integer products fit a double's 53-bit
//! mantissa with room to spare, and a complex FFT of `N/2` points costs about half of a
//! 64-bit NTT of `N` points (measured in `BENCHMARKS.md`).
//!
//! # The transform
//!
//! For a real polynomial `a` of degree `< N` and `τ = exp(iπ/N)`, fold the coefficients
//! into `N/2` complex numbers and twist them,
//!
//! ```text
//! z_j = (a_j + i a_(j+N/2)) τ^j,   j < N/2,
//! ```
//!
//! then take the cyclic DFT of size `N/2`. Its outputs are `a(ω_k)` at the `N/2` roots
//! `ω_k = τ · exp(±2πik/(N/2))` of `X^N = -1` with `ω_k^(N/2) = i` (so
//! `a(ω) = Σ_j (a_j + i a_(j+N/2)) ω^j`). These are half of the roots of `X^N + 1`; the
//! others are their conjugates, redundant for real `a`. The product of two transforms,
//! point by point, is the transform of the negacyclic product. The FFT's output order
//! (bit-reversed, [`ComplexFft`], with no reordering pass) does not matter for point-wise
//! products; [`NegacyclicFft::inverse_mod_add`] undoes it, and
//! [`NegacyclicFft::automorphism`] reads the point of each output from a table made from
//! the transform of `X`.
//!
//! # Products
//!
//! [`mul_acc2`] works on interleaved complex numbers with two sums per
//! output: `p += x · y` and `p' += swap(x) · y` lane by lane (`swap` exchanges real and
//! imaginary parts), so that `Re = p_re - p_im` and `Im = p'_re + p'_im` are formed once at
//! the end. That is two fused multiply-adds per point and key and one shuffle per point,
//! shared by both outputs; the keys stream from memory at that rate.
//!
//! # Exactness
//!
//! The inputs are the centered representatives of residues mod `Q` (gadget digits and
//! key coefficients). A sum of `k` products of polynomials with coefficients bounded by
//! `B_1` and `B_2` has integer coefficients bounded by `k N B_1 B_2`; the FFT computes them
//! with an error of about `2^-53 log2(N)` times their root-mean-square size, so they round
//! to the exact integers while that size stays far below `2^52`
//! ([`NegacyclicFft::product_bits`] gives the worst case; callers require it to be at most
//! [`MAX_PRODUCT_BITS`]). Where a rounding does go wrong the result is off by a unit or
//! two in one coefficient: for an FHEW accumulator that is noise far below the products'
//! own (`σ_⊙` is thousands), and the blind-rotation variance is measured through this path
//! (`hekate bench fhew`).

mod fft;

pub use fft::ComplexFft;

use crate::math::kernels::Isa;
use crate::{Error, Result};
use num_complex::Complex64 as C64;

/// The largest worst-case product size, in bits, that the Fourier path accepts
/// ([`NegacyclicFft::product_bits`]). Typical coefficients are `2^6` to `2^8` times
/// smaller than the worst case, so the FFT's rounding error stays below `2^-4` there.
pub const MAX_PRODUCT_BITS: u32 = 51;

/// A negacyclic transform for ring degree `N` (a power of two, at least 16).
#[derive(Clone, Debug)]
pub struct NegacyclicFft {
    n: usize,
    fft: ComplexFft,
    /// `τ^j`.
    twist: Vec<C64>,
    /// `τ^-j / (N/2)` (undoes the twist and the inverse FFT's factor `N/2`).
    untwist: Vec<C64>,
    /// `e_k` with `ω_k = exp(iπ e_k / N)` the point of output `k` (`e_k = 1 mod 4`).
    exponent: Vec<u32>,
    /// The output `k` of the point `exp(iπ e / N)`, at `(e - 1) / 4`.
    index: Vec<u32>,
}

/// Working memory of the transforms (one per thread). The FFT runs in place, so this
/// holds nothing today; it stays in the signatures so that a transform needing memory
/// can be put in without changing them.
#[derive(Debug, Default)]
pub struct FftScratch {
    _private: (),
}

impl NegacyclicFft {
    /// The transform for degree `n`.
    pub fn new(n: usize) -> Result<Self> {
        if !n.is_power_of_two() || n < 16 {
            return Err(Error::InvalidParameters(format!(
                "the negacyclic FFT needs a power-of-two degree of at least 16, got {n}"
            )));
        }
        let m = n / 2;
        let angle = std::f64::consts::PI / n as f64;
        let twist = (0..m)
            .map(|j| C64::from_polar(1.0, angle * j as f64))
            .collect();
        let untwist = (0..m)
            .map(|j| C64::from_polar(1.0 / m as f64, -angle * j as f64))
            .collect();
        let mut f = NegacyclicFft {
            n,
            fft: ComplexFft::new(m),
            twist,
            untwist,
            exponent: Vec::new(),
            index: vec![0; m],
        };
        // The transform of X is the list of points (up to rounding).
        let mut x = vec![0u64; n];
        x[1] = 1;
        let mut points = vec![C64::new(0.0, 0.0); m];
        f.forward_mod(&x, 3, &mut points, &mut f.scratch());
        let two_n = 2 * n as i64;
        f.exponent = points
            .iter()
            .map(|w| {
                ((w.arg() * n as f64 / std::f64::consts::PI).round() as i64).rem_euclid(two_n)
                    as u32
            })
            .collect();
        for (k, &e) in f.exponent.iter().enumerate() {
            debug_assert_eq!(e % 4, 1, "the points are the roots with ω^(N/2) = i");
            f.index[(e / 4) as usize] = k as u32;
        }
        Ok(f)
    }

    /// `out[i]` = the transform of `a_i(X^t)` from `x[i]`, the transform of `a_i` (`t`
    /// odd): the point `ω_k` takes the value of `a_i` at `ω_k^t`, which is an output of
    /// `x[i]` or the conjugate of one (`a_i` is real). The source and the sign are worked
    /// out once per point for all `K` transforms, without branches (which way a point goes
    /// follows no pattern a branch predictor can learn).
    pub fn automorphism<const K: usize>(&self, t: usize, x: [&[C64]; K], mut out: [&mut [C64]; K]) {
        let m = self.len();
        assert!(
            t % 2 == 1 && x.iter().all(|x| x.len() == m) && out.iter().all(|o| o.len() == m),
            "automorphism: arguments"
        );
        let mask = 2 * self.n - 1;
        let t = t & mask;
        for (k, &e) in self.exponent.iter().enumerate() {
            let f = (e as usize * t) & mask;
            // f = 1 mod 4: the point itself; f = 3 mod 4: the conjugate of point 2N - f.
            let conj = f & 2 != 0;
            let src = self.index[(if conj { mask + 1 - f } else { f }) >> 2] as usize;
            let sign = if conj { -1.0 } else { 1.0 };
            for (x, o) in x.iter().zip(out.iter_mut()) {
                let v = x[src];
                o[k] = C64::new(v.re, sign * v.im);
            }
        }
    }

    /// `N`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Complex values per transform, `N/2`.
    pub fn len(&self) -> usize {
        self.n / 2
    }

    /// Always false (the degree is at least 16).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Scratch for [`NegacyclicFft::forward_mod`] and [`NegacyclicFft::inverse_mod_add`].
    pub fn scratch(&self) -> FftScratch {
        FftScratch::default()
    }

    /// `ceil(log2)` of the worst-case coefficient of a sum of `terms` products of
    /// polynomials of degree `< n` with coefficients at most `bound_1` and `bound_2` in
    /// absolute value.
    pub fn product_bits(n: usize, terms: usize, bound_1: u64, bound_2: u64) -> u32 {
        let x = terms as f64 * n as f64 * bound_1 as f64 * bound_2 as f64;
        x.log2().ceil() as u32
    }

    /// The transform of the polynomial whose coefficients are the centered
    /// representatives of `a` (residues mod `q < 2^52`, length `N`).
    pub fn forward_mod(&self, a: &[u64], q: u64, out: &mut [C64], scratch: &mut FftScratch) {
        // One digit: the centered residue itself (the base does not matter).
        self.forward_digits(a, q, 62, 1, 0, out, scratch);
    }

    /// The transforms of the `d` signed digits in base `2^log_base` of the centered
    /// representatives of `a` (residues mod `q`), digit `i` into the `i`-th block of
    /// `N/2` points of `out`: the same digits as `rlwe::gsw::Gadget::decompose` (each in
    /// `[-2^log_base / 2, 2^log_base / 2)`, the last one the remainder), made and twisted
    /// in registers.
    ///
    /// The lowest `skip` digits are made but not transformed: digit `i >= skip` goes to
    /// block `i - skip`. Digits `skip..d` are those of `round(a / 2^(skip log_base))`
    /// (ties up), so this is the approximate gadget decomposition that rounds the lowest
    /// digits away.
    #[allow(clippy::too_many_arguments)]
    pub fn forward_digits(
        &self,
        a: &[u64],
        q: u64,
        log_base: u32,
        d: usize,
        skip: usize,
        out: &mut [C64],
        scratch: &mut FftScratch,
    ) {
        let m = self.len();
        assert!(
            a.len() == self.n
                && skip < d
                && out.len() == (d - skip) * m
                && (1..63).contains(&log_base),
            "forward_digits: lengths"
        );
        twist_digits(Isa::detect(), a, q, log_base, d, skip, &self.twist, out);
        let _ = scratch;
        for row in out.chunks_exact_mut(m) {
            self.fft.forward(row);
        }
    }

    /// `out += b` modulo `q < 2^52`, where `b` is the polynomial of the transform `x`
    /// (which this overwrites), rounded to integers; `out` holds residues in `[0, q)`.
    pub fn inverse_mod_add(
        &self,
        x: &mut [C64],
        q: u64,
        out: &mut [u64],
        scratch: &mut FftScratch,
    ) {
        self.inverse::<true>(x, q, out, scratch);
    }

    /// `out = b`: [`NegacyclicFft::inverse_mod_add`] onto zero (without reading `out`).
    pub fn inverse_mod(&self, x: &mut [C64], q: u64, out: &mut [u64], scratch: &mut FftScratch) {
        self.inverse::<false>(x, q, out, scratch);
    }

    /// Both: with `ADD`, `out += b`, else `out = b`.
    fn inverse<const ADD: bool>(
        &self,
        x: &mut [C64],
        q: u64,
        out: &mut [u64],
        scratch: &mut FftScratch,
    ) {
        assert!(
            x.len() == self.len() && out.len() == self.n,
            "inverse_mod(_add): lengths"
        );
        let _ = scratch;
        self.fft.inverse(x);
        untwist::<ADD>(Isa::detect(), x, &self.untwist, q, out);
    }
}

/// The twisted digits of [`NegacyclicFft::forward_digits`] (before the FFT) on the code of
/// `isa` (lowered to [`Isa::detect`]).
#[allow(clippy::too_many_arguments)]
fn twist_digits(
    isa: Isa,
    a: &[u64],
    q: u64,
    log_base: u32,
    d: usize,
    skip: usize,
    twist: &[C64],
    out: &mut [C64],
) {
    match isa.min(Isa::detect()) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX-512F and DQ (at most `Isa::detect`).
        Isa::Avx512 | Isa::Avx512Ifma => unsafe {
            avx512::twist_digits(a, q, log_base, d, skip, twist, out)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2 and FMA (at most `Isa::detect`).
        Isa::Avx2 => unsafe { avx2::twist_digits(a, q, log_base, d, skip, twist, out) },
        _ => portable::twist_digits(a, q, log_base, d, skip, twist, out),
    }
}

/// The untwisting and rounding of [`NegacyclicFft::inverse_mod_add`] (after the inverse
/// FFT) on the code of `isa` (lowered to [`Isa::detect`]).
fn untwist<const ADD: bool>(isa: Isa, x: &[C64], untwist: &[C64], q: u64, out: &mut [u64]) {
    match isa.min(Isa::detect()) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX-512F and DQ (at most `Isa::detect`).
        Isa::Avx512 | Isa::Avx512Ifma => unsafe { avx512::untwist::<ADD>(x, untwist, q, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2 and FMA (at most `Isa::detect`).
        Isa::Avx2 => unsafe { avx2::untwist::<ADD>(x, untwist, q, out) },
        _ => portable::untwist::<ADD>(x, untwist, q, out),
    }
}

/// The shapes [`mul_acc2`] and [`mul_acc2_compact`] need: outputs of `m` points (a
/// multiple of 8), `x` whole rows of `m`, and as many key points as `x`.
fn check_mul_acc2(out_a: &[C64], out_b: &[C64], x: &[C64], ya_points: usize, yb_points: usize) {
    let m = out_a.len();
    assert!(
        m.is_multiple_of(8)
            && out_b.len() == m
            && x.len().is_multiple_of(m)
            && ya_points == x.len()
            && yb_points == x.len(),
        "mul_acc2: lengths"
    );
}

/// `out_a = Σ_r x_r y^a_r` and `out_b = Σ_r x_r y^b_r` point by point, for `rows`
/// transforms `x_r` (consecutive in `x`) and as many `y^a_r`, `y^b_r` (consecutive in
/// `ya`, `yb`); with `accumulate` the sums are added to the outputs.
pub fn mul_acc2(
    out_a: &mut [C64],
    out_b: &mut [C64],
    x: &[C64],
    ya: &[C64],
    yb: &[C64],
    accumulate: bool,
) {
    check_mul_acc2(out_a, out_b, x, ya.len(), yb.len());
    mul_acc2_on(Isa::detect(), out_a, out_b, x, ya, yb, accumulate);
}

/// [`mul_acc2`] (shapes checked) on the code of `isa` (lowered to [`Isa::detect`]).
fn mul_acc2_on(
    isa: Isa,
    out_a: &mut [C64],
    out_b: &mut [C64],
    x: &[C64],
    ya: &[C64],
    yb: &[C64],
    accumulate: bool,
) {
    match isa.min(Isa::detect()) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX-512F (at most `Isa::detect`).
        Isa::Avx512 | Isa::Avx512Ifma => unsafe {
            avx512::mul_acc2(out_a, out_b, x, ya, yb, accumulate)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2 and FMA (at most `Isa::detect`).
        Isa::Avx2 => unsafe { avx2::mul_acc2(out_a, out_b, x, ya, yb, accumulate) },
        _ => portable::mul_acc2(out_a, out_b, x, ya, yb, accumulate),
    }
}

/// Transforms stored as 32-bit fixed point: the real and imaginary parts of each point,
/// interleaved like a `[C64]`, as integers `v` standing for `v · scale`, with one
/// power-of-two `scale` for the whole set ([`CompactTransforms::quantize`]). Half the bytes
/// of `f64`, which is what a memory-bound product of many keys streams.
///
/// The price is precision. The largest part of the set is stored with 31 bits, so each
/// point is off by at most `scale / 2` per part, about `2^-32` of the largest point. A
/// transform of `N` integer coefficients of size `Q` thus stands for a polynomial whose
/// coefficients are off by about `0.4 Q 2^-31` in root mean square (not integers any more):
/// products with it are no longer exact. For an FHEW key row that error acts like extra
/// encryption noise of that size, times `‖z‖` in the `a` part.
#[derive(Clone, Debug)]
pub struct CompactTransforms {
    /// `2 · points` parts.
    pub parts: Vec<i32>,
    /// The value of one unit.
    pub scale: f64,
}

impl CompactTransforms {
    /// The sets `xs` (any number of transforms each) quantized with one common scale, the
    /// smallest power of two that keeps every part within `i32`.
    pub fn quantize(xs: &[&[C64]]) -> Vec<CompactTransforms> {
        let max = xs
            .iter()
            .flat_map(|x| x.iter())
            .map(|c| c.re.abs().max(c.im.abs()))
            .fold(0.0f64, f64::max);
        let scale = if max > 0.0 {
            2f64.powi((max / (i32::MAX as f64 - 1.0)).log2().ceil() as i32)
        } else {
            1.0
        };
        xs.iter()
            .map(|x| CompactTransforms {
                parts: x
                    .iter()
                    .flat_map(|c| [c.re, c.im])
                    .map(|v| (v / scale).round() as i32)
                    .collect(),
                scale,
            })
            .collect()
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.parts.len() / 2
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
}

/// [`mul_acc2`] with `ya`, `yb` in 32-bit fixed point (one common scale).
pub fn mul_acc2_compact(
    out_a: &mut [C64],
    out_b: &mut [C64],
    x: &[C64],
    ya: &CompactTransforms,
    yb: &CompactTransforms,
    accumulate: bool,
) {
    check_mul_acc2(out_a, out_b, x, ya.len(), yb.len());
    assert_eq!(ya.scale, yb.scale, "mul_acc2_compact: scales");
    mul_acc2_compact_on(Isa::detect(), out_a, out_b, x, ya, yb, accumulate);
}

/// [`mul_acc2_compact`] (shapes checked) on the code of `isa` (lowered to [`Isa::detect`]).
fn mul_acc2_compact_on(
    isa: Isa,
    out_a: &mut [C64],
    out_b: &mut [C64],
    x: &[C64],
    ya: &CompactTransforms,
    yb: &CompactTransforms,
    accumulate: bool,
) {
    let (pa, pb, scale) = (&ya.parts, &yb.parts, ya.scale);
    match isa.min(Isa::detect()) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX-512F (at most `Isa::detect`).
        Isa::Avx512 | Isa::Avx512Ifma => unsafe {
            avx512::mul_acc2_compact(out_a, out_b, x, pa, pb, scale, accumulate)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2 and FMA (at most `Isa::detect`).
        Isa::Avx2 => unsafe { avx2::mul_acc2_compact(out_a, out_b, x, pa, pb, scale, accumulate) },
        _ => portable::mul_acc2_compact(out_a, out_b, x, pa, pb, scale, accumulate),
    }
}

/// Reference implementations (any CPU); the AVX-512 and AVX2 ones compute the same values
/// (up to rounding: they fuse multiplies and adds).
mod portable {
    use super::C64;

    /// Signed digits of the centered `x`: `x = Σ_i t_i 2^(i log_base)`, written to
    /// `out[i]`.
    fn digits(mut x: i64, log_base: u32, out: &mut [f64]) {
        let d = out.len();
        for o in &mut out[..d - 1] {
            *o = crate::math::signed_digit(&mut x, log_base) as f64;
        }
        out[d - 1] = x as f64;
    }

    pub(super) fn twist_digits(
        a: &[u64],
        q: u64,
        log_base: u32,
        d: usize,
        skip: usize,
        twist: &[C64],
        out: &mut [C64],
    ) {
        let m = twist.len();
        let center = |x: u64| x as i64 - if x > q / 2 { q as i64 } else { 0 };
        let (mut lo, mut hi) = (vec![0.0; d], vec![0.0; d]);
        for j in 0..m {
            digits(center(a[j]), log_base, &mut lo);
            digits(center(a[m + j]), log_base, &mut hi);
            for i in skip..d {
                out[(i - skip) * m + j] = C64::new(lo[i], hi[i]) * twist[j];
            }
        }
    }

    /// `round(v) mod q` added to `o` (in `[0, q)`); exact for `|v| < 2^52`.
    fn add_rounded(v: f64, q: u64, o: &mut u64) {
        let qf = q as f64;
        let r = v.round();
        let r = r - (r / qf).round() * qf;
        let r = r as i64 + *o as i64;
        let q = q as i64;
        let r = if r < 0 { r + q } else { r };
        *o = if r >= q { r - q } else { r } as u64;
    }

    pub(super) fn untwist<const ADD: bool>(buf: &[C64], untwist: &[C64], q: u64, out: &mut [u64]) {
        if !ADD {
            out.fill(0);
        }
        let (lo, hi) = out.split_at_mut(buf.len());
        for (((v, &w), a), b) in buf.iter().zip(untwist).zip(lo).zip(hi) {
            let c = v * w;
            add_rounded(c.re, q, a);
            add_rounded(c.im, q, b);
        }
    }

    pub(super) fn mul_acc2(
        out_a: &mut [C64],
        out_b: &mut [C64],
        x: &[C64],
        ya: &[C64],
        yb: &[C64],
        accumulate: bool,
    ) {
        let m = out_a.len();
        if !accumulate {
            out_a.fill(C64::new(0.0, 0.0));
            out_b.fill(C64::new(0.0, 0.0));
        }
        for r in 0..x.len() / m {
            let (xr, ar, br) = (&x[r * m..][..m], &ya[r * m..][..m], &yb[r * m..][..m]);
            for k in 0..m {
                out_a[k] += xr[k] * ar[k];
                out_b[k] += xr[k] * br[k];
            }
        }
    }

    pub(super) fn mul_acc2_compact(
        out_a: &mut [C64],
        out_b: &mut [C64],
        x: &[C64],
        ya: &[i32],
        yb: &[i32],
        scale: f64,
        accumulate: bool,
    ) {
        let m = out_a.len();
        if !accumulate {
            out_a.fill(C64::new(0.0, 0.0));
            out_b.fill(C64::new(0.0, 0.0));
        }
        let c = |y: &[i32], i: usize| C64::new(y[2 * i] as f64, y[2 * i + 1] as f64);
        for r in 0..x.len() / m {
            for k in 0..m {
                let (i, v) = (r * m + k, x[r * m + k] * scale);
                out_a[k] += v * c(ya, i);
                out_b[k] += v * c(yb, i);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    use crate::math::negacyclic_oracle;

    const ZERO: C64 = C64::new(0.0, 0.0);

    #[test]
    fn products_match_the_schoolbook_oracle() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let q: u64 = 134215681; // 27 bits
        for n in [16usize, 256, 1024] {
            let f = NegacyclicFft::new(n).unwrap();
            let mut s = f.scratch();
            let m = f.len();
            let terms = 3;
            // Digits in [-2^8, 2^8), keys uniform mod q.
            let xs: Vec<Vec<i64>> = (0..terms)
                .map(|_| (0..n).map(|_| rng.gen_range(-256..256)).collect())
                .collect();
            let ys: Vec<Vec<u64>> = (0..terms)
                .map(|_| (0..n).map(|_| rng.gen_range(0..q)).collect())
                .collect();
            let to_mod = |v: &[i64]| -> Vec<u64> {
                v.iter().map(|&x| x.rem_euclid(q as i64) as u64).collect()
            };
            let mut xf = vec![ZERO; terms * m];
            let mut yf = vec![ZERO; terms * m];
            for t in 0..terms {
                f.forward_mod(&to_mod(&xs[t]), q, &mut xf[t * m..(t + 1) * m], &mut s);
                f.forward_mod(&ys[t], q, &mut yf[t * m..(t + 1) * m], &mut s);
            }
            let (mut oa, mut ob) = (vec![ZERO; m], vec![ZERO; m]);
            mul_acc2(&mut oa, &mut ob, &xf, &yf, &yf, false);
            let mut got = vec![0u64; n];
            f.inverse_mod(&mut oa.clone(), q, &mut got, &mut s);
            let mut want = vec![0u64; n];
            for t in 0..terms {
                for (w, p) in want
                    .iter_mut()
                    .zip(negacyclic_oracle(&to_mod(&xs[t]), &ys[t], q))
                {
                    *w = (*w + p) % q;
                }
            }
            assert_eq!(got, want, "n = {n}");
            // The accumulate flag adds, and inverse_mod_add adds.
            mul_acc2(&mut oa, &mut ob, &xf, &yf, &yf, true);
            let mut twice = want.clone();
            f.inverse_mod_add(&mut ob, q, &mut twice, &mut s);
            let triple: Vec<u64> = want.iter().map(|&w| 3 * w % q).collect();
            assert_eq!(twice, triple, "n = {n}, accumulated");
        }
    }

    /// Products with 32-bit keys: off from the exact integers by about `Q 2^-31` per key
    /// coefficient times the digits' size, never by more than a few units here; the
    /// portable code agrees with the dispatched one.
    #[test]
    fn compact_products_are_close_to_the_oracle() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let q: u64 = 134215681; // 27 bits
        let (n, terms) = (1024usize, 3);
        let f = NegacyclicFft::new(n).unwrap();
        let mut s = f.scratch();
        let m = f.len();
        let xs: Vec<Vec<u64>> = (0..terms)
            .map(|_| {
                (0..n)
                    .map(|_| rng.gen_range(-256i64..256).rem_euclid(q as i64) as u64)
                    .collect()
            })
            .collect();
        let ys: Vec<Vec<u64>> = (0..terms)
            .map(|_| (0..n).map(|_| rng.gen_range(0..q)).collect())
            .collect();
        let (mut xf, mut yf) = (vec![ZERO; terms * m], vec![ZERO; terms * m]);
        for t in 0..terms {
            f.forward_mod(&xs[t], q, &mut xf[t * m..(t + 1) * m], &mut s);
            f.forward_mod(&ys[t], q, &mut yf[t * m..(t + 1) * m], &mut s);
        }
        let [ya, yb]: [CompactTransforms; 2] =
            CompactTransforms::quantize(&[&yf, &yf]).try_into().unwrap();
        assert!(
            ya.scale.log2().fract() == 0.0 && ya.scale <= 4.0,
            "{}",
            ya.scale
        );
        let (mut oa, mut ob) = (vec![ZERO; m], vec![ZERO; m]);
        mul_acc2_compact(&mut oa, &mut ob, &xf, &ya, &yb, false);
        let (mut pa, mut pb) = (vec![ZERO; m], vec![ZERO; m]);
        portable::mul_acc2_compact(&mut pa, &mut pb, &xf, &ya.parts, &yb.parts, ya.scale, false);
        for (x, y) in oa.iter().zip(&pa).chain(ob.iter().zip(&pb)) {
            assert!((x - y).norm() <= 1e-9 * x.norm().max(1.0), "{x} vs {y}");
        }
        // Coefficient errors against the oracle, centered mod q.
        let mut got = vec![0u64; n];
        f.inverse_mod(&mut oa, q, &mut got, &mut s);
        let mut want = vec![0u64; n];
        for t in 0..terms {
            for (w, p) in want.iter_mut().zip(negacyclic_oracle(&xs[t], &ys[t], q)) {
                *w = (*w + p) % q;
            }
        }
        let md = crate::math::Modulus::new(q);
        let errs: Vec<i64> = got
            .iter()
            .zip(&want)
            .map(|(&g, &w)| md.center(md.sub(g, w)))
            .collect();
        let rms = (errs.iter().map(|&e| (e * e) as f64).sum::<f64>() / n as f64).sqrt();
        let max = errs.iter().map(|e| e.abs()).max().unwrap();
        // Key error per coefficient about scale / √12 / √(N/2) (0.025 at scale 2), times
        // the digits (RMS 148, 3 N terms): about 0.025 · 148 · √3072 ≈ 200 (206 measured).
        // A wrong scale or layout gives errors of order q.
        let formula = ya.scale / 12f64.sqrt() / ((n / 2) as f64).sqrt() * 148.0 * 3072f64.sqrt();
        assert!(
            (0.7 * formula..1.4 * formula).contains(&rms) && max < 10_000,
            "rms {rms} against {formula}, max {max}"
        );
    }

    /// The portable code computes what the dispatched (AVX-512 here) code does.
    #[test]
    fn portable_code_agrees() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        let (n, q) = (64usize, 268369921u64);
        let f = NegacyclicFft::new(n).unwrap();
        let mut s = f.scratch();
        let m = n / 2;
        let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..q)).collect();
        let mut fast = vec![ZERO; m];
        f.forward_mod(&a, q, &mut fast, &mut s);
        let mut slow = vec![ZERO; m];
        portable::twist_digits(&a, q, 62, 1, 0, &f.twist, &mut slow);
        f.fft.forward(&mut slow);
        let close = |x: &[C64], y: &[C64]| {
            for (x, y) in x.iter().zip(y) {
                assert!((x - y).norm() <= 1e-6 * x.norm().max(1.0), "{x} vs {y}");
            }
        };
        close(&fast, &slow);
        let mut c = || C64::new(rng.gen_range(-1e6..1e6), rng.gen_range(-1e6..1e6));
        let keys: Vec<C64> = (0..2 * m).map(|_| c()).collect();
        let xs: Vec<C64> = (0..2 * m).map(|_| c()).collect();
        let (mut fa, mut fb): (Vec<C64>, Vec<C64>) =
            ((0..m).map(|_| c()).collect(), (0..m).map(|_| c()).collect());
        let (mut sa, mut sb) = (fa.clone(), fb.clone());
        mul_acc2(&mut fa, &mut fb, &xs, &keys, &keys, true);
        portable::mul_acc2(&mut sa, &mut sb, &xs, &keys, &keys, true);
        close(&fa, &sa);
        close(&fb, &sb);
        let mut fast_out = a.clone();
        f.inverse_mod_add(&mut fast.clone(), q, &mut fast_out, &mut s);
        let mut slow_out = a.clone();
        f.fft.inverse(&mut fast);
        portable::untwist::<true>(&fast, &f.untwist, q, &mut slow_out);
        assert_eq!(fast_out, slow_out);
        // a + a, since inverse(forward(a)) = a.
        let doubled: Vec<u64> = a.iter().map(|&x| 2 * x % q).collect();
        assert_eq!(fast_out, doubled);
        // The digit transforms: those of the gadget digits, and the same on both paths.
        let g = crate::rlwe::gsw::Gadget::new(q, 9).unwrap();
        let d = g.digits();
        let mut digs = vec![0u64; d * n];
        g.decompose(&a, &mut digs);
        let mut want = vec![ZERO; d * m];
        for (x, o) in digs.chunks_exact(n).zip(want.chunks_exact_mut(m)) {
            f.forward_mod(x, q, o, &mut s);
        }
        // With the lowest `skip` digits left out: the other blocks, unchanged.
        for skip in 0..d {
            let mut got = vec![ZERO; (d - skip) * m];
            f.forward_digits(&a, q, 9, d, skip, &mut got, &mut s);
            close(&got, &want[skip * m..]);
            let mut slow = vec![ZERO; (d - skip) * m];
            portable::twist_digits(&a, q, 9, d, skip, &f.twist, &mut slow);
            for row in slow.chunks_exact_mut(m) {
                f.fft.forward(row);
            }
            close(&got, &slow);
        }
    }

    /// The Fourier automorphism is the transform of the coefficient automorphism.
    #[test]
    fn automorphisms_permute_the_points() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let (n, q) = (256usize, 134215681u64);
        let f = NegacyclicFft::new(n).unwrap();
        let mut s = f.scratch();
        let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..q)).collect();
        let mut x = vec![ZERO; n / 2];
        f.forward_mod(&a, q, &mut x, &mut s);
        for t in [1, 3, 5, 25, 2 * n - 1, n + 1] {
            let mut y = vec![ZERO; n / 2];
            f.automorphism(t, [&x], [&mut y]);
            let mut got = vec![0u64; n];
            f.inverse_mod(&mut y, q, &mut got, &mut s);
            let mut want = vec![0u64; n];
            crate::ring::automorphism::automorphism_coeff(&a, &mut want, t, q);
            assert_eq!(got, want, "t = {t}");
        }
    }

    #[test]
    fn bad_degrees_are_refused() {
        assert!(NegacyclicFft::new(8).is_err());
        assert!(NegacyclicFft::new(1000).is_err());
    }

    /// Every SIMD path of the FHEW kernels this CPU runs against the portable code: the
    /// digit transforms and products to within rounding (the SIMD code fuses multiplies
    /// and adds), the rounded coefficients word for word, and the AVX2 and AVX-512 paths
    /// word for word with each other (they do the same operations lane for lane).
    #[test]
    fn every_isa_agrees_with_the_portable_code() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let (n, q) = (256usize, 134215681u64);
        let f = NegacyclicFft::new(n).unwrap();
        let m = n / 2;
        let isas: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
        let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..q)).collect();
        let close = |x: &[C64], y: &[C64], what: &str| {
            for (x, y) in x.iter().zip(y) {
                assert!(
                    (x - y).norm() <= 1e-12 * x.norm().max(1.0),
                    "{what}: {x} vs {y}"
                );
            }
        };
        let mut c = || C64::new(rng.gen_range(-1e6..1e6), rng.gen_range(-1e6..1e6));
        let (xs, ya, yb): (Vec<C64>, Vec<C64>, Vec<C64>) = (
            (0..3 * m).map(|_| c()).collect(),
            (0..3 * m).map(|_| c()).collect(),
            (0..3 * m).map(|_| c()).collect(),
        );
        let init: Vec<C64> = (0..m).map(|_| c()).collect();
        let [ca, cb]: [CompactTransforms; 2] =
            CompactTransforms::quantize(&[&ya, &yb]).try_into().unwrap();
        let mut results: Vec<(Isa, Vec<Vec<C64>>)> = vec![];
        for &isa in &isas {
            let mut got = vec![];
            // Digits (base 2^9, 3 digits, each skip) and the single centered residue.
            for (lb, d, skip) in [(9, 3, 0), (9, 3, 1), (9, 3, 2), (62, 1, 0)] {
                let mut want = vec![ZERO; (d - skip) * m];
                portable::twist_digits(&a, q, lb, d, skip, &f.twist, &mut want);
                let mut out = vec![ZERO; (d - skip) * m];
                twist_digits(isa, &a, q, lb, d, skip, &f.twist, &mut out);
                close(&out, &want, &format!("{isa} twist_digits {lb} {d} {skip}"));
                got.push(out);
            }
            // Untwisting and rounding of a transform: the same residues, with and
            // without accumulation.
            let mut x = vec![ZERO; m];
            f.forward_mod(&a, q, &mut x, &mut f.scratch());
            f.fft.inverse(&mut x);
            for add in [false, true] {
                let (mut want, mut out) = (a.clone(), a.clone());
                if add {
                    portable::untwist::<true>(&x, &f.untwist, q, &mut want);
                    untwist::<true>(isa, &x, &f.untwist, q, &mut out);
                } else {
                    portable::untwist::<false>(&x, &f.untwist, q, &mut want);
                    untwist::<false>(isa, &x, &f.untwist, q, &mut out);
                }
                assert_eq!(out, want, "{isa} untwist, add {add}");
                let expect: Vec<u64> = a.iter().map(|&v| if add { 2 * v % q } else { v }).collect();
                assert_eq!(out, expect, "{isa} untwist, add {add}");
            }
            // Products, exact and compact, from zero and accumulated.
            for accumulate in [false, true] {
                let (mut wa, mut wb) = (init.clone(), init.clone());
                portable::mul_acc2(&mut wa, &mut wb, &xs, &ya, &yb, accumulate);
                let (mut oa, mut ob) = (init.clone(), init.clone());
                mul_acc2_on(isa, &mut oa, &mut ob, &xs, &ya, &yb, accumulate);
                close(&oa, &wa, &format!("{isa} mul_acc2"));
                close(&ob, &wb, &format!("{isa} mul_acc2"));
                let (mut wca, mut wcb) = (init.clone(), init.clone());
                let (pa, pb) = (&ca.parts, &cb.parts);
                portable::mul_acc2_compact(&mut wca, &mut wcb, &xs, pa, pb, ca.scale, accumulate);
                let (mut oca, mut ocb) = (init.clone(), init.clone());
                mul_acc2_compact_on(isa, &mut oca, &mut ocb, &xs, &ca, &cb, accumulate);
                close(&oca, &wca, &format!("{isa} mul_acc2_compact"));
                close(&ocb, &wcb, &format!("{isa} mul_acc2_compact"));
                got.extend([oa, ob, oca, ocb]);
            }
            results.push((isa, got));
        }
        // AVX2 and AVX-512 (with or without IFMA) word for word.
        let simd: Vec<_> = results.iter().filter(|(i, _)| *i >= Isa::Avx2).collect();
        for w in simd.windows(2) {
            let ((i, x), (j, y)) = (w[0], w[1]);
            for (k, (x, y)) in x.iter().zip(y).enumerate() {
                let same = x.len() == y.len()
                    && x.iter().zip(y).all(|(x, y)| {
                        x.re.to_bits() == y.re.to_bits() && x.im.to_bits() == y.im.to_bits()
                    });
                assert!(same, "{i} vs {j}: output {k}");
            }
        }
    }
}
