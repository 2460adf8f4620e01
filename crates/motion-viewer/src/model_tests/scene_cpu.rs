//! The scene's CPU half (no GPU needed): the AIBO stick figure, a
//! recording's bounds, and the side-by-side layout of real and synthetic
//! tracks. (Axis conversions and hands: unit tests in `scene`.)

use crate::common::stage as stage_common;

use crate::common::gltf::unity_world;
use glam::Vec3;
use motion_viewer::anim::aibo::{JointAngles, forward_kinematics, pose_from_mtn};
use motion_viewer::anim::input_animation::state_at;
use motion_viewer::formats::aibo::Model;
use motion_viewer::scene::Track;
use motion_viewer::scene::layout::{Footprint, GAP_FRACTION, Grounding, place};
use motion_viewer::scene::rig::{self, JOINT_RADIUS_M as RIG_BALL, Part};
use motion_viewer::scene::shapes::Primitives;
use motion_viewer::scene::{Layout, Plan};
use stage_common::*;

#[track_caller]
fn assert_near(actual: Vec3, expected: Vec3, tolerance: f32) {
    assert!(
        (actual - expected).abs().max_element() <= tolerance,
        "{actual} != {expected}"
    );
}

// ---- AIBO rig ------------------------------------------------------------

fn neutral(model: Model) -> motion_viewer::anim::aibo::RigPose {
    forward_kinematics(model, &JointAngles::new(), [0.0; 3])
}

#[test]
fn bone_capsules_end_at_the_fk_points_converted_by_hand() {
    let pose = neutral(Model::Ers210);
    let origin = Vec3::new(1.0, 2.0, 3.0);
    let mut out = Primitives::default();
    rig::primitives(Model::Ers210, &pose, origin, &mut out);
    // mm (x fwd, y left, z up) → m (x, z, −y), written out here.
    let by_hand = |name: &str| {
        let [x, y, z] = pose.world_point(name).unwrap();
        origin + Vec3::new(x as f32, z as f32, -y as f32) / 1000.0
    };
    for (a, b) in [
        ("left_front_shoulder", "left_front_knee"),
        ("right_hind_knee", "right_hind_paw"),
        ("neck", "head"),
        ("tail_base", "tail_tip"),
    ] {
        let (pa, pb) = (by_hand(a), by_hand(b));
        assert!(
            out.capsules
                .iter()
                .any(|c| (c.a - pa).length() < 1e-6 && (c.b - pb).length() < 1e-6),
            "no capsule {a} → {b}"
        );
    }
    // 18 bones, 16 joints, body and head boxes.
    assert_eq!(out.capsules.len(), 18);
    assert_eq!(out.spheres.len(), 16);
    assert_eq!(out.boxes.len(), 2);
}

#[test]
fn left_legs_are_on_the_far_side_and_coloured_apart_from_the_right() {
    let pose = neutral(Model::Ers7);
    let mut out = Primitives::default();
    rig::primitives(Model::Ers7, &pose, Vec3::ZERO, &mut out);
    let ball = |name: &str| {
        let [x, y, z] = pose.world_point(name).unwrap();
        let p = Vec3::new(x as f32, z as f32, -y as f32) / 1000.0;
        *out.spheres
            .iter()
            .find(|s| (s.centre - p).length() < 1e-6)
            .unwrap()
    };
    let left = ball("left_front_paw");
    let right = ball("right_front_paw");
    // Left is −z (away from a camera on +z), right is +z.
    assert!(left.centre.z < 0.0 && right.centre.z > 0.0);
    assert_ne!(left.colour, right.colour);
    assert_eq!(left.colour, Part::LeftLeg.colour());
    assert_eq!(right.colour, Part::RightLeg.colour());
}

#[test]
fn standing_rig_is_lifted_until_its_lowest_paw_ball_touches_the_ground() {
    for model in Model::ALL {
        let pose = neutral(model);
        // Standing, the paws are the lowest support; the FK's z is up.
        let lowest_paw_z = [
            "left_front_paw",
            "right_front_paw",
            "left_hind_paw",
            "right_hind_paw",
        ]
        .iter()
        .map(|n| pose.world_point(n).unwrap()[2])
        .fold(f64::INFINITY, f64::min);
        let expected = -(lowest_paw_z / 1000.0) as f32 + RIG_BALL;
        let lift = rig::ground_lift(model, &pose);
        assert!(
            (lift - expected).abs() < 1e-6,
            "{model}: {lift} vs {expected}"
        );
    }
}

#[test]
fn body_box_follows_the_body_pitch() {
    // Pitch + lifts the front: the box's forward edge rises.
    let pose = forward_kinematics(Model::Ers210, &JointAngles::new(), [0.0, 20.0, 0.0]);
    let mut out = Primitives::default();
    rig::primitives(Model::Ers210, &pose, Vec3::ZERO, &mut out);
    let body = out.boxes[0].transform;
    let front = body.transform_point3(Vec3::new(0.5, 0.0, 0.0));
    let back = body.transform_point3(Vec3::new(-0.5, 0.0, 0.0));
    let rise = (front.y - back.y) / (front.x - back.x);
    assert!(
        (rise - 20f32.to_radians().tan()).abs() < 1e-4,
        "slope {rise}"
    );
}

#[test]
fn sitting_rig_still_rests_on_the_ground() {
    let tracks = sample_tracks();
    let motion = tracks
        .iter()
        .find_map(|t| match t {
            Track::Mtn { motion, .. } => Some(motion),
            _ => None,
        })
        .unwrap();
    for t in [0.0, 2.0, motion.duration_s()] {
        let (model, pose) = pose_from_mtn(motion, t);
        let mut out = Primitives::default();
        let lift = rig::ground_lift(model, &pose);
        rig::primitives(model, &pose, Vec3::Y * lift, &mut out);
        let lowest_ball = out
            .spheres
            .iter()
            .map(|s| s.centre.y - s.radius)
            .fold(f32::INFINITY, f32::min);
        // Nothing but the tail sinks below y = 0, and something touches it.
        let lowest_box = out
            .boxes
            .iter()
            .flat_map(|b| {
                (0..8).map(move |i| {
                    let c = Vec3::new(
                        (i & 1) as f32 - 0.5,
                        ((i >> 1) & 1) as f32 - 0.5,
                        ((i >> 2) & 1) as f32 - 0.5,
                    );
                    b.transform.transform_point3(c).y
                })
            })
            .fold(f32::INFINITY, f32::min);
        let lowest = lowest_ball.min(lowest_box);
        assert!(lowest.abs() < 1e-5, "t = {t}: lowest {lowest}");
    }
}

// ---- MRTK ----------------------------------------------------------------

/// The radius of a drawn hand joint's ball (`scene::hands::JOINT_RADIUS_M`):
/// the drawn figure reaches this far below its lowest joint.
const HAND_BALL: f32 = 0.006;

#[test]
fn recording_bounds_cover_the_hands_from_their_lowest_wrist() {
    // One recording at true scale stands where it was recorded: its placed
    // box less its offset is the box drawn over the whole recording.
    let plan = Plan::with_layout(&[recording_track()], Layout::TrueScale).unwrap();
    let p = &plan.placements[0];
    let (lo, hi) = (p.min - p.offset, p.max - p.offset);
    // The synthetic hands' lowest joints are the wrists at the start.
    assert!((lo.y - (WRIST_Y - HAND_BALL)).abs() < 1e-5, "lo.y {}", lo.y);
    // The head camera is the highest thing drawn, plus its pyramid's notch.
    assert!(hi.y >= HEAD[1]);
    // The gaze runs 1 m forward, toward world −z.
    assert!(lo.z < -0.9, "lo.z {}", lo.z);
}

// ---- layout --------------------------------------------------------------

#[test]
fn place_rows_boxes_along_x_with_a_gap_and_centres_them() {
    let boxes = [
        Footprint {
            min: Vec3::new(-1.0, 2.0, 4.0),
            max: Vec3::new(1.0, 3.0, 6.0),
            grounding: Grounding::Rest,
        },
        Footprint {
            min: Vec3::new(0.0, 1.0, 0.0),
            max: Vec3::new(0.5, 2.0, 1.0),
            grounding: Grounding::Keep,
        },
    ];
    let offsets = place(&boxes);
    // Widths 2 and 0.5: gap 0.4, row 2.9 wide, from −1.45 to 1.45.
    assert!((GAP_FRACTION - 0.2).abs() < 1e-7);
    assert_near(offsets[0], Vec3::new(-0.45, -2.0, -5.0), 1e-6);
    assert_near(offsets[1], Vec3::new(0.95, 0.0, -0.5), 1e-6);
}

#[test]
fn samples_and_a_recording_stand_apart_on_the_ground() {
    let mut tracks = sample_tracks();
    tracks.push(recording_track());
    let plan = Plan::new(&tracks).unwrap();
    assert_eq!(plan.placements.len(), tracks.len());

    let mut by_x: Vec<_> = plan.placements.iter().collect();
    by_x.sort_by(|a, b| a.min.x.total_cmp(&b.min.x));
    let widest = by_x.iter().map(|p| p.max.x - p.min.x).fold(0.0, f32::max);
    for pair in by_x.windows(2) {
        let gap = pair[1].min.x - pair[0].max.x;
        assert!(
            gap >= 0.2 * widest - 1e-4,
            "{} and {} are {gap} apart",
            pair[0].name,
            pair[1].name
        );
    }
    for (track, p) in tracks.iter().zip(&plan.placements) {
        assert!(
            ((p.min.z + p.max.z) * 0.5).abs() < 1e-4,
            "{} off centre",
            p.name
        );
        match track {
            // Resting on the ground: the lowest point over the whole motion at y = 0.
            Track::Memg { .. } | Track::Mtn { .. } => {
                assert!(p.min.y.abs() < 1e-4, "{}: min y {}", p.name, p.min.y)
            }
            // Heights as recorded.
            Track::InputAnimation { .. } => {
                assert_eq!(p.offset.y, 0.0);
                assert!((p.min.y - (WRIST_Y - HAND_BALL)).abs() < 1e-5);
            }
        }
    }
    // Every track posed at any time stays inside its placed box.
    for (track, p) in tracks.iter().zip(&plan.placements) {
        if let Track::InputAnimation { recording, .. } = track {
            for t in [0.0, 0.7, 1.5, 2.0] {
                let hands = state_at(recording, t).hands.unwrap();
                for hand in [hands.left, hands.right].iter().filter(|h| h.tracked) {
                    // Joint 0 ("None") is not drawn.
                    for joint in &hand.joints[1..] {
                        let c = p.offset + unity_world(joint.position);
                        assert!(c.cmpge(p.min).all() && c.cmple(p.max).all(), "{c}");
                    }
                }
            }
        }
    }
    // The stage's box is the smallest holding every track.
    let lo = by_x.iter().fold(Vec3::INFINITY, |lo, p| lo.min(p.min));
    let hi = by_x.iter().fold(Vec3::NEG_INFINITY, |hi, p| hi.max(p.max));
    assert_eq!(plan.bounds, (lo, hi));
    assert!(
        lo.y.abs() < 1e-4,
        "the rig and the MEMG scene stand on the ground"
    );
}

#[test]
fn durations_and_frame_periods_follow_the_tracks() {
    let mut tracks = sample_tracks();
    tracks.push(recording_track());
    let plan = Plan::new(&tracks).unwrap();
    // The ERS-210 sample is 305 frames of 16 ms = 4.88 s; a MEMG motion of
    // n timesteps lasts (n − 1) / fps; the recording 2 s.
    let longest = tracks
        .iter()
        .map(|t| match t {
            Track::Memg { motion, .. } => (motion.timesteps - 1) as f64 / f64::from(motion.fps),
            Track::Mtn { .. } => 4.88,
            Track::InputAnimation { .. } => f64::from(RECORDING_S),
        })
        .fold(0.0, f64::max);
    assert!(
        (plan.duration_s - longest).abs() < 1e-9,
        "{}",
        plan.duration_s
    );
    let expected_period = match &tracks[0] {
        Track::Memg { motion, .. } => 1.0 / f64::from(motion.fps),
        Track::Mtn { .. } => 0.016,
        Track::InputAnimation { .. } => unreachable!("the samples come first"),
    };
    assert_eq!(plan.frame_period_s, expected_period);
    // A recording first: MRTK plays at 60 Hz.
    let plan = Plan::new(&[recording_track()]).unwrap();
    assert_eq!(plan.frame_period_s, 1.0 / 60.0);
    assert!((plan.duration_s - f64::from(RECORDING_S)).abs() < 1e-9);
}
