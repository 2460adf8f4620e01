//! motion-viewer: decode MEMG, AIBO `.mtn` and MRTK input-animation motion
//! files, evaluate them on one timeline, and play them back on the GPU.
//!
//! Layers, each using only the ones before it:
//! - [`formats`]: bytes ↔ typed data (no GPU, no time);
//! - [`anim`]: time → pose, the CPU reference math, and the [`anim::timeline::Timeline`];
//! - [`scene`]: the files given, loaded and paired into tracks; where each
//!   stands, and the plain shapes that draw them (CPU);
//! - [`export`]: poses → JSON, CSV, OBJ and glTF files (no GPU);
//! - [`workbench`]: AIBO `.mtn` motions made from tables, mirrored, reversed,
//!   retimed, joined, converted between models and checked (no GPU);
//! - `gpu` (feature `gpu`): buffers, compute deformation, rendering, offscreen capture;
//! - `stage` (feature `gpu`): every track posed at one time, laid out side by side, as one frame to draw;
//! - `app` (feature `window`): the interactive window;
//! - `bench` (native): the throughput measurements behind `viewer bench`;
//! - `serve` (native): the static file server behind `viewer serve` for the web page.
//!
//! With `default-features = false` only the decoders and the CPU math are built.

#![warn(missing_docs)]

pub mod anim;
#[cfg(not(target_arch = "wasm32"))]
pub mod bench;
pub mod error;
pub mod export;
pub mod formats;
pub mod scene;
#[cfg(not(target_arch = "wasm32"))]
pub mod serve;
pub mod state;
pub mod summary;
pub mod synthetic;
pub mod workbench;

#[cfg(feature = "gpu")]
pub mod gpu;

#[cfg(feature = "gpu")]
pub mod stage;

#[cfg(feature = "window")]
pub mod app;

pub use error::{DecodeError, Error, Result};
