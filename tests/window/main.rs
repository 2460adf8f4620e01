//! The `window` test harness: one binary, a module per subject.

#[path = "../common/app.rs"]
mod app;
#[path = "../common/mod.rs"]
mod common;

mod window_curves;
mod window_edit;
mod window_keys;
mod window_physics;
mod window_xvfb;
