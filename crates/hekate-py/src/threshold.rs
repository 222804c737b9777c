//! Threshold FHEW (`hekate.fhew.threshold`, seed 002 §6): k parties generate the joint
//! keys from their shares, anyone encrypts under the joint public key, gates run with the
//! combined bootstrapping key, and decryption needs every party's partial decryption.
//!
//! The protocol's messages (public-key shares, evaluation-key shares, the joint public key,
//! partial decryptions) pickle through hekate's byte format, so they can travel between
//! processes; secret shares never pickle.

use crate::bytes::bytes_of;
use crate::ckks::security_of;
use crate::container::{read_container, write_container};
use crate::fhew::{PyBootstrapKey, PyFhewContext, PyLweArray};
use crate::values::vector;
use crate::{heavy, IntoPy};
use hekate::fhew::threshold::{
    combine_bit, combine_bootstrap_key, CommonRandomString, EvalKeyShare, PartialDecryption,
    PublicKeyShare, SecretShare, ThresholdContext, ThresholdParams, ThresholdPublicKey,
    THRESHOLD_STD128, THRESHOLD_TOY,
};
use hekate::fhew::{Method, MethodConfig};
use hekate::serialize::{Deserialize, Serialize};
use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use std::sync::Arc;

/// Registers the threshold classes.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyThresholdContext>()?;
    m.add_class::<PyCrs>()?;
    m.add_class::<PySecretShare>()?;
    m.add_class::<PyPublicKeyShare>()?;
    m.add_class::<PyThresholdPublicKey>()?;
    m.add_class::<PyEvalKeyShare>()?;
    m.add_class::<PyPartialDecryptions>()?;
    Ok(())
}

fn params_by_name(name: &str) -> PyResult<&'static ThresholdParams> {
    [&THRESHOLD_STD128, &THRESHOLD_TOY]
        .into_iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "no threshold parameter set named {name:?}: use THRESHOLD_STD128 or \
                 THRESHOLD_TOY (insecure, tests)"
            ))
        })
}

/// Threshold FHEW parameters for ``parties`` parties (2 to 16, all needed to decrypt).
///
/// ``ThresholdContext(params="THRESHOLD_STD128", parties=3, security=128)``;
/// ``"THRESHOLD_TOY"`` (insecure) needs ``security=None``.
#[pyclass(frozen, module = "hekate._native", name = "ThresholdContext")]
pub(crate) struct PyThresholdContext {
    inner: Arc<ThresholdContext>,
    fhew: Py<PyFhewContext>,
    security: Option<u32>,
}

#[pymethods]
impl PyThresholdContext {
    #[new]
    #[pyo3(
        signature = (params="THRESHOLD_STD128", parties=3, security=Some(128)),
        text_signature = "(params='THRESHOLD_STD128', parties=3, security=128)"
    )]
    fn new(py: Python<'_>, params: &str, parties: usize, security: Option<u32>) -> PyResult<Self> {
        let p = params_by_name(params)?;
        let level = security_of(security)?;
        let inner = Arc::new(heavy(py, move || {
            ThresholdContext::with_security(p, parties, level)
        })?);
        let fhew = Py::new(py, PyFhewContext::wrap(inner.fhew().clone(), security)?)?;
        Ok(PyThresholdContext {
            inner,
            fhew,
            security,
        })
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (
            py.get_type::<PyThresholdContext>(),
            (
                self.inner.params().name,
                self.inner.parties(),
                self.security,
            ),
        )
            .into_pyobject(py)
            .map(Bound::into_any)
    }

    /// The parameter set's name.
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.params().name
    }

    /// The number of parties k.
    #[getter]
    fn parties(&self) -> usize {
        self.inner.parties()
    }

    /// The FHEW context of the joint keys (for ``fhew.Evaluator`` and ``LweArray``).
    #[getter]
    fn fhew_context(&self, py: Python<'_>) -> Py<PyFhewContext> {
        self.fhew.clone_ref(py)
    }

    /// Party ``party``'s fresh secret share (0 <= party < k). Never pickled.
    fn secret_share(slf: &Bound<'_, Self>, party: usize) -> PyResult<PySecretShare> {
        let ctx = slf.get().inner.clone();
        let share = heavy(slf.py(), move || {
            SecretShare::generate(&ctx, party, &mut hekate::math::sample::os_rng())
        })?;
        Ok(PySecretShare {
            ctx: slf.clone().unbind(),
            inner: Arc::new(share),
        })
    }

    /// Combines every party's evaluation-key share into an ordinary bootstrapping key.
    fn combine_bootstrap_key(
        &self,
        py: Python<'_>,
        shares: Vec<PyRef<'_, PyEvalKeyShare>>,
    ) -> PyResult<PyBootstrapKey> {
        let owned: Vec<EvalKeyShare> = shares.iter().map(|s| (*s.inner).clone()).collect();
        let ctx = self.inner.clone();
        let key = heavy(py, move || combine_bootstrap_key(&ctx, &owned))?;
        Ok(PyBootstrapKey {
            ctx: self.fhew.clone_ref(py),
            inner: Arc::new(key),
        })
    }

    /// Threshold decryption of bits: every party's partial decryptions of ``cts``.
    fn combine_decrypt<'py>(
        &self,
        py: Python<'py>,
        cts: &PyLweArray,
        partials: Vec<PyRef<'py, PyPartialDecryptions>>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        if let Some(p) = partials.iter().find(|p| p.inner.len() != cts.cts.len()) {
            return Err(PyValueError::new_err(format!(
                "party {}'s partial decryptions cover {} ciphertexts, the array has {}",
                p.party(),
                p.inner.len(),
                cts.cts.len()
            )));
        }
        let per_party: Vec<Arc<Vec<PartialDecryption>>> =
            partials.iter().map(|p| p.inner.clone()).collect();
        let (ctx, c) = (self.inner.clone(), cts.cts.clone());
        let bits = heavy(py, move || {
            (0..c.len())
                .into_par_iter()
                .map(|i| {
                    let ps: Vec<PartialDecryption> = per_party.iter().map(|p| p[i]).collect();
                    combine_bit(&ctx, &c[i], &ps)
                })
                .collect::<hekate::Result<Vec<_>>>()
        })?;
        Ok(PyArray1::from_vec(py, bits))
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.fhew.threshold.ThresholdContext {} k={}>",
            self.inner.params().name,
            self.inner.parties()
        )
    }
}

/// The common random string: a public 32-byte seed every party uses.
#[pyclass(frozen, module = "hekate._native", name = "CommonRandomString")]
pub(crate) struct PyCrs {
    inner: CommonRandomString,
}

#[pymethods]
impl PyCrs {
    /// The string of ``seed`` (32 bytes), or a fresh random one.
    #[new]
    #[pyo3(signature = (seed=None))]
    fn new(seed: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let seed: [u8; 32] = match seed {
            Some(s) => bytes_of(s)?.try_into().map_err(|b: Vec<u8>| {
                PyValueError::new_err(format!("the seed is 32 bytes, got {}", b.len()))
            })?,
            None => {
                let mut s = [0u8; 32];
                hekate::rand_core::RngCore::fill_bytes(&mut hekate::math::sample::os_rng(), &mut s);
                s
            }
        };
        Ok(PyCrs {
            inner: CommonRandomString::new(seed),
        })
    }

    /// The seed.
    #[getter]
    fn seed<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.seed)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (py.get_type::<PyCrs>(), (self.seed(py),))
            .into_pyobject(py)
            .map(Bound::into_any)
    }
}

/// One party's secret share. Never pickled.
#[pyclass(frozen, module = "hekate._native", name = "SecretShare")]
pub(crate) struct PySecretShare {
    ctx: Py<PyThresholdContext>,
    inner: Arc<SecretShare>,
}

#[pymethods]
impl PySecretShare {
    /// The party's index.
    #[getter]
    fn party(&self) -> usize {
        self.inner.party()
    }

    /// The party's public-key share.
    fn public_key_share(&self, py: Python<'_>, crs: &PyCrs) -> PyResult<PyPublicKeyShare> {
        let (ctx, s, c) = (
            self.ctx.get().inner.clone(),
            self.inner.clone(),
            crs.inner.clone(),
        );
        let share = heavy(py, move || {
            s.public_key_share(&ctx, &c, &mut hekate::math::sample::os_rng())
        })?;
        Ok(PyPublicKeyShare {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(share),
        })
    }

    /// The party's evaluation-key share under the joint public key. ``method``: a
    /// blind-rotation method name (default: the LMKCDEY variant the parameters suit).
    #[pyo3(signature = (crs, pk, method=None))]
    fn eval_key_share(
        &self,
        py: Python<'_>,
        crs: &PyCrs,
        pk: &PyThresholdPublicKey,
        method: Option<&str>,
    ) -> PyResult<PyEvalKeyShare> {
        let ctx = self.ctx.get().inner.clone();
        let cfg = match method {
            Some(m) => MethodConfig::by_name(m).py_err()?,
            None => MethodConfig::new(Method::lmkcdey(&ctx.params().fhew)),
        };
        let (s, c, p) = (self.inner.clone(), crs.inner.clone(), pk.inner.clone());
        let share = heavy(py, move || {
            s.eval_key_share(&ctx, &c, &p, cfg, &mut hekate::math::sample::os_rng())
        })?;
        Ok(PyEvalKeyShare {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(share),
        })
    }

    /// The party's partial decryptions of ``cts`` (flooded: safe to send).
    fn partial_decrypt(&self, py: Python<'_>, cts: &PyLweArray) -> PyResult<PyPartialDecryptions> {
        let (ctx, s, c) = (
            self.ctx.get().inner.clone(),
            self.inner.clone(),
            cts.cts.clone(),
        );
        let parts = heavy(py, move || {
            c.par_iter()
                .map(|ct| s.partial_decrypt(&ctx, ct, &mut hekate::math::sample::os_rng()))
                .collect::<hekate::Result<Vec<_>>>()
        })?;
        Ok(PyPartialDecryptions {
            ctx: self.ctx.clone_ref(py),
            party: self.inner.party(),
            inner: Arc::new(parts),
        })
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "hekate does not pickle secret keys: a secret share stays with its party",
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.fhew.threshold.SecretShare of party {}>",
            self.inner.party()
        )
    }
}

/// Generates the byte and pickle methods of a protocol message type `$ty` wrapping `$inner`
/// (a hekate type serialized under the threshold context).
macro_rules! message {
    ($py_ty:ident, $inner:ty, $pyname:literal, $doc:literal, { $($extra:tt)* }) => {
        #[doc = $doc]
        #[pyclass(frozen, module = "hekate._native", name = $pyname)]
        pub(crate) struct $py_ty {
            ctx: Py<PyThresholdContext>,
            inner: Arc<$inner>,
        }

        #[pymethods]
        impl $py_ty {
            /// The message as hekate bytes.
            fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
                crate::bytes::write(py, &self.inner, &self.ctx.get().inner)
            }

            /// The message of bytes written by ``to_bytes``, under ``ctx``.
            #[staticmethod]
            fn from_bytes(
                py: Python<'_>,
                data: &Bound<'_, PyAny>,
                ctx: Py<PyThresholdContext>,
            ) -> PyResult<Self> {
                let m = crate::bytes::read::<$inner>(py, data, &ctx.get().inner)?;
                Ok($py_ty {
                    ctx,
                    inner: m,
                })
            }

            fn __reduce_ex__<'py>(
                &self,
                py: Python<'py>,
                protocol: u32,
            ) -> PyResult<Bound<'py, PyAny>> {
                crate::bytes::reduce!(py, $py_ty, self.to_bytes(py)?, protocol, self.ctx.clone_ref(py))
            }

            $($extra)*
        }
    };
}

message!(
    PyPublicKeyShare,
    PublicKeyShare,
    "PublicKeyShare",
    "A party's public-key share (round 1).",
    {
        /// The party's index.
        #[getter]
        fn party(&self) -> usize {
            self.inner.party
        }
    }
);
message!(
    PyEvalKeyShare,
    EvalKeyShare,
    "EvalKeyShare",
    "A party's evaluation-key share (round 2).",
    {
        /// The party's index.
        #[getter]
        fn party(&self) -> usize {
            self.inner.party
        }
    }
);
message!(
    PyThresholdPublicKey,
    ThresholdPublicKey,
    "ThresholdPublicKey",
    "The joint public key: the sum of every party's share.",
    {
        /// The joint public key of every party's share.
        #[staticmethod]
        fn combine(
            py: Python<'_>,
            ctx: Py<PyThresholdContext>,
            crs: &PyCrs,
            shares: Vec<PyRef<'_, PyPublicKeyShare>>,
        ) -> PyResult<Self> {
            let owned: Vec<PublicKeyShare> = shares.iter().map(|s| (*s.inner).clone()).collect();
            let (c, r) = (ctx.get().inner.clone(), crs.inner.clone());
            let pk = heavy(py, move || ThresholdPublicKey::combine(&c, &r, &owned))?;
            Ok(PyThresholdPublicKey {
                ctx,
                inner: Arc::new(pk),
            })
        }

        /// Encrypts bits under the joint public key (``key``: the combined bootstrapping key,
        /// whose key-switching key brings the encryption to the LWE secret).
        fn encrypt(
            &self,
            py: Python<'_>,
            bits: &Bound<'_, PyAny>,
            key: &PyBootstrapKey,
        ) -> PyResult<PyLweArray> {
            let bits: Vec<bool> = if let Ok(b) = bits.extract::<bool>() {
                vec![b]
            } else {
                vector::<bool>(bits, "bool", "bits")?
            };
            let (ctx, pk, k) = (
                self.ctx.get().inner.clone(),
                self.inner.clone(),
                key.inner.clone(),
            );
            let cts = heavy(py, move || {
                bits.par_iter()
                    .map(|&b| pk.encrypt_bit(&ctx, &k, b, &mut hekate::math::sample::os_rng()))
                    .collect::<hekate::Result<Vec<_>>>()
            })?;
            Ok(PyLweArray::new(
                self.ctx.get().fhew.clone_ref(py),
                cts,
                None,
            ))
        }
    }
);

/// One party's partial decryptions of an ``LweArray`` (one per ciphertext).
#[pyclass(frozen, module = "hekate._native", name = "PartialDecryptions")]
pub(crate) struct PyPartialDecryptions {
    ctx: Py<PyThresholdContext>,
    party: usize,
    inner: Arc<Vec<PartialDecryption>>,
}

/// Magic of the partial-decryption container ([`crate::container`]).
const PARTIALS_MAGIC: &[u8; 8] = b"HKPYPDC1";

#[pymethods]
impl PyPartialDecryptions {
    /// The party's index.
    #[getter]
    fn party(&self) -> usize {
        self.party
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The partial decryptions as bytes (a container of hekate objects).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let (ctx, ps) = (self.ctx.get().inner.clone(), self.inner.clone());
        let b = heavy(py, move || {
            let items = ps
                .iter()
                .map(|p| p.to_bytes(&ctx))
                .collect::<hekate::Result<Vec<_>>>()?;
            Ok(write_container(PARTIALS_MAGIC, &items))
        })?;
        Ok(PyBytes::new(py, &b))
    }

    /// The partial decryptions of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyThresholdContext>,
    ) -> PyResult<Self> {
        let (bytes, c) = (bytes_of(data)?, ctx.get().inner.clone());
        let ps = heavy(py, move || {
            read_container(&bytes, PARTIALS_MAGIC, "partial decryptions", |b| {
                PartialDecryption::from_bytes(b, &c)
            })
        })?;
        let party = ps.first().map_or(0, |p| p.party);
        if ps.iter().any(|p| p.party != party) {
            return Err(crate::to_py_err(hekate::Error::Deserialize(
                "partial decryptions: several parties in one container".into(),
            )));
        }
        Ok(PyPartialDecryptions {
            ctx,
            party,
            inner: Arc::new(ps),
        })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyPartialDecryptions,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py)
        )
    }
}
