//! The ring `R_{QP} = Z_{QP}[X]/(X^N + 1)` with its RNS chain and precomputations.

use super::automorphism::NttPermutation;
use super::poly::{Form, Poly};
use super::pool::BufferPool;
use crate::math::rns::{BasisExtender, CrtReconstructor, RnsBasis};
use crate::math::{Modulus, NttPlan};
use crate::{Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The ring `Z[X]/(X^N + 1)` modulo a chain `Q = q_0 ... q_L` and special primes
/// `P = p_0 ... p_{k-1}`, with one NTT plan per prime.
///
/// A [`Poly`] lives over a prefix `q_0 .. q_{l}` of the chain, optionally followed by all
/// of `P` (during key switching). Limb `i < q_limbs` is modulo `q_i`; limb `q_limbs + j`
/// is modulo `p_j`.
#[derive(Debug)]
pub struct RingContext {
    n: usize,
    log_n: u32,
    q: RnsBasis,
    p: RnsBasis,
    ntt_q: Vec<NttPlan>,
    ntt_p: Vec<NttPlan>,
    /// `rescale[l][i] = (q_l^-1 mod q_i, Shoup)` for `i < l`.
    rescale: Vec<Vec<(u64, u64)>>,
    /// ModDown by P onto prefixes of Q (absent when P is empty).
    extender: Option<BasisExtender>,
    /// ModDown by the encryption prefix `P' = p_0 .. p_{k'-1}` of P (see
    /// [`RingContext::encryption_p_len`]), only where `P'` is shorter than P (otherwise
    /// `extender` serves).
    encryption_extender: Option<BasisExtender>,
    crt: CrtReconstructor,
    fingerprint: u64,
    permutations: Mutex<HashMap<usize, Arc<NttPermutation>>>,
}

/// The product, in bits, that the special primes of public-key encryption must reach
/// ([`RingContext::encryption_p_len`]).
pub const ENCRYPTION_P_BITS: u32 = 40;

/// Length of the shortest prefix of `p` whose product reaches `2^ENCRYPTION_P_BITS` (all of
/// `p` if it never does).
fn encryption_prefix_len(p: &[crate::math::Modulus]) -> usize {
    let mut bits = 0.0;
    for (j, m) in p.iter().enumerate() {
        bits += (m.value() as f64).log2();
        if bits >= ENCRYPTION_P_BITS as f64 {
            return j + 1;
        }
    }
    p.len()
}

/// 64-bit FNV-1a (offset basis `0xcbf29ce484222325`, prime `0x100000001b3`).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The fingerprint of the ring of degree `n` over the chain `q` and special primes `p`:
/// [`fnv1a64`] of the little-endian `u64` words `n, |q|, |p|, q.., p..`. It identifies
/// parameters; it is not a cryptographic commitment.
pub fn ring_fingerprint(n: usize, q: &[u64], p: &[u64]) -> u64 {
    let bytes: Vec<u8> = [n as u64, q.len() as u64, p.len() as u64]
        .into_iter()
        .chain(q.iter().copied())
        .chain(p.iter().copied())
        .flat_map(u64::to_le_bytes)
        .collect();
    fnv1a64(&bytes)
}

impl RingContext {
    /// A ring of degree `n` (a power of two in `[2^1, 2^17]`) over the primes `q` and `p`.
    pub fn new(n: usize, q: &[u64], p: &[u64]) -> Result<Arc<Self>> {
        if q.is_empty() {
            return Err(Error::InvalidParameters(
                "the ciphertext modulus chain Q needs at least one prime".into(),
            ));
        }
        let all: Vec<u64> = q.iter().chain(p).copied().collect();
        RnsBasis::new(&all)?; // distinctness across Q and P
        let qb = RnsBasis::new(q)?;
        let pb = RnsBasis::new(p)?;
        let ntt_q = q
            .iter()
            .map(|&qi| NttPlan::new(n, qi))
            .collect::<Result<Vec<_>>>()?;
        let ntt_p = p
            .iter()
            .map(|&pi| NttPlan::new(n, pi))
            .collect::<Result<Vec<_>>>()?;
        let rescale = (0..q.len())
            .map(|l| {
                (0..l)
                    .map(|i| {
                        let qi = qb.moduli()[i];
                        let w = qi.inv(qi.reduce(q[l])).expect("distinct primes");
                        (w, qi.shoup(w))
                    })
                    .collect()
            })
            .collect();
        let extender = (!p.is_empty()).then(|| BasisExtender::new(&qb, &pb));
        let k_enc = encryption_prefix_len(pb.moduli());
        let encryption_extender =
            (k_enc < p.len()).then(|| BasisExtender::new(&qb, &pb.slice(0..k_enc)));
        let fingerprint = ring_fingerprint(n, q, p);
        Ok(Arc::new(RingContext {
            fingerprint,
            n,
            log_n: n.trailing_zeros(),
            crt: CrtReconstructor::new(&qb),
            q: qb,
            p: pb,
            ntt_q,
            ntt_p,
            rescale,
            extender,
            encryption_extender,
            permutations: Mutex::new(HashMap::new()),
        }))
    }

    /// The ring degree `N`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// `log2 N`.
    pub fn log_n(&self) -> u32 {
        self.log_n
    }

    /// The 64-bit [`ring_fingerprint`] of these parameters. Objects made under different
    /// parameters carry different fingerprints (with overwhelming probability).
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The chain `Q`.
    pub fn q(&self) -> &RnsBasis {
        &self.q
    }

    /// The special primes `P`.
    pub fn p(&self) -> &RnsBasis {
        &self.p
    }

    /// Number of special primes `k = |P|`.
    pub fn p_len(&self) -> usize {
        self.p.len()
    }

    /// Number of chain primes `L + 1 = |Q|`.
    pub fn q_len(&self) -> usize {
        self.q.len()
    }

    /// The modulus of limb `limb` of a polynomial with `q_limbs` chain limbs.
    #[inline]
    pub fn modulus(&self, limb: usize, q_limbs: usize) -> &Modulus {
        if limb < q_limbs {
            &self.q.moduli()[limb]
        } else {
            &self.p.moduli()[limb - q_limbs]
        }
    }

    /// The NTT plan of limb `limb` of a polynomial with `q_limbs` chain limbs.
    #[inline]
    pub fn ntt_plan(&self, limb: usize, q_limbs: usize) -> &NttPlan {
        if limb < q_limbs {
            &self.ntt_q[limb]
        } else {
            &self.ntt_p[limb - q_limbs]
        }
    }

    /// The moduli of a polynomial's limbs, in order.
    pub fn moduli_of(&self, q_limbs: usize, p_limbs: usize) -> Vec<Modulus> {
        debug_assert!(p_limbs == 0 || p_limbs == self.p.len());
        self.q.moduli()[..q_limbs]
            .iter()
            .chain(&self.p.moduli()[..p_limbs])
            .copied()
            .collect()
    }

    /// A zero polynomial over `q_limbs` chain primes and `p_limbs` special primes.
    pub fn zero(&self, q_limbs: usize, p_limbs: usize, form: Form) -> Poly {
        assert!(q_limbs <= self.q.len() && p_limbs <= self.p.len());
        Poly::zero(self.n, q_limbs, p_limbs, form)
    }

    /// A polynomial from small signed coefficients (reduced into every limb), coefficient form.
    ///
    /// Secrets and noise pass through here, so nothing branches on a coefficient: where
    /// every `|c|` is below a limb's prime (always, for secrets and noise) the residue is
    /// `c + (q & sign(c))`, otherwise the branch-free [`Modulus::reduce_i64_ct`]. The one
    /// branch is on the largest magnitude, the same for every coefficient.
    pub fn from_signed(&self, coeffs: &[i64], q_limbs: usize, p_limbs: usize) -> Poly {
        assert_eq!(coeffs.len(), self.n);
        assert!(q_limbs <= self.q.len() && p_limbs <= self.p.len());
        let len = (q_limbs + p_limbs) * self.n;
        // Every word is written below: an unzeroed pool buffer will do.
        let mut out =
            Poly::from_words(self.n, q_limbs, p_limbs, Form::Coeff, self.pool().take(len));
        let largest = coeffs.iter().fold(0u64, |m, &c| m.max(c.unsigned_abs()));
        for (i, limb) in out.limbs_mut().enumerate() {
            signed_limb(coeffs, largest, self.modulus(i, q_limbs), limb);
        }
        out
    }

    /// Checks that `p` belongs to this ring: degree `N`, at most `L + 1` chain and `k`
    /// special limbs, and every residue reduced below its prime. `what` names it in the
    /// [`Error::ParameterMismatch`](crate::Error::ParameterMismatch) returned otherwise.
    pub fn check_poly(&self, p: &Poly, what: &str) -> crate::Result<()> {
        let bad = |m: String| Err(crate::Error::ParameterMismatch(format!("{what}: {m}")));
        if p.n() != self.n {
            return bad(format!(
                "degree {} differs from the ring's N = {}",
                p.n(),
                self.n
            ));
        }
        if p.q_limbs() > self.q_len() || p.p_limbs() > self.p_len() {
            return bad(format!(
                "{} chain and {} special limbs; the ring has {} and {}",
                p.q_limbs(),
                p.p_limbs(),
                self.q_len(),
                self.p_len()
            ));
        }
        for (i, limb) in p.limbs().enumerate() {
            let q = self.modulus(i, p.q_limbs()).value();
            if let Some(j) = limb.iter().position(|&x| x >= q) {
                return bad(format!(
                    "residue {j} of limb {i} is {} >= q = {q} (not reduced)",
                    limb[j]
                ));
            }
        }
        Ok(())
    }

    /// The basis extender between `Q` and `P` (ModDown), if `P` is not empty.
    pub fn extender(&self) -> Option<&BasisExtender> {
        self.extender.as_ref()
    }

    /// The number `k'` of special primes public-key encryption works over: the shortest
    /// prefix `P' = p_0 .. p_{k'-1}` of `P` with `P' >= 2^ENCRYPTION_P_BITS` (all of `P` if
    /// its product is smaller; 0 without special primes). Encryption computes `u pk + e`
    /// over `Q ∪ P'` and divides by `P'` with rounding (Lattigo's `levelP = 0`): what the
    /// division leaves of `u e_pk + e_0 + e_1 s` (below `2^23` even at `N = 2^17`) is
    /// under `2^-17`, so the fresh noise is the rounding's, as over all of `P`, for
    /// `3 (l + k')` transforms instead of `3 (l + k)` and a conversion from `k'` primes
    /// instead of `k` (a select for `k' = 1`).
    pub fn encryption_p_len(&self) -> usize {
        self.encryption_extender()
            .map_or(0, |e| e.b_to_c().from_len())
    }

    /// The basis extender between `Q` and the encryption prefix `P'`
    /// ([`RingContext::encryption_p_len`]; [`RingContext::extender`] itself when `P'` is
    /// all of `P`), if `P` is not empty.
    pub fn encryption_extender(&self) -> Option<&BasisExtender> {
        self.encryption_extender.as_ref().or(self.extender.as_ref())
    }

    /// The extender that divides by the first `p_limbs` special primes: all of `P`, or the
    /// encryption prefix `P'`.
    ///
    /// # Panics
    /// For any other count (no other ModDown is precomputed).
    pub(crate) fn extender_for(&self, p_limbs: usize) -> &BasisExtender {
        let ext = if p_limbs == self.p_len() {
            self.extender()
        } else if p_limbs == self.encryption_p_len() {
            self.encryption_extender()
        } else {
            None
        };
        ext.unwrap_or_else(|| panic!("no ModDown by {p_limbs} of {} special primes", self.p_len()))
    }

    /// CRT reconstruction over `Q`.
    pub fn crt(&self) -> &CrtReconstructor {
        &self.crt
    }

    /// The residues of the integer `k` modulo the first `q_limbs` chain primes (the
    /// per-limb scalars of a product by `k`).
    pub fn integer_residues(&self, k: i64, q_limbs: usize) -> Vec<u64> {
        (0..q_limbs)
            .map(|i| self.modulus(i, q_limbs).reduce_i64(k))
            .collect()
    }

    /// `[P]_{q_i}` for the first `q_limbs` chain primes, then a zero per special prime: the
    /// per-limb scalars that take a polynomial over `Q_l` (copied into a polynomial over
    /// `Q_l ∪ P`) to `P` times it, the identity term of a key switch kept over `Q_l ∪ P`.
    pub fn p_residues(&self, q_limbs: usize) -> Vec<u64> {
        let p = self.p.moduli();
        (0..q_limbs)
            .map(|i| {
                let q = self.modulus(i, q_limbs);
                p.iter()
                    .fold(1u64, |acc, pj| q.mul(acc, q.reduce(pj.value())))
            })
            .chain(std::iter::repeat_n(0, p.len()))
            .collect()
    }

    /// `(q_l^-1 mod q_i, Shoup companion)` for `i < l`: the constants of dividing by `q_l`.
    pub fn rescale_constants(&self, l: usize) -> &[(u64, u64)] {
        &self.rescale[l]
    }

    /// The process-wide pool of scratch buffers ([`BufferPool`]); `Poly` drops feed it.
    pub(crate) fn pool(&self) -> &'static BufferPool {
        super::pool::global()
    }

    /// A polynomial with **unspecified contents** from the pool (callers overwrite every
    /// limb); give it back with [`RingContext::recycle`] when done.
    pub fn scratch_poly(&self, q_limbs: usize, p_limbs: usize, form: Form) -> Poly {
        let data = self.pool().take(self.n * (q_limbs + p_limbs));
        Poly::from_words(self.n, q_limbs, p_limbs, form, data)
    }

    /// A zero polynomial from the pool (its zeroed buffer): an accumulator or a zero part
    /// without a fresh allocation.
    pub fn scratch_zero(&self, q_limbs: usize, p_limbs: usize, form: Form) -> Poly {
        let data = self.pool().take_zeroed(self.n * (q_limbs + p_limbs));
        Poly::from_words(self.n, q_limbs, p_limbs, form, data)
    }

    /// Returns a polynomial's memory to the pool.
    pub fn recycle(&self, p: Poly) {
        self.pool().recycle(p.into_words());
    }

    /// The NTT-form index permutation of `X -> X^k` (cached per `k`).
    pub fn ntt_permutation(&self, k: usize) -> Arc<NttPermutation> {
        let k = k % (2 * self.n);
        let mut cache = self
            .permutations
            .lock()
            .expect("permutation cache poisoned");
        cache
            .entry(k)
            .or_insert_with(|| Arc::new(NttPermutation::new(self.n, k)))
            .clone()
    }
}

/// One limb of [`RingContext::from_signed`]: `limb[j] = coeffs[j] mod q`, without branches
/// on the coefficients (they may be secret), given `largest >= max |coeffs[j]|` (public:
/// `1` for a ternary secret).
#[inline]
pub(crate) fn signed_limb(coeffs: &[i64], largest: u64, m: &Modulus, limb: &mut [u64]) {
    let q = m.value();
    if largest < q {
        for (o, &c) in limb.iter_mut().zip(coeffs) {
            *o = (c as u64).wrapping_add(q & ((c >> 63) as u64));
        }
    } else {
        for (o, &c) in limb.iter_mut().zip(coeffs) {
            *o = m.reduce_i64_ct(c);
        }
    }
}
