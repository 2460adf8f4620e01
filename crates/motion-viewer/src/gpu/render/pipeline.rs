//! The render pipelines: lit instanced shapes and meshes, mesh wireframes,
//! and coloured lines, all sharing one uniform block (`shaders/render.wgsl`).

use super::streams::{Globals, LineVertex};
use super::{DEPTH_FORMAT, INSTANCE_SIZE, SAMPLES};
use crate::gpu::context::GpuContext;

/// The pipelines and the uniform buffer they read.
#[derive(Debug)]
pub(super) struct Pipelines {
    /// Multisample count of every pipeline (1 where the format can't).
    pub(super) samples: u32,
    /// The uniform buffer ([`Globals`]).
    pub(super) globals: wgpu::Buffer,
    /// Binds `globals` at group 0.
    pub(super) globals_bind_group: wgpu::BindGroup,
    /// Shaded triangles: meshes and instanced unit shapes.
    pub(super) lit: wgpu::RenderPipeline,
    /// Mesh edges over their faces.
    pub(super) wire: wgpu::RenderPipeline,
    /// Coloured line segments (grid, rays, frusta).
    pub(super) lines: wgpu::RenderPipeline,
}

/// Builds the pipelines for colour targets of `format`, with `samples`
/// (1 or [`SAMPLES`]) samples per pixel where the adapter allows it for both
/// `format` and the depth format, else one.
pub(super) fn build(ctx: &GpuContext, format: wgpu::TextureFormat, samples: u32) -> Pipelines {
    let device = &ctx.device;
    let samples = if samples == SAMPLES
        && ctx
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
        source: wgpu::ShaderSource::Wgsl(include_str!("../../../shaders/render.wgsl").into()),
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

    // Colours are linear: a target that does not encode sRGB itself gets
    // them encoded by the fragment shader.
    let encode_srgb = [("encode_srgb", if format.is_srgb() { 0.0 } else { 1.0 })];
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
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &encode_srgb,
                    ..Default::default()
                },
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
    Pipelines {
        samples,
        globals,
        globals_bind_group,
        lit,
        wire,
        lines,
    }
}
