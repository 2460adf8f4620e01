//! AIBO `.mtn` motions (magic `OMTN`): decoder and byte-exact encoder.
//!
//! The layout reconciles Sony's libMTN document with Dogsbody's page under the
//! rulings of `docs/formats.md` §1:
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
//!
//! ```
//! use motion_viewer::formats::{aibo::Model, mtn};
//!
//! // The hex example of Sony's libMTN document, rebuilt byte for byte.
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sony_stand_sit.mtn"))?;
//! let motion = mtn::decode(&bytes)?;
//! assert_eq!(motion.name, "a_stand#sit_S");
//! assert_eq!(motion.model(), Some(Model::Ers210));
//! assert_eq!((motion.keyframes.len(), motion.joints.len()), (6, 20));
//! assert_eq!(motion.total_frames(), 305); // 4.880 s of 16 ms frames
//! assert_eq!(mtn::encode(&motion), bytes);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod decode;
mod encode;
mod joints;
mod oda;

use crate::formats::aibo::{BodyPart, Joint, Model};

pub use decode::decode;
pub use encode::encode;
pub use joints::{Scope, prm_names};
pub(crate) use joints::{design_label, design_model, model_for, split_design};
pub use oda::{OdaEntry, read_oda};

/// The file magic.
pub(crate) const MAGIC: &[u8; 4] = b"OMTN";
/// The size of section 0, header included.
pub(crate) const SECTION0_SIZE: u32 = 24;
/// The frame period used when section 0 says 0 (every ERS-110 file): Sony's
/// player ignores the field and runs at 16 ms.
pub(crate) const DEFAULT_FRAME_MS: u32 = 16;
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
    /// The robot model, from the design label and, for `DRX-900`, the joints.
    /// Partial-body designs (`DRX-1000_Legs`) name their model too.
    pub fn model(&self) -> Option<Model> {
        model_for(&self.design, &self.joints)
    }

    /// Which servos the design label says the motion drives; `None` for an
    /// unknown suffix.
    pub fn scope(&self) -> Option<Scope> {
        split_design(&self.design).1
    }

    /// True for ERS-110 files, whose section 3 size is a u16.
    pub(crate) fn is_ers110(&self) -> bool {
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

    /// The name of every joint, in file order, as every path names it
    /// (`info`, the state JSON, tables, curves, URDF, MCAP, USD, Python):
    /// the model's PRM name for the servo the joint drives
    /// ([`prm_names`]), which is the file's own name in every
    /// well-formed file; the file's name only where the joint's role is
    /// unknown. Sony's ERS-110 files are read by position, and 19 of the
    /// real motions in `tests/data` name a servo otherwise
    /// (`PRM:/r5/c0/c1/c2-Joint` or `PRM:/r5/c0/c2-Joint:j1` for the left
    /// hind elevator, `PRM:/r1/c0-Joint:j1` for the tail pan): they are
    /// named by the servo they drive. [`Mtn::joints`] keeps the file's names.
    pub fn joint_names(&self) -> Vec<&str> {
        let model = self.model();
        let table = model.map_or(&[][..], joints::prm_names);
        self.joint_roles()
            .iter()
            .zip(&self.joints)
            .map(|(role, own)| {
                role.and_then(|r| table.iter().find(|(j, _)| *j == r))
                    .map_or(own.as_str(), |(_, name)| name)
            })
            .collect()
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
