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
//! Without node/three.js, Blender or the validator the part that needs it
//! prints a notice and is skipped, except on CI.
use crate::common::gltf::{Asset, blender, out_dir, validate};
use crate::common::{on_path, repo, test_data, tool_present};

use glam::DVec3;
use motion_viewer::export::gltf::{GltfOptions, write};
use motion_viewer::fit::{AnimationSource, Bound, FitOptions, FitRequest, fit_files};
use motion_viewer::scene::{Plan, load};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A cache as read here: `frames` × `vertices` points.
struct Cache {
    vertices: usize,
    frames: usize,
    points: Vec<DVec3>,
}

fn read_pc2(path: &Path) -> Cache {
    let b = std::fs::read(path).unwrap();
    let int = |at: usize| i32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let f = |at: usize| f64::from(f32::from_le_bytes(b[at..at + 4].try_into().unwrap()));
    let (vertices, frames) = (int(16), int(28));
    let points = (0..vertices * frames)
        .map(|k| DVec3::new(f(32 + 12 * k), f(36 + 12 * k), f(40 + 12 * k)))
        .collect();
    Cache {
        vertices,
        frames,
        points,
    }
}

impl Cache {
    fn at(&self, t: usize, i: usize) -> DVec3 {
        self.points[t * self.vertices + i]
    }

    fn diagonal(&self) -> f64 {
        let lo = self.points.iter().fold(DVec3::INFINITY, |a, &p| a.min(p));
        let hi = self
            .points
            .iter()
            .fold(DVec3::NEG_INFINITY, |a, &p| a.max(p));
        (hi - lo).length()
    }
}

/// One cache fitted and exported.
struct Fitted {
    name: &'static str,
    cache: Cache,
    bound: f64,
    glb: PathBuf,
    asset: Asset,
}

fn fit_and_export(dir: &Path, name: &'static str) -> Fitted {
    let obj = test_data(&format!("fit/{name}.obj"));
    let cache_path = test_data(&format!("fit/{name}.pc2"));
    let cache = read_pc2(&cache_path);
    let bound = 1e-3 * cache.diagonal();
    // The scene beside its motion, as a user keeps them.
    let scene = dir.join(format!("{name}.obj"));
    std::fs::copy(&obj, &scene).unwrap();
    let bin = dir.join(format!("{name}.bin"));
    let report = fit_files(&FitRequest {
        scene: scene.clone(),
        animation: AnimationSource::Pc2(cache_path),
        out: bin.clone(),
        options: FitOptions {
            bound: Bound::MaxError(bound),
            ..FitOptions::default()
        },
        force: false,
    })
    .unwrap();
    assert!(report.max_error <= bound);
    let (tracks, _) = load(&[scene, bin]).unwrap();
    // In the files' own coordinates, as `viewer export` writes by default.
    let plan = Plan::unplaced(&tracks).unwrap();
    let glb = dir.join(format!("{name}.glb"));
    write(
        &tracks,
        &plan,
        &GltfOptions { baked: false },
        &glb,
        &mut |_| {},
    )
    .unwrap();
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
                worst = worst.max(p.distance(f.cache.at(t, o)));
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
    let fits: Vec<Fitted> = NAMES
        .iter()
        .map(|n| fit_and_export(dir.path(), n))
        .collect();
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

fn vec3(v: &Value) -> DVec3 {
    let a = v.as_array().unwrap();
    DVec3::new(
        a[0].as_f64().unwrap(),
        a[1].as_f64().unwrap(),
        a[2].as_f64().unwrap(),
    )
}

/// three.js at every frame's key time.
fn three_js(fits: &[Fitted]) {
    let present = on_path("node") && repo("tests/js/node_modules/three/package.json").is_file();
    if !tool_present("node with three.js", present, "npm ci --prefix tests/js") {
        return;
    }
    for f in fits {
        let frames: Vec<usize> = (0..f.cache.frames).collect();
        let times: Vec<String> = frames
            .iter()
            .map(|&t| f64::from((t as f64 / 30.0) as f32).to_string())
            .collect();
        let out = std::process::Command::new("node")
            .arg(repo("tests/js/gltf_three.mjs"))
            .arg(&f.glb)
            .args(&times)
            .current_dir(repo("tests/js"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
        let at = seen["times"].as_array().unwrap();
        let w = worst(f, &frames, |k| {
            at[k]["meshes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let objs = m["objVertices"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .flat_map(|run| {
                            let first = run[0].as_u64().unwrap() as usize;
                            first..first + run[1].as_u64().unwrap() as usize
                        })
                        .collect();
                    let positions = m["positions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(vec3)
                        .collect();
                    (objs, positions)
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
    let Some(mut command) = blender() else {
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
    let jobs_path = dir.path().join("fit-jobs.json");
    let results_path = dir.path().join("fit-results.json");
    std::fs::write(&jobs_path, Value::Array(jobs).to_string()).unwrap();
    let output = command
        .arg(repo("tests/blender/dump.py"))
        .arg("--")
        .arg(&jobs_path)
        .arg(&results_path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let results: Vec<Value> =
        serde_json::from_slice(&std::fs::read(&results_path).unwrap()).unwrap();
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
                    let node_name = path.split('|').nth(1).unwrap();
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
