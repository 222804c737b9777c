//! The MLWE-CKKS readers: parameters (a few shapes), and ciphertexts and keys under an
//! `n = 2^7`, rank-2 context with DPad-HE (`r̂ = 3`), keys from fixed seeds.

use super::{bytes, target, Target};
use hekate::mlwe::{
    Ciphertext, Evaluator, HoistedRotationKeys, MlweContext, MlweParameters, MlwePlaintext,
    PublicKey, RankReductionKey, RelinMethod, RelinearizationKey, RotationKey, SecretKey,
};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::rlwe::SecretDistribution;
use hekate::serialize::{ObjectTag, Serialize, Writer};
use hekate::{Error, Result};
use num_complex::Complex64;
use std::sync::Arc;

/// The seed of the fixture's keys (the corpus secret key is also in the corpus).
pub const KEY_SEED: u64 = 0x0200_5EED;

/// The message every corpus ciphertext holds: `(i mod 8) / 8 - i (i mod 5) / 8` in slot
/// `i`.
pub fn message(slots: usize) -> Vec<Complex64> {
    (0..slots)
        .map(|i| Complex64::new((i % 8) as f64 / 8.0, -((i % 5) as f64) / 8.0))
        .collect()
}

/// The fixture parameters: `n = 2^7`, rank 2, `Q` of 60 + 40 + 40 bits, one 60-bit `P`,
/// DPad-HE with `r̂ = 3` and `P̂` of 60 + 55 bits, scale `2^40`.
pub fn parameters() -> MlweParameters {
    MlweParameters::new(7, 2)
        .log_q(&[60, 40, 40])
        .log_p(&[60])
        .log_scale(40)
        .dpad(3, &[60, 55], None)
        .security(SecurityLevel::NotChecked)
}

/// The fixture context with its keys and an evaluator holding all of them.
pub struct Fixture {
    pub ctx: Arc<MlweContext>,
    pub sk: SecretKey,
    pub pk: PublicKey,
    pub modhe: RelinearizationKey,
    pub dpad: RelinearizationKey,
    /// ModHE relinearization at rank 1, level 1 (after rank reduction).
    pub modhe_rank1: RelinearizationKey,
    pub reduce: RankReductionKey,
    pub rotations: Vec<RotationKey>,
    pub hoisted: HoistedRotationKeys,
    pub eval: Evaluator,
}

impl Fixture {
    /// The fixture; its keys from [`KEY_SEED`].
    pub fn new() -> Arc<Self> {
        let ctx = parameters().build().expect("fixture parameters");
        let mut rng = ChaCha20Rng::seed_from_u64(KEY_SEED);
        let sk = ctx.generate_secret_key_with(&mut rng).expect("sk");
        let pk = ctx.generate_public_key_with(&sk, &mut rng).expect("pk");
        let modhe = ctx
            .generate_relinearization_key_with(&sk, RelinMethod::ModHe, &mut rng)
            .expect("ModHE key");
        let dpad = ctx
            .generate_relinearization_key_with(&sk, RelinMethod::DPad, &mut rng)
            .expect("DPad-HE key");
        let modhe_rank1 = ctx
            .generate_relinearization_key_at_with(&sk, RelinMethod::ModHe, 1, 1, &mut rng)
            .expect("rank-1 key");
        let reduce = ctx
            .generate_rank_reduction_key_with(&sk, 2, 1, 1, &mut rng)
            .expect("rank-reduction key");
        let rotations = ctx
            .generate_rotation_keys_with(&sk, &[1, -3], &mut rng)
            .expect("rotation keys");
        let hoisted = ctx
            .generate_hoisted_rotation_keys_with(&sk, &[1, 5], &mut rng)
            .expect("hoisted keys");
        let eval = Evaluator::new(ctx.clone(), Some(dpad.clone()))
            .with_relinearization_key(modhe_rank1.clone())
            .with_rank_reduction_key(reduce.clone())
            .with_rotation_keys(rotations.clone())
            .with_hoisted_rotation_keys(hoisted.clone());
        Arc::new(Fixture {
            ctx,
            sk,
            pk,
            modhe,
            dpad,
            modhe_rank1,
            reduce,
            rotations,
            hoisted,
            eval,
        })
    }

    fn rng(&self) -> ChaCha20Rng {
        ChaCha20Rng::seed_from_u64(0x0200_0F22)
    }

    /// A fresh public-key encryption of [`message`] at the top level.
    pub fn ct(&self) -> Result<Ciphertext> {
        let pt = self.ctx.encode(&message(self.ctx.max_slots()))?;
        self.ctx.encrypt_with(&pt, &self.pk, &mut self.rng())
    }

    /// Decrypts `ct`, adds it to itself, and, by its rank and shape: relinearizes,
    /// multiplies, rescales, reduces the rank, rotates (plain and rank-hoisted) or lowers
    /// it with this fixture's keys.
    fn use_ct(&self, ct: &Ciphertext) -> Result<()> {
        let (ctx, ev) = (&self.ctx, &self.eval);
        ctx.decrypt_decode(ct, &self.sk)?;
        ev.add(ct, ct)?;
        let lin = if ct.is_quadratic() {
            ev.relinearize(ct)?
        } else {
            ct.clone()
        };
        if lin.rank() > ctx.rank() {
            ctx.decrypt_decode(&ev.lower_rank(&lin)?, &self.sk)?;
            return Ok(());
        }
        let sq = ev.mul(&lin, &lin)?;
        if sq.level() > 0 {
            ctx.decrypt_decode(&ev.rescale(&sq)?, &self.sk)?;
        }
        if lin.rank() == ctx.rank() {
            ctx.decrypt_decode(&ev.rotate(&lin, 1)?, &self.sk)?;
            ctx.decrypt_decode(&ev.rotate_chain_hoisted(&lin, &[1, 5])?, &self.sk)?;
            if lin.level() <= self.reduce.max_level() {
                ctx.decrypt_decode(&ev.rank_reduce(&lin, 1)?, &self.sk)?;
            }
        }
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
    let f = Fixture::new();
    vec![
        parameter_target(),
        ciphertexts(&f),
        secret_keys(&f),
        public_keys(&f),
        relinearization_keys(&f),
        rank_reduction_keys(&f),
        rotation_keys(&f),
        hoisted_rotation_keys(&f),
        plaintexts(&f),
    ]
}

/// Plaintexts at the top level and at level 0; variants with the polynomial in coefficient
/// form, and slot counts that are zero, not a power of two, or above `n/2`.
fn plaintexts(f: &Arc<Fixture>) -> Target {
    let ctx = f.ctx.clone();
    let z = message(ctx.max_slots());
    let top = ctx.encode(&z).expect("encode");
    let low = ctx.encode_at(&z, 0, ctx.default_scale()).expect("encode");
    let seeds = vec![
        ("top".to_string(), bytes(&MlwePlaintext(top.clone()), &ctx)),
        ("level0".to_string(), bytes(&MlwePlaintext(low), &ctx)),
    ];
    let (ring, fp) = (ctx.ring(), ctx.fingerprint());
    let valid = bytes(&MlwePlaintext(top.clone()), &ctx);
    let body = &valid[hekate::serialize::HEADER_LEN..];
    let scale_len = {
        let num = 2 + u16::from_le_bytes([body[0], body[1]]) as usize;
        num + 2 + u16::from_le_bytes([body[num], body[num + 1]]) as usize
    };
    let scale_bytes = body[..scale_len].to_vec();
    let mut variants = Vec::new();
    let mut coeff = top.poly().clone();
    coeff.intt(ring);
    for slots in [0u32, 3, ctx.max_slots() as u32 * 2] {
        variants.push(with_header(MlwePlaintext::TAG, fp, |w| {
            w.write_bytes(&scale_bytes);
            w.write_u32(slots);
            top.poly().write_body(w, ring);
        }));
    }
    variants.push(with_header(MlwePlaintext::TAG, fp, |w| {
        w.write_bytes(&scale_bytes);
        w.write_u32(ctx.max_slots() as u32);
        coeff.write_body(w, ring);
    }));
    let g = f.clone();
    target::<MlwePlaintext, _>("mlwe_plaintext", ctx.clone(), seeds, variants, move |pt| {
        g.ctx.decode(&pt.0)?;
        let ct = g.ctx.encrypt_symmetric_with(&pt.0, &g.sk, &mut g.rng())?;
        g.use_ct(&ct)
    })
}

/// Parameter sets: the fixture's, one without DPad-HE (rank 3, a Gaussian secret, a
/// scale that is not a power of two) and one of rank 1 with a Hamming-weight secret.
pub fn parameter_sets() -> Vec<(&'static str, Arc<MlweContext>)> {
    vec![
        ("r2_dpad", parameters()),
        (
            "r3_gaussian",
            MlweParameters::new(6, 3)
                .log_q(&[55, 40])
                .log_p(&[56])
                .scale(1.5 * 2f64.powi(35))
                .secret(SecretDistribution::Gaussian)
                .security(SecurityLevel::NotChecked),
        ),
        (
            "r1_hamming",
            MlweParameters::new(8, 1)
                .log_q(&[50, 30])
                .log_p(&[50])
                .dnum(2)
                .secret(SecretDistribution::HammingWeight(32))
                .security(SecurityLevel::NotChecked),
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
    target::<MlweContext, _>("mlwe_parameters", Arc::new(()), seeds, vec![], |ctx| {
        let mut rng = ChaCha20Rng::seed_from_u64(0x0200);
        let sk = ctx.generate_secret_key_with(&mut rng)?;
        let z = message(ctx.max_slots());
        let ct = ctx.encrypt_symmetric_with(&ctx.encode(&z)?, &sk, &mut rng)?;
        let got = ctx.decrypt_decode(&ct, &sk)?;
        if got.iter().zip(&z).any(|(a, b)| (a - b).norm() > 1e-3) {
            return Err(Error::InvalidParameters("wrong decryption".into()));
        }
        Ok(())
    })
}

fn ciphertexts(f: &Arc<Fixture>) -> Target {
    let (ctx, ev) = (f.ctx.clone(), &f.eval);
    let top = f.ct().expect("encrypt");
    let pt = ctx.encode(&message(ctx.max_slots())).expect("encode");
    let sym = ctx
        .encrypt_symmetric_with(&pt, &f.sk, &mut f.rng())
        .expect("encrypt");
    let quadratic = ev.tensor(&top, &sym).expect("tensor");
    let product = ev
        .rescale(&ev.mul(&top, &sym).expect("mul"))
        .expect("rescale");
    let reduced = ev.rank_reduce(&product, 1).expect("rank reduction");
    let lifted = ev.lift_rank(&top).expect("lift");
    let seeds = vec![
        ("fresh_pk".to_string(), bytes(&top, &ctx)),
        ("fresh_sk".to_string(), bytes(&sym, &ctx)),
        ("quadratic".to_string(), bytes(&quadratic, &ctx)),
        ("product".to_string(), bytes(&product, &ctx)),
        ("reduced_rank1".to_string(), bytes(&reduced, &ctx)),
        ("lifted".to_string(), bytes(&lifted, &ctx)),
    ];
    // Structure-aware variants: ranks and quadratic flags against part counts, parts of
    // different levels, and ranks beyond the context's.
    let ring = ctx.ring();
    let fp = ctx.fingerprint();
    let scale_bytes = {
        // rank, flag, then the scale and slots of a valid ciphertext.
        let b = bytes(&top, &ctx);
        let body = &b[hekate::serialize::HEADER_LEN + 2..];
        let scale_len = 2 + u16::from_le_bytes([body[0], body[1]]) as usize;
        let den = 2 + u16::from_le_bytes([body[scale_len], body[scale_len + 1]]) as usize;
        body[..scale_len + den + 4].to_vec()
    };
    let mut variants = Vec::new();
    for (rank, flag) in [(0u8, 0u8), (2, 1), (3, 0), (4, 0), (1, 2), (255, 0)] {
        for (q0, q1) in [(3, 2), (3, 3), (1, 1)] {
            variants.push(with_header(Ciphertext::TAG, fp, |w| {
                w.write_u8(rank);
                w.write_u8(flag);
                w.write_bytes(&scale_bytes);
                top.parts()[0].restricted(q0, 0).write_body(w, ring);
                for p in &top.parts()[1..] {
                    p.restricted(q1, 0).write_body(w, ring);
                }
            }));
        }
    }
    let g = f.clone();
    target::<Ciphertext, _>("mlwe_ciphertext", ctx.clone(), seeds, variants, move |ct| {
        g.use_ct(ct)
    })
}

fn secret_keys(f: &Arc<Fixture>) -> Target {
    let ctx = f.ctx.clone();
    let seeds = vec![("sk".to_string(), bytes(&f.sk, &ctx))];
    let g = f.clone();
    target::<SecretKey, _>("mlwe_secret_key", ctx.clone(), seeds, vec![], move |sk| {
        let ct = g.ct()?;
        g.ctx.decrypt_decode(&ct, sk)?;
        let mut rng = g.rng();
        let rlk = g
            .ctx
            .generate_relinearization_key_with(sk, RelinMethod::DPad, &mut rng)?;
        let ev = Evaluator::new(g.ctx.clone(), Some(rlk));
        g.ctx.decrypt_decode(&ev.mul(&ct, &ct)?, sk)?;
        Ok(())
    })
}

fn public_keys(f: &Arc<Fixture>) -> Target {
    let ctx = f.ctx.clone();
    let seeds = vec![("pk".to_string(), bytes(&f.pk, &ctx))];
    let g = f.clone();
    target::<PublicKey, _>("mlwe_public_key", ctx.clone(), seeds, vec![], move |pk| {
        let pt = g.ctx.encode(&message(g.ctx.max_slots()))?;
        let ct = g.ctx.encrypt_with(&pt, pk, &mut g.rng())?;
        g.use_ct(&ct)
    })
}

fn relinearization_keys(f: &Arc<Fixture>) -> Target {
    let ctx = f.ctx.clone();
    let seeds = vec![
        ("modhe".to_string(), bytes(&f.modhe, &ctx)),
        ("dpad".to_string(), bytes(&f.dpad, &ctx)),
        (
            "modhe_rank1_level1".to_string(),
            bytes(&f.modhe_rank1, &ctx),
        ),
    ];
    let g = f.clone();
    target::<RelinearizationKey, _>(
        "mlwe_relinearization_key",
        ctx.clone(),
        seeds,
        vec![],
        move |k| {
            let ev = Evaluator::new(g.ctx.clone(), Some(k.clone()))
                .with_rank_reduction_key(g.reduce.clone());
            let mut ct = g.ct()?;
            if k.rank() < g.ctx.rank() {
                ct = ev.rank_reduce(&ev.drop_level(&ct, 1)?, k.rank())?;
            }
            let top = k.q_limbs() - 1;
            if ct.level() > top {
                ct = ev.drop_level(&ct, ct.level() - top)?;
            }
            g.ctx.decrypt_decode(&ev.mul(&ct, &ct)?, &g.sk)?;
            Ok(())
        },
    )
}

fn rank_reduction_keys(f: &Arc<Fixture>) -> Target {
    let ctx = f.ctx.clone();
    let seeds = vec![("r2_to_r1".to_string(), bytes(&f.reduce, &ctx))];
    let g = f.clone();
    target::<RankReductionKey, _>(
        "mlwe_rank_reduction_key",
        ctx.clone(),
        seeds,
        vec![],
        move |k| {
            let ev = Evaluator::new(g.ctx.clone(), None).with_rank_reduction_key(k.clone());
            let ct = g.ct()?;
            let ct = ev.drop_level(&ct, ct.level() - k.max_level().min(ct.level()))?;
            g.ctx.decrypt_decode(&ev.rank_reduce(&ct, k.to)?, &g.sk)?;
            Ok(())
        },
    )
}

fn rotation_keys(f: &Arc<Fixture>) -> Target {
    let ctx = f.ctx.clone();
    let seeds = f
        .rotations
        .iter()
        .map(|k| (format!("galois_{}", k.galois), bytes(k, &ctx)))
        .collect();
    let g = f.clone();
    target::<RotationKey, _>("mlwe_rotation_key", ctx.clone(), seeds, vec![], move |k| {
        let ev = Evaluator::new(g.ctx.clone(), None).with_rotation_keys(vec![k.clone()]);
        let ct = g.ct()?;
        let steps = (0..g.ctx.max_slots() as i64)
            .find(|&s| g.ctx.galois_element(s) == k.galois)
            .unwrap_or(1);
        g.ctx.decrypt_decode(&ev.rotate(&ct, steps)?, &g.sk)?;
        Ok(())
    })
}

fn hoisted_rotation_keys(f: &Arc<Fixture>) -> Target {
    let ctx = f.ctx.clone();
    let seeds = vec![("steps_1_5".to_string(), bytes(&f.hoisted, &ctx))];
    let g = f.clone();
    target::<HoistedRotationKeys, _>(
        "mlwe_hoisted_rotation_keys",
        ctx.clone(),
        seeds,
        vec![],
        move |k| {
            let ev = Evaluator::new(g.ctx.clone(), None).with_hoisted_rotation_keys(k.clone());
            let ct = g.ct()?;
            g.ctx
                .decrypt_decode(&ev.rotate_chain_hoisted(&ct, &[1, 5])?, &g.sk)?;
            Ok(())
        },
    )
}
