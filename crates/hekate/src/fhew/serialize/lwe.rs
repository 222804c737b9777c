//! The encodings of LWE ciphertexts, LWE and FHEW secret keys, and the seed-compressed LWE
//! key-switching key (tags 33–36).

use crate::fhew::lwe::KsMasks;
use crate::fhew::{
    FhewContext, FhewParams, FhewSecretKey, LweCiphertext, LweKeySwitchKey, LweSecretKey,
};
use crate::math::sample::Seed;
use crate::rlwe::serialize::{read_small_coeffs, residue_width, write_small_coeffs};
use crate::rlwe::SecretKey;
use crate::serialize::{err, packed_len, Deserialize, ObjectTag, Reader, Serialize, Writer};
use crate::{Error, Result};

fn check_dim(found: usize, expected: usize, what: &str) -> Result<()> {
    if found != expected {
        return err(format!(
            "{what}: dimension {found} differs from the parameters' {expected}"
        ));
    }
    Ok(())
}

impl Serialize for LweCiphertext {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::new(33, "LWE ciphertext");

    /// A reduced ciphertext of the parameters' `n` and `q`.
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        self.validate()?;
        if self.dim() != ctx.params.n || self.q != ctx.params.q {
            return Err(Error::ParameterMismatch(format!(
                "LWE ciphertext of (n, q) = ({}, {}) written under parameters with ({}, {})",
                self.dim(),
                self.q,
                ctx.params.n,
                ctx.params.q
            )));
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        debug_assert!(
            self.q == ctx.params.q && self.a.len() == ctx.params.n,
            "LWE ciphertext written under other parameters"
        );
        w.write_u32(self.a.len() as u32);
        w.write_u64(self.q);
        let mut v = Vec::with_capacity(self.a.len() + 1);
        v.extend_from_slice(&self.a);
        v.push(self.b);
        w.write_bits(&v, residue_width(self.q));
    }
}

impl Deserialize for LweCiphertext {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        let n = r.read_u32("LWE ciphertext dimension")? as usize;
        check_dim(n, ctx.params.n, "LWE ciphertext")?;
        let q = r.read_u64("LWE ciphertext modulus")?;
        if q != ctx.params.q {
            return err(format!(
                "LWE ciphertext: modulus {q} differs from the parameters' q = {}",
                ctx.params.q
            ));
        }
        let width = residue_width(q);
        let len = packed_len(n + 1, width).unwrap_or(usize::MAX);
        r.require(len, "LWE ciphertext data")?;
        r.charge_vec::<u64>(n + 1, "the LWE ciphertext")?;
        let mut a = vec![0u64; n + 1];
        r.read_bits(&mut a, width, "LWE ciphertext data")?;
        if let Some(j) = a.iter().position(|&x| x >= q) {
            return err(format!(
                "LWE ciphertext: coordinate {j} = {} is not below q = {q}",
                a[j]
            ));
        }
        let b = a.pop().expect("n + 1 >= 1 values");
        Ok(LweCiphertext { a, b, q })
    }
}

impl Serialize for LweSecretKey {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::new(34, "LWE secret key");

    /// A key of the parameters' dimension `n`.
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        if self.dim() != ctx.params.n {
            return Err(Error::ParameterMismatch(format!(
                "LWE secret key of dimension {} written under parameters with n = {}",
                self.dim(),
                ctx.params.n
            )));
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        debug_assert_eq!(self.dim(), ctx.params.n, "LWE key of another dimension");
        w.write_u32(self.dim() as u32);
        write_small_coeffs(w, self.coeffs());
    }
}

impl Deserialize for LweSecretKey {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        let n = r.read_u32("LWE secret key dimension")? as usize;
        check_dim(n, ctx.params.n, "LWE secret key")?;
        Ok(LweSecretKey::from_coeffs(read_small_coeffs(
            r,
            n,
            "LWE secret key",
        )?))
    }
}

impl Serialize for FhewSecretKey {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::new(35, "FHEW secret key");

    /// Both secrets of these parameters.
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        self.lwe.check_writable(ctx)?;
        self.rlwe.check_writable(&ctx.ring)
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        debug_assert_eq!(
            self.rlwe.ring_id(),
            ctx.ring.fingerprint(),
            "RLWE secret of another ring"
        );
        self.lwe.write_body(w, ctx);
        self.rlwe.write_body(w, &ctx.ring);
    }
}

impl Deserialize for FhewSecretKey {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        let lwe = LweSecretKey::read_body(r, ctx)?;
        let rlwe = SecretKey::read_body(r, &ctx.ring)?;
        Ok(FhewSecretKey { lwe, rlwe })
    }
}

// ---------------------------------------------------------------------------------------
// LWE key switching

/// `(rows, body length)` of the key-switching key of `params`.
pub(crate) fn ksk_shape(params: &FhewParams) -> Result<(usize, usize)> {
    let digits = params.log_q_ks.div_ceil(params.log_b_ks) as usize;
    let rows = params
        .big_n
        .checked_mul(digits)
        .and_then(|x| x.checked_mul((1usize << params.log_b_ks) - 1));
    let len = rows.and_then(|rows| packed_len(rows, params.log_q_ks));
    match (rows, len) {
        (Some(rows), Some(len)) => Ok((rows, 10 + 32 + len)),
        _ => err("LWE key-switching key: size overflows".into()),
    }
}

impl Serialize for LweKeySwitchKey {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::new(36, "LWE key-switching key");

    /// A key of these parameters' shape.
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        let p = &ctx.params;
        let (rows, _) = ksk_shape(p)?;
        if (self.log_q_ks, self.log_base, self.n_in, self.n_out)
            != (p.log_q_ks, p.log_b_ks, p.big_n, p.n)
            || self.b.len() != rows
        {
            return Err(Error::ParameterMismatch(
                "LWE key-switching key written under other FHEW parameters".into(),
            ));
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        let p = &ctx.params;
        debug_assert!(
            self.log_q_ks == p.log_q_ks
                && self.log_base == p.log_b_ks
                && self.n_in == p.big_n
                && self.n_out == p.n,
            "LWE key-switching key written under other parameters"
        );
        debug_assert!(
            {
                let len = self.n_out.min(self.a.len());
                let (mut want, mut have) = (vec![0u32; len], vec![0u32; len]);
                KsMasks::expand(&self.seed, 0, self.log_q_ks, len).read(0, &mut want);
                self.a.read(0, &mut have);
                want == have
            },
            "LWE key-switching key whose masks are not the expansion of its seed"
        );
        w.write_u8(self.log_q_ks as u8);
        w.write_u8(self.log_base as u8);
        w.write_u32(self.n_in as u32);
        w.write_u32(self.n_out as u32);
        w.write_bytes(&self.seed);
        write_beta(w, &self.b, self.log_q_ks);
    }
}

/// `log Q_ks` and `log B_ks` of a key-switching body (`what`), which must be the
/// parameters'.
pub(crate) fn read_ks_bases(r: &mut Reader<'_>, p: &FhewParams, what: &str) -> Result<(u32, u32)> {
    let log_q_ks = u32::from(r.read_u8("key-switching log Q_ks")?);
    let log_base = u32::from(r.read_u8("key-switching log B_ks")?);
    if (log_q_ks, log_base) != (p.log_q_ks, p.log_b_ks) {
        return err(format!(
            "{what}: Q_ks = 2^{log_q_ks}, B_ks = 2^{log_base}; the parameters have 2^{} and 2^{}",
            p.log_q_ks, p.log_b_ks
        ));
    }
    Ok((log_q_ks, log_base))
}

/// The `β` parts of a key-switching body, bit-packed in `log Q_ks` bits.
pub(crate) fn write_beta(w: &mut Writer, b: &[u32], log_q_ks: u32) {
    let b: Vec<u64> = b.iter().map(|&x| u64::from(x)).collect();
    w.write_bits(&b, log_q_ks);
}

/// Reads what [`write_beta`] writes: `rows` values.
pub(crate) fn read_beta(r: &mut Reader<'_>, rows: usize, log_q_ks: u32) -> Result<Vec<u32>> {
    r.require(
        packed_len(rows, log_q_ks).unwrap_or(usize::MAX),
        "key-switching β parts",
    )?;
    r.charge_vec::<u64>(rows, "the unpacked key-switching β parts")?;
    r.charge_vec::<u32>(rows, "the key-switching β parts")?;
    let mut b = vec![0u64; rows];
    r.read_bits(&mut b, log_q_ks, "key-switching β parts")?;
    Ok(b.into_iter().map(|x| x as u32).collect())
}

impl Deserialize for LweKeySwitchKey {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        let p = &ctx.params;
        let (rows, len) = ksk_shape(p)?;
        let (log_q_ks, log_base) = read_ks_bases(r, p, "LWE key-switching key")?;
        let n_in = r.read_u32("LWE key-switching input dimension")? as usize;
        check_dim(n_in, p.big_n, "LWE key-switching key input")?;
        let n_out = r.read_u32("LWE key-switching output dimension")? as usize;
        check_dim(n_out, p.n, "LWE key-switching key output")?;
        r.require(len - 10, "LWE key-switching key")?;
        let seed: Seed = r.read_array("LWE key-switching seed")?;
        let b = read_beta(r, rows, log_q_ks)?;
        let size = rows.checked_mul(n_out).ok_or_else(|| {
            Error::Deserialize("LWE key-switching key: mask size overflows".into())
        })?;
        let width = if log_q_ks <= 16 { 2 } else { 4 };
        r.charge(
            size as u64 * width,
            "expanding the LWE key-switching masks from their seed",
        )?;
        let a = KsMasks::expand(&seed, 0, log_q_ks, size);
        Ok(LweKeySwitchKey {
            log_q_ks,
            log_base,
            digits: log_q_ks.div_ceil(log_base) as usize,
            n_in,
            n_out,
            seed,
            a,
            b,
        })
    }
}
