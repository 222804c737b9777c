//! The encodings of the FHEW types: parameters, LWE ciphertexts and secrets, and the
//! seed-compressed evaluation keys (layouts in the module documentation).

use super::impls::{read_small_coeffs, residue_width, write_small_coeffs};
use super::{
    err, packed_len, Deserialize, ObjectTag, ParameterFingerprint, ReadPolicy, Reader, Serialize,
    Writer,
};
use crate::fhew::lwe::{KsMasks, MAX_LOG_Q_KS};
use crate::fhew::params::{
    fingerprint_with, lwe_secret_code, LWE_BINARY, LWE_GAUSSIAN, LWE_TERNARY, LWE_UNIFORM, NAMED,
    PRESETS,
};
use crate::fhew::{
    AutoKeySet, BlindRotationKey, BootstrapKey, BrkElement, FhewContext, FhewParams, FhewSecretKey,
    LweCiphertext, LweKeySwitchKey, LweSecretDistribution, LweSecretKey, Method, MethodConfig,
};
use crate::math::sample::{DiscreteGaussian, Seed};
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::gsw::{AutoKey, Gadget, Rgsw, RlwePrime};
use crate::rlwe::SecretKey;
use crate::{Error, Result};
use std::sync::{Arc, Mutex};

/// The largest LWE dimension `n` the format accepts (every real FHEW set has `n` of a
/// few hundred to about a thousand).
pub const MAX_LWE_DIM: usize = 1 << 12;

/// The largest FHEW ring degree `N` the format accepts (every preset has `N <= 2^11`).
pub const MAX_FHEW_RING_DIM: usize = 1 << 12;

/// The smallest `log2 Q_ks` the format accepts (presets use 14 to 18; below about 7 bits
/// the key-switching noise alone exceeds the decision margin of `q/8` for any useful `n`).
pub const MIN_LOG_Q_KS: u32 = 7;

/// The largest number of runs of a `B_g` schedule the format accepts.
pub const MAX_SCHEDULE_RUNS: usize = 64;

/// How many distinct `B_g` schedules that are not a preset's one process keeps (see
/// [`fhew_params_from_bytes`]).
const MAX_INTERNED_SCHEDULES: usize = 64;

// ---------------------------------------------------------------------------------------
// Parameters

/// The fingerprint of FHEW parameters: [`fnv1a64`] of the little-endian `u64` words
///
/// ```text
/// "FHEW" (46 48 45 57 00 00 00 00), n, q, N, log Q, log B_g, B_r, log Q_ks, log B_ks,
/// bits(σ), secret code, secret parameter, r, lb_0, c_0, .., lb_(r-1), c_(r-1)
/// ```
///
/// (`bits(σ)` the IEEE-754 bits of `σ`; the secret code and parameter as in the
/// parameter body; `r` runs `(lb_i, c_i)` of the `B_g` schedule). Every numeric field
/// counts; the descriptive strings (`name`, `source`, `security`) do not.
pub fn fhew_fingerprint(params: &FhewParams) -> u64 {
    fingerprint_with(params, params.bg_schedule)
}

impl ParameterFingerprint for FhewContext {
    /// [`fhew_fingerprint`] of the parameters.
    fn fingerprint(&self) -> u64 {
        fhew_fingerprint(&self.params)
    }
}

impl Serialize for FhewParams {
    /// None: the parameters are self-contained.
    type Context = ();
    const TAG: ObjectTag = ObjectTag::FhewParameters;

    fn write_body(&self, w: &mut Writer, _: &()) {
        debug_assert!(self.validate().is_ok(), "writing invalid FHEW parameters");
        w.write_u32(self.n as u32);
        w.write_u32(self.q as u32);
        w.write_u32(self.big_n as u32);
        w.write_u8(self.log_big_q as u8);
        w.write_u8(self.log_bg as u8);
        w.write_u16(self.bg_schedule.len() as u16);
        for &(lb, count) in self.bg_schedule {
            w.write_u8(lb as u8);
            w.write_u32(count as u32);
        }
        w.write_u32(self.b_r as u32);
        w.write_u8(self.log_q_ks as u8);
        w.write_u8(self.log_b_ks as u8);
        w.write_u64(self.sigma.to_bits());
        let (code, param) = lwe_secret_code(self.lwe_secret);
        w.write_u8(code);
        if code == LWE_GAUSSIAN || code == LWE_UNIFORM {
            w.write_u64(param);
        }
    }

    /// [`fhew_fingerprint`] of these parameters.
    fn header_fingerprint(&self, _: &()) -> u64 {
        fhew_fingerprint(self)
    }

    /// The parameters must be valid ([`FhewParams::validate`]).
    fn check_writable(&self, _: &()) -> Result<()> {
        self.validate()
    }
}

/// A parameter body, range-checked field by field (the schedule not yet static).
struct ParsedParams {
    params: FhewParams,
    schedule: Vec<(u32, usize)>,
}

/// `Ok` if a Gaussian of standard deviation `sigma` cut at `6σ` can be built.
fn check_sigma(sigma: f64, what: &str) -> Result<()> {
    if !(sigma.is_finite() && sigma > 0.0) {
        return err(format!(
            "FHEW parameters: {what} σ = {sigma} is not positive and finite"
        ));
    }
    DiscreteGaussian::new(sigma, 6.0)
        .map(|_| ())
        .map_err(|e| Error::Deserialize(format!("FHEW parameters: {what} σ = {sigma}: {e}")))
}

fn parse_params(r: &mut Reader<'_>) -> Result<ParsedParams> {
    let n = r.read_u32("FHEW LWE dimension")? as usize;
    if !(1..=MAX_LWE_DIM).contains(&n) {
        return err(format!(
            "FHEW parameters: LWE dimension n = {n} is not in [1, {MAX_LWE_DIM}]"
        ));
    }
    let q = u64::from(r.read_u32("FHEW LWE modulus")?);
    let big_n = r.read_u32("FHEW ring degree")? as usize;
    if !big_n.is_power_of_two() || !(16..=MAX_FHEW_RING_DIM).contains(&big_n) {
        return err(format!(
            "FHEW parameters: ring degree N = {big_n} is not a power of two in [16, \
             {MAX_FHEW_RING_DIM}]"
        ));
    }
    if !q.is_power_of_two() || !(8..=2 * big_n as u64).contains(&q) {
        return err(format!(
            "FHEW parameters: LWE modulus q = {q} is not a power of two in [8, 2N = {}]",
            2 * big_n
        ));
    }
    let log_big_q = u32::from(r.read_u8("FHEW log Q")?);
    let log_bg = u32::from(r.read_u8("FHEW log B_g")?);
    let runs = r.read_u16("FHEW B_g schedule length")? as usize;
    if runs > MAX_SCHEDULE_RUNS {
        return err(format!(
            "FHEW parameters: B_g schedule of {runs} runs; at most {MAX_SCHEDULE_RUNS} are \
             accepted"
        ));
    }
    r.require(5 * runs, "FHEW B_g schedule")?;
    let mut schedule = Vec::with_capacity(runs);
    let mut covered = 0usize;
    for _ in 0..runs {
        let lb = u32::from(r.read_u8("FHEW B_g schedule base")?);
        let count = r.read_u32("FHEW B_g schedule count")? as usize;
        covered = covered.saturating_add(count);
        schedule.push((lb, count));
    }
    if runs > 0 && covered != n {
        return err(format!(
            "FHEW parameters: the B_g schedule covers {covered} keys, not n = {n}"
        ));
    }
    let b_r = u64::from(r.read_u32("FHEW B_r")?);
    if !(2..=q).contains(&b_r) {
        return err(format!(
            "FHEW parameters: B_r = {b_r} is not in [2, q = {q}]"
        ));
    }
    let log_q_ks = u32::from(r.read_u8("FHEW log Q_ks")?);
    let log_b_ks = u32::from(r.read_u8("FHEW log B_ks")?);
    if !(MIN_LOG_Q_KS..=MAX_LOG_Q_KS).contains(&log_q_ks)
        || !(1..=log_q_ks.min(16)).contains(&log_b_ks)
    {
        return err(format!(
            "FHEW parameters: Q_ks = 2^{log_q_ks} and B_ks = 2^{log_b_ks} need \
             log Q_ks in [{MIN_LOG_Q_KS}, {MAX_LOG_Q_KS}] and log B_ks in [1, min(log Q_ks, 16)]"
        ));
    }
    let sigma = f64::from_bits(r.read_u64("FHEW σ")?);
    check_sigma(sigma, "error")?;
    let lwe_secret = match r.read_u8("FHEW LWE secret distribution")? {
        LWE_BINARY => LweSecretDistribution::Binary,
        LWE_TERNARY => LweSecretDistribution::Ternary,
        LWE_GAUSSIAN => {
            let s = f64::from_bits(r.read_u64("FHEW LWE secret σ")?);
            check_sigma(s, "LWE secret")?;
            LweSecretDistribution::Gaussian { sigma: s }
        }
        LWE_UNIFORM => {
            let bound = r.read_u64("FHEW LWE secret bound")?;
            if bound >= 1 << 30 {
                return err(format!(
                    "FHEW parameters: uniform LWE secret bound {bound} is not below 2^30"
                ));
            }
            LweSecretDistribution::Uniform {
                bound: bound as i64,
            }
        }
        c => {
            return err(format!(
                "FHEW parameters: unknown LWE secret distribution {c} (0 binary, 1 ternary, \
                 2 Gaussian, 3 uniform)"
            ))
        }
    };
    Ok(ParsedParams {
        params: FhewParams {
            name: "custom",
            source: "deserialized",
            claimed_security: "unknown (deserialized parameters)",
            n,
            q,
            big_n,
            log_big_q,
            log_bg,
            bg_schedule: &[],
            b_r,
            log_q_ks,
            log_b_ks,
            sigma,
            lwe_secret,
        },
        schedule,
    })
}

/// A `'static` copy of `schedule`: a preset's, or one interned for the process (at most
/// [`MAX_INTERNED_SCHEDULES`] distinct ones, each leaked once).
fn static_schedule(schedule: &[(u32, usize)]) -> Result<&'static [(u32, usize)]> {
    if schedule.is_empty() {
        return Ok(&[]);
    }
    if let Some(p) = PRESETS.iter().find(|p| p.bg_schedule == schedule) {
        return Ok(p.bg_schedule);
    }
    static INTERNED: Mutex<Vec<&'static [(u32, usize)]>> = Mutex::new(Vec::new());
    let mut interned = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = interned.iter().find(|s| **s == schedule) {
        return Ok(s);
    }
    if interned.len() >= MAX_INTERNED_SCHEDULES {
        return err(format!(
            "FHEW parameters: this process already holds {MAX_INTERNED_SCHEDULES} B_g \
             schedules that are not a preset's; no more can be loaded"
        ));
    }
    let s: &'static [(u32, usize)] = Box::leak(schedule.to_vec().into_boxed_slice());
    interned.push(s);
    Ok(s)
}

/// Checks the header fingerprint (if any) and everything building a context checks, then
/// makes the schedule and the descriptive strings static.
fn finish_params(parsed: ParsedParams, fingerprint: Option<u64>) -> Result<FhewParams> {
    let ParsedParams {
        mut params,
        schedule,
    } = parsed;
    if let Some(f) = fingerprint {
        let actual = fingerprint_with(&params, &schedule);
        if actual != f {
            return err(format!(
                "corrupt FHEW parameters: the header fingerprint {f:#018x} is not the \
                 fingerprint {actual:#018x} of the parameters in the body"
            ));
        }
    }
    let bad =
        |e: Error| Error::Deserialize(format!("the serialized FHEW parameters are not valid: {e}"));
    params.validate().map_err(bad)?;
    let big_q = params.big_q().map_err(bad)?;
    for lb in std::iter::once(params.log_bg).chain(schedule.iter().map(|r| r.0)) {
        Gadget::new(big_q, lb).map_err(bad)?;
    }
    params.bg_schedule = static_schedule(&schedule)?;
    if let Some(p) = NAMED.iter().find(|p| {
        FhewParams {
            name: p.name,
            source: p.source,
            claimed_security: p.claimed_security,
            ..params.clone()
        } == ***p
    }) {
        params.name = p.name;
        params.source = p.source;
        params.claimed_security = p.claimed_security;
    }
    Ok(params)
}

impl Deserialize for FhewParams {
    /// Parses and validates the body (as [`FhewParams::read`], without a fingerprint to
    /// check).
    fn read_body(r: &mut Reader<'_>, _: &()) -> Result<Self> {
        finish_params(parse_params(r)?, None)
    }

    /// Reads the header and the body, and checks that the header's fingerprint is the
    /// [`fhew_fingerprint`] of the body before anything else.
    fn read(r: &mut Reader<'_>, _: &()) -> Result<Self> {
        let h = r.read_any_header()?;
        if h.tag != ObjectTag::FhewParameters {
            return err(format!(
                "wrong object type: expected {} (tag {}), found a {} (tag {})",
                ObjectTag::FhewParameters.name(),
                ObjectTag::FhewParameters.code(),
                h.tag.name(),
                h.tag.code()
            ));
        }
        finish_params(parse_params(r)?, Some(h.fingerprint))
    }
}

/// The encoding of `ctx`'s parameters: the same as `ctx.params.to_bytes(&())`.
pub fn fhew_context_to_bytes(ctx: &FhewContext) -> Vec<u8> {
    // A context's parameters were validated when it was built: no check to fail.
    let mut w = Writer::new();
    w.write_header(ObjectTag::FhewParameters, fhew_fingerprint(&ctx.params));
    ctx.params.write_body(&mut w, &());
    w.into_bytes()
}

/// Reads FHEW parameters ([`fhew_params_from_bytes`]) and builds their context, which
/// must be 128-bit secure ([`FhewContext::new`]); [`fhew_context_from_bytes_with`] takes
/// the caller's policy.
pub fn fhew_context_from_bytes(bytes: &[u8]) -> Result<Arc<FhewContext>> {
    fhew_context_from_bytes_with(bytes, &ReadPolicy::default())
}

/// [`fhew_context_from_bytes`] under the caller's `policy`: the parameters' estimated
/// security ([`FhewParams::security`], computed from their numbers, never read from the
/// bytes) must meet `policy.min_security`.
pub fn fhew_context_from_bytes_with(bytes: &[u8], policy: &ReadPolicy) -> Result<Arc<FhewContext>> {
    let mut r = Reader::with_policy(bytes, *policy);
    let params = FhewParams::read(&mut r, &())?;
    r.finish()?;
    // The ring's NTT plan for its one prime (at most six N-word tables) and the
    // context's other per-N tables.
    r.charge_vec::<u64>(8 * params.big_n, "the FHEW context's ring tables")?;
    FhewContext::with_security(&params, policy.min_security).map_err(|e| {
        Error::Deserialize(format!(
            "the serialized FHEW parameters do not form a valid context: {e}"
        ))
    })
}

/// Reads FHEW parameters (`FhewParams::from_bytes(bytes, &())`): every field is checked
/// (caps, the header fingerprint, then every check [`FhewContext::new`] and key generation
/// make: [`FhewParams::validate`], the prime `Q`, every gadget base and `σ`). Parameters
/// equal to a preset in every numeric field get the preset's `name`, `source` and
/// `security`; others are named `"custom"`. A `B_g` schedule other than a preset's is
/// kept for the rest of the process (at most 64 distinct ones, then loading fails).
pub fn fhew_params_from_bytes(bytes: &[u8]) -> Result<FhewParams> {
    FhewParams::from_bytes(bytes, &())
}

// ---------------------------------------------------------------------------------------
// LWE ciphertexts and secrets

fn check_dim(found: usize, expected: usize, what: &str) -> Result<()> {
    if found != expected {
        return err(format!(
            "{what}: dimension {found} differs from the parameters' {expected}"
        ));
    }
    Ok(())
}

impl Serialize for LweCiphertext {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::LweCiphertext;

    /// A reduced ciphertext of the parameters' `n` and `q`.
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        self.validate()?;
        if self.dim() != ctx.params.n || self.q != ctx.params.q {
            return Err(Error::ParameterMismatch(format!(
                "LWE ciphertext of (n, q) = ({}, {}) written under parameters with ({}, {})",
                self.dim(),
                self.q,
                ctx.params.n,
                ctx.params.q
            )));
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        debug_assert!(
            self.q == ctx.params.q && self.a.len() == ctx.params.n,
            "LWE ciphertext written under other parameters"
        );
        w.write_u32(self.a.len() as u32);
        w.write_u64(self.q);
        let mut v = Vec::with_capacity(self.a.len() + 1);
        v.extend_from_slice(&self.a);
        v.push(self.b);
        w.write_bits(&v, residue_width(self.q));
    }
}

impl Deserialize for LweCiphertext {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        let n = r.read_u32("LWE ciphertext dimension")? as usize;
        check_dim(n, ctx.params.n, "LWE ciphertext")?;
        let q = r.read_u64("LWE ciphertext modulus")?;
        if q != ctx.params.q {
            return err(format!(
                "LWE ciphertext: modulus {q} differs from the parameters' q = {}",
                ctx.params.q
            ));
        }
        let width = residue_width(q);
        let len = packed_len(n + 1, width).unwrap_or(usize::MAX);
        r.require(len, "LWE ciphertext data")?;
        r.charge_vec::<u64>(n + 1, "the LWE ciphertext")?;
        let mut a = vec![0u64; n + 1];
        r.read_bits(&mut a, width, "LWE ciphertext data")?;
        if let Some(j) = a.iter().position(|&x| x >= q) {
            return err(format!(
                "LWE ciphertext: coordinate {j} = {} is not below q = {q}",
                a[j]
            ));
        }
        let b = a.pop().expect("n + 1 >= 1 values");
        Ok(LweCiphertext { a, b, q })
    }
}

impl Serialize for LweSecretKey {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::LweSecretKey;

    /// A key of the parameters' dimension `n`.
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        if self.dim() != ctx.params.n {
            return Err(Error::ParameterMismatch(format!(
                "LWE secret key of dimension {} written under parameters with n = {}",
                self.dim(),
                ctx.params.n
            )));
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        debug_assert_eq!(self.dim(), ctx.params.n, "LWE key of another dimension");
        w.write_u32(self.dim() as u32);
        write_small_coeffs(w, self.coeffs());
    }
}

impl Deserialize for LweSecretKey {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        let n = r.read_u32("LWE secret key dimension")? as usize;
        check_dim(n, ctx.params.n, "LWE secret key")?;
        Ok(LweSecretKey::from_coeffs(read_small_coeffs(
            r,
            n,
            "LWE secret key",
        )?))
    }
}

impl Serialize for FhewSecretKey {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::FhewSecretKey;

    /// Both secrets of these parameters.
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        self.lwe.check_writable(ctx)?;
        self.rlwe.check_writable(&ctx.ring)
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        debug_assert_eq!(
            self.rlwe.ring_id(),
            ctx.ring.fingerprint(),
            "RLWE secret of another ring"
        );
        self.lwe.write_body(w, ctx);
        self.rlwe.write_body(w, &ctx.ring);
    }
}

impl Deserialize for FhewSecretKey {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        let lwe = LweSecretKey::read_body(r, ctx)?;
        let rlwe = SecretKey::read_body(r, &ctx.ring)?;
        Ok(FhewSecretKey { lwe, rlwe })
    }
}

// ---------------------------------------------------------------------------------------
// LWE key switching

/// `(rows, body length)` of the key-switching key of `params`.
pub(super) fn ksk_shape(params: &FhewParams) -> Result<(usize, usize)> {
    let digits = params.log_q_ks.div_ceil(params.log_b_ks) as usize;
    let rows = params
        .big_n
        .checked_mul(digits)
        .and_then(|x| x.checked_mul((1usize << params.log_b_ks) - 1));
    let len = rows.and_then(|rows| packed_len(rows, params.log_q_ks));
    match (rows, len) {
        (Some(rows), Some(len)) => Ok((rows, 10 + 32 + len)),
        _ => err("LWE key-switching key: size overflows".into()),
    }
}

impl Serialize for LweKeySwitchKey {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::LweKeySwitchKey;

    /// A key of these parameters' shape.
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        let p = &ctx.params;
        let (rows, _) = ksk_shape(p)?;
        if (self.log_q_ks, self.log_base, self.n_in, self.n_out)
            != (p.log_q_ks, p.log_b_ks, p.big_n, p.n)
            || self.b.len() != rows
        {
            return Err(Error::ParameterMismatch(
                "LWE key-switching key written under other FHEW parameters".into(),
            ));
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        let p = &ctx.params;
        debug_assert!(
            self.log_q_ks == p.log_q_ks
                && self.log_base == p.log_b_ks
                && self.n_in == p.big_n
                && self.n_out == p.n,
            "LWE key-switching key written under other parameters"
        );
        debug_assert!(
            {
                let len = self.n_out.min(self.a.len());
                let (mut want, mut have) = (vec![0u32; len], vec![0u32; len]);
                KsMasks::expand(&self.seed, 0, self.log_q_ks, len).read(0, &mut want);
                self.a.read(0, &mut have);
                want == have
            },
            "LWE key-switching key whose masks are not the expansion of its seed"
        );
        w.write_u8(self.log_q_ks as u8);
        w.write_u8(self.log_base as u8);
        w.write_u32(self.n_in as u32);
        w.write_u32(self.n_out as u32);
        w.write_bytes(&self.seed);
        write_beta(w, &self.b, self.log_q_ks);
    }
}

/// `log Q_ks` and `log B_ks` of a key-switching body (`what`), which must be the
/// parameters'.
pub(super) fn read_ks_bases(r: &mut Reader<'_>, p: &FhewParams, what: &str) -> Result<(u32, u32)> {
    let log_q_ks = u32::from(r.read_u8("key-switching log Q_ks")?);
    let log_base = u32::from(r.read_u8("key-switching log B_ks")?);
    if (log_q_ks, log_base) != (p.log_q_ks, p.log_b_ks) {
        return err(format!(
            "{what}: Q_ks = 2^{log_q_ks}, B_ks = 2^{log_base}; the parameters have 2^{} and 2^{}",
            p.log_q_ks, p.log_b_ks
        ));
    }
    Ok((log_q_ks, log_base))
}

/// The `β` parts of a key-switching body, bit-packed in `log Q_ks` bits.
pub(super) fn write_beta(w: &mut Writer, b: &[u32], log_q_ks: u32) {
    let b: Vec<u64> = b.iter().map(|&x| u64::from(x)).collect();
    w.write_bits(&b, log_q_ks);
}

/// Reads what [`write_beta`] writes: `rows` values.
pub(super) fn read_beta(r: &mut Reader<'_>, rows: usize, log_q_ks: u32) -> Result<Vec<u32>> {
    r.require(
        packed_len(rows, log_q_ks).unwrap_or(usize::MAX),
        "key-switching β parts",
    )?;
    r.charge_vec::<u64>(rows, "the unpacked key-switching β parts")?;
    r.charge_vec::<u32>(rows, "the key-switching β parts")?;
    let mut b = vec![0u64; rows];
    r.read_bits(&mut b, log_q_ks, "key-switching β parts")?;
    Ok(b.into_iter().map(|x| x as u32).collect())
}

impl Deserialize for LweKeySwitchKey {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        let p = &ctx.params;
        let (rows, len) = ksk_shape(p)?;
        let (log_q_ks, log_base) = read_ks_bases(r, p, "LWE key-switching key")?;
        let n_in = r.read_u32("LWE key-switching input dimension")? as usize;
        check_dim(n_in, p.big_n, "LWE key-switching key input")?;
        let n_out = r.read_u32("LWE key-switching output dimension")? as usize;
        check_dim(n_out, p.n, "LWE key-switching key output")?;
        r.require(len - 10, "LWE key-switching key")?;
        let seed: Seed = r.read_array("LWE key-switching seed")?;
        let b = read_beta(r, rows, log_q_ks)?;
        let size = rows.checked_mul(n_out).ok_or_else(|| {
            Error::Deserialize("LWE key-switching key: mask size overflows".into())
        })?;
        let width = if log_q_ks <= 16 { 2 } else { 4 };
        r.charge(
            size as u64 * width,
            "expanding the LWE key-switching masks from their seed",
        )?;
        let a = KsMasks::expand(&seed, 0, log_q_ks, size);
        Ok(LweKeySwitchKey {
            log_q_ks,
            log_base,
            digits: log_q_ks.div_ceil(log_base) as usize,
            n_in,
            n_out,
            seed,
            a,
            b,
        })
    }
}

// ---------------------------------------------------------------------------------------
// RLWE' bodies

/// How the `a` parts of every RLWE' of a blind-rotation key are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Masks {
    /// The 32-byte seed they are expanded from (keys made by key generation).
    Seeded,
    /// The packed `a` parts (keys combined from threshold shares, which have no seed).
    Explicit,
}

/// Bytes of an RLWE' body: the seed (or `d_g` packed `a` parts) and `d_g` packed `b` parts.
fn rlwe_prime_len(ring: &RingContext, gadget: Gadget, masks: Masks) -> usize {
    let w = residue_width(ring.modulus(0, 1).value());
    let part = packed_len(ring.n(), w).expect("N <= 2^17");
    match masks {
        Masks::Seeded => 32 + gadget.digits() * part,
        Masks::Explicit => 2 * gadget.digits() * part,
    }
}

fn write_rlwe_prime(
    w: &mut Writer,
    ring: &RingContext,
    k: &RlwePrime,
    gadget: Gadget,
    masks: Masks,
) {
    debug_assert_eq!(k.gadget, gadget, "RLWE' key with another gadget");
    debug_assert!(
        k.b.len() == gadget.digits()
            && k.b
                .iter()
                .all(|b| b.form() == Form::Ntt && b.n() == ring.n() && b.q_limbs() == 1),
        "RLWE' key of another shape"
    );
    let width = residue_width(ring.modulus(0, 1).value());
    match (masks, &k.seed) {
        (Masks::Seeded, Some(seed)) => {
            debug_assert!(
                k.a.first() == Some(&crate::rlwe::keys::expand_uniform(ring, seed, 0, 1, 0)),
                "RLWE' key whose a parts are not the expansion of its seed"
            );
            w.write_bytes(seed);
        }
        (Masks::Seeded, None) => unreachable!("seeded form chosen for a key without a seed"),
        (Masks::Explicit, _) => {
            for a in &k.a {
                w.write_bits(a.data(), width);
            }
        }
    }
    for b in &k.b {
        w.write_bits(b.data(), width);
    }
}

fn read_rlwe_prime(
    r: &mut Reader<'_>,
    ring: &RingContext,
    gadget: Gadget,
    masks: Masks,
    what: &dyn Fn() -> String,
) -> Result<RlwePrime> {
    let n = ring.n();
    let q = ring.modulus(0, 1).value();
    let width = residue_width(q);
    r.require(rlwe_prime_len(ring, gadget, masks), "RLWE' key")?;
    // Both parts unpacked (the seeded form expands `a` from its seed), and the vectors.
    let d = gadget.digits();
    r.charge_vec::<u64>(2 * d * n, "an RLWE' key's parts")?;
    r.charge_vec::<Poly>(2 * d, "an RLWE' key's parts")?;
    let read_parts = |r: &mut Reader<'_>, part: &str| -> Result<Vec<Poly>> {
        let mut out = Vec::with_capacity(gadget.digits());
        for i in 0..gadget.digits() {
            let mut data = vec![0u64; n];
            r.read_bits(&mut data, width, "RLWE' key part")?;
            if let Some(j) = data.iter().position(|&x| x >= q) {
                return err(format!(
                    "{}: residue {} of {part} part {i}, index {j} is not below Q = {q}",
                    what(),
                    data[j]
                ));
            }
            out.push(Poly::from_raw(n, 1, 0, Form::Ntt, data));
        }
        Ok(out)
    };
    match masks {
        Masks::Seeded => {
            let seed: Seed = r.read_array("RLWE' seed")?;
            let b = read_parts(r, "b")?;
            Ok(RlwePrime::from_seed(ring, gadget, seed, b))
        }
        Masks::Explicit => {
            let a = read_parts(r, "a")?;
            let b = read_parts(r, "b")?;
            Ok(RlwePrime {
                gadget,
                seed: None,
                a,
                b,
            })
        }
    }
}

// ---------------------------------------------------------------------------------------
// Blind-rotation keys

const METHODS: [Method; 5] = [
    Method::Ap,
    Method::Ginx,
    Method::LmkcdeyBase,
    Method::LmkcdeyAux,
    Method::LmkcdeyAllEven,
];
const AUTO_SETS: [AutoKeySet; 3] = [
    AutoKeySet::Full,
    AutoKeySet::PowersOfFive,
    AutoKeySet::Generators,
];

/// GINX's `U` for code `c`: `{1}` for 0, `{1, -1, 2, -2, .., 2^(c-1), -2^(c-1)}` else.
fn ginx_u_of(code: u8) -> Vec<i64> {
    if code == 0 {
        vec![1]
    } else {
        (0..code).flat_map(|j| [1i64 << j, -(1i64 << j)]).collect()
    }
}

/// The code of GINX's `U`, if it is one of [`ginx_u_of`]'s sets.
fn ginx_code(u: &[i64]) -> Option<u8> {
    let code = if u == [1] { 0 } else { u.len() / 2 };
    (code <= 62 && ginx_u_of(code as u8) == u).then_some(code as u8)
}

/// Where the keys of one configuration are, under a context.
struct BrkLayout {
    config: MethodConfig,
    /// Keys per secret index (AP `d_r (B_r - 1)`, GINX `|U|`, Alg. 4 2, else 1).
    per_index: usize,
    /// Number of keys: `n · per_index`, plus one for Alg. 5.
    count: usize,
    /// The automorphism exponents, in order.
    auto: Vec<usize>,
    /// The body length after the configuration bytes (key counts included).
    len: usize,
}

impl BrkLayout {
    fn new(ctx: &FhewContext, config: MethodConfig, u_len: usize, masks: Masks) -> Result<Self> {
        let p = &ctx.params;
        let ring = &ctx.ring;
        let too_big = || Error::Deserialize("blind-rotation key: size overflows".into());
        let per_index = match config.method {
            Method::Ap => p
                .d_r()
                .checked_mul(p.b_r as usize - 1)
                .ok_or_else(too_big)?,
            Method::Ginx => u_len,
            Method::LmkcdeyAux => 2,
            Method::LmkcdeyBase | Method::LmkcdeyAllEven => 1,
        };
        let extra = usize::from(config.method == Method::LmkcdeyAllEven);
        let count =
            p.n.checked_mul(per_index)
                .and_then(|c| c.checked_add(extra))
                .ok_or_else(too_big)?;
        let auto = BlindRotationKey::auto_exponents(config, p.q, p.big_n);
        let elems = if config.alt_mult { 1 } else { 2 };
        let prime_len = |lb: u32| -> Result<usize> {
            let g = Gadget::new(ctx.big_q, lb).map_err(|e| {
                Error::Deserialize(format!("blind-rotation key: gadget base 2^{lb}: {e}"))
            })?;
            Ok(rlwe_prime_len(ring, g, masks))
        };
        // Runs of secret indices sharing a gadget base.
        let runs: Vec<(u32, usize)> = if p.bg_schedule.is_empty() {
            vec![(p.log_bg, p.n)]
        } else {
            p.bg_schedule.to_vec()
        };
        let mut len = 8usize;
        for (lb, c) in runs {
            let bytes = elems * prime_len(lb)?;
            let run = c
                .checked_mul(per_index)
                .and_then(|k| k.checked_mul(bytes))
                .ok_or_else(too_big)?;
            len = len.checked_add(run).ok_or_else(too_big)?;
        }
        let base = prime_len(p.log_bg)?;
        let others = extra * elems + usize::from(config.alt_mult) + auto.len();
        len = others
            .checked_mul(base)
            .and_then(|x| x.checked_add(len))
            .ok_or_else(too_big)?;
        Ok(BrkLayout {
            config,
            per_index,
            count,
            auto,
            len,
        })
    }

    /// The gadget base of key `idx`.
    fn log_bg(&self, p: &FhewParams, idx: usize) -> u32 {
        if idx >= p.n * self.per_index {
            return p.log_bg; // Alg. 5's X^(-Σ s_i)
        }
        let i = match self.config.method {
            Method::LmkcdeyAux => idx % p.n,
            _ => idx / self.per_index,
        };
        p.log_bg_of(i)
    }
}

fn gadget(ctx: &FhewContext, lb: u32) -> Result<Gadget> {
    Gadget::new(ctx.big_q, lb)
        .map_err(|e| Error::Deserialize(format!("blind-rotation key: gadget base 2^{lb}: {e}")))
}

/// One blind-rotation key element, borrowed: the parts [`write_brk_parts`] writes come
/// from a [`BlindRotationKey`] or from a threshold key share.
#[derive(Clone, Copy)]
pub(super) enum KeyRef<'a> {
    /// An RGSW key.
    Rgsw(&'a Rgsw),
    /// An RLWE' key (ALTMULT).
    Prime(&'a RlwePrime),
}

/// The parts of a blind-rotation key body.
pub(super) struct BrkParts<'a> {
    pub(super) config: MethodConfig,
    pub(super) ginx_u: &'a [i64],
    pub(super) keys: Vec<KeyRef<'a>>,
    pub(super) z2: Option<&'a RlwePrime>,
    pub(super) auto: &'a [AutoKey],
}

impl<'a> BrkParts<'a> {
    fn of(k: &'a BlindRotationKey) -> Self {
        BrkParts {
            config: k.config,
            ginx_u: &k.ginx_u,
            keys: k
                .keys
                .iter()
                .map(|e| match e {
                    BrkElement::Rgsw(x) => KeyRef::Rgsw(x),
                    BrkElement::Prime(x) => KeyRef::Prime(x),
                })
                .collect(),
            z2: k.z2.as_ref(),
            auto: &k.auto,
        }
    }

    /// The seeded form when every RLWE' has a seed, else the explicit one.
    fn masks(&self) -> Masks {
        let mut primes = self
            .keys
            .iter()
            .flat_map(|e| match *e {
                KeyRef::Rgsw(x) => vec![&x.zm, &x.m],
                KeyRef::Prime(x) => vec![x],
            })
            .chain(self.z2)
            .chain(self.auto.iter().map(|a| &a.key));
        if primes.all(|p| p.seed.is_some()) {
            Masks::Seeded
        } else {
            Masks::Explicit
        }
    }
}

fn write_brk(k: &BlindRotationKey, w: &mut Writer, ctx: &FhewContext) {
    let p = &ctx.params;
    debug_assert!(
        k.q == p.q && k.n == p.n && k.b_r == p.b_r && k.d_r == p.d_r(),
        "blind-rotation key written under other parameters"
    );
    write_brk_parts(&BrkParts::of(k), w, ctx);
}

/// Writes a blind-rotation key body (tag 37's) from its parts.
pub(super) fn write_brk_parts(k: &BrkParts<'_>, w: &mut Writer, ctx: &FhewContext) {
    let p = &ctx.params;
    let ring = &ctx.ring;
    let c = k.config;
    let method = METHODS.iter().position(|&m| m == c.method).expect("known");
    w.write_u8(method as u8);
    w.write_u8(u8::from(c.alt_mult));
    w.write_u8(
        AUTO_SETS
            .iter()
            .position(|&s| s == c.auto_keys)
            .expect("known") as u8,
    );
    let masks = k.masks();
    w.write_u8(match masks {
        Masks::Seeded => 0,
        Masks::Explicit => 1,
    });
    if c.method == Method::Ginx {
        let code = ginx_code(k.ginx_u).unwrap_or_else(|| {
            panic!(
                "cannot serialize a GINX key with U = {:?}: the format holds {{1}} and \
                 {{±2^j: j < k}} only",
                k.ginx_u
            )
        });
        w.write_u8(code);
    }
    let layout = BrkLayout::new(ctx, c, k.ginx_u.len(), masks).expect("a valid key has a layout");
    debug_assert_eq!(k.keys.len(), layout.count, "blind-rotation key count");
    w.write_u32(k.keys.len() as u32);
    for (idx, key) in k.keys.iter().enumerate() {
        let g = gadget(ctx, layout.log_bg(p, idx)).expect("valid gadget");
        match *key {
            KeyRef::Rgsw(x) => {
                debug_assert!(!c.alt_mult, "RGSW key in an ALTMULT key set");
                write_rlwe_prime(w, ring, &x.zm, g, masks);
                write_rlwe_prime(w, ring, &x.m, g, masks);
            }
            KeyRef::Prime(x) => {
                debug_assert!(c.alt_mult, "RLWE' key in an RGSW key set");
                write_rlwe_prime(w, ring, x, g, masks);
            }
        }
    }
    let g = gadget(ctx, p.log_bg).expect("valid gadget");
    debug_assert_eq!(k.z2.is_some(), c.alt_mult, "RLWE'(z^2) iff ALTMULT");
    if let Some(z2) = k.z2 {
        write_rlwe_prime(w, ring, z2, g, masks);
    }
    debug_assert!(
        k.auto.iter().map(|a| a.t).eq(layout.auto.iter().copied()),
        "automorphism keys not in the layout of the configuration"
    );
    w.write_u32(k.auto.len() as u32);
    for a in k.auto {
        write_rlwe_prime(w, ring, &a.key, g, masks);
    }
}

/// Reads a blind-rotation key body and checks that `trailing` more bytes follow it (the
/// rest of an enclosing object) before allocating anything.
pub(super) fn read_brk(
    r: &mut Reader<'_>,
    ctx: &FhewContext,
    trailing: usize,
) -> Result<BlindRotationKey> {
    let p = &ctx.params;
    let ring = &ctx.ring;
    let m = r.read_u8("blind-rotation method")?;
    let method = *METHODS.get(m as usize).ok_or_else(|| {
        Error::Deserialize(format!(
            "unknown blind-rotation method {m} (0 AP, 1 GINX, 2 LMKCDEY-base, 3 LMKCDEY-aux, 4 LMKCDEY-even)"
        ))
    })?;
    if !method.applies(p.q, p.big_n) {
        return err(format!(
            "blind-rotation key: {} does not apply to q = {}, N = {}",
            method.name(),
            p.q,
            p.big_n
        ));
    }
    let alt_mult = match r.read_u8("blind-rotation ALTMULT flag")? {
        0 => false,
        1 => true,
        f => return err(format!("blind-rotation ALTMULT flag {f} is not 0 or 1")),
    };
    let s = r.read_u8("blind-rotation automorphism key set")?;
    let auto_keys = *AUTO_SETS.get(s as usize).ok_or_else(|| {
        Error::Deserialize(format!(
            "unknown automorphism key set {s} (0 full, 1 powers of five, 2 generators)"
        ))
    })?;
    let masks = match r.read_u8("blind-rotation mask form")? {
        0 => Masks::Seeded,
        1 => Masks::Explicit,
        f => {
            return err(format!(
                "blind-rotation mask form {f} is not 0 (seeded) or 1 (explicit)"
            ))
        }
    };
    let ginx_u = if method == Method::Ginx {
        let code = r.read_u8("GINX U")?;
        if code > 62 {
            return err(format!("GINX U code {code} is above 62"));
        }
        ginx_u_of(code)
    } else {
        Vec::new()
    };
    let config = MethodConfig {
        method,
        alt_mult,
        auto_keys,
    };
    // The layout's automorphism exponents (fewer than q <= 2N).
    r.charge_vec::<usize>(
        2 * p.big_n,
        "the blind-rotation key's automorphism exponents",
    )?;
    let layout = BrkLayout::new(ctx, config, ginx_u.len(), masks)?;
    let total = layout.len.saturating_add(trailing);
    r.require(total, "blind-rotation key")?;
    let count = r.read_u32("blind-rotation key count")? as usize;
    if count != layout.count {
        return err(format!(
            "blind-rotation key: {count} keys; {} has {} under these parameters",
            config.label(),
            layout.count
        ));
    }
    // The key vectors, and the discrete-log and automorphism-slot tables of
    // `BlindRotationKey::from_parts` (N entries each).
    r.charge_vec::<BrkElement>(count, "the blind-rotation key vector")?;
    r.charge_vec::<AutoKey>(layout.auto.len(), "the automorphism key vector")?;
    r.charge_vec::<(u32, bool)>(p.big_n, "the blind-rotation discrete-log table")?;
    r.charge_vec::<u32>(p.big_n, "the automorphism slot table")?;
    let mut keys = Vec::with_capacity(count);
    for idx in 0..count {
        let g = gadget(ctx, layout.log_bg(p, idx))?;
        let what = || format!("blind-rotation key {idx}");
        keys.push(if alt_mult {
            BrkElement::Prime(read_rlwe_prime(r, ring, g, masks, &what)?)
        } else {
            let zm = read_rlwe_prime(r, ring, g, masks, &what)?;
            let m = read_rlwe_prime(r, ring, g, masks, &what)?;
            BrkElement::Rgsw(Rgsw { zm, m })
        });
    }
    let g = gadget(ctx, p.log_bg)?;
    let z2 = if alt_mult {
        Some(read_rlwe_prime(r, ring, g, masks, &|| "RLWE'(z^2)".into())?)
    } else {
        None
    };
    let auto_count = r.read_u32("automorphism key count")? as usize;
    if auto_count != layout.auto.len() {
        return err(format!(
            "blind-rotation key: {auto_count} automorphism keys; {} has {} under these \
             parameters",
            config.label(),
            layout.auto.len()
        ));
    }
    let mut auto = Vec::with_capacity(auto_count);
    for &t in &layout.auto {
        let key = read_rlwe_prime(r, ring, g, masks, &|| format!("automorphism key {t}"))?;
        auto.push(AutoKey { t, key });
    }
    Ok(BlindRotationKey::from_parts(
        p, p.big_n, config, ginx_u, keys, z2, auto,
    ))
}

impl Serialize for BlindRotationKey {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::BlindRotationKey;

    /// A key of these parameters whose shape the format holds (a GINX set `U` of
    /// [`BlindRotationKey::generate`]'s, the layout's key count, RGSW or RLWE' keys as
    /// the configuration says).
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        let p = &ctx.params;
        let bad = |m: &str| {
            Err(Error::ParameterMismatch(format!(
                "blind-rotation key cannot be written under {}: {m}",
                p.name
            )))
        };
        if (self.q, self.n, self.b_r, self.d_r) != (p.q, p.n, p.b_r, p.d_r()) {
            return bad("it was made under other parameters");
        }
        let parts = BrkParts::of(self);
        if parts.config.method == Method::Ginx && ginx_code(parts.ginx_u).is_none() {
            return bad("its GINX set U is not one the format holds");
        }
        let layout = BrkLayout::new(ctx, parts.config, parts.ginx_u.len(), parts.masks())?;
        if parts.keys.len() != layout.count {
            return bad("it has another number of keys than its configuration needs");
        }
        let alt = parts.config.alt_mult;
        if parts
            .keys
            .iter()
            .any(|k| matches!(k, KeyRef::Rgsw(_)) == alt)
            || parts.z2.is_some() != alt
        {
            return bad("its keys are not of the kind (RGSW or RLWE') its configuration says");
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        write_brk(self, w, ctx);
    }
}

impl Deserialize for BlindRotationKey {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        read_brk(r, ctx, 0)
    }
}

impl Serialize for BootstrapKey {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::BootstrapKey;

    /// A key made under these parameters ([`BootstrapKey::params_fingerprint`]).
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        if self.params_fingerprint() != ctx.params.fingerprint() {
            return Err(Error::ParameterMismatch(
                "bootstrapping key written under other FHEW parameters than it was made \
                 under"
                    .into(),
            ));
        }
        self.brk.check_writable(ctx)?;
        self.ksk.check_writable(ctx)
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        write_brk(&self.brk, w, ctx);
        self.ksk.write_body(w, ctx);
    }
}

impl Deserialize for BootstrapKey {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        let (_, ksk_len) = ksk_shape(&ctx.params)?;
        let brk = read_brk(r, ctx, ksk_len)?;
        let ksk = LweKeySwitchKey::read_body(r, ctx)?;
        Ok(BootstrapKey {
            brk,
            ksk,
            params_id: ctx.params.fingerprint(),
        })
    }
}
