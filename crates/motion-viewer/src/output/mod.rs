//! The one way this crate writes a file: all or nothing, never over an input,
//! never through a link planted beside it, never replacing a device.
//!
//! - A **regular file** (or a name that does not exist yet) is written to a
//!   temporary file created exclusively in the destination's own folder
//!   (`O_CREAT | O_EXCL`, which follows no link; a short random name, so a
//!   destination name of 255 bytes still works), flushed and synced, and only
//!   then renamed over the destination. A failure at any step, or a partial
//!   output still open when the process is told to stop ([`remove_partial_files`]),
//!   leaves the old file, if any, as it was.
//! - A **character device or a named pipe** (`/dev/null`, a FIFO a program
//!   reads from) is written in place, as a stream: it is never replaced by a
//!   regular file. A pipe must have a reader already. Errors from writing and
//!   flushing are reported (`/dev/full` fails with "no space left").
//! - A **folder, block device or socket** is refused.
//!
//! [`Output`] is one file being written; [`OutputSet`] several that appear
//! together or not at all; [`write_atomic`] the short form for one file
//! written by a closure. [`check_not_input`] refuses an output that is one of
//! the inputs.

mod partial;
mod set;

pub use partial::remove_partial_files;
pub use set::OutputSet;

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Refuses `out` if it names one of `inputs` (the same file, by path or
/// through a link; for an archive entry `ARCHIVE.ODA:NAME`, the archive),
/// unless `force`.
pub fn check_not_input(out: &Path, inputs: &[PathBuf], force: bool) -> Result<()> {
    if force {
        return Ok(());
    }
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    let Some(target) = canon(out) else {
        // An output that does not exist yet can't be an input.
        return Ok(());
    };
    if inputs
        .iter()
        .any(|i| canon(&crate::scene::archive::disk_file(i)).as_ref() == Some(&target))
    {
        return Err(Error::OutputIsInput {
            path: out.to_path_buf(),
        });
    }
    Ok(())
}

/// Writes `path` through `body` on a buffered writer, as [`Output`] does:
/// the file appears only once `body`, the flush and the sync succeed. An
/// error names `path`.
pub fn write_atomic(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let mut out = Output::create(path)?;
    body(out.writer()).map_err(|e| Error::io(path, e))?;
    out.commit()
}

/// What the destination is, as far as writing goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Destination {
    /// A regular file, or nothing yet: written beside, then renamed over.
    Replace,
    /// A character device or a named pipe: written in place.
    #[cfg_attr(not(unix), allow(dead_code))]
    Stream,
}

/// How `path` may be written, or why it may not.
fn destination(path: &Path) -> Result<Destination> {
    // Following links: a link to /dev/null streams into the device, a link
    // to a regular file is replaced by the new file (the link's target is
    // left alone).
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Destination::Replace),
        // A dangling link, or a folder we may not look into: let the
        // create say what is wrong.
        Err(_) => return Ok(Destination::Replace),
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(Destination::Replace);
    }
    let refuse = |what: &'static str| {
        Err(Error::NotRegularFile {
            path: path.to_path_buf(),
            what,
        })
    };
    if kind.is_dir() {
        return refuse("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() || kind.is_fifo() {
            return Ok(Destination::Stream);
        }
        if kind.is_block_device() {
            return refuse("a block device (a disk)");
        }
        if kind.is_socket() {
            return refuse("a socket");
        }
    }
    refuse("a special file")
}

/// Opens a device or pipe for writing in place. A pipe with no reader is
/// refused at once rather than waited on.
fn open_stream(path: &Path) -> Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ENXIO) {
            return Error::io(
                path,
                io::Error::other("a named pipe with no reader; not written"),
            );
        }
        Error::io(path, e)
    })?;
    #[cfg(unix)]
    {
        // Back to blocking writes: the reader sets the pace.
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns; no memory is passed.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    Ok(file)
}

/// The folder a file at `path` is written in.
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Where an [`Output`]'s bytes go.
enum Sink {
    /// A temporary file beside the destination, registered for removal on a signal.
    Temp(BufWriter<tempfile::NamedTempFile>),
    /// The destination itself, a device or pipe.
    Stream(BufWriter<File>),
}

/// One output file being written; see the [module docs](self). Nothing
/// appears at the destination until [`Output::commit`]; dropped without it,
/// the temporary file is removed.
pub struct Output {
    path: PathBuf,
    sink: Option<Sink>,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output").field("path", &self.path).finish()
    }
}

impl Output {
    /// Starts writing `path`: a temporary file beside it, or the device or
    /// pipe it names. Fails at once for a folder, a block device, a socket,
    /// a pipe with no reader, a name that is no file name, or a folder that
    /// cannot be written.
    pub fn create(path: &Path) -> Result<Output> {
        if path.file_name().is_none() {
            return Err(Error::unsupported(path, "is not a file name"));
        }
        let sink = match destination(path)? {
            Destination::Stream => Sink::Stream(BufWriter::new(open_stream(path)?)),
            Destination::Replace => {
                let temp = tempfile::Builder::new()
                    .prefix(".mv-")
                    .suffix(".partial")
                    .rand_bytes(8)
                    .tempfile_in(folder_of(path))
                    .map_err(|e| Error::io(path, e))?;
                partial::register(temp.path());
                Sink::Temp(BufWriter::with_capacity(1 << 16, temp))
            }
        };
        Ok(Output {
            path: path.to_path_buf(),
            sink: Some(sink),
        })
    }

    /// The destination asked for.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the destination is a device or pipe written in place.
    pub fn is_stream(&self) -> bool {
        matches!(self.sink, Some(Sink::Stream(_)))
    }

    /// Where to write the bytes (buffered).
    pub fn writer(&mut self) -> &mut dyn Write {
        match self.sink.as_mut() {
            Some(Sink::Temp(w)) => w,
            Some(Sink::Stream(w)) => w,
            // Only `commit` takes the sink, and it consumes `self`.
            None => unreachable!("an output is written before it is committed"),
        }
    }

    /// Flushes, syncs and puts the file in place (a stream: flushes it).
    /// Every error on the way names the destination; on one, the old file
    /// is left as it was.
    pub fn commit(mut self) -> Result<()> {
        let temp = self.finish()?;
        if let Some(temp) = temp {
            self.place(temp)?;
        }
        Ok(())
    }

    /// Flushes and syncs, returning the temporary file still to be put in
    /// place (none for a stream).
    fn finish(&mut self) -> Result<Option<tempfile::NamedTempFile>> {
        let path = self.path.clone();
        match self.sink.take() {
            Some(Sink::Stream(mut w)) => {
                w.flush().map_err(|e| Error::io(&path, e))?;
                Ok(None)
            }
            Some(Sink::Temp(w)) => {
                let temp = w.into_inner().map_err(|e| {
                    // The buffered bytes could not be written; the temporary
                    // file is removed when the writer is dropped.
                    let (error, w) = e.into_parts();
                    partial::forget(w.get_ref().path());
                    drop(w);
                    Error::io(&path, error)
                })?;
                if let Err(e) = temp.as_file().sync_all() {
                    partial::forget(temp.path());
                    return Err(Error::io(&path, e));
                }
                Ok(Some(temp))
            }
            None => Ok(None),
        }
    }

    /// Renames a finished temporary file over the destination.
    fn place(&self, temp: tempfile::NamedTempFile) -> Result<()> {
        let temp_path = temp.path().to_path_buf();
        let placed = temp.persist(&self.path);
        partial::forget(&temp_path);
        placed.map_err(|e| Error::io(&self.path, e.error))?;
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(Sink::Temp(w)) = &self.sink {
            // The NamedTempFile removes itself when dropped just after this.
            partial::forget(w.get_ref().path());
        }
    }
}

#[cfg(test)]
mod tests;
