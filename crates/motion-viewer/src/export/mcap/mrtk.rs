//! An MRTK recording in a ROS 2 bag: head camera and hand joints on `/tf`,
//! the gaze as a pose, the hands' states as booleans, markers as strings.
//! Where tracking is lost (values not finite) the last finite value is held,
//! with one warning per part, as the other exporters do.

use std::path::Path;

use glam::{DQuat, DVec3};

use super::cdr::Cdr;
use super::{Bag, Namespace, Transform, schemas};
use crate::anim::input_animation::{JOINT_NAMES, Pose, state_at};
use crate::error::Result;
use crate::export::finite::Holder;
use crate::export::table::Sampling;
use crate::formats::input_animation::{InputAnimation, Marker};

/// A Unity position (left-handed, x right, y up, z forward) in REP 103's
/// axes (x forward, y left, z up).
pub fn position_to_ros(p: [f64; 3]) -> [f64; 3] {
    [p[2], -p[0], p[1]]
}

/// A Unity rotation `[x, y, z, w]` in REP 103's axes: the same turn seen
/// through [`position_to_ros`] (a reflection, so the vector part is mapped
/// and negated).
pub(crate) fn rotation_to_ros(q: [f64; 4]) -> [f64; 4] {
    [-q[2], q[0], -q[1], q[3]]
}

/// Writes `recording` sampled by `sampling` into `bag`.
pub(super) fn write(
    bag: &mut Bag,
    ns: &Namespace,
    recording: &InputAnimation,
    path: &Path,
    sampling: &Sampling,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let mut camera = Holder::new(IDENTITY);
    let mut hands: Vec<Holder> = vec![Holder::new(IDENTITY); 2 * JOINT_NAMES.len()];
    let mut gaze = Holder::new([0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    let tf_topic = ns.topic("/tf");
    let world = ns.frame("world");
    for row in 0..sampling.rows {
        let t = sampling.time(row);
        let stamp = bag.stamp(t);
        let state = state_at(recording, t);
        let mut transforms: Vec<Transform> = Vec::new();
        if let Some(pose) = &state.camera {
            let (p, q) = held(&mut camera, pose, t);
            transforms.push((world.clone(), ns.frame("camera"), p, q));
        }
        if let Some(h) = &state.hands {
            for ((side, hand), holders) in [("left", &h.left), ("right", &h.right)]
                .into_iter()
                .zip(hands.chunks_mut(JOINT_NAMES.len()))
            {
                for ((name, pose), holder) in JOINT_NAMES.iter().zip(&hand.joints).zip(holders) {
                    let (p, q) = held(holder, pose, t);
                    transforms.push((
                        world.clone(),
                        ns.frame(&format!("{side}_hand/{name}")),
                        p,
                        q,
                    ));
                }
                bag.bool(
                    &ns.topic(&format!("/{side}_hand/tracked")),
                    stamp,
                    hand.tracked,
                )?;
                bag.bool(
                    &ns.topic(&format!("/{side}_hand/pinching")),
                    stamp,
                    hand.pinching,
                )?;
            }
        }
        if !transforms.is_empty() {
            bag.tf(&tf_topic, false, stamp, &transforms)?;
        }
        if let Some(ray) = &state.eye_gaze {
            let o = ray.origin.map(f64::from);
            let d = ray.direction.map(f64::from);
            let mut v = [o[0], o[1], o[2], d[0], d[1], d[2]];
            gaze.hold(&mut v, t);
            let origin = position_to_ros([v[0], v[1], v[2]]);
            let dir = DVec3::from_array(position_to_ros([v[3], v[4], v[5]]));
            // The pose's x axis along the ray (identity for a zero direction).
            let q = if dir.length_squared() > 0.0 {
                DQuat::from_rotation_arc(DVec3::X, dir.normalize())
            } else {
                DQuat::IDENTITY
            };
            let mut m = Cdr::new();
            m.header(stamp, &world).vec3(origin).quat(q.to_array());
            bag.write(
                &ns.topic("/eye_gaze"),
                schemas::POSE_STAMPED,
                false,
                stamp,
                m.finish(),
            )?;
        }
    }
    let mut unstamped = Vec::new();
    for marker in &recording.markers {
        match bag.try_stamp(f64::from(marker.time)) {
            Some(stamp) => bag.string(&ns.topic("/markers"), false, stamp, &marker.name)?,
            None => unstamped.push(marker),
        }
    }
    warnings.extend(left_out(&unstamped, path, &bag.start_s()));
    warnings.extend(camera.warning(path, "camera"));
    warnings.extend(hands.iter().enumerate().find_map(|(i, h)| {
        h.warning(
            path,
            if i < JOINT_NAMES.len() {
                "left hand joints"
            } else {
                "right hand joints"
            },
        )
    }));
    warnings.extend(gaze.warning(path, "eye gaze"));
    Ok(())
}

/// The one warning for the markers of the recording at `path` that no
/// stamp can hold (their time not finite, or past
/// [`MAX_STAMP_NS`](super::MAX_STAMP_NS) after the start `start_s`): a
/// marker is one message, not the motion, so the bag is written without
/// them rather than refused. The first is named with its time; the others
/// are counted.
fn left_out(markers: &[&Marker], path: &Path, start_s: &str) -> Option<String> {
    let first = markers.first()?;
    let name = crate::text::escape(&first.name);
    let others = match markers.len() - 1 {
        0 => String::new(),
        1 => " (and 1 more marker)".into(),
        n => format!(" (and {n} more markers)"),
    };
    let why = if first.time.is_finite() {
        format!(
            "after a start time of {start_s} s it would be stamped past {}.999999999 s \
             since the epoch, the latest builtin_interfaces/Time holds (its sec is an int32)",
            i32::MAX
        )
    } else {
        "a time that is not finite has no stamp".into()
    };
    Some(format!(
        "{}: the marker \"{}\" at {} s{others} is left out of the bag: {why}",
        crate::text::Escaped::path(path),
        crate::text::cut(&name, crate::text::QUOTED_CHARS),
        seconds(first.time),
    ))
}

/// A marker's time as a warning quotes it: `12.5`, or `1e30` for a time
/// too large to read as a plain decimal.
fn seconds(t: f32) -> String {
    if t.abs() < 1e15 {
        format!("{t}")
    } else {
        format!("{t:e}")
    }
}

const IDENTITY: [f64; 7] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0];

/// A pose in REP 103's axes, with non-finite values held by `holder`.
fn held(holder: &mut Holder, pose: &Pose, t: f64) -> ([f64; 3], [f64; 4]) {
    let p = pose.position.map(f64::from);
    let q = pose.rotation.map(f64::from);
    let mut v = [p[0], p[1], p[2], q[0], q[1], q[2], q[3]];
    holder.hold(&mut v, t);
    (
        position_to_ros([v[0], v[1], v[2]]),
        rotation_to_ros([v[3], v[4], v[5], v[6]]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unity_rotation_turns_the_same_way_in_ros_axes() {
        // Any turn: rotating v in Unity then mapping equals mapping then rotating.
        let q = DQuat::from_axis_angle(DVec3::new(0.3, -0.5, 0.8).normalize(), 1.1);
        let v = [0.2, -0.7, 0.4];
        let in_unity = (q * DVec3::from_array(v)).to_array();
        let r = DQuat::from_array(rotation_to_ros(q.to_array()));
        let in_ros = r * DVec3::from_array(position_to_ros(v));
        let want = DVec3::from_array(position_to_ros(in_unity));
        assert!((in_ros - want).length() < 1e-12, "{in_ros} vs {want}");
    }
}
