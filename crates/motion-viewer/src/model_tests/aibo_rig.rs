//! AIBO forward kinematics: zero-angle geometry against the offsets of docs/formats.md §1,
//! sign conventions, limits, neutral fill, body attitude and real motions.

use motion_viewer::anim::aibo::{
    JointAngles, POINT_NAMES, body_box, bones, forward_kinematics, head_box, rig_model,
};
use motion_viewer::formats::aibo::{Joint, Leg, LegJoint, Model};

const TOL: f64 = 1e-9;

#[track_caller]
fn assert_point(actual: Option<[f64; 3]>, expected: [f64; 3]) {
    let actual = actual.expect("point exists");
    for i in 0..3 {
        assert!(
            (actual[i] - expected[i]).abs() < 1e-6,
            "{actual:?} != {expected:?}"
        );
    }
}

/// Every joint of the model at 0°.
fn zeros(model: Model) -> JointAngles {
    rig_model(model).joints().map(|j| (j, 0.0)).collect()
}

fn with(model: Model, set: &[(Joint, f64)]) -> JointAngles {
    let mut angles = zeros(model);
    angles.extend(set.iter().copied());
    angles
}

const LF1: Joint = Joint::Leg(Leg::LeftFront, LegJoint::Rotator);
const LF2: Joint = Joint::Leg(Leg::LeftFront, LegJoint::Elevator);
const LF3: Joint = Joint::Leg(Leg::LeftFront, LegJoint::Knee);
const LH1: Joint = Joint::Leg(Leg::LeftHind, LegJoint::Rotator);

#[test]
fn ers7_zero_angle_geometry_is_the_notes_offsets_summed() {
    let pose = forward_kinematics(Model::Ers7, &zeros(Model::Ers7), [0.0; 3]);
    // Shoulder (65, 62.5, 0); knee 9 toward J1 + (forward on the front leg,
    // backward on the hind), 69.5 down; foot (-5.0, 4.7, -65.2) from the knee
    // in the front leg frame, 67.45 down on the hind (|(5, 4.7, 67.45)| ≈ 67.8).
    assert_point(pose.body_point("left_front_shoulder"), [65.0, 62.5, 0.0]);
    assert_point(pose.body_point("left_front_knee"), [74.0, 62.5, -69.5]);
    assert_point(pose.body_point("left_front_paw"), [69.0, 67.2, -134.7]);
    assert_point(pose.body_point("right_front_paw"), [69.0, -67.2, -134.7]);
    assert_point(pose.body_point("right_hind_shoulder"), [-65.0, -62.5, 0.0]);
    assert_point(pose.body_point("right_hind_knee"), [-74.0, -62.5, -69.5]);
    assert_point(pose.body_point("right_hind_paw"), [-69.0, -67.2, -136.95]);
    assert_point(pose.body_point("left_hind_paw"), [-69.0, 67.2, -136.95]);
    // Neck axis (67.5, 0, 19.5); nod axis 80 above it; head 81 forward of that.
    assert_point(pose.body_point("neck"), [67.5, 0.0, 19.5]);
    assert_point(pose.body_point("head"), [148.5, 0.0, 99.5]);
    assert_point(pose.body_point("tail_base"), [-102.0, 0.0, 33.0]);
    // The tail points straight back at zero tilt and pan.
    let tip = pose.body_point("tail_tip").unwrap();
    assert!(
        tip[0] < -102.0 && tip[1] == 0.0 && tip[2] == 33.0,
        "{tip:?}"
    );
}

#[test]
fn ers210_zero_angle_geometry_is_the_notes_offsets_summed() {
    let pose = forward_kinematics(Model::Ers210, &zeros(Model::Ers210), [0.0; 3]);
    // Shoulder (59.5, 59.2, 0) + upper (12.8, 0.5, -64) + lower (-18.88, 0, -66).
    assert_point(pose.body_point("left_front_knee"), [72.3, 59.7, -64.0]);
    assert_point(pose.body_point("left_front_paw"), [53.42, 59.7, -130.0]);
    // Hind: upper 12.8 backward, lower (29.36, 0, -70.88) in the body frame.
    assert_point(pose.body_point("right_hind_knee"), [-72.3, -59.7, -64.0]);
    assert_point(pose.body_point("right_hind_paw"), [-42.94, -59.7, -134.88]);
    // Neck (75, 0, 50), roll axis 48 up, head 66.6 beyond.
    assert_point(pose.body_point("head"), [141.6, 0.0, 98.0]);
    assert_point(pose.body_point("tail_base"), [-76.9, 0.0, 53.0]);
}

#[test]
fn ers220_shares_the_ers210_legs() {
    let a = forward_kinematics(Model::Ers210, &zeros(Model::Ers210), [0.0; 3]);
    let b = forward_kinematics(Model::Ers220, &zeros(Model::Ers220), [0.0; 3]);
    for leg in ["left_front", "right_front", "left_hind", "right_hind"] {
        for part in ["shoulder", "knee", "paw"] {
            let name = format!("{leg}_{part}");
            assert_eq!(a.body_point(&name), b.body_point(&name), "{name}");
        }
    }
}

#[test]
fn ers110_zero_angle_front_leg_is_the_notes_offsets_summed() {
    let pose = forward_kinematics(Model::Ers110, &zeros(Model::Ers110), [0.0; 3]);
    // (44.85, 59.2, 0) + (13, 5.5, -61) + (-9.5, 1.06, -58): the shoulders
    // at the ERS-210's ±59.2 (docs/physics.md, rig check), not the notes' ±26.5
    // that stood the paws inside the 90 mm body.
    assert_point(pose.body_point("left_front_paw"), [48.35, 65.76, -119.0]);
    // Hind: (-44.85, 59.2, 0) + (-13, 5.5, -61) + (19, 1.06, -69).
    assert_point(pose.body_point("left_hind_paw"), [-38.85, 65.76, -130.0]);
    // The paws stand outside the body box, as on every AIBO.
    let (centre, half) = body_box(Model::Ers110);
    assert!(65.76 > centre[1] + half[1], "{half:?}");
}

#[test]
fn every_model_has_the_same_named_points_and_bones() {
    for model in Model::ALL {
        let pose = forward_kinematics(model, &JointAngles::new(), [0.0; 3]);
        let names: Vec<&str> = pose.body.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, POINT_NAMES, "{model}");
        let world: Vec<&str> = pose.world.iter().map(|(n, _)| *n).collect();
        assert_eq!(world, POINT_NAMES, "{model}");
        for (a, b) in bones(model) {
            assert!(
                POINT_NAMES.contains(a) && POINT_NAMES.contains(b),
                "{a}-{b}"
            );
        }
        for name in POINT_NAMES {
            assert!(
                bones(model).iter().any(|(a, b)| *a == name || *b == name),
                "{name} is drawn"
            );
        }
        let (_, half) = body_box(model);
        assert!(half.iter().all(|h| *h > 0.0), "{model}");
        let (_, half) = head_box(model);
        assert!(half.iter().all(|h| *h > 0.0), "{model}");
    }
}

#[test]
fn j1_plus_swings_front_forward_and_hind_backward() {
    let m = Model::Ers7;
    // A 90° swing turns the upper leg (9, -69.5) in (x', z) to (69.5, 9).
    let pose = forward_kinematics(m, &with(m, &[(LF1, 90.0), (LH1, 90.0)]), [0.0; 3]);
    assert_point(pose.body_point("left_front_knee"), [134.5, 62.5, 9.0]);
    assert_point(pose.body_point("left_hind_knee"), [-134.5, 62.5, 9.0]);
    // A small swing moves the paws the same way.
    let rest = forward_kinematics(m, &zeros(m), [0.0; 3]);
    let swung = forward_kinematics(m, &with(m, &[(LF1, 20.0), (LH1, 20.0)]), [0.0; 3]);
    let x = |p: &motion_viewer::anim::aibo::RigPose, n: &str| p.body_point(n).unwrap()[0];
    assert!(x(&swung, "left_front_paw") > x(&rest, "left_front_paw") + 40.0);
    assert!(x(&swung, "left_hind_paw") < x(&rest, "left_hind_paw") - 40.0);
}

#[test]
fn j2_plus_moves_every_paw_away_from_the_body() {
    let m = Model::Ers7;
    let rest = forward_kinematics(m, &zeros(m), [0.0; 3]);
    let mut set = Vec::new();
    for leg in Leg::ALL {
        set.push((Joint::Leg(leg, LegJoint::Elevator), 30.0));
    }
    let spread = forward_kinematics(m, &with(m, &set), [0.0; 3]);
    for name in [
        "left_front_paw",
        "right_front_paw",
        "left_hind_paw",
        "right_hind_paw",
    ] {
        let before = rest.body_point(name).unwrap()[1].abs();
        let after = spread.body_point(name).unwrap()[1].abs();
        assert!(after > before + 30.0, "{name}: {before} -> {after}");
    }
    // 90°: the upper leg (0, -69.5) in (y', z) turns to (69.5, 0), outward.
    let pose = forward_kinematics(m, &with(m, &[(LF2, 90.0)]), [0.0; 3]);
    assert_point(pose.body_point("left_front_knee"), [74.0, 132.0, 0.0]);
}

#[test]
fn j3_plus_moves_the_foot_in_the_j1_plus_direction() {
    let m = Model::Ers7;
    // Knee 90°: the lower leg (-5, -65.2) in (x', z) turns to (65.2, -5).
    let pose = forward_kinematics(m, &with(m, &[(LF3, 90.0)]), [0.0; 3]);
    assert_point(pose.body_point("left_front_paw"), [139.2, 67.2, -74.5]);
    let lh3 = Joint::Leg(Leg::LeftHind, LegJoint::Knee);
    let rest = forward_kinematics(m, &zeros(m), [0.0; 3]);
    let bent = forward_kinematics(m, &with(m, &[(lh3, 30.0)]), [0.0; 3]);
    assert!(
        bent.body_point("left_hind_paw").unwrap()[0]
            < rest.body_point("left_hind_paw").unwrap()[0] - 20.0
    );
}

#[test]
fn head_tilt_plus_raises_and_pan_plus_turns_left() {
    let m = Model::Ers210;
    let (s, c) = 30f64.to_radians().sin_cos();
    // Tilt 30° up: the 48 mm neck leans back, the 66.6 mm head points up.
    let tilt = forward_kinematics(m, &with(m, &[(Joint::HeadTilt, 30.0)]), [0.0; 3]);
    assert_point(
        tilt.body_point("head"),
        [75.0 - 48.0 * s + 66.6 * c, 0.0, 50.0 + 48.0 * c + 66.6 * s],
    );
    assert!(tilt.body_point("head").unwrap()[2] > 98.0);
    // Pan 30° left.
    let pan = forward_kinematics(m, &with(m, &[(Joint::HeadPan, 30.0)]), [0.0; 3]);
    assert_point(pan.body_point("head"), [75.0 + 66.6 * c, 66.6 * s, 98.0]);
    // ERS-7 tilt only goes down (-75..0): tilting down lowers the head.
    let e7 = Model::Ers7;
    let down = forward_kinematics(e7, &with(e7, &[(Joint::HeadTilt, -30.0)]), [0.0; 3]);
    assert!(down.body_point("head").unwrap()[2] < 99.5);
    // The ERS-7 nod + raises the head about the nod axis (67.5, 0, 99.5).
    let nod = forward_kinematics(e7, &with(e7, &[(Joint::HeadRoll, 30.0)]), [0.0; 3]);
    assert_point(
        nod.body_point("head"),
        [67.5 + 81.0 * c, 0.0, 99.5 + 81.0 * s],
    );
}

#[test]
fn tail_tilt_plus_raises_and_pan_plus_swings_left() {
    let m = Model::Ers210;
    let base = [-76.9, 0.0, 53.0];
    let up = forward_kinematics(m, &with(m, &[(Joint::TailTilt, 20.0)]), [0.0; 3]);
    let tip = up.body_point("tail_tip").unwrap();
    assert!(tip[2] > base[2] && tip[0] < base[0], "{tip:?}");
    let left = forward_kinematics(m, &with(m, &[(Joint::TailPan, 20.0)]), [0.0; 3]);
    let tip = left.body_point("tail_tip").unwrap();
    assert!(tip[1] > 0.0 && tip[0] < base[0], "{tip:?}");
}

#[test]
fn the_samplers_limit_warning_is_checks_sentence() {
    // ERS-7 front J1: limit -115..130° (Tekkotsu's ERS7Info.h), the stop
    // 3° beyond; the tail and mouth at legal angles.
    let m = Model::Ers7;
    let legal = [(Joint::TailTilt, 5.0), (Joint::Mouth, -3.0)];
    let warnings = |deg: f64| {
        forward_kinematics(m, &with(m, &[&legal[..], &[(LF1, deg)]].concat()), [0.0; 3]).warnings
    };
    assert_eq!(
        warnings(131.0),
        [
            "ERS-7 left_front_j1 is 131.00°, 1.00° past its limit -115..130°, within its \
          mechanical stop 3° beyond"
        ]
    );
    assert_eq!(
        warnings(-120.0),
        [
            "ERS-7 left_front_j1 is -120.00°, 5.00° past its limit -115..130°, and past its \
          mechanical stop 3° beyond"
        ]
    );
    assert!(warnings(130.0).is_empty());
}

#[test]
fn beyond_limit_warns_and_does_not_clamp() {
    let m = Model::Ers7;
    // Tail and mouth at legal angles, so that the only warning is J1's.
    let legal = [(Joint::TailTilt, 5.0), (Joint::Mouth, -3.0)];
    let pose = forward_kinematics(
        m,
        &with(m, &[&legal[..], &[(LF1, 131.0)]].concat()),
        [0.0; 3],
    );
    assert_eq!(pose.warnings.len(), 1, "{:?}", pose.warnings);
    let w = &pose.warnings[0];
    assert!(w.contains("left_front_j1"), "{w}");
    assert!(w.contains("131"), "{w}");
    assert!(w.contains("-115..130"), "{w}");
    // The knee sits where 131° puts it: (9, -69.5) turned 131° toward +x.
    let (s, c) = 131f64.to_radians().sin_cos();
    assert_point(
        pose.body_point("left_front_knee"),
        [65.0 + 9.0 * c + 69.5 * s, 62.5, 9.0 * s - 69.5 * c],
    );
    // Below the lower limit too, on a head joint.
    let low = forward_kinematics(m, &with(m, &[(Joint::HeadTilt, -80.0)]), [0.0; 3]);
    assert!(
        low.warnings
            .iter()
            .any(|w| w.contains("head_tilt") && w.contains("-80") && w.contains("-75..0")),
        "{:?}",
        low.warnings
    );
}

#[test]
fn ers210_limits_are_the_notes_ranges() {
    let m = Model::Ers210;
    let rig = rig_model(m);
    let check = |joint: Joint, min: f64, max: f64| {
        let limit = rig.limit(joint).expect("limit");
        assert_eq!((limit.min_deg, limit.max_deg), (min, max), "{joint:?}");
    };
    check(LF1, -117.0, 117.0);
    check(LH1, -117.0, 117.0);
    check(LF2, -11.0, 89.0);
    check(LF3, -27.0, 147.0);
    check(Joint::HeadTilt, -82.0, 43.0);
    check(Joint::HeadPan, -89.6, 89.6);
    check(Joint::HeadRoll, -29.0, 29.0);
    check(Joint::TailPan, -22.0, 22.0);
    check(Joint::Mouth, -47.0, -3.0);
    let rig7 = rig_model(Model::Ers7);
    let l = rig7.limit(LH1).unwrap();
    assert_eq!((l.min_deg, l.max_deg), (-130.0, 115.0));
    let l = rig7.limit(Joint::TailTilt).unwrap();
    assert_eq!((l.min_deg, l.max_deg), (5.0, 60.0));
}

#[test]
fn neutral_stance_is_within_limits_for_every_model() {
    for model in Model::ALL {
        let rig = rig_model(model);
        let pose = forward_kinematics(model, &rig.neutral_angles(), [0.0; 3]);
        assert!(pose.warnings.is_empty(), "{model}: {:?}", pose.warnings);
        // Standing: every paw well below its shoulder.
        for leg in ["left_front", "right_front", "left_hind", "right_hind"] {
            let paw = pose.body_point(&format!("{leg}_paw")).unwrap();
            let shoulder = pose.body_point(&format!("{leg}_shoulder")).unwrap();
            assert!(paw[2] < shoulder[2] - 80.0, "{model} {leg}");
        }
    }
}

#[test]
fn missing_joints_take_the_neutral_stance() {
    let m = Model::Ers7;
    // A head-only motion: the legs stand as in Sony's stand posture.
    let head_only: JointAngles = [(Joint::HeadPan, 20.0)].into_iter().collect();
    let partial = forward_kinematics(m, &head_only, [0.0; 3]);
    let mut stand = with(m, &[(Joint::HeadPan, 20.0), (Joint::TailTilt, 5.0)]);
    for leg in Leg::ALL {
        stand.insert(Joint::Leg(leg, LegJoint::Rotator), -5.0);
        stand.insert(Joint::Leg(leg, LegJoint::Elevator), 3.0);
        stand.insert(Joint::Leg(leg, LegJoint::Knee), 30.0);
    }
    stand.insert(Joint::Mouth, -3.0);
    let explicit = forward_kinematics(m, &stand, [0.0; 3]);
    assert_eq!(partial.body, explicit.body);
    assert!(partial.warnings.is_empty(), "{:?}", partial.warnings);
    // A legs-only motion keeps the head level: head at zero tilt, pan and nod.
    let legs_only: JointAngles = [(LF1, 10.0)].into_iter().collect();
    let pose = forward_kinematics(m, &legs_only, [0.0; 3]);
    assert_point(pose.body_point("head"), [148.5, 0.0, 99.5]);
}

#[test]
fn foreign_and_non_finite_angles_warn() {
    let angles: JointAngles = [(Joint::Mouth, -10.0)].into_iter().collect();
    let pose = forward_kinematics(Model::Ers310, &angles, [0.0; 3]);
    assert!(
        pose.warnings
            .iter()
            .any(|w| w.contains("ERS-310") && w.contains("mouth")),
        "{:?}",
        pose.warnings
    );
    let nan: JointAngles = [(LF1, f64::NAN)].into_iter().collect();
    let pose = forward_kinematics(Model::Ers7, &nan, [0.0; 3]);
    assert_eq!(pose.warnings.len(), 1, "{:?}", pose.warnings);
    let neutral = forward_kinematics(Model::Ers7, &JointAngles::new(), [0.0; 3]);
    assert_eq!(pose.body, neutral.body, "a NaN angle falls back to neutral");
}

#[test]
fn body_pitch_plus_raises_the_front() {
    let m = Model::Ers7;
    let pose = forward_kinematics(m, &zeros(m), [0.0, 20.0, 0.0]);
    let (s, c) = 20f64.to_radians().sin_cos();
    // Shoulders at x = ±65, z = 0 turn about y through the body centre.
    assert_point(
        pose.world_point("left_front_shoulder"),
        [65.0 * c, 62.5, 65.0 * s],
    );
    assert_point(
        pose.world_point("left_hind_shoulder"),
        [-65.0 * c, 62.5, -65.0 * s],
    );
    let front = pose.world_point("right_front_shoulder").unwrap()[2];
    let hind = pose.world_point("right_hind_shoulder").unwrap()[2];
    assert!(front > 0.0 && hind < 0.0);
    // The body frame is untouched by the attitude.
    assert_point(pose.body_point("left_front_shoulder"), [65.0, 62.5, 0.0]);
}

#[test]
fn body_roll_plus_leans_right_and_yaw_plus_turns_left() {
    let m = Model::Ers7;
    let roll = forward_kinematics(m, &zeros(m), [10.0, 0.0, 0.0]);
    let left = roll.world_point("left_front_shoulder").unwrap()[2];
    let right = roll.world_point("right_front_shoulder").unwrap()[2];
    assert!(
        left > 0.0 && right < 0.0,
        "leaning right drops the right side"
    );
    assert!((left - 62.5 * 10f64.to_radians().sin()).abs() < TOL);
    let yaw = forward_kinematics(m, &zeros(m), [0.0, 0.0, 90.0]);
    // The neck (67.5, 0, 19.5) swings to the left side.
    assert_point(yaw.world_point("neck"), [0.0, 67.5, 19.5]);
}

#[test]
fn rotations_are_reported() {
    let m = Model::Ers7;
    let pose = forward_kinematics(m, &zeros(m), [0.0, 0.0, 90.0]);
    // Columns: the body's x axis points along world +y after a 90° left turn.
    let x = pose.body_rotation[0];
    assert!((x[0]).abs() < TOL && (x[1] - 1.0).abs() < TOL && x[2].abs() < TOL);
    let head_x = pose.head_rotation[0];
    assert!((head_x[1] - 1.0).abs() < TOL, "{head_x:?}");
}

/// Real motions from the corpus: the four paws of a stand or sit posture lie
/// on one horizontal plane once the body attitude is applied.
mod real_motions {
    use super::*;
    use motion_viewer::anim::aibo::pose_from_mtn;
    use motion_viewer::formats::mtn;
    use std::path::PathBuf;

    const PAWS: [&str; 4] = [
        "left_front_paw",
        "right_front_paw",
        "left_hind_paw",
        "right_hind_paw",
    ];

    fn load(rel: &str) -> mtn::Mtn {
        let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/data/mtn")
            .join(rel);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        mtn::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Spread of the paws' world heights, and the lowest shoulder height.
    fn paw_spread(rel: &str, t: f64, expected: Model) -> (f64, f64, f64) {
        let motion = load(rel);
        let (model, pose) = pose_from_mtn(&motion, t);
        assert_eq!(model, expected, "{rel}");
        let z: Vec<f64> = PAWS
            .iter()
            .map(|n| pose.world_point(n).unwrap()[2])
            .collect();
        let lowest_shoulder = [
            "left_front_shoulder",
            "right_front_shoulder",
            "left_hind_shoulder",
            "right_hind_shoulder",
        ]
        .iter()
        .map(|n| pose.world_point(n).unwrap()[2])
        .fold(f64::INFINITY, f64::min);
        let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = z.iter().copied().fold(f64::INFINITY, f64::min);
        (max - min, max, lowest_shoulder)
    }

    #[track_caller]
    fn assert_on_one_plane(rel: &str, t: f64, model: Model) {
        let (spread, highest_paw, lowest_shoulder) = paw_spread(rel, t, model);
        assert!(spread < 3.0, "{rel} at {t}s: paws spread {spread:.2} mm");
        assert!(
            highest_paw < lowest_shoulder - 20.0,
            "{rel}: paws {highest_paw:.1} not below shoulders {lowest_shoulder:.1}"
        );
    }

    #[test]
    fn ers7_sit_paws_on_one_plane() {
        // Body pitch 37°: the sit leans far back.
        let rel = "cartheur-aibo__aibo-lab/a_sit#sit_so0_greet.mtn";
        assert_on_one_plane(rel, 0.0, Model::Ers7);
        let end = load(rel).duration_s();
        assert_on_one_plane(rel, end, Model::Ers7);
    }

    #[test]
    fn ers7_stand_paws_on_one_plane() {
        assert_on_one_plane(
            "cartheur-aibo__aibo-lab/a_stand#walk_sox_standard.mtn",
            0.0,
            Model::Ers7,
        );
    }

    #[test]
    fn ers210_sit_paws_on_one_plane() {
        // Sony's ERS-210 sample sit (DRX-900, 15 joints), body pitch 28°.
        assert_on_one_plane(
            "cartheur-aibo__aibo-lab/a_sit#sleep_standard.mtn",
            0.0,
            Model::Ers220,
        );
    }

    #[test]
    fn mtn_joints_map_onto_the_rig_by_role() {
        // Keyframe 0 of the ERS-7 greet, read independently of the decoder:
        // head tilt, pan, nod, mouth, ears, then LF, LH, RF, RH (J1, J2, J3),
        // then tail tilt (r6/c1) and pan (r6/c2); body pitch 37°.
        let rel = "cartheur-aibo__aibo-lab/a_sit#sit_so0_greet.mtn";
        let (model, pose) = pose_from_mtn(&load(rel), 0.0);
        assert_eq!(model, Model::Ers7);
        let mut angles: JointAngles = [
            (Joint::HeadTilt, -40.0001),
            (Joint::HeadPan, 0.0),
            (Joint::HeadRoll, 5.0),
            (Joint::Mouth, -5.0),
            (Joint::LeftEar, 0.0),
            (Joint::RightEar, 0.0),
            (Joint::TailTilt, 5.0),
            (Joint::TailPan, 0.0),
        ]
        .into_iter()
        .collect();
        for leg in Leg::ALL {
            let (j1, j2, j3) = if leg.is_front() {
                (-25.0, -4.0, 20.0)
            } else {
                (-78.0002, 20.0, 110.0002)
            };
            angles.insert(Joint::Leg(leg, LegJoint::Rotator), j1);
            angles.insert(Joint::Leg(leg, LegJoint::Elevator), j2);
            angles.insert(Joint::Leg(leg, LegJoint::Knee), j3);
        }
        let expected = forward_kinematics(Model::Ers7, &angles, [0.0, 37.0001, 0.0]);
        for ((name, got), (_, want)) in pose.world.iter().zip(&expected.world) {
            for i in 0..3 {
                assert!(
                    (got[i] - want[i]).abs() < 0.01,
                    "{name}: {got:?} vs {want:?}"
                );
            }
        }
    }

    #[test]
    fn unknown_design_is_drawn_as_ers7_with_a_warning() {
        let motion = mtn::Mtn {
            design: "DRX-999".into(),
            keyframes: vec![mtn::Keyframe::default()],
            ..Default::default()
        };
        let (model, pose) = pose_from_mtn(&motion, 0.0);
        assert_eq!(model, Model::Ers7);
        assert!(
            pose.warnings.iter().any(|w| w.contains("DRX-999")),
            "{:?}",
            pose.warnings
        );
    }

    #[test]
    fn partial_body_motion_fills_the_rest_from_neutral() {
        // A head-only ERS-7 motion: the legs stand in the neutral stance.
        let rel = "cartheur-aibo__aibo-lab/h_any#any_so0_circle21.mtn";
        let (model, pose) = pose_from_mtn(&load(rel), 0.0);
        assert_eq!(model, Model::Ers7);
        let neutral = forward_kinematics(
            Model::Ers7,
            &rig_model(Model::Ers7).neutral_angles(),
            [0.0; 3],
        );
        for name in PAWS {
            assert_eq!(pose.body_point(name), neutral.body_point(name), "{name}");
        }
        // The neutral legs are Sony's stand: level too.
        assert_on_one_plane(rel, 0.0, Model::Ers7);
    }
}
