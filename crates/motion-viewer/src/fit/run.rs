//! `viewer memg fit` as one library call: a scene `.obj` and its animation
//! in, a MEMG motion file out. The work is sized before anything large is
//! read (vertices × frames, and the memory the fit will hold) and refused
//! past the caps; every error is one line naming the file; the output is
//! written through [`crate::output`], whole or not at all, and only once the
//! decoded motion has been measured within the bound.

use super::input::{AnimationSource, groups_of, read_obj_frames};
use super::report::{PartsReport, PartsTry};
use super::{
    Animation, Bound, FitError, FitGroup, FitOptions, FitReport, MAX_AUTO_PARTS, NEVER, Parts,
    Stop, fit_checked, parts, split_scene,
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
    let rank = match request.options.bound {
        Bound::Rank(r) => Some(r as u64),
        _ => None,
    };
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

    let (checked, parted) = match request.parts {
        None => {
            let c = fit_checked(&anim, &groups, &request.options)
                .map_err(|e| e.into_error(scene_path, &request.out))?;
            ((c.bytes, c.report), None)
        }
        Some(asked) => {
            let text = Input::read(scene_path)?;
            let text = std::str::from_utf8(&text.data)
                .map_err(|e| Error::mismatch(scene_path, format!("not UTF-8 text: {e}")))?;
            let p = fit_parts(&anim, text, asked, request, scene_path)?;
            groups = p.groups;
            ((p.bytes, p.fit), Some((p.scene, p.report)))
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
            // What was sized up front: a split's fit as one group of every
            // vertex, and what the splitting holds beside it.
            report.bytes.held_at_most =
                budget::fit_bytes(vertices as u64, frames as u64, &sizes, rank)
                    .saturating_add(parts_bytes);
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
    if shared > 0 {
        warnings.push(format!(
            "{shared} vertices lie on seams between groups: each group fits its own copy (within \
             the bound), the viewer shows the later group's"
        ));
    }
    report.warnings = warnings;
    Ok(report)
}

/// A fit of the mesh split into parts: the motion file's bytes and its
/// report (the decoded motion is not kept while the next split is fitted),
/// its groups, the scene text that has them, and what was tried.
struct Parted {
    bytes: Vec<u8>,
    fit: FitReport,
    groups: Vec<FitGroup>,
    scene: String,
    report: PartsReport,
}

/// Splits the scene (`text`, its `.obj`) into `asked` near-rigid parts, or
/// into 1, 2, 4… parts until two splits in a row make no smaller file than
/// the smallest so far (the sizes are not monotone: on a cloth flag two
/// parts cost more than one, four less), fits each split and keeps the
/// smallest file within the bound.
fn fit_parts(
    anim: &Animation<'_>,
    text: &str,
    asked: Parts,
    request: &FitRequest,
    scene_path: &std::path::Path,
) -> Result<Parted> {
    let started = Instant::now();
    let out = &request.out;
    let v = anim.vertices;
    let counts: Vec<usize> = match asked {
        Parts::Count(n) => {
            vec![parts::check_count(n, v).map_err(|e| e.into_error(scene_path, out))?]
        }
        Parts::Auto => std::iter::successors(Some(1usize), |k| Some(k * 2))
            .take_while(|&k| k <= v.min(MAX_AUTO_PARTS))
            .collect(),
    };
    let mut tried = Vec::new();
    let mut best: Option<Parted> = None;
    let mut first_error = None;
    // Splits in a row that made no smaller file than the best.
    let mut no_better = 0;
    for &count in &counts {
        let labels = match count {
            1 => vec![0; v],
            _ => parts::near_rigid_parts(anim, count, Stop(&NEVER))
                .map_err(|e| e.into_error(scene_path, out))?,
        };
        let scene_text =
            split_scene::regroup(text, &labels, count).map_err(|e| Error::decode(scene_path, e))?;
        let scene = crate::formats::obj::parse(&scene_text, &Default::default())
            .map_err(|e| Error::decode(scene_path, e))?;
        let (groups, _) = groups_of(&scene, scene_path)?;
        match fit_checked(anim, &groups, &request.options) {
            Ok(checked) => {
                let bytes = checked.bytes.len() as u64;
                tried.push(PartsTry {
                    parts: count,
                    groups: groups.len(),
                    memg: Some(bytes),
                });
                let smaller = best.as_ref().is_none_or(|b| bytes < b.bytes.len() as u64);
                no_better = if smaller { 0 } else { no_better + 1 };
                if smaller {
                    best = Some(Parted {
                        bytes: checked.bytes,
                        fit: checked.report,
                        groups,
                        scene: scene_text,
                        report: PartsReport {
                            asked,
                            chosen: 0,
                            tried: Vec::new(),
                        },
                    });
                }
                if no_better == 2 {
                    break;
                }
            }
            // Under `auto` a split whose group cannot meet the bound is
            // passed over; the next, with smaller groups, may.
            Err(e @ FitError::Unreachable { .. }) if asked == Parts::Auto => {
                tried.push(PartsTry {
                    parts: count,
                    groups: groups.len(),
                    memg: None,
                });
                first_error.get_or_insert(e);
            }
            Err(e) => return Err(e.into_error(scene_path, out)),
        }
    }
    match best {
        Some(mut b) => {
            b.report.chosen = b.groups.len();
            b.report.tried = tried;
            let kept = b.fit.seconds;
            b.fit.seconds.parts = started.elapsed().as_secs_f64() - kept.fit - kept.check;
            Ok(b)
        }
        None => Err(first_error
            .unwrap_or(FitError::NoGroups)
            .into_error(scene_path, out)),
    }
}
