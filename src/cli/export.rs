//! `viewer export`: the library's exporters, picked by the output's extension.

use super::{ExportArgs, parse_range};
use anyhow::Result;
use motion_viewer::export::{self, Options};
use motion_viewer::scene;

pub fn run(args: &ExportArgs) -> Result<()> {
    let tracks = scene::load(&args.files)?;
    let frames = args.frames.as_deref().map(parse_range).transpose()?;
    #[cfg(feature = "gpu")]
    let deform: Option<export::obj::Deform> = args.gpu.then_some(&motion_viewer::gpu::deform_at);
    #[cfg(not(feature = "gpu"))]
    let deform: Option<export::obj::Deform> = None;
    #[cfg(not(feature = "gpu"))]
    if args.gpu {
        eprintln!(
            "viewer: warning: this viewer was built without the `gpu` feature; deforming on the CPU"
        );
    }
    let options = Options {
        at: args.at.at(),
        fps: args.fps,
        frames,
        inputs: &args.files,
        force: args.force,
        deform,
    };
    let report = export::export(&tracks, &args.out, &options)?;
    for w in &report.warnings {
        eprintln!("viewer: warning: {w}");
    }
    Ok(())
}
