//! The temporary files being written now, so that a program told to stop
//! (Ctrl+C, SIGTERM) can remove them before it exits. The library installs
//! no signal handler: the `viewer` application calls
//! [`remove_partial_files`] from its own.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What the registry holds.
#[derive(Debug, Default)]
struct State {
    /// Temporary files being written.
    open: Vec<PathBuf>,
    /// Temporary files being created now, not yet noted.
    creating: usize,
    /// Set by [`Registry::remove_all`]: the process is stopping, and no
    /// new temporary file may stay.
    closed: bool,
}

/// A list of temporary files being written.
#[derive(Debug, Default)]
pub(super) struct Registry(Mutex<State>);

impl Registry {
    /// An empty list.
    pub const fn new() -> Registry {
        Registry(Mutex::new(State {
            open: Vec::new(),
            creating: 0,
            closed: false,
        }))
    }

    /// Says a temporary file is about to be created; false once the
    /// process is stopping (then none may be).
    pub fn begin(&self) -> bool {
        match self.0.lock() {
            Ok(mut s) if !s.closed => {
                s.creating += 1;
                true
            }
            _ => false,
        }
    }

    /// Notes the temporary file just created (after [`Registry::begin`]),
    /// or none where creating it failed. Returns false, having removed the
    /// file, when the process began stopping meanwhile.
    pub fn end(&self, path: Option<&Path>) -> bool {
        let Ok(mut s) = self.0.lock() else {
            return false;
        };
        s.creating = s.creating.saturating_sub(1);
        match path {
            Some(p) if s.closed => {
                let _ = std::fs::remove_file(p);
                false
            }
            Some(p) => {
                s.open.push(p.to_path_buf());
                true
            }
            None => !s.closed,
        }
    }

    /// Notes a temporary file as no longer partial (placed, or removed).
    pub fn forget(&self, path: &Path) {
        if let Ok(mut s) = self.0.lock() {
            s.open.retain(|p| p != path);
        }
    }

    /// Removes every file noted, refuses new ones from now on, waits (a
    /// second at most) for those being created to be noted and removed,
    /// and returns how many were removed.
    pub fn remove_all(&self) -> usize {
        let started = Instant::now();
        let mut removed = 0;
        loop {
            let Ok(mut s) = self.0.lock() else {
                return removed;
            };
            s.closed = true;
            for path in s.open.drain(..) {
                if std::fs::remove_file(path).is_ok() {
                    removed += 1;
                }
            }
            if s.creating == 0 || started.elapsed() > Duration::from_secs(1) {
                return removed;
            }
            drop(s);
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Every temporary output file open in this process.
static OPEN: Registry = Registry::new();

/// Says a temporary file is about to be created; false once the process
/// is stopping.
pub(super) fn begin() -> bool {
    OPEN.begin()
}

/// Notes the temporary file just created (or none, on a failure); false,
/// the file removed, when the process began stopping meanwhile.
pub(super) fn end(path: Option<&Path>) -> bool {
    OPEN.end(path)
}

/// Notes a temporary file as no longer partial (placed, or removed).
pub(super) fn forget(path: &Path) {
    OPEN.forget(path);
}

/// Removes every temporary output file still being written, and returns
/// how many there were. For a signal handler that is about to end the
/// process: the outputs being written then never appear, nothing is left
/// behind them, and an output started after this call is refused (one
/// being created during it is removed as soon as it exists).
pub fn remove_partial_files() -> usize {
    OPEN.remove_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noted_files_are_removed_and_placed_ones_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let registry = Registry::new();
        let (a, b) = (dir.path().join("a.partial"), dir.path().join("b.partial"));
        for p in [&a, &b] {
            assert!(registry.begin());
            std::fs::write(p, b"x").unwrap();
            assert!(registry.end(Some(p)));
        }
        registry.forget(&b);
        assert_eq!(registry.remove_all(), 1);
        assert!(!a.exists());
        assert!(b.exists());
        assert_eq!(registry.remove_all(), 0);
    }

    #[test]
    fn a_file_being_created_while_stopping_is_removed_and_new_ones_refused() {
        let dir = tempfile::tempdir().unwrap();
        let registry = std::sync::Arc::new(Registry::new());
        let late = dir.path().join("late.partial");
        assert!(registry.begin());
        // The handler runs while the file is being created: it waits.
        let handler = {
            let registry = std::sync::Arc::clone(&registry);
            std::thread::spawn(move || registry.remove_all())
        };
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&late, b"x").unwrap();
        assert!(!registry.end(Some(&late)), "stopping: not kept");
        handler.join().unwrap();
        assert!(!late.exists());
        assert!(!registry.begin(), "no new output once stopping");
    }
}
