//! The `web` test harness: one binary, a module per subject.

#[path = "../common/app.rs"]
mod app;
#[path = "../common/mod.rs"]
mod common;

mod web_page;
mod web_sim;
