//! The crate's error type: one enum, every variant naming the file it is
//! about as a [`PathBuf`].
//!
//! Each message is one line that stands on its own (`bad.mtn: section 2
//! number at byte 76 (0x4c): expected 2, found 7`), so printing an [`Error`]
//! with `{}` says everything. The typed cause (the [`DecodeError`] with its
//! field and offset, the operating system's [`std::io::Error`]) is also
//! reachable through [`std::error::Error::source`]; a program that prints a
//! whole chain should skip a cause whose text its parent already holds.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where a decoder stopped and why: the field it was reading, its byte offset,
/// and what it expected against what it found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// The field being read, e.g. `"section 3 size"` or `"group 'flag0' U rows"`.
    pub field: String,
    /// Byte offset of the field from the start of the file.
    pub offset: u64,
    /// What a well-formed file has there.
    pub expected: String,
    /// What this file has there.
    pub found: String,
}

impl DecodeError {
    /// Builds an error for `field` at `offset`.
    pub fn new(
        field: impl Into<String>,
        offset: u64,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Self {
        Self {
            field: field.into(),
            offset,
            expected: expected.into(),
            found: found.into(),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {} (0x{:x}): expected {}, found {}",
            crate::text::Escaped(&self.field),
            self.offset,
            self.offset,
            crate::text::Escaped(&self.expected),
            crate::text::Escaped(&self.found)
        )
    }
}

impl std::error::Error for DecodeError {}

/// A name this crate does not know for one of its values (a layout, an AIBO
/// model, a basis format…): what was given and what is accepted. The
/// `FromStr` of each such value fails with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{}\" is not {what}: expected {expected}", quoted(given))]
pub struct ParseValueError {
    /// What was being read, with its article (`an AIBO model`).
    pub what: &'static str,
    /// The text given.
    pub given: String,
    /// The names accepted.
    pub expected: &'static str,
}

impl ParseValueError {
    /// `given` is not `what`; `expected` lists the names accepted.
    pub(crate) fn new(what: &'static str, given: &str, expected: &'static str) -> Self {
        ParseValueError {
            what,
            given: given.to_string(),
            expected,
        }
    }
}

/// What is wrong with an ODA archive's entry as asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryProblem {
    /// No entry has the name asked for (`listing`: some of the names there are).
    NoSuchEntry {
        /// The name asked for.
        name: String,
        /// `12 entries: a, b, c, …`.
        listing: String,
    },
    /// An archive given whole where one entry must be named.
    NeedsEntry {
        /// `12 entries: a, b, c, …`.
        listing: String,
    },
    /// The archive holds no motion at all.
    NoMotion {
        /// `12 entries: a, b, c, …`.
        listing: String,
    },
    /// The entry is a sound, a picture…, not a motion.
    NotAMotion {
        /// The entry's kind (`WAVE`, `OPIC`…).
        kind: String,
    },
    /// An entry was named for a file that is no archive.
    NotAnArchive {
        /// The entry asked for.
        name: String,
    },
    /// `--entry NAME` was given, but none of the files is an archive.
    NoArchiveGiven,
}

impl fmt::Display for EntryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::text::Escaped;
        match self {
            EntryProblem::NoSuchEntry { name, listing } => {
                write!(f, "no entry \"{}\"; {}", quoted(name), Escaped(listing))
            }
            EntryProblem::NeedsEntry { listing } => write!(
                f,
                "an ODA archive: name one entry as ARCHIVE:NAME or with --entry NAME; {}",
                Escaped(listing)
            ),
            EntryProblem::NoMotion { listing } => {
                write!(f, "holds no motion; {}", Escaped(listing))
            }
            EntryProblem::NotAMotion { kind } => {
                write!(f, "a {} entry, not a motion", Escaped(kind))
            }
            EntryProblem::NotAnArchive { name } => write!(
                f,
                "not an ODA archive, so it has no entry \"{}\"",
                quoted(name)
            ),
            EntryProblem::NoArchiveGiven => {
                f.write_str("none of the files given is an ODA archive")
            }
        }
    }
}

/// A name the user gave (an entry's), escaped and cut as messages quote it.
fn quoted(name: &str) -> String {
    crate::text::cut(&crate::text::escape(name), crate::text::QUOTED_CHARS).into_owned()
}

/// Everything that can go wrong loading, decoding, exporting or showing a
/// file. New variants may come: match with a wildcard arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes do not follow the format.
    #[error("{}: {source}", shown(path))]
    Decode {
        /// The file being decoded.
        path: PathBuf,
        /// Field, offset, expected and found.
        #[source]
        source: DecodeError,
    },
    /// Reading or writing the file failed.
    #[error("{}: {source}", shown(path))]
    Io {
        /// The file being read or written.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The content matches none of the known formats.
    #[error(
        "{}: unrecognised content (first bytes {head}); expected an AIBO .mtn or .ODA archive, an MRTK input animation, a MEMG motion or a Wavefront .obj",
        shown(path)
    )]
    UnknownFormat {
        /// The file probed.
        path: PathBuf,
        /// Hex of its first bytes.
        head: String,
    },
    /// A folder, device or pipe where a regular file must be.
    #[error("{}: {what}, not a regular file; not read", shown(path))]
    NotRegularFile {
        /// The path given.
        path: PathBuf,
        /// What it is instead (`a folder`, `a named pipe`…).
        what: &'static str,
    },
    /// An output named a folder, a block device or a socket: nothing a
    /// file can be written to or a stream written into.
    #[error(
        "{}: {what}; not written (an output is a file, a character device or a named pipe)",
        shown(path)
    )]
    NotWritable {
        /// The output asked for.
        path: PathBuf,
        /// What it is (`a folder`, `a socket`…).
        what: &'static str,
    },
    /// An ODA archive's entry cannot be had as asked.
    #[error("{}: {}", shown(path), entry_message(path, problem))]
    Entry {
        /// The archive (`ARCHIVE:NAME` for one entry; `--entry NAME` when no
        /// archive was given).
        path: PathBuf,
        /// What is wrong.
        problem: EntryProblem,
    },
    /// Files that decode but do not go together: a MEMG motion without its
    /// `.obj`, a group that maps past the end of the `.obj`, an `.obj` with
    /// no motion…
    #[error("{}: {reason}", shown(path))]
    Mismatch {
        /// The file at fault.
        path: PathBuf,
        /// What does not fit.
        reason: String,
    },
    /// The output named is one of the inputs (and `--force` was not given).
    #[error(
        "{}: is one of the input files; choose another output (or --force to replace it)",
        shown(path)
    )]
    OutputIsInput {
        /// The output asked for.
        path: PathBuf,
    },
    /// The output asked for cannot be made from these tracks (a MEMG motion
    /// as a table, a `.pc2` without a MEMG scene…), or the request itself
    /// makes no sense.
    #[error("{}: {reason}", shown(path))]
    Unsupported {
        /// The output (or the track) at issue.
        path: PathBuf,
        /// Why, and what to ask for instead.
        reason: String,
    },
    /// The work asked for is over one of the documented caps; refused before
    /// it starts.
    #[error("{}: {what} is more than the {limit} allowed; {hint}", shown(path))]
    TooLarge {
        /// The output (or input) at issue.
        path: PathBuf,
        /// The size of the request, with its unit (`2000000 frames`).
        what: String,
        /// The cap, with its unit.
        limit: String,
        /// How to narrow the request.
        hint: String,
    },
    /// The work asked for needs more memory than this process can get now
    /// (its address-space or data limit, the system's available memory):
    /// refused before it starts, or an allocation that failed.
    #[error(
        "{}: {what} needs {need}; {why}: Cannot allocate memory; {hint}",
        shown(path)
    )]
    OutOfMemory {
        /// The input at issue.
        path: PathBuf,
        /// The work (`a fit of 1000000 vertices × 250 frames`).
        what: String,
        /// The memory it needs, with its unit.
        need: String,
        /// What there is (`this process can allocate 2.6 GB more (its
        /// address-space limit, ulimit -v)`, `the allocation failed`).
        why: String,
        /// How to narrow the work.
        hint: String,
    },
    /// A number that is not finite (NaN, ±∞, or beyond `f32`) where a file
    /// needs a finite one; refused rather than written.
    #[error(
        "{}: {field} at {} s is {value}; refused (an output must hold finite numbers)",
        shown(path),
        seconds(*time_s)
    )]
    NonFinite {
        /// The track's file.
        path: PathBuf,
        /// What holds it (`group 'flag0' vertex 12 x`, `camera position y`…).
        field: String,
        /// When, on the track's clock.
        time_s: f64,
        /// The value as found (`NaN`, `inf`, `3.4e39 (beyond f32)`).
        value: String,
    },
    /// The work was interrupted (Ctrl+C, SIGTERM) and its partial output removed.
    #[error("{}: interrupted; the partial output was removed", shown(path))]
    Interrupted {
        /// The output that was being written.
        path: PathBuf,
    },
    /// A workbench edit (mirror, retime, join, convert, an editor's
    /// operation) that could not make a motion; the motion's file if known.
    #[error("{}{source}", prefix(path.as_deref()))]
    Edit {
        /// The motion's file, when the edit was asked of one.
        path: Option<PathBuf>,
        /// What the edit refused: a [`crate::workbench::EditError`]
        /// (`source()` downcasts to it).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// No adapter, a lost device, work over the device's limits, or a
    /// failed GPU operation; wgpu's own error, where there is one, is the
    /// [`GpuError`]'s `source()`.
    #[error("GPU: {0}")]
    Gpu(#[source] GpuError),
    /// The window could not run: no display to open it on, the windowing
    /// system refused, or the options it was given make no sense.
    #[error("{reason}")]
    Window {
        /// One line: what failed, and what to do instead.
        reason: String,
    },
}

/// wgpu's error behind a [`GpuError`].
pub(crate) type GpuCause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What went wrong on the GPU, by kind. The message is one line that holds
/// the cause's text too; the cause itself (wgpu's error) is `source()`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No adapter, device or window surface could be had.
    #[error("{message}")]
    Unavailable {
        /// What was tried, and what to install or set.
        message: String,
        /// wgpu's error, where it gave one.
        #[source]
        source: Option<GpuCause>,
    },
    /// The work is over what this device (or a 32-bit index) holds; refused
    /// before it starts.
    #[error("{0}")]
    Limit(String),
    /// The device reported an error (out of memory, validation, lost) or a
    /// read-back failed.
    #[error("{message}")]
    Device {
        /// What failed, with wgpu's text.
        message: String,
        /// wgpu's error, where it gave one (the device's own reports come as
        /// text only: wgpu hands them to a callback).
        #[source]
        source: Option<GpuCause>,
    },
    /// Parts that do not go together (a binding made for another motion, a
    /// renderer for another texture format).
    #[error("{0}")]
    Misuse(String),
}

impl From<GpuError> for Error {
    fn from(e: GpuError) -> Self {
        Error::Gpu(e)
    }
}

/// An entry problem as a message; an archive given whole is named in the
/// way to ask for one of its entries.
fn entry_message(path: &Path, problem: &EntryProblem) -> String {
    match problem {
        EntryProblem::NeedsEntry { listing } => format!(
            "an ODA archive: name one entry as {}:NAME or with --entry NAME; {}",
            shown(path),
            crate::text::Escaped(listing)
        ),
        other => other.to_string(),
    }
}

/// `path: ` before a message, or nothing without a path.
fn prefix(path: Option<&Path>) -> String {
    path.map(|p| format!("{}: ", shown(p))).unwrap_or_default()
}

/// Seconds as a message shows them: to the microsecond, without trailing
/// zeros (`0.033333`, `1.5`, `2`).
fn seconds(t: f64) -> String {
    if !t.is_finite() {
        return t.to_string();
    }
    let text = format!("{t:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

/// A path as shown in a message: control characters escaped.
fn shown(path: &Path) -> crate::text::EscapedPath<'_> {
    crate::text::Escaped::path(path)
}

impl Error {
    /// Attaches a file's path to a decoder's error.
    pub fn decode(path: impl AsRef<Path>, source: DecodeError) -> Self {
        Error::Decode {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// Attaches a file's path to an I/O error.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// A [`Error::Mismatch`] for `path`.
    pub fn mismatch(path: impl AsRef<Path>, reason: impl fmt::Display) -> Self {
        Error::Mismatch {
            path: path.as_ref().to_path_buf(),
            reason: reason.to_string(),
        }
    }

    /// An [`Error::Unsupported`] for `path`.
    pub fn unsupported(path: impl AsRef<Path>, reason: impl fmt::Display) -> Self {
        Error::Unsupported {
            path: path.as_ref().to_path_buf(),
            reason: reason.to_string(),
        }
    }

    /// An [`Error::Entry`] for the archive (or entry) at `path`.
    pub fn entry(path: impl AsRef<Path>, problem: EntryProblem) -> Self {
        Error::Entry {
            path: path.as_ref().to_path_buf(),
            problem,
        }
    }

    /// A [`GpuError::Limit`].
    #[cfg(feature = "gpu")]
    pub(crate) fn gpu_limit(message: impl Into<String>) -> Self {
        Error::Gpu(GpuError::Limit(message.into()))
    }

    /// A [`GpuError::Misuse`].
    #[cfg(feature = "gpu")]
    pub(crate) fn gpu_misuse(message: impl Into<String>) -> Self {
        Error::Gpu(GpuError::Misuse(message.into()))
    }

    /// A [`GpuError::Unavailable`], with wgpu's error if there is one.
    #[cfg(feature = "gpu")]
    pub(crate) fn gpu_unavailable(message: impl Into<String>, source: Option<GpuCause>) -> Self {
        Error::Gpu(GpuError::Unavailable {
            message: message.into(),
            source,
        })
    }

    /// A [`GpuError::Device`], with wgpu's error if there is one.
    #[cfg(feature = "gpu")]
    pub(crate) fn gpu_device(message: impl Into<String>, source: Option<GpuCause>) -> Self {
        Error::Gpu(GpuError::Device {
            message: message.into(),
            source,
        })
    }

    /// The file the error is about, if it names one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::Decode { path, .. }
            | Error::Io { path, .. }
            | Error::UnknownFormat { path, .. }
            | Error::NotRegularFile { path, .. }
            | Error::NotWritable { path, .. }
            | Error::Entry { path, .. }
            | Error::Mismatch { path, .. }
            | Error::OutputIsInput { path }
            | Error::Unsupported { path, .. }
            | Error::TooLarge { path, .. }
            | Error::OutOfMemory { path, .. }
            | Error::NonFinite { path, .. }
            | Error::Interrupted { path } => Some(path),
            Error::Edit { path, .. } => path.as_deref(),
            Error::Gpu(_) | Error::Window { .. } => None,
        }
    }

    /// The decoder's error (field, offset, expected, found), for an
    /// [`Error::Decode`].
    pub fn decode_error(&self) -> Option<&DecodeError> {
        match self {
            Error::Decode { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Result with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_decode_error_is_one_line_and_chains_its_cause() {
        let e = Error::decode(
            "bad.mtn",
            DecodeError::new("section 2 number", 76, "2", "7"),
        );
        assert_eq!(
            e.to_string(),
            "bad.mtn: section 2 number at byte 76 (0x4c): expected 2, found 7"
        );
        let cause = e.source().expect("the decoder's error");
        let typed = cause.downcast_ref::<DecodeError>().unwrap();
        assert_eq!(typed.offset, 76);
        assert_eq!(e.path(), Some(Path::new("bad.mtn")));
    }

    #[test]
    fn control_characters_in_names_are_escaped() {
        let e = Error::entry(
            "pack.ODA",
            EntryProblem::NotAMotion {
                kind: "\x1b[31mRED".into(),
            },
        );
        assert_eq!(
            e.to_string(),
            "pack.ODA: a \\x1b[31mRED entry, not a motion"
        );
        let e = Error::mismatch("a\x07.obj", "x");
        assert_eq!(e.to_string(), "a\\x07.obj: x");
    }
}
