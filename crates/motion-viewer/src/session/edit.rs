//! Editing the AIBO motions on the stage: each `.mtn` track carries a
//! [`Editor`] ([`TrackEntry::editor`]); an edit goes through
//! [`ViewerState::edit`], which puts the edited motion on the track (its
//! keyframe ticks and `check`'s findings follow) and moves
//! [`ViewerState::revision`] (and [`ViewerState::generation`] when the
//! duration changed), so the stage and the curves redraw it.
//!
//! The track edited is the focused one, or without a focus the first AIBO
//! track ([`ViewerState::edit_track`]); its selected keyframe follows the
//! keyframe jumps ([`ViewerState::select_key_at_playhead`]).

use super::viewer::{TrackEntry, ViewerState};
use crate::scene::Track;
use crate::workbench::{Applied, EditError, Editor, edited_path};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The edit state that scripts and tests follow (`edit` in the status).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EditStatus {
    /// The track being edited.
    pub track: usize,
    /// Its selected keyframe.
    pub keyframe: Option<usize>,
    /// True when it has edits not saved yet.
    pub dirty: bool,
    /// Edits that undo can take back.
    pub undo_depth: usize,
    /// A value field of the selected keyframe has the keyboard, its text
    /// selected: what is typed next replaces it (filled by the window; a
    /// script waits for it after Enter before typing).
    pub typing: bool,
}

impl EditStatus {
    /// The desktop's status line for it:
    /// `edit track 0 keyframe 2 dirty true undo_depth 1` (`-` for no keyframe).
    pub fn line(&self) -> String {
        let key = self
            .keyframe
            .map_or_else(|| "-".to_string(), |k| k.to_string());
        format!(
            "edit track {} keyframe {key} dirty {} undo_depth {}",
            self.track, self.dirty, self.undo_depth
        )
    }
}

/// An edited motion to save: its bytes, the file it came from and where
/// it goes by default.
#[derive(Debug, Clone, PartialEq)]
pub struct SaveRequest {
    /// The track.
    pub track: usize,
    /// The `.mtn` bytes.
    pub bytes: Vec<u8>,
    /// The file the motion was opened from (`ARCHIVE.ODA:NAME` for an
    /// archive entry).
    pub original: PathBuf,
    /// `NAME-edited.mtn` beside it (for an archive entry, the entry's
    /// name beside the archive).
    pub suggested: PathBuf,
}

/// Where an edited track's motion is saved by default.
pub fn suggested_path(track: &Track) -> PathBuf {
    match track {
        Track::Mtn {
            path,
            entry: Some(entry),
            ..
        } => {
            // `ARCHIVE.ODA:NAME`: the entry's name, beside the archive.
            let archive = crate::open::archive::disk_file(path);
            let dir = archive.parent().unwrap_or(Path::new(""));
            edited_path(&dir.join(format!("{entry}.mtn")))
        }
        other => edited_path(other.path()),
    }
}

impl ViewerState {
    /// The AIBO track being edited: the focused track if it is one, else
    /// (without a focus) the first.
    pub fn edit_track(&self) -> Option<usize> {
        let aibo = |e: &TrackEntry| e.editor.is_some();
        match self.focus() {
            Some(i) => self.tracks().get(i).filter(|e| aibo(e)).map(|_| i),
            None => self.tracks().iter().position(aibo),
        }
    }

    /// Track `i`'s editor, for an AIBO track.
    pub fn editor(&self, i: usize) -> Option<&Editor> {
        self.tracks().get(i)?.editor.as_deref()
    }

    /// Applies `op` to track `i`'s editor and puts the result on the
    /// track. An error leaves everything as it was.
    pub fn edit<T>(
        &mut self,
        i: usize,
        op: impl FnOnce(&mut Editor) -> Result<T, EditError>,
    ) -> Result<T, EditError> {
        let Some(editor) = self.entry_mut(i).and_then(|e| e.editor.as_deref_mut()) else {
            return Err(EditError::Refused(format!(
                "track {i} is not an AIBO motion; only .mtn motions can be edited"
            )));
        };
        let before = editor.revision();
        let result = op(editor);
        if editor.revision() != before {
            self.edited(i);
        }
        result
    }

    /// Undoes the last edit of track `i`; false when there is none.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn undo_edit(&mut self, i: usize) -> bool {
        self.edit(i, |e| Ok(e.undo())).unwrap_or(false)
    }

    /// Redoes the last undone edit of track `i`; false when there is none.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn redo_edit(&mut self, i: usize) -> bool {
        self.edit(i, |e| Ok(e.redo())).unwrap_or(false)
    }

    /// Selects keyframe `key` of track `i` (none out of range).
    pub(crate) fn select_key(&mut self, i: usize, key: Option<usize>) {
        if let Some(editor) = self.entry_mut(i).and_then(|e| e.editor.as_deref_mut()) {
            editor.select(key);
        }
    }

    /// Selects the edited track's keyframe at the playhead, if one is
    /// there (within a thousandth of a frame): after a keyframe jump.
    pub fn select_key_at_playhead(&mut self) {
        let Some(i) = self.edit_track() else {
            return;
        };
        let now = self.timeline.time_s();
        let eps = 1e-3 * self.timeline.frame_period_s();
        let key = self.tracks()[i]
            .keyframes
            .iter()
            .position(|&t| (t - now).abs() <= eps);
        if key.is_some() {
            self.select_key(i, key);
        }
    }

    /// The edit state of the edited track, for the status.
    pub(crate) fn edit_status(&self) -> Option<EditStatus> {
        let track = self.edit_track()?;
        let editor = self.editor(track)?;
        Some(EditStatus {
            track,
            keyframe: editor.selected(),
            dirty: editor.is_unsaved(),
            undo_depth: editor.undo_depth(),
            typing: false,
        })
    }

    /// True when some track has edits not saved yet.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn has_unsaved_edits(&self) -> bool {
        self.tracks()
            .iter()
            .any(|e| e.editor.as_ref().is_some_and(|ed| ed.is_unsaved()))
    }

    /// What saving track `i`'s motion writes, for an AIBO track.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn save_request(&self, i: usize) -> Option<SaveRequest> {
        let entry = self.tracks().get(i)?;
        let editor = entry.editor.as_deref()?;
        Some(SaveRequest {
            track: i,
            bytes: editor.encode(),
            original: entry.track.path().to_path_buf(),
            suggested: suggested_path(&entry.track),
        })
    }

    /// What the last edit had to say (a clamp, a refusal, where a save
    /// went), for the edit section.
    pub fn edit_message(&self) -> Option<&str> {
        self.edit_message.as_deref()
    }

    /// Sets (or clears) what the edit section says.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn set_edit_message(&mut self, message: Option<String>) {
        self.edit_message = message;
    }

    /// Applies `op` to the edited track's selected keyframe (or, without
    /// a selection, the keyframe at the playhead) and says what happened in
    /// [`ViewerState::edit_message`]; `done` words a success without a
    /// message of its own.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn edit_selected(
        &mut self,
        done: &str,
        op: impl FnOnce(&mut Editor, usize) -> Result<Applied, EditError>,
    ) {
        let Some(i) = self.edit_track() else {
            return;
        };
        let Some(key) = self.editor(i).and_then(Editor::selected).or_else(|| {
            let now = self.timeline.time_s();
            let eps = 1e-3 * self.timeline.frame_period_s();
            self.tracks()[i]
                .keyframes
                .iter()
                .position(|&t| (t - now).abs() <= eps)
        }) else {
            self.edit_message =
                Some("select a keyframe first: , and . jump to one, or click its tick".into());
            return;
        };
        let result = self.edit(i, |e| op(e, key));
        self.report_edit(done, result);
    }

    /// Words an edit's result in [`ViewerState::edit_message`].
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn report_edit(&mut self, done: &str, result: Result<Applied, EditError>) {
        self.edit_message = Some(match result {
            Ok(Applied {
                message: Some(m), ..
            }) => m,
            Ok(Applied { key: Some(k), .. }) => format!("{done} (keyframe {k})"),
            Ok(_) => done.to_string(),
            Err(e) => e.to_string(),
        });
    }

    /// Records that track `i`'s motion as it is now was saved.
    pub fn mark_saved(&mut self, i: usize) {
        if let Some(editor) = self.entry_mut(i).and_then(|e| e.editor.as_deref_mut()) {
            editor.mark_saved();
        }
    }
}

#[cfg(test)]
mod tests;
