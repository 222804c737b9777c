//! Keys of `hekate.mlwe`: secret, public, relinearization (ModHE, DPad-HE), rank-reduction
//! and rotation keys.

use super::*;

/// An MLWE secret key. Never pickled (``to_bytes()`` is the explicit path); zeroized when
/// freed.
#[pyclass(frozen, module = "hekate._native", name = "MlweSecretKey")]
pub(crate) struct PyMlweSecretKey {
    pub(super) ctx: Py<PyMlweContext>,
    pub(super) inner: Arc<SecretKey>,
}

#[pymethods]
impl PyMlweSecretKey {
    /// The context.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyMlweContext> {
        self.ctx.clone_ref(py)
    }

    /// The public key of this secret key.
    fn public_key(&self, py: Python<'_>) -> PyResult<PyMlwePublicKey> {
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let pk = heavy(py, move || ctx.generate_public_key(&sk))?;
        Ok(PyMlwePublicKey {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(pk),
        })
    }

    /// A relinearization key by ``method`` (``"dpad"``, the default when the context has
    /// DPad-HE, or ``"modhe"``) for rank-``rank`` ciphertexts (default r) at levels up to
    /// ``level`` (default the top).
    #[pyo3(signature = (method=None, rank=None, level=None))]
    fn relinearization_key(
        &self,
        py: Python<'_>,
        method: Option<&str>,
        rank: Option<usize>,
        level: Option<usize>,
    ) -> PyResult<PyMlweRelinearizationKey> {
        let ctx = self.ctx.get().inner.clone();
        let method = match method {
            Some(m) => method_of(m)?,
            None if ctx.dpad().is_some() => RelinMethod::DPad,
            None => RelinMethod::ModHe,
        };
        let sk = self.inner.clone();
        let key = heavy(py, move || {
            let rank = rank.unwrap_or(ctx.rank());
            let level = level.unwrap_or(ctx.max_level());
            ctx.generate_relinearization_key_at_with(
                &sk,
                method,
                rank,
                level,
                &mut hekate::math::sample::os_rng(),
            )
        })?;
        Ok(PyMlweRelinearizationKey {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(key),
        })
    }

    /// A rank-reduction key from rank ``from_rank`` to ``to_rank`` at levels up to
    /// ``level`` (where the lower rank is secure).
    fn rank_reduction_key(
        &self,
        py: Python<'_>,
        from_rank: usize,
        to_rank: usize,
        level: usize,
    ) -> PyResult<PyMlweRankReductionKey> {
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let key = heavy(py, move || {
            ctx.generate_rank_reduction_key(&sk, from_rank, to_rank, level)
        })?;
        Ok(PyMlweRankReductionKey {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(key),
        })
    }

    /// Plain rotation keys, one per step of ``steps`` (left for positive steps).
    fn rotation_keys(&self, py: Python<'_>, steps: Vec<i64>) -> PyResult<Vec<PyMlweRotationKey>> {
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let keys = heavy(py, move || ctx.generate_rotation_keys(&sk, &steps))?;
        Ok(keys
            .into_iter()
            .map(|k| PyMlweRotationKey {
                ctx: self.ctx.clone_ref(py),
                inner: Arc::new(k),
            })
            .collect())
    }

    /// Rank-hoisted rotation keys for the steps ``steps`` (needs DPad-HE).
    fn hoisted_rotation_keys(
        &self,
        py: Python<'_>,
        steps: Vec<i64>,
    ) -> PyResult<PyMlweHoistedRotationKeys> {
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let keys = heavy(py, move || ctx.generate_hoisted_rotation_keys(&sk, &steps))?;
        Ok(PyMlweHoistedRotationKeys {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(keys),
        })
    }

    /// Encrypts a 1-D array of at most n/2 slot values under this secret key, at
    /// ``level`` (default the top); seed-compressed (``is_seeded``).
    #[pyo3(signature = (values, level=None))]
    fn encrypt(
        &self,
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        level: Option<usize>,
    ) -> PyResult<PyMlweCiphertext> {
        let ctx = self.ctx.get().inner.clone();
        let (pt, real) = encode(py, &ctx, values, level, None)?;
        let sk = self.inner.clone();
        let ct = heavy(py, move || ctx.encrypt_symmetric(&pt, &sk))?;
        Ok(PyMlweCiphertext::new(
            self.ctx.clone_ref(py),
            ct,
            real,
            None,
        ))
    }

    /// Decrypts and decodes a ciphertext: its slots, ``float64`` when every input was
    /// real, else ``complex128``; ``dtype`` overrides.
    #[pyo3(signature = (ct, dtype=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        ct: PyRef<'py, PyMlweCiphertext>,
        dtype: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (ctx, sk, c) = (
            self.ctx.get().inner.clone(),
            self.inner.clone(),
            ct.inner.clone(),
        );
        let v = heavy(py, move || ctx.decrypt_decode(&c, &sk))?;
        Ok(slots_out(py, v, real_dtype(dtype, ct.real)?))
    }

    /// The secret key as hekate bytes. Keep them secret.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        crate::bytes::write(py, &self.inner, &self.ctx.get().inner)
    }

    /// The secret key of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyMlweContext>,
    ) -> PyResult<PyMlweSecretKey> {
        let inner = crate::bytes::read::<SecretKey>(py, data, &ctx.get().inner)?;
        Ok(PyMlweSecretKey { ctx, inner })
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "hekate does not pickle secret keys: use sk.to_bytes() and store it yourself",
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.mlwe.SecretKey of parameters {:#018x}>",
            self.ctx.get().inner.fingerprint()
        )
    }
}

/// An MLWE public key: anyone can encrypt with it.
#[pyclass(frozen, module = "hekate._native", name = "MlwePublicKey")]
pub(crate) struct PyMlwePublicKey {
    pub(super) ctx: Py<PyMlweContext>,
    pub(super) inner: Arc<PublicKey>,
}

mlwe_object!(PyMlwePublicKey, PublicKey, "public key", {
    /// Encrypts a 1-D array of at most n/2 slot values at ``level`` (default the top).
    #[pyo3(signature = (values, level=None))]
    fn encrypt(
        &self,
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        level: Option<usize>,
    ) -> PyResult<PyMlweCiphertext> {
        let ctx = self.ctx.get().inner.clone();
        let (pt, real) = encode(py, &ctx, values, level, None)?;
        let pk = self.inner.clone();
        let ct = heavy(py, move || ctx.encrypt(&pt, &pk))?;
        Ok(PyMlweCiphertext::new(
            self.ctx.clone_ref(py),
            ct,
            real,
            None,
        ))
    }

    fn __repr__(&self) -> String {
        "<hekate.mlwe.PublicKey>".into()
    }
});

/// A relinearization key (ModHE or DPad-HE). Public.
#[pyclass(frozen, module = "hekate._native", name = "MlweRelinearizationKey")]
pub(crate) struct PyMlweRelinearizationKey {
    pub(super) ctx: Py<PyMlweContext>,
    pub(super) inner: Arc<RelinearizationKey>,
}

mlwe_object!(
    PyMlweRelinearizationKey,
    RelinearizationKey,
    "relinearization key",
    {
        /// ``"modhe"`` or ``"dpad"``.
        #[getter]
        fn method(&self) -> &'static str {
            method_name(self.inner.method())
        }

        /// The rank of the ciphertexts it relinearizes.
        #[getter]
        fn rank(&self) -> usize {
            self.inner.rank()
        }

        /// The highest level it serves.
        #[getter]
        fn max_level(&self) -> usize {
            self.inner.q_limbs() - 1
        }

        /// Bytes in memory.
        #[getter]
        fn nbytes(&self) -> usize {
            self.inner.size_bytes()
        }

        fn __repr__(&self) -> String {
            format!(
                "<hekate.mlwe.RelinearizationKey {} rank={} max_level={}>",
                self.method(),
                self.rank(),
                self.max_level()
            )
        }
    }
);

/// A rank-reduction key. Public.
#[pyclass(frozen, module = "hekate._native", name = "MlweRankReductionKey")]
pub(crate) struct PyMlweRankReductionKey {
    pub(super) ctx: Py<PyMlweContext>,
    pub(super) inner: Arc<RankReductionKey>,
}

mlwe_object!(
    PyMlweRankReductionKey,
    RankReductionKey,
    "rank-reduction key",
    {
        /// The rank of its input ciphertexts.
        #[getter(from_rank)]
        fn source_rank(&self) -> usize {
            self.inner.from
        }

        /// The rank of its outputs.
        #[getter]
        fn to_rank(&self) -> usize {
            self.inner.to
        }

        /// The highest level it serves.
        #[getter]
        fn max_level(&self) -> usize {
            self.inner.max_level()
        }

        /// Bytes in memory.
        #[getter]
        fn nbytes(&self) -> usize {
            self.inner.size_bytes()
        }

        fn __repr__(&self) -> String {
            format!(
                "<hekate.mlwe.RankReductionKey {} -> {} max_level={}>",
                self.inner.from,
                self.inner.to,
                self.inner.max_level()
            )
        }
    }
);

/// A plain rotation key (one Galois element). Public.
#[pyclass(frozen, module = "hekate._native", name = "MlweRotationKey")]
pub(crate) struct PyMlweRotationKey {
    pub(super) ctx: Py<PyMlweContext>,
    pub(super) inner: Arc<RotationKey>,
}

mlwe_object!(PyMlweRotationKey, RotationKey, "rotation key", {
    /// The Galois element (5^steps mod 2n).
    #[getter]
    fn galois_element(&self) -> usize {
        self.inner.galois
    }

    /// Bytes in memory.
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.key.size_bytes()
    }

    fn __repr__(&self) -> String {
        format!("<hekate.mlwe.RotationKey galois={}>", self.inner.galois)
    }
});

/// Rank-hoisted rotation keys (DPad-HE). Public.
#[pyclass(frozen, module = "hekate._native", name = "MlweHoistedRotationKeys")]
pub(crate) struct PyMlweHoistedRotationKeys {
    pub(super) ctx: Py<PyMlweContext>,
    pub(super) inner: Arc<HoistedRotationKeys>,
}

mlwe_object!(
    PyMlweHoistedRotationKeys,
    HoistedRotationKeys,
    "hoisted rotation keys",
    {
        /// The Galois elements of the power-of-two keys.
        #[getter]
        fn galois_elements(&self) -> Vec<usize> {
            self.inner.keys.iter().map(|(g, _)| *g).collect()
        }

        /// Bytes in memory.
        #[getter]
        fn nbytes(&self) -> usize {
            self.inner.size_bytes()
        }

        fn __repr__(&self) -> String {
            format!(
                "<hekate.mlwe.HoistedRotationKeys galois={:?}>",
                self.galois_elements()
            )
        }
    }
);
