//! Every frame of a motion as a table: time plus one column per channel,
//! written as CSV or as a JSON array of objects keyed by column.
//!
//! Rows are computed and written one at a time, never held together, and the
//! size is checked before anything is written: a table larger than
//! the budget allows for its input is refused with a line saying how to
//! narrow it. A motion may declare any duration; the work done is bounded by
//! what the file really holds.

use crate::anim::clock::{Grid, Window};
use crate::anim::input_animation::{InputState, JOINT_NAMES, Pose, state_at};
use crate::anim::memg::{self, Between, MemgChannel};
use crate::anim::mtn::MtnSampler;
use crate::error::{Error, Result};
use crate::export::finite::{self, Holder};
use crate::formats::input_animation::InputAnimation;
use crate::formats::memg::MemgMotion;
use crate::scene::Track;
use std::io::Write;
use std::path::Path;

/// The fewest cells any table may have before the size check applies.
pub(crate) const MIN_CELL_BUDGET: u64 = 10_000_000;
/// Cells allowed per byte of input beyond [`MIN_CELL_BUDGET`]: a real
/// recording keys its channels about as often as it is sampled, so its
/// table has fewer cells than its file has bytes.
pub(crate) const CELLS_PER_INPUT_BYTE: u64 = 16;

/// The most cells a table from an input of `input_bytes` may have.
pub(crate) fn max_cells(input_bytes: u64) -> u64 {
    MIN_CELL_BUDGET.max(input_bytes.saturating_mul(CELLS_PER_INPUT_BYTE))
}

/// Which times a table, a bag or a stage samples: the track's frames on the
/// one clock ([`crate::anim::clock::Grid`]) at its own frame period or at a
/// given rate, over the whole motion or a window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// Seconds between rows.
    pub period_s: f64,
    /// Time of the first row.
    pub start_s: f64,
    /// Rows sampled.
    pub rows: u64,
    /// Their times (the rows are the grid's first [`Sampling::rows`]).
    pub(crate) grid: Grid,
}

impl Sampling {
    /// Every frame of `track` at its own frame period, or at `fps`, within
    /// `window` (the whole motion, last frame included, when `None`). Fails
    /// on a rate that is not a positive number.
    pub fn new(track: &Track, fps: Option<f64>, window: Option<Window>) -> Result<Sampling> {
        if let Some(f) = fps
            && !(f.is_finite() && f > 0.0)
        {
            return Err(Error::unsupported(
                track.path(),
                format!("--fps must be a positive number of samples per second, got {f}"),
            ));
        }
        let grid = track.grid(fps, window.unwrap_or(Window::Whole));
        Ok(Sampling {
            period_s: grid.period_s(),
            start_s: grid.time_s(0),
            rows: grid.len(),
            grid,
        })
    }

    /// The time of row `i`.
    pub fn time(&self, i: u64) -> f64 {
        self.grid.time_s(i)
    }
}

/// The columns of `track`'s table; `time_s` first. A MEMG motion's are its
/// reduced coordinates ([`crate::anim::memg::channels`]): each group's
/// coefficients and its local frame's translation (its mesh goes to `.obj`,
/// `.pc2`, glTF or USD).
pub fn columns(track: &Track) -> Vec<String> {
    match track {
        Track::Mtn { motion, .. } => ["time_s", "roll_deg", "pitch_deg", "yaw_deg"]
            .into_iter()
            .map(String::from)
            .chain(motion.joint_names().into_iter().map(String::from))
            .collect(),
        Track::InputAnimation { recording, .. } => input_columns(recording),
        Track::Memg { motion, .. } => std::iter::once("time_s".to_string())
            .chain(memg::channels(motion).iter().map(MemgChannel::name))
            .collect(),
    }
}

/// `track`'s row at `t` seconds, in [`columns`] order, as the viewer
/// evaluates it (values that are not finite left as they are).
pub fn row(track: &Track, t: f64) -> Vec<f64> {
    match track {
        Track::Mtn { motion, .. } => mtn_row(&MtnSampler::new(motion), t),
        Track::InputAnimation { recording, .. } => input_row(&state_at(recording, t)),
        Track::Memg { motion, .. } => memg_row(motion, &memg::channels(motion), t),
    }
}

fn memg_row(motion: &MemgMotion, channels: &[MemgChannel], t: f64) -> Vec<f64> {
    let at = Between::at_time(motion, t);
    std::iter::once(t)
        .chain(
            channels
                .iter()
                .map(|c| at.as_ref().map_or(f64::NAN, |at| c.value(motion, at))),
        )
        .collect()
}

fn mtn_row(sampler: &MtnSampler<'_>, t: f64) -> Vec<f64> {
    let pose = sampler.pose_at(t);
    let mut row = Vec::with_capacity(4 + pose.joints_deg.len());
    row.push(t);
    row.extend(pose.body_deg);
    row.extend(pose.joints_deg);
    row
}

/// What a table's rows are evaluated from, prepared once per table (a
/// `.mtn`'s keyframe times found once, so each row costs a bisection, not a
/// walk over the keyframes), with the finite-number policy applied: an MRTK
/// value that is not finite (tracking lost) holds its last finite value;
/// any other is refused.
enum Rows<'a> {
    Mtn(MtnSampler<'a>),
    InputAnimation(&'a InputAnimation, Holder),
    Memg(&'a MemgMotion, Vec<MemgChannel>),
}

impl<'a> Rows<'a> {
    fn new(track: &'a Track) -> Rows<'a> {
        match track {
            Track::Mtn { motion, .. } => Rows::Mtn(MtnSampler::new(motion)),
            Track::InputAnimation { recording, .. } => {
                Rows::InputAnimation(recording, Holder::default())
            }
            Track::Memg { motion, .. } => Rows::Memg(motion, memg::channels(motion)),
        }
    }

    /// The row at `t`, or the refusal of a value that is not finite, naming
    /// `path`, the column and the time.
    fn row(&mut self, t: f64, path: &Path, columns: &[String]) -> Result<Vec<f64>> {
        let row = match self {
            Rows::Mtn(sampler) => mtn_row(sampler, t),
            Rows::InputAnimation(recording, holder) => {
                let mut state = state_at(recording, t);
                holder.hold_input(&mut state);
                input_row(&state)
            }
            Rows::Memg(motion, channels) => memg_row(motion, channels, t),
        };
        for (k, &v) in row.iter().enumerate() {
            finite::check(v, path, t, || format!("column {}", columns[k]))?;
        }
        Ok(row)
    }

    /// The one warning for the values held, if any.
    fn warning(&self, path: &Path) -> Option<String> {
        match self {
            Rows::InputAnimation(_, holder) => holder.warning(path, "table"),
            _ => None,
        }
    }
}

fn input_columns(r: &InputAnimation) -> Vec<String> {
    let pose_columns = |prefix: &str| {
        ["px", "py", "pz", "rx", "ry", "rz", "rw"]
            .iter()
            .map(|c| format!("{prefix}_{c}"))
            .collect::<Vec<_>>()
    };
    let mut columns = vec!["time_s".to_string()];
    if r.camera.is_some() {
        columns.extend(pose_columns("camera"));
    }
    if r.hands.is_some() {
        for side in ["left", "right"] {
            columns.push(format!("{side}_tracked"));
            columns.push(format!("{side}_pinching"));
            for name in JOINT_NAMES {
                columns.extend(pose_columns(&format!("{side}_{name}")));
            }
        }
    }
    if r.eye_gaze.is_some() {
        for c in ["ox", "oy", "oz", "dx", "dy", "dz"] {
            columns.push(format!("gaze_{c}"));
        }
    }
    columns
}

fn input_row(s: &InputState) -> Vec<f64> {
    let mut out = vec![s.time_s];
    let pose = |out: &mut Vec<f64>, p: &Pose| {
        out.extend(p.position.iter().chain(&p.rotation).map(|&v| f64::from(v)));
    };
    if let Some(c) = &s.camera {
        pose(&mut out, c);
    }
    if let Some(h) = &s.hands {
        for hand in [&h.left, &h.right] {
            out.push(f64::from(u8::from(hand.tracked)));
            out.push(f64::from(u8::from(hand.pinching)));
            for j in &hand.joints {
                pose(&mut out, j);
            }
        }
    }
    if let Some(g) = &s.eye_gaze {
        out.extend(g.origin.iter().chain(&g.direction).map(|&v| f64::from(v)));
    }
    out
}

/// The text layouts a table is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated, a header line of column names.
    Csv,
    /// A JSON array of objects keyed by column.
    Json,
}

/// Refuses a table of `rows` × `columns` cells that is larger than an input
/// of `input_bytes` warrants, naming `out` and how to narrow it.
pub fn check_size(out: &Path, rows: u64, columns: usize, input_bytes: u64) -> Result<()> {
    let cells = rows.saturating_mul(columns as u64);
    let limit = max_cells(input_bytes);
    if cells > limit {
        return Err(Error::TooLarge {
            path: out.to_path_buf(),
            what: format!("{rows} rows × {columns} columns = {cells} values"),
            limit: format!("{limit} an export of this input may write"),
            hint: "narrow it with --fps (fewer rows per second), --frames A..B (a range) \
                   or --time S (one moment, .json)"
                .into(),
        });
    }
    Ok(())
}

/// Writes `track`'s table sampled by `sampling` to `out` (atomically), after
/// [`check_size`] against `input_bytes`. Returns the warnings (values held
/// through tracking loss).
pub fn write(
    track: &Track,
    sampling: &Sampling,
    format: TableFormat,
    out: &Path,
    input_bytes: u64,
) -> Result<Vec<String>> {
    check(track, sampling, out, input_bytes)?;
    let mut warnings = Vec::new();
    let mut output = crate::output::Output::create(out)?;
    warnings.extend(write_to(track, sampling, format, out, output.writer())?);
    output.commit()?;
    Ok(warnings)
}

/// Refuses `track`'s table before anything is written when it is larger
/// than [`check_size`] allows.
pub fn check(track: &Track, sampling: &Sampling, out: &Path, input_bytes: u64) -> Result<()> {
    check_size(out, sampling.rows, columns(track).len(), input_bytes)
}

/// Writes `track`'s table to `w` (the file `out`, for errors); returns the
/// warnings. Call [`check`] first.
pub(crate) fn write_to(
    track: &Track,
    sampling: &Sampling,
    format: TableFormat,
    out: &Path,
    w: &mut dyn Write,
) -> Result<Vec<String>> {
    let columns = columns(track);
    let mut rows = Rows::new(track);
    let io = |e: std::io::Error| Error::io(out, e);
    match format {
        TableFormat::Csv => {
            // Every line through the CSV writer, the header included: a
            // column named from a file (`a,b`, a quote, a line break) is
            // quoted as RFC 4180 has it.
            let mut csv = csv::WriterBuilder::new().from_writer(&mut *w);
            let csv_error = |e: csv::Error| match e.into_kind() {
                csv::ErrorKind::Io(e) => Error::io(out, e),
                other => Error::io(out, std::io::Error::other(format!("{other:?}"))),
            };
            csv.write_record(&columns).map_err(csv_error)?;
            let mut text = String::new();
            for i in 0..sampling.rows {
                let row = rows.row(sampling.time(i), track.path(), &columns)?;
                for v in &row {
                    text.clear();
                    use std::fmt::Write as _;
                    let _ = write!(text, "{v}");
                    csv.write_field(&text).map_err(csv_error)?;
                }
                csv.write_record(None::<&[u8]>).map_err(csv_error)?;
            }
            csv.flush().map_err(io)?;
        }
        TableFormat::Json => {
            let keys: Vec<String> = columns
                .iter()
                .map(|c| serde_json::to_string(c).expect("a string serialises"))
                .collect();
            w.write_all(b"[").map_err(io)?;
            for i in 0..sampling.rows {
                let row = rows.row(sampling.time(i), track.path(), &columns)?;
                write_json_row(w, i == 0, &keys, &row).map_err(io)?;
            }
            w.write_all(if sampling.rows == 0 { b"]\n" } else { b"\n]\n" })
                .map_err(io)?;
        }
    }
    Ok(rows.warning(track.path()).into_iter().collect())
}

fn write_json_row(
    w: &mut dyn Write,
    first: bool,
    keys: &[String],
    row: &[f64],
) -> std::io::Result<()> {
    w.write_all(if first { b"\n  {" } else { b",\n  {" })?;
    for (k, (key, v)) in keys.iter().zip(row).enumerate() {
        if k > 0 {
            w.write_all(b", ")?;
        }
        // Finite (checked by the rows): serde_json writes it as a number.
        let value = serde_json::to_string(v).map_err(std::io::Error::other)?;
        write!(w, "{key}: {value}")?;
    }
    w.write_all(b"}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cell_budget_grows_with_the_input() {
        assert_eq!(max_cells(0), MIN_CELL_BUDGET);
        assert_eq!(max_cells(1 << 30), (1u64 << 30) * CELLS_PER_INPUT_BYTE);
        assert_eq!(max_cells(u64::MAX), u64::MAX);
    }

    #[test]
    fn an_oversize_table_is_refused_saying_how_to_narrow_it() {
        let e = check_size(Path::new("x.csv"), 4_000_000_000, 385, 219).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("x.csv: 4000000000 rows × 385 columns"),
            "{text}"
        );
        for hint in ["--fps", "--frames A..B", "--time"] {
            assert!(text.contains(hint), "{text}");
        }
        assert!(check_size(Path::new("x.csv"), 1000, 385, 219).is_ok());
    }
}
