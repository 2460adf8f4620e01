//! The simulated motion as files: a table of every recorded frame, and the
//! reached angles and body attitude as a motion the exporters take.

use std::path::Path;

use glam::{DMat3, DQuat};

use super::Simulation;
use crate::error::{Error, Result};
use crate::formats::mtn::{Keyframe, Mtn, URAD_TO_DEG};
use crate::output::write_atomic;

/// Writes `sim`'s frames as CSV: `time_s`, the body's `x_m y_m z_m`, its
/// attitude `qx qy qz qw`, `tilt_deg`, then per servo `<PRM>:reached_deg`
/// and `<PRM>:commanded_deg`. Returns the bytes written.
pub fn write_csv(sim: &Simulation, out: &Path) -> Result<u64> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = [
        "time_s", "x_m", "y_m", "z_m", "qx", "qy", "qz", "qw", "tilt_deg",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for s in &sim.servos {
        header.push(format!("{}:reached_deg", s.name));
        header.push(format!("{}:commanded_deg", s.name));
    }
    let fail = |e: csv::Error| Error::io(out, std::io::Error::other(e));
    w.write_record(&header).map_err(fail)?;
    for f in &sim.frames {
        let mut row: Vec<String> = vec![f.t.to_string()];
        row.extend(f.position.iter().map(f64::to_string));
        row.extend(f.attitude.iter().map(f64::to_string));
        row.push(f.tilt_deg.to_string());
        for (r, c) in f.reached_deg.iter().zip(&f.commanded_deg) {
            row.push(r.to_string());
            row.push(c.to_string());
        }
        w.write_record(&row).map_err(fail)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::io(out, std::io::Error::other(e.to_string())))?;
    write_atomic(out, |o| o.write_all(&bytes))?;
    Ok(bytes.len() as u64)
}

/// `motion` as the dog did it: one keyframe per recorded frame, the
/// simulated servos at their reached angles, the body at its simulated roll,
/// pitch and yaw, the other joints as commanded. (The body's travel over
/// the floor has no place in a `.mtn`; the CSV holds it.)
pub fn reached_motion(sim: &Simulation, motion: &Mtn) -> Mtn {
    let roles = motion.joint_roles();
    let sampler = crate::anim::mtn::MtnSampler::new(motion);
    let urad = |deg: f64| (deg / URAD_TO_DEG).round() as i32;
    let keyframes = sim
        .frames
        .iter()
        .map(|f| {
            let pose = sampler.pose_at(f.t);
            let joints = roles
                .iter()
                .zip(&pose.joints_deg)
                .map(|(role, &deg)| {
                    let reached = role.and_then(|r| {
                        sim.servos
                            .iter()
                            .position(|s| s.joint == r)
                            .map(|k| f.reached_deg[k])
                    });
                    urad(reached.unwrap_or(deg))
                })
                .collect();
            let [roll, pitch, yaw] = body_rpy_deg(DQuat::from_array(f.attitude));
            Keyframe {
                // One frame after the one before: the frames are a frame period apart.
                interp: 0,
                roll: urad(roll),
                pitch: urad(pitch),
                yaw: urad(yaw),
                joints,
            }
        })
        .collect();
    Mtn {
        keyframes,
        name: format!("{}_simulated", motion.name),
        ..motion.clone()
    }
}

/// Roll, pitch, yaw in degrees with the rig's signs
/// ([`crate::anim::aibo::body_rotation`]: Z-Y-X, pitch + lifts the front).
pub(crate) fn body_rpy_deg(q: DQuat) -> [f64; 3] {
    let m = DMat3::from_quat(q);
    // m = Rz(yaw) · Ry(−pitch) · Rx(roll).
    let yaw = m.x_axis.y.atan2(m.x_axis.x);
    let minus_pitch = (-m.x_axis.z).clamp(-1.0, 1.0).asin();
    let roll = m.y_axis.z.atan2(m.z_axis.z);
    [
        roll.to_degrees(),
        (-minus_pitch).to_degrees(),
        yaw.to_degrees(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::aibo::body_rotation;

    #[test]
    fn roll_pitch_yaw_come_back_from_the_rigs_rotation() {
        for rpy in [[10.0, 20.0, 30.0], [-5.0, 28.0, 0.0], [0.0, -40.0, 170.0]] {
            let q = DQuat::from_mat3(&body_rotation(rpy));
            let back = body_rpy_deg(q);
            for i in 0..3 {
                assert!((back[i] - rpy[i]).abs() < 1e-9, "{rpy:?} -> {back:?}");
            }
        }
    }
}
