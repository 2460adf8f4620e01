//! `info`/`export` for AIBO `.mtn` motions.

use super::At;
use super::table::{Table, sample_times};
use motion_viewer::anim::aibo::pose_from_mtn;
use motion_viewer::anim::mtn::pose_at;
use motion_viewer::formats::mtn::Mtn;
use serde_json::{Value, json};
use std::path::Path;

/// The JSON name of joint `i`'s body part, or null when unknown.
fn part_name(m: &Mtn, i: usize) -> Value {
    m.joint_part(i).map_or(Value::Null, |p| json!(p.name()))
}

/// The `info --json` object.
pub fn info(path: &Path, m: &Mtn) -> Value {
    let motion = m.motion_name().map_or(Value::Null, |n| {
        json!({
            "group": n.group.name(),
            "start": n.start,
            "end": n.end,
            "description": n.description,
        })
    });
    let joints: Vec<Value> = (0..m.joints.len())
        .map(|i| json!({"name": m.joints[i], "part": part_name(m, i)}))
        .collect();
    json!({
        "format": "mtn",
        "file": path.display().to_string(),
        "name": m.name,
        "creator": m.creator,
        "design": m.design,
        "model": m.model().map(|x| x.name()),
        "version": m.version,
        "keyframes": m.keyframes.len(),
        "frame_ms": m.frame_ms(),
        "joints": joints,
        "frames": m.total_frames(),
        "duration_s": m.duration_s(),
        "keyframe_times_s": m.keyframe_times_s(),
        "motion": motion,
        "warnings": m.warnings,
    })
}

/// The `export --time` state: body attitude and every joint in degrees.
pub fn state(m: &Mtn, at: At) -> Value {
    let t = match at {
        At::Time(t) => t,
        At::Frame(n) => m.frame_s(n),
    };
    let pose = pose_at(m, t);
    // The rig: millimetres, x forward, y left, z up, origin at the body centre.
    let (_, rig) = pose_from_mtn(m, t);
    let joints: Vec<Value> = pose
        .joints_deg
        .iter()
        .enumerate()
        .map(|(i, deg)| json!({"name": m.joints[i], "part": part_name(m, i), "deg": deg}))
        .collect();
    json!({
        "format": "mtn",
        "time_s": pose.time_s,
        "body": {
            "roll_deg": pose.body_deg[0],
            "pitch_deg": pose.body_deg[1],
            "yaw_deg": pose.body_deg[2],
        },
        "joints": joints,
        "points": points(&rig.body),
        "world": points(&rig.world),
        "rig_warnings": rig.warnings,
    })
}

/// Named rig points as a JSON object of `[x, y, z]` millimetres.
fn points(named: &[(&'static str, [f64; 3])]) -> Value {
    Value::Object(
        named
            .iter()
            .map(|(name, p)| (name.to_string(), json!(p)))
            .collect(),
    )
}

/// Every frame at the motion's frame period, or at `fps`: time, body roll,
/// pitch, yaw, then one column per joint named by its PRM name.
pub fn table(m: &Mtn, fps: Option<f64>) -> Table {
    let period = fps.map_or_else(|| frame_period_s(m), |f| 1.0 / f);
    let mut columns: Vec<String> = ["time_s", "roll_deg", "pitch_deg", "yaw_deg"]
        .map(String::from)
        .to_vec();
    columns.extend(m.joints.iter().cloned());
    let rows = sample_times(m.duration_s(), period)
        .into_iter()
        .map(|t| {
            let pose = pose_at(m, t);
            let mut row = vec![t];
            row.extend(pose.body_deg);
            row.extend(pose.joints_deg);
            row
        })
        .collect();
    Table { columns, rows }
}

/// The motion's frame period in seconds (16 ms where the file says 0).
fn frame_period_s(m: &Mtn) -> f64 {
    f64::from(m.frame_ms()) / 1000.0
}
