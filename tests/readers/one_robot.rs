//! One robot description (issue 44): for every AIBO model, the MJCF
//! (MuJoCo 4.0) and the URDF (read by `tests/readers/one_robot.py`, whose
//! forward kinematics is its own, written from the URDF specification) agree
//! on every servo (an actuator per URDF joint that moves, named by its PRM
//! name, with the same limits, speed and torque), on every body's parent,
//! mass, centre of mass and inertia, and on where every body is at random
//! angles within the limits with every servo turned: within 1e-9 m and
//! 1e-9 in each rotation matrix entry (both files carry the same `f64`s).

use crate::common::python::{readers, run};
use crate::common::repo;
use crate::urdf::export;
use std::ffi::OsStr;

/// Every model's servo count, as Sony's full-body motions carry them
/// (the PRM tables of docs/formats.md §1): the legs' 12 and the head's 3,
/// the tail's 2 and the mouth on the ERS-110, ERS-210 and ERS-7, the ears
/// on the ERS-210 and ERS-7.
const MODELS: [(&str, u64); 5] = [
    ("ERS-110", 18),
    ("ERS-210", 20),
    ("ERS-220", 15),
    ("ERS-310", 15),
    ("ERS-7", 20),
];

#[test]
fn mjcf_and_urdf_agree_on_every_joint_limit_servo_and_body_of_every_model() {
    let Some(python) = readers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<std::ffi::OsString> = vec!["44".into()];
    for (model, _) in MODELS {
        let xml = dir.path().join(format!("{model}.xml"));
        let urdf = dir.path().join(format!("{model}.urdf"));
        for out in [&xml, &urdf] {
            export(&[
                OsStr::new("--model"),
                OsStr::new(model),
                OsStr::new("--out"),
                out.as_os_str(),
            ]);
        }
        args.push(xml.into());
        args.push(urdf.into());
    }
    let script = std::fs::read_to_string(repo("tests/readers/one_robot.py")).unwrap();
    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let out = run(&python, &script, &args);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), MODELS.len(), "{out}");
    for ((model, servos), line) in MODELS.iter().zip(lines) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        eprintln!("{model}: {line}");
        assert_eq!(v["problems"], serde_json::json!([]), "{model}: {line}");
        assert_eq!(v["servos"], *servos, "{model}: {line}");
        // The trunk and a body per servo.
        assert_eq!(v["bodies"], servos + 1, "{model}: {line}");
        let (pos, rot) = (
            v["worst_m"].as_f64().unwrap(),
            v["worst_rotation"].as_f64().unwrap(),
        );
        assert!(pos < 1e-9 && rot < 1e-9, "{model}: {pos} m, {rot}");
    }
}
