//! MEMG files read through a memory map (native builds only).
//!
//! A motion of ten million vertices is a file of gigabytes. Read through a
//! map, every page the decoder touches counts in the process's resident
//! memory until it is unmapped; so the decoder here drops the pages of the map
//! behind it (`MADV_DONTNEED`; they stay in the page cache), and at most one
//! batch of the file is resident beside the decoded arrays.
//!
//! [`MappedMemg`] goes further for the GPU upload: it decodes everything but
//! the mean poses and bases, and converts those straight from the map into
//! the caller's buffer, range by range, so the `f32` arrays never exist whole
//! on the CPU.
//!
//! Every map is a [`Mapping`]: a file cut short or rewritten while it is
//! read does not end the process, and each reader here checks the file is
//! unchanged before returning what it read ([`Mapping::check`]).

use super::MemgMotion;
use super::decode::{ArrayOffsets, Arrays, narrow, parse};
use super::source::ArraySource;
use crate::error::{DecodeError, Error};
use crate::formats::mapping::Mapping;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A MEMG file mapped into memory and indexed: everything but the groups'
/// mean poses and bases decoded, those read from the map on demand (see the
/// module docs).
#[derive(Debug)]
pub struct MappedMemg {
    path: PathBuf,
    map: Option<Mapping>,
    skeleton: MemgMotion,
    offsets: Vec<ArrayOffsets>,
}

impl MappedMemg {
    /// Maps and indexes the file at `path`. The errors are [`super::decode`]'s,
    /// naming the file.
    pub fn open(path: &Path) -> crate::Result<MappedMemg> {
        let map = map_file(path)?;
        let bytes: &[u8] = map.as_deref().unwrap_or_default();
        let mut skeleton = MemgMotion::default();
        let mut offsets = Vec::new();
        let parsed = parse(bytes, &mut skeleton, Arrays::Index(&mut offsets));
        if let Some(map) = &map {
            // A file changed while parsed: that, not what its zeros parse as.
            map.check()?;
            release(map, 0..map.len());
        }
        parsed.map_err(|e| Error::decode(path, e))?;
        Ok(MappedMemg {
            path: path.to_path_buf(),
            map,
            skeleton,
            offsets,
        })
    }

    /// The file this came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the file in bytes.
    pub fn file_bytes(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.len())
    }

    /// Where each group's mean pose, basis and coefficients lie in the map,
    /// one entry per group (as [`super::index`] returns them).
    pub fn offsets(&self) -> &[ArrayOffsets] {
        &self.offsets
    }

    /// The file's memory map (`None` for an empty file).
    pub fn map(&self) -> Option<&Mapping> {
        self.map.as_ref()
    }

    /// Fails when the file changed on disk since it was mapped (see
    /// [`Mapping::check`]): after reading arrays through [`ArraySource`].
    pub fn check(&self) -> crate::Result<()> {
        self.map.as_ref().map_or(Ok(()), Mapping::check)
    }

    /// Decodes the whole motion, dropping the map's pages behind the decoder.
    pub fn decode(&self) -> crate::Result<MemgMotion> {
        let decoded = match &self.map {
            Some(map) => decode_mmap(map),
            None => super::decode(&[]),
        };
        self.check()?;
        decoded.map_err(|e| Error::decode(&self.path, e))
    }

    /// Converts the `count` doubles at byte `at` into `out`, then drops their pages.
    fn read(&self, at: usize, out: &mut [f32]) {
        let map = self.map.as_ref().expect("a file with arrays is mapped");
        let end = at + 8 * out.len();
        // SAFETY: `MaybeUninit<f32>` has the layout of `f32`, and `narrow`
        // only writes; every element of `out` is written (one per 8 bytes).
        let uninit = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len()) };
        narrow(&map[at..end], uninit, self.skeleton.byte_order);
        release(map, at..end);
    }
}

impl ArraySource for MappedMemg {
    fn motion(&self) -> &MemgMotion {
        &self.skeleton
    }

    fn read_mean(&self, group: usize, rows: Range<usize>, out: &mut [f32]) {
        assert_eq!(rows.len(), out.len(), "one value per row");
        let g = &self.skeleton.groups[group];
        assert!(
            rows.end <= 3 * g.vertex_count(),
            "rows inside the mean pose"
        );
        self.read(self.offsets[group].mean + 8 * rows.start, out);
    }

    fn read_basis(&self, group: usize, column: usize, rows: Range<usize>, out: &mut [f32]) {
        assert_eq!(rows.len(), out.len(), "one value per row");
        let g = &self.skeleton.groups[group];
        let height = 3 * g.vertex_count();
        assert!(
            column < g.basis_len && rows.end <= height,
            "rows inside the basis"
        );
        self.read(
            self.offsets[group].basis + 8 * (column * height + rows.start),
            out,
        );
    }
}

/// Maps the regular file `path` read-only, guarded ([`Mapping`]); `None`
/// for an empty file (mapping one fails on some systems, and there is
/// nothing to map).
pub fn map_file(path: &Path) -> crate::Result<Option<Mapping>> {
    Mapping::open(path)
}

/// Decodes a motion from a memory map, dropping the map's pages behind the
/// decoder so that at most one batch of the file is resident at a time.
/// Call [`Mapping::check`] after it, before trusting the motion.
pub fn decode_mmap(map: &Mapping) -> Result<MemgMotion, DecodeError> {
    let mut motion = MemgMotion::default();
    decode_mmap_into(map, &mut motion)?;
    Ok(motion)
}

/// [`decode_mmap`] into `out`, reusing its arrays as [`super::decode_into`] does.
pub fn decode_mmap_into(map: &Mapping, out: &mut MemgMotion) -> Result<(), DecodeError> {
    let mut released = 0;
    let mut consumed = |end: usize| {
        release(map, released..end);
        released = end;
    };
    parse(map, out, Arrays::Decode(&mut consumed))
}

/// Loads a MEMG motion file through a memory map ([`decode_mmap`]):
/// published motions run to hundreds of megabytes and are read exactly once.
pub fn load(path: &Path) -> crate::Result<MemgMotion> {
    match map_file(path)? {
        Some(map) => {
            let decoded = decode_mmap(&map);
            map.check()?;
            decoded
        }
        None => super::decode(&[]),
    }
    .map_err(|e| Error::decode(path, e))
}

/// Drops the whole pages of `range` from this process's view of `map`; the
/// next read faults them back in from the page cache (or the file).
pub fn release(map: &Mapping, range: Range<usize>) {
    map.release(range);
}
