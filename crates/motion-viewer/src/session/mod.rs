//! What the viewer shows, as plain data, with no window: the tracks with
//! their visibility, solo and focus ([`state`]), the clock and the loop range
//! ([`playback`]), the entry list of an ODA archive opened whole ([`archive`]),
//! the focused AIBO motion's joint values and `check`'s findings ([`mtn`]),
//! the AIBO motions being edited ([`edit`]),
//! what is under the cursor ([`pick`]) and the status that scripts and tests
//! read ([`status`]); with feature `physics`, each AIBO track simulated
//! on the physical dog ([`sim`]).
//!
//! The window (`app`, feature `window`) and the web page drive a
//! [`ViewerState`]; everything here builds and is tested without them.

pub mod archive;
pub mod edit;
mod entry;
pub mod mtn;
pub mod pick;
pub mod playback;
#[cfg(feature = "physics")]
#[cfg_attr(docsrs, doc(cfg(feature = "physics")))]
pub mod sim;
pub mod state;
pub mod status;

pub use state::ViewerState;
pub use status::Status;
