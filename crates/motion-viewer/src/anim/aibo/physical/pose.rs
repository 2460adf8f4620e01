//! The dog's attitude: a body roll, pitch, yaw as a quaternion, the tilt
//! from upright, the attitude in which a posture rests on its paws, where
//! it starts on the ground and how far it holds its body off the floor.

use glam::{DQuat, DVec3};

use super::{Geom, Part, PhysicalModel};

/// Height of the lowest shape above the ground at the start, metres.
pub const START_CLEARANCE_M: f64 = 0.001;

/// The starting state of `physical` for servo angles `angles` (radians):
/// the trunk's position and attitude (as MuJoCo's `qpos`: x y z, quaternion
/// w x y z) resting on its paws ([`resting_attitude`]), its lowest shape
/// [`START_CLEARANCE_M`] above the ground. The motion's own body roll and
/// pitch are not used: they are what the file's author drew, and a sit
/// written level would start the dog in the air on its front paws.
pub fn start_pose(physical: &PhysicalModel, angles: &[f64]) -> ([f64; 3], [f64; 4]) {
    let q = resting_attitude(physical, angles);
    let frames = physical.frames(DVec3::ZERO, q, angles);
    let z = START_CLEARANCE_M - physical.lowest_z(&frames);
    ([0.0, 0.0, z], [q.w, q.x, q.y, q.z])
}

/// The centre of each paw ball that the posture of servo `angles` can
/// stand on, for the trunk at the origin, upright: the paws below their own
/// shoulder or hip. A paw raised above it is a lifted leg (a wave, a kick,
/// three legs up), not one the posture means to stand on, though the trunk
/// might tip far enough to rest on it.
fn standing_paws(physical: &PhysicalModel, angles: &[f64]) -> Vec<DVec3> {
    let frames = physical.frames(DVec3::ZERO, DQuat::IDENTITY, angles);
    // The link hanging from the trunk that carries link `i`: the leg's
    // shoulder or hip.
    let root = |mut i: usize| {
        while let Some(p) = physical.links[i].parent.filter(|&p| p != 0) {
            i = p;
        }
        i
    };
    let mut paws = Vec::new();
    for (i, (l, &(o, q))) in physical.links.iter().zip(&frames).enumerate() {
        for c in &l.colliders {
            if let (Part::Paw, Geom::Sphere { centre, .. }) = (c.part, c.geom) {
                let at = o + q * DVec3::from_array(centre);
                if at.z < frames[root(i)].0.z {
                    paws.push(at);
                }
            }
        }
    }
    paws
}

/// How far a paw may sit below the plane of three others and still count
/// as on it, metres.
const ON_PLANE_M: f64 = 1e-4;

/// The attitude in which the posture of servo `angles` (radians) rests on
/// its paws, yaw 0: of the planes through three of the paws it stands on
/// (those below their own shoulder or hip) that leave the fourth on or
/// above them (the faces the posture can stand on), the one nearest level
/// is turned level. A
/// stand rests level; a sit whose hind legs fold under it leans back onto
/// its shortened hind legs; a posture with one leg lifted rests on the other
/// three. A posture with fewer than three paws down (three legs lifted) has
/// no such face: it is taken level, as it would have to be held to stand.
pub fn resting_attitude(physical: &PhysicalModel, angles: &[f64]) -> DQuat {
    let paws = standing_paws(physical, angles);
    let mut best: Option<DVec3> = None;
    let n = paws.len();
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let normal = (paws[j] - paws[i]).cross(paws[k] - paws[i]);
                let Some(mut up) = normal.try_normalize() else {
                    continue;
                };
                if up.z < 0.0 {
                    up = -up;
                }
                // A plane standing on its edge is no floor.
                if up.z < 1e-6 || best.is_some_and(|b| up.z <= b.z) {
                    continue;
                }
                let holds = (0..n)
                    .filter(|&l| l != i && l != j && l != k)
                    .all(|l| (paws[l] - paws[i]).dot(up) >= -ON_PLANE_M);
                if holds {
                    best = Some(up);
                }
            }
        }
    }
    best.map_or(DQuat::IDENTITY, rotation_to_level)
}

/// The rotation that turns a plane's up direction to the world's.
fn rotation_to_level(up: DVec3) -> DQuat {
    DQuat::from_rotation_arc(up, DVec3::Z)
}

/// How far the posture of servo `angles` (radians), resting on its paws
/// ([`resting_attitude`]), holds the trunk and head above the floor its
/// paws stand on, metres: their lowest point above the lowest paw's.
/// Negative when the posture puts the belly or the chin lower than the paws
/// (lying, nosing the floor); a fall is the body on the floor where this
/// says it should be well clear.
pub fn expected_clearance(physical: &PhysicalModel, angles: &[f64]) -> f64 {
    clearance_at(physical, angles, resting_attitude(physical, angles))
}

/// The lowest point of the trunk and head above the lowest paw's, metres,
/// for the trunk at `attitude` and the servos at `angles`.
fn clearance_at(physical: &PhysicalModel, angles: &[f64], attitude: DQuat) -> f64 {
    let frames = physical.frames(DVec3::ZERO, attitude, angles);
    let lowest = |paws: bool| {
        physical
            .links
            .iter()
            .zip(&frames)
            .flat_map(|(l, &(o, q))| {
                l.colliders
                    .iter()
                    .filter(move |c| {
                        if paws {
                            c.part == Part::Paw
                        } else {
                            matches!(c.part, Part::Body | Part::Head)
                        }
                    })
                    .map(move |c| c.geom.lowest_z(o, q))
            })
            .fold(f64::INFINITY, f64::min)
    };
    lowest(false) - lowest(true)
}

/// The body's tilt: the angle between its up axis and the world's, degrees.
#[cfg_attr(not(feature = "physics"), allow(dead_code))] // the simulator's
pub fn tilt_deg(attitude: DQuat) -> f64 {
    let up = attitude * DVec3::Z;
    up.z.clamp(-1.0, 1.0).acos().to_degrees()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::aibo::drive::Drive;
    use crate::anim::aibo::physical::physical_model;
    use crate::formats::aibo::{Joint, Leg, LegJoint, Model};

    fn seed() -> crate::formats::mtn::Mtn {
        crate::formats::mtn::decode(include_bytes!("../../../../../../data/sony_stand_sit.mtn"))
            .unwrap()
    }

    /// The pitch of an attitude, degrees, positive nose up.
    fn pitch_deg(q: DQuat) -> f64 {
        let forward = q * DVec3::X;
        forward.z.asin().to_degrees()
    }

    #[test]
    fn sonys_stand_rests_about_level_and_its_sit_leans_back_as_sony_drew_it() {
        let mtn = seed();
        let physical = physical_model(Model::Ers210);
        let drive = Drive::new(&mtn, &physical);
        let (stand, stand_body) = drive.commanded(0.0);
        let (sit, sit_body) = drive.commanded(drive.duration_s());
        // Sony's file: the stand about level (2°), the sit pitched 32° nose up.
        assert!(stand_body[1].abs() < 3.0, "{stand_body:?}");
        assert!((sit_body[1].abs() - 32.0).abs() < 1.0, "{sit_body:?}");
        let stand_q = resting_attitude(&physical, &stand);
        let sit_q = resting_attitude(&physical, &sit);
        // From the legs alone: the stand within a few degrees of level (the
        // rig's hind paws reach 6.9 mm lower, docs/physics.md §1), the sit
        // nose up by about the file's own 32°.
        assert!(tilt_deg(stand_q) < 5.0, "{}", tilt_deg(stand_q));
        let sit_pitch = pitch_deg(sit_q);
        assert!((sit_pitch - 32.0).abs() < 6.0, "{sit_pitch}");
        // Standing, the belly is well clear of the floor (115 mm); sitting,
        // the rear is within a few centimetres of it (25 mm): under the 60 mm
        // that makes the body on the floor a fall.
        assert!(expected_clearance(&physical, &stand) > 0.1);
        assert!(expected_clearance(&physical, &sit) < 0.04);
    }

    #[test]
    fn a_posture_with_a_leg_lifted_rests_on_the_other_three() {
        let physical = physical_model(Model::Ers7);
        let rig = crate::anim::aibo::rig_model(Model::Ers7);
        let mut angles: Vec<f64> = physical
            .servos()
            .map(|(_, s)| rig.neutral_angle(s.joint).unwrap().to_radians())
            .collect();
        let level = resting_attitude(&physical, &angles);
        assert!(tilt_deg(level) < 2.0, "{}", tilt_deg(level));
        // The left front leg raised forward (J1 up, knee bent): the three
        // others still stand level, so the dog rests as it stood.
        let (i, _) = physical
            .servos()
            .enumerate()
            .find(|(_, (_, s))| s.joint == Joint::Leg(Leg::LeftFront, LegJoint::Rotator))
            .unwrap();
        angles[i] = 60f64.to_radians();
        let lifted = resting_attitude(&physical, &angles);
        assert!(lifted.angle_between(level) < 1e-9);
        // Placed on the ground, its lowest point is the chosen clearance up.
        let (at, _) = start_pose(&physical, &angles);
        let frames = physical.frames(DVec3::from_array(at), lifted, &angles);
        assert!((physical.lowest_z(&frames) - START_CLEARANCE_M).abs() < 1e-12);
    }

    #[test]
    fn a_posture_on_one_leg_has_no_face_to_rest_on_and_is_held_level_and_clear() {
        // The three-legs-up table of tests/cli/simulate_cli.rs: every leg but
        // the right hind one at J1 60°, J2 80°, J3 110°. Three paws are
        // raised above their shoulders and hips: with one paw down it has no
        // face to rest on (tipped 46° it could lean on two lifted paws, with
        // its trunk through the floor), so it is taken level, where its trunk
        // stands well clear of the one paw left down, and the belly on the
        // floor is a fall.
        let physical = physical_model(Model::Ers7);
        let angles: Vec<f64> = physical
            .servos()
            .map(|(_, s)| match s.joint {
                Joint::Leg(leg, j) => {
                    let a = if leg == Leg::RightHind {
                        [-5.0, 3.0, 30.0]
                    } else {
                        [60.0, 80.0, 110.0]
                    };
                    let k = match j {
                        LegJoint::Rotator => 0,
                        LegJoint::Elevator => 1,
                        LegJoint::Knee => 2,
                    };
                    f64::to_radians(a[k])
                }
                _ => 0.0,
            })
            .collect();
        let q = resting_attitude(&physical, &angles);
        assert!(q.angle_between(DQuat::IDENTITY) < 1e-12);
        assert!(expected_clearance(&physical, &angles) > 0.06);
    }
}
