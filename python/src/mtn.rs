//! The AIBO workbench (`motion_viewer.mtn`): mirror, reverse, retime,
//! concatenate, convert and check `.mtn` motions; save one as a `.mtn`.

use crate::errors::{OrRaise, to_py};
use crate::track::Track;
use motion_viewer::formats::mtn::Mtn;
use motion_viewer::workbench::{self, Edit, EditError, Retime};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::PathBuf;

/// A new track for an edit's motion: the source's path (and entry), the
/// edit's warnings first.
fn made(py: Python<'_>, source: &Track, edit: Result<Edit, EditError>) -> PyResult<Track> {
    let path = source.inner.path().to_path_buf();
    let edit = edit.map_err(|e| to_py(py, motion_viewer::Error::edit(&path, e)))?;
    let entry = match &source.inner {
        motion_viewer::Track::Mtn { entry, .. } => entry.clone(),
        _ => None,
    };
    Track::new(
        py,
        motion_viewer::Track::Mtn {
            path,
            motion: edit.motion,
            entry,
        },
        edit.warnings,
    )
}

/// Runs `f` on the track's motion with the GIL released.
fn edit(
    py: Python<'_>,
    track: &Track,
    what: &str,
    f: impl FnOnce(&Mtn) -> Result<Edit, EditError> + Send,
) -> PyResult<Track> {
    crate::errors::guarded(py, || {
        let m = track.mtn(what)?;
        let result = py.detach(|| f(m));
        made(py, track, result)
    })
}

/// The motion mirrored left ↔ right.
#[pyfunction]
#[pyo3(name = "mtn_mirror")]
fn mirror(py: Python<'_>, track: PyRef<'_, Track>) -> PyResult<Track> {
    edit(py, &track, "mirror", workbench::mirror)
}

/// The motion played backwards.
#[pyfunction]
#[pyo3(name = "mtn_reverse")]
fn reverse(py: Python<'_>, track: PyRef<'_, Track>) -> PyResult<Track> {
    edit(py, &track, "reverse", workbench::reverse)
}

/// The motion retimed: `speed` times as fast, or stored with frames of
/// `frame_ms` ms (the duration kept). Keyframes land on whole frames.
#[pyfunction]
#[pyo3(name = "mtn_retime")]
#[pyo3(signature = (track, *, speed=None, frame_ms=None))]
fn retime(
    py: Python<'_>,
    track: PyRef<'_, Track>,
    speed: Option<f64>,
    frame_ms: Option<u16>,
) -> PyResult<Track> {
    let how = match (speed, frame_ms) {
        (Some(s), None) => Retime::Speed(s),
        (None, Some(ms)) => Retime::FrameMs(ms),
        _ => {
            return Err(PyValueError::new_err(
                "give speed or frame_ms (one of them)",
            ));
        }
    };
    edit(py, &track, "retime", |m| workbench::retime(m, how))
}

/// The motions played one after another, as one motion.
#[pyfunction]
#[pyo3(name = "mtn_concat")]
fn concat(py: Python<'_>, tracks: Vec<PyRef<'_, Track>>) -> PyResult<Track> {
    let first = tracks
        .first()
        .ok_or_else(|| PyValueError::new_err("concat needs at least one track"))?;
    let parts = tracks
        .iter()
        .map(|t| t.mtn("concat").cloned())
        .collect::<PyResult<Vec<Mtn>>>()?;
    let result = py.detach(|| workbench::concat(&parts));
    made(py, first, result)
}

/// The motion carried to another AIBO model (`"ERS-7"`, `"ERS-210"`…).
#[pyfunction]
#[pyo3(name = "mtn_convert")]
fn convert(py: Python<'_>, track: PyRef<'_, Track>, model: &str) -> PyResult<Track> {
    let target: motion_viewer::formats::aibo::Model = model
        .parse()
        .map_err(|e: motion_viewer::ParseValueError| PyValueError::new_err(e.to_string()))?;
    edit(py, &track, "convert", |m| workbench::convert(m, target))
}

/// The motion checked against its robot's joint limits, servo speeds,
/// naming rules and standard postures: the report as `viewer mtn check
/// --json` writes it (a dict with `findings`, `errors`, `warnings`…).
#[pyfunction]
#[pyo3(name = "mtn_check")]
fn check<'py>(py: Python<'py>, track: PyRef<'py, Track>) -> PyResult<Bound<'py, PyAny>> {
    let m = track.mtn("check")?;
    let report = py.detach(|| workbench::check(m));
    let text = serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Writes the track's motion as a `.mtn` file (never over the file it came
/// from unless `force`); the file appears whole or not at all.
#[pyfunction]
#[pyo3(name = "mtn_save")]
#[pyo3(signature = (track, path, *, force=false))]
fn save(py: Python<'_>, track: PyRef<'_, Track>, path: PathBuf, force: bool) -> PyResult<()> {
    let m = track.mtn("save")?;
    let input = track.inner.path().to_path_buf();
    py.detach(|| {
        motion_viewer::open::check_not_input(&path, &[input], force)?;
        let bytes = motion_viewer::formats::mtn::encode(m);
        motion_viewer::output::write_atomic(&path, |w| w.write_all(&bytes))
    })
    .or_raise(py)
}

/// Adds the workbench's functions to the module as `mtn_mirror`…, which
/// `motion_viewer.mtn` wraps with typed signatures and short names.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mirror, m)?)?;
    m.add_function(wrap_pyfunction!(reverse, m)?)?;
    m.add_function(wrap_pyfunction!(retime, m)?)?;
    m.add_function(wrap_pyfunction!(concat, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(save, m)?)?;
    Ok(())
}
