//! The `gpu` test harness: one binary, a module per subject.

#[path = "../common/app.rs"]
mod app;
#[path = "../common/mod.rs"]
mod common;

mod gpu_export;
mod gpu_pipeline;
mod render_animated;
mod stage_render;
