//! `viewer export --gpu`: the mesh the compute shader deforms and reads back
//! equals the CPU export within 1e-4 of the scene's bounding-box diagonal.
use crate::common;
use common::tool_present;

use std::path::Path;

fn sample(name: &str) -> String {
    format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The `v` lines of an `.obj`, in order.
fn vertices(path: &Path) -> Vec<[f64; 3]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|rest| {
            let xyz: Vec<f64> = rest
                .split_whitespace()
                .map(|x| x.parse().unwrap())
                .collect();
            [xyz[0], xyz[1], xyz[2]]
        })
        .collect()
}

/// Runs `viewer export` on the flags sample at timestep 37, returning the
/// vertices and what the command printed on stderr.
fn export(dir: &Path, name: &str, gpu: bool) -> (Vec<[f64; 3]>, String) {
    let out = dir.join(name);
    let mut cmd = crate::app::viewer();
    cmd.args(["export", &sample("flags.obj"), &sample("flags.bin")])
        .args(["--frame", "37", "--out"])
        .arg(&out);
    if gpu {
        cmd.arg("--gpu");
    }
    let result = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
    assert!(result.status.success(), "{stderr}");
    (vertices(&out), stderr)
}

#[test]
fn gpu_export_matches_the_cpu_export() {
    let dir = tempfile::tempdir().unwrap();
    let (cpu, _) = export(dir.path(), "cpu.obj", false);
    let (gpu, stderr) = export(dir.path(), "gpu.obj", true);
    if stderr.contains("deforming on the CPU instead") {
        tool_present(
            &format!("a GPU adapter (the export fell back to the CPU: {stderr})"),
            false,
            "apt-get install mesa-vulkan-drivers",
        );
    }
    assert_eq!(cpu.len(), gpu.len());
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for p in &cpu {
        for i in 0..3 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    let diagonal = (0..3).map(|i| (hi[i] - lo[i]).powi(2)).sum::<f64>().sqrt();
    assert!(diagonal > 1.0, "the flags scene spans metres");
    let worst = cpu
        .iter()
        .zip(&gpu)
        .map(|(a, b)| (0..3).map(|i| (a[i] - b[i]).abs()).fold(0.0, f64::max))
        .fold(0.0, f64::max);
    assert!(
        worst <= 1e-4 * diagonal,
        "worst {worst} vs diagonal {diagonal}"
    );
}
