//! A reusable check of the serialization contract (for tests of every serializable type).

use super::{Deserialize, ReadPolicy, HEADER_LEN};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A small deterministic generator (SplitMix64) so the checks need no dependency.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Decodes `bytes`, turning a panic into a test failure that names the `case`.
fn decode<T: Deserialize>(
    bytes: &[u8],
    ctx: &T::Context,
    policy: &ReadPolicy,
    case: &str,
) -> crate::Result<T> {
    match catch_unwind(AssertUnwindSafe(|| T::from_bytes_with(bytes, ctx, policy))) {
        Ok(r) => r,
        Err(_) => panic!("from_bytes panicked on {case}"),
    }
}

/// Checks the serialization contract of `obj` and panics (naming the broken rule) if it
/// does not hold:
///
/// * `from_bytes(to_bytes(obj)) == obj` (by `eq`), and `to_bytes` is deterministic;
/// * objects written back to back into one [`Writer`](super::Writer) read back in order;
/// * every truncation in a sample of cut points (0, 1, around the header boundary, a
///   middle and `len - 1`, every cut when the encoding is short, 64 random ones
///   otherwise) is an `Err`;
/// * flipping any header byte is an `Err`; random byte flips in the body give an `Err` or
///   an object that re-serializes to exactly the flipped bytes (unique encodings), never a
///   panic;
/// * trailing bytes are an `Err`;
/// * decoding under `other_ctx` (other parameters) is an `Err`.
///
/// `eq` compares two objects (for types without `PartialEq`, such as secret keys).
pub fn check_contract<T, F>(obj: &T, ctx: &T::Context, other_ctx: &T::Context, eq: F)
where
    T: Deserialize,
    F: Fn(&T, &T) -> bool,
{
    check(obj, ctx, Some(other_ctx), &ReadPolicy::default(), eq);
}

/// [`check_contract`] for a self-contained type (one read without parameters, such as
/// [`CkksContext`](crate::ckks::CkksContext)): every check but the one with other
/// parameters. Such a type must still reject a flip of any header byte, the fingerprint
/// included (it is checked against the object's contents).
pub fn check_contract_standalone<T, F>(obj: &T, eq: F)
where
    T: Deserialize<Context = ()>,
    F: Fn(&T, &T) -> bool,
{
    check(obj, &(), None, &ReadPolicy::default(), eq);
}

/// [`check_contract_standalone`] reading under `policy` (e.g. test parameters below
/// 128 bits, read with an explicit [`SecurityLevel::NotChecked`](crate::params::SecurityLevel::NotChecked)).
pub fn check_contract_standalone_with<T, F>(obj: &T, policy: &ReadPolicy, eq: F)
where
    T: Deserialize<Context = ()>,
    F: Fn(&T, &T) -> bool,
{
    check(obj, &(), None, policy, eq);
}

fn check<T, F>(
    obj: &T,
    ctx: &T::Context,
    other_ctx: Option<&T::Context>,
    policy: &ReadPolicy,
    eq: F,
) where
    T: Deserialize,
    F: Fn(&T, &T) -> bool,
{
    let bytes = obj
        .to_bytes(ctx)
        .unwrap_or_else(|e| panic!("the object is not writable under its context: {e}"));
    assert!(bytes.len() > HEADER_LEN, "encoding shorter than a header");
    assert_eq!(
        Some(&bytes),
        obj.to_bytes(ctx).ok().as_ref(),
        "to_bytes is not deterministic"
    );
    let back = decode::<T>(&bytes, ctx, policy, "the original encoding")
        .unwrap_or_else(|e| panic!("round trip failed: {e}"));
    assert!(eq(obj, &back), "round trip changed the object");
    assert_eq!(
        back.to_bytes(ctx).ok().as_ref(),
        Some(&bytes),
        "re-encoding differs"
    );

    // Streaming: two objects back to back.
    let mut w = super::Writer::new();
    for _ in 0..2 {
        obj.write(&mut w, ctx).expect("writable");
    }
    let two = w.into_bytes();
    let mut r = super::Reader::with_policy(&two, *policy);
    for k in 0..2 {
        let x = T::read(&mut r, ctx).unwrap_or_else(|e| panic!("streamed object {k}: {e}"));
        assert!(eq(obj, &x), "streamed object {k} differs");
    }
    r.finish().expect("stream fully consumed");

    let mut rng = SplitMix(0x5EED_0F5E_71A1);
    let len = bytes.len();

    // Truncations.
    let mut cuts = vec![
        0,
        1,
        HEADER_LEN - 1,
        HEADER_LEN,
        HEADER_LEN + 1,
        len / 2,
        len - 1,
    ];
    if len <= 4096 {
        cuts.extend(0..len);
    } else {
        cuts.extend((0..64).map(|_| rng.below(len)));
    }
    for cut in cuts {
        let case = format!("a truncation to {cut} of {len} bytes");
        assert!(
            decode::<T>(&bytes[..cut], ctx, policy, &case).is_err(),
            "{case} was accepted"
        );
    }

    // Header flips: every header byte is checked.
    for pos in 0..HEADER_LEN {
        for bit in [0x01u8, 0x80] {
            let mut m = bytes.clone();
            m[pos] ^= bit;
            let case = format!("a flip of bit {bit:#04x} in header byte {pos}");
            assert!(
                decode::<T>(&m, ctx, policy, &case).is_err(),
                "{case} was accepted"
            );
        }
    }

    // Random body flips.
    for _ in 0..200 {
        let mut m = bytes.clone();
        let pos = HEADER_LEN + rng.below(len - HEADER_LEN);
        let x = 1 + rng.below(255) as u8;
        m[pos] ^= x;
        let case = format!("a flip by {x:#04x} at byte {pos} of {len}");
        if let Ok(o) = decode::<T>(&m, ctx, policy, &case) {
            assert_eq!(
                o.to_bytes(ctx).ok().as_ref(),
                Some(&m),
                "{case} was accepted but does not re-encode to the same bytes"
            );
        }
    }

    // Trailing bytes.
    for extra in [&[0u8][..], &[0xAB; 7], &bytes[..HEADER_LEN]] {
        let mut m = bytes.clone();
        m.extend_from_slice(extra);
        let case = format!("{} trailing bytes", extra.len());
        assert!(
            decode::<T>(&m, ctx, policy, &case).is_err(),
            "{case} were accepted"
        );
    }

    // Other parameters.
    if let Some(other_ctx) = other_ctx {
        assert!(
            decode::<T>(&bytes, other_ctx, policy, "another context").is_err(),
            "decoding under another context was accepted"
        );
    }
}
