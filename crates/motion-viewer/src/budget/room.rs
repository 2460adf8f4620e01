//! How much more memory this process can get: the room a large piece of
//! work (a MEMG fit) is compared with before it starts, so that work the
//! machine or the process's limits cannot hold is refused in one line
//! instead of ending in an allocation abort half-way.
//!
//! Three limits are read, and the smallest room wins:
//! - the address space (`ulimit -v`, `RLIMIT_AS`) less what the process
//!   already maps, less a reserve for the allocator's per-thread arenas
//!   (glibc reserves 64 MiB of address space for each thread that
//!   allocates; rayon's threads may not have made theirs yet);
//! - the data segment (`ulimit -d`, `RLIMIT_DATA`, which Linux applies to
//!   private writable mappings) less the process's data;
//! - the memory the system can still hand out without swapping out other
//!   work: `MemAvailable` and free swap (`/proc/meminfo`), and a cgroup v2
//!   memory limit less its usage (a container's own cap).
//!
//! The first two count a file mapped for reading too (the address space);
//! the last counts only memory that must be backed (a mapped input is paged
//! from its file). Elsewhere than on Linux nothing is known: no room is
//! given and only the documented caps apply.

/// Bytes of address space glibc reserves for each thread's arena.
#[cfg(target_os = "linux")]
const ARENA_RESERVE: u64 = 64 << 20;

/// The most arenas the reserve counts (glibc makes at most 8 per core on
/// 64-bit systems, but only threads that allocate make one).
#[cfg(target_os = "linux")]
const MAX_ARENAS: u64 = 8;

/// Which limit sets the room (only Linux says; elsewhere none is built).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) enum Limit {
    /// The address-space limit (`ulimit -v`).
    AddressSpace,
    /// The data-segment limit (`ulimit -d`).
    Data,
    /// The system's available memory and swap.
    System,
    /// The cgroup's memory limit.
    Cgroup,
}

impl Limit {
    /// The limit in words, for the refusal.
    pub(crate) fn words(self) -> &'static str {
        match self {
            Limit::AddressSpace => "its address-space limit, ulimit -v",
            Limit::Data => "its data limit, ulimit -d",
            Limit::System => "the system's available memory and swap",
            Limit::Cgroup => "its cgroup's memory limit",
        }
    }
}

/// The bytes this process can still allocate, and the limit that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Room {
    /// Bytes.
    pub bytes: u64,
    /// Which limit.
    pub limit: Limit,
}

/// The room for work of which `mapped` bytes are files mapped for reading
/// (they take address space, not memory): the smallest of the limits, each
/// stated against the whole work, so that the work fits when all it holds,
/// mapped or allocated, is at most `bytes`. `None` where no limit is known.
pub(crate) fn room_for(mapped: u64) -> Option<Room> {
    let process = process_limits();
    let system = system_room();
    let mut best: Option<Room> = None;
    let mut consider = |room: Option<(u64, Limit)>, counts_mapped: bool| {
        if let Some((bytes, limit)) = room {
            // Express every room against the whole work (mapped + allocated).
            let bytes = if counts_mapped {
                bytes
            } else {
                bytes.saturating_add(mapped)
            };
            if best.is_none_or(|b| bytes < b.bytes) {
                best = Some(Room { bytes, limit });
            }
        }
    };
    for room in process {
        consider(Some(room), true);
    }
    for room in system {
        consider(Some(room), false);
    }
    best
}

/// The rooms the process's own limits leave: address space and data.
#[cfg(target_os = "linux")]
fn process_limits() -> Vec<(u64, Limit)> {
    let threads = rayon::current_num_threads() as u64;
    let reserve = ARENA_RESERVE * (threads + 1).min(MAX_ARENAS);
    let Some([size, data]) = statm() else {
        return Vec::new();
    };
    let mut rooms = Vec::new();
    if let Some(cap) = rlimit(libc::RLIMIT_AS) {
        rooms.push((
            cap.saturating_sub(size).saturating_sub(reserve),
            Limit::AddressSpace,
        ));
    }
    if let Some(cap) = rlimit(libc::RLIMIT_DATA) {
        rooms.push((
            cap.saturating_sub(data).saturating_sub(reserve),
            Limit::Data,
        ));
    }
    rooms
}

#[cfg(not(target_os = "linux"))]
fn process_limits() -> Vec<(u64, Limit)> {
    Vec::new()
}

/// A resource's soft limit in bytes, `None` when unlimited.
#[cfg(target_os = "linux")]
fn rlimit(resource: libc::__rlimit_resource_t) -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    if unsafe { libc::getrlimit(resource, &mut limit) } != 0 {
        return None;
    }
    (limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// The process's mapped size and its data (`/proc/self/statm`'s first and
/// sixth fields), bytes.
#[cfg(target_os = "linux")]
fn statm() -> Option<[u64; 2]> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let fields: Vec<u64> = text
        .split_whitespace()
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    // SAFETY: sysconf reads a constant of the system.
    let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
    Some([fields.first()? * page, fields.get(5)? * page])
}

/// The rooms the system leaves: available memory and swap, and the
/// cgroup's limit.
#[cfg(target_os = "linux")]
fn system_room() -> Vec<(u64, Limit)> {
    let mut rooms = Vec::new();
    if let Ok(text) = std::fs::read_to_string("/proc/meminfo") {
        let field = |name: &str| -> Option<u64> {
            let line = text.lines().find(|l| l.starts_with(name))?;
            let kib: u64 = line[name.len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()?;
            Some(kib * 1024)
        };
        if let Some(available) = field("MemAvailable:") {
            let swap = field("SwapFree:").unwrap_or(0);
            rooms.push((available.saturating_add(swap), Limit::System));
        }
    }
    let read = |name: &str| {
        std::fs::read_to_string(format!("/sys/fs/cgroup/{name}"))
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok())
    };
    if let (Some(max), Some(current)) = (read("memory.max"), read("memory.current")) {
        rooms.push((max.saturating_sub(current), Limit::Cgroup));
    }
    rooms
}

#[cfg(not(target_os = "linux"))]
fn system_room() -> Vec<(u64, Limit)> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_room_is_no_more_than_the_system_has() {
        // MemAvailable + SwapFree, read independently of the module.
        let text = std::fs::read_to_string("/proc/meminfo").unwrap();
        let kib = |name: &str| -> u64 {
            let line = text.lines().find(|l| l.starts_with(name)).unwrap();
            line.split_whitespace().nth(1).unwrap().parse().unwrap()
        };
        let system = (kib("MemAvailable:") + kib("SwapFree:")) * 1024;
        let room = room_for(0).expect("Linux knows its available memory");
        // Memory moves between the two reads: within 256 MiB of it, or less.
        assert!(room.bytes <= system + (256 << 20), "{room:?} vs {system}");
        // A mapped file does not need available memory: the system's room
        // for it grows by its size (unless a process limit is smaller).
        let mapped = room_for(1 << 40).unwrap();
        assert!(mapped.bytes >= room.bytes);
    }
}
