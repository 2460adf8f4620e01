//! The shaded renderer shared by the window and `viewer render`.
//!
//! [`Renderer::draw`] records one render pass into a caller's encoder, onto any
//! colour view of the format the renderer was made for (a swapchain texture or
//! an offscreen [`super::Capture`]). A frame is described by a [`FrameScene`]:
//! GPU meshes (MEMG scenes, deformed in place) plus plain lists of primitives
//! in world space, which motions without a mesh (AIBO stick figures, MRTK
//! hands) and overlays (rays, camera frusta) fill in.
//!
//! Colours are **linear** RGBA; the sRGB target encodes them. World space is
//! y-up (see [`crate::scene::camera`]).

mod pipeline;
mod streams;

use super::context::GpuContext;
use super::mesh::GpuMesh;
use crate::scene::camera::OrbitCamera;
use crate::scene::colour::{linear_to_srgb, srgb_to_linear};
use crate::scene::shapes::{BoxInstance, Capsule, Grid, Line, Primitives, Sphere};
use crate::scene::unit_mesh::{self, CYLINDER_SLICES, SPHERE_SLICES, SPHERE_STACKS};
use glam::{Mat4, Quat, Vec3, Vec4};
use pipeline::Pipelines;
use streams::{Globals, Instance, LineVertex, Stream, UnitBuffers, grid_lines};

/// Everything drawn in one frame.
#[derive(Debug, Clone)]
pub struct FrameScene<'a> {
    /// Meshes, each drawn in its groups' colours.
    pub meshes: Vec<&'a GpuMesh>,
    /// Where each mesh goes (model matrix), by index in `meshes`; a mesh
    /// without an entry is drawn where its positions are.
    pub mesh_transforms: Vec<Mat4>,
    /// Balls (joints, fingertips).
    pub spheres: Vec<Sphere>,
    /// Capsules (bones).
    pub capsules: Vec<Capsule>,
    /// Boxes.
    pub boxes: Vec<BoxInstance>,
    /// Line segments (rays, frusta, axes).
    pub lines: Vec<Line>,
    /// The ground grid, if any.
    pub grid: Option<Grid>,
    /// Draw the meshes' edges over their faces.
    pub wireframe: bool,
    /// Clear colour, linear RGB.
    pub background: [f32; 3],
}

impl FrameScene<'_> {
    /// Moves every primitive of `primitives` into this frame's lists.
    pub fn add_primitives(&mut self, primitives: Primitives) {
        self.spheres.extend(primitives.spheres);
        self.capsules.extend(primitives.capsules);
        self.boxes.extend(primitives.boxes);
        self.lines.extend(primitives.lines);
    }
}

impl Default for FrameScene<'_> {
    fn default() -> Self {
        Self {
            meshes: Vec::new(),
            mesh_transforms: Vec::new(),
            spheres: Vec::new(),
            capsules: Vec::new(),
            boxes: Vec::new(),
            lines: Vec::new(),
            grid: None,
            wireframe: false,
            background: [0.17, 0.18, 0.20].map(srgb_to_linear),
        }
    }
}

/// Multisampling used when the target format allows it.
pub const SAMPLES: u32 = 4;
/// The depth buffer's format; an overlay painted in the same pass needs it.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
const INSTANCE_SIZE: u64 = std::mem::size_of::<Instance>() as u64;
/// Edges over faces: dark and half transparent.
const WIRE_COLOUR: [f32; 4] = [0.01, 0.01, 0.012, 0.55];
const GRID_COLOUR: [f32; 4] = [0.45, 0.47, 0.50, 0.45];

/// Size-dependent attachments: depth, and the multisampled colour when used.
#[derive(Debug)]
struct Attachments {
    size: [u32; 2],
    depth: wgpu::TextureView,
    msaa: Option<wgpu::TextureView>,
}

/// Pipelines and buffers for drawing [`FrameScene`]s onto views of one format.
///
/// Uploads per-frame data with `queue.write_buffer`, so submit each
/// [`Renderer::draw`]'s encoder before the next `draw`.
#[derive(Debug)]
pub struct Renderer {
    ctx: GpuContext,
    format: wgpu::TextureFormat,
    pipelines: Pipelines,
    sphere: UnitBuffers,
    cylinder: UnitBuffers,
    cube: UnitBuffers,
    instances: Stream,
    line_vertices: Stream,
    attachments: Option<Attachments>,
}

impl Renderer {
    /// Builds the pipelines for colour targets of `format` (an sRGB format
    /// gives correct shading: the shaders output linear colour),
    /// multisampled ×`SAMPLES` (4) where the adapter allows it.
    pub fn new(ctx: &GpuContext, format: wgpu::TextureFormat) -> Self {
        Self::with_samples(ctx, format, SAMPLES)
    }

    /// [`Renderer::new`] with `samples` per pixel: 1, or `SAMPLES` (4) where the
    /// adapter allows it. A CPU adapter pays for every sample in full, so an
    /// interactive window there draws with one.
    pub fn with_samples(ctx: &GpuContext, format: wgpu::TextureFormat, samples: u32) -> Self {
        let device = &ctx.device;
        let pipelines = pipeline::build(ctx, format, samples);
        Self {
            ctx: ctx.clone(),
            format,
            pipelines,
            sphere: UnitBuffers::new(device, &unit_mesh::sphere(SPHERE_STACKS, SPHERE_SLICES)),
            cylinder: UnitBuffers::new(device, &unit_mesh::cylinder(CYLINDER_SLICES)),
            cube: UnitBuffers::new(device, &unit_mesh::cube()),
            instances: Stream::new(device, "instances"),
            line_vertices: Stream::new(device, "line vertices"),
            attachments: None,
        }
    }

    /// The colour format the pipelines were built for.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Samples per pixel the pipelines draw with.
    pub fn samples(&self) -> u32 {
        self.pipelines.samples
    }

    /// Records one render pass drawing `frame` seen by `camera` onto `target`
    /// (`size` = its width and height in pixels), clearing it first.
    pub fn draw(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: [u32; 2],
        camera: &OrbitCamera,
        frame: &FrameScene,
    ) {
        let viewport = [0.0, 0.0, size[0] as f32, size[1] as f32];
        self.draw_viewport(encoder, target, size, viewport, camera, frame, |_| {});
    }

    /// [`Renderer::draw`] into the part `viewport` = `[x, y, width, height]`
    /// (pixels) of the target: the whole target is cleared, the scene is
    /// drawn in that rectangle with its aspect ratio (a window whose side
    /// panel covers part of the surface draws beside it), then `overlay`
    /// draws into the same pass (a window's panels: pipelines of this
    /// renderer's format, [`Renderer::samples`] and `DEPTH_FORMAT`, 32-bit float).
    ///
    /// One pass rather than a second one that loads the picture: a CPU
    /// adapter's window image can be slow to read back (see BENCHMARKS.md).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn draw_viewport(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: [u32; 2],
        viewport: [f32; 4],
        camera: &OrbitCamera,
        frame: &FrameScene,
        overlay: impl FnOnce(&mut wgpu::RenderPass<'static>),
    ) {
        let size = [size[0].max(1), size[1].max(1)];
        let [vx, vy] = [
            viewport[0].clamp(0.0, size[0] as f32 - 1.0),
            viewport[1].clamp(0.0, size[1] as f32 - 1.0),
        ];
        let vw = viewport[2].clamp(1.0, size[0] as f32 - vx);
        let vh = viewport[3].clamp(1.0, size[1] as f32 - vy);
        self.write_globals(camera, vw / vh);

        // Instances: mesh groups first (one each), then spheres, tubes, boxes,
        // then one wire instance per mesh.
        let mut instances = Vec::new();
        let placement = |i: usize| {
            frame
                .mesh_transforms
                .get(i)
                .copied()
                .unwrap_or(Mat4::IDENTITY)
        };
        for (i, mesh) in frame.meshes.iter().enumerate() {
            for draw in &mesh.draws {
                instances.push(Instance::new(placement(i), draw.colour));
            }
        }
        let spheres_start = instances.len() as u64;
        for s in &frame.spheres {
            let m = Mat4::from_translation(s.centre) * Mat4::from_scale(Vec3::splat(s.radius));
            instances.push(Instance::new(m, s.colour));
        }
        for c in &frame.capsules {
            for centre in [c.a, c.b] {
                let m = Mat4::from_translation(centre) * Mat4::from_scale(Vec3::splat(c.radius));
                instances.push(Instance::new(m, c.colour));
            }
        }
        let tubes_start = instances.len() as u64;
        for c in &frame.capsules {
            let axis = c.b - c.a;
            let length = axis.length();
            if length > 0.0 {
                let m = Mat4::from_scale_rotation_translation(
                    Vec3::new(c.radius, length, c.radius),
                    Quat::from_rotation_arc(Vec3::Y, axis / length),
                    c.a,
                );
                instances.push(Instance::new(m, c.colour));
            }
        }
        let boxes_start = instances.len() as u64;
        for b in &frame.boxes {
            instances.push(Instance::new(b.transform, b.colour));
        }
        let boxes_end = instances.len() as u64;
        // One wire instance per mesh, in mesh order.
        instances.extend((0..frame.meshes.len()).map(|i| Instance::new(placement(i), WIRE_COLOUR)));
        self.instances
            .write(&self.ctx, bytemuck::cast_slice(&instances));

        let mut line_vertices = Vec::new();
        if let Some(grid) = &frame.grid {
            grid_lines(grid, GRID_COLOUR, &mut line_vertices);
        }
        for l in &frame.lines {
            line_vertices.push(LineVertex {
                position: l.a.to_array(),
                colour: l.colour,
            });
            line_vertices.push(LineVertex {
                position: l.b.to_array(),
                colour: l.colour,
            });
        }
        self.line_vertices
            .write(&self.ctx, bytemuck::cast_slice(&line_vertices));

        self.ensure_attachments(size);
        let Some(attachments) = &self.attachments else {
            return;
        };
        let background = if self.format.is_srgb() {
            frame.background
        } else {
            frame.background.map(linear_to_srgb)
        };
        let [r, g, b] = background.map(f64::from);
        let (view, resolve_target) = match &attachments.msaa {
            Some(msaa) => (msaa, Some(target)),
            None => (target, None),
        };
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("frame"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a: 1.0 }),
                        // The multisampled image is only needed until it is resolved.
                        store: if resolve_target.is_some() {
                            wgpu::StoreOp::Discard
                        } else {
                            wgpu::StoreOp::Store
                        },
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &attachments.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            })
            // The overlay's renderer (egui) takes a 'static pass; the
            // encoder is not touched until the pass is dropped here.
            .forget_lifetime();
        pass.set_viewport(vx, vy, vw, vh, 0.0, 1.0);
        pass.set_bind_group(0, &self.pipelines.globals_bind_group, &[]);

        pass.set_pipeline(&self.pipelines.lit);
        let instance_buffer = &self.instances.buffer;
        let mut slot = 0u64;
        for mesh in &frame.meshes {
            pass.set_vertex_buffer(0, mesh.positions.slice(..));
            pass.set_vertex_buffer(1, mesh.normals.slice(..));
            pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
            for draw in &mesh.draws {
                // One instance per group: select it by offsetting the instance stream.
                let at = slot * INSTANCE_SIZE;
                pass.set_vertex_buffer(2, instance_buffer.slice(at..at + INSTANCE_SIZE));
                pass.draw_indexed(draw.indices.clone(), 0, 0..1);
                slot += 1;
            }
        }
        for (unit, range) in [
            (&self.sphere, spheres_start..tubes_start),
            (&self.cylinder, tubes_start..boxes_start),
            (&self.cube, boxes_start..boxes_end),
        ] {
            if range.is_empty() {
                continue;
            }
            pass.set_vertex_buffer(0, unit.positions.slice(..));
            pass.set_vertex_buffer(1, unit.normals.slice(..));
            pass.set_vertex_buffer(
                2,
                instance_buffer.slice(range.start * INSTANCE_SIZE..range.end * INSTANCE_SIZE),
            );
            pass.set_index_buffer(unit.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..unit.index_count, 0, 0..(range.end - range.start) as u32);
        }

        if frame.wireframe {
            pass.set_pipeline(&self.pipelines.wire);
            for (i, mesh) in frame.meshes.iter().enumerate() {
                let Some(edges) = mesh.edges.as_ref().filter(|_| mesh.edge_index_count > 0) else {
                    continue;
                };
                let at = (boxes_end + i as u64) * INSTANCE_SIZE;
                pass.set_vertex_buffer(0, mesh.positions.slice(..));
                pass.set_vertex_buffer(1, mesh.normals.slice(..));
                pass.set_vertex_buffer(2, instance_buffer.slice(at..at + INSTANCE_SIZE));
                pass.set_index_buffer(edges.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..mesh.edge_index_count, 0, 0..1);
            }
        }

        if !line_vertices.is_empty() {
            pass.set_pipeline(&self.pipelines.lines);
            pass.set_vertex_buffer(0, self.line_vertices.buffer.slice(..));
            pass.draw(0..line_vertices.len() as u32, 0..1);
        }
        overlay(&mut pass);
    }

    fn write_globals(&self, camera: &OrbitCamera, aspect: f32) {
        let eye = camera.eye();
        let back = (eye - camera.target).normalize_or(Vec3::Z);
        let right = Vec3::Y.cross(back).normalize_or(Vec3::X);
        let up = back.cross(right);
        // Lights follow the camera so every view is lit: key from upper right
        // front, fill from the left, lower.
        let key = (0.55 * right + 0.75 * up + 0.6 * back).normalize();
        let fill = (-0.7 * right - 0.1 * up + 0.5 * back).normalize();
        let globals = Globals {
            view_proj: camera.view_projection(aspect).to_cols_array_2d(),
            eye: eye.extend(1.0).to_array(),
            key_dir: key.extend(0.0).to_array(),
            fill_dir: fill.extend(0.0).to_array(),
            light: Vec4::new(0.22, 0.75, 0.25, 0.12).to_array(),
        };
        self.ctx
            .queue
            .write_buffer(&self.pipelines.globals, 0, bytemuck::bytes_of(&globals));
    }

    fn ensure_attachments(&mut self, size: [u32; 2]) {
        if self.attachments.as_ref().is_none_or(|a| a.size != size) {
            let texture = |label, format| {
                self.ctx
                    .device
                    .create_texture(&wgpu::TextureDescriptor {
                        label: Some(label),
                        size: wgpu::Extent3d {
                            width: size[0],
                            height: size[1],
                            depth_or_array_layers: 1,
                        },
                        mip_level_count: 1,
                        sample_count: self.pipelines.samples,
                        dimension: wgpu::TextureDimension::D2,
                        format,
                        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                        view_formats: &[],
                    })
                    .create_view(&Default::default())
            };
            self.attachments = Some(Attachments {
                size,
                depth: texture("depth", DEPTH_FORMAT),
                msaa: (self.pipelines.samples > 1)
                    .then(|| texture("multisampled colour", self.format)),
            });
        }
    }
}
