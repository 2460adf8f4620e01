//! One-off GPU work whose result comes back to the CPU.

use super::{DeformOptions, GpuContext, GpuDeformer};
use crate::anim::memg::Binding;
use crate::error::Result;
use crate::formats::memg::MemgMotion;
use crate::formats::obj::ObjScene;

/// The scene deformed at `timesteps` (between two by the one MEMG rule) by the compute shader on a fresh
/// adapter, read back: what `export --gpu` writes. Matches
/// [`crate::export::Deform`].
pub fn deform_at(
    scene: &ObjScene,
    motion: &MemgMotion,
    binding: &Binding,
    timesteps: f64,
) -> Result<Vec<[f32; 3]>> {
    let ctx = GpuContext::new()?;
    let mut gpu = GpuDeformer::new(&ctx, scene, motion, binding, DeformOptions::default())?;
    gpu.update(timesteps);
    gpu.read_positions()
}
