//! Long calls that Ctrl-C stops: the work runs on a scoped thread with the
//! GIL released while the calling thread wakes every [`POLL`] to run
//! Python's signal handlers (`py.check_signals()`). When one raises (SIGINT's
//! `KeyboardInterrupt`), the work's cancel flag is set, the call waits for
//! the work to see it (it looks at the flag every few milliseconds) and
//! raises the handler's exception: within [`POLL`] and one of the work's
//! slices of the signal.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How often the calling thread runs Python's signal handlers while the
/// work runs.
pub const POLL: Duration = Duration::from_millis(50);

/// Runs `work` with a cancel flag (set once a signal handler raised; the
/// work should look at it every few milliseconds and return early) on a
/// thread of its own, the GIL released, checking Python's signals every
/// [`POLL`]. Returns the work's value, or the exception a signal handler
/// raised (the work's value, if any, dropped). A panic in the work is
/// resumed on the calling thread (for `errors::guarded` to report).
///
/// Signals are Python's to run on the main thread only: called from
/// another thread this just runs the work, the GIL released.
pub fn run<T: Send>(py: Python<'_>, work: impl FnOnce(&AtomicBool) -> T + Send) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    let flag = &cancel;
    let (done, mut result) = mpsc::sync_channel(1);
    std::thread::scope(|scope| {
        // The sender moves into the thread: a panic there drops it, and the
        // wait below sees the channel close.
        let worker = scope.spawn(move || {
            // A closed channel only means the caller stopped waiting.
            let _ = done.send(work(flag));
        });
        let finish = |worker: std::thread::ScopedJoinHandle<'_, ()>| {
            if let Err(panic) = py.detach(|| worker.join()) {
                std::panic::resume_unwind(panic);
            }
        };
        loop {
            // The receiver goes to the detached wait and back (it may be
            // sent, not shared).
            let (back, got) = py.detach(move || {
                let got = result.recv_timeout(POLL);
                (result, got)
            });
            result = back;
            match got {
                Ok(value) => {
                    finish(worker);
                    return Ok(value);
                }
                // The work panicked before sending: `finish` resumes it.
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    finish(worker);
                    unreachable!("the work ended without a value and without a panic");
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if let Err(raised) = py.check_signals() {
                cancel.store(true, Ordering::Relaxed);
                finish(worker);
                return Err(raised);
            }
        }
    })
}

/// Whether `cancel` was set: for work that runs in slices.
pub fn cancelled(cancel: &AtomicBool) -> bool {
    cancel.load(Ordering::Relaxed)
}
