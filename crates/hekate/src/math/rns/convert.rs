//! [`BaseConverter`]: the fast base conversion `Conv_{C -> B}`, scalar and dispatched to
//! the SIMD kernels (see the module documentation of [`rns`](super)).

use super::RnsBasis;
use crate::math::kernels::{Isa, LaneConsts};
use crate::math::modulus::Modulus;

/// The tables of a [`BaseConverter`] (from [`BaseConverter::tables`]): the exact conversion
/// of `x` given by its residues `x_i` modulo the `l` primes `q_i` of `from` is, for each
/// target prime `p_j` of `to`,
///
/// * `y_i = [x_i · q_hat_inv[i]]_{q_i}` (Shoup, with `q_hat_inv_shoup`);
/// * `v = round(Σ_i y_i · inv_q[i])` in `f64`, one multiplication then one addition per
///   `i` in order, never fused (the centering correction, `0 <= v <= l`);
/// * `out_j = [neg_vq_mod_p[j (l + 1) + v] + Σ_i y_i · q_hat_mod_p[j l + i]]_{p_j}`, the sum
///   in 128 bits (exact for `l <= max_terms`) reduced once.
#[derive(Clone, Copy, Debug)]
pub struct ConvTables<'a> {
    /// The input primes `q_i`.
    pub from: &'a [Modulus],
    /// The target primes `p_j`.
    pub to: &'a [Modulus],
    /// `[(Q/q_i)^-1]_{q_i}`.
    pub q_hat_inv: &'a [u64],
    /// Shoup companions of `q_hat_inv`.
    pub q_hat_inv_shoup: &'a [u64],
    /// `[Q/q_i]_{p_j}` at `j l + i`.
    pub q_hat_mod_p: &'a [u64],
    /// `[-v Q]_{p_j}` at `j (l + 1) + v`, `v = 0..=l`.
    pub neg_vq_mod_p: &'a [u64],
    /// `1 / q_i` in `f64`.
    pub inv_q: &'a [f64],
    /// How many 128-bit products can be summed before a reduction is needed.
    pub max_terms: usize,
}

/// Precomputed fast base conversion `Conv_{C -> B}` (see the module documentation).
#[derive(Clone, Debug)]
pub struct BaseConverter {
    pub(super) from: Vec<Modulus>,
    pub(super) to: Vec<Modulus>,
    /// [(Q/q_i)^-1]_{q_i} and Shoup companions.
    pub(super) q_hat_inv: Vec<u64>,
    pub(super) q_hat_inv_shoup: Vec<u64>,
    /// [Q/q_i]_{p_j}, stored row-major by output: `q_hat_mod_p[j * l + i]`.
    pub(super) q_hat_mod_p: Vec<u64>,
    /// Their Montgomery forms `[(Q/q_i) 2^64]_{p_j}`, same layout (the portable path's
    /// [`MontTables`] and the SIMD paths' 64-bit lanes).
    q_hat_mod_p_mont: Vec<u64>,
    /// [-v Q]_{p_j} for v = 0..=l: `neg_vq_mod_p[j * (l + 1) + v]`.
    pub(super) neg_vq_mod_p: Vec<u64>,
    /// 1 / q_i.
    pub(super) inv_q: Vec<f64>,
    /// How many 128-bit products can be summed before a reduction is needed.
    max_terms: usize,
    /// The portable path's Montgomery tables, where its sums fit ([`MontTables`]).
    mont: Option<MontTables>,
    /// Tables of the SIMD paths (`math/kernels/avx512/convert.rs`).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    simd: SimdTables,
}

/// The portable conversion's outputs in Montgomery form: with `c'_(j, i) = [Q/q_i 2^64]_{p_j}`
/// and `n'_(j, v) = [-v Q 2^64]_{p_j}`, the 128-bit sum `x = n'_v + Σ_i y_i c'_i` is below
/// `p_j 2^64` (when `Σ_i q_i < 2^64`), and one Montgomery reduction `x 2^-64 mod p_j` (one
/// widening and one low multiplication, where Barrett's `reduce_u128` takes three and two)
/// gives the same residue. Widening multiplications are the bottleneck of the portable path
/// (two cycles each on a Zen 3), so this saves about a quarter of its conversion time.
#[derive(Clone, Debug)]
struct MontTables {
    /// `n'` at `j (l + 1) + v`.
    neg_vq: Vec<u64>,
    /// `p_j^-1 mod 2^64`.
    p_inv: Vec<u64>,
}

impl MontTables {
    /// The tables, if every sum fits (`Σ_i q_i + 1 <= 2^64`) and every target is odd (has
    /// an inverse modulo `2^64`; BFV's `t = 2` has not). The `c'` are the converter's
    /// `q_hat_mod_p_mont`, shared with the SIMD paths.
    fn new(from: &[Modulus], to: &[Modulus], neg_vq: &[u64]) -> Option<Self> {
        let total: u128 = from.iter().map(|q| q.value() as u128).sum::<u128>() + 1;
        if total > 1u128 << 64 || from.is_empty() || to.iter().any(|p| p.value() % 2 == 0) {
            return None;
        }
        let l1 = from.len() + 1;
        let mut nv = Vec::with_capacity(neg_vq.len());
        for (j, p) in to.iter().enumerate() {
            nv.extend(neg_vq[j * l1..(j + 1) * l1].iter().map(|&x| mont(p, x)));
        }
        let p_inv = to
            .iter()
            .map(|p| crate::math::kernels::inv_mod_2_64(p.value()))
            .collect();
        Some(MontTables { neg_vq: nv, p_inv })
    }
}

/// `[x 2^64]_p`, a residue's Montgomery form.
fn mont(p: &Modulus, x: u64) -> u64 {
    p.reduce_u128((x as u128) << 64)
}

/// `x 2^-64 mod p` for `x < p 2^64` (`p_inv = p^-1 mod 2^64`), in `[0, p)`: `m = x p^-1 mod
/// 2^64` makes `x - m p` a multiple of `2^64`, and `(x - m p) / 2^64` lies in `(-p, p)`.
#[inline(always)]
fn redc(x: u128, p: u64, p_inv: u64) -> u64 {
    let (lo, hi) = (x as u64, (x >> 64) as u64);
    let m = lo.wrapping_mul(p_inv);
    let mp = ((m as u128 * p as u128) >> 64) as u64;
    let t = hi.wrapping_sub(mp);
    if hi < mp {
        t.wrapping_add(p)
    } else {
        t
    }
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
    /// `q_hat_mod_p` and `q_hat_mod_p_sw` each in four lanes, at `2 (j l + i)` and
    /// `2 (j l + i) + 1` (the AVX2 output sums read them as memory operands).
    q_hat_mod_p_x4: Vec<[u64; 4]>,
    /// `q_hat_mod_p` as `f64` in four lanes (exact for `p_j < 2^53`; read only for
    /// `p_j < 2^50`).
    q_hat_mod_p_f64x4: Vec<[f64; 4]>,
    /// `[(Q/q_i) 2^50]_{p_j}`, same layout as `q_hat_mod_p`.
    q_hat_mod_p_split: Vec<u64>,
    /// `[-Q]_{p_j}`, and with halves swapped.
    neg_q: Vec<u64>,
    neg_q_sw: Vec<u64>,
    /// `q_hat_mod_p_mont` with halves swapped, and `[-Q 2^64]_{p_j}` with and without:
    /// the 64-bit lanes' sums of at most
    /// [`MONT_TERMS`](crate::math::kernels::MONT_TERMS) products end in one Montgomery
    /// reduction.
    c_mont_sw: Vec<u64>,
    /// `c_mont` and `c_mont_sw` in four lanes, laid out as `q_hat_mod_p_x4`.
    c_mont_x4: Vec<[u64; 4]>,
    neg_q_mont: Vec<u64>,
    neg_q_mont_sw: Vec<u64>,
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
        let c_mont: Vec<u64> = to
            .moduli
            .iter()
            .enumerate()
            .flat_map(|(j, p)| q_hat_mod_p[j * l..(j + 1) * l].iter().map(|&c| mont(p, c)))
            .collect();
        let neg_q_mont: Vec<u64> = to
            .moduli
            .iter()
            .zip(&neg_q)
            .map(|(p, &c)| mont(p, c))
            .collect();
        let simd = SimdTables {
            ok: from
                .moduli
                .iter()
                .chain(&to.moduli)
                .all(|m| crate::math::kernels::simd_takes(m.value())),
            from: from.moduli.iter().map(|m| *m.lane_consts()).collect(),
            to: to.moduli.iter().map(|m| *m.lane_consts()).collect(),
            q_hat_inv_shoup52: q_hat_inv
                .iter()
                .zip(&from.moduli)
                .map(|(&w, q)| {
                    if q.value() < crate::math::kernels::IFMA_MAX_Q {
                        crate::math::kernels::shoup(w, q.value(), 52)
                    } else {
                        0
                    }
                })
                .collect(),
            q_hat_mod_p_sw: q_hat_mod_p.iter().map(swap).collect(),
            q_hat_mod_p_x4: q_hat_mod_p
                .iter()
                .flat_map(|c| [[*c; 4], [swap(c); 4]])
                .collect(),
            q_hat_mod_p_f64x4: q_hat_mod_p.iter().map(|&c| [c as f64; 4]).collect(),
            q_hat_mod_p_split,
            neg_q_sw: neg_q.iter().map(swap).collect(),
            neg_q,
            c_mont_sw: c_mont.iter().map(swap).collect(),
            c_mont_x4: c_mont
                .iter()
                .flat_map(|c| [[*c; 4], [swap(c); 4]])
                .collect(),
            neg_q_mont_sw: neg_q_mont.iter().map(swap).collect(),
            neg_q_mont,
        };
        BaseConverter {
            simd,
            mont: MontTables::new(&from.moduli, &to.moduli, &neg_vq_mod_p),
            q_hat_mod_p_mont: c_mont,
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

    /// The precomputed tables, for a device that runs the same conversion (the GPU
    /// backend uploads them; see [`ConvTables`]).
    pub fn tables(&self) -> ConvTables<'_> {
        ConvTables {
            from: &self.from,
            to: &self.to,
            q_hat_inv: &self.q_hat_inv,
            q_hat_inv_shoup: &self.q_hat_inv_shoup,
            q_hat_mod_p: &self.q_hat_mod_p,
            neg_vq_mod_p: &self.neg_vq_mod_p,
            inv_q: &self.inv_q,
            max_terms: self.max_terms,
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

    /// The exact conversion from one prime `q` (a hybrid digit of `α = 1` primes, seed
    /// 001's setting) when every target `p` has `q < 2p`: the centered lift of `x < q` is
    /// `x` or `x - q`, and modulo `p` that is one conditional subtraction and a select, no
    /// product ([`kernels::lift_centered`](crate::math::kernels::lift_centered), rescale's
    /// lift; the generic path multiplies by `[q̂^-1]_q = 1` and `[q̂]_p = 1` and estimates
    /// `v` in floating point, 20% of an `α = 1` key switch at `N = 2^14`). The same words
    /// as the generic path. Returns false (nothing written) when some target is too small.
    fn single_prime_lift(&self, input: &[u64], output: &mut [u64], j0: usize, n: usize) -> bool {
        let q = self.from[0].value();
        let targets = &self.to[j0..j0 + output.len() / n];
        if targets.iter().any(|p| q >= 2 * p.value()) {
            return false;
        }
        for (limb, p) in output.chunks_exact_mut(n).zip(targets) {
            crate::math::kernels::lift_centered(limb, input, q, p);
        }
        true
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
        if EXACT && l == 1 && self.single_prime_lift(input, output, j0, n) {
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
            use crate::math::kernels::{avx2, avx512, Lanes};
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
                c_x4: &self.simd.q_hat_mod_p_x4[2 * j0 * l..],
                c_f64x4: &self.simd.q_hat_mod_p_f64x4[j0 * l..],
                c_split: &self.simd.q_hat_mod_p_split[j0 * l..],
                neg_q: &self.simd.neg_q[j0..],
                neg_q_sw: &self.simd.neg_q_sw[j0..],
                c_mont: &self.q_hat_mod_p_mont[j0 * l..],
                c_mont_sw: &self.simd.c_mont_sw[j0 * l..],
                c_mont_x4: &self.simd.c_mont_x4[2 * j0 * l..],
                neg_q_mont: &self.simd.neg_q_mont[j0..],
                neg_q_mont_sw: &self.simd.neg_q_mont_sw[j0..],
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

    /// Coefficients `k0 .. k0 + len` of every output limb: `y` and `v` for the block in the
    /// first `(l + 1) * len` scratch words (`y` coefficient-major: the `l` values of
    /// coefficient `k` side by side, so that each output reads one short contiguous run),
    /// then the outputs limb by limb.
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
        // y_i = [x_i * (Q/q_i)^-1]_{q_i}, at y[k l + i].
        for i in 0..l {
            let (q, w, ws) = (&self.from[i], self.q_hat_inv[i], self.q_hat_inv_shoup[i]);
            let src = &input[i * n + k0..i * n + k0 + len];
            for (yk, &s) in y.chunks_exact_mut(l).zip(src) {
                yk[i] = q.mul_shoup(s, w, ws);
            }
        }
        // v = round(sum_i y_i / q_i), a small integer per coefficient (summed in f64 in the
        // order of i), or 0 when not EXACT.
        if EXACT {
            for (a, yk) in v.iter_mut().zip(y.chunks_exact(l)) {
                let mut sum = 0f64;
                for (&yi, &inv) in yk.iter().zip(&self.inv_q) {
                    sum += yi as f64 * inv;
                }
                *a = sum.round() as u64;
            }
        } else {
            v.fill(0);
        }
        for j in 0..out_limbs {
            let jj = j0 + j;
            let p = &self.to[jj];
            let row = &self.q_hat_mod_p[jj * l..(jj + 1) * l];
            let neg_vq = &self.neg_vq_mod_p[jj * (l + 1)..(jj + 1) * (l + 1)];
            let out = &mut output[j * n + k0..j * n + k0 + len];
            macro_rules! fixed {
                ($row:expr, $neg:expr, $reduce:expr; $($l:literal)*) => {
                    match l {
                        $($l => outputs_fixed::<$l, EXACT>(out, y, v, $row, $neg, $reduce),)*
                        _ => outputs_any::<EXACT>(out, y, v, $row, $neg, $reduce),
                    }
                };
            }
            if let Some(m) = &self.mont {
                let (pv, p_inv) = (p.value(), m.p_inv[jj]);
                let row = &self.q_hat_mod_p_mont[jj * l..(jj + 1) * l];
                let neg = &m.neg_vq[jj * (l + 1)..(jj + 1) * (l + 1)];
                fixed!(row, neg, |x| redc(x, pv, p_inv); 1 2 3 4 5 6 7 8 9 10 11 12);
            } else if l <= self.max_terms {
                fixed!(row, neg_vq, |x| p.reduce_u128(x); 1 2 3 4 5 6 7 8 9 10 11 12);
            } else {
                for ((o, yk), &vk) in out.iter_mut().zip(y.chunks_exact(l)).zip(v.iter()) {
                    let mut r = if EXACT { neg_vq[vk as usize] } else { 0 };
                    for (&yi, &c) in yk.iter().zip(row) {
                        r = p.add(r, p.mul(yi, c));
                    }
                    *o = r;
                }
            }
        }
    }
}

/// One output limb of a conversion block with `L` input limbs known at compile time (the
/// term loop unrolled): `o_k = reduce(n_(v_k) + sum_i y_(k, i) c_i)`, summed in 128 bits and
/// reduced once (Barrett, or Montgomery with [`MontTables`]' constants).
#[inline(always)]
fn outputs_fixed<const L: usize, const EXACT: bool>(
    out: &mut [u64],
    y: &[u64],
    v: &[u64],
    row: &[u64],
    neg_vq: &[u64],
    reduce: impl Fn(u128) -> u64,
) {
    let row: &[u64; L] = row.try_into().expect("one constant per input limb");
    let (y, _) = y.as_chunks::<L>();
    for ((o, yk), &vk) in out.iter_mut().zip(y).zip(v) {
        let mut acc: u128 = if EXACT {
            neg_vq[vk as usize] as u128
        } else {
            0
        };
        for i in 0..L {
            acc += yk[i] as u128 * row[i] as u128;
        }
        *o = reduce(acc);
    }
}

/// [`outputs_fixed`] for any number of input limbs.
#[inline(always)]
fn outputs_any<const EXACT: bool>(
    out: &mut [u64],
    y: &[u64],
    v: &[u64],
    row: &[u64],
    neg_vq: &[u64],
    reduce: impl Fn(u128) -> u64,
) {
    let l = row.len();
    for ((o, yk), &vk) in out.iter_mut().zip(y.chunks_exact(l)).zip(v) {
        let mut acc: u128 = if EXACT {
            neg_vq[vk as usize] as u128
        } else {
            0
        };
        for (&yi, &c) in yk.iter().zip(row) {
            acc += yi as u128 * c as u128;
        }
        *o = reduce(acc);
    }
}

/// Target size, in words, of one conversion block's scratch (`y` rows and `v`): 32 KiB,
/// so that the block stays in L1 next to the output stream.
const CONVERT_BLOCK_WORDS: usize = 4096;
