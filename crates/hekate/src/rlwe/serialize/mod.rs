//! The encodings of the ring- and RLWE-level types: [`Poly`], [`SecretKey`],
//! [`PublicKey`] and [`HybridKey`] (tags 1–4; layouts in the module documentation of
//! [`crate::serialize`]), and the shared pieces other schemes' codecs build on (residue
//! widths, secret coefficients, the ring-identity check; the chain fields of parameter
//! bodies in `chain`; the ciphertext parts in `ciphertext`; the evaluation-key bodies in
//! `keys`).

pub(crate) mod chain;
mod ciphertext;
mod keys;

pub(crate) use ciphertext::{
    read_ct_head, read_ct_parts, read_message_poly, write_ct_head, write_ct_parts,
};
pub(crate) use keys::{
    check_galois_keys_writable, check_key_writable, check_relinearization_key_writable,
    read_galois_keys, read_relinearization_key, read_switching_key, write_galois_keys,
    write_switching_key,
};

use crate::math::sample::Seed;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::keys::expand_uniform;
use crate::rlwe::{HybridKey, PublicKey, SecretKey};
use crate::serialize::{
    err, packed_len, Deserialize, ObjectTag, Reader, Serialize, TagBlock, Writer, MAX_LIMBS, MAX_N,
};
use crate::{Error, Result};
use zeroize::Zeroize;

/// The ring and RLWE block of object tags, `0x0001..=0x000F`.
pub(crate) const TAGS: TagBlock = TagBlock {
    scheme: "ring and RLWE",
    first: 0x0001,
    last: 0x000F,
    tags: &[
        <Poly as Serialize>::TAG,
        <SecretKey as Serialize>::TAG,
        <PublicKey as Serialize>::TAG,
        <HybridKey as Serialize>::TAG,
    ],
};

/// Bits per residue modulo `q`: the bit length of `q - 1`, i.e. `ceil(log2 q)`.
pub(crate) fn residue_width(q: u64) -> u32 {
    (64 - (q - 1).leading_zeros()).max(1)
}

/// Reads a ring degree and checks it against the format cap and the context.
fn read_degree(r: &mut Reader<'_>, ctx: &RingContext, what: &str) -> Result<usize> {
    let n = r.read_u32(what)? as usize;
    if n > MAX_N || !n.is_power_of_two() {
        return err(format!(
            "{what}: ring degree {n} is not a power of two <= 2^17"
        ));
    }
    if n != ctx.n() {
        return err(format!(
            "{what}: ring degree {n} differs from the context's N = {}",
            ctx.n()
        ));
    }
    Ok(n)
}

impl Serialize for Poly {
    type Context = RingContext;
    const TAG: ObjectTag = ObjectTag::new(1, "polynomial");

    /// A polynomial of `ctx`'s ring with reduced residues ([`RingContext::check_poly`]).
    fn check_writable(&self, ctx: &RingContext) -> Result<()> {
        ctx.check_poly(self, "polynomial")
    }

    fn write_body(&self, w: &mut Writer, ctx: &RingContext) {
        let (n, ql, pl) = (self.n(), self.q_limbs(), self.p_limbs());
        debug_assert!(n == ctx.n() && ql <= ctx.q_len() && pl <= ctx.p_len());
        w.write_u32(n as u32);
        w.write_u16(ql as u16);
        w.write_u16(pl as u16);
        w.write_u8(match self.form() {
            Form::Coeff => 0,
            Form::Ntt => 1,
        });
        for (i, limb) in self.limbs().enumerate() {
            let q = ctx.modulus(i, ql).value();
            w.write_bits(limb, residue_width(q));
        }
    }
}

impl Deserialize for Poly {
    fn read_body(r: &mut Reader<'_>, ctx: &RingContext) -> Result<Self> {
        let n = read_degree(r, ctx, "polynomial")?;
        let ql = r.read_u16("polynomial chain limb count")? as usize;
        let pl = r.read_u16("polynomial special limb count")? as usize;
        if ql > MAX_LIMBS || pl > MAX_LIMBS {
            return err(format!(
                "polynomial limb counts {ql} + {pl} exceed the format's cap of {MAX_LIMBS}"
            ));
        }
        if ql > ctx.q_len() || pl > ctx.p_len() {
            return err(format!(
                "polynomial has {ql} chain and {pl} special limbs, but the context has only {} and {}",
                ctx.q_len(),
                ctx.p_len()
            ));
        }
        let form = match r.read_u8("polynomial form")? {
            0 => Form::Coeff,
            1 => Form::Ntt,
            f => {
                return err(format!(
                    "invalid polynomial form tag {f} (0 coefficient, 1 NTT)"
                ))
            }
        };
        let limbs = ql + pl;
        // The residues unpacked into words (and the widths), charged before either.
        r.charge_vec::<u64>(n * limbs, "a polynomial's residues")?;
        r.charge_vec::<u32>(limbs, "a polynomial's residue widths")?;
        let widths: Vec<u32> = (0..limbs)
            .map(|i| residue_width(ctx.modulus(i, ql).value()))
            .collect();
        // n <= 2^17, widths <= 64, limbs <= 512: no overflow.
        let total: usize = widths
            .iter()
            .map(|&w| packed_len(n, w).unwrap_or(usize::MAX))
            .fold(0, usize::saturating_add);
        r.require(total, "polynomial data")?;
        let mut data = vec![0u64; n * limbs];
        for (i, (limb, &width)) in data.chunks_exact_mut(n).zip(&widths).enumerate() {
            r.read_bits(limb, width, "polynomial data")?;
            let q = ctx.modulus(i, ql).value();
            if let Some(j) = limb.iter().position(|&x| x >= q) {
                return err(format!(
                    "polynomial residue {} at limb {i}, index {j} is not below its modulus {q}",
                    limb[j]
                ));
            }
        }
        Ok(Poly::from_raw(n, ql, pl, form, data))
    }
}

/// Secret-key coefficient encodings (see the module documentation).
const SK_TERNARY: u8 = 0;
const SK_I8: u8 = 1;
const SK_I64: u8 = 2;

impl Serialize for SecretKey {
    type Context = RingContext;
    const TAG: ObjectTag = ObjectTag::new(2, "secret key");

    /// A secret of `ctx`'s ring.
    fn check_writable(&self, ctx: &RingContext) -> Result<()> {
        check_ring_id(self.ring_id(), ctx, "secret key")
    }

    fn write_body(&self, w: &mut Writer, ctx: &RingContext) {
        let s = self.coeffs();
        debug_assert_eq!(s.len(), ctx.n());
        w.write_u32(s.len() as u32);
        write_small_coeffs(w, s);
    }
}

impl Deserialize for SecretKey {
    fn read_body(r: &mut Reader<'_>, ctx: &RingContext) -> Result<Self> {
        let n = read_degree(r, ctx, "secret key")?;
        let coeffs = read_small_coeffs(r, n, "secret key")?;
        // The key's NTT form over all of `Q ∪ P`, recomputed here.
        r.charge_vec::<u64>(n * (ctx.q_len() + ctx.p_len()), "the secret key's NTT form")?;
        Ok(SecretKey::from_coeffs(ctx, coeffs))
    }
}

/// Writes the coefficients of a secret (small integers): the encoding byte, then the
/// coefficients in the first encoding that fits (ternary, `i8`, `i64`; see the module
/// documentation). The length is not written.
pub(crate) fn write_small_coeffs(w: &mut Writer, s: &[i64]) {
    if s.iter().all(|c| (-1..=1).contains(c)) {
        w.write_u8(SK_TERNARY);
        let mut codes: Vec<u64> = s
            .iter()
            .map(|&c| match c {
                0 => 0,
                1 => 1,
                _ => 2,
            })
            .collect();
        w.write_bits(&codes, 2);
        codes.zeroize();
    } else if s.iter().all(|&c| i8::try_from(c).is_ok()) {
        w.write_u8(SK_I8);
        let mut bytes: Vec<u8> = s.iter().map(|&c| c as i8 as u8).collect();
        w.write_bytes(&bytes);
        bytes.zeroize();
    } else {
        w.write_u8(SK_I64);
        w.reserve(8 * s.len());
        for &c in s {
            w.write_u64(c as u64);
        }
    }
}

/// Reads `n` secret coefficients written by [`write_small_coeffs`], refusing every
/// encoding but the first that fits; `what` names the key in messages. The coefficients
/// (and the unpacked ternary codes) are charged to the reader's budget first.
pub(crate) fn read_small_coeffs(r: &mut Reader<'_>, n: usize, what: &str) -> Result<Vec<i64>> {
    let encoding = r.read_u8(&format!("{what} encoding"))?;
    let coeffs_what = format!("the {what}'s coefficients");
    Ok(match encoding {
        SK_TERNARY => {
            let field = format!("ternary {what} coefficients");
            r.require(n.div_ceil(4), &field)?;
            r.charge_vec::<u64>(n, &field)?;
            r.charge_vec::<i64>(n, &coeffs_what)?;
            let mut codes = vec![0u64; n];
            let read = r.read_bits(&mut codes, 2, &field);
            let bad = codes.iter().position(|&c| c == 3);
            let coeffs: Vec<i64> = codes.iter().map(|&c| [0, 1, -1, 0][c as usize]).collect();
            codes.zeroize();
            read?;
            if let Some(j) = bad {
                return err(format!(
                    "invalid ternary code 0b11 for {what} coefficient {j}"
                ));
            }
            coeffs
        }
        SK_I8 => {
            let bytes = r.read_bytes(n, &format!("i8 {what} coefficients"))?;
            r.charge_vec::<i64>(n, &coeffs_what)?;
            let mut coeffs: Vec<i64> = bytes.iter().map(|&b| i64::from(b as i8)).collect();
            if coeffs.iter().all(|c| (-1..=1).contains(c)) {
                coeffs.zeroize();
                return err(format!(
                    "non-canonical {what}: i8 encoding of a ternary key (expected encoding 0)"
                ));
            }
            coeffs
        }
        SK_I64 => {
            let len = n
                .checked_mul(8)
                .ok_or_else(|| Error::Deserialize(format!("length of the {what} overflows")))?;
            let bytes = r.read_bytes(len, &format!("i64 {what} coefficients"))?;
            r.charge_vec::<i64>(n, &coeffs_what)?;
            let mut coeffs: Vec<i64> = bytes
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect();
            if coeffs.iter().all(|&c| i8::try_from(c).is_ok()) {
                coeffs.zeroize();
                return err(format!(
                    "non-canonical {what}: i64 encoding of coefficients that fit in i8 \
                     (expected encoding 0 or 1)"
                ));
            }
            coeffs
        }
        e => {
            return err(format!(
                "unknown {what} encoding {e} (0 ternary, 1 i8, 2 i64)"
            ))
        }
    })
}

/// An error unless `ring_id` is `ctx`'s fingerprint.
pub(crate) fn check_ring_id(ring_id: u64, ctx: &RingContext, what: &str) -> Result<()> {
    if ring_id != ctx.fingerprint() {
        return Err(Error::ParameterMismatch(format!(
            "the {what} belongs to another ring (fingerprint {ring_id:#018x}; this context's \
             is {:#018x}): write it with the context it was made under",
            ctx.fingerprint()
        )));
    }
    Ok(())
}

/// `(b, a)` over all of `Q ∪ P`, NTT form, reduced: the shape readers require.
fn check_full_pair(b: &Poly, a: &Poly, ctx: &RingContext, what: &str) -> Result<()> {
    check_pair_at(b, a, ctx.q_len(), ctx, what)
}

/// `(b, a)` over `Q_{q_limbs-1} ∪ P` (every special limb), NTT form, reduced.
fn check_pair_at(b: &Poly, a: &Poly, q_limbs: usize, ctx: &RingContext, what: &str) -> Result<()> {
    for p in [b, a] {
        ctx.check_poly(p, what)?;
        if p.q_limbs() != q_limbs || p.p_limbs() != ctx.p_len() || p.form() != Form::Ntt {
            return Err(Error::ParameterMismatch(format!(
                "{what}: {} chain and {} special limbs ({:?} form); expected {q_limbs} and \
                 all {} in NTT form",
                p.q_limbs(),
                p.p_limbs(),
                p.form(),
                ctx.p_len()
            )));
        }
    }
    Ok(())
}

/// Reads the `b` of a seed-compressed pair and re-expands `a` from `(seed, stream)`.
fn read_compressed_pair(
    r: &mut Reader<'_>,
    ctx: &RingContext,
    seed: &Seed,
    stream: u64,
    what: &str,
) -> Result<[Poly; 2]> {
    let b = Poly::read_body(r, ctx)?;
    if b.form() != Form::Ntt {
        return err(format!("{what}: b must be in NTT form"));
    }
    if b.p_limbs() != 0 && b.p_limbs() != ctx.p_len() {
        return err(format!(
            "{what}: b has {} special limbs; expected 0 or all {}",
            b.p_limbs(),
            ctx.p_len()
        ));
    }
    // `a`, expanded from the seed: as large as `b`, from 32 bytes.
    r.charge_vec::<u64>(
        b.data().len(),
        &format!("expanding {what}'s a from its seed"),
    )?;
    let a = expand_uniform(ctx, seed, stream, b.q_limbs(), b.p_limbs());
    Ok([b, a])
}

impl Serialize for PublicKey {
    type Context = RingContext;
    const TAG: ObjectTag = ObjectTag::new(3, "public key");

    /// A public key of `ctx`'s ring with its full shape.
    fn check_writable(&self, ctx: &RingContext) -> Result<()> {
        check_ring_id(self.ring_id, ctx, "public key")?;
        check_full_pair(&self.b, &self.a, ctx, "public key")
    }

    fn write_body(&self, w: &mut Writer, ctx: &RingContext) {
        debug_assert!(
            self.a.q_limbs() == self.b.q_limbs() && self.a.p_limbs() == self.b.p_limbs(),
            "a and b of a public key have different shapes"
        );
        w.write_bytes(&self.seed);
        self.b.write_body(w, ctx);
    }
}

impl Deserialize for PublicKey {
    fn read_body(r: &mut Reader<'_>, ctx: &RingContext) -> Result<Self> {
        let seed: Seed = r.read_array("public key seed")?;
        let [b, a] = read_compressed_pair(r, ctx, &seed, 0, "public key")?;
        // Encryption restricts the key to any level: it needs all of `Q ∪ P`.
        if b.q_limbs() != ctx.q_len() || b.p_limbs() != ctx.p_len() {
            return err(format!(
                "public key has {} chain and {} special limbs; a public key has all {} and {}",
                b.q_limbs(),
                b.p_limbs(),
                ctx.q_len(),
                ctx.p_len()
            ));
        }
        Ok(PublicKey {
            ring_id: ctx.fingerprint(),
            b,
            a,
            seed,
        })
    }
}

impl Serialize for HybridKey {
    type Context = RingContext;
    const TAG: ObjectTag = ObjectTag::new(4, "hybrid switching key");

    /// A key of `ctx`'s ring of some width `w` (its chain limbs, `1..=L + 1`): at most
    /// `w` digits, each a pair over `Q_{w-1} ∪ P`.
    fn check_writable(&self, ctx: &RingContext) -> Result<()> {
        check_ring_id(self.ring_id, ctx, "hybrid switching key")?;
        let w = self.q_limbs();
        if self.digits.is_empty() || w == 0 || self.digits.len() > w {
            return Err(Error::ParameterMismatch(format!(
                "hybrid switching key with {} digits of {w} chain limbs",
                self.digits.len()
            )));
        }
        for [b, a] in &self.digits {
            check_pair_at(b, a, w, ctx, "hybrid switching key digit")?;
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &RingContext) {
        w.write_bytes(&self.seed);
        w.write_u16(self.digits.len() as u16);
        for [b, a] in &self.digits {
            debug_assert!(
                a.q_limbs() == b.q_limbs() && a.p_limbs() == b.p_limbs(),
                "a and b of a switching-key digit have different shapes"
            );
            b.write_body(w, ctx);
        }
    }
}

impl Deserialize for HybridKey {
    fn read_body(r: &mut Reader<'_>, ctx: &RingContext) -> Result<Self> {
        let seed: Seed = r.read_array("hybrid key seed")?;
        let dnum = r.read_u16("hybrid key digit count")? as usize;
        if dnum == 0 || dnum > ctx.q_len() {
            return err(format!(
                "hybrid key digit count {dnum} is not in [1, L + 1 = {}]",
                ctx.q_len()
            ));
        }
        r.charge_vec::<[Poly; 2]>(dnum, "the hybrid key's digits")?;
        // The key's width `w` (levels <= w - 1) is the chain limb count of its digits:
        // the first digit's, which every other must repeat.
        let mut width = 0;
        let digits = (0..dnum)
            .map(|j| {
                let [b, a] = read_compressed_pair(r, ctx, &seed, j as u64, "hybrid key digit")?;
                if j == 0 {
                    width = b.q_limbs();
                }
                // Key switching extends its input to `Q_l ∪ P`: every digit needs all of
                // `P` and the key's width of the chain, at least one limb per digit.
                if b.q_limbs() != width || b.p_limbs() != ctx.p_len() || width < dnum {
                    return err(format!(
                        "hybrid key digit {j} has {} chain and {} special limbs; a switching \
                         key has all {} special limbs and the same chain limbs in every digit, \
                         at least one per digit ({dnum}; the first digit has {width})",
                        b.q_limbs(),
                        b.p_limbs(),
                        ctx.p_len()
                    ));
                }
                Ok([b, a])
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(HybridKey {
            ring_id: ctx.fingerprint(),
            digits,
            seed,
        })
    }
}
