//! `viewer render`: pictures without a window, through the window's
//! pipelines: one PNG, a numbered PNG sequence, an animated GIF, or a video
//! (through ffmpeg).

mod movie;

use super::AtArgs;
use super::values::{FrameRange, Size, View};
use anyhow::{Context, Result, bail};
use motion_viewer::anim::clock;
use motion_viewer::budget;
use motion_viewer::export::png;
use motion_viewer::gpu::BasisFormat;
use motion_viewer::gpu::{Capture, DeformOptions, GpuContext, OrbitCamera, Renderer};
use motion_viewer::open::check_not_input;
use motion_viewer::output::OutputSet;
use motion_viewer::pose::At;
use motion_viewer::scene;
use motion_viewer::scene::camera::Preset;
use motion_viewer::stage::DeformOn;
use motion_viewer::stage::{Stage, StageOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `viewer render`.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// Files to render.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output: a PNG; a pattern such as `dir/frame_{:04}.png` with --frames;
    /// an animated `.gif`; or a video (`.mp4`, `.mov`, `.mkv`, `.webm`, through ffmpeg).
    /// A GIF or video without --frames spans the whole timeline.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub at: AtArgs,
    /// A range of frames `A..B` (B excluded): a numbered PNG sequence, or
    /// the frames of a GIF or video. One render draws at most 100000 frames
    /// and 5e10 pixels in all (docs/cli.md: Limits); more is refused before drawing.
    #[arg(long, value_name = "A..B", conflicts_with_all = ["time", "frame"])]
    pub frames: Option<FrameRange>,
    /// Frames per second: frame N is drawn at N/F seconds, and a GIF or
    /// video plays at F (default: the first motion's own frame period).
    #[arg(long)]
    pub fps: Option<f64>,
    /// Picture size, `WxH`.
    #[arg(long, value_name = "WxH", default_value = "1280x720")]
    pub size: Size,
    /// Viewpoint.
    #[arg(long, value_enum, default_value_t = View::ThreeQuarter)]
    pub view: View,
    /// How tracks stand beside each other (default: `fit` when formats are
    /// mixed, else `true-scale`).
    #[arg(long, value_name = "fit|true-scale")]
    pub layout: Option<scene::Layout>,
    /// Draw mesh edges over the shading.
    #[arg(long)]
    pub wireframe: bool,
    /// Where MEMG meshes are deformed (`auto`: the GPU, but the CPU on a
    /// software adapter or where the GPU cannot hold the motion).
    #[arg(long, value_name = "auto|gpu|cpu", default_value = "auto")]
    pub deform: DeformOn,
    /// How the GPU stores MEMG bases (`f16`: half the bytes per frame).
    #[arg(long, value_name = "f32|f16", default_value = "f32")]
    pub basis: BasisFormat,
}

/// What `--out` asks for.
enum Output {
    Png(PathBuf),
    Sequence,
    Gif(PathBuf),
    Video(PathBuf, &'static str, PathBuf),
}

pub fn run(args: &RenderArgs) -> Result<()> {
    let size = args.size.pair();
    let preset = Preset::from(args.view);
    if let Some(fps) = args.fps
        && !(fps.is_finite() && fps > 0.0 && fps <= 1000.0)
    {
        bail!("--fps {fps}: expected a rate above 0 and at most 1000");
    }
    let layout: Option<scene::Layout> = args.layout;
    let is_gif = args
        .out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gif"));
    let output = match (is_gif, movie::video_format(&args.out)) {
        (true, _) => Output::Gif(args.out.clone()),
        (false, Some(muxer)) => {
            // Before any drawing: say so at once when ffmpeg is missing.
            let ffmpeg = movie::find_ffmpeg().ok_or_else(|| movie::no_ffmpeg(&args.out))?;
            Output::Video(args.out.clone(), muxer, ffmpeg)
        }
        _ if args.frames.is_some() => Output::Sequence,
        _ => Output::Png(args.out.clone()),
    };
    let animated = matches!(output, Output::Gif(_) | Output::Video(..));
    if animated && args.at.at().is_some() {
        bail!(
            "--time and --frame pick one picture; a GIF or video takes --frames A..B (or spans the whole timeline)"
        );
    }
    if !matches!(output, Output::Sequence) {
        check_not_input(&args.out, &args.files, false)?;
    }

    let tracks = super::load(&args.files, motion_viewer::open::Archives::Ask)?;
    if tracks.is_empty() {
        bail!("no motion among the files given");
    }
    let layout = layout.unwrap_or_else(|| scene::auto_layout(&tracks));
    // `--frame N` and `--frames` count in the first motion's frame period, or at --fps.
    let period = args
        .fps
        .map_or_else(|| tracks[0].frame_period_s(), |f| 1.0 / f);
    let duration = tracks
        .iter()
        .map(scene::Track::duration_s)
        .fold(0.0, f64::max);
    // The frames drawn, `first..first + count`, never listed: a range may
    // span 2^64 frames, and is sized below before anything is drawn.
    let (first, count, many) = match (&args.frames, animated) {
        (Some(range), _) => (range.start, range.end - range.start, true),
        (None, true) => {
            let last = clock::last_frame(duration, period);
            let count = if last.is_finite() && last >= 0.0 {
                (last as u64).saturating_add(1)
            } else {
                u64::MAX
            };
            (0, count, true)
        }
        (None, false) => (0, 1, false),
    };
    let one_time = match args.at.at() {
        Some(At::Time(s)) => s,
        Some(At::Frame(n)) => clock::time_of(n, period),
        None => 0.0,
    };
    let time_of = |i: usize| -> f64 {
        if many {
            clock::time_of(first + i as u64, period)
        } else {
            one_time
        }
    };
    budget::RenderRequest {
        frames: count,
        size,
    }
    .check(&args.out)?;
    check_frame_cost(&tracks, size)?;
    // Within the caps, so it fits a usize.
    let count = count as usize;

    let started = Instant::now();
    let ctx = GpuContext::new()?;
    let options = StageOptions {
        layout,
        deform_on: args.deform,
        deform: DeformOptions {
            basis: args.basis,
            edges: args.wireframe,
            ..DeformOptions::default()
        },
    };
    // The stage takes the tracks: a motion uploaded to the GPU is freed there.
    let mut stage = Stage::from_tracks(&ctx, tracks, &options)?;
    for w in stage.load_warnings() {
        super::warn(w);
    }
    let (lo, hi) = stage.bounds();
    let mut camera = OrbitCamera::default();
    camera.set_preset(preset);
    camera.frame_bounds_aspect(lo, hi, size[0] as f32 / size[1] as f32);
    let mut renderer = Renderer::new(&ctx, Capture::FORMAT);
    let mut capture = Capture::new(&ctx, size);
    let setup = started.elapsed();

    let progress = progress_bar(count);
    let mut said = std::collections::HashSet::new();
    let mut draw = |i: usize| -> Result<image::RgbaImage> {
        let time = time_of(i);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        stage.pose(&mut encoder, time);
        ctx.queue.submit([encoder.finish()]);
        for w in stage.warnings(time) {
            // One warning per cause: a joint past its limit for a hundred
            // frames is said at the first.
            if said.insert(cause_of(&w)) {
                progress.suspend(|| super::warn(&format!("at {time:.3} s: {w}")));
            }
        }
        let mut frame = stage.frame_scene(time);
        frame.wireframe = args.wireframe;
        let picture = capture.render(&mut renderer, &camera, &frame)?;
        progress.inc(1);
        Ok(picture)
    };
    let drawing = Instant::now();
    let fps = 1.0 / period;
    match &output {
        Output::Png(path) => png::write(path, &draw(0)?)?,
        Output::Sequence => {
            // Every picture appears once all are drawn, or none does (each
            // is closed as soon as written: no descriptor held per frame).
            let mut set = OutputSet::new();
            for i in 0..count {
                let path = numbered(&args.out, first + i as u64)?;
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("creating {}", dir.display()))?;
                }
                check_not_input(&path, &args.files, false)?;
                let picture = draw(i)?;
                let out = set.add(&path)?;
                png::encode(&picture, out.writer())
                    .map_err(|e| motion_viewer::Error::io(&path, e))?;
                out.close()?;
            }
            set.commit()?;
        }
        Output::Gif(path) => {
            let (_, plays_at) = movie::gif_delay(fps);
            if (plays_at - fps).abs() > 0.05 * fps {
                eprintln!(
                    "viewer: note: GIF frame delays are whole hundredths of a second; \
                     {fps:.2} fps plays at {plays_at:.2} fps (--fps 25 or 50 play exactly)"
                );
            }
            movie::write_gif(path, size, fps, count, &mut draw)?;
        }
        Output::Video(path, muxer, ffmpeg) => {
            movie::write_video(ffmpeg, path, muxer, size, fps, count, &mut draw)?;
        }
    }
    progress.finish_and_clear();
    let per_frame = drawing.elapsed().as_secs_f64() * 1e3 / count as f64;
    let what = match &output {
        Output::Gif(p) | Output::Video(p, ..) => {
            format!("{} ({count} frames)", p.display())
        }
        Output::Png(p) => p.display().to_string(),
        Output::Sequence => format!("{count} pictures"),
    };
    let line = format!(
        "viewer: wrote {what} ({}x{}, layout {layout}) on {}: setup {:.0} ms, {per_frame:.1} ms per frame",
        size[0],
        size[1],
        ctx.adapter_name(),
        setup.as_secs_f64() * 1e3,
    );
    eprintln!("{}", motion_viewer::text::escape(&line));
    Ok(())
}

/// Refuses, before any drawing, a frame whose meshes are estimated to cost
/// more than 10⁹ fragments at `size` (a small file of
/// triangles stacked on each other), naming the file.
fn check_frame_cost(tracks: &[scene::Track], size: [u32; 2]) -> Result<()> {
    for track in tracks {
        if let scene::Track::Memg {
            scene, obj_path, ..
        } = track
        {
            let fragments = budget::frame_fragments(&scene.positions, &scene.triangles, size);
            budget::check_frame_cost(obj_path, scene.triangles.len(), fragments, size)?;
        }
    }
    Ok(())
}

/// A bar with the frames done and the time left, drawn on a terminal only
/// (indicatif draws nothing when stderr is not one); none for one picture.
fn progress_bar(frames: usize) -> indicatif::ProgressBar {
    if frames < 2 {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(frames as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{wide_bar} {pos}/{len} frames, {elapsed} so far, ETA {eta}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// What a warning is about, without its numbers: `ERS-210 left front j1 =
/// 95.00° is beyond…` and the same joint at 96.10° are one cause.
fn cause_of(warning: &str) -> String {
    warning
        .split(' ')
        .map(|word| {
            let bare = word.trim_matches(|c: char| "°:,;()".contains(c));
            if bare.parse::<f64>().is_ok() {
                "#"
            } else {
                word
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
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
    fn warnings_differing_only_in_numbers_are_one_cause() {
        let a = cause_of("sit: ERS-210 left front j1 = 95.00° is beyond its limit -120..120°");
        let b = cause_of("sit: ERS-210 left front j1 = 101.5° is beyond its limit -120..120°");
        let c = cause_of("sit: ERS-210 left front j2 = 95.00° is beyond its limit -120..120°");
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

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
