//! A reduced MEMG group's mesh in 16-bit integers (`--quantize`;
//! `KHR_mesh_quantization`): about half the bytes of `f32`, the error it
//! adds measured at every vertex and timestep.
//!
//! The group's mesh (base positions, morph targets) is stored in units of
//! `unit` about `center`, both `f32`, on a node of their own under the
//! group's (translation `center`, scale `unit`), so that every stored
//! coordinate lies in [−1, 1]: positions and targets as normalized `i16`,
//! normals as normalized `i8`, each vertex padded to 4 bytes as glTF asks.
//! Target j is stretched by `stretch_j = unit / max|target_j| ≥ 1` to use
//! all its bits and its weight divided by the same (so weights stay
//! in [0, 1] for Blender, which clamps shape-key values there), the weights
//! written as normalized `u16`. A reader dequantizes `i16` as `max(q /
//! 32767, −1)`, `i8` as `max(q / 127, −1)` and `u16` as `q / 65535`
//! (glTF 2.0, "Accessors").
//!
//! Given a tolerance (the distance the caller can spare), the targets that
//! move vertices least are stored in 8 bits instead, smallest first: as
//! many as the most their rounding could move a vertex, summed, allows
//! within half of it, then (where measuring is cheap, [`MEASURED_CHOICE`])
//! more while the error measured stays within [`NARROW_SHARE`] of it; over
//! the tolerance every target goes back to 16 bits.
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
use rayon::prelude::*;

use super::document::Document;
use super::keys;
use super::memg_track::{
    Layout, MemgTrack, animate_trs_with, frame_radius, frames, key_times, mesh_extras, not_finite,
    shape,
};
use super::obj_mesh::{Part, Shared};
use super::rounding::{I8, U16, byte, normal, short, unbyte, unshort};
use crate::anim::rigid::Trs;
use crate::error::Result;

/// How one group's mesh is quantized.
pub(super) struct Quantizer {
    /// The node's translation: the middle of the base positions' box.
    pub center: [f32; 3],
    /// The node's uniform scale: the largest half side of that box or
    /// absolute target coordinate, so every stored value is within ±1.
    pub unit: f32,
    /// Per target, the factor it is stretched by (its weight shrunk by).
    stretch: Vec<f64>,
    /// Per target, its largest absolute coordinate (at full weight).
    largest: Vec<f64>,
    /// Per target, whether it is stored in 8 bits (else 16).
    narrow: Vec<bool>,
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

/// The targets in order of their largest coordinate, smallest first.
fn smallest_first(largest: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..largest.len()).collect();
    order.sort_by(|&a, &b| largest[a].total_cmp(&largest[b]));
    order
}

impl Quantizer {
    /// The quantizer of group `g`'s vertices `rows` (`3 ×` its index of
    /// each), whose base is `base(row)` and target j `target(j, row)`, its
    /// smaller targets in 8 bits within `tolerance` (none if `None`).
    pub(super) fn new(
        rows: &[usize],
        targets: usize,
        base: impl Fn(usize) -> [f64; 3],
        target: impl Fn(usize, usize) -> [f64; 3],
        tolerance: Option<f64>,
    ) -> Quantizer {
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for &row in rows {
            let p = base(row);
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        let center: [f32; 3] = std::array::from_fn(|a| {
            if rows.is_empty() {
                0.0
            } else {
                (0.5 * (lo[a] + hi[a])) as f32
            }
        });
        // The half side about the f32 center actually written.
        let mut unit = (0..3)
            .filter(|_| !rows.is_empty())
            .map(|a| {
                let c = f64::from(center[a]);
                (hi[a] - c).max(c - lo[a])
            })
            .fold(0f64, f64::max);
        let largest: Vec<f64> = (0..targets)
            .map(|j| {
                rows.iter()
                    .flat_map(|&row| target(j, row))
                    .fold(0f64, |m, x| m.max(x.abs()))
            })
            .collect();
        unit = largest.iter().copied().fold(unit, f64::max);
        // Rounded up to an f32 no smaller, and never zero.
        let mut unit32 = unit as f32;
        if f64::from(unit32) < unit {
            unit32 = unit32.next_up();
        }
        if unit32 <= 0.0 || !unit32.is_finite() {
            unit32 = 1.0;
        }
        let u = f64::from(unit32);
        let stretch = largest
            .iter()
            .map(|&m| if m > 0.0 { u / m } else { 1.0 })
            .collect();
        // 8 bits for the smallest targets while the most their rounding
        // (half a step of each of three coordinates, at full weight) could
        // move a vertex, summed, is within half the tolerance.
        let count = match tolerance {
            Some(tolerance) => {
                let mut spent = 0.0;
                smallest_first(&largest)
                    .iter()
                    .take_while(|&&j| {
                        spent += largest[j] * 0.5 / I8 * 3f64.sqrt();
                        spent <= 0.5 * tolerance
                    })
                    .count()
            }
            None => 0,
        };
        let mut q = Quantizer {
            center,
            unit: unit32,
            stretch,
            narrow: vec![false; targets],
            largest,
        };
        q.narrow_smallest(count);
        q
    }

    /// How many targets are stored in 8 bits.
    pub(super) fn narrowed(&self) -> usize {
        self.narrow.iter().filter(|&&n| n).count()
    }

    /// The `count` targets that move vertices least in 8 bits, the others
    /// in 16.
    pub(super) fn narrow_smallest(&mut self, count: usize) {
        self.widen();
        for &j in smallest_first(&self.largest).iter().take(count) {
            self.narrow[j] = true;
        }
    }

    /// Every target back in 16 bits.
    pub(super) fn widen(&mut self) {
        self.narrow.iter_mut().for_each(|n| *n = false);
    }

    /// Whether target `j` is stored in 8 bits (else 16).
    pub(super) fn narrow(&self, j: usize) -> bool {
        self.narrow[j]
    }

    /// A base position, stored.
    pub(super) fn position(&self, p: [f64; 3]) -> [i16; 3] {
        let u = f64::from(self.unit);
        std::array::from_fn(|a| short((p[a] - f64::from(self.center[a])) / u))
    }

    /// Target `j`'s vertex, stored in 16 bits.
    pub(super) fn target(&self, j: usize, d: [f64; 3]) -> [i16; 3] {
        let scale = self.stretch[j] / f64::from(self.unit);
        d.map(|x| short(x * scale))
    }

    /// Target `j`'s vertex, stored in 8 bits.
    pub(super) fn target8(&self, j: usize, d: [f64; 3]) -> [i8; 3] {
        let scale = self.stretch[j] / f64::from(self.unit);
        d.map(|x| byte(x * scale))
    }

    /// Target `j`'s vertex as a reader reads it back, in the group's units.
    fn read_target(&self, j: usize, d: [f64; 3]) -> [f64; 3] {
        let u = f64::from(self.unit);
        match self.narrow[j] {
            true => self.target8(j, d).map(|q| u * unbyte(q)),
            false => self.target(j, d).map(|q| u * unshort(q)),
        }
    }

    /// Weight `w` (in [0, 1]) of target `j`, stored.
    pub(super) fn weight(&self, j: usize, w: f64) -> u16 {
        ((w / self.stretch[j]) * U16).round().clamp(0.0, U16) as u16
    }

    /// The largest distance, any of `rows` at any of `timesteps`, between
    /// the mesh a reader dequantizes and the exact `base + Σ_j w_j(t)·target_j`
    /// (`weight(t, j)` the exact weight in [0, 1]); and at each timestep the
    /// largest distance of an exact vertex from the group's origin.
    pub(super) fn error(
        &self,
        rows: &[usize],
        timesteps: usize,
        targets: usize,
        base: impl Fn(usize) -> [f64; 3] + Sync,
        target: impl Fn(usize, usize) -> [f64; 3] + Sync,
        weight: impl Fn(usize, usize) -> f64 + Sync,
    ) -> (f64, Vec<f64>) {
        let u = f64::from(self.unit);
        // Each vertex's stored and exact base and targets, once.
        let vertex = |row: usize| {
            let p = base(row);
            let qp = self.position(p);
            let stored: Vec<[f64; 3]> = (0..targets)
                .map(|j| self.read_target(j, target(j, row)))
                .collect();
            let exact: Vec<[f64; 3]> = (0..targets).map(|j| target(j, row)).collect();
            let read = std::array::from_fn::<f64, 3, _>(|a| {
                f64::from(self.center[a]) + u * unshort(qp[a])
            });
            (p, read, exact, stored)
        };
        let weights: Vec<(Vec<f64>, Vec<f64>)> = (0..timesteps)
            .map(|t| {
                let exact: Vec<f64> = (0..targets).map(|j| weight(t, j)).collect();
                let read = exact
                    .iter()
                    .enumerate()
                    .map(|(j, &w)| f64::from(self.weight(j, w)) / U16)
                    .collect();
                (exact, read)
            })
            .collect();
        let length = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        rows.par_iter()
            .fold(
                || (0f64, vec![0f64; timesteps]),
                |(mut worst, mut radius), &row| {
                    let (p, read, exact, stored) = vertex(row);
                    for (t, (w, wq)) in weights.iter().enumerate() {
                        let (mut x, mut y) = (p, read);
                        for a in 0..3 {
                            for j in 0..targets {
                                x[a] += w[j] * exact[j][a];
                                y[a] += wq[j] * stored[j][a];
                            }
                        }
                        worst = worst.max(length([y[0] - x[0], y[1] - x[1], y[2] - x[2]]));
                        radius[t] = radius[t].max(length(x));
                    }
                    (worst, radius)
                },
            )
            .reduce(
                || (0f64, vec![0f64; timesteps]),
                |(a, ra), (b, rb)| {
                    let radius = ra.iter().zip(&rb).map(|(x, y)| x.max(*y)).collect();
                    (a.max(b), radius)
                },
            )
    }
}

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
    let mut q = Quantizer::new(&rows, r, base, target, tolerance);
    let (mut error, mut radius) = q.error(&rows, n, r, base, target, weight);
    if let Some(tolerance) = tolerance {
        if error > tolerance && q.narrowed() > 0 {
            q.widen();
            (error, radius) = q.error(&rows, n, r, base, target, weight);
        }
        // The sum above assumes every rounding at its worst, in the same
        // direction: more targets go to 8 bits while the error measured
        // stays within that half (the counts searched by halving).
        if (rows.len() * n).saturating_mul(r) <= MEASURED_CHOICE {
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
    let blend = |a: usize, b: usize, t: usize| {
        let frame = frames
            .as_deref()
            .map_or(0.0, |f| keys::frame_error(f, a, b, t, radius[t]));
        frame + frame_scale * keys::weights_error(a, b, t, &largest, weight)
    };
    // The frame's rotations in 16 bits where what their rounding moves a
    // vertex fits in what the mesh left of the tolerance (8 bytes a key for
    // certain, where dropping keys rarely gains once a fit has spent its
    // bound); the keys get the rest.
    let spent = frame_scale * error;
    let rotations16 = match (&frames, tolerance) {
        (Some(f), Some(tolerance)) => {
            let rounding = keys::rotation_rounding(f, &radius);
            (rounding <= tolerance - spent).then_some(rounding)
        }
        _ => None,
    };
    let spent = spent + rotations16.unwrap_or(0.0);
    let mut kept = match tolerance {
        Some(tolerance) => keys::reduce(n, tolerance - spent, blend),
        None => (0..n).collect(),
    };
    // Fewer keys need times of their own (4 bytes a key; every timestep's
    // are shared with the other groups): kept only where that still saves.
    let frame_key = match rotations16 {
        Some(_) => 20,
        None => 28,
    };
    let per_key = 2 * r + if frames.is_some() { frame_key } else { 0 };
    if (4 + per_key) * kept.len() >= per_key * n {
        kept = (0..n).collect();
    }
    error = reserved + spent + keys::worst(&kept, blend);

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
    let weights: Vec<[u16; 1]> = kept
        .iter()
        .flat_map(|&t| (0..r).map(move |j| (t, j)))
        .map(|(t, j)| [q.weight(j, weight(t, j))])
        .collect();
    let mesh = doc.mesh(&g.name, primitives);
    let m = &mut doc.root.meshes[mesh.value()];
    if r > 0 && n > 0 {
        m.weights = Some(
            weights[..r]
                .iter()
                .map(|w| (f64::from(w[0]) / U16) as f32)
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
        let output = doc.normalized(&weights, None, false);
        doc.channel(holder, Property::MorphTargetWeights, &times, output);
    }
    if let Some(trs) = frames {
        let trs: Vec<_> = kept.iter().map(|&t| trs[t]).collect();
        animate_trs_with(doc, node, &times, &trs, rotations16.is_some());
    }
    Ok((node, error))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two vertices (rows 0 and 3)…
    const ROWS: [usize; 2] = [0, 3];

    /// …at (1, 2, 3) and (3, 2, 3)…
    fn base(row: usize) -> [f64; 3] {
        if row == 0 {
            [1.0, 2.0, 3.0]
        } else {
            [3.0, 2.0, 3.0]
        }
    }

    /// …one target moving the second by up to 0.5 along x.
    fn target(_j: usize, row: usize) -> [f64; 3] {
        if row == 0 { [0.0; 3] } else { [0.5, 0.0, 0.0] }
    }

    #[test]
    fn every_stored_value_is_within_one_unit_of_the_center() {
        let q = Quantizer::new(&ROWS, 1, base, target, None);
        assert_eq!(q.center, [2.0, 2.0, 3.0]);
        assert_eq!(q.unit, 1.0);
        // The ends of the box at ±1, the target stretched to fill 16 bits.
        assert_eq!(q.position(base(0)), [-32767, 0, 0]);
        assert_eq!(q.position(base(3)), [32767, 0, 0]);
        assert_eq!(q.target(0, target(0, 3)), [32767, 0, 0]);
        // Its weight halved: 0.5 of the stretched target is the whole move.
        assert_eq!(q.weight(0, 1.0), 32768);
    }

    #[test]
    fn the_error_is_the_largest_distance_the_rounding_makes() {
        let q = Quantizer::new(&ROWS, 1, base, target, None);
        // w = 1/3: the read weight round(65535/6)/65535 times the stretched
        // target (1.0) against the exact 1/3 · 0.5.
        let (e, radius) = q.error(&ROWS, 1, 1, base, target, |_, _| 1.0 / 3.0);
        // The second vertex at (3 + 0.5/3, 2, 3).
        assert!((radius[0] - (3.0f64 + 0.5 / 3.0).hypot(2.0).hypot(3.0)).abs() < 1e-12);
        let read = (65535.0f64 / 6.0).round() / 65535.0;
        assert!((e - (read - 0.5 / 3.0).abs()).abs() < 1e-12, "{e}");
        assert!(e > 0.0 && e < 1e-5);
    }

    #[test]
    fn the_smaller_targets_go_to_8_bits_within_half_the_tolerance() {
        // Target 0 moves the second vertex by 0.5, target 1 the first by
        // 0.003 and the second by 0.01.
        let two = |j: usize, row: usize| match (j, row) {
            (0, 0) => [0.0; 3],
            (0, _) => [0.5, 0.0, 0.0],
            (_, 0) => [0.0, 0.003, 0.0],
            _ => [0.0, 0.01, 0.0],
        };
        // Half a step of 8 bits of each coordinate: 0.01 · 0.5/127 · √3
        // for target 1, 0.5 · 0.5/127 · √3 for target 0.
        let small = 0.01 * 0.5 / 127.0 * 3f64.sqrt();
        let big = 0.5 * 0.5 / 127.0 * 3f64.sqrt();
        let narrow = |tolerance: Option<f64>| {
            let q = Quantizer::new(&ROWS, 2, base, two, tolerance);
            [q.narrow(0), q.narrow(1)]
        };
        assert_eq!(narrow(None), [false, false]);
        assert_eq!(narrow(Some(1.9 * small)), [false, false]);
        assert_eq!(narrow(Some(2.1 * small)), [false, true]);
        assert_eq!(narrow(Some(2.1 * (small + big))), [true, true]);
        // In 8 bits, target 1 is read back within half an 8-bit step of it.
        let q = Quantizer::new(&ROWS, 2, base, two, Some(2.1 * small));
        let (e, _) = q.error(&ROWS, 1, 2, base, two, |_, _| 1.0);
        assert!(e > 1e-6 && e <= small, "{e}");
    }
}
