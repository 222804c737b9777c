//! The bodies of evaluation keys under any scheme's [`RlweParameters`]: the
//! relinearization key (a `HybridKey` body of the parameters' shape) and the Galois keys
//! (a count, then element and key pairs in increasing order). CKKS (tags 19, 20) and
//! BFV/BGV (tags 259, 260) write the same bodies under their own tags and fingerprints;
//! only the header differs, so the codec lives here, once.

use crate::rlwe::evaluation_keys::{GaloisKey, GaloisKeys, RelinearizationKey};
use crate::rlwe::keyswitch::SwitchingKey;
use crate::rlwe::{HybridKey, RlweParameters};
use crate::serialize::{err, Deserialize, Reader, Serialize, Writer};
use crate::{Error, Result};
use std::collections::HashMap;

/// A switching key of `params`' ring whose ordinary (hybrid) form these parameters can
/// produce: a hybrid key, a KLSS key of this engine (contracted), or one that keeps its
/// ordinary form.
pub(crate) fn check_key_writable(
    key: &SwitchingKey,
    params: &RlweParameters,
    what: &str,
) -> Result<()> {
    if key.ring_id() != params.ring().fingerprint() {
        return Err(Error::ParameterMismatch(format!(
            "the {what} belongs to another context"
        )));
    }
    let writable = match key {
        SwitchingKey::Hybrid(k) => k.check_shape(params.ring(), params.digits()).is_ok(),
        SwitchingKey::Klss(_) => params.keyswitcher().owns(key) || key.ordinary().is_some(),
    };
    if !writable {
        return Err(Error::ParameterMismatch(format!(
            "the {what} was made for another key-switching engine or dnum and keeps no \
             ordinary (hybrid) form this context could write; write it with the context it \
             was generated under"
        )));
    }
    Ok(())
}

/// Writes the ordinary (hybrid) form of `key`, checked by [`check_key_writable`].
pub(crate) fn write_switching_key(w: &mut Writer, key: &SwitchingKey, params: &RlweParameters) {
    params
        .keyswitcher()
        .ordinary_key(key)
        .write_body(w, params.ring());
}

/// Reads a hybrid key and checks it has the parameters' shape for its width `w`
/// ([`HybridKey::check_shape`]): `dnum` digits over all of `Q ∪ P` for a full key,
/// `ceil(w / α)` over `Q_{w-1} ∪ P` for a key generated for levels `< w` (which only the
/// hybrid engine accepts: KLSS expansion refuses it). A KLSS engine expands the key, and
/// the expansion is charged first.
pub(crate) fn read_switching_key(
    r: &mut Reader<'_>,
    params: &RlweParameters,
    what: &str,
) -> Result<SwitchingKey> {
    let ring = params.ring();
    let key = HybridKey::read_body(r, ring)?;
    if let Err(why) = key.check_shape(ring, params.digits()) {
        return err(format!(
            "{what} does not have the context's shape (dnum = {}): {why}",
            params.dnum()
        ));
    }
    // A KLSS context expands the ordinary key once, here: the expanded key, and the
    // temporaries of the expansion (under half the key's size, measured by
    // `tests/alloc_limits.rs`).
    let adopted = params.keyswitcher().adopted_key_bytes();
    r.charge(
        adopted + adopted / 2,
        &format!("expanding the {what} for the KLSS engine"),
    )?;
    params.keyswitcher().adopt(key, params.key_storage())
}

/// [`check_key_writable`] for a relinearization key.
pub(crate) fn check_relinearization_key_writable(
    key: &RelinearizationKey,
    params: &RlweParameters,
) -> Result<()> {
    check_key_writable(&key.0, params, "relinearization key")
}

/// Reads a relinearization key body.
pub(crate) fn read_relinearization_key(
    r: &mut Reader<'_>,
    params: &RlweParameters,
) -> Result<RelinearizationKey> {
    read_switching_key(r, params, "relinearization key").map(RelinearizationKey)
}

/// Keys of `params` that these parameters can write, each stored under its own element.
pub(crate) fn check_galois_keys_writable(keys: &GaloisKeys, params: &RlweParameters) -> Result<()> {
    for (&g, key) in &keys.keys {
        if key.galois_element != g {
            return Err(Error::ParameterMismatch(format!(
                "the Galois key for element {} is stored under element {g}",
                key.galois_element
            )));
        }
        check_key_writable(&key.key, params, &format!("Galois key {g}"))?;
    }
    Ok(())
}

/// Writes the key count, then each element (in increasing order) and its key.
pub(crate) fn write_galois_keys(w: &mut Writer, keys: &GaloisKeys, params: &RlweParameters) {
    let mut elements: Vec<usize> = keys.keys.keys().copied().collect();
    elements.sort_unstable();
    w.write_u32(elements.len() as u32);
    for g in elements {
        let key = &keys.keys[&g];
        debug_assert_eq!(
            key.galois_element, g,
            "Galois key stored under another element"
        );
        w.write_u32(g as u32);
        write_switching_key(w, &key.key, params);
    }
}

/// Reads what [`write_galois_keys`] writes: at most `N` keys, odd elements below `2N`
/// in strictly increasing order.
pub(crate) fn read_galois_keys(r: &mut Reader<'_>, params: &RlweParameters) -> Result<GaloisKeys> {
    let n = params.n();
    let count = r.read_u32("Galois key count")? as usize;
    // There are N odd elements below 2N; each key needs at least its seed.
    if count > n {
        return err(format!(
            "Galois key count {count} exceeds the N = {n} possible Galois elements"
        ));
    }
    r.require(count * (4 + 32), "Galois keys")?;
    // The map's table: at most twice its entries (load factor 7/8, rounded up to a
    // power of two), one control byte each.
    r.charge(
        2 * count as u64 * (std::mem::size_of::<(usize, GaloisKey)>() as u64 + 1) + 64,
        "the Galois key map",
    )?;
    let mut keys = HashMap::with_capacity(count);
    let mut last: Option<usize> = None;
    for _ in 0..count {
        let g = r.read_u32("Galois element")? as usize;
        if g.is_multiple_of(2) || g >= 2 * n {
            return err(format!(
                "Galois element {g} is not an odd number below 2N = {}",
                2 * n
            ));
        }
        if last.is_some_and(|l| g <= l) {
            return err(format!(
                "Galois elements are not in strictly increasing order ({g} after {})",
                last.unwrap_or(0)
            ));
        }
        last = Some(g);
        let key = read_switching_key(r, params, &format!("Galois key {g}"))?;
        keys.insert(
            g,
            GaloisKey {
                galois_element: g,
                key,
            },
        );
    }
    Ok(GaloisKeys { keys })
}
