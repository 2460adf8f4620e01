//! glTF 2.0 export: every track of a scene in one animated glTF scene, on
//! one timeline (seconds from the start; a track that ends early holds its
//! last pose), each track under a root node named for it and placed by the
//! [`Plan`] given: [`Plan::unplaced`] keeps each file's own coordinates (a
//! MEMG mesh where its `.obj` puts it, an AIBO body frame at the origin, an
//! MRTK recording in its recording's world), [`Plan::with_layout`] stands
//! them as the viewer does. World axes are the viewer's, which are glTF's:
//! metres (a MEMG scene keeps its `.obj` units), right-handed, y up.
//!
//! - **MEMG**, reduced (the default): the motion's own model, no frame
//!   baked (below). Baked ([`GltfOptions::baked`], `--baked`): a plain mesh
//!   per timestep, each node shown (scale 1) only from its timestep to the
//!   next by a STEP scale channel.
//! - **AIBO `.mtn`**: the viewer's stick figure on a node per joint of the
//!   rig, named by the PRM joint names, servo rotations animated.
//! - **MRTK**: head camera, gaze ray, 2 × 27 hand joints, sampled at 60 Hz.
//!
//! One glTF animation, `motion`, holds every channel. Everything is LINEAR
//! (rotations slerp) but visibility, which is STEP.
//!
//! # MEMG, reduced
//!
//! Each bound group that owns triangles is a mesh on a node named for the
//! group: one morph target per basis column of `U`, weights driven by `Q`
//! (a key per timestep), the node moved by the group's parent frame `T_Wk`
//! (translation, rotation, scale per timestep; a frame that is not a
//! rotation and a positive scale within 1e-6 is refused with a hint to use
//! `--baked`). Triangles no bound group moves form the `static` mesh.
//! Normals make the first timestep smooth-shaded; `.mtl` diffuse colours
//! become `baseColorFactor`, `.obj` texture coordinates `TEXCOORD_0`.
//!
//! Blender's importer clamps morph weights to [0, 1], so weights are
//! re-parameterised to stay there: with `lo_j`, `hi_j` column j of `Q`'s
//! minimum and maximum over the motion and `s_j = hi_j − lo_j` (1 for a
//! constant column), the file holds `base = p + Σ_j lo_j·U_j`,
//! `target_j = s_j·U_j` and `w_j(t) = (q_j(t) − lo_j) / s_j`.
//!
//! Quantized ([`GltfOptions::quantized`], `--quantize`; the file requires
//! `KHR_mesh_quantization`): each group's mesh sits on a node of its own
//! under the group's, named `GROUP (16-bit)`, whose translation and uniform
//! scale place its integers: positions and morph targets normalized `i16`
//! (the smaller targets `i8` within [`GltfOptions::tolerance`]), normals
//! `i8`, weights `u16`. Each target is stretched to fill its integers and
//! its weight shrunk by as much, so `s_j` above becomes `s_j·stretch_j`;
//! the largest distance the rounding moves a vertex is measured at every
//! vertex and timestep ([`GltfReport::quantization_error`]). With a
//! tolerance, a group's keys may be fewer than the timesteps where the
//! readers' blend between them stays within it (its weights and its own
//! frame keyed at the same times).
//!
//! # `extras`
//!
//! - A MEMG group's mesh: `targetNames` (`q0`, `q1`, …; Blender names its
//!   shape keys by them) and `memg`: `{group, parentFrame, lo, scale}`. To get
//!   the model back: `U_j = target_j / scale_j`, `q_j(t) = lo_j + scale_j·w_j(t)`,
//!   `p = base − Σ_j lo_j·U_j` (quantized: `base` as the mesh's node
//!   places it, its translation and scale applied, `target_j` scaled).
//! - Every MEMG primitive: `objVertices`, the 0-based `.obj` vertex of each
//!   of its vertices, as runs `[first, count]`.
//! - An AIBO joint or point node: `joint` (e.g. `left_front_j1`) and `point`
//!   (e.g. `left_front_paw`), either null; the track's root: `model`.
//! - An MRTK track's root: `markers` (`[{time, name}]`, seconds) and
//!   `pinching` (`{left, right}`: sampled `[start, end]` intervals, seconds).

mod accessors;
mod aibo;
mod baked;
mod container;
mod document;
mod keys;
mod memg;
mod memg_track;
mod mrtk;
mod obj_mesh;
mod quantized;
mod quantizer;
mod rounding;
mod shapes;

use std::path::{Path, PathBuf};

pub(crate) use container::companion_bin;

use crate::error::{Error, Result};
use crate::export::Format;
use crate::open::check_not_input;
use crate::scene::Track;
use crate::scene::plan::{Plan, bind};
use document::Document;
use shapes::Shapes;

/// How to write the tracks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GltfOptions {
    /// MEMG scenes as a plain mesh per timestep instead of morph targets.
    pub baked: bool,
    /// The rate MRTK recordings are sampled at (`--fps`; default their
    /// own 60 Hz). AIBO keys and MEMG timesteps are the files' own: a glTF
    /// reader interpolates between them by the same rule the viewer does.
    pub fps: Option<f64>,
    /// MEMG scenes, reduced: positions and morph targets as 16-bit
    /// integers, normals 8-bit, weights 16-bit (`--quantize`; the file
    /// requires `KHR_mesh_quantization`): about half the bytes, every
    /// vertex within [`GltfReport::quantization_error`] of the motion.
    pub quantized: bool,
    /// With `quantized`: how far a MEMG vertex may be from the motion's own
    /// place (the file's units): the morph targets that move vertices least
    /// are then stored in 8 bits within half of it, and the timesteps a
    /// reader's interpolation does without are dropped within what is left
    /// (`keys`). `None`: every target in 16 bits, every timestep a key.
    pub tolerance: Option<f64>,
}

/// What [`write()`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct GltfReport {
    /// Every file written, with its size in bytes: the `.glb`, or the
    /// `.gltf` and its `.bin`.
    pub files: Vec<(PathBuf, u64)>,
    /// Nodes in the scene.
    pub nodes: usize,
    /// Meshes.
    pub meshes: usize,
    /// Morph targets over every primitive.
    pub morph_targets: usize,
    /// Animation channels.
    pub channels: usize,
    /// What fits but may look wrong (MEMG groups the scene lacks…), each naming its file.
    pub warnings: Vec<String>,
    /// With [`GltfOptions::quantized`]: how far, at most, a MEMG vertex is
    /// from the motion's own place at any timestep (the file's units): the
    /// rounding measured at every vertex and timestep, and where keys were
    /// dropped, a bound on what the readers' blend between keys adds. 0
    /// otherwise.
    pub quantization_error: f64,
}

/// Writes `tracks`, placed by `plan`, to `out` (`.glb`, or `.gltf` with a
/// `.bin` beside it). `progress` hears the fraction done, 0 to 1.
///
/// Fails, writing nothing, on a MEMG frame that is not a rotation and a
/// positive scale (reduced only), a MEMG triangle whose corners follow
/// different groups (reduced only), values that are not finite, a `.gltf`
/// whose `.bin` would replace an input, or a file that can't be written.
pub fn write(
    tracks: &[Track],
    plan: &Plan,
    options: &GltfOptions,
    out: &Path,
    progress: &mut dyn FnMut(f32),
) -> Result<GltfReport> {
    let format = Format::from_path(out);
    if !matches!(format, Some(Format::Glb | Format::Gltf)) {
        return Err(document::refuse(out, "is not a .glb or .gltf file name"));
    }
    if plan.placements.len() != tracks.len() {
        return Err(Error::unsupported(
            out,
            format!(
                "the plan places {} tracks, but {} were given",
                plan.placements.len(),
                tracks.len()
            ),
        ));
    }
    if format == Some(Format::Gltf) {
        let inputs: Vec<PathBuf> = tracks.iter().flat_map(input_files).collect();
        let bin = companion_bin(out);
        check_not_input(&bin, &inputs, false).map_err(|_| {
            document::refuse(
                &bin,
                format!(
                    "is one of the input files, and {} would write its buffer there; choose another name (or .glb)",
                    out.display()
                ),
            )
        })?;
    }
    let (files, mut report) = build(tracks, plan, options, progress, |root, chunks, progress| {
        Ok(match format {
            Some(Format::Gltf) => container::write_gltf(out, root, chunks, progress)?,
            _ => vec![(
                out.to_path_buf(),
                container::write_glb(out, &root, chunks, progress)?,
            )],
        })
    })?;
    report.files = files;
    Ok(report)
}

/// [`write()`] into memory: the `.glb` of `tracks` placed by `plan` (a web
/// page offers it as a download), and what it holds (`files` empty).
#[cfg(feature = "window")]
pub(crate) fn glb_bytes(
    tracks: &[Track],
    plan: &Plan,
    options: &GltfOptions,
) -> Result<(Vec<u8>, GltfReport)> {
    if plan.placements.len() != tracks.len() {
        return Err(Error::unsupported(
            "glTF document",
            format!(
                "the plan places {} tracks, but {} were given",
                plan.placements.len(),
                tracks.len()
            ),
        ));
    }
    build(tracks, plan, options, &mut |_| {}, |root, chunks, _| {
        container::glb_bytes("motion.glb", &root, chunks)
    })
}

/// Builds the document of `tracks` and hands it to `finish`, which writes
/// it somewhere; returns what `finish` returned and the report (no files).
fn build<T>(
    tracks: &[Track],
    plan: &Plan,
    options: &GltfOptions,
    progress: &mut dyn FnMut(f32),
    finish: impl FnOnce(gltf_json::Root, Vec<document::Chunk<'_>>, &mut dyn FnMut(f32)) -> Result<T>,
) -> Result<(T, GltfReport)> {
    let baking = options.baked && tracks.iter().any(|t| matches!(t, Track::Memg { .. }));
    let build_share = if baking { 0.5 } else { 0.05 };
    let mut warnings = Vec::new();
    let bindings = tracks
        .iter()
        .map(|track| match track {
            Track::Memg { scene, motion, .. } => {
                let binding = bind(track, scene, motion)?;
                let file = track.path().display();
                warnings.extend(binding.warnings.iter().map(|w| format!("{file}: {w}")));
                Ok(Some(binding))
            }
            _ => Ok(None),
        })
        .collect::<Result<Vec<_>>>()?;
    let memg_tracks: Vec<Option<memg_track::MemgTrack<'_>>> = tracks
        .iter()
        .zip(&bindings)
        .zip(&plan.placements)
        .map(|((track, binding), placement)| match (track, binding) {
            (Track::Memg { scene, motion, .. }, Some(binding)) => Some(memg_track::MemgTrack {
                file: track.path().display().to_string(),
                name: track.name(),
                scene,
                motion,
                binding,
                offset: placement.offset,
                scale: placement.scale,
                quantized: options.quantized,
                tolerance: options.tolerance,
            }),
            _ => None,
        })
        .collect();

    let mut doc = Document::new();
    let mut shapes = Shapes::default();
    let mut roots = Vec::with_capacity(tracks.len());
    let mut quantization_error = 0f64;
    for (i, ((track, placement), memg_track)) in tracks
        .iter()
        .zip(&plan.placements)
        .zip(&memg_tracks)
        .enumerate()
    {
        let file = track.path().display().to_string();
        let share = |f: f32| build_share * (i as f32 + f) / tracks.len() as f32;
        let root = match (track, memg_track) {
            (Track::Memg { .. }, Some(m)) if options.baked => {
                baked::add(&mut doc, m, &mut |f| progress(share(f)))?
            }
            (Track::Memg { .. }, Some(m)) => {
                let (root, error) = memg::add(&mut doc, m)?;
                quantization_error = quantization_error.max(error);
                root
            }
            (Track::Mtn { motion, .. }, _) => aibo::add(
                &mut doc,
                &mut shapes,
                &aibo::MtnTrack {
                    file,
                    name: track.name(),
                    motion,
                    offset: placement.offset,
                    scale: placement.scale,
                },
            )?,
            (Track::InputAnimation { recording, .. }, _) => mrtk::add(
                &mut doc,
                &mut shapes,
                &mrtk::MrtkTrack {
                    file,
                    name: track.name(),
                    recording,
                    offset: placement.offset,
                    scale: placement.scale,
                    grid: track.grid(options.fps, crate::anim::clock::Window::Whole),
                },
                &mut warnings,
            )?,
            (Track::Memg { .. }, None) => unreachable!("every MEMG track has its binding"),
        };
        roots.push(root);
        progress(share(1.0));
    }
    let (root, chunks) = doc.finish(roots, "motion");
    let report = GltfReport {
        files: Vec::new(),
        nodes: root.nodes.len(),
        meshes: root.meshes.len(),
        morph_targets: root
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.targets.as_ref().map_or(0, Vec::len))
            .sum(),
        channels: root.animations.iter().map(|a| a.channels.len()).sum(),
        warnings,
        quantization_error,
    };
    let mut write_progress = |f: f32| progress(build_share + (1.0 - build_share) * f);
    let written = finish(root, chunks, &mut write_progress)?;
    progress(1.0);
    Ok((written, report))
}

/// Every file a track was read from.
fn input_files(track: &Track) -> Vec<PathBuf> {
    match track {
        Track::Memg {
            obj_path,
            motion_path,
            ..
        } => vec![obj_path.clone(), motion_path.clone()],
        other => vec![other.path().to_path_buf()],
    }
}
