//! The side panel's sections: the tracks, what is under the cursor, AIBO
//! joint values, the frame time, and load messages.

use super::super::frame_time::FrameTimes;
use crate::scene::Layout;
use crate::session::mtn::joint_values;
use crate::session::pick::Hover;
use crate::session::viewer::ViewerState;
use egui::{Color32, RichText};

const ERROR: Color32 = Color32::from_rgb(255, 110, 100);
/// Height of the joints section before it scrolls, points.
const JOINTS_HEIGHT: f32 = 240.0;

/// One row per track: visibility, solo, focus, name; then its format,
/// duration and (under the fit layout) scale factor. Returns true when a
/// focus button was pressed (the camera should frame the track).
pub fn tracks(ui: &mut egui::Ui, state: &mut ViewerState) -> bool {
    if state.tracks().is_empty() {
        ui.label("No tracks yet: drop files on the window.");
        return false;
    }
    let mut frame = false;
    let fit = state.layout() == Layout::Fit;
    for i in 0..state.tracks().len() {
        let entry = &state.tracks()[i];
        let (name, format) = (entry.name(), entry.format());
        let duration = entry.track.duration_s();
        let mut visible = entry.visible;
        let error = entry.error.clone();
        let scale = state.plan().placements.get(i).map_or(1.0, |p| p.scale);
        let focused = state.focus() == Some(i);
        let soloed = state.solo() == Some(i);
        ui.horizontal(|ui| {
            if ui
                .checkbox(&mut visible, "")
                .on_hover_text("show / hide (V on the focused track)")
                .changed()
            {
                state.toggle_visible(i);
            }
            if ui
                .selectable_label(soloed, "S")
                .on_hover_text("solo: show this track alone (S)")
                .clicked()
            {
                state.toggle_solo(i);
            }
            if ui
                .selectable_label(focused, "Focus")
                .on_hover_text("frame the camera on this track; keyframe jumps follow it ([ ])")
                .clicked()
            {
                state.set_focus(if focused { None } else { Some(i) });
                frame = true;
            }
            let text = RichText::new(name);
            ui.label(if focused { text.strong() } else { text });
        });
        let mut details = format!("{format} · {duration:.3} s");
        if fit {
            details += &format!(" · scale ×{scale:.2}");
        }
        ui.label(RichText::new(details).small());
        if let Some(e) = error {
            ui.label(
                RichText::new(format!("reload failed, showing the last good version: {e}"))
                    .small()
                    .color(ERROR),
            );
        }
        ui.add_space(2.0);
    }
    frame
}

/// The part under the cursor and its values.
pub fn hover(ui: &mut egui::Ui, state: &ViewerState, hover: Option<&Hover>) {
    let Some(h) = hover else {
        ui.label(RichText::new("Point at a joint or a mesh group.").small());
        return;
    };
    let track = state
        .tracks()
        .get(h.track)
        .map(|e| e.name())
        .unwrap_or_default();
    ui.label(RichText::new(format!("{track}: {}", h.part)).strong());
    for line in &h.values {
        ui.monospace(line);
    }
}

/// Each shown AIBO track's body attitude and joint angles at the current
/// time, in degrees.
pub fn joints(ui: &mut egui::Ui, state: &ViewerState) {
    let time_s = state.timeline.time_s();
    egui::ScrollArea::vertical()
        .id_salt("joints")
        .max_height(JOINTS_HEIGHT)
        .show(ui, |ui| {
            for (i, entry) in state.tracks().iter().enumerate() {
                let Some(values) = joint_values(&entry.track, time_s).filter(|_| state.is_shown(i))
                else {
                    continue;
                };
                ui.label(RichText::new(entry.name()).strong());
                egui::Grid::new(("joints", i))
                    .num_columns(2)
                    .show(ui, |ui| {
                        for (label, deg) in values {
                            ui.label(RichText::new(label).small());
                            ui.monospace(format!("{deg:8.2}°"));
                            ui.end_row();
                        }
                    });
            }
        });
}

/// Timing: the frame time, its split by phase, the adapter.
pub fn frame(
    ui: &mut egui::Ui,
    state: &ViewerState,
    adapter: &str,
    times: &FrameTimes,
    samples: u32,
) {
    egui::Grid::new("frame info").num_columns(2).show(ui, |ui| {
        let t = &state.timeline;
        ui.label("frames");
        ui.label(format!(
            "{} at {:.2} fps",
            t.frame_count(),
            1.0 / t.frame_period_s()
        ));
        ui.end_row();
        ui.label("frame time");
        ui.label(format!("{:.1} ms", times.frame_ms));
        ui.end_row();
        if times.has_split() {
            for (phase, ms) in times.split.phases() {
                ui.label(RichText::new(format!("  {phase}")).small());
                ui.label(RichText::new(format!("{ms:.1} ms")).small());
                ui.end_row();
            }
        }
        ui.label("adapter");
        ui.add(egui::Label::new(adapter).truncate())
            .on_hover_text(adapter);
        ui.end_row();
        ui.label("samples");
        ui.label(format!("{samples} per pixel"));
        ui.end_row();
    });
}

/// The last load error and warnings.
pub fn messages(ui: &mut egui::Ui, state: &mut ViewerState) {
    if let Some(e) = state.error().map(str::to_owned) {
        ui.label(RichText::new(e).color(ERROR));
        if ui.small_button("dismiss").clicked() {
            state.clear_error();
        }
    }
    for w in state.warnings() {
        ui.label(RichText::new(w).small());
    }
}
