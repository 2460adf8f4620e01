//! Time → pose: the CPU reference math for every track, and the shared timeline.

pub mod aibo;
pub mod clock;
pub mod curve;
pub mod input_animation;
pub mod memg;
pub mod mtn;
pub(crate) mod rigid;
// The window's playhead: built and tested without the window.
#[cfg_attr(not(feature = "window"), allow(dead_code))]
pub(crate) mod timeline;

pub use timeline::{LoopMode, MAX_DURATION_S};
