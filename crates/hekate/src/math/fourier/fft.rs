//! The complex FFT of `m = 2^k` points under [`super::NegacyclicFft`]: in place, forward by
//! decimation in frequency with its outputs in bit-reversed order, inverse by decimation
//! in time from that order back to the natural one, so that no pass reorders the data.
//!
//! # Algorithm
//!
//! The forward transform is `X_f = Σ_j x_j w_m^(jf)` with `w_L = exp(-2πi / L)`. A radix-2
//! stage of block length `L = 2h` maps each pair `(x_j, x_(j+h))`, `j < h`, to
//! `(x_j + x_(j+h), (x_j - x_(j+h)) w_L^j)`; `log2 m` such stages leave `X_f` at position
//! `bitrev(f)`. The passes here fuse two stages into one radix-4 pass (block `L = 4q`,
//! `j < q`, inputs `a, b, c, d` at `j, j + q, j + 2q, j + 3q`):
//!
//! ```text
//! j      <- (a + c) + (b + d)
//! j + q  <- ((a + c) - (b + d)) w_L^(2j)
//! j + 2q <- ((a - c) - i (b - d)) w_L^j
//! j + 3q <- ((a - c) + i (b - d)) w_L^(3j)
//! ```
//!
//! which is exactly the two radix-2 stages (`w_L^q = -i`), so the output order does not
//! depend on how the stages are grouped: every implementation here returns the same
//! points in the same places, up to rounding. The inverse undoes the passes in reverse
//! order with conjugate twiddles and returns `m` times the input (the caller divides).
//!
//! # Implementations
//!
//! [`Isa::detect`] picks one (so the `HEKATE_SIMD` cap applies):
//!
//! * AVX-512F, four complex numbers (interleaved real and imaginary parts) per register;
//! * AVX2 and FMA, two per register;
//! * portable code otherwise (the reference of the tests).
//!
//! The SIMD versions run radix-4 passes while a quarter block fills a register, then one
//! last pass on a block of two or four registers that also does the stages inside each
//! register (so an `m = 512` transform is four passes over the data). A product of an
//! interleaved `v` with a twiddle `w` is one `fmaddsub(v, re(w), swap(v) im(w))`, with
//! `re(w)` and `im(w)` read from tables that hold each part twice (no shuffle of `w`).
//!
//! Every twiddle is computed directly with `cos` and `sin` (never by repeated products),
//! so each is within a few ulps.

use crate::math::kernels::Isa;
use num_complex::Complex64 as C64;

/// A complex FFT of `m` points (a power of two, at least 8) with bit-reversed outputs:
/// [`ComplexFft::forward`] and [`ComplexFft::inverse`] (see the module documentation).
#[derive(Clone, Debug)]
pub struct ComplexFft {
    m: usize,
    /// `roots[h + j] = w_(2h)^j` for `h = 1, 2, 4, ..., m/2` and `j < h` (index 0 unused).
    roots: Vec<C64>,
    /// `roots3[q + j] = w_(4q)^(3j)` for `q = 1, 2, ..., m/4` and `j < q`.
    roots3: Vec<C64>,
    /// The twiddles of the SIMD passes with their parts duplicated (`(re, re)` and
    /// `(im, im)` for each of `roots` then `roots3`), so that a product needs no shuffle
    /// of the twiddle.
    split: [Vec<C64>; 2],
}

impl ComplexFft {
    /// The transform of `m` points; `m` must be a power of two and at least 8.
    pub fn new(m: usize) -> Self {
        assert!(m.is_power_of_two() && m >= 8, "ComplexFft: m = {m}");
        // w_L^k = exp(-2πi k / L), from the exact fraction k / L.
        let w = |k: usize, l: usize| {
            let t = -2.0 * std::f64::consts::PI * (k as f64 / l as f64);
            C64::new(t.cos(), t.sin())
        };
        let mut roots = vec![C64::new(1.0, 0.0); m];
        let mut h = 1;
        while h < m {
            for j in 0..h {
                roots[h + j] = w(j, 2 * h);
            }
            h *= 2;
        }
        let mut roots3 = vec![C64::new(1.0, 0.0); m / 2];
        let mut q = 1;
        while q < m / 2 {
            for j in 0..q {
                roots3[q + j] = w(3 * j, 4 * q);
            }
            q *= 2;
        }
        let split = [
            |w: &C64| C64::new(w.re, w.re),
            |w: &C64| C64::new(w.im, w.im),
        ]
        .map(|f| roots.iter().chain(&roots3).map(f).collect());
        ComplexFft {
            m,
            roots,
            roots3,
            split,
        }
    }

    /// Points per transform, `m`.
    pub fn len(&self) -> usize {
        self.m
    }

    /// Always false (`m` is at least 8).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// `x <- DFT(x)`, output `f` at position `bitrev(f)`.
    pub fn forward(&self, x: &mut [C64]) {
        self.forward_with(Isa::detect(), x);
    }

    /// `x <- m · DFT^-1(x)`, input `f` at position `bitrev(f)` ([`ComplexFft::forward`]'s
    /// order), output in the natural order.
    pub fn inverse(&self, x: &mut [C64]) {
        self.inverse_with(Isa::detect(), x);
    }

    /// [`ComplexFft::forward`] on the code of `isa`, lowered to [`Isa::detect`] (to compare
    /// the paths this CPU runs).
    pub fn forward_with(&self, isa: Isa, x: &mut [C64]) {
        assert_eq!(x.len(), self.m, "ComplexFft::forward: length");
        match isa.min(Isa::detect()) {
            Isa::Scalar => scalar::forward(self, x),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2 and FMA (at most `Isa::detect`).
            Isa::Avx2 => unsafe { avx2::forward(self, x) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX-512F (at most `Isa::detect`).
            Isa::Avx512 | Isa::Avx512Ifma => unsafe { avx512::forward(self, x) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => scalar::forward(self, x),
        }
    }

    /// [`ComplexFft::inverse`] on the code of `isa`, lowered to [`Isa::detect`].
    pub fn inverse_with(&self, isa: Isa, x: &mut [C64]) {
        assert_eq!(x.len(), self.m, "ComplexFft::inverse: length");
        match isa.min(Isa::detect()) {
            Isa::Scalar => scalar::inverse(self, x),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2 and FMA (at most `Isa::detect`).
            Isa::Avx2 => unsafe { avx2::inverse(self, x) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX-512F (at most `Isa::detect`).
            Isa::Avx512 | Isa::Avx512Ifma => unsafe { avx512::inverse(self, x) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => scalar::inverse(self, x),
        }
    }
}

/// The portable transform: radix-4 passes down to blocks of 4, then a radix-2 pass if
/// `log2 m` is odd.
mod scalar {
    use super::{ComplexFft, C64};

    /// `-i v`.
    fn neg_i(v: C64) -> C64 {
        C64::new(v.im, -v.re)
    }

    /// `i v`.
    fn pos_i(v: C64) -> C64 {
        C64::new(-v.im, v.re)
    }

    pub(super) fn forward(t: &ComplexFft, x: &mut [C64]) {
        let m = x.len();
        let mut l = m;
        while l >= 4 {
            let q = l / 4;
            for block in x.chunks_exact_mut(l) {
                for j in 0..q {
                    let (w1, w2, w3) = (t.roots[2 * q + j], t.roots[q + j], t.roots3[q + j]);
                    let (a, b, c, d) = (block[j], block[j + q], block[j + 2 * q], block[j + 3 * q]);
                    let (s0, d0, s1, d1) = (a + c, a - c, b + d, b - d);
                    block[j] = s0 + s1;
                    block[j + q] = (s0 - s1) * w2;
                    block[j + 2 * q] = (d0 + neg_i(d1)) * w1;
                    block[j + 3 * q] = (d0 + pos_i(d1)) * w3;
                }
            }
            l /= 4;
        }
        if l == 2 {
            for p in x.chunks_exact_mut(2) {
                let (a, b) = (p[0], p[1]);
                p[0] = a + b;
                p[1] = a - b;
            }
        }
    }

    pub(super) fn inverse(t: &ComplexFft, x: &mut [C64]) {
        let m = x.len();
        let mut l = if m.trailing_zeros() % 2 == 1 {
            for p in x.chunks_exact_mut(2) {
                let (a, b) = (p[0], p[1]);
                p[0] = a + b;
                p[1] = a - b;
            }
            8
        } else {
            4
        };
        while l <= m {
            let q = l / 4;
            for block in x.chunks_exact_mut(l) {
                for j in 0..q {
                    let (w1, w2, w3) = (t.roots[2 * q + j], t.roots[q + j], t.roots3[q + j]);
                    let a = block[j];
                    let b = block[j + q] * w2.conj();
                    let c = block[j + 2 * q] * w1.conj();
                    let d = block[j + 3 * q] * w3.conj();
                    let (s0, d0, s1, d1) = (a + b, a - b, c + d, c - d);
                    block[j] = s0 + s1;
                    block[j + 2 * q] = s0 - s1;
                    block[j + q] = d0 + pos_i(d1);
                    block[j + 3 * q] = d0 + neg_i(d1);
                }
            }
            l *= 4;
        }
    }
}

/// The passes of the SIMD transforms, generic over the register type ([`Cv`]); inlined
/// into the entry points of [`avx512`] and [`avx2`], which carry the target features.
#[cfg(target_arch = "x86_64")]
mod passes {
    use super::{ComplexFft, C64};

    /// A register of [`Cv::W`] complex numbers, real and imaginary parts interleaved.
    pub(super) trait Cv: Copy {
        /// Complex numbers per register.
        const W: usize;
        unsafe fn load(p: *const C64) -> Self;
        unsafe fn store(self, p: *mut C64);
        unsafe fn add(self, o: Self) -> Self;
        unsafe fn sub(self, o: Self) -> Self;
        /// `self · w`, lane by lane, for `w` given as its parts duplicated (`(re, re)`
        /// and `(im, im)` per lane).
        unsafe fn mul(self, w: (Self, Self)) -> Self;
        /// `self · conj(w)`, lane by lane (`w` as in [`Cv::mul`]).
        unsafe fn mul_conj(self, w: (Self, Self)) -> Self;
        /// `-i self`.
        unsafe fn neg_i(self) -> Self;
        /// The forward radix-2 stages inside the register (half lengths `W/2, ..., 1`).
        unsafe fn forward_lanes(self) -> Self;
        /// Their inverse (times `W`).
        unsafe fn inverse_lanes(self) -> Self;
    }

    /// A twiddle (split, see [`Cv::mul`]).
    type Tw<V> = (V, V);

    /// The forward radix-4 butterfly on four registers (module documentation).
    #[inline(always)]
    unsafe fn fwd4<V: Cv>(r: [V; 4], w1: Tw<V>, w2: Tw<V>, w3: Tw<V>) -> [V; 4] {
        let [a, b, c, d] = r;
        let (s0, d0, s1, d1) = (a.add(c), a.sub(c), b.add(d), b.sub(d));
        let e = d1.neg_i();
        [
            s0.add(s1),
            s0.sub(s1).mul(w2),
            d0.add(e).mul(w1),
            d0.sub(e).mul(w3),
        ]
    }

    /// The inverse of [`fwd4`] (times 4).
    #[inline(always)]
    unsafe fn inv4<V: Cv>(r: [V; 4], w1: Tw<V>, w2: Tw<V>, w3: Tw<V>) -> [V; 4] {
        let [a, b, c, d] = r;
        let (b, c, d) = (b.mul_conj(w2), c.mul_conj(w1), d.mul_conj(w3));
        let (s0, d0, s1, d1) = (a.add(b), a.sub(b), c.add(d), c.sub(d));
        let e = d1.neg_i();
        [s0.add(s1), d0.sub(e), s0.sub(s1), d0.add(e)]
    }

    /// The twiddle of `roots[k]` (or of `roots3[k - m]`).
    #[inline(always)]
    unsafe fn twiddle<V: Cv>(t: &ComplexFft, k: usize) -> Tw<V> {
        (
            V::load(t.split[0].as_ptr().add(k)),
            V::load(t.split[1].as_ptr().add(k)),
        )
    }

    /// The twiddles of the radix-4 pass with quarter `q`, at `j`.
    #[inline(always)]
    unsafe fn twiddles<V: Cv>(t: &ComplexFft, q: usize, j: usize) -> (Tw<V>, Tw<V>, Tw<V>) {
        (
            twiddle(t, 2 * q + j),
            twiddle(t, q + j),
            twiddle(t, t.m + q + j),
        )
    }

    #[inline(always)]
    pub(super) unsafe fn forward<V: Cv>(t: &ComplexFft, x: &mut [C64]) {
        let (m, w) = (x.len(), V::W);
        let p = x.as_mut_ptr();
        let mut l = m;
        while l > 4 * w {
            let q = l / 4;
            for base in (0..m).step_by(l) {
                for j in (0..q).step_by(w) {
                    let (w1, w2, w3) = twiddles::<V>(t, q, j);
                    let o = p.add(base + j);
                    let r = [0, 1, 2, 3].map(|k| V::load(o.add(k * q)));
                    let r = fwd4(r, w1, w2, w3);
                    for (k, v) in r.into_iter().enumerate() {
                        v.store(o.add(k * q));
                    }
                }
            }
            l /= 4;
        }
        // The last pass: a block of four (or two) registers, then the stages inside each.
        if l == 4 * w {
            let (w1, w2, w3) = twiddles::<V>(t, w, 0);
            for base in (0..m).step_by(l) {
                let o = p.add(base);
                let r = [0, 1, 2, 3].map(|k| V::load(o.add(k * w)));
                let r = fwd4(r, w1, w2, w3);
                for (k, v) in r.into_iter().enumerate() {
                    v.forward_lanes().store(o.add(k * w));
                }
            }
        } else {
            debug_assert_eq!(l, 2 * w);
            let w1 = twiddle::<V>(t, w);
            for base in (0..m).step_by(l) {
                let o = p.add(base);
                let (a, b) = (V::load(o), V::load(o.add(w)));
                a.add(b).forward_lanes().store(o);
                a.sub(b).mul(w1).forward_lanes().store(o.add(w));
            }
        }
    }

    #[inline(always)]
    pub(super) unsafe fn inverse<V: Cv>(t: &ComplexFft, x: &mut [C64]) {
        let (m, w) = (x.len(), V::W);
        let p = x.as_mut_ptr();
        // The first pass: the stages inside each register, then a block of four (or two).
        let mut l = if m.trailing_zeros() % 2 == (4 * w).trailing_zeros() % 2 {
            let (w1, w2, w3) = twiddles::<V>(t, w, 0);
            for base in (0..m).step_by(4 * w) {
                let o = p.add(base);
                let r = [0, 1, 2, 3].map(|k| V::load(o.add(k * w)).inverse_lanes());
                let r = inv4(r, w1, w2, w3);
                for (k, v) in r.into_iter().enumerate() {
                    v.store(o.add(k * w));
                }
            }
            16 * w
        } else {
            let w1 = twiddle::<V>(t, w);
            for base in (0..m).step_by(2 * w) {
                let o = p.add(base);
                let a = V::load(o).inverse_lanes();
                let b = V::load(o.add(w)).inverse_lanes().mul_conj(w1);
                a.add(b).store(o);
                a.sub(b).store(o.add(w));
            }
            8 * w
        };
        while l <= m {
            let q = l / 4;
            for base in (0..m).step_by(l) {
                for j in (0..q).step_by(w) {
                    let (w1, w2, w3) = twiddles::<V>(t, q, j);
                    let o = p.add(base + j);
                    let r = [0, 1, 2, 3].map(|k| V::load(o.add(k * q)));
                    let r = inv4(r, w1, w2, w3);
                    for (k, v) in r.into_iter().enumerate() {
                        v.store(o.add(k * q));
                    }
                }
            }
            l *= 4;
        }
    }
}

/// AVX-512F: four complex numbers per register.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::passes::{self, Cv};
    use super::{ComplexFft, C64};
    use core::arch::x86_64::*;

    #[derive(Clone, Copy)]
    struct V(__m512d);

    /// Swaps the real and imaginary part of each complex number.
    #[inline(always)]
    unsafe fn swap(v: __m512d) -> __m512d {
        _mm512_permute_pd::<0b0101_0101>(v)
    }

    /// `-0.0` in the lanes of `mask`, `0.0` elsewhere (an `xor` negates those lanes).
    #[inline(always)]
    unsafe fn signs(mask: __mmask8) -> __m512d {
        _mm512_maskz_mov_pd(mask, _mm512_set1_pd(-0.0))
    }

    #[inline(always)]
    unsafe fn xor(a: __m512d, b: __m512d) -> __m512d {
        _mm512_castsi512_pd(_mm512_xor_si512(
            _mm512_castpd_si512(a),
            _mm512_castpd_si512(b),
        ))
    }

    impl Cv for V {
        const W: usize = 4;
        #[inline(always)]
        unsafe fn load(p: *const C64) -> Self {
            V(_mm512_loadu_pd(p as *const f64))
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut C64) {
            _mm512_storeu_pd(p as *mut f64, self.0)
        }
        #[inline(always)]
        unsafe fn add(self, o: Self) -> Self {
            V(_mm512_add_pd(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn sub(self, o: Self) -> Self {
            V(_mm512_sub_pd(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn mul(self, (wr, wi): (Self, Self)) -> Self {
            V(_mm512_fmaddsub_pd(
                self.0,
                wr.0,
                _mm512_mul_pd(swap(self.0), wi.0),
            ))
        }
        #[inline(always)]
        unsafe fn mul_conj(self, (wr, wi): (Self, Self)) -> Self {
            V(_mm512_fmsubadd_pd(
                self.0,
                wr.0,
                _mm512_mul_pd(swap(self.0), wi.0),
            ))
        }
        #[inline(always)]
        unsafe fn neg_i(self) -> Self {
            // -i (r + i s) = s - i r.
            V(xor(swap(self.0), signs(0b1010_1010)))
        }
        #[inline(always)]
        unsafe fn forward_lanes(self) -> Self {
            // [x0, x1, x2, x3] -> [u0, u1, v0, v1] = [x0 + x2, x1 + x3, x0 - x2,
            // -i (x1 - x3)] -> [u0 + u1, u0 - u1, v0 + v1, v0 - v1].
            let v = self.0;
            let (a, b) = (
                _mm512_shuffle_f64x2::<0b01_00_01_00>(v, v),
                _mm512_shuffle_f64x2::<0b11_10_11_10>(v, v),
            );
            let t = _mm512_fmadd_pd(b, pm(0b1111_0000), a);
            // Lane 3 times -i: swap its parts, then negate the imaginary one.
            let t = xor(
                _mm512_mask_permute_pd::<0b0101_0101>(t, 0b1100_0000, t),
                signs(0b1000_0000),
            );
            let (a, b) = (
                _mm512_shuffle_f64x2::<0b10_10_00_00>(t, t),
                _mm512_shuffle_f64x2::<0b11_11_01_01>(t, t),
            );
            V(_mm512_fmadd_pd(b, pm(0b1100_1100), a))
        }
        #[inline(always)]
        unsafe fn inverse_lanes(self) -> Self {
            // [y0, y1, y2, y3] -> [u0, u1, v0, v1] = [y0 + y1, y0 - y1, y2 + y3,
            // i (y2 - y3)] -> [u0 + v0, u1 + v1, u0 - v0, u1 - v1].
            let v = self.0;
            let (a, b) = (
                _mm512_shuffle_f64x2::<0b10_10_00_00>(v, v),
                _mm512_shuffle_f64x2::<0b11_11_01_01>(v, v),
            );
            let t = _mm512_fmadd_pd(b, pm(0b1100_1100), a);
            // Lane 3 times i: swap its parts, then negate the real one.
            let t = xor(
                _mm512_mask_permute_pd::<0b0101_0101>(t, 0b1100_0000, t),
                signs(0b0100_0000),
            );
            let (a, b) = (
                _mm512_shuffle_f64x2::<0b01_00_01_00>(t, t),
                _mm512_shuffle_f64x2::<0b11_10_11_10>(t, t),
            );
            V(_mm512_fmadd_pd(b, pm(0b1111_0000), a))
        }
    }

    /// `-1.0` in the lanes of `mask`, `1.0` elsewhere.
    #[inline(always)]
    unsafe fn pm(mask: __mmask8) -> __m512d {
        _mm512_mask_mov_pd(_mm512_set1_pd(1.0), mask, _mm512_set1_pd(-1.0))
    }

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn forward(t: &ComplexFft, x: &mut [C64]) {
        passes::forward::<V>(t, x)
    }

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn inverse(t: &ComplexFft, x: &mut [C64]) {
        passes::inverse::<V>(t, x)
    }
}

/// AVX2 and FMA: two complex numbers per register.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::passes::{self, Cv};
    use super::{ComplexFft, C64};
    use core::arch::x86_64::*;

    #[derive(Clone, Copy)]
    struct V(__m256d);

    #[inline(always)]
    unsafe fn swap(v: __m256d) -> __m256d {
        _mm256_permute_pd::<0b0101>(v)
    }

    impl Cv for V {
        const W: usize = 2;
        #[inline(always)]
        unsafe fn load(p: *const C64) -> Self {
            V(_mm256_loadu_pd(p as *const f64))
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut C64) {
            _mm256_storeu_pd(p as *mut f64, self.0)
        }
        #[inline(always)]
        unsafe fn add(self, o: Self) -> Self {
            V(_mm256_add_pd(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn sub(self, o: Self) -> Self {
            V(_mm256_sub_pd(self.0, o.0))
        }
        #[inline(always)]
        unsafe fn mul(self, (wr, wi): (Self, Self)) -> Self {
            V(_mm256_fmaddsub_pd(
                self.0,
                wr.0,
                _mm256_mul_pd(swap(self.0), wi.0),
            ))
        }
        #[inline(always)]
        unsafe fn mul_conj(self, (wr, wi): (Self, Self)) -> Self {
            V(_mm256_fmsubadd_pd(
                self.0,
                wr.0,
                _mm256_mul_pd(swap(self.0), wi.0),
            ))
        }
        #[inline(always)]
        unsafe fn neg_i(self) -> Self {
            // -i (r + i s) = s - i r.
            V(_mm256_xor_pd(
                swap(self.0),
                _mm256_set_pd(-0.0, 0.0, -0.0, 0.0),
            ))
        }
        #[inline(always)]
        unsafe fn forward_lanes(self) -> Self {
            // [x0, x1] -> [x0 + x1, x0 - x1].
            let v = self.0;
            let (a, b) = (
                _mm256_permute2f128_pd::<0x00>(v, v),
                _mm256_permute2f128_pd::<0x11>(v, v),
            );
            V(_mm256_fmadd_pd(b, _mm256_set_pd(-1.0, -1.0, 1.0, 1.0), a))
        }
        #[inline(always)]
        unsafe fn inverse_lanes(self) -> Self {
            self.forward_lanes()
        }
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn forward(t: &ComplexFft, x: &mut [C64]) {
        passes::forward::<V>(t, x)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn inverse(t: &ComplexFft, x: &mut [C64]) {
        passes::inverse::<V>(t, x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn bitrev(k: usize, bits: u32) -> usize {
        k.reverse_bits() >> (usize::BITS - bits)
    }

    fn random(m: usize, seed: u64) -> Vec<C64> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..m)
            .map(|_| C64::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
            .collect()
    }

    fn isas() -> impl Iterator<Item = Isa> {
        Isa::ALL.into_iter().filter(|i| i.available())
    }

    /// Every implementation computes the DFT (against the direct sum), in bit-reversed
    /// order, and the inverse returns `m` times the input.
    #[test]
    fn forward_is_the_dft_in_bit_reversed_order() {
        for m in [8usize, 16, 32, 64, 128, 512, 1024] {
            let f = ComplexFft::new(m);
            let x = random(m, m as u64);
            let bits = m.trailing_zeros();
            let want: Vec<C64> = (0..m)
                .map(|k| {
                    let k = bitrev(k, bits);
                    (0..m)
                        .map(|j| {
                            let t = -2.0 * std::f64::consts::PI * ((j * k % m) as f64 / m as f64);
                            x[j] * C64::new(t.cos(), t.sin())
                        })
                        .sum()
                })
                .collect();
            for isa in isas() {
                let mut y = x.clone();
                f.forward_with(isa, &mut y);
                for (k, (g, w)) in y.iter().zip(&want).enumerate() {
                    assert!(
                        (g - w).norm() < 1e-12 * m as f64,
                        "m {m}, {isa}, k {k}: {g} {w}"
                    );
                }
                f.inverse_with(isa, &mut y);
                for (g, w) in y.iter().zip(&x) {
                    assert!((g / m as f64 - w).norm() < 1e-14 * m as f64, "m {m}, {isa}");
                }
            }
        }
    }

    /// The SIMD paths agree with the portable one to within a few ulps of the largest
    /// value (the passes group the stages differently, so not word for word).
    #[test]
    fn simd_paths_agree_with_the_portable_one() {
        for m in [8usize, 16, 32, 256, 512, 1024, 2048] {
            let f = ComplexFft::new(m);
            let x: Vec<C64> = random(m, 3 + m as u64)
                .into_iter()
                .map(|c| c * 1e12)
                .collect();
            let (mut fs, mut is) = (x.clone(), x.clone());
            f.forward_with(Isa::Scalar, &mut fs);
            f.inverse_with(Isa::Scalar, &mut is);
            let tol = 1e12 * m as f64 * 1e-15;
            for isa in isas() {
                let (mut fx, mut ix) = (x.clone(), x.clone());
                f.forward_with(isa, &mut fx);
                f.inverse_with(isa, &mut ix);
                for (a, b) in fx.iter().zip(&fs).chain(ix.iter().zip(&is)) {
                    assert!((a - b).norm() < tol, "m {m}, {isa}: {a} {b}");
                }
            }
        }
    }
}
