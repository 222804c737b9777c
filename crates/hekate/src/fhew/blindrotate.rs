//! Blind rotation (seed 002, Definition 1): from `LWE_{q,s}` ciphertext `(α, β)` and a
//! test polynomial `f ∈ R_Q`, compute `RLWE_z(f · Y^(β + <α, s>))` with `Y = X^(2N/q)`.
//!
//! * AP (Alg. 1): keys `RGSW(Y^(v B_r^j s_i))`, `d_r (B_r - 1) n` of them; one product per
//!   nonzero base-`B_r` digit of `α_i`. `σ_acc^2 = 2 d_r (1 - 1/B_r) n σ_⊙^2`.
//! * GINX (Alg. 2): keys `RGSW(s_(i,j))` with `s_i = Σ_j s_(i,j) u_j`;
//!   `acc += (Y^(α_i u_j) - 1) (acc ⊗ brk_(i,j))`. `σ_acc^2 = 4 |U| n σ_⊙^2`.
//! * Alg. 3 / 4 (`q = 2N`) and Alg. 5 (`q < 2N`): one product by `RGSW(Y^(s_i))` (or
//!   `RGSW(X^(s_i))`) per `i`, between automorphisms `EvalAuto_(ω_i ω'_(i+1))` that move
//!   the rotation amount `ω_i` into the exponent; `σ_acc^2 = 5n σ_⊙^2` (Alg. 3) and
//!   `(3n + 2) σ_⊙^2` (Alg. 4, 5).
//!
//! With ALTMULT (Alg. 6) every key is an `RLWE'` ciphertext and each product costs three
//! `R ⊙ RLWE'` instead of two, with error `(‖z‖^2 + 2) σ_⊙^2`.
//!
//! Key layout of [`BlindRotationKey::keys`]: AP `(i d_r + j)(B_r - 1) + v - 1`; GINX
//! `i |U| + j`; Alg. 3 `i`; Alg. 4 `i` (`Y^(s_i)`) and `n + i` (`Y^(s_i + s_(i+1 mod n))`);
//! Alg. 5 `i` and `n` (`X^(-Σ s_i)`).

use super::lwe::{LweCiphertext, LweSecretKey};
use super::params::{AutoKeySet, FhewParams, Method, MethodConfig};
use crate::math::sample::DiscreteGaussian;
use crate::math::{kernels, Modulus};
use crate::progress::{NoProgress, Progress};
use crate::ring::automorphism::automorphism_coeff;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::gsw::{
    alt_mult_into, monomial_ntt, AutoKey, Gadget, GswScratch, Rgsw, RlweCiphertext, RlwePrime,
};
use crate::rlwe::SecretKey;
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

mod fourier;
use fourier::FourierProducts;
pub use fourier::{FourierKeys, FourierScratch, GadgetDecomposition};

/// One blind-rotation key: an RGSW ciphertext, or an RLWE' ciphertext used with ALTMULT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrkElement {
    /// `RGSW_z(m)`.
    Rgsw(Rgsw),
    /// `RLWE'_z(m)` (ALTMULT).
    Prime(RlwePrime),
}

impl BrkElement {
    fn encrypt<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        z: &SecretKey,
        m_ntt: &Poly,
        gadget: Gadget,
        alt: bool,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Result<Self> {
        Ok(if alt {
            BrkElement::Prime(RlwePrime::encrypt(ctx, z, m_ntt, gadget, noise, rng)?)
        } else {
            BrkElement::Rgsw(Rgsw::encrypt(ctx, z, m_ntt, gadget, noise, rng)?)
        })
    }

    /// `out = acc · m` (NTT form) for `acc` in coefficient form; `z2 = RLWE'(z^2)` is
    /// needed for ALTMULT.
    pub fn mul_into(
        &self,
        acc: &RlweCiphertext,
        ctx: &RingContext,
        scratch: &mut GswScratch,
        z2: Option<&RlwePrime>,
        out: &mut RlweCiphertext,
    ) {
        match self {
            BrkElement::Rgsw(k) => k.external_product_into(acc, ctx, scratch, out),
            BrkElement::Prime(k) => alt_mult_into(
                acc,
                k,
                z2.expect("ALTMULT keys carry RLWE'(z^2)"),
                ctx,
                scratch,
                out,
            ),
        }
    }

    /// Number of RLWE' ciphertexts (Table 1's unit).
    pub fn rlwe_prime_count(&self) -> usize {
        match self {
            BrkElement::Rgsw(_) => 2,
            BrkElement::Prime(_) => 1,
        }
    }

    /// Bytes of the seed-compressed key.
    pub fn compressed_bytes(&self) -> usize {
        match self {
            BrkElement::Rgsw(k) => k.compressed_bytes(),
            BrkElement::Prime(k) => k.compressed_bytes(),
        }
    }
}

/// The blind-rotation key set of one [`MethodConfig`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlindRotationKey {
    /// Method, ALTMULT, automorphism key set.
    pub config: MethodConfig,
    /// LWE modulus `q`.
    pub q: u64,
    /// LWE dimension `n`.
    pub n: usize,
    /// `B_r` (AP).
    pub b_r: u64,
    /// `d_r` (AP).
    pub d_r: usize,
    /// GINX's `U`.
    pub ginx_u: Vec<i64>,
    /// The blind-rotation keys (layout in the module documentation).
    pub keys: Vec<BrkElement>,
    /// `RLWE'(z^2)` (ALTMULT only).
    pub z2: Option<RlwePrime>,
    /// Automorphism keys.
    pub auto: Vec<AutoKey>,
    /// The steps of Alg. 3, 4 and 5 (and their order, an evaluation choice, not
    /// serialized).
    sched: AutoScheduler,
}

/// The order in which Alg. 3, 4 and 5 take their steps.
///
/// Step `i` multiplies the accumulator by `Y^(ω_i x_i)` (key `RGSW(Y^(x_i))`) in the frame
/// of the automorphism `X -> X^(ω_i)`, and the move to the next step's frame is
/// `EvalAuto_(ω_i ω'_(i+1))`. The factors commute, so any order gives the same result.
/// Seed 002 takes the steps in index order, so `ω_i ω'_(i+1)` is a random odd exponent
/// and every step switches with a different automorphism key (`N/2 - 1` keys of which a
/// gate touches `n`, streamed from memory). Sorted by the discrete log of
/// `ω = ±5^e` (positive `ω` first, then negative, each by decreasing `e`), consecutive
/// frames differ by `5^Δ` with small `Δ`: a gate uses a few automorphism keys, which stay
/// in cache, and where two steps share `ω` (`Δ = 0`) their automorphism is skipped
/// altogether. With `n` steps among the `N` odd exponents (Alg. 3, 4) or `q` (Alg. 5),
/// about `1 - (1 - e^(-λ))/λ` of the key switches go (`λ` = steps per exponent: 23%
/// at OpenFHE's STD128, `n = 554`, `N = 1024`; 37% at `n = q = 512`), and with them
/// their share of the noise: `σ_acc^2` falls below seed 002's `(3n + 2) σ_⊙^2` by a
/// third of that fraction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StepOrder {
    /// Seed 002's order, `i = 0, 1, .., n - 1` (its noise formulas hold exactly).
    Index,
    /// By discrete log (the default).
    #[default]
    Dlog,
}

fn gadget_of(params: &FhewParams, big_q: u64, i: usize) -> Result<Gadget> {
    Gadget::new(big_q, params.log_bg_of(i))
}

/// `U` for GINX: `{1}` (binary), `{1, -1}` (ternary), `{±2^j}` for wider secrets.
fn ginx_set(s: &[i64]) -> Vec<i64> {
    let max = s.iter().map(|x| x.unsigned_abs()).max().unwrap_or(0);
    let min = s.iter().copied().min().unwrap_or(0);
    if min >= 0 && max <= 1 {
        return vec![1];
    }
    let bits = 64 - max.leading_zeros();
    (0..bits).flat_map(|j| [1i64 << j, -(1i64 << j)]).collect()
}

/// `s_(i,j) ∈ {0, 1}` with `s_i = Σ_j s_(i,j) u_j` for `U` from [`ginx_set`].
fn ginx_bits(si: i64, u: &[i64]) -> Vec<i64> {
    u.iter()
        .map(|&uj| {
            let mag = uj.unsigned_abs();
            let want = if uj > 0 { si > 0 } else { si < 0 };
            (want && si.unsigned_abs() & mag != 0) as i64
        })
        .collect()
}

/// The exponents `e` of the monomial keys `RGSW_z(X^e)` of AP and the automorphism-based
/// methods, in the layout of [`BlindRotationKey::keys`], each with the `log2 B_g` of its
/// gadget; `None` for GINX, whose keys are not monomials.
///
/// The exponents are linear in `s` modulo `2N`, so the keys for `s_1 + s_2` are the
/// products `RGSW(X^(e_1)) ⊗ RGSW(X^(e_2))` of those for `s_1` and `s_2` (threshold key
/// generation, seed 002 §6.1.3).
pub(crate) fn monomial_exponents(
    params: &FhewParams,
    method: Method,
    big_n: usize,
    s: &[i64],
) -> Option<Vec<(i64, u32)>> {
    let q = params.q as i64;
    let y = 2 * big_n as i64 / q; // Y = X^y
    let n = s.len();
    let mut out = Vec::new();
    match method {
        Method::Ginx => return None,
        Method::Ap => {
            for (i, &si) in s.iter().enumerate() {
                let mut p = 1i64;
                for _ in 0..params.d_r() {
                    for v in 1..params.b_r as i64 {
                        out.push((y * ((v * p * si) % q), params.log_bg_of(i)));
                    }
                    p = p * params.b_r as i64 % q;
                }
            }
        }
        Method::LmkcdeyBase | Method::LmkcdeyAux | Method::LmkcdeyAllEven => {
            let e = if method == Method::LmkcdeyAllEven {
                1
            } else {
                y
            };
            out.extend(
                s.iter()
                    .enumerate()
                    .map(|(i, &si)| (e * si, params.log_bg_of(i))),
            );
            if method == Method::LmkcdeyAux {
                out.extend((0..n).map(|i| (e * (s[i] + s[(i + 1) % n]), params.log_bg_of(i))));
            }
            if method == Method::LmkcdeyAllEven {
                out.push((-s.iter().sum::<i64>(), params.log_bg));
            }
        }
    }
    Some(out)
}

impl BlindRotationKey {
    /// Generates the keys of `config` for the LWE secret `s` and RLWE secret `z`.
    #[allow(clippy::too_many_arguments)]
    pub fn generate<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        params: &FhewParams,
        config: MethodConfig,
        s: &LweSecretKey,
        z: &SecretKey,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Result<Self> {
        Self::generate_reporting(ctx, params, config, s, z, noise, rng, &NoProgress, 0)
    }

    /// [`BlindRotationKey::generate`], reporting one unit of `progress` per key
    /// (blind-rotation, `RLWE'(z^2)`, automorphism). `progress.start` is called with
    /// the key count plus `more`, the units the caller reports after this returns (it
    /// also calls `finish`); the keys are the same as without progress.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn generate_reporting<R: RngCore + CryptoRng>(
        ctx: &RingContext,
        params: &FhewParams,
        config: MethodConfig,
        s: &LweSecretKey,
        z: &SecretKey,
        noise: &DiscreteGaussian,
        rng: &mut R,
        progress: &dyn Progress,
        more: u64,
    ) -> Result<Self> {
        let big_n = ctx.n();
        let q = params.q;
        if !config.method.applies(q, big_n) {
            return Err(Error::InvalidParameters(format!(
                "{} does not apply to q = {q}, N = {big_n} (LMKCDEY-base and -aux need q = 2N, \
                 LMKCDEY-even q < 2N)",
                config.method.name()
            )));
        }
        if s.dim() != params.n {
            return Err(Error::ParameterMismatch(format!(
                "the LWE secret has dimension {}, the parameters n = {}",
                s.dim(),
                params.n
            )));
        }
        let big_q = ctx.modulus(0, 1).value();
        let alt = config.alt_mult;
        let sc = s.coeffs();
        let mut keys = Vec::new();
        let mut ginx_u = Vec::new();
        let exps = monomial_exponents(params, config.method, big_n, sc);
        let auto_exps = Self::auto_exponents(config, q, big_n);
        let brk_count = match &exps {
            Some(e) => e.len(),
            // |U| keys per secret coefficient.
            None => sc.len() * ginx_set(sc).len(),
        };
        progress.start((brk_count + usize::from(alt) + auto_exps.len()) as u64 + more);
        match exps {
            Some(exps) => {
                for (e, log_bg) in exps {
                    let m = monomial_ntt(ctx, e);
                    let g = Gadget::new(big_q, log_bg)?;
                    let key = BrkElement::encrypt(ctx, z, &m, g, alt, noise, rng);
                    m.discard_secret();
                    keys.push(key?);
                    progress.inc(1);
                }
            }
            None => {
                ginx_u = ginx_set(sc);
                for (i, &si) in sc.iter().enumerate() {
                    let g = gadget_of(params, big_q, i)?;
                    for bit in ginx_bits(si, &ginx_u) {
                        let mut c = vec![0i64; big_n];
                        c[0] = bit;
                        let mut m = ctx.from_signed(&c, 1, 0);
                        c.zeroize();
                        m.ntt(ctx);
                        let key = BrkElement::encrypt(ctx, z, &m, g, alt, noise, rng);
                        m.discard_secret();
                        keys.push(key?);
                        progress.inc(1);
                    }
                }
            }
        }
        let z2 = if alt {
            let zn = z.ntt_at(1, 0);
            let mut zz = (*zn).clone();
            zz.mul_assign(&zn, ctx);
            // `z^2` is secret-equivalent: wiped, not pooled.
            let key = Gadget::new(big_q, params.log_bg)
                .and_then(|g| RlwePrime::encrypt(ctx, z, &zz, g, noise, rng));
            zz.discard_secret();
            progress.inc(1);
            Some(key?)
        } else {
            None
        };
        let mut auto = Vec::new();
        if !auto_exps.is_empty() {
            let ag = Gadget::new(big_q, params.log_bg)?;
            for t in auto_exps {
                auto.push(AutoKey::generate(ctx, z, t, ag, noise, rng)?);
                progress.inc(1);
            }
        }
        if more == 0 {
            progress.finish();
        }
        Ok(Self::from_parts(
            params, big_n, config, ginx_u, keys, z2, auto,
        ))
    }

    /// Assembles a key set from its parts (e.g. keys generated jointly by several parties,
    /// [`crate::fhew::threshold`]): `keys` in the layout of the module documentation, `z2`
    /// for ALTMULT, and the automorphism keys of `config.auto_keys` in any order.
    ///
    /// Checks the shape (method applicable to `q` and `N`, number and kind of keys, every
    /// needed automorphism key present) but not the encrypted values. GINX keys depend on
    /// the range of the secret and are only made by [`BlindRotationKey::generate`].
    pub fn try_from_parts(
        params: &FhewParams,
        big_n: usize,
        config: MethodConfig,
        keys: Vec<BrkElement>,
        z2: Option<RlwePrime>,
        auto: Vec<AutoKey>,
    ) -> Result<Self> {
        let bad = |m: String| Err(Error::InvalidParameters(m));
        let (n, q) = (params.n, params.q);
        if !config.method.applies(q, big_n) || config.method == Method::Ginx {
            return bad(format!(
                "{} keys cannot be assembled for q = {q}, N = {big_n}",
                config.method.name()
            ));
        }
        let want = match config.method {
            Method::Ap => n * params.d_r() * (params.b_r as usize - 1),
            Method::LmkcdeyAux => 2 * n,
            Method::LmkcdeyAllEven => n + 1,
            _ => n,
        };
        if keys.len() != want {
            return bad(format!(
                "{} needs {want} blind-rotation keys, got {}",
                config.label(),
                keys.len()
            ));
        }
        let prime = |k: &BrkElement| matches!(k, BrkElement::Prime(_));
        if keys.iter().any(|k| prime(k) != config.alt_mult) || z2.is_some() != config.alt_mult {
            return bad(format!(
                "{}: keys must be RLWE' with RLWE'(z^2) exactly when ALTMULT is on",
                config.label()
            ));
        }
        let two_n = 2 * big_n;
        if let Some(k) = auto.iter().find(|k| k.t >= two_n || k.t % 2 == 0) {
            return bad(format!(
                "automorphism key exponent {} is not odd mod 2N",
                k.t
            ));
        }
        let have: std::collections::HashSet<usize> = auto.iter().map(|k| k.t).collect();
        if let Some(t) = Self::auto_exponents(config, q, big_n)
            .into_iter()
            .find(|t| !have.contains(t))
        {
            return Err(Error::MissingKey(format!(
                "{} needs the automorphism key ak_{t}",
                config.label()
            )));
        }
        Ok(Self::from_parts(
            params,
            big_n,
            config,
            Vec::new(),
            keys,
            z2,
            auto,
        ))
    }

    /// The same keys with another step order for Alg. 3, 4 and 5 ([`StepOrder`]).
    pub fn with_step_order(mut self, order: StepOrder) -> Self {
        self.sched.order = order;
        self
    }

    /// The step order of Alg. 3, 4 and 5.
    pub fn step_order(&self) -> StepOrder {
        self.sched.order
    }

    /// What the steps of Alg. 3, 4 and 5 depend on, without the key material: the
    /// [`AutoSchedule`] of each rotation for other executors of these keys (a GPU).
    pub fn automorphism_scheduler(&self) -> &AutoScheduler {
        &self.sched
    }

    /// Number of RLWE' ciphertexts in the key (`brk` and `ak`, seed 002 Table 1).
    pub fn rlwe_prime_count(&self) -> usize {
        self.keys
            .iter()
            .map(|k| k.rlwe_prime_count())
            .sum::<usize>()
            + self.auto.len()
            + self.z2.is_some() as usize
    }

    /// Bytes of the seed-compressed key.
    pub fn compressed_bytes(&self) -> usize {
        self.keys
            .iter()
            .map(|k| k.compressed_bytes())
            .sum::<usize>()
            + self
                .auto
                .iter()
                .map(|k| k.key.compressed_bytes())
                .sum::<usize>()
            + self.z2.as_ref().map_or(0, |k| k.compressed_bytes())
    }

    /// `acc = RLWE_z(f · Y^(β + <α, s>))` in coefficient form, for the test polynomial `f`
    /// (coefficient form) and `ct` modulo `q`, with the NTT-form keys.
    pub fn blind_rotate(
        &self,
        f: &Poly,
        ct: &LweCiphertext,
        ctx: &RingContext,
        scratch: &mut GswScratch,
        acc: &mut RlweCiphertext,
    ) -> Result<()> {
        let mut t = scratch.take_tmp(ctx);
        let mut p = NttProducts {
            brk: self,
            ctx,
            scratch,
        };
        let r = self.rotate(f, ct, ctx, &mut p, acc, &mut t);
        scratch.put_tmp(t);
        r
    }

    /// [`BlindRotationKey::blind_rotate`] with the products over `f64` of
    /// [`FourierKeys`] (made from this key).
    pub fn blind_rotate_fourier(
        &self,
        f: &Poly,
        ct: &LweCiphertext,
        ctx: &RingContext,
        keys: &FourierKeys,
        scratch: &mut FourierScratch,
        acc: &mut RlweCiphertext,
    ) -> Result<()> {
        let placeholder = RlweCiphertext {
            a: Poly::placeholder(),
            b: Poly::placeholder(),
        };
        let mut t = std::mem::replace(&mut scratch.tmp, placeholder);
        let mut p = FourierProducts {
            brk: self,
            keys,
            scratch,
        };
        let r = self.rotate(f, ct, ctx, &mut p, acc, &mut t);
        scratch.tmp = t;
        r
    }

    /// The blind rotation of every method on the products `p`; `t` is a second
    /// accumulator.
    fn rotate<P: Products>(
        &self,
        f: &Poly,
        ct: &LweCiphertext,
        ctx: &RingContext,
        p: &mut P,
        acc: &mut RlweCiphertext,
        t: &mut RlweCiphertext,
    ) -> Result<()> {
        self.sched.check_ciphertext(ct)?;
        let big_n = ctx.n();
        let two_n = 2 * big_n;
        let y = two_n / self.q as usize;
        acc.a.data_mut().fill(0);
        acc.a.set_form(Form::Coeff);
        acc.b.set_form(Form::Coeff);
        acc.b.data_mut().copy_from_slice(f.data());
        acc.b.mul_monomial_assign(y * ct.b as usize, ctx);
        match self.config.method {
            Method::Ap => {
                let br = self.b_r as usize;
                for (i, &ai) in ct.a.iter().enumerate() {
                    let mut x = ai as usize;
                    for j in 0..self.d_r {
                        let v = x % br;
                        x /= br;
                        if v != 0 {
                            p.product((i * self.d_r + j) * (br - 1) + v - 1, &[], acc, t);
                            std::mem::swap(acc, t);
                        }
                    }
                }
            }
            Method::Ginx => {
                let u = &self.ginx_u;
                let qm = ctx.modulus(0, 1);
                for (i, &ai) in ct.a.iter().enumerate() {
                    for (j, &uj) in u.iter().enumerate() {
                        let k = (y as i64 * ai as i64 * uj).rem_euclid(two_n as i64) as usize;
                        if k == 0 {
                            continue;
                        }
                        p.product(i * u.len() + j, &[], acc, t);
                        add_monomial_times(&mut acc.a, &t.a, k, qm);
                        add_monomial_times(&mut acc.b, &t.b, k, qm);
                    }
                }
            }
            Method::LmkcdeyBase | Method::LmkcdeyAux | Method::LmkcdeyAllEven => {
                self.rotate_auto(ct, ctx, p, acc, t);
            }
        }
        Ok(())
    }

    /// The automorphism-based rotation (Alg. 3-5) of `ct`: its [`AutoSchedule`] run on
    /// the products `p`.
    fn rotate_auto<P: Products>(
        &self,
        ct: &LweCiphertext,
        ctx: &RingContext,
        p: &mut P,
        acc: &mut RlweCiphertext,
        t: &mut RlweCiphertext,
    ) {
        let schedule = self.sched.schedule_checked(ct);
        automorphism_coeff(
            acc.b.data(),
            t.b.data_mut(),
            schedule.first,
            ctx.modulus(0, 1).value(),
        );
        std::mem::swap(&mut acc.b, &mut t.b);
        for (key, autos) in &schedule.steps {
            p.product(*key, &schedule.autos[autos.clone()], acc, t);
            std::mem::swap(acc, t);
        }
    }
}

/// The products a blind rotation is made of, on coefficient-form accumulators: over the
/// NTT-form keys ([`NttProducts`]) or over `f64` transforms ([`FourierKeys`]).
trait Products {
    /// `out = acc · keys[k]` (`RLWE ⊗ RGSW`, or ALTMULT with `RLWE'` keys), then the
    /// automorphism keys `auto[i]` for `i` in `autos` (none for AP and GINX).
    fn product(
        &mut self,
        k: usize,
        autos: &[usize],
        acc: &RlweCiphertext,
        out: &mut RlweCiphertext,
    );
}

/// [`Products`] over the NTT-form keys: the automorphism acts on the product's NTT form.
struct NttProducts<'a> {
    brk: &'a BlindRotationKey,
    ctx: &'a RingContext,
    scratch: &'a mut GswScratch,
}

impl Products for NttProducts<'_> {
    fn product(
        &mut self,
        k: usize,
        autos: &[usize],
        acc: &RlweCiphertext,
        out: &mut RlweCiphertext,
    ) {
        let (b, ctx) = (self.brk, self.ctx);
        b.keys[k].mul_into(acc, ctx, self.scratch, b.z2.as_ref(), out);
        for &i in autos {
            b.auto[i].eval_auto(out, ctx, self.scratch);
        }
        to_coeff(out, ctx);
    }
}

/// Rebuilding keys from their parts (deserialization).
impl BlindRotationKey {
    /// The automorphism exponents `t` of the keys [`BlindRotationKey::generate`] makes for
    /// `config`, in the order of [`BlindRotationKey::auto`] (empty for AP and GINX), for
    /// LWE modulus `q` and ring degree `big_n`.
    pub(crate) fn auto_exponents(config: MethodConfig, q: u64, big_n: usize) -> Vec<usize> {
        let two_n = 2 * big_n;
        let y = two_n / q as usize;
        match (config.method, config.auto_keys) {
            (Method::Ap | Method::Ginx, _) => Vec::new(),
            (Method::LmkcdeyAllEven, AutoKeySet::Full) => {
                (1..q as usize).map(|j| y * j + 1).collect()
            }
            (_, AutoKeySet::Full) => (1..big_n).map(|j| 2 * j + 1).collect(),
            (_, AutoKeySet::PowersOfFive) => {
                let mut v = vec![two_n - 1];
                let mut p = 5usize;
                let mut k = 1;
                while k < big_n / 2 {
                    v.push(p);
                    p = p * p % two_n;
                    k *= 2;
                }
                v
            }
            (_, AutoKeySet::Generators) => vec![5, two_n - 1],
        }
    }

    /// A key from its parts, for parameters `params` (`q`, `n`, `B_r`, `d_r` are taken
    /// from them) and ring degree `big_n`; the automorphism look-up tables are rebuilt from
    /// the exponents of `auto`. The caller guarantees the parts have the layout
    /// [`BlindRotationKey::generate`] gives `config` (every `t` of `auto` odd and below
    /// `2 big_n`).
    pub(crate) fn from_parts(
        params: &FhewParams,
        big_n: usize,
        config: MethodConfig,
        ginx_u: Vec<i64>,
        keys: Vec<BrkElement>,
        z2: Option<RlwePrime>,
        auto: Vec<AutoKey>,
    ) -> Self {
        let sched = AutoScheduler::new(config, params, big_n, auto.iter().map(|k| k.t));
        BlindRotationKey {
            config,
            q: params.q,
            n: params.n,
            b_r: params.b_r,
            d_r: params.d_r(),
            ginx_u,
            keys,
            z2,
            auto,
            sched,
        }
    }
}

fn to_coeff(ct: &mut RlweCiphertext, ctx: &RingContext) {
    ct.a.intt(ctx);
    ct.b.intt(ctx);
}

/// `acc += (X^k - 1) · t` for coefficient-form `t` (`k` in `[1, 2N)`).
///
/// Coefficient `j` of `X^k t` is `±t[j - k mod N]`: with `k = s` or `k = N + s` (`s < N`),
/// the top `N - s` coefficients of `acc` take `t[0 .. N - s]` and the bottom `s` take
/// `t[N - s ..]`, with opposite signs (one sign flip per wrap around `X^N = -1`). So the
/// product is three vectorized passes: two signed slice additions and one subtraction.
fn add_monomial_times(acc: &mut Poly, t: &Poly, k: usize, q: &Modulus) {
    let n = t.n();
    let (shift, flip) = if k >= n { (k - n, true) } else { (k, false) };
    let acc = acc.data_mut();
    let t = t.data();
    let (low, high) = acc.split_at_mut(shift);
    let (t_low, t_high) = t.split_at(n - shift);
    if flip {
        kernels::sub_assign(high, t_low, q);
        kernels::add_assign(low, t_high, q);
    } else {
        kernels::add_assign(high, t_low, q);
        kernels::sub_assign(low, t_high, q);
    }
    kernels::sub_assign(acc, t, q);
}

mod schedule;

pub use schedule::{AutoSchedule, AutoScheduler};

#[cfg(test)]
mod tests;
