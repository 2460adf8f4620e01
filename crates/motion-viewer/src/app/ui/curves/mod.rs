//! The curves panel (C): every track's channels over time, above the
//! timeline. On the left the channel tree ([`tree`]); on the right the plot
//! ([`plot`]): the channels chosen, coloured and named, drawn from a
//! bounded number of points whatever their length ([`draw`]), sampled once
//! and kept until the tracks change or are edited ([`cache`]). B overlays, for each
//! channel, the same-named channel of the next track (dashed) and the
//! difference A − B. With the simulated dog on (X), each AIBO joint's
//! reached angle is drawn dashed beside its commanded one, and the fall
//! and the stretches a joint could not follow are shaded.
//!
//! `--curves PATTERN` (the page: `?curves=PATTERN`) opens the panel on the
//! channels matching it ([`pattern`]); opened with nothing chosen, the panel
//! shows the first track's first joints.

mod cache;
mod draw;
mod layer;
mod pattern;
mod plot;
mod raster;
mod tree;

use super::actions::CurveAction;
use super::sim::SimView;
use crate::session::status::{CurveChannel, CurvesStatus};
use crate::session::viewer::ViewerState;
use cache::{ChannelKey, SeriesCache};
use draw::Shown;
use egui::Color32;
use egui::ecolor::Hsva;

/// Channels chosen when the panel opens with none.
const DEFAULT_CHANNELS: usize = 6;
/// Width of the channel tree, points.
const TREE_WIDTH: f32 = 240.0;
/// Height of the panel when it first opens, points.
const PANEL_HEIGHT: f32 = 280.0;

/// The panel's state between frames.
#[derive(Debug, Clone, Default)]
pub struct CurvesPanel {
    /// The panel is shown.
    pub open: bool,
    /// Track B's channels and A − B are overlaid.
    pub compare: bool,
    selected: Vec<ChannelKey>,
    search: String,
    /// The `--curves` pattern, applied once tracks are open.
    pending: Option<String>,
    /// The default channels were chosen once: an emptied selection stays empty.
    defaulted: bool,
    /// Bumped whenever the curves to draw change.
    version: u64,
    cache: SeriesCache,
    plot: plot::PlotState,
    /// The [`SimView::version`] drawn.
    sim_version: u64,
}

impl CurvesPanel {
    /// The panel, open on the channels matching `pattern` when one is given.
    pub(crate) fn with_pattern(pattern: Option<String>) -> CurvesPanel {
        CurvesPanel {
            open: pattern.is_some(),
            defaulted: pattern.is_some(),
            pending: pattern,
            ..CurvesPanel::default()
        }
    }

    /// Overlays track B, or stops.
    pub(crate) fn toggle_compare(&mut self) {
        self.compare = !self.compare;
        self.version += 1;
    }

    /// What the panel shows, for the status: the channels with their values
    /// at the timeline's time.
    pub fn status(&self, state: &ViewerState) -> CurvesStatus {
        if !self.open {
            return CurvesStatus::default();
        }
        let t = state.timeline.time_s();
        let value = |track: usize, name: &str| {
            let entry = state.tracks().get(track)?;
            let series = crate::curves::sample(&entry.track, &[name], &[t]).ok()?;
            series.first()?.values.first().copied()
        };
        CurvesStatus {
            open: true,
            compare: self.compare,
            channels: self
                .selected
                .iter()
                .map(|k| CurveChannel {
                    track: k.track,
                    name: k.name.clone(),
                    value: value(k.track, &k.name),
                })
                .collect(),
            plot: self.plot.area,
        }
    }

    /// Shows the panel along the bottom of `ui` (call after the timeline's
    /// panel, so that it stands above it). Returns what was done to keyframes.
    /// `sim`: the simulated dog's reached angles (drawn dotted beside each
    /// commanded joint) and marks (shaded like `check`'s findings).
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        state: &mut ViewerState,
        sim: &SimView,
    ) -> Vec<CurveAction> {
        self.follow(state);
        if sim.version != self.sim_version {
            self.sim_version = sim.version;
            self.version += 1;
        }
        let shown = self.shown(state, sim);
        let mut actions = Vec::new();
        // No fill: the panel stands on the 3D view's background, which the
        // frame's clear has already painted. A software rasteriser pays for
        // every pixel handed to it, and a filled panel is a third of the
        // window painted once more every frame (BENCHMARKS.md, "Curves panel
        // frame time").
        let unfilled = egui::Frame::side_top_panel(ui.style()).fill(Color32::TRANSPARENT);
        egui::Panel::bottom("curves")
            .frame(unfilled)
            .resizable(true)
            .default_size(PANEL_HEIGHT)
            .min_size(120.0)
            .show(ui, |ui| {
                egui::Panel::left("curves tree")
                    .frame(unfilled)
                    .resizable(true)
                    .default_size(TREE_WIDTH)
                    .show(ui, |ui| self.tree(ui, state, &shown));
                if let Some(e) = &self.cache.error {
                    ui.colored_label(Color32::from_rgb(255, 110, 100), e);
                }
                if shown.is_empty() {
                    self.plot.area = None;
                    ui.centered_and_justified(|ui| ui.label("Choose channels on the left."));
                    return;
                }
                let frame = plot::Frame {
                    shown: &shown,
                    bands: &sim.bands,
                    sim_version: sim.version,
                    version: self.version,
                    unit_label: unit_label(&shown),
                };
                actions = self.plot.show(ui, state, &frame);
            });
        actions
    }

    /// Follows new tracks: forgets channels that went away, applies the
    /// `--curves` pattern or the default choice once there are tracks.
    fn follow(&mut self, state: &ViewerState) {
        if self.cache.sync(state) {
            let cache = &self.cache;
            self.selected.retain(|k| cache.channel(k).is_some());
            self.version += 1;
        }
        if state.tracks().is_empty() {
            return;
        }
        if let Some(patterns) = self.pending.take() {
            for track in 0..state.tracks().len() {
                for c in self.cache.channels(track) {
                    if pattern::matches(&patterns, &c.name) {
                        self.selected.push(ChannelKey {
                            track,
                            name: c.name.clone(),
                        });
                    }
                }
            }
            self.version += 1;
        }
        if !self.defaulted {
            self.defaulted = true;
            let channels = self.cache.channels(0);
            let joints: Vec<_> = channels.iter().filter(|c| c.limits.is_some()).collect();
            let pick = if joints.is_empty() {
                channels.iter().collect()
            } else {
                joints
            };
            self.selected
                .extend(pick.into_iter().take(DEFAULT_CHANNELS).map(|c| ChannelKey {
                    track: 0,
                    name: c.name.clone(),
                }));
            self.version += 1;
        }
    }

    /// The curves to draw: each channel chosen and, comparing, the next
    /// track's same-named channel and the difference.
    fn shown(&mut self, state: &ViewerState, sim: &SimView) -> Vec<Shown> {
        let series = self.cache.series(state, &self.selected);
        let several = state.tracks().len() > 1;
        let mut shown = Vec::new();
        for (i, (key, series)) in self.selected.iter().zip(series).enumerate() {
            let (Some(series), Some(channel)) = (series, self.cache.channel(key)) else {
                continue;
            };
            let track_name = |t: usize| state.tracks().get(t).map(|e| e.name()).unwrap_or_default();
            let label = match several {
                true => format!("{}: {}", track_name(key.track), key.name),
                false => key.name.clone(),
            };
            let color = color(i);
            let a = Shown {
                key: key.clone(),
                label,
                color,
                dashed: false,
                series,
                limits: channel.limits,
                keyframes: self.cache.keyframes(key.track),
                unit: channel.unit,
            };
            let b = (0..state.tracks().len()).find(|&t| {
                t != key.track
                    && self
                        .cache
                        .channel(&ChannelKey {
                            track: t,
                            name: key.name.clone(),
                        })
                        .is_some()
            });
            let pair = match (self.compare, b) {
                (true, Some(b)) => {
                    let b_key = ChannelKey {
                        track: b,
                        name: key.name.clone(),
                    };
                    let b_series = self
                        .cache
                        .series(state, std::slice::from_ref(&b_key))
                        .pop()
                        .flatten();
                    let diff = self.cache.difference(state, key, b);
                    b_series.zip(diff).map(|(bs, d)| {
                        let b_shown = Shown {
                            key: b_key,
                            label: format!("{}: {}", track_name(b), key.name),
                            dashed: true,
                            series: bs,
                            limits: None,
                            keyframes: None,
                            ..a.clone()
                        };
                        let d_shown = Shown {
                            label: format!("A−B {}", key.name),
                            color: color.gamma_multiply(0.55),
                            series: d,
                            limits: None,
                            keyframes: None,
                            ..a.clone()
                        };
                        (b_shown, d_shown)
                    })
                }
                _ => None,
            };
            // The simulated dog's reached angle against the commanded one.
            let reached = sim.reached(key.track, &key.name).map(|series| Shown {
                label: format!("reached {}", a.label),
                color: color.gamma_multiply(0.7),
                dashed: true,
                series,
                limits: None,
                keyframes: None,
                ..a.clone()
            });
            shown.push(a);
            shown.extend(reached);
            if let Some((b, d)) = pair {
                shown.extend([b, d]);
            }
        }
        shown
    }

    /// The channel tree, with each shown channel's value under the cursor
    /// (else at the playhead).
    fn tree(&mut self, ui: &mut egui::Ui, state: &ViewerState, shown: &[Shown]) {
        let t = self.plot.hover_s.unwrap_or_else(|| state.timeline.time_s());
        let value = |key: &ChannelKey| {
            let s = shown.iter().find(|s| !s.dashed && s.key == *key)?;
            Some(format!("{:9.3}", s.series.value_at(t)?))
        };
        let mut rows = tree::Rows {
            selected: &mut self.selected,
            color: &color,
            value: &value,
        };
        if tree::show(ui, state, &self.cache, &mut self.search, &mut rows) {
            self.version += 1;
        }
    }
}

/// The `i`-th channel's colour: hues a golden angle apart.
fn color(i: usize) -> Color32 {
    let hue = (i as f32 * 0.618_034 + 0.08).fract();
    Hsva::new(hue, 0.75, 1.0, 1.0).into()
}

/// The y axis' label: the units of the curves shown.
fn unit_label(shown: &[Shown]) -> String {
    let mut units: Vec<&str> = Vec::new();
    for s in shown {
        let symbol = s.unit.symbol();
        if !symbol.is_empty() && !units.contains(&symbol) {
            units.push(symbol);
        }
    }
    units.join(", ")
}
