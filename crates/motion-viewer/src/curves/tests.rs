use super::*;
use crate::export::table;
use crate::formats::mtn::URAD_TO_DEG;
use std::path::Path;

fn data(name: &str) -> String {
    format!("{}/../../data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn open(names: &[&str]) -> Track {
    let paths: Vec<std::path::PathBuf> = names.iter().map(|n| data(n).into()).collect();
    let loaded = crate::open_with(&paths, &crate::OpenOptions::default()).unwrap();
    loaded.tracks.into_iter().next().unwrap()
}

/// A series of `n` samples 1 ms apart: a slow wave with one low spike and
/// one high spike at known places.
fn spiky(n: usize, low_at: usize, high_at: usize) -> Series {
    let times: Vec<f64> = (0..n).map(|i| i as f64 * 1e-3).collect();
    let mut values: Vec<f64> = times.iter().map(|t| (t * 0.7).sin()).collect();
    values[low_at] = -7.5;
    values[high_at] = 9.25;
    Series::new("x".into(), times, values)
}

#[test]
fn a_million_samples_decimate_to_the_columns_asked_keeping_the_true_extremes() {
    let n = 1_000_000;
    let (low_at, high_at) = (123_457, 876_543);
    let s = spiky(n, low_at, high_at);
    let (t0, t1) = (s.times[0], s.times[n - 1]);
    for columns in [1, 7, 800, 1920] {
        let spans = s.envelope(t0, t1, columns);
        assert!(
            spans.len() <= columns,
            "{} spans for {columns}",
            spans.len()
        );
        assert_eq!(spans.len(), columns, "every column holds samples");
        let low = spans.iter().min_by(|a, b| a.min.total_cmp(&b.min)).unwrap();
        let high = spans.iter().max_by(|a, b| a.max.total_cmp(&b.max)).unwrap();
        assert_eq!((low.min, low.t_min), (-7.5, s.times[low_at]));
        assert_eq!((high.max, high.t_max), (9.25, s.times[high_at]));
    }
    // Each column's extremes are those a plain scan of its samples finds.
    let spans = s.envelope(t0, t1, 640);
    for span in spans.iter().step_by(37) {
        let inside = s
            .times
            .iter()
            .zip(&s.values)
            .filter(|(t, _)| **t >= span.t0 && (**t < span.t1 || span.t1 == t1));
        let (lo, hi) = inside.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, v)| {
            (lo.min(*v), hi.max(*v))
        });
        assert_eq!((span.min, span.max), (lo, hi), "{span:?}");
        assert_eq!(s.value_at(span.t_min), Some(span.min));
        assert_eq!(s.value_at(span.t_max), Some(span.max));
    }
    assert_eq!(s.range(), Some((-7.5, 9.25)));
}

#[test]
fn a_zoomed_window_reads_only_its_own_samples() {
    let s = spiky(100_000, 10, 90_000);
    // 20..30 ms: eleven samples, fewer than the columns: one span each.
    let spans = s.envelope(0.020, 0.030, 100);
    assert_eq!(spans.len(), 11);
    for (k, span) in spans.iter().enumerate() {
        let t = (20 + k) as f64 * 1e-3;
        assert!((span.t_min - t).abs() < 1e-12);
        assert_eq!(span.min, span.max);
        assert_eq!(span.min, (span.t_min * 0.7).sin());
    }
    // Neither spike is in 1..2 s.
    let spans = s.envelope(1.0, 2.0, 50);
    assert!(spans.iter().all(|s| s.min > -1.0 && s.max < 1.0));
    assert!(s.envelope(2.0, 1.0, 50).is_empty());
    assert!(s.envelope(0.0, 1.0, 0).is_empty());
    assert!(s.envelope(500.0, 600.0, 10).is_empty());
}

#[test]
fn values_that_are_not_finite_are_left_out_of_extremes() {
    let times: Vec<f64> = (0..100).map(f64::from).collect();
    let mut values: Vec<f64> = times.iter().map(|t| t * 2.0).collect();
    values[0] = f64::NAN;
    values[99] = f64::INFINITY;
    for v in &mut values[40..60] {
        *v = f64::NAN;
    }
    let s = Series::new("x".into(), times, values);
    assert_eq!(s.range(), Some((2.0, 196.0)));
    let spans = s.envelope(0.0, 99.0, 99);
    // One sample a column (two in the last, which holds its end): the NaN
    // at 0 and the twenty from 40 leave 21 columns empty; the last holds
    // 196 beside the infinity.
    assert_eq!(spans.len(), 99 - 21);
    assert_eq!(spans.last().unwrap().max, 196.0);
    assert!(spans.iter().all(|s| s.min.is_finite() && s.max.is_finite()));
    let all_nan = Series::new("n".into(), vec![0.0, 1.0], vec![f64::NAN; 2]);
    assert_eq!(all_nan.range(), None);
    assert!(all_nan.envelope(0.0, 1.0, 4).is_empty());
}

#[test]
fn value_at_interpolates_between_samples_and_is_none_outside() {
    let s = Series::new("x".into(), vec![0.0, 1.0, 3.0], vec![10.0, 20.0, -20.0]);
    assert_eq!(s.value_at(0.0), Some(10.0));
    assert_eq!(s.value_at(0.25), Some(12.5));
    assert_eq!(s.value_at(1.0), Some(20.0));
    assert_eq!(s.value_at(2.5), Some(-10.0));
    assert_eq!(s.value_at(3.0), Some(-20.0));
    assert_eq!(s.value_at(-0.1), None);
    assert_eq!(s.value_at(3.1), None);
    assert_eq!(s.value_at(f64::NAN), None);
    assert_eq!(Series::new("e".into(), vec![], vec![]).value_at(0.0), None);
}

/// The angle of joint column `k` (0..3 body, then joints) at `t`, computed
/// from the keyframes in f64 without the crate's sampler: linear between
/// the keyframes around `t` (frame counts `interp + 1` apart).
fn mtn_reference(m: &crate::formats::mtn::Mtn, k: usize, t: f64) -> f64 {
    let raw = |i: usize| -> f64 {
        let kf = &m.keyframes[i];
        f64::from(match k {
            0 => kf.roll,
            1 => kf.pitch,
            2 => kf.yaw,
            j => kf.joints[j - 3],
        })
    };
    let period = f64::from(m.frame_ms()) / 1000.0;
    let mut frame = 0u64;
    let mut prev = (0usize, 0.0f64);
    for i in 0..m.keyframes.len() {
        if i > 0 {
            frame += u64::from(m.keyframes[i].interp) + 1;
        }
        let time = frame as f64 * period;
        if time >= t {
            if i == 0 {
                return raw(0) * URAD_TO_DEG;
            }
            let u = (t - prev.1) / (time - prev.1);
            return (raw(prev.0) + (raw(i) - raw(prev.0)) * u) * 180.0
                / (1e6 * std::f64::consts::PI);
        }
        prev = (i, time);
    }
    raw(m.keyframes.len() - 1) * URAD_TO_DEG
}

#[test]
fn aibo_channels_are_the_table_columns_with_the_models_limits() {
    let track = open(&["sony_stand_sit.mtn"]);
    let Track::Mtn { motion, .. } = &track else {
        panic!("an AIBO motion")
    };
    let names: Vec<String> = channels(&track).into_iter().map(|c| c.name).collect();
    assert_eq!(names, table::columns(&track)[1..]);
    let all = channels(&track);
    assert_eq!(all[0].path, ["body"]);
    assert_eq!(all[1].unit, Unit::Degrees);
    // An ERS-210 (DRX-910): head tilt -82..43°, knee J3 -27..147°
    // (docs/formats.md §1).
    let limits = |name: &str| all.iter().find(|c| c.name == name).unwrap().limits;
    assert_eq!(limits("PRM:/r1/c1-Joint2:j1"), Some((-82.0, 43.0)));
    assert_eq!(limits("PRM:/r2/c1/c2/c3-Joint2:j3"), Some((-27.0, 147.0)));
    assert_eq!(limits("roll_deg"), None);
    assert_eq!(all[4].path, ["joints", "head"]);

    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let times = [0.0, 0.333, 1.0, 2.4401, 4.88, 9.0];
    let series = sample(&track, &refs, &times).unwrap();
    for (k, s) in series.iter().enumerate() {
        for (i, &t) in times.iter().enumerate() {
            let expected = mtn_reference(motion, k, t.min(4.88));
            assert!(
                (s.values[i] - expected).abs() < 1e-9,
                "{} at {t}: {} vs {expected}",
                s.name,
                s.values[i]
            );
            assert_eq!(
                s.values[i],
                table::row(&track, t)[k + 1],
                "{} at {t}",
                s.name
            );
        }
    }
}

#[test]
fn every_frame_of_an_aibo_motion_is_sampled() {
    let track = open(&["sony_stand_sit.mtn"]);
    let s = sample_frames(&track, &["pitch_deg"]).unwrap();
    // 4.88 s at 16 ms: frames 0..=305.
    assert_eq!(s[0].times.len(), 306);
    assert!((s[0].times[305] - 4.88).abs() < 1e-12);
}

#[test]
fn mrtk_channels_are_the_table_columns_and_evaluate_as_the_table() {
    let track = open(&["hands.mrtk"]);
    let all = channels(&track);
    let names: Vec<String> = all.iter().map(|c| c.name.clone()).collect();
    assert_eq!(names, table::columns(&track)[1..]);
    let unit = |n: &str| all.iter().find(|c| c.name == n).unwrap().unit;
    assert_eq!(unit("right_IndexTip_px"), Unit::Metres);
    assert_eq!(unit("right_IndexTip_rw"), Unit::Unitless);
    assert_eq!(unit("left_tracked"), Unit::State);
    assert_eq!(unit("gaze_ox"), Unit::Metres);
    let picked = [
        "camera_py",
        "right_pinching",
        "left_tracked",
        "right_IndexTip_px",
        "right_IndexTip_rw",
        "right_ThumbTip_pz",
        "gaze_dz",
    ];
    // 1.5 s: left hand untracked; 2.8 s: right hand pinching.
    let times = [0.0, 0.51, 1.5, 2.8, 3.99];
    let series = sample(&track, &picked, &times).unwrap();
    let columns = table::columns(&track);
    for s in &series {
        let k = columns.iter().position(|c| *c == s.name).unwrap();
        for (i, &t) in times.iter().enumerate() {
            let row = table::row(&track, t);
            assert_eq!(s.values[i], row[k], "{} at {t}", s.name);
        }
    }
    assert_eq!(series[1].values, [0.0, 0.0, 0.0, 1.0, 0.0]);
    assert_eq!(series[2].values, [1.0, 1.0, 0.0, 1.0, 1.0]);
}

#[test]
fn memg_channels_are_each_groups_coefficients_and_frame_translation() {
    let track = open(&["flags.obj", "flags.bin"]);
    let Track::Memg { motion, .. } = &track else {
        panic!("a MEMG scene")
    };
    let all = channels(&track);
    // Group 0 is the banner, in world space: coefficients only.
    let banner = &motion.groups[0];
    assert_eq!(banner.name, "banner");
    assert!(banner.parent < 0 || banner.parent as usize >= motion.local_frames);
    assert_eq!(all[0].name, "g0_q0");
    assert_eq!(all[banner.basis_len].name, "g1_q0");
    assert!(!all.iter().any(|c| c.name == "g0_tx"));
    // Group 1 is a flag on a swaying pole: a local frame.
    let g0 = &motion.groups[1];
    let r = g0.basis_len;
    let at = banner.basis_len + r;
    let names: Vec<&str> = all[at..at + 3].iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["g1_tx", "g1_ty", "g1_tz"]);
    let fps = f64::from(motion.fps);
    let parent = g0.parent as usize;
    // At timestep 10, and a quarter of the way from 10 to 11.
    let times = [10.0 / fps, 10.25 / fps, 10.75 / fps];
    let series = sample(&track, &["g1_q1", "g1_ty"], &times).unwrap();
    let q = |t: usize| f64::from(g0.coeffs[t * r + 1]);
    assert_eq!(series[0].values[0], q(10));
    let expected = 0.75 * q(10) + 0.25 * q(11);
    assert!((series[0].values[1] - expected).abs() < 1e-12);
    let frame = |t: usize| motion.frames[t * motion.local_frames + parent][7];
    // The frame is held at the nearest timestep.
    assert_eq!(series[1].values, [frame(10), frame(10), frame(11)]);
    let frames = sample_frames(&track, &["g1_q0"]).unwrap();
    assert_eq!(frames[0].times.len(), motion.timesteps);
    for (t, v) in frames[0].values.iter().enumerate().step_by(17) {
        assert!(
            (v - f64::from(g0.coeffs[t * r])).abs() < 1e-12,
            "timestep {t}"
        );
    }
}

#[test]
fn an_unknown_channel_or_too_many_samples_is_one_line() {
    let track = open(&["sony_stand_sit.mtn"]);
    let e = sample(&track, &["pitch_deg", "elbow"], &[0.0]).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("no channel \"elbow\""), "{text}");
    assert!(text.contains("roll_deg, pitch_deg, yaw_deg"), "{text}");
    assert!(!text.contains('\n'));
    assert_eq!(e.path(), Some(Path::new(&data("sony_stand_sit.mtn"))));
    let many = vec![0.0; MAX_SAMPLES + 1];
    let text = sample(&track, &["pitch_deg"], &many)
        .unwrap_err()
        .to_string();
    assert!(text.contains("2000001 samples"), "{text}");
    let text = sample(&track, &["pitch_deg"], &[1.0, 0.5])
        .unwrap_err()
        .to_string();
    assert!(text.contains("must increase"), "{text}");
    let text = sample(&track, &["pitch_deg"], &[f64::NAN])
        .unwrap_err()
        .to_string();
    assert!(text.contains("finite"), "{text}");
}

#[test]
fn memg_channels_are_named_as_the_state_json_holds_them() {
    use crate::pose::{At, State, state_at};
    let track = open(&["flags.obj", "flags.bin"]);
    let fps = match &track {
        Track::Memg { motion, .. } => f64::from(motion.fps),
        _ => unreachable!(),
    };
    let t = 37.0 / fps;
    let State::Memg(state) = state_at(&track, At::Time(t)).unwrap() else {
        panic!("a MEMG state")
    };
    let json = serde_json::to_value(&state).unwrap();
    assert_eq!(json["timestep"], 37);
    for name in ["g1_q0", "g1_q5", "g1_tx", "g2_tz", "g0_q23"] {
        let (group, field) = name[1..].split_once('_').unwrap();
        let g: usize = group.parse().unwrap();
        let expected = match field.strip_prefix('q') {
            Some(i) => &json["groups"][g]["q"][i.parse::<usize>().unwrap()],
            None => &json["groups"][g]["translation"][usize::from(field.as_bytes()[1] - b'x')],
        };
        let got = sample(&track, &[name], &[t]).unwrap()[0].values[0];
        assert_eq!(Some(got), expected.as_f64(), "{name}");
    }
    assert!(json["groups"][0]["translation"].is_null(), "the banner");
}

#[test]
fn the_last_envelope_is_kept_and_a_new_view_recomputed() {
    let s = spiky(50_000, 100, 40_000);
    let a = s.envelope(0.0, 49.999, 300);
    assert_eq!(s.envelope(0.0, 49.999, 300), a);
    let b = s.envelope(10.0, 20.0, 300);
    assert_ne!(a, b);
    assert!(
        b.iter()
            .all(|span| span.t_min >= 10.0 && span.t_max <= 20.0)
    );
    // 10..20 s holds neither spike: its extremes are the wave's.
    let lo = b.iter().map(|x| x.min).fold(f64::INFINITY, f64::min);
    let wave = (10_000..=20_000)
        .map(|i| (f64::from(i) * 1e-3 * 0.7).sin())
        .fold(f64::INFINITY, f64::min);
    assert_eq!(lo, wave);
    let copy = s.clone();
    assert_eq!(copy.envelope(0.0, 49.999, 300), a);
}

#[test]
fn uneven_times_are_cut_into_columns_exactly() {
    // Samples crowding toward the end (t = i²), so no even-grid guess holds.
    let n = 20_000usize;
    let times: Vec<f64> = (0..n).map(|i| (i * i) as f64 * 1e-6).collect();
    let values: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1000) as f64).collect();
    let s = Series::new("u".into(), times.clone(), values.clone());
    let (t0, t1) = (3.0, times[n - 1]);
    let spans = s.envelope(t0, t1, 333);
    let mut covered = 0;
    for span in &spans {
        let last = span.t1 == t1;
        let inside: Vec<f64> = times
            .iter()
            .zip(&values)
            .filter(|(t, _)| **t >= span.t0 && (**t < span.t1 || (last && **t <= t1)))
            .map(|(_, v)| *v)
            .collect();
        covered += inside.len();
        let lo = inside.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = inside.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!((span.min, span.max), (lo, hi), "{span:?}");
        assert!(span.t_min >= span.t0 && span.t_max <= span.t1, "{span:?}");
    }
    assert_eq!(covered, times.iter().filter(|t| **t >= t0).count());
}
