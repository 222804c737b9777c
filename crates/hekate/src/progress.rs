//! Progress reports from long calls: a hook the caller implements, with a no-op default.
//!
//! Key generation can take seconds (an FHEW bootstrapping key at `OPENFHE_STD128_LMKCDEY`,
//! a large Galois key set) to minutes. The `_with_progress` variants of those calls take a
//! [`Progress`] and report their work in units through it:
//!
//! * [`RlweParameters::generate_galois_keys_at_with_progress`](crate::rlwe::RlweParameters::generate_galois_keys_at_with_progress),
//!   [`CkksContext::generate_galois_keys_with_progress`](crate::ckks::CkksContext::generate_galois_keys_with_progress)
//!   and [`IntegerContext::generate_galois_keys_with_progress`](crate::rlwe::integer::IntegerContext::generate_galois_keys_with_progress):
//!   one unit per Galois key;
//! * [`FhewContext::generate_bootstrap_key_with_progress`](crate::fhew::FhewContext::generate_bootstrap_key_with_progress):
//!   one unit per blind-rotation key (RGSW or RLWE' ciphertext), per automorphism key, for
//!   `RLWE'(z^2)`, and one for the LWE key-switching key.
//!
//! (CKKS bootstrapping keys report through the closure of
//! [`ckks::bootstrap::generate_keys_with`](crate::ckks::bootstrap::generate_keys_with).)
//!
//! A call first announces its total ([`Progress::start`]), then reports finished units
//! ([`Progress::inc`]) from the thread that called it, and calls [`Progress::finish`] when
//! it succeeds; a call that fails returns its error without `finish`. The reports do not
//! change what is computed: the variants without progress call the same code with
//! [`NoProgress`], and give the same keys for the same random generator.
//!
//! ```
//! use hekate::progress::Progress;
//! use std::sync::atomic::{AtomicU64, Ordering};
//!
//! /// Counts the units reported.
//! #[derive(Default)]
//! struct Count(AtomicU64);
//! impl Progress for Count {
//!     fn inc(&self, delta: u64) {
//!         self.0.fetch_add(delta, Ordering::Relaxed);
//!     }
//! }
//!
//! use hekate::prelude::*;
//! use hekate::params::ckks::PN12QP109;
//! let ctx = CkksContext::from_preset(&PN12QP109)?;
//! let sk = ctx.generate_secret_key();
//! let count = Count::default();
//! let mut rng = hekate::math::sample::os_rng();
//! let keys = ctx.generate_galois_keys_with_progress(&sk, &[1, 2, 4], false, &mut rng, &count);
//! assert_eq!((keys.len(), count.0.into_inner()), (3, 3));
//! # Ok::<(), hekate::Error>(())
//! ```

/// Receives the progress of a long call. Every method does nothing by default, so an
/// implementation overrides only what it needs.
pub trait Progress {
    /// The call starts `total` units of work (it may call `start` again to restart with a
    /// new total).
    fn start(&self, total: u64) {
        let _ = total;
    }

    /// `delta` more units are done.
    fn inc(&self, delta: u64) {
        let _ = delta;
    }

    /// The call has finished all its units.
    fn finish(&self) {}
}

/// A [`Progress`] that reports nothing: what the variants without progress pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoProgress;

impl Progress for NoProgress {}

impl<P: Progress + ?Sized> Progress for &P {
    fn start(&self, total: u64) {
        (**self).start(total);
    }

    fn inc(&self, delta: u64) {
        (**self).inc(delta);
    }

    fn finish(&self) {
        (**self).finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Records every call.
    #[derive(Default)]
    pub(crate) struct Recorder(pub(crate) Mutex<Vec<String>>);

    impl Progress for Recorder {
        fn start(&self, total: u64) {
            self.0.lock().unwrap().push(format!("start {total}"));
        }
        fn inc(&self, delta: u64) {
            self.0.lock().unwrap().push(format!("inc {delta}"));
        }
        fn finish(&self) {
            self.0.lock().unwrap().push("finish".into());
        }
    }

    #[test]
    fn defaults_do_nothing_and_references_forward() {
        let none = NoProgress;
        none.start(3);
        none.inc(1);
        none.finish();
        let r = Recorder::default();
        let by_ref: &dyn Progress = &&r;
        by_ref.start(2);
        by_ref.inc(1);
        by_ref.finish();
        assert_eq!(*r.0.lock().unwrap(), ["start 2", "inc 1", "finish"]);
    }

    /// Galois keys: one unit per distinct element, the same keys as without progress.
    #[test]
    fn galois_keys_report_one_unit_per_key() {
        use crate::ckks::CkksParameters;
        use rand_chacha::rand_core::SeedableRng;
        use rand_chacha::ChaCha20Rng;
        let ctx = CkksParameters::new(12)
            .log_q(&[35, 30])
            .log_p(&[40])
            .build()
            .unwrap();
        let sk = ctx.generate_secret_key_with(&mut ChaCha20Rng::seed_from_u64(1));
        let r = Recorder::default();
        let with = ctx.generate_galois_keys_with_progress(
            &sk,
            &[1, 2, 1, -1],
            true,
            &mut ChaCha20Rng::seed_from_u64(2),
            &r,
        );
        let without = ctx.generate_galois_keys_with(
            &sk,
            &[1, 2, 1, -1],
            true,
            &mut ChaCha20Rng::seed_from_u64(2),
        );
        assert_eq!(with, without);
        assert_eq!(with.len(), 4);
        let calls = r.0.lock().unwrap();
        assert_eq!(calls.first().map(String::as_str), Some("start 4"));
        assert_eq!(calls.iter().filter(|c| *c == "inc 1").count(), 4);
        assert_eq!(calls.last().map(String::as_str), Some("finish"));
    }

    /// FHEW bootstrapping keys: the announced total is what is reported, and the key is
    /// the one generated without progress.
    #[test]
    fn fhew_bootstrap_key_reports_its_total() {
        use crate::fhew::params::{Method, MethodConfig, TOY};
        use crate::fhew::FhewContext;
        use crate::params::SecurityLevel;
        use rand_chacha::rand_core::SeedableRng;
        use rand_chacha::ChaCha20Rng;
        let ctx = FhewContext::with_security(&TOY, SecurityLevel::NotChecked).unwrap();
        let sk = ctx
            .generate_secret_key_with(&mut ChaCha20Rng::seed_from_u64(3))
            .unwrap();
        for cfg in [
            MethodConfig::new(Method::Ginx),
            MethodConfig::new(Method::LmkcdeyAllEven).with_alt_mult(true),
        ] {
            let r = Recorder::default();
            let with = ctx
                .generate_bootstrap_key_with_progress(
                    &sk,
                    cfg,
                    &mut ChaCha20Rng::seed_from_u64(4),
                    &r,
                )
                .unwrap();
            let without = ctx
                .generate_bootstrap_key_with(&sk, cfg, &mut ChaCha20Rng::seed_from_u64(4))
                .unwrap();
            assert_eq!(with.compressed_bytes(), without.compressed_bytes());
            assert_eq!(with.brk.rlwe_prime_count(), without.brk.rlwe_prime_count());
            let calls = r.0.lock().unwrap();
            let total: u64 = calls[0]
                .strip_prefix("start ")
                .and_then(|t| t.parse().ok())
                .expect("starts with the total");
            let done: u64 = calls
                .iter()
                .filter_map(|c| c.strip_prefix("inc ")?.parse::<u64>().ok())
                .sum();
            assert_eq!(done, total, "{}", cfg.label());
            assert!(total > TOY.n as u64, "{}", cfg.label());
            assert_eq!(calls.last().map(String::as_str), Some("finish"));
        }
    }
}
