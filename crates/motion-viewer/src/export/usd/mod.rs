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

mod aibo;
mod memg;
pub mod mrtk;

use std::fmt::Write as _;
use std::path::Path;

use super::{Options, finite};
use crate::anim::clock::Window;
use crate::error::{Error, Result};
use crate::output::write_atomic;
use crate::scene::Track;

/// The most time samples × values a stage is written with before it is
/// refused (a `.usda` holds each number as text, so this bounds the file at
/// roughly a gigabyte).
pub const MAX_VALUES: u64 = 60_000_000;

/// What [`write`] wrote.
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
    grid: crate::anim::clock::Grid,
}

impl Clock {
    /// Every frame at `per_second` over `duration_s`, on the one clock.
    pub fn new(per_second: f64, duration_s: f64) -> Clock {
        let grid = crate::anim::clock::Grid::new(duration_s, 1.0 / per_second, Window::Whole);
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

/// Writes `tracks` into one stage at `out`.
pub fn write(tracks: &[Track], out: &Path, options: &Options) -> Result<UsdReport> {
    let refuse = |reason: String| Error::unsupported(out, reason);
    let per_second = match options.fps {
        Some(f) if f.is_finite() && f > 0.0 => f,
        Some(f) => {
            return Err(refuse(format!(
                "--fps must be a positive number of samples per second, got {f}"
            )));
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
    let clock = Clock::new(per_second, duration);
    // Numbers per time code: a transform per link or joint (AIBO, MRTK);
    // a MEMG scene checks its vertices itself.
    let per_sample: u64 = tracks
        .iter()
        .map(|t| match t {
            Track::Memg { .. } => 0,
            Track::Mtn { .. } => 4 * 40,
            Track::InputAnimation { .. } => 7 * 55,
        })
        .sum();
    if clock.count.saturating_mul(per_sample) > MAX_VALUES {
        return Err(refuse(format!(
            "{} time samples × {per_sample} values is past the {MAX_VALUES} values a .usda export writes; lower --fps",
            clock.count
        )));
    }
    let mut doc = Stage::new(clock);
    let mut warnings = Vec::new();
    let mut prims = 0;
    for (i, track) in tracks.iter().enumerate() {
        match track {
            Track::Memg { .. } => prims += memg::write(&mut doc, track, out, &mut warnings)?,
            Track::Mtn { motion, path, .. } => prims += aibo::write(&mut doc, motion, path)?,
            Track::InputAnimation { recording, path } => {
                prims += mrtk::write(&mut doc, recording, path, &mut warnings)?;
            }
        }
        if let Some(p) = options.progress {
            p((i + 1) as f32 / tracks.len() as f32);
        }
    }
    let text = doc.finish();
    write_atomic(out, |w| w.write_all(text.as_bytes()))?;
    Ok(UsdReport {
        bytes: text.len() as u64,
        samples: clock.count,
        prims,
        warnings,
    })
}

/// A stage's text being written: the layer header, then `/Scene`'s children.
pub(crate) struct Stage {
    /// The body of `/Scene`.
    body: String,
    /// The sampling.
    pub clock: Clock,
    /// Prim names used under `/Scene`.
    names: Vec<String>,
}

impl Stage {
    fn new(clock: Clock) -> Stage {
        Stage {
            body: String::new(),
            clock,
            names: Vec::new(),
        }
    }

    /// Appends text to `/Scene`'s body.
    pub fn push(&mut self, text: &str) {
        self.body.push_str(text);
    }

    /// A prim name under `/Scene` made from `name`, unique.
    pub fn unique_name(&mut self, name: &str) -> String {
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

    fn finish(self) -> String {
        let mut x = String::new();
        let _ = writeln!(x, "#usda 1.0");
        let _ = writeln!(x, "(");
        let _ = writeln!(x, "    defaultPrim = \"Scene\"");
        let _ = writeln!(x, "    doc = \"motion-viewer export\"");
        let _ = writeln!(
            x,
            "    endTimeCode = {}",
            self.clock.count.saturating_sub(1)
        );
        let _ = writeln!(x, "    metersPerUnit = 1");
        let _ = writeln!(x, "    startTimeCode = 0");
        let _ = writeln!(x, "    timeCodesPerSecond = {}", self.clock.per_second);
        let _ = writeln!(x, "    upAxis = \"Y\"");
        let _ = writeln!(x, ")");
        let _ = writeln!(x);
        let _ = writeln!(x, "def Xform \"Scene\" (\n    kind = \"assembly\"\n)\n{{");
        x.push_str(&self.body);
        let _ = writeln!(x, "}}");
        x
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

/// A float3 tuple as USD text, refusing a value that is not finite.
pub(crate) fn float3(
    v: [f32; 3],
    path: &Path,
    time_s: f64,
    field: impl Fn() -> String,
) -> Result<String> {
    for (axis, x) in v.iter().enumerate() {
        finite::check_f32(*x, path, time_s, || {
            format!("{} {}", field(), ["x", "y", "z"][axis])
        })?;
    }
    Ok(format!("({}, {}, {})", v[0], v[1], v[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_usd_identifiers() {
        assert_eq!(identifier("flag 1"), "flag_1");
        assert_eq!(identifier("3d"), "_3d");
        assert_eq!(identifier(""), "_");
        let mut stage = Stage::new(Clock::new(30.0, 0.0));
        assert_eq!(stage.unique_name("a-b"), "a_b");
        assert_eq!(stage.unique_name("a_b"), "a_b_2");
    }
}
