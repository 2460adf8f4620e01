//! The one MEMG parser. It either decodes every array ([`Arrays::Decode`]) or
//! decodes all but the two large per-vertex arrays of each group, the mean pose
//! and the basis U, and records where they lie ([`Arrays::Index`]), for a
//! consumer that converts them itself (the GPU upload, straight from a memory
//! map). Both modes make the same checks and return the same errors.

use super::{MemgGroup, MemgMotion};
use crate::error::DecodeError;
use crate::formats::bytes::{ByteOrder, Reader};
use std::mem::MaybeUninit;

/// The endian indicator as a little-endian reader sees a big-endian 1.
const BIG_ENDIAN_ONE: i32 = 16_777_216;

/// Where a group's arrays start in the file: byte offsets of the first `f64`
/// of the mean pose (3v values), of U (3v × r, column-major) and of Q
/// (r × n, column-major), each stored in the file's byte order. Not
/// necessarily multiples of 8: a group's name has any length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ArrayOffsets {
    /// Offset of the mean pose.
    pub mean: usize,
    /// Offset of the basis U.
    pub basis: usize,
    /// Offset of the coefficients Q.
    pub coeffs: usize,
}

/// What the parser does with each group's mean pose and basis.
pub(super) enum Arrays<'a> {
    /// Narrows them into the group's arrays, telling `consumed(end)` whenever
    /// the bytes before `end` will not be read again.
    Decode(&'a mut dyn FnMut(usize)),
    /// Leaves them in the bytes (the group's `mean` and `basis` are emptied)
    /// and records where each group's arrays start, one entry per group.
    Index(&'a mut Vec<ArrayOffsets>),
}

/// Parses `bytes` into `out`, reusing its arrays; see [`super::decode_into`].
pub(super) fn parse(
    bytes: &[u8],
    out: &mut MemgMotion,
    mut arrays: Arrays<'_>,
) -> Result<(), DecodeError> {
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
    // Names seen so far: a file of 50 000 groups is checked in linear time.
    let mut names = std::collections::HashSet::new();
    while r.remaining() > 0 {
        if used == groups.len() {
            groups.push(MemgGroup::default());
        }
        let g = &mut groups[used];
        parse_group(&mut r, used, n, g, &mut arrays)?;
        if g.parent < 0 || g.parent as usize >= k {
            warnings.push(format!(
                "group '{}' has parent frame {} outside 0..{k}: it is in world space",
                g.name, g.parent
            ));
        }
        if !names.insert(g.name.clone()) {
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

/// Parses group number `index` at the cursor into `g`, reusing its arrays;
/// `n` is the file's timestep count.
fn parse_group(
    r: &mut Reader<'_>,
    index: usize,
    n: usize,
    g: &mut MemgGroup,
    arrays: &mut Arrays<'_>,
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
    let mean_at = r.pos();
    large_f64s(r, 3 * v, &field("mean pose"), &mut g.mean, arrays)?;
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
    let basis_at = r.pos();
    large_f64s(r, basis_count, &field("U"), &mut g.basis, arrays)?;
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
    let coeffs_at = r.pos();
    read_f32s_into(r, coeff_count, &field("Q"), &mut g.coeffs, &mut |_| {})?;
    if let Arrays::Index(offsets) = arrays {
        offsets.push(ArrayOffsets {
            mean: mean_at,
            basis: basis_at,
            coeffs: coeffs_at,
        });
    }
    Ok(())
}

/// A mean pose or basis: narrowed into `out`, or skipped when indexing.
fn large_f64s(
    r: &mut Reader<'_>,
    count: usize,
    field: &str,
    out: &mut Vec<f32>,
    arrays: &mut Arrays<'_>,
) -> Result<(), DecodeError> {
    match arrays {
        Arrays::Decode(consumed) => read_f32s_into(r, count, field, out, &mut **consumed),
        Arrays::Index(_) => {
            out.clear();
            r.bytes(
                count.saturating_mul(8),
                &format!("{field} ({count} doubles)"),
            )?;
            Ok(())
        }
    }
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

/// Values converted between two `consumed` calls: 32 MiB of input, so a
/// caller dropping the pages of a memory map behind the decoder holds at most
/// that much of the file at once.
const BATCH: usize = 1 << 22;

/// Narrows `bytes` (`out.len()` doubles in `order`) into `out`, splitting
/// large arrays across threads.
pub(super) fn narrow(bytes: &[u8], out: &mut [MaybeUninit<f32>], order: ByteOrder) {
    if out.len() >= 4 * BLOCK {
        use rayon::prelude::*;
        out.par_chunks_mut(BLOCK)
            .zip(bytes.par_chunks(8 * BLOCK))
            .for_each(|(o, b)| convert(b, o, order));
    } else {
        convert(bytes, out, order);
    }
}

/// Reads `count` `f64` values and narrows them to `f32` in one pass into
/// `out`, replacing its contents and reusing its allocation when it is large
/// enough; `consumed(end)` follows each batch.
fn read_f32s_into(
    r: &mut Reader<'_>,
    count: usize,
    field: &str,
    out: &mut Vec<f32>,
    consumed: &mut dyn FnMut(usize),
) -> Result<(), DecodeError> {
    let start = r.pos();
    let bytes = r.bytes(
        count.saturating_mul(8),
        &format!("{field} ({count} doubles)"),
    )?;
    out.clear();
    if out.capacity() < count {
        // Free the old buffer first rather than `reserve`, which would copy it.
        *out = Vec::with_capacity(count);
        super::fresh::advise_huge_pages(&mut out.spare_capacity_mut()[..count]);
    }
    // The conversion writes the spare capacity directly: no zeroing pass first.
    let spare = &mut out.spare_capacity_mut()[..count];
    let order = r.order();
    for (i, (o, b)) in spare
        .chunks_mut(BATCH)
        .zip(bytes.chunks(8 * BATCH))
        .enumerate()
    {
        narrow(b, o, order);
        consumed(start + 8 * (i * BATCH + o.len()));
    }
    // SAFETY: `bytes` holds exactly `8 * count` bytes, so `narrow` wrote all of
    // the first `count` spare elements (every chunk pairs with its bytes).
    unsafe { out.set_len(count) };
    Ok(())
}
