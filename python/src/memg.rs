//! MEMG motions for Python without decoding them up front.
//!
//! A MEMG motion is mostly its groups' bases U, stored as `f64`: a
//! million-vertex motion is 800 MB of them. `open` maps the file, checks it
//! as the decoder does (every count, shape and mapping, with the decoder's
//! errors: `formats::memg::MappedMemg`) and keeps it mapped; the mean poses,
//! bases and coefficients are numpy `float64` views of the stored doubles
//! (in the file's byte order, where the file has them). The `f32` arrays the
//! CPU deformer and the exporters take are narrowed from the map the first
//! time a call needs them (`Track::whole`). Tracks opened from bytes keep
//! the Python `bytes` object and view it the same way.

use crate::track::Track;
use motion_viewer::Track as Inner;
use motion_viewer::anim::timeline::MAX_DURATION_S;
use motion_viewer::error::Error;
use motion_viewer::formats::bytes::ByteOrder;
use motion_viewer::formats::memg::MemgGroup;
use motion_viewer::formats::memg::{self, ArrayOffsets, ArraySource, MappedMemg, MemgMotion};
use motion_viewer::formats::{self, Kind};
use numpy::npyffi::{self, PY_ARRAY_API, npy_intp};
use numpy::{PyArrayDescr, PyArrayDescrMethods};
use pyo3::exceptions::{PyIndexError, PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use std::io::Read;
use std::path::Path;

/// Where a motion file's bytes are held.
enum Held {
    /// Mapped from disk.
    Mapped(MappedMemg),
    /// A Python `bytes` object (`open_bytes_all`).
    Python(PyBackedBytes),
}

/// A MEMG motion file held whole, checked, with where its arrays lie.
pub struct Stored {
    held: Held,
    order: ByteOrder,
    offsets: Vec<ArrayOffsets>,
}

/// Which of a group's stored arrays a view shows.
#[derive(Clone, Copy)]
pub enum Which {
    /// The mean pose, vertices × 3.
    Mean,
    /// U, 3·vertices × r, column-major.
    Basis,
    /// Q, r × timesteps, column-major.
    Coeffs,
}

impl Stored {
    /// Maps and checks the motion at `path`; returns it with the motion
    /// decoded but for its mean poses and bases.
    pub fn map(path: &Path) -> motion_viewer::Result<(Stored, MemgMotion)> {
        let mapped = MappedMemg::open(path)?;
        let skeleton = mapped.motion().clone();
        let stored = Stored {
            order: skeleton.byte_order,
            offsets: mapped.offsets().to_vec(),
            held: Held::Mapped(mapped),
        };
        Ok((stored, skeleton))
    }

    /// Checks the motion in `bytes` (named `name` in errors), keeping them.
    pub fn python(name: &Path, bytes: PyBackedBytes) -> motion_viewer::Result<Stored> {
        let (skeleton, offsets) = memg::index(&bytes).map_err(|e| Error::decode(name, e))?;
        Ok(Stored {
            order: skeleton.byte_order,
            offsets,
            held: Held::Python(bytes),
        })
    }

    fn bytes(&self) -> &[u8] {
        match &self.held {
            Held::Mapped(m) => m.map().map_or(&[], |m| &m[..]),
            Held::Python(b) => b,
        }
    }

    /// The whole motion, its arrays narrowed to `f32` (the map's pages are
    /// dropped behind the decoder).
    pub fn decode(&self, path: &Path) -> motion_viewer::Result<MemgMotion> {
        match &self.held {
            Held::Mapped(m) => m.decode(),
            Held::Python(b) => memg::decode(b).map_err(|e| Error::decode(path, e)),
        }
    }

    /// A read-only `float64` numpy view (in the file's byte order, aligned
    /// or not) of `which` array of group `group` of `motion`, kept alive by
    /// `owner` (its `base`).
    pub fn view<'py>(
        &self,
        owner: &Bound<'py, Track>,
        motion: &MemgMotion,
        group: usize,
        which: Which,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = owner.py();
        let g = &motion.groups[group];
        let at = &self.offsets[group];
        let (v, r, n) = (g.vertex_count(), g.basis_len, motion.timesteps);
        // Dimensions and byte strides.
        let (start, dims, strides) = match which {
            Which::Mean => (at.mean, [v, 3], [24, 8]),
            Which::Basis => (at.basis, [3 * v, r], [8, 24 * v]),
            Which::Coeffs => (at.coeffs, [r, n], [8, 8 * r]),
        };
        let end = start + 8 * dims[0] * dims[1];
        let bytes = self.bytes();
        // The parser checked every array lies inside the file.
        assert!(end <= bytes.len(), "array inside the file");
        let descr = PyArrayDescr::new(
            py,
            match self.order {
                ByteOrder::Little => "<f8",
                ByteOrder::Big => ">f8",
            },
        )?;
        let mut dims = dims.map(|d| d as npy_intp);
        let mut strides = strides.map(|s| s as npy_intp);
        // SAFETY: the data lies inside `bytes` (checked above), which
        // `owner`'s frozen track holds unchanged for as long as it lives;
        // the array holds `owner` as its base and is made without the
        // WRITEABLE flag, so nothing writes through it. numpy sets the
        // ALIGNED flag from the pointer itself.
        unsafe {
            let array = PY_ARRAY_API.PyArray_NewFromDescr(
                py,
                npyffi::get_type_object(py, npyffi::NpyTypes::PyArray_Type),
                descr.into_dtype_ptr(),
                2,
                dims.as_mut_ptr(),
                strides.as_mut_ptr(),
                bytes.as_ptr().add(start) as *mut std::ffi::c_void,
                0,
                std::ptr::null_mut(),
            );
            let array = Bound::from_owned_ptr_or_err(py, array)?;
            let base = owner.clone().into_any().into_ptr();
            if PY_ARRAY_API.PyArray_SetBaseObject(py, array.as_ptr().cast(), base) < 0 {
                return Err(PyErr::fetch(py));
            }
            Ok(array)
        }
    }
}

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

/// Whether `path` is a regular file whose first bytes are a MEMG motion's.
fn is_memg(path: &Path) -> bool {
    let mut head = [0u8; 16];
    let read = std::fs::File::open(path).and_then(|mut f| {
        if !f.metadata()?.is_file() {
            return Ok(0);
        }
        f.read(&mut head)
    });
    matches!(read, Ok(n) if formats::probe(&head[..n]) == Some(Kind::MemgMotion))
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
        stored.view(slf, motion, at, which)
    }
}
