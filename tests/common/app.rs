//! What only the application's harnesses share: the `viewer` binary and a
//! GPU adapter.
#![allow(dead_code)] // Each harness uses its own subset.

use std::process::Command;

use crate::common::tool_present;

/// The `viewer` binary built for these tests.
pub const VIEWER: &str = env!("CARGO_BIN_EXE_viewer");

/// A `viewer` command, run from the repository's root.
pub fn viewer() -> Command {
    let mut command = Command::new(VIEWER);
    command.current_dir(crate::common::root());
    command
}

/// A GPU context on whatever adapter there is (lavapipe or llvmpipe on CI),
/// or `None` after a notice where there is none.
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
