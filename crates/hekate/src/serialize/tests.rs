//! The tag registry: every type's tag is distinct and inside its scheme's block, and the
//! blocks do not overlap.

use super::{ObjectTag, TAG_BLOCKS};

#[test]
fn tags_are_distinct_and_inside_their_blocks() {
    let mut seen: Vec<ObjectTag> = Vec::new();
    for (i, b) in TAG_BLOCKS.iter().enumerate() {
        assert!(b.first <= b.last, "{}: empty block", b.scheme);
        assert!(b.first > 0, "{}: code 0 is reserved", b.scheme);
        for other in &TAG_BLOCKS[..i] {
            assert!(
                b.first > other.last || b.last < other.first,
                "the {} and {} blocks overlap",
                b.scheme,
                other.scheme
            );
        }
        for &t in b.tags {
            assert!(
                (b.first..=b.last).contains(&t.code()),
                "{} (tag {}) is outside the {} block {:#06x}..={:#06x}",
                t.name(),
                t.code(),
                b.scheme,
                b.first,
                b.last
            );
            assert!(
                seen.iter()
                    .all(|s| s.code() != t.code() && s.name() != t.name()),
                "{} (tag {}) repeats a code or name",
                t.name(),
                t.code()
            );
            assert_eq!(ObjectTag::from_code(t.code()), Some(t));
            seen.push(t);
        }
    }
    assert_eq!(ObjectTag::from_code(0), None);
    assert_eq!(ObjectTag::from_code(99), None);
}

/// The codes and names of version 1, written down once: they are in the bytes (and the
/// messages) of every object ever written, so none may change.
#[test]
fn version_1_codes_are_frozen() {
    use crate::ckks::{Ciphertext, CkksContext, GaloisKeys, Plaintext, RelinearizationKey};
    use crate::fhew::threshold::{
        EvalKeyShare, PartialDecryption, PublicKeyShare, ThresholdPublicKey,
    };
    use crate::fhew::{
        BlindRotationKey, BootstrapKey, FhewParams, FhewSecretKey, LweCiphertext, LweKeySwitchKey,
        LweSecretKey,
    };
    use crate::mlwe;
    use crate::ring::Poly;
    use crate::rlwe::integer::serialize::IntegerKey;
    use crate::rlwe::integer::{
        Ciphertext as IntCiphertext, IntegerContext, Plaintext as IntPlaintext,
    };
    use crate::rlwe::{HybridKey, PublicKey, SecretKey};
    use crate::serialize::Serialize;
    fn tag<T: Serialize + ?Sized>() -> (u16, &'static str) {
        (T::TAG.code(), T::TAG.name())
    }
    // Evaluation keys under an integer context (their codec is not the `Serialize` one).
    fn key_tag<K: IntegerKey>() -> (u16, &'static str) {
        (K::TAG.code(), K::TAG.name())
    }
    let expected = [
        (tag::<Poly>(), (1, "polynomial")),
        (tag::<SecretKey>(), (2, "secret key")),
        (tag::<PublicKey>(), (3, "public key")),
        (tag::<HybridKey>(), (4, "hybrid switching key")),
        (tag::<CkksContext>(), (16, "CKKS parameters")),
        (tag::<Plaintext>(), (17, "CKKS plaintext")),
        (tag::<Ciphertext>(), (18, "CKKS ciphertext")),
        (tag::<RelinearizationKey>(), (19, "relinearization key")),
        (tag::<GaloisKeys>(), (20, "Galois keys")),
        (
            tag::<crate::ckks::bootstrap::EncapsulationKeys>(),
            (21, "encapsulation keys"),
        ),
        (tag::<FhewParams>(), (32, "FHEW parameters")),
        (tag::<LweCiphertext>(), (33, "LWE ciphertext")),
        (tag::<LweSecretKey>(), (34, "LWE secret key")),
        (tag::<FhewSecretKey>(), (35, "FHEW secret key")),
        (tag::<LweKeySwitchKey>(), (36, "LWE key-switching key")),
        (tag::<BlindRotationKey>(), (37, "blind-rotation key")),
        (tag::<BootstrapKey>(), (38, "bootstrapping key")),
        (tag::<PublicKeyShare>(), (39, "threshold public-key share")),
        (
            tag::<EvalKeyShare>(),
            (40, "threshold evaluation-key share"),
        ),
        (tag::<PartialDecryption>(), (41, "partial decryption")),
        (tag::<ThresholdPublicKey>(), (42, "threshold public key")),
        (tag::<IntegerContext>(), (256, "BFV/BGV parameters")),
        (tag::<IntPlaintext>(), (257, "BFV/BGV plaintext")),
        (tag::<IntCiphertext>(), (258, "BFV/BGV ciphertext")),
        (
            key_tag::<RelinearizationKey>(),
            (259, "BFV/BGV relinearization key"),
        ),
        (key_tag::<GaloisKeys>(), (260, "BFV/BGV Galois keys")),
        (tag::<mlwe::MlweContext>(), (0x0200, "MLWE parameters")),
        (tag::<mlwe::Ciphertext>(), (0x0201, "MLWE ciphertext")),
        (tag::<mlwe::SecretKey>(), (0x0202, "MLWE secret key")),
        (tag::<mlwe::PublicKey>(), (0x0203, "MLWE public key")),
        (
            tag::<mlwe::RelinearizationKey>(),
            (0x0204, "MLWE relinearization key"),
        ),
        (
            tag::<mlwe::RankReductionKey>(),
            (0x0205, "MLWE rank-reduction key"),
        ),
        (tag::<mlwe::RotationKey>(), (0x0206, "MLWE rotation key")),
        (
            tag::<mlwe::HoistedRotationKeys>(),
            (0x0207, "MLWE hoisted rotation keys"),
        ),
        (tag::<mlwe::MlwePlaintext>(), (0x0208, "MLWE plaintext")),
    ];
    for (got, want) in expected {
        assert_eq!(got, want);
    }
    let registered: usize = TAG_BLOCKS.iter().map(|b| b.tags.len()).sum();
    assert_eq!(
        registered,
        expected.len(),
        "a type's tag is missing from its block"
    );
}
