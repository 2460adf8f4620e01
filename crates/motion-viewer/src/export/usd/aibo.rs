//! An AIBO motion as a hierarchy of `Xform`s, one per link of the robot's
//! tree ([`crate::export::robot`]): fixed translations, time-sampled
//! orientations, a ball (`Sphere`) at every rig point. The root turns
//! REP 103's z-up into the stage's y-up (−90° about x) and carries the
//! body's attitude.

use std::path::Path;

use glam::{DMat3, DQuat};

use super::spill::Spill;
use super::{Num, Sized, UsdStage};
use crate::anim::aibo::MtnRig;
use crate::error::Result;
use crate::export::finite;
use crate::export::robot::{BASE_LINK, Robot, joint_positions, joint_transforms};
use crate::formats::mtn::Mtn;

/// What an AIBO motion adds to a stage: an orientation (4 values) per
/// sample for the body and each moving joint. Its values are counted as
/// 40 links' (the largest model's), as the stage's cap always has.
pub(super) fn size(motion: &Mtn) -> Sized {
    let robot = Robot::new(MtnRig::new(motion).drawn_as());
    let moving = robot.joints.iter().filter(|j| j.moves()).count();
    Sized {
        values: 4 * 40,
        widths: vec![4; 1 + moving],
        once_bytes: 2048 + 1024 * robot.joints.len() as u64,
    }
}

/// Writes the AIBO `motion` into `stage`, its samples through `spill`;
/// returns the prims written.
pub(super) fn write(
    stage: &mut UsdStage,
    motion: &Mtn,
    path: &Path,
    mut spill: Spill,
) -> Result<usize> {
    let rig = MtnRig::new(motion);
    let robot = Robot::new(rig.drawn_as());
    let clock = stage.clock;
    // Series 0: the body's attitude; then each moving joint's orientation.
    let mut series = vec![None; robot.joints.len()];
    let mut next = 1;
    for (k, j) in robot.joints.iter().enumerate() {
        if j.moves() {
            series[k] = Some(next);
            next += 1;
        }
    }
    for i in 0..clock.count {
        let t = clock.time(i);
        let (_, pose) = rig.pose(t);
        let body = DQuat::from_mat3(&DMat3::from_cols_array_2d(&pose.body_rotation));
        stage.push(
            &mut spill,
            &checked(body.to_array(), path, t, "body attitude")?,
        )?;
        let positions = joint_positions(&robot, &pose.angles_deg);
        for (j, (_, q)) in robot
            .joints
            .iter()
            .zip(joint_transforms(&robot, &positions))
        {
            if j.moves() {
                stage.push(&mut spill, &checked(q, path, t, &j.name)?)?;
            }
        }
    }
    stage.seal(&mut spill)?;
    let name = stage.unique_name(&format!(
        "aibo_{}",
        path.file_stem().unwrap_or_default().to_string_lossy()
    ));
    write!(
        stage,
        "    def Xform \"{name}\"\n    {{\n        float xformOp:rotateX = -90\n        \
         uniform token[] xformOpOrder = [\"xformOp:rotateX\"]\n        \
         def Xform \"{BASE_LINK}\"\n        {{\n            quatd xformOp:orient.timeSamples = {{\n"
    )?;
    orient_samples(stage, &spill, 0, "                ")?;
    stage
        .text("            }\n            uniform token[] xformOpOrder = [\"xformOp:orient\"]\n")?;
    let mut prims = 2;
    children(stage, &spill, &robot, &series, BASE_LINK, 3, &mut prims)?;
    stage.text("        }\n    }\n")?;
    Ok(prims)
}

/// `q` (`[x, y, z, w]`), refused unless finite.
fn checked(q: [f64; 4], path: &Path, t: f64, field: &str) -> Result<[f64; 4]> {
    for (k, v) in q.iter().enumerate() {
        finite::check(*v, path, t, || format!("{field} orientation [{k}]"))?;
    }
    Ok(q)
}

/// One `time: (w, x, y, z),` line per sample of series `s` (USD writes a
/// quaternion real part first).
fn orient_samples(stage: &mut UsdStage, spill: &Spill, s: usize, pad: &str) -> Result<()> {
    stage.samples(spill, s, |w, i, q| {
        writeln!(
            w,
            "{pad}{i}: ({}, {}, {}, {}),",
            Num(q[3]),
            Num(q[0]),
            Num(q[1]),
            Num(q[2])
        )
    })
}

/// The links under `parent`, nested, at `depth` levels of indentation.
fn children(
    stage: &mut UsdStage,
    spill: &Spill,
    robot: &Robot,
    series: &[Option<usize>],
    parent: &str,
    depth: usize,
    prims: &mut usize,
) -> Result<()> {
    let pad = "    ".repeat(depth);
    for (k, j) in robot
        .joints
        .iter()
        .enumerate()
        .filter(|(_, j)| j.parent == parent)
    {
        let prim = super::identifier(&j.child);
        *prims += 1;
        let o = j.origin;
        write!(
            stage,
            "{pad}def Xform \"{prim}\"\n{pad}{{\n{pad}    double3 xformOp:translate = ({}, {}, {})\n",
            o[0], o[1], o[2]
        )?;
        if let Some(s) = series[k] {
            writeln!(stage, "{pad}    quatd xformOp:orient.timeSamples = {{")?;
            orient_samples(stage, spill, s, &format!("{pad}        "))?;
            write!(
                stage,
                "{pad}    }}\n{pad}    uniform token[] xformOpOrder = [\"xformOp:translate\", \"xformOp:orient\"]\n"
            )?;
        } else {
            writeln!(
                stage,
                "{pad}    uniform token[] xformOpOrder = [\"xformOp:translate\"]"
            )?;
        }
        if crate::anim::aibo::POINT_NAMES.contains(&j.child.as_str()) {
            *prims += 1;
            let r = f64::from(crate::scene::rig::JOINT_RADIUS_M);
            write!(
                stage,
                "{pad}    def Sphere \"ball\"\n{pad}    {{\n{pad}        double radius = {r}\n\
                 {pad}        float3[] extent = [({n}, {n}, {n}), ({r}, {r}, {r})]\n{pad}    }}\n",
                n = -r,
            )?;
        }
        children(stage, spill, robot, series, &j.child, depth + 1, prims)?;
        writeln!(stage, "{pad}}}")?;
    }
    Ok(())
}
