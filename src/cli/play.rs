//! `viewer [FILE...]`: play in a window (no files: an empty window to drop them on).
use super::values::Size;
use motion_viewer::anim::LoopMode;
use motion_viewer::app;
use motion_viewer::gpu::BasisFormat;
use motion_viewer::scene::Layout;
use std::path::PathBuf;

/// Options for playing in a window.
#[derive(Debug, Clone, clap::Args)]
pub struct PlayArgs {
    /// Start paused.
    #[arg(long)]
    pub paused: bool,
    /// Playback speed (negative plays backwards).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub speed: f64,
    /// Start time in seconds.
    #[arg(long, default_value_t = 0.0)]
    pub start: f64,
    /// What happens at the ends of the timeline.
    #[arg(
        long = "loop",
        value_name = "once|loop|pingpong",
        default_value = "loop"
    )]
    pub loop_mode: LoopMode,
    /// Window size, `WxH`.
    #[arg(long, value_name = "WxH", default_value = "1280x720")]
    pub size: Size,
    /// How the GPU stores MEMG bases (`f16`: half the bytes per frame).
    #[arg(long, value_name = "f32|f16", default_value = "f32")]
    pub basis: BasisFormat,
    /// How tracks stand beside each other (default: `fit` when formats are
    /// mixed, else `true-scale`).
    #[arg(long, value_name = "fit|true-scale")]
    pub layout: Option<Layout>,
    /// Reload a track when one of its files changes on disk (the time is
    /// kept; a file that no longer decodes leaves the last good version).
    #[arg(long)]
    pub watch: bool,
    /// Open the curves panel on the channels matching PATTERN (names as
    /// `info`/`export` give them; comma-separated, `*` and `?` wildcards),
    /// e.g. `--curves '*_j1,head_*'`.
    #[arg(long, value_name = "PATTERN")]
    pub curves: Option<String>,
}

/// Opens the window on `files` and plays until it is closed.
pub fn run(files: &[PathBuf], args: &PlayArgs) -> anyhow::Result<()> {
    let options = app::Options {
        paused: args.paused,
        speed: args.speed,
        start_s: args.start,
        loop_mode: args.loop_mode,
        size: (args.size.width, args.size.height),
        basis: args.basis,
        layout: args.layout,
        watch: args.watch,
        curves: args.curves.clone(),
    };
    run_window(files, &options)?;
    Ok(())
}

/// Loads `paths` (none: the window starts empty and says how to open
/// files), opens the window and plays until it is closed.
fn run_window(paths: &[PathBuf], options: &app::Options) -> motion_viewer::Result<()> {
    use crate::desktop::DesktopHost;
    use motion_viewer::app::{App, HostEvent, STATUS_ENV};
    use motion_viewer::open::{DiskMaterials, Input};
    use winit::event_loop::EventLoop;

    let inputs = paths
        .iter()
        .map(|p| Input::read(p))
        .collect::<motion_viewer::Result<Vec<_>>>()?;
    // winit fails here when no display server can be reached; its message
    // names its own source file, which helps no user.
    let event_loop = EventLoop::<HostEvent>::with_user_event()
        .build()
        .map_err(|_| motion_viewer::Error::Window {
            reason: "no display found (is DISPLAY or WAYLAND_DISPLAY set?); `viewer render \
                     FILE... --out x.png` draws pictures without one"
                .into(),
        })?;
    let status = std::env::var_os(STATUS_ENV).is_some_and(|v| v != "0" && !v.is_empty());
    let proxy = options.watch.then(|| event_loop.create_proxy());
    let host = DesktopHost::new(status, proxy);
    let mut app = App::new(host, options.clone(), &inputs, &DiskMaterials)?;
    event_loop
        .run_app(&mut app)
        .map_err(|e| motion_viewer::Error::Window {
            reason: format!("cannot open a window: {e}"),
        })?;
    match app.into_error() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
