//! The physical model of each AIBO: the rig's servo links as rigid bodies
//! with masses, inertias and collision shapes, its servos as position
//! actuators, and the ground. One description serves the simulator
//! (`physics`, feature `physics`) and the MJCF export, so the two engines
//! are given the same robot.
//!
//! Every number is in `docs/physics.md` with its source or the assumption
//! behind it. Units are SI (metres, kilograms, radians, newton-metres); the
//! frames are the rig's ([`super`]): x forward, y left, z up, each link's
//! frame at its servo's axis, parallel to its parent's at zero angles.
//!
//! What moves: the twelve leg servos and the head's three. The tail, mouth
//! and ears weigh a few grams and are not simulated: their mass is carried
//! by the body or the head, fixed at zero angle.

use glam::{DQuat, DVec3};

use super::{joint_label, links_at, rig_model, servo_axis};
use crate::formats::aibo::{Joint, LegJoint, Model, max_speed_rad_s};
use crate::formats::mtn::prm_names;
use geom::solid;

/// Millimetres (the rig's unit) to metres.
const M_PER_MM: f64 = 1e-3;

/// Standard gravity, m/s².
pub(crate) const GRAVITY_M_S2: f64 = 9.806_65;

/// Coulomb friction between every part and the ground (both engines): the
/// figure the reference model used, a rubber paw on a wooden floor;
/// an assumption (docs/physics.md).
pub(crate) const FRICTION: f64 = 0.8;

/// The paw's ball: Tekkotsu's ERS-7 model gives the ball of the foot a
/// 26 mm diameter; the other models are assumed to have the same.
pub(crate) const PAW_RADIUS_M: f64 = 0.013;

/// The servos as position actuators: torque = kp·(target − angle) − kd·speed,
/// clamped to ±`torque_limit_nm`; the target moves toward the commanded angle
/// no faster than the servo's rated speed ([`max_speed_rad_s`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServoGains {
    /// Stiffness, N·m/rad.
    pub kp: f64,
    /// Damping, N·m·s/rad.
    pub kd: f64,
    /// The most torque a servo gives, N·m.
    pub torque_limit_nm: f64,
}

/// Every servo's gains (docs/physics.md): the torque limit is Webots' ERS-7
/// `maxTorque` (5.4542 N·m); the stiffness and damping are assumptions that
/// hold a standing dog within about a degree of its pose.
pub(crate) const SERVO: ServoGains = ServoGains {
    kp: 10.0,
    kd: 0.2,
    torque_limit_nm: 5.4542,
};

/// The simulator's fixed step, seconds: 2 ms (MuJoCo's default), one
/// rapier substep each. Against 1 ms with two substeps it runs about four
/// times as fast and keeps every corpus verdict (docs/physics.md §4).
pub const STEP_S: f64 = 0.002;

/// The step the MJCF export asks MuJoCo for, seconds: 1 ms. MuJoCo's soft
/// contacts drift with the step (an ERS-7 walk's body ends its first second
/// 34 mm from MuJoCo's own 1 ms run at 2 ms, where rapier's moves 3 mm), so
/// the reference engine keeps the finer one.
pub(crate) const MUJOCO_STEP_S: f64 = 0.001;

mod geom;
mod mass;
mod pose;

pub use geom::{Collider, Geom, Part};
pub use mass::masses;
#[cfg(test)]
use mass::total_mass_kg;
#[cfg_attr(not(feature = "physics"), allow(unused_imports))] // the simulator's
pub use pose::tilt_deg;
pub use pose::{expected_clearance, start_pose};

/// A simulated servo.
#[derive(Debug, Clone, PartialEq)]
pub struct PhysServo {
    /// Its role.
    pub joint: Joint,
    /// The model's canonical PRM name for the role (`formats::mtn::prm_names`).
    pub name: &'static str,
    /// The unit axis a positive angle turns about, parent link's frame.
    pub axis: [f64; 3],
    /// Lowest angle, radians.
    pub lower: f64,
    /// Highest angle, radians.
    pub upper: f64,
    /// Rated speed, rad/s.
    pub max_speed: f64,
}

/// One rigid body: the trunk, or a servo's link.
#[derive(Debug, Clone, PartialEq)]
pub struct PhysLink {
    /// `body`, or the servo's short label (`left_front_j1`, `head_tilt`…).
    pub name: String,
    /// The parent link's index; `None` for the trunk.
    pub parent: Option<usize>,
    /// The servo that turns this link; `None` for the trunk.
    pub servo: Option<PhysServo>,
    /// The link's origin in its parent's frame at zero angles, metres.
    pub origin: [f64; 3],
    /// Mass, kg.
    pub mass: f64,
    /// Centre of mass, link frame, metres.
    pub com: [f64; 3],
    /// Principal moments of inertia about the centre of mass along the
    /// link's axes, kg·m².
    pub inertia: [f64; 3],
    /// Collision shapes.
    pub colliders: Vec<Collider>,
    /// Named points carried by the link (rig point names), link frame, metres.
    pub points: Vec<(&'static str, [f64; 3])>,
}

/// One AIBO as rigid bodies, servos and ground.
#[derive(Debug, Clone, PartialEq)]
pub struct PhysicalModel {
    /// The model.
    pub model: Model,
    /// The trunk first, each link after its parent.
    pub links: Vec<PhysLink>,
    /// The servos' gains.
    pub servo: ServoGains,
    /// Ground friction.
    pub friction: f64,
}

impl PhysicalModel {
    /// The whole dog's mass, kg.
    pub fn total_mass(&self) -> f64 {
        self.links.iter().map(|l| l.mass).sum()
    }

    /// The simulated servos in link order, with their link's index.
    pub fn servos(&self) -> impl Iterator<Item = (usize, &PhysServo)> {
        self.links
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.servo.as_ref().map(|s| (i, s)))
    }

    /// Each link's origin and axes in the world for the trunk at
    /// (`position`, `attitude`) and the servos at `angles` (radians, in
    /// [`Self::servos`] order; missing ones at 0).
    pub fn frames(&self, position: DVec3, attitude: DQuat, angles: &[f64]) -> Vec<(DVec3, DQuat)> {
        let mut frames: Vec<(DVec3, DQuat)> = Vec::with_capacity(self.links.len());
        let mut servo = 0;
        for link in &self.links {
            let frame = match (link.parent, &link.servo) {
                (Some(p), Some(s)) => {
                    let q = angles.get(servo).copied().unwrap_or(0.0);
                    servo += 1;
                    let (po, pq) = frames[p];
                    let turn = DQuat::from_axis_angle(DVec3::from_array(s.axis), q);
                    (po + pq * DVec3::from_array(link.origin), pq * turn)
                }
                _ => (position, attitude),
            };
            frames.push(frame);
        }
        frames
    }

    /// The lowest point of every collision shape, metres, for the pose of
    /// [`Self::frames`].
    pub(crate) fn lowest_z(&self, frames: &[(DVec3, DQuat)]) -> f64 {
        self.links
            .iter()
            .zip(frames)
            .flat_map(|(l, &(o, q))| l.colliders.iter().map(move |c| c.geom.lowest_z(o, q)))
            .fold(f64::INFINITY, f64::min)
    }
}

/// Radii of the bone capsules, metres (assumptions: about the width of the
/// real legs and neck in photos).
const UPPER_LEG_RADIUS_M: f64 = 0.012;
const LOWER_LEG_RADIUS_M: f64 = 0.010;
const NECK_RADIUS_M: f64 = 0.012;
/// A servo housing with no bone of its own (a shoulder, the head's middle
/// servo), for its inertia only.
const HOUSING_RADIUS_M: f64 = 0.015;

/// True for the servos the simulator drives.
pub fn simulated(joint: Joint) -> bool {
    matches!(
        joint,
        Joint::Leg(..) | Joint::HeadTilt | Joint::HeadPan | Joint::HeadRoll
    )
}

/// The physical model of `model`.
pub fn physical_model(model: Model) -> PhysicalModel {
    let rig = rig_model(model);
    let prm = prm_names(model);
    let mass = masses(model);
    let tree = links_at(model, |_| 0.0);
    let moves = |joint: Joint| {
        simulated(joint)
            && rig.neutral_angle(joint).is_some()
            && prm.iter().any(|(j, _)| *j == joint)
    };
    let mut links = vec![PhysLink {
        name: "body".into(),
        parent: None,
        servo: None,
        origin: [0.0; 3],
        mass: mass.body,
        com: [0.0; 3],
        inertia: [0.0; 3],
        colliders: vec![Collider {
            geom: Geom::Box {
                centre: metres(rig.body_box.0),
                half: metres(rig.body_box.1),
            },
            part: Part::Body,
        }],
        points: Vec::new(),
    }];
    // For each rig link: the physical link that carries it and where it is
    // in that link's frame (frames are parallel at zero angles, so offsets add).
    let mut owner: Vec<(usize, DVec3)> = Vec::with_capacity(tree.len());
    for link in &tree {
        let (parent_owner, parent_at) = link.parent.map_or((0, DVec3::ZERO), |p| owner[p]);
        let at = parent_at + DVec3::from_array(link.offset) * M_PER_MM;
        match link.joint.filter(|&j| moves(j)) {
            Some(joint) => {
                let name = prm
                    .iter()
                    .find(|(j, _)| *j == joint)
                    .map(|(_, n)| *n)
                    .expect("moves() checked the PRM table");
                let limit = rig.limit(joint).expect("every simulated servo has a limit");
                links.push(PhysLink {
                    name: joint_label(joint),
                    parent: Some(parent_owner),
                    servo: Some(PhysServo {
                        joint,
                        name,
                        axis: servo_axis(model, joint).expect("the rig has the servo"),
                        lower: limit.min_deg.to_radians(),
                        upper: limit.max_deg.to_radians(),
                        max_speed: max_speed_rad_s(model, joint).expect("a servo with a speed"),
                    }),
                    origin: at.to_array(),
                    mass: 0.0,
                    com: [0.0; 3],
                    inertia: [0.0; 3],
                    colliders: Vec::new(),
                    points: link.point.map(|p| vec![(p, [0.0; 3])]).unwrap_or_default(),
                });
                owner.push((links.len() - 1, DVec3::ZERO));
            }
            None => {
                if let Some(point) = link.point {
                    links[parent_owner].points.push((point, at.to_array()));
                }
                owner.push((parent_owner, at));
            }
        }
    }
    // Shapes and masses by role, from the points each link carries and its
    // children's origins.
    let child_origins = |i: usize, links: &[PhysLink]| -> Vec<[f64; 3]> {
        links
            .iter()
            .filter(|l| l.parent == Some(i))
            .map(|l| l.origin)
            .collect()
    };
    for i in 1..links.len() {
        let joint = links[i].servo.as_ref().expect("not the trunk").joint;
        let children = child_origins(i, &links);
        let point = |name: &str| {
            links[i]
                .points
                .iter()
                .find(|(n, _)| n.ends_with(name))
                .map(|&(_, p)| p)
        };
        let (m, colliders) = match joint {
            Joint::Leg(_, LegJoint::Rotator) => (mass.shoulder, Vec::new()),
            Joint::Leg(_, LegJoint::Elevator) => {
                let knee = children.first().copied().unwrap_or([0.0; 3]);
                (
                    mass.upper_leg,
                    vec![capsule([0.0; 3], knee, UPPER_LEG_RADIUS_M, Part::Leg)],
                )
            }
            Joint::Leg(_, LegJoint::Knee) => {
                let paw = point("paw").unwrap_or([0.0; 3]);
                // The shin ends where it meets the paw's ball, so that only
                // the ball touches the ground under a standing leg.
                let paw_v = DVec3::from_array(paw);
                let shin_end = paw_v - paw_v.normalize_or_zero() * PAW_RADIUS_M;
                (
                    mass.lower_leg,
                    vec![
                        capsule([0.0; 3], shin_end.to_array(), LOWER_LEG_RADIUS_M, Part::Leg),
                        Collider {
                            geom: Geom::Sphere {
                                centre: paw,
                                radius: PAW_RADIUS_M,
                            },
                            part: Part::Paw,
                        },
                    ],
                )
            }
            Joint::HeadTilt => {
                let up = children.first().copied().unwrap_or([0.0; 3]);
                (
                    mass.neck,
                    vec![capsule([0.0; 3], up, NECK_RADIUS_M, Part::Head)],
                )
            }
            _ if point("head").is_some() => {
                let head = point("head").expect("checked");
                let (c, h) = rig.head_box;
                let centre = (DVec3::from_array(head) + DVec3::from_array(metres(c))).to_array();
                (
                    mass.head,
                    vec![Collider {
                        geom: Geom::Box {
                            centre,
                            half: metres(h),
                        },
                        part: Part::Head,
                    }],
                )
            }
            _ => (mass.head_mid, Vec::new()),
        };
        let (com, inertia) = match colliders.iter().find(|c| c.part != Part::Paw) {
            Some(c) => solid(&c.geom, m),
            None => solid(
                &Geom::Sphere {
                    centre: [0.0; 3],
                    radius: HOUSING_RADIUS_M,
                },
                m,
            ),
        };
        let link = &mut links[i];
        link.mass = m;
        link.com = com;
        link.inertia = inertia;
        link.colliders = colliders;
    }
    let (com, inertia) = solid(&links[0].colliders[0].geom, mass.body);
    links[0].com = com;
    links[0].inertia = inertia;
    PhysicalModel {
        model,
        links,
        servo: SERVO,
        friction: FRICTION,
    }
}

fn metres(v: [f64; 3]) -> [f64; 3] {
    v.map(|x| x * M_PER_MM)
}

fn capsule(from: [f64; 3], to: [f64; 3], radius: f64, part: Part) -> Collider {
    Collider {
        geom: Geom::Capsule { from, to, radius },
        part,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::aibo::forward_kinematics;

    #[test]
    fn the_parts_sum_to_the_published_weight() {
        for model in Model::ALL {
            let p = physical_model(model);
            let total = p.total_mass();
            assert!(
                (total - total_mass_kg(model)).abs() < 1e-9,
                "{model}: {total}"
            );
            // 1 trunk + 12 leg links + the head's servos.
            let servos = p.servos().count();
            assert_eq!(p.links.len(), 1 + servos, "{model}");
            assert!(servos >= 15, "{model}: {servos}");
        }
        // Webots' ERS-7 parts: 1.628 kg; Sony's figure is about 1.65 kg.
        assert!((total_mass_kg(Model::Ers7) - 1.628).abs() < 1e-9);
    }

    #[test]
    fn the_links_put_every_paw_where_the_rig_does() {
        for model in Model::ALL {
            let p = physical_model(model);
            let angles: Vec<f64> = p
                .servos()
                .enumerate()
                .map(|(i, _)| (5.0 + 2.0 * i as f64).to_radians())
                .collect();
            // The tail is not simulated: it rides on the trunk at zero angle.
            let mut rig_angles: crate::anim::aibo::JointAngles = p
                .servos()
                .zip(&angles)
                .map(|((_, s), a)| (s.joint, a.to_degrees()))
                .collect();
            rig_angles.insert(Joint::TailTilt, 0.0);
            rig_angles.insert(Joint::TailPan, 0.0);
            let pose = forward_kinematics(model, &rig_angles, [0.0; 3]);
            let frames = p.frames(DVec3::ZERO, DQuat::IDENTITY, &angles);
            for (link, &(o, q)) in p.links.iter().zip(&frames) {
                for (name, at) in &link.points {
                    let got = (o + q * DVec3::from_array(*at)) / M_PER_MM;
                    let want = DVec3::from_array(pose.body_point(name).unwrap());
                    assert!(
                        (got - want).length() < 1e-9,
                        "{model} {name}: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_paw_has_a_ball_and_the_paws_are_the_lowest_at_the_neutral_stance() {
        for model in Model::ALL {
            let p = physical_model(model);
            let paws = p
                .links
                .iter()
                .flat_map(|l| &l.colliders)
                .filter(|c| c.part == Part::Paw)
                .count();
            assert_eq!(paws, 4, "{model}");
            let rig = rig_model(model);
            let angles: Vec<f64> = p
                .servos()
                .map(|(_, s)| rig.neutral_angle(s.joint).unwrap().to_radians())
                .collect();
            let frames = p.frames(DVec3::ZERO, DQuat::IDENTITY, &angles);
            let lowest = p.lowest_z(&frames);
            for (link, &(o, q)) in p.links.iter().zip(&frames) {
                for c in &link.colliders {
                    let z = c.geom.lowest_z(o, q);
                    if c.part == Part::Paw {
                        assert!(z - lowest < 0.02, "{model} {}: {z} vs {lowest}", link.name);
                    } else {
                        assert!(z > lowest + 0.005, "{model} {}: {z} vs {lowest}", link.name);
                    }
                }
            }
        }
    }
}
