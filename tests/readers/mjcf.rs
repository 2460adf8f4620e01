//! The MJCF export read and played by MuJoCo 4.0 (`mujoco` from PyPI, pinned
//! in `tests/requirements.txt`): every model compiles with the simulator's
//! masses and servos, and MuJoCo's own simulation of each real motion
//! (`tests/readers/mujoco_drive.py`, written from the file alone) agrees with
//! `viewer simulate`'s: the verdict on at least 90 % of the motions and on
//! the cases the issue names, the fall time within 0.3 s, the body within
//! 2 cm over each motion's first second (a sample of the corpus by default;
//! `tests/readers/compare_corpus.py` runs the whole of it).

use crate::common::python::{readers, run};
use crate::common::{data, repo, workbench};
use motion_viewer::export::mjcf;
use motion_viewer::formats::aibo::Model;
use motion_viewer::formats::mtn::{self, Mtn};
use motion_viewer::physics::{self, Simulation};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const MODEL_SCRIPT: &str = r#"
import json, sys, mujoco
for path in sys.argv[1:]:
    m = mujoco.MjModel.from_xml_path(path)
    names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, i) for i in range(m.nu)]
    joints = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, m.actuator_trnid[i][0]) for i in range(m.nu)]
    print(json.dumps({"mass": float(sum(m.body_mass)), "actuators": names, "joints": joints,
                      "kp": float(m.actuator_gainprm[0][0]), "forcerange": list(m.actuator_forcerange[0]),
                      "friction": float(m.geom_friction[0][0]), "ngeom": int(m.ngeom)}))
"#;

/// The total masses of docs/physics.md's table, kg.
const DOCUMENTED_KG: [(Model, f64); 5] = [
    (Model::Ers7, 1.628),
    (Model::Ers110, 1.6),
    (Model::Ers210, 1.5),
    (Model::Ers220, 1.5),
    (Model::Ers310, 1.3),
];

#[test]
fn every_models_mjcf_compiles_with_the_documented_masses_and_prm_named_servos() {
    let Some(python) = readers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (model, _) in DOCUMENTED_KG {
        let path = dir.path().join(format!("{}.xml", model.name()));
        mjcf::write(model, None, &path).unwrap();
        paths.push(path);
    }
    let args: Vec<&std::ffi::OsStr> = paths.iter().map(|p| p.as_os_str()).collect();
    let out = run(&python, MODEL_SCRIPT, &args);
    for ((model, kg), line) in DOCUMENTED_KG.iter().zip(out.lines()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let mass = v["mass"].as_f64().unwrap();
        assert!((mass - kg).abs() < 1e-6, "{model}: {mass} kg in MuJoCo");
        // An actuator for every servo of the model's PRM table (the tail,
        // mouth and ears too), on the hinge of the same name; the
        // simulator's servos among them in the same order.
        let actuators: Vec<&str> = v["actuators"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let mut canonical: Vec<&str> = mtn::prm_names(*model).iter().map(|(_, n)| *n).collect();
        let mut sorted = actuators.clone();
        sorted.sort_unstable();
        canonical.sort_unstable();
        assert_eq!(sorted, canonical, "{model}");
        assert_eq!(v["joints"], v["actuators"], "{model}");
        let simulated: Vec<&str> = physics::servos(*model).iter().map(|s| s.name).collect();
        let in_order: Vec<&str> = actuators
            .iter()
            .copied()
            .filter(|a| simulated.contains(a))
            .collect();
        assert_eq!(in_order, simulated, "{model}");
        assert_eq!(v["kp"], 10.0);
        assert_eq!(v["forcerange"], serde_json::json!([-5.4542, 5.4542]));
        assert_eq!(v["friction"], 0.8);
    }
}

/// What MuJoCo made of one file.
struct MuJoCo {
    falls: bool,
    fall_time_s: Option<f64>,
    trajectory: Vec<[f64; 4]>,
}

/// Plays `files` in MuJoCo, two processes at a time.
fn play_in_mujoco(python: &Path, files: &[PathBuf]) -> BTreeMap<PathBuf, MuJoCo> {
    let script = std::fs::read_to_string(repo("tests/readers/mujoco_drive.py")).unwrap();
    let halves: Vec<&[PathBuf]> = files.chunks(files.len().div_ceil(2).max(1)).collect();
    halves
        .par_iter()
        .flat_map_iter(|part| {
            let args: Vec<&std::ffi::OsStr> = part.iter().map(|p| p.as_os_str()).collect();
            let out = run(&python.to_path_buf(), &script, &args);
            out.lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    let trajectory = v["trajectory"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| {
                            let r: Vec<f64> = r
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|x| x.as_f64().unwrap())
                                .collect();
                            [r[0], r[1], r[2], r[3]]
                        })
                        .collect();
                    (
                        PathBuf::from(v["file"].as_str().unwrap()),
                        MuJoCo {
                            falls: v["falls"].as_bool().unwrap(),
                            fall_time_s: v["fall_time_s"].as_f64(),
                            trajectory,
                        },
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The largest distance between the two bodies over the motion's first
/// second, metres, at the times both recorded (every 80 ms).
fn first_second_gap(ours: &Simulation, theirs: &MuJoCo) -> f64 {
    let mut gap: f64 = 0.0;
    for f in ours.frames.iter().filter(|f| f.t <= 1.0 + 1e-9) {
        if let Some(r) = theirs.trajectory.iter().find(|r| (r[0] - f.t).abs() < 1e-6) {
            let d = (0..3)
                .map(|i| (f.position[i] - r[i + 1]).powi(2))
                .sum::<f64>();
            gap = gap.max(d.sqrt());
        }
    }
    gap
}

/// What a motion does, for the corpus figures: `walk` or `kick` when its
/// name says so; otherwise by where its last keyframe leaves the dog (the
/// rig's paws below the body centre, with the motion's body pitch): `lie`
/// when a pair of paws is less than 60 mm below it, `sit` when the hind
/// paws are 40 mm or more higher than the front ones, else `stand`.
fn kind(label: &str, m: &Mtn) -> &'static str {
    let name = format!("{label} {}", m.name).to_ascii_lowercase();
    if name.contains("walk") {
        return "walk";
    }
    if name.contains("kick") {
        return "kick";
    }
    let rig = motion_viewer::anim::aibo::MtnRig::new(m);
    let end = rig.keyframe_times_s().last().copied().unwrap_or(0.0);
    let (_, pose) = rig.pose(end);
    let z = |p: &str| pose.world_point(p).map_or(0.0, |q| q[2]);
    let front = -(z("left_front_paw") + z("right_front_paw")) / 2.0;
    let hind = -(z("left_hind_paw") + z("right_hind_paw")) / 2.0;
    if front.min(hind) < 60.0 {
        "lie"
    } else if front - hind >= 40.0 {
        "sit"
    } else {
        "stand"
    }
}

/// The ERS-7 table that lifts three legs ([`crate::app::three_legs_up_table`]),
/// as a motion.
fn built_to_fall() -> Mtn {
    let options = motion_viewer::workbench::FromTable {
        model: Model::Ers7,
        name: "a_stand#stand_fall".into(),
        creator: "test".into(),
        frame_ms: 16,
        every_row: false,
    };
    motion_viewer::workbench::from_csv(crate::app::three_legs_up_table().as_bytes(), &options)
        .unwrap()
        .motion
}

#[test]
fn mujoco_agrees_with_the_simulator_on_the_real_corpus() {
    let Some(python) = readers() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Every ERS-7, ERS-210/220 and loose motion, and every 8th of the 551
    // ERS-110 archive motions: 135 motions and the built-to-fall table, about
    // 2 min on two cores shared with another build (`MV_FULL_CORPUS=1` runs
    // all 617, `tests/readers/compare_corpus.py` the same from a release
    // build).
    let full = std::env::var_os("MV_FULL_CORPUS").is_some();
    let mut motions: Vec<(String, Mtn)> = workbench::motions()
        .into_iter()
        .enumerate()
        .filter(|(i, (label, _, _))| full || !label.starts_with("ers110_") || i % 8 == 0)
        .map(|(_, (label, _, m))| (label, m))
        .collect();
    motions.push(("built to fall".into(), built_to_fall()));
    // Simulate ours and write each MJCF, in parallel.
    let done: Vec<(String, PathBuf, Option<Simulation>)> = motions
        .par_iter()
        .enumerate()
        .map(|(i, (label, m))| {
            let path = dir.path().join(format!("m{i:04}.xml"));
            match physics::simulate(m, label) {
                Ok(sim) => {
                    mjcf::write(sim.verdict.model, Some(m), &path).unwrap();
                    (label.clone(), path, Some(sim))
                }
                Err(e) => {
                    eprintln!("not simulated: {e}");
                    (label.clone(), path, None)
                }
            }
        })
        .collect();
    let files: Vec<PathBuf> = done
        .iter()
        .filter(|d| d.2.is_some())
        .map(|d| d.1.clone())
        .collect();
    let theirs = play_in_mujoco(&python, &files);
    let (mut agree, mut total) = (0, 0);
    let mut disagreements = Vec::new();
    let mut late = Vec::new();
    let mut apart = Vec::new();
    let mut by_model: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut by_kind: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let kinds: BTreeMap<&str, &'static str> = motions
        .iter()
        .map(|(l, m)| (l.as_str(), kind(l, m)))
        .collect();
    for (label, path, sim) in &done {
        let Some(sim) = sim else { continue };
        let mj = &theirs[path];
        let v = &sim.verdict;
        total += 1;
        let e = by_model.entry(v.model.name().to_string()).or_default();
        e.0 += 1;
        e.1 += usize::from(v.falls);
        e.2 += usize::from(mj.falls);
        let k = by_kind
            .entry(format!("{} {}", v.model.name(), kinds[label.as_str()]))
            .or_default();
        k.0 += 1;
        k.1 += usize::from(v.falls);
        k.2 += usize::from(mj.falls);
        if v.falls == mj.falls {
            agree += 1;
            if let (Some(a), Some(b)) = (v.fall_time_s, mj.fall_time_s)
                && (a - b).abs() > 0.3
            {
                late.push(format!(
                    "{label}: falls at {a:.3} s here, {b:.3} s in MuJoCo"
                ));
            }
        } else {
            disagreements.push(format!(
                "{label}: {} here (peak tilt {:.1}°), {} in MuJoCo",
                if v.falls { "falls" } else { "stands" },
                v.peak_tilt_deg,
                if mj.falls { "falls" } else { "stands" }
            ));
        }
        let gap = first_second_gap(sim, mj);
        if gap > 0.02 {
            apart.push(format!(
                "{label}: {:.1} mm apart in the first second",
                gap * 1000.0
            ));
        }
        if label.ends_with("sony_stand_sit.mtn") {
            assert!(!v.falls && !mj.falls, "the seed's stand-sit stands in both");
        }
        if label == "built to fall" {
            assert!(v.falls && mj.falls, "the three-legged table falls in both");
        }
    }
    eprintln!("verdicts agree on {agree} of {total} motions");
    for (model, (n, ours, mj)) in &by_model {
        eprintln!("  {model}: {n} motions, {ours} fall here, {mj} in MuJoCo");
    }
    for (kind, (n, ours, mj)) in &by_kind {
        eprintln!("  {kind}: {n} motions, {ours} fall here, {mj} in MuJoCo");
    }
    for d in disagreements.iter().chain(&late).chain(&apart) {
        eprintln!("  {d}");
    }
    assert!(
        agree * 10 >= total * 9,
        "verdicts agree on {agree} of {total} motions:\n{}",
        disagreements.join("\n")
    );
    // The fall times and the first second's positions, on the same 90 %
    // (the ones apart are printed above, for the notes).
    let both_fall = done
        .iter()
        .filter(|d| {
            d.2.as_ref()
                .is_some_and(|s| s.verdict.falls && theirs[&d.1].falls)
        })
        .count();
    assert!(
        late.len() * 10 <= both_fall,
        "fall times more than 0.3 s apart on {} of {both_fall}:\n{}",
        late.len(),
        late.join("\n")
    );
    assert!(
        apart.len() * 10 <= total,
        "bodies more than 2 cm apart on {} of {total}:\n{}",
        apart.len(),
        apart.join("\n")
    );
    // The seed is among them.
    assert!(
        done.iter()
            .any(|d| d.0 == data("sony_stand_sit.mtn").display().to_string())
    );
}
