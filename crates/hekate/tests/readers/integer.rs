//! The BFV/BGV readers: parameters (a few shapes), and plaintexts, ciphertexts and
//! evaluation keys under `N = 2^10` BFV and BGV contexts (`t = 65537`, batching), keys
//! from fixed seeds.

use super::{bytes, target, target_with, Target};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::rlwe::evaluation_keys::{GaloisKeys, RelinearizationKey};
use hekate::rlwe::integer::{
    Ciphertext, Evaluator, IntegerContext, IntegerParameters, ModSwitching, MulVariant, Plaintext,
    Scheme,
};
use hekate::rlwe::keyswitch::{KeyStorage, KeySwitchMethod, KlssConfig};
use hekate::rlwe::{PublicKey, SecretDistribution, SecretKey};
use hekate::serialize::{ObjectTag, Serialize, Writer};
use hekate::{Error, Result};
use std::sync::Arc;

/// The plaintext modulus of the fixtures.
pub const T: u64 = 65537;

/// The seed of the fixtures' keys (the corpus secret key is regenerated from it).
pub const KEY_SEED: u64 = 0x1_0010;

/// The message every corpus ciphertext and plaintext holds: `(7 i + 3) mod t` in slot
/// `i`.
pub fn message(n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| (7 * i + 3) % T).collect()
}

/// The fixture parameters of `scheme` at `N = 2^log_n`.
pub fn parameters(scheme: Scheme, log_n: u32) -> IntegerParameters {
    IntegerParameters::new(scheme, log_n)
        .plaintext_modulus(T)
        .log_q(&[50, 40, 40])
        .log_p(&[55, 55])
        .dnum(2)
        .security(SecurityLevel::NotChecked)
}

/// A context with its keys and an evaluator.
pub struct Fixture {
    pub ctx: Arc<IntegerContext>,
    pub sk: SecretKey,
    pub pk: PublicKey,
    pub rlk: RelinearizationKey,
    pub gks: GaloisKeys,
    pub eval: Evaluator,
    name: &'static str,
}

impl Fixture {
    /// The fixture of `scheme` at `N = 2^10`; its keys from [`KEY_SEED`].
    pub fn new(scheme: Scheme, name: &'static str) -> Arc<Self> {
        let ctx = parameters(scheme, 10).build().expect("fixture parameters");
        let mut rng = ChaCha20Rng::seed_from_u64(KEY_SEED);
        let sk = ctx.generate_secret_key_with(&mut rng);
        let pk = ctx.generate_public_key_with(&sk, &mut rng);
        let rlk = ctx.generate_relinearization_key_with(&sk, &mut rng);
        let gks = ctx.generate_galois_keys_with(&sk, &[1, -2], true, &mut rng);
        let eval = Evaluator::new(ctx.clone(), Some(rlk.clone()), gks.clone());
        Arc::new(Fixture {
            ctx,
            sk,
            pk,
            rlk,
            gks,
            eval,
            name,
        })
    }

    fn rng(&self) -> ChaCha20Rng {
        ChaCha20Rng::seed_from_u64(0x1_0F22)
    }

    fn pt(&self) -> Plaintext {
        self.ctx.encode(&message(self.ctx.n())).expect("encode")
    }

    /// A fresh public-key encryption of [`message`].
    fn ct(&self) -> Result<Ciphertext> {
        self.ctx.encrypt_with(&self.pt(), &self.pk, &mut self.rng())
    }

    /// Decrypts, adds, multiplies (relinearizing), rotates, swaps rows and (BGV)
    /// switches `ct` down with this fixture's keys.
    fn use_ct(&self, ct: &Ciphertext) -> Result<()> {
        let (ctx, ev) = (&self.ctx, &self.eval);
        ctx.decrypt_decode(ct, &self.sk)?;
        let lin = if ct.degree() == 2 {
            ev.relinearize(ct)?
        } else {
            ev.add(ct, ct)?
        };
        let sq = ev.mul(&lin, &lin)?;
        ctx.decrypt_decode(&sq, &self.sk)?;
        if ctx.scheme() == Scheme::Bgv && sq.level() > 0 {
            ctx.decrypt_decode(&ev.mod_switch(&sq)?, &self.sk)?;
        }
        ctx.decrypt_decode(&ev.rotate_rows(&lin, 1)?, &self.sk)?;
        ctx.decrypt_decode(&ev.rotate_columns(&lin)?, &self.sk)?;
        Ok(())
    }
}

/// `header(tag, fingerprint)` followed by `body`.
fn with_header(tag: ObjectTag, fingerprint: u64, body: impl FnOnce(&mut Writer)) -> Vec<u8> {
    let mut w = Writer::new();
    w.write_header(tag, fingerprint);
    body(&mut w);
    w.into_bytes()
}

pub(super) fn targets() -> Vec<Target> {
    let bfv = Fixture::new(Scheme::Bfv, "bfv10");
    let bgv = Fixture::new(Scheme::Bgv, "bgv10");
    vec![
        parameter_target(),
        plaintexts(&bgv),
        ciphertexts(&bfv),
        ciphertexts(&bgv),
        relinearization_keys(&bgv),
        galois_keys(&bgv),
    ]
}

/// Parameter sets: the fixtures' and other shapes (no batching, KLSS with compact
/// storage, Hamming and Gaussian secrets, manual switching, HPS products).
pub fn parameter_sets() -> Vec<(&'static str, Arc<IntegerContext>)> {
    vec![
        ("bfv10", parameters(Scheme::Bfv, 10)),
        ("bgv10", parameters(Scheme::Bgv, 10)),
        (
            "bgv11_t2_manual_hamming",
            parameters(Scheme::Bgv, 11)
                .plaintext_modulus(2)
                .mod_switching(ModSwitching::Manual)
                .secret(SecretDistribution::HammingWeight(64)),
        ),
        (
            "bfv11_klss_compact_hps_gaussian",
            parameters(Scheme::Bfv, 11)
                .key_switching(KeySwitchMethod::Klss(KlssConfig::klss(2)))
                .key_storage(KeyStorage::ExpandedWithOrdinary)
                .mul_variant(MulVariant::Hps)
                .secret(SecretDistribution::Gaussian),
        ),
    ]
    .into_iter()
    .map(|(n, p)| (n, p.build().expect("test parameters build")))
    .collect()
}

fn parameter_target() -> Target {
    let seeds = parameter_sets()
        .into_iter()
        .map(|(n, c)| (n.to_string(), bytes(&*c, &())))
        .collect();
    target::<IntegerContext, _>("bfv_bgv_parameters", Arc::new(()), seeds, vec![], |ctx| {
        let mut rng = ChaCha20Rng::seed_from_u64(256);
        let sk = ctx.generate_secret_key_with(&mut rng);
        let pt = ctx.encode_coefficients(&[1, 0, 1])?;
        let ct = ctx.encrypt_symmetric_with(&pt, &sk, &mut rng)?;
        if ctx.decrypt(&ct, &sk)? != pt {
            return Err(Error::InvalidParameters("wrong decryption".into()));
        }
        Ok(())
    })
}

fn plaintexts(f: &Arc<Fixture>) -> Target {
    let ctx = f.ctx.clone();
    let coeffs = ctx.encode_coefficients(&[1, 2, 3, T - 1]).expect("encode");
    let seeds = vec![
        ("slots".to_string(), bytes(&f.pt(), &ctx)),
        ("coefficients".to_string(), bytes(&coeffs, &ctx)),
    ];
    // Other degrees (the coefficient bytes of a valid plaintext after them).
    let fp = ctx.fingerprint();
    let body = bytes(&coeffs, &ctx)[hekate::serialize::HEADER_LEN + 4..].to_vec();
    let variants = [0u32, 1, 512, 2048, u32::MAX]
        .into_iter()
        .map(|n| {
            with_header(Plaintext::TAG, fp, |w| {
                w.write_u32(n);
                w.write_bytes(&body);
            })
        })
        .collect();
    let g = f.clone();
    target::<Plaintext, _>(
        "bfv_bgv_plaintext_bgv10",
        ctx.clone(),
        seeds,
        variants,
        move |pt| {
            let (ctx, ev) = (&g.ctx, &g.eval);
            ctx.decode(pt)?;
            let ct = ctx.encrypt_with(pt, &g.pk, &mut g.rng())?;
            let top = g.ct()?;
            ctx.decrypt_decode(&ev.add_plain(&top, pt)?, &g.sk)?;
            ctx.decrypt_decode(&ev.mul_plain(&top, pt)?, &g.sk)?;
            g.use_ct(&ct)
        },
    )
}

fn ciphertexts(f: &Arc<Fixture>) -> Target {
    let (ctx, ev) = (f.ctx.clone(), &f.eval);
    let top = f.ct().expect("encrypt");
    let seeded = ctx
        .encrypt_symmetric_with(&f.pt(), &f.sk, &mut f.rng())
        .expect("encrypt");
    let deg2 = ev.mul_no_relin(&top, &top).expect("mul");
    let product = ev.mul(&top, &seeded).expect("mul");
    let rotated = ev.rotate_rows(&product, 1).expect("rotate");
    let seeds = vec![
        ("fresh_pk".to_string(), bytes(&top, &ctx)),
        ("fresh_sk_seeded".to_string(), bytes(&seeded, &ctx)),
        ("degree2".to_string(), bytes(&deg2, &ctx)),
        ("product".to_string(), bytes(&product, &ctx)),
        ("rotated".to_string(), bytes(&rotated, &ctx)),
    ];
    // Structure-aware variants: degrees and storages against part counts and limbs,
    // factors and noise estimates at and beyond their bounds.
    let ring = ctx.ring();
    let fp = ctx.fingerprint();
    let mut variants = Vec::new();
    let noise = top.estimated_noise_log2();
    for (d, storage) in [(1u8, 0u8), (2, 0), (2, 1), (1, 1)] {
        for (q0, q1) in [(3, 2), (1, 3), (3, 3), (0, 0)] {
            variants.push(with_header(Ciphertext::TAG, fp, |w| {
                w.write_u8(d);
                w.write_u8(storage);
                w.write_u64(1);
                w.write_u64(noise.to_bits());
                if storage == 1 {
                    w.write_bytes(&[3; 32]);
                }
                top.parts()[0].restricted(q0, 0).write_body(w, ring);
                for _ in 0..d {
                    top.parts()[1].restricted(q1, 0).write_body(w, ring);
                }
            }));
        }
    }
    for (factor, noise) in [
        (0, noise),
        (T - 1, noise),
        (T, noise),
        (2, f64::NAN),
        (2, -0.5),
        (2, 65536.0),
        (2, 1e300),
    ] {
        variants.push(with_header(Ciphertext::TAG, fp, |w| {
            w.write_u8(1);
            w.write_u8(0);
            w.write_u64(factor);
            w.write_u64(noise.to_bits());
            for p in top.parts() {
                p.write_body(w, ring);
            }
        }));
    }
    let name = if f.name == "bfv10" {
        "bfv_bgv_ciphertext_bfv10"
    } else {
        "bfv_bgv_ciphertext_bgv10"
    };
    let g = f.clone();
    target::<Ciphertext, _>(name, ctx.clone(), seeds, variants, move |ct| g.use_ct(ct))
}

fn relinearization_keys(f: &Arc<Fixture>) -> Target {
    let ctx = f.ctx.clone();
    let seeds = vec![(
        f.name.to_string(),
        ctx.relinearization_key_to_bytes(&f.rlk).expect("writable"),
    )];
    let (c, g) = (ctx.clone(), f.clone());
    target_with(
        "bfv_bgv_relinearization_key_bgv10",
        seeds,
        vec![],
        move |b, p| ctx.relinearization_key_from_bytes_with(b, p),
        move |k| c.relinearization_key_to_bytes(k),
        move |k| {
            let ev = Evaluator::new(g.ctx.clone(), Some(k.clone()), GaloisKeys::new());
            let ct = g.ct()?;
            g.ctx.decrypt_decode(&ev.mul(&ct, &ct)?, &g.sk)?;
            Ok(())
        },
    )
}

fn galois_keys(f: &Arc<Fixture>) -> Target {
    let ctx = f.ctx.clone();
    let mut one = GaloisKeys::new();
    one.insert(f.gks.iter().next().expect("a key").clone());
    let seeds = vec![
        (
            format!("{}_all", f.name),
            ctx.galois_keys_to_bytes(&f.gks).expect("writable"),
        ),
        (
            format!("{}_one", f.name),
            ctx.galois_keys_to_bytes(&one).expect("writable"),
        ),
    ];
    let (c, g) = (ctx.clone(), f.clone());
    target_with(
        "bfv_bgv_galois_keys_bgv10",
        seeds,
        vec![],
        move |b, p| ctx.galois_keys_from_bytes_with(b, p),
        move |k| c.galois_keys_to_bytes(k),
        move |k| {
            let ev = Evaluator::new(g.ctx.clone(), None, k.clone());
            let ct = g.ct()?;
            for e in k.elements() {
                g.ctx.decrypt_decode(&ev.automorphism(&ct, e)?, &g.sk)?;
            }
            Ok(())
        },
    )
}
