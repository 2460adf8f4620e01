//! What every test harness may share — the library's (`crates/motion-viewer/tests/*`)
//! and the application's (`tests/*`), each including this folder by path:
//! where the samples are, and whether a tool is there (a test without one is
//! skipped with a notice on a developer's machine and fails on CI, `CI` set,
//! where `.ci/run` installs everything); glTF walking ([`gltf`]), MEMG files
//! laid out by hand ([`memg`]), sample tracks ([`stage`]) and the AIBO corpus
//! ([`workbench`]). What needs the `viewer` binary or a GPU is in `app.rs`,
//! which only the application's harnesses include.
#![allow(dead_code)] // Each test binary uses its own subset.

pub mod fit;
pub mod gltf;
pub mod memg;
pub mod python;
pub mod stage;
pub mod workbench;

use std::path::{Path, PathBuf};

/// `cargo` as the test runner was started with (`CARGO`), else the one on
/// the path.
pub fn cargo() -> std::process::Command {
    std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The repository's root: the folder above this harness's package that
/// holds `Cargo.lock` (the application is at the root, the library two
/// folders down).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|p| p.join("Cargo.lock").is_file())
        .expect("the repository root (Cargo.lock) above the package")
        .to_path_buf()
}

/// A path inside the repository.
pub fn repo(rel: &str) -> PathBuf {
    root().join(rel)
}

/// A bundled sample under `data/`.
pub fn data(name: &str) -> PathBuf {
    repo("data").join(name)
}

/// A test input under `tests/data/` (the real corpus and its provenance).
pub fn test_data(rel: &str) -> PathBuf {
    repo("tests/data").join(rel)
}

/// Whether `tool` is a file in one of `PATH`'s folders.
pub fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
}

/// True on CI, where a missing tool fails the test instead of skipping it.
pub fn on_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| v != "false" && v != "0")
}

/// Whether `what` can run (`ok`); otherwise prints why the test is skipped
/// and how to install it, or panics on CI.
pub fn tool_present(what: &str, ok: bool, install: &str) -> bool {
    if ok {
        return true;
    }
    assert!(!on_ci(), "CI must have {what}: {install}");
    eprintln!("notice: {what} not found, test skipped ({install})");
    false
}
