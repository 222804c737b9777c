//! Objects to and from hekate's byte format, and the pickles built on it.
//!
//! Every picklable class pickles as `(Class.from_bytes, (body, ctx, ...))`: its hekate bytes
//! (an out-of-band `PickleBuffer` from protocol 5 on, so that Ray and `multiprocessing`
//! keep the body out of the pickle stream) and its context object, which pickle memoizes
//! once per stream.

use crate::heavy;
use hekate::serialize::{Deserialize, Serialize};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

/// The bytes of a bytes-like object (`bytes`, `bytearray`, `memoryview`, an out-of-band
/// pickle buffer).
pub(crate) fn bytes_of(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    let b = obj.py().get_type::<PyBytes>().call1((obj,))?;
    Ok(b.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// `obj` as hekate bytes under `ctx` (GIL released).
pub(crate) fn write<'py, T>(
    py: Python<'py>,
    obj: &Arc<T>,
    ctx: &Arc<T::Context>,
) -> PyResult<Bound<'py, PyBytes>>
where
    T: Serialize + Send + Sync,
    T::Context: Send + Sync,
{
    let (o, c) = (obj.clone(), ctx.clone());
    let b = heavy(py, move || o.to_bytes(&c))?;
    Ok(PyBytes::new(py, &b))
}

/// The `T` of the bytes-like `data` under `ctx`, validated (GIL released).
pub(crate) fn read<T>(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    ctx: &Arc<T::Context>,
) -> PyResult<Arc<T>>
where
    T: Deserialize + Send + Sync,
    T::Context: Send + Sync,
{
    let (bytes, c) = (bytes_of(data)?, ctx.clone());
    heavy(py, move || T::from_bytes(&bytes, &c)).map(Arc::new)
}

/// The body of a pickle: a `PickleBuffer` (out of band) from protocol 5 on, else `bytes`.
pub(crate) fn pickle_body<'py>(
    py: Python<'py>,
    bytes: Bound<'py, PyBytes>,
    protocol: u32,
) -> PyResult<Bound<'py, PyAny>> {
    if protocol >= 5 {
        py.import("pickle")?
            .getattr("PickleBuffer")?
            .call1((bytes,))
    } else {
        Ok(bytes.into_any())
    }
}

/// `__reduce_ex__` of a class `$ty` whose `from_bytes(body, args...)` reads it back:
/// `reduce!(py, $ty, bytes, protocol, args...)`.
macro_rules! reduce {
    ($py:expr, $ty:ty, $bytes:expr, $protocol:expr $(, $arg:expr)*) => {{
        let body = $crate::bytes::pickle_body($py, $bytes, $protocol)?;
        let f = $py.get_type::<$ty>().getattr("from_bytes")?;
        (f, (body, $($arg,)*))
            .into_pyobject($py)
            .map(Bound::into_any)
    }};
}
pub(crate) use reduce;
