//! `info`/`export` for MRTK input animations.

use super::At;
use super::table::{Table, sample_times};
use motion_viewer::anim::input_animation::{
    FRAME_PERIOD_S, HandState, InputState, JOINT_NAMES, Pose, duration_s, state_at,
};
use motion_viewer::formats::input_animation::InputAnimation;
use serde_json::{Value, json};
use std::path::Path;

/// The `info --json` object.
pub fn info(path: &Path, r: &InputAnimation) -> Value {
    let floats = r.float_curves();
    let bools = r.bool_curves();
    let keys: usize = floats.iter().map(|c| c.keys.len()).sum::<usize>()
        + bools.iter().map(|c| c.keys.len()).sum::<usize>();
    json!({
        "file": path.display().to_string(),
        "format": "input-animation",
        "version": [r.version.0, r.version.1],
        "has_camera": r.camera.is_some(),
        "has_hands": r.hands.is_some(),
        "has_eye_gaze": r.eye_gaze.is_some(),
        "duration_s": duration_s(r),
        "curves": floats.len() + bools.len(),
        "keys": keys,
        "markers": r.markers.iter().map(|m| json!({"time_s": f32_as_written(m.time), "name": m.name})).collect::<Vec<_>>(),
        "warnings": r.warnings,
    })
}

/// The `export --time` state.
pub fn state(r: &InputAnimation, at: At) -> Value {
    let t = match at {
        At::Time(t) => t,
        At::Frame(n) => n as f64 * FRAME_PERIOD_S,
    };
    let s = state_at(r, t);
    let pose = |p: &Pose| json!({"position": p.position, "rotation": p.rotation});
    let hand = |h: &HandState| {
        let joints: Vec<Value> = JOINT_NAMES
            .iter()
            .zip(&h.joints)
            .map(|(name, p)| json!({"name": name, "position": p.position, "rotation": p.rotation}))
            .collect();
        json!({"tracked": h.tracked, "pinching": h.pinching, "joints": joints})
    };
    json!({
        "format": "input-animation",
        "time_s": t,
        "camera": s.camera.as_ref().map(pose),
        "hands": s.hands.as_ref().map(|h| json!({"left": hand(&h.left), "right": hand(&h.right)})),
        "eye_gaze": s.eye_gaze.map(|g| json!({"origin": g.origin, "direction": g.direction})),
    })
}

/// Every channel sampled at 60 Hz or `fps`.
pub fn table(r: &InputAnimation, fps: Option<f64>) -> Table {
    let period = fps.map_or(FRAME_PERIOD_S, |f| 1.0 / f);
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
    let rows = sample_times(duration_s(r), period)
        .into_iter()
        .map(|t| row(&state_at(r, t)))
        .collect();
    Table { columns, rows }
}

/// One table row, in the column order [`table`] names.
fn row(s: &InputState) -> Vec<f64> {
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

/// An `f32` from the file as the decimal it was written as (1.3, not
/// 1.2999999523…): the shortest text that reads back to the same `f32`.
fn f32_as_written(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}
