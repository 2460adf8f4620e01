//! Every channel of a track over time: what the curves panel, `viewer plot`
//! and `viewer diff` read.
//!
//! A channel is one number per instant, named as `info` and `export` name it
//! (a table column for AIBO and MRTK; for MEMG `g{group}_q{i}` and the local
//! frame's `g{group}_tx`/`_ty`/`_tz`). A [`Series`] holds one channel sampled
//! at given times, with a min/max summary so that a curve of any length is
//! drawn from a bounded number of points ([`Series::envelope`]).
//!
//! INTERFACE SKELETON: the bodies are being written (issue 24); the names and
//! signatures below are what the app codes against.

use crate::error::Result;
use crate::scene::Track;

/// The unit a channel's values are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Degrees (AIBO body and joint angles).
    Degrees,
    /// Metres (MRTK positions, gaze origin).
    Metres,
    /// No unit: a quaternion component, a direction, a basis coefficient.
    Unitless,
    /// A state, 0 or 1 (MRTK tracked, pinching).
    State,
}

impl Unit {
    /// How an axis label writes it: `"°"`, `"m"`, `""`, `"0/1"`.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Degrees => "°",
            Unit::Metres => "m",
            Unit::Unitless => "",
            Unit::State => "0/1",
        }
    }
}

/// One channel of a track.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// Its name as `info` and `export` call it (`pitch_deg`, a joint's
    /// PRM name, `left_IndexTip_px`, `g0_q3`).
    pub name: String,
    /// Where it sits in the channel tree, outermost first (`["body"]`,
    /// `["joints"]`, `["left hand", "IndexTip"]`, `["group 0", "coefficients"]`).
    pub path: Vec<String>,
    /// The unit of its values.
    pub unit: Unit,
    /// The robot model's joint limits, in the channel's unit, for an AIBO
    /// joint whose model is known.
    pub limits: Option<(f64, f64)>,
}

/// Every channel of `track`, in table order.
pub fn channels(track: &Track) -> Vec<Channel> {
    let _ = track;
    todo!("issue 24: curves::channels")
}

/// One channel sampled at increasing times.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The channel's name.
    pub name: String,
    /// Sample times in seconds, increasing.
    pub times: Vec<f64>,
    /// The channel's value at each time.
    pub values: Vec<f64>,
}

/// The smallest and largest value of a series over one stretch of time:
/// one pixel column of a drawn curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Start of the stretch, seconds.
    pub t0: f64,
    /// End of the stretch, seconds.
    pub t1: f64,
    /// Smallest value in it.
    pub min: f64,
    /// Largest value in it.
    pub max: f64,
}

/// Samples the channels `names` of `track` at `times` (one pose evaluation
/// per time for all of them). Fails on a name the track does not have, or
/// on more samples than [`MAX_SAMPLES`].
pub fn sample(track: &Track, names: &[&str], times: &[f64]) -> Result<Vec<Series>> {
    let _ = (track, names, times);
    todo!("issue 24: curves::sample")
}

/// Samples the channels `names` of `track` at every frame of the track (at
/// its own frame period; a coarser one when it has more than
/// [`MAX_SAMPLES`] frames).
pub fn sample_frames(track: &Track, names: &[&str]) -> Result<Vec<Series>> {
    let _ = (track, names);
    todo!("issue 24: curves::sample_frames")
}

/// The most samples one series holds.
pub const MAX_SAMPLES: usize = 2_000_000;

impl Series {
    /// The series over `[t0, t1]` cut into `columns` equal stretches, each
    /// with its smallest and largest value: at most `columns` spans whatever
    /// the series' length, and the true minimum and maximum kept.
    pub fn envelope(&self, t0: f64, t1: f64, columns: usize) -> Vec<Span> {
        let _ = (t0, t1, columns);
        todo!("issue 24: Series::envelope")
    }

    /// The value at `t`, linearly between samples; `None` outside the series.
    pub fn value_at(&self, t: f64) -> Option<f64> {
        let _ = t;
        todo!("issue 24: Series::value_at")
    }

    /// The smallest and largest finite value, if any.
    pub fn range(&self) -> Option<(f64, f64)> {
        todo!("issue 24: Series::range")
    }
}
