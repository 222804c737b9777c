//! Point-wise products of transforms: [`mul_acc2`] (two sums per output, the FHEW
//! external product's shape) and its 32-bit fixed-point twin [`mul_acc2_compact`] over
//! [`CompactTransforms`] (the compact blind-rotation keys).

#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use super::{portable, C64};
use crate::math::kernels::Isa;

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
pub(super) fn mul_acc2_on(
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
pub(super) fn mul_acc2_compact_on(
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
