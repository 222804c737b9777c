//! BFV and BGV (`hekate.bfv`, `hekate.bgv`): exact arithmetic modulo `t` on the shared
//! integer core (`hekate::rlwe::integer`), bound as one set of classes whose context says
//! which scheme it runs.
//!
//! Values are integer arrays: batch encoding (`2 x N/2` slots, `t` prime and `1 mod 2N`) by
//! default, coefficient encoding with `coefficients=True`; `signed=True` reads and writes
//! values centred in `(-t/2, t/2]`. Operators: `+ -` (ciphertexts, plaintexts, integers,
//! arrays), `*` (with a ciphertext: relinearized, and for BGV modulus-switched as the
//! context's policy says; with an integer: `mul_scalar`; with an array: `mul_plain`), unary
//! `-`, `<<` / `>>` (`rotate_rows`). Keys are found as for CKKS (bound evaluator, then
//! `with ev:`).

use crate::bytes::{bytes_of, read, write};
use crate::ckks::security_of;
use crate::container::{read_container, write_container};
use crate::progress::Callback;
use crate::{error_of_class, heavy, IntoPy};
use hekate::params::integer::for_depth;
use hekate::rlwe::integer::{
    Ciphertext, Evaluator, IntegerContext, IntegerParameters, Plaintext, Scheme,
};
use hekate::rlwe::keyswitch::KeySwitchMethod;
use hekate::rlwe::{EvaluationKeySet, GaloisKeys, PublicKey, SecretKey};
use hekate::serialize::ReadPolicy;
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use rayon::prelude::*;
use std::sync::Arc;

/// Registers the BFV/BGV classes.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyIntContext>()?;
    m.add_class::<PyIntSecretKey>()?;
    m.add_class::<PyIntPublicKey>()?;
    m.add_class::<PyIntEvaluationKeys>()?;
    m.add_class::<PyIntPlaintext>()?;
    m.add_class::<PyIntCiphertext>()?;
    m.add_class::<PyIntEvaluator>()?;
    Ok(())
}

fn scheme_of(name: &str) -> PyResult<Scheme> {
    match name.to_ascii_lowercase().as_str() {
        "bfv" => Ok(Scheme::Bfv),
        "bgv" => Ok(Scheme::Bgv),
        _ => Err(PyValueError::new_err(format!(
            "scheme must be 'bfv' or 'bgv', got {name:?}"
        ))),
    }
}

/// How values are encoded.
#[derive(Clone, Copy)]
struct Encoding {
    coefficients: bool,
    signed: bool,
}

/// The rows of integer values of a 1-D (one row) or 2-D input, and whether it was 2-D.
fn int_rows(obj: &Bound<'_, PyAny>, signed: bool) -> PyResult<(Vec<Vec<i128>>, bool)> {
    let np = obj.py().import("numpy")?;
    let dtype = if signed { "int64" } else { "uint64" };
    let arr = np.call_method1("ascontiguousarray", (obj, dtype))?;
    let ndim = arr.getattr("ndim")?.extract::<usize>()?;
    let rows: Vec<Vec<i128>> = match (ndim, signed) {
        (1, false) => vec![read1::<u64>(&arr)?.into_iter().map(i128::from).collect()],
        (1, true) => vec![read1::<i64>(&arr)?.into_iter().map(i128::from).collect()],
        (2, false) => {
            let a = arr.cast::<PyArray2<u64>>()?.readonly();
            let v = a.as_array();
            v.rows()
                .into_iter()
                .map(|r| r.iter().map(|&x| x as i128).collect())
                .collect()
        }
        (2, true) => {
            let a = arr.cast::<PyArray2<i64>>()?.readonly();
            let v = a.as_array();
            v.rows()
                .into_iter()
                .map(|r| r.iter().map(|&x| x as i128).collect())
                .collect()
        }
        (d, _) => {
            return Err(PyValueError::new_err(format!(
                "expected a 1-D array of integers (or a 2-D array, one row per ciphertext), \
                 got {d} dimensions"
            )))
        }
    };
    Ok((rows, ndim == 2))
}

fn read1<T: numpy::Element + Copy>(arr: &Bound<'_, PyAny>) -> PyResult<Vec<T>> {
    Ok(arr.cast::<PyArray1<T>>()?.readonly().as_array().to_vec())
}

fn encode_row(ctx: &IntegerContext, row: &[i128], e: Encoding) -> hekate::Result<Plaintext> {
    if e.signed {
        let v: Vec<i64> = row.iter().map(|&x| x as i64).collect();
        if e.coefficients {
            ctx.plaintext_modulus().encode_coefficients_signed(&v)
        } else {
            ctx.encode_signed(&v)
        }
    } else {
        let v: Vec<u64> = row.iter().map(|&x| x as u64).collect();
        if e.coefficients {
            ctx.encode_coefficients(&v)
        } else {
            ctx.encode(&v)
        }
    }
}

/// Decoded values as one signed (`i64`) or unsigned (`u64`) vector.
enum Decoded {
    Unsigned(Vec<u64>),
    Signed(Vec<i64>),
}

fn decode_pt(ctx: &IntegerContext, pt: &Plaintext, e: Encoding) -> hekate::Result<Decoded> {
    let m = ctx.plaintext_modulus();
    Ok(match (e.coefficients, e.signed) {
        (false, false) => Decoded::Unsigned(m.decode_slots(pt)?),
        (false, true) => Decoded::Signed(m.decode_slots_signed(pt)?),
        (true, false) => Decoded::Unsigned(m.decode_coefficients(pt)?),
        (true, true) => Decoded::Signed(m.decode_coefficients_signed(pt)?),
    })
}

fn decoded_out<'py>(py: Python<'py>, d: Decoded) -> Bound<'py, PyAny> {
    match d {
        Decoded::Unsigned(v) => PyArray1::from_vec(py, v).into_any(),
        Decoded::Signed(v) => PyArray1::from_vec(py, v).into_any(),
    }
}

/// BFV or BGV parameters and their tables.
///
/// ``IntegerContext(scheme, log_n, t, log_q, log_p=None, dnum=None, security=128,
/// key_switching="hybrid")``: ``scheme`` ``"bfv"`` or ``"bgv"``, ``t`` the plaintext
/// modulus (prime and 1 mod 2N for batching), ``log_q`` / ``log_p`` the chain's and the
/// special primes' bit sizes. ``IntegerContext.for_depth(scheme, t, depth)`` sizes the
/// chain for ``depth`` products at 128 bits.
#[pyclass(frozen, module = "hekate._native", name = "IntegerContext")]
pub(crate) struct PyIntContext {
    inner: Arc<IntegerContext>,
    params_bytes: Vec<u8>,
    security: Option<u32>,
    keyless: Arc<Evaluator>,
}

impl PyIntContext {
    fn wrap(inner: Arc<IntegerContext>, security: Option<u32>) -> Self {
        let params_bytes = hekate::serialize::integer_context_to_bytes(&inner);
        let keyless = Arc::new(Evaluator::new(inner.clone(), None, GaloisKeys::new()));
        PyIntContext {
            inner,
            params_bytes,
            security,
            keyless,
        }
    }

    fn build(py: Python<'_>, p: IntegerParameters, security: Option<u32>) -> PyResult<Self> {
        let inner = heavy(py, move || p.build())?;
        Ok(PyIntContext::wrap(inner, security))
    }
}

#[pymethods]
impl PyIntContext {
    #[new]
    #[pyo3(
        signature = (scheme, log_n, t, log_q, log_p=None, dnum=None, security=Some(128), key_switching="hybrid"),
        text_signature = "(scheme, log_n, t, log_q, log_p=None, dnum=None, security=128, key_switching='hybrid')"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        scheme: &str,
        log_n: u32,
        t: u64,
        log_q: Vec<u32>,
        log_p: Option<Vec<u32>>,
        dnum: Option<usize>,
        security: Option<u32>,
        key_switching: &str,
    ) -> PyResult<Self> {
        let mut p = IntegerParameters::new(scheme_of(scheme)?, log_n)
            .plaintext_modulus(t)
            .log_q(&log_q)
            .security(security_of(security)?)
            .key_switching(KeySwitchMethod::parse(key_switching).py_err()?);
        if let Some(lp) = &log_p {
            p = p.log_p(lp);
        }
        if let Some(d) = dnum {
            p = p.dnum(d);
        }
        PyIntContext::build(py, p, security)
    }

    /// The smallest chain (from N = 2^11) carrying ``depth`` products of ``scheme`` mod
    /// ``t`` at ``security`` bits (128, 192 or 256).
    #[staticmethod]
    #[pyo3(signature = (scheme, t, depth, security=128))]
    fn for_depth(
        py: Python<'_>,
        scheme: &str,
        t: u64,
        depth: usize,
        security: u32,
    ) -> PyResult<Self> {
        let level = security_of(Some(security))?;
        let chain = for_depth(scheme_of(scheme)?, t, depth, level).py_err()?;
        PyIntContext::build(py, chain.parameters(), Some(security))
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
        let policy = ReadPolicy::default().min_security(security_of(security)?);
        let inner = heavy(py, move || {
            hekate::serialize::integer_context_from_bytes_with(&bytes, &policy)
        })?;
        Ok(PyIntContext::wrap(inner, security))
    }

    /// The parameters as hekate bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.params_bytes)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = py.get_type::<PyIntContext>().getattr("from_bytes")?;
        (f, (PyBytes::new(py, &self.params_bytes), self.security))
            .into_pyobject(py)
            .map(Bound::into_any)
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.{}.Context N=2^{} t={} max_level={} log_qp={:.1}>",
            self.inner.scheme().name().to_ascii_lowercase(),
            self.inner.n().trailing_zeros(),
            self.inner.t(),
            self.inner.max_level(),
            self.inner.log_qp()
        )
    }

    /// ``"bfv"`` or ``"bgv"``.
    #[getter]
    fn scheme(&self) -> String {
        self.inner.scheme().name().to_ascii_lowercase()
    }

    /// The ring degree N (also the number of batch slots, in two rows of N/2).
    #[getter]
    fn n(&self) -> usize {
        self.inner.n()
    }

    /// The plaintext modulus t.
    #[getter]
    fn t(&self) -> u64 {
        self.inner.t()
    }

    /// The level of fresh ciphertexts.
    #[getter]
    fn max_level(&self) -> usize {
        self.inner.max_level()
    }

    /// The chain primes.
    #[getter]
    fn q_primes(&self) -> Vec<u64> {
        self.inner.q_primes()
    }

    /// The special primes.
    #[getter]
    fn p_primes(&self) -> Vec<u64> {
        self.inner.p_primes()
    }

    /// log2 of QP.
    #[getter]
    fn log_qp(&self) -> f64 {
        self.inner.log_qp()
    }

    /// The security level checked (None: not checked).
    #[getter]
    fn security(&self) -> Option<u32> {
        self.security
    }

    /// A fresh secret key.
    fn secret_key(slf: &Bound<'_, Self>) -> PyResult<PyIntSecretKey> {
        let inner = slf.get().inner.clone();
        let sk = heavy(slf.py(), move || Ok(inner.generate_secret_key()))?;
        Ok(PyIntSecretKey {
            ctx: slf.clone().unbind(),
            inner: Arc::new(sk),
        })
    }

    /// Encodes integers (batch slots, or ``coefficients=True``; ``signed=True`` for values
    /// in (-t/2, t/2]).
    #[pyo3(signature = (values, coefficients=false, signed=false))]
    fn encode(
        slf: &Bound<'_, Self>,
        values: &Bound<'_, PyAny>,
        coefficients: bool,
        signed: bool,
    ) -> PyResult<PyIntPlaintext> {
        let (rows, batched) = int_rows(values, signed)?;
        if batched {
            return Err(PyValueError::new_err(
                "encode takes a 1-D array of integers",
            ));
        }
        let (ctx, e) = (
            slf.get().inner.clone(),
            Encoding {
                coefficients,
                signed,
            },
        );
        let row = rows.into_iter().next().unwrap_or_default();
        let pt = heavy(slf.py(), move || encode_row(&ctx, &row, e))?;
        Ok(PyIntPlaintext {
            ctx: slf.clone().unbind(),
            inner: Arc::new(pt),
        })
    }

    /// The values of a plaintext.
    #[pyo3(signature = (pt, coefficients=false, signed=false))]
    fn decode<'py>(
        &self,
        py: Python<'py>,
        pt: &PyIntPlaintext,
        coefficients: bool,
        signed: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (ctx, p) = (self.inner.clone(), pt.inner.clone());
        let d = heavy(py, move || {
            decode_pt(
                &ctx,
                &p,
                Encoding {
                    coefficients,
                    signed,
                },
            )
        })?;
        Ok(decoded_out(py, d))
    }
}

/// A BFV/BGV secret key. Never pickled; ``to_bytes()`` is the explicit path.
#[pyclass(frozen, module = "hekate._native", name = "IntegerSecretKey")]
pub(crate) struct PyIntSecretKey {
    ctx: Py<PyIntContext>,
    inner: Arc<SecretKey>,
}

/// Encrypts each row (1-D: one ciphertext; 2-D: a list), in parallel.
fn encrypt_rows<'py, F>(
    py: Python<'py>,
    ctx: &Py<PyIntContext>,
    values: &Bound<'py, PyAny>,
    e: Encoding,
    encrypt: F,
) -> PyResult<Bound<'py, PyAny>>
where
    F: Fn(&IntegerContext, &Plaintext) -> hekate::Result<Ciphertext> + Send + Sync,
{
    let (rows, batched) = int_rows(values, e.signed)?;
    let inner = ctx.get().inner.clone();
    let cts = heavy(py, move || {
        rows.par_iter()
            .map(|r| encrypt(&inner, &encode_row(&inner, r, e)?))
            .collect::<hekate::Result<Vec<_>>>()
    })?;
    let mut out = cts.into_iter().map(|c| PyIntCiphertext {
        ctx: ctx.clone_ref(py),
        inner: Arc::new(c),
        bound: None,
    });
    if batched {
        let items = out.map(|c| Py::new(py, c)).collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any())
    } else {
        Ok(Bound::new(py, out.next().expect("one row"))?.into_any())
    }
}

#[pymethods]
impl PyIntSecretKey {
    /// The public key.
    fn public_key(&self, py: Python<'_>) -> PyResult<PyIntPublicKey> {
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let pk = heavy(py, move || Ok(ctx.generate_public_key(&sk)))?;
        Ok(PyIntPublicKey {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(pk),
        })
    }

    /// The evaluation keys: relinearization (if ``relin``), row rotations by each of
    /// ``rotations``, and the column (row-swap) rotation if ``swap_rows``.
    #[pyo3(
        signature = (rotations=Vec::new(), swap_rows=false, relin=true, progress=None),
        text_signature = "($self, rotations=(), swap_rows=False, relin=True, progress=None)"
    )]
    fn evaluation_keys(
        &self,
        py: Python<'_>,
        rotations: Vec<i64>,
        swap_rows: bool,
        relin: bool,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyIntEvaluationKeys> {
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let cb = Callback::from_arg(py, progress, "evaluation keys")?;
        let set = heavy(py, || {
            let none = hekate::progress::NoProgress;
            let p: &dyn hekate::progress::Progress = match &cb {
                Some(c) => c,
                None => &none,
            };
            let rk = relin.then(|| ctx.generate_relinearization_key(&sk));
            let gk = ctx.generate_galois_keys_with_progress(
                &sk,
                &rotations,
                swap_rows,
                &mut hekate::math::sample::os_rng(),
                p,
            );
            Ok(EvaluationKeySet::new(rk, gk))
        })?;
        if let Some(c) = &cb {
            c.take_error()?;
        }
        Ok(PyIntEvaluationKeys {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(set),
        })
    }

    /// Encrypts integers under this secret key (seed-compressed).
    #[pyo3(signature = (values, coefficients=false, signed=false))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
        coefficients: bool,
        signed: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let sk = self.inner.clone();
        encrypt_rows(
            py,
            &self.ctx,
            values,
            Encoding {
                coefficients,
                signed,
            },
            move |c, pt| c.encrypt_symmetric(pt, &sk),
        )
    }

    /// Decrypts a ciphertext (a 1-D array) or a list of them (a 2-D array): ``uint64``, or
    /// ``int64`` with ``signed=True``.
    #[pyo3(signature = (ct, coefficients=false, signed=false))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        ct: &Bound<'py, PyAny>,
        coefficients: bool,
        signed: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (ctx, sk) = (self.ctx.get().inner.clone(), self.inner.clone());
        let e = Encoding {
            coefficients,
            signed,
        };
        if let Ok(c) = ct.cast::<PyIntCiphertext>() {
            let c = c.get().inner.clone();
            let d = heavy(py, move || decode_pt(&ctx, &ctx.decrypt(&c, &sk)?, e))?;
            return Ok(decoded_out(py, d));
        }
        let list: Vec<Bound<'py, PyIntCiphertext>> = ct.extract().map_err(|_| {
            PyTypeError::new_err("decrypt takes a Ciphertext or a list of Ciphertexts")
        })?;
        let cts: Vec<Arc<Ciphertext>> = list.iter().map(|c| c.get().inner.clone()).collect();
        let rows = heavy(py, move || {
            cts.par_iter()
                .map(|c| decode_pt(&ctx, &ctx.decrypt(c, &sk)?, e))
                .collect::<hekate::Result<Vec<_>>>()
        })?;
        let bad = |e: numpy::FromVecError| PyValueError::new_err(e.to_string());
        if signed {
            let r: Vec<Vec<i64>> = rows
                .into_iter()
                .map(|d| match d {
                    Decoded::Signed(v) => v,
                    Decoded::Unsigned(_) => unreachable!("signed decoding"),
                })
                .collect();
            Ok(PyArray2::from_vec2(py, &r).map_err(bad)?.into_any())
        } else {
            let r: Vec<Vec<u64>> = rows
                .into_iter()
                .map(|d| match d {
                    Decoded::Unsigned(v) => v,
                    Decoded::Signed(_) => unreachable!("unsigned decoding"),
                })
                .collect();
            Ok(PyArray2::from_vec2(py, &r).map_err(bad)?.into_any())
        }
    }

    /// The noise budget of ``ct`` in bits (measured with the secret key).
    fn noise_budget(&self, py: Python<'_>, ct: &PyIntCiphertext) -> PyResult<f64> {
        let (ctx, sk, c) = (
            self.ctx.get().inner.clone(),
            self.inner.clone(),
            ct.inner.clone(),
        );
        heavy(py, move || ctx.noise_budget(&c, &sk))
    }

    /// The secret key as hekate bytes. Keep them secret.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        write(py, &self.inner, self.ctx.get().inner.ring())
    }

    /// The secret key of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyIntContext>,
    ) -> PyResult<Self> {
        let inner = read::<SecretKey>(py, data, ctx.get().inner.ring())?;
        Ok(PyIntSecretKey { ctx, inner })
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "hekate does not pickle secret keys: use sk.to_bytes() and store it yourself",
        ))
    }
}

/// A BFV/BGV public key.
#[pyclass(frozen, module = "hekate._native", name = "IntegerPublicKey")]
pub(crate) struct PyIntPublicKey {
    ctx: Py<PyIntContext>,
    inner: Arc<PublicKey>,
}

#[pymethods]
impl PyIntPublicKey {
    /// Encrypts integers (1-D: a ciphertext; 2-D: a list, in parallel).
    #[pyo3(signature = (values, coefficients=false, signed=false))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
        coefficients: bool,
        signed: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let pk = self.inner.clone();
        encrypt_rows(
            py,
            &self.ctx,
            values,
            Encoding {
                coefficients,
                signed,
            },
            move |c, pt| c.encrypt(pt, &pk),
        )
    }

    /// The public key as hekate bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        write(py, &self.inner, self.ctx.get().inner.ring())
    }

    /// The public key of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyIntContext>,
    ) -> PyResult<Self> {
        let inner = read::<PublicKey>(py, data, ctx.get().inner.ring())?;
        Ok(PyIntPublicKey { ctx, inner })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyIntPublicKey,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py)
        )
    }
}

/// BFV/BGV evaluation keys (relinearization and Galois keys). Public.
#[pyclass(frozen, module = "hekate._native", name = "IntegerEvaluationKeys")]
pub(crate) struct PyIntEvaluationKeys {
    ctx: Py<PyIntContext>,
    inner: Arc<EvaluationKeySet>,
}

/// Magic of the evaluation-key container ([`crate::container`]: the relinearization key,
/// empty when absent, then the Galois keys).
const INT_EVK_MAGIC: &[u8; 8] = b"HKPYIEK1";

#[pymethods]
impl PyIntEvaluationKeys {
    /// Whether the relinearization key is present.
    #[getter]
    fn relin(&self) -> bool {
        self.inner.relinearization_key().is_some()
    }

    /// The Galois elements keys are held for.
    #[getter]
    fn galois_elements(&self) -> Vec<usize> {
        self.inner.galois_keys().elements()
    }

    /// The keys as bytes (a container of hekate objects).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let (ctx, set) = (self.ctx.get().inner.clone(), self.inner.clone());
        let b = heavy(py, move || {
            let rk = match set.relinearization_key() {
                Some(k) => ctx.relinearization_key_to_bytes(k)?,
                None => Vec::new(),
            };
            let gk = ctx.galois_keys_to_bytes(set.galois_keys())?;
            Ok(write_container(INT_EVK_MAGIC, &[rk, gk]))
        })?;
        Ok(PyBytes::new(py, &b))
    }

    /// The keys of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyIntContext>,
    ) -> PyResult<Self> {
        crate::KEY_LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (bytes, c) = (bytes_of(data)?, ctx.get().inner.clone());
        let set = heavy(py, move || {
            let parts =
                read_container(&bytes, INT_EVK_MAGIC, "evaluation keys", |b| Ok(b.to_vec()))?;
            let [rk, gk] = <[Vec<u8>; 2]>::try_from(parts).map_err(|_| {
                hekate::Error::Deserialize("evaluation keys: expected two parts".into())
            })?;
            let rk = if rk.is_empty() {
                None
            } else {
                Some(c.relinearization_key_from_bytes(&rk)?)
            };
            Ok(EvaluationKeySet::new(rk, c.galois_keys_from_bytes(&gk)?))
        })?;
        Ok(PyIntEvaluationKeys {
            ctx,
            inner: Arc::new(set),
        })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyIntEvaluationKeys,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py)
        )
    }
}

/// A BFV/BGV plaintext.
#[pyclass(frozen, module = "hekate._native", name = "IntegerPlaintext")]
pub(crate) struct PyIntPlaintext {
    ctx: Py<PyIntContext>,
    inner: Arc<Plaintext>,
}

#[pymethods]
impl PyIntPlaintext {
    /// The plaintext as hekate bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        write(py, &self.inner, &self.ctx.get().inner)
    }

    /// The plaintext of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyIntContext>,
    ) -> PyResult<Self> {
        let inner = read::<Plaintext>(py, data, &ctx.get().inner)?;
        Ok(PyIntPlaintext { ctx, inner })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyIntPlaintext,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py)
        )
    }
}

/// A BFV/BGV ciphertext. Immutable.
#[pyclass(frozen, module = "hekate._native", name = "IntegerCiphertext")]
pub(crate) struct PyIntCiphertext {
    ctx: Py<PyIntContext>,
    inner: Arc<Ciphertext>,
    bound: Option<Py<PyIntEvaluator>>,
}

impl PyIntCiphertext {
    fn derive(&self, py: Python<'_>, c: Ciphertext) -> Self {
        PyIntCiphertext {
            ctx: self.ctx.clone_ref(py),
            inner: Arc::new(c),
            bound: self.bound.as_ref().map(|b| b.clone_ref(py)),
        }
    }

    fn evaluator(
        &self,
        py: Python<'_>,
        other: Option<&PyIntCiphertext>,
        what: &str,
    ) -> PyResult<Py<PyIntEvaluator>> {
        if let Some(b) = self.bound.as_ref().or(other.and_then(|o| o.bound.as_ref())) {
            return Ok(b.clone_ref(py));
        }
        let current = py
            .import("hekate._state")?
            .call_method1("current", (py.get_type::<PyIntEvaluator>(),))?;
        if !current.is_none() {
            return Ok(current.cast_into::<PyIntEvaluator>()?.unbind());
        }
        Err(error_of_class(
            "MissingKeyError",
            format!("missing key: {what} needs evaluation keys: use the evaluator's method, ev.bind(ct) or `with ev:`"),
        ))
    }

    /// `self ± other` / `self * other` with a key-free right operand, or a ciphertext.
    fn binary(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: char,
        reflected: bool,
    ) -> PyResult<Self> {
        let a = self.inner.clone();
        if let Ok(b) = other.cast::<PyIntCiphertext>() {
            let b = b.get();
            let bi = b.inner.clone();
            let ev = if op == '*' {
                self.evaluator(py, Some(b), "a product")?
                    .get()
                    .inner
                    .clone()
            } else {
                self.ctx.get().keyless.clone()
            };
            let r = heavy(py, move || {
                let (x, y) = if reflected { (&bi, &a) } else { (&a, &bi) };
                match op {
                    '+' => ev.add(x, y),
                    '-' => ev.sub(x, y),
                    _ => ev.mul(x, y),
                }
            })?;
            return Ok(self.derive(py, r));
        }
        let ev = self.ctx.get().keyless.clone();
        if let Ok(k) = other.extract::<i64>() {
            let r = heavy(py, move || match op {
                '*' => ev.mul_scalar(&a, k),
                _ => {
                    // The constant polynomial c: c in every slot, for any t.
                    let t = ev.context().t() as i128;
                    let c = (k as i128).rem_euclid(t) as u64;
                    let pt = ev.context().encode_coefficients(&[c])?;
                    match (op, reflected) {
                        ('+', _) => ev.add_plain(&a, &pt),
                        ('-', false) => ev.sub_plain(&a, &pt),
                        _ => ev.add_plain(&ev.neg(&a)?, &pt),
                    }
                }
            })?;
            return Ok(self.derive(py, r));
        }
        let pt: Arc<Plaintext> = if let Ok(p) = other.cast::<PyIntPlaintext>() {
            p.get().inner.clone()
        } else {
            let (rows, batched) = int_rows(other, true)?;
            if batched {
                return Err(PyValueError::new_err(
                    "a ciphertext combines with a 1-D array",
                ));
            }
            let c = self.ctx.get().inner.clone();
            let row = rows.into_iter().next().unwrap_or_default();
            Arc::new(heavy(py, move || {
                encode_row(
                    &c,
                    &row,
                    Encoding {
                        coefficients: false,
                        signed: true,
                    },
                )
            })?)
        };
        let r = heavy(py, move || match (op, reflected) {
            ('+', _) => ev.add_plain(&a, &pt),
            ('-', false) => ev.sub_plain(&a, &pt),
            ('-', true) => ev.add_plain(&ev.neg(&a)?, &pt),
            _ => ev.mul_plain(&a, &pt),
        })?;
        Ok(self.derive(py, r))
    }

    fn rotate_op(&self, py: Python<'_>, steps: i64) -> PyResult<Self> {
        let ev = self.evaluator(py, None, "a rotation")?;
        let (e, a) = (ev.get().inner.clone(), self.inner.clone());
        let r = heavy(py, move || e.rotate_rows(&a, steps))?;
        let mut out = self.derive(py, r);
        out.bound = Some(ev);
        Ok(out)
    }
}

#[pymethods]
impl PyIntCiphertext {
    /// Operators never convert to a numpy array element by element.
    #[classattr]
    fn __array_ufunc__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// The level.
    #[getter]
    fn level(&self) -> usize {
        self.inner.level()
    }

    /// The degree (2 after ``mul_no_relin``).
    #[getter]
    fn degree(&self) -> usize {
        self.inner.degree()
    }

    /// Bytes in memory.
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.size_bytes()
    }

    /// The noise budget estimated without the key, in bits.
    #[getter]
    fn estimated_noise_budget(&self) -> f64 {
        self.ctx.get().inner.estimated_noise_budget(&self.inner)
    }

    /// The ciphertext as hekate bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        write(py, &self.inner, &self.ctx.get().inner)
    }

    /// The ciphertext of bytes written by ``to_bytes``, under ``ctx``.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        ctx: Py<PyIntContext>,
    ) -> PyResult<Self> {
        let inner = read::<Ciphertext>(py, data, &ctx.get().inner)?;
        Ok(PyIntCiphertext {
            ctx,
            inner,
            bound: None,
        })
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: u32) -> PyResult<Bound<'py, PyAny>> {
        crate::bytes::reduce!(
            py,
            PyIntCiphertext,
            self.to_bytes(py)?,
            protocol,
            self.ctx.clone_ref(py)
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "<hekate.{}.Ciphertext level={} N=2^{} estimated budget {:.0} bits>",
            self.ctx.get().inner.scheme().name().to_ascii_lowercase(),
            self.inner.level(),
            self.ctx.get().inner.n().trailing_zeros(),
            self.estimated_noise_budget()
        )
    }

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.binary(py, o, '+', false)
    }

    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.binary(py, o, '+', true)
    }

    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.binary(py, o, '-', false)
    }

    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.binary(py, o, '-', true)
    }

    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.binary(py, o, '*', false)
    }

    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Self> {
        self.binary(py, o, '*', true)
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<Self> {
        let (ev, a) = (self.ctx.get().keyless.clone(), self.inner.clone());
        let r = heavy(py, move || ev.neg(&a))?;
        Ok(self.derive(py, r))
    }

    fn __lshift__(&self, py: Python<'_>, steps: i64) -> PyResult<Self> {
        self.rotate_op(py, steps)
    }

    fn __rshift__(&self, py: Python<'_>, steps: i64) -> PyResult<Self> {
        self.rotate_op(py, -steps)
    }
}

/// Evaluates BFV/BGV operations with evaluation keys; methods under the Rust names.
/// ``leveled_products=True`` drops the primes the noise has used up before each BFV tensor.
#[pyclass(frozen, module = "hekate._native", name = "IntegerEvaluator")]
pub(crate) struct PyIntEvaluator {
    ctx: Py<PyIntContext>,
    keys: Py<PyIntEvaluationKeys>,
    inner: Arc<Evaluator>,
}

impl PyIntEvaluator {
    fn run<F>(slf: &Bound<'_, Self>, f: F) -> PyResult<PyIntCiphertext>
    where
        F: FnOnce(&Evaluator) -> hekate::Result<Ciphertext> + Send,
    {
        let me = slf.get();
        let ev = me.inner.clone();
        let r = heavy(slf.py(), move || f(&ev))?;
        Ok(PyIntCiphertext {
            ctx: me.ctx.clone_ref(slf.py()),
            inner: Arc::new(r),
            bound: Some(slf.clone().unbind()),
        })
    }
}

/// Generates evaluator methods `name(ct, ...)` calling the Rust method of the same name.
macro_rules! int_ops {
    ($( $(#[$doc:meta])* fn $name:ident($($arg:ident : $ty:ty),*) => |$ev:ident, $($v:ident),*| $body:expr; )*) => {
        #[pymethods]
        impl PyIntEvaluator {
            #[new]
            #[pyo3(signature = (keys, leveled_products=false))]
            fn new(py: Python<'_>, keys: Py<PyIntEvaluationKeys>, leveled_products: bool) -> Self {
                let k = keys.get();
                let ctx = k.ctx.clone_ref(py);
                let inner = Arc::new(
                    Evaluator::with_key_set(ctx.get().inner.clone(), k.inner.clone())
                        .with_leveled_products(leveled_products),
                );
                PyIntEvaluator { ctx, keys, inner }
            }

            /// The context.
            #[getter]
            fn context(&self, py: Python<'_>) -> Py<PyIntContext> {
                self.ctx.clone_ref(py)
            }

            /// The evaluation keys.
            #[getter]
            fn keys(&self, py: Python<'_>) -> Py<PyIntEvaluationKeys> {
                self.keys.clone_ref(py)
            }

            /// Whether BFV products drop the primes the noise has used up.
            #[getter]
            fn leveled_products(&self) -> bool {
                self.inner.leveled_products()
            }

            /// ``ct`` bound to this evaluator.
            fn bind(slf: &Bound<'_, Self>, ct: &PyIntCiphertext) -> PyIntCiphertext {
                PyIntCiphertext {
                    ctx: ct.ctx.clone_ref(slf.py()),
                    inner: ct.inner.clone(),
                    bound: Some(slf.clone().unbind()),
                }
            }

            fn __enter__(slf: &Bound<'_, Self>) -> PyResult<Py<Self>> {
                slf.py().import("hekate._state")?.call_method1("push", (slf,))?;
                Ok(slf.clone().unbind())
            }

            #[pyo3(signature = (*_args))]
            fn __exit__(slf: &Bound<'_, Self>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
                slf.py().import("hekate._state")?.call_method1("pop", (slf,))?;
                Ok(false)
            }

            fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                (py.get_type::<PyIntEvaluator>(), (self.keys.clone_ref(py), self.inner.leveled_products()))
                    .into_pyobject(py)
                    .map(Bound::into_any)
            }

            /// Row rotations of ``ct`` by each of ``steps``, sharing one decomposition.
            fn rotate_rows_hoisted<'py>(
                slf: &Bound<'py, Self>,
                ct: PyRef<'py, PyIntCiphertext>,
                steps: Vec<i64>,
            ) -> PyResult<Bound<'py, PyList>> {
                let py = slf.py();
                let (ev, x) = (slf.get().inner.clone(), ct.inner.clone());
                let rs = heavy(py, move || ev.rotate_rows_hoisted(&x, &steps))?;
                let items = rs
                    .into_iter()
                    .map(|r| Py::new(py, PyIntCiphertext {
                        ctx: slf.get().ctx.clone_ref(py),
                        inner: Arc::new(r),
                        bound: Some(slf.clone().unbind()),
                    }))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, items)
            }

            $(
                $(#[$doc])*
                fn $name(slf: &Bound<'_, Self>, $($arg: $ty),*) -> PyResult<PyIntCiphertext> {
                    $(let $v = $v.inner.clone();)*
                    let _ = ();
                    Self::run(slf, move |$ev| $body)
                }
            )*
        }
    };
}

int_ops! {
    /// ``a + b``.
    fn add(a: PyRef<'_, PyIntCiphertext>, b: PyRef<'_, PyIntCiphertext>) => |ev, a, b| ev.add(&a, &b);
    /// ``a - b``.
    fn sub(a: PyRef<'_, PyIntCiphertext>, b: PyRef<'_, PyIntCiphertext>) => |ev, a, b| ev.sub(&a, &b);
    /// ``-a``.
    fn neg(a: PyRef<'_, PyIntCiphertext>) => |ev, a| ev.neg(&a);
    /// ``ct + pt``.
    fn add_plain(ct: PyRef<'_, PyIntCiphertext>, pt: PyRef<'_, PyIntPlaintext>) => |ev, ct, pt| ev.add_plain(&ct, &pt);
    /// ``ct - pt``.
    fn sub_plain(ct: PyRef<'_, PyIntCiphertext>, pt: PyRef<'_, PyIntPlaintext>) => |ev, ct, pt| ev.sub_plain(&ct, &pt);
    /// ``ct * pt``.
    fn mul_plain(ct: PyRef<'_, PyIntCiphertext>, pt: PyRef<'_, PyIntPlaintext>) => |ev, ct, pt| ev.mul_plain(&ct, &pt);
    /// ``a * b`` without relinearization.
    fn mul_no_relin(a: PyRef<'_, PyIntCiphertext>, b: PyRef<'_, PyIntCiphertext>) => |ev, a, b| ev.mul_no_relin(&a, &b);
    /// Relinearizes a degree-2 ciphertext.
    fn relinearize(a: PyRef<'_, PyIntCiphertext>) => |ev, a| ev.relinearize(&a);
    /// ``a * b``, relinearized (BGV: modulus-switched as the context's policy says).
    fn mul(a: PyRef<'_, PyIntCiphertext>, b: PyRef<'_, PyIntCiphertext>) => |ev, a, b| ev.mul(&a, &b);
    /// ``a * a``, relinearized.
    fn square(a: PyRef<'_, PyIntCiphertext>) => |ev, a| ev.square(&a);
    /// BGV: switches to the next modulus down.
    fn mod_switch(a: PyRef<'_, PyIntCiphertext>) => |ev, a| ev.mod_switch(&a);
    /// The rows rotated left by ``steps``.
    fn rotate_rows(a: PyRef<'_, PyIntCiphertext>, steps: i64) => |ev, a| ev.rotate_rows(&a, steps);
    /// The two rows swapped.
    fn rotate_columns(a: PyRef<'_, PyIntCiphertext>) => |ev, a| ev.rotate_columns(&a);
    /// ``ct * k`` for an integer k.
    fn mul_scalar(ct: PyRef<'_, PyIntCiphertext>, k: i64) => |ev, ct| ev.mul_scalar(&ct, k);
    /// BGV: switches down to ``level``.
    fn mod_switch_to(ct: PyRef<'_, PyIntCiphertext>, level: usize) => |ev, ct| ev.mod_switch_to(&ct, level);
    /// Drops ``levels`` levels.
    fn drop_level(ct: PyRef<'_, PyIntCiphertext>, levels: usize) => |ev, ct| ev.drop_level(&ct, levels);
    /// The automorphism X -> X^g (needs its Galois key).
    fn automorphism(ct: PyRef<'_, PyIntCiphertext>, g: usize) => |ev, ct| ev.automorphism(&ct, g);
}
