//! numpy in and out.
//!
//! Inputs are anything `numpy.asarray` accepts (lists, scalars' lists, read-only and
//! non-contiguous arrays, other dtypes): they are converted once, to `float64` or
//! `complex128` (`bool` / `uint64` for FHEW), copied only when numpy must. A complex input is
//! never cast to real (numpy would drop the imaginary part with a warning). Outputs are
//! newly owned arrays.

use num_complex::Complex64;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Values to encode: one vector, or one per row of a 2-D input.
pub(crate) struct SlotValues {
    /// The rows (one for 1-D input).
    pub rows: Vec<Vec<Complex64>>,
    /// Whether the input was real (not a complex dtype).
    pub real: bool,
    /// Whether the input was 2-D (a batch).
    pub batched: bool,
}

/// Reads `obj` as one (1-D) or several (2-D) vectors of slot values.
pub(crate) fn slot_values(obj: &Bound<'_, PyAny>) -> PyResult<SlotValues> {
    let py = obj.py();
    let np = py.import("numpy")?;
    let complex = np.call_method1("iscomplexobj", (obj,))?.extract::<bool>()?;
    let dtype = if complex { "complex128" } else { "float64" };
    let arr = np.call_method1("ascontiguousarray", (obj, dtype))?;
    let ndim = arr.getattr("ndim")?.extract::<usize>()?;
    let rows = match (ndim, complex) {
        (0, _) => {
            return Err(PyValueError::new_err(
                "expected a 1-D array of slot values (or a 2-D array, one row per \
                 ciphertext), got a scalar",
            ))
        }
        (1, true) => vec![read1::<Complex64>(&arr)?],
        (1, false) => vec![real_row(&read1::<f64>(&arr)?)],
        (2, true) => read2::<Complex64>(&arr)?,
        (2, false) => read2::<f64>(&arr)?.iter().map(|r| real_row(r)).collect(),
        (d, _) => {
            return Err(PyValueError::new_err(format!(
                "expected a 1-D array of slot values (or a 2-D array, one row per \
                 ciphertext), got {d} dimensions"
            )))
        }
    };
    if !complex {
        for r in &rows {
            if let Some(v) = r.iter().find(|v| !v.re.is_finite()) {
                return Err(PyValueError::new_err(format!(
                    "slot values must be finite, got {}",
                    v.re
                )));
            }
        }
    }
    Ok(SlotValues {
        rows,
        real: !complex,
        batched: ndim == 2,
    })
}

fn real_row(r: &[f64]) -> Vec<Complex64> {
    r.iter().map(|&x| Complex64::new(x, 0.0)).collect()
}

fn read1<T: numpy::Element + Copy>(arr: &Bound<'_, PyAny>) -> PyResult<Vec<T>> {
    let a = arr.cast::<PyArray1<T>>()?;
    Ok(a.readonly().as_array().to_vec())
}

fn read2<T: numpy::Element + Copy>(arr: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<T>>> {
    let a = arr.cast::<PyArray2<T>>()?;
    let ro = a.readonly();
    let view = ro.as_array();
    Ok(view.rows().into_iter().map(|r| r.to_vec()).collect())
}

/// Reads `obj` as a 1-D array of `T` (after `numpy.asarray(obj, dtype)`), refusing other
/// shapes with `ValueError`.
pub(crate) fn vector<T: numpy::Element + Copy>(
    obj: &Bound<'_, PyAny>,
    dtype: &str,
    what: &str,
) -> PyResult<Vec<T>> {
    let np = obj.py().import("numpy")?;
    let arr = np.call_method1("ascontiguousarray", (obj, dtype))?;
    let ndim = arr.getattr("ndim")?.extract::<usize>()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "expected a 1-D array of {what}, got {ndim} dimensions"
        )));
    }
    let a = arr.cast::<PyArray1<T>>()?;
    debug_assert_eq!(a.ndim(), 1);
    Ok(a.readonly().as_array().to_vec())
}

/// Decrypted values as a new array: `float64` when `real`, else `complex128`.
pub(crate) fn slots_out<'py>(py: Python<'py>, v: Vec<Complex64>, real: bool) -> Bound<'py, PyAny> {
    if real {
        PyArray1::from_vec(py, v.into_iter().map(|c| c.re).collect()).into_any()
    } else {
        PyArray1::from_vec(py, v).into_any()
    }
}

/// Several rows of decrypted values as a new 2-D array.
pub(crate) fn rows_out<'py>(
    py: Python<'py>,
    rows: Vec<Vec<Complex64>>,
    real: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let bad = |e: numpy::FromVecError| PyValueError::new_err(e.to_string());
    if real {
        let r: Vec<Vec<f64>> = rows
            .into_iter()
            .map(|r| r.into_iter().map(|c| c.re).collect())
            .collect();
        Ok(PyArray2::from_vec2(py, &r).map_err(bad)?.into_any())
    } else {
        Ok(PyArray2::from_vec2(py, &rows).map_err(bad)?.into_any())
    }
}
