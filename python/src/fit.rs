//! `motion_viewer.memg`: a MEMG motion fitted to a numpy array of
//! positions (`fit`, the library's `fit::fit_checked`), and a MEMG track's
//! motion saved as a file (`save`).

use crate::errors::{OrRaise, out_of_memory, to_py};
use crate::memg::Stored;
use crate::track::Track;
use motion_viewer::error::Error;
use motion_viewer::fit::{
    self, Animation, Bound as FitBound, FitError, FitOptions, FrameMode, Parts,
};
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg;
use motion_viewer::open::check_not_input;
use motion_viewer::output::write_atomic;
use numpy::{PyReadonlyArray3, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// Fits a MEMG motion to `positions` (frames × vertices × 3, float32,
/// C-contiguous) of the scene `.obj` at `scene`, whose `g` groups are the
/// motion's groups. Returns the track (the scene with the fitted motion,
/// decoded from the file's bytes) and the report as a dict.
#[pyfunction]
#[pyo3(name = "memg_fit")]
#[pyo3(signature = (scene, positions, *, rank=None, max_error=None, max_error_of_diagonal=None, rms_error=None, rms_error_of_diagonal=None, frames="local", fps=30, parts=None, out_scene=None))]
#[allow(clippy::too_many_arguments)]
fn fit_array<'py>(
    py: Python<'py>,
    scene: PathBuf,
    positions: PyReadonlyArray3<'py, f32>,
    rank: Option<usize>,
    max_error: Option<f64>,
    max_error_of_diagonal: Option<f64>,
    rms_error: Option<f64>,
    rms_error_of_diagonal: Option<f64>,
    frames: &str,
    fps: i32,
    parts: Option<&Bound<'py, PyAny>>,
    out_scene: Option<PathBuf>,
) -> PyResult<(Track, Bound<'py, PyAny>)> {
    // With parts: how many, and where the split scene goes.
    let split = match (parts.map(parts_asked).transpose()?, out_scene) {
        (Some(asked), Some(path)) => {
            check_not_input(&path, std::slice::from_ref(&scene), false).or_raise(py)?;
            Some((asked, path))
        }
        (Some(_), None) => {
            return Err(PyValueError::new_err(
                "parts makes new groups: give out_scene, the scene .obj to write with them",
            ));
        }
        (None, Some(_)) => {
            return Err(PyValueError::new_err(
                "out_scene is the scene parts write: give parts too",
            ));
        }
        (None, None) => None,
    };
    let given = [
        rank.map(FitBound::Rank),
        max_error.map(FitBound::MaxError),
        max_error_of_diagonal.map(FitBound::MaxErrorOfDiagonal),
        rms_error.map(FitBound::RmsError),
        rms_error_of_diagonal.map(FitBound::RmsErrorOfDiagonal),
    ];
    let bound = match given.iter().flatten().collect::<Vec<_>>()[..] {
        [] => fit::DEFAULT_BOUND,
        [&one] => one,
        _ => {
            return Err(PyValueError::new_err(
                "give one of rank, max_error and rms_error, not several",
            ));
        }
    };
    let frames = match frames {
        "local" => FrameMode::Local,
        "world" => FrameMode::World,
        "auto" => FrameMode::Auto,
        other => {
            return Err(PyValueError::new_err(format!(
                "frames: expected \"local\", \"world\" or \"auto\", found {other:?}"
            )));
        }
    };
    let options = FitOptions {
        bound,
        frames,
        fps,
        ..FitOptions::default()
    };
    let (obj, mut warnings) = py.detach(|| fit::open_scene(&scene)).or_raise(py)?;
    let (groups, group_warnings) = fit::groups_of(&obj, &scene).map_err(|e| to_py(py, e))?;
    warnings.extend(group_warnings);
    let shape = positions.shape().to_vec();
    let vertices = obj.positions.len();
    if shape[1] != vertices || shape[2] != 3 {
        return Err(to_py(
            py,
            Error::mismatch(
                &scene,
                format!(
                    "positions: expected an array of (frames, {vertices}, 3) for the scene's \
                     {vertices} vertices, found {shape:?}"
                ),
            ),
        ));
    }
    let n = shape[0];
    // With parts, any part is at most the whole mesh: sized as one group
    // of it here, each split by its own groups before its fit.
    let sizes: Vec<u64> = match split {
        Some(_) => vec![vertices as u64],
        None => groups.iter().map(|g| g.vertices.len() as u64).collect(),
    };
    // Sized against the caps and against what this process can still
    // allocate (the array is already held; its copy is counted).
    motion_viewer::budget::check_fit(
        &scene,
        vertices as u64,
        n as u64,
        &sizes,
        rank.map(|r| r as u64),
        false,
        0,
    )
    .or_raise(py)?;
    // A copy, so the fit runs with the GIL released while Python may
    // change the array; an allocation that fails is a MemoryError.
    let given = positions
        .as_slice()
        .map_err(|_| PyValueError::new_err("positions: expected a C-contiguous array"))?;
    let mut held: Vec<f32> = Vec::new();
    held.try_reserve_exact(given.len()).map_err(|_| {
        out_of_memory(
            py,
            format!(
                "{}: a copy of the positions ({} bytes): Cannot allocate memory",
                scene.display(),
                4 * given.len()
            ),
        )
    })?;
    held.extend_from_slice(given);
    // Ctrl+C sets the fit's stop flag and raises KeyboardInterrupt once
    // the fit has stopped (crate::interrupt).
    let fitted = crate::interrupt::run(py, |stop| {
        let anim = Animation::new(&held, vertices, n).map_err(Parted::Fit)?;
        match &split {
            Some((asked, _)) => fit::fit_parts_in_memory(&anim, &scene, *asked, &options, stop)
                .map(|(text, checked)| (Some(text), checked))
                .map_err(Parted::Error),
            None => fit::fit_checked_until(&anim, &groups, &options, stop)
                .map(|checked| (None, checked))
                .map_err(Parted::Fit),
        }
    })?;
    let (text, checked) = match fitted {
        Ok(done) => done,
        Err(Parted::Error(e)) => return Err(to_py(py, e)),
        Err(Parted::Fit(e)) => return Err(fit_error(py, &scene, fps, e)),
    };
    let (scene, obj) = match (text, split) {
        (Some(text), Some((_, path))) => {
            // The split scene written, then opened through the door as any
            // scene is: the track's scene is that file.
            py.detach(|| -> motion_viewer::Result<_> {
                write_atomic(&path, |w| w.write_all(text.as_bytes()))?;
                fit::open_scene(&path)
            })
            .map(|(obj, _)| (path, obj))
            .or_raise(py)?
        }
        _ => (scene, obj),
    };
    let motion_path = scene.with_extension("bin");
    let fit::Checked {
        bytes: file,
        motion,
        mut report,
    } = checked;
    warnings.append(&mut report.warnings);
    report.warnings = warnings.clone();
    // Python's copy of the file (a failed allocation is its MemoryError);
    // ours goes at once.
    let bytes: PyBackedBytes = PyBytes::new_with(py, file.len(), |b| {
        b.copy_from_slice(&file);
        Ok(())
    })?
    .into();
    drop(file);
    let stored = Stored::python(&motion_path, bytes).or_raise(py)?;
    let track = Track::with_file(
        py,
        motion_viewer::Track::Memg {
            obj_path: scene,
            motion_path,
            scene: obj,
            motion: std::sync::Arc::new(motion),
        },
        warnings,
        Some(stored),
        false,
    )?;
    let text = serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let report = py.import("json")?.call_method1("loads", (text,))?;
    Ok((track, report))
}

/// Why a fit failed: the library's error, or the fit's own (mapped by [`fit_error`]).
enum Parted {
    Error(Error),
    Fit(FitError),
}

/// `parts`: a number of parts from 1, or `"auto"`.
fn parts_asked(value: &Bound<'_, PyAny>) -> PyResult<Parts> {
    if let Ok(text) = value.extract::<String>() {
        return match text.as_str() {
            "auto" => Ok(Parts::Auto),
            _ => Err(PyValueError::new_err(format!(
                "parts: expected a number of parts from 1, or \"auto\", found {text:?}"
            ))),
        };
    }
    match value.extract::<i64>() {
        Ok(n) if n >= 1 => Ok(Parts::Count(n as usize)),
        _ => Err(PyValueError::new_err(format!(
            "parts: expected a number of parts from 1, or \"auto\", found {}",
            value
                .repr()
                .map_or_else(|_| "?".to_string(), |r| r.to_string())
        ))),
    }
}

/// A fit's own error as Python's: a position that is not finite names the
/// array's element; the others name the scene.
fn fit_error(py: Python<'_>, scene: &std::path::Path, fps: i32, e: FitError) -> PyErr {
    to_py(
        py,
        match e {
            FitError::NotFinite {
                frame,
                vertex,
                axis,
                value,
            } => Error::NonFinite {
                path: scene.to_path_buf(),
                field: format!("positions[{frame}, {vertex}, {axis}]"),
                time_s: motion_viewer::anim::clock::time_of(
                    frame as u64,
                    1.0 / f64::from(fps.max(1)),
                ),
                value: value.to_string(),
            },
            e => e.into_error(scene, scene),
        },
    )
}

/// Writes a MEMG track's motion to `path` (little-endian), whole or not at
/// all; never over the track's `.obj` or motion file unless `force`.
#[pyfunction]
#[pyo3(name = "memg_save")]
#[pyo3(signature = (track, path, *, force=false))]
fn save(py: Python<'_>, track: PyRef<'_, Track>, path: PathBuf, force: bool) -> PyResult<()> {
    let whole = track.whole(py)?;
    let motion_viewer::Track::Memg {
        obj_path,
        motion_path,
        motion,
        ..
    } = whole
    else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{}: save is for memg tracks",
            whole.path().display()
        )));
    };
    py.detach(|| -> motion_viewer::Result<()> {
        check_not_input(&path, &[obj_path.clone(), motion_path.clone()], force)?;
        write_atomic(&path, |w| memg::write(motion, ByteOrder::Little, w))
    })
    .or_raise(py)
}

/// Adds the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fit_array, m)?)?;
    m.add_function(wrap_pyfunction!(save, m)?)?;
    Ok(())
}
