//! MRTK input animations (int64 magic `0x6a8faf6e0f9e42c6`), versions 1.0 and 1.1.
//!
//! The layout follows the toolkit's writer (`InputAnimation.ToStream`), which
//! differs from the published page; `docs/formats.md` §2 is the ruling:
//! - 1.0: camera pose curves, four hand boolean curves, 2 × 27 joint pose curves;
//!   float keys are 28 bytes (time, value, in/out tangent, in/out weight, mode).
//! - 1.1: three flag bytes (camera, hands, eye gaze), then the parts present, the
//!   gaze ray curves last; float keys are only (time, value).
//! - Both end with a marker list that older files lack.
//!
//! This module holds the data; [`decode`] and [`encode`] the two directions,
//! and `anim::curve` evaluates it.
//!
//! ```
//! use motion_viewer::formats::input_animation;
//!
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/hands.mrtk"))?;
//! let recording = input_animation::decode(&bytes)?;
//! assert_eq!(recording.version, (1, 1));
//! assert!(recording.camera.is_some() && recording.hands.is_some());
//! // Encoded again in the same version, the bytes come back as they were.
//! assert_eq!(input_animation::encode(&recording, (1, 1))?, bytes);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod decode;
mod encode;

pub use decode::decode;
pub use encode::encode;

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
    pub(crate) fn to_i32(self) -> i32 {
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
    pub(crate) fn to_i32(self) -> i32 {
        match self {
            WeightedMode::None => 0,
            WeightedMode::In => 1,
            WeightedMode::Out => 2,
            WeightedMode::Both => 3,
        }
    }

    /// True when the in-weight counts (modes In and Both).
    pub(crate) fn has_in(self) -> bool {
        matches!(self, WeightedMode::In | WeightedMode::Both)
    }

    /// True when the out-weight counts (modes Out and Both).
    pub(crate) fn has_out(self) -> bool {
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
