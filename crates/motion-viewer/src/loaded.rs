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

#[cfg(not(target_arch = "wasm32"))]
use crate::error::Error;
use crate::error::Result;
#[cfg(not(target_arch = "wasm32"))]
use crate::formats::{self, Kind};
pub use crate::scene::Input;
use crate::scene::{Archives, InputMaterials, Track, load_inputs_with};
use std::path::{Path, PathBuf};

/// What [`open`] and its siblings give back: the tracks, in the order the
/// files were given (a MEMG track where its motion file stands; an archive's
/// motions in archive order), and the warnings of loading them.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The tracks.
    pub tracks: Vec<Track>,
    /// What went less well than asked, one line per cause, each naming its
    /// file: a material library that could not be read, a motion longer than
    /// the viewer plays… A decoder's own findings about a file stay with the
    /// decoded value (`Mtn::warnings`, `MemgMotion::warnings`,
    /// `InputAnimation::warnings`); [`Loaded::all_warnings`] gives both.
    pub warnings: Vec<String>,
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

    /// The first track, or an error naming `what` when there is none.
    pub fn first(&self) -> Option<&Track> {
        self.tracks.first()
    }
}

/// Opens one file: a motion, `ARCHIVE.ODA:NAME` (one entry), an ODA archive
/// (every motion entry, in archive order) or a MEMG motion, whose `.obj`
/// scene is the file of the same stem beside it (`flags.bin` →
/// `flags.obj`). Large files are memory-mapped while they are decoded.
///
/// # Errors
/// An [`Error`] naming the file: unreadable, of no known format, a decoding
/// error (field, offset, expected, found), or a MEMG motion with no `.obj`
/// beside it.
#[cfg(not(target_arch = "wasm32"))]
pub fn open(path: impl AsRef<Path>) -> Result<Loaded> {
    let path = path.as_ref();
    let mut inputs = vec![Input::read(path)?];
    if inputs[0].entry.is_none() && formats::probe(&inputs[0].data) == Some(Kind::MemgMotion) {
        let obj = path.with_extension("obj");
        if obj.is_file() {
            inputs.insert(0, Input::read(&obj)?);
        } else {
            return Err(Error::mismatch(
                path,
                format!(
                    "a MEMG motion needs its .obj scene, and {} is not there; open both with open_all",
                    obj.display()
                ),
            ));
        }
    }
    load(inputs, &crate::scene::DiskMaterials)
}

/// Opens several files as one set: each MEMG motion takes the `.obj` of the
/// same stem among them, else the nearest before it, else the nearest after
/// it; `.mtl` libraries are read from beside their `.obj`. An ODA archive
/// given whole opens every motion entry.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_all<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Result<Loaded> {
    let inputs = paths
        .into_iter()
        .map(|p| Input::read(p.as_ref()))
        .collect::<Result<Vec<_>>>()?;
    load(inputs, &crate::scene::DiskMaterials)
}

/// Opens the entry called `entry` of the ODA archive at `archive` (by exact
/// name, else the one entry whose name matches ignoring case).
#[cfg(not(target_arch = "wasm32"))]
pub fn open_entry(archive: impl AsRef<Path>, entry: &str) -> Result<Loaded> {
    let input = Input::read(archive.as_ref())?.with_entry(entry);
    load(vec![input], &crate::scene::DiskMaterials)
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
    load(vec![input], &NoMaterials)
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
    load(inputs, &NoMaterials)
}

/// Material libraries come from the inputs alone.
struct NoMaterials;

impl crate::scene::Materials for NoMaterials {
    fn read(&self, _: &Path, lib: &str) -> std::result::Result<Vec<u8>, String> {
        Err(format!("{lib} is not among the files given"))
    }
}

/// Loads `inputs`, materials from among them first and then from `rest`.
fn load(inputs: Vec<Input>, rest: &dyn crate::scene::Materials) -> Result<Loaded> {
    struct Chain<'a>(InputMaterials<'a>, &'a dyn crate::scene::Materials);
    impl crate::scene::Materials for Chain<'_> {
        fn read(&self, obj: &Path, lib: &str) -> std::result::Result<Vec<u8>, String> {
            self.0.read(obj, lib).or_else(|_| self.1.read(obj, lib))
        }
    }
    let chain = Chain(InputMaterials(&inputs), rest);
    let (tracks, warnings) = load_inputs_with(&inputs, &chain, Archives::EveryMotion)?;
    Ok(Loaded { tracks, warnings })
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
