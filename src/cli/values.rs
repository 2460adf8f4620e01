//! The command line's values, parsed by clap: sizes and frame ranges by
//! their `FromStr`; the library's choices (layout, deform, basis, loop) by
//! the library's own `FromStr`; `--view` as a [`ValueEnum`] that clap lists
//! in `--help`, mapped onto the library's camera preset (which has no
//! `FromStr` and knows nothing of clap).

use clap::ValueEnum;
use motion_viewer::scene::camera::Preset;
use std::str::FromStr;

/// The largest side of a picture or window.
pub const MAX_SIDE: u32 = 16384;

/// A picture or window size, `WxH` (or `WXH`), each side in 1..=16384.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
}

impl Size {
    /// `[width, height]`.
    pub fn pair(self) -> [u32; 2] {
        [self.width, self.height]
    }
}

impl FromStr for Size {
    type Err = String;

    fn from_str(text: &str) -> Result<Size, String> {
        text.split_once(['x', 'X'])
            .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
            .filter(|&(w, h): &(u32, u32)| {
                (1..=MAX_SIDE).contains(&w) && (1..=MAX_SIDE).contains(&h)
            })
            .map(|(width, height)| Size { width, height })
            .ok_or_else(|| format!("expected WxH with sides 1 to {MAX_SIDE}, e.g. 1280x720"))
    }
}

/// A range of frames `A..B`, B excluded, A < B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRange {
    /// The first frame.
    pub start: u64,
    /// One past the last frame.
    pub end: u64,
}

impl FrameRange {
    /// `(start, end)`.
    pub fn pair(self) -> (u64, u64) {
        (self.start, self.end)
    }
}

impl FromStr for FrameRange {
    type Err = String;

    fn from_str(text: &str) -> Result<FrameRange, String> {
        let parsed = text
            .split_once("..")
            .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
        match parsed {
            Some((start, end)) if start < end => Ok(FrameRange { start, end }),
            _ => Err("expected A..B with A < B, e.g. 0..120".into()),
        }
    }
}

/// A stretch of time `A..B` in seconds, A < B, both finite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeRange {
    /// Its start, seconds.
    pub start: f64,
    /// Its end, seconds (included).
    pub end: f64,
}

impl FromStr for TimeRange {
    type Err = String;

    fn from_str(text: &str) -> Result<TimeRange, String> {
        let parsed = text
            .split_once("..")
            .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
        match parsed {
            Some((start, end)) if f64::is_finite(start) && f64::is_finite(end) && start < end => {
                Ok(TimeRange { start, end })
            }
            _ => Err("expected A..B in seconds with A < B, e.g. 0.5..2.25".into()),
        }
    }
}

/// A value as a refusal quotes it: escaped, and cut after
/// [`motion_viewer::text::QUOTED_CHARS`] characters.
pub fn shown(text: &str) -> String {
    let escaped = motion_viewer::text::escape(text);
    motion_viewer::text::cut(&escaped, motion_viewer::text::QUOTED_CHARS).into_owned()
}

/// A number ≥ 0 (`--tolerance`).
pub fn non_negative(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!(
            "expected a number ≥ 0 such as 0.01, found \"{}\"",
            shown(text)
        )),
    }
}

/// A factor > 0 (`--b-speed`).
pub fn positive(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!(
            "expected a positive number such as 2 or 0.5, found \"{}\"",
            shown(text)
        )),
    }
}

/// `--view`: where the camera looks from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum View {
    /// From the front, right and above.
    #[default]
    ThreeQuarter,
    /// From the front.
    Front,
    /// From the side.
    Side,
    /// From above.
    Top,
}

impl From<View> for Preset {
    fn from(view: View) -> Preset {
        match view {
            View::ThreeQuarter => Preset::ThreeQuarter,
            View::Front => Preset::Front,
            View::Side => Preset::Side,
            View::Top => Preset::Top,
        }
    }
}

// `--layout`, `--deform`, `--basis` and `--loop` are the library's own
// types (`Layout`, `DeformOn`, `BasisFormat`, `LoopMode`), parsed by their
// `FromStr`: one list of spellings, and the library's error for a wrong one.

#[cfg(test)]
mod tests {
    use super::*;
    use motion_viewer::anim::LoopMode;
    use motion_viewer::gpu::BasisFormat;
    use motion_viewer::scene::Layout;
    use motion_viewer::stage::DeformOn;

    #[test]
    fn sizes() {
        let size = |s: &str| s.parse::<Size>().map(Size::pair);
        assert_eq!(size("1280x720").unwrap(), [1280, 720]);
        assert_eq!(size("64X48").unwrap(), [64, 48]);
        assert_eq!(size("16384x1").unwrap(), [16384, 1]);
        for bad in ["0x10", "16385x10", "1280", "320", "ax b", "-1x5", ""] {
            assert!(size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ranges() {
        let range = |s: &str| s.parse::<FrameRange>().map(FrameRange::pair);
        assert_eq!(range("3..9").unwrap(), (3, 9));
        assert_eq!(range(" 0 .. 1 ").unwrap(), (0, 1));
        for bad in ["9..3", "3..3", "a..b", "3", "..4", "-1..2"] {
            assert!(range(bad).is_err(), "{bad}");
        }
        let seconds = |s: &str| s.parse::<TimeRange>().map(|r| (r.start, r.end));
        assert_eq!(seconds("0.5..2.25").unwrap(), (0.5, 2.25));
        assert_eq!(seconds("-1..1").unwrap(), (-1.0, 1.0));
        for bad in ["2..1", "1..1", "0..inf", "nan..1", "1", "a..2"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(non_negative("0"), Ok(0.0));
        assert!(non_negative("-0.1").is_err() && non_negative("nan").is_err());
        assert_eq!(positive("2"), Ok(2.0));
        assert!(positive("0").is_err() && positive("inf").is_err());
    }

    #[test]
    fn choices_are_named_as_the_help_says() {
        let names = |v: &[clap::builder::PossibleValue]| {
            v.iter()
                .map(|p| p.get_name().to_string())
                .collect::<Vec<_>>()
        };
        let views: Vec<_> = View::value_variants()
            .iter()
            .filter_map(ValueEnum::to_possible_value)
            .collect();
        assert_eq!(names(&views), ["three-quarter", "front", "side", "top"]);
        assert_eq!(Layout::from_str("true-scale"), Ok(Layout::TrueScale));
        assert_eq!("pingpong".parse::<LoopMode>().unwrap(), LoopMode::PingPong);
        assert_eq!("f16".parse::<BasisFormat>(), Ok(BasisFormat::F16));
        assert_eq!("cpu".parse::<DeformOn>(), Ok(DeformOn::Cpu));
    }
}

/// `--start-time S`: seconds since the Unix epoch (a decimal, up to nine
/// digits after the point) as nanoseconds, read exactly: through an `f64`
/// an epoch of today would lose its last few hundred nanoseconds.
pub fn start_time_ns(text: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "expected seconds since the Unix epoch such as 1700000000.25, found \"{}\"",
            shown(text)
        )
    };
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !(frac.is_empty() || digits(frac)) || frac.len() > 9 {
        return Err(bad());
    }
    let seconds: u64 = whole.parse().map_err(|_| bad())?;
    let nanos: u64 = format!("{frac:0<9}").parse().map_err(|_| bad())?;
    seconds
        .checked_mul(1_000_000_000)
        .and_then(|ns| ns.checked_add(nanos))
        .ok_or_else(|| {
            format!("{text} s is past what nanoseconds in 64 bits hold (about 1.8e10 s)")
        })
}

#[cfg(test)]
mod start_time_tests {
    use super::start_time_ns;

    #[test]
    fn epochs_are_read_to_the_nanosecond() {
        assert_eq!(
            start_time_ns("1700000000.25"),
            Ok(1_700_000_000_250_000_000)
        );
        assert_eq!(start_time_ns("0"), Ok(0));
        assert_eq!(start_time_ns("1.000000001"), Ok(1_000_000_001));
        for bad in ["", "-1", "1e9", ".5", "nan", "1.0000000001", "99999999999"] {
            assert!(start_time_ns(bad).is_err(), "{bad}");
        }
    }
}
