//! One affine frame shared by every group, fitted with their bases: the
//! MEMG file's other way under [`super::FrameMode::Auto`].
//!
//! A MEMG frame is any 3×4 affine matrix (docs/formats.md §3), not only a
//! rotation: a vertex is at `A_t·(p + U·q_t) + c_t`. A general `A_t` carries
//! what a rotation cannot (the whole body's stretch and shear, the linear
//! part of a bend), at the same 96 bytes a timestep, and the mean pose `p`,
//! which the file stores anyway, becomes three columns of basis for free:
//! `A_t·p` is linear in the frame's nine numbers. So each group needs fewer
//! columns, at 24 bytes a vertex and 8 a timestep each. On Dem Bones'
//! sample at 1.8 % of the diagonal, rigid frames need rank 5 in one group
//! (166 041 bytes) and more in two parts; one affine frame shared by two
//! parts, ranks 2 and 2 (110 410 bytes; BENCHMARKS.md). Groups the rigid
//! fit left in world space stay there.
//!
//! The fit alternates least squares over three blocks, each solved exactly
//! with the others held, so the summed squared error does not rise (but
//! for the pull below):
//! - each timestep's frame, regressing every vertex's position on its
//!   local one;
//! - each vertex's `p` and `U` rows, given every frame and coefficient;
//! - each group's coefficients at each timestep.
//!
//! It starts from the framed groups' rigid frames made affine by sweeps at
//! rank 0 (an affine Procrustes analysis: the frames that carry each
//! group's mean shape best), and each group's PCA of what its mean shape
//! leaves in them. It sweeps until one gains less than [`GAIN`], each
//! sweep's step taken again further where that gains more (a line search,
//! as for tensor decompositions: alternating least squares otherwise
//! creeps along shallow valleys). Then Lawson's reweighting (as in
//! `minimax.rs`, here measured in world space) refits the three blocks
//! for the largest error; the round with the smallest is kept. Every solve
//! is pulled a little towards the values it replaces, so a flat group
//! (whose frame is free across its plane) stays where it was.
//!
//! A vertex on a seam between groups is fitted once, in one of them
//! ([`fitted_once`]).
//!
//! The glTF export carries a frame as a node's rotation and translation,
//! so this way is taken only for the MEMG file; and only for meshes whose
//! positions over time may be held whole ([`fits`]).

mod factors;
mod steps;
#[cfg(test)]
mod tests;

use super::basis::{GroupBasis, Rank};
use super::minimax::{self, Rounds};
use super::{
    Animation, Checked, Effort, FitError, FitGroup, FitOptions, FitReport, FrameMode, Seconds,
    SizedFor, Stop, decoded_and_measured,
};
use crate::formats::bytes::ByteOrder;
use crate::formats::memg::{self, MemgGroup, MemgMotion};
use factors::{Factors, Frame};
use std::time::Instant;
use steps::{PerEntry, Problem};

/// The least squares sweeps at most; they stop sooner where one gains
/// less than [`GAIN`] of the summed squared error.
const SWEEPS: usize = 80;
const GAIN: f64 = 1e-4;

/// How many times its own length a sweep's step may be taken again.
const MAX_BETA: f64 = 16.0;

/// The refit for the largest error once the least squares are done: in
/// the fit written, and (shorter) in the fits `--parts auto` compares.
pub(super) const ROUNDS: Rounds = Rounds {
    most: 32,
    patience: 8,
};
pub(super) const SEARCH_ROUNDS: Rounds = Rounds {
    most: 12,
    patience: 4,
};

/// How far over its target a least squares fit may be and still be
/// refitted for the largest error: the refit brings the largest error
/// down by 1.3 to 2× on Dem Bones' sample.
const HOPELESS: f64 = 2.5;

/// How far over its target a fit may be after [`SCREENED_AT`] sweeps and
/// still be swept on: the sweeps after the tenth brought the largest error
/// down by at most 1.6× on Dem Bones' sample and the dancer.
const SCREENED: f64 = 2.0 * HOPELESS;
const SCREENED_AT: usize = 10;

/// The most multiply-adds one refit round may take (`E·n·(3(r + 1))²` for
/// `E` vertices of every group, `n` timesteps): a fraction of a second on
/// two cores. A cap on the ranks past it is not tried.
const MAX_ROUND_WORK: u64 = 1 << 28;

/// The most groups each lowered one rank at a time below the cap found
/// (a fit each step).
pub(super) const LOWERED_GROUPS: usize = 12;

/// The most groups fitted this way: each is a least squares problem per
/// timestep in every sweep.
pub(crate) const MAX_GROUPS: usize = 64;

/// The bytes of the MEMG file of `groups` at `ranks`, those `framed` in
/// one frame, over `frames` timesteps ([`memg::encoded_len`] from the
/// shapes alone).
pub(super) fn file_bytes(
    groups: &[FitGroup],
    framed: &[bool],
    ranks: &[usize],
    frames: usize,
) -> u64 {
    let n = frames as u64;
    let head = memg::header_len(if framed.iter().any(|&f| f) { n } else { 0 });
    groups.iter().zip(ranks).fold(head, |sum, (g, &r)| {
        let (v, r) = (g.vertices.len() as u64, r as u64);
        sum + memg::group_len(g.name.len() as u64, v, 3 * v, 3 * v * r, r * n)
    })
}

/// Whether the groups (`entries` vertices among them, counted once per
/// group) over `frames` timesteps may be fitted this way: their positions
/// are held whole, with a weight and an error each, as `minimax.rs` holds
/// one group's ([`minimax::MAX_ENTRIES`]).
pub(crate) fn fits(entries: u64, frames: u64) -> bool {
    minimax::refits(entries, frames)
}

/// Whether ranks up to `rank` are cheap enough to try.
pub(crate) fn tries_at(entries: u64, frames: u64, rank: u64) -> bool {
    let m = rank.saturating_add(1).saturating_mul(3);
    fits(entries, frames)
        && entries
            .saturating_mul(frames)
            .saturating_mul(m.saturating_mul(m))
            <= MAX_ROUND_WORK
}

/// Bytes this fit of `groups` groups holds at ranks up to `rank`: a weight
/// and an error per vertex and timestep; the rows, coefficients and frames
/// five times (the sweep's, the one before, the step taken further, the
/// best, and as first made); and, while it starts, one group's residuals
/// (`f64`, `3v × n`) with their Gram matrix, its eigenvectors and their
/// work (`min(3v, n)² ≤ 3v·n` each).
pub(crate) fn bytes(entries: u64, groups: u64, frames: u64, rank: u64) -> u64 {
    let rows = entries.saturating_mul(3).saturating_mul(rank + 1);
    let coeffs = frames.saturating_mul(rank).saturating_mul(groups);
    let state = rows
        .saturating_add(coeffs)
        .saturating_add(frames.saturating_mul(12))
        .saturating_mul(8 * 5);
    entries
        .saturating_mul(frames)
        .saturating_mul(16 + 24 + 3 * 24)
        .saturating_add(state)
}

/// What [`fit`] made: the shared frame at every timestep, each group's
/// arrays, and the largest error measured in `f64`.
pub(super) struct Shared {
    pub frames: Vec<Frame>,
    pub fits: Vec<GroupBasis>,
    pub max_error: f64,
}

/// Every group fitted in one affine frame, group `g` at rank `ranks[g]`
/// (at most its `min(3v, n)`), for the least largest error, until it is
/// within `target` or `rounds` say; `None` once stopped. A fit more than
/// [`SCREENED`] times `target` after [`SCREENED_AT`] sweeps, or whose least
/// squares leave it more than [`HOPELESS`] times, goes no further: it is
/// returned as it is, over the target.
pub(super) fn fit(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    framed: &[bool],
    ranks: &[usize],
    target: f64,
    rounds: Rounds,
    stop: Stop<'_>,
) -> Option<Shared> {
    let n = anim.frames;
    let problem = Problem {
        anim,
        groups,
        framed,
    };
    let (mut frames, mut factors) = problem.start(ranks, stop)?;
    let mut errors: PerEntry = groups
        .iter()
        .map(|g| vec![0.0; g.vertices.len() * n])
        .collect();
    let mut sum = problem.errors(&frames, &factors, &mut errors).1;
    let mut beta = 1.0;
    for sweep in 1..=SWEEPS {
        if stop.now() {
            return None;
        }
        if sweep == SCREENED_AT {
            let largest = problem.errors(&frames, &factors, &mut errors).0;
            if largest > SCREENED * target {
                return Some((largest, frames, factors).into());
            }
        }
        let before = (frames.clone(), factors.clone());
        frames = problem.frame_step(&frames, &factors, None);
        factors = problem.row_step(&frames, &factors, None);
        factors = problem.coeff_step(&frames, &factors, None);
        let mut next = problem.errors(&frames, &factors, &mut errors).1;
        // The sweep's step taken again `beta` times further, where that
        // gains more: alternating least squares creeps along shallow
        // valleys, and the longer step crosses them.
        let far = (
            frames
                .iter()
                .zip(&before.0)
                .map(|(f, b)| f.beyond(b, beta))
                .collect::<Vec<_>>(),
            factors
                .iter()
                .zip(&before.1)
                .map(|(f, b)| f.beyond(b, beta))
                .collect::<Vec<_>>(),
        );
        let there = problem.errors(&far.0, &far.1, &mut errors).1;
        if there < next {
            (frames, factors) = far;
            next = there;
            beta = (beta * 1.5).min(MAX_BETA);
        } else {
            beta = (beta / 2.0).max(1.0);
        }
        let gained = sum - next;
        sum = next;
        if gained <= GAIN * next {
            break;
        }
    }
    let mut largest = problem.errors(&frames, &factors, &mut errors).0;
    let mut best = (largest, frames.clone(), factors.clone());
    if largest > HOPELESS * target {
        return Some(best.into());
    }
    // Lawson's rounds, every block reweighted.
    let mut weights: PerEntry = errors.iter().map(|e| vec![1.0; e.len()]).collect();
    let mut since = 0;
    for _ in 0..rounds.most {
        if stop.now() {
            return None;
        }
        if best.0 <= target {
            break;
        }
        reweigh(&mut weights, &errors);
        frames = problem.frame_step(&frames, &factors, Some(&weights));
        factors = problem.row_step(&frames, &factors, Some(&weights));
        factors = problem.coeff_step(&frames, &factors, Some(&weights));
        largest = problem.errors(&frames, &factors, &mut errors).0;
        if largest < best.0 {
            best = (largest, frames.clone(), factors.clone());
            since = 0;
        } else {
            since += 1;
            if since >= rounds.patience {
                break;
            }
        }
    }
    Some(best.into())
}

impl From<(f64, Vec<Frame>, Vec<Factors>)> for Shared {
    fn from((max_error, frames, factors): (f64, Vec<Frame>, Vec<Factors>)) -> Shared {
        Shared {
            frames,
            fits: factors.iter().map(Factors::basis).collect(),
            max_error,
        }
    }
}

/// Each weight times the square root of its error's ratio to the mean
/// error, then all scaled to a mean of 1.
fn reweigh(weights: &mut PerEntry, errors: &PerEntry) {
    let count: usize = errors.iter().map(Vec::len).sum();
    let mean = errors.iter().flatten().sum::<f64>() / count.max(1) as f64;
    if mean <= 0.0 {
        return;
    }
    for (w, e) in weights.iter_mut().zip(errors) {
        for (w, e) in w.iter_mut().zip(e) {
            *w *= (e / mean).sqrt();
        }
    }
    let total = weights.iter().flatten().sum::<f64>() / count.max(1) as f64;
    if total > 0.0 {
        weights.iter_mut().flatten().for_each(|w| *w /= total);
    }
}

/// Under [`FrameMode::Auto`] and a largest-error bound, for the MEMG file:
/// the groups `rigid` put in frames in one affine frame they share, those
/// it left in world space there still, each group's rank at most
/// `rigid`'s and capped as low as holds the bound on the decoded file
/// (the caps tried are those whose file would be smaller than `rigid`'s,
/// searched by halving, taking the reach as growing with the cap); in the
/// fit written, each of up to [`LOWERED_GROUPS`] groups is then lowered
/// further while it holds. A vertex on a seam between groups is fitted
/// once ([`fitted_once`]). `None` where no cap holds, or the mesh is too
/// large to try ([`fits`]).
pub(super) fn instead(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    options: &FitOptions,
    bound: Rank,
    rigid: &Checked,
    stop: Stop<'_>,
    effort: Effort,
) -> Result<Option<Checked>, FitError> {
    let Rank::Bound(limit, _) = bound else {
        return Ok(None);
    };
    let n = anim.frames;
    let entries: u64 = groups.iter().map(|g| g.vertices.len() as u64).sum();
    if options.frames != FrameMode::Auto
        || options.sized_for != SizedFor::Memg
        || groups.len() > MAX_GROUPS
        || !fits(entries, n as u64)
    {
        return Ok(None);
    }
    // The rigid fit's groups in frames share the affine one; those it
    // left in world space stay there.
    let framed: Vec<bool> = rigid.report.groups.iter().map(|g| g.frame).collect();
    if !framed.iter().any(|&f| f) {
        return Ok(None);
    }
    let rigid_ranks: Vec<usize> = rigid.report.groups.iter().map(|g| g.rank).collect();
    // A vertex on a seam fitted once: the file cannot be exported to a
    // reduced glTF (its frame is no rotation), which alone needs the copies.
    let once = fitted_once(anim.vertices, groups, &rigid_ranks);
    let groups: &[FitGroup] = once.as_deref().unwrap_or(groups);
    // Every group's rank capped at `r`.
    let capped = |r: usize| -> Vec<usize> { rigid_ranks.iter().map(|&g| g.min(r)).collect() };
    // The highest cap whose file is smaller than the rigid fit's and whose
    // rounds are cheap enough.
    let widest = rigid_ranks.iter().copied().max().unwrap_or(0);
    let Some(top) = (0..=widest).rev().find(|&r| {
        file_bytes(groups, &framed, &capped(r), n) < rigid.bytes.len() as u64
            && tries_at(entries, n as u64, r as u64)
    }) else {
        return Ok(None);
    };
    let (fit_s, check_s) = (rigid.report.seconds.fit, rigid.report.seconds.check);
    let mut spent = (0.0, 0.0);
    // Aimed a little under the bound: the `f32` arrays are measured again.
    let target = limit * (1.0 - 1e-3);
    // The ranks found over the bound (the search down a group's rank may
    // come back to them).
    let mut over: Vec<Vec<usize>> = Vec::new();
    let mut at = |ranks: &[usize]| -> Result<Option<Checked>, FitError> {
        if over.iter().any(|o| o == ranks) {
            return Ok(None);
        }
        let fitting = Instant::now();
        let rounds = match effort {
            Effort::Full => ROUNDS,
            Effort::Search => SEARCH_ROUNDS,
        };
        let Some(shared) = fit(anim, groups, &framed, ranks, target, rounds, stop) else {
            return if stop.now() {
                Err(FitError::Stopped)
            } else {
                Ok(None)
            };
        };
        spent.0 += fitting.elapsed().as_secs_f64();
        if shared.max_error > target {
            over.push(ranks.to_vec());
            return Ok(None);
        }
        let checking = Instant::now();
        let checked = checked(anim, groups, &framed, options, bound, shared, stop)?;
        spent.1 += checking.elapsed().as_secs_f64();
        if checked.is_none() {
            over.push(ranks.to_vec());
        }
        Ok(checked)
    };
    // The highest cap first: where it is over, no lower one holds. Then
    // the lowest cap that holds, by halving.
    let Some(mut best) = at(&capped(top))? else {
        return Ok(None);
    };
    let (mut lo, mut hi) = (0, top);
    while lo < hi {
        let mid = (lo + hi) / 2;
        match at(&capped(mid))? {
            Some(c) => {
                best = c;
                hi = mid;
            }
            None => lo = mid + 1,
        }
    }
    // Then each group lower while the others still hold the bound, the
    // largest first: in the fit written, for a few groups, a fit each.
    if effort == Effort::Full && groups.len() <= LOWERED_GROUPS {
        let mut ranks = capped(hi);
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by_key(|&g| std::cmp::Reverse(groups[g].vertices.len()));
        for g in order {
            while ranks[g] > 0 {
                ranks[g] -= 1;
                match at(&ranks)? {
                    Some(c) => best = c,
                    None => {
                        ranks[g] += 1;
                        break;
                    }
                }
            }
        }
    }
    // The times of every fit tried.
    best.report.seconds.fit = fit_s + spent.0;
    best.report.seconds.check = check_s + spent.1;
    Ok(Some(best))
}

/// `groups` with each vertex on a seam in one of its groups only: the one
/// of the lowest rank in `ranks` (the rigid fit's, where every copy held
/// the bound), the later on a tie. A MEMG group maps any of the scene's
/// vertices (docs/formats.md §3), and the viewer draws one copy of a
/// vertex anyway, the later group's: so every other copy is bytes never
/// drawn, and a bound on a group that need not follow its neighbour's
/// motion there. `None` where no vertex is in two groups, or where a
/// group would be left without vertices.
fn fitted_once(vertices: usize, groups: &[FitGroup], ranks: &[usize]) -> Option<Vec<FitGroup>> {
    // The group that keeps each vertex.
    let mut owner = vec![u32::MAX; vertices];
    let mut copies = 0usize;
    for (g, group) in groups.iter().enumerate() {
        for &v in &group.vertices {
            let at = owner.get_mut(v as usize)?;
            if *at == u32::MAX {
                *at = g as u32;
            } else {
                copies += 1;
                if ranks.get(g) <= ranks.get(*at as usize) {
                    *at = g as u32;
                }
            }
        }
    }
    if copies == 0 {
        return None;
    }
    let once: Vec<FitGroup> = groups
        .iter()
        .enumerate()
        .map(|(g, group)| FitGroup {
            name: group.name.clone(),
            vertices: group
                .vertices
                .iter()
                .copied()
                .filter(|&v| owner[v as usize] == g as u32)
                .collect(),
        })
        .collect();
    once.iter().all(|g| !g.vertices.is_empty()).then_some(once)
}

/// `shared` as a MEMG file, decoded and measured against `anim` at every
/// vertex and timestep; `None` where a group is over the bound.
pub(super) fn checked(
    anim: &Animation<'_>,
    groups: &[FitGroup],
    framed: &[bool],
    options: &FitOptions,
    bound: Rank,
    shared: Shared,
    stop: Stop<'_>,
) -> Result<Option<Checked>, FitError> {
    let ranks: Vec<usize> = shared.fits.iter().map(|f| f.rank).collect();
    let motion = MemgMotion {
        byte_order: ByteOrder::Little,
        fps: options.fps,
        local_frames: 1,
        timesteps: anim.frames,
        frames: shared.frames.iter().map(Frame::matrix).collect(),
        groups: groups
            .iter()
            .zip(shared.fits)
            .zip(framed)
            .map(|((g, fit), &framed)| MemgGroup {
                name: g.name.clone(),
                mapping: g.vertices.iter().map(|&i| i + 1).collect(),
                mean: fit.mean,
                parent: if framed { 0 } else { -1 },
                basis_len: fit.rank,
                basis: fit.basis,
                coeffs: fit.coeffs,
            })
            .collect(),
        warnings: Vec::new(),
    };
    let bytes = memg::encode(&motion, ByteOrder::Little);
    drop(motion);
    let (motion, measured) = decoded_and_measured(anim, &bytes, stop)?;
    let Some(limit) = bound.limit() else {
        return Ok(None);
    };
    if measured.groups.iter().any(|e| e.max > limit) {
        return Ok(None);
    }
    let mut report = FitReport::new(
        anim,
        groups,
        &ranks,
        framed,
        1,
        &measured,
        options,
        bound,
        bytes.len() as u64,
        Seconds::default(),
    );
    report.affine_frame = true;
    Ok(Some(Checked {
        bytes,
        motion,
        report,
    }))
}
