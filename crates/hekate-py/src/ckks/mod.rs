//! CKKS: contexts, keys, plaintexts and ciphertexts (`hekate.ckks`).
//!
//! A [`PyContext`] wraps an `Arc<CkksContext>` with the parameter bytes it pickles as, and
//! one keyless evaluator for the operations that need no key (additions, plaintext and
//! constant products, rescaling). Ciphertexts and plaintexts carry their context, a flag
//! saying whether every input of their history was real (so `decrypt` returns `float64`
//! rather than `complex128`), and ciphertexts optionally the evaluator they are bound to
//! (operators that need keys use it; see [`evaluator`]).

use crate::context_cache::ContextCache;
use crate::progress::{Callback, Units};
use crate::values::{rows_out, slot_values, slots_out};
use crate::{heavy, IntoPy};
use hekate::ckks::{
    Ciphertext, CkksContext, CkksParameters, EvaluationKeySet, Evaluator, GaloisKeys, Plaintext,
    RelinearizationKey, Scale,
};
use hekate::params::SecurityLevel;
use hekate::progress::Progress;
use hekate::rlwe::keyswitch::KeySwitchMethod;
use hekate::rlwe::{PublicKey, SecretKey};
use hekate::serialize::{Deserialize, ReadPolicy, Serialize};
use num_complex::Complex64;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use rayon::prelude::*;
use std::sync::Arc;

pub(crate) mod boot;
pub(crate) mod evaluator;
pub(crate) mod poly;
pub(crate) use evaluator::PyEvaluator;

/// Registers the CKKS classes.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyContext>()?;
    m.add_class::<PySecretKey>()?;
    m.add_class::<PyPublicKey>()?;
    m.add_class::<PyEvaluationKeys>()?;
    m.add_class::<PyPlaintext>()?;
    m.add_class::<PyCiphertext>()?;
    m.add_class::<PyEvaluator>()?;
    m.add_class::<poly::PyPolynomial>()?;
    m.add_class::<boot::PyBootstrapParameters>()?;
    m.add_class::<boot::PyBootstrapKeys>()?;
    m.add_class::<boot::PyBootstrapper>()?;
    Ok(())
}

/// Python's spelling of a security level: 128, 192, 256, or None (not checked).
pub(crate) fn security_of(bits: Option<u32>) -> PyResult<SecurityLevel> {
    match bits {
        None => Ok(SecurityLevel::NotChecked),
        Some(128) => Ok(SecurityLevel::Bits128),
        Some(192) => Ok(SecurityLevel::Bits192),
        Some(256) => Ok(SecurityLevel::Bits256),
        Some(b) => Err(PyValueError::new_err(format!(
            "security must be 128, 192, 256 or None (not checked), got {b}"
        ))),
    }
}

/// This process's CKKS contexts, held weakly ([`ContextCache`]).
static CONTEXTS: ContextCache = ContextCache::new();

/// The live CKKS contexts in [`CONTEXTS`].
pub(crate) fn cached_contexts(py: Python<'_>) -> usize {
    CONTEXTS.live(py)
}

/// CKKS parameters and their precomputed tables.
///
/// ``Context(log_n, log_q, log_p=None, log_scale=None, dnum=None, security=128,
/// key_switching="hybrid", auto_rescale=True, digits="uniform")``: ``log_q`` are the bit sizes of the chain
/// primes (the first one first), ``log_p`` those of the special primes (default: enough
/// 50-bit primes to exceed the largest key-switching digit with margin), ``log_scale`` the
/// default scale's bits (default: the size of the second chain prime, or 40),
/// ``security`` 128, 192, 256 or None (no check: toy sizes only), ``key_switching``
/// ``"hybrid"``, ``"klss:R"``, ``"linear"``, ``"linear-heuristic"`` or ``"auto"``.
/// With ``auto_rescale`` the operators rescale after every product. ``digits`` is
/// ``"uniform"`` (``dnum`` digits of equally many primes) or ``"bits"`` (hybrid only, with
/// ``log_p`` and without ``dnum``: consecutive primes grouped while a digit stays within
/// ``P``'s bits less the noise margin, fewer digits on chains of mixed prime sizes).
#[pyclass(frozen, weakref, module = "hekate._native", name = "CkksContext")]
pub(crate) struct PyContext {
    pub(crate) inner: Arc<CkksContext>,
    params_bytes: Vec<u8>,
    security: Option<u32>,
    pub(crate) auto_rescale: bool,
    /// The evaluator of operations that need no key.
    pub(crate) keyless: Arc<Evaluator>,
}

impl PyContext {
    pub(crate) fn wrap(
        inner: Arc<CkksContext>,
        security: Option<u32>,
        auto_rescale: bool,
    ) -> PyContext {
        let params_bytes = hekate::serialize::ckks_context_to_bytes(&inner);
        let keyless = Arc::new(Evaluator::new(inner.clone(), None, GaloisKeys::new()));
        PyContext {
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
    ) -> PyResult<Py<PyContext>> {
        let key = (data, security, auto_rescale);
        if let Some(c) = CONTEXTS.get::<PyContext>(py, &key)? {
            return Ok(c);
        }
        let policy = ReadPolicy::default().min_security(security_of(security)?);
        let bytes = key.0.clone();
        let inner = heavy(py, move || {
            hekate::serialize::ckks_context_from_bytes_with(&bytes, &policy)
        })?;
        let ctx = Py::new(py, PyContext::wrap(inner, security, auto_rescale))?;
        CONTEXTS.insert(py, key, &ctx)?;
        Ok(ctx)
    }
}

#[pymethods]
impl PyContext {
    #[new]
    #[pyo3(
        signature = (log_n, log_q, log_p=None, log_scale=None, dnum=None, security=Some(128), key_switching="hybrid", auto_rescale=true, digits="uniform"),
        text_signature = "(log_n, log_q, log_p=None, log_scale=None, dnum=None, security=128, key_switching='hybrid', auto_rescale=True, digits='uniform')"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        log_n: u32,
        log_q: Vec<u32>,
        log_p: Option<Vec<u32>>,
        log_scale: Option<u32>,
        dnum: Option<usize>,
        security: Option<u32>,
        key_switching: &str,
        auto_rescale: bool,
        digits: &str,
    ) -> PyResult<Self> {
        let level = security_of(security)?;
        let method = KeySwitchMethod::parse(key_switching).py_err()?;
        let mut p = CkksParameters::new(log_n)
            .log_q(&log_q)
            .security(level)
            .key_switching(method);
        if let Some(lp) = &log_p {
            p = p.log_p(lp);
        }
        if let Some(s) = log_scale {
            p = p.log_scale(s);
        }
        if let Some(d) = dnum {
            p = p.dnum(d);
        }
        match digits {
            "uniform" => {}
            "bits" => p = p.digits_by_bits(),
            other => {
                return Err(PyValueError::new_err(format!(
                    "digits={other:?}: use \"uniform\" or \"bits\""
                )))
            }
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
        Ok(PyContext::wrap(inner, security, auto_rescale))
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
    ) -> PyResult<Py<PyContext>> {
        PyContext::cached(py, crate::bytes::bytes_of(data)?, security, auto_rescale)
    }

    /// The parameters as hekate bytes (self-contained; a few hundred bytes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.params_bytes)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let cls = py.get_type::<PyContext>().getattr("from_bytes")?;
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
        other.cast::<PyContext>().is_ok_and(|o| {
            let o = o.get();
            o.params_bytes == self.params_bytes && o.auto_rescale == self.auto_rescale
        })
    }

    fn __hash__(&self) -> u64 {
        hekate::serialize::fnv1a64(&self.params_bytes)
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.ckks.Context N=2^{} slots={} max_level={} log_qp={:.1} dnum={} \
             key_switching={} security={}>",
            self.inner.n().trailing_zeros(),
            self.inner.max_slots(),
            self.inner.max_level(),
            self.inner.log_qp(),
            self.inner.dnum(),
            self.inner.key_switch_method().name(),
            self.security
                .map_or("not checked".to_string(), |b| format!("{b} bits")),
        )
    }

    /// The ring degree N.
    #[getter]
    fn n(&self) -> usize {
        self.inner.n()
    }

    /// The number of complex slots of a full packing, N/2.
    #[getter]
    fn slots(&self) -> usize {
        self.inner.max_slots()
    }

    /// The level of fresh ciphertexts (the number of chain primes minus one).
    #[getter]
    fn max_level(&self) -> usize {
        self.inner.max_level()
    }

    /// The chain primes q_0..q_L.
    #[getter]
    fn q_primes(&self) -> Vec<u64> {
        self.inner.q_primes()
    }

    /// The special primes p_0..p_{k-1}.
    #[getter]
    fn p_primes(&self) -> Vec<u64> {
        self.inner.p_primes()
    }

    /// log2 of the whole modulus QP.
    #[getter]
    fn log_qp(&self) -> f64 {
        self.inner.log_qp()
    }

    /// The number of key-switching digits.
    #[getter]
    fn dnum(&self) -> usize {
        self.inner.dnum()
    }

    /// The chain primes in each key-switching digit, from ``q_0`` up (``"bits"`` when the
    /// digits are grouped by bits, else ``"uniform"``: see ``digits``).
    #[getter]
    fn digit_primes(&self) -> Vec<usize> {
        let d = self.inner.digits();
        (0..d.dnum())
            .map(|j| d.range(j, d.chain_len()).len())
            .collect()
    }

    /// ``"bits"`` if the key-switching digits are grouped by bits, else ``"uniform"``.
    #[getter]
    fn digits(&self) -> &'static str {
        if self.inner.digits().is_by_bits() {
            "bits"
        } else {
            "uniform"
        }
    }

    /// The security level checked at construction (None: not checked).
    #[getter]
    fn security(&self) -> Option<u32> {
        self.security
    }

    /// The key-switching method, by name.
    #[getter]
    fn key_switching(&self) -> String {
        self.inner.key_switch_method().name()
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

    /// A fresh secret key (ternary, from the OS-seeded CSPRNG).
    fn secret_key(slf: &Bound<'_, Self>) -> PyResult<PySecretKey> {
        let inner = slf.get().inner.clone();
        let sk = heavy(slf.py(), move || Ok(inner.generate_secret_key()))?;
        Ok(PySecretKey {
            ctx: slf.clone().unbind(),
            inner: Arc::new(sk),
        })
    }

    /// Encodes ``values`` (at most ``slots`` real or complex numbers) at ``level`` (default:
    /// the top), ``scale`` (default Δ; a float, or a ciphertext or plaintext whose exact
    /// scale to use) and ``slots`` (a power of two, default N/2).
    #[pyo3(signature = (values, level=None, scale=None, slots=None))]
    fn encode(
        slf: &Bound<'_, Self>,
        values: &Bound<'_, PyAny>,
        level: Option<usize>,
        scale: Option<&Bound<'_, PyAny>>,
        slots: Option<usize>,
    ) -> PyResult<PyPlaintext> {
        let (pt, real) = Self::encode_with(
            slf,
            "encode",
            values,
            level,
            scale,
            slots,
            |c, v, s, l, d| c.encode_at(v, s, l, d),
        )?;
        Ok(PyPlaintext::of(slf, pt, real))
    }

    /// ``encode`` over ``Q_l ∪ P`` (the chain's first ``l + 1`` primes and every special
    /// prime): a diagonal for ``CkksEvaluator.bsgs_extended`` (seed 003 Alg. 6, products
    /// before the ModDown), or ``None`` where key switches at ``level`` do not run the
    /// hybrid engine. Only ``bsgs_extended`` reads such a plaintext.
    #[pyo3(signature = (values, level=None, scale=None, slots=None))]
    fn encode_extended(
        slf: &Bound<'_, Self>,
        values: &Bound<'_, PyAny>,
        level: Option<usize>,
        scale: Option<&Bound<'_, PyAny>>,
        slots: Option<usize>,
    ) -> PyResult<Option<PyPlaintext>> {
        let (pt, real) = Self::encode_with(
            slf,
            "encode_extended",
            values,
            level,
            scale,
            slots,
            |c, v, s, l, d| c.encode_extended_at(v, s, l, d),
        )?;
        Ok(pt.map(|pt| PyPlaintext::of(slf, pt, real)))
    }

    /// The slot values of a plaintext (``float64`` for a real one, else ``complex128``).
    #[pyo3(signature = (pt, dtype=None))]
    fn decode<'py>(
        &self,
        py: Python<'py>,
        pt: &PyPlaintext,
        dtype: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (ctx, p) = (self.inner.clone(), pt.inner.clone());
        let v = heavy(py, move || ctx.decode(&p))?;
        Ok(slots_out(py, v, real_dtype(dtype, pt.real)?))
    }
}

/// Whether output should be real, from a ``dtype`` argument and the object's flag.
pub(crate) fn real_dtype(dtype: Option<&str>, real: bool) -> PyResult<bool> {
    match dtype {
        None => Ok(real),
        Some("float64") | Some("float") => Ok(true),
        Some("complex128") | Some("complex") => Ok(false),
        Some(d) => Err(PyValueError::new_err(format!(
            "dtype must be 'float64' or 'complex128', got {d:?}"
        ))),
    }
}

/// A scale argument: a float (exact binary value), or the exact scale of a ciphertext or
/// plaintext.
pub(crate) fn scale_of(obj: &Bound<'_, PyAny>) -> PyResult<Scale> {
    if let Ok(ct) = obj.cast::<PyCiphertext>() {
        return Ok(ct.get().inner.scale().clone());
    }
    if let Ok(pt) = obj.cast::<PyPlaintext>() {
        return Ok(pt.get().inner.scale().clone());
    }
    let x: f64 = obj.extract().map_err(|_| {
        PyTypeError::new_err("a scale is a float, or a Ciphertext or Plaintext to copy it from")
    })?;
    Scale::from_f64(x)
        .ok_or_else(|| PyValueError::new_err(format!("a scale must be finite and > 0, got {x}")))
}

/// Encodes one vector of slot values (GIL released).
impl PyContext {
    /// The argument handling shared by ``encode`` and ``encode_extended`` (`what`): one
    /// row of slot values, the scale (default Δ), level (default the top) and slot count
    /// (default N/2), and `encode` run on them off the GIL; with whether the values were
    /// real.
    #[allow(clippy::too_many_arguments)]
    fn encode_with<T: Send>(
        slf: &Bound<'_, Self>,
        what: &str,
        values: &Bound<'_, PyAny>,
        level: Option<usize>,
        scale: Option<&Bound<'_, PyAny>>,
        slots: Option<usize>,
        encode: impl FnOnce(&CkksContext, &[Complex64], usize, usize, &Scale) -> hekate::Result<T>
            + Send,
    ) -> PyResult<(T, bool)> {
        let me = slf.get();
        let v = slot_values(values)?;
        if v.batched {
            return Err(PyValueError::new_err(format!(
                "{what} takes a 1-D array of slot values"
            )));
        }
        let scale = match scale {
            Some(s) => scale_of(s)?,
            None => me.inner.default_scale().clone(),
        };
        let inner = me.inner.clone();
        let level = level.unwrap_or(inner.max_level());
        let slots = slots.unwrap_or(inner.max_slots());
        let values = v.rows[0].clone();
        let out = heavy(slf.py(), move || {
            encode(&inner, &values, slots, level, &scale)
        })?;
        Ok((out, v.real))
    }
}

pub(crate) fn encode_at(
    py: Python<'_>,
    ctx: &PyContext,
    values: Vec<Complex64>,
    level: Option<usize>,
    scale: &Scale,
    slots: Option<usize>,
) -> PyResult<Plaintext> {
    let inner = ctx.inner.clone();
    let level = level.unwrap_or(inner.max_level());
    let slots = slots.unwrap_or(inner.max_slots());
    let scale = scale.clone();
    heavy(py, move || inner.encode_at(&values, slots, level, &scale))
}

/// A CKKS secret key. Never pickled (``to_bytes()`` is the explicit path); zeroized when
/// freed. ``repr`` shows only the parameters' fingerprint.
#[pyclass(frozen, module = "hekate._native", name = "CkksSecretKey")]
pub(crate) struct PySecretKey {
    ctx: Py<PyContext>,
    inner: Arc<SecretKey>,
}

impl PySecretKey {
    /// A secret key of `ctx` (e.g. the RLWE key of an MLWE one, `hekate.mlwe.RlweBridge`).
    pub(crate) fn new(ctx: Py<PyContext>, inner: Arc<SecretKey>) -> Self {
        PySecretKey { ctx, inner }
    }
}

#[pymethods]
impl PySecretKey {
    /// The context.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyContext> {
        self.ctx.clone_ref(py)
    }

    /// The public key of this secret key.
    fn public_key(&self, py: Python<'_>) -> PyResult<PyPublicKey> {
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let pk = heavy(py, move || Ok(ctx.generate_public_key(&sk)))?;
        Ok(PyPublicKey {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(pk),
        })
    }

    /// The evaluation keys of this secret key: the relinearization key (if ``relin``) and
    /// the Galois keys of rotations by each of ``rotations`` (left for positive steps) and
    /// of conjugation (if ``conjugate``). Public: give them to whoever evaluates.
    /// ``progress``: ``True`` draws a bar on stderr, a callable receives ``(done, total)``
    /// (keys made, keys in all).
    #[pyo3(
        signature = (rotations=Vec::new(), conjugate=false, relin=true, progress=None),
        text_signature = "($self, rotations=(), conjugate=False, relin=True, progress=None)"
    )]
    fn evaluation_keys(
        &self,
        py: Python<'_>,
        rotations: Vec<i64>,
        conjugate: bool,
        relin: bool,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyEvaluationKeys> {
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let cb = Callback::from_arg(py, progress, "evaluation keys")?;
        let set = heavy(py, || {
            let none = hekate::progress::NoProgress;
            let p: &dyn Progress = match &cb {
                Some(c) => c,
                None => &none,
            };
            let mut distinct = rotations.clone();
            distinct.sort_unstable();
            distinct.dedup();
            p.start(distinct.len() as u64 + u64::from(conjugate) + u64::from(relin));
            let rk = relin.then(|| ctx.generate_relinearization_key(&sk));
            if relin {
                p.inc(1);
            }
            let gk = ctx.generate_galois_keys_with_progress(
                &sk,
                &rotations,
                conjugate,
                &mut hekate::math::sample::os_rng(),
                &Units(p),
            );
            p.finish();
            Ok(EvaluationKeySet::new(rk, gk))
        })?;
        if let Some(c) = &cb {
            c.take_error()?;
        }
        Ok(PyEvaluationKeys {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(set),
        })
    }

    /// The bootstrapping keys of this secret key for ``params`` (a
    /// ``BootstrapParameters`` whose context this key belongs to). Public. ``progress``:
    /// ``True`` draws a bar, a callable receives ``(done, total)``.
    #[pyo3(signature = (params, progress=None))]
    fn bootstrap_keys(
        &self,
        py: Python<'_>,
        params: PyRef<'_, boot::PyBootstrapParameters>,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<boot::PyBootstrapKeys> {
        let cb = Callback::from_arg(py, progress, "bootstrapping keys")?;
        params.generate_keys(py, self.inner.clone(), cb.as_ref())
    }

    /// Encrypts ``values`` under this secret key (seed-compressed: half the bytes of a
    /// public-key encryption). A 1-D input gives a ciphertext, a 2-D one a list (one per
    /// row, encrypted in parallel).
    #[pyo3(signature = (values, level=None, slots=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
        level: Option<usize>,
        slots: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let sk = self.inner.clone();
        encrypt_rows(py, &self.ctx, values, level, slots, move |ctx, pt| {
            ctx.encrypt_symmetric(pt, &sk)
        })
    }

    /// Decrypts and decodes a ciphertext (a 1-D array of its slots) or a list of them (a
    /// 2-D array, decrypted in parallel). ``float64`` when the ciphertext's inputs were all
    /// real, else ``complex128``; ``dtype`` overrides.
    #[pyo3(signature = (ct, dtype=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        ct: &Bound<'py, PyAny>,
        dtype: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ctx = self.ctx.get().inner.clone();
        let sk = self.inner.clone();
        if let Ok(c) = ct.cast::<PyCiphertext>() {
            let c = c.get();
            let inner = c.inner.clone();
            let v = heavy(py, move || ctx.decrypt_decode(&inner, &sk))?;
            return Ok(slots_out(py, v, real_dtype(dtype, c.real)?));
        }
        let list: Vec<Bound<'py, PyCiphertext>> = ct.extract().map_err(|_| {
            PyTypeError::new_err("decrypt takes a Ciphertext or a list of Ciphertexts")
        })?;
        let real = list.iter().all(|c| c.get().real);
        let cts: Vec<Arc<Ciphertext>> = list.iter().map(|c| c.get().inner.clone()).collect();
        let rows = heavy(py, move || {
            cts.par_iter()
                .map(|c| ctx.decrypt_decode(c, &sk))
                .collect::<hekate::Result<Vec<_>>>()
        })?;
        rows_out(py, rows, real_dtype(dtype, real)?)
    }

    /// The secret key as hekate bytes. Keep them secret: whoever holds them decrypts
    /// everything encrypted under this key.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        crate::bytes::write(py, &self.inner, self.ctx.get().inner.ring())
    }

    /// The secret key of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyContext>,
    ) -> PyResult<PySecretKey> {
        let sk = crate::bytes::read::<SecretKey>(py, data, ctx.get().inner.ring())?;
        Ok(PySecretKey { ctx, inner: sk })
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "hekate does not pickle secret keys: use sk.to_bytes() and store it yourself",
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.ckks.SecretKey of parameters {:#018x}>",
            self.inner.ring_id()
        )
    }
}

/// Encrypts a 1-D input (one ciphertext) or each row of a 2-D input (a list), in parallel.
fn encrypt_rows<'py, F>(
    py: Python<'py>,
    ctx: &Py<PyContext>,
    values: &Bound<'py, PyAny>,
    level: Option<usize>,
    slots: Option<usize>,
    encrypt: F,
) -> PyResult<Bound<'py, PyAny>>
where
    F: Fn(&CkksContext, &Plaintext) -> hekate::Result<Ciphertext> + Send + Sync,
{
    let v = slot_values(values)?;
    let inner = ctx.get().inner.clone();
    let level = level.unwrap_or(inner.max_level());
    let slots = slots.unwrap_or(inner.max_slots());
    let rows = v.rows;
    let cts = heavy(py, move || {
        let scale = inner.default_scale().clone();
        rows.par_iter()
            .map(|r| encrypt(&inner, &inner.encode_at(r, slots, level, &scale)?))
            .collect::<hekate::Result<Vec<_>>>()
    })?;
    let mut out = cts
        .into_iter()
        .map(|c| PyCiphertext::new(ctx.clone_ref(py), c, v.real, None));
    if v.batched {
        let items = out.map(|c| Py::new(py, c)).collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any())
    } else {
        let c = out.next().expect("one row");
        Ok(Bound::new(py, c)?.into_any())
    }
}

/// A CKKS public key: anyone can encrypt with it.
#[pyclass(frozen, module = "hekate._native", name = "CkksPublicKey")]
pub(crate) struct PyPublicKey {
    ctx: Py<PyContext>,
    inner: Arc<PublicKey>,
}

#[pymethods]
impl PyPublicKey {
    /// The context.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyContext> {
        self.ctx.clone_ref(py)
    }

    /// Encrypts ``values`` (1-D: a ciphertext; 2-D: a list, one per row, in parallel).
    #[pyo3(signature = (values, level=None, slots=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
        level: Option<usize>,
        slots: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let pk = self.inner.clone();
        encrypt_rows(py, &self.ctx, values, level, slots, move |ctx, pt| {
            ctx.encrypt(pt, &pk)
        })
    }

    /// The public key as hekate bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        crate::bytes::write(py, &self.inner, self.ctx.get().inner.ring())
    }

    /// The public key of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyContext>,
    ) -> PyResult<PyPublicKey> {
        let pk = crate::bytes::read::<PublicKey>(py, data, ctx.get().inner.ring())?;
        Ok(PyPublicKey { ctx, inner: pk })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyPublicKey,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py)
        )
    }

    fn __repr__(&self) -> String {
        "<hekate.ckks.PublicKey>".into()
    }
}

/// Evaluation keys: the relinearization key and Galois keys. Public (no secret in them).
#[pyclass(frozen, module = "hekate._native", name = "CkksEvaluationKeys")]
pub(crate) struct PyEvaluationKeys {
    pub(crate) ctx: Py<PyContext>,
    pub(crate) inner: Arc<EvaluationKeySet>,
}

/// Magic of the evaluation-key container (a relinearization key and Galois keys, each in
/// hekate's format, each with a u64 little-endian length; an absent relinearization key has
/// length 0).
const EVK_MAGIC: &[u8; 8] = b"HKPYEVK1";

#[pymethods]
impl PyEvaluationKeys {
    /// The context.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyContext> {
        self.ctx.clone_ref(py)
    }

    /// Whether the relinearization key is present.
    #[getter]
    fn relin(&self) -> bool {
        self.inner.relinearization_key().is_some()
    }

    /// The Galois elements keys are held for (5^k mod 2N for a rotation by k; 2N - 1 for
    /// conjugation).
    #[getter]
    fn galois_elements(&self) -> Vec<usize> {
        self.inner.galois_keys().elements()
    }

    /// Bytes the keys hold in memory.
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.size_bytes()
    }

    /// The keys as bytes: a container of the relinearization key and the Galois keys, each
    /// in hekate's validated format.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let (ctx, set) = (self.ctx.get().inner.clone(), self.inner.clone());
        let b = heavy(py, move || {
            let rk = match set.relinearization_key() {
                Some(k) => k.to_bytes(&ctx)?,
                None => Vec::new(),
            };
            let gk = set.galois_keys().to_bytes(&ctx)?;
            let mut out = EVK_MAGIC.to_vec();
            for part in [&rk, &gk] {
                out.extend_from_slice(&(part.len() as u64).to_le_bytes());
                out.extend_from_slice(part);
            }
            Ok(out)
        })?;
        Ok(PyBytes::new(py, &b))
    }

    /// The keys of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyContext>,
    ) -> PyResult<PyEvaluationKeys> {
        crate::KEY_LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (bytes, c) = (crate::bytes::bytes_of(data)?, ctx.get().inner.clone());
        let set = heavy(py, move || {
            let bad = |m: &str| hekate::Error::Deserialize(format!("evaluation keys: {m}"));
            let rest = bytes
                .strip_prefix(EVK_MAGIC.as_slice())
                .ok_or_else(|| bad("not a hekate evaluation-key container"))?;
            let (rk, rest) = split_part(rest).ok_or_else(|| bad("truncated"))?;
            let (gk, rest) = split_part(rest).ok_or_else(|| bad("truncated"))?;
            if !rest.is_empty() {
                return Err(bad("trailing bytes"));
            }
            let rk = if rk.is_empty() {
                None
            } else {
                Some(RelinearizationKey::from_bytes(rk, &c)?)
            };
            Ok(EvaluationKeySet::new(rk, GaloisKeys::from_bytes(gk, &c)?))
        })?;
        Ok(PyEvaluationKeys {
            ctx,
            inner: Arc::new(set),
        })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyEvaluationKeys,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py)
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.ckks.EvaluationKeys relin={} galois={} {:.1} MiB>",
            if self.relin() { "True" } else { "False" },
            self.inner.galois_keys().len(),
            self.nbytes() as f64 / (1 << 20) as f64
        )
    }
}

/// A length-prefixed part of a container, and the rest.
fn split_part(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u64::from_le_bytes(b.get(..8)?.try_into().ok()?);
    let len = usize::try_from(len).ok()?;
    let rest = &b[8..];
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// A CKKS plaintext (encoded slot values).
#[pyclass(frozen, module = "hekate._native", name = "CkksPlaintext")]
pub(crate) struct PyPlaintext {
    pub(crate) ctx: Py<PyContext>,
    pub(crate) inner: Arc<Plaintext>,
    pub(crate) real: bool,
}

impl PyPlaintext {
    /// A plaintext of the context `ctx`.
    fn of(ctx: &Bound<'_, PyContext>, pt: Plaintext, real: bool) -> Self {
        PyPlaintext {
            ctx: ctx.clone().unbind(),
            inner: Arc::new(pt),
            real,
        }
    }
}

#[pymethods]
impl PyPlaintext {
    /// The level.
    #[getter]
    fn level(&self) -> usize {
        self.inner.level()
    }

    /// The scale, as a float.
    #[getter]
    fn scale(&self) -> f64 {
        self.inner.scale().to_f64()
    }

    /// The number of slots.
    #[getter]
    fn slots(&self) -> usize {
        self.inner.slots()
    }

    /// The slot values (see ``Context.decode``).
    #[pyo3(signature = (dtype=None))]
    fn decode<'py>(&self, py: Python<'py>, dtype: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
        let (ctx, p) = (self.ctx.get().inner.clone(), self.inner.clone());
        let v = heavy(py, move || ctx.decode(&p))?;
        Ok(slots_out(py, v, real_dtype(dtype, self.real)?))
    }

    /// The plaintext as hekate bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        crate::bytes::write(py, &self.inner, &self.ctx.get().inner)
    }

    /// The plaintext of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    #[pyo3(signature = (data, ctx, real=false))]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyContext>,
        real: bool,
    ) -> PyResult<PyPlaintext> {
        let p = crate::bytes::read::<Plaintext>(py, data, &ctx.get().inner)?;
        Ok(PyPlaintext {
            ctx,
            inner: p,
            real,
        })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyPlaintext,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py),
            self.real
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.ckks.Plaintext level={} scale=2^{:.2} slots={}>",
            self.inner.level(),
            self.inner.scale().log2(),
            self.inner.slots()
        )
    }
}

pub(crate) use evaluator::PyCiphertext;
