//! What only the application's harnesses share: the `viewer` binary and a
//! GPU adapter.
#![allow(dead_code)] // Each harness uses its own subset.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// An ERS-7 legs table (`time_s` and every leg joint, degrees): standing,
/// then at 1.5 s three legs lifted out sideways and folded, leaving the
/// right hind leg alone on the floor — a motion built to fall, in both
/// engines.
pub fn three_legs_up_table() -> String {
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
    rows.join("\n") + "\n"
}

/// `table` written as `DIR/NAME.csv` and made an ERS-7 motion
/// `DIR/NAME.mtn` by `viewer mtn from-csv`: its output and the motion's path.
pub fn mtn_from_csv(dir: &Path, table: &str, name: &str) -> (Output, PathBuf) {
    let csv = dir.join(format!("{name}.csv"));
    std::fs::write(&csv, table).unwrap();
    let out = dir.join(format!("{name}.mtn"));
    let o = viewer()
        .args(["mtn", "from-csv"])
        .arg(&csv)
        .args(["--model", "ERS-7", "--name", "a_stand#stand_fall", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    (o, out)
}

/// [`three_legs_up_table`] as `DIR/fall.mtn`.
pub fn built_to_fall(dir: &Path) -> PathBuf {
    let (o, out) = mtn_from_csv(dir, &three_legs_up_table(), "fall");
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
