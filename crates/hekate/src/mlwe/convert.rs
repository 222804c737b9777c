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
//! the natural order's `σ`, evaluated by `r`-point NTTs; here likewise, with each fibre
//! ordered by powers of a primitive `r`-th root `ω` (`x_{K_e} = x_{K_0} ω^e`) and stored
//! in bit-reversed order, so that `π^{-1}` is a twist by `x_{K_0}^j` and an `r`-point DFT
//! by decimation in frequency, and `π` a DFT by decimation in time and a twist by
//! `r^{-1} x_{K_0}^{-j}` (`(r/2) log2 r` butterflies per fibre, Shoup products). **`ε` in NTT form**, which seed 004 says it could not
//! find: `ε(b') = π(b')_0` (the coefficients at multiples of `r` are the first
//! component of `π`), so `ε(b')~_k = r^{-1} sum_e b'~_{K_e}`, one sum per fibre — no
//! transform at all.
//!
//! **Slots.** `ι∘ε` is the trace over `X -> X^{1 + 2nt}` (`t < r`) divided by `r`: those
//! automorphisms are the rotations by multiples of `n/2` slots, so `log2 r` rotations of
//! the running sum (`ct' += Rotate(ct', (n/2)·2^k)`; Alg. 5 as printed rotates the input
//! `ct` instead, which sums only `1 + log2 r` of the `r` terms) give `r · m(X^r)`: the
//! MLWE message in `n/2` sparse slots of the RLWE ciphertext, at scale `r·Δ` (set
//! exactly; no level is used).
//!
//! **Gain.** Each of those rotations adds key-switching noise of a fixed size (the
//! gadget's `sum_j d_j e_j / P`, large when a digit `Q_j` is about `P` as in seed 004's
//! sets, and the ModDown rounding), which against a message at `r·Δ` cost 1.3 bits at
//! N = 2^15 (Sets II and III, measured against the direct MLWE decryption). Above level 0
//! the embedded ciphertext is therefore first multiplied by `2^g` ([`TRACE_GAIN_BITS`],
//! fewer when `q_1 ⋯ q_l < 2^g r`): an exact integer product that costs no level and
//! next to no time, and makes that noise `2^g` times smaller against the message. The
//! result's scale is `2^g·r·Δ` (exact), and every message that fits level 0 at scale `Δ`
//! (`|m| Δ < q_0 / 2`) still fits. At level 0 there is no room: `g = 0`, and the
//! conversion loses those bits.

use super::ciphertext::Ciphertext;
use super::keys::SecretKey;
use super::params::MlweContext;
use crate::ckks::{
    Ciphertext as CkksCiphertext, CkksContext, CkksParameters, Evaluator as CkksEvaluator,
};
use crate::math::primes::primitive_root_of_unity;
use crate::ring::{for_each_limb_many, for_each_limb_pair, Form, Poly, RingContext};
use crate::rlwe::{GaloisKeys, SecretKey as RingSecret};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

/// The gain `2^g` of [`RlweBridge::mlwe_to_rlwe`] above level 0, in bits (see the module
/// documentation): 8 bits make the trace's key-switching noise negligible (measured at
/// Set-III: 26.7, 28.1, 28.5, 28.56 bits for g = 0, 2, 4, 8 against 28.56 direct).
pub const TRACE_GAIN_BITS: u32 = 8;

/// Per chain prime, one entry `t` per `n`-point position `k = point[t]`: its fibre, the
/// `r` positions `K_e` of the `N`-point transform with `x_{K_e}^r = y_k`, ordered so that
/// `x_{K_e} = x_{K_0} ω^e` for a fixed primitive `r`-th root `ω` and stored at
/// `bitrev(e)`; the twists `x_{K_0}^j` (Embed) and `r^{-1} x_{K_0}^{-j}` (Extract); the
/// powers of `ω` and `ω^{-1}` (the butterflies' twiddles). The entries run in the order of
/// their fibres' first `N`-point position, so that a pass over them reads and writes the
/// `N`-point limbs in order (the fibres are runs of `r` adjacent positions in hekate's
/// transform order) and scatters only over the `n`-point limbs, `r` times smaller: in
/// `k` order the `N`-point accesses jump by whole fibres and miss the cache (Extract at
/// N = 2^15 ran at about 75 ns per fibre that way). Constants carry their Shoup
/// companions.
#[derive(Debug)]
struct PrimeTable {
    point: Vec<u32>,
    fibre: Vec<u32>,
    up: Vec<u64>,
    up_shoup: Vec<u64>,
    down: Vec<u64>,
    down_shoup: Vec<u64>,
    omega: Vec<u64>,
    omega_shoup: Vec<u64>,
    omega_inv: Vec<u64>,
    omega_inv_shoup: Vec<u64>,
}

/// `R`-point DFT `X_e = sum_j a_j w^{je}` in place by decimation in frequency: natural
/// input, bit-reversed output (`a[bitrev(e)] = X_e`); `w[t]`, `ws[t]`: powers of the root.
#[inline(always)]
fn dft_dif<const R: usize>(a: &mut [u64; R], w: &[u64], ws: &[u64], q: &crate::math::Modulus) {
    let mut m = R;
    while m >= 2 {
        let half = m / 2;
        let stride = R / m;
        for s in (0..R).step_by(m) {
            for t in 0..half {
                let (u, v) = (a[s + t], a[s + t + half]);
                a[s + t] = q.add(u, v);
                let d = q.sub(u, v);
                a[s + t + half] = if t == 0 {
                    d
                } else {
                    q.mul_shoup(d, w[t * stride], ws[t * stride])
                };
            }
        }
        m = half;
    }
}

/// `R`-point DFT by decimation in time: bit-reversed input, natural output.
#[inline(always)]
fn dft_dit<const R: usize>(a: &mut [u64; R], w: &[u64], ws: &[u64], q: &crate::math::Modulus) {
    let mut m = 2;
    while m <= R {
        let half = m / 2;
        let stride = R / m;
        for s in (0..R).step_by(m) {
            for t in 0..half {
                let u = a[s + t];
                let v = if t == 0 {
                    a[s + t + half]
                } else {
                    q.mul_shoup(a[s + t + half], w[t * stride], ws[t * stride])
                };
                a[s + t] = q.add(u, v);
                a[s + t + half] = q.sub(u, v);
            }
        }
        m *= 2;
    }
}

/// One limb of `Embed`: `ob[K] = b~_{σ(K)}`, `oa = π^{-1}(a)~` (`R` = the rank).
fn embed_limb<const R: usize>(
    t: &PrimeTable,
    q: &crate::math::Modulus,
    src_b: &[u64],
    src_a: &[&[u64]],
    ob: &mut [u64],
    oa: &mut [u64],
) {
    for (e, &k) in t.point.iter().enumerate() {
        let k = k as usize;
        let fib = &t.fibre[e * R..(e + 1) * R];
        let (up, ups) = (&t.up[e * R..(e + 1) * R], &t.up_shoup[e * R..(e + 1) * R]);
        // Twist a_{j,k} by x_{K_0}^j, then the R-point DFT over the fibre.
        let mut buf = [0u64; R];
        buf[0] = src_a[0][k];
        for j in 1..R {
            buf[j] = q.mul_shoup(src_a[j][k], up[j], ups[j]);
        }
        dft_dif(&mut buf, &t.omega, &t.omega_shoup, q);
        for (&kk, &v) in fib.iter().zip(&buf) {
            ob[kk as usize] = src_b[k];
            oa[kk as usize] = v;
        }
    }
}

/// One limb of `Extract`: `out_b = ε(b')~`, `out_a[j] = π(a')~_j`.
fn extract_limb<const R: usize>(
    t: &PrimeTable,
    q: &crate::math::Modulus,
    src_b: &[u64],
    src_a: &[u64],
    out_b: &mut [u64],
    out_a: &mut [&mut [u64]],
) {
    for (e, &k) in t.point.iter().enumerate() {
        let k = k as usize;
        let fib = &t.fibre[e * R..(e + 1) * R];
        let (dn, dns) = (
            &t.down[e * R..(e + 1) * R],
            &t.down_shoup[e * R..(e + 1) * R],
        );
        let mut buf = [0u64; R];
        let mut sum_b = 0u64;
        for (g, &kk) in buf.iter_mut().zip(fib) {
            sum_b = q.add(sum_b, src_b[kk as usize]);
            *g = src_a[kk as usize];
        }
        out_b[k] = q.mul_shoup(sum_b, dn[0], dns[0]);
        dft_dit(&mut buf, &t.omega_inv, &t.omega_inv_shoup, q);
        for (j, out) in out_a.iter_mut().enumerate() {
            out[k] = q.mul_shoup(buf[j], dn[j], dns[j]);
        }
    }
}

/// Runs `$f::<R>` for the rank `$r` (a power of two up to 16).
macro_rules! by_rank {
    ($r:expr, $f:ident, $($arg:expr),*) => {
        match $r {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            4 => $f::<4>($($arg),*),
            8 => $f::<8>($($arg),*),
            16 => $f::<16>($($arg),*),
            _ => unreachable!("the bridge takes power-of-two ranks up to MAX_RANK"),
        }
    };
}

fn bitrev(e: usize, log_r: u32) -> usize {
    if log_r == 0 {
        0
    } else {
        e.reverse_bits() >> (usize::BITS - log_r)
    }
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
        let mut b = ring.scratch_poly(ql, 0, Form::Ntt); // every word is written below
        let mut a = ring.scratch_poly(ql, 0, Form::Ntt);
        for_each_limb_pair(b.data_mut(), a.data_mut(), big_n, |i, ob, oa| {
            let q = ring.modulus(i, ql);
            let src_a: Vec<&[u64]> = (0..r).map(|j| ct.parts[1 + j].limb(i)).collect();
            by_rank!(
                r,
                embed_limb,
                &self.tables[i],
                q,
                ct.parts[0].limb(i),
                &src_a,
                ob,
                oa
            );
        });
        Ok(CkksCiphertext {
            ring_id: ring.fingerprint(),
            parts: vec![b, a],
            scale: ct.scale.clone(),
            slots: big_n / 2,
            seed: None,
        })
    }

    /// MLWE -> RLWE (seed 004 §4.2): `Eval_{ι∘ε} ∘ Embed`, a CKKS ciphertext at `N` under
    /// `s'` with `n/2` slots holding the MLWE slots, at the same level and at scale
    /// `2^g·r·Δ` (exact; `g` = [`RlweBridge::trace_gain_bits`] of the level, 0 at level 0;
    /// the gain keeps the trace's key-switching noise from costing precision, see the
    /// module documentation). `eval` must hold [`RlweBridge::generate_trace_keys_with`]'s
    /// keys.
    pub fn mlwe_to_rlwe(&self, ct: &Ciphertext, eval: &CkksEvaluator) -> Result<CkksCiphertext> {
        let mut acc = self.embed(ct)?;
        let g = self.trace_gain_bits(ct.level());
        if g > 0 {
            eval.mul_integer_assign(&mut acc, 1 << g)?;
        }
        for step in self.trace_rotations() {
            let rot = eval.rotate(&acc, step)?;
            eval.add_assign(&mut acc, &rot)?;
        }
        acc.slots = ct.slots;
        acc.scale = acc.scale.mul_integer((self.rank() as u64) << g);
        Ok(acc)
    }

    /// The gain `g` (bits) that [`RlweBridge::mlwe_to_rlwe`] applies at `level`: the
    /// largest `g <=` [`TRACE_GAIN_BITS`] with `2^g r <= q_1 ⋯ q_level`, so that a message
    /// that fits level 0 at the input's scale fits the output's `2^g r` times larger one;
    /// 0 at level 0.
    pub fn trace_gain_bits(&self, level: usize) -> u32 {
        let room: f64 = self.mlwe.q_primes()[1..=level.min(self.mlwe.max_level())]
            .iter()
            .map(|&q| (q as f64).log2())
            .sum::<f64>()
            - (self.rank() as f64).log2();
        room.floor().clamp(0.0, TRACE_GAIN_BITS as f64) as u32
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
        let (r, ql) = (self.rank(), ct.parts[0].q_limbs());
        // ε(b') = π(b')_0 and π(a'), both per fibre: with the fibre of k ordered as
        // x_{K_e} = x_{K_0} ω^e, π(a')~_{j,k} = r^{-1} x_{K_0}^{-j} sum_e a'~_{K_e} ω^{-je}.
        let mut parts: Vec<Poly> = (0..=r)
            .map(|_| small.scratch_poly(ql, 0, Form::Ntt)) // every word is written below
            .collect();
        let mut bufs: Vec<&mut [u64]> = parts.iter_mut().map(|p| p.data_mut()).collect();
        for_each_limb_many(&mut bufs, small.n(), |i, outs| {
            let q = small.modulus(i, ql);
            let (src_b, src_a) = (ct.parts[0].limb(i), ct.parts[1].limb(i));
            let (out_b, out_a) = outs.split_first_mut().expect("r + 1 parts");
            by_rank!(
                r,
                extract_limb,
                &self.tables[i],
                q,
                src_b,
                src_a,
                out_b,
                out_a
            );
        });
        Ok(Ciphertext {
            ring_id: small.fingerprint(),
            rank: r,
            parts,
            scale: ct.scale.clone(),
            slots: ct.slots,
            seed: None,
        })
    }
}

/// The tables of chain prime `i`: `x_K` from the `N`-point transform of `X`, `σ(K)` by
/// matching `x_K^r` with the `n`-point transform of `X`, each fibre ordered by the
/// discrete logarithm base `ω` of `x_K / x_{K_0}`.
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
    let omega = primitive_root_of_unity(q.value(), r as u64).expect("r divides q - 1");
    let omega_inv = q.inv(omega).expect("a unit");
    let pows = |w: u64| (0..r as u64).map(|e| q.pow(w, e)).collect::<Vec<_>>();
    let (omega_pows, omega_inv_pows) = (pows(omega), pows(omega_inv));
    let log_r = r.trailing_zeros();
    let mut first: Vec<Option<u32>> = vec![None; n];
    let mut fibre = vec![u32::MAX; big_n];
    for (kk, &s) in sigma.iter().enumerate() {
        let s = s as usize;
        let k0 = *first[s].get_or_insert(kk as u32);
        let ratio = q.mul(x[kk], q.inv(x[k0 as usize]).expect("a unit"));
        let e = omega_pows
            .iter()
            .position(|&w| w == ratio)
            .expect("x_K / x_{K_0} is an r-th root of unity");
        fibre[s * r + bitrev(e, log_r)] = kk as u32;
    }
    debug_assert!(fibre.iter().all(|&f| f != u32::MAX));
    // Entries in the order of their fibres' first N-point position.
    let mut point: Vec<u32> = (0..n as u32).collect();
    point.sort_by_key(|&k| {
        fibre[k as usize * r..(k as usize + 1) * r]
            .iter()
            .min()
            .copied()
    });
    let fibre: Vec<u32> = point
        .iter()
        .flat_map(|&k| fibre[k as usize * r..(k as usize + 1) * r].iter().copied())
        .collect();
    let r_inv = q.inv(r as u64 % q.value()).expect("r < q");
    let (mut up, mut down) = (vec![0u64; big_n], vec![0u64; big_n]);
    for e in 0..n {
        let x0 = x[fibre[e * r] as usize];
        let x0_inv = q.inv(x0).expect("a unit");
        let (mut u, mut d) = (1u64, r_inv);
        for j in 0..r {
            up[e * r + j] = u;
            down[e * r + j] = d;
            u = q.mul(u, x0);
            d = q.mul(d, x0_inv);
        }
    }
    let shoup = |v: &[u64]| v.iter().map(|&w| q.shoup(w)).collect::<Vec<_>>();
    PrimeTable {
        point,
        fibre,
        up_shoup: shoup(&up),
        down_shoup: shoup(&down),
        omega_shoup: shoup(&omega_pows),
        omega_inv_shoup: shoup(&omega_inv_pows),
        up,
        down,
        omega: omega_pows,
        omega_inv: omega_inv_pows,
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
