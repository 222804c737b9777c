//! The encodings of the CKKS types: parameters, plaintexts, ciphertexts and evaluation
//! keys (tags 16–20; layouts in the module documentation of [`crate::serialize`]). The
//! parameters (and their self-contained reader) are in `params`; the scale encoding,
//! plaintexts, ciphertexts and keys here.

mod params;

pub use params::{ckks_context_from_bytes, ckks_context_from_bytes_with, ckks_context_to_bytes};

use crate::ckks::{
    Ciphertext, CkksContext, GaloisKey, GaloisKeys, Plaintext, RelinearizationKey, Scale,
};
use crate::math::sample::Seed;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::keys::expand_uniform;
use crate::rlwe::keyswitch::SwitchingKey;
use crate::rlwe::HybridKey;
use crate::serialize::{
    err, Deserialize, ObjectTag, ParameterFingerprint, Reader, Serialize, TagBlock, Writer,
};
use crate::{Error, Result};
use num_bigint::{BigInt, BigUint, Sign};
use num_rational::BigRational;
use std::collections::HashMap;

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
    /// The fingerprint of the ring ([`RingContext::fingerprint`]): CKKS objects are tied
    /// to `N` and the primes.
    fn fingerprint(&self) -> u64 {
        self.ring().fingerprint()
    }
}

// ---------------------------------------------------------------------------------------
// Scale

/// An error if `scale` does not fit the format ([`MAX_SCALE_BYTES`] per numerator and
/// denominator): a long chain of constant products without rescaling can get there.
fn check_scale_writable(scale: &Scale) -> Result<()> {
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
fn write_scale(w: &mut Writer, scale: &Scale) {
    let r = scale.as_ratio();
    write_magnitude(w, r.numer(), "numerator");
    write_magnitude(w, r.denom(), "denominator");
}

fn read_scale(r: &mut Reader<'_>) -> Result<Scale> {
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
fn read_slots(r: &mut Reader<'_>, n: usize, what: &str) -> Result<usize> {
    let slots = r.read_u32(what)? as usize;
    if !slots.is_power_of_two() || slots > n / 2 {
        return err(format!(
            "{what} {slots} is not a power of two in [1, N/2 = {}]",
            n / 2
        ));
    }
    Ok(slots)
}

/// Reads a plaintext or ciphertext polynomial: NTT form over `Q_l` only.
fn read_message_poly(r: &mut Reader<'_>, ring: &RingContext, what: &str) -> Result<Poly> {
    let p = Poly::read_body(r, ring)?;
    if p.form() != Form::Ntt {
        return err(format!("{what} must be in NTT form"));
    }
    if p.q_limbs() == 0 || p.p_limbs() != 0 {
        return err(format!(
            "{what} has {} chain and {} special limbs; expected at least one chain limb and \
             no special limbs",
            p.q_limbs(),
            p.p_limbs()
        ));
    }
    Ok(p)
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

/// Ciphertext storage: every part stored.
const CT_FULL: u8 = 0;
/// Ciphertext storage: `c_0` and the seed of `c_1`.
const CT_SEEDED: u8 = 1;

impl Serialize for Ciphertext {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::new(18, "CKKS ciphertext");

    /// A ciphertext of `ctx` with a usable shape, and a scale the format holds.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        self.check_shape(ctx)?;
        check_scale_writable(&self.scale)
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        let ring = ctx.ring();
        debug_assert_eq!(
            self.ring_id,
            ring.fingerprint(),
            "ciphertext written under another context"
        );
        let parts = &self.parts;
        debug_assert!(
            (2..=3).contains(&parts.len()),
            "ciphertext degree not 1 or 2"
        );
        w.write_u8((parts.len() - 1) as u8);
        match &self.seed {
            Some(seed) => {
                debug_assert!(
                    parts.len() == 2
                        && parts[1] == expand_uniform(ring, seed, 0, parts[0].q_limbs(), 0),
                    "seeded ciphertext whose c_1 is not the expansion of its seed"
                );
                w.write_u8(CT_SEEDED);
                write_scale(w, &self.scale);
                w.write_u32(self.slots as u32);
                w.write_bytes(seed);
                parts[0].write_body(w, ring);
            }
            None => {
                w.write_u8(CT_FULL);
                write_scale(w, &self.scale);
                w.write_u32(self.slots as u32);
                for p in parts {
                    p.write_body(w, ring);
                }
            }
        }
    }
}

impl Deserialize for Ciphertext {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        let ring = ctx.ring();
        let degree = r.read_u8("ciphertext degree")? as usize;
        if !(1..=2).contains(&degree) {
            return err(format!("ciphertext degree {degree} is not 1 or 2"));
        }
        let storage = r.read_u8("ciphertext storage")?;
        if storage == CT_SEEDED && degree != 1 {
            return err(format!(
                "a seed-compressed ciphertext has degree 1, not {degree}"
            ));
        }
        if storage != CT_FULL && storage != CT_SEEDED {
            return err(format!(
                "unknown ciphertext storage {storage} (0 full, 1 seed-compressed)"
            ));
        }
        let scale = read_scale(r)?;
        let slots = read_slots(r, ctx.n(), "ciphertext slot count")?;
        let (parts, seed) = if storage == CT_SEEDED {
            let seed: Seed = r.read_array("ciphertext seed")?;
            let c0 = read_message_poly(r, ring, "ciphertext part 0")?;
            r.charge_vec::<u64>(
                c0.data().len(),
                "expanding the ciphertext's c_1 from its seed",
            )?;
            let c1 = expand_uniform(ring, &seed, 0, c0.q_limbs(), 0);
            (vec![c0, c1], Some(seed))
        } else {
            let mut parts: Vec<Poly> = Vec::with_capacity(degree + 1);
            for i in 0..=degree {
                let p = read_message_poly(r, ring, &format!("ciphertext part {i}"))?;
                if i > 0 && p.q_limbs() != parts[0].q_limbs() {
                    return err(format!(
                        "ciphertext part {i} has {} chain limbs, part 0 has {}",
                        p.q_limbs(),
                        parts[0].q_limbs()
                    ));
                }
                parts.push(p);
            }
            (parts, None)
        };
        Ciphertext::from_parts(ctx, parts, scale, slots, seed)
            .map_err(|e| Error::Deserialize(format!("ciphertext: {e}")))
    }
}

// ---------------------------------------------------------------------------------------
// Evaluation keys

/// A switching key of `ctx`'s ring whose ordinary (hybrid) form this context can produce:
/// a hybrid key, a KLSS key of this context's engine (contracted), or one that keeps its
/// ordinary form.
pub(crate) fn check_key_writable(key: &SwitchingKey, ctx: &CkksContext, what: &str) -> Result<()> {
    if key.ring_id() != ctx.ring().fingerprint() {
        return Err(Error::ParameterMismatch(format!(
            "the {what} belongs to another context"
        )));
    }
    let writable = match key {
        SwitchingKey::Hybrid(k) => k.check_shape(ctx.ring(), ctx.dnum()).is_ok(),
        SwitchingKey::Klss(_) => ctx.keyswitcher().owns(key) || key.ordinary().is_some(),
    };
    if !writable {
        return Err(Error::ParameterMismatch(format!(
            "the {what} was made for another key-switching engine or dnum and keeps no \
             ordinary (hybrid) form this context could write; write it with the context it \
             was generated under"
        )));
    }
    Ok(())
}

/// Reads a hybrid key and checks it has the context's shape for its width `w`
/// ([`HybridKey::check_shape`]): `dnum` digits over all of `Q ∪ P` for a full key,
/// `ceil(w / α)` over `Q_{w-1} ∪ P` for a key generated for levels `< w` (which only the
/// hybrid engine accepts: KLSS expansion refuses it).
pub(crate) fn read_switching_key(
    r: &mut Reader<'_>,
    ctx: &CkksContext,
    what: &str,
) -> Result<SwitchingKey> {
    let ring = ctx.ring();
    let key = HybridKey::read_body(r, ring)?;
    if let Err(why) = key.check_shape(ring, ctx.dnum()) {
        return err(format!(
            "{what} does not have the context's shape (dnum = {}): {why}",
            ctx.dnum()
        ));
    }
    // A KLSS context expands the ordinary key once, here: the expanded key, and the
    // temporaries of the expansion (under half the key's size, measured by
    // `tests/alloc_limits.rs`).
    let adopted = ctx.keyswitcher().adopted_key_bytes();
    r.charge(
        adopted + adopted / 2,
        &format!("expanding the {what} for the KLSS engine"),
    )?;
    ctx.keyswitcher().adopt(key, ctx.key_storage())
}

impl Serialize for RelinearizationKey {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::new(19, "relinearization key");

    /// A key of `ctx` that this context can write in the ordinary form.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        check_key_writable(&self.0, ctx, "relinearization key")
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        ctx.keyswitcher()
            .ordinary_key(&self.0)
            .write_body(w, ctx.ring());
    }
}

impl Deserialize for RelinearizationKey {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        read_switching_key(r, ctx, "relinearization key").map(RelinearizationKey)
    }
}

impl Serialize for GaloisKeys {
    type Context = CkksContext;
    const TAG: ObjectTag = ObjectTag::new(20, "Galois keys");

    /// Keys of `ctx` that this context can write, each stored under its own element.
    fn check_writable(&self, ctx: &CkksContext) -> Result<()> {
        for (&g, key) in &self.keys {
            if key.galois_element != g {
                return Err(Error::ParameterMismatch(format!(
                    "the Galois key for element {} is stored under element {g}",
                    key.galois_element
                )));
            }
            check_key_writable(&key.key, ctx, &format!("Galois key {g}"))?;
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &CkksContext) {
        let mut elements: Vec<usize> = self.keys.keys().copied().collect();
        elements.sort_unstable();
        w.write_u32(elements.len() as u32);
        for g in elements {
            let key = &self.keys[&g];
            debug_assert_eq!(
                key.galois_element, g,
                "Galois key stored under another element"
            );
            w.write_u32(g as u32);
            ctx.keyswitcher()
                .ordinary_key(&key.key)
                .write_body(w, ctx.ring());
        }
    }
}

impl Deserialize for GaloisKeys {
    fn read_body(r: &mut Reader<'_>, ctx: &CkksContext) -> Result<Self> {
        let n = ctx.n();
        let count = r.read_u32("Galois key count")? as usize;
        // There are N odd elements below 2N; each key needs at least its seed.
        if count > n {
            return err(format!(
                "Galois key count {count} exceeds the N = {n} possible Galois elements"
            ));
        }
        r.require(count * (4 + 32), "Galois keys")?;
        // The map's table: at most twice its entries (load factor 7/8, rounded up to a
        // power of two), one control byte each.
        r.charge(
            2 * count as u64 * (std::mem::size_of::<(usize, GaloisKey)>() as u64 + 1) + 64,
            "the Galois key map",
        )?;
        let mut keys = HashMap::with_capacity(count);
        let mut last: Option<usize> = None;
        for _ in 0..count {
            let g = r.read_u32("Galois element")? as usize;
            if g.is_multiple_of(2) || g >= 2 * n {
                return err(format!(
                    "Galois element {g} is not an odd number below 2N = {}",
                    2 * n
                ));
            }
            if last.is_some_and(|l| g <= l) {
                return err(format!(
                    "Galois elements are not in strictly increasing order ({g} after {})",
                    last.unwrap_or(0)
                ));
            }
            last = Some(g);
            let key = read_switching_key(r, ctx, &format!("Galois key {g}"))?;
            keys.insert(
                g,
                GaloisKey {
                    galois_element: g,
                    key,
                },
            );
        }
        Ok(GaloisKeys { keys })
    }
}
