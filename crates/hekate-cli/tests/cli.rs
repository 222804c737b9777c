//! The `hekate` binary end to end: `params list|ckks|fhew` and their exit codes, `inspect`
//! on objects the library writes and on hostile bytes, `bench --format json|jsonl|csv` on
//! the quickest bench, `completions`, and `--help`. Every case runs in about a second or
//! less.

use hekate::ckks::CkksParameters;
use hekate::fhew::params::STD128;
use hekate::fhew::FhewContext;
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::serialize::{ckks_context_to_bytes, fhew_context_to_bytes, Serialize};
use num_complex::Complex64;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the binary with `args` (and `--quiet`: no progress on stderr).
fn hekate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hekate"))
        .args(args)
        .arg("--quiet")
        .output()
        .expect("the hekate binary runs")
}

/// The exit code.
fn code(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed by a signal")
}

/// Stdout as text.
fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr as text.
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Stdout as one JSON value.
fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", stdout(o)))
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hekate-cli-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// No output of a failure may be a panic.
fn no_panic(o: &Output) {
    let e = stderr(o);
    assert!(!e.contains("panicked"), "{e}");
    assert_ne!(code(o), 101, "{e}");
}

/// `params ckks`: exit 0 when secure, 2 when not, 0 with `--allow-insecure` or
/// `--security none`, 1 on bad input.
#[test]
fn params_ckks_secure_insecure_and_allowed() {
    // N = 2^15 with 8 limbs: about 610 bits of QP, under the 881 of 128-bit security.
    let ok = hekate(&[
        "params", "ckks", "--log-n", "15", "--limbs", "8", "--dnum", "3",
    ]);
    assert_eq!(code(&ok), 0, "{}", stderr(&ok));
    let md = stdout(&ok);
    assert!(md.contains("| 128-bit") && md.contains("secure"), "{md}");

    // The same chain at N = 2^13 is far above 218 bits: exit 2, the reason on stderr.
    let args = [
        "params", "ckks", "--log-n", "13", "--limbs", "8", "--format", "json",
    ];
    let bad = hekate(&args);
    assert_eq!(code(&bad), 2, "{}", stderr(&bad));
    assert!(
        stderr(&bad).contains("--allow-insecure"),
        "{}",
        stderr(&bad)
    );
    let r = json(&bad);
    assert_eq!(r["n"], 8192);
    assert_eq!(r["max_level"], 7);
    assert_eq!(r["slots"], 4096);
    assert_eq!(r["security"][0]["bits"], 128);
    assert_eq!(r["security"][0]["secure"], false);
    assert_eq!(r["ciphertext_bytes"], 2 * 8192 * 8 * 8);
    assert!(r["switching_key_bytes"].as_u64().unwrap() > 0);

    let mut allowed = args.to_vec();
    allowed.push("--allow-insecure");
    assert_eq!(code(&hekate(&allowed)), 0);
    // --security none asks for nothing.
    let none = hekate(&[
        "params",
        "ckks",
        "--log-n",
        "13",
        "--limbs",
        "8",
        "--security",
        "none",
    ]);
    assert_eq!(code(&none), 0);

    // A preset; bad input is an error (exit 1), not a panic.
    let p = hekate(&[
        "params",
        "ckks",
        "--preset",
        "PN14QP438",
        "--format",
        "json",
    ]);
    assert_eq!(code(&p), 0, "{}", stderr(&p));
    assert_eq!(json(&p)["dnum"], 5);
    for bad in [
        &["params", "ckks", "--log-n", "9", "--limbs", "3"][..],
        &["params", "ckks", "--preset", "PN99"],
        &["params", "ckks", "--log-q", "70,50"],
        &["params", "ckks", "--limbs", "4", "--dnum", "9"],
    ] {
        let o = hekate(bad);
        assert_eq!(code(&o), 1, "{bad:?}: {}", stderr(&o));
        no_panic(&o);
    }
}

/// `params fhew`: the security estimate, noise prediction and key sizes, and its exit
/// codes.
#[test]
fn params_fhew_security_noise_and_keys() {
    let ok = hekate(&[
        "params",
        "fhew",
        "--preset",
        "OPENFHE_STD128_LMKCDEY",
        "--method",
        "Alg4",
        "--no-keygen",
        "--format",
        "json",
    ]);
    assert_eq!(code(&ok), 0, "{}", stderr(&ok));
    let r = json(&ok);
    assert_eq!(
        (r["n"].as_u64(), r["big_n"].as_u64()),
        (Some(554), Some(1024))
    );
    assert_eq!(r["security"]["bits"], 128);
    assert_eq!(r["method"], "LMKCDEY-aux");
    let f = r["noise_exact"]["gate_failure"].as_f64().unwrap();
    assert!(f > 0.0 && f < 1e-9, "{f}");
    assert!(r["keys"].is_null());

    // STD128's LWE side is below 128 bits by the library's estimate: exit 2, unless
    // allowed; then the key is generated (under a second) and measured.
    let bad = hekate(&["params", "fhew", "--preset", "STD128", "--no-keygen"]);
    assert_eq!(code(&bad), 2, "{}", stderr(&bad));
    assert!(stdout(&bad).contains("security (hekate)"));
    let allowed = hekate(&[
        "params",
        "fhew",
        "--preset",
        "std128",
        "--allow-insecure",
        "--format",
        "json",
    ]);
    assert_eq!(code(&allowed), 0, "{}", stderr(&allowed));
    let k = &json(&allowed)["keys"];
    assert!(k["total_bytes"].as_u64().unwrap() > 1 << 20, "{k}");
    assert!(k["rlwe_prime_count"].as_u64().unwrap() > 512, "{k}");

    for bad in [
        &["params", "fhew", "--preset", "NOPE"][..],
        &["params", "fhew", "--preset", "STD128", "--method", "Alg6"],
        // LMKCDEY-base needs q = 2N; STD128 has q = N/2.
        &["params", "fhew", "--preset", "STD128", "--method", "Alg3"],
    ] {
        let o = hekate(bad);
        assert_eq!(code(&o), 1, "{bad:?}: {}", stderr(&o));
        no_panic(&o);
    }
}

/// `params list` names every preset of the library.
#[test]
fn params_list_names_every_preset() {
    let o = hekate(&["params", "list", "--format", "json"]);
    assert_eq!(code(&o), 0);
    let r = json(&o);
    assert_eq!(
        r["ckks"].as_array().unwrap().len(),
        hekate::params::ckks::PRESETS.len()
    );
    let fhew: Vec<&str> = r["fhew"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(fhew.len(), hekate::fhew::params::PRESETS.len());
    assert!(fhew.contains(&"OPENFHE_STD128_LMKCDEY"));
    let md = stdout(&hekate(&["params", "list"]));
    assert!(
        md.contains("| PN16QP1747") && md.contains("| STD256Q"),
        "{md}"
    );
}

/// `inspect` on files the library writes, under the right and the wrong parameters, and
/// on hostile bytes.
#[test]
fn inspect_reads_headers_and_validates_under_params() {
    let dir = scratch("inspect");
    let ctx = CkksParameters::new(12)
        .log_q(&[40, 30])
        .log_p(&[45])
        .log_scale(30)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let pt = ctx.encode(&[Complex64::new(0.25, -0.5)]).unwrap();
    let ct = ctx.encrypt_symmetric_with(&pt, &sk, &mut rng).unwrap();
    let ct_bytes = ct.to_bytes(&ctx).unwrap();
    let (ct_path, ctx_path) = (dir.join("ct.bin"), dir.join("ctx.bin"));
    std::fs::write(&ct_path, &ct_bytes).unwrap();
    std::fs::write(&ctx_path, ckks_context_to_bytes(&ctx)).unwrap();
    let (ct_s, ctx_s) = (ct_path.to_str().unwrap(), ctx_path.to_str().unwrap());

    // The header alone, no parameters.
    let o = hekate(&["inspect", ct_s, "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["header"]["tag"], 18);
    assert_eq!(r["header"]["tag_name"], "CKKS ciphertext");
    assert_eq!(r["header"]["format_version"], 1);
    assert_eq!(r["header"]["magic"], "HKT");
    assert_eq!(r["header"]["body_bytes"], ct_bytes.len() - 16);
    assert!(r.get("parse").is_none());

    // A validated parse under the parameters.
    let o = hekate(&["inspect", ct_s, "--params", ctx_s, "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["parse"]["ok"], true);
    assert_eq!(r["parse"]["summary"]["level"], 1);
    assert_eq!(r["parse"]["summary"]["slots"], 2048);
    assert_eq!(r["params"]["summary"]["n"], 4096);
    let md = stdout(&hekate(&["inspect", ct_s, "--params", ctx_s]));
    assert!(md.contains("Parsed and validated"), "{md}");
    // Parameters parse on their own.
    let r = json(&hekate(&["inspect", ctx_s, "--format", "json"]));
    assert_eq!(r["parse"]["summary"]["scheme"], "CKKS");

    // Under other parameters: the library's parameter-mismatch error, exit 1.
    let other = CkksParameters::new(12)
        .log_q(&[40, 31])
        .log_p(&[45])
        .log_scale(30)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let other_path = dir.join("other.bin");
    std::fs::write(&other_path, ckks_context_to_bytes(&other)).unwrap();
    let o = hekate(&["inspect", ct_s, "--params", other_path.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("parameter mismatch"), "{}", stderr(&o));
    no_panic(&o);

    // FHEW parameters read a CKKS ciphertext as another scheme's object: an error.
    let fhew = FhewContext::with_security(&STD128, SecurityLevel::NotChecked).unwrap();
    let fhew_path = dir.join("fhew.bin");
    std::fs::write(&fhew_path, fhew_context_to_bytes(&fhew)).unwrap();
    let o = hekate(&["inspect", ct_s, "--params", fhew_path.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    no_panic(&o);

    // Hostile bytes: garbage, empty, truncated, a flipped body byte, a missing file.
    let mut flipped = ct_bytes.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0xff;
    let cases: [(&str, Vec<u8>); 5] = [
        (
            "garbage.bin",
            b"this is not a hekate object, just text".to_vec(),
        ),
        ("empty.bin", Vec::new()),
        ("short.bin", b"HKT\0\x01".to_vec()),
        ("truncated.bin", ct_bytes[..ct_bytes.len() - 7].to_vec()),
        ("flipped.bin", flipped),
    ];
    for (name, bytes) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let o = hekate(&["inspect", path.to_str().unwrap(), "--params", ctx_s]);
        // A flipped body byte may still be a valid ciphertext; everything else fails.
        if name != "flipped.bin" {
            assert_eq!(code(&o), 1, "{name}: {}", stderr(&o));
            assert!(stderr(&o).starts_with("hekate: error:"), "{name}");
        }
        no_panic(&o);
    }
    let o = hekate(&["inspect", dir.join("garbage.bin").to_str().unwrap()]);
    assert!(stderr(&o).contains("not a hekate object"), "{}", stderr(&o));
    let o = hekate(&["inspect", dir.join("missing.bin").to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    std::fs::remove_dir_all(&dir).ok();
}

/// The quickest bench there is: FHEW's NAND at the insecure TOY set, with `methods`, in
/// `format`.
fn toy_bench(methods: &str, format: &str) -> Output {
    hekate(&[
        "bench",
        "fhew",
        "--presets",
        "TOY",
        "--methods",
        methods,
        "--trials",
        "4",
        "--gates",
        "2",
        "--format",
        format,
    ])
}

/// `bench --format json|jsonl|csv|markdown` on the TOY FHEW bench.
#[test]
fn bench_tables_as_json_jsonl_and_csv() {
    let o = toy_bench("GINX", "json");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let records = json(&o);
    let records = records.as_array().expect("an array of records");
    assert_eq!(records.len(), 1, "{records:?}");
    let r = &records[0];
    assert_eq!(r["bench"], "fhew");
    assert_eq!(r["title"], "TOY");
    assert_eq!(r["cells"]["method"], "GINX");
    assert!(r["cells"]["NAND ms"].as_f64().unwrap() > 0.0);
    assert_eq!(r["units"]["NAND ms"], "ms");
    assert_eq!(r["threads"], 1);
    assert!(r["isa"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(r.get("commit").is_some());
    assert!(r["timestamp"].as_str().unwrap().ends_with('Z'));
    // The prose did not go to stdout.
    assert!(!stdout(&o).contains("### TOY"));

    let o = toy_bench("GINX,AP", "jsonl");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["cells"]["method"], "AP");
    assert_eq!(lines[1]["row"], 1);

    let o = toy_bench("GINX", "csv");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let csv = stdout(&o);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(lines[0].starts_with("bench,table,title,commit,isa,threads,timestamp,method,"));
    assert!(lines[1].starts_with("fhew,"), "{}", lines[1]);

    // Markdown stays the default.
    let o = toy_bench("GINX", "markdown");
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("| GINX"), "{}", stdout(&o));
}

/// Completion scripts for every shell; exit codes in `--help`; usage errors exit 1.
#[test]
fn completions_and_help() {
    let o = hekate(&["completions", "bash"]);
    assert_eq!(code(&o), 0);
    let script = stdout(&o);
    assert!(script.len() > 1000 && script.contains("hekate"), "{script}");
    assert!(script.contains("inspect") && script.contains("completions"));
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let o = hekate(&["completions", shell]);
        assert_eq!(code(&o), 0, "{shell}");
        assert!(!o.stdout.is_empty(), "{shell}");
    }
    // A usage error exits with 1, as every error does (2 is a failed check).
    let o = hekate(&["completions", "tcsh"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(code(&hekate(&["--version"])), 0);
    let help = stdout(&hekate(&["--help"]));
    assert!(
        help.contains("Exit codes") && help.contains("--quiet"),
        "{help}"
    );
    let help = stdout(&hekate(&["params", "ckks", "--help"]));
    assert!(
        help.contains("--allow-insecure") && help.contains("Exit codes"),
        "{help}"
    );
}

/// `hekate gpu info` and `hekate bench gpu --quick --fhew TOY`: with a device (POCL in
/// CI), the self-check and every bench row are bit-exact; without one, a clear error and exit 1.
/// `HEKATE_GPU=off` is refused with exit 1.
#[test]
fn gpu_info_and_bench() {
    let required = std::env::var("HEKATE_REQUIRE_GPU").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| v == "true");
    let info = hekate(&["gpu", "info"]);
    no_panic(&info);
    if code(&info) == 1 && !required {
        assert!(stderr(&info).contains("no GPU device"), "{}", stderr(&info));
        eprintln!("skipped: {}", stderr(&info));
        return;
    }
    assert_eq!(code(&info), 0, "{}{}", stdout(&info), stderr(&info));
    assert!(
        stdout(&info).contains("bit-exact with the CPU"),
        "{}",
        stdout(&info)
    );
    let bench = hekate(&[
        "bench",
        "gpu",
        "--quick",
        "--format",
        "json",
        "--fhew",
        "TOY",
        "--fhew-batch",
        "1,3",
    ]);
    assert_eq!(code(&bench), 0, "{}", stderr(&bench));
    let rows = json(&bench);
    let rows = rows.as_array().expect("an array of records");
    assert_eq!(
        rows.len(),
        13,
        "four kernels, four CKKS operations and a linear transform at one chain length, \
         two FHEW batch sizes fused and per step"
    );
    assert_eq!(rows[11]["cells"]["batch"], 3, "{}", rows[11]);
    assert_eq!(rows[11]["cells"]["kernels"], "fused", "{}", rows[11]);
    assert_eq!(rows[11]["cells"]["launches"], 1, "{}", rows[11]);
    assert_eq!(rows[12]["cells"]["kernels"], "per step", "{}", rows[12]);
    // Warm CKKS operations take their buffers from the device's pool.
    assert_eq!(rows[4]["cells"]["op"], "mul + relinearize", "{}", rows[4]);
    assert_eq!(rows[4]["cells"]["allocations"], 0, "{}", rows[4]);
    assert_eq!(rows[4]["cells"]["uploads"], 0, "{}", rows[4]);
    for r in rows {
        assert_eq!(r["cells"]["bit-exact"], "yes", "{r}");
    }
    let off = Command::new(env!("CARGO_BIN_EXE_hekate"))
        .args(["gpu", "info"])
        .env("HEKATE_GPU", "off")
        .output()
        .unwrap();
    assert_eq!(code(&off), 1);
    assert!(stderr(&off).contains("HEKATE_GPU=off"));
}

/// `hekate inspect --params` under MLWE-CKKS parameters: a ciphertext and a DPad-HE
/// relinearization key parse and are summarised; a CKKS object is refused under them.
#[test]
fn inspect_mlwe_objects() {
    use hekate::mlwe::{MlweParameters, RelinMethod};
    use hekate::serialize::mlwe_context_to_bytes;
    let dir = scratch("inspect-mlwe");
    let ctx = MlweParameters::new(9, 2)
        .log_q(&[50, 40])
        .log_p(&[60])
        .log_scale(40)
        .dpad(3, &[60, 55], None)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let sk = ctx.generate_secret_key();
    let ct = ctx
        .encrypt_symmetric(&ctx.encode_real(&[0.5, -1.0]).unwrap(), &sk)
        .unwrap();
    let rlk = ctx
        .generate_relinearization_key(&sk, RelinMethod::DPad)
        .unwrap();
    let (ct_path, rlk_path, ctx_path) =
        (dir.join("ct.bin"), dir.join("rlk.bin"), dir.join("ctx.bin"));
    std::fs::write(&ct_path, ct.to_bytes(&ctx).unwrap()).unwrap();
    std::fs::write(&rlk_path, rlk.to_bytes(&ctx).unwrap()).unwrap();
    std::fs::write(&ctx_path, mlwe_context_to_bytes(&ctx)).unwrap();
    let p = |x: &PathBuf| x.to_str().unwrap().to_string();
    let o = hekate(&[
        "inspect",
        &p(&ct_path),
        "--params",
        &p(&ctx_path),
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["parse"]["ok"], true);
    assert_eq!(r["parse"]["summary"]["rank"], 2);
    assert_eq!(r["parse"]["summary"]["level"], 1);
    assert_eq!(r["parse"]["summary"]["seed_compressed"], true);
    assert_eq!(r["params"]["summary"]["scheme"], "MLWE-CKKS");
    assert_eq!(r["params"]["summary"]["rank_hat"], 3);
    let o = hekate(&[
        "inspect",
        &p(&rlk_path),
        "--params",
        &p(&ctx_path),
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json(&o)["parse"]["summary"]["method"], "DPad");
    // A CKKS context's bytes are not MLWE parameters for this ciphertext.
    let ckks = CkksParameters::new(9)
        .log_q(&[50, 40])
        .log_p(&[60])
        .log_scale(40)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let ckks_path = dir.join("ckks.bin");
    std::fs::write(&ckks_path, ckks_context_to_bytes(&ckks)).unwrap();
    let o = hekate(&[
        "inspect",
        &p(&ct_path),
        "--params",
        &p(&ckks_path),
        "--format",
        "json",
    ]);
    no_panic(&o);
    assert_ne!(json(&o)["parse"]["ok"], true);
}

/// `hekate bench bootstrap` on the sparse quick preset: the row, and the exact operation
/// counts per stage, which add up to their total and include the DFTs' and EvalMod's key
/// switches (the SubSum's trace too: 16 of 2048 slots).
#[test]
fn bench_bootstrap_prints_the_stages_operation_counts() {
    let bench = |extra: &[&str]| {
        let args = [
            "bench",
            "bootstrap",
            "--presets",
            "quick-sparse",
            "--reps",
            "1",
        ];
        hekate(&[&args[..], extra].concat())
    };
    let o = bench(&[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("| quick-sparse |"), "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("- quick-sparse (hybrid) operation counts"))
        .unwrap_or_else(|| panic!("no counts line: {out}"));
    // "Stage a / b" pairs, then "all A / B".
    let pairs: Vec<(u64, u64)> = line
        .split([',', ';'])
        .filter_map(|part| {
            let w: Vec<&str> = part.split_whitespace().collect();
            let n = w.len();
            (n >= 3 && w[n - 2] == "/").then(|| (w[n - 3].parse().ok(), w[n - 1].parse().ok()))
        })
        .map(|(a, b)| (a.unwrap(), b.unwrap()))
        .collect();
    assert_eq!(pairs.len(), 6, "{line}");
    let (stages, all) = pairs.split_at(5);
    assert_eq!(stages.iter().map(|p| p.0).sum::<u64>(), all[0].0, "{line}");
    assert_eq!(stages.iter().map(|p| p.1).sum::<u64>(), all[0].1, "{line}");
    // SubSum, CoeffsToSlots, EvalMod and SlotsToCoeffs all key-switch.
    assert!(stages[1..].iter().all(|p| p.0 > 0 && p.1 > 0), "{line}");
    // Real inputs bootstrap too (the check of at least 12 bits passes: exit 0), measured
    // on the real part, with the complex slot's precision printed beside it.
    let o = bench(&["--real"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("b = 0 with --real"), "{out}");
    assert!(
        out.contains("- quick-sparse (hybrid) real inputs, the complex slot's precision"),
        "{out}"
    );
}
