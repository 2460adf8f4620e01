//! `viewer memg fit` as one library call: a scene `.obj` and its animation
//! in, a MEMG motion file out. The work is sized before anything large is
//! read (vertices × frames, and the memory the fit will hold) and refused
//! past the caps; every error is one line naming the file; the output is
//! written through [`crate::output`], whole or not at all, and only once the
//! decoded motion has been measured within the bound.

use super::input::{AnimationSource, groups_of, read_obj_frames};
use super::split_fit::{Place, Sizing, fit_parts, scene_text};
use super::{
    Animation, FitError, FitGroup, FitOptions, FitReport, NEVER, Parts, Stop, fit_checked,
};
use crate::budget;
use crate::error::{DecodeError, Error, Result};
use crate::formats::obj::ObjScene;
use crate::formats::pc2;
use crate::open::check_not_input;
use crate::open::{Input, OpenOptions, head, open_with};
use crate::output::{OutputSet, write_atomic};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// What to fit and where to write it.
#[derive(Debug, Clone)]
pub struct FitRequest {
    /// The scene: its vertices (in order) and its `g` groups.
    pub scene: PathBuf,
    /// The animation of those vertices.
    pub animation: AnimationSource,
    /// The MEMG motion file to write.
    pub out: PathBuf,
    /// Rank or bound, frames, frame rate.
    pub options: FitOptions,
    /// Split the mesh into near-rigid parts and fit a group per part,
    /// instead of the scene's own groups; needs `out_scene`.
    pub parts: Option<Parts>,
    /// With `parts`: the scene `.obj` to write, the input's with the parts
    /// as its groups.
    pub out_scene: Option<PathBuf>,
    /// Write over an input file if `out` names one.
    pub force: bool,
}

/// A fit's scene `.obj`, opened through the front door ([`mod@crate::open`])
/// as any scene is (its material libraries read beside it), with the
/// warnings of opening it: what `viewer memg fit` and Python's `fit` read.
///
/// # Errors
/// The door's, naming the file; a file that is a motion, not a scene.
pub fn open_scene(path: &std::path::Path) -> Result<(Arc<ObjScene>, Vec<String>)> {
    let options = OpenOptions {
        lone_scenes: true,
        ..OpenOptions::default()
    };
    let mut loaded = open_with([path], &options)?;
    let (_, scene) = loaded
        .scenes
        .pop()
        .ok_or_else(|| Error::mismatch(path, "a scene .obj: expected an .obj, found a motion"))?;
    Ok((scene, loaded.warnings))
}

/// Fits, checks and writes (see [`crate::fit`]); the report's
/// errors are those of the file written, decoded and deformed.
pub fn fit_files(request: &FitRequest) -> Result<FitReport> {
    let started = Instant::now();
    let scene_path = &request.scene;
    let (scene, mut warnings) = open_scene(scene_path)?;
    let (mut groups, group_warnings) = groups_of(&scene, scene_path)?;
    let inputs: Vec<PathBuf> = [vec![scene_path.clone()], request.animation.files()].concat();
    check_not_input(&request.out, &inputs, request.force)?;
    let out_scene = match (request.parts, &request.out_scene) {
        (Some(_), Some(path)) => {
            check_not_input(path, &inputs, request.force)?;
            if path == &request.out {
                return Err(Error::unsupported(
                    path,
                    "--out-scene names the motion's --out too: give the scene a file of its own",
                ));
            }
            Some(path)
        }
        (Some(_), None) => {
            return Err(Error::unsupported(
                &request.out,
                "--parts makes new groups: give --out-scene for the scene .obj that has them",
            ));
        }
        (None, _) => None,
    };
    if request.parts.is_some() {
        // Any part is at most the whole mesh: sized as one group of it.
        groups = vec![FitGroup {
            name: String::new(),
            vertices: (0..scene.positions.len() as u32).collect(),
        }];
    } else {
        warnings.extend(group_warnings);
    }
    let vertices = scene.positions.len();

    // Sized from the headers (or the file count) before the positions are
    // read, or a large .pc2 even mapped (the address space is capped too).
    let (frames, sizing_path) = match &request.animation {
        AnimationSource::Pc2(path) => {
            let (first, len) = head(path, 32)?;
            let (header, _) =
                pc2::header(&first, len, vertices).map_err(|e| Error::decode(path, e))?;
            if header.sampling != 1.0 {
                warnings.push(format!(
                    "{}: samples every {} frames from frame {}; --fps is the rate of its samples",
                    path.display(),
                    header.sampling,
                    header.start
                ));
            }
            (header.frames, path.clone())
        }
        AnimationSource::Objs(files) => (files.len(), files[0].clone()),
    };
    let sizes: Vec<u64> = groups.iter().map(|g| g.vertices.len() as u64).collect();
    let rank = request.options.bound.fixed_rank();
    // A .pc2 is mapped (address space, paged from the file); .obj frames
    // are decoded into memory.
    let mapped = matches!(request.animation, AnimationSource::Pc2(_));
    let parts_bytes = match request.parts {
        Some(_) => {
            let scene_bytes = std::fs::metadata(scene_path)
                .map_err(|e| Error::io(scene_path, e))?
                .len();
            budget::parts_bytes(vertices as u64, frames as u64, scene_bytes)
        }
        None => 0,
    };
    budget::check_fit(
        &sizing_path,
        vertices as u64,
        frames as u64,
        &sizes,
        rank,
        mapped,
        parts_bytes,
    )?;

    let held: Vec<f32>;
    let mapped;
    let positions: &[f32] = match &request.animation {
        AnimationSource::Pc2(path) => {
            mapped = Input::read(path)?;
            let cache = pc2::decode(&mapped.data, vertices).map_err(|e| Error::decode(path, e))?;
            match cache.positions {
                std::borrow::Cow::Borrowed(p) => p,
                std::borrow::Cow::Owned(p) => {
                    held = p;
                    &held
                }
            }
        }
        AnimationSource::Objs(files) => {
            held = read_obj_frames(files, vertices)?;
            &held
        }
    };
    let anim =
        Animation::new(positions, vertices, frames).map_err(|e| match (e, &request.animation) {
            (
                FitError::NotFinite {
                    frame,
                    vertex,
                    axis,
                    value,
                },
                AnimationSource::Pc2(path),
            ) => Error::decode(
                path,
                DecodeError::new(
                    format!("sample {frame} vertex {vertex} {}", ["x", "y", "z"][axis]),
                    (32 + 12 * (frame * vertices + vertex) + 4 * axis) as u64,
                    "a finite number",
                    value.to_string(),
                ),
            ),
            (e, _) => e.into_error(&sizing_path, &request.out),
        })?;
    let read_s = started.elapsed().as_secs_f64();

    let mut held_at_most = 0;
    let (checked, parted) = match request.parts {
        None => {
            let c = fit_checked(&anim, &groups, &request.options)
                .map_err(|e| e.into_error(scene_path, &request.out))?;
            ((c.bytes, c.report), None)
        }
        Some(asked) => {
            let text = scene_text(scene_path)?;
            let sizing = Sizing {
                path: &sizing_path,
                rank,
                mapped: matches!(request.animation, AnimationSource::Pc2(_)),
                extra: parts_bytes,
            };
            let p = fit_parts(
                &anim,
                &text,
                asked,
                &request.options,
                Place {
                    scene: scene_path,
                    out: &request.out,
                    spill: true,
                },
                &sizing,
                Stop(&NEVER),
            )?;
            held_at_most = p.held_at_most;
            groups = p.groups;
            (
                (p.bytes.into_bytes(&request.out)?, p.fit),
                Some((p.scene, p.report)),
            )
        }
    };
    let writing = Instant::now();
    let (bytes, mut report) = checked;
    match (parted, out_scene) {
        (Some((text, parts)), Some(path)) => {
            // The motion and its scene together or neither.
            let mut set = OutputSet::new();
            let motion = set.add(&request.out)?;
            motion
                .writer()
                .write_all(&bytes)
                .map_err(|e| Error::io(&request.out, e))?;
            let scene_out = set.add(path)?;
            scene_out
                .writer()
                .write_all(text.as_bytes())
                .map_err(|e| Error::io(path, e))?;
            set.commit()?;
            report.parts = Some(parts);
            // The largest any split was sized at before it was fitted.
            report.bytes.held_at_most = held_at_most;
        }
        _ => write_atomic(&request.out, |w| w.write_all(&bytes))?,
    }
    report.seconds.read = read_s;
    report.seconds.write = writing.elapsed().as_secs_f64();
    report.seconds.total = started.elapsed().as_secs_f64();
    report.bytes.input = Some(
        request
            .animation
            .files()
            .iter()
            .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
            .sum(),
    );
    let mut seen = vec![0u8; vertices];
    for g in &groups {
        for &i in &g.vertices {
            seen[i as usize] = seen[i as usize].saturating_add(1);
        }
    }
    let shared = seen.iter().filter(|&&c| c > 1).count();
    // The shared affine frame's fit keeps one copy of each (`fit/affine/`).
    let fitted: usize = report.groups.iter().map(|g| g.vertices).sum();
    let copies = fitted > seen.iter().filter(|&&c| c > 0).count();
    if shared > 0 && copies {
        warnings.push(format!(
            "{shared} vertices lie on seams between groups: each group fits its own copy (within \
             the bound), the viewer shows the later group's"
        ));
    }
    report.warnings = warnings;
    Ok(report)
}
