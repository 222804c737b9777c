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
//! * AVX2 (with FMA) on CPUs without AVX-512 (`avx2.rs`): for odd moduli `q < 2^50`, the
//!   products and sums of products in exact double-precision FMA arithmetic (FLINT
//!   `fft_small`'s technique, as the AVX2 NTT), and for larger ones up to 61 bits the
//!   64-bit-lane arithmetic above four lanes at a time, the low product words from
//!   `vpmulld` cross terms;
//! * the portable code in [`scalar`] otherwise (other targets, CPUs without AVX2, even
//!   or larger moduli). [`scalar`] stays public: it is the reference the tests compare the
//!   SIMD paths with, and the baseline of the benchmarks.
//!
//! The proofs of the reduction bounds are next to the code, in `avx512.rs`. The choice
//! follows [`Isa::detect`], which honours the `HEKATE_SIMD` cap.

use super::modulus::Modulus;
use crate::{Error, Result};

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
pub mod scalar;

/// The instruction sets the kernels, the NTT ([`NttBackend`](super::NttBackend)) and
/// [`BaseConverter`](super::rns::BaseConverter) can run on, in increasing order: each one
/// implies every one before it (the probe only reports a level when the CPU has all of the
/// lower ones' features too).
///
/// # Choosing one: detection and the cap
///
/// [`Isa::detect`] is the one place hekate decides what SIMD code runs: the best level of
/// this CPU ([`Isa::cpu`], probed once), lowered to the *cap* ([`Isa::cap`]) if one is set.
/// The cap lets a user reproduce a result, and lets anyone on an AVX-512 machine measure
/// the AVX2 and scalar paths. It comes, in this order of precedence, from
///
/// * [`Isa::set_cap`], called before the first kernel, NTT plan or [`Isa::detect`];
/// * the environment variable `HEKATE_SIMD=scalar|avx2|avx512|avx512ifma`, read once
///   (`auto` or empty: no cap; an unknown value is reported on stderr and ignored).
///
/// Once read, the cap is fixed for the life of the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Isa {
    /// Portable scalar code ([`scalar`]).
    Scalar,
    /// AVX2 and FMA, four 64-bit lanes (Intel Haswell, AMD Zen and later).
    Avx2,
    /// AVX-512F/DQ, 64-bit lanes.
    Avx512,
    /// AVX-512F/DQ and IFMA (the 52-bit lanes serve moduli below `2^50`).
    Avx512Ifma,
}

/// `u8` code of "not yet known" in the caches below.
const UNKNOWN: u8 = u8::MAX;

/// The cap, once fixed (by [`Isa::set_cap`] or on first use).
static CAP: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();

impl Isa {
    /// Every instruction set, in increasing order.
    pub const ALL: [Isa; 4] = [Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Ifma];

    /// The name `HEKATE_SIMD` and [`Isa::parse`] use (`scalar`, `avx2`, `avx512`,
    /// `avx512ifma`).
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Avx512Ifma => "avx512ifma",
        }
    }

    /// The instruction set of a name (case-insensitive, see [`Isa::name`]).
    pub fn parse(name: &str) -> Result<Isa> {
        let name = name.trim();
        Self::ALL
            .into_iter()
            .find(|i| i.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                Error::InvalidParameters(format!(
                    "unknown instruction set {name:?}: expected scalar, avx2, avx512 or \
                     avx512ifma"
                ))
            })
    }

    /// The instruction set in use: [`Isa::cpu`] lowered to [`Isa::cap`] (both fixed on the
    /// first call, then cached).
    pub fn detect() -> Isa {
        use std::sync::atomic::{AtomicU8, Ordering};
        static CACHE: AtomicU8 = AtomicU8::new(UNKNOWN);
        let code = CACHE.load(Ordering::Relaxed);
        if code != UNKNOWN {
            return Self::from_code(code);
        }
        let isa = Self::cpu().min(Self::cap());
        CACHE.store(isa as u8, Ordering::Relaxed);
        isa
    }

    /// The best instruction set this CPU supports, ignoring the cap (probed once).
    pub fn cpu() -> Isa {
        use std::sync::atomic::{AtomicU8, Ordering};
        static CACHE: AtomicU8 = AtomicU8::new(UNKNOWN);
        let code = CACHE.load(Ordering::Relaxed);
        if code != UNKNOWN {
            return Self::from_code(code);
        }
        let isa = Self::probe();
        CACHE.store(isa as u8, Ordering::Relaxed);
        isa
    }

    /// The cap in force: the one [`Isa::set_cap`] set, else `HEKATE_SIMD`'s, else
    /// [`Isa::Avx512Ifma`] (no cap). Fixes the cap if it was not yet.
    pub fn cap() -> Isa {
        *CAP.get_or_init(|| match std::env::var("HEKATE_SIMD") {
            Ok(v) if !(v.trim().is_empty() || v.trim().eq_ignore_ascii_case("auto")) => {
                Isa::parse(&v).unwrap_or_else(|e| {
                    eprintln!("hekate: HEKATE_SIMD ignored: {e}");
                    Isa::Avx512Ifma
                })
            }
            _ => Isa::Avx512Ifma,
        })
    }

    /// Caps the instruction set hekate uses at `cap` (lower levels run unchanged, the CPU
    /// still bounds it: on an AVX2 CPU a cap of [`Isa::Avx512`] changes nothing). Takes
    /// precedence over `HEKATE_SIMD`. Returns an error if the cap is already fixed: call it
    /// before any kernel, NTT plan or [`Isa::detect`].
    pub fn set_cap(cap: Isa) -> Result<()> {
        CAP.set(cap).map_err(|_| {
            Error::InvalidParameters(format!(
                "the instruction-set cap is already fixed (at {}): set it before the first \
                 kernel, NTT plan or Isa::detect",
                Self::cap().name()
            ))
        })
    }

    /// Whether this instruction set runs here: at most [`Isa::detect`].
    pub fn available(self) -> bool {
        self <= Self::detect()
    }

    fn from_code(code: u8) -> Isa {
        match code {
            1 => Isa::Avx2,
            2 => Isa::Avx512,
            3 => Isa::Avx512Ifma,
            _ => Isa::Scalar,
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn probe() -> Isa {
        use std::arch::is_x86_feature_detected as has;
        if !(has!("avx2") && has!("fma")) {
            Isa::Scalar
        } else if !(has!("avx512f") && has!("avx512dq")) {
            Isa::Avx2
        } else if has!("avx512ifma") {
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
    /// returns a SIMD path the CPU lacks: `self` is lowered to [`Isa::detect`].
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn lanes(self, q: u64) -> Option<Lanes> {
        if !simd_takes(q) {
            return None;
        }
        match self.min(Isa::detect()) {
            Isa::Scalar => None,
            Isa::Avx2 => Some(Lanes::Avx2),
            Isa::Avx512 => Some(Lanes::Wide),
            Isa::Avx512Ifma if q < IFMA_MAX_Q => Some(Lanes::Ifma),
            Isa::Avx512Ifma => Some(Lanes::Wide),
        }
    }
}

impl std::str::FromStr for Isa {
    type Err = Error;
    fn from_str(s: &str) -> Result<Isa> {
        Isa::parse(s)
    }
}

impl std::fmt::Display for Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
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

/// The most products (each of two words below `2^61`, one of them reduced modulo `p`) a
/// SIMD base conversion with 64-bit lanes sums before one Montgomery reduction: their sum
/// is below `8 · 2^61 p = p 2^64`, the bound of `x 2^-64 mod p` in one step, and the
/// split-product accumulators of `math::simd` hold eight products without a fold.
pub(crate) const MONT_TERMS: usize = 8;

/// How many products of reduced operands, after a reduced initial value, sum below
/// `2^(63 + b)` for a `b`-bit modulus `q` (at least 4 for `b <= 61`, capped at `2^20`):
/// `2^(63-b) (q-1)^2 + q < 2^(63-b) 2^(2b)`. The SIMD inner products reduce such sums with
/// one Barrett reduction (`avx512::Wide::barrett`, `avx2::Avx2::barrett`).
#[inline(always)]
pub(crate) fn few_terms(bits: u32) -> usize {
    1usize << (63 - bits).min(20)
}

/// The lane arithmetic chosen for one modulus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) enum Lanes {
    /// AVX2, four 64-bit lanes.
    Avx2,
    /// AVX-512, eight 64-bit lanes.
    Wide,
    /// 52-bit IFMA lanes.
    Ifma,
}

/// Per-modulus constants of the SIMD arithmetic (plain words on every target; the
/// entry points broadcast them). `b` is the bit size of `q`, `2^(b-1) < q < 2^b`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
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
    /// `q^-1 mod 2^64` ([`inv_mod_2_64`]): Montgomery reduction of the base conversion's
    /// sums.
    pub q_inv64: u64,
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
            q_inv64: inv_mod_2_64(q),
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

/// `q^-1 mod 2^64` for an odd `q`: Newton's iteration `x <- x (2 - q x)` doubles the
/// correct low bits, 1, 2, 4, ..., 64.
pub(crate) fn inv_mod_2_64(q: u64) -> u64 {
    debug_assert!(q % 2 == 1);
    let mut x = 1u64;
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(q.wrapping_mul(x)));
    }
    debug_assert_eq!(q.wrapping_mul(x), 1);
    x
}

/// The Shoup companion `floor(w 2^bits / q)` of a reduced `w`.
pub(crate) fn shoup(w: u64, q: u64, bits: u32) -> u64 {
    debug_assert!(w < q);
    (((w as u128) << bits) / q as u128) as u64
}

/// Dispatches to `avx2::$f` or `avx512::{wide, ifma}::$f(consts, args...)` when a SIMD path
/// serves `q`,
/// else runs the scalar fallback expression.
macro_rules! dispatch {
    ($q:expr, $f:ident($($arg:expr),*), $fallback:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(lanes) = Isa::detect().lanes($q.value()) {
                let c = $q.lane_consts();
                // SAFETY: `lanes` only returns paths the CPU supports (`Isa::detect`), for
                // moduli that satisfy their bounds; the slice lengths were checked.
                unsafe {
                    match lanes {
                        Lanes::Avx2 => avx2::$f(c, $($arg),*),
                        Lanes::Wide => avx512::wide::$f(c, $($arg),*),
                        Lanes::Ifma => avx512::ifma::$f(c, $($arg),*),
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

/// `a[k] = 2 a[k] mod q` in one pass (branchless, see [`add`]): a square's middle term
/// `2 a_0 a_1` ([`Poly::tensor_into`](crate::ring::Poly::tensor_into)).
#[inline]
pub fn double_assign(a: &mut [u64], q: &Modulus) {
    let qv = q.value();
    for x in a.iter_mut() {
        let s = *x << 1;
        *x = s.min(s.wrapping_sub(qv));
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

/// The tables of a permutation by aligned blocks of eight words (`ring::automorphism`'s
/// block form of the NTT-form automorphisms, whose constructor checks them): output block
/// `t` is input block `src[t]` with its lanes permuted by `lanes[lane[t]]`, that is
/// `out[8t + s] = input[8 src[t] + lanes[lane[t]][s]]`.
///
/// They must hold: `lane` as long as `src`, every `src[t] < src.len()`, every
/// `lane[t] < lanes.len()`, every lane entry below 8 (checked in debug builds; the kernels
/// index unchecked).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blocks8<'a> {
    pub src: &'a [u32],
    pub lane: &'a [u8],
    pub lanes: &'a [[u64; 8]],
}

impl Blocks8<'_> {
    /// The tables' invariants, and `input` and `out` of `8 src.len()` words (debug builds).
    fn debug_check(&self, input: usize, out: usize) {
        let blocks = self.src.len();
        debug_assert!(input == 8 * blocks && out == 8 * blocks && self.lane.len() == blocks);
        debug_assert!(self.src.iter().all(|&s| (s as usize) < blocks));
        debug_assert!(self.lane.iter().all(|&l| (l as usize) < self.lanes.len()));
        debug_assert!(self.lanes.iter().flatten().all(|&x| x < 8));
    }
}

/// The permutation [`Blocks8`] of `input` into `out` (`8 src.len()` words each), one load,
/// one lane permutation and one store per block (AVX2: two of each and two blends), on
/// `isa`. Returns `false`, touching nothing, where `isa` is scalar or this CPU lacks it
/// (the caller then runs its word table).
pub(crate) fn permute_blocks8(isa: Isa, input: &[u64], out: &mut [u64], t: Blocks8) -> bool {
    t.debug_check(input.len(), out.len());
    #[cfg(target_arch = "x86_64")]
    match isa {
        Isa::Avx512 | Isa::Avx512Ifma if isa.available() => {
            // SAFETY: AVX-512F is available; the tables hold (the caller's contract).
            unsafe { avx512::permute_blocks8(input, out, t) };
            return true;
        }
        Isa::Avx2 if isa.available() => {
            // SAFETY: as above, with AVX2.
            unsafe { avx2::permute_blocks8(input, out, t) };
            return true;
        }
        _ => {}
    }
    let _ = isa;
    false
}

/// [`permute_blocks8`] of the sum: `out = π(a + b) mod q` for `a`, `b` reduced modulo
/// `q < 2^63` (`b` as long as `a`).
pub(crate) fn permute_add_blocks8(
    isa: Isa,
    [a, b]: [&[u64]; 2],
    out: &mut [u64],
    q: u64,
    t: Blocks8,
) -> bool {
    t.debug_check(a.len(), out.len());
    debug_assert_eq!(a.len(), b.len());
    #[cfg(target_arch = "x86_64")]
    match isa {
        _ if q >= 1 << 63 => {}
        Isa::Avx512 | Isa::Avx512Ifma if isa.available() => {
            // SAFETY: as in `permute_blocks8`.
            unsafe { avx512::permute_add_blocks8([a, b], out, q, t) };
            return true;
        }
        Isa::Avx2 if isa.available() => {
            // SAFETY: as in `permute_blocks8`.
            unsafe { avx2::permute_add_blocks8([a, b], out, q, t) };
            return true;
        }
        _ => {}
    }
    let _ = (isa, q);
    false
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

/// `acc[k] = acc[k] + b[k] * w mod q` for a reduced constant `w`, in one pass (a constant
/// product added to an accumulator: the terms of a polynomial's leaves).
#[inline]
pub fn mul_scalar_add_assign(acc: &mut [u64], b: &[u64], w: u64, q: &Modulus) {
    assert_eq!(acc.len(), b.len());
    assert!(w < q.value());
    dispatch!(
        q,
        mul_scalar_add_assign(acc, b, w, q.shoup(w)),
        scalar::mul_scalar_add_assign(acc, b, w, q)
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

/// `out[k] = [x[k]]_{q_last} mod q` for `x[k] < q_last`: the centered representative of
/// `x[k]` modulo `q_last` (`x[k] - q_last` when `x[k] > q_last / 2`) reduced modulo `q`.
/// Rescaling's lift of the dropped limb `q_l` into limb `q_i`
/// ([`Poly::divide_round_by_last_q`](crate::ring::Poly::divide_round_by_last_q)).
/// Branch-free per coefficient, on the SIMD paths for every `q_last < 2^63`: when
/// `q_last <= 2q` (primes of one size, or a smaller one dropped) a word's residue is one
/// conditional subtraction; a larger `q_last` (a 60-bit prime dropped above 40-bit ones)
/// takes the SIMD reduction of any word. (The scalar code's selects compile to branches,
/// which mispredict on random words: 2.8% of a Set III bootstrap ran there.)
#[inline]
pub fn lift_centered(out: &mut [u64], x: &[u64], q_last: u64, q: &Modulus) {
    assert_eq!(out.len(), x.len());
    let qv = q.value();
    if q_last < 1 << 63 {
        let (half, ql_mod) = (q_last >> 1, q.reduce(q_last));
        let near = q_last <= 2 * qv;
        dispatch!(
            q,
            lift_centered(out, x, half, ql_mod, near),
            scalar::lift_centered(out, x, q_last, q)
        )
    } else {
        scalar::lift_centered(out, x, q_last, q)
    }
}

#[cfg(test)]
mod tests;
