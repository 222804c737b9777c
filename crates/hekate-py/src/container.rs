//! Containers of several hekate objects in one byte string (an `LweArray`'s ciphertexts,
//! a party's partial decryptions): an 8-byte magic naming the container, a u64 count, then
//! per object a u64 length and the object in hekate's own validated format. Every length is
//! little-endian and checked against the bytes left before anything is allocated.

/// `items` written as a container with `magic`.
pub(crate) fn write_container(magic: &[u8; 8], items: &[Vec<u8>]) -> Vec<u8> {
    let len = 16 + items.iter().map(|b| 8 + b.len()).sum::<usize>();
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(magic);
    out.extend_from_slice(&(items.len() as u64).to_le_bytes());
    for b in items {
        out.extend_from_slice(&(b.len() as u64).to_le_bytes());
        out.extend_from_slice(b);
    }
    out
}

/// The objects of a container with `magic`, each read by `parse`.
pub(crate) fn read_container<T>(
    bytes: &[u8],
    magic: &[u8; 8],
    what: &str,
    mut parse: impl FnMut(&[u8]) -> hekate::Result<T>,
) -> hekate::Result<Vec<T>> {
    let bad = |m: &str| hekate::Error::Deserialize(format!("{what}: {m}"));
    let mut rest = bytes
        .strip_prefix(magic.as_slice())
        .ok_or_else(|| bad("not a hekate container of this kind (wrong magic)"))?;
    let count = read_u64(&mut rest).ok_or_else(|| bad("truncated"))?;
    // Each object takes at least its 8-byte length: bound the count by the input.
    if count > (rest.len() / 8) as u64 {
        return Err(bad("the count exceeds the bytes given"));
    }
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let len = read_u64(&mut rest).ok_or_else(|| bad("truncated"))?;
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l <= rest.len())
            .ok_or_else(|| bad("truncated"))?;
        let (one, tail) = rest.split_at(len);
        out.push(parse(one)?);
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(bad("trailing bytes"));
    }
    Ok(out)
}

fn read_u64(b: &mut &[u8]) -> Option<u64> {
    let v = u64::from_le_bytes(b.get(..8)?.try_into().ok()?);
    *b = &b[8..];
    Some(v)
}
