//! Progress of long calls reported to Python: a callable `(done, total)` (or `True`, a bar
//! on stderr drawn by `hekate._progress`), through the library's
//! [`hekate::progress::Progress`] hook.
//!
//! The call runs without the GIL in hekate's pool; each report re-attaches to Python, at
//! most ten times a second (and always for the first and last), calls the callable and
//! checks for signals. An exception from the callable, or Ctrl-C, is kept and raised when
//! the call returns (the library's key generators cannot be stopped half-way).

use hekate::progress::Progress;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Reports to a Python callable.
pub(crate) struct Callback {
    f: Py<PyAny>,
    total: AtomicU64,
    done: AtomicU64,
    last: Mutex<Option<Instant>>,
    error: Mutex<Option<PyErr>>,
}

impl Callback {
    /// The callback for a `progress` argument: None/False → no reports, True → a bar
    /// labelled `what`, a callable → that callable.
    pub(crate) fn from_arg(
        py: Python<'_>,
        arg: Option<&Bound<'_, PyAny>>,
        what: &str,
    ) -> PyResult<Option<Callback>> {
        let f = match arg {
            None => return Ok(None),
            Some(a) if a.is_none() => return Ok(None),
            Some(a) if a.is_instance_of::<pyo3::types::PyBool>() => {
                if !a.extract::<bool>()? {
                    return Ok(None);
                }
                py.import("hekate._progress")?
                    .getattr("Bar")?
                    .call1((what,))?
            }
            Some(a) if a.is_callable() => a.clone(),
            Some(_) => {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "progress is a bool or a callable (done, total) -> None",
                ))
            }
        };
        Ok(Some(Callback {
            f: f.unbind(),
            total: AtomicU64::new(0),
            done: AtomicU64::new(0),
            last: Mutex::new(None),
            error: Mutex::new(None),
        }))
    }

    fn report(&self, force: bool) {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if !force && last.is_some_and(|t| now - t < Duration::from_millis(100)) {
            return;
        }
        *last = Some(now);
        let (done, total) = (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        );
        Python::attach(|py| {
            let r = self
                .f
                .call1(py, (done, total))
                .and_then(|_| py.check_signals());
            if let Err(e) = r {
                self.error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
            }
        });
    }

    /// Reports `done` of `total` (for callers that count themselves, e.g. the closure of
    /// `ckks::bootstrap::generate_keys_with`).
    pub(crate) fn set(&self, done: u64, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(done, Ordering::Relaxed);
        self.report(done == 0 || done >= total);
    }

    /// The first exception the callable raised (or Ctrl-C), if any.
    pub(crate) fn take_error(&self) -> PyResult<()> {
        match self.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Progress for Callback {
    fn start(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
        self.report(true);
    }

    fn inc(&self, delta: u64) {
        self.done.fetch_add(delta, Ordering::Relaxed);
        self.report(false);
    }

    fn finish(&self) {
        self.done
            .store(self.total.load(Ordering::Relaxed), Ordering::Relaxed);
        self.report(true);
    }
}

/// Forwards only the units of an inner call to `outer`, whose total the caller set (the
/// inner call's `start` and `finish` are the caller's business).
pub(crate) struct Units<'a>(pub(crate) &'a dyn Progress);

impl Progress for Units<'_> {
    fn inc(&self, delta: u64) {
        self.0.inc(delta);
    }
}
