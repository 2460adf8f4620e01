//! Input files read through a memory map that survive being changed under
//! the reader.
//!
//! A large MEMG motion (or any input of a megabyte or more) is read through
//! a memory map, from the page cache, with the pages dropped behind the
//! decoder (`formats::memg::decode_mmap`): gigabytes are never resident
//! twice. But a mapped file that another process truncates makes every read
//! of a page past its new end raise `SIGBUS`, which ends the process; cut
//! partway through a page, the rest of that page reads as zeros.
//!
//! A [`Mapping`] is registered, for as long as it lives, with a `SIGBUS`
//! handler this module installs once per process. For a fault inside a
//! registered mapping the handler maps a page of zeros over the page that
//! faulted and marks the mapping; the read goes on and sees zeros. Every
//! reader calls [`Mapping::check`] once it has read what it needs: it fails,
//! saying the file changed while it was read, when the mapping was marked or
//! the file's size or modification time differ from when it was opened —
//! so what a reader returns is the file as it was when opened, or that
//! error. A `SIGBUS` anywhere else goes on to the handler that was there
//! before (Rust's own, Python's `faulthandler`) or to the default action,
//! as if this module were not there.
//!
//! What it costs: nothing per read; one registration per map and one
//! `fstat` per check. Without Unix signals (other systems) the maps are
//! plain and [`Mapping::check`] compares the file's size and time only.

use crate::error::{Error, Result};
use memmap2::Mmap;
use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A read-only memory map of a whole file, registered with the `SIGBUS`
/// handler (see the module docs).
pub struct Mapping {
    map: Mmap,
    /// Its slot in the handler's table, if it got one.
    #[cfg_attr(not(unix), allow(dead_code))]
    slot: Option<usize>,
    /// Kept open: the size and time [`Mapping::check`] compares are read
    /// from the file as opened, not from whatever has its name now.
    file: File,
    opened: Stamp,
    path: PathBuf,
}

impl std::fmt::Debug for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mapping")
            .field("path", &self.path)
            .field("len", &self.map.len())
            .finish()
    }
}

/// What tells a file changed: its size, modification and change times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    changed: (i64, i64),
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

impl Mapping {
    /// Maps `file` (opened from `path`, `len` bytes, not empty) read-only.
    pub fn map(path: &Path, file: File) -> Result<Mapping> {
        let io = |e| Error::io(path, e);
        let opened = Stamp::of(&file.metadata().map_err(io)?);
        // SAFETY: the map is read-only. A file changed under it is what this
        // module is for: a fault inside it reads zeros and marks it, and
        // `check` says the file changed.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        #[cfg(unix)]
        let slot = guard::register(map.as_ptr() as usize, map.len());
        #[cfg(not(unix))]
        let slot = None;
        Ok(Mapping {
            map,
            slot,
            file,
            opened,
            path: path.to_path_buf(),
        })
    }

    /// Opens and maps the regular file `path` (under the rules for files from strangers: never a pipe or device);
    /// `None` for an empty file (nothing to map).
    pub fn open(path: &Path) -> Result<Option<Mapping>> {
        let (file, len) = super::file::open_regular(path)?;
        if len == 0 {
            return Ok(None);
        }
        Mapping::map(path, file).map(Some)
    }

    /// Fails, naming the file, when it changed since it was opened: a read
    /// faulted past its end (the bytes read there were zeros), or its size
    /// or times differ. Call it after reading, before trusting what was read.
    pub fn check(&self) -> Result<()> {
        #[cfg(unix)]
        let faulted = self.slot.is_some_and(guard::faulted);
        #[cfg(not(unix))]
        let faulted = false;
        let now = self.file.metadata().map(|m| Stamp::of(&m)).ok();
        if faulted || now != Some(self.opened) {
            return Err(Error::io(
                &self.path,
                std::io::Error::other(
                    "the file changed on disk while it was read (cut short or rewritten); \
                     nothing read from it is kept: open it again",
                ),
            ));
        }
        Ok(())
    }

    /// Drops the whole pages of `range` from this process's view of the map;
    /// the next read faults them back in from the page cache (or the file).
    pub fn release(&self, range: Range<usize>) {
        release(&self.map, range);
    }

    /// The whole file as it was when opened, copied out of the map (in
    /// parallel) and then checked unchanged ([`Mapping::check`]): memory a
    /// caller may hand out (a numpy view) where the map itself must not be.
    /// An allocation the system refuses is an `OutOfMemory` error.
    pub fn copy_checked(&self) -> Result<Vec<u8>> {
        let len = self.map.len();
        let mut bytes: Vec<u8> = Vec::new();
        bytes.try_reserve_exact(len).map_err(|_| {
            Error::io(
                &self.path,
                std::io::Error::new(
                    std::io::ErrorKind::OutOfMemory,
                    format!("{len} bytes do not fit in memory"),
                ),
            )
        })?;
        const PIECE: usize = 4 << 20;
        use rayon::prelude::*;
        bytes.spare_capacity_mut()[..len]
            .par_chunks_mut(PIECE)
            .zip(self.map.par_chunks(PIECE))
            .enumerate()
            .for_each(|(i, (to, from))| {
                // SAFETY: `MaybeUninit<u8>` has `u8`'s layout; every byte of
                // `to` is written (the pieces pair up, both `len` long).
                let to = unsafe {
                    std::slice::from_raw_parts_mut(to.as_mut_ptr().cast::<u8>(), to.len())
                };
                to.copy_from_slice(from);
                // The file is not resident twice: its pages go behind the copy.
                release(&self.map, i * PIECE..i * PIECE + from.len());
            });
        // SAFETY: the first `len` bytes were all written just above.
        unsafe { bytes.set_len(len) };
        self.check()?;
        Ok(bytes)
    }
}

/// Drops the whole pages of `range` from this process's view of `map`.
pub(crate) fn release(map: &Mmap, range: Range<usize>) {
    const PAGE: usize = 4096;
    let start = range.start.next_multiple_of(PAGE);
    let end = range.end.min(map.len()) & !(PAGE - 1);
    #[cfg(unix)]
    if end > start {
        // SAFETY: the map is read-only and backed by a file (or, where a
        // fault was caught, by a page of zeros), so dropping its pages loses
        // nothing a later read needs. A failure only leaves them resident.
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
        };
    }
    #[cfg(not(unix))]
    let _ = (map, start, end);
}

impl std::ops::Deref for Mapping {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(slot) = self.slot {
            guard::unregister(slot);
        }
    }
}

/// The `SIGBUS` handler and its table of mapped ranges.
#[cfg(unix)]
mod guard {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// Mappings guarded at once; past this many, a map is made unguarded
    /// ([`register`] gives no slot) and a fault in it ends the process as
    /// it would without this module.
    const SLOTS: usize = 1024;

    struct Slot {
        start: AtomicUsize,
        end: AtomicUsize,
        faulted: AtomicBool,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const FREE: Slot = Slot {
        start: AtomicUsize::new(0),
        end: AtomicUsize::new(0),
        faulted: AtomicBool::new(false),
    };

    static TABLE: [Slot; SLOTS] = [FREE; SLOTS];
    /// The action `SIGBUS` had before ours.
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
    static PAGE: AtomicUsize = AtomicUsize::new(4096);

    /// Installs the handler, once per process. A handler installed over it
    /// later (Python's `faulthandler.enable()` after a motion is opened)
    /// gets every fault first and ends the process as it would without
    /// this module; one installed before it gets the faults that are not
    /// ours.
    fn install() {
        PREVIOUS.get_or_init(|| {
            // SAFETY: sysconf and sigaction with valid, zero-initialised
            // structures; the handler only reads the table, maps a page and
            // sets a flag, or hands the signal on.
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page > 0 {
                    PAGE.store(page as usize, Ordering::Relaxed);
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    on_sigbus;
                action.sa_sigaction = handler as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                libc::sigaction(libc::SIGBUS, &action, &mut previous);
                previous
            }
        });
    }

    /// Registers `len` bytes mapped at `start`; its slot, or `None` when
    /// every slot is taken.
    pub(super) fn register(start: usize, len: usize) -> Option<usize> {
        install();
        for (i, slot) in TABLE.iter().enumerate() {
            if slot
                .start
                .compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                slot.faulted.store(false, Ordering::Release);
                slot.end.store(start + len, Ordering::Release);
                return Some(i);
            }
        }
        None
    }

    /// Whether a fault was caught in the mapping of `slot`.
    pub(super) fn faulted(slot: usize) -> bool {
        TABLE[slot].faulted.load(Ordering::Acquire)
    }

    /// Frees `slot` (its mapping is being unmapped).
    pub(super) fn unregister(slot: usize) {
        let s = &TABLE[slot];
        s.end.store(0, Ordering::Release);
        s.faulted.store(false, Ordering::Release);
        s.start.store(0, Ordering::Release);
    }

    /// The handler: a fault inside a registered mapping gets a page of
    /// zeros and marks it; anything else goes to the previous action.
    extern "C" fn on_sigbus(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        context: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
        let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
        // si_code > 0: raised by the kernel for a fault, not sent by kill().
        if code > 0 {
            let page = PAGE.load(Ordering::Relaxed);
            for slot in &TABLE {
                let start = slot.start.load(Ordering::Acquire);
                let end = slot.end.load(Ordering::Acquire);
                if start != 0 && (start..end).contains(&addr) {
                    // SAFETY: the page lies inside a live read-only mapping
                    // of ours; a fixed anonymous map replaces just that page
                    // with zeros (mmap is a plain system call, safe here).
                    let zeros = unsafe {
                        libc::mmap(
                            (addr & !(page - 1)) as *mut libc::c_void,
                            page,
                            libc::PROT_READ,
                            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                            -1,
                            0,
                        )
                    };
                    if zeros != libc::MAP_FAILED {
                        slot.faulted.store(true, Ordering::Release);
                        return;
                    }
                    break;
                }
            }
        }
        hand_on(signal, info, context);
    }

    /// Gives the signal to the action that was there before ours.
    fn hand_on(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        let Some(previous) = PREVIOUS.get() else {
            return;
        };
        let handler = previous.sa_sigaction;
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            // SAFETY: restoring the previous action, then (for a signal
            // someone sent) sending it again: the default action follows,
            // as it would have without us. A fault simply happens again.
            unsafe {
                libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut());
                // SAFETY: si_code read as in the handler.
                if (*info).si_code <= 0 {
                    libc::raise(signal);
                }
            }
        } else if previous.sa_flags & libc::SA_SIGINFO != 0 {
            // SAFETY: the previous handler was installed to be called so.
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(handler) };
            f(signal, info, context);
        } else {
            // SAFETY: as above, a plain handler.
            let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
            f(signal);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_file_cut_short_under_its_map_reads_zeros_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.bin");
        std::fs::write(&path, vec![7u8; 64 << 10]).unwrap();
        let map = Mapping::open(&path).unwrap().unwrap();
        map.check().unwrap();
        assert_eq!(map[40_000], 7);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(4096)
            .unwrap();
        // Past the new end: without the guard, SIGBUS ends the test binary.
        let sum: u64 = map.iter().map(|&b| u64::from(b)).sum();
        assert_eq!(sum, 7 * 4096, "the pages cut off read as zeros");
        let e = map.check().unwrap_err().to_string();
        assert!(e.contains("changed on disk while it was read"), "{e}");
        drop(map);
        // A slot is freed with its map, and a new map starts unmarked.
        let again = Mapping::open(&path).unwrap().unwrap();
        again.check().unwrap();
        assert_eq!(again.len(), 4096);
    }

    #[test]
    fn a_file_rewritten_in_place_is_noticed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.bin");
        std::fs::write(&path, vec![1u8; 8192]).unwrap();
        // Modified an hour ago as far as its time says: a rewrite now, of
        // the same size, changes it whatever the clock's resolution.
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        let map = Mapping::open(&path).unwrap().unwrap();
        map.check().unwrap();
        std::fs::write(&path, vec![2u8; 8192]).unwrap();
        assert!(map.check().is_err());
    }
}
