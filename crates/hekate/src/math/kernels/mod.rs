//! Element-wise modular kernels on limbs: the loops every polynomial operation is made of.
//!
//! One place for them, so that the SIMD versions serve every caller. All inputs and
//! outputs are reduced (`[0, q)`) unless stated, and every implementation returns exactly
//! the same words.
//!
//! # Implementations
//!
//! Each function here dispatches, on a run-time CPU detection cached once per process
//! ([`Isa::detect`]), to
//!
//! * AVX-512 with 52-bit IFMA lanes (`avx512ifma`) for odd moduli `q < 2^50`: products of
//!   two variable operands use a Barrett reduction on `vpmadd52{lo,hi}uq`, Shoup products
//!   use 52-bit companions, and sums of products accumulate for free in the IFMA adders;
//! * AVX-512F/DQ with 64-bit lanes for other odd moduli up to 61 bits: the 128-bit lane
//!   product is emulated with four `vpmuludq` (shared with the NTT, `math/simd.rs`), then a
//!   Barrett reduction with a 64-bit constant;
//! * the portable code in [`scalar`] otherwise (other targets, CPUs without AVX-512, even
//!   or larger moduli). [`scalar`] stays public: it is the reference the tests compare the
//!   SIMD paths with, and the baseline of the benchmarks.
//!
//! The proofs of the reduction bounds are next to the code, in `avx512.rs`.

use super::modulus::Modulus;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
pub mod scalar;

/// The instruction sets the kernels (and [`BaseConverter`](super::rns::BaseConverter)) can
/// run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Portable scalar code ([`scalar`]).
    Scalar,
    /// AVX-512F/DQ, 64-bit lanes.
    Avx512,
    /// AVX-512F/DQ and IFMA (the 52-bit lanes serve moduli below `2^50`).
    Avx512Ifma,
}

impl Isa {
    /// The best instruction set of this CPU (detected once, then cached).
    pub fn detect() -> Isa {
        use std::sync::atomic::{AtomicU8, Ordering};
        static CACHE: AtomicU8 = AtomicU8::new(u8::MAX);
        let code = CACHE.load(Ordering::Relaxed);
        if code != u8::MAX {
            return Self::from_code(code);
        }
        let isa = Self::probe();
        CACHE.store(isa as u8, Ordering::Relaxed);
        isa
    }

    fn from_code(code: u8) -> Isa {
        match code {
            1 => Isa::Avx512,
            2 => Isa::Avx512Ifma,
            _ => Isa::Scalar,
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn probe() -> Isa {
        if !(std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq"))
        {
            Isa::Scalar
        } else if std::arch::is_x86_feature_detected!("avx512ifma") {
            Isa::Avx512Ifma
        } else {
            Isa::Avx512
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn probe() -> Isa {
        Isa::Scalar
    }

    /// The lane arithmetic this instruction set uses for `q` (`None`: scalar code). Never
    /// returns a SIMD path the CPU lacks: a SIMD `self` is only honoured up to
    /// [`Isa::detect`].
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn lanes(self, q: u64) -> Option<Lanes> {
        let isa = match (self, Isa::detect()) {
            (Isa::Scalar, _) | (_, Isa::Scalar) => return None,
            (Isa::Avx512Ifma, Isa::Avx512Ifma) => Isa::Avx512Ifma,
            _ => Isa::Avx512,
        };
        if !simd_takes(q) {
            None
        } else if isa == Isa::Avx512Ifma && q < IFMA_MAX_Q {
            Some(Lanes::Ifma)
        } else {
            Some(Lanes::Wide)
        }
    }
}

/// Largest modulus size (bits) of the SIMD paths.
const MAX_SIMD_BITS: u32 = 61;

/// Whether the SIMD reductions take the modulus `q`: odd (the Barrett constants need
/// `2^(b-1) < q`, false for powers of two), at least 3 and at most 61 bits.
pub(crate) fn simd_takes(q: u64) -> bool {
    q & 1 == 1 && (3..1 << MAX_SIMD_BITS).contains(&q)
}

/// Moduli below this use the 52-bit IFMA lanes.
pub(crate) const IFMA_MAX_Q: u64 = 1 << 50;

/// The lane arithmetic chosen for one modulus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) enum Lanes {
    /// 64-bit lanes.
    Wide,
    /// 52-bit IFMA lanes.
    Ifma,
}

/// Per-modulus constants of the SIMD arithmetic (plain words on every target; the
/// entry points broadcast them). `b` is the bit size of `q`, `2^(b-1) < q < 2^b`.
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct LaneConsts {
    pub q: u64,
    pub bits: u32,
    /// `floor(2^(63+b) / q)` (64-bit Barrett constant, in `(2^63, 2^64)`).
    pub mu64: u64,
    /// `2^64 mod q` and its Shoup companion; `floor(2^64 / q)` (the companion of 1).
    pub r64: u64,
    pub r64_shoup: u64,
    pub one64_shoup: u64,
    /// For `q < 2^50`: `floor(2^(51+b) / q)` (IFMA Barrett constant, below `2^52`).
    pub mu52: u64,
    /// For `q < 2^50`: `2^52 mod q` and its 52-bit companion; `floor(2^52 / q)`.
    pub r52: u64,
    pub r52_shoup: u64,
    pub one52_shoup: u64,
}

impl LaneConsts {
    /// Constants for an odd `q` of at most 61 bits (other moduli get zeros: unused).
    pub(crate) fn new(q: u64) -> LaneConsts {
        if !simd_takes(q) {
            return LaneConsts {
                q,
                ..Default::default()
            };
        }
        let bits = 64 - q.leading_zeros();
        let q128 = q as u128;
        let r64 = ((1u128 << 64) % q128) as u64;
        let mut c = LaneConsts {
            q,
            bits,
            mu64: ((1u128 << (63 + bits)) / q128) as u64,
            r64,
            r64_shoup: shoup(r64, q, 64),
            one64_shoup: ((1u128 << 64) / q128) as u64,
            ..Default::default()
        };
        if q < IFMA_MAX_Q {
            c.mu52 = ((1u128 << (51 + bits)) / q128) as u64;
            c.r52 = ((1u128 << 52) % q128) as u64;
            c.r52_shoup = shoup(c.r52, q, 52);
            c.one52_shoup = ((1u128 << 52) / q128) as u64;
        }
        c
    }
}

/// The Shoup companion `floor(w 2^bits / q)` of a reduced `w`.
pub(crate) fn shoup(w: u64, q: u64, bits: u32) -> u64 {
    debug_assert!(w < q);
    (((w as u128) << bits) / q as u128) as u64
}

/// Dispatches to `avx512::{wide, ifma}::$f(consts, args...)` when a SIMD path serves `q`,
/// else runs the scalar fallback expression.
macro_rules! dispatch {
    ($q:expr, $f:ident($($arg:expr),*), $fallback:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(lanes) = Isa::detect().lanes($q.value()) {
                let c = LaneConsts::new($q.value());
                // SAFETY: `lanes` only returns paths the CPU supports (`Isa::detect`), for
                // moduli that satisfy their bounds; the slice lengths were checked.
                unsafe {
                    match lanes {
                        Lanes::Wide => avx512::wide::$f(&c, $($arg),*),
                        Lanes::Ifma => avx512::ifma::$f(&c, $($arg),*),
                    }
                }
                return;
            }
        }
        $fallback
    }};
}

/// `a[k] = a[k] + b[k] mod q`.
#[inline]
pub fn add_assign(a: &mut [u64], b: &[u64], q: &Modulus) {
    assert_eq!(a.len(), b.len());
    dispatch!(q, add_assign(a, b), scalar::add_assign(a, b, q))
}

/// `out[k] = a[k] + b[k] mod q` in one pass (branchless `min(s, s - q)`, which the
/// compiler vectorizes for every target; no explicit SIMD needed).
#[inline]
pub fn add(a: &[u64], b: &[u64], out: &mut [u64], q: &Modulus) {
    assert!(a.len() == b.len() && a.len() == out.len());
    let qv = q.value();
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        let s = x + y;
        *o = s.min(s.wrapping_sub(qv));
    }
}

/// `out[k] = a[k] - b[k] mod q` in one pass (branchless, see [`add`]).
#[inline]
pub fn sub(a: &[u64], b: &[u64], out: &mut [u64], q: &Modulus) {
    assert!(a.len() == b.len() && a.len() == out.len());
    let qv = q.value();
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        let d = x.wrapping_sub(y);
        *o = d.min(d.wrapping_add(qv));
    }
}

/// `a[k] = a[k] - b[k] mod q`.
#[inline]
pub fn sub_assign(a: &mut [u64], b: &[u64], q: &Modulus) {
    assert_eq!(a.len(), b.len());
    dispatch!(q, sub_assign(a, b), scalar::sub_assign(a, b, q))
}

/// `a[k] = b[k] - a[k] mod q`.
#[inline]
pub fn rsub_assign(a: &mut [u64], b: &[u64], q: &Modulus) {
    assert_eq!(a.len(), b.len());
    dispatch!(q, rsub_assign(a, b), scalar::rsub_assign(a, b, q))
}

/// `a[k] = -a[k] mod q`.
#[inline]
pub fn neg_assign(a: &mut [u64], q: &Modulus) {
    dispatch!(q, neg_assign(a), scalar::neg_assign(a, q))
}

/// `a[k] = a[k] * b[k] mod q`.
#[inline]
pub fn mul_assign(a: &mut [u64], b: &[u64], q: &Modulus) {
    assert_eq!(a.len(), b.len());
    dispatch!(q, mul_assign(a, b), scalar::mul_assign(a, b, q))
}

/// `out[k] = a[k] * b[k] mod q`.
#[inline]
pub fn mul(a: &[u64], b: &[u64], out: &mut [u64], q: &Modulus) {
    assert!(a.len() == b.len() && a.len() == out.len());
    dispatch!(q, mul(a, b, out), scalar::mul(a, b, out, q))
}

/// `acc[k] = acc[k] + a[k] * b[k] mod q`.
#[inline]
pub fn mul_add_assign(acc: &mut [u64], a: &[u64], b: &[u64], q: &Modulus) {
    assert!(a.len() == b.len() && a.len() == acc.len());
    dispatch!(
        q,
        mul_add_assign(acc, a, b),
        scalar::mul_add_assign(acc, a, b, q)
    )
}

/// Terms per pass of the inner products: each pass streams `2 TERM_GROUP` inputs and the
/// output, few enough for the hardware prefetchers (with 47 digits in one pass, 94 streams,
/// the KLSS and high-`dnum` inner products ran at a quarter of the memory bandwidth).
/// Read from `HEKATE_TERM_GROUP` once, for tuning; 8 otherwise.
fn term_group() -> usize {
    static GROUP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *GROUP.get_or_init(|| {
        std::env::var("HEKATE_TERM_GROUP")
            .ok()
            .and_then(|s| s.parse().ok())
            .filter(|&g| (1..64).contains(&g))
            .unwrap_or(8)
    })
}

/// `acc[k] = acc[k] + sum_j a[j][k] * b[j][k] mod q`, any number of terms, in passes of a
/// few terms (lazy reductions inside a pass: the products, below `2^122`, are summed in
/// 128 bits on the scalar path).
#[inline]
pub fn inner_product_add_assign(acc: &mut [u64], a: &[&[u64]], b: &[&[u64]], q: &Modulus) {
    assert!(a.len() == b.len());
    let n = acc.len();
    assert!(a.iter().chain(b).all(|x| x.len() == n));
    let g = term_group();
    for (a, b) in a.chunks(g).zip(b.chunks(g)) {
        inner_product_pass::<true>(acc, a, b, q);
    }
}

/// One pass of at most 63 terms: `out [+]= sum_j a[j][k] * b[j][k] mod q`.
#[inline]
fn inner_product_pass<const ACC: bool>(out: &mut [u64], a: &[&[u64]], b: &[&[u64]], q: &Modulus) {
    debug_assert!(a.len() < 64);
    if ACC {
        dispatch!(
            q,
            inner_product_add_assign(out, a, b),
            scalar::inner_product_add_assign(out, a, b, q)
        )
    } else {
        dispatch!(
            q,
            inner_product(out, a, b),
            scalar::inner_product(out, a, b, q)
        )
    }
}

/// `out[k] = sum_j a[j][k] * b[j][k] mod q`, overwriting `out` (same passes and
/// reductions as [`inner_product_add_assign`]).
#[inline]
pub fn inner_product(out: &mut [u64], a: &[&[u64]], b: &[&[u64]], q: &Modulus) {
    assert!(a.len() == b.len());
    let n = out.len();
    assert!(a.iter().chain(b).all(|x| x.len() == n));
    if a.is_empty() {
        out.fill(0);
        return;
    }
    let g = term_group().min(a.len());
    inner_product_pass::<false>(out, &a[..g], &b[..g], q);
    inner_product_add_assign(out, &a[g..], &b[g..], q);
}

/// `a[k] = a[k] * w mod q` for a reduced constant `w`.
#[inline]
pub fn mul_scalar_assign(a: &mut [u64], w: u64, q: &Modulus) {
    assert!(w < q.value());
    dispatch!(
        q,
        mul_scalar_assign(a, w, q.shoup(w)),
        scalar::mul_scalar_assign(a, w, q)
    )
}

/// `a[k] = (a[k] + q - b[k]) * w mod q`: subtract-then-multiply (ModDown's and rescaling's
/// last step, `w = P^-1` or `q_l^-1`, `w_shoup` its companion [`Modulus::shoup`]).
#[inline]
pub fn sub_mul_scalar_assign(a: &mut [u64], b: &[u64], w: u64, w_shoup: u64, q: &Modulus) {
    assert_eq!(a.len(), b.len());
    assert!(w < q.value());
    dispatch!(
        q,
        sub_mul_scalar_assign(a, b, w, w_shoup),
        scalar::sub_mul_scalar_assign(a, b, w, w_shoup, q)
    )
}

#[cfg(test)]
mod tests;
