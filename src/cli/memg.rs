//! `info`/`export` for MEMG scenes: an `.obj` scene and its binary motion.

use super::At;
use anyhow::{Context, bail};
use motion_viewer::anim::memg::{self as deformer, Binding};
use motion_viewer::formats::{memg::MemgMotion, obj, obj::ObjScene};
use serde_json::{Value, json};
use std::path::Path;

/// The `info --json` object for a scene + motion pair.
pub fn info(obj_path: &Path, motion_path: &Path, s: &ObjScene, m: &MemgMotion) -> Value {
    let mut warnings = m.warnings.clone();
    match Binding::new(s, m) {
        Ok(b) => warnings.extend(b.warnings),
        Err(e) => warnings.push(e),
    }
    let groups: Vec<Value> = m
        .groups
        .iter()
        .map(|g| {
            json!({
                "name": g.name,
                "vertices": g.vertex_count(),
                "basis": g.basis_len,
                "parent": g.parent,
                "in_scene": s.group_index(&g.name).is_some(),
            })
        })
        .collect();
    json!({
        "format": "memg",
        "byte_order": m.byte_order,
        "fps": m.fps,
        "local_frames": m.local_frames,
        "timesteps": m.timesteps,
        "duration_s": m.duration_s(),
        "scene": obj_path.display().to_string(),
        "motion": motion_path.display().to_string(),
        "vertices": s.positions.len(),
        "triangles": s.triangles.len(),
        "groups": groups,
        "warnings": warnings,
    })
}

/// The timestep `at` names: `--frame N` is timestep N, `--time S` is
/// timestep ⌊S·fps⌋ (a hair of slack so 1/3 s at 30 fps lands on 10, not 9).
fn timestep(m: &MemgMotion, at: At) -> anyhow::Result<usize> {
    let step = match at {
        At::Frame(n) => n,
        At::Time(s) => {
            let x = (s * f64::from(m.fps) + 1e-9).floor();
            // Also refuses NaN, which compares false with everything.
            if x.is_nan() || x < 0.0 {
                bail!("time {s} s is before the start of the motion");
            }
            x as u64
        }
    };
    if step >= m.timesteps as u64 {
        bail!(
            "timestep {step} is past the motion's end: it has {} timesteps (0..={}, {:.3} s at {} fps)",
            m.timesteps,
            m.timesteps.saturating_sub(1),
            m.duration_s(),
            m.fps
        );
    }
    Ok(step as usize)
}

/// The deformed positions at `at`, with the timestep they are for.
fn positions(s: &ObjScene, m: &MemgMotion, at: At) -> anyhow::Result<(usize, Vec<[f32; 3]>)> {
    let t = timestep(m, at)?;
    let binding = Binding::new(s, m).map_err(anyhow::Error::msg)?;
    let mut out = Vec::new();
    deformer::deform(s, m, &binding, t as f64, &mut out);
    Ok((t, out))
}

/// The `export --time` JSON state (positions are large: a summary).
pub fn state(s: &ObjScene, m: &MemgMotion, at: At) -> Value {
    match positions(s, m, at) {
        Ok((t, p)) => {
            let (lo, hi) = deformer::bounding_box(&p).unwrap_or_default();
            json!({
                "format": "memg",
                "time_s": t as f64 / f64::from(m.fps.max(1)),
                "timestep": t,
                "bbox_min": lo,
                "bbox_max": hi,
            })
        }
        Err(e) => json!({"format": "memg", "error": format!("{e:#}")}),
    }
}

/// Writes the deformed scene at `at` as an `.obj`.
pub fn export_obj(s: &ObjScene, m: &MemgMotion, at: At, out: &Path) -> anyhow::Result<()> {
    let (_, p) = positions(s, m, at)?;
    let file =
        std::fs::File::create(out).with_context(|| format!("{}: cannot create", out.display()))?;
    obj::write_obj(s, &p, std::io::BufWriter::new(file))
        .with_context(|| format!("{}: cannot write", out.display()))
}
