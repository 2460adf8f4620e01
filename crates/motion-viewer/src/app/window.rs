//! The window's event handling: keys, mouse, dropped files and the host's
//! events in; one frame drawn per redraw. Platform-neutral: everything from
//! outside goes through the [`Host`].

use super::frame_time::SAMPLE_EVERY;
use super::host::{GpuOpened, Host, HostEvent, Picture, Task};
use super::keys::{self, Action};
use super::ui::{Command, Overlay, UiState};
use super::view::View;
use super::{AppError, Options, input};
use crate::gpu::backend_name;
use crate::open::Input;
use crate::scene::camera::Preset;
use crate::session::status::Status;
use crate::session::viewer::{Reload, ViewerState};
use std::sync::Arc;
use web_time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::ActiveEventLoop;
use winit::window::{Window, WindowId};

/// How long a frame may spend stepping a simulation, milliseconds: the
/// window stays responsive (the page has no threads) while a motion
/// simulates at several times real time.
#[cfg(feature = "physics")]
const SIM_SLICE_MS: f64 = 12.0;
/// Steps taken between two looks at the clock (a 2 ms step costs about
/// 0.1 ms in a release build).
#[cfg(feature = "physics")]
const SIM_CHUNK_STEPS: usize = 20;

/// What the overlay shows of `sims`.
#[cfg(feature = "physics")]
fn sim_view(
    sims: &crate::session::sim::Simulations,
    state: &ViewerState,
) -> super::ui::sim::SimView {
    use super::ui::sim::{Band, SimView};
    let tracks = 0..state.tracks().len();
    SimView {
        available: true,
        mode: sims.mode().name(),
        verdicts: sims
            .status()
            .map(|s| s.tracks.into_iter().map(|t| (t.track, t.text)).collect())
            .unwrap_or_default(),
        bands: tracks
            .clone()
            .flat_map(|i| {
                sims.marks(i).iter().map(move |m| Band {
                    track: i,
                    t0: m.t0,
                    t1: m.t1,
                    fall: m.fall,
                    text: format!("{}: {}", state.tracks()[i].name(), m.text),
                })
            })
            .collect(),
        reached: tracks
            .flat_map(|i| {
                sims.reached(i)
                    .into_iter()
                    .map(move |(name, times, values)| {
                        let series = crate::curves::Series::new(name.clone(), times, values);
                        (i, name, Arc::new(series))
                    })
            })
            .collect(),
        version: sims.version(),
        toggled: false,
    }
}

/// The window application over a [`Host`].
pub struct App<H: Host> {
    host: H,
    state: ViewerState,
    ui: UiState,
    options: Options,
    view: Option<View>,
    /// The window whose GPU is being opened (asynchronously in a browser).
    opening: Option<Arc<Window>>,
    /// Files dropped since the last batch was opened (a multi-file drop
    /// arrives as one event per file; an `.obj` + `.bin` pair must be opened together).
    dropped: Vec<Input>,
    /// A screenshot asked for: `Some(true)` with the panels.
    screenshot: Option<bool>,
    /// Frame the camera on the next frame (tracks opened, layout switched, focus moved).
    reframe: bool,
    last_status: String,
    last_edit: Option<String>,
    /// Whether the title shows unsaved edits (`*`).
    titled_unsaved: bool,
    /// Close the window once this frame is drawn (a question answered).
    exit: bool,
    last_error: Option<String>,
    /// The first fatal error; the event loop exits and the caller reports it.
    error: Option<AppError>,
    /// The simulated dog of each AIBO track (X).
    #[cfg(feature = "physics")]
    sim: crate::session::sim::Simulations,
    /// The `sim …` status lines last printed.
    #[cfg(feature = "physics")]
    last_sim: Vec<String>,
}

impl<H: Host> App<H> {
    /// The window application, its clock set by `options`, showing the
    /// tracks `inputs` open to (none: the window starts empty and says how
    /// to open files); materials named by an `.obj` come from `materials`.
    pub fn new(
        host: H,
        options: Options,
        inputs: &[Input],
        materials: &dyn crate::open::Materials,
    ) -> Result<App<H>, AppError> {
        let mut state = options.state()?;
        if !inputs.is_empty() {
            state.open(inputs, materials)?;
        }
        let mut ui = UiState::default();
        ui.curves = super::ui::CurvesPanel::with_pattern(options.curves.clone());
        let mut app = App {
            host,
            state,
            ui,
            options,
            view: None,
            opening: None,
            dropped: Vec::new(),
            screenshot: None,
            reframe: true,
            last_status: String::new(),
            last_edit: None,
            titled_unsaved: false,
            exit: false,
            last_error: None,
            error: None,
            #[cfg(feature = "physics")]
            sim: Default::default(),
            #[cfg(feature = "physics")]
            last_sim: Vec::new(),
        };
        app.announce_tracks();
        Ok(app)
    }

    /// The fatal error that ended the event loop, if any.
    pub fn into_error(self) -> Option<AppError> {
        self.error
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, error: AppError) {
        self.error.get_or_insert(error);
        event_loop.exit();
    }

    /// Tells the host which files make the tracks now, and the load warnings.
    fn announce_tracks(&mut self) {
        announce_tracks(&mut self.host, &self.state);
    }

    fn open(&mut self, inputs: Vec<Input>) {
        if inputs.is_empty() {
            return;
        }
        let materials = self.host.materials();
        if self.state.open(&inputs, materials).is_ok() {
            self.announce_tracks();
            if let Some(view) = &self.view {
                view.window.set_title(&title(&self.state));
            }
            // The first tracks, or more beside them: show them all.
            self.state.set_focus(None);
            self.reframe = true;
        }
        self.request_redraw();
    }

    fn reload(&mut self, inputs: Vec<Input>) {
        let materials = self.host.materials();
        match self.state.reload(&inputs, materials) {
            Reload::Replaced(i) => {
                let name = self.state.tracks()[i].name();
                self.host.log(&format!("reloaded {name}"));
                self.announce_tracks();
            }
            Reload::Kept(_, message) => self
                .host
                .log(&format!("{message} (keeping the last good version)")),
            Reload::Unsaved(_, message) => self.host.log(&message),
            Reload::Unknown => {}
        }
        self.request_redraw();
    }

    fn request_redraw(&self) {
        if let Some(view) = &self.view {
            view.window.request_redraw();
        }
    }

    /// Applies one bound action. Returns false for Quit.
    fn act(&mut self, action: Action) -> bool {
        let s = &mut self.state;
        match action {
            Action::TogglePlay => s.toggle_play(),
            Action::StepBack => s.timeline.step_frames(-1),
            Action::StepForward => s.timeline.step_frames(1),
            Action::StepBack10 => s.timeline.step_frames(-10),
            Action::StepForward10 => s.timeline.step_frames(10),
            Action::PrevKeyframe | Action::NextKeyframe => {
                s.jump_keyframe(action == Action::NextKeyframe);
                s.select_key_at_playhead();
            }
            Action::JumpStart => s.timeline.jump_to_start(),
            Action::JumpEnd => s.timeline.jump_to_end(),
            Action::SpeedUp => s.timeline.double_speed(),
            Action::SlowDown => s.timeline.halve_speed(),
            Action::Reverse => s.timeline.reverse(),
            Action::CycleLoop => {
                s.timeline.cycle_loop_mode();
            }
            Action::ClearLoopRange => s.clear_loop_range(),
            Action::FocusPrevTrack | Action::FocusNextTrack => {
                s.cycle_focus(if action == Action::FocusNextTrack {
                    1
                } else {
                    -1
                });
                self.reframe = true;
            }
            Action::ToggleTrackVisible => {
                if let Some(i) = s.focus() {
                    s.toggle_visible(i);
                }
            }
            Action::ToggleSolo => {
                if let Some(i) = s.focus() {
                    s.toggle_solo(i);
                }
            }
            Action::FrameAll => {
                // Every track's box over its whole motion: the framing stays
                // good while playing.
                s.set_focus(None);
                self.reframe = true;
            }
            Action::ToggleLayout => {
                s.set_layout(s.layout().toggled());
                self.reframe = true;
            }
            Action::Screenshot => self.screenshot = Some(false),
            Action::ScreenshotWithOverlay => self.screenshot = Some(true),
            Action::ExportGltf => self.export_gltf(),
            Action::ToggleHelp => self.ui.show_help = !self.ui.show_help,
            Action::TogglePanel => self.ui.hide_panel = !self.ui.hide_panel,
            Action::ToggleCurves => self.ui.curves.open = !self.ui.curves.open,
            Action::ToggleCompare => self.ui.curves.toggle_compare(),
            Action::ToggleSimulation => self.toggle_simulation(),
            Action::Quit if s.has_unsaved_edits() => self.ui.edit.ask_quit(),
            Action::Quit => return false,
            Action::EditValue
            | Action::InsertKey
            | Action::DeleteKey
            | Action::CopyPose
            | Action::PastePose
            | Action::MirrorKey
            | Action::Undo
            | Action::Redo
            | Action::SaveMotion => {
                if super::ui::edit::key(s, &mut self.ui.edit, action) {
                    self.save_motion(false);
                }
            }
            camera_action => {
                if let Some(view) = &mut self.view {
                    match camera_action {
                        Action::ResetCamera => view.camera = view.home,
                        Action::ViewFront => view.camera.set_preset(Preset::Front),
                        Action::ViewSide => view.camera.set_preset(Preset::Side),
                        Action::ViewTop => view.camera.set_preset(Preset::Top),
                        Action::ToggleWireframe => view.wireframe = !view.wireframe,
                        Action::ToggleGrid => view.grid = !view.grid,
                        _ => {}
                    }
                }
            }
        }
        true
    }

    /// One frame: advance the clock by the real time elapsed, rebuild the
    /// stage if the tracks changed, pick, run the overlay, draw, present, report.
    fn redraw(&mut self) {
        if self.view.is_none() {
            return;
        }
        let sim_busy = self.simulate_slice();
        let Some(view) = self.view.as_mut() else {
            return;
        };
        let now = Instant::now();
        let dt = now.duration_since(view.last_redraw).as_secs_f64();
        view.last_redraw = now;
        // Only an interval between two playing frames is playback time: the
        // first frame after a pause must not jump by the time spent paused.
        let was_playing = self.state.timeline.is_playing();
        if was_playing && view.played_last_frame {
            self.state.advance(dt);
            view.times.add_interval(dt);
        }
        view.played_last_frame = was_playing;

        match view.sync_stage(&self.state) {
            Ok(Some(warnings)) => {
                for w in warnings {
                    self.host.log(&format!("warning: {w}"));
                }
            }
            Ok(None) => {}
            Err(e) => {
                self.host.log(&e.to_string());
                return;
            }
        }
        let time_s = self.state.timeline.time_s();
        self.ui.hover = match view.mouse.cursor() {
            Some(c) if !view.egui.ctx.is_pointer_over_egui() => {
                let [x, y, w, h] = view.viewport;
                let inside = (c.0 - x, c.1 - y);
                view.picker.pick(
                    &self.state,
                    &view.camera,
                    (w as u32, h as u32),
                    inside,
                    time_s,
                )
            }
            _ => None,
        };

        let adapter = view.gpu.adapter_name();
        let mut overlay = Overlay {
            state: &mut self.state,
            ui: &mut self.ui,
            adapter: &adapter,
            times: &view.times,
            samples: view.samples(),
            commands: Vec::new(),
            free_rect: egui::Rect::NOTHING,
            curve_actions: Vec::new(),
        };
        let egui_started = Instant::now();
        let egui_frame = view
            .egui
            .run(&view.window, &view.gpu, |ui| overlay.show(ui));
        let egui_ms = egui_started.elapsed().as_secs_f64() * 1e3;
        let (commands, free) = (overlay.commands, overlay.free_rect);
        let ppp = view.egui.ctx.pixels_per_point();
        if free.is_positive() {
            view.viewport = [
                free.min.x * ppp,
                free.min.y * ppp,
                free.width() * ppp,
                free.height() * ppp,
            ];
        }
        for command in &commands {
            match *command {
                Command::SaveMotion { overwrite } => {
                    self.save_motion(overwrite);
                }
                Command::Quit { save } => self.exit = !save || self.save_motion(false),
                _ => {}
            }
        }
        if std::mem::take(&mut self.ui.sim.toggled) {
            self.toggle_simulation();
        }
        let Some(view) = self.view.as_mut() else {
            return;
        };
        if commands.contains(&Command::TracksChanged) {
            announce_tracks(&mut self.host, &self.state);
            view.window.set_title(&title(&self.state));
            self.reframe = true;
        }
        if std::mem::take(&mut self.reframe) || commands.contains(&Command::Frame) {
            view.frame(&self.state);
            if self.state.focus().is_none() {
                view.home = view.camera;
            }
        }
        // The overlay may have moved the time (scrubbing) or the tracks.
        let time_s = self.state.timeline.time_s();
        let _ = view.sync_stage(&self.state);
        #[cfg(feature = "physics")]
        {
            view.extra = self.sim.primitives(&self.state, time_s);
        }
        let measure = view.times.next_frame_measured() && was_playing;
        if let Some(split) = view.draw(time_s, &egui_frame, egui_ms, measure) {
            view.times.add_split(split);
        }
        if let Some(problem) = view.surface.take_problem() {
            self.host.log(&problem);
        }
        if let Some(overlay) = self.screenshot.take() {
            let first = self
                .state
                .tracks()
                .first()
                .map(|e| e.track.path().to_path_buf());
            let task: Task = match view.picture(time_s, overlay.then_some(&egui_frame)) {
                Ok(capture) => Box::pin(async move {
                    let picture = capture.read_async().await;
                    HostEvent::Picture(Box::new(Picture { picture, first }))
                }),
                Err(e) => {
                    let picture = Err(e);
                    Box::pin(
                        async move { HostEvent::Picture(Box::new(Picture { picture, first })) },
                    )
                }
            };
            // The desktop reads it back at once; a page, when the browser has.
            if let Some(HostEvent::Picture(picture)) = self.host.run(task) {
                save_picture(&mut self.host, *picture);
            }
        }
        if !was_playing {
            // Idle redraws come from events; their cost is the frame time.
            view.times.frame_ms = now.elapsed().as_secs_f64() * 1e3;
        }
        self.report();
        let Some(view) = self.view.as_ref() else {
            return;
        };
        // An empty timeline "plays" without moving: no need to redraw it.
        let moving = self.state.timeline.is_playing() && !self.state.tracks().is_empty();
        if moving || egui_frame.repaint_now || sim_busy {
            view.window.request_redraw();
        }
    }

    /// The simulated dog's toggle (X): off → beside → ghost → off.
    fn toggle_simulation(&mut self) {
        #[cfg(feature = "physics")]
        {
            self.sim.cycle();
            if self.sim.mode() == crate::session::sim::SimMode::Off {
                // Said once: the per-track lines stop.
                self.host.status("sim off");
                self.last_sim.clear();
            }
            self.ui.sim = sim_view(&self.sim, &self.state);
        }
        #[cfg(not(feature = "physics"))]
        self.host
            .log("this viewer was built without the simulator (feature `physics`)");
        self.request_redraw();
    }

    /// Follows the tracks with the simulations and steps the one under
    /// way for at most [`SIM_SLICE_MS`] of this frame; returns true while
    /// work is left (the window keeps drawing until it is done).
    fn simulate_slice(&mut self) -> bool {
        #[cfg(feature = "physics")]
        {
            let version = self.sim.version();
            self.sim.sync(&self.state);
            let started = Instant::now();
            let mut busy = self.sim.busy();
            while busy && started.elapsed().as_secs_f64() * 1e3 < SIM_SLICE_MS {
                busy = self.sim.advance(SIM_CHUNK_STEPS);
            }
            if self.sim.version() != version || busy || self.ui.sim.mode != self.sim.mode().name() {
                let view = sim_view(&self.sim, &self.state);
                if view.version == self.ui.sim.version && self.ui.sim.available {
                    // Only the progress moved: keep the bands and curves.
                    self.ui.sim.verdicts = view.verdicts;
                    self.ui.sim.mode = view.mode;
                } else {
                    self.ui.sim = view;
                }
            }
            busy
        }
        #[cfg(not(feature = "physics"))]
        false
    }

    /// Status for scripts: the host gets the [`Status`] every frame and a
    /// line when the timeline or tracks change; errors once.
    fn report(&mut self) {
        let (backend, frame_ms) = match &self.view {
            Some(view) => (
                backend_name(view.gpu.adapter.get_info().backend),
                view.times.frame_ms,
            ),
            None => ("", 0.0),
        };
        let mut status = Status::of(&self.state, backend, frame_ms);
        status.curves = self.ui.curves.status(&self.state);
        if let Some(edit) = &mut status.edit {
            edit.typing = self.ui.edit.ready_to_type();
        }
        #[cfg(feature = "physics")]
        {
            status.sim = self.sim.status();
            let lines = status.sim.as_ref().map_or_else(Vec::new, |s| s.lines());
            if lines != self.last_sim {
                for line in lines.iter().filter(|l| !self.last_sim.contains(l)) {
                    self.host.status(line);
                }
                self.last_sim = lines;
            }
        }
        self.host.report(&status);
        let line = status.line();
        if line != self.last_status {
            self.host.status(&line);
            self.last_status = line;
        }
        let edit = status.edit.as_ref().map(|e| e.line());
        if edit != self.last_edit {
            if let Some(line) = &edit {
                self.host.status(line);
            }
            self.last_edit = edit;
        }
        let unsaved = self.state.has_unsaved_edits();
        if unsaved != self.titled_unsaved
            && let Some(view) = &self.view
        {
            view.window.set_title(&title(&self.state));
            self.titled_unsaved = unsaved;
        }
        let error = status.error;
        if error != self.last_error {
            if let Some(e) = &error {
                self.host.status(&format!("error {e}"));
            }
            self.last_error = error;
        }
    }

    /// Saves the tracks the session holds — edited motions, the layout
    /// shown, the materials they were opened with — as one glTF scene: what
    /// `viewer export --layout … --out x.glb` writes for the same files.
    fn export_gltf(&mut self) {
        let tracks = self.state.decoded();
        if tracks.is_empty() {
            self.host
                .log("glTF: no tracks to export; open some files first");
            return;
        }
        let first = tracks[0].path().to_path_buf();
        let saved = crate::export::gltf::glb_bytes(
            &tracks,
            self.state.plan(),
            &crate::export::gltf::GltfOptions::default(),
        )
        .and_then(|(glb, _)| self.host.save_scene(&glb, Some(&first)));
        if let Err(e) = saved {
            self.host.log(&format!("glTF: {e}"));
        }
    }

    /// Saves the edited track's motion (see [`super::ui::edit::save`]).
    fn save_motion(&mut self, overwrite: bool) -> bool {
        let saved = super::ui::edit::save(
            &mut self.host,
            &mut self.state,
            &mut self.ui.edit,
            overwrite,
        );
        self.request_redraw();
        saved
    }

    /// The GPU for the window is open (or failed): the window becomes a view.
    fn gpu_opened(&mut self, event_loop: &ActiveEventLoop, opened: GpuOpened) {
        let Some(window) = self.opening.take() else {
            return;
        };
        match opened.0 {
            Ok(opened) => {
                let view = View::new(window, opened, self.options.basis);
                self.host
                    .status(&format!("adapter {}", view.gpu.adapter_name()));
                view.window.request_redraw();
                self.view = Some(view);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }
}

impl<H: Host> ApplicationHandler<HostEvent> for App<H> {
    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(view) = &self.view {
            let times = view.times.clone();
            self.host
                .status(&format!("frame_time_ms {:.2}", times.frame_ms));
            if times.has_split() {
                self.host.status(&format!(
                    "frame_split_ms {} (every {SAMPLE_EVERY}th frame)",
                    times.split.to_line()
                ));
            }
        }
    }

    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.view.is_some() || self.opening.is_some() {
            return;
        }
        let title = match self.state.tracks().first() {
            Some(e) => format!(
                "viewer — {}",
                e.sources
                    .last()
                    .map_or_else(String::new, |p| p.display().to_string())
            ),
            None => "viewer — drop motion files here".into(),
        };
        match View::open_window(event_loop, &self.host, &title, self.options.size) {
            Ok((window, task)) => {
                self.opening = Some(window);
                if let Some(event) = self.host.run(task) {
                    self.user_event(event_loop, event);
                }
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn user_event(&mut self, event_loop: &ActiveEventLoop, event: HostEvent) {
        match event {
            HostEvent::Open(inputs) => self.open(inputs),
            HostEvent::Changed(inputs) => self.reload(inputs),
            HostEvent::Gpu(opened) => self.gpu_opened(event_loop, *opened),
            HostEvent::Picture(picture) => save_picture(&mut self.host, *picture),
            HostEvent::Action(action) => {
                if !self.act(action) {
                    event_loop.exit();
                }
                self.request_redraw();
            }
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        // Every file of one drop has been reported by now.
        if !self.dropped.is_empty() {
            let inputs = std::mem::take(&mut self.dropped);
            self.open(inputs);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(view) = self.view.as_mut() else {
            return;
        };
        let egui_consumed = view.egui.on_window_event(&view.window, &event);
        match &event {
            WindowEvent::CloseRequested if self.state.has_unsaved_edits() => {
                self.ui.edit.ask_quit();
                view.window.request_redraw();
                return;
            }
            WindowEvent::CloseRequested => {
                event_loop.exit();
                return;
            }
            WindowEvent::Resized(size) => {
                view.surface.resize(&view.gpu, size.width, size.height);
            }
            WindowEvent::RedrawRequested => {
                self.redraw();
                if self.exit {
                    event_loop.exit();
                }
                return;
            }
            WindowEvent::DroppedFile(path) => match self.host.read_dropped(path) {
                Ok(input) => self.dropped.push(input),
                Err(e) => {
                    self.host.log(&e.to_string());
                }
            },
            WindowEvent::ModifiersChanged(m) => view.modifiers = m.state(),
            WindowEvent::KeyboardInput { event: key, .. }
                if key.state == ElementState::Pressed
                    && !egui_consumed
                    && !view.egui.ctx.egui_wants_keyboard_input()
                    && !self.ui.edit.asking() =>
            {
                if let Some(action) = keys::lookup(&key.logical_key, view.modifiers)
                    && !self.act(action)
                {
                    event_loop.exit();
                    return;
                }
            }
            _ => {}
        }
        let Some(view) = self.view.as_mut() else {
            return;
        };
        let wants_pointer = view.egui.ctx.egui_wants_pointer_input();
        if let Some(camera_move) = view.mouse.on_event(&event, wants_pointer) {
            let [x, y, w, h] = view.viewport;
            let camera_move = match camera_move {
                input::CameraMove::Zoom { notches, cursor } => input::CameraMove::Zoom {
                    notches,
                    cursor: (cursor.0 - x, cursor.1 - y),
                },
                other => other,
            };
            input::apply(&mut view.camera, camera_move, (w as u32, h as u32));
        }
        // Anything may have changed the picture or the overlay.
        view.window.request_redraw();
    }
}

/// Tells `host` which files make `state`'s tracks now, and the load warnings.
fn announce_tracks(host: &mut impl Host, state: &ViewerState) {
    let sets = state.tracks().iter().map(|e| e.sources.clone()).collect();
    host.watch(sets);
    for w in state.warnings() {
        host.log(&format!("warning: {w}"));
    }
}

/// Keeps a screenshot read back, or says why there is none.
fn save_picture(host: &mut impl Host, taken: Picture) {
    if let Err(e) = taken
        .picture
        .and_then(|p| host.save_picture(&p, taken.first.as_deref()))
    {
        host.log(&format!("screenshot failed: {e}"));
    }
}

/// The window's title: the tracks' files (after `* ` while an edited
/// motion is unsaved), or what to do without any.
fn title(state: &ViewerState) -> String {
    let names: Vec<String> = state.tracks().iter().map(|e| e.name()).collect();
    let unsaved = if state.has_unsaved_edits() { "* " } else { "" };
    match names.is_empty() {
        true => "viewer — drop motion files here".into(),
        false => format!("{unsaved}viewer — {}", names.join(", ")),
    }
}
