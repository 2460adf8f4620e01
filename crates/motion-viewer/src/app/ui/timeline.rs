//! The timeline along the bottom: the play controls, then the bar — a scrub
//! lane with the play head, the loop range and the markers, and under it one
//! lane per track with that track's keyframe ticks and, for an AIBO motion,
//! `check`'s findings (red errors, orange warnings; hover for the message)
//! and the simulated dog's (a red line where it falls, orange stretches
//! where a joint could not follow).
//!
//! Click or drag on the bar to seek; Shift+drag sets the loop range;
//! double-click clears it. A click on a keyframe's tick selects that
//! keyframe for editing and puts the playhead on it.

use crate::session::viewer::ViewerState;
use egui::{Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2};

/// Height of the scrub lane, points.
const SCRUB_HEIGHT: f32 = 20.0;
/// Height of each track's lane, points.
const LANE_HEIGHT: f32 = 11.0;
/// Ticks closer than this (points) to the last one drawn are skipped, so a
/// lane of thousands of keyframes stays cheap and readable.
const MIN_TICK_GAP: f32 = 2.0;

/// A click this close to a keyframe's tick (points) selects the keyframe.
const PICK_DISTANCE: f32 = 4.0;

/// The lane names' column is at most this fraction of the bar.
const MAX_GUTTER_FRACTION: f32 = 0.25;
/// Space either side of a lane's name, points.
const LABEL_PAD: f32 = 4.0;

const KEY_TICK: Color32 = Color32::from_rgb(230, 180, 60);
const FINDING_ERROR: Color32 = Color32::from_rgb(230, 60, 50);
const FINDING_WARNING: Color32 = Color32::from_rgb(240, 140, 30);
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

/// The bar: the scrub lane, then a lane per track. The lanes' names stand
/// in a column at the left, so no tick covers them; time runs over the rest.
/// `bands`: the simulation's marks ([`super::sim`]), drawn in their
/// track's lane like `check`'s findings.
pub fn bar(
    ui: &mut egui::Ui,
    state: &mut ViewerState,
    drag_from: &mut Option<f64>,
    bands: &[super::sim::Band],
) {
    let width = ui.available_width();
    let lanes = state.tracks().len();
    let height = SCRUB_HEIGHT + LANE_HEIGHT * lanes as f32;
    let (rect, _) = ui.allocate_exact_size(Vec2::new(width, height), Sense::hover());
    let font = FontId::proportional(10.0);
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals().clone();
    let names: Vec<_> = state
        .tracks()
        .iter()
        .map(|e| painter.layout_no_wrap(e.name(), font.clone(), visuals.weak_text_color()))
        .collect();
    let widest = names.iter().map(|g| g.size().x).fold(0.0, f32::max);
    let gutter = match lanes {
        0 => 0.0,
        _ => (widest + 2.0 * LABEL_PAD).min(rect.width() * MAX_GUTTER_FRACTION),
    };
    let times = Rect::from_min_max(Pos2::new(rect.left() + gutter, rect.top()), rect.max);
    let response = ui.interact(
        times,
        egui::Id::unique("timeline bar"),
        Sense::click_and_drag(),
    );
    let duration = state.timeline.duration_s();
    let time_at =
        |x: f32| f64::from(((x - times.left()) / times.width()).clamp(0.0, 1.0)) * duration;
    let x_of = |t: f64| {
        let u = if duration > 0.0 { t / duration } else { 0.0 };
        times.left() + times.width() * u.clamp(0.0, 1.0) as f32
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

    painter.rect_filled(rect, 3.0, visuals.extreme_bg_color);
    let scrub = Rect::from_min_size(times.min, Vec2::new(times.width(), SCRUB_HEIGHT));
    if let Some((a, b)) = state.loop_range() {
        let band = Rect::from_x_y_ranges(x_of(a)..=x_of(b), times.y_range());
        painter.rect_filled(band, 0.0, LOOP_FILL);
    }
    let x = x_of(state.timeline.time_s());
    let played = Rect::from_min_max(scrub.min, Pos2::new(x, scrub.max.y));
    painter.rect_filled(played, 3.0, visuals.selection.bg_fill.gamma_multiply(0.5));

    let mut hovered = Vec::new();
    // A click on a keyframe's tick selects that keyframe (for editing).
    let click = response
        .clicked()
        .then(|| response.interact_pointer_pos())
        .flatten();
    let mut picked = None;
    for (i, (entry, name)) in state.tracks().iter().zip(names).enumerate() {
        let top = scrub.bottom() + LANE_HEIGHT * i as f32;
        let lane = Rect::from_min_size(
            Pos2::new(times.left(), top),
            Vec2::new(times.width(), LANE_HEIGHT),
        );
        let shown = state.is_shown(i);
        if state.focus() == Some(i) {
            let row = Rect::from_x_y_ranges(rect.x_range(), lane.y_range());
            painter.rect_filled(row, 0.0, visuals.selection.bg_fill.gamma_multiply(0.25));
        }
        let fade = |c: Color32| if shown { c } else { c.gamma_multiply(0.3) };
        let tick = Stroke::new(1.0, fade(KEY_TICK));
        // Keyframes in the lane's upper part, check's findings under them.
        let split = lane.top() + lane.height() * 0.6;
        if let Some(p) = click.filter(|p| lane.y_range().contains(p.y)) {
            let nearest = entry.keyframes.iter().enumerate().min_by(|a, b| {
                (x_of(*a.1) - p.x)
                    .abs()
                    .total_cmp(&(x_of(*b.1) - p.x).abs())
            });
            if let Some((k, &t)) = nearest.filter(|(_, t)| (x_of(**t) - p.x).abs() <= PICK_DISTANCE)
            {
                picked = Some((i, k, t));
            }
        }
        let mut last = f32::NEG_INFINITY;
        for &t in &entry.keyframes {
            let x = x_of(t);
            if x - last >= MIN_TICK_GAP {
                painter.vline(x, lane.top() + 1.0..=split, tick);
                last = x;
            }
        }
        for f in &entry.findings {
            let colour = if f.error {
                FINDING_ERROR
            } else {
                FINDING_WARNING
            };
            let x = x_of(f.time_s);
            painter.vline(x, split..=lane.bottom(), Stroke::new(2.0, fade(colour)));
            if response
                .hover_pos()
                .is_some_and(|p| lane.y_range().contains(p.y) && (x - p.x).abs() <= 3.0)
            {
                hovered.push(f.text.as_str());
            }
        }
        for b in bands.iter().filter(|b| b.track == i) {
            let (x0, x1) = (x_of(b.t0), x_of(b.t1).max(x_of(b.t0) + 2.0));
            let colour = if b.fall {
                FINDING_ERROR
            } else {
                FINDING_WARNING
            };
            if b.fall {
                painter.vline(x0, lane.y_range(), Stroke::new(3.0, fade(colour)));
            } else {
                let band = Rect::from_x_y_ranges(x0..=x1, split..=lane.bottom());
                painter.rect_filled(band, 0.0, fade(colour).gamma_multiply(0.6));
            }
            if response
                .hover_pos()
                .is_some_and(|p| lane.y_range().contains(p.y) && p.x >= x0 - 3.0 && p.x <= x1 + 3.0)
            {
                hovered.push(b.text.as_str());
            }
        }
        let label = Rect::from_x_y_ranges(rect.left()..=times.left(), lane.y_range());
        let at = Pos2::new(
            label.left() + LABEL_PAD,
            label.center().y - name.size().y / 2.0,
        );
        ui.painter_at(label.shrink2(Vec2::new(1.0, 0.0))).galley(
            at,
            name,
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
        times.y_range(),
        Stroke::new(2.0, visuals.strong_text_color()),
    );
    if !hovered.is_empty() {
        response.on_hover_text(hovered.join("\n"));
    }
    if let Some((i, k, t)) = picked {
        state.select_key(i, Some(k));
        state.timeline.seek(t);
    }
}
