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
//! Each row is a keyframe at its time, rounded to the nearest frame, its
//! angles rounded to the file's whole micro-radians. Rows that lie on the
//! straight line between their neighbours (as read, before rounding, within
//! [`ON_THE_LINE_URAD`] on every channel) are merged, so an exported motion
//! comes back with its own keyframes — only those that lie exactly on their
//! neighbours' line are merged into it — and exports to the very same table.
//! A JSON table is an array of objects keyed by column.
//!
//! Anything wrong is one [`CsvError`] naming the row and column, with rows
//! counted as a spreadsheet does (the header is row 1; in JSON, the n-th
//! object is row n).

use super::table::{Table, error, number, read_csv, read_json};
use super::{Edit, finish};
use std::io::{BufRead, BufReader, Read};

pub use super::table::CsvError;
use crate::anim::aibo::joint_label;
use crate::anim::clock;
use crate::formats::aibo::{Joint, Model};
use crate::formats::mtn::{Keyframe, Mtn, Scope, URAD_TO_DEG, design_label, prm_names};

/// How far from a straight line (micro-radians) a row may read and still be
/// merged into it: far below the file's resolution, above the rounding of a
/// value written in degrees as `f64` and read back.
pub const ON_THE_LINE_URAD: f64 = 1e-6;

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

/// Builds a motion from CSV text (see the module docs).
pub fn from_csv(bytes: &[u8], options: &FromTable) -> Result<Edit, CsvError> {
    build(read_csv(bytes)?, options)
}

/// Builds a motion from a JSON array of objects (see the module docs).
pub fn from_json(bytes: &[u8], options: &FromTable) -> Result<Edit, CsvError> {
    build(read_json(bytes)?, options)
}

/// Builds a motion from a CSV or JSON table (JSON when its first
/// character that is not white space is `[`) read from `source` as it
/// streams: a row at a time, each line, field and the whole within the caps
/// (64 KiB a line, 1 KiB a field, 512 MiB and a million rows in all),
/// checked while reading, so an oversized table is refused early and in
/// bounded memory.
pub fn from_table_reader(source: impl Read, options: &FromTable) -> Result<Edit, CsvError> {
    let mut source = BufReader::with_capacity(64 * 1024, source);
    let head = source.fill_buf().map_err(|e| CsvError {
        row: None,
        column: None,
        message: e.to_string(),
    })?;
    let json = head
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'[');
    if json {
        build(read_json(source)?, options)
    } else {
        build(read_csv(source)?, options)
    }
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
fn channels(table: &Table<'_>, model: Model) -> Result<Vec<Channel>, CsvError> {
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
                // The ERS-110 head group holds the mouth (docs/formats.md §1).
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

/// Degrees to micro-radians as read (not rounded), or an error if the file
/// can't hold it.
fn urad(deg: f64, row: usize, column: &str) -> Result<f64, CsvError> {
    let exact = deg / URAD_TO_DEG;
    let x = exact.round();
    if x < f64::from(i32::MIN) || x > f64::from(i32::MAX) {
        let most = f64::from(i32::MAX) * URAD_TO_DEG;
        return Err(error(
            row,
            Some(column),
            format!("{deg}° is beyond what a motion file holds (±{most:.0}°)"),
        ));
    }
    Ok(exact)
}

/// One row read: its row number, its frame, and body then joint angles in
/// µrad as read (the keyframe made of it rounds them).
struct Row {
    line: usize,
    frame: u64,
    values: Vec<f64>,
}

/// Where each channel of a motion is in the table.
struct Layout {
    /// The `time_s` or `frame` column.
    time: usize,
    /// True when that column counts frames.
    by_frame: bool,
    /// Roll, pitch and yaw columns, where given.
    body: [Option<usize>; 3],
    /// The joints in the model's order: role, PRM name, column.
    joints: Vec<(Joint, &'static str, usize)>,
}

fn layout(table: &Table<'_>, model: Model) -> Result<Layout, CsvError> {
    let channels = channels(table, model)?;
    let joints = prm_names(model)
        .iter()
        .filter_map(|&(joint, prm)| {
            let column = channels.iter().position(|c| *c == Channel::Joint(joint))?;
            Some((joint, prm, column))
        })
        .collect();
    let time = channels
        .iter()
        .position(|c| matches!(c, Channel::TimeS | Channel::Frame))
        .expect("checked by channels()");
    Ok(Layout {
        time,
        by_frame: channels[time] == Channel::Frame,
        body: [0, 1, 2].map(|b| channels.iter().position(|c| *c == Channel::Body(b))),
        joints,
    })
}

/// Every row's frame and angles, read from the table as it streams, and how
/// many rows fell between frames.
fn read_rows(
    table: &mut Table<'_>,
    at: &Layout,
    frame_ms: u16,
) -> Result<(Vec<Row>, usize), CsvError> {
    let frame_s = f64::from(frame_ms) / 1000.0;
    let name = &table.columns[at.time];
    let mut off_grid = 0;
    let mut rows: Vec<Row> = Vec::new();
    for read in &mut table.rows {
        let (row, cells) = read?;
        let t = number(&cells[at.time], row, name)?;
        let exact = if at.by_frame {
            t
        } else {
            clock::frames(t, frame_s)
        };
        if exact < 0.0 || exact >= (1u64 << 52) as f64 || (at.by_frame && t.fract() != 0.0) {
            let what = if at.by_frame {
                "a whole frame number, 0 or more"
            } else {
                "a time of 0 s or more"
            };
            return Err(error(row, Some(name), format!("{t}: expected {what}")));
        }
        let frame = clock::nearest(exact);
        if (exact - frame as f64).abs() > 0.01 {
            off_grid += 1;
        }
        if let Some(before) = rows.last()
            && frame <= before.frame
        {
            let message = format!(
                "{t} lands on frame {frame}, not after the row before (frame {})",
                before.frame
            );
            return Err(error(row, Some(name), message));
        }
        let angle = |c: usize| {
            let column = &table.columns[c];
            urad(number(&cells[c], row, column)?, row, column)
        };
        let mut values = Vec::with_capacity(3 + at.joints.len());
        for column in at.body {
            values.push(column.map_or(Ok(0.0), angle)?);
        }
        for &(_, _, c) in &at.joints {
            values.push(angle(c)?);
        }
        rows.push(Row {
            line: row,
            frame,
            values,
        });
    }
    Ok((rows, off_grid))
}

fn build(mut table: Table<'_>, options: &FromTable) -> Result<Edit, CsvError> {
    let model = options.model;
    if options.frame_ms == 0 {
        return Err(CsvError {
            row: None,
            column: None,
            message: "a frame period of 0 ms: expected 1 to 65535".into(),
        });
    }
    let at = layout(&table, model)?;
    let joints: Vec<Joint> = at.joints.iter().map(|&(j, ..)| j).collect();
    let scope = scope(model, &joints, table.header_row)?;
    let (rows, off_grid) = read_rows(&mut table, &at, options.frame_ms)?;
    let Some(first) = rows.first() else {
        return Err(error(table.header_row, None, "no rows after the header"));
    };
    let mut warnings = Vec::new();
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
        let gap = if n == 0 {
            0
        } else {
            rows[i].frame - rows[kept[n - 1]].frame - 1
        };
        let interp = u32::try_from(gap).map_err(|_| {
            let message =
                format!("{gap} frames after the row before: a segment holds at most 2^32");
            error(rows[i].line, Some(&table.columns[at.time]), message)
        })?;
        // Within i32 (checked by `urad`).
        let v: Vec<i32> = rows[i].values.iter().map(|x| x.round() as i32).collect();
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
        joints: at
            .joints
            .iter()
            .map(|&(_, prm, _)| prm.to_string())
            .collect(),
        keyframes,
        ..Mtn::default()
    };
    motion.pad_sections();
    Ok(finish(motion, warnings)?)
}

/// The rows to keep as keyframes: from each kept row, the furthest row
/// whose straight line from it passes within [`ON_THE_LINE_URAD`] of every
/// row between, on every channel (as read: a value exported between two
/// keyframes lies on their line, a keyframe off it stays a keyframe).
///
/// The lines that still fit are tracked as an interval of slopes per channel,
/// which only narrows as rows are added; the search from a row ends when it
/// empties (or after [`MAX_MERGE_SPAN`] rows), so the work stays near linear.
fn straight_segments(rows: &[Row]) -> Vec<usize> {
    const TOLERANCE: f64 = ON_THE_LINE_URAD;
    let channels = rows.first().map_or(0, |r| r.values.len());
    let mut lo = vec![0.0; channels];
    let mut hi = vec![0.0; channels];
    let mut kept = vec![0];
    let mut anchor = 0;
    while anchor + 1 < rows.len() {
        lo.fill(f64::NEG_INFINITY);
        hi.fill(f64::INFINITY);
        let a = &rows[anchor];
        let mut best = anchor + 1;
        for (e, row) in rows
            .iter()
            .enumerate()
            .skip(anchor + 1)
            .take(MAX_MERGE_SPAN)
        {
            let df = (row.frame - a.frame) as f64;
            let slope = |c: usize, offset: f64| (row.values[c] + offset - a.values[c]) / df;
            if (0..channels).all(|c| (lo[c]..=hi[c]).contains(&slope(c, 0.0))) {
                best = e;
            }
            // Row e now bounds every line that reaches past it.
            let mut open = true;
            for c in 0..channels {
                lo[c] = lo[c].max(slope(c, -TOLERANCE));
                hi[c] = hi[c].min(slope(c, TOLERANCE));
                open &= lo[c] <= hi[c];
            }
            if !open {
                break;
            }
        }
        kept.push(best);
        anchor = best;
    }
    kept
}
