//! FHEW gate bootstrapping (seed 002: Lee, Micciancio, Kim, Choi, Deryabin, Eom, Yoo,
//! "Efficient FHEW bootstrapping with small evaluation keys").
//!
//! * [`lwe`]: LWE secrets and ciphertexts, modulus switching, LWE key switching.
//! * Blind rotation ([`BlindRotationKey`], [`Method`], [`MethodConfig`]): AP, GINX and the
//!   automorphism-based LMKCDEY Algorithms 3, 4, 5, each with RGSW keys or RLWE' keys
//!   (ALTMULT), full or reduced automorphism key sets.
//! * Gates ([`FhewContext`], [`FhewEvaluator`]): keys, bit and small-integer encryption,
//!   gates, majority, look-up tables.
//! * [`params`]: the paper's Table 3 sets and OpenFHE 1.6.1's sets.
//! * [`noise`]: the predicted blind-rotation noise and the gate failure bound
//!   evaluators are held to.
//! * [`security`]: the security estimate every context is checked against (128 bits by
//!   default; weaker sets only with [`SecurityLevel::NotChecked`](crate::params::SecurityLevel::NotChecked)).
//! * [`threshold`]: threshold FHEW (seed 002 §6): `k` parties, distributed key generation,
//!   threshold decryption.
//!
//! The RLWE' / RGSW building blocks live in [`crate::rlwe::gsw`].
//!
//! ```no_run
//! use hekate::fhew::{params, BootstrapKey, FhewContext, FhewEvaluator, FhewSecretKey, Gate};
//! use hekate::fhew::params::{Method, MethodConfig};
//! use std::sync::Arc;
//! # fn main() -> hekate::Result<()> {
//! let mut rng = hekate::math::sample::os_rng();
//! let ctx = FhewContext::new(&params::OPENFHE_STD128)?;
//! let sk = FhewSecretKey::generate(&ctx, &mut rng)?;
//! let key = BootstrapKey::generate(&ctx, &sk, MethodConfig::new(Method::LmkcdeyAux), &mut rng)?;
//! let mut ev = FhewEvaluator::new(ctx.clone(), Arc::new(key))?;
//! let (a, b) = (sk.encrypt_bit(&ctx, true, &mut rng)?, sk.encrypt_bit(&ctx, false, &mut rng)?);
//! let c = ev.gate(Gate::Nand, &a, &b)?;
//! assert!(sk.decrypt_bit(&c)?);
//! # Ok(()) }
//! ```

pub(crate) mod blindrotate;
pub(crate) mod gates;
pub mod lwe;
pub mod noise;
pub mod params;
pub mod security;
pub mod threshold;

pub use blindrotate::{
    BlindRotationKey, BrkElement, FourierKeys, FourierScratch, GadgetDecomposition, StepOrder,
};
pub use gates::{
    test_vector, BootstrapKey, FhewContext, FhewEvaluator, FhewSecretKey, Gate, RotationArithmetic,
};
pub use lwe::{KsMasks, LweCiphertext, LweKeySwitchKey, LweSecretDistribution, LweSecretKey};
pub use params::{AutoKeySet, FhewParams, Method, MethodConfig};
pub use security::FhewSecurity;
pub use threshold::{
    CommonRandomString, EvalKeyShare, KeyCombiner, KeySwitchShare, PartialDecryption,
    PublicKeyShare, SecretShare, ThresholdContext, ThresholdParams, ThresholdPublicKey,
};
