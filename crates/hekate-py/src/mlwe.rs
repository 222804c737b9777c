//! MLWE-CKKS: contexts, keys, ciphertexts, the evaluator and the RLWE bridge
//! (`hekate.mlwe`).
//!
//! The shapes follow the CKKS bindings ([`crate::ckks`]): immutable objects over `Arc`s,
//! the GIL released around every computation ([`heavy`]), pickling through hekate's
//! validated byte format (the context as its parameter bytes, cached per process by
//! content; every other object as its bytes and its context), secret keys refusing to
//! pickle (`to_bytes()` is their explicit path), and ciphertext operators that find their
//! keys in the evaluator a ciphertext is bound to or in the innermost `with ev:` block.
//! `ct * ct` relinearizes (the evaluator's key for the operands' rank) and, with the
//! context's `auto_rescale` (the default), rescales, as the CKKS operators do.

use crate::ckks::{real_dtype, security_of};
use crate::values::{slot_values, slots_out};
use crate::{error_of_class, heavy};
use hekate::ckks::Scale;
use hekate::mlwe::{
    Ciphertext, Evaluator, HoistedRotationKeys, MlweContext, MlweParameters, PublicKey,
    RankReductionKey, RelinMethod, RelinearizationKey, RlweBridge, RotationKey, SecretKey,
};
use hekate::params::SecurityLevel;
use hekate::serialize::ReadPolicy;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyComplex, PyFloat};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Registers the MLWE classes.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMlweContext>()?;
    m.add_class::<PyMlweSecretKey>()?;
    m.add_class::<PyMlwePublicKey>()?;
    m.add_class::<PyMlweRelinearizationKey>()?;
    m.add_class::<PyMlweRankReductionKey>()?;
    m.add_class::<PyMlweRotationKey>()?;
    m.add_class::<PyMlweHoistedRotationKeys>()?;
    m.add_class::<PyMlweCiphertext>()?;
    m.add_class::<PyMlweEvaluator>()?;
    m.add_class::<PyRlweBridge>()?;
    Ok(())
}

/// A relinearization method from Python's spelling.
fn method_of(name: &str) -> PyResult<RelinMethod> {
    match name.to_ascii_lowercase().as_str() {
        "modhe" => Ok(RelinMethod::ModHe),
        "dpad" | "dpad-he" => Ok(RelinMethod::DPad),
        _ => Err(PyValueError::new_err(format!(
            "method must be 'modhe' or 'dpad', got {name:?}"
        ))),
    }
}

/// Python's spelling of a relinearization method.
fn method_name(m: RelinMethod) -> &'static str {
    match m {
        RelinMethod::ModHe => "modhe",
        RelinMethod::DPad => "dpad",
    }
}

/// The key of this process's context cache: parameter bytes, security, `auto_rescale`.
type ContextKey = (Vec<u8>, Option<u32>, bool);

/// MLWE contexts already built in this process, by [`ContextKey`].
static CONTEXTS: Mutex<Option<HashMap<ContextKey, Py<PyMlweContext>>>> = Mutex::new(None);

/// MLWE-CKKS parameters and their precomputed tables.
///
/// ``Context(log_n, rank, log_q, log_p=None, log_scale=None, dnum=None, dpad=None,
/// security=128, auto_rescale=True)``: ring degree ``n = 2^log_n`` and module rank ``r``
/// (the LWE dimension is ``r·n``; ``n/2`` slots), ``log_q`` the bit sizes of the chain
/// primes, ``log_p`` those of the special primes of ModHE's key switch (default one
/// 60-bit prime), ``dnum`` its
/// digits (default: the fewest ``P`` covers), ``dpad`` DPad-HE's settings as ``(rank_hat,
/// log_p_hat)`` or ``(rank_hat, log_p_hat, mu)``, ``security`` 128, 192, 256 or None (not
/// checked: toy sizes only), checked at ``r·n``. With ``auto_rescale`` the operators
/// rescale after every product.
#[pyclass(frozen, module = "hekate._native", name = "MlweContext")]
pub(crate) struct PyMlweContext {
    inner: Arc<MlweContext>,
    params_bytes: Vec<u8>,
    security: Option<u32>,
    auto_rescale: bool,
    /// The evaluator of the operations that need no key.
    keyless: Arc<Evaluator>,
}

impl PyMlweContext {
    fn wrap(inner: Arc<MlweContext>, security: Option<u32>, auto_rescale: bool) -> Self {
        let params_bytes = hekate::serialize::mlwe_context_to_bytes(&inner);
        let keyless = Arc::new(Evaluator::new(inner.clone(), None));
        PyMlweContext {
            inner,
            params_bytes,
            security,
            auto_rescale,
            keyless,
        }
    }

    /// The context of these bytes, from this process's cache or built (and cached).
    fn cached(
        py: Python<'_>,
        data: Vec<u8>,
        security: Option<u32>,
        auto_rescale: bool,
    ) -> PyResult<Py<PyMlweContext>> {
        let key = (data, security, auto_rescale);
        if let Some(c) = CONTEXTS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert_with(HashMap::new)
            .get(&key)
        {
            return Ok(c.clone_ref(py));
        }
        let policy = ReadPolicy::default().min_security(security_of(security)?);
        let bytes = key.0.clone();
        let inner = heavy(py, move || {
            hekate::serialize::mlwe_context_from_bytes_with(&bytes, &policy)
        })?;
        let ctx = Py::new(py, PyMlweContext::wrap(inner, security, auto_rescale))?;
        CONTEXTS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert_with(HashMap::new)
            .insert(key, ctx.clone_ref(py));
        Ok(ctx)
    }
}

/// DPad-HE's settings from Python: `(rank_hat, log_p_hat)` or `(rank_hat, log_p_hat, mu)`.
fn dpad_of(obj: &Bound<'_, PyAny>) -> PyResult<(usize, Vec<u32>, Option<usize>)> {
    if let Ok(t) = obj.extract::<(usize, Vec<u32>, Option<usize>)>() {
        return Ok(t);
    }
    if let Ok((rh, p)) = obj.extract::<(usize, Vec<u32>)>() {
        return Ok((rh, p, None));
    }
    Err(PyTypeError::new_err(
        "dpad is (rank_hat, log_p_hat) or (rank_hat, log_p_hat, mu)",
    ))
}

/// Encodes 1-D slot values at `level` and `scale` (GIL released); `(plaintext, real)`.
fn encode(
    py: Python<'_>,
    ctx: &Arc<MlweContext>,
    values: &Bound<'_, PyAny>,
    level: Option<usize>,
    scale: Option<Scale>,
) -> PyResult<(hekate::ckks::Plaintext, bool)> {
    let v = slot_values(values)?;
    if v.batched {
        return Err(PyValueError::new_err(
            "MLWE encodes a 1-D array of slot values",
        ));
    }
    let row = v.rows.into_iter().next().unwrap_or_default();
    let c = ctx.clone();
    let pt = heavy(py, move || {
        let level = level.unwrap_or(c.max_level());
        let scale = scale.unwrap_or_else(|| c.default_scale().clone());
        c.encode_at(&row, level, &scale)
    })?;
    Ok((pt, v.real))
}

#[pymethods]
impl PyMlweContext {
    #[new]
    #[pyo3(
        signature = (log_n, rank, log_q, log_p=None, log_scale=None, dnum=None, dpad=None, security=Some(128), auto_rescale=true),
        text_signature = "(log_n, rank, log_q, log_p=None, log_scale=None, dnum=None, dpad=None, security=128, auto_rescale=True)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        log_n: u32,
        rank: usize,
        log_q: Vec<u32>,
        log_p: Option<Vec<u32>>,
        log_scale: Option<u32>,
        dnum: Option<usize>,
        dpad: Option<&Bound<'_, PyAny>>,
        security: Option<u32>,
        auto_rescale: bool,
    ) -> PyResult<Self> {
        let level = security_of(security)?;
        let mut p = MlweParameters::new(log_n, rank)
            .log_q(&log_q)
            .log_p(&log_p.unwrap_or_else(|| vec![60]))
            .security(level);
        if let Some(s) = log_scale {
            p = p.log_scale(s);
        }
        if let Some(d) = dnum {
            p = p.dnum(d);
        }
        if let Some(d) = dpad.filter(|d| !d.is_none()) {
            let (rank_hat, log_p_hat, mu) = dpad_of(d)?;
            p = p.dpad(rank_hat, &log_p_hat, mu);
        }
        if level == SecurityLevel::NotChecked {
            let w = py
                .import("hekate.errors")?
                .getattr("InsecureParametersWarning")?;
            PyErr::warn(
                py,
                &w,
                c"security=None: these parameters are not checked against the \
                   HomomorphicEncryption.org table and may be trivially breakable",
                1,
            )?;
        }
        let inner = heavy(py, move || p.build())?;
        Ok(PyMlweContext::wrap(inner, security, auto_rescale))
    }

    /// The context of parameter bytes written by ``to_bytes``; refuses parameters below
    /// ``security`` (None: no check).
    #[staticmethod]
    #[pyo3(
        signature = (data, security=Some(128), auto_rescale=true),
        text_signature = "(data, security=128, auto_rescale=True)"
    )]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        security: Option<u32>,
        auto_rescale: bool,
    ) -> PyResult<Py<PyMlweContext>> {
        PyMlweContext::cached(py, crate::bytes::bytes_of(data)?, security, auto_rescale)
    }

    /// The parameters as hekate bytes (self-contained).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.params_bytes)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let cls = py.get_type::<PyMlweContext>().getattr("from_bytes")?;
        (
            cls,
            (
                PyBytes::new(py, &self.params_bytes),
                self.security,
                self.auto_rescale,
            ),
        )
            .into_pyobject(py)
            .map(Bound::into_any)
    }

    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyMlweContext>().is_ok_and(|o| {
            let o = o.get();
            o.params_bytes == self.params_bytes && o.auto_rescale == self.auto_rescale
        })
    }

    fn __hash__(&self) -> u64 {
        hekate::serialize::fnv1a64(&self.params_bytes)
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.mlwe.Context n=2^{} rank={}{} slots={} max_level={} dnum={} security={}>",
            self.inner.n().trailing_zeros(),
            self.inner.rank(),
            self.inner
                .rank_hat()
                .map_or(String::new(), |r| format!(" rank_hat={r}")),
            self.inner.max_slots(),
            self.inner.max_level(),
            self.inner.dnum(),
            self.security
                .map_or("not checked".to_string(), |b| format!("{b} bits")),
        )
    }

    /// The ring degree n.
    #[getter]
    fn n(&self) -> usize {
        self.inner.n()
    }

    /// The module rank r of fresh ciphertexts.
    #[getter]
    fn rank(&self) -> usize {
        self.inner.rank()
    }

    /// DPad-HE's temporary rank r̂ (None without DPad-HE).
    #[getter]
    fn rank_hat(&self) -> Option<usize> {
        self.inner.rank_hat()
    }

    /// The LWE dimension r·n.
    #[getter]
    fn lwe_dimension(&self) -> usize {
        self.inner.lwe_dimension()
    }

    /// The number of complex slots, n/2.
    #[getter]
    fn slots(&self) -> usize {
        self.inner.max_slots()
    }

    /// The level of fresh ciphertexts.
    #[getter]
    fn max_level(&self) -> usize {
        self.inner.max_level()
    }

    /// The chain primes q_0..q_L.
    #[getter]
    fn q_primes(&self) -> Vec<u64> {
        self.inner.q_primes()
    }

    /// The special primes of P.
    #[getter]
    fn p_primes(&self) -> Vec<u64> {
        self.inner.p_primes()
    }

    /// DPad-HE's special primes of P̂ (None without DPad-HE).
    #[getter]
    fn p_hat_primes(&self) -> Option<Vec<u64>> {
        self.inner.p_hat_primes()
    }

    /// The digits d of KeySwitch_d.
    #[getter]
    fn dnum(&self) -> usize {
        self.inner.dnum()
    }

    /// DPad-HE's digits μ (None without DPad-HE).
    #[getter]
    fn mu(&self) -> Option<usize> {
        self.inner.dpad().map(|d| d.mu())
    }

    /// The security level checked at construction (None: not checked).
    #[getter]
    fn security(&self) -> Option<u32> {
        self.security
    }

    /// Whether the operators rescale after every product.
    #[getter]
    fn auto_rescale(&self) -> bool {
        self.auto_rescale
    }

    /// The default scale Δ, as a float.
    #[getter]
    fn default_scale(&self) -> f64 {
        self.inner.default_scale().to_f64()
    }

    /// The fingerprint every serialized object of these parameters carries.
    #[getter]
    fn fingerprint(&self) -> u64 {
        self.inner.fingerprint()
    }

    /// The rank schedule: ``(rank, highest secure level)`` for each rank from r down.
    fn rank_schedule(&self) -> Vec<(usize, usize)> {
        self.inner.rank_schedule()
    }

    /// A fresh secret key (from the OS-seeded CSPRNG): r̂ components with DPad-HE.
    fn secret_key(slf: &Bound<'_, Self>) -> PyResult<PyMlweSecretKey> {
        let inner = slf.get().inner.clone();
        let sk = heavy(slf.py(), move || Ok(inner.generate_secret_key()))?;
        Ok(PyMlweSecretKey {
            ctx: slf.clone().unbind(),
            inner: Arc::new(sk),
        })
    }
}

/// The `from_bytes`, `to_bytes` and pickling of a public MLWE object class `$ty` whose
/// Rust type `$rust` is read under the MLWE context.
macro_rules! mlwe_object {
    ($ty:ident, $rust:ty, $what:literal, { $($methods:tt)* }) => {
        #[pymethods]
        impl $ty {
            $($methods)*

            /// The context.
            #[getter]
            fn context(&self, py: Python<'_>) -> Py<PyMlweContext> {
                self.ctx.clone_ref(py)
            }

            #[doc = concat!("The ", $what, " as hekate bytes.")]
            fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
                crate::bytes::write(py, &self.inner, &self.ctx.get().inner)
            }

            #[doc = concat!("The ", $what, " of bytes written by ``to_bytes``, under ``ctx``.")]
            #[staticmethod]
            fn from_bytes(
                py: Python<'_>,
                data: &Bound<'_, PyAny>,
                ctx: Py<PyMlweContext>,
            ) -> PyResult<$ty> {
                let inner = crate::bytes::read::<$rust>(py, data, &ctx.get().inner)?;
                Ok($ty { ctx, inner })
            }

            fn __reduce_ex__<'py>(
                &self,
                py: Python<'py>,
                protocol: u32,
            ) -> PyResult<Bound<'py, PyAny>> {
                crate::bytes::reduce!(
                    py,
                    $ty,
                    self.to_bytes(py)?,
                    protocol,
                    self.ctx.clone_ref(py)
                )
            }
        }
    };
}

/// An MLWE secret key. Never pickled (``to_bytes()`` is the explicit path); zeroized when
/// freed.
#[pyclass(frozen, module = "hekate._native", name = "MlweSecretKey")]
pub(crate) struct PyMlweSecretKey {
    ctx: Py<PyMlweContext>,
    inner: Arc<SecretKey>,
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
    ctx: Py<PyMlweContext>,
    inner: Arc<PublicKey>,
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
    ctx: Py<PyMlweContext>,
    inner: Arc<RelinearizationKey>,
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
    ctx: Py<PyMlweContext>,
    inner: Arc<RankReductionKey>,
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
    ctx: Py<PyMlweContext>,
    inner: Arc<RotationKey>,
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
    ctx: Py<PyMlweContext>,
    inner: Arc<HoistedRotationKeys>,
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

/// An MLWE-CKKS ciphertext. Immutable: every operation returns a new one.
#[pyclass(frozen, module = "hekate._native", name = "MlweCiphertext")]
pub(crate) struct PyMlweCiphertext {
    ctx: Py<PyMlweContext>,
    inner: Arc<Ciphertext>,
    /// Whether every input of its history was real.
    real: bool,
    /// The evaluator operators use, if bound.
    bound: Option<Py<PyMlweEvaluator>>,
}

impl PyMlweCiphertext {
    fn new(
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
    fn derive(&self, py: Python<'_>, inner: Ciphertext, real: bool) -> Self {
        PyMlweCiphertext::new(
            self.ctx.clone_ref(py),
            inner,
            real,
            self.bound.as_ref().map(|b| b.clone_ref(py)),
        )
    }

    fn keyless(&self) -> Arc<Evaluator> {
        self.ctx.get().keyless.clone()
    }

    fn auto(&self) -> bool {
        self.ctx.get().auto_rescale
    }

    /// The evaluator of an operation that needs keys: the one `self` (or `other`) is bound
    /// to, else the innermost `with ev:` MLWE evaluator.
    fn evaluator(
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
    fn add_sub(
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
    fn mul_op(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyMlweCiphertext> {
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

    fn rotate_op(&self, py: Python<'_>, steps: i64) -> PyResult<PyMlweCiphertext> {
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
    ctx: Py<PyMlweContext>,
    relin: Vec<Py<PyMlweRelinearizationKey>>,
    rank_keys: Vec<Py<PyMlweRankReductionKey>>,
    rotations: Vec<Py<PyMlweRotationKey>>,
    hoisted: Option<Py<PyMlweHoistedRotationKeys>>,
    inner: Arc<Evaluator>,
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
    fn build(
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
    fn parts(
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
    fn run<F>(slf: &Bound<'_, Self>, real: bool, f: F) -> PyResult<PyMlweCiphertext>
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

/// MLWE <-> RLWE conversion with CKKS at N = r·n (power-of-two ranks).
///
/// ``RlweBridge(ctx)``: ``ckks`` is the CKKS context at N = r·n (same primes); the RLWE
/// secret key of an MLWE one is ``rlwe_secret_key(sk)``, and the trace keys that
/// ``mlwe_to_rlwe`` needs are ``trace_keys(sk)`` (give them to a ``hekate.ckks.Evaluator``).
#[pyclass(frozen, module = "hekate._native", name = "RlweBridge")]
pub(crate) struct PyRlweBridge {
    ctx: Py<PyMlweContext>,
    ckks: Py<crate::ckks::PyContext>,
    inner: Arc<RlweBridge>,
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

    /// The MLWE ciphertext as a CKKS one at N = r·n (its n/2 slots, at scale r·Δ), with
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
