//! A second real client beside Blender: three.js under node
//! (`tests/js/gltf_three.mjs`: `GLTFLoader.parse`, an `AnimationMixer`
//! playing the clip once, `Mesh.getVertexPosition` for morphed vertices)
//! opens what `viewer export` writes by default, and its WORLD positions
//! match, with no placement in between (issue 23, cause 8):
//! - MEMG: every `.obj` vertex against the f64 reference of the spec's
//!   formula (tests/common/memg.rs) on the `.obj`'s own coordinates;
//! - AIBO: the 16 named rig points against `viewer export --time`'s world
//!   points (mm, AIBO axes), lifted onto the ground as the rig is;
//! - MRTK: the head camera and every tracked hand joint against `export
//!   --time`'s Unity positions (z mirrored into glTF's right-handed axes).
//!
//! `--layout fit` still moves them, as the viewer's stage does. Without node
//! or `three` (`npm ci --prefix tests/js`) the test prints a notice and
//! passes, except on CI.
use crate::app::viewer;
use crate::common::memg::RawFile;
use crate::common::{data, on_path, repo, tool_present};

use std::path::{Path, PathBuf};

use glam::DVec3;
use serde_json::Value;

/// Whether node and three.js are installed.
pub(super) fn three_present() -> bool {
    tool_present(
        "node with three.js",
        on_path("node") && repo("tests/js/node_modules/three/package.json").is_file(),
        "apt-get install nodejs npm; npm ci --prefix tests/js",
    )
}

/// Runs `viewer args…`, which must succeed.
fn run_viewer(args: &[&str]) {
    let out = viewer().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "viewer {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What three.js sees in `glb` at each of `times`.
pub(super) fn three(glb: &Path, times: &[f64]) -> Vec<Value> {
    let mut cmd = std::process::Command::new("node");
    cmd.arg(repo("tests/js/gltf_three.mjs")).arg(glb);
    cmd.args(times.iter().map(|t| t.to_string()));
    let out = cmd.current_dir(repo("tests/js")).output().unwrap();
    assert!(
        out.status.success(),
        "node gltf_three.mjs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["times"].as_array().unwrap().clone()
}

pub(super) fn vec3(v: &Value) -> DVec3 {
    let a = v.as_array().unwrap();
    DVec3::new(
        a[0].as_f64().unwrap(),
        a[1].as_f64().unwrap(),
        a[2].as_f64().unwrap(),
    )
}

/// The nodes three.js saw at one time whose name is `name`.
fn node_named<'a>(at: &'a Value, name: &str) -> Vec<&'a Value> {
    at["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["name"] == name)
        .collect()
}

/// The `.obj`'s vertices (f64) and group names, read here from its text.
fn obj_positions_and_groups(path: &Path) -> (Vec<[f64; 3]>, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut positions = Vec::new();
    let mut groups = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let p: Vec<f64> = words.take(3).map(|w| w.parse().unwrap()).collect();
                positions.push([p[0], p[1], p[2]]);
            }
            Some("g") => groups.extend(words.map(String::from)),
            _ => {}
        }
    }
    (positions, groups)
}

/// The `.obj` vertex of each vertex of a primitive, from its `objVertices` runs.
pub(super) fn obj_vertices(runs: &Value) -> Vec<usize> {
    runs.as_array()
        .unwrap()
        .iter()
        .flat_map(|run| {
            let first = run[0].as_u64().unwrap() as usize;
            let count = run[1].as_u64().unwrap() as usize;
            first..first + count
        })
        .collect()
}

#[test]
fn memg_vertices_in_world_coordinates_are_the_obj_s_own() {
    if !three_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("flags.glb");
    let (obj, bin) = (data("flags.obj"), data("flags.bin"));
    run_viewer(&[
        "export",
        obj.to_str().unwrap(),
        bin.to_str().unwrap(),
        "--out",
        glb.to_str().unwrap(),
    ]);
    let raw = RawFile::parse(&std::fs::read(&bin).unwrap());
    let (base, groups) = obj_positions_and_groups(&obj);
    let bound: Vec<&str> = raw
        .groups
        .iter()
        .map(|g| g.name.as_str())
        .filter(|n| groups.iter().any(|g| g == n))
        .collect();
    assert!(!bound.is_empty());
    let n = raw.n as usize;
    let steps = [0, n / 3, n - 1];
    let times: Vec<f64> = steps
        .iter()
        .map(|&t| f64::from((t as f64 / f64::from(raw.fps)) as f32))
        .collect();
    let seen = three(&glb, &times);
    // The scene's size over the reference, for a relative tolerance.
    let (lo, hi) = base.iter().fold(
        (DVec3::splat(f64::MAX), DVec3::splat(f64::MIN)),
        |(lo, hi), p| (lo.min(DVec3::from(*p)), hi.max(DVec3::from(*p))),
    );
    let diagonal = (hi - lo).length();
    let mut worst = 0.0f64;
    for (&t, at) in steps.iter().zip(&seen) {
        let expected = raw.evaluate(&base, &bound, t);
        let mut covered = vec![false; expected.len()];
        for mesh in at["meshes"].as_array().unwrap() {
            let map = obj_vertices(&mesh["objVertices"]);
            let positions = mesh["positions"].as_array().unwrap();
            assert_eq!(map.len(), positions.len(), "{}", mesh["name"]);
            for (v, p) in map.iter().zip(positions) {
                let d = vec3(p).distance(DVec3::from(expected[*v]));
                worst = worst.max(d / diagonal);
                covered[*v] = true;
            }
        }
        assert!(covered.iter().filter(|c| **c).count() > expected.len() / 2);
    }
    eprintln!("MEMG in three.js: worst {worst:.2e} of the scene's diagonal {diagonal:.2}");
    assert!(worst < 1e-5, "worst {worst:e} of the diagonal");
}

/// `viewer export FILE --time t --out s.json`, parsed: the state array.
fn state(dir: &Path, file: &Path, t: f64) -> Value {
    let out = dir.join(format!("state-{t}.json"));
    run_viewer(&[
        "export",
        file.to_str().unwrap(),
        "--time",
        &t.to_string(),
        "--out",
        out.to_str().unwrap(),
    ]);
    serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap()
}

/// Exports `file` to a `.glb` (with `extra` arguments) in `dir`.
fn glb_of(dir: &Path, file: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let glb = dir.join(name);
    let mut args = vec![
        "export",
        file.to_str().unwrap(),
        "--out",
        glb.to_str().unwrap(),
    ];
    args.extend(extra);
    run_viewer(&args);
    glb
}

#[test]
fn aibo_points_in_world_coordinates_match_export_time() {
    use motion_viewer::anim::aibo::pose_from_mtn;
    use motion_viewer::scene::rig::ground_lift;
    if !three_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = data("sony_stand_sit.mtn");
    let glb = glb_of(dir.path(), &file, "sit.glb", &[]);
    let motion = motion_viewer::formats::mtn::decode(&std::fs::read(&file).unwrap()).unwrap();
    // Frame ticks (16 ms), where the glTF keys its rotations.
    let times = [0.0, 0.016 * 50.0, 0.016 * 150.0, 0.016 * 290.0];
    let seen = three(&glb, &times);
    let mut worst = 0.0f64;
    for (&t, at) in times.iter().zip(&seen) {
        let s = state(dir.path(), &file, t);
        let world = s[0]["world"].as_object().unwrap();
        // The rig stands on the ground: its lift at t (a y translation).
        let (model, pose) = pose_from_mtn(&motion, t);
        let lift = f64::from(ground_lift(model, &pose));
        let mut points = 0;
        for node in at["nodes"].as_array().unwrap() {
            let Some(name) = node["extras"]["point"].as_str() else {
                continue;
            };
            let mm = vec3(&world[name]);
            // AIBO mm (x forward, y left, z up) → glTF metres (y up, right-handed).
            let expected = DVec3::new(mm.x, mm.z + 1000.0 * lift, -mm.y) / 1000.0;
            worst = worst.max(vec3(&node["world"]).distance(expected));
            points += 1;
        }
        assert_eq!(points, 16, "every named point at {t} s");
    }
    eprintln!("AIBO in three.js: worst {:.2e} mm", worst * 1000.0);
    assert!(worst < 1e-4, "worst {worst} m");

    // `--layout fit` stands it where the viewer's stage does: elsewhere.
    let placed = glb_of(dir.path(), &file, "placed.glb", &["--layout", "fit"]);
    let root = |glb: &Path| {
        let at = &three(glb, &[0.0])[0];
        vec3(&node_named(at, "sony_stand_sit")[0]["world"])
    };
    assert_eq!(root(&glb), DVec3::ZERO, "its own coordinates");
    assert_ne!(root(&placed), DVec3::ZERO, "the viewer's stage");
}

#[test]
fn mrtk_joints_in_world_coordinates_match_export_time() {
    if !three_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = data("hands.mrtk");
    let glb = glb_of(dir.path(), &file, "hands.glb", &[]);
    // 60 Hz sample times, where the glTF has its keys.
    let times: Vec<f64> = [0u32, 30, 90, 150]
        .iter()
        .map(|&k| f64::from((f64::from(k) / 60.0) as f32))
        .collect();
    let seen = three(&glb, &times);
    let unity = |v: &Value| {
        let p = vec3(v);
        DVec3::new(p.x, p.y, -p.z)
    };
    let (mut worst, mut joints) = (0.0f64, 0);
    for (&t, at) in times.iter().zip(&seen) {
        let s = &state(dir.path(), &file, t)[0];
        if s["camera"].is_object() {
            let camera = node_named(at, "camera");
            let expected = unity(&s["camera"]["position"]);
            worst = worst.max(vec3(&camera[0]["world"]).distance(expected));
        }
        for (side, key) in [("Left", "left"), ("Right", "right")] {
            let hand = &s["hands"][key];
            if hand["tracked"] != true {
                continue;
            }
            for j in hand["joints"].as_array().unwrap().iter().skip(1) {
                let name = format!("{side}_{}", j["name"].as_str().unwrap());
                let node = node_named(at, &name);
                assert_eq!(node.len(), 1, "{name}");
                worst = worst.max(vec3(&node[0]["world"]).distance(unity(&j["position"])));
                joints += 1;
            }
        }
    }
    eprintln!("MRTK in three.js: {joints} joints, worst {worst:.2e} m");
    assert!(joints > 0, "some hand was tracked");
    assert!(worst < 1e-4, "worst {worst} m");
}
