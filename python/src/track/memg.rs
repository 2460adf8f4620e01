//! `Track`'s MEMG side: a MEMG motion the front door left mapped and
//! checked rather than decoded (`OpenOptions::map_memg`), the whole track
//! decoded on first need, and the arrays as read-only views (the groups'
//! stored arrays: see `memg.rs`).

use super::Track;
use crate::memg::Which;
use motion_viewer::Track as Inner;
use motion_viewer::formats::memg::MemgGroup;
use numpy::ndarray::{ArrayView, Dimension, ShapeBuilder};
use numpy::{Element, PyArray};
use pyo3::exceptions::{PyIndexError, PyKeyError, PyValueError};
use pyo3::prelude::*;

impl Track {
    /// The whole track, every array decoded: `inner`, or for an indexed
    /// MEMG track its arrays narrowed from the file the first time a call
    /// needs them (with the GIL released).
    pub fn whole(&self, py: Python<'_>) -> PyResult<&Inner> {
        let (
            true,
            Some(stored),
            Inner::Memg {
                obj_path,
                motion_path,
                scene,
                ..
            },
        ) = (self.indexed, &self.stored, &self.inner)
        else {
            return Ok(&self.inner);
        };
        if let Some(whole) = self.decoded.get() {
            return Ok(whole);
        }
        let whole = py
            .detach(|| {
                stored.decode(motion_path).map(|motion| Inner::Memg {
                    obj_path: obj_path.clone(),
                    motion_path: motion_path.clone(),
                    // The scene is shared (an `Arc`), not copied.
                    scene: scene.clone(),
                    motion: std::sync::Arc::new(motion),
                })
            })
            .map_err(|e| crate::errors::to_py(py, e))?;
        // Two threads may both decode; the first one's result is kept.
        Ok(self.decoded.get_or_init(|| whole))
    }

    /// The index of the MEMG group `group` names: an index (negative from
    /// the end), a group's name, or the first when `None`.
    fn group_index(&self, group: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
        let (_, motion, _) = self.memg("a MEMG group")?;
        let Some(group) = group else {
            return if motion.groups.is_empty() {
                Err(PyIndexError::new_err("group 0 of 0"))
            } else {
                Ok(0)
            };
        };
        if let Ok(i) = group.extract::<isize>() {
            let n = motion.groups.len() as isize;
            let at = if i < 0 { i + n } else { i };
            return usize::try_from(at)
                .ok()
                .filter(|&at| at < motion.groups.len())
                .ok_or_else(|| PyIndexError::new_err(format!("group {i} of {n}")));
        }
        let name: String = group.extract()?;
        motion
            .groups
            .iter()
            .position(|g| g.name == name)
            .ok_or_else(|| PyKeyError::new_err(format!("no group {name:?}")))
    }

    /// The MEMG group `group` names (see `group_index`).
    pub fn group_of<'a>(
        slf: &'a Bound<'_, Track>,
        group: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<&'a MemgGroup> {
        let track = slf.get();
        let at = track.group_index(group)?;
        Ok(&track.memg("a MEMG group")?.1.groups[at])
    }

    /// A view of `which` stored array of the group `group` names.
    pub fn stored_view<'py>(
        slf: &Bound<'py, Track>,
        group: Option<&Bound<'py, PyAny>>,
        which: Which,
    ) -> PyResult<Bound<'py, PyAny>> {
        let track = slf.get();
        let at = track.group_index(group)?;
        let (_, motion, _) = track.memg("a MEMG group")?;
        let stored = track
            .stored
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("the track holds no MEMG motion file"))?;
        stored.view(slf.as_any(), motion, at, which)
    }
}

/// A read-only numpy view of `view`'s memory, kept alive by `owner` (its
/// `base`): no copy. Sound because a `Track` is frozen: nothing moves or
/// frees its arrays while it lives.
pub fn borrowed<'py, T: Element, D: Dimension>(
    owner: &Bound<'py, Track>,
    view: ArrayView<'_, T, D>,
) -> PyResult<Bound<'py, PyArray<T, D>>> {
    // SAFETY: the data belongs to `owner`'s frozen track, which the array
    // holds as its base; it is never mutated or reallocated.
    let array = unsafe { PyArray::borrow_from_array(&view, owner.clone().into_any()) };
    array.getattr("flags")?.setattr("writeable", false)?;
    Ok(array)
}

/// `ArrayView::from_shape` whose shape was checked by the decoder.
pub fn shaped<'a, T, D: Dimension>(
    shape: impl ShapeBuilder<Dim = D>,
    data: &'a [T],
) -> PyResult<ArrayView<'a, T, D>> {
    ArrayView::from_shape(shape, data).map_err(|e| PyValueError::new_err(e.to_string()))
}
