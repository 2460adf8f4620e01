//! AIBO `.mtn` motions (magic `OMTN`): decoder and byte-exact encoder.
//!
//! The layout reconciles Sony's libMTN document with Dogsbody's page under the
//! rulings of `NOTES.md` §1:
//!
//! - `OMTN`, then section 0 (24 bytes: number 0, size, section count, u16
//!   major and minor version, u16 keyframe count, u16 frame rate in ms, u32
//!   reserved);
//! - section 1: number 1, size, then the motion name, creator and design label
//!   as Pascal strings, then padding;
//! - section 2: number 2, size, u16 joint count, one Pascal PRM name per joint,
//!   then padding;
//! - section 3: number 3, size (u16 on ERS-110, u32 otherwise), u32 data type,
//!   keyframe 0 as roll, pitch, yaw, joints, and each later keyframe as interp,
//!   roll, pitch, yaw, joints; all i32 micro-radians.
//!
//! Sections 1 and 2 are padded to a multiple of 4 bytes, except in ERS-110
//! version 1.0 files, which are not padded. The decoder keeps the padding bytes
//! it finds, so [`encode`] of a decoded well-formed file gives back its bytes.

mod joints;
pub mod oda;

use crate::error::DecodeError;
use crate::formats::aibo::{BodyPart, Joint, Model};
use crate::formats::bytes::{ByteOrder, Reader, Writer};

pub use joints::{ERS110_ORDER, Scope, design_model, model_for, split_design};
pub use oda::{OdaEntry, read_oda};

/// The file magic.
pub const MAGIC: &[u8; 4] = b"OMTN";
/// The size of section 0, header included.
pub const SECTION0_SIZE: u32 = 24;
/// The frame period used when section 0 says 0 (every ERS-110 file): Sony's
/// player ignores the field and runs at 16 ms.
pub const DEFAULT_FRAME_MS: u32 = 16;
/// Micro-radians to degrees.
pub const URAD_TO_DEG: f64 = 180.0 / (1_000_000.0 * std::f64::consts::PI);

/// One keyframe: body attitude and joint angles, in micro-radians.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Keyframe {
    /// Interpolated frames between the previous keyframe and this one; the
    /// keyframe is reached `interp + 1` frames after the previous. 0 for the first.
    pub interp: u32,
    /// Body roll; + leans right.
    pub roll: i32,
    /// Body pitch; + leans backward.
    pub pitch: i32,
    /// Body yaw; + turns left.
    pub yaw: i32,
    /// One angle per joint of [`Mtn::joints`], in file order.
    pub joints: Vec<i32>,
}

/// A decoded AIBO motion, with the raw header fields needed to write it back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mtn {
    /// Format version `[major, minor]` (1.0, 1.1 or 1.2 in Sony's files).
    pub version: [u16; 2],
    /// Section count declared in section 0 (4).
    pub section_count: u32,
    /// Frame period in ms as stored; 0 in ERS-110 files (see [`Mtn::frame_ms`]).
    pub frame_rate: u16,
    /// Section 0's reserved word.
    pub reserved: u32,
    /// Motion name, e.g. `a_stand#sit_S` (bytes read as Latin-1, so any byte survives).
    pub name: String,
    /// Creator, e.g. `Sony Corporation` (Latin-1).
    pub creator: String,
    /// Design label, e.g. `DRX-910` or `DRX-1000_Legs` (Latin-1).
    pub design: String,
    /// Bytes after the design label up to the end of section 1, written back as found.
    pub section1_padding: Vec<u8>,
    /// PRM name of each joint, in keyframe order (Latin-1).
    pub joints: Vec<String>,
    /// Bytes after the last joint name up to the end of section 2, written back as found.
    pub section2_padding: Vec<u8>,
    /// Section sizes as the file declares them (section 3's is 16-bit on ERS-110).
    /// The encoder writes the true sizes, which equal these in a well-formed file.
    pub declared_sizes: [u32; 4],
    /// Section 3 data type: 0, angle data, in every known file.
    pub data_type: u32,
    /// The keyframes, at least one.
    pub keyframes: Vec<Keyframe>,
    /// What the decoder recovered from (a lying size, a mislabelled string).
    pub warnings: Vec<String>,
}

/// The parts of a motion name `a_sit#stand_description`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MotionName {
    /// Which servos the motion drives, from the first letter.
    pub group: ServoGroup,
    /// Posture the motion starts from, e.g. `sit`.
    pub start: String,
    /// Posture the motion ends in, e.g. `stand`.
    pub end: String,
    /// Free text after the postures (may be empty or hold underscores).
    pub description: String,
}

/// The servo group letter of a motion name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServoGroup {
    /// `a`: all servos.
    All,
    /// `h`: head servos only.
    Head,
    /// `l`: leg servos only.
    Legs,
    /// `m`: the mouth only.
    Mouth,
    /// `e`: the ears only.
    Ears,
    /// `t`: the tail only.
    Tail,
}

impl ServoGroup {
    /// The group's name as JSON writes it, e.g. `"legs"`.
    pub fn name(self) -> &'static str {
        match self {
            ServoGroup::All => "all",
            ServoGroup::Head => "head",
            ServoGroup::Legs => "legs",
            ServoGroup::Mouth => "mouth",
            ServoGroup::Ears => "ears",
            ServoGroup::Tail => "tail",
        }
    }
}

impl MotionName {
    /// Parses `g_start#end[_description]`; `None` for names outside that
    /// scheme (many ERS-110 system motions are called `sitt001`, `cd#1`, …).
    pub fn parse(name: &str) -> Option<MotionName> {
        let (letter, rest) = name.split_once('_')?;
        let group = match letter {
            "a" => ServoGroup::All,
            "h" => ServoGroup::Head,
            "l" => ServoGroup::Legs,
            "m" => ServoGroup::Mouth,
            "e" => ServoGroup::Ears,
            "t" => ServoGroup::Tail,
            _ => return None,
        };
        let (start, rest) = rest.split_once('#')?;
        let (end, description) = rest.split_once('_').unwrap_or((rest, ""));
        if start.is_empty() || end.is_empty() {
            return None;
        }
        Some(MotionName {
            group,
            start: start.to_string(),
            end: end.to_string(),
            description: description.to_string(),
        })
    }
}

impl Mtn {
    /// The robot model, from the design label and, for `DRX-900`, the joints
    /// (see [`model_for`]). Partial-body designs (`DRX-1000_Legs`) name their model too.
    pub fn model(&self) -> Option<Model> {
        model_for(&self.design, &self.joints)
    }

    /// Which servos the design label says the motion drives; `None` for an
    /// unknown suffix.
    pub fn scope(&self) -> Option<Scope> {
        split_design(&self.design).1
    }

    /// True for ERS-110 files, whose section 3 size is a u16.
    pub fn is_ers110(&self) -> bool {
        design_model(&self.design) == Some(Model::Ers110)
    }

    /// The parsed motion name, if it follows `g_start#end_description`.
    pub fn motion_name(&self) -> Option<MotionName> {
        MotionName::parse(&self.name)
    }

    /// What each joint drives: ERS-110 by position, other models by PRM name;
    /// `None` where unknown.
    pub fn joint_roles(&self) -> Vec<Option<Joint>> {
        joints::roles(self.model(), &self.design, &self.joints)
    }

    /// The body part joint `i` belongs to.
    pub fn joint_part(&self, i: usize) -> Option<BodyPart> {
        self.joint_roles()
            .get(i)
            .copied()
            .flatten()
            .map(Joint::part)
    }

    /// The effective frame period in ms: the stored one, or 16 where it is 0.
    pub fn frame_ms(&self) -> u32 {
        match self.frame_rate {
            0 => DEFAULT_FRAME_MS,
            ms => ms.into(),
        }
    }

    /// The frame index at which each keyframe is reached (the first at 0).
    pub fn keyframe_frames(&self) -> Vec<u64> {
        let mut frame = 0u64;
        self.keyframes
            .iter()
            .enumerate()
            .map(|(i, k)| {
                if i > 0 {
                    frame += u64::from(k.interp) + 1;
                }
                frame
            })
            .collect()
    }

    /// Frames from the first keyframe to the last.
    pub fn total_frames(&self) -> u64 {
        self.keyframe_frames().last().copied().unwrap_or(0)
    }

    /// Seconds from the first keyframe to the last.
    pub fn duration_s(&self) -> f64 {
        self.frame_s(self.total_frames())
    }

    /// The time of each keyframe in seconds.
    pub fn keyframe_times_s(&self) -> Vec<f64> {
        self.keyframe_frames()
            .into_iter()
            .map(|f| self.frame_s(f))
            .collect()
    }

    /// The time of frame `frame` in seconds.
    pub fn frame_s(&self, frame: u64) -> f64 {
        frame as f64 * f64::from(self.frame_ms()) / 1000.0
    }

    /// Replaces the padding of sections 1 and 2 with what Sony writes: zeros to
    /// a multiple of 4 bytes, none in ERS-110 version 1.0 files. For motions
    /// built in code; decoded motions keep the padding they came with.
    pub fn pad_sections(&mut self) {
        let unpadded = self.is_ers110() && self.version == [1, 0];
        let pad = |len: usize| -> Vec<u8> {
            if unpadded {
                Vec::new()
            } else {
                vec![0; (4 - len % 4) % 4]
            }
        };
        let s1 = 8 + [&self.name, &self.creator, &self.design]
            .iter()
            .map(|s| 1 + s.chars().count().min(255))
            .sum::<usize>();
        let s2 = 10
            + self
                .joints
                .iter()
                .map(|s| 1 + s.chars().count().min(255))
                .sum::<usize>();
        self.section1_padding = pad(s1);
        self.section2_padding = pad(s2);
    }
}

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
/// the section. `None` unless exactly one length fits.
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
    let mut found = (0..region.len()).filter_map(|len| fits(len).map(|s| (len, s)));
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
    // ERS-110 files store section 3's size in 16 bits (NOTES §1).
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
