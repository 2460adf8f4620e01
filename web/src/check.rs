//! The MEMG check a test runs in the page: the first MEMG track given is
//! deformed by the compute shader on the page's WebGPU adapter, read back,
//! and compared with the f64 CPU reference (`anim::memg`), in the same
//! measure as the native GPU tests (`tests/gpu_pipeline.rs`): the largest
//! distance as a fraction of the motion's bounding-box diagonal.

use crate::dom::{PAGE, js};
use motion_viewer::anim::memg::{Binding, bounding_box_over_time, deform_reference_f64};
use motion_viewer::gpu::backend_name;
use motion_viewer::gpu::{DeformOptions, GpuContext, GpuDeformer};
use motion_viewer::{Error, Result, Track};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Positions agree within this fraction of the bounding-box diagonal (the
/// native GPU tests' tolerance).
pub const POSITION_TOLERANCE: f64 = 1e-4;

/// What [`readback_memg`] found.
#[derive(Debug, Serialize)]
pub struct MemgCheck {
    /// The adapter's backend (`"WebGPU"`).
    pub backend: &'static str,
    /// The adapter's name.
    pub adapter: String,
    /// The motion file checked.
    pub motion: String,
    /// `.obj` vertices compared.
    pub vertices: usize,
    /// The timestep deformed.
    pub timestep: f64,
    /// The largest GPU − reference distance over the diagonal.
    pub max_error: f64,
    /// [`POSITION_TOLERANCE`].
    pub tolerance: f64,
    /// The largest distance a vertex moved from its rest position, over the
    /// diagonal: shows the check compared a deformed mesh.
    pub moved: f64,
}

/// Deforms the first MEMG track given to the page at `timestep` on the
/// GPU, reads it back and compares it with the CPU reference; resolves to
/// a [`MemgCheck`] as JSON text, or rejects with why it could not run.
#[wasm_bindgen(js_name = readbackMemg)]
pub async fn readback_memg(timestep: f64) -> std::result::Result<String, JsValue> {
    let check = run(timestep).await.map_err(js)?;
    serde_json::to_string(&check).map_err(|e| JsValue::from_str(&e.to_string()))
}

async fn run(timestep: f64) -> Result<MemgCheck> {
    let (scene, motion, motion_path) = crate::page::given()
        .into_iter()
        .filter_map(|batch| {
            motion_viewer::open_with(batch, &motion_viewer::OpenOptions::default()).ok()
        })
        .flat_map(|loaded| loaded.tracks)
        .find_map(|track| match track {
            Track::Memg {
                scene,
                motion,
                motion_path,
                ..
            } => Some((scene, motion, motion_path)),
            _ => None,
        })
        .ok_or_else(|| {
            Error::unsupported(PAGE, "no MEMG track (an .obj with its motion) was given")
        })?;
    let descriptor = GpuContext::instance_descriptor();
    let instance = wgpu::util::new_instance_with_webgpu_detection(descriptor).await;
    let ctx = GpuContext::with_instance(instance, None).await?;
    let info = ctx.adapter.get_info();
    let binding = Binding::new(&scene, &motion).map_err(|e| Error::mismatch(&motion_path, e))?;
    let mut deformer = GpuDeformer::new(&ctx, &scene, &motion, &binding, DeformOptions::default())?;
    deformer.update(timestep);
    let gpu = deformer.read_positions_async().await?;
    let reference = deform_reference_f64(&scene, &motion, &binding, timestep);
    let (lo, hi) = bounding_box_over_time(&scene, &motion, &binding)
        .ok_or_else(|| Error::mismatch(&motion_path, "an empty scene"))?;
    let diagonal = (0..3)
        .map(|a| (f64::from(hi[a]) - f64::from(lo[a])).powi(2))
        .sum::<f64>()
        .sqrt()
        .max(f64::MIN_POSITIVE);
    let distance = |a: [f64; 3], b: [f64; 3]| {
        (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt() / diagonal
    };
    let widen = |p: [f32; 3]| p.map(f64::from);
    let max_error = gpu
        .iter()
        .zip(&reference)
        .map(|(g, r)| distance(widen(*g), *r))
        .fold(0.0, f64::max);
    let moved = scene
        .positions
        .iter()
        .zip(&reference)
        .map(|(rest, r)| distance(widen(*rest), *r))
        .fold(0.0, f64::max);
    if gpu.len() != reference.len() {
        return Err(Error::mismatch(
            &motion_path,
            format!(
                "read back {} positions for {} vertices",
                gpu.len(),
                reference.len()
            ),
        ));
    }
    Ok(MemgCheck {
        backend: backend_name(info.backend),
        adapter: info.name,
        motion: motion_path.display().to_string(),
        vertices: gpu.len(),
        timestep,
        max_error,
        tolerance: POSITION_TOLERANCE,
        moved,
    })
}
