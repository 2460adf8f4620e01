//! Loading tracks from the files a user gives: by content, never by extension.
//!
//! [`load_inputs`] works on bytes alone — named byte buffers, as a web page
//! or a fuzzer hands them over — and [`load`] is a thin wrapper that reads
//! paths from disk (memory-mapping the large ones) and then calls it.
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
use crate::error::{Error, Result};
use crate::formats::{self, Kind, input_animation, memg, mtn, obj};
use std::path::{Path, PathBuf};

/// The most bytes a material library may have; beyond it the library is a
/// warning and the mesh draws in its default colour.
pub const MAX_MATERIAL_BYTES: u64 = 16 << 20;

/// The bytes of one input file.
#[derive(Debug)]
pub enum InputData {
    /// Bytes in memory.
    Bytes(Vec<u8>),
    /// A read-only memory map of the file (large MEMG motions are read once,
    /// straight from the page cache).
    #[cfg(not(target_arch = "wasm32"))]
    Mapped(memmap2::Mmap),
}

impl InputData {
    /// Drops the pages of a memory-mapped input from this process's resident
    /// memory once it has been decoded (they stay in the page cache and are
    /// read back if touched again); nothing for bytes held in memory.
    pub fn release(&self) {
        #[cfg(not(target_arch = "wasm32"))]
        if let InputData::Mapped(map) = self {
            memg::release(map, 0..map.len());
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
    pub fn with_entry(self, entry: impl Into<String>) -> Input {
        Input {
            entry: Some(entry.into()),
            ..self
        }
    }

    /// Reads (or, for a large file, maps) `path`; `ARCHIVE.ODA:NAME` reads
    /// the archive with the entry named. Only regular files are read: a pipe
    /// or device would block or never end.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read(path: &Path) -> Result<Input> {
        if let Some((archive, entry)) = archive::split_entry(path) {
            return Ok(Input::read(&archive)?.with_entry(entry));
        }
        const MAP_FROM_BYTES: u64 = 1 << 20;
        let io = |e| Error::io(path.display(), e);
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(Error::Invalid {
                file: path.display().to_string(),
                message: "not a regular file".into(),
            });
        }
        let data = if meta.len() >= MAP_FROM_BYTES {
            // SAFETY: the map is read-only. Another process truncating the
            // file while it is read could fault the read; that is the accepted
            // cost of memory-mapped input, as with any tool reading data files
            // this way.
            InputData::Mapped(unsafe { memmap2::Mmap::map(&file) }.map_err(io)?)
        } else {
            let mut bytes = Vec::with_capacity(meta.len() as usize);
            std::io::Read::read_to_end(&mut &file, &mut bytes).map_err(io)?;
            InputData::Bytes(bytes)
        };
        Ok(Input {
            path: path.to_path_buf(),
            data,
            entry: None,
        })
    }

    /// The file name without its folder, for matching and display.
    pub fn file_name(&self) -> String {
        file_name(&self.path)
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Where an `.obj`'s `mtllib` libraries come from.
pub trait Materials {
    /// The bytes of library `lib` named by the `.obj` at `obj_path`, or why
    /// it can't be had.
    fn read(&self, obj_path: &Path, lib: &str) -> std::result::Result<Vec<u8>, String>;
}

/// Libraries on disk, under the rules for files from strangers: only a
/// relative path inside the `.obj`'s folder (no `..`, not absolute), only a
/// regular file (never a pipe or device), at most [`MAX_MATERIAL_BYTES`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DiskMaterials;

#[cfg(not(target_arch = "wasm32"))]
impl Materials for DiskMaterials {
    fn read(&self, obj_path: &Path, lib: &str) -> std::result::Result<Vec<u8>, String> {
        use std::io::Read;
        use std::path::Component;
        let relative = Path::new(lib);
        if !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(
                "not read: only a path relative to the .obj's folder, without '..', is followed"
                    .into(),
            );
        }
        let path = obj_path.parent().unwrap_or(Path::new("")).join(relative);
        let meta = std::fs::metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!("{}: not a regular file; not read", path.display()));
        }
        if meta.len() > MAX_MATERIAL_BYTES {
            return Err(format!(
                "{}: {} bytes, more than the {MAX_MATERIAL_BYTES} a material library may have",
                path.display(),
                meta.len()
            ));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(MAX_MATERIAL_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if bytes.len() as u64 > MAX_MATERIAL_BYTES {
            return Err(format!(
                "{}: grew past {MAX_MATERIAL_BYTES} bytes while read",
                path.display()
            ));
        }
        Ok(bytes)
    }
}

#[cfg(target_arch = "wasm32")]
impl Materials for DiskMaterials {
    fn read(&self, _: &Path, _: &str) -> std::result::Result<Vec<u8>, String> {
        Err("no file system here; add the .mtl to the files".into())
    }
}

/// Libraries among a set of inputs, found by file name (the `.mtl` dropped
/// into a web page beside its `.obj`).
#[derive(Debug, Clone, Copy)]
pub struct InputMaterials<'a>(pub &'a [Input]);

impl Materials for InputMaterials<'_> {
    fn read(&self, _: &Path, lib: &str) -> std::result::Result<Vec<u8>, String> {
        let wanted = file_name(Path::new(lib));
        self.0
            .iter()
            .find(|i| i.file_name() == wanted)
            .map(|i| i.data.to_vec())
            .filter(|b| b.len() as u64 <= MAX_MATERIAL_BYTES)
            .ok_or_else(|| format!("{wanted} is not among the files given"))
    }
}

/// Reads `paths` from disk and loads them with [`load_inputs`]; material
/// libraries come from disk under [`DiskMaterials`]' rules. An archive given
/// without an entry is refused with a list of its entries ([`Archives::Ask`]).
#[cfg(not(target_arch = "wasm32"))]
pub fn load(paths: &[PathBuf]) -> Result<Vec<Track>> {
    load_with(paths, Archives::Ask)
}

/// [`load`], with bare archives handled as `archives` says.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_with(paths: &[PathBuf], archives: Archives) -> Result<Vec<Track>> {
    let inputs = paths
        .iter()
        .map(|p| Input::read(p))
        .collect::<Result<Vec<_>>>()?;
    let (tracks, warnings) = load_inputs_with(&inputs, &DiskMaterials, archives)?;
    for w in warnings {
        eprintln!("viewer: warning: {w}");
    }
    Ok(tracks)
}

/// Loads one `.obj` scene from disk with its materials (under
/// [`DiskMaterials`]' rules), returning the warnings beside it.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_obj(path: &Path) -> Result<(obj::ObjScene, Vec<String>)> {
    let input = Input::read(path)?;
    decode_obj(&input, &DiskMaterials)
}

fn decode_obj(input: &Input, materials: &dyn Materials) -> Result<(obj::ObjScene, Vec<String>)> {
    let mut warnings = Vec::new();
    let reader = |lib: &str| materials.read(&input.path, lib);
    let scene = obj::decode(&input.data, Some(&reader), &mut warnings)
        .map_err(|e| Error::decode(input.path.display(), e))?;
    let warnings = warnings
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
                file: input.path.display().to_string(),
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

/// Decodes and pairs `inputs` into tracks, in input order (a MEMG track
/// stands where its motion file does). Returns the tracks and the warnings
/// of loading (materials that could not be read…), each naming its file.
/// An archive without an entry is refused ([`Archives::Ask`]).
pub fn load_inputs(
    inputs: &[Input],
    materials: &dyn Materials,
) -> Result<(Vec<Track>, Vec<String>)> {
    load_inputs_with(inputs, materials, Archives::Ask)
}

/// [`load_inputs`], with bare archives handled as `archives` says.
pub fn load_inputs_with(
    inputs: &[Input],
    materials: &dyn Materials,
    archives: Archives,
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
        let decode_error = |e| Error::decode(input.path.display(), e);
        if input.entry.is_some() && *kind != Kind::Oda {
            return Err(Error::Invalid {
                file: input.path.display().to_string(),
                message: format!(
                    "not an ODA archive, so it has no entry {:?}",
                    input.entry.as_deref().unwrap_or_default()
                ),
            });
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
                for entry in archive::chosen(input, &entries, archives)? {
                    tracks.push(entry_track(input, entry)?);
                }
            }
            Kind::InputAnimation => tracks.push(Track::InputAnimation {
                recording: Box::new(input_animation::decode(&input.data).map_err(decode_error)?),
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
                    return Err(Error::Invalid {
                        file: path.display().to_string(),
                        message: "a MEMG motion needs its .obj scene: give the .obj with it".into(),
                    });
                };
                used[j] = true;
                let (scene, obj_warnings) = decode_obj(&inputs[j], materials)?;
                inputs[j].data.release();
                warnings.extend(obj_warnings);
                // A mapped motion is decoded with its pages dropped behind the
                // decoder: the file is never resident whole beside its arrays.
                let motion = match &input.data {
                    #[cfg(not(target_arch = "wasm32"))]
                    InputData::Mapped(map) => memg::decode_mmap(map),
                    bytes => memg::decode(bytes),
                }
                .map_err(decode_error)?;
                tracks.push(Track::Memg {
                    obj_path: inputs[j].path.clone(),
                    motion_path: path,
                    scene,
                    motion,
                });
            }
        }
    }
    if let Some(&j) = objs.iter().find(|&&j| !used[j]) {
        return Err(Error::Invalid {
            file: inputs[j].path.display().to_string(),
            message: "an .obj scene needs a MEMG motion file given with it".into(),
        });
    }
    Ok((tracks, warnings))
}

/// The track of one archive entry, named `ARCHIVE:ENTRY`.
fn entry_track(input: &Input, entry: &mtn::OdaEntry) -> Result<Track> {
    let path = archive::entry_path(&input.path, &entry.name);
    let bytes = &input.data[entry.data.clone()];
    if !entry.is_motion() || formats::probe(bytes) != Some(Kind::Mtn) {
        return Err(Error::Invalid {
            file: path.display().to_string(),
            message: format!("a {} entry, not a motion", entry.kind_name()),
        });
    }
    Ok(Track::Mtn {
        motion: mtn::decode(bytes).map_err(|e| Error::decode(path.display(), e))?,
        path,
        entry: Some(entry.name.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Materials handed over as a fixed map, for tests.
    struct Fixed;
    impl Materials for Fixed {
        fn read(&self, _: &Path, lib: &str) -> std::result::Result<Vec<u8>, String> {
            match lib {
                "a.mtl" => Ok(b"newmtl red\nKd 1 0 0\n".to_vec()),
                _ => Err("missing".into()),
            }
        }
    }

    fn memg_bytes() -> Vec<u8> {
        let motion = memg::MemgMotion {
            fps: 30,
            timesteps: 1,
            ..Default::default()
        };
        memg::encode(&motion, crate::formats::bytes::ByteOrder::Little)
    }

    #[test]
    fn pairs_by_stem_then_nearest() {
        let obj = b"mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n".to_vec();
        let inputs = vec![
            Input::from_bytes("one.obj", obj.clone()),
            Input::from_bytes("two.obj", obj),
            Input::from_bytes("two.bin", memg_bytes()),
            Input::from_bytes("x.bin", memg_bytes()),
        ];
        let (tracks, warnings) = load_inputs(&inputs, &Fixed).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let objs: Vec<_> = tracks
            .iter()
            .map(|t| match t {
                Track::Memg {
                    obj_path, scene, ..
                } => {
                    assert_eq!(scene.materials[0].diffuse, [1.0, 0.0, 0.0]);
                    obj_path.display().to_string()
                }
                _ => panic!("not MEMG"),
            })
            .collect();
        // two.bin takes two.obj by its stem; x.bin the nearest free one before it.
        assert_eq!(objs, ["two.obj", "one.obj"]);
    }

    #[test]
    fn unread_material_is_a_warning_naming_the_obj() {
        let obj = b"mtllib gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec();
        let inputs = vec![
            Input::from_bytes("s.obj", obj),
            Input::from_bytes("s.bin", memg_bytes()),
        ];
        let (_, warnings) = load_inputs(&inputs, &Fixed).unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("s.obj: material library gone.mtl: missing"));
    }

    #[test]
    fn lone_obj_and_lone_motion_are_errors() {
        let obj = b"v 0 0 0\n".to_vec();
        let e = load_inputs(&[Input::from_bytes("s.obj", obj)], &Fixed).unwrap_err();
        assert!(e.to_string().contains("s.obj"), "{e}");
        let e = load_inputs(&[Input::from_bytes("m.bin", memg_bytes())], &Fixed).unwrap_err();
        assert!(e.to_string().contains("needs its .obj"), "{e}");
    }

    #[test]
    fn materials_among_inputs_by_file_name() {
        let inputs = vec![Input::from_bytes(
            "dir/a.mtl",
            b"newmtl m\nKd 0 1 0\n".to_vec(),
        )];
        let found = InputMaterials(&inputs).read(Path::new("x.obj"), "sub/a.mtl");
        assert_eq!(found.unwrap(), b"newmtl m\nKd 0 1 0\n");
        assert!(
            InputMaterials(&inputs)
                .read(Path::new("x.obj"), "b.mtl")
                .is_err()
        );
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn disk_materials_follow_only_plain_relative_files() {
        let dir = tempfile::tempdir().unwrap();
        let obj = dir.path().join("s.obj");
        std::fs::write(dir.path().join("a.mtl"), b"newmtl m\n").unwrap();
        assert_eq!(DiskMaterials.read(&obj, "a.mtl").unwrap(), b"newmtl m\n");
        assert_eq!(DiskMaterials.read(&obj, "./a.mtl").unwrap(), b"newmtl m\n");
        for bad in ["/dev/zero", "../a.mtl", "sub/../../a.mtl"] {
            let e = DiskMaterials.read(&obj, bad).unwrap_err();
            assert!(e.contains("relative"), "{bad}: {e}");
        }
        // A folder (like a device or a pipe) is not a regular file.
        std::fs::create_dir(dir.path().join("d.mtl")).unwrap();
        assert!(
            DiskMaterials
                .read(&obj, "d.mtl")
                .unwrap_err()
                .contains("not a regular file")
        );
        // Over the size cap.
        let big = std::fs::File::create(dir.path().join("big.mtl")).unwrap();
        big.set_len(MAX_MATERIAL_BYTES + 1).unwrap();
        assert!(
            DiskMaterials
                .read(&obj, "big.mtl")
                .unwrap_err()
                .contains("more than")
        );
    }
}
