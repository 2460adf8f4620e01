//! What the servos are told: a motion's commanded angles for the simulated
//! servos of a [`PhysicalModel`], sampled by the library's one AIBO sampler
//! ([`MtnSampler`]), and the servo targets that follow them no faster than
//! each servo's rated speed. The simulator and the MJCF export's keyframes
//! both read it, so the two engines are driven alike.

use super::physical::{PhysicalModel, STEP_S, expected_clearance};
use super::rig_model;
use crate::anim::mtn::MtnSampler;
use crate::formats::mtn::Mtn;

/// How long the dog holds the first keyframe's posture on the ground before
/// the motion starts, seconds: enough for the drop of at most 1 mm and the
/// servos' transient to die out.
pub(crate) const SETTLE_S: f64 = 0.5;

/// How long the dog holds the last keyframe's posture after the motion ends,
/// seconds: a motion that ends off balance falls within it.
pub(crate) const HOLD_S: f64 = 1.0;

/// A motion's commanded angles for the simulated servos of one model.
#[derive(Debug, Clone)]
pub struct Drive<'a> {
    sampler: MtnSampler<'a>,
    /// At each keyframe: how far the commanded posture holds the body and
    /// head above its paws' floor, metres ([`expected_clearance`]).
    clearance: Vec<f64>,
    /// For each simulated servo: the motion's joint index driving it, or
    /// the model's neutral angle (radians) where the motion has none.
    sources: Vec<Result<usize, f64>>,
    /// Each servo's range, radians.
    ranges: Vec<(f64, f64)>,
}

impl<'a> Drive<'a> {
    /// The commanded angles of `mtn` for `physical`'s servos: each servo by
    /// its role, the ones the motion leaves out at the model's neutral stance.
    pub fn new(mtn: &'a Mtn, physical: &PhysicalModel) -> Drive<'a> {
        let file_roles = mtn.joint_roles();
        let rig = rig_model(physical.model);
        let mut sources = Vec::new();
        let mut ranges = Vec::new();
        for (_, servo) in physical.servos() {
            let source = file_roles
                .iter()
                .position(|r| *r == Some(servo.joint))
                .ok_or_else(|| rig.neutral_angle(servo.joint).unwrap_or(0.0).to_radians());
            sources.push(source);
            ranges.push(servo.range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY)));
        }
        let mut drive = Drive {
            sampler: MtnSampler::new(mtn),
            clearance: Vec::new(),
            sources,
            ranges,
        };
        drive.clearance = drive
            .keyframe_times_s()
            .iter()
            .map(|&t| {
                let (angles, _) = drive.commanded(t);
                expected_clearance(physical, &angles)
            })
            .collect();
        drive
    }

    /// The keyframes' expected clearances (see [`expected_clearance`]),
    /// keyframe order.
    pub(crate) fn keyframe_clearances(&self) -> &[f64] {
        &self.clearance
    }

    /// How far the commanded posture holds the body and head above the
    /// floor its paws stand on at `t`, metres: linear between the keyframes'
    /// (the same rule as the angles), held outside the motion.
    pub(crate) fn clearance(&self, t: f64) -> f64 {
        let times = self.keyframe_times_s();
        let c = &self.clearance;
        let Some(&end) = times.last() else { return 0.0 };
        if t <= times[0] {
            return c[0];
        }
        if t >= end {
            return c[c.len() - 1];
        }
        let b = times.partition_point(|&k| k < t).min(times.len() - 1);
        let a = b.saturating_sub(1);
        let span = times[b] - times[a];
        let u = if span > 0.0 {
            (t - times[a]) / span
        } else {
            1.0
        };
        c[a] + (c[b] - c[a]) * u
    }

    /// The motion's duration, seconds.
    pub fn duration_s(&self) -> f64 {
        self.sampler
            .keyframe_times_s()
            .last()
            .copied()
            .unwrap_or(0.0)
    }

    /// The keyframe times, seconds.
    pub fn keyframe_times_s(&self) -> &[f64] {
        self.sampler.keyframe_times_s()
    }

    /// The commanded angle of every servo at `t` seconds of the motion
    /// (held before 0 and after the end), radians, within each servo's range
    /// (a servo cannot be driven past its stop), and the body's commanded
    /// roll, pitch, yaw in degrees.
    pub fn commanded(&self, t: f64) -> (Vec<f64>, [f64; 3]) {
        let pose = self.sampler.pose_at(t);
        let angles = self
            .sources
            .iter()
            .zip(&self.ranges)
            .map(|(source, &(lo, hi))| {
                let rad = match *source {
                    Ok(j) => pose.joints_deg[j].to_radians(),
                    Err(neutral) => neutral,
                };
                rad.clamp(lo, hi)
            })
            .collect();
        (angles, pose.body_deg)
    }
}

/// The servo targets: each moves toward its commanded angle by at most its
/// rated speed times the step.
#[derive(Debug, Clone, PartialEq)]
pub struct Targets {
    /// The current target of every servo, radians.
    pub angles: Vec<f64>,
    speeds: Vec<f64>,
}

impl Targets {
    /// Targets starting at `angles`, for `physical`'s servos (one without a
    /// rated speed follows its command at once).
    pub fn new(physical: &PhysicalModel, angles: Vec<f64>) -> Targets {
        Targets {
            angles,
            speeds: physical
                .servos()
                .map(|(_, s)| s.max_speed.unwrap_or(f64::INFINITY))
                .collect(),
        }
    }

    /// One step of [`STEP_S`] toward `commanded`.
    pub fn step(&mut self, commanded: &[f64]) {
        for ((target, &goal), &speed) in self.angles.iter_mut().zip(commanded).zip(&self.speeds) {
            let most = speed * STEP_S;
            *target += (goal - *target).clamp(-most, most);
        }
    }
}
