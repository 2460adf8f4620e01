//! The `.mtn` writer: byte-exact for decoded well-formed files.

use super::{MAGIC, Mtn, SECTION0_SIZE};
use crate::formats::bytes::{ByteOrder, Writer};

/// Writes a Pascal string: chars above U+00FF become `?` and text beyond 255
/// bytes is cut, the most a length byte can say.
fn write_pascal(w: &mut Writer, s: &str) {
    let b: Vec<u8> = s
        .chars()
        .take(255)
        .map(|c| u8::try_from(c).unwrap_or(b'?'))
        .collect();
    w.u8(b.len() as u8);
    w.bytes(&b);
}

/// Encodes a motion. Section sizes and counts are computed from the content;
/// padding and the other raw fields are written as stored, so a decoded
/// well-formed file comes back byte for byte.
///
/// Limits of the format: at most 65 535 keyframes and joints (counts are u16;
/// more are cut), ERS-110 section 3 sizes wrap at 16 bits, and every keyframe
/// writes one value per joint name (missing ones as 0, extra ones dropped).
pub fn encode(m: &Mtn) -> Vec<u8> {
    let mut w = Writer::new(ByteOrder::Little);
    let kf_count = m.keyframes.len().min(usize::from(u16::MAX));
    let joint_count = m.joints.len().min(usize::from(u16::MAX));
    w.bytes(MAGIC);
    w.u32(0);
    w.u32(SECTION0_SIZE);
    w.u32(m.section_count);
    w.u16(m.version[0]);
    w.u16(m.version[1]);
    w.u16(kf_count as u16);
    w.u16(m.frame_rate);
    w.u32(m.reserved);

    let start = w.len();
    w.u32(1);
    w.u32(0);
    write_pascal(&mut w, &m.name);
    write_pascal(&mut w, &m.creator);
    write_pascal(&mut w, &m.design);
    w.bytes(&m.section1_padding);
    w.patch_u32(start + 4, (w.len() - start) as u32);

    let start = w.len();
    w.u32(2);
    w.u32(0);
    w.u16(joint_count as u16);
    for name in &m.joints[..joint_count] {
        write_pascal(&mut w, name);
    }
    w.bytes(&m.section2_padding);
    w.patch_u32(start + 4, (w.len() - start) as u32);

    let header_len = if m.is_ers110() { 6 } else { 8 };
    let size = header_len + 4 + (kf_count * (joint_count + 4) * 4).saturating_sub(4);
    w.u32(3);
    if m.is_ers110() {
        w.u16(size as u16);
    } else {
        w.u32(size as u32);
    }
    w.u32(m.data_type);
    for (i, k) in m.keyframes[..kf_count].iter().enumerate() {
        if i > 0 {
            w.u32(k.interp);
        }
        w.i32(k.roll);
        w.i32(k.pitch);
        w.i32(k.yaw);
        for j in 0..joint_count {
            w.i32(k.joints.get(j).copied().unwrap_or(0));
        }
    }
    w.into_bytes()
}
