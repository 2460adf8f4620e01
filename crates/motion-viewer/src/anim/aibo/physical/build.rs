//! The walk that turns the rig's kinematic tree ([`links_at`]) into the
//! robot description: which servos move, their PRM names, limits and
//! speeds, and each link's shapes and mass by its role. The one place these
//! rules live; every reader (simulator, MJCF, URDF, MCAP, USD) takes the
//! result.

use glam::DVec3;

use super::geom::{Collider, Geom, Part, solid};
use super::mass::{MassBudget, masses};
use super::{FRICTION, PAW_RADIUS_M, PhysLink, PhysServo, PhysicalModel, SERVO, metres};
use crate::anim::aibo::{RigModel, joint_label, links_at, rig_model, servo_axis};
use crate::formats::aibo::{Joint, LegJoint, Model, max_speed_rad_s};
use crate::formats::mtn::prm_names;

/// Radii of the bone capsules, metres (assumptions: about the width of the
/// real legs and neck in photos).
const UPPER_LEG_RADIUS_M: f64 = 0.012;
const LOWER_LEG_RADIUS_M: f64 = 0.010;
const NECK_RADIUS_M: f64 = 0.012;
/// A servo housing with no bone of its own (a shoulder, the head's middle
/// servo, the tail, mouth and ears), for its inertia only.
const HOUSING_RADIUS_M: f64 = 0.015;

/// The drawn bones' and joint balls' radii, metres: the window's rig
/// (`scene::rig` draws with these; visual shapes only, no physical size).
pub(crate) const BONE_RADIUS_M: f64 = 0.006;
/// See [`BONE_RADIUS_M`].
pub(crate) const JOINT_RADIUS_M: f64 = 0.009;

/// True for the servos the simulator drives: the legs and the head. The
/// tail, mouth and ears weigh a few grams; the simulator carries them fixed
/// at zero on their parent ([`PhysicalModel::simulated`]).
pub fn simulated(joint: Joint) -> bool {
    matches!(
        joint,
        Joint::Leg(..) | Joint::HeadTilt | Joint::HeadPan | Joint::HeadRoll
    )
}

/// The servo of `joint` when `model` has one: the model's motions drive it
/// (its PRM table names it) and the rig has a stance for it. The rig's other
/// links (the ERS-220 and ERS-310 tails) are fixed to their parent.
fn servo(model: Model, rig: &RigModel, joint: Joint) -> Option<PhysServo> {
    rig.neutral_angle(joint)?;
    let (_, name) = prm_names(model).iter().find(|(j, _)| *j == joint)?;
    let axis = servo_axis(model, joint).or_else(|| head_extra(rig, joint).map(|e| e.axis))?;
    Some(PhysServo {
        joint,
        name,
        axis,
        range: rig
            .limit(joint)
            .map(|l| (l.min_deg.to_radians(), l.max_deg.to_radians())),
        max_speed: max_speed_rad_s(model, joint),
        simulated: simulated(joint),
    })
}

/// A servo on the head that moves no rig point: where its axis is relative
/// to the head point (mm), the axis, and the box drawn for it (centre mm,
/// half extents mm). The placement is not measured: drawing only.
struct HeadExtra {
    origin: [f64; 3],
    axis: [f64; 3],
    centre: [f64; 3],
    half: [f64; 3],
}

fn head_extra(rig: &RigModel, joint: Joint) -> Option<HeadExtra> {
    let (c, h) = rig.head_box;
    let half = [h[0].clamp(20.0, 40.0) / 2.0, 5.0, 5.0];
    let ear = |side: f64| HeadExtra {
        origin: [c[0], c[1] + side * 0.6 * h[1], c[2] + h[2]],
        axis: [1.0, 0.0, 0.0],
        centre: [0.0, 0.0, 10.0],
        half,
    };
    match joint {
        // More negative opens the mouth, the jaw tip going down.
        Joint::Mouth => Some(HeadExtra {
            origin: [c[0] + 0.5 * h[0], 0.0, c[2] - h[2]],
            axis: [0.0, -1.0, 0.0],
            centre: [0.5 * h[0], 0.0, -5.0],
            half,
        }),
        Joint::LeftEar => Some(ear(1.0)),
        Joint::RightEar => Some(ear(-1.0)),
        _ => None,
    }
}

/// The mass of the part a servo turns (docs/physics.md §2).
fn role_mass(mass: &MassBudget, joint: Joint, carries_head: bool) -> f64 {
    match joint {
        Joint::Leg(_, LegJoint::Rotator) => mass.shoulder,
        Joint::Leg(_, LegJoint::Elevator) => mass.upper_leg,
        Joint::Leg(_, LegJoint::Knee) => mass.lower_leg,
        Joint::HeadTilt => mass.neck,
        Joint::TailPan => mass.tail_pan,
        Joint::TailTilt => mass.tail_tilt,
        Joint::Mouth => mass.mouth,
        Joint::LeftEar | Joint::RightEar => mass.ear,
        Joint::HeadPan | Joint::HeadRoll if carries_head => mass.head,
        Joint::HeadPan | Joint::HeadRoll => mass.head_mid,
    }
}

/// The robot description of `model`.
pub fn physical_model(model: Model) -> PhysicalModel {
    let rig = rig_model(model);
    let mass = masses(model);
    let tree = links_at(model, |_| 0.0);
    let body_box = Geom::Box {
        centre: metres(rig.body_box.0),
        half: metres(rig.body_box.1),
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
            geom: body_box,
            part: Part::Body,
        }],
        visuals: vec![body_box],
        points: Vec::new(),
    }];
    // For each rig link: the description's link that carries it and where
    // it is in that link's frame (frames are parallel at zero angles, so
    // offsets add). A fixed rig link's part rides on its carrier.
    let mut owner: Vec<(usize, DVec3)> = Vec::with_capacity(tree.len());
    // Per link: the mass of the parts it carries besides its own.
    let mut carried = vec![0.0; 1];
    for link in &tree {
        let (parent_owner, parent_at) = link.parent.map_or((0, DVec3::ZERO), |p| owner[p]);
        let at = parent_at + DVec3::from_array(metres(link.offset));
        // The bone from the parent's frame to this one rides on the parent.
        if link.parent.is_some() && at != parent_at {
            links[parent_owner]
                .visuals
                .push(capsule(parent_at, at, BONE_RADIUS_M));
        }
        match link.joint.and_then(|j| servo(model, rig, j)) {
            Some(s) => {
                carried.push(0.0);
                links.push(PhysLink {
                    name: joint_label(s.joint),
                    parent: Some(parent_owner),
                    servo: Some(s),
                    origin: at.to_array(),
                    mass: 0.0,
                    com: [0.0; 3],
                    inertia: [0.0; 3],
                    colliders: Vec::new(),
                    visuals: vec![ball(DVec3::ZERO, JOINT_RADIUS_M)],
                    points: link.point.map(|p| vec![(p, [0.0; 3])]).unwrap_or_default(),
                });
                owner.push((links.len() - 1, DVec3::ZERO));
            }
            None => {
                let host = &mut links[parent_owner];
                if let Some(joint) = link.joint {
                    carried[parent_owner] += role_mass(&mass, joint, false);
                }
                if let Some(point) = link.point {
                    host.points.push((point, at.to_array()));
                    host.visuals.push(ball(at, JOINT_RADIUS_M));
                }
                owner.push((parent_owner, at));
            }
        }
    }
    // The mouth and ears hang from the link that carries the head point;
    // a model without them has their mass in the head.
    let head_link = links
        .iter()
        .position(|l| l.points.iter().any(|(n, _)| *n == "head"))
        .unwrap_or(0);
    let head_at = links[head_link]
        .points
        .iter()
        .find(|(n, _)| *n == "head")
        .map_or([0.0; 3], |&(_, p)| p);
    for joint in [Joint::Mouth, Joint::LeftEar, Joint::RightEar] {
        let (Some(s), Some(extra)) = (servo(model, rig, joint), head_extra(rig, joint)) else {
            carried[head_link] += role_mass(&mass, joint, false);
            continue;
        };
        let origin = DVec3::from_array(head_at) + DVec3::from_array(metres(extra.origin));
        carried.push(0.0);
        links.push(PhysLink {
            name: joint_label(joint),
            parent: Some(head_link),
            servo: Some(s),
            origin: origin.to_array(),
            mass: 0.0,
            com: [0.0; 3],
            inertia: [0.0; 3],
            colliders: Vec::new(),
            visuals: vec![Geom::Box {
                centre: metres(extra.centre),
                half: metres(extra.half),
            }],
            points: Vec::new(),
        });
    }
    for i in 1..links.len() {
        links[i].colliders = colliders(rig, &links, i);
    }
    for (link, extra) in links.iter_mut().zip(carried) {
        let head = link.points.iter().find(|(n, _)| *n == "head").copied();
        link.mass = extra
            + link
                .servo
                .as_ref()
                .map_or(mass.body, |s| role_mass(&mass, s.joint, head.is_some()));
        if let Some(head) = head {
            let (c, h) = rig.head_box;
            let centre = DVec3::from_array(head.1) + DVec3::from_array(metres(c));
            link.visuals.push(Geom::Box {
                centre: centre.to_array(),
                half: metres(h),
            });
        }
        (link.com, link.inertia) = mass_properties(link);
    }
    PhysicalModel {
        model,
        links,
        servo: SERVO,
        friction: FRICTION,
    }
}

/// The collision shapes of link `i` by its servo's role, from the points it
/// carries and its children's origins: the legs' bones and paws, the neck,
/// the head's box. The shoulders, the head's middle link, the tail, the
/// mouth and the ears have none.
fn colliders(rig: &RigModel, links: &[PhysLink], i: usize) -> Vec<Collider> {
    let Some(joint) = links[i].servo.as_ref().map(|s| s.joint) else {
        return Vec::new();
    };
    let first_child = links
        .iter()
        .find(|l| l.parent == Some(i))
        .map_or(DVec3::ZERO, |l| DVec3::from_array(l.origin));
    let point = |name: &str| {
        links[i]
            .points
            .iter()
            .find(|(n, _)| n.ends_with(name))
            .map(|&(_, p)| DVec3::from_array(p))
    };
    match joint {
        Joint::Leg(_, LegJoint::Elevator) => vec![Collider {
            geom: capsule(DVec3::ZERO, first_child, UPPER_LEG_RADIUS_M),
            part: Part::Leg,
        }],
        Joint::Leg(_, LegJoint::Knee) => {
            let paw = point("paw").unwrap_or(DVec3::ZERO);
            // The shin ends where it meets the paw's ball, so that only
            // the ball touches the ground under a standing leg.
            let shin_end = paw - paw.normalize_or_zero() * PAW_RADIUS_M;
            vec![
                Collider {
                    geom: capsule(DVec3::ZERO, shin_end, LOWER_LEG_RADIUS_M),
                    part: Part::Leg,
                },
                Collider {
                    geom: ball(paw, PAW_RADIUS_M),
                    part: Part::Paw,
                },
            ]
        }
        Joint::HeadTilt => vec![Collider {
            geom: capsule(DVec3::ZERO, first_child, NECK_RADIUS_M),
            part: Part::Head,
        }],
        _ => match point("head") {
            Some(head) => {
                let (c, h) = rig.head_box;
                vec![Collider {
                    geom: Geom::Box {
                        centre: (head + DVec3::from_array(metres(c))).to_array(),
                        half: metres(h),
                    },
                    part: Part::Head,
                }]
            }
            None => Vec::new(),
        },
    }
}

/// A link's centre of mass and principal inertia: its mass spread over its
/// first collision shape other than a paw ([`solid`]), or a servo housing's
/// ball at its axis when it has none.
pub(super) fn mass_properties(link: &PhysLink) -> ([f64; 3], [f64; 3]) {
    match link.colliders.iter().find(|c| c.part != Part::Paw) {
        Some(c) => solid(&c.geom, link.mass),
        None => solid(&ball(DVec3::ZERO, HOUSING_RADIUS_M), link.mass),
    }
}

fn capsule(from: DVec3, to: DVec3, radius: f64) -> Geom {
    Geom::Capsule {
        from: from.to_array(),
        to: to.to_array(),
        radius,
    }
}

fn ball(centre: DVec3, radius: f64) -> Geom {
    Geom::Sphere {
        centre: centre.to_array(),
        radius,
    }
}
