//! The `repo` test harness: what holds for the repository as a whole — the
//! README in step with the program, the format rulings in `docs/formats.md`
//! and every reference to them, and no source file importing a file that
//! imports it back.

#[path = "../common/app.rs"]
mod app;
#[path = "../common/mod.rs"]
mod common;

mod docs;
mod imports;
mod one_clock;
mod outside_crate;
mod readme;
