//! `hekate inspect FILE [--params PARAMS]`: what a serialized hekate object is.
//!
//! 1. The 16-byte header, read by [`peek_header`] without any key or parameters: magic,
//!    format version, object tag (code and name), parameter fingerprint, and the body
//!    length (the bytes after the header).
//! 2. Parameters (CKKS, BFV/BGV, FHEW) are self-contained: they are parsed and validated
//!    as they are, and summarised.
//! 3. With `--params PARAMS` (serialized parameters of the same scheme), the object is
//!    parsed and validated under them with the library's reader — the one an application
//!    would use — and summarised (level, slots, scale, key counts, sizes), or the
//!    library's error is printed: a parameter mismatch names both fingerprints.
//!
//! Reads use the library's limits ([`ReadPolicy::DEFAULT_MAX_ALLOC`]) with no security
//! floor (this only describes; an application reading the same bytes applies its own
//! policy). Any input — truncated, foreign, hostile — ends in a message and exit code 1,
//! never a panic. Threshold-FHEW objects are described by their header only.

use crate::params::ReportFormat;
use crate::Outcome;
use clap::Args;
use hekate::ckks::bootstrap::EncapsulationKeys;
use hekate::ckks::{CkksContext, GaloisKeys, RelinearizationKey};
use hekate::fhew::{
    BlindRotationKey, BootstrapKey, FhewContext, FhewSecretKey, LweCiphertext, LweKeySwitchKey,
    LweSecretKey,
};
use hekate::params::SecurityLevel;
use hekate::ring::Poly;
use hekate::rlwe::integer::IntegerContext;
use hekate::rlwe::{HybridKey, PublicKey, SecretKey};
use hekate::serialize::{
    ckks_context_from_bytes_with, fhew_context_from_bytes_with, integer_context_from_bytes_with,
    mlwe_context_from_bytes_with, peek_header, Deserialize, Header, ReadPolicy, FORMAT_VERSION,
    HEADER_LEN, MAGIC,
};
use serde_json::{json, Map, Value};
use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Options of `hekate inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The serialized object
    file: PathBuf,
    /// Serialized parameters (CKKS, BFV/BGV, FHEW or MLWE-CKKS) to parse the object under
    #[arg(long, value_name = "PARAMS_FILE")]
    params: Option<PathBuf>,
    /// Output: markdown or json
    #[arg(long, value_enum, default_value_t = ReportFormat::Markdown)]
    format: ReportFormat,
}

/// The tag code of CKKS parameters (self-contained).
const CKKS_PARAMS: u16 = 16;
/// The tag code of FHEW parameters (self-contained).
const FHEW_PARAMS: u16 = 32;
/// The tag code of BFV/BGV parameters (self-contained).
const INTEGER_PARAMS: u16 = 0x0100;
/// The tag code of MLWE-CKKS parameters (self-contained).
const MLWE_PARAMS: u16 = 0x0200;

/// The reader's policy: the library's limits, no security floor.
fn policy() -> ReadPolicy {
    ReadPolicy::default().min_security(SecurityLevel::NotChecked)
}

/// Parameters read from a file, of one scheme.
enum Params {
    /// CKKS: plaintexts, ciphertexts, evaluation and encapsulation keys, ring objects.
    Ckks(Arc<CkksContext>),
    /// BFV/BGV: plaintexts, ciphertexts, relinearization and Galois keys.
    Integer(Arc<IntegerContext>),
    /// FHEW: LWE objects, secret, key-switching, blind-rotation and bootstrapping keys.
    Fhew(Arc<FhewContext>),
    /// MLWE-CKKS: ciphertexts, secret and public keys, relinearization, rank-reduction and
    /// rotation keys.
    Mlwe(Arc<hekate::mlwe::MlweContext>),
}

/// The bytes of `path`, or an error naming it.
fn read(path: &Path) -> Result<Vec<u8>, Box<dyn Error>> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()).into())
}

/// The header as JSON.
fn header_json(h: &Header, len: usize) -> Value {
    json!({
        "magic": String::from_utf8_lossy(&MAGIC[..3]),
        "format_version": h.version,
        "tag": h.tag.code(),
        "tag_name": h.tag.name(),
        "fingerprint": format!("{:#018x}", h.fingerprint),
        "body_bytes": len.saturating_sub(HEADER_LEN),
    })
}

/// The raw header fields of `bytes` (at least 16 of them), for an error report when the
/// library refuses the header.
fn raw_header(bytes: &[u8]) -> String {
    let h = &bytes[..HEADER_LEN.min(bytes.len())];
    let hex: Vec<String> = h.iter().map(|b| format!("{b:02x}")).collect();
    format!("first {} bytes: {}", h.len(), hex.join(" "))
}

/// Parses self-contained parameters, after their header said which.
fn parse_params(bytes: &[u8], h: &Header) -> Result<Params, Box<dyn Error>> {
    Ok(match h.tag.code() {
        CKKS_PARAMS => Params::Ckks(ckks_context_from_bytes_with(bytes, &policy())?),
        INTEGER_PARAMS => Params::Integer(integer_context_from_bytes_with(bytes, &policy())?),
        FHEW_PARAMS => Params::Fhew(fhew_context_from_bytes_with(bytes, &policy())?),
        MLWE_PARAMS => Params::Mlwe(mlwe_context_from_bytes_with(bytes, &policy())?),
        _ => {
            return Err(format!(
                "not parameters: a {} (tag {}); --params takes serialized CKKS, BFV/BGV, \
                 FHEW or MLWE-CKKS parameters",
                h.tag.name(),
                h.tag.code()
            )
            .into())
        }
    })
}

/// A summary of parameters.
fn params_summary(p: &Params) -> Value {
    let ring = |n: usize, q: &[u64], pp: &[u64], log_qp: f64, dnum: usize| {
        json!({
            "n": n,
            "q_limbs": q.len(),
            "p_limbs": pp.len(),
            "max_level": q.len().saturating_sub(1),
            "log_qp": (log_qp * 10.0).round() / 10.0,
            "dnum": dnum,
        })
    };
    match p {
        Params::Ckks(c) => {
            let mut v = ring(c.n(), &c.q_primes(), &c.p_primes(), c.log_qp(), c.dnum());
            v["scheme"] = json!("CKKS");
            v["slots"] = json!(c.max_slots());
            v["log_scale"] = json!(c.default_scale().log2());
            v["security"] = json!(c.security().to_string());
            v["key_switching"] = json!(c.key_switch_method().name());
            v
        }
        Params::Integer(c) => {
            let mut v = ring(
                c.n(),
                &c.q_primes(),
                &c.p_primes(),
                c.log_qp(),
                c.rlwe().dnum(),
            );
            v["scheme"] = json!(c.scheme().name());
            v["t"] = json!(c.t());
            v["security"] = json!(c.security().to_string());
            v
        }
        Params::Mlwe(c) => {
            let mut v = ring(
                c.n(),
                &c.q_primes(),
                &c.p_primes(),
                c.ring().q().log_product() + c.ring().p().log_product(),
                c.dnum(),
            );
            v["scheme"] = json!("MLWE-CKKS");
            v["rank"] = json!(c.rank());
            v["rank_hat"] = json!(c.rank_hat());
            v["slots"] = json!(c.max_slots());
            v["security"] = json!(c.security().to_string());
            v
        }
        Params::Fhew(c) => {
            let p = c.params();
            json!({
                "scheme": "FHEW",
                "name": p.name,
                "n": p.n,
                "q": p.q,
                "big_n": p.big_n,
                "log_big_q": p.log_big_q,
                "log_bg": p.log_bg,
                "log_q_ks": p.log_q_ks,
                "security": p.security().to_string(),
            })
        }
    }
}

/// Parses the object `bytes` (tag `code`) under `p` and summarises it.
fn parse_object(bytes: &[u8], code: u16, p: &Params) -> Result<Value, Box<dyn Error>> {
    let pol = policy();
    let mismatch = |scheme: &str| -> Box<dyn Error> {
        format!("tag {code} cannot be read under {scheme} parameters (another scheme's object)")
            .into()
    };
    Ok(match p {
        Params::Ckks(ctx) => match code {
            1 => {
                let x = Poly::from_bytes_with(bytes, ctx.ring(), &pol)?;
                json!({"q_limbs": x.q_limbs(), "p_limbs": x.p_limbs(), "form": format!("{:?}", x.form())})
            }
            2 => {
                let x = SecretKey::from_bytes_with(bytes, ctx.ring(), &pol)?;
                json!({"n": x.coeffs().len()})
            }
            3 => {
                let x = PublicKey::from_bytes_with(bytes, ctx.ring(), &pol)?;
                json!({"q_limbs": x.b.q_limbs(), "p_limbs": x.b.p_limbs()})
            }
            4 => {
                let x = HybridKey::from_bytes_with(bytes, ctx.ring(), &pol)?;
                json!({"digits": x.digits.len(), "q_limbs": x.q_limbs(), "memory_bytes": x.size_bytes()})
            }
            17 => {
                let x = hekate::ckks::Plaintext::from_bytes_with(bytes, ctx, &pol)?;
                json!({"level": x.level(), "slots": x.slots(), "log2_scale": x.scale().log2(), "memory_bytes": x.size_bytes()})
            }
            18 => {
                let x = hekate::ckks::Ciphertext::from_bytes_with(bytes, ctx, &pol)?;
                json!({
                    "level": x.level(),
                    "degree": x.degree(),
                    "slots": x.slots(),
                    "log2_scale": x.scale().log2(),
                    "seed_compressed": x.seed().is_some(),
                    "memory_bytes": x.size_bytes(),
                })
            }
            19 => {
                let x = RelinearizationKey::from_bytes_with(bytes, ctx, &pol)?;
                json!({"max_level": x.max_level(), "memory_bytes": x.0.size_bytes()})
            }
            20 => {
                let x = GaloisKeys::from_bytes_with(bytes, ctx, &pol)?;
                json!({"keys": x.len(), "galois_elements": x.elements(), "memory_bytes": x.size_bytes()})
            }
            21 => {
                let x = EncapsulationKeys::from_bytes_with(bytes, ctx, &pol)?;
                json!({"hamming_weight": x.hamming_weight(), "memory_bytes": x.size_bytes()})
            }
            _ => return Err(mismatch("CKKS")),
        },
        Params::Integer(ctx) => match code {
            0x0101 => {
                let x = hekate::rlwe::integer::Plaintext::from_bytes_with(bytes, ctx, &pol)?;
                json!({"coefficients": x.coefficients().len()})
            }
            0x0102 => {
                let x = hekate::rlwe::integer::Ciphertext::from_bytes_with(bytes, ctx, &pol)?;
                json!({
                    "level": x.level(),
                    "degree": x.degree(),
                    "seed_compressed": x.seed().is_some(),
                    "memory_bytes": x.size_bytes(),
                })
            }
            0x0103 => {
                let x = ctx.relinearization_key_from_bytes_with(bytes, &pol)?;
                json!({"max_level": x.max_level(), "memory_bytes": x.0.size_bytes()})
            }
            0x0104 => {
                let x = ctx.galois_keys_from_bytes_with(bytes, &pol)?;
                json!({"keys": x.len(), "galois_elements": x.elements(), "memory_bytes": x.size_bytes()})
            }
            _ => return Err(mismatch("BFV/BGV")),
        },
        Params::Fhew(ctx) => match code {
            33 => {
                let x = LweCiphertext::from_bytes_with(bytes, ctx, &pol)?;
                json!({"dimension": x.a.len(), "q": x.q})
            }
            34 => {
                let x = LweSecretKey::from_bytes_with(bytes, ctx, &pol)?;
                json!({"dimension": x.dim()})
            }
            35 => {
                let x = FhewSecretKey::from_bytes_with(bytes, ctx, &pol)?;
                json!({"lwe_dimension": x.lwe.dim(), "ring_degree": x.rlwe.coeffs().len()})
            }
            36 => {
                let x = LweKeySwitchKey::from_bytes_with(bytes, ctx, &pol)?;
                json!({"memory_bytes": x.memory_bytes(), "compressed_bytes": x.compressed_bytes()})
            }
            37 => {
                let x = BlindRotationKey::from_bytes_with(bytes, ctx, &pol)?;
                json!({"rlwe_prime_count": x.rlwe_prime_count(), "compressed_bytes": x.compressed_bytes()})
            }
            38 => {
                let x = BootstrapKey::from_bytes_with(bytes, ctx, &pol)?;
                json!({
                    "method": x.brk.config.label(),
                    "rlwe_prime_count": x.brk.rlwe_prime_count(),
                    "compressed_bytes": x.compressed_bytes(),
                })
            }
            _ => return Err(mismatch("FHEW")),
        },
        Params::Mlwe(ctx) => {
            use hekate::mlwe;
            match code {
                0x0201 => {
                    let x = mlwe::Ciphertext::from_bytes_with(bytes, ctx, &pol)?;
                    json!({
                        "level": x.level(),
                        "rank": x.rank(),
                        "quadratic": x.is_quadratic(),
                        "slots": x.slots(),
                        "log2_scale": x.scale().log2(),
                        "seed_compressed": x.seed().is_some(),
                        "memory_bytes": x.size_bytes(),
                    })
                }
                0x0202 => {
                    mlwe::SecretKey::from_bytes_with(bytes, ctx, &pol)?;
                    json!({"rank": ctx.rank()})
                }
                0x0203 => {
                    mlwe::PublicKey::from_bytes_with(bytes, ctx, &pol)?;
                    json!({"rank": ctx.rank()})
                }
                0x0204 => {
                    let x = mlwe::RelinearizationKey::from_bytes_with(bytes, ctx, &pol)?;
                    json!({
                        "method": format!("{:?}", x.method()),
                        "rank": x.rank(),
                        "q_limbs": x.q_limbs(),
                        "memory_bytes": x.size_bytes(),
                    })
                }
                0x0205 => {
                    let x = mlwe::RankReductionKey::from_bytes_with(bytes, ctx, &pol)?;
                    json!({"from": x.from, "to": x.to, "max_level": x.max_level(), "memory_bytes": x.size_bytes()})
                }
                0x0206 => {
                    mlwe::RotationKey::from_bytes_with(bytes, ctx, &pol)?;
                    json!({"parsed": true})
                }
                0x0207 => {
                    let x = mlwe::HoistedRotationKeys::from_bytes_with(bytes, ctx, &pol)?;
                    json!({"memory_bytes": x.size_bytes()})
                }
                _ => return Err(mismatch("MLWE-CKKS")),
            }
        }
    })
}

/// `"key": value` lines of a JSON object, for markdown.
fn lines(v: &Value) -> String {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| {
                format!(
                    "- {k}: {}\n",
                    v.as_str().map_or(v.to_string(), String::from)
                )
            })
            .collect(),
        v => format!("- {v}\n"),
    }
}

/// Runs `hekate inspect`.
pub fn run(args: InspectArgs) -> Result<Outcome, Box<dyn Error>> {
    let bytes = read(&args.file)?;
    let h = peek_header(&bytes).map_err(|e| {
        format!(
            "{}: {e} ({} bytes; {}; this build reads format version {FORMAT_VERSION})",
            args.file.display(),
            bytes.len(),
            raw_header(&bytes)
        )
    })?;
    let mut out = Map::new();
    out.insert("file".into(), json!(args.file.display().to_string()));
    out.insert("bytes".into(), json!(bytes.len()));
    out.insert("header".into(), header_json(&h, bytes.len()));
    // Self-contained parameters parse on their own; other objects need --params.
    let mut failure: Option<String> = None;
    let own = matches!(h.tag.code(), CKKS_PARAMS | FHEW_PARAMS | INTEGER_PARAMS);
    if own {
        match parse_params(&bytes, &h) {
            Ok(p) => {
                out.insert(
                    "parse".into(),
                    json!({"ok": true, "summary": params_summary(&p)}),
                );
            }
            Err(e) => failure = Some(e.to_string()),
        }
    }
    if let Some(path) = &args.params {
        let pbytes = read(path)?;
        let ph = peek_header(&pbytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let params = parse_params(&pbytes, &ph).map_err(|e| format!("{}: {e}", path.display()))?;
        out.insert(
            "params".into(),
            json!({
                "file": path.display().to_string(),
                "fingerprint": format!("{:#018x}", ph.fingerprint),
                "summary": params_summary(&params),
            }),
        );
        if !own {
            match parse_object(&bytes, h.tag.code(), &params) {
                Ok(s) => {
                    out.insert("parse".into(), json!({"ok": true, "summary": s}));
                }
                Err(e) => failure = Some(e.to_string()),
            }
        }
    }
    if let Some(e) = &failure {
        out.insert("parse".into(), json!({"ok": false, "error": e}));
    }
    let out = Value::Object(out);
    match args.format {
        ReportFormat::Json => crate::stdout(&(serde_json::to_string_pretty(&out)? + "\n")),
        ReportFormat::Markdown => {
            let mut text = format!(
                "# hekate inspect {}\n\n{} bytes\n\n## Header\n\n{}",
                args.file.display(),
                bytes.len(),
                lines(&out["header"])
            );
            if let Some(p) = out.get("params") {
                text.push_str(&format!(
                    "\n## Parameters ({}, fingerprint {})\n\n{}",
                    p["file"].as_str().unwrap_or(""),
                    p["fingerprint"].as_str().unwrap_or(""),
                    lines(&p["summary"])
                ));
            }
            match out.get("parse") {
                Some(p) if p["ok"].as_bool() == Some(true) => {
                    text.push_str(&format!(
                        "\n## Parsed and validated\n\n{}",
                        lines(&p["summary"])
                    ));
                }
                Some(_) => text.push_str("\n## Parse failed (see the error)\n"),
                None => text.push_str(
                    "\nNot parsed: pass --params with the parameters the object was made \
                     under to validate it.\n",
                ),
            }
            crate::stdout(&text);
        }
    }
    match failure {
        Some(e) => Err(format!("{}: {e}", args.file.display()).into()),
        None => Ok(Outcome::Success),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte string (short, foreign, truncated, flipped) is an error, not a panic.
    #[test]
    fn hostile_headers_are_errors() {
        for bytes in [
            &b""[..],
            b"HKT",
            b"not a hekate object at all",
            b"HKT\0\x02\0\x12\0\0\0\0\0\0\0\0\0",
            b"HKT\0\x01\0\xff\xff\0\0\0\0\0\0\0\0",
        ] {
            assert!(peek_header(bytes).is_err(), "{bytes:?}");
            let _ = raw_header(bytes);
        }
        let h = peek_header(b"HKT\0\x01\0\x12\0\x01\0\0\0\0\0\0\0trailing").unwrap();
        assert_eq!(h.tag.code(), 18);
        assert!(parse_params(b"HKT\0\x01\0\x12\0\x01\0\0\0\0\0\0\0", &h).is_err());
        let v = header_json(&h, 24);
        assert_eq!(v["body_bytes"], json!(8));
        assert_eq!(v["magic"], json!("HKT"));
    }
}
