//! Memory placement for tables read at random: huge-page backing and software prefetch.
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
