//! `motion_viewer.export` and `Track.export`: the library's one export
//! entry point, with the GIL released while it writes.

use crate::errors::OrRaise;
use motion_viewer::export::Options;
use motion_viewer::pose::At;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::{Path, PathBuf};

/// The export options a Python caller chose.
pub struct Choices {
    /// One moment, seconds.
    pub time: Option<f64>,
    /// One moment, a frame of the first track's frame period.
    pub frame: Option<u64>,
    /// Table rows per second.
    pub fps: Option<f64>,
    /// A range of frames `[A, B)`, for tables.
    pub frames: Option<(u64, u64)>,
    /// Allow writing over an input.
    pub force: bool,
    /// glTF: one plain mesh per MEMG timestep instead of morph targets.
    pub baked: bool,
    /// glTF: MEMG meshes in 16-bit integers, and how far a vertex may move
    /// for fewer bytes (`--quantize[=E]`).
    pub quantize: Quantize,
}

/// `quantize=`: `False` (floats), `True` (16-bit integers), or a distance in
/// scene units a MEMG vertex may move for fewer bytes (`viewer export
/// --quantize=E`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Quantize {
    /// Integers at all.
    pub on: bool,
    /// The distance to spend on 8-bit targets, 16-bit rotations, fewer keys.
    pub tolerance: Option<f64>,
}

impl Quantize {
    /// The choice from Python's value: a bool, or a positive finite number.
    pub fn from_py(value: Option<&Bound<'_, PyAny>>) -> PyResult<Quantize> {
        let Some(value) = value.filter(|v| !v.is_none()) else {
            return Ok(Quantize::default());
        };
        if let Ok(on) = value.cast::<pyo3::types::PyBool>() {
            return Ok(Quantize {
                on: on.is_true(),
                tolerance: None,
            });
        }
        match value.extract::<f64>() {
            Ok(e) if e.is_finite() && e > 0.0 => Ok(Quantize {
                on: true,
                tolerance: Some(e),
            }),
            Ok(e) => Err(PyValueError::new_err(format!(
                "quantize: expected True, False or a distance above 0 (scene units), found {e}"
            ))),
            Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "quantize: expected True, False or a distance above 0 (scene units), found {}",
                value.get_type().name()?
            ))),
        }
    }
}

/// Exports `tracks` to `out`; returns the paths written.
pub fn run(
    py: Python<'_>,
    tracks: &[motion_viewer::Track],
    out: &Path,
    c: &Choices,
) -> PyResult<Vec<String>> {
    let at = match (c.time, c.frame) {
        (Some(_), Some(_)) => return Err(PyValueError::new_err("give time or frame, not both")),
        (Some(t), None) => Some(At::Time(t)),
        (None, Some(f)) => Some(At::Frame(f)),
        (None, None) => None,
    };
    // Every file a track came from, so an export never overwrites one
    // unless `force` says so.
    let inputs: Vec<PathBuf> = tracks
        .iter()
        .flat_map(|t| match t {
            motion_viewer::Track::Memg {
                obj_path,
                motion_path,
                ..
            } => vec![obj_path.clone(), motion_path.clone()],
            other => vec![other.path().to_path_buf()],
        })
        .collect();
    let (fps, frames, force, baked, quantize) = (c.fps, c.frames, c.force, c.baked, c.quantize);
    let report = crate::errors::guarded(py, || {
        py.detach(|| {
            let options = Options {
                at,
                fps,
                frames,
                inputs: &inputs,
                force,
                baked,
                quantize: quantize.on,
                quantize_tolerance: quantize.tolerance,
                ..Options::default()
            };
            motion_viewer::export::export(tracks, out, &options)
        })
        .or_raise(py)
    })?;
    Ok(report
        .written
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect())
}
