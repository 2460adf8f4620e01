//! The viewer's state for scripts and tests, as one typed value: the
//! desktop prints it as a line (`MOTION_VIEWER_STATUS=1`), a web page keeps
//! it as JSON in its `#status` element. Both come from [`Status`], so the
//! two cannot drift apart.

use super::edit::EditStatus;
use super::state::ViewerState;
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
    /// The AIBO motion being edited, if any (see [`super::edit`]).
    pub edit: Option<EditStatus>,
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
            edit: state.edit_status(),
        }
    }

    /// The desktop's status line: `frame 3/241 time 0.100000 tracks 3 shown 2 focus 1`.
    /// Errors are their own line (`error MESSAGE`), printed once.
    pub fn line(&self) -> String {
        let focus = self
            .focus
            .map_or_else(|| "-".to_string(), |i| i.to_string());
        format!(
            "frame {}/{} time {:.6} tracks {} shown {} focus {focus}",
            self.frame, self.frame_count, self.time_s, self.tracks, self.shown
        )
    }

    /// One JSON object, as a web page shows it.
    pub fn to_json(&self) -> String {
        // Plain numbers, strings and options: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::Status;
    use crate::anim::timeline::Timeline;
    use crate::session::ViewerState;

    #[test]
    fn the_line_and_the_json_say_the_same() {
        let timeline = Timeline::new(0.0, 1.0 / 60.0).with_paused(true);
        let state = ViewerState::new(timeline, 0.0, None);
        let status = Status::of(&state, "WebGPU", 16.5);
        assert_eq!(
            status.line(),
            "frame 0/1 time 0.000000 tracks 0 shown 0 focus -"
        );
        let json: serde_json::Value = serde_json::from_str(&status.to_json()).unwrap();
        assert_eq!(json["tracks"], 0);
        assert_eq!(json["playing"], false);
        assert_eq!(json["backend"], "WebGPU");
        assert!(json["error"].is_null());
        assert_eq!(json["frame_ms"], 16.5);
        assert_eq!(json["frame_period_s"], 1.0 / 60.0);
        assert!(json["edit"].is_null(), "no AIBO track, nothing edited");
    }
}
