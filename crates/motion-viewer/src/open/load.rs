//! Tracks from [`Input`]s: each told by its content, never its extension,
//! and paired.
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

use super::archive::{self, Archives};
use super::input::Input;
#[cfg(not(target_arch = "wasm32"))]
use super::input::InputData;
use super::materials::Materials;
use crate::anim::timeline::MAX_DURATION_S;
use crate::error::{EntryProblem, Error, Result};
use crate::formats::{self, Kind, input_animation, memg, mtn, obj};
use crate::scene::Track;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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

/// How [`load_inputs_as`] settles what the files alone do not.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Rules<'a> {
    /// What an archive given without an entry gives.
    pub archives: Archives,
    /// The inputs whose MEMG motion is indexed, not decoded.
    pub index_memg: &'a [bool],
    /// An `.obj` that no motion takes is a scene of its own rather than an
    /// error.
    pub lone_scenes: bool,
}

/// What [`load_inputs_as`] made of its inputs.
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    /// The tracks, in input order.
    pub tracks: Vec<Track>,
    /// With [`Rules::lone_scenes`]: each `.obj` no motion took, with its path.
    pub scenes: Vec<(PathBuf, Arc<obj::ObjScene>)>,
    /// The warnings of loading, each naming its file.
    pub warnings: Vec<String>,
}

/// [`load_inputs_as`] with bare archives refused and every MEMG decoded
/// (the unit tests' shorthand).
#[cfg(test)]
pub(crate) fn load_inputs(
    inputs: &[Input],
    materials: &dyn Materials,
) -> Result<(Vec<Track>, Vec<String>)> {
    let decoded = load_inputs_as(inputs, materials, Rules::default())?;
    Ok((decoded.tracks, decoded.warnings))
}

/// Decodes and pairs `inputs` into tracks, in input order (a MEMG track
/// stands where its motion file does), with the warnings of loading
/// (materials that could not be read…), each naming its file. Bare archives
/// are handled as `rules.archives` says; a MEMG motion whose input
/// `rules.index_memg` marks is indexed, not decoded (everything but the
/// groups' mean poses and bases, which stay empty: the caller reads them
/// from the file). A memory-mapped input that changed on disk while it was
/// read fails the load ([`InputData::check`]), whatever its bytes decoded to.
pub(crate) fn load_inputs_as(
    inputs: &[Input],
    materials: &dyn Materials,
    rules: Rules<'_>,
) -> Result<Decoded> {
    let loaded = decode_inputs(inputs, materials, rules);
    for input in inputs {
        input.data.check()?;
    }
    loaded
}

/// [`load_inputs_as`] before its check of mapped inputs.
fn decode_inputs(inputs: &[Input], materials: &dyn Materials, rules: Rules<'_>) -> Result<Decoded> {
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
                for entry in archive::chosen(&input.path, selector, &entries, rules.archives)? {
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
                    bytes if rules.index_memg.get(i) == Some(&true) => {
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
    let mut scenes = Vec::new();
    for &j in objs.iter().filter(|&&j| !used[j]) {
        if !rules.lone_scenes {
            return Err(Error::mismatch(
                &inputs[j].path,
                "an .obj scene needs a MEMG motion file given with it",
            ));
        }
        let (scene, obj_warnings) = decode_obj(&inputs[j], materials)?;
        warnings.extend(obj_warnings);
        scenes.push((inputs[j].path.clone(), Arc::new(scene)));
    }
    Ok(Decoded {
        tracks,
        scenes,
        warnings,
    })
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
