//! The egui overlay: the timeline along the bottom (controls, a lane per
//! track with its keyframes and `check`'s findings, markers, the loop
//! range), the side panel (tracks, archive entry lists, what is under the
//! cursor, AIBO joint values, editing the AIBO motion, the simulated dog
//! ([`sim`]), frame time), a hint while nothing is open, and
//! the key help.
//!
//! The curves panel (C) stands above the timeline ([`curves`]).
//!
//! The overlay edits the [`ViewerState`] directly (visibility, solo, loop
//! range, seeking) and hands back what only the window can do (frame the
//! camera) as [`Command`]s, and what was done to keyframes on the curves as
//! [`CurveAction`]s for the motion editor.

mod actions;
mod archive;
pub mod curves;
pub mod edit;
mod help;
mod panel;
pub mod sim;
mod timeline;

pub use actions::CurveAction;
pub use curves::CurvesPanel;

use super::frame_time::FrameTimes;
use crate::scene::Track;
use crate::session::pick::Hover;
use crate::session::viewer::ViewerState;
use egui::{Align2, RichText};

/// Width of the side panel, points.
const PANEL_WIDTH: f32 = 300.0;

/// What the overlay keeps between frames.
#[derive(Debug, Clone, Default)]
pub struct UiState {
    /// Show the key help.
    pub show_help: bool,
    /// Hide the side panel.
    pub hide_panel: bool,
    /// What is under the cursor in the 3D view.
    pub hover: Option<Hover>,
    /// Where a shift-drag on the timeline started, seconds.
    drag_from: Option<f64>,
    /// The curves panel.
    pub curves: CurvesPanel,
}

/// What the overlay asks of the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Save the edited motion (over the original only with `overwrite`).
    SaveMotion {
        /// The user confirmed writing over the original.
        overwrite: bool,
    },
    /// Close the window, after saving the edited motion if `save`.
    Quit {
        /// Save first; stay open if that fails.
        save: bool,
    },
    /// Frame the camera on the focused track (or everything without a focus).
    Frame,
    /// The tracks' files changed (an archive entry picked): tell the host,
    /// retitle the window and frame everything.
    TracksChanged,
}

/// One frame of the overlay.
pub struct Overlay<'a> {
    /// What is shown; the overlay edits it.
    pub state: &'a mut ViewerState,
    /// The overlay's own state.
    pub ui: &'a mut UiState,
    /// The edit section's state and questions (the window's editing part).
    pub edit: &'a mut edit::EditUi,
    /// The simulated dog's verdicts and marks ([`sim`]; the window's
    /// simulation part).
    pub sim: &'a mut sim::SimView,
    /// The adapter drawing the window.
    pub adapter: &'a str,
    /// Frame time and its split.
    pub times: &'a FrameTimes,
    /// Samples per pixel of the 3D view.
    pub samples: u32,
    /// Requests for the window, filled while showing.
    pub commands: Vec<Command>,
    /// The part of the window the panels leave to the 3D view, points;
    /// filled while showing.
    pub free_rect: egui::Rect,
    /// What was done to keyframes on the curves this frame, in order, for
    /// the motion editor to apply; filled while showing.
    pub curve_actions: Vec<CurveAction>,
}

impl Overlay<'_> {
    /// Lays the overlay out into the root `ui`.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        egui::Panel::bottom("timeline").show(ui, |ui| {
            ui.add_space(4.0);
            timeline::controls(ui, self.state);
            timeline::bar(ui, self.state, &mut self.ui.drag_from, &self.sim.bands);
            ui.add_space(4.0);
        });
        if self.ui.curves.open {
            let actions = self.ui.curves.show(ui, self.state, self.sim);
            // The curves' keyframe clicks and drags go to the motion editor
            // (a whole drag is one edit to undo); kept for the window too.
            for action in &actions {
                edit::apply_curve_action(self.state, action);
            }
            self.curve_actions.extend(actions);
        }
        if !self.ui.hide_panel {
            egui::Panel::left("side panel")
                .resizable(true)
                .default_size(PANEL_WIDTH)
                // A long adapter name or message must not push the view
                // aside; what is wider is cut (hover shows it whole).
                .max_size(PANEL_WIDTH * 1.5)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| self.side_panel(ui));
                });
        }
        self.free_rect = ui.available_rect_before_wrap();
        if self.state.tracks().is_empty() {
            empty_hint(ui.ctx(), self.free_rect);
        }
        if let Some(hover) = &self.ui.hover {
            hover_tip(ui.ctx(), self.state, hover);
        }
        if self.ui.show_help {
            help::window(ui.ctx());
        }
        if let Some(command) = edit::dialogs(ui.ctx(), self.state, self.edit) {
            self.commands.push(command);
        }
    }

    /// The side panel: one collapsible section after another. A new section
    /// is a function of `(ui, …)` called here.
    fn side_panel(&mut self, ui: &mut egui::Ui) {
        section(ui, "Tracks", true, |ui| {
            if panel::tracks(ui, self.state) {
                self.commands.push(Command::Frame);
            }
        });
        for i in 0..self.state.archives().len() {
            let title = format!("Archive {}", self.state.archives()[i].file_name());
            let mut picked = None;
            section(ui, &title, true, |ui| {
                if let Some(list) = self.state.archive_mut(i) {
                    picked = archive::entries(ui, list, i);
                }
            });
            // A failure shows under Messages.
            if let Some(entry) = picked
                && self.state.play_entry(i, entry).is_ok()
            {
                self.commands.push(Command::TracksChanged);
            }
        }
        section(ui, "Under the cursor", true, |ui| {
            panel::hover(ui, self.state, self.ui.hover.as_ref());
        });
        let aibo = |e: &crate::session::viewer::TrackEntry| matches!(e.track, Track::Mtn { .. });
        if self.state.tracks().iter().any(aibo) {
            section(ui, "Joints", true, |ui| panel::joints(ui, self.state));
            let mut save = false;
            section(ui, "Edit", true, |ui| {
                save = edit::section(ui, self.state, self.edit);
            });
            if save {
                self.commands.push(Command::SaveMotion { overwrite: false });
            }
            section(ui, "Simulation", true, |ui| {
                sim::section(ui, self.state, self.sim);
            });
        }
        section(ui, "Frame", true, |ui| {
            panel::frame(ui, self.state, self.adapter, self.times, self.samples);
        });
        if self.state.error().is_some() || !self.state.warnings().is_empty() {
            section(ui, "Messages", true, |ui| panel::messages(ui, self.state));
        }
    }
}

/// A collapsible section of the side panel.
fn section(ui: &mut egui::Ui, title: &str, open: bool, body: impl FnOnce(&mut egui::Ui)) {
    egui::CollapsingHeader::new(RichText::new(title).strong())
        .default_open(open)
        .show(ui, body);
}

/// The part under the cursor, beside the cursor.
fn hover_tip(ctx: &egui::Context, state: &ViewerState, hover: &Hover) {
    let Some(pointer) = ctx.pointer_hover_pos() else {
        return;
    };
    egui::Area::new(egui::Id::unique("hover tip"))
        .fixed_pos(pointer + egui::vec2(16.0, 16.0))
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                let track = state.tracks().get(hover.track).map(|e| e.name());
                ui.label(
                    RichText::new(format!("{}: {}", track.unwrap_or_default(), hover.part))
                        .strong(),
                );
                for line in &hover.values {
                    ui.monospace(line);
                }
            });
        });
}

/// What to do while nothing is open.
fn empty_hint(ctx: &egui::Context, free: egui::Rect) {
    egui::Area::new(egui::Id::unique("empty hint"))
        .pivot(Align2::CENTER_CENTER)
        .fixed_pos(free.center())
        .show(ctx, |ui| {
            ui.vertical_centered(|ui| {
                ui.heading("Drop motion files here");
                ui.label(
                    "AIBO .mtn, MRTK input animations, or a MEMG .obj scene with its motion (.bin)",
                );
                ui.label("or start with `viewer FILE...`  ·  H lists the keys");
            });
        });
}
