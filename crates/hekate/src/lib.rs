//! # hekate
//!
//! A lattice homomorphic-encryption library: full-RNS CKKS, BFV and BGV, and FHEW gate bootstrapping
//! (AP, GINX, LMKCDEY; threshold FHEW) on one RLWE core (parameters, keys, evaluator core,
//! and the hybrid, KLSS and linear key-switching engines behind one interface), built on
//! an RNS arithmetic layer with SIMD NTTs (AVX2, AVX-512, AVX-512 IFMA, chosen at run
//! time).
//!
//! `use hekate::prelude::*;` brings in what a first program needs ([`prelude`]).
//!
//! Layers, bottom up (each uses only the ones below it):
//!
//! * [`math`]: word-modulus arithmetic, NTT-friendly primes, the negacyclic NTT, samplers
//!   and the SIMD selection (the FFTs, RNS base conversion and SIMD kernels behind them are
//!   internal).
//! * [`ring`]: RNS polynomials over a prefix of a modulus chain, in coefficient or NTT form.
//! * [`rlwe`]: the core every RLWE scheme shares: modulus chains and special primes with
//!   the security check, keys and evaluation keys, the evaluator core (levels,
//!   automorphisms, hoisting, key lookup) and the key-switching engines.
//! * [`ckks`]: the CKKS scheme on that core: encoder, exact scales, rescaling, evaluation.
//! * [`bfv`], [`bgv`]: exact arithmetic mod `t` on that core (one shared implementation,
//!   [`rlwe::integer`]; BFV multiplies scale-invariantly, BGV switches moduli).
//! * [`mlwe`]: CKKS over module lattices (seed 004): ModHE and DPad-HE relinearization on
//!   the hybrid engine generalised to module secrets, with CKKS's encoder at degree `n`.
//! * [`fhew`]: FHEW gate bootstrapping with AP, GINX and automorphism-based (LMKCDEY)
//!   blind rotation.
//!
//! [`progress`] is the hook long calls (key generation) report their progress through.
//!
//! Start with [`ckks`]; `crates/hekate-cli/src/demo.rs` is a complete walk-through.

#![warn(missing_docs)]

pub mod bfv;
pub mod bgv;
pub mod circuits;
pub mod ckks;
mod error;
pub mod fhew;
pub mod math;
pub mod mlwe;
pub mod params;
pub mod prelude;
pub mod progress;
pub mod ring;
pub mod rlwe;
pub mod serialize;

pub use error::{Error, Result};

/// The CSPRNG crates hekate's `*_with` functions accept generators from (re-exported so
/// callers can seed one, e.g. `rand_chacha::ChaCha20Rng::seed_from_u64`, without adding
/// matching versions themselves).
pub use rand_chacha;
/// See [`rand_chacha`].
pub use rand_core;

#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// Compile-time check that contexts, keys, evaluators and ciphertexts of every scheme
/// are `Send + Sync`. (The FHEW evaluator owns its scratch buffers and evaluates through
/// `&mut self`, so sharing one by reference gives no concurrent evaluation: give each
/// thread its own, over the same `Arc`'d keys.)
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<ckks::CkksParameters>();
    shared::<ckks::CkksContext>();
    shared::<ckks::Evaluator>();
    shared::<ckks::Encoder>();
    shared::<ckks::Ciphertext>();
    shared::<ckks::Plaintext>();
    shared::<ckks::Scale>();
    shared::<circuits::lintrans::Diagonals<num_complex::Complex64>>();
    shared::<circuits::lintrans::BsgsPlan>();
    shared::<circuits::lintrans::LinearTransform<ckks::Evaluator>>();
    shared::<circuits::polyeval::Polynomial>();
    shared::<circuits::polyeval::PowerBasis<ckks::Evaluator>>();
    shared::<rlwe::RlweParameters>();
    shared::<rlwe::Evaluator>();
    shared::<rlwe::SecretKey>();
    shared::<rlwe::PublicKey>();
    shared::<rlwe::RelinearizationKey>();
    shared::<rlwe::GaloisKey>();
    shared::<rlwe::GaloisKeys>();
    shared::<rlwe::EvaluationKeySet>();
    shared::<rlwe::keyswitch::KeySwitchEngine>();
    shared::<rlwe::keyswitch::SwitchingKey>();
    shared::<params::ckks::CkksPreset>();
    shared::<rlwe::integer::IntegerContext>();
    shared::<rlwe::integer::Evaluator>();
    shared::<rlwe::integer::Ciphertext>();
    shared::<rlwe::integer::Plaintext>();
    shared::<fhew::FhewParams>();
    shared::<fhew::FhewContext>();
    shared::<fhew::FhewSecretKey>();
    shared::<fhew::BootstrapKey>();
    shared::<fhew::BlindRotationKey>();
    shared::<fhew::FourierKeys>();
    shared::<fhew::LweCiphertext>();
    shared::<fhew::LweSecretKey>();
    shared::<fhew::LweKeySwitchKey>();
    shared::<fhew::FhewEvaluator>();
    shared::<fhew::ThresholdContext>();
    shared::<mlwe::MlweContext>();
    shared::<mlwe::SecretKey>();
    shared::<mlwe::PublicKey>();
    shared::<mlwe::RelinearizationKey>();
    shared::<mlwe::Ciphertext>();
    shared::<mlwe::Evaluator>();
};
