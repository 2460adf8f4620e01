//! Hands, gaze and head camera drawn from hand-made MRTK states.

use super::{Side, camera_lines, hand_colour, hand_primitives, primitives};
use crate::anim::input_animation::{HandState, InputState, Pose, Ray};
use crate::formats::input_animation::JOINT_COUNT;
use crate::scene::shapes::Primitives;
use glam::Vec3;

#[track_caller]
fn assert_near(actual: Vec3, expected: Vec3, tolerance: f32) {
    assert!(
        (actual - expected).abs().max_element() <= tolerance,
        "{actual} != {expected}"
    );
}

fn open_hand(pinching: bool) -> HandState {
    let mut joints = [Pose::default(); JOINT_COUNT];
    for (j, pose) in joints.iter_mut().enumerate() {
        // Distinct points, so that each segment is told by its ends.
        let k = j as f32;
        pose.position = [0.1 + 0.01 * k, 1.2, 0.3 + 0.02 * k];
    }
    HandState {
        tracked: true,
        pinching,
        joints,
    }
}

#[test]
fn untracked_hand_draws_nothing() {
    let mut hand = open_hand(false);
    hand.tracked = false;
    let mut out = Primitives::default();
    hand_primitives(&hand, Side::Left, Vec3::ZERO, &mut out);
    assert_eq!(out, Primitives::default());
}

#[test]
fn tracked_hand_draws_26_joints_and_the_finger_chains() {
    let hand = open_hand(false);
    let offset = Vec3::new(5.0, 0.0, 0.0);
    let mut out = Primitives::default();
    hand_primitives(&hand, Side::Right, offset, &mut out);
    // Joint 0 ("None") is skipped.
    assert_eq!(out.spheres.len(), 26);
    // Palm 1 + thumb 4 + four fingers × 5.
    assert_eq!(out.capsules.len(), 25);
    let world = |j: usize| {
        let [x, y, z] = hand.joints[j].position;
        offset + Vec3::new(x, y, -z)
    };
    // Index tip (11) hangs off the index distal joint (10); thumb tip (6) off 5.
    for (a, b) in [(1, 2), (10, 11), (5, 6), (1, 22)] {
        assert!(
            out.capsules
                .iter()
                .any(|c| (c.a - world(a)).length() < 1e-6 && (c.b - world(b)).length() < 1e-6),
            "no segment {a} → {b}"
        );
    }
}

#[test]
fn pinching_turns_a_hand_orange() {
    let mut calm = Primitives::default();
    let mut pinch = Primitives::default();
    hand_primitives(&open_hand(false), Side::Left, Vec3::ZERO, &mut calm);
    hand_primitives(&open_hand(true), Side::Left, Vec3::ZERO, &mut pinch);
    let [r, g, b, _] = calm.spheres[0].colour;
    assert!(b > r && g > r, "not cyan: {:?}", calm.spheres[0].colour);
    let [r, g, b, _] = pinch.spheres[0].colour;
    assert!(r > g && g > b, "not orange: {:?}", pinch.spheres[0].colour);
    assert_ne!(
        hand_colour(Side::Left, false),
        hand_colour(Side::Right, false)
    );
}

#[test]
fn gaze_ray_starts_at_the_converted_origin() {
    let offset = Vec3::new(-2.0, 0.0, 1.0);
    let state = InputState {
        time_s: 0.0,
        camera: None,
        hands: None,
        eye_gaze: Some(Ray {
            origin: [0.1, 1.6, 0.4],
            direction: [0.0, 0.0, 2.0],
        }),
    };
    let mut out = Primitives::default();
    primitives(&state, offset, &mut out);
    assert_eq!(out.lines.len(), 1);
    let ray = out.lines[0];
    assert_near(ray.a, offset + Vec3::new(0.1, 1.6, -0.4), 1e-6);
    // Unity forward is world −z; the ray is 1 m long whatever the direction's length.
    assert_near(ray.b, ray.a + Vec3::new(0.0, 0.0, -1.0), 1e-6);
}

#[test]
fn camera_pyramid_points_where_the_head_looks() {
    let h = std::f32::consts::FRAC_1_SQRT_2;
    // Turned 90° right in Unity: looking along Unity +x, which stays world +x.
    let camera = Pose {
        position: [0.0, 1.6, 0.0],
        rotation: [0.0, h, 0.0, h],
    };
    let lines = camera_lines(&camera, Vec3::ZERO);
    let apex = Vec3::new(0.0, 1.6, 0.0);
    let far: Vec<Vec3> = lines
        .iter()
        .filter(|l| (l.a - apex).length() < 1e-6)
        .map(|l| l.b)
        .collect();
    assert_eq!(far.len(), 4, "four edges leave the apex");
    let base_centre = far.iter().sum::<Vec3>() / 4.0;
    assert_near(
        base_centre,
        apex + Vec3::new(super::FRUSTUM_DEPTH_M, 0.0, 0.0),
        1e-6,
    );
}
