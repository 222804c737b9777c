//! Reading any object under `ReadPolicy::max_alloc_bytes = L` never makes the live heap
//! grow by more than `L + SLACK` (issue 16, "memory"): a counting global allocator records
//! the peak of live bytes (all threads, so the tests of this file hold one lock and run
//! one at a time) during each read, from a baseline taken just before it.
//!
//! For every reader (`tests/readers`: ring-level, CKKS with hybrid and KLSS keys, FHEW,
//! threshold FHEW), valid bytes and hostile bytes (every `u16`/`u32` field of the first
//! bytes of the body set to its maximum, and headers claiming the largest dimensions the
//! format allows) are read under several `L`; valid bytes must decode under the default
//! limit, and the smallest `L` a valid object needs must be within a small factor of what
//! its read really allocates (the charges are not wildly pessimistic).

mod common;
mod readers;

use hekate::fhew::params::{self, FhewParams};
use hekate::fhew::{FhewContext, LweKeySwitchKey};
use hekate::math::is_prime;
use hekate::params::SecurityLevel;
use hekate::serialize::{
    fhew_fingerprint, ring_fingerprint, Deserialize, ReadPolicy, Serialize, Writer, HEADER_LEN,
};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// What a read may allocate beyond its limit: error messages, the header, a scale
/// (at most 2 x 2 KiB), a `B_g` schedule, small vectors of handles.
const SLACK: usize = 64 << 10;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are updated.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // The old and the new block may both be live during the copy.
            grow(new_size);
            LIVE.fetch_sub(layout.size(), Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One test at a time: the counters see every thread.
static LOCK: Mutex<()> = Mutex::new(());

/// Runs `f` and returns its result and the peak growth of the live heap during it.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed).saturating_sub(base))
}

const LIMITS: [u64; 5] = [0, 16 << 10, 256 << 10, 4 << 20, 64 << 20];

/// Reads `bytes` with `decode` under every limit of [`LIMITS`] and checks the peak.
fn check_limits(what: &str, bytes: &[u8], decode: &dyn Fn(&[u8], &ReadPolicy) -> bool) {
    for l in LIMITS {
        let (ok, peak) = peak_of(|| decode(bytes, &readers::policy(l)));
        assert!(
            peak <= l as usize + SLACK,
            "{what} ({} bytes) under a limit of {l} bytes: peak {peak} bytes ({})",
            bytes.len(),
            if ok { "accepted" } else { "refused" }
        );
    }
}

/// `bytes` with the `u16` or `u32` at body offset `k` set to its maximum, for the first
/// 24 offsets of the body.
fn huge_fields(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for k in HEADER_LEN..(HEADER_LEN + 24).min(bytes.len()) {
        for w in [2, 4] {
            if k + w <= bytes.len() {
                let mut m = bytes.to_vec();
                m[k..k + w].fill(0xff);
                out.push(m);
            }
        }
    }
    out
}

#[test]
fn every_reader_stays_within_its_limit() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let targets = readers::all();
    // Warm up lazily initialized state (thread pools, caches) outside the measurements.
    for t in &targets {
        for (_, b) in &t.seeds {
            t.decode(b, &readers::policy(ReadPolicy::DEFAULT_MAX_ALLOC))
                .ok();
        }
    }
    for t in &targets {
        let decode = |b: &[u8], p: &ReadPolicy| t.decode(b, p).is_ok();
        for (stem, bytes) in &t.seeds {
            let what = format!("{}/{stem}", t.name);
            // Valid bytes decode under the default limit, and need no more than a small
            // multiple of what their read really allocates.
            let (ok, peak) =
                peak_of(|| decode(bytes, &readers::policy(ReadPolicy::DEFAULT_MAX_ALLOC)));
            assert!(ok, "{what} does not decode under the default limit");
            let (mut lo, mut hi) = (0u64, ReadPolicy::DEFAULT_MAX_ALLOC);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if decode(bytes, &readers::policy(mid)) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            println!(
                "{what:<48} {:>9} bytes in, needs a limit of {lo:>10}, allocates {peak:>10}",
                bytes.len()
            );
            assert!(
                lo as usize <= 4 * peak + (1 << 20),
                "{what}: needs a limit of {lo} bytes but allocates only {peak}"
            );
            check_limits(&what, bytes, &decode);
            // And exactly at the smallest limit that accepts it.
            let (_, peak) = peak_of(|| decode(bytes, &readers::policy(lo)));
            assert!(
                peak <= lo as usize + SLACK,
                "{what}: peak {peak} bytes under its smallest accepted limit {lo}"
            );
            for (i, m) in huge_fields(bytes).iter().enumerate() {
                check_limits(&format!("{what} with huge field {i}"), m, &decode);
            }
        }
        for (i, v) in t.variants.iter().enumerate() {
            check_limits(&format!("{} variant {i}", t.name), v, &decode);
        }
    }
}

/// The largest CKKS parameters the format accepts: `N = 2^17` with 256 + 256 distinct
/// primes `= 1 mod 2N` below `2^62` (about 4 KiB of input for about 4 GiB of tables).
fn huge_ckks_parameters() -> Vec<u8> {
    let n = 1u64 << 17;
    let mut primes = Vec::new();
    let mut q = (1u64 << 61) + 1;
    while primes.len() < 512 {
        q -= 2 * n;
        if is_prime(q) {
            primes.push(q);
        }
    }
    let (qs, ps) = primes.split_at(256);
    let mut w = Writer::new();
    w.write_header(
        <hekate::ckks::CkksContext as Serialize>::TAG,
        ring_fingerprint(n as usize, qs, ps),
    );
    w.write_u32(n as u32);
    w.write_u16(256);
    w.write_u16(256);
    for p in &primes {
        w.write_u64(*p);
    }
    w.write_u16(1); // dnum
    w.write_u8(0); // ternary
    w.write_u8(3); // not checked
    for part in [&[0u8, 0, 0, 0x40][..], &[1]] {
        w.write_u16(part.len() as u16); // scale 2^30 / 1
        w.write_bytes(part);
    }
    w.write_u8(0); // hybrid
    w.write_u8(0); // expanded
    w.into_bytes()
}

#[test]
fn hostile_headers_claiming_the_largest_dimensions() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // CKKS parameters at the caps.
    let bytes = huge_ckks_parameters();
    assert!(bytes.len() < 5 << 10);
    let decode =
        |b: &[u8], p: &ReadPolicy| hekate::serialize::ckks_context_from_bytes_with(b, p).is_ok();
    check_limits("CKKS parameters at the caps", &bytes, &decode);

    // FHEW parameters at the caps (n = N = 2^12, q = 2N), as a context.
    let p = FhewParams {
        name: "caps",
        n: 1 << 12,
        big_n: 1 << 12,
        q: 1 << 13,
        bg_schedule: &[],
        ..params::TOY
    };
    let bytes = hekate::serialize::Serialize::to_bytes(&p, &()).unwrap();
    let decode =
        |b: &[u8], p: &ReadPolicy| hekate::serialize::fhew_context_from_bytes_with(b, p).is_ok();
    check_limits("FHEW parameters at the caps", &bytes, &decode);

    // A 16 KiB LWE key-switching key under parameters (built directly, not read) with
    // n = 2^16, N = 2^15, Q_ks = 2^2: 2^32 mask words from one seed.
    let p = FhewParams {
        name: "hostile",
        n: 1 << 16,
        big_n: 1 << 15,
        q: 1 << 16,
        log_q_ks: 2,
        log_b_ks: 1,
        bg_schedule: &[],
        ..params::TOY
    };
    let ctx = FhewContext::with_security(&p, SecurityLevel::NotChecked).unwrap();
    let mut w = Writer::new();
    w.write_header(LweKeySwitchKey::TAG, fhew_fingerprint(&p));
    w.write_u8(2);
    w.write_u8(1);
    w.write_u32(p.big_n as u32);
    w.write_u32(p.n as u32);
    w.write_bytes(&[7u8; 32]);
    w.write_bits(&vec![1u64; p.big_n * 2], 2);
    let bytes = w.into_bytes();
    let decode =
        |b: &[u8], pol: &ReadPolicy| LweKeySwitchKey::from_bytes_with(b, &ctx, pol).is_ok();
    check_limits("a 16 KiB LWE key-switching key", &bytes, &decode);
}
