//! What the renderer streams to the GPU: per-instance and line vertex
//! records, the uniforms, the unit shapes' buffers, and growable vertex streams.

use super::super::context::GpuContext;
use crate::scene::shapes::Grid;
use crate::scene::unit_mesh::UnitMesh;
use glam::{Mat3, Mat4, Vec3};
use wgpu::util::DeviceExt;

/// Per-instance data of the lit pipeline: model and normal matrices, colour.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct Instance {
    pub(super) model: [[f32; 4]; 4],
    pub(super) normal: [[f32; 4]; 3],
    pub(super) colour: [f32; 4],
}

impl Instance {
    pub(super) fn new(model: Mat4, colour: [f32; 4]) -> Self {
        let linear = Mat3::from_mat4(model);
        // Normals transform by the inverse transpose (non-uniform scales).
        let normal = if linear.determinant().abs() > 1e-20 {
            linear.inverse().transpose()
        } else {
            Mat3::IDENTITY
        };
        Self {
            model: model.to_cols_array_2d(),
            normal: [
                normal.x_axis.extend(0.0).to_array(),
                normal.y_axis.extend(0.0).to_array(),
                normal.z_axis.extend(0.0).to_array(),
            ],
            colour,
        }
    }
}

/// A vertex of the line pipeline.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct LineVertex {
    pub(super) position: [f32; 3],
    pub(super) colour: [f32; 4],
}

/// `shaders/render.wgsl`'s uniforms.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct Globals {
    pub(super) view_proj: [[f32; 4]; 4],
    pub(super) eye: [f32; 4],
    pub(super) key_dir: [f32; 4],
    pub(super) fill_dir: [f32; 4],
    pub(super) light: [f32; 4],
}

/// A unit primitive's buffers.
#[derive(Debug)]
pub(super) struct UnitBuffers {
    pub(super) positions: wgpu::Buffer,
    pub(super) normals: wgpu::Buffer,
    pub(super) indices: wgpu::Buffer,
    pub(super) index_count: u32,
}

impl UnitBuffers {
    pub(super) fn new(device: &wgpu::Device, mesh: &UnitMesh) -> Self {
        let init = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        Self {
            positions: init(
                "unit positions",
                bytemuck::cast_slice(&mesh.positions),
                wgpu::BufferUsages::VERTEX,
            ),
            normals: init(
                "unit normals",
                bytemuck::cast_slice(&mesh.normals),
                wgpu::BufferUsages::VERTEX,
            ),
            indices: init(
                "unit indices",
                bytemuck::cast_slice(&mesh.indices),
                wgpu::BufferUsages::INDEX,
            ),
            index_count: mesh.indices.len() as u32,
        }
    }
}

/// A vertex buffer rewritten each frame, grown when too small.
#[derive(Debug)]
pub(super) struct Stream {
    pub(super) label: &'static str,
    pub(super) buffer: wgpu::Buffer,
}

impl Stream {
    pub(super) fn new(device: &wgpu::Device, label: &'static str) -> Self {
        Self {
            label,
            buffer: Self::create(device, label, 4096),
        }
    }

    fn create(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    pub(super) fn write(&mut self, ctx: &GpuContext, bytes: &[u8]) {
        if bytes.len() as u64 > self.buffer.size() {
            self.buffer = Self::create(
                &ctx.device,
                self.label,
                (bytes.len() as u64).next_power_of_two(),
            );
        }
        if !bytes.is_empty() {
            ctx.queue.write_buffer(&self.buffer, 0, bytes);
        }
    }
}

/// `grid` as short segments whose alpha fades toward the rim.
pub(super) fn grid_lines(grid: &Grid, colour: [f32; 4], out: &mut Vec<LineVertex>) {
    let n = (grid.half_extent / grid.spacing).round().max(1.0) as i32;
    let point = |i: i32, j: i32| {
        grid.centre + Vec3::new(i as f32 * grid.spacing, 0.0, j as f32 * grid.spacing)
    };
    let alpha = |i: i32, j: i32| {
        let r = (i.pow(2) + j.pow(2)) as f32 / (n * n) as f32;
        colour[3] * (1.0 - r).max(0.0)
    };
    let mut push = |p: Vec3, a: f32| {
        out.push(LineVertex {
            position: p.to_array(),
            colour: [colour[0], colour[1], colour[2], a],
        })
    };
    for fixed in -n..=n {
        for step in -n..n {
            for (i0, j0, i1, j1) in [
                (fixed, step, fixed, step + 1),
                (step, fixed, step + 1, fixed),
            ] {
                push(point(i0, j0), alpha(i0, j0));
                push(point(i1, j1), alpha(i1, j1));
            }
        }
    }
}
