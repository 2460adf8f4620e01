//! Offscreen rendering read back to RGBA8 images (`viewer render`, tests).

use super::context::GpuContext;
use super::render::{FrameScene, Renderer};
use crate::error::{Error, Result};
use crate::scene::camera::OrbitCamera;

/// An offscreen colour texture and the buffer its pixels are copied into.
#[derive(Debug)]
pub struct Capture {
    ctx: GpuContext,
    format: wgpu::TextureFormat,
    size: [u32; 2],
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    readback: wgpu::Buffer,
    /// Bytes per row in `readback`: a row padded to `COPY_BYTES_PER_ROW_ALIGNMENT`.
    padded_row: u32,
}

impl Capture {
    /// The texture format; build the [`Renderer`] with it.
    pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

    /// An offscreen target of `size` = `[width, height]` pixels.
    pub fn new(ctx: &GpuContext, size: [u32; 2]) -> Self {
        Self::with_format(ctx, size, Self::FORMAT)
    }

    /// An offscreen target of another 8-bit RGBA or BGRA `format` (a
    /// window's surface format, so that the window's own renderers can
    /// draw into it); pictures still come back as RGBA.
    pub fn with_format(ctx: &GpuContext, size: [u32; 2], format: wgpu::TextureFormat) -> Self {
        let [width, height] = size.map(|s| s.max(1));
        let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("capture"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        let padded_row = (4 * width).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let readback = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("capture read-back"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        Self {
            ctx: ctx.clone(),
            format,
            size: [width, height],
            texture,
            view,
            readback,
            padded_row,
        }
    }

    /// Width and height in pixels.
    pub fn size(&self) -> [u32; 2] {
        self.size
    }

    /// Draws `frame` and returns the picture. `renderer` must have been built
    /// for this capture's format ([`Capture::FORMAT`] unless made
    /// [`Capture::with_format`]). Work already submitted (deformation) runs first.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn render(
        &mut self,
        renderer: &mut Renderer,
        camera: &OrbitCamera,
        frame: &FrameScene,
    ) -> Result<image::RgbaImage> {
        let [w, h] = self.size.map(|s| s as f32);
        self.render_with(renderer, camera, frame, [0.0, 0.0, w, h], |_| {})
    }

    /// [`Capture::render`] with the scene in `viewport` and `overlay` drawing
    /// into the same pass (a window's panels), as [`Renderer::draw_viewport`] does.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn render_with(
        &mut self,
        renderer: &mut Renderer,
        camera: &OrbitCamera,
        frame: &FrameScene,
        viewport: [f32; 4],
        overlay: impl FnOnce(&mut wgpu::RenderPass<'static>),
    ) -> Result<image::RgbaImage> {
        self.draw_with(renderer, camera, frame, viewport, overlay)?;
        pollster::block_on(self.read_async())
    }

    /// The drawing half of [`Capture::render_with`]: records and submits the
    /// frame and the copy to the read-back buffer; [`Capture::read_async`]
    /// then brings the picture back (a page cannot block on it).
    pub(crate) fn draw_with(
        &mut self,
        renderer: &mut Renderer,
        camera: &OrbitCamera,
        frame: &FrameScene,
        viewport: [f32; 4],
        overlay: impl FnOnce(&mut wgpu::RenderPass<'static>),
    ) -> Result<()> {
        if renderer.format() != self.format {
            return Err(Error::gpu_misuse(format!(
                "the renderer draws {:?}, the capture texture is {:?}",
                renderer.format(),
                self.format
            )));
        }
        let [width, height] = self.size;
        let mut encoder = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("capture"),
            });
        renderer.draw_viewport(
            &mut encoder,
            &self.view,
            self.size,
            viewport,
            camera,
            frame,
            overlay,
        );
        encoder.copy_texture_to_buffer(
            self.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
        self.ctx.queue.submit([encoder.finish()]);
        Ok(())
    }

    /// The picture [`Capture::draw_with`] drew, read back as RGBA.
    pub(crate) async fn read_async(&self) -> Result<image::RgbaImage> {
        let [width, height] = self.size;
        let padded = self.ctx.map_read_async(&self.readback).await?;
        let row = 4 * width as usize;
        let mut pixels: Vec<u8> = padded
            .chunks_exact(self.padded_row as usize)
            .flat_map(|r| &r[..row])
            .copied()
            .collect();
        if matches!(
            self.format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        ) {
            for px in pixels.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        image::RgbaImage::from_raw(width, height, pixels)
            .ok_or_else(|| Error::gpu_device("captured image has the wrong size", None))
    }
}
