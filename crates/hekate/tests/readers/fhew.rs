//! The FHEW and threshold-FHEW readers, on insecure test sets read under an explicit
//! `NotChecked`: `TOY` (LWE objects, a GINX bootstrapping key: gates come out right),
//! and, to keep the corpus and each input small, `MINI` (`N = 32`, GINX, AP, Alg. 5, a
//! two-run `B_g` schedule), `MINI_2N` (Alg. 3, 4) and a two-party threshold instance on
//! `MINI_2N` with a 50-bit `Q`. Evaluators on these sets opt out of the gate-failure bound
//! (`with_failure_bound(.., 1.0)`): the fuzzer checks that decoded keys are usable, not
//! that the gates are right.

use super::{bytes, target, Target};
use hekate::fhew::params::{self, AutoKeySet, FhewParams, Method, MethodConfig};
use hekate::fhew::threshold::{
    combine_bit, CommonRandomString, EvalKeyShare, KeyCombiner, PartialDecryption, PublicKeyShare,
    SecretShare, ThresholdContext, ThresholdParams, ThresholdPublicKey,
};
use hekate::fhew::{
    BlindRotationKey, BootstrapKey, FhewContext, FhewEvaluator, FhewSecretKey, Gate, LweCiphertext,
    LweKeySwitchKey, LweSecretKey,
};
use hekate::params::SecurityLevel::NotChecked;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::serialize::{fhew_context_from_bytes_with, fhew_context_to_bytes};
use hekate::Result;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// `N = 32`, `n = 8`, `q = 32` (GINX, AP, Alg. 5), a two-run `B_g` schedule.
pub const MINI: FhewParams = FhewParams {
    name: "MINI",
    source: "hekate fuzzing set (insecure)",
    claimed_security: "none",
    n: 8,
    q: 32,
    big_n: 32,
    log_big_q: 27,
    log_bg: 7,
    bg_schedule: &[(7, 5), (9, 3)],
    b_r: 4,
    log_q_ks: 8,
    log_b_ks: 4,
    sigma: 3.19,
    lwe_secret: params::TOY.lwe_secret,
};

/// [`MINI`] with `q = 2N` (Alg. 3, 4).
pub const MINI_2N: FhewParams = FhewParams {
    name: "MINI_2N",
    q: 64,
    ..MINI
};

/// A threshold set on [`MINI_2N`] with a 50-bit `Q` and no schedule.
pub const THRESHOLD_MINI: ThresholdParams = ThresholdParams {
    name: "THRESHOLD_MINI",
    fhew: FhewParams {
        name: "THRESHOLD_MINI",
        log_big_q: 50,
        bg_schedule: &[],
        log_q_ks: 16,
        log_b_ks: 8,
        ..MINI_2N
    },
    sigma_smenc: 3.19 * 64.0,
    sigma_flood: 1.5,
};

/// An evaluator for `key` with the default products, opting out of the gate-failure
/// bound.
fn evaluator(ctx: &Arc<FhewContext>, key: Arc<BootstrapKey>) -> Result<FhewEvaluator> {
    let (r, d) = FhewEvaluator::default_products(ctx, &key);
    FhewEvaluator::with_failure_bound(ctx.clone(), key, r, d, 1.0)
}

fn rng() -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(0xF4E7)
}

/// One FHEW set's context, secret key, a bootstrapping key and its evaluator (behind a
/// `RefCell`: gates take `&mut`; the fuzzer is single-threaded).
pub struct Fhew {
    pub ctx: Arc<FhewContext>,
    pub sk: FhewSecretKey,
    pub key: Arc<BootstrapKey>,
    ev: RefCell<FhewEvaluator>,
}

impl Fhew {
    pub fn new(p: &FhewParams, config: MethodConfig, seed: u64) -> Rc<Self> {
        let ctx = FhewContext::with_security(p, NotChecked).expect("test set");
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let sk = ctx.generate_secret_key_with(&mut rng).expect("keys");
        let key = Arc::new(
            ctx.generate_bootstrap_key_with(&sk, config, &mut rng)
                .expect("keys"),
        );
        let ev = evaluator(&ctx, key.clone()).expect("evaluator");
        Rc::new(Fhew {
            ctx,
            sk,
            key,
            ev: RefCell::new(ev),
        })
    }

    pub fn encrypt(&self, m: bool) -> LweCiphertext {
        self.ctx
            .encrypt_bit_with(m, &self.sk, &mut rng())
            .expect("encrypt")
    }

    /// A NAND of `ct` with an encryption of 1 (so `¬ct`), decrypted.
    fn gate(&self, ct: &LweCiphertext) -> Result<bool> {
        let one = self.encrypt(true);
        let out = self.ev.borrow_mut().gate(Gate::Nand, ct, &one)?;
        self.ctx.decrypt_bit(&out, &self.sk)
    }

    /// Gates with `key` instead of the fixture's key.
    fn gate_with(&self, key: BootstrapKey) -> Result<bool> {
        let mut ev = evaluator(&self.ctx, Arc::new(key))?;
        let (a, b) = (self.encrypt(true), self.encrypt(false));
        let out = ev.gate(Gate::Nand, &a, &b)?;
        self.ctx.decrypt_bit(&out, &self.sk)
    }
}

pub(super) fn targets() -> Vec<Target> {
    let toy = Fhew::new(&params::TOY, MethodConfig::new(Method::Ginx), 3201);
    let mini = Fhew::new(&MINI, MethodConfig::new(Method::Ginx), 3202);
    let mini2n = Fhew::new(&MINI_2N, MethodConfig::new(Method::LmkcdeyAux), 3203);
    let mut v = vec![parameters(), contexts()];
    v.extend(lwe_targets(&toy));
    v.push(blind_rotation_keys(
        &mini,
        "blind_rotation_key_mini",
        &[
            ("ginx", MethodConfig::new(Method::Ginx)),
            (
                "ginx_altmult",
                MethodConfig::new(Method::Ginx).with_alt_mult(true),
            ),
            ("ap", MethodConfig::new(Method::Ap)),
            ("alg5", MethodConfig::new(Method::LmkcdeyAllEven)),
            (
                "alg5_powers_of_five",
                MethodConfig::new(Method::LmkcdeyAllEven).with_auto_keys(AutoKeySet::PowersOfFive),
            ),
        ],
    ));
    v.push(blind_rotation_keys(
        &mini2n,
        "blind_rotation_key_mini2n",
        &[
            ("alg4", MethodConfig::new(Method::LmkcdeyAux)),
            (
                "alg4_altmult",
                MethodConfig::new(Method::LmkcdeyAux).with_alt_mult(true),
            ),
            (
                "alg3_generators",
                MethodConfig::new(Method::LmkcdeyBase).with_auto_keys(AutoKeySet::Generators),
            ),
        ],
    ));
    v.push(bootstrap_keys(&toy));
    v.extend(threshold_targets());
    v
}

/// Every preset and the test sets.
fn parameter_seeds() -> Vec<(String, Vec<u8>)> {
    params::PRESETS
        .iter()
        .copied()
        .chain([&params::TOY, &MINI, &MINI_2N, &params::TOY_THRESHOLD])
        .map(|p| (p.name.to_lowercase(), bytes(p, &())))
        .collect()
}

fn parameters() -> Target {
    target::<FhewParams, _>(
        "fhew_parameters",
        Arc::new(()),
        parameter_seeds(),
        vec![],
        |p| {
            let ctx = FhewContext::with_security(p, NotChecked)?;
            let sk = ctx.generate_secret_key_with(&mut rng())?;
            let ct = ctx.encrypt_bit_with(true, &sk, &mut rng())?;
            ctx.decrypt_bit(&ct, &sk)?;
            Ok(())
        },
    )
}

/// `fhew_context_from_bytes_with`: parameters and the context they build (its tables are
/// charged to the reader's limit too).
fn contexts() -> Target {
    Target {
        name: "fhew_context",
        seeds: parameter_seeds(),
        variants: vec![],
        decode: Box::new(|bytes, policy| fhew_context_from_bytes_with(bytes, policy).map(drop)),
        run: Box::new(|bytes, policy, use_it| {
            let ctx = fhew_context_from_bytes_with(bytes, policy)?;
            if use_it {
                let sk = ctx.generate_secret_key_with(&mut rng())?;
                let ct = ctx.encrypt_bit_with(false, &sk, &mut rng())?;
                ctx.decrypt_bit(&ct, &sk)?;
            }
            Ok(fhew_context_to_bytes(&ctx))
        }),
    }
}

fn lwe_targets(f: &Rc<Fhew>) -> Vec<Target> {
    let ctx = f.ctx.clone();
    let cts = vec![
        ("bit0".to_string(), bytes(&f.encrypt(false), &ctx)),
        ("bit1".to_string(), bytes(&f.encrypt(true), &ctx)),
    ];
    let g = f.clone();
    let ct =
        target::<LweCiphertext, _>("lwe_ciphertext_toy", ctx.clone(), cts, vec![], move |ct| {
            g.ctx.decrypt_bit(ct, &g.sk)?;
            g.gate(ct)?;
            Ok(())
        });
    let g = f.clone();
    let lwe_sk = target::<LweSecretKey, _>(
        "lwe_secret_key_toy",
        ctx.clone(),
        vec![("toy".into(), bytes(&f.sk.lwe, &ctx))],
        vec![],
        move |s| {
            let q = g.ctx.params().q;
            let ct = s.encrypt(q / 4, q, g.ctx.noise(), &mut rng())?;
            g.gate(&ct)?;
            Ok(())
        },
    );
    let g = f.clone();
    let fhew_sk = target::<FhewSecretKey, _>(
        "fhew_secret_key_toy",
        ctx.clone(),
        vec![("toy".into(), bytes(&f.sk, &ctx))],
        vec![],
        move |sk| {
            let ct = g.ctx.encrypt_bit_with(true, sk, &mut rng())?;
            g.ctx.decrypt_bit(&ct, sk)?;
            let key = g.ctx.generate_bootstrap_key_with(
                sk,
                MethodConfig::new(Method::Ginx),
                &mut rng(),
            )?;
            let mut ev = evaluator(&g.ctx, Arc::new(key))?;
            let out = ev.gate(Gate::And, &ct, &ct)?;
            g.ctx.decrypt_bit(&out, sk)?;
            Ok(())
        },
    );
    let g = f.clone();
    let ksk = target::<LweKeySwitchKey, _>(
        "lwe_key_switching_key_toy",
        ctx.clone(),
        vec![("toy".into(), bytes(&f.key.ksk, &ctx))],
        vec![],
        move |k| {
            let mut key = (*g.key).clone();
            key.ksk = k.clone();
            g.gate_with(key)?;
            Ok(())
        },
    );
    vec![ct, lwe_sk, fhew_sk, ksk]
}

fn blind_rotation_keys(
    f: &Rc<Fhew>,
    name: &'static str,
    configs: &[(&str, MethodConfig)],
) -> Target {
    let ctx = f.ctx.clone();
    let mut rng = ChaCha20Rng::seed_from_u64(37);
    let seeds = configs
        .iter()
        .map(|(n, c)| {
            let k = BlindRotationKey::generate(
                ctx.ring(),
                ctx.params(),
                *c,
                &f.sk.lwe,
                &f.sk.rlwe,
                ctx.noise(),
                &mut rng,
            )
            .expect("keys");
            (n.to_string(), bytes(&k, &ctx))
        })
        .collect();
    let g = f.clone();
    target::<BlindRotationKey, _>(name, ctx.clone(), seeds, vec![], move |k| {
        let mut key = (*g.key).clone();
        key.brk = k.clone();
        g.gate_with(key)?;
        Ok(())
    })
}

fn bootstrap_keys(f: &Rc<Fhew>) -> Target {
    let ctx = f.ctx.clone();
    let g = f.clone();
    target::<BootstrapKey, _>(
        "bootstrap_key_toy",
        ctx.clone(),
        vec![("ginx".into(), bytes(&*f.key, &ctx))],
        vec![],
        move |k| {
            g.gate_with(k.clone())?;
            Ok(())
        },
    )
}

/// A two-party run of the threshold protocol with every message kept.
pub struct Threshold {
    pub ctx: Arc<ThresholdContext>,
    pub crs: CommonRandomString,
    pub shares: Vec<SecretShare>,
    pub pk_shares: Vec<PublicKeyShare>,
    pub pk: ThresholdPublicKey,
    pub eval_shares: Vec<EvalKeyShare>,
    pub key: Arc<BootstrapKey>,
    /// An encryption of 1 under the joint key, and the parties' partial decryptions.
    pub ct: LweCiphertext,
    pub partials: Vec<PartialDecryption>,
}

impl Threshold {
    pub fn new() -> Arc<Self> {
        let ctx =
            Arc::new(ThresholdContext::with_security(&THRESHOLD_MINI, 2, NotChecked).unwrap());
        let mut rng = ChaCha20Rng::seed_from_u64(4242);
        let crs = CommonRandomString::new([42; 32]);
        let shares: Vec<SecretShare> = (0..2)
            .map(|j| SecretShare::generate(&ctx, j, &mut rng).unwrap())
            .collect();
        let pk_shares: Vec<PublicKeyShare> = shares
            .iter()
            .map(|s| s.public_key_share(&ctx, &crs, &mut rng).unwrap())
            .collect();
        let pk = ThresholdPublicKey::combine(&ctx, &crs, &pk_shares).unwrap();
        let cfg = MethodConfig::new(Method::LmkcdeyAux).with_auto_keys(AutoKeySet::Generators);
        let eval_shares: Vec<EvalKeyShare> = shares
            .iter()
            .map(|s| s.eval_key_share(&ctx, &crs, &pk, cfg, &mut rng).unwrap())
            .collect();
        let mut c = KeyCombiner::new(&ctx);
        for s in &eval_shares {
            c.add(s).unwrap();
        }
        let key = Arc::new(c.finish().unwrap());
        let ct = pk.encrypt_bit(&ctx, &key, true, &mut rng).unwrap();
        let partials = shares
            .iter()
            .map(|s| s.partial_decrypt(&ctx, &ct, &mut rng).unwrap())
            .collect();
        Arc::new(Threshold {
            ctx,
            crs,
            shares,
            pk_shares,
            pk,
            eval_shares,
            key,
            ct,
            partials,
        })
    }

    /// Decrypts `ct` jointly.
    fn decrypt(&self, ct: &LweCiphertext) -> Result<bool> {
        let partials = self
            .shares
            .iter()
            .map(|s| s.partial_decrypt(&self.ctx, ct, &mut rng()))
            .collect::<Result<Vec<_>>>()?;
        combine_bit(&self.ctx, ct, &partials)
    }

    /// A NAND under `key` and `pk`, decrypted jointly.
    fn gate(&self, pk: &ThresholdPublicKey, key: Arc<BootstrapKey>) -> Result<bool> {
        let mut ev = evaluator(self.ctx.fhew(), key.clone())?;
        let a = pk.encrypt_bit(&self.ctx, &key, true, &mut rng())?;
        let out = ev.gate(Gate::Nand, &a, &a)?;
        self.decrypt(&out)
    }

    /// The messages of every party but `party`, with `m` in its place.
    fn others<T: Clone>(all: &[T], m: &T, party: usize) -> Vec<T> {
        let mut v = all.to_vec();
        let j = party.min(v.len() - 1);
        v[j] = m.clone();
        v
    }
}

fn threshold_targets() -> Vec<Target> {
    let t = Threshold::new();
    let ctx = t.ctx.clone();
    let g = t.clone();
    let pk_share = target::<PublicKeyShare, _>(
        "threshold_public_key_share",
        ctx.clone(),
        (0..2)
            .map(|j| (format!("party{j}"), bytes(&t.pk_shares[j], &ctx)))
            .collect(),
        vec![],
        move |s| {
            let all = Threshold::others(&g.pk_shares, s, s.party);
            let pk = ThresholdPublicKey::combine(&g.ctx, &g.crs, &all)?;
            g.gate(&pk, g.key.clone())?;
            Ok(())
        },
    );
    let g = t.clone();
    let pk = target::<ThresholdPublicKey, _>(
        "threshold_public_key",
        ctx.clone(),
        vec![("joint".into(), bytes(&t.pk, &ctx))],
        vec![],
        move |pk| {
            g.gate(pk, g.key.clone())?;
            Ok(())
        },
    );
    let g = t.clone();
    let eval = target::<EvalKeyShare, _>(
        "threshold_eval_key_share",
        ctx.clone(),
        (0..2)
            .map(|j| (format!("party{j}"), bytes(&t.eval_shares[j], &ctx)))
            .collect(),
        vec![],
        move |s| {
            let mut c = KeyCombiner::new(&g.ctx);
            for x in Threshold::others(&g.eval_shares, s, s.party) {
                c.add(&x)?;
            }
            let key = Arc::new(c.finish()?);
            g.gate(&g.pk, key)?;
            Ok(())
        },
    );
    let g = t.clone();
    let partial = target::<PartialDecryption, _>(
        "threshold_partial_decryption",
        ctx.clone(),
        (0..2)
            .map(|j| (format!("party{j}"), bytes(&t.partials[j], &ctx)))
            .collect(),
        vec![],
        move |p| {
            let all = Threshold::others(&g.partials, p, p.party);
            combine_bit(&g.ctx, &g.ct, &all)?;
            Ok(())
        },
    );
    vec![pk_share, pk, eval, partial]
}
