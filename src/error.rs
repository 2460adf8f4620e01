//! The crate's error type: one small enum, every variant naming the file.

use std::fmt;

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
            self.field, self.offset, self.offset, self.expected, self.found
        )
    }
}

impl std::error::Error for DecodeError {}

/// Everything that can go wrong loading, decoding or showing a file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes do not follow the format.
    #[error("{file}: {error}")]
    Decode {
        /// The file being decoded.
        file: String,
        /// Field, offset, expected and found.
        error: DecodeError,
    },
    /// Reading the file failed.
    #[error("{file}: {error}")]
    Io {
        /// The file being read.
        file: String,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// The content matches none of the known formats.
    #[error(
        "{file}: unrecognised content (first bytes {head}); expected an AIBO .mtn or .ODA archive, an MRTK input animation, a MEMG motion or a Wavefront .obj"
    )]
    UnknownFormat {
        /// The file probed.
        file: String,
        /// Hex of its first bytes.
        head: String,
    },
    /// The file decodes but does not fit with the rest (a MEMG group that maps
    /// past the end of its `.obj`, a motion with no scene, …).
    #[error("{file}: {message}")]
    Invalid {
        /// The file at fault.
        file: String,
        /// What does not fit.
        message: String,
    },
    /// No adapter, a lost device, or a failed GPU operation.
    #[error("GPU: {0}")]
    Gpu(String),
}

impl Error {
    /// Attaches a file name to a decoder's error.
    pub fn decode(file: impl fmt::Display, error: DecodeError) -> Self {
        Error::Decode {
            file: file.to_string(),
            error,
        }
    }

    /// Attaches a file name to an I/O error.
    pub fn io(file: impl fmt::Display, error: std::io::Error) -> Self {
        Error::Io {
            file: file.to_string(),
            error,
        }
    }
}

/// Result with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
