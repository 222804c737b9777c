//! Sparse-secret encapsulation (Bossuat, Troncoso-Pastoriza, Hubaux, "Bootstrapping for
//! approximate homomorphic encryption with negligible failure-probability by using sparse-
//! secret encapsulation", eprint 2022/024; what Lattigo's default bootstrapping sets use).
//!
//! ModRaise's overflow `I` grows with the Hamming weight of the secret the ciphertext is
//! under (Eq. (1) of seed 003): about `sqrt(h/12)` per coefficient, so a dense secret
//! (`h ≈ 2N/3`) needs `K` in the hundreds and a deep EvalMod. Encapsulation keeps the
//! dense main secret `s` and runs ModRaise under an *ephemeral* sparse secret `s̃` of
//! weight `h̃` (32 in Lattigo's sets), which makes `K` about 16 at a failure probability
//! around `2^-138`:
//!
//! 1. at level 0, key-switch `s -> s̃` **in the ephemeral ring** `R_{q_0 p}`: the chain
//!    prime `q_0` and one special prime `p` of the context (the largest; more if `p` alone is
//!    smaller than `q_0`). The sparse secret appears only modulo `q_0 p` (about 121 bits),
//!    far below the modulus a weight-32 secret stays secure at;
//! 2. ModRaise under `s̃` (the overflow is bounded by `K(h̃)`);
//! 3. at the top level, key-switch `s̃ -> s` with an ordinary key of the context (its RLWE
//!    secret is the dense `s`).
//!
//! Both switches add key-switching noise only, far below the message at `Δ_0`. The
//! ephemeral secret is sampled during key generation and dropped (zeroized) with it: only
//! the two switching keys ([`EncapsulationKeys`]) remain.

use crate::ckks::{Ciphertext, CkksContext};
use crate::params::SecurityLevel;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::keyswitch::SwitchingKey;
use crate::rlwe::serialize::{check_key_writable, read_switching_key};
use crate::rlwe::HybridKey;
use crate::rlwe::{ChainBuilder, KeySwitcher, RlweParameters, SecretDistribution, SecretKey};
use crate::serialize::{err, Deserialize, ObjectTag, Reader, Serialize, Writer};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

/// The two switching keys of sparse-secret encapsulation: `s -> s̃` over `q_0 p` (the
/// ephemeral ring) and `s̃ -> s` over the context's `Q ∪ P`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncapsulationKeys {
    /// `h̃`, the Hamming weight of the ephemeral secret `s̃`.
    pub(crate) hamming_weight: usize,
    /// The switching key from `s` to `s̃` in the ephemeral ring.
    pub(crate) to_sparse: SwitchingKey,
    /// The switching key from `s̃` to `s` in the context's ring.
    pub(crate) to_dense: SwitchingKey,
}

impl EncapsulationKeys {
    /// `h̃`, the Hamming weight of the ephemeral secret the keys were generated for.
    pub fn hamming_weight(&self) -> usize {
        self.hamming_weight
    }

    /// The switching key `s -> s̃` (ephemeral ring `q_0 p`).
    pub fn to_sparse(&self) -> &SwitchingKey {
        &self.to_sparse
    }

    /// The switching key `s̃ -> s` (the context's `Q ∪ P`).
    pub fn to_dense(&self) -> &SwitchingKey {
        &self.to_dense
    }

    /// The encapsulation keys of `sk` for a fresh ephemeral secret of Hamming weight
    /// `h̃ = hamming_weight` (sampled from `rng` and dropped on return).
    /// [`generate_keys`](super::generate_keys) calls this for configurations with
    /// encapsulation.
    pub fn generate_with<R: RngCore + CryptoRng>(
        ctx: &CkksContext,
        sk: &SecretKey,
        hamming_weight: usize,
        rng: &mut R,
    ) -> Result<Self> {
        ctx.rlwe().check_ring_id(sk.ring_id(), "secret key")?;
        let eph = ephemeral_parameters(ctx, hamming_weight)?;
        // s -> s̃ in the ephemeral ring, s̃ -> s in the context's.
        let sparse = eph.generate_secret_key_with(rng);
        let dense_in_eph = SecretKey::from_coeffs(eph.ring(), sk.coeffs().to_vec());
        let to_sparse = eph.keyswitcher().generate_key_with_storage(
            dense_in_eph.ntt(),
            &sparse,
            eph.key_storage(),
            rng,
        );
        let sparse_in_ctx = SecretKey::from_coeffs(ctx.ring(), sparse.coeffs().to_vec());
        let to_dense = ctx.rlwe().keyswitcher().generate_key_with_storage(
            sparse_in_ctx.ntt(),
            sk,
            ctx.rlwe().key_storage(),
            rng,
        );
        Ok(EncapsulationKeys {
            hamming_weight,
            to_sparse,
            to_dense,
        })
    }

    /// Size of both keys in memory, in bytes.
    pub fn size_bytes(&self) -> usize {
        self.to_sparse.size_bytes() + self.to_dense.size_bytes()
    }
}

/// The special primes of the ephemeral ring: the largest of the context's, as many as it
/// takes for their product to exceed `q_0` (so that the switch adds noise of about the
/// rounding only).
fn ephemeral_special_primes(ctx: &CkksContext) -> Vec<u64> {
    let q0 = ctx.q_primes()[0];
    let mut p = ctx.rlwe().p_primes();
    p.sort_unstable_by(|a, b| b.cmp(a));
    let mut out = Vec::new();
    let mut log_p = 0.0;
    for x in p {
        out.push(x);
        log_p += (x as f64).log2();
        if log_p >= (q0 as f64).log2() {
            break;
        }
    }
    out
}

/// Checks the ephemeral secret's Hamming weight `h̃` against the ring degree: `[1, N]`.
pub(crate) fn check_weight(hamming_weight: usize, ring_degree: usize) -> Result<()> {
    if hamming_weight == 0 || hamming_weight > ring_degree {
        return Err(Error::InvalidParameters(format!(
            "the ephemeral secret's Hamming weight {hamming_weight} must be in [1, N = \
             {ring_degree}]"
        )));
    }
    Ok(())
}

/// The ephemeral ring's parameters: chain `[q_0]`, the special primes above, one digit, a
/// secret of weight `h̃` (`NotChecked`: its modulus is `q_0 p`, about 121 bits for 60- and
/// 61-bit primes, where weight-32 secrets are far inside every published bound).
pub(crate) fn ephemeral_parameters(
    ctx: &CkksContext,
    hamming_weight: usize,
) -> Result<Arc<RlweParameters>> {
    check_weight(hamming_weight, ctx.n())?;
    Ok(Arc::new(
        ChainBuilder::new(ctx.n().trailing_zeros())
            .q_primes(&ctx.q_primes()[..1])
            .p_primes(&ephemeral_special_primes(ctx))
            .dnum(1)
            .secret(SecretDistribution::HammingWeight(hamming_weight))
            .security(SecurityLevel::NotChecked)
            .build()?,
    ))
}

/// Checks keys against the context, the ephemeral parameters and the configured weight.
pub(crate) fn check(
    ctx: &CkksContext,
    eph: &RlweParameters,
    keys: &EncapsulationKeys,
    hamming_weight: usize,
) -> Result<()> {
    if keys.hamming_weight != hamming_weight {
        return Err(Error::ParameterMismatch(format!(
            "the encapsulation keys are for an ephemeral secret of weight {} and the \
             configuration asks for {hamming_weight}",
            keys.hamming_weight
        )));
    }
    eph.check_key(&keys.to_sparse)?;
    ctx.rlwe().check_key(&keys.to_dense)
}

/// A one-limb polynomial moved between two rings sharing the prime `q_0` (through the
/// coefficient form, so the rings' NTT conventions need not agree).
fn move_limb(p: &Poly, from: &RingContext, to: &RingContext) -> Poly {
    debug_assert_eq!((p.q_limbs(), p.p_limbs()), (1, 0));
    let mut c = p.clone();
    if c.form() == Form::Ntt {
        c.intt(from);
    }
    let mut out = to.zero(1, 0, Form::Coeff);
    out.limb_mut(0).copy_from_slice(c.limb(0));
    from.recycle(c);
    out.ntt(to);
    out
}

/// Step 1: the level-0 ciphertext `(c_0, c_1)` under `s` to `(c_0 + u_0, u_1)` under `s̃`,
/// `(u_0, u_1)` the switch of `c_1` in the ephemeral ring.
pub(crate) fn to_sparse(
    ctx: &CkksContext,
    eph: &RlweParameters,
    keys: &EncapsulationKeys,
    ct: &Ciphertext,
) -> Result<Ciphertext> {
    debug_assert_eq!(ct.level(), 0);
    let (ring, tiny) = (ctx.ring(), eph.ring());
    let c1 = move_limb(&ct.parts()[1], ring, tiny);
    let [u0, u1] = eph.keyswitcher().switch(&c1, &keys.to_sparse);
    let mut c0 = ct.parts()[0].clone();
    c0.add_assign(&move_limb(&u0, tiny, ring), ring);
    let c1 = move_limb(&u1, tiny, ring);
    Ciphertext::from_parts(ctx, vec![c0, c1], ct.scale().clone(), ct.slots(), None)
}

/// Step 3: a ciphertext under `s̃` (any level) back under `s`, by the key switch of its
/// `c_1` with `s̃ -> s`.
pub(crate) fn to_dense(
    eval: &crate::ckks::Evaluator,
    keys: &EncapsulationKeys,
    ct: &Ciphertext,
) -> Result<Ciphertext> {
    let ctx = eval.context();
    let [u0, u1] = eval.rlwe().key_switch(&ct.parts()[1], &keys.to_dense)?;
    let mut c0 = ct.parts()[0].clone();
    c0.add_assign(&u0, ctx.ring());
    Ciphertext::from_parts(ctx, vec![c0, u1], ct.scale().clone(), ct.slots(), None)
}

/// Layout: `h̃` (u32), the `s -> s̃` key as a hybrid key body of the ephemeral ring, then
/// the `s̃ -> s` key as a hybrid key body of the context's ring (its ordinary form, as
/// the relinearization key). Read back, the ephemeral ring is rebuilt from `h̃` and the
/// context, and both keys are checked against their rings and engines.
impl Serialize for EncapsulationKeys {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::new(21, "encapsulation keys");

    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        let eph = ephemeral_parameters(ctx, self.hamming_weight)?;
        eph.check_key(&self.to_sparse)?;
        check_key_writable(&self.to_dense, ctx.rlwe(), "encapsulation key s̃ -> s")
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        w.write_u32(self.hamming_weight as u32);
        let eph =
            ephemeral_parameters(ctx, self.hamming_weight).expect("checked by check_writable");
        eph.keyswitcher()
            .ordinary_key(&self.to_sparse)
            .write_body(w, eph.ring());
        ctx.keyswitcher()
            .ordinary_key(&self.to_dense)
            .write_body(w, ctx.ring());
    }
}

impl Deserialize for EncapsulationKeys {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        let h = r.read_u32("ephemeral Hamming weight")? as usize;
        if h == 0 || h > ctx.n() {
            return err(format!(
                "ephemeral Hamming weight {h} is not in [1, N = {}]",
                ctx.n()
            ));
        }
        // The ephemeral ring (NTT tables and base converters of q_0 and its special
        // primes): about 35 bytes per coefficient and prime, measured by
        // `tests/alloc_limits.rs`; charged at 64.
        let primes = 1 + ephemeral_special_primes(ctx).len() as u64;
        r.charge(64 * ctx.n() as u64 * primes, "the ephemeral ring")?;
        let eph = ephemeral_parameters(ctx, h)?;
        let to_sparse = SwitchingKey::Hybrid(HybridKey::read_body(r, eph.ring())?);
        eph.check_key(&to_sparse)?;
        let to_dense = read_switching_key(r, ctx.rlwe(), "encapsulation key s̃ -> s")?;
        Ok(EncapsulationKeys {
            hamming_weight: h,
            to_sparse,
            to_dense,
        })
    }
}
