//! RLWE keys, encryption primitives shared by the schemes, and key switching.
//!
//! Key switching turns a polynomial `c` that decrypts under `s'` (as `c · s'`) into a pair
//! `(u0, u1)` with `u0 + u1 · s ≈ c · s'`, using a switching key (a gadget encryption of
//! `s'` under `s`). Relinearization (`s' = s^2`), rotations (`s' = s(X^k)`) and
//! conjugation are all instances. The [`keyswitch::KeySwitcher`] interface exposes the
//! steps separately so hoisting and double hoisting can share or postpone them.
//!
//! [`gsw`] holds the single-prime gadget encryptions (RLWE', RGSW, external products,
//! automorphism keys) that FHEW blind rotation is made of.

pub mod gsw;
pub mod keys;
pub mod keyswitch;

pub use keys::{PublicKey, SecretDistribution, SecretKey};
pub use keyswitch::{HybridKey, HybridKeySwitcher, KeySwitcher};
