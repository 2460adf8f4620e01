//! An MRTK recording at one moment as primitives: each tracked hand's joints
//! as small balls linked along the finger chains, the head camera as a small
//! pyramid of lines, the eye gaze as a ray.
//!
//! Pure CPU: the state comes from [`crate::anim::input_animation::state_at`],
//! the axes from the crate's `scene::units` (Unity is left-handed; the world is not).

use glam::Vec3;

use super::shapes::Primitives;
use super::shapes::{Capsule, Line, Sphere};
use super::units::{unity_point, unity_rotation};
use crate::anim::input_animation::{HandState, InputState, Pose, duration_s, state_at};
use crate::formats::input_animation::InputAnimation;

/// Radius of a joint ball, metres.
pub const JOINT_RADIUS_M: f32 = 0.006;
/// Radius of a finger segment, metres.
pub(crate) const SEGMENT_RADIUS_M: f32 = 0.003;
/// Length of the drawn gaze ray, metres.
pub(crate) const GAZE_LENGTH_M: f32 = 1.0;
/// Depth of the camera pyramid, metres.
pub const FRUSTUM_DEPTH_M: f32 = 0.1;
/// Most states [`bounds_over_time`] evaluates, however long the recording
/// or however many keys it has.
pub const MAX_BOUNDS_SAMPLES: usize = 4096;
/// States sampled inside each gap between two key times besides its ends,
/// while [`MAX_BOUNDS_SAMPLES`] allows: a version 1.0 curve can peak between
/// keys, and the camera pyramid turns with four curves at once.
pub const GAP_SAMPLES: usize = 3;

/// Which hand, for its tint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The left hand.
    Left,
    /// The right hand.
    Right,
}

/// A hand's colour (linear RGBA): orange while pinching, cyan otherwise, the
/// left hand a little deeper than the right so the two stay apart.
pub(crate) fn hand_colour(side: Side, pinching: bool) -> [f32; 4] {
    match (side, pinching) {
        (Side::Left, false) => [0.02, 0.55, 0.80, 1.0],
        (Side::Right, false) => [0.10, 0.85, 0.80, 1.0],
        (Side::Left, true) => [1.00, 0.30, 0.02, 1.0],
        (Side::Right, true) => [1.00, 0.55, 0.10, 1.0],
    }
}

/// The camera pyramid's colour, linear RGBA.
pub(crate) const CAMERA_COLOUR: [f32; 4] = [0.95, 0.95, 0.95, 1.0];
/// The gaze ray's colour, linear RGBA.
pub(crate) const GAZE_COLOUR: [f32; 4] = [1.0, 0.1, 0.6, 1.0];

/// Joint index pairs to link, in [`crate::anim::input_animation::JOINT_NAMES`]
/// order: wrist → palm, the thumb chain from the wrist, and each finger's
/// metacarpal → knuckle → middle → distal → tip chain from the wrist. Joint 0
/// (`None`) is never drawn.
pub(crate) const HAND_SEGMENTS: [(usize, usize); 25] = [
    (1, 2),
    // Thumb: wrist → metacarpal → proximal → distal → tip.
    (1, 3),
    (3, 4),
    (4, 5),
    (5, 6),
    // Index.
    (1, 7),
    (7, 8),
    (8, 9),
    (9, 10),
    (10, 11),
    // Middle.
    (1, 12),
    (12, 13),
    (13, 14),
    (14, 15),
    (15, 16),
    // Ring.
    (1, 17),
    (17, 18),
    (18, 19),
    (19, 20),
    (20, 21),
    // Pinky.
    (1, 22),
    (22, 23),
    (23, 24),
    (24, 25),
    (25, 26),
];

/// Appends a hand to `out` (nothing while it is untracked), shifted by `offset`.
pub(crate) fn hand_primitives(hand: &HandState, side: Side, offset: Vec3, out: &mut Primitives) {
    if !hand.tracked {
        return;
    }
    let colour = hand_colour(side, hand.pinching);
    let at = |i: usize| offset + unity_point(hand.joints[i].position);
    out.spheres.extend((1..hand.joints.len()).map(|i| Sphere {
        centre: at(i),
        radius: JOINT_RADIUS_M,
        colour,
    }));
    out.capsules
        .extend(HAND_SEGMENTS.iter().map(|&(a, b)| Capsule {
            a: at(a),
            b: at(b),
            radius: SEGMENT_RADIUS_M,
            colour,
        }));
}

/// The camera's pyramid: apex at the camera, base [`FRUSTUM_DEPTH_M`] ahead
/// (Unity's camera looks along its +z, which is world −z after the mirror),
/// with a small notch above the base to show which way is up.
pub(crate) fn camera_lines(camera: &Pose, offset: Vec3) -> Vec<Line> {
    let apex = offset + unity_point(camera.position);
    let rotation = unity_rotation(camera.rotation);
    let forward = rotation * Vec3::NEG_Z * FRUSTUM_DEPTH_M;
    // A 4:3 base, about 70° wide.
    let right = rotation * Vec3::X * (0.7 * FRUSTUM_DEPTH_M);
    let up = rotation * Vec3::Y * (0.525 * FRUSTUM_DEPTH_M);
    let base = [
        apex + forward - right - up,
        apex + forward + right - up,
        apex + forward + right + up,
        apex + forward - right + up,
    ];
    let line = |a, b| Line {
        a,
        b,
        colour: CAMERA_COLOUR,
    };
    let notch = apex + forward + up * 1.5;
    (0..4)
        .flat_map(|i| [line(apex, base[i]), line(base[i], base[(i + 1) % 4])])
        .chain([line(base[2], notch), line(notch, base[3])])
        .collect()
}

/// The gaze ray from its recorded origin along its direction, or `None`
/// while the direction is zero (nothing to point along).
pub(crate) fn gaze_line(origin: [f32; 3], direction: [f32; 3], offset: Vec3) -> Option<Line> {
    let direction = unity_point(direction);
    (direction.length_squared() > 0.0 && direction.is_finite()).then(|| {
        Line::ray(
            offset + unity_point(origin),
            direction,
            GAZE_LENGTH_M,
            GAZE_COLOUR,
        )
    })
}

/// Appends everything recorded at `state` to `out`, shifted by `offset`.
pub fn primitives(state: &InputState, offset: Vec3, out: &mut Primitives) {
    if let Some(hands) = &state.hands {
        hand_primitives(&hands.left, Side::Left, offset, out);
        hand_primitives(&hands.right, Side::Right, offset, out);
    }
    if let Some(camera) = &state.camera {
        out.lines.extend(camera_lines(camera, offset));
    }
    if let Some(gaze) = &state.eye_gaze {
        out.lines
            .extend(gaze_line(gaze.origin, gaze.direction, offset));
    }
}

/// The times [`bounds_over_time`] samples `recording` at: 0, the end, every
/// key time in between (of any curve) and [`GAP_SAMPLES`] evenly spaced times
/// inside each gap; or, with more distinct key times than
/// [`MAX_BOUNDS_SAMPLES`], that many of them evenly spread. A linear curve
/// (every version 1.1 curve) reaches its extremes at its keys, so the joint
/// balls' box is exact. Never more than [`MAX_BOUNDS_SAMPLES`] times, however
/// far apart the keys are.
pub fn bounds_sample_times(recording: &InputAnimation) -> Vec<f64> {
    let duration = duration_s(recording);
    let floats = recording
        .float_curves()
        .into_iter()
        .flat_map(|c| c.keys.iter().map(|k| k.time));
    let bools = recording
        .bool_curves()
        .into_iter()
        .flat_map(|c| c.keys.iter().map(|k| k.time));
    let mut keys: Vec<f64> = floats
        .chain(bools)
        .map(f64::from)
        .filter(|t| (0.0..=duration).contains(t))
        .chain([0.0, duration])
        .collect();
    keys.sort_by(f64::total_cmp);
    keys.dedup();
    let count = keys.len();
    if count > MAX_BOUNDS_SAMPLES {
        let (last, steps) = (count - 1, MAX_BOUNDS_SAMPLES - 1);
        return (0..MAX_BOUNDS_SAMPLES)
            // i · last stays far below usize::MAX: a file holds few enough keys.
            .map(|i| keys[(i * last + steps / 2) / steps])
            .collect();
    }
    let gaps = (count - 1).max(1);
    let inside = GAP_SAMPLES.min((MAX_BOUNDS_SAMPLES - count) / gaps);
    let mut times = Vec::with_capacity(count + gaps * inside);
    for (i, &t) in keys.iter().enumerate() {
        times.push(t);
        if let Some(&next) = keys.get(i + 1) {
            let span = next - t;
            times.extend((1..=inside).map(|j| t + span * j as f64 / (inside + 1) as f64));
        }
    }
    times
}

/// The box everything drawn at `state` fills (world axes, as recorded), or
/// `None` when nothing finite is drawn.
pub fn extent(state: &InputState) -> Option<(Vec3, Vec3)> {
    let mut drawn = Primitives::default();
    primitives(state, Vec3::ZERO, &mut drawn);
    let pad = Vec3::splat(JOINT_RADIUS_M);
    let (lo, hi) = drawn
        .spheres
        .iter()
        .flat_map(|s| [s.centre - pad, s.centre + pad])
        .chain(drawn.lines.iter().flat_map(|l| [l.a, l.b]))
        .filter(|p| p.is_finite())
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p), hi.max(p))
        });
    (lo.x <= hi.x).then_some((lo, hi))
}

/// The box everything drawn for `recording` fills over the whole recording
/// (world axes, as recorded), from the states at [`bounds_sample_times`];
/// `None` when nothing is ever drawn.
pub fn bounds_over_time(recording: &InputAnimation) -> Option<(Vec3, Vec3)> {
    bounds_sample_times(recording)
        .into_iter()
        .filter_map(|t| extent(&state_at(recording, t)))
        .reduce(|(lo, hi), (a, b)| (lo.min(a), hi.max(b)))
}

#[cfg(test)]
mod bounds_tests;
#[cfg(test)]
mod tests;
