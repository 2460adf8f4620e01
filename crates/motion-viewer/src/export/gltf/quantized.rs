//! A reduced MEMG group's mesh in 16-bit integers (`--quantize`;
//! `KHR_mesh_quantization`): about half the bytes of `f32`, the error it
//! adds measured at every vertex and timestep.
//!
//! How the mesh is stored, and what storing it so costs, is
//! `quantizer.rs`'s ([`Quantizer`]); here the ways are chosen and the
//! group written.
//!
//! Given a tolerance (the distance the caller can spare), the targets that
//! move vertices least are stored in 8 bits instead, smallest first: as
//! many as the most their rounding could move a vertex, summed, allows
//! within half of it, then (where measuring is cheap, [`MEASURED_CHOICE`])
//! more while the error measured stays within [`NARROW_SHARE`] of it; over
//! the tolerance every target goes back to 16 bits.
//!
//! Where measuring is cheap, the group's weights may go to normalized `u8`
//! instead (a byte a weight and key less, the targets stretched less).
//! That way is taken where its error measured is within [`NARROW_SHARE`]
//! of the tolerance and the group, keys and all, takes fewer bytes (the
//! dancer's small parts at 1e-3 of its diagonal: BENCHMARKS.md, "Weights
//! in 8 bits, and views by kind").
//!
//! What it costs: [`Quantizer::error`], the largest distance between the
//! dequantized mesh and the motion's own (the `f64` sum `mean + U·q_t`),
//! any vertex and timestep, in the group's frame. What the tolerance leaves
//! after that goes first to the group's frame's rotations, stored as
//! normalized `i16` (8 bytes a key less) where their rounding
//! ([`keys::rotation_rounding`]) fits in it, then to dropping keys
//! ([`super::keys`]); the group's error is then the sum of the three.
//!
//! A frame several groups share is one node over theirs, written once:
//! its rotations go to 16 bits where their rounding, at the farthest
//! vertex of any of its groups, is at most [`SHARED_ROTATION_SHARE`] of
//! the tolerance ([`shared_rotations`]). That much is then taken from
//! each of its groups' tolerance before their meshes and keys spend it,
//! and counted in their errors.

use gltf_json as json;
use json::animation::Property;
use json::{Index, buffer::Target};

use super::document::Document;
use super::keys;
use super::memg_track::{
    Layout, MemgTrack, animate_trs_with, frame_radius, frames, key_times, mesh_extras, not_finite,
    shape,
};
use super::obj_mesh::{Part, Shared};
use super::quantizer::Quantizer;
use super::rounding::normal;
use crate::anim::rigid::Trs;
use crate::error::Result;

/// A group's keys, for its mesh stored one way.
struct Keyed {
    /// The timesteps keyed.
    kept: Vec<usize>,
    /// Its own frame's rotations in 16 bits: their rounding.
    rotations16: Option<f64>,
    /// The group's error: mesh, rotations and keys.
    error: f64,
    /// The bytes of its targets, weights, keys and their times.
    bytes: usize,
}

/// The most vertices × timesteps × targets for which the 8-bit targets
/// are chosen by measuring the error (a few passes over them all).
const MEASURED_CHOICE: usize = 1 << 27;

/// The share of the tolerance the mesh's rounding may take; the frame's
/// 16-bit rotations and dropping keys share the rest (of 0.5 to 0.9 tried
/// on Dem Bones' sample, 0.7 wrote the smallest files; BENCHMARKS.md,
/// "Leftovers spent").
const NARROW_SHARE: f64 = 0.7;

/// The share of the tolerance a frame several groups share may spend on
/// storing its rotations as normalized `i16` (8 bytes a key less), taken
/// from every group under it before their meshes and keys spend the rest
/// (the dancer at 1e-3 of its diagonal in 12 parts under 3 frames: 0.25
/// left its rotations in `f32` and wrote 6 % more than 0.5; 1.0 wrote
/// the same as 0.5).
const SHARED_ROTATION_SHARE: f64 = 0.5;

/// What a frame several groups share (`groups`, its keys `trs`) costs them
/// with its rotations stored as normalized `i16`: the most that moves a
/// vertex ([`keys::rotation_rounding`]), or `None` (rotations as `f32`)
/// where that is over [`SHARED_ROTATION_SHARE`] of the tolerance or there
/// is none.
pub(super) fn shared_rotations(
    track: &MemgTrack<'_>,
    groups: &[usize],
    trs: &[Trs],
) -> Option<f64> {
    let tolerance = track.tolerance.filter(|_| track.quantized)?;
    let rounding = keys::rotation_rounding(trs, &frame_radius(track.motion, groups));
    (rounding <= SHARED_ROTATION_SHARE * tolerance).then_some(rounding)
}

/// Group `gi`'s node, quantized, over `parts` (its triangles), `range`
/// its columns' `(lo_j, s_j)`: the node the frame moves (if `own_frame`),
/// the mesh on a node under it that dequantizes; and the error, which
/// includes `reserved`, what the frame it shares with other groups spends
/// of the tolerance first ([`shared_rotations`]).
pub(super) fn group<'s>(
    doc: &mut Document<'s>,
    track: &MemgTrack<'s>,
    layout: &Layout,
    (gi, own_frame, reserved): (usize, bool, f64),
    parts: &[Part],
    range: &[(f64, f64)],
) -> Result<(Index<json::Node>, f64)> {
    let g = &track.motion.groups[gi];
    let tolerance = track.tolerance.map(|t| t - reserved);
    let (n, r) = (track.motion.timesteps, g.basis_len);
    let v3 = 3 * g.vertex_count();
    let base = |row: usize| shape(g, row / 3, |j| range[j].0);
    let target = |j: usize, row: usize| -> [f64; 3] {
        std::array::from_fn(|a| f64::from(g.basis[j * v3 + row + a]) * range[j].1)
    };
    let weight = |t: usize, j: usize| (f64::from(g.coeffs[t * r + j]) - range[j].0) / range[j].1;
    let rows_of = |part: &Part| -> Vec<usize> {
        part.obj_vertices()
            .map(|v| 3 * layout.local(gi, v))
            .collect()
    };
    let mut rows: Vec<usize> = parts.iter().flat_map(rows_of).collect();
    rows.sort_unstable();
    rows.dedup();
    let finite = |p: [f64; 3]| p.iter().all(|x| x.is_finite());
    if !rows.iter().all(|&row| finite(base(row))) {
        return Err(not_finite(track, g, "mean pose or basis"));
    }
    if !(0..r).all(|j| rows.iter().all(|&row| finite(target(j, row)))) {
        return Err(not_finite(track, g, "basis"));
    }
    let frames = match own_frame {
        true => frames(track, g)?,
        false => None,
    };
    let measured_choice = (rows.len() * n).saturating_mul(r) <= MEASURED_CHOICE;
    let settle = |weights8: bool| {
        let mut q = Quantizer::new(&rows, r, base, target, tolerance, weights8);
        let (mut error, mut radius) = q.error(&rows, n, r, base, target, weight);
        if let Some(tolerance) = tolerance {
            // 8-bit weights are kept only within the mesh's share (below).
            let limit = match weights8 {
                true => NARROW_SHARE * tolerance,
                false => tolerance,
            };
            if error > limit && q.narrowed() > 0 {
                q.widen();
                (error, radius) = q.error(&rows, n, r, base, target, weight);
            }
            // The sum in `new` assumes every rounding at its worst, in the
            // same direction: more targets go to 8 bits while the error
            // measured stays within that half (the counts searched by
            // halving).
            if measured_choice {
                let (mut lo, mut hi) = (q.narrowed(), r);
                while lo < hi {
                    let mid = lo + (hi - lo).div_ceil(2);
                    q.narrow_smallest(mid);
                    let measured = q.error(&rows, n, r, base, target, weight);
                    if measured.0 <= NARROW_SHARE * tolerance {
                        (lo, error, radius) = (mid, measured.0, measured.1);
                    } else {
                        hi = mid - 1;
                    }
                }
                q.narrow_smallest(lo);
            }
        }
        (q, error, radius)
    };
    // Keys where what is left of the tolerance allows (`keys`): the
    // weights' blend and the group's own frame's, bounded together.
    let largest: Vec<f64> = (0..r)
        .map(|j| {
            rows.iter()
                .map(|&row| {
                    let d = target(j, row);
                    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
                })
                .fold(0.0, f64::max)
        })
        .collect();
    // The frame's largest scale (1 for a rigid one), which a vertex's
    // error in the group's units is multiplied by in the parent's.
    let frame_scale = frames.as_ref().map_or(1.0, |f| {
        f.iter().map(|x| x.scale.max_element()).fold(1f64, f64::max)
    });
    // The keys for the mesh stored as `q` (its error and each timestep's
    // radius measured), and what the group then costs.
    let keyed = |q: &Quantizer, error: f64, radius: &[f64]| {
        let blend = |a: usize, b: usize, t: usize| {
            let frame = frames
                .as_deref()
                .map_or(0.0, |f| keys::frame_error(f, a, b, t, radius[t]));
            frame + frame_scale * keys::weights_error(a, b, t, &largest, weight)
        };
        // The frame's rotations in 16 bits where what their rounding moves
        // a vertex fits in what the mesh left of the tolerance (8 bytes a
        // key for certain, where dropping keys rarely gains once a fit has
        // spent its bound); the keys get the rest.
        let spent = frame_scale * error;
        let rotations16 = match (&frames, tolerance) {
            (Some(f), Some(tolerance)) => {
                let rounding = keys::rotation_rounding(f, radius);
                (rounding <= tolerance - spent).then_some(rounding)
            }
            _ => None,
        };
        let spent = spent + rotations16.unwrap_or(0.0);
        let mut kept = match tolerance {
            Some(tolerance) => keys::reduce(n, tolerance - spent, blend),
            None => (0..n).collect(),
        };
        // Fewer keys need times of their own (4 bytes a key; every
        // timestep's are shared with the other groups): kept only where
        // that still saves.
        let frame_key = match rotations16 {
            Some(_) => 20,
            None => 28,
        };
        let per_key = q.weight_bytes() * r + if frames.is_some() { frame_key } else { 0 };
        if (4 + per_key) * kept.len() >= per_key * n {
            kept = (0..n).collect();
        }
        let times = if kept.len() < n { 4 * kept.len() } else { 0 };
        Keyed {
            error: reserved + spent + keys::worst(&kept, blend),
            bytes: q.target_bytes(rows.len()) + per_key * kept.len() + times,
            kept,
            rotations16,
        }
    };
    let (q16, error16, radius16) = settle(false);
    let mut chosen = (keyed(&q16, error16, &radius16), q16);
    // Weights in 8 bits, where their rounding (a 510th of each stretched
    // target) leaves the mesh within its share of the tolerance and the
    // group, keys and all, takes fewer bytes.
    if let Some(tolerance) = tolerance.filter(|_| measured_choice && r > 0 && n > 0) {
        let (q8, error8, radius8) = settle(true);
        if error8 <= NARROW_SHARE * tolerance {
            let eight = keyed(&q8, error8, &radius8);
            if eight.bytes < chosen.0.bytes {
                chosen = (eight, q8);
            }
        }
    }
    let (
        Keyed {
            kept,
            rotations16,
            error,
            ..
        },
        q,
    ) = chosen;

    let mut primitives = Vec::with_capacity(parts.len());
    for part in parts {
        let shared = Shared::new(doc, track.scene, part);
        let rows = rows_of(part);
        let positions: Vec<[i16; 3]> = rows.iter().map(|&row| q.position(base(row))).collect();
        let normals: Vec<[i8; 3]> = part
            .obj_vertices()
            .map(|v| normal(layout.normals[v as usize]))
            .collect();
        let positions = doc.normalized(&positions, Some(Target::ArrayBuffer), true);
        let normals = doc.normalized(&normals, Some(Target::ArrayBuffer), false);
        let mut primitive = shared.primitive(part, positions, normals);
        let targets = (0..r)
            .map(|j| {
                let vertices = Some(Target::ArrayBuffer);
                let positions = if q.narrow(j) {
                    let deltas: Vec<[i8; 3]> = rows
                        .iter()
                        .map(|&row| q.target8(j, target(j, row)))
                        .collect();
                    doc.normalized(&deltas, vertices, true)
                } else {
                    let deltas: Vec<[i16; 3]> = rows
                        .iter()
                        .map(|&row| q.target(j, target(j, row)))
                        .collect();
                    doc.normalized(&deltas, vertices, true)
                };
                json::mesh::MorphTarget {
                    positions: Some(positions),
                    normals: None,
                    tangents: None,
                }
            })
            .collect();
        primitive.targets = (r > 0).then_some(targets);
        primitives.push(primitive);
    }
    let weights: Vec<u16> = kept
        .iter()
        .flat_map(|&t| (0..r).map(move |j| (t, j)))
        .map(|(t, j)| q.weight(j, weight(t, j)))
        .collect();
    let mesh = doc.mesh(&g.name, primitives);
    let m = &mut doc.root.meshes[mesh.value()];
    if r > 0 && n > 0 {
        m.weights = Some(
            weights[..r]
                .iter()
                .map(|&w| (f64::from(w) / q.levels()) as f32)
                .collect(),
        );
    }
    // The weights are `(q_j − lo_j) / (s_j · stretch_j)`: the scale that
    // undoes them, as the unquantized file's.
    let undo: Vec<(f64, f64)> = range
        .iter()
        .zip(&q.stretch)
        .map(|(&(lo, s), &stretch)| (lo, s * stretch))
        .collect();
    m.extras = mesh_extras(g, &undo);
    let unit = q.unit;
    let holder = doc.node(
        &format!("{} (16-bit)", g.name),
        json::Node {
            mesh: Some(mesh),
            translation: Some(q.center),
            scale: Some([unit; 3]),
            ..Default::default()
        },
    );
    let node = doc.node(&g.name, json::Node::default());
    doc.adopt(node, holder);
    let all_times = key_times(track.motion);
    let times: Vec<f32> = kept.iter().map(|&t| all_times[t]).collect();
    if r > 0 && n > 0 {
        let output = if q.weights8 {
            let bytes: Vec<[u8; 1]> = weights.iter().map(|&w| [w as u8]).collect();
            doc.normalized(&bytes, None, false)
        } else {
            let shorts: Vec<[u16; 1]> = weights.iter().map(|&w| [w]).collect();
            doc.normalized(&shorts, None, false)
        };
        doc.channel(holder, Property::MorphTargetWeights, &times, output);
    }
    if let Some(trs) = frames {
        let trs: Vec<_> = kept.iter().map(|&t| trs[t]).collect();
        animate_trs_with(doc, node, &times, &trs, rotations16.is_some());
    }
    Ok((node, error))
}
