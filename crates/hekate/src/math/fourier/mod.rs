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
mod products;

pub use fft::ComplexFft;
pub use products::{mul_acc2, mul_acc2_compact, CompactTransforms};

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
mod tests;
