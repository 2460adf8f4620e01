//! What the pieces of a reduced MEMG track share, floats or integers
//! (`memg`, `quantized`): the track, each group's columns, shape and
//! frames, the scene's layout, the key times, a frame's keys, the mesh's
//! extras.

use glam::{DQuat, Vec3};
use gltf_json as json;
use json::Index;
use json::animation::{Interpolation, Property};
use rayon::prelude::*;
use serde_json::json;
use std::collections::HashMap;
use std::path::Path;

use super::document::{Document, extras, refuse};
use super::rounding;
use crate::anim::clock;
use crate::anim::memg::Binding;
use crate::anim::rigid::{NotRigid, Trs, continuous, decompose};
use crate::error::Result;
use crate::export::finite;
use crate::formats::memg::{MemgGroup, MemgMotion};
use crate::formats::obj::ObjScene;

/// What a reduced MEMG track needs.
pub struct MemgTrack<'s> {
    /// The motion file, for errors.
    pub file: String,
    /// The track's name (its root node's).
    pub name: String,
    /// The `.obj` scene.
    pub scene: &'s ObjScene,
    /// The motion.
    pub motion: &'s MemgMotion,
    /// How the motion's groups bind to the scene.
    pub binding: &'s Binding,
    /// The track's placement: a translation…
    pub offset: Vec3,
    /// …after a uniform scale (zero and one: the file's own coordinates).
    pub scale: f32,
    /// Each group's mesh and weights in 16-bit integers
    /// ([`super::quantized`]).
    pub quantized: bool,
    /// With `quantized`: how far a vertex may be from the motion's own
    /// place, spent on 8-bit targets and fewer keys.
    pub tolerance: Option<f64>,
}

/// Q's column ranges: `(lo_j, s_j)` with `s_j = hi_j − lo_j`, or 1 where constant.
pub(super) fn column_ranges(g: &MemgGroup, timesteps: usize) -> Vec<(f64, f64)> {
    let r = g.basis_len;
    (0..r)
        .map(|j| {
            let column = (0..timesteps).map(|t| f64::from(g.coeffs[t * r + j]));
            let (lo, hi) = column.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| {
                (lo.min(q), hi.max(q))
            });
            if timesteps == 0 {
                (0.0, 1.0)
            } else if hi > lo {
                (lo, hi - lo)
            } else {
                (lo, 1.0)
            }
        })
        .collect()
}

/// Vertex `i` of `g`: `mean + Σ_j U_j · c_j` (f64).
pub(super) fn shape(g: &MemgGroup, i: usize, c: impl Fn(usize) -> f64) -> [f64; 3] {
    let v3 = 3 * g.vertex_count();
    std::array::from_fn(|axis| {
        let row = 3 * i + axis;
        let mut x = f64::from(g.mean[row]);
        for j in 0..g.basis_len {
            x += f64::from(g.basis[j * v3 + row]) * c(j);
        }
        x
    })
}

/// The parent frame of `g` decomposed at every timestep, or `None` in world space.
pub(super) fn frames(track: &MemgTrack<'_>, g: &MemgGroup) -> Result<Option<Vec<Trs>>> {
    let motion = track.motion;
    if usize::try_from(g.parent).map_or(true, |k| k >= motion.local_frames) {
        return Ok(None);
    }
    let mut out: Vec<Trs> = Vec::with_capacity(motion.timesteps);
    for t in 0..motion.timesteps {
        let m = motion.frame(t, g.parent).expect("frame within the motion");
        let mut trs = decompose(m).map_err(|why| {
            let hint = match why {
                NotRigid::NotFinite => "",
                _ => "; glTF moves a node only by a rotation and a positive scale: export with --baked",
            };
            refuse(
                &track.file,
                format!("group '{}': parent frame {} at timestep {t} {why}{hint}", g.name, g.parent),
            )
        })?;
        trs.rotation = continuous(trs.rotation, out.last().map(|p| p.rotation));
        // Stored as f32: a finite double past f32's range is refused too.
        let time_s = clock::time_of(t as u64, 1.0 / f64::from(motion.fps.max(1)));
        for (part, v) in [("translation", trs.translation), ("scale", trs.scale)] {
            for (axis, x) in ["x", "y", "z"].iter().zip(v.to_array()) {
                finite::to_f32(x, Path::new(&track.file), time_s, || {
                    format!("group '{}' parent frame {} {part} {axis}", g.name, g.parent)
                })?;
            }
        }
        out.push(trs);
    }
    Ok(Some(out))
}

/// At each timestep, the largest distance of a vertex of `groups` (every
/// one of theirs, at `p + U·q_t`) from the origin of the frame they share:
/// how far a change to the frame's rotation can carry one.
pub(super) fn frame_radius(motion: &MemgMotion, groups: &[usize]) -> Vec<f64> {
    (0..motion.timesteps)
        .into_par_iter()
        .map(|t| {
            let farthest = |g: &MemgGroup| {
                let q = &g.coeffs[t * g.basis_len..(t + 1) * g.basis_len];
                (0..g.vertex_count())
                    .map(|i| {
                        let x = shape(g, i, |j| f64::from(q[j]));
                        (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt()
                    })
                    .fold(0.0, f64::max)
            };
            groups
                .iter()
                .map(|&gi| farthest(&motion.groups[gi]))
                .fold(0.0, f64::max)
        })
        .collect()
}

/// What every group's mesh shares: who moves each `.obj` vertex (and the
/// other groups' copies of a vertex on a seam), which group each triangle
/// follows, the first timestep's normals.
pub(super) struct Layout {
    pub(super) owner: Vec<Option<(usize, usize)>>,
    pub(super) copies: HashMap<(usize, u32), usize>,
    pub(super) tri_owner: Vec<Option<usize>>,
    pub(super) normals: Vec<[f32; 3]>,
}

impl Layout {
    /// Group `gi`'s index of `.obj` vertex `v`, which it moves.
    pub(super) fn local(&self, gi: usize, v: u32) -> usize {
        match self.owner[v as usize] {
            Some((g, i)) if g == gi => i,
            _ => self.copies.get(&(gi, v)).copied().unwrap_or(0),
        }
    }
}

/// The time of every timestep, seconds: built only for a group that is
/// animated, whose `Q` or frames hold that many timesteps' data.
pub(super) fn key_times(motion: &MemgMotion) -> Vec<f32> {
    let fps = f64::from(motion.fps.max(1));
    (0..motion.timesteps)
        .map(|t| clock::time_of(t as u64, 1.0 / fps) as f32)
        .collect()
}

/// What a group's mesh keeps to undo its weights' scaling (see the module's).
pub(super) fn mesh_extras(g: &MemgGroup, range: &[(f64, f64)]) -> json::Extras {
    extras(json!({
        "targetNames": (0..g.basis_len).map(|j| format!("q{j}")).collect::<Vec<_>>(),
        "memg": {
            "group": g.name,
            "parentFrame": g.parent,
            "lo": range.iter().map(|c| single(c.0)).collect::<Vec<_>>(),
            "scale": range.iter().map(|c| single(c.1)).collect::<Vec<_>>(),
        },
    }))
}

/// `x` written with the digits of the nearest `f32` (about 9, not 17):
/// the precision of the arrays it describes, and of a reader's floats.
/// Beyond an `f32`'s range, `x` as it is.
fn single(x: f64) -> serde_json::Value {
    let near = x as f32;
    let short: f64 = match near.is_finite() {
        true => near.to_string().parse().unwrap_or(x),
        false => x,
    };
    serde_json::Number::from_f64(short).map_or(serde_json::Value::Null, Into::into)
}

/// The refusal of a group whose `what` is not finite (glTF floats must be).
pub(super) fn not_finite(track: &MemgTrack<'_>, g: &MemgGroup, what: &str) -> crate::error::Error {
    refuse(
        &track.file,
        format!(
            "group '{}': its {what} has a value that is not a finite number",
            g.name
        ),
    )
}

/// Sets `node`'s transform to the first of `trs` and animates each part of
/// it that changes (LINEAR; rotations slerp).
pub(super) fn animate_trs(
    doc: &mut Document<'_>,
    node: Index<json::Node>,
    times: &[f32],
    trs: &[Trs],
) {
    animate_trs_with(doc, node, times, trs, false);
}

/// [`animate_trs`], the rotations' keys as normalized `i16` if
/// `rotations16` (glTF 2.0 allows it; see `keys::rotation_rounding`).
pub(super) fn animate_trs_with(
    doc: &mut Document<'_>,
    node: Index<json::Node>,
    times: &[f32],
    trs: &[Trs],
    rotations16: bool,
) {
    if trs.is_empty() {
        return;
    }
    let translations: Vec<[f32; 3]> = trs
        .iter()
        .map(|x| x.translation.as_vec3().to_array())
        .collect();
    let rotations: Vec<[f32; 4]> = trs.iter().map(|x| quat_f32(x.rotation)).collect();
    let scales: Vec<[f32; 3]> = trs.iter().map(|x| x.scale.as_vec3().to_array()).collect();
    let n = &mut doc.root.nodes[node.value()];
    n.translation = Some(translations[0]);
    n.rotation = Some(json::scene::UnitQuaternion(rotations[0]));
    n.scale = Some(scales[0]);
    if translations.iter().any(|t| *t != translations[0]) {
        doc.animate(
            node,
            Property::Translation,
            times,
            &translations,
            Interpolation::Linear,
        );
    }
    if rotations.iter().any(|r| *r != rotations[0]) {
        if rotations16 {
            let stored: Vec<[i16; 4]> =
                trs.iter().map(|x| rounding::rotation(x.rotation)).collect();
            let output = doc.normalized(&stored, None, false);
            doc.channel(node, Property::Rotation, times, output);
        } else {
            let linear = Interpolation::Linear;
            doc.animate(node, Property::Rotation, times, &rotations, linear);
        }
    }
    if scales.iter().any(|s| *s != scales[0]) {
        doc.animate(node, Property::Scale, times, &scales, Interpolation::Linear);
    }
}

/// A unit quaternion as glTF's (x, y, z, w) in `f32`.
pub(crate) fn quat_f32(q: DQuat) -> [f32; 4] {
    q.normalize().as_quat().to_array()
}

#[cfg(test)]
mod tests {
    use super::single;

    #[test]
    fn extras_keep_an_f32_s_digits_and_larger_numbers_their_own() {
        assert_eq!(single(f64::from(0.1f32)).to_string(), "0.1");
        assert_eq!(single(1.0 / 3.0).to_string(), "0.33333334");
        assert_eq!(single(1e40).as_f64(), Some(1e40));
        assert_eq!(single(f64::NAN), serde_json::Value::Null);
    }
}
