//! Each group fitted: its rigid frames (or none) and its basis, small groups
//! side by side; and the fitted groups assembled into a MEMG motion.

use super::basis::{self, GroupBasis, Rank, Refit};
use super::frames::{self, Rigid};
use super::{Animation, Effort, FitError, FitGroup, FitOptions, FrameMode, SizedFor, Stop};
use crate::formats::bytes::ByteOrder;
use crate::formats::memg::{MemgGroup, MemgMotion};
use std::sync::Arc;

/// Groups whose positions (`3v × n` values) are at most this many are
/// fitted several at once, each on one thread: for a group this small the
/// threads cost more than they save, and thousands of them in a row spend
/// their time handing work to the pool. Their working sets are a few MB at
/// most, so the memory estimate's one-group-at-a-time working set holds.
const SMALL_GROUP_VALUES: usize = 1 << 16;

/// A group's frames: its own, frames other groups share (the same `Arc`,
/// written once), or `None` (world space).
pub(super) type Frames = Option<Arc<Vec<Rigid>>>;

/// Under [`FrameMode::Auto`] with several groups, the frames a group may
/// take besides its own and none: the whole mesh's and those of this many
/// of the largest groups. Each is a fit of every group more.
const SHARED_FRAMES: usize = 16;

/// Under [`FrameMode::Auto`], how many of a group's candidate frames (the
/// cheapest by PCA's rank) are sized again with the minimax refit
/// (`minimax.rs`), as the fit written is.
const REFITTED_CANDIDATES: usize = 3;

/// With more groups than this (thousands of small groups, each a few
/// triangles), only the whole mesh's frames are shared: other groups'
/// frames would cost every group [`SHARED_FRAMES`] fits more.
const SHARED_FRAMES_UP_TO: usize = 64;

/// Each group's frames and basis, as `mode` says: small groups side by
/// side, then the others one after another (each using every thread).
pub(super) fn fit_groups(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    options: &FitOptions,
    rank: Rank,
    stop: Stop<'_>,
    effort: Effort,
) -> Result<(Vec<Frames>, Vec<GroupBasis>), FitError> {
    if stop.now() {
        return Err(FitError::Stopped);
    }
    let (mode, size) = (options.frames, options.sized_for);
    if mode == FrameMode::Auto && groups.len() == 1 {
        // One group: its own frames or none, both fitted, the smaller kept.
        let g = &groups[0];
        let own = Arc::new(frames::rigid_frames(anim, &g.vertices, stop));
        let n = anim.frames as u64;
        let (local, world) = (
            fit_one(anim, g, Some(own.as_slice()), rank, Refit::Minimax, stop),
            fit_one(anim, g, None, rank, Refit::Minimax, stop),
        );
        let (frames, fit) = match (local, world) {
            (Err(FitError::Stopped), _) | (_, Err(FitError::Stopped)) => {
                return Err(FitError::Stopped);
            }
            (Ok(l), Ok(w))
                if basis_bytes(size, g, &l, n) + size.frame_bytes(n)
                    <= basis_bytes(size, g, &w, n) =>
            {
                (Some(own), l)
            }
            (_, Ok(w)) => (None, w),
            (Ok(l), Err(_)) => (Some(own), l),
            (Err(e), Err(_)) => return Err(e),
        };
        return Ok((vec![frames], vec![fit]));
    }
    let frames: Vec<Frames> = match mode {
        FrameMode::Local => each_own_frames(anim, groups, stop),
        FrameMode::World => vec![None; groups.len()],
        FrameMode::Auto => choose_frames(anim, groups, size, rank, stop, effort)?,
    };
    let fits = fit_in(anim, groups, &frames, rank, stop)?;
    Ok((frames, fits))
}

/// Every group's own frames.
fn each_own_frames(anim: &Animation<'_>, groups: &[FitGroup], stop: Stop<'_>) -> Vec<Frames> {
    use rayon::prelude::*;
    // Side by side: thousands of small groups one after another would
    // spend their time handing work to the pool.
    groups
        .par_iter()
        .map(|g| Some(Arc::new(frames::rigid_frames(anim, &g.vertices, stop))))
        .collect()
}

/// Whether a group is small enough to be fitted on one thread beside others.
fn small(anim: &Animation<'_>, g: &FitGroup) -> bool {
    3 * g.vertices.len() * anim.frames <= SMALL_GROUP_VALUES
}

/// Each group's basis in its `frames`: small groups side by side, then the
/// others one after another.
fn fit_in(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    frames: &[Frames],
    rank: Rank,
    stop: Stop<'_>,
) -> Result<Vec<GroupBasis>, FitError> {
    use rayon::prelude::*;
    let fit = |g: &FitGroup, f: &Frames| {
        fit_one(
            anim,
            g,
            f.as_deref().map(Vec::as_slice),
            rank,
            Refit::Minimax,
            stop,
        )
    };
    let mut done: Vec<Option<Result<GroupBasis, FitError>>> = Vec::with_capacity(groups.len());
    done.resize_with(groups.len(), || None);
    // One hand-over to the pool for all of them; each group's own parallel
    // calls then run inside it, where they are cheap.
    done.par_iter_mut()
        .zip(groups.par_iter().zip(frames))
        .filter(|(_, (g, _))| small(anim, g))
        .for_each(|(slot, (g, f))| *slot = Some(fit(g, f)));
    done.into_iter()
        .zip(groups.iter().zip(frames))
        .map(|(slot, (g, f))| slot.unwrap_or_else(|| fit(g, f)))
        .collect()
}

/// [`FrameMode::Auto`] with several groups: which frames each group takes,
/// to make the smallest file. The candidates are the whole mesh's frames,
/// those of the [`SHARED_FRAMES`] largest groups (up to
/// [`SHARED_FRAMES_UP_TO`] groups), each group's own, and none; every
/// group is fitted in each by PCA's rank (only the bytes are kept), its
/// [`REFITTED_CANDIDATES`] cheapest again with the minimax refit; then
/// frames are opened one at a time, each time the one that saves the most
/// bytes — what the groups that move to it save, less its own bytes per
/// timestep — while one saves any (every group starts in world space).
fn choose_frames(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    size: SizedFor,
    rank: Rank,
    stop: Stop<'_>,
    effort: Effort,
) -> Result<Vec<Frames>, FitError> {
    use rayon::prelude::*;
    let mut by_size: Vec<usize> = (0..groups.len()).collect();
    by_size.sort_by_key(|&i| std::cmp::Reverse(groups[i].vertices.len()));
    let mut all: Vec<u32> = groups
        .iter()
        .flat_map(|g| g.vertices.iter().copied())
        .collect();
    all.sort_unstable();
    all.dedup();
    // Candidate frames: the whole mesh's, then every group's own (only the
    // largest groups' are offered to the others).
    let candidates: Vec<Arc<Vec<Rigid>>> =
        std::iter::once(Arc::new(frames::rigid_frames(anim, &all, stop)))
            .chain(each_own_frames(anim, groups, stop).into_iter().flatten())
            .collect();
    // Group i's own frames are candidate i + 1.
    let own = |i: usize| i + 1;
    let others = if groups.len() <= SHARED_FRAMES_UP_TO {
        SHARED_FRAMES
    } else {
        0
    };
    let offered: Vec<usize> = std::iter::once(0)
        .chain(by_size.iter().take(others).map(|&i| own(i)))
        .collect();
    // Bytes of group i in candidate c (None: world space); u64::MAX where
    // no rank meets the bound.
    let pairs: Vec<(usize, Option<usize>)> = (0..groups.len())
        .flat_map(|i| {
            let mut cs: Vec<Option<usize>> = offered.iter().map(|&c| Some(c)).collect();
            if !offered.contains(&own(i)) {
                cs.push(Some(own(i)));
            }
            cs.push(None);
            cs.into_iter().map(move |c| (i, c))
        })
        .collect();
    let n = anim.frames as u64;
    let cost = |&(i, c): &(usize, Option<usize>), refit: Refit| -> Result<u64, FitError> {
        let g = &groups[i];
        let frames = c.map(|c| candidates[c].as_slice());
        match fit_one(anim, g, frames, rank, refit, stop) {
            Ok(b) => Ok(basis_bytes(size, g, &b, n)),
            Err(FitError::Stopped) => Err(FitError::Stopped),
            Err(_) => Ok(u64::MAX),
        }
    };
    // The bytes of the pairs `which` (indices into `pairs`), fitted as
    // `refit` says: small groups side by side, the others one by one.
    let costed = |which: &[usize], refit: Refit| -> Result<Vec<(usize, u64)>, FitError> {
        let (few, many): (Vec<usize>, Vec<usize>) = which
            .iter()
            .partition(|&&k| small(anim, &groups[pairs[k].0]));
        let mut out: Vec<(usize, u64)> = few
            .into_par_iter()
            .map(|k| cost(&pairs[k], refit).map(|b| (k, b)))
            .collect::<Result<_, _>>()?;
        for k in many {
            out.push((k, cost(&pairs[k], refit)?));
        }
        Ok(out)
    };
    // Every pair sized by PCA's rank alone; then each group's cheapest few
    // again as the file's fit is, refit and all: the refit for the largest
    // error can rank frames otherwise (Dem Bones' sample in two parts at
    // 1e-3: a part at rank 12 in its own frames, 16 in the shared ones,
    // which PCA's ranks had made the cheaper).
    let mut costs = vec![u64::MAX; pairs.len()];
    let every: Vec<usize> = (0..pairs.len()).collect();
    for (k, b) in costed(&every, Refit::PcaOnly)? {
        costs[k] = b;
    }
    // (A group too large to refit would only be fitted by PCA again.)
    let refits =
        |i: usize| super::minimax::refits(groups[i].vertices.len() as u64, anim.frames as u64);
    let again: Vec<usize> = (0..groups.len())
        .filter(|&i| effort == Effort::Full && refits(i))
        .flat_map(|i| {
            let mut ks: Vec<usize> = (0..pairs.len())
                .filter(|&k| pairs[k].0 == i && costs[k] < u64::MAX)
                .collect();
            ks.sort_by_key(|&k| costs[k]);
            ks.truncate(REFITTED_CANDIDATES);
            ks
        })
        .collect();
    for (k, b) in costed(&again, Refit::Minimax)? {
        costs[k] = b;
    }
    let mut of_group: Vec<Vec<(Option<usize>, u64)>> = vec![Vec::new(); groups.len()];
    for (&(i, c), &b) in pairs.iter().zip(&costs) {
        of_group[i].push((c, b));
    }
    // Greedy: every group in world space, then open the frame that saves
    // the most while one saves more than its own bytes.
    let frame = size.frame_bytes(n);
    let mut chosen: Vec<Option<usize>> = vec![None; groups.len()];
    let mut current: Vec<u64> = of_group
        .iter()
        .map(|cs| {
            cs.iter()
                .find(|(c, _)| c.is_none())
                .map_or(u64::MAX, |x| x.1)
        })
        .collect();
    let mut open: Vec<usize> = Vec::new();
    loop {
        let mut best: Option<(u64, usize)> = None;
        for c in 0..candidates.len() {
            if open.contains(&c) {
                continue;
            }
            let saved: u64 = of_group
                .iter()
                .zip(&current)
                .filter_map(|(cs, &now)| {
                    cs.iter()
                        .find(|(x, _)| *x == Some(c))
                        .map(|x| now.saturating_sub(x.1))
                })
                .fold(0u64, u64::saturating_add);
            if saved > frame && best.is_none_or(|(b, _)| saved - frame > b) {
                best = Some((saved - frame, c));
            }
        }
        let Some((_, c)) = best else { break };
        open.push(c);
        for (i, cs) in of_group.iter().enumerate() {
            if let Some(&(_, b)) = cs.iter().find(|(x, _)| *x == Some(c))
                && b < current[i]
            {
                current[i] = b;
                chosen[i] = Some(c);
            }
        }
    }
    for i in (0..groups.len()).filter(|&i| current[i] == u64::MAX) {
        // No frames met the bound for this group: the fit in its own
        // frames says why (or, should it meet it now, the group takes them).
        fit_one(
            anim,
            &groups[i],
            Some(candidates[own(i)].as_slice()),
            rank,
            Refit::PcaOnly,
            stop,
        )?;
        chosen[i] = Some(own(i));
    }
    Ok(chosen
        .into_iter()
        .map(|c| c.map(|c| Arc::clone(&candidates[c])))
        .collect())
}

/// The bytes of a group's basis and coefficients in the file `size` names.
fn basis_bytes(size: SizedFor, g: &FitGroup, b: &GroupBasis, timesteps: u64) -> u64 {
    size.rank_bytes(g.vertices.len() as u64, b.rank as u64, timesteps)
}

/// One group's basis in `frames` (`None`: world space), its rank chosen
/// as `rank` says (under a bound, from the rule's own floor up).
pub(super) fn fit_one(
    anim: &Animation<'_>,
    group: &FitGroup,
    frames: Option<&[Rigid]>,
    rank: Rank,
    refit: Refit,
    stop: Stop<'_>,
) -> Result<GroupBasis, FitError> {
    let identity;
    let frames = match frames {
        Some(f) => f,
        None => {
            identity = vec![Rigid::IDENTITY; anim.frames];
            &identity
        }
    };
    basis::fit_group(anim, &group.vertices, frames, rank, refit, stop).map_err(|e| match e {
        basis::Failed::Stopped => FitError::Stopped,
        basis::Failed::Unreachable(u) => FitError::Unreachable {
            group: group.name.clone(),
            bound: rank.limit().unwrap_or(0.0),
            rank: u.rank,
            max_error: u.max_error,
        },
    })
}

/// Every group's basis refitted at its rank for the smallest largest
/// error ([`super::minimax::polish`]), one group after another: under a
/// largest-error bound, for a fit whose glTF is written, which spends what
/// the fit leaves of the bound.
pub(super) fn polish(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    frames: &[Frames],
    fits: Vec<GroupBasis>,
    stop: Stop<'_>,
) -> Vec<GroupBasis> {
    let identity = vec![Rigid::IDENTITY; anim.frames];
    groups
        .iter()
        .zip(frames)
        .zip(fits)
        .map(|((g, f), fit)| {
            let f = f.as_deref().map_or(identity.as_slice(), Vec::as_slice);
            super::minimax::polish(anim, &g.vertices, f, fit, stop)
        })
        .collect()
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
    frames: &[Frames],
    fits: Vec<GroupBasis>,
    options: &FitOptions,
) -> MemgMotion {
    // The distinct frames in order of first use (a shared one once), and
    // each group's index among them.
    let mut framed: Vec<&Arc<Vec<Rigid>>> = Vec::new();
    let parents: Vec<i32> = frames
        .iter()
        .map(|f| match f {
            Some(f) => {
                let k = framed
                    .iter()
                    .position(|x| Arc::ptr_eq(x, f))
                    .unwrap_or_else(|| {
                        framed.push(f);
                        framed.len() - 1
                    });
                i32::try_from(k).expect("fewer frames than groups")
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
