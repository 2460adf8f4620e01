//! What every test binary may share: where the samples are, and whether a
//! tool or a GPU adapter is there — a test without one is skipped with a
//! notice on a developer's machine and fails on CI (`CI` set), where
//! `.ci/run` installs everything.
#![allow(dead_code)] // Each test binary uses its own subset.

use std::path::{Path, PathBuf};

/// A path inside the repository.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
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

/// A GPU context on whatever adapter there is (lavapipe or llvmpipe on CI),
/// or `None` after a notice where there is none.
#[cfg(feature = "gpu")]
pub fn gpu() -> Option<motion_viewer::gpu::GpuContext> {
    match motion_viewer::gpu::GpuContext::new() {
        Ok(ctx) => {
            eprintln!("adapter: {}", ctx.adapter_name());
            Some(ctx)
        }
        Err(e) => {
            tool_present(
                &format!("a GPU adapter ({e})"),
                false,
                "apt-get install mesa-vulkan-drivers, WGPU_BACKEND=vulkan",
            );
            None
        }
    }
}
