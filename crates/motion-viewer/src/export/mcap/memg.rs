//! A MEMG motion's local frames on `/tf`: `memg_frame_K` under `world` at
//! each sampled time (between timesteps by the one MEMG rule,
//! [`crate::anim::memg::Between`]), in the `.obj`'s own units and axes. The meshes themselves
//! go to glTF or USD. A frame whose 3×3 part is not a rotation (scaled or
//! sheared) is written with its nearest rotation, and said once.

use std::path::Path;

use glam::{DMat3, DQuat};

use super::{Bag, Namespace, Transform};
use crate::anim::memg::Between;
use crate::error::Result;
use crate::export::finite;
use crate::export::table::Sampling;
use crate::formats::memg::MemgMotion;

/// Writes the local frames of `motion` sampled by `sampling` into `bag`.
pub(super) fn write(
    bag: &mut Bag,
    ns: &Namespace,
    motion: &MemgMotion,
    path: &Path,
    sampling: &Sampling,
    warnings: &mut Vec<String>,
) -> Result<()> {
    if motion.local_frames == 0 || motion.timesteps == 0 {
        return Ok(());
    }
    let mut not_rigid = None;
    for row in 0..sampling.rows {
        let t = sampling.time(row);
        // The frames at t by the one MEMG rule, as the window shows them.
        let Some(at) = Between::at_time(motion, t) else {
            continue;
        };
        let stamp = bag.stamp(t);
        let mut transforms: Vec<Transform> = Vec::with_capacity(motion.local_frames);
        for k in 0..motion.local_frames {
            let Some(m) = at.frame(motion, k as i32) else {
                continue;
            };
            for (i, v) in m.iter().enumerate() {
                finite::check(*v, path, t, || format!("local frame {k} element {i}"))?;
            }
            // Row-major 3×4: columns of the 3×3 are (m0, m4, m8), (m1, m5, m9), (m2, m6, m10).
            let r =
                DMat3::from_cols_array(&[m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10]]);
            let rigid = (r.transpose() * r - DMat3::IDENTITY)
                .to_cols_array()
                .iter()
                .all(|x| x.abs() < 1e-4)
                && r.determinant() > 0.0;
            if !rigid && not_rigid.is_none() {
                not_rigid = Some((k, t));
            }
            let q = DQuat::from_mat3(&r).normalize();
            let q = if q.is_finite() { q } else { DQuat::IDENTITY };
            transforms.push((
                ns.frame("world"),
                ns.frame(&format!("memg_frame_{k}")),
                [m[3], m[7], m[11]],
                q.to_array(),
            ));
        }
        bag.tf(&ns.topic("/tf"), false, stamp, &transforms)?;
    }
    if let Some((k, t)) = not_rigid {
        warnings.push(format!(
            "{}: local frame {k} at {t} s is not a rotation and translation; /tf holds its nearest rotation",
            crate::text::Escaped::path(path)
        ));
    }
    Ok(())
}
