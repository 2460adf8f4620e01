//! What the crate's own tests share with its integration tests: the
//! repository's data folders, and the real AIBO corpus
//! (`tests/common/workbench.rs`, included here rather than copied).
#![allow(dead_code)] // each test module uses a different part

use std::path::{Path, PathBuf};

/// A path under the repository's root.
fn repo(rel: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel)
}

/// A bundled sample under `data/`.
pub fn data(name: &str) -> PathBuf {
    repo("data").join(name)
}

/// A test input under `tests/data/` (the real corpus and its provenance).
pub fn test_data(rel: &str) -> PathBuf {
    repo("tests/data").join(rel)
}

#[path = "../../../tests/common/workbench.rs"]
pub mod workbench;
