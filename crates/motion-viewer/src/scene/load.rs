//! Loading tracks from the files a user gives: by content, never by extension.
//!
//! The loader behind the front door ([`crate::open_with`],
//! [`crate::open_inputs`]) works on [`Input`]s: named byte buffers, as a web
//! page or a fuzzer hands them over, or files read from disk (the large ones
//! memory-mapped, [`Input::read`]).
//!
//! **Pairing.** A MEMG motion needs its `.obj` scene: it takes the unused
//! `.obj` with the same file stem if there is one, else the nearest unused
//! `.obj` before it in the list, else the nearest after it. Material libraries
//! (`.mtl`) given among the inputs are not tracks: an `.obj`'s `mtllib` finds
//! them by file name.
//!
//! **Archives.** A Sony ODA archive gives the motion its [`Input::entry`]
//! names (`ARCHIVE.ODA:NAME` on disk), or, given bare, what [`Archives`] says
//! (see [`super::archive`]).

use super::Track;
use super::archive::{self, Archives};
use crate::anim::timeline::MAX_DURATION_S;
use crate::error::{EntryProblem, Error, Result};
use crate::formats::{self, Kind, input_animation, memg, mtn, obj};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most bytes a material library may have; beyond it the library is a
/// warning and the mesh draws in its default colour. Real libraries hold a
/// few kilobytes; a megabyte of `newmtl` lines already makes a hundred
/// thousand materials.
pub(crate) const MAX_MATERIAL_BYTES: u64 = 1 << 20;

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
}

fn file_name(path: &Path) -> String {
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
/// given ([`crate::open_bytes_all`]).
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

/// Reads `paths` from disk and decodes them into tracks, material
/// libraries from disk under [`DiskMaterials`]' rules; an archive given
/// without an entry is refused with a list of its entries ([`Archives::Ask`]).
/// Returns the tracks and the warnings of loading, each naming its file.
/// (The library's own shorthand; callers outside go through `crate::open_with`.)
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn load(paths: &[PathBuf]) -> Result<(Vec<Track>, Vec<String>)> {
    let inputs = paths
        .iter()
        .map(|p| Input::read(p))
        .collect::<Result<Vec<_>>>()?;
    load_inputs_as(&inputs, &DiskMaterials, Archives::Ask, &[])
}

/// The bytes `path` names: the file, or the one entry of `ARCHIVE:ENTRY`.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let input = Input::read(path)?;
    let Some(name) = &input.entry else {
        let bytes = input.data.to_vec();
        input.data.check()?;
        return Ok(bytes);
    };
    let entries = crate::formats::mtn::read_oda(&input.data);
    input.data.check()?;
    let entries = entries.map_err(|e| Error::decode(&input.path, e))?;
    let entry = archive::find_entry(&input.path, &entries, name)?;
    let bytes = input.data[entry.data.clone()].to_vec();
    input.data.check()?;
    Ok(bytes)
}

/// Loads one `.obj` scene from disk with its materials (under
/// [`DiskMaterials`]' rules), returning the warnings beside it.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_obj(path: &Path) -> Result<(obj::ObjScene, Vec<String>)> {
    let input = Input::read(path)?;
    let decoded = decode_obj(&input, &DiskMaterials);
    input.data.check()?;
    decoded
}

fn decode_obj(input: &Input, materials: &dyn Materials) -> Result<(obj::ObjScene, Vec<String>)> {
    let reader = |lib: &str| materials.read(&input.path, lib);
    let options = obj::ObjOptions {
        materials: Some(&reader),
    };
    let mut scene =
        obj::decode_with(&input.data, &options).map_err(|e| Error::decode(&input.path, e))?;
    // The scene's warnings move to the load's, each naming the file.
    let warnings = std::mem::take(&mut scene.warnings)
        .into_iter()
        .map(|w| format!("{}: {w}", input.path.display()))
        .collect();
    Ok((scene, warnings))
}

/// The kind of every input, or an error naming the first unknown one.
fn kinds(inputs: &[Input]) -> Result<Vec<Kind>> {
    inputs
        .iter()
        .map(|input| {
            formats::probe(&input.data).ok_or_else(|| Error::UnknownFormat {
                path: input.path.clone(),
                head: input
                    .data
                    .iter()
                    .take(8)
                    .map(|b| format!("{b:02x}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            })
        })
        .collect()
}

/// [`load_inputs_as`] with bare archives refused and every MEMG decoded
/// (the unit tests' shorthand).
#[cfg(test)]
pub(crate) fn load_inputs(
    inputs: &[Input],
    materials: &dyn Materials,
) -> Result<(Vec<Track>, Vec<String>)> {
    load_inputs_as(inputs, materials, Archives::Ask, &[])
}

/// Decodes and pairs `inputs` into tracks, in input order (a MEMG track
/// stands where its motion file does). Returns the tracks and the warnings
/// of loading (materials that could not be read…), each naming its file.
/// Bare archives are handled as `archives` says; a MEMG motion whose input
/// `index_memg` marks is indexed, not decoded (everything but the groups'
/// mean poses and bases, which stay empty: the caller reads them from the
/// file). A memory-mapped input that changed on disk while it was read fails
/// the load ([`InputData::check`]), whatever its bytes decoded to.
pub(crate) fn load_inputs_as(
    inputs: &[Input],
    materials: &dyn Materials,
    archives: Archives,
    index_memg: &[bool],
) -> Result<(Vec<Track>, Vec<String>)> {
    let loaded = decode_inputs(inputs, materials, archives, index_memg);
    for input in inputs {
        input.data.check()?;
    }
    loaded
}

/// [`load_inputs_as`] before its check of mapped inputs.
fn decode_inputs(
    inputs: &[Input],
    materials: &dyn Materials,
    archives: Archives,
    index_memg: &[bool],
) -> Result<(Vec<Track>, Vec<String>)> {
    let kinds = kinds(inputs)?;
    let objs: Vec<usize> = (0..inputs.len())
        .filter(|&i| kinds[i] == Kind::Obj)
        .collect();
    let mut used = vec![false; inputs.len()];
    let mut tracks = Vec::new();
    let mut warnings = Vec::new();
    for (i, (input, kind)) in inputs.iter().zip(&kinds).enumerate() {
        let path = input.path.clone();
        let decode_error = |e| Error::decode(&input.path, e);
        if input.entry.is_some() && *kind != Kind::Oda {
            return Err(Error::entry(
                &input.path,
                EntryProblem::NotAnArchive {
                    name: input.entry.clone().unwrap_or_default(),
                },
            ));
        }
        match kind {
            Kind::Obj | Kind::Mtl => {}
            Kind::Mtn => tracks.push(Track::Mtn {
                motion: mtn::decode(&input.data).map_err(decode_error)?,
                path,
                entry: None,
            }),
            Kind::Oda => {
                let entries = mtn::read_oda(&input.data).map_err(decode_error)?;
                let selector = input.entry.as_deref();
                for entry in archive::chosen(&input.path, selector, &entries, archives)? {
                    tracks.push(entry_track(input, entry)?);
                }
            }
            Kind::InputAnimation => tracks.push(Track::InputAnimation {
                recording: Arc::new(input_animation::decode(&input.data).map_err(decode_error)?),
                path,
            }),
            Kind::MemgMotion => {
                let stem = |p: &Path| p.file_stem().map(|s| s.to_os_string());
                let free = |j: &&usize| !used[**j];
                let same_stem = objs
                    .iter()
                    .filter(free)
                    .find(|&&j| stem(&inputs[j].path) == stem(&path));
                let before = objs.iter().rev().filter(free).find(|&&j| j < i);
                let after = objs.iter().filter(free).find(|&&j| j > i);
                let Some(&j) = same_stem.or(before).or(after) else {
                    return Err(Error::mismatch(
                        &path,
                        "a MEMG motion needs its .obj scene: give the .obj with it",
                    ));
                };
                used[j] = true;
                let (scene, obj_warnings) = decode_obj(&inputs[j], materials)?;
                inputs[j].data.release();
                warnings.extend(obj_warnings);
                // A mapped motion is decoded with its pages dropped behind the
                // decoder: the file is never resident whole beside its arrays.
                let motion = match &input.data {
                    bytes if index_memg.get(i) == Some(&true) => {
                        memg::index(bytes).map(|(skeleton, _)| skeleton)
                    }
                    #[cfg(not(target_arch = "wasm32"))]
                    InputData::Mapped(map) => memg::decode_mmap(map),
                    bytes => memg::decode(bytes),
                }
                .map_err(decode_error)?;
                tracks.push(Track::Memg {
                    obj_path: inputs[j].path.clone(),
                    motion_path: path,
                    scene: Arc::new(scene),
                    motion: Arc::new(motion),
                });
            }
        }
    }
    for track in &tracks {
        let recorded = track.recorded_duration_s();
        if recorded > MAX_DURATION_S {
            warnings.push(format!(
                "{}: lasts {recorded:.6e} s; only its first {MAX_DURATION_S} s (24 h) play",
                track.path().display()
            ));
        }
    }
    if let Some(&j) = objs.iter().find(|&&j| !used[j]) {
        return Err(Error::mismatch(
            &inputs[j].path,
            "an .obj scene needs a MEMG motion file given with it",
        ));
    }
    Ok((tracks, warnings))
}

/// The track of one archive entry, named `ARCHIVE:ENTRY`.
fn entry_track(input: &Input, entry: &mtn::OdaEntry) -> Result<Track> {
    let path = archive::entry_path(&input.path, &entry.name);
    let bytes = &input.data[entry.data.clone()];
    if !entry.is_motion() || formats::probe(bytes) != Some(Kind::Mtn) {
        return Err(Error::entry(
            &path,
            EntryProblem::NotAMotion {
                kind: entry.kind_name(),
            },
        ));
    }
    Ok(Track::Mtn {
        motion: mtn::decode(bytes).map_err(|e| Error::decode(&path, e))?,
        path,
        entry: Some(entry.name.clone()),
    })
}

#[cfg(test)]
mod tests;
