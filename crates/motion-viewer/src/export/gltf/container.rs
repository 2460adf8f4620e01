//! The files a finished document becomes: one binary `.glb` (a 12-byte
//! header, the JSON chunk padded with spaces, the BIN chunk padded with
//! zeros), or a `.gltf` (JSON) with its buffer in a `.bin` beside it.
//! Both go through [`crate::output`]: a failure leaves no partial file, and
//! a `.gltf` and its `.bin` appear together or not at all.

use std::io::Write;
use std::path::{Path, PathBuf};

use gltf_json as json;

use super::document::{Chunk, refuse};
use crate::error::{Error, Result};
use crate::output::{OutputSet, write_atomic};

const GLB_MAGIC: u32 = 0x4654_6C67;
const GLB_VERSION: u32 = 2;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// Writes the buffer's pieces in order, reporting each as a fraction of `total`.
fn write_chunks(
    w: &mut dyn Write,
    chunks: &mut [Chunk<'_>],
    total: u64,
    progress: &mut dyn FnMut(f32),
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut done = 0u64;
    for chunk in chunks {
        buf.clear();
        (chunk.fill)(&mut buf);
        w.write_all(&buf)?;
        done += chunk.len;
        progress(done as f32 / total.max(1) as f32);
    }
    Ok(())
}

/// The JSON text of `root`.
fn json_bytes(root: &json::Root, pretty: bool) -> Result<Vec<u8>> {
    let text = if pretty {
        root.to_vec_pretty()
    } else {
        root.to_vec()
    };
    text.map_err(|e| Error::unsupported("glTF document", e.to_string()))
}

/// Writes a `.glb`; returns its size in bytes.
pub(crate) fn write_glb(
    path: &Path,
    root: &json::Root,
    mut chunks: Vec<Chunk<'_>>,
    progress: &mut dyn FnMut(f32),
) -> Result<u64> {
    let layout = GlbLayout::new(&path.display().to_string(), root, &chunks)?;
    write_atomic(path, |w| layout.write(w, &mut chunks, progress))?;
    Ok(layout.total.into())
}

/// A `.glb` in memory (a web page offers it as a download); `name` is what
/// errors call it.
#[cfg(feature = "window")]
pub(crate) fn glb_bytes(
    name: &str,
    root: &json::Root,
    mut chunks: Vec<Chunk<'_>>,
) -> Result<Vec<u8>> {
    let layout = GlbLayout::new(name, root, &chunks)?;
    let mut bytes = Vec::with_capacity(layout.total as usize);
    layout
        .write(&mut bytes, &mut chunks, &mut |_| {})
        .map_err(|e| Error::io(name, e))?;
    Ok(bytes)
}

/// A `.glb`'s JSON chunk (padded) and sizes, known before a byte is written.
struct GlbLayout {
    json: Vec<u8>,
    /// Bytes in the BIN chunk.
    bin: u64,
    /// Bytes in the file.
    total: u32,
}

impl GlbLayout {
    /// Lays out `root` and `chunks`; refuses a file past the 4 GiB a `.glb` holds.
    fn new(name: &str, root: &json::Root, chunks: &[Chunk<'_>]) -> Result<GlbLayout> {
        let mut json = json_bytes(root, false)?;
        json.resize(json.len().next_multiple_of(4), b' ');
        let bin: u64 = chunks.iter().map(|c| c.len).sum();
        let total = 12 + 8 + json.len() as u64 + if bin > 0 { 8 + bin } else { 0 };
        let Ok(total) = u32::try_from(total) else {
            return Err(refuse(
                name,
                format!(
                    "{total} bytes is past the 4 GiB a .glb can hold; write a .gltf (its .bin has no such limit)"
                ),
            ));
        };
        Ok(GlbLayout { json, bin, total })
    }

    /// Writes the header, the JSON chunk and the BIN chunk (when it has bytes).
    fn write(
        &self,
        w: &mut dyn Write,
        chunks: &mut [Chunk<'_>],
        progress: &mut dyn FnMut(f32),
    ) -> std::io::Result<()> {
        for word in [
            GLB_MAGIC,
            GLB_VERSION,
            self.total,
            self.json.len() as u32,
            CHUNK_JSON,
        ] {
            w.write_all(&word.to_le_bytes())?;
        }
        w.write_all(&self.json)?;
        if self.bin > 0 {
            w.write_all(&(self.bin as u32).to_le_bytes())?;
            w.write_all(&CHUNK_BIN.to_le_bytes())?;
            write_chunks(w, chunks, self.bin, progress)?;
        }
        Ok(())
    }
}

/// The `.bin` a `.gltf` at `path` keeps its buffer in: same name, `.bin`.
pub(crate) fn companion_bin(path: &Path) -> PathBuf {
    path.with_extension("bin")
}

/// A file name as a relative URI: every byte but unreserved ones percent-encoded.
fn uri(name: &str) -> String {
    name.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Writes a `.gltf` and its `.bin` (when the buffer has bytes) as one
/// [`OutputSet`]: both appear, or neither (an old `.bin` beside it is left
/// as it was); returns the files written with their sizes.
pub(crate) fn write_gltf(
    path: &Path,
    mut root: json::Root,
    mut chunks: Vec<Chunk<'_>>,
    progress: &mut dyn FnMut(f32),
) -> Result<Vec<(PathBuf, u64)>> {
    let bin: u64 = chunks.iter().map(|c| c.len).sum();
    let bin_path = companion_bin(path);
    let has_buffer = !root.buffers.is_empty();
    if let Some(buffer) = root.buffers.first_mut() {
        let name = bin_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        buffer.uri = Some(uri(&name));
    }
    let mut json = json_bytes(&root, true)?;
    json.push(b'\n');
    // The buffer is placed first, so that the `.gltf` naming it never
    // stands without it.
    let mut set = OutputSet::new();
    let mut written = vec![(path.to_path_buf(), json.len() as u64)];
    if has_buffer {
        let out = set
            .add(&bin_path)
            .map_err(|e| for_gltf(path, &bin_path, e))?;
        write_chunks(out.writer(), &mut chunks, bin, progress)
            .map_err(|e| for_gltf(path, &bin_path, Error::io(&bin_path, e)))?;
        written.push((bin_path.clone(), bin));
    }
    set.add(path)?
        .writer()
        .write_all(&json)
        .map_err(|e| Error::io(path, e))?;
    set.commit().map_err(|e| match e {
        Error::Io { path: ref p, .. } if *p == bin_path => for_gltf(path, &bin_path, e),
        other => other,
    })?;
    Ok(written)
}

/// An error writing a `.gltf`'s buffer, naming the `.gltf` asked for and its `.bin`.
fn for_gltf(path: &Path, bin_path: &Path, e: Error) -> Error {
    match e {
        Error::Io { source, .. } => Error::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(
                source.kind(),
                format!(
                    "its buffer {} could not be written: {source}",
                    bin_path.display()
                ),
            ),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_escape_what_is_not_plain() {
        assert_eq!(uri("scene.bin"), "scene.bin");
        assert_eq!(uri("my scene #1.bin"), "my%20scene%20%231.bin");
        assert_eq!(uri("é.bin"), "%C3%A9.bin");
    }
}
