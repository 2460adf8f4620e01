//! The whole motion in one file for other tools: glTF scenes and Blender
//! point caches, with what was written summed up for the user.

use super::{Options, Report};
use crate::error::Result;
use crate::scene::Track;
use std::path::Path;

fn mib(bytes: u64) -> String {
    format!("{:.2} MiB", bytes as f64 / (1 << 20) as f64)
}

/// Reports a progress fraction through `options.progress`, if any.
fn progress<'a>(options: &'a Options) -> impl FnMut(f32) + 'a {
    move |f| {
        if let Some(p) = options.progress {
            p(f.clamp(0.0, 1.0));
        }
    }
}

/// Where the tracks stand in an animated export: each in its own file's
/// coordinates, or as the viewer places them when a layout is asked for.
fn plan(tracks: &[Track], options: &Options) -> Result<crate::scene::Plan> {
    match options.layout {
        Some(layout) => crate::scene::Plan::with_layout(tracks, layout),
        None => crate::scene::Plan::unplaced(tracks),
    }
}

/// `tracks` as one animated glTF scene (`.glb`, or `.gltf` + `.bin`), each
/// in its own coordinates or placed as `options.layout` says.
pub fn gltf(tracks: &[Track], out: &Path, options: &Options, report: &mut Report) -> Result<()> {
    use super::gltf::{GltfOptions, write};
    let plan = plan(tracks, options)?;
    let written = write(
        tracks,
        &plan,
        &GltfOptions {
            baked: options.baked,
            fps: options.fps,
            quantized: options.quantize,
            tolerance: options.quantize_tolerance,
        },
        out,
        &mut progress(options),
    )?;
    report.warnings.extend(written.warnings);
    if options.quantize {
        report.quantization_error = Some(written.quantization_error);
    }
    let files: Vec<String> = written
        .files
        .iter()
        .map(|(p, n)| format!("{} ({})", p.display(), mib(*n)))
        .collect();
    report.notes.push(format!(
        "wrote {}: {} nodes, {} meshes, {} morph targets, {} channels",
        files.join(" + "),
        written.nodes,
        written.meshes,
        written.morph_targets,
        written.channels
    ));
    if options.quantize {
        report.notes.push(format!(
            "MEMG meshes and weights in integers: every vertex within {:.4e} of the motion's own position",
            written.quantization_error
        ));
    }
    for track in tracks {
        if let Track::Memg {
            motion,
            motion_path,
            ..
        } = track
        {
            let uq: u64 = motion
                .groups
                .iter()
                .map(|g| 4 * (g.basis.len() + g.coeffs.len()) as u64)
                .sum();
            let bin = std::fs::metadata(motion_path).map_or(0, |m| m.len());
            report.notes.push(format!(
                "  {}: {} as read, U and Q as f32 {}",
                motion_path.display(),
                mib(bin),
                mib(uq)
            ));
        }
    }
    report
        .written
        .extend(written.files.into_iter().map(|(p, _)| p));
    Ok(())
}

/// The one MEMG scene among `tracks` as a Blender point cache, in its
/// `.obj`'s coordinates or placed as `options.layout` says (as the glTF of
/// the same tracks is).
pub fn pc2(tracks: &[Track], out: &Path, options: &Options, report: &mut Report) -> Result<()> {
    let placement = match options.layout {
        Some(_) => {
            let plan = plan(tracks, options)?;
            tracks
                .iter()
                .zip(plan.placements)
                .find(|(t, _)| matches!(t, Track::Memg { .. }))
                .map(|(_, p)| p)
        }
        None => None,
    };
    let written = super::pc2::write(
        tracks,
        out,
        placement.as_ref(),
        options.fps,
        super::window(tracks, options),
        &mut progress(options),
    )?;
    report.warnings.extend(written.warnings);
    report.notes.push(format!(
        "wrote {} ({}): {} vertices × {} frames",
        written.file.0.display(),
        mib(written.file.1),
        written.vertices,
        written.frames
    ));
    report.written.push(written.file.0);
    Ok(())
}
