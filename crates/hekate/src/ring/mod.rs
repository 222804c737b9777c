//! RNS polynomials over a prefix of a modulus chain, in coefficient or NTT form.
//!
//! [`RingContext`] holds the chain `Q`, the special primes `P` and every precomputed table
//! (NTT plans, rescaling constants, ModDown constants, automorphism permutations);
//! [`Poly`] is plain limb-major data whose operations take the context.

pub mod automorphism;
mod context;
mod poly;
mod pool;

pub(crate) use poly::{for_each_limb, for_each_limb_many, for_each_limb_pair};

// The format's hash: public as `hekate::serialize::fnv1a64`, hidden here.
#[doc(hidden)]
pub use context::fnv1a64;
pub(crate) use context::signed_limb;
pub use context::{ring_fingerprint, RingContext};
pub use poly::{Form, Poly};

#[cfg(test)]
mod tests;
