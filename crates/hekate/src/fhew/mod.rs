//! FHEW gate bootstrapping (seed 002: Lee, Micciancio, Kim, Choi, Deryabin, Eom, Yoo,
//! "Efficient FHEW bootstrapping with small evaluation keys").
//!
//! * [`lwe`]: LWE secrets and ciphertexts, modulus switching, LWE key switching.
//! * Blind rotation, gates and presets build on [`crate::rlwe::gsw`] (RLWE', RGSW,
//!   external products, automorphism keys).

pub mod lwe;

pub use lwe::{LweCiphertext, LweKeySwitchKey, LweSecretDistribution, LweSecretKey};
