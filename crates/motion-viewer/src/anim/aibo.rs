//! AIBO kinematic rigs: the five robot models as data, and forward kinematics
//! from joint angles to a named stick figure.
//!
//! Frames and signs follow `docs/formats.md` §1. The **body frame** has x forward,
//! y left, z up, its origin at the body centre at shoulder height; all lengths
//! are millimetres, all angles degrees.
//!
//! - J1 (rotator) turns the leg about the y axis; + swings a front leg
//!   forward and a hind leg backward.
//! - J2 (elevator) turns the leg about the x axis; + moves it away from the body.
//! - J3 (knee) turns the lower leg about the y axis; + moves the foot in the
//!   J1 + direction.
//! - Head tilt + raises the head, pan + turns it left; the ERS-7/ERS-310 nod
//!   (`HeadRoll`) + raises it too, the ERS-210 roll + rolls it to the right.
//! - Tail tilt + raises the tip, pan + swings it left.
//! - Body roll + leans right, pitch + leans backward (front up), yaw + turns left.
//!
//! Each leg is described in its own **leg frame**: x' points the way J1 +
//! swings the leg (forward on a front leg, backward on a hind leg), y' points
//! away from the body, z' up. One set of numbers then serves all four legs of
//! a pair, and every joint turns the same way in that frame. In this frame the
//! docs/formats.md §1 offsets put the four paws of Sony's ERS-7 stand and sit postures on
//! one horizontal plane within about 2 mm.

// The servo targets serve the simulator (feature `physics`); the MJCF
// export reads the timing alone.
#[cfg_attr(not(feature = "physics"), allow(dead_code))]
pub(crate) mod drive;
mod links;
mod models;
pub(crate) mod physical;
mod stops;

use std::collections::HashMap;

use glam::{DMat3, DVec3};

use crate::anim::mtn::MtnSampler;
use crate::formats::aibo::{Joint, Leg, LegJoint, Model};
use crate::formats::mtn::Mtn;

pub use links::Link;
pub(crate) use links::compose;
pub(crate) use models::rig_model;
pub(crate) use stops::{RESOLUTION_DEG, Reach};

/// Joint angles in degrees by joint. Joints a model has that are missing
/// here take the model's neutral stance.
pub type JointAngles = HashMap<Joint, f64>;

/// A joint's range of motion in degrees: its software limit (`stops` says
/// what lies past it: the mechanical stop, and the one rule for both).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Limit {
    /// The joint.
    pub joint: Joint,
    /// Lowest angle, degrees.
    pub min_deg: f64,
    /// Highest angle, degrees.
    pub max_deg: f64,
}

/// One leg pair's segments, in the leg frame at zero angles (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LegGeometry {
    /// Knee relative to the shoulder.
    pub upper: [f64; 3],
    /// Paw relative to the knee.
    pub lower: [f64; 3],
}

/// How the head servos are chained after the neck tilt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// Each name is the chain's axis order, so most begin with the tilt.
#[allow(clippy::enum_variant_names)]
pub(crate) enum HeadChain {
    /// Tilt, pan, then roll about the head's forward axis (ERS-110, ERS-210, ERS-220).
    TiltPanRoll,
    /// Tilt, pan, then a second tilt (nod) (ERS-7).
    TiltPanNod,
    /// Tilt, second tilt (nod), then pan (ERS-310).
    TiltNodPan,
}

/// One robot model's kinematics: geometry, joint limits and neutral stance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RigModel {
    /// The model this data describes.
    pub model: Model,
    /// The left front shoulder (J1 axis); the other three mirror it in x and y.
    pub shoulder: [f64; 3],
    /// Front leg segments, leg frame.
    pub front: LegGeometry,
    /// Hind leg segments, leg frame.
    pub hind: LegGeometry,
    /// The neck tilt axis, body frame.
    pub neck: [f64; 3],
    /// Order of the head servos.
    pub head_chain: HeadChain,
    /// From the tilt axis up the neck to the pan/second joint, mm.
    pub neck_length: f64,
    /// From that joint forward to the head point, mm.
    pub head_forward: f64,
    /// The tail's root, body frame.
    pub tail_base: [f64; 3],
    /// Drawn tail length, mm (pointing backward at zero angles; a fixed stub
    /// on a model without tail joints).
    pub tail_length: f64,
    /// Body box for a renderer: centre and half extents, body frame.
    pub body_box: ([f64; 3], [f64; 3]),
    /// Head box for a renderer: centre and half extents in the head frame
    /// (origin at the `head` point, axes [`RigPose::head_rotation`]).
    pub head_box: ([f64; 3], [f64; 3]),
    /// Joint limits; a joint without one is not checked.
    pub limits: &'static [Limit],
    /// Every joint the model has, with its neutral angle (standing, head level).
    pub neutral: &'static [(Joint, f64)],
}

impl RigModel {
    /// The limit of `joint`, if the model has one.
    pub(crate) fn limit(&self, joint: Joint) -> Option<&Limit> {
        self.limits.iter().find(|l| l.joint == joint)
    }

    /// The neutral angle of `joint`; `None` if the model lacks the joint.
    pub(crate) fn neutral_angle(&self, joint: Joint) -> Option<f64> {
        self.neutral
            .iter()
            .find(|(j, _)| *j == joint)
            .map(|&(_, deg)| deg)
    }

    /// Every joint the model has.
    pub fn joints(&self) -> impl Iterator<Item = Joint> + '_ {
        self.neutral.iter().map(|&(j, _)| j)
    }

    /// The neutral stance as joint angles.
    pub(crate) fn neutral_angles(&self) -> JointAngles {
        self.neutral.iter().copied().collect()
    }
}

/// Names of the points of every [`RigPose`], in order; the same for every model.
pub const POINT_NAMES: [&str; 16] = [
    "left_front_shoulder",
    "left_front_knee",
    "left_front_paw",
    "right_front_shoulder",
    "right_front_knee",
    "right_front_paw",
    "left_hind_shoulder",
    "left_hind_knee",
    "left_hind_paw",
    "right_hind_shoulder",
    "right_hind_knee",
    "right_hind_paw",
    "neck",
    "head",
    "tail_base",
    "tail_tip",
];

/// The stick figure: pairs of point names to join with a line.
const BONES: [(&str, &str); 18] = [
    // Body outline through the four shoulders.
    ("left_front_shoulder", "right_front_shoulder"),
    ("right_front_shoulder", "right_hind_shoulder"),
    ("right_hind_shoulder", "left_hind_shoulder"),
    ("left_hind_shoulder", "left_front_shoulder"),
    // Legs.
    ("left_front_shoulder", "left_front_knee"),
    ("left_front_knee", "left_front_paw"),
    ("right_front_shoulder", "right_front_knee"),
    ("right_front_knee", "right_front_paw"),
    ("left_hind_shoulder", "left_hind_knee"),
    ("left_hind_knee", "left_hind_paw"),
    ("right_hind_shoulder", "right_hind_knee"),
    ("right_hind_knee", "right_hind_paw"),
    // Neck and head, attached to the front of the body outline.
    ("left_front_shoulder", "neck"),
    ("right_front_shoulder", "neck"),
    ("neck", "head"),
    // Tail, attached to the back of the body outline.
    ("left_hind_shoulder", "tail_base"),
    ("right_hind_shoulder", "tail_base"),
    ("tail_base", "tail_tip"),
];

/// The stick figure's bones as pairs of [`POINT_NAMES`]; every model has the
/// same points, so the same bones.
pub(crate) fn bones(_model: Model) -> &'static [(&'static str, &'static str)] {
    &BONES
}

/// The body box for a renderer: centre and half extents in the body frame
/// (rotate with [`RigPose::body_rotation`] for the world).
pub(crate) fn body_box(model: Model) -> ([f64; 3], [f64; 3]) {
    rig_model(model).body_box
}

/// The head box for a renderer: centre and half extents in the head frame,
/// whose origin is the `head` point and whose axes are [`RigPose::head_rotation`].
pub(crate) fn head_box(model: Model) -> ([f64; 3], [f64; 3]) {
    rig_model(model).head_box
}

/// A posed stick figure.
#[derive(Debug, Clone, PartialEq)]
pub struct RigPose {
    /// Points in the body frame, before the body's roll, pitch and yaw, in
    /// [`POINT_NAMES`] order.
    pub body: Vec<(&'static str, [f64; 3])>,
    /// The same points after the body rotation about the body centre.
    pub world: Vec<(&'static str, [f64; 3])>,
    /// The body rotation, body frame → world, as columns (x, y, z axes).
    pub body_rotation: [[f64; 3]; 3],
    /// The head's axes in the world (x forward out of the face, y left, z up),
    /// as columns.
    pub head_rotation: [[f64; 3]; 3],
    /// The kinematic tree the points were composed from (body frame, before
    /// the body rotation): legs, head, tail, each link a servo or an end point.
    pub links: Vec<Link>,
    /// Every joint of the model with the angle the figure was posed at,
    /// degrees (the given one, or the neutral one where none or a non-finite
    /// one was given), in the model's joint order.
    pub angles_deg: Vec<(Joint, f64)>,
    /// Angles beyond a joint limit, joints the model lacks, non-finite angles.
    pub warnings: Vec<String>,
}

impl RigPose {
    /// A point in the body frame by name.
    pub(crate) fn body_point(&self, name: &str) -> Option<[f64; 3]> {
        find(&self.body, name)
    }

    /// A point in the world frame by name.
    pub fn world_point(&self, name: &str) -> Option<[f64; 3]> {
        find(&self.world, name)
    }
}

fn find(points: &[(&'static str, [f64; 3])], name: &str) -> Option<[f64; 3]> {
    points.iter().find(|(n, _)| *n == name).map(|&(_, p)| p)
}

/// A joint's short name for messages: `head_tilt`, `left_front_j1`, `tail_pan`.
pub(crate) fn joint_label(joint: Joint) -> String {
    match joint {
        Joint::HeadTilt => "head_tilt".into(),
        Joint::HeadPan => "head_pan".into(),
        Joint::HeadRoll => "head_roll".into(),
        Joint::Mouth => "mouth".into(),
        Joint::LeftEar => "left_ear".into(),
        Joint::RightEar => "right_ear".into(),
        Joint::TailTilt => "tail_tilt".into(),
        Joint::TailPan => "tail_pan".into(),
        Joint::Leg(leg, servo) => {
            let servo = match servo {
                LegJoint::Rotator => "j1",
                LegJoint::Elevator => "j2",
                LegJoint::Knee => "j3",
            };
            format!("{}_{servo}", leg_prefix(leg))
        }
    }
}

fn leg_prefix(leg: Leg) -> &'static str {
    match leg {
        Leg::LeftFront => "left_front",
        Leg::LeftHind => "left_hind",
        Leg::RightFront => "right_front",
        Leg::RightHind => "right_hind",
    }
}

/// The body rotation for roll, pitch, yaw in degrees: yaw about z, then
/// pitch about the turned y, then roll about the turned x (Z-Y-X), with the
/// signs of the module docs.
pub(crate) fn body_rotation(body_rpy_deg: [f64; 3]) -> DMat3 {
    let [roll, pitch, yaw] = body_rpy_deg.map(f64::to_radians);
    // Pitch + lifts the front: x turns toward +z, which is -pitch about +y.
    DMat3::from_rotation_z(yaw) * DMat3::from_rotation_y(-pitch) * DMat3::from_rotation_x(roll)
}

/// Places the stick figure of `model` for the given joint angles and body
/// attitude (roll, pitch, yaw in degrees).
///
/// Joints missing from `angles` take the model's neutral stance. An angle
/// beyond its joint's limit is used as given, with a warning naming the joint,
/// the value and the limit; an angle for a joint the model lacks, or a
/// non-finite angle (then the neutral one is used), also warns.
pub fn forward_kinematics(model: Model, angles: &JointAngles, body_rpy_deg: [f64; 3]) -> RigPose {
    let rig = rig_model(model);
    let mut warnings = Vec::new();
    let resolved = resolve_angles(rig, angles, &mut warnings);
    let angle = |joint: Joint| {
        resolved
            .iter()
            .find(|(j, _)| *j == joint)
            // A joint the model lacks (the ERS-310 tail) stays at zero.
            .map_or(0.0, |&(_, deg)| deg.to_radians())
    };

    let links = links::links(rig, angle);
    let frames = links::compose(&links);
    let body: Vec<(&'static str, [f64; 3])> = links
        .iter()
        .zip(&frames)
        .filter_map(|(link, (origin, _))| Some((link.point?, origin.to_array())))
        .collect();
    debug_assert!(body.iter().map(|p| p.0).eq(POINT_NAMES));
    let head_rot = links
        .iter()
        .zip(&frames)
        .find(|(link, _)| link.point == Some("head"))
        .map_or(DMat3::IDENTITY, |(_, &(_, axes))| axes);

    let rotation = body_rotation(body_rpy_deg);
    let world = body
        .iter()
        .map(|&(name, p)| (name, (rotation * DVec3::from_array(p)).to_array()))
        .collect();
    RigPose {
        body,
        world,
        body_rotation: rotation.to_cols_array_2d(),
        head_rotation: (rotation * head_rot).to_cols_array_2d(),
        links,
        angles_deg: resolved,
        warnings,
    }
}

/// The rig's kinematic tree of `model` with every servo at `angle_rad(joint)`
/// radians (a joint the model lacks should be given 0): the links
/// [`forward_kinematics`] composes, for exporters that write the tree itself.
pub(crate) fn links_at(model: Model, angle_rad: impl Fn(Joint) -> f64) -> Vec<Link> {
    links::links(rig_model(model), angle_rad)
}

/// The unit axis a positive angle of `joint` turns about, in its parent
/// link's frame, on `model`'s rig; `None` when the rig has no such servo.
pub(crate) fn servo_axis(model: Model, joint: Joint) -> Option<[f64; 3]> {
    links::servo_axis(rig_model(model), joint)
}

/// Poses a decoded `.mtn` motion at `t` seconds (clamped to the motion): its
/// joints by role, the joints it does not drive in the neutral stance, and the
/// motion's own body roll, pitch and yaw.
///
/// A motion whose model is unknown is drawn as an ERS-7, with a warning. To
/// pose one motion at many times, keep an [`MtnRig`].
pub fn pose_from_mtn(mtn: &Mtn, t: f64) -> (Model, RigPose) {
    MtnRig::new(mtn).pose(t)
}

/// A motion ready to be posed at many times: its keyframe times, joint roles
/// and model worked out once rather than on every pose.
#[derive(Debug, Clone)]
pub struct MtnRig<'a> {
    sampler: MtnSampler<'a>,
    roles: Vec<Option<Joint>>,
    model: Option<Model>,
}

impl<'a> MtnRig<'a> {
    /// Prepares `mtn` for posing.
    pub fn new(mtn: &'a Mtn) -> MtnRig<'a> {
        MtnRig {
            sampler: MtnSampler::new(mtn),
            roles: mtn.joint_roles(),
            model: mtn.model(),
        }
    }

    /// The keyframe times of the motion, seconds, ascending.
    pub fn keyframe_times_s(&self) -> &[f64] {
        self.sampler.keyframe_times_s()
    }

    /// The model the figure is drawn as: the motion's, or an ERS-7 when unknown.
    pub(crate) fn drawn_as(&self) -> Model {
        self.model.unwrap_or(Model::Ers7)
    }

    /// The figure at `t` seconds; see [`pose_from_mtn`].
    pub fn pose(&self, t: f64) -> (Model, RigPose) {
        let sample = self.sampler.pose_at(t);
        let angles: JointAngles = self
            .roles
            .iter()
            .zip(sample.joints_deg.iter().copied())
            .filter_map(|(role, deg)| role.map(|joint| (joint, deg)))
            .collect();
        let drawn_as = self.drawn_as();
        let mut pose = forward_kinematics(drawn_as, &angles, sample.body_deg);
        if self.model.is_none() {
            pose.warnings.insert(
                0,
                format!(
                    "unknown design label {:?}; drawn as an {drawn_as}",
                    self.sampler.motion().design
                ),
            );
        }
        (drawn_as, pose)
    }
}

/// Every joint of the model with the angle to use, in the model's joint order.
fn resolve_angles(
    rig: &RigModel,
    angles: &JointAngles,
    warnings: &mut Vec<String>,
) -> Vec<(Joint, f64)> {
    let model = rig.model;
    let resolved = rig
        .neutral
        .iter()
        .map(|&(joint, neutral)| {
            let Some(&deg) = angles.get(&joint) else {
                return (joint, neutral);
            };
            if !deg.is_finite() {
                warnings.push(format!(
                    "{model} {}: angle {deg} is not finite; using the neutral {neutral}°",
                    joint_label(joint)
                ));
                return (joint, neutral);
            }
            // The stops' rule (`stops`), in its words: the sampler draws
            // any angle, and says what `mtn check` would.
            if let Some((_, past)) = rig
                .limit(joint)
                .and_then(|l| l.past(&joint_label(joint), deg))
            {
                warnings.push(format!("{model} {past}"));
            }
            (joint, deg)
        })
        .collect();
    // Sorted so that the warnings do not depend on the map's order.
    let mut foreign: Vec<String> = angles
        .keys()
        .filter(|j| rig.neutral_angle(**j).is_none())
        .map(|j| joint_label(*j))
        .collect();
    foreign.sort();
    for label in foreign {
        warnings.push(format!(
            "{model} has no joint {label}; its angle is ignored"
        ));
    }
    resolved
}
