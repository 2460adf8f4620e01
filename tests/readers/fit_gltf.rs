//! A fitted MEMG motion carried to the tools people play it in (issue 36):
//! each Blender-made cache of tests/data/fit/ is fitted at 1/1000 of its
//! diagonal (`motion_viewer::fit::fit_files`, as `viewer memg fit` does),
//! exported as the reduced `.glb` (morph targets and rigid node frames; the
//! tube's three groups meet at seams, each group's mesh with its own copy
//! of the seam), and opened in three.js (tests/js/gltf_three.mjs) and in
//! headless Blender (tests/blender/dump.py): at every frame, every vertex
//! of every mesh is within the same bound of the input cache, read here.
//! The files also pass the Khronos validator.
//!
//! The tube split into parts by the fit (`--parts`, issue 47): the scene
//! it writes opens in Blender as one mesh keeping every vertex's index (the
//! cache applied to it by Blender's Mesh Cache gives the cache's positions)
//! with the parts as its vertex groups.
//!
//! The flag and the tube's parts are exported in 16-bit integers too
//! (`GltfOptions::quantized`, `KHR_mesh_quantization`): the readers'
//! vertices within the same bound, the fit's error and quantization's
//! together within it.
//!
//! Without node/three.js, Blender or the validator the part that needs it
//! prints a notice and is skipped, except on CI.
use super::gltf_three::{obj_vertices, three, three_present, vec3};
use crate::common::fit::{Cache, read_pc2};
use crate::common::gltf::{Asset, blender, blender_dump, out_dir, validate};
use crate::common::test_data;

use glam::DVec3;
use gltf::accessor::DataType;
use gltf::animation::Property;
use motion_viewer::export::gltf::{GltfOptions, write};
use motion_viewer::fit::{
    AnimationSource, Bound, FitOptions, FitRequest, FrameMode, Parts, fit_files,
};
use motion_viewer::scene::Plan;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// One cache fitted and exported.
struct Fitted {
    name: &'static str,
    cache: Cache,
    bound: f64,
    glb: PathBuf,
    asset: Asset,
}

fn fit_and_export(dir: &Path, name: &'static str) -> Fitted {
    fit_and_export_as(dir, name, name, None, Quantized::No)
}

/// How a fit is written.
#[derive(Clone, Copy, PartialEq)]
enum Quantized {
    /// In floats.
    No,
    /// In integers, with 90 % of what the fit left of the bound to spend
    /// (as `memg fit` writes it).
    Within,
    /// In integers, with this share of the bound to spend on top of the
    /// fit's error: keys are dropped; the readers are held to the fit's
    /// error plus it.
    Spare(f64),
}

/// `data`'s cache fitted as `name` (its files' and track's name), split
/// into `parts` with frames chosen per part (`FrameMode::Auto`: parts may
/// share one) when given; in integers as `quantized` says.
fn fit_and_export_as(
    dir: &Path,
    name: &'static str,
    data: &str,
    parts: Option<usize>,
    quantized: Quantized,
) -> Fitted {
    let obj = test_data(&format!("fit/{data}.obj"));
    let cache_path = test_data(&format!("fit/{data}.pc2"));
    let cache = read_pc2(&cache_path);
    let bound = 1e-3 * cache.diagonal();
    // The scene beside its motion, as a user keeps them.
    let scene = dir.join(format!("{name}.obj"));
    if parts.is_none() {
        std::fs::copy(&obj, &scene).unwrap();
    }
    let bin = dir.join(format!("{name}.bin"));
    let report = fit_files(&FitRequest {
        scene: if parts.is_some() { obj } else { scene.clone() },
        animation: AnimationSource::Pc2(cache_path),
        out: bin.clone(),
        options: FitOptions {
            bound: Bound::MaxError(bound),
            frames: if parts.is_some() {
                FrameMode::Auto
            } else {
                FrameMode::Local
            },
            ..FitOptions::default()
        },
        parts: parts.map(Parts::Count),
        out_scene: parts.map(|_| scene.clone()),
        force: false,
    })
    .unwrap();
    assert!(report.max_error <= bound);
    let tracks = motion_viewer::open_with([scene, bin], &motion_viewer::OpenOptions::default())
        .unwrap()
        .tracks;
    // In the files' own coordinates, as `viewer export` writes by default.
    let plan = Plan::unplaced(&tracks).unwrap();
    let glb = dir.join(format!("{name}.glb"));
    // Quantizing may spend 90 % of what the fit left, as `memg fit` lets it.
    let tolerance = match quantized {
        Quantized::No => None,
        Quantized::Within => Some(0.9 * (bound - report.max_error)),
        Quantized::Spare(share) => Some(share * bound),
    };
    let options = GltfOptions {
        quantized: quantized != Quantized::No,
        tolerance,
        ..GltfOptions::default()
    };
    let written = write(&tracks, &plan, &options, &glb, &mut |_| {}).unwrap();
    assert_eq!(written.quantization_error > 0.0, quantized != Quantized::No);
    // Within the tolerance: with `Within`, within the bound.
    let bound = match tolerance {
        Some(tolerance) => {
            assert!(written.quantization_error <= tolerance);
            report.max_error + tolerance
        }
        None => bound,
    };
    assert!(report.max_error + written.quantization_error <= bound);
    Fitted {
        name,
        cache,
        bound,
        asset: Asset::open(&glb),
        glb,
    }
}

/// The worst distance, over `frames` and every mesh vertex, between what a
/// reader placed and the cache; `meshes(k)` lists frame `k`'s meshes as
/// (their `.obj` vertices, their world positions). Every `.obj` vertex must
/// be placed at every frame.
fn worst(
    f: &Fitted,
    frames: &[usize],
    meshes: impl Fn(usize) -> Vec<(Vec<usize>, Vec<DVec3>)>,
) -> f64 {
    let mut worst = 0f64;
    for (k, &t) in frames.iter().enumerate() {
        let mut covered = vec![false; f.cache.vertices];
        for (objs, positions) in meshes(k) {
            assert_eq!(
                objs.len(),
                positions.len(),
                "{}: one position per vertex",
                f.name
            );
            for (&o, p) in objs.iter().zip(positions) {
                worst = worst.max(p.distance(DVec3::from_array(f.cache.at(t, o))));
                covered[o] = true;
            }
        }
        assert!(
            covered.iter().all(|&c| c),
            "{} frame {t}: every vertex placed",
            f.name
        );
    }
    worst
}

const NAMES: [&str; 3] = ["flag", "softbody", "tube"];

#[test]
fn fitted_glb_plays_within_the_bound_in_three_js_and_blender() {
    let dir = out_dir();
    let mut fits: Vec<Fitted> = NAMES
        .iter()
        .map(|n| fit_and_export(dir.path(), n))
        .collect();
    // The tube in four parts, which share frames two by two (issue 47;
    // parts 2 and 3 one, 1 and 4 the other): each shared frame is one node
    // over its parts'.
    let parts = fit_and_export_as(dir.path(), "parts", "tube", Some(4), Quantized::No);
    let nodes = parts.asset.doc.nodes().count();
    let shared: Vec<usize> = (0..nodes)
        .filter(|&n| {
            parts
                .asset
                .node(n)
                .name()
                .is_some_and(|x| x.starts_with("frame "))
        })
        .collect();
    assert_eq!(shared.len(), 2, "a node for each shared frame");
    for &frame in &shared {
        let under = (0..nodes)
            .filter(|&n| parts.asset.parent(n) == Some(frame))
            .count();
        assert_eq!(under, 2, "the two parts that share it under it");
    }
    fits.push(parts);
    // In 16 bits: the sheet, and the parts with their shared frame and seams.
    fits.push(fit_and_export_as(
        dir.path(),
        "flag16",
        "flag",
        None,
        Quantized::Within,
    ));
    fits.push(fit_and_export_as(
        dir.path(),
        "parts16",
        "tube",
        Some(4),
        Quantized::Within,
    ));
    // Some of the flag's smaller morph targets in 8 bits (the parts' fit
    // leaves too little of the bound): more 8-bit accessors than the
    // primitives' normals.
    {
        let f = &fits[fits.len() - 2];
        let bytes = f
            .asset
            .doc
            .accessors()
            .filter(|a| a.data_type() == DataType::I8)
            .count();
        let primitives = f
            .asset
            .doc
            .meshes()
            .map(|m| m.primitives().len())
            .sum::<usize>();
        assert!(bytes > primitives, "{}: {bytes} 8-bit accessors", f.name);
    }
    // The tube's own three groups, each with its own frame, with three
    // times the bound more to spend (a reader held to the fit's error plus
    // that): keys dropped, frames and weights blended between them by each
    // reader as the exporter's bound says.
    let keys = fit_and_export_as(dir.path(), "keys16", "tube", None, Quantized::Spare(3.0));
    let fewest = keys
        .asset
        .doc
        .animations()
        .flat_map(|a| a.samplers())
        .map(|s| s.input().count())
        .min()
        .unwrap();
    assert!(
        fewest < keys.cache.frames / 2,
        "{fewest} keys of {}",
        keys.cache.frames
    );
    // Its frames' rotations in 16 bits (glTF 2.0's normalized shorts), which
    // the readers below play within the bound too.
    let rotations16 = animated_in(&keys, Property::Rotation, DataType::I16);
    assert!(!rotations16.is_empty(), "no rotation in 16 bits");
    // Some groups' weights in 8 bits (their targets then not stretched),
    // which the readers below blend within the bound too.
    let weights8 = animated_in(&keys, Property::MorphTargetWeights, DataType::U8);
    assert!(!weights8.is_empty(), "no weights in 8 bits");
    fits.push(keys);
    // The tube in four parts with half the bound more to spend: each
    // frame two parts share turns its node by 16-bit rotations too, whose
    // rounding both parts' errors count.
    let shared16 = fit_and_export_as(
        dir.path(),
        "shared16",
        "tube",
        Some(4),
        Quantized::Spare(0.5),
    );
    let frames16 = animated_in(&shared16, Property::Rotation, DataType::I16);
    assert_eq!(frames16, ["frame 0", "frame 1"]);
    fits.push(shared16);
    if let Some(reports) = validate(&fits.iter().map(|f| f.glb.clone()).collect::<Vec<_>>()) {
        for (f, r) in fits.iter().zip(&reports) {
            assert_eq!(
                (&r["errors"], &r["warnings"]),
                (&json!(0), &json!(0)),
                "{}: {r}",
                f.name
            );
        }
    }
    three_js(&fits);
    in_blender(&dir, &fits);
}

/// The names of the nodes whose `property` `f`'s animation keys in
/// normalized integers of `kind`.
fn animated_in(f: &Fitted, property: Property, kind: DataType) -> Vec<String> {
    f.asset
        .doc
        .animations()
        .flat_map(|a| a.channels())
        .filter(|c| c.target().property() == property)
        .filter(|c| {
            let output = c.sampler().output();
            output.data_type() == kind && output.normalized()
        })
        .map(|c| c.target().node().name().unwrap_or_default().to_string())
        .collect()
}

/// three.js at every frame's key time.
fn three_js(fits: &[Fitted]) {
    if !three_present() {
        return;
    }
    for f in fits {
        let frames: Vec<usize> = (0..f.cache.frames).collect();
        let times: Vec<f64> = frames
            .iter()
            .map(|&t| f64::from((t as f64 / 30.0) as f32))
            .collect();
        let at = three(&f.glb, &times);
        let w = worst(f, &frames, |k| {
            at[k]["meshes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let positions = m["positions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(vec3)
                        .collect();
                    (obj_vertices(&m["objVertices"]), positions)
                })
                .collect()
        });
        eprintln!(
            "{} in three.js: worst {w:.4e} at every frame, bound {:.4e}",
            f.name, f.bound
        );
        assert!(w <= f.bound, "{}: {w:e} over {:e}", f.name, f.bound);
    }
}

/// Blender's glTF importer at every frame (scene at 30 fps).
fn in_blender(dir: &tempfile::TempDir, fits: &[Fitted]) {
    let Some(command) = blender() else {
        return;
    };
    let jobs: Vec<Value> = fits
        .iter()
        .map(|f| {
            let times: Vec<f64> = (0..f.cache.frames).map(|t| t as f64 / 30.0).collect();
            json!({"kind": "gltf", "file": f.glb, "fps": 30, "times": times,
                   "vertices": format!("^{}\\|", f.name)})
        })
        .collect();
    let results = blender_dump(command, &Value::Array(jobs), dir.path());
    for (f, result) in fits.iter().zip(&results) {
        let frames: Vec<usize> = (0..f.cache.frames).collect();
        let blender_frames = result["frames"].as_array().unwrap();
        let w = worst(f, &frames, |k| {
            blender_frames[k]["objects"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, o)| o.get("vertices").is_some())
                .map(|(path, o)| {
                    // A part under a shared frame's node is one level deeper.
                    let node_name = path.split('|').next_back().unwrap();
                    let node = f.asset.named(node_name)[0];
                    let objs = f.asset.obj_vertices(node).concat();
                    let flat: Vec<f64> = serde_json::from_value(o["vertices"].clone()).unwrap();
                    let positions = flat.chunks(3).map(DVec3::from_slice).collect();
                    (objs, positions)
                })
                .collect()
        });
        eprintln!(
            "{} in Blender: worst {w:.4e} at every frame, bound {:.4e}",
            f.name, f.bound
        );
        assert!(w <= f.bound, "{}: {w:e} over {:e}", f.name, f.bound);
    }
}

#[test]
fn the_split_scene_opens_in_blender_with_every_vertex_and_its_parts() {
    let Some(command) = blender() else {
        return;
    };
    let dir = out_dir();
    let cache_path = test_data("fit/tube.pc2");
    let cache = read_pc2(&cache_path);
    let (scene, bin) = (dir.path().join("parts.obj"), dir.path().join("parts.bin"));
    let report = fit_files(&FitRequest {
        scene: test_data("fit/tube.obj"),
        animation: AnimationSource::Pc2(cache_path.clone()),
        out: bin,
        options: FitOptions::default(),
        parts: Some(Parts::Count(3)),
        out_scene: Some(scene.clone()),
        force: false,
    })
    .unwrap();
    assert_eq!(report.parts.as_ref().unwrap().chosen, 3);
    // Each part's vertices, read here from the scene written: those its faces use.
    let mut parts: std::collections::BTreeMap<String, std::collections::BTreeSet<usize>> =
        Default::default();
    let mut current = String::new();
    for line in std::fs::read_to_string(&scene).unwrap().lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("g") => current = words.collect::<Vec<_>>().join(" "),
            Some("f") => {
                for corner in words {
                    let i: usize = corner.split('/').next().unwrap().parse().unwrap();
                    parts.entry(current.clone()).or_default().insert(i - 1);
                }
            }
            _ => {}
        }
    }
    let frames = [0, cache.frames / 2, cache.frames - 1];
    let jobs = json!([
        {"kind": "groups", "obj": scene},
        {"kind": "pc2", "obj": scene, "pc2": cache_path, "frames": frames},
    ]);
    let results = blender_dump(command, &jobs, dir.path());
    let groups = &results[0];
    assert_eq!(
        (groups["meshes"].as_u64(), groups["vertices"].as_u64()),
        (Some(1), Some(cache.vertices as u64))
    );
    let counts: std::collections::BTreeMap<String, usize> =
        serde_json::from_value(groups["groups"].clone()).unwrap();
    let expected: std::collections::BTreeMap<String, usize> = parts
        .iter()
        .map(|(name, v)| (name.clone(), v.len()))
        .collect();
    assert_eq!(counts, expected);
    // Blender's Mesh Cache puts the cache's points on the vertices in their
    // order: the split scene kept every index.
    for (frame, &t) in results[1]["frames"].as_array().unwrap().iter().zip(&frames) {
        let flat: Vec<f64> = serde_json::from_value(frame["vertices"].clone()).unwrap();
        assert_eq!(flat.len(), 3 * cache.vertices);
        for (i, p) in flat.chunks(3).enumerate() {
            let want = cache.at(t, i);
            let off = (0..3).map(|k| (p[k] - want[k]).abs()).fold(0.0, f64::max);
            assert!(off < 1e-6, "frame {t} vertex {i}: {p:?} against {want:?}");
        }
    }
}
