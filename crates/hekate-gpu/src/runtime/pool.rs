//! The device memory a [`Gpu`](super::Gpu) keeps for reuse (a caching allocator).
//!
//! A circuit allocates and frees the same few buffer lengths over and over (a bootstrap at
//! `N = 2^12` made 2,576 allocations of about a dozen lengths, one per 1.6 launches): each
//! is a driver call to allocate (`cuMemAllocAsync`, `clCreateBuffer`) and one to free, host
//! time that a device bound by host time per launch pays in full. A [`Buffer`](super::Buffer)
//! dropped by its owner comes here instead, filed by its length in words, and the next
//! allocation of that length takes it back without a driver call.
//!
//! Reuse is safe because every operation runs in order on the device's one stream or queue:
//! the work that read or wrote a buffer before it was dropped is queued before any work of
//! its next owner. Debug builds still fill a reused buffer with the poison pattern, as a
//! fresh one, so reading a word nobody wrote breaks the parity tests either way.
//!
//! The pool holds at most `cap` words of idle buffers (beyond it, dropped buffers are freed):
//! `HEKATE_GPU_POOL` sets the cap in MiB (`0` or `off` turns pooling off), by default an
//! eighth of the device's memory. An allocation the driver refuses empties the pool and is
//! tried once more; [`Gpu::trim`](super::Gpu::trim) empties it on request.

use std::collections::HashMap;
use std::sync::Mutex;

/// Idle buffers by length in words, and their total.
struct State<T> {
    free: HashMap<usize, Vec<T>>,
    words: usize,
}

/// See the module documentation; `T` is the runtime's buffer.
pub(crate) struct Pool<T> {
    state: Mutex<State<T>>,
    /// The most idle words kept; 0 keeps none.
    cap: usize,
}

impl<T> Pool<T> {
    /// A pool keeping at most `cap` idle words.
    pub(crate) fn new(cap: usize) -> Self {
        Pool {
            state: Mutex::new(State {
                free: HashMap::new(),
                words: 0,
            }),
            cap,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An idle buffer of exactly `words` words, if one is kept.
    pub(crate) fn take(&self, words: usize) -> Option<T> {
        if self.cap == 0 {
            return None;
        }
        let mut s = self.lock();
        let inner = s.free.get_mut(&words)?.pop()?;
        s.words -= words;
        Some(inner)
    }

    /// Keeps `inner` (of `words` words) for reuse, or hands it back to be freed when that
    /// would exceed the cap.
    pub(crate) fn give(&self, words: usize, inner: T) -> Option<T> {
        let mut s = self.lock();
        if s.words + words > self.cap {
            return Some(inner);
        }
        s.words += words;
        s.free.entry(words).or_default().push(inner);
        None
    }

    /// Takes every idle buffer out (the caller frees them, outside the lock).
    pub(crate) fn drain(&self) -> Vec<T> {
        let mut s = self.lock();
        s.words = 0;
        s.free.drain().flat_map(|(_, v)| v).collect()
    }

    /// Idle words kept.
    pub(crate) fn words(&self) -> usize {
        self.lock().words
    }
}

/// The cap for a device of `memory_bytes`: `HEKATE_GPU_POOL` (MiB; `0` / `off`: none)
/// or an eighth of the device's memory.
pub(crate) fn cap_from_env(memory_bytes: u64) -> usize {
    cap_of(
        std::env::var("HEKATE_GPU_POOL").ok().as_deref(),
        memory_bytes,
    )
}

/// [`cap_from_env`] for the variable's value `var`.
fn cap_of(var: Option<&str>, memory_bytes: u64) -> usize {
    let default = (memory_bytes / 8 / 8) as usize;
    match var.map(str::trim) {
        Some(v) if v.eq_ignore_ascii_case("off") => 0,
        Some(v) => v
            .parse::<usize>()
            .map_or(default, |mib| mib.saturating_mul(1 << 17)),
        None => default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_buffers_by_length_up_to_the_cap() {
        let pool = Pool::<&str>::new(100);
        assert_eq!(pool.take(10), None);
        assert_eq!(pool.give(10, "a"), None);
        assert_eq!(pool.give(10, "b"), None);
        assert_eq!(pool.give(70, "c"), None);
        assert_eq!(pool.words(), 90);
        // Over the cap: handed back to be freed.
        assert_eq!(pool.give(11, "d"), Some("d"));
        assert_eq!(pool.take(11), None);
        assert_eq!(pool.take(10), Some("b"));
        assert_eq!(pool.words(), 80);
        let mut rest = pool.drain();
        rest.sort();
        assert_eq!(rest, ["a", "c"]);
        assert_eq!((pool.words(), pool.take(10)), (0, None));
        // Cap 0: nothing is kept.
        let off = Pool::<u8>::new(0);
        assert_eq!(off.give(1, 7), Some(7));
        assert_eq!(off.take(1), None);
    }

    #[test]
    fn the_cap_is_read_in_mib() {
        let gib = 1u64 << 30;
        assert_eq!(cap_of(None, 8 * gib), (gib / 8) as usize);
        assert_eq!(cap_of(Some(" 64 "), gib), 64 << 17);
        assert_eq!(cap_of(Some("0"), gib), 0);
        assert_eq!(cap_of(Some("OFF"), gib), 0);
        assert_eq!(cap_of(Some("lots"), 8 * gib), (gib / 8) as usize);
    }
}
