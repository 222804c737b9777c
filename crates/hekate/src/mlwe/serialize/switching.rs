//! The MLWE-CKKS switching-key encodings: the relinearization keys (ModHE and DPad-HE),
//! rank-reduction keys and the plain and rank-hoisted rotation keys.

use super::*;

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
