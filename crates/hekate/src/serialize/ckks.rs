//! The encodings of the CKKS types: parameters, plaintexts, ciphertexts and evaluation
//! keys (layouts in the module documentation).

use super::{
    err, Deserialize, ObjectTag, ParameterFingerprint, ReadPolicy, Reader, Serialize, Writer,
    MAX_LIMBS, MAX_N,
};
use crate::ckks::{
    Ciphertext, CkksContext, CkksParameters, GaloisKey, GaloisKeys, Plaintext, RelinearizationKey,
    Scale,
};
use crate::math::primes::is_prime;
use crate::math::sample::Seed;
use crate::params::SecurityLevel;
use crate::ring::{ring_fingerprint, Form, Poly, RingContext};
use crate::rlwe::keys::expand_uniform;
use crate::rlwe::keyswitch::{
    KeyStorage, KeySwitchMethod, KlssBound, KlssConfig, LevelSet, SwitchingKey,
};
use crate::rlwe::{HybridKey, SecretDistribution};
use crate::{Error, Result};
use num_bigint::{BigInt, BigUint, Sign};
use num_rational::BigRational;
use std::collections::HashMap;
use std::sync::Arc;

/// The largest numerator or denominator of a scale the format accepts, in bytes.
///
/// 2048 bytes (16384 bits) holds the product of every chain prime of the largest chain
/// the format accepts ([`MAX_LIMBS`] primes below `2^62`), so every scale reachable by
/// rescaling fits; numerators that large are far beyond any meaningful scale.
pub const MAX_SCALE_BYTES: usize = 2048;

impl ParameterFingerprint for CkksContext {
    /// The fingerprint of the ring ([`RingContext::fingerprint`]): CKKS objects are tied
    /// to `N` and the primes.
    fn fingerprint(&self) -> u64 {
        self.ring().fingerprint()
    }
}

/// The "no parameters" context of self-contained objects ([`CkksContext`] itself).
impl ParameterFingerprint for () {
    /// Unused (0): self-contained objects put the fingerprint of what they describe in
    /// their header instead.
    fn fingerprint(&self) -> u64 {
        0
    }
}

// ---------------------------------------------------------------------------------------
// Scale

/// An error if `scale` does not fit the format ([`MAX_SCALE_BYTES`] per numerator and
/// denominator): a long chain of constant products without rescaling can get there.
fn check_scale_writable(scale: &Scale) -> Result<()> {
    let r = scale.as_ratio();
    for (x, what) in [(r.numer(), "numerator"), (r.denom(), "denominator")] {
        let (sign, bytes) = x.to_bytes_le();
        if sign != Sign::Plus || bytes.len() > MAX_SCALE_BYTES {
            return Err(Error::InvalidParameters(format!(
                "cannot serialize a scale whose {what} has {} bytes (the format's cap is \
                 {MAX_SCALE_BYTES}): rescale the ciphertext first",
                bytes.len()
            )));
        }
    }
    Ok(())
}

fn write_magnitude(w: &mut Writer, x: &BigInt, what: &str) {
    let (sign, bytes) = x.to_bytes_le();
    assert!(
        sign == Sign::Plus && bytes.len() <= MAX_SCALE_BYTES,
        "cannot serialize a scale whose {what} has {} bytes: the format's cap is \
         {MAX_SCALE_BYTES} bytes",
        bytes.len()
    );
    w.write_u16(bytes.len() as u16);
    w.write_bytes(&bytes);
}

fn read_magnitude(r: &mut Reader<'_>, what: &str) -> Result<BigUint> {
    let len = r.read_u16(what)? as usize;
    if len == 0 || len > MAX_SCALE_BYTES {
        return err(format!(
            "scale {what} length {len} is not in [1, {MAX_SCALE_BYTES}] bytes"
        ));
    }
    let bytes = r.read_bytes(len, what)?;
    if bytes[len - 1] == 0 {
        return err(format!(
            "non-canonical scale: the {what} has a leading zero byte"
        ));
    }
    Ok(BigUint::from_bytes_le(bytes))
}

/// Writes `Δ = a / b` (reduced, positive) as `u16 len, a, u16 len, b`.
///
/// # Panics
/// If the numerator or denominator has more than [`MAX_SCALE_BYTES`] bytes.
fn write_scale(w: &mut Writer, scale: &Scale) {
    let r = scale.as_ratio();
    write_magnitude(w, r.numer(), "numerator");
    write_magnitude(w, r.denom(), "denominator");
}

fn read_scale(r: &mut Reader<'_>) -> Result<Scale> {
    let a = read_magnitude(r, "numerator")?;
    let b = read_magnitude(r, "denominator")?;
    let (a, b) = (BigInt::from(a), BigInt::from(b));
    let ratio = BigRational::new(a.clone(), b);
    if ratio.numer() != &a {
        return err("non-canonical scale: numerator and denominator are not coprime".into());
    }
    Scale::from_ratio(ratio).ok_or_else(|| Error::Deserialize("scale is not positive".into()))
}

/// Reads a slot count and checks it is a power of two in `[1, N/2]`.
fn read_slots(r: &mut Reader<'_>, n: usize, what: &str) -> Result<usize> {
    let slots = r.read_u32(what)? as usize;
    if !slots.is_power_of_two() || slots > n / 2 {
        return err(format!(
            "{what} {slots} is not a power of two in [1, N/2 = {}]",
            n / 2
        ));
    }
    Ok(slots)
}

/// Reads a plaintext or ciphertext polynomial: NTT form over `Q_l` only.
fn read_message_poly(r: &mut Reader<'_>, ring: &RingContext, what: &str) -> Result<Poly> {
    let p = Poly::read_body(r, ring)?;
    if p.form() != Form::Ntt {
        return err(format!("{what} must be in NTT form"));
    }
    if p.q_limbs() == 0 || p.p_limbs() != 0 {
        return err(format!(
            "{what} has {} chain and {} special limbs; expected at least one chain limb and \
             no special limbs",
            p.q_limbs(),
            p.p_limbs()
        ));
    }
    Ok(p)
}

// ---------------------------------------------------------------------------------------
// Parameters

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
    const TAG: ObjectTag = ObjectTag::CkksParameters;

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
    if h.tag != ObjectTag::CkksParameters {
        return err(format!(
            "wrong object type: expected {} (tag {}), found a {} (tag {})",
            ObjectTag::CkksParameters.name(),
            ObjectTag::CkksParameters.code(),
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
    w.write_header(ObjectTag::CkksParameters, ctx.header_fingerprint(&()));
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

// ---------------------------------------------------------------------------------------
// Plaintext

impl Serialize for Plaintext {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::CkksPlaintext;

    /// A plaintext of `ctx` with a usable shape, and a scale the format holds.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        self.check_shape(ctx)?;
        check_scale_writable(&self.scale)
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        debug_assert_eq!(
            self.ring_id,
            ctx.ring().fingerprint(),
            "plaintext written under another context"
        );
        write_scale(w, &self.scale);
        w.write_u32(self.slots as u32);
        self.poly.write_body(w, ctx.ring());
    }
}

impl Deserialize for Plaintext {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        let scale = read_scale(r)?;
        let slots = read_slots(r, ctx.n(), "plaintext slot count")?;
        let poly = read_message_poly(r, ctx.ring(), "plaintext polynomial")?;
        Plaintext::from_parts(ctx, poly, scale, slots)
            .map_err(|e| Error::Deserialize(format!("plaintext: {e}")))
    }
}

// ---------------------------------------------------------------------------------------
// Ciphertext

/// Ciphertext storage: every part stored.
const CT_FULL: u8 = 0;
/// Ciphertext storage: `c_0` and the seed of `c_1`.
const CT_SEEDED: u8 = 1;

impl Serialize for Ciphertext {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::CkksCiphertext;

    /// A ciphertext of `ctx` with a usable shape, and a scale the format holds.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        self.check_shape(ctx)?;
        check_scale_writable(&self.scale)
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        let ring = ctx.ring();
        debug_assert_eq!(
            self.ring_id,
            ring.fingerprint(),
            "ciphertext written under another context"
        );
        let parts = &self.parts;
        debug_assert!(
            (2..=3).contains(&parts.len()),
            "ciphertext degree not 1 or 2"
        );
        w.write_u8((parts.len() - 1) as u8);
        match &self.seed {
            Some(seed) => {
                debug_assert!(
                    parts.len() == 2
                        && parts[1] == expand_uniform(ring, seed, 0, parts[0].q_limbs(), 0),
                    "seeded ciphertext whose c_1 is not the expansion of its seed"
                );
                w.write_u8(CT_SEEDED);
                write_scale(w, &self.scale);
                w.write_u32(self.slots as u32);
                w.write_bytes(seed);
                parts[0].write_body(w, ring);
            }
            None => {
                w.write_u8(CT_FULL);
                write_scale(w, &self.scale);
                w.write_u32(self.slots as u32);
                for p in parts {
                    p.write_body(w, ring);
                }
            }
        }
    }
}

impl Deserialize for Ciphertext {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        let ring = ctx.ring();
        let degree = r.read_u8("ciphertext degree")? as usize;
        if !(1..=2).contains(&degree) {
            return err(format!("ciphertext degree {degree} is not 1 or 2"));
        }
        let storage = r.read_u8("ciphertext storage")?;
        if storage == CT_SEEDED && degree != 1 {
            return err(format!(
                "a seed-compressed ciphertext has degree 1, not {degree}"
            ));
        }
        if storage != CT_FULL && storage != CT_SEEDED {
            return err(format!(
                "unknown ciphertext storage {storage} (0 full, 1 seed-compressed)"
            ));
        }
        let scale = read_scale(r)?;
        let slots = read_slots(r, ctx.n(), "ciphertext slot count")?;
        let (parts, seed) = if storage == CT_SEEDED {
            let seed: Seed = r.read_array("ciphertext seed")?;
            let c0 = read_message_poly(r, ring, "ciphertext part 0")?;
            r.charge_vec::<u64>(
                c0.data().len(),
                "expanding the ciphertext's c_1 from its seed",
            )?;
            let c1 = expand_uniform(ring, &seed, 0, c0.q_limbs(), 0);
            (vec![c0, c1], Some(seed))
        } else {
            let mut parts: Vec<Poly> = Vec::with_capacity(degree + 1);
            for i in 0..=degree {
                let p = read_message_poly(r, ring, &format!("ciphertext part {i}"))?;
                if i > 0 && p.q_limbs() != parts[0].q_limbs() {
                    return err(format!(
                        "ciphertext part {i} has {} chain limbs, part 0 has {}",
                        p.q_limbs(),
                        parts[0].q_limbs()
                    ));
                }
                parts.push(p);
            }
            (parts, None)
        };
        Ciphertext::from_parts(ctx, parts, scale, slots, seed)
            .map_err(|e| Error::Deserialize(format!("ciphertext: {e}")))
    }
}

// ---------------------------------------------------------------------------------------
// Evaluation keys

/// A switching key of `ctx`'s ring whose ordinary (hybrid) form this context can produce:
/// a hybrid key, a KLSS key of this context's engine (contracted), or one that keeps its
/// ordinary form.
fn check_key_writable(key: &SwitchingKey, ctx: &CkksContext, what: &str) -> Result<()> {
    if key.ring_id() != ctx.ring().fingerprint() {
        return Err(Error::ParameterMismatch(format!(
            "the {what} belongs to another context"
        )));
    }
    let writable = match key {
        SwitchingKey::Hybrid(k) => k.digits.len() == ctx.dnum(),
        SwitchingKey::Klss(_) => ctx.keyswitcher().owns(key) || key.ordinary().is_some(),
    };
    if !writable {
        return Err(Error::ParameterMismatch(format!(
            "the {what} was made for another key-switching engine or dnum and keeps no \
             ordinary (hybrid) form this context could write; write it with the context it \
             was generated under"
        )));
    }
    Ok(())
}

/// Reads a hybrid key and checks it has the context's shape: `dnum` digits over all of
/// `Q ∪ P`.
fn read_switching_key(r: &mut Reader<'_>, ctx: &CkksContext, what: &str) -> Result<SwitchingKey> {
    let ring = ctx.ring();
    let key = HybridKey::read_body(r, ring)?;
    if key.digits.len() != ctx.dnum() {
        return err(format!(
            "{what} has {} digits; the context's dnum is {}",
            key.digits.len(),
            ctx.dnum()
        ));
    }
    for (j, [b, _]) in key.digits.iter().enumerate() {
        if b.q_limbs() != ring.q_len() || b.p_limbs() != ring.p_len() {
            return err(format!(
                "{what} digit {j} has {} chain and {} special limbs; expected all {} and {}",
                b.q_limbs(),
                b.p_limbs(),
                ring.q_len(),
                ring.p_len()
            ));
        }
    }
    // A KLSS context expands the ordinary key once, here: the expanded key, and the
    // temporaries of the expansion (under half the key's size, measured by
    // `tests/alloc_limits.rs`).
    let adopted = ctx.keyswitcher().adopted_key_bytes();
    r.charge(
        adopted + adopted / 2,
        &format!("expanding the {what} for the KLSS engine"),
    )?;
    ctx.keyswitcher().adopt(key, ctx.key_storage())
}

impl Serialize for RelinearizationKey {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::RelinearizationKey;

    /// A key of `ctx` that this context can write in the ordinary form.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        check_key_writable(&self.0, ctx, "relinearization key")
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        ctx.keyswitcher()
            .ordinary_key(&self.0)
            .write_body(w, ctx.ring());
    }
}

impl Deserialize for RelinearizationKey {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        read_switching_key(r, ctx, "relinearization key").map(RelinearizationKey)
    }
}

impl Serialize for GaloisKeys {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::GaloisKeys;

    /// Keys of `ctx` that this context can write, each stored under its own element.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        for (&g, key) in &self.keys {
            if key.galois_element != g {
                return Err(Error::ParameterMismatch(format!(
                    "the Galois key for element {} is stored under element {g}",
                    key.galois_element
                )));
            }
            check_key_writable(&key.key, ctx, &format!("Galois key {g}"))?;
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        let mut elements: Vec<usize> = self.keys.keys().copied().collect();
        elements.sort_unstable();
        w.write_u32(elements.len() as u32);
        for g in elements {
            let key = &self.keys[&g];
            debug_assert_eq!(
                key.galois_element, g,
                "Galois key stored under another element"
            );
            w.write_u32(g as u32);
            ctx.keyswitcher()
                .ordinary_key(&key.key)
                .write_body(w, ctx.ring());
        }
    }
}

impl Deserialize for GaloisKeys {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        let n = ctx.n();
        let count = r.read_u32("Galois key count")? as usize;
        // There are N odd elements below 2N; each key needs at least its seed.
        if count > n {
            return err(format!(
                "Galois key count {count} exceeds the N = {n} possible Galois elements"
            ));
        }
        r.require(count * (4 + 32), "Galois keys")?;
        // The map's table: at most twice its entries (load factor 7/8, rounded up to a
        // power of two), one control byte each.
        r.charge(
            2 * count as u64 * (std::mem::size_of::<(usize, GaloisKey)>() as u64 + 1) + 64,
            "the Galois key map",
        )?;
        let mut keys = HashMap::with_capacity(count);
        let mut last: Option<usize> = None;
        for _ in 0..count {
            let g = r.read_u32("Galois element")? as usize;
            if g.is_multiple_of(2) || g >= 2 * n {
                return err(format!(
                    "Galois element {g} is not an odd number below 2N = {}",
                    2 * n
                ));
            }
            if last.is_some_and(|l| g <= l) {
                return err(format!(
                    "Galois elements are not in strictly increasing order ({g} after {})",
                    last.unwrap_or(0)
                ));
            }
            last = Some(g);
            let key = read_switching_key(r, ctx, &format!("Galois key {g}"))?;
            keys.insert(
                g,
                GaloisKey {
                    galois_element: g,
                    key,
                },
            );
        }
        Ok(GaloisKeys { keys })
    }
}
