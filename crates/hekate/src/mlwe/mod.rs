//! MLWE-based CKKS: ModHE and DPad-HE (seed 004).
//!
//! A rank-`r` ciphertext is `1 + r` polynomials of a small degree `n`, `(b, a_1 .. a_r)`
//! with `b + <a, s> ≈ Δ m` for a vector secret `s ∈ R_n^r`: an MLWE sample of dimension
//! `N = r·n`, as hard as RLWE at `N` (the security check interpolates the
//! HomomorphicEncryption.org table at `r·n`), while every transform is an `n`-point one
//! and the slots are `n/2`.
//!
//! * [`MlweParameters`] / [`MlweContext`]: the ring `R_n` over `Q ∪ P` (and `Q ∪ P̂` for
//!   DPad-HE), the rank, `KeySwitch_d` and `KeySwitch_μ` (the hybrid engine generalised
//!   to module secrets, [`crate::rlwe::ModuleKey`]).
//! * [`SecretKey`], [`PublicKey`], [`RelinearizationKey`]: keys; relinearization by ModHE
//!   (`KSGen(s⊗s, s)`) or DPad-HE (a cross-relinearization key to a temporary rank
//!   `r̂` over `P̂Q` with `μ` digits, then a rank-down key back to `r`; Alg. 1).
//! * [`Evaluator`]: additions, plaintext and constant operations, the tensor product,
//!   relinearization (ModHE, DPad-HE), rescaling and rank reduction.
//! * [`RlweBridge`]: MLWE <-> RLWE conversion with CKKS at `N = r·n` (Embed / Extract in
//!   NTT form, the trace that turns an embedded ciphertext into sparse slots).
//! * Serialization: the parameters ([`crate::serialize::mlwe_context_to_bytes`]), ciphertexts,
//!   every key and plaintexts (through [`MlwePlaintext`], or
//!   [`MlweContext::plaintext_to_bytes`]) implement [`crate::serialize::Serialize`] and
//!   [`crate::serialize::Deserialize`] under an [`MlweContext`] (tags `0x0200..=0x0208`).

//!
//! Messages are encoded by CKKS's encoder at degree `n` into a [`crate::ckks::Plaintext`],
//! and scales are [`crate::ckks::Scale`]s: MLWE-CKKS is CKKS over module lattices, so it
//! builds on the `ckks` module's encoding (the dependency goes one way; `ckks` knows
//! nothing of `mlwe`).
//!
//! ```
//! use hekate::mlwe::{MlweParameters, Evaluator, RelinMethod};
//! use hekate::params::SecurityLevel;
//!
//! let ctx = MlweParameters::new(10, 2).log_q(&[50, 40, 40]).log_p(&[60]).log_scale(40)
//!     .dpad(3, &[60, 55], None)
//!     .security(SecurityLevel::NotChecked) // toy size; real sets have r·n >= 2^14
//!     .build()?;
//! let sk = ctx.generate_secret_key();
//! let pk = ctx.generate_public_key(&sk)?;
//! let eval = Evaluator::new(ctx.clone(),
//!     Some(ctx.generate_relinearization_key(&sk, RelinMethod::DPad)?));
//! let x = ctx.encrypt(&ctx.encode_real(&[1.5, -2.0])?, &pk)?;
//! let y = eval.rescale(&eval.mul(&x, &x)?)?;
//! let out = ctx.decrypt_decode(&y, &sk)?;
//! assert!((out[0].re - 2.25).abs() < 1e-4 && (out[1].re - 4.0).abs() < 1e-4);
//! # Ok::<(), hekate::Error>(())
//! ```

mod ciphertext;
mod convert;
mod cost;
mod encrypt;
mod evaluator;
mod keys;
mod params;
mod rotate;
pub(crate) mod serialize;
pub use serialize::MlwePlaintext;

pub use ciphertext::Ciphertext;
pub use convert::{RlweBridge, TRACE_GAIN_BITS};
pub use cost::OpCount;
pub use evaluator::Evaluator;
pub use keys::{
    quadratic_terms, PublicKey, RankReductionKey, RelinMethod, RelinearizationKey, SecretKey,
};
pub use params::{mlwe_fingerprint, DpadContext, MlweContext, MlweParameters, MAX_RANK};
pub use rotate::{naf, HoistedRotationKeys, RotationKey};

#[cfg(test)]
mod tests;
