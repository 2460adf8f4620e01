//! GPU deformation frames, with the adapter opened once per bench.

use super::Timer;
use motion_viewer::anim::memg::Binding;
use motion_viewer::error::Result;
use motion_viewer::formats::obj::ObjScene;
use std::path::Path;
use std::sync::Arc;

/// What one motion's GPU measurement found; everything `None` without an adapter.
#[derive(Debug, Default)]
pub(super) struct GpuFigures {
    /// Seconds per frame: deformation, normals, submit and wait.
    pub secs: Option<f64>,
    /// The adapter's name and backend.
    pub adapter: Option<String>,
    /// Bytes of basis on the GPU.
    pub basis_bytes: Option<u64>,
    /// How the basis is stored.
    pub basis_format: Option<String>,
}

/// The GPU adapter, opened on first use.
#[derive(Default)]
pub(super) struct GpuBench {
    ctx: Option<Option<motion_viewer::gpu::GpuContext>>,
    /// How the basis is stored on the GPU.
    pub basis: motion_viewer::gpu::BasisFormat,
}

impl GpuBench {
    /// Times GPU frames of the motion in the file at `path`, its basis
    /// uploaded straight from the file's map. `scene` is dropped once its
    /// mesh is on the GPU (on a CPU adapter the GPU's buffers are main
    /// memory: the scene's arrays beside them would be a second copy). No
    /// adapter, or a motion too large for it, is a note and empty figures,
    /// not a failed bench.
    pub fn frame(
        &mut self,
        timer: &Timer<'_>,
        scene: Arc<ObjScene>,
        path: &Path,
        binding: &Binding,
        next_t: &mut impl FnMut() -> f64,
    ) -> Result<GpuFigures> {
        use motion_viewer::formats::memg::MappedMemg;
        use motion_viewer::gpu::{DeformOptions, GpuContext, GpuDeformer, GpuMesh};
        let progress = timer.progress();
        let ctx = self.ctx.get_or_insert_with(|| {
            progress.status("opening a GPU adapter");
            GpuContext::new()
                .inspect_err(|e| progress.note(&format!("{e}; GPU figures are null")))
                .ok()
        });
        let Some(ctx) = ctx else {
            return Ok(GpuFigures::default());
        };
        let adapter = ctx.adapter_name();
        progress.status(&format!("uploading to {adapter}"));
        let source = MappedMemg::open(path)?;
        let options = DeformOptions {
            basis: self.basis,
            ..DeformOptions::default()
        };
        let uploaded = GpuMesh::new(ctx, &scene, &options.mesh()).and_then(|mesh| {
            drop(scene);
            GpuDeformer::on_mesh(ctx, mesh, &source, binding, options)
        });
        let mut deformer = match uploaded {
            Ok(d) => d,
            Err(e) => {
                progress.note(&format!("{adapter}: {e}; GPU figures are null"));
                return Ok(GpuFigures {
                    adapter: Some(adapter),
                    ..GpuFigures::default()
                });
            }
        };
        // The file unchanged while the basis was read from its map.
        source.check()?;
        drop(source);
        timer.plan(1);
        let secs = timer.secs_per_call("GPU deformation", || {
            deformer.update(next_t());
            ctx.wait()
        })?;
        Ok(GpuFigures {
            secs: Some(secs),
            adapter: Some(adapter),
            basis_bytes: Some(deformer.basis_bytes()),
            basis_format: Some(self.basis.to_string()),
        })
    }
}
