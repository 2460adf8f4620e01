//! `viewer mtn …`: make, transform and check AIBO `.mtn` motions
//! ([`motion_viewer::workbench`]), and `--entry` for ODA archives.

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Subcommand};
use motion_viewer::Error;
use motion_viewer::formats::aibo::Model;
use motion_viewer::formats::mtn::{self, Mtn};
use motion_viewer::open::check_not_input;
use motion_viewer::open::{Archives, archive};
use motion_viewer::output::write_atomic;
use motion_viewer::scene::Track;
use motion_viewer::workbench::{self, Edit, FromTable, Report, Retime, Severity};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Arguments of `viewer mtn`.
#[derive(Debug, Args)]
pub struct MtnArgs {
    #[command(subcommand)]
    verb: Verb,
}

#[derive(Debug, Subcommand)]
enum Verb {
    /// Build a motion from a CSV or JSON table of keyframes (what `viewer export x.csv` writes).
    FromCsv(FromCsvArgs),
    /// Mirror left ↔ right: legs and ears swap, pans, roll and body roll/yaw change sign.
    Mirror(OneIn),
    /// Play backwards (the postures of the name swap).
    Reverse(OneIn),
    /// Change the speed (--speed 2 plays twice as fast) or the frame period (--frame-ms).
    Retime(RetimeArgs),
    /// Join motions of one model end to end.
    Concat(ConcatArgs),
    /// Carry a motion to another model: shared joints kept, the rest dropped with a warning.
    Convert(ConvertArgs),
    /// Check joint limits, servo speeds, the name and the start/end postures.
    Check(CheckArgs),
}

/// Where a verb writes its motion.
#[derive(Debug, Args)]
struct Output {
    /// The `.mtn` to write.
    #[arg(long)]
    out: PathBuf,
    /// Replace the output even if it is one of the inputs.
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Args)]
struct OneIn {
    /// The motion (`.mtn`, or `ARCHIVE.ODA:NAME`).
    input: PathBuf,
    #[command(flatten)]
    output: Output,
}

#[derive(Debug, Args)]
struct FromCsvArgs {
    /// The table: CSV, or a JSON array of objects (told apart by content),
    /// read as it streams: a line at most 64 KiB, a cell 1 KiB, the table 512 MiB.
    input: PathBuf,
    /// The robot model, e.g. ERS-7 or ERS-210.
    #[arg(long)]
    model: Model,
    /// The motion name, e.g. `a_sit#stand_wave`.
    #[arg(long)]
    name: String,
    /// The creator string written into the file.
    #[arg(long, default_value = "motion-viewer")]
    creator: String,
    /// Frame period in ms.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..))]
    frame_ms: u16,
    /// One keyframe per row (by default rows on a straight line are merged).
    #[arg(long)]
    every_row: bool,
    #[command(flatten)]
    output: Output,
}

#[derive(Debug, Args)]
struct RetimeArgs {
    /// The motion (`.mtn`, or `ARCHIVE.ODA:NAME`).
    input: PathBuf,
    #[command(flatten)]
    how: RetimeHow,
    #[command(flatten)]
    output: Output,
}

#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
struct RetimeHow {
    /// Play this many times as fast (0.5: half speed).
    #[arg(long)]
    speed: Option<f64>,
    /// Store with frames of this many ms, keeping the timing.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    frame_ms: Option<u16>,
}

#[derive(Debug, Args)]
struct ConcatArgs {
    /// The motions, in playing order.
    #[arg(required = true, num_args = 2..)]
    inputs: Vec<PathBuf>,
    /// Name the result (default: the first name with the postures updated).
    #[arg(long)]
    name: Option<String>,
    #[command(flatten)]
    output: Output,
}

#[derive(Debug, Args)]
struct ConvertArgs {
    /// The motion (`.mtn`, or `ARCHIVE.ODA:NAME`).
    input: PathBuf,
    /// The model to convert to.
    #[arg(long)]
    model: Model,
    #[command(flatten)]
    output: Output,
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// Motions to check (`.mtn`, `ARCHIVE.ODA:NAME`, or a whole archive).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print a JSON array, one report per motion.
    #[arg(long)]
    json: bool,
}

impl MtnArgs {
    /// The input paths on the command line, for `--entry`.
    pub fn inputs(&mut self) -> Vec<&mut Vec<PathBuf>> {
        match &mut self.verb {
            Verb::Concat(a) => vec![&mut a.inputs],
            Verb::Check(a) => vec![&mut a.files],
            // A single input is not a list: --entry reaches it through ARCHIVE:NAME only.
            _ => Vec::new(),
        }
    }
}

/// Narrows every archive among the lists to its entry `entry` (`--entry NAME`).
pub fn select_entry(lists: Vec<&mut Vec<PathBuf>>, entry: &str) -> Result<()> {
    let mut found = false;
    for list in lists {
        match archive::select_entry(list, entry) {
            Ok(narrowed) => {
                *list = narrowed;
                found = true;
            }
            // A pipe, device or folder among the files: said at once.
            Err(e @ motion_viewer::Error::NotRegularFile { .. }) => return Err(e.into()),
            Err(_) => {}
        }
    }
    if !found {
        bail!(
            "--entry {}: none of the files given is an ODA archive",
            motion_viewer::text::cut(entry, motion_viewer::text::QUOTED_CHARS)
        );
    }
    Ok(())
}

pub fn run(args: &MtnArgs) -> Result<()> {
    match &args.verb {
        Verb::FromCsv(a) => from_csv(a),
        Verb::Mirror(a) => one(a, workbench::mirror),
        Verb::Reverse(a) => one(a, workbench::reverse),
        Verb::Retime(a) => {
            let how = match (a.how.speed, a.how.frame_ms) {
                (Some(f), _) => Retime::Speed(f),
                (None, Some(n)) => Retime::FrameMs(n),
                (None, None) => bail!("retime needs --speed or --frame-ms"),
            };
            let m = read_motion(&a.input)?;
            let edit = workbench::retime(&m, how).map_err(|e| Error::edit(&a.input, e))?;
            write(&[&a.input], &a.output, edit)
        }
        Verb::Concat(a) => {
            let parts = a
                .inputs
                .iter()
                .map(|p| read_motion(p))
                .collect::<Result<Vec<_>>>()?;
            let mut edit = workbench::concat(&parts)?;
            if let Some(name) = &a.name {
                edit.motion = workbench::with_name(&edit.motion, name)?.motion;
            }
            let inputs: Vec<&PathBuf> = a.inputs.iter().collect();
            write(&inputs, &a.output, edit)
        }
        Verb::Convert(a) => {
            let m = read_motion(&a.input)?;
            let edit = workbench::convert(&m, a.model).map_err(|e| Error::edit(&a.input, e))?;
            write(&[&a.input], &a.output, edit)
        }
        Verb::Check(a) => check(a),
    }
}

/// Reads the one motion a path names.
fn read_motion(path: &Path) -> Result<Mtn> {
    match super::load(&[path.to_path_buf()], Archives::Ask)?.pop() {
        Some(Track::Mtn { motion, .. }) => Ok(motion),
        _ => bail!("{}: not an AIBO .mtn motion", path.display()),
    }
}

fn one(a: &OneIn, edit: fn(&Mtn) -> Result<Edit, workbench::EditError>) -> Result<()> {
    let m = read_motion(&a.input)?;
    let made = edit(&m).map_err(|e| Error::edit(&a.input, e))?;
    write(&[&a.input], &a.output, made)
}

fn from_csv(a: &FromCsvArgs) -> Result<()> {
    let file = std::fs::File::open(&a.input).with_context(|| a.input.display().to_string())?;
    let options = FromTable {
        model: a.model,
        name: a.name.clone(),
        creator: a.creator.clone(),
        frame_ms: a.frame_ms,
        every_row: a.every_row,
    };
    // Streamed: a row at a time, the caps on lines and fields checked as it reads.
    let made = workbench::from_table_reader(file, &options)
        .map_err(|e| anyhow!("{}: {e}", a.input.display()))?;
    write(&[&a.input], &a.output, made)
}

/// Writes the motion made (never over an input unless --force, never a
/// partial file), its warnings on stderr and one line about it on stdout.
fn write(inputs: &[&PathBuf], output: &Output, edit: Edit) -> Result<()> {
    let inputs: Vec<PathBuf> = inputs.iter().map(|&p| p.clone()).collect();
    check_not_input(&output.out, &inputs, output.force)?;
    let bytes = mtn::encode(&edit.motion);
    write_atomic(&output.out, |w| w.write_all(&bytes))?;
    super::warn_all(&edit.warnings);
    let m = &edit.motion;
    let model = m
        .model()
        .map_or_else(|| "unknown model".into(), |x| x.to_string());
    super::print_text(&format!(
        "wrote {}: {} {:?}, {} joints, {} keyframes, {:.3} s\n",
        output.out.display(),
        model,
        m.name,
        m.joints.len(),
        m.keyframes.len(),
        m.duration_s()
    ))
}

/// One checked motion as `--json` prints it.
#[derive(Serialize)]
struct Checked<'a> {
    file: String,
    #[serde(flatten)]
    report: &'a Report,
}

fn check(a: &CheckArgs) -> Result<()> {
    let tracks = super::load(&a.files, Archives::EveryMotion)?;
    let mut checked = Vec::new();
    for track in &tracks {
        match track {
            Track::Mtn { path, motion, .. } => checked.push((path, workbench::check(motion))),
            other => bail!("{}: not an AIBO .mtn motion", other.path().display()),
        }
    }
    let json = a.json;
    let text = if json {
        let all: Vec<Checked> = checked
            .iter()
            .map(|(path, report)| Checked {
                file: path.display().to_string(),
                report,
            })
            .collect();
        serde_json::to_string_pretty(&all)? + "\n"
    } else {
        let mut text = String::new();
        for (path, report) in &checked {
            readable(&mut text, path, report)?;
        }
        text
    };
    if json {
        super::print_stdout(&text)?;
    } else {
        super::print_text(&text)?;
    }
    let errors: usize = checked.iter().map(|(_, r)| r.errors).sum();
    let failing = checked.iter().filter(|(_, r)| r.errors > 0).count();
    if errors > 0 {
        bail!(
            "{errors} error(s) in {failing} of {} motion(s)",
            checked.len()
        );
    }
    Ok(())
}

/// A report as a few lines of text.
fn readable(out: &mut String, path: &Path, r: &Report) -> std::fmt::Result {
    let model = r
        .model
        .map_or_else(|| "unknown model".into(), |m| m.to_string());
    let verdict = match (r.errors, r.warnings) {
        (0, 0) => "nothing wrong found".to_string(),
        (e, w) => format!("{e} error(s), {w} warning(s)"),
    };
    writeln!(
        out,
        "{}: {:?} ({model}, {} keyframes, {:.3} s): {verdict}",
        path.display(),
        r.name,
        r.keyframes,
        r.duration_s
    )?;
    for f in &r.findings {
        let severity = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let at = match (f.keyframe, f.time_s) {
            (Some(k), Some(t)) => format!("keyframe {k} ({t:.3} s): "),
            _ => String::new(),
        };
        writeln!(
            out,
            "  {severity:<7} {:<9} {at}{}",
            format!("{:?}", f.kind).to_lowercase(),
            f.message
        )?;
    }
    for (what, p) in [("limits", r.limits), ("speeds", r.speeds)] {
        if let Some(p) = p.filter(|p| p.estimated) {
            writeln!(out, "  note: {model} {what} are estimates: {}", p.source)?;
        }
    }
    Ok(())
}
