//! Opening an input file: the one rule every path follows (the command
//! line, `--entry`, the window's drop and `--watch`, Python): only a regular
//! file is read, and finding out never blocks.
//!
//! A named pipe with no writer would block an ordinary open forever (and a
//! device might never end), so the open is non-blocking (`O_NONBLOCK`) and
//! the kind is checked on the file as opened: nothing can swap a pipe in
//! between a check and the open.

use crate::error::{Error, Result};
use std::fs::File;
#[cfg(test)]
use std::io::Read;
use std::path::Path;

/// Opens `path` for reading if it is a regular file, returning it with its
/// length; a folder, pipe, device or socket is refused at once
/// ([`Error::NotRegularFile`]).
pub fn open_regular(path: &Path) -> Result<(File, u64)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let io = |e| Error::io(path, e);
    let file = options.open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_file() {
        return Ok((file, meta.len()));
    }
    Err(Error::NotRegularFile {
        path: path.to_path_buf(),
        what: kind_of(meta.file_type()),
    })
}

/// The bytes of the regular file `path` (see [`open_regular`]), as long as
/// it was when opened: a file that grows while it is read is cut there.
#[cfg(test)]
pub(crate) fn read_regular(path: &Path) -> Result<Vec<u8>> {
    let (file, len) = open_regular(path)?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX))
        .map_err(|_| {
            Error::io(
                path,
                std::io::Error::new(
                    std::io::ErrorKind::OutOfMemory,
                    format!("{len} bytes do not fit in memory"),
                ),
            )
        })?;
    file.take(len)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    Ok(bytes)
}

/// What a file that is not a regular file is, for the refusal.
#[cfg(unix)]
fn kind_of(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a named pipe"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

/// What a file that is not a regular file is, for the refusal.
#[cfg(not(unix))]
fn kind_of(kind: std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        "a folder"
    } else {
        "not a file"
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_with_no_writer_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("motion.mtn");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_regular(&fifo).unwrap_err().to_string();
        assert!(
            e.ends_with("a named pipe, not a regular file; not read"),
            "{e}"
        );
        let e = open_regular(dir.path()).unwrap_err().to_string();
        assert!(e.contains("a folder"), "{e}");
        std::fs::write(dir.path().join("x"), b"abc").unwrap();
        assert_eq!(read_regular(&dir.path().join("x")).unwrap(), b"abc");
    }
}
