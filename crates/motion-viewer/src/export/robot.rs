//! An AIBO model in the shape of ROS's robot description: links and joints,
//! in the units and frames of ROS (REP 103: metres, radians, x forward, y
//! left, z up). The URDF writer ([`super::urdf`]), the MCAP writer
//! ([`super::mcap`]) and USD read it, so the joint names a bag publishes are
//! the URDF's.
//!
//! Nothing here is measured or decided: it is the library's one robot
//! description ([`physical_model`]) laid out as URDF links and joints. Its
//! links are named:
//! - `base_link`: the trunk, at the body centre (the body frame of
//!   `export --time`);
//! - a servo's link by its short label (`left_front_j1`, `head_tilt`…), its
//!   joint by the model's PRM name, as `info` lists them;
//! - every rig point ([`POINT_NAMES`](crate::anim::aibo::POINT_NAMES)) as a
//!   link of its own, fixed where the rig puts it (`left_front_paw`, `head`…),
//!   so forward kinematics of the description puts every rig point where
//!   [`forward_kinematics`](crate::anim::aibo::forward_kinematics) does.

use glam::{DQuat, DVec3};

use crate::anim::aibo::physical::{Geom, PhysicalModel, physical_model};
use crate::formats::aibo::{Joint, Model};

/// The root link: the body centre.
pub(crate) const BASE_LINK: &str = "base_link";

/// A joint's kind, URDF's names.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JointKind {
    /// Turns within `[lower, upper]` radians, at most `velocity` rad/s.
    Revolute {
        /// Lowest angle, radians.
        lower: f64,
        /// Highest angle, radians.
        upper: f64,
        /// The servo's rated speed, rad/s.
        velocity: f64,
    },
    /// Turns without a published range (the ears, which are binary switches).
    Continuous,
    /// Does not move: a rig point.
    Fixed,
}

/// A link's mass, centre of mass and principal inertia (link axes), SI.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inertial {
    /// Mass, kg.
    pub mass: f64,
    /// Centre of mass, link frame, metres.
    pub com: [f64; 3],
    /// Principal moments about the centre of mass, kg·m².
    pub inertia: [f64; 3],
}

/// One link: a frame with shapes.
#[derive(Debug, Clone, PartialEq)]
pub struct RobotLink {
    /// The link's name (`base_link`, `left_front_j1`, `left_front_paw`…).
    pub name: String,
    /// Its visual shapes, in its own frame.
    pub visuals: Vec<Geom>,
    /// Its collision shapes, in its own frame.
    pub collisions: Vec<Geom>,
    /// Its mass; `None` for a rig point's frame.
    pub inertial: Option<Inertial>,
}

/// One joint between two links.
#[derive(Debug, Clone, PartialEq)]
pub struct RobotJoint {
    /// The joint's name: the PRM name for a servo, `<child>_fixed` otherwise.
    pub name: String,
    /// The servo, if the joint is one.
    pub servo: Option<Joint>,
    /// Its kind and limits.
    pub kind: JointKind,
    /// The parent link's name.
    pub parent: String,
    /// The child link's name.
    pub child: String,
    /// The child's origin in the parent's frame at angle 0, metres (no
    /// rotation: every frame of the rig is parallel to its parent's at 0).
    pub origin: [f64; 3],
    /// The unit axis a positive angle turns about, in the parent's frame.
    pub axis: [f64; 3],
}

impl RobotJoint {
    /// True for a joint that moves (revolute or continuous).
    pub fn moves(&self) -> bool {
        self.kind != JointKind::Fixed
    }
}

/// One AIBO model as a robot: links and joints, parents before children.
#[derive(Debug, Clone, PartialEq)]
pub struct Robot {
    /// The model.
    pub model: Model,
    /// The robot's name (`aibo_ers7`).
    pub name: String,
    /// The most torque a servo gives, N·m (URDF's `effort`).
    pub effort: f64,
    /// Every link, `base_link` first.
    pub links: Vec<RobotLink>,
    /// Every joint, each after its parent link's own joint.
    pub joints: Vec<RobotJoint>,
}

impl Robot {
    /// The same robot with every link named `prefix` + its name
    /// (`track2/base_link`), joints keeping their names: the description of
    /// one track in a bag of several, whose transforms name the same frames.
    /// The robot's own name takes the prefix too (`track2_aibo_ers7`), so two
    /// robots of one model stay two.
    pub fn framed(&self, prefix: &str) -> Robot {
        let frame = |name: &str| format!("{prefix}{name}");
        Robot {
            name: format!("{}{}", prefix.replace('/', "_"), self.name),
            links: self
                .links
                .iter()
                .map(|l| RobotLink {
                    name: frame(&l.name),
                    ..l.clone()
                })
                .collect(),
            joints: self
                .joints
                .iter()
                .map(|j| RobotJoint {
                    parent: frame(&j.parent),
                    child: frame(&j.child),
                    ..j.clone()
                })
                .collect(),
            ..self.clone()
        }
    }

    /// The description of `model`.
    pub fn new(model: Model) -> Robot {
        Robot::of(&physical_model(model))
    }

    /// `description` as URDF links and joints: one link per description
    /// link, one fixed link per rig point it carries.
    fn of(description: &PhysicalModel) -> Robot {
        let names: Vec<&str> = description
            .links
            .iter()
            .map(|l| match l.parent {
                None => BASE_LINK,
                Some(_) => l.name.as_str(),
            })
            .collect();
        let mut links = Vec::new();
        let mut joints = Vec::new();
        for (i, link) in description.links.iter().enumerate() {
            links.push(RobotLink {
                name: names[i].to_string(),
                visuals: link.visuals.clone(),
                collisions: link.colliders.iter().map(|c| c.geom).collect(),
                inertial: Some(Inertial {
                    mass: link.mass,
                    com: link.com,
                    inertia: link.inertia,
                }),
            });
            if let (Some(parent), Some(servo)) = (link.parent, &link.servo) {
                let kind = match (servo.range, servo.max_speed) {
                    (Some((lower, upper)), Some(velocity)) => JointKind::Revolute {
                        lower,
                        upper,
                        velocity,
                    },
                    _ => JointKind::Continuous,
                };
                joints.push(RobotJoint {
                    name: servo.name.to_string(),
                    servo: Some(servo.joint),
                    kind,
                    parent: names[parent].to_string(),
                    child: names[i].to_string(),
                    origin: link.origin,
                    axis: servo.axis,
                });
            }
            for &(point, at) in &link.points {
                links.push(RobotLink {
                    name: point.to_string(),
                    visuals: Vec::new(),
                    collisions: Vec::new(),
                    inertial: None,
                });
                joints.push(RobotJoint {
                    name: format!("{point}_fixed"),
                    servo: None,
                    kind: JointKind::Fixed,
                    parent: names[i].to_string(),
                    child: point.to_string(),
                    origin: at,
                    axis: [1.0, 0.0, 0.0],
                });
            }
        }
        Robot {
            model: description.model,
            name: description.name(),
            effort: description.servo.torque_limit_nm,
            links,
            joints,
        }
    }

    /// The joints that move, in order: the names a `JointState` carries.
    pub fn moving_joints(&self) -> impl Iterator<Item = &RobotJoint> {
        self.joints.iter().filter(|j| j.moves())
    }
}

/// Each moving joint's angle, radians, for a posed figure: `angles_deg` as
/// [`RigPose::angles_deg`](crate::anim::aibo::RigPose::angles_deg) holds them.
pub(crate) fn joint_positions(robot: &Robot, angles_deg: &[(Joint, f64)]) -> Vec<f64> {
    robot
        .moving_joints()
        .map(|j| {
            j.servo
                .and_then(|s| angles_deg.iter().find(|(a, _)| *a == s))
                .map_or(0.0, |(_, deg)| deg.to_radians())
        })
        .collect()
}

/// Every link's pose relative to its parent at `positions` (radians, in
/// [`Robot::moving_joints`] order): per joint, the translation (metres) and
/// the rotation as a unit quaternion `[x, y, z, w]` — what
/// `robot_state_publisher` would broadcast on `/tf`.
pub(crate) fn joint_transforms(robot: &Robot, positions: &[f64]) -> Vec<([f64; 3], [f64; 4])> {
    let mut angles = positions.iter();
    robot
        .joints
        .iter()
        .map(|j| {
            let angle = if j.moves() {
                angles.next().copied().unwrap_or(0.0)
            } else {
                0.0
            };
            let q = DQuat::from_axis_angle(DVec3::from_array(j.axis), angle);
            (j.origin, q.to_array())
        })
        .collect()
}

/// The warning for a motion whose design label names no model (drawn and
/// described as the model its rig falls back to), or none.
pub(super) fn unknown_model(
    motion: &crate::formats::mtn::Mtn,
    rig: &crate::anim::aibo::MtnRig,
    path: &std::path::Path,
) -> Option<String> {
    motion.model().is_none().then(|| {
        format!(
            "{}: unknown design label {:?}; described as an {}",
            crate::text::Escaped::path(path),
            motion.design,
            rig.drawn_as()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::aibo::forward_kinematics;
    use crate::formats::mtn::prm_names;
    use std::collections::HashMap;

    /// Composes the description's joints at `positions` into each link's
    /// origin in `base_link`, independently of the rig's own composition.
    fn link_origins(robot: &Robot, positions: &[f64]) -> HashMap<String, DVec3> {
        let mut frames: HashMap<String, (DVec3, DQuat)> = HashMap::new();
        frames.insert(BASE_LINK.into(), (DVec3::ZERO, DQuat::IDENTITY));
        for (j, (t, q)) in robot.joints.iter().zip(joint_transforms(robot, positions)) {
            let (po, pq) = frames[&j.parent];
            frames.insert(
                j.child.clone(),
                (po + pq * DVec3::from_array(t), pq * DQuat::from_array(q)),
            );
        }
        frames.into_iter().map(|(k, (o, _))| (k, o)).collect()
    }

    #[test]
    fn the_description_puts_every_rig_point_where_the_rig_does() {
        for model in Model::ALL {
            let robot = Robot::new(model);
            // Every joint the model's motions drive away from zero, by a
            // different amount.
            let angles: HashMap<Joint, f64> = prm_names(model)
                .iter()
                .map(|&(j, _)| j)
                .enumerate()
                .map(|(i, j)| (j, 7.0 + 3.0 * i as f64))
                .collect();
            let pose = forward_kinematics(model, &angles, [0.0; 3]);
            let positions = joint_positions(&robot, &pose.angles_deg);
            let origins = link_origins(&robot, &positions);
            for (name, p) in &pose.body {
                let got = origins[*name] * 1000.0;
                let want = DVec3::from_array(*p);
                assert!(
                    (got - want).length() < 1e-9,
                    "{model} {name}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn servo_joints_carry_the_prm_names_and_limits() {
        let robot = Robot::new(Model::Ers7);
        let names: Vec<&str> = robot.moving_joints().map(|j| j.name.as_str()).collect();
        assert_eq!(names.len(), 20);
        assert!(names.contains(&"PRM:/r2/c1-Joint2:21"));
        let tilt = robot
            .joints
            .iter()
            .find(|j| j.servo == Some(Joint::HeadTilt))
            .unwrap();
        // ERS-7 head tilt: -75..0°, 3.185 rad/s (Tekkotsu's ERS7Info.h).
        assert_eq!(
            tilt.kind,
            JointKind::Revolute {
                lower: (-75f64).to_radians(),
                upper: 0.0,
                velocity: 3.185_225_88
            }
        );
        // ERS-310 has no tail servos: its tail links are fixed.
        let latte = Robot::new(Model::Ers310);
        assert_eq!(latte.moving_joints().count(), 15);
    }
}
