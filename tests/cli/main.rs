//! The `cli` test harness: one binary, a module per subject.

#[path = "../common/app.rs"]
mod app;
#[path = "../common/mod.rs"]
mod common;

mod bench_cli;
mod curves_cli;
mod diff_cli;
mod far_marker_cli;
mod fit_bounded;
mod fit_cli;
mod fit_parts;
mod fit_rms;
mod hostile;
mod hostile_bounds;
mod hostile_out;
mod hostile_work;
mod input_animation_cli;
mod memg_cli;
mod mtn_cli;
mod oda_cli;
mod outputs;
mod robots_cli;
mod simulate_bound;
mod simulate_cli;
mod words_cli;
mod workbench_cli;
