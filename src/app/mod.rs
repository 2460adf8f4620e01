//! The interactive window: plays the tracks on one [`Timeline`], draws them
//! with the GPU renderer, and lays an egui overlay on top.
//!
//! - `framework`: surface and egui plumbing (resize, surface loss, present);
//! - [`keys`]: the one binding table;
//! - `input`: mouse → camera;
//! - `ui`: the overlay.
//!
//! Set `MOTION_VIEWER_STATUS=1` to have the window print one line per frame
//! change on stdout (`frame 3/241 time 0.100000`), and `frame_time_ms 16.70`
//! (smoothed) on exit; `screenshot PATH` is printed for each F12 regardless.
//! Scripts and tests read these instead of guessing from pixels.

mod framework;
mod input;
pub mod keys;
mod ui;

use crate::anim::timeline::{LoopMode, Timeline};
use crate::error::Error;
use crate::gpu::camera::Preset;
use crate::gpu::{Capture, FrameScene, GpuContext, OrbitCamera, Renderer};
use crate::scene::{self, Track};
use crate::stage::Stage;
use crate::summary::summarize;
use framework::{EguiPass, Surface};
use input::MouseCamera;
use keys::Action;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::ModifiersState;
use winit::window::{Window, WindowId};

/// The environment variable that turns on status lines on stdout.
pub const STATUS_ENV: &str = "MOTION_VIEWER_STATUS";

/// Weight of the newest sample in the smoothed frame time.
const FRAME_TIME_SMOOTHING: f64 = 0.1;

/// How the window starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Start paused.
    pub paused: bool,
    /// Signed playback speed.
    pub speed: f64,
    /// Start time in seconds.
    pub start_s: f64,
    /// What happens at the ends.
    pub loop_mode: LoopMode,
    /// Inner size of the window in logical pixels.
    pub size: (u32, u32),
}

/// Why the window could not run.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Loading the files or opening the GPU failed.
    #[error(transparent)]
    Viewer(#[from] Error),
    /// No display to open a window on.
    #[error(
        "no display found (is DISPLAY or WAYLAND_DISPLAY set?); `viewer render FILE... --out x.png` draws pictures without one"
    )]
    NoDisplay,
    /// The windowing system refused.
    #[error("cannot open a window: {0}")]
    Window(String),
    /// The options make no sense.
    #[error("{0}")]
    Options(String),
}

/// Loads `paths`, opens the window and plays until it is closed.
pub fn run(paths: &[PathBuf], options: &Options) -> Result<(), AppError> {
    let tracks = scene::load(paths)?;
    if tracks.is_empty() {
        return Err(AppError::Options("no motion to play".into()));
    }
    // The stage's rule: the longest track's length, the first track's frame period.
    let duration = tracks.iter().map(Track::duration_s).fold(0.0, f64::max);
    let period = tracks[0].frame_period_s();
    let timeline = Timeline::new(duration, period)
        .with_speed(options.speed)
        .map_err(|e| AppError::Options(e.to_string()))?
        .with_loop(options.loop_mode)
        .with_start(options.start_s)
        .with_paused(options.paused);
    // winit fails here when no display server can be reached; its message
    // names its own source file, which helps no user.
    let event_loop = EventLoop::new().map_err(|_| AppError::NoDisplay)?;
    let mut app = App {
        first_input: paths[0].clone(),
        options: options.clone(),
        info: ui::Info {
            tracks: tracks.iter().map(describe).collect(),
            adapter: String::new(),
            marks: marks(&tracks),
        },
        tracks,
        timeline,
        status: std::env::var_os(STATUS_ENV).is_some_and(|v| v != "0" && !v.is_empty()),
        view: None,
        error: None,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| AppError::Window(e.to_string()))?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Times in seconds worth a tick on the bar.
fn marks(tracks: &[Track]) -> Vec<f64> {
    let mut marks = Vec::new();
    for track in tracks {
        match track {
            Track::Mtn { motion, .. } => {
                let period = f64::from(motion.frame_ms()) / 1e3;
                marks.extend(motion.keyframe_frames().iter().map(|&f| f as f64 * period));
            }
            Track::InputAnimation { recording, .. } => {
                marks.extend(recording.markers.iter().map(|m| f64::from(m.time)));
            }
            Track::Memg { .. } => {}
        }
    }
    marks
}

/// `file: headline` for the information panel, from the track's summary.
fn describe(track: &Track) -> String {
    let summary = summarize(track);
    let file = Path::new(summary.file());
    let name = file.file_name().map_or_else(
        || summary.file().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    format!("{name}: {}", summary.headline())
}

/// The first free `<stem>_NNNN.png` beside `input`, counting from 1.
pub fn next_screenshot_path(input: &Path) -> PathBuf {
    let dir = input.parent().unwrap_or(Path::new(""));
    let stem = input
        .file_stem()
        .map_or_else(|| "screenshot".into(), |s| s.to_string_lossy());
    (1..)
        .map(|n| dir.join(format!("{stem}_{n:04}.png")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}.png")))
}

/// Everything that exists only while the window does.
struct View {
    window: Arc<Window>,
    gpu: GpuContext,
    surface: Surface,
    egui: EguiPass,
    renderer: Renderer,
    stage: Stage,
    camera: OrbitCamera,
    /// Where R puts the camera back: the view that framed the first pose.
    home: OrbitCamera,
    /// A renderer for [`Capture::FORMAT`], built on the first F12.
    capture_renderer: Option<Renderer>,
    mouse: MouseCamera,
    modifiers: ModifiersState,
    show_help: bool,
    wireframe: bool,
    grid: bool,
    last_redraw: Instant,
    /// The previous redraw was a playing frame.
    played_last_frame: bool,
    frame_ms: f64,
    reported_frame: Option<u64>,
}

/// The stage at `time_s` as the G and W toggles say to draw it (the meshes
/// as last posed).
fn frame_scene(stage: &Stage, time_s: f64, grid: bool, wireframe: bool) -> FrameScene<'_> {
    let mut frame = stage.frame_scene(time_s);
    if !grid {
        frame.grid = None;
    }
    frame.wireframe = wireframe;
    frame
}

impl View {
    /// Renders the current view (without the overlay) to the first free
    /// `<stem>_NNNN.png` beside `input` and prints its path.
    fn screenshot(&mut self, input: &Path, time_s: f64) -> Result<(), AppError> {
        let (w, h) = self.surface.size();
        let mut capture = Capture::new(&self.gpu, [w.max(1), h.max(1)]);
        let scene = frame_scene(&self.stage, time_s, self.grid, self.wireframe);
        let renderer = self
            .capture_renderer
            .get_or_insert_with(|| Renderer::new(&self.gpu, Capture::FORMAT));
        let picture = capture.render(renderer, &self.camera, &scene)?;
        let path = next_screenshot_path(input);
        picture
            .save(&path)
            .map_err(|e| Error::io(path.display(), std::io::Error::other(e)))?;
        println!("screenshot {}", path.display());
        let _ = std::io::stdout().flush();
        Ok(())
    }
}

struct App {
    first_input: PathBuf,
    options: Options,
    info: ui::Info,
    tracks: Vec<Track>,
    timeline: Timeline,
    status: bool,
    view: Option<View>,
    /// The first fatal error; the event loop exits and `run` returns it.
    error: Option<AppError>,
}

impl App {
    fn open(&mut self, event_loop: &ActiveEventLoop) -> Result<View, AppError> {
        let (w, h) = self.options.size;
        let attributes = Window::default_attributes()
            .with_title(format!("viewer — {}", self.first_input.display()))
            .with_inner_size(winit::dpi::LogicalSize::new(w, h));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| AppError::Window(e.to_string()))?,
        );
        let (gpu, surface) =
            framework::init(event_loop.owned_display_handle(), Arc::clone(&window))?;
        self.info.adapter = gpu.adapter_name();
        let egui = EguiPass::new(&window, &gpu, surface.format());
        let renderer = Renderer::new(&gpu, surface.format());
        let stage = Stage::new(&gpu, &self.tracks)?;
        for warning in stage.load_warnings() {
            eprintln!("viewer: warning: {warning}");
        }
        let mut camera = OrbitCamera::default();
        let (min, max) = stage.bounds();
        camera.frame_bounds(min, max);
        Ok(View {
            window,
            gpu,
            surface,
            egui,
            renderer,
            stage,
            camera,
            home: camera,
            capture_renderer: None,
            mouse: MouseCamera::default(),
            modifiers: ModifiersState::empty(),
            show_help: false,
            wireframe: false,
            grid: true,
            last_redraw: Instant::now(),
            played_last_frame: false,
            frame_ms: 0.0,
            reported_frame: None,
        })
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, error: AppError) {
        self.error.get_or_insert(error);
        event_loop.exit();
    }

    /// Applies one bound action. Returns false for Quit.
    fn act(&mut self, action: Action) -> Result<bool, AppError> {
        let t = &mut self.timeline;
        let Some(view) = self.view.as_mut() else {
            return Ok(true);
        };
        match action {
            Action::TogglePlay => t.toggle(),
            Action::StepBack => t.step_frames(-1),
            Action::StepForward => t.step_frames(1),
            Action::StepBack10 => t.step_frames(-10),
            Action::StepForward10 => t.step_frames(10),
            Action::JumpStart => t.jump_to_start(),
            Action::JumpEnd => t.jump_to_end(),
            Action::SpeedUp => t.double_speed(),
            Action::SlowDown => t.halve_speed(),
            Action::Reverse => t.reverse(),
            Action::CycleLoop => {
                t.cycle_loop_mode();
            }
            Action::FrameAll => {
                // The stage's box holds every pose of the whole motion, so
                // the framing stays good while playing.
                let (min, max) = view.stage.bounds();
                view.camera.frame_bounds(min, max);
            }
            Action::ResetCamera => view.camera = view.home,
            Action::ViewFront => view.camera.set_preset(Preset::Front),
            Action::ViewSide => view.camera.set_preset(Preset::Side),
            Action::ViewTop => view.camera.set_preset(Preset::Top),
            Action::ToggleWireframe => view.wireframe = !view.wireframe,
            Action::ToggleGrid => view.grid = !view.grid,
            Action::Screenshot => view.screenshot(&self.first_input, t.time_s())?,
            Action::ToggleHelp => view.show_help = !view.show_help,
            Action::Quit => return Ok(false),
        }
        Ok(true)
    }

    /// One frame: advance the clock by the real time elapsed, run the
    /// overlay, draw, present, report.
    fn redraw(&mut self) {
        let Some(view) = self.view.as_mut() else {
            return;
        };
        let now = Instant::now();
        let dt = now.duration_since(view.last_redraw).as_secs_f64();
        view.last_redraw = now;
        // Only an interval between two playing frames is playback time: the
        // first frame after a pause must not jump by the time spent paused.
        let was_playing = self.timeline.is_playing();
        if was_playing && view.played_last_frame {
            self.timeline.advance(dt);
            // Frames follow one another, so the interval is the frame time.
            view.frame_ms += FRAME_TIME_SMOOTHING * (dt * 1e3 - view.frame_ms);
        }
        view.played_last_frame = was_playing;

        let mut overlay = ui::Overlay {
            timeline: &mut self.timeline,
            info: &self.info,
            frame_ms: view.frame_ms,
            show_help: view.show_help,
        };
        let egui_frame = view
            .egui
            .run(&view.window, &view.gpu, |ui| overlay.show(ui));
        let egui_again = egui_frame.repaint_now;

        if let Some(frame) = view.surface.acquire(&view.gpu) {
            let target = frame
                .texture
                .create_view(&wgpu::TextureViewDescriptor::default());
            let mut encoder =
                view.gpu
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("frame"),
                    });
            let size = view.surface.size();
            let time_s = self.timeline.time_s();
            view.stage.pose(&mut encoder, time_s);
            let scene = frame_scene(&view.stage, time_s, view.grid, view.wireframe);
            view.renderer.draw(
                &mut encoder,
                &target,
                [size.0, size.1],
                &view.camera,
                &scene,
            );
            let prepared = view
                .egui
                .paint(&view.gpu, &mut encoder, &target, size, egui_frame);
            view.gpu
                .queue
                .submit(prepared.into_iter().chain([encoder.finish()]));
            view.window.pre_present_notify();
            view.gpu.queue.present(frame);
            if !was_playing {
                // Idle redraws come from events; their cost is the frame time.
                view.frame_ms = now.elapsed().as_secs_f64() * 1e3;
            }
        }

        if self.status && view.reported_frame != Some(self.timeline.frame()) {
            view.reported_frame = Some(self.timeline.frame());
            println!(
                "frame {}/{} time {:.6}",
                self.timeline.frame(),
                self.timeline.frame_count(),
                self.timeline.time_s()
            );
            let _ = std::io::stdout().flush();
        }
        if self.timeline.is_playing() || egui_again {
            view.window.request_redraw();
        }
    }
}

impl ApplicationHandler for App {
    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(view) = self.view.as_ref().filter(|_| self.status) {
            println!("frame_time_ms {:.2}", view.frame_ms);
            let _ = std::io::stdout().flush();
        }
    }

    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.view.is_some() {
            return;
        }
        match self.open(event_loop) {
            Ok(view) => {
                view.window.request_redraw();
                self.view = Some(view);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(view) = self.view.as_mut() else {
            return;
        };
        let egui_consumed = view.egui.on_window_event(&view.window, &event);
        match &event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                return;
            }
            WindowEvent::Resized(size) => {
                view.surface.resize(&view.gpu, size.width, size.height);
            }
            WindowEvent::RedrawRequested => {
                self.redraw();
                return;
            }
            WindowEvent::ModifiersChanged(m) => view.modifiers = m.state(),
            WindowEvent::KeyboardInput { event: key, .. }
                if key.state == ElementState::Pressed
                    && !egui_consumed
                    && !view.egui.ctx.egui_wants_keyboard_input() =>
            {
                if let Some(action) = keys::lookup(&key.logical_key, view.modifiers) {
                    match self.act(action) {
                        Ok(true) => {}
                        Ok(false) => {
                            event_loop.exit();
                            return;
                        }
                        // A failed screenshot or read-back is worth a line, not the session.
                        Err(e) => eprintln!("viewer: {e}"),
                    }
                }
            }
            _ => {}
        }
        let Some(view) = self.view.as_mut() else {
            return;
        };
        let wants_pointer = view.egui.ctx.egui_wants_pointer_input();
        if let Some(camera_move) = view.mouse.on_event(&event, wants_pointer) {
            input::apply(&mut view.camera, camera_move, view.surface.size());
        }
        // Anything may have changed the picture or the overlay.
        if let Some(view) = &self.view {
            view.window.request_redraw();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::next_screenshot_path;

    #[test]
    fn screenshots_never_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("flags.obj");
        let first = next_screenshot_path(&input);
        assert_eq!(first, dir.path().join("flags_0001.png"));
        std::fs::write(&first, b"png").unwrap();
        assert_eq!(
            next_screenshot_path(&input),
            dir.path().join("flags_0002.png")
        );
    }
}
