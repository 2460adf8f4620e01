//! `check`: joint limits, servo speeds, names and postures, on real and crafted motions.
use crate::common;
use common::data;

use crate::common::workbench as workbench_common;

use motion_viewer::formats::aibo::Model;
use motion_viewer::formats::mtn::{self, Mtn};
use motion_viewer::workbench::{self, FindingKind, Severity};
use workbench_common::motions;

fn sony_seed() -> Mtn {
    mtn::decode(&std::fs::read(data("sony_stand_sit.mtn")).unwrap()).unwrap()
}

/// Degrees to the file's micro-radians, computed here.
fn urad(deg: f64) -> i32 {
    (deg * 1_000_000.0 * std::f64::consts::PI / 180.0).round() as i32
}

#[test]
fn sonys_stand_sit_seed_is_clean() {
    let report = workbench::check(&sony_seed());
    assert!(report.is_clean(), "{:#?}", report.findings);
    assert_eq!((report.errors, report.warnings), (0, 0));
    assert_eq!(report.model, Some(Model::Ers210));
    assert_eq!(report.keyframes, 6);
    assert!(!report.limits.unwrap().estimated);
    assert!(!report.speeds.unwrap().estimated);
}

/// The seed with a keyframe one frame after keyframe 1 that turns the left
/// front rotator (joint 6) 30° further, and the left front knee (joint 8) at
/// 160°, 13° past the ERS-210's 147°.
fn crafted() -> Mtn {
    let mut m = sony_seed();
    let mut jump = m.keyframes[1].clone();
    jump.interp = 0;
    jump.joints[6] += urad(30.0);
    jump.joints[8] = urad(160.0);
    m.keyframes.insert(2, jump);
    // Keyframe 3 keeps its time: one frame went to the new keyframe.
    m.keyframes[3].interp -= 1;
    m
}

#[test]
fn a_crafted_motion_is_flagged_for_speed_and_limit() {
    let m = crafted();
    let report = workbench::check(&m);
    assert_eq!(report.errors, 1, "{:#?}", report.findings);
    let limit = report
        .findings
        .iter()
        .find(|f| f.severity == Severity::Error)
        .unwrap();
    assert_eq!(limit.kind, FindingKind::Limit);
    assert_eq!(limit.keyframe, Some(2));
    assert_eq!(limit.joint.as_deref(), Some("left_front_j3"));
    // Frame 62 at 16 ms.
    assert!((limit.time_s.unwrap() - 0.992).abs() < 1e-12);
    assert!(
        limit
            .message
            .contains("160.00°, 13.00° past its limit -27..147°"),
        "{}",
        limit.message
    );

    let fast: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::Speed && f.joint.as_deref() == Some("left_front_j1"))
        .collect();
    // Into the jump (30° in 1 frame) and back out of it (30° in 50 frames is slow enough).
    assert_eq!(fast.len(), 1, "{fast:#?}");
    assert_eq!(
        (fast[0].severity, fast[0].keyframe),
        (Severity::Warning, Some(2))
    );
    // ERS-210 rotator: 2.8143434 rad/s × 16 ms = 2.58°/frame; 30° in one frame is 11.6×.
    assert!(
        fast[0]
            .message
            .contains("30.00°/frame, 11.6× the 2.58°/frame"),
        "{}",
        fast[0].message
    );
    // The knee jumps too: 160 − 115 = 45° in one frame.
    assert!(report.findings.iter().any(|f| f.kind == FindingKind::Speed
        && f.joint.as_deref() == Some("left_front_j3")
        && f.message.contains("turns 45.0° in 1 frame")));
}

#[test]
fn a_few_degrees_past_a_limit_is_a_warning() {
    let mut m = sony_seed();
    // Left hind knee (joint 11) at 149°: 2° past 147°.
    m.keyframes[2].joints[11] = urad(149.0);
    let report = workbench::check(&m);
    assert_eq!(
        (report.errors, report.warnings),
        (0, 1),
        "{:#?}",
        report.findings
    );
    assert_eq!(report.findings[0].kind, FindingKind::Limit);
}

#[test]
fn names_are_checked_against_the_robots_rules() {
    let cases = [
        ("a_stand#sit_S", None),
        (
            "stand_to_sit",
            Some((Severity::Error, "is not g_start#end_description")),
        ),
        (
            "l_stand#sit_S",
            Some((Severity::Error, "starts with \"l\" (legs servos)")),
        ),
        (
            "a_stand#perch_S",
            Some((Severity::Warning, "posture \"perch\" is not one AIBO knows")),
        ),
        (
            "a_stand#sit_S!",
            Some((Severity::Warning, "other than letters, digits and _")),
        ),
    ];
    for (name, expected) in cases {
        let mut m = sony_seed();
        m.name = name.into();
        m.pad_sections();
        let names: Vec<_> = workbench::check(&m)
            .findings
            .into_iter()
            .filter(|f| f.kind == FindingKind::Name)
            .collect();
        match expected {
            None => assert!(names.is_empty(), "{name}: {names:?}"),
            Some((severity, text)) => {
                assert_eq!(names.len(), 1, "{name}: {names:?}");
                assert_eq!(names[0].severity, severity, "{name}");
                assert!(
                    names[0].message.contains(text),
                    "{name}: {}",
                    names[0].message
                );
            }
        }
    }
}

#[test]
fn start_and_end_are_checked_against_the_standard_postures() {
    // The seed starts standing: called a sit-to-sit motion, its start is 110°
    // off at the hind knees (stand 25° against sit 135°); its end is a sit.
    let mut m = sony_seed();
    m.name = "a_sit#sit_S".into();
    let postures: Vec<_> = workbench::check(&m)
        .findings
        .into_iter()
        .filter(|f| f.kind == FindingKind::Posture)
        .collect();
    assert_eq!(postures.len(), 1, "{postures:?}");
    assert_eq!(postures[0].keyframe, Some(0));
    assert!(
        postures[0]
            .message
            .starts_with("starts 110.0° from the standard ERS-210 sit pose"),
        "{}",
        postures[0].message
    );
}

#[test]
fn no_sony_motion_has_a_limit_error_and_reports_serialise() {
    let mut limit_warnings = 0;
    for (label, _, m) in motions() {
        let report = workbench::check(&m);
        for f in &report.findings {
            if f.kind == FindingKind::Limit {
                assert_eq!(f.severity, Severity::Warning, "{label}: {}", f.message);
                limit_warnings += 1;
            }
        }
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["errors"], report.errors, "{label}");
        assert!(json["findings"].is_array());
    }
    // Sony's ERS-7 posture changes take the hind knees to 125°, 3° past 122°.
    assert!(limit_warnings > 0);
    let json = serde_json::to_value(workbench::check(&crafted())).unwrap();
    assert_eq!(json["model"], "ERS-210");
    assert_eq!(json["limits"]["estimated"], false);
    let error = &json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["severity"] == "error")
        .unwrap();
    assert_eq!(error["kind"], "limit");
    assert_eq!(error["keyframe"], 2);
    assert_eq!(error["joint"], "left_front_j3");
}

#[test]
fn estimates_are_marked_and_structure_is_checked() {
    let cd1 = mtn::decode(
        &std::fs::read(common::test_data("mtn/cartheur-aibo__r-code/cd#1.mtn")).unwrap(),
    )
    .unwrap();
    let report = workbench::check(&cd1);
    assert!(report.limits.unwrap().estimated);
    assert!(report.speeds.unwrap().estimated);
    let mut one = sony_seed();
    one.keyframes.truncate(1);
    one.frame_rate = 8;
    let report = workbench::check(&one);
    let structure: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::Structure)
        .map(|f| f.message.as_str())
        .collect();
    assert!(
        structure.iter().any(|m| m.contains("1 keyframe(s)")),
        "{structure:?}"
    );
    assert!(
        structure.iter().any(|m| m.contains("8 ms frames")),
        "{structure:?}"
    );
}
