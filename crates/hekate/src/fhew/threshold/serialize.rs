//! Threshold FHEW messages ([`crate::fhew::threshold`]): what the parties send each other
//! (tags 39-42; layouts in the module documentation of [`crate::serialize`]).
//!
//! They are read against a [`ThresholdContext`], whose fingerprint covers the FHEW
//! parameters, the number of parties `k` and the two noise widths, so shares of another
//! protocol instance are refused.

use crate::fhew::serialize::{
    ksk_shape, read_beta, read_brk, read_ks_bases, write_beta, write_brk_parts, BrkParts, KeyRef,
};
use crate::fhew::threshold::{
    EvalKeyShare, KeySwitchShare, PartialDecryption, PublicKeyShare, ThresholdContext,
    ThresholdPublicKey,
};
use crate::fhew::{BlindRotationKey, BrkElement};
use crate::math::sample::Seed;
use crate::ring::{Form, Poly};
use crate::serialize::{
    err, fnv1a64, Deserialize, ObjectTag, ParameterFingerprint, Reader, Serialize, TagBlock, Writer,
};
use crate::{Error, Result};

/// The threshold-FHEW block of object tags, `0x0027..=0x002F` (after the FHEW block).
pub(crate) const TAGS: TagBlock = TagBlock {
    scheme: "threshold FHEW",
    first: 0x0027,
    last: 0x002F,
    tags: &[
        <PublicKeyShare as Serialize>::TAG,
        <EvalKeyShare as Serialize>::TAG,
        <PartialDecryption as Serialize>::TAG,
        <ThresholdPublicKey as Serialize>::TAG,
    ],
};

impl ParameterFingerprint for ThresholdContext {
    /// FNV-1a of `"THRESHOLD"`, the FHEW fingerprint, `k`, and the bits of `σ_smenc`
    /// and `σ_flood` (each a little-endian `u64`).
    fn fingerprint(&self) -> u64 {
        let p = self.params();
        let mut bytes = b"THRESHLD".to_vec();
        for x in [
            self.fhew().fingerprint(),
            self.parties() as u64,
            p.sigma_smenc.to_bits(),
            p.sigma_flood.to_bits(),
        ] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        fnv1a64(&bytes)
    }
}

fn read_party(r: &mut Reader<'_>, ctx: &ThresholdContext, what: &str) -> Result<usize> {
    let j = r.read_u16("party index")? as usize;
    if j >= ctx.parties() {
        return err(format!(
            "{what}: party {j} is not below k = {}",
            ctx.parties()
        ));
    }
    Ok(j)
}

/// A one-limb NTT-form polynomial of the context's ring.
fn read_ntt_poly(r: &mut Reader<'_>, ctx: &ThresholdContext, what: &str) -> Result<Poly> {
    let p = Poly::read_body(r, ctx.ring())?;
    if p.q_limbs() != 1 || p.p_limbs() != 0 || p.form() != Form::Ntt {
        return err(format!("{what}: not a one-limb polynomial in NTT form"));
    }
    Ok(p)
}

fn check_party(party: usize, ctx: &ThresholdContext) -> Result<()> {
    if party >= ctx.parties() {
        return Err(Error::ParameterMismatch(format!(
            "party {party} is not one of the k = {} parties",
            ctx.parties()
        )));
    }
    Ok(())
}

fn check_one_limb(p: &Poly, ctx: &ThresholdContext, what: &str) -> Result<()> {
    ctx.ring().check_poly(p, what)?;
    if p.q_limbs() != 1 || p.p_limbs() != 0 || p.form() != Form::Ntt {
        return Err(Error::ParameterMismatch(format!(
            "{what}: not a one-limb polynomial in NTT form"
        )));
    }
    Ok(())
}

impl Serialize for PublicKeyShare {
    type Context = ThresholdContext;
    const TAG: ObjectTag = ObjectTag::new(39, "threshold public-key share");

    /// A share of one of the `k` parties, one limb of the ring in NTT form.
    fn check_writable(&self, ctx: &ThresholdContext) -> Result<()> {
        check_party(self.party, ctx)?;
        check_one_limb(&self.b, ctx, "public-key share")
    }

    fn write_body(&self, w: &mut Writer, ctx: &ThresholdContext) {
        w.write_u16(self.party as u16);
        self.b.write_body(w, ctx.ring());
    }
}

impl Deserialize for PublicKeyShare {
    fn read_body(r: &mut Reader<'_>, ctx: &ThresholdContext) -> Result<Self> {
        let party = read_party(r, ctx, "public-key share")?;
        let b = read_ntt_poly(r, ctx, "public-key share")?;
        Ok(PublicKeyShare { party, b })
    }
}

impl Serialize for ThresholdPublicKey {
    type Context = ThresholdContext;
    const TAG: ObjectTag = ObjectTag::new(42, "threshold public key");

    /// Two one-limb polynomials of the ring in NTT form.
    fn check_writable(&self, ctx: &ThresholdContext) -> Result<()> {
        check_one_limb(&self.a, ctx, "threshold public key")?;
        check_one_limb(&self.b, ctx, "threshold public key")
    }

    fn write_body(&self, w: &mut Writer, ctx: &ThresholdContext) {
        self.a.write_body(w, ctx.ring());
        self.b.write_body(w, ctx.ring());
    }
}

impl Deserialize for ThresholdPublicKey {
    fn read_body(r: &mut Reader<'_>, ctx: &ThresholdContext) -> Result<Self> {
        let a = read_ntt_poly(r, ctx, "threshold public key")?;
        let b = read_ntt_poly(r, ctx, "threshold public key")?;
        Ok(ThresholdPublicKey { a, b })
    }
}

impl Serialize for PartialDecryption {
    type Context = ThresholdContext;
    const TAG: ObjectTag = ObjectTag::new(41, "partial decryption");

    /// A reduced value modulo the parameters' `q`, from one of the `k` parties.
    fn check_writable(&self, ctx: &ThresholdContext) -> Result<()> {
        check_party(self.party, ctx)?;
        if self.q != ctx.params().fhew.q || self.value >= self.q {
            return Err(Error::ParameterMismatch(format!(
                "partial decryption {} mod {} written under parameters with q = {}",
                self.value,
                self.q,
                ctx.params().fhew.q
            )));
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, _: &ThresholdContext) {
        w.write_u16(self.party as u16);
        w.write_u32(self.q as u32);
        w.write_u32(self.value as u32);
    }
}

impl Deserialize for PartialDecryption {
    fn read_body(r: &mut Reader<'_>, ctx: &ThresholdContext) -> Result<Self> {
        let party = read_party(r, ctx, "partial decryption")?;
        let q = u64::from(r.read_u32("partial decryption modulus")?);
        if q != ctx.params().fhew.q {
            return err(format!(
                "partial decryption modulo {q}; the parameters have q = {}",
                ctx.params().fhew.q
            ));
        }
        let value = u64::from(r.read_u32("partial decryption value")?);
        if value >= q {
            return err(format!(
                "partial decryption value {value} is not below q = {q}"
            ));
        }
        Ok(PartialDecryption { party, q, value })
    }
}

impl Serialize for EvalKeyShare {
    type Context = ThresholdContext;
    const TAG: ObjectTag = ObjectTag::new(40, "threshold evaluation-key share");

    /// A share of one of the `k` parties.
    fn check_writable(&self, ctx: &ThresholdContext) -> Result<()> {
        check_party(self.party, ctx)
    }

    fn write_body(&self, w: &mut Writer, ctx: &ThresholdContext) {
        w.write_u16(self.party as u16);
        let parts = BrkParts {
            config: self.config,
            ginx_u: &[],
            keys: self.brk.iter().map(KeyRef::Rgsw).collect(),
            z2: None,
            auto: &self.auto,
        };
        write_brk_parts(&parts, w, ctx.fhew());
        let k = &self.ksk;
        w.write_u8(k.log_q_ks as u8);
        w.write_u8(k.log_base as u8);
        w.write_bytes(&k.seed);
        write_beta(w, &k.b, k.log_q_ks);
    }
}

impl Deserialize for EvalKeyShare {
    fn read_body(r: &mut Reader<'_>, ctx: &ThresholdContext) -> Result<Self> {
        let fctx = ctx.fhew();
        let p = &fctx.params;
        let party = read_party(r, ctx, "evaluation-key share")?;
        // The key-switching share is the key-switching key body less its dimensions.
        let (rows, ksk_len) = ksk_shape(p)?;
        let brk: BlindRotationKey = read_brk(r, fctx, ksk_len - 8)?;
        if brk.config.alt_mult || brk.z2.is_some() || !brk.ginx_u.is_empty() {
            return err(
                "evaluation-key share: threshold keys are RGSW keys of Alg. 3, 4, 5 or AP".into(),
            );
        }
        let config = brk.config;
        r.charge_vec::<crate::rlwe::gsw::Rgsw>(brk.keys.len(), "the share's RGSW key vector")?;
        let BlindRotationKey { keys, auto, .. } = brk;
        let brk = keys
            .into_iter()
            .map(|e| match e {
                BrkElement::Rgsw(x) => Ok(x),
                BrkElement::Prime(_) => err("evaluation-key share: an RLWE' key".into()),
            })
            .collect::<Result<Vec<_>>>()?;
        let (log_q_ks, log_base) = read_ks_bases(r, p, "key-switching share")?;
        let seed: Seed = r.read_array("key-switching share seed")?;
        let b = read_beta(r, rows, log_q_ks)?;
        Ok(EvalKeyShare {
            party,
            config,
            brk,
            auto,
            ksk: KeySwitchShare {
                log_q_ks,
                log_base,
                seed,
                b,
            },
        })
    }
}
