//! The encodings of the BFV/BGV objects (tags `0x0100..=0x0104`; layouts in the module
//! documentation of [`crate::serialize`]): the parameters (self-contained, in `params`),
//! plaintexts, ciphertexts, and the relinearization and Galois keys.
//!
//! Every object but the parameters is read under an [`IntegerContext`], whose
//! fingerprint ([`IntegerContext::fingerprint`]) mixes the ring's with `t`: a BFV/BGV
//! object is refused under a CKKS context, and under a context with another plaintext
//! modulus. BFV and BGV share the representation (a ciphertext of one is a ciphertext of
//! the other, see [the integer core](super)), so the scheme is part of the parameters
//! only.
//!
//! * **Secret and public keys** are ring-level objects: they are written and read under
//!   the context's ring, `sk.to_bytes(ctx.ring())` and
//!   `SecretKey::from_bytes(bytes, ctx.ring())` (tags 2, 3), as for CKKS.
//! * **Evaluation keys** have the same bodies as the CKKS ones (the `HybridKey` body of
//!   the relinearization key, the sorted Galois keys), written by one codec
//!   (`crate::rlwe::serialize`), but their own tags (259, 260) and the integer
//!   fingerprint. [`RelinearizationKey`] and [`GaloisKeys`] already implement
//!   [`Serialize`] with the CKKS context as their `Context` (an associated type: one per
//!   type), so they are written and read under an [`IntegerContext`] by its methods
//!   ([`IntegerContext::relinearization_key_to_bytes`],
//!   [`IntegerContext::relinearization_key_from_bytes`], ...) rather than by newtypes,
//!   which would make every user of the evaluator wrap and unwrap its keys. The methods
//!   follow the trait's protocol exactly (writability check, header, body; header check,
//!   body, no trailing bytes, the reader's [`ReadPolicy`]).

mod params;

pub use params::{
    integer_context_from_bytes, integer_context_from_bytes_with, integer_context_to_bytes,
};

use crate::rlwe::evaluation_keys::{GaloisKeys, RelinearizationKey};
use crate::rlwe::integer::{Ciphertext, IntegerContext, Plaintext};
use crate::rlwe::serialize::{
    check_galois_keys_writable, check_relinearization_key_writable, read_ct_head, read_ct_parts,
    read_galois_keys, read_relinearization_key, residue_width, write_ct_head, write_ct_parts,
    write_galois_keys, write_switching_key,
};
use crate::rlwe::RlweParameters;
use crate::serialize::{
    err, packed_len, Deserialize, ObjectTag, ParameterFingerprint, ReadPolicy, Reader, Serialize,
    TagBlock, Writer,
};
use crate::{Error, Result};

/// The BFV/BGV block of object tags, `0x0100..=0x01FF`.
pub(crate) const TAGS: TagBlock = TagBlock {
    scheme: "BFV/BGV",
    first: 0x0100,
    last: 0x01FF,
    tags: &[
        <IntegerContext as Serialize>::TAG,
        <Plaintext as Serialize>::TAG,
        <Ciphertext as Serialize>::TAG,
        <RelinearizationKey as IntegerKey>::TAG,
        <GaloisKeys as IntegerKey>::TAG,
    ],
};

/// The largest noise estimate a ciphertext's encoding holds, `log2 σ` in bits. A fresh
/// ciphertext's is about `log2(t σ)`; one of `2^16` bits is past every modulus the format
/// accepts (at most 256 primes below `2^62`) many times over, so no ciphertext that can
/// still decrypt is refused.
pub const MAX_NOISE_LOG2: f64 = 65536.0;

impl ParameterFingerprint for IntegerContext {
    /// [`IntegerContext::fingerprint`]: the ring's mixed with `t`.
    fn fingerprint(&self) -> u64 {
        IntegerContext::fingerprint(self)
    }
}

// ---------------------------------------------------------------------------------------
// Plaintext

impl Serialize for Plaintext {
    type Context = IntegerContext;
    const TAG: ObjectTag = ObjectTag::new(0x0101, "BFV/BGV plaintext");

    /// A plaintext of `ctx`'s `t` and `N` with reduced coefficients.
    fn check_writable(&self, ctx: &IntegerContext) -> Result<()> {
        ctx.check_plaintext(self)
    }

    fn write_body(&self, w: &mut Writer, ctx: &IntegerContext) {
        w.write_u32(self.coeffs.len() as u32);
        w.write_bits(&self.coeffs, residue_width(ctx.t()));
    }
}

impl Deserialize for Plaintext {
    fn read_body(r: &mut Reader<'_>, ctx: &IntegerContext) -> Result<Self> {
        let n = r.read_u32("plaintext degree")? as usize;
        if n != ctx.n() {
            return err(format!(
                "plaintext degree {n} differs from the context's N = {}",
                ctx.n()
            ));
        }
        let (t, width) = (ctx.t(), residue_width(ctx.t()));
        // n <= 2^17 and width <= 61: no overflow.
        r.require(
            packed_len(n, width).unwrap_or(usize::MAX),
            "plaintext coefficients",
        )?;
        r.charge_vec::<u64>(n, "a plaintext's coefficients")?;
        let mut coeffs = vec![0u64; n];
        r.read_bits(&mut coeffs, width, "plaintext coefficients")?;
        if let Some(j) = coeffs.iter().position(|&c| c >= t) {
            return err(format!(
                "plaintext coefficient {j} is {}, not below t = {t}",
                coeffs[j]
            ));
        }
        Plaintext::from_coefficients(ctx.plaintext_modulus(), coeffs)
            .map_err(|e| Error::Deserialize(format!("plaintext: {e}")))
    }
}

// ---------------------------------------------------------------------------------------
// Ciphertext

impl Serialize for Ciphertext {
    type Context = IntegerContext;
    const TAG: ObjectTag = ObjectTag::new(0x0102, "BFV/BGV ciphertext");

    /// A ciphertext of `ctx` with a usable shape and a noise estimate the format holds
    /// (at most [`MAX_NOISE_LOG2`]).
    fn check_writable(&self, ctx: &IntegerContext) -> Result<()> {
        self.check_shape(ctx)?;
        if self.noise > MAX_NOISE_LOG2 {
            return Err(Error::InvalidParameters(format!(
                "cannot serialize a ciphertext whose noise estimate is 2^{} (the format's cap \
                 is 2^{MAX_NOISE_LOG2}): it can no longer decrypt",
                self.noise
            )));
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &IntegerContext) {
        debug_assert_eq!(
            self.id,
            ctx.fingerprint(),
            "ciphertext written under another context"
        );
        write_ct_head(w, &self.parts, self.seed.as_ref());
        w.write_u64(self.factor);
        w.write_u64(self.noise.to_bits());
        write_ct_parts(w, &self.parts, self.seed.as_ref(), ctx.ring());
    }
}

impl Deserialize for Ciphertext {
    fn read_body(r: &mut Reader<'_>, ctx: &IntegerContext) -> Result<Self> {
        let (degree, seeded) = read_ct_head(r)?;
        let factor = r.read_u64("ciphertext correction factor")?;
        let tm = ctx.plaintext_modulus().modulus();
        if factor == 0 || factor >= tm.value() || tm.inv(factor).is_none() {
            return err(format!(
                "ciphertext correction factor {factor} is not a unit mod t = {} (in [1, t) \
                 and coprime to t)",
                tm.value()
            ));
        }
        let noise = f64::from_bits(r.read_u64("ciphertext noise estimate")?);
        if !(0.0..=MAX_NOISE_LOG2).contains(&noise) {
            return err(format!(
                "ciphertext noise estimate log2 σ = {noise} is not a number in [0, \
                 {MAX_NOISE_LOG2}]"
            ));
        }
        let (parts, seed) = read_ct_parts(r, ctx.ring(), degree, seeded, true)?;
        Ciphertext::from_parts(ctx, parts, factor, seed, noise)
            .map_err(|e| Error::Deserialize(format!("ciphertext: {e}")))
    }
}

// ---------------------------------------------------------------------------------------
// Evaluation keys

/// An evaluation key type's codec under an integer context: its tag in the BFV/BGV block
/// and its (RLWE-level, shared with CKKS) body.
pub(crate) trait IntegerKey: Sized {
    /// The header tag.
    const TAG: ObjectTag;
    /// Whether the key can be written under these parameters.
    fn check_writable(&self, params: &RlweParameters) -> Result<()>;
    /// Writes the body.
    fn write_body(&self, w: &mut Writer, params: &RlweParameters);
    /// Reads and validates the body.
    fn read_body(r: &mut Reader<'_>, params: &RlweParameters) -> Result<Self>;
}

impl IntegerKey for RelinearizationKey {
    const TAG: ObjectTag = ObjectTag::new(0x0103, "BFV/BGV relinearization key");

    fn check_writable(&self, params: &RlweParameters) -> Result<()> {
        check_relinearization_key_writable(self, params)
    }

    fn write_body(&self, w: &mut Writer, params: &RlweParameters) {
        write_switching_key(w, &self.0, params);
    }

    fn read_body(r: &mut Reader<'_>, params: &RlweParameters) -> Result<Self> {
        read_relinearization_key(r, params)
    }
}

impl IntegerKey for GaloisKeys {
    const TAG: ObjectTag = ObjectTag::new(0x0104, "BFV/BGV Galois keys");

    fn check_writable(&self, params: &RlweParameters) -> Result<()> {
        check_galois_keys_writable(self, params)
    }

    fn write_body(&self, w: &mut Writer, params: &RlweParameters) {
        write_galois_keys(w, self, params);
    }

    fn read_body(r: &mut Reader<'_>, params: &RlweParameters) -> Result<Self> {
        read_galois_keys(r, params)
    }
}

/// Writes `key` (header and body) under `ctx`, after its writability check.
pub(crate) fn write_key<K: IntegerKey>(
    w: &mut Writer,
    key: &K,
    ctx: &IntegerContext,
) -> Result<()> {
    key.check_writable(ctx.rlwe())?;
    w.write_header(K::TAG, ctx.fingerprint());
    key.write_body(w, ctx.rlwe());
    Ok(())
}

/// Reads a key (header and body) under `ctx`; bytes after it are left in `r`.
pub(crate) fn read_key<K: IntegerKey>(r: &mut Reader<'_>, ctx: &IntegerContext) -> Result<K> {
    r.read_header(K::TAG, ctx.fingerprint())?;
    K::read_body(r, ctx.rlwe())
}

fn key_to_bytes<K: IntegerKey>(key: &K, ctx: &IntegerContext) -> Result<Vec<u8>> {
    let mut w = Writer::new();
    write_key(&mut w, key, ctx)?;
    Ok(w.into_bytes())
}

fn key_from_bytes<K: IntegerKey>(
    bytes: &[u8],
    ctx: &IntegerContext,
    policy: &ReadPolicy,
) -> Result<K> {
    let mut r = Reader::with_policy(bytes, *policy);
    let key = read_key(&mut r, ctx)?;
    r.finish()?;
    Ok(key)
}

impl IntegerContext {
    /// The encoding of a relinearization key of this context (tag 259: header with this
    /// context's fingerprint, then the ordinary, seed-compressed hybrid form of the key,
    /// whatever the engine). Errors if the key belongs to another context or engine.
    pub fn relinearization_key_to_bytes(&self, key: &RelinearizationKey) -> Result<Vec<u8>> {
        key_to_bytes(key, self)
    }

    /// Reads a relinearization key written by
    /// [`IntegerContext::relinearization_key_to_bytes`] under the default [`ReadPolicy`].
    pub fn relinearization_key_from_bytes(&self, bytes: &[u8]) -> Result<RelinearizationKey> {
        self.relinearization_key_from_bytes_with(bytes, &ReadPolicy::default())
    }

    /// [`IntegerContext::relinearization_key_from_bytes`] under the caller's `policy` (its
    /// allocation limit covers the key and, for a KLSS engine, its expansion).
    pub fn relinearization_key_from_bytes_with(
        &self,
        bytes: &[u8],
        policy: &ReadPolicy,
    ) -> Result<RelinearizationKey> {
        key_from_bytes(bytes, self, policy)
    }

    /// The encoding of Galois keys of this context (tag 260: the key count, then each
    /// element in increasing order with its key, as for CKKS). Errors if a key belongs to
    /// another context or engine, or is stored under another element.
    pub fn galois_keys_to_bytes(&self, keys: &GaloisKeys) -> Result<Vec<u8>> {
        key_to_bytes(keys, self)
    }

    /// Reads Galois keys written by [`IntegerContext::galois_keys_to_bytes`] under the
    /// default [`ReadPolicy`].
    pub fn galois_keys_from_bytes(&self, bytes: &[u8]) -> Result<GaloisKeys> {
        self.galois_keys_from_bytes_with(bytes, &ReadPolicy::default())
    }

    /// [`IntegerContext::galois_keys_from_bytes`] under the caller's `policy`.
    pub fn galois_keys_from_bytes_with(
        &self,
        bytes: &[u8],
        policy: &ReadPolicy,
    ) -> Result<GaloisKeys> {
        key_from_bytes(bytes, self, policy)
    }
}
