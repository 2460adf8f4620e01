//! Poses, hands, gaze and duration from `anim::input_animation`.

use motion_viewer::anim::input_animation::{JOINT_NAMES, duration_s, pose_at, state_at};
use motion_viewer::formats::input_animation::{
    BoolCurve, BoolKey, Curve, Hands, InputAnimation, Key, PoseCurves, RayCurves,
};

fn constant(v: f32) -> Curve {
    Curve {
        keys: vec![Key::linear(0.0, v)],
        ..Curve::default()
    }
}

fn pose(p: [f32; 3], q: [f32; 4]) -> PoseCurves {
    PoseCurves {
        position: p.map(constant),
        rotation: q.map(constant),
    }
}

#[test]
fn rotation_is_normalised_and_zero_is_identity() {
    let cases = [
        ([0.0, 0.0, 0.0, 2.0], [0.0, 0.0, 0.0, 1.0]),
        ([1.0, 1.0, 1.0, 1.0], [0.5, 0.5, 0.5, 0.5]),
        ([0.0, 3.0, 0.0, 4.0], [0.0, 0.6, 0.0, 0.8]),
        ([0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]),
        ([1e-9, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]),
    ];
    for (q, want) in cases {
        let p = pose_at(&pose([1.0, 2.0, 3.0], q), 0.5);
        assert_eq!(p.position, [1.0, 2.0, 3.0]);
        for (a, b) in p.rotation.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{q:?} → {:?}", p.rotation);
        }
    }
}

#[test]
fn channels_are_independent_and_rotation_blends_then_normalises() {
    // x runs 0 → 1 over a second, y is constant, z has no keys (0);
    // rotation w runs 1 → 0 while x runs 0 → 1: at 0.5 s (0.5, 0, 0, 0.5) → √½ each.
    let mut c = pose([0.0, 5.0, 0.0], [0.0, 0.0, 0.0, 1.0]);
    c.position[0].keys.push(Key::linear(1.0, 1.0));
    c.position[2].keys.clear();
    c.rotation[0].keys.push(Key::linear(1.0, 1.0));
    c.rotation[3].keys.push(Key::linear(1.0, 0.0));
    let p = pose_at(&c, 0.5);
    assert_eq!(p.position, [0.5, 5.0, 0.0]);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    for (a, b) in p.rotation.iter().zip([h, 0.0, 0.0, h]) {
        assert!((a - b).abs() < 1e-6);
    }
}

fn bools(keys: &[(f32, f32)]) -> BoolCurve {
    BoolCurve {
        keys: keys
            .iter()
            .map(|&(time, value)| BoolKey { time, value })
            .collect(),
        ..BoolCurve::default()
    }
}

#[test]
fn state_and_duration() {
    let joints: Vec<PoseCurves> = (0..27)
        .map(|j| pose([j as f32, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]))
        .collect();
    let mut gaze_dir = constant(1.0);
    gaze_dir.keys.push(Key::linear(2.5, 3.0));
    let anim = InputAnimation {
        version: (1, 1),
        camera: None,
        hands: Some(Hands {
            tracked_left: bools(&[(0.0, 1.0), (1.0, 0.0)]),
            tracked_right: bools(&[(0.0, 1.0)]),
            pinch_left: bools(&[]),
            // The last key of all is a boolean one.
            pinch_right: bools(&[(0.0, 0.0), (3.5, 0.9)]),
            left: joints.clone(),
            right: joints,
        }),
        eye_gaze: Some(RayCurves {
            origin: [constant(0.0), constant(1.6), constant(0.0)],
            direction: [constant(0.0), constant(0.0), gaze_dir],
        }),
        ..InputAnimation::default()
    };
    assert_eq!(duration_s(&anim), 3.5);
    let s = state_at(&anim, 1.25);
    assert!(s.camera.is_none());
    let h = s.hands.unwrap();
    assert!(!h.left.tracked && h.right.tracked);
    assert!(!h.left.pinching && !h.right.pinching);
    assert_eq!(h.right.joints[11].position[0], 11.0);
    let g = s.eye_gaze.unwrap();
    assert_eq!(g.origin, [0.0, 1.6, 0.0]);
    assert_eq!(g.direction, [0.0, 0.0, 2.0]);
    assert!(state_at(&anim, 3.5).hands.unwrap().right.pinching);
    assert_eq!(duration_s(&InputAnimation::default()), 0.0);
}

#[test]
fn joint_names_follow_the_toolkit_order() {
    assert_eq!(JOINT_NAMES.len(), 27);
    assert_eq!(JOINT_NAMES[0], "None");
    assert_eq!(JOINT_NAMES[6], "ThumbTip");
    let fingers = ["Index", "Middle", "Ring", "Pinky"];
    let parts = ["Metacarpal", "Knuckle", "MiddleJoint", "DistalJoint", "Tip"];
    for (f, finger) in fingers.iter().enumerate() {
        for (p, part) in parts.iter().enumerate() {
            assert_eq!(JOINT_NAMES[7 + 5 * f + p], format!("{finger}{part}"));
        }
    }
}
