//! The RLWE core every scheme shares: parameters (modulus chain, special primes, security
//! check), keys and evaluation keys with their generation, the evaluator core (levels,
//! automorphisms, hoisting, key lookup) and key switching.
//!
//! Key switching turns a polynomial `c` that decrypts under `s'` (as `c · s'`) into a pair
//! `(u0, u1)` with `u0 + u1 · s ≈ c · s'`, using a switching key (a gadget encryption of
//! `s'` under `s`). Relinearization (`s' = s^2`), rotations (`s' = s(X^k)`) and
//! conjugation are all instances. The [`keyswitch::KeySwitcher`] interface exposes the
//! steps separately so hoisting and double hoisting can share or postpone them;
//! [`evaluator::Evaluator`] builds the schemes' operations on them.
//!
//! [`gsw`] holds the single-prime gadget encryptions (RLWE', RGSW, external products,
//! automorphism keys) that FHEW blind rotation is made of.

pub mod backend;
pub mod evaluation_keys;
pub mod evaluator;
pub mod gsw;
pub mod integer;
pub mod keys;
pub mod keyswitch;
pub mod params;
pub(crate) mod serialize;

pub use backend::Backend;
pub use evaluation_keys::{EvaluationKeySet, GaloisKey, GaloisKeys, RelinearizationKey};
pub use evaluator::{Evaluator, ExtendedBlock, HoistedDecomposition, KeySwitchCounts};
pub use keys::{PublicKey, SecretDistribution, SecretKey};
pub use keyswitch::{HybridKey, HybridKeySwitcher, KeySwitcher, ModuleKey};
pub use params::{ChainBuilder, RlweParameters, DEFAULT_SPECIAL_PRIME_BITS};
