//! Named parameter presets and the security table they are checked against.
//!
//! * [`ckks`]: CKKS parameter sets for `N = 2^12 .. 2^16`, each with its depth and
//!   precision ([`ckks::PRESETS`]).
//! * [`integer`]: BFV and BGV chains sized from `(t, depth, security)` ([`integer::for_depth`]).
//! * [`mlwe`]: the MLWE-CKKS sets of seed 004 (Table 3, Sets I-VI), with `μ` stated.
//! * [`fhew`]: the FHEW parameter sets of seed 002 and OpenFHE ([`fhew::PRESETS`]).
//! * [`security`]: the HomomorphicEncryption.org table of the largest modulus
//!   `log2(QP)` allowed per ring degree and security level, and the check every parameter
//!   set goes through.

pub mod ckks;
pub mod fhew;
pub mod integer;
pub mod mlwe;
pub mod security;

pub use security::SecurityLevel;
