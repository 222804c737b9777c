//! The errors of the GPU backend.

/// What can go wrong on the device side.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No usable device: no driver library, no device, or the one asked for is absent.
    #[error("no GPU device: {0}")]
    NoDevice(String),
    /// `HEKATE_GPU=off` turned the backend off.
    #[error("the GPU backend is turned off (HEKATE_GPU=off)")]
    Disabled,
    /// A kernel module failed to compile; `log` is the compiler's output.
    #[error("kernel module `{module}` failed to compile: {log}")]
    Compile {
        /// The module (`ntt`, `elementwise`, ...).
        module: String,
        /// The compiler log.
        log: String,
    },
    /// The driver refused an operation (allocation, copy, launch).
    #[error("GPU runtime error in {what}: {detail}")]
    Runtime {
        /// What was being done.
        what: String,
        /// The driver's error.
        detail: String,
    },
    /// An argument does not fit the device object (shapes, contexts, forms).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// An error of the CPU library (building tables, parameters).
    #[error(transparent)]
    Hekate(#[from] hekate::Error),
}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Maps a driver error of any displayable kind to [`Error::Runtime`].
pub(crate) fn runtime<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> Error + '_ {
    move |e| Error::Runtime {
        what: what.to_string(),
        detail: format!("{e:?}"),
    }
}
