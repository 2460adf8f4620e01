//! The one finite-number policy of every exporter: a number that is not
//! finite (NaN, ±∞, or a finite `f64` beyond `f32`'s range where the file
//! stores `f32`) is refused with an [`Error::NonFinite`] naming the track,
//! the field and the time — never written. Where the data itself means
//! "no value here" (an MRTK recording losing tracking), the exporter holds
//! the last finite value instead and says so once ([`Holder`]).

use crate::error::{Error, Result};
use std::path::Path;

/// `value` as an `f32`, or the refusal naming `path`, `field` (built only
/// on failure) and `time_s`.
pub fn to_f32(value: f64, path: &Path, time_s: f64, field: impl FnOnce() -> String) -> Result<f32> {
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
pub fn check_f32(
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

/// Holds the last finite value of each of `N` channels through stretches
/// where the data is not finite (tracking loss), counting the values held so
/// that the exporter can say so once.
#[derive(Debug, Clone)]
pub struct Holder<const N: usize> {
    last: [f64; N],
    held: u64,
    first_held_s: Option<f64>,
}

impl<const N: usize> Holder<N> {
    /// A holder whose values before the first finite one are `start`.
    pub fn new(start: [f64; N]) -> Holder<N> {
        Holder {
            last: start,
            held: 0,
            first_held_s: None,
        }
    }

    /// `values` with each non-finite one replaced by the channel's last
    /// finite value.
    pub fn hold(&mut self, values: [f64; N], time_s: f64) -> [f64; N] {
        let mut out = values;
        for (i, v) in out.iter_mut().enumerate() {
            if v.is_finite() {
                self.last[i] = *v;
            } else {
                *v = self.last[i];
                self.held += 1;
                self.first_held_s.get_or_insert(time_s);
            }
        }
        out
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
        assert_eq!(h.hold([1.0, 2.0], 0.0), [1.0, 2.0]);
        assert_eq!(h.hold([f64::NAN, 3.0], 0.5), [1.0, 3.0]);
        assert_eq!(h.hold([f64::INFINITY, f64::NAN], 1.0), [1.0, 3.0]);
        let w = h.warning(Path::new("r.mrtk"), "left hand").unwrap();
        assert_eq!(
            w,
            "r.mrtk: left hand: 3 values were not finite (tracking lost, first at 0.5 s); the last finite value is held there"
        );
        assert!(
            Holder::<1>::new([0.0])
                .warning(Path::new("x"), "y")
                .is_none()
        );
    }
}
