//! Fewer keys for a quantized group (`--quantize=E`): the timesteps a
//! reader's LINEAR interpolation needs for every vertex to stay within
//! what is left of `E`, the rest dropped.
//!
//! Between keys `a` and `b` a reader blends the weights linearly and the
//! frame's translation and scale too, and its rotation by slerp (glTF 2.0,
//! three.js) or per component, normalized (Blender's keyframes). At each
//! timestep `t` between, a vertex of the group is then off the motion's
//! own position by at most
//!
//! `‖Δt‖ + ‖ΔM‖_F·ρ(t) + s·Σ_j |Δw_j|·m_j`
//!
//! with `Δt` the translation's error, `ΔM` the rotation-and-scale matrix's
//! (the larger of the two readers'), `ρ(t)` the largest distance of a
//! vertex from the frame's origin, `s` the largest scale, and `m_j` the
//! largest length of target `j`: each term bounds what it moves a vertex
//! (the triangle inequality), so the sum bounds the whole. A timestep's
//! own error from quantizing adds to it: between keys it is a blend of the
//! keys' own, so no larger than the largest (the caller's).

use glam::{DMat3, DQuat, DVec3};

use super::rounding;
use crate::anim::rigid::Trs;

/// Keys at most this many timesteps apart.
pub(super) const MAX_SPAN: usize = 64;

/// The timesteps of `n` kept as keys, the first and the last among them:
/// from each key, the furthest next one (at most [`MAX_SPAN`] on) whose
/// every timestep between has `error(a, b, t)` within `tolerance`. An
/// error is assumed to grow with its segment: the search stops at the
/// first segment that does not fit.
pub(super) fn reduce(
    n: usize,
    tolerance: f64,
    error: impl Fn(usize, usize, usize) -> f64,
) -> Vec<usize> {
    if n <= 2 || tolerance.is_nan() || tolerance <= 0.0 {
        return (0..n).collect();
    }
    let mut keys = vec![0];
    let mut a = 0;
    while a < n - 1 {
        let mut next = a + 1;
        for b in a + 2..=(a + MAX_SPAN).min(n - 1) {
            if (a + 1..b).all(|t| error(a, b, t) <= tolerance) {
                next = b;
            } else {
                break;
            }
        }
        keys.push(next);
        a = next;
    }
    keys
}

/// The largest error between the keys kept: `error(a, b, t)` at every
/// timestep `t` strictly between two consecutive keys `a`, `b`.
pub(super) fn worst(keys: &[usize], error: impl Fn(usize, usize, usize) -> f64) -> f64 {
    keys.windows(2)
        .flat_map(|k| (k[0] + 1..k[1]).map(move |t| (k[0], k[1], t)))
        .map(|(a, b, t)| error(a, b, t))
        .fold(0.0, f64::max)
}

/// How far the frame `trs[t]` read between keys `a` and `b` moves a vertex
/// at most `radius` from its origin: `‖Δt‖ + ‖ΔM‖_F·radius`, the larger of
/// slerp's and Blender's normalized blend; infinite where the two keys'
/// rotations are more than a half turn apart (the readers' blends differ).
pub(super) fn frame_error(trs: &[Trs], a: usize, b: usize, t: usize, radius: f64) -> f64 {
    let (ka, kb, exact) = (&trs[a], &trs[b], &trs[t]);
    if ka.rotation.dot(kb.rotation) <= 0.0 {
        return f64::INFINITY;
    }
    let u = (t - a) as f64 / (b - a) as f64;
    let translation = ka.translation.lerp(kb.translation, u);
    let scale = ka.scale.lerp(kb.scale, u);
    let matrix = |r: DQuat, s| DMat3::from_quat(r) * DMat3::from_diagonal(s);
    let want = matrix(exact.rotation, exact.scale);
    // glam's lerp blends per component and normalizes: Blender's keys.
    [
        ka.rotation.slerp(kb.rotation, u),
        ka.rotation.lerp(kb.rotation, u),
    ]
    .iter()
    .map(|&r| {
        (translation - exact.translation).length() + frobenius(matrix(r, scale) - want) * radius
    })
    .fold(0.0, f64::max)
}

/// The most storing `trs`' rotations as normalized `i16`
/// ([`rounding::rotation`]) moves a vertex at most `radius[t]` from the
/// frame's origin, at any timestep `t`: `‖ΔM‖_F·radius[t]`, `ΔM` the
/// rotation-and-scale matrix's change as the readers read the integers —
/// normalized (Blender; glTF's slerp), or as stored, a quaternion a little
/// off unit length making a matrix a little off a rotation (three.js
/// builds the node's matrix from it). Between two keys a reader blends two
/// such roundings, off by no more than the larger.
pub(super) fn rotation_rounding(trs: &[Trs], radius: &[f64]) -> f64 {
    trs.iter()
        .zip(radius)
        .map(|(x, &radius)| {
            let scale = DMat3::from_diagonal(x.scale);
            let want = DMat3::from_quat(x.rotation.normalize()) * scale;
            let stored = rounding::unrotation(rounding::rotation(x.rotation));
            [as_stored(stored), DMat3::from_quat(stored.normalize())]
                .iter()
                .map(|&m| frobenius(m * scale - want) * radius)
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

/// The matrix a quaternion makes by the unit quaternion's formula, taken
/// as it is (three.js's `Matrix4.compose`): `|q|²·R + (1 − |q|²)·I` for
/// `q` off unit length.
fn as_stored(q: DQuat) -> DMat3 {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let (xx, yy, zz) = (2.0 * x * x, 2.0 * y * y, 2.0 * z * z);
    let (xy, xz, yz) = (2.0 * x * y, 2.0 * x * z, 2.0 * y * z);
    let (wx, wy, wz) = (2.0 * w * x, 2.0 * w * y, 2.0 * w * z);
    DMat3::from_cols(
        DVec3::new(1.0 - yy - zz, xy + wz, xz - wy),
        DVec3::new(xy - wz, 1.0 - xx - zz, yz + wx),
        DVec3::new(xz + wy, yz - wx, 1.0 - xx - yy),
    )
}

/// A matrix's Frobenius norm.
fn frobenius(d: DMat3) -> f64 {
    (d.x_axis.length_squared() + d.y_axis.length_squared() + d.z_axis.length_squared()).sqrt()
}

/// How far blending the weights between keys `a` and `b` moves a vertex at
/// `t`: `Σ_j |Δw_j|·m_j`, `weight(t, j)` the exact weights and `m_j` the
/// largest length of target `j`.
pub(super) fn weights_error(
    a: usize,
    b: usize,
    t: usize,
    largest: &[f64],
    weight: impl Fn(usize, usize) -> f64,
) -> f64 {
    let u = (t - a) as f64 / (b - a) as f64;
    largest
        .iter()
        .enumerate()
        .map(|(j, m)| {
            let blended = weight(a, j) + (weight(b, j) - weight(a, j)) * u;
            (blended - weight(t, j)).abs() * m
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    #[test]
    fn a_straight_run_needs_only_its_ends_and_a_bend_its_corner() {
        // A weight rising linearly over 10 timesteps: exact between any keys.
        let ramp = |t: usize, _j: usize| t as f64 / 9.0;
        let keys = reduce(10, 1e-12, |a, b, t| weights_error(a, b, t, &[1.0], ramp));
        assert_eq!(keys, [0, 9]);
        // Up to 5, then down: the corner is kept, nothing else.
        let tent = |t: usize, _j: usize| 5.0 - (t as f64 - 5.0).abs();
        let keys = reduce(11, 1e-12, |a, b, t| weights_error(a, b, t, &[1.0], tent));
        assert_eq!(keys, [0, 5, 10]);
        // No tolerance: every timestep.
        let keys = reduce(11, 0.0, |a, b, t| weights_error(a, b, t, &[1.0], tent));
        assert_eq!(keys, (0..11).collect::<Vec<_>>());
        assert_eq!(
            worst(&[0, 5, 10], |a, b, t| weights_error(a, b, t, &[1.0], tent)),
            0.0
        );
    }

    #[test]
    fn keys_are_never_further_apart_than_the_span() {
        let still = |_t: usize, _j: usize| 0.5;
        let keys = reduce(200, 1.0, |a, b, t| weights_error(a, b, t, &[1.0], still));
        assert_eq!(keys, [0, 64, 128, 192, 199]);
    }

    #[test]
    fn a_turn_read_between_keys_is_off_by_its_chord() {
        // A quarter turn about z in 3 timesteps, 30° a step: between keys 0
        // and 2 a reader's slerp is exact at the middle, so only the
        // normalized blend (the same rotation here) and nothing else.
        let at = |deg: f64| Trs {
            translation: DVec3::ZERO,
            rotation: DQuat::from_rotation_z(deg.to_radians()),
            scale: DVec3::ONE,
        };
        let trs = [at(0.0), at(30.0), at(60.0)];
        assert!(frame_error(&trs, 0, 2, 1, 1.0) < 1e-12);
        // The middle timestep at 40°: 10° off, ‖ΔM‖_F = 2·√2·sin 5°.
        let bent = [at(0.0), at(40.0), at(60.0)];
        let want = 2.0 * 2f64.sqrt() * 5f64.to_radians().sin();
        assert!((frame_error(&bent, 0, 2, 1, 1.0) - want).abs() < 1e-12);
        // More than half a turn between keys: never blended.
        let far = [at(0.0), at(100.0), at(200.0)];
        assert_eq!(frame_error(&far, 0, 2, 1, 1.0), f64::INFINITY);
    }

    #[test]
    fn a_rotation_in_16_bits_is_off_by_its_rounding_as_either_reader_reads_it() {
        let at = |rotation: DQuat| Trs {
            translation: DVec3::ZERO,
            rotation,
            scale: DVec3::ONE,
        };
        // The identity and a half turn are stored exactly.
        let exact = [at(DQuat::IDENTITY), at(DQuat::from_rotation_x(PI))];
        assert!(rotation_rounding(&exact, &[10.0, 10.0]) < 1e-12);
        // 30° about z, vertices up to 2 from the origin: its half angle's
        // sine and cosine rounded to 32767ths. Read normalized, a turn by
        // θ' = 2·atan2(z', w'); read as stored, λ²·R(θ') + (1 − λ²)·I with
        // λ² = z'² + w'². Only the xy block differs from R(30°).
        let theta = 30f64.to_radians();
        let stored = |x: f64| (x * 32767.0).round() / 32767.0;
        let (z, w) = (stored((theta / 2.0).sin()), stored((theta / 2.0).cos()));
        let turned = 2.0 * z.atan2(w);
        let normalized = 2.0 * 2f64.sqrt() * ((turned - theta) / 2.0).sin().abs();
        let l2 = z * z + w * w;
        let block = [
            l2 * turned.cos() + 1.0 - l2 - theta.cos(),
            -l2 * turned.sin() + theta.sin(),
            l2 * turned.sin() - theta.sin(),
            l2 * turned.cos() + 1.0 - l2 - theta.cos(),
        ];
        let as_stored = block.iter().map(|d| d * d).sum::<f64>().sqrt();
        let want = 2.0 * normalized.max(as_stored);
        let got = rotation_rounding(&[at(DQuat::from_rotation_z(theta))], &[2.0]);
        assert!(want > 1e-6, "the rounding moves it: {want}");
        assert!(
            (got - want).abs() < 1e-12 * want.max(1.0),
            "{got} against {want}"
        );
    }
}
