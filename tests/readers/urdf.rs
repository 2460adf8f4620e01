//! The URDF export read by ROS's own parser (`check_urdf`, liburdfdom-tools)
//! and by `yourdfpy`, whose forward kinematics at the joint angles of real
//! motions (the ERS-210 seed, an ERS-7 and an ERS-110 motion from Sony's
//! archives) must put every rig point where `export --time` says, in the
//! body frame, within 1e-6 m.

use crate::app::viewer;
use crate::common::{self, data, python, test_data, tool_present};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `viewer export ARGS`, which must succeed.
pub fn export(args: &[&std::ffi::OsStr]) {
    let out = viewer().arg("export").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "viewer export {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn os(s: &str) -> &std::ffi::OsStr {
    s.as_ref()
}

const MODELS: [&str; 5] = ["ERS-110", "ERS-210", "ERS-220", "ERS-310", "ERS-7"];

#[test]
fn check_urdf_parses_every_model() {
    if !tool_present(
        "check_urdf",
        common::on_path("check_urdf"),
        "apt-get install liburdfdom-tools",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for model in MODELS {
        let out = dir.path().join(format!("{model}.urdf"));
        export(&[os("--model"), os(model), os("--out"), out.as_os_str()]);
        let run = Command::new("check_urdf").arg(&out).output().unwrap();
        let text = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && text.contains("Successfully Parsed"),
            "check_urdf {model}: {text}{}",
            String::from_utf8_lossy(&run.stderr)
        );
        // Its root is the body centre.
        assert!(text.contains("root Link: base_link"), "{model}: {text}");
    }
}

/// Loads each URDF with yourdfpy, poses it at the joints of each state
/// file and prints the worst distance (metres) between a point's link
/// origin and the state's body-frame point.
const FK: &str = r#"
import json, math, sys
import yourdfpy
worst = 0.0
pairs = sys.argv[1:]
for urdf_path, state_path in zip(pairs[0::2], pairs[1::2]):
    robot = yourdfpy.URDF.load(urdf_path, load_meshes=False, build_collision_scene_graph=False)
    assert robot.validate(), urdf_path
    [state] = json.load(open(state_path))
    angles = {j["name"]: math.radians(j["deg"]) for j in state["joints"]}
    missing = [n for n in robot.actuated_joint_names if n not in angles]
    assert not missing, (urdf_path, state_path, missing)
    robot.update_cfg({n: angles[n] for n in robot.actuated_joint_names})
    for name, p in state["points"].items():
        t = robot.get_transform(frame_to=name, frame_from="base_link")
        d = math.dist([t[0][3], t[1][3], t[2][3]], [x / 1000.0 for x in p])
        worst = max(worst, d)
print(worst)
"#;

/// Every joint of these motions is named as the model's PRM table names it.
fn motions() -> Vec<PathBuf> {
    vec![
        data("sony_stand_sit.mtn"),
        test_data("mtn/cartheur-aibo__aibo-lab/a_sit#sit_so0_greet.mtn"),
        test_data("mtn/cartheur-aibo__r-code/rd#3625.mtn"),
    ]
}

#[test]
fn yourdfpy_forward_kinematics_match_export_time() {
    let Some(py) = python::readers() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<PathBuf> = Vec::new();
    for (i, motion) in motions().iter().enumerate() {
        let urdf = dir.path().join(format!("m{i}.urdf"));
        export(&[motion.as_os_str(), os("--out"), urdf.as_os_str()]);
        for (k, t) in ["0", "0.3", "0.77", "1.5", "2.9"].iter().enumerate() {
            let state = dir.path().join(format!("m{i}-{k}.json"));
            export(&[
                motion.as_os_str(),
                os("--time"),
                os(t),
                os("--out"),
                state.as_os_str(),
            ]);
            args.push(urdf.clone());
            args.push(state);
        }
    }
    let worst = worst(&py, FK, &args);
    eprintln!("yourdfpy FK vs export --time, 3 motions × 5 times: worst {worst:.3e} m");
    assert!(worst < 1e-6, "worst {worst} m");
}

#[test]
fn yourdfpy_loads_every_model() {
    let Some(py) = python::readers() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import sys, yourdfpy
for p in sys.argv[1:]:
    r = yourdfpy.URDF.load(p, load_meshes=False)
    assert r.validate(), p
    print(r.robot.name, len(r.link_map), len(r.actuated_joint_names))
"#;
    let mut paths = Vec::new();
    for model in MODELS {
        let out = dir.path().join(format!("{model}.urdf"));
        export(&[os("--model"), os(model), os("--out"), out.as_os_str()]);
        paths.push(out);
    }
    let args: Vec<&std::ffi::OsStr> = paths.iter().map(|p| p.as_os_str()).collect();
    let text = python::run(&py, script, &args);
    // Servos per model, as Sony's full-body motions carry them.
    let joints: Vec<&str> = text
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap())
        .collect();
    assert_eq!(joints, ["18", "20", "15", "15", "20"], "{text}");
    assert!(text.starts_with("aibo_ers110 "), "{text}");
}

/// Runs `script` with `paths` and reads the one number it prints.
pub fn worst(py: &PathBuf, script: &str, paths: &[impl AsRef<Path>]) -> f64 {
    let args: Vec<&std::ffi::OsStr> = paths.iter().map(|p| p.as_ref().as_os_str()).collect();
    let text = python::run(py, script, &args);
    text.trim()
        .lines()
        .last()
        .and_then(|l| l.parse().ok())
        .unwrap_or_else(|| panic!("expected a number from the reader, got {text:?}"))
}
