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

    let mut held_at_most = 0;
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
            let sizing = Sizing {
                path: &sizing_path,
                rank,
                mapped: matches!(request.animation, AnimationSource::Pc2(_)),
                extra: parts_bytes,
            };
            let p = fit_parts(&anim, text, asked, request, scene_path, &sizing)?;
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
    /// The most memory any split fitted was sized to hold.
    held_at_most: u64,
    bytes: Kept,
    /// The motion file's length.
    len: u64,
    fit: FitReport,
    groups: Vec<FitGroup>,
    scene: String,
    report: PartsReport,
}

/// A split's motion file: in memory, or, under `--parts auto`, in an
/// unnamed file beside the output while the next split is fitted, so that
/// the best so far costs no memory the next fit could want.
enum Kept {
    Memory(Vec<u8>),
    Disk(std::fs::File),
}

impl Kept {
    /// `bytes` kept as `asked` needs, spilled next to `out` under `auto`.
    fn new(bytes: Vec<u8>, asked: Parts, out: &std::path::Path) -> Result<Kept> {
        if asked != Parts::Auto {
            return Ok(Kept::Memory(bytes));
        }
        let dir = match out.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        let mut file = tempfile::tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
        std::io::Write::write_all(&mut file, &bytes).map_err(|e| Error::io(dir, e))?;
        Ok(Kept::Disk(file))
    }

    /// The bytes, read back from disk if they were spilled.
    fn into_bytes(self, out: &std::path::Path) -> Result<Vec<u8>> {
        match self {
            Kept::Memory(bytes) => Ok(bytes),
            Kept::Disk(mut file) => {
                use std::io::{Read, Seek};
                let mut bytes = Vec::new();
                file.rewind()
                    .and_then(|()| file.read_to_end(&mut bytes))
                    .map_err(|e| Error::io(out, e))?;
                Ok(bytes)
            }
        }
    }
}

/// Splits the scene (`text`, its `.obj`) into `asked` near-rigid parts, or
/// into 1, 2, 4… parts until a split makes a file more than a quarter
/// larger than the smallest so far, or two in a row make no smaller one
/// (the sizes are not monotone: on a cloth flag two parts cost 7 % more
/// than one, four less), fits each split and keeps the smallest file
/// within the bound.
/// How a split is sized before it is fitted: its groups, seams and all, can
/// hold more vertices than the scene (a vertex on faces of three parts is
/// in three groups), so each is checked against the caps and the memory
/// left as the fit is ([`budget::check_fit`]), with what the splitting holds.
struct Sizing<'a> {
    path: &'a std::path::Path,
    rank: Option<u64>,
    mapped: bool,
    extra: u64,
}

fn fit_parts(
    anim: &Animation<'_>,
    text: &str,
    asked: Parts,
    request: &FitRequest,
    scene_path: &std::path::Path,
    sizing: &Sizing<'_>,
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
    let mut held_at_most = 0u64;
    let mut stopped = None;
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
        // The split's trajectories are freed: back to the system before the fit.
        release_freed_memory();
        let scene_text =
            split_scene::regroup(text, &labels, count).map_err(|e| Error::decode(scene_path, e))?;
        let scene = crate::formats::obj::parse(&scene_text, &Default::default())
            .map_err(|e| Error::decode(scene_path, e))?;
        let (groups, _) = groups_of(&scene, scene_path)?;
        let sizes: Vec<u64> = groups.iter().map(|g| g.vertices.len() as u64).collect();
        let (v64, n64) = (v as u64, anim.frames as u64);
        let sized = budget::check_fit(
            sizing.path,
            v64,
            n64,
            &sizes,
            sizing.rank,
            sizing.mapped,
            sizing.extra,
        );
        if let Err(e) = sized {
            // Under `auto`, more parts only add seams: the search ends here.
            if best.is_some() {
                stopped = Some(format!("{} parts: {e}", groups.len()));
                break;
            }
            return Err(e);
        }
        held_at_most = held_at_most
            .max(budget::fit_bytes(v64, n64, &sizes, sizing.rank).saturating_add(sizing.extra));
        let fitted = fit_checked(anim, &groups, &request.options);
        match fitted {
            Ok(checked) => {
                let bytes = checked.bytes.len() as u64;
                tried.push(PartsTry {
                    parts: count,
                    groups: groups.len(),
                    memg: Some(bytes),
                });
                let best_len = best.as_ref().map(|b| b.len);
                let smaller = best_len.is_none_or(|b| bytes < b);
                no_better = if smaller { 0 } else { no_better + 1 };
                // Far larger than the best: more parts will not come back.
                let far = best_len.is_some_and(|b| bytes > b + b / 4);
                if smaller {
                    best = Some(Parted {
                        held_at_most: 0,
                        bytes: Kept::new(checked.bytes, asked, out)?,
                        len: bytes,
                        fit: checked.report,
                        groups,
                        scene: scene_text,
                        report: PartsReport {
                            asked,
                            chosen: 0,
                            tried: Vec::new(),
                            stopped: None,
                        },
                    });
                }
                release_freed_memory();
                if no_better == 2 || far {
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
            b.held_at_most = held_at_most;
            b.report.stopped = stopped;
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

/// Hands freed memory back to the system between a split and its fit, and
/// between one split's fit and the next split: glibc keeps freed blocks in
/// its heaps (one per thread) for reuse, and a fit's working set beside the
/// leftovers of the splitting or of the fit before is more than the fit
/// was sized to hold.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory at the top of glibc's
    // heaps to the system; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}
