//! The plot of the curves panel, on egui_plot: the time axis (which zooms,
//! pans and follows the loop range), the curves with their keyframe
//! markers, the joint limits as bands (a strip beyond each limit), `check`'s findings shaded, the
//! playhead, and the value under the cursor. A click or drag seeks; a drag
//! on a keyframe marker becomes [`CurveAction`]s for the editor.
//!
//! Mouse: left click or drag seeks (on a marker: selects or drags that
//! keyframe); the wheel zooms time around the cursor, Shift+wheel or a
//! right/middle drag pans it; double-click shows the loop range (or all).

use super::super::actions::CurveAction;
use super::super::sim::Band;
use super::draw::{Drawn, Shown, draw};
use super::layer::Layer;
use super::raster::{self, BarCurve, Raster};
use crate::anim::clock;
use crate::session::mtn::FindingMark;
use crate::session::status::PlotArea;
use crate::session::viewer::ViewerState;
use egui::{Color32, Mesh, PointerButton, Pos2, Rect, Shape, Stroke};
use egui_plot::{Corner, Legend, Plot, PlotPoint, PlotTransform, PlotUi};
use std::sync::Arc;

/// A marker is hit within this distance, points.
const HIT_RADIUS: f32 = 6.0;
/// Marker radius, points.
const MARKER_RADIUS: f32 = 3.5;
/// Curve width, points.
const LINE_WIDTH: f32 = 1.5;
/// Band beyond a joint limit: the channel's colour at this opacity…
const BAND_ALPHA: f32 = 0.35;
/// …this deep, points.
const BAND_DEPTH: f32 = 7.0;
/// The narrowest a finding is shaded, points (a one-frame finding shows).
const MIN_SHADE: f32 = 2.0;
/// The legend is shown up to this many curves; beyond, it would cover the
/// plot, and the channel tree names each curve shown in its colour.
const LEGEND_UP_TO: usize = 8;
/// Wheel points per e-fold of zoom.
const WHEEL_PER_EFOLD: f32 = 400.0;
const FINDING_ERROR: Color32 = Color32::from_rgba_premultiplied(90, 20, 18, 90);
const FINDING_WARNING: Color32 = Color32::from_rgba_premultiplied(96, 56, 12, 90);
const PLAYHEAD: Color32 = Color32::from_rgb(240, 240, 240);

/// A keyframe being dragged on a curve.
#[derive(Debug, Clone)]
struct KeyDrag {
    track: usize,
    key: usize,
    channel: String,
}

/// What one view's curves were made for.
#[derive(Debug, Clone, Copy, PartialEq)]
struct DrawKey {
    revision: u64,
    version: u64,
    t0: f64,
    t1: f64,
    columns: usize,
}

/// The plot's state between frames.
#[derive(Debug, Clone, Default)]
pub struct PlotState {
    /// The time range shown.
    view: Option<(f64, f64)>,
    /// The loop range the view last followed, and the timeline's length then.
    followed: Option<(Option<(f64, f64)>, f64)>,
    drag: Option<KeyDrag>,
    drawn: Option<(DrawKey, Vec<Drawn>)>,
    /// The track and channel of each drawn curve, for hits on its markers.
    shown_keys: Vec<(usize, String)>,
    /// The findings' shading, for a revision and the tracks shown.
    shades: Option<(ShadeKey, Arc<Vec<raster::Shade>>)>,
    /// The time under the cursor, while over the plot.
    pub hover_s: Option<f64>,
    /// Where the plot stood last frame.
    pub area: Option<PlotArea>,
    /// The dense curves as one picture (see [`raster`]).
    raster: Raster<DrawKey>,
}

/// What the plot is asked to draw this frame.
pub struct Frame<'s> {
    /// The curves, in legend order.
    pub shown: &'s [Shown],
    /// The simulated dog's marks, shaded with the findings.
    pub bands: &'s [Band],
    /// Bumped whenever `bands` change.
    pub sim_version: u64,
    /// Bumped whenever `shown` changes.
    pub version: u64,
    /// The y axis' label (the units).
    pub unit_label: String,
}

impl PlotState {
    /// Shows the plot filling `ui`; returns the keyframe actions.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        state: &mut ViewerState,
        frame: &Frame<'_>,
    ) -> Vec<CurveAction> {
        let mut actions = Vec::new();
        let findings = self.shades(state, frame);
        let mut plot = Plot::new("curves plot")
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .allow_double_click_reset(false)
            .allow_axis_zoom_drag(false)
            // On the panel's own fill: one full-size rectangle fewer for a
            // software rasteriser to paint each frame.
            .show_background(false)
            .show_x(false)
            .show_y(false)
            .x_axis_label("s")
            .y_axis_label(frame.unit_label.clone());
        if frame.shown.len() <= LEGEND_UP_TO {
            plot = plot.legend(Legend::default().position(Corner::RightTop));
        }
        let ppp = ui.ctx().pixels_per_point();
        let response = plot.show(ui, |p| {
            self.interact(p, state, &mut actions);
            self.build(p, state, frame, ppp, findings);
        });
        let t = &response.transform;
        let (b, r) = (t.bounds(), t.frame());
        self.area = Some(PlotArea {
            t0: b.min()[0],
            t1: b.max()[0],
            left: r.left(),
            right: r.right(),
            top: r.top(),
            bottom: r.bottom(),
            v0: b.min()[1],
            v1: b.max()[1],
        });
        actions
    }

    /// The view's time range: the loop range when it changes (or the whole
    /// timeline), then as zoomed and panned; paged along while playing.
    fn view(&mut self, state: &ViewerState) -> (f64, f64) {
        let t = &state.timeline;
        let duration = t.duration_s().max(t.frame_period_s());
        let follow = (state.loop_range(), t.duration_s());
        if self.followed != Some(follow) || self.view.is_none() {
            self.followed = Some(follow);
            self.view = Some(state.loop_range().unwrap_or((0.0, duration)));
        }
        let (mut t0, mut t1) = self.view.unwrap_or((0.0, duration));
        let now = t.time_s();
        if t.is_playing() && (now < t0 || now > t1) {
            let span = t1 - t0;
            t0 = if now > t1 { now } else { now - span };
            t1 = t0 + span;
        }
        self.set_view(t0, t1, state);
        self.view.unwrap_or((0.0, duration))
    }

    /// Sets the view, at least a few frames wide and inside the timeline
    /// where it fits.
    fn set_view(&mut self, t0: f64, t1: f64, state: &ViewerState) {
        let t = &state.timeline;
        let duration = t.duration_s().max(t.frame_period_s());
        let span = (t1 - t0).clamp(clock::time_of(4, t.frame_period_s()), duration);
        let start = t0.clamp(0.0, duration - span);
        if start.is_finite() && span.is_finite() {
            self.view = Some((start, start + span));
        }
    }

    /// Zoom, pan, seek and keyframe drags, read from this frame's response
    /// through last frame's transform (what the user sees).
    fn interact(
        &mut self,
        p: &mut PlotUi<'_>,
        state: &mut ViewerState,
        actions: &mut Vec<CurveAction>,
    ) {
        let response = p.response().clone();
        let last = *p.transform();
        let (t0, t1) = self.view(state);
        let width = f64::from(response.rect.width().max(1.0));
        let span = t1 - t0;
        if response.double_clicked() {
            self.followed = None;
            return;
        }
        if let Some(pos) = response.hover_pos() {
            let (scroll, zoom) = p.ctx().input(|i| (i.smooth_scroll_delta, i.zoom_delta()));
            let at = t0 + f64::from(pos.x - response.rect.left()) / width * span;
            let factor = f64::from((-scroll.y / WHEEL_PER_EFOLD).exp() / zoom);
            let pan = -f64::from(scroll.x) / width * span;
            if factor != 1.0 || pan != 0.0 {
                self.set_view(
                    at - (at - t0) * factor + pan,
                    at + (t1 - at) * factor + pan,
                    state,
                );
            }
            self.hover_s = Some(at);
        } else {
            self.hover_s = None;
        }
        if response.dragged_by(PointerButton::Secondary)
            || response.dragged_by(PointerButton::Middle)
        {
            let dt = -f64::from(response.drag_delta().x) / width * span;
            self.set_view(t0 + dt, t1 + dt, state);
        }
        let time_at = |pos: Pos2| last.value_from_position(pos).x;
        if response.drag_started_by(PointerButton::Primary) {
            let origin = p.ctx().input(|i| i.pointer.press_origin());
            if let Some((track, key, channel)) = origin.and_then(|o| self.hit(o, &last)) {
                actions.push(CurveAction::SelectKey { track, key });
                self.drag = Some(KeyDrag {
                    track,
                    key,
                    channel,
                });
            }
        }
        let pointer = response.interact_pointer_pos();
        match (&self.drag, pointer) {
            (Some(drag), Some(pos))
                if response.dragged_by(PointerButton::Primary) || response.drag_stopped() =>
            {
                let value = last.value_from_position(pos);
                actions.push(CurveAction::DragKey {
                    track: drag.track,
                    key: drag.key,
                    channel: drag.channel.clone(),
                    time_s: value.x,
                    value: value.y,
                    finished: response.drag_stopped(),
                });
            }
            (None, Some(pos)) if response.clicked_by(PointerButton::Primary) => {
                match self.hit(pos, &last) {
                    Some((track, key, _)) => actions.push(CurveAction::SelectKey { track, key }),
                    None => state.timeline.seek(time_at(pos)),
                }
            }
            (None, Some(pos)) if response.dragged_by(PointerButton::Primary) => {
                state.timeline.seek(time_at(pos))
            }
            _ => {}
        }
        if response.drag_stopped() {
            self.drag = None;
        }
    }

    /// The findings of the tracks shown, merged, formed once per revision
    /// (they follow edits).
    fn shades(&mut self, state: &ViewerState, frame: &Frame<'_>) -> Arc<Vec<raster::Shade>> {
        let mut tracks: Vec<usize> = frame.shown.iter().map(|s| s.key.track).collect();
        tracks.sort_unstable();
        tracks.dedup();
        let key = (state.revision(), frame.sim_version, tracks);
        match &self.shades {
            Some((k, shades)) if *k == key => Arc::clone(shades),
            _ => {
                let shades = Arc::new(findings(state, &key.2, frame.bands));
                self.shades = Some((key, Arc::clone(&shades)));
                shades
            }
        }
    }

    /// The keyframe marker under `pos` (as drawn last frame), if any.
    fn hit(&self, pos: Pos2, transform: &PlotTransform) -> Option<(usize, usize, String)> {
        let (_, drawn) = self.drawn.as_ref()?;
        let shown = self.shown_keys.as_slice();
        drawn
            .iter()
            .zip(shown)
            .flat_map(|(d, key)| d.markers.iter().map(move |m| (m, key)))
            .map(|((key, at), channel)| {
                let screen = transform.position_from_point(&PlotPoint::new(at[0], at[1]));
                (screen.distance(pos), *key, channel)
            })
            .filter(|(d, _, _)| *d <= HIT_RADIUS)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, key, (track, name))| (*track, key, name.clone()))
    }
}

/// What the shading was formed for: a revision and the tracks shown.
type ShadeKey = (u64, u64, Vec<usize>);

impl PlotState {
    /// Adds this frame's layers: shading and bands, the curves, their
    /// markers, then the playhead and the values under the cursor.
    fn build(
        &mut self,
        p: &mut PlotUi<'_>,
        state: &ViewerState,
        frame: &Frame<'_>,
        ppp: f32,
        shades: Arc<Vec<raster::Shade>>,
    ) {
        let (t0, t1) = self.view.unwrap_or((0.0, 1.0));
        let rect = p.response().rect;
        let columns = ((rect.width() * ppp).round() as usize).max(1);
        let key = DrawKey {
            revision: state.revision(),
            version: frame.version,
            t0,
            t1,
            columns,
        };
        if self.drawn.as_ref().is_none_or(|(k, _)| *k != key) {
            let drawn = frame
                .shown
                .iter()
                .map(|s| {
                    draw(
                        &s.series,
                        s.keyframes.as_deref().map(Vec::as_slice),
                        t0,
                        t1,
                        columns,
                    )
                })
                .collect();
            self.drawn = Some((key, drawn));
            self.shown_keys = frame
                .shown
                .iter()
                .map(|s| (s.key.track, s.key.name.clone()))
                .collect();
        }
        let Some((_, drawn)) = &self.drawn else {
            return;
        };
        let (y0, y1) = value_range(frame.shown, drawn);
        p.set_plot_bounds_x(t0..=t1);
        p.set_plot_bounds_y(y0..=y1);

        // The shading, the limit bands, the curves drawn as bars (dense) and
        // every keyframe marker go into one picture, painted when the view
        // changes; the sparse curves stay polylines over it.
        let bands = bands(frame.shown);
        let backdrop = raster::Backdrop {
            shades: &shades,
            bands: &bands,
        };
        let bar_curves: Vec<BarCurve<'_>> = frame
            .shown
            .iter()
            .zip(drawn)
            .map(|(s, d)| BarCurve {
                bars: &d.bars,
                color: bar_colour(s.color, s.dashed),
                markers: &d.markers,
            })
            .collect();
        let size = [columns, ((rect.height() * ppp).round() as usize).max(1)];
        let raster_frame = raster::Frame {
            t: (t0, t1),
            v: (y0, y1),
            size,
        };
        let style = raster::Style {
            half_width: f64::from(0.5 * LINE_WIDTH * ppp),
            marker: raster::MarkerSize {
                radius: f64::from(MARKER_RADIUS * ppp),
                outline: f64::from((MARKER_RADIUS + 1.0) * ppp),
            },
            band_depth: f64::from(BAND_DEPTH * ppp).round(),
            min_shade: f64::from(MIN_SHADE * ppp),
        };
        let picture = self
            .raster
            .texture(p.ctx(), key, raster_frame, style, backdrop, &bar_curves);
        if let Some((texture, regions)) = picture {
            p.add(Layer::new("", Color32::TRANSPARENT, move |tr, shapes| {
                let r = Rect::from_two_pos(
                    tr.position_from_point(&PlotPoint::new(t0, y1)),
                    tr.position_from_point(&PlotPoint::new(t1, y0)),
                );
                // Only the parts that hold something: the GPU blends every
                // pixel it is handed, transparent or not.
                let [w, h] = size.map(|n| n as f32);
                for region in regions.iter() {
                    let uv = Rect::from_min_max(
                        Pos2::new(
                            region.columns.start as f32 / w,
                            region.rows.start as f32 / h,
                        ),
                        Pos2::new(region.columns.end as f32 / w, region.rows.end as f32 / h),
                    );
                    let on_screen = Rect::from_min_max(
                        r.lerp_inside(uv.min.to_vec2()),
                        r.lerp_inside(uv.max.to_vec2()),
                    );
                    shapes.push(Shape::image(texture, on_screen, uv, Color32::WHITE));
                }
            }));
        }
        for (s, d) in frame.shown.iter().zip(drawn) {
            let points = Arc::clone(&d.points);
            let (color, dashed) = (s.color, s.dashed);
            // A layer per curve all the same: it is the legend's entry.
            p.add(Layer::new(s.label.clone(), color, move |tr, shapes| {
                curve(tr, &points, color, dashed, shapes);
            }));
        }
        let now = state.timeline.time_s();
        let hover = self.hover_s;
        let under: Vec<(f64, Color32)> = hover
            .map(|t| {
                frame
                    .shown
                    .iter()
                    .filter_map(|s| Some((s.series.value_at(t)?, s.color)))
                    .collect()
            })
            .unwrap_or_default();
        p.add(Layer::new("", PLAYHEAD, move |tr, shapes| {
            let r = *tr.frame();
            if let Some(t) = hover {
                let x = tr.position_from_point_x(t);
                shapes.push(Shape::vline(
                    x,
                    r.y_range(),
                    Stroke::new(1.0, Color32::from_gray(110)),
                ));
                for (v, color) in &under {
                    let c = tr.position_from_point(&PlotPoint::new(t, *v));
                    shapes.push(Shape::circle_filled(c, 2.5, *color));
                }
            }
            let x = tr.position_from_point_x(now);
            shapes.push(Shape::vline(x, r.y_range(), Stroke::new(2.0, PLAYHEAD)));
        }));
    }
}

/// A bar curve's colour in the picture: dashed (track B) at half strength.
fn bar_colour(color: Color32, dashed: bool) -> Color32 {
    if dashed {
        color.gamma_multiply(0.5)
    } else {
        color
    }
}

/// One sparse curve in screen space: its polyline as one quad per segment
/// (dashed: egui's dashes), without feathering, so that a curve is a few
/// thousand triangles at most. Dense curves are in the picture ([`raster`]).
fn curve(
    tr: &PlotTransform,
    points: &[[f64; 2]],
    color: Color32,
    dashed: bool,
    shapes: &mut Vec<Shape>,
) {
    let half = 0.5 * LINE_WIDTH;
    let mut mesh = Mesh::default();
    let screen: Vec<Pos2> = points
        .iter()
        .map(|q| tr.position_from_point(&PlotPoint::new(q[0], q[1])))
        .collect();
    if dashed {
        shapes.extend(Shape::dashed_line(
            &screen,
            Stroke::new(LINE_WIDTH, color),
            6.0,
            4.0,
        ));
    } else {
        for w in screen.windows(2) {
            let d = w[1] - w[0];
            let n = d.normalized().rot90() * half;
            if !n.x.is_finite() || !n.y.is_finite() {
                continue;
            }
            let i = mesh.vertices.len() as u32;
            for p in [w[0] + n, w[0] - n, w[1] - n, w[1] + n] {
                mesh.colored_vertex(p, color);
            }
            mesh.add_triangle(i, i + 1, i + 2);
            mesh.add_triangle(i, i + 2, i + 3);
        }
    }
    if !mesh.is_empty() {
        shapes.push(Shape::mesh(mesh));
    }
}

/// The values to show: every curve's, and the joint limits, with a margin.
fn value_range(shown: &[Shown], drawn: &[Drawn]) -> (f64, f64) {
    let mut range: Option<(f64, f64)> = None;
    let mut merge = |lo: f64, hi: f64| {
        range = Some(range.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
    };
    for (s, d) in shown.iter().zip(drawn) {
        if let Some((lo, hi)) = d.range {
            merge(lo, hi);
        }
        if let Some((lo, hi)) = s.limits {
            merge(lo, hi);
        }
    }
    let (lo, hi) = range.unwrap_or((-1.0, 1.0));
    let pad = ((hi - lo) * 0.08).max(1e-3 * hi.abs().max(1.0));
    (lo - pad, hi + pad)
}

/// Joint limits to draw as bands, each once: in its channel's colour, or
/// grey where channels share it.
fn bands(shown: &[Shown]) -> Vec<raster::Band> {
    let mut limits: Vec<((f64, f64), Color32)> = Vec::new();
    for s in shown.iter().filter(|s| !s.dashed) {
        let Some(l) = s.limits else { continue };
        match limits.iter_mut().find(|(m, _)| *m == l) {
            Some(band) => band.1 = Color32::from_gray(150),
            None => limits.push((l, s.color)),
        }
    }
    limits
        .into_iter()
        .flat_map(|((lo, hi), colour)| {
            let (fill, line) = (
                colour.gamma_multiply(BAND_ALPHA),
                colour.gamma_multiply(0.6),
            );
            [(hi, true), (lo, false)].map(|(value, upper)| raster::Band {
                value,
                upper,
                fill,
                line,
            })
        })
        .collect()
}

/// The findings of `tracks`, each shaded over the segment it concerns
/// (from the keyframe before to its own), overlapping ones of a kind merged.
fn findings(state: &ViewerState, tracks: &[usize], bands: &[Band]) -> Vec<raster::Shade> {
    let period = state.timeline.frame_period_s();
    let mut shades: Vec<raster::Shade> = Vec::new();
    for entry in tracks.iter().filter_map(|&i| state.tracks().get(i)) {
        for mark in &entry.findings {
            shades.push(segment(mark, &entry.keyframes, period));
        }
    }
    // The simulated dog's: a frame either side of a fall, a joint's stretch as it is.
    for b in bands.iter().filter(|b| tracks.contains(&b.track)) {
        let (t0, t1) = match b.fall {
            true => (b.t0 - period, b.t0 + period),
            false => (b.t0, b.t1.max(b.t0 + period)),
        };
        let color = if b.fall {
            FINDING_ERROR
        } else {
            FINDING_WARNING
        };
        shades.push(raster::Shade { t0, t1, color });
    }
    shades.sort_by(|a, b| a.t0.total_cmp(&b.t0));
    let mut merged: Vec<raster::Shade> = Vec::with_capacity(shades.len());
    for s in shades {
        match merged.last_mut() {
            Some(last) if last.color == s.color && s.t0 <= last.t1 => last.t1 = last.t1.max(s.t1),
            _ => merged.push(s),
        }
    }
    merged
}

/// The time a finding concerns: from the keyframe before it to its own
/// (a speed finding names the keyframe ending the segment); a frame either
/// side where there is none before.
fn segment(mark: &FindingMark, keyframes: &[f64], period: f64) -> raster::Shade {
    let before = keyframes.partition_point(|&k| k < mark.time_s - 1e-9);
    let (t0, t1) = match before.checked_sub(1).map(|i| keyframes[i]) {
        Some(k) => (k, mark.time_s),
        None => (mark.time_s - period, mark.time_s + period),
    };
    let color = if mark.error {
        FINDING_ERROR
    } else {
        FINDING_WARNING
    };
    raster::Shade { t0, t1, color }
}
