//! How long a simulation may be, and how a caller follows and stops one.
//!
//! A simulation costs wall time in proportion to the simulated time (a
//! fixed 2 ms step), so a motion whose interpolation counts make it days
//! long would run for hours. [`check_length`] refuses, in one line and
//! before any step, a motion longer than the cap the caller chose
//! ([`DEFAULT_MAX_DURATION_S`] unless raised, never past
//! [`MAX_DURATION_CEILING_S`]); [`Watch`] tells a caller of the steps taken
//! and lets it stop a run within a fraction of a millisecond.

use std::sync::atomic::{AtomicBool, Ordering};

use super::step_counts;
use crate::error::{Error, Result};
use crate::formats::mtn::Mtn;

/// The longest motion simulated unless the caller raises the cap, seconds
/// of motion (first keyframe to last; the settling before and the hold
/// after are not counted). Real AIBO motions last seconds: the longest of
/// `data/`, `tests/data/mtn` and the 588 entries of Sony's four archives in
/// `tests/data/oda` is `a_sleep#sleep_soc_eyescustom01` at 25.152 s, and
/// the robot itself plays at most 250 s
/// (the workbench check's `MAX_DURATION_S`). 600 s is 24 times the
/// longest real motion and simulates in about a minute of one core
/// (`docs/physics.md` §3).
pub const DEFAULT_MAX_DURATION_S: f64 = 600.0;

/// The most a caller may raise the cap to (`viewer simulate
/// --max-duration`, Python's `simulate(max_duration=…)`), seconds of
/// motion: an hour, about six minutes of one core, and at most 1.8 million
/// recorded frames (under 1 GB) even at a 1 ms frame period.
pub const MAX_DURATION_CEILING_S: f64 = 3600.0;

/// How often a running simulation looks at its [`Watch`], in steps: 16
/// steps of 2 ms take about 3 ms of wall time (a simulated second about a
/// tenth of a second of one core, `docs/physics.md` §3).
pub(crate) const WATCH_STEPS: usize = 16;

/// Refuses, in one line naming `name`, a cap that is not a number of
/// seconds in `(0, MAX_DURATION_CEILING_S]`, and a motion longer than the
/// cap (an [`Error::TooLarge`] saying how to raise it).
pub fn check_length(mtn: &Mtn, name: &str, max_duration_s: f64) -> Result<()> {
    if !(max_duration_s > 0.0 && max_duration_s <= MAX_DURATION_CEILING_S) {
        return Err(Error::unsupported(
            name,
            format!(
                "a maximum duration of {max_duration_s} s: expected seconds above 0, \
                 at most {MAX_DURATION_CEILING_S}"
            ),
        ));
    }
    let duration = mtn.duration_s();
    if duration <= max_duration_s {
        return Ok(());
    }
    Err(Error::TooLarge {
        path: name.into(),
        what: format!(
            "a motion of {} frames of {} ms ({})",
            mtn.total_frames(),
            mtn.frame_ms(),
            readable_seconds(duration)
        ),
        limit: format!("{max_duration_s} s of motion"),
        hint: format!(
            "real AIBO motions last seconds; raise the cap (--max-duration, Python's \
             max_duration=) up to {MAX_DURATION_CEILING_S} s to simulate a longer one"
        ),
    })
}

/// Seconds as a reader takes them in: `4294967.3 s, 49.7 days`.
fn readable_seconds(s: f64) -> String {
    const DAY: f64 = 86_400.0;
    const YEAR: f64 = 365.25 * DAY;
    match s {
        s if s >= YEAR => format!("{s:.1} s, {:.1} years", s / YEAR),
        s if s >= DAY => format!("{s:.1} s, {:.1} days", s / DAY),
        s if s >= 3600.0 => format!("{s:.1} s, {:.1} hours", s / 3600.0),
        s => format!("{s:.1} s"),
    }
}

/// The fixed steps a simulation of `mtn` takes in all (settling, the
/// motion, the hold), for sizing a run before it starts; what a
/// [`Watch`]'s progress adds up to.
pub fn total_steps(mtn: &Mtn) -> u64 {
    let (settle, play, hold) = step_counts(mtn.duration_s());
    (settle + play + hold) as u64
}

/// What a caller hears of a running simulation, and how it stops one.
/// The library never prints: a command-line tool draws a bar from
/// `progress`, and sets `cancel` on Ctrl-C.
#[derive(Clone, Copy, Default)]
pub struct Watch<'a> {
    /// Told the number of steps taken since it was last told, every
    /// 16 steps (a few milliseconds apart) and at the end; the
    /// numbers add up to [`total_steps`]. Called from the thread that runs
    /// the simulation.
    pub progress: Option<&'a (dyn Fn(u64) + Sync)>,
    /// Looked at as often: once set, the run stops and returns no
    /// simulation.
    pub cancel: Option<&'a AtomicBool>,
}

impl std::fmt::Debug for Watch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("progress", &self.progress.is_some())
            .field("cancel", &self.cancel)
            .finish()
    }
}

impl Watch<'_> {
    /// Whether the caller asked the run to stop.
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// Tells the caller of `steps` more steps taken.
    pub(crate) fn took(&self, steps: usize) {
        if let Some(p) = self.progress {
            p(steps as u64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::mtn::Keyframe;

    fn seed() -> Mtn {
        crate::formats::mtn::decode(include_bytes!("../../../../data/sony_stand_sit.mtn")).unwrap()
    }

    /// The seed motion stretched: its last keyframe `interp` + 1 frames of
    /// `frame_ms` after the one before.
    fn stretched(interp: u32, frame_ms: u16) -> Mtn {
        let mut m = seed();
        let last: &mut Keyframe = m.keyframes.last_mut().unwrap();
        last.interp = interp;
        m.frame_rate = frame_ms;
        m
    }

    #[test]
    fn a_motion_longer_than_the_cap_is_refused_in_one_line_naming_its_length() {
        // The motion: one step of 2³² − 1 interpolated frames of
        // 1 ms is 49.7 days; the seed's frames before its last keyframe add
        // their own.
        let m = stretched(u32::MAX, 1);
        let before: u64 = seed().keyframes[1..]
            .iter()
            .rev()
            .skip(1)
            .map(|k| u64::from(k.interp) + 1)
            .sum();
        let frames = before + u64::from(u32::MAX) + 1;
        let e = check_length(&m, "long.mtn", DEFAULT_MAX_DURATION_S).unwrap_err();
        let line = e.to_string();
        assert!(matches!(e, Error::TooLarge { .. }), "{e:?}");
        assert!(!line.contains('\n'), "{line}");
        let seconds = frames as f64 / 1000.0;
        let what = format!("a motion of {frames} frames of 1 ms ({seconds:.1} s, 49.7 days)");
        assert!(line.starts_with(&format!("long.mtn: {what}")), "{line}");
        assert!(
            line.contains("more than the 600 s of motion allowed"),
            "{line}"
        );
        // 65 535 frames of 16 ms (1 049 s) pass only a raised cap; the seed
        // (4.88 s) passes the default.
        let m = stretched(u32::from(u16::MAX), 16);
        assert!(check_length(&m, "m", DEFAULT_MAX_DURATION_S).is_err());
        check_length(&m, "m", MAX_DURATION_CEILING_S).unwrap();
        check_length(&seed(), "seed", DEFAULT_MAX_DURATION_S).unwrap();
    }

    #[test]
    fn a_cap_that_is_not_seconds_up_to_the_ceiling_is_refused() {
        let m = stretched(10, 16);
        for cap in [0.0, -1.0, f64::NAN, f64::INFINITY, 3600.5] {
            let e = check_length(&m, "m.mtn", cap).unwrap_err();
            assert!(e.to_string().contains("at most 3600"), "{e}");
        }
    }

    #[test]
    fn readable_seconds_name_days_and_years() {
        assert_eq!(readable_seconds(4_294_967.3), "4294967.3 s, 49.7 days");
        // The other motion: 2³² − 1 frames of 65.535 s, and a year
        // of 365.25 days.
        let s = 4_294_967_295.0 * 65.535;
        assert_eq!(readable_seconds(s), "281470681677.8 s, 8919.3 years");
        assert_eq!(readable_seconds(7200.0), "7200.0 s, 2.0 hours");
        assert_eq!(readable_seconds(4.88), "4.9 s");
    }
}
