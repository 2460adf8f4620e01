//! `viewer export`: the library's exporters, picked by the output's extension.

use super::ExportArgs;
use super::values;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use motion_viewer::export::{self, Options};
use std::time::Instant;

pub fn run(args: &ExportArgs) -> Result<()> {
    let tracks = if args.model.is_some() {
        Vec::new()
    } else {
        super::load(&args.files, motion_viewer::open::Archives::EveryMotion)?
    };
    let frames = args.frames.map(values::FrameRange::pair);
    let bar = progress_bar();
    let deform: Option<export::Deform> = args.gpu.then_some(&motion_viewer::gpu::deform_at);
    let options = Options {
        at: args.at.at(),
        fps: args.fps,
        frames,
        inputs: &args.files,
        force: args.force,
        deform,
        baked: args.baked,
        quantize: args.quantize.is_some(),
        quantize_tolerance: args.quantize.filter(|&e| e > 0.0),
        progress: Some(&|fraction| bar.set_position((fraction * STEPS as f32) as u64)),
        start_time_ns: args.start_time,
        layout: args.layout,
    };
    let started = Instant::now();
    let report = match args.model {
        Some(model) => export::export_model(model, &args.out, &options),
        None => export::export(&tracks, &args.out, &options),
    };
    bar.finish_and_clear();
    let report = report?;
    super::warn_all(&report.warnings);
    for note in &report.notes {
        eprintln!("viewer: {}", motion_viewer::text::escape(note));
    }
    if !report.notes.is_empty() {
        eprintln!("viewer: took {:.2} s", started.elapsed().as_secs_f64());
    }
    Ok(())
}

/// Steps of the progress bar.
const STEPS: u64 = 1000;

/// A bar that shows itself only once an export is told its progress.
fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::new(STEPS);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {wide_bar} {percent:>3}% {elapsed}, ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
