//! End-to-end bootstrapping at small N (`NotChecked` toy chains, seconds each).

use super::*;
use crate::circuits::lintrans::BsgsPlan;
use crate::ckks::{CkksContext, CkksParameters};
use crate::params::SecurityLevel;
use crate::rlwe::{SecretDistribution, SecretKey};
use num_complex::Complex64;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Precision statistics of `got` against `want`: `(mean, minimum)` over the slots of
/// `-log2 |got - want|` (the mean is `-log2` of the mean absolute error, as Lattigo's).
pub(super) fn precision(got: &[Complex64], want: &[Complex64]) -> (f64, f64) {
    let errs: Vec<f64> = got.iter().zip(want).map(|(g, w)| (g - w).norm()).collect();
    let mean = errs.iter().sum::<f64>() / errs.len() as f64;
    let max = errs.iter().copied().fold(0.0, f64::max);
    (-mean.log2(), -max.log2())
}

/// A toy context (`N = 2^log_n`, `NotChecked`) for `config`: `q_0` of 60 bits, one
/// residual level of 40 bits, then the bootstrapping levels.
pub(super) fn context(
    log_n: u32,
    config: &BootstrapConfig,
    secret: SecretDistribution,
) -> Arc<CkksContext> {
    CkksParameters::new(log_n)
        .log_q(&config.chain(&[60, 40], 42, 55, 58))
        .log_p(&[61, 61, 61, 61])
        .log_scale(40)
        .secret(secret)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap()
}

pub(super) fn random_values(n: usize, rng: &mut ChaCha20Rng) -> Vec<Complex64> {
    (0..n)
        .map(|_| Complex64::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
        .collect()
}

pub(super) struct Setup {
    pub(super) ctx: Arc<CkksContext>,
    pub(super) sk: SecretKey,
    pub(super) boot: Bootstrapper,
}

impl Setup {
    /// A secret-key encryption of `z` in `slots` slots at `level` and `scale`.
    pub(super) fn encrypt(
        &self,
        z: &[Complex64],
        slots: usize,
        level: usize,
        scale: &crate::ckks::Scale,
        rng: &mut ChaCha20Rng,
    ) -> crate::ckks::Ciphertext {
        let pt = self.ctx.encode_at(z, slots, level, scale).unwrap();
        self.ctx.encrypt_symmetric_with(&pt, &self.sk, rng).unwrap()
    }
}

pub(super) fn setup(log_n: u32, slots: usize, secret: SecretDistribution, seed: u64) -> Setup {
    let config = BootstrapConfig::new(1 << log_n, secret, slots, -40.0).unwrap();
    setup_with(log_n, config, secret, seed)
}

/// [`setup`] for a given configuration (its DFT depths set to `min(2, log2 n)`).
pub(super) fn setup_with(
    log_n: u32,
    mut config: BootstrapConfig,
    secret: SecretDistribution,
    seed: u64,
) -> Setup {
    let rho = (config.slots.trailing_zeros() as usize).clamp(1, 2);
    (config.cts_levels, config.stc_levels) = (rho, rho);
    let ctx = context(log_n, &config, secret);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let keys = generate_keys_with(&ctx, &config, &sk, &mut rng, |_, _| {}).unwrap();
    let boot = Bootstrapper::new(ctx.clone(), config, keys).unwrap();
    Setup { ctx, sk, boot }
}

pub(super) fn bootstrap_once(s: &Setup, slots: usize, seed: u64) -> (f64, f64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let z = random_values(slots, &mut rng);
    let ct = s.encrypt(&z, slots, 1, s.ctx.default_scale(), &mut rng);
    let out = s.boot.bootstrap(&ct).unwrap();
    assert_eq!(out.level(), s.boot.output_level());
    assert_eq!(
        out.scale(),
        ct.scale(),
        "the output scale is the input's, exactly"
    );
    assert_eq!(out.slots(), slots);
    let got = s.ctx.decrypt_decode(&out, &s.sk).unwrap();
    precision(&got, &z)
}

#[test]
fn bootstraps_full_packing_with_a_dense_secret() {
    let s = setup(12, 1 << 11, SecretDistribution::Ternary, 11);
    let (mean, min) = bootstrap_once(&s, 1 << 11, 12);
    println!("N = 2^12, 2^11 slots, uniform ternary: {mean:.1} bits mean, {min:.1} min");
    assert!(mean >= 15.0 && min >= 12.0, "{mean} / {min}");
}

#[test]
fn bootstraps_sparse_packing_with_a_sparse_secret() {
    let s = setup(12, 8, SecretDistribution::HammingWeight(64), 21);
    let (mean, min) = bootstrap_once(&s, 8, 22);
    println!("N = 2^12, 8 slots, h = 64: {mean:.1} bits mean, {min:.1} min");
    assert!(mean >= 15.0 && min >= 12.0, "{mean} / {min}");
}

/// ModRaise's gain where `q_0` is small against EvalMod's primes (seed 003 Set V's shape at
/// `N = 2^12`: `q_0 = 2^33`, `Δ = 2^25`, 50-bit EvalMod primes, `h = 64`): `c =
/// ⌊q_em / (q_0 K')⌋ > 1`, the raised ciphertext decrypts to `c t` exactly (`t = m + q_0 I`,
/// `|I| <= K`), and the bootstrap keeps the precision of the rescaling noise at `Δ`:
/// 17.0 bits mean (14.0 without the gain, the key switches of CoeffsToSlots then adding
/// their noise to a message of `q_0 / R`).
#[test]
fn mod_raise_gain_keeps_a_small_q0_precise() {
    let (log_n, slots) = (12, 1 << 11);
    let secret = SecretDistribution::HammingWeight(64);
    let mut config = BootstrapConfig::new(1 << log_n, secret, slots, -40.0).unwrap();
    (config.cts_levels, config.stc_levels) = (2, 2);
    let ctx = CkksParameters::new(log_n)
        .log_q(&config.chain(&[33, 50, 25], 60, 50, 49))
        .log_p(&[50, 50])
        .log_scale(25)
        .secret(secret)
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(71);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let keys = generate_keys_with(&ctx, &config, &sk, &mut rng, |_, _| {}).unwrap();
    let boot = Bootstrapper::new(ctx.clone(), config, keys).unwrap();
    let s = Setup { ctx, sk, boot };
    let gain = s.boot.mod_raise_gain();
    let q0 = s.ctx.q_primes()[0] as f64;
    let k_prime = s.boot.config().eval_mod.k_prime();
    let q_em = s.ctx.q_primes()[s.ctx.max_level() - 2] as f64;
    assert_eq!(gain, (q_em / (q0 * k_prime)).floor() as u64);
    let z = random_values(slots, &mut rng);
    let ct = s.encrypt(&z, slots, 1, s.ctx.default_scale(), &mut rng);
    let raised = s.boot.mod_raise(&s.boot.scale_down(&ct).unwrap()).unwrap();
    assert_eq!(
        raised.scale().to_f64(),
        q0 * k_prime * gain as f64,
        "S_0 = c q_0 K'"
    );
    for c in decrypted_coefficients(&s, &raised) {
        assert_eq!(c % gain as f64, 0.0, "a multiple of the gain");
        assert!((c / (gain as f64 * q0)).abs() <= s.boot.config().k as f64 + 1.0);
    }
    let (mean, min) = bootstrap_once(&s, slots, 72);
    println!("q_0 = 2^33, Δ = 2^25: {mean:.2} bits mean, {min:.2} min");
    assert!(mean >= 16.0 && min >= 14.0, "{mean} / {min}");
}

/// The centred coefficients of the decryption of `ct` (exact to `2^-50` relative).
pub(super) fn decrypted_coefficients(s: &Setup, ct: &crate::ckks::Ciphertext) -> Vec<f64> {
    let pt = s.ctx.decrypt(ct, &s.sk).unwrap();
    let mut p = pt.poly().clone();
    p.intt(s.ctx.ring());
    let n = s.ctx.n();
    let residues: Vec<u64> = p.limbs().flatten().copied().collect();
    let mut digits = vec![0u64; residues.len()];
    let mut out = vec![0.0; n];
    s.ctx
        .ring()
        .crt()
        .centered_f64(&residues, &mut digits, n, &mut out);
    out
}

#[test]
fn coeffs_to_slots_puts_the_raised_coefficients_in_bit_reversed_slots() {
    let slots = 1 << 11;
    let s = setup(12, slots, SecretDistribution::Ternary, 31);
    let mut rng = ChaCha20Rng::seed_from_u64(32);
    let z = random_values(slots, &mut rng);
    let ct = s.encrypt(&z, slots, 1, s.ctx.default_scale(), &mut rng);
    let raised = s.boot.mod_raise(&s.boot.scale_down(&ct).unwrap()).unwrap();
    let gain = s.boot.mod_raise_gain() as f64;
    let t: Vec<f64> = (decrypted_coefficients(&s, &raised).iter())
        .map(|c| c / gain)
        .collect();
    let q0 = s.ctx.q_primes()[0] as f64;
    let k = s.boot.config().k as f64;
    assert!(t.iter().all(|c| (c / q0).abs() <= k + 1.0), "|I| <= K");
    let halves = s.boot.coeffs_to_slots(&raised).unwrap();
    let (re, im) = (&halves[0], &halves[1]);
    let k_prime = s.boot.config().eval_mod.k_prime();
    let bits = slots.trailing_zeros();
    // The last factor's outer rotation is carried to SlotsToCoeffs: slot j holds slot j - o.
    let o = s.boot.coeffs_to_slots_rotation();
    assert!(o < slots);
    for (half, ct) in [(0, re), (1, im)] {
        let got = s.ctx.decrypt_decode(ct, &s.sk).unwrap();
        for (j, g) in got.iter().enumerate() {
            let rev = ((j + slots - o) % slots).reverse_bits() >> (usize::BITS - bits);
            let want = t[half * slots + rev] / (q0 * k_prime);
            assert!(
                (g.re - want).abs() < 1e-9 && g.im.abs() < 1e-9,
                "slot {j}: {g} vs {want}"
            );
        }
    }
}

/// The χ² statistic of `counts` of `|I| = 0, 1, ..` against `I = round(S_h)`, `S_h` the
/// Irwin-Hall sum of `h` uniforms on `(-1/2, 1/2)` (exact), with the tail pooled so that
/// every bin expects at least 5; returns `(χ², degrees of freedom)`.
fn chi_squared(counts: &BTreeMap<u64, usize>, total: usize, h: usize) -> (f64, usize) {
    // P(|S_h| > x) for x a half-integer (the function counts h + 1 uniforms: pass h - 1)
    let tail = |x: f64| super::failure::log2_tail_exact_at_half(h - 1, (2.0 * x) as u64).exp2();
    let (mut chi2, mut bins, mut k) = (0.0, 0usize, 0u64);
    loop {
        let lo = if k == 0 { 1.0 } else { tail(k as f64 - 0.5) };
        let p = lo - tail(k as f64 + 0.5);
        let rest = tail(k as f64 + 0.5);
        let obs = counts.get(&k).copied().unwrap_or(0) as f64;
        if rest * (total as f64) < 5.0 || p * (total as f64) < 5.0 {
            // Pool this bin and the tail beyond it.
            let obs: usize = counts.range(k..).map(|(_, &c)| c).sum();
            let e = lo * total as f64;
            chi2 += (obs as f64 - e).powi(2) / e;
            bins += 1;
            break;
        }
        let e = p * total as f64;
        chi2 += (obs - e).powi(2) / e;
        bins += 1;
        k += 1;
    }
    (chi2, bins - 1)
}

/// ModRaise's overflow `I` (seed 003 §5.2). With `c_0 = [-c_1 s]_(q_0) + m + e`,
/// `t = c_0 + c_1 s = q_0 round(c_1 s / q_0) + m + e`: `I_j = round(S_h)`, `S_h` the sum of
/// the `h` uniforms `±c_(1,i) / q_0` (`h` the secret's Hamming weight), of variance
/// `h/12 + 1/12` — the paper's Irwin-Hall sum of `h + 1` uniforms, whose extra term is
/// `c_0`'s, has the same variance and tail (Eq. (1) counts `|S_(h+1)| > K`, this is
/// `|S_h| > K + 1/2`). Checked: the variance, the distribution (χ² against the exact law,
/// p > 10^-3), and `|I| <= K`.
#[test]
fn mod_raise_overflow_follows_the_irwin_hall_model() {
    let log_n = 11;
    for secret in [
        SecretDistribution::HammingWeight(32),
        SecretDistribution::HammingWeight(192),
        SecretDistribution::Ternary,
    ] {
        let s = setup(log_n, 4, secret, 41);
        let h = s.sk.coeffs().iter().filter(|&&c| c != 0).count() as f64;
        let mut rng = ChaCha20Rng::seed_from_u64(42);
        let q0 = s.ctx.q_primes()[0] as f64;
        let delta0 = q0 / 256.0;
        let scale = crate::ckks::Scale::from_f64(delta0).unwrap();
        let (mut sum2, mut worst) = (0.0, 0.0f64);
        let mut counts = BTreeMap::new();
        let mut total = 0usize;
        for _ in 0..20 {
            let z = random_values(4, &mut rng);
            let ct = s.encrypt(&z, 4, 0, &scale, &mut rng);
            let t = decrypted_coefficients(&s, &s.boot.mod_raise(&ct).unwrap());
            let gain = s.boot.mod_raise_gain() as f64;
            for c in t {
                let i = (c / (gain * q0)).round();
                sum2 += i * i;
                worst = worst.max(i.abs());
                *counts.entry(i.abs() as u64).or_insert(0usize) += 1;
                total += 1;
            }
        }
        let var = sum2 / total as f64;
        let model = (h + 1.0) / 12.0;
        // 40960 samples: the variance estimate's relative deviation is about 0.7%.
        assert!(
            (var / model - 1.0).abs() < 0.04,
            "h = {h}: variance {var} vs {model}"
        );
        let (chi2, df) = chi_squared(&counts, total, h as usize);
        // The 10^-3 upper quantile of χ²(df) (Wilson-Hilferty).
        let c = 2.0 / (9.0 * df as f64);
        let crit = df as f64 * (1.0 - c + 3.09 * c.sqrt()).powi(3);
        println!("h = {h}: χ² = {chi2:.1} over {df} degrees of freedom (10^-3 quantile {crit:.1})");
        assert!(chi2 < crit, "h = {h}: χ² = {chi2} > {crit} ({df} df)");
        assert!(
            worst <= s.boot.config().k as f64,
            "h = {h}: |I| = {worst} > K"
        );
    }
}

#[test]
fn ten_successive_bootstraps_lose_at_most_three_bits() {
    let slots = 1 << 11;
    let s = setup(12, slots, SecretDistribution::Ternary, 51);
    let mut rng = ChaCha20Rng::seed_from_u64(52);
    let z = random_values(slots, &mut rng);
    let mut ct = s.encrypt(&z, slots, 1, s.ctx.default_scale(), &mut rng);
    let mut first = None;
    for round in 0..10 {
        ct = s.boot.bootstrap(&ct).unwrap();
        let (mean, _) = precision(&s.ctx.decrypt_decode(&ct, &s.sk).unwrap(), &z);
        println!("bootstrap {}: {mean:.1} bits mean", round + 1);
        let f = *first.get_or_insert(mean);
        assert!(
            mean >= f - 3.0,
            "round {}: {mean} bits after {f}",
            round + 1
        );
    }
}

#[test]
fn diagonal_memory_is_every_factors_diagonals_at_its_level() {
    // Full packing (no repack), one factor per prime: CoeffsToSlots factor j at L - j,
    // SlotsToCoeffs factor j below EvalMod, the last one at the output level + 1; a
    // factor with baby rotations over Q_l ∪ P (Alg. 6 on the hybrid engine).
    let s = setup(12, 1 << 11, SecretDistribution::Ternary, 63);
    let config = s.boot.config().clone();
    let (cts, stc) = super::bootstrapper::factors(&s.ctx, &config, false).unwrap();
    let top = s.ctx.max_level();
    let stc_top = top - config.cts_levels - config.eval_mod.depth();
    let limb = s.ctx.n() * 8;
    let k = s.ctx.ring().p_len();
    let limbs = |plan: &BsgsPlan, level: usize| level + 1 + k * plan.extended_inner_loop() as usize;
    assert!(cts.iter().chain(&stc).all(|(_, p)| p.extended_inner_loop()));
    let mut want: usize = cts
        .iter()
        .enumerate()
        .map(|(j, (d, p))| d.len() * limbs(p, top - j) * limb)
        .sum();
    want += stc
        .iter()
        .enumerate()
        .map(|(j, (d, p))| {
            let level = if j + 1 == stc.len() {
                s.boot.output_level() + 1
            } else {
                stc_top - j
            };
            d.len() * limbs(p, level) * limb
        })
        .sum::<usize>();
    // The last factor is encoded at setup for the default scale and for a level-0 input's
    // `Δ_0` (each output scale is a copy).
    let (d, p) = stc.last().unwrap();
    let last = d.len() * limbs(p, s.boot.output_level() + 1) * limb;
    let scales = 1 + (s.boot.level_zero_scale() != *s.ctx.default_scale()) as usize;
    assert_eq!(scales, 2);
    want += (scales - 1) * last;
    assert_eq!(s.boot.diagonal_bytes(), want);
}

#[test]
fn the_key_set_is_exactly_the_circuits_galois_elements() {
    let s = setup(12, 8, SecretDistribution::HammingWeight(64), 61);
    let config = s.boot.config().clone();
    let want = galois_elements(&s.ctx, &config).unwrap();
    let keys = s.boot.evaluator().keys();
    let mut have = keys.galois_keys().elements();
    have.sort_unstable();
    assert_eq!(have, want);
    // SubSum (8 of 2048 slots: 8 rotations), conjugation, both DFTs' rotations.
    assert!(want.contains(&(2 * s.ctx.n() - 1)));
    // Without one of them, the bootstrapper refuses to build and names the element.
    let mut rng = ChaCha20Rng::seed_from_u64(62);
    let missing = want[want.len() / 2];
    let partial: Vec<usize> = want.iter().copied().filter(|&g| g != missing).collect();
    let gk = s
        .ctx
        .rlwe()
        .generate_galois_keys_with(&s.sk, &partial, &mut rng);
    let rlk = s
        .ctx
        .rlwe()
        .generate_relinearization_key_with(&s.sk, &mut rng);
    let err = Bootstrapper::new(
        s.ctx.clone(),
        config.clone(),
        Arc::new(crate::ckks::EvaluationKeySet::new(Some(rlk), gk.clone())),
    )
    .unwrap_err();
    assert!(
        matches!(&err, crate::Error::MissingKey(m) if m.contains(&missing.to_string()) && m.contains("rotation by")),
        "{err}"
    );
    let err = Bootstrapper::new(
        s.ctx.clone(),
        config,
        Arc::new(crate::ckks::EvaluationKeySet::new(None, gk)),
    )
    .unwrap_err();
    assert!(matches!(err, crate::Error::MissingKey(_)), "{err}");
}

/// Keys sized to their level: each generated key serves exactly the highest level
/// `key_levels` gives it (CoeffsToSlots's at the top, SlotsToCoeffs's below EvalMod, the
/// relinearization key at EvalMod's first level), its size is the hybrid formula
/// `ceil(ℓ/α) · 2 (ℓ + k) N · 8` bytes at `ℓ = l + 1` limbs, and a key one level too narrow
/// is refused by the bootstrapper, naming it.
#[test]
fn keys_are_sized_to_the_level_they_are_used_at() {
    let s = setup(12, 8, SecretDistribution::HammingWeight(64), 65);
    let config = s.boot.config().clone();
    let (levels, relin_level) = key_levels(&s.ctx, &config).unwrap();
    let keys = s.boot.evaluator().keys();
    let top = s.ctx.max_level();
    assert_eq!(relin_level, top - config.cts_levels);
    let rlk = keys.relinearization_key().unwrap();
    assert_eq!(rlk.max_level(), Some(relin_level));
    let (alpha, k, n) = (
        s.ctx.q_primes().len().div_ceil(s.ctx.dnum()),
        s.ctx.rlwe().p_primes().len(),
        s.ctx.n(),
    );
    let formula = |l: usize| (l + 1).div_ceil(alpha) * 2 * (l + 1 + k) * n * 8;
    assert_eq!(rlk.0.size_bytes(), formula(relin_level));
    assert!(
        levels.iter().any(|&(_, l)| l == top),
        "CoeffsToSlots at the top"
    );
    // Conjugation is used at EvalMod's first level only (its element is no rotation).
    let conj = 2 * s.ctx.n() - 1;
    assert!(levels.contains(&(conj, top - config.cts_levels)));
    let mut total = rlk.0.size_bytes();
    for &(g, l) in &levels {
        let key = keys.galois_key(g).unwrap();
        assert_eq!(key.max_level(), Some(l), "element {g}");
        assert_eq!(key.size_bytes(), formula(l));
        total += formula(l);
    }
    assert_eq!(keys.size_bytes(), total);
    let full = formula(top) * (levels.len() + 1);
    println!(
        "level-aware keys: {total} bytes, {:.2}x of full-width keys",
        total as f64 / full as f64
    );
    assert!(total < full);
    // One key a level too narrow: refused at construction, by element.
    let (g, l) = *levels.iter().find(|&&(_, l)| l > 0).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(66);
    let narrow = s
        .ctx
        .rlwe()
        .generate_galois_key_at_with(&s.sk, g, l - 1, &mut rng)
        .unwrap();
    let mut galois = keys.galois_keys().clone();
    galois.insert(narrow);
    let set = crate::ckks::EvaluationKeySet::new(keys.relinearization_key().cloned(), galois);
    let err = Bootstrapper::new(s.ctx.clone(), config, Arc::new(set)).unwrap_err();
    assert!(
        matches!(&err, crate::Error::LevelMismatch(m) if m.contains(&g.to_string())),
        "{err}"
    );
}

#[test]
fn bad_inputs_and_configurations_are_errors() {
    let s = setup(12, 8, SecretDistribution::HammingWeight(64), 71);
    let mut rng = ChaCha20Rng::seed_from_u64(72);
    // Wrong slot count.
    let ct = s.encrypt(
        &random_values(16, &mut rng),
        16,
        1,
        s.ctx.default_scale(),
        &mut rng,
    );
    assert!(matches!(
        s.boot.bootstrap(&ct),
        Err(crate::Error::ParameterMismatch(_))
    ));
    // Level 0 at a scale other than q_0 / R.
    let ct = s.encrypt(
        &random_values(8, &mut rng),
        8,
        0,
        s.ctx.default_scale(),
        &mut rng,
    );
    assert!(matches!(
        s.boot.bootstrap(&ct),
        Err(crate::Error::ScaleMismatch(_))
    ));
    // Level 0 within a rounding of q_0 / R (q_0 / 256 through an f64): the message gives
    // the difference and the exact scale to encode at, which bootstraps.
    let ratio = s.boot.config().log_message_ratio;
    let q0 = s.ctx.q_primes()[0] as f64;
    let near = crate::ckks::Scale::from_f64(q0 / f64::from(ratio).exp2()).unwrap();
    let ct = s.encrypt(&random_values(8, &mut rng), 8, 0, &near, &mut rng);
    match s.boot.bootstrap(&ct) {
        Err(crate::Error::ScaleMismatch(m)) => assert!(
            m.contains("relative difference")
                && m.contains(&format!("constant_scale(0) / 2^{ratio}")),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    let exact = s
        .ctx
        .constant_scale(0)
        .div(&crate::ckks::Scale::from_bits(ratio));
    let ct = s.encrypt(&random_values(8, &mut rng), 8, 0, &exact, &mut rng);
    assert_eq!(
        s.boot.bootstrap(&ct).unwrap().level(),
        s.boot.output_level()
    );
    // A scale too large for the message ratio.
    let big = crate::ckks::Scale::from_bits(95);
    let ct = s.encrypt(&random_values(8, &mut rng), 8, 2, &big, &mut rng);
    assert!(matches!(
        s.boot.bootstrap(&ct),
        Err(crate::Error::ScaleMismatch(_))
    ));
    // ModRaise of a ciphertext above level 0.
    let ct = s.encrypt(
        &random_values(8, &mut rng),
        8,
        1,
        s.ctx.default_scale(),
        &mut rng,
    );
    assert!(matches!(
        s.boot.mod_raise(&ct),
        Err(crate::Error::LevelMismatch(_))
    ));
    // A chain too short for the circuit.
    let mut config = s.boot.config().clone();
    config.stc_levels = 3;
    config.cts_levels = 3;
    let short = CkksParameters::new(12)
        .log_q(&[60, 40, 42, 55, 58])
        .log_p(&[61])
        .secret(SecretDistribution::HammingWeight(64))
        .security(SecurityLevel::NotChecked)
        .build()
        .unwrap();
    assert!(matches!(
        galois_elements(&short, &config),
        Err(crate::Error::OutOfLevels(_))
    ));
    // DFT levels out of range, a Gaussian secret.
    config.cts_levels = 0;
    assert!(galois_elements(&s.ctx, &config).is_err());
    assert!(BootstrapConfig::new(1 << 12, SecretDistribution::Gaussian, 8, -40.0).is_err());
    assert!(BootstrapConfig::new(1 << 12, SecretDistribution::Ternary, 3, -40.0).is_err());
}

/// Full size (`#[ignore]`, minutes and about 10 GiB): `N = 2^16`, `2^15` slots, a dense
/// (uniform ternary) secret, failure at most `2^-64` per bootstrap, 5 levels left, at
/// 128-bit security if the chain fits the table. Run with
/// `cargo test --release -p hekate --lib -- --ignored --nocapture full_size_dense`.
#[test]
#[ignore]
fn full_size_dense_n16() {
    let (log_n, slots) = (16u32, 1usize << 15);
    let secret = SecretDistribution::Ternary;
    let mut config = BootstrapConfig::new(1 << log_n, secret, slots, -64.0).unwrap();
    (config.cts_levels, config.stc_levels) = (4, 3);
    let bits = config.chain(&[60, 40, 40, 40, 40, 40], 42, 60, 56);
    let build = |security| {
        CkksParameters::new(log_n)
            .log_q(&bits)
            .log_p(&[61; 5])
            .log_scale(40)
            .secret(secret)
            .security(security)
            .build()
    };
    let ctx = build(SecurityLevel::Bits128).or_else(|e| {
        println!("not 128-bit ({e}): running NotChecked");
        build(SecurityLevel::NotChecked)
    });
    let ctx = ctx.unwrap();
    println!(
        "log QP = {:.0}, L = {}, K = {}, EvalMod d = {} r = {}, failure 2^{:.1}",
        ctx.log_qp(),
        ctx.max_level(),
        config.k,
        config.eval_mod.polynomial().degree(),
        config.eval_mod.double_angles(),
        config.failure_log2(&ctx).unwrap()
    );
    let mut rng = ChaCha20Rng::seed_from_u64(81);
    let sk = ctx.generate_secret_key_with(&mut rng);
    let t = std::time::Instant::now();
    let keys = generate_keys_with(&ctx, &config, &sk, &mut rng, |d, n| {
        eprint!("\rkeys {d}/{n}")
    })
    .unwrap();
    eprintln!();
    println!("keys: {:.1} s", t.elapsed().as_secs_f64());
    let boot = Bootstrapper::new(ctx.clone(), config, keys).unwrap();
    let s = Setup { ctx, sk, boot };
    let t = std::time::Instant::now();
    let (mean, min) = bootstrap_once(&s, slots, 82);
    println!(
        "bootstrap: {:.1} s, {mean:.1} bits mean, {min:.1} min, level {} left",
        t.elapsed().as_secs_f64(),
        s.boot.output_level()
    );
    // Measured on an AMD EPYC (Zen 4): 15.2 bits mean, 13.4 minimum slot, 5 levels left
    // (uniform complex inputs; with a message ratio of 2^6: 17.1 / 15.2; 2^4: 19.0 / 17.2).
    assert!(mean >= 14.7 && min >= 12.5, "{mean} / {min}");
}

/// `2n = N/2`: the largest sparse packing, whose repacked halves fill every slot.
#[test]
fn bootstraps_half_packing_with_repacked_halves() {
    let s = setup(12, 1 << 10, SecretDistribution::Ternary, 91);
    let (mean, min) = bootstrap_once(&s, 1 << 10, 92);
    println!("N = 2^12, 2^10 slots, uniform ternary: {mean:.1} bits mean, {min:.1} min");
    assert!(mean >= 15.0 && min >= 12.0, "{mean} / {min}");
}

/// META-BTS: a second round adds about `g` bits (the output scale stays exact).
#[test]
fn iterative_bootstrapping_adds_precision() {
    let slots = 1 << 11;
    let s = setup(12, slots, SecretDistribution::Ternary, 101);
    let mut rng = ChaCha20Rng::seed_from_u64(102);
    let z = random_values(slots, &mut rng);
    let ct = s.encrypt(&z, slots, 1, s.ctx.default_scale(), &mut rng);
    let one = s.boot.bootstrap_iterative(&ct, &[]).unwrap();
    let two = s.boot.bootstrap_iterative(&ct, &[16]).unwrap();
    assert_eq!(
        (two.level(), two.scale()),
        (s.boot.output_level(), ct.scale())
    );
    let (p1, m1) = precision(&s.ctx.decrypt_decode(&one, &s.sk).unwrap(), &z);
    let (p2, m2) = precision(&s.ctx.decrypt_decode(&two, &s.sk).unwrap(), &z);
    println!("META-BTS: one round {p1:.1} / {m1:.1} bits, two rounds {p2:.1} / {m2:.1}");
    assert!(
        p2 >= p1 + 5.0 && m2 >= m1 + 5.0,
        "{p1} -> {p2}, {m1} -> {m2}"
    );
    assert!(s.boot.bootstrap_iterative(&ct, &[0]).is_err());
}

/// The key bundle serializes (relinearization key and Galois keys, seed-compressed) and a
/// bootstrapper built from the bytes gives the same output word for word; hostile bytes
/// are errors.
#[test]
fn serialized_keys_bootstrap_identically() {
    use crate::ckks::{EvaluationKeySet, GaloisKeys, RelinearizationKey};
    use crate::serialize::{Deserialize, Serialize};
    let s = setup(12, 8, SecretDistribution::HammingWeight(64), 111);
    let keys = s.boot.evaluator().keys();
    let rlk = keys
        .relinearization_key()
        .unwrap()
        .to_bytes(&s.ctx)
        .unwrap();
    let gks = keys.galois_keys().to_bytes(&s.ctx).unwrap();
    let keys = EvaluationKeySet::new(
        Some(RelinearizationKey::from_bytes(&rlk, &s.ctx).unwrap()),
        GaloisKeys::from_bytes(&gks, &s.ctx).unwrap(),
    );
    let again = Bootstrapper::new(s.ctx.clone(), s.boot.config().clone(), Arc::new(keys)).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(112);
    let ct = s.encrypt(
        &random_values(8, &mut rng),
        8,
        1,
        s.ctx.default_scale(),
        &mut rng,
    );
    assert_eq!(
        s.boot.bootstrap(&ct).unwrap(),
        again.bootstrap(&ct).unwrap()
    );
    let mut bad = gks.clone();
    bad.truncate(bad.len() / 2);
    assert!(GaloisKeys::from_bytes(&bad, &s.ctx).is_err());
}

/// Han and Ki's interpolant end to end (Lattigo's `N16QP1546H192H32` EvalMod at `N = 2^12`):
/// a dense secret with encapsulation (`h̃ = 32`), `K = 15`, `d = 30`, `r = 3` reaches the
/// precision of the standard Chebyshev interpolant of degree 63 with `r = 2` (the same 8
/// levels), whose worst-case error on `|I| <= 15` is `2^-47` against Han and Ki's `2^-25`
/// (at `|I| = 15`, which `h̃ = 32` makes unlikely; `2^-48` for `|I| <= 7`).
#[test]
fn han_ki_bootstraps_as_precisely_as_the_deeper_chebyshev() {
    let mut results = Vec::new();
    for eval_mod in [
        EvalMod::han_ki(15, 3, 30, 8).unwrap(),
        EvalMod::new(15, 2, 63).unwrap(),
    ] {
        let mut config = BootstrapConfig::with_encapsulation(1 << 12, 1 << 11, 32, -40.0).unwrap();
        assert!(config.k <= 15, "K = {}", config.k);
        config.k = 15;
        assert_eq!(eval_mod.depth(), 8);
        config.eval_mod = eval_mod;
        let s = setup_with(12, config, SecretDistribution::Ternary, 161);
        let (mean, min) = bootstrap_once(&s, 1 << 11, 162);
        let kind = s.boot.config().eval_mod.interpolant();
        println!(
            "N = 2^12, 2^11 slots, h̃ = 32, K = 15, {kind:?}: {mean:.2} bits mean, {min:.2} min"
        );
        results.push((mean, min));
    }
    let ((hk_mean, hk_min), (cheb_mean, cheb_min)) = (results[0], results[1]);
    assert!(hk_mean >= cheb_mean - 0.1, "{hk_mean} vs {cheb_mean}");
    assert!(hk_min >= cheb_min - 1.0, "{hk_min} vs {cheb_min}");
    assert!(hk_mean >= 15.0, "{hk_mean}");
}

/// The key lists plan the DFTs from their index sets alone (`factor_plans`): the plans
/// equal those of the factors the bootstrapper encodes, full and sparse (repacked)
/// packing, both giant-step forms and both tie rules, at the presets' shapes.
#[test]
fn key_lists_plan_the_factors_the_bootstrapper_encodes() {
    use super::bootstrapper::{factor_plans, factors, repacks};
    use crate::circuits::lintrans::{BsgsTies, GiantSteps};
    let mut cases = Vec::new();
    for name in ["quick-dense", "quick-sparse", "quick-encapsulated"] {
        cases.push(preset(name).unwrap().build().unwrap());
    }
    // Set V's shape (N = 2^15, two factors each) as it is.
    let mut more = vec![preset("set-v").unwrap().build().unwrap()];
    for (ctx, config) in &cases {
        for form in [GiantSteps::Distinct, GiantSteps::Horner] {
            for ties in [BsgsTies::FewerGiantSteps, BsgsTies::FewerKeys] {
                let mut c = config.clone();
                (c.giant_steps, c.bsgs_ties) = (form, ties);
                more.push((ctx.clone(), c));
            }
        }
        let mut c = config.clone();
        (c.cts_levels, c.stc_levels) = (1, 2);
        more.push((ctx.clone(), c));
    }
    for (ctx, config) in more {
        let (cts, stc) = factors(&ctx, &config, repacks(&ctx, config.slots)).unwrap();
        let want: (Vec<_>, Vec<_>) = (
            cts.into_iter().map(|(_, p)| p).collect(),
            stc.into_iter().map(|(_, p)| p).collect(),
        );
        assert_eq!(factor_plans(&ctx, &config).unwrap(), want, "{config:?}");
    }
}
