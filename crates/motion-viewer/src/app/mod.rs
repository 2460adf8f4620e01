//! The interactive window: plays the tracks on one timeline, draws them
//! with the GPU renderer, and lays an egui overlay on top.
//!
//! - `crate::session`: what is shown, as plain data (tracks with
//!   visibility, solo and focus; the loop range; keyframes; layout; reload;
//!   the status for scripts and tests), built and tested without a window;
//! - [`Host`]: what the window needs from its platform — files, screenshots,
//!   status — so that it never touches a file or a thread itself;
//!   the `viewer` application has the desktop's, the `web/` crate a page's;
//! - `window`: the [`App`]: events in, each handed to the part it
//!   concerns, one frame out per redraw (`window::frame`, in its phases);
//!   `view`: the GPU side;
//! - the parts the window holds, each owning its state: `simulate` (the
//!   simulated dog), `saving` (screenshots, the glTF export), `editing`
//!   (the AIBO motion's edit keys, saving it, the unsaved-edits question)
//!   and `report` (the status lines);
//! - `framework`: surface and egui plumbing (resize, surface loss, present);
//! - `keys`: the one binding table ([`BINDINGS`]); `input`: mouse → camera;
//!   `ui`: the overlay; `frame_time`: where a frame goes.
//!
//! Set `MOTION_VIEWER_STATUS=1` to have the window print status lines on
//! stdout: `adapter NAME` once, `frame 3/241 time 0.100000 tracks 3 shown 2 focus 1 curves -`
//! whenever one of those changes (the curves panel's channels and plot
//! mapping at the end, see [`Status::line`]), `error MESSAGE` for a load that failed,
//! `screenshot PATH` for each F12 (printed regardless), and on exit
//! `frame_time_ms 16.70` (smoothed) and `frame_split_ms deform … present …`.
//! Scripts and tests read these instead of guessing from pixels.

mod editing;
pub(crate) mod frame_time;
mod framework;
pub(crate) mod host;
mod input;
pub(crate) mod keys;
mod report;
mod saving;
mod simulate;
#[cfg(test)]
mod test_host;
mod ui;
mod view;
mod window;

use crate::anim::timeline::{LoopMode, Timeline};
use crate::error::Error;
use crate::scene::Layout;
use crate::session::ViewerState;
pub use crate::session::status::Status;
pub use host::GpuOpened;
pub use host::{Host, HostEvent, Picture, Task};
pub use keys::KeyName;
pub use keys::{Action, BINDINGS, Binding, help_rows};
pub use window::App;

/// The environment variable that turns on status lines on stdout.
pub const STATUS_ENV: &str = "MOTION_VIEWER_STATUS";

/// How the window starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Start paused.
    pub paused: bool,
    /// Signed playback speed.
    pub speed: f64,
    /// Start time in seconds.
    pub start_s: f64,
    /// What happens at the ends.
    pub loop_mode: LoopMode,
    /// Inner size of the window in logical pixels.
    pub size: (u32, u32),
    /// The layout asked for; `None` picks one by the tracks.
    pub layout: Option<Layout>,
    /// Reload a track when one of its files changes on disk.
    pub watch: bool,
    /// How the GPU stores MEMG bases (`f16`: half the bytes per frame).
    pub basis: crate::gpu::BasisFormat,
    /// Open the curves panel showing the channels these patterns match
    /// (comma-separated; `*` any run of characters, `?` one), once tracks are open.
    pub curves: Option<String>,
}

impl Options {
    /// An empty viewer whose clock starts as these options say.
    pub(crate) fn state(&self) -> Result<ViewerState, Error> {
        let timeline = Timeline::new(0.0, 1.0 / 60.0)
            .with_speed(self.speed)
            .map_err(|e| Error::Window {
                reason: e.to_string(),
            })?
            .with_loop(self.loop_mode)
            .with_paused(self.paused);
        Ok(ViewerState::new(timeline, self.start_s, self.layout))
    }
}
