//! Work sized before it starts: what a render, a synthetic scene or an
//! export will cost, estimated from the request alone, and the caps above
//! which it is refused in one line that says how to narrow it.
//!
//! The estimates are cheap (a pass over the triangles at most) and taken
//! before anything large is allocated or any frame drawn, so a request for
//! 2³² frames, a 40 GB synthetic basis or a frame of a million stacked
//! triangles ends at once instead of hours or an allocation abort later.
//! docs/cli.md's "Limits" table lists the same caps.

use crate::error::{Error, Result};
use std::path::Path;

mod room;

/// The most frames one `render` draws (a GIF, a video or a PNG sequence):
/// about 28 minutes at 60 fps.
pub(crate) const MAX_RENDER_FRAMES: u64 = 100_000;

/// The most pixels one `render` draws over all its frames: 54 000 frames
/// of 1280×720 (30 minutes at 30 fps), or 6 000 frames of 3840×2160.
pub(crate) const MAX_RENDER_PIXELS: u64 = 50_000_000_000;

/// The most fragments (covered pixels, counted once per triangle that
/// covers them) one frame may be estimated to cost: a thousand layers of
/// 1280×720. A real scene covers the picture a few times over; a file whose
/// million triangles lie on top of each other covers it a million times.
pub(crate) const MAX_FRAME_FRAGMENTS: f64 = 1e9;

/// The most bytes a synthetic scene may take while it is generated (its
/// grid, basis, coefficients and frames): the documented 10 million-vertex
/// scene of `BENCHMARKS.md` takes 2.5 GB.
pub(crate) const MAX_SYNTHETIC_BYTES: u64 = 8 << 30;

/// The fewest bytes an export may write before the output check
/// compares it with its input.
pub(crate) const MIN_OUTPUT_BYTES: u64 = 4 << 30;

/// Bytes an export may write per byte of its input beyond
/// [`MIN_OUTPUT_BYTES`]: a point cache of a real MEMG scene is a few times
/// its motion file; one of a file whose counts nothing backs is millions.
pub(crate) const OUTPUT_BYTES_PER_INPUT_BYTE: u64 = 64;

/// The most memory an export may hold while it writes, beyond the tracks
/// it reads: a stage's or a bag's samples are written as they are made, and
/// what is held at once (a block of samples, a chunk, one frame's message)
/// is far below this for any real motion.
pub(crate) const MAX_HELD_BYTES: u64 = 256 << 20;

/// The hint every render refusal gives.
const NARROW_RENDER: &str =
    "narrow it with --frames A..B (fewer frames), --fps F (fewer frames per second) or --size WxH";

/// What a render asks for: how many frames, and of what size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderRequest {
    /// Frames to draw (1 for a single picture).
    pub frames: u64,
    /// Picture width and height in pixels.
    pub size: [u32; 2],
}

impl RenderRequest {
    /// Pixels drawn over every frame.
    pub(crate) fn pixels(&self) -> u64 {
        self.frames
            .saturating_mul(u64::from(self.size[0]) * u64::from(self.size[1]))
    }

    /// Refuses a render of more than 100 000 frames or more
    /// than 5·10¹⁰ pixels in all, naming `out`.
    pub fn check(&self, out: &Path) -> Result<()> {
        if self.frames > MAX_RENDER_FRAMES {
            return Err(Error::TooLarge {
                path: out.to_path_buf(),
                what: format!("{} frames", self.frames),
                limit: format!("{MAX_RENDER_FRAMES} frames per render"),
                hint: NARROW_RENDER.into(),
            });
        }
        if self.pixels() > MAX_RENDER_PIXELS {
            return Err(Error::TooLarge {
                path: out.to_path_buf(),
                what: format!(
                    "{} frames × {}x{} = {:.3e} pixels",
                    self.frames,
                    self.size[0],
                    self.size[1],
                    self.pixels() as f64
                ),
                limit: format!("{MAX_RENDER_PIXELS:.0e} pixels per render"),
                hint: NARROW_RENDER.into(),
            });
        }
        Ok(())
    }
}

/// The fragments one frame of a mesh is estimated to cost at `size`: each
/// triangle's area as the camera shows it when the mesh's bounding box fills
/// the picture (the box's diagonal across the picture's shorter side, faces
/// turned to the camera), at most the whole picture, plus one per triangle
/// (its setup). An upper bound for the mesh where it shares the picture with
/// other tracks; degenerate and out-of-range triangles cost their setup only.
pub fn frame_fragments(positions: &[[f32; 3]], triangles: &[[u32; 3]], size: [u32; 2]) -> f64 {
    let picture = f64::from(size[0]) * f64::from(size[1]);
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in positions {
        for k in 0..3 {
            let x = f64::from(p[k]);
            if x.is_finite() {
                lo[k] = lo[k].min(x);
                hi[k] = hi[k].max(x);
            }
        }
    }
    let diagonal = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
    let setup = triangles.len() as f64;
    if !(diagonal.is_finite() && diagonal > 0.0) {
        return setup;
    }
    let pixels_per_unit = f64::from(size[0].min(size[1])) / diagonal;
    let scale = pixels_per_unit * pixels_per_unit;
    let corner = |i: u32| -> Option<[f64; 3]> {
        let p = positions.get(i as usize)?;
        Some(p.map(f64::from))
    };
    let covered: f64 = triangles
        .iter()
        .filter_map(|t| {
            let [a, b, c] = [corner(t[0])?, corner(t[1])?, corner(t[2])?];
            let (u, v) = (sub(b, a), sub(c, a));
            let cross = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let area = 0.5 * cross.iter().map(|x| x * x).sum::<f64>().sqrt();
            area.is_finite().then(|| (area * scale).min(picture))
        })
        .sum();
    covered + setup
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Refuses a frame estimated (by [`frame_fragments`]) at more than
/// 10⁹ fragments, naming the input `file` and its triangles.
pub fn check_frame_cost(
    file: &Path,
    triangles: usize,
    fragments: f64,
    size: [u32; 2],
) -> Result<()> {
    if fragments <= MAX_FRAME_FRAGMENTS {
        return Ok(());
    }
    let layers = fragments / (f64::from(size[0]) * f64::from(size[1]));
    Err(Error::TooLarge {
        path: file.to_path_buf(),
        what: format!(
            "one frame of its {triangles} triangles, about {fragments:.2e} pixels drawn \
             (the picture covered {layers:.0} times over)"
        ),
        limit: format!("{MAX_FRAME_FRAGMENTS:.0e} pixels per frame"),
        hint: "a smaller --size lowers it; triangles stacked on each other cost \
               each time they are drawn"
            .into(),
    })
}

/// Refuses an export of `bytes` to `out` that is larger than an input of
/// `input_bytes` warrants (the larger of [`MIN_OUTPUT_BYTES`] and
/// [`OUTPUT_BYTES_PER_INPUT_BYTE`] per input byte); `what` says what the
/// bytes are made of, `hint` how to narrow them.
pub(crate) fn check_output_bytes(
    out: &Path,
    what: &str,
    bytes: u64,
    input_bytes: u64,
    hint: &str,
) -> Result<()> {
    let limit = MIN_OUTPUT_BYTES.max(input_bytes.saturating_mul(OUTPUT_BYTES_PER_INPUT_BYTE));
    if bytes <= limit {
        return Ok(());
    }
    Err(Error::TooLarge {
        path: out.to_path_buf(),
        what: format!("{what} = {}", shown(bytes)),
        limit: format!(
            "{} ({OUTPUT_BYTES_PER_INPUT_BYTE} × its input's {}, at least {})",
            shown(limit),
            shown(input_bytes),
            shown(MIN_OUTPUT_BYTES)
        ),
        hint: hint.into(),
    })
}

/// Refuses an export to `out` that would hold more than [`MAX_HELD_BYTES`]
/// in memory while it writes (`held` bytes); `what` says what holds them,
/// `hint` how to do without.
pub(crate) fn check_held(out: &Path, what: &str, held: u64, hint: &str) -> Result<()> {
    if held <= MAX_HELD_BYTES {
        return Ok(());
    }
    Err(Error::TooLarge {
        path: out.to_path_buf(),
        what: format!("{what}, holding {} in memory", shown(held)),
        limit: format!("{} held", shown(MAX_HELD_BYTES)),
        hint: hint.into(),
    })
}

/// A byte count in MB or GB, one decimal.
pub(crate) fn shown(bytes: u64) -> String {
    match bytes as f64 {
        b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        b => format!("{:.1} MB", b / 1e6),
    }
}

/// Bytes held while a synthetic scene of `vertices` × `basis` × `frames`
/// is generated: positions, mean, mapping and two triangles per vertex,
/// the basis (3 × vertices × basis `f32`), the coefficients (basis ×
/// frames `f32`) and a 3×4 `f64` transform per frame. Saturates.
#[cfg_attr(not(feature = "synthetic"), allow(dead_code))]
pub(crate) fn synthetic_bytes(vertices: u64, basis: u64, frames: u64) -> u64 {
    let grid = vertices.saturating_mul(12 + 12 + 4 + 24);
    let u = vertices.saturating_mul(12).saturating_mul(basis);
    let q = basis.saturating_mul(frames).saturating_mul(4);
    let transforms = frames.saturating_mul(96);
    grid.saturating_add(u)
        .saturating_add(q)
        .saturating_add(transforms)
}

/// Why a synthetic scene of `vertices` × `basis` × `frames` is refused, if
/// it would take more than [`MAX_SYNTHETIC_BYTES`] to generate.
#[cfg_attr(not(feature = "synthetic"), allow(dead_code))]
pub(crate) fn check_synthetic(vertices: u64, basis: u64, frames: u64) -> crate::Result<()> {
    let bytes = synthetic_bytes(vertices, basis, frames);
    if bytes <= MAX_SYNTHETIC_BYTES {
        return Ok(());
    }
    Err(crate::Error::TooLarge {
        path: format!("--synthetic \"{vertices}x{basis}x{frames}\"").into(),
        what: format!("{:.1} GB to generate", bytes as f64 / 1e9),
        limit: format!("{:.1} GB", MAX_SYNTHETIC_BYTES as f64 / 1e9),
        hint: "lower VERTICES, BASIS or FRAMES (U is 12 × VERTICES × BASIS bytes, \
               Q 4 × BASIS × FRAMES)"
            .into(),
    })
}

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
/// top of them: `tests/cli/fit_bounded.rs`). The smallest split's motion
/// file waits on disk while the next is fitted.
#[cfg(feature = "fit")]
pub(crate) fn parts_bytes(vertices: u64, frames: u64, scene_bytes: u64) -> u64 {
    let sampled = frames.min(crate::fit::SAMPLED_FRAMES as u64);
    let heaps = rayon::current_num_threads() as u64 + 1;
    vertices
        .saturating_mul(sampled)
        .saturating_mul(24)
        .saturating_add(scene_bytes.saturating_mul(4))
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
    fn renders_within_the_caps_pass_and_larger_ones_say_how_to_narrow() {
        let ok = RenderRequest {
            frames: 54_000,
            size: [1280, 720],
        };
        assert_eq!(ok.pixels(), 54_000 * 921_600);
        ok.check(Path::new("x.mp4")).unwrap();
        // A whole 2^32-frame timeline, and a range up to u64::MAX.
        for frames in [1 << 32, u64::MAX] {
            let e = RenderRequest {
                frames,
                size: [64, 48],
            }
            .check(Path::new("x.gif"))
            .unwrap_err()
            .to_string();
            assert!(
                e.starts_with(&format!("x.gif: {frames} frames is more than")),
                "{e}"
            );
            assert!(e.contains("--frames A..B") && e.contains("--fps F"), "{e}");
            assert!(!e.contains('\n'));
        }
        // Few frames, but 4 × 16384² pixels each: 1.07e9 × 60 000.
        let e = RenderRequest {
            frames: 60_000,
            size: [16384, 16384],
        }
        .check(Path::new("x.gif"))
        .unwrap_err()
        .to_string();
        assert!(e.contains("1.611e13 pixels"), "{e}");
        assert!(e.contains("--size WxH"), "{e}");
    }

    /// A unit right triangle in the xy plane, and a second corner set far off
    /// that stretches the bounding box to a 3-4-5 diagonal of 5.
    fn stacked(count: usize) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
        let positions = vec![[0., 0., 0.], [3., 0., 0.], [0., 4., 0.]];
        (positions, vec![[0, 1, 2]; count])
    }

    #[test]
    fn a_triangle_costs_its_area_at_the_picture_scale() {
        // Area 6 units², diagonal 5 across 100 pixels: 20 px per unit, so
        // 6 × 400 = 2400 pixels, plus 1 for its setup.
        let (p, t) = stacked(1);
        assert_eq!(frame_fragments(&p, &t, [200, 100]), 2401.0);
        // The shorter side sets the scale: 2 px per unit, 6 × 4 pixels.
        assert_eq!(frame_fragments(&p, &t, [100, 10]), 25.0);
        assert_eq!(frame_fragments(&p, &t, [10, 100]), 25.0);
        // A million stacked: a million times over.
        let (p, t) = stacked(1_000_000);
        assert_eq!(frame_fragments(&p, &t, [200, 100]), 2401.0 * 1e6);
        let e = check_frame_cost(Path::new("s.obj"), t.len(), 2.401e9, [200, 100])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.obj: one frame of its 1000000 triangles"),
            "{e}"
        );
        assert!(
            e.contains("covered 120050 times over") && e.contains("--size"),
            "{e}"
        );
    }

    #[test]
    fn degenerate_and_dangling_triangles_cost_their_setup() {
        let positions = vec![[1., 1., 1.], [1., 1., 1.], [f32::NAN, 0., 0.]];
        assert_eq!(frame_fragments(&positions, &[[0, 1, 0]], [64, 48]), 1.0);
        assert_eq!(frame_fragments(&positions, &[[0, 1, 9]], [64, 48]), 1.0);
        assert_eq!(frame_fragments(&[], &[], [64, 48]), 0.0);
        check_frame_cost(Path::new("a"), 1, 1.0, [64, 48]).unwrap();
    }

    #[test]
    fn a_real_grid_is_far_below_the_frame_cap() {
        // A 1000 × 1000 grid of unit squares, two triangles each: its area
        // 10^6 units² on a diagonal of 1000·√2, i.e. half of a 720² square.
        let n = 1001u32;
        let positions: Vec<[f32; 3]> = (0..n * n)
            .map(|i| [(i % n) as f32, 0.0, (i / n) as f32])
            .collect();
        let mut triangles = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let i = y * n + x;
                triangles.push([i, i + 1, i + n]);
                triangles.push([i + 1, i + n + 1, i + n]);
            }
        }
        let f = frame_fragments(&positions, &triangles, [1280, 720]);
        let expected = 720.0 * 720.0 / 2.0 + 2e6;
        assert!((f - expected).abs() < 1e-6 * expected, "{f} vs {expected}");
        assert!(f < MAX_FRAME_FRAGMENTS / 100.0);
    }

    #[test]
    fn exports_may_grow_with_their_input() {
        let check = |bytes, input| check_output_bytes(Path::new("c.pc2"), "x", bytes, input, "h");
        check(4 << 30, 0).unwrap();
        check(64 << 30, 1 << 30).unwrap();
        let e = check((64 << 30) + 1, 1 << 30).unwrap_err().to_string();
        assert_eq!(
            e,
            "c.pc2: x = 68.7 GB is more than the 68.7 GB (64 × its input's 1.1 GB, at least 4.3 GB) allowed; h"
        );
        // 10^5 vertices × 10^5 frames from a 1.6 MB motion.
        assert!(check(12 * 100_000 * 100_000 + 32, 1_600_000).is_err());
    }

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

    #[test]
    fn synthetic_scenes_are_sized_before_they_are_generated() {
        // BENCHMARKS.md's 10 million-vertex scene: 520 MB of grid, 1.92 GB of U.
        assert_eq!(
            synthetic_bytes(10_000_000, 16, 60),
            520_000_000 + 1_920_000_000 + 3840 + 5760
        );
        check_synthetic(10_000_000, 16, 60).unwrap();
        // 2^31 timesteps of 2^31 coefficients: far past any memory.
        let e = check_synthetic(1000, 1 << 31, 1 << 31)
            .unwrap_err()
            .to_string();
        assert!(e.contains("lower VERTICES, BASIS or FRAMES"), "{e}");
        assert_eq!(synthetic_bytes(u64::MAX, 2, 2), u64::MAX);
    }
}
