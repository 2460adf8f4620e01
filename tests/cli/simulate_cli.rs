//! `viewer simulate`: the verdict per motion (exit 0 stands, 1 falls, 2
//! error), `--json`'s fields, archives and folders in one call, `--out`, and
//! bad input in one line.

use crate::app::{mtn_from_csv, three_legs_up_table, viewer};
use crate::common::{data, test_data};
use motion_viewer::formats::aibo::{Joint, LegJoint};
use motion_viewer::formats::mtn;
use std::process::Output;

fn simulate(args: &[&std::ffi::OsStr]) -> Output {
    viewer().arg("simulate").args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON objects `--json` printed, one per line.
fn verdicts(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn the_seed_stand_sit_stands_and_json_has_the_fields_the_issue_names() {
    let o = simulate(&[data("sony_stand_sit.mtn").as_os_str(), "--json".as_ref()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = verdicts(&o);
    assert_eq!(v.len(), 1);
    let v = &v[0];
    assert!(
        v["motion"]
            .as_str()
            .unwrap()
            .ends_with("sony_stand_sit.mtn")
    );
    assert_eq!(v["model"], "ERS-210");
    assert_eq!(v["falls"], false);
    assert!(v["fall_time_s"].is_null());
    // It sits: Sony's file leans the body back up to 32°; it must not go
    // near a fall, and the body stays well off the floor.
    let tilt = v["peak_tilt_deg"].as_f64().unwrap();
    assert!((10.0..50.0).contains(&tilt), "{tilt}");
    let low = v["min_body_height_m"].as_f64().unwrap();
    assert!((0.03..0.2).contains(&low), "{low}");
    // Per servo: its PRM name, the largest commanded − reached and when.
    let joints = v["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 15, "12 leg servos and 3 head servos");
    assert!(joints.iter().any(|j| j["joint"] == "PRM:/r2/c1-Joint2:j1"));
    for j in joints {
        assert!(j["max_error_deg"].is_f64() && j["at_s"].is_f64(), "{j}");
    }
    assert_eq!(v["paws"].as_array().unwrap().len(), 4);
}

#[test]
fn a_table_that_lifts_three_legs_falls() {
    let dir = tempfile::tempdir().unwrap();
    let (o, motion) = mtn_from_csv(dir.path(), &three_legs_up_table(), "fall");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = simulate(&[motion.as_os_str(), "--json".as_ref()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = &verdicts(&o)[0];
    assert_eq!(v["falls"], true);
    let t = v["fall_time_s"].as_f64().unwrap();
    // The legs start up at 0.5 s; the motion lasts 2 s, the hold 1 s more.
    assert!((0.5..3.0).contains(&t), "{t}");
    // It drops onto its belly where the commanded posture stands it on one
    // leg, clear of the floor (or tips past 60°).
    let cause = v["fall_cause"].as_str().unwrap();
    assert!(cause == "body on the floor" || cause == "tilt", "{cause}");
    // Without --json: one headline saying when.
    let o = simulate(&[motion.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("FALLS at"), "{text}");
}

#[test]
fn an_archive_and_a_folder_give_a_verdict_for_every_motion_in_one_call() {
    let archive = test_data("oda/ers7_MOTION7.ODA");
    let folder = test_data("mtn/Doggies-Galore__AIBOMotionWorkbench");
    let o = simulate(&[archive.as_os_str(), folder.as_os_str(), "--json".as_ref()]);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{:?} {}",
        o.status,
        stderr(&o)
    );
    let v = verdicts(&o);
    let in_folder = std::fs::read_dir(&folder)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("mtn"))
        })
        .count();
    assert_eq!(v.len(), 12 + in_folder);
    assert!(
        v[0]["motion"]
            .as_str()
            .unwrap()
            .contains("ers7_MOTION7.ODA:")
    );
    // Exit 1 exactly when one of them falls.
    let falls = v.iter().any(|v| v["falls"] == true);
    assert_eq!(o.status.code(), Some(i32::from(falls)));
}

#[test]
fn out_csv_holds_the_simulated_body_and_every_servo() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sim.csv");
    let o = simulate(&[
        data("sony_stand_sit.mtn").as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        &header[..9],
        [
            "time_s", "x_m", "y_m", "z_m", "qx", "qy", "qz", "qw", "tilt_deg"
        ]
    );
    assert!(header.contains(&"PRM:/r2/c1-Joint2:j1:reached_deg"));
    // One row per 16 ms frame from 0 to the end of the 1 s hold (5.872 s).
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), ((4.88 + 1.0) / 0.016_f64).floor() as usize + 1);
    assert!(rows.iter().all(|r| r.len() == header.len()));
    // The body stays above the floor, and the quaternion is a unit one.
    for r in &rows {
        assert!(r[3] > 0.02, "{r:?}");
        let n: f64 = r[4..8].iter().map(|q| q * q).sum();
        assert!((n - 1.0).abs() < 1e-6);
    }
    // A glTF of the reached motion through the library's exporter.
    let glb = dir.path().join("sim.glb");
    let o = simulate(&[
        data("sony_stand_sit.mtn").as_os_str(),
        "--out".as_ref(),
        glb.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::metadata(&glb).unwrap().len() > 1000);
}

/// Exit 2 and one line on standard error naming the file and the problem.
#[track_caller]
fn refused(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("viewer: ") && err.contains(needle), "{err}");
}

#[test]
fn bad_input_ends_in_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::fs::read(data("sony_stand_sit.mtn")).unwrap();
    let m = mtn::decode(&seed).unwrap();
    // A motion of no known model.
    let mut unknown = m.clone();
    unknown.design = "DRX-999".into();
    let path = dir.path().join("unknown.mtn");
    std::fs::write(&path, mtn::encode(&unknown)).unwrap();
    refused(
        &simulate(&[path.as_os_str()]),
        "unknown design label \"DRX-999\"",
    );
    // A zero-length motion: one keyframe.
    let mut one = m.clone();
    one.keyframes.truncate(1);
    let path = dir.path().join("still.mtn");
    std::fs::write(&path, mtn::encode(&one)).unwrap();
    refused(&simulate(&[path.as_os_str()]), "zero-length motion");
    // A table that asks for a joint past its limit (ERS-7 front J1 stops at 130°).
    let table = three_legs_up_table().replacen("\n0,-5,", "\n0,170,", 1);
    let (o, motion) = mtn_from_csv(dir.path(), &table, "past");
    if o.status.success() {
        refused(&simulate(&[motion.as_os_str()]), "past its limit");
    } else {
        // The workbench refuses it already, in one line.
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    }
    // A folder with nothing to simulate.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    refused(
        &simulate(&[empty.as_os_str()]),
        "holds no .mtn or .oda file",
    );
}

/// The ERS-210's upper joint limits, degrees (docs/formats.md §1: Tekkotsu's
/// `ERS210Info.h` `outputRanges`); the ears have none.
fn ers210_upper_deg(joint: Joint) -> Option<f64> {
    Some(match joint {
        Joint::Leg(_, LegJoint::Rotator) => 117.0,
        Joint::Leg(_, LegJoint::Elevator) => 89.0,
        Joint::Leg(_, LegJoint::Knee) => 147.0,
        Joint::HeadTilt => 43.0,
        Joint::HeadPan => 89.6,
        Joint::HeadRoll => 29.0,
        Joint::TailTilt | Joint::TailPan => 22.0,
        Joint::Mouth => -3.0,
        Joint::LeftEar | Joint::RightEar => return None,
    })
}

/// The seed with every servo of keyframe 3 `past_deg` beyond its upper
/// limit, written to `dir`; the number of servos moved.
fn past_every_upper_limit(dir: &std::path::Path, past_deg: f64) -> (std::path::PathBuf, usize) {
    let mut m = mtn::decode(&std::fs::read(data("sony_stand_sit.mtn")).unwrap()).unwrap();
    let roles = m.joint_roles();
    let mut moved = 0;
    for (urad, role) in m.keyframes[3].joints.iter_mut().zip(roles) {
        if let Some(upper) = role.and_then(ers210_upper_deg) {
            *urad = ((upper + past_deg) * 1e6 * std::f64::consts::PI / 180.0).round() as i32;
            moved += 1;
        }
    }
    let path = dir.join(format!("past{past_deg}.mtn"));
    std::fs::write(&path, mtn::encode(&m)).unwrap();
    (path, moved)
}

/// `viewer mtn check --json` on one motion: its limit findings' severities.
fn limit_severities(path: &std::path::Path) -> Vec<String> {
    let o = viewer()
        .args([
            "mtn".as_ref(),
            "check".as_ref(),
            "--json".as_ref(),
            path.as_os_str(),
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "limit")
        .map(|f| f["severity"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn past_a_limit_within_the_stop_warns_and_past_the_stop_errs_in_check_and_simulate() {
    let dir = tempfile::tempdir().unwrap();
    // 3° past: the mechanical stop (Tekkotsu's ERS-210 `mechanicalLimits`,
    // 3° beyond): a warning in `mtn check`, and in `simulate`'s verdict.
    let (three, moved) = past_every_upper_limit(dir.path(), 3.0);
    assert_eq!(moved, 18, "12 leg servos, 3 head, 2 tail, the mouth");
    assert_eq!(limit_severities(&three), vec!["warning"; moved]);
    let o = simulate(&[three.as_os_str(), "--json".as_ref()]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let warnings = verdicts(&o)[0]["warnings"].as_array().unwrap().clone();
    assert_eq!(warnings.len(), moved, "{warnings:?}");
    for w in &warnings {
        let w = w.as_str().unwrap();
        assert!(w.starts_with("keyframe 3: "), "{w}");
        assert!(w.contains("3.00° past its limit"), "{w}");
        assert!(w.contains("within its mechanical stop 3° beyond"), "{w}");
    }
    let o = simulate(&[three.as_os_str()]);
    let text = String::from_utf8_lossy(&o.stdout);
    let said = text
        .lines()
        .filter(|l| l.starts_with("  warning: keyframe 3: "))
        .count();
    assert_eq!(said, moved, "{text}");
    // 5° past: beyond the stop, an error in both; simulate refuses it.
    let (five, moved) = past_every_upper_limit(dir.path(), 5.0);
    assert_eq!(limit_severities(&five), vec!["error"; moved]);
    refused(&simulate(&[five.as_os_str()]), "5.00° past its limit");
    refused(
        &simulate(&[five.as_os_str()]),
        "and past its mechanical stop 3° beyond",
    );
}

#[test]
fn a_first_posture_that_cannot_stand_is_said_so_without_a_negative_fall_time() {
    // Sony's ERS-110 `ct#741`: the dog falls before the motion starts.
    let entry = format!("{}:ct#741", test_data("oda/ers110_Motion.ODA").display());
    let o = simulate(&[entry.as_ref(), "--json".as_ref()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = &verdicts(&o)[0];
    assert_eq!(v["falls"], true);
    assert_eq!(v["first_posture_stands"], false);
    assert!(v["fall_time_s"].is_null(), "{v}");
    let o = simulate(&[entry.as_ref()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("its first posture does not stand: it FALLS while settling"),
        "{text}"
    );
    assert!(!text.contains("FALLS at"), "{text}");
    // A motion that stands has a first posture that stands.
    let o = simulate(&[data("sony_stand_sit.mtn").as_os_str(), "--json".as_ref()]);
    assert_eq!(verdicts(&o)[0]["first_posture_stands"], true);
}
