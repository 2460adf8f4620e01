//! The input-animation reader, both versions, with the trailing marker list.

use super::{
    BoolCurve, BoolKey, Curve, Hands, InputAnimation, JOINT_COUNT, KEY_SIZE_1_0, KEY_SIZE_PAIR,
    Key, MIN_MARKER_SIZE, Marker, PoseCurves, RayCurves, WeightedMode, WrapMode,
};
use crate::error::DecodeError;
use crate::formats::INPUT_ANIMATION_MAGIC;
use crate::formats::bytes::Reader;

/// Decodes an input-animation file (version 1.0 or 1.1).
pub fn decode(bytes: &[u8]) -> Result<InputAnimation, DecodeError> {
    let mut r = Reader::new(bytes);
    let magic = r.i64("magic")?;
    if magic != INPUT_ANIMATION_MAGIC {
        return Err(DecodeError::new(
            "magic",
            0,
            format!("0x{INPUT_ANIMATION_MAGIC:016x}"),
            format!("0x{magic:016x}"),
        ));
    }
    let major = r.i32("major version")?;
    let minor = r.i32("minor version")?;
    let v11 = match (major, minor) {
        (1, 0) => false,
        (1, 1) => true,
        (ma, mi) => {
            let expected = "version 1.0 or 1.1";
            let found = if ma > 1 || (ma == 1 && mi > 1) {
                format!("version {ma}.{mi}, newer than this viewer reads")
            } else {
                format!("version {ma}.{mi}, which the toolkit never wrote")
            };
            return Err(DecodeError::new("version", 8, expected, found));
        }
    };
    let mut d = Decoder {
        r,
        key_size: if v11 { KEY_SIZE_PAIR } else { KEY_SIZE_1_0 },
        warnings: Vec::new(),
        odd_wraps: (0, 0),
        odd_strings: (0, 0),
    };
    let (has_camera, has_hands, has_gaze) = if v11 {
        (
            d.r.u8("has camera flag")? != 0,
            d.r.u8("has hands flag")? != 0,
            d.r.u8("has eye gaze flag")? != 0,
        )
    } else {
        (true, true, false)
    };
    let camera = if has_camera {
        Some(d.pose("camera")?)
    } else {
        None
    };
    let hands = if has_hands {
        let tracked_left = d.bool_curve("hand tracked left")?;
        let tracked_right = d.bool_curve("hand tracked right")?;
        let pinch_left = d.bool_curve("hand pinch left")?;
        let pinch_right = d.bool_curve("hand pinch right")?;
        let mut joints = |side: &str| -> Result<Vec<PoseCurves>, DecodeError> {
            (0..JOINT_COUNT)
                .map(|j| d.pose(&format!("{side} hand joint {j}")))
                .collect()
        };
        let left = joints("left")?;
        let right = joints("right")?;
        Some(Hands {
            tracked_left,
            tracked_right,
            pinch_left,
            pinch_right,
            left,
            right,
        })
    } else {
        None
    };
    let eye_gaze = if has_gaze {
        let origin = [
            d.curve("eye gaze", "origin x")?,
            d.curve("eye gaze", "origin y")?,
            d.curve("eye gaze", "origin z")?,
        ];
        let direction = [
            d.curve("eye gaze", "direction x")?,
            d.curve("eye gaze", "direction y")?,
            d.curve("eye gaze", "direction z")?,
        ];
        Some(RayCurves { origin, direction })
    } else {
        None
    };
    // Files written before markers existed simply end here.
    let markers = if d.r.remaining() == 0 {
        Vec::new()
    } else {
        d.markers()?
    };
    if d.r.remaining() > 0 {
        d.warnings.push(format!(
            "{} bytes after the marker list (from byte {}) ignored",
            d.r.remaining(),
            d.r.pos()
        ));
    }
    // One warning per cause: the first case, and how many more there were.
    for (count, at) in [d.odd_wraps, d.odd_strings] {
        if count > 1 {
            d.warnings[at].push_str(&format!(" ({} more like it)", count - 1));
        }
    }
    Ok(InputAnimation {
        version: (major, minor),
        camera,
        hands,
        eye_gaze,
        markers,
        warnings: d.warnings,
    })
}

/// The reader plus what depends on the version.
struct Decoder<'a> {
    r: Reader<'a>,
    key_size: usize,
    warnings: Vec<String>,
    /// Wrap modes that are not Unity's, and the index of the one warning
    /// that says them all.
    odd_wraps: (usize, usize),
    /// Strings that were not UTF-8, and the index of their one warning.
    odd_strings: (usize, usize),
}

/// A curve's name, formatted only when an error or a warning needs it: decoding
/// a recording reads about 400 curves and 100 000 keys.
#[derive(Clone, Copy)]
struct Name<'a> {
    part: &'a str,
    channel: &'static str,
}

impl std::fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.channel.is_empty() {
            f.write_str(self.part)
        } else {
            write!(f, "{} {}", self.part, self.channel)
        }
    }
}

/// Gives an error from an unnamed read its field name.
fn named<T>(res: Result<T, DecodeError>, field: impl FnOnce() -> String) -> Result<T, DecodeError> {
    res.map_err(|mut e| {
        e.field = field();
        e
    })
}

impl Decoder<'_> {
    fn wrap(&mut self, name: Name, which: &str) -> Result<WrapMode, DecodeError> {
        let at = self.r.pos();
        let raw = named(self.r.i32(""), || format!("{name} {which}"))?;
        let mode = WrapMode::from_i32(raw);
        if let WrapMode::Other(v) = mode {
            self.odd_wraps.0 += 1;
            if self.odd_wraps.0 > 1 {
                return Ok(mode);
            }
            self.odd_wraps.1 = self.warnings.len();
            self.warnings.push(format!(
                "{name} {which} at byte {at} is {v}, not a Unity wrap mode (0, 1, 2, 4, 8); evaluated as a clamp"
            ));
        }
        Ok(mode)
    }

    /// Pre-wrap, post-wrap and a key count already checked against the bytes left.
    fn curve_header(
        &mut self,
        name: Name,
        key_size: usize,
    ) -> Result<(WrapMode, WrapMode, usize), DecodeError> {
        let pre = self.wrap(name, "pre-wrap mode")?;
        let post = self.wrap(name, "post-wrap mode")?;
        let field = || format!("{name} key count");
        let at = self.r.pos();
        let count = named(self.r.i32(""), field)?;
        let count = named(self.r.check_count("", at, count.into(), key_size), field)?;
        Ok((pre, post, count))
    }

    /// A key's time and value; the time must be finite so keys sort and
    /// segments have a length.
    fn pair(&mut self, name: Name, i: usize) -> Result<(f32, f32), DecodeError> {
        let at = self.r.pos();
        let t = named(self.r.f32(""), || format!("{name} key {i} time"))?;
        if !t.is_finite() {
            return Err(DecodeError::new(
                format!("{name} key {i} time"),
                at as u64,
                "a finite time",
                t.to_string(),
            ));
        }
        let v = named(self.r.f32(""), || format!("{name} key {i} value"))?;
        Ok((t, v))
    }

    fn curve(&mut self, part: &str, channel: &'static str) -> Result<Curve, DecodeError> {
        let name = Name { part, channel };
        let (pre_wrap, post_wrap, count) = self.curve_header(name, self.key_size)?;
        let mut keys = Vec::with_capacity(count);
        for i in 0..count {
            let (time, value) = self.pair(name, i)?;
            if self.key_size == KEY_SIZE_PAIR {
                keys.push(Key::linear(time, value));
                continue;
            }
            let field = || format!("{name} key {i} tangents and weights");
            let in_tangent = named(self.r.f32(""), field)?;
            let out_tangent = named(self.r.f32(""), field)?;
            let in_weight = named(self.r.f32(""), field)?;
            let out_weight = named(self.r.f32(""), field)?;
            let at = self.r.pos();
            let field = || format!("{name} key {i} weighted mode");
            let mode = named(self.r.i32(""), field)?;
            let weighted_mode = WeightedMode::from_i32(mode).ok_or_else(|| {
                DecodeError::new(
                    field(),
                    at as u64,
                    "0 (none), 1 (in), 2 (out) or 3 (both)",
                    mode.to_string(),
                )
            })?;
            keys.push(Key {
                time,
                value,
                in_tangent,
                out_tangent,
                in_weight,
                out_weight,
                weighted_mode,
            });
        }
        self.sort(name, &mut keys, |k| k.time);
        Ok(Curve {
            pre_wrap,
            post_wrap,
            keys,
        })
    }

    fn bool_curve(&mut self, part: &str) -> Result<BoolCurve, DecodeError> {
        let name = Name { part, channel: "" };
        let (pre_wrap, post_wrap, count) = self.curve_header(name, KEY_SIZE_PAIR)?;
        let mut keys = Vec::with_capacity(count);
        for i in 0..count {
            let (time, value) = self.pair(name, i)?;
            keys.push(BoolKey { time, value });
        }
        self.sort(name, &mut keys, |k| k.time);
        Ok(BoolCurve {
            pre_wrap,
            post_wrap,
            keys,
        })
    }

    /// Unity's `AnimationCurve` keeps keys in time order, so a file whose keys are
    /// not is read as Unity would read it, with a warning.
    fn sort<K>(&mut self, name: Name, keys: &mut [K], time: impl Fn(&K) -> f32) {
        if keys.windows(2).any(|w| time(&w[0]) > time(&w[1])) {
            keys.sort_by(|a, b| time(a).total_cmp(&time(b)));
            self.warnings
                .push(format!("{name}: keys out of time order, sorted"));
        }
    }

    fn pose(&mut self, part: &str) -> Result<PoseCurves, DecodeError> {
        Ok(PoseCurves {
            position: [
                self.curve(part, "position x")?,
                self.curve(part, "position y")?,
                self.curve(part, "position z")?,
            ],
            rotation: [
                self.curve(part, "rotation x")?,
                self.curve(part, "rotation y")?,
                self.curve(part, "rotation z")?,
                self.curve(part, "rotation w")?,
            ],
        })
    }

    fn markers(&mut self) -> Result<Vec<Marker>, DecodeError> {
        let at = self.r.pos();
        let count = self.r.i32("marker count")?;
        let count = self
            .r
            .check_count("marker count", at, count.into(), MIN_MARKER_SIZE)?;
        let mut markers = Vec::with_capacity(count);
        for i in 0..count {
            let time = self.r.f32(&format!("marker {i} time"))?;
            let name = self.string(&format!("marker {i} name"))?;
            markers.push(Marker { time, name });
        }
        Ok(markers)
    }

    /// A .NET `BinaryWriter` string: 7-bit varint byte length, then UTF-8.
    fn string(&mut self, field: &str) -> Result<String, DecodeError> {
        let at = self.r.pos();
        let mut len: u64 = 0;
        // An int32 takes at most five 7-bit groups.
        for shift in (0..35).step_by(7) {
            let b = self.r.u8(&format!("{field} length"))?;
            len |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            if shift == 28 {
                return Err(DecodeError::new(
                    format!("{field} length"),
                    at as u64,
                    "a 7-bit encoded length of at most 5 bytes",
                    "a sixth continuation byte",
                ));
            }
        }
        if len > i32::MAX as u64 {
            return Err(DecodeError::new(
                format!("{field} length"),
                at as u64,
                "a length of at most 2147483647",
                len.to_string(),
            ));
        }
        let raw = self.r.bytes(len as usize, field)?;
        Ok(match std::str::from_utf8(raw) {
            Ok(s) => s.to_owned(),
            Err(_) => {
                // .NET's reader substitutes U+FFFD; do the same and say so
                // (once: the count of others follows at the end).
                self.odd_strings.0 += 1;
                if self.odd_strings.0 > 1 {
                    return Ok(String::from_utf8_lossy(raw).into_owned());
                }
                self.odd_strings.1 = self.warnings.len();
                self.warnings.push(format!(
                    "{field} at byte {at} is not valid UTF-8; bad bytes replaced"
                ));
                String::from_utf8_lossy(raw).into_owned()
            }
        })
    }
}
