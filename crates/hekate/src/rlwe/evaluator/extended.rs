//! Seed 003 Alg. 6 (double-hoisted BSGS) with its inner loop over `Q_l ∪ P`, its giant
//! steps summed (as the paper writes it) or nested (Horner) ([`Evaluator::bsgs_extended`]).
//!
//! **The inner loop stays over `Q_l ∪ P`.** A baby rotation `φ_g(ct)` of single hoisting
//! is `(φ_g(c_0 + ModDown(u_0)), φ_g(ModDown(u_1)))` for the key switch `(u_0, u_1)` of
//! `c_1`. ModDown is a division by `P` with rounding, coefficient-wise and exact on
//! multiples of `P`, so it commutes with the permutation, with sums and (up to its
//! rounding) with products by small plaintexts: Alg. 6 keeps every baby rotation as
//! `(a, b) = (φ_g(P c_0 + u_0), φ_g(u_1))` over `Q_l ∪ P` (lines 2-6; the identity is
//! `(P c_0, P c_1)`), multiplies by the diagonals encoded over `Q_l ∪ P` and sums (lines
//! 9-11), and brings down only what the next decomposition reads.
//!
//! **Summed giant steps** (lines 8-17): each partial sum `S_t` brings down its `c_1`
//! (line 12: one half ModDown), which is decomposed and key-switched by `g_t` into
//! `(u_0, u_1)`; `(φ_{g_t}(S_{t,0} + u_0), φ_{g_t}(u_1))` joins the total over
//! `Q_l ∪ P`, brought down once (line 18).
//!
//! **Nested (Horner) giant steps.** With the partial sums
//! `S_t = Σ_j pt_{t,j} ⊙ (a_j, b_j)` and the giant-step elements `g_0, ..., g_m`, the
//! result is `φ_{g_0}(S_0 + φ_{g_1}(S_1 + ... + φ_{g_m}(S_m)))` brought down by `P`. From
//! the innermost term out, the value so far `X` (over `Q_l ∪ P`, `P` times a ciphertext)
//! gains `S_t`; a non-identity `g_t` then key-switches `ModDown(X_1)` (line 12: one half
//! ModDown, then a decomposition) into `(u_0, u_1)` and
//! `X = (φ_{g_t}(X_0 + u_0), φ_{g_t}(u_1))`: `X_0` never leaves `Q_l ∪ P` until the
//! single ModDown pair at the end (line 18).
//!
//! **Cost** (either form) against single-hoisted baby steps: one decomposition for the
//! baby steps, one per non-identity giant step, one half ModDown per non-identity giant
//! step and one ModDown pair in all, where single hoisting adds a ModDown pair per
//! non-identity baby step; the products by the diagonals run over `l + 1 + k` limbs
//! instead of `l + 1`. The hybrid engine only: its accumulators are the polynomials over
//! `Q_l ∪ P` this needs
//! ([`KeySwitchEngine::hybrid_at`](crate::rlwe::keyswitch::KeySwitchEngine::hybrid_at)).

use super::Evaluator;
use crate::math::kernels;
use crate::ring::{for_each_limb_many, Form, Poly, RingContext};
use crate::rlwe::evaluation_keys::GaloisKey;
use crate::rlwe::keyswitch::{EngineAccumulator, KeySwitcher};
use crate::{Error, Result};
use std::sync::atomic::Ordering;

/// One giant step of an Alg. 6 BSGS sum over `Q_l ∪ P`: the baby-step products of its
/// partial sum, each `(index into the baby steps, diagonal P over Q_l ∪ P)`, and the
/// rotation `S` it undergoes: a Galois element (1: none) for [`Evaluator::bsgs_extended`],
/// a slot rotation step for the schemes' and the circuits' `bsgs_extended`.
pub type ExtendedBlock<'a, P = Poly, S = usize> = (&'a [(usize, &'a P)], S);

impl Evaluator {
    /// With `nested`, `φ_{g_0}(S_0 + φ_{g_1}(S_1 + ... + φ_{g_m}(S_m)))` for the `blocks`
    /// `(terms_t, g_t)` (outermost first; Horner giant steps), else `Σ_t φ_{g_t}(S_t)`
    /// (Alg. 6's own giant steps), with `S_t = Σ_{(j, pt) ∈ terms_t} pt ⊙ φ_{h_j}(parts)`
    /// and `h = babies`: seed 003 Alg. 6, the baby rotations and the partial sums kept over
    /// `Q_l ∪ P` (the identity baby step as `(P c_0, P c_1)`; a non-identity giant step's
    /// input brought down by `P` before its decomposition). Either way one decomposition for
    /// the baby steps and one per non-identity `g_t`, a half ModDown per non-identity
    /// `g_t` and one ModDown pair. The diagonals `pt` are NTT-form polynomials over
    /// `Q_l ∪ P` (the parts' chain limbs and every special prime). Needs the hybrid engine
    /// at this level
    /// ([`Error::ParameterMismatch`] otherwise) and a key for every non-identity element.
    /// The result differs from the single-hoisted evaluation only by ModDown rounding.
    pub fn bsgs_extended(
        &self,
        parts: &[Poly],
        babies: &[usize],
        blocks: &[ExtendedBlock<'_>],
        nested: bool,
    ) -> Result<Vec<Poly>> {
        let (p, form) = self.ntt_parts(parts, 2)?;
        let ring = self.ring();
        let two_n = 2 * ring.n();
        let (ql, k) = (p[0].q_limbs(), ring.p_len());
        let ks = self.params.keyswitcher();
        if k == 0 || !ks.hybrid_at(ql) {
            return Err(Error::ParameterMismatch(
                "Alg. 6 over Q_l ∪ P needs the hybrid key-switching engine at this level".into(),
            ));
        }
        if blocks.is_empty() {
            return Err(Error::ParameterMismatch(
                "a BSGS sum needs at least one giant step".into(),
            ));
        }
        for &(terms, _) in blocks {
            for &(j, pt) in terms {
                if j >= babies.len() {
                    return Err(Error::ParameterMismatch(format!(
                        "baby step {j} of {} baby steps",
                        babies.len()
                    )));
                }
                if pt.q_limbs() != ql || pt.p_limbs() != k || pt.form() != Form::Ntt {
                    return Err(Error::LevelMismatch(format!(
                        "a diagonal over {} + {} limbs ({:?}) for parts at level {}: Alg. 6 \
                         needs NTT-form diagonals over Q_l ∪ P ({ql} + {k} limbs)",
                        pt.q_limbs(),
                        pt.p_limbs(),
                        pt.form(),
                        ql - 1
                    )));
                }
            }
        }
        let key_of = |g: usize| -> Result<Option<&GaloisKey>> {
            match g % two_n {
                1 => Ok(None),
                g => {
                    let key = self.require_galois_key(g)?;
                    self.check_galois_key_at(key, ql)?;
                    Ok(Some(key))
                }
            }
        };
        let baby_keys = babies
            .iter()
            .map(|&g| key_of(g))
            .collect::<Result<Vec<_>>>()?;
        let giant_keys = blocks
            .iter()
            .map(|&(_, g)| key_of(g))
            .collect::<Result<Vec<_>>>()?;

        // Lines 1-6: (P c_0, P c_1) and (φ_g(P c_0 + u_0), φ_g(u_1)) over Q_l ∪ P.
        let p_mod_q = ring.p_residues(ql);
        let lift = |c: &Poly| {
            let mut x = ring.scratch_poly(ql, k, Form::Ntt);
            let (q_part, p_part) = x.data_mut().split_at_mut(ql * ring.n());
            q_part.copy_from_slice(&c.data()[..ql * ring.n()]);
            p_part.fill(0);
            x.mul_scalar_assign(&p_mod_q, ring);
            x
        };
        let d = if baby_keys.iter().any(Option::is_some) {
            self.counts.add(1, 0);
            Some(ks.decompose(&p[1]))
        } else {
            None
        };
        // P c_0, shared by every baby rotation.
        let c0 = lift(&p[0]);
        let mut rotated = Vec::with_capacity(babies.len());
        for key in &baby_keys {
            rotated.push(match (key, &d) {
                (Some(key), Some(d)) => {
                    let EngineAccumulator::Hybrid([u0, u1]) = ks.multiply(d, key.key(), ql) else {
                        unreachable!("the hybrid engine at this level")
                    };
                    let g = key.galois_element();
                    let mut out = [0, 1].map(|_| ring.scratch_poly(ql, k, Form::Ntt));
                    u0.add_then_automorphism(&c0, g, ring, &mut out[0]);
                    u1.automorphism(g, ring, &mut out[1]);
                    ring.recycle(u0);
                    ring.recycle(u1);
                    out
                }
                _ => [c0.clone(), lift(&p[1])],
            });
        }
        ring.recycle(c0);
        if let Some(d) = d {
            ks.recycle(d);
        }

        // Lines 9-11 for every giant step at once (one pass over the baby rotations),
        // then lines 7-17 innermost first (nested: the value so far joins the partial sum
        // before its rotation; summed: each rotated partial sum joins the total); line 18
        // at the end.
        let sums = partial_sums(ring, &rotated, blocks, ql);
        rotated.into_iter().flatten().for_each(|q| ring.recycle(q));
        let mut x: Option<[Poly; 2]> = None;
        for (mut s, key) in sums.into_iter().zip(giant_keys).rev() {
            if nested {
                if let Some(prev) = x.take() {
                    s[0].add_assign(&prev[0], ring);
                    s[1].add_assign(&prev[1], ring);
                    prev.into_iter().for_each(|q| ring.recycle(q));
                }
            }
            let term = match key {
                None => s,
                Some(key) => {
                    let [s0, s1] = s;
                    let c1 = crate::rlwe::backend::Backend::mod_down(ring, s1);
                    self.counts.half_mod_downs.fetch_add(1, Ordering::Relaxed);
                    let d = ks.decompose(&c1);
                    self.counts.add(1, 0);
                    ring.recycle(c1);
                    let EngineAccumulator::Hybrid([u0, u1]) = ks.multiply(&d, key.key(), ql) else {
                        unreachable!("the hybrid engine at this level")
                    };
                    ks.recycle(d);
                    let g = key.galois_element();
                    let mut out = [0, 1].map(|_| ring.scratch_poly(ql, k, Form::Ntt));
                    s0.add_then_automorphism(&u0, g, ring, &mut out[0]);
                    u1.automorphism(g, ring, &mut out[1]);
                    [s0, u0, u1].into_iter().for_each(|q| ring.recycle(q));
                    out
                }
            };
            x = Some(match x.take() {
                Some(mut total) => {
                    total[0].add_assign(&term[0], ring);
                    total[1].add_assign(&term[1], ring);
                    term.into_iter().for_each(|q| ring.recycle(q));
                    total
                }
                None => term,
            });
        }
        let x = x.expect("at least one giant step");
        self.counts.add(0, 1);
        let out = ks.mod_down(EngineAccumulator::Hybrid(x));
        Ok(self.to_form(out.into(), form))
    }
}

/// Coefficients per tile of [`partial_sums`]: the baby rotations' tiles (both halves) and
/// one giant step's diagonal tiles stay in L2 while the pass runs over the giant steps.
const SUM_TILE: usize = 1 << 10;

/// Seed 003 Alg. 6 lines 9-11 for every giant step: `S_t = Σ_{(j, pt) ∈ terms_t} pt ⊙
/// rotated_j` (both halves, over `Q_l ∪ P`), in the order of `blocks`.
///
/// **Tile-outer.** Term by term over whole polynomials, a product moves the sum twice,
/// the rotation and the diagonal once per half: about 8 limbs of memory traffic per limb
/// and term, over many streams at once (latency-bound, BENCHMARKS.md "DFT baby steps
/// bought with a key budget"). Here every limb is cut into tiles of [`SUM_TILE`]
/// coefficients, and per tile every giant step's sums are lazily reduced inner products
/// ([`kernels::inner_product`]) over the baby rotations' tiles, which stay in cache
/// across the giant steps: each diagonal is read from memory once (its second half's
/// read hits the cache), each rotation once per tile, each sum written once. The words
/// are those of the term-by-term sums (both reduce exactly).
fn partial_sums(
    ring: &RingContext,
    rotated: &[[Poly; 2]],
    blocks: &[ExtendedBlock<'_>],
    ql: usize,
) -> Vec<[Poly; 2]> {
    let (n, k) = (ring.n(), ring.p_len());
    let mut sums: Vec<[Poly; 2]> = blocks
        .iter()
        .map(|_| [0, 1].map(|_| ring.scratch_poly(ql, k, Form::Ntt)))
        .collect();
    let tile = n.min(SUM_TILE);
    let mut bufs: Vec<&mut [u64]> = sums.iter_mut().flatten().map(Poly::data_mut).collect();
    for_each_limb_many(&mut bufs, n, |i, outs| {
        let q = ring.modulus(i, ql);
        let (mut a, mut b): (Vec<&[u64]>, Vec<&[u64]>) = (Vec::new(), Vec::new());
        for lo in (0..n).step_by(tile) {
            let r = lo..lo + tile;
            for (t, &(terms, _)) in blocks.iter().enumerate() {
                a.clear();
                a.extend(terms.iter().map(|&(_, pt)| &pt.limb(i)[r.clone()]));
                for half in 0..2 {
                    b.clear();
                    b.extend(
                        terms
                            .iter()
                            .map(|&(j, _)| &rotated[j][half].limb(i)[r.clone()]),
                    );
                    kernels::inner_product(&mut outs[2 * t + half][r.clone()], &a, &b, q);
                }
            }
        }
    });
    sums
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlwe::keyswitch::tests::{mixed_ring, random_ntt_over};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// The tile-outer partial sums are the term-by-term multiply-adds word for word: more
    /// terms than one kernel pass takes, a repeated baby step, an empty giant step, the
    /// special limbs (a 58-bit `P` over a 40-55-bit chain), two tiles per limb.
    #[test]
    fn partial_sums_equal_the_term_by_term_sums() {
        let ring = mixed_ring(1 << 11);
        let (ql, k) = (4, ring.p_len());
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let mut random = || random_ntt_over(&ring, ql, k, &mut rng);
        let rotated: Vec<[Poly; 2]> = (0..12).map(|_| [random(), random()]).collect();
        let pts: Vec<Poly> = (0..40).map(|_| random()).collect();
        let layout: [&[usize]; 4] = [
            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
            &[3, 3, 7],
            &[],
            &[11, 0, 5, 9, 2, 4, 6, 1, 8, 10],
        ];
        let mut next = 0;
        let terms: Vec<Vec<(usize, &Poly)>> = layout
            .iter()
            .map(|js| {
                js.iter()
                    .map(|&j| {
                        next += 1;
                        (j, &pts[next - 1])
                    })
                    .collect()
            })
            .collect();
        let blocks: Vec<ExtendedBlock<'_>> = terms.iter().map(|t| (&t[..], 1)).collect();
        let sums = partial_sums(&ring, &rotated, &blocks, ql);
        assert_eq!(sums.len(), blocks.len());
        for (s, t) in sums.iter().zip(&terms) {
            for half in 0..2 {
                let mut want = ring.zero(ql, k, Form::Ntt);
                for &(j, pt) in t {
                    want.mul_add_assign(&rotated[j][half], pt, &ring);
                }
                assert_eq!(s[half].data(), want.data());
            }
        }
    }
}
