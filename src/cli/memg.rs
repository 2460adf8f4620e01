//! `viewer memg …`: make MEMG motions. `memg fit` fits one to a point cache
//! or an `.obj` sequence ([`motion_viewer::fit`]).

use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use motion_viewer::fit::{self, AnimationSource, Bound, FitOptions, FitRequest, FrameMode, Parts};
use std::path::{Path, PathBuf};

/// Arguments of `viewer memg`.
#[derive(Debug, Args)]
pub struct MemgArgs {
    #[command(subcommand)]
    verb: Verb,
}

#[derive(Debug, Subcommand)]
enum Verb {
    /// Fit a MEMG motion to a mesh animation: a point cache (.pc2) or one .obj per frame,
    /// every frame keeping the scene .obj's vertices in order; its groups are the .obj's
    /// `g` groups. The motion is decoded and deformed again and compared with the input
    /// at every vertex and frame before it is written; the report gives what was measured.
    Fit(FitArgs),
}

#[derive(Debug, Args)]
struct FitArgs {
    /// The scene: its vertices, in order, and its `g` groups.
    scene: PathBuf,
    /// The animation: a .pc2, a folder of .obj frames, a pattern such as
    /// `frames/f{:04}.obj` (the files that match, by their numbers), or .obj
    /// files (in natural order of their names: f2 before f10).
    #[arg(required = true, value_name = "ANIMATION")]
    animation: Vec<PathBuf>,
    /// The MEMG motion file to write, or a glTF (`.glb`, `.gltf`): the fitted motion as
    /// `viewer export` writes a MEMG scene (a node per group carrying its frames, or under one
    /// carrying frames several groups share, a morph target per basis column, their weights
    /// per frame).
    #[arg(long)]
    out: PathBuf,
    /// The same basis size in every group (at most its 3 × vertices and its frames).
    #[arg(long, value_name = "R", conflicts_with = "max_error")]
    rank: Option<usize>,
    /// The largest distance allowed between any input vertex and the fitted one at any
    /// frame: scene units (0.002), or a percentage of the diagonal of the box holding
    /// every vertex at every frame (0.1%). Each group gets the smallest rank that meets
    /// it. [default: 0.1%]
    #[arg(long, value_name = "E", value_parser = max_error)]
    max_error: Option<Bound>,
    /// Instead of --max-error, a bound on the root-mean-square error of each group over its
    /// vertices and frames (scene units, or a percentage of the diagonal): an average budget,
    /// under which single vertices may stray further (the report gives the largest error too).
    #[arg(long, value_name = "E", value_parser = rms_error, conflicts_with_all = ["max_error", "rank"])]
    rms_error: Option<Bound>,
    /// `local`: a rigid frame (rotation and translation) per group and frame, the basis
    /// in that frame; `world`: no frames; `auto`: per group, whichever of its own frames, none,
    /// or frames it shares with other groups (the whole mesh's, or another group's: written once)
    /// makes the smaller file; for a MEMG file under --max-error, also one affine frame (a 3×4
    /// matrix, not only a rotation) shared by the groups in frames, where that makes it smaller
    /// still.
    #[arg(long, value_enum, default_value_t = Frames::Local)]
    frames: Frames,
    /// The frame rate written: a .pc2 counts frames, not seconds (30 is the
    /// rate of the published MEMG data).
    #[arg(long, value_name = "F", default_value_t = fit::DEFAULT_FPS,
          value_parser = clap::value_parser!(i32).range(1..))]
    fps: i32,
    /// Split the mesh into N near-rigid parts (vertices one rigid motion carries), or
    /// `auto`: 1, 2, 4… parts until one makes a file a quarter larger than the smallest, or
    /// two in a row no smaller one, then the counts halfway between the best and its
    /// neighbours tried, the smallest file within the bound kept (with --out x.glb, the
    /// smallest glTF, estimated; for a .bin under --frames auto, of the best and up to two
    /// near it fitted again in full); a group is fitted per part instead of the .obj's own
    /// groups. Needs --out-scene.
    #[arg(long, value_name = "N|auto", value_parser = parts, requires = "out_scene")]
    parts: Option<Parts>,
    /// With --parts: the scene .obj to write, the input's with the parts as its groups
    /// (every vertex, texture coordinate, normal and material line as it was).
    #[arg(long, value_name = "OBJ", requires = "parts")]
    out_scene: Option<PathBuf>,
    /// With --out x.glb: meshes, weights and rotations in 32-bit floats, not the 16-bit
    /// integers of KHR_mesh_quantization (about twice the bytes, for readers without that
    /// extension).
    #[arg(long)]
    no_quantize: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Write over an input file if --out names one.
    #[arg(long)]
    force: bool,
}

/// `--frames`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Frames {
    /// A rigid frame per group and frame.
    Local,
    /// None: world coordinates.
    World,
    /// Per group, the smallest file of its own frames, none, or frames shared with other groups
    /// (the whole mesh's or another group's): twice the fitting time for one group, up to 20
    /// times with several (4 times with more than 64 groups); for a MEMG file under --max-error
    /// and a mesh of up to 1 Mi coordinates × frames, also one affine frame shared by the groups
    /// in frames (a few seconds a try at that size).
    Auto,
}

/// `--rms-error`: scene units, or `P%` of the diagonal.
fn rms_error(text: &str) -> Result<Bound, String> {
    Ok(match max_error(text)? {
        Bound::MaxError(x) => Bound::RmsError(x),
        Bound::MaxErrorOfDiagonal(x) => Bound::RmsErrorOfDiagonal(x),
        other => other,
    })
}

/// `--max-error`: scene units, or `P%` of the diagonal.
fn max_error(text: &str) -> Result<Bound, String> {
    let t = text.trim();
    let (number, percent) = match t.strip_suffix('%') {
        Some(n) => (n, true),
        None => (t, false),
    };
    match number.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(if percent {
            Bound::MaxErrorOfDiagonal(x / 100.0)
        } else {
            Bound::MaxError(x)
        }),
        _ => Err(format!(
            "expected a positive distance such as 0.002, or a percentage of the diagonal \
             such as 0.1%, found {text:?}"
        )),
    }
}

/// `--parts`: a number of parts from 1, or `auto`.
fn parts(text: &str) -> Result<Parts, String> {
    match text.trim() {
        "auto" => Ok(Parts::Auto),
        t => match t.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Parts::Count(n)),
            _ => Err(format!(
                "expected a number of parts from 1, or auto, found {text:?}"
            )),
        },
    }
}

pub fn run(args: &MemgArgs) -> Result<()> {
    match &args.verb {
        Verb::Fit(a) => fit_run(a),
    }
}

/// Shares of a largest-error bound that a quantized glTF's fit also
/// tries to leave, for quantizing, 16-bit rotations and dropped keys to
/// spend. For each share the motion is fitted again under the bound less
/// that share, its split kept. A rank more can cost less than what that
/// room saves, and which share wins is not known before it is measured.
/// The smallest file within the bound is written (BENCHMARKS.md, "Room
/// for the glTF").
const GLTF_MARGINS: [f64; 4] = [0.1, 0.2, 0.3, 0.4];

/// The most vertices × frames for which [`GLTF_MARGINS`] are tried, each
/// one more fit: 16 777 216, about 20 000 vertices × 800 frames.
const GLTF_MARGINS_UP_TO: u64 = 1 << 24;

/// Writes the glTF of the fitted motion (`request.out` with `scene`, whose
/// fit is `report`) to `out`; returns the largest distance quantizing
/// moved a vertex (0 in floats). Quantizing may spend up to 90 % of what
/// the fit left of the bound (the rest for readers' `f32` rounding).
fn export_fit(
    a: &FitArgs,
    scene: &Path,
    (request, report): (&FitRequest, &fit::FitReport),
    quantize: bool,
    out: &Path,
) -> Result<f64> {
    let files = [scene.to_path_buf(), request.out.clone()];
    let tracks = motion_viewer::open_with(files, &Default::default())?.tracks;
    let inputs: Vec<PathBuf> = [vec![a.scene.clone()], request.animation.files()].concat();
    let options = motion_viewer::export::Options {
        inputs: &inputs,
        force: a.force,
        quantize,
        quantize_tolerance: report.left_of_bound().filter(|&x| x > 0.0).map(|x| 0.9 * x),
        ..Default::default()
    };
    let written = motion_viewer::export::export(&tracks, out, &options)?;
    Ok(written.quantization_error.unwrap_or(0.0))
}

/// A fit written as glTF to the trial file: how, and what it measured.
struct Trial {
    request: FitRequest,
    report: fit::FitReport,
    quantize: bool,
    /// The largest distance quantizing moved a vertex.
    error: f64,
    bytes: u64,
}

/// `report`, a fit under a bound tighter than `asked`'s, reported against
/// the bound asked, with `asked`'s split.
fn against_asked(mut report: fit::FitReport, asked: &fit::FitReport) -> fit::FitReport {
    (report.bound, report.max_error_bound, report.rms_error_bound) =
        (asked.bound, asked.max_error_bound, asked.rms_error_bound);
    if report.parts.is_none() {
        report.parts.clone_from(&asked.parts);
        report.seconds.parts = asked.seconds.parts;
    }
    report
}

/// `memg fit … --out x.glb`: fits `request` (its MEMG file in `staging`)
/// and writes the glTF to `a.out`; returns the report of the fit written,
/// its total time every fit's and write's.
fn fit_gltf(a: &FitArgs, request: FitRequest, staging: &Path) -> Result<fit::FitReport> {
    let started = std::time::Instant::now();
    let scene = a.out_scene.clone().unwrap_or_else(|| a.scene.clone());
    let trial_file = staging.join("trial.glb");
    let trial = |request: FitRequest, report: fit::FitReport, quantize: bool| -> Result<Trial> {
        let error = export_fit(a, &scene, (&request, &report), quantize, &trial_file)?;
        let bytes = std::fs::metadata(&trial_file)
            .map_err(|e| motion_viewer::Error::io(&trial_file, e))?
            .len();
        Ok(Trial {
            request,
            report,
            quantize,
            error,
            bytes,
        })
    };
    let quantize = !a.no_quantize;
    let report = fit::fit_files(&request)?;
    let mut best = trial(request.clone(), report, quantize)?;
    // The glTF's vertices are the fit's plus quantization's error: where
    // the two together pass the bound, the motion is fitted again under
    // the bound less half as much again as quantizing moved a vertex, and
    // failing that written in floats.
    if let Some(tighter) = best.report.bound_less(best.error) {
        let mut again = request.clone();
        again.options.bound = tighter;
        // The scene the first fit wrote is this command's own.
        again.force = true;
        let refit = against_asked(fit::fit_files(&again)?, &best.report);
        best = trial(again, refit, quantize)?;
        if best.report.bound_less(best.error).is_some() {
            best = trial(best.request, best.report, false)?;
        }
    }
    let first = best.report.clone();
    let size = first.vertices as u64 * first.frames as u64;
    if let (true, Some(limit), None) = (quantize, first.max_error_bound, first.rms_error_bound)
        && size <= GLTF_MARGINS_UP_TO
    {
        for (i, margin) in GLTF_MARGINS.into_iter().enumerate() {
            // Named as the first, which names the glTF's root node.
            let folder = staging.join(format!("margin{i}"));
            std::fs::create_dir(&folder).map_err(|e| motion_viewer::Error::io(&folder, e))?;
            let out = folder.join(request.out.file_name().unwrap_or_default());
            // The scene written (or given) keeps the split: no search again.
            let again = FitRequest {
                scene: scene.clone(),
                out,
                options: FitOptions {
                    bound: Bound::MaxError(limit * (1.0 - margin)),
                    ..request.options
                },
                parts: None,
                out_scene: None,
                force: true,
                ..request.clone()
            };
            // A bound no rank meets: a tighter one would not be met either.
            let Ok(refit) = fit::fit_files(&again) else {
                break;
            };
            let refit = against_asked(refit, &first);
            let tried = trial(again, refit, true)?;
            if tried.report.max_error + tried.error <= limit && tried.bytes < best.bytes {
                best = tried;
            } else {
                // Its MEMG file is not needed again: the disk it took, back.
                let _ = std::fs::remove_dir_all(&folder);
            }
        }
    }
    let error = export_fit(
        a,
        &scene,
        (&best.request, &best.report),
        best.quantize,
        &a.out,
    )?;
    let mut report = best.report;
    report.gltf_error = Some(report.max_error + error);
    report.gltf_fitted_under = match (best.quantize, best.request.options.bound) {
        (true, Bound::MaxError(under)) => Some(under),
        (true, _) => report.max_error_bound,
        (false, _) => None,
    };
    report.bytes.gltf = Some(std::fs::metadata(&a.out).map_or(0, |m| m.len()));
    report.seconds.total = started.elapsed().as_secs_f64();
    Ok(report)
}

fn fit_run(a: &FitArgs) -> Result<()> {
    // `--out x.glb`: the motion is fitted into a MEMG file of the same name
    // in a temporary folder beside it, then written as glTF by the one
    // exporter (`viewer export scene.obj x.bin --out x.glb`), the scene
    // being the input's or, with --parts, the one written.
    let gltf = motion_viewer::export::is_gltf(&a.out);
    let staging = match gltf {
        true => {
            let parent = match a.out.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            Some(
                tempfile::Builder::new()
                    .prefix(".memg-fit-")
                    .tempdir_in(&parent)
                    .map_err(|e| motion_viewer::Error::io(&parent, e))?,
            )
        }
        false => None,
    };
    let motion_out = match &staging {
        Some(dir) => dir
            .path()
            .join(a.out.file_stem().unwrap_or_default())
            .with_extension("bin"),
        None => a.out.clone(),
    };
    let request = FitRequest {
        scene: a.scene.clone(),
        animation: AnimationSource::from_args(&a.animation)?,
        out: motion_out.clone(),
        options: FitOptions {
            bound: match (a.rank, a.max_error.or(a.rms_error)) {
                (Some(r), _) => Bound::Rank(r),
                (None, Some(b)) => b,
                (None, None) => fit::DEFAULT_BOUND,
            },
            frames: match a.frames {
                Frames::Local => FrameMode::Local,
                Frames::World => FrameMode::World,
                Frames::Auto => FrameMode::Auto,
            },
            fps: a.fps,
            // The choices (frames, parts) go by the size of the file written.
            sized_for: if gltf && a.no_quantize {
                fit::SizedFor::GltfFloat
            } else if gltf {
                fit::SizedFor::Gltf
            } else {
                fit::SizedFor::Memg
            },
        },
        parts: a.parts,
        out_scene: a.out_scene.clone(),
        force: a.force,
    };
    let report = match &staging {
        Some(dir) => fit_gltf(a, request.clone(), dir.path())?,
        None => fit::fit_files(&request)?,
    };
    drop(staging);
    super::warn_all(&report.warnings);
    if a.json {
        super::print_stdout(&(serde_json::to_string_pretty(&report)? + "\n"))
    } else {
        let input = match &request.animation {
            AnimationSource::Pc2(p) => p.display().to_string(),
            AnimationSource::Objs(files) => {
                format!("{} .obj frames ({} …)", files.len(), files[0].display())
            }
        };
        let out = match gltf {
            true => "the MEMG motion".to_string(),
            false => a.out.display().to_string(),
        };
        super::print_text(&report.text(&out, &input))
    }
}
