//! One clock: where a time in seconds becomes a frame, and where the frames
//! a table, a plot, a bag, a cache or a USD stage samples are laid out.
//!
//! Every path that samples a motion — `export` (JSON, CSV, OBJ, glTF, PC2,
//! URDF poses, MCAP, USD), `plot`, `diff`, the curves panel, the window, the
//! GPU deformer's inputs and the Python samplers — asks this module two
//! things, and nothing else answers them:
//!
//! - **which times**: a [`Grid`], frame `k` at `k · period` seconds, every
//!   frame of a motion from 0 to its duration (the last one included), or
//!   those inside a [`Window`];
//! - **which frame a time falls on**: `frames`, the time in frames with a
//!   hair of `SLACK` (10⁻⁹), so that 1/3 s at 30 fps is frame 10 and not
//!   9.999 999 999 999 998.
//!
//! What a format makes of a time between its frames is its own rule, written
//! once beside its decoder's data: `.mtn` keyframes interpolate linearly
//! ([`super::mtn::pose_at`]), MRTK curves as Unity evaluates them
//! ([`super::input_animation::state_at`]), MEMG blends its coefficients and
//! its frames between the two timesteps around the time
//! ([`super::memg::Between`]).
//!
//! ```
//! use motion_viewer::anim::clock::{Grid, Window};
//!
//! // A 0.5 s motion at 7 samples per second: 0, 1/7, … 3/7 s.
//! let grid = Grid::new(0.5, 1.0 / 7.0, Window::Whole);
//! assert_eq!(grid.len(), 4);
//! assert_eq!(grid.time_s(3), 3.0 * (1.0 / 7.0));
//!
//! // Frames 2..4 of a 30 fps motion (4 excluded), sampled at its own rate.
//! let part = Grid::new(1.0, 1.0 / 30.0, Window::frames(2, 4, 1.0 / 30.0));
//! assert_eq!(part.times().collect::<Vec<_>>(), [2.0 * (1.0 / 30.0), 3.0 * (1.0 / 30.0)]);
//! ```

/// How close to a whole frame (in frames) a time must come to count as on
/// it: times computed as `k · period` and read back as `t / period` land on
/// `k` again whatever the rounding.
pub(crate) const SLACK: f64 = 1e-9;

/// `x` frames, made whole when it is within [`SLACK`] of a whole number.
pub(crate) fn snap(x: f64) -> f64 {
    let whole = x.round();
    if (x - whole).abs() <= SLACK { whole } else { x }
}

/// The time `t_s` counted in frames of `period_s` seconds ([`snap`]ped).
pub(crate) fn frames(t_s: f64, period_s: f64) -> f64 {
    snap(t_s / period_s)
}

/// `t_s` seconds counted in steps of a rate given per second (a MEMG
/// motion's timesteps at its fps): `t_s × per_s`, [`snap`]ped. The same
/// count as [`frames`] with `period = 1 / per_s`, multiplied rather than
/// divided because the rate is the number the file holds.
pub(crate) fn at_rate(t_s: f64, per_s: f64) -> f64 {
    snap(t_s * per_s)
}

/// `steps` of a rate given per second back in seconds: `steps · (1 / per_s)`,
/// so that whole steps are the times [`time_of`] and a [`Grid`] give them.
pub(crate) fn seconds_at_rate(steps: f64, per_s: f64) -> f64 {
    steps * (1.0 / per_s)
}

/// The whole number nearest `x` frames (or steps): halves away from 0,
/// negative counts and NaN give 0, counts beyond `u64` saturate.
pub(crate) fn nearest(x: f64) -> u64 {
    // `as` saturates: NaN and negatives give 0, the too large u64::MAX.
    snap(x).round() as u64
}

/// The whole frame nearest the time `t_s` with frames of `period_s`.
pub(crate) fn nearest_frame(t_s: f64, period_s: f64) -> u64 {
    nearest(frames(t_s, period_s))
}

/// How many frames (or steps) of `period_s` it takes to reach `t_s`: the
/// time in frames rounded up, a time within [`SLACK`] of a whole frame
/// needing exactly that many. Negative times and NaN take 0.
#[cfg_attr(not(feature = "physics"), allow(dead_code))] // the simulator's steps
pub(crate) fn frames_to_reach(t_s: f64, period_s: f64) -> u64 {
    frames(t_s, period_s).ceil() as u64
}

/// The time of frame `k` with frames of `period_s`: `k · period`, the one
/// formula every path uses, so that equal frames are equal times.
pub fn time_of(k: u64, period_s: f64) -> f64 {
    k as f64 * period_s
}

/// The index of the last frame of a motion lasting `duration_s` at
/// `period_s`: ⌊duration / period⌋, in `f64` so that an absurd duration
/// gives a huge number to refuse rather than a loop.
pub fn last_frame(duration_s: f64, period_s: f64) -> f64 {
    frames(duration_s, period_s).floor()
}

/// The part of a motion a [`Grid`] covers, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Window {
    /// From 0 to the motion's duration, the last frame included.
    Whole,
    /// The frames whose time lies in `start_s..end_s`; `end_included`
    /// says whether a frame at exactly `end_s` is in it.
    Seconds {
        /// Where the window starts, seconds (a frame here is in it).
        start_s: f64,
        /// Where it ends, seconds.
        end_s: f64,
        /// A frame at exactly `end_s` is in the window.
        end_included: bool,
    },
}

impl Window {
    /// Frames `first..end` (`end` excluded) of a motion with frames of
    /// `period_s` seconds: `--frames A..B`.
    pub fn frames(first: u64, end: u64, period_s: f64) -> Window {
        Window::Seconds {
            start_s: first as f64 * period_s,
            end_s: end as f64 * period_s,
            end_included: false,
        }
    }

    /// The seconds `start_s..=end_s`, both ends included: `--time-range A..B`.
    pub(crate) fn seconds(start_s: f64, end_s: f64) -> Window {
        Window::Seconds {
            start_s,
            end_s,
            end_included: true,
        }
    }
}

/// The times a motion is sampled at: frame `k` at `k · period_s` seconds,
/// for `k` in `first..first + len` — never past the motion's last frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    period_s: f64,
    first: u64,
    len: u64,
}

impl Grid {
    /// The frames of `period_s` seconds that `window` holds of a motion
    /// lasting `duration_s` (a duration that is not a finite positive number
    /// counts as 0: one frame, at 0 s). A period that is not a finite
    /// positive number gives no frames; callers refuse such a rate first.
    pub fn new(duration_s: f64, period_s: f64, window: Window) -> Grid {
        let empty = Grid {
            period_s,
            first: 0,
            len: 0,
        };
        if !(period_s.is_finite() && period_s > 0.0) {
            return empty;
        }
        let duration_s = if duration_s.is_finite() {
            duration_s.max(0.0)
        } else {
            0.0
        };
        let last = last_frame(duration_s, period_s);
        let (first, end) = match window {
            Window::Whole => (0.0, last),
            Window::Seconds {
                start_s,
                end_s,
                end_included,
            } => {
                let first = frames(start_s, period_s).ceil().max(0.0);
                let end = frames(end_s, period_s);
                // The last frame at or before `end_s`, or before it when excluded.
                let end = if end_included {
                    end.floor()
                } else {
                    end.ceil() - 1.0
                };
                (first, end.min(last))
            }
        };
        if first.is_nan() || end.is_nan() || end < first {
            return empty;
        }
        Grid {
            period_s,
            first: to_u64(first),
            len: to_u64(end - first + 1.0),
        }
    }

    /// The seconds between two frames.
    pub fn period_s(&self) -> f64 {
        self.period_s
    }

    /// How many frames.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// No frame at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The index of the first frame, counted from the motion's start.
    #[cfg(test)]
    pub(crate) fn first_frame(&self) -> u64 {
        self.first
    }

    /// The time of the grid's `i`-th frame: `(first + i) · period`, the one
    /// formula every path uses, so that equal frames are equal times.
    pub fn time_s(&self, i: u64) -> f64 {
        time_of(self.first.saturating_add(i), self.period_s)
    }

    /// Every frame's time, in order.
    pub fn times(&self) -> impl ExactSizeIterator<Item = f64> + '_ {
        // A grid longer than `usize` is refused by its caller's size check
        // before anything iterates it; the cast only bounds the range.
        (0..usize::try_from(self.len).unwrap_or(usize::MAX)).map(|i| self.time_s(i as u64))
    }

    /// Every `stride`-th frame's time, starting with the first: how a grid
    /// of more frames than a caller holds is thinned.
    pub fn every(&self, stride: u64) -> impl Iterator<Item = f64> + '_ {
        let stride = stride.max(1);
        let count = if self.len == 0 {
            0
        } else {
            (self.len - 1) / stride + 1
        };
        (0..count).map(move |k| self.time_s(k * stride))
    }

    /// The smallest stride that leaves at most `budget` (≥ 1) frames of this
    /// grid: 1 when it already fits.
    pub(crate) fn stride_for(&self, budget: u64) -> u64 {
        self.len.div_ceil(budget.max(1)).max(1)
    }
}

/// A non-negative whole `f64` as `u64`, saturating (a NaN is 0).
fn to_u64(x: f64) -> u64 {
    if x >= u64::MAX as f64 {
        u64::MAX
    } else if x > 0.0 {
        x as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_motion_ends_on_its_last_frame() {
        // 4.88 s of 16 ms frames: frames 0..=305, whatever 4.88 / 0.016 rounds to.
        let g = Grid::new(4.88, 0.016, Window::Whole);
        assert_eq!((g.first_frame(), g.len()), (0, 306));
        assert_eq!(g.time_s(305), 305.0 * 0.016);
        // 1/3 s at 30 fps is frame 10, not 9.
        assert_eq!(frames(1.0 / 3.0, 1.0 / 30.0), 10.0);
        assert_eq!(Grid::new(1.0 / 3.0, 1.0 / 30.0, Window::Whole).len(), 11);
        // Between frames the time keeps its fraction.
        assert!((frames(2.0 / 7.0, 1.0 / 30.0) - 60.0 / 7.0).abs() < 1e-12);
    }

    #[test]
    fn nearest_frames_steps_and_rates_share_the_slack() {
        // 3 × 0.1 s is 0.30000000000000004 s, 3.0000000000000004 frames of
        // 0.1 s: frame 3, and 3 to reach it (a plain ceil says 4).
        let t = 3.0 * 0.1;
        assert!(t / 0.1 > 3.0);
        assert_eq!(nearest_frame(t, 0.1), 3);
        assert_eq!(frames_to_reach(t, 0.1), 3);
        // 4.88 s of 2 ms simulation steps: 2440 steps, not 2441.
        assert_eq!(frames_to_reach(4.88, 0.002), 2440);
        assert_eq!(frames_to_reach(4.881, 0.002), 2441);
        // Halves round away from 0; nothing below 0; NaN is 0; huge saturates.
        assert_eq!(nearest(2.5), 3);
        assert_eq!(nearest(-3.0), 0);
        assert_eq!(nearest(f64::NAN), 0);
        assert_eq!(nearest(1e300), u64::MAX);
        // A MEMG time at 30 fps: 1/3 s is timestep 10 exactly.
        assert_eq!(at_rate(1.0 / 3.0, 30.0), 10.0);
        assert_eq!(time_of(10, 1.0 / 30.0), 10.0 * (1.0 / 30.0));
    }

    #[test]
    fn frames_a_to_b_leave_b_out_and_seconds_keep_both_ends() {
        let p = 1.0 / 30.0;
        let g = Grid::new(10.0, p, Window::frames(3, 7, p));
        assert_eq!((g.first_frame(), g.len()), (3, 4));
        let g = Grid::new(10.0, p, Window::seconds(0.1, 0.2));
        assert_eq!(
            (g.first_frame(), g.len()),
            (3, 4),
            "0.1 s and 0.2 s are frames 3 and 6"
        );
        // Sampled at another rate than the window's frames: 7 fps over frames 0..30 (1 s).
        let g = Grid::new(10.0, 1.0 / 7.0, Window::frames(0, 30, p));
        assert_eq!(g.len(), 7, "0, 1/7 … 6/7 s; 7/7 s is frame 30, excluded");
        // Never past the motion's end, never before its start.
        let g = Grid::new(1.0, p, Window::frames(20, 1000, p));
        assert_eq!((g.first_frame(), g.len()), (20, 11));
        let g = Grid::new(1.0, p, Window::seconds(-5.0, 0.05));
        assert_eq!((g.first_frame(), g.len()), (0, 2));
        assert!(Grid::new(1.0, p, Window::seconds(2.0, 3.0)).is_empty());
        assert!(Grid::new(1.0, p, Window::frames(5, 5, p)).is_empty());
    }

    #[test]
    fn absurd_inputs_give_bounded_grids() {
        assert_eq!(Grid::new(f64::NAN, 0.5, Window::Whole).len(), 1);
        assert_eq!(Grid::new(f64::INFINITY, 0.5, Window::Whole).len(), 1);
        assert!(Grid::new(1.0, 0.0, Window::Whole).is_empty());
        assert!(Grid::new(1.0, f64::NAN, Window::Whole).is_empty());
        let huge = Grid::new(1e300, 1e-300, Window::Whole);
        assert_eq!(huge.len(), u64::MAX);
        assert_eq!(huge.stride_for(10), u64::MAX / 10 + 1);
        assert_eq!(huge.every(u64::MAX).count(), 1);
    }

    #[test]
    fn thinning_keeps_the_first_frame_and_the_budget() {
        let g = Grid::new(1.0, 0.01, Window::Whole);
        assert_eq!(g.len(), 101);
        let stride = g.stride_for(10);
        assert_eq!(stride, 11);
        let thinned: Vec<f64> = g.every(stride).collect();
        assert_eq!(thinned.len(), 10);
        assert_eq!(thinned[1], 11.0 * 0.01);
        assert_eq!(g.stride_for(1000), 1);
        assert_eq!(g.times().len(), 101);
    }
}
