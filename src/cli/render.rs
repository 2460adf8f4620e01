//! `viewer render`: pictures without a window, through the window's pipelines.

use super::{AtArgs, parse_range};
use anyhow::{Context, Result, bail};
use motion_viewer::gpu::camera::Preset;
use motion_viewer::gpu::{Capture, GpuContext, OrbitCamera, Renderer};
use motion_viewer::scene;
use motion_viewer::stage::Stage;
use motion_viewer::state::At;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `viewer render`.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// Files to render.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output PNG, or a pattern such as `dir/frame_{:04}.png` with --frames.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub at: AtArgs,
    /// A range of frames `A..B` (B excluded) written as a numbered sequence.
    #[arg(long, conflicts_with_all = ["time", "frame"])]
    pub frames: Option<String>,
    /// Picture size, `WxH`.
    #[arg(long, default_value = "1280x720")]
    pub size: String,
    /// Viewpoint: `three-quarter`, `front`, `side` or `top`.
    #[arg(long, default_value = "three-quarter")]
    pub view: String,
    /// Draw mesh edges over the shading.
    #[arg(long)]
    pub wireframe: bool,
}

pub fn run(args: &RenderArgs) -> Result<()> {
    let size = super::parse_size(&args.size)?;
    let preset = match args.view.as_str() {
        "three-quarter" => Preset::ThreeQuarter,
        "front" => Preset::Front,
        "side" => Preset::Side,
        "top" => Preset::Top,
        other => bail!("--view {other:?}: expected three-quarter, front, side or top"),
    };
    let tracks = scene::load(&args.files)?;
    if tracks.is_empty() {
        bail!("no motion among the files given");
    }
    // `--frame N` and `--frames` count in the first motion's frame period.
    let period = tracks[0].frame_period_s();
    let jobs: Vec<(f64, PathBuf)> = match &args.frames {
        Some(range) => {
            let (a, b) = parse_range(range)?;
            (a..b)
                .map(|f| Ok((f as f64 * period, numbered(&args.out, f)?)))
                .collect::<Result<_>>()?
        }
        None => {
            let time = match args.at.at() {
                Some(At::Time(s)) => s,
                Some(At::Frame(n)) => n as f64 * period,
                None => 0.0,
            };
            vec![(time, args.out.clone())]
        }
    };

    let started = Instant::now();
    let ctx = GpuContext::new()?;
    let mut stage = Stage::new(&ctx, &tracks)?;
    for w in stage.load_warnings() {
        eprintln!("viewer: warning: {w}");
    }
    let (lo, hi) = stage.bounds();
    let mut camera = OrbitCamera::default();
    camera.set_preset(preset);
    camera.frame_bounds_aspect(lo, hi, size[0] as f32 / size[1] as f32);
    let mut renderer = Renderer::new(&ctx, Capture::FORMAT);
    let mut capture = Capture::new(&ctx, size);
    let setup = started.elapsed();

    let progress = if jobs.len() > 1 {
        indicatif::ProgressBar::new(jobs.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let drawing = Instant::now();
    for (time, path) in &jobs {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        stage.pose(&mut encoder, *time);
        ctx.queue.submit([encoder.finish()]);
        for w in stage.warnings(*time) {
            eprintln!("viewer: warning at {time:.3} s: {w}");
        }
        let mut frame = stage.frame_scene(*time);
        frame.wireframe = args.wireframe;
        let image = capture.render(&mut renderer, &camera, &frame)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        image
            .save(path)
            .with_context(|| format!("writing {}", path.display()))?;
        progress.inc(1);
    }
    progress.finish_and_clear();
    let per_frame = drawing.elapsed().as_secs_f64() * 1e3 / jobs.len() as f64;
    eprintln!(
        "viewer: wrote {} picture{} ({}x{}) on {}: setup {:.0} ms, {per_frame:.1} ms per frame",
        jobs.len(),
        if jobs.len() == 1 { "" } else { "s" },
        size[0],
        size[1],
        ctx.adapter_name(),
        setup.as_secs_f64() * 1e3,
    );
    Ok(())
}

/// The pattern with its `{}` or `{:0N}` placeholder replaced by `frame`.
fn numbered(pattern: &Path, frame: u64) -> Result<PathBuf> {
    let text = pattern.to_string_lossy();
    let Some(open) = text.find('{') else {
        bail!("--out {text:?}: a sequence needs a placeholder such as frame_{{:04}}.png");
    };
    let Some(close) = text[open..].find('}').map(|c| open + c) else {
        bail!("--out {text:?}: unclosed '{{'");
    };
    let spec = &text[open + 1..close];
    let width = match spec {
        "" => 0,
        _ => spec
            .strip_prefix(":0")
            .and_then(|w| w.parse::<usize>().ok())
            .with_context(|| format!("--out {text:?}: expected {{}} or {{:0N}}"))?,
    };
    Ok(PathBuf::from(format!(
        "{}{frame:0width$}{}",
        &text[..open],
        &text[close + 1..]
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_pads_and_rejects() {
        assert_eq!(
            numbered(Path::new("d/frame_{:04}.png"), 7).unwrap(),
            PathBuf::from("d/frame_0007.png")
        );
        assert_eq!(
            numbered(Path::new("f{}.png"), 12).unwrap(),
            PathBuf::from("f12.png")
        );
        assert!(numbered(Path::new("plain.png"), 1).is_err());
        assert!(numbered(Path::new("x{:4}.png"), 1).is_err());
    }
}
