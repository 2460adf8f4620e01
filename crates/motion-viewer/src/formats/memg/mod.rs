//! MEMG motion files: per-group reduced bases driven by animated local frames
//! (CMU "Mesh Ensemble Motion Graphs"). See docs/formats.md §3.
//!
//! The decoder makes one pass over the bytes: every `f64` array is byte-swapped
//! (when the file is big-endian) and narrowed to `f32` in the same loop, straight
//! into its final `Vec`, on every core for large arrays. Every count is checked
//! against the bytes left before anything is allocated for it, so a corrupt
//! count cannot ask for gigabytes.
//!
//! On a large file most of a fresh decode's time is the kernel faulting in and
//! zeroing new output pages; large new arrays ask for huge pages (see
//! `fresh.rs`), and [`decode_into`] writes into an existing [`MemgMotion`],
//! reusing its arrays (a viewer reloading or streaming a file), which pays
//! no faults at all. [`load`] and [`decode_mmap`] read through a memory map and
//! [`MappedMemg`] converts the large arrays straight into a caller's buffer
//! (see `mapped.rs`).
//!
//! ```
//! use motion_viewer::formats::ByteOrder;
//! use motion_viewer::formats::memg::{self, MemgGroup, MemgMotion};
//!
//! // One vertex moved along y by one basis vector, over two timesteps.
//! let identity = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
//! let motion = MemgMotion {
//!     fps: 30,
//!     local_frames: 1,
//!     timesteps: 2,
//!     frames: vec![identity; 2],
//!     groups: vec![MemgGroup {
//!         name: "flag".into(),
//!         mapping: vec![1],          // .obj vertex 1
//!         mean: vec![0.0, 0.0, 0.0],
//!         parent: 0,
//!         basis_len: 1,
//!         basis: vec![0.0, 1.0, 0.0], // U: 3 × 1
//!         coeffs: vec![0.0, 0.5],     // Q: 1 × 2
//!     }],
//!     ..MemgMotion::default()
//! };
//! // Written big-endian (endian indicator 16777216 when read the other way).
//! let bytes = memg::encode(&motion, ByteOrder::Big);
//! let back = memg::decode(&bytes)?;
//! assert_eq!(back.byte_order, ByteOrder::Big);
//! assert_eq!(back.groups[0].coeffs, [0.0, 0.5]);
//! assert_eq!(back.duration_s(), 1.0 / 30.0);
//! # Ok::<(), motion_viewer::DecodeError>(())
//! ```

mod decode;
mod fresh;
#[cfg(test)]
mod index_tests;
#[cfg(not(target_arch = "wasm32"))]
mod mapped;
mod source;

pub use decode::ArrayOffsets;
#[cfg(not(target_arch = "wasm32"))]
pub use mapped::{MappedMemg, decode_mmap, decode_mmap_into, load, map_file, release};
pub use source::ArraySource;

use crate::error::DecodeError;
use crate::formats::bytes::ByteOrder;
use std::io::Write;

/// A decoded MEMG motion file. Large arrays are `f32`, laid out as the GPU
/// takes them; frame transforms stay `f64`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MemgMotion {
    /// Byte order of the file (the endian indicator read 1 or 16777216).
    pub byte_order: ByteOrder,
    /// Frames per second (30 or 120 in the published data).
    pub fps: i32,
    /// Number of animated local frames, k.
    pub local_frames: usize,
    /// Number of timesteps, n.
    pub timesteps: usize,
    /// Row-major 3×4 affine transforms, one per (timestep, local frame):
    /// index `t * local_frames + f`.
    pub frames: Vec<[f64; 12]>,
    /// The groups in file order.
    pub groups: Vec<MemgGroup>,
    /// Recoverable oddities found while decoding.
    pub warnings: Vec<String>,
}

/// One group's reduced motion.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MemgGroup {
    /// Name of the `.obj` group it animates.
    pub name: String,
    /// For each motion vertex, the 1-based `.obj` vertex index it moves (as stored).
    pub mapping: Vec<u32>,
    /// Mean pose p, xyz per motion vertex (3v values).
    pub mean: Vec<f32>,
    /// Local frame the group lives in; outside `0..local_frames` means world space.
    pub parent: i32,
    /// Basis size r: columns of U, rows of Q.
    pub basis_len: usize,
    /// U, 3v × r, column-major: `U[row, j] = basis[j * 3v + row]`, row = 3i + axis.
    pub basis: Vec<f32>,
    /// Q, r × n, column-major: `Q[j, t] = coeffs[t * r + j]`.
    pub coeffs: Vec<f32>,
}

impl MemgGroup {
    /// Number of motion vertices, v.
    pub fn vertex_count(&self) -> usize {
        self.mapping.len()
    }
}

impl MemgMotion {
    /// The 3×4 transform of local frame `frame` at timestep `t`, or `None` when
    /// `frame` is outside `0..local_frames` (world space) or `t` is past the end.
    pub fn frame(&self, t: usize, frame: i32) -> Option<&[f64; 12]> {
        let f = usize::try_from(frame)
            .ok()
            .filter(|&f| f < self.local_frames)?;
        self.frames
            .get(t.checked_mul(self.local_frames)?.checked_add(f)?)
    }

    /// Time of the last timestep in seconds, `(n - 1) / fps` (0 for n ≤ 1).
    pub fn duration_s(&self) -> f64 {
        self.timesteps.saturating_sub(1) as f64 / f64::from(self.fps.max(1))
    }
}

/// Decodes a MEMG motion file held in memory.
pub fn decode(bytes: &[u8]) -> Result<MemgMotion, DecodeError> {
    let mut motion = MemgMotion::default();
    decode_into(bytes, &mut motion)?;
    Ok(motion)
}

/// Decodes a MEMG motion file held in memory into `out`, reusing its arrays
/// (groups, names, mappings, mean poses, bases, coefficients, frames) where
/// their capacity allows, so decoding a file again, or another of similar
/// size, allocates little or nothing. The result equals [`decode`]'s, and so
/// do the errors and the checks made before anything is allocated.
///
/// On error the contents of `out` are unspecified (partly overwritten, still
/// a valid value): discard them or decode into it again.
pub fn decode_into(bytes: &[u8], out: &mut MemgMotion) -> Result<(), DecodeError> {
    decode::parse(bytes, out, decode::Arrays::Decode(&mut |_| {}))
}

/// Checks a MEMG motion file held in memory as [`decode`] does (every
/// count, shape and mapping, with the same errors) without converting its
/// mean poses and bases: returns the motion with each group's `mean` and
/// `basis` empty (everything else decoded) and where each group's arrays lie
/// in `bytes`, one [`ArrayOffsets`] per group, for a reader that uses the
/// stored `f64` values in place (the Python package's numpy views).
/// [`MappedMemg`] does the same for a file through a memory map.
pub fn index(bytes: &[u8]) -> Result<(MemgMotion, Vec<ArrayOffsets>), DecodeError> {
    let mut motion = MemgMotion::default();
    let mut offsets = Vec::new();
    decode::parse(bytes, &mut motion, decode::Arrays::Index(&mut offsets))?;
    Ok((motion, offsets))
}

/// Encodes a motion in the given byte order (`f32` arrays widen to `f64`).
///
/// Decoding the result gives back `motion` exactly, warnings aside.
pub fn encode(motion: &MemgMotion, order: ByteOrder) -> Vec<u8> {
    // Sized once: a motion of gigabytes is not grown by doubling (which
    // holds the old and the new buffer at once).
    let mut bytes = Vec::with_capacity(usize::try_from(encoded_len(motion)).unwrap_or(0));
    write(motion, order, &mut bytes).expect("writing to a Vec cannot fail");
    debug_assert_eq!(
        bytes.len() as u64,
        encoded_len(motion),
        "encoded_len is the layout's"
    );
    bytes
}

/// The length of what [`encode`] returns, from the motion's counts.
pub fn encoded_len(motion: &MemgMotion) -> u64 {
    let header = header_len(motion.frames.len() as u64);
    motion.groups.iter().fold(header, |total, g| {
        total
            + group_len(
                g.name.len() as u64,
                g.mapping.len() as u64,
                g.mean.len() as u64,
                g.basis.len() as u64,
                g.coeffs.len() as u64,
            )
    })
}

/// The bytes before the groups: the endian mark, the frame rate, the
/// frame and timestep counts, and `transforms` 3×4 `f64` matrices.
pub(crate) fn header_len(transforms: u64) -> u64 {
    16 + 96 * transforms
}

/// The bytes of one group: its name of `name` bytes, `mapping` indices,
/// `mean`, `basis` and `coeffs` `f64` numbers, with the counts, the parent
/// and the two shapes between them.
pub(crate) fn group_len(name: u64, mapping: u64, mean: u64, basis: u64, coeffs: u64) -> u64 {
    // Name, mapping, mean, parent, basis shape and basis, Q's shape and Q.
    4 + name + 4 + 4 * mapping + 8 * mean + 4 + 8 + 8 * basis + 8 + 8 * coeffs
}

/// Writes what [`encode`] returns to `out`, a block at a time, so a motion of
/// gigabytes goes to a file without its encoding ever being whole in memory.
pub fn write(motion: &MemgMotion, order: ByteOrder, out: &mut dyn Write) -> std::io::Result<()> {
    let mut w = BlockWriter {
        out,
        order,
        block: Vec::with_capacity(BLOCK_BYTES),
    };
    w.i32(1)?;
    w.i32(motion.fps)?;
    w.i32(motion.local_frames as i32)?;
    w.i32(motion.timesteps as i32)?;
    for m in &motion.frames {
        w.f64s(m.iter().copied())?;
    }
    for g in &motion.groups {
        w.i32(g.name.len() as i32)?;
        w.bytes(g.name.as_bytes())?;
        w.i32(g.mapping.len() as i32)?;
        for &m in &g.mapping {
            w.i32(m as i32)?;
        }
        w.f64s(g.mean.iter().map(|&x| x.into()))?;
        w.i32(g.parent)?;
        w.i32(3 * g.vertex_count() as i32)?;
        w.i32(g.basis_len as i32)?;
        w.f64s(g.basis.iter().map(|&x| x.into()))?;
        w.i32(g.basis_len as i32)?;
        w.i32(motion.timesteps as i32)?;
        w.f64s(g.coeffs.iter().map(|&x| x.into()))?;
    }
    w.flush()
}

/// Bytes gathered before each write to the output.
const BLOCK_BYTES: usize = 1 << 20;

/// Numbers in one byte order, gathered into blocks for a `Write`.
struct BlockWriter<'a> {
    out: &'a mut dyn Write,
    order: ByteOrder,
    block: Vec<u8>,
}

impl BlockWriter<'_> {
    fn bytes(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.block.extend_from_slice(b);
        if self.block.len() >= BLOCK_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn i32(&mut self, v: i32) -> std::io::Result<()> {
        match self.order {
            ByteOrder::Little => self.bytes(&v.to_le_bytes()),
            ByteOrder::Big => self.bytes(&v.to_be_bytes()),
        }
    }

    fn f64s(&mut self, values: impl Iterator<Item = f64>) -> std::io::Result<()> {
        for v in values {
            match self.order {
                ByteOrder::Little => self.block.extend_from_slice(&v.to_le_bytes()),
                ByteOrder::Big => self.block.extend_from_slice(&v.to_be_bytes()),
            }
            if self.block.len() >= BLOCK_BYTES {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.write_all(&self.block)?;
        self.block.clear();
        Ok(())
    }
}
