//! What the overlay shows of the simulated dog (X; feature `physics`): a
//! side panel section with the toggle and each AIBO track's verdict, the
//! fall and the joints that could not follow as bands on the timeline and
//! shading on the curves, and each joint's reached angle beside its
//! commanded one on the curves. The window fills a [`SimView`] from
//! [`crate::session::sim`] whenever a simulation changes; without the
//! feature it stays empty and the section says so.

use crate::curves::Series;
use crate::session::viewer::ViewerState;
use egui::{Color32, RichText};
use std::sync::Arc;

/// A stretch of one track's timeline the simulation marks.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// The track, as an index into the tracks.
    pub track: usize,
    /// Start, seconds.
    pub t0: f64,
    /// End, seconds (`t0` for a fall).
    pub t1: f64,
    /// A fall (red) rather than a joint behind its command (orange).
    pub fall: bool,
    /// What it says, for the pointer.
    pub text: String,
}

/// The simulations as the overlay shows them.
#[derive(Debug, Clone, Default)]
pub struct SimView {
    /// The viewer was built with the simulator.
    pub available: bool,
    /// `off`, `beside` or `ghost`.
    pub mode: &'static str,
    /// Per AIBO track: its verdict at a glance.
    pub verdicts: Vec<(usize, String)>,
    /// The marks, every track's.
    pub bands: Vec<Band>,
    /// Per track and joint channel: the reached angle over time.
    pub reached: Vec<(usize, String, Arc<Series>)>,
    /// Bumped whenever any of the above changes.
    pub version: u64,
    /// The panel's toggle was pressed this frame.
    pub toggled: bool,
}

impl SimView {
    /// The reached angle of `track`'s channel `name`, if simulated.
    pub fn reached(&self, track: usize, name: &str) -> Option<Arc<Series>> {
        self.reached
            .iter()
            .find(|(t, n, _)| *t == track && n == name)
            .map(|(_, _, s)| Arc::clone(s))
    }
}

/// The side panel's section.
pub fn section(ui: &mut egui::Ui, state: &ViewerState, sim: &mut SimView) {
    if !sim.available {
        ui.label(RichText::new("This build has no simulator (feature `physics`).").small());
        return;
    }
    let mode = if sim.mode.is_empty() { "off" } else { sim.mode };
    if ui
        .button(format!("simulated dog: {mode}"))
        .on_hover_text("off / beside / ghost (X)")
        .clicked()
    {
        sim.toggled = true;
    }
    if mode == "off" {
        ui.label(RichText::new("Plays each AIBO motion on a physical dog: will it fall?").small());
        return;
    }
    for (track, text) in &sim.verdicts {
        let name = state
            .tracks()
            .get(*track)
            .map(|e| e.name())
            .unwrap_or_default();
        let colour = if text.contains("falls") || text.starts_with("cannot") {
            Color32::from_rgb(255, 110, 100)
        } else if text.contains("could not follow") {
            Color32::from_rgb(240, 160, 60)
        } else {
            ui.visuals().text_color()
        };
        ui.label(RichText::new(name).strong());
        ui.label(RichText::new(text).color(colour));
    }
}
