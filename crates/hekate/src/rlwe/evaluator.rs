//! The evaluator core every RLWE scheme embeds (Lattigo's `rlwe.Evaluator`): levels,
//! evaluation-key lookup by Galois element, relinearization, automorphisms, and single-
//! and double-hoisted key switching on the engine's decompose / multiply-add / ModDown
//! steps ([`KeySwitcher`]).
//!
//! A scheme's evaluator (e.g. [`ckks::Evaluator`](crate::ckks::Evaluator)) holds one, adds
//! its own metadata rules (CKKS: scales and slots) and calls it on ciphertext *parts*.
//!
//! **Parts, not ciphertexts.** Every entry point takes a ciphertext as its parts
//! `&[Poly]` (`c_0, c_1, ...`, all at one level, no special limbs) and returns new parts,
//! so any scheme's ciphertext type can use it. Two generalizations are built into that
//! shape, so that adding them touches no caller:
//!
//! * **Form.** Key switching works in NTT form. Parts in coefficient form (BFV keeps its
//!   ciphertexts so) are transformed on entry and the results transformed back, so the
//!   output has the input's form. Mixed forms are refused.
//! * **Width.** Automorphisms and hoisting key-switch `c_1` of a width-2 ciphertext
//!   `(c_0, c_1)`; relinearization takes width 3 to width 2. A module-LWE ciphertext of
//!   rank `r` has width `1 + r`: its key switches take one switching key per `c_i`, and
//!   will be added here behind the same signatures (today other widths return
//!   [`Error::ParameterMismatch`]).
//!
//! **Pre-permuted Galois keys** (seed 003 Alg. 4): the key for `g` switches `s` to
//! `s(X^(g^-1))`, so `φ_g(ct) = φ_g(c_0 + u_0, u_1)` with `(u_0, u_1)` the key switch of
//! `c_1`: one decomposition of `c_1` serves any number of elements (single hoisting,
//! [`Evaluator::automorphisms_hoisted`]), and, since an automorphism of an accumulator is a
//! permutation ([`KeySwitcher::permute`]), several key switches can share one ModDown
//! (double hoisting, [`Evaluator::automorphism_sum`]); nested automorphisms keep the `u_0`
//! halves summed in the accumulator and bring down only each `u_1`, which the next one
//! decomposes ([`Evaluator::automorphism_horner`]). A whole BSGS sum (seed 003 Alg. 6) can
//! stay over `Q_l ∪ P` on the hybrid engine: the baby rotations kept as
//! `(φ_g(P c_0 + u_0), φ_g(u_1))`, multiplied there by diagonals over `Q_l ∪ P`, and only
//! each giant step's `c_1` and the result brought down ([`Evaluator::bsgs_extended`]).
//!
//! **Key levels.** A key generated for levels `<= l` only (see
//! [`evaluation_keys`](super::evaluation_keys)) is refused, with
//! [`Error::LevelMismatch`], for parts above level `l`
//! ([`RlweParameters::check_key_at`]); every entry point checks before key switching.

use super::evaluation_keys::{EvaluationKeySet, GaloisKey, RelinearizationKey};
use super::keyswitch::{EngineAccumulator, EngineDecomposition, KeySwitcher, SwitchingKey};
use super::params::RlweParameters;
use crate::ring::automorphism::galois_inverse;
use crate::ring::{Form, Poly, RingContext};
use crate::{Error, Result};
use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The scheme-independent evaluator: parameters and evaluation keys, both behind `Arc`
/// (cloning is cheap and shares the keys).
#[derive(Clone, Debug)]
pub struct Evaluator {
    params: Arc<RlweParameters>,
    keys: Arc<EvaluationKeySet>,
    /// Key-switch steps performed (shared by clones).
    counts: Arc<Counters>,
}

/// The key-switching steps an [`Evaluator`] has performed: what hoisting saves (seed 003
/// Alg. 4 and 6 count their cost in these).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeySwitchCounts {
    /// Decompositions of a `c_1` (step 1: ModUp / digit extraction).
    pub decompositions: u64,
    /// ModDowns of an accumulator pair (step 3).
    pub mod_downs: u64,
    /// ModDowns of the second half of an accumulator only (step 3 for `u_1`, the first
    /// half staying in the accumulator: [`Evaluator::automorphism_horner`]).
    pub half_mod_downs: u64,
}

#[derive(Debug, Default)]
struct Counters {
    decompositions: AtomicU64,
    mod_downs: AtomicU64,
    half_mod_downs: AtomicU64,
}

impl Counters {
    fn add(&self, decompositions: u64, mod_downs: u64) {
        self.decompositions
            .fetch_add(decompositions, Ordering::Relaxed);
        self.mod_downs.fetch_add(mod_downs, Ordering::Relaxed);
    }
}

/// A decomposition of a ciphertext's `c_1` (step 1 of key switching), shared by the
/// hoisted key switches of that ciphertext. Give it back with [`Evaluator::recycle`].
#[derive(Debug)]
pub struct HoistedDecomposition {
    decomposition: EngineDecomposition,
    q_limbs: usize,
}

impl Evaluator {
    /// An evaluator core over `params` with `keys`.
    pub fn new(params: Arc<RlweParameters>, keys: Arc<EvaluationKeySet>) -> Self {
        Evaluator {
            params,
            keys,
            counts: Arc::default(),
        }
    }

    /// The key-switching steps performed so far by this evaluator and its clones.
    pub fn key_switch_counts(&self) -> KeySwitchCounts {
        KeySwitchCounts {
            decompositions: self.counts.decompositions.load(Ordering::Relaxed),
            mod_downs: self.counts.mod_downs.load(Ordering::Relaxed),
            half_mod_downs: self.counts.half_mod_downs.load(Ordering::Relaxed),
        }
    }

    /// The same parameters with other keys (Lattigo's `WithKey`).
    pub fn with_keys(&self, keys: Arc<EvaluationKeySet>) -> Self {
        Evaluator {
            params: self.params.clone(),
            keys,
            counts: Arc::default(),
        }
    }

    /// The parameters.
    pub fn parameters(&self) -> &Arc<RlweParameters> {
        &self.params
    }

    /// The evaluation keys.
    pub fn keys(&self) -> &Arc<EvaluationKeySet> {
        &self.keys
    }

    fn ring(&self) -> &RingContext {
        self.params.ring()
    }

    /// `parts` at `level` (limbs above it dropped: exact, the message is unchanged), or
    /// borrowed unchanged if already there.
    pub fn parts_at_level(parts: &[Poly], level: usize) -> Cow<'_, [Poly]> {
        if parts.iter().all(|p| p.q_limbs() == level + 1) {
            Cow::Borrowed(parts)
        } else {
            Cow::Owned(parts.iter().map(|p| p.truncated(level + 1)).collect())
        }
    }

    /// The relinearization key, checked against the parameters; `None` if the key set has
    /// none.
    pub fn relinearization_key(&self) -> Result<Option<&RelinearizationKey>> {
        match self.keys.relinearization_key() {
            Some(k) => {
                self.params.check_key(&k.0)?;
                Ok(Some(k))
            }
            None => Ok(None),
        }
    }

    /// The Galois key for element `g`, checked against the parameters; `None` if the key
    /// set has none.
    pub fn galois_key(&self, g: usize) -> Result<Option<&GaloisKey>> {
        match self.keys.galois_key(g) {
            Some(k) => {
                debug_assert_eq!(k.galois_element(), g);
                self.params.check_key(k.key())?;
                Ok(Some(k))
            }
            None => Ok(None),
        }
    }

    fn require_galois_key(&self, g: usize) -> Result<&GaloisKey> {
        self.galois_key(g)?.ok_or_else(|| {
            Error::MissingKey(format!(
                "no Galois key for Galois element {g}: generate one with the context's \
                 Galois key generation"
            ))
        })
    }

    /// [`RlweParameters::check_key_at`] for a Galois key and inputs of `q_limbs` chain limbs.
    fn check_galois_key_at(&self, key: &GaloisKey, q_limbs: usize) -> Result<()> {
        self.params.check_key_at(key.key(), q_limbs, || {
            format!("the Galois key for element {}", key.galois_element())
        })
    }

    /// Checks the shape of `parts` (`width` parts of one level, no special limbs, one
    /// form) and returns their form.
    fn check_parts(&self, parts: &[Poly], width: usize) -> Result<Form> {
        if parts.len() != width {
            return Err(Error::ParameterMismatch(format!(
                "this operation needs a ciphertext of {width} parts (degree {}); this one has \
                 {} (degree {}){}",
                width - 1,
                parts.len(),
                parts.len().saturating_sub(1),
                if parts.len() > width {
                    ": relinearize first"
                } else {
                    ""
                }
            )));
        }
        let (ql, form) = (parts[0].q_limbs(), parts[0].form());
        if parts
            .iter()
            .any(|p| p.q_limbs() != ql || p.p_limbs() != 0 || p.form() != form)
        {
            return Err(Error::ParameterMismatch(
                "ciphertext parts differ in level or form, or carry special limbs".into(),
            ));
        }
        self.params.check_level(ql - 1)?;
        Ok(form)
    }

    /// [`Evaluator::check_parts`], and the parts in NTT form.
    fn ntt_parts<'a>(&self, parts: &'a [Poly], width: usize) -> Result<(Cow<'a, [Poly]>, Form)> {
        let form = self.check_parts(parts, width)?;
        Ok(match form {
            Form::Ntt => (Cow::Borrowed(parts), form),
            Form::Coeff => {
                let mut owned = parts.to_vec();
                owned.iter_mut().for_each(|p| p.ntt(self.ring()));
                (Cow::Owned(owned), form)
            }
        })
    }

    /// Brings results back to the caller's form.
    fn to_form(&self, mut parts: Vec<Poly>, form: Form) -> Vec<Poly> {
        if form == Form::Coeff {
            parts.iter_mut().for_each(|p| p.intt(self.ring()));
        }
        parts
    }

    /// The key switch of `c` (one level, NTT or coefficient form) with `key`: `(u_0, u_1)`
    /// with `u_0 + u_1 s ≈ c s'`, in `c`'s form.
    pub fn key_switch(&self, c: &Poly, key: &SwitchingKey) -> Result<[Poly; 2]> {
        self.check_parts(std::slice::from_ref(c), 1)?;
        self.params
            .check_key_at(key, c.q_limbs(), || "the switching key".into())?;
        Ok(self.params.keyswitcher().switch(c, key))
    }

    /// Relinearizes `(c_0, c_1, c_2)` in place to `(c_0 + u_0, c_1 + u_1)`, with
    /// `(u_0, u_1)` the key switch of `c_2` from `s^2` to `s`. Width-2 parts are left as
    /// they are. Errors if the key set has no relinearization key.
    pub fn relinearize(&self, parts: &mut Vec<Poly>) -> Result<()> {
        if parts.len() == 2 {
            return Ok(());
        }
        self.check_parts(parts, 3)?;
        let rlk = self.keys.relinearization_key().ok_or_else(|| {
            Error::MissingKey(
                "no relinearization key: build the evaluator with the context's \
                 generate_relinearization_key"
                    .into(),
            )
        })?;
        self.relinearize_with(parts, rlk)
    }

    /// [`Evaluator::relinearize`] with a given (already looked-up) key.
    pub fn relinearize_with(&self, parts: &mut Vec<Poly>, rlk: &RelinearizationKey) -> Result<()> {
        let form = self.check_parts(parts, 3)?;
        self.params.check_key_at(&rlk.0, parts[0].q_limbs(), || {
            "the relinearization key".into()
        })?;
        let ring = self.ring();
        let c2 = parts.pop().expect("width 3");
        // In the parts' form: a coefficient-form c_2 (BFV's tensor output) enters and
        // leaves the engine without transforms where the engine allows.
        let [u0, u1] = self.params.keyswitcher().switch(&c2, &rlk.0);
        debug_assert!(u0.form() == form);
        self.counts.add(1, 1);
        ring.recycle(c2);
        parts[0].add_assign(&u0, ring);
        parts[1].add_assign(&u1, ring);
        ring.recycle(u0);
        ring.recycle(u1);
        Ok(())
    }

    /// [`Evaluator::relinearize_with`] fused with a rescale: the width-3 `parts`
    /// `(c_0, c_1, c_2)` over `Q_l` (NTT form, `l >= 1`) become
    /// `rescale(k (c_0 + u_0, c_1 + u_1) + w)` over `Q_{l-1}`, for an integer `k` and
    /// `w = add` (width 2 over `Q_l` or more chain limbs, read at `Q_l` without a copy; NTT
    /// form; `None`: zero): the words of relinearizing,
    /// multiplying by `k`, adding `w` and dividing every part by `q_l` with rounding, the
    /// key switch's ModDown fused into the rescale ([`KeySwitcher::mod_down_rescale`]).
    pub fn relinearize_rescale_with(
        &self,
        parts: &mut Vec<Poly>,
        k: i64,
        add: Option<&[Poly]>,
        rlk: &RelinearizationKey,
    ) -> Result<()> {
        let form = self.check_parts(parts, 3)?;
        let ql = parts[0].q_limbs();
        if form != Form::Ntt {
            return Err(Error::ParameterMismatch(
                "the fused relinearization and rescale needs NTT form".into(),
            ));
        }
        if ql < 2 {
            return Err(Error::OutOfLevels(
                "cannot rescale a ciphertext at level 0".into(),
            ));
        }
        if let Some(w) = add {
            if w.len() != 2
                || w.iter()
                    .any(|p| p.q_limbs() < ql || p.p_limbs() != 0 || p.form() != Form::Ntt)
            {
                return Err(Error::ParameterMismatch(
                    "the addend must be two NTT-form parts at or above the product's level".into(),
                ));
            }
        }
        self.params
            .check_key_at(&rlk.0, ql, || "the relinearization key".into())?;
        let ring = self.ring();
        let c2 = parts.pop().expect("width 3");
        let ks = self.params.keyswitcher();
        let d = ks.decompose(&c2);
        let acc = ks.multiply(&d, &rlk.0, ql);
        ks.recycle(d);
        ring.recycle(c2);
        self.counts.add(1, 1);
        // add_h = k c_h + w_h, then rescale(k u_h + add_h).
        let p1 = parts.pop().expect("width 2");
        let p0 = parts.pop().expect("width 1");
        let mut add_parts = [p0, p1];
        let s = (k != 1).then(|| ring.integer_residues(k, ql));
        for (h, p) in add_parts.iter_mut().enumerate() {
            match (&s, add) {
                (_, Some(w)) => p.mul_scalar_then_add_assign(s.as_deref(), &w[h], ring),
                (Some(s), None) => p.mul_scalar_assign(s, ring),
                (None, None) => {}
            }
        }
        parts.extend(ks.mod_down_rescale(acc, k, add_parts, ring));
        Ok(())
    }

    /// `φ_g(c_0 + u_0), φ_g(u_1)`: the end of every automorphism (NTT form).
    fn finish_automorphism(&self, c0: &Poly, g: usize, u: [Poly; 2]) -> Vec<Poly> {
        let ring = self.ring();
        let [u0, u1] = u;
        let ql = u0.q_limbs();
        let [mut out0, mut out1] = [0, 1].map(|_| ring.scratch_poly(ql, 0, Form::Ntt));
        u0.add_then_automorphism(c0, g, ring, &mut out0);
        u1.automorphism(g, ring, &mut out1);
        ring.recycle(u0);
        ring.recycle(u1);
        vec![out0, out1]
    }

    /// Applies `X -> X^g` to a width-2 ciphertext with the key for `g` from the key set.
    pub fn automorphism(&self, parts: &[Poly], g: usize) -> Result<Vec<Poly>> {
        let key = self.require_galois_key(g)?;
        self.automorphism_with(parts, key)
    }

    /// [`Evaluator::automorphism`] with a given (already looked-up) key, for the element
    /// the key carries.
    pub fn automorphism_with(&self, parts: &[Poly], key: &GaloisKey) -> Result<Vec<Poly>> {
        let form = self.check_parts(parts, 2)?;
        self.check_galois_key_at(key, parts[1].q_limbs())?;
        let u = self.params.keyswitcher().switch(&parts[1], key.key());
        self.counts.add(1, 1);
        let g = key.galois_element();
        Ok(match form {
            Form::Ntt => self.finish_automorphism(&parts[0], g, u),
            // Coefficient form: the switch stays there and the automorphism is a signed
            // permutation of the coefficients.
            Form::Coeff => {
                let ring = self.ring();
                let [mut u0, u1] = u;
                u0.add_assign(&parts[0], ring);
                let out = [&u0, &u1].map(|p| {
                    let mut o = ring.scratch_poly(p.q_limbs(), 0, Form::Coeff);
                    p.automorphism(g, ring, &mut o);
                    o
                });
                ring.recycle(u0);
                ring.recycle(u1);
                out.into()
            }
        })
    }

    /// Step 1 of hoisting: the decomposition of `c_1` of a width-2 ciphertext, for any
    /// number of [`Evaluator::automorphism_hoisted`] calls on the same parts.
    pub fn decompose(&self, parts: &[Poly]) -> Result<HoistedDecomposition> {
        let (p, _) = self.ntt_parts(parts, 2)?;
        self.counts.add(1, 0);
        Ok(HoistedDecomposition {
            decomposition: self.params.keyswitcher().decompose(&p[1]),
            q_limbs: p[1].q_limbs(),
        })
    }

    /// `φ_g(parts)` for the key's element `g`, from a decomposition of these parts' `c_1`
    /// (single hoisting, seed 003 Alg. 4): one inner product, one ModDown and one
    /// permutation per element.
    pub fn automorphism_hoisted(
        &self,
        parts: &[Poly],
        d: &HoistedDecomposition,
        key: &GaloisKey,
    ) -> Result<Vec<Poly>> {
        let (p, form) = self.ntt_parts(parts, 2)?;
        if d.q_limbs != p[0].q_limbs() {
            return Err(Error::LevelMismatch(format!(
                "the decomposition is of a ciphertext at level {}, these parts are at level {}",
                d.q_limbs - 1,
                p[0].q_limbs() - 1
            )));
        }
        self.check_galois_key_at(key, d.q_limbs)?;
        let ks = self.params.keyswitcher();
        let acc = ks.multiply(&d.decomposition, key.key(), d.q_limbs);
        self.counts.add(0, 1);
        let out = self.finish_automorphism(&p[0], key.galois_element(), ks.mod_down(acc));
        Ok(self.to_form(out, form))
    }

    /// `φ_g(parts)` for every `g` in `elements`, sharing one decomposition of `c_1`
    /// (`g = 1`, the identity, returns a copy). Results are in the order of `elements`.
    pub fn automorphisms_hoisted(
        &self,
        parts: &[Poly],
        elements: &[usize],
    ) -> Result<Vec<Vec<Poly>>> {
        let keys = elements
            .iter()
            .map(|&g| {
                if g == 1 {
                    Ok(None)
                } else {
                    self.require_galois_key(g).map(Some)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let d = self.decompose(parts)?;
        let out = keys
            .into_iter()
            .map(|key| match key {
                None => Ok(parts.to_vec()),
                Some(key) => self.automorphism_hoisted(parts, &d, key),
            })
            .collect();
        self.recycle(d);
        out
    }

    /// Gives a decomposition's memory back for reuse.
    pub fn recycle(&self, d: HoistedDecomposition) {
        self.params.keyswitcher().recycle(d.decomposition);
    }

    /// One term of an automorphism sum (`what` names the sum in errors) in NTT form,
    /// checked to have the first term's `form` and `ql` chain limbs.
    fn sum_term<'p>(
        &self,
        parts: &'p [Poly],
        form: Form,
        ql: usize,
        what: &str,
    ) -> Result<Cow<'p, [Poly]>> {
        let (p, f) = self.ntt_parts(parts, 2)?;
        if f != form || p[0].q_limbs() != ql {
            return Err(Error::LevelMismatch(format!(
                "the terms of {what} must have one level and one form"
            )));
        }
        Ok(p)
    }

    /// The last step of a sum of key switches: `acc` brought down (one pair ModDown),
    /// `φ_g` applied to both halves, added to `out`; `t` is scratch.
    fn add_mod_down(&self, acc: EngineAccumulator, g: usize, out: &mut [Poly], t: &mut Poly) {
        let ring = self.ring();
        self.counts.add(0, 1);
        for (o, u) in out.iter_mut().zip(self.params.keyswitcher().mod_down(acc)) {
            u.automorphism(g, ring, t);
            o.add_assign(t, ring);
            ring.recycle(u);
        }
    }

    /// `Σ_j φ_{g_j}(ct_j)` over width-2 ciphertexts at one level, with a single ModDown for
    /// all the key switches (double hoisting, as the giant steps of a BSGS linear
    /// transform): the accumulator of term `j` is permuted by `g_j^-1 g_{j-1}` and the
    /// next inner product added to it, and `φ_{g_last}` is applied after the ModDown.
    /// `g = 1` terms are added without key switching. The result differs from the sum of
    /// separate automorphisms only by ModDown rounding.
    pub fn automorphism_sum(&self, terms: &[(&[Poly], usize)]) -> Result<Vec<Poly>> {
        let Some(first) = terms.first() else {
            return Err(Error::ParameterMismatch(
                "an automorphism sum needs at least one term".into(),
            ));
        };
        let ring = self.ring();
        let two_n = 2 * ring.n();
        let (p0, form) = self.ntt_parts(first.0, 2)?;
        let ql = p0[0].q_limbs();
        let ks = self.params.keyswitcher();
        let mut out: Vec<Poly> = (0..2).map(|_| ring.zero(ql, 0, Form::Ntt)).collect();
        let mut acc = None;
        let mut last_g = 1;
        for &(parts, g) in terms {
            let p = self.sum_term(parts, form, ql, "an automorphism sum")?;
            let g = g % two_n;
            if g == 1 {
                out[0].add_assign(&p[0], ring);
                out[1].add_assign(&p[1], ring);
                continue;
            }
            let key = self.require_galois_key(g)?;
            self.check_galois_key_at(key, ql)?;
            let mut t = ring.scratch_poly(ql, 0, Form::Ntt);
            p[0].automorphism(g, ring, &mut t);
            out[0].add_assign(&t, ring);
            ring.recycle(t);
            let d = ks.decompose(&p[1]);
            self.counts.add(1, 0);
            acc = Some(match acc.take() {
                None => ks.multiply(&d, key.key(), ql),
                Some(prev) => {
                    let k = galois_inverse(g, ring.n()) * last_g % two_n;
                    let mut a = if k == 1 { prev } else { ks.permute(&prev, k) };
                    ks.multiply_add(&d, key.key(), &mut a);
                    a
                }
            });
            ks.recycle(d);
            last_g = g;
        }
        if let Some(acc) = acc {
            let mut t = ring.scratch_poly(ql, 0, Form::Ntt);
            self.add_mod_down(acc, last_g, &mut out, &mut t);
            ring.recycle(t);
        }
        Ok(self.to_form(out, form))
    }

    /// The nested sum `φ_{g_0}(ct_0 + φ_{g_1}(ct_1 + ... + φ_{g_m}(ct_m)))` over width-2
    /// ciphertexts at one level (Horner giant steps of a BSGS linear transform: `ct_k`
    /// undergoes `φ_{g_0 ... g_k}`, with one key per distinct `g_k`). `g = 1` is no
    /// automorphism. Each other `g_k` is one key switch of the `c_1` built so far, but only
    /// its `u_1` half is brought down ([`KeySwitcher::mod_down_second`]) for the next
    /// decomposition; the `u_0` halves stay in the accumulator (permuted along) and come
    /// down once, with the last `u_1`. For `r` automorphisms: `r` decompositions, `r - 1`
    /// half ModDowns and one pair ModDown, where separate automorphisms take `r` pair
    /// ModDowns. The result differs from nested separate automorphisms only by ModDown
    /// rounding.
    pub fn automorphism_horner(&self, terms: &[(&[Poly], usize)]) -> Result<Vec<Poly>> {
        let Some(first) = terms.first() else {
            return Err(Error::ParameterMismatch(
                "a Horner automorphism sum needs at least one term".into(),
            ));
        };
        let ring = self.ring();
        let two_n = 2 * ring.n();
        let (p0, form) = self.ntt_parts(first.0, 2)?;
        let ql = p0[0].q_limbs();
        let keys = terms
            .iter()
            .map(|&(_, g)| match g % two_n {
                1 => Ok(None),
                g => {
                    let key = self.require_galois_key(g)?;
                    self.check_galois_key_at(key, ql)?;
                    Ok(Some(key))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let ks = self.params.keyswitcher();
        // The value so far: (c[0] + φ_last(ModDown(acc_0)), c[1] + φ_last(ModDown(acc_1))),
        // acc_1 holding at most the last key switch's u_1 (`pending`).
        let mut c: Vec<Poly> = (0..2).map(|_| ring.zero(ql, 0, Form::Ntt)).collect();
        let mut acc = None;
        let (mut last, mut pending) = (1, false);
        let mut t = ring.scratch_poly(ql, 0, Form::Ntt);
        for (&(parts, _), key) in terms.iter().zip(keys).rev() {
            let p = self.sum_term(parts, form, ql, "a Horner automorphism sum")?;
            c[0].add_assign(&p[0], ring);
            c[1].add_assign(&p[1], ring);
            let Some(key) = key else { continue };
            if pending {
                // c_1 in full, over Q_l: the previous u_1 comes down for the decomposition.
                let a = acc.as_mut().expect("pending in an accumulator");
                let u1 = ks.mod_down_second(a);
                self.counts.half_mod_downs.fetch_add(1, Ordering::Relaxed);
                u1.automorphism(last, ring, &mut t);
                c[1].add_assign(&t, ring);
                ring.recycle(u1);
            }
            let g = key.galois_element();
            let d = ks.decompose(&c[1]);
            self.counts.add(1, 0);
            // φ_g(c_0 + φ_last(acc_0) + u_0, u_1): permute the pending u_0 halves by
            // `last` and add this key switch, all to be brought down under φ_g.
            acc = Some(match acc.take() {
                None => ks.multiply(&d, key.key(), ql),
                Some(prev) => {
                    let mut a = if last == 1 {
                        prev
                    } else {
                        ks.permute(&prev, last)
                    };
                    ks.multiply_add(&d, key.key(), &mut a);
                    a
                }
            });
            ks.recycle(d);
            c[0].automorphism(g, ring, &mut t);
            std::mem::swap(&mut c[0], &mut t);
            c[1].data_mut().fill(0);
            (last, pending) = (g, true);
        }
        if let Some(acc) = acc {
            self.add_mod_down(acc, last, &mut c, &mut t);
        }
        ring.recycle(t);
        Ok(self.to_form(c, form))
    }
}

mod extended;
pub use extended::ExtendedBlock;

#[cfg(test)]
mod tests;
