//! The temporary files being written now, so that a program told to stop
//! (Ctrl+C, SIGTERM) can remove them before it exits. The library installs
//! no signal handler: the `viewer` application calls
//! [`remove_partial_files`] from its own.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A list of temporary files being written.
#[derive(Debug, Default)]
pub(super) struct Registry(Mutex<Vec<PathBuf>>);

impl Registry {
    /// An empty list.
    pub const fn new() -> Registry {
        Registry(Mutex::new(Vec::new()))
    }

    /// Notes a temporary file as being written.
    pub fn register(&self, path: &Path) {
        if let Ok(mut open) = self.0.lock() {
            open.push(path.to_path_buf());
        }
    }

    /// Notes a temporary file as no longer partial (placed, or removed).
    pub fn forget(&self, path: &Path) {
        if let Ok(mut open) = self.0.lock() {
            open.retain(|p| p != path);
        }
    }

    /// Removes every file noted and returns how many there were.
    pub fn remove_all(&self) -> usize {
        let Ok(mut open) = self.0.lock() else {
            return 0;
        };
        let n = open.len();
        for path in open.drain(..) {
            let _ = std::fs::remove_file(path);
        }
        n
    }
}

/// Every temporary output file open in this process.
static OPEN: Registry = Registry::new();

/// Notes a temporary file as being written.
pub(super) fn register(path: &Path) {
    OPEN.register(path);
}

/// Notes a temporary file as no longer partial (placed, or removed).
pub(super) fn forget(path: &Path) {
    OPEN.forget(path);
}

/// Removes every temporary output file still being written, and returns
/// how many there were. For a signal handler that is about to end the
/// process: the outputs being written then never appear, and nothing is
/// left behind them.
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
            std::fs::write(p, b"x").unwrap();
            registry.register(p);
        }
        registry.forget(&b);
        assert_eq!(registry.remove_all(), 1);
        assert!(!a.exists());
        assert!(b.exists());
        assert_eq!(registry.remove_all(), 0);
    }
}
