//! CKKS bootstrapping (`hekate.ckks.BootstrapParameters`, `BootstrapKeys`,
//! `Bootstrapper`; seed 003): a named preset gives the context and the configuration, the
//! secret key gives the (public) bootstrapping keys, and the bootstrapper refreshes a
//! ciphertext's levels.

use super::{PyCiphertext, PyContext, PyEvaluationKeys, PyEvaluator};
use crate::bytes::bytes_of;
use crate::container::{read_container, write_container};
use crate::{heavy, IntoPy};
use hekate::ckks::bootstrap::{
    preset, BootstrapConfig, BootstrapKeys, BootstrapPreset, Bootstrapper, EncapsulationKeys,
    PRESETS,
};
use hekate::ckks::{Evaluator, GaloisKeys, RelinearizationKey};
use hekate::params::SecurityLevel;
use hekate::rlwe::keyswitch::KeySwitchMethod;
use hekate::rlwe::EvaluationKeySet;
use hekate::serialize::{Deserialize, Serialize};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

/// Bootstrapping parameters from a named preset (``BootstrapParameters.presets()``: seed
/// 003's Sets I-V, Lattigo's default dense set, and the toy ``quick-*`` sets): the CKKS
/// context (``.context``) and the bootstrapping configuration. ``key_switching`` is the
/// context's engine, as ``CkksContext`` takes it (``hybrid``, the presets' own;
/// ``klss:R``, ``linear``, ``linear-heuristic``, ``auto``): every key switch of the
/// bootstrap runs on it, over the preset's chain, ``P`` and ``dnum``.
#[pyclass(frozen, module = "hekate._native", name = "BootstrapParameters")]
pub(crate) struct PyBootstrapParameters {
    preset: BootstrapPreset,
    /// The engine as asked (``key_switching``), for pickling.
    key_switching: String,
    config: BootstrapConfig,
    ctx: Py<PyContext>,
}

#[pymethods]
impl PyBootstrapParameters {
    #[new]
    #[pyo3(signature = (name, key_switching="hybrid"), text_signature = "(name, key_switching='hybrid')")]
    fn new(py: Python<'_>, name: &str, key_switching: &str) -> PyResult<Self> {
        let p = preset(name).py_err()?;
        let method = KeySwitchMethod::parse(key_switching).py_err()?;
        let (inner, config) = heavy(py, move || p.build_with(method))?;
        let security = match p.security_level() {
            SecurityLevel::Bits128 => Some(128),
            _ => None,
        };
        let ctx = Py::new(py, PyContext::wrap(inner, security, true))?;
        Ok(PyBootstrapParameters {
            preset: p,
            key_switching: key_switching.to_string(),
            config,
            ctx,
        })
    }

    /// The preset names.
    #[staticmethod]
    fn presets() -> Vec<&'static str> {
        PRESETS.iter().map(|p| p.name).collect()
    }

    /// The preset's name.
    #[getter]
    fn name(&self) -> &'static str {
        self.preset.name
    }

    /// The CKKS context to encrypt under.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<PyContext> {
        self.ctx.clone_ref(py)
    }

    /// The number of slots bootstrapped.
    #[getter]
    fn slots(&self) -> usize {
        self.config.slots
    }

    /// The failure probability of one bootstrap, as log2 (seed 003 Eq. (1)).
    #[getter]
    fn failure_log2(&self) -> PyResult<f64> {
        self.config.failure_log2(&self.ctx.get().inner).py_err()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (
            py.get_type::<PyBootstrapParameters>(),
            (self.preset.name, self.key_switching.as_str()),
        )
            .into_pyobject(py)
            .map(Bound::into_any)
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.ckks.BootstrapParameters {}: {}>",
            self.preset.name, self.preset.description
        )
    }
}

impl PyBootstrapParameters {
    /// The keys of `sk` for these parameters (GIL released; `progress(done, total)`).
    pub(crate) fn generate_keys(
        &self,
        py: Python<'_>,
        sk: Arc<hekate::rlwe::SecretKey>,
        cb: Option<&crate::progress::Callback>,
    ) -> PyResult<PyBootstrapKeys> {
        let (ctx, config) = (self.ctx.get().inner.clone(), self.config.clone());
        let keys = heavy(py, || {
            hekate::ckks::bootstrap::generate_keys_with(
                &ctx,
                &config,
                &sk,
                &mut hekate::math::sample::os_rng(),
                |done, total| {
                    if let Some(c) = cb {
                        c.set(done as u64, total as u64);
                    }
                },
            )
        })?;
        if let Some(c) = cb {
            c.take_error()?;
        }
        Ok(PyBootstrapKeys {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(keys),
        })
    }
}

/// The public keys of a bootstrapper (evaluation keys, and the encapsulation keys of a
/// sparse-secret preset).
#[pyclass(frozen, module = "hekate._native", name = "BootstrapKeys")]
pub(crate) struct PyBootstrapKeys {
    ctx: Py<PyContext>,
    inner: Arc<BootstrapKeys>,
}

/// Magic of the bootstrapping-key container ([`crate::container`]: relinearization key,
/// Galois keys, encapsulation keys or empty).
const BOOT_MAGIC: &[u8; 8] = b"HKPYBTK1";

#[pymethods]
impl PyBootstrapKeys {
    /// Bytes in memory.
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.size_bytes()
    }

    /// The keys as bytes (a container of hekate objects).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let (ctx, k) = (self.ctx.get().inner.clone(), self.inner.clone());
        let b = heavy(py, move || {
            let rk = match k.evaluation.relinearization_key() {
                Some(r) => r.to_bytes(&ctx)?,
                None => Vec::new(),
            };
            let gk = k.evaluation.galois_keys().to_bytes(&ctx)?;
            let ek = match &k.encapsulation {
                Some(e) => e.to_bytes(&ctx)?,
                None => Vec::new(),
            };
            Ok(write_container(BOOT_MAGIC, &[rk, gk, ek]))
        })?;
        Ok(PyBytes::new(py, &b))
    }

    /// The keys of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>, ctx: Py<PyContext>) -> PyResult<Self> {
        crate::KEY_LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (bytes, c) = (bytes_of(data)?, ctx.get().inner.clone());
        let keys = heavy(py, move || {
            let parts =
                read_container(&bytes, BOOT_MAGIC, "bootstrapping keys", |b| Ok(b.to_vec()))?;
            let [rk, gk, ek] = <[Vec<u8>; 3]>::try_from(parts).map_err(|_| {
                hekate::Error::Deserialize("bootstrapping keys: expected three parts".into())
            })?;
            let rk = (!rk.is_empty())
                .then(|| RelinearizationKey::from_bytes(&rk, &c))
                .transpose()?;
            let encapsulation = (!ek.is_empty())
                .then(|| EncapsulationKeys::from_bytes(&ek, &c))
                .transpose()?;
            Ok(BootstrapKeys {
                evaluation: Arc::new(EvaluationKeySet::new(rk, GaloisKeys::from_bytes(&gk, &c)?)),
                encapsulation,
            })
        })?;
        Ok(PyBootstrapKeys {
            ctx,
            inner: Arc::new(keys),
        })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyBootstrapKeys,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py)
        )
    }
}

/// Refreshes ciphertexts' levels: ``Bootstrapper(params, keys)``; ``bootstrap(ct)`` takes
/// a ciphertext at level 1 or above and returns it at ``output_level``.
/// ``evaluator`` is a ``CkksEvaluator`` over the same keys, for the application.
#[pyclass(frozen, module = "hekate._native", name = "Bootstrapper")]
pub(crate) struct PyBootstrapper {
    ctx: Py<PyContext>,
    inner: Arc<Bootstrapper>,
    ev: Py<PyEvaluator>,
}

#[pymethods]
impl PyBootstrapper {
    #[new]
    fn new(
        py: Python<'_>,
        params: PyRef<'_, PyBootstrapParameters>,
        keys: PyRef<'_, PyBootstrapKeys>,
    ) -> PyResult<Self> {
        let (ctx, config, k) = (
            params.ctx.get().inner.clone(),
            params.config.clone(),
            (*keys.inner).clone(),
        );
        let inner = Arc::new(heavy(py, move || Bootstrapper::new(ctx, config, k))?);
        let evk = Py::new(
            py,
            PyEvaluationKeys {
                ctx: params.ctx.clone_ref(py),
                inner: inner.evaluator().keys().clone(),
            },
        )?;
        let ev = Py::new(
            py,
            PyEvaluator::from_parts(
                params.ctx.clone_ref(py),
                evk,
                Arc::new(Evaluator::with_key_set(
                    params.ctx.get().inner.clone(),
                    inner.evaluator().keys().clone(),
                )),
            ),
        )?;
        Ok(PyBootstrapper {
            ctx: params.ctx.clone_ref(py),
            inner,
            ev,
        })
    }

    /// The level of bootstrapped ciphertexts (the levels left to the application).
    #[getter]
    fn output_level(&self) -> usize {
        self.inner.output_level()
    }

    /// An evaluator over the bootstrapping keys (relinearization included).
    #[getter]
    fn evaluator(&self, py: Python<'_>) -> Py<PyEvaluator> {
        self.ev.clone_ref(py)
    }

    /// ``ct`` refreshed to ``output_level`` (same values, up to the bootstrap's precision).
    fn bootstrap(&self, py: Python<'_>, ct: PyRef<'_, PyCiphertext>) -> PyResult<PyCiphertext> {
        let (b, x) = (self.inner.clone(), ct.inner.clone());
        let r = heavy(py, move || b.bootstrap(&x))?;
        Ok(PyCiphertext::new(
            self.ctx.clone_ref(py),
            r,
            ct.real,
            Some(self.ev.clone_ref(py)),
        ))
    }
}
