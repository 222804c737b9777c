//! Homomorphic evaluation for BFV and BGV: additions (with level and factor alignment),
//! plaintext and scalar operations, products (BGV's tensor, BFV's scale-invariant one),
//! relinearization, row rotations and the row swap (plain and hoisted), modulus switching
//! and level dropping.
//!
//! Key switching is the RLWE evaluator core's ([`crate::rlwe::Evaluator`]) on the
//! context's engine, so relinearization and rotations give the same words with the
//! hybrid, KLSS and linear engines.

use super::ciphertext::Ciphertext;
use super::context::{IntegerContext, ModSwitching, Scheme};
use super::noise::{
    bfv_tensor_log_variance, bfv_tensor_log_variance_of, bgv_tensor_variance, key_switch_variance,
    log2_add, log2_std, message_variance, rounding_variance, var,
};
use super::plaintext::Plaintext;
use crate::ring::automorphism::{galois_element_for_conjugation, galois_element_for_rotation};
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::evaluation_keys::{EvaluationKeySet, GaloisKey, GaloisKeys, RelinearizationKey};
use crate::rlwe::Evaluator as RlweEvaluator;
use crate::{Error, Result};
use std::borrow::Cow;
use std::sync::Arc;

mod leveled;

const NO_RELIN_KEY: &str = "no relinearization key: build the Evaluator with \
                            generate_relinearization_key";

/// Evaluates BFV or BGV operations (as the context's scheme says) with the evaluation keys
/// it holds. Cloning is cheap (the keys are shared); it is `Send + Sync`.
#[derive(Debug, Clone)]
pub struct Evaluator {
    ctx: Arc<IntegerContext>,
    core: RlweEvaluator,
    /// BFV products drop the primes their noise allows first (see [`leveled`]).
    leveled: bool,
}

impl Evaluator {
    /// An evaluator with an optional relinearization key and a set of Galois keys.
    pub fn new(
        ctx: Arc<IntegerContext>,
        relin: Option<RelinearizationKey>,
        galois: GaloisKeys,
    ) -> Self {
        Self::with_key_set(ctx, Arc::new(EvaluationKeySet::new(relin, galois)))
    }

    /// An evaluator over a shared key set (no copy of the keys).
    pub fn with_key_set(ctx: Arc<IntegerContext>, keys: Arc<EvaluationKeySet>) -> Self {
        let core = RlweEvaluator::new(ctx.rlwe().clone(), keys);
        Evaluator {
            ctx,
            core,
            leveled: false,
        }
    }

    /// The context.
    pub fn context(&self) -> &Arc<IntegerContext> {
        &self.ctx
    }

    /// The RLWE evaluator core (key lookup, automorphisms, hoisting, key-switch counters).
    pub fn rlwe(&self) -> &RlweEvaluator {
        &self.core
    }

    /// The evaluation keys.
    pub fn keys(&self) -> &Arc<EvaluationKeySet> {
        self.core.keys()
    }

    fn ring(&self) -> &RingContext {
        self.ctx.ring()
    }

    fn t_mod(&self) -> &crate::math::modulus::Modulus {
        self.ctx.plaintext_modulus().modulus()
    }

    /// A result with `ct`'s id and the given parts, factor and noise.
    fn result(ct: &Ciphertext, parts: Vec<Poly>, factor: u64, noise: f64) -> Ciphertext {
        Ciphertext {
            id: ct.id,
            parts,
            factor,
            seed: None,
            noise,
        }
    }

    /// `ct` at `level` (limbs dropped; exact, factor unchanged).
    fn at_level<'a>(&self, ct: &'a Ciphertext, level: usize) -> Cow<'a, Ciphertext> {
        if ct.level() == level {
            return Cow::Borrowed(ct);
        }
        let parts = RlweEvaluator::parts_at_level(&ct.parts, level).into_owned();
        Cow::Owned(Self::result(ct, parts, ct.factor, ct.noise))
    }

    /// `ct` with its parts in `form` (a copy transformed when it is in the other one).
    fn in_form<'a>(&self, ct: Cow<'a, Ciphertext>, form: Form) -> Cow<'a, Ciphertext> {
        if ct.form() == form {
            return ct;
        }
        let mut ct = ct.into_owned();
        for p in &mut ct.parts {
            match form {
                Form::Ntt => p.ntt(self.ring()),
                Form::Coeff => p.intt(self.ring()),
            }
        }
        Cow::Owned(ct)
    }

    /// Multiplies every part by the integer `k` (centered mod `t` first): the message times
    /// `k`, the noise times `|k|`.
    fn scale_parts(&self, ct: &mut Ciphertext, k: u64) {
        let kc = self.t_mod().center(self.t_mod().reduce(k));
        let c: Vec<u64> = self.ring().q().moduli()[..=ct.level()]
            .iter()
            .map(|q| q.reduce_i64(kc))
            .collect();
        for p in &mut ct.parts {
            p.mul_scalar_assign(&c, self.ring());
        }
        ct.noise += (kc.unsigned_abs().max(1) as f64).log2();
        ct.seed = None;
    }

    /// `a` and `b` at their common level, `b` brought to `a`'s factor (multiplied by
    /// `α_a α_b^-1 mod t`, centered) and form.
    fn aligned<'a>(
        &self,
        a: &'a Ciphertext,
        b: &'a Ciphertext,
    ) -> Result<(Cow<'a, Ciphertext>, Cow<'a, Ciphertext>)> {
        self.ctx.check_ciphertext(a)?;
        self.ctx.check_ciphertext(b)?;
        let level = a.level().min(b.level());
        let a = self.at_level(a, level);
        let mut b = self.at_level(b, level);
        if a.factor != b.factor {
            let t = self.t_mod();
            let r = t.mul(a.factor, t.inv(b.factor).expect("factor is a unit"));
            let b = b.to_mut();
            self.scale_parts(b, r);
            b.factor = a.factor;
        }
        let b = self.in_form(b, a.form());
        Ok((a, b))
    }

    fn add_sub(&self, a: &Ciphertext, b: &Ciphertext, sub: bool) -> Result<Ciphertext> {
        let (a, b) = self.aligned(a, b)?;
        let ring = self.ring();
        let (long, short, swapped) = if a.parts.len() >= b.parts.len() {
            (&a, &b, false)
        } else {
            (&b, &a, true)
        };
        let mut parts: Vec<Poly> = long.parts.clone();
        for (i, p) in parts.iter_mut().enumerate() {
            match (short.parts.get(i), sub, swapped) {
                (Some(s), false, _) => p.add_assign(s, ring),
                (Some(s), true, false) => p.sub_assign(s, ring),
                (Some(s), true, true) => p.rsub_assign(s, ring),
                (None, true, true) => p.neg_assign(ring),
                (None, _, _) => {}
            }
        }
        // In the log domain: deep BFV chains carry σ beyond f64's range.
        let noise = 0.5 * log2_add(2.0 * a.noise, 2.0 * b.noise);
        Ok(Self::result(&a, parts, a.factor, noise))
    }

    /// `a + b` (levels and correction factors aligned first).
    pub fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.add_sub(a, b, false)
    }

    /// `a - b` (levels and correction factors aligned first).
    pub fn sub(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.add_sub(a, b, true)
    }

    /// `-a`.
    pub fn neg(&self, a: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(a)?;
        let mut parts = a.parts.clone();
        parts.iter_mut().for_each(|p| p.neg_assign(self.ring()));
        Ok(Self::result(a, parts, a.factor, a.noise))
    }

    fn add_sub_plain(&self, ct: &Ciphertext, pt: &Plaintext, sub: bool) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        self.ctx.check_plaintext(pt)?;
        let m = self
            .ctx
            .lift(pt, ct.level() + 1, Some(ct.factor), ct.form());
        let mut parts = ct.parts.clone();
        if sub {
            parts[0].sub_assign(&m, self.ring());
        } else {
            parts[0].add_assign(&m, self.ring());
        }
        self.ring().recycle(m);
        Ok(Self::result(ct, parts, ct.factor, ct.noise))
    }

    /// `ct + pt` (no noise added).
    pub fn add_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        self.add_sub_plain(ct, pt, false)
    }

    /// `ct - pt` (no noise added).
    pub fn sub_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        self.add_sub_plain(ct, pt, true)
    }

    /// `ct · pt` (slot-wise with batching; the polynomial product with coefficient
    /// encoding), in NTT form.
    pub fn mul_plain(&self, ct: &Ciphertext, pt: &Plaintext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        self.ctx.check_plaintext(pt)?;
        let m = self.ctx.lift(pt, ct.level() + 1, None, Form::Ntt);
        let mut parts = self
            .in_form(Cow::Borrowed(ct), Form::Ntt)
            .into_owned()
            .parts;
        parts.iter_mut().for_each(|p| p.mul_assign(&m, self.ring()));
        self.ring().recycle(m);
        let vm = message_variance(&self.ctx);
        let noise = 0.5 * ((self.ctx.n() as f64 * vm).log2() + log2_add(2.0 * ct.noise, vm.log2()));
        Ok(Self::result(ct, parts, ct.factor, noise))
    }

    /// `k · ct` for an integer `k` (reduced mod `t`, centered).
    pub fn mul_scalar(&self, ct: &Ciphertext, k: i64) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        let mut out = ct.clone();
        self.scale_parts(&mut out, self.t_mod().reduce_i64(k));
        Ok(out)
    }

    /// The degree-2 product, unrelinearized: BGV's tensor times `t` (factor `α_a α_b`, NTT
    /// form), or BFV's scale-invariant tensor (factor `κ_ℓ α_a α_b`, coefficient form: the
    /// scale-and-round ends there, and the key switches after it need no transforms to
    /// enter and leave the linear and KLSS engines).
    pub fn mul_no_relin(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(a)?;
        self.ctx.check_ciphertext(b)?;
        if a.degree() != 1 || b.degree() != 1 {
            return Err(Error::ParameterMismatch(
                "multiplication needs degree-1 operands: relinearize first".into(),
            ));
        }
        let level = a.level().min(b.level());
        let (a, b) = (self.at_level(a, level), self.at_level(b, level));
        let square = a.parts == b.parts;
        let t = self.t_mod();
        let (va, vb) = (var(a.noise), var(b.noise));
        let (parts, factor, noise) = match self.ctx.scheme() {
            Scheme::Bgv => {
                let (a, b) = (
                    self.in_form(Cow::Borrowed(&*a), Form::Ntt),
                    self.in_form(Cow::Borrowed(&*b), Form::Ntt),
                );
                let ring = self.ring();
                let ql = level + 1;
                let [mut d0, mut d1, mut d2] =
                    [0, 1, 2].map(|_| ring.scratch_poly(ql, 0, Form::Ntt));
                Poly::mul_into(&a.parts[0], &b.parts[0], &mut d0, ring);
                Poly::mul_into(&a.parts[0], &b.parts[1], &mut d1, ring);
                if !square {
                    d1.mul_add_assign(&a.parts[1], &b.parts[0], ring);
                }
                Poly::mul_into(&a.parts[1], &b.parts[1], &mut d2, ring);
                let tq = &self.ctx.t_mod_q()[..ql];
                d0.mul_scalar_assign(tq, ring);
                d2.mul_scalar_assign(tq, ring);
                // A square's middle term is 2 a_0 a_1: the 2 folds into the factor t.
                let t1: Vec<u64> = if square {
                    let moduli = &ring.q().moduli()[..ql];
                    moduli.iter().zip(tq).map(|(q, &x)| q.add(x, x)).collect()
                } else {
                    tq.to_vec()
                };
                d1.mul_scalar_assign(&t1, ring);
                let noise = log2_std(bgv_tensor_variance(&self.ctx, va, vb, square));
                (vec![d0, d1, d2], t.mul(a.factor, b.factor), noise)
            }
            Scheme::Bfv => {
                let tensor = self.ctx.tensor(level)?;
                let variant = self.ctx.mul_variant();
                let parts = if square {
                    tensor.square(self.ring(), &a.parts, variant, Form::Coeff)
                } else {
                    tensor.tensor(self.ring(), &a.parts, &b.parts, variant, Form::Coeff)
                };
                let noise =
                    0.5 * self.bfv_tensor_log_variance(2.0 * a.noise, 2.0 * b.noise, square);
                let factor = t.mul(self.ctx.kappa(level), t.mul(a.factor, b.factor));
                (parts, factor, noise)
            }
        };
        Ok(Self::result(&a, parts, factor, noise))
    }

    /// `log2` of the variance of BFV's scale-invariant tensor of operands of variances
    /// `2^lva`, `2^lvb` (the noise table of [`noise`](super::noise)), in the log domain
    /// so that long chains do not overflow.
    pub(super) fn bfv_tensor_log_variance(&self, lva: f64, lvb: f64, square: bool) -> f64 {
        bfv_tensor_log_variance(&self.ctx, lva, lvb, square)
    }

    fn relin_key(&self) -> Result<&RelinearizationKey> {
        self.core
            .relinearization_key()?
            .ok_or_else(|| Error::MissingKey(NO_RELIN_KEY.into()))
    }

    /// Relinearizes a degree-2 ciphertext back to degree 1 (identity on degree 1).
    pub fn relinearize(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        if ct.degree() == 1 {
            return Ok(ct.clone());
        }
        let rlk = self.relin_key()?;
        let mut parts = ct.parts.clone();
        self.core.relinearize_with(&mut parts, rlk)?;
        let noise = self.key_switched_noise(ct);
        Ok(Self::result(ct, parts, ct.factor, noise))
    }

    /// The noise of `ct` after one key switch.
    fn key_switched_noise(&self, ct: &Ciphertext) -> f64 {
        0.5 * self.key_switched_log_variance(2.0 * ct.noise, ct.level())
    }

    /// `log2` of the variance after one key switch at `level` of a ciphertext of variance
    /// `2^lv`.
    pub(super) fn key_switched_log_variance(&self, lv: f64, level: usize) -> f64 {
        let tf = self.ctx.t() as f64;
        log2_add(lv, (tf * tf * key_switch_variance(&self.ctx, level)).log2())
    }

    /// `a · b`, relinearized; BGV with [`ModSwitching::Auto`] then switches moduli down
    /// as the noise requires (one prime per product for small `t`).
    pub fn mul(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.relin_key()?;
        if let Some(out) = self.leveled_mul(a, b)? {
            return Ok(out);
        }
        let out = self.relinearize(&self.mul_no_relin(a, b)?)?;
        self.auto_mod_switch(out)
    }

    /// `a^2`, relinearized (one product fewer than [`Evaluator::mul`]).
    pub fn square(&self, a: &Ciphertext) -> Result<Ciphertext> {
        self.mul(a, a)
    }

    /// [`ModSwitching::Auto`] (BGV): switches down while the estimated noise is more than
    /// twice the rounding floor a switch leaves (`σ > 2 σ_floor`), so a product whose noise
    /// needs two primes (a large `t`) gets two, and a fresh one none.
    fn auto_mod_switch(&self, mut ct: Ciphertext) -> Result<Ciphertext> {
        if self.ctx.scheme() != Scheme::Bgv || self.ctx.mod_switching() != ModSwitching::Auto {
            return Ok(ct);
        }
        let floor = log2_std(rounding_variance(&self.ctx));
        while ct.level() > 0 && ct.noise > floor + 1.0 {
            ct = self.mod_switch(&ct)?;
        }
        Ok(ct)
    }

    /// Modulus switching: divides by the last prime `q_ℓ` of the level (rounding), one
    /// level down. The noise shrinks by `q_ℓ` (down to the rounding floor); the factor is
    /// multiplied by `q_ℓ^-1 mod t`. (BGV's noise management; BFV may use it to shrink
    /// ciphertexts when the budget allows.)
    pub fn mod_switch(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        let l = ct.level();
        if l == 0 {
            return Err(Error::OutOfLevels(
                "cannot switch the modulus of a ciphertext at level 0: build a longer chain \
                 or multiply less"
                    .into(),
            ));
        }
        let mut parts = ct.parts.clone();
        parts
            .iter_mut()
            .for_each(|p| p.divide_round_by_last_q(self.ring()));
        let t = self.t_mod();
        let factor = t.mul(ct.factor, self.ctx.q_inv_mod_t(l));
        let q = self.ring().q().moduli()[l].value() as f64;
        let noise = log2_std(var(ct.noise) / (q * q) + rounding_variance(&self.ctx));
        Ok(Self::result(ct, parts, factor, noise))
    }

    /// Switches moduli down to `level`.
    pub fn mod_switch_to(&self, ct: &Ciphertext, level: usize) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        if level > ct.level() {
            return Err(Error::OutOfLevels(format!(
                "cannot switch a ciphertext at level {} up to level {level}",
                ct.level()
            )));
        }
        let mut out = ct.clone();
        while out.level() > level {
            out = self.mod_switch(&out)?;
        }
        Ok(out)
    }

    /// Drops `levels` levels (removes limbs: exact, the factor unchanged, the budget
    /// shrinks by the dropped primes' bits).
    pub fn drop_level(&self, ct: &Ciphertext, levels: usize) -> Result<Ciphertext> {
        self.ctx.check_ciphertext(ct)?;
        if levels > ct.level() {
            return Err(Error::OutOfLevels(format!(
                "cannot drop {levels} levels from a ciphertext at level {}",
                ct.level()
            )));
        }
        Ok(self.at_level(ct, ct.level() - levels).into_owned())
    }

    fn galois_key(&self, g: usize, what: &str) -> Result<&GaloisKey> {
        self.core.galois_key(g)?.ok_or_else(|| {
            Error::MissingKey(format!(
                "no Galois key for {what} (Galois element {g}): include it in \
                 generate_galois_keys"
            ))
        })
    }

    fn check_degree_one(&self, ct: &Ciphertext) -> Result<()> {
        self.ctx.check_ciphertext(ct)?;
        if ct.degree() != 1 {
            return Err(Error::ParameterMismatch(
                "rotations need a degree-1 ciphertext: relinearize first".into(),
            ));
        }
        Ok(())
    }

    /// Applies `X -> X^g` with its key.
    pub fn automorphism(&self, ct: &Ciphertext, g: usize) -> Result<Ciphertext> {
        self.check_degree_one(ct)?;
        let key = self.galois_key(g, "this automorphism")?;
        let parts = self.core.automorphism_with(&ct.parts, key)?;
        Ok(Self::result(
            ct,
            parts,
            ct.factor,
            self.key_switched_noise(ct),
        ))
    }

    /// Rotates both rows of the `2 × N/2` slot matrix left by `steps` (right when
    /// negative): SEAL's `rotate_rows`, Lattigo's `RotateColumns`.
    pub fn rotate_rows(&self, ct: &Ciphertext, steps: i64) -> Result<Ciphertext> {
        let half = (self.ctx.n() / 2) as i64;
        if steps.rem_euclid(half) == 0 {
            self.check_degree_one(ct)?;
            return Ok(ct.clone());
        }
        let g = galois_element_for_rotation(steps, self.ctx.n());
        self.automorphism(ct, g)
            .map_err(|e| self.rotation_error(e, steps))
    }

    fn rotation_error(&self, e: Error, steps: i64) -> Error {
        match e {
            Error::MissingKey(_) => Error::MissingKey(format!(
                "no Galois key for a row rotation by {steps}: include {steps} in \
                 generate_galois_keys"
            )),
            e => e,
        }
    }

    /// Swaps the two rows of the slot matrix (`X -> X^{2N-1}`): SEAL's `rotate_columns`,
    /// Lattigo's `RotateRows`.
    pub fn rotate_columns(&self, ct: &Ciphertext) -> Result<Ciphertext> {
        self.automorphism(ct, galois_element_for_conjugation(self.ctx.n()))
    }

    /// Row rotations by each of `steps` sharing one decomposition of `c_1` (hoisting):
    /// the results, in the order of `steps`, are word for word those of
    /// [`Evaluator::rotate_rows`].
    pub fn rotate_rows_hoisted(&self, ct: &Ciphertext, steps: &[i64]) -> Result<Vec<Ciphertext>> {
        self.check_degree_one(ct)?;
        let half = (self.ctx.n() / 2) as i64;
        let keys = steps
            .iter()
            .map(|&s| {
                if s.rem_euclid(half) == 0 {
                    return Ok(None);
                }
                let g = galois_element_for_rotation(s, self.ctx.n());
                self.galois_key(g, "a row rotation")
                    .map(Some)
                    .map_err(|e| self.rotation_error(e, s))
            })
            .collect::<Result<Vec<_>>>()?;
        let d = self.core.decompose(&ct.parts)?;
        let noise = self.key_switched_noise(ct);
        let out = keys
            .into_iter()
            .map(|key| match key {
                None => Ok(ct.clone()),
                Some(key) => {
                    let parts = self.core.automorphism_hoisted(&ct.parts, &d, key)?;
                    Ok(Self::result(ct, parts, ct.factor, noise))
                }
            })
            .collect();
        self.core.recycle(d);
        out
    }
}
