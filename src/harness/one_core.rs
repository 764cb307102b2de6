//! A session kept on one core: the harness thread and the engine's threads hand each line to
//! one another, and a hand-off to a thread on another core costs a cross-core wake-up (an
//! interrupt, and on a virtual machine an exit to the hypervisor) that a session of a
//! millisecond pays dozens of times. On one core it is a context switch.

/// The calling thread restricted to the core it runs on, until dropped; threads it starts
/// meanwhile inherit the restriction for their whole life.
pub struct OneCore {
    #[cfg(target_os = "linux")]
    previous: libc::cpu_set_t,
}

impl OneCore {
    /// Restricts the calling thread to its current core; `None` (nothing changed) where the
    /// platform or the process does not allow it.
    #[cfg(target_os = "linux")]
    pub fn enter() -> Option<OneCore> {
        let size = size_of::<libc::cpu_set_t>();
        // SAFETY: the sets are plain bit arrays of `size` bytes, written by the calls given them.
        unsafe {
            let mut previous: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut previous) != 0 {
                return None;
            }
            let cpu = usize::try_from(libc::sched_getcpu())
                .ok()
                .filter(|&cpu| cpu < libc::CPU_SETSIZE as usize)?;
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut one);
            (libc::sched_setaffinity(0, size, &one) == 0).then_some(OneCore { previous })
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn enter() -> Option<OneCore> {
        None
    }
}

impl Drop for OneCore {
    fn drop(&mut self) {
        // SAFETY: `previous` is the set `sched_getaffinity` filled.
        #[cfg(target_os = "linux")]
        unsafe {
            libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &self.previous);
        }
    }
}
