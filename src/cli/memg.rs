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

/// The deformed positions at `at`, with the timestep they are for. With
/// `on_gpu` the compute shader deforms and the positions are read back; if no
/// adapter can be had, the CPU path stands in, with a warning.
fn positions(
    s: &ObjScene,
    m: &MemgMotion,
    at: At,
    on_gpu: bool,
) -> anyhow::Result<(usize, Vec<[f32; 3]>)> {
    let t = timestep(m, at)?;
    let binding = Binding::new(s, m).map_err(anyhow::Error::msg)?;
    if on_gpu {
        match gpu_positions(s, m, &binding, t) {
            Ok(p) => return Ok((t, p)),
            Err(e) => eprintln!("viewer: warning: {e:#}; deforming on the CPU instead"),
        }
    }
    let mut out = Vec::new();
    deformer::deform(s, m, &binding, t as f64, &mut out);
    Ok((t, out))
}

#[cfg(feature = "gpu")]
fn gpu_positions(
    s: &ObjScene,
    m: &MemgMotion,
    binding: &Binding,
    t: usize,
) -> anyhow::Result<Vec<[f32; 3]>> {
    use motion_viewer::gpu::{DeformOptions, GpuContext, GpuDeformer};
    let ctx = GpuContext::new()?;
    let mut gpu = GpuDeformer::new(&ctx, s, m, binding, DeformOptions::default())?;
    gpu.update(t as f64);
    Ok(gpu.read_positions()?)
}

#[cfg(not(feature = "gpu"))]
fn gpu_positions(
    _: &ObjScene,
    _: &MemgMotion,
    _: &Binding,
    _: usize,
) -> anyhow::Result<Vec<[f32; 3]>> {
    bail!("this viewer was built without the `gpu` feature")
}

/// The `export --time` JSON state (positions are large: a summary).
pub fn state(s: &ObjScene, m: &MemgMotion, at: At) -> anyhow::Result<Value> {
    let (t, p) = positions(s, m, at, false)?;
    let (lo, hi) = deformer::bounding_box(&p).unwrap_or_default();
    Ok(json!({
        "format": "memg",
        "time_s": t as f64 / f64::from(m.fps.max(1)),
        "timestep": t,
        "bbox_min": lo,
        "bbox_max": hi,
    }))
}

/// Writes the deformed scene at `at` as an `.obj`, deformed on the GPU when
/// `on_gpu` is set.
pub fn export_obj(
    s: &ObjScene,
    m: &MemgMotion,
    at: At,
    out: &Path,
    on_gpu: bool,
) -> anyhow::Result<()> {
    let (_, p) = positions(s, m, at, on_gpu)?;
    let file =
        std::fs::File::create(out).with_context(|| format!("{}: cannot create", out.display()))?;
    obj::write_obj(s, &p, std::io::BufWriter::new(file))
        .with_context(|| format!("{}: cannot write", out.display()))
}
