//! The encodings of the seed-compressed blind-rotation and bootstrapping keys (tags
//! 37–38), and their RLWE' bodies (shared with threshold evaluation-key shares).

use super::lwe::ksk_shape;
use crate::fhew::{
    AutoKeySet, BlindRotationKey, BootstrapKey, BrkElement, FhewContext, FhewParams,
    LweKeySwitchKey, Method, MethodConfig,
};
use crate::math::sample::Seed;
use crate::ring::{Form, Poly, RingContext};
use crate::rlwe::gsw::{AutoKey, Gadget, Rgsw, RlwePrime};
use crate::rlwe::serialize::residue_width;
use crate::serialize::{err, packed_len, Deserialize, ObjectTag, Reader, Serialize, Writer};
use crate::{Error, Result};

/// How the `a` parts of every RLWE' of a blind-rotation key are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Masks {
    /// The 32-byte seed they are expanded from (keys made by key generation).
    Seeded,
    /// The packed `a` parts (keys combined from threshold shares, which have no seed).
    Explicit,
}

/// Bytes of an RLWE' body: the seed (or `d_g` packed `a` parts) and `d_g` packed `b` parts.
fn rlwe_prime_len(ring: &RingContext, gadget: Gadget, masks: Masks) -> usize {
    let w = residue_width(ring.modulus(0, 1).value());
    let part = packed_len(ring.n(), w).expect("N <= 2^17");
    match masks {
        Masks::Seeded => 32 + gadget.digits() * part,
        Masks::Explicit => 2 * gadget.digits() * part,
    }
}

fn write_rlwe_prime(
    w: &mut Writer,
    ring: &RingContext,
    k: &RlwePrime,
    gadget: Gadget,
    masks: Masks,
) {
    debug_assert_eq!(k.gadget, gadget, "RLWE' key with another gadget");
    debug_assert!(
        k.b.len() == gadget.digits()
            && k.b
                .iter()
                .all(|b| b.form() == Form::Ntt && b.n() == ring.n() && b.q_limbs() == 1),
        "RLWE' key of another shape"
    );
    let width = residue_width(ring.modulus(0, 1).value());
    match (masks, &k.seed) {
        (Masks::Seeded, Some(seed)) => {
            debug_assert!(
                k.a.first() == Some(&crate::rlwe::keys::expand_uniform(ring, seed, 0, 1, 0)),
                "RLWE' key whose a parts are not the expansion of its seed"
            );
            w.write_bytes(seed);
        }
        (Masks::Seeded, None) => unreachable!("seeded form chosen for a key without a seed"),
        (Masks::Explicit, _) => {
            for a in &k.a {
                w.write_bits(a.data(), width);
            }
        }
    }
    for b in &k.b {
        w.write_bits(b.data(), width);
    }
}

fn read_rlwe_prime(
    r: &mut Reader<'_>,
    ring: &RingContext,
    gadget: Gadget,
    masks: Masks,
    what: &dyn Fn() -> String,
) -> Result<RlwePrime> {
    let n = ring.n();
    let q = ring.modulus(0, 1).value();
    let width = residue_width(q);
    r.require(rlwe_prime_len(ring, gadget, masks), "RLWE' key")?;
    // Both parts unpacked (the seeded form expands `a` from its seed), and the vectors.
    let d = gadget.digits();
    r.charge_vec::<u64>(2 * d * n, "an RLWE' key's parts")?;
    r.charge_vec::<Poly>(2 * d, "an RLWE' key's parts")?;
    let read_parts = |r: &mut Reader<'_>, part: &str| -> Result<Vec<Poly>> {
        let mut out = Vec::with_capacity(gadget.digits());
        for i in 0..gadget.digits() {
            let mut data = vec![0u64; n];
            r.read_bits(&mut data, width, "RLWE' key part")?;
            if let Some(j) = data.iter().position(|&x| x >= q) {
                return err(format!(
                    "{}: residue {} of {part} part {i}, index {j} is not below Q = {q}",
                    what(),
                    data[j]
                ));
            }
            out.push(Poly::from_raw(n, 1, 0, Form::Ntt, data));
        }
        Ok(out)
    };
    match masks {
        Masks::Seeded => {
            let seed: Seed = r.read_array("RLWE' seed")?;
            let b = read_parts(r, "b")?;
            Ok(RlwePrime::from_seed(ring, gadget, seed, b))
        }
        Masks::Explicit => {
            let a = read_parts(r, "a")?;
            let b = read_parts(r, "b")?;
            Ok(RlwePrime {
                gadget,
                seed: None,
                a,
                b,
            })
        }
    }
}

// ---------------------------------------------------------------------------------------
// Blind-rotation keys

const METHODS: [Method; 5] = [
    Method::Ap,
    Method::Ginx,
    Method::LmkcdeyBase,
    Method::LmkcdeyAux,
    Method::LmkcdeyAllEven,
];
const AUTO_SETS: [AutoKeySet; 3] = [
    AutoKeySet::Full,
    AutoKeySet::PowersOfFive,
    AutoKeySet::Generators,
];

/// GINX's `U` for code `c`: `{1}` for 0, `{1, -1, 2, -2, .., 2^(c-1), -2^(c-1)}` else.
fn ginx_u_of(code: u8) -> Vec<i64> {
    if code == 0 {
        vec![1]
    } else {
        (0..code).flat_map(|j| [1i64 << j, -(1i64 << j)]).collect()
    }
}

/// The code of GINX's `U`, if it is one of [`ginx_u_of`]'s sets.
fn ginx_code(u: &[i64]) -> Option<u8> {
    let code = if u == [1] { 0 } else { u.len() / 2 };
    (code <= 62 && ginx_u_of(code as u8) == u).then_some(code as u8)
}

/// Where the keys of one configuration are, under a context.
struct BrkLayout {
    config: MethodConfig,
    /// Keys per secret index (AP `d_r (B_r - 1)`, GINX `|U|`, Alg. 4 2, else 1).
    per_index: usize,
    /// Number of keys: `n · per_index`, plus one for Alg. 5.
    count: usize,
    /// The automorphism exponents, in order.
    auto: Vec<usize>,
    /// The body length after the configuration bytes (key counts included).
    len: usize,
}

impl BrkLayout {
    fn new(ctx: &FhewContext, config: MethodConfig, u_len: usize, masks: Masks) -> Result<Self> {
        let p = &ctx.params;
        let ring = &ctx.ring;
        let too_big = || Error::Deserialize("blind-rotation key: size overflows".into());
        let per_index = match config.method {
            Method::Ap => p
                .d_r()
                .checked_mul(p.b_r as usize - 1)
                .ok_or_else(too_big)?,
            Method::Ginx => u_len,
            Method::LmkcdeyAux => 2,
            Method::LmkcdeyBase | Method::LmkcdeyAllEven => 1,
        };
        let extra = usize::from(config.method == Method::LmkcdeyAllEven);
        let count =
            p.n.checked_mul(per_index)
                .and_then(|c| c.checked_add(extra))
                .ok_or_else(too_big)?;
        let auto = BlindRotationKey::auto_exponents(config, p.q, p.big_n);
        let elems = if config.alt_mult { 1 } else { 2 };
        let prime_len = |lb: u32| -> Result<usize> {
            let g = Gadget::new(ctx.big_q, lb).map_err(|e| {
                Error::Deserialize(format!("blind-rotation key: gadget base 2^{lb}: {e}"))
            })?;
            Ok(rlwe_prime_len(ring, g, masks))
        };
        // Runs of secret indices sharing a gadget base.
        let runs: Vec<(u32, usize)> = if p.bg_schedule.is_empty() {
            vec![(p.log_bg, p.n)]
        } else {
            p.bg_schedule.to_vec()
        };
        let mut len = 8usize;
        for (lb, c) in runs {
            let bytes = elems * prime_len(lb)?;
            let run = c
                .checked_mul(per_index)
                .and_then(|k| k.checked_mul(bytes))
                .ok_or_else(too_big)?;
            len = len.checked_add(run).ok_or_else(too_big)?;
        }
        let base = prime_len(p.log_bg)?;
        let others = extra * elems + usize::from(config.alt_mult) + auto.len();
        len = others
            .checked_mul(base)
            .and_then(|x| x.checked_add(len))
            .ok_or_else(too_big)?;
        Ok(BrkLayout {
            config,
            per_index,
            count,
            auto,
            len,
        })
    }

    /// The gadget base of key `idx`.
    fn log_bg(&self, p: &FhewParams, idx: usize) -> u32 {
        if idx >= p.n * self.per_index {
            return p.log_bg; // Alg. 5's X^(-Σ s_i)
        }
        let i = match self.config.method {
            Method::LmkcdeyAux => idx % p.n,
            _ => idx / self.per_index,
        };
        p.log_bg_of(i)
    }
}

fn gadget(ctx: &FhewContext, lb: u32) -> Result<Gadget> {
    Gadget::new(ctx.big_q, lb)
        .map_err(|e| Error::Deserialize(format!("blind-rotation key: gadget base 2^{lb}: {e}")))
}

/// One blind-rotation key element, borrowed: the parts [`write_brk_parts`] writes come
/// from a [`BlindRotationKey`] or from a threshold key share.
#[derive(Clone, Copy)]
pub(crate) enum KeyRef<'a> {
    /// An RGSW key.
    Rgsw(&'a Rgsw),
    /// An RLWE' key (ALTMULT).
    Prime(&'a RlwePrime),
}

/// The parts of a blind-rotation key body.
pub(crate) struct BrkParts<'a> {
    pub(crate) config: MethodConfig,
    pub(crate) ginx_u: &'a [i64],
    pub(crate) keys: Vec<KeyRef<'a>>,
    pub(crate) z2: Option<&'a RlwePrime>,
    pub(crate) auto: &'a [AutoKey],
}

impl<'a> BrkParts<'a> {
    fn of(k: &'a BlindRotationKey) -> Self {
        BrkParts {
            config: k.config,
            ginx_u: &k.ginx_u,
            keys: k
                .keys
                .iter()
                .map(|e| match e {
                    BrkElement::Rgsw(x) => KeyRef::Rgsw(x),
                    BrkElement::Prime(x) => KeyRef::Prime(x),
                })
                .collect(),
            z2: k.z2.as_ref(),
            auto: &k.auto,
        }
    }

    /// The seeded form when every RLWE' has a seed, else the explicit one.
    fn masks(&self) -> Masks {
        let mut primes = self
            .keys
            .iter()
            .flat_map(|e| match *e {
                KeyRef::Rgsw(x) => vec![&x.zm, &x.m],
                KeyRef::Prime(x) => vec![x],
            })
            .chain(self.z2)
            .chain(self.auto.iter().map(|a| &a.key));
        if primes.all(|p| p.seed.is_some()) {
            Masks::Seeded
        } else {
            Masks::Explicit
        }
    }
}

fn write_brk(k: &BlindRotationKey, w: &mut Writer, ctx: &FhewContext) {
    let p = &ctx.params;
    debug_assert!(
        k.q == p.q && k.n == p.n && k.b_r == p.b_r && k.d_r == p.d_r(),
        "blind-rotation key written under other parameters"
    );
    write_brk_parts(&BrkParts::of(k), w, ctx);
}

/// Writes a blind-rotation key body (tag 37's) from its parts.
pub(crate) fn write_brk_parts(k: &BrkParts<'_>, w: &mut Writer, ctx: &FhewContext) {
    let p = &ctx.params;
    let ring = &ctx.ring;
    let c = k.config;
    let method = METHODS.iter().position(|&m| m == c.method).expect("known");
    w.write_u8(method as u8);
    w.write_u8(u8::from(c.alt_mult));
    w.write_u8(
        AUTO_SETS
            .iter()
            .position(|&s| s == c.auto_keys)
            .expect("known") as u8,
    );
    let masks = k.masks();
    w.write_u8(match masks {
        Masks::Seeded => 0,
        Masks::Explicit => 1,
    });
    if c.method == Method::Ginx {
        let code = ginx_code(k.ginx_u).unwrap_or_else(|| {
            panic!(
                "cannot serialize a GINX key with U = {:?}: the format holds {{1}} and \
                 {{±2^j: j < k}} only",
                k.ginx_u
            )
        });
        w.write_u8(code);
    }
    let layout = BrkLayout::new(ctx, c, k.ginx_u.len(), masks).expect("a valid key has a layout");
    debug_assert_eq!(k.keys.len(), layout.count, "blind-rotation key count");
    w.write_u32(k.keys.len() as u32);
    for (idx, key) in k.keys.iter().enumerate() {
        let g = gadget(ctx, layout.log_bg(p, idx)).expect("valid gadget");
        match *key {
            KeyRef::Rgsw(x) => {
                debug_assert!(!c.alt_mult, "RGSW key in an ALTMULT key set");
                write_rlwe_prime(w, ring, &x.zm, g, masks);
                write_rlwe_prime(w, ring, &x.m, g, masks);
            }
            KeyRef::Prime(x) => {
                debug_assert!(c.alt_mult, "RLWE' key in an RGSW key set");
                write_rlwe_prime(w, ring, x, g, masks);
            }
        }
    }
    let g = gadget(ctx, p.log_bg).expect("valid gadget");
    debug_assert_eq!(k.z2.is_some(), c.alt_mult, "RLWE'(z^2) iff ALTMULT");
    if let Some(z2) = k.z2 {
        write_rlwe_prime(w, ring, z2, g, masks);
    }
    debug_assert!(
        k.auto.iter().map(|a| a.t).eq(layout.auto.iter().copied()),
        "automorphism keys not in the layout of the configuration"
    );
    w.write_u32(k.auto.len() as u32);
    for a in k.auto {
        write_rlwe_prime(w, ring, &a.key, g, masks);
    }
}

/// Reads a blind-rotation key body and checks that `trailing` more bytes follow it (the
/// rest of an enclosing object) before allocating anything.
pub(crate) fn read_brk(
    r: &mut Reader<'_>,
    ctx: &FhewContext,
    trailing: usize,
) -> Result<BlindRotationKey> {
    let p = &ctx.params;
    let ring = &ctx.ring;
    let m = r.read_u8("blind-rotation method")?;
    let method = *METHODS.get(m as usize).ok_or_else(|| {
        Error::Deserialize(format!(
            "unknown blind-rotation method {m} (0 AP, 1 GINX, 2 LMKCDEY-base, 3 LMKCDEY-aux, 4 LMKCDEY-even)"
        ))
    })?;
    if !method.applies(p.q, p.big_n) {
        return err(format!(
            "blind-rotation key: {} does not apply to q = {}, N = {}",
            method.name(),
            p.q,
            p.big_n
        ));
    }
    let alt_mult = match r.read_u8("blind-rotation ALTMULT flag")? {
        0 => false,
        1 => true,
        f => return err(format!("blind-rotation ALTMULT flag {f} is not 0 or 1")),
    };
    let s = r.read_u8("blind-rotation automorphism key set")?;
    let auto_keys = *AUTO_SETS.get(s as usize).ok_or_else(|| {
        Error::Deserialize(format!(
            "unknown automorphism key set {s} (0 full, 1 powers of five, 2 generators)"
        ))
    })?;
    let masks = match r.read_u8("blind-rotation mask form")? {
        0 => Masks::Seeded,
        1 => Masks::Explicit,
        f => {
            return err(format!(
                "blind-rotation mask form {f} is not 0 (seeded) or 1 (explicit)"
            ))
        }
    };
    let ginx_u = if method == Method::Ginx {
        let code = r.read_u8("GINX U")?;
        if code > 62 {
            return err(format!("GINX U code {code} is above 62"));
        }
        ginx_u_of(code)
    } else {
        Vec::new()
    };
    let config = MethodConfig {
        method,
        alt_mult,
        auto_keys,
    };
    // The layout's automorphism exponents (fewer than q <= 2N).
    r.charge_vec::<usize>(
        2 * p.big_n,
        "the blind-rotation key's automorphism exponents",
    )?;
    let layout = BrkLayout::new(ctx, config, ginx_u.len(), masks)?;
    let total = layout.len.saturating_add(trailing);
    r.require(total, "blind-rotation key")?;
    let count = r.read_u32("blind-rotation key count")? as usize;
    if count != layout.count {
        return err(format!(
            "blind-rotation key: {count} keys; {} has {} under these parameters",
            config.label(),
            layout.count
        ));
    }
    // The key vectors, and the discrete-log and automorphism-slot tables of
    // `BlindRotationKey::from_parts` (N entries each).
    r.charge_vec::<BrkElement>(count, "the blind-rotation key vector")?;
    r.charge_vec::<AutoKey>(layout.auto.len(), "the automorphism key vector")?;
    r.charge_vec::<(u32, bool)>(p.big_n, "the blind-rotation discrete-log table")?;
    r.charge_vec::<u32>(p.big_n, "the automorphism slot table")?;
    let mut keys = Vec::with_capacity(count);
    for idx in 0..count {
        let g = gadget(ctx, layout.log_bg(p, idx))?;
        let what = || format!("blind-rotation key {idx}");
        keys.push(if alt_mult {
            BrkElement::Prime(read_rlwe_prime(r, ring, g, masks, &what)?)
        } else {
            let zm = read_rlwe_prime(r, ring, g, masks, &what)?;
            let m = read_rlwe_prime(r, ring, g, masks, &what)?;
            BrkElement::Rgsw(Rgsw { zm, m })
        });
    }
    let g = gadget(ctx, p.log_bg)?;
    let z2 = if alt_mult {
        Some(read_rlwe_prime(r, ring, g, masks, &|| "RLWE'(z^2)".into())?)
    } else {
        None
    };
    let auto_count = r.read_u32("automorphism key count")? as usize;
    if auto_count != layout.auto.len() {
        return err(format!(
            "blind-rotation key: {auto_count} automorphism keys; {} has {} under these \
             parameters",
            config.label(),
            layout.auto.len()
        ));
    }
    let mut auto = Vec::with_capacity(auto_count);
    for &t in &layout.auto {
        let key = read_rlwe_prime(r, ring, g, masks, &|| format!("automorphism key {t}"))?;
        auto.push(AutoKey { t, key });
    }
    Ok(BlindRotationKey::from_parts(
        p, p.big_n, config, ginx_u, keys, z2, auto,
    ))
}

impl Serialize for BlindRotationKey {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::new(37, "blind-rotation key");

    /// A key of these parameters whose shape the format holds (a GINX set `U` of
    /// [`BlindRotationKey::generate`]'s, the layout's key count, RGSW or RLWE' keys as
    /// the configuration says).
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        let p = &ctx.params;
        let bad = |m: &str| {
            Err(Error::ParameterMismatch(format!(
                "blind-rotation key cannot be written under {}: {m}",
                p.name
            )))
        };
        if (self.q, self.n, self.b_r, self.d_r) != (p.q, p.n, p.b_r, p.d_r()) {
            return bad("it was made under other parameters");
        }
        let parts = BrkParts::of(self);
        if parts.config.method == Method::Ginx && ginx_code(parts.ginx_u).is_none() {
            return bad("its GINX set U is not one the format holds");
        }
        let layout = BrkLayout::new(ctx, parts.config, parts.ginx_u.len(), parts.masks())?;
        if parts.keys.len() != layout.count {
            return bad("it has another number of keys than its configuration needs");
        }
        let alt = parts.config.alt_mult;
        if parts
            .keys
            .iter()
            .any(|k| matches!(k, KeyRef::Rgsw(_)) == alt)
            || parts.z2.is_some() != alt
        {
            return bad("its keys are not of the kind (RGSW or RLWE') its configuration says");
        }
        Ok(())
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        write_brk(self, w, ctx);
    }
}

impl Deserialize for BlindRotationKey {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        read_brk(r, ctx, 0)
    }
}

impl Serialize for BootstrapKey {
    type Context = FhewContext;
    const TAG: ObjectTag = ObjectTag::new(38, "bootstrapping key");

    /// A key made under these parameters ([`BootstrapKey::params_fingerprint`]).
    fn check_writable(&self, ctx: &FhewContext) -> Result<()> {
        if self.params_fingerprint() != ctx.params.fingerprint() {
            return Err(Error::ParameterMismatch(
                "bootstrapping key written under other FHEW parameters than it was made \
                 under"
                    .into(),
            ));
        }
        self.brk.check_writable(ctx)?;
        self.ksk.check_writable(ctx)
    }

    fn write_body(&self, w: &mut Writer, ctx: &FhewContext) {
        write_brk(&self.brk, w, ctx);
        self.ksk.write_body(w, ctx);
    }
}

impl Deserialize for BootstrapKey {
    fn read_body(r: &mut Reader<'_>, ctx: &FhewContext) -> Result<Self> {
        let (_, ksk_len) = ksk_shape(&ctx.params)?;
        let brk = read_brk(r, ctx, ksk_len)?;
        let ksk = LweKeySwitchKey::read_body(r, ctx)?;
        Ok(BootstrapKey {
            brk,
            ksk,
            params_id: ctx.params.fingerprint(),
        })
    }
}
