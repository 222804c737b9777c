//! The self-contained encoding of MLWE-CKKS parameters (tag `0x0200`): an
//! [`MlweContext`] is written as its ring, rank, digits, DPad-HE settings, secret,
//! security level and default scale, and rebuilt on read through [`MlweParameters`] with
//! the explicit primes, so every check of the builder (the security check included) runs
//! again.

use crate::ckks::serialize::{read_scale, write_scale};
use crate::ckks::Scale;
use crate::mlwe::{mlwe_fingerprint, MlweContext, MlweParameters, MAX_RANK};
use crate::params::SecurityLevel;
use crate::ring::ring_fingerprint;
use crate::rlwe::serialize::chain::{
    read_dnum, read_primes, read_ring, read_secret, read_security, write_ring, write_secret,
    write_security, RingFields,
};
use crate::rlwe::SecretDistribution;
use crate::serialize::{
    err, Deserialize, ObjectTag, ReadPolicy, Reader, Serialize, Writer, MAX_LIMBS,
};
use crate::{Error, Result};
use std::sync::Arc;

/// DPad-HE flag of the parameter body.
const DPAD_NONE: u8 = 0;
const DPAD_ON: u8 = 1;

impl Serialize for MlweContext {
    /// None: the parameters are self-contained.
    type Context = ();
    const TAG: ObjectTag = ObjectTag::new(0x0200, "MLWE parameters");

    fn write_body(&self, w: &mut Writer, _: &()) {
        write_ring(w, self.n(), &self.q_primes(), &self.p_primes());
        w.write_u16(self.rank() as u16);
        w.write_u16(self.dnum() as u16);
        match self.dpad() {
            None => w.write_u8(DPAD_NONE),
            Some(d) => {
                w.write_u8(DPAD_ON);
                w.write_u16(d.rank_hat() as u16);
                let p_hat = self.p_hat_primes().unwrap_or_default();
                w.write_u16(p_hat.len() as u16);
                for p in p_hat {
                    w.write_u64(p);
                }
                w.write_u16(d.mu() as u16);
            }
        }
        write_secret(w, self.secret_distribution());
        write_security(w, self.security());
        write_scale(w, self.default_scale());
    }

    /// The MLWE fingerprint of these parameters ([`MlweContext::fingerprint`]).
    fn header_fingerprint(&self, _: &()) -> u64 {
        self.fingerprint()
    }
}

/// A parsed and pre-validated parameter body (everything but building the context).
struct ParsedParameters {
    n: usize,
    q: Vec<u64>,
    p: Vec<u64>,
    rank: usize,
    dnum: usize,
    /// `(r̂, P̂, μ)`.
    dpad: Option<(usize, Vec<u64>, usize)>,
    secret: SecretDistribution,
    security: SecurityLevel,
    scale: f64,
}

impl ParsedParameters {
    /// The fingerprint of the parsed parameters ([`mlwe_fingerprint`]).
    fn fingerprint(&self) -> u64 {
        mlwe_fingerprint(
            ring_fingerprint(self.n, &self.q, &self.p),
            self.rank,
            self.dnum,
            self.dpad
                .as_ref()
                .map(|(rh, ph, mu)| (*rh, *mu, ring_fingerprint(self.n, &self.q, ph))),
        )
    }
}

fn parse_parameters(r: &mut Reader<'_>) -> Result<ParsedParameters> {
    let RingFields { n, q, p } = read_ring(r, "MLWE")?;
    // Beyond the ring's tables (charged by `read_ring`): the encoder's (`n/2` slots) and
    // the context's small vectors (measured by `tests/alloc_limits.rs`).
    r.charge((n as u64) * 64 + 4096, "the MLWE context's encoder tables")?;
    let rank = r.read_u16("MLWE rank")? as usize;
    if !(1..=MAX_RANK).contains(&rank) {
        return err(format!(
            "MLWE parameters: rank r = {rank} is not in [1, {MAX_RANK}]"
        ));
    }
    let dnum = read_dnum(r, q.len(), "MLWE")?;
    let dpad = match r.read_u8("MLWE DPad-HE flag")? {
        DPAD_NONE => None,
        DPAD_ON => {
            let rank_hat = r.read_u16("MLWE DPad-HE rank r̂")? as usize;
            if rank_hat <= rank || rank_hat > 2 * rank {
                return err(format!(
                    "MLWE parameters: DPad-HE rank r̂ = {rank_hat} is not in (r, 2r] = ({rank}, {}]",
                    2 * rank
                ));
            }
            let k_hat = r.read_u16("MLWE DPad-HE special prime count")? as usize;
            if !(1..=MAX_LIMBS).contains(&k_hat) {
                return err(format!(
                    "MLWE parameters: {k_hat} DPad-HE special primes; expected between 1 and \
                     {MAX_LIMBS}"
                ));
            }
            // The second ring over Q ∪ P̂ and its key-switching tables, as for the first.
            r.charge(
                ((q.len() + k_hat) as u64) * (n as u64) * 8 * 8,
                "the MLWE context's DPad-HE tables",
            )?;
            let mut seen: Vec<u64> = q.iter().chain(&p).copied().collect();
            let p_hat = read_primes(r, k_hat, n, &mut seen, "MLWE DPad-HE special prime")?;
            let mu = r.read_u16("MLWE DPad-HE μ")? as usize;
            if !(1..=q.len()).contains(&mu) {
                return err(format!(
                    "MLWE parameters: DPad-HE μ = {mu} is not in [1, L + 1 = {}]",
                    q.len()
                ));
            }
            Some((rank_hat, p_hat, mu))
        }
        f => {
            return err(format!(
                "MLWE parameters: DPad-HE flag {f} is not 0 (none) or 1 (enabled)"
            ))
        }
    };
    let secret = read_secret(r, n, "MLWE")?;
    let security = read_security(r, "MLWE")?;
    let scale = read_scale(r)?;
    let f = scale.to_f64();
    if Scale::from_f64(f).as_ref() != Some(&scale) {
        return err(format!(
            "MLWE parameters: the default scale {scale} is not exactly an f64 value"
        ));
    }
    Ok(ParsedParameters {
        n,
        q,
        p,
        rank,
        dnum,
        dpad,
        secret,
        security,
        scale: f,
    })
}

impl Deserialize for MlweContext {
    /// Parses and validates the body, then builds the context with [`MlweParameters`]
    /// (explicit primes), so every check of the builder runs again. Builder errors are
    /// reported as [`Error::Deserialize`] naming the original error.
    fn read_body(r: &mut Reader<'_>, _: &()) -> Result<Self> {
        unshare(build(parse_parameters(r)?)?)
    }

    /// Reads the header and the body, checks that the header's fingerprint is the one of
    /// the parameters in the body (before building anything), and builds the context.
    fn read(r: &mut Reader<'_>, _: &()) -> Result<Self> {
        let fingerprint = read_parameters_header(r)?;
        let parsed = parse_parameters(r)?;
        check_parameters_fingerprint(&parsed, fingerprint)?;
        unshare(build(parsed)?)
    }

    /// [`mlwe_context_from_bytes_with`], unwrapped from its `Arc`.
    fn from_bytes_with(bytes: &[u8], _: &(), policy: &ReadPolicy) -> Result<Self> {
        unshare(mlwe_context_from_bytes_with(bytes, policy)?)
    }
}

fn unshare(ctx: Arc<MlweContext>) -> Result<MlweContext> {
    Arc::try_unwrap(ctx).map_err(|_| {
        Error::Deserialize("internal error: freshly built MLWE context is shared".into())
    })
}

fn read_parameters_header(r: &mut Reader<'_>) -> Result<u64> {
    let h = r.read_any_header()?;
    let tag = <MlweContext as Serialize>::TAG;
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
    let actual = p.fingerprint();
    if actual != fingerprint {
        return err(format!(
            "corrupt MLWE parameters: the header fingerprint {fingerprint:#018x} is not the \
             fingerprint {actual:#018x} of the parameters in the body"
        ));
    }
    Ok(())
}

fn build(p: ParsedParameters) -> Result<Arc<MlweContext>> {
    let want = p.fingerprint();
    let mut b = MlweParameters::new(p.n.trailing_zeros(), p.rank)
        .q_primes(&p.q)
        .p_primes(&p.p)
        .dnum(p.dnum)
        .secret(p.secret)
        .scale(p.scale)
        .security(p.security);
    if let Some((rank_hat, p_hat, mu)) = &p.dpad {
        b = b.dpad_primes(*rank_hat, p_hat, Some(*mu));
    }
    let ctx = b.build().map_err(|e| {
        Error::Deserialize(format!(
            "the serialized MLWE parameters do not form a valid context: {e}"
        ))
    })?;
    if ctx.fingerprint() != want {
        return err(
            "internal error: the rebuilt MLWE context differs from the serialized parameters"
                .into(),
        );
    }
    Ok(ctx)
}

/// The encoding of `ctx`'s parameters (header with the MLWE fingerprint, and body): the
/// same as `ctx.to_bytes(&())`.
pub fn mlwe_context_to_bytes(ctx: &MlweContext) -> Vec<u8> {
    // Parameters are always writable: no check to fail.
    let mut w = Writer::new();
    w.write_header(<MlweContext as Serialize>::TAG, ctx.header_fingerprint(&()));
    ctx.write_body(&mut w, &());
    w.into_bytes()
}

/// Rebuilds a context from [`mlwe_context_to_bytes`]: parses and validates the
/// parameters (caps: `n <= 2^17`, at most [`MAX_LIMBS`] primes per modulus, each a
/// distinct prime `= 1 mod 2n` below `2^62`, a rank in `[1, MAX_RANK]`, DPad-HE's
/// `r̂` in `(r, 2r]`; checked before anything is built), checks the header fingerprint
/// against them, then builds the context with the [`MlweParameters`] builder (explicit
/// primes, `d` and `μ`), so its validation runs again: primes `1 mod 2N'` for the
/// conversion ring, the digits covered by `P` (and `P̂`), and the security check at
/// `r·n` (and `r̂·n`). Every failure is an [`Error::Deserialize`] saying what was wrong.
///
/// The default [`ReadPolicy`] applies: 128-bit security at least (a blob recording a
/// weaker level, or `NotChecked`, is refused) and at most
/// [`ReadPolicy::DEFAULT_MAX_ALLOC`] bytes of tables. [`mlwe_context_from_bytes_with`]
/// takes the caller's policy.
pub fn mlwe_context_from_bytes(bytes: &[u8]) -> Result<Arc<MlweContext>> {
    mlwe_context_from_bytes_with(bytes, &ReadPolicy::default())
}

/// [`mlwe_context_from_bytes`] under the caller's `policy`: the blob's security level
/// must be at least `policy.min_security`, and the context's tables must fit
/// `policy.max_alloc_bytes`.
pub fn mlwe_context_from_bytes_with(bytes: &[u8], policy: &ReadPolicy) -> Result<Arc<MlweContext>> {
    let mut r = Reader::with_policy(bytes, *policy);
    let fingerprint = read_parameters_header(&mut r)?;
    let parsed = parse_parameters(&mut r)?;
    r.finish()?;
    check_parameters_fingerprint(&parsed, fingerprint)?;
    build(parsed)
}
