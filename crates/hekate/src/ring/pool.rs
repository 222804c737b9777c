//! Recycled word buffers for polynomials and the temporaries of hot paths.
//!
//! Key switching at N = 2^16 allocates and frees on the order of 100 MiB of temporaries
//! per operation; fresh large allocations come from the kernel as zeroed pages, and the page
//! faults alone cost a noticeable share of the operation. The pool hands buffers back out
//! instead. Its buffers are [`AlignedWords`] (64-byte aligned, for the SIMD kernels), safe
//! to take, fill and drop. There is one pool per process ([`global`]); a
//! [`Poly`](super::Poly) gives its buffer back when dropped (if it is large enough to be
//! worth it), so results a caller drops are reused too.
//! Buffers that held secret material never come back here: their owners zeroize them and
//! free them ([`Poly::discard_secret`](super::Poly::discard_secret)). In debug builds the
//! pool fills every buffer it hands out again with [`CANARY`], so code that reads a buffer
//! before writing it fails the tests.

use crate::math::memory::AlignedWords;
use std::sync::Mutex;

/// The most memory the pool keeps for reuse (beyond it, recycled buffers are freed).
const MAX_POOLED_WORDS: usize = 1 << 27; // 1 GiB

/// Buffers smaller than this (in words) are not worth pooling: the allocator serves them
/// from its own free lists without page faults.
pub const MIN_POOLED_WORDS: usize = 1 << 14;

/// What debug builds fill recycled buffers with (not a residue of any modulus hekate
/// accepts, so arithmetic on it shows up).
#[cfg(debug_assertions)]
pub const CANARY: u64 = 0xDEAD_BEEF_DEAD_BEEF;

/// The process-wide pool.
pub fn global() -> &'static BufferPool {
    static POOL: BufferPool = BufferPool {
        bufs: Mutex::new(Vec::new()),
    };
    &POOL
}

/// A pool of word buffers.
#[derive(Debug, Default)]
pub struct BufferPool {
    bufs: Mutex<Vec<AlignedWords>>,
}

impl BufferPool {
    /// A buffer of length `len` whose contents are **unspecified** (stale data from an
    /// earlier use, or zeros): callers overwrite it completely.
    pub fn take(&self, len: usize) -> AlignedWords {
        let found = {
            let mut bufs = self.bufs.lock().expect("buffer pool poisoned");
            // Best fit: the smallest buffer already long enough (no zero-fill needed), else
            // the smallest with enough capacity.
            let long_enough = bufs
                .iter()
                .enumerate()
                .filter(|(_, b)| b.len() >= len)
                .min_by_key(|(_, b)| b.len())
                .map(|(i, _)| i);
            let best = long_enough.or_else(|| {
                bufs.iter()
                    .enumerate()
                    .filter(|(_, b)| b.capacity() >= len)
                    .min_by_key(|(_, b)| b.capacity())
                    .map(|(i, _)| i)
            });
            best.map(|i| bufs.swap_remove(i))
        };
        match found {
            Some(mut b) => {
                if b.len() >= len {
                    b.truncate(len);
                } else {
                    b.resize(len);
                }
                // Debug builds poison recycled buffers, so a read before write shows up in
                // the tests instead of leaking an earlier user's data.
                #[cfg(debug_assertions)]
                b.fill(CANARY);
                b
            }
            None => AlignedWords::zeroed(len),
        }
    }

    /// A zeroed buffer of length `len`.
    pub fn take_zeroed(&self, len: usize) -> AlignedWords {
        let mut b = self.take(len);
        b.fill(0);
        b
    }

    /// Fills the pool, up to its cap (1 GiB, counting the buffers it already holds), with
    /// buffers of `len` words whose pages are written once, so that the operations that
    /// follow find their scratch memory mapped instead of page-faulting it in (fresh large
    /// allocations are zero pages the kernel maps on first write). A
    /// [`Bootstrapper`](crate::ckks::bootstrap::Bootstrapper) reserves its polynomials'
    /// size when it is built, which takes the first bootstrap's page faults (a few hundred
    /// thousand at `N = 2^16`) into the setup. Returns the buffers added.
    pub fn reserve(&self, len: usize) -> usize {
        self.reserve_up_to(len, MAX_POOLED_WORDS)
    }

    /// [`BufferPool::reserve`] up to `limit` words held (at most the cap).
    fn reserve_up_to(&self, len: usize, limit: usize) -> usize {
        if len < MIN_POOLED_WORDS {
            return 0;
        }
        let held: usize = {
            let bufs = self.bufs.lock().expect("buffer pool poisoned");
            bufs.iter().map(|b| b.capacity()).sum()
        };
        let count = limit.min(MAX_POOLED_WORDS).saturating_sub(held) / len;
        for _ in 0..count {
            // Written now: mapped, where `AlignedWords::zeroed` would leave the kernel's
            // zero pages to be faulted in at first use. (Transparent huge pages,
            // `math::memory::huge_page_vec`, were measured slower here: key generation
            // 5.2 -> 9.5 s and setup 7.2 -> 9.3 s at `lattigo-dense0` with THP in
            // `madvise` mode, the bootstraps unchanged.)
            let b = AlignedWords::touched(len);
            self.recycle(b);
        }
        count
    }

    /// Whether any buffer the pool holds satisfies `f` (tests of secret hygiene).
    #[cfg(test)]
    pub(crate) fn any_buffer(&self, f: impl Fn(&[u64]) -> bool) -> bool {
        let bufs = self.bufs.lock().expect("buffer pool poisoned");
        bufs.iter().any(|b| f(b))
    }

    /// Returns a buffer for reuse.
    pub fn recycle(&self, buf: AlignedWords) {
        if buf.capacity() < MIN_POOLED_WORDS {
            return;
        }
        let mut bufs = self.bufs.lock().expect("buffer pool poisoned");
        let held: usize = bufs.iter().map(|b| b.capacity()).sum();
        if held + buf.capacity() <= MAX_POOLED_WORDS {
            bufs.push(buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserve_fills_to_the_limit_once_and_take_uses_it() {
        let pool = BufferPool::default();
        let len = MIN_POOLED_WORDS;
        assert_eq!(
            pool.reserve_up_to(len - 1, 1 << 20),
            0,
            "small buffers are not pooled"
        );
        assert_eq!(pool.reserve_up_to(len, 4 * len + 7), 4);
        assert_eq!(pool.reserve_up_to(len, 4 * len + 7), 0, "already held");
        let held = |p: &BufferPool| p.bufs.lock().unwrap().len();
        assert_eq!(held(&pool), 4);
        let b = pool.take(len / 2 + MIN_POOLED_WORDS / 4);
        assert_eq!(held(&pool), 3, "taken from the reserve");
        assert!(b.capacity() >= len);
        pool.recycle(b);
        assert_eq!(held(&pool), 4);
    }
}
