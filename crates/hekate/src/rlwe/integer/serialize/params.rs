//! The self-contained encoding of BFV/BGV parameters (tag 256): an [`IntegerContext`] is
//! written as its scheme, ring, plaintext modulus, key-switching and secret choices and
//! the scheme's options, and rebuilt on read through [`IntegerParameters`], so every
//! check of the builder (the security check against the stored level included) runs
//! again.

use crate::params::SecurityLevel;
use crate::ring::ring_fingerprint;
use crate::rlwe::integer::context::{gcd, integer_fingerprint};
use crate::rlwe::integer::{
    IntegerContext, IntegerParameters, ModSwitching, MulVariant, PlaintextModulus, Scheme,
};
use crate::rlwe::keyswitch::{KeyStorage, KeySwitchMethod};
use crate::rlwe::serialize::chain::{
    read_dnum, read_key_storage, read_key_switching, read_ring, read_secret, read_security,
    write_key_storage, write_key_switching, write_ring, write_secret, write_security, RingFields,
};
use crate::rlwe::SecretDistribution;
use crate::serialize::{err, Deserialize, ObjectTag, ReadPolicy, Reader, Serialize, Writer};
use crate::{Error, Result};
use std::sync::Arc;

/// The name of a scheme in messages before the scheme byte is known.
const SCHEMES: &str = "BFV/BGV";

impl Serialize for IntegerContext {
    /// None: the parameters are self-contained.
    type Context = ();
    const TAG: ObjectTag = ObjectTag::new(0x0100, "BFV/BGV parameters");

    fn write_body(&self, w: &mut Writer, _: &()) {
        w.write_u8(match self.scheme() {
            Scheme::Bfv => 0,
            Scheme::Bgv => 1,
        });
        write_ring(w, self.n(), &self.q_primes(), &self.p_primes());
        w.write_u64(self.t());
        let rlwe = self.rlwe();
        w.write_u16(rlwe.dnum() as u16);
        write_secret(w, rlwe.secret_distribution());
        write_security(w, self.security());
        write_key_switching(w, rlwe.key_switch_method(), rlwe.digits().is_by_bits());
        write_key_storage(w, rlwe.key_storage());
        w.write_u8(match self.mod_switching() {
            ModSwitching::Auto => 0,
            ModSwitching::Manual => 1,
        });
        w.write_u8(match self.mul_variant() {
            MulVariant::Exact => 0,
            MulVariant::Hps => 1,
        });
    }

    /// The context's fingerprint (ring and `t`): the one every object made under these
    /// parameters carries.
    fn header_fingerprint(&self, _: &()) -> u64 {
        self.fingerprint()
    }
}

/// A parsed and pre-validated parameter body (everything but building the context).
struct ParsedParameters {
    scheme: Scheme,
    ring: RingFields,
    t: u64,
    dnum: usize,
    secret: SecretDistribution,
    security: SecurityLevel,
    key_switching: KeySwitchMethod,
    key_storage: KeyStorage,
    mod_switching: ModSwitching,
    mul_variant: MulVariant,
}

fn parse_parameters(r: &mut Reader<'_>) -> Result<ParsedParameters> {
    let scheme = match r.read_u8("BFV/BGV scheme")? {
        0 => Scheme::Bfv,
        1 => Scheme::Bgv,
        c => {
            return err(format!(
                "{SCHEMES} parameters: unknown scheme {c} (0 BFV, 1 BGV)"
            ))
        }
    };
    let name = scheme.name();
    let ring = read_ring(r, name)?;
    let t = r.read_u64(&format!("{name} plaintext modulus"))?;
    if !(2..PlaintextModulus::MAX).contains(&t) {
        return err(format!(
            "{name} parameters: plaintext modulus t = {t} is outside [2, 2^61)"
        ));
    }
    if let Some(q) = ring.q.iter().chain(&ring.p).find(|&&q| gcd(q, t) != 1) {
        return err(format!(
            "{name} parameters: plaintext modulus t = {t} shares a factor with the prime {q}"
        ));
    }
    // The plaintext modulus's batching tables (an NTT plan mod t and the slot order):
    // at most eight N-word tables.
    r.charge(
        ring.n as u64 * 8 * 8,
        &format!("the {name} plaintext modulus's batching tables"),
    )?;
    let dnum = read_dnum(r, ring.q.len(), name)?;
    let secret = read_secret(r, ring.n, name)?;
    let security = read_security(r, name)?;
    let (key_switching, digits_by_bits) = read_key_switching(r, &ring, name)?;
    if digits_by_bits {
        return err(format!(
            "{name} parameters: digits by bits are a CKKS option; {name} contexts use uniform \
             digits"
        ));
    }
    let key_storage = read_key_storage(r, name)?;
    let mod_switching = match r.read_u8(&format!("{name} modulus switching"))? {
        0 => ModSwitching::Auto,
        1 => ModSwitching::Manual,
        c => {
            return err(format!(
                "{name} parameters: unknown modulus switching {c} (0 automatic, 1 manual)"
            ))
        }
    };
    let mul_variant = match r.read_u8(&format!("{name} multiplication variant"))? {
        0 => MulVariant::Exact,
        1 => MulVariant::Hps,
        c => {
            return err(format!(
                "{name} parameters: unknown multiplication variant {c} (0 exact, 1 HPS)"
            ))
        }
    };
    Ok(ParsedParameters {
        scheme,
        ring,
        t,
        dnum,
        secret,
        security,
        key_switching,
        key_storage,
        mod_switching,
        mul_variant,
    })
}

fn read_parameters_header(r: &mut Reader<'_>) -> Result<u64> {
    let h = r.read_any_header()?;
    let tag = <IntegerContext as Serialize>::TAG;
    if h.tag != tag {
        return err(format!(
            "wrong object type: expected {} (tag {}), found a {} (tag {})",
            tag.name(),
            tag.code(),
            h.tag.name(),
            h.tag.code()
        ));
    }
    Ok(h.fingerprint)
}

fn check_parameters_fingerprint(p: &ParsedParameters, fingerprint: u64) -> Result<()> {
    let ring = ring_fingerprint(p.ring.n, &p.ring.q, &p.ring.p);
    let actual = integer_fingerprint(ring, p.t);
    if actual != fingerprint {
        return err(format!(
            "corrupt {} parameters: the header fingerprint {fingerprint:#018x} is not the \
             fingerprint {actual:#018x} of the ring degree, primes and plaintext modulus in \
             the body",
            p.scheme.name()
        ));
    }
    Ok(())
}

fn build(p: ParsedParameters) -> Result<Arc<IntegerContext>> {
    let name = p.scheme.name();
    IntegerParameters::new(p.scheme, p.ring.n.trailing_zeros())
        .plaintext_modulus(p.t)
        .q_primes(&p.ring.q)
        .p_primes(&p.ring.p)
        .dnum(p.dnum)
        .secret(p.secret)
        .security(p.security)
        .key_switching(p.key_switching)
        .key_storage(p.key_storage)
        .mod_switching(p.mod_switching)
        .mul_variant(p.mul_variant)
        .build()
        .map_err(|e| {
            Error::Deserialize(format!(
                "the serialized {name} parameters do not form a valid context: {e}"
            ))
        })
}

fn unshare(ctx: Arc<IntegerContext>) -> Result<IntegerContext> {
    Arc::try_unwrap(ctx)
        .map_err(|_| Error::Deserialize("internal error: freshly built context is shared".into()))
}

impl Deserialize for IntegerContext {
    /// Parses and validates the body, then builds the context with
    /// [`IntegerParameters`] (explicit primes), so every check of the builder runs again.
    fn read_body(r: &mut Reader<'_>, _: &()) -> Result<Self> {
        unshare(build(parse_parameters(r)?)?)
    }

    /// Reads the header, the body, checks that the header's fingerprint is the one of the
    /// ring and `t` in the body (before building anything), and builds the context.
    fn read(r: &mut Reader<'_>, _: &()) -> Result<Self> {
        let fingerprint = read_parameters_header(r)?;
        let parsed = parse_parameters(r)?;
        check_parameters_fingerprint(&parsed, fingerprint)?;
        unshare(build(parsed)?)
    }

    /// [`integer_context_from_bytes_with`], unwrapped from its `Arc`.
    fn from_bytes_with(bytes: &[u8], _: &(), policy: &ReadPolicy) -> Result<Self> {
        unshare(integer_context_from_bytes_with(bytes, policy)?)
    }
}

/// The encoding of `ctx`'s parameters (header with [`IntegerContext::fingerprint`], and
/// body): the same as `ctx.to_bytes(&())`.
pub fn integer_context_to_bytes(ctx: &IntegerContext) -> Vec<u8> {
    // Parameters are always writable: no check to fail.
    let mut w = Writer::new();
    w.write_header(<IntegerContext as Serialize>::TAG, ctx.fingerprint());
    ctx.write_body(&mut w, &());
    w.into_bytes()
}

/// Rebuilds a BFV or BGV context from [`integer_context_to_bytes`]: parses and validates
/// the parameters (caps: `N <= 2^17`, at most [`MAX_LIMBS`](crate::serialize::MAX_LIMBS)
/// chain and special primes, each a distinct prime `= 1 mod 2N` below `2^62`; `t` in
/// `[2, 2^61)` and coprime to every prime), checks the header fingerprint against them,
/// then builds the context with the [`IntegerParameters`] builder (explicit primes), so
/// its validation, the security check included, runs again. Batching is not stored: the
/// context derives it from `t` and `N` (a prime `t = 1 mod 2N`), as when it was built.
/// Every failure is an [`Error::Deserialize`] saying what was wrong.
///
/// The default [`ReadPolicy`] applies: 128-bit security at least, no heuristic KLSS
/// bound, at most [`ReadPolicy::DEFAULT_MAX_ALLOC`] bytes of tables;
/// [`integer_context_from_bytes_with`] takes the caller's policy.
pub fn integer_context_from_bytes(bytes: &[u8]) -> Result<Arc<IntegerContext>> {
    integer_context_from_bytes_with(bytes, &ReadPolicy::default())
}

/// [`integer_context_from_bytes`] under the caller's `policy`: the blob's security level
/// must be at least `policy.min_security`, the heuristic KLSS bound needs
/// `policy.allow_heuristic_klss`, and the context's tables must fit
/// `policy.max_alloc_bytes`.
pub fn integer_context_from_bytes_with(
    bytes: &[u8],
    policy: &ReadPolicy,
) -> Result<Arc<IntegerContext>> {
    let mut r = Reader::with_policy(bytes, *policy);
    let fingerprint = read_parameters_header(&mut r)?;
    let parsed = parse_parameters(&mut r)?;
    r.finish()?;
    check_parameters_fingerprint(&parsed, fingerprint)?;
    build(parsed)
}
