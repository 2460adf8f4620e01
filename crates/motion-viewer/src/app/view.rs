//! Everything that exists only while the window does: the GPU, the surface,
//! egui, the renderer and the stage built from the [`ViewerState`]'s
//! tracks, the camera, and how one frame is drawn and timed.

use super::frame_time::{FrameTimes, Split};
use super::framework::{self, EguiFrame, EguiPass, Opened, Surface};
use super::host::{GpuOpened, Host, HostEvent, Task};
use super::input::{self, CameraMove, MouseCamera};
use super::keys::Action;
use crate::error::Result;
use crate::gpu::{
    BasisFormat, Capture, DeformOptions, FrameScene, GpuContext, OrbitCamera, Renderer,
};
use crate::scene::Track;
use crate::scene::camera::Preset;
use crate::scene::shapes::Primitives;
use crate::session::pick::{Hover, Picker};
use crate::session::viewer::ViewerState;
use crate::stage::{DeformOn, Stage, StageOptions};
use std::sync::Arc;
use web_time::Instant;
use winit::event::WindowEvent;
use winit::event_loop::ActiveEventLoop;
use winit::keyboard::ModifiersState;
use winit::window::Window;

/// The window's GPU side and view settings.
pub struct View {
    /// The window.
    pub window: Arc<Window>,
    /// The device.
    pub gpu: GpuContext,
    /// The window's surface.
    pub surface: Surface,
    /// egui's input and renderer.
    pub egui: EguiPass,
    renderer: Renderer,
    /// How MEMG meshes are deformed (edges always built, for W).
    deform: DeformOptions,
    /// The tracks on the GPU, built for [`ViewerState::generation`] `stage_generation`.
    stage: Option<Stage>,
    stage_generation: Option<u64>,
    /// The [`ViewerState::revision`] the stage's motions are of.
    stage_revision: u64,
    /// The camera.
    pub camera: OrbitCamera,
    /// Where R puts the camera back: the view that framed the tracks when they were opened.
    pub home: OrbitCamera,
    /// Mouse → camera.
    pub mouse: MouseCamera,
    /// Modifier keys held.
    pub modifiers: ModifiersState,
    /// Draw mesh edges.
    pub wireframe: bool,
    /// Draw the ground grid.
    pub grid: bool,
    /// When the last frame was drawn.
    pub last_redraw: Instant,
    /// The previous redraw was a playing frame.
    pub played_last_frame: bool,
    /// Frame time and split.
    pub times: FrameTimes,
    /// The part of the surface the 3D view fills, `[x, y, w, h]` pixels.
    pub viewport: [f32; 4],
    /// CPU picking.
    pub picker: Picker,
    /// Drawn with the stage this frame: the simulated dogs (feature `physics`).
    pub extra: Primitives,
}

impl View {
    /// Opens a window titled `title` of `size` logical pixels (as `host`
    /// wants it placed) and returns it with the task that opens its GPU;
    /// [`View::new`] takes the result.
    pub(crate) fn open_window(
        event_loop: &ActiveEventLoop,
        host: &impl Host,
        title: &str,
        size: (u32, u32),
    ) -> crate::Result<(Arc<Window>, Task)> {
        let attributes = Window::default_attributes()
            .with_title(title)
            .with_inner_size(winit::dpi::LogicalSize::new(size.0, size.1));
        let window = Arc::new(
            event_loop
                .create_window(host.window_attributes(attributes))
                .map_err(|e| crate::Error::Window {
                    reason: format!("cannot open a window: {e}"),
                })?,
        );
        let display = event_loop.owned_display_handle();
        let for_task = Arc::clone(&window);
        let task: Task = Box::pin(async move {
            let opened = framework::open(display, for_task).await;
            HostEvent::Gpu(Box::new(GpuOpened(opened)))
        });
        Ok((window, task))
    }

    /// The view of `window` with the GPU opened for it; MEMG bases are
    /// stored on the GPU as `basis` says.
    pub fn new(window: Arc<Window>, opened: Opened, basis: BasisFormat) -> View {
        let Opened { gpu, surface } = opened;
        // A CPU adapter rasterises every sample on the CPU: multisampling
        // there costs more than the rest of the frame (see BENCHMARKS.md).
        let samples = if gpu.adapter.get_info().device_type == wgpu::DeviceType::Cpu {
            1
        } else {
            crate::gpu::render::SAMPLES
        };
        let renderer = Renderer::with_samples(&gpu, surface.format(), samples);
        let egui = EguiPass::new(&window, &gpu, surface.format(), renderer.samples());
        let (w, h) = surface.size();
        View {
            window,
            gpu,
            surface,
            egui,
            renderer,
            deform: DeformOptions {
                basis,
                edges: true,
                ..DeformOptions::default()
            },
            stage: None,
            stage_generation: None,
            stage_revision: 0,
            camera: OrbitCamera::default(),
            home: OrbitCamera::default(),
            mouse: MouseCamera::default(),
            modifiers: ModifiersState::empty(),
            wireframe: false,
            grid: true,
            last_redraw: Instant::now(),
            played_last_frame: false,
            times: FrameTimes::default(),
            viewport: [0.0, 0.0, w as f32, h as f32],
            picker: Picker::default(),
            extra: Primitives::default(),
        }
    }

    /// Samples per pixel of the 3D view.
    pub fn samples(&self) -> u32 {
        self.renderer.samples()
    }

    /// Rebuilds the stage when the tracks or their layout changed, and
    /// applies the visibility. Returns the stage's load warnings when it was rebuilt.
    pub(crate) fn sync_stage(&mut self, state: &ViewerState) -> Result<Option<Vec<String>>> {
        let mut warnings = None;
        if self.stage_generation != Some(state.generation()) {
            // The old stage's buffers go before the new one's are made, so a
            // large mesh is never on the GPU twice.
            self.stage = None;
            self.stage = if state.tracks().is_empty() {
                None
            } else {
                // Auto: the CPU deformer on a CPU adapter (see `DeformOn::Auto`).
                let options = StageOptions {
                    layout: state.layout(),
                    deform_on: DeformOn::Auto,
                    deform: self.deform,
                };
                let stage =
                    Stage::placed(&self.gpu, state.decoded(), state.plan().clone(), &options)?;
                warnings = Some(stage.load_warnings().to_vec());
                Some(stage)
            };
            self.stage_generation = Some(state.generation());
            self.stage_revision = state.revision();
        }
        if let Some(stage) = &mut self.stage
            && self.stage_revision != state.revision()
        {
            // An edited AIBO motion: swap it in, no rebuild.
            for (i, entry) in state.tracks().iter().enumerate() {
                if let Track::Mtn { motion, .. } = &entry.track {
                    stage.set_motion(i, motion);
                }
            }
            self.stage_revision = state.revision();
        }
        if let Some(stage) = &mut self.stage {
            for i in 0..state.tracks().len() {
                stage.set_visible(i, state.is_shown(i));
            }
        }
        Ok(warnings)
    }

    /// Frames the camera on `state`'s framing box for the 3D view's aspect.
    pub fn frame(&mut self, state: &ViewerState) {
        let (min, max) = state.framing();
        let aspect = self.viewport[2] / self.viewport[3].max(1.0);
        self.camera.frame_bounds_aspect(min, max, aspect);
    }

    /// Applies a camera or drawing action (R, 1–3, W, G); others are not the view's.
    pub(crate) fn act(&mut self, action: Action) {
        match action {
            Action::ResetCamera => self.camera = self.home,
            Action::ViewFront => self.camera.set_preset(Preset::Front),
            Action::ViewSide => self.camera.set_preset(Preset::Side),
            Action::ViewTop => self.camera.set_preset(Preset::Top),
            Action::ToggleWireframe => self.wireframe = !self.wireframe,
            Action::ToggleGrid => self.grid = !self.grid,
            _ => {}
        }
    }

    /// Moves the camera as the mouse says (drags and the wheel over the 3D
    /// view; not over a panel).
    pub(crate) fn follow_mouse(&mut self, event: &WindowEvent) {
        let wants_pointer = self.egui.ctx.egui_wants_pointer_input();
        if let Some(camera_move) = self.mouse.on_event(event, wants_pointer) {
            let [x, y, w, h] = self.viewport;
            let camera_move = match camera_move {
                // The wheel zooms towards the cursor, in the 3D view's pixels.
                CameraMove::Zoom { notches, cursor } => CameraMove::Zoom {
                    notches,
                    cursor: (cursor.0 - x, cursor.1 - y),
                },
                other => other,
            };
            input::apply(&mut self.camera, camera_move, (w as u32, h as u32));
        }
    }

    /// What of `state` at `time_s` is under the cursor in the 3D view
    /// (nothing while the cursor is over a panel or outside the window).
    pub(crate) fn hover(&mut self, state: &ViewerState, time_s: f64) -> Option<Hover> {
        let cursor = self.mouse.cursor()?;
        if self.egui.ctx.is_pointer_over_egui() {
            return None;
        }
        let [x, y, w, h] = self.viewport;
        let inside = (cursor.0 - x, cursor.1 - y);
        let size = (w as u32, h as u32);
        self.picker.pick(state, &self.camera, size, inside, time_s)
    }

    /// Gives the 3D view the part of the window the panels leave (`free`,
    /// in points); an empty part leaves the view as it was.
    pub(crate) fn set_free_rect(&mut self, free: egui::Rect) {
        let ppp = self.egui.ctx.pixels_per_point();
        if free.is_positive() {
            self.viewport = [
                free.min.x * ppp,
                free.min.y * ppp,
                free.width() * ppp,
                free.height() * ppp,
            ];
        }
    }

    /// Poses, draws and presents one frame with `egui` over it. When
    /// `measure` is set, each phase is submitted and waited for on its own
    /// and the split is returned (see [`super::frame_time`]): the scene is
    /// then drawn twice, alone and with the overlay in the same pass, and
    /// the overlay's part is the difference.
    pub fn draw(
        &mut self,
        time_s: f64,
        egui: &EguiFrame,
        egui_cpu_ms: f64,
        measure: bool,
    ) -> Option<Split> {
        let started = Instant::now();
        let frame = self.surface.acquire(&self.gpu)?;
        let acquire_ms = ms_since(started);
        let target = self.surface.view(&frame);
        let size = self.surface.size();
        let mut split = Split::default();
        let mut encoder = self.encoder();
        // Waiting is for measuring only; a browser cannot block.
        let measure = measure && cfg!(not(target_arch = "wasm32"));
        let mut phase = Instant::now();

        if let Some(stage) = &mut self.stage {
            stage.pose(&mut encoder, time_s);
        }
        if measure {
            self.submit_and_wait(&mut encoder, Vec::new());
            let deform_and_normals = ms_since(phase);
            phase = Instant::now();
            // Normals once more on their own, to part the two.
            for mesh in scene_of(&self.stage, &self.extra, time_s, false, false).meshes {
                mesh.encode_normals(&mut encoder);
            }
            self.submit_and_wait(&mut encoder, Vec::new());
            split.normals = ms_since(phase);
            split.deform = (deform_and_normals - split.normals).max(0.0);
            phase = Instant::now();
        }
        let scene = scene_of(&self.stage, &self.extra, time_s, self.grid, self.wireframe);
        split.scene = ms_since(phase);
        let target_size = [size.0, size.1];
        if measure {
            phase = Instant::now();
            self.renderer.draw_viewport(
                &mut encoder,
                &target,
                target_size,
                self.viewport,
                &self.camera,
                &scene,
                |_| {},
            );
            self.submit_and_wait(&mut encoder, Vec::new());
            split.draw = ms_since(phase);
        }
        phase = Instant::now();
        let prepared = self.egui.prepare(&self.gpu, &mut encoder, size, egui);
        let overlay = &self.egui;
        self.renderer.draw_viewport(
            &mut encoder,
            &target,
            target_size,
            self.viewport,
            &self.camera,
            &scene,
            |pass| overlay.render(pass, size, egui),
        );
        drop(scene);
        self.submit_and_wait_if(&mut encoder, prepared, measure);
        split.egui = egui_cpu_ms + (ms_since(phase) - split.draw).max(0.0);
        phase = Instant::now();
        self.window.pre_present_notify();
        self.gpu.queue.present(frame);
        split.present = acquire_ms + ms_since(phase);
        measure.then_some(split)
    }

    /// Draws a picture of the window: the 3D view alone, filling the
    /// picture, or (`overlay`) the window as shown, panels included. The
    /// capture returned reads it back ([`Capture::read_async`]).
    pub fn picture(&mut self, time_s: f64, overlay: Option<&EguiFrame>) -> Result<Capture> {
        let (w, h) = self.surface.size();
        let size = (w.max(1), h.max(1));
        let mut capture = Capture::with_format(&self.gpu, [size.0, size.1], self.surface.format());
        let viewport = match overlay {
            Some(frame) => {
                // The screen's buffers were written for the same primitives;
                // write them again in case a later pass reused them.
                let mut encoder = self.encoder();
                let prepared = self.egui.prepare(&self.gpu, &mut encoder, size, frame);
                self.gpu
                    .queue
                    .submit(prepared.into_iter().chain([encoder.finish()]));
                self.viewport
            }
            None => [0.0, 0.0, size.0 as f32, size.1 as f32],
        };
        let scene = scene_of(&self.stage, &self.extra, time_s, self.grid, self.wireframe);
        let egui = &self.egui;
        capture.draw_with(&mut self.renderer, &self.camera, &scene, viewport, |pass| {
            if let Some(frame) = overlay {
                egui.render(pass, size, frame);
            }
        })?;
        Ok(capture)
    }

    fn encoder(&self) -> wgpu::CommandEncoder {
        self.gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            })
    }

    fn submit_and_wait(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        before: Vec<wgpu::CommandBuffer>,
    ) {
        self.submit_and_wait_if(encoder, before, true);
    }

    /// Submits `before` then `encoder`'s work (leaving a fresh encoder), and
    /// waits for it when `wait` is set.
    fn submit_and_wait_if(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        before: Vec<wgpu::CommandBuffer>,
        wait: bool,
    ) {
        let done = std::mem::replace(encoder, self.encoder());
        self.gpu
            .queue
            .submit(before.into_iter().chain([done.finish()]));
        if wait {
            // A failed wait only spoils this frame's figures.
            let _ = self.gpu.wait();
        }
    }
}

/// The stage at `time_s` as the G and W toggles say to draw it (the meshes
/// as last posed) with `extra` beside it; an empty scene without tracks.
fn scene_of<'s>(
    stage: &'s Option<Stage>,
    extra: &Primitives,
    time_s: f64,
    grid: bool,
    wireframe: bool,
) -> FrameScene<'s> {
    let mut frame = match stage {
        Some(stage) => stage.frame_scene(time_s),
        None => FrameScene::default(),
    };
    frame.add_primitives(extra.clone());
    if !grid {
        frame.grid = None;
    }
    frame.wireframe = wireframe;
    frame
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
