//! The MEMG scene (`data/flags.obj` + `data/flags.bin`, 240 timesteps at
//! 30 fps, 3116 vertices) on every path: tables, states, `.obj` at
//! `--time`, `.pc2`, the bag's local frames, USD, glTF, plot, diff.
//!
//! Deformed vertices are held against `deform_reference_f64` (the `f64`
//! reference of the one MEMG rule) at `steps_at(t)`, within 1e-5 of the
//! scene's diagonal, and against each other bit for bit where both are
//! `f32` from the deformer (`.obj`, `.pc2`, USD points).

use super::read::{Bag, Table};
use super::{Case, RATES, Stage, UsdJob, assert_key_times, assert_stamps, label, read_stages};
use crate::common::gltf::Asset;
use glam::{DMat3, DQuat, DVec3};
use motion_viewer::Track;
use motion_viewer::anim::memg::{Between, Binding, deform_reference_f64, steps_at};
use motion_viewer::formats::memg::MemgMotion;
use motion_viewer::formats::obj::ObjScene;

/// How far a deformed vertex may be from the `f64` reference, as a
/// fraction of the scene's diagonal.
const VERTEX_TOLERANCE: f64 = 1e-5;

/// The channels plotted: flag 3's first coefficient and its frame's x.
const PLOTTED: [&str; 2] = ["g1_q0", "g1_tx"];

/// The `.pc2` at 1000 fps: frames 8..10 of the motion's own 30 fps
/// (0.2667 s to 0.3333 s, 2/7 s inside), not 7967 frames of 37 KB.
const PC2_WINDOW: (u64, u64) = (8, 10);

/// The scene and motion, bound, and the yardstick.
struct Memg<'a> {
    scene: &'a ObjScene,
    motion: &'a MemgMotion,
    binding: Binding,
    /// The `.obj`'s bounding box diagonal.
    diagonal: f64,
}

impl<'a> Memg<'a> {
    fn new(track: &'a Track) -> Memg<'a> {
        let Track::Memg { scene, motion, .. } = track else {
            panic!("a MEMG track")
        };
        let lo = scene.positions.iter().fold([f64::INFINITY; 3], |a, p| {
            std::array::from_fn(|i| a[i].min(f64::from(p[i])))
        });
        let hi = scene.positions.iter().fold([f64::NEG_INFINITY; 3], |a, p| {
            std::array::from_fn(|i| a[i].max(f64::from(p[i])))
        });
        Memg {
            scene,
            motion,
            binding: Binding::new(scene, motion).unwrap(),
            diagonal: DVec3::from(hi).distance(DVec3::from(lo)),
        }
    }

    /// Every `.obj` vertex at `t` seconds by the `f64` reference.
    fn reference(&self, t: f64) -> Vec<[f64; 3]> {
        deform_reference_f64(
            self.scene,
            self.motion,
            &self.binding,
            steps_at(self.motion, t),
        )
    }

    /// The worst distance of `got` (`.obj` vertex `v` at `got[i]`, each
    /// `(v, position)`) from the reference at `t`, as a fraction of the
    /// diagonal; fails past [`VERTEX_TOLERANCE`].
    fn worst(&self, what: &str, t: f64, got: impl IntoIterator<Item = (usize, DVec3)>) -> f64 {
        let want = self.reference(t);
        let mut worst = 0f64;
        let mut count = 0;
        for (v, p) in got {
            let d = p.distance(DVec3::from(want[v])) / self.diagonal;
            assert!(
                d < VERTEX_TOLERANCE,
                "{what} at {t} s: .obj vertex {} is {d:.2e} of the diagonal from the reference",
                v + 1
            );
            worst = worst.max(d);
            count += 1;
        }
        assert!(count > 0, "{what}: no vertex");
        worst
    }
}

/// An `.obj`'s `v` lines, read as the `f32`s the writer printed.
fn obj_vertices(path: &std::path::Path) -> Vec<[f32; 3]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// A Blender point cache: `POINTCACHE2\0`, version 1, vertex count, start
/// frame 0, sampling 1, frame count, then `x y z` (`f32`) per vertex per
/// frame, little-endian. Returns its frames.
fn pc2_frames(path: &std::path::Path, vertices: usize) -> Vec<Vec<[f32; 3]>> {
    let bytes = std::fs::read(path).unwrap();
    let i32_at = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let f32_at = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(&bytes[..12], b"POINTCACHE2\0");
    assert_eq!((i32_at(12), i32_at(16) as usize), (1, vertices));
    assert_eq!(
        (f32_at(20), f32_at(24)),
        (0.0, 1.0),
        "start frame and sampling"
    );
    let frames = i32_at(28) as usize;
    assert_eq!(bytes.len(), 32 + 12 * vertices * frames);
    (0..frames)
        .map(|f| {
            (0..vertices)
                .map(|v| {
                    let at = 32 + 12 * (f * vertices + v);
                    [f32_at(at), f32_at(at + 4), f32_at(at + 8)]
                })
                .collect()
        })
        .collect()
}

fn wide(p: [f32; 3]) -> DVec3 {
    DVec3::new(p[0].into(), p[1].into(), p[2].into())
}

/// The state at frame `k` (time `t`): its timestep is `t · 30`, its groups'
/// coefficients and frame translations are the CSV's row `k` bit for bit
/// (null where a group has no frame and the CSV no column), and its box is
/// that of `obj`, the `.obj` exported at the same time.
fn check_state(csv: &Table, k: usize, state: &serde_json::Value, obj: &[[f32; 3]]) {
    let t = csv.at(k, "time_s");
    let steps = state["timestep"].as_f64().unwrap();
    assert!((steps - t * 30.0).abs() < 1e-9, "timestep {steps} at {t} s");
    for (g, group) in state["groups"].as_array().unwrap().iter().enumerate() {
        for (j, q) in group["q"].as_array().unwrap().iter().enumerate() {
            assert_eq!(
                q.as_f64(),
                Some(csv.at(k, &format!("g{g}_q{j}"))),
                "g{g}_q{j} at {t} s"
            );
        }
        let has_frame = csv.columns.contains(&format!("g{g}_tx"));
        assert_eq!(group["translation"].is_null(), !has_frame, "group {g}");
        if has_frame {
            for (i, axis) in ["tx", "ty", "tz"].iter().enumerate() {
                let want = csv.at(k, &format!("g{g}_{axis}"));
                assert_eq!(
                    group["translation"][i].as_f64(),
                    Some(want),
                    "g{g}_{axis} at {t} s"
                );
            }
        }
    }
    let (lo, hi) = motion_viewer::anim::memg::bounding_box(obj).unwrap();
    let f32s = |v: &serde_json::Value| -> Vec<f32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect()
    };
    assert_eq!(f32s(&state["bbox_min"]), lo, "box at {t} s");
    assert_eq!(f32s(&state["bbox_max"]), hi, "box at {t} s");
}

/// The bag at `rate`: a `/tf` message per grid time, stamped there; each
/// `memg_frame_K`'s translation is the CSV's `g{g}_t*` of the groups in
/// frame K (bit for bit), and its rotation is the local frame the one MEMG
/// rule gives at that time (to 1e-9, a matrix element).
fn check_bag(case: &Case, memg: &Memg<'_>, rate: Option<f64>, csv: &Table) -> f64 {
    let grid = case.grid(rate);
    let what = format!("MEMG /tf at {}", label(rate));
    let bag = Bag::read(&case.export(rate, &[], &format!("{}.mcap", label(rate))));
    let tf = bag.tf("/tf");
    let stamps: Vec<u64> = tf.iter().map(|(log, _)| *log).collect();
    assert_stamps(&what, &stamps, &grid);
    let mut worst = 0f64;
    for (k, (_, transforms)) in tf.iter().enumerate() {
        let t = grid[k];
        let at = Between::at_time(memg.motion, t).unwrap();
        assert_eq!(
            transforms.len(),
            memg.motion.local_frames,
            "{what} at {t} s"
        );
        for x in transforms {
            let frame: i32 = x
                .child
                .strip_prefix("memg_frame_")
                .unwrap()
                .parse()
                .unwrap();
            for (g, group) in memg.motion.groups.iter().enumerate() {
                if group.parent == frame {
                    let want = ["tx", "ty", "tz"].map(|a| csv.at(k, &format!("g{g}_{a}")));
                    assert_eq!(x.translation, want, "{what}: {} at {t} s", x.child);
                }
            }
            let m = at.frame(memg.motion, frame).unwrap();
            let want =
                DMat3::from_cols_array(&[m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10]]);
            let [qx, qy, qz, qw] = x.rotation;
            let got = DMat3::from_quat(DQuat::from_xyzw(qx, qy, qz, qw));
            let d = (got - want)
                .to_cols_array()
                .iter()
                .fold(0f64, |a, e| a.max(e.abs()));
            assert!(
                d < 1e-9,
                "{what}: {} at {t} s turns {d:.1e} away from the frame",
                x.child
            );
            worst = worst.max(d);
        }
    }
    worst
}

/// The glTF (keys at the motion's timesteps, its own grid) evaluated by
/// the spec's rules at `t`: every mesh node's vertices against the reference.
fn check_gltf(gltf: &Asset, memg: &Memg<'_>, t: f64) -> f64 {
    let mut got = Vec::new();
    for node in 0..gltf.doc.nodes().count() {
        let positions = gltf.world_vertices(node, t as f32);
        for (primitive, objs) in positions.iter().zip(gltf.obj_vertices(node)) {
            got.extend(objs.into_iter().zip(primitive.iter().copied()));
        }
    }
    memg.worst("glTF", t, got)
}

/// The GPU deformer at 2/7 s (`export --gpu`, read back): its inputs
/// follow the one rule, so its vertices are the reference's too. Returns
/// the worst distance, or `None` (a notice; a failure on CI) where no
/// adapter could be had and the CPU stood in.
fn check_gpu(case: &Case, memg: &Memg<'_>) -> Option<f64> {
    let t = 2.0 / 7.0;
    let out = case.out("gpu.obj");
    let mut command = case.export_command(None, &["--gpu", "--time", &t.to_string()], &out);
    if std::env::var_os("WGPU_BACKEND").is_none() {
        command.env("WGPU_BACKEND", "vulkan");
    }
    let run = command.output().unwrap();
    let text = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{text}");
    let gpu = !text.contains("on the CPU instead");
    if !crate::common::tool_present(
        &format!("a GPU adapter ({})", text.trim()),
        gpu,
        "apt-get install mesa-vulkan-drivers, WGPU_BACKEND=vulkan",
    ) {
        return None;
    }
    let at = obj_vertices(&out).into_iter().enumerate();
    Some(memg.worst("export --gpu .obj", t, at.map(|(v, p)| (v, wide(p)))))
}

/// A point cache's frames, each every `.obj` vertex.
type Frames = Vec<Vec<[f32; 3]>>;

/// The `.pc2` at `rate` (over [`PC2_WINDOW`] at 1000 fps): a frame per
/// grid time of the window, each the reference's, and a frame that falls on
/// a timestep bit for bit the own cache's frame there. Returns its frames,
/// the grid index of its first, and the worst distance.
fn check_pc2(
    case: &Case,
    memg: &Memg<'_>,
    rate: Option<f64>,
    own: &Frames,
) -> (Frames, usize, f64) {
    let grid = case.grid(rate);
    let what = format!("{}.pc2", label(rate));
    let (frames, first, end) = match rate {
        Some(r) if r > 100.0 => {
            let (a, b) = PC2_WINDOW;
            let path = case.export(rate, &["--frames", &format!("{a}..{b}")], &what);
            // The grid's frames whose time lies in [a·p, b·p).
            let p = case.own_period;
            let from = |frame: u64| grid.iter().position(|&t| t >= frame as f64 * p - 1e-9 / r);
            (
                pc2_frames(&path, memg.scene.positions.len()),
                from(a).unwrap(),
                from(b).unwrap(),
            )
        }
        None => (own.clone(), 0, grid.len()),
        Some(_) => {
            let path = case.export(rate, &[], &what);
            (pc2_frames(&path, memg.scene.positions.len()), 0, grid.len())
        }
    };
    assert_eq!(frames.len(), end - first, "{what}: a frame per grid time");
    let mut worst = 0f64;
    for (i, frame) in frames.iter().enumerate() {
        let t = grid[first + i];
        let at = frame.iter().enumerate().map(|(v, &p)| (v, wide(p)));
        worst = worst.max(memg.worst(&what, t, at));
        let steps = t * 30.0;
        if (steps - steps.round()).abs() < 1e-9 {
            let own = &own[steps.round() as usize];
            assert!(
                frame == own,
                "{what} at {t} s: not timestep {steps}'s frame"
            );
        }
    }
    (frames, first, worst)
}

/// A stage at 1000 fps (7967 time codes × 3116 points × 3 numbers) is past
/// what a `.usda` export writes: refused, with a hint, leaving no file.
fn check_usd_refused(case: &Case, rate: Option<f64>) {
    let out = case.out(&format!("{}.usda", label(rate)));
    let run = case.export_command(rate, &[], &out).output().unwrap();
    let text = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success() && text.contains("lower --fps"),
        "{text}"
    );
    assert!(!out.exists(), "a refused stage leaves nothing");
}

/// A stage at `rate`: its clock is the grid's, and every mesh's points at
/// time code `k` are the `.pc2`'s frame `k` bit for bit (one deformer) and
/// the reference's. Returns the worst distance.
fn check_stage(
    case: &Case,
    memg: &Memg<'_>,
    rate: Option<f64>,
    stage: &Stage,
    codes: &[usize],
    pc2: &Frames,
) -> f64 {
    let what = format!("MEMG USD at {}", label(rate));
    let grid = case.grid(rate);
    stage.assert_clock(&what, rate.unwrap_or(30.0), grid.len(), None);
    let mut worst = 0f64;
    for (i, &k) in codes.iter().enumerate() {
        let t = grid[k];
        let mut got = Vec::new();
        for mesh in stage.meshes.as_array().unwrap() {
            let objs = mesh["obj"].as_array().unwrap();
            let points = mesh["at"][i].as_array().unwrap();
            assert_eq!(objs.len(), points.len());
            for (v, p) in objs.iter().zip(points) {
                let v = v.as_u64().unwrap() as usize - 1;
                let p: Vec<f64> = serde_json::from_value(p.clone()).unwrap();
                let p32 = [p[0] as f32, p[1] as f32, p[2] as f32];
                assert_eq!(
                    p32,
                    pc2[k][v],
                    "{what}: .obj vertex {} at {t} s vs the .pc2",
                    v + 1
                );
                got.push((v, DVec3::from_slice(&p)));
            }
        }
        worst = worst.max(memg.worst(&what, t, got));
    }
    worst
}

#[test]
fn a_memg_scene_gives_the_same_times_and_values_on_every_path() {
    let case = Case::open(&["flags.obj", "flags.bin"], 1.0 / 30.0, 239.0 / 30.0);
    let memg = Memg::new(&case.track);
    // glTF keys the motion's timesteps whatever the rate.
    let gltf = Asset::open(&case.export(None, &[], "own.glb"));
    assert_key_times("MEMG glTF", &gltf.key_times(), &case.grid(None));
    let own_pc2 = pc2_frames(
        &case.export(None, &[], "own.pc2"),
        memg.scene.positions.len(),
    );
    let (mut worst_obj, mut worst_pc2, mut worst_gltf, mut worst_turn) = (0f64, 0f64, 0f64, 0f64);
    // The stages to read with Pixar's library, and the caches of the same rates.
    let (mut jobs, mut caches) = (Vec::new(), Vec::new());
    for rate in RATES {
        let csv = case.tables(rate);
        let (pc2, first, worst) = check_pc2(&case, &memg, rate, &own_pc2);
        worst_pc2 = worst_pc2.max(worst);
        // States and `.obj`s at a few grid times; an `.obj` is the cache's frame, bit for bit.
        let mut codes = Vec::new();
        for (k, t) in case.state_times(rate) {
            let path = case.export(None, &["--time", &t.to_string()], &format!("{t}.obj"));
            let obj = obj_vertices(&path);
            assert_eq!(obj.len(), memg.scene.positions.len());
            check_state(&csv, k, &case.state(t), &obj);
            let at = obj.iter().enumerate().map(|(v, &p)| (v, wide(p)));
            worst_obj = worst_obj.max(memg.worst("export --time .obj", t, at));
            if let Some(frame) = k.checked_sub(first).and_then(|i| pc2.get(i)) {
                assert!(*frame == obj, "{}.pc2 and the .obj at {t} s", label(rate));
            }
            worst_gltf = worst_gltf.max(check_gltf(&gltf, &memg, t));
            codes.push(k);
        }
        worst_turn = worst_turn.max(check_bag(&case, &memg, rate, &csv));
        if rate.is_some_and(|r| r > 100.0) {
            check_usd_refused(&case, rate);
        } else {
            let path = case.export(rate, &[], &format!("{}.usda", label(rate)));
            jobs.push(UsdJob {
                path,
                codes,
                suffixes: Vec::new(),
            });
            caches.push((rate, pc2));
        }
        if rate.is_none() {
            case.plot(&PLOTTED, &csv);
            case.diff_with_itself(&csv);
        }
    }
    let gpu = check_gpu(&case, &memg).map_or("no adapter".into(), |w| format!("{w:.1e}"));
    eprintln!(
        "MEMG: of the diagonal from the reference: .obj {worst_obj:.1e}, .pc2 {worst_pc2:.1e}, glTF {worst_gltf:.1e}, --gpu .obj {gpu}; /tf rotations within {worst_turn:.1e}"
    );
    let Some(stages) = read_stages(&jobs) else {
        return;
    };
    let mut worst_usd = 0f64;
    for ((stage, job), (rate, pc2)) in stages.iter().zip(&jobs).zip(&caches) {
        worst_usd = worst_usd.max(check_stage(&case, &memg, *rate, stage, &job.codes, pc2));
    }
    eprintln!("MEMG: USD points {worst_usd:.1e} of the diagonal from the reference");
}
