//! MEMG motion files held for Python without decoding them up front.
//!
//! A MEMG motion is mostly its groups' bases U, stored as `f64`: a
//! million-vertex motion is 800 MB of them. `open` reads the file into
//! memory once (never a memory map: a mapped file cut short on disk would
//! raise `SIGBUS` and end the interpreter, and a view of a map would show
//! whatever the file holds now, not what was opened), checks it as the
//! decoder does (every count, shape and mapping, with the decoder's errors:
//! `formats::memg::index`) and keeps the bytes; the mean poses, bases and
//! coefficients are numpy `float64` views of the stored doubles (in the
//! file's byte order, where the file has them). The `f32` arrays the CPU
//! deformer and the exporters take are narrowed from those bytes the first
//! time a call needs them (`Track::whole`, in `track_memg.rs`). Tracks
//! opened from bytes keep the Python `bytes` object and view it the same
//! way.

use motion_viewer::error::Error;
use motion_viewer::formats::bytes::ByteOrder;
use motion_viewer::formats::memg::{self, ArrayOffsets, MemgMotion};
use numpy::npyffi::{self, PY_ARRAY_API, npy_intp};
use numpy::{PyArrayDescr, PyArrayDescrMethods};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use std::path::Path;

/// Where a motion file's bytes are held.
enum Held {
    /// Read from disk when opened.
    Read(Vec<u8>),
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
    /// Reads and checks the motion at `path` (a regular file, read as it
    /// was when opened: [`read_unchanged`]); returns it with the motion
    /// decoded but for its mean poses and bases.
    pub fn read(path: &Path) -> motion_viewer::Result<(Stored, MemgMotion)> {
        let bytes = read_unchanged(path)?;
        let (skeleton, offsets) = memg::index(&bytes).map_err(|e| Error::decode(path, e))?;
        let stored = Stored {
            order: skeleton.byte_order,
            offsets,
            held: Held::Read(bytes),
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
            Held::Read(b) => b,
            Held::Python(b) => b,
        }
    }

    /// The whole motion, its arrays narrowed to `f32`.
    pub fn decode(&self, path: &Path) -> motion_viewer::Result<MemgMotion> {
        memg::decode(self.bytes()).map_err(|e| Error::decode(path, e))
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
        // SAFETY: the data lies inside `bytes` (checked above): memory
        // `owner`, a frozen track, holds unchanged for as long as it lives
        // (never a map of the file, which could change or vanish under it);
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

/// The bytes of the regular file `path`, as they were when it was opened
/// (`motion_viewer::formats::mapping::read_whole`: a pipe or device is
/// refused at once; a file that changed while it was read is an error
/// saying so rather than a mix of old and new bytes).
fn read_unchanged(path: &Path) -> motion_viewer::Result<Vec<u8>> {
    motion_viewer::formats::mapping::read_whole(path)
}
