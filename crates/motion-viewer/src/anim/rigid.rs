//! A 3×4 affine frame as translation, rotation and scale (glTF's node
//! transform), when it is one: how a MEMG frame is written to glTF and how
//! it is interpolated between timesteps ([`super::memg::Between`]).

use glam::{DMat3, DQuat, DVec3};

/// The largest deviation from orthonormal (a cosine between two scaled-out
/// axes, or a length off 1) a frame may have and still count as a rotation
/// times a positive scale.
pub const RIGID_TOLERANCE: f64 = 1e-6;

/// A transform `T · R · S` as glTF composes a node's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trs {
    /// Translation.
    pub translation: DVec3,
    /// Unit rotation.
    pub rotation: DQuat,
    /// Scale along each axis before the rotation, all positive.
    pub scale: DVec3,
}

/// How a transform falls short of a rotation times a positive scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NotRigid {
    /// A value is NaN or infinite.
    NotFinite,
    /// An axis has length zero.
    Collapsed,
    /// Its axes are this far (a cosine) from perpendicular, beyond [`RIGID_TOLERANCE`].
    Shear(f64),
    /// It turns space inside out.
    Mirror,
}

impl std::fmt::Display for NotRigid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotRigid::NotFinite => write!(f, "has a value that is not a finite number"),
            NotRigid::Collapsed => write!(f, "collapses an axis to zero"),
            NotRigid::Shear(cos) => write!(
                f,
                "shears (its axes are {cos:.2e} from perpendicular, beyond {RIGID_TOLERANCE:e})"
            ),
            NotRigid::Mirror => write!(f, "mirrors (its determinant is negative)"),
        }
    }
}

/// Splits a row-major 3×4 affine transform `[M | t]` into `t`, `R` and `S`
/// with `M = R · S`, or says how it falls short.
pub fn decompose(m: &[f64; 12]) -> Result<Trs, NotRigid> {
    if m.iter().any(|x| !x.is_finite()) {
        return Err(NotRigid::NotFinite);
    }
    let linear = DMat3::from_cols(
        DVec3::new(m[0], m[4], m[8]),
        DVec3::new(m[1], m[5], m[9]),
        DVec3::new(m[2], m[6], m[10]),
    );
    let scale = DVec3::new(
        linear.x_axis.length(),
        linear.y_axis.length(),
        linear.z_axis.length(),
    );
    if scale.min_element() <= 0.0 {
        return Err(NotRigid::Collapsed);
    }
    let rotation = DMat3::from_cols(
        linear.x_axis / scale.x,
        linear.y_axis / scale.y,
        linear.z_axis / scale.z,
    );
    let gram = rotation.transpose() * rotation - DMat3::IDENTITY;
    let shear = gram
        .to_cols_array()
        .iter()
        .fold(0f64, |a, x| a.max(x.abs()));
    if shear > RIGID_TOLERANCE {
        return Err(NotRigid::Shear(shear));
    }
    if rotation.determinant() <= 0.0 {
        return Err(NotRigid::Mirror);
    }
    Ok(Trs {
        translation: DVec3::new(m[3], m[7], m[11]),
        rotation: DQuat::from_mat3(&rotation).normalize(),
        scale,
    })
}

/// `q` or `−q`, whichever lies on the side of `previous`: the same rotation,
/// but a renderer that blends quaternion components (Blender does) then
/// turns the short way between keys.
pub fn continuous(q: DQuat, previous: Option<DQuat>) -> DQuat {
    match previous {
        Some(p) if p.dot(q) < 0.0 => -q,
        _ => q,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(m: DMat3, t: DVec3) -> [f64; 12] {
        let r = m.transpose().to_cols_array();
        [
            r[0], r[1], r[2], t.x, r[3], r[4], r[5], t.y, r[6], r[7], r[8], t.z,
        ]
    }

    #[test]
    fn rotation_and_scale_come_apart() {
        let q = DQuat::from_euler(glam::EulerRot::ZYX, 0.3, -1.1, 2.0);
        let s = DVec3::new(2.0, 0.5, 1.0);
        let m = DMat3::from_quat(q) * DMat3::from_diagonal(s);
        let trs = decompose(&rows(m, DVec3::new(1.0, 2.0, 3.0))).unwrap();
        assert!((trs.scale - s).abs().max_element() < 1e-12);
        assert!(trs.rotation.dot(q).abs() > 1.0 - 1e-12);
        assert_eq!(trs.translation, DVec3::new(1.0, 2.0, 3.0));
    }

    #[test]
    fn shear_mirror_and_collapse_are_refused() {
        let shear = DMat3::from_cols(DVec3::X, DVec3::new(1e-3, 1.0, 0.0), DVec3::Z);
        let Err(NotRigid::Shear(cos)) = decompose(&rows(shear, DVec3::ZERO)) else {
            panic!("a shear passed");
        };
        assert!((cos - 1e-3).abs() < 1e-6, "{cos}");
        let mirror = DMat3::from_diagonal(DVec3::new(1.0, 1.0, -1.0));
        assert_eq!(decompose(&rows(mirror, DVec3::ZERO)), Err(NotRigid::Mirror));
        let flat = DMat3::from_diagonal(DVec3::new(1.0, 0.0, 1.0));
        assert_eq!(
            decompose(&rows(flat, DVec3::ZERO)),
            Err(NotRigid::Collapsed)
        );
        let mut nan = rows(DMat3::IDENTITY, DVec3::ZERO);
        nan[3] = f64::NAN;
        assert_eq!(decompose(&nan), Err(NotRigid::NotFinite));
    }

    #[test]
    fn quaternions_stay_on_one_side() {
        let q = DQuat::from_rotation_y(0.1);
        assert_eq!(continuous(-q, Some(q)), q);
        assert_eq!(continuous(q, None), q);
    }
}
