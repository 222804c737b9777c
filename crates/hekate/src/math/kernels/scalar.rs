//! The portable scalar kernels: the fallback of the dispatching functions in
//! [`super`], and the reference the SIMD versions are tested against (bit-identical
//! outputs). Same contracts as their namesakes in [`super`].

use crate::math::modulus::Modulus;

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
        *o = q.reduce_u128(*o as u128 + x as u128 * y as u128);
    }
}

/// `acc[k] = acc[k] + sum_j a[j][k] * b[j][k] mod q`, with one reduction per output: the
/// products (below `2^122` for hekate's primes, at most 61 bits) are summed in 128 bits,
/// so up to 63 terms are exact.
#[inline]
pub fn inner_product_add_assign(acc: &mut [u64], a: &[&[u64]], b: &[&[u64]], q: &Modulus) {
    debug_assert!(a.len() == b.len() && a.len() < 64);
    for (k, o) in acc.iter_mut().enumerate() {
        let mut s = *o as u128;
        for (x, y) in a.iter().zip(b) {
            s += x[k] as u128 * y[k] as u128;
        }
        *o = q.reduce_u128(s);
    }
}

/// `out[k] = sum_j a[j][k] * b[j][k] mod q` (overwrites `out`), summed in 128 bits.
#[inline]
pub fn inner_product(out: &mut [u64], a: &[&[u64]], b: &[&[u64]], q: &Modulus) {
    debug_assert!(a.len() == b.len() && a.len() < 64);
    for (k, o) in out.iter_mut().enumerate() {
        let mut s = 0u128;
        for (x, y) in a.iter().zip(b) {
            s += x[k] as u128 * y[k] as u128;
        }
        *o = q.reduce_u128(s);
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
