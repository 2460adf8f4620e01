//! One frame of the window, in its phases:
//!
//! 1. step the simulations for a slice of the frame ([`Simulator::step`]);
//! 2. advance the clock by the real time elapsed ([`advance_clock`]);
//! 3. bring the stage up to date with the tracks, and pick what is under
//!    the cursor ([`App::sync_stage`]);
//! 4. run the overlay ([`App::build_ui`]);
//! 5. carry out what it asked: saves, quitting, the simulation's toggle,
//!    framing ([`App::follow`]);
//! 6. pose, draw and present ([`App::draw`]);
//! 7. take the screenshot asked for ([`Saving::capture`]);
//! 8. report the status and ask for the next frame if anything moves.
//!
//! [`Simulator::step`]: super::super::simulate::Simulator::step
//! [`Saving::capture`]: super::super::saving::Saving::capture

use super::{App, announce_tracks, title};
use crate::app::framework::EguiFrame;
use crate::app::host::Host;
use crate::app::ui::{Command, Overlay};
use crate::app::view::View;
use crate::gpu::backend_name;
use crate::session::status::Status;
use crate::session::viewer::ViewerState;
use web_time::Instant;

/// The overlay's pass of one frame.
struct UiFrame {
    /// What to paint.
    egui: EguiFrame,
    /// How long egui took on the CPU, milliseconds.
    cpu_ms: f64,
    /// What the overlay asked of the window.
    commands: Vec<Command>,
}

impl<H: Host> App<H> {
    /// Draws one frame (see the phases above); nothing before the window
    /// has its view.
    pub(super) fn redraw(&mut self) {
        // The view is out of `self` while the frame is drawn, so that each
        // phase can have it beside the parts.
        let Some(mut view) = self.view.take() else {
            return;
        };
        self.frame(&mut view);
        self.view = Some(view);
    }

    fn frame(&mut self, view: &mut View) {
        let sim_busy = self.sim.step(&self.state);
        let started = Instant::now();
        let playing = advance_clock(view, &mut self.state, started);
        if !self.sync_stage(view) {
            return;
        }
        let overlay = self.build_ui(view);
        let again = self.follow(view, &overlay.commands);
        let time_s = self.draw(view, &overlay, playing);
        let egui = &overlay.egui;
        self.saving
            .capture(&mut self.host, view, &self.state, time_s, egui);
        if !playing {
            // Idle redraws come from events; their cost is the frame time.
            view.times.frame_ms = started.elapsed().as_secs_f64() * 1e3;
        }
        self.report(view);
        // An empty timeline "plays" without moving: no need to redraw it.
        let moving = self.state.timeline.is_playing() && !self.state.tracks().is_empty();
        if moving || egui.repaint_now || sim_busy || again {
            view.window.request_redraw();
        }
    }

    /// Rebuilds the stage if the tracks changed and picks what is under
    /// the cursor; false (said to the host) when the stage cannot be built.
    fn sync_stage(&mut self, view: &mut View) -> bool {
        match view.sync_stage(&self.state) {
            Ok(warnings) => {
                for w in warnings.into_iter().flatten() {
                    self.host.log(&format!("warning: {w}"));
                }
            }
            Err(e) => {
                self.host.log(&e.to_string());
                return false;
            }
        }
        self.ui.hover = view.hover(&self.state, self.state.timeline.time_s());
        true
    }

    /// Runs the overlay over the session (it may seek, show and hide
    /// tracks, edit); the 3D view gets the part of the window it leaves.
    fn build_ui(&mut self, view: &mut View) -> UiFrame {
        let adapter = view.gpu.adapter_name();
        let mut overlay = Overlay {
            state: &mut self.state,
            ui: &mut self.ui,
            edit: &mut self.editing.ui,
            sim: &mut self.sim.view,
            adapter: &adapter,
            times: &view.times,
            samples: view.samples(),
            commands: Vec::new(),
            free_rect: egui::Rect::NOTHING,
            curve_actions: Vec::new(),
        };
        let started = Instant::now();
        let egui = view
            .egui
            .run(&view.window, &view.gpu, |ui| overlay.show(ui));
        let cpu_ms = started.elapsed().as_secs_f64() * 1e3;
        let (commands, free) = (overlay.commands, overlay.free_rect);
        view.set_free_rect(free);
        UiFrame {
            egui,
            cpu_ms,
            commands,
        }
    }

    /// Carries out what the overlay asked, in the order it asked; returns
    /// true when another frame must show the outcome (a save's message,
    /// the simulation toggled).
    fn follow(&mut self, view: &mut View, commands: &[Command]) -> bool {
        let mut again = false;
        for command in commands {
            match *command {
                Command::SaveMotion { overwrite } => {
                    self.editing
                        .save(&mut self.host, &mut self.state, overwrite);
                    again = true;
                }
                Command::Quit { save } => {
                    // Stay open when the save fails (its message shows).
                    self.exit = !save || self.editing.save(&mut self.host, &mut self.state, false);
                    again |= save;
                }
                Command::Frame | Command::TracksChanged => {}
            }
        }
        again |= self.sim.follow_panel(&mut self.host, &self.state);
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
        again
    }

    /// Poses the stage and the simulated dogs at the clock's time, draws
    /// the frame with the overlay over it and presents it; returns the time
    /// drawn. Every few playing frames the GPU's phases are timed too.
    fn draw(&mut self, view: &mut View, overlay: &UiFrame, playing: bool) -> f64 {
        // The overlay may have moved the time (scrubbing) or the tracks.
        let time_s = self.state.timeline.time_s();
        let _ = view.sync_stage(&self.state);
        view.extra = self.sim.primitives(&self.state, time_s);
        let measure = view.times.next_frame_measured() && playing;
        if let Some(split) = view.draw(time_s, &overlay.egui, overlay.cpu_ms, measure) {
            view.times.add_split(split);
        }
        if let Some(problem) = view.surface.take_problem() {
            self.host.log(&problem);
        }
        time_s
    }

    /// Status for scripts: the [`Status`] to the host every frame, the
    /// lines that changed, and the title's unsaved mark.
    fn report(&mut self, view: &View) {
        let backend = backend_name(view.gpu.adapter.get_info().backend);
        let mut status = Status::of(&self.state, backend, view.times.frame_ms);
        status.curves = self.ui.curves.status(&self.state);
        if let Some(edit) = &mut status.edit {
            edit.typing = self.editing.typing();
        }
        self.sim.report(&mut self.host, &mut status);
        self.reporter.report(&mut self.host, status);
        if self.editing.title_stale(&self.state) {
            view.window.set_title(&title(&self.state));
        }
    }
}

/// Advances `state`'s clock by the real time since the last frame (`now`);
/// returns whether it plays.
fn advance_clock(view: &mut View, state: &mut ViewerState, now: Instant) -> bool {
    let dt = now.duration_since(view.last_redraw).as_secs_f64();
    view.last_redraw = now;
    // Only an interval between two playing frames is playback time: the
    // first frame after a pause must not jump by the time spent paused.
    let playing = state.timeline.is_playing();
    if playing && view.played_last_frame {
        state.advance(dt);
        view.times.add_interval(dt);
    }
    view.played_last_frame = playing;
    playing
}
