//! An MRTK recording as `Xform`s with time-sampled `xformOp:translate` and
//! `xformOp:orient`: the head camera and every hand joint (`left_hand`,
//! `right_hand` scopes), each sampled at every time code in world space.
//! Unity's axes are left-handed with y up; the stage's are right-handed with
//! y up, so z is flipped: `(x, y, z)` → `(x, y, −z)`, quaternions
//! `(x, y, z, w)` → `(−x, −y, z, w)`. Where tracking is lost (values not
//! finite) the last finite value is held, with one warning per part.

use std::path::Path;

use super::spill::Spill;
use super::{Num, Sized, UsdStage};
use crate::anim::input_animation::{JOINT_NAMES, Pose, state_at};
use crate::error::Result;
use crate::export::finite::Holder;
use crate::formats::input_animation::InputAnimation;

/// A Unity position in the stage's right-handed y-up axes.
pub fn position_to_usd(p: [f64; 3]) -> [f64; 3] {
    [p[0], p[1], -p[2]]
}

/// A Unity rotation `[x, y, z, w]` in the stage's axes (the same turn seen
/// through [`position_to_usd`]).
pub(crate) fn rotation_to_usd(q: [f64; 4]) -> [f64; 4] {
    [-q[0], -q[1], q[2], q[3]]
}

/// What a recording adds to a stage: per animated pose (the camera, each
/// hand joint) a translation (3 values) and an orientation (4) per sample.
/// Its values are counted as 55 poses', as the stage's cap always has.
pub(super) fn size(recording: &InputAnimation) -> Sized {
    let poses = usize::from(recording.camera.is_some())
        + if recording.hands.is_some() {
            2 * JOINT_NAMES.len()
        } else {
            0
        };
    let widths: Vec<usize> = (0..poses).flat_map(|_| [3, 4]).collect();
    Sized {
        values: 7 * 55,
        widths,
        once_bytes: 2048 + 1024 * poses as u64,
    }
}

/// A pose in the stage's axes, with non-finite values held by `holder`:
/// the translation, then the orientation `[x, y, z, w]`.
fn held(holder: &mut Holder, pose: &Pose, t: f64) -> ([f64; 3], [f64; 4]) {
    let p = pose.position.map(f64::from);
    let q = pose.rotation.map(f64::from);
    let mut v = [p[0], p[1], p[2], q[0], q[1], q[2], q[3]];
    holder.hold(&mut v, t);
    (
        position_to_usd([v[0], v[1], v[2]]),
        rotation_to_usd([v[3], v[4], v[5], v[6]]),
    )
}

fn holder() -> Holder {
    Holder::new([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
}

/// Writes `recording` into `stage`, its samples through `spill`; returns
/// the prims written.
pub(super) fn write(
    stage: &mut UsdStage,
    recording: &InputAnimation,
    path: &Path,
    mut spill: Spill,
    warnings: &mut Vec<String>,
) -> Result<usize> {
    let clock = stage.clock;
    let mut camera = holder();
    let mut hands: Vec<Holder> = (0..2 * JOINT_NAMES.len()).map(|_| holder()).collect();
    for i in 0..clock.count {
        let t = clock.time(i);
        let state = state_at(recording, t);
        // The state has a camera and hands where the recording has them:
        // one sample of each series per time code.
        if let Some(pose) = &state.camera {
            let (p, q) = held(&mut camera, pose, t);
            stage.push(&mut spill, &p)?;
            stage.push(&mut spill, &q)?;
        }
        if let Some(h) = &state.hands {
            let joints = h.left.joints.iter().chain(&h.right.joints);
            for (holder, pose) in hands.iter_mut().zip(joints) {
                let (p, q) = held(holder, pose, t);
                stage.push(&mut spill, &p)?;
                stage.push(&mut spill, &q)?;
            }
        }
    }
    stage.seal(&mut spill)?;
    let name = stage.unique_name(&format!(
        "mrtk_{}",
        path.file_stem().unwrap_or_default().to_string_lossy()
    ));
    write!(stage, "    def Xform \"{name}\"\n    {{\n")?;
    let mut prims = 1;
    let mut series = 0;
    if recording.camera.is_some() {
        prim(stage, &spill, series, "camera", "        ")?;
        series += 2;
        prims += 1;
    }
    if recording.hands.is_some() {
        for side in ["left_hand", "right_hand"] {
            write!(stage, "        def Xform \"{side}\"\n        {{\n")?;
            for joint in JOINT_NAMES {
                prim(
                    stage,
                    &spill,
                    series,
                    &super::identifier(joint),
                    "            ",
                )?;
                series += 2;
            }
            stage.text("        }\n")?;
            prims += 1 + JOINT_NAMES.len();
        }
    }
    stage.text("    }\n")?;
    warnings.extend(camera.warning(path, "camera"));
    warnings.extend(hands.iter().find_map(|h| h.warning(path, "hand joints")));
    Ok(prims)
}

/// One animated pose's `Xform`: series `s` (translations) and `s + 1`
/// (orientations) of `spill`.
fn prim(stage: &mut UsdStage, spill: &Spill, s: usize, name: &str, pad: &str) -> Result<()> {
    write!(
        stage,
        "{pad}def Xform \"{name}\"\n{pad}{{\n{pad}    double3 xformOp:translate.timeSamples = {{\n"
    )?;
    stage.samples(spill, s, |w, i, p| {
        writeln!(
            w,
            "{pad}        {i}: ({}, {}, {}),",
            Num(p[0]),
            Num(p[1]),
            Num(p[2])
        )
    })?;
    write!(
        stage,
        "{pad}    }}\n{pad}    quatd xformOp:orient.timeSamples = {{\n"
    )?;
    // USD writes a quaternion real part first.
    stage.samples(spill, s + 1, |w, i, q| {
        writeln!(
            w,
            "{pad}        {i}: ({}, {}, {}, {}),",
            Num(q[3]),
            Num(q[0]),
            Num(q[1]),
            Num(q[2])
        )
    })?;
    write!(
        stage,
        "{pad}    }}\n{pad}    uniform token[] xformOpOrder = [\"xformOp:translate\", \"xformOp:orient\"]\n{pad}}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    #[test]
    fn a_unity_rotation_turns_the_same_way_in_usd_axes() {
        let q = DQuat::from_axis_angle(DVec3::new(-0.2, 0.9, 0.4).normalize(), 0.7);
        let v = [0.5, 0.1, -0.3];
        let in_unity = (q * DVec3::from_array(v)).to_array();
        let r = DQuat::from_array(rotation_to_usd(q.to_array()));
        let got = r * DVec3::from_array(position_to_usd(v));
        let want = DVec3::from_array(position_to_usd(in_unity));
        assert!((got - want).length() < 1e-12, "{got} vs {want}");
    }
}
