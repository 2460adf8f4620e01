//! `viewer memg …`: make MEMG motions. `memg fit` fits one to a point cache
//! or an `.obj` sequence ([`motion_viewer::fit`]).

use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use motion_viewer::fit::{self, AnimationSource, Bound, FitOptions, FitRequest, FrameMode, Parts};
use std::path::PathBuf;

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
    /// makes the smaller file.
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
    /// smallest glTF, estimated); a group is fitted per part instead of the .obj's own
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
    /// times with several (4 times with more than 64 groups).
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

/// Writes the glTF of the fitted motion (`request.out`, whose fit is
/// `report`) to `a.out`; returns the largest distance quantizing moved a
/// vertex (0 in floats). Quantizing may spend up to 90 % of what the fit
/// left of the bound (the rest for readers' `f32` rounding).
fn export_fit(
    a: &FitArgs,
    request: &FitRequest,
    report: &fit::FitReport,
    quantize: bool,
) -> Result<f64> {
    let scene = a.out_scene.clone().unwrap_or_else(|| a.scene.clone());
    let tracks =
        motion_viewer::open_with([scene, request.out.clone()], &Default::default())?.tracks;
    let inputs: Vec<PathBuf> = [vec![a.scene.clone()], request.animation.files()].concat();
    let options = motion_viewer::export::Options {
        inputs: &inputs,
        force: a.force,
        quantize,
        quantize_tolerance: report.left_of_bound().filter(|&x| x > 0.0).map(|x| 0.9 * x),
        ..Default::default()
    };
    let written = motion_viewer::export::export(&tracks, &a.out, &options)?;
    Ok(written.quantization_error.unwrap_or(0.0))
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
    let mut report = fit::fit_files(&request)?;
    if gltf {
        let quantize = !a.no_quantize;
        let mut error = export_fit(a, &request, &report, quantize)?;
        // The glTF's vertices are the fit's plus quantization's error: where
        // the two together pass the bound, the motion is fitted again under
        // the bound less half as much again as quantizing moved a vertex,
        // and failing that written in floats.
        if let Some(tighter) = report.bound_less(error) {
            let mut again = request.clone();
            again.options.bound = tighter;
            // The scene the first fit wrote is this command's own.
            again.force = true;
            let mut refit = fit::fit_files(&again)?;
            refit.seconds.total += report.seconds.total;
            (refit.bound, refit.max_error_bound, refit.rms_error_bound) =
                (report.bound, report.max_error_bound, report.rms_error_bound);
            report = refit;
            error = export_fit(a, &again, &report, quantize)?;
            if report.bound_less(error).is_some() {
                error = export_fit(a, &again, &report, false)?;
            }
        }
        report.gltf_error = Some(report.max_error + error);
        report.bytes.gltf = Some(std::fs::metadata(&a.out).map_or(0, |m| m.len()));
    }
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
