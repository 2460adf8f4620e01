//! `viewer bench`: decode and deformation throughput beside their limits.
//!
//! Every figure is the median of `--runs` timed batches, and each is taken in
//! the same process as the limit it is compared with, so the ratios hold even
//! on a busy machine:
//! - decoding is timed from the file's bytes already in memory (read once
//!   first), beside a `copy_from_slice` of the same bytes into a buffer
//!   allocated beforehand; MEMG is also timed through [`memg::load`], the
//!   memory-mapped path the viewer uses, with the file in the page cache, and
//!   through [`memg::decode_into`] into a motion decoded before, whose arrays
//!   it reuses (a viewer reloading a file): no fresh pages to fault in;
//! - CPU deformation is compared with a streaming read of the basis U
//!   (the bound: every frame must read U once);
//! - GPU deformation is one frame submitted and waited for.

mod measure;

use anyhow::{Context, Result};
use clap::builder::TypedValueParser as _;
use measure::Timer;
use motion_viewer::anim::{self, memg::Binding};
use motion_viewer::formats::bytes::ByteOrder;
use motion_viewer::formats::input_animation;
use motion_viewer::formats::input_animation::InputAnimation;
use motion_viewer::formats::memg::{self, MemgMotion};
use motion_viewer::formats::mtn::{self, Mtn};
use motion_viewer::formats::obj::ObjScene;
use motion_viewer::scene::{self, Track};
use motion_viewer::synthetic::{self, streaming_sum};
use serde::Serialize;
use std::hint::black_box;
use std::path::{Path, PathBuf};

/// Arguments of `viewer bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Motion files to measure (a MEMG motion with its .obj).
    #[arg(required_unless_present = "synthetic")]
    pub files: Vec<PathBuf>,
    /// Print a JSON array, one object per motion.
    #[arg(long)]
    pub json: bool,
    /// Runs per measurement; the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..).map(usize::from))]
    pub runs: usize,
    /// Generate a MEMG scene in memory instead: `VERTICESxBASISxFRAMES`, e.g. `1000000x32x300`.
    #[arg(long, conflicts_with = "files")]
    pub synthetic: Option<String>,
}

/// One motion's results, as `--json` prints them.
#[derive(Debug, Serialize)]
struct Row {
    name: String,
    format: &'static str,
    /// Size of the motion file.
    bytes: u64,
    /// Decoding from the bytes in memory.
    decode_mb_s: f64,
    /// `copy_from_slice` of the same number of bytes.
    memcpy_mb_s: f64,
    decode_vs_memcpy: f64,
    #[serde(flatten)]
    detail: Detail,
}

/// What is measured beyond decoding, by kind of motion.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Detail {
    Memg(MemgRow),
    Curves(CurveRow),
}

/// Deformation of a MEMG motion.
#[derive(Debug, Serialize)]
struct MemgRow {
    /// Motion vertices of the groups bound to the scene (those deformed).
    vertices: usize,
    /// The largest basis size r among them.
    basis: usize,
    /// [`memg::load`] (memory-mapped, page cache warm), MB of file per second.
    mmap_decode_mb_s: f64,
    /// [`memg::decode_into`] a motion whose arrays it reuses, MB of file per second.
    decode_reuse_mb_s: f64,
    /// `decode_reuse_mb_s / memcpy_mb_s`.
    decode_reuse_vs_memcpy: f64,
    cpu_deform_fps: f64,
    /// `null` without a GPU adapter.
    gpu_deform_fps: Option<f64>,
    /// Bytes of U (as f32) × CPU frames per second.
    basis_gb_s: f64,
    /// The same for the GPU.
    gpu_basis_gb_s: Option<f64>,
    /// A streaming read of U: the bound on `basis_gb_s`.
    read_gb_s: f64,
    /// `basis_gb_s / read_gb_s`: 1 is deformation at memory speed.
    cpu_deform_vs_bound: f64,
    gpu_adapter: Option<String>,
}

/// Sampling of `.mtn` keyframes or MRTK curves.
#[derive(Debug, Serialize)]
struct CurveRow {
    /// Files decoded per second.
    files_s: f64,
    /// Curves (channels) one sample evaluates.
    channels: usize,
    /// `pose_at` / `state_at` calls × channels, per second.
    samples_s: f64,
}

pub fn run(args: &BenchArgs) -> Result<()> {
    let timer = Timer::new(args.runs);
    let mut gpu = Gpu::default();
    let rows = match &args.synthetic {
        Some(spec) => {
            let spec = synthetic::Spec::parse(spec).map_err(anyhow::Error::msg)?;
            vec![bench_synthetic(spec, &timer, &mut gpu)?]
        }
        None => {
            let tracks = scene::load(&args.files)?;
            let mut rows = Vec::with_capacity(tracks.len());
            for track in &tracks {
                rows.push(bench_track(track, &timer, &mut gpu)?);
            }
            rows
        }
    };
    timer.finish();
    if args.json {
        super::print_stdout(&(serde_json::to_string_pretty(&rows)? + "\n"))?;
    } else {
        print_tables(&rows, args.runs);
    }
    Ok(())
}

/// Measures one loaded motion; its file is read again for the decode timings.
fn bench_track(track: &Track, timer: &Timer, gpu: &mut Gpu) -> Result<Row> {
    let path = track.path();
    let bytes = scene::archive::read_bytes(path)?;
    let name = track.name();
    match track {
        Track::Memg { scene, motion, .. } => {
            bench_memg(name, path, bytes, scene, motion, timer, gpu)
        }
        Track::Mtn { motion, .. } => bench_mtn(name, &bytes, motion, timer),
        Track::InputAnimation { recording, .. } => {
            bench_input_animation(name, &bytes, recording, timer)
        }
    }
}

/// Generates the scene, writes its motion to a temporary file, and measures it
/// as it reads back.
fn bench_synthetic(spec: synthetic::Spec, timer: &Timer, gpu: &mut Gpu) -> Result<Row> {
    let name = format!("synthetic-{}x{}x{}", spec.vertices, spec.basis, spec.frames);
    timer.status(format!("generating {name}"));
    let (scene, generated) = synthetic::generate(spec);
    let file = TempFile(
        std::env::temp_dir().join(format!("viewer-bench-{}-{name}.memg", std::process::id())),
    );
    timer.status(format!("writing {}", file.0.display()));
    let encoded = memg::encode(&generated, ByteOrder::Little);
    drop(generated);
    std::fs::write(&file.0, &encoded).with_context(|| format!("writing {}", file.0.display()))?;
    drop(encoded);
    let bytes = std::fs::read(&file.0).with_context(|| format!("reading {}", file.0.display()))?;
    let motion = memg::decode(&bytes).context("decoding the synthetic motion")?;
    bench_memg(name, &file.0, bytes, &scene, &motion, timer, gpu)
}

/// A file removed when dropped, error or not.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Decode rate and the memcpy of the same bytes, in MB/s.
fn decode_and_memcpy(
    bytes: &[u8],
    timer: &Timer,
    mut decode: impl FnMut(&[u8]) -> Result<()>,
) -> Result<(f64, f64)> {
    let mb = bytes.len() as f64 / 1e6;
    let decode_s = timer.secs_per_call("decode", || decode(black_box(bytes)))?;
    let mut copy = vec![0u8; bytes.len()];
    let memcpy_s = timer.secs_per_call("memcpy", || {
        copy.copy_from_slice(black_box(bytes));
        black_box(&mut copy);
        Ok(())
    })?;
    Ok((mb / decode_s, mb / memcpy_s))
}

fn bench_memg(
    name: String,
    path: &Path,
    bytes: Vec<u8>,
    scene: &ObjScene,
    motion: &MemgMotion,
    timer: &Timer,
    gpu: &mut Gpu,
) -> Result<Row> {
    timer.plan(6);
    let (decode_mb_s, memcpy_mb_s) = decode_and_memcpy(&bytes, timer, |b| {
        drop(black_box(memg::decode(b)?));
        Ok(())
    })?;
    let file_bytes = bytes.len() as u64;
    // The warm-up batch sizes the arrays; the timed ones overwrite them in place.
    let mut reused = MemgMotion::default();
    let reuse_s = timer.secs_per_call("decode into a reused motion", || {
        memg::decode_into(black_box(&bytes), &mut reused)?;
        black_box(&mut reused);
        Ok(())
    })?;
    drop(reused);
    let decode_reuse_mb_s = file_bytes as f64 / 1e6 / reuse_s;
    // The copies are hundreds of megabytes for large motions: free them before
    // the deformation buffers are built.
    drop(bytes);
    let mmap_s = timer.secs_per_call("decode via mmap", || {
        drop(black_box(memg::load(path)?));
        Ok(())
    })?;

    let binding = Binding::new(scene, motion).map_err(anyhow::Error::msg)?;
    let bound: Vec<_> = motion
        .groups
        .iter()
        .zip(&binding.groups)
        .filter(|(_, b)| b.is_some())
        .map(|(g, _)| g)
        .collect();
    let vertices = bound.iter().map(|g| g.vertex_count()).sum();
    let basis = bound.iter().map(|g| g.basis_len).max().unwrap_or(0);
    let basis_gb = bound.iter().map(|g| 4 * g.basis.len()).sum::<usize>() as f64 / 1e9;

    // Fractional times, so every frame blends two timesteps as playback does.
    let last = motion.timesteps.saturating_sub(1) as f64;
    let mut t = 0.0;
    let mut next_t = move || {
        t = if last > 0.0 { (t + 0.37) % last } else { 0.0 };
        t
    };
    let mut positions = Vec::new();
    // The scratch a viewer keeps from frame to frame.
    let mut deformer = anim::memg::Deformer::new();
    let cpu_s = timer.secs_per_call("CPU deformation", || {
        deformer.deform(scene, motion, &binding, next_t(), &mut positions);
        black_box(&mut positions);
        Ok(())
    })?;
    let read_s = timer.secs_per_call("streaming read of U", || {
        for g in &bound {
            black_box(streaming_sum(black_box(&g.basis)));
        }
        Ok(())
    })?;
    let (gpu_s, gpu_adapter) = gpu.frame_secs(scene, motion, &binding, timer, &mut next_t)?;

    let cpu_deform_fps = 1.0 / cpu_s;
    let gpu_deform_fps = gpu_s.map(|s| 1.0 / s);
    Ok(Row {
        name,
        format: "memg",
        bytes: file_bytes,
        decode_mb_s,
        memcpy_mb_s,
        decode_vs_memcpy: decode_mb_s / memcpy_mb_s,
        detail: Detail::Memg(MemgRow {
            vertices,
            basis,
            mmap_decode_mb_s: file_bytes as f64 / 1e6 / mmap_s,
            decode_reuse_mb_s,
            decode_reuse_vs_memcpy: decode_reuse_mb_s / memcpy_mb_s,
            cpu_deform_fps,
            gpu_deform_fps,
            basis_gb_s: basis_gb * cpu_deform_fps,
            gpu_basis_gb_s: gpu_deform_fps.map(|fps| basis_gb * fps),
            read_gb_s: basis_gb / read_s,
            cpu_deform_vs_bound: read_s / cpu_s,
            gpu_adapter,
        }),
    })
}

fn bench_mtn(name: String, bytes: &[u8], motion: &Mtn, timer: &Timer) -> Result<Row> {
    timer.plan(3);
    let (decode_mb_s, memcpy_mb_s) = decode_and_memcpy(bytes, timer, |b| {
        drop(black_box(mtn::decode(b)?));
        Ok(())
    })?;
    // Body roll, pitch and yaw, then one angle per joint.
    let channels = 3 + motion.joints.len();
    let duration = motion.duration_s();
    let pose_s = sample_secs(timer, duration, |t| {
        drop(black_box(anim::mtn::pose_at(motion, t)));
    })?;
    Ok(curve_row(
        name,
        "mtn",
        bytes,
        decode_mb_s,
        memcpy_mb_s,
        channels,
        pose_s,
    ))
}

fn bench_input_animation(
    name: String,
    bytes: &[u8],
    recording: &InputAnimation,
    timer: &Timer,
) -> Result<Row> {
    timer.plan(3);
    let (decode_mb_s, memcpy_mb_s) = decode_and_memcpy(bytes, timer, |b| {
        drop(black_box(input_animation::decode(b)?));
        Ok(())
    })?;
    let channels = recording.float_curves().len() + recording.bool_curves().len();
    let duration = anim::input_animation::duration_s(recording);
    let state_s = sample_secs(timer, duration, |t| {
        black_box(anim::input_animation::state_at(recording, t));
    })?;
    Ok(curve_row(
        name,
        "input-animation",
        bytes,
        decode_mb_s,
        memcpy_mb_s,
        channels,
        state_s,
    ))
}

/// Seconds per call of `sample`, at times walking through `0..=duration` in
/// uneven steps so calls land in every segment, not one cached spot.
fn sample_secs(timer: &Timer, duration: f64, mut sample: impl FnMut(f64)) -> Result<f64> {
    let step = duration.max(0.0) * 0.0137;
    let mut t = 0.0;
    timer.secs_per_call("sampling", || {
        t += step;
        if t > duration {
            t = 0.0;
        }
        sample(black_box(t));
        Ok(())
    })
}

fn curve_row(
    name: String,
    format: &'static str,
    bytes: &[u8],
    decode_mb_s: f64,
    memcpy_mb_s: f64,
    channels: usize,
    sample_s: f64,
) -> Row {
    Row {
        name,
        format,
        bytes: bytes.len() as u64,
        decode_mb_s,
        memcpy_mb_s,
        decode_vs_memcpy: decode_mb_s / memcpy_mb_s,
        detail: Detail::Curves(CurveRow {
            files_s: decode_mb_s * 1e6 / bytes.len().max(1) as f64,
            channels,
            samples_s: channels as f64 / sample_s,
        }),
    }
}

/// The GPU adapter, opened on first use; `None` (noted once on stderr) when
/// there is none or the viewer was built without the `gpu` feature.
#[derive(Default)]
struct Gpu {
    #[cfg(feature = "gpu")]
    ctx: Option<Option<motion_viewer::gpu::GpuContext>>,
}

impl Gpu {
    /// Seconds per deformed frame (dispatch, normals, wait) and the adapter's name.
    #[cfg(feature = "gpu")]
    fn frame_secs(
        &mut self,
        scene: &ObjScene,
        motion: &MemgMotion,
        binding: &Binding,
        timer: &Timer,
        next_t: &mut impl FnMut() -> f64,
    ) -> Result<(Option<f64>, Option<String>)> {
        use motion_viewer::gpu::{DeformOptions, GpuContext, GpuDeformer};
        let ctx = self.ctx.get_or_insert_with(|| {
            timer.status("opening a GPU adapter".into());
            GpuContext::new()
                .inspect_err(|e| {
                    eprintln!("viewer bench: {e}; GPU figures are null");
                })
                .ok()
        });
        let Some(ctx) = ctx else {
            return Ok((None, None));
        };
        let adapter = ctx.adapter_name();
        timer.status(format!("uploading to {adapter}"));
        let mut deformer =
            match GpuDeformer::new(ctx, scene, motion, binding, DeformOptions::default()) {
                Ok(d) => d,
                Err(e) => {
                    // Too big for this adapter is a result, not a failed bench.
                    eprintln!("viewer bench: {adapter}: {e}; GPU figures are null");
                    return Ok((None, Some(adapter)));
                }
            };
        timer.plan(1);
        let secs = timer.secs_per_call("GPU deformation", || {
            deformer.update(next_t());
            Ok(ctx.wait()?)
        })?;
        Ok((Some(secs), Some(adapter)))
    }

    /// Without the `gpu` feature there is nothing to measure.
    #[cfg(not(feature = "gpu"))]
    fn frame_secs(
        &mut self,
        _scene: &ObjScene,
        _motion: &MemgMotion,
        _binding: &Binding,
        _timer: &Timer,
        _next_t: &mut impl FnMut() -> f64,
    ) -> Result<(Option<f64>, Option<String>)> {
        eprintln!("viewer bench: built without the `gpu` feature; GPU figures are null");
        Ok((None, None))
    }
}

/// Prints MEMG rows and curve rows as two aligned tables.
fn print_tables(rows: &[Row], runs: usize) {
    println!(
        "median of {runs} runs; decode from the file's bytes in memory, memcpy = copy_from_slice of as many bytes; {} CPU threads",
        rayon::current_num_threads()
    );
    let memg: Vec<(&Row, &MemgRow)> = rows
        .iter()
        .filter_map(|r| match &r.detail {
            Detail::Memg(m) => Some((r, m)),
            Detail::Curves(_) => None,
        })
        .collect();
    if !memg.is_empty() {
        println!();
        println!(
            "{:<28} {:>9} {:>9} {:>9} {:>6} {:>9} {:>6} {:>9} {:>9} {:>5} {:>9} {:>8} {:>8} {:>6} {:>9} {:>8}",
            "MEMG",
            "MB",
            "decode",
            "memcpy",
            "ratio",
            "reuse",
            "ratio",
            "mmap",
            "vertices",
            "r",
            "CPU fps",
            "U GB/s",
            "read",
            "bound",
            "GPU fps",
            "GPU GB/s"
        );
        for (r, m) in &memg {
            println!(
                "{:<28} {:>9.1} {:>9.0} {:>9.0} {:>6.2} {:>9.0} {:>6.2} {:>9.0} {:>9} {:>5} {:>9.1} {:>8.2} {:>8.2} {:>6.2} {:>9} {:>8}",
                r.name,
                r.bytes as f64 / 1e6,
                r.decode_mb_s,
                r.memcpy_mb_s,
                r.decode_vs_memcpy,
                m.decode_reuse_mb_s,
                m.decode_reuse_vs_memcpy,
                m.mmap_decode_mb_s,
                m.vertices,
                m.basis,
                m.cpu_deform_fps,
                m.basis_gb_s,
                m.read_gb_s,
                m.cpu_deform_vs_bound,
                optional(m.gpu_deform_fps, 1),
                optional(m.gpu_basis_gb_s, 2),
            );
        }
        println!(
            "(MB/s for decode, memcpy, reuse and mmap; ratio = decode/memcpy, then reuse/memcpy (decode_into a motion whose arrays it reuses); read = streaming read of U in GB/s; bound = U GB/s / read)"
        );
        for adapter in memg
            .iter()
            .filter_map(|(_, m)| m.gpu_adapter.as_ref())
            .take(1)
        {
            println!(
                "GPU adapter: {adapter}; a GPU frame is deformation, normals, submit and wait"
            );
        }
    }
    let curves: Vec<(&Row, &CurveRow)> = rows
        .iter()
        .filter_map(|r| match &r.detail {
            Detail::Curves(c) => Some((r, c)),
            Detail::Memg(_) => None,
        })
        .collect();
    if !curves.is_empty() {
        println!();
        println!(
            "{:<32} {:<15} {:>9} {:>10} {:>10} {:>6} {:>10} {:>9} {:>12}",
            "motion",
            "format",
            "bytes",
            "decode",
            "memcpy",
            "ratio",
            "files/s",
            "channels",
            "samples/s"
        );
        for (r, c) in curves {
            println!(
                "{:<32} {:<15} {:>9} {:>10.1} {:>10.1} {:>6.3} {:>10.0} {:>9} {:>12.0}",
                r.name,
                r.format,
                r.bytes,
                r.decode_mb_s,
                r.memcpy_mb_s,
                r.decode_vs_memcpy,
                c.files_s,
                c.channels,
                c.samples_s,
            );
        }
        println!("(decode and memcpy in MB/s; samples/s = pose_at or state_at calls × channels)");
    }
}

/// A number with `decimals`, or `-` when absent.
fn optional(x: Option<f64>, decimals: usize) -> String {
    x.map_or_else(|| "-".into(), |x| format!("{x:.decimals$}"))
}
