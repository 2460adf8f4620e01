//! `viewer export`: state at one moment (JSON), every frame (CSV/JSON), or a
//! deformed MEMG mesh (.obj).

use super::table::Table;
mod animated;
use super::{At, ExportArgs, input_animation, memg, mtn};
use anyhow::{Context, Result, bail};
use motion_viewer::scene::{self, Track};
use std::path::{Path, PathBuf};

pub fn run(args: &ExportArgs) -> Result<()> {
    let tracks = scene::load(&args.files)?;
    if tracks.is_empty() {
        bail!("no motion among the files given");
    }
    if let Some(fps) = args.fps
        && !(fps.is_finite() && fps > 0.0)
    {
        bail!("--fps must be a positive number of samples per second, got {fps}");
    }
    let ext = args
        .out
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    // `--frame N` counts in the first motion's frame period; other tracks get the same time.
    let first_period = tracks[0].frame_period_s();
    let at_for = |i: usize| -> Option<At> {
        match args.at.at()? {
            At::Frame(n) if i > 0 => Some(At::Time(n as f64 * first_period)),
            at => Some(at),
        }
    };
    match (ext.as_str(), args.at.at()) {
        ("glb" | "gltf" | "pc2", Some(_)) => {
            bail!("a .{ext} holds the whole motion; leave out --time/--frame")
        }
        #[cfg(feature = "gltf")]
        ("glb" | "gltf", None) => animated::gltf(&tracks, args),
        ("pc2", None) => animated::pc2(&tracks, args),
        ("obj", at) => {
            let at = at.unwrap_or(At::Frame(0));
            let Some(Track::Memg { scene, motion, .. }) =
                tracks.iter().find(|t| matches!(t, Track::Memg { .. }))
            else {
                bail!("an .obj export needs a MEMG scene and motion");
            };
            memg::export_obj(scene, motion, at, &args.out, args.gpu)
        }
        ("json", Some(_)) => {
            let states = tracks
                .iter()
                .enumerate()
                .map(|(i, t)| state(t, at_for(i).expect("moment given")))
                .collect::<Result<Vec<_>>>()?;
            write_json(&args.out, &serde_json::Value::Array(states))
        }
        ("json" | "csv", None) => {
            for (i, track) in tracks.iter().enumerate() {
                let table = table(track, args.fps)?;
                let out = numbered(&args.out, i, tracks.len());
                if ext == "csv" {
                    table.write_csv(&out)?;
                } else {
                    write_json(&out, &table.to_json())?;
                }
            }
            Ok(())
        }
        ("csv", Some(_)) => {
            bail!("--time/--frame go with a .json output; a .csv holds every frame")
        }
        _ => bail!(
            "{}: unknown output type; use .json, .csv, .obj, .glb, .gltf or .pc2",
            args.out.display()
        ),
    }
}

fn state(track: &Track, at: At) -> Result<serde_json::Value> {
    Ok(match track {
        Track::Mtn { motion, .. } => mtn::state(motion, at),
        Track::InputAnimation { recording, .. } => input_animation::state(recording, at),
        Track::Memg { scene, motion, .. } => memg::state(scene, motion, at)?,
    })
}

fn table(track: &Track, fps: Option<f64>) -> Result<Table> {
    match track {
        Track::Mtn { motion, .. } => Ok(mtn::table(motion, fps)),
        Track::InputAnimation { recording, .. } => Ok(input_animation::table(recording, fps)),
        Track::Memg { .. } => {
            bail!("a MEMG motion exports as a mesh: use --out mesh.obj with --frame or --time")
        }
    }
}

/// `out.csv` for one motion; `out-1.csv`, `out-2.csv`, … for several.
fn numbered(out: &Path, i: usize, count: usize) -> PathBuf {
    if count == 1 {
        return out.to_path_buf();
    }
    let stem = out.file_stem().unwrap_or_default().to_string_lossy();
    let ext = out.extension().unwrap_or_default().to_string_lossy();
    out.with_file_name(format!("{stem}-{}.{ext}", i + 1))
}

fn write_json(path: &Path, value: &serde_json::Value) -> Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    std::fs::write(path, text + "\n").with_context(|| format!("{}: cannot write", path.display()))
}
