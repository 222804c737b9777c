//! The factored special-FFT matrices of the bootstrapping's CoeffsToSlots and SlotsToCoeffs
//! (the "homomorphic DFT", seed 003 §5.3), as plaintext diagonals.
//!
//! **The factorization.** The special FFT on `n` slots (`SpecialFft`, slot order `5^j`)
//! is a bit-reversal followed by `log2 n` radix-2 butterfly stages of half-length
//! `h = 1, 2, ..., n/2`; its inverse runs the stages `h = n/2, ..., 1` with conjugated
//! twiddles, then bit-reverses and divides by `n`. One stage maps, for every block of `2h`
//! positions and `j < h`, the pair `(u, v)` at positions `(block + j, block + j + h)` to
//!
//! ```text
//! forward (SF_n):        u' = u + w_j v,       v' = u - w_j v
//! inverse (SF_n^{-1}):   u' = (u + v) / 2,     v' = (u - v) conj(w_j) / 2
//! ```
//!
//! (`w_j` = `SpecialFft`'s twiddle `ζ_(8h)^(5^j mod 8h)`; the `1/n` of the inverse is spread
//! as a `1/2` per stage). As a matrix on the slots a stage has exactly the three generalized
//! diagonals `0`, `h` and `n - h` (two when `h = n/2`, where `h ≡ n - h`), written here
//! directly from the twiddles in `O(n)`.
//!
//! **Merged levels** (seed 003 §5.3, the parameter `ρ`; Cheon et al. and Chen et al.). One
//! level of the homomorphic circuit evaluates one plaintext matrix by baby-step giant-step,
//! so the `log2 n` stages are grouped into `ρ = levels` consecutive groups, each group's
//! stages multiplied out ([`Diagonals::compose`]) into one factor matrix. A group of `m`
//! stages of half-lengths `h, 2h, ..., 2^(m-1) h` only has diagonals at the indices
//! `Σ ±{0, 2^s h}`, i.e. the multiples of `h` in `(-2^m h, 2^m h)`: at most `2^(m+1) - 1`
//! diagonals (fewer once they wrap modulo `n`), and `O(2^(m/2))` rotations by BSGS. The
//! groups are as even as possible; when `levels` does not divide `log2 n`, the larger groups
//! are the ones on the large-`h` stages, i.e. the factors applied **first** for
//! CoeffsToSlots and **last** for SlotsToCoeffs (SlotsToCoeffs is CoeffsToSlots' grouping
//! reversed, as in Lattigo).
//!
//! **No bit-reversal.** CoeffsToSlots computes `bitrev(SF_n^{-1} v)` and SlotsToCoeffs
//! computes `SF_n(bitrev(v))`: the bit-reversal is dropped on both sides. Between them the
//! bootstrapping only evaluates EvalMod, which acts slot by slot and so commutes with any
//! slot permutation; the two dropped permutations cancel (`bitrev` is an involution), so
//! CoeffsToSlots followed by SlotsToCoeffs is the identity. Without the permutation each
//! stage stays a three-diagonal matrix.
//!
//! **Matrix scaling** (seed 003 §5.5). The constants the bootstrapping needs around EvalMod
//! (SubSum's `2n/N`, the Chebyshev change of variable, the `Q_0` correction) are merged into
//! the DFT: the caller passes their product as `scale`, and each of the `ρ` factors carries
//! the equal share `μ = scale^(1/ρ)` (the principal complex root), so every factor has the
//! same magnitude and consumes the same precision.

use num_complex::Complex64;

use crate::circuits::lintrans::Diagonals;
use crate::math::fft::SpecialFft;
use crate::{Error, Result};

/// Which half of the bootstrapping's DFT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DftKind {
    /// The encoding `SF_n^{-1}` (coefficients to slots, before EvalMod), without its final
    /// bit-reversal: `v -> bitrev(SF_n^{-1} v)`, the `1/n` included.
    CoeffsToSlots,
    /// The decoding `SF_n` (slots to coefficients, after EvalMod), without its initial
    /// bit-reversal: `v -> SF_n(bitrev(v))`.
    SlotsToCoeffs,
}

/// The special FFT on `slots = n` slots (or its inverse), without its bit-reversal, split
/// into `levels = ρ` factor matrices (each one level of the homomorphic circuit), returned
/// in application order (`factors[0]` is applied first); the whole product times `scale`.
///
/// * [`DftKind::SlotsToCoeffs`]: the product maps `v` to `scale · SF_n(bitrev(v))` (the
///   stages of `SpecialFft::forward_inplace` without its bit-reversal);
/// * [`DftKind::CoeffsToSlots`]: the product maps `v` to `scale · bitrev(SF_n^{-1} v)` (the
///   stages of `SpecialFft::inverse_inplace` and its `1/n`, without its bit-reversal).
///
/// Each factor carries `μ = scale^(1/ρ)`, the principal root (argument in `(-π/ρ, π/ρ]`;
/// a positive real `scale` gives a positive real `μ`). A factor grouping `m` butterfly stages
/// has at most `2^(m+1) - 1` diagonals; the grouping is described in the
/// [module documentation](self).
///
/// `slots` must be a power of two (`1` included: the single factor is the `1 × 1` matrix
/// `scale`), `levels` in `[1, log2 n]` (`levels = 1` when `n = 1`), and `scale` finite and
/// non-zero.
pub fn dft_factors(
    slots: usize,
    kind: DftKind,
    levels: usize,
    scale: Complex64,
) -> Result<Vec<Diagonals<Complex64>>> {
    if !slots.is_power_of_two() {
        return Err(Error::InvalidParameters(format!(
            "the homomorphic DFT acts on a power-of-two number of slots, not {slots}"
        )));
    }
    let log_n = slots.trailing_zeros() as usize;
    let max_levels = log_n.max(1);
    if levels == 0 || levels > max_levels {
        return Err(Error::InvalidParameters(format!(
            "the DFT on {slots} slots splits into 1 to {max_levels} levels (one per butterfly \
             stage at most), not {levels}"
        )));
    }
    if !scale.is_finite() || scale == Complex64::new(0.0, 0.0) {
        return Err(Error::InvalidParameters(format!(
            "the DFT scale must be finite and non-zero, got {scale}"
        )));
    }
    let share = principal_root(scale, levels);
    if slots == 1 {
        let mut d = Diagonals::new(1)?;
        d.insert(0, vec![share])?;
        return Ok(vec![d]);
    }
    let fft = SpecialFft::new(slots)?;
    // Stage exponents s (half-length h = 2^s) in application order.
    let stages: Vec<u32> = match kind {
        DftKind::SlotsToCoeffs => (0..log_n as u32).collect(),
        DftKind::CoeffsToSlots => (0..log_n as u32).rev().collect(),
    };
    let mut factors = Vec::with_capacity(levels);
    let mut rest = stages.as_slice();
    for size in group_sizes(log_n, levels, kind) {
        let (group, tail) = rest.split_at(size);
        rest = tail;
        let mut factor = butterfly_stage(&fft, slots, kind, 1 << group[0], share);
        for &s in &group[1..] {
            factor = butterfly_stage(&fft, slots, kind, 1 << s, Complex64::new(1.0, 0.0))
                .compose(&factor)?;
        }
        factors.push(factor);
    }
    Ok(factors)
}

/// The principal `levels`-th root of `scale` (argument in `(-π/levels, π/levels]`), exact
/// for `levels = 1` and real for a positive real `scale`.
fn principal_root(scale: Complex64, levels: usize) -> Complex64 {
    if levels == 1 {
        return scale;
    }
    let e = 1.0 / levels as f64;
    if scale.im == 0.0 && scale.re > 0.0 {
        return Complex64::new(scale.re.powf(e), 0.0);
    }
    // A zero imaginary part of either sign has argument +π on the negative axis.
    let (r, theta) =
        Complex64::new(scale.re, if scale.im == 0.0 { 0.0 } else { scale.im }).to_polar();
    Complex64::from_polar(r.powf(e), theta * e)
}

/// How many butterfly stages each factor groups, in application order: `log_n` split into
/// `levels` sizes differing by at most one, the larger ones on the large-`h` stages (first
/// for CoeffsToSlots, last for SlotsToCoeffs).
fn group_sizes(log_n: usize, levels: usize, kind: DftKind) -> Vec<usize> {
    let (base, extra) = (log_n / levels, log_n % levels);
    (0..levels)
        .map(|i| {
            let larger = match kind {
                DftKind::CoeffsToSlots => i < extra,
                DftKind::SlotsToCoeffs => i >= levels - extra,
            };
            base + usize::from(larger)
        })
        .collect()
}

/// The butterfly stage of half-length `h` (`h < n`, `fft` built for `n` slots) as diagonals `0`, `h`, `n - h` (merged
/// when `h = n/2`), every entry times `c`: the forward stage for SlotsToCoeffs, the inverse
/// stage with its `1/2` for CoeffsToSlots (see the [module documentation](self)).
fn butterfly_stage(
    fft: &SpecialFft,
    n: usize,
    kind: DftKind,
    h: usize,
    c: Complex64,
) -> Diagonals<Complex64> {
    let tw = fft.stage_twiddles(h);
    let zero = Complex64::new(0.0, 0.0);
    let (mut main, mut up, mut down) = (vec![zero; n], vec![zero; n], vec![zero; n]);
    let c = match kind {
        DftKind::SlotsToCoeffs => c,
        DftKind::CoeffsToSlots => c * 0.5,
    };
    for block in (0..n).step_by(2 * h) {
        for (j, &w) in tw.iter().enumerate() {
            let (p, q) = (block + j, block + j + h);
            // Row p: u' = main[p] u + up[p] v; row q: v' = down[q] u + main[q] v.
            main[p] = c;
            match kind {
                DftKind::SlotsToCoeffs => {
                    up[p] = c * w;
                    down[q] = c;
                    main[q] = -(c * w);
                }
                DftKind::CoeffsToSlots => {
                    let cw = c * w.conj();
                    up[p] = c;
                    down[q] = cw;
                    main[q] = -cw;
                }
            }
        }
    }
    let mut d = Diagonals::new(n).expect("n is a power of two");
    d.insert(0, main).expect("a fresh diagonal");
    if 2 * h == n {
        // h ≡ n - h: `up` lives on the low rows, `down` on the high rows.
        let both = up.iter().zip(&down).map(|(a, b)| a + b).collect();
        d.insert(h as i64, both).expect("a fresh diagonal");
    } else {
        d.insert(h as i64, up).expect("a fresh diagonal");
        d.insert((n - h) as i64, down).expect("a fresh diagonal");
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{RngCore, SeedableRng};

    const SIZES: [usize; 5] = [1, 2, 8, 64, 2048];

    fn random_vec(rng: &mut ChaCha20Rng, n: usize) -> Vec<Complex64> {
        let mut unit = || (rng.next_u64() >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0;
        (0..n).map(|_| Complex64::new(unit(), unit())).collect()
    }

    fn apply_all(factors: &[Diagonals<Complex64>], v: &[Complex64]) -> Vec<Complex64> {
        factors
            .iter()
            .fold(v.to_vec(), |acc, f| f.apply(&acc).unwrap())
    }

    /// max |a - b| / max |b|.
    fn rel_err(a: &[Complex64], b: &[Complex64]) -> f64 {
        let diff = a
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).norm())
            .fold(0.0, f64::max);
        diff / b.iter().map(|z| z.norm()).fold(0.0, f64::max)
    }

    fn levels_range(n: usize) -> std::ops::RangeInclusive<usize> {
        1..=(n.trailing_zeros() as usize).max(1)
    }

    /// The SpecialFft-based reference of `dft_factors`' product.
    fn reference(n: usize, kind: DftKind, scale: Complex64, v: &[Complex64]) -> Vec<Complex64> {
        let fft = SpecialFft::new(n).unwrap();
        let mut w = v.to_vec();
        match kind {
            DftKind::SlotsToCoeffs => {
                fft.bit_reverse_inplace(&mut w);
                fft.forward_inplace(&mut w);
            }
            DftKind::CoeffsToSlots => {
                fft.inverse_inplace(&mut w);
                fft.bit_reverse_inplace(&mut w);
            }
        }
        w.iter().map(|z| z * scale).collect()
    }

    #[test]
    fn factors_multiply_to_the_special_fft_without_bit_reversal() {
        let mut rng = ChaCha20Rng::seed_from_u64(0xdf7_0001);
        let scales = [
            Complex64::new(1.0, 0.0),
            Complex64::new(0.37, -1.25),
            Complex64::new(-3.0, 0.0),
        ];
        for n in SIZES {
            let v = random_vec(&mut rng, n);
            for kind in [DftKind::CoeffsToSlots, DftKind::SlotsToCoeffs] {
                for &scale in &scales {
                    let want = reference(n, kind, scale, &v);
                    for levels in levels_range(n) {
                        let factors = dft_factors(n, kind, levels, scale).unwrap();
                        assert_eq!(factors.len(), levels);
                        assert!(factors.iter().all(|f| f.slots() == n));
                        let got = apply_all(&factors, &v);
                        let err = rel_err(&got, &want);
                        assert!(
                            err < 1e-9,
                            "n = {n}, {kind:?}, levels = {levels}, scale = {scale}: {err:e}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn coeffs_to_slots_then_slots_to_coeffs_is_the_identity() {
        let mut rng = ChaCha20Rng::seed_from_u64(0xdf7_0002);
        for n in SIZES {
            let v = random_vec(&mut rng, n);
            let max = levels_range(n).count();
            for cts_levels in levels_range(n) {
                // Unrelated depths on both sides, and scales that cancel.
                let stc_levels = max + 1 - cts_levels;
                let s = Complex64::new(0.5, 2.0);
                let mut factors = dft_factors(n, DftKind::CoeffsToSlots, cts_levels, s).unwrap();
                factors
                    .extend(dft_factors(n, DftKind::SlotsToCoeffs, stc_levels, s.inv()).unwrap());
                let err = rel_err(&apply_all(&factors, &v), &v);
                assert!(err < 1e-9, "n = {n}, {cts_levels} + {stc_levels}: {err:e}");
                let one = Complex64::new(1.0, 0.0);
                let mut plain = dft_factors(n, DftKind::CoeffsToSlots, cts_levels, one).unwrap();
                plain.extend(dft_factors(n, DftKind::SlotsToCoeffs, cts_levels, one).unwrap());
                let err = rel_err(&apply_all(&plain, &v), &v);
                assert!(err < 1e-9, "n = {n}, {cts_levels} + {cts_levels}: {err:e}");
            }
        }
    }

    #[test]
    fn factor_diagonals_are_bounded_by_their_stage_count() {
        for n in SIZES.into_iter().chain([32, 1024]) {
            let log_n = n.trailing_zeros() as usize;
            for kind in [DftKind::CoeffsToSlots, DftKind::SlotsToCoeffs] {
                for levels in levels_range(n) {
                    let factors = dft_factors(n, kind, levels, Complex64::new(1.0, 0.0)).unwrap();
                    let sizes = group_sizes(log_n, levels, kind);
                    assert_eq!(sizes.iter().sum::<usize>(), log_n);
                    let (lo, hi) = (sizes.iter().min(), sizes.iter().max());
                    assert!(hi.unwrap() - lo.unwrap() <= 1);
                    // Stage exponents in application order, cut into the groups.
                    let mut exps: Vec<usize> = (0..log_n).collect();
                    if kind == DftKind::CoeffsToSlots {
                        exps.reverse();
                    }
                    let mut at = 0;
                    for (f, &m) in factors.iter().zip(&sizes) {
                        let group = &exps[at..at + m];
                        at += m;
                        let h_min = group.iter().map(|&s| 1usize << s).min().unwrap_or(1);
                        let span = (1usize << m) - 1; // the indices are multiples of h_min
                        let bound = (2 * span + 1).min(n / h_min);
                        assert!(f.len() < (1 << (m + 1)), "at most 2^(m+1) - 1 diagonals");
                        assert_eq!(f.len(), bound, "n = {n}, {kind:?}, levels = {levels}");
                        assert!(f.indices().all(|k| k % h_min == 0));
                    }
                }
            }
        }
        // 11 stages in 3 groups: the larger groups hold the large-h stages.
        assert_eq!(group_sizes(11, 3, DftKind::CoeffsToSlots), [4, 4, 3]);
        assert_eq!(group_sizes(11, 3, DftKind::SlotsToCoeffs), [3, 4, 4]);
        assert_eq!(group_sizes(11, 4, DftKind::CoeffsToSlots), [3, 3, 3, 2]);
        assert_eq!(group_sizes(11, 4, DftKind::SlotsToCoeffs), [2, 3, 3, 3]);
        // One stage: the three diagonals 0, h, n - h; the last stage: two (h ≡ n - h).
        let f = dft_factors(64, DftKind::SlotsToCoeffs, 6, Complex64::new(1.0, 0.0)).unwrap();
        assert_eq!(f[0].indices().collect::<Vec<_>>(), [0, 1, 63]);
        assert_eq!(f[5].indices().collect::<Vec<_>>(), [0, 32]);
    }

    #[test]
    fn every_factor_carries_the_principal_root_of_the_scale() {
        let mut rng = ChaCha20Rng::seed_from_u64(0xdf7_0003);
        let v = random_vec(&mut rng, 64);
        for scale in [
            Complex64::new(4096.0, 0.0),
            Complex64::new(-8.0, 0.0),
            Complex64::new(-8.0, -0.0),
            Complex64::new(0.0, -2.0),
        ] {
            for levels in 1..=6 {
                let mu = principal_root(scale, levels);
                assert!((mu.powu(levels as u32) - scale).norm() < 1e-12 * scale.norm());
                if levels == 1 {
                    assert_eq!(mu, scale);
                } else {
                    // The principal root: argument in (-π/levels, π/levels], -8 ± 0i -> +i.
                    let arg = mu.arg() * levels as f64;
                    let pi = std::f64::consts::PI;
                    assert!(arg > -pi + 1e-9 && arg <= pi + 1e-12, "{scale}, {levels}");
                }
                // Factor i scaled by mu: each factor is its unscaled version times mu.
                let one = Complex64::new(1.0, 0.0);
                for kind in [DftKind::CoeffsToSlots, DftKind::SlotsToCoeffs] {
                    let scaled = dft_factors(64, kind, levels, scale).unwrap();
                    let plain = dft_factors(64, kind, levels, one).unwrap();
                    for (s, p) in scaled.iter().zip(&plain) {
                        let want: Vec<Complex64> =
                            p.apply(&v).unwrap().iter().map(|z| z * mu).collect();
                        assert!(rel_err(&s.apply(&v).unwrap(), &want) < 1e-12);
                    }
                }
            }
        }
        assert_eq!(
            principal_root(Complex64::new(4096.0, 0.0), 3),
            Complex64::new(4096f64.powf(1.0 / 3.0), 0.0)
        );
        // n = 1: the 1 × 1 matrix `scale`.
        let s = Complex64::new(0.25, -7.0);
        let f = dft_factors(1, DftKind::CoeffsToSlots, 1, s).unwrap();
        assert_eq!((f.len(), f[0].get(0).unwrap()), (1, &[s][..]));
    }

    #[test]
    fn invalid_slot_counts_levels_and_scales_are_refused() {
        let one = Complex64::new(1.0, 0.0);
        let kinds = [DftKind::CoeffsToSlots, DftKind::SlotsToCoeffs];
        for kind in kinds {
            for slots in [0, 3, 12, 100] {
                assert!(matches!(
                    dft_factors(slots, kind, 1, one),
                    Err(Error::InvalidParameters(_))
                ));
            }
            for (slots, levels) in [(1, 0), (1, 2), (2, 0), (2, 2), (8, 0), (8, 4), (2048, 12)] {
                assert!(matches!(
                    dft_factors(slots, kind, levels, one),
                    Err(Error::InvalidParameters(_))
                ));
            }
            for scale in [
                Complex64::new(0.0, 0.0),
                Complex64::new(f64::NAN, 1.0),
                Complex64::new(1.0, f64::INFINITY),
            ] {
                assert!(matches!(
                    dft_factors(8, kind, 3, scale),
                    Err(Error::InvalidParameters(_))
                ));
            }
            assert!(dft_factors(8, kind, 3, one).is_ok());
            assert!(dft_factors(2, kind, 1, one).is_ok());
        }
    }
}
