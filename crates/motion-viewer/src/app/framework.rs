//! The window's GPU plumbing: the surface and the egui pass.
//!
//! Init, resize, frame acquisition and presentation live here so that the
//! viewer itself only ever sees "a texture to draw into, or nothing this
//! frame". Every surface status (outdated, lost, timeout, minimised window)
//! is dealt with in [`Surface::acquire`] and nowhere else.

use crate::error::{Error, Result};
use crate::gpu::context::GpuContext;
use std::sync::Arc;
use winit::event_loop::OwnedDisplayHandle;
use winit::window::Window;

/// The window's surface, configured for the device of a [`GpuContext`].
pub struct Surface {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The format frames are drawn in (an sRGB view of a plain surface in a browser).
    view_format: wgpu::TextureFormat,
    /// Set when the last frame came back suboptimal: reconfigure before the next.
    stale: bool,
    /// What went wrong with the surface since last asked, for the host to show.
    problem: Option<String>,
}

/// The GPU and the surface opened for a window.
pub struct Opened {
    /// The device.
    pub gpu: GpuContext,
    /// The window's surface, configured.
    pub surface: Surface,
}

/// Opens the GPU for `window`: an instance that knows the display (GL needs
/// it to present on X11/Wayland; in a browser, WebGPU where the browser has
/// it, else WebGL2), a surface, and an adapter able to present to it. Fails
/// with [`Error::Gpu`] when no adapter can. The desktop blocks on this; a
/// page runs it on the browser's event loop.
pub async fn open(display: OwnedDisplayHandle, window: Arc<Window>) -> Result<Opened> {
    let instance = instance(display).await;
    let surface = instance.create_surface(Arc::clone(&window)).map_err(|e| {
        // No enabled backend could make a surface: as good as no adapter.
        Error::gpu_unavailable(
            format!(
                "no GPU adapter can draw into the window ({e}); set WGPU_BACKEND=vulkan or gl, \
                 or install a Vulkan driver (apt-get install mesa-vulkan-drivers)"
            ),
            Some(Box::new(e)),
        )
    })?;
    let gpu = GpuContext::with_instance(instance, Some(&surface)).await?;
    let caps = surface.get_capabilities(&gpu.adapter);
    let first = caps.formats.first().copied().ok_or_else(|| {
        Error::gpu_unavailable(
            format!(
                "adapter '{}' cannot present to this window",
                gpu.adapter_name()
            ),
            None,
        )
    })?;
    let (format, view_format) = formats(&caps.formats, first, gpu.adapter.get_info().backend);
    let size = window.inner_size();
    let config = wgpu::SurfaceConfiguration {
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        format,
        color_space: wgpu::SurfaceColorSpace::Auto,
        width: size.width,
        height: size.height,
        desired_maximum_frame_latency: 2,
        // Vsync everywhere: Fifo is always supported, AutoVsync picks the
        // best of FifoRelaxed/Fifo.
        present_mode: wgpu::PresentMode::AutoVsync,
        alpha_mode: caps
            .alpha_modes
            .first()
            .copied()
            .unwrap_or(wgpu::CompositeAlphaMode::Auto),
        view_formats: if view_format == format {
            vec![]
        } else {
            vec![view_format]
        },
    };
    let mut surface = Surface {
        window,
        surface,
        config,
        view_format,
        stale: false,
        problem: None,
    };
    surface.configure(&gpu);
    Ok(Opened { gpu, surface })
}

/// The instance for a window on the desktop: every backend wgpu was built
/// with, told about the display.
#[cfg(not(target_arch = "wasm32"))]
async fn instance(display: OwnedDisplayHandle) -> wgpu::Instance {
    let descriptor = GpuContext::instance_descriptor().with_display_handle(Box::new(display));
    wgpu::Instance::new(descriptor)
}

/// The instance for a canvas: the browser's WebGPU where it has a usable
/// adapter, else WebGL2 (asking the browser is asynchronous).
#[cfg(target_arch = "wasm32")]
async fn instance(_display: OwnedDisplayHandle) -> wgpu::Instance {
    wgpu::util::new_instance_with_webgpu_detection(GpuContext::instance_descriptor()).await
}

/// The surface's format and the format frames are drawn in. The scene
/// shades in linear space and an sRGB target does the encoding. A canvas
/// offers only non-sRGB formats to present (WebGL2 lists an sRGB one first
/// that egui cannot paint right): there WebGPU draws through an sRGB view of
/// a plain surface, and WebGL2 draws into the plain format.
fn formats(
    offered: &[wgpu::TextureFormat],
    first: wgpu::TextureFormat,
    backend: wgpu::Backend,
) -> (wgpu::TextureFormat, wgpu::TextureFormat) {
    let srgb = offered.iter().copied().find(wgpu::TextureFormat::is_srgb);
    let plain = offered.iter().copied().find(|f| !f.is_srgb());
    match (cfg!(target_arch = "wasm32"), backend, plain) {
        (true, wgpu::Backend::BrowserWebGpu, Some(plain)) => (plain, plain.add_srgb_suffix()),
        (true, _, Some(plain)) => (plain, plain),
        _ => {
            let format = srgb.unwrap_or(first);
            (format, format)
        }
    }
}

impl Surface {
    /// The format frames are drawn in: make the views of
    /// [`Surface::acquire`]'s textures with [`Surface::view`].
    pub fn format(&self) -> wgpu::TextureFormat {
        self.view_format
    }

    /// The view to draw `frame` through.
    pub fn view(&self, frame: &wgpu::SurfaceTexture) -> wgpu::TextureView {
        frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.view_format),
            ..Default::default()
        })
    }

    /// Width and height in physical pixels; zero while minimised.
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Follows a window resize. A zero size (minimised) is remembered but not
    /// configured: wgpu refuses zero-sized surfaces, and nothing is drawn then.
    pub fn resize(&mut self, gpu: &GpuContext, width: u32, height: u32) {
        self.config.width = width;
        self.config.height = height;
        self.configure(gpu);
    }

    fn configure(&mut self, gpu: &GpuContext) {
        if self.config.width > 0 && self.config.height > 0 {
            self.surface.configure(&gpu.device, &self.config);
        }
        self.stale = false;
    }

    /// The texture to draw this frame into, or `None` when there is nothing to
    /// draw to now (minimised, occluded, timed out); the caller simply skips
    /// the frame. Outdated and lost surfaces are rebuilt here and retried once.
    /// What went wrong with the surface since the last call (the window's
    /// host shows it; the library never prints).
    pub(crate) fn take_problem(&mut self) -> Option<String> {
        self.problem.take()
    }

    pub fn acquire(&mut self, gpu: &GpuContext) -> Option<wgpu::SurfaceTexture> {
        // (A surface that cannot be rebuilt leaves a message in `problem`.)
        if self.config.width == 0 || self.config.height == 0 {
            return None;
        }
        if self.stale {
            self.configure(gpu);
        }
        for _ in 0..2 {
            match self.surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(frame) => return Some(frame),
                wgpu::CurrentSurfaceTexture::Suboptimal(frame) => {
                    // Still presentable; match the new properties next frame.
                    self.stale = true;
                    return Some(frame);
                }
                wgpu::CurrentSurfaceTexture::Outdated => self.configure(gpu),
                wgpu::CurrentSurfaceTexture::Lost => {
                    match gpu.instance.create_surface(Arc::clone(&self.window)) {
                        Ok(surface) => self.surface = surface,
                        Err(e) => {
                            self.problem = Some(format!("cannot recreate the window surface: {e}"));
                            return None;
                        }
                    }
                    self.configure(gpu);
                }
                wgpu::CurrentSurfaceTexture::Timeout
                | wgpu::CurrentSurfaceTexture::Occluded
                | wgpu::CurrentSurfaceTexture::Validation => return None,
            }
        }
        None
    }
}

/// egui's input state and renderer for one window.
pub struct EguiPass {
    /// The egui context the overlay runs in.
    pub ctx: egui::Context,
    state: egui_winit::State,
    renderer: egui_wgpu::Renderer,
    /// Textures the last pass released; freed once that pass is over.
    to_free: Vec<egui::TextureId>,
}

impl EguiPass {
    /// egui for `window`, painting into the scene's render pass: targets of
    /// `format` with `samples` per pixel and the scene's depth buffer.
    pub fn new(
        window: &Window,
        gpu: &GpuContext,
        format: wgpu::TextureFormat,
        samples: u32,
    ) -> EguiPass {
        let ctx = egui::Context::default();
        // The 3D view is dark: panels follow it rather than the system's or
        // the browser's light theme.
        ctx.set_theme(egui::Theme::Dark);
        let max_side = gpu.device.limits().max_texture_dimension_2d as usize;
        let state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(max_side),
        );
        let options = egui_wgpu::RendererOptions {
            msaa_samples: samples,
            depth_stencil_format: Some(crate::gpu::render::DEPTH_FORMAT),
            ..Default::default()
        };
        let renderer = egui_wgpu::Renderer::new(&gpu.device, format, options);
        EguiPass {
            ctx,
            state,
            renderer,
            to_free: Vec::new(),
        }
    }

    /// Hands a window event to egui first; true when egui consumed it.
    pub(crate) fn on_window_event(
        &mut self,
        window: &Window,
        event: &winit::event::WindowEvent,
    ) -> bool {
        self.state.on_window_event(window, event).consumed
    }

    /// Runs one egui pass over `build`, applies its platform output (cursor,
    /// clipboard) and its texture changes. Returns what to paint and whether
    /// egui asked for another frame straight away (animations, hover changes).
    ///
    /// Textures are updated here rather than when painting so that a frame
    /// that is never painted (minimised window) loses no font-atlas update.
    pub fn run(
        &mut self,
        window: &Window,
        gpu: &GpuContext,
        build: impl FnMut(&mut egui::Ui),
    ) -> EguiFrame {
        // The previous pass is over, painted or not.
        for id in self.to_free.drain(..) {
            self.renderer.free_texture(&id);
        }
        let input = self.state.take_egui_input(window);
        let mut output = self.ctx.run_ui(input, build);
        self.state
            .handle_platform_output(window, output.platform_output);
        for (id, deltas) in output.textures_delta.set.drain() {
            for delta in &deltas {
                self.renderer
                    .update_texture(&gpu.device, &gpu.queue, id, delta);
            }
        }
        self.to_free.extend(output.textures_delta.free.drain());
        let repaint_now = output
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .is_some_and(|v| v.repaint_delay.is_zero());
        EguiFrame {
            primitives: self.ctx.tessellate(output.shapes, output.pixels_per_point),
            pixels_per_point: output.pixels_per_point,
            repaint_now,
        }
    }

    /// Uploads `frame`'s vertices for a target of `size` pixels. Returns
    /// command buffers egui prepared on its own, to submit before `encoder`'s.
    pub(crate) fn prepare(
        &mut self,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        size: (u32, u32),
        frame: &EguiFrame,
    ) -> Vec<wgpu::CommandBuffer> {
        self.renderer.update_buffers(
            &gpu.device,
            &gpu.queue,
            encoder,
            &frame.primitives,
            &screen(size, frame),
        )
    }

    /// Paints `frame` (prepared for the same `size`) into `pass`: the scene's
    /// own pass, after the scene (see [`crate::gpu::Renderer::draw_viewport`]).
    pub fn render(
        &self,
        pass: &mut wgpu::RenderPass<'static>,
        size: (u32, u32),
        frame: &EguiFrame,
    ) {
        self.renderer
            .render(pass, &frame.primitives, &screen(size, frame));
    }
}

fn screen(size: (u32, u32), frame: &EguiFrame) -> egui_wgpu::ScreenDescriptor {
    egui_wgpu::ScreenDescriptor {
        size_in_pixels: [size.0, size.1],
        pixels_per_point: frame.pixels_per_point,
    }
}

/// One egui pass, ready to paint (as often as needed).
pub struct EguiFrame {
    primitives: Vec<egui::ClippedPrimitive>,
    pixels_per_point: f32,
    /// egui wants another frame at once.
    pub repaint_now: bool,
}
