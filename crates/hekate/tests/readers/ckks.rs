//! The ring-level and CKKS readers: N = 2^12 hybrid (ring objects, plaintexts,
//! ciphertexts), N = 2^10 hybrid and N = 2^11 KLSS (ciphertexts and evaluation keys).

use super::{bytes, target, Target};
use crate::common::{fixture_with, Fixture};
use hekate::ckks::bootstrap::EncapsulationKeys;
use hekate::ckks::{
    Ciphertext, CkksContext, CkksParameters, Evaluator, GaloisKeys, Plaintext, RelinearizationKey,
};
use hekate::params::SecurityLevel;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::SeedableRng;
use hekate::ring::{Form, Poly, RingContext};
use hekate::rlwe::keyswitch::{KeySwitchMethod, KlssConfig, LevelSet, SwitchingKey};
use hekate::rlwe::{HybridKey, HybridKeySwitcher, PublicKey, SecretKey};
use hekate::serialize::{ObjectTag, Serialize, Writer};
use hekate::{Error, Result};
use num_complex::Complex64;
use std::sync::Arc;

/// The message every corpus ciphertext and plaintext holds (`i / 8` in slot `i`, as many
/// slots as the object has, repeating).
pub fn message(slots: usize) -> Vec<Complex64> {
    (0..slots)
        .map(|i| Complex64::new((i % 8) as f64 / 8.0, -((i % 5) as f64) / 8.0))
        .collect()
}

/// A fixture and the ordinary (hybrid) form of its relinearization key.
struct Ckks {
    f: Fixture,
    name: &'static str,
}

impl Ckks {
    fn new(log_n: u32, seed: u64, method: KeySwitchMethod, name: &'static str) -> Arc<Self> {
        Arc::new(Ckks {
            f: fixture_with(log_n, seed, &[1, 3], method),
            name,
        })
    }

    fn ctx(&self) -> &Arc<CkksContext> {
        &self.f.ctx
    }

    fn ring(&self) -> &RingContext {
        self.f.ctx.ring()
    }

    fn rng(&self) -> ChaCha20Rng {
        ChaCha20Rng::seed_from_u64(0xF0_22)
    }

    /// A fresh encryption of [`message`] at `level` with every slot.
    fn ct(&self, level: usize) -> Result<Ciphertext> {
        self.ct_slots(level, self.ctx().n() / 2)
    }

    /// A fresh encryption of [`message`] at `level` with `slots` slots.
    fn ct_slots(&self, level: usize, slots: usize) -> Result<Ciphertext> {
        let ctx = self.ctx();
        let pt = ctx.encode_at(&message(slots), slots, level, ctx.default_scale())?;
        ctx.encrypt_with(&pt, &self.f.pk, &mut self.rng())
    }

    fn relin(&self) -> &RelinearizationKey {
        self.f
            .eval
            .keys()
            .relinearization_key()
            .expect("fixture key")
    }

    fn galois(&self) -> &GaloisKeys {
        self.f.eval.keys().galois_keys()
    }

    /// Decrypts, adds, multiplies (relinearizing), rotates, conjugates and rescales `ct`
    /// with this fixture's keys.
    fn use_ct(&self, ct: &Ciphertext) -> Result<()> {
        let (ctx, ev) = (self.ctx(), &self.f.eval);
        ctx.decrypt_decode(ct, &self.f.sk)?;
        let lin = if ct.degree() == 2 {
            ev.relinearize(ct)?
        } else {
            ev.add(ct, ct)?
        };
        let sq = ev.mul(&lin, &lin)?;
        ctx.decrypt_decode(&sq, &self.f.sk)?;
        if sq.level() > 0 {
            ctx.decrypt_decode(&ev.rescale(&sq)?, &self.f.sk)?;
        }
        ctx.decrypt_decode(&ev.rotate(&lin, 1)?, &self.f.sk)?;
        ctx.decrypt_decode(&ev.conjugate(&lin)?, &self.f.sk)?;
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

/// Poly bodies of `p` cut to every shape `(q_limbs, p_limbs)` the ring's caps allow.
fn shapes(ring: &RingContext) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for q in 0..=ring.q_len() {
        for p in [0, ring.p_len()] {
            v.push((q, p));
        }
    }
    v
}

pub(super) fn targets() -> Vec<Target> {
    let h12 = Ckks::new(12, 1201, KeySwitchMethod::Hybrid, "h12");
    let h10 = Ckks::new(10, 1001, KeySwitchMethod::Hybrid, "h10");
    let k11 = Ckks::new(11, 1101, KeySwitchMethod::Klss(KlssConfig::klss(2)), "k11");
    let mut v = ring_targets(&h12);
    v.push(parameters());
    v.push(plaintexts(&h12));
    v.push(ciphertexts(&h12, "ckks_ciphertext_h12"));
    v.push(ciphertexts(&k11, "ckks_ciphertext_k11"));
    for f in [&h10, &k11] {
        v.push(relinearization_keys(f));
        v.push(galois_keys(f));
        v.push(encapsulation_keys(f));
    }
    v
}

fn ring_targets(f: &Arc<Ckks>) -> Vec<Target> {
    let ring: Arc<RingContext> = f.ctx().ring().clone();
    let fp = ring.fingerprint();
    let sk_poly = f.f.sk.ntt().clone();
    let mut coeff = f.f.pk.b.restricted(2, 0);
    coeff.intt(&ring);
    let polys = vec![
        ("sk_ntt".to_string(), bytes(&sk_poly, &ring)),
        (
            "pk_b_2_limbs".to_string(),
            bytes(&f.f.pk.b.restricted(2, 0), &ring),
        ),
        ("coeff_form".to_string(), bytes(&coeff, &ring)),
    ];
    let poly_variants = shapes(&ring)
        .into_iter()
        .map(|(q, p)| bytes(&sk_poly.restricted(q, p), &ring))
        .collect();
    let r = ring.clone();
    let poly = target::<Poly, _>("poly", ring.clone(), polys, poly_variants, move |p| {
        r.check_poly(p, "decoded polynomial")?;
        let mut x = p.clone();
        x.add_assign(p, &r);
        match x.form() {
            Form::Coeff => x.ntt(&r),
            Form::Ntt => x.intt(&r),
        }
        Ok(())
    });

    let g = f.clone();
    let sk = target::<SecretKey, _>(
        "secret_key",
        ring.clone(),
        vec![("h12".into(), bytes(&f.f.sk, &ring))],
        vec![],
        move |sk| {
            let ctx = g.ctx();
            let pt = ctx.encode(&message(8))?;
            let ct = ctx.encrypt_symmetric_with(&pt, sk, &mut g.rng())?;
            ctx.decrypt_decode(&ct, sk)?;
            g.use_ct(&ct)
        },
    );

    // Public keys of every shape but the full one, and another seed.
    let pk = &f.f.pk;
    let mut pk_variants: Vec<Vec<u8>> = shapes(&ring)
        .into_iter()
        .map(|(q, p)| {
            with_header(PublicKey::TAG, fp, |w| {
                w.write_bytes(&pk.seed);
                pk.b.restricted(q, p).write_body(w, &ring);
            })
        })
        .collect();
    pk_variants.push(with_header(PublicKey::TAG, fp, |w| {
        w.write_bytes(&[0x55; 32]);
        pk.b.write_body(w, &ring);
    }));
    let g = f.clone();
    let public = target::<PublicKey, _>(
        "public_key",
        ring.clone(),
        vec![("h12".into(), bytes(pk, &ring))],
        pk_variants,
        move |pk| {
            let ctx = g.ctx();
            let pt = ctx.encode(&message(ctx.n() / 2))?;
            let ct = ctx.encrypt_with(&pt, pk, &mut g.rng())?;
            g.use_ct(&ct)
        },
    );

    // The relinearization key as a ring-level hybrid key; variants with other digit
    // counts and shapes.
    let SwitchingKey::Hybrid(hk) = &f.relin().0 else {
        panic!("hybrid fixture")
    };
    let mut hk_variants = Vec::new();
    for dnum in 1..=ring.q_len() {
        for (q, p) in [
            (ring.q_len(), ring.p_len()),
            (ring.q_len() - 1, 0),
            (1, ring.p_len()),
        ] {
            hk_variants.push(with_header(HybridKey::TAG, fp, |w| {
                w.write_bytes(&hk.seed);
                w.write_u16(dnum as u16);
                for j in 0..dnum {
                    hk.digits[j % hk.digits.len()][0]
                        .restricted(q, p)
                        .write_body(w, &ring);
                }
            }));
        }
    }
    let g = f.clone();
    let hybrid = target::<HybridKey, _>(
        "hybrid_key",
        ring.clone(),
        vec![("h12_relin".into(), bytes(hk, &ring))],
        hk_variants,
        move |k| {
            let rlk = RelinearizationKey(SwitchingKey::Hybrid(k.clone()));
            let ev = Evaluator::new(g.ctx().clone(), Some(rlk), GaloisKeys::new());
            // At the key's top level (a narrow key is refused above it).
            let level = k.q_limbs().clamp(1, g.ctx().max_level() + 1) - 1;
            let ct = g.ct(level)?;
            let sq = ev.mul(&ct, &ct)?;
            g.ctx().decrypt_decode(&sq, &g.f.sk)?;
            Ok(())
        },
    );
    vec![poly, sk, public, hybrid]
}

/// CKKS parameter sets: the three fixtures' and a few more shapes (mixed engine, Hamming
/// and Gaussian secrets, compact key storage, one digit).
fn parameter_sets() -> Vec<(&'static str, Arc<CkksContext>)> {
    let base = |log_n: u32| {
        CkksParameters::new(log_n)
            .log_q(&[55, 40, 40, 40])
            .log_p(&[60, 60])
            .dnum(2)
            .log_scale(40)
            .security(SecurityLevel::NotChecked)
    };
    use hekate::rlwe::keyswitch::KeyStorage;
    use hekate::rlwe::SecretDistribution;
    let mixed = KeySwitchMethod::Mixed {
        klss: KlssConfig::klss(2),
        levels: LevelSet::from_limbs([3, 4]).expect("levels"),
    };
    vec![
        ("h10", base(10).build()),
        ("h12", base(12).build()),
        (
            "k11",
            base(11)
                .key_switching(KeySwitchMethod::Klss(KlssConfig::klss(2)))
                .build(),
        ),
        ("mixed11", base(11).key_switching(mixed).build()),
        (
            "k10_compact_hamming",
            base(10)
                .key_switching(KeySwitchMethod::Klss(KlssConfig::klss(3)))
                .key_storage(KeyStorage::ExpandedWithOrdinary)
                .secret(SecretDistribution::HammingWeight(64))
                .build(),
        ),
        (
            "h10_gaussian_dnum4",
            base(10)
                .dnum(4)
                .secret(SecretDistribution::Gaussian)
                .build(),
        ),
    ]
    .into_iter()
    .map(|(n, c)| (n, c.expect("test parameters build")))
    .collect()
}

fn parameters() -> Target {
    let seeds: Vec<(String, Vec<u8>)> = parameter_sets()
        .into_iter()
        .map(|(n, c)| (n.to_string(), bytes(&*c, &())))
        .collect();
    target::<CkksContext, _>("ckks_parameters", Arc::new(()), seeds, vec![], |ctx| {
        let mut rng = ChaCha20Rng::seed_from_u64(16);
        let sk = ctx.generate_secret_key_with(&mut rng);
        let slots = ctx.n() / 2;
        let pt = ctx.encode_at(&message(slots), slots, ctx.max_level(), ctx.default_scale())?;
        let ct = ctx.encrypt_symmetric_with(&pt, &sk, &mut rng)?;
        ctx.decrypt_decode(&ct, &sk)?;
        Ok(())
    })
}

fn plaintexts(f: &Arc<Ckks>) -> Target {
    let ctx = f.ctx().clone();
    let mut seeds = Vec::new();
    for (level, slots) in [(3, ctx.n() / 2), (1, 4), (0, 1)] {
        let pt = ctx
            .encode_at(&message(slots), slots, level, ctx.default_scale())
            .expect("encode");
        seeds.push((format!("level{level}_slots{slots}"), bytes(&pt, &ctx)));
    }
    let fp = ctx.ring().fingerprint();
    let ring = ctx.ring();
    let pt = ctx.encode(&message(8)).expect("encode");
    // Plaintext polynomials of other shapes and forms.
    let mut variants: Vec<Vec<u8>> = shapes(ring)
        .into_iter()
        .map(|(q, p)| {
            with_header(Plaintext::TAG, fp, |w| {
                let mut one = Writer::new();
                pt.write_body(&mut one, &ctx);
                let body = one.into_bytes();
                // Scale and slot count as written, then another polynomial.
                let head = body.len() - packed_poly_len(pt.poly(), ring);
                w.write_bytes(&body[..head]);
                f.f.sk.ntt().restricted(q, p).write_body(w, ring);
            })
        })
        .collect();
    let mut coeff = pt.poly().clone();
    coeff.intt(ring);
    variants.push(with_header(Plaintext::TAG, fp, |w| {
        let mut one = Writer::new();
        pt.write_body(&mut one, &ctx);
        let body = one.into_bytes();
        w.write_bytes(&body[..body.len() - packed_poly_len(pt.poly(), ring)]);
        coeff.write_body(w, ring);
    }));
    let g = f.clone();
    target::<Plaintext, _>(
        "ckks_plaintext_h12",
        ctx.clone(),
        seeds,
        variants,
        move |pt| {
            let ctx = g.ctx();
            ctx.decode(pt)?;
            let ct = ctx.encrypt_with(pt, &g.f.pk, &mut g.rng())?;
            let ev = &g.f.eval;
            let top = g.ct_slots(pt.level(), pt.slots())?;
            ev.add_plain(&top, pt)?;
            ev.mul_plain(&top, pt)?;
            g.use_ct(&ct)
        },
    )
}

/// Bytes of a `Poly` body of `p` under `ring`.
fn packed_poly_len(p: &Poly, ring: &RingContext) -> usize {
    let mut w = Writer::new();
    p.write_body(&mut w, ring);
    w.len()
}

fn ciphertexts(f: &Arc<Ckks>, name: &'static str) -> Target {
    let ctx = f.ctx().clone();
    let ev = &f.f.eval;
    let top = f.ct(ctx.max_level()).expect("encrypt");
    let slots = ctx.n() / 2;
    let pt = ctx.encode(&message(slots)).expect("encode");
    let seeded = ctx
        .encrypt_symmetric_with(&pt, &f.f.sk, &mut f.rng())
        .expect("encrypt");
    let deg2 = ev.mul_no_relin(&top, &top).expect("mul");
    let low = ev
        .rescale(&ev.mul(&top, &top).expect("mul"))
        .expect("rescale");
    let seeds = vec![
        ("fresh_pk".to_string(), bytes(&top, &ctx)),
        ("fresh_sk_seeded".to_string(), bytes(&seeded, &ctx)),
        ("degree2".to_string(), bytes(&deg2, &ctx)),
        ("rescaled".to_string(), bytes(&low, &ctx)),
    ];
    // Parts of different levels, a seeded degree-2 header, special limbs, coefficient form.
    let ring = ctx.ring();
    let fp = ring.fingerprint();
    let mut head = Writer::new();
    top.write_body(&mut head, &ctx);
    let head = head.into_bytes();
    let parts_len: usize = top.parts().iter().map(|p| packed_poly_len(p, ring)).sum();
    let prefix = head[2..head.len() - parts_len].to_vec(); // scale and slots
    let mut variants = Vec::new();
    for (d, storage) in [(1u8, 0u8), (2, 0), (2, 1), (1, 1)] {
        for (q0, q1) in [(4, 3), (1, 4), (4, 4), (0, 0)] {
            variants.push(with_header(Ciphertext::TAG, fp, |w| {
                w.write_u8(d);
                w.write_u8(storage);
                w.write_bytes(&prefix);
                if storage == 1 {
                    w.write_bytes(&[3; 32]);
                }
                top.parts()[0]
                    .restricted(q0.min(ring.q_len()), 0)
                    .write_body(w, ring);
                for _ in 0..d {
                    top.parts()[1]
                        .restricted(q1.min(ring.q_len()), 0)
                        .write_body(w, ring);
                }
            }));
        }
    }
    variants.push(with_header(Ciphertext::TAG, fp, |w| {
        w.write_u8(1);
        w.write_u8(0);
        w.write_bytes(&prefix);
        f.f.sk.ntt().write_body(w, ring);
        f.f.sk.ntt().write_body(w, ring);
    }));
    let g = f.clone();
    target::<Ciphertext, _>(name, ctx.clone(), seeds, variants, move |ct| g.use_ct(ct))
}

/// Ordinary-form bodies (no header) of relinearization keys generated for fewer chain
/// limbs (every width below the top: only a hybrid context reads them), and of
/// inconsistent ones: a digit too many for the width, a digit of another width, a width
/// with more digits than limbs.
fn narrow_key_bodies(f: &Ckks) -> Vec<Vec<u8>> {
    let ring = f.ring();
    let hs = HybridKeySwitcher::new(f.ctx().ring().clone(), f.ctx().dnum());
    let mut s2 = f.f.sk.ntt().clone();
    s2.mul_assign(f.f.sk.ntt(), ring);
    let mut rng = f.rng();
    let body = |seed: &[u8; 32], digits: &[&Poly]| {
        let mut w = Writer::new();
        w.write_bytes(seed);
        w.write_u16(digits.len() as u16);
        digits.iter().for_each(|b| b.write_body(&mut w, ring));
        w.into_bytes()
    };
    let mut v = Vec::new();
    for width in 1..ring.q_len() {
        let key = hs
            .generate_key_at(&s2, &f.f.sk, width, &mut rng)
            .expect("a width in range");
        let mut w = Writer::new();
        key.write_body(&mut w, ring);
        v.push(w.into_bytes());
        let b: Vec<&Poly> = key.digits.iter().map(|[b, _]| b).collect();
        let extra = b.iter().chain(b.first()).copied().collect::<Vec<_>>();
        v.push(body(&key.seed, &extra));
        if b.len() > 1 {
            let other = b[1].restricted(width - 1, ring.p_len());
            v.push(body(&key.seed, &[b[0], &other]));
        }
        v.push(body(&key.seed, &vec![b[0]; width + 1]));
    }
    v
}

fn relinearization_keys(f: &Arc<Ckks>) -> Target {
    let ctx = f.ctx().clone();
    let name = if f.name == "h10" {
        "relinearization_key_h10"
    } else {
        "relinearization_key_k11"
    };
    let seeds = vec![(f.name.to_string(), bytes(f.relin(), &ctx))];
    let fp = f.ring().fingerprint();
    let variants = narrow_key_bodies(f)
        .into_iter()
        .map(|b| with_header(RelinearizationKey::TAG, fp, |w| w.write_bytes(&b)))
        .collect();
    let g = f.clone();
    target::<RelinearizationKey, _>(name, ctx.clone(), seeds, variants, move |k| {
        let ev = Evaluator::new(g.ctx().clone(), Some(k.clone()), GaloisKeys::new());
        // At the key's top level (above it the evaluator refuses the key).
        let level = k.max_level().unwrap_or(g.ctx().max_level());
        let ct = g.ct(level)?;
        let sq = ev.mul(&ct, &ct)?;
        g.ctx().decrypt_decode(&sq, &g.f.sk)?;
        Ok(())
    })
}

fn encapsulation_keys(f: &Arc<Ckks>) -> Target {
    let ctx = f.ctx().clone();
    let name = if f.name == "h10" {
        "encapsulation_keys_h10"
    } else {
        "encapsulation_keys_k11"
    };
    let keys = EncapsulationKeys::generate_with(&ctx, &f.f.sk, 32, &mut f.rng()).expect("keys");
    let seeds = vec![(f.name.to_string(), bytes(&keys, &ctx))];
    let g = f.clone();
    target::<EncapsulationKeys, _>(name, ctx.clone(), seeds, vec![], move |k| {
        // Switch a ciphertext's c_1 from s̃ to s (as after ModRaise).
        let ct = g.ct(g.ctx().max_level())?;
        g.f.eval.rlwe().key_switch(&ct.parts()[1], k.to_dense())?;
        Ok(())
    })
}

fn galois_keys(f: &Arc<Ckks>) -> Target {
    let ctx = f.ctx().clone();
    let name = if f.name == "h10" {
        "galois_keys_h10"
    } else {
        "galois_keys_k11"
    };
    let gks = f.galois();
    let mut seeds = vec![(format!("{}_all", f.name), bytes(gks, &ctx))];
    let mut one = GaloisKeys::new();
    let first = gks.iter().next().expect("a key");
    one.insert(first.clone());
    seeds.push((format!("{}_one", f.name), bytes(&one, &ctx)));
    let fp = f.ring().fingerprint();
    let g = first.galois_element() as u32;
    let variants = narrow_key_bodies(f)
        .into_iter()
        .map(|b| {
            with_header(GaloisKeys::TAG, fp, |w| {
                w.write_u32(1);
                w.write_u32(g);
                w.write_bytes(&b);
            })
        })
        .collect();
    let g = f.clone();
    target::<GaloisKeys, _>(name, ctx.clone(), seeds, variants, move |k| {
        let ev = Evaluator::new(g.ctx().clone(), None, k.clone());
        // At the lowest top level of the keys (above it the evaluator refuses a key).
        let level = k.iter().filter_map(|k| k.max_level()).min();
        let ct = g.ct(level.unwrap_or(g.ctx().max_level()))?;
        for e in k.elements() {
            let out = ev.automorphism(&ct, e)?;
            g.ctx().decrypt_decode(&out, &g.f.sk)?;
        }
        if k.is_empty() {
            return Err(Error::InvalidParameters("no keys".into()));
        }
        Ok(())
    })
}
