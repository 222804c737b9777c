//! `hekate bench bootstrap`: CKKS bootstrapping (seed 003 §5, `hekate::ckks::bootstrap`)
//! per preset: the chain and circuit shape, key generation, setup, the time of each stage
//! and of a whole bootstrap, the precision over the slots and the peak memory.
//!
//! Every preset bootstraps a secret-key encryption of `a + bi` (`a`, `b` uniform in
//! `[-1, 1)`, fixed seed) at level 1 (`--input-level`), nothing left to multiply, at the
//! default scale (at level 0: `q_0 / R`, what ScaleDown needs there).

use super::{fmt_mib, fmt_ms, header, init_threads, peak_rss_bytes, time_once, Stats, Table};
use crate::progress::Bar;
use crate::rng::SplitMix64;
use crate::{say, Outcome};
use clap::Args;
use hekate::circuits::lintrans::{BsgsTies, GiantSteps};
use hekate::ckks::bootstrap::presets::{self, BootstrapPreset, PresetSecurity};
use hekate::ckks::bootstrap::{generate_keys_with, BootstrapConfig, Bootstrapper};
use hekate::ckks::{Ciphertext, CkksContext, CkksParameters};
use hekate::params::{security, SecurityLevel};
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::rlwe::keyswitch::KeySwitchMethod;
use hekate::rlwe::{SecretDistribution, SecretKey};
use num_complex::Complex64;
use std::error::Error;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The precision a bootstrap must reach on its worst slot, in bits.
const MIN_PRECISION_BITS: f64 = 12.0;

/// Options of `hekate bench bootstrap`. The default (`dense`, N = 2^16) takes minutes and
/// several GB of memory; progress goes to stderr, the table to stdout.
#[derive(Debug, Args)]
pub struct BootstrapArgs {
    /// Presets, comma separated, any of the library's (hekate::ckks::bootstrap::presets):
    /// quick-dense, quick-sparse, quick-encapsulated (N = 2^12, toy chains), dense,
    /// dense-encapsulated (N = 2^16, 128-bit), set-i ... set-v (seed 003 Tables 5-6),
    /// h192-encapsulated [default: dense; quick-dense,quick-sparse with --quick]
    #[arg(long, value_delimiter = ',', value_name = "P,...")]
    presets: Option<Vec<String>>,
    /// Timed bootstraps per preset (no warm-up: the setup encodes every matrix; the
    /// median is shown)
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Threads of the global rayon pool the library parallelises on
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// A fast smoke run: the two N = 2^12 presets (an explicit --presets still wins)
    #[arg(long)]
    quick: bool,
    /// Bootstrap the output again this many times and report the precision after the
    /// last one
    #[arg(long, default_value_t = 0, value_name = "K")]
    successive: usize,
    /// Real inputs: a + 0i, a uniform in [-1, 1) (Lattigo's examples bootstrap real
    /// vectors), instead of a + bi
    #[arg(long)]
    real: bool,
    /// The level the input is encrypted at (at least 1 leaves the bootstrap's ScaleDown a
    /// rescale to match the scale; 0 hands it `q_0` directly)
    #[arg(long, default_value_t = 1, value_name = "L")]
    input_level: usize,
    /// How the DFTs evaluate their giant steps: horner (one rotation key per DFT factor)
    /// or distinct (one key per giant step, one ModDown per factor)
    #[arg(long, default_value = "horner", value_parser = parse_giant_steps)]
    giant_steps: GiantSteps,
    /// How each DFT factor's baby-step count is chosen among the fewest key switches:
    /// keys (fewer rotation keys, the default) or giants (fewer giant steps: faster, more
    /// keys)
    #[arg(long, default_value = "keys", value_parser = parse_bsgs_ties)]
    bsgs_ties: BsgsTies,
    /// The key-memory cap the DFTs may spend on more baby steps (BootstrapConfig::
    /// key_memory_cap): preset (each preset's own), none, or a number of MiB
    #[arg(long, default_value = "preset", value_parser = parse_key_cap, value_name = "CAP")]
    key_cap: KeyCap,
    /// Key-switching engines, comma separated, a row per preset and engine: hybrid (the
    /// presets' own), klss:R, linear, linear-heuristic, auto. The chain, P and dnum stay
    /// the preset's
    #[arg(long, value_delimiter = ',', value_name = "M,...", default_value = "hybrid",
          value_parser = KeySwitchMethod::parse)]
    key_switching: Vec<KeySwitchMethod>,
}

fn parse_key_cap(s: &str) -> Result<KeyCap, String> {
    match s {
        "preset" => Ok(KeyCap::Preset),
        "none" => Ok(KeyCap::Set(None)),
        mib => mib
            .parse::<usize>()
            .map(|m| KeyCap::Set(Some(m << 20)))
            .map_err(|_| format!("--key-cap: preset, none or a number of MiB, not {s:?}")),
    }
}

fn parse_bsgs_ties(s: &str) -> Result<BsgsTies, String> {
    match s {
        "keys" => Ok(BsgsTies::FewerKeys),
        "giants" => Ok(BsgsTies::FewerGiantSteps),
        _ => Err(format!("{s:?}: use keys or giants")),
    }
}

fn parse_giant_steps(s: &str) -> Result<GiantSteps, String> {
    match s {
        "horner" => Ok(GiantSteps::Horner),
        "distinct" => Ok(GiantSteps::Distinct),
        _ => Err(format!("{s:?}: use horner or distinct")),
    }
}

/// One bootstrapping parameter set: the library's ([`hekate::ckks::bootstrap::presets`]).
pub(crate) type Preset = BootstrapPreset;

/// A preset by name (any of the library's [`presets::PRESETS`]).
pub(crate) fn preset(name: &str) -> Result<Preset, String> {
    presets::preset(name).map_err(|e| e.to_string())
}

pub(crate) fn secret_label(s: SecretDistribution) -> String {
    match s {
        SecretDistribution::Ternary => "ternary".into(),
        SecretDistribution::HammingWeight(h) => format!("h = {h}"),
        SecretDistribution::Gaussian => "Gaussian".into(),
    }
}

/// Precision over the slots, in bits: `-log2` of the mean, median and largest absolute
/// error (capped at 60 bits for an exact result).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Precision {
    pub(crate) mean: f64,
    pub(crate) median: f64,
    pub(crate) min: f64,
}

/// What a [`Precision`] measures the error of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Measure {
    /// The complex slot: `|got - want|` (inputs `a + bi`; the stricter statistic).
    Modulus,
    /// The real part a real decode returns: `|Re(got) - Re(want)|` (real inputs, as
    /// Lattigo's harness measures its own: it decodes to `float64`).
    RealPart,
}

/// The [`Precision`] of `got` against `want`, by `measure`.
pub(crate) fn precision(got: &[Complex64], want: &[Complex64], measure: Measure) -> Precision {
    let err = |g: &Complex64, w: &Complex64| match measure {
        Measure::Modulus => (g - w).norm(),
        Measure::RealPart => (g.re - w.re).abs(),
    };
    let mut errs: Vec<f64> = got.iter().zip(want).map(|(g, w)| err(g, w)).collect();
    errs.sort_by(f64::total_cmp);
    let bits = |e: f64| {
        if e == 0.0 {
            60.0
        } else {
            (-e.log2()).min(60.0)
        }
    };
    let mean = errs.iter().sum::<f64>() / errs.len() as f64;
    Precision {
        mean: bits(mean),
        median: bits(errs[errs.len() / 2]),
        min: bits(*errs.last().expect("at least one slot")),
    }
}

/// Overwrites the progress line on stderr.
fn progress(msg: std::fmt::Arguments) {
    crate::progress::line_replace(format!("  {msg}"));
}

/// The figures of one preset.
struct Row {
    preset: Preset,
    /// The key-switching engine the context resolved (`--key-switching`).
    engine: String,
    /// The chain's bit sizes, from `q_0`.
    chain: Vec<u32>,
    log_qp: f64,
    /// `None` when built with 128-bit security, else why not.
    not_checked: Option<String>,
    dnum: usize,
    max_level: usize,
    config: BootstrapConfig,
    output_level: usize,
    failure_log2: f64,
    keygen: Duration,
    galois_keys: usize,
    key_bytes: usize,
    /// The encoded DFT diagonals.
    diagonal_bytes: usize,
    setup: Duration,
    /// Medians: ScaleDown + ModRaise, SubSum, CoeffsToSlots, EvalMod (both), SlotsToCoeffs.
    stages: [Stats; 5],
    total: Stats,
    /// The first bootstrap (cold).
    first: Duration,
    precision: Precision,
    /// With `--real`, the complex slot's precision beside it.
    modulus: Option<Precision>,
    /// Precision after `--successive` further bootstraps.
    successive: Option<Precision>,
    peak_rss: Option<usize>,
    counts: [StageCounts; 5],
}

/// The context of a preset with key-switching `method`: with 128-bit security where the
/// preset asks for it and the chain fits the table, else `NotChecked` with the reason.
fn context(
    p: &Preset,
    config: &BootstrapConfig,
    method: KeySwitchMethod,
) -> Result<(Arc<CkksContext>, Option<String>), Box<dyn Error>> {
    let built = match p.context_with(config, method) {
        Err(hekate::Error::Insecure(why)) if p.security == PresetSecurity::Bits128 => {
            let ctx = CkksParameters::new(p.log_n)
                .log_q(&p.chain_for(config)?)
                .log_p(p.log_p)
                .log_scale(p.log_scale)
                .secret(p.secret)
                .security(SecurityLevel::NotChecked)
                .key_switching(method)
                .build()?;
            return Ok((ctx, Some(why)));
        }
        other => other?,
    };
    let why = match p.security {
        PresetSecurity::Bits128 => return Ok((built, None)),
        PresetSecurity::NotChecked(why) => why,
    };
    let bound = security::max_log_qp(built.n(), SecurityLevel::Bits128)
        .map_or("no table entry".into(), |b| format!("bound {b}"));
    let why = format!(
        "{why} (log QP = {:.1} at N = 2^{}, {bound})",
        built.log_qp(),
        p.log_n
    );
    Ok((built, Some(why)))
}

/// A preset built and keyed, ready to bootstrap its input (`hekate bench bootstrap` and
/// `bench bootstrap-peer` share it).
pub(crate) struct Prepared {
    pub(crate) preset: Preset,
    /// The chain's bit sizes, from `q_0`.
    chain: Vec<u32>,
    pub(crate) ctx: Arc<CkksContext>,
    /// `None` when built with 128-bit security, else why not.
    pub(crate) not_checked: Option<String>,
    pub(crate) config: BootstrapConfig,
    pub(crate) failure_log2: f64,
    pub(crate) keygen: Duration,
    pub(crate) galois_keys: usize,
    pub(crate) key_bytes: usize,
    pub(crate) setup: Duration,
    pub(crate) boot: Bootstrapper,
    sk: SecretKey,
    /// The input `a + bi` (`b = 0` with `--real`) and its encryption (at level 1 unless
    /// `--input-level` says otherwise).
    z: Vec<Complex64>,
    ct: Ciphertext,
    /// The statistic of the precision: the real part's with `--real`, the complex
    /// slot's otherwise.
    measure: Measure,
}

impl Prepared {
    /// The bit sizes of the preset's chain, from `q_0`.
    pub(crate) fn chain(&self) -> Vec<u32> {
        self.chain.clone()
    }
}

/// The key-memory cap of the DFT plans (`--key-cap`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum KeyCap {
    /// The preset's own [`BootstrapConfig::key_memory_cap`].
    #[default]
    Preset,
    /// This cap in bytes, or none.
    Set(Option<usize>),
}

/// How the DFT factors are planned (`--giant-steps`, `--bsgs-ties`, `--key-cap`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct DftPlans {
    pub(crate) giant_steps: GiantSteps,
    pub(crate) bsgs_ties: BsgsTies,
    pub(crate) key_cap: KeyCap,
}

impl DftPlans {
    /// The library's defaults: Horner giant steps, ties to fewer keys, the preset's cap.
    pub(crate) const DEFAULT: DftPlans = DftPlans {
        giant_steps: GiantSteps::Horner,
        bsgs_ties: BsgsTies::FewerKeys,
        key_cap: KeyCap::Preset,
    };
}

/// The bootstrapped input: `a + bi`, or `a + 0i` with `real` (`--real`), encrypted at
/// `level` (`--input-level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Input {
    pub(crate) real: bool,
    pub(crate) level: usize,
}

/// The bootstrapping configuration of `p` with `plans` (no context, no keys).
pub(crate) fn config_of(p: &Preset, plans: DftPlans) -> Result<BootstrapConfig, Box<dyn Error>> {
    let mut config = p.config()?;
    config.giant_steps = plans.giant_steps;
    config.bsgs_ties = plans.bsgs_ties;
    if let KeyCap::Set(cap) = plans.key_cap {
        config.key_memory_cap = cap;
    }
    Ok(config)
}

/// Builds the context of `p` with key-switching `method`, generates its keys (progress on
/// stderr) and the bootstrapper, and encrypts the input.
pub(crate) fn prepare(
    p: &Preset,
    plans: DftPlans,
    method: KeySwitchMethod,
    input: Input,
) -> Result<Prepared, Box<dyn Error>> {
    let config = config_of(p, plans)?;
    let chain = p.chain_for(&config)?;
    let (ctx, not_checked) = context(p, &config, method)?;
    let top = ctx.max_level();
    if input.level > top {
        return Err(format!(
            "--input-level {} is above {}'s top level {top}",
            input.level, p.name
        )
        .into());
    }
    let failure_log2 = config.failure_log2(&ctx)?;
    let mut rng = ChaCha20Rng::seed_from_u64(0x426F_6F74 ^ u64::from(p.log_n) ^ p.slots as u64);
    let sk = ctx.generate_secret_key_with(&mut rng);

    let bar = Bar::new(0, "keys");
    let (keys, keygen) = time_once(|| {
        generate_keys_with(&ctx, &config, &sk, &mut rng, |done, total| {
            if crate::progress::bars() {
                bar.set(done, total);
            } else {
                progress(format_args!("{}: keys {done}/{total}", p.name));
            }
        })
    });
    drop(bar);
    let keys = keys?;
    if crate::progress::bars() {
        progress(format_args!("{}: keys", p.name));
    }
    crate::progress::line_end(format!(" ({:.1} s)", keygen.as_secs_f64()));
    let galois_keys = keys.evaluation.galois_keys().len();
    let key_bytes = keys.size_bytes();
    let (boot, setup) = time_once(|| Bootstrapper::new(ctx.clone(), config.clone(), keys));
    let boot = boot?;
    crate::progress::note(format!("  {}: setup {:.1} s", p.name, setup.as_secs_f64()));

    let mut inputs = SplitMix64::new(0x4845_4B41_5445 ^ p.slots as u64);
    let mut z = inputs.complexes(p.slots);
    if input.real {
        z.iter_mut().for_each(|c| c.im = 0.0);
    }
    // From level 0 ScaleDown has no rescale to match the scale: the input must be at
    // q_0 / R exactly.
    let scale = match input.level {
        0 => boot.level_zero_scale(),
        _ => ctx.default_scale().clone(),
    };
    let pt = ctx.encode_at(&z, p.slots, input.level, &scale)?;
    let ct = ctx.encrypt_symmetric_with(&pt, &sk, &mut rng)?;
    Ok(Prepared {
        preset: *p,
        chain,
        ctx,
        not_checked,
        config,
        failure_log2,
        keygen,
        galois_keys,
        key_bytes,
        setup,
        boot,
        sk,
        z,
        ct,
        measure: if input.real {
            Measure::RealPart
        } else {
            Measure::Modulus
        },
    })
}

/// The times of `reps` bootstraps of a prepared input.
pub(crate) struct Timing {
    /// Medians: ScaleDown + ModRaise, SubSum, CoeffsToSlots, EvalMod (both), SlotsToCoeffs.
    pub(crate) stages: [Stats; 5],
    pub(crate) total: Stats,
    /// The process's first bootstrap of this preset (the first of the reps).
    pub(crate) first: Duration,
    /// Of the last bootstrap's output against the input ([`Prepared`]'s measure).
    pub(crate) precision: Precision,
    /// With real inputs, the complex slot's precision beside the real part's.
    pub(crate) modulus: Option<Precision>,
    /// The last bootstrap's output.
    out: Ciphertext,
    /// Exact operation counts of each stage (the last rep's stage run).
    pub(crate) counts: [StageCounts; 5],
}

/// What one stage of a bootstrap did, counted exactly: limb transforms (forward and
/// inverse NTTs, [`hekate::math::transform_count`]) and key-switch decompositions (step 1,
/// one per key switch or per hoisted group; [`hekate::rlwe::Evaluator::key_switch_counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StageCounts {
    pub(crate) transforms: u64,
    pub(crate) decompositions: u64,
}

/// Times `reps` (at least one) public bootstraps of `prep`'s input, no warm-up, and after
/// each the public stages in sequence on the same input (progress on stderr).
pub(crate) fn time_bootstraps(prep: &Prepared, reps: usize) -> Result<Timing, Box<dyn Error>> {
    let (boot, ct, name) = (&prep.boot, &prep.ct, prep.preset.name);
    let mut totals = Vec::with_capacity(reps);
    let mut stages: [Vec<Duration>; 5] = Default::default();
    let mut out = None;
    let mut counts = [StageCounts::default(); 5];
    for rep in 1..=reps.max(1) {
        progress(format_args!("{name}: bootstrap {rep}/{}", reps.max(1)));
        let (o, t) = time_once(|| boot.bootstrap(ct));
        totals.push(t);
        out = Some(o?);
        // The counters are read between stages (outside the timed spans' work).
        let read = || {
            let (t, k) = (
                hekate::math::transform_count(),
                boot.evaluator().rlwe().key_switch_counts(),
            );
            (t.total(), k.decompositions)
        };
        let mut marks = [(0, 0); 6];
        let (times, _) = time_stages(boot, ct, |i| marks[i] = read())?;
        for (i, c) in counts.iter_mut().enumerate() {
            *c = StageCounts {
                transforms: marks[i + 1].0 - marks[i].0,
                decompositions: marks[i + 1].1 - marks[i].1,
            };
        }
        for (all, t) in stages.iter_mut().zip(times) {
            all.push(t);
        }
    }
    let out = out.expect("at least one repetition");
    let first = totals[0];
    let total = Stats::of(totals);
    crate::progress::line_end(format!(" (median {} ms)", fmt_ms(total.ms())));
    let got = prep.ctx.decrypt_decode(&out, &prep.sk)?;
    let modulus =
        (prep.measure == Measure::RealPart).then(|| precision(&got, &prep.z, Measure::Modulus));
    Ok(Timing {
        stages: stages.map(Stats::of),
        total,
        first,
        precision: precision(&got, &prep.z, prep.measure),
        modulus,
        out,
        counts,
    })
}

/// The public stages of one bootstrap of `ct`, in sequence as
/// [`Bootstrapper::bootstrap`] runs them: their times (ScaleDown + ModRaise with the
/// encapsulation's key switches, SubSum, CoeffsToSlots, EvalMod on every half,
/// SlotsToCoeffs) and the output. `step(i)` is called before stage `i` and `step(5)` at
/// the end (for a progress bar).
pub(crate) fn time_stages(
    boot: &Bootstrapper,
    ct: &Ciphertext,
    mut step: impl FnMut(usize),
) -> Result<([Duration; 5], Ciphertext), Box<dyn Error>> {
    let mut times = [Duration::ZERO; 5];
    step(0);
    let start = Instant::now();
    let low = boot.encapsulate(&boot.scale_down(ct)?)?;
    let raised = boot.decapsulate(&boot.mod_raise(&low)?)?;
    times[0] = start.elapsed();
    step(1);
    let (summed, t) = time_once(|| boot.sub_sum(&raised));
    times[1] = t;
    step(2);
    let (halves, t) = time_once(|| boot.coeffs_to_slots(&summed?));
    times[2] = t;
    step(3);
    let (evaluated, t) = time_once(|| -> hekate::Result<Vec<_>> {
        halves?.iter().map(|h| boot.eval_mod(h)).collect()
    });
    times[3] = t;
    step(4);
    let (out, t) = time_once(|| boot.slots_to_coeffs(&evaluated?, ct.scale()));
    times[4] = t;
    step(5);
    Ok((times, out?))
}

/// Builds, keys and times one preset.
fn run_preset(
    p: &Preset,
    plans: DftPlans,
    method: KeySwitchMethod,
    reps: usize,
    successive: usize,
    input: Input,
) -> Result<Row, Box<dyn Error>> {
    let prep = prepare(p, plans, method, input)?;
    let timing = time_bootstraps(&prep, reps)?;
    let successive = if successive > 0 {
        let mut again = timing.out;
        for i in 1..=successive {
            progress(format_args!(
                "{}: successive bootstrap {i}/{successive}",
                p.name
            ));
            again = prep.boot.bootstrap(&again)?;
        }
        crate::progress::line_end("");
        Some(precision(
            &prep.ctx.decrypt_decode(&again, &prep.sk)?,
            &prep.z,
            prep.measure,
        ))
    } else {
        None
    };

    Ok(Row {
        preset: *p,
        engine: prep.ctx.key_switch_method().name(),
        chain: prep.chain(),
        log_qp: prep.ctx.log_qp(),
        dnum: prep.ctx.dnum(),
        max_level: prep.ctx.max_level(),
        output_level: prep.boot.output_level(),
        not_checked: prep.not_checked,
        config: prep.config,
        failure_log2: prep.failure_log2,
        keygen: prep.keygen,
        galois_keys: prep.galois_keys,
        key_bytes: prep.key_bytes,
        diagonal_bytes: prep.boot.diagonal_bytes(),
        setup: prep.setup,
        stages: timing.stages,
        total: timing.total,
        first: timing.first,
        precision: timing.precision,
        modulus: timing.modulus,
        successive,
        peak_rss: peak_rss_bytes(),
        counts: timing.counts,
    })
}

/// The notes under the table.
const NOTES: &str = "Notes:
- Input: a secret-key encryption at level 1 (--input-level) of a + bi, a and b uniform in [-1, 1) (fixed \
seed; b = 0 with --real), at the default scale (at level 0: q_0 / R). L: the top level; levels left: the output level.
- secret: h̃ = sparse-secret encapsulation, ModRaise under an ephemeral secret of that \
weight. K: the ModRaise overflow bound for the failure probability asked for (log2 \
failure: Eq. (1) for the secret ModRaise runs under, per bootstrap); d, r: EvalMod's Chebyshev degree and \
double angles.
- keygen: the relinearization key, exactly the circuit's Galois keys (Horner: one \
giant-step key per DFT factor; distinct: one per giant step) and the encapsulation \
keys, once; key MiB: \
their size in memory. diagonal MiB: the encoded DFT matrices (over Q_l ∪ P where a factor \
runs seed 003 Alg. 6 with baby rotations, the hybrid engine). setup: Bootstrapper::new \
(encodes the DFT matrices).
- total: the public bootstrap, median over the reps; first: the first of them (the \
process's first bootstrap of the preset, its scratch buffers reserved at setup). The \
stages: the public stages, timed once per rep in sequence on the same input (EvalMod: \
both halves).
- prec: bits over the slots against the input; mean: -log2 of the mean absolute error, \
median: of the median one, min: of the largest one. The error is the complex slot's \
|got - want|; with --real, the real part's |Re(got) - a|, what a real decode returns \
(Lattigo's harness measures its real inputs so), the complex slot's printed below the table.
- peak RSS: VmHWM of the process after the preset (includes earlier presets).
";

/// The table's columns (then one for `--successive`, if asked).
const HEADERS: &str = "preset,engine,N,slots,secret,log QP,128-bit?,L,CtS/EvalMod/StC,levels left,K,d,\
    r,log2 failure,keygen s,Galois keys,key MiB,diagonal MiB,setup s,ScaleDown+ModRaise ms,SubSum ms,CtS ms,\
    EvalMod ms,StC ms,first ms,total ms,prec mean,prec median,prec min,peak RSS MiB";

/// The results table, one row per preset (a column for `--successive` if asked).
fn table(rows: &[Row], successive: usize) -> Table {
    let mut headers: Vec<String> = HEADERS.split(',').map(String::from).collect();
    if successive > 0 {
        headers.push(format!("prec mean/min after +{successive}"));
    }
    let mut t = Table::new(headers, 1);
    for r in rows {
        t.push(cells(r));
    }
    t
}

/// The cells of one preset's row.
fn cells(r: &Row) -> Vec<String> {
    {
        let p = &r.preset;
        let c = &r.config;
        let mut cells = vec![
            p.name.to_string(),
            r.engine.clone(),
            format!("2^{}", p.log_n),
            r.preset.slots.to_string(),
            match p.ephemeral_weight {
                Some(h) => format!("{}, h̃ = {h}", secret_label(p.secret)),
                None => secret_label(p.secret),
            },
            format!("{:.1}", r.log_qp),
            if r.not_checked.is_none() { "yes" } else { "no" }.into(),
            r.max_level.to_string(),
            format!(
                "{}/{}/{}",
                c.cts_primes(),
                c.eval_mod.depth(),
                c.stc_primes()
            ),
            r.output_level.to_string(),
            c.k.to_string(),
            c.eval_mod.polynomial().degree().to_string(),
            c.eval_mod.double_angles().to_string(),
            format!("{:.1}", r.failure_log2),
            fmt_ms(r.keygen.as_secs_f64()),
            format!(
                "{} ({})",
                r.galois_keys,
                match c.giant_steps {
                    GiantSteps::Horner => "Horner",
                    GiantSteps::Distinct => "distinct",
                }
            ),
            fmt_mib(r.key_bytes),
            fmt_mib(r.diagonal_bytes),
            fmt_ms(r.setup.as_secs_f64()),
        ];
        cells.extend(r.stages.iter().map(|s| fmt_ms(s.ms())));
        cells.push(fmt_ms(r.first.as_secs_f64() * 1e3));
        cells.push(fmt_ms(r.total.ms()));
        let pr = r.precision;
        cells.extend([pr.mean, pr.median, pr.min].map(|b| format!("{b:.1}")));
        cells.push(r.peak_rss.map_or("-".into(), fmt_mib));
        if let Some(s) = r.successive {
            cells.push(format!("{:.1}/{:.1}", s.mean, s.min));
        }
        cells
    }
}

/// Runs `hekate bench bootstrap`.
pub fn run(args: BootstrapArgs) -> Result<Outcome, Box<dyn Error>> {
    let names = args.presets.clone().unwrap_or_else(|| {
        if args.quick {
            vec![
                presets::QUICK_DENSE.name.into(),
                presets::QUICK_SPARSE.name.into(),
            ]
        } else {
            vec![presets::DENSE.name.into()]
        }
    });
    let presets: Vec<Preset> = names.iter().map(|n| preset(n)).collect::<Result<_, _>>()?;
    if args.reps == 0 {
        return Err("--reps must be at least 1".into());
    }
    init_threads(args.threads)?;
    crate::progress::note(format!(
        "hekate bench bootstrap: {} preset(s), {} rep(s), {} thread(s)",
        presets.len(),
        args.reps,
        args.threads
    ));
    let start = Instant::now();
    let mut rows = Vec::with_capacity(presets.len());
    // Rows go into the table as their presets finish (`--format jsonl` writes them then).
    let mut t = table(&[], args.successive);
    let runs = presets.len() * args.key_switching.len();
    let bar = Bar::new(runs as u64, "presets");
    let plans = DftPlans {
        giant_steps: args.giant_steps,
        bsgs_ties: args.bsgs_ties,
        key_cap: args.key_cap,
    };
    let input = Input {
        real: args.real,
        level: args.input_level,
    };
    for p in &presets {
        for &method in &args.key_switching {
            let row = run_preset(p, plans, method, args.reps, args.successive, input)?;
            t.push(cells(&row));
            rows.push(row);
            bar.inc(1);
        }
    }
    drop(bar);

    say!("{}", header("bootstrap", args.threads));
    say!();
    for r in &rows {
        let p = &r.preset;
        let chain = &r.chain;
        say!(
            "- {}: log Q bits {:?}, log P bits {:?} (dnum {}), scale 2^{}; DFT factors per \
             prime CtS {:?}, StC {:?}; key cap {}; message ratio 2^{}, arcsine degree {}; {}",
            p.name,
            chain,
            p.log_p,
            r.dnum,
            p.log_scale,
            r.config.cts_grouping(),
            r.config.stc_grouping(),
            r.config
                .key_memory_cap
                .map_or("none".to_string(), |b| format!("{} MiB", b >> 20)),
            r.config.log_message_ratio,
            r.config.eval_mod.arcsine_degree(),
            match &r.not_checked {
                None => "SecurityLevel::Bits128 (checked)".to_string(),
                Some(why) => format!("SecurityLevel::NotChecked: {why}"),
            }
        );
    }
    say!();
    t.print();
    say!();
    for r in &rows {
        let c = &r.counts;
        let stage = |i: usize| format!("{} / {}", c[i].transforms, c[i].decompositions);
        say!(
            "- {} ({}) operation counts, limb transforms / key-switch decompositions: \
             ScaleDown+ModRaise {}, SubSum {}, CtS {}, EvalMod {}, StC {}; all {} / {}",
            r.preset.name,
            r.engine,
            stage(0),
            stage(1),
            stage(2),
            stage(3),
            stage(4),
            c.iter().map(|x| x.transforms).sum::<u64>(),
            c.iter().map(|x| x.decompositions).sum::<u64>()
        );
    }
    for r in &rows {
        if let Some(m) = r.modulus {
            say!(
                "- {} ({}) real inputs, the complex slot's precision (the imaginary part's \
                 error included): mean {:.1}, median {:.1}, min {:.1}",
                r.preset.name,
                r.engine,
                m.mean,
                m.median,
                m.min
            );
        }
    }
    say!();
    say!("{}", NOTES.trim_end());
    say!(
        "- Times: medians of {} rep(s), no warm-up.{}",
        args.reps,
        if args.successive > 0 {
            " Last column: after bootstrapping the output again that many times."
        } else {
            ""
        }
    );
    say!("- total run time: {:.1} s", start.elapsed().as_secs_f64());

    if let Some(r) = rows.iter().find(|r| r.precision.min < MIN_PRECISION_BITS) {
        return Ok(Outcome::CheckFailed(format!(
            "{}: bootstrapping precision {:.1} bits on the worst slot, below {MIN_PRECISION_BITS}",
            r.preset.name, r.precision.min
        )));
    }
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_by_name() {
        assert_eq!(preset("quick-sparse").unwrap().slots, 16);
        assert_eq!(preset("DENSE").unwrap().log_n, 16);
        assert_eq!(preset("set-iii").unwrap().log_scale, 30);
        assert!(preset("sparse").is_err());
        assert!(presets::PRESETS.iter().all(|p| preset(p.name) == Ok(*p)));
    }

    #[test]
    fn precision_stats() {
        let want = vec![Complex64::new(0.0, 0.0); 4];
        let got: Vec<Complex64> = [0.25, 0.5, 0.125, 0.125]
            .iter()
            .map(|&e| Complex64::new(e, 0.0))
            .collect();
        let p = precision(&got, &want, Measure::Modulus);
        assert_eq!((p.min, p.median), (1.0, 2.0));
        assert!((p.mean - 2.0).abs() < 1e-12);
        // The real part alone: the imaginary errors do not count.
        let got: Vec<Complex64> = got.iter().map(|g| g + Complex64::new(0.0, 1.0)).collect();
        let p = precision(&got, &want, Measure::RealPart);
        assert_eq!((p.min, p.median), (1.0, 2.0));
        assert!((p.mean - 2.0).abs() < 1e-12);
        let p = precision(&got, &want, Measure::Modulus);
        assert!(p.min < 0.0 && p.mean < 0.0);
    }

    #[test]
    fn quick_sparse_bootstraps() {
        let p = preset("quick-sparse").unwrap();
        let input = |level| Input { real: false, level };
        let run = |level| {
            run_preset(
                &p,
                DftPlans::DEFAULT,
                KeySwitchMethod::Hybrid,
                1,
                1,
                input(level),
            )
            .unwrap()
        };
        let row = run(1);
        assert!(
            row.precision.min >= MIN_PRECISION_BITS,
            "{:?}",
            row.precision
        );
        assert!(row.successive.is_some_and(|s| s.min >= 8.0));
        assert_eq!(row.output_level, 1);
        assert!(row.galois_keys > 0 && row.key_bytes > 0 && row.diagonal_bytes > 0);
        assert_eq!(table(&[row], 1).to_markdown().lines().count(), 3);
        // From q_0 directly (`--input-level 0`, how Lattigo bootstraps set V) just as well;
        // above the top level, an error.
        let low = run(0);
        assert!(
            low.precision.min >= MIN_PRECISION_BITS,
            "{:?}",
            low.precision
        );
        let top = p.build().unwrap().0.max_level();
        let err = prepare(
            &p,
            DftPlans::DEFAULT,
            KeySwitchMethod::Hybrid,
            input(top + 1),
        );
        assert!(err.is_err_and(|e| e.to_string().contains("--input-level")));
    }
}
