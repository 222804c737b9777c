//! The one error type of hekate.
//!
//! Everything a user can get wrong returns `Err(Error)` with a message that says what
//! happened and what to do about it. Internal invariants are `debug_assert!`s instead.

use thiserror::Error as ThisError;

/// Errors returned by hekate.
///
/// Each variant carries a human-readable explanation; match on the variant to react
/// programmatically, print it to tell the user what to change.
#[derive(Debug, Clone, PartialEq, Eq, ThisError)]
pub enum Error {
    /// A parameter is out of range or inconsistent (ring degree, modulus sizes, dnum, ...).
    #[error("invalid parameters: {0}")]
    InvalidParameters(String),
    /// The parameters are below the requested security level (HomomorphicEncryption.org table).
    #[error("insecure parameters: {0}")]
    Insecure(String),
    /// No prime with the requested properties exists in the searched range.
    #[error("prime generation failed: {0}")]
    PrimeGeneration(String),
    /// Two operands were made under different parameters or keys.
    #[error("parameter mismatch: {0}")]
    ParameterMismatch(String),
    /// Operands sit at levels that cannot be combined as asked.
    #[error("level mismatch: {0}")]
    LevelMismatch(String),
    /// Operands carry scales that cannot be aligned exactly.
    #[error("scale mismatch: {0}")]
    ScaleMismatch(String),
    /// The ciphertext has no level left for the operation (rescale at level 0, ...).
    #[error("out of levels: {0}")]
    OutOfLevels(String),
    /// A rotation, conjugation or relinearization key needed by the operation is missing.
    #[error("missing key: {0}")]
    MissingKey(String),
    /// An input message is out of the range the encoder can represent.
    #[error("invalid message: {0}")]
    InvalidMessage(String),
    /// Bytes handed to a deserializer are truncated, corrupt, hostile or of another version.
    #[error("deserialization failed: {0}")]
    Deserialize(String),
}

/// `Result<T, hekate::Error>`.
pub type Result<T> = std::result::Result<T, Error>;
