//! BFV's scale-invariant tensor product `round(t/Q · ct_a ⊗ ct_b) mod Q` over an auxiliary
//! RNS basis `R` (Halevi–Polyakov–Shoup, eprint 2018/117; Kim–Polyakov–Zucca, eprint
//! 2021/204, §3).
//!
//! # What is computed
//!
//! For degree-1 ciphertexts `a = (a_0, a_1)`, `b = (b_0, b_1)` over `Q = q_0 ... q_{L-1}`,
//! with `ã_i, b̃_j` the centered lifts (coefficients in `(-Q/2, Q/2)`, `Q` odd) and the
//! products taken in `Z[X]/(X^N + 1)` over the integers:
//!
//! ```text
//! x_k = Σ_{i+j=k} ã_i · b̃_j                    (k = 0, 1, 2)
//! d_k = round(t · x_k / Q) mod Q
//! ```
//!
//! # The auxiliary basis `R`
//!
//! `|x_k| ≤ 2 · N · (Q/2)^2 = N Q^2 / 2` coefficient-wise, so `|t x_k / Q| ≤ t N Q / 2`.
//! `R = r_0 ... r_{K-1}` (50-bit NTT primes outside `Q ∪ P`, see [`AUX_PRIME_BITS`]) is
//! the smallest product with
//!
//! ```text
//! log2 R ≥ log2 Q + log2 N + log2 t + 3,   i.e.  R ≥ 8 t N Q
//! ```
//!
//! which makes `x_k` (`|x_k| ≤ R Q / (16 t)`) exact over `Q ∪ R`, and the rounded quotient
//! `|round(t x_k / Q)| ≤ R / 16 + 1` exact over `R` alone, far from `±R/2`, so the final
//! exact centered conversion `R → Q` never meets its floating-point blind spot. The primes
//! are added one by one until the bound holds, so `K = ceil((log2 Q + log2 N + log2 t + 3)
//! / 50)` or one more (e.g. `K = 7` for `Q` of 5 × 60 bits, `N = 2^14`, `t = 65537`).
//!
//! # Rounding
//!
//! `round` is to the nearest integer; there are no ties: `t x / Q = m + 1/2` would mean
//! `Q | 2 t x`, and with `Q` odd (a product of odd primes) and `gcd(t, Q) = 1`, `Q | x`,
//! so `t x / Q` would be an integer.
//!
//! # Steps
//!
//! 1. `a_i, b_j`: inverse NTT over `Q`, exact centered conversion `Q → R`
//!    ([`BaseConverter::convert`](crate::math::rns::BaseConverter::convert)), NTT over `R`.
//! 2. Tensor in NTT form over `Q` and over `R`, inverse NTT of both.
//! 3. Scale and round from `Q ∪ R` to `R` ([`MulVariant`]).
//! 4. Exact centered conversion `R → Q`, NTT over `Q`.
//!
//! The conversions `Q → R` of steps 1 and 3 (`Exact`) are exact everywhere: the fast
//! conversion of [`math::rns`](crate::math::rns) has a floating-point blind spot within
//! about `L · 2^-53 · Q` of `±Q/2` (where an input's lift would pick `ã ± Q`, and `Exact`
//! would round `t x / Q` within `L · 2^-53` of a half-integer the wrong way), so the
//! coefficients near it are found and redone with Garner's mixed radix
//! ([`CenteredLift`]). The final conversion `R → Q` needs no such care (its values are
//! at most `R / 16 + 1`).

use crate::math::rns::{BasisExtender, CrtReconstructor, RnsBasis};
use crate::math::{Modulus, PrimeGenerator};
use crate::ring::{for_each_limb, Form, Poly, RingContext};
use crate::{Error, Result};
use std::sync::Arc;

/// Size in bits of the auxiliary primes `r_j` of `R`. Primes below `2^50` take the
/// AVX-512 IFMA NTT and the 52-bit IFMA base-conversion sums, much faster than the
/// 60/61-bit paths on Sapphire Rapids and Zen 4.
pub const AUX_PRIME_BITS: u32 = 50;

/// Margin, in bits, of `R` over `t N Q` (see the module documentation).
const AUX_MARGIN_BITS: f64 = 3.0;

/// Split point `s` of the `Hps` variant: `x̃_i = hi · 2^s + lo` with `lo < 2^31` and
/// `hi < 2^30` (residues are below `2^61`).
const HPS_SPLIT: u32 = 31;

/// Coefficients per block of the `Hps` output sums (the `u128` accumulators stay in L1).
const HPS_BLOCK: usize = 64;

/// Coefficients per chunk (and parallel task) of the `Hps` integer parts `v`.
const HPS_CHUNK: usize = 512;

/// How BFV's scale-invariant product divides `t · (ct_a ⊗ ct_b)` by `Q` and rounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MulVariant {
    /// Multiply by `t` over `Q ∪ R`, then divide by `Q` with the exact RNS rounding
    /// `round(t x / Q) = (t x - [t x]_Q) · Q^-1 mod r_j`, with the exact centered
    /// conversion of `[t x]_Q` to `R` (ModDown with the roles of the bases swapped). The
    /// result is `round(t x / Q)` word for word for every input, however close `t x / Q`
    /// lies to a half-integer (the conversion's `f64` blind spot is redone exactly, at
    /// `O(L^2)` per affected coefficient, about one in `2^29`). The default.
    #[default]
    Exact,
    /// Halevi–Polyakov–Shoup floating-point scale and round, with every residue split in two
    /// halves so that `f64` keeps about 22 bits below the point even for 60-bit primes:
    /// the result equals `round(t x / Q)` unless `t x / Q` lies within `ε < L · 2^-21`
    /// of a half-integer (`2^-16` for `L = 30`), and differs from it by at most 1 then.
    /// About the work of `Exact` (the `x̃_i` products and `K L` output sums of a conversion,
    /// plus `2 L` `f64` products per coefficient, minus the multiplication by `t`), but in
    /// scalar code here, where `Exact`'s conversions run the SIMD kernels of
    /// [`math::rns`](crate::math::rns).
    Hps,
}

/// The precomputations of the `Hps` scale and round from `Q ∪ R` to `R`.
///
/// With `x̃_i = [x_i · (QR/q_i)^-1]_{q_i}` and `t R / q_i = ω_i + θ_i` (`ω_i` an integer,
/// `θ_i ∈ [-1/2, 1/2]`), the CRT gives, modulo `r_j`,
///
/// ```text
/// round(t x / Q) ≡ Σ_i x̃_i ω_i + round(Σ_i x̃_i θ_i) + x_j · [t Q^-1]_{r_j}
/// ```
///
/// (the `R`-terms `x̂_j' t R / r_j'` vanish mod `r_j` for `j' ≠ j`, and the multiple of
/// `t R` from the CRT sum vanishes too). To keep `f64` accurate each `x̃_i` is split as
/// `hi · 2^s + lo`, and `2^s θ_i = c_i + θ'_i` (`c_i` an integer, `θ'_i ∈ [-1/2, 1/2]`):
///
/// ```text
/// x̃_i θ_i = hi · c_i + lo · θ_i + hi · θ'_i
/// ```
///
/// `hi c_i` is an exact integer; each `f64` product has `|error| < 2^-22` (`lo < 2^31`,
/// `hi < 2^30`, `|θ| ≤ 1/2`: half an ulp of the product plus the stored `θ`'s error), and
/// is split at once into its rounded integer part and an exact residual in `[-1/2, 1/2]`,
/// so the residual sum stays below `L` in magnitude and its own rounding adds at most
/// `L^2 · 2^-52`. In all `ε ≤ L (2^-22 + 2^-23) + L^2 2^-52 < L · 2^-21`.
///
/// The output sums `Σ_i x̃_i [ω_i]_{r_j}` accumulate in `u128` (each term below `2^111`).
#[derive(Debug)]
struct HpsTables {
    /// The primes of `Q`.
    q_mod: Vec<Modulus>,
    /// `[(Q R / q_i)^-1]_{q_i}` with Shoup companions.
    qr_hat_inv: Vec<(u64, u64)>,
    /// `θ_i` and `θ'_i`.
    theta: Vec<f64>,
    theta_hi: Vec<f64>,
    /// `c_i = 2^s θ_i - θ'_i`.
    c_hi: Vec<i64>,
    /// `[ω_i]_{r_j}`, row-major by output: `omega[j * L + i]`.
    omega: Vec<u64>,
    /// `[t Q^-1]_{r_j}` with Shoup companions.
    t_q_inv: Vec<(u64, u64)>,
}

/// The scale-invariant tensor product at one level (`L = q_limbs` chain primes of a ring).
#[derive(Debug)]
pub(crate) struct ScaleInvariantTensor {
    q_limbs: usize,
    /// `R`, as a ring (NTT plans, moduli, scratch polynomials).
    aux: Arc<RingContext>,
    /// ModDown with `C = R`, `B = Q`: `b_to_c` is `Q → R`, `c_to_b` is `R → Q`, and
    /// `mod_down` divides by `Q` over `R`.
    ext: BasisExtender,
    /// `[t]_{q_i}` and `[t]_{r_j}` (the `Exact` variant's factor).
    t_mod_q: Vec<u64>,
    t_mod_r: Vec<u64>,
    hps: HpsTables,
    /// The exact centered conversion `Q → R`.
    lift: CenteredLift,
}

impl ScaleInvariantTensor {
    /// Precomputes the tensor over the first `q_limbs` chain primes of `ring` for plaintext
    /// modulus `t` (any integer in `[2, 2^61)` coprime to `Q`).
    pub(crate) fn new(ring: &RingContext, q_limbs: usize, t: u64) -> Result<Self> {
        if q_limbs == 0 || q_limbs > ring.q_len() {
            return Err(Error::InvalidParameters(format!(
                "the scale-invariant tensor needs 1 to {} chain primes, not {q_limbs}",
                ring.q_len()
            )));
        }
        if !(2..1u64 << 61).contains(&t) {
            return Err(Error::InvalidParameters(format!(
                "plaintext modulus t = {t} must lie in [2, 2^61)"
            )));
        }
        let q_basis = ring.q().slice(0..q_limbs);
        let q_mod: &[Modulus] = q_basis.moduli();
        if let Some(q) = q_mod.iter().find(|q| t.is_multiple_of(q.value())) {
            return Err(Error::InvalidParameters(format!(
                "plaintext modulus t = {t} shares the prime {} with Q; choose t coprime to Q",
                q.value()
            )));
        }
        let n = ring.n();
        // R ≥ 8 t N Q (module documentation).
        let need = q_basis.log_product() + (n as f64).log2() + (t as f64).log2() + AUX_MARGIN_BITS;
        let mut gen = PrimeGenerator::new(n)?;
        let used: Vec<u64> = ring
            .q()
            .moduli()
            .iter()
            .chain(ring.p().moduli())
            .map(Modulus::value)
            .collect();
        gen.exclude(&used);
        let mut r_primes = Vec::new();
        let mut have = 0.0;
        while have < need {
            let r = gen.next_prime(AUX_PRIME_BITS)?;
            have += (r as f64).log2();
            r_primes.push(r);
        }
        let aux = RingContext::new(n, &r_primes, &[])?;
        let r_basis = RnsBasis::new(&r_primes)?;
        let ext = BasisExtender::new(&r_basis, &q_basis);
        let t_mod_q = q_mod.iter().map(|q| q.reduce(t)).collect();
        let t_mod_r = r_basis.moduli().iter().map(|r| r.reduce(t)).collect();
        let hps = HpsTables::new(&q_basis, &r_basis, t);
        let lift = CenteredLift::new(&q_basis, &r_basis);
        Ok(ScaleInvariantTensor {
            q_limbs,
            aux,
            ext,
            t_mod_q,
            t_mod_r,
            hps,
            lift,
        })
    }

    /// The auxiliary primes `r_j` of `R`.
    pub(crate) fn aux_primes(&self) -> Vec<u64> {
        self.aux.q().moduli().iter().map(Modulus::value).collect()
    }

    /// `[d_0, d_1, d_2]`, `d_k = round(t/Q · Σ_{i+j=k} ã_i b̃_j) mod Q`, in form `out`.
    /// `a` and `b` hold two polynomials each over `q_limbs` chain limbs, in either form
    /// (the same transforms either way: an NTT-form input is inverse-transformed for its
    /// conversion to `R`, a coefficient-form one forward-transformed for the products over
    /// `Q`). A coefficient-form output skips the last `3 ℓ` forward transforms (BFV's
    /// storage form).
    pub(crate) fn tensor(
        &self,
        ring: &RingContext,
        a: &[Poly],
        b: &[Poly],
        variant: MulVariant,
        out: Form,
    ) -> Vec<Poly> {
        self.check_inputs(a);
        self.check_inputs(b);
        let a_r: Vec<Poly> = a.iter().map(|p| self.extend_to_r(ring, p)).collect();
        let b_r: Vec<Poly> = b.iter().map(|p| self.extend_to_r(ring, p)).collect();
        let (a_q, b_q) = (ntt_form(ring, a), ntt_form(ring, b));
        let dq = tensor3(ring, &a_q, &b_q);
        recycle_owned(ring, a_q);
        recycle_owned(ring, b_q);
        let dr = tensor3(&self.aux, &a_r, &b_r);
        for p in a_r.into_iter().chain(b_r) {
            self.aux.recycle(p);
        }
        self.scale_round(ring, dq, dr, variant, out)
    }

    /// [`tensor`](Self::tensor) of `a` with itself, with one product fewer
    /// (`d_1 = 2 a_0 a_1`); the same words.
    pub(crate) fn square(
        &self,
        ring: &RingContext,
        a: &[Poly],
        variant: MulVariant,
        out: Form,
    ) -> Vec<Poly> {
        self.check_inputs(a);
        let a_r: Vec<Poly> = a.iter().map(|p| self.extend_to_r(ring, p)).collect();
        let a_q = ntt_form(ring, a);
        let dq = square3(ring, &a_q);
        recycle_owned(ring, a_q);
        let dr = square3(&self.aux, &a_r);
        for p in a_r {
            self.aux.recycle(p);
        }
        self.scale_round(ring, dq, dr, variant, out)
    }

    fn check_inputs(&self, a: &[Poly]) {
        assert_eq!(
            a.len(),
            2,
            "the scale-invariant tensor takes degree-1 ciphertexts"
        );
        for p in a {
            assert!(
                p.q_limbs() == self.q_limbs && p.p_limbs() == 0 && p.form() == a[0].form(),
                "tensor inputs must be in one form over the tensor's level"
            );
        }
    }

    /// Step 1: the exact centered lift of `p` (over `Q`, either form) to `R`, in NTT form.
    fn extend_to_r(&self, ring: &RingContext, p: &Poly) -> Poly {
        let (n, l) = (ring.n(), self.q_limbs);
        let mut out = self.aux.scratch_poly(self.aux.q_len(), 0, Form::Coeff);
        if p.form() == Form::Coeff {
            self.lift
                .convert(ring, &self.ext, p.data(), out.data_mut(), n);
        } else {
            let mut coeff = ring.scratch_poly(l, 0, Form::Ntt);
            coeff.data_mut().copy_from_slice(p.data());
            coeff.intt(ring);
            self.lift
                .convert(ring, &self.ext, coeff.data(), out.data_mut(), n);
            ring.recycle(coeff);
        }
        out.ntt(&self.aux);
        out
    }

    /// Steps 3 and 4: `round(t x / Q)` from `x` over `Q` (`dq`) and `R` (`dr`), both in NTT
    /// form, to form `form` over `Q`.
    fn scale_round(
        &self,
        ring: &RingContext,
        dq: Vec<Poly>,
        dr: Vec<Poly>,
        variant: MulVariant,
        form: Form,
    ) -> Vec<Poly> {
        let (n, k) = (ring.n(), self.aux.q_len());
        // The Exact variant's conversion `Q → R` (`k n` words), then the conversion `R → Q`.
        let mut scratch = ring.pool().take((k + 1) * n);
        let mut out = Vec::with_capacity(3);
        for (mut xq, mut xr) in dq.into_iter().zip(dr) {
            match variant {
                MulVariant::Exact => {
                    // (t x - [t x]_Q) · Q^-1 over R.
                    xq.mul_scalar_assign(&self.t_mod_q, ring);
                    xr.mul_scalar_assign(&self.t_mod_r, &self.aux);
                    xq.intt(ring);
                    xr.intt(&self.aux);
                    let conv = &mut scratch[..k * n];
                    self.lift.convert(ring, &self.ext, xq.data(), conv, n);
                    let conv = &*conv;
                    for_each_limb(xr.data_mut(), n, |j, limb| {
                        self.ext.mod_down_limb(j, limb, &conv[j * n..(j + 1) * n])
                    });
                }
                MulVariant::Hps => {
                    xq.intt(ring);
                    xr.intt(&self.aux);
                    self.hps.scale_round(&mut xq, &mut xr, &self.aux);
                }
            }
            // The result over Q, in xq's buffer (coefficient form since the inverse NTT).
            self.ext
                .c_to_b()
                .convert(xr.data(), xq.data_mut(), n, &mut scratch);
            if form == Form::Ntt {
                xq.ntt(ring);
            }
            self.aux.recycle(xr);
            out.push(xq);
        }
        ring.pool().recycle(scratch);
        out
    }
}

/// The parts in NTT form: borrowed as they are, or transformed copies.
fn ntt_form<'a>(ring: &RingContext, parts: &'a [Poly]) -> std::borrow::Cow<'a, [Poly]> {
    if parts.iter().all(|p| p.form() == Form::Ntt) {
        return std::borrow::Cow::Borrowed(parts);
    }
    let owned = parts
        .iter()
        .map(|p| {
            let mut c = ring.scratch_poly(p.q_limbs(), 0, Form::Coeff);
            c.data_mut().copy_from_slice(p.data());
            c.ntt(ring);
            c
        })
        .collect();
    std::borrow::Cow::Owned(owned)
}

/// Gives transformed copies of [`ntt_form`] back to the pool.
fn recycle_owned(ring: &RingContext, parts: std::borrow::Cow<'_, [Poly]>) {
    if let std::borrow::Cow::Owned(v) = parts {
        v.into_iter().for_each(|p| ring.recycle(p));
    }
}

/// `[a_0 b_0, a_0 b_1 + a_1 b_0, a_1 b_1]` coefficient-wise (NTT form).
fn tensor3(ring: &RingContext, a: &[Poly], b: &[Poly]) -> Vec<Poly> {
    let (l, k) = (a[0].q_limbs(), a[0].p_limbs());
    let mut d: Vec<Poly> = (0..3).map(|_| ring.scratch_poly(l, k, Form::Ntt)).collect();
    Poly::mul_into(&a[0], &b[0], &mut d[0], ring);
    Poly::mul_into(&a[0], &b[1], &mut d[1], ring);
    d[1].mul_add_assign(&a[1], &b[0], ring);
    Poly::mul_into(&a[1], &b[1], &mut d[2], ring);
    d
}

/// `[a_0^2, 2 a_0 a_1, a_1^2]` coefficient-wise (NTT form).
fn square3(ring: &RingContext, a: &[Poly]) -> Vec<Poly> {
    let (l, k) = (a[0].q_limbs(), a[0].p_limbs());
    let mut d: Vec<Poly> = (0..3).map(|_| ring.scratch_poly(l, k, Form::Ntt)).collect();
    Poly::mul_into(&a[0], &a[0], &mut d[0], ring);
    Poly::mul_into(&a[0], &a[1], &mut d[1], ring);
    let ql = l;
    for_each_limb(d[1].data_mut(), ring.n(), |i, limb| {
        let m = ring.modulus(i, ql);
        limb.iter_mut().for_each(|x| *x = m.add(*x, *x));
    });
    Poly::mul_into(&a[1], &a[1], &mut d[2], ring);
    d
}

/// `v / q` as `f64`, for `|v| < q / 2 + 1` (through a 64-bit fixed-point quotient, so the
/// only error is the final rounding to 53 bits plus `2^-64`).
fn ratio(v: i64, q: u64) -> f64 {
    let f = ((v.unsigned_abs() as u128) << 64) / q as u128;
    let r = f as f64 / 18_446_744_073_709_551_616.0;
    if v < 0 {
        -r
    } else {
        r
    }
}

impl HpsTables {
    fn new(q: &RnsBasis, r: &RnsBasis, t: u64) -> Self {
        let l = q.len();
        let mut qr_hat_inv = Vec::with_capacity(l);
        let (mut theta, mut theta_hi, mut c_hi) = (vec![], vec![], vec![]);
        // σ_i = [t R]_{q_i} centered, σ'_i = [2^s t R]_{q_i} centered.
        let mut sigma = Vec::with_capacity(l);
        for (i, qi) in q.moduli().iter().enumerate() {
            let q_hat = q
                .moduli()
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != i)
                .fold(1u64, |acc, (_, qk)| qi.mul(acc, qi.reduce(qk.value())));
            let qr_hat = qi.mul(q_hat, r.product_mod(qi));
            let w = qi.inv(qr_hat).expect("Q and R are coprime");
            qr_hat_inv.push((w, qi.shoup(w)));
            let tr = qi.mul(qi.reduce(t), r.product_mod(qi));
            let s = qi.center(tr);
            let s_hi = qi.center(qi.mul(tr, qi.reduce(1u64 << HPS_SPLIT)));
            // c_i = (2^s σ_i - σ'_i) / q_i exactly.
            let c = ((s as i128) << HPS_SPLIT) - s_hi as i128;
            debug_assert_eq!(c % qi.value() as i128, 0);
            c_hi.push((c / qi.value() as i128) as i64);
            theta.push(ratio(s, qi.value()));
            theta_hi.push(ratio(s_hi, qi.value()));
            sigma.push(s);
        }
        let mut omega = Vec::with_capacity(r.len() * l);
        let mut t_q_inv = Vec::with_capacity(r.len());
        for rj in r.moduli() {
            for (qi, &s) in q.moduli().iter().zip(&sigma) {
                // ω_i = (t R - σ_i) / q_i ≡ -σ_i q_i^-1 (mod r_j), as R ≡ 0.
                let qi_inv = rj.inv(rj.reduce(qi.value())).expect("Q and R are coprime");
                omega.push(rj.mul(rj.reduce_i64(-s), qi_inv));
            }
            let q_inv = rj.inv(q.product_mod(rj)).expect("Q and R are coprime");
            let w = rj.mul(rj.reduce(t), q_inv);
            t_q_inv.push((w, rj.shoup(w)));
        }
        HpsTables {
            q_mod: q.moduli().to_vec(),
            qr_hat_inv,
            theta,
            theta_hi,
            c_hi,
            omega,
            t_q_inv,
        }
    }

    /// `v = Σ_i hi c_i + round(Σ_i lo θ_i + hi θ'_i)` per coefficient, from the `x̃_i`
    /// (`xt`, `l` limbs of `n`): the integer part is carried exactly and every `f64`
    /// product is split at once into its rounded integer part and its exact residual.
    /// In parallel over chunks of coefficients when the `parallel` feature is on.
    fn integer_parts(&self, xt: &[u64], n: usize, l: usize, v: &mut [i128]) {
        let mask = (1u64 << HPS_SPLIT) - 1;
        let run = |k0: usize, out: &mut [i128]| {
            let mut frac = [0f64; HPS_CHUNK];
            let frac = &mut frac[..out.len()];
            out.fill(0);
            for i in 0..l {
                let (th, th_hi, c) = (self.theta[i], self.theta_hi[i], self.c_hi[i] as i128);
                let src = &xt[i * n + k0..i * n + k0 + out.len()];
                for ((&x, v), f) in src.iter().zip(out.iter_mut()).zip(frac.iter_mut()) {
                    let (lo, hi) = (x & mask, x >> HPS_SPLIT);
                    let (p_lo, p_hi) = (lo as f64 * th, hi as f64 * th_hi);
                    let (r_lo, r_hi) = (p_lo.round(), p_hi.round());
                    *v += hi as i128 * c + (r_lo + r_hi) as i128;
                    *f += (p_lo - r_lo) + (p_hi - r_hi);
                }
            }
            for (v, f) in out.iter_mut().zip(frac.iter()) {
                *v += f.round() as i128;
            }
        };
        #[cfg(feature = "parallel")]
        if n * l >= 1 << 14 && rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            v.par_chunks_mut(HPS_CHUNK)
                .enumerate()
                .for_each(|(c, out)| run(c * HPS_CHUNK, out));
            return;
        }
        for (c, out) in v.chunks_mut(HPS_CHUNK).enumerate() {
            run(c * HPS_CHUNK, out);
        }
    }

    /// `xr <- round(t x / Q) mod R` from `x` over `Q` (`xq`, overwritten) and `R` (`xr`),
    /// both in coefficient form.
    fn scale_round(&self, xq: &mut Poly, xr: &mut Poly, aux: &RingContext) {
        let (n, l) = (xq.n(), xq.q_limbs());
        // x̃_i = [x_i (QR/q_i)^-1]_{q_i}, in place.
        for_each_limb(xq.data_mut(), n, |i, limb| {
            let (q, (w, ws)) = (&self.q_mod[i], self.qr_hat_inv[i]);
            limb.iter_mut().for_each(|x| *x = q.mul_shoup(*x, w, ws));
        });
        let mut int = vec![0i128; n];
        self.integer_parts(xq.data(), n, l, &mut int);
        // y_j = [Σ_i x̃_i [ω_i]_{r_j} + v + x_j [t Q^-1]_{r_j}]_{r_j}, over blocks of
        // coefficients with u128 accumulators (each term below 2^111).
        let xt = xq.data();
        for_each_limb(xr.data_mut(), n, |j, limb| {
            let r = aux.modulus(j, aux.q_len());
            let (w, ws) = self.t_q_inv[j];
            let row = &self.omega[j * l..(j + 1) * l];
            let mut acc = [0u128; HPS_BLOCK];
            for k0 in (0..n).step_by(HPS_BLOCK) {
                let len = HPS_BLOCK.min(n - k0);
                let acc = &mut acc[..len];
                acc.fill(0);
                for (i, &om) in row.iter().enumerate() {
                    let src = &xt[i * n + k0..i * n + k0 + len];
                    for (a, &x) in acc.iter_mut().zip(src) {
                        *a += x as u128 * om as u128;
                    }
                }
                let out = &mut limb[k0..k0 + len];
                for ((y, a), v) in out.iter_mut().zip(acc.iter()).zip(&int[k0..k0 + len]) {
                    let s = r.add(r.reduce_u128(*a), r.reduce_i128(*v));
                    *y = r.add(s, r.mul_shoup(*y, w, ws));
                }
            }
        });
    }
}

/// The exact centered conversion `Q → R` with no blind spot: [`BaseConverter::convert`]
/// (the fast path, SIMD), then a scan that finds the coefficients where its `f64` quotient
/// could have rounded the wrong way and redoes them exactly.
///
/// With `y_i = [x_i (Q/q_i)^-1]_{q_i}` and `s = Σ_i y_i / q_i`, the value `u ∈ [0, Q)`
/// satisfies `u / Q = frac(s)`, and the centered value is `Σ_i y_i (Q/q_i) - v Q` with
/// `v = round(s)`. The `f64` sum errs by at most about `L^2 · 2^-53`, so `v` is right
/// unless `frac(s)` lies within [`LIFT_MARGIN`] of `1/2`. For those coefficients (probability
/// about `2^-29` each for uniform data) `v = floor(s) + [u > (Q-1)/2]`, the comparison done
/// exactly on Garner's mixed-radix digits ([`CrtReconstructor::mixed_radix`]).
///
/// The scan costs `L` Shoup products and `L` `f64` products per coefficient (scalar): it
/// recomputes the conversion kernel's own `s`, which [`math::rns`](crate::math::rns) does not
/// expose.
///
/// [`BaseConverter::convert`]: crate::math::rns::BaseConverter::convert
#[derive(Debug)]
struct CenteredLift {
    q_mod: Vec<Modulus>,
    r_mod: Vec<Modulus>,
    /// `[(Q/q_i)^-1]_{q_i}` with Shoup companions, and `1 / q_i`.
    q_hat_inv: Vec<(u64, u64)>,
    inv_q: Vec<f64>,
    /// `[Q/q_i]_{r_j}`, row-major by output: `q_hat_mod_r[j * L + i]`; `[Q]_{r_j}`.
    q_hat_mod_r: Vec<u64>,
    q_mod_r: Vec<u64>,
    crt: CrtReconstructor,
    /// The mixed-radix digits of `(Q - 1) / 2`.
    half_digits: Vec<u64>,
}

/// Distance of `frac(s)` from `1/2` below which [`CenteredLift`] redoes a coefficient
/// exactly: far above the error of the `f64` sum (`L` terms below 1 whose sum stays below
/// `L`: about `L^2 · 2^-53`, at most `2^-31` up to `L = 2^11`).
const LIFT_MARGIN: f64 = 1.0 / (1u64 << 30) as f64;

impl CenteredLift {
    fn new(q: &RnsBasis, r: &RnsBasis) -> Self {
        let l = q.len();
        let q_mod = q.moduli().to_vec();
        let q_hat_inv = (0..l)
            .map(|i| {
                let qi = &q_mod[i];
                let hat = (0..l)
                    .filter(|&k| k != i)
                    .fold(1u64, |acc, k| qi.mul(acc, qi.reduce(q_mod[k].value())));
                let w = qi.inv(hat).expect("distinct primes");
                (w, qi.shoup(w))
            })
            .collect();
        let mut q_hat_mod_r = Vec::with_capacity(r.len() * l);
        for rj in r.moduli() {
            for i in 0..l {
                q_hat_mod_r.push(
                    (0..l)
                        .filter(|&k| k != i)
                        .fold(1u64, |acc, k| rj.mul(acc, rj.reduce(q_mod[k].value()))),
                );
            }
        }
        let crt = CrtReconstructor::new(q);
        // (Q - 1) / 2 ≡ -2^-1 (mod q_i).
        let half: Vec<u64> = q_mod
            .iter()
            .map(|qi| qi.neg(qi.inv(2).expect("odd prime")))
            .collect();
        let mut half_digits = vec![0u64; l];
        crt.mixed_radix(&half, &mut half_digits, 1);
        CenteredLift {
            r_mod: r.moduli().to_vec(),
            q_hat_inv,
            inv_q: q_mod.iter().map(|q| 1.0 / q.value() as f64).collect(),
            q_hat_mod_r,
            q_mod_r: r.moduli().iter().map(|rj| q.product_mod(rj)).collect(),
            crt,
            half_digits,
            q_mod,
        }
    }

    /// `out` (`K` limbs of `n`) `<-` the `R`-residues of the centered value of `input`
    /// (`L` limbs of `n`, coefficient form), exactly.
    fn convert(
        &self,
        ring: &RingContext,
        ext: &BasisExtender,
        input: &[u64],
        out: &mut [u64],
        n: usize,
    ) {
        let l = self.q_mod.len();
        let pool = ring.pool();
        let mut scratch = pool.take((l + 1) * n);
        ext.b_to_c().convert(input, out, n, &mut scratch);
        pool.recycle(scratch);
        let s = self.quotients(input, n);
        for (k, &sk) in s.iter().enumerate() {
            if (sk - sk.floor() - 0.5).abs() < LIFT_MARGIN {
                self.redo(input, out, n, k, sk.floor() as u64);
            }
        }
    }

    /// `s = Σ_i [x_i (Q/q_i)^-1]_{q_i} / q_i` per coefficient, in the conversion's order.
    fn quotients(&self, input: &[u64], n: usize) -> Vec<f64> {
        let mut s = vec![0f64; n];
        let run = |k0: usize, out: &mut [f64]| {
            for (i, (q, &(w, ws))) in self.q_mod.iter().zip(&self.q_hat_inv).enumerate() {
                let inv = self.inv_q[i];
                let src = &input[i * n + k0..i * n + k0 + out.len()];
                for (o, &x) in out.iter_mut().zip(src) {
                    *o += q.mul_shoup(x, w, ws) as f64 * inv;
                }
            }
        };
        #[cfg(feature = "parallel")]
        if n * self.q_mod.len() >= 1 << 14 && rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            s.par_chunks_mut(HPS_CHUNK)
                .enumerate()
                .for_each(|(c, out)| run(c * HPS_CHUNK, out));
            return s;
        }
        for (c, out) in s.chunks_mut(HPS_CHUNK).enumerate() {
            run(c * HPS_CHUNK, out);
        }
        s
    }

    /// Coefficient `k` exactly: `v = floor(s) + [u > (Q-1)/2]`, then the output sums.
    fn redo(&self, input: &[u64], out: &mut [u64], n: usize, k: usize, floor_s: u64) {
        let l = self.q_mod.len();
        let x: Vec<u64> = (0..l).map(|i| input[i * n + k]).collect();
        let mut digits = vec![0u64; l];
        self.crt.mixed_radix(&x, &mut digits, 1);
        // Compare from the most significant digit.
        let above = digits
            .iter()
            .rev()
            .cmp(self.half_digits.iter().rev())
            .is_gt();
        let v = floor_s + above as u64;
        let y: Vec<u64> = (0..l)
            .map(|i| {
                let (w, ws) = self.q_hat_inv[i];
                self.q_mod[i].mul_shoup(x[i], w, ws)
            })
            .collect();
        for (j, rj) in self.r_mod.iter().enumerate() {
            let row = &self.q_hat_mod_r[j * l..(j + 1) * l];
            let sum = y
                .iter()
                .zip(row)
                .fold(0u64, |acc, (&yi, &c)| rj.add(acc, rj.mul(rj.reduce(yi), c)));
            out[j * n + k] = rj.sub(sum, rj.mul(rj.reduce(v), self.q_mod_r[j]));
        }
    }
}

#[cfg(test)]
#[path = "tensor_tests.rs"]
mod tests;
