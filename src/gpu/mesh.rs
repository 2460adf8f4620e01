//! A triangle mesh on the GPU whose positions may change every frame, with
//! normals recomputed from the faces by a compute pass.
//!
//! Positions and normals are storage buffers that are also vertex buffers
//! (`STORAGE | VERTEX`), so deformed geometry goes straight from the compute
//! passes to the render pipeline without a read-back.

use super::context::GpuContext;
use super::util::{compute_layout, compute_pipeline, dispatch_size, entry};
use crate::error::Result;
use crate::formats::obj::ObjScene;
use wgpu::util::DeviceExt;

/// Colours for groups without a material (sRGB, Tableau-like).
const PALETTE: [[f32; 3]; 8] = [
    [0.89, 0.35, 0.25],
    [0.27, 0.55, 0.84],
    [0.36, 0.70, 0.38],
    [0.95, 0.71, 0.20],
    [0.62, 0.43, 0.77],
    [0.30, 0.74, 0.76],
    [0.90, 0.50, 0.66],
    [0.60, 0.60, 0.58],
];

/// One draw of a mesh: a group's triangles in one colour.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshDraw {
    /// Range of indices (3 per triangle) in the mesh's index buffer.
    pub indices: std::ops::Range<u32>,
    /// Linear RGBA colour.
    pub colour: [f32; 4],
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
    /// Unique edges as a line list, `u32` (`INDEX`), for the wireframe.
    pub edges: wgpu::Buffer,
    /// Number of indices in `edges`.
    pub edge_index_count: u32,
    /// Number of vertices.
    pub vertex_count: u32,
    /// One draw per group that has triangles.
    pub draws: Vec<MeshDraw>,
    normals_pipeline: wgpu::ComputePipeline,
    normals_bind_group: wgpu::BindGroup,
}

impl GpuMesh {
    /// Uploads `scene` at its rest pose; colours come from each group's
    /// material `Kd`, or a palette. Call [`GpuMesh::encode_normals`] (or let
    /// the deformer do it) before drawing.
    pub fn new(ctx: &GpuContext, scene: &ObjScene) -> Result<Self> {
        let device = &ctx.device;
        let vertex_count = scene.positions.len();
        // wgpu rejects zero-sized bindings; an empty scene still gets 1 vertex of room.
        let room = vertex_count.max(1);
        let mut rest = scene.positions.clone();
        rest.resize(room, [0.0; 3]);
        let positions = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("positions"),
            contents: bytemuck::cast_slice(&rest),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        });
        let normals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("normals"),
            size: (room * 12) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut triangles: Vec<u32> = scene.triangles.iter().flatten().copied().collect();
        if triangles.is_empty() {
            triangles.extend([0, 0, 0]);
        }
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("triangles"),
            contents: bytemuck::cast_slice(&triangles),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDEX,
        });
        let mut edge_list = unique_edges(&scene.triangles);
        let edge_index_count = edge_list.len() as u32;
        if edge_list.is_empty() {
            edge_list.extend([0, 0]);
        }
        let edges = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("edges"),
            contents: bytemuck::cast_slice(&edge_list),
            usage: wgpu::BufferUsages::INDEX,
        });
        let (offsets, incident) = vertex_triangles(vertex_count, &scene.triangles);
        let offsets = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vertex→triangle offsets"),
            contents: bytemuck::cast_slice(&offsets),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let incident = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vertex→triangle lists"),
            contents: bytemuck::cast_slice(&incident),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("normals params"),
            contents: bytemuck::cast_slice(&[vertex_count as u32, 0, 0, 0]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("normals.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("../../shaders/normals.wgsl").into()),
        });
        let layout = compute_layout(device, "normals", 4);
        let normals_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("normals"),
            layout: &layout,
            entries: &[
                entry(0, &params),
                entry(1, &positions),
                entry(2, &indices),
                entry(3, &offsets),
                entry(4, &incident),
                entry(5, &normals),
            ],
        });
        let normals_pipeline = compute_pipeline(device, "normals", &layout, &module);
        let draws = scene
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| !g.triangles.is_empty())
            .map(|(i, g)| {
                let srgb = g
                    .material
                    .and_then(|m| scene.materials.get(m))
                    .map(|m| m.diffuse)
                    .unwrap_or(PALETTE[i % PALETTE.len()]);
                MeshDraw {
                    indices: 3 * g.triangles.start as u32..3 * g.triangles.end as u32,
                    colour: [
                        srgb_to_linear(srgb[0]),
                        srgb_to_linear(srgb[1]),
                        srgb_to_linear(srgb[2]),
                        1.0,
                    ],
                }
            })
            .collect();
        let mesh = Self {
            positions,
            normals,
            indices,
            edges,
            edge_index_count,
            vertex_count: vertex_count as u32,
            draws,
            normals_pipeline,
            normals_bind_group,
        };
        let mut encoder = device.create_command_encoder(&Default::default());
        mesh.encode_normals(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        ctx.check()?;
        Ok(mesh)
    }

    /// Records the pass that recomputes normals from the current positions.
    pub fn encode_normals(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.vertex_count == 0 {
            return;
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("normals"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.normals_pipeline);
        pass.set_bind_group(0, &self.normals_bind_group, &[]);
        let (x, y) = dispatch_size(self.vertex_count);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Reads the positions back (for tests and exports; not on the display path).
    pub fn read_positions(&self, ctx: &GpuContext) -> Result<Vec<[f32; 3]>> {
        read_vec3(ctx, &self.positions, self.vertex_count)
    }

    /// Reads the normals back (for tests).
    pub fn read_normals(&self, ctx: &GpuContext) -> Result<Vec<[f32; 3]>> {
        read_vec3(ctx, &self.normals, self.vertex_count)
    }
}

fn read_vec3(ctx: &GpuContext, buffer: &wgpu::Buffer, count: u32) -> Result<Vec<[f32; 3]>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let bytes = ctx.read_buffer(buffer, u64::from(count) * 12)?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}

/// CSR adjacency: `incident[offsets[v]..offsets[v + 1]]` lists the triangles using `v`.
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
    let mut fill = offsets.clone();
    let mut incident = vec![0u32; offsets[vertex_count] as usize];
    for (i, t) in triangles.iter().enumerate() {
        for &v in t {
            incident[fill[v as usize] as usize] = i as u32;
            fill[v as usize] += 1;
        }
    }
    if incident.is_empty() {
        incident.push(0);
    }
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

/// The sRGB transfer function inverted (material colours are authored in sRGB).
pub(crate) fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}
