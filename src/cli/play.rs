//! `viewer FILE...`: play in a window.
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
}

/// Opens the window on `files` and plays until it is closed.
pub fn run(files: &[PathBuf], args: &PlayArgs) -> anyhow::Result<()> {
    let loop_mode: LoopMode = args.loop_mode.parse()?;
    let options = app::Options {
        paused: args.paused,
        speed: args.speed,
        start_s: args.start,
        loop_mode,
        size: parse_size(&args.size)?,
    };
    app::run(files, &options)?;
    Ok(())
}

/// `WxH` with both sides in 1..=16384.
fn parse_size(text: &str) -> anyhow::Result<(u32, u32)> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)))
        .filter(|&(w, h)| (1..=16384).contains(&w) && (1..=16384).contains(&h));
    parsed.ok_or_else(|| anyhow::anyhow!("--size {text:?}: expected WxH, e.g. 1280x720"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1280x720").unwrap(), (1280, 720));
        assert_eq!(parse_size("64X48").unwrap(), (64, 48));
        assert!(parse_size("0x10").is_err());
        assert!(parse_size("1280").is_err());
        assert!(parse_size("ax b").is_err());
    }
}
