//! The automorphisms `X -> X^k` (k odd) of `Z[X]/(X^N + 1)`, in both forms.
//!
//! * Coefficient form: `a_i X^i -> ± a_i X^(i k mod N)`, with a sign flip when
//!   `i k mod 2N >= N` (because `X^N = -1`).
//! * NTT form: with the bit-reversed evaluation order of `math::ntt`
//!   (`â[j] = a(ψ^(2 brv(j) + 1))`), `(a ∘ X^k)(ψ^e) = a(ψ^(e k))`, so the automorphism
//!   is the pure permutation `out[j] = in[π(j)]` with
//!   `π(j) = brv(((2 brv(j) + 1) k mod 2N - 1) / 2)`; the table is cached per `k` in the
//!   [`RingContext`](super::RingContext).
//!
//! **Blocks of eight.** `π` moves aligned blocks of [`BLOCK`] words as wholes: write
//! `j = 8t + s` (`s < 8`), so `m = brv(j) = brv_3(s) N/8 + brv(t)` (`brv(t)` over the
//! low `log N - 3` bits). The map `m -> (k (2m + 1) - 1) / 2 = k m + (k - 1)/2 mod N`
//! sends `m` to `k brv_3(s) N/8 + (k brv(t) + (k-1)/2) mod N`: its low `log N - 3` bits
//! depend on `t` only, its top three bits are `(k brv_3(s) + h_t) mod 8` for the top bits
//! `h_t` of the second term. Bit-reversed again, `π(8t + s) = 8 T_t + brv_3((k brv_3(s) +
//! h_t) mod 8)`: the output block `t` is the input block `T_t` with one of at most eight
//! lane permutations (one per `h_t`). [`NttPermutation`] keeps them (checked against the
//! word table when built) and applies them with one load, one lane permutation and one
//! store per block on AVX-512 (`kernels::permute_blocks8`), every cache line read
//! whole, where the word table gathers word by word (the portable path, and the twin the
//! tests compare with).

use crate::math::kernels::{self, Isa};
use crate::math::ntt::bit_reverse;

/// The words of a block of [`NttPermutation`]'s block form.
pub const BLOCK: usize = 8;

/// The NTT-form index table of `X -> X^k`.
#[derive(Debug, Clone)]
pub struct NttPermutation {
    k: usize,
    index: Vec<u32>,
    blocks: Option<BlockPermutation>,
}

/// [`NttPermutation`] by aligned blocks of [`BLOCK`] words (see the module
/// documentation): output block `t` is input block `src[t]` with its lanes permuted by
/// `lanes[lane[t]]` (`out[8t + s] = in[8 src[t] + lanes[lane[t]][s]]`).
#[derive(Debug, Clone)]
struct BlockPermutation {
    src: Vec<u32>,
    lane: Vec<u8>,
    lanes: Vec<[u64; BLOCK]>,
}

impl BlockPermutation {
    /// The block form of `index`, if every aligned output block reads one aligned input
    /// block (always for `n >= 8`, module documentation; checked word by word).
    fn new(index: &[u32]) -> Option<Self> {
        let n = index.len();
        if n < BLOCK || !n.is_multiple_of(BLOCK) {
            return None;
        }
        let mut bp = BlockPermutation {
            src: Vec::with_capacity(n / BLOCK),
            lane: Vec::with_capacity(n / BLOCK),
            lanes: Vec::new(),
        };
        for block in index.chunks_exact(BLOCK) {
            let src = block[0] as usize / BLOCK;
            let mut lanes = [0u64; BLOCK];
            for (l, &i) in lanes.iter_mut().zip(block) {
                if i as usize / BLOCK != src {
                    return None;
                }
                *l = (i as usize % BLOCK) as u64;
            }
            let id = match bp.lanes.iter().position(|x| *x == lanes) {
                Some(id) => id,
                None if bp.lanes.len() < 256 => {
                    bp.lanes.push(lanes);
                    bp.lanes.len() - 1
                }
                None => return None,
            };
            bp.src.push(src as u32);
            bp.lane.push(id as u8);
        }
        Some(bp)
    }

    /// The tables as the kernels take them.
    fn tables(&self) -> kernels::Blocks8<'_> {
        kernels::Blocks8 {
            src: &self.src,
            lane: &self.lane,
            lanes: &self.lanes,
        }
    }
}

impl NttPermutation {
    /// The table for ring degree `n` and odd `k` (taken mod 2n).
    pub fn new(n: usize, k: usize) -> Self {
        assert!(k % 2 == 1, "automorphism exponent must be odd");
        let log_n = n.trailing_zeros();
        let two_n = 2 * n;
        let index: Vec<u32> = (0..n)
            .map(|j| {
                let e = (2 * bit_reverse(j, log_n) + 1) * k % two_n;
                bit_reverse((e - 1) / 2, log_n) as u32
            })
            .collect();
        NttPermutation {
            k: k % two_n,
            blocks: BlockPermutation::new(&index),
            index,
        }
    }

    /// Whether the permutation has its block form (every `n >= 8`).
    pub fn has_blocks(&self) -> bool {
        self.blocks.is_some()
    }

    /// The exponent `k`.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The table: `out[j] = in[index()[j]]` (the GPU backend uploads it).
    pub fn index(&self) -> &[u32] {
        &self.index
    }

    /// `out[j] = a[π(j)] + b[π(j)] mod q` for reduced `a`, `b`.
    #[inline]
    pub fn apply_add(&self, a: &[u64], b: &[u64], out: &mut [u64], q: u64) {
        self.apply_add_on(Isa::detect(), a, b, out, q)
    }

    /// [`NttPermutation::apply_add`] on a chosen instruction set (the same words).
    pub(crate) fn apply_add_on(&self, isa: Isa, a: &[u64], b: &[u64], out: &mut [u64], q: u64) {
        let n = self.index.len();
        assert!(
            a.len() == n && b.len() == n && out.len() == n,
            "limb of another degree"
        );
        if let Some(bp) = &self.blocks {
            if kernels::permute_add_blocks8(isa, [a, b], out, q, bp.tables()) {
                return;
            }
        }
        self.apply_add_words(a, b, out, q);
    }

    /// [`NttPermutation::apply_add`] word by word (the portable path and the twin of the
    /// block kernel).
    pub fn apply_add_words(&self, a: &[u64], b: &[u64], out: &mut [u64], q: u64) {
        for (o, &i) in out.iter_mut().zip(&self.index) {
            let s = a[i as usize] + b[i as usize];
            *o = if s >= q { s - q } else { s };
        }
    }

    /// Applies the permutation to one limb: `out[j] = input[π(j)]`.
    #[inline]
    pub fn apply(&self, input: &[u64], out: &mut [u64]) {
        self.apply_on(Isa::detect(), input, out)
    }

    /// [`NttPermutation::apply`] on a chosen instruction set (the same words).
    pub(crate) fn apply_on(&self, isa: Isa, input: &[u64], out: &mut [u64]) {
        let n = self.index.len();
        assert!(input.len() == n && out.len() == n, "limb of another degree");
        if let Some(bp) = &self.blocks {
            if kernels::permute_blocks8(isa, input, out, bp.tables()) {
                return;
            }
        }
        self.apply_words(input, out);
    }

    /// [`NttPermutation::apply`] word by word through the index table (the portable path
    /// and the twin of the block kernel).
    pub fn apply_words(&self, input: &[u64], out: &mut [u64]) {
        let n = self.index.len();
        assert!(input.len() == n && out.len() == n, "limb of another degree");
        for (o, &i) in out.iter_mut().zip(&self.index) {
            // SAFETY: every entry of `index` is below `n` (built so in `new`, never
            // changed), and `input.len() == n`.
            *o = unsafe { *input.get_unchecked(i as usize) };
        }
    }
}

/// Applies `X -> X^k` to one limb in coefficient form.
pub fn automorphism_coeff(input: &[u64], out: &mut [u64], k: usize, q: u64) {
    let n = input.len();
    let mask = 2 * n - 1;
    let mut idx = 0usize;
    for &c in input {
        let j = idx & (n - 1);
        out[j] = if idx & n == 0 || c == 0 { c } else { q - c };
        idx = (idx + k) & mask;
    }
}

/// The Galois element `5^r mod 2N` that rotates CKKS slots left by `r` (negative `r`
/// rotates right).
pub fn galois_element_for_rotation(r: i64, n: usize) -> usize {
    let two_n = 2 * n as u64;
    let slots_order = (n / 2) as i64; // the order of 5 modulo 2N
    let r = r.rem_euclid(slots_order) as u64;
    let mut g = 1u64;
    let mut b = 5u64;
    let mut e = r;
    while e > 0 {
        if e & 1 == 1 {
            g = g * b % two_n;
        }
        b = b * b % two_n;
        e >>= 1;
    }
    g as usize
}

/// The Galois element `2N - 1` (`X -> X^-1`): complex conjugation of CKKS slots.
pub fn galois_element_for_conjugation(n: usize) -> usize {
    2 * n - 1
}

/// The inverse of an odd Galois element modulo `2N`.
pub fn galois_inverse(k: usize, n: usize) -> usize {
    let two_n = 2 * n;
    // k has multiplicative order dividing N/2 * 2 = N in (Z/2N)^*: k^-1 = k^(N-1).
    let mut r = 1usize;
    let mut b = k % two_n;
    let mut e = n - 1;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % two_n;
        }
        b = b * b % two_n;
        e >>= 1;
    }
    debug_assert_eq!(r * k % two_n, 1);
    r
}
