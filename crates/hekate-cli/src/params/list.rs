//! `hekate params list`: every named parameter set the library has — the CKKS presets
//! ([`hekate::params::ckks::PRESETS`]) with their HomomorphicEncryption.org verdicts, and
//! every FHEW preset [`FhewParams::by_name`] accepts ([`hekate::fhew::params::PRESETS`])
//! with the security the library estimates for it. Nothing is built: this is quick.

use super::ReportFormat;
use crate::bench::Table;
use crate::Outcome;
use clap::Args;
use hekate::fhew::params::{FhewParams, PRESETS as FHEW_PRESETS};
use hekate::params::ckks::{CkksPreset, PRESETS as CKKS_PRESETS};
use hekate::params::security::{self, SecurityLevel};
use serde_json::{json, Value};
use std::error::Error;

/// Options of `hekate params list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Output: markdown or json
    #[arg(long, value_enum, default_value_t = ReportFormat::Markdown)]
    format: ReportFormat,
}

/// The levels the table has, strongest first.
const LEVELS: [SecurityLevel; 3] = [
    SecurityLevel::Bits256,
    SecurityLevel::Bits192,
    SecurityLevel::Bits128,
];

/// The strongest level `p`'s `log QP` (by its prime sizes) meets, in bits.
fn ckks_level(p: &CkksPreset) -> Option<u32> {
    let n = 1usize << p.log_n;
    LEVELS
        .into_iter()
        .find(|&l| security::check(n, f64::from(p.log_qp()), l).is_ok())
        .and_then(SecurityLevel::bits)
}

/// One CKKS preset as JSON.
fn ckks_json(p: &CkksPreset) -> Value {
    json!({
        "name": p.name,
        "log_n": p.log_n,
        "depth": p.depth(),
        "log_q": p.log_q,
        "log_p": p.log_p,
        "log_qp": p.log_qp(),
        "log_scale": p.log_scale,
        "dnum": p.dnum,
        "security_bits": ckks_level(p),
    })
}

/// One FHEW preset as JSON.
fn fhew_json(p: &FhewParams) -> Value {
    let s = p.security();
    json!({
        "name": p.name,
        "n": p.n,
        "q": p.q,
        "big_n": p.big_n,
        "log_big_q": p.log_big_q,
        "log_bg": p.log_bg,
        "bg_schedule": p.bg_schedule,
        "b_r": p.b_r,
        "log_q_ks": p.log_q_ks,
        "log_b_ks": p.log_b_ks,
        "sigma": p.sigma,
        "claimed_security": p.claimed_security,
        "security_bits": s.level().and_then(SecurityLevel::bits),
        "security": s.to_string(),
        "source": p.source,
    })
}

/// The list as JSON: `{"ckks": [...], "fhew": [...]}`.
pub(crate) fn list_json() -> Value {
    json!({
        "ckks": CKKS_PRESETS.iter().map(|p| ckks_json(p)).collect::<Vec<_>>(),
        "fhew": FHEW_PRESETS.iter().map(|p| fhew_json(p)).collect::<Vec<_>>(),
    })
}

/// A security level in bits, or `below 128`.
fn bits_label(b: Option<u32>) -> String {
    b.map_or("below 128".into(), |b| b.to_string())
}

/// The list as markdown.
fn markdown() -> String {
    let mut c = Table::new(
        [
            "CKKS preset",
            "log N",
            "depth",
            "log Q bits",
            "log P bits",
            "log QP",
            "log Δ",
            "dnum",
            "security (bits)",
        ],
        1,
    );
    for p in CKKS_PRESETS {
        c.push(vec![
            p.name.into(),
            p.log_n.to_string(),
            p.depth().to_string(),
            format!("{} + {}·{}", p.log_q[0], p.log_q.len() - 1, p.log_q[1]),
            format!("{}·{}", p.log_p.len(), p.log_p[0]),
            p.log_qp().to_string(),
            p.log_scale.to_string(),
            p.dnum.to_string(),
            bits_label(ckks_level(p)),
        ]);
    }
    let mut f = Table::new(
        [
            "FHEW preset",
            "n",
            "q",
            "N",
            "log Q",
            "log B_g",
            "B_r",
            "log Q_ks",
            "log B_ks",
            "security (hekate, bits)",
            "claimed",
        ],
        1,
    );
    for p in FHEW_PRESETS {
        let lbg = if p.bg_schedule.is_empty() {
            p.log_bg.to_string()
        } else {
            p.bg_schedule
                .iter()
                .map(|(lb, c)| format!("{c}×{lb}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        f.push(vec![
            p.name.into(),
            p.n.to_string(),
            p.q.to_string(),
            p.big_n.to_string(),
            p.log_big_q.to_string(),
            lbg,
            p.b_r.to_string(),
            p.log_q_ks.to_string(),
            p.log_b_ks.to_string(),
            bits_label(p.security().level().and_then(SecurityLevel::bits)),
            p.claimed_security.into(),
        ]);
    }
    format!(
        "# hekate params list\n\nCKKS (`hekate params ckks --preset NAME`; security from \
         the HomomorphicEncryption.org table, by the prime sizes):\n\n{}\nFHEW (`hekate \
         params fhew --preset NAME`; security as FhewParams::security estimates it):\n\n{}",
        c.to_markdown(),
        f.to_markdown()
    )
}

/// Runs `hekate params list`.
pub fn run(args: ListArgs) -> Result<Outcome, Box<dyn Error>> {
    match args.format {
        ReportFormat::Markdown => crate::stdout(&markdown()),
        ReportFormat::Json => crate::stdout(&(serde_json::to_string_pretty(&list_json())? + "\n")),
    }
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every listed FHEW name is accepted by `FhewParams::by_name`; every CKKS preset is
    /// 128-bit secure.
    #[test]
    fn lists_every_preset() {
        let j = list_json();
        let fhew = j["fhew"].as_array().unwrap();
        assert_eq!(fhew.len(), FHEW_PRESETS.len());
        for p in fhew {
            assert!(FhewParams::by_name(p["name"].as_str().unwrap()).is_ok());
        }
        for p in j["ckks"].as_array().unwrap() {
            assert!(p["security_bits"].as_u64().unwrap() >= 128, "{p}");
        }
        let md = markdown();
        assert!(md.contains("PN16QP1747") && md.contains("OPENFHE_STD128_LMKCDEY"));
    }
}
