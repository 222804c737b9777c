//! The encodings of the CKKS types: parameters, plaintexts, ciphertexts and evaluation
//! keys (tags 16–20; layouts in the module documentation of [`crate::serialize`]). The
//! parameters (and their self-contained reader) are in `params`; the scale encoding,
//! plaintexts, ciphertexts and keys here.

mod params;

pub use params::{ckks_context_from_bytes, ckks_context_from_bytes_with, ckks_context_to_bytes};

use crate::ckks::{Ciphertext, CkksContext, GaloisKeys, Plaintext, RelinearizationKey, Scale};
use crate::rlwe::serialize::{
    check_galois_keys_writable, check_relinearization_key_writable, read_ct_head, read_ct_parts,
    read_galois_keys, read_message_poly, read_relinearization_key, write_ct_head, write_ct_parts,
    write_galois_keys, write_switching_key,
};
use crate::serialize::{
    err, Deserialize, ObjectTag, ParameterFingerprint, Reader, Serialize, TagBlock, Writer,
};
use crate::{Error, Result};
use num_bigint::{BigInt, BigUint, Sign};
use num_rational::BigRational;

/// The CKKS block of object tags, `0x0010..=0x001F`.
pub(crate) const TAGS: TagBlock = TagBlock {
    scheme: "CKKS",
    first: 0x0010,
    last: 0x001F,
    tags: &[
        <CkksContext as Serialize>::TAG,
        <Plaintext as Serialize>::TAG,
        <Ciphertext as Serialize>::TAG,
        <RelinearizationKey as Serialize>::TAG,
        <GaloisKeys as Serialize>::TAG,
        <crate::ckks::bootstrap::EncapsulationKeys as Serialize>::TAG,
    ],
};

/// The largest numerator or denominator of a scale the format accepts, in bytes.
///
/// 2048 bytes (16384 bits) holds the product of every chain prime of the largest chain
/// the format accepts ([`MAX_LIMBS`](crate::serialize::MAX_LIMBS) primes below `2^62`), so every scale reachable by
/// rescaling fits; numerators that large are far beyond any meaningful scale.
pub const MAX_SCALE_BYTES: usize = 2048;

impl ParameterFingerprint for CkksContext {
    /// The fingerprint of the ring ([`RingContext::fingerprint`](crate::ring::RingContext::fingerprint)): CKKS objects are tied
    /// to `N` and the primes.
    fn fingerprint(&self) -> u64 {
        self.ring().fingerprint()
    }
}

// ---------------------------------------------------------------------------------------
// Scale

/// An error if `scale` does not fit the format ([`MAX_SCALE_BYTES`] per numerator and
/// denominator): a long chain of constant products without rescaling can get there.
pub(crate) fn check_scale_writable(scale: &Scale) -> Result<()> {
    let r = scale.as_ratio();
    for (x, what) in [(r.numer(), "numerator"), (r.denom(), "denominator")] {
        let (sign, bytes) = x.to_bytes_le();
        if sign != Sign::Plus || bytes.len() > MAX_SCALE_BYTES {
            return Err(Error::InvalidParameters(format!(
                "cannot serialize a scale whose {what} has {} bytes (the format's cap is \
                 {MAX_SCALE_BYTES}): rescale the ciphertext first",
                bytes.len()
            )));
        }
    }
    Ok(())
}

fn write_magnitude(w: &mut Writer, x: &BigInt, what: &str) {
    let (sign, bytes) = x.to_bytes_le();
    assert!(
        sign == Sign::Plus && bytes.len() <= MAX_SCALE_BYTES,
        "cannot serialize a scale whose {what} has {} bytes: the format's cap is \
         {MAX_SCALE_BYTES} bytes",
        bytes.len()
    );
    w.write_u16(bytes.len() as u16);
    w.write_bytes(&bytes);
}

fn read_magnitude(r: &mut Reader<'_>, what: &str) -> Result<BigUint> {
    let len = r.read_u16(what)? as usize;
    if len == 0 || len > MAX_SCALE_BYTES {
        return err(format!(
            "scale {what} length {len} is not in [1, {MAX_SCALE_BYTES}] bytes"
        ));
    }
    let bytes = r.read_bytes(len, what)?;
    if bytes[len - 1] == 0 {
        return err(format!(
            "non-canonical scale: the {what} has a leading zero byte"
        ));
    }
    Ok(BigUint::from_bytes_le(bytes))
}

/// Writes `Δ = a / b` (reduced, positive) as `u16 len, a, u16 len, b`.
///
/// # Panics
/// If the numerator or denominator has more than [`MAX_SCALE_BYTES`] bytes.
pub(crate) fn write_scale(w: &mut Writer, scale: &Scale) {
    let r = scale.as_ratio();
    write_magnitude(w, r.numer(), "numerator");
    write_magnitude(w, r.denom(), "denominator");
}

pub(crate) fn read_scale(r: &mut Reader<'_>) -> Result<Scale> {
    let a = read_magnitude(r, "numerator")?;
    let b = read_magnitude(r, "denominator")?;
    let (a, b) = (BigInt::from(a), BigInt::from(b));
    let ratio = BigRational::new(a.clone(), b);
    if ratio.numer() != &a {
        return err("non-canonical scale: numerator and denominator are not coprime".into());
    }
    Scale::from_ratio(ratio).ok_or_else(|| Error::Deserialize("scale is not positive".into()))
}

/// Reads a slot count and checks it is a power of two in `[1, N/2]`.
pub(crate) fn read_slots(r: &mut Reader<'_>, n: usize, what: &str) -> Result<usize> {
    let slots = r.read_u32(what)? as usize;
    if !slots.is_power_of_two() || slots > n / 2 {
        return err(format!(
            "{what} {slots} is not a power of two in [1, N/2 = {}]",
            n / 2
        ));
    }
    Ok(slots)
}

// ---------------------------------------------------------------------------------------
// Plaintext

impl Serialize for Plaintext {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::new(17, "CKKS plaintext");

    /// A plaintext of `ctx` with a usable shape, and a scale the format holds.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        self.check_shape(ctx)?;
        check_scale_writable(&self.scale)
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        debug_assert_eq!(
            self.ring_id,
            ctx.ring().fingerprint(),
            "plaintext written under another context"
        );
        write_scale(w, &self.scale);
        w.write_u32(self.slots as u32);
        self.poly.write_body(w, ctx.ring());
    }
}

impl Deserialize for Plaintext {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        let scale = read_scale(r)?;
        let slots = read_slots(r, ctx.n(), "plaintext slot count")?;
        let poly = read_message_poly(r, ctx.ring(), "plaintext polynomial")?;
        Plaintext::from_parts(ctx, poly, scale, slots)
            .map_err(|e| Error::Deserialize(format!("plaintext: {e}")))
    }
}

// ---------------------------------------------------------------------------------------
// Ciphertext

impl Serialize for Ciphertext {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::new(18, "CKKS ciphertext");

    /// A ciphertext of `ctx` with a usable shape, and a scale the format holds.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        self.check_shape(ctx)?;
        check_scale_writable(&self.scale)
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        debug_assert_eq!(
            self.ring_id,
            ctx.ring().fingerprint(),
            "ciphertext written under another context"
        );
        write_ct_head(w, &self.parts, self.seed.as_ref());
        write_scale(w, &self.scale);
        w.write_u32(self.slots as u32);
        write_ct_parts(w, &self.parts, self.seed.as_ref(), ctx.ring());
    }
}

impl Deserialize for Ciphertext {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        let (degree, seeded) = read_ct_head(r)?;
        let scale = read_scale(r)?;
        let slots = read_slots(r, ctx.n(), "ciphertext slot count")?;
        let (parts, seed) = read_ct_parts(r, ctx.ring(), degree, seeded, false)?;
        Ciphertext::from_parts(ctx, parts, scale, slots, seed)
            .map_err(|e| Error::Deserialize(format!("ciphertext: {e}")))
    }
}

// ---------------------------------------------------------------------------------------
// Evaluation keys: the bodies are RLWE-level (`crate::rlwe::serialize`), shared with
// BFV/BGV; only the header (tag, fingerprint) is CKKS's.

impl Serialize for RelinearizationKey {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::new(19, "relinearization key");

    /// A key of `ctx` that this context can write in the ordinary form.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        check_relinearization_key_writable(self, ctx.rlwe())
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        write_switching_key(w, &self.0, ctx.rlwe());
    }
}

impl Deserialize for RelinearizationKey {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        read_relinearization_key(r, ctx.rlwe())
    }
}

impl Serialize for GaloisKeys {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::new(20, "Galois keys");

    /// Keys of `ctx` that this context can write, each stored under its own element.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        check_galois_keys_writable(self, ctx.rlwe())
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        write_galois_keys(w, self, ctx.rlwe());
    }
}

impl Deserialize for GaloisKeys {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        read_galois_keys(r, ctx.rlwe())
    }
}
