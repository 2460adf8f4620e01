//! The `.mtn` reader: sections walked by their declared sizes, with the
//! recoveries `docs/formats.md` §1 rules on (lying sizes, ERS-110 u16 section 3).

use super::{Keyframe, MAGIC, Mtn, SECTION0_SIZE, design_model};
use crate::error::DecodeError;
use crate::formats::aibo::Model;
use crate::formats::bytes::Reader;

/// Reads a Pascal string (u8 length, then bytes) ending no later than `end`.
fn pascal(r: &mut Reader, end: usize, field: &str) -> Result<String, DecodeError> {
    let at = r.pos();
    let len = usize::from(r.u8(field)?);
    if r.pos() + len > end {
        return Err(DecodeError::new(
            field,
            at as u64,
            format!(
                "a length of at most {} (the section ends at byte {end})",
                end.saturating_sub(at + 1)
            ),
            len.to_string(),
        ));
    }
    Ok(latin1(r.bytes(len, field)?))
}

/// Bytes as Latin-1 text: every byte maps to one char, so the encoder can
/// write the same bytes back.
fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| char::from(c)).collect()
}

/// Section 1's three strings and padding.
struct Names {
    name: String,
    creator: String,
    design: String,
    padding: Vec<u8>,
}

/// Parses section 1's strings in `data[start..end]`, all three within it.
fn parse_names(data: &[u8], start: usize, end: usize) -> Result<Names, DecodeError> {
    let mut r = Reader::new(&data[..end]);
    r.seek(start, "section 1")?;
    let name = pascal(&mut r, end, "motion name")?;
    let creator = pascal(&mut r, end, "creator")?;
    let design = pascal(&mut r, end, "design label")?;
    Ok(Names {
        name,
        creator,
        design,
        padding: r.bytes(end - r.pos(), "section 1 padding")?.to_vec(),
    })
}

/// Recovers section 1's strings when the name's length byte lies (as in
/// `KnownGoodERS7.mtn`): the one name length after which creator and design
/// parse, the design label is not empty, and 0..3 zero bytes of padding end
/// the section; at most 255, as the format's strings are. `None` unless
/// exactly one length fits.
fn recover_names(data: &[u8], start: usize, end: usize) -> Option<(Names, usize)> {
    let region = &data[start..end];
    let fits = |len: usize| -> Option<usize> {
        let c = 1 + len;
        let clen = usize::from(*region.get(c)?);
        let d = c + 1 + clen;
        let dlen = usize::from(*region.get(d)?);
        // An empty design label would let trailing zeros pass as two empty strings.
        if dlen == 0 {
            return None;
        }
        let stop = d + 1 + dlen;
        let pad = region.len().checked_sub(stop)?;
        (pad < 4 && region[stop..].iter().all(|&b| b == 0)).then_some(stop)
    };
    // A Pascal string holds at most 255 bytes: a longer "name" is not one
    // (and could not be written back).
    let longest = region.len().min(usize::from(u8::MAX) + 1);
    let mut found = (0..longest).filter_map(|len| fits(len).map(|s| (len, s)));
    let (len, stop) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let c = 1 + len;
    let clen = usize::from(region[c]);
    let d = c + 1 + clen;
    Some((
        Names {
            name: latin1(&region[1..c]),
            creator: latin1(&region[c + 1..d]),
            design: latin1(&region[d + 1..stop]),
            padding: region[stop..].to_vec(),
        },
        len,
    ))
}

/// Section 2's joint names and padding.
struct JointList {
    names: Vec<String>,
    padding: Vec<u8>,
    size: u32,
    end: usize,
}

/// Parses section 2 at `at`: number 2, size, joint count, names, padding.
fn parse_joints(data: &[u8], at: usize) -> Result<JointList, DecodeError> {
    let mut r = Reader::new(data);
    r.seek(at, "section 2")?;
    let number = r.u32("section 2 number")?;
    if number != 2 {
        return Err(DecodeError::new(
            "section 2 number",
            at as u64,
            "2",
            number.to_string(),
        ));
    }
    let size_at = r.pos();
    let size = r.u32("section 2 size")?;
    let end = at
        .checked_add(size as usize)
        .filter(|&e| e <= data.len() && size >= 10);
    let Some(end) = end else {
        return Err(DecodeError::new(
            "section 2 size",
            size_at as u64,
            format!("10 to {} bytes (to the end of the file)", data.len() - at),
            size.to_string(),
        ));
    };
    let count_at = r.pos();
    let count = r.u16("joint count")?;
    // Each name takes at least its length byte.
    let count = r.check_count("joint count", count_at, count.into(), 1)?;
    let mut names = Vec::with_capacity(count);
    for i in 0..count {
        names.push(pascal(&mut r, end, &format!("joint {i} name"))?);
    }
    let padding = r.bytes(end - r.pos(), "section 2 padding")?.to_vec();
    Ok(JointList {
        names,
        padding,
        size,
        end,
    })
}

/// Finds section 2 after a section 1 whose declared size or strings are wrong:
/// the only offset within reach of section 1's strings where a section 2
/// header and its joint names parse and section 1's strings can be recovered.
fn find_section2(data: &[u8]) -> Option<(usize, JointList, Names, usize)> {
    // Three Pascal strings of at most 255 bytes, plus padding.
    let last = data.len().min(36 + 3 * 256 + 4);
    let mut found = (36..last).filter_map(|p| {
        if data.get(p..p + 4)? != 2u32.to_le_bytes() {
            return None;
        }
        let list = parse_joints(data, p).ok()?;
        let (names, len) = recover_names(data, 36, p)?;
        Some((p, list, names, len))
    });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// Decodes an `.mtn` file.
///
/// Recovers, with a warning, from a section 3 size that disagrees with the
/// keyframe and joint counts (which are authoritative), from bytes after the
/// last keyframe, and from a section 1 whose size and name length lie when the
/// section 2 header that follows is unambiguous. Anything else malformed is an
/// error naming the field and its offset.
pub fn decode(bytes: &[u8]) -> Result<Mtn, DecodeError> {
    let mut r = Reader::new(bytes);
    let magic: [u8; 4] = r.array("magic")?;
    if &magic != MAGIC {
        return Err(DecodeError::new(
            "magic",
            0,
            "\"OMTN\"",
            format!("{magic:02x?}"),
        ));
    }
    let mut warnings = Vec::new();
    let number = r.u32("section 0 number")?;
    if number != 0 {
        return Err(DecodeError::new(
            "section 0 number",
            4,
            "0",
            number.to_string(),
        ));
    }
    let s0_size = r.u32("section 0 size")?;
    if s0_size != SECTION0_SIZE {
        return Err(DecodeError::new(
            "section 0 size",
            8,
            "24",
            s0_size.to_string(),
        ));
    }
    let section_count = r.u32("section count")?;
    if section_count != 4 {
        warnings.push(format!(
            "section 0 declares {section_count} sections; read the 4 known"
        ));
    }
    let major = r.u16("major version")?;
    let minor = r.u16("minor version")?;
    let keyframe_count_at = r.pos();
    let keyframe_count = r.u16("keyframe count")?;
    let frame_rate = r.u16("frame rate")?;
    let reserved = r.u32("reserved")?;

    // Section 1, at byte 28.
    let s1_at = r.pos();
    let number = r.u32("section 1 number")?;
    if number != 1 {
        return Err(DecodeError::new(
            "section 1 number",
            s1_at as u64,
            "1",
            number.to_string(),
        ));
    }
    let s1_size_at = r.pos();
    let s1_size = r.u32("section 1 size")?;
    let declared = s1_at
        .checked_add(s1_size as usize)
        .filter(|&e| e <= bytes.len() && s1_size >= 8)
        .ok_or_else(|| {
            DecodeError::new(
                "section 1 size",
                s1_size_at as u64,
                format!(
                    "8 to {} bytes (to the end of the file)",
                    bytes.len() - s1_at
                ),
                s1_size.to_string(),
            )
        });
    let strict = declared.and_then(|end| {
        let names = parse_names(bytes, r.pos(), end)?;
        Ok((names, parse_joints(bytes, end)?))
    });
    let (names, section2) = match strict {
        Ok(found) => found,
        Err(error) => {
            let Some((at, list, names, name_len)) = find_section2(bytes) else {
                return Err(error);
            };
            warnings.push(format!(
                "section 1 declares {s1_size} bytes and a {}-byte motion name, but section 2 \
                 starts {} bytes after section 1 and the name has {} bytes; read them that way",
                bytes[s1_at + 8],
                at - s1_at,
                name_len
            ));
            (names, list)
        }
    };

    // Section 3.
    let mut r = Reader::new(bytes);
    let s3_at = section2.end;
    r.seek(s3_at, "section 3")?;
    let number = r.u32("section 3 number")?;
    if number != 3 {
        return Err(DecodeError::new(
            "section 3 number",
            s3_at as u64,
            "3",
            number.to_string(),
        ));
    }
    let ers110 = design_model(&names.design) == Some(Model::Ers110);
    // ERS-110 files store section 3's size in 16 bits (docs/formats.md §1).
    let s3_size = if ers110 {
        u32::from(r.u16("section 3 size")?)
    } else {
        r.u32("section 3 size")?
    };
    let header_len = r.pos() - s3_at;
    let data_type_at = r.pos();
    let data_type = r.u32("section 3 data type")?;
    if data_type != 0 {
        warnings.push(format!(
            "section 3 data type at byte {data_type_at} is {data_type}, not 0 (angles); read as angles"
        ));
    }
    if keyframe_count == 0 {
        return Err(DecodeError::new(
            "keyframe count",
            keyframe_count_at as u64,
            "at least 1",
            "0",
        ));
    }
    let joint_count = section2.names.len();
    let kf_count = usize::from(keyframe_count);
    // Keyframe 0 lacks the interp word; check the whole block fits before allocating.
    let needed = kf_count * (joint_count + 4) * 4 - 4;
    if needed > r.remaining() {
        return Err(DecodeError::new(
            "section 3 keyframes",
            r.pos() as u64,
            format!("{keyframe_count} keyframes of {joint_count} joints ({needed} bytes)"),
            format!("{} bytes before the end of the file", r.remaining()),
        ));
    }
    let mut keyframes = Vec::with_capacity(kf_count);
    for i in 0..kf_count {
        let interp = if i == 0 { 0 } else { r.u32("keyframe interp")? };
        let roll = r.i32("keyframe roll")?;
        let pitch = r.i32("keyframe pitch")?;
        let yaw = r.i32("keyframe yaw")?;
        let joints = (0..joint_count)
            .map(|_| r.i32("keyframe joint"))
            .collect::<Result<Vec<_>, _>>()?;
        keyframes.push(Keyframe {
            interp,
            roll,
            pitch,
            yaw,
            joints,
        });
    }
    let actual = header_len + 4 + needed;
    if s3_size as usize != actual {
        warnings.push(format!(
            "section 3 declares {s3_size} bytes, but {keyframe_count} keyframes of {joint_count} \
             joints take {actual}; the counts win"
        ));
    }
    if r.remaining() > 0 {
        warnings.push(format!(
            "{} bytes after the last keyframe (byte {}) ignored",
            r.remaining(),
            r.pos()
        ));
    }
    Ok(Mtn {
        version: [major, minor],
        section_count,
        frame_rate,
        reserved,
        name: names.name,
        creator: names.creator,
        design: names.design,
        section1_padding: names.padding,
        joints: section2.names,
        section2_padding: section2.padding,
        declared_sizes: [s0_size, s1_size, section2.size, s3_size],
        data_type,
        keyframes,
        warnings,
    })
}
