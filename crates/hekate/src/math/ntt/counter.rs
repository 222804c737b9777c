//! A process-wide count of the number-theoretic transforms run, for the benchmarks that
//! compare algorithms by their (I)NTT counts (seed 001 Table II: a BFV key switch in
//! coefficient form costs `6ℓ + 4` transforms against `8ℓ + 4` for BGV and CKKS).
//!
//! Every [`NttPlan`](super::NttPlan) transform of one limb (forward or inverse, reduced or
//! lazy, any backend) adds one. The counters are relaxed atomics: one uncontended
//! increment per limb transform (tens of microseconds of work), below the noise of any
//! measurement. Other threads' transforms count too, so read them around work that runs
//! alone.
//!
//! ```
//! use hekate::math::{transform_count, NttPlan};
//! let plan = NttPlan::new(16, 97).unwrap();
//! let before = transform_count();
//! let mut a = vec![1u64; 16];
//! plan.forward(&mut a);
//! plan.inverse(&mut a);
//! let used = transform_count() - before;
//! assert_eq!((used.forward, used.inverse), (1, 1));
//! ```

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

static FORWARD: AtomicU64 = AtomicU64::new(0);
static INVERSE: AtomicU64 = AtomicU64::new(0);

/// Limb transforms counted since the process started (or the difference of two counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransformCount {
    /// Forward transforms (`NTT`).
    pub forward: u64,
    /// Inverse transforms (`INTT`).
    pub inverse: u64,
}

impl TransformCount {
    /// Forward plus inverse: the paper's "(I)NTT" count.
    pub fn total(&self) -> u64 {
        self.forward + self.inverse
    }
}

impl std::ops::Sub for TransformCount {
    type Output = TransformCount;

    fn sub(self, rhs: TransformCount) -> TransformCount {
        TransformCount {
            forward: self.forward.wrapping_sub(rhs.forward),
            inverse: self.inverse.wrapping_sub(rhs.inverse),
        }
    }
}

/// The transforms run so far by this process (subtract two readings to count a span).
pub fn transform_count() -> TransformCount {
    TransformCount {
        forward: FORWARD.load(Relaxed),
        inverse: INVERSE.load(Relaxed),
    }
}

#[inline]
pub(super) fn count_forward() {
    FORWARD.fetch_add(1, Relaxed);
}

#[inline]
pub(super) fn count_inverse() {
    INVERSE.fetch_add(1, Relaxed);
}
