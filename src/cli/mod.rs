//! Command-line interface: `viewer [FILE...]` plays; `info`, `export`,
//! `render`, `plot`, `diff`, `bench`, `mtn` (the AIBO workbench), `memg`
//! (MEMG motions fitted to point caches) and `serve` (the web page) are
//! subcommands.

mod bench;
mod clap_errors;
mod curves;
mod export;
mod info;
mod memg;
mod play;
mod render;
mod serve;
mod simulate;
pub mod values;
mod workbench;

use clap::{Args, Parser, Subcommand};
use motion_viewer::pose::At;
use std::path::PathBuf;
use std::process::ExitCode;

/// Decode and play MEMG, AIBO .mtn and MRTK input-animation motion files.
#[derive(Debug, Parser)]
#[command(
    name = "viewer",
    version,
    about,
    args_conflicts_with_subcommands = true,
    after_help = "Files are recognised by content. A MEMG motion goes with its .obj scene: \
                  `viewer scene.obj motion.bin`. Several files play side by side on one timeline."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Files to play (the default command).
    files: Vec<PathBuf>,
    /// Name one entry of every ODA archive among the files (as `ARCHIVE.ODA:NAME` does).
    #[arg(long, global = true, value_name = "NAME")]
    entry: Option<String>,
    #[command(flatten)]
    play: play::PlayArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Describe each motion: format, timing, joints or groups, warnings.
    Info(InfoArgs),
    /// Write the state at one time (JSON), or every frame (CSV/JSON), a deformed mesh (.obj),
    /// an animated scene (.glb/.gltf) or a point cache (.pc2), each in its files' own coordinates.
    Export(ExportArgs),
    /// Measure decode and deformation throughput beside their limits.
    Bench(bench::BenchArgs),
    /// Render pictures without a window: one PNG, or a numbered sequence.
    Render(render::RenderArgs),
    /// Plot channels over time (joints, hand positions, MEMG coefficients) as SVG or PNG.
    Plot(curves::PlotArgs),
    /// Compare two motions channel by channel: the largest difference and when
    /// (exit 0 within --tolerance, 1 beyond it, 2 on an error).
    Diff(curves::DiffArgs),
    /// Make, transform and check AIBO .mtn motions.
    Mtn(workbench::MtnArgs),
    /// Make MEMG motions: `memg fit` fits one to a point cache (.pc2) or an .obj sequence.
    Memg(memg::MemgArgs),
    /// Serve the web page (built by web/build.sh) on 127.0.0.1 and print its URL.
    Serve(serve::ServeArgs),
    /// Will it fall? Play AIBO motions on a simulated dog: a verdict per motion
    /// (exit 0 every one stands, 1 one falls, 2 on an error).
    Simulate(simulate::SimulateArgs),
}

impl Cli {
    /// Every list of input files on the command line, for `--entry`.
    fn inputs(&mut self) -> Vec<&mut Vec<PathBuf>> {
        match &mut self.command {
            Some(Command::Info(a)) => vec![&mut a.files],
            Some(Command::Export(a)) => vec![&mut a.files],
            Some(Command::Bench(a)) => vec![&mut a.files],
            Some(Command::Render(a)) => vec![&mut a.files],
            Some(Command::Plot(a)) => vec![&mut a.files],
            Some(Command::Diff(a)) => vec![&mut a.files],
            Some(Command::Mtn(a)) => a.inputs(),
            Some(Command::Memg(_)) => Vec::new(),
            Some(Command::Serve(_)) => Vec::new(),
            Some(Command::Simulate(a)) => vec![&mut a.files],
            None => vec![&mut self.files],
        }
    }
}

/// Arguments of `viewer info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Files to describe.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print a JSON array, one object per motion.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `viewer export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Files to export.
    #[arg(required_unless_present = "model")]
    pub files: Vec<PathBuf>,
    /// Output: `.json` (state at --time/--frame, or every frame), `.csv` (every frame),
    /// `.obj` (MEMG deformed mesh), `.glb`/`.gltf` (animated scene), `.pc2` (MEMG point cache),
    /// `.urdf` (AIBO robot description), `.xml` (MuJoCo MJCF of an AIBO, the motion's
    /// commanded trajectory as keyframes), `.mcap` (ROS 2 bag), `.usda` (USD stage).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub at: AtArgs,
    /// Sampling rate for every-frame exports (default: each motion's own frame period).
    #[arg(long)]
    pub fps: Option<f64>,
    /// Only frames `A..B` (B excluded, in the first motion's frame period) of an
    /// every-frame export.
    #[arg(long, value_name = "A..B", conflicts_with_all = ["time", "frame"])]
    pub frames: Option<values::FrameRange>,
    /// Write over an input file if the output names one.
    #[arg(long)]
    pub force: bool,
    /// Deform a MEMG mesh with the GPU compute shader and read it back (the
    /// CPU stands in, with a warning, where no adapter can be had).
    #[arg(long)]
    pub gpu: bool,
    /// glTF: write each MEMG timestep as its own mesh instead of morph targets.
    #[arg(long)]
    pub baked: bool,
    /// glTF: write MEMG meshes and weights as 16-bit integers (KHR_mesh_quantization,
    /// about half the bytes); with =E (scene units), no vertex further than E from its
    /// place: the morph targets that move vertices least in 8 bits, the groups' frames'
    /// rotations in 16, and the keys a reader's blend does without dropped. How far a
    /// vertex may be is printed.
    #[arg(long, value_name = "E", num_args = 0..=1, require_equals = true,
          default_missing_value = "0", value_parser = values::non_negative,
          conflicts_with = "baked")]
    pub quantize: Option<f64>,
    /// URDF or MJCF of an AIBO model without a motion, e.g. ERS-7 or ERS-210.
    #[arg(long, conflicts_with = "files")]
    pub model: Option<motion_viewer::formats::aibo::Model>,
    /// MCAP: the time of the first message, seconds since the Unix epoch
    /// (default 0: timestamps count from the motion's start).
    #[arg(long, value_name = "S", value_parser = values::start_time_ns)]
    pub start_time: Option<u64>,
    /// glTF and PC2: stand the tracks side by side as the viewer does (`fit`:
    /// scaled to a common size; `true-scale`: at their own sizes). Without
    /// it each keeps its file's own coordinates: a MEMG mesh where its .obj
    /// puts it, an AIBO body frame at the origin, MRTK in its recording's world.
    #[arg(long, value_name = "fit|true-scale")]
    pub layout: Option<motion_viewer::scene::Layout>,
}

/// A moment in the timeline: `--time S` or `--frame N`.
#[derive(Debug, Args, Clone, Copy, Default)]
#[group(multiple = false)]
pub struct AtArgs {
    /// Time in seconds.
    #[arg(long)]
    pub time: Option<f64>,
    /// Frame number, in the first motion's own frame period.
    #[arg(long)]
    pub frame: Option<u64>,
}

impl AtArgs {
    /// The moment asked for, if any.
    pub fn at(&self) -> Option<At> {
        match (self.time, self.frame) {
            (Some(t), _) => Some(At::Time(t)),
            (None, Some(f)) => Some(At::Frame(f)),
            _ => None,
        }
    }
}

/// Prints each warning of the library as `viewer: warning: …` on stderr,
/// with names from files escaped for the terminal.
pub fn warn_all(warnings: &[String]) {
    for w in warnings {
        warn(w);
    }
}

/// Prints one warning on stderr, escaped for the terminal.
pub fn warn(warning: &str) {
    eprintln!("viewer: warning: {}", motion_viewer::text::escape(warning));
}

/// Opens `paths` through the library's front door (bare archives as
/// `archives` says) and prints the warnings of loading.
pub fn load(
    paths: &[PathBuf],
    archives: motion_viewer::open::Archives,
) -> anyhow::Result<Vec<motion_viewer::Track>> {
    let options = motion_viewer::OpenOptions {
        archives,
        ..motion_viewer::OpenOptions::default()
    };
    let loaded = motion_viewer::open_with(paths, &options)?;
    warn_all(&loaded.warnings);
    Ok(loaded.tracks)
}

/// An error as the one line `viewer:` prints: its message, then each cause
/// whose text the message does not already hold (the library's errors say
/// everything in their own line and also give their cause through
/// `source()`), escaped for the terminal.
pub fn one_line(error: &anyhow::Error) -> String {
    let mut line = error.to_string();
    for cause in error.chain().skip(1) {
        let text = cause.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
    }
    cut_arguments(motion_viewer::text::escape(&line).into_owned())
}

/// The command line's arguments longer than an error quotes
/// ([`motion_viewer::text::QUOTED_CHARS`]).
fn long_arguments() -> Vec<String> {
    std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| a.chars().count() > motion_viewer::text::QUOTED_CHARS)
        .collect()
}

/// `message` with each long argument it repeats (as given, or escaped for
/// the terminal) cut as every quoted value is: its first 80 characters and
/// its length (`from-csv`'s rule), so that a 10 000-character pattern makes
/// a line, not a screenful.
fn cut_arguments(mut message: String) -> String {
    use motion_viewer::text::{QUOTED_CHARS, cut, escape};
    for arg in long_arguments() {
        let escaped = escape(&arg).into_owned();
        let short = cut(&escaped, QUOTED_CHARS).into_owned();
        for form in [&arg, &escaped] {
            if message.contains(form.as_str()) {
                message = message.replace(form.as_str(), &short);
            }
        }
    }
    message
}

/// The command line parsed. A value that does not parse is refused in one
/// line, as every other error is ([`clap_errors`]); clap's other errors (an
/// unknown option, a missing argument) keep its usage lines, with their long
/// arguments cut as ours are. Either exits 2, clap's status for a usage
/// error.
fn parse() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    use clap::{CommandFactory, FromArgMatches};
    let parsed = clap_errors::negative_numbers_as_values(Cli::command())
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    match parsed {
        Ok(cli) => Ok(cli),
        Err(e) => {
            if let Some(line) = clap_errors::value_error(&e) {
                let line = motion_viewer::text::escape(&line).into_owned();
                eprintln!("viewer: {}", cut_arguments(line));
                return Err(ExitCode::from(2));
            }
            if long_arguments().is_empty()
                || matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
            {
                e.exit()
            }
            eprint!("{}", cut_arguments(e.render().to_string()));
            Err(ExitCode::from(2))
        }
    }
}

/// Writes `text` (lines holding names from files) to standard output,
/// escaped line by line for the terminal, as [`print_stdout`] does.
pub fn print_text(text: &str) -> anyhow::Result<()> {
    print_stdout(&motion_viewer::text::escape_lines(text))
}

/// Writes `text` to standard output; a reader that went away (`viewer info … | head`)
/// ends the output quietly instead of failing.
pub fn print_stdout(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// Ctrl+C (SIGINT) and SIGTERM remove the outputs still being written
/// before the process ends (exit status 130, as a shell reports an
/// interrupted command): a long render or export leaves no partial file.
/// Screenshots from the window are written whole in a moment and need none.
fn remove_partial_outputs_on_interrupt() {
    // Without a handler (another one installed first) the default applies:
    // the process ends, and a partial file may stay behind.
    let _ = ctrlc::set_handler(|| {
        motion_viewer::output::remove_partial_files();
        exit_now(130);
    });
}

/// Ends the process at once with `code`. On Unix without the C library's
/// exit handlers: the GPU driver's (Mesa's) run there while a render thread
/// may still be inside it, and a crash in them (SIGSEGV, seen under load)
/// would replace the 130 an interrupted command reports. Nothing is left to
/// flush: the partial outputs are gone and the messages written.
fn exit_now(code: i32) -> ! {
    #[cfg(unix)]
    // SAFETY: _exit only ends the process; it touches no Rust state.
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}

/// Parses the command line, runs it, and turns an error into one line on stderr.
pub fn main() -> ExitCode {
    let mut cli = match parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    // Only the commands that write files: `serve` and the window keep the
    // default (or their own) handling.
    if matches!(
        cli.command,
        Some(
            Command::Export(_)
                | Command::Render(_)
                | Command::Plot(_)
                | Command::Mtn(_)
                | Command::Memg(_)
                | Command::Bench(_)
                | Command::Simulate(_)
        )
    ) {
        remove_partial_outputs_on_interrupt();
    }
    // `diff` and `simulate` tell a finding (1) from an error (2).
    let error_status = if matches!(cli.command, Some(Command::Diff(_) | Command::Simulate(_))) {
        ExitCode::from(2)
    } else {
        ExitCode::FAILURE
    };
    if let Some(entry) = cli.entry.take()
        && let Err(e) = workbench::select_entry(cli.inputs(), &entry)
    {
        eprintln!("viewer: {}", one_line(&e));
        return error_status;
    }
    let result = match cli.command {
        Some(Command::Info(args)) => info::run(&args),
        Some(Command::Export(args)) => export::run(&args),
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::Render(args)) => render::run(&args),
        Some(Command::Plot(args)) => curves::plot_run(&args),
        Some(Command::Diff(args)) => return curves::diff_run(&args),
        Some(Command::Simulate(args)) => return simulate::run(&args),
        Some(Command::Mtn(args)) => workbench::run(&args),
        Some(Command::Memg(args)) => memg::run(&args),
        Some(Command::Serve(args)) => serve::run(&args),
        // Without files the window opens empty and says how to open some.
        None => play::run(&cli.files, &cli.play),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("viewer: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}
