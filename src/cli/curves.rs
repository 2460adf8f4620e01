//! `viewer plot` and `viewer diff`: channels over time drawn as SVG or PNG,
//! and two motions compared channel by channel.

use super::values::{self, FrameRange, Size, TimeRange};
use anyhow::{Result, bail};
use clap::Args;
use motion_viewer::curves::diff::{DiffOptions, diff, to_text};
use motion_viewer::curves::plot::{DEFAULT_SIZE, plot};
use motion_viewer::curves::select::Window;
use motion_viewer::curves::svg::write_svg;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `viewer plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Files to plot (a MEMG motion with its .obj).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Channels by name as `info`/`export` call them, or a pattern with `*`
    /// (any run) and `?` (one character): `'PRM:/r2/*'`, `'right_*Tip_p?'`, `g1_q*`.
    #[arg(long, required = true, num_args = 1.., value_name = "PATTERN")]
    pub channels: Vec<String>,
    /// Output: `.svg` (values readable back, see docs/cli.md) or `.png`.
    #[arg(long)]
    pub out: PathBuf,
    /// Only frames `A..B` (B excluded, in the first motion's frame period).
    #[arg(long, value_name = "A..B", conflicts_with = "time_range")]
    pub frames: Option<FrameRange>,
    /// Only the seconds `A..B`.
    #[arg(long, value_name = "A..B")]
    pub time_range: Option<TimeRange>,
    /// Picture size in pixels (default 1280x720).
    #[arg(long, value_name = "WxH")]
    pub size: Option<Size>,
    /// Write over an input file if the output names one.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `viewer diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Motion A then motion B, one format (a MEMG motion: its .obj and .bin,
    /// `viewer diff a.obj a.bin b.obj b.bin`).
    #[arg(required = true, num_args = 2.., value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Largest difference allowed, in each channel's unit (degrees, metres,
    /// 0/1, .obj units); exit 1 when one is larger. Default 0: any difference.
    #[arg(long, value_name = "X", value_parser = values::non_negative, default_value_t = 0.0)]
    pub tolerance: f64,
    /// B plays X times as fast as A (made by `mtn retime --speed X`): A at t
    /// is compared with B at t/X.
    #[arg(long, value_name = "X", value_parser = values::positive, default_value_t = 1.0)]
    pub b_speed: f64,
}

/// What the output's extension asks for.
enum Picture {
    Svg,
    Png,
}

fn picture(out: &Path) -> Result<Picture> {
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("svg") => Ok(Picture::Svg),
        Some("png") => Ok(Picture::Png),
        _ => bail!(
            "{}: a plot is written as .svg or .png",
            motion_viewer::text::Escaped::path(out)
        ),
    }
}

pub fn plot_run(args: &PlotArgs) -> Result<()> {
    let kind = picture(&args.out)?;
    motion_viewer::open::check_not_input(&args.out, &args.files, args.force)?;
    let tracks = super::load(&args.files, motion_viewer::open::Archives::EveryMotion)?;
    let window = match (args.frames, args.time_range) {
        (Some(f), _) => Window::Frames(f.start, f.end),
        (None, Some(r)) => Window::Seconds(r.start, r.end),
        (None, None) => Window::All,
    };
    let size = args.size.map_or(DEFAULT_SIZE, Size::pair);
    let plot = plot(&tracks, &args.channels, window, size, &args.out)?;
    for note in &plot.notes {
        eprintln!("viewer: {}", motion_viewer::text::escape(note));
    }
    match kind {
        Picture::Svg => write_svg(&plot, &args.out)?,
        Picture::Png => {
            let bytes = crate::raster::png(&plot)?;
            motion_viewer::output::write_atomic(&args.out, |w| w.write_all(&bytes))?;
        }
    }
    Ok(())
}

/// Exit status of `diff`: 0 within the tolerance, 1 beyond it, 2 on an error.
pub fn diff_run(args: &DiffArgs) -> ExitCode {
    match diff_report(args) {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(e) => {
            eprintln!("viewer: {}", super::one_line(&e));
            ExitCode::from(2)
        }
    }
}

/// Prints the report; true when a difference exceeds the tolerance.
fn diff_report(args: &DiffArgs) -> Result<bool> {
    let tracks = super::load(&args.files, motion_viewer::open::Archives::EveryMotion)?;
    let [a, b] = tracks.as_slice() else {
        bail!(
            "diff compares two motions; the {} files given make {} (a MEMG motion is its .obj and .bin)",
            args.files.len(),
            tracks.len()
        );
    };
    let options = DiffOptions {
        tolerance: args.tolerance,
        b_speed: args.b_speed,
    };
    let report = diff(a, b, &options)?;
    if args.json {
        super::print_stdout(&(serde_json::to_string_pretty(&report)? + "\n"))?;
    } else {
        super::print_text(&to_text(&report))?;
    }
    Ok(report.exceeds)
}
