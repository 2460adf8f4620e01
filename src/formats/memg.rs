//! MEMG motion files: per-group reduced bases driven by animated local frames
//! (CMU "Mesh Ensemble Motion Graphs"). See NOTES.md §3.
//!
//! The decoder makes one pass over the bytes: every `f64` array is byte-swapped
//! (when the file is big-endian) and narrowed to `f32` in the same loop, straight
//! into its final `Vec`. Every count is checked against the bytes left before
//! anything is allocated for it, so a corrupt count cannot ask for gigabytes.
//!
//! [`decode_into`] writes into an existing [`MemgMotion`] and reuses its arrays
//! (a viewer reloading or streaming a file): on a large file most of a fresh
//! decode's time is the kernel faulting in and zeroing new output pages, which
//! reused arrays do not pay.

use crate::error::DecodeError;
use crate::formats::bytes::{ByteOrder, Reader, Writer};
use std::mem::MaybeUninit;

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

/// The endian indicator as a little-endian reader sees a big-endian 1.
const BIG_ENDIAN_ONE: i32 = 16_777_216;

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
    let mut r = Reader::new(bytes);
    let byte_order = match r.i32("endian indicator")? {
        1 => ByteOrder::Little,
        BIG_ENDIAN_ONE => ByteOrder::Big,
        other => {
            return Err(DecodeError::new(
                "endian indicator",
                0,
                "1 (little-endian) or 16777216 (big-endian)",
                other.to_string(),
            ));
        }
    };
    r.set_order(byte_order);
    let at = r.pos();
    let fps = r.i32("frame rate")?;
    if fps <= 0 {
        return Err(DecodeError::new(
            "frame rate",
            at as u64,
            "a positive frame rate",
            fps.to_string(),
        ));
    }
    let warnings = &mut out.warnings;
    warnings.clear();
    if fps != 30 && fps != 120 {
        warnings.push(format!(
            "frame rate {fps} fps; the published data is 30 or 120 fps"
        ));
    }

    let at_k = r.pos();
    let k = r.i32("local frame count")?;
    let k = r.check_count("local frame count", at_k, k.into(), 0)?;
    let at_n = r.pos();
    let n = r.i32("timestep count")?;
    let n = r.check_count("timestep count", at_n, n.into(), 0)?;
    // k and n are each below 2^31, so their product fits an i64.
    let cells = r.check_count(
        "local frames × timesteps",
        at_k,
        (k as i64) * (n as i64),
        12 * 8,
    )?;
    let frame_bytes = r.bytes(cells * 96, "frame transforms")?;
    out.frames.clear();
    out.frames.extend(frame_bytes.chunks_exact(96).map(|m| {
        let mut a = [0.0; 12];
        for (x, c) in a.iter_mut().zip(m.chunks_exact(8)) {
            *x = f64_at(c, byte_order);
        }
        a
    }));
    if n == 0 {
        warnings.push("the motion has no timesteps".to_string());
    }

    let groups = &mut out.groups;
    let mut used = 0;
    while r.remaining() > 0 {
        if used == groups.len() {
            groups.push(MemgGroup::default());
        }
        let (done, rest) = groups.split_at_mut(used);
        let g = &mut rest[0];
        decode_group_into(&mut r, used, n, g)?;
        if g.parent < 0 || g.parent as usize >= k {
            warnings.push(format!(
                "group '{}' has parent frame {} outside 0..{k}: it is in world space",
                g.name, g.parent
            ));
        }
        if done.iter().any(|o| o.name == g.name) {
            warnings.push(format!(
                "group name '{}' appears more than once; each copy binds to the same .obj group",
                g.name
            ));
        }
        used += 1;
    }
    groups.truncate(used);
    out.byte_order = byte_order;
    out.fps = fps;
    out.local_frames = k;
    out.timesteps = n;
    Ok(())
}

/// Decodes group number `index` at the cursor into `g`, reusing its arrays;
/// `n` is the file's timestep count.
fn decode_group_into(
    r: &mut Reader<'_>,
    index: usize,
    n: usize,
    g: &mut MemgGroup,
) -> Result<(), DecodeError> {
    let at = r.pos();
    let label = format!("group {index}");
    let len = r.i32(&format!("{label} name length"))?;
    let len = r.check_count(&format!("{label} name length"), at, len.into(), 1)?;
    let name_at = r.pos();
    let name_bytes = r.bytes(len, &format!("{label} name"))?;
    let name = std::str::from_utf8(name_bytes).map_err(|e| {
        DecodeError::new(
            format!("{label} name"),
            (name_at + e.valid_up_to()) as u64,
            "UTF-8 text",
            format!("byte 0x{:02x}", name_bytes[e.valid_up_to()]),
        )
    })?;
    g.name.clear();
    g.name.push_str(name);
    let label = format!("group '{name}'");
    let field = |f: &str| format!("{label} {f}");

    let at_v = r.pos();
    let v = r.i32(&field("vertex count"))?;
    // Each vertex costs at least its mapping entry and its mean position.
    let v = r.check_count(&field("vertex count"), at_v, v.into(), 4 + 24)?;
    let map_at = r.pos();
    let map_bytes = r.bytes(v * 4, &field("vertex mapping"))?;
    let mapping = &mut g.mapping;
    mapping.clear();
    mapping.reserve_exact(v);
    for (i, c) in map_bytes.chunks_exact(4).enumerate() {
        let c: [u8; 4] = c.try_into().expect("chunks of 4");
        let m = match r.order() {
            ByteOrder::Little => i32::from_le_bytes(c),
            ByteOrder::Big => i32::from_be_bytes(c),
        };
        if m < 1 {
            return Err(DecodeError::new(
                field("vertex mapping"),
                (map_at + 4 * i) as u64,
                "a 1-based .obj vertex index (1 or more)",
                m.to_string(),
            ));
        }
        mapping.push(m as u32);
    }
    read_f32s_into(r, 3 * v, &field("mean pose"), &mut g.mean)?;
    g.parent = r.i32(&field("parent frame"))?;

    let (u_rows, u_cols, u_at) = read_shape(r, &label, "U")?;
    if u_rows != 3 * v as i64 || u_cols < 0 {
        return Err(DecodeError::new(
            field("U shape"),
            u_at as u64,
            format!("3v × r = {} × r (r ≥ 0) for {v} vertices", 3 * v),
            format!("{u_rows} × {u_cols}"),
        ));
    }
    let basis_count = r.check_count(&field("U size"), u_at, u_rows * u_cols, 8)?;
    read_f32s_into(r, basis_count, &field("U"), &mut g.basis)?;
    g.basis_len = u_cols as usize;

    let (q_rows, q_cols, q_at) = read_shape(r, &label, "Q")?;
    if q_rows != u_cols || q_cols != n as i64 {
        return Err(DecodeError::new(
            field("Q shape"),
            q_at as u64,
            format!("r × n = {u_cols} × {n} (U is {u_rows} × {u_cols}, {n} timesteps)"),
            format!("{q_rows} × {q_cols}"),
        ));
    }
    let coeff_count = r.check_count(&field("Q size"), q_at, q_rows * q_cols, 8)?;
    read_f32s_into(r, coeff_count, &field("Q"), &mut g.coeffs)?;
    Ok(())
}

/// Reads a matrix's int32 row and column counts; returns them with their offset.
fn read_shape(
    r: &mut Reader<'_>,
    label: &str,
    matrix: &str,
) -> Result<(i64, i64, usize), DecodeError> {
    let at = r.pos();
    let rows = r.i32(&format!("{label} {matrix} row count"))?;
    let cols = r.i32(&format!("{label} {matrix} column count"))?;
    Ok((rows.into(), cols.into(), at))
}

/// One `f64` from 8 bytes in `order`.
#[inline(always)]
fn f64_at(c: &[u8], order: ByteOrder) -> f64 {
    let b: [u8; 8] = c.try_into().expect("8 bytes");
    match order {
        ByteOrder::Little => f64::from_le_bytes(b),
        ByteOrder::Big => f64::from_be_bytes(b),
    }
}

/// Narrows the `f64` values in `bytes` into `out` (one per 8 bytes).
fn convert(bytes: &[u8], out: &mut [MaybeUninit<f32>], order: ByteOrder) {
    // The byte order is matched once, outside the loop, so each arm is a plain
    // load-swap-convert loop the compiler can vectorize.
    let pairs = out.iter_mut().zip(bytes.chunks_exact(8));
    match order {
        ByteOrder::Little => {
            for (o, c) in pairs {
                o.write(f64::from_le_bytes(c.try_into().expect("8 bytes")) as f32);
            }
        }
        ByteOrder::Big => {
            for (o, c) in pairs {
                o.write(f64::from_be_bytes(c.try_into().expect("8 bytes")) as f32);
            }
        }
    }
}

/// Values per parallel task when narrowing a large array.
const BLOCK: usize = 1 << 16;

/// Reads `count` `f64` values and narrows them to `f32` in one pass into
/// `out`, replacing its contents and reusing its allocation when it is large
/// enough.
fn read_f32s_into(
    r: &mut Reader<'_>,
    count: usize,
    field: &str,
    out: &mut Vec<f32>,
) -> Result<(), DecodeError> {
    let bytes = r.bytes(
        count.saturating_mul(8),
        &format!("{field} ({count} doubles)"),
    )?;
    out.clear();
    if out.capacity() < count {
        // Free the old buffer first rather than `reserve`, which would copy it.
        *out = Vec::with_capacity(count);
    }
    // The conversion writes the spare capacity directly: no zeroing pass first.
    let spare = &mut out.spare_capacity_mut()[..count];
    let order = r.order();
    // Large arrays are split across threads: on fresh output the cost is as
    // much faulting in the new pages as converting, and both scale with cores.
    if count >= 4 * BLOCK {
        use rayon::prelude::*;
        spare
            .par_chunks_mut(BLOCK)
            .zip(bytes.par_chunks(8 * BLOCK))
            .for_each(|(o, b)| convert(b, o, order));
    } else {
        convert(bytes, spare, order);
    }
    // SAFETY: `bytes` holds exactly `8 * count` bytes, so `convert` wrote all of
    // the first `count` spare elements (every chunk pairs with its bytes).
    unsafe { out.set_len(count) };
    Ok(())
}

/// Encodes a motion in the given byte order (`f32` arrays widen to `f64`).
///
/// Decoding the result gives back `motion` exactly, warnings aside.
pub fn encode(motion: &MemgMotion, order: ByteOrder) -> Vec<u8> {
    let mut w = Writer::new(order);
    w.i32(1);
    w.i32(motion.fps);
    w.i32(motion.local_frames as i32);
    w.i32(motion.timesteps as i32);
    for m in &motion.frames {
        for &x in m {
            w.f64(x);
        }
    }
    for g in &motion.groups {
        w.i32(g.name.len() as i32);
        w.bytes(g.name.as_bytes());
        w.i32(g.mapping.len() as i32);
        for &m in &g.mapping {
            w.i32(m as i32);
        }
        for &x in &g.mean {
            w.f64(x.into());
        }
        w.i32(g.parent);
        w.i32(3 * g.vertex_count() as i32);
        w.i32(g.basis_len as i32);
        for &x in &g.basis {
            w.f64(x.into());
        }
        w.i32(g.basis_len as i32);
        w.i32(motion.timesteps as i32);
        for &x in &g.coeffs {
            w.f64(x.into());
        }
    }
    w.into_bytes()
}

/// Loads a MEMG motion file, mapping it into memory rather than reading it:
/// published motions run to hundreds of megabytes and are read exactly once.
#[cfg(not(target_arch = "wasm32"))]
pub fn load(path: &std::path::Path) -> crate::Result<MemgMotion> {
    use crate::error::Error;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path.display(), e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::io(path.display(), e))?
        .len();
    if len == 0 {
        // Mapping an empty file fails on some systems; there is nothing to map.
        return decode(&[]).map_err(|e| Error::decode(path.display(), e));
    }
    // SAFETY: the map is read-only and lives only for this call. Another process
    // truncating the file meanwhile could fault the read; that is the accepted
    // cost of memory-mapped input, as with any tool reading data files this way.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path.display(), e))?;
    decode(&map).map_err(|e| Error::decode(path.display(), e))
}
