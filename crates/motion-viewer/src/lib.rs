//! motion-viewer: decode MEMG, AIBO `.mtn` and MRTK input-animation motion
//! files, evaluate them on one timeline, export them, and (with the `gpu` and
//! `window` features) play them back on the GPU.
//!
//! # Quick start
//!
//! ```
//! # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap();
//! use motion_viewer::{At, State};
//!
//! // Open a file through the front door: the format is told by its content.
//! let loaded = motion_viewer::open("data/sony_stand_sit.mtn")?;
//! let sit = &loaded.tracks[0];
//! println!("{} lasts {} s", sit.name(), sit.duration_s());
//! assert_eq!(sit.duration_s(), 4.88);
//!
//! // The pose at 1 s: body attitude, joint angles and the rig's points.
//! let State::Mtn(pose) = motion_viewer::state_at(sit, At::Time(1.0))? else {
//!     unreachable!("an AIBO motion");
//! };
//! let first = &pose.joints[0];
//! println!("{} at 1 s: {:.2}°", first.name, first.deg);
//!
//! // Into Blender or three.js: an animated glTF scene.
//! let dir = tempfile::tempdir()?;
//! let out = dir.path().join("sit.glb");
//! motion_viewer::export(&loaded.tracks, &out, &motion_viewer::ExportOptions::default())?;
//! assert!(std::fs::metadata(&out)?.len() > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Layers
//!
//! Each uses only the ones before it:
//! - [`formats`]: bytes ↔ typed data (no GPU, no time), one module per
//!   format, each with `decode(&[u8]) -> Result<T, DecodeError>`;
//! - [`anim`]: time → pose, the CPU reference math, and the shared clock's rules
//!   ([`anim::LoopMode`], [`anim::MAX_DURATION_S`]);
//! - [`scene`]: the [`Track`]s; where each stands, and the plain shapes
//!   that draw them (CPU);
//! - [`mod@open`]: the front door, files in and [`Track`]s out: one function,
//!   [`open_with`], with [`OpenOptions`], and two shorthands, [`open()`] and
//!   [`open_bytes`];
//! - [`summary`], [`pose`]: what `viewer info` prints and `export --time`
//!   writes ([`state_at`], [`At`], [`State`] at the root);
//! - [`mod@export`]: tracks → JSON, CSV, OBJ, glTF, PC2, URDF, MJCF, MCAP and
//!   USD files ([`export()`] with [`ExportOptions`] at the root), through
//!   [`output`], the one safe way this crate writes a file;
//! - [`workbench`]: AIBO `.mtn` motions made from tables, mirrored, reversed,
//!   retimed, joined, converted between models and checked;
//! - [`budget`]: the cost of a render, an export or a synthetic scene, sized
//!   before it starts, and the caps above which it is refused;
//! - `gpu` (feature `gpu`): buffers, compute deformation, rendering,
//!   offscreen capture (`GpuContext` at the root);
//! - `stage` (feature `gpu`): every track posed at one time, laid out side
//!   by side (`Stage`, `StageOptions` at the root);
//! - `app` (feature `window`): the interactive window, desktop and web
//!   (`App`, `Host`, `WindowOptions` at the root), over the crate's own
//!   model of what the viewer shows (its `Status` is what the page reports);
//! - `synthetic` (feature `synthetic`): MEMG scenes of any size for benchmarks;
//! - `fit` (feature `fit`): MEMG motions fitted to point caches (`.pc2`,
//!   `.obj` sequences) within an error bound, with faer's decompositions.
//! - `physics` (feature `physics`): will it fall? AIBO motions simulated on a
//!   physical dog (rapier), with a verdict per motion.
//!
//! With its default features the crate has no GPU, window or command-line
//! dependency. It never prints: what a caller should see comes back as a
//! value (warnings in [`Loaded`], in decoded files and in reports).

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The crate's own tests name it as a user does (`motion_viewer::…`), so that
// a test moved in from `tests/` to reach a crate-private item reads the same.
#[cfg(test)]
extern crate self as motion_viewer;
// What every test harness shares (`tests/common/`, included, not copied).
#[cfg(test)]
#[path = "../../../tests/common/mod.rs"]
mod common;
#[cfg(test)]
mod model_tests;

pub mod anim;
pub mod budget;
pub mod curves;
pub mod error;
pub mod export;
#[cfg(feature = "fit")]
#[cfg_attr(docsrs, doc(cfg(feature = "fit")))]
pub mod fit;
pub mod formats;
pub mod open;
pub mod output;
pub mod pose;
pub mod scene;
// What the window shows, as plain data: built and tested without the
// window (feature `window`), which is what reads it.
#[cfg_attr(not(feature = "window"), allow(dead_code, unused_imports))]
pub(crate) mod session;
pub mod summary;
#[cfg(feature = "synthetic")]
#[cfg_attr(docsrs, doc(cfg(feature = "synthetic")))]
pub mod synthetic;
pub mod text;
pub mod workbench;

#[cfg(feature = "gpu")]
#[cfg_attr(docsrs, doc(cfg(feature = "gpu")))]
pub mod gpu;

#[cfg(feature = "physics")]
#[cfg_attr(docsrs, doc(cfg(feature = "physics")))]
pub mod physics;

#[cfg(feature = "gpu")]
#[cfg_attr(docsrs, doc(cfg(feature = "gpu")))]
pub mod stage;

#[cfg(feature = "window")]
#[cfg_attr(docsrs, doc(cfg(feature = "window")))]
pub mod app;

pub use error::{DecodeError, Error, GpuError, ParseValueError, Result};
pub use export::{Options as ExportOptions, Report as ExportReport, export};
#[cfg(not(target_arch = "wasm32"))]
pub use open::open;
pub use open::{Loaded, OpenOptions, Source, open_bytes, open_with};
pub use pose::{At, State, state_at};
pub use scene::Track;

#[cfg(feature = "window")]
#[cfg_attr(docsrs, doc(cfg(feature = "window")))]
pub use app::{App, Host, Options as WindowOptions};
#[cfg(feature = "gpu")]
#[cfg_attr(docsrs, doc(cfg(feature = "gpu")))]
pub use gpu::GpuContext;
#[cfg(feature = "gpu")]
#[cfg_attr(docsrs, doc(cfg(feature = "gpu")))]
pub use stage::{Stage, StageOptions};
