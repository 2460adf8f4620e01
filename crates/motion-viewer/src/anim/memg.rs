//! MEMG deformation on the CPU: the reference the GPU path is checked against.
//!
//! Motion vertex i of group g at timestep t sits at
//! `T[t][parent] · (p_i + Σ_j U[3i.., j] · Q[j, t])` (docs/formats.md §3); `.obj`
//! vertices no bound group maps keep their `.obj` position.

mod between;
mod binding;
#[cfg(test)]
mod binding_tests;
mod bounds;
mod channels;
#[cfg(test)]
mod many_tests;

pub use between::{Between, steps_at};
use binding::frame_index;
pub use binding::{BindError, Binding};
pub use bounds::{bounding_box_over_time, sampled_bounding_box};
pub use channels::MemgChannel;
pub use channels::channels;

use crate::formats::memg::{MemgGroup, MemgMotion};
use crate::formats::obj::ObjScene;
use rayon::prelude::*;

/// Applies a row-major 3×4 affine transform to a point.
fn apply(m: &[f64; 12], p: [f64; 3]) -> [f64; 3] {
    [
        m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3],
        m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7],
        m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11],
    ]
}

/// Motion vertices per parallel task: enough work to amortise scheduling while
/// a chunk's accumulators (3 × 2048 f32, 24 KiB on the stack) stay in L1
/// across all basis columns.
const CHUNK_VERTICES: usize = 2048;

/// Basis columns a chunk adds per pass over its accumulators, so each
/// accumulator is loaded and stored once per four columns, not once per column.
const COLUMNS_PER_PASS: usize = 4;

/// CPU deformation with its scratch kept across frames: the blended
/// coefficients and, for groups whose mapping is not one contiguous run of
/// `.obj` vertices, the deformed positions before they are scattered.
///
/// [`deform`] is the same computation with fresh scratch; a viewer deforming
/// every frame keeps one `Deformer` and calls [`Deformer::deform`].
#[derive(Debug, Clone, Default)]
pub struct Deformer {
    /// Blended coefficients of the group being deformed.
    q: Vec<f32>,
    /// Deformed positions of a group that must be scattered through its mapping.
    local: Vec<[f32; 3]>,
    /// `.obj` vertex ranges written directly this frame (0-based, half-open).
    direct: Vec<(usize, usize)>,
}

impl Deformer {
    /// A deformer with empty scratch (it grows on the first frame).
    pub fn new() -> Deformer {
        Deformer::default()
    }

    /// Positions of every `.obj` vertex at time `t`, in timesteps: the same
    /// result as [`deform`], bit for bit, without allocating once the scratch
    /// and `out` have grown to the scene.
    ///
    /// A bound group whose mapping is one contiguous run of `.obj` vertices
    /// (the usual layout) is written straight into `out`; `.obj` rest
    /// positions are copied only for vertices outside those runs. When `out`
    /// already has one entry per `.obj` vertex it is overwritten in place.
    pub fn deform(
        &mut self,
        scene: &ObjScene,
        motion: &MemgMotion,
        binding: &Binding,
        t: f64,
        out: &mut Vec<[f32; 3]>,
    ) {
        let count = scene.positions.len();
        if out.len() != count {
            out.clear();
            out.resize(count, [0.0; 3]);
        }
        self.deform_into(scene, motion, binding, t, out);
    }

    /// [`Deformer::deform`] into a slice the caller owns (a numpy array's
    /// buffer, one frame of a larger block), which must hold exactly one
    /// entry per `.obj` vertex.
    ///
    /// # Panics
    /// When `out.len()` is not the scene's vertex count.
    pub fn deform_into(
        &mut self,
        scene: &ObjScene,
        motion: &MemgMotion,
        binding: &Binding,
        t: f64,
        out: &mut [[f32; 3]],
    ) {
        let count = scene.positions.len();
        assert_eq!(out.len(), count, "one output entry per .obj vertex");
        let Some(s) = Between::at_steps(motion, t) else {
            out.copy_from_slice(&scene.positions);
            return;
        };
        self.rest_outside_runs(scene, motion, binding, out);

        // Groups in file order, so a later group still wins a shared vertex.
        for (g, bound) in motion.groups.iter().zip(&binding.groups) {
            if bound.is_none() {
                continue;
            }
            blend(g, s, &mut self.q);
            let m = s.transform(motion, g.parent);
            match contiguous_run(&g.mapping) {
                Some((lo, hi)) => deform_group(g, &self.q, &m, &mut out[lo..hi]),
                None => self.scatter(g, &m, out),
            }
        }
    }

    /// [`Deformer::deform_into`] at each of `times` (in timesteps), the
    /// frame for `times[k]` into `out[k * count..(k + 1) * count]` (`count`
    /// the scene's vertex count): the same values, bit for bit, made chunk
    /// by chunk, each chunk of a group's basis read once for every time
    /// while it is in cache rather than the whole basis once per time.
    ///
    /// # Panics
    /// When `out.len()` is not `times.len()` × the scene's vertex count.
    pub fn deform_many(
        &mut self,
        scene: &ObjScene,
        motion: &MemgMotion,
        binding: &Binding,
        times: &[f64],
        out: &mut [[f32; 3]],
    ) {
        let count = scene.positions.len();
        assert_eq!(out.len(), times.len() * count, "one frame per time");
        if count == 0 {
            return;
        }
        let samples: Option<Vec<Between>> = times
            .iter()
            .map(|&t| Between::at_steps(motion, t))
            .collect();
        let Some(samples) = samples else {
            for frame in out.chunks_exact_mut(count) {
                frame.copy_from_slice(&scene.positions);
            }
            return;
        };
        for frame in out.chunks_exact_mut(count) {
            self.rest_outside_runs(scene, motion, binding, frame);
        }
        // Each frame's writes come in the order `deform_into` makes them:
        // rest positions, then the groups in file order.
        let mut qs = Vec::new();
        for (g, bound) in motion.groups.iter().zip(&binding.groups) {
            if bound.is_none() {
                continue;
            }
            let r = g.basis_len;
            let ms: Vec<[f64; 12]> = samples
                .iter()
                .map(|s| s.transform(motion, g.parent))
                .collect();
            qs.clear();
            for &s in &samples {
                blend(g, s, &mut self.q);
                qs.extend_from_slice(&self.q);
            }
            let Some((lo, hi)) = contiguous_run(&g.mapping) else {
                for (k, frame) in out.chunks_exact_mut(count).enumerate() {
                    self.q.clear();
                    self.q.extend_from_slice(&qs[k * r..(k + 1) * r]);
                    self.scatter(g, &ms[k], frame);
                }
                continue;
            };
            // Chunk c of the run in every frame, gathered per chunk.
            let mut chunks: Vec<Vec<&mut [[f32; 3]]>> = Vec::new();
            for frame in out.chunks_exact_mut(count) {
                for (c, chunk) in frame[lo..hi].chunks_mut(CHUNK_VERTICES).enumerate() {
                    if c == chunks.len() {
                        chunks.push(Vec::with_capacity(samples.len()));
                    }
                    chunks[c].push(chunk);
                }
            }
            let (qs, ms) = (&qs, &ms);
            chunks.into_par_iter().enumerate().for_each(|(c, frames)| {
                for (k, chunk) in frames.into_iter().enumerate() {
                    deform_chunk(g, &qs[k * r..(k + 1) * r], &ms[k], c, chunk);
                }
            });
        }
    }

    /// Group `g`'s motion vertices alone at each of `times` (in
    /// timesteps), in its mapping's order, the frame for `times[k]` into
    /// `out[k * v..(k + 1) * v]` (`v` its vertex count): the values
    /// [`Deformer::deform_many`] writes for those vertices, bit for bit, in
    /// time proportional to the group, not the scene. `false` (and `out`
    /// untouched) for a motion with no timesteps.
    ///
    /// # Panics
    /// When `out.len()` is not `times.len()` × the group's vertex count.
    #[cfg_attr(not(feature = "fit"), allow(dead_code))]
    pub(crate) fn deform_group_many(
        &mut self,
        motion: &MemgMotion,
        g: usize,
        times: &[f64],
        out: &mut [[f32; 3]],
    ) -> bool {
        let group = &motion.groups[g];
        let v = group.vertex_count();
        assert_eq!(out.len(), times.len() * v, "one group frame per time");
        if v == 0 {
            return true;
        }
        for (&t, frame) in times.iter().zip(out.chunks_exact_mut(v)) {
            let Some(s) = Between::at_steps(motion, t) else {
                return false;
            };
            blend(group, s, &mut self.q);
            deform_group(group, &self.q, &s.transform(motion, group.parent), frame);
        }
        true
    }

    /// Deforms the group `g` (mapped other than as one run) with the
    /// blended coefficients in `self.q` and writes it through its mapping.
    fn scatter(&mut self, g: &MemgGroup, m: &[f64; 12], out: &mut [[f32; 3]]) {
        self.local.resize(g.vertex_count(), [0.0; 3]);
        deform_group(g, &self.q, m, &mut self.local);
        for (&idx, &p) in g.mapping.iter().zip(&self.local) {
            out[idx as usize - 1] = p;
        }
    }

    /// Copies the `.obj` rest position of every vertex outside the runs that
    /// bound groups write directly.
    fn rest_outside_runs(
        &mut self,
        scene: &ObjScene,
        motion: &MemgMotion,
        binding: &Binding,
        out: &mut [[f32; 3]],
    ) {
        let count = scene.positions.len();
        // Which bound groups write a contiguous run of `out` directly; every
        // other `.obj` vertex starts from its rest position.
        self.direct.clear();
        for (g, bound) in motion.groups.iter().zip(&binding.groups) {
            if bound.is_some()
                && let Some(run) = contiguous_run(&g.mapping)
            {
                self.direct.push(run);
            }
        }
        self.direct.sort_unstable();
        let mut next = 0;
        for &(lo, hi) in &self.direct {
            if lo > next {
                out[next..lo].copy_from_slice(&scene.positions[next..lo]);
            }
            next = next.max(hi);
        }
        if next < count {
            out[next..].copy_from_slice(&scene.positions[next..]);
        }
    }
}

/// The group's coefficients at `s`, blended in `f64`, into `q`.
fn blend(g: &MemgGroup, s: Between, q: &mut Vec<f32>) {
    q.clear();
    q.extend((0..g.basis_len).map(|j| s.coefficient(g, j) as f32));
}

/// The 0-based half-open `.obj` range a mapping covers when it is one
/// increasing run (`m, m+1, …`), `None` otherwise or when empty.
fn contiguous_run(mapping: &[u32]) -> Option<(usize, usize)> {
    let first = *mapping.first()?;
    let contiguous = mapping
        .iter()
        .zip(first..)
        .all(|(&m, expected)| m == expected);
    let lo = (first as usize).checked_sub(1)?;
    contiguous.then_some((lo, lo + mapping.len()))
}

/// Deforms every motion vertex of `g` into `dst` (one entry per motion
/// vertex) with blended coefficients `q` and parent transform `m`.
///
/// Work is split into vertex chunks with rayon; each chunk walks the
/// column-major basis [`COLUMNS_PER_PASS`] columns at a time, so every read is
/// contiguous. Each accumulator adds the columns in order 0, 1, 2, …, the same
/// sums in the same order as one column per pass.
fn deform_group(g: &MemgGroup, q: &[f32], m: &[f64; 12], dst: &mut [[f32; 3]]) {
    if dst.len() <= CHUNK_VERTICES {
        // One chunk: on this thread (handing it to the pool costs more
        // than a small group's whole deformation).
        deform_chunk(g, q, m, 0, dst);
        return;
    }
    dst.par_chunks_mut(CHUNK_VERTICES)
        .enumerate()
        .for_each(|(c, chunk)| deform_chunk(g, q, m, c, chunk));
}

/// Deforms chunk `c` (of [`CHUNK_VERTICES`] motion vertices) of `g` into
/// `chunk`: the accumulators start at the mean pose, add the basis columns
/// in order, then take the parent transform.
fn deform_chunk(g: &MemgGroup, q: &[f32], m: &[f64; 12], c: usize, chunk: &mut [[f32; 3]]) {
    let v = g.vertex_count();
    let lo = 3 * c * CHUNK_VERTICES;
    let rows = 3 * chunk.len();
    let mut acc_buf = [0f32; 3 * CHUNK_VERTICES];
    let acc = &mut acc_buf[..rows];
    acc.copy_from_slice(&g.mean[lo..lo + rows]);
    let col = |j: usize| &g.basis[j * 3 * v + lo..j * 3 * v + lo + rows];
    let mut quads = q.chunks_exact(COLUMNS_PER_PASS);
    let mut j = 0;
    for qs in quads.by_ref() {
        let (c0, c1, c2, c3) = (col(j), col(j + 1), col(j + 2), col(j + 3));
        let (q0, q1, q2, q3) = (qs[0], qs[1], qs[2], qs[3]);
        for i in 0..rows {
            let mut a = acc[i];
            a += c0[i] * q0;
            a += c1[i] * q1;
            a += c2[i] * q2;
            a += c3[i] * q3;
            acc[i] = a;
        }
        j += COLUMNS_PER_PASS;
    }
    for &qj in quads.remainder() {
        for (a, &u) in acc.iter_mut().zip(col(j)) {
            *a += u * qj;
        }
        j += 1;
    }
    for (p, a) in chunk.iter_mut().zip(acc.chunks_exact(3)) {
        let w = apply(m, [a[0].into(), a[1].into(), a[2].into()]);
        *p = [w[0] as f32, w[1] as f32, w[2] as f32];
    }
}

/// Positions of every `.obj` vertex at time `t`, in timesteps (fast path).
///
/// A fractional `t` is sampled by the one rule of [`Between`]: coefficients
/// blend linearly between the two timesteps around it and the local frames
/// interpolate as glTF interpolates a node. A GPU deformer samples the same
/// way to match this reference. `t` is clamped to the motion's timesteps; a
/// motion with none leaves the `.obj` pose.
///
/// This is [`Deformer::deform`] with fresh scratch; groups mapped onto one
/// contiguous run of `.obj` vertices need none, others allocate their scratch
/// per call. Keep a [`Deformer`] to deform frame after frame.
pub fn deform(
    scene: &ObjScene,
    motion: &MemgMotion,
    binding: &Binding,
    t: f64,
    out: &mut Vec<[f32; 3]>,
) {
    Deformer::new().deform(scene, motion, binding, t, out);
}

/// Positions of every `.obj` vertex at time `t`, in plain `f64` loops: the
/// independent reference [`deform`] and the GPU path are tested against.
/// Same sampling rules as [`deform`].
pub fn deform_reference_f64(
    scene: &ObjScene,
    motion: &MemgMotion,
    binding: &Binding,
    t: f64,
) -> Vec<[f64; 3]> {
    let mut out: Vec<[f64; 3]> = scene
        .positions
        .iter()
        .map(|p| [p[0].into(), p[1].into(), p[2].into()])
        .collect();
    let Some(s) = Between::at_steps(motion, t) else {
        return out;
    };
    for (g, bound) in motion.groups.iter().zip(&binding.groups) {
        if bound.is_none() {
            continue;
        }
        let v = g.vertex_count();
        let r = g.basis_len;
        let m = s.transform(motion, g.parent);
        for i in 0..v {
            let mut p = [0f64; 3];
            for (axis, x) in p.iter_mut().enumerate() {
                let row = 3 * i + axis;
                *x = f64::from(g.mean[row]);
                for j in 0..r {
                    *x += f64::from(g.basis[j * 3 * v + row]) * s.coefficient(g, j);
                }
            }
            out[g.mapping[i] as usize - 1] = apply(&m, p);
        }
    }
    out
}

/// The smallest box holding `positions`, `None` when there are none.
pub fn bounding_box(positions: &[[f32; 3]]) -> Option<([f32; 3], [f32; 3])> {
    let first = *positions.first()?;
    Some(positions.iter().fold((first, first), |(lo, hi), p| {
        (
            std::array::from_fn(|a| lo[a].min(p[a])),
            std::array::from_fn(|a| hi[a].max(p[a])),
        )
    }))
}
