//! Fuzzing every reader on stable Rust: a small mutation engine (`fuzz/mutate.rs`) over the
//! corpus seeds in `tests/corpus/<reader>/*.bin` (valid objects written under fixed small
//! contexts with fixed seeds) and structure-aware variants (objects of other shapes,
//! levels, seeds and parameters written by hand). Every input is decoded under a
//! [`ReadPolicy`](hekate::serialize::ReadPolicy) with a 256 MiB allocation limit, and every
//! object that decodes is *used* (decrypted, multiplied and relinearized, rotated, gated,
//! combined). An `Err` is fine; a panic is a failure: its input is printed in hex and
//! written to `target/fuzz-failures/`.
//!
//! * `HEKATE_FUZZ_INPUTS`: inputs per reader (default 300: under a minute in all in the test profile);
//! * `HEKATE_FUZZ_SEED`: the mutation seed (default fixed, printed);
//! * `HEKATE_FUZZ_TARGETS`: a comma-separated list of reader names to run (default all);
//! * `HEKATE_FUZZ_SAVE_CURRENT=1`: write each input to
//!   `target/fuzz-failures/current-<reader>.bin` before decoding it, to catch the input
//!   of an abort (which `catch_unwind` cannot).
//!
//! A long run:
//!
//! ```text
//! HEKATE_FUZZ_INPUTS=1000000 cargo test --release -p hekate --test fuzz -- --nocapture
//! ```
//!
//! The corpus is regenerated (deterministically) with
//! `HEKATE_REGENERATE_CORPUS=1 cargo test -p hekate --test fuzz -- --ignored regenerate_corpus`.

mod common;
mod fuzz_engine;
mod readers;

use fuzz_engine::{Mutator, SplitMix};
use hekate::serialize::ReadPolicy;
use readers::Target;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The allocation limit every fuzzed input is read under.
const FUZZ_MAX_ALLOC: u64 = 256 << 20;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn failures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fuzz-failures")
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The corpus files of `t`, sorted by name.
fn corpus_of(t: &Target) -> Vec<(String, Vec<u8>)> {
    let dir = corpus_dir().join(t.name);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (run regenerate_corpus)", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("corpus file"))
        })
        .collect()
}

/// With `HEKATE_REGENERATE_CORPUS=1`, writes every target's seeds to
/// `tests/corpus/<name>/<stem>.bin` (replacing the directory's `.bin` files); otherwise
/// only lists the files today's writers would change (so that running every ignored test
/// never rewrites the bytes earlier versions wrote).
#[test]
#[ignore]
fn regenerate_corpus() {
    if std::env::var("HEKATE_REGENERATE_CORPUS").as_deref() != Ok("1") {
        for t in readers::all() {
            for (stem, bytes) in &t.seeds {
                let path = corpus_dir().join(t.name).join(format!("{stem}.bin"));
                if std::fs::read(&path).ok().as_ref() != Some(bytes) {
                    println!("would rewrite {}", path.display());
                }
            }
        }
        println!("set HEKATE_REGENERATE_CORPUS=1 to rewrite the corpus");
        return;
    }
    for t in readers::all() {
        let dir = corpus_dir().join(t.name);
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "bin") {
                std::fs::remove_file(p).unwrap();
            }
        }
        for (stem, bytes) in &t.seeds {
            std::fs::write(dir.join(format!("{stem}.bin")), bytes).unwrap();
        }
        println!("{}: {} seeds", t.name, t.seeds.len());
    }
}

/// Every corpus file (bytes written by an earlier version of the writers) still decodes
/// with the current readers, re-encodes to the same bytes, and is usable; and the corpus
/// matches what the writers produce today for the same objects.
#[test]
fn bytes_written_by_earlier_versions_stay_readable() {
    let policy = readers::policy(ReadPolicy::DEFAULT_MAX_ALLOC);
    for t in readers::all() {
        let corpus = corpus_of(&t);
        assert!(!corpus.is_empty(), "{}: empty corpus", t.name);
        for (stem, bytes) in &corpus {
            let back = t
                .run(bytes, &policy, true)
                .unwrap_or_else(|e| panic!("{}/{stem}.bin: {e}", t.name));
            assert!(
                back == *bytes,
                "{}/{stem}.bin re-encodes differently",
                t.name
            );
        }
        let stems: Vec<&String> = corpus.iter().map(|(s, _)| s).collect();
        let seeds: Vec<&String> = t.seeds.iter().map(|(s, _)| s).collect();
        assert_eq!(stems.len(), seeds.len(), "{}: corpus files", t.name);
    }
    known_answers();
}

/// Every object tag this build knows (every scheme's block of the registry) has bytes in
/// the corpus: a scheme that adds a type adds its corpus files, so that later versions
/// are tested against the bytes this one writes.
#[test]
fn every_object_tag_has_corpus_bytes() {
    use hekate::serialize::{peek_header, ObjectTag};
    let mut found = std::collections::BTreeSet::new();
    for t in readers::all() {
        for (stem, bytes) in corpus_of(&t) {
            let h = peek_header(&bytes).unwrap_or_else(|e| panic!("{}/{stem}.bin: {e}", t.name));
            found.insert(h.tag.code());
        }
    }
    let known: Vec<ObjectTag> = (0..=u16::MAX).filter_map(ObjectTag::from_code).collect();
    assert!(known.len() >= 20, "the 20 tags of version 1 at least");
    for tag in known {
        assert!(
            found.contains(&tag.code()),
            "no corpus file holds a {} (tag {})",
            tag.name(),
            tag.code()
        );
    }
}

/// Corpus ciphertexts decrypt to their messages with the corpus secret keys, under
/// contexts rebuilt from the corpus parameters.
fn known_answers() {
    use hekate::ckks::{Ciphertext, CkksContext};
    use hekate::fhew::{FhewSecretKey, LweCiphertext};
    use hekate::rlwe::SecretKey;
    use hekate::serialize::{fhew_context_from_bytes_with, Deserialize};
    let policy = readers::policy(ReadPolicy::DEFAULT_MAX_ALLOC);
    let file = |dir: &str, stem: &str| {
        std::fs::read(corpus_dir().join(dir).join(format!("{stem}.bin"))).expect("corpus file")
    };
    let ctx = CkksContext::from_bytes_with(&file("ckks_parameters", "h12"), &(), &policy).unwrap();
    let sk = SecretKey::from_bytes(&file("secret_key", "h12"), ctx.ring()).unwrap();
    for stem in ["fresh_pk", "fresh_sk_seeded"] {
        let ct = Ciphertext::from_bytes(&file("ckks_ciphertext_h12", stem), &ctx).unwrap();
        let got = ctx.decrypt_decode(&ct, &sk).unwrap();
        let want = readers::message(got.len());
        let err = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).norm())
            .fold(0.0, f64::max);
        assert!(err < 1e-6, "{stem}: error {err}");
    }
    let fctx = fhew_context_from_bytes_with(&file("fhew_parameters", "toy"), &policy).unwrap();
    let fsk = FhewSecretKey::from_bytes(&file("fhew_secret_key_toy", "toy"), &fctx).unwrap();
    for (stem, bit) in [("bit0", false), ("bit1", true)] {
        let ct = LweCiphertext::from_bytes(&file("lwe_ciphertext_toy", stem), &fctx).unwrap();
        assert_eq!(fctx.decrypt_bit(&ct, &fsk).unwrap(), bit, "{stem}");
    }
    // BFV/BGV: contexts rebuilt from the corpus parameters, the fixtures' secret key
    // regenerated from its seed.
    for scheme in ["bfv10", "bgv10"] {
        use hekate::rand_chacha::ChaCha20Rng;
        use hekate::rand_core::SeedableRng;
        use hekate::rlwe::integer::{Ciphertext as IntCiphertext, IntegerContext};
        let ictx =
            IntegerContext::from_bytes_with(&file("bfv_bgv_parameters", scheme), &(), &policy)
                .unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(readers::integer::KEY_SEED);
        let isk = ictx.generate_secret_key_with(&mut rng);
        for stem in ["fresh_pk", "fresh_sk_seeded"] {
            let dir = format!("bfv_bgv_ciphertext_{scheme}");
            let ct = IntCiphertext::from_bytes(&file(&dir, stem), &ictx).unwrap();
            let got = ictx.decrypt_decode(&ct, &isk).unwrap();
            assert_eq!(got, readers::integer::message(ictx.n()), "{dir}/{stem}");
        }
    }
    // MLWE-CKKS: the context rebuilt from the corpus parameters, the corpus secret key.
    {
        use hekate::mlwe::{Ciphertext as MlweCiphertext, MlweContext, SecretKey as MlweSecretKey};
        let mctx = MlweContext::from_bytes_with(&file("mlwe_parameters", "r2_dpad"), &(), &policy)
            .unwrap();
        let msk = MlweSecretKey::from_bytes(&file("mlwe_secret_key", "sk"), &mctx).unwrap();
        for stem in ["fresh_pk", "fresh_sk", "product", "reduced_rank1"] {
            let ct = MlweCiphertext::from_bytes(&file("mlwe_ciphertext", stem), &mctx).unwrap();
            let got = mctx.decrypt_decode(&ct, &msk).unwrap();
            let want: Vec<_> = readers::mlwe::message(got.len())
                .iter()
                .map(|z| {
                    if stem.contains("product") || stem.contains("reduced") {
                        z * z
                    } else {
                        *z
                    }
                })
                .collect();
            let err = got
                .iter()
                .zip(&want)
                .map(|(a, b)| (a - b).norm())
                .fold(0.0, f64::max);
            assert!(err < 1e-4, "mlwe_ciphertext/{stem}: error {err}");
        }
    }
}

/// What happened to one input.
enum Outcome {
    Decoded,
    Refused,
    Panicked(String),
}

fn run_one(t: &Target, input: &[u8], policy: &ReadPolicy) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| t.run(input, policy, true))) {
        Ok(Ok(_)) => Outcome::Decoded,
        Ok(Err(_)) => Outcome::Refused,
        Err(p) => Outcome::Panicked(
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic".into()),
        ),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Fuzzes one target; returns `(inputs, decoded, failures)`.
fn fuzz_target(t: &Target, others: &[Vec<u8>], inputs: u64, seed: u64) -> (u64, u64, Vec<String>) {
    let policy = readers::policy(FUZZ_MAX_ALLOC);
    let save_current = std::env::var("HEKATE_FUZZ_SAVE_CURRENT").is_ok_and(|v| v == "1");
    let mut bases: Vec<Vec<u8>> = corpus_of(t).into_iter().map(|(_, b)| b).collect();
    bases.extend(t.variants.iter().cloned());
    let mut mutator = Mutator::new(SplitMix::new(seed ^ fuzz_engine::hash(t.name.as_bytes())));
    // Inputs that decoded (beyond the seeds) become bases too, up to a bound.
    let mut found: Vec<Vec<u8>> = Vec::new();
    let (mut decoded, mut failures) = (0u64, Vec::new());
    // Every variant once as it is, then mutations.
    let fixed: Vec<Vec<u8>> = t.variants.clone();
    for i in 0..inputs + fixed.len() as u64 {
        let input = if (i as usize) < fixed.len() {
            fixed[i as usize].clone()
        } else {
            let pool_pick = mutator.rng().below(4) == 0 && !found.is_empty();
            let base = if pool_pick {
                &found[mutator.rng().below(found.len() as u64) as usize]
            } else {
                &bases[mutator.rng().below(bases.len() as u64) as usize]
            };
            mutator.mutate(base, &bases, others)
        };
        if save_current {
            let dir = failures_dir();
            std::fs::create_dir_all(&dir).ok();
            std::fs::write(dir.join(format!("current-{}.bin", t.name)), &input).ok();
        }
        match run_one(t, &input, &policy) {
            Outcome::Decoded => {
                decoded += 1;
                if found.len() < 64 && !bases.contains(&input) {
                    found.push(input);
                }
            }
            Outcome::Refused => {}
            Outcome::Panicked(msg) => {
                let dir = failures_dir();
                std::fs::create_dir_all(&dir).ok();
                let path = dir.join(format!("{}-{seed:x}-{i}.bin", t.name));
                std::fs::write(&path, &input).ok();
                let shown = &input[..input.len().min(512)];
                failures.push(format!(
                    "{} input {i} ({} bytes) panicked: {msg}\n  written to {}\n  hex{}: {}",
                    t.name,
                    input.len(),
                    path.display(),
                    if shown.len() < input.len() {
                        " (first 512 bytes)"
                    } else {
                        ""
                    },
                    hex(shown)
                ));
            }
        }
    }
    (inputs + fixed.len() as u64, decoded, failures)
}

/// Fuzzes every reader (see the module documentation for the knobs).
#[test]
fn fuzz_every_reader() {
    let inputs = env_u64("HEKATE_FUZZ_INPUTS", 300);
    let seed = env_u64("HEKATE_FUZZ_SEED", 0x4845_4B41_5445);
    let only: Option<Vec<String>> = std::env::var("HEKATE_FUZZ_TARGETS")
        .ok()
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    println!("fuzz: HEKATE_FUZZ_SEED={seed} HEKATE_FUZZ_INPUTS={inputs}");
    let targets = readers::all();
    // Splice material from every reader's corpus (cross-type splices).
    let others: Vec<Vec<u8>> = targets
        .iter()
        .flat_map(|t| corpus_of(t).into_iter().map(|(_, b)| b))
        .collect();
    // Panics are caught and reported below; keep the default hook's output short.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        eprintln!("fuzz: caught panic: {info}");
    }));
    let mut all_failures = Vec::new();
    for t in &targets {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == t.name))
        {
            continue;
        }
        let start = Instant::now();
        let (n, decoded, failures) = fuzz_target(t, &others, inputs, seed);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "fuzz: {:<32} {n:>8} inputs, {decoded:>7} decoded and used, {} panics, \
             {secs:.1} s ({:.0} inputs/s)",
            t.name,
            failures.len(),
            n as f64 / secs
        );
        all_failures.extend(failures);
    }
    std::panic::set_hook(hook);
    assert!(
        all_failures.is_empty(),
        "{} failures:\n{}",
        all_failures.len(),
        all_failures.join("\n")
    );
}
