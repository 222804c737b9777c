//! The portable scalar kernels: the fallback of the dispatching functions in
//! [`super`], and the reference the SIMD versions are tested against (bit-identical
//! outputs). Same contracts as their namesakes in [`super`].

use crate::math::modulus::Modulus;

/// `out[k] = [x[k]]_{q_last} mod q` (see [`super::lift_centered`]), branch-free per
/// coefficient, in three cases of `q_last` against `q`.
pub fn lift_centered(out: &mut [u64], x: &[u64], q_last: u64, q: &Modulus) {
    debug_assert_eq!(out.len(), x.len());
    let (qv, half) = (q.value(), q_last >> 1);
    if q_last <= qv {
        // x < q_l <= q: x, or x + (q - q_l).
        let shift = qv - q_last;
        for (o, &x) in out.iter_mut().zip(x) {
            *o = x + (shift & 0u64.wrapping_sub(u64::from(x > half)));
        }
    } else if q_last - qv < qv {
        // q < q_l < 2 q (primes of one size): x mod q is one conditional subtraction, and
        // q_l mod q = q_l - q; so it vectorizes.
        let ql_mod = q_last - qv;
        for (o, &x) in out.iter_mut().zip(x) {
            let r = x.min(x.wrapping_sub(qv));
            let sub = ql_mod & 0u64.wrapping_sub(u64::from(x > half));
            *o = q.sub(r, sub);
        }
    } else {
        // (x mod q) - (q_l mod q) when x > q_l / 2.
        let ql_mod = q.reduce(q_last);
        for (o, &x) in out.iter_mut().zip(x) {
            let sub = ql_mod & 0u64.wrapping_sub(u64::from(x > half));
            *o = q.sub(q.reduce(x), sub);
        }
    }
}

/// `a[k] = a[k] + b[k] mod q`.
#[inline]
pub fn add_assign(a: &mut [u64], b: &[u64], q: &Modulus) {
    debug_assert_eq!(a.len(), b.len());
    for (x, &y) in a.iter_mut().zip(b) {
        *x = q.add(*x, y);
    }
}

/// `a[k] = a[k] - b[k] mod q`.
#[inline]
pub fn sub_assign(a: &mut [u64], b: &[u64], q: &Modulus) {
    debug_assert_eq!(a.len(), b.len());
    for (x, &y) in a.iter_mut().zip(b) {
        *x = q.sub(*x, y);
    }
}

/// `a[k] = b[k] - a[k] mod q`.
#[inline]
pub fn rsub_assign(a: &mut [u64], b: &[u64], q: &Modulus) {
    debug_assert_eq!(a.len(), b.len());
    for (x, &y) in a.iter_mut().zip(b) {
        *x = q.sub(y, *x);
    }
}

/// `a[k] = -a[k] mod q`.
#[inline]
pub fn neg_assign(a: &mut [u64], q: &Modulus) {
    for x in a.iter_mut() {
        *x = q.neg(*x);
    }
}

/// `a[k] = a[k] * b[k] mod q`.
#[inline]
pub fn mul_assign(a: &mut [u64], b: &[u64], q: &Modulus) {
    debug_assert_eq!(a.len(), b.len());
    for (x, &y) in a.iter_mut().zip(b) {
        *x = q.mul(*x, y);
    }
}

/// `out[k] = a[k] * b[k] mod q`.
#[inline]
pub fn mul(a: &[u64], b: &[u64], out: &mut [u64], q: &Modulus) {
    debug_assert!(a.len() == b.len() && a.len() == out.len());
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = q.mul(x, y);
    }
}

/// `acc[k] = acc[k] + a[k] * b[k] mod q`.
#[inline]
pub fn mul_add_assign(acc: &mut [u64], a: &[u64], b: &[u64], q: &Modulus) {
    debug_assert!(a.len() == b.len() && a.len() == acc.len());
    for ((o, &x), &y) in acc.iter_mut().zip(a).zip(b) {
        *o = q.reduce_short(*o as u128 + x as u128 * y as u128);
    }
}

/// Coefficients per block of the scalar inner products: their 128-bit accumulators (8 KiB)
/// stay in L1 while every term streams through them.
const INNER_BLOCK: usize = 512;

/// `acc[k] = acc[k] + sum_j a[j][k] * b[j][k] mod q`, with one reduction per output: the
/// products (below `2^122` for hekate's primes, at most 61 bits) are summed in 128 bits,
/// so up to 63 terms are exact.
#[inline]
pub fn inner_product_add_assign(acc: &mut [u64], a: &[&[u64]], b: &[&[u64]], q: &Modulus) {
    inner_product_blocks::<true>(acc, a, b, q)
}

/// `out[k] = sum_j a[j][k] * b[j][k] mod q` (overwrites `out`), summed in 128 bits.
#[inline]
pub fn inner_product(out: &mut [u64], a: &[&[u64]], b: &[&[u64]], q: &Modulus) {
    inner_product_blocks::<false>(out, a, b, q)
}

/// Both inner products, block by block and term by term: each term is one pass of
/// zipped slices over the block's accumulators (no bounds checks, independent
/// multiply-adds), then one reduction per output.
#[inline]
fn inner_product_blocks<const ACC: bool>(out: &mut [u64], a: &[&[u64]], b: &[&[u64]], q: &Modulus) {
    debug_assert!(a.len() == b.len() && a.len() < 64);
    let n = out.len();
    assert!(
        a.iter().chain(b).all(|x| x.len() >= n),
        "short inner-product operand"
    );
    // One widening multiplication per reduction where the sums allow it (every pass at
    // 50 bits; up to 4 terms at 61).
    let short = q.short_sum_fits(a.len());
    let mut sums = [0u128; INNER_BLOCK];
    for (blk, o) in out.chunks_mut(INNER_BLOCK).enumerate() {
        let k0 = blk * INNER_BLOCK;
        let sums = &mut sums[..o.len()];
        if ACC {
            for (s, &x) in sums.iter_mut().zip(o.iter()) {
                *s = x as u128;
            }
        } else {
            sums.fill(0);
        }
        for (x, y) in a.iter().zip(b) {
            let (x, y) = (&x[k0..k0 + o.len()], &y[k0..k0 + o.len()]);
            for ((s, &x), &y) in sums.iter_mut().zip(x).zip(y) {
                *s += x as u128 * y as u128;
            }
        }
        if short {
            for (o, &s) in o.iter_mut().zip(sums.iter()) {
                *o = q.reduce_short(s);
            }
        } else {
            for (o, &s) in o.iter_mut().zip(sums.iter()) {
                *o = q.reduce_u128(s);
            }
        }
    }
}

/// `a[k] = a[k] * w mod q` for a reduced constant `w`.
#[inline]
pub fn mul_scalar_assign(a: &mut [u64], w: u64, q: &Modulus) {
    let ws = q.shoup(w);
    for x in a.iter_mut() {
        *x = q.mul_shoup(*x, w, ws);
    }
}

/// `acc[k] = acc[k] + b[k] * w mod q` for a reduced constant `w`.
#[inline]
pub fn mul_scalar_add_assign(acc: &mut [u64], b: &[u64], w: u64, q: &Modulus) {
    debug_assert_eq!(acc.len(), b.len());
    let ws = q.shoup(w);
    for (x, &y) in acc.iter_mut().zip(b) {
        *x = q.add(*x, q.mul_shoup(y, w, ws));
    }
}

/// `a[k] = (a[k] + q - b[k]) * w mod q`: subtract-then-multiply (ModDown's and rescaling's
/// last step, `w = P^-1` or `q_l^-1`).
#[inline]
pub fn sub_mul_scalar_assign(a: &mut [u64], b: &[u64], w: u64, w_shoup: u64, q: &Modulus) {
    debug_assert_eq!(a.len(), b.len());
    let qv = q.value();
    for (x, &y) in a.iter_mut().zip(b) {
        *x = q.mul_shoup(*x + qv - y, w, w_shoup);
    }
}
