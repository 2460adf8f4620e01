//! The AIBO motion (`data/sony_stand_sit.mtn`, ERS-210, 16 ms frames,
//! 4.88 s) on every path: tables, states, the bag, glTF, USD, plot, diff.

use super::read::{Bag, Table, Tf};
use super::{Case, RATES, Stage, UsdJob, assert_key_times, assert_stamps, label, read_stages};
use crate::common::gltf::Asset;
use glam::{DQuat, DVec3};
use std::collections::HashMap;

/// The channels plotted: the body's pitch and two servos of a front leg.
const PLOTTED: [&str; 3] = [
    "pitch_deg",
    "PRM:/r2/c1-Joint2:j1",
    "PRM:/r2/c1/c2/c3-Joint2:j3",
];

/// How far a rig point may be from the state's, metres: the `f64` paths
/// (the bag's `/tf`, USD's `quatd` orientations, the state) agree to
/// rounding (measured: 1e-16 m and 3e-14 m); glTF holds `f32`s, whose
/// step on a point 0.2 m out is 1.5e-8 m (measured: 8e-9 m).
const F64_POINT_M: f64 = 1e-9;
const F32_POINT_M: f64 = 1e-7;

/// A state's point (mm; x forward, y left, z up) in glTF's and USD's
/// y-up metres: `(x, z, −y) / 1000`.
fn y_up(p: &serde_json::Value) -> DVec3 {
    let mm = |i: usize| p[i].as_f64().unwrap() / 1000.0;
    DVec3::new(mm(0), mm(2), -mm(1))
}

/// A state's point in REP 103's metres (its own axes).
fn metres(p: &serde_json::Value) -> DVec3 {
    DVec3::new(
        p[0].as_f64().unwrap(),
        p[1].as_f64().unwrap(),
        p[2].as_f64().unwrap(),
    ) / 1000.0
}

/// The state at frame `k` says what the CSV's row `k` says: body attitude
/// and every joint the motion drives, bit for bit; the other servos it
/// lists are marked neutral.
fn check_state(csv: &Table, k: usize, state: &serde_json::Value) {
    let t = csv.at(k, "time_s");
    for axis in ["roll_deg", "pitch_deg", "yaw_deg"] {
        assert_eq!(
            state["body"][axis].as_f64(),
            Some(csv.at(k, axis)),
            "{axis} at {t} s"
        );
    }
    let mut driven = 0;
    for joint in state["joints"].as_array().unwrap() {
        let name = joint["name"].as_str().unwrap();
        if joint["neutral"] == true {
            assert!(!csv.columns.iter().any(|c| c == name), "{name} is driven");
            continue;
        }
        assert_eq!(
            joint["deg"].as_f64(),
            Some(csv.at(k, name)),
            "{name} at {t} s"
        );
        driven += 1;
    }
    assert_eq!(driven, csv.columns.len() - 4, "every joint of the CSV");
}

/// Where frame `name` is in `world`, following `frames` (child → its
/// transform from its parent) up to `world`.
fn in_world(frames: &HashMap<&str, &Tf>, name: &str) -> DVec3 {
    let mut p = DVec3::ZERO;
    let mut at = name;
    while at != "world" {
        let tf = frames
            .get(at)
            .unwrap_or_else(|| panic!("no transform to {at}"));
        let [x, y, z, w] = tf.rotation;
        p = DQuat::from_xyzw(x, y, z, w) * p + DVec3::from_array(tf.translation);
        at = &tf.parent;
    }
    p
}

/// The bag at `rate`: a `/joint_states` and a `/tf` message per grid time,
/// stamped there; the joint angles are the CSV's in radians (to 1e-12); at
/// each state's time every rig point reached through `/tf` (and the fixed
/// links of `/tf_static`) is the state's world point. Returns the worst
/// angle and point differences.
fn check_bag(
    case: &Case,
    rate: Option<f64>,
    csv: &Table,
    states: &[(usize, f64, serde_json::Value)],
) -> (f64, f64) {
    let grid = case.grid(rate);
    let bag = Bag::read(&case.export(rate, &[], &format!("{}.mcap", label(rate))));
    let what = format!("/joint_states at {}", label(rate));
    let joints = bag.joint_states("/joint_states");
    let stamps: Vec<u64> = joints
        .iter()
        .map(|(log, m)| {
            assert_eq!(*log, m.stamp_ns, "{what}: log time and header stamp");
            *log
        })
        .collect();
    assert_stamps(&what, &stamps, &grid);
    let mut worst_angle = 0f64;
    for (k, (_, m)) in joints.iter().enumerate() {
        for name in &csv.columns[4..] {
            let i = m
                .names
                .iter()
                .position(|n| n == name)
                .unwrap_or_else(|| panic!("{what}: no joint {name} among {:?}", m.names));
            let want = csv.at(k, name).to_radians();
            worst_angle = worst_angle.max((m.positions[i] - want).abs());
        }
    }
    let what = format!("/tf at {}", label(rate));
    let tf = bag.tf("/tf");
    let stamps: Vec<u64> = tf.iter().map(|(log, _)| *log).collect();
    assert_stamps(&what, &stamps, &grid);
    let fixed = bag.tf("/tf_static");
    assert_eq!(fixed.len(), 1, "/tf_static once");
    let mut worst_point = 0f64;
    for (k, t, state) in states {
        let mut frames: HashMap<&str, &Tf> = HashMap::new();
        for transform in fixed[0].1.iter().chain(&tf[*k].1) {
            frames.insert(&transform.child, transform);
        }
        for transform in &tf[*k].1 {
            assert_eq!(transform.stamp_ns, tf[*k].0, "{what}: stamp at {t} s");
        }
        for (name, p) in state["world"].as_object().unwrap() {
            let d = in_world(&frames, name).distance(metres(p));
            worst_point = worst_point.max(d);
            assert!(
                d < F64_POINT_M,
                "{what}: {name} at {t} s is {d} m from the state's"
            );
        }
    }
    assert!(
        worst_angle < 1e-12,
        "{what}: a joint {worst_angle} rad from the CSV"
    );
    (worst_angle, worst_point)
}

/// The glTF's point nodes at each state's time (keys are the motion's own
/// frames; the reader interpolates at the others) are the state's world
/// points, once the ground lift on `body` is taken off. Returns the worst
/// distance.
fn check_gltf(gltf: &Asset, states: &[(usize, f64, serde_json::Value)]) -> f64 {
    let body = gltf.named("body")[0];
    let points: Vec<(String, usize)> = (0..gltf.doc.nodes().count())
        .filter_map(|i| Some((gltf.extras(i)["point"].as_str()?.to_string(), i)))
        .collect();
    let mut worst = 0f64;
    for (_, t, state) in states {
        let t32 = *t as f32;
        let lift = gltf.world(body, t32).w_axis.truncate();
        let world = state["world"].as_object().unwrap();
        assert_eq!(points.len(), world.len(), "a node per rig point");
        for (name, node) in &points {
            let got = gltf.world(*node, t32).w_axis.truncate() - lift;
            let d = got.distance(y_up(&world[name]));
            worst = worst.max(d);
            assert!(
                d < F32_POINT_M,
                "glTF {name} at {t} s is {d} m from the state's"
            );
        }
    }
    worst
}

/// The USD stage at one rate: its clock is the grid's, and the world
/// transform of each rig point's `Xform` at time code `k` is the state's
/// world point at frame `k`. Returns the worst distance.
fn check_stage(
    stage: &Stage,
    rate: Option<f64>,
    case: &Case,
    states: &[(usize, f64, serde_json::Value)],
) -> f64 {
    let what = format!("USD at {}", label(rate));
    stage.assert_clock(
        &what,
        rate.unwrap_or(1.0 / case.own_period),
        case.grid(rate).len(),
        Some("base_link"),
    );
    let mut worst = 0f64;
    for (i, (_, t, state)) in states.iter().enumerate() {
        for (name, p) in state["world"].as_object().unwrap() {
            let got = DVec3::from_slice(&stage.prim(name, i, "world"));
            let d = got.distance(y_up(p));
            worst = worst.max(d);
            assert!(
                d < F64_POINT_M,
                "{what}: {name} at {t} s is {d} m from the state's"
            );
        }
    }
    worst
}

#[test]
fn an_aibo_motion_gives_the_same_times_and_values_on_every_path() {
    let case = Case::open(&["sony_stand_sit.mtn"], 0.016, 4.88);
    // glTF keys the file's own frames whatever the rate.
    let gltf = Asset::open(&case.export(None, &[], "own.glb"));
    assert_key_times("glTF", &gltf.key_times(), &case.grid(None));
    let mut jobs = Vec::new();
    let mut all_states = Vec::new();
    let (mut angle, mut bag_point, mut gltf_point) = (0f64, 0f64, 0f64);
    for rate in RATES {
        let csv = case.tables(rate);
        let states: Vec<(usize, f64, serde_json::Value)> = case
            .state_times(rate)
            .into_iter()
            .map(|(k, t)| (k, t, case.state(t)))
            .collect();
        for (k, _, state) in &states {
            check_state(&csv, *k, state);
        }
        let (a, p) = check_bag(&case, rate, &csv, &states);
        angle = angle.max(a);
        bag_point = bag_point.max(p);
        gltf_point = gltf_point.max(check_gltf(&gltf, &states));
        let names: Vec<String> = states[0].2["world"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        jobs.push(UsdJob {
            path: case.export(rate, &[], &format!("{}.usda", label(rate))),
            codes: states.iter().map(|(k, _, _)| *k).collect(),
            suffixes: std::iter::once("base_link".to_string())
                .chain(names)
                .collect(),
        });
        if rate.is_none() {
            case.plot(&PLOTTED, &csv);
            case.diff_with_itself(&csv);
        }
        all_states.push(states);
    }
    eprintln!(
        "AIBO: /joint_states within {angle:.1e} rad of the CSV; rig points: /tf {bag_point:.1e} m, glTF {gltf_point:.1e} m from the states"
    );
    let Some(stages) = read_stages(&jobs) else {
        return;
    };
    let mut usd_point = 0f64;
    for ((stage, rate), states) in stages.iter().zip(RATES).zip(&all_states) {
        usd_point = usd_point.max(check_stage(stage, rate, &case, states));
    }
    eprintln!("AIBO: USD rig points within {usd_point:.1e} m of the states");
}
