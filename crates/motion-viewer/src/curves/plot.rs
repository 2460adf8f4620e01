//! `viewer plot`: channels of one or more tracks over time, laid out as a
//! picture — the plot rectangle, axes with ticks and units, a legend and
//! one curve per channel — as plain data that [`super::svg`] writes as SVG
//! and the application rasterises as PNG, so both show the same thing.
//!
//! A curve is drawn from real samples: every frame when the track has at
//! most two a pixel column, otherwise each column's smallest and largest
//! sample ([`super::Series::envelope`]), so a script that reads the points
//! back through the mapping the picture carries gets values of the channel
//! at those times.
//!
//! The mapping, pixel coordinates from the picture's top-left corner:
//! `t = t0 + (x − x0)/(x1 − x0)·(t1 − t0)` and
//! `v = v0 + (y − y0)/(y1 − y0)·(v1 − v0)`: `(x0, y0)` is where `(t0, v0)`
//! is drawn (the plot rectangle's bottom-left corner) and `(x1, y1)` where
//! `(t1, v1)` is (its top-right corner).

use super::select::{Window, check_patterns, frame_times_in, select};
use super::{Series, Unit, sample};
use crate::error::{Error, Result};
use crate::scene::Track;
use std::path::Path;

/// The most values one plot samples, all its curves together (about
/// 160 MB with their times); a longer request is sampled every k-th frame,
/// and the plot's notes say so.
pub(crate) const PLOT_BUDGET: usize = 10_000_000;

/// The default picture size.
pub const DEFAULT_SIZE: [u32; 2] = [1280, 720];

/// A colour, red, green, blue.
pub type Rgb = [u8; 3];

/// How a text is placed about its point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Its start is at the point.
    Start,
    /// Its middle is.
    Middle,
    /// Its end is.
    End,
}

/// Something drawn, in pixels from the top-left corner.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    /// A straight line.
    Line {
        /// One end.
        from: [f64; 2],
        /// The other end.
        to: [f64; 2],
        /// Its colour.
        colour: Rgb,
        /// Its width in pixels.
        width: f64,
    },
    /// A one-line text; the point is on its baseline.
    Text {
        /// Where it is anchored.
        at: [f64; 2],
        /// The text, as it is (the SVG writer escapes it).
        text: String,
        /// Font size in pixels.
        size: f64,
        /// How it sits about `at`.
        anchor: Anchor,
        /// Turned a quarter counter-clockwise (the value axis' title).
        vertical: bool,
    },
}

/// One channel's curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The track's name (its file stem), for several files.
    pub track: String,
    /// The channel's name, as `info` and `export` call it.
    pub channel: String,
    /// The unit of its values.
    pub unit: Unit,
    /// Its colour.
    pub colour: Rgb,
    /// The samples drawn, `(t, v)`, increasing in `t`.
    pub samples: Vec<[f64; 2]>,
}

/// A plot laid out.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// Picture width in pixels.
    pub width: u32,
    /// Picture height in pixels.
    pub height: u32,
    /// The time at the left edge of the plot rectangle, seconds.
    pub t0: f64,
    /// The time at its right edge.
    pub t1: f64,
    /// The value at its bottom edge.
    pub v0: f64,
    /// The value at its top edge.
    pub v1: f64,
    /// Pixel x of `t0` and of `t1`.
    pub x: [f64; 2],
    /// Pixel y of `v0` and of `v1` (y grows downward: `y[0] > y[1]`).
    pub y: [f64; 2],
    /// Several tracks: curves carry their track's name.
    pub several: bool,
    /// The picture's title.
    pub title: String,
    /// Grid, axes, ticks, labels and legend, drawn in order (the curves
    /// go between the grid and the rest: see [`Plot::layers`]).
    pub marks: Vec<Mark>,
    /// How many of [`Plot::marks`] are the grid, drawn under the curves.
    pub grid_marks: usize,
    /// The curves.
    pub curves: Vec<Curve>,
    /// What the plot left out or thinned, one line each.
    pub notes: Vec<String>,
}

/// Grid lines and frame.
pub(crate) const GRID: Rgb = [225, 225, 225];
/// Axes, ticks and text.
pub const INK: Rgb = [40, 40, 40];
/// Background.
pub const PAPER: Rgb = [255, 255, 255];

/// Curve colours, in turn.
const PALETTE: [Rgb; 10] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [127, 127, 127],
    [188, 189, 34],
    [23, 190, 207],
];

/// Text size of tick labels and legend, pixels.
const FONT: f64 = 12.0;
/// A character's width as the layout reckons it (about right for sans-serif).
const CHAR_WIDTH: f64 = 0.6 * FONT;

impl Plot {
    /// Pixel x of time `t`.
    pub fn px(&self, t: f64) -> f64 {
        self.x[0] + (t - self.t0) / (self.t1 - self.t0) * (self.x[1] - self.x[0])
    }

    /// Pixel y of value `v`.
    pub fn py(&self, v: f64) -> f64 {
        self.y[0] + (v - self.v0) / (self.v1 - self.v0) * (self.y[1] - self.y[0])
    }

    /// The grid marks, then the curves' owner draws its curves, then these.
    pub fn layers(&self) -> (&[Mark], &[Mark]) {
        self.marks.split_at(self.grid_marks)
    }
}

/// Lays out the channels of `tracks` that `patterns` match over `window`,
/// in a picture of `size` pixels (`out` names the output, for errors).
pub fn plot(
    tracks: &[Track],
    patterns: &[String],
    window: Window,
    size: [u32; 2],
    out: &Path,
) -> Result<Plot> {
    if tracks.is_empty() {
        return Err(Error::unsupported(out, "no motion to plot"));
    }
    check_patterns(tracks, patterns)?;
    let (t0, t1) = window.seconds(tracks, out)?;
    let chosen: Vec<_> = tracks.iter().map(|t| select(t, patterns)).collect();
    let total: usize = chosen.iter().map(Vec::len).sum();
    let several = tracks.len() > 1;
    let mut notes = Vec::new();
    let mut curves = Vec::new();
    let [width, height] = size;
    // The legend's width is known before the curves are sampled.
    let labels: Vec<String> = tracks
        .iter()
        .zip(&chosen)
        .flat_map(|(t, cs)| cs.iter().map(move |c| label(several, &t.name(), &c.name)))
        .collect();
    let frame = Frame::new(width, height, &labels);
    let columns = (frame.x[1] - frame.x[0]).max(1.0) as usize;
    for (track, chosen) in tracks.iter().zip(&chosen) {
        if chosen.is_empty() {
            continue;
        }
        let budget = PLOT_BUDGET / total.max(1);
        let (times, stride) = frame_times_in(track, window.clock(tracks), budget);
        if stride > 1 {
            notes.push(format!(
                "{}: sampled every {stride}th frame ({} channels plotted, {PLOT_BUDGET} values at most)",
                crate::text::Escaped::path(track.path()),
                total
            ));
        }
        let names: Vec<&str> = chosen.iter().map(|c| c.name.as_str()).collect();
        let series = sample(track, &names, &times)?;
        for (channel, s) in chosen.iter().zip(series) {
            let colour = PALETTE[curves.len() % PALETTE.len()];
            curves.push(Curve {
                track: track.name(),
                channel: channel.name.clone(),
                unit: channel.unit,
                colour,
                samples: drawn(&s, t0, t1, columns),
            });
        }
    }
    let (v0, v1) = value_range(&curves);
    let (t0, t1) = if t1 > t0 {
        (t0, t1)
    } else {
        // One instant: half a frame either side.
        let half = tracks[0].frame_period_s() / 2.0;
        (t0 - half, t1 + half)
    };
    let units = units(&curves);
    let title = tracks
        .iter()
        .map(|t| t.name())
        .collect::<Vec<_>>()
        .join(" · ");
    let mut plot = Plot {
        width,
        height,
        t0,
        t1,
        v0,
        v1,
        x: frame.x,
        y: frame.y,
        several,
        title,
        marks: Vec::new(),
        grid_marks: 0,
        curves,
        notes,
    };
    decorate(&mut plot, &units, &labels, frame.legend_x);
    Ok(plot)
}

/// A legend entry.
fn label(several: bool, track: &str, channel: &str) -> String {
    if several {
        format!("{track} · {channel}")
    } else {
        channel.to_string()
    }
}

/// The samples of `s` a curve draws within `[t0, t1]`: all of them when
/// there are at most two a column, otherwise each column's extremes in time
/// order. Values that are not finite are left out.
fn drawn(s: &Series, t0: f64, t1: f64, columns: usize) -> Vec<[f64; 2]> {
    let inside = s
        .times
        .iter()
        .zip(&s.values)
        .filter(|(t, v)| **t >= t0 && **t <= t1 && v.is_finite());
    if s.times.len() <= 2 * columns {
        return inside.map(|(&t, &v)| [t, v]).collect();
    }
    let mut points = Vec::with_capacity(2 * columns);
    for span in s.envelope(t0, t1, columns) {
        let (a, b) = ([span.t_min, span.min], [span.t_max, span.max]);
        if span.t_min == span.t_max {
            points.push(a);
        } else if span.t_min < span.t_max {
            points.extend([a, b]);
        } else {
            points.extend([b, a]);
        }
    }
    points
}

/// The value axis' range: the curves' extremes with a twentieth of margin
/// each side (±1 about a flat line, -1..1 with nothing drawn).
fn value_range(curves: &[Curve]) -> (f64, f64) {
    let values = curves.iter().flat_map(|c| c.samples.iter().map(|p| p[1]));
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo > hi {
        return (-1.0, 1.0);
    }
    if hi - lo < 1e-12 * hi.abs().max(1.0) {
        return (lo - 1.0, hi + 1.0);
    }
    let margin = (hi - lo) / 20.0;
    (lo - margin, hi + margin)
}

/// The distinct units of the curves, as the value axis' title writes them.
fn units(curves: &[Curve]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for c in curves {
        let symbol = c.unit.symbol();
        if !symbol.is_empty() && !seen.contains(&symbol) {
            seen.push(symbol);
        }
    }
    if seen.is_empty() {
        "value".into()
    } else {
        format!("value ({})", seen.join(", "))
    }
}

/// Where the plot rectangle and the legend go.
struct Frame {
    x: [f64; 2],
    y: [f64; 2],
    legend_x: f64,
}

impl Frame {
    fn new(width: u32, height: u32, labels: &[String]) -> Frame {
        let (w, h) = (f64::from(width), f64::from(height));
        let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        // The legend takes what its longest entry needs, at most a third.
        // Whole pixels, so the mapping the SVG carries is exact.
        let legend = (longest as f64 * CHAR_WIDTH + 40.0).min(w / 3.0).round();
        let (left, right, top, bottom): (f64, f64, f64, f64) = (70.0, 15.0 + legend, 30.0, 45.0);
        let x0 = left.min(w / 4.0).round();
        let x1 = (w - right).max(x0 + 1.0);
        let y1 = top.min(h / 4.0).round();
        let y0 = (h - bottom).max(y1 + 1.0);
        Frame {
            x: [x0, x1],
            y: [y0, y1],
            legend_x: x1 + 15.0,
        }
    }
}

/// Ticks every `step` from the first multiple at or after `lo` through `hi`.
fn ticks(lo: f64, hi: f64, target: f64) -> (Vec<f64>, f64) {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return (vec![lo], 1.0);
    }
    let raw = span / target.max(1.0);
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    let values = (first..=last).map(|k| k as f64 * step).collect();
    (values, step)
}

/// A tick's label with as many decimals as the step needs.
fn tick_label(value: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let text = format!("{value:.decimals$}");
    if text
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        // No "-0".
        return text.trim_start_matches('-').to_string();
    }
    text
}

/// Adds the grid, axes, tick labels, titles and legend.
fn decorate(plot: &mut Plot, units: &str, labels: &[String], legend_x: f64) {
    let [x0, x1] = plot.x;
    let [y0, y1] = plot.y;
    let line = |from, to, colour, width| Mark::Line {
        from,
        to,
        colour,
        width,
    };
    let text = |at, text: String, anchor| Mark::Text {
        at,
        text,
        size: FONT,
        anchor,
        vertical: false,
    };
    let (xt, xstep) = ticks(plot.t0, plot.t1, (x1 - x0) / 100.0);
    let (yt, ystep) = ticks(plot.v0, plot.v1, (y0 - y1) / 50.0);
    let mut grid = Vec::new();
    let mut rest = Vec::new();
    for &t in &xt {
        let x = plot.px(t);
        grid.push(line([x, y0], [x, y1], GRID, 1.0));
        rest.push(line([x, y0], [x, y0 + 5.0], INK, 1.0));
        rest.push(text([x, y0 + 18.0], tick_label(t, xstep), Anchor::Middle));
    }
    for &v in &yt {
        let y = plot.py(v);
        grid.push(line([x0, y], [x1, y], GRID, 1.0));
        rest.push(line([x0 - 5.0, y], [x0, y], INK, 1.0));
        rest.push(text([x0 - 8.0, y + 4.0], tick_label(v, ystep), Anchor::End));
    }
    rest.push(line([x0, y0], [x1, y0], INK, 1.0));
    rest.push(line([x0, y0], [x0, y1], INK, 1.0));
    rest.push(text(
        [(x0 + x1) / 2.0, y0 + 36.0],
        "time (s)".into(),
        Anchor::Middle,
    ));
    rest.push(Mark::Text {
        at: [16.0, (y0 + y1) / 2.0],
        text: units.to_string(),
        size: FONT,
        anchor: Anchor::Middle,
        vertical: true,
    });
    rest.push(Mark::Text {
        at: [x0, y1 - 10.0],
        text: plot.title.clone(),
        size: FONT + 2.0,
        anchor: Anchor::Start,
        vertical: false,
    });
    // The legend: as many entries as fit, then how many more.
    let row = FONT + 6.0;
    let fit = (((y0 - y1) / row).floor() as usize).max(1);
    let shown = if labels.len() > fit {
        fit - 1
    } else {
        labels.len()
    };
    for (k, (label, curve)) in labels.iter().zip(&plot.curves).take(shown).enumerate() {
        let y = y1 + 6.0 + k as f64 * row;
        rest.push(line([legend_x, y], [legend_x + 18.0, y], curve.colour, 2.0));
        rest.push(text(
            [legend_x + 24.0, y + 4.0],
            label.clone(),
            Anchor::Start,
        ));
    }
    if shown < labels.len() {
        let y = y1 + 6.0 + shown as f64 * row;
        rest.push(text(
            [legend_x + 24.0, y + 4.0],
            format!("… and {} more", labels.len() - shown),
            Anchor::Start,
        ));
    }
    plot.grid_marks = grid.len();
    grid.extend(rest);
    plot.marks = grid;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_fall_on_round_numbers() {
        let (t, step) = ticks(0.0, 4.88, 11.0);
        assert_eq!(step, 0.5);
        assert_eq!(t.len(), 10);
        assert_eq!(t[9], 4.5);
        let (t, step) = ticks(-83.2, 41.7, 12.0);
        assert_eq!(step, 20.0);
        assert_eq!(t, [-80.0, -60.0, -40.0, -20.0, 0.0, 20.0, 40.0]);
        assert_eq!(tick_label(-0.0, 0.5), "0.0");
        assert_eq!(tick_label(2.5, 0.5), "2.5");
        assert_eq!(tick_label(-40.0, 20.0), "-40");
        assert_eq!(tick_label(0.015, 0.005), "0.015");
    }

    #[test]
    fn a_long_series_is_drawn_from_its_column_extremes_in_time_order() {
        let times: Vec<f64> = (0..10_000).map(|i| f64::from(i) * 0.001).collect();
        let values: Vec<f64> = times.iter().map(|t| (t * 9.0).cos()).collect();
        let s = Series::new("c".into(), times, values);
        let points = drawn(&s, 0.0, 9.999, 100);
        assert!(points.len() <= 200, "{}", points.len());
        assert!(points.windows(2).all(|w| w[0][0] < w[1][0]));
        for p in &points {
            assert_eq!(p[1], (p[0] * 9.0).cos());
        }
        let lo = points.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
        let true_lo = s.values.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(lo, true_lo);
    }
}
