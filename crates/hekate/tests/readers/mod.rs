//! Every reader of the crate as a [`Target`]: its context (small fixed parameters, keys
//! from fixed seeds), its valid encodings (the corpus seeds) and what *using* a decoded
//! object means. Shared by `tests/fuzz.rs` (decode mutated bytes, then use what decodes)
//! and `tests/alloc_limits.rs` (peak memory of a read against `ReadPolicy::max_alloc_bytes`).
#![allow(dead_code)]

mod ckks;
mod fhew;
pub mod integer;
pub mod mlwe;

#[allow(unused_imports)]
pub use ckks::message;

use hekate::params::SecurityLevel;
use hekate::serialize::{Deserialize, ReadPolicy, Serialize};
use hekate::Result;
use std::sync::Arc;

/// Decodes bytes under a policy, uses the object when asked, returns its re-encoding.
type Run = Box<dyn Fn(&[u8], &ReadPolicy, bool) -> Result<Vec<u8>>>;
/// Decodes bytes under a policy and drops the object.
type Decode = Box<dyn Fn(&[u8], &ReadPolicy) -> Result<()>>;

/// One reader: a type read under one context.
pub struct Target {
    /// The corpus directory name (`tests/corpus/<name>/`).
    pub name: &'static str,
    /// Valid encodings, deterministic: `(file stem, bytes)`.
    pub seeds: Vec<(String, Vec<u8>)>,
    /// Invalid but well-formed variants made by writing mutated *objects* (structure-aware
    /// seeds: wrong levels, limb counts, seeds, parameters of another set).
    pub variants: Vec<Vec<u8>>,
    /// Decodes the bytes under the policy and, when asked, uses the object; returns its
    /// re-encoding.
    run: Run,
    /// Decodes the bytes under the policy and drops the object (nothing else allocated).
    decode: Decode,
}

impl Target {
    /// Decodes `bytes` under `policy` and uses the object (`use_it`); the object's
    /// re-encoding on success. An `Err` is fine for hostile bytes; a panic is a bug.
    pub fn run(&self, bytes: &[u8], policy: &ReadPolicy, use_it: bool) -> Result<Vec<u8>> {
        (self.run)(bytes, policy, use_it)
    }

    /// Only decodes `bytes` under `policy` (what `tests/alloc_limits.rs` measures).
    pub fn decode(&self, bytes: &[u8], policy: &ReadPolicy) -> Result<()> {
        (self.decode)(bytes, policy)
    }
}

/// A target reading `T` under `ctx`, using decoded objects with `use_it`.
fn target<T, U>(
    name: &'static str,
    ctx: Arc<T::Context>,
    seeds: Vec<(String, Vec<u8>)>,
    variants: Vec<Vec<u8>>,
    use_it: U,
) -> Target
where
    T: Deserialize + 'static,
    T::Context: Sized + 'static,
    U: Fn(&T) -> Result<()> + 'static,
{
    let c = ctx.clone();
    Target {
        name,
        seeds,
        variants,
        decode: Box::new(move |bytes, policy| T::from_bytes_with(bytes, &c, policy).map(drop)),
        run: Box::new(move |bytes, policy, use_obj| {
            let obj = T::from_bytes_with(bytes, &ctx, policy)?;
            if use_obj {
                use_it(&obj)?;
            }
            obj.to_bytes(&ctx)
        }),
    }
}

/// A target for a type read and written by functions rather than by [`Deserialize`]
/// (BFV/BGV evaluation keys, whose codec is on the integer context).
fn target_with<T, R, W, U>(
    name: &'static str,
    seeds: Vec<(String, Vec<u8>)>,
    variants: Vec<Vec<u8>>,
    read: R,
    write: W,
    use_it: U,
) -> Target
where
    T: 'static,
    R: Fn(&[u8], &ReadPolicy) -> Result<T> + 'static,
    W: Fn(&T) -> Result<Vec<u8>> + 'static,
    U: Fn(&T) -> Result<()> + 'static,
{
    let read = std::rc::Rc::new(read);
    let r = read.clone();
    Target {
        name,
        seeds,
        variants,
        decode: Box::new(move |bytes, policy| r(bytes, policy).map(drop)),
        run: Box::new(move |bytes, policy, use_obj| {
            let obj = read(bytes, policy)?;
            if use_obj {
                use_it(&obj)?;
            }
            write(&obj)
        }),
    }
}

/// The encoding of `obj` under `ctx` (a valid object of that context).
fn bytes<T: Serialize>(obj: &T, ctx: &T::Context) -> Vec<u8> {
    obj.to_bytes(ctx).expect("writable under its own context")
}

/// The policy every target reads under: test parameters are below 128 bits, so the
/// caller opts out explicitly; the heuristic KLSS bound stays refused.
pub fn policy(max_alloc_bytes: u64) -> ReadPolicy {
    ReadPolicy::default()
        .min_security(SecurityLevel::NotChecked)
        .max_alloc_bytes(max_alloc_bytes)
}

/// Every target, in a fixed order.
pub fn all() -> Vec<Target> {
    let mut v = ckks::targets();
    v.extend(fhew::targets());
    v.extend(integer::targets());
    v.extend(mlwe::targets());
    v
}
