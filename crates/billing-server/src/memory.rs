//! Memory given back to the system after bursts (docs/deploy.md "Memory after bursts").
//!
//! The body and answer budgets bound what requests hold at once. glibc's allocator keeps what
//! they freed for the next ones instead of returning it (freed blocks in the middle of its
//! heaps, and blocks it would have mapped on their own once a large one was freed), so without
//! help resident memory after a burst stays near the burst's peak. Once a second
//! [`give_back_after_bursts`]'s thread compares the resident memory with what the allocator has
//! handed out; when the difference, memory held free, has grown by [`GIVE_BACK_AFTER_BYTES`]
//! since it was last looked at, it calls `malloc_trim(0)`, which returns the free pages of every
//! arena. Steady traffic reuses what it frees and never crosses the threshold, so the trim runs
//! after bursts only. Other allocators and systems: nothing to do, nothing runs.

use std::time::Duration;

/// How much more memory held free than the least seen since the last give-back starts one.
pub const GIVE_BACK_AFTER_BYTES: u64 = 16 << 20;

/// How often the thread looks.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// Starts the thread that gives memory back after bursts (glibc on Linux; elsewhere nothing).
pub fn give_back_after_bursts() {
    if held_free_bytes().is_none() {
        return;
    }
    let started = std::thread::Builder::new()
        .name("memory-give-back".to_owned())
        .spawn(watch);
    if let Err(error) = started {
        tracing::warn!(%error, "memory is not given back after bursts: no thread");
    }
}

fn watch() {
    let mut least = u64::MAX;
    loop {
        std::thread::sleep(LOOK_EVERY);
        let Some(held) = held_free_bytes() else {
            return;
        };
        least = least.min(held);
        if held > least.saturating_add(GIVE_BACK_AFTER_BYTES) {
            let given_back = give_back_now();
            tracing::debug!(
                held_free_mib = held >> 20,
                given_back_mib = given_back >> 20,
                "gave memory back after a burst"
            );
            // What could not be given back (free blocks smaller than a page) is the new floor.
            least = held_free_bytes().unwrap_or(0);
        }
    }
}

/// Returns the allocator's free pages to the system now; the resident bytes it gave back.
pub fn give_back_now() -> u64 {
    let before = resident_bytes().unwrap_or(0);
    glibc::trim();
    before.saturating_sub(resident_bytes().unwrap_or(0))
}

/// Resident memory the allocator holds free: resident bytes less what it has handed out.
/// `None` where that cannot be known (not glibc on Linux).
pub fn held_free_bytes() -> Option<u64> {
    let handed_out = glibc::handed_out_bytes()?;
    Some(resident_bytes()?.saturating_sub(handed_out))
}

/// The process's resident memory, from `/proc/self/statm`.
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * glibc::page_bytes()?)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
mod glibc {
    /// Bytes in use in the allocator's arenas and in its own mappings (`mallinfo2`).
    pub fn handed_out_bytes() -> Option<u64> {
        // SAFETY: `mallinfo2` takes no argument and returns a plain struct; it locks each arena
        // while it counts.
        let info = unsafe { libc::mallinfo2() };
        Some((info.uordblks as u64).saturating_add(info.hblkhd as u64))
    }

    pub fn trim() {
        // SAFETY: `malloc_trim` only returns free memory to the system; any thread may call it.
        unsafe {
            libc::malloc_trim(0);
        }
    }

    pub fn page_bytes() -> Option<u64> {
        // SAFETY: `sysconf` reads a configuration value.
        let bytes = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(bytes).ok().filter(|bytes| *bytes > 0)
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod glibc {
    pub fn handed_out_bytes() -> Option<u64> {
        None
    }

    pub fn trim() {}

    pub fn page_bytes() -> Option<u64> {
        None
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// 64 MiB freed in blocks that cannot merge (a live block sits between any two) is held
    /// free until given back, and giving back returns nearly all of it.
    ///
    /// The live blocks are as large as the freed ones: small ones could be served from small
    /// free chunks elsewhere in the arena (other tests run in this process), leaving the freed
    /// blocks side by side to merge with the arena's top and be trimmed by `free` itself (which
    /// is how this test once failed in CI, "9 MiB before freeing, 9 MiB after").
    #[test]
    fn memory_freed_between_live_blocks_is_held_until_given_back() {
        const BLOCKS: usize = 1024;
        let mut freed = Vec::with_capacity(BLOCKS);
        let mut kept = Vec::with_capacity(BLOCKS);
        for index in 0..BLOCKS {
            freed.push(vec![index as u8 | 1; 64 << 10]);
            kept.push(vec![index as u8 | 1; 64 << 10]);
        }
        let before = held_free_bytes().expect("glibc on Linux");
        drop(freed);
        let held = held_free_bytes().expect("glibc on Linux");
        assert!(
            held >= before + (48 << 20),
            "held free: {} MiB before freeing, {} MiB after",
            before >> 20,
            held >> 20
        );
        let given_back = give_back_now();
        let after = held_free_bytes().expect("glibc on Linux");
        assert!(
            given_back >= 40 << 20 && after + (40 << 20) <= held,
            "gave back {} MiB; held free {} MiB before, {} MiB after",
            given_back >> 20,
            held >> 20,
            after >> 20
        );
        assert_eq!(kept.len(), BLOCKS);
    }
}
