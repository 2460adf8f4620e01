//! The timeline along the bottom: the play controls, then the bar — a scrub
//! lane with the play head, the loop range and the markers, and under it one
//! lane per track with that track's keyframe ticks.
//!
//! Click or drag on the bar to seek; Shift+drag sets the loop range;
//! double-click clears it.

use super::super::state::ViewerState;
use egui::{Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2};

/// Height of the scrub lane, points.
const SCRUB_HEIGHT: f32 = 20.0;
/// Height of each track's lane, points.
const LANE_HEIGHT: f32 = 11.0;
/// Ticks closer than this (points) to the last one drawn are skipped, so a
/// lane of thousands of keyframes stays cheap and readable.
const MIN_TICK_GAP: f32 = 2.0;

const KEY_TICK: Color32 = Color32::from_rgb(230, 180, 60);
const MARKER: Color32 = Color32::from_rgb(240, 90, 200);
const LOOP_FILL: Color32 = Color32::from_rgba_premultiplied(60, 120, 60, 90);

/// Play button, time, frame, speed, loop mode and layout.
pub fn controls(ui: &mut egui::Ui, state: &mut ViewerState) {
    ui.horizontal(|ui| {
        // Words rather than symbols: egui's bundled fonts lack ▶.
        let label = if state.timeline.is_playing() {
            "Pause"
        } else {
            "Play"
        };
        if ui
            .button(label)
            .on_hover_text("play / pause (Space)")
            .clicked()
        {
            state.toggle_play();
        }
        let t = &mut state.timeline;
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
        if let Some((a, b)) = state.loop_range() {
            ui.monospace(format!("range {a:.3}–{b:.3} s"));
            if ui.small_button("clear").on_hover_text("Esc").clicked() {
                state.clear_loop_range();
            }
        }
        ui.separator();
        let layout = state.layout();
        if ui
            .button(format!("layout: {layout}"))
            .on_hover_text("fit / true scale (T)")
            .clicked()
        {
            state.set_layout(layout.toggled());
        }
        ui.separator();
        ui.label("H: keys");
    });
}

/// The bar: the scrub lane, then a lane per track.
pub fn bar(ui: &mut egui::Ui, state: &mut ViewerState, drag_from: &mut Option<f64>) {
    let width = ui.available_width();
    let lanes = state.tracks().len();
    let height = SCRUB_HEIGHT + LANE_HEIGHT * lanes as f32;
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(width, height), Sense::click_and_drag());
    let duration = state.timeline.duration_s();
    let time_at = |x: f32| f64::from(((x - rect.left()) / rect.width()).clamp(0.0, 1.0)) * duration;
    let x_of = |t: f64| {
        let u = if duration > 0.0 { t / duration } else { 0.0 };
        rect.left() + rect.width() * u.clamp(0.0, 1.0) as f32
    };

    let shift = ui.input(|i| i.modifiers.shift);
    if response.double_clicked() {
        state.clear_loop_range();
    } else if let Some(pos) = response.interact_pointer_pos() {
        if response.drag_started() && shift {
            *drag_from = Some(time_at(pos.x));
        }
        match *drag_from {
            Some(from) => state.set_loop_range(from, time_at(pos.x)),
            None => state.timeline.seek(time_at(pos.x)),
        }
    }
    if response.drag_stopped() || !response.dragged() && !response.drag_started() {
        *drag_from = None;
    }

    let painter = ui.painter_at(rect);
    let visuals = ui.visuals();
    painter.rect_filled(rect, 3.0, visuals.extreme_bg_color);
    let scrub = Rect::from_min_size(rect.min, Vec2::new(rect.width(), SCRUB_HEIGHT));
    if let Some((a, b)) = state.loop_range() {
        let band = Rect::from_x_y_ranges(x_of(a)..=x_of(b), rect.y_range());
        painter.rect_filled(band, 0.0, LOOP_FILL);
    }
    let x = x_of(state.timeline.time_s());
    let played = Rect::from_min_max(scrub.min, Pos2::new(x, scrub.max.y));
    painter.rect_filled(played, 3.0, visuals.selection.bg_fill.gamma_multiply(0.5));

    let font = FontId::proportional(10.0);
    for (i, entry) in state.tracks().iter().enumerate() {
        let top = scrub.bottom() + LANE_HEIGHT * i as f32;
        let lane = Rect::from_min_size(
            Pos2::new(rect.left(), top),
            Vec2::new(rect.width(), LANE_HEIGHT),
        );
        let shown = state.is_shown(i);
        let focused = state.focus() == Some(i);
        if focused {
            painter.rect_filled(lane, 0.0, visuals.selection.bg_fill.gamma_multiply(0.25));
        }
        let tick = Stroke::new(
            1.0,
            if shown {
                KEY_TICK
            } else {
                KEY_TICK.gamma_multiply(0.3)
            },
        );
        let mut last = f32::NEG_INFINITY;
        for &t in &entry.keyframes {
            let x = x_of(t);
            if x - last >= MIN_TICK_GAP {
                painter.vline(x, lane.top() + 2.0..=lane.bottom() - 2.0, tick);
                last = x;
            }
        }
        painter.text(
            lane.left_center() + Vec2::new(3.0, 0.0),
            egui::Align2::LEFT_CENTER,
            entry.name(),
            font.clone(),
            visuals.weak_text_color(),
        );
        for (t, name) in &entry.markers {
            let x = x_of(*t);
            painter.vline(x, scrub.y_range(), Stroke::new(1.5, MARKER));
            painter.text(
                Pos2::new(x + 2.0, scrub.top() + 1.0),
                egui::Align2::LEFT_TOP,
                name,
                font.clone(),
                MARKER,
            );
        }
    }
    painter.vline(
        x,
        rect.y_range(),
        Stroke::new(2.0, visuals.strong_text_color()),
    );
}
