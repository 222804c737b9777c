//! `hekate params ckks`: one CKKS chain described — its primes, `log QP`, the
//! HomomorphicEncryption.org verdict at 128, 192 and 256 bits, slots, levels, the
//! key-switching engine and the memory of keys and ciphertexts.
//!
//! The context is built by the library's [`CkksParameters`] builder (primes, special
//! primes, `dnum` and engine are its choices where not given), with the security check
//! off so that every level's verdict can be shown; the verdicts come from
//! [`hekate::params::security::check`]. Insecure at the asked level (`--security`,
//! default 128) exits with code 2 unless `--allow-insecure`.
//!
//! Sizes are of the in-memory forms (one `u64` word per residue), from limb counts:
//!
//! ```text
//! ciphertext (fresh, top level)  2 · N · (L + 1) · 8 bytes
//! hybrid switching key           2 · d · N · (L + 1 + k) · 8 bytes
//! KLSS / linear switching key    the expanded key, 2 · d · Σ r'_i · N · 8 bytes
//!                                (KeySwitchEngine::adopted_key_bytes)
//! ```
//!
//! with `L + 1` chain primes, `k` special primes and `d` the digits of a full key
//! ([`HybridKeySwitcher::key_digits`](hekate::rlwe::HybridKeySwitcher::key_digits));
//! a mixed engine keeps both forms. A relinearization key and each Galois key are one
//! switching key. Serialized keys are smaller (seed-compressed, bit-packed).

use super::{parse_level, ReportFormat};
use crate::bench::{fmt_mib, Table};
use crate::Outcome;
use clap::Args;
use hekate::ckks::{CkksContext, CkksParameters};
use hekate::params::ckks::CkksPreset;
use hekate::params::security::{self, SecurityLevel};
use hekate::rlwe::keyswitch::{KeySwitchEngine, KeySwitchMethod};
use hekate::serialize::{ckks_context_from_bytes_with, ReadPolicy};
use serde_json::{json, Value};
use std::error::Error;
use std::path::PathBuf;
use std::sync::Arc;

/// Options of `hekate params ckks`.
#[derive(Debug, Args)]
pub struct CkksArgs {
    /// log2 N, the ring degree (10 ..= 17)
    #[arg(long, default_value_t = 16)]
    log_n: u32,
    /// Bit sizes of the chain primes q_0, ..., q_L, comma separated
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "BITS,...",
        conflicts_with = "limbs"
    )]
    log_q: Option<Vec<u32>>,
    /// The chain as a number of primes: q_0 of --log-q0 bits, then L primes of
    /// --log-scale bits
    #[arg(long, value_name = "L+1")]
    limbs: Option<usize>,
    /// With --limbs: the size of q_0
    #[arg(long, default_value_t = 60, value_name = "BITS")]
    log_q0: u32,
    /// The scale Δ = 2^BITS (and, with --limbs, the size of q_1 .. q_L)
    #[arg(long, default_value_t = 50, value_name = "BITS")]
    log_scale: u32,
    /// Bit sizes of the special primes P, comma separated [default: the library's:
    /// 50-bit primes covering the largest digit]
    #[arg(long, value_delimiter = ',', value_name = "BITS,...")]
    log_p: Option<Vec<u32>>,
    /// Key-switching digits dnum [default: the library's, 3 or fewer]
    #[arg(long, conflicts_with = "digits_by_bits")]
    dnum: Option<usize>,
    /// Group the hybrid digits by bits under P (needs --log-p; sets dnum): fewer digits
    /// on chains of mixed prime sizes
    #[arg(long)]
    digits_by_bits: bool,
    /// Key switching: hybrid, klss:R (KLSS with R primes per key digit), linear,
    /// linear-heuristic, or auto (the calibrated cost model's pick; measures first)
    #[arg(long, default_value = "hybrid", value_parser = KeySwitchMethod::parse)]
    key_switching: KeySwitchMethod,
    /// Start from a named preset (`hekate params list`); the other options override it
    #[arg(long, conflicts_with_all = ["from", "log_q", "limbs"])]
    preset: Option<String>,
    /// Read the parameters from a file of serialized CKKS parameters
    /// (`ckks_context_to_bytes`) instead
    #[arg(long, value_name = "FILE", conflicts_with_all = ["log_q", "limbs"])]
    from: Option<PathBuf>,
    /// The security level asked for: 128, 192, 256 or none
    #[arg(long, default_value = "128", value_parser = parse_level)]
    security: SecurityLevel,
    /// Exit 0 even if the parameters are below --security
    #[arg(long)]
    allow_insecure: bool,
    /// Output: markdown or json
    #[arg(long, value_enum, default_value_t = ReportFormat::Markdown)]
    format: ReportFormat,
}

impl CkksArgs {
    /// The context the options describe (built without the security check).
    fn context(&self) -> Result<Arc<CkksContext>, Box<dyn Error>> {
        if let Some(path) = &self.from {
            let bytes =
                std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            // Every level is reported: the reader's own security floor is off.
            let policy = ReadPolicy::default().min_security(SecurityLevel::NotChecked);
            return Ok(ckks_context_from_bytes_with(&bytes, &policy)?);
        }
        let mut b = match &self.preset {
            Some(name) => CkksParameters::from_preset(CkksPreset::by_name(name)?),
            None => {
                if !(10..=17).contains(&self.log_n) {
                    return Err(format!("--log-n {} must be in 10 ..= 17", self.log_n).into());
                }
                let log_q = match (&self.log_q, self.limbs) {
                    (Some(q), _) => q.clone(),
                    (None, Some(l)) if l >= 1 => std::iter::once(self.log_q0)
                        .chain(std::iter::repeat_n(self.log_scale, l - 1))
                        .collect(),
                    (None, Some(_)) => return Err("--limbs must be at least 1".into()),
                    (None, None) => {
                        return Err("give the chain: --log-q, --limbs or --preset".into())
                    }
                };
                CkksParameters::new(self.log_n)
                    .log_q(&log_q)
                    .log_scale(self.log_scale)
            }
        };
        if let Some(p) = &self.log_p {
            b = b.log_p(p);
        }
        if let Some(d) = self.dnum {
            b = b.dnum(d);
        }
        if self.digits_by_bits {
            b = b.digits_by_bits();
        }
        Ok(b.key_switching(self.key_switching)
            .security(SecurityLevel::NotChecked)
            .build()?)
    }
}

/// Bytes of one switching key (relinearization or Galois) of `ctx`'s engine, in memory.
pub(crate) fn switching_key_bytes(ctx: &CkksContext) -> usize {
    let (n, l1, k) = (ctx.n(), ctx.max_level() + 1, ctx.p_primes().len());
    let hybrid = |d: usize| 2 * d * n * (l1 + k) * 8;
    let engine = ctx.keyswitcher();
    match engine {
        KeySwitchEngine::Hybrid(h) => hybrid(h.key_digits(l1)),
        KeySwitchEngine::Klss(_) => engine.adopted_key_bytes() as usize,
        KeySwitchEngine::Mixed(m) => {
            hybrid(m.hybrid.key_digits(l1)) + engine.adopted_key_bytes() as usize
        }
    }
}

/// `x` to three decimals (for JSON).
fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}

/// Bits of a prime, as `log2`.
fn bits(p: u64) -> f64 {
    (p as f64).log2()
}

/// The report of `ctx` as JSON (the markdown is made from it).
fn report(ctx: &CkksContext, method_asked: &KeySwitchMethod) -> Value {
    let n = ctx.n();
    let (q, p) = (ctx.q_primes(), ctx.p_primes());
    let log_q: f64 = q.iter().map(|&x| bits(x)).sum();
    let log_p: f64 = p.iter().map(|&x| bits(x)).sum();
    let log_qp = ctx.log_qp();
    let verdicts: Vec<Value> = [
        SecurityLevel::Bits128,
        SecurityLevel::Bits192,
        SecurityLevel::Bits256,
    ]
    .into_iter()
    .map(|level| {
        json!({
            "bits": level.bits(),
            "max_log_qp": security::max_log_qp(n, level),
            "secure": security::check(n, log_qp, level).is_ok(),
        })
    })
    .collect();
    let ct_bytes = 2 * n * q.len() * 8;
    let key_bytes = switching_key_bytes(ctx);
    json!({
        "log_n": n.trailing_zeros(),
        "n": n,
        "slots": ctx.max_slots(),
        "max_level": ctx.max_level(),
        "q_primes": q,
        "q_bits": q.iter().map(|&x| (bits(x) * 10.0).round() / 10.0).collect::<Vec<_>>(),
        "p_primes": p,
        "p_bits": p.iter().map(|&x| (bits(x) * 10.0).round() / 10.0).collect::<Vec<_>>(),
        "log_q": round3(log_q),
        "log_p": round3(log_p),
        "log_qp": round3(log_qp),
        "dnum": ctx.dnum(),
        "digit_primes": (0..ctx.dnum())
            .map(|j| ctx.digits().range(j, ctx.max_level() + 1).len())
            .collect::<Vec<_>>(),
        "digits_by_bits": ctx.digits().is_by_bits(),
        "log_scale": ctx.default_scale().to_f64().log2(),
        "secret": format!("{:?}", ctx.secret_distribution()),
        "key_switching_asked": method_asked.name(),
        "key_switching": ctx.key_switch_method().name(),
        "security": verdicts,
        "ciphertext_bytes": ct_bytes,
        "ciphertext_mib": ct_bytes as f64 / f64::from(1u32 << 20),
        "switching_key_bytes": key_bytes,
        "switching_key_mib": key_bytes as f64 / f64::from(1u32 << 20),
    })
}

/// `[a, b, b, b]` as `a + 3·b`.
fn run_length(bits: &[Value]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bits.len() {
        let j = (i..bits.len())
            .find(|&j| bits[j] != bits[i])
            .unwrap_or(bits.len());
        out.push(if j - i == 1 {
            bits[i].to_string()
        } else {
            format!("{}·{}", j - i, bits[i])
        });
        i = j;
    }
    out.join(" + ")
}

/// The report as markdown.
fn markdown(r: &Value) -> String {
    let mut t = Table::new(["", "value"], 2);
    let row = |t: &mut Table, k: &str, v: String| t.push(vec![k.into(), v]);
    row(&mut t, "N", format!("2^{} = {}", r["log_n"], r["n"]));
    row(&mut t, "slots", r["slots"].to_string());
    row(&mut t, "max level L", r["max_level"].to_string());
    let qb = r["q_bits"].as_array().cloned().unwrap_or_default();
    let pb = r["p_bits"].as_array().cloned().unwrap_or_default();
    row(
        &mut t,
        "chain Q (bits)",
        format!("{} primes: {}", qb.len(), run_length(&qb)),
    );
    row(
        &mut t,
        "special P (bits)",
        format!("{} primes: {}", pb.len(), run_length(&pb)),
    );
    let f = |k: &str| format!("{:.1}", r[k].as_f64().unwrap_or(f64::NAN));
    row(&mut t, "log Q", f("log_q"));
    row(&mut t, "log P", f("log_p"));
    row(&mut t, "log QP", f("log_qp"));
    row(&mut t, "dnum", r["dnum"].to_string());
    let primes: Vec<String> = r["digit_primes"]
        .as_array()
        .map(|a| a.iter().map(Value::to_string).collect())
        .unwrap_or_default();
    row(
        &mut t,
        "digits (primes each)",
        format!(
            "{} ({})",
            primes.join(", "),
            if r["digits_by_bits"] == json!(true) {
                "by bits"
            } else {
                "uniform"
            }
        ),
    );
    row(&mut t, "scale", format!("2^{}", f("log_scale")));
    row(&mut t, "secret", r["secret"].as_str().unwrap_or("").into());
    let (asked, got) = (
        r["key_switching_asked"].as_str().unwrap_or(""),
        r["key_switching"].as_str().unwrap_or(""),
    );
    row(
        &mut t,
        "key switching",
        if asked == got {
            got.into()
        } else {
            format!("{got} ({asked}: the cost model's pick)")
        },
    );
    row(
        &mut t,
        "ciphertext MiB",
        fmt_mib(r["ciphertext_bytes"].as_u64().unwrap_or(0) as usize),
    );
    row(
        &mut t,
        "switching key MiB (relin, each Galois)",
        fmt_mib(r["switching_key_bytes"].as_u64().unwrap_or(0) as usize),
    );
    let mut s = Table::new(["security", "max log QP", "verdict"], 1);
    for v in r["security"].as_array().into_iter().flatten() {
        s.push(vec![
            format!("{}-bit", v["bits"]),
            v["max_log_qp"]
                .as_u64()
                .map_or("no table entry".into(), |b| b.to_string()),
            if v["secure"].as_bool() == Some(true) {
                "secure"
            } else {
                "INSECURE"
            }
            .into(),
        ]);
    }
    format!(
        "# hekate params ckks\n\n{}\nHomomorphicEncryption.org table (uniform ternary \
         secret, σ = 3.2), log QP = {}:\n\n{}\nSizes are in memory, one u64 word per \
         residue: a ciphertext 2·N·(L+1)·8 bytes, a hybrid key 2·d·N·(L+1+k)·8, a KLSS key \
         its expanded form.\n",
        t.to_markdown(),
        f("log_qp"),
        s.to_markdown()
    )
}

/// Runs `hekate params ckks`.
pub fn run(args: CkksArgs) -> Result<Outcome, Box<dyn Error>> {
    let ctx = args.context()?;
    let r = report(&ctx, &args.key_switching);
    match args.format {
        ReportFormat::Markdown => crate::stdout(&markdown(&r)),
        ReportFormat::Json => crate::stdout(&(serde_json::to_string_pretty(&r)? + "\n")),
    }
    match security::check(ctx.n(), ctx.log_qp(), args.security) {
        Err(e) if !args.allow_insecure => Ok(Outcome::CheckFailed(format!(
            "{e} (--allow-insecure to exit 0)"
        ))),
        _ => Ok(Outcome::Success),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size formula agrees with the keys the library generates.
    #[test]
    fn key_and_ciphertext_sizes_match_generated_ones() {
        use hekate::rand_chacha::ChaCha20Rng;
        use hekate::rand_core::SeedableRng;
        for method in ["hybrid", "klss:2"] {
            let ctx = CkksParameters::new(12)
                .log_q(&[40, 30, 30])
                .log_p(&[45])
                .dnum(3)
                .key_switching(KeySwitchMethod::parse(method).unwrap())
                .security(SecurityLevel::NotChecked)
                .build()
                .unwrap();
            let mut rng = ChaCha20Rng::seed_from_u64(1);
            let sk = ctx.generate_secret_key_with(&mut rng);
            let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
            assert_eq!(switching_key_bytes(&ctx), rlk.0.size_bytes(), "{method}");
            let pk = ctx.generate_public_key_with(&sk, &mut rng);
            let pt = ctx
                .encode(&[num_complex::Complex64::new(0.5, 0.0)])
                .unwrap();
            let ct = ctx.encrypt_with(&pt, &pk, &mut rng).unwrap();
            let r = report(&ctx, &KeySwitchMethod::Hybrid);
            assert_eq!(r["ciphertext_bytes"], json!(ct.size_bytes()));
        }
    }

    #[test]
    fn run_lengths() {
        let v: Vec<Value> = [60, 50, 50, 50, 61].map(|b| json!(b)).to_vec();
        assert_eq!(run_length(&v), "60 + 3·50 + 61");
    }
}
