//! A triangle mesh on the GPU whose positions may change every frame, with
//! normals recomputed from the faces by a compute pass.
//!
//! Positions and normals are storage buffers that are also vertex buffers
//! (`STORAGE | VERTEX`), so deformed geometry goes straight from the compute
//! passes to the render pipeline without a read-back.

use super::context::GpuContext;
use super::upload::{Upload, megabytes};
use super::util::{
    Slot, binding_limit, compute_layout, compute_pipeline, dispatch_size, entry, range_entry,
};
use super::windows::Windows;
use crate::error::{Error, Result};
use crate::formats::obj::ObjScene;
use crate::scene::colour::group_colour;
use wgpu::util::DeviceExt;

/// One draw of a mesh: a group's triangles in one colour.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshDraw {
    /// Range of indices (3 per triangle) in the mesh's index buffer.
    pub indices: std::ops::Range<u32>,
    /// Linear RGBA colour.
    pub colour: [f32; 4],
}

/// Tuning for [`GpuMesh::new`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeshOptions {
    /// Largest storage binding in bytes; `None` uses the device's
    /// `max_storage_buffer_binding_size`. A smaller value forces the normal
    /// pass to bind the positions and triangles in more windows and to run in
    /// more dispatches (tests use it to exercise the splits).
    pub max_binding_bytes: Option<u64>,
    /// Build the wireframe's edge list (as many indices as the triangles;
    /// a window toggles wireframe at any time, a one-off picture may not need it).
    pub edges: bool,
}

/// One dispatch of the normal pass: a run of vertices and its bindings.
#[derive(Debug)]
struct NormalsDispatch {
    vertex_count: u32,
    bind_group: wgpu::BindGroup,
}

/// A mesh's GPU buffers and its normal pass.
#[derive(Debug)]
pub struct GpuMesh {
    /// Vertex positions, `3 × f32` per vertex (`STORAGE | VERTEX | COPY_*`).
    pub positions: wgpu::Buffer,
    /// Vertex normals, `3 × f32` per vertex (`STORAGE | VERTEX | COPY_SRC`).
    pub normals: wgpu::Buffer,
    /// Triangle indices, `u32` (`STORAGE | INDEX`).
    pub indices: wgpu::Buffer,
    /// Unique edges as a line list, `u32` (`INDEX`), for the wireframe; `None`
    /// unless [`MeshOptions::edges`] asked for them.
    pub edges: Option<wgpu::Buffer>,
    /// Number of indices in `edges`.
    pub edge_index_count: u32,
    /// Number of vertices.
    pub vertex_count: u32,
    /// One draw per group that has triangles.
    pub draws: Vec<MeshDraw>,
    /// How the normals follow the positions.
    normals_by: NormalsBy,
}

/// How a mesh's normals are recomputed when its positions change.
#[derive(Debug)]
enum NormalsBy {
    /// A compute pass on the GPU.
    Pass(NormalPass),
    /// The CPU, when positions are written ([`GpuMesh::write_positions`]):
    /// an adapter without compute shaders (WebGL2) only draws.
    Cpu {
        /// The scene's triangles.
        triangles: Vec<[u32; 3]>,
    },
}

/// The normal pass and how it binds the mesh.
#[derive(Debug)]
struct NormalPass {
    /// How compute passes bind `positions` (shared with the deformation pass).
    position_windows: Windows,
    pipeline: wgpu::ComputePipeline,
    dispatches: Vec<NormalsDispatch>,
}

impl GpuMesh {
    /// Uploads `scene` at its rest pose; colours come from each group's
    /// material `Kd`, or a palette. The deformer computes its normals before
    /// drawing.
    ///
    /// Every array larger than a storage binding is bound in windows or
    /// covered by several dispatches; a buffer larger than the device's
    /// `max_buffer_size`, more windows than it binds at once, or memory it
    /// cannot allocate, is an error naming the sizes.
    pub fn new(ctx: &GpuContext, scene: &ObjScene, options: &MeshOptions) -> Result<Self> {
        let vertex_count = u32::try_from(scene.positions.len())
            .map_err(|_| Error::gpu_limit("the scene has more than 2^32 vertices"))?;
        let compute = ctx.has_compute();
        let (position_windows, triangle_windows) = match compute {
            true => plan_windows(ctx, scene, options)?,
            false => (None, None),
        };
        // A storage buffer leaves room for one item when there are none.
        let position_bytes = position_windows
            .as_ref()
            .map_or(12 * u64::from(vertex_count.max(1)), Windows::buffer_bytes);
        let triangle_bytes = triangle_windows.as_ref().map_or(
            12 * (scene.triangles.len().max(1) as u64),
            Windows::buffer_bytes,
        );
        let storage = match compute {
            true => wgpu::BufferUsages::STORAGE,
            false => wgpu::BufferUsages::COPY_DST,
        };

        let mut upload = Upload::new(ctx, "the mesh");
        let positions = upload.buffer(
            "positions",
            position_bytes,
            storage | wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_SRC,
        );
        upload.write(&positions, 0, bytemuck::cast_slice(&scene.positions));
        let normals = upload.buffer(
            "normals",
            position_bytes,
            storage | wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_SRC,
        );
        let indices = upload.buffer(
            "triangles",
            triangle_bytes,
            storage | wgpu::BufferUsages::INDEX,
        );
        upload.write(&indices, 0, bytemuck::cast_slice(&scene.triangles));
        let (edges, edge_index_count) = if options.edges {
            let edge_list = unique_edges(&scene.triangles);
            let count = edge_list.len() as u32;
            let buffer = upload.buffer_with(
                "edges",
                bytemuck::cast_slice(&edge_list),
                wgpu::BufferUsages::INDEX,
            );
            (Some(buffer), count)
        } else {
            (None, 0)
        };
        let normals_by = match (position_windows, triangle_windows) {
            (Some(position_windows), Some(triangle_windows)) => NormalsBy::Pass(NormalPass::new(
                ctx,
                &mut upload,
                scene,
                options,
                [&positions, &normals, &indices],
                position_windows,
                triangle_windows,
            )?),
            _ => {
                let mut rest = Vec::new();
                smooth_normals(&scene.positions, &scene.triangles, &mut rest);
                upload.write(&normals, 0, bytemuck::cast_slice(&rest));
                NormalsBy::Cpu {
                    triangles: scene.triangles.clone(),
                }
            }
        };
        upload.finish()?;
        let draws = scene
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| !g.triangles.is_empty())
            .map(|(i, g)| MeshDraw {
                indices: 3 * g.triangles.start as u32..3 * g.triangles.end as u32,
                colour: group_colour(scene, i),
            })
            .collect();
        let mesh = Self {
            positions,
            normals,
            indices,
            edges,
            edge_index_count,
            vertex_count,
            draws,
            normals_by,
        };
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        mesh.encode_normals(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        ctx.check()?;
        Ok(mesh)
    }

    /// How compute passes bind [`GpuMesh::positions`]: the deformation pass
    /// writes them through the same windows.
    /// `None` without a compute pass (see [`GpuContext::has_compute`]).
    pub(crate) fn position_windows(&self) -> Option<&Windows> {
        match &self.normals_by {
            NormalsBy::Pass(pass) => Some(&pass.position_windows),
            NormalsBy::Cpu { .. } => None,
        }
    }

    /// Storage bindings the positions take in a compute pass: more than one
    /// when they exceed a binding.
    pub fn position_window_count(&self) -> u32 {
        self.position_windows().map_or(0, Windows::count)
    }

    /// Dispatches of the normal pass per frame (more than one when its arrays
    /// exceed a storage binding).
    pub fn normals_dispatch_count(&self) -> usize {
        match &self.normals_by {
            NormalsBy::Pass(pass) => pass.dispatches.len(),
            NormalsBy::Cpu { .. } => 0,
        }
    }

    /// Records the pass that recomputes normals from the current positions.
    /// Without compute shaders the normals were written with the positions.
    pub(crate) fn encode_normals(&self, encoder: &mut wgpu::CommandEncoder) {
        let NormalsBy::Pass(normal_pass) = &self.normals_by else {
            return;
        };
        if normal_pass.dispatches.is_empty() {
            return;
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("normals"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&normal_pass.pipeline);
        for dispatch in &normal_pass.dispatches {
            pass.set_bind_group(0, &dispatch.bind_group, &[]);
            let (x, y) = dispatch_size(dispatch.vertex_count);
            pass.dispatch_workgroups(x, y, 1);
        }
    }

    /// Overwrites the positions with `positions` (one per vertex), deformed
    /// elsewhere (the CPU); call [`GpuMesh::encode_normals`] after. Without
    /// compute shaders the normals are worked out here, into `scratch`.
    pub(crate) fn write_positions(
        &self,
        ctx: &GpuContext,
        positions: &[[f32; 3]],
        scratch: &mut Vec<[f32; 3]>,
    ) {
        if positions.is_empty() {
            return;
        }
        ctx.queue
            .write_buffer(&self.positions, 0, bytemuck::cast_slice(positions));
        if let NormalsBy::Cpu { triangles } = &self.normals_by {
            smooth_normals(positions, triangles, scratch);
            ctx.queue
                .write_buffer(&self.normals, 0, bytemuck::cast_slice(scratch));
        }
    }

    /// Reads the positions back (for tests and exports; not on the display
    /// path). Blocks: native only.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_positions(&self, ctx: &GpuContext) -> Result<Vec<[f32; 3]>> {
        pollster::block_on(self.read_positions_async(ctx))
    }

    /// [`GpuMesh::read_positions`] without blocking (a web page awaits it).
    pub async fn read_positions_async(&self, ctx: &GpuContext) -> Result<Vec<[f32; 3]>> {
        read_vec3(ctx, &self.positions, self.vertex_count).await
    }

    /// Reads the normals back (for tests).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_normals(&self, ctx: &GpuContext) -> Result<Vec<[f32; 3]>> {
        pollster::block_on(read_vec3(ctx, &self.normals, self.vertex_count))
    }
}

/// The windows the positions and triangles are bound in by compute passes,
/// checked against the device's binding count and buffer size.
fn plan_windows(
    ctx: &GpuContext,
    scene: &ObjScene,
    options: &MeshOptions,
) -> Result<(Option<Windows>, Option<Windows>)> {
    let limits = ctx.limits();
    let limit = binding_limit(ctx, options.max_binding_bytes);
    let align = u64::from(limits.min_storage_buffer_offset_alignment);
    let position_windows = Windows::plan("positions", scene.positions.len() as u64, limit, align)?;
    let triangle_windows = Windows::plan("triangles", scene.triangles.len() as u64, limit, align)?;
    let storage_needed = 3 + position_windows.count() + triangle_windows.count();
    if storage_needed > limits.max_storage_buffers_per_shader_stage {
        return Err(Error::gpu_limit(format!(
            "the scene's positions ({}) and triangles ({}) need {storage_needed} storage bindings of at most {limit} bytes in one pass; adapter '{}' binds {}",
            megabytes(position_windows.buffer_bytes()),
            megabytes(triangle_windows.buffer_bytes()),
            ctx.adapter_name(),
            limits.max_storage_buffers_per_shader_stage
        )));
    }
    for (what, bytes) in [
        ("positions", position_windows.buffer_bytes()),
        ("triangles", triangle_windows.buffer_bytes()),
    ] {
        if bytes > limits.max_buffer_size {
            return Err(Error::gpu_limit(format!(
                "the scene's {what} need {} in one GPU buffer; adapter '{}' allows {}",
                megabytes(bytes),
                ctx.adapter_name(),
                megabytes(limits.max_buffer_size)
            )));
        }
    }
    Ok((Some(position_windows), Some(triangle_windows)))
}

impl NormalPass {
    /// The pass over the mesh's `[positions, normals, indices]` buffers,
    /// with its adjacency uploaded through `upload`.
    fn new(
        ctx: &GpuContext,
        upload: &mut Upload<'_>,
        scene: &ObjScene,
        options: &MeshOptions,
        [positions, normals, indices]: [&wgpu::Buffer; 3],
        position_windows: Windows,
        triangle_windows: Windows,
    ) -> Result<NormalPass> {
        let device = &ctx.device;
        let limit = binding_limit(ctx, options.max_binding_bytes);
        let align = u64::from(ctx.limits().min_storage_buffer_offset_alignment);
        let (offsets, incident) = vertex_triangles(scene.positions.len(), &scene.triangles);
        let spans = normal_spans(&offsets, limit, align)?;
        let offsets_buffer = upload.buffer_with(
            "vertex→triangle offsets",
            bytemuck::cast_slice(&offsets),
            wgpu::BufferUsages::STORAGE,
        );
        let incident_buffer = upload.buffer_with(
            "vertex→triangle lists",
            bytemuck::cast_slice(&incident),
            wgpu::BufferUsages::STORAGE,
        );
        drop(incident);

        let mut slots = vec![Slot::Uniform, Slot::Read, Slot::Read, Slot::ReadWrite];
        slots.extend((0..position_windows.count() + triangle_windows.count()).map(|_| Slot::Read));
        let layout = compute_layout(device, "normals", &slots);
        let source = position_windows.wgsl("positions", "f32", false, 4)
            + &triangle_windows.wgsl("triangles", "u32", false, 4 + position_windows.count())
            + include_str!("../../shaders/normals.wgsl");
        let pipeline = compute_pipeline(device, "normals", &layout, source);
        let mut dispatches = Vec::with_capacity(spans.len());
        for span in &spans {
            let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("normals params"),
                contents: bytemuck::cast_slice(&[span.first, span.count, span.incident_base, 0]),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let first = u64::from(span.first);
            let count = u64::from(span.count);
            let mut entries = vec![
                entry(0, &params),
                range_entry(1, &offsets_buffer, 4 * first, 4 * (count + 1)),
                range_entry(
                    2,
                    &incident_buffer,
                    4 * u64::from(span.incident_base),
                    4 * u64::from(span.incident_len),
                ),
                range_entry(3, normals, 12 * first, 12 * count),
            ];
            entries.extend(position_windows.entries(4, positions));
            entries.extend(triangle_windows.entries(4 + position_windows.count(), indices));
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("normals"),
                layout: &layout,
                entries: &entries,
            });
            dispatches.push(NormalsDispatch {
                vertex_count: span.count,
                bind_group,
            });
        }
        Ok(NormalPass {
            position_windows,
            pipeline,
            dispatches,
        })
    }
}

/// Area-weighted unit vertex normals of `triangles` over `positions`, into
/// `out`: what the normal pass computes, for adapters without one. A vertex
/// on no triangle of any area gets +y, as there.
fn smooth_normals(positions: &[[f32; 3]], triangles: &[[u32; 3]], out: &mut Vec<[f32; 3]>) {
    use glam::Vec3;
    out.clear();
    out.resize(positions.len(), [0.0; 3]);
    let at = |i: u32| {
        positions
            .get(i as usize)
            .map_or(Vec3::ZERO, |p| Vec3::from(*p))
    };
    for t in triangles {
        let [a, b, c] = t.map(at);
        // Unnormalised: twice the area, so larger faces weigh more.
        let n = (b - a).cross(c - a);
        for &i in t {
            if let Some(sum) = out.get_mut(i as usize) {
                *sum = (Vec3::from(*sum) + n).into();
            }
        }
    }
    for n in out.iter_mut() {
        let v = Vec3::from(*n);
        let len = v.length();
        *n = if len > 1e-30 {
            (v / len).into()
        } else {
            [0.0, 1.0, 0.0]
        };
    }
}

async fn read_vec3(ctx: &GpuContext, buffer: &wgpu::Buffer, count: u32) -> Result<Vec<[f32; 3]>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let bytes = ctx.read_buffer_async(buffer, u64::from(count) * 12).await?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}

/// One normal-pass dispatch: vertices `first..first + count`, whose incident
/// triangle lists lie in `incident[incident_base..incident_base + incident_len]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    first: u32,
    count: u32,
    incident_base: u32,
    incident_len: u32,
}

/// Splits the vertices into dispatches whose offsets, incident lists and
/// normals each fit a binding of `limit` bytes, every binding starting on
/// `align` bytes. `offsets` is the CSR offset array (one more than vertices).
fn normal_spans(offsets: &[u32], limit: u64, align: u64) -> Result<Vec<Span>> {
    let vertices = offsets.len() - 1;
    // Vertex starts are multiples of `step`, so `4 × first` and `12 × first` fall on `align`.
    let step = (align / 4).max(1) as usize;
    let index_step = (align / 4).max(1) as u32;
    let fits = |a: usize, b: usize| {
        let base = offsets[a] / index_step * index_step;
        let incident = u64::from(offsets[b] - base).max(1);
        12 * (b - a) as u64 <= limit && 4 * (b - a + 1) as u64 <= limit && 4 * incident <= limit
    };
    let mut spans = Vec::new();
    let mut a = 0;
    while a < vertices {
        let mut b = a;
        loop {
            let next = (b + step).min(vertices);
            if next == b || !fits(a, next) {
                break;
            }
            b = next;
        }
        if b == a {
            return Err(Error::gpu_limit(format!(
                "vertices {a}..{}: their normals' inputs do not fit a storage binding of {limit} bytes",
                (a + step).min(vertices)
            )));
        }
        let base = offsets[a] / index_step * index_step;
        spans.push(Span {
            first: a as u32,
            count: (b - a) as u32,
            incident_base: base,
            incident_len: (offsets[b] - base).max(1),
        });
        a = b;
    }
    Ok(spans)
}

/// CSR adjacency: `incident[offsets[v]..offsets[v + 1]]` lists the triangles
/// using `v`. Built in place (the offsets serve as fill cursors and are
/// shifted back after), so a scene of millions holds no third array.
fn vertex_triangles(vertex_count: usize, triangles: &[[u32; 3]]) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = vec![0u32; vertex_count + 1];
    for t in triangles {
        for &v in t {
            offsets[v as usize + 1] += 1;
        }
    }
    for v in 0..vertex_count {
        offsets[v + 1] += offsets[v];
    }
    // One spare entry: a dispatch whose vertices have no triangles still binds one.
    let mut incident = vec![0u32; offsets[vertex_count] as usize + 1];
    for (i, t) in triangles.iter().enumerate() {
        for &v in t {
            let cursor = &mut offsets[v as usize];
            incident[*cursor as usize] = i as u32;
            *cursor += 1;
        }
    }
    // Each cursor now stands where the next vertex's list starts.
    offsets.copy_within(..vertex_count, 1);
    offsets[0] = 0;
    (offsets, incident)
}

/// Each edge of the triangles once, as index pairs.
fn unique_edges(triangles: &[[u32; 3]]) -> Vec<u32> {
    let mut edges: Vec<(u32, u32)> = triangles
        .iter()
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    edges.into_iter().flat_map(|(a, b)| [a, b]).collect()
}

#[cfg(test)]
mod tests {
    use super::smooth_normals;

    #[test]
    fn cpu_normals_are_area_weighted_and_unit() {
        // Two faces on the edge 0–1: one in the xy plane (cross product
        // (0, 0, 1)), one twice as large in the xz plane ((0, 2, 0)); vertex 4
        // is on no face.
        let positions = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 2.0],
            [5.0, 5.0, 5.0],
        ];
        let mut normals = Vec::new();
        smooth_normals(&positions, &[[0, 1, 2], [0, 3, 1]], &mut normals);
        let shared = [0.0, 2.0 / 5f32.sqrt(), 1.0 / 5f32.sqrt()];
        let expected = [
            shared,
            shared,
            [0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        assert_eq!(normals.len(), expected.len());
        for (n, e) in normals.iter().zip(&expected) {
            for a in 0..3 {
                assert!((n[a] - e[a]).abs() < 1e-6, "{n:?} vs {e:?}");
            }
        }
    }
}
