//! The MRTK recording (`data/hands.mrtk`, sampled at 60 Hz, 4 s) on every
//! path: tables, states, the bag, glTF, USD, plot, diff. Every writer moves
//! the recording's `f32`s without arithmetic (a sign, an axis swap), so
//! every comparison is exact.

use super::read::{Bag, Table};
use super::{Case, RATES, Stage, UsdJob, assert_key_times, assert_stamps, label, read_stages};
use crate::common::gltf::Asset;
use glam::{DMat4, DQuat};

/// A pose followed on every path: its CSV columns' prefix, its `/tf`
/// frame, its glTF node and its USD prim (path suffix).
struct Pose {
    column: &'static str,
    tf: &'static str,
    node: &'static str,
    prim: &'static str,
}

const POSES: [Pose; 3] = [
    Pose {
        column: "camera",
        tf: "camera",
        node: "camera",
        prim: "camera",
    },
    Pose {
        column: "right_IndexTip",
        tf: "right_hand/IndexTip",
        node: "Right_IndexTip",
        prim: "right_hand/IndexTip",
    },
    Pose {
        column: "left_Wrist",
        tf: "left_hand/Wrist",
        node: "Left_Wrist",
        prim: "left_hand/Wrist",
    },
];

/// The channels plotted, in table order (the plot's order).
const PLOTTED: [&str; 3] = ["camera_px", "left_Wrist_rw", "right_IndexTip_py"];

/// Pose `column`'s position and rotation `[x, y, z, w]` (Unity's) in row `k`.
fn unity(csv: &Table, k: usize, column: &str) -> ([f64; 3], [f64; 4]) {
    let v = |c: &str| csv.at(k, &format!("{column}_{c}"));
    (
        [v("px"), v("py"), v("pz")],
        [v("rx"), v("ry"), v("rz"), v("rw")],
    )
}

/// The state at frame `k` holds the CSV's row `k` for the camera and the
/// hand joints followed (the state writes `f32`s: read back as `f32`s).
fn check_state(csv: &Table, k: usize, state: &serde_json::Value) {
    let f32s = |v: &serde_json::Value| -> Vec<f32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect()
    };
    let t = csv.at(k, "time_s");
    for pose in &POSES {
        let json = match pose.column.split_once('_') {
            None => &state["camera"],
            Some((side, joint)) => state["hands"][side]["joints"]
                .as_array()
                .unwrap()
                .iter()
                .find(|j| j["name"] == joint)
                .unwrap(),
        };
        let (p, q) = unity(csv, k, pose.column);
        assert_eq!(
            f32s(&json["position"]),
            p.map(|x| x as f32),
            "{} at {t} s",
            pose.column
        );
        assert_eq!(
            f32s(&json["rotation"]),
            q.map(|x| x as f32),
            "{} at {t} s",
            pose.column
        );
    }
    for side in ["left", "right"] {
        let tracked = csv.at(k, &format!("{side}_tracked")) == 1.0;
        assert_eq!(state["hands"][side]["tracked"], tracked, "{side} at {t} s");
    }
}

/// The bag at `rate`: a `/tf` message per grid time, stamped there, each
/// pose in REP 103's axes — position `(z, −x, y)`, rotation
/// `(−z, x, −y, w)` of the CSV's — and each hand's `tracked`, exactly.
fn check_bag(case: &Case, rate: Option<f64>, csv: &Table) {
    let grid = case.grid(rate);
    let bag = Bag::read(&case.export(rate, &[], &format!("{}.mcap", label(rate))));
    let what = format!("MRTK /tf at {}", label(rate));
    let tf = bag.tf("/tf");
    let stamps: Vec<u64> = tf.iter().map(|(log, _)| *log).collect();
    assert_stamps(&what, &stamps, &grid);
    for (k, (log, transforms)) in tf.iter().enumerate() {
        for pose in &POSES {
            let got = transforms.iter().find(|x| x.child == pose.tf).unwrap();
            assert_eq!((got.stamp_ns, got.parent.as_str()), (*log, "world"));
            let ([x, y, z], [qx, qy, qz, qw]) = unity(csv, k, pose.column);
            assert_eq!(
                got.translation,
                [z, -x, y],
                "{what}: {} at {} s",
                pose.tf,
                grid[k]
            );
            assert_eq!(
                got.rotation,
                [-qz, qx, -qy, qw],
                "{what}: {} at {} s",
                pose.tf,
                grid[k]
            );
        }
    }
    for side in ["left", "right"] {
        let tracked = bag.bools(&format!("/{side}_hand/tracked"));
        let stamps: Vec<u64> = tracked.iter().map(|(log, _)| *log).collect();
        assert_stamps(&format!("{what}: /{side}_hand/tracked"), &stamps, &grid);
        for (k, (_, on)) in tracked.iter().enumerate() {
            assert_eq!(
                *on,
                csv.at(k, &format!("{side}_tracked")) == 1.0,
                "{side} at {}",
                grid[k]
            );
        }
    }
}

/// A glTF node's local matrix for a Unity pose, z mirrored: position
/// `(x, y, −z)`, rotation `(−x, −y, z, w)`, as `f32`s.
fn mirrored(p: [f64; 3], q: [f64; 4]) -> DMat4 {
    let f = |x: f64| f64::from(x as f32);
    DMat4::from_rotation_translation(
        DQuat::from_xyzw(-f(q[0]), -f(q[1]), f(q[2]), f(q[3])).normalize(),
        glam::DVec3::new(f(p[0]), f(p[1]), -f(p[2])),
    )
}

/// The glTF at `rate`: keys at the grid's times and at the recording's
/// end (after the grid's last frame, where it falls there); at each grid
/// key every followed node's local translation is the CSV's position
/// mirrored, exactly, and its rotation the CSV's mirrored to `f32`
/// precision (the file holds the normalised quaternion); at the end key,
/// the library's sampler's pose at the end.
fn check_gltf(case: &Case, rate: Option<f64>, csv: &Table) {
    let what = format!("MRTK glTF at {}", label(rate));
    let gltf = Asset::open(&case.export(rate, &[], &format!("{}.glb", label(rate))));
    let grid = case.grid(rate);
    let mut keys = grid.clone();
    let last = *grid.last().unwrap();
    let end_key = case.duration > last && case.duration as f32 > last as f32;
    if end_key {
        keys.push(case.duration);
    }
    assert_key_times(&what, &gltf.key_times(), &keys);
    for pose in &POSES {
        let [node] = gltf.named(pose.node)[..] else {
            panic!("{what}: one node {}", pose.node)
        };
        let names: Vec<String> = ["px", "py", "pz", "rx", "ry", "rz", "rw"]
            .iter()
            .map(|c| format!("{}_{c}", pose.column))
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for (k, &t) in keys.iter().enumerate() {
            let (p, q) = if k < grid.len() {
                unity(csv, k, pose.column)
            } else {
                let s = motion_viewer::curves::sample(&case.track, &names, &[t]).unwrap();
                let v: Vec<f64> = s.iter().map(|s| s.values[0]).collect();
                ([v[0], v[1], v[2]], [v[3], v[4], v[5], v[6]])
            };
            let got = gltf.local(node, t as f32);
            let want = mirrored(p, q);
            assert_eq!(got.w_axis, want.w_axis, "{what}: {} at {t} s", pose.node);
            // The file holds the unit quaternion as f32s: a matrix element
            // within two f32 epsilons.
            assert!(
                got.abs_diff_eq(want, 2.0 * f64::from(f32::EPSILON)),
                "{what}: {} at {t} s turns by {got} not {want}",
                pose.node
            );
        }
    }
}

/// The stage at `rate`: its clock is the grid's; at time code `k` each
/// followed prim's `xformOp:translate` is the CSV's position at frame `k`
/// z mirrored, and its `xformOp:orient` `(w, −x, −y, z)`, exactly.
fn check_stage(stage: &Stage, rate: Option<f64>, case: &Case, csv: &Table, ks: &[usize]) {
    let what = format!("MRTK USD at {}", label(rate));
    stage.assert_clock(
        &what,
        rate.unwrap_or(1.0 / case.own_period),
        case.grid(rate).len(),
        Some("camera"),
    );
    for (i, &k) in ks.iter().enumerate() {
        for pose in &POSES {
            let ([x, y, z], [qx, qy, qz, qw]) = unity(csv, k, pose.column);
            let t = csv.at(k, "time_s");
            assert_eq!(
                stage.prim(pose.prim, i, "translate"),
                [x, y, -z],
                "{what}: {} at {t} s",
                pose.prim
            );
            assert_eq!(
                stage.prim(pose.prim, i, "orient"),
                [qw, -qx, -qy, qz],
                "{what}: {} at {t} s",
                pose.prim
            );
        }
    }
}

#[test]
fn an_mrtk_recording_gives_the_same_times_and_values_on_every_path() {
    let case = Case::open(&["hands.mrtk"], 1.0 / 60.0, 4.0);
    let mut jobs = Vec::new();
    let mut tables = Vec::new();
    for rate in RATES {
        let csv = case.tables(rate);
        let ks: Vec<usize> = case.state_times(rate).iter().map(|&(k, _)| k).collect();
        for &(k, t) in &case.state_times(rate) {
            check_state(&csv, k, &case.state(t));
        }
        check_bag(&case, rate, &csv);
        check_gltf(&case, rate, &csv);
        jobs.push(UsdJob {
            path: case.export(rate, &[], &format!("{}.usda", label(rate))),
            codes: ks.clone(),
            suffixes: POSES.iter().map(|p| p.prim.to_string()).collect(),
        });
        if rate.is_none() {
            case.plot(&PLOTTED, &csv);
            case.diff_with_itself(&csv);
        }
        tables.push((csv, ks));
    }
    let Some(stages) = read_stages(&jobs) else {
        return;
    };
    for ((stage, rate), (csv, ks)) in stages.iter().zip(RATES).zip(&tables) {
        check_stage(stage, rate, &case, csv, ks);
    }
    let rows: Vec<usize> = tables.iter().map(|(csv, _)| csv.rows.len()).collect();
    eprintln!(
        "MRTK: {} poses at {rows:?} grid times (own, 7, 29.97, 1000 fps) on /tf, glTF and (at 4 codes a rate) USD as the CSV has them",
        POSES.len()
    );
}
