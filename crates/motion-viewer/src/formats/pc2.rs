//! Point caches (`.pc2`, Blender's and 3ds Max's): the animation of a
//! mesh's vertices, sample by sample, as `memg fit` reads it and `export
//! --format pc2` writes it.
//!
//! A `.pc2` is, little-endian: `POINTCACHE2\0`, version 1 (i32), vertex
//! count (i32), start frame (f32), sampling (f32: frames between samples),
//! sample count (i32), then x, y, z (f32) per vertex per sample. It has no
//! clock: the frame rate is the caller's. It does not say which mesh it
//! animates: [`decode`] takes that mesh's vertex count and checks it.

use super::bytes::Reader;
use crate::error::DecodeError;
use std::borrow::Cow;

/// The signature a `.pc2` starts with.
pub(crate) const MAGIC: &[u8; 12] = b"POINTCACHE2\0";

/// The header's size in bytes.
const HEADER: usize = 32;

/// A point cache's header, and its positions (borrowed from the bytes
/// where they can be, on a little-endian machine).
#[derive(Debug, Clone, PartialEq)]
pub struct Pc2<'a> {
    /// Vertices per sample.
    pub vertices: usize,
    /// Samples.
    pub frames: usize,
    /// The frame of the first sample.
    pub start: f32,
    /// Frames between samples.
    pub sampling: f32,
    /// `frames × vertices × 3` values.
    pub positions: Cow<'a, [f32]>,
}

/// Decodes a `.pc2` of a scene of `vertices` vertices; the error names the
/// field, its offset, what the scene expects and what the file holds. The
/// positions are not checked finite here (a fit checks them, naming the
/// sample, vertex and axis).
pub fn decode(bytes: &[u8], vertices: usize) -> Result<Pc2<'_>, DecodeError> {
    let (header, _) = header(bytes, bytes.len() as u64, vertices)?;
    let data = &bytes[HEADER..];
    let positions: Cow<'_, [f32]> = match bytemuck::try_cast_slice::<u8, f32>(data) {
        Ok(floats) if cfg!(target_endian = "little") => Cow::Borrowed(floats),
        _ => Cow::Owned(
            data.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        ),
    };
    debug_assert_eq!(positions.len(), header.frames * vertices * 3);
    Ok(Pc2 {
        positions: if positions.is_empty() {
            Cow::Borrowed(&[])
        } else {
            positions
        },
        ..header
    })
}

/// The header of a `.pc2` from the file's first bytes, `head` (32 or all
/// there are), checked against the scene's `vertices` and the file's length
/// `file_len`, with its position count: sized without reading the rest.
pub(crate) fn header(
    head: &[u8],
    file_len: u64,
    vertices: usize,
) -> Result<(Pc2<'static>, usize), DecodeError> {
    let mut r = Reader::new(head);
    let magic: [u8; 12] = r.array("signature")?;
    if &magic != MAGIC {
        return Err(DecodeError::new(
            "signature",
            0,
            "POINTCACHE2\\0 (a .pc2 point cache)",
            crate::text::escape(&String::from_utf8_lossy(&magic)).into_owned(),
        ));
    }
    let version = r.i32("version")?;
    if version != 1 {
        return Err(DecodeError::new("version", 12, "1", version.to_string()));
    }
    let count = r.i32("vertex count")?;
    if i64::from(count) != vertices as i64 {
        return Err(DecodeError::new(
            "vertex count",
            16,
            format!("{vertices} (the scene .obj's vertices)"),
            count.to_string(),
        ));
    }
    let start = r.f32("start frame")?;
    if !start.is_finite() {
        return Err(DecodeError::new(
            "start frame",
            20,
            "a finite number",
            start.to_string(),
        ));
    }
    let sampling = r.f32("sampling")?;
    if !(sampling.is_finite() && sampling > 0.0) {
        return Err(DecodeError::new(
            "sampling",
            24,
            "a positive number of frames between samples",
            sampling.to_string(),
        ));
    }
    let frames = r.i32("sample count")?;
    let data = usize::try_from(file_len - HEADER as u64).unwrap_or(usize::MAX);
    let frame_bytes = 12 * vertices;
    if frame_bytes == 0 {
        return Err(DecodeError::new("vertex count", 16, "1 or more", "0"));
    }
    if !data.is_multiple_of(frame_bytes) {
        return Err(DecodeError::new(
            "positions",
            HEADER as u64,
            format!("whole samples of {vertices} vertices ({frame_bytes} bytes each)"),
            format!(
                "{data} bytes: {} samples and {} bytes (a file cut short?)",
                data / frame_bytes,
                data % frame_bytes
            ),
        ));
    }
    let held = data / frame_bytes;
    if i64::from(frames) != held as i64 {
        return Err(DecodeError::new(
            "sample count",
            28,
            format!(
                "{held} (the {data} bytes after the header hold {held} samples of {vertices} vertices)"
            ),
            frames.to_string(),
        ));
    }
    if held == 0 {
        return Err(DecodeError::new("sample count", 28, "1 or more", "0"));
    }
    Ok((
        Pc2 {
            vertices,
            frames: held,
            start,
            sampling,
            positions: Cow::Borrowed(&[]),
        },
        held * vertices * 3,
    ))
}

/// Whether `bytes` start as a `.pc2` does.
#[cfg_attr(not(feature = "fit"), allow(dead_code))]
pub(crate) fn is_pc2(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pc2(vertices: i32, frames: i32, values: usize) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        for x in [1, vertices] {
            b.extend(x.to_le_bytes());
        }
        b.extend(1f32.to_le_bytes());
        b.extend(1f32.to_le_bytes());
        b.extend(frames.to_le_bytes());
        for k in 0..values {
            b.extend((k as f32).to_le_bytes());
        }
        b
    }

    #[test]
    fn a_cache_reads_as_its_header_says() {
        let bytes = pc2(2, 3, 18);
        let cache = decode(&bytes, 2).unwrap();
        assert_eq!(
            (cache.vertices, cache.frames, cache.start, cache.sampling),
            (2, 3, 1.0, 1.0)
        );
        assert_eq!(cache.positions[17], 17.0);
    }

    #[test]
    fn a_cache_unlike_its_scene_or_itself_is_refused_naming_the_field() {
        let e = decode(&pc2(2, 3, 18), 5).unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("vertex count", 16));
        assert_eq!(
            (e.expected.as_str(), e.found.as_str()),
            ("5 (the scene .obj's vertices)", "2")
        );
        // A frame count that lies: 4 claimed, 3 held.
        let e = decode(&pc2(2, 4, 18), 2).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.offset, e.found.as_str()),
            ("sample count", 28, "4")
        );
        assert!(e.expected.starts_with("3 (the 72 bytes"), "{}", e.expected);
        // Cut short inside a sample.
        let e = decode(&pc2(2, 3, 17), 2).unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("positions", 32));
        assert!(e.found.contains("2 samples and 20 bytes"), "{}", e.found);
        // Not a cache at all; a header cut short.
        let e = decode(b"v 0 0 0\nv 1 1 1\n", 2).unwrap_err();
        assert_eq!(e.field, "signature");
        let e = decode(&pc2(2, 3, 18)[..20], 2).unwrap_err();
        assert_eq!(e.field, "start frame");
    }
}
