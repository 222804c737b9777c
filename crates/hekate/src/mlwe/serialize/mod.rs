//! The encodings of the MLWE-CKKS types (tags `0x0200..=0x02FF`; layouts in the module
//! documentation of [`crate::serialize`]): the parameters (self-contained, in `params`),
//! ciphertexts (`ciphertext`), the vector secret key and the public key (`keys`), the
//! relinearization keys (ModHE and DPad-HE), rank-reduction keys and the plain and
//! rank-hoisted rotation keys (`switching`), plaintexts (`plaintext`). This module holds
//! what they share: the tag block and the seed-compressed module switching keys.
//!
//! Every object but the parameters is read under an [`MlweContext`], whose fingerprint
//! ([`MlweContext::fingerprint`]) covers the ring, the rank, `d` and DPad-HE's settings.
//! The pieces are the shared ones: `Poly` bodies, the secret-coefficient encoding of
//! `SecretKey`, CKKS's scale and slot count; switching keys ([`ModuleKey`]) are written
//! seed-compressed, their uniform parts re-expanded on read as the RLWE keys' are.

mod ciphertext;
mod keys;
mod params;
mod plaintext;
mod switching;

pub use params::{mlwe_context_from_bytes, mlwe_context_from_bytes_with, mlwe_context_to_bytes};
pub use plaintext::MlwePlaintext;

use super::keys::quadratic_terms;
use super::{
    Ciphertext, HoistedRotationKeys, MlweContext, PublicKey, RankReductionKey, RelinearizationKey,
    RotationKey, SecretKey,
};
use crate::ckks::serialize::{check_scale_writable, read_scale, read_slots, write_scale};
use crate::math::sample::Seed;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::keys::expand_uniform;
use crate::rlwe::serialize::{read_message_poly, read_small_coeffs, write_small_coeffs};
use crate::rlwe::{HybridKeySwitcher, ModuleKey, SecretKey as RingSecret};
use crate::serialize::{
    err, Deserialize, ObjectTag, ParameterFingerprint, Reader, Serialize, TagBlock, Writer,
};
use crate::{Error, Result};

/// The MLWE-CKKS block of object tags, `0x0200..=0x02FF`.
pub(crate) const TAGS: TagBlock = TagBlock {
    scheme: "MLWE-CKKS",
    first: 0x0200,
    last: 0x02FF,
    tags: &[
        <MlweContext as Serialize>::TAG,
        <Ciphertext as Serialize>::TAG,
        <SecretKey as Serialize>::TAG,
        <PublicKey as Serialize>::TAG,
        <RelinearizationKey as Serialize>::TAG,
        <RankReductionKey as Serialize>::TAG,
        <RotationKey as Serialize>::TAG,
        <HoistedRotationKeys as Serialize>::TAG,
        <MlwePlaintext as Serialize>::TAG,
    ],
};

impl ParameterFingerprint for MlweContext {
    /// [`MlweContext::fingerprint`]: the ring's, the rank, `d` and DPad-HE's settings.
    fn fingerprint(&self) -> u64 {
        MlweContext::fingerprint(self)
    }
}

/// An [`Error::Deserialize`] wrapping the error of a check shared with the library.
fn deserialize_error(what: &str, e: Error) -> Error {
    Error::Deserialize(format!("{what}: {e}"))
}

// ---------------------------------------------------------------------------------------
// Module switching keys (part of every key body but the secret and public keys)

/// What a module key body must be: its engine (ring and digits), inputs `r1` and output
/// columns `1 + r2`, all fixed by the enclosing object.
struct KeyShape<'a> {
    ks: &'a HybridKeySwitcher,
    inputs: usize,
    columns: usize,
}

impl KeyShape<'_> {
    fn ring(&self) -> &RingContext {
        self.ks.ring()
    }
}

/// A module key of `shape`: its ring, inputs and columns, a width (chain limbs) in
/// `[1, L + 1]`, the engine's digits at that width, every polynomial over
/// `Q_{w-1} ∪ P` in NTT form with reduced residues.
fn check_module_key_writable(key: &ModuleKey, shape: &KeyShape<'_>, what: &str) -> Result<()> {
    let ring = shape.ring();
    let bad = |m: String| Err(Error::ParameterMismatch(format!("{what}: {m}")));
    if key.ring_id != ring.fingerprint() {
        return bad(format!(
            "it belongs to ring {:#018x}, this context's is {:#018x}: write it with the \
             context it was made under",
            key.ring_id,
            ring.fingerprint()
        ));
    }
    if key.inputs() != shape.inputs || key.width() != shape.columns {
        return bad(format!(
            "{} inputs and {} columns; expected {} and {}",
            key.inputs(),
            key.width(),
            shape.inputs,
            shape.columns
        ));
    }
    let w = key.q_limbs();
    if w == 0 || w > ring.q_len() {
        return bad(format!(
            "width {w} chain limbs, not in [1, {}]",
            ring.q_len()
        ));
    }
    shape.ks.check_module_key(key, shape.inputs, w)?;
    for p in key.rows.iter().flatten().flatten() {
        ring.check_poly(p, what)?;
    }
    Ok(())
}

/// The stream of the uniform part `a_t` of input `j`, digit `i` of a module key with
/// `digits` digits and `r2` output components (as [`HybridKeySwitcher::generate_module_key`]
/// expands them).
fn module_key_stream(j: usize, i: usize, digits: usize, r2: usize, t: usize) -> u64 {
    ((j * digits + i) * r2 + t) as u64
}

/// Writes the seed, the width `w` (`u16`), and the `b` of every (input, digit) in order;
/// the `a` parts are the seed's expansions.
fn write_module_key(w: &mut Writer, key: &ModuleKey, ring: &RingContext) {
    let width = key.q_limbs();
    w.write_bytes(&key.seed);
    w.write_u16(width as u16);
    for (j, row) in key.rows.iter().enumerate() {
        for (i, cols) in row.iter().enumerate() {
            debug_assert!(
                cols[1..].iter().enumerate().all(|(t, a)| {
                    let s = module_key_stream(j, i, row.len(), cols.len() - 1, t);
                    *a == expand_uniform(ring, &key.seed, s, width, ring.p_len())
                }),
                "module key whose a parts are not the expansion of its seed"
            );
            cols[0].write_body(w, ring);
        }
    }
}

/// Reads what [`write_module_key`] writes for a key of `shape`: a width in `[1, L + 1]`,
/// the engine's digits at that width, each `b` over `Q_{w-1} ∪ P` in NTT form; the `a`
/// parts re-expanded from the seed, charged first.
fn read_module_key(r: &mut Reader<'_>, shape: &KeyShape<'_>, what: &str) -> Result<ModuleKey> {
    let ring = shape.ring();
    let seed: Seed = r.read_array(&format!("{what} seed"))?;
    let width = r.read_u16(&format!("{what} width"))? as usize;
    if width == 0 || width > ring.q_len() {
        return err(format!(
            "{what}: width {width} chain limbs is not in [1, L + 1 = {}]",
            ring.q_len()
        ));
    }
    let (k, r2) = (ring.p_len(), shape.columns - 1);
    let digits = shape.ks.key_digits(width);
    let terms = shape.inputs * digits;
    r.charge_vec::<Vec<Poly>>(terms + shape.inputs, &format!("the {what}'s rows"))?;
    r.charge_vec::<Poly>(terms * shape.columns, &format!("the {what}'s polynomials"))?;
    let mut rows = Vec::with_capacity(shape.inputs);
    for j in 0..shape.inputs {
        let mut row = Vec::with_capacity(digits);
        for i in 0..digits {
            let b = Poly::read_body(r, ring)?;
            if b.form() != Form::Ntt || b.q_limbs() != width || b.p_limbs() != k {
                return err(format!(
                    "{what}: input {j}, digit {i} has {} chain and {} special limbs in {:?} \
                     form; expected {width} and {k} in NTT form",
                    b.q_limbs(),
                    b.p_limbs(),
                    b.form()
                ));
            }
            r.charge_vec::<u64>(
                b.data().len() * r2,
                &format!("expanding the {what}'s a parts from its seed"),
            )?;
            let mut cols = Vec::with_capacity(shape.columns);
            cols.push(b);
            cols.extend((0..r2).map(|t| {
                expand_uniform(
                    ring,
                    &seed,
                    module_key_stream(j, i, digits, r2, t),
                    width,
                    k,
                )
            }));
            row.push(cols);
        }
        rows.push(row);
    }
    Ok(ModuleKey {
        ring_id: ring.fingerprint(),
        rows,
        seed,
    })
}

/// DPad-HE's context, or an error naming `what` (which needs it).
fn dpad_of<'a>(ctx: &'a MlweContext, what: &str) -> Result<&'a super::DpadContext> {
    ctx.dpad().ok_or_else(|| {
        Error::ParameterMismatch(format!(
            "{what} needs DPad-HE, and this MLWE context has none"
        ))
    })
}
