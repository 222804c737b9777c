//! The parts of an RLWE ciphertext `(c_0, c_1[, c_2])`, shared by the CKKS (tag 18) and
//! BFV/BGV (tag 258) ciphertext bodies: the degree and storage bytes that open the body,
//! and the parts that close it, every part or (for a fresh secret-key encryption) the
//! 32-byte seed of `c_1` and `c_0` only. The scheme's own fields (CKKS: scale and slots;
//! BFV/BGV: correction factor and noise estimate) sit between them.

use crate::math::sample::Seed;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::keys::expand_uniform;
use crate::serialize::{err, Deserialize, Reader, Serialize, Writer};
use crate::Result;

/// Ciphertext storage: every part stored.
const CT_FULL: u8 = 0;
/// Ciphertext storage: `c_0` and the seed of `c_1`.
const CT_SEEDED: u8 = 1;

/// Reads a plaintext or ciphertext polynomial: NTT form over `Q_l` only (at least one
/// chain limb, no special limb).
pub(crate) fn read_message_poly(
    r: &mut Reader<'_>,
    ring: &RingContext,
    what: &str,
) -> Result<Poly> {
    read_part(r, ring, what, false)
}

/// [`read_message_poly`], also in coefficient form when `any_form`.
fn read_part(r: &mut Reader<'_>, ring: &RingContext, what: &str, any_form: bool) -> Result<Poly> {
    let p = Poly::read_body(r, ring)?;
    if p.form() != Form::Ntt && !any_form {
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

/// Writes the degree `d` (`u8`, the part count minus one) and the storage (`u8`: 0 every
/// part, 1 seed-compressed when `seed` is set).
pub(crate) fn write_ct_head(w: &mut Writer, parts: &[Poly], seed: Option<&Seed>) {
    debug_assert!(
        (2..=3).contains(&parts.len()),
        "ciphertext degree not 1 or 2"
    );
    w.write_u8((parts.len() - 1) as u8);
    w.write_u8(if seed.is_some() { CT_SEEDED } else { CT_FULL });
}

/// Reads what [`write_ct_head`] writes: `(degree, seeded)`, a degree of 1 or 2, and a
/// seed-compressed ciphertext of degree 1 only.
pub(crate) fn read_ct_head(r: &mut Reader<'_>) -> Result<(usize, bool)> {
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
    Ok((degree, storage == CT_SEEDED))
}

/// Writes the parts: with a seed, the seed then `c_0` (`c_1` must be its expansion);
/// otherwise every part.
pub(crate) fn write_ct_parts(
    w: &mut Writer,
    parts: &[Poly],
    seed: Option<&Seed>,
    ring: &RingContext,
) {
    match seed {
        Some(seed) => {
            debug_assert!(
                parts.len() == 2
                    && parts[1] == expand_uniform(ring, seed, 0, parts[0].q_limbs(), 0),
                "seeded ciphertext whose c_1 is not the expansion of its seed"
            );
            w.write_bytes(seed);
            parts[0].write_body(w, ring);
        }
        None => {
            for p in parts {
                p.write_body(w, ring);
            }
        }
    }
}

/// Reads what [`write_ct_parts`] writes for a ciphertext of `degree` (`seeded` from
/// [`read_ct_head`]): every part with the same non-zero number of chain limbs and no
/// special limb, in NTT form, or (when `any_form`: BFV's products) every part in one
/// form; a seeded `c_1` is re-expanded as `expand_uniform(ring, seed, 0, l + 1, 0)`,
/// charged first, beside an NTT-form `c_0`.
pub(crate) fn read_ct_parts(
    r: &mut Reader<'_>,
    ring: &RingContext,
    degree: usize,
    seeded: bool,
    any_form: bool,
) -> Result<(Vec<Poly>, Option<Seed>)> {
    if seeded {
        let seed: Seed = r.read_array("ciphertext seed")?;
        let c0 = read_message_poly(r, ring, "ciphertext part 0")?;
        r.charge_vec::<u64>(
            c0.data().len(),
            "expanding the ciphertext's c_1 from its seed",
        )?;
        let c1 = expand_uniform(ring, &seed, 0, c0.q_limbs(), 0);
        return Ok((vec![c0, c1], Some(seed)));
    }
    let mut parts: Vec<Poly> = Vec::with_capacity(degree + 1);
    for i in 0..=degree {
        let p = read_part(r, ring, &format!("ciphertext part {i}"), any_form)?;
        if i > 0 && p.q_limbs() != parts[0].q_limbs() {
            return err(format!(
                "ciphertext part {i} has {} chain limbs, part 0 has {}",
                p.q_limbs(),
                parts[0].q_limbs()
            ));
        }
        if i > 0 && p.form() != parts[0].form() {
            return err(format!(
                "ciphertext part {i} is in {:?} form, part 0 in {:?} form",
                p.form(),
                parts[0].form()
            ));
        }
        parts.push(p);
    }
    Ok((parts, None))
}
