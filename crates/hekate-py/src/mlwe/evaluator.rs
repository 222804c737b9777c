//! The `hekate.mlwe` evaluator: every `mlwe::Evaluator` method under its Rust name.

use super::*;

/// Evaluates MLWE-CKKS operations with the keys it holds.
///
/// ``Evaluator(ctx, relinearization_keys=(), rank_reduction_keys=(), rotation_keys=(),
/// hoisted_rotation_keys=None)``. Methods have the Rust ``mlwe::Evaluator``'s names; the
/// ``with_*`` ones return a new evaluator with the key added (objects are immutable).
/// Results are bound to the evaluator (so their operators find its keys); ``with ev:``
/// makes it the evaluator of operators on unbound MLWE ciphertexts. Every call releases
/// the GIL.
#[pyclass(frozen, module = "hekate._native", name = "MlweEvaluator")]
pub(crate) struct PyMlweEvaluator {
    pub(super) ctx: Py<PyMlweContext>,
    pub(super) relin: Vec<Py<PyMlweRelinearizationKey>>,
    pub(super) rank_keys: Vec<Py<PyMlweRankReductionKey>>,
    pub(super) rotations: Vec<Py<PyMlweRotationKey>>,
    pub(super) hoisted: Option<Py<PyMlweHoistedRotationKeys>>,
    pub(super) inner: Arc<Evaluator>,
}

/// An error unless the key object belongs to `ctx`.
fn same_context(ctx: &Py<PyMlweContext>, key_ctx: &Py<PyMlweContext>) -> PyResult<()> {
    let (a, b) = (ctx.get(), key_ctx.get());
    if a.inner.fingerprint() != b.inner.fingerprint() {
        return Err(error_of_class(
            "ParameterMismatchError",
            "parameter mismatch: a key of another MLWE context".into(),
        ));
    }
    Ok(())
}

impl PyMlweEvaluator {
    /// Builds the evaluator of these keys (clones of the Rust keys; GIL released).
    pub(super) fn build(
        py: Python<'_>,
        ctx: Py<PyMlweContext>,
        relin: Vec<Py<PyMlweRelinearizationKey>>,
        rank_keys: Vec<Py<PyMlweRankReductionKey>>,
        rotations: Vec<Py<PyMlweRotationKey>>,
        hoisted: Option<Py<PyMlweHoistedRotationKeys>>,
    ) -> PyResult<Self> {
        for k in &relin {
            same_context(&ctx, &k.get().ctx)?;
        }
        for k in &rank_keys {
            same_context(&ctx, &k.get().ctx)?;
        }
        for k in &rotations {
            same_context(&ctx, &k.get().ctx)?;
        }
        if let Some(k) = &hoisted {
            same_context(&ctx, &k.get().ctx)?;
        }
        let c = ctx.get().inner.clone();
        let r: Vec<Arc<RelinearizationKey>> = relin.iter().map(|k| k.get().inner.clone()).collect();
        let rk: Vec<Arc<RankReductionKey>> =
            rank_keys.iter().map(|k| k.get().inner.clone()).collect();
        let rot: Vec<Arc<RotationKey>> = rotations.iter().map(|k| k.get().inner.clone()).collect();
        let h = hoisted.as_ref().map(|k| k.get().inner.clone());
        let inner = heavy(py, move || {
            let mut ev = Evaluator::new(c, None);
            for k in r {
                ev = ev.with_relinearization_key((*k).clone());
            }
            for k in rk {
                ev = ev.with_rank_reduction_key((*k).clone());
            }
            ev = ev.with_rotation_keys(rot.iter().map(|k| (**k).clone()).collect());
            if let Some(h) = h {
                ev = ev.with_hoisted_rotation_keys((*h).clone());
            }
            Ok(ev)
        })?;
        Ok(PyMlweEvaluator {
            ctx,
            relin,
            rank_keys,
            rotations,
            hoisted,
            inner: Arc::new(inner),
        })
    }

    /// A copy of the key lists (to build a new evaluator from).
    #[allow(clippy::type_complexity)]
    pub(super) fn parts(
        &self,
        py: Python<'_>,
    ) -> (
        Py<PyMlweContext>,
        Vec<Py<PyMlweRelinearizationKey>>,
        Vec<Py<PyMlweRankReductionKey>>,
        Vec<Py<PyMlweRotationKey>>,
        Option<Py<PyMlweHoistedRotationKeys>>,
    ) {
        (
            self.ctx.clone_ref(py),
            self.relin.iter().map(|k| k.clone_ref(py)).collect(),
            self.rank_keys.iter().map(|k| k.clone_ref(py)).collect(),
            self.rotations.iter().map(|k| k.clone_ref(py)).collect(),
            self.hoisted.as_ref().map(|k| k.clone_ref(py)),
        )
    }

    /// Runs `f` on this evaluator (GIL released) and wraps the result, bound to `slf`.
    pub(super) fn run<F>(slf: &Bound<'_, Self>, real: bool, f: F) -> PyResult<PyMlweCiphertext>
    where
        F: FnOnce(&Evaluator) -> hekate::Result<Ciphertext> + Send,
    {
        let me = slf.get();
        let ev = me.inner.clone();
        let r = heavy(slf.py(), move || f(&ev))?;
        Ok(PyMlweCiphertext::new(
            me.ctx.clone_ref(slf.py()),
            r,
            real,
            Some(slf.clone().unbind()),
        ))
    }
}

#[pymethods]
impl PyMlweEvaluator {
    #[new]
    #[pyo3(
        signature = (ctx, relinearization_keys=Vec::new(), rank_reduction_keys=Vec::new(), rotation_keys=Vec::new(), hoisted_rotation_keys=None),
        text_signature = "(ctx, relinearization_keys=(), rank_reduction_keys=(), rotation_keys=(), hoisted_rotation_keys=None)"
    )]
    fn new(
        py: Python<'_>,
        ctx: Py<PyMlweContext>,
        relinearization_keys: Vec<Py<PyMlweRelinearizationKey>>,
        rank_reduction_keys: Vec<Py<PyMlweRankReductionKey>>,
        rotation_keys: Vec<Py<PyMlweRotationKey>>,
        hoisted_rotation_keys: Option<Py<PyMlweHoistedRotationKeys>>,
    ) -> PyResult<Self> {
        PyMlweEvaluator::build(
            py,
            ctx,
            relinearization_keys,
            rank_reduction_keys,
            rotation_keys,
            hoisted_rotation_keys,
        )
    }

    /// The context.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyMlweContext> {
        self.ctx.clone_ref(py)
    }

    /// The method of the relinearization key for rank r (``"modhe"``, ``"dpad"``), or
    /// None.
    #[getter]
    fn relin_method(&self) -> Option<&'static str> {
        self.inner.relin_method().map(method_name)
    }

    /// A new evaluator with ``key`` added (a key for a rank already held replaces it).
    fn with_relinearization_key(
        &self,
        py: Python<'_>,
        key: Py<PyMlweRelinearizationKey>,
    ) -> PyResult<Self> {
        let (ctx, mut relin, rk, rot, h) = self.parts(py);
        let rank = key.get().inner.rank();
        relin.retain(|k| k.get().inner.rank() != rank);
        relin.push(key);
        PyMlweEvaluator::build(py, ctx, relin, rk, rot, h)
    }

    /// A new evaluator with ``key`` added (one for the same ranks replaces it).
    fn with_rank_reduction_key(
        &self,
        py: Python<'_>,
        key: Py<PyMlweRankReductionKey>,
    ) -> PyResult<Self> {
        let (ctx, relin, mut rk, rot, h) = self.parts(py);
        let (f, t) = (key.get().inner.from, key.get().inner.to);
        rk.retain(|k| (k.get().inner.from, k.get().inner.to) != (f, t));
        rk.push(key);
        PyMlweEvaluator::build(py, ctx, relin, rk, rot, h)
    }

    /// A new evaluator with the plain rotation keys ``keys`` added.
    fn with_rotation_keys(
        &self,
        py: Python<'_>,
        keys: Vec<Py<PyMlweRotationKey>>,
    ) -> PyResult<Self> {
        let (ctx, relin, rk, mut rot, h) = self.parts(py);
        rot.extend(keys);
        PyMlweEvaluator::build(py, ctx, relin, rk, rot, h)
    }

    /// A new evaluator with the rank-hoisted rotation keys ``keys``.
    fn with_hoisted_rotation_keys(
        &self,
        py: Python<'_>,
        keys: Py<PyMlweHoistedRotationKeys>,
    ) -> PyResult<Self> {
        let (ctx, relin, rk, rot, _) = self.parts(py);
        PyMlweEvaluator::build(py, ctx, relin, rk, rot, Some(keys))
    }

    /// ``ct`` bound to this evaluator (same ciphertext; its operators use these keys).
    fn bind(slf: &Bound<'_, Self>, ct: &Bound<'_, PyMlweCiphertext>) -> PyMlweCiphertext {
        let c = ct.get();
        PyMlweCiphertext {
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
        let (ctx, relin, rk, rot, h) = self.parts(py);
        (py.get_type::<PyMlweEvaluator>(), (ctx, relin, rk, rot, h))
            .into_pyobject(py)
            .map(Bound::into_any)
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.mlwe.Evaluator relin={} rank_reduction={} rotations={} hoisted={}>",
            self.relin.len(),
            self.rank_keys.len(),
            self.rotations.len(),
            self.hoisted.is_some()
        )
    }

    /// ``a + b``.
    fn add(
        slf: &Bound<'_, Self>,
        a: PyRef<'_, PyMlweCiphertext>,
        b: PyRef<'_, PyMlweCiphertext>,
    ) -> PyResult<PyMlweCiphertext> {
        let (x, y) = (a.inner.clone(), b.inner.clone());
        Self::run(slf, a.real && b.real, move |ev| ev.add(&x, &y))
    }

    /// ``a - b``.
    fn sub(
        slf: &Bound<'_, Self>,
        a: PyRef<'_, PyMlweCiphertext>,
        b: PyRef<'_, PyMlweCiphertext>,
    ) -> PyResult<PyMlweCiphertext> {
        let (x, y) = (a.inner.clone(), b.inner.clone());
        Self::run(slf, a.real && b.real, move |ev| ev.sub(&x, &y))
    }

    /// ``-a``.
    fn neg(slf: &Bound<'_, Self>, a: PyRef<'_, PyMlweCiphertext>) -> PyResult<PyMlweCiphertext> {
        let x = a.inner.clone();
        Self::run(slf, a.real, move |ev| ev.neg(&x))
    }

    /// ``ct + values`` (encoded at ``ct``'s level and scale).
    fn add_plain(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
        values: &Bound<'_, PyAny>,
    ) -> PyResult<PyMlweCiphertext> {
        let ctx = slf.get().ctx.get().inner.clone();
        let x = ct.inner.clone();
        let (pt, real) = encode(
            slf.py(),
            &ctx,
            values,
            Some(x.level()),
            Some(x.scale().clone()),
        )?;
        Self::run(slf, ct.real && real, move |ev| ev.add_plain(&x, &pt))
    }

    /// ``ct * values`` (encoded at ``ct``'s level and the default scale; the scales
    /// multiply: rescale afterwards).
    fn mul_plain(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
        values: &Bound<'_, PyAny>,
    ) -> PyResult<PyMlweCiphertext> {
        let ctx = slf.get().ctx.get().inner.clone();
        let x = ct.inner.clone();
        let (pt, real) = encode(slf.py(), &ctx, values, Some(x.level()), None)?;
        Self::run(slf, ct.real && real, move |ev| ev.mul_plain(&x, &pt))
    }

    /// ``ct + c`` for a real constant.
    fn add_const(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
        c: f64,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.add_const(&x, c))
    }

    /// ``ct * c`` for a real constant (scaled by Δ: rescale afterwards).
    fn mul_const(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
        c: f64,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.mul_const(&x, c))
    }

    /// The tensor product (quadratic parts, not relinearized).
    fn tensor(
        slf: &Bound<'_, Self>,
        a: PyRef<'_, PyMlweCiphertext>,
        b: PyRef<'_, PyMlweCiphertext>,
    ) -> PyResult<PyMlweCiphertext> {
        let (x, y) = (a.inner.clone(), b.inner.clone());
        Self::run(slf, a.real && b.real, move |ev| ev.tensor(&x, &y))
    }

    /// Folds the quadratic parts back (the key for the ciphertext's rank).
    fn relinearize(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.relinearize(&x))
    }

    /// ``a * b``, relinearized (not rescaled).
    fn mul(
        slf: &Bound<'_, Self>,
        a: PyRef<'_, PyMlweCiphertext>,
        b: PyRef<'_, PyMlweCiphertext>,
    ) -> PyResult<PyMlweCiphertext> {
        let (x, y) = (a.inner.clone(), b.inner.clone());
        Self::run(slf, a.real && b.real, move |ev| ev.mul(&x, &y))
    }

    /// The ciphertext at rank ``to`` (a rank-reduction key from its rank to ``to``).
    fn rank_reduce(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
        to: usize,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.rank_reduce(&x, to))
    }

    /// The lowest rank the held keys reach at the ciphertext's level.
    fn reduce_rank_if_secure(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.reduce_rank_if_secure(&x))
    }

    /// Divides by the last chain prime.
    fn rescale(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.rescale(&x))
    }

    /// Drops ``levels`` levels.
    #[pyo3(signature = (ct, levels=1))]
    fn drop_level(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
        levels: usize,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.drop_level(&x, levels))
    }

    /// Rotates the slots left by ``steps`` (plain rotation key).
    fn rotate(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
        steps: i64,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.rotate(&x, steps))
    }

    /// Lifts a rank-r ciphertext to DPad-HE's rank r̂ (free).
    fn lift_rank(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.lift_rank(&x))
    }

    /// Rotates a lifted (rank-r̂) ciphertext by ``steps`` (hoisted keys).
    fn rotate_lifted(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
        steps: i64,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.rotate_lifted(&x, steps))
    }

    /// Brings a lifted ciphertext back to rank r.
    fn lower_rank(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.lower_rank(&x))
    }

    /// Consecutive rotations by each of ``steps``, rank-hoisted (lift, rotate, lower).
    fn rotate_chain_hoisted(
        slf: &Bound<'_, Self>,
        ct: PyRef<'_, PyMlweCiphertext>,
        steps: Vec<i64>,
    ) -> PyResult<PyMlweCiphertext> {
        let x = ct.inner.clone();
        Self::run(slf, ct.real, move |ev| ev.rotate_chain_hoisted(&x, &steps))
    }
}
