//! The fields of a self-contained parameter body that every RLWE scheme shares (what a
//! [`ChainBuilder`](crate::rlwe::ChainBuilder) is given): the ring degree and primes,
//! `dnum`, the secret distribution, the security level, the key-switching method and the
//! key storage. CKKS (tag 16) and BFV/BGV (tag 256) parameters write these fields in the
//! layouts of the [format documentation](crate::serialize), with their own fields around
//! them; every check here runs before anything is built. `scheme` names the scheme in
//! messages (`"CKKS parameters: ..."`).

use crate::math::primes::is_prime;
use crate::params::SecurityLevel;
use crate::rlwe::keyswitch::{KeyStorage, KeySwitchMethod, KlssBound, KlssConfig, LevelSet};
use crate::rlwe::SecretDistribution;
use crate::serialize::{err, Reader, Writer, MAX_LIMBS, MAX_N};
use crate::{Error, Result};

const SECRET_TERNARY: u8 = 0;
const SECRET_HAMMING: u8 = 1;
const SECRET_GAUSSIAN: u8 = 2;

/// The ring degree `N` and the primes of `Q` and `P`, as read.
pub(crate) struct RingFields {
    /// `N`.
    pub(crate) n: usize,
    /// `q_0 .. q_L`.
    pub(crate) q: Vec<u64>,
    /// `p_0 .. p_{k-1}`.
    pub(crate) p: Vec<u64>,
}

/// Writes `N` (`u32`), `L + 1` and `k` (`u16`), then the primes (`u64` each).
pub(crate) fn write_ring(w: &mut Writer, n: usize, q: &[u64], p: &[u64]) {
    w.write_u32(n as u32);
    w.write_u16(q.len() as u16);
    w.write_u16(p.len() as u16);
    for x in q.iter().chain(p) {
        w.write_u64(*x);
    }
}

/// Reads what [`write_ring`] writes: `N` a power of two in `[2, 2^17]`, `L + 1` and `k`
/// in `[1, 256]`, every prime a distinct prime `= 1 mod 2N` below `2^62`. Charges the
/// context's tables (up to eight `N`-word tables per prime: the NTT plan, base-conversion
/// and key-switching tables) first.
pub(crate) fn read_ring(r: &mut Reader<'_>, scheme: &str) -> Result<RingFields> {
    let n = r.read_u32(&format!("{scheme} ring degree"))? as usize;
    if !n.is_power_of_two() || !(2..=MAX_N).contains(&n) {
        return err(format!(
            "{scheme} parameters: ring degree N = {n} is not a power of two in [2, 2^17]"
        ));
    }
    let l1 = r.read_u16(&format!("{scheme} chain prime count"))? as usize;
    let k = r.read_u16(&format!("{scheme} special prime count"))? as usize;
    if !(1..=MAX_LIMBS).contains(&l1) {
        return err(format!(
            "{scheme} parameters: {l1} chain primes; expected between 1 and {MAX_LIMBS}"
        ));
    }
    if !(1..=MAX_LIMBS).contains(&k) {
        return err(format!(
            "{scheme} parameters: {k} special primes; hybrid key switching needs between 1 \
             and {MAX_LIMBS}"
        ));
    }
    r.charge(
        ((l1 + k) as u64) * (n as u64) * 8 * 8,
        &format!("the {scheme} context's NTT and conversion tables"),
    )?;
    let mut seen = Vec::with_capacity(l1 + k);
    let q = read_primes(r, l1, n, &mut seen, &format!("{scheme} chain prime"))?;
    let p = read_primes(r, k, n, &mut seen, &format!("{scheme} special prime"))?;
    Ok(RingFields { n, q, p })
}

/// Reads `count` primes (`u64` each) and checks each is a prime below `2^62`, `1 mod 2N`,
/// and not in `seen` (then adds it), so that building the context allocates nothing for
/// bad primes.
pub(crate) fn read_primes(
    r: &mut Reader<'_>,
    count: usize,
    n: usize,
    seen: &mut Vec<u64>,
    what: &str,
) -> Result<Vec<u64>> {
    r.require(8 * count, what)?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let q = r.read_u64(what)?;
        if !(2..1u64 << 62).contains(&q) || !is_prime(q) {
            return err(format!("{what} {i} = {q} is not a prime below 2^62"));
        }
        if q % (2 * n as u64) != 1 {
            return err(format!(
                "{what} {i} = {q} is not 1 mod 2N = {} (no NTT of size N = {n} exists \
                 modulo it)",
                2 * n
            ));
        }
        if seen.contains(&q) {
            return err(format!(
                "{what} {i} = {q} appears twice; all primes of Q and P must be distinct"
            ));
        }
        seen.push(q);
        out.push(q);
    }
    Ok(out)
}

/// Reads `dnum` (`u16`) and checks it is in `[1, L + 1]` (`l1 = L + 1`).
pub(crate) fn read_dnum(r: &mut Reader<'_>, l1: usize, scheme: &str) -> Result<usize> {
    let dnum = r.read_u16(&format!("{scheme} dnum"))? as usize;
    if !(1..=l1).contains(&dnum) {
        return err(format!(
            "{scheme} parameters: dnum = {dnum} is not in [1, L + 1 = {l1}]"
        ));
    }
    Ok(dnum)
}

/// Writes the secret distribution: `u8` code, and `h` (`u32`) for a Hamming weight.
pub(crate) fn write_secret(w: &mut Writer, secret: SecretDistribution) {
    match secret {
        SecretDistribution::Ternary => w.write_u8(SECRET_TERNARY),
        SecretDistribution::HammingWeight(h) => {
            w.write_u8(SECRET_HAMMING);
            w.write_u32(h as u32);
        }
        SecretDistribution::Gaussian => w.write_u8(SECRET_GAUSSIAN),
    }
}

/// Reads what [`write_secret`] writes (`h` in `[1, N]`).
pub(crate) fn read_secret(
    r: &mut Reader<'_>,
    n: usize,
    scheme: &str,
) -> Result<SecretDistribution> {
    Ok(match r.read_u8(&format!("{scheme} secret distribution"))? {
        SECRET_TERNARY => SecretDistribution::Ternary,
        SECRET_HAMMING => {
            let h = r.read_u32(&format!("{scheme} secret Hamming weight"))? as usize;
            if !(1..=n).contains(&h) {
                return err(format!(
                    "{scheme} parameters: Hamming weight h = {h} is not in [1, N = {n}]"
                ));
            }
            SecretDistribution::HammingWeight(h)
        }
        SECRET_GAUSSIAN => SecretDistribution::Gaussian,
        c => {
            return err(format!(
                "{scheme} parameters: unknown secret distribution {c} (0 ternary, 1 Hamming \
                 weight, 2 Gaussian)"
            ))
        }
    })
}

/// Writes the security level, `u8`: 0 128-bit, 1 192-bit, 2 256-bit, 3 not checked.
pub(crate) fn write_security(w: &mut Writer, level: SecurityLevel) {
    w.write_u8(match level {
        SecurityLevel::Bits128 => 0,
        SecurityLevel::Bits192 => 1,
        SecurityLevel::Bits256 => 2,
        SecurityLevel::NotChecked => 3,
    });
}

/// Reads what [`write_security`] writes, and refuses a level below the reader's
/// [`ReadPolicy::min_security`](crate::serialize::ReadPolicy::min_security): bytes never
/// lower the check.
pub(crate) fn read_security(r: &mut Reader<'_>, scheme: &str) -> Result<SecurityLevel> {
    let security = match r.read_u8(&format!("{scheme} security level"))? {
        0 => SecurityLevel::Bits128,
        1 => SecurityLevel::Bits192,
        2 => SecurityLevel::Bits256,
        3 => SecurityLevel::NotChecked,
        c => {
            return err(format!(
                "{scheme} parameters: unknown security level {c} (0 128-bit, 1 192-bit, 2 \
                 256-bit, 3 not checked)"
            ))
        }
    };
    let min = r.policy().min_security;
    if !security.at_least(min) {
        return err(format!(
            "{scheme} parameters: the blob was built for security level \"{security}\", below \
             the reader's minimum \"{min}\"; bytes never lower the check: read them with \
             ReadPolicy::default().min_security(SecurityLevel::NotChecked) (or the level \
             wanted) if these parameters are trusted and meant for experiments"
        ));
    }
    Ok(security)
}

/// Writes the key-switching method (resolved: hybrid, KLSS or mixed) and its
/// configuration.
pub(crate) fn write_key_switching(w: &mut Writer, method: KeySwitchMethod, digits_by_bits: bool) {
    match method {
        KeySwitchMethod::Hybrid if digits_by_bits => w.write_u8(3),
        KeySwitchMethod::Klss(c) => {
            w.write_u8(1);
            write_klss_config(w, &c);
        }
        KeySwitchMethod::Mixed { klss, levels } => {
            w.write_u8(2);
            write_klss_config(w, &klss);
            w.write_u16(levels.len() as u16);
            for l in levels.iter() {
                w.write_u16(l as u16);
            }
        }
        _ => w.write_u8(0),
    }
}

/// Reads what [`write_key_switching`] writes, with `l1 = L + 1` chain and `k` special
/// primes of degree `n`; charges a KLSS engine's primes and tables first. The flag says
/// the hybrid digits are grouped by bits (method 3).
pub(crate) fn read_key_switching(
    r: &mut Reader<'_>,
    ring: &RingFields,
    scheme: &str,
) -> Result<(KeySwitchMethod, bool)> {
    let (n, l1, k) = (ring.n, ring.q.len(), ring.p.len());
    let method = r.read_u8(&format!("{scheme} key-switching method"))?;
    if method == 1 || method == 2 {
        // A KLSS engine adds its own primes (the r' primes of T and B', below the
        // chain's count), each with an NTT plan: at most as much again.
        r.charge(
            ((l1 + k) as u64) * (n as u64) * 8 * 8,
            "the KLSS engine's primes and tables",
        )?;
    }
    if method == 3 {
        return Ok((KeySwitchMethod::Hybrid, true));
    }
    Ok((
        match method {
            0 => KeySwitchMethod::Hybrid,
            1 => KeySwitchMethod::Klss(read_klss_config(r, l1 + k, scheme)?),
            2 => {
                let klss = read_klss_config(r, l1 + k, scheme)?;
                let count = r.read_u16("mixed engine level count")? as usize;
                if !(1..l1).contains(&count) {
                    return err(format!(
                        "{scheme} parameters: a mixed engine runs KLSS at {count} levels; 1 to {} \
                     are allowed with {l1} chain limbs",
                        l1 - 1
                    ));
                }
                let mut limbs = Vec::with_capacity(count);
                for _ in 0..count {
                    let l = r.read_u16("mixed engine level")? as usize;
                    if !(1..=l1).contains(&l) || limbs.last().is_some_and(|&p| l <= p) {
                        return err(format!(
                            "{scheme} parameters: mixed engine level {l} is out of order or not \
                         in [1, {l1}]"
                        ));
                    }
                    limbs.push(l);
                }
                let levels = LevelSet::from_limbs(limbs).map_err(|e| {
                    Error::Deserialize(format!("{scheme} parameters: mixed engine levels: {e}"))
                })?;
                KeySwitchMethod::Mixed { klss, levels }
            }
            c => {
                return err(format!(
                    "{scheme} parameters: unknown key-switching method {c} (0 hybrid, 1 KLSS, 2 \
                 mixed, 3 hybrid with digits by bits)"
                ))
            }
        },
        false,
    ))
}

/// The KLSS configuration fields (`limbs` = `L + 1 + k`).
fn read_klss_config(r: &mut Reader<'_>, limbs: usize, scheme: &str) -> Result<KlssConfig> {
    let r_tilde = r.read_u16("KLSS r̃")? as usize;
    if !(1..=limbs).contains(&r_tilde) {
        return err(format!(
            "{scheme} parameters: KLSS r̃ = {r_tilde} is not in [1, {limbs}]"
        ));
    }
    let r_prime = match r.read_u16("KLSS r'")? as usize {
        0 => None,
        x if x <= 64 => Some(x),
        x => return err(format!("{scheme} parameters: KLSS r' = {x} is above 64")),
    };
    let bound = match r.read_u8("KLSS bound")? {
        0 => KlssBound::WorstCase,
        1 if r.policy().allow_heuristic_klss => KlssBound::Heuristic,
        1 => {
            return err(format!(
                "{scheme} parameters: the blob selects the heuristic KLSS bound, which is not \
                 safe against inputs chosen by an adversary who knows the switching key; \
                 read it with ReadPolicy::default().allow_heuristic_klss(true) if that is \
                 intended"
            ))
        }
        c => return err(format!("{scheme} parameters: unknown KLSS bound {c}")),
    };
    let b_prime_bits = r.read_u8("KLSS B' prime size")? as u32;
    let accumulation = r.read_u32("KLSS accumulation")? as usize;
    if !(1..=1 << 16).contains(&accumulation) {
        return err(format!(
            "{scheme} parameters: KLSS accumulation {accumulation} is not in [1, 2^16]"
        ));
    }
    Ok(KlssConfig {
        r_tilde,
        r_prime,
        bound,
        b_prime_bits,
        accumulation,
    })
}

/// Writes what [`read_klss_config`] reads.
fn write_klss_config(w: &mut Writer, c: &KlssConfig) {
    w.write_u16(c.r_tilde as u16);
    w.write_u16(c.r_prime.unwrap_or(0) as u16);
    w.write_u8(match c.bound {
        KlssBound::WorstCase => 0,
        KlssBound::Heuristic => 1,
    });
    w.write_u8(c.b_prime_bits as u8);
    w.write_u32(c.accumulation as u32);
}

/// Writes the key storage in memory, `u8`: 0 expanded, 1 compact.
pub(crate) fn write_key_storage(w: &mut Writer, storage: KeyStorage) {
    w.write_u8(match storage {
        KeyStorage::ExpandedOnly => 0,
        KeyStorage::ExpandedWithOrdinary => 1,
    });
}

/// Reads what [`write_key_storage`] writes.
pub(crate) fn read_key_storage(r: &mut Reader<'_>, scheme: &str) -> Result<KeyStorage> {
    match r.read_u8(&format!("{scheme} key storage"))? {
        0 => Ok(KeyStorage::ExpandedOnly),
        1 => Ok(KeyStorage::ExpandedWithOrdinary),
        c => err(format!("{scheme} parameters: unknown key storage {c}")),
    }
}
