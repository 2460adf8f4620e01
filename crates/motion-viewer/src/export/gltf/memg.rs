//! A MEMG scene, reduced: the motion's own model in glTF terms, no frame baked.
//!
//! Each bound motion group that owns triangles is one mesh on one node: one
//! morph target per basis column of `U`, its weights driven by `Q` (one
//! keyframe per timestep, LINEAR), the node moved by the group's parent
//! frame decomposed into translation, rotation and scale per timestep; a
//! frame several groups share moves one node over theirs (`frame K`), so
//! its keys are written once.
//! Triangles whose vertices no bound group moves form one static mesh.
//!
//! A triangle follows the group that moves its corners (the later group,
//! for a vertex two groups move, as the deformer shows it). Where its
//! corners' groups differ — a seam, where groups share the vertices they
//! meet at, as `viewer memg fit` makes them — it follows a group whose
//! mapping holds all three corners, with that group's own copy of each:
//! the group named like the triangle's `.obj` group if it is one, else the
//! latest. A triangle no one group moves whole is refused.
//!
//! **Weights in [0, 1].** Blender's importer clamps shape-key values to
//! [0, 1], and `Q` is negative about half the time. So with `lo_j`, `hi_j`
//! column j's minimum and maximum over the motion and `s_j = hi_j − lo_j`
//! (1 where the column is constant), the mesh is written as
//! `base = p + Σ_j lo_j U_j`, `target_j = s_j U_j`, `w_j(t) = (q_j(t) − lo_j) / s_j`:
//! the same shape, every weight in [0, 1]. The mesh's `extras.memg` keeps
//! `lo` and `scale` (= `s`) to undo it: `U_j = target_j / s_j`,
//! `q_j = lo_j + s_j w_j`, `p = base − Σ_j lo_j U_j`.

use glam::{DQuat, Vec3};
use gltf_json as json;
use json::animation::{Interpolation, Property};
use json::{Index, buffer::Target};
use serde_json::json;

use std::collections::HashMap;
use std::rc::Rc;

use super::document::{Document, bounds, extras, placed, refuse};
use super::obj_mesh::{Part, Shared, parts, smooth_normals};
use crate::anim::clock;
use crate::anim::memg::Binding;
use crate::anim::rigid::{NotRigid, Trs, continuous, decompose};
use crate::error::Result;
use crate::export::finite;
use crate::formats::memg::{MemgGroup, MemgMotion};
use crate::formats::obj::ObjScene;
use std::path::Path;

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

/// Which bound group (file order) moves each `.obj` vertex last, and the
/// vertex's index within it: the deformer's rule, a later group wins.
fn owners(scene: &ObjScene, motion: &MemgMotion, binding: &Binding) -> Vec<Option<(usize, usize)>> {
    let mut owner = vec![None; scene.positions.len()];
    for (gi, (g, bound)) in motion.groups.iter().zip(&binding.groups).enumerate() {
        if bound.is_none() {
            continue;
        }
        for (i, &m) in g.mapping.iter().enumerate() {
            owner[m as usize - 1] = Some((gi, i));
        }
    }
    owner
}

/// For each `.obj` vertex that more than one bound group moves, each
/// group's own index of it but the owner's: `(group, .obj vertex) → index`.
fn copies(
    motion: &MemgMotion,
    binding: &Binding,
    owner: &[Option<(usize, usize)>],
) -> HashMap<(usize, u32), usize> {
    let mut out = HashMap::new();
    for (gi, (g, bound)) in motion.groups.iter().zip(&binding.groups).enumerate() {
        if bound.is_none() {
            continue;
        }
        for (i, &m) in g.mapping.iter().enumerate() {
            if owner[m as usize - 1] != Some((gi, i)) {
                out.insert((gi, m - 1), i);
            }
        }
    }
    out
}

/// The group each triangle follows (`None`: static), or an error naming a
/// triangle no one group moves whole.
fn triangle_owners(
    track: &MemgTrack<'_>,
    owner: &[Option<(usize, usize)>],
    copies: &HashMap<(usize, u32), usize>,
) -> Result<Vec<Option<usize>>> {
    let group_of = |v: u32| owner[v as usize].map(|(g, _)| g);
    let name = |g: Option<usize>| match g {
        Some(g) => format!("group '{}'", track.motion.groups[g].name),
        None => "no group".to_string(),
    };
    let moves = |g: usize, v: u32| group_of(v) == Some(g) || copies.contains_key(&(g, v));
    let mut out = Vec::with_capacity(track.scene.triangles.len());
    for (t, tri) in track.scene.triangles.iter().enumerate() {
        let [a, b, c] = tri.map(group_of);
        if a != b || a != c {
            let obj_group = track
                .scene
                .groups
                .iter()
                .find(|g| g.triangles.contains(&t))
                .map_or("", |g| g.name.as_str());
            // A seam: a group that moves all three corners.
            let whole: Vec<usize> = (0..track.motion.groups.len())
                .filter(|&g| track.binding.groups[g].is_some() && tri.iter().all(|&v| moves(g, v)))
                .collect();
            let named = whole
                .iter()
                .copied()
                .find(|&g| track.motion.groups[g].name == obj_group);
            if let Some(g) = named.or(whole.last().copied()) {
                out.push(Some(g));
                continue;
            }
            let other = if a != b { b } else { c };
            return Err(refuse(
                &track.file,
                format!(
                    "triangle {t} of .obj group '{obj_group}' joins vertices moved by {} and by {}; \
                     a reduced glTF mesh follows one group: export with --baked",
                    name(a),
                    name(other)
                ),
            ));
        }
        out.push(a);
    }
    Ok(out)
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

/// What every group's mesh shares: who moves each `.obj` vertex (and the
/// other groups' copies of a vertex on a seam), which group each triangle
/// follows, the first timestep's normals.
pub(super) struct Layout {
    owner: Vec<Option<(usize, usize)>>,
    copies: HashMap<(usize, u32), usize>,
    tri_owner: Vec<Option<usize>>,
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

/// Adds the reduced MEMG track to `doc`; returns its root node and the
/// largest distance quantizing moved a vertex (0 unless `quantized`).
pub fn add<'s>(doc: &mut Document<'s>, track: &MemgTrack<'s>) -> Result<(Index<json::Node>, f64)> {
    let (scene, motion) = (track.scene, track.motion);
    let owner = owners(scene, motion, track.binding);
    let copies = copies(motion, track.binding, &owner);
    let tri_owner = triangle_owners(track, &owner, &copies)?;
    // Every vertex in its mesh's own frame at the first timestep: the static
    // ones where the .obj has them, a group's at p + U·q(0).
    let first: Vec<[f64; 3]> = owner
        .iter()
        .zip(&scene.positions)
        .map(|(o, p)| match *o {
            None => p.map(f64::from),
            Some((gi, i)) => {
                let g = &motion.groups[gi];
                let q0 = |j: usize| g.coeffs.get(j).map_or(0.0, |&q| f64::from(q));
                shape(g, i, q0)
            }
        })
        .collect();
    if let Some(v) = first.iter().position(|p| p.iter().any(|x| !x.is_finite())) {
        return Err(refuse(
            &track.file,
            format!(
                ".obj vertex {} is not at a finite position at the first timestep",
                v + 1
            ),
        ));
    }
    let layout = Layout {
        normals: smooth_normals(&first, &scene.triangles),
        owner,
        copies,
        tri_owner,
    };

    let mut children = Vec::new();
    let statics = parts(scene, |t| layout.tri_owner[t].is_none());
    if !statics.is_empty() {
        let primitives = statics
            .iter()
            .map(|part| {
                let positions: Vec<[f32; 3]> = part
                    .obj_vertices()
                    .map(|v| scene.positions[v as usize])
                    .collect();
                plain_primitive(doc, scene, part, &positions, &layout.normals)
            })
            .collect();
        let mesh = doc.mesh("static", primitives);
        children.push(doc.node(
            "static",
            json::Node {
                mesh: Some(mesh),
                ..Default::default()
            },
        ));
    }
    // A parent frame several groups share is one node that the frame
    // moves, over theirs: written once. A frame of one group moves that
    // group's own node.
    let framed = |gi: usize| {
        let g = &motion.groups[gi];
        usize::try_from(g.parent)
            .ok()
            .filter(|&k| k < motion.local_frames)
            .filter(|_| track.binding.groups[gi].is_some())
    };
    let mut sharing: HashMap<usize, usize> = HashMap::new();
    for gi in 0..motion.groups.len() {
        if let Some(k) = framed(gi) {
            *sharing.entry(k).or_default() += 1;
        }
    }
    let mut frame_nodes: HashMap<usize, Index<json::Node>> = HashMap::new();
    let mut quantization_error = 0f64;
    for gi in 0..motion.groups.len() {
        if track.binding.groups[gi].is_none() {
            continue;
        }
        let shared = framed(gi).filter(|k| sharing[k] > 1);
        let Some((node, error)) = group_node(doc, track, &layout, gi, shared.is_none())? else {
            continue;
        };
        quantization_error = quantization_error.max(error);
        match shared {
            None => children.push(node),
            Some(k) => {
                let parent = match frame_nodes.get(&k) {
                    Some(&p) => p,
                    None => {
                        let p = doc.node(&format!("frame {k}"), json::Node::default());
                        if let Some(trs) = frames(track, &motion.groups[gi])? {
                            animate_trs(doc, p, &key_times(motion), &trs);
                        }
                        frame_nodes.insert(k, p);
                        children.push(p);
                        p
                    }
                };
                doc.adopt(parent, node);
            }
        }
    }
    let root = doc.node(
        &track.name,
        json::Node {
            translation: placed(track.offset, track.scale).0,
            scale: placed(track.offset, track.scale).1,
            children: Some(children),
            ..Default::default()
        },
    );
    Ok((root, quantization_error))
}

/// The node of bound group `gi` with its mesh and animation (its parent
/// frame's too if `own_frame`) and the largest distance quantizing moved
/// one of its vertices, or `None` when the group owns no triangle.
fn group_node<'s>(
    doc: &mut Document<'s>,
    track: &MemgTrack<'s>,
    layout: &Layout,
    gi: usize,
    own_frame: bool,
) -> Result<Option<(Index<json::Node>, f64)>> {
    let g: &'s MemgGroup = &track.motion.groups[gi];
    let group_parts = parts(track.scene, |t| layout.tri_owner[t] == Some(gi));
    if group_parts.is_empty() {
        return Ok(None);
    }
    let (n, r) = (track.motion.timesteps, g.basis_len);
    if g.coeffs.iter().any(|q| !q.is_finite()) {
        return Err(not_finite(track, g, "Q"));
    }
    let range = column_ranges(g, n);
    if track.quantized {
        return super::quantized::group(doc, track, layout, gi, own_frame, &group_parts, &range)
            .map(Some);
    }
    let local = |v: u32| layout.local(gi, v);
    let mut primitives = Vec::with_capacity(group_parts.len());
    for part in &group_parts {
        let base: Vec<[f32; 3]> = part
            .obj_vertices()
            .map(|v| shape(g, local(v), |j| range[j].0).map(|x| x as f32))
            .collect();
        if base.iter().flatten().any(|x| !x.is_finite()) {
            return Err(not_finite(track, g, "mean pose or basis"));
        }
        let mut primitive = plain_primitive(doc, track.scene, part, &base, &layout.normals);
        let rows: Rc<Vec<usize>> = Rc::new(part.obj_vertices().map(|v| 3 * local(v)).collect());
        let targets = (0..r)
            .map(|j| target(doc, track, g, j, range[j].1, &rows))
            .collect::<Result<Vec<_>>>()?;
        primitive.targets = (r > 0).then_some(targets);
        primitives.push(primitive);
    }
    let weights: Vec<[f32; 1]> = g
        .coeffs
        .chunks_exact(r.max(1))
        .flat_map(|q| q.iter().zip(&range))
        .map(|(&q, &(lo, scale))| [((f64::from(q) - lo) / scale) as f32])
        .collect();
    let mesh = doc.mesh(&g.name, primitives);
    let m = &mut doc.root.meshes[mesh.value()];
    if r > 0 {
        m.weights = Some(weights.iter().take(r).map(|w| w[0]).collect());
    }
    m.extras = mesh_extras(g, &range);
    let node = doc.node(
        &g.name,
        json::Node {
            mesh: Some(mesh),
            ..Default::default()
        },
    );
    let frames = if own_frame { frames(track, g)? } else { None };
    if !weights.is_empty() || frames.is_some() {
        let times = key_times(track.motion);
        if !weights.is_empty() {
            doc.animate_weights(node, &times, &weights);
        }
        if let Some(trs) = frames {
            animate_trs(doc, node, &times, &trs);
        }
    }
    Ok(Some((node, 0.0)))
}

/// What a group's mesh keeps to undo its weights' scaling (see the module's).
pub(super) fn mesh_extras(g: &MemgGroup, range: &[(f64, f64)]) -> json::Extras {
    extras(json!({
        "targetNames": (0..g.basis_len).map(|j| format!("q{j}")).collect::<Vec<_>>(),
        "memg": {
            "group": g.name,
            "parentFrame": g.parent,
            "lo": range.iter().map(|c| c.0).collect::<Vec<_>>(),
            "scale": range.iter().map(|c| c.1).collect::<Vec<_>>(),
        },
    }))
}

/// Morph target `j` of a primitive whose vertices are `rows` of `g`'s `U`:
/// `scale · U_j`. Measured now and written when the file is, so the targets,
/// the bulk of the file, are never all held at once.
fn target<'s>(
    doc: &mut Document<'s>,
    track: &MemgTrack<'s>,
    g: &'s MemgGroup,
    j: usize,
    scale: f64,
    rows: &Rc<Vec<usize>>,
) -> Result<json::mesh::MorphTarget> {
    let deltas = rows.iter().map(|&row| delta(g, j, scale, row));
    if deltas.clone().flatten().any(|x| !x.is_finite()) {
        return Err(not_finite(track, g, "basis"));
    }
    let bounds = bounds(deltas);
    let count = rows.len();
    let rows = Rc::clone(rows);
    let fill = move |out: &mut Vec<u8>| {
        for &row in rows.iter() {
            out.extend(delta(g, j, scale, row).iter().flat_map(|x| x.to_le_bytes()));
        }
    };
    let positions = doc.floats_deferred::<3>(
        count,
        Some(Target::ArrayBuffer),
        Some(bounds),
        Box::new(fill),
    );
    Ok(json::mesh::MorphTarget {
        positions: Some(positions),
        normals: None,
        tangents: None,
    })
}

/// Row `row` of column `j` of the group's `U`, times `scale`: a morph target's vertex.
fn delta(g: &MemgGroup, j: usize, scale: f64, row: usize) -> [f32; 3] {
    let column = &g.basis[j * 3 * g.vertex_count()..];
    std::array::from_fn(|a| (f64::from(column[row + a]) * scale) as f32)
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

/// A primitive of `part` at `positions` with the first timestep's normals.
fn plain_primitive(
    doc: &mut Document<'_>,
    scene: &ObjScene,
    part: &Part,
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
) -> json::mesh::Primitive {
    let shared = Shared::new(doc, scene, part);
    let normals: Vec<[f32; 3]> = part.obj_vertices().map(|v| normals[v as usize]).collect();
    let positions = doc.floats(positions, Some(Target::ArrayBuffer), true);
    let normals = doc.floats(&normals, Some(Target::ArrayBuffer), false);
    shared.primitive(part, positions, normals)
}

/// Sets `node`'s transform to the first of `trs` and animates each part of
/// it that changes (LINEAR; rotations slerp).
pub(super) fn animate_trs(
    doc: &mut Document<'_>,
    node: Index<json::Node>,
    times: &[f32],
    trs: &[Trs],
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
        doc.animate(
            node,
            Property::Rotation,
            times,
            &rotations,
            Interpolation::Linear,
        );
    }
    if scales.iter().any(|s| *s != scales[0]) {
        doc.animate(node, Property::Scale, times, &scales, Interpolation::Linear);
    }
}

/// A unit quaternion as glTF's (x, y, z, w) in `f32`.
pub(crate) fn quat_f32(q: DQuat) -> [f32; 4] {
    q.normalize().as_quat().to_array()
}
