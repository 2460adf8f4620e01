//! cargo-fuzz target `oda`: see `motion_viewer_fuzz::oda` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| motion_viewer_fuzz::oda(data));
