//! MRTK input animations (int64 magic `0x6a8faf6e0f9e42c6`), versions 1.0 and 1.1.
//!
//! The layout follows the toolkit's writer (`InputAnimation.ToStream`), which
//! differs from the published page; `shared/specs/NOTES.md` §2 is the ruling:
//! - 1.0: camera pose curves, four hand boolean curves, 2 × 27 joint pose curves;
//!   float keys are 28 bytes (time, value, in/out tangent, in/out weight, mode).
//! - 1.1: three flag bytes (camera, hands, eye gaze), then the parts present, the
//!   gaze ray curves last; float keys are only (time, value).
//! - Both end with a marker list that older files lack.
//!
//! This module only holds the data; `anim::curve` evaluates it.

use super::INPUT_ANIMATION_MAGIC;
use super::bytes::{ByteOrder, Reader, Writer};
use crate::error::DecodeError;

/// Number of tracked joints per hand, in the toolkit's `TrackedHandJoint` order.
pub const JOINT_COUNT: usize = 27;

/// Bytes of one float key in version 1.0: six f32 and an i32 mode.
const KEY_SIZE_1_0: usize = 28;
/// Bytes of one float key in version 1.1, and of any boolean key: time and value.
const KEY_SIZE_PAIR: usize = 8;
/// Smallest marker: f32 time and a one-byte length prefix of an empty name.
const MIN_MARKER_SIZE: usize = 5;

/// How a curve continues before its first key or after its last (Unity `WrapMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WrapMode {
    /// 0: the curve's default, which for a curve is a clamp.
    #[default]
    Default,
    /// 1: once / clamp: hold the end key's value.
    Once,
    /// 2: repeat the key range.
    Loop,
    /// 4: run the key range back and forth.
    PingPong,
    /// 8: hold the end key's value forever.
    ClampForever,
    /// Any other stored number; kept so a re-encoded file keeps it, evaluated as a clamp.
    Other(i32),
}

impl WrapMode {
    /// The mode a stored number stands for.
    pub fn from_i32(v: i32) -> Self {
        match v {
            0 => WrapMode::Default,
            1 => WrapMode::Once,
            2 => WrapMode::Loop,
            4 => WrapMode::PingPong,
            8 => WrapMode::ClampForever,
            other => WrapMode::Other(other),
        }
    }

    /// The number the file stores.
    pub fn to_i32(self) -> i32 {
        match self {
            WrapMode::Default => 0,
            WrapMode::Once => 1,
            WrapMode::Loop => 2,
            WrapMode::PingPong => 4,
            WrapMode::ClampForever => 8,
            WrapMode::Other(v) => v,
        }
    }
}

/// Which of a key's weights shape its segments (Unity `WeightedMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeightedMode {
    /// 0: plain Hermite on both sides.
    #[default]
    None,
    /// 1: the in-weight shapes the segment before the key.
    In,
    /// 2: the out-weight shapes the segment after the key.
    Out,
    /// 3: both weights are used.
    Both,
}

impl WeightedMode {
    /// The mode a stored number stands for, or `None` for an unknown number.
    pub fn from_i32(v: i32) -> Option<Self> {
        Some(match v {
            0 => WeightedMode::None,
            1 => WeightedMode::In,
            2 => WeightedMode::Out,
            3 => WeightedMode::Both,
            _ => return None,
        })
    }

    /// The number the file stores.
    pub fn to_i32(self) -> i32 {
        match self {
            WeightedMode::None => 0,
            WeightedMode::In => 1,
            WeightedMode::Out => 2,
            WeightedMode::Both => 3,
        }
    }

    /// True when the in-weight counts (modes In and Both).
    pub fn has_in(self) -> bool {
        matches!(self, WeightedMode::In | WeightedMode::Both)
    }

    /// True when the out-weight counts (modes Out and Both).
    pub fn has_out(self) -> bool {
        matches!(self, WeightedMode::Out | WeightedMode::Both)
    }
}

/// One key of a float curve (Unity `Keyframe`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Key {
    /// Seconds.
    pub time: f32,
    /// Value at `time`.
    pub value: f32,
    /// Slope arriving at the key (value per second).
    pub in_tangent: f32,
    /// Slope leaving the key (value per second).
    pub out_tangent: f32,
    /// Weight of the in-tangent, as a fraction of the previous segment's length.
    pub in_weight: f32,
    /// Weight of the out-tangent, as a fraction of the next segment's length.
    pub out_weight: f32,
    /// Which weights count.
    pub weighted_mode: WeightedMode,
}

impl Key {
    /// A version 1.1 key: the ruling reads it as mode Both with zero tangents and
    /// weights, which makes every segment exactly linear.
    pub fn linear(time: f32, value: f32) -> Self {
        Self {
            time,
            value,
            in_tangent: 0.0,
            out_tangent: 0.0,
            in_weight: 0.0,
            out_weight: 0.0,
            weighted_mode: WeightedMode::Both,
        }
    }
}

/// A float animation curve (Unity `AnimationCurve`), keys in time order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Curve {
    /// Before the first key.
    pub pre_wrap: WrapMode,
    /// After the last key.
    pub post_wrap: WrapMode,
    /// The keys, sorted by time.
    pub keys: Vec<Key>,
}

/// One key of a boolean curve: on from `time` while `value > 0.5`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BoolKey {
    /// Seconds.
    pub time: f32,
    /// The stored value; "on" when above 0.5.
    pub value: f32,
}

/// An on/off curve: each key's value holds until the next key.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoolCurve {
    /// Before the first key.
    pub pre_wrap: WrapMode,
    /// After the last key.
    pub post_wrap: WrapMode,
    /// The keys, sorted by time.
    pub keys: Vec<BoolKey>,
}

/// Position xyz then rotation quaternion xyzw, one curve per channel.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PoseCurves {
    /// Position x, y, z (metres, Unity left-handed, y up).
    pub position: [Curve; 3],
    /// Rotation x, y, z, w.
    pub rotation: [Curve; 4],
}

/// Origin xyz then direction xyz.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RayCurves {
    /// Origin x, y, z.
    pub origin: [Curve; 3],
    /// Direction x, y, z.
    pub direction: [Curve; 3],
}

/// Both hands: tracked and pinch states, and 27 joint poses each.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hands {
    /// Left hand tracked.
    pub tracked_left: BoolCurve,
    /// Right hand tracked.
    pub tracked_right: BoolCurve,
    /// Left hand pinching.
    pub pinch_left: BoolCurve,
    /// Right hand pinching.
    pub pinch_right: BoolCurve,
    /// Left hand joints, [`JOINT_COUNT`] in toolkit order.
    pub left: Vec<PoseCurves>,
    /// Right hand joints, [`JOINT_COUNT`] in toolkit order.
    pub right: Vec<PoseCurves>,
}

/// A named moment in the recording.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Marker {
    /// Seconds.
    pub time: f32,
    /// The label.
    pub name: String,
}

/// A decoded recording.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputAnimation {
    /// (major, minor) as stored.
    pub version: (i32, i32),
    /// Head (camera) pose, if recorded.
    pub camera: Option<PoseCurves>,
    /// Hand data, if recorded.
    pub hands: Option<Hands>,
    /// Eye-gaze ray, if recorded (version 1.1 only).
    pub eye_gaze: Option<RayCurves>,
    /// Markers from the trailing list (empty when the file predates it).
    pub markers: Vec<Marker>,
    /// Things the decoder accepted but a reader should know about.
    pub warnings: Vec<String>,
}

impl InputAnimation {
    /// Every float curve present, in file order.
    pub fn float_curves(&self) -> Vec<&Curve> {
        let mut out: Vec<&Curve> = Vec::new();
        let poses = self.camera.iter().chain(
            self.hands
                .iter()
                .flat_map(|h| h.left.iter().chain(&h.right)),
        );
        for p in poses {
            out.extend(p.position.iter().chain(&p.rotation));
        }
        if let Some(g) = &self.eye_gaze {
            out.extend(g.origin.iter().chain(&g.direction));
        }
        out
    }

    /// Every boolean curve present: tracked L, tracked R, pinch L, pinch R.
    pub fn bool_curves(&self) -> Vec<&BoolCurve> {
        match &self.hands {
            Some(h) => vec![
                &h.tracked_left,
                &h.tracked_right,
                &h.pinch_left,
                &h.pinch_right,
            ],
            None => Vec::new(),
        }
    }
}

/// Why a recording cannot be written in the version asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// Only 1.0 and 1.1 can be written.
    #[error("cannot write input-animation version {0}.{1}; only 1.0 and 1.1")]
    UnsupportedVersion(i32, i32),
    /// Version 1.0 always stores camera and hands and cannot store eye gaze.
    #[error("version 1.0 needs camera and hand data and has no eye gaze: {0}")]
    NotInVersion1_0(&'static str),
    /// A hand does not have exactly 27 joint pose curves.
    #[error("the {hand} hand has {count} joint pose curves; the format stores 27")]
    JointCount {
        /// `"left"` or `"right"`.
        hand: &'static str,
        /// How many it has.
        count: usize,
    },
    /// A count does not fit the format's int32.
    #[error("{0} does not fit in an int32 count")]
    TooMany(&'static str),
}

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
                // .NET's reader substitutes U+FFFD; do the same and say so.
                self.warnings.push(format!(
                    "{field} at byte {at} is not valid UTF-8; bad bytes replaced"
                ));
                String::from_utf8_lossy(raw).into_owned()
            }
        })
    }
}

/// Writes `anim` as version 1.0 or 1.1.
///
/// Version 1.1 stores only time and value per float key, so tangents, weights
/// and modes are dropped (a decoded 1.1 key is linear). Version 1.0 requires
/// camera and hands and cannot hold eye gaze.
pub fn encode(anim: &InputAnimation, version: (i32, i32)) -> Result<Vec<u8>, EncodeError> {
    let v11 = match version {
        (1, 0) => false,
        (1, 1) => true,
        (ma, mi) => return Err(EncodeError::UnsupportedVersion(ma, mi)),
    };
    if !v11 {
        if anim.camera.is_none() {
            return Err(EncodeError::NotInVersion1_0("no camera curves"));
        }
        if anim.hands.is_none() {
            return Err(EncodeError::NotInVersion1_0("no hand curves"));
        }
        if anim.eye_gaze.is_some() {
            return Err(EncodeError::NotInVersion1_0("eye gaze curves present"));
        }
    }
    if let Some(h) = &anim.hands {
        for (hand, joints) in [("left", &h.left), ("right", &h.right)] {
            if joints.len() != JOINT_COUNT {
                return Err(EncodeError::JointCount {
                    hand,
                    count: joints.len(),
                });
            }
        }
    }
    let mut w = Writer::new(ByteOrder::Little);
    w.i64(INPUT_ANIMATION_MAGIC);
    w.i32(version.0);
    w.i32(version.1);
    if v11 {
        w.u8(anim.camera.is_some().into());
        w.u8(anim.hands.is_some().into());
        w.u8(anim.eye_gaze.is_some().into());
    }
    let float = |w: &mut Writer, c: &Curve| -> Result<(), EncodeError> {
        w.i32(c.pre_wrap.to_i32());
        w.i32(c.post_wrap.to_i32());
        w.i32(count(c.keys.len(), "curve keys")?);
        for k in &c.keys {
            w.f32(k.time);
            w.f32(k.value);
            if !v11 {
                w.f32(k.in_tangent);
                w.f32(k.out_tangent);
                w.f32(k.in_weight);
                w.f32(k.out_weight);
                w.i32(k.weighted_mode.to_i32());
            }
        }
        Ok(())
    };
    let pose = |w: &mut Writer, p: &PoseCurves| -> Result<(), EncodeError> {
        p.position
            .iter()
            .chain(&p.rotation)
            .try_for_each(|c| float(w, c))
    };
    if let Some(c) = &anim.camera {
        pose(&mut w, c)?;
    }
    if let Some(h) = &anim.hands {
        for b in [
            &h.tracked_left,
            &h.tracked_right,
            &h.pinch_left,
            &h.pinch_right,
        ] {
            w.i32(b.pre_wrap.to_i32());
            w.i32(b.post_wrap.to_i32());
            w.i32(count(b.keys.len(), "boolean curve keys")?);
            for k in &b.keys {
                w.f32(k.time);
                w.f32(k.value);
            }
        }
        for p in h.left.iter().chain(&h.right) {
            pose(&mut w, p)?;
        }
    }
    if let Some(g) = &anim.eye_gaze {
        for c in g.origin.iter().chain(&g.direction) {
            float(&mut w, c)?;
        }
    }
    w.i32(count(anim.markers.len(), "markers")?);
    for m in &anim.markers {
        w.f32(m.time);
        let name = m.name.as_bytes();
        let mut len = u32::try_from(count(name.len(), "a marker name's bytes")?)
            .expect("a non-negative i32 fits u32");
        while len >= 0x80 {
            w.u8((len as u8 & 0x7f) | 0x80);
            len >>= 7;
        }
        w.u8(len as u8);
        w.bytes(name);
    }
    Ok(w.into_bytes())
}

/// A length as the format's int32 count.
fn count(n: usize, what: &'static str) -> Result<i32, EncodeError> {
    i32::try_from(n).map_err(|_| EncodeError::TooMany(what))
}
