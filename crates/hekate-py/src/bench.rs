//! Benchmark hooks (private: `hekate._native._rust_time_*`): the same operation timed as a
//! loop of Rust calls in this process, with no Python in the loop, so that
//! `crates/hekate-py/bench/overhead.py` can measure what the binding adds to a call.

use crate::ckks::{PyCiphertext, PyEvaluator};
use crate::fhew::{PyFhewEvaluator, PyLweArray};
use crate::heavy;
use hekate::fhew::Gate;
use pyo3::prelude::*;
use std::time::Instant;

/// Seconds for `iters` calls of the Rust `ckks::Evaluator::mul(a, b)` (no rescale).
#[pyfunction]
pub(crate) fn _rust_time_mul(
    py: Python<'_>,
    ev: PyRef<'_, PyEvaluator>,
    a: PyRef<'_, PyCiphertext>,
    b: PyRef<'_, PyCiphertext>,
    iters: usize,
) -> PyResult<f64> {
    let (e, x, y) = (ev.inner.clone(), a.inner.clone(), b.inner.clone());
    heavy(py, move || {
        let t = Instant::now();
        for _ in 0..iters {
            std::hint::black_box(e.mul(&x, &y)?);
        }
        Ok(t.elapsed().as_secs_f64())
    })
}

/// Seconds for `iters` NAND gates in Rust on the first elements of `a` and `b`.
#[pyfunction]
pub(crate) fn _rust_time_nand(
    py: Python<'_>,
    ev: PyRef<'_, PyFhewEvaluator>,
    a: PyRef<'_, PyLweArray>,
    b: PyRef<'_, PyLweArray>,
    iters: usize,
) -> PyResult<f64> {
    let mut w = ev.worker();
    let (x, y) = (a.first()?, b.first()?);
    heavy(py, move || {
        let t = Instant::now();
        for _ in 0..iters {
            std::hint::black_box(w.gate(Gate::Nand, &x, &y)?);
        }
        Ok(t.elapsed().as_secs_f64())
    })
}
