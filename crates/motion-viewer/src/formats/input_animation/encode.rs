//! The input-animation writer, version 1.0 or 1.1.

use super::{Curve, EncodeError, InputAnimation, JOINT_COUNT, PoseCurves};
use crate::formats::INPUT_ANIMATION_MAGIC;
use crate::formats::bytes::{ByteOrder, Writer};

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
