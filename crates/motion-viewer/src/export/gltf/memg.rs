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

use gltf_json as json;
use json::{Index, buffer::Target};

use std::collections::HashMap;
use std::rc::Rc;

use super::accessors::bounds;
use super::document::{Document, placed, refuse};
use super::memg_track::{
    Layout, MemgTrack, animate_trs, animate_trs_with, column_ranges, frames, key_times,
    mesh_extras, not_finite, shape,
};
use super::obj_mesh::{Part, Shared, parts, smooth_normals};
use super::quantized;
use crate::anim::memg::Binding;
use crate::anim::rigid::Trs;
use crate::error::Result;
use crate::formats::memg::{MemgGroup, MemgMotion};
use crate::formats::obj::ObjScene;

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
    let mut sharing: HashMap<usize, Vec<usize>> = HashMap::new();
    for gi in 0..motion.groups.len() {
        if let Some(k) = framed(gi) {
            sharing.entry(k).or_default().push(gi);
        }
    }
    // A shared frame's keys, and what its rotations in 16 bits cost each
    // of its groups (`None`: `f32`), in the frames' order.
    let mut shared_frames: HashMap<usize, (Vec<Trs>, Option<f64>)> = HashMap::new();
    for k in 0..motion.local_frames {
        let Some(groups) = sharing.get(&k).filter(|groups| groups.len() > 1) else {
            continue;
        };
        if let Some(trs) = frames(track, &motion.groups[groups[0]])? {
            let rotations16 = quantized::shared_rotations(track, groups, &trs);
            shared_frames.insert(k, (trs, rotations16));
        }
    }
    let mut frame_nodes: HashMap<usize, Index<json::Node>> = HashMap::new();
    let mut quantization_error = 0f64;
    for gi in 0..motion.groups.len() {
        if track.binding.groups[gi].is_none() {
            continue;
        }
        let shared = framed(gi).filter(|k| sharing[k].len() > 1);
        let reserved = shared
            .and_then(|k| shared_frames.get(&k))
            .and_then(|&(_, rotations16)| rotations16)
            .unwrap_or(0.0);
        let group = (gi, shared.is_none(), reserved);
        let Some((node, error)) = group_node(doc, track, &layout, group)? else {
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
                        if let Some((trs, rotations16)) = shared_frames.get(&k) {
                            let times = key_times(motion);
                            animate_trs_with(doc, p, &times, trs, rotations16.is_some());
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
/// one of its vertices, `reserved` (what the frame it shares spends)
/// included; or `None` when the group owns no triangle.
fn group_node<'s>(
    doc: &mut Document<'s>,
    track: &MemgTrack<'s>,
    layout: &Layout,
    (gi, own_frame, reserved): (usize, bool, f64),
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
        let group = (gi, own_frame, reserved);
        return quantized::group(doc, track, layout, group, &group_parts, &range).map(Some);
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
