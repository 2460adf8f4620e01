//! An AIBO model as a robot description: links, joints, axes, limits and
//! simple shapes, in the units and frames of ROS (REP 103: metres, radians,
//! x forward, y left, z up). The URDF writer ([`super::urdf`]) and the MCAP
//! writer ([`super::mcap`]) both read it, so the joint names a bag publishes
//! are the URDF's.
//!
//! Everything comes from the rig the window draws ([`crate::anim::aibo`]):
//! the kinematic tree of [`links_at`] gives each servo's origin and, turned by
//! one radian, its axis, so forward kinematics of the description puts every
//! rig point where [`forward_kinematics`](crate::anim::aibo::forward_kinematics)
//! does. The tree's links are named:
//! - `base_link`: the body centre (the body frame of `export --time`);
//! - a servo's link by its short label (`left_front_j1`, `head_tilt`…), its
//!   joint by the model's PRM name, as `info` lists them;
//! - every rig point ([`POINT_NAMES`](crate::anim::aibo::POINT_NAMES)) as a
//!   link of its own, fixed where the rig puts it (`left_front_paw`, `head`…);
//! - the mouth and ears, which move no rig point, hang from `head` with a
//!   small box each (drawing only; their placement is not measured).

use glam::{DQuat, DVec3};

use crate::anim::aibo::{joint_label, links_at, rig_model, servo_axis};
use crate::formats::aibo::{Joint, Model, max_speed_rad_s};
use crate::formats::mtn::prm_names;
use crate::scene::rig::{BONE_RADIUS_M, JOINT_RADIUS_M};

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
    /// Does not move: a rig point, or a servo the model lacks.
    Fixed,
}

/// A simple shape in its link's frame, metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A box: centre, full size along the link's axes.
    Box {
        /// Centre.
        centre: [f64; 3],
        /// Full edge lengths.
        size: [f64; 3],
    },
    /// A cylinder between two points.
    Cylinder {
        /// One end's centre.
        from: [f64; 3],
        /// The other end's centre.
        to: [f64; 3],
        /// Radius.
        radius: f64,
    },
    /// A ball.
    Sphere {
        /// Centre.
        centre: [f64; 3],
        /// Radius.
        radius: f64,
    },
}

/// One link: a frame with shapes.
#[derive(Debug, Clone, PartialEq)]
pub struct RobotLink {
    /// The link's name (`base_link`, `left_front_j1`, `left_front_paw`…).
    pub name: String,
    /// Its shapes (visual and collision alike), in its own frame.
    pub shapes: Vec<Shape>,
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
                    shapes: l.shapes.clone(),
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
}

/// Millimetres (the rig's unit) to metres.
pub(crate) const M_PER_MM: f64 = 1e-3;

fn metres(v: [f64; 3]) -> [f64; 3] {
    v.map(|x| x * M_PER_MM)
}

impl Robot {
    /// The description of `model`.
    pub fn new(model: Model) -> Robot {
        let rig = rig_model(model);
        let prm = prm_names(model);
        // A servo moves when the model's motions drive it (its PRM table)
        // and the rig has it; the rig's other links are fixed (the ERS-220
        // and ERS-310 tails).
        let has = |joint: Joint| {
            rig.neutral_angle(joint).is_some() && prm.iter().any(|(j, _)| *j == joint)
        };
        let name_of = |joint: Joint| {
            prm.iter()
                .find(|(j, _)| *j == joint)
                .map_or_else(|| joint_label(joint), |(_, n)| (*n).to_string())
        };
        let tree = links_at(model, |_| 0.0);
        let mut links = vec![RobotLink {
            name: BASE_LINK.into(),
            shapes: vec![Shape::Box {
                centre: metres(rig.body_box.0),
                size: metres(rig.body_box.1.map(|h| 2.0 * h)),
            }],
        }];
        let mut joints = Vec::new();
        // The URDF link that stands for each rig link's frame.
        let mut frame_link: Vec<String> = Vec::with_capacity(tree.len());
        for (i, link) in tree.iter().enumerate() {
            let parent = link
                .parent
                .map_or_else(|| BASE_LINK.to_string(), |p| frame_link[p].clone());
            let origin = metres(link.offset);
            let mut shapes = vec![];
            // Bones: from this frame's origin to each child's.
            for child in tree.iter().filter(|c| c.parent == Some(i)) {
                if DVec3::from_array(child.offset).length() > 0.0 {
                    shapes.push(Shape::Cylinder {
                        from: [0.0; 3],
                        to: metres(child.offset),
                        radius: f64::from(BONE_RADIUS_M),
                    });
                }
            }
            let name = match (link.joint, link.point) {
                (Some(joint), _) => joint_label(joint),
                (None, Some(point)) => point.to_string(),
                (None, None) => format!("link_{i}"),
            };
            let (kind, axis, joint_name) = match link.joint {
                Some(joint) if has(joint) => {
                    (kind_of(model, joint), axis_of(model, joint), name_of(joint))
                }
                _ => (JointKind::Fixed, [1.0, 0.0, 0.0], format!("{name}_fixed")),
            };
            joints.push(RobotJoint {
                name: joint_name,
                servo: link.joint.filter(|&j| has(j)),
                kind,
                parent,
                child: name.clone(),
                origin,
                axis,
            });
            // A servo between two others at the same place (J2, the head's
            // second servo) would have no shape: a ball gives it one, as the
            // window draws a ball at every joint, and gives simulators that
            // weigh links by their geometry (MuJoCo) a mass to move.
            if link.joint.is_some() && link.point.is_none() && shapes.is_empty() {
                shapes.push(ball());
            }
            if link.point == Some("head") {
                shapes.push(Shape::Box {
                    centre: metres(rig.head_box.0),
                    size: metres(rig.head_box.1.map(|h| 2.0 * h)),
                });
            }
            links.push(RobotLink {
                name: name.clone(),
                shapes,
            });
            // A servo's link that carries a rig point gets the point as a
            // fixed child link, so every point is a frame named as the rig names it.
            match (link.joint, link.point) {
                (Some(_), Some(point)) => {
                    links.push(RobotLink {
                        name: point.to_string(),
                        shapes: vec![ball()],
                    });
                    joints.push(fixed(&name, point, [0.0; 3]));
                }
                (None, Some(_)) => links.last_mut().expect("just pushed").shapes.push(ball()),
                _ => {}
            }
            frame_link.push(name);
        }
        head_extras(model, &mut links, &mut joints, &name_of);
        Robot {
            model,
            name: format!(
                "aibo_{}",
                model.name().replace('-', "").to_ascii_lowercase()
            ),
            links,
            joints,
        }
    }

    /// The joints that move, in order: the names a `JointState` carries.
    pub fn moving_joints(&self) -> impl Iterator<Item = &RobotJoint> {
        self.joints.iter().filter(|j| j.moves())
    }
}

/// A joint ball at a link's origin, as the window draws at every rig point.
fn ball() -> Shape {
    Shape::Sphere {
        centre: [0.0; 3],
        radius: f64::from(JOINT_RADIUS_M),
    }
}

fn fixed(parent: &str, child: &str, origin: [f64; 3]) -> RobotJoint {
    RobotJoint {
        name: format!("{child}_fixed"),
        servo: None,
        kind: JointKind::Fixed,
        parent: parent.into(),
        child: child.into(),
        origin,
        axis: [1.0, 0.0, 0.0],
    }
}

/// Revolute with the model's limit and servo speed, or continuous without a limit.
fn kind_of(model: Model, joint: Joint) -> JointKind {
    let rig = rig_model(model);
    match (rig.limit(joint), max_speed_rad_s(model, joint)) {
        (Some(limit), Some(velocity)) => JointKind::Revolute {
            lower: limit.min_deg.to_radians(),
            upper: limit.max_deg.to_radians(),
            velocity,
        },
        _ => JointKind::Continuous,
    }
}

/// The axis of `joint`'s servo, from the rig ([`servo_axis`]).
fn axis_of(model: Model, joint: Joint) -> [f64; 3] {
    servo_axis(model, joint).expect("a rig link carries the servo")
}

/// The mouth and ears on the head, for the models that have them: servos
/// that move no rig point, drawn as small boxes.
fn head_extras(
    model: Model,
    links: &mut Vec<RobotLink>,
    joints: &mut Vec<RobotJoint>,
    name_of: &dyn Fn(Joint) -> String,
) {
    let rig = rig_model(model);
    let (centre, half) = (rig.head_box.0, rig.head_box.1);
    let prm = prm_names(model);
    for (joint, origin, axis, shape) in [
        // Mouth: more negative opens it, the jaw tip going down.
        (
            Joint::Mouth,
            [centre[0] + 0.5 * half[0], 0.0, centre[2] - half[2]],
            [0.0, -1.0, 0.0],
            [0.5 * half[0], 0.0, -5.0],
        ),
        (
            Joint::LeftEar,
            [centre[0], centre[1] + 0.6 * half[1], centre[2] + half[2]],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 10.0],
        ),
        (
            Joint::RightEar,
            [centre[0], centre[1] - 0.6 * half[1], centre[2] + half[2]],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 10.0],
        ),
    ] {
        if !prm.iter().any(|(j, _)| *j == joint) {
            continue;
        }
        let name = joint_label(joint);
        links.push(RobotLink {
            name: name.clone(),
            shapes: vec![Shape::Box {
                centre: metres(shape),
                size: metres([half[0].max(20.0), 10.0, 10.0].map(|s| s.min(40.0))),
            }],
        });
        joints.push(RobotJoint {
            name: name_of(joint),
            servo: Some(joint),
            kind: kind_of(model, joint),
            parent: "head".into(),
            child: name,
            origin: metres(origin),
            axis,
        });
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
                let got = origins[*name] / M_PER_MM;
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
