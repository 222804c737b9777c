//! The MLWE-CKKS vector secret key and public key encodings.

use super::*;

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
