//! `viewer [FILE...]`: play in a window (no files: an empty window to drop them on).
use motion_viewer::anim::timeline::LoopMode;
use motion_viewer::app;
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
    /// Loop mode: once, loop or pingpong.
    #[arg(long = "loop", default_value = "loop")]
    pub loop_mode: String,
    /// Window size, `WxH`.
    #[arg(long, default_value = "1280x720")]
    pub size: String,
    /// How the GPU stores MEMG bases: `f32`, or `f16` (half the bytes per frame).
    #[arg(long, default_value = "f32")]
    pub basis: motion_viewer::gpu::BasisFormat,
    /// `fit` (every track scaled to a common size; the default when formats
    /// are mixed) or `true-scale`.
    #[arg(long)]
    pub layout: Option<String>,
    /// Reload a track when one of its files changes on disk (the time is
    /// kept; a file that no longer decodes leaves the last good version).
    #[arg(long)]
    pub watch: bool,
}

/// Opens the window on `files` and plays until it is closed.
pub fn run(files: &[PathBuf], args: &PlayArgs) -> anyhow::Result<()> {
    let loop_mode: LoopMode = args.loop_mode.parse()?;
    let [width, height] = super::parse_size(&args.size)?;
    let layout = super::parse_layout(args.layout.as_deref())?;
    let options = app::Options {
        paused: args.paused,
        speed: args.speed,
        start_s: args.start,
        loop_mode,
        size: (width, height),
        basis: args.basis,
        layout,
        watch: args.watch,
    };
    app::run(files, &options)?;
    Ok(())
}
