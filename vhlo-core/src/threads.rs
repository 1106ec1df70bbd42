//! The helper threads of the library's threaded calls (`text::print_threaded*`, and the naming
//! beside the legalization in `portable::deserialize_portable_numbered`).

use std::thread::{Builder, Scope, ScopedJoinHandle};

/// Spawns `f` on a scoped thread that runs on another core than the caller's.
///
/// Linux often queues a new thread on its creator's core even when another core is idle, and
/// there it waits until the creator's time slice ends: 1.6 to 2.9 ms on average on a 2-core VM
/// after a phase of page faults, measured with a C test, against 0.05 ms otherwise. So the
/// creator yields its core once, and a thread that finds itself on it moves to another.
pub(crate) fn spawn_beside<'scope, 'env, T: Send + 'scope>(
    s: &'scope Scope<'scope, 'env>,
    builder: Builder,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<ScopedJoinHandle<'scope, T>> {
    let creator = core::current();
    let handle = builder.spawn_scoped(s, move || {
        core::leave(creator);
        f()
    })?;
    // A thread queued behind this one starts now (and moves itself); otherwise this returns
    // at once.
    std::thread::yield_now();
    Ok(handle)
}

#[cfg(target_os = "linux")]
mod core {
    /// The core the calling thread runs on.
    pub(super) fn current() -> Option<usize> {
        // SAFETY: sched_getcpu takes no arguments and only reads the calling thread's state.
        usize::try_from(unsafe { libc::sched_getcpu() }).ok()
    }

    /// Moves the calling thread off `core` if it runs there, then lets it run anywhere it
    /// could before. Does nothing when the thread may run on that core alone.
    pub(super) fn leave(core: Option<usize>) {
        let Some(core) = core.filter(|&c| current() == Some(c)) else {
            return;
        };
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // A set holds `8 * size` cores (1,024); a core past them cannot be left out of one.
        if core >= 8 * size {
            return;
        }
        // SAFETY: an all-zero cpu_set_t is a valid (empty) set.
        let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: pid 0 is the calling thread; the pointer and size are those of a live set.
        if unsafe { libc::sched_getaffinity(0, size, &mut allowed) } != 0 {
            return;
        }
        let mut elsewhere = allowed;
        // SAFETY: `core` is within the set (checked above); both read or write a live set.
        let others = unsafe {
            libc::CPU_CLR(core, &mut elsewhere);
            libc::CPU_COUNT(&elsewhere)
        };
        if others == 0 {
            return;
        }
        // SAFETY: as above, for sets that live across the calls.
        unsafe {
            if libc::sched_setaffinity(0, size, &elsewhere) == 0 {
                libc::sched_setaffinity(0, size, &allowed);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod core {
    pub(super) fn current() -> Option<usize> {
        None
    }

    pub(super) fn leave(_: Option<usize>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cores the calling thread may run on, as Linux lists them.
    #[cfg(target_os = "linux")]
    fn allowed_cores() -> String {
        let status = std::fs::read_to_string("/proc/thread-self/status").expect("status");
        let line = status.lines().find(|l| l.starts_with("Cpus_allowed_list:"));
        line.expect("Cpus_allowed_list").to_string()
    }

    /// A thread spawned beside runs its closure; one that moves off its core may afterwards
    /// run on every core it could before.
    #[test]
    fn a_thread_beside_runs_and_keeps_its_cores() {
        let got = std::thread::scope(|s| {
            let handle = spawn_beside(s, Builder::new(), || 6 * 7).expect("spawn");
            handle.join().expect("join")
        });
        assert_eq!(got, 42);
        #[cfg(target_os = "linux")]
        {
            let before = allowed_cores();
            let here = core::current();
            assert!(here.is_some(), "sched_getcpu failed");
            core::leave(here);
            assert_eq!(allowed_cores(), before);
        }
    }
}
