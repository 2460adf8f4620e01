//! The library's errors as the Python exceptions of `motion_viewer._errors`.

use motion_viewer::Error;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The exception class called `name` in `motion_viewer._errors`.
fn class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("motion_viewer._errors")?.getattr(name)
}

/// Builds `name(message, path, **details)`; a failure to build it (the
/// Python half of the package missing) is raised instead.
fn raise(
    py: Python<'_>,
    name: &str,
    message: String,
    path: Option<String>,
    details: &[(&str, Bound<'_, PyAny>)],
) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let kwargs = PyDict::new(py);
        for (key, value) in details {
            kwargs.set_item(key, value)?;
        }
        let value = class(py, name)?.call((message, path), Some(&kwargs))?;
        Ok(PyErr::from_value(value))
    };
    build().unwrap_or_else(|e| e)
}

/// The Python exception for a library error: its class by variant, its
/// message the error's one line, `.path` the file it names.
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let message = e.to_string();
    let path = e.path().map(|p| p.to_string_lossy().into_owned());
    let s = |v: &str| v.into_pyobject(py).map(|v| v.into_any()).unwrap();
    match &e {
        Error::Decode { source, .. } => raise(
            py,
            "DecodeError",
            message,
            path,
            &[
                ("field", s(&source.field)),
                (
                    "offset",
                    source.offset.into_pyobject(py).unwrap().into_any(),
                ),
                ("expected", s(&source.expected)),
                ("found", s(&source.found)),
            ],
        ),
        Error::Io { source, .. } => {
            let errno = source.raw_os_error().into_pyobject(py).unwrap().into_any();
            raise(py, "FileError", message, path, &[("errno", errno)])
        }
        Error::NotRegularFile { .. } | Error::OutputIsInput { .. } => {
            raise(py, "FileError", message, path, &[])
        }
        Error::UnknownFormat { head, .. } => raise(
            py,
            "UnknownFormatError",
            message,
            path,
            &[("head", s(head))],
        ),
        Error::Entry { .. } => raise(py, "EntryError", message, path, &[]),
        Error::Mismatch { .. } => raise(py, "MismatchError", message, path, &[]),
        Error::Unsupported { .. } => raise(py, "UnsupportedError", message, path, &[]),
        Error::TooLarge { .. } => raise(py, "TooLargeError", message, path, &[]),
        Error::OutOfMemory { .. } => raise(py, "OutOfMemoryError", message, path, &[]),
        Error::NonFinite { .. } => raise(py, "NonFiniteError", message, path, &[]),
        Error::Edit { .. } => raise(py, "EditError", message, path, &[]),
        _ => raise(py, "MotionViewerError", message, path, &[]),
    }
}

/// An `OutOfMemoryError` (a `MemoryError`: an allocation this process
/// could not make) saying `message`.
pub fn out_of_memory(py: Python<'_>, message: String) -> PyErr {
    raise(py, "OutOfMemoryError", message, None, &[])
}

/// A `TooLargeError` (a request over one of the package's caps, refused
/// before anything was allocated) saying `message`.
pub fn too_large(py: Python<'_>, message: String) -> PyErr {
    raise(py, "TooLargeError", message, None, &[])
}

/// Runs `f`, a call from Python, turning a panic into a
/// `MotionViewerError` (an `Exception`) instead of PyO3's `PanicException`
/// (a `BaseException` that `except Exception` lets through). Every input
/// is meant to end in a value or an exception of the package before this
/// is reached: it is the last line of defence, and its message says so.
pub fn guarded<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(raise(
                py,
                "MotionViewerError",
                format!("internal error (please report it): {what}"),
                None,
                &[],
            ))
        }
    }
}

/// Converts a library result, raising its error as a Python exception.
pub trait OrRaise<T> {
    /// The value, or the error raised in Python.
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for motion_viewer::Result<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
