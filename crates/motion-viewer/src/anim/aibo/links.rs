//! The rig as a kinematic tree: every joint is a link placed in its parent
//! link's frame and turned by its servo. [`super::forward_kinematics`]
//! composes the links into the named points, so a caller that needs the tree
//! itself (an exporter writing the rig as a node hierarchy) gets the same
//! numbers, not a second copy of the geometry.
//!
//! Frames are the body frame's (x forward, y left, z up, mm), before the
//! body's roll, pitch and yaw.

use glam::{DMat3, DQuat, DVec3};

use super::{HeadChain, RigModel};
use crate::formats::aibo::{Joint, Leg, LegJoint};

/// One link of the rig's tree at one pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// The servo that turns the link, or `None` for a fixed end point.
    pub joint: Option<Joint>,
    /// The named point ([`super::POINT_NAMES`]) at the link's origin, if any.
    pub point: Option<&'static str>,
    /// The parent link's index in the same list; `None`: the body frame.
    /// A parent always comes before its children.
    pub parent: Option<usize>,
    /// The link's origin in its parent's frame, mm.
    pub offset: [f64; 3],
    /// The link's rotation relative to its parent's frame, as columns.
    pub rotation: [[f64; 3]; 3],
}

/// Where each link's frame is in the body frame: its origin and its axes.
pub(crate) fn compose(links: &[Link]) -> Vec<(DVec3, DMat3)> {
    let mut frames: Vec<(DVec3, DMat3)> = Vec::with_capacity(links.len());
    for link in links {
        let offset = DVec3::from_array(link.offset);
        let rotation = DMat3::from_cols_array_2d(&link.rotation);
        let frame = match link.parent.and_then(|p| frames.get(p)) {
            Some(&(origin, axes)) => (origin + axes * offset, axes * rotation),
            None => (offset, rotation),
        };
        frames.push(frame);
    }
    frames
}

/// The unit axis a positive angle of `joint` turns its link about, in the
/// parent link's frame (every frame of the rig is parallel to its parent's
/// at zero angles): the tree with that servo alone turned by one radian gives
/// the link's rotation, whose axis-angle is (axis, +1) — the axis read from
/// the same code that poses the figure. `None` when the rig has no link for
/// `joint`.
pub(super) fn servo_axis(rig: &RigModel, joint: Joint) -> Option<[f64; 3]> {
    let turned = links(rig, |j| if j == joint { 1.0 } else { 0.0 });
    let link = turned.iter().find(|l| l.joint == Some(joint))?;
    let rotation = DMat3::from_cols_array_2d(&link.rotation);
    let (axis, angle) = DQuat::from_mat3(&rotation).to_axis_angle();
    let axis = if angle < 0.0 { -axis } else { axis };
    // The rig's axes are its frames' own x, y or z: snap the rounding of
    // the quaternion round trip away (and only that).
    Some(axis.to_array().map(|c| {
        let snapped = c.round();
        if (c - snapped).abs() < 1e-9 {
            snapped + 0.0
        } else {
            c
        }
    }))
}

/// Collects links, each one's parent being the one pushed before it unless given.
struct Tree(Vec<Link>);

impl Tree {
    /// Appends a link and returns its index.
    fn push(
        &mut self,
        parent: Option<usize>,
        joint: Option<Joint>,
        point: Option<&'static str>,
        offset: DVec3,
        rotation: DMat3,
    ) -> usize {
        self.0.push(Link {
            joint,
            point,
            parent,
            offset: offset.to_array(),
            rotation: rotation.to_cols_array_2d(),
        });
        self.0.len() - 1
    }
}

/// The rig's links with every servo at `angle_rad(joint)` radians, in the
/// order of [`super::POINT_NAMES`] for the links that carry points: four legs
/// (left front, right front, left hind, right hind: shoulder J1, J2, knee J3,
/// paw), the head (neck tilt, the two servos after it, the head point), the
/// tail (base pan, tilt, tip).
pub(super) fn links(rig: &RigModel, angle_rad: impl Fn(Joint) -> f64) -> Vec<Link> {
    let mut tree = Tree(Vec::with_capacity(19));
    for leg in [
        Leg::LeftFront,
        Leg::RightFront,
        Leg::LeftHind,
        Leg::RightHind,
    ] {
        leg_links(&mut tree, rig, leg, |servo| {
            angle_rad(Joint::Leg(leg, servo))
        });
    }

    let tilt = DMat3::from_rotation_y(-angle_rad(Joint::HeadTilt));
    let pan = DMat3::from_rotation_z(angle_rad(Joint::HeadPan));
    let third = angle_rad(Joint::HeadRoll);
    let (second, last) = match rig.head_chain {
        HeadChain::TiltPanRoll => (
            (Joint::HeadPan, pan),
            (Joint::HeadRoll, DMat3::from_rotation_x(third)),
        ),
        HeadChain::TiltPanNod => (
            (Joint::HeadPan, pan),
            (Joint::HeadRoll, DMat3::from_rotation_y(-third)),
        ),
        HeadChain::TiltNodPan => (
            (Joint::HeadRoll, DMat3::from_rotation_y(-third)),
            (Joint::HeadPan, pan),
        ),
    };
    let neck = tree.push(
        None,
        Some(Joint::HeadTilt),
        Some("neck"),
        DVec3::from_array(rig.neck),
        tilt,
    );
    // The pan axis runs up the neck, so only the tilt moves the joint above it.
    let up = DVec3::new(0.0, 0.0, rig.neck_length);
    let second = tree.push(Some(neck), Some(second.0), None, up, second.1);
    let last = tree.push(Some(second), Some(last.0), None, DVec3::ZERO, last.1);
    let forward = DVec3::new(rig.head_forward, 0.0, 0.0);
    tree.push(Some(last), None, Some("head"), forward, DMat3::IDENTITY);

    // Tilt + turns the backward-pointing tail up (+ about y); pan + swings the
    // tip to +y, which for a backward vector is - about z.
    let base = tree.push(
        None,
        Some(Joint::TailPan),
        Some("tail_base"),
        DVec3::from_array(rig.tail_base),
        DMat3::from_rotation_z(-angle_rad(Joint::TailPan)),
    );
    let tilt = tree.push(
        Some(base),
        Some(Joint::TailTilt),
        None,
        DVec3::ZERO,
        DMat3::from_rotation_y(angle_rad(Joint::TailTilt)),
    );
    let backward = DVec3::new(-rig.tail_length, 0.0, 0.0);
    tree.push(
        Some(tilt),
        None,
        Some("tail_tip"),
        backward,
        DMat3::IDENTITY,
    );
    tree.0
}

/// Appends one leg: J1 at the shoulder, J2 on it, J3 at the knee, the paw.
fn leg_links(tree: &mut Tree, rig: &RigModel, leg: Leg, angle_rad: impl Fn(LegJoint) -> f64) {
    let geometry = if leg.is_front() { rig.front } else { rig.hind };
    // Leg frame → body frame: x' is forward on a front leg and backward on a
    // hind one; y' points away from the body.
    let along = if leg.is_front() { 1.0 } else { -1.0 };
    let side = if leg.is_left() { 1.0 } else { -1.0 };
    let to_body = |v: [f64; 3]| DVec3::new(along * v[0], side * v[1], v[2]);
    let [sx, sy, sz] = rig.shoulder;
    let shoulder = DVec3::new(along * sx, side * sy, sz);
    // A positive angle about +y moves a downward vector toward -x, so turning
    // toward +x' is -angle about +y on a front leg and +angle on a hind one.
    let j1 = DMat3::from_rotation_y(-along * angle_rad(LegJoint::Rotator));
    // Abduction: a downward vector moves toward +y under +angle about +x.
    let j2 = DMat3::from_rotation_x(side * angle_rad(LegJoint::Elevator));
    let j3 = DMat3::from_rotation_y(-along * angle_rad(LegJoint::Knee));
    let names = leg_point_names(leg);
    let joint = |servo| Some(Joint::Leg(leg, servo));
    let rotator = tree.push(None, joint(LegJoint::Rotator), Some(names[0]), shoulder, j1);
    let elevator = tree.push(
        Some(rotator),
        joint(LegJoint::Elevator),
        None,
        DVec3::ZERO,
        j2,
    );
    let knee = tree.push(
        Some(elevator),
        joint(LegJoint::Knee),
        Some(names[1]),
        to_body(geometry.upper),
        j3,
    );
    tree.push(
        Some(knee),
        None,
        Some(names[2]),
        to_body(geometry.lower),
        DMat3::IDENTITY,
    );
}

/// Shoulder, knee and paw point names of a leg.
fn leg_point_names(leg: Leg) -> [&'static str; 3] {
    match leg {
        Leg::LeftFront => ["left_front_shoulder", "left_front_knee", "left_front_paw"],
        Leg::RightFront => [
            "right_front_shoulder",
            "right_front_knee",
            "right_front_paw",
        ],
        Leg::LeftHind => ["left_hind_shoulder", "left_hind_knee", "left_hind_paw"],
        Leg::RightHind => ["right_hind_shoulder", "right_hind_knee", "right_hind_paw"],
    }
}
