//! The state of every track at one time, written as a JSON array.

use crate::error::Result;
use crate::output::write_atomic;
use crate::pose::State;
use std::path::Path;

/// Writes `states` to `out` as a pretty-printed JSON array.
pub(crate) fn write_states(states: &[State], out: &Path) -> Result<()> {
    write_atomic(out, |w| {
        serde_json::to_writer_pretty(&mut *w, states).map_err(std::io::Error::other)?;
        w.write_all(b"\n")
    })
}
