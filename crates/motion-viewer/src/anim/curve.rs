//! Unity `AnimationCurve.Evaluate` for the curves of an MRTK input animation.
//!
//! A segment between keys `a` and `b` is a cubic Hermite with `a.out_tangent`
//! and `b.in_tangent` scaled by the segment length, or a weighted cubic Bezier
//! when `a` weighs its out side or `b` its in side. An infinite tangent on either
//! side makes the segment a step holding `a`'s value. Outside the key range the
//! pre/post wrap modes apply. Everything is computed in f64.

use crate::formats::input_animation::{BoolCurve, Curve, Key, WrapMode};

/// Weight Unity uses on a side that is not weighted; with 1/3 on both sides the
/// Bezier is exactly the Hermite segment.
const DEFAULT_WEIGHT: f64 = 1.0 / 3.0;

/// The curve's value at `t` seconds: 0 with no keys, the key's value with one.
pub fn evaluate(curve: &Curve, t: f64) -> f64 {
    let keys = &curve.keys;
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
        return 0.0;
    };
    let t = wrap_time(
        curve.pre_wrap,
        curve.post_wrap,
        first.time.into(),
        last.time.into(),
        t,
    );
    // The last key at or before t: at a key's own time the key's value holds.
    let i = keys.partition_point(|k| f64::from(k.time) <= t);
    if i == 0 {
        return first.value.into();
    }
    if i >= keys.len() {
        return last.value.into();
    }
    segment(&keys[i - 1], &keys[i], t)
}

/// A boolean curve at `t`: the value of the last key at or before `t` (the first
/// key's before it) is "on" when above 0.5; no keys is "off".
pub fn evaluate_bool(curve: &BoolCurve, t: f64) -> bool {
    let keys = &curve.keys;
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
        return false;
    };
    let t = wrap_time(
        curve.pre_wrap,
        curve.post_wrap,
        first.time.into(),
        last.time.into(),
        t,
    );
    let i = keys.partition_point(|k| f64::from(k.time) <= t);
    keys[i.saturating_sub(1)].value > 0.5
}

/// Maps `t` into `[first, last]` by the wrap mode of the side it falls on.
/// Once, clamp-forever, default and unknown modes clamp; loop repeats the range;
/// ping-pong runs it back and forth. A zero-length or non-finite range clamps.
pub(crate) fn wrap_time(pre: WrapMode, post: WrapMode, first: f64, last: f64, t: f64) -> f64 {
    if t.is_nan() {
        return first;
    }
    let mode = if t < first {
        pre
    } else if t > last {
        post
    } else {
        return t;
    };
    let len = last - first;
    if !(len > 0.0 && len.is_finite() && t.is_finite()) {
        return t.clamp(first, last);
    }
    match mode {
        WrapMode::Loop => (first + (t - first).rem_euclid(len)).min(last),
        WrapMode::PingPong => {
            let u = (t - first).rem_euclid(2.0 * len);
            first + if u <= len { u } else { 2.0 * len - u }
        }
        WrapMode::Default | WrapMode::Once | WrapMode::ClampForever | WrapMode::Other(_) => {
            t.clamp(first, last)
        }
    }
}

/// The segment from `a` to `b` at time `t` (between their times).
pub fn segment(a: &Key, b: &Key, t: f64) -> f64 {
    let (t0, t1) = (f64::from(a.time), f64::from(b.time));
    let (v0, v1) = (f64::from(a.value), f64::from(b.value));
    let dt = t1 - t0;
    let (m0, m1) = (f64::from(a.out_tangent), f64::from(b.in_tangent));
    if m0.is_infinite() || m1.is_infinite() || dt.is_nan() || dt <= 0.0 {
        return v0;
    }
    let s = ((t - t0) / dt).clamp(0.0, 1.0);
    if is_linear(a, b) {
        // x(u) = 3u² − 2u³ and y(u) = v0 + (v1 − v0)·x(u): y is linear in x = s,
        // exactly, so the solve is skipped.
        return v0 + (v1 - v0) * s;
    }
    if a.weighted_mode.has_out() || b.weighted_mode.has_in() {
        let w1 = if a.weighted_mode.has_out() {
            weight(a.out_weight)
        } else {
            DEFAULT_WEIGHT
        };
        let w2 = if b.weighted_mode.has_in() {
            weight(b.in_weight)
        } else {
            DEFAULT_WEIGHT
        };
        bezier(
            v0,
            v0 + w1 * dt * m0,
            v1 - w2 * dt * m1,
            v1,
            w1,
            1.0 - w2,
            s,
        )
    } else {
        hermite(v0, m0 * dt, m1 * dt, v1, s)
    }
}

/// Whether the segment from `a` to `b` is exactly a straight line, the case of
/// every version 1.1 key ([`Key::linear`]): both sides weighted, both weights
/// 0 (after the clamp into [0, 1]) and both tangents 0. The Bezier's controls
/// are then x: 0, 0, 1, 1 and y: v0, v0, v1, v1, so y = v0 + (v1 − v0)·x.
/// Zero weights with non-zero tangents are left to the general solve.
///
/// [`Key::linear`]: crate::formats::input_animation::Key::linear
pub fn is_linear(a: &Key, b: &Key) -> bool {
    a.weighted_mode.has_out()
        && b.weighted_mode.has_in()
        && a.out_tangent == 0.0
        && b.in_tangent == 0.0
        && weight(a.out_weight) == 0.0
        && weight(b.in_weight) == 0.0
}

/// Unity keeps weights in [0, 1], which keeps the Bezier's x monotone; a weight
/// that is not a number counts as unweighted.
fn weight(w: f32) -> f64 {
    if w.is_nan() {
        DEFAULT_WEIGHT
    } else {
        f64::from(w).clamp(0.0, 1.0)
    }
}

/// Cubic Hermite on s ∈ [0, 1] with end slopes already scaled by the segment length.
pub(crate) fn hermite(v0: f64, m0: f64, m1: f64, v1: f64, s: f64) -> f64 {
    let s2 = s * s;
    let s3 = s2 * s;
    (2.0 * s3 - 3.0 * s2 + 1.0) * v0
        + (s3 - 2.0 * s2 + s) * m0
        + (s3 - s2) * m1
        + (-2.0 * s3 + 3.0 * s2) * v1
}

/// A cubic Bernstein polynomial with control values `p`.
fn cubic(p: [f64; 4], u: f64) -> f64 {
    let v = 1.0 - u;
    v * v * v * p[0] + 3.0 * v * v * u * p[1] + 3.0 * v * u * u * p[2] + u * u * u * p[3]
}

/// The weighted segment: x control points 0, `x1`, `x2`, 1 (normalised time) and
/// y control points `y0..y3`; finds u with x(u) = s, returns y(u).
fn bezier(y0: f64, y1: f64, y2: f64, y3: f64, x1: f64, x2: f64, s: f64) -> f64 {
    let u = solve_monotone(|u| cubic([0.0, x1, x2, 1.0], u), x1, x2, s);
    cubic([y0, y1, y2, y3], u)
}

/// Solves x(u) = s on [0, 1] for a monotone cubic x with controls 0, x1, x2, 1:
/// Newton steps kept inside a shrinking bisection bracket, a bounded number of
/// times, so a flat derivative or a NaN cannot make it wander or loop.
fn solve_monotone(x: impl Fn(f64) -> f64, x1: f64, x2: f64, s: f64) -> f64 {
    let dx = |u: f64| {
        let v = 1.0 - u;
        3.0 * (v * v * x1 + 2.0 * v * u * (x2 - x1) + u * u * (1.0 - x2))
    };
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    let mut u = s;
    for _ in 0..100 {
        let err = x(u) - s;
        if err.abs() <= 1e-14 {
            return u;
        }
        if err > 0.0 {
            hi = u;
        } else if err < 0.0 {
            lo = u;
        } else {
            // NaN: nothing to refine.
            return u;
        }
        let newton = u - err / dx(u);
        u = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if hi - lo <= f64::EPSILON {
            return u;
        }
    }
    u
}

/// The time of the curve's last key, if it has keys.
pub(crate) fn last_time(curve: &Curve) -> Option<f64> {
    curve.keys.last().map(|k| k.time.into())
}

/// The time of the boolean curve's last key, if it has keys.
pub(crate) fn last_bool_time(curve: &BoolCurve) -> Option<f64> {
    curve.keys.last().map(|k| k.time.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::input_animation::WeightedMode;

    #[test]
    fn solver_inverts_a_flat_ended_cubic() {
        // Controls 0, 0, 1, 1: x = 3u² − 2u³ has zero slope at both ends.
        for i in 0..=100 {
            let s = i as f64 / 100.0;
            let u = solve_monotone(|u| cubic([0.0, 0.0, 1.0, 1.0], u), 0.0, 1.0, s);
            assert!(
                (cubic([0.0, 0.0, 1.0, 1.0], u) - s).abs() < 1e-12,
                "s = {s}"
            );
        }
    }

    #[test]
    fn solver_survives_nan() {
        let u = solve_monotone(|u| cubic([0.0, 0.3, 0.6, 1.0], u), 0.3, 0.6, f64::NAN);
        assert!(u.is_nan() || (0.0..=1.0).contains(&u));
    }

    #[test]
    fn nan_weights_count_as_unweighted() {
        let a = Key {
            time: 0.0,
            value: 0.0,
            out_tangent: 3.0,
            out_weight: f32::NAN,
            weighted_mode: WeightedMode::Out,
            ..Key::default()
        };
        let b = Key {
            time: 1.0,
            value: 1.0,
            ..Key::default()
        };
        let plain = Key {
            weighted_mode: WeightedMode::None,
            ..a
        };
        for s in [0.1, 0.5, 0.9] {
            assert!((segment(&a, &b, s) - segment(&plain, &b, s)).abs() < 1e-9);
        }
    }
}
