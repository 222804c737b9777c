//! The self-contained encoding of FHEW parameters (tag 32), their fingerprint, and the
//! context readers and writers built on it.

use super::{MAX_FHEW_RING_DIM, MAX_LWE_DIM, MAX_SCHEDULE_RUNS, MIN_LOG_Q_KS};
use crate::fhew::lwe::MAX_LOG_Q_KS;
use crate::fhew::params::{
    fingerprint_with, lwe_secret_code, LWE_BINARY, LWE_GAUSSIAN, LWE_TERNARY, LWE_UNIFORM, NAMED,
    PRESETS,
};
use crate::fhew::{FhewContext, FhewParams, LweSecretDistribution};
use crate::math::sample::DiscreteGaussian;
use crate::rlwe::gsw::Gadget;
use crate::serialize::{
    err, Deserialize, ObjectTag, ParameterFingerprint, ReadPolicy, Reader, Serialize, Writer,
};
use crate::{Error, Result};
use std::sync::{Arc, Mutex};

/// How many distinct `B_g` schedules that are not a preset's one process keeps (see
/// [`fhew_params_from_bytes`]).
const MAX_INTERNED_SCHEDULES: usize = 64;

/// The fingerprint of FHEW parameters: [`fnv1a64`](crate::serialize::fnv1a64) of the little-endian `u64` words
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
    const TAG: ObjectTag = ObjectTag::new(32, "FHEW parameters");

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
        if h.tag != <FhewParams as Serialize>::TAG {
            return err(format!(
                "wrong object type: expected {} (tag {}), found a {} (tag {})",
                <FhewParams as Serialize>::TAG.name(),
                <FhewParams as Serialize>::TAG.code(),
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
    w.write_header(
        <FhewParams as Serialize>::TAG,
        fhew_fingerprint(&ctx.params),
    );
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
