//! What a MEMG fit (`viewer memg fit`, the Python `fit`) will hold,
//! counted from its sizes before it starts, and the check that refuses it
//! in one line.

use super::{room, shown};
use crate::error::{Error, Result};
use std::path::Path;

/// The most bytes a MEMG fit (`viewer memg fit`) may hold: a 100 000-vertex,
/// 1 000-frame cache takes at most about 7.4 GB (see `fit_bytes`), most
/// of it the basis at the largest rank a bound could ask for.
pub(crate) const MAX_FIT_BYTES: u64 = 8 << 30;

/// Bytes a MEMG fit holds at most, for `vertices` × `frames` positions and
/// groups of `groups` vertices each, at `rank` (or, under an error bound,
/// the largest rank a group can have, `min(3v, frames)`). Saturates.
///
/// With `v` a group's vertices, `r` its rank and `n` the frames, the fit
/// holds the positions (`12·V·n`, `f32`, mapped or copied) and, at its
/// largest, either
/// - while fitting: every fitted group's arrays (`p`, `U`, `Q` in `f32`:
///   `12v + 12vr + 4rn`, and its frames, `216n`) and the largest group's
///   working set: its Gram matrix with its eigenvectors and faer's scratch
///   (`min(3v, n)²` `f64` per thread and three more), its rows made whole
///   where they are fewer than the frames (`8·3v·n`), and `U` as made
///   (`36vr`: `f32`, its `f64` blocks, the copy kept) — or, for a group
///   small enough to be refitted for its largest error (`fit/minimax.rs`),
///   that refit's positions, weights and errors (`40vn`) and its factors
///   twice, beside `U`; or, under `--frames auto` for a mesh small enough
///   (`fit/affine/`), the shared affine frame's fit beside the rigid fit's
///   file and decoding; or
/// - while checking: the file's bytes (`f64`: `28v + 24vr + 8rn + 96n`),
///   the file decoded (`16v + 12vr + 4rn + 96n`) and either the fitted
///   arrays or (after the check, in the Python package) a copy of the
///   bytes, and per scene vertex 52 bytes of bookkeeping plus the deformed
///   frames measured at once (32 MiB, or one frame of the largest group);
///
/// and half of that again, at most 64 MiB per thread's heap, for the
/// allocator's slack (glibc keeps freed blocks for reuse: a 40 000-vertex
/// fit at rank 12 peaks 22 MB above its live 160 MB).
///
/// Measured against the peak resident memory of real fits in
/// `tests/cli/fit_memory.rs`.
pub(crate) fn fit_bytes(vertices: u64, frames: u64, groups: &[u64], rank: Option<u64>) -> u64 {
    let threads = rayon::current_num_threads() as u64;
    let n = frames;
    let input = vertices.saturating_mul(n).saturating_mul(12);
    let (mut fitted, mut checked, mut working, mut largest) = (0u64, 0u64, 0u64, 0u64);
    for &v in groups {
        let side = v.saturating_mul(3).min(n);
        let r = rank.map_or(side, |r| r.min(side));
        let vr = v.saturating_mul(r);
        let rn = r.saturating_mul(n);
        let arrays = v
            .saturating_mul(12)
            .saturating_add(vr.saturating_mul(12))
            .saturating_add(rn.saturating_mul(4))
            .saturating_add(n.saturating_mul(216));
        fitted = fitted.saturating_add(arrays);
        // The arrays, the bytes twice and the decoded motion.
        let file = v
            .saturating_mul(28)
            .saturating_add(vr.saturating_mul(24))
            .saturating_add(rn.saturating_mul(8))
            .saturating_add(n.saturating_mul(96));
        let decoded = v
            .saturating_mul(16)
            .saturating_add(vr.saturating_mul(12))
            .saturating_add(rn.saturating_mul(4))
            .saturating_add(n.saturating_mul(96));
        // While checking: the arrays, the file and its decoding; after it,
        // in Python, the file, its copy and the decoding.
        checked = checked
            .saturating_add(arrays.max(file))
            .saturating_add(file)
            .saturating_add(decoded);
        let gram = side.saturating_mul(side).saturating_mul(8 * (threads + 3));
        // Fewer rows than frames: the rows are made whole.
        let rows = if side < n {
            side.saturating_mul(n).saturating_mul(8)
        } else {
            0
        };
        working = working.max(
            gram.saturating_add(rows)
                .saturating_add(vr.saturating_mul(36))
                .saturating_add(v.saturating_mul(12)),
        );
        // A small group's minimax refit, once its eigendecomposition is
        // gone: its positions whole, a weight and an error each, beside
        // PCA's arrays.
        #[cfg(feature = "fit")]
        if crate::fit::minimax::refits(v, n) {
            working = working.max(
                crate::fit::minimax::bytes(v, n, r)
                    .saturating_add(vr.saturating_mul(36))
                    .saturating_add(v.saturating_mul(12)),
            );
        }
        largest = largest.max(v);
    }
    // Every group in one shared affine frame (`fit/affine/`), tried
    // after the rigid fit, whose file and decoding it holds meanwhile, at
    // the highest common rank it may try.
    #[cfg(feature = "fit")]
    {
        let entries = groups.iter().fold(0u64, |s, &v| s.saturating_add(v));
        if groups.len() <= crate::fit::affine::MAX_GROUPS && crate::fit::affine::fits(entries, n) {
            let top = (0..=entries.saturating_mul(3).min(n))
                .take_while(|&r| crate::fit::affine::tries_at(entries, n, r))
                .last()
                .unwrap_or(0);
            working = working.max(
                crate::fit::affine::bytes(entries, groups.len() as u64, n, top)
                    .saturating_add(checked),
            );
        }
    }
    let measuring = vertices
        .saturating_mul(52)
        .saturating_add((32 << 20u64).max(largest.saturating_mul(12)));
    let fitting = fitted.saturating_add(working);
    let checking = checked.saturating_add(measuring);
    let allocated = fitting.max(checking);
    // What the allocator keeps beyond what is live (freed blocks it holds
    // for reuse, in one heap per thread; blocks over 32 MiB go back to the
    // system when freed): half as much again, at most 64 MiB per heap.
    let slack = (allocated / 2).min((64 << 20) * (threads + 1));
    input.saturating_add(allocated.saturating_add(slack))
}

/// What `memg fit --parts` holds beyond the fit of a split (which is sized
/// as one group of every vertex: no part is larger): every vertex at the
/// sampled timesteps in `f64` while the mesh is split (24 bytes ×
/// [`crate::fit::SAMPLED_FRAMES`] at most), the scene's text four times
/// over (as read, as regrouped, as parsed, and the smallest split's kept),
/// and 32 MiB per thread's heap of what the allocator keeps of the
/// splitting's and the previous split's freed blocks (trimmed between them,
/// but a fit of many seams still peaked a few MB above its own estimate on
/// top of them: `tests/cli/fit_bounded.rs`), and each vertex's part in the
/// splits with the smallest files (4 bytes a vertex each, the best and its
/// runners-up: those near it are fitted again in full). The smallest
/// split's motion file waits on disk while the next is fitted.
#[cfg(feature = "fit")]
pub(crate) fn parts_bytes(vertices: u64, frames: u64, scene_bytes: u64) -> u64 {
    let sampled = frames.min(crate::fit::SAMPLED_FRAMES as u64);
    let heaps = rayon::current_num_threads() as u64 + 1;
    vertices
        .saturating_mul(sampled)
        .saturating_mul(24)
        .saturating_add(scene_bytes.saturating_mul(4))
        .saturating_add(vertices.saturating_mul(4 * (crate::fit::RUNNERS_UP as u64 + 1)))
        .saturating_add((32 << 20) * heaps)
}

/// Refuses a fit of `input` that would hold more than 8 GiB (by
/// `fit_bytes`, plus `extra` held beside it), or more than this process can allocate now (its
/// address-space and data limits, the system's available memory: see
/// `room.rs`), in one line naming the input. `mapped`: whether the
/// positions are a file mapped for reading (address space, not memory).
pub fn check_fit(
    input: &Path,
    vertices: u64,
    frames: u64,
    groups: &[u64],
    rank: Option<u64>,
    mapped: bool,
    extra: u64,
) -> Result<()> {
    let bytes = fit_bytes(vertices, frames, groups, rank).saturating_add(extra);
    if bytes > MAX_FIT_BYTES {
        return Err(Error::TooLarge {
            path: input.to_path_buf(),
            what: format!(
                "a fit of {vertices} vertices × {frames} frames, holding up to {}",
                shown(bytes)
            ),
            limit: shown(MAX_FIT_BYTES),
            hint: FIT_HINT.into(),
        });
    }
    let positions = if mapped {
        vertices.saturating_mul(frames).saturating_mul(12)
    } else {
        0
    };
    match room::room_for(positions) {
        Some(room) if bytes > room.bytes => Err(Error::OutOfMemory {
            path: input.to_path_buf(),
            what: format!("a fit of {vertices} vertices × {frames} frames"),
            need: format!("up to {}", shown(bytes)),
            why: format!(
                "this process can allocate {} more ({})",
                shown(room.bytes),
                room.limit.words()
            ),
            hint: FIT_HINT.into(),
        }),
        _ => Ok(()),
    }
}

/// How to make a fit smaller.
const FIT_HINT: &str = "fit fewer frames (a shorter cache), fix the rank with --rank R (a \
                        smaller basis), or split the scene into smaller groups";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_are_sized_before_they_start() {
        // The large case: 100 000 vertices × 1 000 frames in one
        // group, under a bound (up to rank 1000): about 7.4 GB, allowed.
        let big = fit_bytes(100_000, 1_000, &[100_000], None);
        assert!(big > 4_800_000_000 && big < MAX_FIT_BYTES, "{big}");
        // At rank 20 far less: the positions (1.2 GB) and a small basis.
        let ranked = fit_bytes(100_000, 1_000, &[100_000], Some(20));
        assert!(ranked < 1_500_000_000, "{ranked}");
        // (Sized, not run: this machine may not have 7.4 GB to spare.)
        check_fit(Path::new("a.pc2"), 10_000, 100, &[10_000], None, true, 0).unwrap();
        // Ten times the frames: refused in one line naming the input.
        let e = check_fit(
            Path::new("a.pc2"),
            100_000,
            10_000,
            &[100_000],
            None,
            true,
            0,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("a.pc2: a fit of 100000 vertices × 10000 frames, holding up to"),
            "{e}"
        );
        assert!(e.contains("--rank R") && !e.contains('\n'), "{e}");
        assert_eq!(fit_bytes(u64::MAX, u64::MAX, &[u64::MAX], None), u64::MAX);
    }
}
