//! USD stages as `.usda` text, for usdview, Houdini Solaris, Omniverse and
//! Blender. No USD crate builds on this toolchain, so this writes the subset
//! we need by hand; `tests/readers/usd.rs` opens every stage with Pixar's
//! own library (`usd-core`) and runs its compliance checker on it.
//!
//! The stage (`/Scene`, the default prim, an `Xform`):
//! - `timeCodesPerSecond`: the first track's rate (a MEMG motion's fps, an
//!   AIBO motion's frames per second) or `--fps`; time code `i` is sample
//!   `i`, `startTimeCode` 0, `endTimeCode` the last sample;
//! - `upAxis`: `"Y"` (the `.obj`'s own axes; AIBO and MRTK tracks are turned
//!   into them by their root `Xform`); `metersPerUnit`: 1 (a MEMG `.obj`
//!   does not say its unit; the AIBO and MRTK tracks are written in metres);
//! - **MEMG**: a `Mesh` per `.obj` group, its topology (triangles) written
//!   once and its `points` and `extent` sampled at every time code, in the
//!   `.obj`'s own coordinates (not the viewer's layout). Each mesh keeps
//!   `primvars:objVertex` (constant): the 1-based `.obj` vertex of each point.
//! - **AIBO**: an `Xform` per link of the URDF's tree ([`super::robot`]),
//!   nested as the tree is, each with a fixed `xformOp:translate` and a
//!   time-sampled `xformOp:orient`, the body's attitude on the root.
//! - **MRTK**: an `Xform` for the head camera and for each hand joint with
//!   time-sampled translations and orientations ([`mrtk`]).
//!
//! Every file goes through [`crate::output`]; a number that is not finite is
//! refused, naming the track, the field and the time.
//!
//! The stage is written as it is made: its header first, then track after
//! track, each track's time samples evaluated time after time into a
//! spill file (`usd/spill.rs`) and read back prim by prim, so that what is held in memory
//! is a block of samples, not the stage. Before anything is written the
//! work is sized: its values (at most [`MAX_VALUES`]), its bytes (each
//! number at most [`VALUE_BYTES`] long: a value that Rust would print with
//! more digits than that is written in exponent form) and the memory held;
//! past a cap it is refused in one line.

mod aibo;
mod memg;
pub mod mrtk;
pub(crate) mod spill;

use std::fmt;
use std::io::Write;
use std::path::Path;

use super::Options;
use crate::anim::clock::{Grid, Window};
use crate::error::{Error, Result};
use crate::scene::Track;

/// The most time samples × values a stage is written with before it is
/// refused (a `.usda` holds each number as text, so this bounds the file at
/// roughly a gigabyte).
pub const MAX_VALUES: u64 = 60_000_000;

/// The most bytes one number takes in the text, with its separator: a
/// sign, 17 significant digits, a point or an exponent (see [`Num`]), `, `.
pub const VALUE_BYTES: u64 = 28;

/// The most bytes of a time sample's line beyond its numbers: indentation,
/// the time code, brackets.
pub(crate) const LINE_BYTES: u64 = 64;

/// What [`write()`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct UsdReport {
    /// Bytes written.
    pub bytes: u64,
    /// Time samples per animated attribute.
    pub samples: u64,
    /// Prims written.
    pub prims: usize,
    /// What went less well, each naming its file.
    pub warnings: Vec<String>,
}

/// The times a stage samples: `count` samples at `per_second`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    /// `timeCodesPerSecond`.
    pub per_second: f64,
    /// Samples (time codes `0..count`).
    pub count: u64,
    /// Their times.
    grid: Grid,
}

impl Clock {
    /// Every frame at `per_second` over `duration_s`, on the one clock.
    pub fn new(per_second: f64, duration_s: f64) -> Clock {
        let grid = Grid::new(duration_s, 1.0 / per_second, Window::Whole);
        Clock {
            per_second,
            count: grid.len(),
            grid,
        }
    }

    /// Seconds at time code `i`, on the one clock's grid.
    pub fn time(&self, i: u64) -> f64 {
        self.grid.time_s(i)
    }
}

/// What one track adds to a stage, known before it is written.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Sized {
    /// Values per time sample, all its animated attributes together.
    pub values: u64,
    /// Values per time sample of each animated attribute (its spill's series).
    pub widths: Vec<usize>,
    /// Bytes written once (prims, topology), an upper bound.
    pub once_bytes: u64,
}

impl Sized {
    /// Bytes of the track's text at `count` samples, an upper bound.
    fn bytes(&self, count: u64) -> u64 {
        let per_sample = self
            .values
            .saturating_mul(VALUE_BYTES)
            .saturating_add(LINE_BYTES.saturating_mul(self.widths.len() as u64));
        self.once_bytes
            .saturating_add(count.saturating_mul(per_sample))
    }
}

/// The bytes a stage's header and `/Scene` take.
const HEADER_BYTES: u64 = 1024;

/// The clock of a stage of `tracks`, refusing a rate that is no positive number.
fn clock(tracks: &[Track], out: &Path, options: &Options) -> Result<Clock> {
    let per_second = match options.fps {
        Some(f) if f.is_finite() && f > 0.0 => f,
        Some(f) => {
            return Err(Error::unsupported(
                out,
                format!("--fps must be a positive number of samples per second, got {f}"),
            ));
        }
        None => match &tracks[0] {
            Track::Memg { motion, .. } => f64::from(motion.fps.max(1)),
            other => 1.0 / other.frame_period_s(),
        },
    };
    let duration = tracks
        .iter()
        .map(|t| match t {
            Track::Memg { motion, .. } => motion.duration_s(),
            other => other.duration_s(),
        })
        .filter(|d| d.is_finite())
        .fold(0.0, f64::max);
    Ok(Clock::new(per_second, duration))
}

/// How to narrow a stage that is too large.
const NARROW: &str = "lower --fps";

/// Samples, checks and sizes the stage of `tracks` at `out`: refuses (in one
/// line) more than [`MAX_VALUES`] values, more bytes than
/// [`crate::budget::check_output_bytes`] allows or more memory held than
/// [`crate::budget::MAX_HELD_BYTES`]. Returns the clock and each track's size.
fn plan(tracks: &[Track], out: &Path, options: &Options) -> Result<(Clock, Vec<Sized>)> {
    let clock = clock(tracks, out, options)?;
    let mut sizes = Vec::with_capacity(tracks.len());
    for track in tracks {
        let sized = match track {
            Track::Memg { .. } => memg::size(track)?,
            Track::Mtn { motion, .. } => aibo::size(motion),
            Track::InputAnimation { recording, .. } => mrtk::size(recording),
        };
        if let Track::Memg { scene, .. } = track {
            let values = clock.count.saturating_mul(3 * scene.positions.len() as u64);
            if values > MAX_VALUES {
                return Err(Error::unsupported(
                    out,
                    format!(
                        "{} time samples × {} vertices is past the {MAX_VALUES} values a .usda export writes; \
                         {NARROW}",
                        clock.count,
                        scene.positions.len()
                    ),
                ));
            }
        }
        sizes.push(sized);
    }
    // Numbers per time code: a transform per link or joint (AIBO, MRTK); a
    // MEMG scene's vertices are checked above, alone.
    let per_sample: u64 = tracks
        .iter()
        .zip(&sizes)
        .filter(|(t, _)| !matches!(t, Track::Memg { .. }))
        .map(|(_, s)| s.values)
        .sum();
    if clock.count.saturating_mul(per_sample) > MAX_VALUES {
        return Err(Error::unsupported(
            out,
            format!(
                "{} time samples × {per_sample} values is past the {MAX_VALUES} values a .usda export writes; {NARROW}",
                clock.count
            ),
        ));
    }
    let bytes = sizes.iter().fold(HEADER_BYTES, |sum, s| {
        sum.saturating_add(s.bytes(clock.count))
    });
    let input_bytes = tracks
        .iter()
        .fold(0u64, |sum, t| sum.saturating_add(super::input_bytes(t)));
    crate::budget::check_output_bytes(
        out,
        &format!("a stage of {} time samples", clock.count),
        bytes,
        input_bytes,
        NARROW,
    )?;
    let held = sizes
        .iter()
        .map(|s| spill::Spill::held_bytes(&s.widths))
        .max()
        .unwrap_or(0);
    crate::budget::check_held(out, "writing the stage", held, "a smaller scene")?;
    Ok((clock, sizes))
}

/// Writes `tracks` into one stage at `out`, as it is made, after sizing it
/// (see the module docs).
pub fn write(tracks: &[Track], out: &Path, options: &Options) -> Result<UsdReport> {
    let (clock, sizes) = plan(tracks, out, options)?;
    let mut output = crate::output::Output::create(out)?;
    let mut counted = super::Counted::new(output.writer());
    let mut stage = UsdStage {
        w: &mut counted,
        clock,
        names: Vec::new(),
        out,
    };
    stage.header()?;
    let mut warnings = Vec::new();
    let mut prims = 0;
    for (i, (track, sized)) in tracks.iter().zip(&sizes).enumerate() {
        let spill = stage.spill(&sized.widths)?;
        prims += match track {
            Track::Memg { .. } => memg::write(&mut stage, track, spill, &mut warnings)?,
            Track::Mtn { motion, path, .. } => aibo::write(&mut stage, motion, path, spill)?,
            Track::InputAnimation { recording, path } => {
                mrtk::write(&mut stage, recording, path, spill, &mut warnings)?
            }
        };
        if let Some(p) = options.progress {
            p((i + 1) as f32 / tracks.len() as f32);
        }
    }
    stage.text("}\n")?;
    let bytes = counted.bytes();
    output.commit()?;
    Ok(UsdReport {
        bytes,
        samples: clock.count,
        prims,
        warnings,
    })
}

/// A stage's text being written: the layer header, then `/Scene`'s children.
pub(crate) struct UsdStage<'w, 'o> {
    /// Where the text goes.
    w: &'w mut dyn Write,
    /// The sampling.
    pub clock: Clock,
    /// Prim names used under `/Scene`.
    names: Vec<String>,
    /// The output, for errors.
    out: &'o Path,
}

impl UsdStage<'_, '_> {
    /// Writes `args` (`write!(stage, …)`), an error naming the output.
    pub(crate) fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> Result<()> {
        self.w.write_fmt(args).map_err(|e| Error::io(self.out, e))
    }

    /// Writes `text`.
    pub fn text(&mut self, text: &str) -> Result<()> {
        self.w
            .write_all(text.as_bytes())
            .map_err(|e| Error::io(self.out, e))
    }

    /// A spill for series of `widths` values per sample.
    fn spill(&self, widths: &[usize]) -> Result<spill::Spill> {
        spill::Spill::new(widths.to_vec(), self.out).map_err(|e| Error::io(self.out, e))
    }

    /// Adds one time's values of the next series to `spill`.
    pub fn push(&self, spill: &mut spill::Spill, values: &[f64]) -> Result<()> {
        spill.push(values).map_err(|e| Error::io(self.out, e))
    }

    /// Ends a spill's writing, every time pushed.
    pub fn seal(&self, spill: &mut spill::Spill) -> Result<()> {
        spill.seal().map_err(|e| Error::io(self.out, e))
    }

    /// Writes series `s` of `spill`, one line per time code: `pad`, then
    /// `line(text, time code, values)`.
    pub fn samples(
        &mut self,
        spill: &spill::Spill,
        s: usize,
        mut line: impl FnMut(&mut dyn Write, u64, &[f64]) -> std::io::Result<()>,
    ) -> Result<()> {
        let w = &mut *self.w;
        spill
            .read(s, |i, values| line(w, i, values))
            .map_err(|e| Error::io(self.out, e))
    }

    /// A prim name under `/Scene` made from `name`, unique.
    pub(crate) fn unique_name(&mut self, name: &str) -> String {
        let base = identifier(name);
        let mut candidate = base.clone();
        let mut n = 1;
        while self.names.contains(&candidate) {
            n += 1;
            candidate = format!("{base}_{n}");
        }
        self.names.push(candidate.clone());
        candidate
    }

    /// The layer's header and the opening of `/Scene`.
    fn header(&mut self) -> Result<()> {
        let clock = self.clock;
        write!(
            self,
            "#usda 1.0\n(\n    defaultPrim = \"Scene\"\n    doc = \"motion-viewer export\"\n    \
             endTimeCode = {}\n    metersPerUnit = 1\n    startTimeCode = 0\n    \
             timeCodesPerSecond = {}\n    upAxis = \"Y\"\n)\n\n\
             def Xform \"Scene\" (\n    kind = \"assembly\"\n)\n{{\n",
            clock.count.saturating_sub(1),
            clock.per_second
        )
    }
}

/// A number as the stage's text holds it: Rust's shortest form where that
/// is short, exponent form (`1.5e-30`) for the magnitudes it would write
/// with dozens of digits, so that no number takes more than
/// [`VALUE_BYTES`].
#[derive(Clone, Copy)]
pub struct Num(pub f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || (1e-5..1e16).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// An `f32` as [`Num`] writes an `f64`: in its own shortest form.
#[derive(Clone, Copy)]
pub struct Num32(pub f32);

impl fmt::Display for Num32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || (1e-5..1e16).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// `name` as a USD identifier: letters, digits and `_`, not starting with a digit.
pub fn identifier(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_usd_identifiers() {
        assert_eq!(identifier("flag 1"), "flag_1");
        assert_eq!(identifier("3d"), "_3d");
        assert_eq!(identifier(""), "_");
        let mut sink = Vec::new();
        let mut stage = UsdStage {
            w: &mut sink,
            clock: Clock::new(30.0, 0.0),
            names: Vec::new(),
            out: Path::new("x.usda"),
        };
        assert_eq!(stage.unique_name("a-b"), "a_b");
        assert_eq!(stage.unique_name("a_b"), "a_b_2");
    }

    #[test]
    fn numbers_are_short_whatever_their_magnitude() {
        assert_eq!(Num(0.25).to_string(), "0.25");
        assert_eq!(Num(-0.0).to_string(), "-0");
        assert_eq!(Num(1e300).to_string(), "1e300");
        assert_eq!(Num32(1e-45).to_string(), "1e-45");
        assert_eq!(Num32(3.4028235e38).to_string(), "3.4028235e38");
        for x in [
            f64::MIN_POSITIVE,
            -f64::MAX,
            1.0 / 3.0,
            -123456789.12345679,
            1e-5,
            9e15,
        ] {
            let text = Num(x).to_string();
            assert!(text.len() as u64 + 2 <= VALUE_BYTES, "{text}");
            assert_eq!(text.parse::<f64>().unwrap(), x, "read back");
        }
        for x in [f32::MIN_POSITIVE, f32::MAX, -1.0 / 3.0, 1e-40] {
            let text = Num32(x).to_string();
            assert!(text.len() as u64 + 2 <= VALUE_BYTES, "{text}");
            assert_eq!(text.parse::<f32>().unwrap(), x, "read back");
        }
    }
}
