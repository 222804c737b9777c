//! The encodings of the MLWE-CKKS types (tags `0x0200..=0x02FF`; layouts in the module
//! documentation of [`crate::serialize`]): the parameters (self-contained, in `params`),
//! ciphertexts, the vector secret key, the public key, the relinearization keys (ModHE
//! and DPad-HE), rank-reduction keys and the plain and rank-hoisted rotation keys.
//!
//! Every object but the parameters is read under an [`MlweContext`], whose fingerprint
//! ([`MlweContext::fingerprint`]) covers the ring, the rank, `d` and DPad-HE's settings.
//! The pieces are the shared ones: `Poly` bodies, the secret-coefficient encoding of
//! `SecretKey`, CKKS's scale and slot count; switching keys ([`ModuleKey`]) are written
//! seed-compressed, their uniform parts re-expanded on read as the RLWE keys' are.

mod params;

pub use params::{mlwe_context_from_bytes, mlwe_context_from_bytes_with, mlwe_context_to_bytes};

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

// ---------------------------------------------------------------------------------------
// Ciphertext

impl Serialize for Ciphertext {
    type Context = MlweContext;
    const TAG: ObjectTag = ObjectTag::new(0x0201, "MLWE ciphertext");

    /// A ciphertext of `ctx` with a usable shape, reduced residues, and a scale the format
    /// holds. One with a [seed](Ciphertext::seed) whose expansions are its `a` parts is
    /// written seed-compressed.
    fn check_writable(&self, ctx: &MlweContext) -> Result<()> {
        ctx.check_ciphertext(self)?;
        for p in &self.parts {
            ctx.ring().check_poly(p, "MLWE ciphertext part")?;
        }
        check_scale_writable(&self.scale)
    }

    fn write_body(&self, w: &mut Writer, ctx: &MlweContext) {
        let seed = seed_of(self, ctx.ring());
        w.write_u8(self.rank as u8);
        w.write_u8(match (self.is_quadratic(), seed.is_some()) {
            (true, _) => CT_QUADRATIC,
            (false, false) => CT_LINEAR,
            (false, true) => CT_SEEDED,
        });
        write_scale(w, &self.scale);
        w.write_u32(self.slots as u32);
        match seed {
            Some(seed) => {
                w.write_bytes(seed);
                self.parts[0].write_body(w, ctx.ring());
            }
            None => {
                for p in &self.parts {
                    p.write_body(w, ctx.ring());
                }
            }
        }
    }
}

/// Ciphertext forms: every part of a linear ciphertext, every part with the quadratic
/// ones, or `b` and the seed of `a_1 .. a_r'` (a fresh secret-key encryption).
const CT_LINEAR: u8 = 0;
const CT_QUADRATIC: u8 = 1;
const CT_SEEDED: u8 = 2;

/// The seed a linear ciphertext is written with: its own, when its `a` parts are that
/// seed's expansions (`expand_uniform(ring, seed, t, l + 1, 0)` for `a_{t+1}`, as
/// secret-key encryption draws them; every operation clears the seed, so this holds for
/// every ciphertext that has one).
fn seed_of<'a>(ct: &'a Ciphertext, ring: &RingContext) -> Option<&'a Seed> {
    let seed = ct.seed.as_ref().filter(|_| !ct.is_quadratic())?;
    let ql = ct.parts[0].q_limbs();
    ct.parts[1..]
        .iter()
        .enumerate()
        .all(|(t, a)| *a == expand_uniform(ring, seed, t as u64, ql, 0))
        .then_some(seed)
}

impl Deserialize for Ciphertext {
    fn read_body(r: &mut Reader<'_>, ctx: &MlweContext) -> Result<Self> {
        let rank = r.read_u8("MLWE ciphertext rank")? as usize;
        let top = ctx.rank_hat().unwrap_or(ctx.rank());
        if rank == 0 || rank > top {
            return err(format!(
                "MLWE ciphertext rank {rank} is not in [1, {top}] (r = {}{})",
                ctx.rank(),
                if ctx.rank_hat().is_some() {
                    ", r̂ while rank-hoisted"
                } else {
                    ""
                }
            ));
        }
        let form = r.read_u8("MLWE ciphertext form")?;
        if !matches!(form, CT_LINEAR | CT_QUADRATIC | CT_SEEDED) {
            return err(format!(
                "MLWE ciphertext form {form} is not 0 (linear), 1 (quadratic, after a \
                 product) or 2 (seed-compressed)"
            ));
        }
        let scale = read_scale(r)?;
        let slots = read_slots(r, ctx.n(), "MLWE ciphertext slot count")?;
        let ring = ctx.ring();
        if form == CT_SEEDED {
            let seed: Seed = r.read_array("MLWE ciphertext seed")?;
            let b = read_message_poly(r, ring, "MLWE ciphertext part 0")?;
            let ql = b.q_limbs();
            r.charge_vec::<Poly>(1 + rank, "the MLWE ciphertext's parts")?;
            r.charge_vec::<u64>(
                b.data().len() * rank,
                "expanding the MLWE ciphertext's a parts from its seed",
            )?;
            let mut parts = Vec::with_capacity(1 + rank);
            parts.push(b);
            parts.extend((0..rank).map(|t| expand_uniform(ring, &seed, t as u64, ql, 0)));
            let mut ct = ctx
                .ciphertext_from_parts(rank, parts, scale, slots)
                .map_err(|e| deserialize_error("MLWE ciphertext", e))?;
            ct.seed = Some(seed);
            return Ok(ct);
        }
        let count = 1
            + rank
            + if form == CT_QUADRATIC {
                quadratic_terms(rank)
            } else {
                0
            };
        r.charge_vec::<Poly>(count, "the MLWE ciphertext's parts")?;
        let mut parts: Vec<Poly> = Vec::with_capacity(count);
        for i in 0..count {
            let p = read_message_poly(r, ring, &format!("MLWE ciphertext part {i}"))?;
            if i > 0 && p.q_limbs() != parts[0].q_limbs() {
                return err(format!(
                    "MLWE ciphertext part {i} has {} chain limbs, part 0 has {}",
                    p.q_limbs(),
                    parts[0].q_limbs()
                ));
            }
            parts.push(p);
        }
        ctx.ciphertext_from_parts(rank, parts, scale, slots)
            .map_err(|e| deserialize_error("MLWE ciphertext", e))
    }
}

// ---------------------------------------------------------------------------------------
// Secret and public keys

impl Serialize for SecretKey {
    type Context = MlweContext;
    const TAG: ObjectTag = ObjectTag::new(0x0202, "MLWE secret key");

    /// A key of `ctx`: its ring, `r̂` components (`r` without DPad-HE) over `Q ∪ P` and,
    /// with DPad-HE, the same over `Q ∪ P̂`.
    fn check_writable(&self, ctx: &MlweContext) -> Result<()> {
        let count = ctx.rank_hat().unwrap_or(ctx.rank());
        let hat_ring = ctx.dpad().map(|d| d.ring().fingerprint());
        let ok = self.ring_id == ctx.ring().fingerprint()
            && self.parts.len() == count
            && self
                .parts
                .iter()
                .all(|s| s.ring_id() == ctx.ring().fingerprint())
            && match hat_ring {
                None => self.parts_hat.is_empty(),
                Some(h) => {
                    self.parts_hat.len() == count && self.parts_hat.iter().all(|s| s.ring_id() == h)
                }
            };
        if !ok {
            return Err(Error::ParameterMismatch(format!(
                "the MLWE secret key (ring {:#018x}, {} components) belongs to another context \
                 (ring {:#018x}, {count} components): write it with the context it was made under",
                self.ring_id,
                self.parts.len(),
                ctx.ring().fingerprint()
            )));
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &MlweContext) {
        w.write_u32(ctx.n() as u32);
        w.write_u16(self.parts.len() as u16);
        for s in &self.parts {
            write_small_coeffs(w, s.coeffs());
        }
    }
}

impl Deserialize for SecretKey {
    fn read_body(r: &mut Reader<'_>, ctx: &MlweContext) -> Result<Self> {
        let n = r.read_u32("MLWE secret key degree")? as usize;
        if n != ctx.n() {
            return err(format!(
                "MLWE secret key: ring degree {n} differs from the context's n = {}",
                ctx.n()
            ));
        }
        let count = r.read_u16("MLWE secret key component count")? as usize;
        let want = ctx.rank_hat().unwrap_or(ctx.rank());
        if count != want {
            return err(format!(
                "MLWE secret key has {count} components; this context's keys have {want} \
                 (r̂ with DPad-HE, r otherwise)"
            ));
        }
        let ring = ctx.ring();
        let hat = ctx.dpad().map(|d| d.ring());
        r.charge_vec::<RingSecret>(2 * count, "the MLWE secret key's components")?;
        let mut parts = Vec::with_capacity(count);
        let mut parts_hat = Vec::with_capacity(if hat.is_some() { count } else { 0 });
        for _ in 0..count {
            let coeffs = read_small_coeffs(r, n, "MLWE secret key component")?;
            // Each component's NTT form over all of `Q ∪ P` (and, with DPad-HE, a copy of
            // the coefficients and the NTT form over `Q ∪ P̂`), recomputed here.
            r.charge_vec::<u64>(
                n * (ring.q_len() + ring.p_len()),
                "the MLWE secret key's NTT form",
            )?;
            if let Some(h) = hat {
                r.charge_vec::<u64>(
                    n * (1 + h.q_len() + h.p_len()),
                    "the MLWE secret key's components over Q ∪ P̂",
                )?;
                parts_hat.push(RingSecret::from_coeffs(h, coeffs.clone()));
            }
            parts.push(RingSecret::from_coeffs(ring, coeffs));
        }
        Ok(SecretKey {
            ring_id: ring.fingerprint(),
            parts,
            parts_hat,
        })
    }
}

impl Serialize for PublicKey {
    type Context = MlweContext;
    const TAG: ObjectTag = ObjectTag::new(0x0203, "MLWE public key");

    /// A key of `ctx`: `r` rows of `1 + r` polynomials over all of `Q ∪ P` in NTT form,
    /// reduced.
    fn check_writable(&self, ctx: &MlweContext) -> Result<()> {
        let ring = ctx.ring();
        let r = ctx.rank();
        let bad = |m: String| Err(Error::ParameterMismatch(format!("MLWE public key: {m}")));
        if self.ring_id != ring.fingerprint() {
            return bad(format!(
                "it belongs to ring {:#018x}, this context's is {:#018x}",
                self.ring_id,
                ring.fingerprint()
            ));
        }
        if self.rows.len() != r || self.rows.iter().any(|row| row.len() != 1 + r) {
            return bad(format!("expected {r} rows of {} polynomials", 1 + r));
        }
        for p in self.rows.iter().flatten() {
            ring.check_poly(p, "MLWE public key")?;
            if p.q_limbs() != ring.q_len() || p.p_limbs() != ring.p_len() || p.form() != Form::Ntt {
                return bad(format!(
                    "a polynomial has {} chain and {} special limbs in {:?} form; expected all \
                     {} and {} in NTT form",
                    p.q_limbs(),
                    p.p_limbs(),
                    p.form(),
                    ring.q_len(),
                    ring.p_len()
                ));
            }
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &MlweContext) {
        let (ring, r) = (ctx.ring(), ctx.rank());
        w.write_bytes(&self.seed);
        for (k, row) in self.rows.iter().enumerate() {
            debug_assert!(
                row[1..].iter().enumerate().all(|(t, a)| {
                    *a == expand_uniform(
                        ring,
                        &self.seed,
                        (k * r + t) as u64,
                        ring.q_len(),
                        ring.p_len(),
                    )
                }),
                "MLWE public key whose a parts are not the expansion of its seed"
            );
            row[0].write_body(w, ring);
        }
    }
}

impl Deserialize for PublicKey {
    fn read_body(r: &mut Reader<'_>, ctx: &MlweContext) -> Result<Self> {
        let (ring, rank) = (ctx.ring(), ctx.rank());
        let (ql, k) = (ring.q_len(), ring.p_len());
        let seed: Seed = r.read_array("MLWE public key seed")?;
        r.charge_vec::<Vec<Poly>>(rank, "the MLWE public key's rows")?;
        r.charge_vec::<Poly>(rank * (1 + rank), "the MLWE public key's polynomials")?;
        let mut rows = Vec::with_capacity(rank);
        for row in 0..rank {
            let b = Poly::read_body(r, ring)?;
            if b.form() != Form::Ntt || b.q_limbs() != ql || b.p_limbs() != k {
                return err(format!(
                    "MLWE public key row {row} has {} chain and {} special limbs in {:?} form; \
                     a public key has all {ql} and {k} in NTT form",
                    b.q_limbs(),
                    b.p_limbs(),
                    b.form()
                ));
            }
            r.charge_vec::<u64>(
                b.data().len() * rank,
                "expanding the MLWE public key's a parts from its seed",
            )?;
            let mut cols = Vec::with_capacity(1 + rank);
            cols.push(b);
            cols.extend(
                (0..rank).map(|t| expand_uniform(ring, &seed, (row * rank + t) as u64, ql, k)),
            );
            rows.push(cols);
        }
        Ok(PublicKey {
            ring_id: ring.fingerprint(),
            rows,
            seed,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Relinearization, rank-reduction and rotation keys

/// Method codes of a relinearization key body.
const RELIN_MODHE: u8 = 0;
const RELIN_DPAD: u8 = 1;

/// The shapes of a relinearization key for rank `rank`: ModHE's key, or DPad-HE's
/// `(crk, rdk)`.
fn relin_shapes(
    ctx: &MlweContext,
    rank: usize,
    dpad: bool,
) -> Result<(KeyShape<'_>, Option<KeyShape<'_>>)> {
    let inputs = quadratic_terms(rank);
    if !dpad {
        return Ok((
            KeyShape {
                ks: ctx.keyswitcher(),
                inputs,
                columns: 1 + rank,
            },
            None,
        ));
    }
    let d = dpad_of(ctx, "a DPad-HE relinearization key")?;
    let extra = d.rank_hat() - ctx.rank();
    Ok((
        KeyShape {
            ks: d.keyswitcher(),
            inputs,
            columns: 1 + rank + extra,
        },
        Some(KeyShape {
            ks: ctx.keyswitcher(),
            inputs: extra,
            columns: 1 + rank,
        }),
    ))
}

impl Serialize for RelinearizationKey {
    type Context = MlweContext;
    const TAG: ObjectTag = ObjectTag::new(0x0204, "MLWE relinearization key");

    /// A key of `ctx` for a rank in `[1, r]`: ModHE's module key, or DPad-HE's pair (of
    /// one width) under a context with DPad-HE, each of the shape the context generates.
    fn check_writable(&self, ctx: &MlweContext) -> Result<()> {
        let rank = self.rank();
        if rank == 0 || rank > ctx.rank() {
            return Err(Error::ParameterMismatch(format!(
                "MLWE relinearization key for rank {rank}; this context's ranks are 1 to {}",
                ctx.rank()
            )));
        }
        match self {
            RelinearizationKey::ModHe(key) => {
                let (shape, _) = relin_shapes(ctx, rank, false)?;
                check_module_key_writable(key, &shape, "MLWE ModHE relinearization key")
            }
            RelinearizationKey::DPad { crk, rdk } => {
                let (crk_shape, rdk_shape) = relin_shapes(ctx, rank, true)?;
                let rdk_shape = rdk_shape.expect("DPad-HE shapes");
                check_module_key_writable(crk, &crk_shape, "MLWE DPad-HE key crk")?;
                check_module_key_writable(rdk, &rdk_shape, "MLWE DPad-HE key rdk")?;
                if crk.q_limbs() != rdk.q_limbs() {
                    return Err(Error::ParameterMismatch(format!(
                        "MLWE DPad-HE relinearization key with crk over {} and rdk over {} \
                         chain limbs; both have one width",
                        crk.q_limbs(),
                        rdk.q_limbs()
                    )));
                }
                Ok(())
            }
        }
    }

    fn write_body(&self, w: &mut Writer, ctx: &MlweContext) {
        match self {
            RelinearizationKey::ModHe(key) => {
                w.write_u8(RELIN_MODHE);
                w.write_u8(self.rank() as u8);
                write_module_key(w, key, ctx.ring());
            }
            RelinearizationKey::DPad { crk, rdk } => {
                w.write_u8(RELIN_DPAD);
                w.write_u8(self.rank() as u8);
                let hat = ctx.dpad().expect("checked: DPad-HE context").ring();
                write_module_key(w, crk, hat);
                write_module_key(w, rdk, ctx.ring());
            }
        }
    }
}

impl Deserialize for RelinearizationKey {
    fn read_body(r: &mut Reader<'_>, ctx: &MlweContext) -> Result<Self> {
        let dpad = match r.read_u8("MLWE relinearization method")? {
            RELIN_MODHE => false,
            RELIN_DPAD => true,
            m => {
                return err(format!(
                    "unknown MLWE relinearization method {m} (0 ModHE, 1 DPad-HE)"
                ))
            }
        };
        let rank = r.read_u8("MLWE relinearization key rank")? as usize;
        if rank == 0 || rank > ctx.rank() {
            return err(format!(
                "MLWE relinearization key rank {rank} is not in [1, r = {}]",
                ctx.rank()
            ));
        }
        let (shape, rdk_shape) = relin_shapes(ctx, rank, dpad)
            .map_err(|e| deserialize_error("MLWE relinearization key", e))?;
        let key = match rdk_shape {
            None => RelinearizationKey::ModHe(read_module_key(
                r,
                &shape,
                "MLWE ModHE relinearization key",
            )?),
            Some(rdk_shape) => {
                let crk = read_module_key(r, &shape, "MLWE DPad-HE key crk")?;
                let rdk = read_module_key(r, &rdk_shape, "MLWE DPad-HE key rdk")?;
                if crk.q_limbs() != rdk.q_limbs() {
                    return err(format!(
                        "MLWE DPad-HE relinearization key with crk over {} and rdk over {} \
                         chain limbs; both have one width",
                        crk.q_limbs(),
                        rdk.q_limbs()
                    ));
                }
                RelinearizationKey::DPad { crk, rdk }
            }
        };
        // The (rank, level) pairs the context would generate keys for.
        ctx.check_rank_at(rank, key.q_limbs() - 1, dpad)
            .map_err(|e| deserialize_error("MLWE relinearization key", e))?;
        Ok(key)
    }
}

impl Serialize for RankReductionKey {
    type Context = MlweContext;
    const TAG: ObjectTag = ObjectTag::new(0x0205, "MLWE rank-reduction key");

    /// A key of `ctx` from rank `from` to `to` (`1 <= to < from <= r`), `from - to`
    /// inputs and `1 + to` columns.
    fn check_writable(&self, ctx: &MlweContext) -> Result<()> {
        if !(1 <= self.to && self.to < self.from && self.from <= ctx.rank()) {
            return Err(Error::ParameterMismatch(format!(
                "MLWE rank-reduction key from rank {} to {}: this context needs 1 <= to < \
                 from <= r = {}",
                self.from,
                self.to,
                ctx.rank()
            )));
        }
        let shape = KeyShape {
            ks: ctx.keyswitcher(),
            inputs: self.from - self.to,
            columns: 1 + self.to,
        };
        check_module_key_writable(&self.key, &shape, "MLWE rank-reduction key")
    }

    fn write_body(&self, w: &mut Writer, ctx: &MlweContext) {
        w.write_u8(self.from as u8);
        w.write_u8(self.to as u8);
        write_module_key(w, &self.key, ctx.ring());
    }
}

impl Deserialize for RankReductionKey {
    fn read_body(r: &mut Reader<'_>, ctx: &MlweContext) -> Result<Self> {
        let from = r.read_u8("MLWE rank-reduction source rank")? as usize;
        let to = r.read_u8("MLWE rank-reduction target rank")? as usize;
        if !(1 <= to && to < from && from <= ctx.rank()) {
            return err(format!(
                "MLWE rank-reduction key from rank {from} to {to}: need 1 <= to < from <= r = {}",
                ctx.rank()
            ));
        }
        let shape = KeyShape {
            ks: ctx.keyswitcher(),
            inputs: from - to,
            columns: 1 + to,
        };
        let key = read_module_key(r, &shape, "MLWE rank-reduction key")?;
        ctx.check_rank_at(to, key.q_limbs() - 1, false)
            .map_err(|e| deserialize_error("MLWE rank-reduction key", e))?;
        Ok(RankReductionKey { from, to, key })
    }
}

/// Reads a Galois element (`u32`) and checks it is odd and below `2n`.
fn read_galois(r: &mut Reader<'_>, n: usize, what: &str) -> Result<usize> {
    let g = r.read_u32(what)? as usize;
    if g.is_multiple_of(2) || g >= 2 * n {
        return err(format!(
            "{what} {g} is not an odd number below 2n = {}",
            2 * n
        ));
    }
    Ok(g)
}

/// An error unless `g` is odd and below `2n`.
fn check_galois_writable(g: usize, n: usize, what: &str) -> Result<()> {
    if g.is_multiple_of(2) || g >= 2 * n {
        return Err(Error::ParameterMismatch(format!(
            "{what}: Galois element {g} is not an odd number below 2n = {}",
            2 * n
        )));
    }
    Ok(())
}

/// The shape of a plain rotation key of `ctx`: `r` inputs, `1 + r` columns over `Q ∪ P`.
fn rotation_shape(ctx: &MlweContext) -> KeyShape<'_> {
    KeyShape {
        ks: ctx.keyswitcher(),
        inputs: ctx.rank(),
        columns: 1 + ctx.rank(),
    }
}

impl Serialize for RotationKey {
    type Context = MlweContext;
    const TAG: ObjectTag = ObjectTag::new(0x0206, "MLWE rotation key");

    /// A key of `ctx` for an odd Galois element below `2n`: `r` inputs, `1 + r` columns.
    fn check_writable(&self, ctx: &MlweContext) -> Result<()> {
        check_galois_writable(self.galois, ctx.n(), "MLWE rotation key")?;
        check_module_key_writable(&self.key, &rotation_shape(ctx), "MLWE rotation key")
    }

    fn write_body(&self, w: &mut Writer, ctx: &MlweContext) {
        w.write_u32(self.galois as u32);
        write_module_key(w, &self.key, ctx.ring());
    }
}

impl Deserialize for RotationKey {
    fn read_body(r: &mut Reader<'_>, ctx: &MlweContext) -> Result<Self> {
        let galois = read_galois(r, ctx.n(), "MLWE rotation key Galois element")?;
        let key = read_module_key(r, &rotation_shape(ctx), "MLWE rotation key")?;
        Ok(RotationKey { galois, key })
    }
}

/// The shapes of rank-hoisted rotation keys: the power-of-two keys (`r̂` inputs, `1 + r̂`
/// columns over `Q ∪ P̂`) and the rank-down key (`r̂ - r` inputs, `1 + r` columns over
/// `Q ∪ P`).
fn hoisted_shapes(ctx: &MlweContext) -> Result<(KeyShape<'_>, KeyShape<'_>)> {
    let d = dpad_of(ctx, "rank-hoisted rotation keys")?;
    Ok((
        KeyShape {
            ks: d.keyswitcher(),
            inputs: d.rank_hat(),
            columns: 1 + d.rank_hat(),
        },
        KeyShape {
            ks: ctx.keyswitcher(),
            inputs: d.rank_hat() - ctx.rank(),
            columns: 1 + ctx.rank(),
        },
    ))
}

impl Serialize for HoistedRotationKeys {
    type Context = MlweContext;
    const TAG: ObjectTag = ObjectTag::new(0x0207, "MLWE hoisted rotation keys");

    /// Keys of a DPad-HE context `ctx`: at most `n` power-of-two keys in strictly
    /// increasing order of their (odd, below `2n`) Galois elements, and the rank-down key.
    fn check_writable(&self, ctx: &MlweContext) -> Result<()> {
        let (key_shape, down_shape) = hoisted_shapes(ctx)?;
        if self.keys.len() > ctx.n() {
            return Err(Error::ParameterMismatch(format!(
                "{} hoisted rotation keys; there are only n = {} Galois elements",
                self.keys.len(),
                ctx.n()
            )));
        }
        for (i, (g, key)) in self.keys.iter().enumerate() {
            check_galois_writable(*g, ctx.n(), "MLWE hoisted rotation key")?;
            if i > 0 && self.keys[i - 1].0 >= *g {
                return Err(Error::ParameterMismatch(
                    "MLWE hoisted rotation keys are not in strictly increasing order of their \
                     Galois elements"
                        .into(),
                ));
            }
            check_module_key_writable(key, &key_shape, "MLWE hoisted rotation key")?;
        }
        check_module_key_writable(&self.rank_down, &down_shape, "MLWE rank-down key")
    }

    fn write_body(&self, w: &mut Writer, ctx: &MlweContext) {
        let hat = ctx.dpad().expect("checked: DPad-HE context").ring();
        w.write_u32(self.keys.len() as u32);
        for (g, key) in &self.keys {
            w.write_u32(*g as u32);
            write_module_key(w, key, hat);
        }
        write_module_key(w, &self.rank_down, ctx.ring());
    }
}

impl Deserialize for HoistedRotationKeys {
    fn read_body(r: &mut Reader<'_>, ctx: &MlweContext) -> Result<Self> {
        let (key_shape, down_shape) =
            hoisted_shapes(ctx).map_err(|e| deserialize_error("MLWE hoisted rotation keys", e))?;
        let count = r.read_u32("MLWE hoisted rotation key count")? as usize;
        if count > ctx.n() {
            return err(format!(
                "MLWE hoisted rotation key count {count} exceeds the n = {} Galois elements",
                ctx.n()
            ));
        }
        // Each key holds at least its element, seed and width.
        r.require(count * (4 + 32 + 2), "MLWE hoisted rotation keys")?;
        r.charge_vec::<(usize, ModuleKey)>(count, "the MLWE hoisted rotation key list")?;
        let mut keys: Vec<(usize, ModuleKey)> = Vec::with_capacity(count);
        for _ in 0..count {
            let g = read_galois(r, ctx.n(), "MLWE hoisted rotation key Galois element")?;
            if let Some(&(last, _)) = keys.last() {
                if g <= last {
                    return err(format!(
                        "MLWE hoisted rotation key Galois elements are not in strictly \
                         increasing order ({g} after {last})"
                    ));
                }
            }
            let key = read_module_key(r, &key_shape, "MLWE hoisted rotation key")?;
            keys.push((g, key));
        }
        let rank_down = read_module_key(r, &down_shape, "MLWE rank-down key")?;
        Ok(HoistedRotationKeys { keys, rank_down })
    }
}
