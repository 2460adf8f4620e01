//! AIBO `.mtn` playback: the pose of a motion at any time.
//!
//! Sony's player steps joint angles in whole frames; the viewer interpolates
//! linearly in continuous time between keyframes (docs/formats.md §1), so a pose exists
//! at every instant and matches the player at every frame boundary.

use crate::anim::clock;
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
/// many times: [`pose_at`] walks the keyframes up to `t` on every call,
/// which a motion of 65 535 keyframes sampled at thousands of times cannot
/// afford.
#[derive(Debug, Clone)]
pub struct MtnSampler<'a> {
    motion: &'a Mtn,
    times: Vec<f64>,
    frames: Vec<u64>,
}

impl<'a> MtnSampler<'a> {
    /// Prepares `motion` for sampling.
    pub fn new(motion: &'a Mtn) -> MtnSampler<'a> {
        MtnSampler {
            motion,
            times: motion.keyframe_times_s(),
            frames: motion.keyframe_frames(),
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
        let times = &self.times;
        let Some(&duration) = times.last() else {
            return still(self.motion, t);
        };
        let t = clamp(t, duration);
        // The segment [a, b] holding t; a == b at the very start or with one keyframe.
        let b = times.partition_point(|&k| k < t).min(times.len() - 1);
        let a = b.saturating_sub(1);
        let at = |i: usize| Key {
            index: i,
            frame: self.frames[i],
            time_s: times[i],
        };
        interpolate(self.motion, at(a), at(b), t)
    }
}

/// `t` within `0..=duration`; NaN clamps to the start rather than poisoning
/// every angle.
fn clamp(t: f64, duration: f64) -> f64 {
    if t.is_nan() {
        0.0
    } else {
        t.clamp(0.0, duration)
    }
}

/// The pose of a motion without keyframes (possible only if built in code).
fn still(m: &Mtn, t: f64) -> MtnPose {
    MtnPose {
        time_s: clamp(t, 0.0),
        body_deg: [0.0; 3],
        joints_deg: vec![0.0; m.joints.len()],
    }
}

/// A keyframe: its index, the frame it stands on and that frame's time.
#[derive(Debug, Clone, Copy)]
struct Key {
    index: usize,
    frame: u64,
    time_s: f64,
}

/// The pose at `t` between keyframes `a` and `b`.
///
/// On a whole frame `k` of the motion (every time of a table at the
/// motion's own period) the angle is the exact fraction
/// `(x·(fb − k) + y·(k − fa)) / (fb − fa)` in micro-radians, rounded once:
/// the same number whichever keyframes around `k` carry the line, so a
/// motion rebuilt with a keyframe merged into its neighbours' straight line
/// (`mtn from-csv`) samples to the very same table. Between frames, the
/// straight line in seconds.
fn interpolate(m: &Mtn, a: Key, b: Key, t: f64) -> MtnPose {
    let (ka, kb) = (&m.keyframes[a.index], &m.keyframes[b.index]);
    let frame = clock::frames(t, m.frame_s(1));
    let exact = frame.fract() == 0.0 && a.frame < b.frame;
    let (span, ahead) = if exact {
        let k = (frame as u64).clamp(a.frame, b.frame);
        ((b.frame - a.frame) as i128, (k - a.frame) as i128)
    } else {
        (0, 0)
    };
    let seconds = b.time_s - a.time_s;
    let u = if seconds > 0.0 {
        (t - a.time_s) / seconds
    } else {
        1.0
    };
    let lerp = |x: i32, y: i32| {
        let urad = if exact {
            (i128::from(x) * (span - ahead) + i128::from(y) * ahead) as f64 / span as f64
        } else {
            f64::from(x) + (f64::from(y) - f64::from(x)) * u
        };
        urad * URAD_TO_DEG
    };
    let joint = |k: &Keyframe, j: usize| k.joints.get(j).copied().unwrap_or(0);
    MtnPose {
        time_s: t,
        body_deg: [
            lerp(ka.roll, kb.roll),
            lerp(ka.pitch, kb.pitch),
            lerp(ka.yaw, kb.yaw),
        ],
        joints_deg: (0..m.joints.len())
            .map(|j| lerp(joint(ka, j), joint(kb, j)))
            .collect(),
    }
}

/// The pose at `t` seconds: linear between the keyframes around `t`, held at
/// the first keyframe before 0 and at the last after the end. A motion with no
/// keyframes (possible only if built in code) gives zero angles.
///
/// Walks the keyframes up to `t` without collecting their times, so a table
/// of every frame that calls it once a row costs no allocation per row; to
/// sample one motion many times, an [`MtnSampler`] finds each segment by
/// bisection instead.
pub fn pose_at(m: &Mtn, t: f64) -> MtnPose {
    if m.keyframes.is_empty() {
        return still(m, t);
    }
    let t = if t.is_nan() { 0.0 } else { t.max(0.0) };
    let mut frame = 0u64;
    let mut previous = Key {
        index: 0,
        frame: 0,
        time_s: 0.0,
    };
    for (i, k) in m.keyframes.iter().enumerate() {
        if i > 0 {
            frame += u64::from(k.interp) + 1;
        }
        // The same arithmetic as `Mtn::keyframe_times_s`, so both paths agree.
        let here = Key {
            index: i,
            frame,
            time_s: m.frame_s(frame),
        };
        if here.time_s >= t {
            let a = if i == 0 { here } else { previous };
            return interpolate(m, a, here, t);
        }
        previous = here;
    }
    // Past the last keyframe: hold it.
    interpolate(m, previous, previous, previous.time_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walking_and_bisecting_give_the_same_pose() {
        let bytes = include_bytes!("../../../../data/sony_stand_sit.mtn");
        let mut m = crate::formats::mtn::decode(bytes).unwrap();
        // A keyframe with no frames between it and the one before.
        m.keyframes[2].interp = 0;
        let sampler = MtnSampler::new(&m);
        let end = m.duration_s();
        let mut times = vec![f64::NAN, f64::NEG_INFINITY, -1.0, 0.0, end, end + 1.0];
        times.extend(sampler.keyframe_times_s());
        times.extend((0..=500).map(|i| end * f64::from(i) / 500.0));
        for t in times {
            assert_eq!(pose_at(&m, t), sampler.pose_at(t), "t = {t}");
        }
        // At a keyframe's own time, that keyframe's angles.
        let k = &m.keyframes[3];
        let at = pose_at(&m, sampler.keyframe_times_s()[3]);
        assert_eq!(at.body_deg[1], f64::from(k.pitch) * URAD_TO_DEG);
    }
}
