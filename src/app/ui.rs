//! The egui overlay: the timeline bar along the bottom, a small information
//! panel, and the key help.

use super::keys;
use crate::anim::timeline::Timeline;
use egui::{Align2, Color32, Pos2, Rect, Sense, Stroke, Vec2};

/// Height of the scrub bar in points.
const BAR_HEIGHT: f32 = 22.0;

/// What the information panel shows that does not change while playing.
#[derive(Debug, Clone, Default)]
pub struct Info {
    /// One line per track: `name (format)`.
    pub tracks: Vec<String>,
    /// The adapter drawing the window.
    pub adapter: String,
    /// Times in seconds to mark on the bar: `.mtn` keyframes, MRTK markers.
    pub marks: Vec<f64>,
    /// `check`'s findings on the `.mtn` tracks, marked under the ticks.
    pub findings: Vec<super::mtn::FindingMark>,
}

/// What the overlay shows and edits this frame.
pub struct Overlay<'a> {
    /// The clock the bar scrubs and the buttons drive.
    pub timeline: &'a mut Timeline,
    /// The static information.
    pub info: &'a Info,
    /// Smoothed frame time in milliseconds.
    pub frame_ms: f64,
    /// Show the key help.
    pub show_help: bool,
}

impl Overlay<'_> {
    /// Lays the overlay out into the root `ui`.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        egui::Panel::bottom("timeline").show(ui, |ui| {
            ui.add_space(4.0);
            self.controls(ui);
            self.scrub_bar(ui);
            ui.add_space(4.0);
        });
        self.info_panel(ui.ctx());
        if self.show_help {
            help_window(ui.ctx());
        }
    }

    fn controls(&mut self, ui: &mut egui::Ui) {
        let t = &mut *self.timeline;
        ui.horizontal(|ui| {
            // Words rather than symbols: egui's bundled fonts lack ▶.
            let label = if t.is_playing() { "Pause" } else { "Play" };
            if ui
                .button(label)
                .on_hover_text("play / pause (Space)")
                .clicked()
            {
                t.toggle();
            }
            ui.monospace(format!("{:8.3} s / {:.3} s", t.time_s(), t.duration_s()));
            ui.separator();
            ui.monospace(format!("frame {} / {}", t.frame(), t.frame_count()));
            ui.separator();
            ui.monospace(format!("speed {:+}×", t.speed()));
            ui.separator();
            if ui
                .button(format!("loop: {}", t.loop_mode()))
                .on_hover_text("cycle loop mode (L)")
                .clicked()
            {
                t.cycle_loop_mode();
            }
            ui.separator();
            ui.label("H: keys");
        });
    }

    /// The bar: a track, keyframe ticks, and the play head; click or drag to seek.
    fn scrub_bar(&mut self, ui: &mut egui::Ui) {
        let width = ui.available_width();
        let (rect, response) =
            ui.allocate_exact_size(Vec2::new(width, BAR_HEIGHT), Sense::click_and_drag());
        let duration = self.timeline.duration_s();
        if let Some(pos) = response.interact_pointer_pos()
            && duration > 0.0
        {
            let u = ((pos.x - rect.left()) / rect.width()).clamp(0.0, 1.0);
            self.timeline.seek(f64::from(u) * duration);
        }
        let painter = ui.painter_at(rect);
        let visuals = ui.visuals();
        painter.rect_filled(rect, 3.0, visuals.extreme_bg_color);
        let x_of = |t: f64| {
            let u = if duration > 0.0 { t / duration } else { 0.0 };
            rect.left() + rect.width() * u.clamp(0.0, 1.0) as f32
        };
        let tick = Stroke::new(1.0, Color32::from_rgb(230, 180, 60));
        for &mark in &self.info.marks {
            let x = x_of(mark);
            painter.vline(x, rect.top()..=rect.top() + rect.height() * 0.45, tick);
        }
        super::mtn::paint_findings(ui, &response, rect, duration, &self.info.findings);
        let x = x_of(self.timeline.time_s());
        let played = Rect::from_min_max(rect.min, Pos2::new(x, rect.max.y));
        painter.rect_filled(played, 3.0, visuals.selection.bg_fill.gamma_multiply(0.5));
        painter.vline(
            x,
            rect.y_range(),
            Stroke::new(2.0, visuals.strong_text_color()),
        );
    }

    fn info_panel(&self, ctx: &egui::Context) {
        let t = &*self.timeline;
        egui::Window::new("motion")
            .anchor(Align2::LEFT_TOP, [8.0, 8.0])
            .resizable(false)
            .collapsible(true)
            .show(ctx, |ui| {
                egui::Grid::new("info").num_columns(2).show(ui, |ui| {
                    for (i, track) in self.info.tracks.iter().enumerate() {
                        ui.label(if i == 0 { "files" } else { "" });
                        ui.label(track);
                        ui.end_row();
                    }
                    ui.label("frames");
                    ui.label(t.frame_count().to_string());
                    ui.end_row();
                    ui.label("fps");
                    ui.label(format!("{:.2}", 1.0 / t.frame_period_s()));
                    ui.end_row();
                    ui.label("adapter");
                    ui.label(&self.info.adapter);
                    ui.end_row();
                    ui.label("frame time");
                    ui.label(format!("{:.2} ms", self.frame_ms));
                    ui.end_row();
                });
            });
    }
}

/// Every binding from the one table, and the mouse.
fn help_window(ctx: &egui::Context) {
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
                for (button, what) in [
                    ("left drag", "orbit"),
                    ("right / middle drag", "pan"),
                    ("wheel", "zoom toward the cursor"),
                ] {
                    ui.monospace(button);
                    ui.label(what);
                    ui.end_row();
                }
            });
        });
}
