//! `viewer export` to the robot and VFX formats from the command line:
//! `--model` alone, `--start-time`, and the refusals (a moment where a whole
//! motion is asked for, numbers that are not finite, bad values), each
//! leaving no file behind.

use crate::app::viewer;
use crate::common::data;
use crate::common::memg::{SMALL_OBJ, small_motion};
use std::process::Output;

fn run(args: &[&std::ffi::OsStr]) -> Output {
    viewer().arg("export").args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn model_alone_writes_a_urdf_whose_joints_are_the_ones_info_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ers7.urdf");
    let o = run(&[
        "--model".as_ref(),
        "ERS-7".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let urdf = std::fs::read_to_string(&out).unwrap();
    assert!(urdf.contains(r#"<robot name="aibo_ers7">"#));
    // The joints a full-body ERS-7 motion of Sony's carries, as `info` lists them.
    let info = viewer()
        .args(["info", "--json"])
        .arg(crate::common::test_data(
            "mtn/cartheur-aibo__aibo-lab/a_sit#sit_so0_greet.mtn",
        ))
        .output()
        .unwrap();
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let info = if info.is_array() {
        info[0].clone()
    } else {
        info
    };
    let names: Vec<&str> = info["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 20);
    for name in &names {
        let moving = [
            format!(r#"<joint name="{name}" type="revolute">"#),
            format!(r#"<joint name="{name}" type="continuous">"#),
        ];
        assert!(moving.iter().any(|m| urdf.contains(m.as_str())), "{name}");
    }
    let moving =
        urdf.matches(r#"type="revolute""#).count() + urdf.matches(r#"type="continuous""#).count();
    assert_eq!(moving, 20);
    // The ERS-7 head tilt: -75..0°, 3.185 rad/s (Tekkotsu's ERS7Info.h).
    let tilt = &urdf[urdf.find(r#"<joint name="PRM:/r1/c1-Joint2:11""#).unwrap()..];
    let tilt = &tilt[..tilt.find("</joint>").unwrap()];
    assert!(
        tilt.contains(&format!(r#"lower="{}""#, (-75f64).to_radians())),
        "{tilt}"
    );
    assert!(tilt.contains(r#"velocity="3.18522588""#), "{tilt}");
}

#[test]
fn model_goes_alone_and_with_a_urdf() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.mcap");
    let o = run(&[
        "--model".as_ref(),
        "ERS-7".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("use .urdf"), "{}", stderr(&o));
    let urdf = dir.path().join("x.urdf");
    let o = run(&[
        data("sony_stand_sit.mtn").as_os_str(),
        "--model".as_ref(),
        "ERS-7".as_ref(),
        "--out".as_ref(),
        urdf.as_os_str(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
    let o = run(&[
        "--model".as_ref(),
        "ERS-9".as_ref(),
        "--out".as_ref(),
        urdf.as_os_str(),
    ]);
    assert!(!o.status.success());
    assert!(!out.exists() && !urdf.exists());
}

#[test]
fn a_moment_is_refused_where_the_whole_motion_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["urdf", "mcap", "usda"] {
        let out = dir.path().join(format!("x.{ext}"));
        let o = run(&[
            data("sony_stand_sit.mtn").as_os_str(),
            "--time".as_ref(),
            "1".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        assert!(!o.status.success(), "{ext}");
        assert!(
            stderr(&o).contains("leave out --time/--frame"),
            "{}",
            stderr(&o)
        );
        assert!(!out.exists());
    }
}

#[test]
fn start_time_is_read_exactly_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.mcap");
    for bad in ["soon", "1e9", "1.5.2", "99999999999"] {
        let o = run(&[
            data("sony_stand_sit.mtn").as_os_str(),
            "--start-time".as_ref(),
            bad.as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        assert!(!o.status.success(), "{bad}");
        assert!(stderr(&o).contains("--start-time"), "{}", stderr(&o));
    }
    assert!(!out.exists());
}

#[test]
fn a_frame_that_is_not_finite_is_refused_by_the_bag_and_the_stage() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("s.obj");
    let bin = dir.path().join("s.bin");
    std::fs::write(&obj, SMALL_OBJ).unwrap();
    let mut motion = small_motion(false);
    // Local frame 1 at timestep 2: its x translation.
    motion.frames[2 * 2 + 1][3] = f64::NAN;
    std::fs::write(&bin, motion.bytes()).unwrap();
    for (ext, field) in [
        ("mcap", "local frame 1 element 3"),
        ("usda", ".obj vertex 1 x at 0.066667 s"),
    ] {
        let out = dir.path().join(format!("x.{ext}"));
        let o = run(&[
            obj.as_os_str(),
            bin.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        let e = stderr(&o);
        assert!(!o.status.success(), "{ext}");
        assert!(
            e.contains(field) && e.contains("NaN") && e.contains("refused"),
            "{e}"
        );
        assert!(!out.exists(), "{ext}");
    }
}
