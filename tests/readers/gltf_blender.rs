//! The Blender round trip: headless Blender (3.4, with python3-numpy)
//! imports every kind of exported file in one run (tests/blender/dump.py)
//! and its evaluated world-space vertices and object positions match the
//! f64 references: MEMG within 1e-5 of the bounding-box diagonal at several
//! timesteps of both byte orders, reduced and baked; AIBO points within
//! 0.1 mm at frame ticks; MRTK joints within 1e-4 m; and a `.pc2` under a
//! Mesh Cache modifier on the imported `.obj` likewise.
//!
//! Without Blender the test prints a notice and passes, except on CI (`CI`
//! set), where it fails.
use crate::common;
use common::data;

use crate::common::gltf as gltf_common;

use std::path::PathBuf;
use std::time::Instant;

use glam::{DVec3, Vec3};
use gltf_common::{Asset, blender, blender_dump, out_dir};
use gltf_common::{aibo_world, unity_world};
use motion_viewer::anim::aibo::pose_from_mtn;
use motion_viewer::anim::input_animation::state_at;
use motion_viewer::anim::memg::{Binding, bounding_box_over_time, deform_reference_f64};
use motion_viewer::export::gltf::{GltfOptions, write};
use motion_viewer::export::pc2;
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg;
use motion_viewer::scene::rig::ground_lift;
use motion_viewer::scene::{Plan, Track};
use serde_json::{Value, json};

const MEMG_TOLERANCE: f64 = 1e-5;
const AIBO_TOLERANCE_M: f64 = 1e-4;
const MRTK_TOLERANCE_M: f64 = 1e-4;

/// An exported scene with what its checks need.
struct Export {
    file: PathBuf,
    tracks: Vec<Track>,
    plan: Plan,
    asset: Asset,
}

fn export(files: &[PathBuf], out: PathBuf, baked: bool) -> Export {
    let tracks = motion_viewer::open_with(files, &motion_viewer::OpenOptions::default())
        .unwrap()
        .tracks;
    let plan = Plan::new(&tracks).unwrap();
    write(
        &tracks,
        &plan,
        &GltfOptions {
            baked,
            ..GltfOptions::default()
        },
        &out,
        &mut |_| {},
    )
    .unwrap();
    Export {
        asset: Asset::open(&out),
        file: out,
        tracks,
        plan,
    }
}

/// One object of a Blender frame.
fn objects(frame: &Value) -> impl Iterator<Item = (Vec<&str>, &Value)> {
    frame["objects"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(path, v)| (path.split('|').collect(), v))
}

fn position(v: &Value) -> DVec3 {
    let p: Vec<f64> = serde_json::from_value(v["position"].clone()).unwrap();
    DVec3::from_slice(&p)
}

/// Worst MEMG vertex error (fraction of the diagonal) of track `index` over
/// the Blender frames of `result` (timesteps `steps`).
fn memg_worst(export: &Export, index: usize, result: &Value, steps: &[usize]) -> f64 {
    let Track::Memg { scene, motion, .. } = &export.tracks[index] else {
        panic!()
    };
    let binding = Binding::new(scene, motion).unwrap();
    let (lo, hi) = bounding_box_over_time(scene, motion, &binding).unwrap();
    let diagonal = f64::from(Vec3::from(hi).distance(Vec3::from(lo)));
    let root = &export.plan.placements[index].name;
    let offset = export.plan.placements[index].offset.as_dvec3();
    let mut worst = 0f64;
    for (frame, &step) in result["frames"].as_array().unwrap().iter().zip(steps) {
        let reference = deform_reference_f64(scene, motion, &binding, step as f64);
        let mut meshes = 0;
        for (path, object) in objects(frame) {
            if path.len() != 2 || path[0] != root.as_str() || object.get("vertices").is_none() {
                continue;
            }
            let scale: Vec<f64> = serde_json::from_value(object["scale"].clone()).unwrap();
            if scale.iter().all(|s| s.abs() < 1e-9) {
                continue; // a baked frame not shown now
            }
            let node = export.asset.named(path[1])[0];
            let objs: Vec<usize> = export.asset.obj_vertices(node).concat();
            let flat: Vec<f64> = serde_json::from_value(object["vertices"].clone()).unwrap();
            assert_eq!(
                flat.len(),
                3 * objs.len(),
                "{path:?}: Blender keeps every vertex, in order"
            );
            for (v, &o) in flat.chunks(3).zip(&objs) {
                let expected = DVec3::from_array(reference[o]) + offset;
                worst = worst.max(DVec3::from_slice(v).distance(expected) / diagonal);
            }
            meshes += 1;
        }
        assert!(meshes > 0, "no MEMG mesh at timestep {step}");
    }
    worst
}

/// Worst AIBO point error (m) of track `index` at the times of `result`.
fn aibo_worst(export: &Export, index: usize, result: &Value) -> f64 {
    let Track::Mtn { motion, .. } = &export.tracks[index] else {
        panic!()
    };
    let root = &export.plan.placements[index].name;
    let offset = export.plan.placements[index].offset;
    let mut worst = 0f64;
    for frame in result["frames"].as_array().unwrap() {
        let t = frame["time"].as_f64().unwrap();
        let (model, pose) = pose_from_mtn(motion, t);
        let origin = offset + Vec3::Y * ground_lift(model, &pose);
        let mut points = 0;
        for (path, object) in objects(frame) {
            let props = &result["objects"][path.join("|")]["props"];
            let Some(name) = props["point"].as_str().filter(|_| path[0] == root.as_str()) else {
                continue;
            };
            let expected = (origin + aibo_world(pose.world_point(name).unwrap())).as_dvec3();
            worst = worst.max(position(object).distance(expected));
            points += 1;
        }
        assert_eq!(points, 16, "every named point at {t}");
    }
    worst
}

/// Worst MRTK joint error (m) of track `index` at the times of `result`;
/// untracked hands must be scaled to nothing.
fn mrtk_worst(export: &Export, index: usize, result: &Value) -> f64 {
    let Track::InputAnimation { recording, .. } = &export.tracks[index] else {
        panic!()
    };
    let root = export.plan.placements[index].name.as_str();
    let offset = export.plan.placements[index].offset.as_dvec3();
    let mut worst = 0f64;
    let mut untracked = 0;
    for frame in result["frames"].as_array().unwrap() {
        let t = frame["time"].as_f64().unwrap();
        let state = state_at(recording, t);
        let hands = state.hands.unwrap();
        for (side, hand) in [("Left", hands.left), ("Right", hands.right)] {
            let hand_node = format!("{side} hand");
            for (path, object) in objects(frame) {
                if path.len() < 3 || path[0] != root || path[1] != hand_node {
                    continue;
                }
                let Some(j) = motion_viewer::anim::input_animation::JOINT_NAMES
                    .iter()
                    .position(|n| path[2] == format!("{side}_{n}"))
                else {
                    continue;
                };
                if hand.tracked {
                    let expected = unity_world(hand.joints[j].position).as_dvec3() + offset;
                    worst = worst.max(position(object).distance(expected));
                } else {
                    let scale: Vec<f64> = serde_json::from_value(object["scale"].clone()).unwrap();
                    assert!(
                        scale.iter().all(|s| s.abs() < 1e-6),
                        "{side} at {t}: {scale:?}"
                    );
                    untracked += 1;
                }
            }
        }
    }
    assert!(untracked > 0, "the times cover the untracked left hand");
    worst
}

/// Blender's frame rate that puts every frame tick of a `frame_ms` motion on a whole frame.
fn tick_fps(frame_ms: u32) -> u32 {
    let gcd = |mut a: u32, mut b: u32| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    1000 / gcd(1000, frame_ms)
}

#[test]
fn blender_plays_every_export_as_the_reference() {
    let Some(command) = blender() else {
        return;
    };
    let dir = out_dir();
    let at = |name: &str| dir.path().join(name);
    let flags = vec![data("flags.obj"), data("flags.bin")];
    let big = at("big");
    std::fs::create_dir(&big).unwrap();
    let motion = memg::decode(&std::fs::read(data("flags.bin")).unwrap()).unwrap();
    std::fs::write(big.join("flags.bin"), memg::encode(&motion, ByteOrder::Big)).unwrap();
    for name in ["flags.obj", "flags.mtl"] {
        std::fs::copy(data(name), big.join(name)).unwrap();
    }

    let reduced = export(&flags, at("flags.glb"), false);
    let big_endian = export(
        &[big.join("flags.obj"), big.join("flags.bin")],
        at("big.glb"),
        false,
    );
    let baked = export(&flags, at("baked.glb"), true);
    let sony = export(&[data("sony_stand_sit.mtn")], at("sony.glb"), false);
    let skitter = export(
        &[data("skitter_sleep_to_sit.mtn")],
        at("skitter.glb"),
        false,
    );
    let hands = export(&[data("hands.mrtk")], at("hands.glb"), false);
    let mixed_files = [
        flags.clone(),
        vec![data("sony_stand_sit.mtn"), data("hands.mrtk")],
    ]
    .concat();
    let mixed = export(&mixed_files, at("mixed.glb"), false);
    let tracks = motion_viewer::open_with(&flags, &motion_viewer::OpenOptions::default())
        .unwrap()
        .tracks;
    pc2::write(&tracks, &at("flags.pc2"), None, None, None, &mut |_| {}).unwrap();

    let steps = [0usize, 37, 120, 239];
    let flag_times: Vec<f64> = steps.iter().map(|&k| k as f64 / 30.0).collect();
    let baked_steps = [0usize, 37, 239];
    let baked_times: Vec<f64> = baked_steps.iter().map(|&k| k as f64 / 30.0).collect();
    let ticks = |e: &Export| -> (u32, Vec<f64>) {
        let Track::Mtn { motion, .. } = &e.tracks[0] else {
            panic!()
        };
        let total = motion.total_frames();
        let times = (0..total)
            .step_by(9)
            .chain([total])
            .map(|f| motion.frame_s(f))
            .collect();
        (tick_fps(motion.frame_ms()), times)
    };
    let (sony_fps, sony_times) = ticks(&sony);
    let (skitter_fps, skitter_times) = ticks(&skitter);
    let hand_times: Vec<f64> = (0..=240).step_by(7).map(|i| f64::from(i) / 60.0).collect();
    // Whole ticks of all three tracks: 0.4 s is 12 MEMG steps, 25 AIBO ticks, 24 MRTK samples.
    let mixed_steps = [0usize, 12, 36, 48, 60, 108];
    let mixed_times: Vec<f64> = mixed_steps.iter().map(|&k| k as f64 / 30.0).collect();
    let gltf = |e: &Export, fps: u32, times: &[f64], vertices: &str| json!({"kind": "gltf", "file": e.file, "fps": fps, "times": times, "vertices": vertices});
    let jobs = json!([
        gltf(&reduced, 30, &flag_times, "^flags\\|"),
        gltf(&big_endian, 30, &flag_times, "^flags\\|"),
        gltf(&baked, 30, &baked_times, "^flags\\|frame (0|37|239)$"),
        gltf(&sony, sony_fps, &sony_times, ""),
        gltf(&skitter, skitter_fps, &skitter_times, ""),
        gltf(&hands, 60, &hand_times, ""),
        gltf(&mixed, 60, &mixed_times, "^flags\\|"),
        {"kind": "pc2", "obj": data("flags.obj"), "pc2": at("flags.pc2"), "frames": steps},
    ]);
    let start = Instant::now();
    let results = blender_dump(command, &jobs, dir.path());
    let took = start.elapsed().as_secs_f64();
    assert_eq!(results.len(), 8);

    let reduced_worst = memg_worst(&reduced, 0, &results[0], &steps);
    let big_worst = memg_worst(&big_endian, 0, &results[1], &steps);
    // Baked: only the timestep's own frame is shown.
    for (frame, &step) in results[2]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&baked_steps)
    {
        for (path, object) in objects(frame) {
            let Some(n) = path.get(1).and_then(|p| p.strip_prefix("frame ")) else {
                continue;
            };
            let scale: Vec<f64> = serde_json::from_value(object["scale"].clone()).unwrap();
            let shown = scale.iter().all(|s| (s - 1.0).abs() < 1e-9);
            let hidden = scale.iter().all(|s| s.abs() < 1e-9);
            assert!(
                if n == step.to_string() { shown } else { hidden },
                "{path:?} at {step}: {scale:?}"
            );
        }
    }
    let baked_worst = memg_worst(&baked, 0, &results[2], &baked_steps);
    let aibo = aibo_worst(&sony, 0, &results[3]).max(aibo_worst(&skitter, 0, &results[4]));
    let mrtk = mrtk_worst(&hands, 0, &results[5]);
    let mixed_memg = memg_worst(&mixed, 0, &results[6], &mixed_steps);
    let mixed_aibo = aibo_worst(&mixed, 1, &results[6]);
    let mixed_mrtk = mrtk_worst(&mixed, 2, &results[6]);

    // The point cache on the imported .obj, in the .obj's own coordinates.
    let Track::Memg { scene, motion, .. } = &tracks[0] else {
        panic!()
    };
    let binding = Binding::new(scene, motion).unwrap();
    let (lo, hi) = bounding_box_over_time(scene, motion, &binding).unwrap();
    let diagonal = f64::from(Vec3::from(hi).distance(Vec3::from(lo)));
    let mut pc2_worst = 0f64;
    for (frame, &step) in results[7]["frames"].as_array().unwrap().iter().zip(&steps) {
        let flat: Vec<f64> = serde_json::from_value(frame["vertices"].clone()).unwrap();
        assert_eq!(flat.len(), 3 * scene.positions.len());
        let reference = deform_reference_f64(scene, motion, &binding, step as f64);
        for (v, r) in flat.chunks(3).zip(&reference) {
            pc2_worst =
                pc2_worst.max(DVec3::from_slice(v).distance(DVec3::from_array(*r)) / diagonal);
        }
    }

    eprintln!(
        "Blender ({took:.1} s, one run): MEMG reduced {reduced_worst:.2e}, big-endian {big_worst:.2e}, \
         baked {baked_worst:.2e}, pc2 {pc2_worst:.2e} of the diagonal; AIBO {:.2e} mm; MRTK {mrtk:.2e} m; \
         mixed {mixed_memg:.2e} / {:.2e} mm / {mixed_mrtk:.2e} m",
        aibo * 1000.0,
        mixed_aibo * 1000.0
    );
    for (what, worst) in [
        ("reduced", reduced_worst),
        ("big-endian", big_worst),
        ("baked", baked_worst),
        ("pc2", pc2_worst),
        ("mixed MEMG", mixed_memg),
    ] {
        assert!(worst < MEMG_TOLERANCE, "{what}: {worst:e}");
    }
    assert!(
        aibo < AIBO_TOLERANCE_M && mixed_aibo < AIBO_TOLERANCE_M,
        "{aibo:e} {mixed_aibo:e}"
    );
    assert!(
        mrtk < MRTK_TOLERANCE_M && mixed_mrtk < MRTK_TOLERANCE_M,
        "{mrtk:e} {mixed_mrtk:e}"
    );
}
