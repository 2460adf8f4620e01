//! `viewer diff A B`: two motions of one format compared channel by
//! channel, the largest difference and when it occurs.
//!
//! - **AIBO**: body roll, pitch, yaw and every joint both motions have, in
//!   degrees.
//! - **MRTK**: camera, hand joint and gaze positions (metres), gaze
//!   directions, and the tracked and pinching states (0/1). Quaternion
//!   components are left out: `q` and `−q` are one rotation, so their
//!   difference says nothing on its own.
//! - **MEMG** (each side a `.obj` and its motion): the distance between
//!   the two scenes' vertices, the largest over each motion group's
//!   vertices and over all (`vertices`), with the `.obj` vertex (1-based)
//!   where it occurs. Both scenes must have the same vertex count.
//!
//! **The clock.** `b_speed` X compares A at `t` with B at `t/X` (B made by
//! `mtn retime --speed X` lines up with A). Both are sampled on the finer
//! of their frame grids (B's period counting X times on A's clock) from 0
//! over the shorter of the two; where the lengths or the periods differ the
//! report's notes say so.

use super::source::{Evaluator, Pick, catalogue};
use super::{MAX_SAMPLES, Unit};
use crate::anim::clock;
use crate::anim::memg::{Binding, Deformer, steps_at};
use crate::error::{Error, Result};
use crate::scene::Track;
use serde::Serialize;

/// The most values one comparison computes, both motions and all times
/// together (a MEMG scene counts each vertex position as one): past it the
/// times compared are thinned to every k-th, and the notes say so. Keeps a
/// comparison to seconds whatever length a file declares.
pub(crate) const VALUE_BUDGET: u64 = 50_000_000;

/// How two motions are compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiffOptions {
    /// A difference larger than this exceeds (in each channel's unit).
    pub tolerance: f64,
    /// B plays this many times as fast as A: A at `t` meets B at `t / b_speed`.
    pub b_speed: f64,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            tolerance: 0.0,
            b_speed: 1.0,
        }
    }
}

/// One channel's largest difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChannelDiff {
    /// The channel's name (a MEMG row: `vertices` or `group 'NAME'`).
    pub channel: String,
    /// Its unit's symbol (`°`, `m`, `0/1`, or empty).
    pub unit: &'static str,
    /// The largest |A − B| (for MEMG the largest vertex distance).
    pub max_abs: f64,
    /// When it occurs, seconds on A's clock (the first time if it recurs).
    pub at_s: f64,
    /// A's value there (none for a MEMG distance).
    pub a: Option<f64>,
    /// B's value there.
    pub b: Option<f64>,
    /// The `.obj` vertex, 1-based, where a MEMG distance is largest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertex: Option<usize>,
    /// `max_abs` is more than the tolerance.
    pub exceeds: bool,
}

impl ChannelDiff {
    /// `channel` in `unit` with no difference found yet.
    fn zero(channel: String, unit: &'static str) -> ChannelDiff {
        ChannelDiff {
            channel,
            unit,
            max_abs: 0.0,
            at_s: 0.0,
            a: None,
            b: None,
            vertex: None,
            exceeds: false,
        }
    }
}

/// What [`diff`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffReport {
    /// A's file.
    pub a: String,
    /// B's file.
    pub b: String,
    /// `mtn`, `input-animation` or `memg`.
    pub format: &'static str,
    /// The tolerance applied.
    pub tolerance: f64,
    /// B's speed relative to A.
    pub b_speed: f64,
    /// The stretch compared, seconds on A's clock.
    pub from_s: f64,
    /// Its end.
    pub to_s: f64,
    /// Seconds between the times compared.
    pub period_s: f64,
    /// How many times were compared.
    pub samples: usize,
    /// Every channel both have, in A's table order.
    pub channels: Vec<ChannelDiff>,
    /// Channels only A has.
    pub only_in_a: Vec<String>,
    /// Channels only B has.
    pub only_in_b: Vec<String>,
    /// Different lengths, periods, a thinned grid, one line each.
    pub notes: Vec<String>,
    /// Some channel's difference is more than the tolerance.
    pub exceeds: bool,
}

fn format_name(track: &Track) -> &'static str {
    match track {
        Track::Mtn { .. } => "mtn",
        Track::InputAnimation { .. } => "input-animation",
        Track::Memg { .. } => "memg",
    }
}

/// The format in words, for messages.
fn described(track: &Track) -> &'static str {
    match track {
        Track::Mtn { .. } => "an AIBO motion",
        Track::InputAnimation { .. } => "an MRTK recording",
        Track::Memg { .. } => "a MEMG scene",
    }
}

/// Whether an MRTK channel is compared (positions, directions, states).
fn compared(name: &str, unit: Unit) -> bool {
    unit != Unit::Unitless || name.starts_with("gaze_d")
}

/// Compares `a` with `b` (see the module's notes).
pub fn diff(a: &Track, b: &Track, options: &DiffOptions) -> Result<DiffReport> {
    let speed = options.b_speed;
    if !(speed.is_finite() && speed > 0.0) {
        return Err(Error::unsupported(
            b.path(),
            format!("--b-speed {speed}: expected a positive factor such as 2"),
        ));
    }
    if options.tolerance.is_nan() || options.tolerance < 0.0 {
        return Err(Error::unsupported(
            a.path(),
            format!("--tolerance {}: expected a number ≥ 0", options.tolerance),
        ));
    }
    if format_name(a) != format_name(b) {
        return Err(Error::mismatch(
            b.path(),
            format!(
                "{} cannot be compared with {}, {}: diff compares motions of one format",
                described(b),
                crate::text::Escaped::path(a.path()),
                described(a)
            ),
        ));
    }
    // Values computed at each time, both sides.
    let width = match (a, b) {
        (Track::Memg { scene: sa, .. }, Track::Memg { scene: sb, .. }) => {
            sa.positions.len() + sb.positions.len()
        }
        _ => 2 * catalogue(a).len(),
    };
    let (grid, notes) = grid(a, b, speed, width)?;
    let mut report = DiffReport {
        a: a.path().display().to_string(),
        b: b.path().display().to_string(),
        format: format_name(a),
        tolerance: options.tolerance,
        b_speed: speed,
        from_s: 0.0,
        to_s: grid.end,
        period_s: grid.frames.period_s() * grid.stride as f64,
        samples: grid.count(),
        channels: Vec::new(),
        only_in_a: Vec::new(),
        only_in_b: Vec::new(),
        notes,
        exceeds: false,
    };
    match (a, b) {
        (Track::Memg { .. }, Track::Memg { .. }) => {
            report.channels = memg_diff(a, b, &grid, speed)?
        }
        _ => channel_diff(a, b, &grid, speed, &mut report),
    }
    for c in &mut report.channels {
        // A NaN difference (none is made, but to be sure) exceeds.
        c.exceeds = c.max_abs.is_nan() || c.max_abs > options.tolerance;
    }
    report.exceeds = report.channels.iter().any(|c| c.exceeds);
    Ok(report)
}

/// The times compared: every `stride`-th frame of `frames` (the finer
/// period over the shorter motion), on the one clock.
struct Grid {
    frames: clock::Grid,
    stride: u64,
    end: f64,
}

impl Grid {
    fn times(&self) -> impl Iterator<Item = f64> + '_ {
        self.frames.every(self.stride)
    }

    fn count(&self) -> usize {
        self.times().count()
    }
}

fn grid(a: &Track, b: &Track, speed: f64, width: usize) -> Result<(Grid, Vec<String>)> {
    let (pa, pb) = (a.frame_period_s(), b.frame_period_s() * speed);
    let (da, db) = (a.duration_s(), b.duration_s() * speed);
    let mut notes = Vec::new();
    let end = da.min(db);
    if (da - db).abs() > clock::SLACK {
        notes.push(format!(
            "the motions last {da} s and {db} s{}: compared over the shorter, 0..{end} s",
            if speed != 1.0 { " on A's clock" } else { "" }
        ));
    }
    let period = pa.min(pb);
    if (pa - pb).abs() > 1e-12 {
        notes.push(format!(
            "frame periods {pa} s and {pb} s{}: compared every {period} s, the finer",
            if speed != 1.0 { " on A's clock" } else { "" }
        ));
    }
    if !(period.is_finite() && period > 0.0 && end.is_finite()) {
        return Err(Error::unsupported(
            a.path(),
            "the motions' frame periods or lengths are not usable numbers",
        ));
    }
    let frames = clock::Grid::new(end, period, clock::Window::Whole);
    let most = (VALUE_BUDGET / width.max(1) as u64).clamp(1, MAX_SAMPLES as u64);
    let stride = frames.stride_for(most);
    if stride > 1 {
        notes.push(format!(
            "{} times is more than this comparison computes ({VALUE_BUDGET} values at most): \
             compared every {stride}th, every {} s; a difference between them can be missed",
            frames.len(),
            period * stride as f64
        ));
    }
    Ok((
        Grid {
            frames,
            stride,
            end,
        },
        notes,
    ))
}

/// AIBO and MRTK: the same-named channels, A and B evaluated at every time.
fn channel_diff(a: &Track, b: &Track, grid: &Grid, speed: f64, report: &mut DiffReport) {
    let (ca, cb) = (catalogue(a), catalogue(b));
    let keep = |c: &super::Channel| matches!(a, Track::Mtn { .. }) || compared(&c.name, c.unit);
    let mut rows = Vec::new();
    let (mut pa, mut pb): (Vec<Pick>, Vec<Pick>) = (Vec::new(), Vec::new());
    for (c, pick) in ca.iter().filter(|(c, _)| keep(c)) {
        match cb.iter().find(|(d, _)| d.name == c.name) {
            Some((_, other)) => {
                rows.push(ChannelDiff::zero(c.name.clone(), c.unit.symbol()));
                pa.push(*pick);
                pb.push(*other);
            }
            None => report.only_in_a.push(c.name.clone()),
        }
    }
    report.only_in_b = cb
        .iter()
        .filter(|(d, _)| keep(d) && !ca.iter().any(|(c, _)| c.name == d.name))
        .map(|(d, _)| d.name.clone())
        .collect();
    let (mut ea, mut eb) = (Evaluator::new(a, pa), Evaluator::new(b, pb));
    let (mut va, mut vb) = (vec![0.0; rows.len()], vec![0.0; rows.len()]);
    for t in grid.times() {
        ea.values_at(t, &mut va);
        eb.values_at(t / speed, &mut vb);
        for ((row, &x), &y) in rows.iter_mut().zip(&va).zip(&vb) {
            let d = difference(x, y);
            if d > row.max_abs || row.a.is_none() {
                row.max_abs = d;
                row.at_s = t;
                row.a = Some(x);
                row.b = Some(y);
            }
        }
    }
    report.channels = rows;
}

/// |x − y|, 0 for two equal values that are not finite (both NaN: both
/// lost), infinite when only one is finite.
fn difference(x: f64, y: f64) -> f64 {
    if x.is_finite() && y.is_finite() {
        (x - y).abs()
    } else if x == y || (x.is_nan() && y.is_nan()) {
        0.0
    } else {
        f64::INFINITY
    }
}

/// MEMG: both scenes deformed at every time, the largest vertex distance
/// over each of A's motion groups and over all vertices.
fn memg_diff(a: &Track, b: &Track, grid: &Grid, speed: f64) -> Result<Vec<ChannelDiff>> {
    let (
        Track::Memg {
            scene: sa,
            motion: ma,
            motion_path: path_a,
            ..
        },
        Track::Memg {
            scene: sb,
            motion: mb,
            motion_path: path_b,
            ..
        },
    ) = (a, b)
    else {
        return Ok(Vec::new());
    };
    let n = sa.positions.len();
    if sb.positions.len() != n {
        return Err(Error::mismatch(
            path_b,
            format!(
                "its scene has {} vertices and A's ({}) has {n}: only scenes of the same vertices can be compared",
                sb.positions.len(),
                crate::text::Escaped::path(path_a)
            ),
        ));
    }
    let ba = Binding::new(sa, ma).map_err(|e| Error::mismatch(path_a, e))?;
    let bb = Binding::new(sb, mb).map_err(|e| Error::mismatch(path_b, e))?;
    // Each .obj vertex's row: 0 for `vertices` only, 1 + g for A's group g.
    let mut row_of = vec![0usize; n];
    for (g, group) in ma.groups.iter().enumerate() {
        for &v in &group.mapping {
            if let Some(slot) = (v as usize).checked_sub(1).and_then(|i| row_of.get_mut(i)) {
                *slot = 1 + g;
            }
        }
    }
    let mut rows = vec![ChannelDiff::zero("vertices".into(), "")];
    rows.extend(
        ma.groups
            .iter()
            .map(|g| ChannelDiff::zero(format!("group '{}'", g.name), "")),
    );
    let (mut da, mut db) = (Deformer::new(), Deformer::new());
    let (mut pa, mut pb) = (Vec::new(), Vec::new());
    for t in grid.times() {
        da.deform(sa, ma, &ba, steps_at(ma, t), &mut pa);
        db.deform(sb, mb, &bb, steps_at(mb, t / speed), &mut pb);
        for (i, (p, q)) in pa.iter().zip(&pb).enumerate() {
            let d = (0..3)
                .map(|k| {
                    let e = f64::from(p[k]) - f64::from(q[k]);
                    e * e
                })
                .sum::<f64>()
                .sqrt();
            for r in [0, row_of[i]] {
                let row = &mut rows[r];
                if d > row.max_abs || row.vertex.is_none() {
                    row.max_abs = d;
                    row.at_s = t;
                    row.vertex = Some(i + 1);
                }
            }
        }
    }
    // Groups that move no vertex of the scene have nothing to report.
    rows.retain(|r| r.vertex.is_some());
    Ok(rows)
}

/// The report as text: one line a channel, then the verdict.
pub fn to_text(r: &DiffReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "A: {}\nB: {}", r.a, r.b);
    let clock = if r.b_speed != 1.0 {
        format!(", B at t/{}", r.b_speed)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "compared {} times, 0..{} s every {} s{clock}",
        r.samples, r.to_s, r.period_s
    );
    for note in &r.notes {
        let _ = writeln!(out, "note: {note}");
    }
    let width = r
        .channels
        .iter()
        .map(|c| c.channel.chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    let _ = writeln!(
        out,
        "{:<width$}  {:>14}  {:>9}",
        "channel", "max |A-B|", "at s"
    );
    for c in &r.channels {
        let mut line = format!(
            "{:<width$}  {:>14}  {:>9.4}",
            c.channel,
            format!("{:.6}{}", c.max_abs, c.unit),
            c.at_s
        );
        if let (Some(x), Some(y)) = (c.a, c.b) {
            let _ = write!(line, "  (A {x:.6}, B {y:.6})");
        }
        if let Some(v) = c.vertex {
            let _ = write!(line, "  (vertex {v})");
        }
        if c.exceeds {
            line.push_str("  exceeds");
        }
        let _ = writeln!(out, "{line}");
    }
    if !r.only_in_a.is_empty() {
        let _ = writeln!(out, "only in A: {}", r.only_in_a.join(", "));
    }
    if !r.only_in_b.is_empty() {
        let _ = writeln!(out, "only in B: {}", r.only_in_b.join(", "));
    }
    let over: Vec<&str> = r
        .channels
        .iter()
        .filter(|c| c.exceeds)
        .map(|c| c.channel.as_str())
        .collect();
    if over.is_empty() {
        let _ = writeln!(out, "within tolerance {}", r.tolerance);
    } else {
        let _ = writeln!(
            out,
            "{} of {} channels differ by more than {}: {}",
            over.len(),
            r.channels.len(),
            r.tolerance,
            over.join(", ")
        );
    }
    out
}
