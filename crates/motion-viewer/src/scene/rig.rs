//! An AIBO pose as a stick figure of primitives: bones as capsules, joints as
//! spheres, the body and head as boxes, coloured by body part (left legs
//! blue, right legs red, so the sides stay apart from any viewpoint).
//!
//! Pure CPU: the forward kinematics come from [`crate::anim::aibo`], the axes
//! from the crate's own `scene::units`.
//!
//! **Ground.** The FK places the body centre at the origin. Each frame the
//! figure is lifted so that its lowest support (the ball of a paw or a knee,
//! or a corner of the body or head box) touches y = 0: a sitting or lying dog
//! sinks onto the grid instead of floating at its standing height, and
//! nothing but the tail ever dips below the ground.

use glam::{Mat3, Mat4, Vec3};

use super::shapes::Primitives;
use super::shapes::{BoxInstance, Capsule, Sphere};
use super::units::{aibo_box, aibo_point};
use crate::anim::aibo::{MtnRig, RigPose, body_box, bones, head_box};
use crate::formats::aibo::Model;
use crate::formats::mtn::Mtn;

/// Radius of a bone, metres: the robot description's visual bones.
pub(crate) const BONE_RADIUS_M: f32 = crate::anim::aibo::physical::BONE_RADIUS_M as f32;
/// Radius of a joint ball, metres: the robot description's.
pub(crate) const JOINT_RADIUS_M: f32 = crate::anim::aibo::physical::JOINT_RADIUS_M as f32;

/// What a point or bone belongs to, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// The trunk (the outline through the shoulders, the body box).
    Body,
    /// The two left legs.
    LeftLeg,
    /// The two right legs.
    RightLeg,
    /// Neck and head.
    Head,
    /// The tail.
    Tail,
}

impl Part {
    /// The part a named rig point belongs to.
    pub(crate) fn of_point(name: &str) -> Part {
        if name.starts_with("left_") {
            Part::LeftLeg
        } else if name.starts_with("right_") {
            Part::RightLeg
        } else if name.starts_with("tail") {
            Part::Tail
        } else {
            Part::Head
        }
    }

    /// The part a bone between two named points belongs to: the neck and
    /// tail bones join the body to them, and a bone between two shoulders is
    /// the trunk.
    pub(crate) fn of_bone(a: &str, b: &str) -> Part {
        match (Part::of_point(a), Part::of_point(b)) {
            (_, Part::Head) | (Part::Head, _) => Part::Head,
            (_, Part::Tail) | (Part::Tail, _) => Part::Tail,
            _ if a.ends_with("shoulder") && b.ends_with("shoulder") => Part::Body,
            (part, _) => part,
        }
    }

    /// Linear RGBA.
    pub(crate) fn colour(self) -> [f32; 4] {
        match self {
            Part::Body => [0.62, 0.63, 0.66, 1.0],
            Part::LeftLeg => [0.08, 0.30, 0.95, 1.0],
            Part::RightLeg => [0.95, 0.18, 0.06, 1.0],
            Part::Head => [0.95, 0.72, 0.20, 1.0],
            Part::Tail => [0.25, 0.70, 0.25, 1.0],
        }
    }
}

/// The corners of a unit cube mapped by `linear` about `centre`.
fn box_corners(linear: Mat3, centre: Vec3) -> [Vec3; 8] {
    std::array::from_fn(|i| {
        let unit = Vec3::new(
            if i & 1 == 0 { -0.5 } else { 0.5 },
            if i & 2 == 0 { -0.5 } else { 0.5 },
            if i & 4 == 0 { -0.5 } else { 0.5 },
        );
        centre + linear * unit
    })
}

/// The body box as a world map of the unit cube and its centre (origin at the body centre).
fn body_box_world(model: Model, pose: &RigPose) -> (Mat3, Vec3) {
    let (centre, half) = body_box(model);
    aibo_box([0.0; 3], pose.body_rotation, centre, half)
}

/// The head box likewise, or `None` if the pose lacks its head point.
fn head_box_world(model: Model, pose: &RigPose) -> Option<(Mat3, Vec3)> {
    let (centre, half) = head_box(model);
    let head = pose.world_point("head")?;
    Some(aibo_box(head, pose.head_rotation, centre, half))
}

/// How far (metres) the posed figure must be raised for its lowest support,
/// the ball of a paw or a knee or a corner of the body or head box, to touch y = 0.
pub fn ground_lift(model: Model, pose: &RigPose) -> f32 {
    let limbs = pose
        .world
        .iter()
        .filter(|(name, _)| name.ends_with("_paw") || name.ends_with("_knee"))
        // The balls drawn at paws and knees rest on the ground, not their centres.
        .map(|&(_, p)| aibo_point(p).y - JOINT_RADIUS_M);
    let boxes = std::iter::once(body_box_world(model, pose))
        .chain(head_box_world(model, pose))
        .flat_map(|(linear, centre)| box_corners(linear, centre))
        .map(|c| c.y);
    let lowest = limbs.chain(boxes).fold(f32::INFINITY, f32::min);
    if lowest.is_finite() { -lowest } else { 0.0 }
}

/// Appends the stick figure of `pose` to `out`, with the body centre at
/// `origin` (world metres; add [`ground_lift`] to its y to stand on the ground).
pub fn primitives(model: Model, pose: &RigPose, origin: Vec3, out: &mut Primitives) {
    let at = |p: [f64; 3]| origin + aibo_point(p);
    for &(a, b) in bones(model) {
        if let (Some(pa), Some(pb)) = (pose.world_point(a), pose.world_point(b)) {
            out.capsules.push(Capsule {
                a: at(pa),
                b: at(pb),
                radius: BONE_RADIUS_M,
                colour: Part::of_bone(a, b).colour(),
            });
        }
    }
    for &(name, p) in &pose.world {
        out.spheres.push(Sphere {
            centre: at(p),
            radius: JOINT_RADIUS_M,
            colour: Part::of_point(name).colour(),
        });
    }
    let (linear, centre) = body_box_world(model, pose);
    out.boxes.push(BoxInstance {
        transform: Mat4::from_translation(origin + centre) * Mat4::from_mat3(linear),
        colour: Part::Body.colour(),
    });
    if let Some((linear, centre)) = head_box_world(model, pose) {
        out.boxes.push(BoxInstance {
            transform: Mat4::from_translation(origin + centre) * Mat4::from_mat3(linear),
            colour: Part::Head.colour(),
        });
    }
}

/// Every world point the drawn figure reaches, body centre at the origin
/// (joint balls and bones padded by their radius, box corners as they are).
fn extent_points(model: Model, pose: &RigPose) -> Vec<Vec3> {
    let mut points = Vec::with_capacity(pose.world.len() * 2 + 16);
    let pad = Vec3::splat(JOINT_RADIUS_M.max(BONE_RADIUS_M));
    for &(_, p) in &pose.world {
        let p = aibo_point(p);
        points.push(p - pad);
        points.push(p + pad);
    }
    let (linear, centre) = body_box_world(model, pose);
    points.extend(box_corners(linear, centre));
    if let Some((linear, centre)) = head_box_world(model, pose) {
        points.extend(box_corners(linear, centre));
    }
    points
}

/// The box the figure of `pose` fills, lifted onto the ground by
/// [`ground_lift`], body centre above the origin (world metres).
pub(crate) fn extent(model: Model, pose: &RigPose) -> (Vec3, Vec3) {
    let lift = Vec3::Y * ground_lift(model, pose);
    extent_points(model, pose)
        .into_iter()
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p + lift), hi.max(p + lift))
        })
}

/// Most poses [`bounds_over_time`] evaluates, however long the motion or
/// however many keyframes it has.
pub(crate) const MAX_BOUNDS_SAMPLES: usize = 4096;

/// Poses sampled inside each keyframe segment besides its ends, while
/// [`MAX_BOUNDS_SAMPLES`] allows: joint angles are linear between keyframes,
/// but the points the forward kinematics puts them at are not.
pub(crate) const SEGMENT_SAMPLES: usize = 3;

/// The times [`bounds_over_time`] poses a motion whose keyframes fall at
/// `keyframe_times` (seconds, ascending): every keyframe and
/// [`SEGMENT_SAMPLES`] evenly spaced times inside each segment, or, when
/// there are more keyframes than [`MAX_BOUNDS_SAMPLES`], that many keyframes
/// evenly spread from the first to the last. Never more than
/// [`MAX_BOUNDS_SAMPLES`] times, whatever the frame counts say.
pub(crate) fn bounds_sample_times(keyframe_times: &[f64]) -> Vec<f64> {
    let count = keyframe_times.len();
    if count == 0 {
        // A motion built in code without keyframes still has its one pose.
        return vec![0.0];
    }
    if count > MAX_BOUNDS_SAMPLES {
        let last = count - 1;
        let steps = MAX_BOUNDS_SAMPLES - 1;
        return (0..MAX_BOUNDS_SAMPLES)
            // i · last ≤ 4095 · 65 535: no overflow for any keyframe count a file holds.
            .map(|i| keyframe_times[(i * last + steps / 2) / steps])
            .collect();
    }
    let segments = (count - 1).max(1);
    let inside = SEGMENT_SAMPLES.min((MAX_BOUNDS_SAMPLES - count) / segments);
    let mut times = Vec::with_capacity(count + segments * inside);
    for (i, &t) in keyframe_times.iter().enumerate() {
        times.push(t);
        if let Some(&next) = keyframe_times.get(i + 1) {
            let span = next - t;
            times.extend((1..=inside).map(|j| t + span * j as f64 / (inside + 1) as f64));
        }
    }
    times
}

/// The box the grounded figure of `mtn` fills over the whole motion, body
/// centre above the origin, from the poses at [`bounds_sample_times`]: at
/// most [`MAX_BOUNDS_SAMPLES`] poses, so a keyframe that claims four billion
/// frames costs no more than one that claims four.
pub(crate) fn bounds_over_time(mtn: &Mtn) -> (Vec3, Vec3) {
    let rig = MtnRig::new(mtn);
    bounds_sample_times(rig.keyframe_times_s())
        .into_iter()
        .map(|t| {
            let (model, pose) = rig.pose(t);
            extent(model, &pose)
        })
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), (a, b)| {
            (lo.min(a), hi.max(b))
        })
}
