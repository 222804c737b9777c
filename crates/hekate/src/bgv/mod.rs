//! BGV: exact arithmetic mod `t` with modulus switching (seed 001 §II-A).
//!
//! A thin scheme over the shared integer core ([`crate::rlwe::integer`]): Lattigo's
//! representation (the plaintext times `t^-1 mod Q`, noise not scaled by `t`), so the
//! three key-switching engines, their keys and hoisting are the CKKS ones, and a modulus
//! switch is the CKKS rescale with the correction factor `q_ℓ^-1 mod t` tracked in the
//! ciphertext. By default every product ends with the modulus switches its noise needs
//! ([`ModSwitching::Auto`]); [`ModSwitching::Manual`] leaves them to
//! [`Evaluator::mod_switch`].
//!
//! Slots form a `2 × N/2` matrix (with `t` prime, `t ≡ 1 mod 2N`):
//! [`Evaluator::rotate_rows`] rotates both rows (SEAL's `rotate_rows`, Lattigo's
//! `RotateColumns`), [`Evaluator::rotate_columns`] swaps them (SEAL's `rotate_columns`,
//! Lattigo's `RotateRows`).
//!
//! ```
//! use hekate::bgv::{BgvParameters, Evaluator};
//! use hekate::params::SecurityLevel;
//!
//! let ctx = BgvParameters::new(12).plaintext_modulus(65537)
//!     .log_q(&[55, 45, 45]).log_p(&[56])
//!     .security(SecurityLevel::NotChecked) // toy size; use the presets for real work
//!     .build()?;
//! let sk = ctx.generate_secret_key();
//! let pk = ctx.generate_public_key(&sk);
//! let eval = Evaluator::new(ctx.clone(), Some(ctx.generate_relinearization_key(&sk)),
//!                           ctx.generate_galois_keys(&sk, &[1], false));
//! let x = ctx.encrypt(&ctx.encode(&[3, 4, 5])?, &pk)?;
//! let y = eval.rotate_rows(&eval.mul(&x, &x)?, 1)?;   // x^2, rows rotated left by one
//! assert_eq!(&ctx.decrypt_decode(&y, &sk)?[..2], &[16, 25]);
//! # Ok::<(), hekate::Error>(())
//! ```

pub use crate::rlwe::integer::{
    Ciphertext, Evaluator, IntegerContext as BgvContext, ModSwitching, Plaintext, PlaintextModulus,
};
use crate::rlwe::integer::{IntegerParameters, Scheme};

/// The entry point of BGV parameters: [`BgvParameters::new`] returns the shared builder
/// ([`IntegerParameters`]) set to BGV.
#[derive(Clone, Copy, Debug)]
pub struct BgvParameters;

impl BgvParameters {
    /// BGV parameters at ring degree `N = 2^log_n` (then `.plaintext_modulus(t)`,
    /// `.log_q(..)`, `.log_p(..)`, ..., `.build()`).
    #[allow(clippy::new_ret_no_self)]
    pub fn new(log_n: u32) -> IntegerParameters {
        IntegerParameters::new(Scheme::Bgv, log_n)
    }
}
