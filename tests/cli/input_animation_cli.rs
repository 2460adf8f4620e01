//! `viewer info` / `viewer export` on the sample, checked against a tiny
//! independent reader of its bytes.

use serde_json::Value;
use std::path::Path;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/hands.mrtk");

fn viewer(args: &[&str]) -> String {
    let out = crate::app::viewer().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The sample walked by hand: every curve's (time, value) pairs in file order, and the markers.
struct Raw {
    curves: Vec<Vec<(f32, f32)>>,
    markers: Vec<(f32, String)>,
}

fn raw() -> Raw {
    let b = std::fs::read(SAMPLE).unwrap();
    let i32_at = |p: usize| i32::from_le_bytes(b[p..p + 4].try_into().unwrap());
    let f32_at = |p: usize| f32::from_le_bytes(b[p..p + 4].try_into().unwrap());
    assert_eq!((i32_at(8), i32_at(12)), (1, 1));
    assert_eq!(&b[16..19], &[1, 1, 1], "the sample has every part");
    let mut p = 19;
    // camera 7, hand booleans 4, joints 2 × 27 × 7, gaze 6: all (time, value) pairs in 1.1.
    let mut curves = Vec::new();
    for _ in 0..7 + 4 + 378 + 6 {
        let n = i32_at(p + 8) as usize;
        p += 12;
        curves.push(
            (0..n)
                .map(|k| (f32_at(p + 8 * k), f32_at(p + 8 * k + 4)))
                .collect(),
        );
        p += 8 * n;
    }
    let mut markers = Vec::new();
    let count = i32_at(p);
    p += 4;
    for _ in 0..count {
        let t = f32_at(p);
        let len = b[p + 4] as usize;
        assert!(len < 128);
        markers.push((
            t,
            String::from_utf8(b[p + 5..p + 5 + len].to_vec()).unwrap(),
        ));
        p += 5 + len;
    }
    assert_eq!(p, b.len());
    Raw { curves, markers }
}

fn lerp(keys: &[(f32, f32)], t: f64) -> f64 {
    let i = keys.iter().rposition(|k| f64::from(k.0) <= t).unwrap();
    if i + 1 == keys.len() {
        return keys[i].1.into();
    }
    let ((t0, v0), (t1, v1)) = (keys[i], keys[i + 1]);
    let s = (t - f64::from(t0)) / f64::from(t1 - t0);
    f64::from(v0) + s * f64::from(v1 - v0)
}

#[test]
fn sample_is_small_and_plausible() {
    let size = std::fs::metadata(SAMPLE).unwrap().len();
    assert!(size < 1_500_000, "{size} bytes");
}

#[test]
fn info_json_shape_and_values() {
    let r = raw();
    let v: Value = serde_json::from_str(&viewer(&["info", SAMPLE, "--json"])).unwrap();
    let i = &v[0];
    assert_eq!(i["format"], "input-animation");
    assert_eq!(i["version"], serde_json::json!([1, 1]));
    assert_eq!(i["has_camera"], true);
    assert_eq!(i["has_hands"], true);
    assert_eq!(i["has_eye_gaze"], true);
    let last = r
        .curves
        .iter()
        .filter_map(|c| c.last())
        .map(|k| f64::from(k.0))
        .fold(0.0, f64::max);
    assert_eq!(i["duration_s"].as_f64().unwrap(), last);
    assert!((3.5..=4.5).contains(&last));
    assert_eq!(i["curves"].as_u64().unwrap() as usize, r.curves.len());
    let keys: usize = r.curves.iter().map(Vec::len).sum();
    assert_eq!(i["keys"].as_u64().unwrap() as usize, keys);
    let markers = i["markers"].as_array().unwrap();
    assert!(markers.len() >= 2);
    assert_eq!(markers.len(), r.markers.len());
    for (m, (t, name)) in markers.iter().zip(&r.markers) {
        // Printed as the shortest decimal that reads back to the stored f32.
        let printed = m["time_s"].as_f64().unwrap();
        assert_eq!(printed as f32, *t);
        assert_eq!(printed.to_string(), t.to_string());
        assert_eq!(m["name"], name.as_str());
    }
    assert_eq!(i["warnings"], serde_json::json!([]));
}

fn export(dir: &Path, at: &[&str]) -> Value {
    let out = dir.join("s.json");
    let mut args = vec!["export", SAMPLE, "--out", out.to_str().unwrap()];
    args.extend_from_slice(at);
    viewer(&args);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    v[0].clone()
}

fn vec_of(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn export_state_agrees_with_independent_interpolation() {
    let r = raw();
    let dir = tempfile::tempdir().unwrap();
    for t in [1.5, 1.51, 2.8] {
        let s = export(dir.path(), &["--time", &t.to_string()]);
        assert_eq!(s["format"], "input-animation");
        assert_eq!(s["time_s"].as_f64().unwrap(), t);
        let cam = &s["camera"];
        agree(&vec_of(&cam["position"]), &r.curves[0..3], t);
        // Rotation: the four channels interpolated, then normalised.
        let q: Vec<f64> = (3..7).map(|c| lerp(&r.curves[c], t)).collect();
        let len = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        for (a, b) in vec_of(&cam["rotation"]).iter().zip(&q) {
            assert!((a - b / len).abs() < 1e-5);
        }
        for side in ["left", "right"] {
            let h = &s["hands"][side];
            let joints = h["joints"].as_array().unwrap();
            assert_eq!(joints.len(), 27);
            assert_eq!(joints[11]["name"], "IndexTip");
            let base = if side == "left" { 11 } else { 11 + 27 * 7 };
            let tip = vec_of(&joints[11]["position"]);
            agree(&tip, &r.curves[base + 11 * 7..][..3], t);
        }
        // Gaze: the last six curves.
        agree(&vec_of(&s["eye_gaze"]["direction"]), &r.curves[392..395], t);
        // Booleans: the last key at or before t, on above 0.5.
        for (k, name) in [(7, "left"), (8, "right")] {
            let on = lerp_step(&r.curves[k], t);
            assert_eq!(s["hands"][name]["tracked"], on);
            let on = lerp_step(&r.curves[k + 2], t);
            assert_eq!(s["hands"][name]["pinching"], on);
        }
    }
    // --frame counts 60 Hz frames.
    let f = export(dir.path(), &["--frame", "90"]);
    let t = export(dir.path(), &["--time", "1.5"]);
    assert_eq!(f["camera"], t["camera"]);
}

/// Each exported channel matches its curve interpolated by hand.
fn agree(got: &[f64], curves: &[Vec<(f32, f32)>], t: f64) {
    assert_eq!(got.len(), curves.len());
    for (c, (g, keys)) in got.iter().zip(curves).enumerate() {
        assert!((g - lerp(keys, t)).abs() < 1e-5, "channel {c} at {t}");
    }
}

fn lerp_step(keys: &[(f32, f32)], t: f64) -> bool {
    let i = keys.iter().rposition(|k| f64::from(k.0) <= t).unwrap_or(0);
    keys[i].1 > 0.5
}

#[test]
fn sample_pinches_and_loses_a_hand() {
    let dir = tempfile::tempdir().unwrap();
    let s = export(dir.path(), &["--time", "2.8"]);
    let right = &s["hands"]["right"];
    assert_eq!(right["pinching"], true);
    let thumb = vec_of(&right["joints"][6]["position"]);
    let index = vec_of(&right["joints"][11]["position"]);
    let gap: f64 = thumb
        .iter()
        .zip(&index)
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(
        gap < 0.015,
        "thumb and index tips {gap} m apart while pinching"
    );
    // The hands work in front of the head, below it.
    let head = vec_of(&s["camera"]["position"]);
    let wrist = vec_of(&right["joints"][1]["position"]);
    assert!((1.5..1.7).contains(&head[1]));
    assert!(wrist[2] - head[2] > 0.2 && wrist[1] < head[1]);
    let lost = export(dir.path(), &["--time", "1.5"]);
    assert_eq!(lost["hands"]["left"]["tracked"], false);
    assert_eq!(lost["hands"]["right"]["tracked"], true);
}

#[test]
fn table_has_every_channel_at_60_hz() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.csv");
    viewer(&["export", SAMPLE, "--out", out.to_str().unwrap()]);
    let text = std::fs::read_to_string(out).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.len(), 1 + 7 + 2 * (2 + 27 * 7) + 6);
    assert_eq!(header[0], "time_s");
    assert!(header.contains(&"right_IndexTip_px"));
    let rows: Vec<&str> = lines.collect();
    let duration: f64 = raw()
        .curves
        .iter()
        .filter_map(|c| c.last())
        .map(|k| f64::from(k.0))
        .fold(0.0, f64::max);
    assert_eq!(rows.len(), (duration * 60.0 + 1e-6).floor() as usize + 1);
    let second: Vec<f64> = rows[1].split(',').map(|c| c.parse().unwrap()).collect();
    assert!((second[0] - 1.0 / 60.0).abs() < 1e-12);
}
