//! Time → state of an MRTK input animation: camera pose, both hands, eye gaze.

use super::curve::{evaluate, evaluate_bool, last_bool_time, last_time};
use crate::formats::input_animation::{InputAnimation, JOINT_COUNT, PoseCurves, RayCurves};

/// The frame period of an MRTK recording: the toolkit records at 60 Hz, and
/// the viewer steps and samples it at that rate.
pub(crate) const FRAME_PERIOD_S: f64 = 1.0 / 60.0;

/// The 27 hand joints in the toolkit's `TrackedHandJoint` order (the file's order).
pub const JOINT_NAMES: [&str; JOINT_COUNT] = [
    "None",
    "Wrist",
    "Palm",
    "ThumbMetacarpalJoint",
    "ThumbProximalJoint",
    "ThumbDistalJoint",
    "ThumbTip",
    "IndexMetacarpal",
    "IndexKnuckle",
    "IndexMiddleJoint",
    "IndexDistalJoint",
    "IndexTip",
    "MiddleMetacarpal",
    "MiddleKnuckle",
    "MiddleMiddleJoint",
    "MiddleDistalJoint",
    "MiddleTip",
    "RingMetacarpal",
    "RingKnuckle",
    "RingMiddleJoint",
    "RingDistalJoint",
    "RingTip",
    "PinkyMetacarpal",
    "PinkyKnuckle",
    "PinkyMiddleJoint",
    "PinkyDistalJoint",
    "PinkyTip",
];

/// A position and a unit rotation quaternion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Metres, Unity left-handed, y up.
    pub position: [f32; 3],
    /// Quaternion x, y, z, w, of length 1.
    pub rotation: [f32; 4],
}

impl Default for Pose {
    fn default() -> Self {
        Self {
            position: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
        }
    }
}

/// A ray: origin and direction as recorded (the direction is not normalised).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Ray {
    /// Start point.
    pub origin: [f32; 3],
    /// Direction.
    pub direction: [f32; 3],
}

/// One hand at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HandState {
    /// The tracked curve is on.
    pub tracked: bool,
    /// The pinch curve is on.
    pub pinching: bool,
    /// Joint poses in [`JOINT_NAMES`] order.
    pub joints: [Pose; JOINT_COUNT],
}

/// Both hands at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HandStates {
    /// Left hand.
    pub left: HandState,
    /// Right hand.
    pub right: HandState,
}

/// The whole recording at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct InputState {
    /// The time asked for, in seconds.
    pub time_s: f64,
    /// Head pose, if recorded.
    pub camera: Option<Pose>,
    /// Hands, if recorded.
    pub hands: Option<HandStates>,
    /// Eye-gaze ray, if recorded.
    pub eye_gaze: Option<Ray>,
}

/// Evaluates every curve of `anim` at `t` seconds.
pub fn state_at(anim: &InputAnimation, t: f64) -> InputState {
    InputState {
        time_s: t,
        camera: anim.camera.as_ref().map(|c| pose_at(c, t)),
        hands: anim.hands.as_ref().map(|h| {
            let joints = |curves: &[PoseCurves]| {
                let mut out = [Pose::default(); JOINT_COUNT];
                for (o, c) in out.iter_mut().zip(curves) {
                    *o = pose_at(c, t);
                }
                out
            };
            HandStates {
                left: HandState {
                    tracked: evaluate_bool(&h.tracked_left, t),
                    pinching: evaluate_bool(&h.pinch_left, t),
                    joints: joints(&h.left),
                },
                right: HandState {
                    tracked: evaluate_bool(&h.tracked_right, t),
                    pinching: evaluate_bool(&h.pinch_right, t),
                    joints: joints(&h.right),
                },
            }
        }),
        eye_gaze: anim.eye_gaze.as_ref().map(|g| ray_at(g, t)),
    }
}

/// A pose at `t`: each channel on its own, then the rotation normalised
/// (identity when it is too short, or not finite, to have a direction).
pub fn pose_at(curves: &PoseCurves, t: f64) -> Pose {
    let p = curves.position.each_ref().map(|c| evaluate(c, t));
    let q = curves.rotation.each_ref().map(|c| evaluate(c, t));
    let len = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    let rotation = if len > 1e-6 && len.is_finite() {
        q.map(|v| (v / len) as f32)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    };
    Pose {
        position: p.map(|v| v as f32),
        rotation,
    }
}

/// A gaze ray at `t`.
pub fn ray_at(curves: &RayCurves, t: f64) -> Ray {
    Ray {
        origin: curves.origin.each_ref().map(|c| evaluate(c, t) as f32),
        direction: curves.direction.each_ref().map(|c| evaluate(c, t) as f32),
    }
}

/// The largest last-key time over every curve (0 when nothing has keys).
pub fn duration_s(anim: &InputAnimation) -> f64 {
    let floats = anim.float_curves().into_iter().filter_map(last_time);
    let bools = anim.bool_curves().into_iter().filter_map(last_bool_time);
    floats.chain(bools).fold(0.0, f64::max)
}
