//! The self-contained encoding of CKKS parameters (tag 16): a [`CkksContext`] is written
//! as its ring, chain, key-switching and secret choices, and rebuilt on read through
//! [`CkksParameters`], so every check of the builder runs again.

use super::{read_scale, write_scale};
use crate::ckks::{CkksContext, CkksParameters, Scale};
use crate::params::SecurityLevel;
use crate::ring::ring_fingerprint;
use crate::rlwe::keyswitch::{KeyStorage, KeySwitchMethod};
use crate::rlwe::serialize::chain::{
    read_dnum, read_key_storage, read_key_switching, read_ring, read_secret, read_security,
    write_key_storage, write_key_switching, write_ring, write_secret, write_security, RingFields,
};
use crate::rlwe::SecretDistribution;
use crate::serialize::{err, Deserialize, ObjectTag, ReadPolicy, Reader, Serialize, Writer};
use crate::{Error, Result};
use std::sync::Arc;

impl Serialize for CkksContext {
    /// None: the parameters are self-contained.
    type Context = ();
    const TAG: ObjectTag = ObjectTag::new(16, "CKKS parameters");

    fn write_body(&self, w: &mut Writer, _: &()) {
        write_ring(w, self.n(), &self.q_primes(), &self.p_primes());
        w.write_u16(self.dnum() as u16);
        write_secret(w, self.secret_distribution());
        write_security(w, self.security());
        write_scale(w, self.default_scale());
        write_key_switching(w, self.key_switch_method(), self.digits().is_by_bits());
        write_key_storage(w, self.key_storage());
    }

    /// The ring fingerprint of these parameters.
    fn header_fingerprint(&self, _: &()) -> u64 {
        self.ring().fingerprint()
    }
}

/// Parses and pre-validates a parameter body (everything but building the context).
struct ParsedParameters {
    n: usize,
    q: Vec<u64>,
    p: Vec<u64>,
    dnum: usize,
    secret: SecretDistribution,
    security: SecurityLevel,
    scale: f64,
    key_switching: KeySwitchMethod,
    digits_by_bits: bool,
    key_storage: KeyStorage,
}

fn parse_parameters(r: &mut Reader<'_>) -> Result<ParsedParameters> {
    let RingFields { n, q, p } = read_ring(r, "CKKS")?;
    let dnum = read_dnum(r, q.len(), "CKKS")?;
    let secret = read_secret(r, n, "CKKS")?;
    let security = read_security(r, "CKKS")?;
    let scale = read_scale(r)?;
    let f = scale.to_f64();
    if Scale::from_f64(f).as_ref() != Some(&scale) {
        return err(format!(
            "CKKS parameters: the default scale {scale} is not exactly an f64 value"
        ));
    }
    let ring = RingFields { n, q, p };
    let (key_switching, digits_by_bits) = read_key_switching(r, &ring, "CKKS")?;
    let key_storage = read_key_storage(r, "CKKS")?;
    let RingFields { n, q, p } = ring;
    Ok(ParsedParameters {
        n,
        q,
        p,
        dnum,
        secret,
        security,
        scale: f,
        key_switching,
        digits_by_bits,
        key_storage,
    })
}

impl Deserialize for CkksContext {
    /// Parses and validates the body, then builds the context with
    /// [`CkksParameters`] (explicit primes), so every check of the builder, the security
    /// check included, runs again. Builder errors are reported as
    /// [`Error::Deserialize`] naming the original error.
    fn read_body(r: &mut Reader<'_>, _: &()) -> Result<Self> {
        unshare(build(parse_parameters(r)?)?)
    }

    /// Reads the header, the body, checks that the header's fingerprint is the ring
    /// fingerprint of the primes in the body (before building anything), and builds the
    /// context.
    fn read(r: &mut Reader<'_>, _: &()) -> Result<Self> {
        let fingerprint = read_parameters_header(r)?;
        let parsed = parse_parameters(r)?;
        check_parameters_fingerprint(&parsed, fingerprint)?;
        unshare(build(parsed)?)
    }

    /// [`ckks_context_from_bytes_with`], unwrapped from its `Arc`.
    fn from_bytes_with(bytes: &[u8], _: &(), policy: &ReadPolicy) -> Result<Self> {
        unshare(ckks_context_from_bytes_with(bytes, policy)?)
    }
}

fn unshare(ctx: Arc<CkksContext>) -> Result<CkksContext> {
    Arc::try_unwrap(ctx)
        .map_err(|_| Error::Deserialize("internal error: freshly built context is shared".into()))
}

fn read_parameters_header(r: &mut Reader<'_>) -> Result<u64> {
    let h = r.read_any_header()?;
    if h.tag != <CkksContext as Serialize>::TAG {
        return err(format!(
            "wrong object type: expected {} (tag {}), found a {} (tag {})",
            <CkksContext as Serialize>::TAG.name(),
            <CkksContext as Serialize>::TAG.code(),
            h.tag.name(),
            h.tag.code()
        ));
    }
    Ok(h.fingerprint)
}

fn check_parameters_fingerprint(p: &ParsedParameters, fingerprint: u64) -> Result<()> {
    let actual = ring_fingerprint(p.n, &p.q, &p.p);
    if actual != fingerprint {
        return err(format!(
            "corrupt CKKS parameters: the header fingerprint {fingerprint:#018x} is not the \
             fingerprint {actual:#018x} of the ring degree and primes in the body"
        ));
    }
    Ok(())
}

fn build(p: ParsedParameters) -> Result<Arc<CkksContext>> {
    let params = CkksParameters::new(p.n.trailing_zeros())
        .q_primes(&p.q)
        .p_primes(&p.p);
    let params = if p.digits_by_bits {
        params.digits_by_bits()
    } else {
        params.dnum(p.dnum)
    };
    let ctx = params
        .secret(p.secret)
        .scale(p.scale)
        .security(p.security)
        .key_switching(p.key_switching)
        .key_storage(p.key_storage)
        .build()
        .map_err(|e| {
            Error::Deserialize(format!(
                "the serialized CKKS parameters do not form a valid context: {e}"
            ))
        })?;
    if ctx.dnum() != p.dnum {
        return err(format!(
            "corrupt CKKS parameters: dnum {} is recorded, but its chain's digits by bits \
             are {}",
            p.dnum,
            ctx.dnum()
        ));
    }
    Ok(ctx)
}

/// The encoding of `ctx`'s parameters (header with the ring fingerprint, and body): the
/// same as `ctx.to_bytes(&())`.
pub fn ckks_context_to_bytes(ctx: &CkksContext) -> Vec<u8> {
    // Parameters are always writable: no check to fail.
    let mut w = Writer::new();
    w.write_header(<CkksContext as Serialize>::TAG, ctx.header_fingerprint(&()));
    ctx.write_body(&mut w, &());
    w.into_bytes()
}

/// Rebuilds a context from [`ckks_context_to_bytes`]: parses and validates the
/// parameters (caps: `N <= 2^17`, at most [`MAX_LIMBS`](crate::serialize::MAX_LIMBS) chain and special primes, each a
/// distinct prime `= 1 mod 2N` below `2^62`, checked before anything is built), checks the
/// header fingerprint against them, then builds the context with the
/// [`CkksParameters`] builder (explicit primes), so its validation, the security check
/// included, runs again. Every failure is an [`Error::Deserialize`] saying what was
/// wrong.
///
/// The default [`ReadPolicy`] applies: 128-bit security at least (a blob recording a
/// weaker level, or `NotChecked`, is refused), no heuristic KLSS bound, at most
/// [`ReadPolicy::DEFAULT_MAX_ALLOC`] bytes of tables. [`ckks_context_from_bytes_with`]
/// takes the caller's policy.
pub fn ckks_context_from_bytes(bytes: &[u8]) -> Result<Arc<CkksContext>> {
    ckks_context_from_bytes_with(bytes, &ReadPolicy::default())
}

/// [`ckks_context_from_bytes`] under the caller's `policy`: the blob's security level must
/// be at least `policy.min_security`, the heuristic KLSS bound needs
/// `policy.allow_heuristic_klss`, and the context's tables must fit
/// `policy.max_alloc_bytes`.
pub fn ckks_context_from_bytes_with(bytes: &[u8], policy: &ReadPolicy) -> Result<Arc<CkksContext>> {
    let mut r = Reader::with_policy(bytes, *policy);
    let fingerprint = read_parameters_header(&mut r)?;
    let parsed = parse_parameters(&mut r)?;
    r.finish()?;
    check_parameters_fingerprint(&parsed, fingerprint)?;
    build(parsed)
}
