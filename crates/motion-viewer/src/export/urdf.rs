//! URDF (the ROS Unified Robot Description Format, XML) of an AIBO model,
//! from [`super::robot`]: `base_link` at the body centre, a link and a
//! revolute joint per servo named by its PRM name, every rig point a link of
//! its own; the description's masses and inertias, its boxes, capsules and
//! balls shaped like the window's rig as visual geometry and the
//! simulator's shapes as collision geometry (a capsule, which URDF lacks, as
//! a cylinder and two balls). ROS tools (`check_urdf`, RViz, Foxglove,
//! Rerun), MuJoCo's compiler and Isaac Sim's importer read it.
//!
//! Numbers are written with Rust's shortest round-trip form, so a reader
//! gets the same `f64` the rig uses. A joint's effort is the simulator's
//! servo torque limit (docs/physics.md: Webots' `maxTorque`, unmeasured).

use std::fmt::Write as _;
use std::path::Path;

use glam::{DQuat, DVec3, EulerRot};

use super::robot::{JointKind, Robot};
use crate::anim::aibo::physical::Geom;
use crate::error::Result;
use crate::output::write_atomic;

/// The URDF document of `robot`.
pub fn document(robot: &Robot) -> String {
    let mut x = String::new();
    // Writing into a String cannot fail.
    let _ = writeln!(x, r#"<?xml version="1.0"?>"#);
    let _ = writeln!(
        x,
        "<!-- {} by motion-viewer: metres, radians, x forward, y left, z up (REP 103). -->",
        robot.model
    );
    let _ = writeln!(x, r#"<robot name="{}">"#, attr(&robot.name));
    for link in &robot.links {
        let _ = writeln!(x, r#"  <link name="{}">"#, attr(&link.name));
        if let Some(i) = link.inertial {
            let [ixx, iyy, izz] = i.inertia;
            let _ = writeln!(x, "    <inertial>");
            let _ = writeln!(x, r#"      <origin xyz="{}" rpy="0 0 0"/>"#, v3(i.com));
            let _ = writeln!(x, r#"      <mass value="{}"/>"#, i.mass);
            let _ = writeln!(
                x,
                r#"      <inertia ixx="{ixx}" ixy="0" ixz="0" iyy="{iyy}" iyz="0" izz="{izz}"/>"#
            );
            let _ = writeln!(x, "    </inertial>");
        }
        for (tag, shapes) in [("visual", &link.visuals), ("collision", &link.collisions)] {
            for (xyz, rpy, geometry) in shapes.iter().flat_map(geometry) {
                let _ = writeln!(x, "    <{tag}>");
                let _ = writeln!(x, r#"      <origin xyz="{}" rpy="{}"/>"#, v3(xyz), v3(rpy));
                let _ = writeln!(x, "      <geometry>{geometry}</geometry>");
                let _ = writeln!(x, "    </{tag}>");
            }
        }
        let _ = writeln!(x, "  </link>");
    }
    for joint in &robot.joints {
        let kind = match joint.kind {
            JointKind::Revolute { .. } => "revolute",
            JointKind::Continuous => "continuous",
            JointKind::Fixed => "fixed",
        };
        let _ = writeln!(x, r#"  <joint name="{}" type="{kind}">"#, attr(&joint.name));
        let _ = writeln!(x, r#"    <parent link="{}"/>"#, attr(&joint.parent));
        let _ = writeln!(x, r#"    <child link="{}"/>"#, attr(&joint.child));
        let _ = writeln!(x, r#"    <origin xyz="{}" rpy="0 0 0"/>"#, v3(joint.origin));
        if joint.moves() {
            let _ = writeln!(x, r#"    <axis xyz="{}"/>"#, v3(joint.axis));
        }
        if let JointKind::Revolute {
            lower,
            upper,
            velocity,
        } = joint.kind
        {
            let _ = writeln!(
                x,
                r#"    <limit lower="{lower}" upper="{upper}" effort="{}" velocity="{velocity}"/>"#,
                robot.effort
            );
        }
        let _ = writeln!(x, "  </joint>");
    }
    let _ = writeln!(x, "</robot>");
    x
}

/// Writes `robot`'s URDF to `out`, all or nothing.
pub fn write(robot: &Robot, out: &Path) -> Result<u64> {
    let text = document(robot);
    write_atomic(out, |w| w.write_all(text.as_bytes()))?;
    Ok(text.len() as u64)
}

/// A shape as URDF geometry: per element, its origin, its roll-pitch-yaw
/// and its `<geometry>` content. A capsule is a cylinder and a ball at each
/// end (URDF has no capsule).
fn geometry(shape: &Geom) -> Vec<([f64; 3], [f64; 3], String)> {
    let ball = |centre, radius| (centre, [0.0; 3], format!(r#"<sphere radius="{radius}"/>"#));
    match *shape {
        Geom::Box { centre, half } => vec![(
            centre,
            [0.0; 3],
            format!(r#"<box size="{}"/>"#, v3(half.map(|h| 2.0 * h))),
        )],
        Geom::Sphere { centre, radius } => vec![ball(centre, radius)],
        Geom::Capsule { from, to, radius } => {
            let (a, b) = (DVec3::from_array(from), DVec3::from_array(to));
            let d = b - a;
            // URDF cylinders run along their frame's z: turn z onto the bone.
            let q = DQuat::from_rotation_arc(DVec3::Z, d.normalize());
            let (yaw, pitch, roll) = q.to_euler(EulerRot::ZYX);
            vec![
                (
                    ((a + b) * 0.5).to_array(),
                    [roll, pitch, yaw],
                    format!(r#"<cylinder radius="{radius}" length="{}"/>"#, d.length()),
                ),
                ball(from, radius),
                ball(to, radius),
            ]
        }
    }
}

/// Three numbers, space-separated, in Rust's shortest round-trip form.
pub(super) fn v3(v: [f64; 3]) -> String {
    format!("{} {} {}", v[0], v[1], v[2])
}

/// `text` safe inside a double-quoted XML attribute.
pub(super) fn attr(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
