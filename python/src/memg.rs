//! MEMG motion files held for Python without decoding them up front.
//!
//! A MEMG motion is mostly its groups' bases U, stored as `f64`: a
//! million-vertex motion is 800 MB of them. `open` maps the file, checks it
//! as the decoder does (every count, shape and mapping, with the decoder's
//! errors: `formats::memg::index`) and keeps it mapped. The `f32` arrays the
//! CPU deformer and the exporters take are narrowed from the map the first
//! time a call needs them (`Track::whole`, in `track/memg.rs`); the mean
//! poses, bases and coefficients are numpy `float64` views of the stored
//! doubles (in the file's byte order, where the file has them), of one copy
//! of the file made the first time a view is asked for: a view is memory
//! numpy reads whenever it likes, so it must never be the map itself.
//!
//! A file changed on disk after `open` (cut short, rewritten) never ends
//! the interpreter: the map is a `formats::mapping::Mapping`, whose reads
//! past a new end see zeros instead of raising `SIGBUS`, and every read
//! from it (the narrowing, the copy) is followed by its check, which says
//! the file changed since it was opened. So what a track returns is the
//! file as it was when opened (a view copied before the change stays as
//! it was), or a `FileError` saying it changed. Tracks opened from bytes keep
//! the Python `bytes` object and view it the same way.

use motion_viewer::error::Error;
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::mapping::Mapping;
use motion_viewer::formats::memg::{self, ArrayOffsets, MemgMotion};
use numpy::npyffi::{self, PY_ARRAY_API, npy_intp};
use numpy::{PyArrayDescr, PyArrayDescrMethods};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use std::path::Path;
use std::sync::OnceLock;

/// Where a motion file's bytes are held.
enum Held {
    /// Mapped from disk, guarded; with the copy the views show, made on
    /// the first view.
    Mapped(Mapping, OnceLock<Vec<u8>>),
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
    /// The motion the front door left mapped in its file
    /// (`OpenOptions::map_memg`), held for the views.
    pub fn mapped(file: memg::MappedMemg) -> motion_viewer::Result<Stored> {
        let path = file.path().to_path_buf();
        let (map, skeleton, offsets) = file.into_parts();
        let map = map.ok_or_else(|| Error::mismatch(&path, "an empty file"))?;
        Ok(Stored {
            order: skeleton.byte_order,
            offsets,
            held: Held::Mapped(map, OnceLock::new()),
        })
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

    /// The bytes the views show: the file as it was when opened (copied
    /// out of the map the first time, the copy checked), or the Python
    /// `bytes` object.
    fn bytes(&self) -> motion_viewer::Result<&[u8]> {
        match &self.held {
            Held::Python(b) => Ok(b),
            Held::Mapped(map, copy) => {
                if let Some(bytes) = copy.get() {
                    return Ok(bytes);
                }
                let made = map.copy_checked()?;
                // Two threads may both copy; the first one's copy is kept.
                Ok(copy.get_or_init(|| made))
            }
        }
    }

    /// The whole motion, its arrays narrowed to `f32` (from the map, its
    /// pages dropped behind the decoder, then checked unchanged).
    pub fn decode(&self, path: &Path) -> motion_viewer::Result<MemgMotion> {
        let decoded = match &self.held {
            Held::Python(b) => memg::decode(b),
            Held::Mapped(_, copy) if copy.get().is_some() => {
                memg::decode(copy.get().map_or(&[][..], |c| &c[..]))
            }
            Held::Mapped(map, _) => {
                let decoded = memg::decode_mmap(map);
                map.check()?;
                decoded
            }
        };
        decoded.map_err(|e| Error::decode(path, e))
    }

    /// A read-only `float64` numpy view (in the file's byte order, aligned
    /// or not) of `which` array of group `group` of `motion`, kept alive by
    /// `owner` (its `base`: the track holding `self`).
    pub fn view<'py>(
        &self,
        owner: &Bound<'py, PyAny>,
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
        let bytes = self.bytes().map_err(|e| crate::errors::to_py(py, e))?;
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
        // SAFETY: the data lies inside `bytes` (checked above): memory
        // `owner`, a frozen track, holds unchanged for as long as it lives
        // (a copy, never the map, which could change or vanish under it);
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
            let base = owner.clone().into_ptr();
            if PY_ARRAY_API.PyArray_SetBaseObject(py, array.as_ptr().cast(), base) < 0 {
                return Err(PyErr::fetch(py));
            }
            Ok(array)
        }
    }
}
