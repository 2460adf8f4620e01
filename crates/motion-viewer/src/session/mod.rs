//! What the viewer shows, as plain data, with no window: the tracks with
//! their visibility, solo and focus, the clock and the loop range
//! (`LoopRange`), the entry list of an ODA archive opened whole
//! (`ArchiveList`), the focused AIBO motion's joint values and `check`'s
//! findings, the AIBO motions being edited (`EditStatus`), what is under
//! the cursor and the status that scripts and tests read ([`Status`]), all
//! held by one [`ViewerState`]; with feature `physics`, each AIBO track
//! simulated on the physical dog (`Simulations`).
//!
//! The window (`app`, feature `window`) and the web page drive a
//! [`ViewerState`]; everything here builds and is tested without them.

// The window (feature `window`) is what reads all of this; without it, the
// module is built and tested but not called (lib.rs allows that, once).
pub(crate) mod archive;
pub(crate) mod edit;
pub(crate) mod entry;
pub(crate) mod mtn;
pub(crate) mod pick;
pub(crate) mod playback;
#[cfg(feature = "physics")]
pub(crate) mod sim;
pub(crate) mod status;
pub(crate) mod viewer;

pub(crate) use viewer::ViewerState;
