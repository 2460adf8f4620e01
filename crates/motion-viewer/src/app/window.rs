//! The window application: keys, mouse, dropped files and the host's events
//! in, each handed to the part it concerns; one frame drawn per redraw
//! ([`frame`]). Platform-neutral: everything from outside goes through
//! the [`Host`].
//!
//! The parts, each owning its state: the simulated dog
//! ([`Simulator`]), screenshots and the glTF export ([`Saving`]), editing
//! the AIBO motion ([`Editing`]) and the status lines ([`Reporter`]); the
//! GPU side is the [`View`], the overlay's own state the [`UiState`].

mod act;
mod frame;

use super::Options;
use super::editing::Editing;
use super::frame_time::SAMPLE_EVERY;
use super::host::{GpuOpened, Host, HostEvent};
use super::keys;
use super::report::Reporter;
use super::saving::{self, Saving};
use super::simulate::Simulator;
use super::ui::UiState;
use super::view::View;
use crate::Error;
use crate::open::Input;
use crate::session::viewer::{Reload, ViewerState};
use std::sync::Arc;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::ActiveEventLoop;
use winit::window::{Window, WindowId};

/// The window application over a [`Host`].
pub struct App<H: Host> {
    host: H,
    state: ViewerState,
    ui: UiState,
    options: Options,
    /// The GPU side, once the window's GPU is open. (Out of `self` while a
    /// frame is drawn: see [`App::redraw`].)
    view: Option<View>,
    /// The window whose GPU is being opened (asynchronously in a browser).
    opening: Option<Arc<Window>>,
    /// Files dropped since the last batch was opened (a multi-file drop
    /// arrives as one event per file; an `.obj` + `.bin` pair must be opened together).
    dropped: Vec<Input>,
    /// Frame the camera on the next frame (tracks opened, layout switched, focus moved).
    reframe: bool,
    /// Close the window once this frame is drawn (a question answered).
    exit: bool,
    /// The first fatal error; the event loop exits and the caller reports it.
    error: Option<Error>,
    /// The simulated dog of each AIBO track (X).
    sim: Simulator,
    /// Screenshots asked for.
    saving: Saving,
    /// Editing the AIBO motion.
    editing: Editing,
    /// The status lines last printed.
    reporter: Reporter,
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
    ) -> crate::Result<App<H>> {
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
            reframe: true,
            exit: false,
            error: None,
            sim: Simulator::default(),
            saving: Saving::default(),
            editing: Editing::default(),
            reporter: Reporter::default(),
        };
        announce_tracks(&mut app.host, &app.state);
        Ok(app)
    }

    /// The fatal error that ended the event loop, if any.
    pub fn into_error(self) -> Option<Error> {
        self.error
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, error: Error) {
        self.error.get_or_insert(error);
        event_loop.exit();
    }

    fn open(&mut self, inputs: Vec<Input>) {
        if inputs.is_empty() {
            return;
        }
        let materials = self.host.materials();
        if self.state.open(&inputs, materials).is_ok() {
            announce_tracks(&mut self.host, &self.state);
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
                announce_tracks(&mut self.host, &self.state);
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
            HostEvent::Picture(picture) => saving::keep_picture(&mut self.host, *picture),
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
            WindowEvent::CloseRequested => {
                if self.editing.may_close(&self.state) {
                    event_loop.exit();
                } else {
                    view.window.request_redraw();
                }
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
                    && !self.editing.asking() =>
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
        view.follow_mouse(&event);
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
