//! A MEMG scene, baked (`--baked`): for viewers that cap morph targets (the
//! glTF spec promises only 8 at once) or other tools that want plain meshes.
//!
//! Every timestep is its own mesh, in the track's coordinates (no node
//! transform, no morph target), on its own node `frame N`: positions as the
//! viewer's deformer gives them, normals smooth at that timestep, indices,
//! texture coordinates and materials shared by all frames. Each frame's node
//! is shown (scale 1) from its timestep until the next and hidden (scale 0)
//! otherwise, by a STEP scale channel; without animation only `frame 0` shows.
//!
//! The frames are produced twice — once to measure each accessor's bounds,
//! which the JSON needs first, once while the buffer is written — so even a
//! long motion streams to disk without being held in memory.

use std::cell::RefCell;
use std::rc::Rc;

use gltf_json as json;
use json::Index;
use json::animation::{Interpolation, Property};

use super::accessors::bounds;
use super::document::{Document, placed, refuse};
use super::memg_track::MemgTrack;
use super::obj_mesh::{Part, Shared, parts, smooth_normals};
use crate::anim::clock;
use crate::anim::memg::Deformer;
use crate::error::Result;

/// The most timesteps `--baked` writes (one mesh each).
pub(crate) const MAX_BAKED_FRAMES: usize = 100_000;

/// The viewer's deformer and its output, shared by every frame's chunk.
struct Posed<'s> {
    track: &'s MemgTrack<'s>,
    deformer: Deformer,
    positions: Vec<[f32; 3]>,
}

impl Posed<'_> {
    /// Poses timestep `t`; returns every `.obj` vertex and its smooth normal.
    fn at(&mut self, t: usize) -> (&[[f32; 3]], Vec<[f32; 3]>) {
        let track = self.track;
        self.deformer.deform(
            track.scene,
            track.motion,
            track.binding,
            t as f64,
            &mut self.positions,
        );
        let wide: Vec<[f64; 3]> = self.positions.iter().map(|p| p.map(f64::from)).collect();
        (
            &self.positions,
            smooth_normals(&wide, &track.scene.triangles),
        )
    }
}

/// Appends the part's vertices from `all` (one per `.obj` vertex) to `out`.
fn gather(out: &mut Vec<u8>, part: &Part, all: &[[f32; 3]]) {
    for v in part.obj_vertices() {
        out.extend(all[v as usize].iter().flat_map(|x| x.to_le_bytes()));
    }
}

/// Adds the baked MEMG track to `doc`; returns its root node. `progress`
/// hears the measuring pass.
pub fn add<'s>(
    doc: &mut Document<'s>,
    track: &'s MemgTrack<'s>,
    progress: &mut dyn FnMut(f32),
) -> Result<Index<json::Node>> {
    let motion = track.motion;
    let frames = motion.timesteps.max(1);
    if frames > MAX_BAKED_FRAMES {
        return Err(refuse(
            &track.file,
            format!(
                "{frames} timesteps; --baked writes a mesh per timestep and takes at most {MAX_BAKED_FRAMES}"
            ),
        ));
    }
    let parts = parts(track.scene, |_| true);
    let shared: Vec<Shared> = parts
        .iter()
        .map(|p| Shared::new(doc, track.scene, p))
        .collect();
    let posed = Rc::new(RefCell::new(Posed {
        track,
        deformer: Deformer::new(),
        positions: Vec::new(),
    }));

    // Pass 1: every frame's bounds per part.
    let mut part_bounds = Vec::with_capacity(frames);
    for t in 0..frames {
        let mut p = posed.borrow_mut();
        let (positions, _) = p.at(t);
        if let Some(v) = positions
            .iter()
            .position(|x| x.iter().any(|c| !c.is_finite()))
        {
            return Err(refuse(
                &track.file,
                format!(
                    "timestep {t} puts .obj vertex {} at a position that is not finite",
                    v + 1
                ),
            ));
        }
        let b: Vec<_> = parts
            .iter()
            .map(|part| {
                let mine: Vec<[f32; 3]> =
                    part.obj_vertices().map(|v| positions[v as usize]).collect();
                bounds(mine)
            })
            .collect();
        part_bounds.push(b);
        progress((t + 1) as f32 / frames as f32);
    }

    // Pass 2 runs when the buffer is written: positions then normals of every part.
    let sizes: Vec<u64> = parts.iter().map(|p| 12 * p.vertices.len() as u64).collect();
    let frame_len = 2 * sizes.iter().sum::<u64>();
    let fps = f64::from(motion.fps.max(1));
    let time = |t: usize| clock::time_of(t as u64, 1.0 / fps) as f32;
    let mut children = Vec::with_capacity(frames);
    for (t, frame_bounds) in part_bounds.into_iter().enumerate() {
        let posed = Rc::clone(&posed);
        let frame_parts = parts.clone();
        let offset = doc.push_deferred(
            frame_len,
            Box::new(move |out| {
                let mut p = posed.borrow_mut();
                let (positions, normals) = p.at(t);
                for part in &frame_parts {
                    gather(out, part, positions);
                }
                for part in &frame_parts {
                    gather(out, part, &normals);
                }
            }),
        );
        let mut at = offset;
        let mut positions = Vec::with_capacity(parts.len());
        for ((part, &size), b) in parts.iter().zip(&sizes).zip(frame_bounds) {
            positions.push(doc.vec3_at(at, part.vertices.len(), Some(b)));
            at += size;
        }
        let mut primitives = Vec::with_capacity(parts.len());
        for ((part, &size), (s, pos)) in parts.iter().zip(&sizes).zip(shared.iter().zip(positions))
        {
            let normals = doc.vec3_at(at, part.vertices.len(), None);
            primitives.push(s.primitive(part, pos, normals));
            at += size;
        }
        let mesh = doc.mesh(&format!("frame {t}"), primitives);
        let node = doc.node(
            &format!("frame {t}"),
            json::Node {
                mesh: Some(mesh),
                scale: Some([if t == 0 { 1.0 } else { 0.0 }; 3]),
                ..Default::default()
            },
        );
        if frames > 1 {
            // Shown from its timestep to the next, hidden before and after.
            let (times, shown): (Vec<f32>, Vec<[f32; 3]>) = match t {
                0 => (vec![0.0, time(1)], vec![[1.0; 3], [0.0; 3]]),
                _ if t + 1 == frames => (vec![0.0, time(t)], vec![[0.0; 3], [1.0; 3]]),
                _ => (
                    vec![0.0, time(t), time(t + 1)],
                    vec![[0.0; 3], [1.0; 3], [0.0; 3]],
                ),
            };
            doc.animate(node, Property::Scale, &times, &shown, Interpolation::Step);
        }
        children.push(node);
    }
    Ok(doc.node(
        &track.name,
        json::Node {
            translation: placed(track.offset, track.scale).0,
            scale: placed(track.offset, track.scale).1,
            children: Some(children),
            ..Default::default()
        },
    ))
}
