//! The one finite-number policy of every exporter: a number that is not
//! finite (NaN, ±∞, or a finite `f64` beyond `f32`'s range where the file
//! stores `f32`) is refused with an [`Error::NonFinite`] naming the track,
//! the field and the time — never written. Where the data itself means
//! "no value here" (an MRTK recording losing tracking), the exporter holds
//! the last finite value instead and says so once ([`Holder`]).

use crate::anim::clock;
use crate::anim::input_animation::{FRAME_PERIOD_S, InputState, state_at as input_state_at};
use crate::error::{Error, Result};
use crate::formats::input_animation::InputAnimation;
use std::path::Path;

/// `value` as an `f32`, or the refusal naming `path`, `field` (built only
/// on failure) and `time_s`.
pub(crate) fn to_f32(
    value: f64,
    path: &Path,
    time_s: f64,
    field: impl FnOnce() -> String,
) -> Result<f32> {
    let narrowed = value as f32;
    if narrowed.is_finite() {
        return Ok(narrowed);
    }
    Err(refusal(value, path, time_s, field(), true))
}

/// `value` if it is finite, or the refusal naming `path`, `field` (built
/// only on failure) and `time_s`.
pub fn check(value: f64, path: &Path, time_s: f64, field: impl FnOnce() -> String) -> Result<f64> {
    if value.is_finite() {
        return Ok(value);
    }
    Err(refusal(value, path, time_s, field(), false))
}

/// `value` (an `f32` already) if it is finite, or the refusal.
pub(crate) fn check_f32(
    value: f32,
    path: &Path,
    time_s: f64,
    field: impl FnOnce() -> String,
) -> Result<f32> {
    if value.is_finite() {
        return Ok(value);
    }
    Err(refusal(f64::from(value), path, time_s, field(), false))
}

fn refusal(value: f64, path: &Path, time_s: f64, field: String, narrowing: bool) -> Error {
    let value = if value.is_finite() && narrowing {
        format!("{value:e} (beyond f32's range)")
    } else {
        format!("{value}")
    };
    Error::NonFinite {
        path: path.to_path_buf(),
        field,
        time_s,
        value,
    }
}

/// Holds the last finite value of each channel through stretches where the
/// data is not finite (tracking loss), counting the values held so that the
/// exporter can say so once.
#[derive(Debug, Clone, Default)]
pub struct Holder {
    last: Vec<f64>,
    held: u64,
    first_held_s: Option<f64>,
}

impl Holder {
    /// A holder whose values before the first finite one are `start` (0 for
    /// a channel past its end).
    pub fn new(start: impl Into<Vec<f64>>) -> Holder {
        Holder {
            last: start.into(),
            held: 0,
            first_held_s: None,
        }
    }

    /// Replaces each value of `values` that is not finite by its channel's
    /// last finite value.
    pub fn hold(&mut self, values: &mut [f64], time_s: f64) {
        if self.last.len() < values.len() {
            self.last.resize(values.len(), 0.0);
        }
        for (v, last) in values.iter_mut().zip(&mut self.last) {
            if v.is_finite() {
                *last = *v;
            } else {
                *v = *last;
                self.held += 1;
                self.first_held_s.get_or_insert(time_s);
            }
        }
    }

    /// [`Holder::hold`] for the `f32` channels of an MRTK state: camera and
    /// hand-joint positions and rotations, gaze origin and direction, in a
    /// fixed order. (A rotation the curves leave without a direction already
    /// reads as the identity; see [`crate::anim::input_animation::pose_at`].)
    pub fn hold_input(&mut self, state: &mut InputState) {
        let time_s = state.time_s;
        let channels = input_channels(state);
        if channels.iter().all(|v| v.is_finite()) {
            // The common case: remember the values, change nothing.
            self.last.resize(self.last.len().max(channels.len()), 0.0);
            for (last, v) in self.last.iter_mut().zip(&channels) {
                *last = f64::from(**v);
            }
            return;
        }
        let mut wide: Vec<f64> = channels.iter().map(|v| f64::from(**v)).collect();
        self.hold(&mut wide, time_s);
        for (v, w) in channels.into_iter().zip(wide) {
            *v = w as f32;
        }
    }

    /// Values held so far.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// One warning for everything held so far (`what`: the part, e.g. `left
    /// hand joints`), or none.
    pub fn warning(&self, path: &Path, what: &str) -> Option<String> {
        let first = self.first_held_s?;
        Some(format!(
            "{}: {what}: {} values were not finite (tracking lost, first at {first} s); the last finite value is held there",
            crate::text::Escaped::path(path),
            self.held
        ))
    }
}

/// The MRTK recording `r` at `t` seconds with each value that is not finite
/// held at its last finite value, as [`Holder::hold_input`] holds a table's
/// rows at 60 Hz: the frames before `t` are searched back, one 1/60 s apart,
/// for the last where each such channel was finite (at most
/// [`MAX_HOLD_SEARCH`] frames; a channel never finite there takes 0). Returns
/// the state and how many values were held.
pub fn held_input_state(r: &InputAnimation, t: f64) -> (InputState, u64) {
    let mut state = input_state_at(r, t);
    if input_channels(&mut state).iter().all(|v| v.is_finite()) {
        return (state, 0);
    }
    let last_frame = clock::last_frame(t, FRAME_PERIOD_S);
    let last_frame = if last_frame.is_finite() && last_frame > 0.0 {
        last_frame as u64
    } else {
        0
    };
    let mut holder = Holder::default();
    for k in last_frame.saturating_sub(MAX_HOLD_SEARCH)..=last_frame {
        let time = clock::time_of(k, FRAME_PERIOD_S);
        if time <= t {
            holder.hold_input(&mut input_state_at(r, time));
        }
    }
    let before = holder.held();
    holder.hold_input(&mut state);
    (state, holder.held() - before)
}

/// Every `f32` channel of an MRTK state that [`Holder::hold_input`] holds, in order.
fn input_channels(state: &mut InputState) -> Vec<&mut f32> {
    let mut channels: Vec<&mut f32> = Vec::new();
    if let Some(c) = state.camera.as_mut() {
        channels.extend(c.position.iter_mut().chain(&mut c.rotation));
    }
    if let Some(h) = state.hands.as_mut() {
        for hand in [&mut h.left, &mut h.right] {
            for j in &mut hand.joints {
                channels.extend(j.position.iter_mut().chain(&mut j.rotation));
            }
        }
    }
    if let Some(g) = state.eye_gaze.as_mut() {
        channels.extend(g.origin.iter_mut().chain(&mut g.direction));
    }
    channels
}

/// The most 60 Hz frames [`held_input_state`] looks back.
pub const MAX_HOLD_SEARCH: u64 = 36_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_track_the_field_and_the_time() {
        let p = Path::new("a.bin");
        assert_eq!(to_f32(1.5, p, 0.0, || "x".into()).unwrap(), 1.5);
        let e = to_f32(1e39, p, 0.25, || "group 'g' vertex 3 y".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.bin: group 'g' vertex 3 y at 0.25 s is 1e39 (beyond f32's range); refused (an output must hold finite numbers)"
        );
        let e = check(f64::NAN, p, 1.0, || "camera x".into()).unwrap_err();
        assert!(e.to_string().contains("camera x at 1 s is NaN"), "{e}");
        let e = check_f32(f32::NEG_INFINITY, p, 2.0, || "q".into()).unwrap_err();
        assert!(e.to_string().contains("is -inf"), "{e}");
    }

    #[test]
    fn a_holder_keeps_the_last_finite_value_and_counts() {
        let mut h = Holder::new([0.0; 2]);
        let mut row = [1.0, 2.0];
        h.hold(&mut row, 0.0);
        assert_eq!(row, [1.0, 2.0]);
        let mut row = [f64::NAN, 3.0];
        h.hold(&mut row, 0.5);
        assert_eq!(row, [1.0, 3.0]);
        let mut row = [f64::INFINITY, f64::NAN];
        h.hold(&mut row, 1.0);
        assert_eq!(row, [1.0, 3.0]);
        let w = h.warning(Path::new("r.mrtk"), "left hand").unwrap();
        assert_eq!(
            w,
            "r.mrtk: left hand: 3 values were not finite (tracking lost, first at 0.5 s); the last finite value is held there"
        );
        assert!(Holder::new([0.0]).warning(Path::new("x"), "y").is_none());
    }
}
