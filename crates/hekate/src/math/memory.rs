//! Memory placement: cache-line-aligned word buffers ([`AlignedWords`], the storage of every
//! polynomial), and for tables read at random, huge-page backing and software prefetch.
//!
//! The FHEW LWE key-switching key (`fhew::lwe::LweKeySwitchKey`) is a table of
//! `N d_ks (B_ks - 1)` rows of `n` words (555 MiB at OpenFHE's STD128), of which a switch
//! reads `N d_ks` rows chosen by the input's digits. With 4 KiB pages nearly every row
//! read is a TLB miss and a cold start of the hardware prefetchers. Two remedies, each
//! measured on the switch alone (2-vCPU Sapphire Rapids, OpenFHE STD128, median of 500):
//! prefetching the rows a few ahead, 1.25 ms -> 0.90 ms; with the table also on
//! transparent huge pages, 0.67 ms.

/// A zeroed vector of `len` values whose pages the kernel is asked to back with
/// transparent huge pages (`madvise(MADV_HUGEPAGE)` on the 2 MiB-aligned part of the
/// allocation, before its first touch). Where huge pages are unavailable (other systems,
/// THP disabled, a failed call), it is an ordinary zeroed vector: the advice only affects
/// speed.
pub fn huge_page_vec<T: Copy + Default>(len: usize) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start + len * std::mem::size_of::<T>();
        let (lo, hi) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if hi > lo {
            // SAFETY: [lo, hi) lies inside the allocation just made, which this function
            // owns; MADV_HUGEPAGE changes no contents and cannot invalidate the mapping,
            // and its result is advisory (an error is ignored).
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    v.resize(len, T::default());
    v
}

/// Hints the CPU to bring `data` into the caches (every 64-byte line of it). No effect on
/// results; a no-op off x86-64.
#[inline(always)]
pub fn prefetch<T>(data: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = data.as_ptr() as *const i8;
        let bytes = std::mem::size_of_val(data);
        for off in (0..bytes).step_by(64) {
            // SAFETY: a prefetch never faults and reads nothing architecturally; the
            // addresses are inside `data`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.add(off)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}

/// One 64-byte cache line of words: the allocation unit of [`AlignedWords`].
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; WORDS_PER_LINE]);

/// Words in a [`Line`].
const WORDS_PER_LINE: usize = 8;

/// A growable buffer of `u64` words that starts on a 64-byte boundary: the storage of every
/// polynomial and pooled temporary (`ring::Poly`, the buffer pool).
///
/// **Why.** The SIMD kernels load and store 64 bytes at a time. A `Vec<u64>` is only
/// 8-byte aligned, and glibc serves large ones from `mmap` with a 16-byte header, so every
/// polynomial began 16 bytes past a cache line and every 64-byte access of it straddled two
/// lines. Measured (Zen 4, one thread, `bench bootstrap --presets P --reps R -q`, binaries
/// alternated): Set V (`N = 2^15`, `--input-level 0 --reps 5`) CoeffsToSlots 1,078-1,124 ->
/// 902-948 ms, SlotsToCoeffs 183-203 -> 158-170 ms, totals 1,738-1,926 -> 1,513-1,636 ms;
/// Set III (`N = 2^16`, `--reps 3`) unchanged (totals 5,445 / 5,542 against 5,518 / 5,495
/// ms: there the passes wait on memory, not on split lines). One limb's kernels alone, in
/// cache: 2-13% faster on 52-bit lanes, 1-2% on 64-bit ones.
///
/// The words live in a `Vec` of [`Line`]s (so allocation and deallocation use the same
/// 64-byte-aligned layout), of which the first `len` words are the buffer's contents.
#[derive(Clone, Default)]
pub struct AlignedWords {
    lines: Vec<Line>,
    len: usize,
}

impl AlignedWords {
    /// `len` zero words (fresh zeroed memory from the allocator: the kernel's zero pages
    /// until first written, as `vec![0; len]`).
    pub fn zeroed(len: usize) -> Self {
        let lines = len.div_ceil(WORDS_PER_LINE);
        let lines = if lines == 0 {
            Vec::new()
        } else {
            let layout = std::alloc::Layout::array::<Line>(lines).expect("buffer size overflow");
            // SAFETY: `layout` is non-zero-sized; the allocation is checked for failure; it
            // is exactly the layout `Vec<Line>` uses for capacity `lines` (size
            // `lines * 64`, alignment 64), so the `Vec` frees it with the same layout; all
            // `lines` elements are initialized (zero bytes are a valid `Line`).
            unsafe {
                let p = std::alloc::alloc_zeroed(layout) as *mut Line;
                if p.is_null() {
                    std::alloc::handle_alloc_error(layout);
                }
                Vec::from_raw_parts(p, lines, lines)
            }
        };
        Self { lines, len }
    }

    /// `len` zero words, every page written now (so first use faults nothing in).
    pub fn touched(len: usize) -> Self {
        Self {
            lines: vec![Line([0; WORDS_PER_LINE]); len.div_ceil(WORDS_PER_LINE)],
            len,
        }
    }

    /// A copy of `words`.
    pub fn from_slice(words: &[u64]) -> Self {
        let mut b = Self::zeroed(words.len());
        b.copy_from_slice(words);
        b
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The words it can hold without reallocating.
    pub fn capacity(&self) -> usize {
        self.lines.capacity() * WORDS_PER_LINE
    }

    /// Keeps the first `len` words (no effect if it holds fewer).
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Sets the length to `len`; words past the old length are zero.
    pub fn resize(&mut self, len: usize) {
        if len > self.len {
            // Words past `len` in the lines already initialized may be stale (a truncated
            // buffer): zero those in the new range; lines added now are zero.
            let initialized = self.lines.len() * WORDS_PER_LINE;
            let lines = len.div_ceil(WORDS_PER_LINE);
            if lines > self.lines.len() {
                self.lines.resize(lines, Line([0; WORDS_PER_LINE]));
            }
            let (old, stale_end) = (self.len, initialized.min(len));
            self.len = len;
            if stale_end > old {
                self[old..stale_end].fill(0);
            }
        } else {
            self.len = len;
        }
    }

    /// Sets every word, the unused capacity included, to zero (secret hygiene).
    pub fn zeroize_all(&mut self) {
        let cap = self.lines.capacity();
        self.lines.resize(cap, Line([0; WORDS_PER_LINE]));
        for line in self.lines.iter_mut() {
            // Volatile, so the compiler keeps the writes to memory about to be freed.
            // SAFETY: `line` is a valid, aligned, exclusive reference.
            unsafe { std::ptr::write_volatile(line, Line([0; WORDS_PER_LINE])) };
        }
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
    }
}

impl std::ops::Deref for AlignedWords {
    type Target = [u64];

    fn deref(&self) -> &[u64] {
        // SAFETY: `Line` is `repr(C)` over `[u64; 8]` (size 64, no padding), so the
        // initialized lines are `8 * lines.len() >= len` initialized, aligned words.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr() as *const u64, self.len) }
    }
}

impl std::ops::DerefMut for AlignedWords {
    fn deref_mut(&mut self) -> &mut [u64] {
        // SAFETY: as `deref`, with the exclusive borrow of `lines`.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr() as *mut u64, self.len) }
    }
}

impl FromIterator<u64> for AlignedWords {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        Self::from_slice(&iter.into_iter().collect::<Vec<u64>>())
    }
}

impl std::fmt::Debug for AlignedWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for AlignedWords {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for AlignedWords {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_words_start_on_a_line_and_keep_vec_semantics() {
        for len in [0, 1, 7, 8, 9, 1 << 14, (1 << 17) + 3] {
            for b in [AlignedWords::zeroed(len), AlignedWords::touched(len)] {
                assert_eq!(b.len(), len);
                assert!(b.iter().all(|&w| w == 0));
                if len > 0 {
                    assert_eq!(b.as_ptr() as usize % 64, 0, "len {len}");
                }
            }
        }
        let words: Vec<u64> = (1..=21).collect();
        let mut b = AlignedWords::from_slice(&words);
        assert_eq!(b.to_vec(), words);
        // Truncate then grow: the words past the cut read zero again, in the last line
        // in use and in the lines after it, as `Vec::truncate` then `resize(_, 0)`.
        b.truncate(5);
        assert_eq!(&b[..], &words[..5]);
        b.resize(30);
        let mut want = words[..5].to_vec();
        want.resize(30, 0);
        assert_eq!(b.to_vec(), want);
        b.truncate(50);
        assert_eq!(b.len(), 30, "truncate never grows");
        let cap = b.capacity();
        b[0] = 99;
        b.zeroize_all();
        assert!(b.iter().all(|&w| w == 0));
        assert_eq!(b.capacity(), cap);
        assert_eq!(AlignedWords::from_slice(&words).clone().to_vec(), words);
        assert_eq!(
            words.iter().copied().collect::<AlignedWords>().to_vec(),
            words
        );
    }
}
