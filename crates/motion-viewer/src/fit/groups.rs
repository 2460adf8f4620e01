//! Each group fitted: its rigid frames (or none) and its basis, small groups
//! side by side; and the fitted groups assembled into a MEMG motion.

use super::basis::{self, GroupBasis, Rank};
use super::frames::{self, Rigid};
use super::{Animation, FitError, FitGroup, FitOptions, FrameMode, Stop};
use crate::formats::bytes::ByteOrder;
use crate::formats::memg::{MemgGroup, MemgMotion};

/// Groups whose positions (`3v × n` values) are at most this many are
/// fitted several at once, each on one thread: for a group this small the
/// threads cost more than they save, and thousands of them in a row spend
/// their time handing work to the pool. Their working sets are a few MB at
/// most, so the memory estimate's one-group-at-a-time working set holds.
const SMALL_GROUP_VALUES: usize = 1 << 16;

/// Each group's frames (`None`: world space) and basis, as `mode` says:
/// small groups side by side, then the others one after another (each
/// using every thread).
#[allow(clippy::type_complexity)]
pub(super) fn fit_groups(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    mode: FrameMode,
    rank: Rank,
    stop: Stop<'_>,
) -> Result<(Vec<Option<Vec<Rigid>>>, Vec<GroupBasis>), FitError> {
    use rayon::prelude::*;
    let small = |g: &FitGroup| 3 * g.vertices.len() * anim.frames <= SMALL_GROUP_VALUES;
    let mut done: Vec<Option<Result<_, FitError>>> = Vec::with_capacity(groups.len());
    done.resize_with(groups.len(), || None);
    // One hand-over to the pool for all of them; each group's own parallel
    // calls then run inside it, where they are cheap.
    done.par_iter_mut()
        .zip(groups)
        .filter(|(_, g)| small(g))
        .for_each(|(slot, g)| *slot = Some(fit_frames_and_basis(anim, g, mode, rank, stop)));
    let mut frames = Vec::with_capacity(groups.len());
    let mut fits = Vec::with_capacity(groups.len());
    for (slot, g) in done.into_iter().zip(groups) {
        let result = match slot {
            Some(r) => r,
            None => fit_frames_and_basis(anim, g, mode, rank, stop),
        };
        let (f, b) = result?;
        frames.push(f);
        fits.push(b);
    }
    Ok((frames, fits))
}

/// One group's frames (`None`: world space) and basis, as `mode` says.
#[allow(clippy::type_complexity)]
fn fit_frames_and_basis(
    anim: &Animation<'_>,
    g: &FitGroup,
    mode: FrameMode,
    rank: Rank,
    stop: Stop<'_>,
) -> Result<(Option<Vec<Rigid>>, GroupBasis), FitError> {
    if stop.now() {
        return Err(FitError::Stopped);
    }
    let local = || {
        let f = frames::rigid_frames(anim, &g.vertices, stop);
        fit_one(anim, g, Some(&f), rank, 0, stop).map(|b| (Some(f), b))
    };
    let world = || fit_one(anim, g, None, rank, 0, stop).map(|b| (None, b));
    Ok(match mode {
        FrameMode::Local => local()?,
        FrameMode::World => world()?,
        FrameMode::Auto => match (local(), world()) {
            (Err(FitError::Stopped), _) | (_, Err(FitError::Stopped)) => {
                return Err(FitError::Stopped);
            }
            (Ok(l), Ok(w)) => {
                let n = anim.frames as u64;
                let bytes = |b: &GroupBasis| {
                    let r = b.rank as u64;
                    24 * g.vertices.len() as u64 * r + 8 * r * n
                };
                if bytes(&l.1) + 96 * n <= bytes(&w.1) {
                    l
                } else {
                    w
                }
            }
            (Ok(l), Err(_)) => l,
            (Err(_), Ok(w)) => w,
            (Err(e), Err(_)) => return Err(e),
        },
    })
}

/// One group's basis in `frames` (`None`: world space); `floor`: the
/// smallest rank to try under a bound.
pub(super) fn fit_one(
    anim: &Animation<'_>,
    group: &FitGroup,
    frames: Option<&[Rigid]>,
    rank: Rank,
    floor: usize,
    stop: Stop<'_>,
) -> Result<GroupBasis, FitError> {
    let rank = rank.with_floor(floor);
    let identity;
    let frames = match frames {
        Some(f) => f,
        None => {
            identity = vec![Rigid::IDENTITY; anim.frames];
            &identity
        }
    };
    basis::fit_group(anim, &group.vertices, frames, rank, stop).map_err(|e| match e {
        basis::Failed::Stopped => FitError::Stopped,
        basis::Failed::Unreachable(u) => FitError::Unreachable {
            group: group.name.clone(),
            bound: rank.limit().unwrap_or(0.0),
            rank: u.rank,
            max_error: u.max_error,
        },
    })
}

/// The fitted arrays back from [`assemble`]'s motion, in group order.
pub(super) fn disassemble(motion: MemgMotion) -> Vec<GroupBasis> {
    motion
        .groups
        .into_iter()
        .map(|g| GroupBasis {
            mean: g.mean,
            basis: g.basis,
            coeffs: g.coeffs,
            rank: g.basis_len,
            // Not used past the fit: the check measures the errors.
            max_error: 0.0,
        })
        .collect()
}

/// The MEMG motion of the fitted groups.
pub(super) fn assemble(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    frames: &[Option<Vec<Rigid>>],
    fits: Vec<GroupBasis>,
    options: &FitOptions,
) -> MemgMotion {
    // The groups with a frame, in order: their frame's index.
    let framed: Vec<&Vec<Rigid>> = frames.iter().flatten().collect();
    let mut next = 0;
    let parents: Vec<i32> = frames
        .iter()
        .map(|f| match f {
            Some(_) => {
                next += 1;
                next - 1
            }
            None => -1,
        })
        .collect();
    MemgMotion {
        byte_order: ByteOrder::Little,
        fps: options.fps,
        local_frames: framed.len(),
        timesteps: anim.frames,
        frames: (0..anim.frames)
            .flat_map(|t| framed.iter().map(move |f| f[t].matrix()))
            .collect(),
        groups: groups
            .iter()
            .zip(fits)
            .zip(parents)
            .map(|((g, fit), parent)| MemgGroup {
                name: g.name.clone(),
                mapping: g.vertices.iter().map(|&i| i + 1).collect(),
                mean: fit.mean,
                parent,
                basis_len: fit.rank,
                basis: fit.basis,
                coeffs: fit.coeffs,
            })
            .collect(),
        warnings: Vec::new(),
    }
}
