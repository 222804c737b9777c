//! The encodings of the FHEW types: parameters (`params`), LWE ciphertexts, secrets and
//! key-switching keys (`lwe`), and the seed-compressed blind-rotation and bootstrapping
//! keys (`keys`); tags 32–38, layouts in the module documentation of [`crate::serialize`].

mod keys;
mod lwe;
mod params;

pub(crate) use keys::{read_brk, write_brk_parts, BrkParts, KeyRef};
pub(crate) use lwe::{ksk_shape, read_beta, read_ks_bases, write_beta};
pub use params::{
    fhew_context_from_bytes, fhew_context_from_bytes_with, fhew_context_to_bytes, fhew_fingerprint,
    fhew_params_from_bytes,
};

use crate::fhew::{
    BlindRotationKey, BootstrapKey, FhewParams, FhewSecretKey, LweCiphertext, LweKeySwitchKey,
    LweSecretKey,
};
use crate::serialize::{Serialize, TagBlock};

/// The FHEW block of object tags, `0x0020..=0x0026` (threshold FHEW has the next block).
pub(crate) const TAGS: TagBlock = TagBlock {
    scheme: "FHEW",
    first: 0x0020,
    last: 0x0026,
    tags: &[
        <FhewParams as Serialize>::TAG,
        <LweCiphertext as Serialize>::TAG,
        <LweSecretKey as Serialize>::TAG,
        <FhewSecretKey as Serialize>::TAG,
        <LweKeySwitchKey as Serialize>::TAG,
        <BlindRotationKey as Serialize>::TAG,
        <BootstrapKey as Serialize>::TAG,
    ],
};

/// The largest LWE dimension `n` the format accepts (every real FHEW set has `n` of a
/// few hundred to about a thousand).
pub const MAX_LWE_DIM: usize = 1 << 12;

/// The largest FHEW ring degree `N` the format accepts (every preset has `N <= 2^11`).
pub const MAX_FHEW_RING_DIM: usize = 1 << 12;

/// The smallest `log2 Q_ks` the format accepts (presets use 14 to 18; below about 7 bits
/// the key-switching noise alone exceeds the decision margin of `q/8` for any useful `n`).
pub const MIN_LOG_Q_KS: u32 = 7;

/// The largest number of runs of a `B_g` schedule the format accepts.
pub const MAX_SCHEDULE_RUNS: usize = 64;
