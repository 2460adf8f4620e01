//! Small helpers shared by the compute passes.

use super::context::GpuContext;

/// Threads per workgroup in every compute shader.
const WORKGROUP: u32 = 64;

/// Workgroups as (x, y) for `threads` threads: x stays within the 65535 the
/// WebGPU limits guarantee and the shaders fold y back into a linear index.
pub(crate) fn dispatch_size(threads: u32) -> (u32, u32) {
    let groups = threads.div_ceil(WORKGROUP);
    let x = groups.min(65535);
    (x, groups.div_ceil(x.max(1)))
}

/// How a compute shader sees one binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A uniform buffer.
    Uniform,
    /// A read-only storage buffer.
    Read,
    /// A read-write storage buffer.
    ReadWrite,
}

/// The bind group layout of a compute pass whose bindings are `slots`, in
/// order from binding 0.
pub(crate) fn compute_layout(
    device: &wgpu::Device,
    label: &str,
    slots: &[Slot],
) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = slots
        .iter()
        .zip(0..)
        .map(|(slot, binding)| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match slot {
                    Slot::Uniform => wgpu::BufferBindingType::Uniform,
                    Slot::Read => wgpu::BufferBindingType::Storage { read_only: true },
                    Slot::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

/// A bind group entry for a whole buffer.
pub(crate) fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

/// A bind group entry for `size` bytes of a buffer from byte `offset`.
pub(crate) fn range_entry(
    binding: u32,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset,
            size: wgpu::BufferSize::new(size),
        }),
    }
}

/// A compute pipeline from WGSL `source` with entry point `main` and one bind group.
pub(crate) fn compute_pipeline(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    source: String,
) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// The most bytes one storage binding may hold: `requested` (tests ask for
/// less, to exercise the splits) within the device's
/// `max_storage_buffer_binding_size` and `max_buffer_size`, a multiple of 4.
pub(crate) fn binding_limit(ctx: &GpuContext, requested: Option<u64>) -> u64 {
    let limits = ctx.limits();
    requested
        .unwrap_or(u64::MAX)
        .min(limits.max_storage_buffer_binding_size)
        .min(limits.max_buffer_size)
        & !3
}
