//! The key help: every binding from the one table, and the mouse.

use super::super::keys;
use egui::Align2;

/// The help window, anchored at the top right.
pub fn window(ctx: &egui::Context) {
    egui::Window::new("keys")
        .anchor(Align2::RIGHT_TOP, [-8.0, 8.0])
        .resizable(false)
        .collapsible(false)
        .show(ctx, |ui| {
            egui::Grid::new("help").num_columns(2).show(ui, |ui| {
                for (what, keys) in keys::help_rows() {
                    ui.monospace(keys);
                    ui.label(what);
                    ui.end_row();
                }
                for (button, what) in MOUSE {
                    ui.monospace(button);
                    ui.label(what);
                    ui.end_row();
                }
            });
        });
}

/// The mouse and drop gestures, as the help lists them.
pub(crate) const MOUSE: [(&str, &str); 7] = [
    ("left drag", "orbit"),
    ("right / middle drag", "pan"),
    ("wheel", "zoom toward the cursor"),
    ("click / drag on the bar", "seek"),
    ("Shift+drag on the bar", "set the loop range"),
    ("double-click on the bar", "clear the loop range"),
    ("drop files", "open them as tracks"),
];
