//! `hekate._native`: the Python bindings of hekate (the `hekate` package, distributed as
//! `hekate-fhe`).
//!
//! # Design
//!
//! - **Objects are immutable wrappers** (`#[pyclass(frozen)]`) over hekate's types held in
//!   `Arc`s: every operation returns a new object, as the Rust API's non-`_assign` methods
//!   do, and an object can be shared between Python threads without locks. Keys are explicit
//!   objects held by an evaluator; there is no global key state.
//! - **The GIL is released around every call that computes** (`heavy`): key generation,
//!   encoding, encryption, decryption, every evaluator operation and gate, and byte
//!   conversion. The work then runs in this process's own rayon pool (`pool`), which is
//!   rebuilt when the process id changes, so a `fork`ed child never waits on threads that did
//!   not survive the fork.
//! - **Errors are Python exceptions carrying hekate's messages** (`to_py_err`): one class
//!   per [`hekate::Error`] variant, defined in `hekate/errors.py` so that they pickle (and
//!   cross Ray); each also derives from the fitting builtin (`ValueError`, `LookupError`,
//!   `ArithmeticError`).
//! - **Pickling goes through hekate's validated byte format** (`ckks`, `fhew`): an
//!   object pickles as its context (which pickles as its parameter bytes, memoized once per
//!   pickle stream and cached per process by content, weakly: `context_cache`) and its
//!   hekate bytes. Secret keys
//!   refuse to pickle; `to_bytes()` is their explicit path.

use pyo3::prelude::*;
use pyo3::types::PyType;
use std::sync::{Arc, Mutex};

mod bench;
mod bytes;
mod ckks;
mod container;
mod context_cache;
mod fhew;
mod integer;
mod mlwe;
mod progress;
mod threshold;
mod values;

/// Converts a hekate error into the matching `hekate.errors` exception, message verbatim.
pub(crate) fn to_py_err(e: hekate::Error) -> PyErr {
    use hekate::Error as E;
    let (class, msg) = match &e {
        E::InvalidParameters(_) => ("InvalidParametersError", e.to_string()),
        E::Insecure(_) => ("InsecureParametersError", e.to_string()),
        E::PrimeGeneration(_) => ("PrimeGenerationError", e.to_string()),
        E::ParameterMismatch(_) => ("ParameterMismatchError", e.to_string()),
        E::LevelMismatch(_) => ("LevelMismatchError", e.to_string()),
        E::ScaleMismatch(_) => ("ScaleMismatchError", e.to_string()),
        E::OutOfLevels(_) => ("OutOfLevelsError", e.to_string()),
        E::MissingKey(_) => ("MissingKeyError", e.to_string()),
        E::InvalidMessage(_) => ("InvalidMessageError", e.to_string()),
        E::Deserialize(_) => ("DeserializeError", e.to_string()),
    };
    error_of_class(class, msg)
}

/// An exception of the class `name` of `hekate.errors` with message `msg`.
pub(crate) fn error_of_class(name: &str, msg: String) -> PyErr {
    Python::attach(|py| {
        match py
            .import("hekate.errors")
            .and_then(|m| m.getattr(name))
            .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from))
        {
            Ok(class) => PyErr::from_type(class, msg),
            Err(import_failure) => import_failure,
        }
    })
}

/// `Result<T, hekate::Error>` into `PyResult<T>`.
pub(crate) trait IntoPy<T> {
    /// The conversion.
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for hekate::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py_err)
    }
}

/// This process's thread pool: `(pid, pool)`, rebuilt when the pid changes (after `fork`).
static POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);
/// The thread count asked for with `set_num_threads` (0: `RAYON_NUM_THREADS`, else the CPUs).
static THREADS: Mutex<usize> = Mutex::new(0);

/// The rayon pool every heavy call runs in, built on first use in each process.
pub(crate) fn pool() -> Arc<rayon::ThreadPool> {
    let pid = std::process::id();
    let mut guard = POOL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((owner, pool)) = guard.as_ref() {
        if *owner == pid {
            return pool.clone();
        }
        // Forked: the parent's worker threads do not exist here, so dropping the pool
        // could wait on them forever. Leak it instead.
        if let Some((_, old)) = guard.take() {
            std::mem::forget(old);
        }
    }
    let threads = *THREADS.lock().unwrap_or_else(|p| p.into_inner());
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("hekate-{i}"))
            .build()
            .expect("a rayon thread pool"),
    );
    *guard = Some((pid, pool.clone()));
    pool
}

/// Runs `f` with the GIL released, inside this process's pool, and converts its error.
pub(crate) fn heavy<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> hekate::Result<T> + Send,
{
    let pool = pool();
    py.detach(|| pool.install(f)).py_err()
}

/// Sets the number of threads hekate uses in this process (0: `RAYON_NUM_THREADS`, else
/// the number of CPUs). Takes effect for the next call.
#[pyfunction]
fn set_num_threads(n: usize) {
    *THREADS.lock().unwrap_or_else(|p| p.into_inner()) = n;
    if let Some((_, old)) = POOL.lock().unwrap_or_else(|p| p.into_inner()).take() {
        drop(old);
    }
}

/// The number of threads hekate's calls use in this process.
#[pyfunction]
fn get_num_threads() -> usize {
    pool().current_num_threads()
}

/// What a hekate byte string is, read from its 16-byte header without parsing the body:
/// `{"magic", "version", "tag", "tag_name", "fingerprint", "body_bytes"}`. Raises
/// `DeserializeError` on bytes that are not a hekate object.
#[pyfunction]
fn inspect<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let data = bytes::bytes_of(data)?;
    let data = data.as_slice();
    let h = hekate::serialize::peek_header(data).py_err()?;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("magic", "HKT")?;
    d.set_item("version", h.version)?;
    d.set_item("tag", h.tag.code())?;
    d.set_item("tag_name", h.tag.name())?;
    d.set_item("fingerprint", h.fingerprint)?;
    d.set_item(
        "body_bytes",
        data.len() - hekate::serialize::HEADER_LEN.min(data.len()),
    )?;
    Ok(d)
}

/// Evaluation keys (CKKS) and bootstrapping keys (FHEW) read from bytes in this process:
/// what `hekate.ray` reports to show that keys travel once per worker.
pub(crate) static KEY_LOADS: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// The number of evaluation or bootstrapping keys deserialized in this process.
#[pyfunction]
fn _key_loads() -> usize {
    KEY_LOADS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The CKKS and MLWE contexts of this process's unpickling cache that are still alive
/// (the cache holds them weakly).
#[pyfunction]
fn _cached_contexts(py: Python<'_>) -> usize {
    ckks::cached_contexts(py) + mlwe::cached_contexts(py)
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FORMAT_VERSION", hekate::serialize::FORMAT_VERSION)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add_function(wrap_pyfunction!(_key_loads, m)?)?;
    m.add_function(wrap_pyfunction!(_cached_contexts, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_rust_time_mul, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_rust_time_nand, m)?)?;
    ckks::register(m)?;
    fhew::register(m)?;
    threshold::register(m)?;
    integer::register(m)?;
    mlwe::register(m)?;
    Ok(())
}
