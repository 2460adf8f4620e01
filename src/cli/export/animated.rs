//! `viewer export … --out x.glb | x.gltf | x.pc2`: the whole motion, with a
//! progress bar while it is written.

use super::ExportArgs;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use motion_viewer::export::file::check_not_input;
use motion_viewer::export::pc2;
use motion_viewer::scene::Track;
use std::time::Instant;

/// Steps of the progress bar.
const STEPS: u64 = 1000;

fn bar() -> ProgressBar {
    let bar = ProgressBar::new(STEPS);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {wide_bar} {percent:>3}% {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

fn mib(bytes: u64) -> String {
    format!("{:.2} MiB", bytes as f64 / (1 << 20) as f64)
}

/// `--out scene.glb` or `scene.gltf`.
#[cfg(feature = "gltf")]
pub fn gltf(tracks: &[Track], args: &ExportArgs) -> Result<()> {
    use motion_viewer::export::gltf::{GltfOptions, write};
    use motion_viewer::scene::Plan;
    check_not_input(&args.out, &args.files, false)?;
    let plan = Plan::new(tracks)?;
    let bar = bar();
    let start = Instant::now();
    let options = GltfOptions { baked: args.baked };
    let report = write(tracks, &plan, &options, &args.out, &mut |f| {
        bar.set_position((f.clamp(0.0, 1.0) * STEPS as f32) as u64)
    });
    bar.finish_and_clear();
    let report = report?;
    for w in &report.warnings {
        eprintln!("viewer: warning: {w}");
    }
    let files: Vec<String> = report
        .files
        .iter()
        .map(|(p, n)| format!("{} ({})", p.display(), mib(*n)))
        .collect();
    eprintln!(
        "wrote {} in {:.2} s: {} nodes, {} meshes, {} morph targets, {} channels",
        files.join(" + "),
        start.elapsed().as_secs_f64(),
        report.nodes,
        report.meshes,
        report.morph_targets,
        report.channels
    );
    for track in tracks {
        if let Track::Memg {
            motion,
            motion_path,
            ..
        } = track
        {
            let uq: u64 = motion
                .groups
                .iter()
                .map(|g| 4 * (g.basis.len() + g.coeffs.len()) as u64)
                .sum();
            let bin = std::fs::metadata(motion_path).map_or(0, |m| m.len());
            eprintln!(
                "  {}: {} as read, U and Q as f32 {}",
                motion_path.display(),
                mib(bin),
                mib(uq)
            );
        }
    }
    Ok(())
}

/// `--out motion.pc2`.
pub fn pc2(tracks: &[Track], args: &ExportArgs) -> Result<()> {
    check_not_input(&args.out, &args.files, false)?;
    let bar = bar();
    let start = Instant::now();
    let report = pc2::write(tracks, &args.out, &mut |f| {
        bar.set_position((f.clamp(0.0, 1.0) * STEPS as f32) as u64)
    });
    bar.finish_and_clear();
    let report = report?;
    for w in &report.warnings {
        eprintln!("viewer: warning: {w}");
    }
    eprintln!(
        "wrote {} ({}) in {:.2} s: {} vertices × {} frames",
        report.file.0.display(),
        mib(report.file.1),
        start.elapsed().as_secs_f64(),
        report.vertices,
        report.frames
    );
    Ok(())
}
