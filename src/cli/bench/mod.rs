//! `viewer bench`: arguments and printing; the measuring is
//! [`crate::bench`].

use crate::bench::{Bench, CurveRow, DecodeFrom, Detail, MemgRow, Progress, Row};
use anyhow::Result;
use clap::builder::TypedValueParser as _;
use indicatif::{ProgressBar, ProgressStyle};
use motion_viewer::synthetic;
use std::path::PathBuf;

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
    /// Generate a MEMG scene instead: `VERTICESxBASISxFRAMES`, e.g. `1000000x32x300`
    /// (at most 8 GiB generated; docs/cli.md: Limits).
    #[arg(long, conflicts_with = "files")]
    pub synthetic: Option<String>,
    /// With --synthetic: write the scene to DIR as `synthetic-VxRxN.obj` and
    /// `.bin` (for `info`, `export`, `render`…) instead of measuring it.
    #[arg(long, value_name = "DIR", requires = "synthetic")]
    pub write_scene: Option<PathBuf>,
    /// How the GPU stores the basis (`f16`: half the bytes per frame).
    #[arg(long, value_name = "f32|f16", default_value = "f32")]
    pub basis: motion_viewer::gpu::BasisFormat,
}

pub fn run(args: &BenchArgs) -> Result<()> {
    if let (Some(spec), Some(dir)) = (&args.synthetic, &args.write_scene) {
        let spec = synthetic::Spec::parse(spec)?;
        // A large scene takes a while: a spinner on a terminal, nothing when piped.
        let spinner = ProgressBar::new_spinner();
        spinner.set_message(format!("writing {} to {}", spec.name(), dir.display()));
        spinner.enable_steady_tick(std::time::Duration::from_millis(200));
        let written = synthetic::write_scene(spec, dir);
        spinner.finish_and_clear();
        let (obj, motion) = written?;
        println!("{}\n{}", obj.display(), motion.display());
        return Ok(());
    }
    let bar = Bar::new();
    let mut bench = Bench::new(args.runs, &bar);
    bench.set_gpu_basis(args.basis);
    let rows = match &args.synthetic {
        Some(spec) => {
            let spec = synthetic::Spec::parse(spec)?;
            vec![bench.synthetic(spec)?]
        }
        None => {
            let tracks = super::load(&args.files, motion_viewer::open::Archives::Ask)?;
            let mut rows = Vec::with_capacity(tracks.len());
            for track in tracks {
                rows.push(bench.track(track)?);
            }
            rows
        }
    };
    bar.0.finish_and_clear();
    if args.json {
        super::print_stdout(&(serde_json::to_string_pretty(&rows)? + "\n"))?;
    } else {
        print_tables(&rows, args.runs);
    }
    Ok(())
}

/// A progress bar on stderr (drawn only on a terminal); notes go above it.
struct Bar(ProgressBar);

impl Bar {
    fn new() -> Bar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} ETA {eta} {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        Bar(bar)
    }
}

impl Progress for Bar {
    fn plan(&self, steps: usize) {
        self.0.inc_length(steps as u64);
    }
    fn status(&self, message: &str) {
        self.0.set_message(message.to_string());
    }
    fn step(&self) {
        self.0.inc(1);
    }
    fn note(&self, message: &str) {
        self.0.suspend(|| eprintln!("viewer bench: {message}"));
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
        for (r, _) in memg
            .iter()
            .filter(|(_, m)| m.decode_from == DecodeFrom::Mmap)
        {
            println!(
                "{}: too large to hold twice; decode, reuse and memcpy read the file's memory map, dropping its pages behind",
                r.name
            );
        }
        for adapter in memg
            .iter()
            .filter_map(|(_, m)| m.gpu_adapter.as_ref())
            .take(1)
        {
            println!(
                "GPU adapter: {adapter}; a GPU frame is deformation, normals, submit and wait; GPU GB/s counts U as stored ({})",
                memg.iter()
                    .find_map(|(_, m)| m.gpu_basis_format.clone())
                    .unwrap_or_default()
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
