//! A MEMG motion between its timesteps: the one rule every path samples by.
//!
//! At `s` timesteps (a time in seconds × fps, `clock::frames`),
//! clamped to `0..=n−1`, with `t0 = ⌊s⌋`, `t1 = min(t0 + 1, n − 1)` and
//! `w = s − t0`:
//!
//! - each group's coefficients blend linearly, `q = q[t0] + w·(q[t1] − q[t0])`
//!   (the reduced shape is linear in `q`, so this is exact interpolation in
//!   the basis);
//! - each local frame interpolates as glTF interpolates a node: both
//!   frames split into translation, rotation and scale
//!   (`anim::rigid::decompose`), translation and scale blend
//!   linearly and the rotation turns along the shorter arc (slerp). A frame
//!   that is not a rotation times a positive scale (a shear, a mirror)
//!   blends element by element instead.
//!
//! So the window, `render`, `export --time` (JSON, OBJ), the tables, the
//! curves, the bags, the caches and USD stages sampled between timesteps,
//! and a glTF reader playing the reduced `.glb`, all show the same shape.
//! On a timestep (`w = 0`) every value is the file's own, bit for bit.

use super::{MemgGroup, MemgMotion};
use crate::anim::clock;
use crate::anim::rigid::decompose;
use glam::{DMat3, DVec3};

/// Where a time falls between a MEMG motion's timesteps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Between {
    /// The timestep at or before the time.
    pub t0: usize,
    /// The timestep after it (`t0` at the last one).
    pub t1: usize,
    /// How far from `t0` towards `t1`, in `[0, 1)`.
    pub w: f64,
}

impl Between {
    /// The place of `steps` (a time counted in timesteps, snapped within
    /// `clock::SLACK` of a whole one), clamped to the motion's timesteps;
    /// `None` when it has none. NaN counts as 0.
    pub(crate) fn at_steps(motion: &MemgMotion, steps: f64) -> Option<Between> {
        let last = motion.timesteps.checked_sub(1)?;
        let s = clock::snap(steps);
        let s = if s.is_nan() {
            0.0
        } else {
            s.clamp(0.0, last as f64)
        };
        let t0 = s.floor() as usize;
        Some(Between {
            t0,
            t1: (t0 + 1).min(last),
            w: s - t0 as f64,
        })
    }

    /// Timestep `t` itself.
    pub fn on(t: usize) -> Between {
        Between {
            t0: t,
            t1: t,
            w: 0.0,
        }
    }

    /// The place of `seconds` at the motion's frame rate.
    pub fn at_time(motion: &MemgMotion, seconds: f64) -> Option<Between> {
        Between::at_steps(motion, steps_at(motion, seconds))
    }

    /// The time in timesteps this place stands for.
    pub(crate) fn steps(&self) -> f64 {
        self.t0 as f64 + self.w
    }

    /// Group `g`'s coefficient `j` here, in `f64`; NaN where the file has
    /// no such coefficient (a [`super::Binding`] refuses such a motion first).
    pub(crate) fn coefficient(&self, g: &MemgGroup, j: usize) -> f64 {
        let r = g.basis_len;
        let q = |t: usize| g.coeffs.get(t * r + j).map_or(f64::NAN, |&v| f64::from(v));
        let a = q(self.t0);
        if self.w == 0.0 {
            return a;
        }
        a + (q(self.t1) - a) * self.w
    }

    /// The row-major 3×4 transform a group with parent `parent` takes here:
    /// its local frame's, or the identity for a group in world space.
    pub(crate) fn transform(&self, motion: &MemgMotion, parent: i32) -> [f64; 12] {
        const IDENTITY: [f64; 12] = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.];
        self.frame(motion, parent).unwrap_or(IDENTITY)
    }

    /// The row-major 3×4 transform of local frame `parent` here, `None` for
    /// a parent outside the motion's local frames (world space).
    pub fn frame(&self, motion: &MemgMotion, parent: i32) -> Option<[f64; 12]> {
        let a = *motion.frame(self.t0, parent)?;
        if self.w == 0.0 || self.t0 == self.t1 {
            return Some(a);
        }
        let b = *motion.frame(self.t1, parent)?;
        Some(interpolate(&a, &b, self.w))
    }
}

/// A time in seconds counted in timesteps of `motion`: seconds × fps (an
/// fps below 1 counts as 1), `clock::snap`ped. Every path that has a time
/// in seconds and deforms a MEMG scene passes this to the deformer.
pub fn steps_at(motion: &MemgMotion, seconds: f64) -> f64 {
    clock::at_rate(seconds, f64::from(motion.fps.max(1)))
}

/// `a` and `b` blended by `w` as glTF blends a node's transform (see the
/// module docs); element by element where either is not rigid.
fn interpolate(a: &[f64; 12], b: &[f64; 12], w: f64) -> [f64; 12] {
    let (Ok(ta), Ok(tb)) = (decompose(a), decompose(b)) else {
        return std::array::from_fn(|i| a[i] + (b[i] - a[i]) * w);
    };
    let translation = ta.translation.lerp(tb.translation, w);
    let scale = ta.scale.lerp(tb.scale, w);
    // glam's slerp takes the shorter arc, as glTF readers do.
    let rotation = ta.rotation.slerp(tb.rotation, w);
    let m = DMat3::from_quat(rotation) * DMat3::from_diagonal(scale);
    let DVec3 {
        x: tx,
        y: ty,
        z: tz,
    } = translation;
    [
        m.x_axis.x, m.y_axis.x, m.z_axis.x, tx, //
        m.x_axis.y, m.y_axis.y, m.z_axis.y, ty, //
        m.x_axis.z, m.y_axis.z, m.z_axis.z, tz,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    fn rows(q: DQuat, s: DVec3, t: DVec3) -> [f64; 12] {
        let m = DMat3::from_quat(q) * DMat3::from_diagonal(s);
        [
            m.x_axis.x, m.y_axis.x, m.z_axis.x, t.x, m.x_axis.y, m.y_axis.y, m.z_axis.y, t.y,
            m.x_axis.z, m.y_axis.z, m.z_axis.z, t.z,
        ]
    }

    fn motion(frames: Vec<[f64; 12]>, coeffs: Vec<f32>) -> MemgMotion {
        let timesteps = frames.len();
        MemgMotion {
            fps: 30,
            local_frames: 1,
            timesteps,
            frames,
            groups: vec![MemgGroup {
                name: "g".into(),
                parent: 0,
                basis_len: 1,
                coeffs,
                ..MemgGroup::default()
            }],
            ..MemgMotion::default()
        }
    }

    #[test]
    fn a_time_between_timesteps_blends_both() {
        let a = rows(DQuat::IDENTITY, DVec3::ONE, DVec3::ZERO);
        let b = rows(
            DQuat::from_rotation_z(1.0),
            DVec3::new(2.0, 2.0, 2.0),
            DVec3::new(3.0, 0.0, 0.0),
        );
        let m = motion(vec![a, b], vec![1.0, 5.0]);
        // 2/7 s at 30 fps is 60/7 timesteps: past the end here, clamped to 1.
        assert_eq!(Between::at_time(&m, 2.0 / 7.0).unwrap().steps(), 1.0);
        let at = Between::at_time(&m, 0.25 / 30.0).unwrap();
        assert_eq!((at.t0, at.t1), (0, 1));
        assert!((at.w - 0.25).abs() < 1e-12);
        assert!((at.coefficient(&m.groups[0], 0) - 2.0).abs() < 1e-12);
        // The frame: a quarter of the turn, scale 1.25, x translation 0.75,
        // from independent f64 arithmetic.
        let f = at.frame(&m, 0).unwrap();
        let (c, s) = (0.25f64.cos() * 1.25, 0.25f64.sin() * 1.25);
        let want = [c, -s, 0.0, 0.75, s, c, 0.0, 0.0, 0.0, 0.0, 1.25, 0.0];
        for (got, want) in f.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{f:?}");
        }
        assert_eq!(
            at.frame(&m, 1),
            None,
            "a parent outside the frames is world space"
        );
    }

    #[test]
    fn on_a_timestep_the_values_are_the_files() {
        let a = rows(DQuat::from_rotation_x(0.3), DVec3::ONE, DVec3::X);
        let b = rows(DQuat::from_rotation_x(0.6), DVec3::ONE, DVec3::Y);
        let m = motion(vec![a, b, a], vec![1.5, -2.5, 7.0]);
        // 1/30 s computed as 1.0 / 30.0 and read back as timestep 1 exactly.
        let at = Between::at_time(&m, 1.0 / 30.0).unwrap();
        assert_eq!((at.t0, at.w), (1, 0.0));
        assert_eq!(at.frame(&m, 0), Some(b));
        assert_eq!(at.coefficient(&m.groups[0], 0), -2.5);
        let end = Between::at_steps(&m, 99.0).unwrap();
        assert_eq!((end.t0, end.t1, end.w), (2, 2, 0.0));
        assert_eq!(Between::at_steps(&m, f64::NAN).unwrap().t0, 0);
        assert_eq!(Between::at_steps(&motion(vec![], vec![]), 0.0), None);
    }

    #[test]
    fn rotations_take_the_shorter_arc_and_shears_blend_elementwise() {
        let a = rows(DQuat::from_rotation_y(0.1), DVec3::ONE, DVec3::ZERO);
        // The same rotation as 0.3 rad, written as its negated quaternion's matrix
        // (a matrix has one rotation): halfway is 0.2 rad.
        let b = rows(DQuat::from_rotation_y(0.3), DVec3::ONE, DVec3::ZERO);
        let half = interpolate(&a, &b, 0.5);
        let want = rows(DQuat::from_rotation_y(0.2), DVec3::ONE, DVec3::ZERO);
        for (got, want) in half.iter().zip(want) {
            assert!((got - want).abs() < 1e-12);
        }
        let mut shear = rows(DQuat::IDENTITY, DVec3::ONE, DVec3::ZERO);
        shear[1] = 0.5;
        let mixed = interpolate(&a, &shear, 0.5);
        for i in 0..12 {
            assert_eq!(mixed[i], a[i] + (shear[i] - a[i]) * 0.5);
        }
    }
}
