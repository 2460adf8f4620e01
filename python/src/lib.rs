//! `motion_viewer._core`: the Python extension over the motion-viewer
//! library. Files open through the library's front door; each track becomes
//! a `Track` (`track.rs`) whose samplers fill numpy arrays with the GIL released.
//! The exceptions, the `mtn` workbench's Python face and the type stubs live
//! beside it in `motion_viewer/`.

mod errors;
mod export;
mod fit;
mod interrupt;
mod memg;
mod mtn;
mod sample;
mod track;
mod track_sim;

use errors::OrRaise;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use std::path::PathBuf;
use track::Track;

/// The tracks of one load, each carrying the load's warnings first. A MEMG
/// track whose motion the front door left mapped keeps that file for its
/// views; another MEMG track takes its motion's bytes from `stored` (given
/// the track's path).
fn tracks(
    py: Python<'_>,
    loaded: motion_viewer::Loaded,
    mut stored: impl FnMut(&std::path::Path) -> motion_viewer::Result<memg::Stored>,
) -> PyResult<Vec<Track>> {
    let mut mapped: Vec<_> = loaded.mapped.into_iter().map(Some).collect();
    loaded
        .tracks
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let left = mapped
                .iter_mut()
                .find(|m| m.as_ref().is_some_and(|(at, _)| *at == i))
                .and_then(Option::take);
            let (file, indexed) = match (&t, left) {
                (_, Some((_, file))) => (Some(memg::Stored::mapped(file).or_raise(py)?), true),
                (motion_viewer::Track::Memg { motion_path, .. }, None) => {
                    (Some(stored(motion_path).or_raise(py)?), false)
                }
                _ => (None, false),
            };
            Track::with_file(py, t, loaded.warnings.clone(), file, indexed)
        })
        .collect()
}

/// Opens paths through the front door, MEMG motions left mapped in their
/// files (`scene_beside`: a lone MEMG motion takes the `.obj` beside it).
fn open_paths(
    paths: &[PathBuf],
    scene_beside: bool,
) -> motion_viewer::Result<motion_viewer::Loaded> {
    let options = motion_viewer::OpenOptions {
        scene_beside,
        map_memg: true,
        ..motion_viewer::OpenOptions::default()
    };
    motion_viewer::open_with(paths, &options)
}

/// Every track the front door left mapped is among the load's: none is
/// decoded again here.
fn not_mapped(path: &std::path::Path) -> motion_viewer::Result<memg::Stored> {
    Err(motion_viewer::Error::mismatch(
        path,
        "a MEMG motion the front door did not leave mapped",
    ))
}

/// Opens one motion file (an AIBO `.mtn`, an MRTK recording, a MEMG motion
/// with its `.obj` beside it, or an ODA archive's `entry`) and returns its
/// first track. The format is told by the content, never the extension.
#[pyfunction]
#[pyo3(signature = (path, entry=None))]
fn open(py: Python<'_>, path: PathBuf, entry: Option<String>) -> PyResult<Track> {
    errors::guarded(py, || {
        let loaded = py
            .detach(|| match &entry {
                Some(entry) => {
                    let options = motion_viewer::OpenOptions {
                        entry: Some(entry),
                        ..motion_viewer::OpenOptions::default()
                    };
                    motion_viewer::open_with([&path], &options)
                }
                None => open_paths(std::slice::from_ref(&path), true),
            })
            .or_raise(py)?;
        first(py, &path, tracks(py, loaded, not_mapped)?)
    })
}

/// A copy of `data` for the library, made with the GIL released; a
/// `MemoryError` (never an abort) when it does not fit.
fn owned(py: Python<'_>, data: &[u8]) -> PyResult<Vec<u8>> {
    py.detach(|| {
        let mut copy = Vec::new();
        copy.try_reserve_exact(data.len()).ok()?;
        copy.extend_from_slice(data);
        Some(copy)
    })
    .ok_or_else(|| {
        pyo3::exceptions::PyMemoryError::new_err(format!(
            "a copy of {} bytes does not fit in memory",
            data.len()
        ))
    })
}

/// The first track, or an error naming `path` when the file held none.
fn first(py: Python<'_>, path: &std::path::Path, tracks: Vec<Track>) -> PyResult<Track> {
    tracks
        .into_iter()
        .next()
        .ok_or_else(|| errors::to_py(py, motion_viewer::Error::mismatch(path, "holds no motion")))
}

/// Opens several files as one set: each MEMG motion takes the `.obj` of the
/// same stem among them (else the nearest before it); an ODA archive gives
/// every motion entry. Returns every track, in the order given.
#[pyfunction]
fn open_all(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Vec<Track>> {
    errors::guarded(py, || {
        let loaded = py.detach(|| open_paths(&paths, false)).or_raise(py)?;
        tracks(py, loaded, not_mapped)
    })
}

/// Opens a file held in memory; `name` is what errors and the track call
/// it. A MEMG motion needs its `.obj`: give both to `open_bytes_all`.
#[pyfunction]
#[pyo3(signature = (name, data, entry=None))]
fn open_bytes(
    py: Python<'_>,
    name: PathBuf,
    data: PyBackedBytes,
    entry: Option<String>,
) -> PyResult<Track> {
    // One copy of the bytes (the library owns what it decodes), made with
    // the GIL released.
    let bytes = owned(py, &data)?;
    let loaded = py
        .detach(|| {
            let options = motion_viewer::OpenOptions {
                entry: entry.as_deref(),
                ..motion_viewer::OpenOptions::default()
            };
            motion_viewer::open_with([(name.clone(), bytes)], &options)
        })
        .or_raise(py)?;
    // A MEMG motion needs its .obj: never a MEMG track here.
    let none = |p: &std::path::Path| {
        Err(motion_viewer::Error::mismatch(
            p,
            "a MEMG motion needs its .obj scene",
        ))
    };
    first(py, &name, tracks(py, loaded, none)?)
}

/// Opens several files held in memory as one set, paired as `open_all`
/// pairs files on disk (a MEMG motion with its `.obj`, an `.obj` with its
/// `.mtl`). Returns every track.
#[pyfunction]
fn open_bytes_all(py: Python<'_>, files: Vec<(PathBuf, PyBackedBytes)>) -> PyResult<Vec<Track>> {
    let copies = files
        .iter()
        .map(|(name, data)| Ok((name.clone(), owned(py, data)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let loaded = py
        .detach(|| motion_viewer::open_with(copies, &motion_viewer::OpenOptions::default()))
        .or_raise(py)?;
    // Each MEMG motion keeps its bytes object, for the arrays' views.
    let mut files: Vec<_> = files.into_iter().map(Some).collect();
    tracks(py, loaded, |path| {
        let at = files
            .iter()
            .position(|f| f.as_ref().is_some_and(|(name, _)| name == path));
        let Some((name, bytes)) = at.and_then(|i| files[i].take()) else {
            return Err(motion_viewer::Error::mismatch(
                path,
                "is not among the files given",
            ));
        };
        memg::Stored::python(&name, bytes)
    })
}

/// Writes `tracks` to `path` in the format its extension names (.json,
/// .csv, .obj, .glb, .gltf, .pc2): with `time` or `frame`, the state at that
/// moment; otherwise each track's table, or every track animated in one
/// glTF scene; `quantize` as `Track.export`'s. Returns the paths written.
#[pyfunction]
#[pyo3(name = "export", signature = (tracks, path, *, time=None, frame=None, fps=None, frames=None, force=false, baked=false, quantize=None))]
#[allow(clippy::too_many_arguments)]
fn export_tracks(
    py: Python<'_>,
    tracks: Vec<Py<Track>>,
    path: PathBuf,
    time: Option<f64>,
    frame: Option<u64>,
    fps: Option<f64>,
    frames: Option<(u64, u64)>,
    force: bool,
    baked: bool,
    quantize: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<String>> {
    // The library takes a slice of tracks: several are copied into one
    // (one track needs no copy).
    let choices = export::Choices {
        time,
        frame,
        fps,
        frames,
        force,
        baked,
        quantize: export::Quantize::from_py(quantize)?,
    };
    match tracks.as_slice() {
        [one] => export::run(
            py,
            std::slice::from_ref(one.get().whole(py)?),
            &path,
            &choices,
        ),
        many => {
            let owned: Vec<motion_viewer::Track> = many
                .iter()
                .map(|t| t.get().whole(py).cloned())
                .collect::<PyResult<_>>()?;
            export::run(py, &owned, &path, &choices)
        }
    }
}

/// The extension module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Track>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(open_all, m)?)?;
    m.add_function(wrap_pyfunction!(open_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(open_bytes_all, m)?)?;
    m.add_function(wrap_pyfunction!(export_tracks, m)?)?;
    mtn::register(m)?;
    fit::register(m)?;
    Ok(())
}
