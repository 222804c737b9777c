//! RNS bases, CRT constants, exact fast base conversion, and exact CRT reconstruction.
//!
//! A residue-number-system (RNS) basis `C = {q_0, ..., q_{l-1}}` of distinct word primes
//! represents an integer `x mod Q`, `Q = prod q_i`, by its residues `x_i = x mod q_i`.
//! Polynomials store their residues limb-major: `data[i * n + k]` is coefficient `k`
//! modulo `q_i`.
//!
//! # Fast base conversion (`Conv_{C -> B}`)
//!
//! For a target basis `B = {p_j}`:
//!
//! ```text
//! y_i   = [x_i * (Q/q_i)^-1]_{q_i}                       (one Shoup product per input limb)
//! v     = round( sum_i y_i / q_i )                        (floating point, Halevi-Polyakov-Shoup)
//! out_j = [ sum_i y_i * [Q/q_i]_{p_j} - v * [Q]_{p_j} ]_{p_j}
//! ```
//!
//! Since `sum_i y_i (Q/q_i) = x + u Q` with `u = floor(sum y_i / q_i)` for `x` in `[0, Q)`,
//! subtracting `v Q` with the *rounded* quotient yields the **centered** representative of
//! `x` (in `[-Q/2, Q/2)`) in the new basis, exactly. The floating-point sum has relative
//! error about `l * 2^-53`, so the result is exact unless `x` lies within `~l * 2^-53 * Q`
//! of `Q/2` (probability about `l * 2^-52` for a uniformly random `x`; the oracle tests
//! probe up to `Q/2 - Q/2^40`). [`BaseConverter::convert`] is what ModUp and ModDown use; the
//! approximate variant ([`BaseConverter::convert_approx`], `v = 0`, output `x + u Q` with
//! `0 <= u < l`) is offered for callers whose algebra absorbs multiples of `Q`.
//!
//! # Implementation
//!
//! The conversion runs over blocks of coefficients sized so that the block's `y` rows and
//! `v` stay in L1 while every output limb of the block is produced (inputs and outputs are
//! each streamed once). On x86-64 with AVX-512 the block is vectorized
//! (`math/kernels/avx512.rs`; with AVX2, `math/kernels/avx2.rs` does the same with four
//! 64-bit lanes): the `y_i` Shoup products, the `f64` sum for `v` (same
//! operation order as the scalar code, so the same rounding), and the output sums with lazy
//! reduction — 52-bit IFMA accumulators for output primes below `2^50` (larger input
//! residues split into two terms), 64-bit lanes otherwise, with `v [-Q]_{p_j}` as one
//! more term of the sum. Every path returns the same words as the scalar one
//! ([`BaseConverter::convert_using`] selects one explicitly).
//!
//! # ModUp and ModDown
//!
//! `ModUp` (extend `x` from `C` to `C ∪ B`) is `Conv_{C -> B}` next to the unchanged
//! residues. `ModDown` (divide `x` over `C ∪ B` by `P = prod p_j`, rounding) is
//! `(x_i - Conv_{B -> C}([x]_B)_i) * P^-1 mod q_i`: because the conversion is exact and
//! centered, the result is `(x - [x]_P) / P = round(x / P)` exactly. Both live here on
//! plain limb-major slices; the `ring` layer calls them with NTT transforms around.
//!
//! # CRT reconstruction
//!
//! [`CrtReconstructor`] turns residues back into integers (as `f64` for CKKS decoding, or
//! exactly as mixed-radix digits) with Garner's algorithm, `O(l^2)` word products per
//! coefficient and no big integers.

use super::kernels::{Isa, LaneConsts};
use super::modulus::Modulus;
use crate::{Error, Result};

/// An RNS basis: distinct primes below `2^62`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RnsBasis {
    moduli: Vec<Modulus>,
}

impl RnsBasis {
    /// A basis from distinct primes (validated: distinct, in `[2, 2^62)`).
    pub fn new(primes: &[u64]) -> Result<Self> {
        for (i, &p) in primes.iter().enumerate() {
            if !(2..1u64 << 62).contains(&p) {
                return Err(Error::InvalidParameters(format!(
                    "RNS modulus {p} is outside [2, 2^62)"
                )));
            }
            if primes[..i].contains(&p) {
                return Err(Error::InvalidParameters(format!(
                    "RNS modulus {p} appears twice; RNS primes must be distinct"
                )));
            }
        }
        Ok(RnsBasis {
            moduli: primes.iter().map(|&p| Modulus::new(p)).collect(),
        })
    }

    /// A basis from already-built moduli (distinctness is the caller's invariant).
    pub fn from_moduli(moduli: Vec<Modulus>) -> Self {
        debug_assert!(moduli
            .iter()
            .enumerate()
            .all(|(i, m)| !moduli[..i].contains(m)));
        RnsBasis { moduli }
    }

    /// The moduli, in order.
    pub fn moduli(&self) -> &[Modulus] {
        &self.moduli
    }

    /// Number of primes.
    pub fn len(&self) -> usize {
        self.moduli.len()
    }

    /// Whether the basis has no primes.
    pub fn is_empty(&self) -> bool {
        self.moduli.is_empty()
    }

    /// `log2 Q`.
    pub fn log_product(&self) -> f64 {
        self.moduli.iter().map(|m| (m.value() as f64).log2()).sum()
    }

    /// `Q mod m` for another modulus `m`.
    pub fn product_mod(&self, m: &Modulus) -> u64 {
        self.moduli
            .iter()
            .fold(1 % m.value(), |acc, q| m.mul(acc, m.reduce(q.value())))
    }

    /// The sub-basis of the primes at `range`.
    pub fn slice(&self, range: std::ops::Range<usize>) -> RnsBasis {
        RnsBasis {
            moduli: self.moduli[range].to_vec(),
        }
    }
}

/// Precomputed fast base conversion `Conv_{C -> B}` (see the module documentation).
#[derive(Clone, Debug)]
pub struct BaseConverter {
    from: Vec<Modulus>,
    to: Vec<Modulus>,
    /// [(Q/q_i)^-1]_{q_i} and Shoup companions.
    q_hat_inv: Vec<u64>,
    q_hat_inv_shoup: Vec<u64>,
    /// [Q/q_i]_{p_j}, stored row-major by output: `q_hat_mod_p[j * l + i]`.
    q_hat_mod_p: Vec<u64>,
    /// [-v Q]_{p_j} for v = 0..=l: `neg_vq_mod_p[j * (l + 1) + v]`.
    neg_vq_mod_p: Vec<u64>,
    /// 1 / q_i.
    inv_q: Vec<f64>,
    /// How many 128-bit products can be summed before a reduction is needed.
    max_terms: usize,
    /// Tables of the SIMD paths (`math/kernels/avx512.rs`).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    simd: SimdTables,
}

/// The constants of the SIMD conversion, next to the scalar ones.
#[derive(Clone, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct SimdTables {
    /// Whether every modulus suits the SIMD lanes (odd, at most 61 bits).
    ok: bool,
    from: Vec<LaneConsts>,
    to: Vec<LaneConsts>,
    /// 52-bit companions of `q_hat_inv` (for `q_i < 2^50`, else 0).
    q_hat_inv_shoup52: Vec<u64>,
    /// `q_hat_mod_p` with the 32-bit halves of each word swapped.
    q_hat_mod_p_sw: Vec<u64>,
    /// `[(Q/q_i) 2^50]_{p_j}`, same layout as `q_hat_mod_p`.
    q_hat_mod_p_split: Vec<u64>,
    /// `[-Q]_{p_j}`, and with halves swapped.
    neg_q: Vec<u64>,
    neg_q_sw: Vec<u64>,
}

impl BaseConverter {
    /// The conversion from basis `from` to basis `to` (the bases must be disjoint).
    pub fn new(from: &RnsBasis, to: &RnsBasis) -> Self {
        let l = from.len();
        let mut q_hat_inv = Vec::with_capacity(l);
        for (i, qi) in from.moduli.iter().enumerate() {
            let q_hat = from
                .moduli
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != i)
                .fold(1u64, |acc, (_, qk)| qi.mul(acc, qi.reduce(qk.value())));
            q_hat_inv.push(qi.inv(q_hat).expect("RNS primes are coprime"));
        }
        let q_hat_inv_shoup = q_hat_inv
            .iter()
            .zip(&from.moduli)
            .map(|(&w, q)| q.shoup(w))
            .collect();
        let mut q_hat_mod_p = Vec::with_capacity(to.len() * l);
        let mut neg_vq_mod_p = Vec::with_capacity(to.len() * (l + 1));
        for pj in &to.moduli {
            for i in 0..l {
                let v = from
                    .moduli
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| k != i)
                    .fold(1 % pj.value(), |acc, (_, qk)| {
                        pj.mul(acc, pj.reduce(qk.value()))
                    });
                q_hat_mod_p.push(v);
            }
            let q_mod = from.product_mod(pj);
            for v in 0..=l as u64 {
                neg_vq_mod_p.push(pj.neg(pj.mul(pj.reduce(v), q_mod)));
            }
        }
        let max_bits = from
            .moduli
            .iter()
            .chain(&to.moduli)
            .map(|m| m.bits())
            .max()
            .unwrap_or(1);
        // Each product is below 2^(2 max_bits); keep one slot for the v*Q term.
        let max_terms = (1usize << (128 - 2 * max_bits).min(30)) - 1;
        let swap = |x: &u64| x.rotate_left(32);
        let neg_q: Vec<u64> = to
            .moduli
            .iter()
            .map(|p| p.neg(from.product_mod(p)))
            .collect();
        let mut q_hat_mod_p_split = Vec::with_capacity(q_hat_mod_p.len());
        for (j, p) in to.moduli.iter().enumerate() {
            let two50 = p.reduce(1 << 50);
            for i in 0..l {
                q_hat_mod_p_split.push(p.mul(q_hat_mod_p[j * l + i], two50));
            }
        }
        let simd = SimdTables {
            ok: from
                .moduli
                .iter()
                .chain(&to.moduli)
                .all(|m| super::kernels::simd_takes(m.value())),
            from: from
                .moduli
                .iter()
                .map(|m| LaneConsts::new(m.value()))
                .collect(),
            to: to
                .moduli
                .iter()
                .map(|m| LaneConsts::new(m.value()))
                .collect(),
            q_hat_inv_shoup52: q_hat_inv
                .iter()
                .zip(&from.moduli)
                .map(|(&w, q)| {
                    if q.value() < super::kernels::IFMA_MAX_Q {
                        super::kernels::shoup(w, q.value(), 52)
                    } else {
                        0
                    }
                })
                .collect(),
            q_hat_mod_p_sw: q_hat_mod_p.iter().map(swap).collect(),
            q_hat_mod_p_split,
            neg_q_sw: neg_q.iter().map(swap).collect(),
            neg_q,
        };
        BaseConverter {
            simd,
            from: from.moduli.clone(),
            to: to.moduli.clone(),
            q_hat_inv,
            q_hat_inv_shoup,
            q_hat_mod_p,
            neg_vq_mod_p,
            inv_q: from.moduli.iter().map(|q| 1.0 / q.value() as f64).collect(),
            max_terms,
        }
    }

    /// Number of input limbs.
    pub fn from_len(&self) -> usize {
        self.from.len()
    }

    /// Number of output limbs available.
    pub fn to_len(&self) -> usize {
        self.to.len()
    }

    /// Exact conversion of the centered representative: `input` holds `from_len()` limbs of
    /// `n` reduced residues; `output` receives the first `output.len() / n` limbs of the
    /// target basis. `scratch` must hold `(from_len() + 1) * n` words.
    pub fn convert(&self, input: &[u64], output: &mut [u64], n: usize, scratch: &mut [u64]) {
        self.convert_using(Isa::detect(), true, input, output, n, scratch)
    }

    /// Exact conversion into target limbs `j0 .. j0 + output.len() / n` only (so a caller can
    /// write different target ranges straight into different places). Same words as the
    /// matching limbs of [`convert`](Self::convert); `scratch` as there.
    pub fn convert_range(
        &self,
        input: &[u64],
        output: &mut [u64],
        j0: usize,
        n: usize,
        scratch: &mut [u64],
    ) {
        self.convert_range_impl::<true>(Isa::detect(), input, output, j0, n, scratch)
    }

    /// Approximate conversion (no correction): outputs `x + u Q` with `0 <= u < from_len()`.
    pub fn convert_approx(&self, input: &[u64], output: &mut [u64], n: usize, scratch: &mut [u64]) {
        self.convert_using(Isa::detect(), false, input, output, n, scratch)
    }

    /// [`convert`](Self::convert) (`exact`) or [`convert_approx`](Self::convert_approx) on
    /// a chosen instruction set, for tests and benchmarks: every choice gives the same
    /// words. A SIMD `isa` the CPU lacks, or moduli the SIMD lanes do not take (even, or
    /// above 61 bits), run the best supported path instead.
    pub fn convert_using(
        &self,
        isa: Isa,
        exact: bool,
        input: &[u64],
        output: &mut [u64],
        n: usize,
        scratch: &mut [u64],
    ) {
        if exact {
            self.convert_impl::<true>(isa, input, output, n, scratch)
        } else {
            self.convert_impl::<false>(isa, input, output, n, scratch)
        }
    }

    /// Coefficients per block: the block's `y` rows and `v` (`(l + 1) * block` words) stay
    /// in L1 while every output limb of the block is produced. A multiple of 8 (one vector).
    fn block_len(l: usize, n: usize) -> usize {
        let b = (CONVERT_BLOCK_WORDS / (l + 1)).max(64) & !7;
        b.min(n)
    }

    fn convert_impl<const EXACT: bool>(
        &self,
        isa: Isa,
        input: &[u64],
        output: &mut [u64],
        n: usize,
        scratch: &mut [u64],
    ) {
        self.convert_range_impl::<EXACT>(isa, input, output, 0, n, scratch)
    }

    /// Target limbs `j0 .. j0 + output.len() / n`: checks the shapes, then converts (in
    /// parallel over output limbs when worth it).
    fn convert_range_impl<const EXACT: bool>(
        &self,
        isa: Isa,
        input: &[u64],
        output: &mut [u64],
        j0: usize,
        n: usize,
        scratch: &mut [u64],
    ) {
        let l = self.from.len();
        let out_limbs = output.len().checked_div(n).unwrap_or(0);
        assert!(input.len() == l * n && output.len() == out_limbs * n);
        assert!(j0 + out_limbs <= self.to.len(), "target limbs out of range");
        assert!(
            scratch.len() >= (l + 1) * n,
            "scratch must hold (from_len() + 1) * n words"
        );
        if n == 0 || out_limbs == 0 {
            return;
        }
        let bl = Self::block_len(l, n);
        #[cfg(feature = "parallel")]
        let ways = rayon::current_num_threads();
        #[cfg(not(feature = "parallel"))]
        let ways = 1;
        self.convert_outputs::<EXACT>(isa, input, output, j0, n, bl, scratch, ways);
    }

    /// Output limbs `j0 .. j0 + output.len() / n`. With `ways > 1` threads and enough work,
    /// the output limbs are split in two contiguous halves converted in parallel (each
    /// half recomputes the cheap `y`/`v` step of every block, in its own half of
    /// `scratch`); the results are the same words either way.
    #[allow(clippy::too_many_arguments)]
    fn convert_outputs<const EXACT: bool>(
        &self,
        isa: Isa,
        input: &[u64],
        output: &mut [u64],
        j0: usize,
        n: usize,
        bl: usize,
        scratch: &mut [u64],
        ways: usize,
    ) {
        let l = self.from.len();
        let out_limbs = output.len() / n;
        #[cfg(feature = "parallel")]
        if ways > 1
            && out_limbs >= 4
            && l * out_limbs * n >= 1 << 21
            && scratch.len() >= 2 * (l + 1) * bl
        {
            let h = out_limbs.div_ceil(2);
            let (oa, ob) = output.split_at_mut(h * n);
            let half = scratch.len() / 2;
            let (sa, sb) = scratch.split_at_mut(half);
            let w = ways / 2;
            rayon::join(
                || self.convert_outputs::<EXACT>(isa, input, oa, j0, n, bl, sa, w),
                || self.convert_outputs::<EXACT>(isa, input, ob, j0 + h, n, bl, sb, ways - w),
            );
            return;
        }
        let _ = ways;
        #[cfg(not(target_arch = "x86_64"))]
        let _ = isa;
        #[cfg(target_arch = "x86_64")]
        if self.simd.ok && l > 0 {
            use super::kernels::{avx2, avx512, Lanes};
            // The tables of output limbs j0.. (every per-output table is indexed by j).
            let t = avx512::ConvTables {
                from: &self.simd.from,
                q_hat_inv: &self.q_hat_inv,
                q_hat_inv_shoup: &self.q_hat_inv_shoup,
                q_hat_inv_shoup52: &self.simd.q_hat_inv_shoup52,
                inv_q: &self.inv_q,
                to: &self.simd.to[j0..],
                c: &self.q_hat_mod_p[j0 * l..],
                c_sw: &self.simd.q_hat_mod_p_sw[j0 * l..],
                c_split: &self.simd.q_hat_mod_p_split[j0 * l..],
                neg_q: &self.simd.neg_q[j0..],
                neg_q_sw: &self.simd.neg_q_sw[j0..],
            };
            // `lanes(3)` tells which lanes `isa` offers on this CPU (3 is odd, < 2^50).
            match isa.lanes(3) {
                // SAFETY: the CPU supports the chosen features (`Isa::lanes`), every
                // modulus is odd and at most 61 bits (`simd.ok`), the lengths were
                // checked above and `bl` is a multiple of 8 or `n` itself.
                Some(Lanes::Ifma) => unsafe {
                    avx512::convert_ifma(&t, EXACT, input, output, n, out_limbs, bl, scratch)
                },
                Some(Lanes::Wide) => unsafe {
                    avx512::convert_wide(&t, EXACT, input, output, n, out_limbs, bl, scratch)
                },
                // SAFETY: as above (AVX2 and FMA).
                Some(Lanes::Avx2) => unsafe {
                    avx2::convert(&t, EXACT, input, output, n, out_limbs, bl, scratch)
                },
                None => self
                    .convert_blocks_scalar::<EXACT>(input, output, j0, n, out_limbs, bl, scratch),
            }
            return;
        }
        self.convert_blocks_scalar::<EXACT>(input, output, j0, n, out_limbs, bl, scratch)
    }

    #[allow(clippy::too_many_arguments)]
    fn convert_blocks_scalar<const EXACT: bool>(
        &self,
        input: &[u64],
        output: &mut [u64],
        j0: usize,
        n: usize,
        out_limbs: usize,
        bl: usize,
        scratch: &mut [u64],
    ) {
        let mut k0 = 0;
        while k0 < n {
            let len = bl.min(n - k0);
            self.convert_block_scalar::<EXACT>(input, output, j0, n, out_limbs, k0, len, scratch);
            k0 += len;
        }
    }

    /// Coefficients `k0 .. k0 + len` of every output limb: `y` rows and `v` for the block
    /// in the first `(l + 1) * len` scratch words, then the outputs limb by limb.
    #[allow(clippy::too_many_arguments)]
    fn convert_block_scalar<const EXACT: bool>(
        &self,
        input: &[u64],
        output: &mut [u64],
        j0: usize,
        n: usize,
        out_limbs: usize,
        k0: usize,
        len: usize,
        scratch: &mut [u64],
    ) {
        let l = self.from.len();
        let (y, rest) = scratch.split_at_mut(l * len);
        let v = &mut rest[..len];
        // y_i = [x_i * (Q/q_i)^-1]_{q_i}
        for i in 0..l {
            let (q, w, ws) = (&self.from[i], self.q_hat_inv[i], self.q_hat_inv_shoup[i]);
            let src = &input[i * n + k0..i * n + k0 + len];
            for (d, &s) in y[i * len..(i + 1) * len].iter_mut().zip(src) {
                *d = q.mul_shoup(s, w, ws);
            }
        }
        // v = round(sum_i y_i / q_i), a small integer per coefficient (accumulated as f64
        // bit patterns in the scratch words, then rounded in place).
        if EXACT {
            v.fill(0f64.to_bits());
            for i in 0..l {
                let inv = self.inv_q[i];
                for (a, &yi) in v.iter_mut().zip(&y[i * len..(i + 1) * len]) {
                    *a = (f64::from_bits(*a) + yi as f64 * inv).to_bits();
                }
            }
            for a in v.iter_mut() {
                *a = f64::from_bits(*a).round() as u64;
            }
        }
        for j in 0..out_limbs {
            let jj = j0 + j;
            let p = &self.to[jj];
            let row = &self.q_hat_mod_p[jj * l..(jj + 1) * l];
            let neg_vq = &self.neg_vq_mod_p[jj * (l + 1)..(jj + 1) * (l + 1)];
            let out = &mut output[j * n + k0..j * n + k0 + len];
            if l <= self.max_terms {
                for (k, o) in out.iter_mut().enumerate() {
                    let mut acc: u128 = if EXACT {
                        neg_vq[v[k] as usize] as u128
                    } else {
                        0
                    };
                    for i in 0..l {
                        acc += y[i * len + k] as u128 * row[i] as u128;
                    }
                    *o = p.reduce_u128(acc);
                }
            } else {
                for (k, o) in out.iter_mut().enumerate() {
                    let mut r = if EXACT { neg_vq[v[k] as usize] } else { 0 };
                    for i in 0..l {
                        r = p.add(r, p.mul(y[i * len + k], row[i]));
                    }
                    *o = r;
                }
            }
        }
    }
}

/// Target size, in words, of one conversion block's scratch (`y` rows and `v`): 32 KiB,
/// so that the block stays in L1 next to the output stream.
const CONVERT_BLOCK_WORDS: usize = 4096;

/// ModUp / ModDown between `C` and `C ∪ B`, with the constants of both directions.
#[derive(Clone, Debug)]
pub struct BasisExtender {
    c_to_b: BaseConverter,
    b_to_c: BaseConverter,
    c: Vec<Modulus>,
    /// [P^-1]_{q_i} and Shoup companions, P = prod B.
    p_inv: Vec<u64>,
    p_inv_shoup: Vec<u64>,
}

impl BasisExtender {
    /// Constants for extending from `c` to `c ∪ b` and dividing back by `prod b`.
    pub fn new(c: &RnsBasis, b: &RnsBasis) -> Self {
        let p_inv: Vec<u64> = c
            .moduli
            .iter()
            .map(|q| q.inv(b.product_mod(q)).expect("bases are coprime"))
            .collect();
        BasisExtender {
            c_to_b: BaseConverter::new(c, b),
            b_to_c: BaseConverter::new(b, c),
            c: c.moduli.clone(),
            p_inv_shoup: p_inv
                .iter()
                .zip(&c.moduli)
                .map(|(&w, q)| q.shoup(w))
                .collect(),
            p_inv,
        }
    }

    /// ModUp: writes the `B`-residues of the centered `x` (given by its `C`-residues).
    /// `scratch` must hold `(|C| + 1) * n` words.
    pub fn mod_up(&self, x_c: &[u64], x_b: &mut [u64], n: usize, scratch: &mut [u64]) {
        self.c_to_b.convert(x_c, x_b, n, scratch);
    }

    /// ModDown: `x_c <- round(x / P)` over the first `x_c.len() / n` primes of `C`, where
    /// `x` is given by `x_c` and its `B`-residues `x_b`. `scratch` must hold
    /// `(|C| + |B| + 1) * n` words.
    pub fn mod_down(&self, x_c: &mut [u64], x_b: &[u64], n: usize, scratch: &mut [u64]) {
        let limbs = x_c.len() / n;
        let (conv, rest) = scratch.split_at_mut(limbs * n);
        self.b_to_c.convert(x_b, conv, n, rest);
        for i in 0..limbs {
            self.mod_down_limb(i, &mut x_c[i * n..(i + 1) * n], &conv[i * n..(i + 1) * n]);
        }
    }

    /// The conversion `Conv_{B -> C}` ModDown starts with.
    pub fn b_to_c(&self) -> &BaseConverter {
        &self.b_to_c
    }

    /// The conversion `Conv_{C -> B}` (ModUp of the whole of `C`).
    pub fn c_to_b(&self) -> &BaseConverter {
        &self.c_to_b
    }

    /// The last step of ModDown on limb `i` of `C`: `x <- (x - conv) * P^-1 mod q_i`.
    /// Linear, so it applies in coefficient and NTT form alike (with `conv` in the same form).
    #[inline]
    pub fn mod_down_limb(&self, i: usize, x: &mut [u64], conv: &[u64]) {
        super::kernels::sub_mul_scalar_assign(
            x,
            conv,
            self.p_inv[i],
            self.p_inv_shoup[i],
            &self.c[i],
        );
    }
}

/// Garner CRT reconstruction over a basis (any prefix of it can be used).
#[derive(Clone, Debug)]
pub struct CrtReconstructor {
    moduli: Vec<Modulus>,
    /// inv[i * l + j] = q_j^-1 mod q_i for j < i, with Shoup companions.
    inv: Vec<u64>,
    inv_shoup: Vec<u64>,
}

impl CrtReconstructor {
    /// Constants for the basis.
    pub fn new(basis: &RnsBasis) -> Self {
        let l = basis.len();
        let mut inv = vec![0u64; l * l];
        let mut inv_shoup = vec![0u64; l * l];
        for i in 0..l {
            let qi = &basis.moduli[i];
            for j in 0..i {
                let w = qi.inv(qi.reduce(basis.moduli[j].value())).expect("coprime");
                inv[i * l + j] = w;
                inv_shoup[i * l + j] = qi.shoup(w);
            }
        }
        CrtReconstructor {
            moduli: basis.moduli.clone(),
            inv,
            inv_shoup,
        }
    }

    /// Mixed-radix digits `a_i` in `[0, q_i)` of `x` (given by `limbs` limbs of `n`
    /// residues), with `x = a_0 + a_1 q_0 + a_2 q_0 q_1 + ...`; written limb-major to `digits`.
    pub fn mixed_radix(&self, residues: &[u64], digits: &mut [u64], n: usize) {
        let l = self.moduli.len();
        let limbs = residues.len() / n;
        assert!(limbs <= l && digits.len() == residues.len());
        digits.copy_from_slice(residues);
        for i in 1..limbs {
            let qi = &self.moduli[i];
            let qv = qi.value();
            let (done, cur) = digits.split_at_mut(i * n);
            let cur = &mut cur[..n];
            for j in 0..i {
                let (w, ws) = (self.inv[i * l + j], self.inv_shoup[i * l + j]);
                for (t, &a) in cur.iter_mut().zip(&done[j * n..(j + 1) * n]) {
                    *t = qi.mul_shoup(*t + qv - qi.reduce(a), w, ws);
                }
            }
        }
    }

    /// The centered representatives (in `[-Q/2, Q/2]`) of the residues, as `f64`, for the
    /// first `residues.len() / n` primes. `digits` is scratch of `residues.len()` words.
    ///
    /// Fast exact path: the centered value `v` of the first two limbs (an `i128`) is checked
    /// against every other limb (`v mod q_i == x_i`); if all agree, `v` is the answer by CRT
    /// uniqueness (`|v| < q_0 q_1 / 2 <= Q/2`). That costs `O(l)` per coefficient, and CKKS
    /// messages pass it unless they exceed `q_0 q_1 / 2` (about `2^110` in practice).
    /// Coefficients that fail it go through Garner's mixed-radix reconstruction, `O(l^2)`.
    ///
    /// Accuracy: the result is the exact integer rounded once per Horner step (relative
    /// error below `l * 2^-53`), whatever the size of `Q`.
    pub fn centered_f64(&self, residues: &[u64], digits: &mut [u64], n: usize, out: &mut [f64]) {
        let limbs = residues.len() / n;
        // (The slow path below uses 2 * limbs words of `digits`: n >= 2 guarantees them.)
        if limbs < 3 || n < 2 {
            self.mixed_radix(residues, digits, n);
            for (k, o) in out.iter_mut().enumerate().take(n) {
                *o = self.centered_from_digits(digits, n, limbs, k);
            }
            return;
        }
        let (q0, q1) = (&self.moduli[0], &self.moduli[1]);
        let q01 = q0.value() as i128 * q1.value() as i128;
        let (w, ws) = (
            self.inv[self.moduli.len()],
            self.inv_shoup[self.moduli.len()],
        );
        let mut fast_ok = vec![true; n];
        let mut v = vec![0i128; n];
        for k in 0..n {
            let (x0, x1) = (residues[k], residues[n + k]);
            // v = x0 + q0 * [(x1 - x0) q0^-1]_{q1}, then centered.
            let t = q1.mul_shoup(x1 + q1.value() - q1.reduce(x0), w, ws);
            let mut val = x0 as i128 + q0.value() as i128 * t as i128;
            if 2 * val > q01 {
                val -= q01;
            }
            v[k] = val;
        }
        for i in 2..limbs {
            let qi = &self.moduli[i];
            let row = &residues[i * n..(i + 1) * n];
            for k in 0..n {
                if qi.reduce_i128(v[k]) != row[k] {
                    fast_ok[k] = false;
                }
            }
        }
        // Slow path, per coefficient, in the first 2 * limbs words of `digits`.
        let (column, col_digits) = digits[..2 * limbs].split_at_mut(limbs);
        for k in 0..n {
            if fast_ok[k] {
                out[k] = v[k] as f64;
            } else {
                for i in 0..limbs {
                    column[i] = residues[i * n + k];
                }
                self.mixed_radix(column, col_digits, 1);
                out[k] = self.centered_from_digits(col_digits, 1, limbs, 0);
            }
        }
    }

    /// The centered value of coefficient `k` from its mixed-radix digits.
    fn centered_from_digits(&self, digits: &[u64], n: usize, limbs: usize, k: usize) -> f64 {
        // (Q-1)/2 has mixed-radix digits (q_i - 1)/2: compare from the top digit.
        let mut negative = false;
        for i in (0..limbs).rev() {
            let half = (self.moduli[i].value() - 1) / 2;
            let a = digits[i * n + k];
            if a != half {
                negative = a > half;
                break;
            }
        }
        // Q - x has digits (q_i - 1 - a_i) plus one.
        let mut acc = 0.0f64;
        for i in (0..limbs).rev() {
            let a = digits[i * n + k];
            let d = if negative {
                self.moduli[i].value() - 1 - a
            } else {
                a
            };
            acc = acc * self.moduli[i].value() as f64 + d as f64;
        }
        if negative {
            -(acc + 1.0)
        } else {
            acc
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::primes::PrimeGenerator;
    use num_bigint::{BigInt, BigUint, RandBigInt};
    use num_traits::{One, ToPrimitive, Zero};
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn product(b: &RnsBasis) -> BigUint {
        b.moduli()
            .iter()
            .fold(BigUint::one(), |acc, m| acc * m.value())
    }

    fn residues(xs: &[BigInt], b: &RnsBasis) -> Vec<u64> {
        let mut out = Vec::new();
        for m in b.moduli() {
            let q = BigInt::from(m.value());
            for x in xs {
                let r = ((x % &q) + &q) % &q;
                out.push(r.to_u64().unwrap());
            }
        }
        out
    }

    fn bases(bits_c: &[u32], bits_b: &[u32]) -> (RnsBasis, RnsBasis) {
        let mut g = PrimeGenerator::new(1 << 10).unwrap();
        let c: Vec<u64> = bits_c.iter().map(|&b| g.next_prime(b).unwrap()).collect();
        let b: Vec<u64> = bits_b.iter().map(|&b| g.next_prime(b).unwrap()).collect();
        (RnsBasis::new(&c).unwrap(), RnsBasis::new(&b).unwrap())
    }

    /// Random centered integers in [-Q/2, Q/2), plus the edge cases 0, +-1, and
    /// +-(Q/2 - Q/2^40): as close to +-Q/2 as the floating-point correction guarantees.
    fn random_centered(q: &BigUint, n: usize, rng: &mut ChaCha8Rng) -> Vec<BigInt> {
        let half = BigInt::from(q.clone() / 2u32);
        let margin = BigInt::from(q.clone() >> 40);
        let mut xs: Vec<BigInt> = (0..n - 5)
            .map(|_| BigInt::from(rng.gen_biguint_below(q)) - &half)
            .collect();
        xs.extend([
            BigInt::zero(),
            BigInt::one(),
            -BigInt::one(),
            &half - &margin,
            -&half + &margin,
        ]);
        xs
    }

    #[test]
    fn exact_base_conversion_matches_bigint() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let n = 64;
        for (bc, bb) in [
            (vec![60u32, 50, 50], vec![61u32, 61]),
            (vec![36; 12], vec![50; 5]),
            (vec![61; 17], vec![61; 3]),
            (vec![30], vec![60, 40]),
        ] {
            let (c, b) = bases(&bc, &bb);
            let q = product(&c);
            let xs = random_centered(&q, n, &mut rng);
            let conv = BaseConverter::new(&c, &b);
            let mut out = vec![0u64; b.len() * n];
            let mut scratch = vec![0u64; (c.len() + 1) * n];
            conv.convert(&residues(&xs, &c), &mut out, n, &mut scratch);
            assert_eq!(out, residues(&xs, &b), "C {bc:?} -> B {bb:?}");
            // The approximate variant is off by a multiple u*Q with 0 <= u < l.
            conv.convert_approx(&residues(&xs, &c), &mut out, n, &mut scratch);
            for (j, m) in b.moduli().iter().enumerate() {
                for (k, x) in xs.iter().enumerate() {
                    let qm = BigInt::from(m.value());
                    let qb = BigInt::from(q.clone());
                    let x_pos = ((x % &qb) + &qb) % &qb;
                    let found = (0..c.len()).any(|u| {
                        let want = ((&x_pos + &qb * u) % &qm + &qm) % &qm;
                        want.to_u64().unwrap() == out[j * n + k]
                    });
                    assert!(found, "approximate conversion is x + uQ, 0 <= u < l");
                }
            }
        }
    }

    /// The conversion as first written (unblocked, strided, u128 accumulation): the
    /// reference every faster path must match bit for bit.
    fn reference_convert(
        conv: &BaseConverter,
        exact: bool,
        input: &[u64],
        output: &mut [u64],
        n: usize,
    ) {
        let l = conv.from.len();
        let out_limbs = output.len() / n;
        let mut y = vec![0u64; l * n];
        let mut v = vec![0u64; n];
        for i in 0..l {
            let (q, w, ws) = (&conv.from[i], conv.q_hat_inv[i], conv.q_hat_inv_shoup[i]);
            for k in 0..n {
                y[i * n + k] = q.mul_shoup(input[i * n + k], w, ws);
            }
        }
        if exact {
            for (k, vk) in v.iter_mut().enumerate() {
                let mut a = 0f64;
                for i in 0..l {
                    a += y[i * n + k] as f64 * conv.inv_q[i];
                }
                *vk = a.round() as u64;
            }
        }
        for j in 0..out_limbs {
            let p = &conv.to[j];
            for k in 0..n {
                let mut r = if exact {
                    conv.neg_vq_mod_p[j * (l + 1) + v[k] as usize]
                } else {
                    0
                };
                for i in 0..l {
                    r = p.add(r, p.mul(y[i * n + k], conv.q_hat_mod_p[j * l + i]));
                }
                output[j * n + k] = r;
            }
        }
    }

    /// Random bases of mixed 50/60/61-bit primes (and a few small ones), random reduced
    /// inputs: every conversion path agrees with [`reference_convert`].
    /// Every prime below 2^50 (the AVX2 f64 sums), with more terms than one f64 sum holds,
    /// next to outputs above 2^50 (the integer sums), on every instruction set.
    #[test]
    fn convert_with_primes_below_2_to_50_matches_reference() {
        use rand_chacha::rand_core::RngCore;
        let mut rng = ChaCha8Rng::seed_from_u64(50);
        let mut g = PrimeGenerator::new(1 << 10).unwrap();
        for (from_bits, to_bits) in [
            (vec![49u32; 9], vec![50u32, 50, 36, 61, 50, 60, 50]),
            (vec![36, 50, 50], vec![50, 50]),
            (vec![50; 20], vec![49, 61, 50]),
        ] {
            let from: Vec<u64> = from_bits
                .iter()
                .map(|&b| g.next_prime(b).unwrap())
                .collect();
            let to: Vec<u64> = to_bits.iter().map(|&b| g.next_prime(b).unwrap()).collect();
            let (c, b) = (RnsBasis::new(&from).unwrap(), RnsBasis::new(&to).unwrap());
            let conv = BaseConverter::new(&c, &b);
            for n in [1usize, 13, 1024] {
                let input: Vec<u64> = from
                    .iter()
                    .flat_map(|&q| {
                        let mut v: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
                        v[n - 1] = q - 1;
                        v
                    })
                    .collect();
                for exact in [true, false] {
                    let mut want = vec![0u64; to.len() * n];
                    reference_convert(&conv, exact, &input, &mut want, n);
                    let mut scratch = vec![0u64; (from.len() + 1) * n];
                    for isa in Isa::ALL {
                        let mut got = vec![0u64; to.len() * n];
                        conv.convert_using(isa, exact, &input, &mut got, n, &mut scratch);
                        assert_eq!(got, want, "{from_bits:?} -> {to_bits:?}, n = {n}, {isa:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn convert_matches_reference_on_many_shapes() {
        use rand_chacha::rand_core::RngCore;
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut g = PrimeGenerator::new(1 << 12).unwrap();
        let sizes = [50u32, 50, 50, 60, 61, 49, 36, 51];
        // (from, to, n); 70 input limbs exceed one lazy sum of 61-bit products.
        let mut shapes = vec![
            (1usize, 1usize, 16usize),
            (3, 60, 64),
            (20, 7, 4096),
            (70, 3, 24),
            (6, 22, 100),
            (5, 9, 1),
        ];
        for _ in 0..14 {
            let from = 1 + (rng.next_u32() % 20) as usize;
            let to = 1 + (rng.next_u32() % 60) as usize;
            let n = 16usize << (rng.next_u32() % 9);
            shapes.push((from, to, n));
        }
        for (from, to, n) in shapes {
            let mut pick = |count: usize| -> Vec<u64> {
                (0..count)
                    .map(|_| g.next_prime(sizes[(rng.next_u32() % 8) as usize]).unwrap())
                    .collect()
            };
            let c = RnsBasis::new(&pick(from)).unwrap();
            let b = RnsBasis::new(&pick(to)).unwrap();
            let conv = BaseConverter::new(&c, &b);
            let input: Vec<u64> = c
                .moduli()
                .iter()
                .flat_map(|m| {
                    let q = m.value();
                    let mut v: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
                    v[0] = 0;
                    v[n - 1] = q - 1;
                    v
                })
                .collect();
            let outs = 1 + (rng.next_u32() as usize % to);
            for exact in [true, false] {
                let mut want = vec![0u64; outs * n];
                reference_convert(&conv, exact, &input, &mut want, n);
                let mut scratch = vec![0u64; (from + 1) * n];
                for isa in Isa::ALL {
                    let mut got = vec![0u64; outs * n];
                    conv.convert_using(isa, exact, &input, &mut got, n, &mut scratch);
                    assert_eq!(
                        got, want,
                        "{from} -> {outs}/{to} limbs, n = {n}, exact {exact}, {isa:?}"
                    );
                }
                let mut got = vec![0u64; outs * n];
                if exact {
                    conv.convert(&input, &mut got, n, &mut scratch);
                } else {
                    conv.convert_approx(&input, &mut got, n, &mut scratch);
                }
                assert_eq!(
                    got, want,
                    "{from} -> {outs}/{to} limbs, n = {n}, exact {exact}"
                );
            }
        }
    }

    #[test]
    fn mod_up_then_mod_down_is_rounded_division() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let n = 64;
        let (c, b) = bases(&[60, 50, 50, 50, 50], &[61, 61]);
        let ext = BasisExtender::new(&c, &b);
        let (qc, pb) = (product(&c), product(&b));
        let qp = &qc * &pb;
        // x over C ∪ B, centered mod QP.
        let xs = random_centered(&qp, n, &mut rng);
        let mut x_c = residues(&xs, &c);
        let x_b = residues(&xs, &b);
        let mut scratch = vec![0u64; (b.len() + c.len() + 1) * n];
        ext.mod_down(&mut x_c, &x_b, n, &mut scratch);
        let p = BigInt::from(pb.clone());
        let want: Vec<BigInt> = xs
            .iter()
            .map(|x| {
                // round(x / P) with the centered remainder, as the algebra says.
                let r = ((x % &p) + &p) % &p;
                let r = if r > &p / 2 { r - &p } else { r };
                (x - r) / &p
            })
            .collect();
        assert_eq!(x_c, residues(&want, &c));
        // ModDown onto a prefix of C.
        let mut x_c2 = residues(&xs, &c)[..2 * n].to_vec();
        ext.mod_down(&mut x_c2, &x_b, n, &mut scratch);
        assert_eq!(x_c2, residues(&want, &c)[..2 * n].to_vec());
        // ModUp of a centered value over C.
        let small = random_centered(&qc, n, &mut rng);
        let mut up = vec![0u64; b.len() * n];
        ext.mod_up(&residues(&small, &c), &mut up, n, &mut scratch);
        assert_eq!(up, residues(&small, &b));
    }

    #[test]
    fn crt_reconstruction_matches_bigint() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let n = 64;
        let (c, _) = bases(
            &[
                60, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50,
                50,
            ],
            &[],
        );
        let crt = CrtReconstructor::new(&c);
        for limbs in [1usize, 2, 3, 8, 22] {
            let sub = c.slice(0..limbs);
            let q = product(&sub);
            let mut xs = random_centered(&q, n - 6, &mut rng);
            // Small values, as CKKS decoding sees them.
            xs.extend([3i64, -3, 1 << 40, -(1 << 40), 123_456_789_012, -7].map(BigInt::from));
            let res = residues(&xs, &sub);
            let mut digits = vec![0u64; res.len()];
            let mut out = vec![0.0; n];
            crt.centered_f64(&res, &mut digits, n, &mut out);
            for (x, &o) in xs.iter().zip(&out) {
                let want = x.to_f64().unwrap();
                if want.is_infinite() {
                    assert_eq!(o, want, "values beyond f64 range saturate");
                    continue;
                }
                let tol = want.abs() * 1e-14;
                assert!((o - want).abs() <= tol, "limbs {limbs}: {o} vs {want}");
            }
        }
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn parallel_split_over_output_limbs_gives_the_same_words() {
        let n = 1 << 13;
        let mut g = PrimeGenerator::new(n).unwrap();
        let from: Vec<u64> = (0..11)
            .map(|i| g.next_prime(if i == 0 { 60 } else { 50 }).unwrap())
            .collect();
        let to: Vec<u64> = (0..31)
            .map(|i| g.next_prime(if i < 10 { 61 } else { 50 }).unwrap())
            .collect();
        let (c, b) = (RnsBasis::new(&from).unwrap(), RnsBasis::new(&to).unwrap());
        let conv = BaseConverter::new(&c, &b);
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let input: Vec<u64> = c
            .moduli()
            .iter()
            .flat_map(|m| {
                (0..n)
                    .map(|_| rand::Rng::gen_range(&mut rng, 0..m.value()))
                    .collect::<Vec<_>>()
            })
            .collect();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut out = vec![0u64; b.len() * n];
            let mut scratch = vec![0u64; (c.len() + 1) * n];
            pool.install(|| conv.convert(&input, &mut out, n, &mut scratch));
            out
        };
        let one = run(1);
        assert_eq!(one, run(2));
        assert_eq!(one, run(3));
        assert_eq!(one, run(8));
    }
}
