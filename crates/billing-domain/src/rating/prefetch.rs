//! A cache hint for the trie walk: the one place the workspace allows `unsafe`
//! (`cargo xtask lint` checks that no other file does; see docs/ARCHITECTURE.md).

/// Asks the CPU to start loading the cache line that holds `address` into its caches.
/// It changes nothing a program can observe, only when later loads of that line complete;
/// a no-op on targets other than x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: `prefetcht0` is a hint: it never faults, reads nothing into registers and writes
    // no memory, whatever the address, and SSE is part of baseline x86-64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
