//! The MLWE-CKKS ciphertext encoding: its parts, level, scale and slot count, the
//! uniform part seed-compressed for fresh symmetric encryptions.

use super::*;

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
