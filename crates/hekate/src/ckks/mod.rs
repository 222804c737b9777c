//! Full-RNS CKKS (approximate homomorphic encryption over complex numbers).
//!
//! CKKS is a thin scheme over the [RLWE core](crate::rlwe): the parameters wrap
//! [`RlweParameters`](crate::rlwe::RlweParameters) (chain, special primes, security check)
//! and add the scale and the encoder; the evaluator embeds the core
//! [`rlwe::Evaluator`](crate::rlwe::Evaluator) (keys, automorphisms, hoisting) and adds
//! exact scale tracking and rescaling. The evaluation keys are the core's, re-exported here.
//!
//! ```
//! use hekate::ckks::{CkksParameters, Evaluator};
//! use hekate::params::SecurityLevel;
//!
//! let ctx = CkksParameters::new(12).log_q(&[50, 30]).log_p(&[55]).log_scale(30)
//!     .security(SecurityLevel::NotChecked) // toy size for the example; use N >= 2^14 for real
//!     .build()?;
//! let sk = ctx.generate_secret_key();
//! let pk = ctx.generate_public_key(&sk);
//! let eval = Evaluator::new(ctx.clone(), Some(ctx.generate_relinearization_key(&sk)),
//!                           ctx.generate_galois_keys(&sk, &[1], false));
//! let x = ctx.encrypt(&ctx.encode_real(&[1.5, 2.0, -0.5])?, &pk)?;
//! let y = eval.rescale(&eval.mul(&x, &x)?)?;          // x^2
//! let y = eval.rotate(&y, 1)?;                        // slots shifted left by one
//! let out = ctx.decrypt_decode(&y, &sk)?;
//! assert!((out[0].re - 4.0).abs() < 1e-3 && (out[1].re - 0.25).abs() < 1e-3);
//! # Ok::<(), hekate::Error>(())
//! ```

pub mod bootstrap;
mod ciphertext;
mod encoder;
mod encrypt;
mod evaluator;
mod params;
mod scale;
pub(crate) mod serialize;

pub use crate::rlwe::evaluation_keys::{
    EvaluationKeySet, GaloisKey, GaloisKeys, RelinearizationKey,
};
pub use crate::rlwe::params::DEFAULT_SPECIAL_PRIME_BITS;
pub use ciphertext::{Ciphertext, Plaintext};
pub use encoder::Encoder;
pub use evaluator::{constant_residues, Evaluator};
pub use params::{CkksContext, CkksParameters};
pub use scale::Scale;
