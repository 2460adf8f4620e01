//! Bytes ↔ typed data for every supported format. No GPU, no time.
//!
//! [`probe`] tells a file's kind from its content (magic bytes, endian
//! indicator, text), never from its extension.
//!
//! ```
//! use motion_viewer::formats::{Kind, probe};
//!
//! assert_eq!(probe(b"OMTN\0\0\0\0"), Some(Kind::Mtn));
//! assert_eq!(probe(b"ODAR\0\0\x03\0"), Some(Kind::Oda));
//! assert_eq!(probe(b"v 0 0 0\nf 1 1 1\n"), Some(Kind::Obj));
//! assert_eq!(probe(&[0xde, 0xad, 0xbe, 0xef]), None);
//! ```

pub mod aibo;
pub(crate) mod bytes;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod file;
pub mod input_animation;
#[cfg(not(target_arch = "wasm32"))]
pub mod mapping;
pub mod memg;
pub mod mtl;
pub mod mtn;
pub mod obj;
pub mod pc2;

pub use bytes::ByteOrder;

/// The kinds of file the viewer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Kind {
    /// Sony AIBO motion, magic `OMTN`.
    Mtn,
    /// Sony OPEN-R archive of motions (and sounds), magic `ODAR`.
    Oda,
    /// MRTK input animation, int64 magic `0x6a8faf6e0f9e42c6`.
    InputAnimation,
    /// MEMG motion: int32 1 (either byte order), then a frame rate.
    MemgMotion,
    /// Wavefront `.obj` text.
    Obj,
    /// Wavefront material library (`.mtl`) text: read through an `.obj`'s
    /// `mtllib`, never a track of its own.
    Mtl,
}

/// The MRTK input-animation magic number, stored little-endian.
pub const INPUT_ANIMATION_MAGIC: i64 = 0x6a8f_af6e_0f9e_42c6;

/// Tells the kind of `bytes` from its first bytes, or `None` if unknown.
pub fn probe(bytes: &[u8]) -> Option<Kind> {
    if bytes.starts_with(b"OMTN") {
        return Some(Kind::Mtn);
    }
    if bytes.starts_with(b"ODAR") {
        return Some(Kind::Oda);
    }
    if bytes.len() >= 8 && bytes[..8] == INPUT_ANIMATION_MAGIC.to_le_bytes() {
        return Some(Kind::InputAnimation);
    }
    if bytes.len() >= 8 {
        let le = |i: usize| i32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        let be = |i: usize| i32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
        // A frame rate beyond 10 kHz is not a motion capture; it keeps random
        // binaries that happen to start with 1 from passing as MEMG.
        let plausible = |fps: i32| (1..=10_000).contains(&fps);
        if (le(0) == 1 && plausible(le(4))) || (be(0) == 1 && plausible(be(4))) {
            return Some(Kind::MemgMotion);
        }
    }
    match first_statement(bytes) {
        Some("newmtl") => Some(Kind::Mtl),
        Some(_) if looks_like_obj(bytes) => Some(Kind::Obj),
        _ => None,
    }
}

/// The first word of the first line that is neither blank nor a comment,
/// if the file starts as text.
fn first_statement(bytes: &[u8]) -> Option<&str> {
    let text = text_head(bytes)?;
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .and_then(|l| l.split_whitespace().next())
}

/// The first 4 KiB of `bytes` as text, if they are UTF-8 (the cut may split
/// a character: judge what decodes).
fn text_head(bytes: &[u8]) -> Option<&str> {
    let head = &bytes[..bytes.len().min(4096)];
    match std::str::from_utf8(head) {
        Ok(t) => Some(t),
        Err(e) if e.valid_up_to() > 0 && e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).ok()
        }
        Err(_) => None,
    }
}

/// An `.obj` is text whose first statements are ones the format knows.
fn looks_like_obj(bytes: &[u8]) -> bool {
    let Some(text) = text_head(bytes) else {
        return false;
    };
    const KEYWORDS: [&str; 12] = [
        "v", "vt", "vn", "f", "g", "o", "s", "mtllib", "usemtl", "l", "p", "vp",
    ];
    let mut statements = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let word = line.split_whitespace().next().unwrap_or("");
        if !KEYWORDS.contains(&word) {
            return false;
        }
        statements += 1;
        if statements >= 3 {
            break;
        }
    }
    statements > 0
}

/// Reads the start of a regular file and tells its kind, or fails naming
/// the file (a pipe, device or folder at once: `file::open_regular`).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn probe_file(path: &std::path::Path) -> crate::Result<Kind> {
    use crate::error::Error;
    use std::io::Read;
    let mut head = Vec::with_capacity(4096);
    let (file, _) = file::open_regular(path)?;
    file.take(4096)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(path, e))?;
    probe(&head).ok_or_else(|| Error::UnknownFormat {
        path: path.to_path_buf(),
        head: head
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_by_content() {
        assert_eq!(probe(b"OMTN\0\0\0\0"), Some(Kind::Mtn));
        assert_eq!(probe(b"ODAR\0\0\x03\0"), Some(Kind::Oda));
        let mut ia = INPUT_ANIMATION_MAGIC.to_le_bytes().to_vec();
        ia.extend_from_slice(&1i32.to_le_bytes());
        assert_eq!(probe(&ia), Some(Kind::InputAnimation));
        let mut le = 1i32.to_le_bytes().to_vec();
        le.extend_from_slice(&30i32.to_le_bytes());
        assert_eq!(probe(&le), Some(Kind::MemgMotion));
        let mut be = 1i32.to_be_bytes().to_vec();
        be.extend_from_slice(&120i32.to_be_bytes());
        assert_eq!(probe(&be), Some(Kind::MemgMotion));
        assert_eq!(
            probe(b"# scene\nmtllib a.mtl\nv 0 0 0\nv 1 0 0\n"),
            Some(Kind::Obj)
        );
        assert_eq!(
            probe(b"# materials\nnewmtl red\nKd 1 0 0\n"),
            Some(Kind::Mtl)
        );
        assert_eq!(probe(b"hello world\n"), None);
        assert_eq!(probe(&[0xff, 0xfe, 0, 1, 2, 3, 4, 5]), None);
        // An endian indicator followed by an absurd frame rate is not MEMG.
        let mut bad = 1i32.to_le_bytes().to_vec();
        bad.extend_from_slice(&(-5i32).to_le_bytes());
        assert_eq!(probe(&bad), None);
    }
}
