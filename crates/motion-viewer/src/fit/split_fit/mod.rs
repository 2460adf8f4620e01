//! The search over splits of a mesh into parts (`--parts`): each split
//! made (`parts.rs`), its scene regrouped (`split_scene.rs`), sized, fitted
//! and checked, the smallest file within the bound kept; for
//! `viewer memg fit` ([`super::fit_files`]) and, in memory, for Python's
//! `fit` ([`fit_parts_in_memory`]).

use super::input::groups_of;
use super::report::{PartsReport, PartsTry};
use super::{
    Animation, Checked, Effort, FitError, FitGroup, FitOptions, FitReport, FrameMode,
    MAX_AUTO_PARTS, Parts, SizedFor, Stop, fit_checked_as, parts, split_scene,
};
use crate::budget;
use crate::error::{Error, Result};
use crate::formats::memg;
use crate::open::Input;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// A fit of the mesh split into parts: the motion file's bytes and its
/// report (the decoded motion is not kept while the next split is fitted),
/// its groups, the scene text that has them, and what was tried.
pub(super) struct Parted {
    /// The most memory any split fitted was sized to hold.
    pub(super) held_at_most: u64,
    pub(super) bytes: Kept,
    /// The size the choice goes by: the motion file's, or its glTF's
    /// estimated ([`SizedFor`]).
    pub(super) size: u64,
    pub(super) fit: FitReport,
    pub(super) groups: Vec<FitGroup>,
    pub(super) scene: String,
    pub(super) report: PartsReport,
}

/// A split's motion file: in memory, or, under `--parts auto`, in an
/// unnamed file beside the output while the next split is fitted, so that
/// the best so far costs no memory the next fit could want.
pub(super) enum Kept {
    Memory(Vec<u8>),
    Disk(std::fs::File),
}

impl Kept {
    /// `bytes` kept in memory, or spilled to an unnamed file next to `out`.
    fn new(bytes: Vec<u8>, spill: bool, out: &Path) -> Result<Kept> {
        if !spill {
            return Ok(Kept::Memory(bytes));
        }
        let dir = match out.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut file = tempfile::tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
        std::io::Write::write_all(&mut file, &bytes).map_err(|e| Error::io(dir, e))?;
        Ok(Kept::Disk(file))
    }

    /// The bytes, read back from disk if they were spilled.
    pub(super) fn into_bytes(self, out: &Path) -> Result<Vec<u8>> {
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

/// How a split is sized before it is fitted: its groups, seams and all, can
/// hold more vertices than the scene (a vertex on faces of three parts is
/// in three groups), so each is checked against the caps and the memory
/// left as the fit is ([`budget::check_fit`]), with what the splitting holds.
pub(super) struct Sizing<'a> {
    pub(super) path: &'a Path,
    pub(super) rank: Option<u64>,
    pub(super) mapped: bool,
    pub(super) extra: u64,
}

/// Where a split's errors point and where the best file so far waits.
#[derive(Clone, Copy)]
pub(super) struct Place<'a> {
    /// The scene, for errors.
    pub(super) scene: &'a Path,
    /// The output, for errors and as the folder the best file waits in.
    pub(super) out: &'a Path,
    /// Under `auto`, whether the best file so far waits on disk (beside
    /// `out`) rather than in memory.
    pub(super) spill: bool,
}

/// Splits the scene (`text`, its `.obj`) into `asked` near-rigid parts, or
/// into 1, 2, 4… parts until a split makes a file more than a quarter
/// larger than the smallest so far, or two in a row make no smaller one
/// (the sizes are not monotone: on a cloth flag two parts cost 7 % more
/// than one, four less), then into the counts halfway between the best
/// so far and the counts tried either side of it, until no count lies
/// between (the dancer of BENCHMARKS.md: 4 parts best of 1, 2, 4, 8, then
/// 3, 6 and 5); fits each split and keeps the smallest file within the
/// bound. Under `auto` the splits are fitted with the search's shorter
/// effort, then the best fitted again in full, and, for a MEMG file under
/// `--frames auto`, its [`RUNNERS_UP`] too (the dancer at 1.8 %: five
/// parts, second in the search, smallest in full).
pub(super) fn fit_parts(
    anim: &Animation<'_>,
    text: &str,
    asked: Parts,
    options: &FitOptions,
    place: Place<'_>,
    sizing: &Sizing<'_>,
    stop: Stop<'_>,
) -> Result<Parted> {
    let started = Instant::now();
    let (scene_path, out) = (place.scene, place.out);
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
    // The counts still to try: the doubling first, then the halfway ones.
    let mut queue: std::collections::VecDeque<usize> = counts.into();
    let mut refining = false;
    // Every count tried (fitted, passed over or refused), and the best's.
    let mut seen = std::collections::BTreeSet::new();
    let mut best_count = 0;
    // The splits fitted nearest the best, with their parts: fitted again
    // in full below.
    let mut near = Near::default();
    while let Some(count) = next_count(&mut queue, &mut refining, asked, &seen, best_count) {
        seen.insert(count);
        let labels = match count {
            1 => vec![0; v],
            _ => parts::near_rigid_parts(anim, count, stop)
                .map_err(|e| e.into_error(scene_path, out))?,
        };
        // The split's trajectories are freed: back to the system before the fit.
        release_freed_memory();
        let (scene_text, groups) = regrouped(text, &labels, count, scene_path)?;
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
            // Under `auto`, more parts only add seams: the doubling ends
            // here (and no count past this one is tried halfway).
            if best.is_some() {
                stopped = Some(format!("{} parts: {e}", groups.len()));
                queue.clear();
                seen.extend(count..=v.min(MAX_AUTO_PARTS));
                continue;
            }
            return Err(e);
        }
        held_at_most = held_at_most
            .max(budget::fit_bytes(v64, n64, &sizes, sizing.rank).saturating_add(sizing.extra));
        // Under `auto`, each split fitted with the search's effort; the one
        // kept is fitted again in full below.
        let effort = match asked {
            Parts::Auto => Effort::Search,
            Parts::Count(_) => Effort::Full,
        };
        let fitted = fit_checked_as(anim, &groups, options, stop, effort);
        match fitted {
            Ok(checked) => {
                let bytes = checked.bytes.len() as u64;
                let size = options.sized_for.file_bytes(&checked.motion, bytes);
                tried.push(try_of(count, groups.len(), bytes, size, options));
                if asked == Parts::Auto {
                    near.push(Candidate {
                        size,
                        count,
                        labels,
                    });
                }
                let best_size = best.as_ref().map(|b| b.size);
                let smaller = best_size.is_none_or(|b| size < b);
                no_better = if smaller { 0 } else { no_better + 1 };
                // Far larger than the best: more parts will not come back.
                let far = best_size.is_some_and(|b| size > b + b / 4);
                if smaller {
                    best_count = count;
                    best = Some(Parted {
                        held_at_most: 0,
                        bytes: Kept::new(checked.bytes, asked == Parts::Auto && place.spill, out)?,
                        size,
                        fit: checked.report,
                        groups,
                        scene: scene_text,
                        report: PartsReport {
                            asked,
                            chosen: 0,
                            tried: Vec::new(),
                            full: Vec::new(),
                            stopped: None,
                        },
                    });
                }
                release_freed_memory();
                if !refining && (no_better == 2 || far) {
                    queue.clear();
                }
            }
            // Under `auto` a split whose group cannot meet the bound (the
            // largest error's or the RMS error's) is passed over; the next,
            // with smaller groups, may.
            Err(e @ (FitError::Unreachable { .. } | FitError::UnreachableRms { .. }))
                if asked == Parts::Auto =>
            {
                tried.push(PartsTry {
                    parts: count,
                    groups: groups.len(),
                    memg: None,
                    gltf_estimate: None,
                });
                first_error.get_or_insert(e);
            }
            Err(e) => return Err(e.into_error(scene_path, out)),
        }
    }
    let mut full = Vec::new();
    if asked == Parts::Auto
        && let Some(b) = best.as_mut()
        && full_differs(anim, &b.groups, options)
    {
        // The split kept, fitted again in full: its frames' cheapest
        // candidates sized with the refit, its bases polished for a glTF.
        // Kept where it is no larger than the search's fit, which stays
        // otherwise: the full fit may choose other frames, and so not
        // find again the shared affine frame the search found.
        let checked = fit_checked_as(anim, &b.groups, options, stop, Effort::Full)
            .map_err(|e| e.into_error(scene_path, out))?;
        let bytes = checked.bytes.len() as u64;
        let size = options.sized_for.file_bytes(&checked.motion, bytes);
        full.push(try_of(best_count, b.groups.len(), bytes, size, options));
        if size <= b.size {
            b.size = size;
            b.fit = checked.report;
            b.bytes = Kept::new(checked.bytes, place.spill, out)?;
        }
        // Then, for a MEMG file with frames chosen per group, the splits
        // whose search fit was near the best's, each in full, the smaller
        // file kept: only the full fit lowers each group's rank under the
        // shared affine frame one at a time, so the search ranks those
        // splits roughly (the dancer of BENCHMARKS.md: five parts 6.6 %
        // over four in the search, 7 % under them in full).
        let runners = if options.frames == FrameMode::Auto && options.sized_for == SizedFor::Memg {
            near.runners_up(best_count)
        } else {
            Vec::new()
        };
        for c in runners {
            // Within a tenth of the smallest file so far too: where the
            // best's full fit gained, a runner-up far above it would need
            // to gain that much more (the sample at 2.5 %: two parts
            // 108 586 → 96 050 bytes in full, three 115 019 in the search).
            if c.size > b.size + b.size / NEAR {
                break;
            }
            let (text, groups) = regrouped(text, &c.labels, c.count, scene_path)?;
            drop(c.labels);
            if !full_differs(anim, &groups, options) {
                continue;
            }
            let checked = match fit_checked_as(anim, &groups, options, stop, Effort::Full) {
                Ok(checked) => checked,
                // Its search fit held the bound; a full one that does not
                // is passed over.
                Err(FitError::Unreachable { .. } | FitError::UnreachableRms { .. }) => continue,
                Err(e) => return Err(e.into_error(scene_path, out)),
            };
            let bytes = checked.bytes.len() as u64;
            let size = options.sized_for.file_bytes(&checked.motion, bytes);
            full.push(try_of(c.count, groups.len(), bytes, size, options));
            if size < b.size {
                b.size = size;
                b.fit = checked.report;
                b.bytes = Kept::new(checked.bytes, place.spill, out)?;
                b.groups = groups;
                b.scene = text;
            }
            release_freed_memory();
        }
    }
    match best {
        Some(mut b) => {
            b.held_at_most = held_at_most;
            b.report.stopped = stopped;
            b.report.chosen = b.groups.len();
            b.report.tried = tried;
            b.report.full = full;
            let kept = b.fit.seconds;
            b.fit.seconds.parts = started.elapsed().as_secs_f64() - kept.fit - kept.check;
            Ok(b)
        }
        None => Err(first_error
            .unwrap_or(FitError::NoGroups)
            .into_error(scene_path, out)),
    }
}

/// How many splits besides the search's best are fitted again in full
/// under `auto`, at most: those whose search fit was within a
/// [`NEAR`]th of the best's size, the smallest first.
pub(crate) const RUNNERS_UP: usize = 2;

/// A split near the best (see [`RUNNERS_UP`]) is within `1/NEAR` of its
/// size.
const NEAR: u64 = 10;

/// A split the search fitted: its size, its parts asked and each vertex's
/// part.
struct Candidate {
    size: u64,
    count: usize,
    labels: Vec<u32>,
}

/// The splits the search fitted with the smallest files, at most the best
/// and its [`RUNNERS_UP`] (their parts are 4 bytes a vertex each).
#[derive(Default)]
struct Near(Vec<Candidate>);

impl Near {
    /// Keeps `c` if it is among the smallest.
    fn push(&mut self, c: Candidate) {
        self.0.push(c);
        // Stable: of equal sizes, the first fitted stays first, as the
        // search's best does.
        self.0.sort_by_key(|c| c.size);
        self.0.truncate(RUNNERS_UP + 1);
    }

    /// The splits other than the best (`best_count` parts) whose search
    /// fit was within a [`NEAR`]th of the best's size, the smallest first.
    fn runners_up(self, best_count: usize) -> Vec<Candidate> {
        let best = self.0.first().map_or(0, |c| c.size);
        self.0
            .into_iter()
            .filter(|c| c.count != best_count && c.size <= best + best / NEAR)
            .take(RUNNERS_UP)
            .collect()
    }
}

/// The scene (`text`) with its faces regrouped into the `count` parts of
/// `labels` (each vertex's part), and the groups to fit that it has.
fn regrouped(
    text: &str,
    labels: &[u32],
    count: usize,
    scene_path: &Path,
) -> Result<(String, Vec<FitGroup>)> {
    let regrouped =
        split_scene::regroup(text, labels, count).map_err(|e| Error::decode(scene_path, e))?;
    let scene = crate::formats::obj::parse(&regrouped, &Default::default())
        .map_err(|e| Error::decode(scene_path, e))?;
    let (groups, _) = groups_of(&scene, scene_path)?;
    Ok((regrouped, groups))
}

/// The report's line for a split of `count` parts (`groups` with faces)
/// fitted to `bytes` of MEMG file, `size` the size the choice goes by.
fn try_of(count: usize, groups: usize, bytes: u64, size: u64, options: &FitOptions) -> PartsTry {
    PartsTry {
        parts: count,
        groups,
        memg: Some(bytes),
        gltf_estimate: (options.sized_for != SizedFor::Memg).then_some(size),
    }
}

/// Whether a fit of `groups` in full ([`Effort::Full`]) could differ from
/// the search's: only frames chosen per group (`--frames auto`) or a glTF's
/// polish spend more, and only on groups small enough to refit.
fn full_differs(anim: &Animation<'_>, groups: &[FitGroup], options: &FitOptions) -> bool {
    (options.frames == FrameMode::Auto || options.polishes())
        && groups
            .iter()
            .any(|g| super::minimax::refits(g.vertices.len() as u64, anim.frames as u64))
}

/// The next count of parts to try: the queue's, and once it is empty under
/// `auto`, the counts halfway between the best so far (`best`) and the
/// nearest counts tried (`seen`) either side of it, where one lies between.
fn next_count(
    queue: &mut std::collections::VecDeque<usize>,
    refining: &mut bool,
    asked: Parts,
    seen: &std::collections::BTreeSet<usize>,
    best: usize,
) -> Option<usize> {
    if queue.is_empty() && asked == Parts::Auto && best > 0 {
        *refining = true;
        let below = seen.range(..best).next_back().copied();
        let above = seen.range(best + 1..).next().copied();
        for (a, b) in [(below, Some(best)), (Some(best), above)] {
            if let (Some(a), Some(b)) = (a, b)
                && b - a >= 2
            {
                queue.push_back((a + b) / 2);
            }
        }
    }
    queue.pop_front()
}

/// Hands freed memory back to the system between a split and its fit, and
/// between one split's fit and the next split: glibc keeps freed blocks in
/// its heaps (one per thread) for reuse, and a fit's working set beside the
/// leftovers of the splitting or of the fit before is more than the fit
/// was sized to hold.
pub(super) fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory at the top of glibc's
    // heaps to the system; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The text of the scene at `path`, which a split regroups line by line.
pub(super) fn scene_text(path: &Path) -> Result<String> {
    let input = Input::read(path)?;
    std::str::from_utf8(&input.data)
        .map(str::to_owned)
        .map_err(|e| Error::mismatch(path, format!("not UTF-8 text: {e}")))
}

/// The scene at `scene_path` split into `asked` parts, or under
/// [`Parts::Auto`] the split that makes the smallest file, fitted to `anim`
/// and checked as [`super::fit_checked`] does: the scene's text with the
/// parts as its groups, and the fit (its report's `parts` says what was
/// tried). Nothing written, only the scene read (Python's `fit`); each split is
/// sized first against the caps and the memory left, as `viewer memg fit`
/// sizes it. Ends early with a stop error once `stop` is set.
///
/// # Errors
/// As `viewer memg fit --parts`, naming `scene_path`.
pub fn fit_parts_in_memory(
    anim: &Animation<'_>,
    scene_path: &Path,
    asked: Parts,
    options: &FitOptions,
    stop: &AtomicBool,
) -> Result<(String, Checked)> {
    let scene_text = scene_text(scene_path)?;
    let (v, n) = (anim.vertices as u64, anim.frames as u64);
    let sizing = Sizing {
        path: scene_path,
        rank: options.bound.fixed_rank(),
        mapped: false,
        extra: budget::parts_bytes(v, n, scene_text.len() as u64),
    };
    let place = Place {
        scene: scene_path,
        out: scene_path,
        spill: false,
    };
    let p = fit_parts(
        anim,
        &scene_text,
        asked,
        options,
        place,
        &sizing,
        Stop(stop),
    )?;
    let bytes = p.bytes.into_bytes(scene_path)?;
    let motion = memg::decode(&bytes).map_err(|e| Error::decode(scene_path, e))?;
    let mut report = p.fit;
    report.parts = Some(p.report);
    report.bytes.held_at_most = p.held_at_most;
    Ok((
        p.scene,
        Checked {
            bytes,
            motion,
            report,
        },
    ))
}

#[cfg(test)]
mod tests;
