//! The `repo` test harness: what holds for the repository as a whole — the
//! documentation in step with the program (the CLI reference, the key
//! table, the library's first ten lines) with every relative link resolving
//! and the README a front page, the format rulings in `docs/formats.md` and
//! every reference to them, no source file importing a file that imports
//! it back, and one set of features per dependency across CI's builds.

#[path = "../common/app.rs"]
mod app;
#[path = "../common/mod.rs"]
mod common;

mod docs;
mod features;
mod imports;
mod links;
mod one_clock;
mod outside_crate;
mod readme;
