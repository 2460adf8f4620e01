//! The front door: files in, [`Track`]s out, with what went less well.
//!
//! [`open`] takes one file (an AIBO `.mtn`, an MRTK recording, a MEMG motion
//! with its `.obj` beside it, an ODA archive, or `ARCHIVE.ODA:NAME` for one
//! entry); [`open_all`] takes several and pairs each MEMG motion with its
//! `.obj`; [`open_bytes`] and [`open_bytes_all`] do the same for bytes held
//! in memory; [`open_entry`] names one entry of an archive. Files are told
//! apart by their content, never by their extension.
//!
//! ```
//! # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap();
//! let loaded = motion_viewer::open("data/sony_stand_sit.mtn")?;
//! let track = &loaded.tracks[0];
//! assert_eq!(track.name(), "sony_stand_sit");
//! assert_eq!(track.duration_s(), 4.88);
//!
//! // A MEMG motion finds the `.obj` of the same name beside it.
//! let flags = motion_viewer::open("data/flags.bin")?;
//! assert!(matches!(flags.tracks[0], motion_viewer::Track::Memg { .. }));
//! # Ok::<(), motion_viewer::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::formats::{self, Kind};
#[cfg(not(target_arch = "wasm32"))]
use crate::scene::DiskMaterials;
pub use crate::scene::Input;
pub use crate::scene::archive::Archives;
use crate::scene::load::load_inputs_as;
use crate::scene::{InputMaterials, Materials, Track};
use std::path::{Path, PathBuf};

/// What [`open_with`] and its shorthands give back: the tracks, in the order
/// the files were given (a MEMG track where its motion file stands; an
/// archive's motions in archive order), and the warnings of loading them.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The tracks.
    pub tracks: Vec<Track>,
    /// What went less well than asked, one line per cause, each naming its
    /// file: a material library that could not be read, a motion longer than
    /// the viewer plays… A decoder's own findings about a file stay with the
    /// decoded value (`Mtn::warnings`, `MemgMotion::warnings`,
    /// `InputAnimation::warnings`); [`Loaded::all_warnings`] gives both.
    pub warnings: Vec<String>,
    /// With [`OpenOptions::map_memg`]: for each MEMG track (by its index in
    /// [`Loaded::tracks`]) whose motion was left in its file, that file
    /// mapped and indexed; the track's motion then holds everything but the
    /// groups' mean poses and bases.
    #[cfg(not(target_arch = "wasm32"))]
    pub mapped: Vec<(usize, crate::formats::memg::MappedMemg)>,
}

impl Loaded {
    /// The loading warnings, then each track's decoder warnings prefixed
    /// with the track's name.
    pub fn all_warnings(&self) -> Vec<String> {
        let mut all = self.warnings.clone();
        for track in &self.tracks {
            let name = track.name();
            all.extend(track.warnings().iter().map(|w| format!("{name}: {w}")));
        }
        all
    }

    /// The first track, or `None` when nothing was loaded.
    pub fn first(&self) -> Option<&Track> {
        self.tracks.first()
    }
}

/// Where one file comes from: a path (`ARCHIVE.ODA:NAME` for one entry of
/// an archive), or bytes held in memory under a name (a web page's files,
/// a Python `bytes`).
#[derive(Debug)]
pub enum Source {
    /// A file on disk, read (or, when large, memory-mapped) when opened.
    Path(PathBuf),
    /// Bytes in memory, and the name errors and the track call them by.
    Bytes(PathBuf, Vec<u8>),
    /// A file read already ([`Input::read`], [`Input::from_bytes`]): opened
    /// as it is, with no `.obj` looked for beside it and nothing left mapped.
    Input(Input),
}

impl From<Input> for Source {
    fn from(input: Input) -> Source {
        Source::Input(input)
    }
}

impl From<PathBuf> for Source {
    fn from(path: PathBuf) -> Source {
        Source::Path(path)
    }
}

impl From<&PathBuf> for Source {
    fn from(path: &PathBuf) -> Source {
        Source::Path(path.clone())
    }
}

impl From<&Path> for Source {
    fn from(path: &Path) -> Source {
        Source::Path(path.to_path_buf())
    }
}

impl From<&str> for Source {
    fn from(path: &str) -> Source {
        Source::Path(path.into())
    }
}

impl<N: Into<PathBuf>> From<(N, Vec<u8>)> for Source {
    fn from((name, bytes): (N, Vec<u8>)) -> Source {
        Source::Bytes(name.into(), bytes)
    }
}

/// How files become tracks: the one set of options behind every way in —
/// the command line, the window (files dropped or watched), the web page
/// and the Python package all open through [`open_with`] (or, holding
/// [`Input`]s already, the same loader behind it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenOptions {
    /// What an ODA archive given without an entry opens (default: every
    /// motion entry).
    pub archives: Archives,
    /// When no `.obj` is among the files, each MEMG motion on disk takes the
    /// `.obj` of its stem beside it (`flags.bin` → `flags.obj`), and is
    /// refused when there is none.
    pub scene_beside: bool,
    /// MEMG motions on disk stay in their files, mapped and indexed
    /// ([`Loaded::mapped`]), rather than decoded: for a caller that reads
    /// the arrays where they lie (Python's views). Ignored on the web.
    pub map_memg: bool,
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions {
            archives: Archives::EveryMotion,
            scene_beside: false,
            map_memg: false,
        }
    }
}

/// Opens `sources` as one set of tracks: each file told by its content,
/// never its extension; each MEMG motion paired with the `.obj` of the same
/// stem among them, else the nearest before it, else the nearest after it
/// (or, with [`OpenOptions::scene_beside`], the one beside it on disk);
/// `.mtl` libraries found among the sources by file name, then beside their
/// `.obj` on disk. Large files are memory-mapped while they are decoded.
///
/// ```
/// # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap();
/// use motion_viewer::{OpenOptions, Source, open_with};
/// // A motion on disk with its scene beside it, and a recording in memory.
/// let hands = std::fs::read("data/hands.mrtk")?;
/// let loaded = open_with(
///     [Source::from("data/flags.bin"), Source::Bytes("hands.mrtk".into(), hands)],
///     &OpenOptions { scene_beside: true, ..OpenOptions::default() },
/// )?;
/// assert_eq!(loaded.tracks.len(), 2);
/// assert_eq!(loaded.tracks[1].name(), "hands");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// An [`Error`] naming the file: unreadable, of no known format, a decoding
/// error (field, offset, expected, found), a MEMG motion without its `.obj`.
pub fn open_with(
    sources: impl IntoIterator<Item = Source>,
    options: &OpenOptions,
) -> Result<Loaded> {
    // Each input, and whether it was read from disk.
    let mut inputs = Vec::new();
    for source in sources {
        inputs.push(match source {
            Source::Bytes(name, bytes) => (Input::from_bytes(name, bytes), false),
            Source::Input(input) => (input, false),
            Source::Path(path) => (read(&path)?, true),
        });
    }
    if options.scene_beside {
        add_scenes_beside(&mut inputs)?;
    }
    let (inputs, disk): (Vec<Input>, Vec<bool>) = inputs.into_iter().unzip();
    // Only a motion read from a file can be left in it.
    let index: Vec<bool> = disk
        .iter()
        .map(|&d| d && options.map_memg && cfg!(not(target_arch = "wasm32")))
        .collect();
    // A page has no file system: its libraries are among the files given.
    #[cfg(not(target_arch = "wasm32"))]
    let materials: &dyn Materials = &DiskMaterials;
    #[cfg(target_arch = "wasm32")]
    let materials: &dyn Materials = &NoMaterials;
    #[cfg_attr(target_arch = "wasm32", allow(unused_mut))]
    let mut loaded = load(&inputs, options, materials, &index)?;
    #[cfg(not(target_arch = "wasm32"))]
    if options.map_memg {
        map_motions(&mut loaded, &inputs, &index)?;
    }
    Ok(loaded)
}

/// A file on disk as an input.
#[cfg(not(target_arch = "wasm32"))]
fn read(path: &Path) -> Result<Input> {
    Input::read(path)
}

/// No file system in a web page: files come as bytes.
#[cfg(target_arch = "wasm32")]
fn read(path: &Path) -> Result<Input> {
    Err(Error::unsupported(
        path,
        "no file system here; give the file's bytes",
    ))
}

/// With no `.obj` among `inputs`, puts before each MEMG motion read from
/// disk the `.obj` of its stem beside it, or says it is not there.
fn add_scenes_beside(inputs: &mut Vec<(Input, bool)>) -> Result<()> {
    let kind = |i: &Input| formats::probe(&i.data);
    if inputs.iter().any(|(i, _)| kind(i) == Some(Kind::Obj)) {
        return Ok(());
    }
    let mut with = Vec::with_capacity(2 * inputs.len());
    for (input, disk) in inputs.drain(..) {
        if disk && input.entry.is_none() && kind(&input) == Some(Kind::MemgMotion) {
            let obj = input.path.with_extension("obj");
            if !obj.is_file() {
                return Err(Error::mismatch(
                    &input.path,
                    format!(
                        "a MEMG motion needs its .obj scene, and {} is not there; give both",
                        obj.display()
                    ),
                ));
            }
            with.push((read(&obj)?, true));
        }
        with.push((input, disk));
    }
    *inputs = with;
    Ok(())
}

/// The loader behind [`open_with`], for callers that hold [`Input`]s
/// already (the window keeps them to watch and to save edits) or their own
/// material libraries (a fuzz target's): tracks from `inputs` as `options`
/// say ([`OpenOptions::scene_beside`] and [`OpenOptions::map_memg`] aside:
/// these inputs are read already), `.mtl` libraries among them first, then
/// from `rest`.
///
/// # Errors
/// As [`open_with`]'s.
pub fn open_inputs(
    inputs: &[Input],
    options: &OpenOptions,
    rest: &dyn Materials,
) -> Result<Loaded> {
    load(inputs, options, rest, &[])
}

/// [`open_inputs`], the MEMG motions of the inputs `index` marks indexed
/// rather than decoded.
fn load(
    inputs: &[Input],
    options: &OpenOptions,
    rest: &dyn Materials,
    index: &[bool],
) -> Result<Loaded> {
    struct Chain<'a>(InputMaterials<'a>, &'a dyn Materials);
    impl Materials for Chain<'_> {
        fn read(&self, obj: &Path, lib: &str) -> std::io::Result<Vec<u8>> {
            self.0.read(obj, lib).or_else(|_| self.1.read(obj, lib))
        }
    }
    let chain = Chain(InputMaterials(inputs), rest);
    let (tracks, warnings) = load_inputs_as(inputs, &chain, options.archives, index)?;
    Ok(Loaded {
        tracks,
        warnings,
        #[cfg(not(target_arch = "wasm32"))]
        mapped: Vec::new(),
    })
}

/// Maps and indexes the file of each MEMG track whose motion the loader
/// indexed (its input marked in `index`), reading no array.
#[cfg(not(target_arch = "wasm32"))]
fn map_motions(loaded: &mut Loaded, inputs: &[Input], index: &[bool]) -> Result<()> {
    for (i, track) in loaded.tracks.iter_mut().enumerate() {
        let Track::Memg {
            motion,
            motion_path,
            ..
        } = track
        else {
            continue;
        };
        let indexed = inputs
            .iter()
            .zip(index)
            .any(|(input, &i)| i && input.path == *motion_path);
        if !indexed {
            continue;
        }
        let mapped = crate::formats::memg::MappedMemg::open(motion_path)?;
        debug_assert_eq!(
            crate::formats::memg::ArraySource::motion(&mapped),
            &**motion,
            "the file indexed twice"
        );
        loaded.mapped.push((i, mapped));
    }
    Ok(())
}

/// Opens one file: a motion, `ARCHIVE.ODA:NAME` (one entry), an ODA archive
/// (every motion entry, in archive order) or a MEMG motion, whose `.obj`
/// scene is the file of the same stem beside it (`flags.bin` →
/// `flags.obj`). [`open_with`] with [`OpenOptions::scene_beside`].
///
/// # Errors
/// An [`Error`] naming the file: unreadable, of no known format, a decoding
/// error (field, offset, expected, found), or a MEMG motion with no `.obj`
/// beside it.
#[cfg(not(target_arch = "wasm32"))]
pub fn open(path: impl AsRef<Path>) -> Result<Loaded> {
    let options = OpenOptions {
        scene_beside: true,
        ..OpenOptions::default()
    };
    open_with([path.as_ref().into()], &options)
}

/// Opens several files as one set ([`open_with`] with its defaults): each
/// MEMG motion takes the `.obj` of the same stem among them, else the
/// nearest before it, else the nearest after it; `.mtl` libraries are read
/// from beside their `.obj`. An ODA archive given whole opens every motion
/// entry.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_all<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Result<Loaded> {
    let sources = paths.into_iter().map(|p| Source::from(p.as_ref()));
    open_with(sources, &OpenOptions::default())
}

/// Opens the entry called `entry` of the ODA archive at `archive` (by exact
/// name, else the one entry whose name matches ignoring case).
#[cfg(not(target_arch = "wasm32"))]
pub fn open_entry(archive: impl AsRef<Path>, entry: &str) -> Result<Loaded> {
    let input = Input::read(archive.as_ref())?.with_entry(entry);
    open_inputs(&[input], &OpenOptions::default(), &DiskMaterials)
}

/// Opens one file held in memory; `name` is what errors and the track call
/// it. A MEMG motion needs its `.obj`: give both to [`open_bytes_all`].
///
/// ```
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/hands.mrtk"))?;
/// let loaded = motion_viewer::open_bytes("hands.mrtk", bytes)?;
/// assert!(matches!(loaded.tracks[0], motion_viewer::Track::InputAnimation { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open_bytes(name: impl Into<PathBuf>, bytes: Vec<u8>) -> Result<Loaded> {
    open_bytes_all([(name.into(), bytes)])
}

/// Opens the entry called `entry` of an ODA archive held in memory.
pub fn open_bytes_entry(name: impl Into<PathBuf>, bytes: Vec<u8>, entry: &str) -> Result<Loaded> {
    let input = Input::from_bytes(name, bytes).with_entry(entry);
    open_inputs(&[input], &OpenOptions::default(), &NoMaterials)
}

/// Opens several files held in memory as one set, paired as [`open_all`]
/// pairs files on disk; an `.obj`'s material libraries are found among them
/// by file name.
pub fn open_bytes_all<N: Into<PathBuf>>(
    files: impl IntoIterator<Item = (N, Vec<u8>)>,
) -> Result<Loaded> {
    let inputs: Vec<Input> = files
        .into_iter()
        .map(|(name, bytes)| Input::from_bytes(name, bytes))
        .collect();
    open_inputs(&inputs, &OpenOptions::default(), &NoMaterials)
}

/// Material libraries come from the inputs alone (and on the web, which has
/// no file system, from nowhere else).
pub(crate) struct NoMaterials;

impl Materials for NoMaterials {
    fn read(&self, _: &Path, lib: &str) -> std::io::Result<Vec<u8>> {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{lib} is not among the files given; add it to them"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../data")
            .join(name)
    }

    #[test]
    fn every_kind_opens_through_the_front_door() {
        let mtn = open(sample("sony_stand_sit.mtn")).unwrap();
        assert_eq!(mtn.tracks.len(), 1);
        assert!(mtn.warnings.is_empty(), "{:?}", mtn.warnings);
        let both = open_all([
            sample("flags.obj"),
            sample("flags.bin"),
            sample("hands.mrtk"),
        ])
        .unwrap();
        assert_eq!(both.tracks.len(), 2);
        let bytes = std::fs::read(sample("flags.obj")).unwrap();
        let motion = std::fs::read(sample("flags.bin")).unwrap();
        let mtl = std::fs::read(sample("flags.mtl")).unwrap();
        let memory = open_bytes_all([
            ("flags.obj", bytes),
            ("flags.bin", motion),
            ("flags.mtl", mtl),
        ])
        .unwrap();
        let Track::Memg { scene, .. } = &memory.tracks[0] else {
            panic!("a MEMG track");
        };
        assert!(
            !scene.materials.is_empty(),
            "the .mtl among the bytes is read"
        );
    }

    #[test]
    fn a_memg_motion_alone_names_the_obj_it_looked_for() {
        let dir = tempfile::tempdir().unwrap();
        let lone = dir.path().join("lone.bin");
        std::fs::copy(sample("flags.bin"), &lone).unwrap();
        let e = open(&lone).unwrap_err().to_string();
        assert!(e.contains("lone.obj is not there"), "{e}");
        let e = open_bytes("lone.bin", std::fs::read(&lone).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs its .obj"), "{e}");
    }
}
