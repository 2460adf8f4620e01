//! `viewer simulate`: will it fall? Each AIBO motion played on a physical
//! dog (the library's `physics`), with a verdict per motion. Exit 0 when
//! every motion stands, 1 when one falls, 2 on an error.

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use motion_viewer::anim::clock;
use motion_viewer::open::Archives;
use motion_viewer::physics::{self, Simulation, Verdict};
use motion_viewer::{Track, text};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `viewer simulate`.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Motions: `.mtn` files, ODA archives (every motion in them,
    /// or `ARCHIVE.ODA:NAME`), folders (every `.mtn` and `.oda` in them).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print one JSON object per motion, one per line.
    #[arg(long)]
    pub json: bool,
    /// Write the simulated motion of the one motion given: `.csv` (body pose
    /// and every servo's reached and commanded angle per frame), or the
    /// reached motion as a `.mtn`-driven export (`.glb`, `.mcap`, `.json`…).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The longest motion simulated, seconds of motion (default 600; at
    /// most 3600): a longer one is refused before any step.
    #[arg(long, value_name = "SECONDS")]
    pub max_duration: Option<f64>,
}

/// The most simulated time one run plays, all its motions together
/// (settling and hold included), seconds: 4 hours, about 25 minutes of one
/// core (docs/physics.md §3). Sony's largest archive in `tests/data/oda`
/// (457 motions) makes about 2 440 s, and 2 000 motions of Sony's seed 12 760 s;
/// a run over it is refused before any step.
const MAX_RUN_SIMULATED_S: f64 = 14_400.0;

/// Runs `viewer simulate`; the exit status tells stand (0), fall (1), error (2).
pub fn run(args: &SimulateArgs) -> ExitCode {
    match simulate_all(args) {
        Ok(true) => ExitCode::from(1),
        Ok(false) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("viewer: {}", super::one_line(&e));
            ExitCode::from(2)
        }
    }
}

/// Simulates every motion; true when one falls.
fn simulate_all(args: &SimulateArgs) -> Result<bool> {
    let max = max_duration(args.max_duration)?;
    let files = expand_folders(&args.files)?;
    let options = motion_viewer::OpenOptions {
        archives: Archives::EveryMotion,
        ..motion_viewer::OpenOptions::default()
    };
    let loaded = motion_viewer::open_with(&files, &options)?;
    let tracks = loaded.tracks;
    let motions: Vec<(String, &motion_viewer::formats::mtn::Mtn)> = tracks
        .iter()
        .map(|t| match t {
            Track::Mtn { path, motion, .. } => Ok((path.display().to_string(), motion)),
            other => bail!("{}: not an AIBO .mtn motion", other.path().display()),
        })
        .collect::<Result<_>>()?;
    if args.out.is_some() && motions.len() != 1 {
        bail!(
            "--out writes one simulated motion; {} motions were given",
            motions.len()
        );
    }
    // Refuse bad input and work too long before simulating anything, in
    // one line: each motion's length (cheap), the whole run's, then what
    // cannot be simulated.
    for (name, m) in &motions {
        physics::check_length(m, name, max)?;
    }
    let steps: u64 = motions.iter().map(|(_, m)| physics::total_steps(m)).sum();
    check_run(steps, motions.len())?;
    // The loading warnings once the lengths pass: the loader's note that
    // only a day of a longer motion plays is not about a refused one.
    super::warn_all(&loaded.warnings);
    for (name, m) in &motions {
        physics::check_simulable(m, name)?;
    }
    let bar = progress_bar(steps, args.json);
    let progress = |n: u64| bar.inc(n);
    let watch = physics::Watch {
        progress: Some(&progress),
        cancel: None,
    };
    // Only `--out`'s one motion keeps its frames: an archive's verdicts
    // alone are held.
    let sims: Vec<(Verdict, Option<Simulation>)> = motions
        .par_iter()
        .map(|(name, m)| {
            let sim = physics::simulate_with(m, name, max, watch)?
                .expect("a run without a cancel flag is never cancelled");
            Ok(match args.out {
                Some(_) => (sim.verdict.clone(), Some(sim)),
                None => (sim.verdict, None),
            })
        })
        .collect::<motion_viewer::Result<_>>()?;
    bar.finish_and_clear();
    let mut text = String::new();
    for (verdict, _) in &sims {
        if args.json {
            text.push_str(&serde_json::to_string(verdict)?);
            text.push('\n');
        } else {
            readable(&mut text, verdict)?;
        }
    }
    if args.json {
        super::print_stdout(&text)?;
    } else {
        super::print_text(&text)?;
    }
    if let (Some(out), [(_, Some(sim))]) = (&args.out, &sims[..]) {
        let (_, motion) = motions[0];
        write_out(out, sim, motion, &args.files)?;
    }
    Ok(sims.iter().any(|(v, _)| v.falls))
}

/// `--max-duration` as the library takes it: the default when not given,
/// one line when not seconds in (0, [`physics::MAX_DURATION_CEILING_S`]].
fn max_duration(given: Option<f64>) -> Result<f64> {
    let Some(s) = given else {
        return Ok(physics::DEFAULT_MAX_DURATION_S);
    };
    if !(s > 0.0 && s <= physics::MAX_DURATION_CEILING_S) {
        bail!(
            "--max-duration {s}: expected seconds above 0, at most {}",
            physics::MAX_DURATION_CEILING_S
        );
    }
    Ok(s)
}

/// Refuses a run of `steps` fixed steps over `motions` motions that would
/// simulate more than [`MAX_RUN_SIMULATED_S`] in all.
fn check_run(steps: u64, motions: usize) -> Result<()> {
    let seconds = clock::time_of(steps, physics::STEP_S);
    if seconds > MAX_RUN_SIMULATED_S {
        bail!(
            "{motions} motions make {seconds:.0} simulated seconds (settling and hold \
             included), more than the {MAX_RUN_SIMULATED_S} s one run plays; simulate \
             fewer at a time (ARCHIVE.ODA:NAME names one entry)"
        );
    }
    Ok(())
}

/// A bar of the steps taken, drawn on a terminal only (indicatif draws
/// nothing when stderr is not one) and never beside `--json`'s lines.
fn progress_bar(steps: u64, json: bool) -> ProgressBar {
    if json {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(steps);
    let template = format!(
        "{{wide_bar}} {{percent:>3}}% of {:.0} simulated s, {{elapsed}} so far, ETA {{eta}}",
        clock::time_of(steps, physics::STEP_S)
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

/// Every folder among `paths` replaced by its `.mtn` and `.oda` files
/// (any case), in name order.
fn expand_folders(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        if !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("{}: cannot list the folder", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && p.extension().is_some_and(|e| {
                        let e = e.to_string_lossy().to_ascii_lowercase();
                        e == "mtn" || e == "oda"
                    })
            })
            .collect();
        found.sort();
        if found.is_empty() {
            bail!("{}: the folder holds no .mtn or .oda file", path.display());
        }
        out.extend(found);
    }
    Ok(out)
}

/// A verdict as a few lines of text.
fn readable(out: &mut String, v: &Verdict) -> std::fmt::Result {
    let why = match v.fall_cause {
        Some("tilt") => format!("tilt past {}°", physics::FALL_TILT_DEG),
        _ => "body on the floor where it should stand clear".to_string(),
    };
    let what = match v.fall_time_s {
        _ if !v.first_posture_stands => format!(
            "its first posture does not stand: it FALLS while settling, before the motion \
             starts ({why})"
        ),
        Some(t) => format!("FALLS at {t:.2} s ({why})"),
        None => "stands".to_string(),
    };
    writeln!(
        out,
        "{} ({}, {:.2} s): {what}; peak tilt {:.1}° at {:.2} s, body as low as {:.3} m",
        v.motion, v.model, v.duration_s, v.peak_tilt_deg, v.peak_tilt_time_s, v.min_body_height_m
    )?;
    for w in &v.warnings {
        writeln!(out, "  warning: {w}")?;
    }
    let slip = v.paws.iter().map(|p| p.slip_m).fold(0.0, f64::max);
    writeln!(
        out,
        "  paws slip at most {:.1} mm while bearing weight",
        slip * 1000.0
    )?;
    for c in &v.ground_contacts {
        writeln!(
            out,
            "  {} on the ground from {:.2} s ({:.2} s in all)",
            c.link, c.first_s, c.total_s
        )?;
    }
    for j in v.joints.iter().filter(|j| j.could_not_follow()) {
        writeln!(
            out,
            "  {} could not follow: {:+.1}° behind at {:.2} s, beyond {}° for {:.2} s of the motion",
            j.label,
            j.max_error_deg,
            j.at_s,
            physics::FOLLOW_MARGIN_DEG,
            j.beyond_margin_s
        )?;
    }
    for j in v
        .joints
        .iter()
        .filter(|j| j.hold_max_error_deg.abs() > physics::FOLLOW_MARGIN_DEG)
    {
        writeln!(
            out,
            "  {} in the hold after the motion: {:+.1}° behind at {:.2} s",
            j.label, j.hold_max_error_deg, j.hold_at_s
        )?;
    }
    Ok(())
}

/// Writes the simulated motion to `out`.
fn write_out(
    out: &Path,
    sim: &Simulation,
    motion: &motion_viewer::formats::mtn::Mtn,
    inputs: &[PathBuf],
) -> Result<()> {
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    motion_viewer::open::check_not_input(out, inputs, false)?;
    if ext == "csv" {
        let bytes = physics::write_csv(sim, out)?;
        eprintln!(
            "viewer: wrote {} ({bytes} bytes): {} frames of the simulated motion",
            text::escape(&out.display().to_string()),
            sim.frames.len()
        );
        return Ok(());
    }
    // Any other format: the reached angles and attitude as a motion, through
    // the library's exporters (the body's travel is in the .csv only).
    let reached = physics::reached_motion(sim, motion);
    let track = Track::Mtn {
        path: PathBuf::from(format!("{} (simulated)", sim.verdict.motion)),
        motion: reached,
        entry: None,
    };
    let options = motion_viewer::export::Options {
        inputs,
        ..Default::default()
    };
    let report = motion_viewer::export::export(std::slice::from_ref(&track), out, &options)?;
    super::warn_all(&report.warnings);
    for note in &report.notes {
        eprintln!("viewer: {}", text::escape(note));
    }
    Ok(())
}
