//! Named parameter presets and the security table they are checked against.
//!
//! [`security`] holds the HomomorphicEncryption.org table of the largest modulus
//! `log2(QP)` allowed per ring degree and security level, and the check every parameter
//! set goes through.

pub mod security;

pub use security::SecurityLevel;
