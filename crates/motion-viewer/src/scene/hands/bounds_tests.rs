//! A recording's box comes from a bounded sample of its states (issue 19):
//! on a normal recording the sampled box lies within the true extent,
//! measured here densely, and close to it; a key at an absurd time keeps the
//! sample small.

use super::{MAX_BOUNDS_SAMPLES, bounds_over_time, bounds_sample_times, extent};
use crate::anim::input_animation::{duration_s, state_at};
use crate::formats::input_animation::{
    self as ia, BoolCurve, BoolKey, Curve, Hands, InputAnimation, JOINT_COUNT, Key, PoseCurves,
    RayCurves, WeightedMode,
};
use glam::Vec3;

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

fn vec_box(b: (Vec3, Vec3)) -> ([f64; 3], [f64; 3]) {
    (b.0.to_array().map(f64::from), b.1.to_array().map(f64::from))
}

/// A version 1.0 curve through `count` keys `step` seconds apart on a sine,
/// with the sine's slopes as Hermite tangents: it peaks between keys.
fn wave(count: usize, step: f32, amplitude: f32, offset: f32, phase: f32) -> Curve {
    let keys = (0..count)
        .map(|i| {
            let t = i as f32 * step;
            let x = t * 2.3 + phase;
            Key {
                time: t,
                value: offset + amplitude * x.sin(),
                in_tangent: amplitude * 2.3 * x.cos(),
                out_tangent: amplitude * 2.3 * x.cos(),
                weighted_mode: WeightedMode::None,
                ..Key::default()
            }
        })
        .collect();
    Curve {
        keys,
        ..Curve::default()
    }
}

fn on() -> BoolCurve {
    BoolCurve {
        keys: vec![BoolKey {
            time: 0.0,
            value: 1.0,
        }],
        ..BoolCurve::default()
    }
}

/// A version 1.0 recording whose every channel is a [`wave`]: keys 0.4 s
/// apart over 4 s, hands reaching around a head at 1.6 m.
fn waving() -> InputAnimation {
    let pose = |seed: f32, height: f32| PoseCurves {
        position: [
            wave(11, 0.4, 0.2, seed * 0.01, seed),
            wave(11, 0.4, 0.1, height, seed * 1.3),
            wave(11, 0.4, 0.15, 0.4, seed * 0.7),
        ],
        rotation: [
            wave(11, 0.4, 0.3, 0.0, seed),
            wave(11, 0.4, 0.3, 0.2, seed + 1.0),
            wave(11, 0.4, 0.2, 0.0, seed + 2.0),
            wave(11, 0.4, 0.1, 0.9, seed + 3.0),
        ],
    };
    let joints = |side: f32| -> Vec<PoseCurves> {
        (0..JOINT_COUNT)
            .map(|j| pose(side + j as f32 * 0.1, 1.2))
            .collect()
    };
    InputAnimation {
        version: (1, 0),
        camera: Some(pose(0.5, 1.6)),
        hands: Some(Hands {
            tracked_left: on(),
            tracked_right: on(),
            pinch_left: BoolCurve::default(),
            pinch_right: BoolCurve::default(),
            left: joints(0.0),
            right: joints(5.0),
        }),
        ..InputAnimation::default()
    }
}

/// The box over states `step` seconds apart and at every key.
fn dense_hands(r: &InputAnimation, step: f64) -> ([f64; 3], [f64; 3]) {
    let duration = duration_s(r);
    let count = (duration / step).ceil() as usize;
    let mut times: Vec<f64> = r
        .float_curves()
        .into_iter()
        .flat_map(|c| c.keys.iter().map(|k| f64::from(k.time)))
        .chain((0..=count).map(|i| (i as f64 * step).min(duration)))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
        .into_iter()
        .filter_map(|t| extent(&state_at(r, t)))
        .map(vec_box)
        .reduce(|(lo, hi), (a, b)| {
            (
                std::array::from_fn(|k| lo[k].min(a[k])),
                std::array::from_fn(|k| hi[k].max(b[k])),
            )
        })
        .unwrap()
}

#[test]
fn hands_box_lies_within_and_close_to_the_dense_box() {
    let sample = ia::decode(
        &std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/hands.mrtk"
        ))
        .unwrap(),
    )
    .unwrap();
    for (name, recording, tolerance) in [
        // Keys at 60 Hz, linear: the joint balls peak at keys.
        ("hands.mrtk", sample, 1e-3),
        // Hermite segments peak between keys 0.4 s apart.
        ("waving", waving(), 5e-3),
    ] {
        let truth = dense_hands(&recording, 1e-3);
        let sampled = vec_box(bounds_over_time(&recording).unwrap());
        let (outside, gap) = compare(sampled, truth);
        assert!(outside <= 1e-6, "{name}: {outside} m outside");
        assert!(gap <= tolerance, "{name}: a face {gap} m inside");
    }
}

#[test]
fn hands_samples_stay_bounded_for_a_key_at_1e30_seconds() {
    let mut recording = waving();
    let far = Key {
        time: 1e30,
        ..Key::default()
    };
    recording.camera.as_mut().unwrap().position[0]
        .keys
        .push(far);
    let times = bounds_sample_times(&recording);
    assert!(times.len() <= MAX_BOUNDS_SAMPLES);
    assert_eq!(*times.last().unwrap(), 1e30_f32 as f64);
    assert!(bounds_over_time(&recording).is_some());

    // So many key times that only the cap is sampled.
    let mut dense = InputAnimation {
        version: (1, 1),
        eye_gaze: Some(RayCurves::default()),
        ..InputAnimation::default()
    };
    dense.eye_gaze.as_mut().unwrap().origin[0].keys = (0..20_000)
        .map(|i| Key::linear(i as f32 * 0.01, 0.0))
        .collect();
    let times = bounds_sample_times(&dense);
    assert_eq!(times.len(), MAX_BOUNDS_SAMPLES);
    assert_eq!(times[0], 0.0);
    assert_eq!(*times.last().unwrap(), f64::from(19_999f32 * 0.01));
}
