//! `viewer bench`: the JSON it prints and how it rejects a bad `--synthetic`.
//! Only the shape of the results is checked here; speeds are for the benches.
use crate::common;

use serde_json::Value;
use std::process::Output;

fn viewer(args: &[&str]) -> Output {
    crate::app::viewer()
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
    assert_eq!(row["decode_from"], "memory");
    // Without a GPU adapter the GPU figure is null, not missing.
    let gpu = &row["gpu_deform_fps"];
    assert!(
        gpu.is_null() || gpu.as_f64().is_some_and(|x| x > 0.0),
        "gpu_deform_fps: {gpu}"
    );
}

#[test]
fn f16_basis_reads_half_the_bytes_on_the_gpu() {
    let args = ["--synthetic", "2000x4x10", "--json", "--runs", "1"];
    let f32_row = single_row(&[&["bench"][..], &args].concat());
    let f16_row = single_row(&[&["bench", "--basis", "f16"][..], &args].concat());
    if f32_row["gpu_deform_fps"].is_null() {
        common::tool_present(
            "a GPU adapter",
            false,
            "apt-get install mesa-vulkan-drivers",
        );
        return;
    }
    assert_eq!(f32_row["gpu_basis_format"], "f32");
    assert_eq!(f16_row["gpu_basis_format"], "f16");
    // GB/s of U as stored over frames per second: the bytes each frame reads.
    let bytes = |row: &serde_json::Map<String, Value>| {
        row["gpu_basis_gb_s"].as_f64().unwrap() / row["gpu_deform_fps"].as_f64().unwrap() * 1e9
    };
    // 2000 vertices × 3 × 4 columns: 96 000 bytes as f32, 48 000 as f16.
    assert!((bytes(&f32_row) - 96_000.0).abs() < 1.0, "{f32_row:?}");
    assert!((bytes(&f16_row) - 48_000.0).abs() < 1.0, "{f16_row:?}");
}

/// Counts of `v` and `f` lines in `.obj` text.
fn obj_counts(text: &str) -> (usize, usize) {
    let v = text.lines().filter(|l| l.starts_with("v ")).count();
    let f = text.lines().filter(|l| l.starts_with("f ")).count();
    (v, f)
}

#[test]
fn write_scene_puts_an_obj_and_a_motion_on_disk_for_the_other_commands() {
    let dir = tempfile::tempdir().unwrap();
    let out = viewer(&[
        "bench",
        "--synthetic",
        "300x4x5",
        "--write-scene",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let obj = dir.path().join("synthetic-300x4x5.obj");
    let bin = dir.path().join("synthetic-300x4x5.bin");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{}\n{}\n", obj.display(), bin.display())
    );
    // A grid of 18 columns: 16 full rows and one of 12 vertices; two triangles
    // per cell whose four corners exist.
    let (v, f) = obj_counts(&std::fs::read_to_string(&obj).unwrap());
    assert_eq!((v, f), (300, 2 * 17 * 15 + 2 * 11));
    // Read back by the layout docs/formats.md §3 gives, not by our decoder: little-endian
    // 1, 30 fps, 1 local frame, 5 timesteps, 5 transforms, then one group.
    let b = std::fs::read(&bin).unwrap();
    let int = |at: usize| i32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!([int(0), int(4), int(8), int(12)], [1, 30, 1, 5]);
    let group = 16 + 5 * 96;
    assert_eq!((int(group), &b[group + 4..group + 9]), (5, &b"cloth"[..]));
    assert_eq!(int(group + 9), 300);
    // mapping, mean, parent, U shape and values, Q shape and values.
    let expected = group + 13 + 4 * 300 + 8 * 900 + 4 + 8 + 8 * 900 * 4 + 8 + 8 * 4 * 5;
    assert_eq!(b.len(), expected);

    // `info` reads them as a pair.
    let out = viewer(&[
        "info",
        obj.to_str().unwrap(),
        bin.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info[0]["vertices"], 300);
    assert_eq!(info[0]["groups"][0]["basis"], 4);
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
