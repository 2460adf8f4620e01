//! MEMG deformation on the GPU (`shaders/deform.wgsl`), then normals.
//!
//! Samples time exactly like [`crate::anim::memg::deform`], the CPU reference:
//! `t` (in timesteps) is clamped to the motion, basis coefficients blend the two
//! timesteps around `t` linearly, and the frame transform is the nearest
//! timestep's. The blended coefficients and transforms are small (a few floats
//! per group) and are written each frame from the CPU; the basis stays on the GPU.

use super::context::GpuContext;
use super::mesh::GpuMesh;
use super::util::{compute_layout, compute_pipeline, dispatch_size, entry};
use crate::anim::memg::Binding;
use crate::error::{Error, Result};
use crate::formats::memg::MemgMotion;
use crate::formats::obj::ObjScene;
use wgpu::util::DeviceExt;

/// Tuning for [`GpuDeformer::new`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeformOptions {
    /// Largest basis binding in bytes; `None` uses the device's
    /// `max_storage_buffer_binding_size`. A smaller value forces the basis to
    /// be split into more chunks (tests use it to exercise the split).
    pub max_binding_bytes: Option<u64>,
}

/// Per group, as `deform.wgsl` reads it.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GroupEntry {
    vertex_offset: u32,
    basis_offset: u32,
    basis_len: u32,
    param_offset: u32,
}

/// One dispatch over a run of whole motion vertices and its slice of the basis.
#[derive(Debug)]
struct Chunk {
    vertex_count: u32,
    bind_group: wgpu::BindGroup,
}

/// A bound motion group's place in the per-frame parameter buffer.
#[derive(Debug)]
struct FrameGroup {
    /// Index in `motion.groups`.
    group: usize,
    /// Float offset of its transform; its coefficients follow.
    param_offset: usize,
}

/// A MEMG motion applied to its scene on the GPU every frame.
#[derive(Debug)]
pub struct GpuDeformer {
    ctx: GpuContext,
    motion: MemgMotion,
    mesh: GpuMesh,
    pipeline: wgpu::ComputePipeline,
    chunks: Vec<Chunk>,
    frame_groups: Vec<FrameGroup>,
    frame_buffer: wgpu::Buffer,
    frame_params: Vec<f32>,
}

impl GpuDeformer {
    /// Uploads `scene` and the bound groups of `motion` (`binding` from
    /// [`Binding::new`]). A `.obj` vertex several groups move is moved by the
    /// last of them, as on the CPU. The mesh starts at the rest pose; call
    /// [`GpuDeformer::update`].
    pub fn new(
        ctx: &GpuContext,
        scene: &ObjScene,
        motion: &MemgMotion,
        binding: &Binding,
        options: DeformOptions,
    ) -> Result<Self> {
        let device = &ctx.device;
        let mesh = GpuMesh::new(ctx, scene)?;
        let limit = options
            .max_binding_bytes
            .unwrap_or(u64::MAX)
            .min(ctx.limits().max_storage_buffer_binding_size)
            .min(ctx.limits().max_buffer_size);
        let max_floats = (limit / 4) as usize;

        // The last group moving a vertex owns it, so no two threads write one vertex.
        let mut owner = vec![usize::MAX; scene.positions.len()];
        for (gi, g) in motion.groups.iter().enumerate() {
            if binding.groups.get(gi).copied().flatten().is_some() {
                for &m in &g.mapping {
                    owner[m as usize - 1] = gi;
                }
            }
        }

        let mut vertices: Vec<[u32; 2]> = Vec::new();
        let mut mean: Vec<f32> = Vec::new();
        let mut basis: Vec<f32> = Vec::new();
        let mut groups: Vec<GroupEntry> = Vec::new();
        let mut frame_groups = Vec::new();
        let mut params = 0usize;
        for (gi, g) in motion.groups.iter().enumerate() {
            if binding.groups.get(gi).copied().flatten().is_none() {
                continue;
            }
            let v = g.vertex_count();
            let r = g.basis_len;
            if 3 * r > max_floats {
                return Err(Error::Gpu(format!(
                    "group '{}': one vertex's {r} basis vectors need {} bytes, more than a storage binding holds ({limit})",
                    g.name,
                    12 * r
                )));
            }
            let entry_index = groups.len() as u32;
            groups.push(GroupEntry {
                vertex_offset: vertices.len() as u32,
                basis_offset: u32::try_from(basis.len()).map_err(|_| too_big())?,
                basis_len: r as u32,
                param_offset: params as u32,
            });
            frame_groups.push(FrameGroup {
                group: gi,
                param_offset: params,
            });
            params += 12 + r;
            for (i, &m) in g.mapping.iter().enumerate() {
                if owner[m as usize - 1] != gi {
                    continue;
                }
                vertices.push([m - 1, entry_index]);
                mean.extend_from_slice(&g.mean[3 * i..3 * i + 3]);
                // Column-major U re-laid vertex-major: this vertex's 3r values together.
                for j in 0..r {
                    basis.extend_from_slice(&g.basis[j * 3 * v + 3 * i..j * 3 * v + 3 * i + 3]);
                }
            }
        }
        u32::try_from(basis.len()).map_err(|_| too_big())?;

        // Chunks of whole vertices, each basis slice within one binding.
        let mut ranges: Vec<(usize, usize, usize, usize)> = Vec::new(); // vertices lo..hi, floats lo..hi
        let (mut lo, mut float_lo, mut float_hi) = (0usize, 0usize, 0usize);
        for (m, vertex) in vertices.iter().enumerate() {
            let width = 3 * groups[vertex[1] as usize].basis_len as usize;
            if float_hi + width - float_lo > max_floats {
                ranges.push((lo, m, float_lo, float_hi));
                lo = m;
                float_lo = float_hi;
            }
            float_hi += width;
        }
        if lo < vertices.len() {
            ranges.push((lo, vertices.len(), float_lo, float_hi));
        }

        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("deform.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("../../shaders/deform.wgsl").into()),
        });
        let layout = compute_layout(device, "deform", 5);
        let pipeline = compute_pipeline(device, "deform", &layout, &module);
        let storage = |label: &str, bytes: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage: wgpu::BufferUsages::STORAGE,
            })
        };
        let frame_params = vec![0f32; params.max(1)];
        let frame_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("deform frame parameters"),
            contents: bytemuck::cast_slice(&frame_params),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        });
        let mut chunks = Vec::new();
        if !vertices.is_empty() {
            let vertex_buffer = storage("motion vertices", bytemuck::cast_slice(&vertices));
            let mean_buffer = storage("mean pose", bytemuck::cast_slice(&mean));
            let group_buffer = storage("groups", bytemuck::cast_slice(&groups));
            for &(v_lo, v_hi, f_lo, f_hi) in &ranges {
                let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("deform chunk"),
                    contents: bytemuck::cast_slice(&[
                        v_lo as u32,
                        (v_hi - v_lo) as u32,
                        f_lo as u32,
                        0,
                    ]),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                // A basis with r = 0 still needs a non-empty binding.
                let slice: &[f32] = if f_hi > f_lo {
                    &basis[f_lo..f_hi]
                } else {
                    &[0.0]
                };
                let basis_buffer = storage("basis chunk", bytemuck::cast_slice(slice));
                let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("deform chunk"),
                    layout: &layout,
                    entries: &[
                        entry(0, &uniform),
                        entry(1, &vertex_buffer),
                        entry(2, &mean_buffer),
                        entry(3, &group_buffer),
                        entry(4, &basis_buffer),
                        entry(5, &frame_buffer),
                        entry(6, &mesh.positions),
                    ],
                });
                chunks.push(Chunk {
                    vertex_count: (v_hi - v_lo) as u32,
                    bind_group,
                });
            }
        }
        ctx.check()?;
        Ok(Self {
            ctx: ctx.clone(),
            motion: motion.clone(),
            mesh,
            pipeline,
            chunks,
            frame_groups,
            frame_buffer,
            frame_params,
        })
    }

    /// The deformed mesh, to draw with [`super::render::Renderer`].
    pub fn mesh(&self) -> &GpuMesh {
        &self.mesh
    }

    /// Dispatches per frame: one per basis chunk (more than one when the basis
    /// exceeds a storage binding).
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Writes the coefficients and transforms for time `t` (in timesteps) to
    /// the GPU; the next [`GpuDeformer::encode`] uses them.
    pub fn set_time(&mut self, t: f64) {
        let Some(last) = self.motion.timesteps.checked_sub(1) else {
            return;
        };
        let t = if t.is_nan() {
            0.0
        } else {
            t.clamp(0.0, last as f64)
        };
        let t0 = t.floor() as usize;
        let t1 = (t0 + 1).min(last);
        let w = t - t0 as f64;
        let nearest = (t.round() as usize).min(last);
        const IDENTITY: [f64; 12] = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.];
        for fg in &self.frame_groups {
            let g = &self.motion.groups[fg.group];
            let r = g.basis_len;
            let m = self.motion.frame(nearest, g.parent).unwrap_or(&IDENTITY);
            let out = &mut self.frame_params[fg.param_offset..fg.param_offset + 12 + r];
            for (o, &x) in out.iter_mut().zip(m) {
                *o = x as f32;
            }
            for j in 0..r {
                let a = f64::from(g.coeffs[t0 * r + j]);
                let b = f64::from(g.coeffs[t1 * r + j]);
                out[12 + j] = (a + (b - a) * w) as f32;
            }
        }
        self.ctx.queue.write_buffer(
            &self.frame_buffer,
            0,
            bytemuck::cast_slice(&self.frame_params),
        );
    }

    /// Records the deformation dispatches and the normal pass.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        if !self.chunks.is_empty() {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("deform"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            for chunk in &self.chunks {
                pass.set_bind_group(0, &chunk.bind_group, &[]);
                let (x, y) = dispatch_size(chunk.vertex_count);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        self.mesh.encode_normals(encoder);
    }

    /// Deforms the mesh to time `t` (in timesteps) and recomputes its normals:
    /// [`GpuDeformer::set_time`], [`GpuDeformer::encode`] and a submit. Does not wait.
    pub fn update(&mut self, t: f64) {
        self.set_time(t);
        let mut encoder = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("deform"),
            });
        self.encode(&mut encoder);
        self.ctx.queue.submit([encoder.finish()]);
    }

    /// Every `.obj` vertex's current position, read back from the GPU.
    pub fn read_positions(&self) -> Result<Vec<[f32; 3]>> {
        self.mesh.read_positions(&self.ctx)
    }

    /// Every `.obj` vertex's current normal, read back from the GPU.
    pub fn read_normals(&self) -> Result<Vec<[f32; 3]>> {
        self.mesh.read_normals(&self.ctx)
    }
}

fn too_big() -> Error {
    Error::Gpu(
        "the motion's basis has more than 2^32 values, more than the GPU path indexes".into(),
    )
}
