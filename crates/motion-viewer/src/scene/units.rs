//! The one place where each format's axes and units become the stage's world.
//!
//! The world is the renderer's (see `gpu::camera`): metres,
//! right-handed, y up.
//!
//! - AIBO rigs ([`crate::anim::aibo`]) are millimetres with x forward, y left,
//!   z up. The dog faces world +x, so the default three-quarter camera (from
//!   +z, turned toward +x) sees it in profile: x → x, z → y, and, to stay
//!   right-handed, y (left) → −z.
//! - MRTK recordings are Unity's: metres, y up, **left-handed** (x right,
//!   z forward). Mirroring z makes them right-handed: the wearer then looks
//!   along world −z, as an OpenGL camera does. Heights are kept, so Unity's
//!   floor (y = 0) is the stage's ground.
//! - MEMG `.obj` scenes are already y-up and right-handed; they keep their
//!   own units and need no conversion.

use glam::{DMat3, DQuat, DVec3, Mat3, Quat, Vec3};

/// Millimetres per metre.
pub(crate) const MM_PER_M: f64 = 1000.0;

/// AIBO axes → world axes, as columns: where the AIBO x, y and z axes point.
const AIBO_AXES: DMat3 = DMat3::from_cols(
    DVec3::new(1.0, 0.0, 0.0),
    DVec3::new(0.0, 0.0, -1.0),
    DVec3::new(0.0, 1.0, 0.0),
);

/// A point of an AIBO rig (mm, x forward, y left, z up) in world metres.
pub(crate) fn aibo_point(p: [f64; 3]) -> Vec3 {
    (AIBO_AXES * DVec3::from_array(p) / MM_PER_M).as_vec3()
}

/// An AIBO box (centre and half extents in millimetres, in a frame turned by
/// `rotation` with origin `origin`, all AIBO axes) as a world linear map of
/// the unit cube (−½..½) and its world centre, in metres.
pub(crate) fn aibo_box(
    origin: [f64; 3],
    rotation: [[f64; 3]; 3],
    centre: [f64; 3],
    half_extents: [f64; 3],
) -> (Mat3, Vec3) {
    let r = DMat3::from_cols_array_2d(&rotation);
    let world_centre = DVec3::from_array(origin) + r * DVec3::from_array(centre);
    // The unit cube is 1 wide, the box 2 × half extent.
    let scale = DMat3::from_diagonal(DVec3::from_array(half_extents) * 2.0 / MM_PER_M);
    let linear = AIBO_AXES * r * scale;
    (linear.as_mat3(), aibo_point(world_centre.to_array()))
}

/// A Unity position or direction (left-handed, y up) in world axes.
pub(crate) fn unity_point(p: [f32; 3]) -> Vec3 {
    Vec3::new(p[0], p[1], -p[2])
}

/// A Unity rotation quaternion (x, y, z, w) in world axes. Mirroring z maps
/// the rotation `R` to `M R M`; its axis is a pseudo-vector, so the axis
/// becomes `−M a` = (−x, −y, z) while the angle is kept.
pub(crate) fn unity_rotation(q: [f32; 4]) -> Quat {
    Quat::from_xyzw(-q[0], -q[1], q[2], q[3])
}

/// An AIBO rotation (a frame's axes as columns, in AIBO axes) as the same
/// turn in world axes: `A · R · Aᵀ` with `A` the axes' change.
pub(crate) fn aibo_rotation(r: [[f64; 3]; 3]) -> DQuat {
    DQuat::from_mat3(&(AIBO_AXES * DMat3::from_cols_array_2d(&r) * AIBO_AXES.transpose()))
}

/// The rotation that takes AIBO axes to world axes (a box drawn in AIBO
/// axes inside a frame already turned into world axes needs it).
pub(crate) fn aibo_axes() -> DQuat {
    DQuat::from_mat3(&AIBO_AXES)
}

#[cfg(test)]
mod tests {
    //! Each format's axes and units in the world's, against conversions by hand.

    use super::{aibo_point, unity_point, unity_rotation};
    use glam::{Quat, Vec3};

    #[track_caller]
    fn assert_near(actual: Vec3, expected: Vec3, tolerance: f32) {
        assert!(
            (actual - expected).abs().max_element() <= tolerance,
            "{actual} != {expected}"
        );
    }

    #[test]
    fn aibo_millimetres_become_metres_with_z_up_as_y_and_left_as_minus_z() {
        // 100 mm forward, 20 mm left, 50 mm down.
        assert_near(
            aibo_point([100.0, 20.0, -50.0]),
            Vec3::new(0.1, -0.05, -0.02),
            1e-7,
        );
    }

    #[test]
    fn aibo_axes_stay_right_handed() {
        // forward × left = up in the AIBO frame; the images must obey it too.
        let x = aibo_point([1000.0, 0.0, 0.0]);
        let y = aibo_point([0.0, 1000.0, 0.0]);
        let z = aibo_point([0.0, 0.0, 1000.0]);
        assert_near(x.cross(y), z, 1e-6);
        assert_near(z, Vec3::Y, 1e-6);
    }

    #[test]
    fn unity_points_mirror_z() {
        assert_near(unity_point([1.0, 2.0, 3.0]), Vec3::new(1.0, 2.0, -3.0), 0.0);
    }

    #[test]
    fn unity_rotations_turn_the_mirrored_vectors_alike() {
        // Unity: Quaternion.Euler(0, 90, 0) * Vector3.forward == Vector3.right.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let yaw90 = [0.0, h, 0.0, h];
        assert_near(
            unity_rotation(yaw90) * unity_point([0.0, 0.0, 1.0]),
            unity_point([1.0, 0.0, 0.0]),
            1e-6,
        );
        // In general: rotate then mirror equals mirror then rotate the converted way.
        let q = Quat::from_xyzw(0.3, -0.5, 0.2, 0.78).normalize();
        let v = [0.4, -1.2, 2.5];
        let rotated_in_unity = (q * Vec3::from(v)).to_array();
        assert_near(
            unity_rotation(q.to_array()) * unity_point(v),
            unity_point(rotated_in_unity),
            1e-5,
        );
    }
}
