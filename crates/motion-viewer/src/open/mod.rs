//! The front door: files in, [`Track`]s out, with what went less well.
//!
//! One function, [`open_with`], opens any set of files, from disk or held as
//! bytes, as [`OpenOptions`] say: an AIBO `.mtn`, an MRTK recording, a MEMG
//! motion with its `.obj`, an ODA archive (or one entry of it:
//! `ARCHIVE.ODA:NAME`, [`OpenOptions::entry`]). Files are told apart by
//! their content, never by their extension. Two shorthands cover the common
//! cases: [`open()`] for one file on disk, [`open_bytes`] for one held in
//! memory. Every way in goes through here: the command line, the window
//! (files dropped or watched), the web page, the Python package, `viewer
//! info`, and `memg fit`'s scene and point caches ([`Input::read`]).
//!
//! Inside: [`input`](Input) reads a file under the rules for files from
//! strangers; [`archive`] owns the `ARCHIVE.ODA:NAME` syntax; `materials`
//! finds an `.obj`'s libraries; `load` tells the kinds apart and pairs them.
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

pub mod archive;
mod input;
mod load;
mod materials;

pub use archive::{Archives, check_not_input};
#[cfg(all(feature = "fit", not(target_arch = "wasm32")))]
pub(crate) use input::head;
pub use input::{Input, InputData};
#[cfg(not(target_arch = "wasm32"))]
pub use materials::DiskMaterials;
pub use materials::Materials;
pub(crate) use materials::NoMaterials;

use crate::error::{Error, Result};
use crate::formats::{self, Kind, obj::ObjScene};
use crate::scene::Track;
use load::{Rules, load_inputs_as};
use materials::{BesideDiskFiles, Chain, InputMaterials};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What [`open_with`] and its shorthands give back: the tracks, in the order
/// the files were given (a MEMG track where its motion file stands; an
/// archive's motions in archive order), and the warnings of loading them.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The tracks.
    pub tracks: Vec<Track>,
    /// With [`OpenOptions::lone_scenes`]: each `.obj` scene that no MEMG
    /// motion took, with the path it was given by, in the order given.
    pub scenes: Vec<(PathBuf, Arc<ObjScene>)>,
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
/// an archive), or named bytes held already (a web page's files, a Python
/// `bytes`, an [`Input`] read earlier).
#[derive(Debug)]
pub enum Source {
    /// A file on disk, read (or, when large, memory-mapped) when opened;
    /// a MEMG motion may find its `.obj` beside it
    /// ([`OpenOptions::scene_beside`]), an `.obj` its libraries.
    Path(PathBuf),
    /// Named bytes: opened as they are, with no `.obj` or library looked
    /// for on disk and nothing left mapped.
    Bytes(Input),
}

impl From<Input> for Source {
    fn from(input: Input) -> Source {
        Source::Bytes(input)
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

impl From<&String> for Source {
    fn from(path: &String) -> Source {
        Source::Path(path.into())
    }
}

impl From<&str> for Source {
    fn from(path: &str) -> Source {
        Source::Path(path.into())
    }
}

impl<N: Into<PathBuf>> From<(N, Vec<u8>)> for Source {
    fn from((name, bytes): (N, Vec<u8>)) -> Source {
        Source::Bytes(Input::from_bytes(name, bytes))
    }
}

/// How files become tracks: the one set of options behind every way in.
#[derive(Clone, Copy)]
pub struct OpenOptions<'a> {
    /// What an ODA archive given without an entry opens (default: every
    /// motion entry).
    pub archives: Archives,
    /// Every file given is an ODA archive, and this entry of each is opened
    /// (by exact name, else the one entry whose name matches ignoring case).
    pub entry: Option<&'a str>,
    /// When no `.obj` is among the files, each MEMG motion on disk takes the
    /// `.obj` of its stem beside it (`flags.bin` → `flags.obj`), and is
    /// refused when there is none.
    pub scene_beside: bool,
    /// MEMG motions on disk stay in their files, mapped and indexed
    /// ([`Loaded::mapped`]), rather than decoded: for a caller that reads
    /// the arrays where they lie (Python's views). Ignored on the web.
    pub map_memg: bool,
    /// An `.obj` scene that no MEMG motion takes is given back in
    /// [`Loaded::scenes`] rather than refused (a fit's scene).
    pub lone_scenes: bool,
    /// Where an `.obj`'s material libraries come from when they are not
    /// among the files given. Default: beside the `.obj` on disk
    /// ([`DiskMaterials`]) for a [`Source::Path`], nowhere for bytes.
    pub materials: Option<&'a dyn Materials>,
}

impl Default for OpenOptions<'_> {
    fn default() -> Self {
        OpenOptions {
            archives: Archives::EveryMotion,
            entry: None,
            scene_beside: false,
            map_memg: false,
            lone_scenes: false,
            materials: None,
        }
    }
}

impl std::fmt::Debug for OpenOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenOptions")
            .field("archives", &self.archives)
            .field("entry", &self.entry)
            .field("scene_beside", &self.scene_beside)
            .field("map_memg", &self.map_memg)
            .field("lone_scenes", &self.lone_scenes)
            .field("materials", &self.materials.map(|_| "the caller's"))
            .finish()
    }
}

/// Opens `sources` as one set of tracks: each file told by its content,
/// never its extension; each MEMG motion paired with the `.obj` of the same
/// stem among them, else the nearest before it, else the nearest after it
/// (or, with [`OpenOptions::scene_beside`], the one beside it on disk);
/// `.mtl` libraries found among the sources by file name, then as
/// [`OpenOptions::materials`] says. An ODA archive given whole gives what
/// [`OpenOptions::archives`] says. Large files are memory-mapped while they
/// are decoded.
///
/// ```
/// # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap();
/// use motion_viewer::{OpenOptions, Source, open_with};
/// // A motion on disk with its scene beside it, and a recording in memory.
/// let hands = std::fs::read("data/hands.mrtk")?;
/// let loaded = open_with(
///     [Source::from("data/flags.bin"), Source::from(("hands.mrtk", hands))],
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
pub fn open_with<S: Into<Source>>(
    sources: impl IntoIterator<Item = S>,
    options: &OpenOptions<'_>,
) -> Result<Loaded> {
    // Each input, and whether it was read from disk.
    let mut inputs = Vec::new();
    for source in sources {
        inputs.push(match source.into() {
            Source::Bytes(input) => (input, false),
            Source::Path(path) => (read(&path)?, true),
        });
    }
    if let Some(entry) = options.entry {
        for (input, _) in &mut inputs {
            input.entry = Some(entry.to_string());
        }
    }
    if options.scene_beside {
        add_scenes_beside(&mut inputs)?;
    }
    let (inputs, disk): (Vec<Input>, Vec<bool>) = inputs.into_iter().unzip();
    let on_disk: Vec<PathBuf> = inputs
        .iter()
        .zip(&disk)
        .filter(|&(_, &d)| d)
        .map(|(i, _)| i.path.clone())
        .collect();
    // Only a motion read from a file can be left in it.
    let index: Vec<bool> = disk
        .iter()
        .map(|&d| d && options.map_memg && cfg!(not(target_arch = "wasm32")))
        .collect();
    let beside = BesideDiskFiles(&on_disk);
    #[cfg_attr(target_arch = "wasm32", allow(unused_mut))]
    let mut loaded = load(&inputs, options, &beside, &index)?;
    #[cfg(not(target_arch = "wasm32"))]
    if options.map_memg {
        map_motions(&mut loaded, &inputs, &index)?;
    }
    Ok(loaded)
}

/// [`open_with`] for inputs a caller keeps (the window holds them to watch
/// and to save edits, each with its own [`Input::entry`]; `options.entry`
/// is not applied): libraries among them, then as `options.materials` says
/// (nowhere when it says nothing).
pub(crate) fn open_held(inputs: &[Input], options: &OpenOptions<'_>) -> Result<Loaded> {
    load(inputs, options, &NoMaterials, &[])
}

/// Tracks from `inputs` as `options` say, libraries among the inputs first,
/// then from `options.materials` or else `default`; the MEMG motions of the
/// inputs `index` marks indexed rather than decoded.
fn load(
    inputs: &[Input],
    options: &OpenOptions<'_>,
    default: &dyn Materials,
    index: &[bool],
) -> Result<Loaded> {
    let rest = options.materials.unwrap_or(default);
    let chain = Chain(InputMaterials(inputs), rest);
    let rules = Rules {
        archives: options.archives,
        index_memg: index,
        lone_scenes: options.lone_scenes,
    };
    let decoded = load_inputs_as(inputs, &chain, rules)?;
    Ok(Loaded {
        tracks: decoded.tracks,
        scenes: decoded.scenes,
        warnings: decoded.warnings,
        #[cfg(not(target_arch = "wasm32"))]
        mapped: Vec::new(),
    })
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
    open_with([path.as_ref()], &options)
}

/// Opens one file held in memory ([`open_with`] with its defaults); `name`
/// is what errors and the track call it. A MEMG motion needs its `.obj`:
/// give both to [`open_with`].
///
/// ```
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/hands.mrtk"))?;
/// let loaded = motion_viewer::open_bytes("hands.mrtk", bytes)?;
/// assert!(matches!(loaded.tracks[0], motion_viewer::Track::InputAnimation { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`open_with`]'s.
pub fn open_bytes(name: impl Into<PathBuf>, bytes: Vec<u8>) -> Result<Loaded> {
    open_with([(name.into(), bytes)], &OpenOptions::default())
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
        let paths = [
            sample("flags.obj"),
            sample("flags.bin"),
            sample("hands.mrtk"),
        ];
        let both = open_with(&paths, &OpenOptions::default()).unwrap();
        assert_eq!(both.tracks.len(), 2);
        let bytes = std::fs::read(sample("flags.obj")).unwrap();
        let motion = std::fs::read(sample("flags.bin")).unwrap();
        let mtl = std::fs::read(sample("flags.mtl")).unwrap();
        let memory = open_with(
            [
                ("flags.obj", bytes),
                ("flags.bin", motion),
                ("flags.mtl", mtl),
            ],
            &OpenOptions::default(),
        )
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

    #[test]
    fn bytes_find_no_library_on_disk_but_a_path_does() {
        // data/flags.obj names flags.mtl, which lies beside it on disk.
        let obj = sample("flags.obj");
        let motion = std::fs::read(sample("flags.bin")).unwrap();
        let default = OpenOptions::default();
        let memory = [
            Source::from((obj.clone(), std::fs::read(&obj).unwrap())),
            Source::from(("flags.bin", motion)),
        ];
        let loaded = open_with(memory, &default).unwrap();
        let Track::Memg { scene, .. } = &loaded.tracks[0] else {
            panic!("a MEMG track");
        };
        assert!(scene.materials.is_empty(), "no library read for bytes");
        assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
        assert!(
            loaded.warnings[0].contains("flags.mtl is not among the files given"),
            "{:?}",
            loaded.warnings
        );
        let disk = open_with([obj, sample("flags.bin")], &default).unwrap();
        let Track::Memg { scene, .. } = &disk.tracks[0] else {
            panic!("a MEMG track");
        };
        assert!(!scene.materials.is_empty(), "the library beside the .obj");
    }

    #[test]
    fn a_lone_scene_opens_only_when_asked() {
        let obj = sample("flags.obj");
        let e = open_with([&obj], &OpenOptions::default()).unwrap_err();
        assert!(e.to_string().contains("needs a MEMG motion"), "{e}");
        let options = OpenOptions {
            lone_scenes: true,
            ..OpenOptions::default()
        };
        let loaded = open_with([&obj], &options).unwrap();
        assert!(loaded.tracks.is_empty());
        let [(path, scene)] = &loaded.scenes[..] else {
            panic!("one scene, got {}", loaded.scenes.len());
        };
        assert_eq!(path, &obj);
        // The same scene a MEMG track of flags.bin is given.
        let paired = open(sample("flags.bin")).unwrap();
        let Track::Memg { scene: with, .. } = &paired.tracks[0] else {
            panic!("a MEMG track");
        };
        assert_eq!(scene.positions, with.positions);
        assert_eq!(scene.materials.len(), with.materials.len());
    }

    #[test]
    fn an_entry_is_opened_from_every_archive_given() {
        let pack = archive::test_archive();
        let options = OpenOptions {
            entry: Some("SLEEP_SIT"),
            ..OpenOptions::default()
        };
        let loaded = open_with([("pack.ODA", pack)], &options).unwrap();
        let names: Vec<String> = loaded.tracks.iter().map(Track::name).collect();
        assert_eq!(names, ["sleep_sit"]);
        assert_eq!(loaded.tracks[0].path(), Path::new("pack.ODA:sleep_sit"));
        let seed = std::fs::read(sample("skitter_sleep_to_sit.mtn")).unwrap();
        let e = open_with([("seed.mtn", seed)], &options).unwrap_err();
        assert!(e.to_string().starts_with("seed.mtn"), "{e}");
    }
}
