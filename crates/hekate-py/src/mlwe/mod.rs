//! MLWE-CKKS: contexts, keys, ciphertexts, the evaluator and the RLWE bridge
//! (`hekate.mlwe`).
//!
//! The shapes follow the CKKS bindings ([`crate::ckks`]): immutable objects over `Arc`s,
//! the GIL released around every computation ([`heavy`]), pickling through hekate's
//! validated byte format (the context as its parameter bytes, cached per process by
//! content, weakly; every other object as its bytes and its context), secret keys refusing to
//! pickle (`to_bytes()` is their explicit path), and ciphertext operators that find their
//! keys in the evaluator a ciphertext is bound to or in the innermost `with ev:` block.
//! `ct * ct` relinearizes (the evaluator's key for the operands' rank) and, with the
//! context's `auto_rescale` (the default), rescales, as the CKKS operators do.

use crate::ckks::{real_dtype, security_of};
use crate::context_cache::ContextCache;
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
use std::sync::Arc;

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

/// This process's MLWE contexts, held weakly ([`ContextCache`]).
static CONTEXTS: ContextCache = ContextCache::new();

/// The live MLWE contexts in [`CONTEXTS`].
pub(crate) fn cached_contexts(py: Python<'_>) -> usize {
    CONTEXTS.live(py)
}

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
#[pyclass(frozen, weakref, module = "hekate._native", name = "MlweContext")]
pub(crate) struct PyMlweContext {
    pub(super) inner: Arc<MlweContext>,
    pub(super) params_bytes: Vec<u8>,
    pub(super) security: Option<u32>,
    pub(super) auto_rescale: bool,
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
        if let Some(c) = CONTEXTS.get::<PyMlweContext>(py, &key)? {
            return Ok(c);
        }
        let policy = ReadPolicy::default().min_security(security_of(security)?);
        let bytes = key.0.clone();
        let inner = heavy(py, move || {
            hekate::serialize::mlwe_context_from_bytes_with(&bytes, &policy)
        })?;
        let ctx = Py::new(py, PyMlweContext::wrap(inner, security, auto_rescale))?;
        CONTEXTS.insert(py, key, &ctx)?;
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

mod bridge;
mod ciphertext;
mod evaluator;
mod keys;

pub(crate) use bridge::PyRlweBridge;
pub(crate) use ciphertext::PyMlweCiphertext;
pub(crate) use evaluator::PyMlweEvaluator;
pub(crate) use keys::{
    PyMlweHoistedRotationKeys, PyMlwePublicKey, PyMlweRankReductionKey, PyMlweRelinearizationKey,
    PyMlweRotationKey, PyMlweSecretKey,
};
