//! `viewer bench`: the JSON it prints and how it rejects a bad `--synthetic`.
//! Only the shape of the results is checked here; speeds are for the benches.
#![cfg(feature = "cli")]

use serde_json::Value;
use std::process::{Command, Output};

fn viewer(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_viewer"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("viewer runs")
}

/// The one object of the JSON array `viewer bench ... --json` prints.
fn single_row(args: &[&str]) -> serde_json::Map<String, Value> {
    let out = viewer(args);
    assert!(
        out.status.success(),
        "viewer {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let rows = rows.as_array().expect("a JSON array");
    assert_eq!(rows.len(), 1, "one motion, one object: {rows:?}");
    rows[0].as_object().expect("an object").clone()
}

fn assert_positive(row: &serde_json::Map<String, Value>, keys: &[&str]) {
    for key in keys {
        let x = row.get(*key).and_then(Value::as_f64);
        assert!(
            x.is_some_and(|x| x > 0.0 && x.is_finite()),
            "{key} should be a positive number in {row:?}"
        );
    }
}

const DECODE_KEYS: [&str; 4] = ["bytes", "decode_mb_s", "memcpy_mb_s", "decode_vs_memcpy"];

#[test]
fn synthetic_memg_reports_decode_and_deformation() {
    let row = single_row(&["bench", "--synthetic", "2000x4x10", "--json", "--runs", "1"]);
    assert_eq!(row["format"], "memg");
    assert_eq!(row["name"], "synthetic-2000x4x10");
    assert_eq!(row["vertices"], 2000);
    assert_eq!(row["basis"], 4);
    // 2000 vertices × 3 × 4 basis vectors as f64, with the mean and mapping besides.
    assert!(row["bytes"].as_u64().unwrap() > 2000 * 3 * 4 * 8);
    assert_positive(&row, &DECODE_KEYS);
    assert_positive(&row, &["cpu_deform_fps", "basis_gb_s", "read_gb_s"]);
    // Without a GPU adapter the GPU figure is null, not missing.
    let gpu = &row["gpu_deform_fps"];
    assert!(
        gpu.is_null() || gpu.as_f64().is_some_and(|x| x > 0.0),
        "gpu_deform_fps: {gpu}"
    );
}

#[test]
fn mtn_reports_files_and_samples_per_second() {
    let row = single_row(&["bench", "data/sony_stand_sit.mtn", "--json", "--runs", "1"]);
    assert_eq!(row["format"], "mtn");
    assert_eq!(row["name"], "sony_stand_sit");
    assert_eq!(row["bytes"], 1164);
    assert_positive(&row, &DECODE_KEYS);
    assert_positive(&row, &["files_s", "samples_s"]);
    assert!(row.get("cpu_deform_fps").is_none(), "no MEMG keys: {row:?}");
}

#[test]
fn bad_synthetic_spec_is_a_clear_error() {
    let out = viewer(&["bench", "--synthetic", "12x"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("VERTICESxBASISxFRAMES") && stderr.contains("12x"),
        "stderr: {stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing on stdout: {:?}", out.stdout);
}
