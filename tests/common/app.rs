//! What only the application's harnesses share: the `viewer` binary and a
//! GPU adapter.
#![allow(dead_code)] // Each harness uses its own subset.

use std::path::{Path, PathBuf};
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

/// An ERS-7 legs table: stand, then three legs lifted out sideways and
/// folded at 1.5 s, leaving the right hind leg alone on the floor (the
/// table `tests/cli/simulate_cli.rs` makes fall in both engines), as
/// `DIR/fall.mtn` by `viewer mtn from-csv`.
pub fn built_to_fall(dir: &Path) -> PathBuf {
    let legs = ["left_front", "right_front", "left_hind", "right_hind"];
    let mut header = vec!["time_s".to_string()];
    for leg in legs {
        for j in ["j1", "j2", "j3"] {
            header.push(format!("{leg}_{j}"));
        }
    }
    let mut rows = vec![header.join(",")];
    for (t, up) in [(0.0, false), (0.5, false), (1.5, true), (2.0, true)] {
        let mut row = vec![format!("{t}")];
        for leg in legs {
            let angles = match up && leg != "right_hind" {
                true => [60.0, 80.0, 110.0],
                false => [-5.0, 3.0, 30.0],
            };
            row.extend(angles.iter().map(|a| a.to_string()));
        }
        rows.push(row.join(","));
    }
    let csv = dir.join("fall.csv");
    std::fs::write(&csv, rows.join("\n") + "\n").unwrap();
    let out = dir.join("fall.mtn");
    let o = viewer()
        .args(["mtn", "from-csv"])
        .arg(&csv)
        .args(["--model", "ERS-7", "--name", "a_stand#stand_fall", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// `viewer simulate FILE --json`'s verdict.
pub fn simulate_json(motion: &Path) -> serde_json::Value {
    let o = viewer()
        .arg("simulate")
        .arg(motion)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}
