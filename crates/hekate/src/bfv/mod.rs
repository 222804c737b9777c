//! BFV: scale-invariant exact arithmetic mod `t` (seed 001 §II-A).
//!
//! A thin scheme over the shared integer core ([`crate::rlwe::integer`]): the same
//! ciphertexts, keys, encoders and evaluator as [BGV](crate::bgv), with the product
//! replaced by the scale-invariant tensor `round(t/Q · ct_a ⊗ ct_b)` over an auxiliary
//! basis (two roundings, [`MulVariant::Exact`] and [`MulVariant::Hps`]), so products keep
//! every level and no modulus switching is needed.
//!
//! ```
//! use hekate::bfv::{BfvParameters, Evaluator};
//! use hekate::params::SecurityLevel;
//!
//! let ctx = BfvParameters::new(12).plaintext_modulus(65537)
//!     .log_q(&[60, 60, 60]).log_p(&[61])
//!     .security(SecurityLevel::NotChecked) // toy size; use the presets for real work
//!     .build()?;
//! let sk = ctx.generate_secret_key();
//! let pk = ctx.generate_public_key(&sk);
//! let eval = Evaluator::new(ctx.clone(), Some(ctx.generate_relinearization_key(&sk)),
//!                           ctx.generate_galois_keys(&sk, &[], true));
//! let x = ctx.encrypt(&ctx.encode(&[3, 4, 5])?, &pk)?;
//! let y = eval.mul(&x, &x)?;                            // x^2, still at the top level
//! assert_eq!(&ctx.decrypt_decode(&y, &sk)?[..3], &[9, 16, 25]);
//! # Ok::<(), hekate::Error>(())
//! ```

pub use crate::rlwe::integer::{
    Ciphertext, Evaluator, IntegerContext as BfvContext, MulVariant, Plaintext, PlaintextModulus,
};
use crate::rlwe::integer::{IntegerParameters, Scheme};

/// The entry point of BFV parameters: [`BfvParameters::new`] returns the shared builder
/// ([`IntegerParameters`]) set to BFV.
#[derive(Clone, Copy, Debug)]
pub struct BfvParameters;

impl BfvParameters {
    /// BFV parameters at ring degree `N = 2^log_n` (then `.plaintext_modulus(t)`,
    /// `.log_q(..)`, `.log_p(..)`, `.mul_variant(..)`, ..., `.build()`).
    #[allow(clippy::new_ret_no_self)]
    pub fn new(log_n: u32) -> IntegerParameters {
        IntegerParameters::new(Scheme::Bfv, log_n)
    }
}
