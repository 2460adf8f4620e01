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

mod fit;
mod room;

pub use fit::check_fit;
#[cfg(feature = "fit")]
pub(crate) use fit::{fit_bytes, parts_bytes};

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
