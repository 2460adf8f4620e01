//! GPU layer (wgpu): adapter and device, MEMG deformation in a compute shader,
//! normals, the shaded renderer shared by the window and `viewer render`, and
//! offscreen capture to PNG.
//!
//! Typical headless use:
//! ```no_run
//! # fn demo(scene: &motion_viewer::formats::obj::ObjScene,
//! #         motion: &motion_viewer::formats::memg::MemgMotion) -> Result<(), Box<dyn std::error::Error>> {
//! use motion_viewer::gpu::*;
//! let ctx = GpuContext::new()?;
//! let binding = motion_viewer::anim::memg::Binding::new(scene, motion)?;
//! let mut deformer = GpuDeformer::new(&ctx, scene, motion, &binding, DeformOptions::default())?;
//! deformer.update(12.5);
//! let mut capture = Capture::new(&ctx, [320, 240]);
//! let mut renderer = Renderer::new(&ctx, Capture::FORMAT);
//! let mut camera = OrbitCamera::default();
//! camera.frame_bounds([-1.0; 3].into(), [1.0; 3].into());
//! let frame = FrameScene { meshes: vec![deformer.mesh()], ..FrameScene::default() };
//! let image = capture.render(&mut renderer, &camera, &frame)?;
//! image.save("frame.png")?;
//! # Ok(()) }
//! ```

mod basis;
pub(crate) mod capture;
pub(crate) mod context;
pub(crate) mod deform;
pub(crate) mod mesh;
#[cfg(not(target_arch = "wasm32"))]
mod readback;
pub(crate) mod render;
mod upload;
mod util;
mod windows;

pub use crate::scene::camera::OrbitCamera;
pub use basis::BasisFormat;
pub use capture::Capture;
pub use context::GpuContext;
pub use deform::{DeformOptions, GpuDeformer};
pub use mesh::GpuMesh;
pub use mesh::{MeshDraw, MeshOptions};
#[cfg(not(target_arch = "wasm32"))]
pub use readback::deform_at;
pub use render::{FrameScene, Renderer};

/// The name people know a wgpu backend by: a browser's WebGPU, WebGL2 (wgpu's
/// GL backend in a page), Vulkan, Metal…
pub fn backend_name(backend: wgpu::Backend) -> &'static str {
    match backend {
        wgpu::Backend::BrowserWebGpu => "WebGPU",
        wgpu::Backend::Gl if cfg!(target_arch = "wasm32") => "WebGL2",
        wgpu::Backend::Gl => "GL",
        wgpu::Backend::Vulkan => "Vulkan",
        wgpu::Backend::Metal => "Metal",
        wgpu::Backend::Dx12 => "DX12",
        wgpu::Backend::Noop => "none",
    }
}
