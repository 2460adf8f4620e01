//! Interactive editing of one AIBO motion, with undo and redo: what the
//! window's and the page's curves panel drive.
//!
//! Every edit makes a new [`Mtn`] that [`crate::formats::mtn::encode`] writes
//! byte-valid; [`Editor::undo`] returns exactly to the motion before it, so
//! undoing every edit and saving writes the original file's bytes again.
//! [`check`](super::check()) is re-run after each edit, so its findings follow.
//!
//! INTERFACE SKELETON: the bodies are being written (issue 24); the names and
//! signatures below are what the app codes against.

use super::{EditError, Report};
use crate::formats::mtn::Mtn;
use std::path::{Path, PathBuf};

/// What an edit did, beyond changing the motion.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Applied {
    /// The keyframe now concerned (the one inserted, moved or changed), if any.
    pub key: Option<usize>,
    /// Something the user should be told, one sentence (a value clamped to
    /// the joint's limit, say).
    pub message: Option<String>,
}

/// One motion being edited: the motion as it is now, the original, the
/// selected keyframe, a copied pose, and the undo and redo stacks.
#[derive(Debug, Clone)]
pub struct Editor {
    original: Mtn,
}

impl Editor {
    /// Starts editing `motion`.
    pub fn new(motion: Mtn) -> Editor {
        Editor { original: motion }
    }

    /// The motion as it is now.
    pub fn motion(&self) -> &Mtn {
        todo!("issue 24")
    }

    /// The motion as it was opened.
    pub fn original(&self) -> &Mtn {
        &self.original
    }

    /// Each keyframe's time in seconds.
    pub fn keyframe_times_s(&self) -> Vec<f64> {
        todo!("issue 24")
    }

    /// The selected keyframe.
    pub fn selected(&self) -> Option<usize> {
        todo!("issue 24")
    }

    /// Selects a keyframe (or none); out-of-range indices select none.
    pub fn select(&mut self, key: Option<usize>) {
        let _ = key;
        todo!("issue 24")
    }

    /// The value of `channel` (a table column name: `roll_deg`, `pitch_deg`,
    /// `yaw_deg` or a joint's name) at keyframe `key`, in degrees.
    pub fn value_deg(&self, key: usize, channel: &str) -> Option<f64> {
        let _ = (key, channel);
        todo!("issue 24")
    }

    /// Sets `channel` at keyframe `key` to `deg` degrees, clamped to the
    /// model's joint limit (the clamp said in [`Applied::message`]).
    pub fn set_value(&mut self, key: usize, channel: &str, deg: f64) -> Result<Applied, EditError> {
        let _ = (key, channel, deg);
        todo!("issue 24")
    }

    /// Moves keyframe `key` to `time_s` (rounded to the motion's frame
    /// period), between its neighbours; the interpolation frame counts
    /// around it change to match.
    pub fn move_key(&mut self, key: usize, time_s: f64) -> Result<Applied, EditError> {
        let _ = (key, time_s);
        todo!("issue 24")
    }

    /// Inserts a keyframe at `time_s` (rounded to a frame) holding the
    /// interpolated pose there; the motion plays as before.
    pub fn insert_key(&mut self, time_s: f64) -> Result<Applied, EditError> {
        let _ = time_s;
        todo!("issue 24")
    }

    /// Deletes keyframe `key` (never the last one left).
    pub fn delete_key(&mut self, key: usize) -> Result<Applied, EditError> {
        let _ = key;
        todo!("issue 24")
    }

    /// Copies keyframe `key`'s pose (body and joints).
    pub fn copy_pose(&mut self, key: usize) -> Result<(), EditError> {
        let _ = key;
        todo!("issue 24")
    }

    /// Pastes the copied pose onto keyframe `key`.
    pub fn paste_pose(&mut self, key: usize) -> Result<Applied, EditError> {
        let _ = key;
        todo!("issue 24")
    }

    /// Mirrors keyframe `key`'s pose left ↔ right.
    pub fn mirror_key(&mut self, key: usize) -> Result<Applied, EditError> {
        let _ = key;
        todo!("issue 24")
    }

    /// Undoes the last edit; false when there is none.
    pub fn undo(&mut self) -> bool {
        todo!("issue 24")
    }

    /// Redoes the last undone edit; false when there is none.
    pub fn redo(&mut self) -> bool {
        todo!("issue 24")
    }

    /// Edits that [`Editor::undo`] can take back.
    pub fn undo_depth(&self) -> usize {
        todo!("issue 24")
    }

    /// Edits that [`Editor::redo`] can bring back.
    pub fn redo_depth(&self) -> usize {
        todo!("issue 24")
    }

    /// True when the motion differs from the original.
    pub fn is_dirty(&self) -> bool {
        todo!("issue 24")
    }

    /// `check`'s report on the motion as it is now.
    pub fn report(&self) -> &Report {
        todo!("issue 24")
    }

    /// The motion as it is now, as `.mtn` bytes.
    pub fn encode(&self) -> Vec<u8> {
        todo!("issue 24")
    }
}

/// Where an edited motion is saved by default: `NAME-edited.mtn` beside
/// `original`.
pub fn edited_path(original: &Path) -> PathBuf {
    let _ = original;
    todo!("issue 24")
}
