//! Editing the AIBO motion as the window does it: the edit section's own
//! state ([`EditUi`], shown by the overlay), the edit keys, saving the
//! edited motion through the [`Host`] (asking before writing over the
//! original), and the question a close asks while edits are unsaved. The
//! edits themselves are the session's ([`crate::session::edit`]).

use super::host::Host;
use super::keys::Action;
use super::ui::edit::{self, EditUi};
use crate::session::viewer::ViewerState;

/// The edit section's state and whether the title shows unsaved edits.
#[derive(Debug, Default)]
pub(crate) struct Editing {
    /// What the edit section keeps between frames (the overlay shows it).
    pub(crate) ui: EditUi,
    /// Whether the window's title shows unsaved edits (`*`).
    titled_unsaved: bool,
}

impl Editing {
    /// True while a question is asked: the window's keys wait.
    pub(crate) fn asking(&self) -> bool {
        self.ui.asking()
    }

    /// True while the first value field has the keyboard with its text
    /// selected (for the status).
    pub(crate) fn typing(&self) -> bool {
        self.ui.ready_to_type()
    }

    /// An edit key pressed (see [`edit::key`]); Ctrl+S saves.
    pub(crate) fn key(&mut self, host: &mut impl Host, state: &mut ViewerState, action: Action) {
        if edit::key(state, &mut self.ui, action) {
            self.save(host, state, false);
        }
    }

    /// Saves the edited track's motion where the edit section says,
    /// through `host`; asks first (and returns false) before writing over
    /// the original, unless `overwrite`. Returns true when it was saved.
    pub(crate) fn save(
        &mut self,
        host: &mut impl Host,
        state: &mut ViewerState,
        overwrite: bool,
    ) -> bool {
        let Some(request) = state.edit_track().and_then(|i| state.save_request(i)) else {
            return false;
        };
        let target = self.ui.target(&request);
        if !overwrite && edit::is_original(&target, &request) {
            self.ui.ask_overwrite();
            return false;
        }
        let saved = host.save_motion(&target, &request.original, &request.bytes, overwrite);
        let message = match &saved {
            Ok(place) => {
                state.mark_saved(request.track);
                format!("saved {place}")
            }
            Err(e) => format!("not saved: {e}"),
        };
        state.set_edit_message(Some(message));
        saved.is_ok()
    }

    /// The user asked to close the window: true when it may close now;
    /// with unsaved edits, false, and the overlay asks Save, Discard or
    /// Cancel.
    pub(crate) fn may_close(&mut self, state: &ViewerState) -> bool {
        if state.has_unsaved_edits() {
            self.ui.ask_quit();
            return false;
        }
        true
    }

    /// True when the title's unsaved mark (`*`) no longer matches
    /// `state`; the caller sets the title again.
    pub(crate) fn title_stale(&mut self, state: &ViewerState) -> bool {
        let unsaved = state.has_unsaved_edits();
        let stale = unsaved != self.titled_unsaved;
        self.titled_unsaved = unsaved;
        stale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_host::{RecordingHost, sony};
    use crate::formats::mtn;
    use std::path::Path;

    /// The left front leg's first joint of the ERS-210 (`viewer info`).
    const LF_J1: &str = "PRM:/r2/c1-Joint2:j1";

    #[test]
    fn an_edit_is_saved_through_the_host_and_a_close_waits_for_it() {
        let mut state = sony();
        let mut editing = Editing::default();
        let mut host = RecordingHost::default();
        assert!(editing.may_close(&state) && !editing.asking());
        state.edit(0, |e| e.set_value(3, LF_J1, 15.0)).unwrap();
        assert!(editing.title_stale(&state), "the title gains its `*`");
        assert!(!editing.title_stale(&state));
        // Unsaved edits: a close asks instead.
        assert!(!editing.may_close(&state) && editing.asking());

        assert!(editing.save(&mut host, &mut state, false));
        let [saved] = &host.motions[..] else {
            panic!("one motion saved, got {}", host.motions.len());
        };
        // Beside the original, under the suggested name: not over it.
        assert_eq!(saved.path, Path::new("m-edited.mtn"));
        assert_eq!(saved.original, Path::new("m.mtn"));
        assert!(!saved.overwrite);
        // The bytes are the edited motion: 15° at keyframe 3, in µrad.
        let motion = mtn::decode(&saved.bytes).unwrap();
        let j = motion.joints.iter().position(|n| n == LF_J1).unwrap();
        let urad = 15.0_f64.to_radians() * 1e6;
        assert!((f64::from(motion.keyframes[3].joints[j]) - urad).abs() <= 1.0);
        assert_eq!(state.edit_message(), Some("saved m-edited.mtn"));
        assert!(!state.has_unsaved_edits());
        assert!(editing.title_stale(&state), "the `*` goes");
    }

    #[test]
    fn a_save_the_host_refuses_keeps_the_edits_unsaved_and_says_why() {
        let mut state = sony();
        let mut editing = Editing::default();
        let mut host = RecordingHost {
            refuse: Some("disk full".into()),
            ..RecordingHost::default()
        };
        state.edit(0, |e| e.set_value(3, LF_J1, 15.0)).unwrap();
        assert!(!editing.save(&mut host, &mut state, false));
        let message = state.edit_message().unwrap();
        assert!(message.starts_with("not saved: ") && message.contains("disk full"));
        assert!(state.has_unsaved_edits());
        // Ctrl+S is the same save.
        host.refuse = None;
        editing.key(&mut host, &mut state, Action::SaveMotion);
        assert_eq!(host.motions.len(), 1);
        assert!(!state.has_unsaved_edits());
    }
}
