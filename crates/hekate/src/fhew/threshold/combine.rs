//! The combining side of threshold FHEW: `RGSW ⊗ RGSW` products, the streaming key
//! combiner, and threshold decryption from partial decryptions.

use super::party::{check_ct, EvalKeyShare, KeySwitchShare, PartialDecryption, SecretShare};
use super::ThresholdContext;
use crate::fhew::blindrotate::{monomial_exponents, BlindRotationKey, BrkElement};
use crate::fhew::gates::{decode_phase, BootstrapKey, FhewSecretKey};
use crate::fhew::lwe::{KsMasks, LweCiphertext, LweKeySwitchKey, LweSecretKey};
use crate::fhew::params::MethodConfig;
use crate::ring::{Form, RingContext};
use crate::rlwe::gsw::{AutoKey, GswScratch, Rgsw, RlweCiphertext, RlwePrime};
use crate::rlwe::SecretKey;
use crate::{Error, Result};

/// `RGSW(m_1) ⊠ RGSW(m_2) = RGSW(m_1 m_2)`: every row `RLWE(g_i z m_1)`, `RLWE(g_i m_1)` of
/// `lhs` times `rhs` by the external product ([`Rgsw::external_product_into`]).
///
/// For a monomial `m_2` the rows' errors are rotated and each gains the external product's
/// `2 σ_⊙^2(σ_rhs^2)` (seed 002 §6.1.3: "the error is additive").
pub fn rgsw_product(lhs: &Rgsw, rhs: &Rgsw, ctx: &RingContext, scratch: &mut GswScratch) -> Rgsw {
    let mul = |p: &RlwePrime, scratch: &mut GswScratch| {
        let (mut a, mut b) = (Vec::with_capacity(p.a.len()), Vec::with_capacity(p.a.len()));
        let mut row = RlweCiphertext::zero(ctx, Form::Coeff);
        let mut out = RlweCiphertext::zero(ctx, Form::Ntt);
        for (ai, bi) in p.a.iter().zip(&p.b) {
            row.a = ai.clone();
            row.b = bi.clone();
            row.a.intt(ctx);
            row.b.intt(ctx);
            rhs.external_product_into(&row, ctx, scratch, &mut out);
            a.push(out.a.clone());
            b.push(out.b.clone());
        }
        RlwePrime {
            gadget: p.gadget,
            seed: None,
            a,
            b,
        }
    };
    Rgsw {
        zm: mul(&lhs.zm, scratch),
        m: mul(&lhs.m, scratch),
    }
}

/// Combines the evaluation-key shares of all `k` parties into an ordinary
/// [`BootstrapKey`] ([`KeyCombiner`], in the order given).
pub fn combine_bootstrap_key(
    ctx: &ThresholdContext,
    shares: &[EvalKeyShare],
) -> Result<BootstrapKey> {
    ctx.check_parties("evaluation key", shares.iter().map(|s| s.party))?;
    let mut c = KeyCombiner::new(ctx);
    for s in shares {
        c.add(s)?;
    }
    c.finish()
}

/// The computing party's combination of evaluation-key shares as they arrive (holding
/// one running key, not all `k` shares): `brk_i ← brk_i ⊠ brk_(j,i)` ([`rgsw_product`]),
/// `ak_t ← ak_t + ak_(j,t)`, and the sum of the key-switching `β` parts.
#[derive(Debug)]
pub struct KeyCombiner<'a> {
    ctx: &'a ThresholdContext,
    seen: Vec<bool>,
    config: Option<MethodConfig>,
    brk: Vec<Rgsw>,
    auto: Vec<AutoKey>,
    ksk: Option<KeySwitchShare>,
    scratch: GswScratch,
}

impl<'a> KeyCombiner<'a> {
    /// An empty combination.
    pub fn new(ctx: &'a ThresholdContext) -> Self {
        KeyCombiner {
            ctx,
            seen: vec![false; ctx.k],
            config: None,
            brk: Vec::new(),
            auto: Vec::new(),
            ksk: None,
            scratch: GswScratch::new(ctx.ring()),
        }
    }

    /// Checks `share` against the parameters and the shares added so far.
    fn check(&self, share: &EvalKeyShare) -> Result<()> {
        let ctx = self.ctx;
        let p = &ctx.params.fhew;
        let ring = ctx.ring();
        let j = share.party;
        if j >= ctx.k || self.seen[j] {
            return Err(Error::InvalidParameters(format!(
                "evaluation key: party index {j} is out of range or repeated (k = {})",
                ctx.k
            )));
        }
        let mismatch = |what: &str| {
            Err(Error::ParameterMismatch(format!(
                "evaluation-key share of party {j}: {what}"
            )))
        };
        if let Some(c) = self.config {
            if c != share.config {
                return mismatch("another blind-rotation configuration");
            }
        }
        let cfg = share.config;
        let want = monomial_exponents(p, cfg.method, ring.n(), &vec![0; p.n]);
        let Some(want) = want.filter(|_| cfg.method.applies(p.q, ring.n()) && !cfg.alt_mult) else {
            return mismatch("no threshold keys exist for this configuration");
        };
        let prime_ok = |x: &RlwePrime, log_bg: u32| {
            x.gadget.q() == ctx.fhew.big_q
                && x.gadget.log_base() == log_bg
                && x.a.len() == x.gadget.digits()
                && x.b.len() == x.a.len()
                && x.a.iter().chain(&x.b).all(|y| y.data().len() == ring.n())
        };
        if share.brk.len() != want.len()
            || !share
                .brk
                .iter()
                .zip(&want)
                .all(|(r, &(_, lb))| prime_ok(&r.zm, lb) && prime_ok(&r.m, lb))
        {
            return mismatch("blind-rotation keys of the wrong number or shape");
        }
        let ts = BlindRotationKey::auto_exponents(cfg, p.q, ring.n());
        if share.auto.len() != ts.len()
            || !share
                .auto
                .iter()
                .zip(&ts)
                .all(|(a, &t)| a.t == t && prime_ok(&a.key, p.log_bg))
        {
            return mismatch("automorphism keys of the wrong number or shape");
        }
        let k = &share.ksk;
        let rows = p.big_n * p.log_q_ks.div_ceil(p.log_b_ks) as usize * ((1 << p.log_b_ks) - 1);
        if (k.log_q_ks, k.log_base) != (p.log_q_ks, p.log_b_ks) || k.b.len() != rows {
            return mismatch("key-switching share of the wrong shape");
        }
        if let Some(first) = &self.ksk {
            if first.seed != k.seed {
                return mismatch("key-switching masks of another common random string");
            }
        }
        Ok(())
    }

    /// Adds party `share.party`'s share.
    pub fn add(&mut self, share: &EvalKeyShare) -> Result<()> {
        self.check(share)?;
        self.seen[share.party] = true;
        let ring = self.ctx.ring();
        let Some(sum) = self.ksk.as_mut() else {
            self.config = Some(share.config);
            self.brk = share.brk.clone();
            self.auto = share.auto.clone();
            self.ksk = Some(share.ksk.clone());
            return Ok(());
        };
        let mask = ((1u64 << sum.log_q_ks) - 1) as u32;
        for (x, &y) in sum.b.iter_mut().zip(&share.ksk.b) {
            *x = x.wrapping_add(y) & mask;
        }
        for (acc, r) in self.brk.iter_mut().zip(&share.brk) {
            *acc = rgsw_product(acc, r, ring, &mut self.scratch);
        }
        for (acc, k) in self.auto.iter_mut().zip(&share.auto) {
            for (x, y) in acc.key.a.iter_mut().zip(&k.key.a) {
                x.add_assign(y, ring);
            }
            for (x, y) in acc.key.b.iter_mut().zip(&k.key.b) {
                x.add_assign(y, ring);
            }
        }
        Ok(())
    }

    /// The bootstrapping key, once every party's share has been added.
    pub fn finish(self) -> Result<BootstrapKey> {
        let missing: Vec<usize> = (0..self.ctx.k).filter(|&j| !self.seen[j]).collect();
        let (Some(config), Some(ks), true) = (self.config, self.ksk, missing.is_empty()) else {
            return Err(Error::InvalidParameters(format!(
                "evaluation key: the shares of parties {missing:?} are missing (k = {})",
                self.ctx.k
            )));
        };
        let p = &self.ctx.params.fhew;
        let keys = self.brk.into_iter().map(BrkElement::Rgsw).collect();
        let brk = BlindRotationKey::try_from_parts(p, p.big_n, config, keys, None, self.auto)?;
        let digits = p.log_q_ks.div_ceil(p.log_b_ks) as usize;
        let a = KsMasks::expand(&ks.seed, 0, ks.log_q_ks, ks.b.len() * p.n);
        let ksk = LweKeySwitchKey {
            log_q_ks: ks.log_q_ks,
            log_base: ks.log_base,
            digits,
            n_in: p.big_n,
            n_out: p.n,
            seed: ks.seed,
            a,
            b: ks.b,
        };
        Ok(BootstrapKey {
            brk,
            ksk,
            params_id: p.fingerprint(),
        })
    }
}

/// The phase `β + Σ_j p_j` (centered in `[-q/2, q/2)`) from the partial decryptions of
/// all `k` parties.
pub fn combine_phase(
    ctx: &ThresholdContext,
    ct: &LweCiphertext,
    partials: &[PartialDecryption],
) -> Result<i64> {
    check_ct(ctx, ct)?;
    ctx.check_parties("decryption", partials.iter().map(|p| p.party))?;
    if let Some(p) = partials.iter().find(|p| p.q != ct.q || p.value >= ct.q) {
        return Err(Error::ParameterMismatch(format!(
            "partial decryption of party {} is modulo {}, the ciphertext modulo {}",
            p.party, p.q, ct.q
        )));
    }
    let q = ct.q;
    let sum = partials.iter().fold(ct.b, |acc, p| (acc + p.value) % q);
    Ok(if sum >= q.div_ceil(2) {
        sum as i64 - q as i64
    } else {
        sum as i64
    })
}

/// Threshold decryption of a bit (encoded as `m · q/4`).
pub fn combine_bit(
    ctx: &ThresholdContext,
    ct: &LweCiphertext,
    partials: &[PartialDecryption],
) -> Result<bool> {
    Ok(combine_int(ctx, ct, 2, partials)? == 1)
}

/// Threshold decryption of `m ∈ Z_t` (encoded as `m · q/(2t)`).
pub fn combine_int(
    ctx: &ThresholdContext,
    ct: &LweCiphertext,
    t: u64,
    partials: &[PartialDecryption],
) -> Result<u64> {
    decode_phase(combine_phase(ctx, ct, partials)?, ct.q, t)
}

/// **Insecure**: forms the joint secrets `s_* = Σ_j s_j` and `z_* = Σ_j z_j`, which the
/// protocol never does. For tests and noise measurements only (as an oracle).
pub fn insecure_joint_secret(
    ctx: &ThresholdContext,
    shares: &[SecretShare],
) -> Result<FhewSecretKey> {
    ctx.check_parties("joint secret", shares.iter().map(|s| s.party))?;
    let p = &ctx.params.fhew;
    let mut s = vec![0i64; p.n];
    let mut z = vec![0i64; p.big_n];
    for sh in shares {
        s.iter_mut()
            .zip(sh.key.lwe.coeffs())
            .for_each(|(x, &y)| *x += y);
        z.iter_mut()
            .zip(sh.key.rlwe.coeffs())
            .for_each(|(x, &y)| *x += y);
    }
    Ok(FhewSecretKey {
        lwe: LweSecretKey::from_coeffs(s),
        rlwe: SecretKey::from_coeffs(ctx.ring(), z),
    })
}
