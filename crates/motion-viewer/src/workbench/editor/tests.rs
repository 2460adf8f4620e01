//! The interactive editor (`workbench::Editor`) on real motions: every
//! operation checked by decoding the bytes it encodes and comparing the
//! keyframes with the original, values worked out here in f64.
use crate::common::workbench::{corpus, deg};
use crate::common::{data, test_data};

use motion_viewer::anim::aibo::rig_model;
use motion_viewer::anim::mtn::pose_at;
use motion_viewer::formats::aibo::{Joint, Leg, LegJoint};
use motion_viewer::formats::mtn::{self, Keyframe, Mtn};
use motion_viewer::workbench::{self, EditError, Editor, FindingKind, edited_path};
use std::path::Path;

const STAND_SIT: &str = "sony_stand_sit.mtn";
/// ERS-210 PRM names (see `viewer info data/sony_stand_sit.mtn`).
const LF_J1: &str = "PRM:/r2/c1-Joint2:j1";
const RF_J1: &str = "PRM:/r4/c1-Joint2:j1";
const HEAD_PAN: &str = "PRM:/r1/c1/c2-Joint2:j2";

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap()
}

fn open(name: &str) -> (Vec<u8>, Mtn, Editor) {
    let b = bytes(name);
    let m = mtn::decode(&b).unwrap();
    let e = Editor::from_bytes(&b).unwrap();
    (b, m, e)
}

/// What the editor's file reads back as.
fn saved(e: &Editor) -> Mtn {
    let m = mtn::decode(&e.encode()).unwrap();
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    m
}

fn joint(m: &Mtn, name: &str) -> usize {
    m.joints.iter().position(|j| j == name).unwrap()
}

/// Degrees to micro-radians, rounded, written out here.
fn urad(d: f64) -> i32 {
    (d * std::f64::consts::PI / 180.0 * 1e6).round() as i32
}

/// Frame of each keyframe, summed here from the interpolation counts.
fn frames(m: &Mtn) -> Vec<u64> {
    let mut f = 0;
    m.keyframes
        .iter()
        .enumerate()
        .map(|(i, k)| {
            if i > 0 {
                f += u64::from(k.interp) + 1;
            }
            f
        })
        .collect()
}

/// The keyframes of `a` and `b` that differ.
fn differing(a: &Mtn, b: &Mtn) -> Vec<usize> {
    assert_eq!(a.keyframes.len(), b.keyframes.len());
    (0..a.keyframes.len())
        .filter(|&i| a.keyframes[i] != b.keyframes[i])
        .collect()
}

#[test]
fn setting_a_joint_changes_exactly_that_value_and_undo_gives_the_bytes_back() {
    let (original_bytes, m, mut e) = open(STAND_SIT);
    let j = joint(&m, LF_J1);
    let applied = e.set_value(2, LF_J1, 10.0).unwrap();
    assert_eq!((applied.key, applied.message), (Some(2), None));
    assert!(e.is_dirty());
    assert_eq!(
        (e.undo_depth(), e.redo_depth(), e.selected()),
        (1, 0, Some(2))
    );
    let edited_bytes = e.encode();
    let back = saved(&e);
    assert_eq!(differing(&m, &back), vec![2]);
    let mut expected = m.keyframes[2].clone();
    expected.joints[j] = 174_533; // 10° = 174 532.925 µrad
    assert_eq!(expected.joints[j], urad(10.0));
    assert_eq!(back.keyframes[2], expected);
    assert!((e.value_deg(2, LF_J1).unwrap() - 10.0).abs() < 1e-4);
    // The short label names the same joint.
    assert_eq!(e.value_deg(2, "left_front_j1"), e.value_deg(2, LF_J1));

    assert!(e.undo());
    assert!(!e.is_dirty());
    assert_eq!(e.encode(), original_bytes);
    assert!(!e.undo(), "nothing more to undo");
    assert!(e.redo());
    assert_eq!(e.encode(), edited_bytes);
    assert!(!e.redo());
}

#[test]
fn body_channels_are_set_in_micro_radians() {
    let (_, m, mut e) = open(STAND_SIT);
    e.set_value(1, "pitch_deg", -12.5).unwrap();
    e.set_value(1, "roll_deg", 3.0).unwrap();
    let back = saved(&e);
    assert_eq!(differing(&m, &back), vec![1]);
    let k = &back.keyframes[1];
    assert_eq!(
        (k.roll, k.pitch, k.yaw),
        (urad(3.0), urad(-12.5), m.keyframes[1].yaw)
    );
    assert_eq!(k.joints, m.keyframes[1].joints);
    assert_eq!(e.undo_depth(), 2);
}

#[test]
fn a_value_past_the_mechanical_stop_is_set_to_the_stop_with_checks_words() {
    let (_, m, mut e) = open(STAND_SIT);
    // The ERS-210 rotator: Tekkotsu's software limit ±117°, its mechanical
    // limit (ERS210Info.h `mechanicalLimits`) ±120°.
    let limit = *rig_model(m.model().unwrap())
        .limit(Joint::Leg(Leg::LeftFront, LegJoint::Rotator))
        .unwrap();
    assert_eq!((limit.min_deg, limit.max_deg), (-117.0, 117.0));
    for (asked, stop) in [(157.0, 120.0), (-157.0, -120.0)] {
        let applied = e.set_value(3, LF_J1, asked).unwrap();
        let message = applied.message.expect("a clamp is said");
        let stored = deg(f64::from(saved(&e).keyframes[3].joints[joint(&m, LF_J1)]));
        // Within one micro-radian of the stop, and not past it.
        assert!((stored - stop).abs() < deg(1.0), "{stored}");
        assert!(stored.abs() <= 120.0, "{stored} inside");
        // `check`'s error sentence for the value asked, then the clamp.
        let m2 = with_lf_j1(&m, asked);
        let error = workbench::check(&m2)
            .findings
            .into_iter()
            .find(|f| f.kind == FindingKind::Limit)
            .unwrap();
        assert_eq!(error.severity, workbench::Severity::Error);
        assert_eq!(
            message,
            format!("{}: set to the stop, {stop:.2}°", error.message)
        );
        assert!(message.contains("past its mechanical stop"), "{message}");
        // The value at the stop is past the limit, within the stop: the
        // warning `check` gives it too.
        let findings: Vec<_> = e
            .report()
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::Limit && f.keyframe == Some(3))
            .collect();
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].severity, workbench::Severity::Warning);
    }
    // Body angles have no limit.
    assert_eq!(e.set_value(3, "yaw_deg", 170.0).unwrap().message, None);
    // Not a number is refused, not stored.
    let depth = e.undo_depth();
    assert!(matches!(
        e.set_value(3, LF_J1, f64::NAN),
        Err(EditError::Refused(_))
    ));
    assert_eq!(e.undo_depth(), depth);
}

/// `m` with the left front rotator of keyframe 3 at `deg`.
fn with_lf_j1(m: &Mtn, deg: f64) -> Mtn {
    let mut m = m.clone();
    let j = joint(&m, LF_J1);
    m.keyframes[3].joints[j] = (deg * 1_000_000.0 * std::f64::consts::PI / 180.0).round() as i32;
    m
}

#[test]
fn a_value_past_the_limit_within_the_stop_is_kept_with_checks_warning() {
    let (_, m, mut e) = open(STAND_SIT);
    // 2° past the rotator's 117° limit, 1° short of its 120° stop.
    let applied = e.set_value(3, LF_J1, 119.0).unwrap();
    let stored = deg(f64::from(saved(&e).keyframes[3].joints[joint(&m, LF_J1)]));
    assert!((stored - 119.0).abs() < deg(1.0), "{stored}");
    let warning = workbench::check(&with_lf_j1(&m, 119.0))
        .findings
        .into_iter()
        .find(|f| f.kind == FindingKind::Limit)
        .unwrap();
    assert_eq!(warning.severity, workbench::Severity::Warning);
    assert_eq!(applied.message.as_deref(), Some(warning.message.as_str()));
    assert!(warning.message.contains("within its mechanical stop"));
}

#[test]
fn moving_a_key_changes_the_counts_around_it() {
    let (_, m, mut e) = open(STAND_SIT);
    let f = frames(&m);
    let period = f64::from(m.frame_ms()) / 1000.0;
    // Three frames later, with a time 0.3 frame off the grid.
    let applied = e.move_key(2, (f[2] as f64 + 3.3) * period).unwrap();
    assert_eq!((applied.key, applied.message), (Some(2), None));
    let back = saved(&e);
    assert_eq!(differing(&m, &back), vec![2, 3]);
    assert_eq!(back.keyframes[2].interp, m.keyframes[2].interp + 3);
    assert_eq!(back.keyframes[3].interp, m.keyframes[3].interp - 3);
    assert_eq!(frames(&back)[2], f[2] + 3);
    assert_eq!(frames(&back)[5], f[5], "the duration stays");
    // Angles unchanged.
    for (a, b) in m.keyframes.iter().zip(&back.keyframes) {
        assert_eq!(
            (a.roll, a.pitch, a.yaw, &a.joints),
            (b.roll, b.pitch, b.yaw, &b.joints)
        );
    }
    // Past the next keyframe: kept one frame before it.
    let applied = e.move_key(2, 100.0).unwrap();
    assert!(applied.message.is_some());
    assert_eq!(frames(&saved(&e))[2], f[3] - 1);
    assert_eq!(saved(&e).keyframes[3].interp, 0);
    // Before the previous one: one frame after it.
    e.move_key(2, -5.0).unwrap();
    assert_eq!(frames(&saved(&e))[2], f[1] + 1);
    // The last keyframe moves the end.
    e.move_key(5, (f[5] + 10) as f64 * period).unwrap();
    assert_eq!(frames(&saved(&e))[5], f[5] + 10);
    assert_eq!(e.undo_depth(), 4);
    // The first keyframe stays at 0; NaN is refused.
    assert!(matches!(e.move_key(0, 1.0), Err(EditError::Refused(_))));
    assert!(matches!(
        e.move_key(1, f64::NAN),
        Err(EditError::Refused(_))
    ));
    assert_eq!(e.undo_depth(), 4);
    while e.undo() {}
    assert_eq!(e.encode(), bytes(STAND_SIT));
}

#[test]
fn inserting_a_key_keeps_the_motion_playing_the_same() {
    let (_, m, mut e) = open(STAND_SIT);
    let f = frames(&m);
    let period = f64::from(m.frame_ms()) / 1000.0;
    let at = f[1] + 17; // inside segment 1 → 2
    assert!(at < f[2]);
    let applied = e.insert_key(at as f64 * period + 0.004).unwrap();
    assert_eq!(applied.key, Some(2));
    let back = saved(&e);
    assert_eq!(back.keyframes.len(), m.keyframes.len() + 1);
    assert_eq!(frames(&back)[2], at);
    assert_eq!(frames(&back)[3..], f[2..]);
    assert_eq!(back.keyframes[2].interp, (at - f[1] - 1) as u32);
    assert_eq!(back.keyframes[3].interp, (f[2] - at - 1) as u32);
    // The new key's angles: on the line between its neighbours, computed here.
    let u = (at - f[1]) as f64 / (f[2] - f[1]) as f64;
    let (a, b, k) = (&m.keyframes[1], &m.keyframes[2], &back.keyframes[2]);
    for (j, &v) in k.joints.iter().enumerate() {
        let exact = f64::from(a.joints[j]) + (f64::from(b.joints[j]) - f64::from(a.joints[j])) * u;
        assert!(
            (f64::from(v) - exact).abs() <= 0.5,
            "joint {j}: {v} vs {exact}"
        );
    }
    // Sampled finely, both motions agree within a micro-radian.
    let end = m.duration_s();
    for i in 0..=1000 {
        let t = end * f64::from(i) / 1000.0;
        let (p, q) = (pose_at(&m, t), pose_at(&back, t));
        for (x, y) in p
            .joints_deg
            .iter()
            .chain(&p.body_deg)
            .zip(q.joints_deg.iter().chain(&q.body_deg))
        {
            assert!((x - y).abs() <= deg(1.0), "t = {t}: {x} vs {y}");
        }
    }
    // On a keyframe's own frame: refused.
    assert!(matches!(
        e.insert_key(f[1] as f64 * period),
        Err(EditError::Refused(_))
    ));
    assert!(matches!(e.insert_key(-1.0), Err(EditError::Refused(_))));
    // Past the end: a key holding the last pose.
    let applied = e.insert_key(end + 1.0).unwrap();
    let back = saved(&e);
    let n = back.keyframes.len();
    assert_eq!(applied.key, Some(n - 1));
    let (last, before) = (&back.keyframes[n - 1], &back.keyframes[n - 2]);
    assert_eq!(
        (last.roll, last.pitch, last.yaw, &last.joints),
        (before.roll, before.pitch, before.yaw, &before.joints)
    );
    assert_eq!(frames(&back)[n - 1], f[5] + (1.0 / period).round() as u64);
    e.undo();
    e.undo();
    assert_eq!(e.encode(), bytes(STAND_SIT));
}

#[test]
fn deleting_keys_joins_segments_and_never_the_last_one() {
    let (_, m, mut e) = open(STAND_SIT);
    let f = frames(&m);
    e.delete_key(2).unwrap();
    let back = saved(&e);
    let mut expected = m.keyframes.clone();
    expected.remove(2);
    expected[2].interp = (f[3] - f[1] - 1) as u32;
    assert_eq!(back.keyframes, expected);
    assert_eq!(frames(&back).last(), f.last(), "the duration stays");
    // The first: the next one starts the motion.
    e.delete_key(0).unwrap();
    assert_eq!(
        saved(&e).keyframes[0],
        Keyframe {
            interp: 0,
            ..m.keyframes[1].clone()
        }
    );
    // The last: the motion ends at the one before.
    let n = e.motion().keyframes.len();
    e.delete_key(n - 1).unwrap();
    assert_eq!(e.motion().keyframes.len(), n - 1);
    while e.motion().keyframes.len() > 1 {
        e.delete_key(0).unwrap();
    }
    assert!(matches!(e.delete_key(0), Err(EditError::Refused(_))));
    assert_eq!(e.motion().keyframes.len(), 1);
    // The motion with one key still writes a file that reads back.
    assert_eq!(saved(&e).keyframes.len(), 1);
    while e.undo() {}
    assert_eq!(e.encode(), bytes(STAND_SIT));
}

#[test]
fn copy_paste_and_mirror_a_pose() {
    let (_, m, mut e) = open(STAND_SIT);
    assert!(matches!(e.paste_pose(1), Err(EditError::Refused(_))));
    e.copy_pose(0).unwrap();
    e.paste_pose(4).unwrap();
    let back = saved(&e);
    assert_eq!(differing(&m, &back), vec![4]);
    let (k, first) = (&back.keyframes[4], &m.keyframes[0]);
    assert_eq!(k.interp, m.keyframes[4].interp, "the timing stays");
    assert_eq!(
        (k.roll, k.pitch, k.yaw, &k.joints),
        (first.roll, first.pitch, first.yaw, &first.joints)
    );

    // Sony's keyframes are symmetric: make keyframe 2 lopsided first.
    e.set_value(2, LF_J1, 10.0).unwrap();
    e.set_value(2, "roll_deg", 2.0).unwrap();
    let lopsided = e.motion().clone();
    e.mirror_key(2).unwrap();
    let back = saved(&e);
    assert_eq!(differing(&m, &back), vec![2, 4]);
    let (k, old) = (&back.keyframes[2], &lopsided.keyframes[2]);
    // Left and right front legs trade angles, head pan and body roll/yaw change sign.
    assert_eq!(k.joints[joint(&m, RF_J1)], urad(10.0));
    assert_eq!(k.joints[joint(&m, LF_J1)], old.joints[joint(&m, RF_J1)]);
    assert_eq!(
        k.joints[joint(&m, HEAD_PAN)],
        -old.joints[joint(&m, HEAD_PAN)]
    );
    assert_eq!((k.roll, k.pitch, k.yaw), (-urad(2.0), old.pitch, -old.yaw));
    // The same as the whole-motion mirror at that key.
    assert_eq!(
        *k,
        workbench::mirror(&lopsided).unwrap().motion.keyframes[2]
    );
    e.mirror_key(2).unwrap();
    assert_eq!(
        saved(&e).keyframes,
        lopsided.keyframes,
        "mirroring twice gives the key back"
    );
    assert_eq!(e.undo_depth(), 5);
}

#[test]
fn undo_and_redo_sequences() {
    let (original, m, mut e) = open("skitter_sleep_to_sit.mtn");
    let name = m.joints[0].clone();
    e.set_value(1, &name, 5.0).unwrap();
    let after1 = e.encode();
    e.insert_key(0.05).unwrap();
    let after2 = e.encode();
    e.set_value(2, "yaw_deg", -7.0).unwrap();
    let after3 = e.encode();
    assert_eq!((e.undo_depth(), e.redo_depth()), (3, 0));
    assert!(e.undo() && e.undo());
    assert_eq!(e.encode(), after1);
    assert_eq!((e.undo_depth(), e.redo_depth()), (1, 2));
    assert!(e.redo());
    assert_eq!(e.encode(), after2);
    assert!(e.redo());
    assert_eq!(e.encode(), after3);
    // A new edit after undo drops what could have been redone.
    e.undo();
    e.delete_key(0).unwrap();
    assert_eq!(e.redo_depth(), 0);
    assert!(!e.redo());
    while e.undo() {}
    assert_eq!(e.encode(), original);
    assert!(!e.is_dirty());
    // An edit that changes nothing is no step.
    let v = e.value_deg(1, &name).unwrap();
    e.set_value(1, &name, v).unwrap();
    assert_eq!(e.undo_depth(), 0);
    assert!(!e.is_dirty());
}

#[test]
fn a_gesture_is_one_undo_step() {
    let (original, _, mut e) = open(STAND_SIT);
    e.begin_gesture();
    for d in [1.0, 2.0, 3.0, 4.0] {
        e.set_value(2, LF_J1, d).unwrap();
        e.move_key(2, 1.8 + d * 0.016).unwrap();
    }
    e.end_gesture();
    assert_eq!(e.undo_depth(), 1);
    assert!((e.value_deg(2, LF_J1).unwrap() - 4.0).abs() < 1e-4);
    e.undo();
    assert_eq!(e.encode(), original);
    // A gesture that ends where it began leaves nothing to undo.
    e.begin_gesture();
    let v = e.value_deg(2, LF_J1).unwrap();
    e.set_value(2, LF_J1, v + 1.0).unwrap();
    e.set_value(2, LF_J1, v).unwrap();
    e.end_gesture();
    assert_eq!(e.undo_depth(), 0);
}

#[test]
fn findings_follow_the_edits() {
    let (_, m, mut e) = open(STAND_SIT);
    let speed_at = |e: &Editor, k| {
        e.report()
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::Speed && f.keyframe == Some(k))
            .count()
    };
    assert_eq!(e.report(), &workbench::check(&m));
    assert_eq!(speed_at(&e, 2), 0);
    // Keyframe 2 a frame after keyframe 1 with the knee swung by 60°: too fast.
    let period = f64::from(m.frame_ms()) / 1000.0;
    let knee = "PRM:/r2/c1/c2/c3-Joint2:j3";
    let was = e.value_deg(1, knee).unwrap();
    e.set_value(2, knee, was + 60.0).unwrap();
    e.move_key(2, (frames(&m)[1] + 1) as f64 * period).unwrap();
    assert!(speed_at(&e, 2) > 0, "{:?}", e.report().findings);
    e.undo();
    e.undo();
    assert_eq!(e.report(), &workbench::check(&m));
}

#[test]
fn bad_indices_and_channels_are_errors() {
    let (original, _, mut e) = open(STAND_SIT);
    let none =
        |r: Result<_, EditError>| matches!(r, Err(EditError::NoKeyframe { key: 6, count: 6 }));
    assert!(none(e.set_value(6, LF_J1, 1.0)));
    assert!(none(e.move_key(6, 1.0)));
    assert!(none(e.delete_key(6)));
    assert!(none(e.paste_pose(6)));
    assert!(none(e.mirror_key(6)));
    assert!(none(e.copy_pose(6).map(|()| Default::default())));
    assert!(matches!(
        e.set_value(usize::MAX, LF_J1, 1.0),
        Err(EditError::NoKeyframe { .. })
    ));
    assert!(matches!(e.set_value(0, "elbow", 1.0), Err(EditError::NoChannel(c)) if c == "elbow"));
    assert_eq!(e.value_deg(6, LF_J1), None);
    assert_eq!(e.value_deg(0, "elbow"), None);
    e.select(Some(99));
    assert_eq!(e.selected(), None);
    e.select(Some(5));
    assert_eq!(e.selected(), Some(5));
    let message = e.delete_key(6).unwrap_err().to_string();
    assert!(
        message.contains("keyframe 6") && message.contains('6'),
        "{message}"
    );
    assert_eq!((e.undo_depth(), e.encode()), (0, original));
}

#[test]
fn every_real_motion_saves_its_own_bytes_after_an_edit_is_undone() {
    let mut count = 0;
    for (label, bytes) in corpus() {
        let mut e = Editor::from_bytes(&bytes).unwrap_or_else(|err| panic!("{label}: {err}"));
        assert_eq!(e.encode(), bytes, "{label}: unedited");
        let name = e.motion().joints[0].clone();
        let v = e.value_deg(0, &name).unwrap();
        e.set_value(0, &name, v + 1.0).unwrap();
        let back = mtn::decode(&e.encode()).unwrap();
        assert!(back.warnings.is_empty(), "{label}: {:?}", back.warnings);
        assert_eq!(
            back.keyframes.len(),
            e.original().keyframes.len(),
            "{label}"
        );
        assert_eq!(differing(e.original(), &back), vec![0], "{label}");
        assert!(e.undo());
        assert_eq!(e.encode(), bytes, "{label}: undone");
        count += 1;
    }
    assert_eq!(count, 588 + 27 + 2);
    // The two files whose declared sizes lie are the ones kept as bytes.
    for file in [
        "cartheur-aibo__aibo-lab/sit_lose01.mtn",
        "Doggies-Galore__AIBOMotionWorkbench/KnownGoodERS7.mtn",
    ] {
        let bytes = std::fs::read(test_data("mtn").join(file)).unwrap();
        let m = mtn::decode(&bytes).unwrap();
        assert_ne!(
            mtn::encode(&m),
            bytes,
            "{file} does not re-encode to itself"
        );
        assert_eq!(Editor::new(m.clone()).encode(), mtn::encode(&m));
        assert_eq!(Editor::from_bytes(&bytes).unwrap().encode(), bytes);
    }
}

#[test]
fn the_default_save_path_is_beside_the_original() {
    assert_eq!(
        edited_path(Path::new("/m/a_stand#sit_S.mtn")),
        Path::new("/m/a_stand#sit_S-edited.mtn")
    );
    assert_eq!(
        edited_path(Path::new("walk.MTN")),
        Path::new("walk-edited.mtn")
    );
    assert_eq!(
        edited_path(Path::new("dir/noext")),
        Path::new("dir/noext-edited.mtn")
    );
}
