//! [`BasisExtender`]: ModUp and ModDown between `C` and `C ∪ B`.

use super::{BaseConverter, RnsBasis};
use crate::math::modulus::Modulus;

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

    /// `[P^-1]_{q_i}` for every prime of `C`, and their Shoup companions (the constants of
    /// [`mod_down_limb`](Self::mod_down_limb)).
    pub fn p_inv(&self) -> (&[u64], &[u64]) {
        (&self.p_inv, &self.p_inv_shoup)
    }

    /// The last step of ModDown on limb `i` of `C`: `x <- (x - conv) * P^-1 mod q_i`.
    /// Linear, so it applies in coefficient and NTT form alike (with `conv` in the same form).
    #[inline]
    pub fn mod_down_limb(&self, i: usize, x: &mut [u64], conv: &[u64]) {
        crate::math::kernels::sub_mul_scalar_assign(
            x,
            conv,
            self.p_inv[i],
            self.p_inv_shoup[i],
            &self.c[i],
        );
    }
}
