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
    let (fps, frames, force, baked) = (c.fps, c.frames, c.force, c.baked);
    let report = crate::errors::guarded(py, || {
        py.detach(|| {
            let options = Options {
                at,
                fps,
                frames,
                inputs: &inputs,
                force,
                baked,
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
