//! Hybrid key switching between module secrets: `KeySwitch_d(r1 -> r2)` (seed 004 §2.3).
//!
//! A module (MLWE) ciphertext of rank `r` is `(b, a_1, .., a_r)` over `R_{Q,n}` with
//! `b + <a, s> = m`. Key switching maps the `r1` polynomials `c_1 .. c_{r1}`, meant for a
//! secret `s_from ∈ R^{r1}`, to a rank-`r2` ciphertext `(u_0, u_1 .. u_{r2})` under
//! `s_to ∈ R^{r2}`:
//!
//! ```text
//! u_0 + <u, s_to> ≈ sum_j c_j s_from_j.
//! ```
//!
//! **Key** ([`ModuleKey`], seed 004's `KSGen(s_from, s_to, g)`): for every input `j < r1`
//! and digit `i < d`, the rank-`r2` encryption of `P g_i s_from_j` over `Q ∪ P`,
//!
//! ```text
//! swk_{j,i} = ( -<A_{j,i}, s_to> + e_{j,i} + P g_i s_from_j ,  A_{j,i} ),   A_{j,i} ∈ R^{r2},
//! ```
//!
//! a `(1 + r2) × r1` matrix per digit, with the digits and gadget `g_i` of the
//! [hybrid engine](super::HybridKeySwitcher) (`α` primes each). RLWE key switching is the
//! case `r1 = r2 = 1`.
//!
//! **Switch**: each input is decomposed and lifted to `Q_l ∪ P` exactly as in the RLWE
//! engine (ModUp, `r1 d` digits in all); the inner products run into `1 + r2`
//! accumulators, `acc_t = sum_{j,i} d_{j,i} · swk_{j,i}[t]`, tile by tile so that each
//! digit tile read from memory serves every column; then ModDown of each accumulator.
//! Costs (seed 004 Table 1, `ℓ̃ = l + 1`, `ℓ̃' = l + 1 + k`): `r1 (ℓ̃ + d ℓ̃')` transforms
//! for the decompositions, `r1 d (1 + r2) ℓ̃'` products for the inner products, and
//! `(1 + r2)(ℓ̃ + ℓ̃')` transforms for the ModDowns (in NTT form).
//!
//! The noise is the RLWE engine's with `r1` inputs and `r2` secret terms (seed 004
//! Lemma 3.1): `sum_{j,i} d_{j,i} e_{j,i} / P` plus the ModDown rounding `r_0 + <r, s_to>`.

use super::hybrid::add_gadget_term;
use super::{HybridKeySwitcher, KeySwitcher};
use crate::math::kernels;
use crate::math::sample::Seed;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::keys::{encrypt_zero_module_sk, SecretKey};
use crate::rlwe::keyswitch::KEY_TILE;
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};

/// A module switching key `KSGen(s_from, s_to, g)` of the hybrid engine (see the module
/// documentation): for each input `j < r1` and digit `i`, the `1 + r2` polynomials
/// `(b, a_1 .. a_{r2})` over `Q_l ∪ P` in NTT form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleKey {
    /// The [fingerprint](RingContext::fingerprint) of the ring (and so of `P`) the key
    /// belongs to.
    pub ring_id: u64,
    /// `rows[j][i]`: the `1 + r2` columns for input `j`, digit `i`.
    pub rows: Vec<Vec<Vec<Poly>>>,
    /// The seed the uniform `A_{j,i}` are expanded from.
    pub seed: Seed,
}

impl ModuleKey {
    /// The number of inputs `r1` (the rank of `s_from`).
    pub fn inputs(&self) -> usize {
        self.rows.len()
    }

    /// The output width `1 + r2` (`r2` the rank of `s_to`).
    pub fn width(&self) -> usize {
        self.rows
            .first()
            .and_then(|r| r.first())
            .map_or(0, |c| c.len())
    }

    /// The chain limbs `l + 1` the key covers (it serves inputs at levels `<= l`).
    pub fn q_limbs(&self) -> usize {
        self.rows
            .first()
            .and_then(|r| r.first())
            .and_then(|c| c.first())
            .map_or(0, |p| p.q_limbs())
    }

    /// Size in bytes in memory: `r1 · d · (1 + r2) · (l + 1 + k) · n · 8`.
    pub fn size_bytes(&self) -> usize {
        self.rows
            .iter()
            .flatten()
            .flatten()
            .map(|p| p.data().len() * 8)
            .sum()
    }
}

impl HybridKeySwitcher {
    /// `KSGen(s_from, s_to, g)`: a module switching key from `s_from` (`r1` polynomials in
    /// NTT form over at least `Q_{q_limbs-1} ∪ P` of this engine's ring) to the rank-`r2`
    /// secret `s_to` (keys of this ring), for inputs of at most `q_limbs` chain limbs.
    /// Errors on an empty `s_from` or `s_to`, a secret of another ring, or a width outside
    /// `[1, L + 1]`.
    pub fn generate_module_key<R: RngCore + CryptoRng>(
        &self,
        s_from: &[Poly],
        s_to: &[&SecretKey],
        q_limbs: usize,
        rng: &mut R,
    ) -> Result<ModuleKey> {
        self.check_width(q_limbs)?;
        let ctx = self.ring();
        if s_from.is_empty() || s_to.is_empty() {
            return Err(Error::InvalidParameters(
                "a module switching key needs at least one input and one output secret".into(),
            ));
        }
        if let Some(s) = s_to.iter().find(|s| s.ring_id() != ctx.fingerprint()) {
            return Err(Error::ParameterMismatch(format!(
                "a target secret of ring {:#018x}: this engine's ring is {:#018x}",
                s.ring_id(),
                ctx.fingerprint()
            )));
        }
        let k = ctx.p_len();
        let digits = self.key_digits(q_limbs);
        let r2 = s_to.len() as u64;
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let rows = s_from
            .iter()
            .enumerate()
            .map(|(j, s)| {
                (0..digits)
                    .map(|i| {
                        let stream = ((j * digits + i) as u64) * r2;
                        let mut cols =
                            encrypt_zero_module_sk(ctx, s_to, q_limbs, k, &seed, stream, rng);
                        add_gadget_term(
                            ctx,
                            &mut cols[0],
                            s,
                            self.digits().range(i, q_limbs),
                            q_limbs,
                        );
                        cols
                    })
                    .collect()
            })
            .collect();
        Ok(ModuleKey {
            ring_id: ctx.fingerprint(),
            rows,
            seed,
        })
    }

    /// `Ok` if `key` is a module key of this engine (ring, digit count at its width, all
    /// special limbs, NTT form) with at least `inputs` inputs serving `q_limbs` chain
    /// limbs; otherwise the reason.
    pub fn check_module_key(&self, key: &ModuleKey, inputs: usize, q_limbs: usize) -> Result<()> {
        let ctx = self.ring();
        let bad = |m: String| {
            Err(Error::ParameterMismatch(format!(
                "module switching key: {m}"
            )))
        };
        if key.ring_id != ctx.fingerprint() {
            return bad(format!(
                "it belongs to ring {:#018x}, this engine's is {:#018x}",
                key.ring_id,
                ctx.fingerprint()
            ));
        }
        if key.inputs() < inputs {
            return bad(format!(
                "it has {} inputs, {inputs} are given",
                key.inputs()
            ));
        }
        let (w, width) = (key.q_limbs(), key.width());
        if w < q_limbs {
            return Err(Error::LevelMismatch(format!(
                "a module switching key over {w} chain limbs (levels <= {}) for an input at \
                 level {}: generate the key at a higher level",
                w.saturating_sub(1),
                q_limbs - 1
            )));
        }
        let digits = self.key_digits(w);
        for (j, row) in key.rows.iter().enumerate() {
            if row.len() != digits {
                return bad(format!(
                    "input {j} has {} digits, expected {digits}",
                    row.len()
                ));
            }
            for cols in row {
                if cols.len() != width || width < 2 {
                    return bad(format!(
                        "a digit has {} columns, expected {width}",
                        cols.len()
                    ));
                }
                if let Some(p) = cols.iter().find(|p| {
                    p.n() != ctx.n()
                        || p.q_limbs() != w
                        || p.p_limbs() != ctx.p_len()
                        || p.form() != Form::Ntt
                }) {
                    return bad(format!(
                        "a polynomial has {} chain and {} special limbs ({:?} form); expected \
                         {w} and {} in NTT form",
                        p.q_limbs(),
                        p.p_limbs(),
                        p.form(),
                        ctx.p_len()
                    ));
                }
            }
        }
        Ok(())
    }

    /// `KeySwitch_d(inputs, key)`: the rank-`r2` ciphertext `(u_0, u_1 .. u_{r2})` over
    /// `Q_l` in `form` with `u_0 + <u, s_to> ≈ sum_j inputs_j s_from_j`. The inputs are
    /// over the same `Q_l` (either form, no special limbs); fewer inputs than the key has
    /// use its first rows (the missing inputs are zero: seed 004's lifted ciphertexts
    /// `(b, a‖0)`). Errors on a key of another ring or shape, or too narrow for the
    /// inputs' level.
    pub fn switch_module(
        &self,
        inputs: &[&Poly],
        key: &ModuleKey,
        form: Form,
    ) -> Result<Vec<Poly>> {
        let ql = inputs.first().map_or(0, |p| p.q_limbs());
        if ql == 0 || inputs.iter().any(|p| p.q_limbs() != ql || p.p_limbs() != 0) {
            return Err(Error::LevelMismatch(
                "module key switching needs inputs over one Q_l, without special limbs".into(),
            ));
        }
        self.check_module_key(key, inputs.len(), ql)?;
        let decs: Vec<_> = inputs.iter().map(|c| self.decompose(c)).collect();
        let acc = self.module_inner_product(&decs, key, ql);
        decs.into_iter().for_each(|d| self.recycle(d));
        Ok(self.module_mod_down(acc, form))
    }

    /// The inner products `acc_t = sum_{j,i} d_{j,i} · key[j][i][t]` over `Q_l ∪ P`, one
    /// accumulator per column, walked limb by limb and tile by tile.
    fn module_inner_product(
        &self,
        decs: &[super::HybridDecomposition],
        key: &ModuleKey,
        ql: usize,
    ) -> Vec<Poly> {
        let ctx = self.ring();
        let (n, k, width) = (ctx.n(), ctx.p_len(), key.width());
        let mut acc: Vec<Poly> = (0..width)
            .map(|_| ctx.scratch_poly(ql, k, Form::Ntt))
            .collect();
        // The terms (input j, digit i) in use at this level.
        let terms: Vec<(usize, usize)> = decs
            .iter()
            .enumerate()
            .flat_map(|(j, d)| (0..d.digits.len()).map(move |i| (j, i)))
            .collect();
        let tile = n.min(KEY_TILE);
        // Transpose the accumulators into per-limb lists of column slices.
        let mut per_limb: Vec<Vec<&mut [u64]>> = (0..ql + k).map(|_| Vec::new()).collect();
        for a in acc.iter_mut() {
            for (t, limb) in a.data_mut().chunks_mut(n).enumerate() {
                per_limb[t].push(limb);
            }
        }
        let work = |t: usize, outs: &mut Vec<&mut [u64]>| {
            let q = ctx.modulus(t, ql);
            let mut a: Vec<&[u64]> = Vec::with_capacity(terms.len());
            let mut b: Vec<&[u64]> = Vec::with_capacity(terms.len());
            for lo in (0..n).step_by(tile) {
                let r = lo..lo + tile;
                a.clear();
                a.extend(
                    terms
                        .iter()
                        .map(|&(j, i)| &decs[j].digits[i].limb(t)[r.clone()]),
                );
                for (col, out) in outs.iter_mut().enumerate() {
                    b.clear();
                    b.extend(
                        terms
                            .iter()
                            .map(|&(j, i)| &key.rows[j][i][col].limb_over(t, ql)[r.clone()]),
                    );
                    kernels::inner_product(&mut out[r.clone()], &a, &b, q);
                }
            }
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            per_limb
                .par_iter_mut()
                .enumerate()
                .for_each(|(t, outs)| work(t, outs));
        }
        #[cfg(not(feature = "parallel"))]
        per_limb
            .iter_mut()
            .enumerate()
            .for_each(|(t, outs)| work(t, outs));
        acc
    }

    /// ModDown of every accumulator into `form`.
    fn module_mod_down(&self, acc: Vec<Poly>, form: Form) -> Vec<Poly> {
        let ctx: &RingContext = self.ring();
        let down = |mut a: Poly| {
            if form == Form::Coeff {
                a.intt(ctx);
            }
            a.mod_down_by_p(ctx)
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            acc.into_par_iter().map(down).collect()
        }
        #[cfg(not(feature = "parallel"))]
        acc.into_iter().map(down).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::PrimeGenerator;
    use crate::rlwe::keys::SecretDistribution;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use std::sync::Arc;

    fn ring(n: usize, log_q: &[u32], log_p: &[u32]) -> Arc<RingContext> {
        let mut g = PrimeGenerator::new(n).unwrap();
        let q: Vec<u64> = log_q.iter().map(|&b| g.next_prime(b).unwrap()).collect();
        let p: Vec<u64> = log_p.iter().map(|&b| g.next_prime(b).unwrap()).collect();
        RingContext::new(n, &q, &p).unwrap()
    }

    /// `u_0 + <u, s_to> - sum_j c_j s_from_j`, centered, as the largest magnitude over
    /// the first chain prime (the error is far below `q_0 / 2`).
    fn switch_error(
        ctx: &RingContext,
        out: &[Poly],
        inputs: &[Poly],
        s_from: &[SecretKey],
        s_to: &[SecretKey],
    ) -> i64 {
        let ql = out[0].q_limbs();
        let mut diff = out[0].clone();
        for (u, s) in out[1..].iter().zip(s_to) {
            diff.mul_add_assign(u, &s.ntt_at(ql, 0), ctx);
        }
        for (c, s) in inputs.iter().zip(s_from) {
            let mut t = c.clone();
            t.mul_assign(&s.ntt_at(ql, 0), ctx);
            diff.sub_assign(&t, ctx);
        }
        diff.intt(ctx);
        let q0 = ctx.modulus(0, ql).value();
        diff.limb(0)
            .iter()
            .map(|&x| {
                if x > q0 / 2 {
                    (q0 - x) as i64
                } else {
                    x as i64
                }
            })
            .max()
            .unwrap()
    }

    /// Switching `r1 = 3` inputs to a rank-2 secret (and `r1 = 2` to rank 3) at the top
    /// level and below, in both output forms: the result decrypts under `s_to` to
    /// `sum_j c_j s_from_j` up to a small error (the digits' noise over `P` and the
    /// rounding; well below 2^12 here), and the coefficient-form exit is the NTT-form one
    /// transformed.
    #[test]
    fn switches_between_module_secrets() {
        let n = 1 << 10;
        let ctx = ring(n, &[50, 40, 40, 40], &[55, 55]);
        let ks = HybridKeySwitcher::new(ctx.clone(), 2);
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        for (r1, r2) in [(3usize, 2usize), (2, 3), (1, 1)] {
            let from: Vec<SecretKey> = (0..r1)
                .map(|_| SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap())
                .collect();
            let to: Vec<SecretKey> = (0..r2)
                .map(|_| SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap())
                .collect();
            let s_from: Vec<Poly> = from.iter().map(|s| s.ntt().clone()).collect();
            let to_refs: Vec<&SecretKey> = to.iter().collect();
            let key = ks
                .generate_module_key(&s_from, &to_refs, ctx.q_len(), &mut rng)
                .unwrap();
            assert_eq!((key.inputs(), key.width()), (r1, 1 + r2));
            for ql in [4usize, 3, 1] {
                let inputs: Vec<Poly> = (0..r1)
                    .map(|j| crate::rlwe::keys::expand_uniform(&ctx, &[j as u8; 32], 9, ql, 0))
                    .collect();
                let refs: Vec<&Poly> = inputs.iter().collect();
                let out = ks.switch_module(&refs, &key, Form::Ntt).unwrap();
                assert_eq!(out.len(), 1 + r2);
                let err = switch_error(&ctx, &out, &inputs, &from, &to);
                assert!(err < 1 << 12, "r1 {r1} r2 {r2} ql {ql}: error {err}");
                let coeff = ks.switch_module(&refs, &key, Form::Coeff).unwrap();
                for (c, mut t) in coeff.into_iter().zip(out) {
                    t.intt(&ctx);
                    assert_eq!(c, t);
                }
            }
        }
    }

    /// Keys of another ring, the wrong number of inputs, or too narrow for the level are
    /// refused with an error.
    #[test]
    fn refuses_mismatched_keys() {
        let n = 1 << 8;
        let ctx = ring(n, &[50, 40, 40], &[55]);
        let ks = HybridKeySwitcher::new(ctx.clone(), 3);
        let mut rng = ChaCha20Rng::seed_from_u64(6);
        let s = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
        let key = ks
            .generate_module_key(&[s.ntt().clone()], &[&s], 2, &mut rng)
            .unwrap();
        let c = crate::rlwe::keys::expand_uniform(&ctx, &[1; 32], 0, 3, 0);
        let c2 = crate::rlwe::keys::expand_uniform(&ctx, &[1; 32], 0, 2, 0);
        assert!(matches!(
            ks.switch_module(&[&c], &key, Form::Ntt),
            Err(Error::LevelMismatch(_))
        ));
        assert!(ks.switch_module(&[&c2, &c2], &key, Form::Ntt).is_err());
        assert!(ks.switch_module(&[], &key, Form::Ntt).is_err());
        assert!(ks.switch_module(&[&c2], &key, Form::Ntt).is_ok());
        let other = ring(n, &[50, 40, 40], &[56]);
        let ks_other = HybridKeySwitcher::new(other, 3);
        assert!(ks_other.switch_module(&[&c2], &key, Form::Ntt).is_err());
        assert!(ks.generate_module_key(&[], &[&s], 2, &mut rng).is_err());
    }
}
