//! The playhead: the one time in seconds that every track of the window
//! reads, moved by play, pause, speed, loop and seek. Which frame a time is
//! (and which time a frame is) is [`super::clock`]'s rule, asked here too.
//!
//! The timeline knows nothing about motions; it is given the longest track's
//! duration and the first motion's frame period at construction and is then
//! driven by wall-clock deltas through [`Timeline::advance`]. All arithmetic is
//! closed-form, so a huge delta or a zero duration costs the same as a small one.

use std::fmt;
use std::str::FromStr;

/// Smallest speed magnitude [`Timeline::halve_speed`] goes down to.
pub const MIN_SPEED: f64 = 1.0 / 64.0;
/// Largest speed magnitude [`Timeline::double_speed`] goes up to.
pub const MAX_SPEED: f64 = 64.0;

/// The longest timeline: 24 hours. A motion that says it lasts longer (a
/// `.mtn` keyframe 0xFFFFFFFF frames on, an MRTK key at 10³⁰ s) plays,
/// exports and renders only its first 24 hours; the loader warns once.
pub const MAX_DURATION_S: f64 = 86_400.0;

/// Fallback frame period (60 Hz) when the one given is zero, negative or not finite.
const DEFAULT_FRAME_PERIOD_S: f64 = 1.0 / 60.0;

/// What happens when playback reaches an end of the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LoopMode {
    /// Stop (pause) at the end, or at the start when playing in reverse.
    #[default]
    Once,
    /// Wrap around to the other end and keep playing.
    Loop,
    /// Bounce off each end, flipping the playback direction.
    PingPong,
}

impl LoopMode {
    /// The next mode in the cycle Once → Loop → PingPong → Once.
    pub fn next(self) -> LoopMode {
        match self {
            LoopMode::Once => LoopMode::Loop,
            LoopMode::Loop => LoopMode::PingPong,
            LoopMode::PingPong => LoopMode::Once,
        }
    }

    /// The mode's name as the command line spells it: `once`, `loop` or `pingpong`.
    pub fn name(self) -> &'static str {
        match self {
            LoopMode::Once => "once",
            LoopMode::Loop => "loop",
            LoopMode::PingPong => "pingpong",
        }
    }
}

impl fmt::Display for LoopMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for LoopMode {
    type Err = crate::error::ParseValueError;

    /// Accepts `once`, `loop`, `pingpong` (also `ping-pong`, `ping_pong`), any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "once" => Ok(LoopMode::Once),
            "loop" => Ok(LoopMode::Loop),
            "pingpong" | "ping-pong" | "ping_pong" => Ok(LoopMode::PingPong),
            _ => Err(crate::error::ParseValueError::new(
                "a loop mode",
                s,
                "once, loop or pingpong",
            )),
        }
    }
}

/// A playback speed of zero or one that is not finite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InvalidSpeed(pub f64);

impl fmt::Display for InvalidSpeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid playback speed {} (must be finite and non-zero)",
            self.0
        )
    }
}

impl std::error::Error for InvalidSpeed {}

/// The playback clock shared by every track.
///
/// Time runs over `0..=duration_s`. The sign of the speed is the playback
/// direction; ping-pong flips it at each end.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    time_s: f64,
    duration_s: f64,
    frame_period_s: f64,
    speed: f64,
    playing: bool,
    loop_mode: LoopMode,
}

impl Timeline {
    /// A timeline at time 0, playing forward at speed 1 in [`LoopMode::Once`].
    ///
    /// `duration_s` is the longest track's duration (a negative or non-finite
    /// value is taken as 0, one beyond [`MAX_DURATION_S`] as that); `frame_period_s` is the first motion's own frame
    /// period (a zero, negative or non-finite value falls back to 1/60 s).
    pub fn new(duration_s: f64, frame_period_s: f64) -> Timeline {
        let duration_s = if duration_s.is_finite() && duration_s > 0.0 {
            duration_s.min(MAX_DURATION_S)
        } else {
            0.0
        };
        let frame_period_s = if frame_period_s.is_finite() && frame_period_s > 0.0 {
            frame_period_s
        } else {
            DEFAULT_FRAME_PERIOD_S
        };
        Timeline {
            time_s: 0.0,
            duration_s,
            frame_period_s,
            speed: 1.0,
            playing: true,
            loop_mode: LoopMode::Once,
        }
    }

    /// Builder: start at this speed (negative plays in reverse).
    pub fn with_speed(mut self, speed: f64) -> Result<Timeline, InvalidSpeed> {
        self.set_speed(speed)?;
        Ok(self)
    }

    /// Builder: use this loop mode.
    pub fn with_loop(mut self, mode: LoopMode) -> Timeline {
        self.loop_mode = mode;
        self
    }

    /// Builder: start at this time (clamped to the timeline).
    pub fn with_start(mut self, time_s: f64) -> Timeline {
        self.seek(time_s);
        self
    }

    /// Builder: start paused (`true`) or playing (`false`).
    pub fn with_paused(mut self, paused: bool) -> Timeline {
        self.playing = !paused;
        self
    }

    /// Current time in seconds, within `0..=duration_s`.
    pub fn time_s(&self) -> f64 {
        self.time_s
    }

    /// Length of the timeline in seconds.
    pub fn duration_s(&self) -> f64 {
        self.duration_s
    }

    /// Length of one frame in seconds.
    pub fn frame_period_s(&self) -> f64 {
        self.frame_period_s
    }

    /// Signed playback speed: 1 is real time, negative plays in reverse.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// True while playing.
    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// The current loop mode.
    pub fn loop_mode(&self) -> LoopMode {
        self.loop_mode
    }

    /// The frame nearest the current time (`t = 10 × period` reads 10).
    pub fn frame(&self) -> u64 {
        self.frame_at(self.time_s)
    }

    /// Number of distinct frame indices on the timeline: `0..=frame at the end`.
    pub fn frame_count(&self) -> u64 {
        self.frame_at(self.duration_s) + 1
    }

    fn frame_at(&self, t: f64) -> u64 {
        super::clock::nearest_frame(t, self.frame_period_s)
    }

    /// Start playing. In [`LoopMode::Once`] at the end in the direction of
    /// travel, first rewind to the other end so that play means "play again".
    pub fn play(&mut self) {
        if self.loop_mode == LoopMode::Once {
            if self.speed > 0.0 && self.time_s >= self.duration_s {
                self.time_s = 0.0;
            } else if self.speed < 0.0 && self.time_s <= 0.0 {
                self.time_s = self.duration_s;
            }
        }
        self.playing = true;
    }

    /// Stop playing; the time stays where it is.
    pub fn pause(&mut self) {
        self.playing = false;
    }

    /// Play if paused, pause if playing.
    pub fn toggle(&mut self) {
        if self.playing {
            self.pause();
        } else {
            self.play();
        }
    }

    /// Set the signed speed; zero and non-finite speeds are refused.
    pub fn set_speed(&mut self, speed: f64) -> Result<(), InvalidSpeed> {
        if speed.is_finite() && speed != 0.0 {
            self.speed = speed;
            Ok(())
        } else {
            Err(InvalidSpeed(speed))
        }
    }

    /// Double the speed's magnitude, up to [`MAX_SPEED`]; keeps the direction.
    pub fn double_speed(&mut self) {
        let magnitude = (self.speed.abs() * 2.0)
            .min(MAX_SPEED)
            .max(self.speed.abs());
        self.speed = magnitude.copysign(self.speed);
    }

    /// Halve the speed's magnitude, down to [`MIN_SPEED`]; keeps the direction.
    pub fn halve_speed(&mut self) {
        let magnitude = (self.speed.abs() / 2.0)
            .max(MIN_SPEED)
            .min(self.speed.abs());
        self.speed = magnitude.copysign(self.speed);
    }

    /// Flip the playback direction.
    pub fn reverse(&mut self) {
        self.speed = -self.speed;
    }

    /// Set the loop mode.
    pub fn set_loop_mode(&mut self, mode: LoopMode) {
        self.loop_mode = mode;
    }

    /// Switch to the next loop mode (Once → Loop → PingPong → Once) and return it.
    pub fn cycle_loop_mode(&mut self) -> LoopMode {
        self.loop_mode = self.loop_mode.next();
        self.loop_mode
    }

    /// Move to `time_s`, clamped to `0..=duration_s`; NaN is ignored.
    pub fn seek(&mut self, time_s: f64) {
        if !time_s.is_nan() {
            self.time_s = time_s.clamp(0.0, self.duration_s);
        }
    }

    /// Move to time 0.
    pub fn jump_to_start(&mut self) {
        self.time_s = 0.0;
    }

    /// Move to the end of the timeline.
    pub fn jump_to_end(&mut self) {
        self.time_s = self.duration_s;
    }

    /// Step `n` frames (negative steps back), clamped to the timeline.
    ///
    /// Paused, the time lands on the boundary of the frame `n` away from the
    /// one shown ([`Timeline::frame`]), so each press moves the frame number
    /// the user reads by exactly `n`, even from between two frames.
    /// Playing, the time is nudged by `n` periods without snapping, so the
    /// playback phase is kept.
    pub fn step_frames(&mut self, n: i64) {
        if n == 0 {
            return;
        }
        let p = self.frame_period_s;
        let target = if self.playing {
            self.time_s + n as f64 * p
        } else {
            (self.frame() as f64 + n as f64) * p
        };
        self.seek(target);
    }

    /// Advance by `dt_wall_s` seconds of wall-clock time scaled by the speed,
    /// applying the loop mode at the ends. Does nothing while paused or for a
    /// negative or non-finite delta (wall time does not run backwards).
    pub fn advance(&mut self, dt_wall_s: f64) {
        if !self.playing || !dt_wall_s.is_finite() || dt_wall_s <= 0.0 {
            return;
        }
        let d = self.duration_s;
        let t = self.time_s + dt_wall_s * self.speed;
        match self.loop_mode {
            LoopMode::Once => {
                if t >= d {
                    self.time_s = d;
                    self.playing = false;
                } else if t <= 0.0 {
                    self.time_s = 0.0;
                    self.playing = false;
                } else {
                    self.time_s = t;
                }
            }
            // A zero-length timeline has nowhere to wrap to; stay at 0.
            _ if d <= 0.0 => self.time_s = 0.0,
            LoopMode::Loop => {
                let wrapped = t.rem_euclid(d);
                // rem_euclid of a tiny negative value rounds up to d itself.
                self.time_s = if wrapped >= d { 0.0 } else { wrapped };
            }
            LoopMode::PingPong => {
                // Unfold the bouncing motion onto a forward-only circle of
                // length 2d: forward travel is s = t, backward is s = 2d - t.
                let period = 2.0 * d;
                let s0 = if self.speed > 0.0 {
                    self.time_s
                } else {
                    period - self.time_s
                };
                let s = (s0 + dt_wall_s * self.speed.abs()).rem_euclid(period);
                let forward = s <= d;
                self.time_s = if forward { s } else { period - s };
                if forward != (self.speed > 0.0) {
                    self.speed = -self.speed;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
