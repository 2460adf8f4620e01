//! MJCF (MuJoCo's XML model format) of an AIBO: the robot description's
//! rigid bodies, masses, inertias, collision shapes, position servos and
//! ground (`anim::aibo::physical`; `docs/physics.md`), so a MuJoCo user has
//! the dog the viewer simulates (MuJoCo Menagerie has no AIBO), with every
//! servo the URDF has: the tail, mouth and ears too, which the viewer's own
//! simulator carries fixed (they have no collision shapes, so they change
//! no contact).
//!
//! - `<worldbody>`: a ground plane, then the trunk `body` on a free joint and
//!   each servo's link as a nested `<body>` with a hinge named by the model's
//!   PRM name (no `range` where none is published: the ears), explicit
//!   `<inertial>` (the compiler does not guess masses from shapes), and
//!   capsules, balls and boxes as geoms; robot geoms collide with the
//!   ground only.
//! - `<actuator>`: one `<position>` servo per hinge, named by the same PRM
//!   name, with the simulator's stiffness, damping and torque limit.
//! - `<custom>`: each servo's rated speed (`max_speed`, rad/s, actuator
//!   order; 0 where none is published: the target follows the command) and the simulation protocol (`settle_s`, `hold_s`): MuJoCo has no
//!   rate-limited servo, so a driver moves `ctrl` toward the commanded angle
//!   no faster than that, as the viewer's simulator does.
//! - `<keyframe>`: `start`, the posture the motion starts from (trunk placed
//!   1 mm above the ground, servos at the first keyframe's angles); with a
//!   motion, one key per keyframe of it (`time` = keyframe time, `ctrl` = the
//!   commanded angles), linear between keys as the viewer samples them.

use std::fmt::Write as _;
use std::path::Path;

use super::urdf::{attr, v3};
use crate::anim::aibo::drive::{Drive, HOLD_S, SETTLE_S};
use crate::anim::aibo::physical::{
    GRAVITY_M_S2, Geom, MUJOCO_STEP_S, PhysicalModel, physical_model, start_pose,
};
use crate::error::Result;
use crate::formats::aibo::Model;
use crate::formats::mtn::Mtn;
use crate::output::write_atomic;

/// The MJCF document of `model`, with `motion`'s commanded trajectory as
/// keyframes when one is given.
pub(crate) fn document(model: Model, motion: Option<&Mtn>) -> String {
    let p = physical_model(model);
    let mut x = String::new();
    let name = p.name();
    let f = p.friction;
    // Writing into a String cannot fail.
    let _ = writeln!(
        x,
        "<!-- {model} by motion-viewer: SI units, x forward, y left, z up; every number's \
         source is in motion-viewer's docs/physics.md. -->"
    );
    let _ = writeln!(x, r#"<mujoco model="{}">"#, attr(&name));
    let _ = writeln!(
        x,
        r#"  <compiler angle="radian" autolimits="true" inertiafromgeom="false"/>"#
    );
    let _ = writeln!(
        x,
        r#"  <option timestep="{MUJOCO_STEP_S}" gravity="0 0 {}" integrator="implicitfast"/>"#,
        -GRAVITY_M_S2
    );
    let _ = writeln!(x, "  <default>");
    // Robot geoms (contype 2, conaffinity 1) meet the ground (1, 2) only.
    let _ = writeln!(
        x,
        r#"    <geom contype="2" conaffinity="1" condim="3" friction="{f} 0.005 0.0001"/>"#
    );
    let _ = writeln!(x, "  </default>");
    let speeds: Vec<String> = p
        .servos()
        .map(|(_, s)| s.max_speed.unwrap_or(0.0).to_string())
        .collect();
    let _ = writeln!(x, "  <custom>");
    let _ = writeln!(
        x,
        r#"    <numeric name="max_speed" data="{}"/>"#,
        speeds.join(" ")
    );
    let _ = writeln!(x, r#"    <numeric name="settle_s" data="{SETTLE_S}"/>"#);
    let _ = writeln!(x, r#"    <numeric name="hold_s" data="{HOLD_S}"/>"#);
    if let Some(m) = motion {
        // Per keyframe: how far the commanded posture holds the body and
        // head above the paws' floor (linear between keys; the body on the
        // floor where this is 60 mm or more is a fall).
        let drive = Drive::new(m, &p);
        let c: Vec<String> = drive
            .keyframe_clearances()
            .iter()
            .map(f64::to_string)
            .collect();
        let _ = writeln!(
            x,
            r#"    <numeric name="expected_clearance" data="{}"/>"#,
            c.join(" ")
        );
    }
    let _ = writeln!(x, "  </custom>");
    let _ = writeln!(x, "  <worldbody>");
    let _ = writeln!(
        x,
        r#"    <geom name="ground" type="plane" size="0 0 1" contype="1" conaffinity="2" friction="{f} 0.005 0.0001"/>"#
    );
    body(&mut x, &p, 0, 2);
    let _ = writeln!(x, "  </worldbody>");
    let _ = writeln!(x, "  <actuator>");
    let g = p.servo;
    for (_, s) in p.servos() {
        let ctrl = s.range.map_or_else(String::new, |(lower, upper)| {
            format!(r#" ctrlrange="{lower} {upper}""#)
        });
        let _ = writeln!(
            x,
            r#"    <position name="{n}" joint="{n}" kp="{}" kv="{}"{ctrl} forcerange="{} {}"/>"#,
            g.kp,
            g.kd,
            -g.torque_limit_nm,
            g.torque_limit_nm,
            n = attr(s.name)
        );
    }
    let _ = writeln!(x, "  </actuator>");
    let _ = writeln!(x, "  <keyframe>");
    let neutral: Vec<f64> = {
        let rig = crate::anim::aibo::rig_model(model);
        p.servos()
            .map(|(_, s)| rig.neutral_angle(s.joint).unwrap_or(0.0).to_radians())
            .collect()
    };
    match motion {
        Some(m) => {
            let drive = Drive::new(m, &p);
            let (first, _) = drive.commanded(0.0);
            key(&mut x, "start", 0.0, Some(start_pose(&p, &first)), &first);
            for (i, &t) in drive.keyframe_times_s().iter().enumerate() {
                let (ctrl, _) = drive.commanded(t);
                key(&mut x, &format!("keyframe_{i}"), t, None, &ctrl);
            }
        }
        None => key(
            &mut x,
            "start",
            0.0,
            Some(start_pose(&p, &neutral)),
            &neutral,
        ),
    }
    let _ = writeln!(x, "  </keyframe>");
    let _ = writeln!(x, "</mujoco>");
    x
}

/// One `<key>`: its time, the state (trunk pose and servo angles) when
/// given, and the servos' commands.
fn key(x: &mut String, name: &str, time: f64, pose: Option<([f64; 3], [f64; 4])>, angles: &[f64]) {
    let list = |v: &[f64]| v.iter().map(f64::to_string).collect::<Vec<_>>().join(" ");
    let qpos = pose.map_or_else(String::new, |(p, q)| {
        let mut all = p.to_vec();
        all.extend(q);
        all.extend(angles);
        format!(r#" qpos="{}""#, list(&all))
    });
    let _ = writeln!(
        x,
        r#"    <key name="{name}" time="{time}"{qpos} ctrl="{}"/>"#,
        list(angles)
    );
}

/// Link `i` and its children, indented by `depth` levels.
fn body(x: &mut String, p: &PhysicalModel, i: usize, depth: usize) {
    let pad = "  ".repeat(depth);
    let link = &p.links[i];
    let _ = writeln!(
        x,
        r#"{pad}<body name="{}" pos="{}">"#,
        attr(&link.name),
        v3(link.origin)
    );
    match &link.servo {
        None => {
            let _ = writeln!(x, r#"{pad}  <freejoint name="root"/>"#);
        }
        Some(s) => {
            let range = s.range.map_or_else(String::new, |(lower, upper)| {
                format!(r#" range="{lower} {upper}""#)
            });
            let _ = writeln!(
                x,
                r#"{pad}  <joint name="{}" type="hinge" axis="{}"{range}/>"#,
                attr(s.name),
                v3(s.axis),
            );
        }
    }
    let _ = writeln!(
        x,
        r#"{pad}  <inertial pos="{}" mass="{}" diaginertia="{}"/>"#,
        v3(link.com),
        link.mass,
        v3(link.inertia)
    );
    for (k, c) in link.colliders.iter().enumerate() {
        let geom = match c.geom {
            Geom::Box { centre, half } => {
                format!(r#"type="box" pos="{}" size="{}""#, v3(centre), v3(half))
            }
            Geom::Sphere { centre, radius } => {
                format!(r#"type="sphere" pos="{}" size="{radius}""#, v3(centre))
            }
            Geom::Capsule { from, to, radius } => format!(
                r#"type="capsule" fromto="{} {}" size="{radius}""#,
                v3(from),
                v3(to)
            ),
        };
        let part = format!("{:?}", c.part).to_ascii_lowercase();
        let _ = writeln!(
            x,
            r#"{pad}  <geom name="{}_{part}_{k}" {geom}/>"#,
            attr(&link.name)
        );
    }
    for child in (0..p.links.len()).filter(|&c| p.links[c].parent == Some(i)) {
        body(x, p, child, depth + 1);
    }
    let _ = writeln!(x, "{pad}</body>");
}

/// Writes the MJCF of `model` (with `motion`'s keyframes) to `out`, all or nothing.
pub fn write(model: Model, motion: Option<&Mtn>, out: &Path) -> Result<u64> {
    let text = document(model, motion);
    write_atomic(out, |w| w.write_all(text.as_bytes()))?;
    Ok(text.len() as u64)
}
