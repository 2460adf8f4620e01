//! `viewer memg fit --parts` (issue 47): the fit splits the mesh into
//! near-rigid parts itself and writes the scene with the parts as its
//! groups (`--out-scene`). On Blender's skinned tube (tests/data/fit/tube.*,
//! three bones bending it): every group's copy of every vertex within the
//! bound at every frame, by the tests' own readers against the scene
//! written; that scene the input's lines with only its groups changed; more
//! parts a smaller file than one group; bad counts one line each.

use super::fit_cli::{fit, refused, s, worst};
use crate::app::viewer;
use crate::common::fit::{obj_vertices, read_pc2};
use crate::common::test_data;
use serde_json::Value;
use std::path::Path;

/// The lines of an `.obj` but its `g` and `o` lines.
fn without_groups(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !(l.starts_with("g ") || l.starts_with("o ") || *l == "g" || *l == "o"))
        .map(str::to_string)
        .collect()
}

/// Fits the tube with `--parts parts` within 1/1000 of its diagonal, checks
/// the files written, returns the report and the motion's bytes.
fn fit_tube(dir: &Path, parts: &str) -> (Value, u64) {
    let (obj, pc2) = (test_data("fit/tube.obj"), test_data("fit/tube.pc2"));
    let cache = read_pc2(&pc2);
    let bound = 1e-3 * cache.diagonal();
    let (bin, scene) = (
        dir.join(format!("tube-{parts}.bin")),
        dir.join(format!("tube-{parts}.obj")),
    );
    let bound_text = bound.to_string();
    let report = fit(&[
        s(&obj),
        s(&pc2),
        "--parts",
        parts,
        "--out-scene",
        s(&scene),
        "--max-error",
        &bound_text,
        "--out",
        s(&bin),
    ]);
    // The scene: the input's every other line, in order; its groups the parts.
    assert_eq!(without_groups(&scene), without_groups(&obj));
    let text = std::fs::read_to_string(&scene).unwrap();
    let names: std::collections::BTreeSet<&str> =
        text.lines().filter_map(|l| l.strip_prefix("g ")).collect();
    let chosen = report["parts"]["chosen"].as_u64().unwrap() as usize;
    assert_eq!(names.len(), chosen, "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("part")), "{names:?}");
    // Every group's copy of every vertex within the bound, every frame,
    // placed by the spec's formula from the scene written.
    let (per_group, all) = worst(&bin, &obj_vertices(&scene), &cache);
    assert_eq!(per_group.len(), chosen);
    assert!(all <= bound, "--parts {parts}: {all:e} over {bound:e}");
    let report_groups: Vec<&str> = report["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        report_groups
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>(),
        names
    );
    let bytes = std::fs::metadata(&bin).unwrap().len();
    assert_eq!(report["bytes"]["memg"].as_u64().unwrap(), bytes);
    // The viewer opens the scene written with the motion, every group bound.
    let info = viewer()
        .args(["info", s(&scene), s(&bin), "--json"])
        .output()
        .unwrap();
    assert!(
        info.status.success(),
        "{}",
        String::from_utf8_lossy(&info.stderr)
    );
    let info: Value = serde_json::from_slice(&info.stdout).unwrap();
    let bound_groups: std::collections::BTreeSet<&str> = info[0]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["in_scene"] == true)
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(bound_groups, names);
    eprintln!(
        "tube --parts {parts}: {chosen} groups, ranks {:?}, {bytes} bytes, worst {all:.3e} (bound {bound:.3e})",
        report["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["rank"].as_u64().unwrap())
            .collect::<Vec<_>>()
    );
    (report, bytes)
}

#[test]
fn parts_of_a_bending_tube_hold_the_bound_and_beat_one_group() {
    let dir = tempfile::tempdir().unwrap();
    let (one, one_bytes) = fit_tube(dir.path(), "1");
    assert_eq!(one["parts"]["chosen"], 1);
    let (two, two_bytes) = fit_tube(dir.path(), "2");
    assert_eq!(two["parts"]["chosen"], 2);
    // Two parts, each in its own frame: the frames carry the bend one
    // group's basis must hold (both bases refitted for their largest error).
    assert!(
        two_bytes < one_bytes,
        "2 parts {two_bytes} bytes, 1 part {one_bytes}"
    );
}

#[test]
fn auto_parts_keep_the_smallest_file_of_the_splits_tried() {
    let dir = tempfile::tempdir().unwrap();
    let (report, bytes) = fit_tube(dir.path(), "auto");
    let tried = report["parts"]["tried"].as_array().unwrap();
    assert!(tried.len() >= 2, "{tried:?}");
    let asked: Vec<u64> = tried.iter().map(|t| t["parts"].as_u64().unwrap()).collect();
    // Doubling until four parts make a file more than a quarter larger than
    // two, then halfway between the best (two) and its neighbours: three.
    assert_eq!(asked, [1, 2, 4, 3]);
    let smallest = tried
        .iter()
        .filter_map(|t| t["memg"].as_u64())
        .min()
        .unwrap();
    assert_eq!(bytes, smallest, "{tried:?}");
    assert_eq!(report["parts"]["asked"], "auto");
}

#[test]
fn bad_part_counts_end_in_one_line_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (obj, pc2) = (test_data("fit/tube.obj"), test_data("fit/tube.pc2"));
    let (out, scene) = (d.join("out.bin"), d.join("out.obj"));
    // More parts than the tube's 400 vertices: the library's check.
    refused(
        d,
        &[s(&obj), s(&pc2), "--parts", "401", "--out-scene", s(&scene)],
        &out,
        &["--parts 401", "expected 1 to 400"],
    );
    assert!(!scene.exists());
    // No part, or a word: the command line's one line.
    for bad in ["0", "some"] {
        let o = viewer()
            .args(["memg", "fit", s(&obj), s(&pc2), "--out", s(&out)])
            .args(["--parts", bad, "--out-scene", s(&scene)])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "--parts {bad}");
        assert_eq!(
            stderr.trim_end(),
            format!("viewer: --parts: expected a number of parts from 1, or auto, found \"{bad}\"")
        );
        assert!(!scene.exists(), "--parts {bad}");
    }
    // Parts without a scene to hold them, or a scene without parts: clap's
    // usage error naming the missing option, as for any missing argument.
    for (given, missing) in [
        (["--parts", "2"], "--out-scene <OBJ>"),
        (["--out-scene", s(&scene)], "--parts <N|auto>"),
    ] {
        let o = viewer()
            .args(["memg", "fit", s(&obj), s(&pc2), "--out", s(&out)])
            .args(given)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{given:?}: {stderr}");
        assert!(
            stderr.contains("required arguments were not provided") && stderr.contains(missing),
            "{given:?}: {stderr}"
        );
        assert!(!scene.exists(), "{given:?}");
    }
}

#[test]
fn a_glb_straight_from_the_cache_is_the_export_of_the_fitted_motion() {
    // `--out x.glb` writes what the same fit sized for a glTF (its choices
    // by the glTF's size, its bases refitted for the smallest largest
    // error: `SizedFor::Gltf`), written as x.bin, then `viewer export scene
    // x.bin --out x.glb --quantize=E` write, byte for byte, E 90 % of what
    // the fit left of the bound (that path's .glb is checked by the Khronos
    // validator, three.js and Blender within the bound:
    // tests/readers/fit_gltf.rs), here with parts. The fit is the one of
    // those tried under the bound or less (the split kept) whose file is
    // the smallest: the report says which bound, and no smaller file came
    // of the bound itself.
    let dir = tempfile::tempdir().unwrap();
    let (obj, pc2) = (test_data("fit/tube.obj"), test_data("fit/tube.pc2"));
    let (direct, staged) = (dir.path().join("direct"), dir.path().join("staged"));
    for d in [&direct, &staged] {
        std::fs::create_dir(d).unwrap();
    }
    // The tube in three parts, its scene written to `scene`, then `more`.
    let three_parts = |scene: &Path, more: &[&str]| {
        let args = [s(&obj), s(&pc2), "--parts", "3", "--out-scene", s(scene)];
        fit(&[&args[..], more].concat())
    };
    let glb = direct.join("tube.glb");
    let report = three_parts(&direct.join("parts.obj"), &["--out", s(&glb)]);
    let bytes = std::fs::read(&glb).unwrap();
    assert_eq!(&bytes[..4], b"glTF");
    assert_eq!(
        report["bytes"]["gltf"].as_u64().unwrap(),
        bytes.len() as u64
    );
    // Only the .glb and the scene: no MEMG file, no staging folder left.
    let mut left: Vec<String> = std::fs::read_dir(&direct)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["parts.obj", "tube.glb"]);

    use motion_viewer::fit::{
        self, AnimationSource, Bound, FitOptions, FitReport, FitRequest, Parts, SizedFor,
    };
    let bound = report["max_error_bound"].as_f64().unwrap();
    let under = report["gltf_fitted_under"].as_f64().unwrap();
    assert!(under <= bound);
    let scene = staged.join("parts.obj");
    // The same fit under `under` (the split made again, or kept from the
    // scene the command wrote), as x.bin, exported as x.glb.
    let staged_glb = |name: &str, under: f64, split: bool| -> (FitReport, Vec<u8>) {
        // Named as the command's: the name of the glTF's root node.
        let folder = staged.join(name);
        std::fs::create_dir(&folder).unwrap();
        let bin = folder.join("tube.bin");
        let fitted = fit::fit_files(&FitRequest {
            scene: if split {
                obj.clone()
            } else {
                direct.join("parts.obj")
            },
            animation: AnimationSource::Pc2(pc2.clone()),
            out: bin.clone(),
            // The command's defaults, sized for the glTF as `--out x.glb` is.
            options: FitOptions {
                sized_for: SizedFor::Gltf,
                bound: Bound::MaxError(under),
                ..FitOptions::default()
            },
            parts: split.then_some(Parts::Count(3)),
            out_scene: split.then(|| scene.clone()),
            force: true,
        })
        .unwrap();
        let glb = folder.join("tube.glb");
        let quantize = format!("--quantize={:?}", 0.9 * (bound - fitted.max_error));
        let s = |p: &Path| p.to_str().unwrap().to_string();
        let status = viewer()
            .args(["export", &s(&scene), &s(&bin), "--out", &s(&glb), &quantize])
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        (fitted, std::fs::read(&glb).unwrap())
    };
    // The fit under the bound itself: the one tried first.
    let (at_bound, at_bound_glb) = staged_glb("at_bound", bound, true);
    let kept = match under < bound {
        true => staged_glb("kept", under, false),
        false => (at_bound, at_bound_glb.clone()),
    };
    assert_eq!(kept.0.max_error, report["max_error"].as_f64().unwrap());
    assert!(
        bytes == kept.1,
        "the direct .glb differs from the exported one"
    );
    assert!(bytes.len() <= at_bound_glb.len());
    // Quantized: the file requires the extension; the readers' vertices
    // are within the fit's error and quantization's, within the bound.
    assert!(
        String::from_utf8_lossy(&bytes)
            .contains(r#""extensionsRequired":["KHR_mesh_quantization"]"#)
    );
    let gltf_error = report["gltf_error"].as_f64().unwrap();
    assert!(gltf_error > report["max_error"].as_f64().unwrap());
    assert!(gltf_error <= report["max_error_bound"].as_f64().unwrap());
    // --no-quantize: floats, no extension, more bytes (the triangles and
    // the frames are the same in both).
    let floats = direct.join("floats.glb");
    let report = three_parts(
        &direct.join("parts.obj"),
        &["--force", "--no-quantize", "--out", s(&floats)],
    );
    let float_bytes = std::fs::read(&floats).unwrap();
    assert!(!String::from_utf8_lossy(&float_bytes).contains("KHR_mesh_quantization"));
    assert_eq!(report["gltf_error"], report["max_error"]);
    assert!(
        float_bytes.len() as f64 > 1.3 * bytes.len() as f64,
        "{} bytes in floats against {} in integers",
        float_bytes.len(),
        bytes.len()
    );
}

#[test]
fn auto_parts_for_a_glb_go_by_the_gltf_size() {
    // The flag: more parts make the smallest MEMG file, but each part pays
    // a mesh, morph targets and weights in the glTF, where the numbers are
    // half as wide and a frame far cheaper: writing a .glb, `auto` ranks
    // the splits by the glTF's size (estimated from the motion's shape;
    // each try reports it) and keeps fewer parts than for a .bin. The
    // estimate knows nothing of 8-bit targets and 16-bit rotations, which
    // take what the fit leaves of the bound: the .glb written is held
    // within a few percent of the .bin-best split's. At 0.2 % of the
    // diagonal (a third of the time 0.1 % takes, each .glb being fitted
    // under less than the bound too): 1 part against 4, 87 824 bytes
    // against 101 308 (30 Nov 2026).
    let dir = tempfile::tempdir().unwrap();
    let (obj, pc2) = (test_data("fit/flag.obj"), test_data("fit/flag.pc2"));
    let fit_to = |name: &str, parts: &str| {
        let out = dir.path().join(name);
        let report = fit(&[
            s(&obj),
            s(&pc2),
            "--max-error",
            "0.2%",
            "--parts",
            parts,
            "--out-scene",
            s(&dir.path().join(format!("{name}.obj"))),
            "--out",
            s(&out),
        ]);
        (report, out)
    };
    let (for_bin, _) = fit_to("auto.bin", "auto");
    let bin_chosen = for_bin["parts"]["chosen"].as_u64().unwrap();
    assert!(for_bin["parts"]["tried"][0]["gltf_estimate"].is_null());
    let (for_glb, glb) = fit_to("auto.glb", "auto");
    let tried = for_glb["parts"]["tried"].as_array().unwrap();
    let estimates: Vec<(u64, u64)> = tried
        .iter()
        .filter_map(|t| Some((t["gltf_estimate"].as_u64()?, t["groups"].as_u64()?)))
        .collect();
    assert_eq!(
        estimates.len(),
        tried.len(),
        "every split fitted has an estimate"
    );
    let least = estimates.iter().min().unwrap().1;
    assert_eq!(for_glb["parts"]["chosen"].as_u64().unwrap(), least);
    assert!(
        least < bin_chosen,
        "{least} parts for the .glb, {bin_chosen} for the .bin"
    );
    let (_, bin_best) = fit_to("bin_best.glb", &bin_chosen.to_string());
    let (a, b) = (
        std::fs::metadata(&glb).unwrap().len(),
        std::fs::metadata(&bin_best).unwrap().len(),
    );
    assert!(
        a as f64 <= 1.05 * b as f64,
        "{a} bytes against the .bin-best split's {b}"
    );
}
