//! The MLWE-CKKS plaintext encoding (tag `0x0208`): a CKKS [`Plaintext`] made under an
//! [`MlweContext`] (by [`MlweContext::encode`]), read back under that context. CKKS's own
//! plaintext encoding is bound to a `CkksContext`, so an MLWE plaintext is written through
//! [`MlwePlaintext`], or [`MlweContext::plaintext_to_bytes`] and
//! [`MlweContext::plaintext_from_bytes`].

use super::*;
use crate::ckks::Plaintext;
use crate::serialize::ReadPolicy;

/// A plaintext of an MLWE context, for its byte encoding: `MlwePlaintext(pt).to_bytes(&ctx)`
/// and `MlwePlaintext::from_bytes(&bytes, &ctx)?.0` (or the context's
/// [`MlweContext::plaintext_to_bytes`] / [`MlweContext::plaintext_from_bytes`], which do
/// the same through the wrapper). The body is CKKS's plaintext body (scale, slot count,
/// the message polynomial in NTT form over `Q_l`), under the MLWE context's fingerprint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MlwePlaintext(pub Plaintext);

impl MlweContext {
    /// A plaintext of this context (one [`MlweContext::encode`] made, or an evaluator's
    /// plaintext operand) has a usable shape: this ring, a message polynomial in NTT form
    /// over `Q_l` (no special limbs, reduced residues), a power-of-two slot count up to
    /// `n/2`.
    fn check_plaintext_shape(&self, pt: &Plaintext) -> Result<()> {
        self.check_plaintext(pt)?;
        let ring = self.ring();
        ring.check_poly(&pt.poly, "MLWE plaintext")?;
        if pt.poly.form() != Form::Ntt || pt.poly.p_limbs() != 0 || pt.poly.q_limbs() == 0 {
            return Err(Error::ParameterMismatch(
                "MLWE plaintext: the message polynomial must be in NTT form over Q_l, \
                 without special limbs"
                    .into(),
            ));
        }
        if !pt.slots.is_power_of_two() || pt.slots > self.max_slots() {
            return Err(Error::ParameterMismatch(format!(
                "MLWE plaintext: slot count {} is not a power of two in [1, n/2 = {}]",
                pt.slots,
                self.max_slots()
            )));
        }
        Ok(())
    }

    /// The byte encoding of `pt`, a plaintext of this context (see [`MlwePlaintext`]);
    /// an error for a plaintext of another context or of an unusable shape.
    pub fn plaintext_to_bytes(&self, pt: &Plaintext) -> Result<Vec<u8>> {
        MlwePlaintext(pt.clone()).to_bytes(self)
    }

    /// The plaintext of bytes [`MlweContext::plaintext_to_bytes`] wrote under this
    /// context (the default [`ReadPolicy`]).
    pub fn plaintext_from_bytes(&self, bytes: &[u8]) -> Result<Plaintext> {
        Ok(MlwePlaintext::from_bytes(bytes, self)?.0)
    }

    /// [`MlweContext::plaintext_from_bytes`] under `policy`.
    pub fn plaintext_from_bytes_with(
        &self,
        bytes: &[u8],
        policy: &ReadPolicy,
    ) -> Result<Plaintext> {
        Ok(MlwePlaintext::from_bytes_with(bytes, self, policy)?.0)
    }
}

impl Serialize for MlwePlaintext {
    type Context = MlweContext;
    const TAG: ObjectTag = ObjectTag::new(0x0208, "MLWE plaintext");

    /// A plaintext of `ctx` with a usable shape, and a scale the format holds.
    fn check_writable(&self, ctx: &MlweContext) -> Result<()> {
        ctx.check_plaintext_shape(&self.0)?;
        check_scale_writable(&self.0.scale)
    }

    fn write_body(&self, w: &mut Writer, ctx: &MlweContext) {
        write_scale(w, &self.0.scale);
        w.write_u32(self.0.slots as u32);
        self.0.poly.write_body(w, ctx.ring());
    }
}

impl Deserialize for MlwePlaintext {
    fn read_body(r: &mut Reader<'_>, ctx: &MlweContext) -> Result<Self> {
        let scale = read_scale(r)?;
        let slots = read_slots(r, ctx.n(), "MLWE plaintext slot count")?;
        let poly = read_message_poly(r, ctx.ring(), "MLWE plaintext polynomial")?;
        let pt = Plaintext {
            ring_id: ctx.ring().fingerprint(),
            poly,
            scale,
            slots,
        };
        ctx.check_plaintext_shape(&pt)
            .map_err(|e| deserialize_error("MLWE plaintext", e))?;
        Ok(MlwePlaintext(pt))
    }
}
