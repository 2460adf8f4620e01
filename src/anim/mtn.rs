//! AIBO `.mtn` playback: the pose of a motion at any time.
//!
//! Sony's player steps joint angles in whole frames; the viewer interpolates
//! linearly in continuous time between keyframes (NOTES §1), so a pose exists
//! at every instant and matches the player at every frame boundary.

use crate::formats::mtn::{Keyframe, Mtn, URAD_TO_DEG};

/// The body attitude and joint angles at one time.
#[derive(Debug, Clone, PartialEq)]
pub struct MtnPose {
    /// The time sampled, clamped to the motion, in seconds.
    pub time_s: f64,
    /// Body roll, pitch, yaw in degrees (+ leans right, leans backward, turns left).
    pub body_deg: [f64; 3],
    /// One angle per joint of the motion, in file order, in degrees.
    pub joints_deg: Vec<f64>,
}

/// A motion with its keyframe times worked out once, for sampling it at
/// many times: [`pose_at`] recomputes them on every call, which a motion of
/// 65 535 keyframes sampled at thousands of times cannot afford.
#[derive(Debug, Clone)]
pub struct MtnSampler<'a> {
    motion: &'a Mtn,
    times: Vec<f64>,
}

impl<'a> MtnSampler<'a> {
    /// Prepares `motion` for sampling.
    pub fn new(motion: &'a Mtn) -> MtnSampler<'a> {
        MtnSampler {
            motion,
            times: motion.keyframe_times_s(),
        }
    }

    /// The motion sampled.
    pub fn motion(&self) -> &'a Mtn {
        self.motion
    }

    /// The time of each keyframe in seconds, ascending.
    pub fn keyframe_times_s(&self) -> &[f64] {
        &self.times
    }

    /// The pose at `t` seconds; see [`pose_at`].
    pub fn pose_at(&self, t: f64) -> MtnPose {
        let m = self.motion;
        let times = &self.times;
        let duration = times.last().copied().unwrap_or(0.0);
        // NaN clamps to the start rather than poisoning every angle.
        let t = if t.is_nan() {
            0.0
        } else {
            t.clamp(0.0, duration)
        };
        let joint_count = m.joints.len();
        if m.keyframes.is_empty() {
            return MtnPose {
                time_s: t,
                body_deg: [0.0; 3],
                joints_deg: vec![0.0; joint_count],
            };
        }
        // The segment [a, b] holding t; a == b at the very start or with one keyframe.
        let b = times.partition_point(|&k| k < t).min(m.keyframes.len() - 1);
        let a = b.saturating_sub(1);
        let (ka, kb) = (&m.keyframes[a], &m.keyframes[b]);
        let span = times[b] - times[a];
        let u = if span > 0.0 {
            (t - times[a]) / span
        } else {
            1.0
        };
        let lerp =
            |x: i32, y: i32| (f64::from(x) + (f64::from(y) - f64::from(x)) * u) * URAD_TO_DEG;
        let joint = |k: &Keyframe, j: usize| k.joints.get(j).copied().unwrap_or(0);
        MtnPose {
            time_s: t,
            body_deg: [
                lerp(ka.roll, kb.roll),
                lerp(ka.pitch, kb.pitch),
                lerp(ka.yaw, kb.yaw),
            ],
            joints_deg: (0..joint_count)
                .map(|j| lerp(joint(ka, j), joint(kb, j)))
                .collect(),
        }
    }
}

/// The pose at `t` seconds: linear between the keyframes around `t`, held at
/// the first keyframe before 0 and at the last after the end. A motion with no
/// keyframes (possible only if built in code) gives zero angles. To sample one
/// motion many times, keep an [`MtnSampler`].
pub fn pose_at(m: &Mtn, t: f64) -> MtnPose {
    MtnSampler::new(m).pose_at(t)
}
