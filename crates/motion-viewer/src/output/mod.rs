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
//! written by a closure. (Refusing an output that is one of the inputs is
//! the front door's, which knows what file an input path reads:
//! [`crate::open::check_not_input`].)

mod partial;
mod set;

pub use partial::remove_partial_files;
pub use set::OutputSet;

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

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
        Err(Error::NotWritable {
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

/// Gives `temp` the permissions of the regular file it is to replace, as
/// writing over that file in place would have kept them (a file that does
/// not exist yet keeps the umask's).
fn keep_mode_of(path: &Path, temp: &tempfile::NamedTempFile) {
    if let Ok(meta) = std::fs::metadata(path)
        && meta.is_file()
    {
        // Best effort: a mode we may not set leaves the new file's own.
        let _ = temp.as_file().set_permissions(meta.permissions());
    }
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
    /// A temporary file written, synced and closed ([`Output::close`]),
    /// waiting to be put in place.
    Closed(tempfile::TempPath),
    /// The destination itself, a device or pipe.
    Stream(BufWriter<File>),
}

/// One output file being written; see the [module docs](self). Nothing
/// appears at the destination until [`Output::commit`]; dropped without it,
/// the temporary file is removed.
pub struct Output {
    path: PathBuf,
    sink: Option<Sink>,
    /// What [`Output::writer`] gives once the file is closed.
    refused: Refused,
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
                let mut builder = tempfile::Builder::new();
                builder.prefix(".mv-").suffix(".partial").rand_bytes(8);
                #[cfg(unix)]
                {
                    // As a plain create would: 0666 less the umask (tempfile's
                    // own default, 0600, would hide the output from others).
                    use std::os::unix::fs::PermissionsExt;
                    builder.permissions(std::fs::Permissions::from_mode(0o666));
                }
                let stopping = || Error::io(path, io::Error::other("the viewer is stopping"));
                if !partial::begin() {
                    return Err(stopping());
                }
                let temp = builder.tempfile_in(folder_of(path));
                if !partial::end(temp.as_ref().ok().map(|t| t.path())) {
                    // Removed already; dropping it is a no-op on a missing file.
                    return Err(stopping());
                }
                let temp = temp.map_err(|e| Error::io(path, e))?;
                keep_mode_of(path, &temp);
                Sink::Temp(BufWriter::with_capacity(1 << 16, temp))
            }
        };
        Ok(Output {
            path: path.to_path_buf(),
            sink: Some(sink),
            refused: Refused,
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

    /// The temporary file the bytes go to until [`Output::commit`] puts it
    /// in place (none for a device or pipe), for a program that writes the
    /// file itself (ffmpeg): it exists already, created by this process.
    pub fn partial_path(&self) -> Option<&Path> {
        match self.sink.as_ref()? {
            Sink::Temp(w) => Some(w.get_ref().path()),
            Sink::Closed(p) => Some(&**p),
            Sink::Stream(_) => None,
        }
    }

    /// Where to write the bytes (buffered). After [`Output::close`], the
    /// bytes go nowhere: writing fails.
    pub fn writer(&mut self) -> &mut dyn Write {
        match self.sink.as_mut() {
            Some(Sink::Temp(w)) => w,
            Some(Sink::Stream(w)) => w,
            Some(Sink::Closed(_)) | None => &mut self.refused,
        }
    }

    /// Flushes, syncs and closes the temporary file now, keeping it to be
    /// put in place by [`Output::commit`] (a stream is flushed): for a set
    /// of many files that must not hold a descriptor each.
    pub fn close(&mut self) -> Result<()> {
        match self.sink.take() {
            Some(Sink::Stream(mut w)) => {
                let flushed = w.flush().map_err(|e| Error::io(&self.path, e));
                self.sink = Some(Sink::Stream(w));
                flushed
            }
            Some(Sink::Temp(w)) => {
                let temp = Self::finish_temp(&self.path, w)?;
                self.sink = Some(Sink::Closed(temp));
                Ok(())
            }
            other => {
                self.sink = other;
                Ok(())
            }
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
    fn finish(&mut self) -> Result<Option<tempfile::TempPath>> {
        match self.sink.take() {
            Some(Sink::Stream(mut w)) => {
                w.flush().map_err(|e| Error::io(&self.path, e))?;
                Ok(None)
            }
            Some(Sink::Temp(w)) => Self::finish_temp(&self.path, w).map(Some),
            Some(Sink::Closed(temp)) => Ok(Some(temp)),
            None => Ok(None),
        }
    }

    /// Writes out the buffer, syncs and closes a temporary file; on an
    /// error the file is removed.
    fn finish_temp(
        path: &Path,
        w: BufWriter<tempfile::NamedTempFile>,
    ) -> Result<tempfile::TempPath> {
        let temp = w.into_inner().map_err(|e| {
            // The buffered bytes could not be written; the temporary file
            // is removed when the writer is dropped.
            let (error, w) = e.into_parts();
            partial::forget(w.get_ref().path());
            drop(w);
            Error::io(path, error)
        })?;
        if let Err(e) = temp.as_file().sync_all() {
            partial::forget(temp.path());
            return Err(Error::io(path, e));
        }
        // Closing reports nothing more on Linux after a successful fsync;
        // the path stays registered until placed or dropped.
        Ok(temp.into_temp_path())
    }

    /// Renames a finished temporary file over the destination.
    fn place(&self, temp: tempfile::TempPath) -> Result<()> {
        let temp_path = temp.to_path_buf();
        let placed = temp.persist(&self.path);
        partial::forget(&temp_path);
        placed.map_err(|e| Error::io(&self.path, e.error))?;
        Ok(())
    }
}

/// The writer of an output already closed: every write fails.
struct Refused;

impl Write for Refused {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::other("the output was already closed"))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        // The temporary file removes itself when dropped just after this.
        match &self.sink {
            Some(Sink::Temp(w)) => partial::forget(w.get_ref().path()),
            Some(Sink::Closed(p)) => partial::forget(p),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
