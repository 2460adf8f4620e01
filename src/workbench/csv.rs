//! Keyframes from a table: CSV or JSON, as `viewer export x.csv|x.json` writes
//! them, or as a spreadsheet saves them.
//!
//! Columns, in any order: `time_s` (seconds) or `frame` (whole frames); the
//! body attitude `roll_deg`, `pitch_deg`, `yaw_deg` (each optional, 0 when
//! absent); then one column per joint in degrees, named by its PRM name (as
//! the export writes it) or its short label (`left_front_j1`, `head_tilt`,
//! `tail_pan`…). The joints must be all of the model's, or exactly one body
//! part (legs, head, tail, ears, mouth), which sets the design label.
//!
//! Each row is a keyframe at its time, rounded to the nearest frame. Rows
//! that lie on the straight line between their neighbours (within half a
//! micro-radian, the file's resolution, on every channel) are merged, so an
//! exported motion comes back with its own keyframes. A JSON table is an
//! array of objects keyed by column.
//!
//! Anything wrong is one [`CsvError`] naming the row and column, with rows
//! counted as a spreadsheet does (the header is row 1; in JSON, the n-th
//! object is row n).

use super::{Edit, EditError, finish};
use crate::anim::aibo::joint_label;
use crate::formats::aibo::{Joint, Model};
use crate::formats::mtn::{Keyframe, Mtn, Scope, URAD_TO_DEG, design_label, prm_names};

/// The most rows a table may have: a 250 s motion sampled at 4 kHz.
pub const MAX_ROWS: usize = 1_000_000;

/// Rows merged into one straight segment are looked for this far ahead at
/// most, which bounds the work to rows × this × channels.
const MAX_MERGE_SPAN: usize = 1024;

/// What the table does not say.
#[derive(Debug, Clone, PartialEq)]
pub struct FromTable {
    /// The robot model the joints belong to.
    pub model: Model,
    /// The motion name, e.g. `a_sit#stand_wave`.
    pub name: String,
    /// The creator string.
    pub creator: String,
    /// The frame period in ms (16 for every Sony motion).
    pub frame_ms: u16,
    /// Keep one keyframe per row instead of merging rows on a straight line.
    pub every_row: bool,
}

/// A table that does not make a motion: where and why, in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", place(*.row, .column.as_deref()))]
pub struct CsvError {
    /// The row (the header is row 1); `None` when not about one row.
    pub row: Option<usize>,
    /// The column, when the error is about one.
    pub column: Option<String>,
    /// What is wrong.
    pub message: String,
}

fn place(row: Option<usize>, column: Option<&str>) -> String {
    match (row, column) {
        (Some(r), Some(c)) => format!("row {r}, column {c:?}: "),
        (Some(r), None) => format!("row {r}: "),
        (None, Some(c)) => format!("column {c:?}: "),
        (None, None) => String::new(),
    }
}

fn error(row: usize, column: Option<&str>, message: impl Into<String>) -> CsvError {
    CsvError {
        row: Some(row),
        column: column.map(str::to_string),
        message: message.into(),
    }
}

impl From<EditError> for CsvError {
    fn from(e: EditError) -> Self {
        CsvError {
            row: None,
            column: None,
            message: e.to_string(),
        }
    }
}

/// One cell as read.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Number(f64),
    Text(String),
    Missing,
}

/// A table as read: column names, and rows numbered as the user counts them.
struct Table {
    columns: Vec<String>,
    header_row: usize,
    rows: Vec<(usize, Vec<Cell>)>,
}

/// Builds a motion from CSV text (see the module docs).
pub fn from_csv(bytes: &[u8], options: &FromTable) -> Result<Edit, CsvError> {
    build(read_csv(bytes)?, options)
}

/// Builds a motion from a JSON array of objects (see the module docs).
pub fn from_json(bytes: &[u8], options: &FromTable) -> Result<Edit, CsvError> {
    build(read_json(bytes)?, options)
}

fn read_csv(bytes: &[u8]) -> Result<Table, CsvError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let row_of = |e: &csv::Error| e.position().map_or(1, |p| p.line() as usize);
    let columns: Vec<String> = reader
        .headers()
        .map_err(|e| error(row_of(&e), None, csv_message(&e)))?
        .iter()
        .map(str::to_string)
        .collect();
    let header_row = reader.position().line().max(1) as usize - 1;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| error(row_of(&e), None, csv_message(&e)))?;
        let row = record.position().map_or(0, |p| p.line() as usize);
        if rows.len() == MAX_ROWS {
            return Err(error(row, None, format!("more than {MAX_ROWS} rows")));
        }
        if record.iter().all(str::is_empty) {
            continue;
        }
        let mut cells: Vec<Cell> = record.iter().map(|c| Cell::Text(c.to_string())).collect();
        if cells.len() > columns.len() {
            return Err(error(
                row,
                None,
                format!(
                    "{} cells, but the header names {} columns",
                    cells.len(),
                    columns.len()
                ),
            ));
        }
        cells.resize(columns.len(), Cell::Missing);
        rows.push((row, cells));
    }
    Ok(Table {
        columns,
        header_row: header_row.max(1),
        rows,
    })
}

/// The csv crate's error without its own position (the caller names the row).
fn csv_message(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".into(),
        csv::ErrorKind::Io(io) => io.to_string(),
        _ => e.to_string(),
    }
}

fn read_json(bytes: &[u8]) -> Result<Table, CsvError> {
    let objects: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_slice(bytes)
        .map_err(|e| CsvError {
            row: None,
            column: None,
            message: format!(
                "not a JSON array of objects (line {}, column {}: {e})",
                e.line(),
                e.column()
            ),
        })?;
    if objects.len() > MAX_ROWS {
        return Err(error(
            MAX_ROWS + 1,
            None,
            format!("more than {MAX_ROWS} rows"),
        ));
    }
    let columns: Vec<String> = objects
        .first()
        .map_or_else(Vec::new, |o| o.keys().cloned().collect());
    let mut rows = Vec::with_capacity(objects.len());
    for (i, object) in objects.into_iter().enumerate() {
        let row = i + 1;
        if let Some(extra) = object.keys().find(|k| !columns.contains(k)) {
            return Err(error(row, Some(extra), "not among the first row's columns"));
        }
        let cells = columns
            .iter()
            .map(|c| match object.get(c) {
                None | Some(serde_json::Value::Null) => Cell::Missing,
                Some(serde_json::Value::Number(n)) => {
                    n.as_f64().map_or(Cell::Missing, Cell::Number)
                }
                Some(serde_json::Value::String(s)) => Cell::Text(s.clone()),
                Some(other) => Cell::Text(other.to_string()),
            })
            .collect();
        rows.push((row, cells));
    }
    Ok(Table {
        columns,
        header_row: 1,
        rows,
    })
}

/// What a column holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Channel {
    TimeS,
    Frame,
    Body(usize),
    Joint(Joint),
}

/// Reads the header: what each column holds, or the first column that is wrong.
fn channels(table: &Table, model: Model) -> Result<Vec<Channel>, CsvError> {
    let header = table.header_row;
    let mut out: Vec<Channel> = Vec::with_capacity(table.columns.len());
    for column in &table.columns {
        let channel = match column.as_str() {
            "time_s" => Channel::TimeS,
            "frame" => Channel::Frame,
            "roll_deg" => Channel::Body(0),
            "pitch_deg" => Channel::Body(1),
            "yaw_deg" => Channel::Body(2),
            name => match joint_named(model, name) {
                Some(joint) => Channel::Joint(joint),
                None => return Err(error(header, Some(column), unknown_column(model, name))),
            },
        };
        if out.contains(&channel) {
            return Err(error(
                header,
                Some(column),
                "a second column for the same channel",
            ));
        }
        out.push(channel);
    }
    let has = |c| out.contains(&c);
    match (has(Channel::TimeS), has(Channel::Frame)) {
        (true, true) => Err(error(
            header,
            Some("frame"),
            "give time_s or frame, not both",
        )),
        (false, false) => Err(error(header, None, "no time_s or frame column")),
        _ => Ok(out),
    }
}

/// The model's joint called `name`, by PRM name or short label.
fn joint_named(model: Model, name: &str) -> Option<Joint> {
    prm_names(model)
        .iter()
        .find(|(joint, prm)| *prm == name || joint_label(*joint) == name)
        .map(|&(joint, _)| joint)
}

fn unknown_column(model: Model, name: &str) -> String {
    let elsewhere = Model::ALL
        .into_iter()
        .find(|&other| other != model && prm_names(other).iter().any(|(_, prm)| *prm == name));
    match elsewhere {
        Some(other) => format!("a joint of the {other}, not of the {model}"),
        None => format!(
            "not a joint of the {model} (a PRM name or a label such as left_front_j1), nor \
             time_s, frame, roll_deg, pitch_deg or yaw_deg"
        ),
    }
}

/// The design scope the joint columns make, or the first joint missing.
fn scope(model: Model, joints: &[Joint], header: usize) -> Result<Scope, CsvError> {
    let all: Vec<Joint> = prm_names(model).iter().map(|&(j, _)| j).collect();
    let part = |scope: Scope| -> Vec<Joint> {
        all.iter()
            .copied()
            .filter(|&j| match scope {
                Scope::Full => true,
                Scope::Legs => matches!(j, Joint::Leg(..)),
                // The ERS-110 head group holds the mouth (NOTES §1).
                Scope::Head => {
                    matches!(j, Joint::HeadTilt | Joint::HeadPan | Joint::HeadRoll)
                        || (model == Model::Ers110 && j == Joint::Mouth)
                }
                Scope::Tail => matches!(j, Joint::TailTilt | Joint::TailPan),
                Scope::Ears => matches!(j, Joint::LeftEar | Joint::RightEar),
                Scope::Mouth => j == Joint::Mouth,
            })
            .collect()
    };
    let scopes = [
        Scope::Full,
        Scope::Legs,
        Scope::Head,
        Scope::Tail,
        Scope::Ears,
        Scope::Mouth,
    ];
    let same = |set: &[Joint]| set.len() == joints.len() && set.iter().all(|j| joints.contains(j));
    if let Some(&found) = scopes
        .iter()
        .find(|&&s| !part(s).is_empty() && same(&part(s)))
    {
        return Ok(found);
    }
    // Name what is missing from the smallest part that holds every column given.
    let holder = scopes
        .iter()
        .map(|&s| part(s))
        .filter(|set| joints.iter().all(|j| set.contains(j)))
        .min_by_key(Vec::len)
        .unwrap_or(all);
    let missing = holder.iter().find(|j| !joints.contains(j)).copied();
    let column = missing.map(|j| {
        let prm = prm_names(model)
            .iter()
            .find(|(x, _)| *x == j)
            .map_or("", |p| p.1);
        format!("{prm} ({})", joint_label(j))
    });
    Err(error(
        header,
        column.as_deref(),
        format!(
            "missing: the joint columns must be all of the {model}'s joints or exactly one \
             body part (legs, head, tail, ears, mouth)"
        ),
    ))
}

/// A cell as a finite number, or an error naming it.
fn number(cell: &Cell, row: usize, column: &str) -> Result<f64, CsvError> {
    let value = match cell {
        Cell::Number(x) => *x,
        Cell::Text(t) if t.is_empty() => return Err(error(row, Some(column), "empty")),
        Cell::Text(t) => t
            .parse::<f64>()
            .map_err(|_| error(row, Some(column), format!("{t:?} is not a number")))?,
        Cell::Missing => return Err(error(row, Some(column), "missing")),
    };
    if value.is_finite() {
        Ok(value)
    } else {
        Err(error(
            row,
            Some(column),
            format!("{value} is not a finite number"),
        ))
    }
}

/// Degrees to the file's whole micro-radians, or an error if the file can't hold it.
fn urad(deg: f64, row: usize, column: &str) -> Result<i32, CsvError> {
    let x = (deg / URAD_TO_DEG).round();
    if x < f64::from(i32::MIN) || x > f64::from(i32::MAX) {
        let most = f64::from(i32::MAX) * URAD_TO_DEG;
        return Err(error(
            row,
            Some(column),
            format!("{deg}° is beyond what a motion file holds (±{most:.0}°)"),
        ));
    }
    Ok(x as i32)
}

/// One row read: its frame, and body then joint angles in µrad.
struct Row {
    frame: u64,
    values: Vec<i32>,
}

fn build(table: Table, options: &FromTable) -> Result<Edit, CsvError> {
    let model = options.model;
    if options.frame_ms == 0 {
        return Err(CsvError {
            row: None,
            column: None,
            message: "a frame period of 0 ms: expected 1 to 65535".into(),
        });
    }
    let channels = channels(&table, model)?;
    // The joints in the model's order, each with its column.
    let joint_columns: Vec<(Joint, &'static str, usize)> = prm_names(model)
        .iter()
        .filter_map(|&(joint, prm)| {
            let column = channels.iter().position(|c| *c == Channel::Joint(joint))?;
            Some((joint, prm, column))
        })
        .collect();
    let joints: Vec<Joint> = joint_columns.iter().map(|&(j, ..)| j).collect();
    let scope = scope(model, &joints, table.header_row)?;
    let body: [Option<usize>; 3] =
        [0, 1, 2].map(|b| channels.iter().position(|c| *c == Channel::Body(b)));
    let time = channels
        .iter()
        .position(|c| matches!(c, Channel::TimeS | Channel::Frame))
        .expect("checked by channels()");
    let by_frame = channels[time] == Channel::Frame;
    let frame_s = f64::from(options.frame_ms) / 1000.0;

    let mut warnings = Vec::new();
    let mut off_grid = 0;
    let mut rows: Vec<Row> = Vec::with_capacity(table.rows.len());
    for (row, cells) in &table.rows {
        let row = *row;
        let name = &table.columns[time];
        let t = number(&cells[time], row, name)?;
        let exact = if by_frame { t } else { t / frame_s };
        if exact < 0.0 || exact >= (1u64 << 52) as f64 || (by_frame && t.fract() != 0.0) {
            let what = if by_frame {
                "a whole frame number, 0 or more"
            } else {
                "a time of 0 s or more"
            };
            return Err(error(row, Some(name), format!("{t}: expected {what}")));
        }
        let frame = exact.round() as u64;
        if (exact - frame as f64).abs() > 0.01 {
            off_grid += 1;
        }
        if let Some(before) = rows.last()
            && frame <= before.frame
        {
            return Err(error(
                row,
                Some(name),
                format!(
                    "{t} lands on frame {frame}, not after the row before (frame {})",
                    before.frame
                ),
            ));
        }
        let mut values = Vec::with_capacity(3 + joint_columns.len());
        for column in body {
            values.push(match column {
                Some(c) => urad(
                    number(&cells[c], row, &table.columns[c])?,
                    row,
                    &table.columns[c],
                )?,
                None => 0,
            });
        }
        for &(_, _, c) in &joint_columns {
            let column = &table.columns[c];
            values.push(urad(number(&cells[c], row, column)?, row, column)?);
        }
        rows.push(Row { frame, values });
    }
    let Some(first) = rows.first() else {
        return Err(error(table.header_row, None, "no rows after the header"));
    };
    if first.frame != 0 {
        warnings.push(format!(
            "the first row is at frame {}; the motion starts there",
            first.frame
        ));
    }
    if off_grid > 0 {
        warnings.push(format!(
            "{off_grid} row(s) fall between {} ms frames; each moved to the nearest frame",
            options.frame_ms
        ));
    }
    let kept = if options.every_row {
        (0..rows.len()).collect()
    } else {
        straight_segments(&rows)
    };
    let mut keyframes = Vec::with_capacity(kept.len());
    for (n, &i) in kept.iter().enumerate() {
        let interp = match n {
            0 => 0,
            _ => {
                let gap = rows[i].frame - rows[kept[n - 1]].frame - 1;
                u32::try_from(gap).map_err(|_| {
                    error(
                        table.rows[i].0,
                        Some(&table.columns[time]),
                        format!("{gap} frames after the row before: a segment holds at most 2^32"),
                    )
                })?
            }
        };
        let v = &rows[i].values;
        keyframes.push(Keyframe {
            interp,
            roll: v[0],
            pitch: v[1],
            yaw: v[2],
            joints: v[3..].to_vec(),
        });
    }
    let ers110 = model == Model::Ers110;
    if ers110 && options.frame_ms != 16 {
        warnings.push("the ERS-110 plays 16 ms frames whatever the file says".into());
    }
    let mut motion = Mtn {
        version: if ers110 { [1, 1] } else { [1, 2] },
        section_count: 4,
        // Sony's ERS-110 files store 0: its player always runs 16 ms frames.
        frame_rate: if ers110 { 0 } else { options.frame_ms },
        name: options.name.clone(),
        creator: options.creator.clone(),
        design: format!("{}{}", design_label(model), scope.suffix()),
        joints: joint_columns
            .iter()
            .map(|&(_, prm, _)| prm.to_string())
            .collect(),
        keyframes,
        ..Mtn::default()
    };
    motion.pad_sections();
    Ok(finish(motion, warnings)?)
}

/// The rows to keep as keyframes: the first, the last, and those where some
/// channel leaves the straight line from the last kept row by more than half
/// a micro-radian (the rounding of a value exported between two keyframes).
fn straight_segments(rows: &[Row]) -> Vec<usize> {
    const TOLERANCE: f64 = 0.5 + 1e-6;
    let on_line = |a: usize, e: usize| {
        let (fa, fe) = (rows[a].frame as f64, rows[e].frame as f64);
        (a + 1..e).all(|j| {
            let u = (rows[j].frame as f64 - fa) / (fe - fa);
            rows[j].values.iter().enumerate().all(|(c, &v)| {
                let (va, ve) = (f64::from(rows[a].values[c]), f64::from(rows[e].values[c]));
                (f64::from(v) - (va + (ve - va) * u)).abs() <= TOLERANCE
            })
        })
    };
    let mut kept = vec![0];
    let mut anchor = 0;
    while anchor + 1 < rows.len() {
        let mut end = anchor + 1;
        while end + 1 < rows.len() && end + 1 - anchor <= MAX_MERGE_SPAN && on_line(anchor, end + 1)
        {
            end += 1;
        }
        kept.push(end);
        anchor = end;
    }
    kept
}
