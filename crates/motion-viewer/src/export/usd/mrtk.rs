//! An MRTK recording as `Xform`s with time-sampled `xformOp:translate` and
//! `xformOp:orient`: the head camera and every hand joint (`left_hand`,
//! `right_hand` scopes), each sampled at every time code in world space.
//! Unity's axes are left-handed with y up; the stage's are right-handed with
//! y up, so z is flipped: `(x, y, z)` → `(x, y, −z)`, quaternions
//! `(x, y, z, w)` → `(−x, −y, z, w)`. Where tracking is lost (values not
//! finite) the last finite value is held, with one warning per part.

use std::fmt::Write as _;
use std::path::Path;

use super::Stage;
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
pub fn rotation_to_usd(q: [f64; 4]) -> [f64; 4] {
    [-q[0], -q[1], q[2], q[3]]
}

/// One animated pose: its translate and orient samples.
struct Track {
    translate: String,
    orient: String,
    holder: Holder,
}

impl Track {
    fn new() -> Track {
        Track {
            translate: String::new(),
            orient: String::new(),
            holder: Holder::new([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        }
    }

    fn sample(&mut self, i: u64, pose: &Pose, t: f64) {
        let p = pose.position.map(f64::from);
        let q = pose.rotation.map(f64::from);
        let mut v = [p[0], p[1], p[2], q[0], q[1], q[2], q[3]];
        self.holder.hold(&mut v, t);
        let p = position_to_usd([v[0], v[1], v[2]]);
        let q = rotation_to_usd([v[3], v[4], v[5], v[6]]);
        let _ = writeln!(self.translate, "{i}: ({}, {}, {}),", p[0], p[1], p[2]);
        // USD writes a quaternion real part first.
        let _ = writeln!(
            self.orient,
            "{i}: ({}, {}, {}, {}),",
            q[3], q[0], q[1], q[2]
        );
    }

    fn prim(&self, name: &str, pad: &str) -> String {
        format!(
            "{pad}def Xform \"{name}\"\n{pad}{{\n\
             {pad}    double3 xformOp:translate.timeSamples = {{\n{}{pad}    }}\n\
             {pad}    quatd xformOp:orient.timeSamples = {{\n{}{pad}    }}\n\
             {pad}    uniform token[] xformOpOrder = [\"xformOp:translate\", \"xformOp:orient\"]\n\
             {pad}}}\n",
            indent(&self.translate, pad),
            indent(&self.orient, pad),
        )
    }
}

fn indent(lines: &str, pad: &str) -> String {
    lines
        .lines()
        .map(|l| format!("{pad}        {l}\n"))
        .collect()
}

/// Writes `recording` into `stage`; returns the prims written.
pub(super) fn write(
    stage: &mut Stage,
    recording: &InputAnimation,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<usize> {
    let clock = stage.clock;
    let mut camera = Track::new();
    let mut hands: Vec<Track> = (0..2 * JOINT_NAMES.len()).map(|_| Track::new()).collect();
    for i in 0..clock.count {
        let t = clock.time(i);
        let state = state_at(recording, t);
        if let Some(pose) = &state.camera {
            camera.sample(i, pose, t);
        }
        if let Some(h) = &state.hands {
            let joints = h.left.joints.iter().chain(&h.right.joints);
            for (track, pose) in hands.iter_mut().zip(joints) {
                track.sample(i, pose, t);
            }
        }
    }
    let name = stage.unique_name(&format!(
        "mrtk_{}",
        path.file_stem().unwrap_or_default().to_string_lossy()
    ));
    let mut x = String::new();
    let _ = writeln!(x, "    def Xform \"{name}\"\n    {{");
    let mut prims = 1;
    if recording.camera.is_some() {
        x.push_str(&camera.prim("camera", "        "));
        prims += 1;
    }
    if recording.hands.is_some() {
        for (side, tracks) in ["left_hand", "right_hand"]
            .into_iter()
            .zip(hands.chunks(JOINT_NAMES.len()))
        {
            let _ = writeln!(x, "        def Xform \"{side}\"\n        {{");
            for (joint, track) in JOINT_NAMES.iter().zip(tracks) {
                x.push_str(&track.prim(&super::identifier(joint), "            "));
            }
            let _ = writeln!(x, "        }}");
            prims += 1 + tracks.len();
        }
    }
    let _ = writeln!(x, "    }}");
    stage.push(&x);
    warnings.extend(camera.holder.warning(path, "camera"));
    warnings.extend(
        hands
            .iter()
            .find_map(|h| h.holder.warning(path, "hand joints")),
    );
    Ok(prims)
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
