//! MEMG motions fitted to mesh animations: any point cache (every vertex at
//! every timestep) made into the format's compact model, per group a rigid
//! frame per timestep and a reduced basis, `T_t · (p + U·q_t)`
//! (docs/formats.md §3), within an error bound the caller sets.
//!
//! - [`fit`]: the motion, from plain arrays (positions per timestep and
//!   the groups), with no file in sight;
//! - [`fit_checked`]: that motion encoded, decoded again and deformed by the
//!   library's own [`crate::anim::memg::Deformer`] at every timestep, every
//!   vertex compared with the input: the errors reported are those, and a
//!   group found over the bound is fitted again at a higher rank;
//! - [`fit_files`]: a scene `.obj` and a `.pc2` or a sequence of `.obj`
//!   files in, a MEMG motion file out (`viewer memg fit`), sized before it
//!   starts and written whole or not at all.
//!
//! Each group gets a rigid frame per timestep ([`FrameMode::Local`]: the
//! Procrustes alignment of its positions, see `frames.rs`), none
//! ([`FrameMode::World`]), or whichever of those and frames shared with
//! other groups (the whole mesh's, or another group's: written once) makes
//! the smaller file ([`FrameMode::Auto`]: which, for the MEMG file, also
//! tries one affine frame shared by the groups in frames, fitted with
//! their bases,
//! `affine/`), then a principal component analysis of its
//! positions in that frame (`basis.rs`), at a given rank or at the smallest
//! rank whose largest error at any vertex and timestep is within the bound
//! — lowered, where a refit for the largest error rather than the squared
//! sum still holds the bound (`minimax.rs`).
//! Frames are rotations and translations only, because the reduced glTF
//! export carries a group's frame as its node's transform; the shared
//! affine frame is tried only where no glTF is written.
//!
//! ```
//! use motion_viewer::fit::{fit_checked, Animation, Bound, FitGroup, FitOptions};
//!
//! // Two triangles' corners, the second pair turning about the first.
//! let frames = 8;
//! let mut positions = Vec::new();
//! for t in 0..frames {
//!     let a = 0.2 * t as f32;
//!     positions.extend([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
//!     positions.extend([a.cos(), a.sin(), 1.0, 2.0 * a.cos(), 2.0 * a.sin(), 1.0]);
//! }
//! let anim = Animation::new(&positions, 5, frames)?;
//! let groups = [FitGroup { name: "all".into(), vertices: vec![0, 1, 2, 3, 4] }];
//! let options = FitOptions { bound: Bound::MaxError(1e-4), ..FitOptions::default() };
//! let checked = fit_checked(&anim, &groups, &options)?;
//! assert!(checked.report.max_error <= 1e-4);
//! assert_eq!(checked.motion.groups[0].name, "all");
//! # Ok::<(), motion_viewer::fit::FitError>(())
//! ```

pub(crate) mod affine;
mod basis;
mod check;
mod error;
mod frames;
mod groups;
mod input;
pub(crate) mod minimax;
mod options;
mod parts;
mod report;
mod run;
mod split_fit;
mod split_scene;
#[cfg(test)]
mod tests;

pub use error::FitError;
pub use input::{AnimationSource, groups_of};
pub use options::{
    Bound, DEFAULT_BOUND, DEFAULT_FPS, FitOptions, FrameMode, MAX_AUTO_PARTS, Parts, SizedFor,
};
pub use parts::SAMPLED_FRAMES;
pub use report::GroupReport;
pub use report::{Bytes, FitReport, PartsReport, PartsTry, Seconds};
pub use run::{FitRequest, fit_files, open_scene};
pub(crate) use split_fit::RUNNERS_UP;
pub use split_fit::fit_parts_in_memory;

use crate::formats::bytes::ByteOrder;
use crate::formats::memg::{self, MemgMotion};
use basis::Rank;
use groups::{assemble, disassemble, fit_groups, fit_one};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A fit's stop flag: set (by another thread) to end the fit early with
/// [`FitError::Stopped`]. The fit looks at it between pieces of work of a
/// few hundred vertices, so it stops within milliseconds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stop<'a>(&'a AtomicBool);

impl Stop<'_> {
    /// Whether the fit should stop now.
    #[inline]
    pub(crate) fn now(self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The flag of a fit nobody stops.
static NEVER: AtomicBool = AtomicBool::new(false);

/// Positions of every vertex at every timestep: `positions[(t · vertices +
/// i) · 3 + axis]`, as a `.pc2` lays them out.
#[derive(Debug, Clone, Copy)]
pub struct Animation<'a> {
    /// The positions, timestep after timestep.
    pub positions: &'a [f32],
    /// Vertices per timestep.
    pub vertices: usize,
    /// Timesteps.
    pub frames: usize,
}

impl<'a> Animation<'a> {
    /// Checks that `positions` holds `vertices × frames` finite points.
    pub fn new(positions: &'a [f32], vertices: usize, frames: usize) -> Result<Self, FitError> {
        let expected = vertices.checked_mul(frames).and_then(|c| c.checked_mul(3));
        if expected != Some(positions.len()) {
            return Err(FitError::Shape {
                vertices,
                frames,
                found: positions.len(),
            });
        }
        if let Some(at) = positions.iter().position(|x| !x.is_finite()) {
            let point = at / 3;
            return Err(FitError::NotFinite {
                frame: point / vertices.max(1),
                vertex: point % vertices.max(1),
                axis: at % 3,
                value: positions[at],
            });
        }
        Ok(Animation {
            positions,
            vertices,
            frames,
        })
    }

    /// Vertex `i` at timestep `t`.
    #[inline]
    pub fn point(&self, t: usize, i: usize) -> [f64; 3] {
        let at = 3 * (t * self.vertices + i);
        let p = &self.positions[at..at + 3];
        [p[0].into(), p[1].into(), p[2].into()]
    }

    /// The diagonal of the box holding every vertex at every timestep.
    pub(crate) fn diagonal(&self) -> f64 {
        use rayon::prelude::*;
        let (lo, hi) = self
            .positions
            .par_chunks(3)
            .fold(
                || ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
                |(lo, hi), p| {
                    (
                        std::array::from_fn(|a| lo[a].min(f64::from(p[a]))),
                        std::array::from_fn(|a| hi[a].max(f64::from(p[a]))),
                    )
                },
            )
            .reduce(
                || ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
                |a, b| {
                    (
                        std::array::from_fn(|k| a.0[k].min(b.0[k])),
                        std::array::from_fn(|k| a.1[k].max(b.1[k])),
                    )
                },
            );
        if self.positions.is_empty() {
            return 0.0;
        }
        (0..3).map(|a| (hi[a] - lo[a]).powi(2)).sum::<f64>().sqrt()
    }
}

/// A group to fit: its name (the `.obj` group it binds to) and the 0-based
/// vertices it moves. Groups may share vertices; every vertex must be in one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FitGroup {
    /// The name.
    pub name: String,
    /// Its vertices, 0-based.
    pub vertices: Vec<u32>,
}

/// The part (0-based, below `count`) of every vertex of `anim`: `count`
/// near-rigid parts, each holding at least one vertex, found from at most
/// [`SAMPLED_FRAMES`] of its timesteps. The same parts every run.
///
/// # Errors
/// [`FitError::Parts`] for a `count` of 0 or above the vertices.
pub fn near_rigid_parts(anim: &Animation<'_>, count: usize) -> Result<Vec<u32>, FitError> {
    let count = parts::check_count(count, anim.vertices)?;
    parts::near_rigid_parts(anim, count, Stop(&NEVER))
}

/// The motion fitted to `anim` (see the [module docs](self)): one frame
/// per group and timestep (none in [`FrameMode::World`]), one basis per
/// group, the groups in the order given. The errors it reaches are known
/// once it is decoded and deformed: [`fit_checked`] does that.
pub fn fit(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    options: &FitOptions,
) -> Result<MemgMotion, FitError> {
    let bound = check_inputs(anim, groups, options)?;
    let (frames, fits) = fit_groups(anim, groups, options, bound, Stop(&NEVER), Effort::Full)?;
    Ok(assemble(anim, groups, &frames, fits, options))
}

/// What [`fit_checked`] made: the bytes of the MEMG file, the motion they
/// decode to, and what was measured.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The MEMG motion file, little-endian.
    pub bytes: Vec<u8>,
    /// `bytes` decoded.
    pub motion: MemgMotion,
    /// Ranks, errors (as measured on `motion`), sizes and times.
    pub report: FitReport,
}

/// [`fit`], then its file encoded, decoded and deformed by the library's
/// deformer at every timestep and compared with `anim` at every vertex of
/// every group. Under an error bound a group found over it (by the `f32`
/// arithmetic of the deformer, which the fit's own measure in `f64` does
/// not see) is fitted again one rank higher, until every group is within.
/// The report's errors are the deformer's.
pub fn fit_checked(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    options: &FitOptions,
) -> Result<Checked, FitError> {
    fit_checked_until(anim, groups, options, &NEVER)
}

/// [`fit_checked`], ended early with [`FitError::Stopped`] once `stop` is
/// set (by another thread: the Python package sets it on Ctrl+C). The flag
/// is looked at between pieces of work of a few hundred vertices.
pub fn fit_checked_until(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    options: &FitOptions,
    stop: &AtomicBool,
) -> Result<Checked, FitError> {
    fit_checked_as(anim, groups, options, Stop(stop), Effort::Full)
}

/// How much work a fit spends beyond fitting each group once: all of it
/// for the fit written; less for the many fits `--parts auto` compares by
/// their sizes (the split it keeps is then fitted again in full).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effort {
    /// `--frames auto` sizes its candidates by PCA's ranks alone, and no
    /// basis is polished for a glTF.
    Search,
    /// Its cheapest candidates sized again with the minimax refit, and
    /// under `--out x.glb` every basis polished ([`minimax::polish`]).
    Full,
}

/// [`fit_checked_until`] with the effort given.
pub(crate) fn fit_checked_as(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    options: &FitOptions,
    stop: Stop<'_>,
    effort: Effort,
) -> Result<Checked, FitError> {
    let started = Instant::now();
    let bound = check_inputs(anim, groups, options)?;
    let rigid = fit_checked_rigid(anim, groups, options, bound, stop, effort, started)?;
    match affine::instead(anim, groups, options, bound, &rigid, stop, effort)? {
        Some(affine) => Ok(affine),
        None => Ok(rigid),
    }
}

/// [`fit_checked_as`] in rigid frames (or none), as `options.frames` says.
fn fit_checked_rigid(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    options: &FitOptions,
    bound: Rank,
    stop: Stop<'_>,
    effort: Effort,
    started: Instant,
) -> Result<Checked, FitError> {
    let (frames, mut fits) = fit_groups(anim, groups, options, bound, stop, effort)?;
    if effort == Effort::Full && options.polishes() {
        fits = groups::polish(anim, groups, &frames, fits, stop);
    }
    let mut fit_s = started.elapsed().as_secs_f64();
    let mut check_s = 0.0;
    loop {
        let checking = Instant::now();
        // The fitted arrays move into the motion and back (no second copy
        // of every basis is held while the file and its decoding are).
        let fitted = assemble(anim, groups, &frames, fits, options);
        let bytes = memg::encode(&fitted, ByteOrder::Little);
        fits = disassemble(fitted);
        let (motion, measured) = decoded_and_measured(anim, &bytes, stop)?;
        check_s += checking.elapsed().as_secs_f64();
        let over: Vec<usize> = match bound {
            Rank::Bound(limit, _) => (0..groups.len())
                .filter(|&g| measured.groups[g].max > limit)
                .collect(),
            Rank::Rms(limit, _) => (0..groups.len())
                .filter(|&g| measured.groups[g].rms > limit)
                .collect(),
            Rank::Fixed(_) => Vec::new(),
        };
        if over.is_empty() {
            let report = FitReport::new(
                anim,
                groups,
                &fits.iter().map(|f| f.rank).collect::<Vec<_>>(),
                &frames.iter().map(Option::is_some).collect::<Vec<_>>(),
                motion.local_frames,
                &measured,
                options,
                bound,
                bytes.len() as u64,
                Seconds {
                    fit: fit_s,
                    check: check_s,
                    ..Seconds::default()
                },
            );
            return Ok(Checked {
                bytes,
                motion,
                report,
            });
        }
        let refitting = Instant::now();
        for g in over {
            let Some(limit) = bound.limit() else {
                unreachable!("only a bound refits")
            };
            let next = fits[g].rank + 1;
            let unreachable = || match bound {
                Rank::Rms(..) => FitError::UnreachableRms {
                    group: groups[g].name.clone(),
                    bound: limit,
                    rank: fits[g].rank,
                    rms_error: measured.groups[g].rms,
                },
                _ => FitError::Unreachable {
                    group: groups[g].name.clone(),
                    bound: limit,
                    rank: fits[g].rank,
                    max_error: measured.groups[g].max,
                },
            };
            if next > (3 * groups[g].vertices.len()).min(anim.frames) {
                return Err(unreachable());
            }
            fits[g] = fit_one(
                anim,
                &groups[g],
                frames[g].as_deref().map(Vec::as_slice),
                bound.with_floor(next),
                basis::Refit::Minimax,
                stop,
            )
            .map_err(|e| match e {
                FitError::Stopped => e,
                _ => unreachable(),
            })?;
        }
        fit_s += refitting.elapsed().as_secs_f64();
    }
}

/// A fitted motion's file decoded, and deformed by the library's deformer
/// at every timestep against `anim`: what every fit's check measures.
fn decoded_and_measured(
    anim: &Animation<'_>,
    bytes: &[u8],
    stop: Stop<'_>,
) -> Result<(MemgMotion, check::Measured), FitError> {
    let motion = memg::decode(bytes).map_err(FitError::Undecodable)?;
    let measured = check::measure(anim, &motion, stop).map_err(FitError::Unbound)?;
    if stop.now() {
        return Err(FitError::Stopped);
    }
    Ok((motion, measured))
}

/// The options and groups checked against `anim`; the bound as a rank rule.
fn check_inputs(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    options: &FitOptions,
) -> Result<Rank, FitError> {
    let v = anim.vertices;
    if anim.frames == 0 {
        return Err(FitError::NoFrames);
    }
    if options.fps < 1 {
        return Err(FitError::FrameRate { fps: options.fps });
    }
    if groups.is_empty() {
        return Err(FitError::NoGroups);
    }
    let mut covered = vec![false; v];
    let mut names = std::collections::HashSet::with_capacity(groups.len());
    for g in groups {
        if g.vertices.is_empty() {
            return Err(FitError::EmptyGroup {
                group: g.name.clone(),
            });
        }
        if !names.insert(g.name.as_str()) {
            return Err(FitError::NamedTwice {
                group: g.name.clone(),
            });
        }
        for &i in &g.vertices {
            let Some(c) = covered.get_mut(i as usize) else {
                return Err(FitError::VertexOutside {
                    group: g.name.clone(),
                    vertex: i,
                    vertices: v,
                });
            };
            *c = true;
        }
        if g.vertices.windows(2).any(|w| w[0] >= w[1]) {
            return Err(FitError::Unordered {
                group: g.name.clone(),
            });
        }
    }
    if let Some(i) = covered.iter().position(|c| !c) {
        return Err(FitError::Ungrouped { vertex: i });
    }
    let positive = |e: f64| {
        if e.is_finite() && e > 0.0 {
            Ok(e)
        } else {
            Err(FitError::Bound { value: e })
        }
    };
    Ok(match options.bound {
        Bound::Rank(r) => Rank::Fixed(r),
        Bound::MaxError(e) => Rank::Bound(positive(e)?, 0),
        Bound::MaxErrorOfDiagonal(f) => Rank::Bound(positive(f)? * anim.diagonal(), 0),
        Bound::RmsError(e) => Rank::Rms(positive(e)?, 0),
        Bound::RmsErrorOfDiagonal(f) => Rank::Rms(positive(f)? * anim.diagonal(), 0),
    })
}
