//! MLWE <-> RLWE conversion (seed 004 §4): `Embed` / `Extract` in NTT form, and the
//! conversions of a rank-`r` MLWE-CKKS ciphertext at degree `n` to and from a CKKS
//! ciphertext at `N = r·n` with `n/2` slots.
//!
//! **Maps** (HERMES §4.2, seed 004 §4.1), for `a ∈ R_N`, `a_j ∈ R_n`, `Y = X^r`:
//!
//! * `ι(b) = b(X^r)`: `R_n -> R_N`;
//! * `ε(c) = sum_i c_{ri} X^i`: the coefficients at multiples of `r`, `R_N -> R_n`;
//! * `π(a) = (a'_0 .. a'_{r-1})` with `a'_j[i] = a[ri + j]`, and `π^{-1}(a_0 .. a_{r-1}) =
//!   sum_j X^j a_j(X^r)`;
//! * `ρ(s) = (s_0, X^{-1} s_{r-1}, .., X^{-1} s_1)` (in `R_n`).
//!
//! `Embed(b, a) = (ι(b), π^{-1}(a))` is an RLWE ciphertext under `s' = π^{-1}(ρ(s))` with
//! `ε(ι(b) + π^{-1}(a) s') = b + <a, s>`: the MLWE message sits on the coefficients at
//! multiples of `r`, with junk between. `Extract(b', a') = (ε(b'), π(a'))` is the inverse
//! direction: an MLWE ciphertext under `s = ρ^{-1}(π(s'))` of `ε` of the RLWE message.
//!
//! **NTT form** (seed 004 Thm 4.1-4.2, restated for any slot order): let `x_K` be the
//! `N`-point transform's evaluation point at position `K` and `σ(K)` the position of
//! `x_K^r` among the `n`-point transform's points (both read off the plans, once per
//! prime). Then `ι(b)~_K = b~_{σ(K)}` (a copy) and `π^{-1}(a)~_K = sum_j x_K^j a~_{j,σ(K)}`
//! (Horner, `r - 1` products per point); inversely, with `K_0 .. K_{r-1}` the `r` points
//! over `k`, `π(a')~_{j,k} = r^{-1} sum_v a'~_{K_v} x_{K_v}^{-j}` (the inverse of the
//! Vandermonde matrix of the `r` roots `x_{K_v}`). The paper's Algorithms 3-4 are these with
//! the natural order's `σ`, evaluated by `r`-point NTTs; for `r <= 8` the direct `O(rN)`
//! products cost about as much and need no second transform. `ε` has no NTT-form
//! algorithm (the paper's either): `INTT_N`, a gather, `NTT_n`.
//!
//! **Slots.** `ι∘ε` is the trace over `X -> X^{1 + 2nt}` (`t < r`) divided by `r`: those
//! automorphisms are the rotations by multiples of `n/2` slots, so `log2 r` rotations of
//! the running sum (`ct' += Rotate(ct', (n/2)·2^k)`; Alg. 5 as printed rotates the input
//! `ct` instead, which sums only `1 + log2 r` of the `r` terms) give `r · m(X^r)`: the
//! MLWE message in `n/2` sparse slots of the RLWE ciphertext, at scale `r·Δ` (set
//! exactly; no level is used).

use super::ciphertext::Ciphertext;
use super::keys::SecretKey;
use super::params::MlweContext;
use crate::ckks::{
    Ciphertext as CkksCiphertext, CkksContext, CkksParameters, Evaluator as CkksEvaluator,
};
#[cfg(test)]
use crate::ring::Poly;
use crate::ring::{Form, RingContext};
use crate::rlwe::{GaloisKeys, SecretKey as RingSecret};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

/// Per chain prime: the `N`-point evaluation points `x_K`, their inverses, `σ(K)`, and
/// for each `n`-point position `k` the `r` positions `K` over it.
#[derive(Debug)]
struct PrimeTable {
    x: Vec<u64>,
    x_inv: Vec<u64>,
    sigma: Vec<u32>,
    fibre: Vec<u32>,
    r_inv: u64,
}

/// The bridge between an MLWE-CKKS context (degree `n`, rank `r` a power of two) and the
/// CKKS context at `N = r·n` over the same `Q` and `P` (see the module documentation).
#[derive(Debug)]
pub struct RlweBridge {
    mlwe: Arc<MlweContext>,
    ckks: Arc<CkksContext>,
    tables: Vec<PrimeTable>,
}

impl RlweBridge {
    /// The bridge for `mlwe`: builds the CKKS context at `N = r·n` (the same primes, `P`,
    /// `dnum`, default scale and security level, checked at `N`) and the NTT-form tables.
    /// Errors unless `r` is a power of two and `N <= 2^17`.
    pub fn new(mlwe: Arc<MlweContext>) -> Result<Self> {
        let (r, n) = (mlwe.rank(), mlwe.n());
        if !r.is_power_of_two() || r * n > 1 << 17 {
            return Err(Error::InvalidParameters(format!(
                "MLWE <-> RLWE conversion needs a power-of-two rank and N = r·n <= 2^17 \
                 (r = {r}, n = {n})"
            )));
        }
        let ckks = CkksParameters::new((r * n).trailing_zeros())
            .q_primes(&mlwe.q_primes())
            .p_primes(&mlwe.p_primes())
            .dnum(mlwe.dnum())
            .scale(mlwe.default_scale().to_f64())
            .secret(mlwe.secret_distribution())
            .security(mlwe.security())
            .build()?;
        let tables = (0..mlwe.ring().q_len())
            .map(|i| prime_table(mlwe.ring(), ckks.ring(), i, r))
            .collect();
        Ok(RlweBridge { mlwe, ckks, tables })
    }

    /// The CKKS context at `N = r·n`.
    pub fn ckks(&self) -> &Arc<CkksContext> {
        &self.ckks
    }

    /// The MLWE context.
    pub fn mlwe(&self) -> &Arc<MlweContext> {
        &self.mlwe
    }

    fn rank(&self) -> usize {
        self.mlwe.rank()
    }

    /// The RLWE secret `s' = π^{-1}(ρ(s))` of the CKKS context, under which embedded
    /// ciphertexts decrypt (and from which extracted ones come back under `s`).
    pub fn rlwe_secret_key(&self, sk: &SecretKey) -> Result<RingSecret> {
        self.mlwe.check_secret(sk)?;
        let (r, n) = (self.rank(), self.mlwe.n());
        let mut coeffs = vec![0i64; r * n];
        for j in 0..r {
            let s = if j == 0 {
                sk.parts[0].coeffs().to_vec()
            } else {
                // X^{-1} s_{r-j} in R_n.
                let t = sk.parts[r - j].coeffs();
                (0..n)
                    .map(|i| if i + 1 < n { t[i + 1] } else { -t[0] })
                    .collect()
            };
            for (i, &c) in s.iter().enumerate() {
                coeffs[r * i + j] = c;
            }
        }
        Ok(RingSecret::from_coeffs(self.ckks.ring(), coeffs))
    }

    /// The rotations `(n/2)·2^k` (`k < log2 r`) that [`RlweBridge::mlwe_to_rlwe`] uses.
    pub fn trace_rotations(&self) -> Vec<i64> {
        let half = (self.mlwe.n() / 2) as i64;
        (0..self.rank().trailing_zeros())
            .map(|k| half << k)
            .collect()
    }

    /// The Galois keys of [`RlweBridge::trace_rotations`] under `s'`.
    pub fn generate_trace_keys_with<R: RngCore + CryptoRng>(
        &self,
        rlwe_sk: &RingSecret,
        rng: &mut R,
    ) -> GaloisKeys {
        self.ckks
            .generate_galois_keys_with(rlwe_sk, &self.trace_rotations(), false, rng)
    }

    /// `Embed` in NTT form: the RLWE ciphertext `(ι(b), π^{-1}(a))` under `s'`, whose
    /// message carries the MLWE message on the coefficients at multiples of `r` (not yet
    /// a slot encoding: [`RlweBridge::mlwe_to_rlwe`] finishes it). Full slots, the input's
    /// scale.
    pub fn embed(&self, ct: &Ciphertext) -> Result<CkksCiphertext> {
        self.mlwe.check_ciphertext(ct)?;
        if ct.rank != self.rank() || ct.is_quadratic() {
            return Err(Error::ParameterMismatch(format!(
                "Embed takes a relinearized rank-{} ciphertext (this one: rank {}, {} parts)",
                self.rank(),
                ct.rank,
                ct.parts.len()
            )));
        }
        let ring = self.ckks.ring();
        let (r, big_n, ql) = (self.rank(), ring.n(), ct.level() + 1);
        let mut b = ring.zero(ql, 0, Form::Ntt);
        let mut a = ring.zero(ql, 0, Form::Ntt);
        for i in 0..ql {
            let t = &self.tables[i];
            let q = ring.modulus(i, ql);
            let src_b = ct.parts[0].limb(i);
            let src_a: Vec<&[u64]> = (0..r).map(|j| ct.parts[1 + j].limb(i)).collect();
            let (ob, oa) = (b.limb_mut(i), &mut a.data_mut()[i * big_n..(i + 1) * big_n]);
            for kk in 0..big_n {
                let s = t.sigma[kk] as usize;
                ob[kk] = src_b[s];
                let x = t.x[kk];
                let mut acc = src_a[r - 1][s];
                for j in (0..r - 1).rev() {
                    acc = q.add(q.mul(acc, x), src_a[j][s]);
                }
                oa[kk] = acc;
            }
        }
        Ok(CkksCiphertext {
            ring_id: ring.fingerprint(),
            parts: vec![b, a],
            scale: ct.scale.clone(),
            slots: big_n / 2,
            seed: None,
        })
    }

    /// MLWE -> RLWE (seed 004 §4.2): `Eval_{ι∘ε} ∘ Embed`, a CKKS ciphertext at `N` under
    /// `s'` with `n/2` slots holding the MLWE slots, at scale `r·Δ` (exact) and the same
    /// level. `eval` must hold [`RlweBridge::generate_trace_keys_with`]'s keys.
    pub fn mlwe_to_rlwe(&self, ct: &Ciphertext, eval: &CkksEvaluator) -> Result<CkksCiphertext> {
        let mut acc = self.embed(ct)?;
        for step in self.trace_rotations() {
            let rot = eval.rotate(&acc, step)?;
            eval.add_assign(&mut acc, &rot)?;
        }
        acc.slots = ct.slots;
        acc.scale = acc.scale.mul_integer(self.rank() as u64);
        Ok(acc)
    }

    /// `Extract` (RLWE -> MLWE, seed 004 §4.1.2): `(ε(b'), π(a'))`, a rank-`r` ciphertext
    /// under `s` of the RLWE message's coefficients at multiples of `r`, that is of its
    /// slots when it has at most `n/2` (sparse packing); the slot count and scale carry
    /// over. Errors on a ciphertext of another context or with more than `n/2` slots.
    pub fn rlwe_to_mlwe(&self, ct: &CkksCiphertext) -> Result<Ciphertext> {
        let ring = self.ckks.ring();
        if ct.ring_id != ring.fingerprint() || ct.parts.len() != 2 {
            return Err(Error::ParameterMismatch(
                "Extract takes a relinearized CKKS ciphertext of the bridge's context".into(),
            ));
        }
        if ct.slots > self.mlwe.max_slots() {
            return Err(Error::ParameterMismatch(format!(
                "a ciphertext with {} slots: the MLWE side holds n/2 = {}; only sparsely \
                 packed ciphertexts convert",
                ct.slots,
                self.mlwe.max_slots()
            )));
        }
        let small = self.mlwe.ring();
        let (r, n, ql) = (self.rank(), small.n(), ct.parts[0].q_limbs());
        // ε(b'): INTT_N, the coefficients at multiples of r, NTT_n.
        let mut bc = ct.parts[0].clone();
        bc.intt(ring);
        let mut b = small.zero(ql, 0, Form::Coeff);
        for i in 0..ql {
            let src = bc.limb(i);
            for (k, o) in b.limb_mut(i).iter_mut().enumerate() {
                *o = src[r * k];
            }
        }
        b.ntt(small);
        let mut parts = vec![b];
        parts.extend((0..r).map(|_| small.zero(ql, 0, Form::Ntt)));
        for i in 0..ql {
            let t = &self.tables[i];
            let q = small.modulus(i, ql);
            let src = ct.parts[1].limb(i);
            for k in 0..n {
                let fib = &t.fibre[k * r..(k + 1) * r];
                // pow[v] = x_{K_v}^{-j}, advanced one j at a time.
                let mut pow: Vec<u64> = vec![1; r];
                for j in 0..r {
                    let mut acc = 0u64;
                    for (v, &kk) in fib.iter().enumerate() {
                        acc = q.add(acc, q.mul(src[kk as usize], pow[v]));
                        pow[v] = q.mul(pow[v], t.x_inv[kk as usize]);
                    }
                    parts[1 + j].limb_mut(i)[k] = q.mul(acc, t.r_inv);
                }
            }
        }
        Ok(Ciphertext {
            ring_id: small.fingerprint(),
            rank: r,
            parts,
            scale: ct.scale.clone(),
            slots: ct.slots,
        })
    }
}

/// The tables of chain prime `i`: `x_K` from the `N`-point transform of `X`, `σ(K)` by
/// matching `x_K^r` with the `n`-point transform of `X`.
fn prime_table(small: &RingContext, big: &RingContext, i: usize, r: usize) -> PrimeTable {
    let ql = small.q_len();
    let q = small.modulus(i, ql);
    let (n, big_n) = (small.n(), big.n());
    let points = |ring: &RingContext, len: usize| {
        let mut x = vec![0u64; len];
        x[1] = 1; // the polynomial X (len >= 2)
        ring.ntt_plan(i, ql).forward(&mut x);
        x
    };
    let x = points(big, big_n);
    let y = points(small, n);
    let index: std::collections::HashMap<u64, u32> =
        y.iter().enumerate().map(|(k, &v)| (v, k as u32)).collect();
    let sigma: Vec<u32> = x
        .iter()
        .map(|&v| {
            *index
                .get(&q.pow(v, r as u64))
                .expect("x_K^r is an n-point evaluation point")
        })
        .collect();
    let mut fibre = vec![0u32; big_n];
    let mut fill = vec![0usize; n];
    for (kk, &s) in sigma.iter().enumerate() {
        let s = s as usize;
        fibre[s * r + fill[s]] = kk as u32;
        fill[s] += 1;
    }
    debug_assert!(fill.iter().all(|&f| f == r));
    let x_inv = x.iter().map(|&v| q.inv(v).expect("a unit")).collect();
    PrimeTable {
        x,
        x_inv,
        sigma,
        fibre,
        r_inv: q.inv(r as u64 % q.value()).expect("r < q"),
    }
}

/// The coefficient-form definitions of `Embed` and `Extract`'s `π` (for tests): `ι(b)`
/// and `π^{-1}(a)` over `Q_l` at `N`, and `π(a')` at `n`.
#[cfg(test)]
pub(crate) fn embed_coeff(b: &Poly, a: &[Poly], big_n: usize) -> (Poly, Poly) {
    let (r, n, ql) = (a.len(), b.n(), b.q_limbs());
    let mut ob = Poly::zero(big_n, ql, 0, Form::Coeff);
    let mut oa = Poly::zero(big_n, ql, 0, Form::Coeff);
    for i in 0..ql {
        for k in 0..n {
            ob.limb_mut(i)[r * k] = b.limb(i)[k];
            for (j, aj) in a.iter().enumerate() {
                oa.limb_mut(i)[r * k + j] = aj.limb(i)[k];
            }
        }
    }
    (ob, oa)
}
