//! `AnimationCurve.Evaluate` against closed forms.

use motion_viewer::anim::curve::{evaluate, evaluate_bool, is_linear, segment};
use motion_viewer::formats::input_animation::{
    BoolCurve, BoolKey, Curve, Key, WeightedMode, WrapMode,
};

fn key(time: f32, value: f32, in_tangent: f32, out_tangent: f32) -> Key {
    Key {
        time,
        value,
        in_tangent,
        out_tangent,
        ..Key::default()
    }
}

fn curve(keys: Vec<Key>) -> Curve {
    Curve {
        keys,
        ..Curve::default()
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

#[test]
fn empty_is_zero_and_one_key_is_constant() {
    assert_eq!(evaluate(&Curve::default(), 1.0), 0.0);
    let mut c = curve(vec![key(2.0, 7.5, 3.0, 3.0)]);
    c.pre_wrap = WrapMode::Loop;
    c.post_wrap = WrapMode::PingPong;
    for t in [-10.0, 0.0, 2.0, 3.0, 1e9] {
        assert_eq!(evaluate(&c, t), 7.5);
    }
}

#[test]
fn hermite_reproduces_cubics() {
    // y = (t − 2)³ on [2, 4]: y(2) = 0, y'(2) = 0, y(4) = 8, y'(4) = 12.
    let c = curve(vec![key(2.0, 0.0, 0.0, 0.0), key(4.0, 8.0, 12.0, 0.0)]);
    // y = t³ − t on [−1, 2]: y' = 3t² − 1 → 2 at −1, 11 at 2.
    let d = curve(vec![key(-1.0, 0.0, 0.0, 2.0), key(2.0, 6.0, 11.0, 0.0)]);
    for i in 0..=40 {
        let t = 2.0 + 2.0 * i as f64 / 40.0;
        assert!(close(evaluate(&c, t), (t - 2.0).powi(3), 1e-12), "t = {t}");
        let t = -1.0 + 3.0 * i as f64 / 40.0;
        assert!(close(evaluate(&d, t), t * t * t - t, 1e-12), "t = {t}");
    }
}

#[test]
fn straight_line_with_matching_tangents() {
    let c = curve(vec![key(0.0, 1.0, 1.0, 1.0), key(2.0, 3.0, 1.0, 1.0)]);
    for i in 0..=20 {
        let t = i as f64 / 10.0;
        assert!(close(evaluate(&c, t), 1.0 + t, 1e-12));
    }
}

fn weighted(k: Key, mode: WeightedMode, in_w: f32, out_w: f32) -> Key {
    Key {
        weighted_mode: mode,
        in_weight: in_w,
        out_weight: out_w,
        ..k
    }
}

#[test]
fn weights_of_one_third_are_hermite() {
    let third = 1.0 / 3.0;
    let c = curve(vec![
        weighted(key(-1.0, 0.0, 0.0, 2.0), WeightedMode::Both, third, third),
        weighted(key(2.0, 6.0, 11.0, 0.0), WeightedMode::Both, third, third),
    ]);
    // Only one side weighted: the other side defaults to 1/3.
    let d = curve(vec![
        weighted(key(-1.0, 0.0, 0.0, 2.0), WeightedMode::Out, 0.9, third),
        key(2.0, 6.0, 11.0, 0.0),
    ]);
    for i in 0..=30 {
        let t = -1.0 + 3.0 * i as f64 / 30.0;
        // 1/3 as an f32 is off by 1e-8, which the tolerance allows for.
        assert!(close(evaluate(&c, t), t * t * t - t, 1e-6), "t = {t}");
        assert!(close(evaluate(&d, t), t * t * t - t, 1e-6), "t = {t}");
    }
}

#[test]
fn weighted_segment_follows_its_bezier() {
    // Segment [1, 3], values 2 → 5, slopes 4 and −1, weights 0.7 (out) and 0.2 (in).
    let (t0, dt, v0, v1, m0, m1) = (1.0, 2.0, 2.0, 5.0, 4.0, -1.0);
    // The weights as the f32 fields hold them.
    let (w1, w2) = (f64::from(0.7f32), f64::from(0.2f32));
    let c = curve(vec![
        weighted(key(1.0, 2.0, 0.0, 4.0), WeightedMode::Out, 0.0, 0.7),
        weighted(key(3.0, 5.0, -1.0, 0.0), WeightedMode::In, 0.2, 0.0),
    ]);
    let bern = |p: [f64; 4], u: f64| {
        let v = 1.0 - u;
        v * v * v * p[0] + 3.0 * v * v * u * p[1] + 3.0 * v * u * u * p[2] + u * u * u * p[3]
    };
    for i in 0..=20 {
        let u = i as f64 / 20.0;
        let x = bern([0.0, w1, 1.0 - w2, 1.0], u);
        let y = bern([v0, v0 + w1 * dt * m0, v1 - w2 * dt * m1, v1], u);
        assert!(close(evaluate(&c, t0 + x * dt), y, 1e-9), "u = {u}");
    }
}

#[test]
fn version_1_1_keys_are_exactly_linear() {
    let c = curve(vec![
        Key::linear(0.0, 1.0),
        Key::linear(0.5, -3.0),
        Key::linear(2.0, 9.0),
    ]);
    for i in 0..=200 {
        let t = i as f64 / 100.0;
        let want = if t <= 0.5 {
            1.0 - 8.0 * t
        } else {
            -3.0 + 8.0 * (t - 0.5)
        };
        assert!((evaluate(&c, t) - want).abs() < 1e-9, "t = {t}");
    }
}

#[test]
fn infinite_tangent_steps() {
    let c = curve(vec![
        key(0.0, 1.0, 0.0, f32::INFINITY),
        key(1.0, 5.0, 0.0, 0.0),
    ]);
    let d = curve(vec![
        key(0.0, 1.0, 0.0, 0.0),
        key(1.0, 5.0, f32::NEG_INFINITY, 0.0),
    ]);
    for t in [0.0, 0.3, 0.999] {
        assert_eq!(evaluate(&c, t), 1.0);
        assert_eq!(evaluate(&d, t), 1.0);
    }
    assert_eq!(evaluate(&c, 1.0), 5.0);
}

#[test]
fn key_times_take_the_key_value() {
    let c = curve(vec![
        key(0.0, 1.0, 0.0, 100.0),
        key(1.0, -2.0, -50.0, 7.0),
        key(3.0, 4.0, 9.0, 0.0),
    ]);
    for (t, v) in [(0.0, 1.0), (1.0, -2.0), (3.0, 4.0)] {
        assert_eq!(evaluate(&c, t), v);
    }
}

/// y = t on [0, 1] with the given wrap modes.
fn ramp(pre: WrapMode, post: WrapMode) -> Curve {
    Curve {
        pre_wrap: pre,
        post_wrap: post,
        keys: vec![key(0.0, 0.0, 1.0, 1.0), key(1.0, 1.0, 1.0, 1.0)],
    }
}

#[test]
fn wrap_modes() {
    for m in [
        WrapMode::Default,
        WrapMode::Once,
        WrapMode::ClampForever,
        WrapMode::Other(3),
    ] {
        let c = ramp(m, m);
        assert_eq!(evaluate(&c, -3.0), 0.0);
        assert_eq!(evaluate(&c, 5.0), 1.0);
    }
    let l = ramp(WrapMode::Loop, WrapMode::Loop);
    for (t, v) in [(2.25, 0.25), (-0.25, 0.75), (7.5, 0.5), (-3.75, 0.25)] {
        assert!(close(evaluate(&l, t), v, 1e-12), "loop at {t}");
    }
    let p = ramp(WrapMode::PingPong, WrapMode::PingPong);
    for (t, v) in [
        (1.25, 0.75),
        (2.25, 0.25),
        (-0.25, 0.25),
        (-1.5, 0.5),
        (3.0, 1.0),
    ] {
        assert!(close(evaluate(&p, t), v, 1e-12), "ping-pong at {t}");
    }
    // Pre and post are independent.
    let mixed = ramp(WrapMode::Once, WrapMode::Loop);
    assert_eq!(evaluate(&mixed, -0.5), 0.0);
    assert!(close(evaluate(&mixed, 1.5), 0.5, 1e-12));
}

#[test]
fn non_finite_times_do_not_hang() {
    let l = ramp(WrapMode::Loop, WrapMode::PingPong);
    for t in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300] {
        let v = evaluate(&l, t);
        assert!((0.0..=1.0).contains(&v), "{t} → {v}");
    }
}

#[test]
fn bool_curves_step_above_one_half() {
    let c = BoolCurve {
        keys: [(0.0, 0.0), (1.0, 0.6), (2.0, 0.5), (3.0, 0.51)]
            .map(|(time, value)| BoolKey { time, value })
            .to_vec(),
        ..BoolCurve::default()
    };
    for (t, on) in [
        (-1.0, false),
        (0.0, false),
        (0.999, false),
        (1.0, true),
        (1.5, true),
        (2.0, false),
        (2.9, false),
        (3.0, true),
        (10.0, true),
    ] {
        assert_eq!(evaluate_bool(&c, t), on, "t = {t}");
    }
    assert!(!evaluate_bool(&BoolCurve::default(), 0.0));
}

#[test]
fn version_1_1_segments_are_an_exact_lerp() {
    // The fast path: the same expression as a lerp, bit for bit, not just close.
    let (a, b) = (Key::linear(0.25, -1.5), Key::linear(1.75, 4.0));
    assert!(is_linear(&a, &b));
    let (t0, t1) = (f64::from(a.time), f64::from(b.time));
    let (v0, v1) = (f64::from(a.value), f64::from(b.value));
    for i in 0..=300 {
        let t = 0.25 + i as f64 * 0.005;
        let s = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
        assert_eq!(segment(&a, &b, t), v0 + (v1 - v0) * s, "t = {t}");
    }
    // Weights clamp into [0, 1]: a negative weight is a zero weight.
    let neg = weighted(Key::linear(0.25, -1.5), WeightedMode::Both, -0.5, -2.0);
    assert!(is_linear(&neg, &b));
}

#[test]
fn the_linear_fast_path_needs_zero_tangents_and_zero_weights_on_both_sides() {
    let lin = Key::linear;
    // Zero weights but a non-zero tangent on either side: the general solve.
    let tangent_out = Key {
        out_tangent: 2.0,
        ..lin(0.0, 1.0)
    };
    let tangent_in = Key {
        in_tangent: -3.0,
        ..lin(1.0, 5.0)
    };
    assert!(!is_linear(&tangent_out, &lin(1.0, 5.0)));
    assert!(!is_linear(&lin(0.0, 1.0), &tangent_in));
    // A NaN tangent is not zero.
    let nan = Key {
        out_tangent: f32::NAN,
        ..lin(0.0, 1.0)
    };
    assert!(!is_linear(&nan, &lin(1.0, 5.0)));
    // With zero weights the tangents drop out of the Bezier (its controls are
    // v0, v0, v1, v1 whatever they are), so the solve still gives the line.
    for i in 0..=20 {
        let t = i as f64 / 20.0;
        let want = 1.0 + 4.0 * t;
        assert!(close(segment(&tangent_out, &lin(1.0, 5.0), t), want, 1e-12));
        assert!(close(segment(&lin(0.0, 1.0), &tangent_in, t), want, 1e-12));
    }

    // A non-zero weight on one side: not linear, and evaluates as its Bezier.
    let in_weighted = weighted(lin(1.0, 5.0), WeightedMode::Both, 0.5, 0.0);
    assert!(!is_linear(&lin(0.0, 1.0), &in_weighted));
    let mid = segment(&lin(0.0, 1.0), &in_weighted, 0.5);
    assert!((mid - 3.0).abs() > 1e-3, "{mid}");
    // An unweighted side counts as weight 1/3: zero tangents there make a
    // Hermite ease, not a line.
    let unweighted = Key {
        weighted_mode: WeightedMode::In,
        ..lin(0.0, 1.0)
    };
    assert!(!is_linear(&unweighted, &lin(1.0, 5.0)));
    assert!(!is_linear(
        &key(0.0, 1.0, 0.0, 0.0),
        &key(1.0, 5.0, 0.0, 0.0)
    ));
    let eased = segment(&key(0.0, 1.0, 0.0, 0.0), &key(1.0, 5.0, 0.0, 0.0), 0.25);
    assert!((eased - 2.0).abs() > 1e-3, "{eased}");
}
