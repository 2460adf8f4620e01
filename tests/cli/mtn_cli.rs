//! The `viewer` binary on `.mtn` files: info, export, errors.

use serde_json::Value;
use std::process::Command;

fn viewer() -> Command {
    crate::app::viewer()
}

fn seed(name: &str) -> String {
    format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn deg(urad: f64) -> f64 {
    urad * 180.0 / (1_000_000.0 * std::f64::consts::PI)
}

#[test]
fn info_json_describes_the_sony_seed() {
    let out = viewer()
        .args(["info", "--json", &seed("sony_stand_sit.mtn")])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v[0];
    assert_eq!(m["format"], "mtn");
    assert_eq!(m["name"], "a_stand#sit_S");
    assert_eq!(m["creator"], "Sony Corporation");
    assert_eq!(m["design"], "DRX-910");
    assert_eq!(m["model"], "ERS-210");
    assert_eq!(m["version"], serde_json::json!([1, 2]));
    assert_eq!(m["keyframes"], 6);
    assert_eq!(m["frame_ms"], 16);
    assert_eq!(m["frames"], 305);
    assert_eq!(m["duration_s"].as_f64().unwrap(), 4.88);
    assert_eq!(m["warnings"], serde_json::json!([]));
    let joints = m["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 20);
    assert_eq!(joints[0]["name"], "PRM:/r1/c1-Joint2:j1");
    assert_eq!(joints[0]["part"], "head");
    assert_eq!(joints[6]["part"], "left_front_leg");
    assert_eq!(joints[19]["part"], "tail");
    assert_eq!(m["motion"]["group"], "all");
    assert_eq!(m["motion"]["start"], "stand");
    assert_eq!(m["motion"]["end"], "sit");
    assert_eq!(m["motion"]["description"], "S");
    let times: Vec<f64> = m["keyframe_times_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap())
        .collect();
    // Frames 0, 61, 112, 153, 204, 305 at 16 ms.
    let expected = [0.0, 0.976, 1.792, 2.448, 3.264, 4.88];
    assert_eq!(times.len(), 6);
    for (t, e) in times.iter().zip(expected) {
        assert!((t - e).abs() < 1e-9, "{t} vs {e}");
    }
}

#[test]
fn a_mangled_file_fails_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.mtn");
    let mut bytes = std::fs::read(seed("sony_stand_sit.mtn")).unwrap();
    bytes[0x4C] = 5; // section 2 number
    std::fs::write(&path, &bytes).unwrap();
    let out = viewer().arg("info").arg(&path).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("viewer: "), "{err}");
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(
        err.contains("section 2 number at byte 76 (0x4c): expected 2, found 5"),
        "{err}"
    );
}

#[test]
fn export_time_interpolates_linearly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("state.json");
    let status = viewer()
        .args([
            "export",
            &seed("sony_stand_sit.mtn"),
            "--time",
            "0.488",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let s = &v[0];
    assert_eq!(s["format"], "mtn");
    assert!((s["time_s"].as_f64().unwrap() - 0.488).abs() < 1e-12);
    // Halfway from keyframe 0 (frame 0) to keyframe 1 (frame 61): pitch
    // (34906 + -104720) / 2 µrad, head tilt (0 + -575960) / 2 µrad.
    let pitch = s["body"]["pitch_deg"].as_f64().unwrap();
    assert!((pitch - deg(-34907.0)).abs() < 1e-9, "{pitch}");
    assert_eq!(s["body"]["roll_deg"].as_f64().unwrap(), 0.0);
    let joints = s["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 20);
    assert_eq!(joints[0]["name"], "PRM:/r1/c1-Joint2:j1");
    assert_eq!(joints[0]["part"], "head");
    let tilt = joints[0]["deg"].as_f64().unwrap();
    assert!((tilt - deg(-287980.0)).abs() < 1e-9, "{tilt}");
    // Knee of r2 (joint 8): 0x0007FD50 = 523600 to 0x001EA05D = 2007133.
    let knee = joints[8]["deg"].as_f64().unwrap();
    assert!(
        (knee - deg((523600.0 + 2007133.0) / 2.0)).abs() < 1e-9,
        "{knee}"
    );
}

#[test]
fn export_frame_and_csv_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("state.json");
    let status = viewer()
        .args([
            "export",
            &seed("skitter_sleep_to_sit.mtn"),
            "--frame",
            "20",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    // Frame 20 of 40 at 16 ms = 0.320 s, halfway.
    assert!((v[0]["time_s"].as_f64().unwrap() - 0.320).abs() < 1e-12);
    // Joint 0 (head tilt, at 0x260 and 0x2C0): 0xFFFD563C = -174532 to
    // 0xFFF95794 = -436332.
    let tilt = v[0]["joints"][0]["deg"].as_f64().unwrap();
    assert!((tilt - deg((-174532.0 - 436332.0) / 2.0)).abs() < 1e-9);

    let csv = dir.path().join("all.csv");
    let status = viewer()
        .args(["export", &seed("skitter_sleep_to_sit.mtn"), "--out"])
        .arg(&csv)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..4], ["time_s", "roll_deg", "pitch_deg", "yaw_deg"]);
    assert_eq!(header[4], "PRM:/r1/c1-Joint2:j1");
    assert_eq!(header.len(), 24);
    // 40 frames: rows at frames 0..=40.
    assert_eq!(lines.count(), 41);
}

#[test]
fn export_time_adds_rig_points_in_body_and_world_frames() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("state.json");
    let status = viewer()
        .args([
            "export",
            &seed("sony_stand_sit.mtn"),
            "--time",
            "2",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let s = &v[0];
    let mut names = vec!["neck", "head", "tail_base", "tail_tip"];
    let legs = ["left_front", "right_front", "left_hind", "right_hind"];
    let leg_points: Vec<String> = legs
        .iter()
        .flat_map(|l| ["shoulder", "knee", "paw"].map(|p| format!("{l}_{p}")))
        .collect();
    names.extend(leg_points.iter().map(String::as_str));
    let pitch = s["body"]["pitch_deg"].as_f64().unwrap().to_radians();
    assert_eq!(s["body"]["roll_deg"].as_f64().unwrap(), 0.0);
    assert_eq!(s["body"]["yaw_deg"].as_f64().unwrap(), 0.0);
    assert!(pitch > 0.0, "the seed leans backward at 2 s");
    let point = |frame: &str, name: &str| -> [f64; 3] {
        let p = s[frame][name]
            .as_array()
            .unwrap_or_else(|| panic!("{frame}.{name} missing"));
        [0, 1, 2].map(|i| p[i].as_f64().unwrap())
    };
    for name in &names {
        let b = point("points", name);
        let w = point("world", name);
        // Pitch + leans backward: a point ahead of the centre rises.
        let expected = [
            b[0] * pitch.cos() - b[2] * pitch.sin(),
            b[1],
            b[0] * pitch.sin() + b[2] * pitch.cos(),
        ];
        for i in 0..3 {
            assert!(
                (w[i] - expected[i]).abs() < 1e-6,
                "{name}: {w:?} vs {expected:?}"
            );
        }
    }
    for leg in legs {
        let paw = point("world", &format!("{leg}_paw"));
        let shoulder = point("world", &format!("{leg}_shoulder"));
        assert!(paw[2] < shoulder[2] - 50.0, "{leg} paw below its shoulder");
    }
}
