//! CKKS ciphertexts, their operators, and the evaluator.
//!
//! # Where an operator finds its keys
//!
//! Operators that need no key (`+`, `-`, products by constants, plaintexts and integers,
//! rescaling) run on the context's keyless evaluator. Those that need one (`ct * ct`, `**`,
//! `<<`, `>>`) use, in order: the evaluator an operand is bound to (results of `ev.*` and
//! `ev.bind(ct)` are bound; the binding is never pickled), else the innermost `with ev:`
//! block of the current thread or asyncio task (`hekate._state`, a `ContextVar`), else they
//! raise `MissingKeyError` saying so.
//!
//! # What the operators do beyond the Rust call
//!
//! - `a + b`, `a - b`: levels are aligned by the Rust evaluator, and scales that are
//!   integer multiples of each other too. Other scales (e.g. `x*x` at `Δ²/q` beside `x` at
//!   `Δ` after a rescale) are aligned exactly by `rescale_to` on the operand at the higher
//!   level (or the left one), which costs that operand one level.
//! - `a * b`, `a * float`, `a * array`, `a * plaintext`, `a ** k`: the product, then (with
//!   the context's `auto_rescale`, the default) a rescale. `a * int` is `mul_integer`:
//!   exact, no level used. `a * 1j` is `mul_by_i`.
//! - `a + array` encodes the array at `a`'s level, scale and slot count.

use super::{scale_of, PyContext, PyEvaluationKeys, PyPlaintext};
use crate::values::slot_values;
use crate::{error_of_class, heavy};
use hekate::ckks::{Ciphertext, Evaluator, Scale};
use num_complex::Complex64;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyComplex, PyFloat, PyList};
use rayon::prelude::*;
use std::sync::Arc;

/// A CKKS ciphertext. Immutable: every operation returns a new one.
#[pyclass(frozen, module = "hekate._native", name = "CkksCiphertext")]
pub(crate) struct PyCiphertext {
    pub(crate) ctx: Py<PyContext>,
    pub(crate) inner: Arc<Ciphertext>,
    /// Whether every input of its history was real.
    pub(crate) real: bool,
    /// The evaluator operators use, if bound.
    pub(crate) bound: Option<Py<PyEvaluator>>,
}

impl PyCiphertext {
    pub(crate) fn new(
        ctx: Py<PyContext>,
        inner: Ciphertext,
        real: bool,
        bound: Option<Py<PyEvaluator>>,
    ) -> Self {
        PyCiphertext {
            ctx,
            inner: Arc::new(inner),
            real,
            bound,
        }
    }

    /// A result of an operation on `self`, keeping its context and binding.
    fn derive(&self, py: Python<'_>, inner: Ciphertext, real: bool) -> Self {
        PyCiphertext::new(
            self.ctx.clone_ref(py),
            inner,
            real,
            self.bound.as_ref().map(|b| b.clone_ref(py)),
        )
    }

    fn keyless(&self) -> Arc<Evaluator> {
        self.ctx.get().keyless.clone()
    }

    /// The evaluator for an operation that needs keys (see the module docs).
    fn evaluator(
        &self,
        py: Python<'_>,
        other: Option<&PyCiphertext>,
        what: &str,
    ) -> PyResult<Py<PyEvaluator>> {
        if let Some(b) = self.bound.as_ref().or(other.and_then(|o| o.bound.as_ref())) {
            return Ok(b.clone_ref(py));
        }
        let current = py.import("hekate._state")?.call_method0("current")?;
        if !current.is_none() {
            return Ok(current.cast_into::<PyEvaluator>()?.unbind());
        }
        Err(error_of_class(
            "MissingKeyError",
            format!(
                "missing key: {what} needs evaluation keys: use ev.{}(...), ev.bind(ct) or \
                 `with ev:` (ev = hekate.ckks.Evaluator(evaluation_keys))",
                match what {
                    "a rotation" => "rotate",
                    "a product" => "mul",
                    _ => "...",
                }
            ),
        ))
    }

    /// Whether the context rescales after every product.
    fn auto(&self) -> bool {
        self.ctx.get().auto_rescale
    }
}

/// `ct` rescaled when `auto` (the context's `auto_rescale`), else `ct` itself.
fn maybe_rescale(ev: &Evaluator, ct: Ciphertext, auto: bool) -> hekate::Result<Ciphertext> {
    if auto {
        ev.rescale(&ct)
    } else {
        Ok(ct)
    }
}

/// `a * b` relinearized, and rescaled when `auto` in the same call
/// (`Evaluator::mul_relin_rescale`: the relinearization's ModDown fused into the rescale,
/// the words of `mul` then `rescale`).
fn mul_maybe_rescale(
    ev: &Evaluator,
    a: &Ciphertext,
    b: &Ciphertext,
    auto: bool,
) -> hekate::Result<Ciphertext> {
    if auto {
        ev.mul_relin_rescale(a, b, 1, None)
    } else {
        ev.mul(a, b)
    }
}

/// `a ± b` with scales aligned exactly when they are not integer multiples (module docs).
fn add_aligned(
    ev: &Evaluator,
    a: &Ciphertext,
    b: &Ciphertext,
    sub: bool,
) -> hekate::Result<Ciphertext> {
    let op = |x: &Ciphertext, y: &Ciphertext| if sub { ev.sub(x, y) } else { ev.add(x, y) };
    match op(a, b) {
        Err(hekate::Error::ScaleMismatch(_)) if a.level().max(b.level()) > 0 => {
            if b.level() > a.level() {
                op(a, &ev.rescale_to(b, a.scale())?)
            } else {
                op(&ev.rescale_to(a, b.scale())?, b)
            }
        }
        r => r,
    }
}

/// The right operand of an operator.
enum Operand<'py> {
    Ct(Bound<'py, PyCiphertext>),
    Pt(Bound<'py, PyPlaintext>),
    Int(i64),
    Const(Complex64),
    Values(Vec<Complex64>, bool),
}

fn operand<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Operand<'py>> {
    if let Ok(c) = obj.cast::<PyCiphertext>() {
        return Ok(Operand::Ct(c.clone()));
    }
    if let Ok(p) = obj.cast::<PyPlaintext>() {
        return Ok(Operand::Pt(p.clone()));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Operand::Const(Complex64::new(obj.extract()?, 0.0)));
    }
    if obj.is_instance_of::<PyComplex>() {
        return Ok(Operand::Const(obj.extract()?));
    }
    if let Ok(k) = obj.extract::<i64>() {
        return Ok(Operand::Int(k));
    }
    let v = slot_values(obj)?;
    if v.batched {
        return Err(PyValueError::new_err(
            "a ciphertext combines with a 1-D array of slot values, not a 2-D one",
        ));
    }
    let real = v.real;
    Ok(Operand::Values(
        v.rows.into_iter().next().unwrap_or_default(),
        real,
    ))
}

fn is_real(c: Complex64) -> bool {
    c.im == 0.0
}

impl PyCiphertext {
    /// `self ± other` (or `other - self` when `reflected`).
    fn add_sub(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        sub: bool,
        reflected: bool,
    ) -> PyResult<PyCiphertext> {
        let ev = self.keyless();
        let a = self.inner.clone();
        let op = operand(other)?;
        let (out, real) = match op {
            Operand::Ct(b) => {
                let b = b.get();
                let bi = b.inner.clone();
                let r = heavy(py, move || {
                    if reflected {
                        add_aligned(&ev, &bi, &a, sub)
                    } else {
                        add_aligned(&ev, &a, &bi, sub)
                    }
                })?;
                (r, self.real && b.real)
            }
            Operand::Pt(p) => {
                let (p, real) = (p.get().inner.clone(), p.get().real);
                let r = heavy(py, move || {
                    let r = if sub {
                        ev.sub_plain(&a, &p)?
                    } else {
                        ev.add_plain(&a, &p)?
                    };
                    if reflected {
                        ev.neg(&r)
                    } else {
                        Ok(r)
                    }
                })?;
                (r, self.real && real)
            }
            Operand::Int(k) => {
                self.add_const_op(py, Complex64::new(k as f64, 0.0), sub, reflected)?
            }
            Operand::Const(c) => self.add_const_op(py, c, sub, reflected)?,
            Operand::Values(v, real) => {
                let ctx = self.ctx.get();
                let pt = super::encode_at(py, ctx, v, Some(a.level()), a.scale(), Some(a.slots()))?;
                let r = heavy(py, move || {
                    let r = if sub {
                        ev.sub_plain(&a, &pt)?
                    } else {
                        ev.add_plain(&a, &pt)?
                    };
                    if reflected {
                        ev.neg(&r)
                    } else {
                        Ok(r)
                    }
                })?;
                (r, self.real && real)
            }
        };
        Ok(self.derive(py, out, real))
    }

    fn add_const_op(
        &self,
        py: Python<'_>,
        c: Complex64,
        sub: bool,
        reflected: bool,
    ) -> PyResult<(Ciphertext, bool)> {
        let (ev, a) = (self.keyless(), self.inner.clone());
        let r = heavy(py, move || {
            if reflected {
                // c - a
                ev.add_const(&ev.neg(&a)?, c)
            } else {
                ev.add_const(&a, if sub { -c } else { c })
            }
        })?;
        Ok((r, self.real && is_real(c)))
    }

    /// `self * other`.
    fn mul_op(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyCiphertext> {
        let a = self.inner.clone();
        match operand(other)? {
            Operand::Ct(b) => {
                let bref = b.get();
                let ev = self.evaluator(py, Some(bref), "a product")?;
                let evi = ev.get().inner.clone();
                let bi = bref.inner.clone();
                let auto = self.auto();
                let r = heavy(py, move || mul_maybe_rescale(&evi, &a, &bi, auto))?;
                let mut out = self.derive(py, r, self.real && bref.real);
                out.bound = Some(ev);
                Ok(out)
            }
            Operand::Pt(p) => {
                let (pi, real) = (p.get().inner.clone(), p.get().real);
                let ev = self.keyless();
                let auto = self.auto();
                let r = heavy(py, move || maybe_rescale(&ev, ev.mul_plain(&a, &pi)?, auto))?;
                Ok(self.derive(py, r, self.real && real))
            }
            Operand::Int(k) => {
                let ev = self.keyless();
                let r = heavy(py, move || ev.mul_integer(&a, k))?;
                Ok(self.derive(py, r, self.real))
            }
            Operand::Const(c) if c == Complex64::new(0.0, 1.0) => {
                let ev = self.keyless();
                let r = heavy(py, move || ev.mul_by_i(&a))?;
                Ok(self.derive(py, r, false))
            }
            Operand::Const(c) => {
                let ev = self.keyless();
                let auto = self.auto();
                let r = heavy(py, move || maybe_rescale(&ev, ev.mul_const(&a, c)?, auto))?;
                Ok(self.derive(py, r, self.real && is_real(c)))
            }
            Operand::Values(v, real) => {
                let ctx = self.ctx.get();
                let scale = ctx.inner.constant_scale(a.level());
                let pt = super::encode_at(py, ctx, v, Some(a.level()), &scale, Some(a.slots()))?;
                let ev = self.keyless();
                let auto = self.auto();
                let r = heavy(py, move || maybe_rescale(&ev, ev.mul_plain(&a, &pt)?, auto))?;
                Ok(self.derive(py, r, self.real && real))
            }
        }
    }

    /// A rotation by `steps` with the evaluator found for it.
    fn rotate_op(&self, py: Python<'_>, steps: i64) -> PyResult<PyCiphertext> {
        let ev = self.evaluator(py, None, "a rotation")?;
        let (evi, a) = (ev.get().inner.clone(), self.inner.clone());
        let r = heavy(py, move || evi.rotate(&a, steps))?;
        let mut out = self.derive(py, r, self.real);
        out.bound = Some(ev);
        Ok(out)
    }
}

#[pymethods]
impl PyCiphertext {
    /// Never convert to a numpy array element by element: ``ndarray + ct`` calls
    /// ``ct.__radd__``.
    #[classattr]
    fn __array_ufunc__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// The context.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyContext> {
        self.ctx.clone_ref(py)
    }

    /// The level l (l + 1 chain primes).
    #[getter]
    fn level(&self) -> usize {
        self.inner.level()
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

    /// The degree: 1 for a normal ciphertext, 2 after ``mul_no_relin``.
    #[getter]
    fn degree(&self) -> usize {
        self.inner.degree()
    }

    /// Bytes in memory.
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.size_bytes()
    }

    /// Whether the second part is stored as a seed (a fresh secret-key encryption).
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
    fn evaluator_bound(&self, py: Python<'_>) -> Option<Py<PyEvaluator>> {
        self.bound.as_ref().map(|b| b.clone_ref(py))
    }

    /// Divides by the last chain prime (one level down).
    fn rescale(&self, py: Python<'_>) -> PyResult<PyCiphertext> {
        let (ev, a) = (self.keyless(), self.inner.clone());
        let r = heavy(py, move || ev.rescale(&a))?;
        Ok(self.derive(py, r, self.real))
    }

    /// Drops ``levels`` levels (exact).
    #[pyo3(signature = (levels=1))]
    fn drop_level(&self, py: Python<'_>, levels: usize) -> PyResult<PyCiphertext> {
        let (ev, a) = (self.keyless(), self.inner.clone());
        let r = heavy(py, move || ev.drop_level(&a, levels))?;
        Ok(self.derive(py, r, self.real))
    }

    /// Rotates the slots left by ``steps`` (needs the Galois key; see the module docs).
    fn rotate(&self, py: Python<'_>, steps: i64) -> PyResult<PyCiphertext> {
        self.rotate_op(py, steps)
    }

    /// The complex conjugate of every slot (needs the conjugation key).
    fn conjugate(&self, py: Python<'_>) -> PyResult<PyCiphertext> {
        let ev = self.evaluator(py, None, "conjugation")?;
        let (evi, a) = (ev.get().inner.clone(), self.inner.clone());
        let r = heavy(py, move || evi.conjugate(&a))?;
        let mut out = self.derive(py, r, self.real);
        out.bound = Some(ev);
        Ok(out)
    }

    /// The ciphertext as hekate bytes (seed-compressed when fresh from a secret key).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        crate::bytes::write(py, &self.inner, &self.ctx.get().inner)
    }

    /// The ciphertext of bytes written by ``to_bytes``, under ``ctx``; ``real`` says whether
    /// ``decrypt`` returns real values.
    #[staticmethod]
    #[pyo3(signature = (data, ctx, real=false))]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyContext>,
        real: bool,
    ) -> PyResult<PyCiphertext> {
        let ct = crate::bytes::read::<Ciphertext>(py, data, &ctx.get().inner)?;
        Ok(PyCiphertext {
            ctx,
            inner: ct,
            real,
            bound: None,
        })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyCiphertext,
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
            "<hekate.ckks.Ciphertext level={} scale=2^{:.2} slots={} N=2^{}{} {:.2} MB>",
            self.inner.level(),
            self.inner.scale().log2(),
            self.inner.slots(),
            self.ctx.get().inner.n().trailing_zeros(),
            if self.inner.seed().is_some() {
                " seeded"
            } else {
                ""
            },
            self.inner.size_bytes() as f64 / 1e6
        )
    }

    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyCiphertext> {
        self.add_sub(py, other, false, false)
    }

    fn __radd__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyCiphertext>> {
        // `0 + ct` is `ct`, so that `sum(cts)` works.
        if other.extract::<i64>().is_ok_and(|k| k == 0) && !other.is_instance_of::<PyFloat>() {
            return Ok(slf.clone().unbind());
        }
        Py::new(slf.py(), slf.get().add_sub(slf.py(), other, false, false)?)
    }

    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyCiphertext> {
        self.add_sub(py, other, true, false)
    }

    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyCiphertext> {
        self.add_sub(py, other, true, true)
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<PyCiphertext> {
        let (ev, a) = (self.keyless(), self.inner.clone());
        let r = heavy(py, move || ev.neg(&a))?;
        Ok(self.derive(py, r, self.real))
    }

    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyCiphertext> {
        self.mul_op(py, other)
    }

    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyCiphertext> {
        self.mul_op(py, other)
    }

    fn __pow__(
        slf: &Bound<'_, Self>,
        k: u32,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyCiphertext>> {
        let py = slf.py();
        if modulo.is_some_and(|m| !m.is_none()) {
            return Err(PyTypeError::new_err(
                "pow() with a modulus is not defined on ciphertexts",
            ));
        }
        if k == 0 {
            return Err(PyValueError::new_err(
                "ct ** 0 is not a ciphertext operation: use 1",
            ));
        }
        // Square-and-multiply from the most significant bit.
        let mut acc: Py<PyCiphertext> = slf.clone().unbind();
        for bit in (0..31 - k.leading_zeros()).rev() {
            let a = acc.bind(py);
            acc = Py::new(py, a.get().mul_op(py, a.as_any())?)?;
            if k >> bit & 1 == 1 {
                let a = acc.bind(py);
                acc = Py::new(py, a.get().mul_op(py, slf.as_any())?)?;
            }
        }
        Ok(acc)
    }

    fn __lshift__(&self, py: Python<'_>, steps: i64) -> PyResult<PyCiphertext> {
        self.rotate_op(py, steps)
    }

    fn __rshift__(&self, py: Python<'_>, steps: i64) -> PyResult<PyCiphertext> {
        self.rotate_op(py, -steps)
    }
}

/// Evaluates CKKS operations with a set of evaluation keys.
///
/// Methods have the Rust ``ckks::Evaluator``'s names and return new ciphertexts bound to
/// this evaluator (so their operators find the keys). ``with ev:`` makes it the evaluator
/// of operators on unbound ciphertexts in the current thread or task. Safe to share between
/// threads; every call releases the GIL.
#[pyclass(frozen, module = "hekate._native", name = "CkksEvaluator")]
pub(crate) struct PyEvaluator {
    pub(crate) ctx: Py<PyContext>,
    keys: Py<PyEvaluationKeys>,
    pub(crate) inner: Arc<Evaluator>,
}

/// The inputs' real flags combined.
fn all_real(cts: &[&PyCiphertext]) -> bool {
    cts.iter().all(|c| c.real)
}

impl PyEvaluator {
    /// An evaluator from its parts (e.g. a bootstrapper's keys).
    pub(crate) fn from_parts(
        ctx: Py<PyContext>,
        keys: Py<PyEvaluationKeys>,
        inner: Arc<Evaluator>,
    ) -> Self {
        PyEvaluator { ctx, keys, inner }
    }

    /// Runs `f` on this evaluator (GIL released) and wraps the result, bound to `slf`.
    fn run<F>(slf: &Bound<'_, Self>, real: bool, f: F) -> PyResult<PyCiphertext>
    where
        F: FnOnce(&Evaluator) -> hekate::Result<Ciphertext> + Send,
    {
        let me = slf.get();
        let ev = me.inner.clone();
        let r = heavy(slf.py(), move || f(&ev))?;
        Ok(PyCiphertext::new(
            me.ctx.clone_ref(slf.py()),
            r,
            real,
            Some(slf.clone().unbind()),
        ))
    }
}

/// A giant step of `bsgs_extended` as Python passes it: `([(j, pt), ...], k)`.
type PyBlock<'py> = (Vec<(usize, PyRef<'py, PyPlaintext>)>, i64);
/// The same with the plaintexts shared, to move into the worker.
type OwnedBlock = (Vec<(usize, Arc<hekate::ckks::Plaintext>)>, i64);

#[pymethods]
impl PyEvaluator {
    #[new]
    fn new(py: Python<'_>, keys: Py<PyEvaluationKeys>) -> Self {
        let k = keys.get();
        let ctx = k.ctx.clone_ref(py);
        let inner = Arc::new(Evaluator::with_key_set(
            ctx.get().inner.clone(),
            k.inner.clone(),
        ));
        PyEvaluator { ctx, keys, inner }
    }

    /// The context.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyContext> {
        self.ctx.clone_ref(py)
    }

    /// The evaluation keys.
    #[getter]
    fn keys(&self, py: Python<'_>) -> Py<PyEvaluationKeys> {
        self.keys.clone_ref(py)
    }

    /// ``ct`` bound to this evaluator (same ciphertext; its operators use these keys).
    fn bind(slf: &Bound<'_, Self>, ct: &Bound<'_, PyCiphertext>) -> PyCiphertext {
        let c = ct.get();
        PyCiphertext {
            ctx: c.ctx.clone_ref(slf.py()),
            inner: c.inner.clone(),
            real: c.real,
            bound: Some(slf.clone().unbind()),
        }
    }

    fn __enter__(slf: &Bound<'_, Self>) -> PyResult<Py<Self>> {
        slf.py()
            .import("hekate._state")?
            .call_method1("push", (slf,))?;
        Ok(slf.clone().unbind())
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(slf: &Bound<'_, Self>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        slf.py()
            .import("hekate._state")?
            .call_method1("pop", (slf,))?;
        Ok(false)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (py.get_type::<PyEvaluator>(), (self.keys.clone_ref(py),))
            .into_pyobject(py)
            .map(Bound::into_any)
    }

    fn __repr__(&self) -> String {
        format!("<hekate.ckks.Evaluator {}>", self.keys.get().__repr__())
    }

    /// ``a + b``.
    fn add(
        slf: &Bound<'_, Self>,
        a: PyRef<'_, PyCiphertext>,
        b: PyRef<'_, PyCiphertext>,
    ) -> PyResult<PyCiphertext> {
        let (x, y) = (a.inner.clone(), b.inner.clone());
        Self::run(slf, all_real(&[&a, &b]), move |ev| ev.add(&x, &y))
    }

    /// ``a - b``.
    fn sub(
        slf: &Bound<'_, Self>,
        a: PyRef<'_, PyCiphertext>,
        b: PyRef<'_, PyCiphertext>,
    ) -> PyResult<PyCiphertext> {
        let (x, y) = (a.inner.clone(), b.inner.clone());
        Self::run(slf, all_real(&[&a, &b]), move |ev| ev.sub(&x, &y))
    }

    /// ``-a``.
    fn neg(slf: &Bound<'_, Self>, a: PyRef<'_, PyCiphertext>) -> PyResult<PyCiphertext> {
        let x = a.inner.clone();
        Self::run(slf, a.real, move |ev| ev.neg(&x))
    }

    /// ``ct + pt``.
    fn add_plain(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        pt: PyRef<'_, PyPlaintext>,
    ) -> PyResult<PyCiphertext> {
        let (x, p) = (ct.inner.clone(), pt.inner.clone());
        Self::run(slf, ct.real && pt.real, move |ev| ev.add_plain(&x, &p))
    }

    /// ``ct - pt``.
    fn sub_plain(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        pt: PyRef<'_, PyPlaintext>,
    ) -> PyResult<PyCiphertext> {
        let (x, p) = (ct.inner.clone(), pt.inner.clone());
        Self::run(slf, ct.real && pt.real, move |ev| ev.sub_plain(&x, &p))
    }

    /// ``ct * pt`` (scales multiply; rescale afterwards).
    fn mul_plain(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        pt: PyRef<'_, PyPlaintext>,
    ) -> PyResult<PyCiphertext> {
        let (x, p) = (ct.inner.clone(), pt.inner.clone());
        Self::run(slf, ct.real && pt.real, move |ev| ev.mul_plain(&x, &p))
    }

    /// ``acc + ct * pt`` without a temporary product (the inner loop of a plaintext-diagonal
    /// linear transform; Rust's ``mul_plain_add_assign``): ``acc`` must carry the product's
    /// scale; the result is at the lowest of the three levels.
    fn mul_plain_add(
        slf: &Bound<'_, Self>,
        acc: PyRef<'_, PyCiphertext>,
        ct: PyRef<'_, PyCiphertext>,
        pt: PyRef<'_, PyPlaintext>,
    ) -> PyResult<PyCiphertext> {
        let (a, x, p) = (acc.inner.clone(), ct.inner.clone(), pt.inner.clone());
        Self::run(slf, acc.real && ct.real && pt.real, move |ev| {
            let mut out = (*a).clone();
            ev.mul_plain_add_assign(&mut out, &x, &p)?;
            Ok(out)
        })
    }

    /// ``ct + c`` for a real or complex constant.
    fn add_const(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        c: Complex64,
    ) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real && is_real(c), move |ev| ev.add_const(&x, c))
    }

    /// ``ct * c``, the constant encoded at the last prime q_l so that ``rescale`` restores
    /// the scale exactly.
    fn mul_const(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        c: Complex64,
    ) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real && is_real(c), move |ev| ev.mul_const(&x, c))
    }

    /// ``ct * c`` with the constant encoded at ``scale`` (a float, or a ciphertext or
    /// plaintext whose exact scale to use).
    fn mul_const_scaled(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        c: Complex64,
        scale: &Bound<'_, PyAny>,
    ) -> PyResult<PyCiphertext> {
        let (x, s) = (ct.inner.clone(), scale_of(scale)?);
        Self::run(slf, ct.real && is_real(c), move |ev| {
            ev.mul_const_scaled(&x, c, &s)
        })
    }

    /// ``ct * c`` read at ``level`` (at most ``ct``'s), the constant encoded at ``scale``:
    /// the same ciphertext as ``mul_const_scaled(drop_level(ct, ct.level - level), c,
    /// scale)``, without copying ``ct`` first.
    fn mul_const_scaled_at(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        level: usize,
        c: Complex64,
        scale: &Bound<'_, PyAny>,
    ) -> PyResult<PyCiphertext> {
        let (x, s) = (ct.inner.clone(), scale_of(scale)?);
        Self::run(slf, ct.real && is_real(c), move |ev| {
            ev.mul_const_scaled_at(&x, level, c, &s)
        })
    }

    /// ``ct * k`` for an integer k (exact; no level used).
    fn mul_integer(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        k: i64,
    ) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.mul_integer(&x, k))
    }

    /// ``i * ct`` (exact; no level used).
    fn mul_by_i(slf: &Bound<'_, Self>, ct: PyRef<'_, PyCiphertext>) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, false, move |ev| ev.mul_by_i(&x))
    }

    /// ``ct * X^k`` (a monomial of the ring).
    fn mul_monomial(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        k: usize,
    ) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, false, move |ev| ev.mul_monomial(&x, k))
    }

    /// ``a * b`` without relinearization (a degree-2 ciphertext).
    fn mul_no_relin(
        slf: &Bound<'_, Self>,
        a: PyRef<'_, PyCiphertext>,
        b: PyRef<'_, PyCiphertext>,
    ) -> PyResult<PyCiphertext> {
        let (x, y) = (a.inner.clone(), b.inner.clone());
        Self::run(slf, all_real(&[&a, &b]), move |ev| ev.mul_no_relin(&x, &y))
    }

    /// Relinearizes a degree-2 ciphertext (needs the relinearization key).
    fn relinearize(slf: &Bound<'_, Self>, ct: PyRef<'_, PyCiphertext>) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.relinearize(&x))
    }

    /// ``a * b``, relinearized (not rescaled).
    fn mul(
        slf: &Bound<'_, Self>,
        a: PyRef<'_, PyCiphertext>,
        b: PyRef<'_, PyCiphertext>,
    ) -> PyResult<PyCiphertext> {
        let (x, y) = (a.inner.clone(), b.inner.clone());
        Self::run(slf, all_real(&[&a, &b]), move |ev| ev.mul(&x, &y))
    }

    /// ``(k a b + addend)`` rescaled: the product, relinearized, times the integer ``k``,
    /// plus ``addend`` (at the product's scale and at least its level), divided by the last
    /// prime; the relinearization's ModDown is fused into the rescale (the same result as
    /// ``rescale(mul(a, b) * k + addend)``, a fifth fewer transforms). ``a * b`` with
    /// ``auto_rescale`` calls it with ``k = 1``.
    #[pyo3(signature = (a, b, k = 1, addend = None))]
    fn mul_relin_rescale(
        slf: &Bound<'_, Self>,
        a: PyRef<'_, PyCiphertext>,
        b: PyRef<'_, PyCiphertext>,
        k: i64,
        addend: Option<PyRef<'_, PyCiphertext>>,
    ) -> PyResult<PyCiphertext> {
        let (x, y) = (a.inner.clone(), b.inner.clone());
        let real = all_real(&[&a, &b]) && addend.as_ref().is_none_or(|w| w.real);
        let w = addend.map(|w| w.inner.clone());
        Self::run(slf, real, move |ev| {
            ev.mul_relin_rescale(&x, &y, k, w.as_deref())
        })
    }

    /// ``(a_1 b_1 + a_2 b_2 + ... + addend)`` rescaled with **one** relinearization for
    /// the whole sum (lazy relinearization): the degree-2 products are summed, relinearized
    /// once, ``addend`` added, and the sum divided by the last prime (the same result as
    /// ``rescale(relinearize(mul_no_relin(a_1, b_1) + ...) + addend)``). Every product must
    /// land at one level and scale. ``pairs`` is a sequence of ``(a, b)`` ciphertext pairs.
    #[pyo3(signature = (pairs, addend = None))]
    fn mul_sum_relin_rescale(
        slf: &Bound<'_, Self>,
        pairs: Vec<(PyRef<'_, PyCiphertext>, PyRef<'_, PyCiphertext>)>,
        addend: Option<PyRef<'_, PyCiphertext>>,
    ) -> PyResult<PyCiphertext> {
        let real =
            pairs.iter().all(|(a, b)| a.real && b.real) && addend.as_ref().is_none_or(|w| w.real);
        let owned: Vec<_> = pairs
            .iter()
            .map(|(a, b)| (a.inner.clone(), b.inner.clone()))
            .collect();
        let w = addend.map(|w| w.inner.clone());
        Self::run(slf, real, move |ev| {
            let refs: Vec<_> = owned.iter().map(|(a, b)| (&**a, &**b)).collect();
            ev.mul_sum_relin_rescale(&refs, w.as_deref())
        })
    }

    /// ``a * a``, relinearized (not rescaled).
    fn square(slf: &Bound<'_, Self>, a: PyRef<'_, PyCiphertext>) -> PyResult<PyCiphertext> {
        let x = a.inner.clone();
        Self::run(slf, a.real, move |ev| ev.square(&x))
    }

    /// Divides by the last chain prime.
    fn rescale(slf: &Bound<'_, Self>, ct: PyRef<'_, PyCiphertext>) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.rescale(&x))
    }

    /// Brings ``ct`` to exactly the scale ``target`` (a float, or a ciphertext or plaintext
    /// whose exact scale to use) one level down.
    fn rescale_to(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        target: &Bound<'_, PyAny>,
    ) -> PyResult<PyCiphertext> {
        let (x, s): (_, Scale) = (ct.inner.clone(), scale_of(target)?);
        Self::run(slf, ct.real, move |ev| ev.rescale_to(&x, &s))
    }

    /// Drops ``levels`` levels (exact).
    #[pyo3(signature = (ct, levels=1))]
    fn drop_level(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        levels: usize,
    ) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.drop_level(&x, levels))
    }

    /// The automorphism X -> X^g (needs its Galois key).
    fn automorphism(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        g: usize,
    ) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, false, move |ev| ev.automorphism(&x, g))
    }

    /// Rotates the slots left by ``steps`` (needs its Galois key).
    fn rotate(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        steps: i64,
    ) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.rotate(&x, steps))
    }

    /// The complex conjugate of every slot (needs the conjugation key).
    fn conjugate(slf: &Bound<'_, Self>, ct: PyRef<'_, PyCiphertext>) -> PyResult<PyCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.conjugate(&x))
    }

    /// Rotations of ``ct`` by each of ``steps``, sharing one decomposition (hoisted).
    fn rotate_hoisted<'py>(
        slf: &Bound<'py, Self>,
        ct: PyRef<'py, PyCiphertext>,
        steps: Vec<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        let (ev, x) = (slf.get().inner.clone(), ct.inner.clone());
        let rs = heavy(py, move || ev.rotate_hoisted(&x, &steps))?;
        let items = rs
            .into_iter()
            .map(|r| {
                Py::new(
                    py,
                    PyCiphertext::new(
                        slf.get().ctx.clone_ref(py),
                        r,
                        ct.real,
                        Some(slf.clone().unbind()),
                    ),
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// ``Σ rotate(ct_i, k_i)`` for ``terms = [(ct_i, k_i), ...]`` with one ModDown for all
    /// the rotations (double hoisting); the terms share a level, a scale and a slot count.
    fn rotate_sum(
        slf: &Bound<'_, Self>,
        terms: Vec<(PyRef<'_, PyCiphertext>, i64)>,
    ) -> PyResult<PyCiphertext> {
        let real = terms.iter().all(|(c, _)| c.real);
        let owned: Vec<(Arc<Ciphertext>, i64)> =
            terms.iter().map(|(c, k)| (c.inner.clone(), *k)).collect();
        Self::run(slf, real, move |ev| {
            let refs: Vec<(&Ciphertext, i64)> =
                owned.iter().map(|(c, k)| (c.as_ref(), *k)).collect();
            ev.rotate_sum(&refs)
        })
    }

    /// ``rot_{k_0}(ct_0 + rot_{k_1}(ct_1 + ...))`` for ``terms = [(ct_0, k_0), ...]``:
    /// ``ct_i`` is rotated by ``k_0 + ... + k_i`` in all, with keys only for the distinct
    /// ``k_i`` (Horner giant steps; one level, scale and slot count).
    fn rotate_horner(
        slf: &Bound<'_, Self>,
        terms: Vec<(PyRef<'_, PyCiphertext>, i64)>,
    ) -> PyResult<PyCiphertext> {
        let real = terms.iter().all(|(c, _)| c.real);
        let owned: Vec<(Arc<Ciphertext>, i64)> =
            terms.iter().map(|(c, k)| (c.inner.clone(), *k)).collect();
        Self::run(slf, real, move |ev| {
            let refs: Vec<(&Ciphertext, i64)> =
                owned.iter().map(|(c, k)| (c.as_ref(), *k)).collect();
            ev.rotate_horner(&refs)
        })
    }

    /// A BSGS linear transform by seed 003 Alg. 6, the baby rotations and the products kept
    /// over ``Q_l ∪ P``: ``blocks = [(terms_t, k_t), ...]`` (outermost first), each
    /// ``terms_t = [(j, pt), ...]`` with ``j`` an index into ``babies`` (rotation steps) and
    /// ``pt`` from ``CkksContext.encode_extended`` at ``ct``'s level (one scale). With
    /// ``S_t = Σ pt ⊙ rot_{babies[j]}(ct)``: ``nested``, ``rot_{k_0}(S_0 + rot_{k_1}(S_1 +
    /// ...))`` (Horner giant steps), else ``Σ rot_{k_t}(S_t)``. The same values as
    /// ``rotate_hoisted``, ``mul_plain_add`` and ``rotate_horner`` / ``rotate_sum``, with
    /// one ModDown per giant step instead of one per baby step. Not rescaled.
    #[pyo3(signature = (ct, babies, blocks, nested=true))]
    fn bsgs_extended(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        babies: Vec<i64>,
        blocks: Vec<PyBlock<'_>>,
        nested: bool,
    ) -> PyResult<PyCiphertext> {
        let real = ct.real && blocks.iter().all(|(t, _)| t.iter().all(|(_, p)| p.real));
        let x = ct.inner.clone();
        let owned: Vec<OwnedBlock> = blocks
            .iter()
            .map(|(t, k)| (t.iter().map(|(j, p)| (*j, p.inner.clone())).collect(), *k))
            .collect();
        Self::run(slf, real, move |ev| {
            let terms: Vec<Vec<(usize, &hekate::ckks::Plaintext)>> = owned
                .iter()
                .map(|(t, _)| t.iter().map(|(j, p)| (*j, p.as_ref())).collect())
                .collect();
            let refs: Vec<(&[(usize, &hekate::ckks::Plaintext)], i64)> = terms
                .iter()
                .zip(&owned)
                .map(|(t, (_, k))| (&t[..], *k))
                .collect();
            ev.bsgs_extended(&x, &babies, &refs, nested)
        })
    }

    /// ``p(ct)`` (a ``Polynomial``) by baby-step giant-step, ``p.depth`` levels down, at
    /// exactly ``scale`` (default: ``ct``'s own scale; a float, ciphertext or plaintext).
    #[pyo3(signature = (ct, p, scale=None))]
    fn evaluate_polynomial(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyCiphertext>,
        p: PyRef<'_, super::poly::PyPolynomial>,
        scale: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyCiphertext> {
        let target = match scale {
            Some(s) => scale_of(s)?,
            None => ct.inner.scale().clone(),
        };
        let (x, poly) = (ct.inner.clone(), p.inner.clone());
        let real = ct.real && poly.coefficients().iter().all(|c| c.im == 0.0);
        Self::run(slf, real, move |ev| {
            hekate::circuits::polyeval::evaluate(ev, &x, &poly, &target)
        })
    }

    /// ``[a_i * b_i]`` relinearized and, unlike ``mul``, rescaled when the context's
    /// ``auto_rescale`` is on (the operator's semantics), all
    /// in one call without the GIL, in parallel.
    fn mul_many<'py>(
        slf: &Bound<'py, Self>,
        a: Vec<PyRef<'py, PyCiphertext>>,
        b: Vec<PyRef<'py, PyCiphertext>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        if a.len() != b.len() {
            return Err(PyValueError::new_err(format!(
                "mul_many takes two lists of equal length, got {} and {}",
                a.len(),
                b.len()
            )));
        }
        let me = slf.get();
        let auto = me.ctx.get().auto_rescale;
        let pairs: Vec<(Arc<Ciphertext>, Arc<Ciphertext>)> = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x.inner.clone(), y.inner.clone()))
            .collect();
        let ev = me.inner.clone();
        let rs = heavy(py, move || {
            pairs
                .par_iter()
                .map(|(x, y)| mul_maybe_rescale(&ev, x, y, auto))
                .collect::<hekate::Result<Vec<_>>>()
        })?;
        let items = rs
            .into_iter()
            .zip(a.iter().zip(&b))
            .map(|(r, (x, y))| {
                Py::new(
                    py,
                    PyCiphertext::new(
                        me.ctx.clone_ref(py),
                        r,
                        x.real && y.real,
                        Some(slf.clone().unbind()),
                    ),
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }
}
