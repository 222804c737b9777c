//! Gadget encryptions over one NTT-friendly prime `Q`: RLWE', RGSW, the products
//! `R ⊙ RLWE'` and `RLWE ⊗ RGSW`, automorphism keys with `EvalAuto`, and `ALTMULT`
//! (seed 002, §2 and Alg. 6). FHEW blind rotation and threshold key generation build on
//! these.
//!
//! Symbols (seed 002, §2):
//!
//! * `RLWE_z(m) = (a, b) = (a, -a z + e + m)`: decrypts as `b + a z`. hekate stores
//!   `a` and `b` as one-limb [`Poly`]s.
//! * `B_g`: gadget base, a power of two; `d_g = ceil(log Q / log B_g)` digits; gadget
//!   vector `g = (1, B_g, .., B_g^(d_g-1))`. [`Gadget::decompose`] writes the *signed*
//!   digits `t_i` in `[-B_g/2, B_g/2)` (the last one takes the remainder), so
//!   `t = Σ g_i t_i` exactly and `E[t_i^2] ≈ B_g^2/12`.
//! * `RLWE'_z(m) = (RLWE_z(g_0 m), .., RLWE_z(g_{d-1} m))` ([`RlwePrime`]), and
//!   `t ⊙ RLWE'_z(m) = Σ t_i · RLWE_z(g_i m) = RLWE_z(t m)` ([`RlwePrime::mul_into`]) with
//!   error variance `σ_⊙^2 = d_g N (B_g^2/12) σ^2`.
//! * `RGSW_z(m) = (RLWE'_z(z m), RLWE'_z(m))` ([`Rgsw`]), and
//!   `(a, b) ⊗ RGSW_z(m) = a ⊙ RLWE'(z m) + b ⊙ RLWE'(m)` ([`Rgsw::external_product`]):
//!   for a monomial `m` the error grows by `2 σ_⊙^2`.
//! * `ak_t = RLWE'_z(z(X^t))` ([`AutoKey`]); `EvalAuto_t(RLWE_z(m)) = ψ_t(a) ⊙ ak_t +
//!   (0, ψ_t(b)) = RLWE_z(m(X^t))` ([`AutoKey::eval_auto`]), error `σ_⊙^2`.
//! * `ALTMULT(RLWE(m_1), RLWE'(m_2), RLWE'(z^2))` ([`alt_mult_into`], Alg. 6): the RLWE ⊗ RGSW
//!   product with the half-size key `RLWE'(m_2)`, error `(‖z‖^2 + 2) σ_⊙^2`.
//!
//! Keys are stored in NTT form; every `a` part is expanded from a 32-byte seed (stream
//! `i` for digit `i`), so serialized keys hold only the `b` parts.
//!
//! Hot paths run on one [`GswScratch`] and allocate nothing per call.

use crate::math::kernels;
use crate::math::sample::{DiscreteGaussian, Seed};
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::keys::encrypt_zero_sk_with;
use crate::rlwe::SecretKey;
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

/// Largest number of gadget digits (`2 d_g` products must fit the inner-product kernel).
pub const MAX_GADGET_DIGITS: usize = 31;

/// A signed gadget decomposition of `Z_Q` in base `B_g = 2^log_base` with `d_g` digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Gadget {
    q: u64,
    log_base: u32,
    digits: usize,
}

impl Gadget {
    /// The gadget of base `B_g = 2^log_base` for the modulus `q`, with
    /// `d_g = ceil(log2 q / log_base)` digits.
    pub fn new(q: u64, log_base: u32) -> Result<Self> {
        let bits = 64 - q.saturating_sub(1).leading_zeros();
        if q < 3 || !(1..=bits).contains(&log_base) {
            return Err(Error::InvalidParameters(format!(
                "gadget base 2^{log_base} must lie in [2, Q] for Q = {q}"
            )));
        }
        let digits = bits.div_ceil(log_base) as usize;
        if digits > MAX_GADGET_DIGITS {
            return Err(Error::InvalidParameters(format!(
                "gadget base 2^{log_base} gives {digits} digits for a {bits}-bit Q; at most \
                 {MAX_GADGET_DIGITS} are supported: use a larger base"
            )));
        }
        Ok(Gadget {
            q,
            log_base,
            digits,
        })
    }

    /// `Q`.
    pub fn q(&self) -> u64 {
        self.q
    }

    /// `B_g`.
    pub fn base(&self) -> u64 {
        1 << self.log_base
    }

    /// `log2 B_g`.
    pub fn log_base(&self) -> u32 {
        self.log_base
    }

    /// `d_g`.
    pub fn digits(&self) -> usize {
        self.digits
    }

    /// `g_i = B_g^i mod Q`.
    pub fn power(&self, i: usize) -> u64 {
        let mut g = 1u128;
        for _ in 0..i {
            g = (g << self.log_base) % self.q as u128;
        }
        g as u64
    }

    /// The signed digits of the coefficients `a` (reduced mod `Q`): digit `i` of
    /// coefficient `j` goes to `out[i * n + j]` as a residue mod `Q`, with `n = a.len()`.
    ///
    /// The centered representative `x` of each coefficient is split as
    /// `x = Σ_i t_i B_g^i` with `t_i` in `[-B_g/2, B_g/2)` for `i < d_g - 1` and the
    /// remainder in the last digit.
    pub fn decompose(&self, a: &[u64], out: &mut [u64]) {
        let n = a.len();
        assert_eq!(
            out.len(),
            self.digits * n,
            "decomposition output must hold d_g * n words"
        );
        #[cfg(target_arch = "x86_64")]
        {
            use crate::math::kernels::Isa;
            match Isa::detect() {
                // SAFETY: `Isa::detect` reports AVX-512F only where the CPU has it (and the
                // cap allows it).
                Isa::Avx512 | Isa::Avx512Ifma => unsafe { return decompose_avx512(self, a, out) },
                // SAFETY: likewise for AVX2.
                Isa::Avx2 => unsafe { return decompose_avx2(self, a, out) },
                Isa::Scalar => {}
            }
        }
        decompose_portable(self, a, out);
    }
}

/// [`decompose_portable`] with 8 coefficients per step, every digit of a chunk computed
/// in registers (one load of `a`, one store per digit; the same words as the portable
/// code).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn decompose_avx512(g: &Gadget, a: &[u64], out: &mut [u64]) {
    use std::arch::x86_64::*;
    let n = a.len();
    if !n.is_multiple_of(8) {
        return decompose_portable(g, a, out);
    }
    let d = g.digits;
    use crate::math::simd::{centered, signed_digit};
    let q = _mm512_set1_epi64(g.q as i64);
    let half_q = _mm512_set1_epi64((g.q / 2) as i64);
    let lb = _mm512_set1_epi64(g.log_base as i64);
    let mask = _mm512_set1_epi64((1i64 << g.log_base) - 1);
    let half = _mm512_set1_epi64(1i64 << (g.log_base - 1));
    let (pa, po) = (a.as_ptr(), out.as_mut_ptr());
    let mut k = 0;
    while k < n {
        let mut x = centered(_mm512_loadu_si512(pa.add(k) as *const _), half_q, q);
        for i in 0..d - 1 {
            let s = signed_digit(&mut x, mask, half, lb);
            let neg = negative_lanes(s);
            let t = _mm512_mask_add_epi64(s, neg, s, q);
            _mm512_storeu_si512(po.add(i * n + k) as *mut _, t);
        }
        let neg = negative_lanes(x);
        let t = _mm512_mask_add_epi64(x, neg, x, q);
        _mm512_storeu_si512(po.add((d - 1) * n + k) as *mut _, t);
        k += 8;
    }
}

/// [`decompose_portable`] with 4 coefficients per step in AVX2 registers (the same
/// words). AVX2 has no 64-bit arithmetic shift: `x >> b` (arithmetic) is
/// `((x >>> b) ^ m) - m` with `m = 2^(63 - b)`, and the signed compares stand in for the
/// unsigned one (every value is below `2^62`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn decompose_avx2(g: &Gadget, a: &[u64], out: &mut [u64]) {
    use std::arch::x86_64::*;
    let n = a.len();
    if !n.is_multiple_of(4) {
        return decompose_portable(g, a, out);
    }
    let d = g.digits;
    let lb = g.log_base as i32;
    let q = _mm256_set1_epi64x(g.q as i64);
    let half_q = _mm256_set1_epi64x((g.q / 2) as i64);
    let mask = _mm256_set1_epi64x((1i64 << lb) - 1);
    let half = _mm256_set1_epi64x(1i64 << (lb - 1));
    let sign_fix = _mm256_set1_epi64x(1i64 << (63 - lb));
    let shift = _mm_cvtsi32_si128(lb);
    let zero = _mm256_setzero_si256();
    // x + q in the lanes where x < 0.
    let lift = |x: __m256i| _mm256_add_epi64(x, _mm256_and_si256(_mm256_cmpgt_epi64(zero, x), q));
    let (pa, po) = (a.as_ptr(), out.as_mut_ptr());
    let mut k = 0;
    while k < n {
        // Centered: x - q where x > q/2.
        let c = _mm256_loadu_si256(pa.add(k) as *const __m256i);
        let mut x = _mm256_sub_epi64(c, _mm256_and_si256(_mm256_cmpgt_epi64(c, half_q), q));
        for i in 0..d - 1 {
            // t = x + B/2: s = (t mod B) - B/2, x = t >> log B (arithmetic).
            let t = _mm256_add_epi64(x, half);
            x = _mm256_sub_epi64(
                _mm256_xor_si256(_mm256_srl_epi64(t, shift), sign_fix),
                sign_fix,
            );
            let s = _mm256_sub_epi64(_mm256_and_si256(t, mask), half);
            _mm256_storeu_si256(po.add(i * n + k) as *mut __m256i, lift(s));
        }
        _mm256_storeu_si256(po.add((d - 1) * n + k) as *mut __m256i, lift(x));
        k += 4;
    }
}

/// The lanes of `x` that are negative (sign bit set), with AVX-512F only.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn negative_lanes(x: std::arch::x86_64::__m512i) -> std::arch::x86_64::__mmask8 {
    use std::arch::x86_64::*;
    _mm512_cmplt_epi64_mask(x, _mm512_setzero_si512())
}

/// Branch-free signed decomposition; the last digit's slot holds the running quotient.
#[inline(always)]
fn decompose_portable(g: &Gadget, a: &[u64], out: &mut [u64]) {
    let n = a.len();
    let d = g.digits;
    let q = g.q as i64;
    let half_q = g.q / 2;
    let (low, last) = out.split_at_mut((d - 1) * n);
    for (x, &c) in last.iter_mut().zip(a) {
        let over = -((c > half_q) as i64);
        *x = (c as i64 - (q & over)) as u64;
    }
    for digit in low.chunks_exact_mut(n) {
        for (t, x) in digit.iter_mut().zip(last.iter_mut()) {
            let mut v = *x as i64;
            let s = crate::math::signed_digit(&mut v, g.log_base);
            *x = v as u64;
            *t = (s + ((s >> 63) & q)) as u64;
        }
    }
    for x in last.iter_mut() {
        let v = *x as i64;
        *x = (v + ((v >> 63) & q)) as u64;
    }
}

/// An RLWE ciphertext `(a, b)` with `b + a z = m + e` (both parts in the same form).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RlweCiphertext {
    /// `a`.
    pub a: Poly,
    /// `b`.
    pub b: Poly,
}

impl RlweCiphertext {
    /// The zero ciphertext in `form` (one limb).
    pub fn zero(ctx: &RingContext, form: Form) -> Self {
        RlweCiphertext {
            a: ctx.zero(1, 0, form),
            b: ctx.zero(1, 0, form),
        }
    }

    /// The phase `b + a z` in coefficient form (for decryption and noise measurement).
    pub fn phase(&self, ctx: &RingContext, z: &SecretKey) -> Poly {
        let mut a = self.a.clone();
        let mut b = self.b.clone();
        a.ntt(ctx);
        b.ntt(ctx);
        a.mul_assign(&z.ntt_at(1, 0), ctx);
        b.add_assign(&a, ctx);
        b.intt(ctx);
        b
    }

    /// A fresh secret-key encryption of `m` (coefficient form, one limb) under `z`, in
    /// coefficient form.
    pub fn encrypt<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        z: &SecretKey,
        m: &Poly,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Self {
        let seed = draw_seed(rng);
        let [mut b, mut a] = encrypt_zero_sk_with(ctx, z, 1, 0, &seed, 0, noise, rng);
        a.intt(ctx);
        b.intt(ctx);
        b.add_assign(m, ctx);
        RlweCiphertext { a, b }
    }
}

/// `RLWE'_z(m)`: `d_g` RLWE encryptions of `g_i m` (NTT form), `a_i` expanded from `seed`
/// with stream `i` when there is a seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RlwePrime {
    /// The gadget `g`.
    pub gadget: Gadget,
    /// The seed every `a_i` is expanded from; `None` when the `a_i` are not an expansion
    /// (keys computed from other keys, such as threshold keys combined from shares), so
    /// that they must be stored.
    pub seed: Option<Seed>,
    /// `a_0 .. a_{d-1}` (NTT form).
    pub a: Vec<Poly>,
    /// `b_0 .. b_{d-1}` (NTT form).
    pub b: Vec<Poly>,
}

impl RlwePrime {
    /// Encrypts `m` (NTT form, one limb) under `z` with fresh noise from `noise`.
    pub fn encrypt<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        z: &SecretKey,
        m_ntt: &Poly,
        gadget: Gadget,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Result<Self> {
        check_ring(ctx, gadget)?;
        let seed = draw_seed(rng);
        let q = *ctx.modulus(0, 1);
        let mut a = Vec::with_capacity(gadget.digits);
        let mut b = Vec::with_capacity(gadget.digits);
        for i in 0..gadget.digits {
            let [mut bi, ai] = encrypt_zero_sk_with(ctx, z, 1, 0, &seed, i as u64, noise, rng);
            let g = gadget.power(i);
            for (x, &mj) in bi.data_mut().iter_mut().zip(m_ntt.data()) {
                *x = q.add(*x, q.mul(mj, g));
            }
            a.push(ai);
            b.push(bi);
        }
        Ok(RlwePrime {
            gadget,
            seed: Some(seed),
            a,
            b,
        })
    }

    /// Rebuilds the key from its seed and `b` parts (re-expanding every `a_i`).
    pub fn from_seed(ctx: &RingContext, gadget: Gadget, seed: Seed, b: Vec<Poly>) -> Self {
        let a = (0..b.len())
            .map(|i| crate::rlwe::keys::expand_uniform(ctx, &seed, i as u64, 1, 0))
            .collect();
        RlwePrime {
            gadget,
            seed: Some(seed),
            a,
            b,
        }
    }

    /// `out = t ⊙ RLWE'(m) = RLWE(t m)` in NTT form, for `t` in coefficient form.
    pub fn mul_into(
        &self,
        t: &[u64],
        ctx: &RingContext,
        scratch: &mut GswScratch,
        out: &mut RlweCiphertext,
    ) {
        let n = ctx.n();
        let d = self.gadget.digits;
        let digits = &mut scratch.digits[..d * n];
        self.gadget.decompose(t, digits);
        let plan = ctx.ntt_plan(0, 1);
        digits.chunks_exact_mut(n).for_each(|x| plan.forward(x));
        let q = ctx.modulus(0, 1);
        let mut lhs: [&[u64]; MAX_GADGET_DIGITS] = [&[]; MAX_GADGET_DIGITS];
        for (l, x) in lhs.iter_mut().zip(digits.chunks_exact(n)) {
            *l = x;
        }
        let mut ka: [&[u64]; MAX_GADGET_DIGITS] = [&[]; MAX_GADGET_DIGITS];
        let mut kb: [&[u64]; MAX_GADGET_DIGITS] = [&[]; MAX_GADGET_DIGITS];
        for i in 0..d {
            ka[i] = self.a[i].data();
            kb[i] = self.b[i].data();
        }
        kernels::inner_product(out.a.data_mut(), &lhs[..d], &ka[..d], q);
        kernels::inner_product(out.b.data_mut(), &lhs[..d], &kb[..d], q);
        out.a.set_form(Form::Ntt);
        out.b.set_form(Form::Ntt);
    }

    /// Bytes of the seed-compressed key: the seed and the packed `b` parts (the packed
    /// `a` parts instead of the seed when there is none).
    pub fn compressed_bytes(&self) -> usize {
        let w = 64 - (self.gadget.q - 1).leading_zeros() as usize;
        let part = (self.b[0].n() * w).div_ceil(8);
        self.seed.map_or(self.a.len() * part, |_| 32) + self.b.len() * part
    }
}

fn check_ring(ctx: &RingContext, gadget: Gadget) -> Result<()> {
    if ctx.q_len() < 1 || ctx.modulus(0, 1).value() != gadget.q {
        return Err(Error::ParameterMismatch(format!(
            "gadget modulus {} differs from the ring's first prime {}",
            gadget.q,
            ctx.modulus(0, 1).value()
        )));
    }
    Ok(())
}

/// `RGSW_z(m) = (RLWE'_z(z m), RLWE'_z(m))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rgsw {
    /// `RLWE'_z(z m)`.
    pub zm: RlwePrime,
    /// `RLWE'_z(m)`.
    pub m: RlwePrime,
}

impl Rgsw {
    /// Encrypts `m` (NTT form, one limb) under `z`.
    pub fn encrypt<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        z: &SecretKey,
        m_ntt: &Poly,
        gadget: Gadget,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Result<Self> {
        // `z m` is secret-equivalent (for `m = X^{s_i}` it reveals `s_i`): wiped, not pooled.
        let mut zm = m_ntt.clone();
        zm.mul_assign(&z.ntt_at(1, 0), ctx);
        let zm_ct = RlwePrime::encrypt(ctx, z, &zm, gadget, noise, rng);
        zm.discard_secret();
        Ok(Rgsw {
            zm: zm_ct?,
            m: RlwePrime::encrypt(ctx, z, m_ntt, gadget, noise, rng)?,
        })
    }

    /// Encrypts the monomial `X^k` (`k` taken mod 2N, so `X^(k+N) = -X^k`).
    pub fn encrypt_monomial<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        z: &SecretKey,
        k: i64,
        gadget: Gadget,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Result<Self> {
        let m = monomial_ntt(ctx, k);
        Self::encrypt(ctx, z, &m, gadget, noise, rng)
    }

    /// Encrypts the integer constant `c`.
    pub fn encrypt_constant<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        z: &SecretKey,
        c: i64,
        gadget: Gadget,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Result<Self> {
        let mut coeffs = vec![0i64; ctx.n()];
        coeffs[0] = c;
        let mut m = ctx.from_signed(&coeffs, 1, 0);
        m.ntt(ctx);
        Self::encrypt(ctx, z, &m, gadget, noise, rng)
    }

    /// The gadget.
    pub fn gadget(&self) -> Gadget {
        self.m.gadget
    }

    /// `out = acc ⊗ RGSW` in NTT form, for `acc` in coefficient form.
    pub fn external_product_into(
        &self,
        acc: &RlweCiphertext,
        ctx: &RingContext,
        scratch: &mut GswScratch,
        out: &mut RlweCiphertext,
    ) {
        debug_assert_eq!(acc.a.form(), Form::Coeff);
        let n = ctx.n();
        let g = self.m.gadget;
        let d = g.digits;
        let digits = &mut scratch.digits[..2 * d * n];
        let (da, db) = digits.split_at_mut(d * n);
        g.decompose(acc.a.data(), da);
        g.decompose(acc.b.data(), db);
        let plan = ctx.ntt_plan(0, 1);
        digits.chunks_exact_mut(n).for_each(|x| plan.forward(x));
        let q = ctx.modulus(0, 1);
        let mut lhs: [&[u64]; 2 * MAX_GADGET_DIGITS] = [&[]; 2 * MAX_GADGET_DIGITS];
        for (l, x) in lhs.iter_mut().zip(digits.chunks_exact(n)) {
            *l = x;
        }
        let mut ka: [&[u64]; 2 * MAX_GADGET_DIGITS] = [&[]; 2 * MAX_GADGET_DIGITS];
        let mut kb: [&[u64]; 2 * MAX_GADGET_DIGITS] = [&[]; 2 * MAX_GADGET_DIGITS];
        for i in 0..d {
            ka[i] = self.zm.a[i].data();
            kb[i] = self.zm.b[i].data();
            ka[d + i] = self.m.a[i].data();
            kb[d + i] = self.m.b[i].data();
        }
        kernels::inner_product(out.a.data_mut(), &lhs[..2 * d], &ka[..2 * d], q);
        kernels::inner_product(out.b.data_mut(), &lhs[..2 * d], &kb[..2 * d], q);
        out.a.set_form(Form::Ntt);
        out.b.set_form(Form::Ntt);
    }

    /// `acc ← acc ⊗ RGSW`, coefficient form in and out.
    pub fn external_product(
        &self,
        acc: &mut RlweCiphertext,
        ctx: &RingContext,
        scratch: &mut GswScratch,
    ) {
        let mut out = scratch.take_tmp(ctx);
        self.external_product_into(acc, ctx, scratch, &mut out);
        out.a.intt(ctx);
        out.b.intt(ctx);
        std::mem::swap(acc, &mut out);
        scratch.put_tmp(out);
    }

    /// Bytes of the seed-compressed key.
    pub fn compressed_bytes(&self) -> usize {
        self.zm.compressed_bytes() + self.m.compressed_bytes()
    }
}

/// `X^k` in NTT form (one limb), `k` taken mod 2N.
///
/// `k` is often secret (`X^{s_i}` of blind-rotation keys): every coefficient is computed
/// by comparisons, with no branch on `k` and no write at an index that depends on it.
/// Callers holding a secret exponent wipe the result with [`Poly::discard_secret`].
pub fn monomial_ntt(ctx: &RingContext, k: i64) -> Poly {
    let n = ctx.n() as i64;
    let k = k.rem_euclid(2 * n);
    // X^k = X^k for k < N, -X^(k - N) otherwise: one of the two indices matches.
    let mut coeffs: Vec<i64> = (0..n)
        .map(|j| i64::from(j == k) - i64::from(j == k - n))
        .collect();
    let mut m = ctx.from_signed(&coeffs, 1, 0);
    coeffs.zeroize();
    m.ntt(ctx);
    m
}

/// The automorphism key `ak_t = RLWE'_z(z(X^t))` (`t` odd, taken mod 2N).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutoKey {
    /// `t`.
    pub t: usize,
    /// `RLWE'_z(z(X^t))`.
    pub key: RlwePrime,
}

impl AutoKey {
    /// Generates `ak_t` for `z`.
    pub fn generate<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        z: &SecretKey,
        t: usize,
        gadget: Gadget,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Result<Self> {
        let t = t % (2 * ctx.n());
        if t.is_multiple_of(2) {
            return Err(Error::InvalidParameters(format!(
                "automorphism exponent {t} must be odd"
            )));
        }
        let mut zt = ctx.zero(1, 0, Form::Ntt);
        z.ntt_at(1, 0).automorphism(t, ctx, &mut zt);
        let key = RlwePrime::encrypt(ctx, z, &zt, gadget, noise, rng);
        zt.discard_secret();
        Ok(AutoKey { t, key: key? })
    }

    /// `out = EvalAuto_t(acc)` for `acc` in NTT form; `out` in NTT form.
    pub fn eval_auto_into(
        &self,
        acc: &RlweCiphertext,
        ctx: &RingContext,
        scratch: &mut GswScratch,
        out: &mut RlweCiphertext,
    ) {
        debug_assert_eq!(acc.a.form(), Form::Ntt);
        let perm = ctx.ntt_permutation(self.t);
        let mut pa = std::mem::take(&mut scratch.auto);
        perm.apply(acc.a.data(), &mut pa);
        ctx.ntt_plan(0, 1).inverse(&mut pa);
        self.key.mul_into(&pa, ctx, scratch, out);
        scratch.auto = pa;
        perm.apply(acc.b.data(), &mut scratch.auto);
        kernels::add_assign(out.b.data_mut(), &scratch.auto, ctx.modulus(0, 1));
    }

    /// `acc ← EvalAuto_t(acc)`, NTT form in and out.
    pub fn eval_auto(&self, acc: &mut RlweCiphertext, ctx: &RingContext, scratch: &mut GswScratch) {
        let mut out = scratch.take_tmp(ctx);
        self.eval_auto_into(acc, ctx, scratch, &mut out);
        std::mem::swap(acc, &mut out);
        scratch.put_tmp(out);
    }
}

/// `ALTMULT` (seed 002, Alg. 6): `out = RLWE(m_1 m_2)` in NTT form from `acc = RLWE(m_1)`
/// (coefficient form), `RLWE'(m_2)` and `RLWE'(z^2)`:
///
/// ```text
/// (a', b') = a ⊙ RLWE'(m_2);  res = a' ⊙ RLWE'(z^2) + (b', 0);  res += b ⊙ RLWE'(m_2)
/// ```
pub fn alt_mult_into(
    acc: &RlweCiphertext,
    m2: &RlwePrime,
    z2: &RlwePrime,
    ctx: &RingContext,
    scratch: &mut GswScratch,
    out: &mut RlweCiphertext,
) {
    debug_assert_eq!(acc.a.form(), Form::Coeff);
    let q = ctx.modulus(0, 1);
    let mut t = scratch.take_tmp(ctx);
    m2.mul_into(acc.a.data(), ctx, scratch, &mut t); // (a', b'), NTT
    t.a.intt(ctx);
    z2.mul_into(t.a.data(), ctx, scratch, out);
    kernels::add_assign(out.a.data_mut(), t.b.data(), q);
    m2.mul_into(acc.b.data(), ctx, scratch, &mut t);
    kernels::add_assign(out.a.data_mut(), t.a.data(), q);
    kernels::add_assign(out.b.data_mut(), t.b.data(), q);
    scratch.put_tmp(t);
}

/// Reusable buffers of the gadget products (one per thread of evaluation).
#[derive(Debug)]
pub struct GswScratch {
    digits: Vec<u64>,
    auto: Vec<u64>,
    tmp: Vec<RlweCiphertext>,
}

impl GswScratch {
    /// Buffers for ring degree `N` and gadgets of up to `MAX_GADGET_DIGITS` digits.
    pub fn new(ctx: &RingContext) -> Self {
        let n = ctx.n();
        GswScratch {
            digits: vec![0; 2 * MAX_GADGET_DIGITS * n],
            auto: vec![0; n],
            tmp: (0..3)
                .map(|_| RlweCiphertext::zero(ctx, Form::Ntt))
                .collect(),
        }
    }

    /// Borrows a temporary ciphertext (returned with [`GswScratch::put_tmp`]).
    pub fn take_tmp(&mut self, ctx: &RingContext) -> RlweCiphertext {
        self.tmp
            .pop()
            .unwrap_or_else(|| RlweCiphertext::zero(ctx, Form::Ntt))
    }

    /// Returns a temporary ciphertext.
    pub fn put_tmp(&mut self, t: RlweCiphertext) {
        self.tmp.push(t);
    }
}

/// Draws a fresh 32-byte seed from `rng` (for callers assembling keys by hand).
pub fn draw_seed<R: RngCore + CryptoRng>(rng: &mut R) -> Seed {
    let mut s = [0u8; 32];
    rng.fill_bytes(&mut s);
    s
}

#[cfg(test)]
mod tests;
