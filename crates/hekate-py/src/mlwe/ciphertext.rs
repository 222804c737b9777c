//! `hekate.mlwe` ciphertexts: numpy in and out, operators, pickling.

use super::*;

/// An MLWE-CKKS ciphertext. Immutable: every operation returns a new one.
#[pyclass(frozen, module = "hekate._native", name = "MlweCiphertext")]
pub(crate) struct PyMlweCiphertext {
    pub(super) ctx: Py<PyMlweContext>,
    pub(super) inner: Arc<Ciphertext>,
    /// Whether every input of its history was real.
    pub(super) real: bool,
    /// The evaluator operators use, if bound.
    pub(super) bound: Option<Py<PyMlweEvaluator>>,
}

impl PyMlweCiphertext {
    pub(super) fn new(
        ctx: Py<PyMlweContext>,
        inner: Ciphertext,
        real: bool,
        bound: Option<Py<PyMlweEvaluator>>,
    ) -> Self {
        PyMlweCiphertext {
            ctx,
            inner: Arc::new(inner),
            real,
            bound,
        }
    }

    /// A result of an operation on `self`, keeping its context and binding.
    pub(super) fn derive(&self, py: Python<'_>, inner: Ciphertext, real: bool) -> Self {
        PyMlweCiphertext::new(
            self.ctx.clone_ref(py),
            inner,
            real,
            self.bound.as_ref().map(|b| b.clone_ref(py)),
        )
    }

    pub(super) fn keyless(&self) -> Arc<Evaluator> {
        self.ctx.get().keyless.clone()
    }

    pub(super) fn auto(&self) -> bool {
        self.ctx.get().auto_rescale
    }

    /// The evaluator of an operation that needs keys: the one `self` (or `other`) is bound
    /// to, else the innermost `with ev:` MLWE evaluator.
    pub(super) fn evaluator(
        &self,
        py: Python<'_>,
        other: Option<&PyMlweCiphertext>,
        what: &str,
    ) -> PyResult<Py<PyMlweEvaluator>> {
        if let Some(b) = self.bound.as_ref().or(other.and_then(|o| o.bound.as_ref())) {
            return Ok(b.clone_ref(py));
        }
        let current = py
            .import("hekate._state")?
            .call_method1("current", (py.get_type::<PyMlweEvaluator>(),))?;
        if !current.is_none() {
            return Ok(current.cast_into::<PyMlweEvaluator>()?.unbind());
        }
        Err(error_of_class(
            "MissingKeyError",
            format!(
                "missing key: {what} needs evaluation keys: use an hekate.mlwe.Evaluator's \
                 methods, ev.bind(ct) or `with ev:`"
            ),
        ))
    }

    /// `self ± other` (or `other - self` when `reflected`), with no key.
    pub(super) fn add_sub(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        sub: bool,
        reflected: bool,
    ) -> PyResult<PyMlweCiphertext> {
        let ev = self.keyless();
        let a = self.inner.clone();
        let (r, real) = if let Ok(b) = other.cast::<PyMlweCiphertext>() {
            let b = b.get();
            let bi = b.inner.clone();
            let r = heavy(py, move || {
                let (x, y) = if reflected { (&bi, &a) } else { (&a, &bi) };
                if sub {
                    ev.sub(x, y)
                } else {
                    ev.add(x, y)
                }
            })?;
            (r, self.real && b.real)
        } else if let Some(c) = constant_of(other)? {
            let r = heavy(py, move || {
                if reflected {
                    ev.add_const(&ev.neg(&a)?, c)
                } else {
                    ev.add_const(&a, if sub { -c } else { c })
                }
            })?;
            (r, self.real)
        } else {
            let ctx = self.ctx.get().inner.clone();
            let (pt, real) = encode(py, &ctx, other, Some(a.level()), Some(a.scale().clone()))?;
            let r = heavy(py, move || {
                let r = if sub {
                    ev.add_plain(&ev.neg(&a)?, &pt).and_then(|r| ev.neg(&r))
                } else {
                    ev.add_plain(&a, &pt)
                }?;
                if reflected {
                    ev.neg(&r)
                } else {
                    Ok(r)
                }
            })?;
            (r, self.real && real)
        };
        Ok(self.derive(py, r, real))
    }

    /// `self * other`: a product with another ciphertext (relinearized by the evaluator
    /// found for it), a real constant, or slot values; rescaled with `auto_rescale`.
    pub(super) fn mul_op(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
    ) -> PyResult<PyMlweCiphertext> {
        let a = self.inner.clone();
        let auto = self.auto();
        if let Ok(b) = other.cast::<PyMlweCiphertext>() {
            let bref = b.get();
            let ev = self.evaluator(py, Some(bref), "a product")?;
            let evi = ev.get().inner.clone();
            let bi = bref.inner.clone();
            let r = heavy(py, move || {
                let p = evi.mul(&a, &bi)?;
                if auto {
                    evi.rescale(&p)
                } else {
                    Ok(p)
                }
            })?;
            let mut out = self.derive(py, r, self.real && bref.real);
            out.bound = Some(ev);
            return Ok(out);
        }
        let ev = self.keyless();
        if let Some(c) = constant_of(other)? {
            let r = heavy(py, move || {
                let p = ev.mul_const(&a, c)?;
                if auto {
                    ev.rescale(&p)
                } else {
                    Ok(p)
                }
            })?;
            return Ok(self.derive(py, r, self.real));
        }
        let ctx = self.ctx.get().inner.clone();
        let (pt, real) = encode(py, &ctx, other, Some(a.level()), None)?;
        let r = heavy(py, move || {
            let p = ev.mul_plain(&a, &pt)?;
            if auto {
                ev.rescale(&p)
            } else {
                Ok(p)
            }
        })?;
        Ok(self.derive(py, r, self.real && real))
    }

    pub(super) fn rotate_op(&self, py: Python<'_>, steps: i64) -> PyResult<PyMlweCiphertext> {
        let ev = self.evaluator(py, None, "a rotation")?;
        let (evi, a) = (ev.get().inner.clone(), self.inner.clone());
        let r = heavy(py, move || evi.rotate(&a, steps))?;
        let mut out = self.derive(py, r, self.real);
        out.bound = Some(ev);
        Ok(out)
    }
}

/// A real constant operand (a Python `int` or `float`), if `obj` is one. MLWE-CKKS's
/// constant operations take real constants; a complex one is refused.
fn constant_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
    if obj.is_instance_of::<PyComplex>() {
        return Err(PyTypeError::new_err(
            "MLWE ciphertexts combine with real constants (int, float) or slot values",
        ));
    }
    if obj.is_instance_of::<PyFloat>() || obj.extract::<i64>().is_ok() {
        return Ok(Some(obj.extract::<f64>()?));
    }
    Ok(None)
}

#[pymethods]
impl PyMlweCiphertext {
    /// Never convert to a numpy array element by element: ``ndarray + ct`` calls
    /// ``ct.__radd__``.
    #[classattr]
    fn __array_ufunc__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// The context.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyMlweContext> {
        self.ctx.clone_ref(py)
    }

    /// The level l (l + 1 chain primes).
    #[getter]
    fn level(&self) -> usize {
        self.inner.level()
    }

    /// The module rank (r; lower after rank reduction, r̂ while rank-hoisted).
    #[getter]
    fn rank(&self) -> usize {
        self.inner.rank()
    }

    /// The scale, as a float (the exact rational is tracked inside).
    #[getter]
    fn scale(&self) -> f64 {
        self.inner.scale().to_f64()
    }

    /// The number of slots.
    #[getter]
    fn slots(&self) -> usize {
        self.inner.slots()
    }

    /// Whether it carries quadratic parts (a tensor product not yet relinearized).
    #[getter]
    fn is_quadratic(&self) -> bool {
        self.inner.is_quadratic()
    }

    /// Bytes in memory.
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.size_bytes()
    }

    /// Whether its ``a`` parts are stored as a seed (a fresh secret-key encryption:
    /// ``to_bytes`` then writes about ``1/(1 + r)`` of the bytes).
    #[getter]
    fn is_seeded(&self) -> bool {
        self.inner.seed().is_some()
    }

    /// Whether every input of this ciphertext's history was real.
    #[getter]
    fn is_real(&self) -> bool {
        self.real
    }

    /// The evaluator this ciphertext is bound to, if any.
    #[getter]
    fn evaluator_bound(&self, py: Python<'_>) -> Option<Py<PyMlweEvaluator>> {
        self.bound.as_ref().map(|b| b.clone_ref(py))
    }

    /// Divides by the last chain prime (one level down).
    fn rescale(&self, py: Python<'_>) -> PyResult<PyMlweCiphertext> {
        let (ev, a) = (self.keyless(), self.inner.clone());
        let r = heavy(py, move || ev.rescale(&a))?;
        Ok(self.derive(py, r, self.real))
    }

    /// Drops ``levels`` levels (exact).
    #[pyo3(signature = (levels=1))]
    fn drop_level(&self, py: Python<'_>, levels: usize) -> PyResult<PyMlweCiphertext> {
        let (ev, a) = (self.keyless(), self.inner.clone());
        let r = heavy(py, move || ev.drop_level(&a, levels))?;
        Ok(self.derive(py, r, self.real))
    }

    /// Rotates the slots left by ``steps`` (needs the rotation key).
    fn rotate(&self, py: Python<'_>, steps: i64) -> PyResult<PyMlweCiphertext> {
        self.rotate_op(py, steps)
    }

    /// The ciphertext as hekate bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        crate::bytes::write(py, &self.inner, &self.ctx.get().inner)
    }

    /// The ciphertext of bytes written by ``to_bytes``, under ``ctx``; ``real`` says
    /// whether ``decrypt`` returns real values.
    #[staticmethod]
    #[pyo3(signature = (data, ctx, real=false))]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyMlweContext>,
        real: bool,
    ) -> PyResult<PyMlweCiphertext> {
        let inner = crate::bytes::read::<Ciphertext>(py, data, &ctx.get().inner)?;
        Ok(PyMlweCiphertext {
            ctx,
            inner,
            real,
            bound: None,
        })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyMlweCiphertext,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py),
            self.real
        )
    }

    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.mlwe.Ciphertext rank={} level={} scale=2^{:.2} slots={}{}>",
            self.inner.rank(),
            self.inner.level(),
            self.inner.scale().log2(),
            self.inner.slots(),
            if self.inner.is_quadratic() {
                " quadratic"
            } else {
                ""
            }
        )
    }

    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyMlweCiphertext> {
        self.add_sub(py, other, false, false)
    }

    fn __radd__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyMlweCiphertext>> {
        // `0 + ct` is `ct`, so that `sum(cts)` works.
        if other.extract::<i64>().is_ok_and(|k| k == 0) && !other.is_instance_of::<PyFloat>() {
            return Ok(slf.clone().unbind());
        }
        Py::new(slf.py(), slf.get().add_sub(slf.py(), other, false, false)?)
    }

    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyMlweCiphertext> {
        self.add_sub(py, other, true, false)
    }

    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyMlweCiphertext> {
        self.add_sub(py, other, true, true)
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<PyMlweCiphertext> {
        let (ev, a) = (self.keyless(), self.inner.clone());
        let r = heavy(py, move || ev.neg(&a))?;
        Ok(self.derive(py, r, self.real))
    }

    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyMlweCiphertext> {
        self.mul_op(py, other)
    }

    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyMlweCiphertext> {
        self.mul_op(py, other)
    }

    fn __lshift__(&self, py: Python<'_>, steps: i64) -> PyResult<PyMlweCiphertext> {
        self.rotate_op(py, steps)
    }

    fn __rshift__(&self, py: Python<'_>, steps: i64) -> PyResult<PyMlweCiphertext> {
        self.rotate_op(py, -steps)
    }
}
