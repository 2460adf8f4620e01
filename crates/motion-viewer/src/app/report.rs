//! The status for scripts and tests: the host gets the [`Status`] every
//! frame, and a line whenever the timeline or tracks, the edit or the
//! error change (each printed once, not every frame).

use super::host::Host;
use crate::session::status::Status;
#[cfg(test)]
use crate::session::viewer::ViewerState;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_host::{RecordingHost, sony};

    #[test]
    fn each_line_is_printed_once_until_it_changes() {
        let mut state = sony();
        let mut host = RecordingHost::default();
        let mut reporter = Reporter::default();
        let twice = |reporter: &mut Reporter, host: &mut RecordingHost, state: &ViewerState| {
            for _ in 0..2 {
                reporter.report(host, Status::of(state, "test", 0.0));
            }
        };
        twice(&mut reporter, &mut host, &state);
        // The timeline's line and the edit's (an AIBO track is editable).
        let [frame, edit] = &host.status[..] else {
            panic!("two lines, got {:?}", host.status);
        };
        assert!(frame.starts_with("frame ") && frame.contains("time 0.000000"));
        assert!(edit.starts_with("edit "), "{edit}");
        // A seek changes the timeline's line only: printed again, once.
        state.timeline.seek(1.0);
        twice(&mut reporter, &mut host, &state);
        assert_eq!(host.status.len(), 3, "{:?}", host.status);
        assert!(
            host.status[2].contains("time 1.000000"),
            "{}",
            host.status[2]
        );
    }
}
