//! The interactive window: plays the tracks on one [`Timeline`], draws them
//! with the GPU renderer, and lays an egui overlay on top.
//!
//! - [`state`], [`playback`]: what is shown, as plain data (tracks with
//!   visibility, solo and focus; the loop range; keyframes; layout; reload),
//!   tested without a window;
//! - [`status`]: the state for scripts and tests, as a line or as JSON;
//! - [`host`]: what the window needs from its platform — files, screenshots,
//!   status — so that it never touches a file or a thread itself;
//!   [`desktop`] is the desktop's, the `web/` crate's is a page's;
//! - `window`: events in, one frame out per redraw; `view`: the GPU side;
//! - `framework`: surface and egui plumbing (resize, surface loss, present);
//! - [`keys`]: the one binding table; `input`: mouse → camera; [`pick`]: what
//!   is under the cursor; `ui`: the overlay; [`frame_time`]: where a frame goes;
//! - [`archive`]: the entry list of an ODA archive opened whole; [`mtn`]:
//!   AIBO joint values at the current time and `check`'s findings.
//!
//! Set `MOTION_VIEWER_STATUS=1` to have the window print status lines on
//! stdout: `adapter NAME` once, `frame 3/241 time 0.100000 tracks 3 shown 2 focus 1`
//! whenever one of those changes, `error MESSAGE` for a load that failed,
//! `screenshot PATH` for each F12 (printed regardless), and on exit
//! `frame_time_ms 16.70` (smoothed) and `frame_split_ms deform … present …`.
//! Scripts and tests read these instead of guessing from pixels.

pub mod archive;
#[cfg(not(target_arch = "wasm32"))]
pub mod desktop;
pub mod frame_time;
mod framework;
pub mod host;
mod input;
pub mod keys;
pub mod mtn;
pub mod pick;
pub mod playback;
pub mod state;
pub mod status;
mod ui;
mod view;
mod window;

use crate::anim::timeline::{LoopMode, Timeline};
use crate::error::Error;
use crate::scene::Layout;
pub use host::{Host, HostEvent, Task};
pub use state::ViewerState;
pub use status::Status;
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
}

impl Options {
    /// An empty [`ViewerState`] whose clock starts as these options say.
    pub fn state(&self) -> Result<ViewerState, AppError> {
        let timeline = Timeline::new(0.0, 1.0 / 60.0)
            .with_speed(self.speed)
            .map_err(|e| AppError::Options(e.to_string()))?
            .with_loop(self.loop_mode)
            .with_paused(self.paused);
        Ok(ViewerState::new(timeline, self.start_s, self.layout))
    }
}

/// Why the window could not run.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Loading the files or opening the GPU failed.
    #[error(transparent)]
    Viewer(#[from] Error),
    /// No display to open a window on.
    #[error(
        "no display found (is DISPLAY or WAYLAND_DISPLAY set?); `viewer render FILE... --out x.png` draws pictures without one"
    )]
    NoDisplay,
    /// The windowing system refused.
    #[error("cannot open a window: {0}")]
    Window(String),
    /// The options make no sense.
    #[error("{0}")]
    Options(String),
}

/// Loads `paths` (none: the window starts empty and says how to open
/// files), opens the window and plays until it is closed.
#[cfg(not(target_arch = "wasm32"))]
pub fn run(paths: &[std::path::PathBuf], options: &Options) -> Result<(), AppError> {
    use crate::scene::{DiskMaterials, Input};
    use winit::event_loop::EventLoop;

    let mut state = options.state()?;
    if !paths.is_empty() {
        let inputs = paths
            .iter()
            .map(|p| Input::read(p))
            .collect::<crate::Result<Vec<_>>>()?;
        state.open(&inputs, &DiskMaterials)?;
    }
    // winit fails here when no display server can be reached; its message
    // names its own source file, which helps no user.
    let event_loop = EventLoop::<HostEvent>::with_user_event()
        .build()
        .map_err(|_| AppError::NoDisplay)?;
    let status = std::env::var_os(STATUS_ENV).is_some_and(|v| v != "0" && !v.is_empty());
    let proxy = options.watch.then(|| event_loop.create_proxy());
    let host = desktop::DesktopHost::new(status, proxy);
    let mut app = App::new(host, state, options.clone());
    event_loop
        .run_app(&mut app)
        .map_err(|e| AppError::Window(e.to_string()))?;
    match app.into_error() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
