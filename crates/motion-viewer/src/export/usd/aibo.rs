//! An AIBO motion as a hierarchy of `Xform`s, one per link of the robot's
//! tree ([`crate::export::robot`]): fixed translations, time-sampled
//! orientations, a ball (`Sphere`) at every rig point. The root turns
//! REP 103's z-up into the stage's y-up (−90° about x) and carries the
//! body's attitude.

use std::fmt::Write as _;
use std::path::Path;

use glam::{DMat3, DQuat};

use super::Stage;
use crate::anim::aibo::MtnRig;
use crate::error::Result;
use crate::export::finite;
use crate::export::robot::{BASE_LINK, Robot, joint_positions, joint_transforms};
use crate::formats::mtn::Mtn;

/// Writes the AIBO `motion` into `stage`; returns the prims written.
pub(super) fn write(stage: &mut Stage, motion: &Mtn, path: &Path) -> Result<usize> {
    let rig = MtnRig::new(motion);
    let robot = Robot::new(rig.drawn_as());
    let clock = stage.clock;
    // Per joint, its orientation samples; per sample, the body's attitude.
    let mut orient: Vec<String> = vec![String::new(); robot.joints.len()];
    let mut attitude = String::new();
    for i in 0..clock.count {
        let t = clock.time(i);
        let (_, pose) = rig.pose(t);
        let body = DQuat::from_mat3(&DMat3::from_cols_array_2d(&pose.body_rotation));
        let _ = writeln!(
            attitude,
            "{}",
            quat_sample(i, body.to_array(), path, t, "body attitude")?
        );
        let positions = joint_positions(&robot, &pose.angles_deg);
        for (k, (j, (_, q))) in robot
            .joints
            .iter()
            .zip(joint_transforms(&robot, &positions))
            .enumerate()
        {
            if j.moves() {
                let _ = writeln!(orient[k], "{}", quat_sample(i, q, path, t, &j.name)?);
            }
        }
    }
    let name = stage.unique_name(&format!(
        "aibo_{}",
        path.file_stem().unwrap_or_default().to_string_lossy()
    ));
    let mut x = String::new();
    let _ = writeln!(x, "    def Xform \"{name}\"\n    {{");
    let _ = writeln!(x, "        float xformOp:rotateX = -90");
    let _ = writeln!(
        x,
        "        uniform token[] xformOpOrder = [\"xformOp:rotateX\"]"
    );
    let _ = writeln!(x, "        def Xform \"{BASE_LINK}\"\n        {{");
    let _ = writeln!(
        x,
        "            quatd xformOp:orient.timeSamples = {{\n{attitude}            }}"
    );
    let _ = writeln!(
        x,
        "            uniform token[] xformOpOrder = [\"xformOp:orient\"]"
    );
    let mut prims = 2;
    children(&robot, BASE_LINK, 3, &orient, &mut x, &mut prims);
    let _ = writeln!(x, "        }}");
    let _ = writeln!(x, "    }}");
    stage.push(&x);
    Ok(prims)
}

/// One `time: (w, x, y, z)` line (USD writes a quaternion real part first).
fn quat_sample(i: u64, q: [f64; 4], path: &Path, t: f64, field: &str) -> Result<String> {
    for (k, v) in q.iter().enumerate() {
        finite::check(*v, path, t, || format!("{field} orientation [{k}]"))?;
    }
    Ok(format!(
        "                {i}: ({}, {}, {}, {}),",
        q[3], q[0], q[1], q[2]
    ))
}

/// The links under `parent`, nested, at `depth` levels of indentation.
fn children(
    robot: &Robot,
    parent: &str,
    depth: usize,
    orient: &[String],
    x: &mut String,
    prims: &mut usize,
) {
    let pad = "    ".repeat(depth);
    for (k, j) in robot
        .joints
        .iter()
        .enumerate()
        .filter(|(_, j)| j.parent == parent)
    {
        let prim = super::identifier(&j.child);
        *prims += 1;
        let _ = writeln!(x, "{pad}def Xform \"{prim}\"\n{pad}{{");
        let o = j.origin;
        let _ = writeln!(
            x,
            "{pad}    double3 xformOp:translate = ({}, {}, {})",
            o[0], o[1], o[2]
        );
        if j.moves() {
            let _ = writeln!(
                x,
                "{pad}    quatd xformOp:orient.timeSamples = {{\n{}{pad}    }}",
                orient[k]
            );
            let _ = writeln!(
                x,
                "{pad}    uniform token[] xformOpOrder = [\"xformOp:translate\", \"xformOp:orient\"]"
            );
        } else {
            let _ = writeln!(
                x,
                "{pad}    uniform token[] xformOpOrder = [\"xformOp:translate\"]"
            );
        }
        if crate::anim::aibo::POINT_NAMES.contains(&j.child.as_str()) {
            *prims += 1;
            let r = f64::from(crate::scene::rig::JOINT_RADIUS_M);
            let _ = writeln!(
                x,
                "{pad}    def Sphere \"ball\"\n{pad}    {{\n{pad}        double radius = {r}\n\
                 {pad}        float3[] extent = [({n}, {n}, {n}), ({r}, {r}, {r})]\n{pad}    }}",
                n = -r,
            );
        }
        children(robot, &j.child, depth + 1, orient, x, prims);
        let _ = writeln!(x, "{pad}}}");
    }
}
