//! One file handed to the door, as bytes: held in memory (a web page's
//! files, a Python `bytes`) or read from disk under the rules for files from
//! strangers (only a regular file, found out without blocking; a large one
//! memory-mapped).

use super::archive;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The bytes of one input file.
#[derive(Debug)]
pub enum InputData {
    /// Bytes in memory.
    Bytes(Vec<u8>),
    /// A read-only memory map of the file (large MEMG motions are read once,
    /// straight from the page cache), guarded: a file changed under it
    /// reads zeros instead of ending the process, and [`InputData::check`]
    /// says so.
    #[cfg(not(target_arch = "wasm32"))]
    Mapped(crate::formats::mapping::Mapping),
}

impl InputData {
    /// Drops the pages of a memory-mapped input from this process's resident
    /// memory once it has been decoded (they stay in the page cache and are
    /// read back if touched again); nothing for bytes held in memory.
    pub fn release(&self) {
        #[cfg(not(target_arch = "wasm32"))]
        if let InputData::Mapped(map) = self {
            map.release(0..map.len());
        }
    }

    /// Fails when a memory-mapped input changed on disk since it was opened
    /// ([`crate::formats::mapping::Mapping::check`]); bytes in memory never do.
    pub fn check(&self) -> Result<()> {
        match self {
            #[cfg(not(target_arch = "wasm32"))]
            InputData::Mapped(map) => map.check(),
            InputData::Bytes(_) => Ok(()),
        }
    }
}

impl std::ops::Deref for InputData {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            InputData::Bytes(b) => b,
            #[cfg(not(target_arch = "wasm32"))]
            InputData::Mapped(m) => m,
        }
    }
}

/// One file handed to the loader: the name it is known by (a path on the
/// command line, a file name in a web page) and its bytes.
#[derive(Debug)]
pub struct Input {
    /// Where it came from; errors and track names use it.
    pub path: PathBuf,
    /// Its content.
    pub data: InputData,
    /// For an ODA archive: the one entry to load (`ARCHIVE.ODA:NAME`).
    pub entry: Option<String>,
}

impl Input {
    /// An input held in memory.
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Input {
        Input {
            path: path.into(),
            data: InputData::Bytes(bytes),
            entry: None,
        }
    }

    /// The same input narrowed to one entry of the archive it holds.
    pub(crate) fn with_entry(self, entry: impl Into<String>) -> Input {
        Input {
            entry: Some(entry.into()),
            ..self
        }
    }

    /// Reads (or, for a large file, maps) `path`; `ARCHIVE.ODA:NAME` reads
    /// the archive with the entry named. Only regular files are read (a pipe
    /// or device would block or never end), checked on the file as opened,
    /// without blocking (`formats::file::open_regular`).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read(path: &Path) -> Result<Input> {
        if let Some((archive, entry)) = archive::split_entry(path) {
            return Ok(Input::read(&archive)?.with_entry(entry));
        }
        const MAP_FROM_BYTES: u64 = 1 << 20;
        let (file, len) = crate::formats::file::open_regular(path)?;
        let data = if len >= MAP_FROM_BYTES {
            InputData::Mapped(crate::formats::mapping::Mapping::map(path, file)?)
        } else {
            InputData::Bytes(read_opened(path, file, len)?)
        };
        Ok(Input {
            path: path.to_path_buf(),
            data,
            entry: None,
        })
    }

    /// Reads `path` into memory, never mapping it, under the same rules as
    /// [`Input::read`]: for a file that may be rewritten while it is held
    /// (the window's dropped and watched files).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_owned(path: &Path) -> Result<Input> {
        if let Some((archive, entry)) = archive::split_entry(path) {
            return Ok(Input::read_owned(&archive)?.with_entry(entry));
        }
        let (file, len) = crate::formats::file::open_regular(path)?;
        Ok(Input::from_bytes(path, read_opened(path, file, len)?))
    }

    /// The file name without its folder, for matching and display.
    pub(crate) fn file_name(&self) -> String {
        file_name(&self.path)
    }

    /// The bytes this input names: its own, or for an archive entry
    /// (`ARCHIVE.ODA:NAME`) the entry's (a benchmark times a decoder on
    /// them). A memory-mapped file that changed while read is an error.
    ///
    /// # Errors
    /// A changed file; an archive that does not decode or has no such entry.
    pub fn named_bytes(&self) -> Result<Vec<u8>> {
        let Some(name) = &self.entry else {
            let bytes = self.data.to_vec();
            self.data.check()?;
            return Ok(bytes);
        };
        let entries = crate::formats::mtn::read_oda(&self.data);
        self.data.check()?;
        let entries = entries.map_err(|e| Error::decode(&self.path, e))?;
        let entry = archive::find_entry(&self.path, &entries, name)?;
        let bytes = self.data[entry.data.clone()].to_vec();
        self.data.check()?;
        Ok(bytes)
    }
}

/// The file name of `path` without its folder (the whole path when it has
/// none), for matching libraries by name and for display.
pub(super) fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The first `len` bytes of `file` (opened from `path`): a file that
/// grows while it is read is cut where it stood when opened.
#[cfg(not(target_arch = "wasm32"))]
fn read_opened(path: &Path, file: std::fs::File, len: u64) -> Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(len as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, len), &mut bytes)
        .map_err(|e| Error::io(path, e))?;
    Ok(bytes)
}

/// The first `n` bytes of `path` (fewer in a shorter file) and the file's
/// length, under [`Input::read`]'s rules (only a regular file, opened
/// without a wait): what a file is, told before it is read whole.
#[cfg(all(feature = "fit", not(target_arch = "wasm32")))]
pub(crate) fn head(path: &Path, n: usize) -> Result<(Vec<u8>, u64)> {
    use std::io::Read;
    let (file, len) = crate::formats::file::open_regular(path)?;
    let mut bytes = Vec::with_capacity(n);
    file.take(n as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    Ok((bytes, len))
}
