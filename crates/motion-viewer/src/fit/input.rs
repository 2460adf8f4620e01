//! What a fit reads: the groups of a scene `.obj`, and its animation as a
//! point cache (`.pc2`, Blender's and 3ds Max's) or as a sequence of `.obj`
//! files that keep the scene's vertex order. Every file is read through the
//! front door's rules ([`mod@crate::open`]); a `.pc2` is decoded by
//! [`crate::formats::pc2`]. A point cache has no clock: the frame rate is
//! the caller's (`--fps`).

use super::FitGroup;
use crate::error::{DecodeError, Error, Result};
use crate::formats::obj::{self, ObjScene};
use crate::formats::pc2::{MAGIC, is_pc2};
use crate::open::{Input, head};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// The groups a fit gives the scene: one per `.obj` group that has faces,
/// in the file's order, moving every vertex its faces use (so a vertex on a
/// seam between two groups is in both). Vertices no face uses join the
/// first group; a warning says how many. Fails for a scene without faces,
/// with an [`Error::Mismatch`] naming `scene_path`.
pub fn groups_of(scene: &ObjScene, scene_path: &Path) -> Result<(Vec<FitGroup>, Vec<String>)> {
    let v = scene.positions.len();
    let mut used = vec![false; v];
    let mut groups: Vec<FitGroup> = Vec::new();
    for g in &scene.groups {
        let mut vertices: Vec<u32> = scene.triangles[g.triangles.clone()]
            .iter()
            .flatten()
            .copied()
            .collect();
        vertices.sort_unstable();
        vertices.dedup();
        if vertices.is_empty() {
            continue;
        }
        for &i in &vertices {
            used[i as usize] = true;
        }
        groups.push(FitGroup {
            name: g.name.clone(),
            vertices,
        });
    }
    let Some(first) = groups.first_mut() else {
        return Err(Error::mismatch(
            scene_path,
            "has no faces, so no groups to fit: a fit needs the .obj's faces (its g groups)",
        ));
    };
    let loose: Vec<u32> = (0..v as u32).filter(|&i| !used[i as usize]).collect();
    let mut warnings = Vec::new();
    if !loose.is_empty() {
        warnings.push(format!(
            "{} vertices no face uses (the first: {}) are fitted in group '{}'",
            loose.len(),
            loose[0] + 1,
            first.name
        ));
        first.vertices.extend(&loose);
        first.vertices.sort_unstable();
    }
    Ok((groups, warnings))
}

/// Where an animation is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnimationSource {
    /// A point cache.
    Pc2(PathBuf),
    /// `.obj` files, one per frame, in this order.
    Objs(Vec<PathBuf>),
}

impl AnimationSource {
    /// What the command line names: one `.pc2` (told by its content); a
    /// folder (its `.obj` files); a pattern with `{}` or `{:0N}` for the
    /// frame number in the file name (`frames/f{:04}.obj`: the files that
    /// match, in the order of their numbers, none missing between the
    /// first and the last); or `.obj` files. Files from a folder or
    /// given several are taken in natural order of their names (`f2`
    /// before `f10`). Only regular files are read (a named pipe would block).
    pub fn from_args(args: &[PathBuf]) -> Result<AnimationSource> {
        match args {
            [] => Err(Error::unsupported(
                "ANIMATION",
                "no animation given: a .pc2, a folder of .obj frames, a pattern or .obj files",
            )),
            [one] => {
                let text = one.to_string_lossy();
                if text.contains('{') {
                    return numbered(&text).map(AnimationSource::Objs);
                }
                if one.is_dir() {
                    let mut files: Vec<PathBuf> = std::fs::read_dir(one)
                        .map_err(|e| Error::io(one, e))?
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| {
                            p.is_file()
                                && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("obj"))
                        })
                        .collect();
                    if files.is_empty() {
                        return Err(Error::mismatch(one, "a folder with no .obj files"));
                    }
                    natural_order(&mut files);
                    return Ok(AnimationSource::Objs(files));
                }
                if is_pc2(&head(one, MAGIC.len())?.0) {
                    Ok(AnimationSource::Pc2(one.clone()))
                } else {
                    Ok(AnimationSource::Objs(vec![one.clone()]))
                }
            }
            many => {
                let mut files = many.to_vec();
                for f in &files {
                    if is_pc2(&head(f, MAGIC.len())?.0) {
                        return Err(Error::unsupported(
                            f,
                            "a .pc2 among several files: give one .pc2, or .obj frames",
                        ));
                    }
                }
                natural_order(&mut files);
                Ok(AnimationSource::Objs(files))
            }
        }
    }

    /// The files read.
    pub fn files(&self) -> Vec<PathBuf> {
        match self {
            AnimationSource::Pc2(p) => vec![p.clone()],
            AnimationSource::Objs(files) => files.clone(),
        }
    }
}

/// The files of a numbered pattern: `{}` (the frame number as written,
/// any digits) or `{:0N}` (zero-padded to N digits) in the file name, the
/// folder's files that match it in the order of their numbers, from the
/// smallest; a number missing in between is an error naming it.
fn numbered(pattern: &str) -> Result<Vec<PathBuf>> {
    let path = Path::new(pattern);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let refuse = |why: String| Error::unsupported(pattern, why);
    let (Some(open), Some(close)) = (name.find('{'), name.find('}')) else {
        return Err(refuse(
            "a pattern takes {} or {:0N} for the frame number in the file name".into(),
        ));
    };
    if close < open {
        return Err(refuse(
            "a pattern takes {} or {:0N}, braces in that order".into(),
        ));
    }
    let spec = &name[open + 1..close];
    let width = match spec {
        "" => None,
        s => Some(
            s.strip_prefix(":0")
                .and_then(|w| w.parse::<usize>().ok())
                .filter(|&w| (1..=20).contains(&w))
                .ok_or_else(|| {
                    refuse(format!(
                        "{{{spec}}}: a pattern takes {{}} or {{:0N}} (zero-padded to N digits)"
                    ))
                })?,
        ),
    };
    let (before, after) = (&name[..open], &name[close + 1..]);
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let entries = std::fs::read_dir(&folder).map_err(|e| Error::io(&folder, e))?;
    let mut frames: Vec<(u64, PathBuf)> = Vec::new();
    for entry in entries.filter_map(std::result::Result::ok) {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(digits) = file
            .strip_prefix(before)
            .and_then(|rest| rest.strip_suffix(after))
        else {
            continue;
        };
        let fits = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && width.is_none_or(|w| digits.len() == w);
        if let (true, Ok(number)) = (fits, digits.parse::<u64>()) {
            frames.push((number, entry.path()));
        }
    }
    frames.sort();
    let Some(&(first, _)) = frames.first() else {
        return Err(Error::mismatch(
            pattern,
            format!("no file in {} matches the pattern", folder.display()),
        ));
    };
    for (k, (number, _)) in frames.iter().enumerate() {
        let expected = first + k as u64;
        if *number != expected {
            return Err(Error::mismatch(
                pattern,
                format!(
                    "frames {first}..={} then {number}: frame {expected} is missing",
                    expected - 1
                ),
            ));
        }
    }
    Ok(frames.into_iter().map(|(_, p)| p).collect())
}

/// Sorts paths by file name, runs of digits compared as numbers.
pub(crate) fn natural_order(paths: &mut [PathBuf]) {
    fn key(p: &Path) -> Vec<(String, u128)> {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut digits = String::new();
        for c in name.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
            } else {
                if !digits.is_empty() {
                    parts.push((
                        std::mem::take(&mut text),
                        digits.parse().unwrap_or(u128::MAX),
                    ));
                    digits.clear();
                }
                text.push(c);
            }
        }
        parts.push((text, digits.parse().unwrap_or(0)));
        parts
    }
    paths.sort_by_cached_key(|p| (key(p), p.clone()));
}

/// The positions of `files`, one frame each, every file an `.obj` of the
/// scene's `vertices` vertices in its order: `frames × vertices × 3`.
/// Read on every core. The error names the file: one that does not
/// parse, a vertex count unlike the scene's, a coordinate that is not finite.
pub(crate) fn read_obj_frames(files: &[PathBuf], vertices: usize) -> Result<Vec<f32>> {
    // The frames' positions, allocated once (a failure is an error, not an
    // abort) and filled in place as each file is decoded.
    let per = 3 * vertices;
    let total = per.saturating_mul(files.len());
    let mut held: Vec<f32> = Vec::new();
    if held.try_reserve_exact(total).is_err() {
        return Err(Error::OutOfMemory {
            path: files.first().cloned().unwrap_or_default(),
            what: format!(
                "the positions of {} frames of {vertices} vertices",
                files.len()
            ),
            need: crate::budget::shown(4 * total as u64),
            why: "the allocation failed".into(),
            hint: "fit fewer frames".into(),
        });
    }
    held.resize(total, 0.0);
    held.par_chunks_mut(per.max(1))
        .zip(files.par_iter())
        .try_for_each(|(slot, file)| {
            let bytes = Input::read(file)?.data;
            let positions = obj::decode(&bytes).map_err(|e| Error::decode(file, e))?.positions;
            if positions.len() != vertices {
                return Err(Error::mismatch(
                    file,
                    format!(
                        "has {} vertices; the scene has {vertices} (a frame must keep the scene's vertices, in its order)",
                        positions.len()
                    ),
                ));
            }
            if let Some(k) = positions.iter().position(|p| p.iter().any(|x| !x.is_finite())) {
                let axis = positions[k].iter().position(|x| !x.is_finite()).unwrap_or(0);
                return Err(Error::decode(
                    file,
                    DecodeError::new(
                        format!("vertex {} coordinate {axis}", k + 1),
                        vertex_line(&bytes, k) as u64,
                        "a finite number",
                        positions[k][axis].to_string(),
                    ),
                ));
            }
            for (out, p) in slot.chunks_exact_mut(3).zip(&positions) {
                out.copy_from_slice(p);
            }
            Ok(())
        })?;
    Ok(held)
}

/// The byte offset of the `k`-th (0-based) `v` line of `.obj` bytes.
fn vertex_line(bytes: &[u8], k: usize) -> usize {
    let mut offset = 0;
    let mut seen = 0;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let trimmed = line.trim_ascii_start();
        if trimmed.starts_with(b"v ") || trimmed.starts_with(b"v\t") {
            if seen == k {
                return offset + (line.len() - trimmed.len());
            }
            seen += 1;
        }
        offset += line.len();
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn numbers_in_names_sort_as_numbers() {
        let mut p: Vec<PathBuf> = ["s10.obj", "s2.obj", "s1.obj", "a.obj"]
            .iter()
            .map(PathBuf::from)
            .collect();
        natural_order(&mut p);
        let names: Vec<_> = p.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["a.obj", "s1.obj", "s2.obj", "s10.obj"]);
    }

    #[test]
    fn seams_belong_to_both_groups_and_loose_vertices_to_the_first() {
        let scene = obj::decode(
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 5 5 5\ng a\nf 1 2 3\ng b\nf 2 4 3\n",
        )
        .unwrap();
        let (groups, warnings) = groups_of(&scene, Path::new("a.obj")).unwrap();
        assert_eq!(
            groups[0],
            FitGroup {
                name: "a".into(),
                vertices: vec![0, 1, 2, 4]
            }
        );
        assert_eq!(
            groups[1],
            FitGroup {
                name: "b".into(),
                vertices: vec![1, 2, 3]
            }
        );
        assert!(
            warnings[0].starts_with("1 vertices no face uses (the first: 5)"),
            "{warnings:?}"
        );
        assert!(groups_of(&obj::decode(b"v 0 0 0\n").unwrap(), Path::new("a.obj")).is_err());
    }
}
