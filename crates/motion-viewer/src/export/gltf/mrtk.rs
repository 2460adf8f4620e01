//! An MRTK input animation as nodes sampled at the toolkit's 60 Hz
//! ([`FRAME_PERIOD_S`]) or at `--fps`, on the one clock's grid (and at the
//! recording's last key), in world axes
//! ([`crate::scene::units`]: Unity's z mirrored):
//!
//! - `camera`: the head pose, carrying a glTF perspective camera (it looks
//!   along its −z, as the recorded head does once mirrored) and the viewer's
//!   pyramid of lines;
//! - `gaze`: at the gaze origin, turned so its −z follows the gaze, with the
//!   viewer's 1 m ray; scaled to nothing while the direction is zero;
//! - `Left hand`, `Right hand`: each with 27 joint nodes (`Left_Wrist`,
//!   `Left_IndexTip`, … in the toolkit's order; `None` carries no ball) and
//!   the finger segments as bones. **An untracked hand is scaled to zero**
//!   (STEP), as the viewer does not draw it. Hands keep their not-pinching
//!   colour; when they pinch is in `extras`.
//!
//! Translations and rotations are LINEAR between samples. The track's root
//! node's `extras` hold the recording's `markers` (`time` in seconds,
//! `name`) and each hand's `pinching` intervals `[start, end]` in seconds,
//! as sampled.

use glam::{Quat, Vec3};
use gltf_json as json;
use json::Index;
use json::animation::{Interpolation, Property};
use serde_json::json;

use super::aibo::animate_trs;
use super::document::{Document, extras, refuse};
use super::shapes::{Shapes, bone, lines};
use crate::anim::clock::Grid;
use crate::anim::input_animation::{
    HandState, InputState, JOINT_NAMES, Pose, duration_s, state_at,
};
use crate::error::Result;
use crate::export::finite::Holder;
use crate::formats::input_animation::InputAnimation;
use crate::scene::hands::{
    CAMERA_COLOUR, GAZE_COLOUR, GAZE_LENGTH_M, HAND_SEGMENTS, JOINT_RADIUS_M, SEGMENT_RADIUS_M,
    Side, camera_lines, hand_colour,
};
use crate::scene::units::{unity_point, unity_rotation};

/// The most samples a recording may have for export.
pub const MAX_SAMPLES: usize = 1_000_000;

/// What an MRTK track needs.
pub struct MrtkTrack<'s> {
    /// The recording's file, for errors.
    pub file: String,
    /// The track's name (its root node's).
    pub name: String,
    /// The recording.
    pub recording: &'s InputAnimation,
    /// The track's placement: a translation…
    pub offset: Vec3,
    /// …after a uniform scale (zero and one: the file's own coordinates).
    pub scale: f32,
    /// The times to sample, on the one clock (every 1/60 s, or `--fps`).
    pub grid: Grid,
}

/// Sample times: the grid's, and the end where it falls after the grid's
/// last (a recording's last key need not stand on a frame).
fn sample_times(track: &MrtkTrack<'_>) -> Result<Vec<f64>> {
    let duration = duration_s(track.recording);
    if track.grid.len() >= MAX_SAMPLES as u64 {
        return Err(refuse(
            &track.file,
            format!(
                "the recording runs {duration} s; a glTF export samples it every {} s and takes at most {MAX_SAMPLES} samples",
                track.grid.period_s()
            ),
        ));
    }
    let mut times: Vec<f64> = track.grid.times().collect();
    if duration.is_finite() && times.last().is_some_and(|&last| duration > last) {
        times.push(duration);
    }
    // The end may fall a hair after the last whole step: keep one of the two.
    times.dedup_by(|b, a| (*b as f32) <= (*a as f32));
    Ok(times)
}

/// A pose's node transform in world axes.
fn placed(pose: &Pose) -> (Vec3, Quat, Vec3) {
    (
        unity_point(pose.position),
        unity_rotation(pose.rotation),
        Vec3::ONE,
    )
}

/// Adds the MRTK track to `doc`; returns its root node.
///
/// A value that is not finite (tracking lost) holds its last finite value,
/// with one warning pushed to `warnings`.
pub fn add(
    doc: &mut Document<'_>,
    shapes: &mut Shapes,
    track: &MrtkTrack<'_>,
    warnings: &mut Vec<String>,
) -> Result<Index<json::Node>> {
    let seconds = sample_times(track)?;
    let times: Vec<f32> = seconds.iter().map(|&t| t as f32).collect();
    let mut holder = Holder::default();
    let states: Vec<InputState> = seconds
        .iter()
        .map(|&t| {
            let mut state = state_at(track.recording, t);
            holder.hold_input(&mut state);
            state
        })
        .collect();
    warnings.extend(holder.warning(std::path::Path::new(&track.file), "samples"));
    let mut children = Vec::new();

    if track.recording.camera.is_some() {
        children.push(camera(doc, &times, &states));
    }
    if track.recording.eye_gaze.is_some() {
        children.push(gaze(doc, &times, &states));
    }
    let mut pinching = serde_json::Map::new();
    if track.recording.hands.is_some() {
        for side in [Side::Left, Side::Right] {
            let hand = |s: &InputState| {
                let hands = s.hands.as_ref().expect("hands recorded");
                match side {
                    Side::Left => hands.left,
                    Side::Right => hands.right,
                }
            };
            let hands: Vec<HandState> = states.iter().map(hand).collect();
            children.push(hand_node(doc, shapes, side, &times, &hands));
            pinching.insert(side_name(side).to_lowercase(), intervals(&seconds, &hands));
        }
    }
    let markers: Vec<_> = track
        .recording
        .markers
        .iter()
        .map(|m| json!({ "time": m.time, "name": m.name }))
        .collect();
    Ok(doc.node(
        &track.name,
        json::Node {
            translation: super::document::placed(track.offset, track.scale).0,
            scale: super::document::placed(track.offset, track.scale).1,
            children: Some(children),
            extras: extras(json!({ "markers": markers, "pinching": pinching })),
            ..Default::default()
        },
    ))
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Left => "Left",
        Side::Right => "Right",
    }
}

/// The sampled intervals `[start, end]` in which a hand pinches.
fn intervals(seconds: &[f64], hands: &[HandState]) -> serde_json::Value {
    let mut out = Vec::new();
    let mut start = None;
    for (&t, h) in seconds.iter().zip(hands) {
        match (h.pinching, start) {
            (true, None) => start = Some(t),
            (false, Some(s)) => {
                out.push(json!([s, t]));
                start = None;
            }
            _ => {}
        }
    }
    if let (Some(s), Some(&end)) = (start, seconds.last()) {
        out.push(json!([s, end]));
    }
    serde_json::Value::from(out)
}

/// The head camera: a glTF perspective camera shaped like the viewer's pyramid.
fn camera(doc: &mut Document<'_>, times: &[f32], states: &[InputState]) -> Index<json::Node> {
    let pyramid = camera_lines(&Pose::default(), Vec3::ZERO);
    // The first line runs from the apex to a base corner: (−w, −h, −depth).
    let corner = pyramid[0].b;
    let camera = doc.root.push(json::Camera {
        name: Some("head".into()),
        orthographic: None,
        perspective: Some(json::camera::Perspective {
            aspect_ratio: Some(corner.x.abs() / corner.y.abs()),
            yfov: 2.0 * (corner.y.abs() / corner.z.abs()).atan(),
            zfar: None,
            znear: 0.01,
            extensions: None,
            extras: None,
        }),
        type_: json::validation::Checked::Valid(json::camera::Type::Perspective),
        extensions: None,
        extras: None,
    });
    let segments: Vec<(Vec3, Vec3)> = pyramid.iter().map(|l| (l.a, l.b)).collect();
    let mesh = lines(doc, "camera", &segments, CAMERA_COLOUR);
    let poses: Vec<(Vec3, Quat, Vec3)> = states
        .iter()
        .map(|s| {
            s.camera
                .as_ref()
                .map_or((Vec3::ZERO, Quat::IDENTITY, Vec3::ONE), placed)
        })
        .collect();
    let node = doc.node(
        "camera",
        json::Node {
            camera: Some(camera),
            mesh: Some(mesh),
            ..at(poses[0])
        },
    );
    animate_trs(doc, node, times, &poses);
    node
}

/// The eye gaze ray.
fn gaze(doc: &mut Document<'_>, times: &[f32], states: &[InputState]) -> Index<json::Node> {
    let mesh = lines(
        doc,
        "gaze",
        &[(Vec3::ZERO, Vec3::NEG_Z * GAZE_LENGTH_M)],
        GAZE_COLOUR,
    );
    let poses: Vec<(Vec3, Quat, Vec3)> = states
        .iter()
        .map(|s| {
            let ray = s.eye_gaze.unwrap_or_default();
            let direction = unity_point(ray.direction);
            let origin = unity_point(ray.origin);
            if direction.length_squared() > 0.0 && direction.is_finite() {
                let turn = Quat::from_rotation_arc(Vec3::NEG_Z, direction.normalize());
                (origin, turn, Vec3::ONE)
            } else {
                (origin, Quat::IDENTITY, Vec3::ZERO)
            }
        })
        .collect();
    let node = doc.node(
        "gaze",
        json::Node {
            mesh: Some(mesh),
            ..at(poses[0])
        },
    );
    animate_trs(doc, node, times, &poses);
    node
}

/// One hand: its joints and finger segments under a node scaled to zero
/// while the hand is untracked.
fn hand_node(
    doc: &mut Document<'_>,
    shapes: &mut Shapes,
    side: Side,
    times: &[f32],
    hands: &[HandState],
) -> Index<json::Node> {
    let colour = hand_colour(side, false);
    let name = side_name(side);
    let mut children = Vec::with_capacity(JOINT_NAMES.len() + HAND_SEGMENTS.len());
    for (j, joint) in JOINT_NAMES.iter().enumerate() {
        let poses: Vec<(Vec3, Quat, Vec3)> = hands.iter().map(|h| placed(&h.joints[j])).collect();
        // Joint 0 (`None`) is never drawn.
        let mesh = (j > 0).then(|| shapes.sphere(doc, JOINT_RADIUS_M, colour));
        let node = doc.node(
            &format!("{name}_{joint}"),
            json::Node {
                mesh,
                ..at(poses[0])
            },
        );
        animate_trs(doc, node, times, &poses);
        children.push(node);
    }
    let cylinder = shapes.cylinder(doc, colour);
    for &(a, b) in &HAND_SEGMENTS {
        let poses: Vec<(Vec3, Quat, Vec3)> = hands
            .iter()
            .map(|h| {
                let end = |i: usize| unity_point(h.joints[i].position);
                bone(end(a), end(b), SEGMENT_RADIUS_M)
            })
            .collect();
        let label = format!("{name}_{}-{}", JOINT_NAMES[a], JOINT_NAMES[b]);
        let node = doc.node(
            &label,
            json::Node {
                mesh: Some(cylinder),
                ..at(poses[0])
            },
        );
        animate_trs(doc, node, times, &poses);
        children.push(node);
    }
    let shown: Vec<[f32; 3]> = hands
        .iter()
        .map(|h| [if h.tracked { 1.0 } else { 0.0 }; 3])
        .collect();
    let node = doc.node(
        &format!("{name} hand"),
        json::Node {
            scale: Some(shown[0]),
            children: Some(children),
            ..Default::default()
        },
    );
    if shown.iter().any(|s| *s != shown[0]) {
        doc.animate(node, Property::Scale, times, &shown, Interpolation::Step);
    }
    node
}

/// A node at a transform (no mesh yet).
fn at((t, r, s): (Vec3, Quat, Vec3)) -> json::Node {
    json::Node {
        translation: Some(t.to_array()),
        rotation: Some(json::scene::UnitQuaternion(r.normalize().to_array())),
        scale: Some(s.to_array()),
        ..Default::default()
    }
}
