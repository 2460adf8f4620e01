//! A MEMG track on the stage: its mesh deformed by the compute shader, or by
//! the CPU deformer with only the positions uploaded each pose.

use crate::anim::memg::{Binding, Deformer};
use crate::error::Result;
use crate::formats::memg::MemgMotion;
use crate::formats::obj::ObjScene;
use crate::gpu::{DeformOptions, GpuContext, GpuDeformer, GpuMesh};
use std::sync::Arc;

/// Where MEMG meshes are deformed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DeformOn {
    /// The GPU, except on an adapter that is the CPU itself (llvmpipe,
    /// WARP): there the compute shader is the same cores emulating a GPU, an
    /// order of magnitude slower than the CPU deformer (BENCHMARKS.md), and
    /// its buffers are a second copy of the motion in main memory. An `f16`
    /// basis asks for the GPU. Where the GPU cannot hold a motion, the CPU
    /// stands in, with a warning. In a browser WebGPU always deforms: the
    /// page's CPU deformer has one thread, the one that also runs the page,
    /// while even a software WebGPU computes in the browser's GPU process.
    /// An adapter without compute shaders (WebGL2) deforms on the CPU.
    #[default]
    Auto,
    /// The compute shader, or an error.
    Gpu,
    /// The CPU deformer; only positions go to the GPU each pose.
    Cpu,
}

impl std::str::FromStr for DeformOn {
    type Err = crate::error::ParseValueError;

    /// `auto`, `gpu` or `cpu`.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s {
            "auto" => Ok(DeformOn::Auto),
            "gpu" => Ok(DeformOn::Gpu),
            "cpu" => Ok(DeformOn::Cpu),
            _ => Err(crate::error::ParseValueError::new(
                "a place to deform on",
                s,
                "auto, gpu or cpu",
            )),
        }
    }
}

/// A mesh deformed on the CPU: the motion stays here, shared with the
/// track it came from (no second copy of the basis).
#[derive(Debug)]
pub(super) struct CpuDeformed {
    mesh: GpuMesh,
    /// The scene: the deformer reads its rest positions.
    scene: Arc<ObjScene>,
    motion: Arc<MemgMotion>,
    binding: Binding,
    deformer: Deformer,
    positions: Vec<[f32; 3]>,
    /// Scratch for normals worked out on the CPU (an adapter without compute).
    normals: Vec<[f32; 3]>,
}

/// A MEMG mesh and whatever deforms it.
#[derive(Debug)]
pub(super) enum MemgBody {
    /// The compute shader.
    Gpu(Box<GpuDeformer>),
    /// The CPU deformer.
    Cpu(Box<CpuDeformed>),
}

impl MemgBody {
    /// Uploads the mesh and keeps `scene` and `motion` to deform on the CPU.
    pub fn cpu(
        ctx: &GpuContext,
        scene: Arc<ObjScene>,
        motion: Arc<MemgMotion>,
        binding: Binding,
        options: &DeformOptions,
    ) -> Result<MemgBody> {
        let mesh = GpuMesh::new(ctx, &scene, &options.mesh())?;
        Ok(MemgBody::Cpu(Box::new(CpuDeformed {
            mesh,
            scene,
            motion,
            binding,
            deformer: Deformer::new(),
            positions: Vec::new(),
            normals: Vec::new(),
        })))
    }

    /// Records the work that poses the mesh at `timestep` (CPU deformation
    /// happens here, its positions written to the queue before `encoder`'s work).
    pub fn pose(&mut self, ctx: &GpuContext, encoder: &mut wgpu::CommandEncoder, timestep: f64) {
        match self {
            MemgBody::Gpu(deformer) => {
                deformer.set_time(timestep);
                deformer.encode(encoder);
            }
            MemgBody::Cpu(body) => {
                let CpuDeformed {
                    mesh,
                    scene,
                    motion,
                    binding,
                    deformer,
                    positions,
                    normals,
                } = &mut **body;
                deformer.deform(scene, motion, binding, timestep, positions);
                mesh.write_positions(ctx, positions, normals);
                mesh.encode_normals(encoder);
            }
        }
    }

    /// The mesh as last posed.
    pub fn mesh(&self) -> &GpuMesh {
        match self {
            MemgBody::Gpu(deformer) => deformer.mesh(),
            MemgBody::Cpu(body) => &body.mesh,
        }
    }

    /// Whether the CPU deforms it.
    pub fn on_cpu(&self) -> bool {
        matches!(self, MemgBody::Cpu(_))
    }
}
