//! MEMG deformation on the GPU (`shaders/deform.wgsl`), then normals.
//!
//! Samples time exactly like [`crate::anim::memg::deform`], the CPU reference,
//! by the one rule of [`crate::anim::memg::Between`]: `t` (in timesteps) is
//! clamped to the motion, basis coefficients blend the two timesteps around
//! `t` linearly, and the frame transforms interpolate as glTF's node
//! transforms do. The blended coefficients and transforms are small (a few
//! floats per chunk) and are written each frame from the CPU; the basis stays
//! on the GPU.
//!
//! **Sizes.** Each group's motion vertices are cut into chunks whose basis,
//! mean pose and target table each fit one storage binding; a chunk is one
//! dispatch with buffers of its own. The positions they write are bound in
//! windows (see the `windows` module), and the normal pass is split the same way
//! ([`super::mesh`]), so no array of any size is bound whole. Everything is
//! uploaded in bounded pieces (the `upload` module), straight from an
//! [`ArraySource`]: a decoded motion, or a memory-mapped file converted range by
//! range, so a caller that has dropped the decoded arrays never holds them
//! twice.

use super::basis::BasisFormat;
use super::context::GpuContext;
use super::mesh::{GpuMesh, MeshOptions};
use super::upload::Upload;
use super::util::{Slot, binding_limit, compute_layout, compute_pipeline, dispatch_size, entry};
use crate::anim::memg::{Between, Binding};
use crate::error::{Error, Result};
use crate::formats::memg::{ArraySource, MemgGroup, MemgMotion};
use crate::formats::obj::ObjScene;
use wgpu::util::DeviceExt;

/// Tuning for [`GpuDeformer::new`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeformOptions {
    /// Largest storage binding in bytes; `None` uses the device's
    /// `max_storage_buffer_binding_size`. A smaller value splits every large
    /// array into more chunks, windows and dispatches (tests use it to
    /// exercise the splits).
    pub max_binding_bytes: Option<u64>,
    /// How the basis is stored: `f16` halves the bytes read per frame.
    pub basis: BasisFormat,
    /// Build the mesh's wireframe edges ([`MeshOptions::edges`]).
    pub edges: bool,
}

impl DeformOptions {
    /// The options of the mesh the deformation writes ([`GpuDeformer::on_mesh`]).
    pub fn mesh(&self) -> MeshOptions {
        MeshOptions {
            max_binding_bytes: self.max_binding_bytes,
            edges: self.edges,
        }
    }
}

/// The `.obj` index a motion vertex writes when another owns its vertex.
const SKIP: u32 = u32::MAX;

/// One dispatch: a run of one group's motion vertices and its buffers.
#[derive(Debug)]
struct Chunk {
    /// Index in the motion's groups.
    group: usize,
    vertex_count: u32,
    /// Float offset of its transform in the frame parameters; coefficients follow.
    param_offset: usize,
    /// Per basis column, the factor its coefficient takes ([`BasisFormat`]).
    scales: Vec<f32>,
    bind_group: wgpu::BindGroup,
}

/// A MEMG motion applied to its scene on the GPU every frame.
#[derive(Debug)]
pub struct GpuDeformer {
    ctx: GpuContext,
    /// The motion's frames and coefficients (its large arrays left out).
    timing: MemgMotion,
    mesh: GpuMesh,
    pipeline: wgpu::ComputePipeline,
    chunks: Vec<Chunk>,
    basis_bytes: u64,
    frame_buffer: wgpu::Buffer,
    frame_params: Vec<f32>,
}

impl GpuDeformer {
    /// Uploads `scene` and the bound groups of `motion` (`binding` from
    /// [`Binding::new`]). A `.obj` vertex several motion vertices move is
    /// moved by the last of them, as on the CPU. The mesh starts at the rest
    /// pose; call [`GpuDeformer::update`].
    pub fn new(
        ctx: &GpuContext,
        scene: &ObjScene,
        motion: &MemgMotion,
        binding: &Binding,
        options: DeformOptions,
    ) -> Result<Self> {
        Self::from_source(ctx, scene, motion, binding, options)
    }

    /// [`GpuDeformer::new`] reading the mean poses and bases from `source`
    /// (for instance a [`crate::formats::memg::MappedMemg`], converted from
    /// the file straight into the upload). `binding` is the [`Binding`] of
    /// the same motion.
    pub fn from_source(
        ctx: &GpuContext,
        scene: &ObjScene,
        source: &dyn ArraySource,
        binding: &Binding,
        options: DeformOptions,
    ) -> Result<Self> {
        check_binding(binding, source.motion())?;
        let mesh = GpuMesh::new(ctx, scene, &options.mesh())?;
        Self::on_mesh(ctx, mesh, source, binding, options)
    }

    /// [`GpuDeformer::from_source`] on `mesh`, the motion's scene already
    /// uploaded by [`GpuMesh::new`] (with `options`' binding size), so that a
    /// caller with no further use for the scene can drop its arrays before
    /// the basis, the largest upload, comes.
    pub fn on_mesh(
        ctx: &GpuContext,
        mesh: GpuMesh,
        source: &dyn ArraySource,
        binding: &Binding,
        options: DeformOptions,
    ) -> Result<Self> {
        let motion = source.motion();
        check_binding(binding, motion)?;
        let device = &ctx.device;
        let limits = ctx.limits();
        let windows = mesh
            .position_windows()
            .ok_or_else(|| {
                Error::gpu_limit(format!(
                    "adapter '{}' runs no compute shaders; deform on the CPU",
                    ctx.adapter_name()
                ))
            })?
            .clone();
        let storage_needed = 4 + windows.count();
        if storage_needed > limits.max_storage_buffers_per_shader_stage {
            return Err(Error::gpu_limit(format!(
                "the scene's positions need {} storage bindings; adapter '{}' binds {} per pass",
                windows.count(),
                ctx.adapter_name(),
                limits.max_storage_buffers_per_shader_stage
            )));
        }
        let limit = binding_limit(ctx, options.max_binding_bytes);
        let bound: Vec<usize> = (0..motion.groups.len())
            .filter(|&gi| binding.groups[gi].is_some())
            .collect();
        let (owners, first_ordinal) = owners(mesh.vertex_count as usize, motion, &bound)?;
        let plan = plan_chunks(motion, &bound, limit, options.basis)?;

        let mut slots = vec![
            Slot::Uniform,
            Slot::Read,
            Slot::Read,
            Slot::Read,
            Slot::Read,
        ];
        slots.extend((0..windows.count()).map(|_| Slot::ReadWrite));
        let layout = compute_layout(device, "deform", &slots);
        let source_text = options.basis.wgsl().to_string()
            + &windows.wgsl("positions", "f32", true, 5)
            + include_str!("../../shaders/deform.wgsl");
        let pipeline = compute_pipeline(device, "deform", &layout, source_text);

        let params: usize = plan
            .iter()
            .map(|c| 12 + motion.groups[c.group].basis_len)
            .sum();
        let frame_params = vec![0f32; params.max(1)];
        let mut upload = Upload::new(ctx, "the motion");
        let frame_buffer = upload.buffer_with(
            "deform frame parameters",
            bytemuck::cast_slice(&frame_params),
            wgpu::BufferUsages::STORAGE,
        );
        let mut chunks = Vec::with_capacity(plan.len());
        let mut basis_bytes = 0;
        let mut param_offset = 0;
        let mut values: Vec<f32> = Vec::new();
        let mut encoded: Vec<u8> = Vec::new();
        for c in &plan {
            let g = &motion.groups[c.group];
            let (r, n) = (g.basis_len, c.vertices.len());
            let rows = 3 * c.vertices.start..3 * c.vertices.end;
            let key = |i: usize| first_ordinal[c.group] + i as u32;
            let targets: Vec<u32> = c
                .vertices
                .clone()
                .map(|i| {
                    let m = g.mapping[i] as usize - 1;
                    if owners[m] == key(i) { m as u32 } else { SKIP }
                })
                .collect();
            let targets = upload.buffer_with(
                "motion vertex targets",
                bytemuck::cast_slice(&targets),
                wgpu::BufferUsages::STORAGE,
            );
            values.resize(3 * n, 0.0);
            source.read_mean(c.group, rows.clone(), &mut values);
            let mean = upload.buffer_with(
                "mean pose",
                bytemuck::cast_slice(&values),
                wgpu::BufferUsages::STORAGE,
            );
            let stride = options.basis.stride(n as u64);
            let size = options.basis.chunk_bytes(n as u64, r as u64);
            basis_bytes += size;
            let basis = upload.buffer("basis", size, wgpu::BufferUsages::STORAGE);
            let mut scales = Vec::with_capacity(r);
            for j in 0..r {
                source.read_basis(c.group, j, rows.clone(), &mut values);
                encoded.clear();
                scales.push(
                    options
                        .basis
                        .encode_column(&mut values, stride, &mut encoded),
                );
                upload.write(&basis, encoded.len() as u64 * j as u64, &encoded);
            }
            let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("deform chunk"),
                contents: bytemuck::cast_slice(&[
                    n as u32,
                    r as u32,
                    param_offset as u32,
                    stride as u32,
                ]),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let mut entries = vec![
                entry(0, &uniform),
                entry(1, &targets),
                entry(2, &mean),
                entry(3, &basis),
                entry(4, &frame_buffer),
            ];
            entries.extend(windows.entries(5, &mesh.positions));
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("deform chunk"),
                layout: &layout,
                entries: &entries,
            });
            chunks.push(Chunk {
                group: c.group,
                vertex_count: n as u32,
                param_offset,
                scales,
                bind_group,
            });
            param_offset += 12 + r;
        }
        drop(owners);
        upload.finish()?;
        Ok(Self {
            ctx: ctx.clone(),
            timing: timing(motion),
            mesh,
            pipeline,
            chunks,
            basis_bytes,
            frame_buffer,
            frame_params,
        })
    }

    /// The deformed mesh, to draw with [`super::render::Renderer`].
    pub fn mesh(&self) -> &GpuMesh {
        &self.mesh
    }

    /// Dispatches of the deformation per frame: one per chunk (more than one
    /// per group when its arrays exceed a storage binding).
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Bytes of basis stored on the GPU: what one frame reads.
    pub fn basis_bytes(&self) -> u64 {
        self.basis_bytes
    }

    /// Writes the coefficients and transforms for time `t` (in timesteps) to
    /// the GPU; the next [`GpuDeformer::encode`] uses them.
    pub(crate) fn set_time(&mut self, t: f64) {
        let Some(at) = Between::at_steps(&self.timing, t) else {
            return;
        };
        for chunk in &self.chunks {
            let g = &self.timing.groups[chunk.group];
            let r = g.basis_len;
            let m = at.transform(&self.timing, g.parent);
            let out = &mut self.frame_params[chunk.param_offset..chunk.param_offset + 12 + r];
            for (o, &x) in out.iter_mut().zip(&m) {
                *o = x as f32;
            }
            for (j, &scale) in chunk.scales.iter().enumerate() {
                out[12 + j] = (at.coefficient(g, j) * f64::from(scale)) as f32;
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
    /// the time's uniforms, [`GpuDeformer::encode`] and a submit. Does not wait.
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
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_positions(&self) -> Result<Vec<[f32; 3]>> {
        self.mesh.read_positions(&self.ctx)
    }

    /// [`GpuDeformer::read_positions`] without blocking (a web page awaits it).
    pub async fn read_positions_async(&self) -> Result<Vec<[f32; 3]>> {
        self.mesh.read_positions_async(&self.ctx).await
    }

    /// Every `.obj` vertex's current normal, read back from the GPU.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_normals(&self) -> Result<Vec<[f32; 3]>> {
        self.mesh.read_normals(&self.ctx)
    }
}

/// `binding` was made for `motion`: one entry per group.
fn check_binding(binding: &Binding, motion: &MemgMotion) -> Result<()> {
    if binding.groups.len() == motion.groups.len() {
        return Ok(());
    }
    Err(Error::gpu_misuse(format!(
        "the binding has {} groups, the motion {}",
        binding.groups.len(),
        motion.groups.len()
    )))
}

/// Per `.obj` vertex, the motion vertex that moves it last, `u32::MAX` for
/// none: the one whose write stands. Motion vertices are numbered through the
/// `bound` groups in order (4 bytes per `.obj` vertex where a group and an
/// index would take 8: at ten million vertices the table is held while the
/// basis uploads); the second vector holds, per motion group, the number of
/// its first vertex.
fn owners(
    scene_vertices: usize,
    motion: &MemgMotion,
    bound: &[usize],
) -> Result<(Vec<u32>, Vec<u32>)> {
    let total: u64 = bound
        .iter()
        .map(|&gi| motion.groups[gi].vertex_count() as u64)
        .sum();
    if total >= u64::from(SKIP) {
        return Err(Error::gpu_limit(format!(
            "the motion's bound groups have {total} vertices; the GPU numbers them in 32 bits (at most {})",
            SKIP - 1
        )));
    }
    let mut first_ordinal = vec![0u32; motion.groups.len()];
    let mut next = 0u32;
    for &gi in bound {
        first_ordinal[gi] = next;
        next += motion.groups[gi].vertex_count() as u32;
    }
    let mut owners = vec![SKIP; scene_vertices];
    for &gi in bound {
        let g = &motion.groups[gi];
        for (i, &m) in g.mapping.iter().enumerate() {
            let slot = (m as usize)
                .checked_sub(1)
                .and_then(|m| owners.get_mut(m))
                .ok_or_else(|| {
                    Error::gpu_misuse(format!(
                        "group '{}' maps vertex {i} to .obj vertex {m}, outside the scene",
                        g.name
                    ))
                })?;
            *slot = first_ordinal[gi] + i as u32;
        }
    }
    Ok((owners, first_ordinal))
}

/// A planned chunk: vertices `vertices` of group `group`.
struct PlannedChunk {
    group: usize,
    vertices: std::ops::Range<usize>,
}

/// Cuts every bound group into runs of vertices whose mean pose (12 bytes
/// each), targets (4) and basis each fit `limit` bytes.
fn plan_chunks(
    motion: &MemgMotion,
    bound: &[usize],
    limit: u64,
    basis: BasisFormat,
) -> Result<Vec<PlannedChunk>> {
    let mut chunks = Vec::new();
    for &gi in bound {
        let g: &MemgGroup = &motion.groups[gi];
        let r = g.basis_len as u64;
        let most = (limit / 12).min(basis.max_vertices(r, limit));
        if most == 0 {
            return Err(Error::gpu_limit(format!(
                "group '{}': one vertex's {r} basis vectors need {} bytes as {basis}, more than a storage binding holds ({limit})",
                g.name,
                basis.chunk_bytes(1, r)
            )));
        }
        let most = most.min(u32::MAX as u64) as usize;
        let v = g.vertex_count();
        chunks.extend((0..v).step_by(most).map(|lo| PlannedChunk {
            group: gi,
            vertices: lo..(lo + most).min(v),
        }));
    }
    Ok(chunks)
}

/// The motion's frames and coefficients, without its large arrays.
fn timing(motion: &MemgMotion) -> MemgMotion {
    MemgMotion {
        byte_order: motion.byte_order,
        fps: motion.fps,
        local_frames: motion.local_frames,
        timesteps: motion.timesteps,
        frames: motion.frames.clone(),
        groups: motion
            .groups
            .iter()
            .map(|g| MemgGroup {
                name: g.name.clone(),
                parent: g.parent,
                basis_len: g.basis_len,
                coeffs: g.coeffs.clone(),
                ..MemgGroup::default()
            })
            .collect(),
        warnings: Vec::new(),
    }
}
