//! The viewer's state for scripts and tests, as one typed value: the
//! desktop prints it as a line (`MOTION_VIEWER_STATUS=1`), a web page keeps
//! it as JSON in its `#status` element. Both come from [`Status`], so the
//! two cannot drift apart.

use super::edit::EditStatus;
use super::viewer::ViewerState;
use serde::Serialize;

/// What the viewer shows now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Status {
    /// Tracks loaded.
    pub tracks: usize,
    /// Their names (the file, or `ARCHIVE:ENTRY`; `OBJ + MOTION` for MEMG).
    pub files: Vec<String>,
    /// Tracks drawn (visible, or soloed).
    pub shown: usize,
    /// The track the view is focused on, if any.
    pub focus: Option<usize>,
    /// The timeline's time, seconds.
    pub time_s: f64,
    /// The frame nearest that time.
    pub frame: u64,
    /// Frames on the timeline.
    pub frame_count: u64,
    /// Seconds per frame of the timeline.
    pub frame_period_s: f64,
    /// True while playing.
    pub playing: bool,
    /// The GPU backend drawing: `"WebGPU"`, `"WebGL2"`, `"Vulkan"`…; empty
    /// until the GPU is open.
    pub backend: String,
    /// The last load error (the one-line message the CLI prints), or none.
    pub error: Option<String>,
    /// The smoothed time one frame takes, milliseconds (0 before any).
    pub frame_ms: f64,
    /// The curves panel: whether it is open and the channels it shows
    /// (filled by the window; closed for [`Status::of`]).
    pub curves: CurvesStatus,
    /// The AIBO motion being edited, if any .
    pub edit: Option<EditStatus>,
    /// The simulated dog (feature `physics`; filled by the window, `None`
    /// while off and for [`Status::of`]).
    #[cfg(feature = "physics")]
    pub sim: Option<super::sim::SimStatus>,
}

/// What the curves panel shows, for scripts and tests.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CurvesStatus {
    /// The panel is open.
    pub open: bool,
    /// Track B's same-named channels and A−B are overlaid.
    pub compare: bool,
    /// The channels drawn, in legend order.
    pub channels: Vec<CurveChannel>,
    /// Where the plot stands once drawn: its time range and rectangle.
    pub plot: Option<PlotArea>,
}

/// One channel the curves panel draws.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurveChannel {
    /// The track, as an index into the tracks.
    pub track: usize,
    /// The channel's name as `info` and `export` call it.
    pub name: String,
    /// Its value at the timeline's time, sampled by the library's one rule
    /// (the value `export` and `plot` give at that time); `None` where the
    /// track has no such value.
    pub value: Option<f64>,
}

/// The plot's mapping from data to the window: time `t0` at `left`, `t1`
/// at `right`, value `v0` at `bottom`, `v1` at `top`, in points (CSS pixels
/// in a page; window pixels at scale 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlotArea {
    /// Time at the left edge, seconds.
    pub t0: f64,
    /// Time at the right edge, seconds.
    pub t1: f64,
    /// Left edge, points from the window's left.
    pub left: f32,
    /// Right edge.
    pub right: f32,
    /// Top edge, points from the window's top.
    pub top: f32,
    /// Bottom edge.
    pub bottom: f32,
    /// Value at the bottom edge.
    pub v0: f64,
    /// Value at the top edge.
    pub v1: f64,
}

impl Status {
    /// `state`'s status, drawn by `backend` at `frame_ms` per frame.
    pub fn of(state: &ViewerState, backend: &str, frame_ms: f64) -> Status {
        let t = &state.timeline;
        let tracks = state.tracks().len();
        Status {
            tracks,
            files: state.tracks().iter().map(|e| e.name()).collect(),
            shown: (0..tracks).filter(|&i| state.is_shown(i)).count(),
            focus: state.focus(),
            time_s: t.time_s(),
            frame: t.frame(),
            frame_count: t.frame_count(),
            frame_period_s: t.frame_period_s(),
            playing: t.is_playing(),
            backend: backend.to_string(),
            error: state.error().map(str::to_owned),
            frame_ms,
            curves: CurvesStatus::default(),
            edit: state.edit_status(),
            #[cfg(feature = "physics")]
            sim: None,
        }
    }

    /// The desktop's status line: `frame 3/241 time 0.100000 tracks 3 shown 2 focus 1`,
    /// then the curves panel: `curves -` while it is closed, else
    /// `curves N TRACK:NAME,…`, `values V,…` (each channel's value at the
    /// time, `-` for none) and, once drawn, `plot T0 T1 LEFT RIGHT TOP BOTTOM V0 V1`.
    /// Errors are their own line (`error MESSAGE`), printed once.
    pub fn line(&self) -> String {
        let focus = self
            .focus
            .map_or_else(|| "-".to_string(), |i| i.to_string());
        format!(
            "frame {}/{} time {:.6} tracks {} shown {} focus {focus} {}",
            self.frame,
            self.frame_count,
            self.time_s,
            self.tracks,
            self.shown,
            self.curves.words()
        )
    }

    /// One JSON object, as a web page shows it.
    pub fn to_json(&self) -> String {
        // Plain numbers, strings and options: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl CurvesStatus {
    /// The curves part of the status line (see [`Status::line`]).
    fn words(&self) -> String {
        if !self.open {
            return "curves -".into();
        }
        let names: Vec<String> = self
            .channels
            .iter()
            .map(|c| format!("{}:{}", c.track, c.name))
            .collect();
        let list = if names.is_empty() {
            "-".to_string()
        } else {
            names.join(",")
        };
        let mut words = format!("curves {} {list}", names.len());
        if !self.channels.is_empty() {
            let values: Vec<String> = self
                .channels
                .iter()
                .map(|c| c.value.map_or_else(|| "-".into(), |v| v.to_string()))
                .collect();
            words += &format!(" values {}", values.join(","));
        }
        if self.compare {
            words += " compare";
        }
        if let Some(p) = self.plot {
            words += &format!(
                " plot {:.6} {:.6} {:.1} {:.1} {:.1} {:.1} {:.6} {:.6}",
                p.t0, p.t1, p.left, p.right, p.top, p.bottom, p.v0, p.v1
            );
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::{CurveChannel, CurvesStatus, PlotArea, Status};
    use crate::anim::timeline::Timeline;
    use crate::session::ViewerState;

    #[test]
    fn the_line_and_the_json_say_the_same() {
        let timeline = Timeline::new(0.0, 1.0 / 60.0).with_paused(true);
        let state = ViewerState::new(timeline, 0.0, None);
        let status = Status::of(&state, "WebGPU", 16.5);
        assert_eq!(
            status.line(),
            "frame 0/1 time 0.000000 tracks 0 shown 0 focus - curves -"
        );
        let json: serde_json::Value = serde_json::from_str(&status.to_json()).unwrap();
        assert_eq!(json["tracks"], 0);
        assert_eq!(json["playing"], false);
        assert_eq!(json["backend"], "WebGPU");
        assert!(json["error"].is_null());
        assert_eq!(json["frame_ms"], 16.5);
        assert_eq!(json["frame_period_s"], 1.0 / 60.0);
        assert_eq!(json["curves"]["open"], false);
        assert!(json["edit"].is_null(), "no AIBO track, nothing edited");
    }

    #[test]
    fn the_curves_shown_are_in_the_line_and_the_json() {
        let timeline = Timeline::new(2.0, 0.5).with_paused(true);
        let state = ViewerState::new(timeline, 0.0, None);
        let mut status = Status::of(&state, "Vulkan", 0.0);
        status.curves = CurvesStatus {
            open: true,
            compare: false,
            channels: vec![
                CurveChannel {
                    track: 0,
                    name: "head_tilt".into(),
                    value: Some(-12.5),
                },
                CurveChannel {
                    track: 1,
                    name: "pitch_deg".into(),
                    value: None,
                },
            ],
            plot: Some(PlotArea {
                t0: 0.0,
                t1: 2.0,
                left: 10.0,
                right: 410.0,
                top: 300.0,
                bottom: 500.0,
                v0: -90.0,
                v1: 45.5,
            }),
        };
        assert_eq!(
            status.line(),
            "frame 0/5 time 0.000000 tracks 0 shown 0 focus - \
             curves 2 0:head_tilt,1:pitch_deg values -12.5,- plot 0.000000 2.000000 10.0 410.0 300.0 500.0 -90.000000 45.500000"
        );
        let json: serde_json::Value = serde_json::from_str(&status.to_json()).unwrap();
        assert_eq!(json["curves"]["open"], true);
        assert_eq!(json["curves"]["channels"][1]["name"], "pitch_deg");
        assert_eq!(json["curves"]["channels"][0]["value"], -12.5);
        assert!(json["curves"]["channels"][1]["value"].is_null());
        assert_eq!(json["curves"]["plot"]["right"], 410.0);
    }
}
