//! `hekate params fhew`: one FHEW parameter set and blind-rotation method described —
//! dimensions and moduli, gadget bases and digit counts, the security the library
//! estimates ([`FhewParams::security`]), the predicted blind-rotation noise and gate
//! failure probability ([`hekate::fhew::noise`]), and the key sizes of a key generated
//! here with a fixed seed (progress bar on stderr; `--no-keygen` skips it).
//!
//! Below the asked security level (`--security`, default 128) the command exits with
//! code 2 unless `--allow-insecure`.

use super::{parse_level, ReportFormat};
use crate::bench::{fmt_mib, time_once, Table};
use crate::progress::Bar;
use crate::Outcome;
use clap::Args;
use hekate::fhew::noise::{predicted_sigma_acc2, MAX_GATE_FAILURE};
use hekate::fhew::params::{FhewParams, Method, MethodConfig};
use hekate::fhew::{FhewContext, GadgetDecomposition};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::rlwe::gsw::Gadget;
use hekate::serialize::fhew_params_from_bytes;
use serde_json::{json, Value};
use std::error::Error;
use std::path::PathBuf;

/// Options of `hekate params fhew`.
#[derive(Debug, Args)]
pub struct FhewArgs {
    /// The preset (`hekate params list`, or the insecure test set TOY), e.g. STD128 or
    /// OPENFHE_STD128_LMKCDEY
    #[arg(long, required_unless_present = "from", conflicts_with = "from")]
    preset: Option<String>,
    /// Read the parameters from a file of serialized FHEW parameters instead
    #[arg(long, value_name = "FILE")]
    from: Option<PathBuf>,
    /// The blind rotation: AP, GINX, LMKCDEY-base, LMKCDEY-aux, LMKCDEY-even (Alg3, Alg4,
    /// Alg5), optionally +ALTMULT [default: the LMKCDEY variant that applies]
    #[arg(long)]
    method: Option<String>,
    /// Do not generate a key (no key sizes): AP keys at the larger sets take minutes and
    /// GiBs
    #[arg(long)]
    no_keygen: bool,
    /// The security level asked for: 128, 192, 256 or none
    #[arg(long, default_value = "128", value_parser = parse_level)]
    security: SecurityLevel,
    /// Exit 0 even if the set is below --security
    #[arg(long)]
    allow_insecure: bool,
    /// Output: markdown or json
    #[arg(long, value_enum, default_value_t = ReportFormat::Markdown)]
    format: ReportFormat,
}

/// `log2` of a probability, `-inf` for 0.
fn log2(p: f64) -> f64 {
    p.log2()
}

/// The report as JSON (the markdown is made from it).
fn report(p: &FhewParams, cfg: MethodConfig, keygen: bool) -> Result<Value, Box<dyn Error>> {
    p.validate()?;
    if !cfg.method.applies(p.q, p.big_n) {
        return Err(format!(
            "{} does not apply to {} (q = {}, N = {}): LMKCDEY-base and -aux need q = 2N, \
             LMKCDEY-even q < 2N",
            cfg.label(),
            p.name,
            p.q,
            p.big_n
        )
        .into());
    }
    let big_q = p.big_q()?;
    let gadget = |log_bg: u32| -> Result<Value, Box<dyn Error>> {
        let g = Gadget::new(big_q, log_bg)?;
        Ok(json!({"log_bg": log_bg, "digits": g.digits()}))
    };
    // The blind-rotation keys' bases: one, or the preset's schedule.
    let schedule: Vec<Value> = if p.bg_schedule.is_empty() {
        vec![json!({"count": p.n, "gadget": gadget(p.log_bg)?})]
    } else {
        p.bg_schedule
            .iter()
            .map(|&(lb, count)| Ok(json!({"count": count, "gadget": gadget(lb)?})))
            .collect::<Result<_, Box<dyn Error>>>()?
    };
    let security = p.security();
    let noise = |d: GadgetDecomposition| -> Result<Value, Box<dyn Error>> {
        Ok(match predicted_sigma_acc2(p, big_q, cfg, d)? {
            Some(s) => {
                let f = p.failure_probability(s);
                json!({
                    "sigma_acc2": s,
                    "gate_failure": f,
                    "log2_gate_failure": if f > 0.0 { Some(log2(f)) } else { None },
                    "within_default_bound": f <= MAX_GATE_FAILURE,
                })
            }
            None => Value::Null,
        })
    };
    let keys = if keygen {
        let ctx = FhewContext::with_security(p, SecurityLevel::NotChecked)?;
        let mut rng = ChaCha20Rng::seed_from_u64(0x4648_4557);
        let sk = ctx.generate_secret_key_with(&mut rng)?;
        let bar = Bar::new(0, "keys");
        let (key, t) =
            time_once(|| ctx.generate_bootstrap_key_with_progress(&sk, cfg, &mut rng, &bar));
        drop(bar);
        let key = key?;
        json!({
            "keygen_seconds": t.as_secs_f64(),
            "rlwe_prime_count": key.brk.rlwe_prime_count(),
            "blind_rotation_bytes": key.brk.compressed_bytes(),
            "key_switching_bytes": key.ksk.compressed_bytes(),
            "key_switching_memory_bytes": key.ksk.memory_bytes(),
            "total_bytes": key.compressed_bytes(),
        })
    } else {
        Value::Null
    };
    Ok(json!({
        "name": p.name,
        "source": p.source,
        "claimed_security": p.claimed_security,
        "n": p.n,
        "q": p.q,
        "big_n": p.big_n,
        "log_big_q": p.log_big_q,
        "big_q": big_q,
        "automorphism_gadget": gadget(p.log_bg)?,
        "blind_rotation_gadgets": schedule,
        "b_r": p.b_r,
        "d_r": p.d_r(),
        "log_q_ks": p.log_q_ks,
        "log_b_ks": p.log_b_ks,
        "d_ks": p.log_q_ks.div_ceil(p.log_b_ks),
        "sigma": p.sigma,
        "lwe_secret": format!("{:?}", p.lwe_secret),
        "security": {
            "bits": security.level().and_then(SecurityLevel::bits),
            "ring": security.ring.level.and_then(SecurityLevel::bits),
            "ring_method": security.ring.method,
            "lwe": security.lwe.level.and_then(SecurityLevel::bits),
            "lwe_method": security.lwe.method,
            "summary": security.to_string(),
        },
        "method": cfg.label(),
        "noise_exact": noise(GadgetDecomposition::Exact)?,
        "noise_approximate": noise(GadgetDecomposition::Approximate)?,
        "max_gate_failure": MAX_GATE_FAILURE,
        "paper_sigma_acc2": p.paper_sigma_acc2(cfg),
        "paper_key_mb": p.paper_key_mb(cfg),
        "keys": keys,
    }))
}

/// The report as markdown.
fn markdown(r: &Value) -> String {
    let mut t = Table::new(["", "value"], 2);
    let row = |t: &mut Table, k: &str, v: String| t.push(vec![k.into(), v]);
    let s = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        v => v.to_string(),
    };
    row(
        &mut t,
        "set",
        format!("{} ({})", s(&r["name"]), s(&r["source"])),
    );
    row(&mut t, "n (LWE dimension)", s(&r["n"]));
    row(&mut t, "q (LWE modulus)", s(&r["q"]));
    row(&mut t, "N (ring degree)", s(&r["big_n"]));
    row(
        &mut t,
        "Q (accumulator prime)",
        format!("{} ({} bits)", s(&r["big_q"]), s(&r["log_big_q"])),
    );
    let g = |g: &Value| format!("B_g = 2^{}, d_g = {}", g["log_bg"], g["digits"]);
    let sched: Vec<String> = r["blind_rotation_gadgets"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|run| format!("{} keys: {}", run["count"], g(&run["gadget"])))
        .collect();
    row(&mut t, "blind-rotation gadget", sched.join("; "));
    row(&mut t, "automorphism gadget", g(&r["automorphism_gadget"]));
    row(
        &mut t,
        "AP base",
        format!("B_r = {}, d_r = {}", r["b_r"], r["d_r"]),
    );
    row(
        &mut t,
        "key switching",
        format!(
            "Q_ks = 2^{}, B_ks = 2^{}, d_ks = {}",
            r["log_q_ks"], r["log_b_ks"], r["d_ks"]
        ),
    );
    row(
        &mut t,
        "σ, LWE secret",
        format!("{}, {}", r["sigma"], s(&r["lwe_secret"])),
    );
    row(&mut t, "claimed security", s(&r["claimed_security"]));
    row(&mut t, "security (hekate)", s(&r["security"]["summary"]));
    row(&mut t, "method", s(&r["method"]));
    for (key, label) in [
        ("noise_exact", "exact gadget"),
        ("noise_approximate", "approximate gadget"),
    ] {
        let n = &r[key];
        let v = if n.is_null() {
            "no prediction (reduced automorphism key set)".to_string()
        } else {
            format!(
                "σ_acc² = {:.3e}, P_fail = {:.1e} (2^{:.1}){}",
                n["sigma_acc2"].as_f64().unwrap_or(f64::NAN),
                n["gate_failure"].as_f64().unwrap_or(f64::NAN),
                n["log2_gate_failure"].as_f64().unwrap_or(f64::NEG_INFINITY),
                if n["within_default_bound"].as_bool() == Some(true) {
                    ""
                } else {
                    ", above the evaluators' default bound 2^-32"
                }
            )
        };
        row(&mut t, &format!("predicted noise, {label}"), v);
    }
    if let Some(v) = r["paper_sigma_acc2"].as_f64() {
        row(
            &mut t,
            "paper σ_acc² (seed 002 Table 3)",
            format!("{v:.3e}"),
        );
    }
    if let Some(v) = r["paper_key_mb"].as_f64() {
        row(&mut t, "paper key MB (seed 002 Table 4)", format!("{v:.0}"));
    }
    let k = &r["keys"];
    if !k.is_null() {
        let mib = |key: &str| fmt_mib(k[key].as_u64().unwrap_or(0) as usize);
        row(
            &mut t,
            "keygen s (one thread)",
            format!("{:.2}", k["keygen_seconds"].as_f64().unwrap_or(f64::NAN)),
        );
        row(
            &mut t,
            "blind-rotation RLWE' count",
            s(&k["rlwe_prime_count"]),
        );
        row(
            &mut t,
            "blind-rotation + automorphism keys MiB",
            mib("blind_rotation_bytes"),
        );
        row(
            &mut t,
            "LWE key-switching key MiB",
            format!(
                "{} ({} in memory)",
                mib("key_switching_bytes"),
                mib("key_switching_memory_bytes")
            ),
        );
        row(&mut t, "bootstrapping key MiB", mib("total_bytes"));
    }
    format!(
        "# hekate params fhew\n\n{}\nKey sizes are seed-compressed (as serialized), of a \
         key generated with a fixed seed. Noise: predictions of hekate::fhew::noise \
         (units of Q for σ_acc²; P_fail of one two-input gate).\n",
        t.to_markdown()
    )
}

/// Runs `hekate params fhew`.
pub fn run(args: FhewArgs) -> Result<Outcome, Box<dyn Error>> {
    let owned;
    let p: &FhewParams = match (&args.preset, &args.from) {
        (_, Some(path)) => {
            let bytes =
                std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            owned = fhew_params_from_bytes(&bytes)?;
            &owned
        }
        (Some(name), None) => FhewParams::by_name_or_test(name)?,
        (None, None) => return Err("give --preset NAME or --from FILE".into()),
    };
    let cfg = match &args.method {
        Some(m) => MethodConfig::by_name(m)?,
        None => MethodConfig::new(Method::lmkcdey(p)),
    };
    let r = report(p, cfg, !args.no_keygen)?;
    match args.format {
        ReportFormat::Markdown => crate::stdout(&markdown(&r)),
        ReportFormat::Json => crate::stdout(&(serde_json::to_string_pretty(&r)? + "\n")),
    }
    let security = p.security();
    if !security.meets(args.security) && !args.allow_insecure {
        return Ok(Outcome::CheckFailed(format!(
            "{} does not meet {}: {security} (--allow-insecure to exit 0)",
            p.name, args.security
        )));
    }
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hekate::fhew::params::TOY;

    #[test]
    fn toy_report_has_keys_noise_and_security() {
        let cfg = MethodConfig::new(Method::lmkcdey(&TOY));
        let r = report(&TOY, cfg, true).unwrap();
        assert_eq!(r["n"], json!(32));
        assert!(r["keys"]["total_bytes"].as_u64().unwrap() > 0);
        assert!(r["noise_exact"]["sigma_acc2"].as_f64().unwrap() > 0.0);
        assert_eq!(r["security"]["bits"], Value::Null);
        let md = markdown(&r);
        assert!(md.contains("bootstrapping key MiB"), "{md}");
        let bad = MethodConfig::new(Method::LmkcdeyBase);
        if !bad.method.applies(TOY.q, TOY.big_n) {
            assert!(report(&TOY, bad, false).is_err());
        }
    }
}
