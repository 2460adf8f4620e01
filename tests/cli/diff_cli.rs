//! `viewer diff`: a motion against itself, its mirror and its retimed
//! copy; MEMG scenes; exit codes (0 within the tolerance, 1 beyond, 2 on
//! an error) and one-line errors.

use crate::common::data;
use motion_viewer::formats::mtn;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn viewer() -> Command {
    crate::app::viewer()
}

fn seed(name: &str) -> String {
    data(name).display().to_string()
}

/// `viewer diff ARGS --json`: the exit status and the report.
fn diff_json(args: &[&str]) -> (Option<i32>, Value) {
    let out = viewer()
        .arg("diff")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (out.status.code(), report)
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `viewer mtn VERB IN ARGS --out OUT`.
fn workbench(verb: &str, input: &str, args: &[&str], out: &Path) {
    let run = viewer()
        .args(["mtn", verb, input])
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    ok(&run);
}

fn channels(report: &Value) -> &Vec<Value> {
    report["channels"].as_array().unwrap()
}

#[test]
fn a_motion_against_itself_is_zero_everywhere() {
    let sit = seed("sony_stand_sit.mtn");
    let (code, r) = diff_json(&[&sit, &sit]);
    assert_eq!(code, Some(0));
    assert_eq!(r["format"], "mtn");
    assert_eq!(r["samples"], 306, "every 16 ms frame of 4.88 s");
    assert_eq!(channels(&r).len(), 23);
    assert!(channels(&r).iter().all(|c| c["max_abs"] == 0.0), "{r}");
    assert_eq!(r["notes"], serde_json::json!([]));
    let hands = seed("hands.mrtk");
    let (code, r) = diff_json(&[&hands, &hands]);
    assert_eq!(code, Some(0));
    // Positions of the camera and 2 × 27 joints, two states a hand, gaze.
    assert_eq!(channels(&r).len(), 3 + 2 * (2 + 27 * 3) + 6);
    assert!(channels(&r).iter().all(|c| c["max_abs"] == 0.0));
    let (code, r) = diff_json(&[
        &seed("flags.obj"),
        &seed("flags.bin"),
        &seed("flags.obj"),
        &seed("flags.bin"),
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(channels(&r)[0]["channel"], "vertices");
    assert!(channels(&r).iter().all(|c| c["max_abs"] == 0.0));
}

#[test]
fn against_its_mirror_it_names_the_left_and_right_joints() {
    let dir = tempfile::tempdir().unwrap();
    let sit = seed("sony_stand_sit.mtn");
    let mirrored = dir.path().join("mirrored.mtn");
    workbench("mirror", &sit, &[], &mirrored);
    let (code, r) = diff_json(&[&sit, mirrored.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    // Which channels must differ, from the keyframes and the ERS-210's
    // mirror as docs/formats.md gives it: left and right legs (r2 ↔ r4,
    // r3 ↔ r5) and ears (e1 ↔ e2) trade angles; head pan (c2), the rolling
    // head (c3), tail pan (r6/c1), body roll and yaw change sign.
    let m = mtn::decode(&std::fs::read(&sit).unwrap()).unwrap();
    let swaps = [
        ("/r2/", "/r4/"),
        ("/r3/", "/r5/"),
        ("e1-Joint3:j5", "e2-Joint3:j6"),
    ];
    let negated = [
        "PRM:/r1/c1/c2-Joint2:j2",
        "PRM:/r1/c1/c2/c3-Joint2:j3",
        "PRM:/r6/c1-Joint2:j1",
    ];
    let partner = |name: &str| {
        swaps.iter().find_map(|(l, r)| {
            if name.contains(l) {
                Some(name.replace(l, r))
            } else if name.contains(r) {
                Some(name.replace(r, l))
            } else {
                None
            }
        })
    };
    let series = |k: usize| -> Vec<i64> {
        m.keyframes
            .iter()
            .map(|kf| {
                i64::from(
                    [kf.roll, kf.pitch, kf.yaw]
                        .get(k)
                        .copied()
                        .unwrap_or_else(|| kf.joints[k - 3]),
                )
            })
            .collect()
    };
    let names: Vec<String> = ["roll_deg", "pitch_deg", "yaw_deg"]
        .iter()
        .map(|s| s.to_string())
        .chain(m.joints.iter().cloned())
        .collect();
    let mut expected = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let mirrored: Vec<i64> = match partner(name) {
            Some(other) => series(names.iter().position(|n| *n == other).unwrap()),
            None if k == 0 || k == 2 || negated.contains(&name.as_str()) => {
                series(k).iter().map(|v| -v).collect()
            }
            None => series(k),
        };
        if mirrored != series(k) {
            expected.push(name.clone());
        }
    }
    // In this motion they are leg joints, both sides.
    assert!(expected.len() >= 4, "{expected:?}");
    for side in ["/r2/", "/r3/", "/r4/", "/r5/"] {
        assert!(expected.iter().any(|n| n.contains(side)), "{expected:?}");
    }
    let exceeding: Vec<&str> = channels(&r)
        .iter()
        .filter(|c| c["exceeds"] == true)
        .map(|c| c["channel"].as_str().unwrap())
        .collect();
    assert_eq!(exceeding, expected);
    // The text says the same, and names them.
    let out = viewer()
        .args(["diff", &sit])
        .arg(&mirrored)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let verdict = text.lines().last().unwrap();
    assert!(
        verdict.starts_with(&format!("{} of 23 channels differ", expected.len())),
        "{verdict}"
    );
    for name in &expected {
        assert!(verdict.contains(name.as_str()), "{verdict}");
    }
}

/// The steepest slope of joint column `k` (0..3 body, then joints) between
/// keyframes, degrees per second.
fn steepest(m: &mtn::Mtn, k: usize) -> f64 {
    let value = |kf: &mtn::Keyframe| {
        f64::from(match k {
            0 => kf.roll,
            1 => kf.pitch,
            2 => kf.yaw,
            j => kf.joints[j - 3],
        }) * mtn::URAD_TO_DEG
    };
    let period = f64::from(m.frame_ms()) / 1000.0;
    m.keyframes
        .windows(2)
        .map(|w| (value(&w[1]) - value(&w[0])).abs() / ((f64::from(w[1].interp) + 1.0) * period))
        .fold(0.0, f64::max)
}

#[test]
fn against_its_retimed_copy_on_the_retimed_clock_it_is_within_interpolation_error() {
    let dir = tempfile::tempdir().unwrap();
    let sit = seed("sony_stand_sit.mtn");
    let fast = dir.path().join("fast.mtn");
    workbench("retime", &sit, &["--speed", "2"], &fast);
    let (code, r) = diff_json(&[&sit, fast.to_str().unwrap(), "--b-speed", "2"]);
    // Keyframes land on whole frames of the fast motion, so some moved.
    assert_eq!(code, Some(1));
    // The bound: `retime` puts each keyframe at most half a frame (8 ms)
    // from its exact new time, 16 ms on A's clock. B at t/2 is then A at a
    // time φ(t) with |φ(t) − t| ≤ δ = 16 ms (φ is linear between keyframes,
    // so it is off by no more than at its ends), and a channel whose
    // steepest segment turns L degrees a second is off by at most L·δ.
    let m = mtn::decode(&std::fs::read(&sit).unwrap()).unwrap();
    let delta = 2.0 * 0.016 / 2.0;
    let mut worst_bound: f64 = 0.0;
    for (k, c) in channels(&r).iter().enumerate() {
        let bound = steepest(&m, k) * delta;
        worst_bound = worst_bound.max(bound);
        let d = c["max_abs"].as_f64().unwrap();
        assert!(d <= bound + 1e-9, "{}: {d}° > {bound}°", c["channel"]);
    }
    assert!(
        channels(&r)
            .iter()
            .any(|c| c["max_abs"].as_f64().unwrap() > 0.0),
        "retiming moved no keyframe: the bound was not tested"
    );
    let notes = r["notes"].to_string();
    assert!(notes.contains("compared over the shorter"), "{notes}");
    assert!(
        notes.contains("compared every 0.016 s, the finer"),
        "{notes}"
    );
    // Within that bound as the tolerance: exit 0.
    let (code, _) = diff_json(&[
        &sit,
        fast.to_str().unwrap(),
        "--b-speed",
        "2",
        "--tolerance",
        &worst_bound.to_string(),
    ]);
    assert_eq!(code, Some(0));
    // On the same clock the two are far apart.
    let (code, r) = diff_json(&[&sit, fast.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    let worst = channels(&r)
        .iter()
        .map(|c| c["max_abs"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(worst > 10.0 * worst_bound, "{worst}");
}

#[test]
fn bad_diff_requests_exit_2_with_one_line() {
    let sit = seed("sony_stand_sit.mtn");
    let run = |args: &[&str]| {
        let o = viewer().arg("diff").args(args).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    for args in [
        vec![sit.as_str()],
        vec![&sit, &sit, "--tolerance", "-1"],
        vec![&sit, &sit, "--b-speed", "0"],
    ] {
        let (code, err) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
    }
    let hands = seed("hands.mrtk");
    let (code, err) = run(&[&sit, &hands]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("an MRTK recording cannot be compared with"),
        "{err}"
    );
    let (code, err) = run(&[&sit, &sit, &sit]);
    assert_eq!(code, Some(2));
    assert!(err.contains("the 3 files given make 3"), "{err}");
    let (code, err) = run(&[&sit, "no-such.mtn"]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no-such.mtn"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.mtn");
    std::fs::write(&junk, b"OPENR-MTN garbage").unwrap();
    let (code, err) = run(&[&sit, junk.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn memg_scenes_compare_by_vertex_distance() {
    use motion_viewer::anim::memg::{Binding, deform_reference_f64};
    let (obj, bin) = (seed("flags.obj"), seed("flags.bin"));
    // The flags against themselves twice as fast: they move apart.
    let (code, r) = diff_json(&[&obj, &bin, &obj, &bin, "--b-speed", "2"]);
    assert_eq!(code, Some(1));
    assert_eq!(r["format"], "memg");
    let rows = channels(&r);
    assert_eq!(rows[0]["channel"], "vertices");
    assert!(rows.iter().any(|c| c["channel"] == "group 'flag0'"));
    // The worst over all vertices is the worst of the groups'.
    let worst = rows[0]["max_abs"].as_f64().unwrap();
    let groups = rows[1..]
        .iter()
        .map(|c| c["max_abs"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(worst >= groups && worst > 0.1, "{worst} {groups}");
    // At the time and vertex named, the f64 reference deformer puts the two
    // scenes that far apart (within f32 rounding of the positions).
    let loaded =
        motion_viewer::open_with([&obj, &bin], &motion_viewer::OpenOptions::default()).unwrap();
    let motion_viewer::Track::Memg { scene, motion, .. } = &loaded.tracks[0] else {
        panic!("a MEMG scene")
    };
    let binding = Binding::new(scene, motion).unwrap();
    let fps = f64::from(motion.fps);
    let t = rows[0]["at_s"].as_f64().unwrap();
    let a = deform_reference_f64(scene, motion, &binding, t * fps);
    let b = deform_reference_f64(scene, motion, &binding, t / 2.0 * fps);
    let distance = |i: usize| {
        (0..3)
            .map(|k| (a[i][k] - b[i][k]).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let vertex = rows[0]["vertex"].as_u64().unwrap() as usize;
    assert!(
        (distance(vertex - 1) - worst).abs() < 1e-4,
        "{} vs {worst}",
        distance(vertex - 1)
    );
    let most = (0..a.len()).map(distance).fold(0.0, f64::max);
    assert!((most - worst).abs() < 1e-4, "{most} vs {worst}");
}
