//! The process-wide cache of contexts that unpickling goes through (`ckks`, `mlwe`).

use pyo3::prelude::*;
use pyo3::type_object::PyTypeCheck;
use pyo3::types::PyWeakrefReference;
use std::collections::HashMap;
use std::sync::Mutex;

/// What identifies a context: its parameter bytes, the security level it was checked at,
/// and its `auto_rescale`.
pub(crate) type ContextKey = (Vec<u8>, Option<u32>, bool);

/// Contexts built in this process, by [`ContextKey`], held **weakly**: unpickling many
/// objects of one context (in one stream or many) builds its tables once and gives them
/// one context object, and a context that no object uses any more is freed as usual
/// (entries of freed contexts are dropped at the next insertion). A long-running worker
/// that meets many parameter sets (a Ray actor serving many clients) so keeps only the
/// contexts still in use, where strong references would keep every table it ever built.
pub(crate) struct ContextCache(Mutex<Option<HashMap<ContextKey, Py<PyWeakrefReference>>>>);

impl ContextCache {
    /// An empty cache (for a `static`).
    pub(crate) const fn new() -> Self {
        ContextCache(Mutex::new(None))
    }

    /// The live context of `key`, if there is one.
    pub(crate) fn get<T: PyTypeCheck>(
        &self,
        py: Python<'_>,
        key: &ContextKey,
    ) -> PyResult<Option<Py<T>>> {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let Some(weak) = map.as_ref().and_then(|m| m.get(key)) else {
            return Ok(None);
        };
        Ok(weak.bind(py).upgrade_as::<T>()?.map(Bound::unbind))
    }

    /// Records `ctx` (a class declared `weakref`) as the context of `key`, dropping the
    /// entries of contexts freed since.
    pub(crate) fn insert<T>(&self, py: Python<'_>, key: ContextKey, ctx: &Py<T>) -> PyResult<()> {
        let weak = PyWeakrefReference::new(ctx.bind(py).as_any())?.unbind();
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let map = map.get_or_insert_with(HashMap::new);
        map.retain(|_, w| w.bind(py).upgrade().is_some());
        map.insert(key, weak);
        Ok(())
    }

    /// The number of live contexts (for the tests).
    pub(crate) fn live(&self, py: Python<'_>) -> usize {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.as_ref().map_or(0, |m| {
            m.values()
                .filter(|w| w.bind(py).upgrade().is_some())
                .count()
        })
    }
}
