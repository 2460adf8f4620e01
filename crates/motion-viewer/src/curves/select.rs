//! Picking channels by name: `viewer plot --channels PATTERN…` and the
//! time window a plot or a comparison covers.

use super::{Channel, MAX_SAMPLES, channels, listing};
use crate::anim::clock;
use crate::error::{Error, Result};
use crate::scene::Track;
use std::path::Path;

/// Whether `name` matches `pattern`: `*` stands for any run of characters
/// (none included), `?` for exactly one; every other character for itself.
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Greedy with one backtrack point, the last `*`: linear in practice and
    // never exponential, whatever the pattern.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        // A `*` in the pattern is always the wildcard, even against a `*`
        // in the name.
        if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// The channels of `track` that any of `patterns` matches, in table order.
pub(crate) fn select(track: &Track, patterns: &[String]) -> Vec<Channel> {
    channels(track)
        .into_iter()
        .filter(|c| patterns.iter().any(|p| matches(p, &c.name)))
        .collect()
}

/// Refuses a pattern that matches no channel of any of `tracks`, naming
/// the first file and some of its channels.
pub(crate) fn check_patterns(tracks: &[Track], patterns: &[String]) -> Result<()> {
    for pattern in patterns {
        let found = tracks
            .iter()
            .any(|t| channels(t).iter().any(|c| matches(pattern, &c.name)));
        if !found {
            let Some(first) = tracks.first() else {
                return Ok(());
            };
            let names: Vec<String> = channels(first).into_iter().map(|c| c.name).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            return Err(Error::unsupported(
                first.path(),
                format!(
                    "no channel matches \"{}\" (`*` any run, `?` one character); {}",
                    crate::text::cut(&crate::text::escape(pattern), crate::text::QUOTED_CHARS),
                    listing(&names)
                ),
            ));
        }
    }
    Ok(())
}

/// Which stretch of time a plot or comparison covers.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Window {
    /// From 0 to the end of the longest track.
    #[default]
    All,
    /// Frames `A..B` (B excluded) in the first track's frame period.
    Frames(u64, u64),
    /// Seconds `A..=B`.
    Seconds(f64, f64),
}

impl Window {
    /// The window on the clock: frames `A..B` of the first track's frame
    /// period (B excluded), the seconds `A..=B`, or every frame.
    pub(crate) fn clock(self, tracks: &[Track]) -> clock::Window {
        match self {
            Window::All => clock::Window::Whole,
            Window::Frames(a, b) => {
                let period = tracks.first().map_or(1.0, Track::frame_period_s);
                clock::Window::frames(a, b, period)
            }
            Window::Seconds(a, b) => clock::Window::seconds(a, b),
        }
    }

    /// The window in seconds for `tracks`, `[t0, t1]` with `t0 ≤ t1`.
    /// Fails on a window that is empty or holds no time of any track.
    pub(crate) fn seconds(self, tracks: &[Track], out: &Path) -> Result<(f64, f64)> {
        let end = tracks.iter().map(Track::duration_s).fold(0.0, f64::max);
        let (a, b) = match self {
            Window::All => (0.0, end),
            Window::Frames(a, b) => {
                let period = tracks.first().map_or(1.0, Track::frame_period_s);
                (
                    clock::time_of(a, period),
                    clock::time_of(b.saturating_sub(1), period),
                )
            }
            Window::Seconds(a, b) => (a, b),
        };
        if !(a.is_finite() && b.is_finite() && a <= b) {
            return Err(Error::unsupported(
                out,
                format!("the time range {a}..{b} s is empty; give A..B with A < B"),
            ));
        }
        if a > end || b < 0.0 {
            return Err(Error::unsupported(
                out,
                format!("{a}..{b} s holds none of the motion, which lasts 0..{end} s"),
            ));
        }
        Ok((a.max(0.0), b.min(end)))
    }
}

/// The frame times of `track` (its own period) that `window` holds, every
/// `stride`-th frame, with the stride that keeps them within `budget`
/// samples (and [`MAX_SAMPLES`]).
pub(crate) fn frame_times_in(
    track: &Track,
    window: clock::Window,
    budget: usize,
) -> (Vec<f64>, u64) {
    let grid = track.grid(None, window);
    let stride = grid.stride_for(budget.clamp(1, MAX_SAMPLES) as u64);
    (grid.every(stride).collect(), stride)
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn patterns_match_as_globs() {
        assert!(matches("*", "PRM:/r2/c1-Joint2:j1"));
        assert!(matches("PRM:/r2/*", "PRM:/r2/c1-Joint2:j1"));
        assert!(!matches("PRM:/r3/*", "PRM:/r2/c1-Joint2:j1"));
        assert!(matches("right_*Tip_p?", "right_IndexTip_px"));
        assert!(!matches("right_*Tip_p?", "right_IndexTip_rx"));
        assert!(matches("g1_q?", "g1_q5"));
        assert!(!matches("g1_q?", "g1_q15"));
        assert!(matches("pitch_deg", "pitch_deg"));
        assert!(!matches("pitch", "pitch_deg"));
        assert!(matches("*a*b*c", "xxaxxbxxbxc"));
        assert!(matches("", ""));
        assert!(!matches("", "x"));
        // A pathological pattern stays fast.
        let long = "a".repeat(10_000);
        assert!(!matches(
            &"*a".repeat(50).replace("**", "*"),
            &format!("{long}b")
        ));
    }
}
