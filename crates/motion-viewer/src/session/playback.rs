//! Playback beyond the plain clock: each format's keyframes and markers, and
//! a loop range that keeps the [`Timeline`] inside `start..end`.

use crate::anim::timeline::{LoopMode, Timeline};
use crate::scene::Track;
use crate::summary::f32_as_written;

/// Times worth a keyframe jump in `track`, seconds, ascending and distinct:
/// a `.mtn` motion's keyframes, every MEMG timestep (each is a stored
/// sample), and every time an MRTK curve has a key.
pub fn keyframes(track: &Track) -> Vec<f64> {
    let mut times: Vec<f64> = match track {
        Track::Mtn { motion, .. } => motion.keyframe_times_s(),
        Track::Memg { .. } => track
            .grid(None, crate::anim::clock::Window::Whole)
            .times()
            .collect(),
        Track::InputAnimation { recording, .. } => {
            let floats = recording.float_curves();
            let bools = recording.bool_curves();
            let float_keys = floats.iter().flat_map(|c| c.keys.iter().map(|k| k.time));
            let bool_keys = bools.iter().flat_map(|c| c.keys.iter().map(|k| k.time));
            float_keys.chain(bool_keys).map(f32_as_written).collect()
        }
    };
    times.retain(|t| t.is_finite() && *t >= 0.0);
    times.sort_by(f64::total_cmp);
    // Curves sampled together store the same f32 time; keep one.
    times.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    times
}

/// The named times of `track` (MRTK markers), seconds, in file order.
pub fn markers(track: &Track) -> Vec<(f64, String)> {
    match track {
        Track::InputAnimation { recording, .. } => recording
            .markers
            .iter()
            .map(|m| (f32_as_written(m.time), m.name.clone()))
            .filter(|(t, _)| t.is_finite())
            .collect(),
        _ => Vec::new(),
    }
}

/// Playback confined to `start..end` seconds, under the timeline's own loop
/// mode: Once stops at the range's end, Loop wraps to its start, ping-pong
/// bounces between its ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoopRange {
    /// Start, seconds.
    pub start: f64,
    /// End, seconds (greater than `start`).
    pub end: f64,
}

impl LoopRange {
    /// The range between `a` and `b` in either order; `None` when shorter
    /// than `min_len` seconds or not finite.
    pub fn new(a: f64, b: f64, min_len: f64) -> Option<LoopRange> {
        let (start, end) = (a.min(b), a.max(b));
        (start.is_finite() && end.is_finite() && end - start >= min_len.max(f64::MIN_POSITIVE))
            .then_some(LoopRange { start, end })
    }

    /// The range cut to `0..=duration_s`; `None` if nothing is left.
    pub fn clamped(self, duration_s: f64) -> Option<LoopRange> {
        let start = self.start.max(0.0);
        let end = self.end.min(duration_s);
        (end > start).then_some(LoopRange { start, end })
    }

    /// Moves the time into the range if it is outside: to the start when
    /// playing forward, to the end when playing backward.
    pub(crate) fn contain(self, timeline: &mut Timeline) {
        let t = timeline.time_s();
        if t < self.start || t > self.end {
            timeline.seek(if timeline.speed() > 0.0 {
                self.start
            } else {
                self.end
            });
        }
    }

    /// In [`LoopMode::Once`] at the range's end in the direction of travel,
    /// goes back to its other end, so that play means "play the range again".
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn rewind_if_done(self, timeline: &mut Timeline) {
        if timeline.loop_mode() != LoopMode::Once {
            return;
        }
        let t = timeline.time_s();
        if timeline.speed() > 0.0 && t >= self.end {
            timeline.seek(self.start);
        } else if timeline.speed() < 0.0 && t <= self.start {
            timeline.seek(self.end);
        }
    }

    /// [`Timeline::advance`] within the range. Closed-form: a huge delta
    /// costs what a small one does.
    pub fn advance(self, timeline: &mut Timeline, dt_wall_s: f64) {
        if !timeline.is_playing() || !dt_wall_s.is_finite() || dt_wall_s <= 0.0 {
            return;
        }
        self.contain(timeline);
        let (start, len) = (self.start, self.end - self.start);
        let speed = timeline.speed();
        let t = timeline.time_s() + dt_wall_s * speed;
        match timeline.loop_mode() {
            LoopMode::Once => {
                if t >= self.end || t <= start {
                    timeline.seek(t.clamp(start, self.end));
                    timeline.pause();
                } else {
                    timeline.seek(t);
                }
            }
            LoopMode::Loop => {
                let wrapped = (t - start).rem_euclid(len);
                // rem_euclid of a tiny negative value rounds up to len itself.
                timeline.seek(start + if wrapped >= len { 0.0 } else { wrapped });
            }
            LoopMode::PingPong => {
                // Unfold the bounces onto a forward-only circle of length 2·len.
                let period = 2.0 * len;
                let u = timeline.time_s() - start;
                let s0 = if speed > 0.0 { u } else { period - u };
                let s = (s0 + dt_wall_s * speed.abs()).rem_euclid(period);
                let forward = s <= len;
                timeline.seek(start + if forward { s } else { period - s });
                if forward != (speed > 0.0) {
                    // Flipping a finite non-zero speed cannot fail.
                    let _ = timeline.set_speed(-speed);
                }
            }
        }
    }
}
