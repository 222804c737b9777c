//! The self-contained encoding of CKKS parameters (tag 16): a [`CkksContext`] is written
//! as its ring, chain, key-switching and secret choices, and rebuilt on read through
//! [`CkksParameters`], so every check of the builder runs again.

use super::{read_scale, write_scale};
use crate::ckks::{CkksContext, CkksParameters, Scale};
use crate::math::primes::is_prime;
use crate::params::SecurityLevel;
use crate::ring::ring_fingerprint;
use crate::rlwe::keyswitch::{KeyStorage, KeySwitchMethod, KlssBound, KlssConfig, LevelSet};
use crate::rlwe::SecretDistribution;
use crate::serialize::{
    err, Deserialize, ObjectTag, ReadPolicy, Reader, Serialize, Writer, MAX_LIMBS, MAX_N,
};
use crate::{Error, Result};
use std::sync::Arc;

const SECRET_TERNARY: u8 = 0;
const SECRET_HAMMING: u8 = 1;
const SECRET_GAUSSIAN: u8 = 2;

fn security_code(level: SecurityLevel) -> u8 {
    match level {
        SecurityLevel::Bits128 => 0,
        SecurityLevel::Bits192 => 1,
        SecurityLevel::Bits256 => 2,
        SecurityLevel::NotChecked => 3,
    }
}

/// Reads `count` primes (`u64` each) and checks each is a prime below `2^62`, `1 mod 2N`,
/// and not in `seen` (then adds it), so that building the context allocates nothing for
/// bad primes.
fn read_primes(
    r: &mut Reader<'_>,
    count: usize,
    n: usize,
    seen: &mut Vec<u64>,
    what: &str,
) -> Result<Vec<u64>> {
    r.require(8 * count, what)?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let q = r.read_u64(what)?;
        if !(2..1u64 << 62).contains(&q) || !is_prime(q) {
            return err(format!("{what} {i} = {q} is not a prime below 2^62"));
        }
        if q % (2 * n as u64) != 1 {
            return err(format!(
                "{what} {i} = {q} is not 1 mod 2N = {} (no NTT of size N = {n} exists \
                 modulo it)",
                2 * n
            ));
        }
        if seen.contains(&q) {
            return err(format!(
                "{what} {i} = {q} appears twice; all primes of Q and P must be distinct"
            ));
        }
        seen.push(q);
        out.push(q);
    }
    Ok(out)
}

impl Serialize for CkksContext {
    /// None: the parameters are self-contained.
    type Context = ();
    const TAG: ObjectTag = ObjectTag::new(16, "CKKS parameters");

    fn write_body(&self, w: &mut Writer, _: &()) {
        let (q, p) = (self.q_primes(), self.p_primes());
        w.write_u32(self.n() as u32);
        w.write_u16(q.len() as u16);
        w.write_u16(p.len() as u16);
        for x in q.iter().chain(&p) {
            w.write_u64(*x);
        }
        w.write_u16(self.dnum() as u16);
        match self.secret_distribution() {
            SecretDistribution::Ternary => w.write_u8(SECRET_TERNARY),
            SecretDistribution::HammingWeight(h) => {
                w.write_u8(SECRET_HAMMING);
                w.write_u32(h as u32);
            }
            SecretDistribution::Gaussian => w.write_u8(SECRET_GAUSSIAN),
        }
        w.write_u8(security_code(self.security()));
        write_scale(w, self.default_scale());
        match self.key_switch_method() {
            KeySwitchMethod::Klss(c) => {
                w.write_u8(1);
                write_klss_config(w, &c);
            }
            KeySwitchMethod::Mixed { klss, levels } => {
                w.write_u8(2);
                write_klss_config(w, &klss);
                w.write_u16(levels.len() as u16);
                for l in levels.iter() {
                    w.write_u16(l as u16);
                }
            }
            _ => w.write_u8(0),
        }
        w.write_u8(match self.key_storage() {
            KeyStorage::ExpandedOnly => 0,
            KeyStorage::ExpandedWithOrdinary => 1,
        });
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
    key_storage: KeyStorage,
}

fn parse_parameters(r: &mut Reader<'_>) -> Result<ParsedParameters> {
    let n = r.read_u32("CKKS ring degree")? as usize;
    if !n.is_power_of_two() || !(2..=MAX_N).contains(&n) {
        return err(format!(
            "CKKS parameters: ring degree N = {n} is not a power of two in [2, 2^17]"
        ));
    }
    let l1 = r.read_u16("CKKS chain prime count")? as usize;
    let k = r.read_u16("CKKS special prime count")? as usize;
    if !(1..=MAX_LIMBS).contains(&l1) {
        return err(format!(
            "CKKS parameters: {l1} chain primes; expected between 1 and {MAX_LIMBS}"
        ));
    }
    if !(1..=MAX_LIMBS).contains(&k) {
        return err(format!(
            "CKKS parameters: {k} special primes; hybrid key switching needs between 1 \
             and {MAX_LIMBS}"
        ));
    }
    // What the context builds per prime: its NTT plan (up to six N-word tables) and the
    // base-conversion and key-switching tables (at most two more), charged up front.
    r.charge(
        ((l1 + k) as u64) * (n as u64) * 8 * 8,
        "the CKKS context's NTT and conversion tables",
    )?;
    let mut seen = Vec::with_capacity(l1 + k);
    let q = read_primes(r, l1, n, &mut seen, "CKKS chain prime")?;
    let p = read_primes(r, k, n, &mut seen, "CKKS special prime")?;
    let dnum = r.read_u16("CKKS dnum")? as usize;
    if !(1..=l1).contains(&dnum) {
        return err(format!(
            "CKKS parameters: dnum = {dnum} is not in [1, L + 1 = {l1}]"
        ));
    }
    let secret = match r.read_u8("CKKS secret distribution")? {
        SECRET_TERNARY => SecretDistribution::Ternary,
        SECRET_HAMMING => {
            let h = r.read_u32("CKKS secret Hamming weight")? as usize;
            if !(1..=n).contains(&h) {
                return err(format!(
                    "CKKS parameters: Hamming weight h = {h} is not in [1, N = {n}]"
                ));
            }
            SecretDistribution::HammingWeight(h)
        }
        SECRET_GAUSSIAN => SecretDistribution::Gaussian,
        c => {
            return err(format!(
                "CKKS parameters: unknown secret distribution {c} (0 ternary, 1 Hamming \
                 weight, 2 Gaussian)"
            ))
        }
    };
    let security = match r.read_u8("CKKS security level")? {
        0 => SecurityLevel::Bits128,
        1 => SecurityLevel::Bits192,
        2 => SecurityLevel::Bits256,
        3 => SecurityLevel::NotChecked,
        c => {
            return err(format!(
                "CKKS parameters: unknown security level {c} (0 128-bit, 1 192-bit, 2 \
                 256-bit, 3 not checked)"
            ))
        }
    };
    let min = r.policy().min_security;
    if !security.at_least(min) {
        return err(format!(
            "CKKS parameters: the blob was built for security level \"{security}\", below \
             the reader's minimum \"{min}\"; bytes never lower the check: read them with \
             ReadPolicy::default().min_security(SecurityLevel::NotChecked) (or the level \
             wanted) if these parameters are trusted and meant for experiments"
        ));
    }
    let scale = read_scale(r)?;
    let f = scale.to_f64();
    if Scale::from_f64(f).as_ref() != Some(&scale) {
        return err(format!(
            "CKKS parameters: the default scale {scale} is not exactly an f64 value"
        ));
    }
    let method = r.read_u8("CKKS key-switching method")?;
    if method == 1 || method == 2 {
        // A KLSS engine adds its own primes (the r' primes of T and B', below the
        // chain's count), each with an NTT plan: at most as much again.
        r.charge(
            ((l1 + k) as u64) * (n as u64) * 8 * 8,
            "the KLSS engine's primes and tables",
        )?;
    }
    let key_switching = match method {
        0 => KeySwitchMethod::Hybrid,
        1 => KeySwitchMethod::Klss(read_klss_config(r, l1 + k)?),
        2 => {
            let klss = read_klss_config(r, l1 + k)?;
            let count = r.read_u16("mixed engine level count")? as usize;
            if !(1..l1).contains(&count) {
                return err(format!(
                    "CKKS parameters: a mixed engine runs KLSS at {count} levels; 1 to {} \
                     are allowed with {l1} chain limbs",
                    l1 - 1
                ));
            }
            let mut limbs = Vec::with_capacity(count);
            for _ in 0..count {
                let l = r.read_u16("mixed engine level")? as usize;
                if !(1..=l1).contains(&l) || limbs.last().is_some_and(|&p| l <= p) {
                    return err(format!(
                        "CKKS parameters: mixed engine level {l} is out of order or not in \
                         [1, {l1}]"
                    ));
                }
                limbs.push(l);
            }
            let levels = LevelSet::from_limbs(limbs).map_err(|e| {
                Error::Deserialize(format!("CKKS parameters: mixed engine levels: {e}"))
            })?;
            KeySwitchMethod::Mixed { klss, levels }
        }
        c => {
            return err(format!(
                "CKKS parameters: unknown key-switching method {c} (0 hybrid, 1 KLSS, 2 mixed)"
            ))
        }
    };
    let key_storage = match r.read_u8("CKKS key storage")? {
        0 => KeyStorage::ExpandedOnly,
        1 => KeyStorage::ExpandedWithOrdinary,
        c => return err(format!("CKKS parameters: unknown key storage {c}")),
    };
    Ok(ParsedParameters {
        n,
        q,
        p,
        dnum,
        secret,
        security,
        scale: f,
        key_switching,
        key_storage,
    })
}

/// The KLSS configuration fields of a CKKS parameter body (`limbs` = `L + 1 + k`).
fn read_klss_config(r: &mut Reader<'_>, limbs: usize) -> Result<KlssConfig> {
    let r_tilde = r.read_u16("KLSS r̃")? as usize;
    if !(1..=limbs).contains(&r_tilde) {
        return err(format!(
            "CKKS parameters: KLSS r̃ = {r_tilde} is not in [1, {limbs}]"
        ));
    }
    let r_prime = match r.read_u16("KLSS r'")? as usize {
        0 => None,
        x if x <= 64 => Some(x),
        x => return err(format!("CKKS parameters: KLSS r' = {x} is above 64")),
    };
    let bound = match r.read_u8("KLSS bound")? {
        0 => KlssBound::WorstCase,
        1 if r.policy().allow_heuristic_klss => KlssBound::Heuristic,
        1 => {
            return err(
                "CKKS parameters: the blob selects the heuristic KLSS bound, which is not \
                 safe against inputs chosen by an adversary who knows the switching key; \
                 read it with ReadPolicy::default().allow_heuristic_klss(true) if that is \
                 intended"
                    .into(),
            )
        }
        c => return err(format!("CKKS parameters: unknown KLSS bound {c}")),
    };
    let b_prime_bits = r.read_u8("KLSS B' prime size")? as u32;
    let accumulation = r.read_u32("KLSS accumulation")? as usize;
    if !(1..=1 << 16).contains(&accumulation) {
        return err(format!(
            "CKKS parameters: KLSS accumulation {accumulation} is not in [1, 2^16]"
        ));
    }
    Ok(KlssConfig {
        r_tilde,
        r_prime,
        bound,
        b_prime_bits,
        accumulation,
    })
}

/// Writes what [`read_klss_config`] reads.
fn write_klss_config(w: &mut Writer, c: &KlssConfig) {
    w.write_u16(c.r_tilde as u16);
    w.write_u16(c.r_prime.unwrap_or(0) as u16);
    w.write_u8(match c.bound {
        KlssBound::WorstCase => 0,
        KlssBound::Heuristic => 1,
    });
    w.write_u8(c.b_prime_bits as u8);
    w.write_u32(c.accumulation as u32);
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
    CkksParameters::new(p.n.trailing_zeros())
        .q_primes(&p.q)
        .p_primes(&p.p)
        .dnum(p.dnum)
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
        })
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
/// parameters (caps: `N <= 2^17`, at most [`MAX_LIMBS`] chain and special primes, each a
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
