//! The scene's bounds come from a bounded sample of poses (issue 19): on a
//! normal motion the sampled box lies within the true extent, measured here
//! densely (every timestep in f64 for MEMG, many poses per frame for the rig
//! and the hands), and close to it; on a motion that declares an absurd
//! length the sample stays small. (The hands' box: unit tests in
//! `scene/hands/bounds_tests.rs`.)

use glam::Vec3;
use motion_viewer::anim::MAX_DURATION_S;
use motion_viewer::anim::aibo::MtnRig;
use motion_viewer::anim::memg::{
    Binding, bounding_box_over_time, deform_reference_f64, sampled_bounding_box,
};
use motion_viewer::formats::memg::{self, MemgGroup, MemgMotion};
use motion_viewer::formats::mtn::{self, Keyframe, Mtn};
use motion_viewer::formats::obj::{ObjGroup, ObjScene};
use motion_viewer::scene::{Plan, rig};
use std::path::PathBuf;

fn repo(path: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(path)
}

/// Largest distance from `inner` out past `outer` (0 when it lies inside),
/// and the largest gap between the two boxes' faces.
fn compare(inner: ([f64; 3], [f64; 3]), outer: ([f64; 3], [f64; 3])) -> (f64, f64) {
    let mut outside = 0f64;
    let mut gap = 0f64;
    for a in 0..3 {
        outside = outside
            .max(outer.0[a] - inner.0[a])
            .max(inner.1[a] - outer.1[a]);
        gap = gap
            .max((inner.0[a] - outer.0[a]).abs())
            .max((inner.1[a] - outer.1[a]).abs());
    }
    (outside, gap)
}

fn diagonal(b: ([f64; 3], [f64; 3])) -> f64 {
    (0..3)
        .map(|a| (b.1[a] - b.0[a]).powi(2))
        .sum::<f64>()
        .sqrt()
}

fn widen(b: ([f32; 3], [f32; 3])) -> ([f64; 3], [f64; 3]) {
    (b.0.map(f64::from), b.1.map(f64::from))
}

fn vec_box(b: (Vec3, Vec3)) -> ([f64; 3], [f64; 3]) {
    (b.0.to_array().map(f64::from), b.1.to_array().map(f64::from))
}

// ---- MEMG ----------------------------------------------------------------

/// A rotation of `angle` about z and a translation, row-major 3×4.
fn frame(angle: f64, t: [f64; 3]) -> [f64; 12] {
    let (s, c) = angle.sin_cos();
    [c, -s, 0.0, t[0], s, c, 0.0, t[1], 0.0, 0.0, 1.0, t[2]]
}

/// A cloth-like motion: two groups of `v` vertices on a grid, basis `r`,
/// `n` timesteps of smooth coefficients (each basis vector at its own
/// frequency), one group in a swaying local frame, one in world space,
/// and some `.obj` vertices no group moves.
fn cloth(v: usize, r: usize, n: usize) -> (ObjScene, MemgMotion) {
    let rest = 10;
    let positions: Vec<[f32; 3]> = (0..2 * v + rest)
        .map(|i| [(i % 17) as f32 * 0.1, (i / 17) as f32 * 0.1, 0.0])
        .collect();
    let group = |name: &str, first: usize, parent: i32, seed: f64| {
        let mapping: Vec<u32> = (first as u32 + 1..=(first + v) as u32).collect();
        let mean: Vec<f32> = (0..3 * v)
            .map(|i| ((i as f64 * 0.37 + seed).sin() * 0.5) as f32)
            .collect();
        let basis: Vec<f32> = (0..3 * v * r)
            .map(|i| ((i as f64 * 0.113 + seed).cos() * 0.05) as f32)
            .collect();
        let coeffs: Vec<f32> = (0..n * r)
            .map(|i| {
                let (t, j) = ((i / r) as f64, (i % r) as f64);
                ((t * 0.02 * (j + 1.0) + seed + j).sin() * (3.0 - 0.3 * j)) as f32
            })
            .collect();
        MemgGroup {
            name: name.into(),
            mapping,
            mean,
            parent,
            basis_len: r,
            basis,
            coeffs,
        }
    };
    let motion = MemgMotion {
        fps: 30,
        local_frames: 1,
        timesteps: n,
        frames: (0..n)
            .map(|t| {
                let t = t as f64;
                frame(
                    0.4 * (t * 0.015).sin(),
                    [(t * 0.01).cos(), 0.2, 0.1 * t / n as f64],
                )
            })
            .collect(),
        groups: vec![group("a", 0, 0, 0.3), group("b", v, -1, 1.7)],
        ..MemgMotion::default()
    };
    let scene = ObjScene {
        positions,
        triangles: vec![[0, 1, 2]],
        groups: ["a", "b"]
            .iter()
            .map(|&name| ObjGroup {
                name: name.into(),
                triangles: 0..0,
                material: None,
            })
            .collect(),
        ..ObjScene::default()
    };
    (scene, motion)
}

/// The box over every timestep, from the f64 reference deformer.
fn dense_memg(scene: &ObjScene, motion: &MemgMotion, binding: &Binding) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for t in 0..motion.timesteps {
        for p in deform_reference_f64(scene, motion, binding, t as f64) {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
    }
    (lo, hi)
}

#[test]
fn memg_box_within_budget_is_every_timestep() {
    let (scene, motion) = cloth(200, 6, 300);
    let binding = Binding::new(&scene, &motion).unwrap();
    let truth = dense_memg(&scene, &motion, &binding);
    let sampled = widen(bounding_box_over_time(&scene, &motion, &binding).unwrap());
    let (outside, gap) = compare(sampled, truth);
    // Only f32 rounding separates the two.
    let tolerance = 1e-6 * diagonal(truth);
    assert!(outside <= tolerance && gap <= tolerance, "{outside} {gap}");
}

#[test]
fn memg_box_from_a_few_timesteps_lies_within_and_close_to_the_true_one() {
    let (scene, motion) = cloth(200, 6, 1500);
    let binding = Binding::new(&scene, &motion).unwrap();
    let truth = dense_memg(&scene, &motion, &binding);
    let diag = diagonal(truth);
    // 40 of the 1500 timesteps: first, last, where the probes peak, the
    // frame's and coefficients' extremes, and evenly spaced ones.
    let sampled = widen(sampled_bounding_box(&scene, &motion, &binding, 40).unwrap());
    let (outside, gap) = compare(sampled, truth);
    assert!(outside <= 1e-6 * diag, "{outside} outside the true box");
    assert!(
        gap <= 0.01 * diag,
        "a face is {gap} ({:.2}% of the diagonal {diag}) inside the true box",
        100.0 * gap / diag
    );
    // Even 2 timesteps (first and last) with the probes followed lie within,
    // and come close.
    let poor = widen(sampled_bounding_box(&scene, &motion, &binding, 0).unwrap());
    let (outside, gap) = compare(poor, truth);
    assert!(outside <= 1e-6 * diag);
    assert!(gap <= 0.05 * diag, "{gap} of {diag}");
}

#[test]
fn memg_vertex_moved_by_two_groups_counts_where_the_later_puts_it() {
    let (scene, mut motion) = cloth(50, 2, 20);
    // Group b takes over a's first vertex, and sends it far away; a alone
    // would put it near the others.
    motion.groups[1].mapping[0] = 1;
    let binding = Binding::new(&scene, &motion).unwrap();
    let truth = dense_memg(&scene, &motion, &binding);
    let sampled = widen(bounding_box_over_time(&scene, &motion, &binding).unwrap());
    let (outside, gap) = compare(sampled, truth);
    let tolerance = 1e-6 * diagonal(truth);
    assert!(outside <= tolerance && gap <= tolerance, "{outside} {gap}");
}

/// Bytes of a MEMG motion with no local frames, `n` timesteps and one
/// one-vertex group of basis 0: it holds 2³¹−1 timesteps in 80 bytes.
fn endless_memg(n: i32) -> Vec<u8> {
    let mut b = Vec::new();
    for x in [1, 30, 0, n] {
        b.extend_from_slice(&i32::to_le_bytes(x));
    }
    b.extend_from_slice(&1i32.to_le_bytes());
    b.push(b'g');
    b.extend_from_slice(&1i32.to_le_bytes()); // vertices
    b.extend_from_slice(&1i32.to_le_bytes()); // mapping
    for x in [0.5f64, 1.0, 2.0] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b.extend_from_slice(&(-1i32).to_le_bytes()); // world space
    for x in [3, 0, 0, n] {
        b.extend_from_slice(&i32::to_le_bytes(x));
    }
    b
}

#[test]
fn memg_motion_of_two_billion_empty_timesteps_is_sampled_not_walked() {
    let motion = memg::decode(&endless_memg(i32::MAX)).unwrap();
    assert_eq!(motion.timesteps, i32::MAX as usize);
    let scene = ObjScene {
        positions: vec![[0.0; 3], [4.0, -1.0, 0.0]],
        groups: vec![ObjGroup {
            name: "g".into(),
            ..ObjGroup::default()
        }],
        ..ObjScene::default()
    };
    let binding = Binding::new(&scene, &motion).unwrap();
    // The group's vertex sits at its mean pose at every timestep.
    let (lo, hi) = bounding_box_over_time(&scene, &motion, &binding).unwrap();
    assert_eq!((lo, hi), ([0.5, -1.0, 0.0], [4.0, 1.0, 2.0]));
}

#[test]
fn the_plan_of_an_endless_memg_motion_plays_24_hours_and_warns_once() {
    let obj = b"v 0 0 0\nv 4 -1 0\nv 0 1 0\ng g\nf 1 2 3\n".to_vec();
    let loaded = motion_viewer::open_with(
        [("e.obj", obj), ("e.bin", endless_memg(i32::MAX))],
        &motion_viewer::OpenOptions::default(),
    )
    .unwrap();
    let (tracks, warnings) = (loaded.tracks, loaded.warnings);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("e.bin: lasts 7.158279e7 s; only its first 86400 s (24 h) play"),
        "{}",
        warnings[0]
    );
    let plan = Plan::new(&tracks).unwrap();
    assert_eq!(plan.duration_s, MAX_DURATION_S);
    assert!((tracks[0].recorded_duration_s() - (f64::from(i32::MAX) - 1.0) / 30.0).abs() < 1e-6);
}

// ---- AIBO rig --------------------------------------------------------------

/// The box over `per_frame` poses per frame of the whole motion.
fn dense_rig(m: &Mtn, per_frame: u64) -> ([f64; 3], [f64; 3]) {
    let rig = MtnRig::new(m);
    let steps = m.total_frames() * per_frame;
    (0..=steps)
        .map(|i| {
            let (model, pose) = rig.pose(m.frame_s(i) / per_frame as f64);
            vec_box(rig::extent(model, &pose))
        })
        .reduce(|(lo, hi), (a, b)| {
            (
                std::array::from_fn(|k| lo[k].min(a[k])),
                std::array::from_fn(|k| hi[k].max(b[k])),
            )
        })
        .unwrap()
}

#[test]
fn rig_box_lies_within_and_close_to_the_every_frame_box_of_real_motions() {
    let files = [
        "data/sony_stand_sit.mtn",
        "data/skitter_sleep_to_sit.mtn",
        "tests/data/mtn/cartheur-aibo__aibo-lab/a_stand#walk_sox_standard.mtn",
        "tests/data/mtn/cartheur-aibo__aibo-lab/a_sit#sit_so0_greet.mtn",
        "tests/data/mtn/cartheur-aibo__r-code/Kick_B_LR_setp.mtn",
        "tests/data/mtn/Doggies-Galore__AIBOMotionWorkbench/KnownGoodERS7.mtn",
    ];
    for file in files {
        let m = mtn::decode(&std::fs::read(repo(file)).unwrap()).unwrap();
        let truth = dense_rig(&m, 4);
        let sampled = vec_box(rig::bounds_over_time(&m));
        let (outside, gap) = compare(sampled, truth);
        assert!(outside <= 1e-6, "{file}: {outside} m outside");
        // Within a millimetre of the box over four poses a frame.
        assert!(gap <= 1e-3, "{file}: a face {gap} m inside");
    }
}

#[test]
fn rig_samples_stay_bounded_whatever_the_frame_counts() {
    // One keyframe four billion frames after the first: 5 poses, not 4.3e9.
    let far = rig::bounds_sample_times(&[0.0, 0.016 * 4_294_967_296.0]);
    assert_eq!(far.len(), 2 + rig::SEGMENT_SAMPLES);
    // As many keyframes as a file can hold: the cap, first and last included.
    let times: Vec<f64> = (0..65_535).map(|i| f64::from(i) * 0.016).collect();
    let sampled = rig::bounds_sample_times(&times);
    assert_eq!(sampled.len(), rig::MAX_BOUNDS_SAMPLES);
    assert_eq!(sampled[0], 0.0);
    assert_eq!(*sampled.last().unwrap(), times[65_534]);
    assert!(sampled.windows(2).all(|w| w[0] < w[1]));

    let mut m = mtn::decode(&std::fs::read(repo("data/sony_stand_sit.mtn")).unwrap()).unwrap();
    m.keyframes.push(Keyframe {
        interp: u32::MAX,
        ..m.keyframes[0].clone()
    });
    let (lo, hi) = rig::bounds_over_time(&m);
    assert!(lo.is_finite() && hi.is_finite() && lo.cmple(hi).all());
}
