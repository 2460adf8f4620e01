//! The AIBO workbench: make, transform and check `.mtn` motions.
//!
//! Every operation takes decoded motions ([`Mtn`]) and gives back a new one
//! that [`crate::formats::mtn::encode`] writes as a byte-valid file, with the
//! warnings a user should see beside it:
//!
//! - [`mirror`], [`reverse`], [`retime`], [`concat()`], [`with_name`]: mirror
//!   left ↔ right, reverse, retime, concatenate, rename;
//! - [`convert()`]: carry a motion to another robot model;
//! - [`from_csv`], [`from_json`]: keyframes from a CSV or JSON table (what
//!   `viewer export` writes);
//! - [`check()`]: a motion against the robot's joint limits, servo speeds,
//!   naming rules and standard postures, as a typed [`Report`];
//! - `Editor` (the crate's own): one motion's keyframes edited in place,
//!   with undo, for the window's and the page's curves panel.

pub(crate) mod check;
mod convert;
mod csv;
mod edit;
// The window's and the page's keyframe editor: built and tested without them.
#[cfg_attr(not(feature = "window"), allow(dead_code))]
mod editor;
mod table;

use crate::formats::aibo::{Joint, Model};
use crate::formats::mtn::{self, MotionName, Mtn};

pub use self::csv::{CsvError, FromTable, from_csv, from_json, from_table_reader};
pub use check::Finding;
pub use check::{FindingKind, Report, Severity, check};
pub use convert::convert;
pub use edit::{Retime, concat, mirror, retime, reverse, with_name};
pub(crate) use editor::{Applied, Editor, edited_path};

// The workbench's errors into the crate's (here, not in `error`, which
// the formats this module reads import: no cycle).
impl From<EditError> for crate::Error {
    /// An edit's error without a file; [`crate::Error::edit`] names the file.
    fn from(source: EditError) -> Self {
        crate::Error::Edit {
            path: None,
            source: Box::new(source),
        }
    }
}

impl crate::Error {
    /// An [`Error::Edit`](crate::Error::Edit) for the motion read from `path`.
    pub fn edit(path: impl AsRef<std::path::Path>, source: EditError) -> Self {
        crate::Error::Edit {
            path: Some(path.as_ref().to_path_buf()),
            source: Box::new(source),
        }
    }
}

/// A new motion and what the user should know about how it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    /// The motion made.
    pub motion: Mtn,
    /// Things dropped, moved or assumed on the way, one sentence each.
    pub warnings: Vec<String>,
}

/// Why an operation could not make a motion.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EditError {
    /// The design label names no AIBO model, so joints have no known role.
    #[error("design label {0:?} names no known AIBO model")]
    UnknownModel(String),
    /// A joint whose PRM name (or position, on the ERS-110) says nothing.
    #[error("joint {index} ({name:?}) is not a known {model} joint")]
    UnknownJoint {
        /// Its index in the motion.
        index: usize,
        /// Its PRM name.
        name: String,
        /// The motion's model.
        model: Model,
    },
    /// The motion lacks the joint another one mirrors onto.
    #[error("{joint} mirrors onto {mirror}, which the motion does not drive")]
    NoMirror {
        /// The joint present.
        joint: String,
        /// The joint missing.
        mirror: String,
    },
    /// Motions that cannot be joined, or a model that cannot be reached.
    #[error("{0}")]
    Mismatch(String),
    /// A speed, frame period or length the format cannot hold.
    #[error("{0}")]
    Timing(String),
    /// A keyframe index past the motion's end (the editor's operations).
    #[error("keyframe {key}: the motion has {count} keyframes, numbered from 0")]
    NoKeyframe {
        /// The index asked for.
        key: usize,
        /// How many keyframes the motion has.
        count: usize,
    },
    /// A channel the motion does not have (the editor's operations).
    #[error("channel {0:?}: expected roll_deg, pitch_deg, yaw_deg or one of the motion's joints")]
    NoChannel(String),
    /// An edit that cannot be made as asked, in one sentence.
    #[error("{0}")]
    Refused(String),
}

/// The model of `m` and the role of every joint, or why not.
fn roles(m: &Mtn) -> Result<(Model, Vec<Joint>), EditError> {
    let model = m
        .model()
        .ok_or_else(|| EditError::UnknownModel(m.design.clone()))?;
    let roles = m
        .joint_roles()
        .into_iter()
        .enumerate()
        .map(|(index, role)| {
            role.ok_or_else(|| EditError::UnknownJoint {
                index,
                name: m.joints[index].clone(),
                model,
            })
        })
        .collect::<Result<_, _>>()?;
    Ok((model, roles))
}

/// The motion as its file reads back: encoded and decoded again, so every
/// size and count is the one written. What the format cannot hold (text
/// beyond Latin-1 or 255 bytes, more than 65 535 keyframes or joints, an
/// ERS-110 section 3 beyond its 16-bit size) is refused rather than cut.
fn finish(mut m: Mtn, warnings: Vec<String>) -> Result<Edit, EditError> {
    let texts = [
        ("name", &m.name),
        ("creator", &m.creator),
        ("design label", &m.design),
    ];
    let joints = m.joints.iter().map(|j| ("joint name", j));
    for (what, text) in texts.into_iter().chain(joints) {
        if text.chars().count() > 255 || text.chars().any(|c| u32::from(c) > 0xFF) {
            return Err(EditError::Mismatch(format!(
                "{what} {text:?}: a motion file holds at most 255 Latin-1 characters"
            )));
        }
    }
    let most = usize::from(u16::MAX);
    if m.keyframes.len() > most || m.joints.len() > most {
        return Err(EditError::Timing(format!(
            "{} keyframes of {} joints: a motion file holds at most {most} of each",
            m.keyframes.len(),
            m.joints.len()
        )));
    }
    m.warnings.clear();
    let motion = mtn::decode(&mtn::encode(&m))
        .map_err(|e| EditError::Mismatch(format!("the motion made does not read back: {e}")))?;
    if let Some(w) = motion.warnings.first() {
        return Err(EditError::Mismatch(format!(
            "the motion made does not fit the format: {w}"
        )));
    }
    Ok(Edit { motion, warnings })
}

/// Sets the motion name and the section padding that follows from its length.
fn rename(m: &mut Mtn, name: String) {
    if m.name != name {
        m.name = name;
        m.pad_sections();
    }
}

/// The name `g_start#end_description` with new postures; a name outside that
/// scheme is kept as it is.
fn with_postures(name: &str, start: &str, end: &str) -> String {
    match MotionName::parse(name) {
        Some(n) => {
            let letter = &name[..1];
            let tail = if n.description.is_empty() {
                String::new()
            } else {
                format!("_{}", n.description)
            };
            format!("{letter}_{start}#{end}{tail}")
        }
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postures_are_replaced_and_the_rest_kept() {
        assert_eq!(
            with_postures("a_stand#sit_S", "sit", "stand"),
            "a_sit#stand_S"
        );
        assert_eq!(with_postures("h_any#any", "x", "y"), "h_x#y");
        assert_eq!(
            with_postures("l_sit#sit_soc_message1", "sit", "sleep"),
            "l_sit#sleep_soc_message1"
        );
        assert_eq!(with_postures("cd#14", "a", "b"), "cd#14");
    }
}
