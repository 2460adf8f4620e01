//! Fresh output memory for large decoded arrays.
//!
//! A decode into new arrays spends most of its time in the kernel: every 4 KiB
//! page of output is faulted in and zeroed on first write. Transparent huge
//! pages cut the faults 512-fold. Linux hands them out where a range asks for
//! them (`madvise(MADV_HUGEPAGE)`, the usual `transparent_hugepage=madvise`
//! setting), and the ask is only advice: where none are free, the range gets
//! ordinary pages. Measured in BENCHMARKS.md ("Decode speed").

use std::mem::MaybeUninit;

/// Arrays smaller than this are left alone: a huge page is 2 MiB, and small
/// allocations come from the heap, whose pages are usually faulted in already.
#[cfg(target_os = "linux")]
const MIN_BYTES: usize = 4 << 20;

/// Asks for huge pages under `spare`, newly allocated and not yet written.
#[cfg(target_os = "linux")]
pub(super) fn advise_huge_pages<T>(spare: &mut [MaybeUninit<T>]) {
    let bytes = std::mem::size_of_val(spare);
    if bytes < MIN_BYTES {
        return;
    }
    const PAGE: usize = 4096;
    let start = (spare.as_mut_ptr() as usize).next_multiple_of(PAGE);
    let end = (spare.as_mut_ptr() as usize + bytes) & !(PAGE - 1);
    if end > start {
        // SAFETY: the page-aligned range lies inside `spare`, which this caller
        // owns exclusively; MADV_HUGEPAGE changes how its pages are backed, not
        // what they hold (nothing has been written yet), and failure is harmless.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// Elsewhere there is nothing to ask.
#[cfg(not(target_os = "linux"))]
pub(super) fn advise_huge_pages<T>(_spare: &mut [MaybeUninit<T>]) {}
