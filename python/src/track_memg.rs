//! `Track`'s MEMG side: `open` of a MEMG motion mapped and checked rather
//! than decoded, the whole track decoded on first need, and the groups'
//! stored arrays as views (see `memg.rs`).

use crate::memg::{Stored, Which};
use crate::track::Track;
use motion_viewer::Track as Inner;
use motion_viewer::anim::timeline::MAX_DURATION_S;
use motion_viewer::formats::memg::MemgGroup;
use motion_viewer::formats::{self, Kind};
use pyo3::exceptions::{PyIndexError, PyKeyError, PyValueError};
use pyo3::prelude::*;
use std::io::Read;
use std::path::Path;

/// What `open(path)` gives for a MEMG motion with its `.obj` beside it: the
/// scene decoded, the motion mapped and checked; `None` when `path` is not
/// such a file (the front door then opens it, or says what is wrong).
/// The errors are the front door's: the `.obj`'s first, then the motion's.
pub fn open(py: Python<'_>, path: &Path) -> PyResult<Option<Track>> {
    let obj = path.with_extension("obj");
    if !(is_memg(path) && obj.is_file()) {
        return Ok(None);
    }
    let opened = py.detach(|| -> motion_viewer::Result<_> {
        let (scene, mut warnings) = motion_viewer::scene::load::load_obj(&obj)?;
        let (stored, motion) = Stored::map(path)?;
        let track = Inner::Memg {
            obj_path: obj,
            motion_path: path.to_path_buf(),
            scene,
            motion,
        };
        // As the front door warns (scene::load_inputs).
        let recorded = track.recorded_duration_s();
        if recorded > MAX_DURATION_S {
            warnings.push(format!(
                "{}: lasts {recorded:.6e} s; only its first {MAX_DURATION_S} s (24 h) play",
                path.display()
            ));
        }
        Ok((track, warnings, stored))
    });
    let (track, warnings, stored) = crate::errors::OrRaise::or_raise(opened, py)?;
    Track::with_file(py, track, warnings, Some(stored), true).map(Some)
}

/// Whether `path` is a regular file whose first bytes are a MEMG motion's
/// (opened as every input is, without blocking: a named pipe is no MEMG
/// motion, and the front door then refuses it at once).
fn is_memg(path: &Path) -> bool {
    let mut head = [0u8; 16];
    let read = formats::file::open_regular(path)
        .ok()
        .and_then(|(mut f, _)| f.read(&mut head).ok());
    matches!(read, Some(n) if formats::probe(&head[..n]) == Some(Kind::MemgMotion))
}

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
                    scene: scene.clone(),
                    motion,
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
