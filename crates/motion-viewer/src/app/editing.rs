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
