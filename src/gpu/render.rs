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
//! y-up (see [`super::camera`]).

use super::camera::OrbitCamera;
use super::context::GpuContext;
use super::mesh::{GpuMesh, srgb_to_linear};
use super::primitives::{self, UnitMesh};
use glam::{Mat3, Mat4, Quat, Vec3, Vec4};
use wgpu::util::DeviceExt;

/// A ball.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    /// Centre in world space.
    pub centre: Vec3,
    /// Radius.
    pub radius: f32,
    /// Linear RGBA.
    pub colour: [f32; 4],
}

/// A cylinder from `a` to `b` capped with half-spheres (a bone, a finger segment).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capsule {
    /// One end's centre.
    pub a: Vec3,
    /// The other end's centre.
    pub b: Vec3,
    /// Radius of the tube and caps.
    pub radius: f32,
    /// Linear RGBA.
    pub colour: [f32; 4],
}

/// The unit cube (−½..½) placed by `transform` (may scale non-uniformly).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxInstance {
    /// Model matrix.
    pub transform: Mat4,
    /// Linear RGBA.
    pub colour: [f32; 4],
}

/// A line segment, drawn one pixel wide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    /// Start.
    pub a: Vec3,
    /// End.
    pub b: Vec3,
    /// Linear RGBA (alpha blends).
    pub colour: [f32; 4],
}

impl Line {
    /// A ray from `origin` along `direction` (need not be unit) for `length`.
    pub fn ray(origin: Vec3, direction: Vec3, length: f32, colour: [f32; 4]) -> Line {
        Line {
            a: origin,
            b: origin + direction.normalize_or_zero() * length,
            colour,
        }
    }

    /// The 12 edges of the frustum whose world → clip matrix is `view_proj`
    /// (e.g. a recorded head camera's projection × view).
    pub fn frustum(view_proj: Mat4, colour: [f32; 4]) -> Vec<Line> {
        let inverse = view_proj.inverse();
        let corner = |x: f32, y: f32, z: f32| inverse.project_point3(Vec3::new(x, y, z));
        let near = [(-1., -1.), (1., -1.), (1., 1.), (-1., 1.)].map(|(x, y)| corner(x, y, 0.0));
        let far = [(-1., -1.), (1., -1.), (1., 1.), (-1., 1.)].map(|(x, y)| corner(x, y, 1.0));
        (0..4)
            .flat_map(|i| {
                let j = (i + 1) % 4;
                [(near[i], near[j]), (far[i], far[j]), (near[i], far[i])]
            })
            .map(|(a, b)| Line { a, b, colour })
            .collect()
    }
}

/// A square grid of lines on a horizontal plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// Centre of the grid (its y is the ground height).
    pub centre: Vec3,
    /// Half the side of the square.
    pub half_extent: f32,
    /// Distance between lines.
    pub spacing: f32,
}

impl Grid {
    /// A grid on the floor of the box `min..max`, reaching well beyond it,
    /// with a round spacing (1, 2 or 5 × 10ⁿ) of about a tenth of its extent.
    pub fn under_bounds(min: Vec3, max: Vec3) -> Grid {
        let size = (max - min).max(Vec3::splat(1e-6));
        let half_extent = 0.65 * size.x.max(size.z);
        let rough = half_extent / 5.0;
        let decade = 10f32.powf(rough.log10().floor());
        let spacing = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * decade)
            .find(|&s| s >= rough)
            .unwrap_or(10.0 * decade);
        let steps = (half_extent / spacing).ceil();
        Grid {
            centre: Vec3::new((min.x + max.x) * 0.5, min.y, (min.z + max.z) * 0.5),
            half_extent: steps * spacing,
            spacing,
        }
    }

    /// The grid as short segments whose alpha fades toward the rim.
    fn lines(&self, colour: [f32; 4], out: &mut Vec<LineVertex>) {
        let n = (self.half_extent / self.spacing).round().max(1.0) as i32;
        let point = |i: i32, j: i32| {
            self.centre + Vec3::new(i as f32 * self.spacing, 0.0, j as f32 * self.spacing)
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
}

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

/// Per-instance data of the lit pipeline: model and normal matrices, colour.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Instance {
    model: [[f32; 4]; 4],
    normal: [[f32; 4]; 3],
    colour: [f32; 4],
}

impl Instance {
    fn new(model: Mat4, colour: [f32; 4]) -> Self {
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
struct LineVertex {
    position: [f32; 3],
    colour: [f32; 4],
}

/// `shaders/render.wgsl`'s uniforms.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    eye: [f32; 4],
    key_dir: [f32; 4],
    fill_dir: [f32; 4],
    light: [f32; 4],
}

/// A unit primitive's buffers.
#[derive(Debug)]
struct UnitBuffers {
    positions: wgpu::Buffer,
    normals: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
}

impl UnitBuffers {
    fn new(device: &wgpu::Device, mesh: &UnitMesh) -> Self {
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
struct Stream {
    label: &'static str,
    buffer: wgpu::Buffer,
}

impl Stream {
    fn new(device: &wgpu::Device, label: &'static str) -> Self {
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

    fn write(&mut self, ctx: &GpuContext, bytes: &[u8]) {
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

/// Multisampling used when the target format allows it.
const SAMPLES: u32 = 4;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
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
    samples: u32,
    globals: wgpu::Buffer,
    globals_bind_group: wgpu::BindGroup,
    lit: wgpu::RenderPipeline,
    wire: wgpu::RenderPipeline,
    lines: wgpu::RenderPipeline,
    sphere: UnitBuffers,
    cylinder: UnitBuffers,
    cube: UnitBuffers,
    instances: Stream,
    line_vertices: Stream,
    attachments: Option<Attachments>,
}

impl Renderer {
    /// Builds the pipelines for colour targets of `format` (an sRGB format
    /// gives correct shading: the shaders output linear colour).
    pub fn new(ctx: &GpuContext, format: wgpu::TextureFormat) -> Self {
        let device = &ctx.device;
        let samples = if ctx
            .adapter
            .get_texture_format_features(format)
            .flags
            .sample_count_supported(SAMPLES)
            && ctx
                .adapter
                .get_texture_format_features(DEPTH_FORMAT)
                .flags
                .sample_count_supported(SAMPLES)
        {
            SAMPLES
        } else {
            1
        };
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("render.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("../../shaders/render.wgsl").into()),
        });
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let globals_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globals"),
            layout: &bind_group_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render"),
            bind_group_layouts: &[Some(&bind_group_layout)],
            immediate_size: 0,
        });

        let vec3_at = |location| {
            [wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x3,
                offset: 0,
                shader_location: location,
            }]
        };
        let position_attr = vec3_at(0);
        let normal_attr = vec3_at(1);
        let instance_attrs: [wgpu::VertexAttribute; 8] =
            std::array::from_fn(|i| wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x4,
                offset: 16 * i as u64,
                shader_location: 2 + i as u32,
            });
        let vertex_layout = |attributes, step_mode, array_stride| {
            Some(wgpu::VertexBufferLayout {
                array_stride,
                step_mode,
                attributes,
            })
        };
        let lit_buffers = [
            vertex_layout(&position_attr[..], wgpu::VertexStepMode::Vertex, 12),
            vertex_layout(&normal_attr[..], wgpu::VertexStepMode::Vertex, 12),
            vertex_layout(
                &instance_attrs[..],
                wgpu::VertexStepMode::Instance,
                INSTANCE_SIZE,
            ),
        ];
        let line_attrs = [
            position_attr[0],
            wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x4,
                offset: 12,
                shader_location: 1,
            },
        ];
        let line_buffers = [vertex_layout(
            &line_attrs[..],
            wgpu::VertexStepMode::Vertex,
            std::mem::size_of::<LineVertex>() as u64,
        )];

        let pipeline = |label: &str,
                        buffers: &[Option<wgpu::VertexBufferLayout>],
                        entry: (&str, &str),
                        topology,
                        depth_write: bool,
                        bias: wgpu::DepthBiasState| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(entry.0),
                    compilation_options: Default::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    // Open surfaces (cloth) are seen from both sides.
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(depth_write),
                    depth_compare: Some(wgpu::CompareFunction::LessEqual),
                    stencil: Default::default(),
                    bias,
                }),
                multisample: wgpu::MultisampleState {
                    count: samples,
                    ..Default::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(entry.1),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        // Faces are pushed back slightly so their own edges win the depth test.
        let face_bias = wgpu::DepthBiasState {
            constant: 2,
            slope_scale: 1.0,
            clamp: 0.0,
        };
        let lit = pipeline(
            "lit",
            &lit_buffers,
            ("lit_vs", "lit_fs"),
            wgpu::PrimitiveTopology::TriangleList,
            true,
            face_bias,
        );
        let wire = pipeline(
            "wireframe",
            // The wireframe reuses the mesh's buffers and an instance of its own
            // (the mesh's placement, the wire colour).
            &lit_buffers,
            ("wire_vs", "line_fs"),
            wgpu::PrimitiveTopology::LineList,
            false,
            Default::default(),
        );
        let lines = pipeline(
            "lines",
            &line_buffers,
            ("line_vs", "line_fs"),
            wgpu::PrimitiveTopology::LineList,
            true,
            Default::default(),
        );
        Self {
            ctx: ctx.clone(),
            format,
            samples,
            globals,
            globals_bind_group,
            lit,
            wire,
            lines,
            sphere: UnitBuffers::new(device, &primitives::sphere(12, 20)),
            cylinder: UnitBuffers::new(device, &primitives::cylinder(20)),
            cube: UnitBuffers::new(device, &primitives::cube()),
            instances: Stream::new(device, "instances"),
            line_vertices: Stream::new(device, "line vertices"),
            attachments: None,
        }
    }

    /// The colour format the pipelines were built for.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
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
        let size = [size[0].max(1), size[1].max(1)];
        self.write_globals(camera, size);

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
            grid.lines(GRID_COLOUR, &mut line_vertices);
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
        let [r, g, b] = frame.background.map(f64::from);
        let (view, resolve_target) = match &attachments.msaa {
            Some(msaa) => (msaa, Some(target)),
            None => (target, None),
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
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
        });
        pass.set_bind_group(0, &self.globals_bind_group, &[]);

        pass.set_pipeline(&self.lit);
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
            pass.set_pipeline(&self.wire);
            for (i, mesh) in frame.meshes.iter().enumerate() {
                if mesh.edge_index_count == 0 {
                    continue;
                }
                let at = (boxes_end + i as u64) * INSTANCE_SIZE;
                pass.set_vertex_buffer(0, mesh.positions.slice(..));
                pass.set_vertex_buffer(1, mesh.normals.slice(..));
                pass.set_vertex_buffer(2, instance_buffer.slice(at..at + INSTANCE_SIZE));
                pass.set_index_buffer(mesh.edges.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..mesh.edge_index_count, 0, 0..1);
            }
        }

        if !line_vertices.is_empty() {
            pass.set_pipeline(&self.lines);
            pass.set_vertex_buffer(0, self.line_vertices.buffer.slice(..));
            pass.draw(0..line_vertices.len() as u32, 0..1);
        }
    }

    fn write_globals(&self, camera: &OrbitCamera, size: [u32; 2]) {
        let aspect = size[0] as f32 / size[1] as f32;
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
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
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
                        sample_count: self.samples,
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
                msaa: (self.samples > 1).then(|| texture("multisampled colour", self.format)),
            });
        }
    }
}
