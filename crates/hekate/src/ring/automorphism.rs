//! The automorphisms `X -> X^k` (k odd) of `Z[X]/(X^N + 1)`, in both forms.
//!
//! * Coefficient form: `a_i X^i -> ± a_i X^(i k mod N)`, with a sign flip when
//!   `i k mod 2N >= N` (because `X^N = -1`).
//! * NTT form: with the bit-reversed evaluation order of `math::ntt`
//!   (`â[j] = a(ψ^(2 brv(j) + 1))`), `(a ∘ X^k)(ψ^e) = a(ψ^(e k))`, so the automorphism
//!   is the pure permutation `out[j] = in[π(j)]` with
//!   `π(j) = brv(((2 brv(j) + 1) k mod 2N - 1) / 2)`; the table is cached per `k` in the
//!   [`RingContext`](super::RingContext).

use crate::math::ntt::bit_reverse;

/// The NTT-form index table of `X -> X^k`.
#[derive(Debug, Clone)]
pub struct NttPermutation {
    k: usize,
    index: Vec<u32>,
}

impl NttPermutation {
    /// The table for ring degree `n` and odd `k` (taken mod 2n).
    pub fn new(n: usize, k: usize) -> Self {
        assert!(k % 2 == 1, "automorphism exponent must be odd");
        let log_n = n.trailing_zeros();
        let two_n = 2 * n;
        let index = (0..n)
            .map(|j| {
                let e = (2 * bit_reverse(j, log_n) + 1) * k % two_n;
                bit_reverse((e - 1) / 2, log_n) as u32
            })
            .collect();
        NttPermutation {
            k: k % two_n,
            index,
        }
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
        for (o, &i) in out.iter_mut().zip(&self.index) {
            let s = a[i as usize] + b[i as usize];
            *o = if s >= q { s - q } else { s };
        }
    }

    /// Applies the permutation to one limb: `out[j] = input[π(j)]`.
    #[inline]
    pub fn apply(&self, input: &[u64], out: &mut [u64]) {
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
