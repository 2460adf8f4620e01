//! Every channel of a track over time: what the curves panel, `viewer plot`
//! and `viewer diff` read.
//!
//! A channel is one number per instant, named as `info` and `export` name it:
//! a table column for AIBO (`roll_deg`, `pitch_deg`, `yaw_deg`, each joint's
//! PRM name) and MRTK (`camera_px`, `left_tracked`, `right_IndexTip_rw`,
//! `gaze_dx`…); for MEMG group `g`'s coefficient `q_i(t)` is `g{g}_q{i}`
//! (`groups[g].q[i]` in `export --time`'s state JSON) and, for a group with
//! a local frame, the frame's translation `g{g}_tx`/`_ty`/`_tz`
//! (`groups[g].translation`). Between timesteps MEMG values follow the one
//! rule every path samples by ([`crate::anim::memg::Between`]). A [`Series`]
//! holds one channel sampled
//! at given times, with a min/max summary so that a curve of any length is
//! drawn from a bounded number of points ([`Series::envelope`]).
//!
//! Sampling is bounded: one series holds at most 2 000 000 samples,
//! and more are refused in one line before anything is evaluated.

pub mod diff;
mod envelope;
pub mod plot;
pub mod select;
mod source;
pub mod svg;
#[cfg(test)]
mod tests;

use crate::anim::clock::Window;
use crate::error::{Error, Result};
use crate::scene::Track;
use source::{Evaluator, Pick, catalogue};
use std::sync::{Mutex, OnceLock};

/// The unit a channel's values are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Degrees (AIBO body and joint angles).
    Degrees,
    /// Metres (MRTK positions, gaze origin).
    Metres,
    /// No unit: a quaternion component, a direction, a basis coefficient;
    /// also a MEMG frame translation, in the `.obj`'s own (unnamed) unit.
    Unitless,
    /// A state, 0 or 1 (MRTK tracked, pinching).
    State,
}

impl Unit {
    /// How an axis label writes it: `"°"`, `"m"`, `""`, `"0/1"`.
    pub(crate) fn symbol(self) -> &'static str {
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
    /// `["joints", "left_front_leg"]`, `["left hand", "IndexTip"]`,
    /// `["group 1 (flag3)", "coefficients"]`).
    pub path: Vec<String>,
    /// The unit of its values.
    pub unit: Unit,
    /// The robot model's joint limits, in the channel's unit, for an AIBO
    /// joint whose model is known.
    pub limits: Option<(f64, f64)>,
}

/// Every channel of `track`, in table order.
pub fn channels(track: &Track) -> Vec<Channel> {
    catalogue(track).into_iter().map(|(c, _)| c).collect()
}

/// One channel sampled at increasing times.
///
/// The min/max summary [`Series::envelope`] reads is built from `values` on
/// its first use and kept, and so is the last envelope asked for (a curve
/// redrawn over the same view costs a copy): a series whose samples change
/// afterwards must be made anew ([`Series::new`]) rather than edited in place.
pub struct Series {
    /// The channel's name.
    pub name: String,
    /// Sample times in seconds, increasing.
    pub times: Vec<f64>,
    /// The channel's value at each time.
    pub values: Vec<f64>,
    /// Built on first use.
    summary: OnceLock<envelope::Summary>,
    /// The last envelope: `(t0, t1, columns)` and its spans.
    last: Mutex<Option<LastEnvelope>>,
}

/// A view `(t0, t1, columns)` and its envelope.
type LastEnvelope = ((f64, f64, usize), Vec<Span>);

impl Clone for Series {
    fn clone(&self) -> Series {
        Series {
            name: self.name.clone(),
            times: self.times.clone(),
            values: self.values.clone(),
            summary: self.summary.clone(),
            last: Mutex::new(None),
        }
    }
}

impl std::fmt::Debug for Series {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Series")
            .field("name", &self.name)
            .field("times", &self.times)
            .field("values", &self.values)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Series {
    fn eq(&self, other: &Series) -> bool {
        self.name == other.name && self.times == other.times && self.values == other.values
    }
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
    /// The time of the sample holding `min`.
    pub t_min: f64,
    /// The time of the sample holding `max`.
    pub t_max: f64,
}

/// Samples the channels `names` of `track` at `times` (one pose evaluation
/// per time for all of them). Fails on a name the track does not have, or
/// on more samples than 2 000 000.
pub fn sample(track: &Track, names: &[&str], times: &[f64]) -> Result<Vec<Series>> {
    check_count(track, times.len())?;
    if let Some(t) = times.iter().find(|t| !t.is_finite()) {
        return Err(Error::unsupported(
            track.path(),
            format!("sample times must be finite; found {t}"),
        ));
    }
    if let Some(w) = times.windows(2).find(|w| w[1] < w[0]) {
        return Err(Error::unsupported(
            track.path(),
            format!("sample times must increase; found {} after {}", w[1], w[0]),
        ));
    }
    let picks = picks(track, names)?;
    let mut evaluator = Evaluator::new(track, picks);
    let mut columns: Vec<Vec<f64>> = names
        .iter()
        .map(|_| Vec::with_capacity(times.len()))
        .collect();
    let mut row = vec![0.0; names.len()];
    for &t in times {
        evaluator.values_at(t, &mut row);
        for (column, &v) in columns.iter_mut().zip(&row) {
            column.push(v);
        }
    }
    Ok(names
        .iter()
        .zip(columns)
        .map(|(name, values)| Series::new(name.to_string(), times.to_vec(), values))
        .collect())
}

/// Refuses more than [`MAX_SAMPLES`] samples, naming the track.
fn check_count(track: &Track, count: usize) -> Result<()> {
    if count > MAX_SAMPLES {
        return Err(Error::TooLarge {
            path: track.path().to_path_buf(),
            what: format!("{count} samples of a channel"),
            limit: format!("{MAX_SAMPLES}"),
            hint: "sample a shorter stretch or at a coarser period".into(),
        });
    }
    Ok(())
}

/// Where each of `names` comes from, or the one-line refusal of a name the
/// track does not have (with some of the names it has).
fn picks(track: &Track, names: &[&str]) -> Result<Vec<Pick>> {
    let catalogue = catalogue(track);
    names
        .iter()
        .map(|name| {
            catalogue
                .iter()
                .find(|(c, _)| c.name == *name)
                .map(|(_, p)| *p)
                .ok_or_else(|| {
                    let known: Vec<&str> = catalogue.iter().map(|(c, _)| c.name.as_str()).collect();
                    Error::unsupported(
                        track.path(),
                        format!("no channel \"{name}\"; {}", listing(&known)),
                    )
                })
        })
        .collect()
}

/// `N channels: a, b, c, …` (the first few names), for messages.
pub(crate) fn listing(names: &[&str]) -> String {
    const SHOWN: usize = 8;
    match names.len() {
        0 => "it has no channels".into(),
        n => {
            let mut text = format!(
                "{n} channel{}: {}",
                if n == 1 { "" } else { "s" },
                names[..n.min(SHOWN)].join(", ")
            );
            if n > SHOWN {
                text.push_str(", …");
            }
            text
        }
    }
}

#[cfg_attr(not(feature = "window"), allow(dead_code))] // the curves panel's
/// The times [`sample_frames`] samples `track` at: every frame of its own
/// period from 0 to its duration, last frame included; every k-th frame
/// when there are more than 2 000 000.
pub(crate) fn frame_times(track: &Track) -> Vec<f64> {
    let grid = track.grid(None, Window::Whole);
    grid.every(grid.stride_for(MAX_SAMPLES as u64)).collect()
}

#[cfg_attr(not(feature = "window"), allow(dead_code))] // the curves panel's
/// Samples the channels `names` of `track` at every frame of the track (at
/// its own frame period; a coarser one when it has more than
/// [`MAX_SAMPLES`] frames).
pub(crate) fn sample_frames(track: &Track, names: &[&str]) -> Result<Vec<Series>> {
    sample(track, names, &frame_times(track))
}

/// The most samples one series holds.
pub(crate) const MAX_SAMPLES: usize = 2_000_000;

impl Series {
    /// A series of `values` at `times` (increasing).
    pub fn new(name: String, times: Vec<f64>, values: Vec<f64>) -> Series {
        Series {
            name,
            times,
            values,
            summary: OnceLock::new(),
            last: Mutex::new(None),
        }
    }

    /// The series over `[t0, t1]` cut into `columns` equal stretches, each
    /// with its smallest and largest value: at most `columns` spans whatever
    /// the series' length, and the true minimum and maximum kept.
    pub fn envelope(&self, t0: f64, t1: f64, columns: usize) -> Vec<Span> {
        let key = (t0, t1, columns);
        // A poisoned lock only means a panic elsewhere mid-copy: recompute.
        if let Ok(last) = self.last.lock()
            && let Some((k, spans)) = last.as_ref()
            && *k == key
        {
            return spans.clone();
        }
        let spans = self.envelope_impl(t0, t1, columns);
        if let Ok(mut last) = self.last.lock() {
            *last = Some((key, spans.clone()));
        }
        spans
    }

    #[cfg_attr(not(feature = "window"), allow(dead_code))] // the window's
    /// The value at `t`, linearly between samples; `None` outside the series.
    pub(crate) fn value_at(&self, t: f64) -> Option<f64> {
        self.value_at_impl(t)
    }

    /// The smallest and largest finite value, if any.
    pub fn range(&self) -> Option<(f64, f64)> {
        self.range_impl()
    }
}
