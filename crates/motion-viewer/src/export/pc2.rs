//! Blender's point cache (`.pc2`) of a MEMG scene: every `.obj` vertex at
//! every timestep, for a Mesh Cache modifier on the same `.obj` imported
//! with its vertex order kept (Blender: `obj_import(forward_axis='Y',
//! up_axis='Z')`, and a Mesh Cache modifier, PC2, default axes).
//!
//! Layout, little-endian: `POINTCACHE2\0`, version 1 (i32), vertex count
//! (i32), start frame 0 (f32), sampling 1 (f32), frame count (i32), then per
//! frame x, y, z (f32) per `.obj` vertex in file order. Positions are the
//! viewer's deformer's at each timestep (or at each frame of `--fps F`,
//! between timesteps by the one MEMG rule: a cache counts frames, not
//! seconds, so its frames are then 1/F s apart), in the `.obj`'s own coordinates
//! (the cache replaces the imported `.obj`'s vertices in place), or placed
//! as the viewer places them when a layout is asked for.

use std::path::{Path, PathBuf};

use crate::anim::clock::Window;
use crate::anim::memg::{Deformer, steps_at};
use crate::error::{Error, Result};
use crate::formats::pc2::MAGIC;
use crate::output::write_atomic;
use crate::scene::Track;
use crate::scene::plan::{Placement, bind};

/// The most frames a cache is written with (a timestep count the motion's
/// data does not back, as a file without groups or frames can claim, stops here).
pub(crate) const MAX_FRAMES: usize = 1_000_000;

/// What [`write()`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Pc2Report {
    /// The file and its size in bytes.
    pub file: (PathBuf, u64),
    /// Vertices per frame.
    pub vertices: usize,
    /// Frames (the motion's timesteps, or its frames at the rate asked;
    /// at least 1).
    pub frames: usize,
    /// What fits but may look wrong, each naming its file.
    pub warnings: Vec<String>,
}

/// Writes the one MEMG track among `tracks` to `out`, in its `.obj`'s
/// coordinates, or placed by `placement`, a frame per timestep or per
/// `1 / fps` seconds, over `window` or the whole motion. `progress` hears
/// the fraction done. Fails, writing nothing, without exactly one MEMG track,
/// with more vertices or frames than the format's 32-bit counts, or on a
/// position that is not finite.
pub fn write(
    tracks: &[Track],
    out: &Path,
    placement: Option<&Placement>,
    fps: Option<f64>,
    window: Option<Window>,
    progress: &mut dyn FnMut(f32),
) -> Result<Pc2Report> {
    let refuse = |reason: String| Error::unsupported(out, reason);
    let memg: Vec<&Track> = tracks
        .iter()
        .filter(|t| matches!(t, Track::Memg { .. }))
        .collect();
    let [track] = memg[..] else {
        return Err(refuse(format!(
            "a .pc2 holds one MEMG scene's vertices; {} MEMG motions were given",
            memg.len()
        )));
    };
    let Track::Memg {
        scene,
        motion,
        obj_path,
        ..
    } = track
    else {
        unreachable!("filtered to MEMG tracks");
    };
    let binding = bind(track, scene, motion)?;
    let file = track.path().display();
    let warnings = binding
        .warnings
        .iter()
        .map(|w| format!("{file}: {w}"))
        .collect();
    let vertices = scene.positions.len();
    if let Some(f) = fps
        && !(f.is_finite() && f > 0.0)
    {
        return Err(refuse(format!(
            "--fps must be a positive number of samples per second, got {f}"
        )));
    }
    let grid = track.grid(fps, window.unwrap_or(Window::Whole));
    let frames = usize::try_from(grid.len()).unwrap_or(usize::MAX).max(1);
    if frames > MAX_FRAMES {
        return Err(refuse(format!(
            "{frames} timesteps; a .pc2 export takes at most {MAX_FRAMES}"
        )));
    }
    let (Ok(v32), Ok(n32)) = (i32::try_from(vertices), i32::try_from(frames)) else {
        return Err(refuse(format!(
            "{vertices} vertices × {frames} frames is past what a .pc2's 32-bit counts hold"
        )));
    };
    // Sized before writing: the frames × vertices a tiny file can claim.
    let input =
        [track.path(), obj_path.as_path()].map(|p| std::fs::metadata(p).map_or(0, |m| m.len()));
    crate::budget::check_output_bytes(
        out,
        &format!("{vertices} vertices × {frames} frames × 12 bytes"),
        32 + 12 * vertices as u64 * frames as u64,
        input.iter().sum(),
        "a .pc2 holds every timestep of every vertex; export one timestep as .obj (--frame N), \
         or the motion as .glb (its basis, not every vertex per frame)",
    )?;
    let mut deformer = Deformer::new();
    let mut positions = Vec::with_capacity(vertices);
    let mut bad = None;
    let written = write_atomic(out, |w| {
        w.write_all(MAGIC)?;
        w.write_all(&1i32.to_le_bytes())?;
        w.write_all(&v32.to_le_bytes())?;
        w.write_all(&0f32.to_le_bytes())?;
        w.write_all(&1f32.to_le_bytes())?;
        w.write_all(&n32.to_le_bytes())?;
        for k in 0..frames {
            let t = steps_at(motion, grid.time_s(k as u64));
            deformer.deform(scene, motion, &binding, t, &mut positions);
            if let Err(e) =
                super::obj::check_positions(&positions, scene, motion, &binding, t, track.path())
            {
                bad = Some(e);
                return Err(std::io::Error::other("a position is not finite"));
            }
            if let Some(p) = placement {
                for v in &mut positions {
                    *v = p.place((*v).into()).to_array();
                }
            }
            let bytes: Vec<u8> = positions
                .iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            w.write_all(&bytes)?;
            progress((k + 1) as f32 / frames as f32);
        }
        Ok(())
    });
    if let Some(e) = bad {
        return Err(e);
    }
    written?;
    Ok(Pc2Report {
        file: (out.to_path_buf(), 32 + 12 * (vertices * frames) as u64),
        vertices,
        frames,
        warnings,
    })
}
