//! Which kind of motion a `Track` holds: the lookups each method makes of
//! its kind's data, a `TypeError` naming the method on a track of another
//! kind, and a `ValueError` for a part an MRTK recording lacks.

use super::Track;
use motion_viewer::Track as Inner;
use motion_viewer::anim::memg::Binding;
use motion_viewer::formats::input_animation::InputAnimation;
use motion_viewer::formats::memg::MemgMotion;
use motion_viewer::formats::mtn::Mtn;
use motion_viewer::formats::obj::ObjScene;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The kind name `info --json` uses as `format`.
pub fn kind(track: &Inner) -> &'static str {
    match track {
        Inner::Mtn { .. } => "mtn",
        Inner::Memg { .. } => "memg",
        Inner::InputAnimation { .. } => "input-animation",
    }
}

impl Track {
    /// The AIBO motion, or a `TypeError` naming what was asked.
    pub fn mtn(&self, what: &str) -> PyResult<&Mtn> {
        match &self.inner {
            Inner::Mtn { motion, .. } => Ok(motion),
            _ => Err(self.wrong_kind(what, "mtn")),
        }
    }

    /// The MRTK recording, or a `TypeError`.
    pub(crate) fn recording(&self, what: &str) -> PyResult<&InputAnimation> {
        match &self.inner {
            Inner::InputAnimation { recording, .. } => Ok(recording),
            _ => Err(self.wrong_kind(what, "input-animation")),
        }
    }

    /// One part of the MRTK recording (`part` picks it), or a `TypeError`
    /// for another kind of track, or a `ValueError` naming `absent` when the
    /// recording holds none.
    pub(crate) fn recorded<'a, P>(
        &'a self,
        what: &str,
        part: impl FnOnce(&'a InputAnimation) -> Option<&'a P>,
        absent: &str,
    ) -> PyResult<&'a P> {
        part(self.recording(what)?).ok_or_else(|| {
            PyValueError::new_err(format!(
                "{}: the recording holds no {absent}",
                self.inner.path().display()
            ))
        })
    }

    /// The MEMG scene, motion and binding, or a `TypeError`.
    pub(crate) fn memg(&self, what: &str) -> PyResult<(&ObjScene, &MemgMotion, &Binding)> {
        match (&self.inner, &self.binding) {
            (Inner::Memg { scene, motion, .. }, Some(b)) => Ok((scene, motion, b)),
            _ => Err(self.wrong_kind(what, "memg")),
        }
    }

    fn wrong_kind(&self, what: &str, needs: &str) -> PyErr {
        PyTypeError::new_err(format!(
            "{}: {what} is for {needs} tracks; this one is {}",
            self.inner.path().display(),
            kind(&self.inner)
        ))
    }
}
