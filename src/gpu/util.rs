//! Small helpers shared by the compute passes.

/// Threads per workgroup in every compute shader.
const WORKGROUP: u32 = 64;

/// Workgroups as (x, y) for `threads` threads: x stays within the 65535 the
/// WebGPU limits guarantee and the shaders fold y back into a linear index.
pub(crate) fn dispatch_size(threads: u32) -> (u32, u32) {
    let groups = threads.div_ceil(WORKGROUP);
    let x = groups.min(65535);
    (x, groups.div_ceil(x.max(1)))
}

/// A read-only or read-write storage buffer visible to compute shaders.
fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A uniform buffer visible to compute shaders.
fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The bind group layout of every compute pass here: parameters in a uniform
/// at binding 0, then `inputs` read-only storage buffers, then the one
/// read-write output.
pub(crate) fn compute_layout(
    device: &wgpu::Device,
    label: &str,
    inputs: u32,
) -> wgpu::BindGroupLayout {
    let mut entries = vec![uniform_entry(0)];
    entries.extend((1..=inputs).map(|binding| storage_entry(binding, true)));
    entries.push(storage_entry(inputs + 1, false));
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

/// A compute pipeline with entry point `main` and one bind group.
pub(crate) fn compute_pipeline(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    module: &wgpu::ShaderModule,
) -> wgpu::ComputePipeline {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(&pipeline_layout),
        module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    })
}
