//! What a first CKKS or FHEW program needs, in one import:
//!
//! ```
//! use hekate::prelude::*;
//!
//! let ctx = CkksParameters::new(12).log_q(&[50, 30]).log_p(&[55]).log_scale(30)
//!     .security(SecurityLevel::NotChecked) // toy size for the example
//!     .build()?;
//! let sk = ctx.generate_secret_key();
//! let eval = CkksEvaluator::new(ctx.clone(), Some(ctx.generate_relinearization_key(&sk)),
//!                               GaloisKeys::new());
//! let x = ctx.encrypt_symmetric(&ctx.encode(&[Complex64::new(0.5, 1.0)])?, &sk)?;
//! let y = eval.rescale(&eval.mul(&x, &x)?)?;
//! assert!((ctx.decrypt_decode(&y, &sk)?[0] - Complex64::new(-0.75, 1.0)).norm() < 1e-3);
//! # Ok::<(), hekate::Error>(())
//! ```
//!
//! The schemes follow one naming convention: a context built from parameters
//! ([`CkksContext`], [`FhewContext`]), keys generated from it, and an evaluator over the
//! context and the evaluation keys ([`CkksEvaluator`], [`FhewEvaluator`]). `Result` is not
//! re-exported, so that it does not shadow the standard one; use `hekate::Result`.

pub use crate::ckks::{
    Ciphertext, CkksContext, CkksParameters, Evaluator as CkksEvaluator, GaloisKeys, Plaintext,
    RelinearizationKey, Scale,
};
pub use crate::fhew::{
    BootstrapKey, FhewContext, FhewEvaluator, FhewSecretKey, Gate, LweCiphertext, Method,
    MethodConfig,
};
pub use crate::params::SecurityLevel;
pub use crate::rlwe::keyswitch::{KeySwitchMethod, KlssConfig};
pub use crate::rlwe::{PublicKey, SecretDistribution, SecretKey};
pub use crate::serialize::{Deserialize, Serialize};
pub use crate::Error;
pub use num_complex::Complex64;
