//! Poses → files, with no GPU: the state at one time (JSON), every frame as a
//! table (CSV/JSON), a deformed MEMG mesh (OBJ), and animated scenes for other
//! tools (glTF, Blender point caches). One module per output format; the output's extension picks by the
//! output's extension.
//!
//! Every writer goes through [`crate::output`]: an export that fails
//! leaves no partial file behind.

mod animated;
mod dispatch;
mod finite;
pub mod gltf;
mod json;
mod mcap;
pub mod mjcf;
mod obj;
pub mod pc2;
#[cfg(feature = "gpu")]
#[cfg_attr(docsrs, doc(cfg(feature = "gpu")))]
pub mod png;
mod robot;
pub mod table;
mod urdf;
mod usd;

pub use obj::Deform;

use crate::error::{Error, Result};
use crate::pose::{At, State, state_at};
use crate::scene::Track;
use std::path::{Path, PathBuf};
use table::{Sampling, TableFormat};

/// The output formats, told apart by the output file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// `.json`: the state at one time, or every frame as a table.
    Json,
    /// `.csv`: every frame as a table.
    Csv,
    /// `.obj`: a MEMG scene deformed at one timestep.
    Obj,
    /// `.glb`: binary glTF 2.0, every track animated in one scene.
    Glb,
    /// `.gltf`: glTF 2.0 JSON with one `.bin` beside it.
    Gltf,
    /// `.pc2`: Blender's point cache of a MEMG scene's vertices per frame.
    Pc2,
    /// `.urdf`: the robot description of an AIBO motion's model.
    Urdf,
    /// `.xml`: MuJoCo's MJCF of an AIBO motion's model, the motion's
    /// commanded trajectory as keyframes ([`mjcf`]).
    Mjcf,
    /// `.mcap`: a ROS 2 bag of joint states and transforms.
    Mcap,
    /// `.usda`: a USD stage (text) of meshes and transforms.
    Usda,
}

impl Format {
    /// The format an output path asks for by its extension (any case).
    pub(crate) fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        Some(match ext.as_str() {
            "json" => Format::Json,
            "csv" => Format::Csv,
            "obj" => Format::Obj,
            "glb" => Format::Glb,
            "gltf" => Format::Gltf,
            "pc2" => Format::Pc2,
            "urdf" => Format::Urdf,
            "xml" => Format::Mjcf,
            "mcap" => Format::Mcap,
            "usda" => Format::Usda,
            _ => return None,
        })
    }
}

/// Whether [`export`] writes glTF (`.glb`, `.gltf`, any case) to `path`.
pub fn is_gltf(path: &Path) -> bool {
    matches!(Format::from_path(path), Some(Format::Glb | Format::Gltf))
}

/// What to export, beside the tracks and the output path.
#[derive(Clone, Copy, Default)]
pub struct Options<'a> {
    /// One moment (`--time` / `--frame`; a frame counts in the first track's
    /// frame period, and the other tracks are taken at the same time).
    pub at: Option<At>,
    /// Rows per second for tables (default: each track's own frame period).
    pub fps: Option<f64>,
    /// A range of frames `[A, B)` of the first track's frame period, for tables.
    pub frames: Option<(u64, u64)>,
    /// The files the tracks came from: never overwritten unless `force`, and
    /// their sizes bound how large a table may grow.
    pub inputs: &'a [PathBuf],
    /// Allow writing over an input.
    pub force: bool,
    /// Deforms a MEMG mesh elsewhere than the CPU (the GPU), for `.obj`.
    pub deform: Option<obj::Deform<'a>>,
    /// glTF: MEMG scenes as one plain mesh per timestep instead of morph targets.
    pub baked: bool,
    /// glTF: MEMG scenes (reduced) in 16-bit integers (`KHR_mesh_quantization`).
    pub quantize: bool,
    /// With `quantize`: how far a MEMG vertex may be from the motion's own
    /// place, spent on 8-bit targets and fewer keys
    /// ([`gltf::GltfOptions::tolerance`]).
    pub quantize_tolerance: Option<f64>,
    /// Told the fraction done (0..=1) while a long export runs.
    pub progress: Option<&'a dyn Fn(f32)>,
    /// MCAP: the epoch of the first message, nanoseconds since the Unix
    /// epoch (default 0: timestamps count from the motion's start).
    pub start_time_ns: Option<u64>,
    /// glTF and PC2: stand the tracks as the viewer does (`--layout`);
    /// `None` keeps each file's own coordinates.
    pub layout: Option<crate::scene::Layout>,
}

impl std::fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("at", &self.at)
            .field("fps", &self.fps)
            .field("frames", &self.frames)
            .field("inputs", &self.inputs)
            .field("force", &self.force)
            .field("deform", &self.deform.map(|_| "…"))
            .field("baked", &self.baked)
            .field("quantize", &self.quantize)
            .field("quantize_tolerance", &self.quantize_tolerance)
            .field("start_time_ns", &self.start_time_ns)
            .field("layout", &self.layout)
            .finish()
    }
}

/// What an export did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// Every file written, in order.
    pub written: Vec<PathBuf>,
    /// What went less well than asked (a GPU that could not be had…).
    pub warnings: Vec<String>,
    /// What was written, for the user (sizes, contents).
    pub notes: Vec<String>,
    /// glTF with [`Options::quantize`]: the largest distance quantizing
    /// moved a MEMG vertex ([`gltf::GltfReport::quantization_error`]).
    pub quantization_error: Option<f64>,
}

/// Writes `tracks` to `out` in the format its extension names:
/// - `.json` with a moment: every track's [`crate::pose::State`] at it;
/// - `.json` or `.csv` without one: each track's table, one file per track
///   (`out-1.csv`, `out-2.csv`… for several);
/// - `.obj`: the first MEMG scene deformed at the moment (timestep 0 by default);
/// - `.glb` / `.gltf`: every track as one animated glTF scene ([`gltf`]);
/// - `.pc2`: the MEMG scene's vertices per timestep ([`pc2`]);
/// - `.urdf`: the robot description of each AIBO track's model;
/// - `.mcap`: every track as ROS 2 messages in one bag (`export/mcap`);
/// - `.usda`: every track as one animated USD stage (`export/usd`).
///
/// Every sample is taken on the track's clock ([`crate::anim::clock`]).
pub fn export(tracks: &[Track], out: &Path, options: &Options) -> Result<Report> {
    let fail = |reason: String| Error::unsupported(out, reason);
    if tracks.is_empty() {
        return Err(fail("no motion among the files given".into()));
    }
    let format = Format::from_path(out).ok_or_else(|| {
        fail(
            "unknown output type; use .json, .csv, .obj, .glb, .gltf, .pc2, .urdf, .xml (MJCF), .mcap or .usda"
                .into(),
        )
    })?;
    crate::open::check_not_input(out, options.inputs, options.force)?;
    let mut report = Report::default();
    // `--frame N` counts in the first track's frame period; the others are
    // taken at the same time.
    let first_period = tracks[0].frame_period_s();
    let at_for = |i: usize, at: At| match at {
        At::Frame(n) if i > 0 => At::Time(crate::anim::clock::time_of(n, first_period)),
        at => at,
    };
    match (format, options.at) {
        (Format::Obj, at) => {
            let Some(Track::Memg {
                scene,
                motion,
                motion_path,
                ..
            }) = tracks.iter().find(|t| matches!(t, Track::Memg { .. }))
            else {
                return Err(fail("an .obj export needs a MEMG scene and motion".into()));
            };
            obj::write(
                scene,
                motion,
                motion_path,
                at.unwrap_or(At::Frame(0)),
                out,
                options.deform,
                &mut report.warnings,
            )?;
            report.written.push(out.to_path_buf());
        }
        (Format::Json, Some(at)) => {
            let states = tracks
                .iter()
                .enumerate()
                .map(|(i, t)| finite_state(t, at_for(i, at), &mut report.warnings))
                .collect::<Result<Vec<_>>>()?;
            json::write_states(&states, out)?;
            report.written.push(out.to_path_buf());
        }
        (Format::Json | Format::Csv, None) => {
            let table_format = if format == Format::Csv {
                TableFormat::Csv
            } else {
                TableFormat::Json
            };
            let window = window(tracks, options);
            // Every table is checked before any is written, and all appear
            // together or none does.
            let mut planned = Vec::with_capacity(tracks.len());
            for (i, track) in tracks.iter().enumerate() {
                let sampling = Sampling::new(track, options.fps, window)?;
                let path = numbered(out, i, tracks.len());
                crate::open::check_not_input(&path, options.inputs, options.force)?;
                table::check(track, &sampling, &path, input_bytes(track))?;
                planned.push((track, sampling, path));
            }
            let mut set = crate::output::OutputSet::new();
            for (track, sampling, path) in &planned {
                let w = set.add(path)?.writer();
                let warnings = table::write_to(track, sampling, table_format, path, w)?;
                report.warnings.extend(warnings);
            }
            report.written.extend(set.commit()?);
        }
        (Format::Csv, Some(_)) => {
            return Err(fail(
                "--time/--frame go with a .json output; a .csv holds every frame".into(),
            ));
        }
        (Format::Glb | Format::Gltf, Some(_)) => {
            return Err(fail(
                "a glTF scene holds the whole motion; leave out --time/--frame".into(),
            ));
        }
        (Format::Pc2, Some(_)) => {
            return Err(fail(
                "a point cache (.pc2) holds the whole motion; leave out --time/--frame".into(),
            ));
        }
        (Format::Glb | Format::Gltf, None) => animated::gltf(tracks, out, options, &mut report)?,
        (Format::Pc2, None) => animated::pc2(tracks, out, options, &mut report)?,
        (Format::Urdf, Some(_)) => {
            return Err(fail(
                "a URDF describes the robot, not a moment; leave out --time/--frame".into(),
            ));
        }
        (Format::Urdf, None) => dispatch::urdf(tracks, out, &mut report)?,
        (Format::Mjcf, Some(_)) => {
            return Err(fail(
                "an MJCF describes the robot and the whole motion; leave out --time/--frame".into(),
            ));
        }
        (Format::Mjcf, None) => dispatch::mjcf(tracks, out, &mut report)?,
        (Format::Mcap, Some(_)) => {
            return Err(fail(
                "a bag holds the whole motion; leave out --time/--frame (--frames A..B takes a part)"
                    .into(),
            ));
        }
        (Format::Mcap, None) => dispatch::mcap(tracks, out, options, &mut report)?,
        (Format::Usda, Some(_)) => {
            return Err(fail(
                "a USD stage holds the whole motion; leave out --time/--frame".into(),
            ));
        }
        (Format::Usda, None) => dispatch::usd(tracks, out, options, &mut report)?,
    }
    Ok(report)
}

/// Writes the description of `model` alone, without a motion
/// (`viewer export --model ERS-7 --out ers7.urdf`): `out` must be a `.urdf`
/// or an MJCF `.xml`.
pub fn export_model(
    model: crate::formats::aibo::Model,
    out: &Path,
    options: &Options,
) -> Result<Report> {
    let format = Format::from_path(out);
    if !matches!(format, Some(Format::Urdf | Format::Mjcf)) {
        return Err(Error::unsupported(
            out,
            "--model without a motion writes a robot description; use .urdf or .xml (MJCF)",
        ));
    }
    crate::open::check_not_input(out, options.inputs, options.force)?;
    let mut report = Report::default();
    if format == Some(Format::Mjcf) {
        dispatch::mjcf_of(model, None, out, &mut report)?;
    } else {
        dispatch::urdf_of_model(model, out, &mut report)?;
    }
    Ok(report)
}

/// `track`'s state at `at` under the finite-number policy: an MRTK value
/// that is not finite holds its last finite value ([`finite::held_input_state`],
/// one warning), any other is refused.
fn finite_state(track: &Track, at: At, warnings: &mut Vec<String>) -> Result<State> {
    use crate::pose::InputAnimationState;
    let state = match track {
        Track::InputAnimation { recording, .. } => {
            let t = match at {
                At::Time(t) => t,
                At::Frame(n) => {
                    crate::anim::clock::time_of(n, crate::anim::input_animation::FRAME_PERIOD_S)
                }
            };
            let (held, count) = finite::held_input_state(recording, t);
            if count > 0 {
                warnings.push(format!(
                    "{}: {count} values at {t} s were not finite (tracking lost); the last finite value is held there",
                    crate::text::Escaped::path(track.path())
                ));
            }
            State::InputAnimation(InputAnimationState::from_state(&held))
        }
        _ => state_at(track, at)?,
    };
    if let State::Memg(m) = &state {
        for (corner, values) in [("lowest", m.bbox_min), ("highest", m.bbox_max)] {
            for (axis, &v) in ["x", "y", "z"].iter().zip(&values) {
                finite::check_f32(v, track.path(), m.time_s, || {
                    format!("the deformed scene's {corner} corner {axis}")
                })?;
            }
        }
        for g in &m.groups {
            let name = crate::text::Escaped(&g.name);
            for (i, &v) in g.q.iter().enumerate() {
                finite::check(v, track.path(), m.time_s, || {
                    format!("group '{name}' coefficient q{i}")
                })?;
            }
            for (axis, &v) in ["x", "y", "z"].iter().zip(g.translation.iter().flatten()) {
                finite::check(v, track.path(), m.time_s, || {
                    format!("group '{name}' frame translation {axis}")
                })?;
            }
        }
    }
    Ok(state)
}

/// `--frames A..B` on the clock: frames of the first track's frame period.
pub(crate) fn window(tracks: &[Track], options: &Options) -> Option<crate::anim::clock::Window> {
    let period = tracks.first()?.frame_period_s();
    options
        .frames
        .map(|(a, b)| crate::anim::clock::Window::frames(a, b, period))
}

/// The size of the files a track came from (0 where they can't be read).
pub(crate) fn input_bytes(track: &Track) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    match track {
        Track::Memg {
            obj_path,
            motion_path,
            ..
        } => size(obj_path) + size(motion_path),
        other => size(other.path()),
    }
}

/// A writer that counts the bytes written through it (an export's report).
pub(crate) struct Counted<'w> {
    inner: &'w mut dyn std::io::Write,
    bytes: u64,
}

impl<'w> Counted<'w> {
    /// Counts what goes into `inner`.
    pub(crate) fn new(inner: &'w mut dyn std::io::Write) -> Counted<'w> {
        Counted { inner, bytes: 0 }
    }

    /// Bytes written so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl std::io::Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// `out.csv` for one track; `out-1.csv`, `out-2.csv`, … for several.
pub(crate) fn numbered(out: &Path, i: usize, count: usize) -> PathBuf {
    if count == 1 {
        return out.to_path_buf();
    }
    let stem = out.file_stem().unwrap_or_default().to_string_lossy();
    let ext = out.extension().unwrap_or_default().to_string_lossy();
    out.with_file_name(format!("{stem}-{}.{ext}", i + 1))
}
