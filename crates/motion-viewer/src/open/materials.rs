//! Where an `.obj`'s `mtllib` libraries come from: among the files given,
//! from beside the `.obj` on disk (under the rules for files from
//! strangers), or nowhere (a web page has no file system).

use super::input::{Input, file_name};
#[cfg(not(target_arch = "wasm32"))]
use crate::error::Error;
use std::path::Path;

/// The most bytes a material library may have; beyond it the library is a
/// warning and the mesh draws in its default colour. Real libraries hold a
/// few kilobytes; a megabyte of `newmtl` lines already makes a hundred
/// thousand materials.
pub(crate) const MAX_MATERIAL_BYTES: u64 = 1 << 20;

/// Where an `.obj`'s `mtllib` libraries come from.
pub trait Materials {
    /// The bytes of library `lib` named by the `.obj` at `obj_path`, or why
    /// it can't be had (the error's text is the warning shown).
    fn read(&self, obj_path: &Path, lib: &str) -> std::io::Result<Vec<u8>>;
}

/// Libraries on disk, under the rules for files from strangers: only a
/// relative path inside the `.obj`'s folder (no `..`, not absolute, and no
/// link that leads out of it), only a regular file (never a pipe or device,
/// which could block or never end), at most 1 MiB. Not on
/// the web, which has no file system: there libraries come from the files
/// given (bytes given to [`crate::open_with`]).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone, Copy, Default)]
pub struct DiskMaterials;

#[cfg(not(target_arch = "wasm32"))]
impl Materials for DiskMaterials {
    fn read(&self, obj_path: &Path, lib: &str) -> std::io::Result<Vec<u8>> {
        use std::io::{Error as IoError, ErrorKind, Read};
        use std::path::Component;
        let relative = Path::new(lib);
        if !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(IoError::new(
                ErrorKind::PermissionDenied,
                "not read: only a path relative to the .obj's folder, without '..', is followed",
            ));
        }
        let folder = match obj_path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let path = folder.join(relative);
        let shown = |kind: ErrorKind, e: &dyn std::fmt::Display| {
            IoError::new(kind, format!("{}: {e}", path.display()))
        };
        let io = |e: IoError| shown(e.kind(), &e);
        // A link inside the folder may point anywhere; follow it only to a
        // file that is inside the folder too.
        let real = std::fs::canonicalize(&path).map_err(io)?;
        let real_folder = std::fs::canonicalize(folder).map_err(io)?;
        if !real.starts_with(&real_folder) {
            return Err(shown(
                ErrorKind::PermissionDenied,
                &"a link that leads out of the .obj's folder; not read",
            ));
        }
        let (file, len) = crate::formats::file::open_regular(&real).map_err(|e| match e {
            Error::Io { source, .. } => io(source),
            Error::NotRegularFile { what, .. } => shown(
                ErrorKind::InvalidInput,
                &format_args!("{what}, not a regular file; not read"),
            ),
            other => IoError::other(other.to_string()),
        })?;
        if len > MAX_MATERIAL_BYTES {
            return Err(shown(
                ErrorKind::FileTooLarge,
                &format_args!(
                    "{len} bytes, more than the {MAX_MATERIAL_BYTES} a material library may have"
                ),
            ));
        }
        let mut bytes = Vec::new();
        file.take(MAX_MATERIAL_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > MAX_MATERIAL_BYTES {
            return Err(shown(
                ErrorKind::FileTooLarge,
                &format_args!("grew past {MAX_MATERIAL_BYTES} bytes while read"),
            ));
        }
        Ok(bytes)
    }
}

/// Libraries among a set of inputs, found by file name (the `.mtl` dropped
/// into a web page beside its `.obj`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct InputMaterials<'a>(pub &'a [Input]);

impl Materials for InputMaterials<'_> {
    fn read(&self, _: &Path, lib: &str) -> std::io::Result<Vec<u8>> {
        use std::io::{Error as IoError, ErrorKind};
        let wanted = file_name(Path::new(lib));
        let input = self
            .0
            .iter()
            .find(|i| i.file_name() == wanted)
            .ok_or_else(|| {
                IoError::new(
                    ErrorKind::NotFound,
                    format!("{wanted} is not among the files given"),
                )
            })?;
        if input.data.len() as u64 > MAX_MATERIAL_BYTES {
            return Err(IoError::new(
                ErrorKind::FileTooLarge,
                format!(
                    "{wanted}: {} bytes, more than the {MAX_MATERIAL_BYTES} a material library may have",
                    input.data.len()
                ),
            ));
        }
        Ok(input.data.to_vec())
    }
}

/// Material libraries from nowhere but the files given: for bytes, which
/// have no folder, and on the web, which has no file system.
pub(crate) struct NoMaterials;

impl Materials for NoMaterials {
    fn read(&self, _: &Path, lib: &str) -> std::io::Result<Vec<u8>> {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{lib} is not among the files given; add it to them"),
        ))
    }
}

/// The libraries among the files given, then the caller's own.
pub(crate) struct Chain<'a>(pub InputMaterials<'a>, pub &'a dyn Materials);

impl Materials for Chain<'_> {
    fn read(&self, obj: &Path, lib: &str) -> std::io::Result<Vec<u8>> {
        self.0.read(obj, lib).or_else(|_| self.1.read(obj, lib))
    }
}

/// The door's own rule when the caller names no library source: beside
/// the `.obj` on disk for an `.obj` read from disk (the paths given), and
/// from nowhere for one given as bytes (a name is not a folder to look in).
/// (A page has no disk: there the paths are never looked at.)
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub(crate) struct BesideDiskFiles<'a>(pub &'a [std::path::PathBuf]);

impl Materials for BesideDiskFiles<'_> {
    fn read(&self, obj: &Path, lib: &str) -> std::io::Result<Vec<u8>> {
        #[cfg(not(target_arch = "wasm32"))]
        if self.0.iter().any(|p| p == obj) {
            return DiskMaterials.read(obj, lib);
        }
        NoMaterials.read(obj, lib)
    }
}
