//! FHEW gate bootstrapping (`hekate.fhew`).
//!
//! Ciphertexts travel in [`PyLweArray`]s: one context for many LWE ciphertexts, so a batch
//! pays one Python call and one pickle header. Gates apply element-wise and run in
//! parallel, each worker thread with its own [`FhewEvaluator::worker`] (the converted keys
//! are shared; the scratch is per worker) taken from the evaluator's pool, so Python
//! threads calling gates at once also run in parallel with one copy of the keys.

use crate::bytes::bytes_of;
use crate::ckks::security_of;
use crate::container::{read_container, write_container};
use crate::progress::Callback;
use crate::values::vector;
use crate::{error_of_class, heavy, IntoPy};
use hekate::fhew::{
    BootstrapKey, FhewContext, FhewEvaluator, FhewParams, FhewSecretKey, Gate, LweCiphertext,
    Method, MethodConfig,
};
use hekate::serialize::{Deserialize, Serialize};
use numpy::PyArray1;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use std::sync::{Arc, Mutex};

/// Registers the FHEW classes.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFhewContext>()?;
    m.add_class::<PyFhewSecretKey>()?;
    m.add_class::<PyBootstrapKey>()?;
    m.add_class::<PyFhewEvaluator>()?;
    m.add_class::<PyLweArray>()?;
    m.add_function(wrap_pyfunction!(fhew_presets, m)?)?;
    Ok(())
}

/// The names of every FHEW parameter preset (and `TOY`, a tiny insecure set for tests).
#[pyfunction]
fn fhew_presets() -> Vec<&'static str> {
    let mut names: Vec<&str> = hekate::fhew::params::PRESETS
        .iter()
        .map(|p| p.name)
        .collect();
    names.push(hekate::fhew::params::TOY.name);
    names
}

/// FHEW parameters (a preset by name) and their tables.
///
/// ``FhewContext(preset, security=128)``: ``preset`` is any name of ``fhew_presets()``
/// (e.g. ``"OPENFHE_STD128_LMKCDEY"``, ``"TOY"``); ``security`` 128, 192, 256 or None (no
/// check: toy sets only).
#[pyclass(frozen, module = "hekate._native", name = "FhewContext")]
pub(crate) struct PyFhewContext {
    pub(crate) inner: Arc<FhewContext>,
    params_bytes: Vec<u8>,
    security: Option<u32>,
}

impl PyFhewContext {
    /// The Python context of an existing one (e.g. a threshold context's joint keys').
    pub(crate) fn wrap(inner: Arc<FhewContext>, security: Option<u32>) -> PyResult<Self> {
        let params_bytes = inner.params().to_bytes(&()).py_err()?;
        Ok(PyFhewContext {
            inner,
            params_bytes,
            security,
        })
    }
}

#[pymethods]
impl PyFhewContext {
    #[new]
    #[pyo3(signature = (preset, security=Some(128)), text_signature = "(preset, security=128)")]
    fn new(py: Python<'_>, preset: &str, security: Option<u32>) -> PyResult<Self> {
        let p = FhewParams::by_name_or_test(preset).py_err()?;
        let level = security_of(security)?;
        let inner = heavy(py, move || FhewContext::with_security(p, level))?;
        let params_bytes = p.to_bytes(&()).py_err()?;
        Ok(PyFhewContext {
            inner,
            params_bytes,
            security,
        })
    }

    /// The context of parameter bytes written by ``to_bytes``.
    #[staticmethod]
    #[pyo3(signature = (data, security=Some(128)), text_signature = "(data, security=128)")]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        security: Option<u32>,
    ) -> PyResult<Self> {
        let bytes = bytes_of(data)?;
        let level = security_of(security)?;
        let b = bytes.clone();
        let inner = heavy(py, move || {
            let p = hekate::serialize::fhew_params_from_bytes(&b)?;
            FhewContext::with_security(&p, level)
        })?;
        Ok(PyFhewContext {
            inner,
            params_bytes: bytes,
            security,
        })
    }

    /// The parameters as hekate bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.params_bytes)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = py.get_type::<PyFhewContext>().getattr("from_bytes")?;
        (f, (PyBytes::new(py, &self.params_bytes), self.security))
            .into_pyobject(py)
            .map(Bound::into_any)
    }

    fn __repr__(&self) -> String {
        let p = self.inner.params();
        format!(
            "<hekate.fhew.Context {} n={} q={} N={} log Q={} security={}>",
            p.name,
            p.n,
            p.q,
            p.big_n,
            p.log_big_q,
            self.security
                .map_or("not checked".into(), |b| format!("{b} bits"))
        )
    }

    /// The preset's name.
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.params().name
    }

    /// The LWE dimension n.
    #[getter]
    fn n(&self) -> usize {
        self.inner.params().n
    }

    /// The LWE modulus q.
    #[getter]
    fn q(&self) -> u64 {
        self.inner.params().q
    }

    /// The ring degree N of the blind rotation.
    #[getter]
    fn big_n(&self) -> usize {
        self.inner.params().big_n
    }

    /// The security level checked at construction (None: not checked).
    #[getter]
    fn security(&self) -> Option<u32> {
        self.security
    }

    /// A fresh secret key.
    fn secret_key(slf: &Bound<'_, Self>) -> PyResult<PyFhewSecretKey> {
        let inner = slf.get().inner.clone();
        let sk = heavy(slf.py(), move || inner.generate_secret_key())?;
        Ok(PyFhewSecretKey {
            ctx: slf.clone().unbind(),
            inner: Arc::new(sk),
        })
    }
}

/// An FHEW secret key (LWE and RLWE parts). Never pickled; ``to_bytes()`` is the explicit
/// path.
#[pyclass(frozen, module = "hekate._native", name = "FhewSecretKey")]
pub(crate) struct PyFhewSecretKey {
    ctx: Py<PyFhewContext>,
    inner: Arc<FhewSecretKey>,
}

#[pymethods]
impl PyFhewSecretKey {
    /// Encrypts bits (a bool array-like, or one bool) into an ``LweArray``.
    fn encrypt(&self, py: Python<'_>, bits: &Bound<'_, PyAny>) -> PyResult<PyLweArray> {
        let bits: Vec<bool> = if let Ok(b) = bits.extract::<bool>() {
            vec![b]
        } else {
            vector::<bool>(bits, "bool", "bits")?
        };
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let cts = heavy(py, move || {
            bits.par_iter()
                .map(|&b| ctx.encrypt_bit(b, &sk))
                .collect::<hekate::Result<Vec<_>>>()
        })?;
        Ok(PyLweArray::new(self.ctx.clone_ref(py), cts, None))
    }

    /// Decrypts an ``LweArray`` of bits into a bool array.
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        cts: &PyLweArray,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let (ctx, sk, c) = (
            self.ctx.get().inner.clone(),
            self.inner.clone(),
            cts.cts.clone(),
        );
        let bits = heavy(py, move || {
            c.par_iter()
                .map(|ct| ctx.decrypt_bit(ct, &sk))
                .collect::<hekate::Result<Vec<_>>>()
        })?;
        Ok(PyArray1::from_vec(py, bits))
    }

    /// Encrypts integers modulo ``t`` (for ``lut``) into an ``LweArray``.
    fn encrypt_int(
        &self,
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        t: u64,
    ) -> PyResult<PyLweArray> {
        let v: Vec<u64> = vector::<u64>(values, "uint64", "integers")?;
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let cts = heavy(py, move || {
            v.par_iter()
                .map(|&m| ctx.encrypt_int(m, t, &sk))
                .collect::<hekate::Result<Vec<_>>>()
        })?;
        Ok(PyLweArray::new(self.ctx.clone_ref(py), cts, None))
    }

    /// Decrypts integers modulo ``t``.
    fn decrypt_int<'py>(
        &self,
        py: Python<'py>,
        cts: &PyLweArray,
        t: u64,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let (ctx, sk, c) = (
            self.ctx.get().inner.clone(),
            self.inner.clone(),
            cts.cts.clone(),
        );
        let v = heavy(py, move || {
            c.par_iter()
                .map(|ct| ctx.decrypt_int(ct, t, &sk))
                .collect::<hekate::Result<Vec<_>>>()
        })?;
        Ok(PyArray1::from_vec(py, v))
    }

    /// The bootstrapping key (blind-rotation and LWE key-switching keys): public. ``method``
    /// is a blind-rotation method name (``"GINX"``, ``"AP"``, ``"LMKCDEY-aux"``, ``"Alg4"``,
    /// ... optionally ``+ALTMULT``); default: the LMKCDEY variant the parameters suit.
    /// ``progress``: ``True`` draws a bar on stderr, a callable receives ``(done, total)``.
    #[pyo3(signature = (method=None, progress=None))]
    fn bootstrap_key(
        &self,
        py: Python<'_>,
        method: Option<&str>,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyBootstrapKey> {
        let ctx = self.ctx.get().inner.clone();
        let cfg = match method {
            Some(m) => MethodConfig::by_name(m).py_err()?,
            None => MethodConfig::new(Method::lmkcdey(ctx.params())),
        };
        let sk = self.inner.clone();
        let cb = Callback::from_arg(py, progress, "bootstrapping key")?;
        let key = heavy(py, || {
            let mut rng = hekate::math::sample::os_rng();
            match &cb {
                Some(c) => ctx.generate_bootstrap_key_with_progress(&sk, cfg, &mut rng, c),
                None => ctx.generate_bootstrap_key_with(&sk, cfg, &mut rng),
            }
        })?;
        if let Some(c) = &cb {
            c.take_error()?;
        }
        Ok(PyBootstrapKey {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(key),
        })
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
        ctx: Py<PyFhewContext>,
    ) -> PyResult<Self> {
        let sk = crate::bytes::read::<FhewSecretKey>(py, data, &ctx.get().inner)?;
        Ok(PyFhewSecretKey { ctx, inner: sk })
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "hekate does not pickle secret keys: use sk.to_bytes() and store it yourself",
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.fhew.SecretKey of {}>",
            self.ctx.get().inner.params().name
        )
    }
}

/// An FHEW bootstrapping key. Public.
#[pyclass(frozen, module = "hekate._native", name = "FhewBootstrapKey")]
pub(crate) struct PyBootstrapKey {
    pub(crate) ctx: Py<PyFhewContext>,
    pub(crate) inner: Arc<BootstrapKey>,
}

#[pymethods]
impl PyBootstrapKey {
    /// The key as hekate bytes (seed-compressed).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        crate::bytes::write(py, &self.inner, &self.ctx.get().inner)
    }

    /// The key of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyFhewContext>,
    ) -> PyResult<Self> {
        crate::KEY_LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let inner = crate::bytes::read::<BootstrapKey>(py, data, &ctx.get().inner)?;
        Ok(PyBootstrapKey { ctx, inner })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyBootstrapKey,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py)
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.fhew.BootstrapKey of {} ({} compressed bytes)>",
            self.ctx.get().inner.params().name,
            self.inner.compressed_bytes()
        )
    }
}

/// Evaluates FHEW gates with a bootstrapping key.
///
/// ``FhewEvaluator(key, products="auto")``: ``products`` is ``auto``, ``ntt``, ``fourier``,
/// ``approx``, ``compact`` or ``compact-approx``. Gates apply element-wise to ``LweArray``s,
/// in parallel; the evaluator is safe to share between threads.
#[pyclass(frozen, module = "hekate._native", name = "FhewEvaluator")]
pub(crate) struct PyFhewEvaluator {
    ctx: Py<PyFhewContext>,
    key: Py<PyBootstrapKey>,
    template: FhewEvaluator,
    workers: Mutex<Vec<FhewEvaluator>>,
}

impl PyFhewEvaluator {
    /// Runs `f` on each element of `n` in parallel chunks, one worker per chunk.
    fn map<F>(&self, py: Python<'_>, n: usize, f: F) -> PyResult<Vec<LweCiphertext>>
    where
        F: Fn(&mut FhewEvaluator, usize) -> hekate::Result<LweCiphertext> + Send + Sync,
    {
        heavy(py, || {
            let threads = rayon::current_num_threads().max(1);
            let chunk = n.div_ceil(threads).max(1);
            let parts: Vec<hekate::Result<Vec<LweCiphertext>>> = (0..n.div_ceil(chunk))
                .into_par_iter()
                .map(|c| {
                    let mut w = self.take();
                    let out = (c * chunk..((c + 1) * chunk).min(n))
                        .map(|i| f(&mut w, i))
                        .collect::<hekate::Result<Vec<_>>>();
                    self.give(w);
                    out
                })
                .collect();
            let mut all = Vec::with_capacity(n);
            for p in parts {
                all.extend(p?);
            }
            Ok(all)
        })
    }

    /// A fresh worker sharing this evaluator's keys.
    pub(crate) fn worker(&self) -> FhewEvaluator {
        self.template.worker()
    }

    fn take(&self) -> FhewEvaluator {
        let w = self.workers.lock().unwrap_or_else(|p| p.into_inner()).pop();
        w.unwrap_or_else(|| self.template.worker())
    }

    fn give(&self, w: FhewEvaluator) {
        self.workers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(w);
    }

    fn result(slf: &Bound<'_, Self>, cts: Vec<LweCiphertext>) -> PyLweArray {
        PyLweArray::new(
            slf.get().ctx.clone_ref(slf.py()),
            cts,
            Some(slf.clone().unbind()),
        )
    }

    fn binary(
        slf: &Bound<'_, Self>,
        gate: Gate,
        a: &PyLweArray,
        b: &PyLweArray,
    ) -> PyResult<PyLweArray> {
        same_len(a, b)?;
        let (x, y) = (a.cts.clone(), b.cts.clone());
        let out = slf
            .get()
            .map(slf.py(), x.len(), move |w, i| w.gate(gate, &x[i], &y[i]))?;
        Ok(Self::result(slf, out))
    }
}

fn same_len(a: &PyLweArray, b: &PyLweArray) -> PyResult<()> {
    if a.cts.len() != b.cts.len() {
        return Err(PyValueError::new_err(format!(
            "gates apply element-wise: the arrays have {} and {} ciphertexts",
            a.cts.len(),
            b.cts.len()
        )));
    }
    Ok(())
}

/// A gate by its name (`and`, `or`, `nand`, `nor`, `xor`, `xnor`).
fn gate_by_name(name: &str) -> PyResult<Gate> {
    Gate::ALL
        .into_iter()
        .find(|g| format!("{g:?}").eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown gate {name:?}: use and, or, nand, nor, xor or xnor"
            ))
        })
}

#[pymethods]
impl PyFhewEvaluator {
    #[new]
    #[pyo3(signature = (key, products="auto"))]
    fn new(py: Python<'_>, key: Py<PyBootstrapKey>, products: &str) -> PyResult<Self> {
        let k = key.get();
        let ctx = k.ctx.get().inner.clone();
        let bk = k.inner.clone();
        let products = products.to_string();
        let template = heavy(py, move || {
            let (r, d) = FhewEvaluator::products_by_name(&products, &ctx, &bk)?;
            FhewEvaluator::with_products(ctx, bk, r, d)
        })?;
        Ok(PyFhewEvaluator {
            ctx: k.ctx.clone_ref(py),
            key: key.clone_ref(py),
            template,
            workers: Mutex::new(Vec::new()),
        })
    }

    /// The bootstrapping key.
    #[getter]
    fn key(&self, py: Python<'_>) -> Py<PyBootstrapKey> {
        self.key.clone_ref(py)
    }

    /// The context.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyFhewContext> {
        self.ctx.clone_ref(py)
    }

    /// The products' arithmetic: ``"Ntt"``, ``"Fourier"`` or ``"FourierCompact"`` (what
    /// ``products="auto"`` picked, for instance).
    #[getter]
    fn arithmetic(&self) -> String {
        format!("{:?}", self.template.arithmetic())
    }

    /// The gadget decomposition: ``"Exact"`` or ``"Approximate"``.
    #[getter]
    fn decomposition(&self) -> String {
        format!("{:?}", self.template.decomposition())
    }

    /// Bytes this evaluator holds beside the key (converted keys, tables), per worker
    /// sharing them once.
    #[getter]
    fn extra_memory_bytes(&self) -> usize {
        self.template.extra_memory_bytes()
    }

    /// ``cts`` bound to this evaluator (their ``& | ^`` use it).
    fn bind(slf: &Bound<'_, Self>, cts: &PyLweArray) -> PyLweArray {
        PyLweArray {
            ctx: cts.ctx.clone_ref(slf.py()),
            cts: cts.cts.clone(),
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
        (py.get_type::<PyFhewEvaluator>(), (self.key.clone_ref(py),))
            .into_pyobject(py)
            .map(Bound::into_any)
    }

    /// A bootstrapped binary gate by name (``and``, ``or``, ``nand``, ``nor``, ``xor``,
    /// ``xnor``), element-wise.
    fn gate(
        slf: &Bound<'_, Self>,
        name: &str,
        a: &PyLweArray,
        b: &PyLweArray,
    ) -> PyResult<PyLweArray> {
        Self::binary(slf, gate_by_name(name)?, a, b)
    }

    /// ``a AND b``, element-wise.
    fn and_(slf: &Bound<'_, Self>, a: &PyLweArray, b: &PyLweArray) -> PyResult<PyLweArray> {
        Self::binary(slf, Gate::And, a, b)
    }

    /// ``a OR b``, element-wise.
    fn or_(slf: &Bound<'_, Self>, a: &PyLweArray, b: &PyLweArray) -> PyResult<PyLweArray> {
        Self::binary(slf, Gate::Or, a, b)
    }

    /// ``NOT (a AND b)``, element-wise.
    fn nand(slf: &Bound<'_, Self>, a: &PyLweArray, b: &PyLweArray) -> PyResult<PyLweArray> {
        Self::binary(slf, Gate::Nand, a, b)
    }

    /// ``NOT (a OR b)``, element-wise.
    fn nor(slf: &Bound<'_, Self>, a: &PyLweArray, b: &PyLweArray) -> PyResult<PyLweArray> {
        Self::binary(slf, Gate::Nor, a, b)
    }

    /// ``a XOR b``, element-wise.
    fn xor(slf: &Bound<'_, Self>, a: &PyLweArray, b: &PyLweArray) -> PyResult<PyLweArray> {
        Self::binary(slf, Gate::Xor, a, b)
    }

    /// ``NOT (a XOR b)``, element-wise.
    fn xnor(slf: &Bound<'_, Self>, a: &PyLweArray, b: &PyLweArray) -> PyResult<PyLweArray> {
        Self::binary(slf, Gate::Xnor, a, b)
    }

    /// ``NOT a`` (no bootstrapping), element-wise.
    fn not_(slf: &Bound<'_, Self>, a: &PyLweArray) -> PyLweArray {
        let out = a.cts.iter().map(LweCiphertext::not_bit).collect();
        Self::result(slf, out)
    }

    /// The three-input majority, bootstrapped once, element-wise.
    fn majority(
        slf: &Bound<'_, Self>,
        a: &PyLweArray,
        b: &PyLweArray,
        c: &PyLweArray,
    ) -> PyResult<PyLweArray> {
        same_len(a, b)?;
        same_len(a, c)?;
        let (x, y, z) = (a.cts.clone(), b.cts.clone(), c.cts.clone());
        let out = slf.get().map(slf.py(), x.len(), move |w, i| {
            w.majority(&x[i], &y[i], &z[i])
        })?;
        Ok(Self::result(slf, out))
    }

    /// Refreshes bits (the identity gate, bootstrapped), element-wise.
    fn refresh(slf: &Bound<'_, Self>, a: &PyLweArray) -> PyResult<PyLweArray> {
        let x = a.cts.clone();
        let out = slf
            .get()
            .map(slf.py(), x.len(), move |w, i| w.refresh(&x[i]))?;
        Ok(Self::result(slf, out))
    }

    /// Evaluates the look-up table ``table`` (``table[m]`` for ``m`` in ``0..t``, values
    /// below ``t``) on integers modulo ``t`` (from ``encrypt_int``), element-wise.
    fn lut(
        slf: &Bound<'_, Self>,
        a: &PyLweArray,
        table: &Bound<'_, PyAny>,
        t: u64,
    ) -> PyResult<PyLweArray> {
        let table: Vec<u64> = vector::<u64>(table, "uint64", "table entries")?;
        if table.len() as u64 != t {
            return Err(PyValueError::new_err(format!(
                "a look-up table modulo t = {t} has t entries, got {}",
                table.len()
            )));
        }
        if let Some(v) = table.iter().find(|&&v| v >= t) {
            return Err(PyValueError::new_err(format!(
                "look-up table entries must be below t = {t}, got {v}"
            )));
        }
        let x = a.cts.clone();
        let out = slf.get().map(slf.py(), x.len(), move |w, i| {
            w.lut(&x[i], t, |m| table[m as usize])
        })?;
        Ok(Self::result(slf, out))
    }

    fn __repr__(&self) -> String {
        format!("<hekate.fhew.Evaluator {}>", self.key.get().__repr__())
    }
}

/// LWE ciphertexts of one FHEW context (bits, or integers modulo t). Immutable.
#[pyclass(frozen, module = "hekate._native", name = "LweArray")]
pub(crate) struct PyLweArray {
    pub(crate) ctx: Py<PyFhewContext>,
    pub(crate) cts: Arc<Vec<LweCiphertext>>,
    bound: Option<Py<PyFhewEvaluator>>,
}

/// Magic of the LWE-array container ([`crate::container`]).
const LWE_MAGIC: &[u8; 8] = b"HKPYLWE1";

impl PyLweArray {
    pub(crate) fn new(
        ctx: Py<PyFhewContext>,
        cts: Vec<LweCiphertext>,
        bound: Option<Py<PyFhewEvaluator>>,
    ) -> Self {
        PyLweArray {
            ctx,
            cts: Arc::new(cts),
            bound,
        }
    }

    /// The first ciphertext (an error for an empty array).
    pub(crate) fn first(&self) -> PyResult<LweCiphertext> {
        self.cts
            .first()
            .cloned()
            .ok_or_else(|| PyIndexError::new_err("the array is empty"))
    }

    /// The evaluator for operators: bound, else the innermost `with` block.
    fn evaluator<'py>(
        &self,
        py: Python<'py>,
        other: Option<&PyLweArray>,
    ) -> PyResult<Bound<'py, PyFhewEvaluator>> {
        if let Some(b) = self.bound.as_ref().or(other.and_then(|o| o.bound.as_ref())) {
            return Ok(b.bind(py).clone());
        }
        let current = py
            .import("hekate._state")?
            .call_method1("current", (py.get_type::<PyFhewEvaluator>(),))?;
        if !current.is_none() {
            return Ok(current.cast_into::<PyFhewEvaluator>()?);
        }
        Err(error_of_class(
            "MissingKeyError",
            "missing key: gates need a bootstrapping key: use ev.nand(a, b), ev.bind(a) or \
             `with ev:` (ev = hekate.fhew.Evaluator(bootstrap_key))"
                .into(),
        ))
    }

    fn op(&self, py: Python<'_>, other: &PyLweArray, gate: Gate) -> PyResult<PyLweArray> {
        let ev = self.evaluator(py, Some(other))?;
        PyFhewEvaluator::binary(&ev, gate, self, other)
    }
}

#[pymethods]
impl PyLweArray {
    fn __len__(&self) -> usize {
        self.cts.len()
    }

    /// One ciphertext (as an array of one) or a slice.
    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<PyLweArray> {
        let n = self.cts.len() as isize;
        let picked: Vec<LweCiphertext> = if let Ok(i) = index.extract::<isize>() {
            let j = if i < 0 { i + n } else { i };
            if !(0..n).contains(&j) {
                return Err(PyIndexError::new_err(format!(
                    "index {i} out of range for {n} ciphertexts"
                )));
            }
            vec![self.cts[j as usize].clone()]
        } else {
            let s = index.cast::<pyo3::types::PySlice>()?.indices(n)?;
            (0..s.slicelength)
                .map(|k| self.cts[(s.start + k as isize * s.step) as usize].clone())
                .collect()
        };
        Ok(PyLweArray::new(
            self.ctx.clone_ref(py),
            picked,
            self.bound.as_ref().map(|b| b.clone_ref(py)),
        ))
    }

    /// The concatenation of several arrays of one context.
    #[staticmethod]
    fn concat(py: Python<'_>, arrays: Vec<PyRef<'_, PyLweArray>>) -> PyResult<PyLweArray> {
        let first = arrays
            .first()
            .ok_or_else(|| PyValueError::new_err("concat needs at least one array"))?;
        let cts = arrays.iter().flat_map(|a| a.cts.iter().cloned()).collect();
        Ok(PyLweArray::new(
            first.ctx.clone_ref(py),
            cts,
            first.bound.as_ref().map(|b| b.clone_ref(py)),
        ))
    }

    /// The array as bytes: a container of hekate LWE ciphertexts, each validated on read.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let (ctx, cts) = (self.ctx.get().inner.clone(), self.cts.clone());
        let b = heavy(py, move || {
            let items = cts
                .iter()
                .map(|c| c.to_bytes(&ctx))
                .collect::<hekate::Result<Vec<_>>>()?;
            Ok(write_container(LWE_MAGIC, &items))
        })?;
        Ok(PyBytes::new(py, &b))
    }

    /// The array of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyFhewContext>,
    ) -> PyResult<Self> {
        let (bytes, c) = (bytes_of(data)?, ctx.get().inner.clone());
        let cts = heavy(py, move || {
            read_container(&bytes, LWE_MAGIC, "LWE array", |b| {
                LweCiphertext::from_bytes(b, &c)
            })
        })?;
        Ok(PyLweArray::new(ctx, cts, None))
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyLweArray,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py)
        )
    }

    fn __and__(&self, py: Python<'_>, other: PyRef<'_, PyLweArray>) -> PyResult<PyLweArray> {
        self.op(py, &other, Gate::And)
    }

    fn __or__(&self, py: Python<'_>, other: PyRef<'_, PyLweArray>) -> PyResult<PyLweArray> {
        self.op(py, &other, Gate::Or)
    }

    fn __xor__(&self, py: Python<'_>, other: PyRef<'_, PyLweArray>) -> PyResult<PyLweArray> {
        self.op(py, &other, Gate::Xor)
    }

    fn __invert__(&self, py: Python<'_>) -> PyResult<PyLweArray> {
        // NOT needs no key: q/4 - ct.
        let out = self.cts.iter().map(LweCiphertext::not_bit).collect();
        Ok(PyLweArray::new(
            self.ctx.clone_ref(py),
            out,
            self.bound.as_ref().map(|b| b.clone_ref(py)),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.fhew.LweArray of {} ciphertexts, {}>",
            self.cts.len(),
            self.ctx.get().inner.params().name
        )
    }
}
