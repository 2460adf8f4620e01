//! The one robot description of each AIBO model: the rig's servo links
//! as rigid bodies with masses, inertias, collision and visual shapes, its
//! servos (PRM names, limits, speeds, torque) as position actuators, and
//! the ground. The simulator (`physics`, feature `physics`), the MJCF, the
//! URDF (`export::robot`), MCAP's robot description and USD all read it, so
//! every engine and tool is given the same robot.
//!
//! Every number is in `docs/physics.md` with its source or the assumption
//! behind it. Units are SI (metres, kilograms, radians, newton-metres); the
//! frames are the rig's ([`super`]): x forward, y left, z up, each link's
//! frame at its servo's axis, parallel to its parent's at zero angles.
//!
//! Every servo the model's motions drive is a link: legs, head, and the
//! tail, mouth and ears where the model has them ([`physical_model`]). The
//! simulator drives the legs and head only: [`PhysicalModel::simulated`]
//! folds the others, a few grams each, into their parent at zero angle.

use glam::{DQuat, DVec3};

use crate::formats::aibo::{Joint, Model};

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

mod build;
mod geom;
mod mass;
mod pose;

pub use build::physical_model;
pub(crate) use build::{BONE_RADIUS_M, JOINT_RADIUS_M};
pub use geom::{Collider, Geom, Part};
#[cfg(test)]
use mass::total_mass_kg;
#[cfg_attr(not(feature = "physics"), allow(unused_imports))] // the simulator's
pub use pose::tilt_deg;
pub use pose::{expected_clearance, start_pose};

/// A servo.
#[derive(Debug, Clone, PartialEq)]
pub struct PhysServo {
    /// Its role.
    pub joint: Joint,
    /// The model's canonical PRM name for the role (`formats::mtn::prm_names`).
    pub name: &'static str,
    /// The unit axis a positive angle turns about, parent link's frame.
    pub axis: [f64; 3],
    /// Lowest and highest angle, radians (the rig's limits); `None` where
    /// none is published (the ears, binary switches).
    pub range: Option<(f64, f64)>,
    /// Rated speed, rad/s; `None` where none is published (the ears).
    pub max_speed: Option<f64>,
    /// True when the simulator drives it ([`build::simulated`]).
    pub simulated: bool,
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
    /// Visual shapes, as the window draws the rig: bones, joint balls,
    /// the body's and head's boxes, the mouth's and ears'.
    pub visuals: Vec<Geom>,
    /// Named points carried by the link (rig point names), link frame, metres.
    pub points: Vec<(&'static str, [f64; 3])>,
}

/// One AIBO as rigid bodies, servos and ground: the robot description.
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
    /// The robot's name (`aibo_ers7`), as the URDF and MJCF give it.
    pub fn name(&self) -> String {
        format!(
            "aibo_{}",
            self.model.name().replace('-', "").to_ascii_lowercase()
        )
    }

    /// The whole dog's mass, kg.
    pub fn total_mass(&self) -> f64 {
        self.links.iter().map(|l| l.mass).sum()
    }

    /// The servos in link order, with their link's index.
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

    /// The robot the simulator drives: the trunk and the simulated servos'
    /// links ([`build::simulated`]). Every other link (tail, mouth, ears) rides on
    /// its nearest simulated ancestor at zero angle: its mass, points and
    /// shapes move there, and the carrier's centre of mass and inertia are
    /// those of its total mass by the description's one rule.
    #[cfg_attr(not(feature = "physics"), allow(dead_code))] // the simulator's
    pub fn simulated(&self) -> PhysicalModel {
        let mut links: Vec<PhysLink> = Vec::with_capacity(self.links.len());
        // Per description link: the simulated link that carries it, and
        // where its frame is in that link's (frames are parallel at zero).
        let mut carrier: Vec<(usize, DVec3)> = Vec::with_capacity(self.links.len());
        let mut folded = vec![false; self.links.len()];
        for link in &self.links {
            let keeps = link.servo.as_ref().is_none_or(|s| s.simulated);
            let parent = link.parent.map(|p| carrier[p]);
            if keeps {
                links.push(PhysLink {
                    parent: parent.map(|(p, _)| p),
                    origin: parent.map_or(link.origin, |(_, at)| {
                        (at + DVec3::from_array(link.origin)).to_array()
                    }),
                    ..link.clone()
                });
                carrier.push((links.len() - 1, DVec3::ZERO));
                continue;
            }
            let (host, parent_at) = parent.unwrap_or((0, DVec3::ZERO));
            let at = parent_at + DVec3::from_array(link.origin);
            let moved = |p: [f64; 3]| (at + DVec3::from_array(p)).to_array();
            let h = &mut links[host];
            h.mass += link.mass;
            h.points
                .extend(link.points.iter().map(|&(n, p)| (n, moved(p))));
            h.visuals.extend(link.visuals.iter().map(|g| g.moved(at)));
            h.colliders.extend(link.colliders.iter().map(|c| Collider {
                geom: c.geom.moved(at),
                part: c.part,
            }));
            folded[host] = true;
            carrier.push((host, at));
        }
        for (link, _) in links.iter_mut().zip(&folded).filter(|(_, f)| **f) {
            (link.com, link.inertia) = build::mass_properties(link);
        }
        PhysicalModel {
            links,
            ..self.clone()
        }
    }
}

/// The description the simulator drives: [`physical_model`]'s
/// [`PhysicalModel::simulated`].
#[cfg_attr(not(feature = "physics"), allow(dead_code))] // the simulator's
pub fn simulated_model(model: Model) -> PhysicalModel {
    physical_model(model).simulated()
}

/// Millimetres (the rig's unit) to metres: the one conversion every
/// reader of the description gets its metres from.
pub(crate) fn metres(v: [f64; 3]) -> [f64; 3] {
    v.map(|x| x * M_PER_MM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::aibo::{forward_kinematics, rig_model};

    #[test]
    fn every_driven_servo_is_a_link_and_the_simulator_carries_the_small_ones() {
        // Sony's full-body motions' servo counts (docs/formats.md §1).
        for (model, all) in [
            (Model::Ers110, 18),
            (Model::Ers210, 20),
            (Model::Ers220, 15),
            (Model::Ers310, 15),
            (Model::Ers7, 20),
        ] {
            let full = physical_model(model);
            assert_eq!(full.servos().count(), all, "{model}");
            let sim = full.simulated();
            // The legs' 12 and the head's 3.
            assert_eq!(sim.servos().count(), 15, "{model}");
            assert!(sim.servos().all(|(_, s)| s.simulated), "{model}");
            assert!((sim.total_mass() - full.total_mass()).abs() < 1e-12);
        }
        // Webots' ERS-7: body 0.613 + tail 0.001 + 0.005; head 0.19 + ears
        // 2 × 0.005 (the jaw's assumed 0.010 is within the 0.19).
        let sim = physical_model(Model::Ers7).simulated();
        assert!((sim.links[0].mass - 0.619).abs() < 1e-12);
        let head = sim
            .links
            .iter()
            .find(|l| l.points.iter().any(|(n, _)| *n == "head"));
        assert!((head.unwrap().mass - 0.200).abs() < 1e-12);
        let names: Vec<&str> = physical_model(Model::Ers7)
            .servos()
            .map(|(_, s)| s.name)
            .collect();
        for tail_mouth_ears in [
            "PRM:/r6/c1-Joint2:61",
            "PRM:/r6/c2-Joint2:62",
            "PRM:/r1/c1/c2/c3/c4-Joint2:14",
            "PRM:/r1/c1/c2/c3/e5-Joint4:15",
            "PRM:/r1/c1/c2/c3/e6-Joint4:16",
        ] {
            assert!(names.contains(&tail_mouth_ears), "{names:?}");
        }
    }

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
            // A tail the model cannot move rides on the trunk at zero angle.
            let mut rig_angles: crate::anim::aibo::JointAngles = p
                .servos()
                .zip(&angles)
                .map(|((_, s), a)| (s.joint, a.to_degrees()))
                .collect();
            rig_angles.entry(Joint::TailTilt).or_insert(0.0);
            rig_angles.entry(Joint::TailPan).or_insert(0.0);
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
