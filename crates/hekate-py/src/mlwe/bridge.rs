//! `hekate.mlwe.RlweBridge`: MLWE <-> RLWE conversion with a CKKS context.

use super::*;

/// MLWE <-> RLWE conversion with CKKS at N = r·n (power-of-two ranks).
///
/// ``RlweBridge(ctx)``: ``ckks`` is the CKKS context at N = r·n (same primes); the RLWE
/// secret key of an MLWE one is ``rlwe_secret_key(sk)``, and the trace keys that
/// ``mlwe_to_rlwe`` needs are ``trace_keys(sk)`` (give them to a ``hekate.ckks.Evaluator``).
#[pyclass(frozen, module = "hekate._native", name = "RlweBridge")]
pub(crate) struct PyRlweBridge {
    pub(super) ctx: Py<PyMlweContext>,
    pub(super) ckks: Py<crate::ckks::PyContext>,
    pub(super) inner: Arc<RlweBridge>,
}

#[pymethods]
impl PyRlweBridge {
    #[new]
    fn new(py: Python<'_>, ctx: Py<PyMlweContext>) -> PyResult<Self> {
        let c = ctx.get().inner.clone();
        let inner = heavy(py, move || RlweBridge::new(c))?;
        let me = ctx.get();
        let ckks = Py::new(
            py,
            crate::ckks::PyContext::wrap(inner.ckks().clone(), me.security, me.auto_rescale),
        )?;
        Ok(PyRlweBridge {
            ctx,
            ckks,
            inner: Arc::new(inner),
        })
    }

    /// The MLWE context.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyMlweContext> {
        self.ctx.clone_ref(py)
    }

    /// The CKKS context at N = r·n.
    #[getter]
    fn ckks(&self, py: Python<'_>) -> Py<crate::ckks::PyContext> {
        self.ckks.clone_ref(py)
    }

    /// The rotations the trace of ``mlwe_to_rlwe`` uses.
    fn trace_rotations(&self) -> Vec<i64> {
        self.inner.trace_rotations()
    }

    /// The gain (bits) ``mlwe_to_rlwe`` applies before the trace at ``level``: the
    /// output's scale is ``2**g * r * Δ`` (0 at level 0; at most 8).
    fn trace_gain_bits(&self, level: usize) -> u32 {
        self.inner.trace_gain_bits(level)
    }

    /// The RLWE (CKKS) secret key under which embedded ciphertexts decrypt.
    fn rlwe_secret_key(
        &self,
        py: Python<'_>,
        sk: PyRef<'_, PyMlweSecretKey>,
    ) -> PyResult<crate::ckks::PySecretKey> {
        let (br, s) = (self.inner.clone(), sk.inner.clone());
        let rsk = heavy(py, move || br.rlwe_secret_key(&s))?;
        Ok(crate::ckks::PySecretKey::new(
            self.ckks.clone_ref(py),
            Arc::new(rsk),
        ))
    }

    /// The CKKS evaluation keys of the trace (no relinearization key), for the RLWE
    /// secret key of ``sk``.
    fn trace_keys(
        &self,
        py: Python<'_>,
        sk: PyRef<'_, PyMlweSecretKey>,
    ) -> PyResult<crate::ckks::PyEvaluationKeys> {
        let (br, s) = (self.inner.clone(), sk.inner.clone());
        let set = heavy(py, move || {
            let rsk = br.rlwe_secret_key(&s)?;
            let gk = br.generate_trace_keys_with(&rsk, &mut hekate::math::sample::os_rng());
            Ok(hekate::ckks::EvaluationKeySet::new(None, gk))
        })?;
        Ok(crate::ckks::PyEvaluationKeys {
            ctx: self.ckks.clone_ref(py),
            inner: Arc::new(set),
        })
    }

    /// ``Embed``: the RLWE ciphertext whose message holds the MLWE one on the
    /// coefficients at multiples of r (not a slot encoding; ``mlwe_to_rlwe`` finishes it).
    fn embed(
        &self,
        py: Python<'_>,
        ct: PyRef<'_, PyMlweCiphertext>,
    ) -> PyResult<crate::ckks::PyCiphertext> {
        let (br, c) = (self.inner.clone(), ct.inner.clone());
        let r = heavy(py, move || br.embed(&c))?;
        Ok(crate::ckks::PyCiphertext::new(
            self.ckks.clone_ref(py),
            r,
            false,
            None,
        ))
    }

    /// The MLWE ciphertext as a CKKS one at N = r·n (its n/2 slots, at scale
    /// ``2**trace_gain_bits(level) * r * Δ``, the same level), with
    /// the trace keys of ``ev`` (a ``hekate.ckks.Evaluator``).
    fn mlwe_to_rlwe(
        &self,
        py: Python<'_>,
        ct: PyRef<'_, PyMlweCiphertext>,
        ev: Py<crate::ckks::PyEvaluator>,
    ) -> PyResult<crate::ckks::PyCiphertext> {
        let (br, c, e) = (self.inner.clone(), ct.inner.clone(), ev.get().inner.clone());
        let r = heavy(py, move || br.mlwe_to_rlwe(&c, &e))?;
        Ok(crate::ckks::PyCiphertext::new(
            self.ckks.clone_ref(py),
            r,
            ct.real,
            Some(ev),
        ))
    }

    /// A CKKS ciphertext of n/2 (sparse) slots at N = r·n as an MLWE ciphertext.
    fn rlwe_to_mlwe(
        &self,
        py: Python<'_>,
        ct: PyRef<'_, crate::ckks::PyCiphertext>,
    ) -> PyResult<PyMlweCiphertext> {
        let (br, c) = (self.inner.clone(), ct.inner.clone());
        let r = heavy(py, move || br.rlwe_to_mlwe(&c))?;
        Ok(PyMlweCiphertext::new(
            self.ctx.clone_ref(py),
            r,
            ct.real,
            None,
        ))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (py.get_type::<PyRlweBridge>(), (self.ctx.clone_ref(py),))
            .into_pyobject(py)
            .map(Bound::into_any)
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.mlwe.RlweBridge N=2^{}>",
            self.inner.ckks().n().trailing_zeros()
        )
    }
}
