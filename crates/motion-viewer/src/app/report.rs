//! The status for scripts and tests: the host gets the [`Status`] every
//! frame, and a line whenever the timeline or tracks, the edit or the
//! error change (each printed once, not every frame).

use super::host::Host;
use crate::session::status::Status;

/// The lines last printed.
#[derive(Debug, Default)]
pub(crate) struct Reporter {
    status: String,
    edit: Option<String>,
    error: Option<String>,
}

impl Reporter {
    /// Hands `status` to `host` and prints what changed since the last call.
    pub(crate) fn report(&mut self, host: &mut impl Host, status: Status) {
        host.report(&status);
        let line = status.line();
        if line != self.status {
            host.status(&line);
            self.status = line;
        }
        let edit = status.edit.as_ref().map(|e| e.line());
        if edit != self.edit {
            if let Some(line) = &edit {
                host.status(line);
            }
            self.edit = edit;
        }
        if status.error != self.error {
            if let Some(e) = &status.error {
                host.status(&format!("error {e}"));
            }
            self.error = status.error;
        }
    }
}
