//! Property round trips of MRTK input animations (issue 15): random
//! recordings of version 1.0 and 1.1, with and without each part (camera,
//! hands, eye gaze) and markers, written by this test's own writer in the
//! layout of docs/formats.md §2, decode to exactly what was written, encode back to
//! the same bytes, and decode again to the same recording.

use motion_viewer::formats::INPUT_ANIMATION_MAGIC;
use motion_viewer::formats::input_animation::{
    self as ia, BoolCurve, BoolKey, Curve, Hands, InputAnimation, JOINT_COUNT, Key, Marker,
    PoseCurves, RayCurves, WeightedMode, WrapMode,
};
use proptest::prelude::*;

/// A float curve as written: wrap modes as stored, keys as
/// (time, value, in tangent, out tangent, in weight, out weight, mode).
#[derive(Debug, Clone)]
struct RawCurve {
    wrap: (i32, i32),
    keys: Vec<(f32, f32, [f32; 4], i32)>,
}

/// A boolean curve as written: keys as (time, value).
#[derive(Debug, Clone)]
struct RawBool {
    wrap: (i32, i32),
    keys: Vec<(f32, f32)>,
}

#[derive(Debug, Clone)]
struct RawRecording {
    v11: bool,
    /// 7 curves: position xyz, rotation xyzw.
    camera: Option<Vec<RawCurve>>,
    /// 4 boolean curves, then 27 × 7 curves per hand, left then right.
    hands: Option<(Vec<RawBool>, Vec<RawCurve>)>,
    /// 6 curves: origin xyz, direction xyz.
    gaze: Option<Vec<RawCurve>>,
    markers: Vec<(f32, String)>,
}

impl RawRecording {
    fn bytes(&self) -> Vec<u8> {
        let mut out = INPUT_ANIMATION_MAGIC.to_le_bytes().to_vec();
        let i32s =
            |out: &mut Vec<u8>, xs: &[i32]| xs.iter().for_each(|x| out.extend(x.to_le_bytes()));
        let f32s =
            |out: &mut Vec<u8>, xs: &[f32]| xs.iter().for_each(|x| out.extend(x.to_le_bytes()));
        i32s(&mut out, &[1, i32::from(self.v11)]);
        if self.v11 {
            for present in [
                self.camera.is_some(),
                self.hands.is_some(),
                self.gaze.is_some(),
            ] {
                out.push(u8::from(present));
            }
        }
        let curve = |out: &mut Vec<u8>, c: &RawCurve| {
            i32s(out, &[c.wrap.0, c.wrap.1, c.keys.len() as i32]);
            for &(t, v, tangents, mode) in &c.keys {
                f32s(out, &[t, v]);
                if !self.v11 {
                    f32s(out, &tangents);
                    i32s(out, &[mode]);
                }
            }
        };
        for c in self.camera.iter().flatten() {
            curve(&mut out, c);
        }
        if let Some((bools, joints)) = &self.hands {
            for b in bools {
                i32s(&mut out, &[b.wrap.0, b.wrap.1, b.keys.len() as i32]);
                for &(t, v) in &b.keys {
                    f32s(&mut out, &[t, v]);
                }
            }
            for c in joints {
                curve(&mut out, c);
            }
        }
        for c in self.gaze.iter().flatten() {
            curve(&mut out, c);
        }
        i32s(&mut out, &[self.markers.len() as i32]);
        for (time, name) in &self.markers {
            f32s(&mut out, &[*time]);
            // .NET BinaryWriter: the byte length in 7-bit groups, low first.
            let mut len = name.len();
            while len >= 0x80 {
                out.push((len & 0x7f) as u8 | 0x80);
                len >>= 7;
            }
            out.push(len as u8);
            out.extend(name.as_bytes());
        }
        out
    }

    /// The recording the bytes stand for, per docs/formats.md §2.
    fn expected(&self) -> InputAnimation {
        let curve = |c: &RawCurve| Curve {
            pre_wrap: WrapMode::from_i32(c.wrap.0),
            post_wrap: WrapMode::from_i32(c.wrap.1),
            keys: c
                .keys
                .iter()
                .map(
                    |&(time, value, [in_tangent, out_tangent, in_weight, out_weight], mode)| {
                        if self.v11 {
                            Key::linear(time, value)
                        } else {
                            Key {
                                time,
                                value,
                                in_tangent,
                                out_tangent,
                                in_weight,
                                out_weight,
                                weighted_mode: WeightedMode::from_i32(mode).unwrap(),
                            }
                        }
                    },
                )
                .collect(),
        };
        let bool_curve = |b: &RawBool| BoolCurve {
            pre_wrap: WrapMode::from_i32(b.wrap.0),
            post_wrap: WrapMode::from_i32(b.wrap.1),
            keys: b
                .keys
                .iter()
                .map(|&(time, value)| BoolKey { time, value })
                .collect(),
        };
        let pose = |c: &[RawCurve]| PoseCurves {
            position: std::array::from_fn(|i| curve(&c[i])),
            rotation: std::array::from_fn(|i| curve(&c[3 + i])),
        };
        InputAnimation {
            version: (1, i32::from(self.v11)),
            camera: self.camera.as_deref().map(pose),
            hands: self.hands.as_ref().map(|(b, joints)| {
                let mut poses = joints.chunks(7).map(pose);
                Hands {
                    tracked_left: bool_curve(&b[0]),
                    tracked_right: bool_curve(&b[1]),
                    pinch_left: bool_curve(&b[2]),
                    pinch_right: bool_curve(&b[3]),
                    left: poses.by_ref().take(JOINT_COUNT).collect(),
                    right: poses.collect(),
                }
            }),
            eye_gaze: self.gaze.as_ref().map(|g| RayCurves {
                origin: std::array::from_fn(|i| curve(&g[i])),
                direction: std::array::from_fn(|i| curve(&g[3 + i])),
            }),
            markers: self
                .markers
                .iter()
                .map(|(time, name)| Marker {
                    time: *time,
                    name: name.clone(),
                })
                .collect(),
            warnings: Vec::new(),
        }
    }

    /// Wrap modes that are not Unity's: each is a warning.
    fn odd_wraps(&self) -> usize {
        let odd = |(a, b): (i32, i32)| {
            [a, b]
                .iter()
                .filter(|w| !matches!(w, 0 | 1 | 2 | 4 | 8))
                .count()
        };
        let curves = self
            .camera
            .iter()
            .flatten()
            .chain(self.hands.iter().flat_map(|h| &h.1))
            .chain(self.gaze.iter().flatten());
        curves.map(|c| odd(c.wrap)).sum::<usize>()
            + self
                .hands
                .iter()
                .flat_map(|h| &h.0)
                .map(|b| odd(b.wrap))
                .sum::<usize>()
    }
}

fn wrap() -> impl Strategy<Value = i32> {
    prop_oneof![
        8 => prop::sample::select(vec![0, 1, 2, 4, 8]),
        1 => any::<i32>(),
    ]
}

/// Finite key times in order; values anything but NaN.
fn times(max: usize) -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(
        prop_oneof![
            -1e3f32..1e3,
            any::<f32>().prop_filter("finite", |t| t.is_finite())
        ],
        0..=max,
    )
    .prop_map(|mut t| {
        t.sort_by(f32::total_cmp);
        t
    })
}

fn number() -> impl Strategy<Value = f32> {
    any::<f32>().prop_filter("a number", |x| !x.is_nan())
}

fn curve(max_keys: usize) -> impl Strategy<Value = RawCurve> {
    (wrap(), wrap(), times(max_keys)).prop_flat_map(|(pre, post, times)| {
        let n = times.len();
        (
            Just(((pre, post), times)),
            prop::collection::vec((number(), prop::array::uniform4(number()), 0..=3i32), n),
        )
            .prop_map(|((wrap, times), rest)| RawCurve {
                wrap,
                keys: times
                    .into_iter()
                    .zip(rest)
                    .map(|(t, (v, tangents, mode))| (t, v, tangents, mode))
                    .collect(),
            })
    })
}

fn bool_curve() -> impl Strategy<Value = RawBool> {
    (wrap(), wrap(), times(4)).prop_flat_map(|(pre, post, times)| {
        let n = times.len();
        (
            Just(((pre, post), times)),
            prop::collection::vec(number(), n),
        )
            .prop_map(|((wrap, times), values)| RawBool {
                wrap,
                keys: times.into_iter().zip(values).collect(),
            })
    })
}

fn recording() -> impl Strategy<Value = RawRecording> {
    let camera = prop::collection::vec(curve(4), 7);
    let hands = (
        prop::collection::vec(bool_curve(), 4),
        // 378 curves: keep them short.
        prop::collection::vec(curve(2), 2 * JOINT_COUNT * 7),
    );
    let gaze = prop::collection::vec(curve(4), 6);
    let markers = prop::collection::vec((number(), "\\PC{0,40}|[a-z]{120,300}"), 0..=3);
    (
        any::<bool>(),
        prop::option::of(camera),
        prop::option::weighted(0.3, hands),
        prop::option::of(gaze),
        markers,
    )
        .prop_map(|(v11, camera, hands, gaze, markers)| {
            if v11 {
                RawRecording {
                    v11,
                    camera,
                    hands,
                    gaze,
                    markers,
                }
            } else {
                // Version 1.0 always holds camera and hands, never gaze: the
                // parts missing here are written empty (every curve keyless).
                let empty = RawCurve {
                    wrap: (0, 0),
                    keys: Vec::new(),
                };
                let no_bool = RawBool {
                    wrap: (0, 0),
                    keys: Vec::new(),
                };
                RawRecording {
                    v11,
                    camera: Some(camera.unwrap_or_else(|| vec![empty.clone(); 7])),
                    hands: Some(
                        hands.unwrap_or_else(|| {
                            (vec![no_bool; 4], vec![empty; 2 * JOINT_COUNT * 7])
                        }),
                    ),
                    gaze: None,
                    markers,
                }
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn canonical_recording_decodes_to_what_was_written_and_encodes_back(raw in recording()) {
        let bytes = raw.bytes();
        let mut r = ia::decode(&bytes).expect("a canonical file decodes");
        // One warning for every odd wrap mode (one cause), counting the rest.
        let odd = raw.odd_wraps();
        prop_assert_eq!(r.warnings.len(), odd.min(1), "{:?}", r.warnings);
        if odd > 1 {
            let more = format!("({} more like it)", odd - 1);
            prop_assert!(r.warnings[0].ends_with(&more), "{:?}", r.warnings);
        }
        r.warnings.clear();
        let expected = raw.expected();
        prop_assert_eq!(&r, &expected);
        let version = r.version;
        prop_assert!(ia::encode(&r, version).unwrap() == bytes, "encode(decode(bytes)) != bytes");
        let mut again = ia::decode(&ia::encode(&expected, version).unwrap()).unwrap();
        again.warnings.clear();
        prop_assert_eq!(again, expected);
    }

    #[test]
    fn a_file_written_before_markers_existed_reads_as_markerless(raw in recording()) {
        let mut raw = raw;
        raw.markers.clear();
        let mut bytes = raw.bytes();
        bytes.truncate(bytes.len() - 4);
        let mut r = ia::decode(&bytes).expect("decodes without the marker list");
        r.warnings.clear();
        prop_assert_eq!(r, raw.expected());
    }
}
