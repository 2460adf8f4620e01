//! Throughput measurements behind `viewer bench`: decoding and deformation,
//! each beside the limit it is compared with.
//!
//! Every figure is the median of a number of timed batches, and each is taken
//! in the same process as its limit, so the ratios hold even on a busy machine:
//! - decoding is timed from the file's bytes already in memory (read once
//!   first), beside a `copy_from_slice` of the same bytes into a buffer
//!   allocated beforehand; a MEMG file too large to hold twice is read through
//!   its memory map instead, for both ([`DecodeFrom`]). MEMG is also timed
//!   through [`motion_viewer::formats::memg::load`] (the memory-mapped path the
//!   viewer uses, the file in the page cache) and through
//!   [`motion_viewer::formats::memg::decode_into`] a motion decoded before, whose
//!   arrays it reuses (a viewer reloading a file: no fresh pages to fault in);
//! - CPU deformation is compared with a streaming read of the basis U (the
//!   bound: every frame must read U once);
//! - GPU deformation is one frame submitted and waited for, the basis
//!   uploaded straight from the file's map.
//!
//! Each motion's decoded arrays are held once at a time: a MEMG motion is
//! decoded for the CPU figures and dropped before the GPU's copy is made, and
//! the scene's own arrays are dropped once the GPU holds the mesh, so a
//! scene of ten million vertices is measured within 1.5× its motion's `f32`
//! size (BENCHMARKS.md).

mod curves;
mod gpu;
mod memg;
mod results;
mod timer;

pub use results::{CurveRow, DecodeFrom, Detail, MemgRow, Row};
pub use timer::{Progress, Timer};

use motion_viewer::error::{Error, Result};
use motion_viewer::formats::ByteOrder;
use motion_viewer::open::Input;
use motion_viewer::scene::Track;
use motion_viewer::synthetic::{self, Spec};
use std::hint::black_box;

/// A bench session: the timer, and the GPU adapter once opened.
pub struct Bench<'a> {
    timer: Timer<'a>,
    gpu: gpu::GpuBench,
}

impl<'a> Bench<'a> {
    /// Takes the median of `runs` batches per figure, reporting to `progress`.
    pub fn new(runs: usize, progress: &'a dyn Progress) -> Bench<'a> {
        Bench {
            timer: Timer::new(runs, progress),
            gpu: gpu::GpuBench::default(),
        }
    }

    /// Stores the basis on the GPU as `basis` (`f32` by default).
    pub fn set_gpu_basis(&mut self, basis: motion_viewer::gpu::BasisFormat) {
        self.gpu.basis = basis;
    }

    /// Measures one loaded motion; its file is read again for the decode
    /// timings (a MEMG motion's decoded arrays are dropped first, and decoded
    /// again by the bench).
    pub fn track(&mut self, track: Track) -> Result<Row> {
        let name = track.name();
        match track {
            Track::Memg {
                scene,
                motion,
                motion_path,
                ..
            } => {
                drop(motion);
                memg::bench(self, name, &motion_path, scene)
            }
            // An archive entry (`ARCHIVE.ODA:NAME`) is timed on its own bytes.
            Track::Mtn { path, motion, .. } => curves::mtn(
                &self.timer,
                name,
                &Input::read(&path)?.named_bytes()?,
                &motion,
            ),
            Track::InputAnimation { path, recording } => curves::input_animation(
                &self.timer,
                name,
                &Input::read(&path)?.named_bytes()?,
                &recording,
            ),
        }
    }

    /// Generates the scene of `spec`, writes its motion to a temporary file,
    /// and measures it as it reads back.
    pub fn synthetic(&mut self, spec: Spec) -> Result<Row> {
        let name = spec.name();
        let progress = self.timer.progress();
        progress.status(&format!("generating {name}"));
        let (scene, motion) = synthetic::generate(spec);
        // A fresh name created exclusively (never a link planted at a
        // predictable one), removed when `file` drops, error or not.
        let dir = std::env::temp_dir();
        let file = tempfile::Builder::new()
            .prefix(&format!("viewer-bench-{name}-"))
            .suffix(".memg")
            .tempfile_in(&dir)
            .map_err(|e| Error::io(&dir, e))?;
        progress.status(&format!("writing {}", file.path().display()));
        let written = {
            let mut out = std::io::BufWriter::new(file.as_file());
            motion_viewer::formats::memg::write(&motion, ByteOrder::Little, &mut out)
                .and_then(|()| std::io::Write::flush(&mut out))
        };
        written.map_err(|e| Error::io(file.path(), e))?;
        // The bench decodes the file itself; the generated arrays would be a second copy.
        drop(motion);
        memg::bench(self, name, file.path(), std::sync::Arc::new(scene))
    }
}

/// Seconds per decode of `bytes` into fresh output and per memcpy of the same
/// bytes into a buffer allocated beforehand.
fn decode_and_memcpy(
    bytes: &[u8],
    timer: &Timer<'_>,
    mut decode: impl FnMut(&[u8]) -> Result<()>,
) -> Result<(f64, f64)> {
    let decode_s = timer.secs_per_call("decode", || decode(black_box(bytes)))?;
    let mut copy = vec![0u8; bytes.len()];
    let memcpy_s = timer.secs_per_call("memcpy", || {
        copy.copy_from_slice(black_box(bytes));
        black_box(&mut copy);
        Ok(())
    })?;
    Ok((decode_s, memcpy_s))
}

/// MB per second for `bytes` in `secs`.
fn mb_s(bytes: u64, secs: f64) -> f64 {
    bytes as f64 / 1e6 / secs
}
