//! An AIBO motion as the viewer's stick figure on a node hierarchy:
//! track → `body` → one node per link of the rig's kinematic tree
//! ([`crate::anim::aibo::Link`]: each leg's J1, J2, knee J3 and paw, the
//! head's three servos and head point, the tail's two servos and tip).
//! A servo's node is named by the motion's PRM joint name (its short label,
//! e.g. `tail_pan`, where the motion does not drive it); an end point's by
//! its point name. Each node's `extras` say which `joint` and `point` it is.
//!
//! The nodes carry the meshes the viewer draws: a joint ball at every named
//! point, a bone (the unit cylinder, sized by its node) between the points
//! the viewer joins, and the body and head boxes. A bone rides the link
//! nearest the body that holds both its ends still; one whose ends no link holds
//! still (the ERS-7 neck, whose head nods) is animated under `body`.
//! A bone's end caps are left out: the joint balls, wider, cover them.
//!
//! Time: servo rotations are keyed at the motion's keyframes (glTF's slerp
//! turns about the servo's fixed axis, linearly in angle, exactly as the
//! motion interpolates); where a servo turns more than
//! [`MAX_KEY_STEP_DEG`] between two keyframes, at every frame tick between
//! them too, because Blender blends quaternion components, not angles. The
//! body's roll, pitch and yaw and its lift onto the ground (see
//! [`crate::scene::rig::ground_lift`]) are sampled at every frame tick.

use glam::{DMat3, DVec3, Quat, Vec3};
use gltf_json as json;
use json::Index;
use json::animation::{Interpolation, Property};
use serde_json::json;

use super::document::{Document, extras, refuse};
use super::memg_track::quat_f32;
use super::shapes::{Shapes, bone};
use crate::anim::aibo::{
    JointAngles, Link, RigPose, body_box, bones, compose, forward_kinematics, head_box,
    joint_label, pose_from_mtn, rig_model,
};
use crate::anim::rigid::continuous;
use crate::error::Result;
use crate::formats::aibo::Model;
use crate::formats::mtn::{Mtn, URAD_TO_DEG};
use crate::scene::rig::{BONE_RADIUS_M, JOINT_RADIUS_M, Part, ground_lift};
use crate::scene::units::{aibo_axes, aibo_point, aibo_rotation};

/// A servo turning more than this (degrees) between two keyframes gets a key
/// at every frame tick between them.
pub const MAX_KEY_STEP_DEG: f64 = 2.0;

/// The most frame ticks a motion may have for export (a key per tick).
pub(crate) const MAX_TICKS: u64 = 500_000;

/// What an AIBO track needs.
pub struct MtnTrack<'s> {
    /// The motion file, for errors.
    pub file: String,
    /// The track's name (its root node's).
    pub name: String,
    /// The motion.
    pub motion: &'s Mtn,
    /// The track's placement: a translation…
    pub offset: Vec3,
    /// …after a uniform scale (zero and one: the file's own coordinates).
    pub scale: f32,
}

/// The frame ticks servo keys go at: every keyframe, and every tick of a
/// segment in which some servo turns more than [`MAX_KEY_STEP_DEG`].
fn joint_ticks(motion: &Mtn) -> Vec<u64> {
    let frames = motion.keyframe_frames();
    let mut ticks = Vec::new();
    for (i, &frame) in frames.iter().enumerate() {
        let Some(&next) = frames.get(i + 1) else {
            ticks.push(frame);
            break;
        };
        let (a, b) = (&motion.keyframes[i], &motion.keyframes[i + 1]);
        let step = a
            .joints
            .iter()
            .zip(&b.joints)
            .map(|(&x, &y)| (f64::from(y) - f64::from(x)).abs() * URAD_TO_DEG)
            .fold(0.0, f64::max);
        if step > MAX_KEY_STEP_DEG {
            ticks.extend(frame..next);
        } else {
            ticks.push(frame);
        }
    }
    ticks.dedup();
    ticks
}

/// The name of the node of `link`: the PRM name of its servo in the motion,
/// or the servo's label, or the point's name.
fn link_name(motion: &Mtn, link: &Link) -> String {
    match link.joint {
        Some(joint) => motion
            .joint_roles()
            .iter()
            .position(|r| *r == Some(joint))
            .map_or_else(
                || joint_label(joint),
                |i| motion.joint_names()[i].to_string(),
            ),
        None => link.point.unwrap_or("end").to_string(),
    }
}

/// Where a point sits in `frame` (a link's frame; `None`: the body's).
fn in_frame(frames: &[(DVec3, DMat3)], frame: Option<usize>, p: DVec3) -> DVec3 {
    match frame {
        Some(f) => frames[f].1.transpose() * (p - frames[f].0),
        None => p,
    }
}

/// The link nearest the body whose frame holds both ends of bone `(a, b)`
/// still at every pose (`Some(None)`: the body's), or `None` if none does.
fn rigid_frame(model: Model, a: &str, b: &str) -> Option<Option<usize>> {
    // Three poses that move every servo: if the ends stay put in a frame
    // across them, no servo between the frame and the ends turns them.
    let poses: Vec<RigPose> = [None, Some(17.0), Some(-23.0)]
        .into_iter()
        .map(|deg| {
            let angles: JointAngles = match deg {
                None => rig_model(model).neutral_angles(),
                Some(d) => rig_model(model).joints().map(|j| (j, d)).collect(),
            };
            forward_kinematics(model, &angles, [0.0; 3])
        })
        .collect();
    let links = &poses[0].links;
    let link_of = |name: &str| links.iter().position(|l| l.point == Some(name));
    let ancestors = |mut link: Option<usize>| {
        let mut chain = Vec::new();
        while let Some(l) = link {
            chain.push(Some(l));
            link = links[l].parent;
        }
        chain
    };
    let mut candidates = ancestors(link_of(a));
    candidates.extend(ancestors(link_of(b)));
    candidates.push(None);
    // Nearest the body first: a bone between the two front shoulders is
    // also still in either shoulder's J1 frame (J1 turns about that very
    // line), but belongs to the body.
    candidates.sort_by_key(|&frame| ancestors(frame).len());
    let frames: Vec<Vec<(DVec3, DMat3)>> = poses.iter().map(|p| compose(&p.links)).collect();
    let point = |pose: &RigPose, name: &str| pose.body_point(name).map(DVec3::from_array);
    candidates.into_iter().find(|&frame| {
        let at =
            |i: usize, name: &str| point(&poses[i], name).map(|p| in_frame(&frames[i], frame, p));
        [a, b].iter().all(|name| {
            let first = at(0, name);
            first.is_some()
                && (1..poses.len()).all(|i| {
                    at(i, name)
                        .zip(first)
                        .is_some_and(|(p, q)| p.distance(q) < 1e-9)
                })
        })
    })
}

/// Adds the AIBO track to `doc`; returns its root node.
pub fn add(
    doc: &mut Document<'_>,
    shapes: &mut Shapes,
    track: &MtnTrack<'_>,
) -> Result<Index<json::Node>> {
    let motion = track.motion;
    let total = motion.total_frames();
    if total >= MAX_TICKS {
        return Err(refuse(
            &track.file,
            format!(
                "the motion runs {total} frames; a glTF export keys it at every frame and takes at most {MAX_TICKS}"
            ),
        ));
    }
    let ticks: Vec<u64> = (0..=total).collect();
    let times: Vec<f32> = ticks.iter().map(|&f| motion.frame_s(f) as f32).collect();
    let poses: Vec<(Model, RigPose)> = ticks
        .iter()
        .map(|&f| pose_from_mtn(motion, motion.frame_s(f)))
        .collect();
    let model = poses[0].0;

    // The body: lifted onto the ground and turned, every tick.
    let mut rotation = None;
    let body_rotations: Vec<[f32; 4]> = poses
        .iter()
        .map(|(_, pose)| {
            let q = continuous(aibo_rotation(pose.body_rotation), rotation);
            rotation = Some(q);
            quat_f32(q)
        })
        .collect();
    let lifts: Vec<[f32; 3]> = poses
        .iter()
        .map(|(m, pose)| [0.0, ground_lift(*m, pose), 0.0])
        .collect();
    let body = doc.node(
        "body",
        json::Node {
            translation: Some(lifts[0]),
            rotation: Some(json::scene::UnitQuaternion(body_rotations[0])),
            ..Default::default()
        },
    );
    animate_if_moving(doc, body, Property::Translation, &times, &lifts);
    animate_if_moving(doc, body, Property::Rotation, &times, &body_rotations);
    let (centre, half) = body_box(model);
    let body_box = box_node(doc, shapes, "body_box", centre, half, Part::Body);
    doc.adopt(body, body_box);

    // The links, their servos keyed where joint_ticks says.
    let key_ticks = joint_ticks(motion);
    let key_times: Vec<f32> = key_ticks
        .iter()
        .map(|&f| motion.frame_s(f) as f32)
        .collect();
    let links = &poses[0].1.links;
    let mut nodes: Vec<Index<json::Node>> = Vec::with_capacity(links.len());
    for (i, link) in links.iter().enumerate() {
        let mut previous = None;
        let rotations: Vec<[f32; 4]> = key_ticks
            .iter()
            .map(|&f| {
                let q = continuous(
                    aibo_rotation(poses[f as usize].1.links[i].rotation),
                    previous,
                );
                previous = Some(q);
                quat_f32(q)
            })
            .collect();
        let mesh = link
            .point
            .map(|p| shapes.sphere(doc, JOINT_RADIUS_M, Part::of_point(p).colour()));
        let node = doc.node(
            &link_name(motion, link),
            json::Node {
                translation: Some(aibo_point(link.offset).to_array()),
                rotation: Some(json::scene::UnitQuaternion(rotations[0])),
                mesh,
                extras: extras(json!({
                    "joint": link.joint.map(joint_label),
                    "point": link.point,
                })),
                ..Default::default()
            },
        );
        animate_if_moving(doc, node, Property::Rotation, &key_times, &rotations);
        doc.adopt(link.parent.map_or(body, |p| nodes[p]), node);
        nodes.push(node);
    }
    if let Some(head) = links.iter().position(|l| l.point == Some("head")) {
        let (centre, half) = head_box(model);
        let head_box = box_node(doc, shapes, "head_box", centre, half, Part::Head);
        doc.adopt(nodes[head], head_box);
    }

    // The bones.
    let frames0 = compose(links);
    for &(a, b) in bones(model) {
        let colour = Part::of_bone(a, b).colour();
        let mesh = shapes.cylinder(doc, colour);
        let name = format!("{a}-{b}");
        match rigid_frame(model, a, b) {
            Some(frame) => {
                let at = |p: &str| {
                    let body_point = poses[0]
                        .1
                        .body_point(p)
                        .map(DVec3::from_array)
                        .unwrap_or_default();
                    aibo_point(in_frame(&frames0, frame, body_point).to_array())
                };
                let (t, r, s) = bone(at(a), at(b), BONE_RADIUS_M);
                let node = doc.node(&name, trs_node(t, r, s, mesh));
                doc.adopt(frame.map_or(body, |f| nodes[f]), node);
            }
            None => {
                let placed: Vec<(Vec3, Quat, Vec3)> = poses
                    .iter()
                    .map(|(_, pose)| {
                        let at = |p: &str| aibo_point(pose.body_point(p).unwrap_or_default());
                        bone(at(a), at(b), BONE_RADIUS_M)
                    })
                    .collect();
                let (t, r, s) = placed[0];
                let node = doc.node(&name, trs_node(t, r, s, mesh));
                animate_trs(doc, node, &times, &placed);
                doc.adopt(body, node);
            }
        }
    }

    let root = doc.node(
        &track.name,
        json::Node {
            translation: super::document::placed(track.offset, track.scale).0,
            scale: super::document::placed(track.offset, track.scale).1,
            children: Some(vec![body]),
            extras: extras(json!({ "model": model.name() })),
            ..Default::default()
        },
    );
    Ok(root)
}

/// A node placed by `t`, `r`, `s` carrying `mesh`.
fn trs_node(t: Vec3, r: Quat, s: Vec3, mesh: Index<json::Mesh>) -> json::Node {
    json::Node {
        translation: Some(t.to_array()),
        rotation: Some(json::scene::UnitQuaternion(r.normalize().to_array())),
        scale: Some(s.to_array()),
        mesh: Some(mesh),
        ..Default::default()
    }
}

/// The unit cube sized and placed as a box of the rig (`centre` and
/// `half` extents in mm, AIBO axes, in its frame).
fn box_node(
    doc: &mut Document<'_>,
    shapes: &mut Shapes,
    name: &str,
    centre: [f64; 3],
    half: [f64; 3],
    part: Part,
) -> Index<json::Node> {
    let mesh = shapes.cube(doc, part.colour());
    let size = Vec3::from_array(half.map(|h| (2.0 * h / 1000.0) as f32));
    doc.node(
        name,
        json::Node {
            translation: Some(aibo_point(centre).to_array()),
            rotation: Some(json::scene::UnitQuaternion(quat_f32(aibo_axes()))),
            scale: Some(size.to_array()),
            mesh: Some(mesh),
            ..Default::default()
        },
    )
}

/// Animates `property` of `node` when its values change.
fn animate_if_moving<const N: usize>(
    doc: &mut Document<'_>,
    node: Index<json::Node>,
    property: Property,
    times: &[f32],
    values: &[[f32; N]],
) {
    if values.iter().any(|v| *v != values[0]) {
        doc.animate(node, property, times, values, Interpolation::Linear);
    }
}

/// Animates a node through `placed` transforms, one per time.
pub(crate) fn animate_trs(
    doc: &mut Document<'_>,
    node: Index<json::Node>,
    times: &[f32],
    placed: &[(Vec3, Quat, Vec3)],
) {
    let translations: Vec<[f32; 3]> = placed.iter().map(|p| p.0.to_array()).collect();
    let mut previous = None;
    let rotations: Vec<[f32; 4]> = placed
        .iter()
        .map(|p| {
            let q = continuous(p.1.as_dquat(), previous);
            previous = Some(q);
            quat_f32(q)
        })
        .collect();
    let scales: Vec<[f32; 3]> = placed.iter().map(|p| p.2.to_array()).collect();
    animate_if_moving(doc, node, Property::Translation, times, &translations);
    animate_if_moving(doc, node, Property::Rotation, times, &rotations);
    animate_if_moving(doc, node, Property::Scale, times, &scales);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bones_ride_the_link_that_holds_both_ends() {
        let frame = |a, b| rigid_frame(Model::Ers7, a, b);
        let links = forward_kinematics(Model::Ers7, &JointAngles::new(), [0.0; 3]).links;
        let named = |f: Option<usize>| f.map(|i| (links[i].joint, links[i].point));
        use crate::formats::aibo::{Joint, Leg, LegJoint};
        // The upper leg turns with J1 and J2: it rides J2.
        assert_eq!(
            named(frame("left_front_shoulder", "left_front_knee").unwrap()),
            Some((Some(Joint::Leg(Leg::LeftFront, LegJoint::Elevator)), None))
        );
        // The lower leg rides the knee.
        assert_eq!(
            named(frame("left_front_knee", "left_front_paw").unwrap()),
            Some((
                Some(Joint::Leg(Leg::LeftFront, LegJoint::Knee)),
                Some("left_front_knee")
            ))
        );
        // The body outline rides the body.
        assert_eq!(
            frame("left_front_shoulder", "right_front_shoulder"),
            Some(None)
        );
        // The ERS-7's head nods after it pans: no link holds the neck bone still.
        assert_eq!(frame("neck", "head"), None);
        // An ERS-210's rolls about the head's own axis: the pan link holds it.
        let links = forward_kinematics(Model::Ers210, &JointAngles::new(), [0.0; 3]).links;
        let f = rigid_frame(Model::Ers210, "neck", "head").unwrap().unwrap();
        assert_eq!(links[f].joint, Some(Joint::HeadPan));
    }
}
