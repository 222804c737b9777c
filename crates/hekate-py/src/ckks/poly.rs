//! Polynomials for encrypted evaluation (`hekate.ckks.Polynomial`, seed 003 §3): power or
//! Chebyshev basis, Chebyshev interpolation of a Python function, evaluated on ciphertexts
//! by `Evaluator.evaluate_polynomial` (baby-step giant-step, depth-optimal, scale-exact).

use crate::IntoPy;
use hekate::circuits::polyeval::{Basis, Polynomial};
use num_complex::Complex64;
use numpy::PyArray1;
use pyo3::prelude::*;
use std::cell::RefCell;

/// A polynomial with complex coefficients in the power or the Chebyshev basis.
#[pyclass(frozen, module = "hekate._native", name = "Polynomial")]
pub(crate) struct PyPolynomial {
    pub(crate) inner: Polynomial,
}

#[pymethods]
impl PyPolynomial {
    /// ``Σ c_i x^i`` (``coeffs[i] = c_i``).
    #[staticmethod]
    fn monomial(coeffs: Vec<Complex64>) -> PyResult<Self> {
        Ok(PyPolynomial {
            inner: Polynomial::monomial(coeffs).py_err()?,
        })
    }

    /// ``Σ c_i T_i(t)`` on ``[a, b]`` (``t`` the affine map of ``[a, b]`` onto ``[-1, 1]``).
    #[staticmethod]
    fn chebyshev(coeffs: Vec<Complex64>, a: f64, b: f64) -> PyResult<Self> {
        Ok(PyPolynomial {
            inner: Polynomial::chebyshev(coeffs, a, b).py_err()?,
        })
    }

    /// The degree-``degree`` Chebyshev interpolant of the real function ``f`` on
    /// ``[a, b]`` (``f`` is called at the ``degree + 1`` Chebyshev nodes).
    #[staticmethod]
    fn interpolate(f: &Bound<'_, PyAny>, a: f64, b: f64, degree: usize) -> PyResult<Self> {
        let error: RefCell<Option<PyErr>> = RefCell::new(None);
        let p = Polynomial::interpolate(
            |x| match f.call1((x,)).and_then(|y| y.extract::<f64>()) {
                Ok(y) => y,
                Err(e) => {
                    error.borrow_mut().get_or_insert(e);
                    0.0
                }
            },
            a,
            b,
            degree,
        );
        if let Some(e) = error.into_inner() {
            return Err(e);
        }
        Ok(PyPolynomial { inner: p.py_err()? })
    }

    /// The degree (index of the last non-zero coefficient).
    #[getter]
    fn degree(&self) -> usize {
        self.inner.degree()
    }

    /// The levels an encrypted evaluation consumes.
    #[getter]
    fn depth(&self) -> usize {
        self.inner.depth()
    }

    /// ``"monomial"`` or ``"chebyshev"``.
    #[getter]
    fn basis(&self) -> &'static str {
        match self.inner.basis() {
            Basis::Monomial => "monomial",
            Basis::Chebyshev { .. } => "chebyshev",
        }
    }

    /// The interval ``(a, b)`` of a Chebyshev polynomial (None for the power basis).
    #[getter]
    fn interval(&self) -> Option<(f64, f64)> {
        match self.inner.basis() {
            Basis::Monomial => None,
            Basis::Chebyshev { a, b } => Some((a, b)),
        }
    }

    /// The coefficients.
    #[getter]
    fn coefficients<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<Complex64>> {
        PyArray1::from_vec(py, self.inner.coefficients().to_vec())
    }

    /// ``p(x)`` in the clear for each of ``x`` (an array; complex128 out).
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<Complex64>>> {
        let v = crate::values::slot_values(x)?;
        let row = v.rows.into_iter().next().unwrap_or_default();
        Ok(PyArray1::from_vec(
            py,
            row.into_iter().map(|z| self.inner.evaluate(z)).collect(),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.ckks.Polynomial {} degree {} depth {}>",
            self.basis(),
            self.inner.degree(),
            self.inner.depth()
        )
    }
}
