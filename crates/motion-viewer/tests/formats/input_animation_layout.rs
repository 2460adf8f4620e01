//! Hand-made byte layouts pinning every ruling of docs/formats.md §2 on the file layout.

use motion_viewer::formats::input_animation::{
    Curve, EncodeError, InputAnimation, Key, Marker, WeightedMode, WrapMode, decode, encode,
};

const MAGIC: [u8; 8] = [0xc6, 0x42, 0x9e, 0x0f, 0x6e, 0xaf, 0x8f, 0x6a];

/// Little-endian byte pushing, written out by hand so the tests do not lean on the encoder.
#[derive(Default)]
struct B(Vec<u8>);

impl B {
    fn header(major: i32, minor: i32) -> Self {
        let mut b = B(MAGIC.to_vec());
        b.i32(major).i32(minor);
        b
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f32(&mut self, v: f32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    /// A 1.1 float curve or any boolean curve: wrap modes, count, (time, value) pairs.
    fn pairs(&mut self, pre: i32, post: i32, keys: &[(f32, f32)]) -> &mut Self {
        self.i32(pre).i32(post).i32(keys.len() as i32);
        for &(t, v) in keys {
            self.f32(t).f32(v);
        }
        self
    }
    /// A 1.0 float curve with full 28-byte keys.
    fn full(&mut self, keys: &[(f32, f32, f32, f32, f32, f32, i32)]) -> &mut Self {
        self.i32(0).i32(0).i32(keys.len() as i32);
        for &(t, v, it, ot, iw, ow, m) in keys {
            self.f32(t).f32(v).f32(it).f32(ot).f32(iw).f32(ow).i32(m);
        }
        self
    }
}

/// Seven 1.1 curves for a pose whose channel `c` holds value `base + c` at time `t`.
fn pose11(b: &mut B, base: f32, t: f32) {
    for c in 0..7 {
        b.pairs(0, 0, &[(0.0, base), (t, base + c as f32)]);
    }
}

fn hands11(b: &mut B) {
    b.pairs(0, 0, &[(0.0, 1.0)]); // tracked L
    b.pairs(0, 0, &[(0.0, 0.0), (0.5, 1.0)]); // tracked R
    b.pairs(0, 0, &[]); // pinch L
    b.pairs(1, 2, &[(0.25, 0.7)]); // pinch R
    for j in 0..54 {
        pose11(b, j as f32 * 10.0, 2.0);
    }
}

fn gaze11(b: &mut B) {
    for c in 0..6 {
        b.pairs(0, 0, &[(0.0, -(c as f32)), (3.0, c as f32)]);
    }
}

fn assert_pose11(c: &motion_viewer::formats::input_animation::PoseCurves, base: f32) {
    for (i, curve) in c.position.iter().chain(&c.rotation).enumerate() {
        assert_eq!(
            curve.keys,
            vec![Key::linear(0.0, base), Key::linear(2.0, base + i as f32)]
        );
    }
}

#[test]
fn v1_1_camera_only() {
    let mut b = B::header(1, 1);
    b.u8(1).u8(0).u8(0);
    pose11(&mut b, 5.0, 2.0);
    b.i32(0);
    let a = decode(&b.0).unwrap();
    assert_eq!(a.version, (1, 1));
    assert_pose11(a.camera.as_ref().unwrap(), 5.0);
    assert!(a.hands.is_none() && a.eye_gaze.is_none());
    assert!(a.markers.is_empty() && a.warnings.is_empty());
}

#[test]
fn v1_1_hands_only() {
    let mut b = B::header(1, 1);
    b.u8(0).u8(1).u8(0);
    hands11(&mut b);
    b.i32(0);
    let a = decode(&b.0).unwrap();
    assert!(a.camera.is_none() && a.eye_gaze.is_none());
    let h = a.hands.unwrap();
    assert_eq!(h.tracked_left.keys.len(), 1);
    assert_eq!(h.tracked_right.keys[1].time, 0.5);
    assert!(h.pinch_left.keys.is_empty());
    assert_eq!(h.pinch_right.pre_wrap, WrapMode::Once);
    assert_eq!(h.pinch_right.post_wrap, WrapMode::Loop);
    assert_eq!(h.pinch_right.keys[0].value, 0.7);
    assert_eq!((h.left.len(), h.right.len()), (27, 27));
    // Left joints come first in the file, then right.
    for j in 0..27 {
        assert_pose11(&h.left[j], j as f32 * 10.0);
        assert_pose11(&h.right[j], (27 + j) as f32 * 10.0);
    }
}

#[test]
fn v1_1_gaze_only_and_any_nonzero_flag_is_true() {
    let mut b = B::header(1, 1);
    b.u8(0).u8(0).u8(0x80);
    gaze11(&mut b);
    b.i32(0);
    let a = decode(&b.0).unwrap();
    let g = a.eye_gaze.unwrap();
    for (c, curve) in g.origin.iter().chain(&g.direction).enumerate() {
        assert_eq!(curve.keys[0].value, -(c as f32));
        assert_eq!(curve.keys[1], Key::linear(3.0, c as f32));
    }
}

#[test]
fn v1_1_all_parts_in_order() {
    let mut b = B::header(1, 1);
    b.u8(1).u8(2).u8(1);
    pose11(&mut b, -1.0, 2.0);
    hands11(&mut b);
    gaze11(&mut b);
    b.i32(0);
    let a = decode(&b.0).unwrap();
    assert_pose11(a.camera.as_ref().unwrap(), -1.0);
    assert_pose11(&a.hands.as_ref().unwrap().right[26], 530.0);
    assert_eq!(a.eye_gaze.unwrap().direction[2].keys[1].value, 5.0);
}

#[test]
fn v1_1_keys_are_mode_both_with_zero_tangents_and_weights() {
    let k = Key::linear(1.0, 2.0);
    assert_eq!(k.weighted_mode, WeightedMode::Both);
    assert_eq!(
        (k.in_tangent, k.out_tangent, k.in_weight, k.out_weight),
        (0.0, 0.0, 0.0, 0.0)
    );
}

/// A 1.0 file: camera, hands (no flags, no gaze), 28-byte keys; `markers` appends a list.
fn v1_0(markers: bool) -> Vec<u8> {
    let mut b = B::header(1, 0);
    for c in 0..7 {
        b.full(&[
            (0.0, c as f32, 0.5, 1.5, 0.25, 0.75, 3),
            (1.0, 1.0, -2.0, f32::INFINITY, 0.0, 1.0, c % 4),
        ]);
    }
    for _ in 0..4 {
        b.pairs(0, 0, &[(0.0, 1.0)]);
    }
    for j in 0..54 {
        for _ in 0..7 {
            b.full(&[(0.0, j as f32, 0.0, 0.0, 0.0, 0.0, 0)]);
        }
    }
    if markers {
        b.i32(1).f32(0.5).u8(2).0.extend_from_slice(b"ok");
    }
    b.0
}

#[test]
fn v1_0_full_keys_and_fixed_parts() {
    let a = decode(&v1_0(true)).unwrap();
    assert_eq!(a.version, (1, 0));
    let cam = a.camera.unwrap();
    let k = cam.position[1].keys[0];
    assert_eq!(
        (
            k.time,
            k.value,
            k.in_tangent,
            k.out_tangent,
            k.in_weight,
            k.out_weight
        ),
        (0.0, 1.0, 0.5, 1.5, 0.25, 0.75)
    );
    assert_eq!(k.weighted_mode, WeightedMode::Both);
    let k2 = cam.rotation[3].keys[1];
    assert_eq!(k2.out_tangent, f32::INFINITY);
    assert_eq!(k2.weighted_mode, WeightedMode::Out); // channel 6 % 4 = 2
    let h = a.hands.unwrap();
    assert_eq!(h.right[26].rotation[3].keys[0].value, 53.0);
    assert!(a.eye_gaze.is_none());
    assert_eq!(
        a.markers,
        vec![Marker {
            time: 0.5,
            name: "ok".into()
        }]
    );
}

#[test]
fn file_ending_before_the_marker_list_is_accepted() {
    let a = decode(&v1_0(false)).unwrap();
    assert!(a.markers.is_empty());
    assert!(a.warnings.is_empty());
}

#[test]
fn markers_with_non_ascii_and_two_byte_length() {
    let long = "x".repeat(200);
    let mut b = B::header(1, 1);
    b.u8(0).u8(0).u8(0);
    b.i32(2).f32(1.25).u8(9);
    b.0.extend_from_slice("één ✋".as_bytes());
    // 200 = 0b1_1001000: low seven bits with the continuation bit, then 1.
    b.f32(3.5).u8(0xc8).u8(0x01);
    b.0.extend_from_slice(long.as_bytes());
    let a = decode(&b.0).unwrap();
    assert_eq!(a.markers[0].name, "één ✋");
    assert_eq!(a.markers[0].time, 1.25);
    assert_eq!(a.markers[1].name, long);
    // The encoder writes the same bytes.
    assert_eq!(encode(&a, (1, 1)).unwrap(), b.0);
}

#[test]
fn round_trips_both_versions() {
    let a = decode(&v1_0(true)).unwrap();
    let again = decode(&encode(&a, (1, 0)).unwrap()).unwrap();
    assert_eq!(again, a);
    // 1.1 keeps time and value only.
    let a11 = decode(&encode(&a, (1, 1)).unwrap()).unwrap();
    assert_eq!(a11.version, (1, 1));
    let k = a11.camera.unwrap().position[1].keys[0];
    assert_eq!(k, Key::linear(0.0, 1.0));
}

#[test]
fn version_1_0_cannot_hold_gaze_or_miss_parts() {
    let mut b = B::header(1, 1);
    b.u8(1).u8(0).u8(0);
    pose11(&mut b, 0.0, 1.0);
    let cam_only = decode(&b.0).unwrap();
    assert!(matches!(
        encode(&cam_only, (1, 0)),
        Err(EncodeError::NotInVersion1_0(_))
    ));
    let mut with_gaze = decode(&v1_0(false)).unwrap();
    with_gaze.eye_gaze = Some(Default::default());
    assert!(encode(&with_gaze, (1, 0)).is_err());
    assert!(encode(&with_gaze, (1, 1)).is_ok());
    assert_eq!(
        encode(&InputAnimation::default(), (2, 0)),
        Err(EncodeError::UnsupportedVersion(2, 0))
    );
}

#[test]
fn newer_versions_are_refused_by_number() {
    for (ma, mi, text) in [(2, 0, "2.0"), (1, 2, "1.2"), (0, 9, "0.9")] {
        let mut b = B::header(ma, mi);
        b.u8(0).u8(0).u8(0);
        let e = decode(&b.0).unwrap_err();
        assert_eq!(e.field, "version");
        assert_eq!(e.offset, 8);
        assert!(e.to_string().contains(text), "{e}");
    }
}

#[test]
fn bad_magic_is_refused() {
    let mut b = B::header(1, 1);
    b.0[0] ^= 1;
    let e = decode(&b.0).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("magic", 0));
}

#[test]
fn counts_are_checked_against_the_key_size_of_the_version() {
    // 10 keys of 8 bytes fit in the 80 bytes that follow, 10 keys of 28 do not.
    let mut b = B::header(1, 0);
    b.i32(0).i32(0).i32(10);
    b.0.extend_from_slice(&[0; 80]);
    let e = decode(&b.0).unwrap_err();
    assert_eq!(e.field, "camera position x key count");
    assert_eq!(e.offset, 24);
    assert_eq!(e.found, "10");
    // A huge or negative count fails at once instead of allocating.
    for n in [i32::MAX, -1] {
        let mut b = B::header(1, 1);
        b.u8(1).u8(0).u8(0).i32(0).i32(0).i32(n);
        let e = decode(&b.0).unwrap_err();
        assert_eq!(e.field, "camera position x key count");
    }
}

#[test]
fn unknown_modes_and_bad_times() {
    // An unknown wrap mode is kept and reported; an unknown weighted mode is an error.
    let mut b = B::header(1, 1);
    b.u8(0).u8(0).u8(1);
    b.pairs(3, 0, &[(0.0, 1.0)]);
    for _ in 0..5 {
        b.pairs(0, 0, &[]);
    }
    let a = decode(&b.0).unwrap();
    assert_eq!(a.eye_gaze.unwrap().origin[0].pre_wrap, WrapMode::Other(3));
    assert_eq!(a.warnings.len(), 1);

    let mut b = B::header(1, 0);
    b.full(&[(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4)]);
    let e = decode(&b.0).unwrap_err();
    assert_eq!(e.field, "camera position x key 0 weighted mode");
    assert_eq!(e.found, "4");

    let mut b = B::header(1, 1);
    b.u8(1).u8(0).u8(0);
    b.pairs(0, 0, &[(f32::NAN, 0.0)]);
    let e = decode(&b.0).unwrap_err();
    assert_eq!(e.field, "camera position x key 0 time");
}

#[test]
fn keys_out_of_order_are_sorted_with_a_warning() {
    let mut b = B::header(1, 1);
    b.u8(0).u8(0).u8(1);
    b.pairs(0, 0, &[(2.0, 20.0), (1.0, 10.0)]);
    for _ in 0..5 {
        b.pairs(0, 0, &[]);
    }
    let a = decode(&b.0).unwrap();
    let c: &Curve = &a.eye_gaze.as_ref().unwrap().origin[0];
    assert_eq!(c.keys, vec![Key::linear(1.0, 10.0), Key::linear(2.0, 20.0)]);
    assert_eq!(a.warnings.len(), 1);
}

#[test]
fn trailing_bytes_are_reported() {
    let mut b = B::header(1, 1);
    b.u8(0).u8(0).u8(0).i32(0).u8(7);
    let a = decode(&b.0).unwrap();
    assert_eq!(a.warnings.len(), 1);
}

/// A small file with every part, and the offset where its marker list starts.
fn small() -> (Vec<u8>, usize) {
    let mut b = B::header(1, 1);
    b.u8(1).u8(1).u8(1);
    for c in 0..7 {
        b.pairs(0, 0, &[(0.0, c as f32)]);
    }
    for _ in 0..4 {
        b.pairs(0, 0, &[(0.0, 1.0)]);
    }
    for _ in 0..378 {
        b.pairs(0, 0, &[]);
    }
    gaze11(&mut b);
    let at = b.0.len();
    b.i32(1).f32(1.0).u8(3);
    b.0.extend_from_slice(b"end");
    (b.0, at)
}

#[test]
fn every_truncation_fails_cleanly_except_before_the_marker_list() {
    let (bytes, marker_at) = small();
    assert_eq!(decode(&bytes).unwrap().markers[0].name, "end");
    for cut in 0..bytes.len() {
        match decode(&bytes[..cut]) {
            Ok(a) => {
                assert_eq!(cut, marker_at, "a cut at {cut} decoded");
                assert!(a.markers.is_empty());
            }
            Err(e) => assert!(e.offset as usize <= cut, "cut {cut}: {e}"),
        }
    }
}

#[test]
fn byte_flips_never_panic() {
    let (bytes, _) = small();
    for i in 0..bytes.len() {
        for x in [0xff, 0x80, 0x01] {
            let mut b = bytes.clone();
            b[i] ^= x;
            let _ = decode(&b);
        }
    }
    let v10 = v1_0(true);
    for i in (0..v10.len()).step_by(3) {
        let mut b = v10.clone();
        b[i] ^= 0xff;
        let _ = decode(&b);
    }
}

#[test]
fn marker_length_varint_is_bounded() {
    let mut b = B::header(1, 1);
    b.u8(0).u8(0).u8(0).i32(1).f32(0.0);
    b.0.extend_from_slice(&[0xff; 6]);
    let e = decode(&b.0).unwrap_err();
    assert_eq!(e.field, "marker 0 name length");
    let mut b = B::header(1, 1);
    b.u8(0).u8(0).u8(0).i32(1).f32(0.0).u8(50);
    b.0.extend_from_slice(b"short");
    let e = decode(&b.0).unwrap_err();
    assert_eq!(e.field, "marker 0 name");
}
